"""Stragglers and SDC inputs for tests, one runner for the oracle and the kernel, one comparison.

The fields of :mod:`relmc.sim`, "Stragglers and silent data corruption" (``cat_kind``,
``straggler_speed``, ``sdc_latency``, ``sdc_latency_exp``, ``retention``) are fields of
:class:`~relmc.sim.inputs.KernelInputs`.
"""

from __future__ import annotations

import math
from dataclasses import fields

import numpy as np
from nodeinputs import node_disagreements

from relmc._seed import resolve_seed
from relmc.sim.inputs import KernelInputs
from relmc.sim.reference import SDC_COUNTS, simulate_reference

#: Per-category fields and the value of every entry by default (all failure categories).
SDC_ARRAYS = {"cat_kind": 0, "straggler_speed": 1.0, "sdc_latency": 0.0, "sdc_latency_exp": False}
_DTYPES = {"cat_kind": np.int64, "sdc_latency_exp": np.bool_}


def sdc_inputs(rates, *, n_trials: int = 100, detect=None, swap=None, **kw) -> KernelInputs:
    """Inputs for one rate row ``rates`` (per hour); hours as in ``KernelInputs``.

    Defaults: zero overheads (no checkpoint cost, restart, detection or swap), unlimited
    pool, no cap. ``cat_kind`` etc. may be given as lists.
    """
    rates = np.atleast_2d(np.asarray(rates, dtype=float))
    n_cat = rates.shape[1]
    args = dict(
        maint_rate=0.0,
        maint_hours=0.0,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=0.0,
        cap_hours=math.inf,
    )
    args.update(kw)
    for name in (*SDC_ARRAYS, "bad_multiplier", "cat_domain", "diag_hours", "diag_wrong"):
        if name in args:
            dtype = _DTYPES.get(name, np.int64 if name == "cat_domain" else np.float64)
            args[name] = np.asarray(args[name], dtype=dtype)
    return KernelInputs(
        cat_rate=rates,
        draw_of_trial=np.zeros(n_trials, dtype=np.int64),
        detect_hours=np.zeros(n_cat) if detect is None else np.asarray(detect, dtype=float),
        swap=np.zeros(n_cat, dtype=bool) if swap is None else np.asarray(swap, dtype=bool),
        **args,
    )


def with_sdc_fields(inputs: KernelInputs, **kw) -> KernelInputs:
    """``inputs`` (a plain ``KernelInputs``) with the stragglers/SDC fields ``kw`` set."""
    values = {f.name: getattr(inputs, f.name) for f in fields(inputs)}
    values.update(kw)
    for name in SDC_ARRAYS:
        if name in values:
            values[name] = np.asarray(values[name], dtype=_DTYPES.get(name, np.float64))
    return KernelInputs(**values)


def run(engine: str, inputs: KernelInputs, seed: int) -> dict[str, np.ndarray]:
    """Run ``inputs`` on the oracle (``"reference"``) or the kernel (``"kernel"``)."""
    if engine == "reference":
        return simulate_reference(inputs, np.random.default_rng(seed))
    from relmc.sim.simulate import run_kernel

    out, _ = run_kernel(inputs, resolve_seed(seed), n_threads=1)
    return out


def sdc_disagreements(a_out, b_out) -> list[str]:
    """:func:`nodeinputs.node_disagreements` plus the SDC counts (4.5 combined SE)."""
    bad = node_disagreements(a_out, b_out)
    for name in SDC_COUNTS:
        a = np.asarray(a_out[name], dtype=float)
        b = np.asarray(b_out[name], dtype=float)
        se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        diff = abs(a.mean() - b.mean())
        if (se == 0 and diff > 1e-9) or (se > 0 and diff / se > 4.5):
            bad.append(f"{name}: {a.mean():.5g} vs {b.mean():.5g}")
    return bad
