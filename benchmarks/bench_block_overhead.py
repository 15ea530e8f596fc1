"""The Python side of a block of trials (issue 10): what ``run_kernel`` pays per 256 trials.

Per block, ``relmc.sim.simulate.run_kernel`` gives the block its Generator (for a round of
many blocks, their states computed together and each set on a generator a thread keeps;
else one built from the block's child seed; both timed), lays out the kernel's 77 arguments
after it and calls the kernel (numba checks the arguments' types and unboxes them; the
Generator reaches the path by its address). A call is timed with a Generator used before
and with a fresh one. Those costs
do not depend on the trials, so they weigh most where a trial is cheap: small clusters and
short jobs. This script times each part alone, and the kernel on a block of Llama 3 trials
at 2k GPUs (a 54-day job, no planned maintenance: the renewal path, ~57 failures a trial),
in one run, interleaved, best of the repeats (noise only slows a run), in microseconds per
256-trial block of wall time.

Run: ``python benchmarks/bench_block_overhead.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time

import numpy as np

from relmc._seed import child_seed, pcg64_states
from relmc.scenario import Cluster, Job, Scenario
from relmc.sim._kernels import simulate_block
from relmc.sim.inputs import allocate_outputs, block_args, kernel_args
from relmc.sim.simulate import BLOCK_SIZE, draw_overhead_factors, kernel_inputs, run_kernel

SEED = 20240723


def scenario(n_gpus: int, hours: float) -> Scenario:
    """Llama 3's default categories at ``n_gpus``, a job of ``hours``, no planned maintenance."""
    s = Scenario.default()
    failures = dataclasses.replace(s.failures, maintenance_rate=0.0)
    return dataclasses.replace(s, cluster=Cluster(n_gpus=n_gpus), failures=failures, job=Job(hours))


def per_call(fn, n: int) -> float:
    """Microseconds per call of ``fn(k)``, ``k = 0 .. n - 1``, wall time."""
    t0 = time.perf_counter()
    for k in range(n):
        fn(k)
    return (time.perf_counter() - t0) / n * 1e6


def main(argv=None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="interleaved repeats (best kept)")
    args = ap.parse_args(argv)
    root = np.random.SeedSequence(SEED)
    inputs = draw_overhead_factors(
        kernel_inputs(scenario(2048, 54 * 24.0), None, BLOCK_SIZE)[0], root
    )
    out = allocate_outputs(BLOCK_SIZE, inputs.n_categories)
    block = slice(0, BLOCK_SIZE)
    laid = block_args(inputs, out)
    full = laid(block)
    empty = laid(slice(0, 0))
    rng = np.random.Generator(np.random.PCG64(child_seed(root, 0)))
    simulate_block(rng, *full)  # compile or load the cache outside the timings
    many = kernel_inputs(scenario(2048, 54 * 24.0), None, 40 * BLOCK_SIZE)[0]
    run_kernel(many, root)
    # a fresh Generator per call, as run_kernel's blocks have (numpy builds its ctypes
    # interface at the first look; numba's unboxing of a Generator reads it)
    fresh = [np.random.Generator(np.random.PCG64(child_seed(root, k))) for k in range(2000)]
    # run_kernel's way for a round of many blocks: the states computed together, each set on
    # a generator kept (the call's cost shared by 256 blocks)
    kept = np.random.Generator(np.random.PCG64(0))
    held: dict[int, list] = {}

    def set_state(k: int) -> None:
        if k % 256 == 0:
            held[0] = pcg64_states(root, range(k, k + 256)) or []
        kept.bit_generator.state = held[0][k % 256]

    parts = {
        "Generator from the block's child seed": (
            lambda k: np.random.Generator(np.random.PCG64(child_seed(root, k))),
            2000,
        ),
        "its state, computed with a run's 256 (pcg64_states), set": (
            lambda k: set_state(k),
            2000,
        ),
        "arguments looked up afresh (kernel_args)": (
            lambda k: kernel_args(inputs, out, block),
            2000,
        ),
        "arguments sliced from a run's (block_args)": (lambda k: laid(block), 2000),
        "kernel call on 0 trials (types, unboxing, set-up)": (
            lambda k: simulate_block(rng, *empty),
            2000,
        ),
        "the same with a fresh Generator, less its build": (
            lambda k: simulate_block(fresh[k % len(fresh)], *empty),
            len(fresh),
        ),
        "kernel on 256 trials (2k GPUs, 54 days)": (lambda k: simulate_block(rng, *full), 40),
        "run_kernel per block (40 blocks, the same trials)": (
            lambda k: run_kernel(many, root),
            2,
        ),
    }
    best = dict.fromkeys(parts, math.inf)
    for _ in range(args.repeats):
        for name, (fn, n) in parts.items():
            us = per_call(fn, n)
            if name.startswith("run_kernel"):
                us /= 40
            best[name] = min(best[name], us)
    print(f"Python side of a {BLOCK_SIZE}-trial block (us, wall, best of {args.repeats})")
    for name, us in best.items():
        print(f"  {name:<52} {us:8.1f}")
    kernel = best["kernel on 256 trials (2k GPUs, 54 days)"]
    side = (
        best["its state, computed with a run's 256 (pcg64_states), set"]
        + best["arguments sliced from a run's (block_args)"]
        + best["the same with a fresh Generator, less its build"]
    )
    side_before = (
        side
        - best["its state, computed with a run's 256 (pcg64_states), set"]
        + best["Generator from the block's child seed"]
    )
    print(
        f"  the Python side: {side:.1f} us a block ({side_before:.1f} with a Generator built "
        f"per block), {side / (side + kernel):.3f} of a 2k-GPU block "
        f"({side_before / (side_before + kernel):.3f})"
    )
    return best


if __name__ == "__main__":
    main()
