"""Sweeps under faults (issue 9): memory up front, a full disk, stores without checksums,
empty or stale claim files, hung claim holders, and no posterior kept between runs.

Every equivalence here is exact (bit for bit): a cell's numbers depend only on the spec and the
cell's index, so a resumed or repaired store must equal an undisturbed one byte for byte. The
undisturbed store is computed once per module (``made``); tests that need a done, half-done or
empty store start from a copy of it instead of computing one again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import gc
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
import weakref
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import xarray as xr
from clirun import ENV
from sweepspecs import GRID_6

import relmc._io as io_mod
import relmc.sweep.running as running_module
import relmc.sweep.store as store_module
from relmc import sweep
from relmc.cli import main
from relmc.errors import FieldError
from relmc.sweep.store import (
    CHECKSUM,
    DONE,
    CellWriter,
    StaleClaimWarning,
    _claims_dir,
    _consolidate,
)

# 6 cells x 32 trials of a 10-day job: cheap once compiled
SPEC = GRID_6


def listing(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders)."""
    return {
        str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(folder.rglob("*"))
    }


def assert_bitwise_equal(a: xr.Dataset, b: xr.Dataset) -> None:
    """Same variables, coords, attrs, dtypes and bytes in every array (NaN == NaN)."""
    xr.testing.assert_identical(a, b)
    for name in a.variables:
        va, vb = a[name].values, b[name].values
        assert va.dtype == vb.dtype, name
        if va.dtype.kind in "fiub":
            assert va.tobytes() == vb.tobytes(), name


@pytest.fixture()
def spec_file(tmp_path) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(SPEC)
    return p


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> SimpleNamespace:
    """SPEC's empty store (as ``init_store`` makes it) and its undisturbed, complete store."""
    d = tmp_path_factory.mktemp("made")
    (d / "spec.toml").write_text(SPEC)
    spec = sweep.load_spec(d / "spec.toml")
    sweep.init_store(spec, d / "empty.zarr")
    shutil.copytree(d / "empty.zarr", d / "out.zarr")
    assert sweep.run_sweep(spec, d / "out.zarr", progress=False) == list(range(6))
    return SimpleNamespace(spec=spec, empty=d / "empty.zarr", whole=d / "out.zarr")


@pytest.fixture(scope="module")
def whole(made) -> xr.Dataset:
    """The undisturbed cube of SPEC."""
    return sweep.open_sweep(made.whole, load=True)


def copy_store(made: SimpleNamespace, dst: Path, drop: tuple[int, ...] = ()) -> Path:
    """Copy the complete store to ``dst``, without the cells ``drop`` (as if never written)."""
    shutil.copytree(made.whole, dst)
    for flat in drop:
        drop_cell(dst, made.spec, flat)
    return dst


def drop_cell(store: Path, spec, flat: int, names: list[str] | None = None) -> None:
    """Remove every chunk of cell ``flat`` (data, checksum, flag): as if it never ran.

    ``names``: the store's cell variables (``CellWriter.cell_variables()``), if known.
    """
    key = ".".join(map(str, ("c", *spec.cell_index(flat))))
    names = CellWriter(store, spec).cell_variables() if names is None else names
    for name in [*names, DONE, CHECKSUM]:
        for chunk in os.scandir(store / name):
            if chunk.name == key or chunk.name.startswith(key + "."):
                os.unlink(chunk.path)


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


def test_local_workers_count_one_cell_each(spec_file, tmp_path, monkeypatch, made, whole):
    spec = sweep.load_spec(spec_file)
    # room for one cell of 32 trials, not for two at once
    monkeypatch.setattr(io_mod, "available_memory", lambda: 48 * _per_trial(spec))
    before = listing(tmp_path)
    with pytest.raises(FieldError, match=r"n_trials=32 \(2 at once\) needs about") as e:
        sweep.run_sweep(spec, workers=2, progress=False)
    assert e.value.field == "n_trials" and "use at most 24 trials" in str(e.value)
    assert listing(tmp_path) == before
    # one worker fits (this runs it, in this process; the store as init_store makes it)
    shutil.copytree(made.empty, tmp_path / "out.zarr")
    assert sweep.run_sweep(spec, workers=1, progress=False) == list(range(6))
    assert listing(tmp_path / "out.zarr") == listing(made.whole)


