"""The sweep's zarr cube: creating it up front, writing whole cells, reading and status.

The store is created once with every coordinate and one chunk per cell per variable, plus a
``done`` flag per cell written after the cell's data (see "Crash safety" in
:mod:`relmc.sweep`). Its attrs hold the canonical spec and its SHA-256, the root seed
(:func:`relmc._seed.seed_attrs`: ``seed_entropy``, ``seed_spawn_key``) and the axes.

Layout
    Zarr v3. Chunk files are named ``c.i.j...`` inside each array's folder (the ``.``
    chunk-key separator), so a cell costs one file per variable and no folders. The metadata of
    every array is consolidated into the root ``zarr.json`` when the store is created; it never
    changes afterwards (writing a cell writes chunks only), so ``xr.open_zarr(store)`` reads it
    without a warning. Stores made before either choice (nested chunk folders, no consolidated
    metadata) open and resume as before.
Writing and reading cells
    A cell's chunks are written and read by this module directly (:class:`_CellChunk`): the
    bytes zarr would write (the array's ``bytes`` and ``zstd`` codecs, its chunk key, no file
    for a chunk of fill values), each through a temporary file and a rename as zarr's
    ``LocalStore`` does. zarr's own ``__setitem__`` costs a few milliseconds per call, which
    at 80-odd variables per cell was most of a sweep's time. Arrays laid out otherwise (a
    packed store's) go through zarr. Everything else (creating, packing) is zarr's.
Axes
    An axis of numbers, of booleans or of strings is a coordinate of that type. An axis that
    mixes numbers and rules (``policy.checkpoint_interval = [0.25, "daly"]``) is stored as string
    labels with the exact values in the coordinate's ``values_json`` attribute, and
    :func:`open_sweep` gives it back as those values (an object index), so both
    ``.sel(checkpoint_interval=0.25)`` and ``.sel(checkpoint_interval="daly")`` work. The
    interval every cell actually used is the data variable ``checkpoint_interval_hours``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import shutil
import socket
import threading
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from relmc import __version__
from relmc._extras import require
from relmc._seed import OVERHEAD_KEY, resolve_seed, seed_attrs
from relmc.errors import FieldError, bound_text
from relmc.scenario import SPREAD_FIELDS
from relmc.sweep.cells import (
    POSTERIOR_KEY,
    STOPPED_BY,
    cell_template,
    lower_cells,
    resolve_rates,
)
from relmc.sweep.spec import CHECKSUM, DONE, SweepSpec, _is_number

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "LEASE_SECONDS_RANGE",
    "StaleClaimWarning",
    "SweepStatus",
    "PACK_CHUNK_BYTES",
    "PackResult",
    "init_store",
    "open_sweep",
    "status",
    "pack",
    "is_packed",
    "recover_pack",
    "packed_chunks",
    "CellWriter",
    "cell_checksum",
    "check_lease_seconds",
]

#: what ``CellWriter.check()`` finds in a done cell
VERIFIED, DAMAGED, NO_CHECKSUM = "verified", "damaged", "unverifiable (no checksum)"

ATTR_SPEC = "relmc_sweep_spec"
ATTR_HASH = "relmc_sweep_spec_sha256"
#: chunk files ``c.0.3.1`` beside the array's zarr.json instead of nested ``c/0/3/1`` folders
CHUNK_KEY_ENCODING = {"name": "default", "separator": "."}
#: per-cell variables that stores made by earlier relmc versions lack; a resumed old store
#: simply goes on without them (every other variable must match the store's)
ADDED_LATER = frozenset(
    {
        "checkpoint_interval_hours",
        "sdc_rework_hours",  # per trial, in stores with keep_trials
        "sdc_rework_hours_mean",
        "sdc_rework_hours_se",
        "sdc_rework_hours_quantile",
    }
)

#: seconds a waiting run lets a held claim's heartbeat stand still before it computes the cell
#: itself (``run_sweep(claim_lease_seconds=...)``): long enough for a busy or briefly paused
#: holder, and for NFS clients, which may show a file's new mtime up to a minute late
DEFAULT_LEASE_SECONDS = 300.0
#: the leases allowed, in seconds (both ends included)
LEASE_SECONDS_RANGE = (0.5, 86400.0)
#: a holder refreshes its claim's heartbeat this many times per lease
_BEATS_PER_LEASE = 10
#: a waiter never calls a holder stale before the holder missed this many of its own heartbeats
#: (so a waiter with a shorter lease than the holder's never takes a live holder's cell)
_MISSED_BEATS = 3


class StaleClaimWarning(RuntimeWarning):
    """A cell's claim is held by a run whose heartbeat stopped: this run computes the cell.

    The holder is alive (its lock is held) but has not refreshed its heartbeat for a lease:
    stopped, or stuck on a dead file system. Both runs compute the same numbers, and a cell
    found done and verified is never rewritten, so the store stays valid either way.
    """


def check_lease_seconds(value: Any, field: str = "claim_lease_seconds") -> float:
    """Return ``value`` as a lease in seconds, or raise a ``FieldError`` naming ``field``."""
    lo, hi = LEASE_SECONDS_RANGE
    ok = _is_number(value) and math.isfinite(value)
    if not ok or not lo <= value <= hi:
        raise FieldError(
            field,
            f"{field} must be a number of seconds in [{bound_text(lo)}, {bound_text(hi)}]; "
            f"got {value!r}",
        )
    return float(value)


def _axis_units(path: str) -> str | None:
    """Return the units of an axis's field where its name gives them (hours, counts), or None."""
    name = path.rsplit(".", 1)[-1]
    if name.endswith("_hours") or name == "checkpoint_interval":  # a rule's values too
        return "h"
    if name.startswith("n_") or name in ("max_events", "lemon_failures", "memory_replicas"):
        return "1"
    return None


