"""Faults and hostile input (issue 9): nothing lost, one line for every error, bounded resources.

Each section is one mechanism: output sets (check first, stage, move together, run id; a full
disk), sweep stores (checksums and verification, per-cell claims, submit looks first), one-line
errors for hostile input, and honest results when trials do not finish.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from clirun import ENV, one_error_line
from clirun import run_cli as run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sweepspecs import GRID_6

from relmc import sweep
from relmc._io import OutputSet, finish_interrupted
from relmc.cli import main
from relmc.errors import FieldError, NotFinishedWarning


def listing(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders)."""
    return {
        str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(folder.rglob("*"))
    }


# ------------------------------------------------------------------------------ output sets


def test_a_directory_target_fails_before_work_and_replaces_nothing(tmp_path):
    out = tmp_path / "o"
    (out / "posterior.nc").mkdir(parents=True)
    (out / "projection.nc").write_text("OLD")
    before = listing(out)
    t0 = time.perf_counter()
    r = run(
        "project", "--n-gpus", "2048", "--n-trials", "50", "--seed", "1", "--out", out, cwd=tmp_path
    )
    line = one_error_line(r)
    assert "posterior.nc" in line and "directory" in line
    assert listing(out) == before  # nothing replaced, no temporary left
    assert time.perf_counter() - t0 < 60  # refused before the fit and the simulation


@pytest.fixture(scope="module")
def tiny_fs(tmp_path_factory):
    """A 200 KB tmpfs, where root may mount one; else skip (the simulated ENOSPC test runs)."""
    where = tmp_path_factory.mktemp("tiny")
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(where)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    yield where
    subprocess.run(["umount", str(where)], check=False)


def test_disk_full_is_one_line_and_replaces_nothing(tiny_fs, tmp_path):
    out = tiny_fs / "o"
    out.mkdir()
    (out / "projection.nc").write_text("OLD")
    before = listing(out)
    argv = ("project", "--n-gpus", "2048,4096", "--n-trials", "400", "--seed", "1", "--out", out)
    line = one_error_line(run(*argv, cwd=tmp_path))
    assert "No space left on device" in line and "nothing was replaced" in line
    assert listing(out) == before


