"""The kernel's uncertain overheads (contract in relmc.sim, "Uncertain overheads").

Kernel alone, exact checks only (the oracle and known answers are tested elsewhere): a
table of ones is off bit for bit on every path that runs it; each column of the per-draw
table moves exactly its overhead, for the trials of its draw; per-event jitter varies
each occurrence and keeps the accounting identity; the renewal fast path does not run when
either kind is on.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from kernelcheck import TIMELINE
from threecats import NODE, PHYSICS, run_path, three_category_inputs

from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import OUTPUTS, OVERHEADS, KernelInputs
from relmc.sim.simulate import BLOCK_SIZE, run_kernel

CAUSE = {c: j for j, c in enumerate(CAUSES)}
REL = 1e-9  # relative rounding allowance of the accounting identity
N_TRIALS = 2 * BLOCK_SIZE
N_F = len(OVERHEADS)  # columns of overhead_factor


_inputs = three_category_inputs


MODULATED = dict(
    cat_amp=np.array([0.5, 0.25, 0.0]),
    cat_phase=np.array([3.0, 15.0, 0.0]),
    start_hour=5.0,
    trend_shape=1.25,
    fleet_age_hours=400.0,
    speed_amp=0.125,
    speed_phase=10.0,
)
SCENARIOS = {
    "general": {},
    "general_modulated": MODULATED,
    "nodes": NODE,
    "physics": PHYSICS,
    "physics_modulated": {**PHYSICS, **MODULATED},
}


def _run(x: KernelInputs, seed: int = 5) -> dict[str, np.ndarray]:
    return run_kernel(x, np.random.SeedSequence(seed))[0]


_run_path = run_path


def _assert_same(a: dict, b: dict, names=tuple(name for name, _, _, _ in OUTPUTS)) -> None:
    for name in names:
        assert np.array_equal(a[name], b[name], equal_nan=True), name


def _identity_error(out: dict) -> float:
    total = out["progress_hours"] + out["lost_hours"].sum(axis=1)
    return float(np.max(np.abs(out["wall_hours"] - total) / np.maximum(out["wall_hours"], 1.0)))


# ---- off: a table of ones and zero jitter is the process without uncertain overheads


@pytest.mark.parametrize("name", SCENARIOS)
def test_table_of_ones_is_off_bit_for_bit(name):
    off = _inputs(**SCENARIOS[name])
    assert not off.uncertain_overheads
    ones = dataclasses.replace(off, overhead_factor=np.ones((2, N_F)), overhead_jitter=np.zeros(4))
    assert ones.uncertain_overheads
    a, b = _run(off), _run(ones)
    _assert_same(a, b)
    assert a["events"].sum() > 100  # the scenario is busy: recoveries, restarts
    assert a["lost_hours"][:, CAUSE["restart"]].sum() > 0


# ---- per draw: each column scales exactly its overhead, for the trials of its draw

# column of overhead_factor -> the KernelInputs fields it multiplies (diagnosis, preemption and
# SDC latency, read on the node and physics paths only: test_overheads_nodes_kernel.py)
COLUMNS = {
    0: ("delta",),
    1: ("persist",),
    2: ("restart_hours", "mem_restart_hours"),
    3: ("swap_hours",),
    4: ("detect_hours",),
    5: ("maint_hours",),
}


@pytest.mark.parametrize("name", ["general", "nodes", "physics"])
@pytest.mark.parametrize("col", sorted(COLUMNS))
def test_factor_column_is_its_overhead_scaled(name, col):
    """``F[1, col] = 2`` equals the overhead doubled in the inputs with ``F[0, col] = 1/2``.

    Powers of two, so ``x * 2 * 0.5 == x`` exactly: both runs see the same overheads in
    every trial (draw 0 the given ones, draw 1 doubled) and consume the same draws, so they
    are identical bit for bit; the trials of draw 1 differ from a run without factors.
    """
    x = _inputs(**SCENARIOS[name])
    f = np.ones((2, N_F))
    f[1, col] = 2.0
    a = _run(dataclasses.replace(x, overhead_factor=f))
    g = np.ones((2, N_F))
    g[0, col] = 0.5
    doubled = {k: 2.0 * getattr(x, k) for k in COLUMNS[col]}
    b = _run(dataclasses.replace(x, overhead_factor=g, **doubled))
    _assert_same(a, b)
    off = _run(x)
    d1 = x.draw_of_trial == 1
    assert not np.array_equal(a["wall_hours"][d1], off["wall_hours"][d1])


def test_snapshot_and_persist_factors_without_failures():
    """No events: checkpoint hours are ``n delta F0 + min(persist F1, tau)``, per draw."""
    x = _inputs(cat_rate=np.zeros((2, 3)), maint_rate=0.0, n_spares=-1, persist=0.0)
    n_seg = math.ceil(x.work_hours / x.tau)
    f = np.ones((2, N_F))
    f[1, 0] = 2.0
    out = _run(dataclasses.replace(x, overhead_factor=f))
    ckpt = out["lost_hours"][:, CAUSE["checkpoint"]]
    d = x.draw_of_trial
    assert np.all(out["finished"])
    assert np.all(ckpt[d == 0] == n_seg * x.delta)
    assert np.all(ckpt[d == 1] == 2.0 * ckpt[d == 0])
    # persist: scaled, then capped at tau
    y = dataclasses.replace(x, delta=0.0, persist=0.5, overhead_factor=np.ones((2, N_F)))
    y.overhead_factor[:, 1] = [0.5, 1e6]
    out = _run(y)
    ckpt = out["lost_hours"][:, CAUSE["checkpoint"]]
    assert np.all(ckpt[d == 0] == 0.25)
    assert np.all(ckpt[d == 1] == x.tau)
    assert np.all(out["wall_hours"][d == 1] == x.work_hours + x.tau)


def test_unpaused_overheads_scale_exactly_per_event():
    """Detection, swap and maintenance are not exposed: their hours are counts times F."""
    x = _inputs(cap_hours=math.inf, n_spares=-1, max_events=1_000_000)
    f = np.ones((2, N_F))
    f[1, 3:6] = [4.0, 2.0, 0.5]  # swap, detection, maintenance of draw 1
    out = _run(dataclasses.replace(x, overhead_factor=f))
    assert np.all(out["finished"])
    d = x.draw_of_trial
    n_c = out["interruptions"].astype(float)
    for draw in (0, 1):
        m = d == draw
        det = n_c[m] @ (x.detect_hours * f[draw, 4])
        swp = n_c[m] @ np.where(x.swap, x.swap_hours * f[draw, 3], 0.0)
        mnt = out["maintenance_events"][m] * x.maint_hours * f[draw, 5]
        lost = out["lost_hours"][m]
        # hours are multiples of 1/16 (sums exact in binary)
        assert np.array_equal(lost[:, CAUSE["detection"]], det)
        assert np.array_equal(lost[:, CAUSE["node_swap"]], swp)
        assert np.array_equal(lost[:, CAUSE["maintenance"]], mnt)


# ---- per event: jitter varies each occurrence, draws only when on, keeps the identity


def test_jitter_varies_each_occurrence():
    rates = np.array([[0.02, 0.005, 0.005], [0.02, 0.005, 0.005]])
    x = _inputs(cat_rate=rates, cap_hours=math.inf, n_spares=-1, max_events=1_000_000)
    j = 0.5
    out = _run(dataclasses.replace(x, overhead_jitter=np.array([0.0, j, j, j])))
    assert np.all(out["finished"])
    lost = out["lost_hours"]
    n_c = out["interruptions"].astype(float)
    det = n_c @ x.detect_hours
    mnt = out["maintenance_events"] * x.maint_hours
    busy = det > 0
    assert busy.sum() > 100
    # no longer the counts times the medians, in (almost) every trial with events
    assert np.mean(lost[busy, CAUSE["detection"]] != det[busy]) > 0.95
    m = mnt > 0
    assert np.mean(lost[m, CAUSE["maintenance"]] != mnt[m]) > 0.95
    # one detection: its log-ratio to the median is j Z
    one = (n_c.sum(axis=1) == 1) & (n_c[:, 0] == 1)
    z = np.log(lost[one, CAUSE["detection"]] / x.detect_hours[0]) / j
    assert one.sum() > 20
    assert abs(z.mean()) < 4.0 / math.sqrt(one.sum()) and 0.6 < z.std() < 1.4


@pytest.mark.parametrize("name", ["general", "nodes", "physics"])
def test_restart_jitter(name):
    """A restart's hours are no longer a multiple of its median (nor of the memory one)."""
    x = _inputs(**SCENARIOS[name])
    unit = 0.0625  # the restart medians are multiples of it: so is a sum of whole restarts

    def off_grid(out):
        k = out["lost_hours"][:, CAUSE["restart"]] / unit
        busy = out["events"] > 1
        return np.mean(np.abs(k[busy] - np.round(k[busy])) > 1e-9)

    assert off_grid(_run(x)) < 0.2  # off: only restarts cut by an event
    on = _run(dataclasses.replace(x, overhead_jitter=np.array([0.5, 0.0, 0.0, 0.0])))
    assert off_grid(on) > 0.9


