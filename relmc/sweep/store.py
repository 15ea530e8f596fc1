"""The sweep's zarr cube: creating it up front, writing whole cells, reading and status.

The store is created once with every coordinate and one chunk per cell per variable, plus a
``done`` flag per cell written after the cell's data (see "Crash safety" in
:mod:`relmc.sweep`). Its attrs hold the canonical spec and its SHA-256, the root seed
(:func:`relmc._seed.seed_attrs`: ``seed_entropy``, ``seed_spawn_key``) and the axes.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from relmc import __version__
from relmc._extras import require
from relmc._seed import resolve_seed, seed_attrs
from relmc.sweep.cells import cell_template, resolve_rates
from relmc.sweep.spec import DONE, SweepSpec, _is_number

__all__ = ["SweepStatus", "init_store", "open_sweep", "status", "CellWriter"]

ATTR_SPEC = "relmc_sweep_spec"
ATTR_HASH = "relmc_sweep_spec_sha256"


def _axis_coord(path: str, values: tuple[Any, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    attrs: dict[str, Any] = {"field": path}
    if all(isinstance(v, bool) for v in values):
        arr = np.array(values, dtype=bool)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        arr = np.array(values, dtype=np.int64)
    elif all(_is_number(v) for v in values):
        arr = np.array(values, dtype=np.float64)
    else:
        # mixed numbers and rules (e.g. 0.5 and "young"): string labels, the exact values in JSON
        arr = np.array([str(v) for v in values], dtype=object)
        attrs["values_json"] = json.dumps(list(values))
    return arr, attrs


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
        data_vars[name] = xr.Variable(
            dims + v.dims, da.full(vshape, fill, dtype=v.dtype, chunks=chunks), v.attrs
        )
        encoding[name] = {"chunks": chunks}
    data_vars[DONE] = xr.Variable(
        dims,
        da.zeros(shape, dtype=bool, chunks=(1,) * len(shape)),
        {"long_name": "cell complete (written after its data)"},
    )
    encoding[DONE] = {"chunks": (1,) * len(shape)}
    coords = _coords(spec)
    for c, v in template.coords.items():
        vals = np.arange(spec.n_trials) if c == "trial" else v.values
        if vals.dtype.kind in "UO":
            vals = vals.astype(object)
        coords[str(c)] = xr.Variable(v.dims, vals, v.attrs)
    cube = xr.Dataset(data_vars, coords=coords)
    cube.attrs.update(
        {
            ATTR_SPEC: spec.canonical_json(),
            ATTR_HASH: spec.sha256(),
            **seed_attrs(resolve_seed(spec.seed)),
            "cell_seed": "child_seed(root seed, flat C-order cell index)",
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
    store = Path(store)
    if store.exists():
        check_same_spec(spec, store)
        return store
    require("zarr")
    if template is None:
        template = cell_template(spec, resolve_rates(spec) if rates is None else rates)
    cube, encoding = _empty_cube(spec, template)
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_name(f".{store.name}.{uuid.uuid4().hex}.tmp")
    try:
        cube.to_zarr(
            str(tmp), mode="w-", compute=False, consolidated=False, zarr_format=3, encoding=encoding
        )
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


def check_same_spec(spec: SweepSpec, store: Path) -> None:
    """Refuse (``ValueError``) a store that a different spec created, naming what differs."""
    attrs = _read_attrs(store)
    if attrs[ATTR_HASH] != spec.sha256():
        theirs = json.loads(attrs.get(ATTR_SPEC, "{}"))
        ours = spec.canonical()
        diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
        raise ValueError(
            f"store {str(store)!r} was created by a different sweep spec (differs in {diff}; "
            f"sha256 {attrs[ATTR_HASH][:12]} vs {spec.sha256()[:12]}); use a new store path, "
            "or delete the old store to start over"
        )


class CellWriter:
    """Writes whole cells into an existing store (zarr, one chunk per cell per variable)."""

    def __init__(self, store: Path, spec: SweepSpec):
        zarr = require("zarr")
        self.spec = spec
        self.group = zarr.open_group(str(store), mode="r+")
        self.arrays: dict[str, Any] = {}

    def _array(self, name: str):
        if name not in self.arrays:
            self.arrays[name] = self.group[name]
        return self.arrays[name]

    def done_mask(self) -> np.ndarray:
        """Done flag of every cell (flat C order)."""
        return np.asarray(self._array(DONE)[...], dtype=bool).reshape(-1)

    def write(self, flat: int, cell: xr.Dataset) -> None:
        """Write cell ``flat``'s variables, then (last) its done flag."""
        idx = self.spec.cell_index(flat)
        for name, v in cell.data_vars.items():
            arr = self._array(str(name))
            if arr.shape[len(idx) :] != v.shape:
                raise ValueError(
                    f"cell {flat}: variable {name!r} has shape {v.shape}, the store expects "
                    f"{arr.shape[len(idx) :]} (categories differ between cells?)"
                )
            arr[idx] = v.values
        # last: the marker. Each chunk write is a temp file + rename (zarr LocalStore), so the
        # marker is never visible before the data above is in place.
        self._array(DONE)[idx] = True


def open_sweep(store: str | os.PathLike, *, load: bool = False) -> xr.Dataset:
    """Open a sweep's cube (lazily, with dask, unless ``load``).

    Cells whose ``done`` flag is False hold fill values (NaN for floats); select complete
    cells with ``cube.where(cube.done)``. The spec is in ``attrs["relmc_sweep_spec"]``.
    """
    store = Path(store)
    _read_attrs(store)
    ds = xr.open_zarr(str(store), consolidated=False, zarr_format=3)
    ds = ds[sorted(ds.data_vars)]  # zarr lists arrays in no fixed order
    return ds.load() if load else ds


@dataclass(frozen=True)
class SweepStatus:
    """Which cells of a store are complete.

    Attributes
    ----------
    n_cells : int
        Cells in the grid.
    done, missing : ndarray of int
        Flat indices of complete and missing cells.
    spec_sha256 : str
        The store's spec hash.
    """

    n_cells: int
    done: np.ndarray
    missing: np.ndarray
    spec_sha256: str

    @property
    def complete(self) -> bool:
        """Whether every cell is done."""
        return self.missing.size == 0

    def __str__(self) -> str:
        miss = _ranges(self.missing)
        return f"{self.done.size}/{self.n_cells} cells done, {self.missing.size} missing" + (
            f": {miss}" if self.missing.size else ""
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


def status(store: str | os.PathLike) -> SweepStatus:
    """Done and missing cells of a sweep store (flat C-order indices)."""
    store = Path(store)
    attrs = _read_attrs(store)
    zarr = require("zarr")
    done = np.asarray(zarr.open_group(str(store), mode="r")[DONE][...], dtype=bool).reshape(-1)
    return SweepStatus(
        n_cells=int(done.size),
        done=np.flatnonzero(done),
        missing=np.flatnonzero(~done),
        spec_sha256=attrs[ATTR_HASH],
    )
