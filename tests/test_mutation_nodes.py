"""Tests added by the node path's mutation sample at 158b185 (benchmarks/MUTATION_NODES.md).

Each kills a sampled mutant that the existing tests let survive and that is not equivalent.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from nodeinputs import node_disagreements, node_inputs, run

from relmc.sim.reference import simulate_reference


def _deferred_then_failure(n_trials: int, rate: float = 0.6):
    """A node-model job (8 nodes, 30 % bad ones, lemon detection) of one 0.02-h segment
    with a 2.5-h snapshot and a 0.02-h persist, constant rates (``rate`` an hour for the
    job in all, bad nodes 5 times as often), planned events at 6 an hour: most fall after
    the job's last compute (in the final snapshot), are deferred past its end and
    uncounted; each trial stops at its first event (``max_events = 1``)."""
    x = node_inputs(
        [rate / 2, rate / 2],
        n_trials=n_trials,
        n_nodes=8,
        bad_fraction=0.3,
        bad_multiplier=[5.0, 1.0],
        lemon_k=2,
        lemon_window=20.0,
        work_hours=0.02,
        tau=0.02,
        delta=2.5,
        persist=0.02,
        restart_hours=0.05,
        maint_rate=6.0,
        maint_hours=0.05,
        cap_hours=1000.0,
    )
    return dataclasses.replace(x, max_events=1)


def test_a_failure_after_a_deferred_planned_event_still_happens():
    """The node path, constant rates: where a planned event falls after the job's last
    compute it is deferred past the end, and the failure process goes on from there, so a
    failure in the rest of the final snapshot still interrupts the job (about 0.7 of the
    trials here). A mutant of the sample (``fail_rate > 0`` -> ``fail_rate < 0``: no
    failure after a deferral) survived every test; here the interruptions per trial
    against the oracle's differ by tens of standard errors (kernelcheck's 4.5). Negative
    control: the oracle with a third of the failure rate is seen too.
    """
    x = _deferred_then_failure(4000)
    assert x.node_model and not x.modulated
    kernel = run("kernel", x, seed=3)
    oracle = simulate_reference(x, np.random.default_rng(4))
    n_fail = kernel["interruptions"].sum(axis=1)
    assert n_fail.mean() > 0.5 and kernel["maintenance_events"].mean() < 0.2, (
        n_fail.mean(),
        kernel["maintenance_events"].mean(),
    )
    assert node_disagreements(kernel, oracle) == []
    wrong = run("reference", _deferred_then_failure(4000, 0.2), seed=4)
    assert any(d.startswith("interruptions") for d in node_disagreements(kernel, wrong))
