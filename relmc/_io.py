"""Writing files atomically, reading input files with bounds, and a command's output set.

A reader sees the old file or the whole new one, never a part.

:func:`atomic_path` yields a temporary name in the destination's directory; when the block
ends without an exception the temporary file is fsync'ed and renamed over the destination
(``os.replace``, atomic on POSIX within one file system), and on any exception it is removed
and the destination is left as it was. :func:`write_netcdf` writes an ``xarray.Dataset`` or an
arviz ``InferenceData`` that way, encoded in memory first so that a full disk is a plain
``OSError``. :class:`OutputSet` writes the several files of one command into a staging folder
and moves them into place together, with one run id; :func:`read_text` reads an input file
with a size bound, naming the file when it is not UTF-8 text.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_INPUT_BYTES",
    "OutputSet",
    "Staging",
    "finish_interrupted",
    "netcdf_bytes",
    "write_bytes",
    "atomic_path",
    "available_memory",
    "check_posterior_memory",
    "check_trial_memory",
    "memory_limit",
    "MemoryBytes",
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


# --------------------------------------------------------------------------------------------
# memory available: the machine's, a container's or batch job's cgroup, a Slurm request

#: cgroup v1 writes "no limit" as a huge number (2**63 rounded down to a page); any limit at or
#: above this counts as none
_V1_UNLIMITED = 2**60
#: the most bytes of a small kernel or environment value relmc reads (a whole meminfo is ~1.5 KiB)
_SMALL_FILE_BYTES = 64 * 1024


class MemoryBytes(int):
    """Bytes of memory (an ``int``) that also name the limit they came from (``source``)."""

    source: str

    def __new__(cls, value: int, source: str) -> MemoryBytes:  # noqa: D102
        obj = super().__new__(cls, value)
        obj.source = source
        return obj

    def __getnewargs__(self) -> tuple[int, str]:  # type: ignore[override]  # noqa: D105
        return int(self), self.source


def _read_small(path: Path) -> str | None:
    """Return the text of a small kernel file, or None when it cannot be read or decoded."""
    try:
        with open(path, "rb") as f:
            return f.read(_SMALL_FILE_BYTES).decode("ascii")
    except (OSError, ValueError):
        return None


def _uint(text: str | None) -> int | None:
    """Return ``text`` (surrounding blanks aside) as a non-negative integer, or None."""
    if text is None or not re.fullmatch(r"[0-9]{1,30}", text.strip()):
        return None  # garbage, a sign, a unit, non-ASCII digits, or absurdly long
    return int(text)


def _read_bytes_value(path: Path) -> int | None:
    """Return the non-negative integer a file holds, or None (unreadable, garbage)."""
    return _uint(_read_small(path))


def _stat_field(path: Path, *names: str) -> int | None:
    """Return the first of ``names`` found in a ``memory.stat`` file (``name value`` lines)."""
    text = _read_small(path)
    if text is None:
        return None
    fields = dict(line.split(None, 1) for line in text.splitlines() if len(line.split()) == 2)
    for name in names:
        value = _uint(fields.get(name))
        if value is not None:
            return value
    return None


def _meminfo_available(proc: Path) -> tuple[int, str] | None:
    text = _read_small(proc / "meminfo")
    for line in (text or "").splitlines():
        parts = line.split()
        kib = _uint(parts[1]) if parts[:1] == ["MemAvailable:"] and len(parts) >= 2 else None
        if kib is not None:
            return kib * 1024, "MemAvailable (/proc/meminfo)"
    return None


def _own_cgroups(proc: Path) -> tuple[str | None, str | None]:
    """Return our cgroup v2 path and cgroup v1 memory path, from ``/proc/self/cgroup``."""
    v2 = v1 = None
    for line in (_read_small(proc / "self" / "cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        if parts[0] == "0" and parts[1] == "":
            v2 = parts[2]
        elif "memory" in parts[1].split(","):
            v1 = parts[2]
    return v2, v1


def _levels(root: Path, cgroup: str) -> Iterator[Path]:
    """Folders of ``cgroup`` and each of its ancestors under ``root``, innermost first.

    Ancestors count because a parent's smaller limit binds its children; the walk also finds
    the limit of a container whose own cgroup is mounted at ``root`` while ``/proc`` names
    it by its host path (the deeper folders then do not exist).
    """
    parts = [p for p in posixpath.normpath(cgroup).split("/") if p not in ("", ".", "..")]
    for n in range(len(parts), -1, -1):
        yield root.joinpath(*parts[:n])


def _cgroup_v2_available(proc: Path, cgroup_root: Path) -> list[tuple[int, str]]:
    own, _ = _own_cgroups(proc)
    if own is None:
        return []
    out = []
    for level in _levels(cgroup_root, own):
        limit = _read_bytes_value(level / "memory.max")  # "max" (no limit) reads as None
        usage = _read_bytes_value(level / "memory.current")
        if limit is None or usage is None:
            continue
        # page cache the kernel can drop is not used up (as MemAvailable counts it)
        usage -= min(usage, _stat_field(level / "memory.stat", "inactive_file") or 0)
        out.append((max(limit - usage, 0), f"cgroup memory.max ({level / 'memory.max'})"))
    return out


def _cgroup_v1_available(proc: Path, cgroup_root: Path) -> list[tuple[int, str]]:
    _, own = _own_cgroups(proc)
    if own is None:
        return []
    out = []
    for level in _levels(cgroup_root / "memory", own):
        limit = _read_bytes_value(level / "memory.limit_in_bytes")
        if limit is None or limit >= _V1_UNLIMITED:
            continue
        usage = _read_bytes_value(level / "memory.usage_in_bytes")
        if usage is None:
            continue
        cache = _stat_field(level / "memory.stat", "total_inactive_file", "inactive_file") or 0
        usage -= min(usage, cache)
        source = f"cgroup v1 memory.limit_in_bytes ({level / 'memory.limit_in_bytes'})"
        out.append((max(limit - usage, 0), source))
    return out


def _status_bytes(proc: Path, key: str) -> int:
    """Return field ``key`` (e.g. ``"VmRSS:"``, in kB) of our ``status`` in bytes; 0 if unread."""
    for line in (_read_small(proc / "self" / "status") or "").splitlines():
        parts = line.split()
        kib = _uint(parts[1]) if parts[:1] == [key] and len(parts) >= 2 else None
        if kib is not None:
            return kib * 1024
    return 0


def _rss(proc: Path) -> int:
    """Return our resident memory (``VmRSS``), or 0 when it cannot be read."""
    return _status_bytes(proc, "VmRSS:")


def _slurm_available(environ: Mapping[str, str], proc: Path) -> list[tuple[int, str]]:
    """Slurm's memory request for this job on this node (MiB), less this process's RSS."""

    def mib(name: str) -> int | None:
        return _uint(environ.get(name))

    requests = []
    per_node = mib("SLURM_MEM_PER_NODE")
    if per_node:  # 0: all of the node's memory, i.e. no limit of its own
        requests.append((per_node, f"SLURM_MEM_PER_NODE={per_node} MiB"))
    per_cpu = mib("SLURM_MEM_PER_CPU")
    if per_cpu:
        for cpus_name in ("SLURM_CPUS_ON_NODE", "SLURM_CPUS_PER_TASK"):
            cpus = mib(cpus_name)  # a count, not MiB; the same parsing
            if cpus:
                text = f"SLURM_MEM_PER_CPU={per_cpu} MiB x {cpus_name}={cpus}"
                requests.append((per_cpu * cpus, text))
                break
    if not requests:
        return []
    rss = _rss(proc)
    return [
        (max(m * 2**20 - rss, 0), f"{text}, less this process's memory") for m, text in requests
    ]


def _vm_size(proc: Path) -> int:
    """Return our address space (``VmSize``), or 0 when it cannot be read."""
    return _status_bytes(proc, "VmSize:")


def _address_limit() -> int | None:
    """Return this process's soft address-space limit (``ulimit -v``); None where none."""
    try:
        import resource
    except ImportError:  # not on a POSIX system
        return None
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if soft == resource.RLIM_INFINITY or soft < 0 else int(soft)


