"""Adaptive precision on the issue-5 sweep grid: the same precision on the cells that matter.

    python benchmarks/bench_precision.py                   # 608 cells, ~3 min on 2 cores
    python benchmarks/bench_precision.py --n-sizes 4 --n-intervals 2 --n-restarts 2   # quick

Runs the grid twice with the same seeds: fixed (2,000 trials per cell) and adaptive. A cell
"matters" if its mean ETTR is at least ``--useful`` (default 0.1): below that, no operator runs
the job. The adaptive run asks every cell for the worst standard error the fixed run achieved
on the cells that matter (``target_se``), so each of them is at least as precise as the fixed
design guaranteed, and stops a cell as hopeless once mean ETTR + 4 SE is below ``--useful``.
Prints both wall times, their ratio, and checks the guarantee on the adaptive cube.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_sweep import spec_text


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-sizes", type=int, default=20)
    p.add_argument("--n-intervals", type=int, default=8)
    p.add_argument("--n-restarts", type=int, default=4)
    p.add_argument("--max-gpus", type=int, default=131_072)
    p.add_argument("--n-trials", type=int, default=2000)
    p.add_argument("--compute-hours", type=float, default=54 * 24.0)
    p.add_argument("--posterior", default="conjugate:llama3-405b")
    p.add_argument("--useful", type=float, default=0.1, help="ETTR below which a cell is moot")
    args = p.parse_args()
    args.hopeless_ettr = None
    args.target_rse = None

    from relmc import sweep

    tmp = Path(tempfile.mkdtemp(prefix="bench_precision_"))
    fixed_spec = tmp / "fixed.toml"
    fixed_spec.write_text(spec_text(args))
    n = sweep.SweepSpec.from_toml(fixed_spec).n_cells
    sweep.run_sweep(fixed_spec, tmp / "warm.zarr", shard=0, shards=n, progress=False)

    t0 = time.perf_counter()
    sweep.run_sweep(fixed_spec, tmp / "fixed.zarr", progress=False)
    t_fixed = time.perf_counter() - t0
    fixed = sweep.open_sweep(tmp / "fixed.zarr", load=True)
    matters = (fixed["ettr_mean"] >= args.useful).values
    target = float(fixed["ettr_se"].values[matters].max())
    print(
        f"fixed: {n} cells x {args.n_trials} trials in {t_fixed:.1f} s; {int(matters.sum())} "
        f"cells with mean ETTR >= {args.useful}; their worst SE {target:.2e}"
    )

    adaptive_spec = tmp / "adaptive.toml"
    adaptive_spec.write_text(
        spec_text(args).replace(
            "[axes]",
            f"[precision]\ntarget_se = {target!r}\nhopeless_ettr = {args.useful}\n\n[axes]",
        )
    )
    t0 = time.perf_counter()
    sweep.run_sweep(adaptive_spec, tmp / "adaptive.zarr", progress=False)
    t_adaptive = time.perf_counter() - t0
    ad = sweep.open_sweep(tmp / "adaptive.zarr", load=True)
    meanings = ad["stopped_code"].attrs["flag_meanings"].split()
    codes, counts = np.unique(ad["stopped_code"].values, return_counts=True)
    stops = ", ".join(f"{meanings[c]} {k}" for c, k in zip(codes, counts, strict=True))
    ok = ad["ettr_mean"].values >= args.useful
    worst = float(ad["ettr_se"].values[ok].max())
    lost = int((matters & ~ok).sum())
    print(
        f"adaptive: {t_adaptive:.1f} s ({t_fixed / t_adaptive:.2f}x faster); cells by stop: "
        f"{stops}; trials run {int(ad['n_trials'].sum()):,} of {n * args.n_trials:,}"
    )
    print(
        f"worst SE on cells that matter: {worst:.2e} (target {target:.2e}: "
        f"{'met' if worst <= target else 'NOT met'}); cells that matter in the fixed run "
        f"but fell below {args.useful} in the adaptive one: {lost}"
    )
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
