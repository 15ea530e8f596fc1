"""Sweeps under faults (issue 9): memory up front, a full disk, stores without checksums,
empty or stale claim files, and no posterior kept between runs.

Every equivalence here is exact (bit for bit): a cell's numbers depend only on the spec and the
cell's index, so a resumed or repaired store must equal an undisturbed one byte for byte.
"""

from __future__ import annotations

import errno
import gc
import json
import os
import shutil
import weakref
from pathlib import Path

import pytest
import xarray as xr

import relmc._io as io_mod
from relmc import sweep
from relmc.cli import main
from relmc.errors import FieldError
from relmc.sweep.store import CHECKSUM, CellWriter, _claims_dir, _consolidate

# 6 cells x 32 trials of a 10-day job: cheap once compiled
SPEC = """\
seed = 11
n_trials = 32
posterior = "point"
quantiles = [0.1, 0.5, 0.9]
store = "out.zarr"

[base.job]
compute_hours = 240

[axes]
"cluster.n_gpus" = [4096, 32768]
"policy.restart_hours" = [0.1, 0.4, 0.8]
"""


def listing(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders)."""
    return {
        str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(folder.rglob("*"))
    }


def assert_bitwise_equal(a: xr.Dataset, b: xr.Dataset) -> None:
    """Same variables, coords, attrs and bytes in every array (NaN == NaN)."""
    xr.testing.assert_identical(a, b)
    for name in a.variables:
        va, vb = a[name].values, b[name].values
        if va.dtype.kind in "fiub":
            assert va.tobytes() == vb.tobytes(), name


@pytest.fixture()
def spec_file(tmp_path) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(SPEC)
    return p


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> xr.Dataset:
    """The undisturbed cube of SPEC."""
    d = tmp_path_factory.mktemp("whole")
    (d / "spec.toml").write_text(SPEC)
    assert sweep.run_sweep(d / "spec.toml", progress=False) == list(range(6))
    return sweep.open_sweep(d / "out.zarr", load=True)


# ------------------------------------------------------------------ 1. memory, checked up front


def _per_trial(spec) -> int:
    """Bytes the memory check charges one trial of ``spec`` (3 copies of its arrays)."""
    return io_mod.trial_bytes(len(spec.base_scenario.failures.categories)) * 3


def test_cells_that_cannot_fit_in_memory_are_refused_when_the_spec_is_loaded(
    spec_file, tmp_path, monkeypatch, capsys
):
    small = sweep.load_spec(spec_file)
    avail = 2**30
    most = avail // _per_trial(small)  # the allowed maximum the message must name
    monkeypatch.setattr(io_mod, "available_memory", lambda: avail)
    huge = SPEC.replace("n_trials = 32", "n_trials = 100000000")  # 1e8: the field's own maximum
    (tmp_path / "huge.toml").write_text(huge)
    before = listing(tmp_path)
    for load in (
        lambda: sweep.load_spec(tmp_path / "huge.toml"),
        lambda: sweep.SweepSpec.from_dict(
            {"seed": 1, "n_trials": 10**8, "axes": {"cluster.n_gpus": [4096]}}
        ),
        lambda: sweep.run_sweep(tmp_path / "huge.toml", progress=False),
        lambda: sweep.submit(tmp_path / "huge.toml"),
    ):
        with pytest.raises(FieldError, match=f"use at most {most:,} trials") as e:
            load()
        assert e.value.field == "n_trials"
        assert "n_trials=100,000,000 needs about" in str(e.value)
    # the command line: one line, exit 2, the flag named when the flag set it; nothing written
    for argv, tail in (
        (["sweep", "run", str(tmp_path / "huge.toml")], "trials here"),
        (["sweep", "submit", str(tmp_path / "huge.toml")], "trials here"),
        (["sweep", "run", str(spec_file), "--n-trials", "100000000"], "(option --n-trials)"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("relmc: error: n_trials=100,000,000")
        assert err[0].endswith(tail)
    assert listing(tmp_path) == before


def test_local_workers_count_one_cell_each(spec_file, tmp_path, monkeypatch):
    spec = sweep.load_spec(spec_file)
    # room for one cell of 32 trials, not for two at once
    monkeypatch.setattr(io_mod, "available_memory", lambda: 48 * _per_trial(spec))
    before = listing(tmp_path)
    with pytest.raises(FieldError, match=r"n_trials=32 \(2 at once\) needs about") as e:
        sweep.run_sweep(spec, workers=2, progress=False)
    assert e.value.field == "n_trials" and "use at most 24 trials" in str(e.value)
    assert listing(tmp_path) == before
    # one worker fits (this runs it, in this process)
    assert sweep.run_sweep(spec, workers=1, progress=False) == list(range(6))


# ------------------------------------------------------------------ 2. a full disk


@pytest.fixture()
def half_store(spec_file, tmp_path) -> Path:
    """``out.zarr`` with every cell done except cell 1."""
    for shard in (0, 2, 3, 4, 5):
        sweep.run_sweep(spec_file, shard=shard, shards=6, progress=False)
    assert sweep.status(tmp_path / "out.zarr").missing.tolist() == [1]
    return tmp_path / "out.zarr"


def _fail_at(monkeypatch, k: int) -> list[int]:
    """Make zarr's ``k``-th chunk write (from now on) fail with ENOSPC after a partial write.

    The failure happens inside zarr's own temporary-file writer, as a real full disk would,
    so what zarr leaves behind is what a user would find.
    """
    import zarr.storage._local as local

    real = local._put
    calls = [0]

    def put(path, value, exclusive=False):
        calls[0] += 1
        if calls[0] != k:
            return real(path, value, exclusive=exclusive)
        with local._atomic_write(path, "wb", exclusive=exclusive) as f:
            f.write(b"part of a chunk")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(local, "_put", put)
    return calls


def _temporaries(folder: Path) -> list[str]:
    return [
        str(p)
        for p in folder.rglob("*")
        if p.name.endswith((".partial", ".tmp")) or ".tmp" in p.name
    ]


def test_disk_full_at_each_write_of_a_cell(tmp_path, monkeypatch):
    """ENOSPC at write k of the cell, for every k: one clear error, the cell not done, no
    temporary left, and a later run with room completes bit-identical to an undisturbed one."""
    import relmc.sweep.running as running

    # two cells (fewer chunks to copy and read per k); cell 0 done, cell 1 to write
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text(
        SPEC.replace('"cluster.n_gpus" = [4096, 32768]', '"cluster.n_gpus" = [4096]').replace(
            "[0.1, 0.4, 0.8]", "[0.1, 0.4]"
        )
    )
    spec = sweep.load_spec(spec_file)
    sweep.run_sweep(spec, tmp_path / "whole.zarr", progress=False)
    whole = sweep.open_sweep(tmp_path / "whole.zarr", load=True)
    base = tmp_path / "base.zarr"
    sweep.run_sweep(spec, base, shard=0, shards=2, progress=False)
    # the writes are under test, not the simulation: cell 1 is simulated once, and every run
    # below stores those same numbers (a cell's result depends only on the spec and the cell)
    cell = running.simulate_cell(spec, 1, None, 1)
    monkeypatch.setattr(running, "simulate_cell", lambda spec, flat, *a: cell)
    store = tmp_path / "out.zarr"
    shutil.copytree(base, store)
    with monkeypatch.context() as m:  # count the cell's writes: every variable, checksum, flag
        calls = _fail_at(m, 0)
        assert sweep.run_sweep(spec, store, progress=False) == [1]
    n_writes = calls[0]
    assert len(CellWriter(base, spec).cell_variables()) + 2 >= n_writes >= 3
    for k in range(1, n_writes + 1):
        shutil.rmtree(store)
        shutil.copytree(base, store)
        with monkeypatch.context() as m:
            _fail_at(m, k)
            with pytest.raises(OSError) as e:
                sweep.run_sweep(spec, store, progress=False)
        assert e.value.errno == errno.ENOSPC
        assert "cannot write cell 1 (No space left on device)" in str(e.value)
        assert "not marked done" in str(e.value) and str(store) in str(e.value)
        assert sweep.status(store).missing.tolist() == [1], k
        assert _temporaries(tmp_path) == [], k
        # resuming costs a run and a read of the cube: for the first write, every 8th, and
        # the last three (the last data variable, the checksum, the flag)
        if k == 1 or k % 8 == 0 or k > n_writes - 3:
            assert sweep.run_sweep(spec, store, progress=False) == [1]  # room again
            assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


def test_disk_full_through_the_command_is_one_line(half_store, spec_file, monkeypatch, capsys):
    with monkeypatch.context() as m:
        _fail_at(m, 3)
        assert main(["sweep", "run", str(spec_file), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: [Errno 28] sweep store ")
    assert "cannot write cell 1 (No space left on device)" in err[0]
    assert sweep.status(half_store).missing.tolist() == [1]


def test_disk_full_while_repairing_a_damaged_cell(spec_file, tmp_path, whole, monkeypatch):
    """Rewriting a done cell that failed verification: its flag is unset before new data."""
    store = tmp_path / "out.zarr"
    sweep.run_sweep(spec_file, progress=False)
    spec = sweep.load_spec(spec_file)
    (store / "ettr_mean" / ".".join(map(str, ("c", *spec.cell_index(2))))).write_bytes(b"")
    with monkeypatch.context() as m:
        _fail_at(m, 2)  # after some of its new data went in
        with pytest.raises(OSError, match="cannot write cell 2"):
            sweep.run_sweep(spec_file, progress=False)
    assert sweep.status(store).missing.tolist() == [2]  # not done: half old, half new data
    assert sweep.run_sweep(spec_file, progress=False) == [2]
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


# ------------------------------------------------------------------ 3. cells without a checksum


def _chunk(store: Path, var: str, spec, flat: int) -> Path:
    return store / var / ".".join(map(str, ("c", *spec.cell_index(flat))))


def test_a_done_cell_whose_checksum_is_gone_is_unverifiable_and_recomputed(
    spec_file, tmp_path, whole, capsys
):
    store = tmp_path / "out.zarr"
    sweep.run_sweep(spec_file, progress=False)
    spec = sweep.load_spec(spec_file)
    _chunk(store, CHECKSUM, spec, 3).unlink()  # a lost checksum chunk reads as 0: none
    st = sweep.status(store, verify=True)
    assert st.unverifiable.tolist() == [3] and st.corrupt.tolist() == [3] and st.checksums
    assert st.missing.tolist() == [3]
    text = str(st)
    assert "1 done cells unverifiable (no checksum; recomputed by the next" in text
    assert "failed verification" not in text
    assert main(["sweep", "status", str(store), "--verify"]) == 0
    assert "unverifiable (no checksum" in capsys.readouterr().out
    assert main(["sweep", "status", str(store), "--verify", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["unverifiable"] == [3] and listed["corrupt"] == [3]
    # the same answer every time, and run follows it: recomputed, now with its checksum
    assert sweep.status(store, verify=True).unverifiable.tolist() == [3]
    assert sweep.run_sweep(spec_file, progress=False) == [3]
    st = sweep.status(store, verify=True)
    assert st.complete and st.unverifiable.size == 0 and "every done cell verified" in str(st)
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


def _without_checksums(store: Path) -> None:
    """Turn ``store`` into one made before checksums existed (no checksum array at all)."""
    import zarr

    g = zarr.open_group(str(store), mode="r+")
    del g[CHECKSUM]
    _consolidate(store)


def test_an_old_store_without_checksums_keeps_its_done_cells(spec_file, tmp_path, whole):
    store = tmp_path / "out.zarr"
    sweep.run_sweep(spec_file, shard=0, shards=2, progress=False)
    _without_checksums(store)
    st = sweep.status(store, verify=True)
    assert not st.checksums and st.unverifiable.tolist() == [0, 2, 4]
    assert st.corrupt.size == 0 and st.done.tolist() == [0, 2, 4]
    assert "3 done cells unverifiable (no checksum; kept as done: the store predates" in str(st)
    # a chunk that no longer decodes is damaged, checksum or not: recomputed with the rest
    spec = sweep.load_spec(spec_file)
    _chunk(store, "ettr_mean", spec, 2).write_bytes(b"\x00garbage" * 3)
    st = sweep.status(store, verify=True)
    assert st.corrupt.tolist() == [2] and st.unverifiable.tolist() == [0, 4]
    assert sweep.run_sweep(spec_file, progress=False) == [1, 2, 3, 5]
    assert sweep.run_sweep(spec_file, progress=False) == []  # kept, not recomputed every run
    st = sweep.status(store, verify=True)
    assert st.complete and st.unverifiable.tolist() == list(range(6))
    cube = sweep.open_sweep(store, load=True)
    assert_bitwise_equal(cube, whole.drop_vars(CHECKSUM))


# ------------------------------------------------------------------ 4. claim files


def test_empty_or_stale_claim_files_claim_nothing(spec_file, tmp_path, whole):
    """Claim files left behind (empty, holding a dead PID, very old) never hold a cell."""
    spec = sweep.load_spec(spec_file)
    store = tmp_path / "out.zarr"
    sweep.init_store(spec, store)
    claims = _claims_dir(store)
    claims.mkdir()
    for flat in range(6):
        p = claims / str(flat)
        p.write_bytes(b"" if flat % 2 else b"4194304\n")  # 0 bytes, or a PID no process has
        os.utime(p, (0, 0))
    w = CellWriter(store, spec)
    for flat in range(6):
        with w.claim(flat) as got:
            assert got
    assert sweep.run_sweep(spec_file, progress=False) == list(range(6))
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


def test_a_file_system_without_flock_never_leaves_a_cell_stuck(
    spec_file, tmp_path, whole, monkeypatch
):
    import fcntl

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_flock)
    store = tmp_path / "out.zarr"
    sweep.init_store(sweep.load_spec(spec_file), store)
    w = CellWriter(store, sweep.load_spec(spec_file))
    with pytest.warns(RuntimeWarning, match="cannot lock claim files") as rec:
        with w.claim(0) as a, w.claim(0, block=True) as b:
            assert a and b  # taken, never waited for
    assert len(rec) == 1
    with pytest.warns(RuntimeWarning, match="may compute a cell twice") as rec:
        assert sweep.run_sweep(spec_file, progress=False) == list(range(6))
    assert len(rec) == 1  # once per run, not once per cell
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


def test_other_lock_errors_are_not_hidden(spec_file, tmp_path, monkeypatch):
    import fcntl

    def broken(fd, op):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(fcntl, "flock", broken)
    with pytest.raises(OSError, match="Input/output error"):
        sweep.run_sweep(spec_file, progress=False)
    assert sweep.status(tmp_path / "out.zarr").done.size == 0


# ------------------------------------------------------------------ 5. no posterior kept


def test_a_run_keeps_no_posterior_behind(tmp_path, monkeypatch):
    """Each run's posterior draws are freed when it returns: nothing caches them per process."""
    import relmc.sweep.running as running

    refs = []
    real = running.resolve_rates

    def recording(spec):
        rates = real(spec)
        refs.append(weakref.ref(rates))
        return rates

    monkeypatch.setattr(running, "resolve_rates", recording)
    text = SPEC.replace('posterior = "point"', 'posterior = "conjugate:llama3-405b"\nn_draws = 50')
    for i, n_draws in enumerate((50, 60, 70)):  # three distinct specs, three posteriors
        p = tmp_path / f"s{i}.toml"
        p.write_text(text.replace("n_draws = 50", f"n_draws = {n_draws}"))
        sweep.run_sweep(p, tmp_path / f"s{i}.zarr", shard=0, shards=6, progress=False)
    gc.collect()
    assert len(refs) == 3
    assert [r() is None for r in refs] == [True] * 3