def _address_available(limit: int | None, proc: Path) -> list[tuple[int, str]]:
    """Return the address-space limit ``limit`` (None: none) less our ``VmSize``, as a source."""
    if limit is None:
        return []
    text = f"RLIMIT_AS (ulimit -v) of {limit // 2**20} MiB, less this process's address space"
    return [(max(limit - _vm_size(proc), 0), text)]


_READ = object()  # memory_limit's address_limit: read this process's own


def memory_limit(
    *,
    proc: str | os.PathLike = "/proc",
    cgroup_root: str | os.PathLike = "/sys/fs/cgroup",
    environ: Mapping[str, str] | None = None,
    address_limit: Any = _READ,
) -> tuple[int, str] | None:
    """Bytes of memory this process may still allocate, and which limit gave that number.

    The smallest of the limits that can be read (an unreadable or garbled one is skipped):

    - ``MemAvailable`` in ``/proc/meminfo`` (the machine);
    - cgroup v2: ``memory.max`` minus ``memory.current`` of this process's cgroup (from
      ``/proc/self/cgroup``) and of each ancestor, under ``cgroup_root`` (``max``: none);
    - cgroup v1: ``memory/.../memory.limit_in_bytes`` minus ``memory.usage_in_bytes``, the same
      way (the huge "unlimited" value counts as none);
    - Slurm's request for the job on this node: ``SLURM_MEM_PER_NODE`` MiB, or
      ``SLURM_MEM_PER_CPU`` MiB times ``SLURM_CPUS_ON_NODE`` (else ``SLURM_CPUS_PER_TASK``),
      less this process's resident memory (``VmRSS``; 0 when unreadable);
    - the address-space limit (``ulimit -v``, ``RLIMIT_AS``) less this process's address
      space (``VmSize``): every new array takes address space, mapped or not.

    A cgroup's usage counts without its inactive file cache (``inactive_file`` in
    ``memory.stat``), which the kernel drops before it runs out, as ``MemAvailable`` does.

    Parameters
    ----------
    proc, cgroup_root : path
        Where ``/proc`` and the cgroup file system are (tests pass fake trees).
    environ : mapping, optional
        The environment to read Slurm's variables from; default ``os.environ``.
    address_limit : int or None, optional
        The address-space limit in bytes (None: none); default this process's own.

    Returns
    -------
    (int, str) or None
        Bytes, and the source that gave the minimum (e.g. ``"cgroup memory.max
        (/sys/fs/cgroup/job/memory.max)"``, ``"SLURM_MEM_PER_NODE=4096 MiB, less this
        process's memory"``, ``"MemAvailable (/proc/meminfo)"``); None when no source can be
        read.
    """
    proc, cgroup_root = Path(proc), Path(cgroup_root)
    found: list[tuple[int, str]] = []
    meminfo = _meminfo_available(proc)
    if meminfo is not None:
        found.append(meminfo)
    found += _cgroup_v2_available(proc, cgroup_root)
    found += _cgroup_v1_available(proc, cgroup_root)
    found += _slurm_available(os.environ if environ is None else environ, proc)
    limit = _address_limit() if address_limit is _READ else address_limit
    found += _address_available(limit, proc)
    return min(found, key=lambda f: f[0]) if found else None