# ------------------------------------------------------------------ 2. a full disk


@pytest.fixture()
def half_store(made, tmp_path) -> Path:
    """``out.zarr`` with every cell done except cell 1."""
    store = copy_store(made, tmp_path / "out.zarr", drop=(1,))
    assert sweep.status(store).missing.tolist() == [1]
    return store


def _fail_at(monkeypatch, k: int) -> list[int]:
    """Make the store's ``k``-th chunk write (from now on) fail with ENOSPC after a partial write.

    The failure happens inside the temporary-file writer that every chunk of a cell goes
    through (``relmc.sweep.store._put_chunk``, which writes as zarr's ``LocalStore`` does), as
    a real full disk would, so what is left behind is what a user would find.
    """
    real = store_module._write_bytes
    calls = [0]

    def write(f, data):
        calls[0] += 1
        if calls[0] != k:
            return real(f, data)
        f.write(b"part of a chunk")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store_module, "_write_bytes", write)
    return calls


def _temporaries(folder: Path) -> list[str]:
    return [
        os.path.join(d, name)
        for d, dirs, files in os.walk(folder)
        for name in dirs + files
        if name.endswith((".partial", ".tmp")) or ".tmp" in name
    ]


def test_direct_chunk_writes_are_the_bytes_zarr_writes(made, tmp_path, monkeypatch):
    """A cell's chunks are written without zarr's ``__setitem__`` (its per-call cost made
    writes most of a sweep's time): every file of a store so written, and of a damaged cell
    rewritten, is byte for byte what zarr writes, fill-only chunks included (none written).

    Negative controls: a writer with one byte of compression level changed, or one that
    writes fill-only chunks, leaves a different store."""
    spec = made.spec
    cells = [running_module.simulate_cell(spec, flat, None, 1) for flat in range(6)]

    def write_all(folder: Path, how) -> dict[str, bytes | None]:
        shutil.copytree(made.empty, folder)
        with monkeypatch.context() as m:
            how(m)
            writer = CellWriter(folder, spec)
            for flat, cell in enumerate(cells):
                assert writer.write(flat, cell)
            # a damaged cell (its checksum no longer matches) is rewritten the same way
            chunk = folder / "ettr_mean" / ".".join(map(str, ("c", *spec.cell_index(4))))
            chunk.write_bytes(b"")  # emptied, as by a machine crash
            assert not writer.verify(4) and writer.write(4, cells[4])
        return listing(folder)

    def via_zarr(m):
        m.setattr(store_module._CellChunk, "of", classmethod(lambda cls, *a: None))

    direct = write_all(tmp_path / "direct", lambda m: None)
    assert direct == write_all(tmp_path / "zarr", via_zarr) == listing(made.whole)
    # fill-only chunks exist in this grid (e.g. a cause no failure fell into) and are absent
    n_vars = len(CellWriter(made.whole, spec).cell_variables())
    n_chunks = sum(1 for k in direct if "/c." in k)
    assert n_chunks < 6 * (n_vars + 2)

    def other_level(m):
        real = store_module._CellChunk.of.__func__

        def of(cls, *a):
            c = real(cls, *a)
            from numcodecs import Zstd

            return None if c is None else dataclasses.replace(c, compress=Zstd(level=1).encode)

        m.setattr(store_module._CellChunk, "of", classmethod(of))

    def keep_fill(m):
        m.setattr(store_module._CellChunk, "only_fill", lambda self, value: False)

    assert write_all(tmp_path / "level", other_level) != direct
    assert write_all(tmp_path / "fill", keep_fill) != direct


