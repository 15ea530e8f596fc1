"""Sweeps: spec validation, deterministic cells, sharding, resume after SIGKILL, Slurm scripts.

Equivalence tests here are exact (bit for bit): a cell's numbers depend only on the spec and the
cell's index, so no tolerance is needed or allowed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from clirun import one_error_line, run_cli
from sweepspecs import GRID_12

from relmc import sweep
from relmc.cli import main as cli_main
from relmc.errors import NotFinishedWarning
from relmc.sim import CAUSES
from relmc.sweep import SlurmOptions, SweepSpec

# small and fast: 12 cells x 64 trials of a 10-day job
SPEC = GRID_12


def write_spec(tmp_path: Path, text: str = SPEC, name: str = "spec.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def assert_bitwise_equal(a: xr.Dataset, b: xr.Dataset) -> None:
    """Same variables, coords, attrs, dtypes and bytes in every array (NaN == NaN)."""
    xr.testing.assert_identical(a, b)
    for name in a.variables:
        va, vb = a[name].values, b[name].values
        assert va.dtype == vb.dtype, name
        if va.dtype.kind in "fiub":
            assert va.tobytes() == vb.tobytes(), name


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory) -> Path:
    return write_spec(tmp_path_factory.mktemp("spec"))


@pytest.fixture(scope="module")
def whole_store(spec_file, tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("whole") / "cube.zarr"
    done = sweep.run_sweep(spec_file, store, progress=False)
    assert done == list(range(12))
    return store


@pytest.fixture(scope="module")
def whole(whole_store) -> xr.Dataset:
    return sweep.open_sweep(whole_store, load=True)


# ---------------------------------------------------------------------------------- spec


def test_spec_geometry(spec_file):
    spec = SweepSpec.from_toml(spec_file)
    assert spec.dims == ("n_gpus", "checkpoint_interval", "restart_hours")
    assert spec.shape == (3, 2, 2) and spec.n_cells == 12
    assert spec.cell_values(5) == {
        "cluster.n_gpus": 32768,
        "policy.checkpoint_interval": 0.5,
        "policy.restart_hours": 0.4,
    }
    s = spec.scenario(5)
    assert s.cluster.n_gpus == 32768 and s.policy.restart_hours == 0.4
    assert s.job.compute_hours == 240
    # the spec's identity ignores the store path and Slurm options, not the numbers
    other = SweepSpec.from_dict({**_as_dict(spec_file), "store": "x.zarr", "slurm": {"array": 3}})
    assert other.sha256() == spec.sha256()
    assert SweepSpec.from_dict({**_as_dict(spec_file), "n_trials": 65}).sha256() != spec.sha256()
    # the identity carries the spec format, 1 since the first store: a store refuses a spec of
    # another identity, so a new format must be a deliberate change
    assert spec.canonical()["format"] == 1


def test_one_axis_sweep_verifies_and_a_rerun_computes_nothing(tmp_path):
    """With one axis, the axis coordinate's dims are the grid's: it was read as a cell
    variable, so every cell failed verification, each rerun recomputed them all and the
    store could not be packed. Negative control: a damaged cell is still found."""
    spec = {"seed": 3, "n_trials": 8, "posterior": "point",
            "base": {"job": {"compute_hours": 20.0}},
            "axes": {"cluster.n_gpus": [2048, 4096, 8192]}}  # fmt: skip
    store = tmp_path / "one.zarr"
    assert sweep.run_sweep(spec, store, progress=False) == [0, 1, 2]
    st = sweep.status(store, verify=True)
    assert st.complete and st.corrupt.size == 0 and "every done cell verified" in str(st)
    assert sweep.run_sweep(spec, store, progress=False) == []  # nothing recomputed
    chunk = next((store / "ettr_mean").glob("c*1"))  # cell 1's chunk, garbled
    chunk.write_bytes(b"\0" * 7)
    assert sweep.status(store, verify=True).corrupt.tolist() == [1]
    assert sweep.run_sweep(spec, store, progress=False) == [1]
    sweep.pack(store)
    assert sweep.status(store, verify=True).complete


def test_point_spec_with_its_own_categories_reads_failures_as_simulate_does():
    """``posterior = "point"`` and [[base.failures.categories]] of the spec's own: the rest of
    the failure model takes its defaults, as a ``relmc simulate`` TOML does (Llama 3's
    planned maintenance was kept before, with categories that were not Llama 3's)."""
    from relmc.scenario import Scenario

    cats = [{"name": "x", "rate": 1e-6}]
    base = {"job": {"compute_hours": 100.0}, "failures": {"categories": cats}}
    spec = {"seed": 1, "n_trials": 8, "posterior": "point", "base": base,
            "axes": {"cluster.n_gpus": [2048]}}  # fmt: skip
    sc = SweepSpec.from_dict(spec).base_scenario
    assert sc.failures == Scenario.from_dict(base).failures
    assert sc.failures.maintenance_rate == 0.0 and sc.failures.names == ("x",)
    # a maintenance rate given is kept
    given = {**base, "failures": {"categories": cats, "maintenance_rate": 0.01}}
    spec_m = {**spec, "base": given}
    assert SweepSpec.from_dict(spec_m).base_scenario.failures.maintenance_rate == 0.01
    # negative control: a failures table without categories edits the default's (Llama 3's
    # categories and planned maintenance)
    lemons = {**spec, "base": {"failures": {"bad_node_fraction": 0.1}}}
    kept = SweepSpec.from_dict(lemons).base_scenario.failures
    default = Scenario.default().failures
    assert kept.maintenance_rate == default.maintenance_rate > 0
    assert kept.names == default.names and kept.bad_node_fraction == 0.1


def _as_dict(spec_file: Path) -> dict:
    import tomllib

    return tomllib.loads(spec_file.read_text())


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"axes": {"policy.no_such_field": [1.0]}}, "no_such_field"),
        ({"axes": {"nosection.x": [1.0]}}, "nosection"),
        ({"axes": {"cluster.n_gpus": []}}, "empty"),
        ({"axes": {"cluster.n_gpus": [1024, 2048, 1024]}}, "duplicate"),
        ({"axes": {"policy.restart_hours": [1, 1.0]}}, "duplicate"),
        ({"axes": {"cluster.n_gpus": [1024, -8]}}, "n_gpus"),
        ({"axes": {"policy.checkpoint_interval": [0.5, "sometimes"]}}, "checkpoint_interval"),
        ({"axes": {"policy.restart_hours": [0.1, float("nan")]}}, "finite"),
        ({"axes": {"policy.restart_hours": [[0.1]]}}, "numbers, strings or booleans"),
        ({"axes": {}}, "at least one axis"),
        ({"seed": -1}, "seed"),
        ({"n_trials": 1}, "n_trials"),
        ({"quantiles": [0.5, 0.1]}, "quantiles"),
        ({"quantiles": [0.5, 1.5]}, "quantiles"),
        ({"keep_trials": "yes"}, "keep_trials"),
        ({"colour": "red"}, "unknown keys"),
        ({"base": {"job": {"compute_hours": -5}}}, "compute_hours"),
        ({"base": {"job": {"hours": 5}}}, "base.job.hours"),
        ({"slurm": {"partition": "debug; rm -rf /"}}, "slurm.partition"),
        ({"slurm": {"bogus": 1}}, "unknown keys"),
    ],
)
def test_bad_spec_rejected(spec_file, tmp_path, change, match):
    d = {**_as_dict(spec_file), **change}
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ValueError, match=match):
        spec = SweepSpec.from_dict(d, root=tmp_path)
        sweep.run_sweep(spec, tmp_path / "never.zarr", progress=False)
    assert sorted(tmp_path.iterdir()) == before  # nothing written


