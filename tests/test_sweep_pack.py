"""Packing a finished sweep store into few files (``relmc.sweep.pack``, ``relmc sweep pack``).

Every equivalence here is exact (bit for bit): packing changes how cells are chunked, never a
byte of their values. The complete store of SPEC is computed once per module (``made``); each
test packs a copy of it, so no test computes a cell unless it is about running.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import xarray as xr
from clirun import ENV
from sweepspecs import GRID_12

import relmc.sweep.store as store_mod
from relmc import sweep
from relmc.cli import main
from relmc.sweep.store import ATTR_PACKED, CHECKSUM, DONE, CellWriter

# 12 cells x 64 trials of a 10-day job (tests/test_sweep.py's grid): cheap once compiled
SPEC = GRID_12


def listing(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders)."""
    return {
        str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(folder.rglob("*"))
    }


def n_files(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def unpacked(cube: xr.Dataset) -> xr.Dataset:
    """The cube without the packed marker (the one attr packing adds)."""
    out = cube.copy()
    out.attrs = {k: v for k, v in cube.attrs.items() if k != ATTR_PACKED}
    return out


def assert_bitwise_equal(a: xr.Dataset, b: xr.Dataset) -> None:
    """Same variables, coords, attrs and bytes in every array (NaN == NaN)."""
    xr.testing.assert_identical(a, b)
    assert a.attrs == b.attrs
    for name in a.variables:
        va, vb = a[name].values, b[name].values
        if va.dtype.kind in "fiub":
            assert va.tobytes() == vb.tobytes(), name


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> SimpleNamespace:
    """SPEC's complete, unpacked store, its cube, and the number of zarr arrays in it."""
    d = tmp_path_factory.mktemp("made")
    (d / "spec.toml").write_text(SPEC)
    spec = sweep.load_spec(d / "spec.toml")
    assert sweep.run_sweep(spec, d / "out.zarr", progress=False) == list(range(12))
    shutil.rmtree(d / ".out.zarr.claims")
    n_arrays = sum(1 for p in (d / "out.zarr").iterdir() if p.is_dir())
    return SimpleNamespace(
        spec=spec,
        spec_file=d / "spec.toml",
        whole=d / "out.zarr",
        cube=sweep.open_sweep(d / "out.zarr", load=True),
        n_arrays=n_arrays,
    )


def copy_store(made: SimpleNamespace, dst: Path) -> Path:
    shutil.copytree(made.whole, dst)
    return dst


def set_done(store: Path, flat: int, value: bool) -> None:
    """Edit cell ``flat``'s done flag by hand (as a user with zarr could)."""
    import zarr

    g = zarr.open_group(str(store), mode="r+")
    g[DONE][np.unravel_index(flat, g[DONE].shape)] = value


def garble(path: Path) -> None:
    """Overwrite a chunk file's bytes after its first 4 (zstd's magic number) with others."""
    data = bytearray(path.read_bytes())
    for i in range(4, len(data)):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))


# ------------------------------------------------------------- 1. same cube, far fewer files


def test_a_packed_store_is_the_same_cube_in_few_files(made, tmp_path):
    store = copy_store(made, tmp_path / "out.zarr")
    before = n_files(store)
    result = sweep.pack(store)
    assert result.packed_now and result.store == store and result.n_cells == 12
    assert (result.files_before, result.files_after) == (before, n_files(store))
    assert str(result).startswith(f"packed 12 cells: {before:,} files -> {n_files(store)} files")
    # every array is its zarr.json and (at most) one chunk file, plus the root zarr.json; the
    # unpacked store has a chunk per cell per per-cell variable
    assert n_files(store) <= 2 * made.n_arrays + 1 < before / 5
    for name, key in [("ettr_mean", "c.0.0.0"), ("ettr_quantile", "c.0.0.0.0"), (DONE, "c.0.0.0")]:
        assert sorted(os.listdir(store / name)) == [key, "zarr.json"]  # one chunk: 12 cells
    cube = sweep.open_sweep(store, load=True)
    assert json.loads(cube.attrs[ATTR_PACKED])["files_before"] == before
    assert_bitwise_equal(unpacked(cube), made.cube)
    # the leftovers of the swap and the claim files are gone; only the lock file stays
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.zarr.pack.lock", "out.zarr"]
    st = sweep.status(store, verify=True)
    assert st.complete and st.packed and st.verified and st.corrupt.size == 0
    assert str(st) == "12/12 cells done, 0 missing; every done cell verified; packed"
    # a run computes nothing and writes nothing; packing again does nothing
    files = listing(store)
    assert sweep.run_sweep(made.spec, store, progress=False) == []
    assert sweep.run_sweep(made.spec, store, progress=False, pack=True) == []
    again = sweep.pack(store)
    assert not again.packed_now and "packed already" in str(again)
    assert listing(store) == files


