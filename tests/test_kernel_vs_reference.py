"""The numba kernel against the slow event-by-event oracle, written apart from it.

Both implement the contract in ``relmc.sim``; the oracle keeps one clock per category and steps
every segment, the kernel superposes rates and jumps whole segments. They share no random
stream, so they are compared as distributions.

Tolerances: per scenario, each compared mean must be within 4.5 combined standard errors and
the two-sample KS test on wall time must have p > 1e-4. About 70 comparisons are made in all,
so a correct kernel fails the file with probability below ~1e-3; the negative control shows
the same checks catch a 10 % error in one parameter.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from kernelcheck import disagreements

from relmc._seed import resolve_seed
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario
from relmc.sim.reference import simulate_reference
from relmc.sim.simulate import kernel_inputs, run_kernel


def _scenario(cats, *, n_gpus=1024, work=20.0, maint=(0.0, 0.0), **policy):
    fm = FailureModel(tuple(cats), maintenance_rate=maint[0], maintenance_hours=maint[1])
    return Scenario(
        cluster=Cluster(n_gpus=n_gpus), failures=fm, job=Job(work), policy=Policy(**policy)
    )


SCENARIOS = {
    # every feature on at once
    "all_features": _scenario(
        [
            Category("gpu", rate=3e-5, unit="gpu", recovery="swap"),
            Category("node", rate=1e-4, unit="node", recovery="swap", detection_hours=0.05),
            Category("hang", rate=2e-5, unit="gpu", detection_hours=1 / 6),
            Category("bug", rate=0.03, unit="job"),
        ],
        maint=(0.08, 0.1),
        checkpoint_interval=0.5,
        snapshot_hours=1 / 60,
        persist_hours=0.1,
        restart_hours=1 / 6,
        swap_hours=0.25,
        n_spares=3,
        repair_hours=4.0,
    ),
    # persist as long as the interval, frequent maintenance, remainder segment (W/tau not whole)
    "max_persist": _scenario(
        [
            Category("g", rate=2e-4, unit="gpu"),
            Category("n", rate=1e-3, unit="node", recovery="swap"),
        ],
        n_gpus=512,
        work=7.3,
        maint=(0.5, 0.0),
        checkpoint_interval=0.4,
        snapshot_hours=0.05,
        persist_hours=0.4,
        restart_hours=0.1,
        swap_hours=0.05,
    ),
    # no spares and long repairs: waiting for spares dominates
    "no_spares": _scenario(
        [Category("n", rate=2e-3, unit="node", recovery="swap")],
        n_gpus=256,
        work=10.0,
        checkpoint_interval=1.0,
        snapshot_hours=0.02,
        restart_hours=0.05,
        n_spares=0,
        repair_hours=2.0,
    ),
    # hopeless: MTBF far below the restart time; every trial ends at the wall cap
    "hopeless": _scenario(
        [Category("g", rate=1e-3, unit="gpu")],
        n_gpus=8192,
        work=5.0,
        checkpoint_interval=0.5,
        restart_hours=0.5,
        wall_cap_factor=3.0,
    ),
    # many cheap checkpoints between failures: the kernel jumps hundreds of segments at once
    "tiny_interval": _scenario(
        [Category("g", rate=1e-4, unit="gpu")],
        n_gpus=2048,
        work=15.0,
        checkpoint_interval=0.02,
        snapshot_hours=0.001,
        persist_hours=0.01,
        restart_hours=0.1,
    ),
    # the cap falls during maintenance checkpoints while earlier persists are under way
    "cap_in_maintenance": _scenario(
        [Category("g", rate=1e-4, unit="gpu")],
        n_gpus=1024,
        work=2.0,
        maint=(1.0, 0.0),
        checkpoint_interval=1.0,
        snapshot_hours=0.5,
        persist_hours=1.0,
        restart_hours=0.1,
        wall_cap_factor=1.4,
    ),
    # frequent failures and a small event budget: trials stop at their 5th event
    "event_cap": _scenario(
        [Category("g", rate=5e-4, unit="gpu"), Category("b", rate=0.3, unit="job")],
        n_gpus=1024,
        work=10.0,
        maint=(0.2, 0.1),
        checkpoint_interval=0.5,
        persist_hours=0.2,
        restart_hours=0.2,
        max_events=5,
    ),
}
N_TRIALS = {
    "cap_in_maintenance": 2000,
    "event_cap": 2000,
    "all_features": 2000,
    "max_persist": 2000,
    "no_spares": 2000,
    "hopeless": 300,
    "tiny_interval": 1500,
}


def _run_both(scenario, n, seed, ref_scenario=None):
    inputs, _ = kernel_inputs(scenario, None, n)
    fast, _ = run_kernel(inputs, resolve_seed(seed), n_threads=2)
    ref_inputs, _ = kernel_inputs(ref_scenario or scenario, None, n)
    slow = simulate_reference(ref_inputs, np.random.default_rng(seed + 1000))
    return fast, slow


_disagreements = disagreements  # test_physics imports it from here


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_kernel_matches_reference(name):
    fast, slow = _run_both(SCENARIOS[name], N_TRIALS[name], seed=20)
    assert _disagreements(fast, slow) == []
    # the accounting identity holds in both, trial by trial
    for out in (fast, slow):
        np.testing.assert_allclose(
            out["progress_hours"] + out["lost_hours"].sum(axis=1), out["wall_hours"], rtol=1e-9
        )


def test_hopeless_scenario_stops_at_the_cap_in_both():
    fast, slow = _run_both(SCENARIOS["hopeless"], 50, seed=3)
    for out in (fast, slow):
        assert not out["finished"].any()
        np.testing.assert_allclose(out["wall_hours"], 15.0)


@pytest.mark.slow
def test_negative_control_detects_a_ten_percent_restart_error():
    # the oracle is given restart times 10 % longer: the same checks must see it
    base = SCENARIOS["all_features"]
    wrong = dataclasses.replace(
        base, policy=dataclasses.replace(base.policy, restart_hours=base.policy.restart_hours * 1.1)
    )
    fast, slow = _run_both(base, N_TRIALS["all_features"], seed=20, ref_scenario=wrong)
    assert any(b.startswith("lost_restart") for b in _disagreements(fast, slow))