def test_missing_seed_and_bad_toml(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        SweepSpec.from_dict({"axes": {"cluster.n_gpus": [1024]}})
    bad = write_spec(tmp_path, "seed = 1\n[axes\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        SweepSpec.from_toml(bad)
    with pytest.raises(ValueError, match="not found"):
        SweepSpec.from_toml(tmp_path / "nope.toml")


def test_unknown_posterior_sources_rejected(spec_file, tmp_path):
    d = _as_dict(spec_file)
    (tmp_path / "fit").mkdir()  # a fit's output folder, not its posterior.nc
    for source, match in (
        ("missing.nc", "does not exist"),
        ("conjugate:nope", "unknown dataset"),
        ("fit", "'.*fit' is a directory, not a file"),
    ):
        spec = SweepSpec.from_dict({**d, "posterior": source}, root=tmp_path)
        with pytest.raises(ValueError, match=match):
            sweep.run_sweep(spec, tmp_path / "never.zarr", progress=False)
    assert not (tmp_path / "never.zarr").exists()


# ---------------------------------------------------------------------------------- cells


def test_shards_partition_cells():
    for n, k in ((12, 1), (12, 5), (3, 7), (640, 16)):
        parts = [list(sweep.shard_cells(n, s, k)) for s in range(k)]
        flat = sorted(c for p in parts for c in p)
        assert flat == list(range(n))  # disjoint and complete: no cell is written twice
    # a shard out of range names the range the shards allow
    with pytest.raises(ValueError, match=re.escape("shard must be an integer in [0, 2]; got 3")):
        sweep.shard_cells(12, 3, 3)
    with pytest.raises(ValueError, match=re.escape("in [0, 0]; got -1")):
        sweep.shard_cells(12, -1, 1)


def test_cell_lists_format_parse_and_check():
    from relmc.sweep.cells import format_cells, parse_cells

    for cells in ([0, 1, 2, 3, 8, 10, 11], [5], [2, 4, 6], [7, 0, 1]):
        text = format_cells(cells)
        assert parse_cells(text, 12) == cells
    assert format_cells([0, 1, 2, 3, 8, 10, 11]) == "0-3,8,10-11"
    assert parse_cells(" 0-2,\n5 ,7-7\n", 12) == [0, 1, 2, 5, 7]  # whitespace, lines
    bad = [
        ("3-1", "runs backwards"),
        ("0-12", r"cell 12 is not in \[0, 11\]"),
        ("x", "'x' is not a cell index"),
        ("1,1", "cell 1 is listed twice"),
        ("0-3,2", "cell 2 is listed twice"),
        ("", "must list at least one cell"),
        ("-1", "'-1' is not a cell index"),
        ("1_0", "'1_0' is not a cell index"),  # int() would read these: 10, 2, 3
        ("+2", r"'\+2' is not a cell index"),
        ("\u0663", "is not a cell index"),
    ]
    for text, match in bad:
        with pytest.raises(ValueError, match=match) as e:
            parse_cells(text, 12)
        assert e.value.field == "cells"


def test_a_list_of_cells_is_sharded_by_position(spec_file, whole, tmp_path):
    """``cells``: the list's entries s, s + k, ...; every cell once; the same numbers."""
    store = tmp_path / "c.zarr"
    listed = [11, 3, 4, 5, 9]  # any order: sharded by position in the list
    ran = [sweep.run_sweep(spec_file, store, cells=listed, shard=s, shards=2, progress=False)
           for s in (1, 0)]  # fmt: skip
    assert ran == [[3, 5], [4, 9, 11]]  # positions 1, 3 and 0, 2, 4 (returned sorted)
    st = sweep.status(store)
    assert st.done.tolist() == sorted(listed)
    cube = sweep.open_sweep(store, load=True)
    for flat in listed:  # bit for bit the whole run's cells
        idx = dict(zip(SweepSpec.from_toml(spec_file).dims,
                       SweepSpec.from_toml(spec_file).cell_index(flat), strict=True))  # fmt: skip
        a, b = cube.isel(idx), whole.isel(idx)
        assert a.ettr_mean.item() == b.ettr_mean.item()
        assert a.lost_hours_mean.values.tobytes() == b.lost_hours_mean.values.tobytes()
    # bad lists are refused before anything is written
    with pytest.raises(ValueError, match=r"cells: cell 12 is not in \[0, 11\]"):
        sweep.run_sweep(spec_file, tmp_path / "n.zarr", cells=[12], progress=False)
    assert not (tmp_path / "n.zarr").exists()


def test_submit_of_a_partly_done_store_lists_its_missing_cells(spec_file, tmp_path, capsys):
    store = tmp_path / "p.zarr"
    for shard in (0, 1, 2):  # of 4: cells 3, 7, 11 stay missing
        sweep.run_sweep(spec_file, store, shard=shard, shards=4, progress=False)
    opts = SlurmOptions(array=4)
    script = sweep.submit(spec_file, store=store, options=opts, dry_run=True)
    assert "#SBATCH --array=0-2" in script  # three tasks for three cells
    assert "--shards 3" in script and "--cells - <<'RELMC_CELLS'\n3,7,11\nRELMC_CELLS\n" in script
    # negative control: a new store's script shards the grid, with no list
    fresh = sweep.submit(spec_file, store=tmp_path / "new.zarr", options=opts, dry_run=True)
    assert "--cells" not in fresh and "#SBATCH --array=0-3" in fresh
    # so is an existing store with no cell done (a first array whose tasks all failed)
    from relmc.sweep.store import init_store

    init_store(SweepSpec.from_toml(spec_file), tmp_path / "empty.zarr")
    empty = sweep.submit(spec_file, store=tmp_path / "empty.zarr", options=opts, dry_run=True)
    assert empty == fresh.replace(str(tmp_path / "new.zarr"), str(tmp_path / "empty.zarr"))
    # and on a grid of 300 cells (counts compared by value, not by identity: Python shares
    # the objects of small integers only, up to 256)
    restarts = ", ".join(f"{0.1 + i / 1000:.3f}" for i in range(300))
    big = write_spec(tmp_path, SPEC.split("[axes]")[0] + f'[axes]\n"policy.restart_hours" = '
                     f"[{restarts}]\n", "big.toml")  # fmt: skip
    init_store(SweepSpec.from_toml(big), tmp_path / "big.zarr")
    script = sweep.submit(big, store=tmp_path / "big.zarr", options=opts, dry_run=True)
    assert "--cells" not in script and "#SBATCH --array=0-3" in script
    # a done cell whose data fail their checksum is missing too (a run recomputes it)
    chunk = store / "ettr_mean" / "c.0.0.0"
    data = bytearray(chunk.read_bytes())
    data[-1] ^= 0xFF
    chunk.write_bytes(bytes(data))
    script = sweep.submit(spec_file, store=store, options=opts, dry_run=True)
    assert "#SBATCH --array=0-3" in script and "\n0,3,7,11\nRELMC_CELLS\n" in script
    # what a task runs: relmc sweep run --cells - with the list on stdin
    import io

    for task in range(4):
        argv = ["sweep", "run", str(spec_file), "--store", str(store), "--shard", str(task)]
        argv += ["--shards", "4", "--no-progress", "--cells", "-"]
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("sys.stdin", io.StringIO("0,3,7,11\n"))
            assert cli_main(argv) == 0
        assert capsys.readouterr().out.startswith("computed 1 cells;")
    assert sweep.status(store, verify=True).complete
    # a long list is wrapped at commas into lines the shell's heredoc reads back whole
    from relmc.sweep.cells import parse_cells
    from relmc.sweep.slurm import sbatch_script

    # lines of at most 100 characters, full ones of 100 (every second cell), none of 101 (every
    # third cell would fill one at a width of 101)
    for step, longest in ((2, 100), (3, 99)):
        many = list(range(0, 2000, step))
        text = sbatch_script(spec_file, store, SlurmOptions(array=4), cells=many, n_cells=2000)
        body = text.split("<<'RELMC_CELLS'\n")[1].split("RELMC_CELLS")[0]
        assert max(len(line) for line in body.splitlines()) == longest
        assert parse_cells(body, 2000) == many
    # the width holds the comma: 49 + 1 + 50 characters join, 50 + 1 + 50 do not
    from relmc.sweep.slurm import _lines_of

    assert _lines_of(["a" * 49, "b" * 50], 100) == ["a" * 49 + "," + "b" * 50]
    assert _lines_of(["a" * 50, "b" * 50], 100) == ["a" * 50, "b" * 50]
    assert _lines_of(["a" * 120, "b"], 100) == ["a" * 120, "b"]  # a longer part whole
    # the line a part joins is the last one
    assert _lines_of(["a" * 95, "b" * 10, "c" * 10], 100) == ["a" * 95, "b" * 10 + "," + "c" * 10]
    # a bad list is refused before any script is made (the grid's 12 cells read from the spec)
    for bad, match in (([], "at least one cell"), ([3, 3], "listed twice"), ([12], "not in")):
        with pytest.raises(ValueError, match=match):
            sbatch_script(spec_file, store, SlurmOptions(array=4), cells=bad)


def test_cell_seeds_are_spawn_keys():
    s = sweep.cell_seed(5, 7)
    assert s.entropy == 5 and s.spawn_key == (7,)
    a = np.random.default_rng(sweep.cell_seed(5, 7)).random(4)
    b = np.random.default_rng(sweep.cell_seed(5, 8)).random(4)
    assert not np.array_equal(a, b)


def test_cube_layout(whole, spec_file):
    assert dict(whole.sizes) == {
        "n_gpus": 3,
        "checkpoint_interval": 2,
        "restart_hours": 2,
        "category": whole.sizes["category"],
        "quantile": 3,
        "cause": len(CAUSES),
    }
    assert whole.done.all()
    # a mixed axis keeps its exact values: numbers stay numbers beside the rule
    assert list(whole.checkpoint_interval.values) == [0.5, "young"]
    assert whole.checkpoint_interval.attrs["field"] == "policy.checkpoint_interval"
    # the axes' units where their fields' names give them (hours; counts)
    assert whole.checkpoint_interval.attrs["units"] == "h"
    assert whole.restart_hours.attrs["units"] == "h" and whole.n_gpus.attrs["units"] == "1"
    assert whole.attrs["relmc_sweep_spec_sha256"] == SweepSpec.from_toml(spec_file).sha256()
    for v in ("ettr_mean", "ettr_se", "wall_hours_mean", "interruptions_per_day_mean"):
        assert np.isfinite(whole[v]).all(), v
    # ETTR falls with cluster size (4k vs 131k GPUs differ by far more than 10 SE)
    assert (whole.ettr_mean.sel(n_gpus=4096) > whole.ettr_mean.sel(n_gpus=131072)).all()


def test_cell_equals_direct_simulate(whole, spec_file):
    """Each cell is relmc.simulate with the cell's seed, summarised: recompute one."""
    import relmc

    spec = SweepSpec.from_toml(spec_file)
    flat = 7
    res = relmc.simulate(
        spec.scenario(flat), n_trials=spec.n_trials, seed=sweep.cell_seed(spec.seed, flat)
    )
    cell = whole.isel(dict(zip(spec.dims, spec.cell_index(flat), strict=True)))
    assert cell.ettr_mean.item() == res.ettr.mean().item()
    assert cell.wall_hours_se.item() == (res.wall_hours.std(ddof=1) / np.sqrt(64)).item()
    per_day = (res.interruptions.sum("category") / (res.wall_hours / 24)).mean().item()
    assert cell.interruptions_per_day_mean.item() == pytest.approx(per_day, rel=1e-12)
    np.testing.assert_array_equal(cell.lost_hours_mean, res.lost_hours.mean("trial"))
    assert spec.cell_values(flat)["policy.checkpoint_interval"] == "young"
    assert cell.checkpoint_interval_hours.item() == res.attrs["checkpoint_interval_hours"]


def test_sharded_equals_whole(whole, spec_file, tmp_path):
    store = tmp_path / "sharded.zarr"
    for shard in (2, 0, 1):  # any order
        sweep.run_sweep(spec_file, store, shard=shard, shards=3, progress=False)
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


def test_threads_and_processes_equal_whole(whole, spec_file, tmp_path):
    a = tmp_path / "threads.zarr"
    sweep.run_sweep(spec_file, a, n_threads=2, progress=False)
    assert_bitwise_equal(sweep.open_sweep(a, load=True), whole)
    b = tmp_path / "procs.zarr"
    sweep.run_sweep(spec_file, b, workers=2, n_threads=1, progress=False)
    assert_bitwise_equal(sweep.open_sweep(b, load=True), whole)


def test_mixed_axis_selects_numbers_and_rules(whole, spec_file):
    """``[0.5, "young"]``: select by number or by rule; the interval each cell used is stored."""
    from relmc.analytic import young_interval

    fixed = whole.sel(checkpoint_interval=0.5)
    np.testing.assert_array_equal(fixed.checkpoint_interval_hours, 0.5)
    young = whole.checkpoint_interval_hours.sel(checkpoint_interval="young", restart_hours=0.1)
    # Young's rule at each size's MTTF (the point rates of the default scenario)
    spec = SweepSpec.from_toml(spec_file)
    cells = [i for i in range(spec.n_cells) if spec.cell_index(i)[1:] == (1, 0)]
    expected = [
        young_interval(spec.scenario(i).policy.snapshot_hours, spec.scenario(i).mttf_hours())
        for i in cells
    ]
    np.testing.assert_allclose(young.values, expected, rtol=1e-12)
    assert (np.diff(young.values) < 0).all()  # larger clusters fail sooner: shorter intervals
    assert whole.checkpoint_interval_hours.attrs["units"] == "h"


def test_mixed_axis_written_as_labels(whole, whole_store, tmp_path):
    """A cube with a mixed axis writes to netCDF as labels, its values in ``values_json``."""
    import json

    # the exact values (a float beside a string) are what netCDF cannot encode
    with pytest.raises(ValueError, match="mixed native types"):
        whole.to_netcdf(tmp_path / "no.nc")
    for cube in (
        sweep.axes_as_labels(whole),
        sweep.open_sweep(whole_store, labels=True, load=True),
    ):
        axis = cube.checkpoint_interval
        assert list(axis.values) == ["0.5", "young"]
        assert json.loads(axis.attrs["values_json"]) == [0.5, "young"]
        cube.to_netcdf(tmp_path / "cube.nc")
        back = xr.open_dataset(tmp_path / "cube.nc")
        assert list(back.checkpoint_interval.values) == ["0.5", "young"]
        np.testing.assert_array_equal(
            back.ettr_mean.sel(checkpoint_interval="young"),
            whole.ettr_mean.sel(checkpoint_interval="young"),
        )
        back.close()
    # a cube subset and reordered after opening: its values now
    turned = sweep.axes_as_labels(whole.isel(checkpoint_interval=[1, 0]))
    assert list(turned.checkpoint_interval.values) == ["young", "0.5"]
    assert json.loads(turned.checkpoint_interval.attrs["values_json"]) == ["young", 0.5]
    turned.to_netcdf(tmp_path / "turned.nc")
    # the other axes, and a cube without a mixed axis, come back as they were
    assert sweep.axes_as_labels(whole).n_gpus.dtype == whole.n_gpus.dtype
    numbers = whole.sel(checkpoint_interval=[0.5])
    numbers = numbers.assign_coords(checkpoint_interval=[0.5])
    assert sweep.axes_as_labels(numbers).checkpoint_interval.values.tolist() == [0.5]
    # the opened cube itself is unchanged
    assert list(whole.checkpoint_interval.values) == [0.5, "young"]


def test_store_layout_consolidated_and_flat(whole, spec_file, tmp_path):
    """Consolidated metadata (plain ``xr.open_zarr`` reads without a warning), no chunk folders."""
    import json

    store = tmp_path / "l.zarr"
    sweep.run_sweep(spec_file, store, progress=False)
    root = json.loads((store / "zarr.json").read_text())
    assert set(root["consolidated_metadata"]["metadata"]) >= {"ettr_mean", "done", "n_gpus"}
    # pytest turns warnings into errors: open_zarr with no arguments must not warn
    plain = xr.open_zarr(store)
    assert plain.ettr_mean.shape == whole.ettr_mean.shape
    folders = [p for p in store.rglob("*") if p.is_dir()]
    assert all(p.parent == store for p in folders)  # one folder per array, none per chunk
    chunks = [p for p in store.rglob("c.*") if p.is_file()]
    n_cell_vars = len([v for v in whole.data_vars if whole[v].dims[:3] == whole.done.dims])
    assert len(chunks) <= 12 * n_cell_vars + len(whole.coords)
    # one chunk per cell per variable (the store is created lazily, one dask chunk per array)
    zarr = pytest.importorskip("zarr")
    group = zarr.open_group(str(store), mode="r")
    for name in [v for v in whole.data_vars if whole[v].dims[:3] == whole.done.dims]:
        assert group[name].chunks == (1, 1, 1) + whole[name].shape[3:], name


def test_loading_reads_cells_directly_as_xarray_would(whole, spec_file, tmp_path, monkeypatch):
    """``open_sweep(load=True)`` reads a store's per-cell chunks directly (a 608-cell grid:
    101 s through dask, 5 s so): the same Dataset as plain xarray's load, bit for bit and
    encoding for encoding, with cells missing (fill values) and complete. Negative control:
    a direct reader that returns one value wrong is seen."""
    import relmc.sweep.store as store_mod

    store = tmp_path / "half.zarr"
    sweep.run_sweep(spec_file, store, shard=1, shards=3, progress=False)
    real = store_mod._CellChunk.read
    reads = []
    monkeypatch.setattr(
        store_mod._CellChunk, "read", lambda self, idx: reads.append(idx) or real(self, idx)
    )
    for path in (store, None):
        path = path or tmp_path / "whole.zarr"
        if not path.exists():
            sweep.run_sweep(spec_file, path, progress=False)
        reads.clear()
        fast = sweep.open_sweep(path, load=True)
        n_cell_vars = len([v for v in fast.data_vars if fast[v].dims[:3] == fast.done.dims])
        assert len(reads) == 12 * n_cell_vars  # every cell of every per-cell variable
        plain = sweep.open_sweep(path).load()
        assert_bitwise_equal(fast, plain)
        for name in fast.variables:
            assert fast[name].encoding.keys() == plain[name].encoding.keys(), name
    assert np.isnan(fast.ettr_mean.values).sum() == 0
    assert np.isnan(sweep.open_sweep(store, load=True).ettr_mean.values).sum() == 8
    assert_bitwise_equal(sweep.open_sweep(tmp_path / "whole.zarr", load=True), whole)

    def off_by_one(self, idx):
        out = real(self, idx)
        return out + 1 if self.folder.name == "ettr_mean" and idx == (0, 0, 0) else out

    monkeypatch.setattr(store_mod._CellChunk, "read", off_by_one)
    with pytest.raises(AssertionError):
        assert_bitwise_equal(sweep.open_sweep(tmp_path / "whole.zarr", load=True), whole)


def test_loading_leaves_variables_xarray_decodes_to_xarray(whole, spec_file, tmp_path):
    """A variable whose attributes make xarray's decoding change it (here an integer
    ``_FillValue``, as another writer could add: masked to float) is read by xarray, not
    directly: ``open_sweep(load=True)`` still equals xarray's own load, dtype included."""
    zarr = pytest.importorskip("zarr")
    import relmc.sweep.store as store_mod

    store = tmp_path / "w.zarr"
    sweep.run_sweep(spec_file, store, progress=False)
    group = zarr.open_group(str(store), mode="r+")
    group["stopped_code"].attrs["_FillValue"] = 0
    store_mod._consolidate(store)
    plain = sweep.open_sweep(store).load()
    assert plain.stopped_code.dtype.kind == "f"  # 0 ("n_trials") masked to NaN by xarray
    assert_bitwise_equal(sweep.open_sweep(store, load=True), plain)
    assert not store_mod._decodes_as_is(sweep.open_sweep(store).variables["stopped_code"], np.int8)


def test_old_store_without_consolidated_metadata(whole, spec_file, tmp_path):
    """A store made before consolidation opens, resumes and verifies as before."""
    import json

    store = tmp_path / "old.zarr"
    sweep.run_sweep(spec_file, store, shard=0, shards=2, progress=False)
    root = json.loads((store / "zarr.json").read_text())
    root.pop("consolidated_metadata")
    (store / "zarr.json").write_text(json.dumps(root))
    assert sweep.status(store).done.tolist() == list(range(0, 12, 2))
    sweep.run_sweep(spec_file, store, progress=False)
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)
    assert_bitwise_equal(sweep.open_sweep(store).load(), whole)  # through zarr and dask too
    assert sweep.status(store, verify=True).complete


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("name", ["checkpoint_interval_hours", "sdc_rework_hours"])
def test_old_store_without_a_variable_added_later(
    name, keep, spec_file, tmp_path, monkeypatch, capsys
):
    """A store made before a per-cell variable existed (``store.ADDED_LATER``) resumes: its
    cells verify, the new cells are written without it, and the cube equals today's less it
    (with ``keep_trials`` too: the per-trial variable). Negative control: a store that lacks
    any other variable is refused before a cell is computed; ``sweep status`` still reads it."""
    import tomllib

    import relmc.sweep.cells as cells_mod
    import relmc.sweep.store as store_mod

    spec = SweepSpec.from_dict({**tomllib.loads(SPEC), "n_trials": 16, "keep_trials": keep})
    made = cells_mod.summarize_cell
    real_cell = cells_mod.simulate_cell
    gone = {v for v in store_mod.ADDED_LATER if v == name or v.startswith(f"{name}_")}
    assert gone

    def before(*a, **k):  # a cell as the version that made the store wrote it
        cell = real_cell(*a, **k)
        return cell.drop_vars(sorted(gone & set(cell.data_vars)))

    whole = tmp_path / "whole.zarr"
    sweep.run_sweep(spec, whole, progress=False)
    store = tmp_path / "old.zarr"
    with monkeypatch.context() as m:
        m.setattr(cells_mod, "simulate_cell", before)
        sweep.run_sweep(spec, store, shard=0, shards=2, progress=False)
    assert not gone & set(sweep.open_sweep(store).data_vars)
    sweep.run_sweep(spec, store, progress=False)
    assert sweep.status(store, verify=True).complete
    # the same cube less those (the checksums cover the variables each cell has)
    less = sorted({*gone, store_mod.CHECKSUM})
    got = sweep.open_sweep(store, load=True).drop_vars(store_mod.CHECKSUM)
    assert_bitwise_equal(got, sweep.open_sweep(whole, load=True).drop_vars(less, errors="ignore"))
    # negative control: a variable not added later that the store lacks, before any work
    other = tmp_path / "other.zarr"
    with monkeypatch.context() as m:
        m.setattr(cells_mod, "summarize_cell", lambda r, q: made(r, q).drop_vars("stopped_code"))
        sweep.run_sweep(spec, other, shard=0, shards=2, progress=False)
    n_done = sweep.status(other).done.size
    with pytest.raises(ValueError, match="no variable 'stopped_code'.*another relmc version"):
        sweep.run_sweep(spec, other, progress=False)
    assert sweep.status(other).done.size == n_done  # nothing computed, nothing written
    st = sweep.status(other, outcomes=True)  # an outcome the store lacks is not known
    assert st.hopeless is None and st.unfinished is not None and "hopeless" not in str(st)
    import json

    assert cli_main(["sweep", "status", str(other), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hopeless"] is None and out["unfinished"] == []  # not known vs none


def test_old_store_with_nested_chunk_folders(whole, spec_file, tmp_path, monkeypatch):
    """A store made with zarr's nested chunk keys (``c/0/1/2``, before the flat ``c.0.1.2``)
    resumes into the same cube: cells are written into its folders."""
    import relmc.sweep.store as store_mod

    store = tmp_path / "nested.zarr"
    with monkeypatch.context() as m:
        m.setattr(store_mod, "CHUNK_KEY_ENCODING", {"name": "default", "separator": "/"})
        sweep.run_sweep(spec_file, store, shard=0, shards=2, progress=False)
    assert (store / "ettr_mean" / "c" / "0" / "0").is_dir()
    n_before = len(list((store / "ettr_mean").rglob("*")))
    sweep.run_sweep(spec_file, store, progress=False)
    assert not list((store / "ettr_mean").glob("c.*"))  # no flat chunk beside the folders
    assert len(list((store / "ettr_mean").rglob("*"))) > n_before
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)
    assert sweep.status(store, verify=True).complete


def test_keep_trials(spec_file, tmp_path):
    import relmc

    text = SPEC.replace("keep_trials", "").replace(
        "n_trials = 64", "n_trials = 40\nkeep_trials = true"
    )
    text = text.replace('"cluster.n_gpus" = [4096, 32768, 131072]', '"cluster.n_gpus" = [4096]')
    spec = SweepSpec.from_toml(write_spec(tmp_path, text))
    sweep.run_sweep(spec, tmp_path / "t.zarr", progress=False)
    cube = sweep.open_sweep(tmp_path / "t.zarr", load=True)
    assert cube.sizes["trial"] == 40
    res = relmc.simulate(spec.scenario(3), n_trials=40, seed=sweep.cell_seed(spec.seed, 3))
    cell = cube.isel(dict(zip(spec.dims, spec.cell_index(3), strict=True)))
    np.testing.assert_array_equal(cell.wall_hours, res.wall_hours)
    np.testing.assert_array_equal(cell.interruptions, res.interruptions)
    np.testing.assert_array_equal(cell.finished, res.finished)
    assert cell.ettr_mean.item() == res.ettr.mean().item()


# ---------------------------------------------------------------------------------- store


def test_store_from_other_spec_refused(whole, spec_file, tmp_path):
    store = tmp_path / "s.zarr"
    sweep.run_sweep(spec_file, store, shard=0, shards=4, progress=False)
    before = sweep.status(store)
    other = write_spec(tmp_path, SPEC.replace("seed = 11", "seed = 12"), "other.toml")
    with pytest.raises(ValueError, match="different sweep spec"):
        sweep.run_sweep(other, store, progress=False)
    assert cli_main(["sweep", "run", str(other), "--store", str(store), "--no-progress"]) == 2
    assert np.array_equal(sweep.status(store).done, before.done)


def test_not_a_store(tmp_path):
    with pytest.raises(ValueError, match="not a relmc sweep store"):
        sweep.open_sweep(tmp_path / "nothing.zarr")
    with pytest.raises(ValueError, match="not a relmc sweep store"):
        sweep.status(tmp_path)


def test_partial_cell_is_recomputed(whole, spec_file, tmp_path):
    """A cell with data but no done flag (killed between writes) counts as missing."""
    import zarr

    store = tmp_path / "p.zarr"
    spec = SweepSpec.from_toml(spec_file)
    sweep.run_sweep(spec, store, shard=0, shards=2, progress=False)
    g = zarr.open_group(str(store), mode="r+")
    idx = spec.cell_index(1)  # shard 1's cell: write garbage data, leave it not done
    g["ettr_mean"][idx] = -1.0
    g["lost_hours_mean"][idx] = -1.0
    st = sweep.status(store)
    assert 1 in st.missing and 0 in st.done and not st.complete
    partial = sweep.open_sweep(store, load=True)
    assert not partial.done.isel(dict(zip(spec.dims, idx, strict=True))).item()
    done = sweep.run_sweep(spec, store, progress=False)
    assert done == list(range(1, 12, 2))  # only the missing cells
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)
    assert sweep.run_sweep(spec, store, progress=False) == []


def test_a_killed_writes_temporary_files_are_ignored_and_packed_away(whole, spec_file, tmp_path):
    """A process killed between a chunk's temporary file and its rename leaves that file
    (``*.partial``, empty or whole): ``status`` (``verify`` too), a rerun and ``open_sweep``
    ignore it and keep it; ``pack`` in place removes it (the module docstring's "Crash
    safety")."""
    store = tmp_path / "t.zarr"
    sweep.run_sweep(spec_file, store, shard=0, shards=2, progress=False)
    chunks = sorted(
        q for q in (store / "ettr_mean").rglob("*") if q.is_file() and q.name != "zarr.json"
    )
    assert len(chunks) == 6  # shard 0's cells
    planted = [
        chunks[0].with_suffix(".0123abcd.partial"),
        chunks[-1].with_suffix(".4567ef.partial"),
    ]
    planted[0].write_bytes(b"")
    planted[1].write_bytes(chunks[-1].read_bytes())
    st = sweep.status(store, verify=True)
    assert list(st.corrupt) == [] and list(st.missing) == list(range(1, 12, 2))
    assert sweep.run_sweep(spec_file, store, progress=False) == list(range(1, 12, 2))
    assert all(q.exists() for q in planted)
    assert sweep.status(store, verify=True).complete
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)
    files = sum(1 for q in store.rglob("*") if q.is_file())
    sweep.pack(store)
    assert list(store.rglob("*.partial")) == []
    packed = sweep.open_sweep(store, load=True)
    assert json.loads(packed.attrs.pop("relmc_sweep_packed"))["files_before"] == files
    assert_bitwise_equal(packed, whole)


