"""Writing files atomically: a reader sees the old file or the whole new one, never a part.

:func:`atomic_path` yields a temporary name in the destination's directory; when the block
ends without an exception the temporary file is fsync'ed and renamed over the destination
(``os.replace``, atomic on POSIX within one file system), and on any exception it is removed
and the destination is left as it was. :func:`write_netcdf` writes an ``xarray.Dataset`` or an
arviz ``InferenceData`` that way.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["atomic_path", "write_netcdf"]


def _fsync_dir(path: Path) -> None:
    """Make a rename in ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the rename itself is done
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` if the block succeeds.

    The temporary name is hidden (``.tmp-STEM.<random>SUFFIX``) and keeps ``path``'s suffix, so
    writers that choose a format by suffix still work. On success the file is fsync'ed
    before the rename; on failure (any exception, including KeyboardInterrupt) it is removed
    and the exception propagates. The directory must exist.

    Examples
    --------
    >>> with atomic_path("out/table.md") as tmp:  # doctest: +SKIP
    ...     tmp.write_text(text)
    """
    path = Path(path)
    tmp = path.with_name(f".tmp-{path.stem}.{uuid.uuid4().hex[:12]}{path.suffix}")
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def write_netcdf(obj: Any, path: str | os.PathLike) -> Path:
    """Write an ``xarray.Dataset`` or an arviz ``InferenceData`` to netCDF, atomically.

    Datasets are written with the ``h5netcdf`` engine; ``InferenceData`` with its own
    ``to_netcdf`` (one group per netCDF group). Returns ``path`` as a :class:`~pathlib.Path`.
    """
    import xarray as xr

    path = Path(path)
    with atomic_path(path) as tmp:
        if isinstance(obj, xr.Dataset):
            obj.to_netcdf(tmp, engine="h5netcdf")
        elif hasattr(obj, "groups") and hasattr(obj, "to_netcdf"):  # arviz InferenceData
            obj.to_netcdf(str(tmp))
        else:
            raise TypeError(
                f"write_netcdf takes an xarray.Dataset or an InferenceData; got {type(obj)!r}"
            )
    return path