@pytest.mark.slow  # 10-13 s on 2 shared cores (packs, then reads every cell)
def test_checksums_do_not_depend_on_the_layout(made, tmp_path):
    """A cell's checksum is of its values: read cell by cell or chunk by chunk, from either
    layout, every cell verifies against the checksum written when it was computed."""
    store = copy_store(made, tmp_path / "out.zarr")
    sweep.pack(store, chunk_bytes=40)  # scalar variables: 4 cells (32 bytes) per chunk
    writer = CellWriter(store, made.spec)
    assert writer.group["ettr_mean"].chunks == (1, 2, 2)
    assert [writer.check(c) for c in range(12)] == [store_mod.VERIFIED] * 12  # cell by cell
    found = store_mod._check_blockwise(
        writer.group, writer.grid, writer.cell_variables(), range(12), True
    )
    assert list(found.values()) == [store_mod.VERIFIED] * 12  # chunk by chunk
    stored = sweep.open_sweep(store, load=True)[CHECKSUM].values.ravel()
    cells = [
        made.cube.isel(dict(zip(made.spec.dims, made.spec.cell_index(c), strict=True)))
        for c in range(12)
    ]
    names = writer.cell_variables()
    assert [store_mod.cell_checksum({n: x[n].values for n in names}) for x in cells] == list(stored)


def test_packed_chunks_hold_whole_cells_in_c_order():
    # 64 MiB of float64 summaries: every cell of a 608-cell grid in one chunk
    assert sweep.store.packed_chunks((19, 8, 4), (), 8, 64 * 2**20) == (19, 8, 4)
    # 10 cells of 8 bytes per chunk: the last axis whole (4), then 2 of the middle one
    assert sweep.store.packed_chunks((19, 8, 4), (), 8, 80) == (1, 2, 4)
    # a cell larger than the budget gets a chunk of its own; the cell's dims stay whole
    assert sweep.store.packed_chunks((3, 2), (5000, 3), 8, 1024) == (1, 1, 5000, 3)


def test_pack_out_leaves_the_store_and_writes_a_packed_copy(made, tmp_path):
    store = copy_store(made, tmp_path / "out.zarr")
    files = listing(store)
    result = sweep.pack(store, out=tmp_path / "archive" / "packed.zarr")
    assert result.store == tmp_path / "archive" / "packed.zarr"
    assert listing(store) == files
    assert not sweep.status(store).packed and sweep.status(result.store, verify=True).packed
    assert_bitwise_equal(unpacked(sweep.open_sweep(result.store, load=True)), made.cube)
    assert sorted(os.listdir(tmp_path / "archive")) == ["packed.zarr"]  # no temporary left


# ------------------------------------------------------------ 2. verification on the packed layout