def test_direct_chunk_reads_are_what_zarr_reads(made, tmp_path):
    """Reading a cell's chunks directly gives what zarr gives, value for value and dtype for
    dtype, for every cell and variable of a complete store and of one with cells missing
    (fill values); a chunk emptied or garbled raises in both (the cell is then damaged)."""
    spec = made.spec
    store = copy_store(made, tmp_path / "out.zarr", drop=(2, 5))
    writer = CellWriter(store, spec)
    names = [*writer.cell_variables(), DONE, CHECKSUM]
    n_direct = 0
    for flat in range(6):
        idx = spec.cell_index(flat)
        for name in names:
            want = np.asarray(writer._array(name)[idx])
            got = writer._get(name, idx)
            assert got.dtype == want.dtype and got.shape == want.shape, name
            assert got.tobytes() == want.tobytes(), (flat, name)
            n_direct += writer._chunk(name, len(idx)) is not None
    assert n_direct == 6 * len(names)  # every array of this store is read directly
    for bad in (b"", b"not zstd at all"):
        chunk = store / "ettr_mean" / ".".join(map(str, ("c", *spec.cell_index(1))))
        chunk.write_bytes(bad)
        with pytest.raises(Exception):  # noqa: B017 (zarr and codecs raise several types)
            writer._array("ettr_mean")[spec.cell_index(1)]
        with pytest.raises(RuntimeError):  # numcodecs' zstd: the chunk does not decode
            writer._get("ettr_mean", spec.cell_index(1))
        assert writer.check(1) == "damaged"


def test_direct_chunk_writes_of_zero_fill_floats_are_zarrs(tmp_path):
    """For a float array whose fill value is 0.0 (not relmc's own, another writer's), zarr
    keeps a chunk of -0.0 and drops one of +0.0 (it compares bit patterns): the direct writer
    does the same, byte for byte; an array configured to write empty chunks is left to zarr."""
    zarr = pytest.importorskip("zarr")
    from zarr.codecs import ZstdCodec

    def make(folder: Path, **config):
        group = zarr.open_group(str(folder), mode="w", zarr_format=3)
        return group.create_array(
            "x", shape=(4, 3), chunks=(1, 3), dtype="f8", fill_value=0.0,
            compressors=ZstdCodec(level=0, checksum=False),
            chunk_key_encoding={"name": "default", "separator": "."}, config=config,
        )  # fmt: skip

    rows = [[0.0, 0.0, 0.0], [-0.0, 0.0, 0.0], [0.0, 1.5, np.nan], [-0.0, -0.0, -0.0]]
    via_zarr, direct = make(tmp_path / "zarr"), make(tmp_path / "direct")
    chunk = store_module._CellChunk.of(tmp_path / "direct", "x", direct, 1)
    assert chunk is not None
    for i, row in enumerate(rows):
        via_zarr[i] = np.array(row)
        chunk.write((i,), np.array(row))
    assert listing(tmp_path / "direct" / "x") == listing(tmp_path / "zarr" / "x")
    assert not (tmp_path / "direct" / "x" / "c.0.0").exists()  # all +0.0: no chunk
    assert (tmp_path / "direct" / "x" / "c.1.0").exists()  # a -0.0 is not the fill value
    for i, row in enumerate(rows):
        assert chunk.read((i,)).tobytes() == np.array(row).tobytes()
    eager = make(tmp_path / "eager", write_empty_chunks=True)
    assert store_module._CellChunk.of(tmp_path / "eager", "x", eager, 1) is None


def test_arrays_laid_out_otherwise_are_left_to_zarr(tmp_path):
    """The direct writer takes only what relmc's stores are made of (a cell per chunk, the
    ``bytes`` codec little-endian, then ``zstd``); every other layout goes through zarr:
    big-endian bytes, no compressor, sharding (inside, or first of two codecs), chunks spanning
    several cells, strings."""
    zarr = pytest.importorskip("zarr")
    from zarr.codecs import BytesCodec, ShardingCodec, ZstdCodec

    group = zarr.open_group(str(tmp_path / "s.zarr"), mode="w", zarr_format=3)
    zstd = ZstdCodec(level=0, checksum=False)
    flat = {"name": "default", "separator": "."}
    common = dict(shape=(4, 3), dtype="f8", chunk_key_encoding=flat)
    arrays = {
        "plain": group.create_array("plain", chunks=(1, 3), compressors=zstd, **common),
        "big": group.create_array(
            "big", chunks=(1, 3), serializer=BytesCodec(endian="big"), compressors=zstd, **common
        ),
        "raw": group.create_array("raw", chunks=(1, 3), compressors=None, **common),
        "sharded": group.create_array(
            "sharded", chunks=(1, 3), shards=(2, 3), compressors=zstd, **common
        ),
        "spanning": group.create_array("spanning", chunks=(2, 3), compressors=zstd, **common),
        "text": group.create_array(
            "text", shape=(4,), chunks=(1,), dtype=str, chunk_key_encoding=flat
        ),
    }
    with warnings.catch_warnings():  # zarr warns that this layout cannot write partially
        warnings.simplefilter("ignore", UserWarning)
        # two codecs as relmc's, but sharding (not bytes) first, then zstd over the shard
        arrays["sharded_first"] = group.create_array(
            "sharded_first", chunks=(1, 3), compressors=zstd, **common,
            serializer=ShardingCodec(chunk_shape=(1, 3), codecs=[BytesCodec()]),
        )  # fmt: skip
    direct = {
        name: store_module._CellChunk.of(tmp_path / "s.zarr", name, a, 1)
        for name, a in arrays.items()
    }
    assert direct["plain"] is not None  # the positive control: relmc's own layout
    assert [name for name, c in direct.items() if c is not None] == ["plain"]