def test_sigkill_then_resume(tmp_path):
    """SIGKILL a CLI run mid-way, rerun: only missing cells run; the cube is unchanged."""
    # 1000 trials per cell: slow enough (~0.1-1 s a cell) to be caught mid-run
    spec_file = write_spec(tmp_path, SPEC.replace("n_trials = 64", "n_trials = 1000"))
    reference = tmp_path / "ref.zarr"
    sweep.run_sweep(spec_file, reference, progress=False)
    store = tmp_path / "k.zarr"
    cmd = [sys.executable, "-m", "relmc", "sweep", "run", str(spec_file), "--store", str(store)]
    err = tmp_path / "stderr.txt"
    with err.open("wb") as f:
        proc = subprocess.Popen([*cmd, "--no-progress", "--n-threads", "1"], stderr=f)
    try:
        deadline = time.monotonic() + 120
        n_done = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if (store / "done" / "zarr.json").exists():
                n_done = sweep.status(store).done.size
                if n_done >= 2:
                    break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, err.read_text()
    st = sweep.status(store)
    assert 2 <= st.done.size < 12, st
    missing = st.missing.tolist()
    rerun = subprocess.run([*cmd, "--no-progress"], capture_output=True, text=True, check=True)
    assert f"computed {len(missing)} cells" in rerun.stdout
    assert sweep.status(store).complete
    assert_bitwise_equal(sweep.open_sweep(store, load=True), sweep.open_sweep(reference, load=True))


