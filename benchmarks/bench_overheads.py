"""Cost per event of uncertain overheads (issue 13), flat in N.

Llama 3 point rates (the 18 default categories) at 2k, 16k, 100k and 1M GPUs, with planned
maintenance (so every row takes the general path, the renewal path's scenarios excluded),
0.5-h swaps, 10-min restarts and the default detection. Rows: ``off``; ``per draw`` (every
overhead with a 90% range factor of 2, one multiplier per draw, 4,096 draws); ``per event``
(restart, swap, detection and maintenance jittered by a factor of 2 at every occurrence);
``both``. Per row: events per CPU second (the kernel's ``events`` output summed over trials;
compile time excluded) and its ratio to the rate of standard exponential draws inside
``@njit`` measured in the same run (:mod:`bench_physics`). Trials are chosen per size so that
each row simulates about the same number of events.

Run: ``PYTHONPATH=. python benchmarks/bench_overheads.py [--events N]``.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
from bench_physics import SEED, SIZES, W_HOURS, draw_rate, measure

from relmc.defaults import default_failures
from relmc.scenario import JITTER_FIELDS, SPREAD_FIELDS, Cluster, Job, Policy, Scenario
from relmc.sim.simulate import draw_overhead_factors, kernel_inputs

MODES = {
    "off": {},
    "per draw": dict.fromkeys(SPREAD_FIELDS, 2.0),
    "per event": dict.fromkeys(JITTER_FIELDS, 2.0),
    "both": {**dict.fromkeys(SPREAD_FIELDS, 2.0), **dict.fromkeys(JITTER_FIELDS, 2.0)},
}


def scenario(n_gpus: int, mode: str) -> Scenario:
    fm = dataclasses.replace(default_failures(), maintenance_rate=0.01, maintenance_hours=1.0)
    policy = Policy(
        checkpoint_interval=0.5,
        snapshot_hours=1 / 60,
        persist_hours=0.1,
        restart_hours=10 / 60,
        swap_hours=0.5,
        **MODES[mode],
    )
    return Scenario(cluster=Cluster(n_gpus=n_gpus), failures=fm, job=Job(W_HOURS), policy=policy)


def inputs(n_gpus: int, mode: str, n_trials: int):
    x, labels = kernel_inputs(scenario(n_gpus, mode), None, n_trials)
    return draw_overhead_factors(x, np.random.SeedSequence(SEED), labels["draw_rows"])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=float, default=3e6, help="events per row (about)")
    args = ap.parse_args(argv)
    floor = draw_rate()
    print(f"standard exponential draws: {floor / 1e6:.1f} M/s")
    print(
        f"{'n_gpus':>9} {'overheads':>10} {'trials':>7} {'events':>10} {'M ev/s':>8} {'ratio':>6}"
    )
    for n_gpus in SIZES:
        for mode in MODES:
            n_trials, ev, mev, ratio = measure(
                lambda n, g=n_gpus, m=mode: inputs(g, m, n), args.events, floor
            )
            print(f"{n_gpus:>9} {mode:>10} {n_trials:>7} {ev:>10} {mev:>8.2f} {ratio:>6.3f}")


if __name__ == "__main__":
    main()