def test_disk_full_at_each_write_of_a_cell(made, half_store, tmp_path, monkeypatch):
    """ENOSPC at write k of a cell, for every k: one clear error, the cell not done, no
    temporary left, and a later write with room leaves the store byte-identical (every file)
    to an undisturbed one.

    The writes are under test, not the simulation: cell 1 is simulated once and every write
    below stores those same numbers (a cell's result depends only on the spec and the cell).
    Every k goes through ``CellWriter.write``, the one place a run writes a cell; the first
    and the last k also go through ``run_sweep``, end to end.
    """
    import relmc.sweep.running as running

    spec, store = made.spec, half_store
    whole_files = listing(made.whole)
    cell = running.simulate_cell(spec, 1, None, 1)
    writer = CellWriter(store, spec)
    names = writer.cell_variables()
    with monkeypatch.context() as m:  # count the cell's writes: every variable, checksum, flag
        calls = _fail_at(m, 0)
        assert writer.write(1, cell)
    n_writes = calls[0]
    # zarr writes no chunk that holds only the fill value (NaN, or 0 for integers and flags)
    filled = [
        name
        for name, v in cell.data_vars.items()
        if not np.all(np.isnan(v.values) if v.dtype.kind == "f" else v.values == 0)
    ]
    assert n_writes == len(filled) + 2 >= 3  # those variables, the checksum and the flag
    assert listing(store) == whole_files
    for k in range(1, n_writes + 1):
        drop_cell(store, spec, 1, names)
        with monkeypatch.context() as m:
            _fail_at(m, k)
            with pytest.raises(OSError) as e:
                writer.write(1, cell)
        assert e.value.errno == errno.ENOSPC
        assert "cannot write cell 1 (No space left on device)" in str(e.value)
        assert "not marked done" in str(e.value) and str(store) in str(e.value)
        assert writer.done_mask().tolist() == [True, False, True, True, True, True], k
        assert _temporaries(tmp_path) == [], k
        # room again: the next write completes the cell, byte for byte. It rewrites every
        # chunk whole whatever k was, so a few k show it: the first, one in the middle and
        # the last three (the last data variable, the checksum, the flag)
        if k in (1, n_writes // 2) or k > n_writes - 3:
            assert writer.write(1, cell)
            assert listing(store) == whole_files, k
    # end to end: the run's own error and the status it leaves, then the resumed run
    monkeypatch.setattr(running, "simulate_cell", lambda spec, flat, *a: cell)
    for k in (1, n_writes):
        drop_cell(store, spec, 1, names)
        with monkeypatch.context() as m:
            _fail_at(m, k)
            with pytest.raises(OSError, match=r"cannot write cell 1 \(No space left") as e:
                sweep.run_sweep(spec, store, progress=False)
        assert e.value.errno == errno.ENOSPC
        assert sweep.status(store).missing.tolist() == [1], k
        assert _temporaries(tmp_path) == [], k
    assert sweep.run_sweep(spec, store, progress=False) == [1]  # room again
    assert listing(store) == whole_files


def test_disk_full_through_the_command_is_one_line(half_store, spec_file, monkeypatch, capsys):
    with monkeypatch.context() as m:
        _fail_at(m, 3)
        assert main(["sweep", "run", str(spec_file), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: [Errno 28] sweep store ")
    assert "cannot write cell 1 (No space left on device)" in err[0]
    assert sweep.status(half_store).missing.tolist() == [1]


def test_disk_full_while_repairing_a_damaged_cell(spec_file, tmp_path, made, whole, monkeypatch):
    """Rewriting a done cell that failed verification: its flag is unset before new data."""
    store = copy_store(made, tmp_path / "out.zarr")
    spec = made.spec
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
    spec_file, tmp_path, made, whole, capsys
):
    store = copy_store(made, tmp_path / "out.zarr")
    spec = made.spec
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


def test_an_old_store_without_checksums_keeps_its_done_cells(spec_file, tmp_path, made, whole):
    store = copy_store(made, tmp_path / "out.zarr", drop=(1, 3, 5))  # shard 0 of 2 done
    _without_checksums(store)
    st = sweep.status(store, verify=True)
    assert not st.checksums and st.unverifiable.tolist() == [0, 2, 4]
    assert st.corrupt.size == 0 and st.done.tolist() == [0, 2, 4]
    assert "3 done cells unverifiable (no checksum; kept as done: the store predates" in str(st)
    # a chunk that no longer decodes is damaged, checksum or not: recomputed with the rest
    spec = made.spec
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


def test_empty_or_stale_claim_files_claim_nothing(spec_file, tmp_path, made, whole):
    """Claim files left behind (empty, holding a dead PID, very old) never hold a cell."""
    spec = made.spec
    store = tmp_path / "out.zarr"
    shutil.copytree(made.empty, store)
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
    spec_file, tmp_path, made, whole, monkeypatch
):
    import fcntl

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_flock)
    store = tmp_path / "out.zarr"
    shutil.copytree(made.empty, store)
    w = CellWriter(store, made.spec)
    with pytest.warns(RuntimeWarning, match="cannot lock claim files") as rec:
        with w.claim(0) as a, w.claim(0) as b:
            assert a and b  # both taken
        assert list(w.claims([0, 0], lease_seconds=0.5)) == [0, 0]  # never waited for
    assert len(rec) == 1
    with pytest.warns(RuntimeWarning, match="may compute a cell twice") as rec:
        assert sweep.run_sweep(spec_file, progress=False) == list(range(6))
    assert len(rec) == 1  # once per run, not once per cell
    assert_bitwise_equal(sweep.open_sweep(store, load=True), whole)