def test_ctrl_c_of_a_run_with_workers_ends_it_quietly_then_resume(tmp_path):
    """Ctrl-C (SIGINT to the process group) mid-run with --workers 2: one line, exit 130, no
    worker's traceback, no worker left; a rerun completes the same cube."""
    spec_file = write_spec(tmp_path, SPEC.replace("n_trials = 64", "n_trials = 1000"))
    reference = tmp_path / "ref.zarr"
    sweep.run_sweep(spec_file, reference, progress=False)
    store = tmp_path / "c.zarr"
    cmd = [sys.executable, "-m", "relmc", "sweep", "run", str(spec_file), "--store", str(store)]
    cmd += ["--no-progress", "--workers", "2", "--n-threads", "1"]
    mark = f"relmc-ctrl-c-{os.getpid()}-{time.monotonic_ns()}"  # inherited by every worker
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RELMC_TEST_MARK": mark},
        start_new_session=True,  # its own group, as a terminal's foreground job
        # a shell's background job starts with SIGINT ignored, which Python keeps: undo it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (store / "done" / "zarr.json").exists():  # the workers are computing cells
                break
            time.sleep(0.01)
        time.sleep(0.3)
        running = _processes_marked(mark.encode())
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    if proc.returncode == 0:
        pytest.skip("the run finished before the interrupt")  # a very fast machine
    assert proc.returncode == 130, err
    assert err.strip() == "relmc: interrupted", err  # no traceback of a worker's
    assert len(running) >= 3, running  # the run, its two workers (and a resource tracker)
    assert _processes_marked(mark.encode()) == []  # ... all ended with the run
    st = sweep.status(store)
    assert st.done.size < 12
    subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert_bitwise_equal(sweep.open_sweep(store, load=True), sweep.open_sweep(reference, load=True))


def _processes_marked(mark: bytes) -> list[int]:
    """Live processes whose environment holds ``mark``."""
    found = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        with contextlib.suppress(OSError):
            if mark in env.read_bytes():
                found.append(int(env.parent.name))
    return found


def test_sigint_is_ignored_in_processes_started_inside_the_pool_guard():
    """The workers start with SIGINT ignored (a spawned Python keeps it); the parent not."""
    import multiprocessing as mp

    from relmc.sweep.running import _sigint_ignored

    before = signal.getsignal(signal.SIGINT)
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as outside:  # negative control: started outside the guard
        assert outside.apply(_sigint_handler_name) == "default_int_handler"
    with _sigint_ignored():
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        pool = ctx.Pool(1)
    try:
        assert pool.apply(_sigint_handler_name) == "SIG_IGN"
    finally:
        pool.terminate()
    assert signal.getsignal(signal.SIGINT) is before


def _sigint_handler_name() -> str:
    h = signal.getsignal(signal.SIGINT)
    return "SIG_IGN" if h == signal.SIG_IGN else getattr(h, "__name__", str(h))


# ---------------------------------------------------------------------------------- CLI


def test_cli_status_and_open(whole, spec_file, tmp_path, capsys):
    store = tmp_path / "c.zarr"
    assert cli_main(["sweep", "run", str(spec_file), "--store", str(store), "--shards", "3"]) == 0
    out = capsys.readouterr().out
    assert "computed 4 cells" in out and "4/12 cells done, 8 missing" in out
    assert cli_main(["sweep", "status", str(store)]) == 0
    assert "8 missing: 1-2,4-5,7-8,10-11" in capsys.readouterr().out
    assert cli_main(["sweep", "status", str(store), "--json"]) == 0
    text = capsys.readouterr().out
    assert '"done": [0, 3, 6, 9]' in text and '"unfinished": [], "hopeless": []' in text
    assert cli_main(["sweep", "open", str(store)]) == 0
    text = capsys.readouterr().out
    assert "ettr_mean" in text  # the cube's structure, then ETTR cell by cell
    rows = text.split("ETTR mean +- SE")[1].splitlines()[2:]
    assert len(rows) == 12 and sum("not done" in r for r in rows) == 8
    cube = sweep.open_sweep(store)
    for flat in (0, 3, 6, 9):
        idx = np.unravel_index(flat, cube.done.shape)
        mean = float(cube.ettr_mean.values[idx])
        assert f"{mean:.4f} +- " in rows[flat], (flat, rows[flat])
    assert cli_main(["sweep", "status", str(tmp_path / "none.zarr")]) == 2


def test_cli_bad_input_exit_2(spec_file, tmp_path, capsys):
    bad = write_spec(tmp_path, SPEC.replace("[4096, 32768, 131072]", "[4096, 4096]"), "bad.toml")
    assert cli_main(["sweep", "run", str(bad), "--store", str(tmp_path / "x.zarr")]) == 2
    assert "duplicate" in capsys.readouterr().err
    assert (
        cli_main(
            [
                "sweep",
                "run",
                str(spec_file),
                "--store",
                str(tmp_path / "x.zarr"),
                "--shard",
                "3",
                "--shards",
                "3",
            ]
        )
        == 2
    )
    assert not (tmp_path / "x.zarr").exists()


def test_module_entry_point(spec_file, tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "relmc",
            "sweep",
            "submit",
            str(spec_file),
            "--dry-run",
            "--array",
            "3",
            "--partition",
            "debug",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert "#SBATCH --array=0-2" in r.stdout and "#SBATCH --partition=debug" in r.stdout


# ---------------------------------------------------------------------------------- Slurm script


def test_sbatch_script_contents(spec_file, tmp_path):
    opts = SlurmOptions(
        array=4,
        partition="gpu,debug",
        account="proj-1",
        time="1-02:00:00",
        cpus_per_task=2,
        max_parallel=2,
        extra=("--mem=4G", "--qos=low"),
    )
    script = sweep.sbatch_script(spec_file, tmp_path / "s.zarr", opts)
    lines = script.splitlines()
    assert lines[0] == "#!/bin/bash"
    for want in (
        "#SBATCH --array=0-3%2",
        "#SBATCH --partition=gpu,debug",
        "#SBATCH --account=proj-1",
        "#SBATCH --time=1-02:00:00",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --mem=4G",
        "#SBATCH --qos=low",
    ):
        assert want in lines
    assert '--shard "$SLURM_ARRAY_TASK_ID" --shards 4 --n-threads 2' in script
    # dry run writes nothing
    assert sweep.submit(spec_file, store=tmp_path / "s.zarr", options=opts, dry_run=True) == script
    assert not (tmp_path / "s.zarr").exists()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"partition": "debug; rm -rf /"},
        {"partition": "debug\n#SBATCH --wrap=evil"},
        {"partition": "$(touch /tmp/pwned)"},
        {"account": "a b"},
        {"account": "`id`"},
        {"time": "01:00:00; ls"},
        {"time": "soon"},
        {"job_name": "x;y"},
        {"extra": ("--mem=4G\nrm -rf /",)},
        {"extra": ("--comment=$(id)",)},
        {"extra": ("--mem 4G",)},
        {"extra": ("rm -rf /",)},
        {"extra": "--mem=4G"},
        {"array": 0},
        {"cpus_per_task": 0},
        {"python": "py\nthon"},
    ],
)
def test_sbatch_injection_rejected(kwargs):
    with pytest.raises(ValueError, match="slurm"):
        SlurmOptions(**kwargs)


