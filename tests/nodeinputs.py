"""Node-model inputs for tests, one runner for the oracle and the kernel, one comparison."""

from __future__ import annotations

import math

import numpy as np
from kernelcheck import Z_MAX, disagreements, mean_disagreement

from relmc._seed import resolve_seed
from relmc.sim.inputs import KernelInputs
from relmc.sim.reference import NODE_COUNTS, simulate_reference

#: The node model's scalar fields and their defaults (the model is off at these).
NODE_SCALARS = {
    "n_nodes": 1,
    "bad_fraction": 0.0,
    "lemon_k": 0,
    "lemon_window": math.inf,
    "repair_fixed": False,
    "escalate_prob": 0.0,
    "manual_repair_hours": 168.0,
    "auto_miss": 0.0,
    "manual_miss": 0.0,
    "retire_after": 0,
    "n_standbys": 0,
    "preempt_hours": 0.0,
    "mem_restart_hours": -1.0,
    "mem_replicas": 1,
}
#: Per-category fields and the value of every entry by default.
NODE_ARRAYS = {"bad_multiplier": 1.0, "cat_domain": 1, "diag_hours": 0.0, "diag_wrong": 0.0}


def node_inputs(
    rates,
    *,
    n_trials: int = 100,
    detect=None,
    swap=None,
    **kw,
) -> KernelInputs:
    """Inputs for one rate row ``rates`` (per hour); hours as in ``KernelInputs``.

    Defaults: no checkpoint costs, no restart, no detection, unlimited pool, no cap, a job
    of ``1e9`` compute hours in one segment (so a cap or ``max_events`` ends it).
    """
    rates = np.atleast_2d(np.asarray(rates, dtype=float))
    n_cat = rates.shape[1]
    args = dict(
        maint_rate=0.0,
        maint_hours=0.0,
        work_hours=1e9,
        tau=1e9,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=0.0,
        cap_hours=math.inf,
    )
    args.update(kw)
    for name in NODE_ARRAYS:
        if name in args:
            dtype = np.int64 if name == "cat_domain" else np.float64
            args[name] = np.asarray(args[name], dtype=dtype)
    return KernelInputs(
        cat_rate=rates,
        draw_of_trial=np.zeros(n_trials, dtype=np.int64),
        detect_hours=np.zeros(n_cat) if detect is None else np.asarray(detect, dtype=float),
        swap=np.zeros(n_cat, dtype=bool) if swap is None else np.asarray(swap, dtype=bool),
        **args,
    )


def run(engine: str, inputs: KernelInputs, seed: int) -> dict[str, np.ndarray]:
    """Run ``inputs`` on the oracle (``"reference"``) or the kernel (``"kernel"``)."""
    if engine == "reference":
        return simulate_reference(inputs, np.random.default_rng(seed))
    from relmc.sim.simulate import run_kernel

    out, _ = run_kernel(inputs, resolve_seed(seed), n_threads=1)
    return out


def node_disagreements(a_out, b_out, z_max: float = Z_MAX) -> list[str]:
    """:func:`kernelcheck.disagreements` plus the node model's per-trial outputs."""
    bad = disagreements(a_out, b_out, z_max)
    for name in (*NODE_COUNTS, "pool_occupancy"):
        found = mean_disagreement(name, a_out[name], b_out[name], z_max)
        if found:
            bad.append(found)
    return bad