def test_simulated_enospc_at_each_write_replaces_nothing(tmp_path, capsys, monkeypatch):
    """ENOSPC at the 1st, 2nd, ... write of an output set: exit 2, one line, nothing changed."""
    import relmc._io as io_mod

    out = tmp_path / "o"
    out.mkdir()
    (out / "projection.nc").write_text("OLD")
    before = listing(out)
    real = io_mod.write_bytes
    argv = ["project", "--n-gpus", "2048", "--n-trials", "50", "--seed", "1", "--no-plot"]
    for fail_at in (1, 2, 3):  # two netCDF files, then the commit record
        calls = []

        def write_bytes(path, data, fail_at=fail_at, calls=calls):
            calls.append(path)
            if len(calls) == fail_at:
                raise OSError(28, "No space left on device", str(path))
            real(path, data)

        monkeypatch.setattr(io_mod, "write_bytes", write_bytes)
        assert main([*argv, "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "No space left on device" in err[0], err
        assert listing(out) == before, fail_at


def test_output_set_shares_a_run_id(tmp_path, capsys):
    from relmc.models._common import az

    out = tmp_path / "o"
    argv = ["project", "--n-gpus", "2048", "--n-trials", "50", "--seed", "1", "--no-plot"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    with xr.open_dataset(out / "projection.nc", engine="h5netcdf") as ds:
        run_id = ds.attrs["relmc_run_id"]
    assert az.from_netcdf(str(out / "posterior.nc")).posterior.attrs["relmc_run_id"] == run_id
    assert f"run id {run_id}" in text
    assert sorted(p.name for p in out.iterdir()) == ["posterior.nc", "projection.nc"]


KILL_MID_MOVE = """
import os, relmc._io as io_mod
real = os.replace
def replace(src, dst):
    real(src, dst)
    if str(dst).endswith("projection.nc") and ".relmc-staging-" not in str(dst):
        os._exit(9)  # killed between two renames of one set, into the output folder
io_mod.os.replace = replace
"""


def test_kill_between_renames_is_completed_by_the_next_command(tmp_path):
    out = tmp_path / "o"
    argv = ["project", "--n-gpus", "2048", "--n-trials", "50", "--no-plot", "--out", out]
    assert run(*argv, "--seed", "1", cwd=tmp_path).returncode == 0
    r = run(*argv, "--seed", "2", cwd=tmp_path, prelude=KILL_MID_MOVE)
    assert r.returncode == 9
    # a mixed pair on disk, but marked: the run ids differ and the commit record is there
    with xr.open_dataset(out / "projection.nc", engine="h5netcdf") as ds:
        new_id = ds.attrs["relmc_run_id"]
    staging = list(out.glob(".relmc-staging-*"))
    assert len(staging) == 1 and (staging[0] / "COMMIT").is_file()
    # the next command on the folder (even a failing one) completes the move first
    assert finish_interrupted(out) == [new_id]
    from relmc.models._common import az

    assert az.from_netcdf(str(out / "posterior.nc")).posterior.attrs["relmc_run_id"] == new_id
    assert sorted(p.name for p in out.iterdir()) == ["posterior.nc", "projection.nc"]


def test_kill_before_the_commit_leaves_the_old_set(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    outputs = OutputSet(out, ["a.txt", "b.txt"])
    outputs.check()
    with pytest.raises(KeyboardInterrupt), outputs.stage() as st:
        st.path("a.txt").write_text("new a")
        raise KeyboardInterrupt
    assert listing(out) == {"a.txt": b"old a"}
    with outputs.stage() as st:
        st.path("a.txt").write_text("new a")
        st.path("b.txt").write_text("new b")
    assert listing(out) == {"a.txt": b"new a", "b.txt": b"new b"}


# ------------------------------------------------------------------------------ sweep stores

SPEC = GRID_6


@pytest.fixture()
def spec_file(tmp_path) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(SPEC)
    return p


def test_a_garbled_chunk_of_a_cell_not_done_reads_as_fill(spec_file, tmp_path):
    """A machine crash in the middle of a cell's write: some chunks written (one of them
    garbled), no flag. Loading the cube gives that cell's fill values (NaN) for the garbled
    variable and the rest as before; the same damage in a done cell is named instead."""
    store = tmp_path / "out.zarr"
    assert sweep.run_sweep(spec_file, progress=False) == list(range(6))
    whole = sweep.open_sweep(store, load=True)
    spec = sweep.load_spec(spec_file)
    key = ".".join(map(str, ("c", *spec.cell_index(2))))
    (store / "done" / key).unlink()  # the flag never written
    (store / "ettr_mean" / key).write_bytes(b"\x00garbage" * 3)
    cube = sweep.open_sweep(store, load=True)
    cell = dict(zip(spec.dims, spec.cell_index(2), strict=True))
    assert not bool(cube.done[cell]) and np.isnan(cube.ettr_mean[cell].item())
    expected = whole.ettr_mean.copy()
    expected[cell] = np.nan
    xr.testing.assert_identical(cube.ettr_mean, expected)
    xr.testing.assert_identical(cube.drop_vars(["done", "ettr_mean"]),
                                whole.drop_vars(["done", "ettr_mean"]))  # fmt: skip
    assert sweep.run_sweep(spec_file, progress=False) == [2]  # the next run rewrites it
    xr.testing.assert_identical(sweep.open_sweep(store, load=True), whole)
    # negative control: a done cell with the same garbled chunk is named, not read as fill
    (store / "ettr_mean" / key).write_bytes(b"\x00garbage" * 3)
    with pytest.raises(ValueError, match=r"cells \[2\] are damaged"):
        sweep.open_sweep(store, load=True)


def test_damaged_done_cell_is_found_and_recomputed(spec_file, tmp_path, capsys):
    store = tmp_path / "out.zarr"
    assert sweep.run_sweep(spec_file, progress=False) == list(range(6))
    whole = sweep.open_sweep(store, load=True)
    # a machine crash: one chunk emptied, another garbled (a cell's chunk file is c.i.j)
    spec = sweep.load_spec(spec_file)
    chunks = {
        f: store / "ettr_mean" / ".".join(map(str, ("c", *spec.cell_index(f)))) for f in (1, 4)
    }
    chunks[1].write_bytes(b"")
    chunks[4].write_bytes(b"\x00garbage" * 3)
    st = sweep.status(store, verify=True)
    assert sorted(st.corrupt.tolist()) == [1, 4] and not st.complete
    assert sweep.status(store).complete  # without --verify the flags alone look complete
    # reading the damaged cube names the damaged cells instead of a decompression traceback
    with pytest.raises(ValueError, match=r"cells \[1, 4\] are damaged"):
        sweep.open_sweep(store, load=True)
    assert main(["sweep", "status", str(store), "--verify", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["corrupt"] == [1, 4]
    assert sweep.run_sweep(spec_file, progress=False) == [1, 4]
    assert sweep.status(store, verify=True).complete
    xr.testing.assert_identical(sweep.open_sweep(store, load=True), whole)


CONCURRENT = """
import time, relmc.sweep.running as r
real = r.simulate_cell
def slow(*a, **k):
    time.sleep(0.4)  # long enough that the two runs overlap
    return real(*a, **k)
r.simulate_cell = slow
from relmc.sweep import run_sweep
import json
print(json.dumps(run_sweep(sys.argv[1], progress=False)))
raise SystemExit(0)
"""


def test_concurrent_runs_split_the_cells(spec_file, tmp_path):
    code = "import sys\n" + CONCURRENT
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(spec_file)],
            cwd=tmp_path,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    ]
    time.sleep(3)  # let the first one create the store and start
    procs.append(
        subprocess.Popen(
            [sys.executable, "-c", code, str(spec_file)],
            cwd=tmp_path,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    )
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    a, b = map(set, results)
    assert not a & b  # no cell computed twice
    assert a | b == set(range(6))
    # and bit-identical to one uninterrupted run
    alone = tmp_path / "alone.zarr"
    sweep.run_sweep(spec_file, alone, progress=False)
    xr.testing.assert_identical(
        sweep.open_sweep(tmp_path / "out.zarr", load=True), sweep.open_sweep(alone, load=True)
    )


def test_a_killed_claim_is_not_stuck(spec_file, tmp_path):
    """A process that dies holding a cell's claim leaves it free (the kernel drops flocks)."""
    store = tmp_path / "out.zarr"
    spec = sweep.load_spec(spec_file)
    sweep.init_store(spec, store)
    holder = (
        "import sys, time\nfrom pathlib import Path\nfrom relmc.sweep.store import CellWriter\n"
        "from relmc.sweep import load_spec\n"
        "w = CellWriter(Path(sys.argv[2]), load_spec(sys.argv[1]))\n"
        "with w.claim(3) as got:\n    print(got, flush=True)\n    time.sleep(600)\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", holder, str(spec_file), str(store)],
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert p.stdout.readline().strip() == "True"
    from relmc.sweep.store import CellWriter

    w = CellWriter(store, spec)
    with w.claim(3) as got:
        assert not got  # held by the other process
    p.kill()
    p.wait(timeout=60)
    p.stdout.close()
    with w.claim(3) as got:
        assert got
    assert sweep.run_sweep(spec_file, progress=False) == list(range(6))


def test_submit_without_sbatch_creates_nothing(spec_file, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    before = listing(tmp_path)
    with pytest.raises(RuntimeError, match="sbatch not found"):
        sweep.submit(spec_file)
    assert listing(tmp_path) == before


def _fake_sbatch(tmp_path, monkeypatch, test_only: str, submit: str) -> None:
    """Put an ``sbatch`` on PATH that prints ``test_only`` (exit 1) for ``--test-only`` and
    runs ``submit`` (shell) otherwise."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "sbatch"
    script.write_text(
        f'#!/bin/sh\ncase "$1" in --test-only) echo "{test_only}" >&2; exit 1;; esac\n{submit}\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize(
    ("test_only", "refused"),
    [
        ("sbatch: error: invalid partition specified: nope", True),
        ("sbatch: error: Invalid --time specification", True),
        ("sbatch: error: Batch job submission failed: Unable to contact slurm controller", False),
    ],
)
def test_submit_refusal_of_options_is_bad_input_other_failures_are_not(
    spec_file, tmp_path, monkeypatch, test_only, refused
):
    _fake_sbatch(tmp_path, monkeypatch, test_only, 'echo "sbatch: error: down" >&2; exit 1')
    store = tmp_path / "s.zarr"
    if refused:  # an option Slurm refuses: bad input, nothing written
        with pytest.raises(ValueError, match="sbatch refused the job .*nothing was written"):
            sweep.submit(spec_file, store=store)
        assert not store.exists()
    else:  # the check itself failed: the submission decides (here it fails too: exit 1)
        with pytest.raises(RuntimeError, match=r"sbatch failed \(1\): sbatch: error: down"):
            sweep.submit(spec_file, store=store)


def test_a_failed_or_cancelled_task_under_wait_is_exit_status_1(spec_file, tmp_path,
                                                               monkeypatch, capsys):  # fmt: skip
    # sbatch --wait exits non-zero when a task failed or was cancelled after Slurm accepted
    # the job (its id already printed): one line naming the job, its logs and the store,
    # and exit status 1 (not 2: nothing was wrong with the input), as --help says
    cancelled = 'echo "42"; echo "srun: task 0: CANCELLED" >&2; exit 1'
    _fake_sbatch(tmp_path, monkeypatch, "sbatch: Job 1 to start", cancelled)
    store = tmp_path / "s.zarr"
    assert main(["sweep", "submit", str(spec_file), "--store", str(store), "--wait"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: Slurm job 42 ended with a failed")
    assert "slurm-42_*.out" in err[0] and f"relmc sweep status {store}" in err[0]
    assert "(sbatch --wait exit 1: srun: task 0: CANCELLED)" in err[0]  # what sbatch said
    # negative control: every task done, exit 0
    _fake_sbatch(tmp_path, monkeypatch, "sbatch: Job 1 to start", 'echo "43"; exit 0')
    assert main(["sweep", "submit", str(spec_file), "--store", str(store), "--wait"]) == 0
    assert "submitted job 43" in capsys.readouterr().out


def test_an_sbatch_killed_by_a_signal_is_a_failure_not_a_success(spec_file, tmp_path,
                                                                  monkeypatch):  # fmt: skip
    # a negative exit status (sbatch killed by a signal: -9, -1) is not 0: under --wait after
    # the job was accepted, the job is named as failed; in the options check, a refusal it
    # printed before it died is still a refusal (nothing written)
    store = tmp_path / "s.zarr"
    _fake_sbatch(tmp_path, monkeypatch, "sbatch: Job 1 to start", 'echo "44"; kill -9 $$')
    with pytest.raises(RuntimeError, match=r"Slurm job 44 ended with a failed task .*exit -9"):
        sweep.submit(spec_file, store=store, wait=True)
    script = tmp_path / "fake-bin" / "sbatch"
    script.write_text(
        '#!/bin/sh\ncase "$1" in --test-only) echo "sbatch: error: invalid partition" >&2; '
        'kill -HUP $$;; esac\necho "45"\n'
    )
    other = tmp_path / "t.zarr"
    with pytest.raises(ValueError, match="sbatch refused the job .*nothing was written"):
        sweep.submit(spec_file, store=other)
    assert not other.exists()
    with pytest.raises(TypeError):  # the store and the rest are keywords only
        sweep.submit(spec_file, other)


def test_submit_makes_its_working_folder_and_names_an_sbatch_gone(spec_file, tmp_path,
                                                                  monkeypatch):  # fmt: skip
    # the script and logs go to a working folder made with its parents
    # (the id is what --parsable prints before a cluster's name); sbatch waits only if asked
    args = tmp_path / "args.txt"
    _fake_sbatch(tmp_path, monkeypatch, "sbatch: Job 1 to start",
                 f'echo "$@" > {args}; echo "46;cluster2"')  # fmt: skip
    work = tmp_path / "a" / "b" / "logs"
    assert sweep.submit(spec_file, store=tmp_path / "s.zarr", workdir=work) == "46"
    assert (work / "sweep.sbatch").read_text().startswith("#!/bin/bash")
    assert args.read_text().split() == ["--parsable", "--output=slurm-%A_%a.out",
                                        str(work / "sweep.sbatch")]  # fmt: skip
    assert sweep.submit(spec_file, store=tmp_path / "s.zarr", workdir=work, wait=True) == "46"
    assert "--wait" in args.read_text().split()
    # an sbatch that is gone by the submission (it removes itself in its options check) is
    # named; the only sbatch on PATH is that one
    gone = tmp_path / "gone-bin"
    gone.mkdir()
    (gone / "sbatch").write_text('#!/bin/sh\n/bin/rm -- "$0"\nexit 1\n')
    (gone / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", str(gone))
    with pytest.raises(RuntimeError, match="sbatch not found"):
        sweep.submit(spec_file, store=tmp_path / "t.zarr")
    assert not (gone / "sbatch").exists()


def test_submit_of_a_complete_store_submits_nothing_even_without_sbatch(
    spec_file, tmp_path, monkeypatch
):
    sweep.run_sweep(spec_file, progress=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    before = listing(tmp_path)
    assert sweep.submit(spec_file) == ""  # every cell done: no array, no sbatch needed
    assert listing(tmp_path) == before


def test_grid_cell_cap_is_checked_before_the_scenarios(tmp_path):
    big = {"seed": 1, "axes": {"policy.restart_hours": [0.001 * (i + 1) for i in range(400)]}}
    big["axes"]["policy.swap_hours"] = [0.001 * (i + 1) for i in range(400)]
    t0 = time.perf_counter()
    with pytest.raises(FieldError, match="160,000 cells") as e:
        sweep.SweepSpec.from_dict(big)
    assert e.value.field == "axes"
    assert time.perf_counter() - t0 < 5


def test_read_only_store_is_one_line(spec_file, tmp_path):
    """A store on a read-only file system: one line, exit 2 (root ignores chmod: remount ro)."""
    fs = tmp_path / "fs"
    fs.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(fs)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        sweep.init_store(sweep.load_spec(spec_file), fs / "out.zarr")
        subprocess.run(["mount", "-o", "remount,ro", str(fs)], check=True)
        r = run(
            "sweep", "run", spec_file, "--store", fs / "out.zarr", "--no-progress", cwd=tmp_path
        )
        assert "Read-only file system" in one_error_line(r)
    finally:
        subprocess.run(["umount", str(fs)], check=False)


# ------------------------------------------------------------------------------ one line each


def _files(tmp_path: Path) -> dict[str, str | bytes]:
    big_count = "category,count,exposure,unit\nx,9223372036854775808,10,gpu\n"
    return {
        "big.csv": big_count,
        "field.csv": "category,count,exposure,unit\n" + "x" * 200_000 + ",1,10,gpu\n",
        "cats.toml": "[failures]\ncategories = [1, 2]\n",
        "noname.toml": "[[failures.categories]]\nrate = 1e-5\n",
        "latin1.toml": b"# caf\xe9\n[cluster]\nn_gpus = 100\n",
        "latin1-spec.toml": b"# caf\xe9\nseed = 1\n",
        "rate.toml": "[[failures.categories]]\nname = 'a'\nrate = 1e300\n"
        "[cluster]\nn_gpus = 100000000\n",
        "ok.csv": "category,count,unit\nx,3,gpu\n",
    }


HOSTILE = [
    (["fit", "--counts", "big.csv"], "'count' must be at most"),
    (["fit", "--counts", "field.csv"], "not valid CSV"),
    (["fit", "--counts", "adir"], "directory"),
    (["simulate", "cats.toml"], "failures.categories[0]"),
    (["simulate", "noname.toml"], "'name' is required"),
    (["simulate", "latin1.toml"], "'latin1.toml' is not UTF-8"),
    (["simulate", "rate.toml"], "failures.categories['a'].rate"),
    (["simulate", "adir"], "directory"),
    (["sweep", "run", "adir"], "sweep spec: 'adir' is a directory"),
    (["sweep", "run", "latin1-spec.toml"], "sweep spec: 'latin1-spec.toml' is not UTF-8"),
    (["sweep", "status", "adir"], "not a relmc sweep store"),
    (
        ["fit", "--counts", "ok.csv", "--observed-gpus", "8", "--observed-hours", "-1"],
        "--observed-hours",
    ),
    (["project", "--compute-days", "1e12"], "job.compute_hours"),
    # found by an audit of every flag at its numeric limits: each was refused only after the
    # fit, named another field, or ended in a traceback
    (["project", "--snapshot-hours", "1e300"], "policy.snapshot_hours: with these overheads"),
    (["project", "--swap-hours", "1e300"], "(option --swap-hours)"),
    (["project", "--maintenance-per-day", "1e11"], "failures.maintenance_rate: with these"),
    (["project", "--maintenance-rate", "1e300"], "failures.maintenance_rate must be a number"),
    (["project", "--wall-cap-factor", "1e300"], "(option --wall-cap-factor)"),
    (["project", "--lemon-failures", "99999999999999999999"], "policy.lemon_failures"),
    (["project", "--retire-after-repairs", "99999999999999999999"], "retire_after_repairs"),
    (["project", "--checkpoint-interval", "young", "--snapshot-hours", "0"], "(option --snap"),
    (["project", "--trials-per-draw", "1000000000"], "--trials-per-draw: must be an integer in"),
    (["project", "--n-chains", "1000000000000"], "--n-chains: must be an integer in [1, 1000]"),
    (["project", "--n-draws", "1000000000000"], "--n-draws: must be an integer in"),
    (["project", "--links-per-gpu", "1e300"], "cluster.links_per_gpu must be a number in"),
    # a policy's integer below its range is the scenario's to refuse, naming the range (the
    # parser's own bound, -2**62, only keeps the number a machine integer)
    (
        ["project", "--max-events", "-1000"],
        "policy.max_events must be an integer in [1, 2147483647]; got -1000 (option --max",
    ),
    (
        ["compare", "--n-gpus", "0"],
        "n_gpus must be an integer in [1, 1e8]; got 0 (option --n-gpus)",
    ),
]


@pytest.mark.parametrize(("argv", "text"), HOSTILE, ids=[" ".join(a) for a, _ in HOSTILE])
def test_hostile_input_is_one_line_before_any_work(argv, text, tmp_path, capsys, monkeypatch):
    import relmc.cli.inputs as inputs

    monkeypatch.chdir(tmp_path)
    for name, content in _files(tmp_path).items():
        p = tmp_path / name
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
    (tmp_path / "adir").mkdir()

    def no_fit(*a, **k):
        raise AssertionError("the input alone shows the problem: no fit")

    monkeypatch.setattr(inputs, "fit_posterior", no_fit)
    before = listing(tmp_path)
    extra = [] if argv[0] == "sweep" else ["--out", str(tmp_path / "out")]
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("relmc: error: "), err
    assert text in err[0], err[0]
    assert listing(tmp_path) == before


def test_compute_hours_is_blamed_with_its_flag(tmp_path, capsys):
    assert main(["project", "--compute-days", "1e12", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip().endswith("(option --compute-days 1e12)")


def test_memory_needs_are_checked_up_front(monkeypatch, tmp_path, capsys):
    import relmc._io as io_mod

    monkeypatch.setattr(io_mod, "available_memory", lambda: 2**30)
    argv = ["project", "--n-trials", "10000000", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "n_trials=10,000,000 needs about" in err and err.endswith("(option --n-trials)")


def test_huge_input_file_is_refused_with_little_memory(tmp_path):
    big = tmp_path / "huge.csv"
    with big.open("wb") as f:  # 1 GB of one long line, sparse on disk
        f.write(b"category,count,exposure,unit\n")
        f.truncate(2**30)
    code = (
        "import sys\nfrom relmc.cli import main\nrc = main(sys.argv[1:])\n"
        # this process's own peak (VmHWM); ru_maxrss would include the parent's peak, which a
        # child inherits through fork on Linux
        "peak = [x.split()[1] for x in open('/proc/self/status') if x.startswith('VmHWM')][0]\n"
        "print(peak)\nraise SystemExit(rc)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, "fit", "--counts", str(big), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert r.returncode == 2, r.stderr
    assert "larger than 16 MiB" in r.stderr
    assert int(r.stdout.strip()) < 1_000_000  # KiB: well under 1 GB peak


def test_argparse_and_handler_errors_share_the_prefix(tmp_path):
    for argv in (["project", "--bogus"], ["sweep", "run"], ["fit", "--n-draws", "x"]):
        assert one_error_line(run(*argv, cwd=tmp_path))


def test_numpy_integers_are_accepted(tmp_path):
    import relmc

    sc = relmc.Scenario.default()
    res = relmc.simulate(sc, n_trials=np.int64(4), seed=np.int64(1), n_threads=np.int64(2))
    assert res.sizes["trial"] == 4
    assert list(sweep.shard_cells(np.int64(5), np.int64(1), np.int64(2))) == [1, 3]


def test_non_numeric_rates_are_refused():
    import relmc
    from relmc.rates import rate_draws

    sc = relmc.Scenario(failures=relmc.FailureModel((relmc.Category("a", rate=1e-5),)))
    for bad in (np.array([[1 + 1j]]), np.array([["x"]]), np.array([[True]])):
        da = xr.DataArray(bad, dims=("draw", "category"), coords={"category": ["a"]})
        with pytest.raises(FieldError, match="rates must be numbers"):
            rate_draws(sc, da)


# ------------------------------------------------------------------------------ hopeless regimes


def _hopeless():
    import relmc

    return relmc.Scenario(
        failures=relmc.FailureModel((relmc.Category("a", rate=1.0, unit="job"),)),
        job=relmc.Job(10.0),
        policy=relmc.Policy(restart_hours=10.0, checkpoint_interval=0.5, snapshot_hours=0.01),
    )


def test_project_warns_when_trials_do_not_finish():
    import relmc

    with pytest.warns(NotFinishedWarning, match="100% of trials did not finish"):
        relmc.project(None, n_gpus=[2048], scenario=_hopeless(), n_trials=20, seed=1)
    # stopped by the event budget, far below the cap: the warning names both, not the cap alone
    budget = relmc.Scenario(
        failures=relmc.FailureModel((relmc.Category("a", rate=1e-4),)),
        job=relmc.Job(1000.0),
        policy=relmc.Policy(max_events=20),
    )
    with pytest.warns(NotFinishedWarning, match="cap .* or the event budget .policy.max_events"):
        p = relmc.project(None, n_gpus=[2048], scenario=budget, n_trials=20, seed=1)
    assert float(p["finished_fraction"][0]) == 0.0
    assert float(p["wall_hours_mean"][0]) < 0.1 * 20 * 1000.0  # far below the 20x cap


def test_optimize_refuses_an_optimum_when_nothing_finishes():
    from relmc.optimize import optimize_checkpoint

    with pytest.raises(ValueError, match="no optimum"):
        optimize_checkpoint(None, _hopeless(), intervals=[0.2, 0.5], n_trials=20, seed=1)


def test_cluster_rate_overflow_names_the_field():
    import relmc

    sc = relmc.Scenario(
        cluster=relmc.Cluster(n_gpus=100_000_000),
        failures=relmc.FailureModel((relmc.Category("a", rate=1e300),)),
    )
    with pytest.raises(FieldError, match="overflows") as e:
        relmc.simulate(sc, n_trials=2)
    assert e.value.field == "failures.categories['a'].rate"


# ------------------------------------------------------------------------------ property-based

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)
CELL = st.one_of(
    TEXT.filter(lambda s: "\n" not in s and "\r" not in s),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["nan", "inf", "-1", "1e400", '"', "gpu", "node", "job", ""]),
)
CSV = st.lists(st.lists(CELL, min_size=1, max_size=6), max_size=5).map(
    lambda rows: "category,count,exposure,unit\n" + "\n".join(",".join(r) for r in rows)
)
TOML = st.one_of(
    TEXT,
    st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
    st.dictionaries(
        st.sampled_from(["cluster", "job", "policy", "failures", "seed", "axes", "base", "x"]),
        st.one_of(
            st.integers(-(2**70), 2**70),
            st.floats(allow_nan=True),
            TEXT,
            st.dictionaries(
                st.sampled_from(["n_gpus", "rate", "categories", "restart_hours", "a.b"]),
                st.one_of(st.integers(-(2**70), 2**70), TEXT, st.lists(st.integers(), max_size=3)),
                max_size=3,
            ),
        ),
        max_size=4,
    ).map(lambda d: "\n".join(f"{k} = {json.dumps(v)}" for k, v in d.items())),
)


def _check_contract(argv, tmp_path, capsys) -> None:
    before = listing(tmp_path)
    rc = main(argv)
    cap = capsys.readouterr()
    if rc == 0:
        return  # the random input happened to be valid
    assert rc == 2, (rc, cap.err)
    lines = cap.err.strip().splitlines()
    errors = [ln for ln in lines if not ln.startswith("relmc: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("relmc: error: "), cap.err
    assert "Traceback" not in cap.err
    assert listing(tmp_path) == before  # nothing new written


FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(text=CSV)
def test_fuzz_counts_csv(text, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("csv")
    (d / "c.csv").write_text(text, encoding="utf-8", errors="surrogatepass")
    _check_contract(
        ["fit", "--counts", str(d / "c.csv"), "--n-draws", "5", "--out", str(d / "o")], d, capsys
    )


@FUZZ
@given(text=TOML)
def test_fuzz_scenario_toml(text, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("toml")
    (d / "s.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    argv = ["simulate", str(d / "s.toml"), "--n-trials", "2", "--out", str(d / "o")]
    _check_contract(argv, d, capsys)


@FUZZ
@given(text=TOML)
def test_fuzz_sweep_spec(text, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("spec")
    (d / "spec.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    _check_contract(["sweep", "run", str(d / "spec.toml"), "--store", str(d / "s.zarr")], d, capsys)


@pytest.mark.parametrize(
    ("exc", "status", "line"),
    [
        (KeyboardInterrupt(), 130, "relmc: interrupted"),  # 128 + SIGINT, as shells report
        (RuntimeError("sbatch failed"), 1, "relmc: error: sbatch failed"),
        (ValueError("bad x"), 2, "relmc: error: bad x"),
        (MemoryError(), 2, "relmc: error: out of memory; use fewer trials, draws or cells"),
    ],
)
def test_error_handler_statuses(exc, status, line, capsys):
    """The command's one handler: each kind of failure its exit status and its one stderr
    line, no traceback (relmc.cli.errors.run_command)."""
    import argparse

    from relmc.cli.errors import run_command

    def fails(args):
        raise exc

    assert run_command(fails, argparse.Namespace()) == status
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(line), err