def test_sbatch_paths_are_quoted(tmp_path):
    """A spec path and store path holding $(...), quotes and spaces reach the task literally."""
    evil = tmp_path / "we$(touch PWNED)ird 'dir'"
    evil.mkdir()
    spec_file = write_spec(evil, SPEC, "sp`touch PWNED2`ec.toml")
    store = evil / "st$(id).zarr"
    log = tmp_path / "argv.txt"
    fake_python = tmp_path / "fake-python"
    fake_python.write_text(f'#!/bin/bash\nprintf "%s\\n" "$@" > {log}\n')
    fake_python.chmod(fake_python.stat().st_mode | stat.S_IXUSR)
    opts = SlurmOptions(array=2, python=str(fake_python))
    script = sweep.sbatch_script(spec_file, store, opts)
    env = {**os.environ, "SLURM_ARRAY_TASK_ID": "1"}
    subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, check=True)
    argv = log.read_text().splitlines()
    assert argv == [
        "-m",
        "relmc",
        "sweep",
        "run",
        str(spec_file),
        "--store",
        str(store),
        "--shard",
        "1",
        "--shards",
        "2",
        "--n-threads",
        "1",
        "--no-progress",
    ]
    assert not any(p.name.startswith("PWNED") for p in tmp_path.rglob("*"))
    assert not (Path.cwd() / "PWNED").exists()


