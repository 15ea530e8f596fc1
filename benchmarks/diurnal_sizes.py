"""Where the diurnal path's cost per event goes against cluster size (issue 11).

    python benchmarks/diurnal_sizes.py        # ~1 min

For the one-peak diurnal rows of ``bench_kernel.py`` section [6] (Llama 3, a = 0.5, no
maintenance) at 2k / 16k / 100k / 1M GPUs: ns per event (best of 3, process CPU time), events
per trial, the share of failures the blocks take and their mean size (the path's ``stats``,
16 trials), and the expected points of the process thinned within recoveries per failure,
``sum_c rate_c cost_c`` (a block draws and solves them like failures), with the cost per
point of the process it implies.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_kernel import SEED, physics_configs_at_sizes, run_blocks, timed  # noqa: E402

from relmc._seed import child_seed  # noqa: E402
from relmc.sim import _kernels  # noqa: E402
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, block_args  # noqa: E402
from relmc.sim.simulate import kernel_inputs  # noqa: E402


def block_stats(x) -> tuple[np.ndarray, dict]:
    """``_block_diurnal``'s ``stats`` and outputs over the inputs' trials (one generator)."""
    out = allocate_outputs(x.n_trials, x.n_categories)
    named = dict(zip(KERNEL_PARAMETERS[1:], block_args(x, out)(slice(0, x.n_trials)), strict=True))
    stats = np.zeros(8, dtype=np.int64)
    named["use_blocks"], named["stats"] = True, stats
    rng = np.random.Generator(np.random.PCG64(child_seed(np.random.SeedSequence(SEED), 0)))
    names = list(inspect.signature(_kernels._block_diurnal).parameters)[1:]
    _kernels._block_diurnal(rng, *[named[p] for p in names])
    return stats, out


def main() -> None:
    print("N GPUs | ns/event | events/trial | failures in blocks | block size | thinned/failure "
          "| ns/point | finished")  # fmt: skip
    for (label, n_gpus), sc in physics_configs_at_sizes().items():
        if "18" in label:
            continue
        x = kernel_inputs(sc, None, 16)[0]
        run_blocks(_kernels.simulate_block, x)  # compile / load outside the timing
        pilot = run_blocks(_kernels.simulate_block, x) / 16
        n = int(min(max(16, 4e6 / pilot), 20_000))
        xn = kernel_inputs(sc, None, n)[0]
        t = np.inf
        for _ in range(3):  # best of 3: noise only slows a run
            ev, dt = timed(run_blocks, _kernels.simulate_block, xn)
            t = min(t, dt / ev * 1e9)
        stats, out = block_stats(x)
        thinned = float((x.cat_rate[0] * x.detect_hours).sum())
        thinned += float((x.cat_rate[0] * np.where(x.swap, x.swap_hours, 0.0)).sum())
        print(f"{n_gpus:>9,} | {t:.1f} | {pilot:,.0f} | {stats[3] / stats[0]:.4f} | "
              f"{stats[3] / max(stats[4], 1):.0f} | {thinned:.3f} | {t / (1 + thinned):.1f} | "
              f"{out['finished'].mean():.2f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
