"""Node-model inputs for tests, and the one switch that says whether the kernel has the model.

The node model's fields (:mod:`relmc.sim`, "Nodes: ...") are added to
:class:`~relmc.sim.inputs.KernelInputs` by the kernel's implementation. Until then this module
builds the same fields, with the same names and defaults, on a test-only subclass, so the
oracle and the known answers can run; the kernel variants of the tests skip (one helper:
:func:`kernel_has_nodes`). Once ``KernelInputs`` has ``node_model``, :func:`node_inputs` builds
a plain ``KernelInputs`` and the stand-in is never used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from kernelcheck import Z_MAX, disagreements

from relmc._seed import resolve_seed
from relmc.sim.inputs import OUTPUTS, KernelInputs
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


def kernel_has_nodes() -> bool:
    """Whether the kernel implements the node model: the one skip condition of its tests."""
    names = {name for name, _, _, _ in OUTPUTS}
    return hasattr(KernelInputs, "node_model") and "repairs_auto" in names


def _empty():
    return np.zeros(0)


@dataclass(frozen=True, eq=False)
class _StandIn(KernelInputs):
    """``KernelInputs`` with the node fields, for the oracle until the kernel has them."""

    n_nodes: int = 1
    bad_fraction: float = 0.0
    bad_multiplier: np.ndarray = field(default_factory=_empty)
    cat_domain: np.ndarray = field(default_factory=_empty)
    diag_hours: np.ndarray = field(default_factory=_empty)
    diag_wrong: np.ndarray = field(default_factory=_empty)
    lemon_k: int = 0
    lemon_window: float = math.inf
    repair_fixed: bool = False
    escalate_prob: float = 0.0
    manual_repair_hours: float = 168.0
    auto_miss: float = 0.0
    manual_miss: float = 0.0
    retire_after: int = 0
    n_standbys: int = 0
    preempt_hours: float = 0.0
    mem_restart_hours: float = -1.0
    mem_replicas: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        n_cat = self.n_categories
        for name, value in NODE_ARRAYS.items():
            if np.size(getattr(self, name)) == 0:
                dtype = np.int64 if name == "cat_domain" else np.float64
                object.__setattr__(self, name, np.full(n_cat, value, dtype=dtype))

    @property
    def node_model(self) -> bool:
        """Whether any node-model field is on (differs from its default)."""
        scalars = any(
            getattr(self, k) != v
            for k, v in NODE_SCALARS.items()
            if k not in ("lemon_window", "manual_repair_hours", "mem_replicas")
        )
        arrays = any(np.any(np.asarray(getattr(self, k)) != v) for k, v in NODE_ARRAYS.items())
        return bool(scalars or arrays or self.mem_restart_hours >= 0.0)


INPUTS_CLASS = KernelInputs if hasattr(KernelInputs, "node_model") else _StandIn


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
    return INPUTS_CLASS(
        cat_rate=rates,
        draw_of_trial=np.zeros(n_trials, dtype=np.int64),
        detect_hours=np.zeros(n_cat) if detect is None else np.asarray(detect, dtype=float),
        swap=np.zeros(n_cat, dtype=bool) if swap is None else np.asarray(swap, dtype=bool),
        **args,
    )


def run(engine: str, inputs: KernelInputs, seed: int) -> dict[str, np.ndarray]:
    """Run ``inputs`` on the oracle (``"reference"``) or the kernel (``"kernel"``).

    The kernel variant of a node-model input skips until the kernel has the model.
    """
    if engine == "reference":
        return simulate_reference(inputs, np.random.default_rng(seed))
    if getattr(inputs, "node_model", False) and not kernel_has_nodes():
        pytest.skip("the kernel does not implement the node model yet")
    from relmc.sim.simulate import run_kernel

    out, _ = run_kernel(inputs, resolve_seed(seed), n_threads=1)
    return out


def node_disagreements(a_out, b_out, z_max: float = Z_MAX) -> list[str]:
    """:func:`kernelcheck.disagreements` plus the node model's per-trial outputs."""
    bad = disagreements(a_out, b_out, z_max)
    for name in (*NODE_COUNTS, "pool_occupancy"):
        a = np.asarray(a_out[name], dtype=float)
        b = np.asarray(b_out[name], dtype=float)
        if np.isnan(a).all() and np.isnan(b).all():
            continue
        if np.isnan(a).any() or np.isnan(b).any():
            bad.append(f"{name}: NaN in one sample only")
            continue
        se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        diff = abs(a.mean() - b.mean())
        if se == 0:
            if diff > 1e-9 * max(1.0, abs(a.mean())):
                bad.append(f"{name}: {a.mean()} vs {b.mean()} (no spread)")
        elif diff / se > z_max:
            bad.append(f"{name}: {a.mean():.5g} vs {b.mean():.5g}, z={diff / se:.1f}")
    return bad
