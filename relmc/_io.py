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

__all__ = [
    "MAX_INPUT_BYTES",
    "atomic_path",
    "available_memory",
    "check_trial_memory",
    "read_text",
    "write_netcdf",
]

#: the largest input text file (CSV counts, scenario or sweep TOML) relmc reads: far above any
#: real one, small enough that reading it costs little memory
MAX_INPUT_BYTES = 16 * 2**20


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


def read_text(path: str | os.PathLike, what: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a UTF-8 text file (a BOM is dropped), refusing what is not one, with little memory.

    Reads at most ``max_bytes + 1`` bytes, so a huge file (or an endless stream) is refused
    after that much, not after reading it all.

    Raises
    ------
    ValueError
        Naming ``what`` (e.g. ``"scenario"``; empty: none) and the path: no such file, a
        directory, unreadable, larger than ``max_bytes``, or not UTF-8 text.
    """
    p = Path(path)
    what = f"{what}: " if what else ""
    if p.is_dir():
        raise ValueError(f"{what}{str(p)!r} is a directory, not a file")
    try:
        with open(p, "rb") as f:
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise ValueError(f"{what}file not found: {str(p)!r}") from None
    except OSError as e:
        raise ValueError(f"{what}cannot read {str(p)!r} ({e.strerror or e})") from None
    if len(data) > max_bytes:
        raise ValueError(
            f"{what}{str(p)!r} is larger than {max_bytes / 2**20:g} MiB; relmc reads input "
            "files of at most that size"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ValueError(
            f"{what}{str(p)!r} is not UTF-8 text (byte {data[e.start]:#04x} on line {line})"
        ) from None


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``), or ``None``."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


#: bytes a simulated trial holds (per-trial outputs and coordinates) beyond 4 per category
_TRIAL_BYTES = 128
#: copies of the per-trial arrays alive at once (kernel buffers, the Dataset, summaries' sorts)
_TRIAL_COPIES = 3


def check_trial_memory(n_trials: int, n_categories: int, *, field: str = "n_trials") -> None:
    """Refuse (``FieldError`` on ``field``) ``n_trials`` whose arrays cannot fit in memory.

    The estimate is ``(128 + 4 * n_categories) * 3`` bytes per trial, against the memory
    available now; where that is unknown nothing is checked.
    """
    from relmc.errors import FieldError

    avail = available_memory()
    need = int(n_trials) * (_TRIAL_BYTES + 4 * int(n_categories)) * _TRIAL_COPIES
    if avail is not None and need > avail:
        most = avail // ((_TRIAL_BYTES + 4 * int(n_categories)) * _TRIAL_COPIES)
        raise FieldError(
            field,
            f"{field}={int(n_trials):,} needs about {need / 2**30:.1f} GiB of memory but "
            f"{avail / 2**30:.1f} GiB is available; use at most {most:,} trials here",
        )


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