def available_memory(
    *,
    proc: str | os.PathLike = "/proc",
    cgroup_root: str | os.PathLike = "/sys/fs/cgroup",
    environ: Mapping[str, str] | None = None,
    address_limit: Any = _READ,
) -> int | None:
    """Bytes of memory available to a new allocation, or ``None`` when unknown.

    The smallest limit :func:`memory_limit` finds (the machine's ``MemAvailable``, cgroup v2
    or v1 limits, a Slurm memory request, the address-space limit), as a
    :class:`MemoryBytes`: an ``int`` whose ``source`` names that limit.
    """
    found = memory_limit(
        proc=proc, cgroup_root=cgroup_root, environ=environ, address_limit=address_limit
    )
    return None if found is None else MemoryBytes(*found)


def _limit_note(avail: int) -> str:
    """`` (limit: SOURCE)`` for a memory refusal, from a :class:`MemoryBytes`' source; else ``""``.

    A plain ``int`` (as tests install in place of :func:`available_memory`) names none.
    """
    source = getattr(avail, "source", None)
    return f" (limit: {source})" if source else ""


#: bytes a simulated trial holds beyond its kernel outputs (trial and draw coordinates, ETTR
#: and the other variables derived per trial; with the outputs of issue 8 this gave the earlier
#: fixed 128 + 4 per category)
_TRIAL_EXTRA_BYTES = 35
#: copies of the per-trial arrays alive at once (kernel buffers, the Dataset, summaries' sorts)
_TRIAL_COPIES = 3


