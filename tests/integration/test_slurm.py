"""A sweep as a real Slurm job array equals the local run, bit for bit."""

from __future__ import annotations

import sys

import pytest
import xarray as xr

from relmc import sweep
from relmc.sweep import SlurmOptions

pytestmark = pytest.mark.integration


def test_slurm_array_equals_local(slurm, small_spec, tmp_path):
    local = tmp_path / "local.zarr"
    sweep.run_sweep(small_spec, local, progress=False)
    store = tmp_path / "slurm.zarr"
    opts = SlurmOptions(array=3, partition="debug", time="00:10:00", python=sys.executable)
    job = sweep.submit(small_spec, store=store, options=opts, wait=True)
    assert job.isdigit()
    logs = sorted((tmp_path / "slurm.zarr.slurm").glob("slurm-*.out"))
    assert len(logs) == 3, logs  # one log per array task
    st = sweep.status(store)
    assert st.complete, (st, [p.read_text() for p in logs])
    xr.testing.assert_identical(
        sweep.open_sweep(store, load=True), sweep.open_sweep(local, load=True)
    )
    # a resubmission of a complete store submits nothing and changes nothing
    assert sweep.submit(small_spec, store=store, options=opts, wait=True) == ""
    assert len(sorted((tmp_path / "slurm.zarr.slurm").glob("slurm-*.out"))) == 3
    xr.testing.assert_identical(
        sweep.open_sweep(store, load=True), sweep.open_sweep(local, load=True)
    )


def test_slurm_array_on_a_partly_done_store_shares_the_missing_cells(slurm, small_spec, tmp_path):
    """Shards 0-3 of 8 done locally: the array's tasks share the other half, one cell each."""
    local = tmp_path / "local.zarr"
    sweep.run_sweep(small_spec, local, progress=False)
    store = tmp_path / "part.zarr"
    for shard in range(4):
        sweep.run_sweep(small_spec, store, shard=shard, shards=8, progress=False)
    missing = sweep.status(store).missing.tolist()
    assert missing == [4, 5, 6, 7]  # 8 cells: shards 4-7, one cell each
    opts = SlurmOptions(array=8, partition="debug", time="00:10:00", python=sys.executable)
    script = sweep.submit(small_spec, store=store, options=opts, dry_run=True)
    assert "#SBATCH --array=0-3" in script  # at most one task a missing cell
    assert "--cells - <<'RELMC_CELLS'\n4-7\nRELMC_CELLS" in script
    job = sweep.submit(small_spec, store=store, options=opts, wait=True)
    logs = sorted((tmp_path / "part.zarr.slurm").glob(f"slurm-{job}_*.out"))
    assert len(logs) == 4
    # every task computed one cell (before: tasks 0-3 of shards 0-3 had nothing to do)
    assert all(p.read_text().startswith("computed 1 cells;") for p in logs), [
        p.read_text() for p in logs
    ]
    xr.testing.assert_identical(
        sweep.open_sweep(store, load=True), sweep.open_sweep(local, load=True)
    )


def test_slurm_submit_from_the_command_line_reports_the_store(slurm, small_spec, tmp_path, capsys):
    from relmc.cli import main

    store = tmp_path / "cli.zarr"
    argv = ["sweep", "submit", str(small_spec), "--store", str(store), "--array", "2"]
    argv += ["--partition", "debug", "--time", "00:10:00", "--python", sys.executable, "--wait"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    # the id as soon as Slurm accepted the job, before the wait
    assert out[0].startswith("submitted job ") and out[0].split()[2].isdigit(), out
    assert out[0].endswith("(waiting for its tasks)"), out
    n = sweep.status(store).n_cells
    assert out[1] == f"store: {n}/{n} cells done, 0 missing", out  # after every task ended
    assert main(argv) == 0  # complete: nothing to submit
    assert capsys.readouterr().out.strip() == f"nothing to submit: {n}/{n} cells done, 0 missing"


def test_slurm_refusal_writes_nothing_and_a_failed_task_is_named(
    slurm, small_spec, tmp_path, capsys
):
    from relmc.cli import main

    store = tmp_path / "s.zarr"
    base = ["sweep", "submit", str(small_spec), "--store", str(store), "--array", "2"]
    base += ["--time", "00:10:00"]
    # an option Slurm refuses (sbatch --test-only): exit 2, no store, no script folder
    assert main([*base, "--partition", "nope", "--python", sys.executable]) == 2
    err = capsys.readouterr().err
    assert "sbatch refused the job" in err and "nothing was written" in err, err
    assert not store.exists() and not (tmp_path / "s.zarr.slurm").exists()
    # tasks that fail (no such Python): the job's id first, then an error naming it and
    # where its logs are, not "sbatch failed"
    argv = [*base, "--partition", "debug", "--python", str(tmp_path / "no-python"), "--wait"]
    assert main(argv) == 1
    printed = capsys.readouterr()
    job = printed.out.split()[2]
    assert printed.out.startswith("submitted job ") and job.isdigit(), printed.out
    assert f"Slurm job {job} ended with a failed task" in printed.err, printed.err
    assert f"slurm-{job}_*.out" in printed.err and "relmc sweep status" in printed.err
    assert sweep.status(store).done.size == 0
    # negative control: the same submission with a working Python completes
    ok = [*base, "--partition", "debug", "--python", sys.executable, "--wait"]
    assert main(ok) == 0
    assert sweep.status(store).complete


def test_dask_jobqueue_slurmcluster_equals_local(slurm, small_spec, tmp_path):
    from dask_jobqueue import SLURMCluster
    from distributed import Client

    local = tmp_path / "local.zarr"
    sweep.run_sweep(small_spec, local, progress=False)
    store = tmp_path / "jq.zarr"
    # a single-node Slurm on localhost: loopback only, one 1-core worker per job
    with SLURMCluster(
        cores=1,
        processes=1,
        memory="1GB",
        walltime="00:10:00",
        queue="debug",
        interface="lo",
        log_directory=str(tmp_path / "logs"),
        local_directory=str(tmp_path / "dask"),
        death_timeout=60,
        python=sys.executable,
        # the dashboard on a free port: a fixed 8787 held by anything else on the machine
        # makes distributed warn, which the test run turns into an error
        scheduler_options={"dashboard_address": ":0"},
    ) as cluster:
        cluster.scale(jobs=2)
        with Client(cluster) as client:
            client.wait_for_workers(2, timeout=120)
            sweep.run_sweep(small_spec, store, client=client, n_threads=1, progress=False)
    xr.testing.assert_identical(
        sweep.open_sweep(store, load=True), sweep.open_sweep(local, load=True)
    )
