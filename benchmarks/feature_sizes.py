"""Cost per event of the general path's time-varying features against cluster size (issue 11).

    python benchmarks/feature_sizes.py        # ~20 s

``bench_kernel.py`` section [6] times these features at 100k GPUs only; the issue asks for
each at 2k / 16k / 100k / 1M. Llama 3 point rates (18 categories, no planned maintenance),
54 days, one thread, the kernel as ``simulate`` runs it (``simulate_block``, blocks of 256):

* ``off``: no time variation (the renewal path);
* ``trend 1.5`` / ``trend 0.5``: a power-law trend (wear-out / burn-in) of a fleet 2,000 h
  old (the general path: thinned in windows of the trend, ``_fail_gap``);
* ``throughput b=0.01``: a diurnal throughput cycle of 1 % (the general path);
* ``profile 24h``: every category on one 24-hour rate profile (a cosine of amplitude 0.5
  sampled hourly; the general path, thinned by the profile's maximum).

Per row: ns per event (best of 3, process CPU time, compile excluded), the share of the
summed exponential draw measured in the same run (the denominator of section [0]) and events
per trial. Stragglers and SDC at these sizes: ``bench_physics.py``; diurnal rates:
``bench_kernel.py`` section [6]'s size rows.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_kernel import (  # noqa: E402
    SEED,
    exp_draws,
    paths_configs_at,
    replace_path,
    run_blocks,
    timed,
)

from relmc.sim import _kernels  # noqa: E402
from relmc.sim.simulate import kernel_inputs  # noqa: E402

SIZES = {2_048: 4_096, 16_384: 1_024, 100_000: 256, 1_000_000: 16}  # GPUs: trials
PROFILE = tuple(1.0 + 0.5 * math.cos(2.0 * math.pi * (h - 14) / 24.0) for h in range(24))


def features(n_gpus: int) -> dict:
    """The rows' scenarios at ``n_gpus``."""
    off = paths_configs_at(n_gpus, maint=False)

    def trend(shape: float):
        s = replace_path(off, "failures.trend_shape", shape)
        return replace_path(s, "failures.fleet_age_hours", 2000.0)

    return {
        "off": off,
        "trend 1.5": trend(1.5),
        "trend 0.5": trend(0.5),
        "throughput b=0.01": replace_path(off, "job.throughput_amplitude", 0.01),
        "profile 24h": replace_path(off, "failures.categories.*.rate_profile", PROFILE),
    }


def main() -> None:
    n_draw = 20_000_000
    exp_draws(np.random.default_rng(0), 10, 1.0)
    draw = min(timed(exp_draws, np.random.default_rng(SEED), n_draw, 1.0)[1] for _ in range(3))
    draw = draw / n_draw * 1e9
    print(f"exponential draw, summed: {draw:.2f} ns")
    print("N GPUs | feature | ns/event | draw/event | events/trial")
    for n_gpus, n_trials in SIZES.items():
        for name, sc in features(n_gpus).items():
            x = kernel_inputs(sc, None, n_trials)[0]
            few = dataclasses.replace(x, draw_of_trial=x.draw_of_trial[:4])
            run_blocks(_kernels.simulate_block, few)  # compile / load outside the timing
            best = math.inf
            for _ in range(3):  # best of 3: noise only slows a run
                ev, dt = timed(run_blocks, _kernels.simulate_block, x)
                best = min(best, dt / ev * 1e9)
            print(
                f"{n_gpus:,} | {name} | {best:.1f} | {draw / best:.3f} | {ev / n_trials:,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