@pytest.mark.parametrize("name", ["general", "nodes", "physics"])
@pytest.mark.parametrize("col", [1, 2, 3])
def test_paused_overhead_jitter_on_every_path(name, col):
    """Swap, detection, maintenance: off, their hours are whole medians (multiples of 1/16);
    with jitter on the one overhead, they leave that grid and the others stay on it."""
    cause = {1: "node_swap", 2: "detection", 3: "maintenance"}
    x = _inputs(**SCENARIOS[name], cap_hours=1e4, max_events=1_000_000)

    def off_grid(out, c):
        k = out["lost_hours"][:, CAUSE[c]] / 0.0625
        busy = k > 0
        assert busy.sum() > 50
        return np.mean(np.abs(k[busy] - np.round(k[busy])) > 1e-9)

    jitter = np.zeros(4)
    jitter[col] = 0.5
    off, on = _run(x), _run(dataclasses.replace(x, overhead_jitter=jitter))
    for c in cause.values():
        assert off_grid(off, c) < 0.05, c
        if c == cause[col]:
            assert off_grid(on, c) > 0.9, c
        else:
            assert off_grid(on, c) < 0.05, c


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_accounting_identity_with_both_kinds(name, seed):
    rng = np.random.default_rng(seed)
    x = _inputs(**SCENARIOS[name], cap_hours=float(rng.uniform(70.0, 200.0)))
    f = np.exp(0.7 * rng.standard_normal((2, N_F)))
    jitter = rng.uniform(0.0, 1.0, 4)
    out = _run(dataclasses.replace(x, overhead_factor=f, overhead_jitter=jitter), seed)
    assert _identity_error(out) <= REL
    assert np.all(out["wall_hours"] <= x.cap_hours)
    assert np.all(out["progress_hours"][out["finished"]] == x.work_hours)
    assert np.all(out["lost_hours"][:, CAUSE["checkpoint"]] >= 0.0)