@pytest.mark.slow  # 10-13 s on 2 shared cores (packs, then reads every cell)
def test_a_damaged_packed_chunk_names_its_cells(made, tmp_path, capsys):
    """Negative control for verification on the packed layout: a garbled chunk of 4 cells."""
    store = copy_store(made, tmp_path / "out.zarr")
    sweep.pack(store, chunk_bytes=40)  # scalar variables: chunks of cells 0-3, 4-7, 8-11
    assert sweep.status(store, verify=True).corrupt.size == 0  # before: all verified
    garble(store / "ettr_mean" / "c.1.0.0")  # cells 4-7
    st = sweep.status(store, verify=True)
    assert st.corrupt.tolist() == [4, 5, 6, 7] and st.missing.tolist() == [4, 5, 6, 7]
    assert "4 done cells failed verification (a packed store is never rewritten" in str(st)
    assert sweep.status(store).complete  # flags alone do not see it
    assert main(["sweep", "status", str(store), "--verify", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corrupt"] == [4, 5, 6, 7] and out["packed"] is True
    with pytest.raises(ValueError, match=r"cells \[4, 5, 6, 7\] are damaged .* never rewritten"):
        sweep.open_sweep(store, load=True)
    with pytest.raises(ValueError, match=r"is packed \(read-only\) but cells \[4, 5, 6, 7\]"):
        sweep.run_sweep(made.spec, store, progress=False)


def test_a_hand_edited_flag_in_a_packed_store_is_refused_and_never_written(made, tmp_path):
    store = copy_store(made, tmp_path / "out.zarr")
    sweep.pack(store)
    set_done(store, 5, False)
    files = listing(store)
    with pytest.raises(ValueError, match=r"is packed \(read-only\) but cells \[5\] of this"):
        sweep.run_sweep(made.spec, store, progress=False)
    # another shard's cells are all done: it computes nothing
    assert sweep.run_sweep(made.spec, store, shard=0, shards=2, progress=False) == []
    with pytest.raises(ValueError, match="is packed: it is read-only and cell 5 is not written"):
        CellWriter(store, made.spec).write(5, made.cube.isel(n_gpus=0))
    assert listing(store) == files


def test_a_spec_change_is_refused_on_a_packed_store(made, tmp_path):
    store = copy_store(made, tmp_path / "out.zarr")
    sweep.pack(store)
    other = tmp_path / "other.toml"
    other.write_text(SPEC.replace("n_trials = 64", "n_trials = 65"))
    files = listing(store)
    with pytest.raises(ValueError, match=r"different sweep spec \(differs in \['n_trials'\]"):
        sweep.run_sweep(other, store, progress=False, pack=True)
    assert listing(store) == files


# ---------------------------------------------------------------------- 3. refusals


def test_pack_refuses_an_incomplete_or_damaged_store_before_writing(made, tmp_path):
    store = copy_store(made, tmp_path / "out.zarr")
    set_done(store, 3, False)
    set_done(store, 7, False)
    files = listing(tmp_path)
    with pytest.raises(ValueError) as e:
        sweep.pack(store)
    msg = str(e.value)
    assert "\n" not in msg and "cannot be packed: 2 cells not done (3,7) of 12" in msg
    assert listing(tmp_path) == files  # nothing written, not even the lock file
    set_done(store, 3, True)
    set_done(store, 7, True)
    garble(store / "ettr_se" / "c.2.1.0")  # cell 10 (unpacked: a chunk per cell)
    files = listing(tmp_path)
    with pytest.raises(ValueError, match=r"cannot be packed: 1 done cells damaged \(10\)"):
        sweep.pack(store, out=tmp_path / "packed.zarr")
    assert listing(tmp_path) == files
    with pytest.raises(ValueError, match="out: .* exists; relmc sweep pack never replaces"):
        sweep.pack(made.whole, out=store)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["{store}"], "cannot be packed: 1 cells not done (3) of 12"),
        (["{store}", "--out", "{spec}"], "out: "),
        (["{spec}"], "is not a relmc sweep store"),
    ],
)
def test_cli_refusals_are_one_line(made, tmp_path, capsys, args, match):
    store = copy_store(made, tmp_path / "out.zarr")
    set_done(store, 3, False)
    files = listing(tmp_path)
    argv = [a.format(store=store, spec=made.spec_file) for a in args]
    assert main(["sweep", "pack", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: ") and match in err[0]
    assert listing(tmp_path) == files


def test_cli_run_on_a_hand_edited_packed_store_is_one_line(made, tmp_path, capsys):
    store = copy_store(made, tmp_path / "out.zarr")
    sweep.pack(store)
    set_done(store, 0, False)
    assert main(["sweep", "run", str(made.spec_file), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is packed (read-only) but cells [0]" in err[0]


def test_pack_help_has_examples(capsys):
    assert main(["sweep", "pack", "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "relmc sweep pack sweep.zarr --out archive.zarr" in out


# ------------------------------------------------------------- 4. a kill at each step of the swap


class Killed(BaseException):
    """Stands for SIGKILL: not an Exception, so no ``except Exception`` handler sees it."""


def _kill_at(monkeypatch, k: int) -> None:
    """Stop the in-place swap at its step ``k``: 1 = rename store -> old, 2 = rename new ->
    store, 3 = remove old, 4 = remove the claim files (each raises before it happens)."""
    steps = [0]
    real_rename, real_rmtree = store_mod._rename, store_mod._rmtree

    def step(real):
        def do(*args, **kwargs):
            steps[0] += 1
            if steps[0] == k:
                raise Killed(f"killed before step {k}")
            return real(*args, **kwargs)

        return do

    monkeypatch.setattr(store_mod, "_rename", step(real_rename))
    monkeypatch.setattr(store_mod, "_rmtree", step(real_rmtree))


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "packed-" in p.name)


@pytest.mark.parametrize(
    ("k", "then"),
    # the store's path is missing only after step 1 (k = 2): every entry point must recover it
    [(1, "pack"), (2, "pack"), (2, "status"), (2, "open_sweep"), (2, "run_sweep")]
    + [(3, "status"), (4, "pack")],
)
def test_a_kill_at_each_step_of_the_swap_leaves_a_usable_store(made, tmp_path, k, then):
    store = copy_store(made, tmp_path / "out.zarr")
    with pytest.MonkeyPatch.context() as m:
        _kill_at(m, k)
        with pytest.raises(Killed):
            sweep.pack(store)
    # what the kill left: before step 2 the old store, after it the new one; only between
    # the renames (k = 2) is the store's path missing, with both copies beside it
    assert store.exists() == (k != 2)
    assert (
        _leftovers(tmp_path)
        == {
            1: [".out.zarr.packed-new"],
            2: [".out.zarr.packed-new", ".out.zarr.packed-old"],
            3: [".out.zarr.packed-old"],
            4: [],
        }[k]
    )
    # the next call of any kind finds a usable store (finishing the swap if it was cut)
    if then == "pack":
        sweep.pack(store)
    elif then == "status":
        assert sweep.status(store, verify=True).complete
    elif then == "open_sweep":
        sweep.open_sweep(store)
    else:
        assert sweep.run_sweep(made.spec, store, progress=False) == []
    assert_bitwise_equal(unpacked(sweep.open_sweep(store, load=True)), made.cube)
    sweep.pack(store)  # a rerun of pack completes and tidies
    assert sweep.status(store, verify=True).packed and _leftovers(tmp_path) == []
    assert_bitwise_equal(unpacked(sweep.open_sweep(store, load=True)), made.cube)


def _pack_killed_in_a_subprocess(store: Path, where: str) -> None:
    """``relmc sweep pack STORE`` in a subprocess that SIGKILLs itself at ``where``."""
    prelude = f"""
import os, signal
import relmc.sweep.store as s
def kill(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)
if {where!r} == "verify":
    s._verify_packed = kill
else:
    real, n = s._rename, [0]
    def rename(a, b):
        n[0] += 1
        if n[0] == 2:
            kill()
        return real(a, b)
    s._rename = rename
"""
    code = f"{prelude}\nfrom relmc.cli import main\nmain(['sweep', 'pack', {str(store)!r}])"
    r = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, timeout=300)
    assert r.returncode == -signal.SIGKILL, r.stderr


@pytest.mark.slow  # a fresh interpreter imports relmc, zarr and dask: ~15 s on 2 cores
@pytest.mark.parametrize("where", ["verify", "between renames"])
def test_a_real_sigkill_while_packing_leaves_a_usable_store(made, tmp_path, where):
    store = copy_store(made, tmp_path / "out.zarr")
    _pack_killed_in_a_subprocess(store, where)
    if where == "verify":  # killed while building: the store is untouched
        assert _leftovers(tmp_path) == [".out.zarr.packed-new"]
        assert not sweep.status(store).packed
    else:
        assert not store.exists()
        assert sweep.status(store, verify=True).packed  # finished by the next reader
    assert_bitwise_equal(unpacked(sweep.open_sweep(store, load=True)), made.cube)
    sweep.pack(store)
    assert sweep.status(store, verify=True).packed and _leftovers(tmp_path) == []


def test_a_cut_swap_whose_new_copy_is_incomplete_gives_the_old_store_back(made, tmp_path):
    """Between the renames the new copy is verified; if it is not a complete packed store (a
    hand-made mess), recovery puts the old store back instead."""
    store = copy_store(made, tmp_path / "out.zarr")
    store.rename(tmp_path / ".out.zarr.packed-old")
    (tmp_path / ".out.zarr.packed-new").mkdir()
    assert sweep.status(store).complete and not sweep.status(store).packed
    assert _leftovers(tmp_path) == []


# -------------------------------------------------------------------- 5. pack at the end of a run


@pytest.mark.slow  # 10-13 s on 2 shared cores (packs, then reads every cell)
def test_run_sweep_pack_with_two_shards_packs_once(made, tmp_path, monkeypatch):
    store = copy_store(made, tmp_path / "out.zarr")
    for flat in (1, 3):  # two cells of shard 1 never ran
        set_done(store, flat, False)
    packs = []
    real = store_mod._write_packed
    monkeypatch.setattr(store_mod, "_write_packed", lambda *a: packs.append(a) or real(*a))
    assert sweep.run_sweep(made.spec, store, shard=0, shards=2, progress=False, pack=True) == []
    assert packs == [] and not sweep.status(store).packed  # shard 0 did not complete it
    assert sweep.run_sweep(made.spec, store, shard=1, shards=2, progress=False, pack=True) == [
        1,
        3,
    ]
    assert len(packs) == 1 and sweep.status(store, verify=True).packed
    for shard in (0, 1):  # requeued tasks: nothing to compute, nothing to pack
        assert sweep.run_sweep(made.spec, store, shard=shard, shards=2, pack=True) == []
    assert len(packs) == 1
    assert_bitwise_equal(unpacked(sweep.open_sweep(store, load=True)), made.cube)


def test_two_packs_at_once_pack_once(made, tmp_path):
    """Two shards that both find the store complete: the lock lets one pack, and the other
    finds it packed (flock locks of two opens conflict within one process too)."""
    store = copy_store(made, tmp_path / "out.zarr")
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(sweep.pack(store))) for _ in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.packed_now for r in results) == [False, True]
    assert_bitwise_equal(unpacked(sweep.open_sweep(store, load=True)), made.cube)


def test_the_cli_run_pack_flag(made, tmp_path, capsys):
    store = copy_store(made, tmp_path / "out.zarr")
    set_done(store, 2, False)
    argv = ["sweep", "run", str(made.spec_file), "--store", str(store), "--no-progress"]
    assert main([*argv, "--pack"]) == 0
    out = capsys.readouterr().out
    assert "computed 1 cells; store: 12/12 cells done" in out
    assert "packed 12 cells: " in out and " files -> " in out
    assert main([*argv, "--pack"]) == 0
    assert "computed 0 cells" in capsys.readouterr().out
    assert_bitwise_equal(unpacked(sweep.open_sweep(store, load=True)), made.cube)
