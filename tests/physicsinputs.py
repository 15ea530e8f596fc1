"""Stragglers and SDC inputs for tests, one runner for the oracle and the kernel, one comparison.

The fields of :mod:`relmc.sim`, "Stragglers and silent data corruption" (``cat_kind``,
``straggler_speed``, ``sdc_latency``, ``sdc_latency_exp``, ``retention``) are fields of
:class:`~relmc.sim.inputs.KernelInputs`.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
from kernelcheck import mean_disagreement
from nodeinputs import node_disagreements, node_inputs

from relmc._seed import resolve_seed
from relmc.sim.inputs import KernelInputs
from relmc.sim.reference import SDC_OUTPUTS, simulate_reference

#: Per-category fields and the value of every entry by default (all failure categories).
SDC_ARRAYS = {"cat_kind": 0, "straggler_speed": 1.0, "sdc_latency": 0.0, "sdc_latency_exp": False}
_DTYPES = {"cat_kind": np.int64, "sdc_latency_exp": np.bool_}


def sdc_inputs(rates, *, n_trials: int = 100, detect=None, swap=None, **kw) -> KernelInputs:
    """:func:`nodeinputs.node_inputs` (zero overheads, unlimited pool, no cap) with the
    stragglers/SDC arrays ``cat_kind`` etc. accepted as lists."""
    for name in SDC_ARRAYS:
        if name in kw:
            kw[name] = np.asarray(kw[name], dtype=_DTYPES.get(name, np.float64))
    return node_inputs(rates, n_trials=n_trials, detect=detect, swap=swap, **kw)


def with_sdc_fields(inputs: KernelInputs, **kw) -> KernelInputs:
    """``inputs`` (a plain ``KernelInputs``) with the stragglers/SDC fields ``kw`` set."""
    values = {f.name: getattr(inputs, f.name) for f in fields(inputs) if f.init}
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
    """:func:`nodeinputs.node_disagreements` plus the SDC outputs (4.5 combined SE)."""
    bad = node_disagreements(a_out, b_out)
    for name in SDC_OUTPUTS:
        found = mean_disagreement(name, a_out[name], b_out[name])
        if found:
            bad.append(found)
    return bad