def test_zero_overhead_stays_zero_with_jitter():
    x = _inputs(detect_hours=np.zeros(3), swap_hours=0.0, maint_hours=0.0, restart_hours=0.0)
    out = _run(dataclasses.replace(x, overhead_jitter=np.full(4, 0.5)))
    for cause in ("detection", "node_swap", "maintenance", "restart"):
        assert np.all(out["lost_hours"][:, CAUSE[cause]] == 0.0), cause
    assert _identity_error(out) <= REL


# ---- the renewal fast path does not run when either kind is on


def test_renewal_path_not_taken_when_on():
    x = _inputs(maint_rate=0.0, n_spares=-1, cap_hours=math.inf, max_events=1_000_000)
    assert _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap)
    assert not _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap, False, True)
    assert not _kernels.overheads_on(x.overhead_factor, x.overhead_jitter)
    # off: the renewal path (its draws differ from the general path's)
    off = _run_path(_kernels.simulate_block, x, 9)
    renewal = _run_path(_kernels._block_renewal, x, 9, True, np.zeros(2, dtype=np.int64))
    _assert_same(off, renewal, TIMELINE)
    general = _run_path(_kernels._block_general, x, 9)
    assert not np.array_equal(off["wall_hours"], general["wall_hours"])
    for kw in (
        dict(overhead_factor=np.ones((2, N_F))),
        dict(overhead_jitter=np.array([0.0, 0.0, 0.25, 0.0])),
    ):
        y = dataclasses.replace(x, **kw)
        assert _kernels.overheads_on(y.overhead_factor, y.overhead_jitter)
        on = _run_path(_kernels.simulate_block, y, 9)
        _assert_same(on, _run_path(_kernels._block_general, y, 9), TIMELINE)