def test_submit_validates_before_writing(spec_file, tmp_path):
    bad = write_spec(tmp_path, SPEC + '\n[slurm]\npartition = "debug; rm -rf /"\n', "bad.toml")
    with pytest.raises(ValueError, match="slurm.partition"):
        sweep.submit(bad, store=tmp_path / "s.zarr")
    assert (
        cli_main(
            [
                "sweep",
                "submit",
                str(spec_file),
                "--store",
                str(tmp_path / "s.zarr"),
                "--time",
                "1:00; ls",
            ]
        )
        == 2
    )
    assert (
        cli_main(
            [
                "sweep",
                "submit",
                str(spec_file),
                "--store",
                str(tmp_path / "s.zarr"),
                "--sbatch=--x=$(id)",
            ]
        )
        == 2
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_posterior_sources_agree(tmp_path):
    """A conjugate source and the same posterior saved to netCDF give the same numbers.

    The netCDF file is identified by its SHA-256 (a changed file is a different spec).
    """
    import relmc

    small = SPEC.replace("n_trials = 64", "n_trials = 32\nn_draws = 32").replace(
        '"cluster.n_gpus" = [4096, 32768, 131072]', '"cluster.n_gpus" = [8192]'
    )
    conj = SweepSpec.from_toml(
        write_spec(tmp_path, small.replace('"point"', '"conjugate:llama3-405b"'), "c.toml")
    )
    from relmc._seed import child_seed
    from relmc.sweep.cells import POSTERIOR_KEY

    # a sweep fits its conjugate posterior from its root's child POSTERIOR_KEY
    fit_seed = child_seed(np.random.SeedSequence(conj.seed), POSTERIOR_KEY)
    idata = relmc.fit_conjugate(
        relmc.load_dataset("llama3-405b"), n_draws=32, n_chains=1, seed=fit_seed
    )
    idata.to_netcdf(str(tmp_path / "post.nc"))
    small = small.replace("n_draws = 32\n", "")  # a file's draws are all used; point has none
    nc = SweepSpec.from_toml(write_spec(tmp_path, small.replace('"point"', '"post.nc"'), "n.toml"))
    assert nc.canonical()["posterior"] == {
        "netcdf_sha256": sweep.spec._sha256_file(tmp_path / "post.nc")
    }
    for spec, name in ((conj, "c.zarr"), (nc, "n.zarr")):
        sweep.run_sweep(spec, tmp_path / name, progress=False)
    a = sweep.open_sweep(tmp_path / "c.zarr", load=True)
    b = sweep.open_sweep(tmp_path / "n.zarr", load=True)
    xr.testing.assert_identical(a.drop_attrs(), b.drop_attrs())
    point = SweepSpec.from_toml(write_spec(tmp_path, small, "p.toml"))
    sweep.run_sweep(point, tmp_path / "p.zarr", progress=False)
    # the posterior matters: point rates give different numbers (a negative control)
    assert not sweep.open_sweep(tmp_path / "p.zarr", load=True).ettr_mean.equals(a.ettr_mean)


# ---------------------------------------------------------------------------------- errors


def test_missing_sweep_extra_is_one_line(spec_file, tmp_path):
    for blocked, args in (
        ("zarr", ["sweep", "status", tmp_path / "none.zarr"]),
        ("zarr", ["sweep", "run", spec_file, "--store", tmp_path / "z.zarr"]),
        ("distributed", ["sweep", "run", spec_file, "--store", tmp_path / "d.zarr", "--dask", "x"]),
    ):
        r = run_cli(*args, prelude=f"sys.modules[{blocked!r}] = None")
        line = one_error_line(r)
        assert blocked in line and 'pip install "relmc[sweep]"' in line, line
    assert list(tmp_path.iterdir()) == []  # checked before any file is written


def test_os_errors_are_one_line(spec_file, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    # a store path under a regular file cannot be created
    line = one_error_line(run_cli("sweep", "run", spec_file, "--store", a_file / "s.zarr"))
    assert "a-file" in line
    # a store path that is a file is no store
    line = one_error_line(run_cli("sweep", "status", a_file))
    assert "not a relmc sweep store" in line


def test_sweep_field_errors_name_the_flag_or_the_toml_field(spec_file, tmp_path):
    store = tmp_path / "s.zarr"
    line = one_error_line(run_cli("sweep", "submit", spec_file, "--store", store, "--time", "soon"))
    assert "slurm.time" in line and line.endswith("(option --time)")
    line = one_error_line(run_cli("sweep", "run", spec_file, "--store", store, "--shards", "0"))
    assert "shards" in line and line.endswith("(option --shards)")
    # the same bad values in the TOML name the TOML field and no flag
    bad = write_spec(tmp_path, SPEC + '\n[slurm]\ntime = "soon"\n', "bad.toml")
    line = one_error_line(run_cli("sweep", "submit", bad, "--store", store, "--dry-run"))
    assert "slurm.time" in line and "(option" not in line
    bad = write_spec(tmp_path, SPEC.replace("n_trials = 64", "n_trials = 1"), "bad2.toml")
    line = one_error_line(run_cli("sweep", "run", bad, "--store", store))
    assert "n_trials" in line and "(option" not in line
    assert not store.exists()


def test_argparse_errors_stay_one_line(spec_file):
    r = run_cli("sweep", "run", spec_file, "--shards", "two")
    assert "--shards" in one_error_line(r)
    assert "--nope" in one_error_line(run_cli("sweep", "status", "x", "--nope"))


# ------------------------------------------------------------------------------- precision

PRECISION_SPEC = """\
seed = 3
n_trials = 4096
posterior = "point"

[base.job]
compute_hours = 240

[base.policy]
restart_hours = 0.5

[precision]
target_rse = 0.01
hopeless_ettr = 0.05

[axes]
"cluster.n_gpus" = [2048, 8388608]
"""


def test_precision_cells_stop_at_target_or_hopeless(tmp_path):
    from relmc.sim.simulate import BLOCK_SIZE

    spec = SweepSpec.from_toml(write_spec(tmp_path, PRECISION_SPEC))
    # the hopeless cell's trials end at the cap: the run says so
    with pytest.warns(NotFinishedWarning, match=r"1 of the 2 cells computed"):
        sweep.run_sweep(spec, tmp_path / "a.zarr", progress=False)
    cube = sweep.open_sweep(tmp_path / "a.zarr", load=True)
    codes = cube["stopped_code"].values.tolist()
    meanings = cube["stopped_code"].attrs["flag_meanings"].split()
    # 2,048 GPUs: healthy, reaches 1% relative SE; 8M GPUs: MTTF ~3 min against 30-min
    # restarts, hopeless after the first check (2 blocks)
    assert [meanings[c] for c in codes] == ["target", "hopeless"]
    n = cube["n_trials"].values
    assert n[1] == 2 * BLOCK_SIZE and n[0] <= 4096
    healthy = cube.isel(n_gpus=0)
    assert float(healthy.ettr_se) <= 0.01 * float(healthy.ettr_mean)
    # deterministic: 2 shards give the same cube
    sweep.run_sweep(spec, tmp_path / "b.zarr", shard=0, shards=2, progress=False)
    with pytest.warns(NotFinishedWarning, match=r"sweep: the cell computed has trials"):
        sweep.run_sweep(spec, tmp_path / "b.zarr", shard=1, shards=2, progress=False)
    assert_bitwise_equal(cube, sweep.open_sweep(tmp_path / "b.zarr", load=True))
    # the status names the cells whose numbers are bounds: read as the cube says, unpacked
    # and packed
    for store in (tmp_path / "a.zarr", tmp_path / "b.zarr"):
        st = sweep.status(store, outcomes=True)
        assert st.unfinished.tolist() == [1] and st.hopeless.tolist() == [1]
        text = str(st)
        assert "1 done cell has trials that did not finish" in text and "hopeless" in text
    sweep.pack(tmp_path / "b.zarr")
    st = sweep.status(tmp_path / "b.zarr", outcomes=True)
    assert st.unfinished.tolist() == [1] and st.hopeless.tolist() == [1]
    # negative control: without outcomes nothing is read, nothing said
    st = sweep.status(tmp_path / "a.zarr")
    assert st.unfinished is None and "did not finish" not in str(st)
    # negative control: without the precision table every cell runs all 4,096 trials
    plain = SweepSpec.from_toml(
        write_spec(
            tmp_path,
            PRECISION_SPEC.split("[precision]")[0] + '[axes]\n"cluster.n_gpus" = [2048]\n',
            "p.toml",
        )
    )
    sweep.run_sweep(plain, tmp_path / "p.zarr", progress=False)
    assert int(sweep.open_sweep(tmp_path / "p.zarr", load=True)["n_trials"].item()) == 4096


def test_precision_is_validated_and_excludes_keep_trials(tmp_path):
    bad = PRECISION_SPEC.replace("target_rse = 0.01", "target_rse = -1")
    with pytest.raises(ValueError, match=r"precision\.target_rse"):
        SweepSpec.from_toml(write_spec(tmp_path, bad))
    both = PRECISION_SPEC.replace("seed = 3", "seed = 3\nkeep_trials = true")
    with pytest.raises(ValueError, match="keep_trials cannot be combined with precision"):
        SweepSpec.from_toml(write_spec(tmp_path, both))


# ---------------------------------------------------------------------------------- template


def test_spec_template_is_package_data_and_valid(tmp_path, capsys):
    """``relmc sweep init`` writes the packaged template (relmc/templates/sweep.toml)."""
    import tomllib
    from importlib.resources import files

    raw = files("relmc").joinpath("templates", "sweep.toml").read_text(encoding="utf-8")
    text = sweep.spec_template("grids/restart.toml")
    assert "relmc sweep run grids/restart.toml" in text and 'store = "restart.zarr"' in text
    want = raw.replace("${spec}", "grids/restart.toml").replace("${store}", "restart.zarr")
    # the header's open command names the store from where the spec was made (beside it)
    assert text == want.replace("${store_path}", "grids/restart.zarr")
    assert "relmc sweep open grids/restart.zarr --csv" in text
    spec = SweepSpec.from_dict(tomllib.loads(text), root=tmp_path)
    assert spec.n_cells == 6 and spec.store == "restart.zarr"
    assert cli_main(["sweep", "init", str(tmp_path / "grid.toml")]) == 0
    assert (tmp_path / "grid.toml").read_text() == sweep.spec_template(tmp_path / "grid.toml")


def test_a_store_that_cannot_fit_is_refused_before_it_is_made(spec_file, tmp_path, monkeypatch):
    # the store needs a chunk file per cell and variable, a folder and a zarr.json per array
    # and some slack (files), and at most its uncompressed bytes: with one inode or one block
    # too few it is refused naming the count and nothing is made; with enough it is made; a
    # file system that counts no inodes skips that check
    from collections import namedtuple

    from relmc.sweep import store as st

    spec = SweepSpec.from_toml(spec_file)
    cube, _ = st._empty_cube(spec, st.cell_template(spec, st.resolve_rates(spec)))
    files = spec.n_cells * len(cube.data_vars) + 2 * len(cube.variables) + 64
    blocks = -(-sum(int(v.nbytes) for v in cube.data_vars.values()) // 4096)
    fs = namedtuple("fs", "f_files f_favail f_bavail f_frsize")
    out = tmp_path / "s.zarr"
    for got, match in (
        (fs(10**6, files - 1, 10**6, 4096), f"about {files:,} files \\({spec.n_cells} cells x "),
        (fs(10**6, files, blocks - 1, 4096), "needs up to"),
    ):
        monkeypatch.setattr(st.os, "statvfs", lambda _p, got=got: got)
        with pytest.raises(ValueError, match=match):
            st.init_store(spec, out)
        assert not out.exists()
    monkeypatch.setattr(st.os, "statvfs", lambda _p: fs(0, 0, blocks, 4096))
    assert st.init_store(spec, out) == out and out.exists()


@pytest.mark.parametrize(
    ("cores", "workers", "threads"), [(8, 1, 8), (8, 2, 4), (8, 3, 2), (2, 4, 1)]
)
def test_local_workers_share_the_cores(spec_file, tmp_path, monkeypatch, cores, workers, threads):
    # without n_threads, each of W local workers runs its cells on cores // W threads (at
    # least 1): the threads asked of the kernel, recorded where they are checked
    import relmc.sweep.running as running

    class Stop(Exception):
        pass

    seen = {}
    check = running._check_int

    def record(name, value, lo, hi):
        seen[name] = value
        return check(name, value, lo, hi)

    def stop(**_):
        raise Stop

    monkeypatch.setattr(running, "_default_threads", lambda: cores)
    monkeypatch.setattr(running, "_check_int", record)
    monkeypatch.setattr(running, "executor", stop)
    with pytest.raises(Stop):
        sweep.run_sweep(spec_file, tmp_path / "s.zarr", workers=workers, progress=False)
    assert seen["n_threads"] == threads


CAPPED = """\
seed = 3
n_trials = 16
posterior = "point"
store = "out.zarr"

[base.job]
compute_hours = 240

[axes]
"cluster.n_gpus" = [16384]
"policy.restart_hours" = [0.1, 1e6]
"""


def test_cells_the_wall_cap_cut_short_are_warned_of(tmp_path):
    # a restart of 1e6 h never ends within the cap (20 x 240 h): that cell holds bounds, and
    # the run says so, naming it, as relmc.project does of its sizes
    spec = write_spec(tmp_path, CAPPED)
    with pytest.warns(NotFinishedWarning, match=r"1 of the 2 cells computed") as caught:
        sweep.run_sweep(spec, tmp_path / "a.zarr", progress=False)
    assert "policy.restart_hours = 1000000.0" in str(caught[0].message)
    cube = sweep.open_sweep(tmp_path / "a.zarr")
    assert cube["finished_fraction"].values.ravel().tolist()[0] == 1.0
    assert cube["finished_fraction"].values.ravel().tolist()[1] < 1.0
    # negative control: the finished cell alone, no warning (warnings are errors here)
    spec = write_spec(tmp_path, CAPPED.replace("[0.1, 1e6]", "[0.1]"), "finished.toml")
    assert sweep.run_sweep(spec, tmp_path / "b.zarr", progress=False) == [0]


# --------------------------------------------------------------------------------------------
# a posterior's categories as the base's failure model; straggler/SDC tables layered on it

OWN_COUNTS = (
    "category,group,count,unit\nGPU Xid,GPU,24,gpu\nHost,Host,10,node\nNCCL hang,Dependency,7,job\n"
)


@pytest.fixture(scope="module")
def own_posterior(tmp_path_factory) -> Path:
    """``relmc fit`` of a user's counts (categories other than Llama 3's)."""
    d = tmp_path_factory.mktemp("own")
    (d / "c.csv").write_text(OWN_COUNTS)
    argv = ["fit", "--counts", str(d / "c.csv"), "--observed-gpus", "2048"]
    assert cli_main([*argv, "--observed-hours", "1440", "--seed", "1", "--quiet",
                     "--out", str(d / "fit")]) == 0  # fmt: skip
    return d / "fit" / "posterior.nc"


def test_a_posterior_with_its_own_categories_is_the_base_model(own_posterior, tmp_path):
    import relmc
    from relmc.rates import posterior_from_source

    spec = SweepSpec.from_dict({
        "seed": 3, "n_trials": 64, "posterior": str(own_posterior),
        "base": {"job": {"compute_hours": 50}}, "axes": {"cluster.n_gpus": [2048, 8192]},
    })  # fmt: skip
    fit = relmc.FailureModel.from_posterior(
        xr.open_dataset(own_posterior, group="posterior")["rate"]
    )
    assert list(spec.base_scenario.failures.names) == ["GPU Xid", "Host", "NCCL hang"]
    assert spec.base_scenario.failures.maintenance_rate == fit.maintenance_rate
    sweep.run_sweep(spec, tmp_path / "s.zarr", progress=False)
    cube = sweep.open_sweep(tmp_path / "s.zarr").load()
    # a cell is relmc.simulate of that scenario with the fit's draws and the cell's seed
    rates = posterior_from_source(str(own_posterior), seed=3, n_draws=spec.n_draws)
    res = relmc.simulate(spec.scenario(1), rates=rates, n_trials=64, seed=sweep.cell_seed(3, 1))
    assert cube.ettr_mean.isel(n_gpus=1).item() == res.ettr.mean().item()
    # negative control: more GPUs, more interruptions a day (beyond 4 SE at 64 trials)
    per_day = cube.interruptions_per_day_mean
    se = cube.interruptions_per_day_se
    assert per_day.isel(n_gpus=1) - per_day.isel(n_gpus=0) > 4 * np.hypot(se[0], se[1])


def test_straggler_tables_are_added_to_a_posteriors_categories(tmp_path):
    from relmc.scenario import Scenario

    straggler = {"name": "Straggler", "rate": 2e-5, "unit": "node", "kind": "straggler",
                 "straggler_speed": 0.5, "detection_hours": 1.0}  # fmt: skip
    d = {
        "seed": 1, "n_trials": 64, "posterior": "conjugate:llama3-405b",
        "base": {"job": {"compute_hours": 100}, "failures": {"categories": [straggler]}},
        "axes": {"failures.categories.Straggler.detection_hours": [0.5, 2.0]},
    }  # fmt: skip
    spec = SweepSpec.from_dict(d)
    default = Scenario.default().failures
    assert list(spec.base_scenario.failures.names) == [*default.names, "Straggler"]
    sweep.run_sweep(spec, tmp_path / "s.zarr", progress=False)
    cube = sweep.open_sweep(tmp_path / "s.zarr").load()
    # straggler time grows with the detection latency: about 4x from 0.5 to 2 h (1 - s = 0.5
    # of each latency per straggler); here beyond 4 SE
    lost = cube.lost_hours_mean.sel(cause="straggler")
    se = cube.lost_hours_se.sel(cause="straggler")
    assert lost.isel(detection_hours=1) - lost.isel(detection_hours=0) > 4 * np.hypot(*se.values)
    # a fit category's rate in a table is refused (the posterior gives it), named under base
    bad = {**d, "base": {"failures": {"categories": [{"name": "Faulty GPU", "rate": 1e-3}]}}}
    with pytest.raises(ValueError, match=r"base: failures.categories\['Faulty GPU'\].rate") as e:
        SweepSpec.from_dict(bad)
    assert e.value.field == "base.failures.categories['Faulty GPU'].rate"
    # negative control: with point rates the tables are the whole model, as before
    point = SweepSpec.from_dict({**d, "posterior": "point"})
    assert list(point.base_scenario.failures.names) == ["Straggler"]
    # and Llama 3's own posterior leaves the default model (and so the spec's identity) alone
    plain = SweepSpec.from_dict({**d, "base": {}, "axes": {"cluster.n_gpus": [2048]}})
    assert plain.base_scenario.failures == default


def test_spec_identity_of_a_spec_made_before_rate_multiplier_is_unchanged():
    # these digests were computed by the code at b3a21ae, before Category.rate_multiplier: a
    # store made then still resumes (its numbers are the same); negative control: a
    # multiplier that is set is part of the identity
    want = {
        "point": "fecbd5d7ad02acf193a41df04c8ce892b89080c31861e74c8ff288f7c644388a",
        "conjugate:llama3-405b": "291425fc5c42cf865573bc87d43d1ab4917be4ce7cc9c5dcd4659f8d428e9332",
    }
    for post, digest in want.items():
        d = {
            "seed": 7, "n_trials": 64, "posterior": post,
            "base": {"job": {"compute_hours": 100}}, "axes": {"cluster.n_gpus": [2048, 4096]},
        }  # fmt: skip
        assert SweepSpec.from_dict(d).sha256() == digest, post

    def sha(**extra):
        cat = {"name": "x", "rate": 1e-5, **extra}
        base = {"failures": {"categories": [cat]}}
        return SweepSpec.from_dict({**d, "posterior": "point", "base": base}).sha256()

    assert sha() == sha(rate_multiplier=1.0) != sha(rate_multiplier=2.0)


def test_n_draws_with_a_posterior_it_does_not_draw_is_warned_of(own_posterior):
    """``n_draws`` sets a conjugate fit's draws: with "point" or a file it is not read."""
    from relmc.errors import UnreadFieldWarning

    d = {"seed": 7, "n_trials": 64, "axes": {"cluster.n_gpus": [2048]}}
    for post, why in (("point", "it has none"), (str(own_posterior), "a posterior file's draws")):
        with pytest.warns(UnreadFieldWarning, match=rf"n_draws = 50 is not read: .*\({why}"):
            spec = SweepSpec.from_dict({**d, "posterior": post, "n_draws": 50})
        # not read: the same identity (so the same store) as without it
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # negative control: no n_draws, no warning
            assert spec.sha256() == SweepSpec.from_dict({**d, "posterior": post}).sha256()
    # a conjugate posterior reads it, silently, and it is part of the identity
    conj = {**d, "posterior": "conjugate:llama3-405b"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fifty = SweepSpec.from_dict({**conj, "n_draws": 50})
        default = SweepSpec.from_dict(conj)
    assert (fifty.n_draws, default.n_draws) == (50, 2000)
    assert fifty.sha256() != default.sha256()
    assert default.sha256() == SweepSpec.from_dict({**conj, "n_draws": 2000}).sha256()
    # still checked first: a bad value is an error, with any posterior
    with pytest.raises(ValueError, match=r"n_draws must be an integer in \[1, 1e7\]; got 0"):
        SweepSpec.from_dict({**d, "posterior": "point", "n_draws": 0})


def test_sweep_refusals_with_a_posterior_name_the_field():
    d = {"seed": 1, "n_trials": 4, "posterior": "conjugate:llama3-405b",
         "axes": {"failures.categories.Faulty GPU.rate": [1e-7, 1e-3]}}  # fmt: skip
    # an axis over a fitted category's rate would change nothing: refused, naming the lever
    with pytest.raises(ValueError, match=r"axes: .*Faulty GPU.rate_multiplier instead") as e:
        SweepSpec.from_dict(d)
    assert e.value.field == "axes"
    with pytest.raises(ValueError, match="rate_multiplier instead"):
        SweepSpec.from_dict({**d, "axes": {"failures.categories.*.rate": [1e-7]}})
    # negative controls: with point rates the axis is the sweep; the multiplier is accepted
    SweepSpec.from_dict({**d, "posterior": "point"})
    SweepSpec.from_dict({**d, "axes": {"failures.categories.Faulty GPU.rate_multiplier": [1, 2]}})
    # a dataset whose units do not scale with a cluster is blamed on the posterior field
    with pytest.raises(ValueError, match="posterior: 'conjugate:pumps' cannot be simulated") as e:
        SweepSpec.from_dict({**d, "posterior": "conjugate:pumps", "axes": {"cluster.n_gpus": [8]}})
    assert e.value.field == "posterior"
    # a category table of the wrong form, with a posterior: a FieldError, not a TypeError
    bad = {"failures": {"categories": [{"name": ["x"], "kind": "straggler"}]}}
    with pytest.raises(ValueError, match="base"):
        SweepSpec.from_dict({**d, "base": bad, "axes": {"cluster.n_gpus": [8]}})


def test_a_posterior_files_physics_reach_the_cells(tmp_path):
    # an event fit's per-draw terms (here a trend, shape 2 from 2,000 h) are drawn in every
    # cell, as relmc.simulate draws them; negative control: the rates alone differ
    import arviz as az
    import xarray as xr

    import relmc

    fit = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), seed=0)
    post = fit.posterior.copy()
    post["trend_shape"] = xr.full_like(post["rate"].isel(category=0, drop=True), 2.0)
    post.attrs = {**post.attrs, "fleet_age_hours": 2000.0}
    az.InferenceData(posterior=post).to_netcdf(str(tmp_path / "trend.nc"))
    d = {"seed": 4, "n_trials": 64, "posterior": str(tmp_path / "trend.nc"),
         "axes": {"cluster.n_gpus": [16384]}}  # fmt: skip
    spec = SweepSpec.from_dict(d)
    sweep.run_sweep(spec, tmp_path / "s.zarr", progress=False)
    cube = sweep.open_sweep(tmp_path / "s.zarr").load()
    idata = az.from_netcdf(str(tmp_path / "trend.nc"))
    res = relmc.simulate(spec.scenario(0), rates=idata, n_trials=64, seed=sweep.cell_seed(4, 0))
    assert "physics per draw" in res.attrs["rates_source"]
    assert cube.ettr_mean.item() == res.ettr.mean().item()
    alone = relmc.simulate(
        spec.scenario(0), rates=idata.posterior["rate"], n_trials=64, seed=sweep.cell_seed(4, 0)
    )
    assert alone.ettr.mean().item() != cube.ettr_mean.item()


# ------------------------------------------------------------------------- audit fixes

# two cells of 8 trials of a 50-hour job: cheap once the kernel is compiled
TINY = {
    "seed": 7,
    "n_trials": 8,
    "base": {"job": {"compute_hours": 50}},
    "axes": {"policy.restart_hours": [0.1, 0.4]},
}


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("tiny") / "tiny.zarr"
    assert sweep.run_sweep(TINY, store, progress=False) == [0, 1]
    return store


def _scenario_leaves() -> set[str]:
    import dataclasses

    from relmc.scenario import Category, FailureModel, Scenario

    s = Scenario.default()
    kinds = [type(getattr(s, sec)) for sec in ("cluster", "job", "policy")]
    return {f.name for k in (*kinds, FailureModel, Category) for f in dataclasses.fields(k)}


def test_an_axis_whose_leaf_is_a_cube_name_keeps_its_full_path(tmp_path):
    """An axis over a category's ``unit`` does not become the cube's ``unit`` coord.

    The cube has a ``unit`` coord (one per category); an axis named ``unit`` clashed with it and
    ``sweep open --csv`` failed. Checks the dim is the full path, the CSV has a row per cell
    and ``unit`` is still the per-category coord; and, for every scenario field whose name the
    cube uses (kept trials too), that the name is reserved. Negative control: an axis whose
    leaf is no cube name keeps its short name.
    """
    from relmc.cli.sweep import cube_csv
    from relmc.sweep.spec import _RESERVED_DIMS

    path = "failures.categories.Faulty GPU.unit"
    d = {**TINY, "keep_trials": True, "axes": {path: ["gpu", "node"]}}
    spec = SweepSpec.from_dict(d)
    assert spec.dims == (path,)
    sweep.run_sweep(spec, tmp_path / "u.zarr", progress=False)
    cube = sweep.open_sweep(tmp_path / "u.zarr", load=True)
    assert cube["unit"].dims == ("category",)
    assert list(cube[path].values) == ["gpu", "node"]
    rows = cube_csv(cube).splitlines()
    assert len(rows) == 3 and rows[1].startswith("gpu,True") and rows[2].startswith("node,True")
    # every name the cube uses that a scenario field also has is reserved (or is the axis)
    names = {str(n) for n in (*cube.variables, *cube.dims)} - {path}
    assert names & _scenario_leaves() <= _RESERVED_DIMS
    # negative control
    assert SweepSpec.from_dict(TINY).dims == ("restart_hours",)


def test_kept_trials_keep_every_variables_attrs(tiny_store, tmp_path):
    """``keep_trials`` keeps the attrs (units, long_name, flag_meanings) of every variable.

    They were dropped by the merge of the trials into the cell, so ``sweep open --csv`` left
    ``stopped_by`` empty. Checks every variable of the cube without kept trials (the negative
    control, whose attrs were always there) has the same attrs with them, the per-trial
    variables have units, and the CSV's ``stopped_by`` column reads ``n_trials``.
    """
    from relmc.cli.sweep import cube_csv

    kept_store = tmp_path / "k.zarr"
    sweep.run_sweep({**TINY, "keep_trials": True}, kept_store, progress=False)
    kept = sweep.open_sweep(kept_store, load=True)
    plain = sweep.open_sweep(tiny_store, load=True)
    assert plain["stopped_code"].attrs["flag_meanings"] == "n_trials target hopeless"
    for name in plain.variables:
        assert kept[name].attrs == plain[name].attrs, name
    assert kept["ettr"].attrs["units"] == "1" and "trial" in kept["ettr"].dims
    for text in (cube_csv(kept), cube_csv(plain)):
        head, *rows = [r.split(",") for r in text.splitlines()]
        col = head.index("stopped_by")
        assert [r[col] for r in rows] == ["n_trials", "n_trials"]


def test_integer_and_float_axis_values_are_one_spec(monkeypatch):
    """``1`` and ``1.0`` on a float field are one spec (one identity, one store).

    Checks the identity and the axes (held as the scenario holds them: floats), that an int
    field keeps ints (negative control, with a really different value that changes the
    identity), and that a store refusal never says "differs in []": a store whose recorded
    spec has the old ``1`` is refused naming ``axes``, and one whose recorded spec matches
    but its hash not says so.
    """
    from relmc.sweep import store as store_mod

    ints = SweepSpec.from_dict({**TINY, "axes": {"policy.restart_hours": [1, 2]}})
    floats = SweepSpec.from_dict({**TINY, "axes": {"policy.restart_hours": [1.0, 2.0]}})
    assert ints.sha256() == floats.sha256()
    assert ints.axes == floats.axes == (("policy.restart_hours", (1.0, 2.0)),)
    assert all(type(v) is float for v in ints.axes[0][1])
    gpus = SweepSpec.from_dict({**TINY, "axes": {"cluster.n_gpus": [2048, 4096]}})
    assert all(type(v) is int for v in gpus.axes[0][1])
    other = SweepSpec.from_dict({**TINY, "axes": {"policy.restart_hours": [1.0, 3.0]}})
    assert other.sha256() != floats.sha256()
    # a value valid only beside another axis's (a persist time within a longer interval;
    # the base scenario alone refuses persist 1 h beside its 30-min interval) is typed too
    paired = [
        SweepSpec.from_dict({**TINY, "axes": {"policy.checkpoint_interval": [3, 4],
                                              "policy.persist_hours": p}})
        for p in ([1, 2], [1.0, 2.0])
    ]  # fmt: skip
    assert paired[0].sha256() == paired[1].sha256()
    assert paired[0].axes == (
        ("policy.checkpoint_interval", (3.0, 4.0)),
        ("policy.persist_hours", (1.0, 2.0)),
    )

    old = floats.canonical_json().replace(
        '"policy.restart_hours",[1.0,2.0]', '"policy.restart_hours",[1,2]'
    )
    assert old != floats.canonical_json()
    for recorded, want in (
        (old, r"differs in \['axes'\]"),
        (floats.canonical_json(), "does not match its recorded hash"),
        (None, "records only the spec's hash"),
    ):
        attrs = {store_mod.ATTR_HASH: "0" * 64}
        if recorded is not None:
            attrs[store_mod.ATTR_SPEC] = recorded
        monkeypatch.setattr(store_mod, "_read_attrs", lambda _store, a=attrs: a)
        with pytest.raises(ValueError, match=want) as e:
            store_mod.check_same_spec(floats, Path("s.zarr"))
        assert "[]" not in str(e.value)


def test_overlapping_axes_are_refused(tmp_path):
    """Two axes that set one field are refused, naming both, before any store is written.

    A ``*`` category path covers each category's own path: the later axis overrode the other,
    whose labels then changed nothing. Negative controls: a ``*`` axis and a category's
    other field, and two categories' own paths of one field, are accepted.
    """
    one = "failures.categories.Faulty GPU.detection_hours"
    every = "failures.categories.*.detection_hours"
    for axes in ({one: [0.1, 0.2], every: [0.0, 0.5]}, {every: [0.0, 0.5], one: [0.1, 0.2]}):
        with pytest.raises(
            ValueError, match="both set detection_hours of category 'Faulty GPU'"
        ) as e:
            sweep.run_sweep({**TINY, "axes": axes}, tmp_path / "o.zarr", progress=False)
        assert e.value.field == "axes"
        assert repr(one) in str(e.value) and repr(every) in str(e.value)
    assert not (tmp_path / "o.zarr").exists()
    SweepSpec.from_dict(
        {
            **TINY,
            "axes": {
                every: [0.0, 0.5],
                "failures.categories.Faulty GPU.diagnosis_hours": [1.0, 2.0],
            },
        }
    )
    SweepSpec.from_dict(
        {
            **TINY,
            "axes": {
                one: [0.1, 0.2],
                "failures.categories.GPU HBM3 Memory.detection_hours": [0.1, 0.2],
            },
        }
    )


def test_numpy_integers_bad_store_and_client_are_checked_first(tmp_path):
    """NumPy ints for seed, n_trials, n_draws become ints; store and client are checked first.

    ``np.int64`` passed the check but stayed in the spec, and its JSON failed later. Checks
    the spec's identity equals the plain-int one (negative control), ``store=5`` is a
    ``ValueError`` naming ``store``, and a client without ``submit``/``scatter`` a
    ``ValueError`` naming ``client`` before the store is made.
    """
    d = {**TINY, "posterior": "conjugate:llama3-405b"}
    spec = SweepSpec.from_dict(
        {**d, "seed": np.int64(7), "n_trials": np.int32(8), "n_draws": np.int64(50)}
    )
    assert [type(v) for v in (spec.seed, spec.n_trials, spec.n_draws)] == [int, int, int]
    assert spec.sha256() == SweepSpec.from_dict({**d, "n_draws": 50}).sha256()
    with pytest.raises(ValueError, match="store must be a path") as e:
        sweep.run_sweep(TINY, 5, progress=False)
    assert e.value.field == "store"
    with pytest.raises(ValueError, match="client must be a distributed.Client") as e:
        sweep.run_sweep(TINY, tmp_path / "c.zarr", client=object(), progress=False)
    assert e.value.field == "client"
    assert not (tmp_path / "c.zarr").exists()


def test_a_store_given_as_dot_from_inside_it(tiny_store, monkeypatch, capsys):
    """``relmc sweep status .`` and ``open . --csv`` work from inside a store.

    ``Path('.')`` has no name, so the pack's sibling paths could not be named. Checks status,
    open and the CLI on ``.`` and on a path through ``..``, against the store's own path
    (negative control).
    """
    want = sweep.status(tiny_store)
    monkeypatch.chdir(tiny_store)
    assert str(sweep.status(".")) == str(want)
    assert sweep.open_sweep(".", load=True).identical(sweep.open_sweep(tiny_store, load=True))
    assert str(sweep.status(f"../{tiny_store.name}")) == str(want)
    assert cli_main(["sweep", "status", "."]) == 0
    assert "2/2 cells done" in capsys.readouterr().out
    assert cli_main(["sweep", "open", ".", "--csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_pack_out_inside_the_store_is_refused(tiny_store, tmp_path, capsys):
    """``pack --out`` inside the store is refused (an in-place pack later deleted the copy).

    Checks the API and the CLI refuse it naming ``out``, and write nothing; negative control:
    a copy beside the store is packed.
    """
    from relmc.sweep.store import is_packed

    inside = tiny_store / "copy.zarr"
    with pytest.raises(ValueError, match="out: .* is inside the store"):
        sweep.pack(tiny_store, out=inside)
    assert cli_main(["sweep", "pack", str(tiny_store), "--out", str(inside)]) == 2
    assert "inside the store" in capsys.readouterr().err
    assert not inside.exists()
    assert not is_packed(tiny_store)
    res = sweep.pack(tiny_store, out=tmp_path / "copy.zarr")
    assert is_packed(tmp_path / "copy.zarr") and res.packed_now


def test_open_output_errors_name_the_option_and_refuse_directories(
    tiny_store, tmp_path, monkeypatch, capsys
):
    """``open --netcdf .`` names ``--netcdf`` (open has no ``--out``); ``--csv sub/`` is refused.

    Checks each directory-like path (``.``, ``sub/``, an existing folder) is refused naming
    the option and writes nothing; negative control: a file path is written.
    """
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    for flag in ("--netcdf", "--csv"):
        for given in (".", "sub/", "folder"):
            assert cli_main(["sweep", "open", str(tiny_store), flag, given]) == 2
            err = capsys.readouterr().err
            assert f"{flag}: {given!r} names a directory" in err and "--out" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]
    assert cli_main(["sweep", "open", str(tiny_store), "--csv", "sub/cube.csv"]) == 0
    assert len((tmp_path / "sub" / "cube.csv").read_text().splitlines()) == 3


def test_a_field_in_other_units_or_misspelt_is_hinted_in_base_and_axes(tmp_path):
    """``restart_minutes`` in ``[base]`` or ``[axes]`` names ``restart_hours``, as TOML does.

    ``relmc simulate``'s TOML gave the hint; a sweep spec said only "unknown field" and listed
    every field. Negative control: a name close to none gets no hint. No store is written.
    """
    store = tmp_path / "s.zarr"
    base = {**TINY, "store": str(store)}
    with pytest.raises(ValueError, match=r"did you mean base\.policy\.restart_hours \(its value "
                       r"in hours\)\?"):  # fmt: skip
        SweepSpec.from_dict({**base, "base": {"policy": {"restart_minutes": 2}}})
    with pytest.raises(ValueError, match=r"did you mean 'policy\.restart_hours' \(its value in "
                       r"hours\)\?"):  # fmt: skip
        SweepSpec.from_dict({**base, "axes": {"policy.restart_minutes": [0.1]}})
    with pytest.raises(ValueError, match=r"did you mean 'failures\.trend_shape'\?"):
        SweepSpec.from_dict({**base, "axes": {"failures.trend_shap": [2.0]}})
    with pytest.raises(ValueError) as e:
        SweepSpec.from_dict({**base, "axes": {"policy.zzz": [1.0]}})
    assert "did you mean" not in str(e.value)
    assert not store.exists()


def test_a_misspelt_field_that_defaults_to_none_is_hinted_in_base(tmp_path):
    """``[base]``'s hint and list include the fields that default to ``None``.

    ``policy.n_spare`` got no hint and ``memory_restart_hour`` the hint ``restart_hours``:
    the base's table left out ``n_spares`` and ``memory_restart_hours`` (``None`` by default)
    unless the spec set them, though both are accepted. Negative control: a name close to
    none gets no hint. No store is written.
    """
    store = tmp_path / "s.zarr"
    base = {**TINY, "store": str(store)}
    for typo, meant in (("n_spare", "n_spares"), ("memory_restart_hour", "memory_restart_hours")):
        with pytest.raises(ValueError) as e:
            SweepSpec.from_dict({**base, "base": {"policy": {typo: 1}}})
        msg = str(e.value)
        assert f"did you mean base.policy.{meant}?" in msg, msg
        assert f"'{meant}'" in msg.split("known:")[1]
    with pytest.raises(ValueError) as e:
        SweepSpec.from_dict({**base, "base": {"policy": {"zzz": 1}}})
    assert "did you mean" not in str(e.value) and "'n_spares'" in str(e.value)
    # a top-level key too (n_trails got the list alone)
    typo = {k: v for k, v in base.items() if k != "n_trials"} | {"n_trails": 10}
    with pytest.raises(ValueError, match=r"did you mean 'n_trials' for 'n_trails'\?"):
        SweepSpec.from_dict(typo)
    assert SweepSpec.from_dict({**base, "base": {"policy": {"n_spares": 4}}}) is not None
    assert not store.exists()


def test_a_conjugate_posterior_is_fitted_from_a_seed_no_cell_shares(tmp_path):
    """A sweep's conjugate fit draws chain ``k`` from its seed's child ``(0, k)``; fitted from
    the root itself, chain 0 took cell 0's block 0's stream (``cell_seed(root, 0)``'s child
    0: the same spawn key). It is fitted from ``child_seed(root, POSTERIOR_KEY)``: the
    documented rule, bit for bit; the control, the root's own fit, gives other draws. A store
    made before the key (no ``posterior_seed`` attr) is refused for a conjugate spec while
    cells are left to compute (a complete one reruns as a no-op), and a point-rate one
    resumes."""
    import zarr

    from relmc._seed import child_seed
    from relmc.datasets import load_dataset
    from relmc.models import fit_conjugate
    from relmc.rates import rate_array
    from relmc.sweep import store as store_mod
    from relmc.sweep.cells import POSTERIOR_KEY

    axes = {"cluster.n_gpus": [2048, 4096]}
    d = {"seed": 5, "n_trials": 8, "posterior": "conjugate:llama3-405b", "n_draws": 40,
         "base": {"job": {"compute_hours": 20.0}}, "axes": axes}  # fmt: skip
    spec = SweepSpec.from_dict(d)
    root = np.random.SeedSequence(5)

    def fit(seed):
        idata = fit_conjugate(load_dataset("llama3-405b"), n_draws=40, n_chains=1, seed=seed)
        return rate_array(idata).values

    got = sweep.resolve_rates(spec).values
    np.testing.assert_array_equal(got, fit(child_seed(root, POSTERIOR_KEY)))
    assert not np.any(got == fit(5))
    # the collision the key avoids: the root's chain 0 stream is cell 0's block 0 stream
    block0 = np.random.default_rng(child_seed(sweep.cell_seed(5, 0), 0)).random(3)
    np.testing.assert_array_equal(np.random.default_rng(child_seed(root, 0, 0)).random(3), block0)
    mine = np.random.default_rng(child_seed(child_seed(root, POSTERIOR_KEY), 0, 0)).random(3)
    assert not np.any(mine == block0)
    # an old store of a conjugate spec: refused; of point rates: resumed
    for post, refused in (("conjugate:llama3-405b", True), ("point", False)):
        spec_d = {**d, "posterior": post}
        if post == "point":
            del spec_d["n_draws"]  # a point posterior has no draws to set
        path = tmp_path / f"{post.split(':')[0]}.zarr"
        assert sweep.run_sweep(spec_d, path, progress=False, cells=[0]) == [0]
        group = zarr.open_group(str(path), mode="r+")
        assert "posterior_seed" in group.attrs
        del group.attrs["posterior_seed"]
        store_mod._consolidate(path)
        if refused:
            with pytest.raises(ValueError, match="fitted from its own seed"):
                sweep.run_sweep(spec_d, path, progress=False)
        else:
            assert sweep.run_sweep(spec_d, path, progress=False) == [1]
    # a complete old conjugate store has nothing to compute: a rerun is a no-op
    path = tmp_path / "complete.zarr"
    assert sweep.run_sweep(d, path, progress=False) == [0, 1]
    group = zarr.open_group(str(path), mode="r+")
    del group.attrs["posterior_seed"]
    store_mod._consolidate(path)
    assert sweep.run_sweep(d, path, progress=False) == []