def test_other_lock_errors_are_not_hidden(spec_file, tmp_path, made, monkeypatch):
    import fcntl

    shutil.copytree(made.empty, tmp_path / "out.zarr")

    def broken(fd, op):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(fcntl, "flock", broken)
    with pytest.raises(OSError, match="Input/output error"):
        sweep.run_sweep(spec_file, progress=False)
    assert sweep.status(tmp_path / "out.zarr").done.size == 0


# ------------------------------------------------------------------ 5. hung claim holders

# A run that holds one cell (its shard of 6) and stops or dawdles inside it:
#   write      computes the cell, then SIGSTOPs itself before writing it;
#   chunk:N    SIGSTOPs itself right after the N-th chunk of the cell is written;
#   wait       computes the cell, then waits (alive: its heartbeat goes on) until a file
#              MARKER.go appears (at most 300 s).
# It writes MARKER when it pauses, and prints the cells its run_sweep computed (JSON) at the end.
HOLDER = """
import json, os, signal, sys, time
from pathlib import Path
spec_file, store, marker, how, lease, shard = sys.argv[1:]
def pause():
    Path(marker).write_text(str(os.getpid()))
    if how == "wait":
        t0 = time.monotonic()
        while not Path(marker + ".go").exists() and time.monotonic() - t0 < 300:
            time.sleep(0.02)
    else:
        os.kill(os.getpid(), signal.SIGSTOP)
import relmc.sweep.running as running
real_cell = running.simulate_cell
def cell(*a, **k):
    out = real_cell(*a, **k)
    if not how.startswith("chunk:"):
        pause()
    return out
running.simulate_cell = cell
if how.startswith("chunk:"):
    import relmc.sweep.store as store_module
    real_put, puts = store_module._put_chunk, [0]
    def put(path, data):
        real_put(path, data)
        puts[0] += 1
        if puts[0] == int(how[6:]):
            pause()
    store_module._put_chunk = put
from relmc.sweep import run_sweep
done = run_sweep(spec_file, store, shard=int(shard), shards=6, progress=False,
                 claim_lease_seconds=float(lease))
print(json.dumps(done), flush=True)
"""


