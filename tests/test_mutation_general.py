"""Tests added by the mutation sample of benchmarks/MUTATION_GENERAL.md (the general path).

Each kills a sampled mutant that the existing tests let survive and that is not equivalent.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from kernelcheck import disagreements
from test_fast_paths import _run
from test_kernel_vs_reference import _scenario

from relmc._seed import resolve_seed
from relmc.scenario import Category
from relmc.sim import _kernels
from relmc.sim.reference import simulate_reference
from relmc.sim.simulate import kernel_inputs, run_kernel


def _deferred_then_failure(n_trials: int, peak_b: float = 12.0):
    """A 0.02-h job with a 2.5-h snapshot and a 0.02-h persist, planned events at 6 an hour
    (most fall after the job's last compute: deferred past its end, uncounted), two job-level
    categories of amplitude 1 peaking at 0:00 and ``peak_b``, from 6:00, each trial stopped
    by its first event (``max_events = 1``)."""
    sc = _scenario(
        [
            Category("a", rate=0.6, unit="job", diurnal_amplitude=1.0, diurnal_peak_hour=0.0),
            Category("b", rate=0.6, unit="job", diurnal_amplitude=1.0, diurnal_peak_hour=peak_b),
        ],
        work=0.02,
        maint=(6.0, 0.05),
        checkpoint_interval=0.02,
        snapshot_hours=2.5,
        persist_hours=0.02,
        restart_hours=0.05,
        wall_cap_factor=1000.0,
    )
    sc = dataclasses.replace(sc, job=dataclasses.replace(sc.job, start_hour=6.0))
    x, _ = kernel_inputs(sc, None, n_trials)
    return dataclasses.replace(x, max_events=1)


def test_a_failure_after_a_deferred_planned_event_takes_its_category_at_its_time():
    """The general path (the diurnal categories of different shapes: a category drawn at the
    failure's time): where a planned event falls after the job's last compute it is deferred
    past the end, and the failure process goes on; a failure before the end of the final
    snapshot and persist takes its category at its own time, ``t + e_w``. Here nearly every
    trial's one event is such a failure, between 6:01 and 8:33, where category ``a`` has
    about a third of the intensity. A mutant of the sample (``t + e_w`` -> ``t / e_w``: the
    pick at 6:00 in the first run, share one half) survived every test: it is seen here in
    the count of each category against the oracle (4.5 combined SE, kernelcheck). Negative
    control: the oracle with category ``b``'s peak at 15:00 instead of 12:00 is seen too.
    """
    x = _deferred_then_failure(6000)
    assert x.modulated and x.cat_rate.shape[1] == 2
    general = _run(_kernels._block_general, x, seed=3)
    oracle = simulate_reference(x, np.random.default_rng(4))
    n_fail = general["interruptions"].sum(axis=1)
    assert n_fail.mean() > 0.7 and general["maintenance_events"].mean() < 0.2
    share_a = general["interruptions"][:, 0].sum() / n_fail.sum()
    assert 0.3 < share_a < 0.46, share_a  # 0.40 (its SE 0.007); a pick at 6:00 gives 0.5
    assert disagreements(general, oracle) == []
    # and the path a run takes for these inputs (the diurnal path, whose loop one by one
    # defers such planned events too)
    assert _kernels.diurnal_applies(x.maint_rate, x.n_spares, x.swap, True, False, False)
    chosen, _ = run_kernel(x, resolve_seed(5), n_threads=1)
    assert disagreements(chosen, oracle) == []
    wrong = simulate_reference(_deferred_then_failure(6000, 15.0), np.random.default_rng(4))
    assert any(d.startswith("interruptions") for d in disagreements(general, wrong))
