"""Kernel inputs shared by the kernel-alone tests of the newer features, and one path runner.

Three categories, two rate draws (trials alternate), maintenance, a finite pool; node and
physics variants; every scalar of the kernel's type (a new type signature would recompile).
"""

from __future__ import annotations

import inspect

import numpy as np

from relmc._seed import child_seed
from relmc.sim.inputs import KERNEL_PARAMETERS, KernelInputs, allocate_outputs, kernel_args
from relmc.sim.simulate import BLOCK_SIZE

N_TRIALS = 2 * BLOCK_SIZE


def three_category_inputs(**kw) -> KernelInputs:
    """Three categories, two rate draws (trials alternate), maintenance, a finite pool."""
    n = int(kw.pop("n_trials", N_TRIALS))
    base = dict(
        cat_rate=np.array([[0.04, 0.02, 0.01], [0.02, 0.05, 0.02]]),
        draw_of_trial=np.arange(n, dtype=np.int64) % 2,
        detect_hours=np.array([0.25, 0.125, 0.5]),
        swap=np.array([True, False, True]),
        maint_rate=0.02,
        maint_hours=0.5,
        work_hours=60.0,
        tau=2.0,
        delta=0.0625,
        persist=0.25,
        restart_hours=0.25,
        swap_hours=0.375,
        n_spares=2,
        repair_hours=10.0,
        cap_hours=300.0,
        max_events=60,
    )
    base.update(kw)
    return KernelInputs(**base)


NODE = dict(
    n_nodes=32,
    bad_fraction=0.1,
    bad_multiplier=np.array([4.0, 1.0, 2.0]),
    cat_domain=np.array([1, 4, 1], dtype=np.int64),
    diag_hours=np.array([0.125, 0.0, 0.25]),
    lemon_k=2,
    lemon_window=50.0,
    n_standbys=1,
    n_spares=3,
    preempt_hours=0.125,
    mem_restart_hours=0.0625,
)
PHYSICS = dict(
    cat_kind=np.array([0, 1, 2], dtype=np.int64),
    straggler_speed=np.array([1.0, 0.5, 1.0]),
    sdc_latency=np.array([0.0, 0.0, 2.0]),
    sdc_latency_exp=np.array([False, False, True]),
    retention=2,
)


def run_path(block_fn, x: KernelInputs, seed: int, *extra) -> dict[str, np.ndarray]:
    """Run one kernel path directly over blocks seeded as ``run_kernel`` seeds them.

    ``extra`` arguments follow those named like ``simulate_block``'s.
    """
    out = allocate_outputs(x.n_trials, x.n_categories)
    root = np.random.SeedSequence(seed)
    wanted = inspect.signature(block_fn).parameters
    for b in range(-(-x.n_trials // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        args = kernel_args(x, out, slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE))
        named = dict(zip(KERNEL_PARAMETERS[1:], args, strict=True))
        block_fn(rng, *(named[p] for p in wanted if p in named), *extra)
    return out