def trial_bytes(n_categories: int) -> int:
    """Bytes one simulated trial holds: its kernel outputs plus :data:`_TRIAL_EXTRA_BYTES`.

    The outputs are read from ``relmc.sim.inputs.OUTPUTS``, so a new output counts without a
    change here.
    """
    import numpy as np

    from relmc.sim import CAUSES
    from relmc.sim.inputs import OUTPUTS

    width = {None: 1, "category": int(n_categories), "cause": len(CAUSES)}
    outputs = sum(np.dtype(dtype).itemsize * width[dim] for _, _, dtype, dim in OUTPUTS)
    return outputs + _TRIAL_EXTRA_BYTES


def check_trial_memory(
    n_trials: int, n_categories: int, *, field: str = "n_trials", at_once: int = 1
) -> None:
    """Refuse (``FieldError`` on ``field``) ``n_trials`` whose arrays cannot fit in memory.

    The estimate is :func:`trial_bytes` times 3 copies per trial, times ``at_once`` (runs of
    ``n_trials`` held at the same time, e.g. sweep cells in parallel worker processes),
    against the memory available now (:func:`available_memory`: the smallest of the machine's,
    the cgroup's and Slurm's limits; the message names the one that applied); where that is
    unknown nothing is checked.
    """
    from relmc.errors import FieldError

    avail = available_memory()
    per_trial = trial_bytes(n_categories) * _TRIAL_COPIES * int(at_once)
    need = int(n_trials) * per_trial
    if avail is not None and need > avail:
        most = avail // per_trial
        where = f" ({int(at_once)} at once)" if at_once > 1 else ""
        limit = _limit_note(avail)
        raise FieldError(
            field,
            f"{field}={int(n_trials):,}{where} needs about {need / 2**30:.1f} GiB of memory but "
            f"{avail / 2**30:.1f} GiB is available{limit}; use at most {most:,} trials here",
        )


#: copies of a fit's per-draw values alive at once, at least: measured peaks of the resident
#: memory, per draw, between 1e6 and 3e6 draws of the conjugate fit on 18 categories (the
#: InferenceData's 576 bytes a draw): 1.0 for ``fit_conjugate`` itself, 2.0 for ``relmc
#: fit`` and 2.3 for ``relmc project`` (which encode the posterior as netCDF in memory)
FIT_COPIES = 1.0
WRITTEN_FIT_COPIES = {"fit": 2.0, "project": 2.25}


def check_posterior_memory(
    n_draws: int, n_chains: int, n_values: int, copies: float = FIT_COPIES
) -> None:
    """Refuse (``FieldError`` on ``n_draws``) a fit whose draws cannot fit in memory.

    ``n_values`` float64 values per draw (a model's estimate of what it keeps, at least: its
    variables, predictive counts, log-likelihood and sample statistics) times ``copies``
    (:data:`FIT_COPIES` for a fit, :data:`WRITTEN_FIT_COPIES` for the commands that also
    write the posterior), for ``n_draws * n_chains`` draws, against
    :func:`available_memory` (the message names the limit that applied); where that is
    unknown nothing is checked. The estimate is a lower bound, so only a fit that surely
    cannot fit is refused.
    """
    from relmc.errors import FieldError

    avail = available_memory()
    total = int(n_draws) * int(n_chains)
    per_draw = int(n_values * 8 * copies)
    need = total * per_draw
    if avail is not None and per_draw > 0 and need > avail:
        limit = _limit_note(avail)
        raise FieldError(
            "n_draws",
            f"n_draws x n_chains = {int(n_draws):,} x {int(n_chains):,} posterior draws of "
            f"{int(n_values)} values each need about {need / 2**30:.1f} GiB of memory but "
            f"{avail / 2**30:.1f} GiB is available{limit}; use at most "
            f"{avail // per_draw:,} draws in all",
        )