@pytest.fixture()
def holders():
    """Start holder processes; any left at the end are killed (a stopped one too)."""
    procs: list[subprocess.Popen] = []

    def start(spec_file: Path, store: Path, how: str, lease: float, cell: int) -> SimpleNamespace:
        marker = store.with_name(f"holder-{cell}.pid")
        p = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(spec_file), str(store), str(marker), how,
             str(lease), str(cell)],
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        procs.append(p)
        return SimpleNamespace(proc=p, marker=marker, cell=cell)

    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.communicate(timeout=60)


def _state(pid: int) -> str:
    """The process's state letter from /proc (``T``: stopped)."""
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return "?"


def wait_for_holder(h: SimpleNamespace, stopped: bool, timeout: float = 120) -> None:
    """Wait until holder ``h`` is inside its cell (and, if ``stopped``, stopped there)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if h.proc.poll() is not None:
            pytest.fail(f"holder exited early: {h.proc.communicate()}")
        if h.marker.exists() and (not stopped or _state(h.proc.pid) == "T"):
            return
        time.sleep(0.02)
    pytest.fail(f"holder of cell {h.cell} did not reach its cell within {timeout} s")


def finish_holder(h: SimpleNamespace) -> list[int]:
    """Let holder ``h`` go on (SIGCONT), wait for it; return the cells its run computed."""
    os.kill(h.proc.pid, signal.SIGCONT)
    out, err = h.proc.communicate(timeout=120)
    assert h.proc.returncode == 0, err
    assert "Warning" not in err, err
    return json.loads(out.strip().splitlines()[-1])


@contextlib.contextmanager
def deadline(seconds: int):
    """Raise ``TimeoutError`` in the block after ``seconds`` (SIGALRM): a hang fails the test."""

    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_recording(*args, **kwargs) -> tuple[list[int], list[warnings.WarningMessage]]:
    """``run_sweep`` in this process within a deadline; its result and its warnings."""
    with deadline(180), warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        return sweep.run_sweep(*args, progress=False, **kwargs), rec


@pytest.mark.slow  # two holder processes start (numba caches load) and a lease runs out
def test_a_hung_claim_holder_does_not_block_a_run(spec_file, tmp_path, made, holders):
    """Two runs hang holding cells 0 and 1 (SIGSTOP: before the write, and in the middle of
    it). A run with a short lease computes every cell, warning once per hung cell, and the
    store equals an undisturbed one byte for byte; it still does after the hung runs resume
    and write their cells too, and it verifies."""
    store = tmp_path / "out.zarr"
    shutil.copytree(made.empty, store)
    before_write = holders(spec_file, store, "write", 2.0, 0)
    mid_write = holders(spec_file, store, "chunk:2", 2.0, 1)
    for h in (before_write, mid_write):
        wait_for_holder(h, stopped=True)
    # cell 1 (c.0.1) has 2 chunks written, and no cell is done
    assert len(list(store.glob("*/c.0.1*"))) == 2 and not sweep.status(store).done.size

    done, rec = run_recording(spec_file, store, claim_lease_seconds=2.0)
    assert done == list(range(6))  # the two hung cells too
    stale = [w for w in rec if issubclass(w.category, StaleClaimWarning)]
    assert len(stale) == 2 and len(rec) == 2, [str(w.message) for w in rec]
    for w, h in zip(
        sorted(stale, key=lambda w: str(w.message)), (before_write, mid_write), strict=True
    ):
        text = str(w.message)
        assert f"cell {h.cell} is claimed by process {h.proc.pid} on host" in text
        assert "heartbeat has not moved for" in text and "(lease 2 s)" in text
    assert listing(store) == listing(made.whole)

    # the hung runs resume: one finds its cell done and writes nothing, the other completes
    # the write it was in (the same bytes)
    assert finish_holder(before_write) == []
    assert finish_holder(mid_write) == [1]
    st = sweep.status(store, verify=True)
    assert st.complete and st.corrupt.size == 0 and "every done cell verified" in str(st)
    assert listing(store) == listing(made.whole)
    assert _temporaries(tmp_path) == []


@pytest.mark.slow  # a holder process starts (numba caches load) and holds a cell for 6 s
def test_a_live_claim_holder_is_waited_for(spec_file, tmp_path, made, holders, monkeypatch):
    """Negative control: a holder that is slow but alive (its heartbeat beats) keeps its cell
    while the waiting run watches it for 3 leases; the run takes the cell only when the holder
    is done, and each cell is computed exactly once, with no warning."""
    import relmc.sweep.store as store_mod

    store = tmp_path / "out.zarr"
    shutil.copytree(made.empty, store)
    lease = 2.0
    slow = holders(spec_file, store, "wait", lease, 0)
    wait_for_holder(slow, stopped=False)
    watching = threading.Event()
    real_idle = store_mod._Watch.idle

    def idle(self):
        watching.set()
        return real_idle(self)

    monkeypatch.setattr(store_mod._Watch, "idle", idle)

    def let_go():  # 3 leases after the run first looked at the held cell, the holder finishes
        if watching.wait(timeout=300):
            time.sleep(3 * lease)
        Path(str(slow.marker) + ".go").touch()

    releaser = threading.Thread(target=let_go)
    releaser.start()
    try:
        done, rec = run_recording(spec_file, store, shard=0, shards=6, claim_lease_seconds=lease)
    finally:
        releaser.join()
    assert watching.is_set()
    assert done == [] and rec == []  # the holder's cell: not computed here, no warning
    assert finish_holder(slow) == [0]
    assert sweep.run_sweep(spec_file, store, progress=False) == [1, 2, 3, 4, 5]
    assert listing(store) == listing(made.whole)


def _hold(path: Path) -> int:
    """Take the flock of claim file ``path`` here, as a holder that never beats (hung)."""
    import fcntl

    path.parent.mkdir(exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.ftruncate(fd, 0)  # no record left by an earlier holder
    return fd


@pytest.mark.parametrize("record", [b"", b"\x00garbage", b'{"pid": 1, "host": 2}'])
def test_a_stale_claim_without_a_usable_record_is_taken_after_the_lease(tmp_path, made, record):
    """A held claim whose file never changes, with no usable record: computed after the
    lease (the waiter's own), with one warning that cannot name the holder."""
    store = tmp_path / "out.zarr"
    shutil.copytree(made.empty, store)
    w = CellWriter(store, made.spec)
    fd = _hold(w.claim_path(4))
    try:
        os.write(fd, record)
        t0 = time.monotonic()
        with deadline(60), pytest.warns(StaleClaimWarning) as rec:
            assert list(w.claims([4, 5], lease_seconds=0.5)) == [5, 4]
        assert time.monotonic() - t0 >= 0.5
    finally:
        os.close(fd)
    assert len(rec) == 1
    assert "cell 4 is claimed by another process (no claim record)" in str(rec[0].message)


def test_a_beating_claim_is_never_taken_and_a_record_cannot_stretch_the_wait(tmp_path, made):
    """In this process: a claim held by another open file, its mtime refreshed every 0.05 s
    for 1.5 s, is waited for past a 0.5 s lease and then taken, claimed, without a warning.
    A record asking for slower beats than any lease allows is ignored (no endless waits)."""
    store = tmp_path / "out.zarr"
    shutil.copytree(made.empty, store)
    w = CellWriter(store, made.spec)
    path = w.claim_path(2)
    fd = _hold(path)
    stop = threading.Event()

    def beat():
        while not stop.wait(0.05):
            os.utime(path)

    def release():
        time.sleep(1.5)
        stop.set()
        os.close(fd)

    threads = [threading.Thread(target=beat), threading.Thread(target=release)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    with deadline(60):
        got = []
        for flat in w.claims([2], lease_seconds=0.5):
            with w.claim(flat) as again:
                got.append((flat, again))  # yielded while this run holds the claim
    for t in threads:
        t.join()
    assert got == [(2, False)] and time.monotonic() - t0 >= 1.5
    # a holder's record of slower beats than the waiter's lease makes it wait 3 such beats;
    # a record that asks for more than any lease allows is ignored (no endless waits)
    for beat, message, least in (
        (0.4, "cell 2 is claimed by process 1 on host 'h'", 1.2),
        (86400.0, "cell 2 is claimed by another process (no claim record)", 0.5),
    ):
        fd = _hold(path)
        try:
            os.write(fd, json.dumps({"pid": 1, "host": "h", "heartbeat_seconds": beat}).encode())
            t0 = time.monotonic()
            with deadline(60), pytest.warns(StaleClaimWarning, match=re.escape(message)):
                assert list(w.claims([2], lease_seconds=0.5)) == [2]
            assert time.monotonic() - t0 >= least
        finally:
            os.close(fd)


@pytest.mark.parametrize("lease", [0.1, 86401, -5, float("nan"), float("inf"), "300", True])
def test_a_bad_lease_is_refused_before_anything_is_written(spec_file, tmp_path, lease):
    before = listing(tmp_path)
    with pytest.raises(FieldError, match=r"claim_lease_seconds must be a number of seconds "
                       r"in \[0\.5, 86400\]") as e:  # fmt: skip
        sweep.run_sweep(spec_file, progress=False, claim_lease_seconds=lease)
    assert e.value.field == "claim_lease_seconds"
    assert listing(tmp_path) == before


def test_the_cli_flag_sets_the_lease(spec_file, tmp_path, capsys):
    # through the command: a bad value names the flag, before anything is written; a good one
    # is passed on (the run completes: nothing else holds a cell)
    before = listing(tmp_path)
    store = tmp_path / "cli.zarr"
    args = ["sweep", "run", str(spec_file), "--store", str(store), "--no-progress"]
    assert main([*args, "--claim-lease-seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "[0.5, 86400]" in err and "(option --claim-lease-seconds)" in err
    assert listing(tmp_path) == before
    assert main([*args, "--claim-lease-seconds", "30"]) == 0
    assert sweep.status(store).complete


# ------------------------------------------------------------------ 6. no posterior kept


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
    # two distinct specs, two posteriors, each checked as soon as its run returns (a cache
    # of any size, keyed by spec or not, keeps the first one alive)
    for i, n_draws in enumerate((50, 60)):
        p = tmp_path / f"s{i}.toml"
        p.write_text(text.replace("n_draws = 50", f"n_draws = {n_draws}"))
        sweep.run_sweep(p, tmp_path / f"s{i}.zarr", shard=0, shards=6, progress=False)
        gc.collect()
        assert len(refs) == i + 1
        assert [r() is None for r in refs] == [True] * (i + 1)


def test_warnings_of_worker_processes_reach_the_parent(recwarn):
    # with --workers > 1 a StaleClaimWarning is raised in a worker process; the batch returns
    # relmc's own warnings for the parent to raise again (so the CLI prints its one line);
    # other warnings are shown in the worker as before and not returned
    import relmc.sweep.running as running

    class Task:
        def each(self, cells, rates):
            for flat in cells:
                text = f"cell {flat} is claimed by a hung process"
                warnings.warn(text, StaleClaimWarning, stacklevel=1)
                warnings.warn("not ours", UserWarning, stacklevel=1)
                yield flat, flat % 2 == 0

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        n, computed, caught = running._process_batch(Task(), [0, 1, 2], None, os.getppid())
    assert (n, computed) == (3, [0, 2])
    assert [str(w) for w in caught] == [f"cell {c} is claimed by a hung process" for c in range(3)]
    assert all(isinstance(w, StaleClaimWarning) for w in caught)
    # the foreign ones were shown in the worker (here: this process), not passed on
    assert [str(w.message) for w in shown] == ["not ours"] * 3
    with pytest.warns(StaleClaimWarning, match="cell 1 is claimed") as rec:
        running._rewarn(caught)
    assert len(rec) == 3


def test_a_store_that_cannot_be_created_is_named(spec_file, tmp_path, made, capsys):
    """A store (or a packed copy) under a file: one line naming the store, its errno kept."""
    (tmp_path / "afile").write_text("")
    store = tmp_path / "afile" / "x.zarr"
    with pytest.raises(OSError, match=r"sweep store .*x\.zarr': cannot create it \(File exists"):
        sweep.init_store(made.spec, store)
    assert main(["sweep", "run", str(spec_file), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: [Errno 17] sweep store "), err
    assert f"(File exists: {str(tmp_path / 'afile')!r})" in err[0]
    out = tmp_path / "afile" / "p.zarr"
    with pytest.raises(OSError, match=r"packed copy .*p\.zarr': cannot create it") as e:
        sweep.pack(made.whole, out=out)
    assert e.value.errno == errno.EEXIST
    # negative control: a store whose folder can be made is made
    assert sweep.init_store(made.spec, tmp_path / "new" / "x.zarr").exists()
