"""A sweep on a real Dask cluster (worker processes) equals the local run, bit for bit."""

from __future__ import annotations

import pytest
import xarray as xr

from relmc import sweep
from relmc.cli import main as cli_main

pytestmark = pytest.mark.integration


def test_dask_localcluster_equals_local(small_spec, tmp_path):
    from distributed import Client, LocalCluster

    local = tmp_path / "local.zarr"
    sweep.run_sweep(small_spec, local, progress=False)
    # half the cells locally first: Dask must fill in only the rest
    store = tmp_path / "dask.zarr"
    sweep.run_sweep(small_spec, store, shard=0, shards=2, progress=False)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        done = sweep.run_sweep(small_spec, store, client=client, n_threads=1, progress=False)
        address = cluster.scheduler_address
        assert done == list(range(1, 8, 2))
        # the CLI path: --dask ADDRESS on a fresh store
        fresh = tmp_path / "cli.zarr"
        assert (
            cli_main(
                [
                    "sweep",
                    "run",
                    str(small_spec),
                    "--store",
                    str(fresh),
                    "--dask",
                    address,
                    "--n-threads",
                    "1",
                    "--no-progress",
                ]
            )
            == 0
        )
    expected = sweep.open_sweep(local, load=True)
    xr.testing.assert_identical(sweep.open_sweep(store, load=True), expected)
    xr.testing.assert_identical(sweep.open_sweep(fresh, load=True), expected)


@pytest.mark.parametrize("address", ["notanaddress", "tcp://127.0.0.1:1"])
def test_a_bad_dask_address_is_refused_before_the_store_is_written(
    small_spec, tmp_path, capsys, monkeypatch, address
):
    """A malformed address, or one where no scheduler answers (a 1-s connect timeout here),
    is refused naming --dask, and no store is made for nothing."""
    import relmc.sweep.running as running

    monkeypatch.setattr(running, "CONNECT_SECONDS", 1.0)
    store = tmp_path / "f.zarr"
    argv = ["sweep", "run", str(small_spec), "--store", str(store), "--dask", address]
    assert cli_main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("relmc: error: client: ") and err.rstrip().endswith("(option --dask)")
    assert not store.exists()
    # negative control: the same spec runs locally into that store
    assert cli_main(["sweep", "run", str(small_spec), "--store", str(store), "--no-progress"]) == 0
    assert store.exists()
