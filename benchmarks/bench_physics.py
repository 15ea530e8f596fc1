"""Cost per event of stragglers and silent data corruption (issue 11), flat in N.

Llama 3 point rates (the 18 default categories) at 2k, 16k, 100k and 1M GPUs, with planned
maintenance (so every row takes the general path), plus a straggler category (per-GPU rate,
speed 0.5, detected after 30 min) and an SDC category (per-GPU rate, exponential latency of
mean 6 h, 4 checkpoints retained). Per row: events per CPU second (the kernel's ``events``
output summed over trials; compile time excluded) and its ratio to the rate of standard
exponential draws from a Generator inside ``@njit`` measured in the same run; the "off" row is
the same scenario with the two extra categories as ordinary failure categories. Trials are
chosen per size so that each row simulates about the same number of events.

Run: ``PYTHONPATH=. python benchmarks/bench_physics.py [--events N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numba
import numpy as np

from relmc._seed import child_seed
from relmc.defaults import default_failures
from relmc.scenario import Category, Cluster, Job, Policy, Scenario
from relmc.sim import _kernels
from relmc.sim.inputs import allocate_outputs, kernel_args
from relmc.sim.simulate import BLOCK_SIZE, kernel_inputs

SEED = 20240723
W_HOURS = 54 * 24.0
SIZES = (2_048, 16_384, 100_000, 1_000_000)


@numba.njit(nogil=True)
def _exp_draws(rng, n):
    s = 0.0
    for _ in range(n):
        s += rng.standard_exponential()
    return s


def draw_rate(n: int = 20_000_000) -> float:
    """Standard exponential draws per CPU second inside @njit (compiled first)."""
    rng = np.random.default_rng(SEED)
    _exp_draws(rng, 10)
    c0 = time.process_time()
    _exp_draws(rng, n)
    return n / (time.process_time() - c0)


def scenario(n_gpus: int, on: bool) -> Scenario:
    fm = default_failures()
    extra = (
        Category("straggler", rate=2e-6, unit="gpu", detection_hours=0.5,
                 kind="straggler" if on else "failure", straggler_speed=0.5),
        Category("sdc", rate=1e-6, unit="gpu", kind="sdc" if on else "failure",
                 sdc_latency_hours=6.0, sdc_latency_distribution="exponential"),
    )  # fmt: skip
    fm = dataclasses.replace(
        fm, categories=fm.categories + extra, maintenance_rate=0.01, maintenance_hours=1.0
    )
    return Scenario(
        cluster=Cluster(n_gpus=n_gpus),
        failures=fm,
        job=Job(W_HOURS),
        policy=Policy(
            checkpoint_interval=0.5,
            snapshot_hours=1 / 60,
            restart_hours=10 / 60,
            checkpoint_retention=4,
        ),
    )


def run(x) -> int:
    out = allocate_outputs(x.n_trials, x.n_categories)
    root = np.random.SeedSequence(SEED)
    for b in range(-(-x.n_trials // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        _kernels.simulate_block(
            rng, *kernel_args(x, out, slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE))
        )
    return int(out["events"].sum())


def measure(make_inputs, events: float, floor: float) -> tuple[int, int, float, float]:
    """Run ``make_inputs(n_trials)`` for about ``events`` events: (trials, events, M ev/s, ratio).

    A first block compiles (cached) and measures events per trial; the timed run is CPU time.
    """
    probe = make_inputs(BLOCK_SIZE)
    run(probe)
    per = max(run(probe) / probe.n_trials, 1.0)
    n_trials = max(BLOCK_SIZE, int(events / per) // BLOCK_SIZE * BLOCK_SIZE)
    x = make_inputs(n_trials)
    c0 = time.process_time()
    ev = run(x)
    rate = ev / (time.process_time() - c0)
    return n_trials, ev, rate / 1e6, rate / floor


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=float, default=3e6, help="events per row (about)")
    args = ap.parse_args(argv)
    floor = draw_rate()
    print(f"standard exponential draws: {floor / 1e6:.1f} M/s")
    print(f"{'n_gpus':>9} {'physics':>8} {'trials':>7} {'events':>10} {'M ev/s':>8} {'ratio':>6}")
    for n_gpus in SIZES:
        for on in (False, True):
            n_trials, ev, mev, ratio = measure(
                lambda n, g=n_gpus, on=on: kernel_inputs(scenario(g, on), None, n)[0],
                args.events,
                floor,
            )
            print(
                f"{n_gpus:>9} {'on' if on else 'off':>8} {n_trials:>7} {ev:>10} "
                f"{mev:>8.2f} {ratio:>6.3f}"
            )


if __name__ == "__main__":
    main()
