"""Sweep throughput: local threads vs local processes vs Dask vs a Slurm job array.

The issue's grid: 20 cluster sizes (2k..1M GPUs, log-spaced) x 8 checkpoint intervals x 4 restart
times = 640 cells, 2,000 posterior draws (one trial per draw) per cell, on 2 cores::

    python benchmarks/bench_sweep.py                       # full grid (long)
    # quick:
    python benchmarks/bench_sweep.py --n-sizes 4 --n-intervals 2 --n-restarts 2 --n-trials 500

Prints wall time and cells/s of each path and the overhead of each relative to the best local
path (same cells, same bits: every path writes an identical cube, checked at the end).
Slurm runs only if ``sbatch`` answers (``.ci/slurm_local.sh start``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def spec_text(args) -> str:
    sizes = np.geomspace(2048, args.max_gpus, args.n_sizes).round(-3).astype(int)
    sizes = np.unique(sizes).tolist()
    intervals = np.round(np.geomspace(5 / 60, 4.0, args.n_intervals), 4).tolist()
    restarts = np.round(np.geomspace(2 / 60, 1.0, args.n_restarts), 4).tolist()
    return f"""\
seed = 20261129
n_trials = {args.n_trials}
posterior = "{args.posterior}"
n_draws = {args.n_trials}
quantiles = [0.05, 0.5, 0.95]

[base.job]
compute_hours = {args.compute_hours}

{precision_table(args)}[axes]
"cluster.n_gpus" = {sizes}
"policy.checkpoint_interval" = {intervals}
"policy.restart_hours" = {restarts}
"""


def precision_table(args) -> str:
    """The spec's [precision] table from --hopeless-ettr / --target-rse (empty when neither)."""
    rows = []
    if args.hopeless_ettr is not None:
        rows.append(f"hopeless_ettr = {args.hopeless_ettr}")
    if args.target_rse is not None:
        rows.append(f"target_rse = {args.target_rse}")
    return "[precision]\n" + "\n".join(rows) + "\n\n" if rows else ""


def timed(label, fn, n_cells, results):
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    results[label] = dt
    print(f"{label:<34s} {dt:9.2f} s   {n_cells / dt:8.2f} cells/s", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-sizes", type=int, default=20, help="cluster sizes, log-spaced")
    p.add_argument("--n-intervals", type=int, default=8, help="checkpoint intervals")
    p.add_argument("--n-restarts", type=int, default=4, help="restart times")
    p.add_argument("--max-gpus", type=int, default=1_048_576, help="largest cluster size")
    p.add_argument("--n-trials", type=int, default=2000, help="trials = posterior draws per cell")
    p.add_argument("--compute-hours", type=float, default=54 * 24.0)
    p.add_argument("--posterior", default="conjugate:llama3-405b")
    p.add_argument("--skip", nargs="*", default=[], help="paths to skip: single procs dask slurm")
    p.add_argument(
        "--hopeless-ettr",
        type=float,
        help="adaptive precision: stop a cell once mean ETTR + 4 SE is below this",
    )
    p.add_argument(
        "--target-rse", type=float, help="adaptive precision: relative SE target of mean ETTR"
    )
    args = p.parse_args()

    from relmc import sweep

    tmp = Path(tempfile.mkdtemp(prefix="bench_sweep_"))
    spec_path = tmp / "spec.toml"
    spec_path.write_text(spec_text(args))
    spec = sweep.SweepSpec.from_toml(spec_path)
    n = spec.n_cells
    cores = len(os.sched_getaffinity(0))
    print(f"grid {spec.shape} = {n} cells x {spec.n_trials} trials, posterior {spec.posterior}, "
          f"{cores} cores")  # fmt: skip
    # warm-up: numba compile/cache load, posterior fit, imports (not part of any timing)
    warm = tmp / "warm.zarr"
    sweep.run_sweep(spec_path, warm, shard=0, shards=n, progress=False)

    results: dict[str, float] = {}
    stores: dict[str, Path] = {}

    def local(label, **kw):
        store = stores.setdefault(label, tmp / f"{label}.zarr")
        timed(label, lambda: sweep.run_sweep(spec_path, store, progress=False, **kw), n, results)

    if "single" not in args.skip:
        local("local, 1 process x 1 thread", workers=1, n_threads=1)
    local(f"local, 1 process x {cores} threads", workers=1, n_threads=cores)
    if "procs" not in args.skip:
        local(f"local, {cores} processes x 1 thread", workers=cores, n_threads=1)

    if "dask" not in args.skip:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(n_workers=cores, threads_per_worker=1, dashboard_address=None) as c,
            Client(c) as client,
        ):
            client.run(lambda: __import__("relmc.sweep"))  # warm the workers' imports
            local(f"dask, {cores} workers x 1 thread", client=client, n_threads=1)

    if "slurm" not in args.skip and shutil.which("sbatch"):
        store = stores.setdefault("slurm", tmp / "slurm.zarr")
        opts = sweep.SlurmOptions(array=cores, cpus_per_task=1, python=sys.executable)

        def slurm():
            sweep.submit(spec_path, store=store, options=opts, wait=True)

        timed(f"slurm array, {cores} tasks x 1 cpu", slurm, n, results)
    elif "slurm" not in args.skip:
        print("slurm: sbatch not found, skipped")

    best_local = min(v for k, v in results.items() if k.startswith("local"))
    print("\noverhead relative to the fastest local path (1.00 = same wall time):")
    for k, v in results.items():
        print(f"  {k:<34s} {v / best_local:6.2f}x")

    # every path must have written the same cube, bit for bit
    cubes = {k: sweep.open_sweep(s, load=True) for k, s in stores.items()}
    first = next(iter(cubes.values()))
    same = all(c.identical(first) for c in cubes.values())
    print(f"\nall cubes identical: {same}")
    if "stopped_code" in first:
        meanings = first["stopped_code"].attrs["flag_meanings"].split()
        codes, counts = np.unique(first["stopped_code"].values, return_counts=True)
        stops = ", ".join(f"{meanings[c]} {k}" for c, k in zip(codes, counts, strict=True))
        print(f"cells by stop: {stops}; trials run: {int(first['n_trials'].sum()):,}")
    shutil.rmtree(tmp, ignore_errors=True)
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