def _axis_coord(path: str, values: tuple[Any, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    attrs: dict[str, Any] = {"field": path}
    units = _axis_units(path)
    if units is not None:
        attrs["units"] = units
    if all(isinstance(v, bool) for v in values):
        arr = np.array(values, dtype=bool)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        arr = np.array(values, dtype=np.int64)
    elif all(_is_number(v) for v in values):
        arr = np.array(values, dtype=np.float64)
    else:  # mixed numbers and rules (e.g. 0.5 and "young")
        arr, attrs["values_json"] = _labels(values)
    return arr, attrs


def _labels(values: Sequence[Any]) -> tuple[np.ndarray, str]:
    """Return a mixed axis as a store holds it: string labels, and the exact values in JSON."""
    return np.array([str(v) for v in values], dtype=object), json.dumps(list(values))


def _coords(spec: SweepSpec) -> dict[str, Any]:
    coords = {}
    for dim, (path, values) in zip(spec.dims, spec.axes, strict=True):
        arr, attrs = _axis_coord(path, values)
        coords[dim] = xr.Variable(dim, arr, attrs)
    return coords


def _empty_cube(spec: SweepSpec, template: xr.Dataset) -> tuple[xr.Dataset, dict]:
    da = require("dask.array")
    dims, shape = spec.dims, spec.shape
    # the template ran 2 trials; the cube holds spec.n_trials
    sizes = {**template.sizes, "trial": spec.n_trials}
    data_vars = {}
    encoding = {}
    for name, v in template.data_vars.items():
        vshape = shape + tuple(sizes[d] for d in v.dims)
        chunks = (1,) * len(shape) + vshape[len(shape) :]
        if np.issubdtype(v.dtype, np.floating):
            fill = np.nan
        else:
            fill = 0
        # one dask chunk per variable: nothing is computed (the store is written with
        # compute=False), and a chunk per cell would only make dask's graph slow to build
        data_vars[name] = xr.Variable(
            dims + v.dims, da.full(vshape, fill, dtype=v.dtype, chunks=-1), v.attrs
        )
        encoding[name] = {"chunks": chunks, "chunk_key_encoding": CHUNK_KEY_ENCODING}
    data_vars[DONE] = xr.Variable(
        dims,
        da.zeros(shape, dtype=bool, chunks=-1),
        {"long_name": "cell complete (written after its data)"},
    )
    data_vars[CHECKSUM] = xr.Variable(
        dims,
        da.zeros(shape, dtype=np.uint64, chunks=-1),
        {"long_name": "checksum of the cell's data as written (relmc.sweep.store.cell_checksum)"},
    )
    for name in (DONE, CHECKSUM):
        encoding[name] = {"chunks": (1,) * len(shape), "chunk_key_encoding": CHUNK_KEY_ENCODING}
    coords = _coords(spec)
    for c, v in template.coords.items():
        vals = np.arange(spec.n_trials) if c == "trial" else v.values
        if vals.dtype.kind in "UO":
            vals = vals.astype(object)
        coords[str(c)] = xr.Variable(v.dims, vals, v.attrs)
    for c in coords:
        encoding[str(c)] = {"chunk_key_encoding": CHUNK_KEY_ENCODING}
    cube = xr.Dataset(data_vars, coords=coords)
    cube.attrs.update(
        {
            ATTR_SPEC: spec.canonical_json(),
            ATTR_HASH: spec.sha256(),
            **seed_attrs(resolve_seed(spec.seed)),
            "cell_seed": "child_seed(root seed, flat C-order cell index)",
            "overhead_seed": "the root seed, in every cell (its stream: spawn key + "
            f"[{OVERHEAD_KEY}]): each posterior draw's overhead multipliers (the policy's "
            "*_spread) the same in every cell",
            "posterior_seed": f"a conjugate posterior is fitted with spawn key + [{POSTERIOR_KEY}]",
            "sharding": "shard s of k owns flat cells s, s+k, s+2k, ...",
            "posterior": spec.posterior,
            "n_trials": spec.n_trials,
            "axes": json.dumps([[d, p] for d, p in zip(spec.dims, spec.paths, strict=True)]),
            "time_units": "hours",
            "relmc_version": __version__,
        }
    )
    return cube, encoding


def _read_attrs(store: Path) -> dict[str, Any]:
    zarr = require("zarr")
    try:
        g = zarr.open_group(str(store), mode="r")
    except Exception as e:  # zarr raises several types for a missing or foreign store
        raise ValueError(f"{str(store)!r} is not a relmc sweep store: {e}") from e
    attrs = dict(g.attrs)
    if ATTR_HASH not in attrs:
        raise ValueError(f"{str(store)!r} is a zarr store but not a relmc sweep store")
    return attrs


def init_store(spec: SweepSpec, store: str | os.PathLike, *, rates=None, template=None) -> Path:
    """Create the sweep's zarr store with all coordinates, or check an existing one.

    The store is built in a temporary sibling folder and renamed into place, so concurrent
    tasks that all try to create it agree on one, and none sees a half-made store.

    Raises
    ------
    ValueError
        If ``store`` exists and was made by a different spec, or is not a sweep store.
    """
    store = store_path(store)
    recover_pack(store)  # a pack killed between its renames: the store comes back first
    if store.exists():
        check_same_spec(spec, store)
        return store
    require("zarr")
    if template is None:
        rates = resolve_rates(spec) if rates is None else rates
        lower_cells(spec, rates)  # bad cells fail before anything is written
        template = cell_template(spec, rates)
    cube, encoding = _empty_cube(spec, template)
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file on the way, no permission: name the store, not only a path
        raise _store_error(store, e) from None
    _check_room(spec, cube, store.parent)
    tmp = store.with_name(f".{store.name}.{uuid.uuid4().hex}.tmp")
    try:
        try:
            cube.to_zarr(
                str(tmp),
                mode="w-",
                compute=False,
                consolidated=False,
                zarr_format=3,
                encoding=encoding,
            )
            _consolidate(tmp)  # before the rename: no reader ever sees the store without it
        except OSError as e:
            raise _store_error(store, e) from None
        try:
            os.rename(tmp, store)  # atomic; fails if another task created the store first
        except OSError:
            if not store.exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    check_same_spec(spec, store)
    return store


def _store_error(store: Path, e: OSError, what: str = "sweep store") -> OSError:
    """``e`` (its errno kept) as a failure to create ``what``, naming its path."""
    where = f": {str(e.filename)!r}" if e.filename else ""
    return OSError(e.errno, f"{what} {str(store)!r}: cannot create it ({e.strerror}{where})")


def _consolidate(store: Path) -> None:
    """Write every array's metadata into the root ``zarr.json`` (consolidated metadata)."""
    import warnings

    zarr = require("zarr")
    with warnings.catch_warnings():
        # zarr warns that consolidated metadata is not (yet) part of the v3 specification;
        # readers that do not know it still read each array's own zarr.json, which stays
        warnings.filterwarnings("ignore", message="Consolidated metadata", category=UserWarning)
        zarr.consolidate_metadata(str(store), zarr_format=3)


def _is_consolidated(store: Path) -> bool:
    """Whether the store's root ``zarr.json`` holds consolidated metadata (older ones do not)."""
    try:
        root = json.loads((store / "zarr.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(root, dict) and root.get("consolidated_metadata") is not None


def _decode_axes(ds: xr.Dataset) -> xr.Dataset:
    """Give mixed axes (numbers and rules, stored as labels) back their exact values."""
    for name in list(ds.coords):
        var = ds[name].variable
        text = var.attrs.get("values_json")
        if text is None or var.ndim != 1:
            continue
        values = json.loads(text)
        labels = [str(v) for v in values]
        if len(values) != var.size or [str(x) for x in var.values] != labels:
            continue  # not the labels this store wrote: leave them as they are
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
        ds = ds.assign_coords({name: xr.Variable(var.dims, arr, var.attrs)})
    return ds


def axes_as_labels(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` with each axis that mixes numbers and rules given back as its string labels.

    :func:`open_sweep` gives such an axis (``checkpoint_interval = [0.25, "daly"]``) its exact
    values, an object coordinate of floats and strings, which netCDF and zarr cannot encode:
    ``cube.to_netcdf(...)`` raises. ``axes_as_labels(cube).to_netcdf(...)`` writes the labels
    (``"0.25"``, ``"daly"``) with the exact values in the coordinate's ``values_json``
    attribute (a cube subset or reordered after opening: its values now), as the store holds
    them; a file read back keeps the labels (``json.loads(ds[axis].attrs["values_json"])``
    are the values). Other coordinates are returned as they are.
    """
    for name in list(ds.coords):
        var = ds[name].variable
        if var.ndim != 1 or var.dtype != object:
            continue
        values = [v.item() if isinstance(v, np.generic) else v for v in var.values]
        if not all(isinstance(v, str | bool) or _is_number(v) for v in values):
            continue  # not an axis of numbers and rules: leave it as it is
        if all(isinstance(v, str) for v in values):
            continue  # labels already (or an axis of rules only): netCDF writes them
        arr, text = _labels(values)
        ds = ds.assign_coords(
            {name: xr.Variable(var.dims, arr, {**var.attrs, "values_json": text})}
        )
    return ds


def _check_room(spec: SweepSpec, cube: xr.Dataset, where: Path) -> None:
    """Refuse (``ValueError``) a store that cannot fit: files (inodes) and bytes, estimated."""
    # a chunk file per cell per variable (no chunk folders), a folder and a zarr.json per array
    n_files = spec.n_cells * len(cube.data_vars) + 2 * len(cube.variables) + 64
    n_bytes = sum(int(v.nbytes) for v in cube.data_vars.values())  # uncompressed: an upper bound
    try:
        st = os.statvfs(where)
    except OSError:
        return
    if st.f_files > 0 and n_files > st.f_favail:
        raise ValueError(
            f"store: the sweep needs about {n_files:,} files ({spec.n_cells:,} cells x "
            f"{len(cube.data_vars)} variables) but {str(where)!r} has {st.f_favail:,} free "
            "inodes; use fewer cells"
        )
    if n_bytes > st.f_bavail * st.f_frsize:
        raise ValueError(
            f"store: the sweep needs up to {n_bytes / 2**20:,.1f} MiB but {str(where)!r} has "
            f"{st.f_bavail * st.f_frsize / 2**20:,.1f} MiB free; use fewer cells or trials"
        )


def cell_checksum(cell: Any) -> int:
    """Checksum (64-bit BLAKE2b) of one cell's variables: names, dtypes, shapes and bytes.

    ``cell`` maps variable names to arrays (an ``xarray.Dataset`` of the cell, or what was read
    back from the store); the order of the names does not matter.
    """
    h = hashlib.blake2b(digest_size=8)
    for name in sorted(map(str, cell)):
        _hash_variable(h, name, cell[name])
    return _digest(h)


def _hash_variable(h: Any, name: str, value: Any) -> None:
    """Feed one variable of a cell into a checksum: its name, dtype, shape and bytes.

    Only the values count, never how the store chunks them: a cell read from a store with one
    chunk per cell and from a packed store (many cells per chunk) gives the same checksum.
    """
    a = np.ascontiguousarray(np.asarray(value))
    h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
    h.update(a.tobytes())


def _digest(h: Any) -> int:
    # 0 is the fill value of the checksum array: "no checksum"; a digest of 0 is stored as 1
    return int.from_bytes(h.digest(), "little") or 1


def _put_chunk(path: Path, data: bytes) -> None:
    """Write one chunk file as zarr's ``LocalStore`` does: a temporary file, then a rename.

    A reader sees the old chunk or the new one, never part of one; on failure the temporary
    file is removed, so a full disk leaves nothing behind.
    """
    tmp = path.with_suffix(f".{uuid.uuid4().hex}.partial")
    try:
        with open(tmp, "wb") as f:
            _write_bytes(f, data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _write_bytes(f: Any, data: bytes) -> None:
    """Write a chunk's bytes into its open temporary file (the one place a cell's bytes go)."""
    f.write(data)


@dataclass(frozen=True)
class _CellChunk:
    """How to write one array's chunk of a cell without zarr's per-call machinery.

    Applies to the arrays this module creates: a cell's region is exactly one chunk, and the
    codecs are zarr v3's ``bytes`` (little-endian) then ``zstd``. The bytes written are those
    zarr writes (checked byte for byte in the tests), and like zarr (``write_empty_chunks``
    off) a chunk holding only the fill value is removed rather than written.
    """

    folder: Path
    array: Any
    dtype: np.dtype
    fill: Any
    compress: Any
    decompress: Any

    @classmethod
    def of(cls, store: Path, name: str, array: Any, n_axes: int) -> _CellChunk | None:
        meta = array.metadata
        try:
            chunks = tuple(meta.chunk_grid.chunk_shape)
            codecs = tuple(meta.codecs)
        except AttributeError:  # not zarr v3 with a regular grid
            return None
        if (
            len(codecs) != 2
            or type(codecs[0]).__name__ != "BytesCodec"
            or type(codecs[1]).__name__ != "ZstdCodec"
            or chunks[:n_axes] != (1,) * n_axes
            or chunks[n_axes:] != tuple(array.shape[n_axes:])
            or array.dtype.kind not in "biuf"
            or getattr(getattr(array, "config", None), "write_empty_chunks", True)
            or set(codecs[1].to_dict().get("configuration", {})) != {"level", "checksum"}
        ):
            return None  # laid out or configured otherwise: zarr writes and reads it
        endian = getattr(codecs[0].endian, "value", codecs[0].endian)
        if endian not in (None, "little") or (endian is None and array.dtype.itemsize > 1):
            return None
        from numcodecs import Zstd

        zstd = Zstd(level=codecs[1].level, checksum=codecs[1].checksum)
        fill = np.asarray(meta.fill_value, dtype=array.dtype)
        little = array.dtype.newbyteorder("<")
        return cls(store / name, array, little, fill, zstd.encode, zstd.decode)

    def key(self, idx: tuple[int, ...]) -> Path:
        ndim = len(self.array.shape)
        return self.folder / self.array.metadata.encode_chunk_key(idx + (0,) * (ndim - len(idx)))

    def only_fill(self, value: np.ndarray) -> bool:
        """Whether ``value`` is all fill value, as zarr decides it (then no chunk is kept)."""
        if value.dtype.kind == "f" and self.fill == 0.0:  # zarr compares zeros bit by bit
            v = np.ascontiguousarray(value, dtype=self.dtype)
            return v.tobytes() == self.fill.astype(self.dtype).tobytes() * v.size
        return bool(np.array_equal(value, np.broadcast_to(self.fill, value.shape), equal_nan=True))

    def read(self, idx: tuple[int, ...]) -> np.ndarray:
        """Cell ``idx``'s values as zarr reads them: the fill value where no chunk was written.

        A chunk that does not decode to the cell's shape (emptied or garbled) raises.
        """
        shape = tuple(self.array.shape[len(idx) :])
        try:
            raw = self.key(idx).read_bytes()
        except FileNotFoundError:
            return np.full(shape, self.fill, dtype=self.array.dtype)
        data = np.frombuffer(self.decompress(raw), dtype=self.dtype).reshape(shape)
        return data.astype(self.array.dtype)

    def write(self, idx: tuple[int, ...], value: np.ndarray) -> None:
        path = self.key(idx)
        if self.only_fill(value):
            path.unlink(missing_ok=True)
            return
        if path.parent != self.folder:  # nested chunk keys (stores made by older versions)
            path.parent.mkdir(parents=True, exist_ok=True)
        data = np.ascontiguousarray(value, dtype=self.dtype).tobytes()
        _put_chunk(path, bytes(self.compress(data)))


def store_path(store: Any, field: str = "store") -> Path:
    """Return ``store`` as an absolute path with ``.`` and ``..`` resolved (not symlinks).

    Sibling paths (``.<store>.claims``, a pack's ``.<store>.packed-new``) are named after
    the store's last part, which ``"."`` (a store opened from inside it) does not have.
    Anything but a path is a ``FieldError`` on ``field``.
    """
    if isinstance(store, str | os.PathLike):
        text = os.fspath(store)
        if isinstance(text, str) and text:
            return Path(os.path.abspath(text))
    raise FieldError(field, f"{field} must be a path to a sweep store (a string); got {store!r}")


def _claims_dir(store: Path) -> Path:
    # beside the store, not in it: zarr warns about foreign folders inside a hierarchy
    return store.with_name(f".{store.name}.claims")


def check_variables(store: Path, template: xr.Dataset) -> None:
    """Refuse (``ValueError``) a store that lacks a per-cell variable this relmc writes.

    Variables added since a store was made (:data:`ADDED_LATER`) are left out of such a
    store's cells; any other would make the run fail at its first write, after the work.
    """
    zarr = require("zarr")
    have = set(map(str, zarr.open_group(str(store), mode="r").array_keys()))
    _refuse_lacking(store, template.data_vars, have)


def _refuse_lacking(store: Path, names: Any, have: Any) -> None:
    """Raise ``ValueError`` if the store (arrays ``have``) lacks one of the cell's ``names``.

    Those added later (:data:`ADDED_LATER`) it may lack: a store made before them.
    """
    lacks = sorted(str(n) for n in names if n not in have and n not in ADDED_LATER)
    if lacks:
        raise ValueError(
            f"sweep store {str(store)!r} has no variable {lacks[0]!r}"
            + (f" (nor {len(lacks) - 1} more)" if len(lacks) > 1 else "")
            + ", which this relmc writes for every cell: the store was made by another relmc "
            "version; run the spec into a new store"
        )


def check_same_spec(spec: SweepSpec, store: Path) -> None:
    """Refuse (``ValueError``) a store that a different spec created, naming what differs.

    Also one made before a seeding rule that this spec's cells follow (``_old_rule``)
    while cells are left to compute: those would follow the new rule beside the old cells.
    A complete one (every done cell verified) is accepted: nothing is computed in it.
    """
    attrs = _read_attrs(store)
    if attrs[ATTR_HASH] != spec.sha256():
        try:
            theirs = json.loads(attrs.get(ATTR_SPEC, "{}"))
        except ValueError:
            theirs = {}
        if not isinstance(theirs, dict):
            theirs = {}
        ours = spec.canonical()

        def text(value: Any) -> str:  # as hashed: 1 and 1.0 differ here, as in the hash
            return json.dumps(value, sort_keys=True, separators=(",", ":"))

        diff = sorted(
            k for k in set(theirs) | set(ours) if text(theirs.get(k)) != text(ours.get(k))
        )
        if not theirs:
            where = "the store records only the spec's hash, not the spec"
        elif diff:
            where = f"differs in {diff}"
        else:  # never an empty list of differences
            where = "the store's recorded spec does not match its recorded hash (edited attrs?)"
        raise ValueError(
            f"store {str(store)!r} was created by a different sweep spec ({where}; "
            f"sha256 {attrs[ATTR_HASH][:12]} vs {spec.sha256()[:12]}: the spec, or the "
            "defaults of the relmc version that resolves it, changed); use a new store path, "
            "or delete the old store to start over"
        )
    rule = _old_rule(spec, store, attrs)
    if rule is not None:
        # a complete store has nothing to compute, so nothing to mix: it is read as it is
        left = status(store, verify=True).missing.size
        if left:
            raise ValueError(
                f"{rule}: the {left} of its {spec.n_cells} cells left to compute would follow "
                "the new rule beside cells of the old one; use a new store path, or delete the "
                "old store to start over"
            )


def _old_rule(spec: SweepSpec, store: Path, attrs: dict[str, Any]) -> str | None:
    """Why cells computed now would not match the store's (a seeding rule it predates), or None.

    Read from the attrs the store records its rules in (``overhead_seed``, ``posterior_seed``),
    for a spec whose cells the rule moves: one that sets an overhead spread, or a conjugate
    posterior.
    """
    if "overhead_seed" not in attrs and _spreads_set(spec):
        return (
            f"store {str(store)!r} was made before every cell of a sweep shared each posterior "
            "draw's overhead multipliers (each cell drew its own), and this spec sets an "
            "overhead spread (policy.*_spread)"
        )
    if "posterior_seed" not in attrs and spec.posterior.startswith("conjugate:"):
        return (
            f"store {str(store)!r} was made before a sweep's conjugate posterior was fitted "
            f"from its own seed (spawn key + [{POSTERIOR_KEY}]; it was the root's, whose "
            "streams cell 0's trials shared)"
        )
    return None


def _spreads_set(spec: SweepSpec) -> bool:
    """Whether some cell of ``spec`` draws overhead multipliers (a ``policy.*_spread`` > 1).

    In the base, or a value above 1 on an axis over a spread (an axis over one field sets it
    in every cell, so a spread of the base that such an axis sets to 1 everywhere is none).
    """
    on_axes = {p.rsplit(".", 1)[-1]: v for p, v in spec.axes if p.startswith("policy.")}
    for name in SPREAD_FIELDS:
        if name in on_axes:
            if any(float(x) > 1.0 for x in on_axes[name]):
                return True
        elif getattr(spec.base_scenario.policy, name) > 1.0:
            return True
    return False


class CellWriter:
    """Writes whole cells into an existing store (zarr, one chunk per cell per variable).

    Each cell's variables are written first, then its checksum (:func:`cell_checksum`), then
    its ``done`` flag; :meth:`verify` reads a done cell back and compares. :meth:`claim` takes
    a per-cell lock so that concurrent runs on one store split the cells, and :meth:`claims`
    hands out a run's cells, waiting (boundedly) for those other runs hold.
    """

    def __init__(self, store: Path, spec: SweepSpec):
        zarr = require("zarr")
        self.spec = spec
        group = zarr.open_group(str(store), mode="r+")
        self._open(Path(store), group, _Grid(tuple(spec.dims), tuple(spec.shape)))

    @classmethod
    def reader(cls, store: Path, group: Any) -> CellWriter:
        """One that only reads (``check``, ``verify``), from an open group; no spec needed."""
        self = cls.__new__(cls)
        self._open(store, group, _Grid.of_array(group[DONE]))
        return self

    def _open(self, store: Path, group: Any, grid: _Grid) -> None:
        self.store, self.group, self.grid = store, group, grid
        self.arrays: dict[str, Any] = {}
        self._chunks: dict[str, _CellChunk | None] = {}
        # the store's arrays never change once it is made (a run writes chunks only)
        self._names = frozenset(map(str, group.array_keys()))
        self._cell_variables: list[str] | None = None
        self._inode = os.stat(self.store).st_ino

    @property
    def packed(self) -> bool:
        """Whether the store was packed when this writer opened it (then it is read-only)."""
        return ATTR_PACKED in self.group.attrs

    def replaced(self) -> bool:
        """Whether the store's folder was replaced since this writer opened it (packed).

        Only :func:`pack` replaces a store, and only a complete, verified one: a run that
        finds its store replaced has nothing left to write (and must not write: its arrays'
        chunk layout is the old one).
        """
        try:
            return os.stat(self.store).st_ino != self._inode
        except OSError:
            return True

    def _array(self, name: str):
        if name not in self.arrays:
            self.arrays[name] = self.group[name]
        return self.arrays[name]

    def _chunk(self, name: str, n_axes: int) -> _CellChunk | None:
        if name not in self._chunks:
            self._chunks[name] = _CellChunk.of(self.store, name, self._array(name), n_axes)
        return self._chunks[name]

    def _get(self, name: str, idx: tuple[int, ...]) -> np.ndarray:
        """Read cell ``idx`` of array ``name``: its chunk file directly where that applies."""
        chunk = self._chunk(name, len(idx))
        return np.asarray(self._array(name)[idx]) if chunk is None else chunk.read(idx)

    def _set(self, name: str, idx: tuple[int, ...], value: np.ndarray) -> None:
        """Write cell ``idx`` of array ``name``: one chunk file, directly where that applies.

        zarr's ``__setitem__`` costs ~2-4 ms per call whatever the size (its async machinery,
        not I/O), which made writes most of a sweep's time at 80-odd variables per cell; the
        direct write of the same bytes costs ~0.5 ms. Arrays laid out otherwise go via zarr.
        """
        chunk = self._chunk(name, len(idx))
        if chunk is None:
            self._array(name)[idx] = value
        else:
            chunk.write(idx, np.asarray(value))

    def cell_variables(self) -> list[str]:
        """Names of the per-cell data arrays (dims start with the axes; not done/checksum).

        Not the axes' own coordinates: with one axis, its coordinate's dims are the axes too
        (it was taken for a cell variable, so every cell of a one-axis sweep failed
        verification, and each run recomputed it).
        """
        if self._cell_variables is None:
            dims = self.grid.dims
            out = []
            for name, arr in self.group.arrays():
                names = tuple(getattr(arr.metadata, "dimension_names", None) or ())
                if names[: len(dims)] == dims and name not in (DONE, CHECKSUM, *dims):
                    out.append(str(name))
            self._cell_variables = sorted(out)
        return list(self._cell_variables)

    def done_mask(self) -> np.ndarray:
        """Done flag of every cell (flat C order); a flag that cannot be read counts as unset."""
        return _flags(self._array(DONE), self.grid)

    def cell_value(self, name: str, flat: int) -> Any:
        """Cell ``flat``'s value of a per-cell scalar variable ``name`` (e.g. ``stopped_code``)."""
        return self._get(name, self.grid.cell_index(int(flat)))[()]

    def is_done(self, flat: int) -> bool:
        """Whether cell ``flat``'s flag is set now (read afresh; unreadable: False)."""
        try:
            return bool(self._get(DONE, self.grid.cell_index(flat)))
        except Exception:  # a damaged chunk (zarr and codecs raise several types)
            return False

    def check(self, flat: int) -> str:
        """Read done cell ``flat`` back: :data:`VERIFIED`, :data:`DAMAGED` or :data:`NO_CHECKSUM`.

        Verified: the data match the checksum written with the flag. Damaged: they do not, or
        a chunk fails to decode (emptied or garbled by a machine crash). No checksum: the cell
        has none to compare with (a store made before checksums existed, or a checksum chunk
        lost) but its data decode.
        """
        idx = self.grid.cell_index(flat)
        try:
            expected = int(self._get(CHECKSUM, idx)) if self.has_checksums else 0
            cell = {name: self._get(name, idx) for name in self.cell_variables()}
        except Exception:  # garbled or truncated chunks fail to decompress
            return DAMAGED
        if expected == 0:  # the fill value: never written (cell_checksum is never 0)
            return NO_CHECKSUM
        return VERIFIED if expected == cell_checksum(cell) else DAMAGED

    @property
    def has_checksums(self) -> bool:
        """Whether the store records a checksum per cell (stores made before them do not)."""
        return CHECKSUM in self._names

    def verify(self, flat: int) -> bool:
        """Whether done cell ``flat`` may be kept as it is (else a run recomputes it).

        A verified cell is kept and a damaged one is not (:meth:`check`). A cell with no
        checksum is *unverifiable*, and the rule is fixed by the store, so it is the same on
        every run: in a store made before checksums existed it is kept (its data decode, and
        recomputing it could never give it a checksum, so it would be recomputed on every run);
        in a store that records checksums it is recomputed, which writes its checksum (every
        write records one before the flag, so a done cell without one has lost a chunk).
        """
        state = self.check(flat)
        return state == VERIFIED or (state == NO_CHECKSUM and not self.has_checksums)

    def failed_verification(self, cells: Sequence[int]) -> list[int]:
        """Return the cells of ``cells`` whose flag is set but whose data fail :meth:`verify`."""
        done = self.done_mask()
        return [int(c) for c in cells if done[c] and not self.verify(int(c))]

    def write(self, flat: int, cell: xr.Dataset) -> bool:
        """Write cell ``flat``'s variables, then its checksum, then (last) its done flag.

        Returns True, or False when the cell is already done and verified (another run
        wrote it meanwhile, with the same bytes: a cell's result depends only on the spec and
        the cell), in which case nothing is written, so a late writer, such as a run that hung
        while holding the cell's claim, never unsets a valid cell's flag.

        A failed write (a full disk, a lost mount) raises one ``OSError`` naming the store and
        the cell. The cell is then not done (its flag is written last, and unset first when a
        damaged cell is rewritten), so the next run computes it again; each chunk is written
        to a temporary file that is removed on failure, so nothing partial is left behind.
        """
        try:
            return self._write(flat, cell)
        except OSError as e:
            raise OSError(
                e.errno,
                f"sweep store {str(self.store)!r}: cannot write cell {flat} "
                f"({e.strerror or e}); the cell is not marked done, and the next "
                "'relmc sweep run' computes it",
            ) from e

    def _write(self, flat: int, cell: xr.Dataset) -> bool:
        if self.packed or self.replaced():
            raise ValueError(
                f"sweep store {str(self.store)!r} is packed: it is read-only and cell {flat} "
                "is not written (a packed store is complete; run the spec into a new store)"
            )
        idx = self.spec.cell_index(flat)
        if self.is_done(flat):
            if self.verify(flat):
                return False  # written meanwhile by another run: the same bytes, keep them
            # a damaged cell is not done until rewritten
            self._set(DONE, idx, np.zeros((), dtype=bool))
        _refuse_lacking(self.store, cell.data_vars, self._names)  # before any of it is written
        values = {}
        for name in cell.data_vars:
            v = cell.variables[name]  # a Variable: no DataArray (with its coords) made per name
            if name in ADDED_LATER and name not in self._names:
                continue  # a store made before this variable existed
            arr = self._array(str(name))
            if arr.shape[len(idx) :] != v.shape:
                raise ValueError(
                    f"cell {flat}: variable {name!r} has shape {v.shape}, the store expects "
                    f"{arr.shape[len(idx) :]} (categories differ between cells?)"
                )
            # as the store holds it (its dtype), so that a read-back gives the same checksum
            values[str(name)] = np.asarray(v.values, dtype=arr.dtype)
            self._set(str(name), idx, values[str(name)])
        if self.has_checksums:
            self._set(CHECKSUM, idx, np.asarray(cell_checksum(values), dtype=np.uint64))
        # last: the marker. Each chunk write is a temp file + rename (as zarr's LocalStore), so
        # the marker is never visible before the data above is in place. Two runs writing one cell
        # at once (see claims()) write identical bytes into every chunk, so any interleaving
        # of their whole-chunk renames leaves the same data, checksum and flag.
        self._set(DONE, idx, np.ones((), dtype=bool))
        return True

    def claim_path(self, flat: int) -> Path:
        """Return cell ``flat``'s claim file: ``.<store name>.claims/<flat>`` beside the store."""
        return _claims_dir(self.store) / str(int(flat))

    @contextlib.contextmanager
    def claim(self, flat: int, *, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> Iterator[bool]:
        """Hold cell ``flat``'s lock for the block, if it is free; yield whether it was taken.

        The lock is an ``flock`` on :meth:`claim_path`: the kernel drops it when its holder
        exits, however it exits, so a killed run never leaves a cell claimed. Whoever takes the
        lock writes a small record into the file (process id, host, heartbeat interval) and
        refreshes the file's mtime from a daemon thread every ``lease_seconds / 10`` while it
        holds the lock: the *heartbeat* that :meth:`claims` watches to tell a live holder from
        a hung one. Without the lock the file means nothing: a file left by a killed run, by an
        older relmc or by anything else claims nothing, whatever its content and age. Never
        waits.

        On a file system without ``flock`` (``ENOLCK``, ``EOPNOTSUPP``, ``ENOSYS``) every claim
        is taken, after one ``RuntimeWarning``: concurrent runs may then compute a cell twice,
        with the same bytes, and no cell ever waits.
        """
        import fcntl

        d = _claims_dir(self.store)
        path = self.claim_path(flat)
        try:
            d.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:  # a read-only or full place, or a folder where the file belongs
            raise OSError(
                e.errno,
                f"sweep store {str(self.store)!r}: cannot open the claim file {str(path)!r} of "
                f"cell {flat} ({e.strerror or e})",
            ) from e
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            except OSError as e:
                if e.errno not in _NO_FLOCK:
                    raise
                self._warn_no_locks(e)
                yield True  # nobody can wait for a claim here: no heartbeat either
                return
            beat = _Heartbeat(fd, path, lease_seconds / _BEATS_PER_LEASE)
            try:
                yield True
            finally:
                beat.stop()
        finally:
            os.close(fd)  # releases the lock

    def claims(
        self, cells: Sequence[int], *, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> Iterator[int]:
        """Yield each of ``cells`` once, when this process may compute it (never waits forever).

        A free cell is yielded holding its claim (:meth:`claim`, heartbeat running) until the
        next cell is asked for. A cell another process holds is passed over and, once every
        free cell is done, watched with the others still held, every ``lease_seconds / 20``
        (at least 0.05 s, at most 5 s). It is yielded, claimed, as soon as its holder lets go
        (the holder finished it, which the caller finds done, or died), or unclaimed once the
        holder's heartbeat has stood still for ``lease_seconds`` as seen from here (and for at
        least 3 of the holder's own heartbeat intervals): the holder is alive but hung, and
        this process computes the cell too, after one :class:`StaleClaimWarning` naming the
        cell and the holder. That is safe: both compute the same bytes, and :meth:`write`
        never rewrites a cell found done and verified.

        Staleness is measured on this process's monotonic clock, from the moment it first
        saw the file's current mtime, so clocks that differ between hosts do not matter. The
        wait for one cell is bounded by the holder's work while it beats, and by about
        ``lease_seconds`` after its last beat.
        """
        lease = check_lease_seconds(lease_seconds)
        held: list[int] = []
        for flat in cells:
            with self.claim(flat, lease_seconds=lease) as mine:
                if mine:
                    yield int(flat)
                    continue
            held.append(int(flat))
        watches = {flat: _Watch(self.claim_path(flat), lease) for flat in held}
        poll = min(max(lease / 20, 0.05), 5.0)
        while watches:
            moved = False
            for flat in list(watches):
                with self.claim(flat, lease_seconds=lease) as mine:
                    if mine:
                        del watches[flat]
                        moved = True
                        yield flat
                        continue
                idle = watches[flat].idle()
                if idle is None:
                    continue
                del watches[flat]
                moved = True
                if not (self.is_done(flat) and self.verify(flat)):
                    warnings.warn(
                        f"sweep store {str(self.store)!r}: cell {flat} is claimed by "
                        f"{_holder_name(idle)}, whose heartbeat has not moved for "
                        f"{idle.seconds:.1f} s (lease {lease:g} s); computing the cell here "
                        "as well (same result; the holder's late write changes nothing)",
                        StaleClaimWarning,
                        stacklevel=2,
                    )
                yield flat
            if watches and not moved:
                time.sleep(poll)

    def _warn_no_locks(self, err: OSError) -> None:
        if getattr(self, "_warned_no_locks", False):
            return
        self._warned_no_locks = True
        warnings.warn(
            f"sweep store {str(self.store)!r}: the file system cannot lock claim files "
            f"({err.strerror or err}); concurrent runs on this store may compute a cell twice "
            "(with identical results)",
            RuntimeWarning,
            stacklevel=4,
        )


def _holder_name(idle: _Idle) -> str:
    """How a stale-claim warning names the holder (its record may be missing or foreign)."""
    rec = idle.record
    if rec is None:
        return "another process (no claim record)"
    return f"process {rec['pid']} on host {rec['host']!r}"


class _Heartbeat:
    """While a claim is held: its record in the file, and its mtime refreshed every interval.

    Failures are ignored: the record only names the holder in warnings, and a holder whose
    heartbeat cannot be written looks hung, so a waiter computes the cell too (same bytes).
    """

    def __init__(self, fd: int, path: Path, interval: float):
        record = {"pid": os.getpid(), "host": socket.gethostname(), "heartbeat_seconds": interval}
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)  # also sets the mtime
        self._path = path
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"relmc-claim-heartbeat-{path.name}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        # by path, not by fd: the fd is closed when the claim ends, and its number reused
        while not self._stop.wait(self._interval):
            with contextlib.suppress(OSError):
                t = time.time_ns()
                os.utime(self._path, ns=(t, t))

    def stop(self) -> None:
        self._stop.set()
        # bounded: a thread stuck in utime on a dead mount is a daemon and is left behind
        self._thread.join(timeout=1.0)


@dataclass(frozen=True)
class _Idle:
    """A stale claim: seconds its heartbeat stood still, and its holder's record (if any)."""

    seconds: float
    record: dict[str, Any] | None


class _Watch:
    """A waiter's view of one held claim file: when its mtime last changed, as seen here."""

    def __init__(self, path: Path, lease: float):
        self.path = path
        self.lease = lease
        self.seen: int | None = None
        self.since = 0.0
        self.record: dict[str, Any] | None = None
        self.first = True

    def idle(self) -> _Idle | None:
        """Return an :class:`_Idle` once the heartbeat has stood still long enough, else None."""
        now = time.monotonic()
        try:
            mtime: int | None = os.stat(self.path).st_mtime_ns
        except OSError:
            mtime = None  # unreadable: no heartbeat seen
        if self.first or mtime != self.seen:
            self.first = False
            self.seen, self.since = mtime, now
            self.record = _read_claim_record(self.path)
            return None
        limit = self.lease
        if self.record is not None:
            limit = max(limit, _MISSED_BEATS * self.record["heartbeat_seconds"])
        if now - self.since < limit:
            return None
        return _Idle(now - self.since, _read_claim_record(self.path) or self.record)


def _read_claim_record(path: Path) -> dict[str, Any] | None:
    """Return the holder's record in a claim file, or None (missing, foreign or garbled)."""
    try:
        with open(path, "rb") as f:
            rec = json.loads(f.read(4096))
        pid, host, beat = rec["pid"], rec["host"], rec["heartbeat_seconds"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    lo, hi = LEASE_SECONDS_RANGE
    if not (isinstance(pid, int) and isinstance(host, str) and _is_number(beat)):
        return None
    if not lo / _BEATS_PER_LEASE <= beat <= hi / _BEATS_PER_LEASE:
        return None  # no record may stretch a wait beyond the longest lease
    return {"pid": pid, "host": host, "heartbeat_seconds": float(beat)}


#: errno values of ``flock`` on a file system that does not support it
_NO_FLOCK = frozenset(
    {errno.ENOLCK, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP), errno.ENOSYS}
)


@dataclass(frozen=True)
class _Grid:
    """The cube's geometry: axis dims and shape (all that reading cells needs)."""

    dims: tuple[str, ...]
    shape: tuple[int, ...]

    @classmethod
    def of_array(cls, arr: Any) -> _Grid:
        names = tuple(getattr(arr.metadata, "dimension_names", None) or ())
        return cls(tuple(map(str, names)), tuple(int(n) for n in arr.shape))

    @property
    def n_cells(self) -> int:
        return int(np.prod(self.shape))

    def cell_index(self, flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, self.shape))


def _flags(arr: Any, grid: _Grid) -> np.ndarray:
    """Read a per-cell flag array whole, or cell by cell when a chunk is damaged."""
    try:
        return np.asarray(arr[...], dtype=bool).reshape(-1)
    except Exception:  # a damaged chunk: read the others one by one
        out = np.zeros(grid.n_cells, dtype=bool)
        for flat in range(grid.n_cells):
            try:
                out[flat] = bool(arr[grid.cell_index(flat)])
            except Exception:
                out[flat] = False
        return out


def open_sweep(store: str | os.PathLike, *, load: bool = False, labels: bool = False) -> xr.Dataset:
    """Open a sweep's cube (lazily, with dask, unless ``load``).

    Cells whose ``done`` flag is False hold fill values (NaN for floats); select complete
    cells with ``cube.where(cube.done)``. The spec is in ``attrs["relmc_sweep_spec"]``. An
    axis that mixes numbers and rules holds its exact values (numbers and strings), so
    ``cube.sel(checkpoint_interval=0.25)`` works; ``checkpoint_interval_hours`` is the interval
    each cell used. Such an axis cannot be written to netCDF or zarr: with ``labels`` it is
    given as the store holds it, string labels (``"0.25"``, ``"daly"``) with the exact values
    in its ``values_json`` attribute, which ``to_netcdf`` writes (:func:`axes_as_labels` does
    the same to a cube already open). With ``load``, a damaged cell (a chunk emptied or
    garbled by a machine crash) raises a ``ValueError`` naming the cells that fail
    verification.
    """
    store = store_path(store)
    recover_pack(store)
    attrs = _read_attrs(store)
    ds = xr.open_zarr(str(store), consolidated=_is_consolidated(store), zarr_format=3)
    ds = ds[sorted(ds.data_vars)]  # zarr lists arrays in no fixed order
    if not labels:
        ds = _decode_axes(ds)
    if not load:
        return ds
    try:
        if ATTR_PACKED not in attrs:
            ds = _with_cells_read(store, ds)
        return ds.load()
    except Exception as e:  # codecs raise several types for a damaged chunk
        corrupt = status(store, verify=True).corrupt
        if corrupt.size == 0:
            raise
        then = _PACKED_DAMAGE if ATTR_PACKED in attrs else "`relmc sweep run` recomputes them"
        raise ValueError(
            f"sweep store {str(store)!r}: cells {corrupt.tolist()} are damaged (their data "
            f"fail the checksum written with them); {then}"
        ) from e


def _decodes_as_is(var: xr.Variable, dtype: np.dtype) -> bool:
    """Whether xarray's decoding leaves an array's values as zarr stores them.

    True for relmc's own variables: the stored dtype, no scaling, no time units, and a fill
    value that is either absent or NaN on a float (masking NaN with NaN changes nothing).
    """
    enc = var.encoding
    if var.dtype != dtype or {"scale_factor", "add_offset", "calendar"} & set(enc):
        return False
    if " since " in str(enc.get("units", var.attrs.get("units", ""))):
        return False
    fills = [enc.get(k, var.attrs.get(k)) for k in ("_FillValue", "missing_value")]
    return all(
        f is None or (dtype.kind == "f" and isinstance(f, float | np.floating) and np.isnan(f))
        for f in fills
    )


def _with_cells_read(store: Path, ds: xr.Dataset) -> xr.Dataset:
    """``ds`` with each per-cell variable read chunk by chunk directly (not through dask).

    A store as run holds a chunk per cell per variable; through dask and zarr each costs a
    few milliseconds (over 100 s for a 608-cell grid of 86 variables), read directly ~0.1 ms.
    The values are those zarr gives (a cell never written holds the fill value); xarray's
    decoding leaves them as they are (float variables' fill value is NaN, the others have
    none), which tests/test_sweep.py checks against plain ``xr.open_zarr(...).load()``.

    A chunk that does not decode in a cell that is not done (a write cut short by a machine
    crash, before the flag) reads as the fill value: such a cell holds nothing to read and
    the next run rewrites it. In a done cell it raises (``open_sweep`` then names the cells).
    """
    zarr = require("zarr")
    reader = CellWriter.reader(store, zarr.open_group(str(store), mode="r"))
    n_axes = len(reader.grid.shape)
    cells = list(np.ndindex(*reader.grid.shape))
    done = reader.done_mask().reshape(reader.grid.shape)
    read = {}
    for name in ds.data_vars:
        chunk = reader._chunk(str(name), n_axes) if name in reader._names else None
        if (
            chunk is None
            or tuple(ds.variables[name].dims[:n_axes]) != reader.grid.dims
            or not _decodes_as_is(ds.variables[name], chunk.array.dtype)
        ):
            continue  # read by xarray (with its decoding)
        values = np.empty(chunk.array.shape, dtype=chunk.array.dtype)
        for idx in cells:
            try:
                values[idx] = chunk.read(idx)
            except Exception:  # codecs raise several types for a damaged chunk
                if done[idx]:
                    raise
                values[idx] = chunk.fill
        read[name] = ds.variables[name].copy(data=values)
    return ds.assign(read)


@dataclass(frozen=True)
class SweepStatus:
    """Which cells of a store are complete.

    Attributes
    ----------
    n_cells : int
        Cells in the grid.
    done, missing : ndarray of int
        Flat indices of complete and missing cells (with ``verify``: a done cell whose data
        fail verification is missing, and also listed in ``corrupt``).
    spec_sha256 : str
        The store's spec hash.
    corrupt : ndarray of int
        Cells flagged done that the next run recomputes (empty unless checked): their data
        fail their checksum or do not decode, or they have no checksum in a store that records
        them (``CellWriter.verify()``).
    verified : bool
        Whether the done cells were read back and checked.
    unverifiable : ndarray of int
        Cells flagged done that have no checksum (empty unless checked). In a store made
        before checksums existed (``checksums`` False) they stay done; else they are also in
        ``corrupt``.
    checksums : bool
        Whether the store records a checksum per cell.
    packed : bool
        Whether the store is packed (:func:`pack`): read-only, never rewritten by a run.
    unfinished, hopeless : ndarray of int or None
        With ``outcomes``: done cells with trials that did not finish (``finished_fraction``
        < 1: their summaries are bounds), and done cells whose adaptive precision stopped
        them as hopeless (``stopped_code``); None when not read.
    """

    n_cells: int
    done: np.ndarray
    missing: np.ndarray
    spec_sha256: str
    corrupt: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    verified: bool = False
    unverifiable: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    checksums: bool = True
    packed: bool = False
    unfinished: np.ndarray | None = None
    hopeless: np.ndarray | None = None

    @property
    def complete(self) -> bool:
        """Whether every cell is done."""
        return self.missing.size == 0

    def __str__(self) -> str:
        miss = _ranges(self.missing)
        text = f"{self.done.size}/{self.n_cells} cells done, {self.missing.size} missing" + (
            f": {miss}" if self.missing.size else ""
        )
        damaged = np.setdiff1d(self.corrupt, self.unverifiable)
        then = _PACKED_DAMAGE if self.packed else "recomputed by the next 'relmc sweep run'"
        if damaged.size:
            text += f"; {damaged.size} done cells failed verification ({then}): {_ranges(damaged)}"
        if self.unverifiable.size:
            if not self.checksums:
                then = "kept as done: the store predates checksums"
            text += (
                f"; {self.unverifiable.size} done cells unverifiable (no checksum; {then}): "
                f"{_ranges(self.unverifiable)}"
            )
        elif self.verified and not self.corrupt.size:
            text += "; every done cell verified"
        if self.packed:
            text += "; packed"
        if self.unfinished is not None and self.unfinished.size:
            n = self.unfinished.size
            text += (
                f"; {n} done {'cell has' if n == 1 else 'cells have'} trials that did not "
                "finish (the cap or the event budget: their numbers are bounds): "
                f"{_ranges(self.unfinished)}"
            )
        if self.hopeless is not None and self.hopeless.size:
            n = self.hopeless.size
            text += (
                f"; {n} done {'cell' if n == 1 else 'cells'} stopped as hopeless (precision."
                f"hopeless_ettr): {_ranges(self.hopeless)}"
            )
        return text


#: what becomes of a damaged cell of a packed store (never rewritten)
_PACKED_DAMAGE = (
    "a packed store is never rewritten: pack again from the unpacked store if you kept one "
    "(relmc sweep pack --out), or run the spec into a new store"
)


def _ranges(idx: np.ndarray, limit: int = 20) -> str:
    parts = []
    start: int | None = None
    prev = -1
    for i in map(int, idx):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = i
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(parts[:limit]) + (",..." if len(parts) > limit else "")


def status(
    store: str | os.PathLike, *, verify: bool = False, outcomes: bool = False
) -> SweepStatus:
    """Done and missing cells of a sweep store (flat C-order indices).

    With ``verify``, every done cell is read back and checked against the checksum written
    with its flag (``CellWriter.check()``); cells that fail count as missing and are
    listed in ``corrupt``. Done cells without a checksum are listed in ``unverifiable``; they
    count as missing (and ``corrupt``) only where the store records checksums
    (``CellWriter.verify()`` gives the rule that ``run`` follows too). With ``outcomes``,
    the done cells' ``finished_fraction`` and ``stopped_code`` are read too (two small
    values a cell): ``unfinished`` and ``hopeless`` list the cells whose numbers are bounds.
    """
    store = store_path(store)
    recover_pack(store)
    attrs = _read_attrs(store)
    packed = ATTR_PACKED in attrs
    zarr = require("zarr")
    group = zarr.open_group(str(store), mode="r")
    reader = CellWriter.reader(store, group)
    grid = reader.grid
    done = reader.done_mask()
    corrupt = unverifiable = np.zeros(0, dtype=np.int64)
    if verify:
        if packed:  # many cells per chunk: read each chunk once, not once per cell
            names = reader.cell_variables()
            found = _check_blockwise(group, grid, names, np.flatnonzero(done), reader.has_checksums)
        else:
            found = {int(c): reader.check(int(c)) for c in np.flatnonzero(done)}
        unverifiable = np.array([c for c, s in found.items() if s == NO_CHECKSUM], dtype=np.int64)
        bad = [c for c, s in found.items() if s == DAMAGED]
        if reader.has_checksums:
            bad += unverifiable.tolist()
        corrupt = np.array(sorted(bad), dtype=np.int64)
        done[corrupt] = False
    outcome: dict[str, np.ndarray | None] = {"finished_fraction": None, "stopped_code": None}
    cells = np.flatnonzero(done)
    if outcomes:
        for name in outcome:
            if name not in reader._names:
                continue  # a store made before the variable existed: not known
            if packed:
                outcome[name] = np.asarray(group[name][...]).ravel()[cells]
            else:
                outcome[name] = np.array([reader.cell_value(name, int(c)) for c in cells])
    share, code = outcome["finished_fraction"], outcome["stopped_code"]
    unfinished = None if share is None else cells[share < 1.0]
    hopeless = None if code is None else cells[code == STOPPED_BY.index("hopeless")]
    return SweepStatus(
        n_cells=int(done.size),
        done=np.flatnonzero(done),
        missing=np.flatnonzero(~done),
        spec_sha256=attrs[ATTR_HASH],
        corrupt=corrupt,
        verified=verify,
        unverifiable=unverifiable,
        checksums=reader.has_checksums,
        packed=packed,
        unfinished=unfinished,
        hopeless=hopeless,
    )


# ------------------------------------------------------------------------------------ packing

#: the attr that marks a packed store (JSON: chunk bytes, relmc version, files before)
ATTR_PACKED = "relmc_sweep_packed"
#: a packed chunk holds whole cells, at most this many bytes of them uncompressed (a cell that
#: is larger gets a chunk of its own): a 608-cell summary variable is one chunk, and no read
#: or write of a chunk needs more than this much memory even with ``keep_trials``
PACK_CHUNK_BYTES = 64 * 2**20
#: seconds :func:`pack` waits for a claim another run holds before it refuses
PACK_CLAIM_WAIT_SECONDS = 10.0
# the in-place swap's steps (see pack()); tests replace them to stop a pack between two steps
_rename = os.rename
_rmtree = shutil.rmtree


@dataclass(frozen=True)
class PackResult:
    """What :func:`pack` did: files and bytes of the store before and after.

    Attributes
    ----------
    store : Path
        The packed store (``out``, or the store itself when packed in place).
    n_cells : int
        Cells in the grid.
    files_before, files_after : int
        Files in the store before and after packing.
    bytes_before, bytes_after : int
        Their total size, in bytes.
    packed_now : bool
        False when the store was packed already (nothing was done).
    seconds : float
        Wall time of the pack, in seconds.
    """

    store: Path
    n_cells: int
    files_before: int
    files_after: int
    bytes_before: int
    bytes_after: int
    packed_now: bool = True
    seconds: float = 0.0

    def __str__(self) -> str:
        if not self.packed_now:
            return f"{str(self.store)!r} is packed already ({self.files_after:,} files)"
        mib = 2.0**20
        return (
            f"packed {self.n_cells:,} cells: {self.files_before:,} files -> "
            f"{self.files_after:,} files ({self.bytes_before / mib:,.2f} MiB -> "
            f"{self.bytes_after / mib:,.2f} MiB) in {self.seconds:.1f} s: {str(self.store)!r}"
        )


def is_packed(store: str | os.PathLike) -> bool:
    """Whether ``store`` is a packed sweep store (read-only; see :func:`pack`)."""
    return ATTR_PACKED in _read_attrs(store_path(store))


def _pack_paths(store: Path) -> tuple[Path, Path, Path]:
    """Return the in-place pack's sibling paths: the new store, the old one, the lock file."""
    return (
        store.with_name(f".{store.name}.packed-new"),
        store.with_name(f".{store.name}.packed-old"),
        store.with_name(f".{store.name}.pack.lock"),
    )


@contextlib.contextmanager
def _pack_lock(store: Path) -> Iterator[None]:
    """Hold the store's pack lock (an ``flock``; the kernel drops it when its holder dies)."""
    import fcntl

    lock = _pack_paths(store)[2]
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as e:
            if e.errno not in _NO_FLOCK:
                raise
            # no locks here: concurrent packs of one store may both build; each swap is
            # still a pair of renames, and the loser's rename of its new store fails
        yield
    finally:
        os.close(fd)


def recover_pack(store: str | os.PathLike) -> None:
    """Finish or undo an in-place :func:`pack` that was killed between its two renames.

    A no-op (two ``stat`` calls) unless ``store`` is missing and the pack's old copy
    (``.<store>.packed-old``) is beside it. Then, under the pack lock: if the new packed store
    (``.<store>.packed-new``) is complete and verifies, it is renamed into place and the old
    copy removed; otherwise the old copy is renamed back. :func:`status`, :func:`open_sweep`,
    :func:`init_store` and :func:`pack` call it first, so a killed pack never leaves the store
    missing for them.
    """
    store = store_path(store)
    old = _pack_paths(store)[1]
    if store.exists() or not old.exists():
        return
    with _pack_lock(store):
        _recover_locked(store, tidy=False)


def _recover_locked(store: Path, *, tidy: bool) -> None:
    """Under the pack lock: put the store back in place; with ``tidy``, remove leftovers."""
    new, old, _ = _pack_paths(store)
    if not store.exists() and old.exists():
        if new.exists() and _complete_packed(new):
            _rename(new, store)
        else:
            if new.exists():
                shutil.rmtree(new)
            _rename(old, store)
        _fsync_dir(store.parent)
    if store.exists() and (tidy or old.exists()):
        # the store is in place: what is left beside it is a stale build or the old copy
        for leftover in (new, old) if tidy else (old,):
            if leftover.exists():
                _rmtree(leftover, ignore_errors=True)


def _complete_packed(path: Path) -> bool:
    try:
        return is_packed(path) and status(path, verify=True).complete
    except Exception:  # a half-written store fails to open in several ways
        return False


def _count_files(folder: Path) -> tuple[int, int]:
    """Files under ``folder`` and their total size in bytes."""
    n = size = 0
    for d, _, files in os.walk(folder):
        for name in files:
            n += 1
            size += os.stat(os.path.join(d, name)).st_size
    return n, size


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some file systems cannot fsync a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_tree(folder: Path) -> None:
    """Flush every file and folder under ``folder`` to disk (before it replaces the store)."""
    for d, _, files in os.walk(folder):
        for name in files:
            fd = os.open(os.path.join(d, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(d))


def packed_chunks(
    grid_shape: Sequence[int], cell_shape: Sequence[int], itemsize: int, chunk_bytes: int
) -> tuple[int, ...]:
    """Chunk shape of a per-cell variable in a packed store: whole cells, C-order blocks.

    The trailing axes are taken whole while the chunk stays within ``chunk_bytes`` (at least
    one cell), then part of one axis, then 1 along the axes before it; the cell's own dims are
    always whole. So each chunk holds a run of consecutive flat cells.
    """
    per_cell = max(1, itemsize * int(np.prod(cell_shape, dtype=np.int64)))
    budget = max(1, chunk_bytes // per_cell)  # cells per chunk
    chunk = [1] * len(grid_shape)
    for i in reversed(range(len(grid_shape))):
        n = int(grid_shape[i])
        if n <= budget:
            chunk[i] = n
            budget //= n
        else:
            chunk[i] = budget
            break
    return (*chunk, *map(int, cell_shape))


def _blocks(shape: Sequence[int], chunk: Sequence[int]) -> Iterator[tuple[slice, ...]]:
    """Yield the chunk-aligned blocks of a grid (tuples of slices), in C order."""
    counts = [math.ceil(n / c) for n, c in zip(shape, chunk, strict=True)]
    for ix in np.ndindex(*counts):
        yield tuple(
            slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(ix, chunk, shape, strict=True)
        )


def _check_blockwise(
    group: Any, grid: _Grid, names: Sequence[str], cells: Any, has_checksums: bool
) -> dict[int, str]:
    """:meth:`CellWriter.check` of many cells, reading each chunk once (packed stores).

    Each variable is read chunk by chunk along the axes; every wanted cell's checksum is fed
    from those blocks in the order :func:`cell_checksum` uses, so the result is the same as
    reading each cell alone, with a chunk decoded once instead of once per cell. A chunk that
    fails to decode makes every wanted cell in it damaged. Memory: one chunk at a time.
    """
    wanted = np.zeros(grid.n_cells, dtype=bool)
    wanted[np.asarray(cells, dtype=np.int64)] = True
    flat_ids = np.arange(grid.n_cells).reshape(grid.shape)
    damaged: set[int] = set()
    hashers = {int(c): hashlib.blake2b(digest_size=8) for c in np.flatnonzero(wanted)}
    expected = dict.fromkeys(hashers, 0)
    nd = len(grid.shape)

    def each_block(name: str) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        arr = group[name]
        for block in _blocks(grid.shape, arr.chunks[:nd]):
            ids = flat_ids[block].reshape(-1)
            if not wanted[ids].any():
                continue
            try:
                data = np.asarray(arr[block])
            except Exception:  # garbled or truncated chunks fail to decompress
                yield ids, None
                continue
            yield ids, data.reshape((-1, *data.shape[nd:]))

    if has_checksums:
        for ids, data in each_block(CHECKSUM):
            for j, c in enumerate(map(int, ids)):
                if not wanted[c]:
                    continue
                if data is None:
                    damaged.add(c)
                else:
                    expected[c] = int(data[j])
    for name in sorted(names):
        for ids, data in each_block(name):
            for j, c in enumerate(map(int, ids)):
                if not wanted[c] or c in damaged:
                    continue
                if data is None:
                    damaged.add(c)
                else:
                    _hash_variable(hashers[c], name, data[j])
    out = {}
    for c, h in hashers.items():
        if c in damaged:
            out[c] = DAMAGED
        elif expected[c] == 0:
            out[c] = NO_CHECKSUM
        else:
            out[c] = VERIFIED if expected[c] == _digest(h) else DAMAGED
    return out


def _check_packable(store: Path, *, verify: bool = True) -> SweepStatus:
    """Refuse (one-line ``ValueError``) a store that is not complete (and verified)."""
    st = status(store, verify=verify)
    if st.complete:
        return st
    damaged = np.setdiff1d(st.corrupt, st.unverifiable)
    parts = []
    never = np.setdiff1d(st.missing, st.corrupt)
    if never.size:
        parts.append(f"{never.size} cells not done ({_ranges(never)})")
    if damaged.size:
        parts.append(f"{damaged.size} done cells damaged ({_ranges(damaged)})")
    lost = np.intersect1d(st.corrupt, st.unverifiable)
    if lost.size:
        parts.append(f"{lost.size} done cells without their checksum ({_ranges(lost)})")
    raise ValueError(
        f"sweep store {str(store)!r} cannot be packed: {' and '.join(parts)} of {st.n_cells}; "
        "'relmc sweep run' computes them, then pack again (nothing was written)"
    )


def _check_no_claims_held(store: Path, wait: float = PACK_CLAIM_WAIT_SECONDS) -> None:
    """Refuse to swap while a run holds a cell's claim (it might still write into the store).

    Claims are held for a moment by runs that find their cells done, so a held claim is
    waited for, up to ``wait`` seconds, before the pack is refused.
    """
    import fcntl

    folder = _claims_dir(store)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return  # no claims were ever taken
    deadline = time.monotonic() + wait
    for name in names:
        try:
            fd = os.open(folder / name, os.O_RDWR)
        except OSError:
            continue
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise ValueError(
                            f"sweep store {str(store)!r}: cell {name} is claimed by a running "
                            f"'relmc sweep run' (waited {wait:g} s); pack once it has ended"
                        ) from None
                    time.sleep(0.05)
                except OSError as e:
                    if e.errno in _NO_FLOCK:
                        return  # no locks here: nothing can be seen held
                    raise
        finally:
            os.close(fd)  # releases the lock


def _write_packed(src: Path, dst: Path, chunk_bytes: int, files_before: int) -> None:
    """Write the packed copy of store ``src`` at the new path ``dst``.

    Per-cell arrays (data, ``done``, ``cell_checksum``) get the same metadata (dtype, fill
    value, codecs, attributes, dimension names) with chunks of whole cells
    (:func:`packed_chunks`), copied one chunk at a time; coordinate arrays are copied file for
    file. The group attrs gain :data:`ATTR_PACKED`; metadata is consolidated last.
    """
    zarr = require("zarr")
    sg = zarr.open_group(str(src), mode="r")
    grid = _Grid.of_array(sg[DONE])
    nd = len(grid.shape)
    attrs = dict(sg.attrs)
    attrs[ATTR_PACKED] = json.dumps(
        {"chunk_bytes": int(chunk_bytes), "files_before": files_before, "by": __version__}
    )
    dg = zarr.open_group(str(dst), mode="w-", zarr_format=3, attributes=attrs)
    for name, a in sorted(sg.arrays()):
        dims = tuple(map(str, getattr(a.metadata, "dimension_names", None) or ()))
        if dims[:nd] != grid.dims:
            shutil.copytree(src / name, dst / name)  # a coordinate: byte for byte
            continue
        chunks = packed_chunks(grid.shape, a.shape[nd:], a.dtype.itemsize, chunk_bytes)
        d = dg.create_array(
            name,
            shape=a.shape,
            dtype=a.dtype,
            chunks=chunks,
            fill_value=a.fill_value,
            filters=a.filters,
            serializer=a.serializer,
            compressors=a.compressors,
            attributes=dict(a.attrs),
            dimension_names=dims,
            chunk_key_encoding=CHUNK_KEY_ENCODING,
        )
        for block in _blocks(grid.shape, chunks[:nd]):
            d[block] = a[block]
    _consolidate(dst)


#: bytes of the cube that :func:`pack` holds in memory at once (twice: store and copy) while
#: it compares them; a larger variable is compared alone
_COMPARE_BYTES = 256 * 2**20


def _batches(cube: xr.Dataset, limit: int) -> Iterator[list[str]]:
    """Yield the cube's data variables in sorted batches of at most ``limit`` bytes each."""
    batch: list[str] = []
    size = 0
    for name in sorted(map(str, cube.data_vars)):
        n = int(cube[name].nbytes)
        if batch and size + n > limit:
            yield batch
            batch, size = [], 0
        batch.append(name)
        size += n
    if batch:
        yield batch


def _verify_packed(src: Path, dst: Path) -> None:
    """Raise ``RuntimeError`` unless ``dst`` holds exactly ``src``'s cube (bit for bit)."""
    a, b = open_sweep(src), open_sweep(dst)
    b_attrs = {k: v for k, v in b.attrs.items() if k != ATTR_PACKED}
    differs = [] if a.attrs == b_attrs else ["attrs"]
    if set(a.variables) != set(b.variables):
        differs.append("the variables")
    elif not xr.Dataset(coords=a.coords).load().identical(xr.Dataset(coords=b.coords).load()):
        differs.append("the coordinates")
    else:
        for names in _batches(a, _COMPARE_BYTES):  # a bounded part of the cube in memory
            pa, pb = a[names].load(), b[names].load()  # one dask compute per batch
            for name in names:
                va, vb = pa[name].variable, pb[name].variable
                same = va.identical(vb)
                if same and va.dtype.kind in "fiub":
                    same = va.values.tobytes() == vb.values.tobytes()
                if not same:
                    differs.append(name)
    st = status(dst, verify=True)
    if not st.complete:
        differs.append(f"cells {_ranges(st.missing)} (fail verification)")
    if differs:
        raise RuntimeError(
            f"the packed copy of sweep store {str(src)!r} differs from it in "
            f"{', '.join(differs[:5])}; nothing was replaced"
        )


def pack(
    store: str | os.PathLike,
    *,
    out: str | os.PathLike | None = None,
    chunk_bytes: int = PACK_CHUNK_BYTES,
) -> PackResult:
    """Pack a complete sweep store into few files: chunks of many cells instead of one each.

    A running sweep keeps one chunk file per cell per variable (each cell's write is atomic
    and independent); a finished one needs none of that. The packed store holds the same
    coordinates, data, ``done`` flags, per-cell checksums and attrs (plus
    ``relmc_sweep_packed``); :func:`open_sweep`, :func:`status` (``verify`` too) and
    :func:`~relmc.sweep.run_sweep` (which computes nothing, and never writes) all work on it.

    Parameters
    ----------
    store : path
        A complete store: every cell done and verifying (:func:`status` with ``verify``).
    out : path, optional
        Write the packed store here (a new path) and leave ``store`` as it is. Default: pack
        in place.
    chunk_bytes : int
        Uncompressed bytes of whole cells per chunk, at most (a larger cell gets a chunk of
        its own); default 64 MiB.

    Returns
    -------
    PackResult
        Files and bytes before and after (``str()`` gives the one-line report).

    Raises
    ------
    ValueError
        The store is incomplete or damaged (how many cells, which), ``out`` exists or is
        inside the store, or a run holds a cell's claim; before anything is written.

    Notes
    -----
    In place, under an ``flock`` on ``.<store>.pack.lock`` beside the store (so two packs
    of one store, e.g. two shards of ``run_sweep(pack=True)``, run one after the other and
    the second finds the store packed):

    1. build the packed copy in ``.<store>.packed-new``, compare it with the store bit for
       bit (every variable, via :func:`open_sweep`) and verify every cell's checksum, fsync it;
    2. rename the store to ``.<store>.packed-old``;
    3. rename ``.<store>.packed-new`` to the store;
    4. remove ``.<store>.packed-old`` and the claim files (``.<store>.claims``).

    Killed in 1, the store is untouched (the next pack removes the partial copy); after 3, the
    store is the packed one (the next pack removes what step 4 left). Killed between 2 and 3,
    the store's path is missing for a moment: the next :func:`pack`, :func:`status`,
    :func:`open_sweep` or run finishes the swap (``relmc.sweep.store.recover_pack``); by
    hand, rename ``.<store>.packed-new`` (verified already) to the store.

    The lock file stays, empty, beside the packed store: a pack that removed it could do so
    while another pack waits on it, and a third would then lock a new file and run alongside
    the second. It holds nothing; delete it whenever no pack of the store is running.
    """
    t0 = time.perf_counter()
    store = store_path(store)
    if not _is_number(chunk_bytes) or isinstance(chunk_bytes, float) or chunk_bytes < 1:
        raise FieldError(
            "chunk_bytes", f"chunk_bytes must be a positive integer; got {chunk_bytes!r}"
        )
    if out is not None:
        return _pack_to(store, store_path(out, "out"), int(chunk_bytes), t0)
    recover_pack(store)
    if not is_packed(store):
        _check_packable(store)  # refused before anything is written (not even the lock file)
    with _pack_lock(store):
        _recover_locked(store, tidy=True)
        if is_packed(store):  # e.g. by another shard of run_sweep(pack=True) meanwhile
            n, size = _count_files(store)
            return PackResult(store, _n_cells(store), n, n, size, size, packed_now=False)
        # flags again, under the lock; the copy's verification reads every cell again
        st = _check_packable(store, verify=False)
        _check_no_claims_held(store)
        new, old, _ = _pack_paths(store)
        n0, size0 = _count_files(store)
        try:
            _write_packed(store, new, chunk_bytes, n0)
            _verify_packed(store, new)
            _fsync_tree(new)
        except BaseException:
            shutil.rmtree(new, ignore_errors=True)
            raise
        _check_no_claims_held(store)  # again: none may write into the old store now
        _rename(store, old)
        _rename(new, store)
        _fsync_dir(store.parent)
    _rmtree(old, ignore_errors=True)
    _rmtree(_claims_dir(store), ignore_errors=True)  # a packed store is never written
    n1, size1 = _count_files(store)
    return PackResult(store, st.n_cells, n0, n1, size0, size1, True, time.perf_counter() - t0)


def _pack_to(store: Path, out: Path, chunk_bytes: int, t0: float) -> PackResult:
    """:func:`pack` with ``out``: a packed copy at a new path; ``store`` is left as it is."""
    if out.exists() or out.is_symlink():
        raise ValueError(f"out: {str(out)!r} exists; relmc sweep pack never replaces a path")
    # symlinks resolved: a copy inside the store would be deleted by a later in-place pack
    # (which replaces the store's folder), and a store inside the copy would be copied into
    # itself
    real_out, real_store = Path(os.path.realpath(out)), Path(os.path.realpath(store))
    if real_out.is_relative_to(real_store) or real_store.is_relative_to(real_out):
        where = "inside the store" if real_out.is_relative_to(real_store) else "above the store"
        raise ValueError(
            f"out: {str(out)!r} is {where} {str(store)!r}; write the packed copy to a path "
            "outside the store (e.g. beside it)"
        )
    recover_pack(store)
    st = _check_packable(store)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _store_error(out, e, "packed copy") from None
    tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex}.tmp")
    n0, size0 = _count_files(store)
    try:
        _write_packed(store, tmp, chunk_bytes, n0)
        _verify_packed(store, tmp)
        _fsync_tree(tmp)
        if out.exists():
            raise ValueError(f"out: {str(out)!r} appeared while packing; nothing was replaced")
        os.rename(tmp, out)
        _fsync_dir(out.parent)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    n1, size1 = _count_files(out)
    return PackResult(out, st.n_cells, n0, n1, size0, size1, True, time.perf_counter() - t0)


def _n_cells(store: Path) -> int:
    zarr = require("zarr")
    return _Grid.of_array(zarr.open_group(str(store), mode="r")[DONE]).n_cells
