"""The pool path against the general path: bit for bit, on the same Generator.

``relmc.sim._kernels._block_pool`` takes what the renewal path cannot (a finite spare pool
with swap categories) when rates are constant and overheads certain. It is the general path's
process with the options off and the per-event state in scalars: the same draws in the same
order and the same arithmetic in the same order, so its outputs must equal
``_block_general``'s exactly, on every scenario either can run, including the wall cap, the
event budget, planned maintenance (deferred past the job's end too), persist, an empty pool
and no failures at all. Exact equality needs no statistical tolerance; the negative controls
show that the comparison sees a change of one unit in the last place of one input and that
an option the pool path ignores changes the outputs. Since the two paths' outputs are equal,
which one ``simulate_block`` runs is checked by running its Python source with both paths
replaced by recorders, with every option off and with each option on in turn.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernelcheck import TIMELINE
from test_fast_paths import CATEGORIES, _run, _scenario, _with_maint, _with_policy

from relmc.scenario import Category
from relmc.sim import _kernels
from relmc.sim.inputs import OVERHEADS, WEEK_HOURS, allocate_outputs, kernel_args
from relmc.sim.simulate import NODE_OUTPUTS, PHYSICS_OUTPUTS, kernel_inputs

SWAPS = [
    Category("node", rate=0.01, unit="node", recovery="swap", detection_hours=0.02),
    Category("gpu", rate=1e-3, unit="gpu", recovery="swap"),
    Category("bug", rate=0.1, unit="job", detection_hours=0.1),
    Category("never", rate=0.0, unit="node", recovery="swap", detection_hours=1.0),
]
_BASE = dict(
    n_gpus=256,  # 32 nodes: ~0.6 swaps an hour, ~3 nodes in repair at 5 h repairs
    work=10.0,
    checkpoint_interval=0.5,
    snapshot_hours=1 / 60,
    restart_hours=0.1,
    swap_hours=0.05,
    n_spares=2,
    repair_hours=5.0,
)
POOL = {
    # spare waits at most swaps
    "waits": _scenario(SWAPS, **_BASE),
    # no spares: every swap waits for a repair
    "empty_pool": _scenario(SWAPS, **{**_BASE, "n_spares": 0, "repair_hours": 0.5}),
    # a pool that is never exhausted
    "ample_pool": _scenario(SWAPS, **{**_BASE, "n_spares": 500}),
    # planned maintenance, persist and a remainder segment
    "maintenance": _with_maint(
        _scenario(SWAPS, **{**_BASE, "work": 10.3, "persist_hours": 0.2}), 0.4, 0.5
    ),
    # a low wall cap: trials end at the cap in a run, a restart, a detection, a wait or a swap
    "near_cap": _scenario(SWAPS, **{**_BASE, "wall_cap_factor": 1.6}),
    # long restarts, frequent long planned stops and a tight cap: the cap falls in planned
    # downtime (after a restart and after a run) and in a planned event's checkpoint
    "maintenance_cap": _with_maint(
        _scenario(SWAPS, **{**_BASE, "restart_hours": 0.7, "wall_cap_factor": 1.3}), 3.0, 1.0
    ),
    # a small event budget
    "event_budget": _with_maint(_scenario(SWAPS, **{**_BASE, "max_events": 6}), 0.3, 0.2),
    # one long segment, a long final snapshot and persist: planned events deferred past the
    # job's last compute, then failures in the tail
    "long_tail": _with_maint(
        _scenario(
            SWAPS,
            **{
                **_BASE,
                "work": 0.8,
                "checkpoint_interval": 1.0,
                "snapshot_hours": 0.6,
                "persist_hours": 0.5,
            },
        ),
        2.0,
        0.1,
    ),
    # restart-only categories and a finite pool (the renewal path's ground, run here directly)
    "restart_only": _scenario([CATEGORIES[2], CATEGORIES[3]], **_BASE),
    # swaps with unlimited spares (the renewal path's ground, run here directly)
    "unlimited": _scenario(SWAPS, **{**_BASE, "n_spares": None}),
    # no failures: the job runs straight through; with maintenance only planned events
    "no_failures": _scenario([CATEGORIES[4]], **_BASE),
    "maintenance_only": _with_maint(_scenario([CATEGORIES[4]], **_BASE), 0.5, 0.25),
}
N_TRIALS = 600


def _same(a: dict, b: dict) -> list[str]:
    """Names of the written outputs that differ in any bit."""
    return [k for k in TIMELINE if not np.array_equal(a[k], b[k])]


@pytest.mark.parametrize("name", sorted(POOL))
def test_pool_path_gives_the_general_paths_outputs_bit_for_bit(name):
    inputs, _ = kernel_inputs(POOL[name], None, N_TRIALS)
    pool = _run(_kernels._block_pool, inputs, seed=7)
    general = _run(_kernels._block_general, inputs, seed=7)
    assert _same(pool, general) == []
    # the scenario does what its name says
    if name == "waits":
        assert (pool["lost_hours"][:, _kernels.SPARE_WAIT] > 0).mean() > 0.5
    if name == "ample_pool":
        assert (pool["lost_hours"][:, _kernels.SPARE_WAIT] == 0).all()
    if name == "near_cap":
        assert 0.05 < pool["finished"].mean() < 0.95
    if name == "event_budget":
        assert (pool["events"][~pool["finished"]] == 6).all()
        assert (~pool["finished"]).any()
    if name == "maintenance_cap":  # every trial ends at the cap
        np.testing.assert_allclose(pool["wall_hours"], inputs.cap_hours, rtol=1e-12)
    if name in ("maintenance", "long_tail", "maintenance_only", "maintenance_cap"):
        assert pool["maintenance_events"].sum() > 0
    if name == "no_failures":
        assert pool["finished"].all() and (pool["events"] == 0).all()


def test_simulate_block_runs_the_pool_path_where_it_applies():
    inputs, _ = kernel_inputs(POOL["maintenance"], None, N_TRIALS)
    varying = False
    uncertain = _kernels.overheads_on(inputs.overhead_factor, inputs.overhead_jitter)
    assert not _kernels.renewal_applies(inputs.maint_rate, inputs.n_spares, inputs.swap)
    assert _kernels.pool_applies(varying, uncertain)
    full = _run(_kernels.simulate_block, inputs, seed=3)
    assert _same(full, _run(_kernels._block_pool, inputs, seed=3)) == []
    # the node and physics outputs are zero, as simulate_block writes them for this path
    for k in NODE_OUTPUTS:
        if k != "pool_occupancy":
            assert (full[k] == 0).all()
    for k in PHYSICS_OUTPUTS:
        assert (full[k] == 0).all()
    assert np.isnan(full["pool_occupancy"]).all()


def _path_taken(inputs, monkeypatch) -> list[str]:
    """The paths ``simulate_block``'s Python source calls for ``inputs`` (paths recorded).

    It calls each path through its wrapper (``_block_*_at``: the generator by its address).
    """
    taken: list[str] = []
    names = ("_block_pool", "_block_pool_reduced", "_block_general", "_block_renewal")
    for name in (*names, "_block_diurnal"):
        monkeypatch.setattr(_kernels, f"{name}_at", lambda *a, _n=name: taken.append(_n))
    out = allocate_outputs(inputs.n_trials, inputs.n_categories)
    rng = np.random.default_rng(0)
    _kernels.simulate_block(rng, *kernel_args(inputs, out, slice(0, inputs.n_trials)))
    monkeypatch.undo()
    return taken


def test_simulate_block_dispatches_to_the_pool_path_only_with_every_option_off(monkeypatch):
    inputs, _ = kernel_inputs(POOL["waits"], None, 4)
    n_cat = inputs.n_categories
    # without planned maintenance the pool path reduces a buffer of failures at a time
    # (tests/test_pool_reduced.py); with it, one event at a time
    assert _path_taken(inputs, monkeypatch) == ["_block_pool_reduced"]
    maint, _ = kernel_inputs(POOL["maintenance"], None, 4)
    assert _path_taken(maint, monkeypatch) == ["_block_pool"]
    options = {
        "overhead rows": dict(overhead_factor=np.ones((1, len(OVERHEADS)))),
        "overhead jitter": dict(overhead_jitter=np.array([0.0, 0.0, 0.1, 0.0])),
        "rate profiles": dict(cat_profile=np.ones((n_cat, WEEK_HOURS))),
        "diurnal amplitude per draw": dict(draw_amp=np.full((1, n_cat), 0.3)),
        "trend per draw": dict(draw_trend=np.array([1.2])),
        "trend": dict(trend_shape=0.8),
        "diurnal amplitude": dict(cat_amp=np.full(n_cat, 0.3)),
        "throughput cycle": dict(speed_amp=0.01),
    }
    for label, change in options.items():
        taken = _path_taken(dataclasses.replace(inputs, **change), monkeypatch)
        assert taken == ["_block_general"], label
    # the renewal configuration (unlimited spares) still takes the renewal path
    unlimited, _ = kernel_inputs(POOL["unlimited"], None, 4)
    assert _path_taken(unlimited, monkeypatch) == ["_block_renewal"]


def test_pool_path_does_not_apply_to_time_variation_or_uncertain_overheads():
    assert _kernels.pool_applies(False, False)
    assert not _kernels.pool_applies(True, False)
    assert not _kernels.pool_applies(False, True)
    # with a diurnal throughput cycle simulate_block takes the general path: its outputs
    # differ from the pool path's (the cycle is not the pool path's process)
    inputs, _ = kernel_inputs(POOL["waits"], None, 200)
    cycled = dataclasses.replace(inputs, speed_amp=0.3)
    assert _same(_run(_kernels.simulate_block, cycled, 3), _run(_kernels._block_pool, cycled, 3))


def test_negative_control_the_comparison_sees_one_ulp_of_one_input():
    # the general path given a restart one unit in the last place longer: outputs differ
    inputs, _ = kernel_inputs(POOL["waits"], None, N_TRIALS)
    nudged = dataclasses.replace(
        inputs, restart_hours=float(np.nextafter(inputs.restart_hours, np.inf))
    )
    pool = _run(_kernels._block_pool, inputs, seed=7)
    assert "wall_hours" in _same(pool, _run(_kernels._block_general, nudged, seed=7))
    # and a longer repair changes the spare waits beyond float noise
    slow = _with_policy(POOL["waits"], repair_hours=5.5)
    other = _run(_kernels._block_general, kernel_inputs(slow, None, N_TRIALS)[0], seed=7)
    assert "lost_hours" in _same(pool, other)


@st.composite
def pool_scenarios(draw):
    """Random constant-rate scenarios with swaps and a finite pool (maintenance optional)."""
    cats = [
        Category(
            f"c{j}",
            rate=draw(st.sampled_from([0.0, 1e-3, 0.02, 0.2, 1.0])),
            unit=draw(st.sampled_from(["node", "gpu", "job"])),
            recovery=draw(st.sampled_from(["swap", "restart"])),
            detection_hours=draw(st.sampled_from([0.0, 0.05, 0.5])),
        )
        for j in range(draw(st.integers(1, 4)))
    ]
    tau = draw(st.sampled_from([0.2, 0.5, 1.5]))
    sc = _scenario(
        cats,
        n_gpus=draw(st.sampled_from([8, 64, 512])),
        work=draw(st.sampled_from([0.3, 2.0, 7.7])),
        checkpoint_interval=tau,
        snapshot_hours=draw(st.sampled_from([0.0, 0.02, 0.3])),
        persist_hours=draw(st.sampled_from([0.0, 0.1])) * tau,
        restart_hours=draw(st.sampled_from([0.0, 0.1, 0.7])),
        swap_hours=draw(st.sampled_from([0.0, 0.05, 0.4])),
        n_spares=draw(st.sampled_from([0, 1, 3, 50])),
        repair_hours=draw(st.sampled_from([0.2, 4.0, 50.0])),
        wall_cap_factor=draw(st.sampled_from([1.2, 3.0, 20.0])),
        max_events=draw(st.sampled_from([1, 5, 1_000_000])),
    )
    rate = draw(st.sampled_from([0.0, 0.0, 0.3, 3.0]))
    return _with_maint(sc, rate, draw(st.sampled_from([0.0, 0.2, 1.0]))) if rate else sc


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=pool_scenarios(), seed=st.integers(0, 2**32 - 1))
def test_pool_path_equals_the_general_path_on_random_scenarios(sc, seed):
    inputs, _ = kernel_inputs(sc, None, 40)
    pool = _run(_kernels._block_pool, inputs, seed)
    assert _same(pool, _run(_kernels._block_general, inputs, seed)) == []
    # the accounting holds on its own too: wall = progress + lost, within the cap and budget
    np.testing.assert_allclose(
        pool["progress_hours"] + pool["lost_hours"].sum(axis=1),
        pool["wall_hours"],
        rtol=1e-9,
        atol=1e-12,
    )
    assert (pool["lost_hours"] >= 0).all()
    assert (pool["wall_hours"] <= inputs.cap_hours * (1 + 1e-12)).all()
    assert (pool["events"] <= inputs.max_events).all()
    done = pool["finished"]
    np.testing.assert_allclose(pool["progress_hours"][done], inputs.work_hours, rtol=1e-12)