def netcdf_bytes(obj: Any) -> memoryview:
    """Encode an ``xarray.Dataset`` or an arviz ``InferenceData`` as netCDF-4 bytes, in memory.

    HDF5 never touches the disk here, so a full or failing disk shows later as a plain
    ``OSError`` from :func:`write_bytes`, not as HDF5 errors (or a crash) inside the library.
    """
    import xarray as xr

    if isinstance(obj, xr.Dataset):
        return obj.to_netcdf(engine="h5netcdf")
    if hasattr(obj, "groups") and hasattr(obj, "to_datatree"):  # arviz InferenceData
        return obj.to_datatree().to_netcdf(engine="h5netcdf")
    raise TypeError(f"write_netcdf takes an xarray.Dataset or an InferenceData; got {type(obj)!r}")


def _target_name(filename: Any) -> str:
    """Name the output file a failed write was for (temporary names mapped back)."""
    if not filename:
        return "the output files"
    name = Path(str(filename)).name
    m = re.fullmatch(r"\.tmp-(.*)\.[0-9a-f]{12}(\.[^.]*)?", name)
    return m.group(1) + (m.group(2) or "") if m else name


def write_bytes(path: str | os.PathLike, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` and fsync it (an ``OSError`` such as ENOSPC propagates)."""
    try:
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        if e.filename is None:  # a failed write() names no file: name it
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def write_netcdf(obj: Any, path: str | os.PathLike) -> Path:
    """Write an ``xarray.Dataset`` or an arviz ``InferenceData`` to netCDF, atomically.

    The file is encoded in memory (:func:`netcdf_bytes`, engine ``h5netcdf``; an
    ``InferenceData`` as one netCDF group per arviz group), then written through
    :func:`atomic_path`. Returns ``path`` as a :class:`~pathlib.Path`.
    """
    path = Path(path)
    data = netcdf_bytes(obj)
    with atomic_path(path) as tmp:
        write_bytes(tmp, data)
    return path


# --------------------------------------------------------------------------------------------
# a command's set of output files, moved into place together

STAGING_PREFIX = ".relmc-staging-"
_COMMIT = "COMMIT"  # inside a staging folder: the files to move; written just before moving
_LOCK = ".lock"  # inside a staging folder: flock'ed by its owner while it lives


def _try_lock(path: Path, block: bool = False) -> int | None:
    """Open ``path`` (created if needed) and take an exclusive ``flock``; fd, or None if held.

    The kernel drops the lock when its process dies, however it dies, so a lock can never be
    left stuck by a killed process.
    """
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _move_committed(staging: Path, out: Path) -> None:
    """Move the files a commit record lists from ``staging`` into ``out`` (those still there)."""
    names = json.loads((staging / _COMMIT).read_text())["files"]
    for name in names:
        src = staging / name
        if src.exists():
            os.replace(src, out / name)
    _fsync_dir(out)


def finish_interrupted(out: str | os.PathLike) -> list[str]:
    """Complete or discard the output sets that a killed command left in ``out``.

    A staging folder whose owner is gone (its lock is free) is finished if it holds a commit
    record (every file in it was complete, some were not yet moved: the move is completed),
    else removed (the command died before its outputs were complete: nothing is moved).
    Folders of commands still running are left alone. Returns the run ids finished.
    """
    out = Path(out)
    done: list[str] = []
    if not out.is_dir():
        return done
    for staging in sorted(out.glob(STAGING_PREFIX + "*")):
        if not staging.is_dir():
            continue
        fd = _try_lock(staging / _LOCK)
        if fd is None:
            continue  # its command is still running
        try:
            if (staging / _COMMIT).is_file():
                _move_committed(staging, out)
                done.append(staging.name[len(STAGING_PREFIX) :])
            shutil.rmtree(staging, ignore_errors=True)
        finally:
            os.close(fd)
    return done


class OutputSet:
    """The files one command writes into one folder: checked first, then all or nothing.

    :meth:`check` runs before any work: the folder can be made and written, no target is a
    directory, and sets a killed command left half-moved are finished
    (:func:`finish_interrupted`). :meth:`stage` yields a :class:`Staging` folder inside the
    output folder, with a fresh ``run_id`` for the files to record. When the block succeeds
    every file is fsync'ed, a commit record is written, and the files are renamed into place
    (atomic each, on one file system); on any failure (an exception, a full disk) the staging
    folder is removed and no target is touched. A kill during the renames leaves the commit
    record, and the next :meth:`check` on that folder completes the move.

    Parameters
    ----------
    out : path
        The output folder (created if needed).
    names : sequence of str
        File names the command may write (it may write fewer, e.g. no figure).
    what : str
        How messages name the folder (``"--out"``).
    """

    def __init__(self, out: str | os.PathLike, names: Sequence[str], what: str = "--out"):
        self.out = Path(out)
        self.names = tuple(names)
        self.what = what

    def targets(self) -> list[Path]:
        """Return the paths the set may replace."""
        return [self.out / n for n in self.names]

    def check(self) -> None:
        """Fail (``ValueError``) before any work if the set cannot be written; finish old sets."""
        out, what = self.out, self.what
        if out.exists() and not out.is_dir():
            raise ValueError(f"{what} must be a directory; {str(out)!r} is a file")
        existing = out
        while not existing.exists():  # the nearest ancestor that exists must be writable
            existing = existing.parent
        try:  # permissions alone do not tell (root, read-only or virtual file systems): try it
            os.rmdir(tempfile.mkdtemp(prefix=".relmc-check-", dir=existing))
        except OSError as e:
            raise ValueError(
                f"{what} {str(out)!r}: cannot write in {str(existing)!r} ({e.strerror})"
            ) from None
        for t in self.targets():
            if t.is_dir():
                raise ValueError(
                    f"{what}: {str(t)!r} is a directory, where relmc writes a file; move it away"
                )
        finish_interrupted(out)

    @contextlib.contextmanager
    def stage(self) -> Iterator[Staging]:
        """Yield a staging folder; on success move its files into place together (see class)."""
        run_id = uuid.uuid4().hex
        self.out.mkdir(parents=True, exist_ok=True)
        staging = self.out / f"{STAGING_PREFIX}{run_id}"
        staging.mkdir()
        fd: int | None = None
        moving = False
        try:
            fd = _try_lock(staging / _LOCK)
            st = Staging(staging, run_id, self.names)
            yield st
            written = [n for n in self.names if (staging / n).exists()]
            for t in (self.out / n for n in written):  # checked again: the work took time
                if t.is_dir():
                    raise ValueError(f"{self.what}: {str(t)!r} is a directory, not a file")
            record = json.dumps({"run_id": run_id, "files": written})
            write_bytes(staging / (_COMMIT + ".tmp"), record.encode())
            os.replace(staging / (_COMMIT + ".tmp"), staging / _COMMIT)
            _fsync_dir(staging)
            moving = True  # from here on the set is committed: forward, never back
            _move_committed(staging, self.out)
            moving = False
            st.written = [self.out / n for n in written]
        except OSError as e:  # e.g. ENOSPC: say where, and that nothing was replaced
            if moving:
                raise
            raise OSError(
                e.errno,
                f"{self.what} {str(self.out)!r}: cannot write {_target_name(e.filename)} "
                f"({e.strerror or e}); nothing was replaced",
            ) from None
        finally:
            if not moving:  # else keep it: the next check() completes the move
                shutil.rmtree(staging, ignore_errors=True)
            if fd is not None:
                os.close(fd)


class Staging:
    """A staging folder of an :class:`OutputSet`: where a command writes its files.

    Attributes
    ----------
    folder : Path
        The staging folder (inside the output folder, so renames stay on one file system).
    run_id : str
        Shared by every file of this set; record it in each (e.g. ``attrs["relmc_run_id"]``).
    written : list of Path
        After a successful commit: the final paths, in the set's order.
    """

    def __init__(self, folder: Path, run_id: str, names: Sequence[str]):
        self.folder = folder
        self.run_id = run_id
        self.names = tuple(names)
        self.written: list[Path] = []

    def path(self, name: str) -> Path:
        """Where to write the set's file ``name``."""
        if name not in self.names:
            raise ValueError(f"{name!r} is not one of this output set's files {self.names}")
        return self.folder / name
