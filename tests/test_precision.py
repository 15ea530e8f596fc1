"""Adaptive precision: stop adding trials at a target standard error, or when hopeless."""

import numpy as np
import pytest

from relmc import Precision
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario
from relmc.sim.simulate import BLOCK_SIZE, simulate


def _scenario(rate_per_hour=0.5, restart=0.2, work=50.0):
    cats = (Category("f", rate=rate_per_hour, unit="job"),)
    return Scenario(
        cluster=Cluster(n_gpus=8),
        failures=FailureModel(cats),
        job=Job(work),
        policy=Policy(checkpoint_interval=0.5, snapshot_hours=0.05, restart_hours=restart),
    )


def _se(x):
    return float(np.std(x, ddof=1) / np.sqrt(x.size))


def test_stops_at_the_target_with_a_prefix_of_the_full_run():
    sc = _scenario()
    full = simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=1)
    target = 2.0 * _se(full.ettr.values)  # met well before the budget: SE ~ 1/sqrt(n)
    ad = simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=1,
                  precision=Precision(target_se=target))  # fmt: skip
    n = ad.sizes["trial"]
    assert ad.attrs["stopped_by"] == "target"
    assert n % BLOCK_SIZE == 0 and 2 * BLOCK_SIZE <= n < 16 * BLOCK_SIZE
    assert _se(ad.ettr.values) <= target
    # the rule was checked at block-doubling rounds: one round fewer would have missed it
    assert _se(full.ettr.values[: n // 2]) > target or n == 2 * BLOCK_SIZE
    # a prefix of the run with the same seed, bit for bit, and the same on 2 threads
    np.testing.assert_array_equal(ad.wall_hours.values, full.wall_hours.values[:n])
    two = simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=2,
                   precision=Precision(target_se=target))  # fmt: skip
    np.testing.assert_array_equal(two.wall_hours.values, ad.wall_hours.values)


def test_the_round_before_the_last_is_checked_too():
    # rounds at 1, 2, 4, 8 blocks, then all 16: a target first met at 8 blocks stops there
    # (not at the budget: the check before the last round counts)
    sc = _scenario()
    full = simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=1)
    x = full.ettr.values
    target = _se(x[: 8 * BLOCK_SIZE]) * (1 + 1e-9)
    assert _se(x[: 4 * BLOCK_SIZE]) > target  # not met a round earlier
    ad = simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=1,
                  precision=Precision(target_se=target, min_trials=2))  # fmt: skip
    assert ad.attrs["stopped_by"] == "target" and ad.sizes["trial"] == 8 * BLOCK_SIZE


def test_a_rule_first_met_at_the_last_round_is_recorded():
    # rounds at 1, 2, 4, 8 blocks, then all 16: a target first met with all 16 ran the same
    # trials as without it, and says so ("target", not "n_trials": the budget did not run
    # out before it was met); a floor first met there says "hopeless"
    sc = _scenario()
    full = simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=1)
    x = full.ettr.values
    se16 = _se(x)
    assert _se(x[: 8 * BLOCK_SIZE]) > se16 * (1 + 1e-9)  # not met a round earlier

    def run(**kw):
        return simulate(sc, n_trials=16 * BLOCK_SIZE, seed=5, n_threads=1,
                        precision=Precision(min_trials=2, **kw))  # fmt: skip

    met = run(target_se=se16 * (1 + 1e-9))
    assert met.attrs["stopped_by"] == "target" and met.sizes["trial"] == 16 * BLOCK_SIZE
    np.testing.assert_array_equal(met.wall_hours.values, full.wall_hours.values)
    floor = x.mean() + 4 * se16  # "below" is strict: just above the last round's bound
    bounds = [x[: b * BLOCK_SIZE].mean() + 4 * _se(x[: b * BLOCK_SIZE]) for b in (1, 2, 4, 8)]
    assert min(bounds) >= floor * (1 + 1e-9)  # not met a round earlier
    assert run(hopeless_ettr=floor * (1 + 1e-9)).attrs["stopped_by"] == "hopeless"
    # negative controls: the rule just not met at the last round leaves the budget's label
    assert run(target_se=se16 * (1 - 1e-9)).attrs["stopped_by"] == "n_trials"
    assert run(hopeless_ettr=floor * (1 - 1e-9)).attrs["stopped_by"] == "n_trials"
    # one round only (the budget within min_trials): checked too
    one = simulate(sc, n_trials=BLOCK_SIZE, seed=5, n_threads=1,
                   precision=Precision(target_se=1.0))  # fmt: skip
    assert one.attrs["stopped_by"] == "target" and one.sizes["trial"] == BLOCK_SIZE


def test_unreachable_target_runs_the_whole_budget():
    sc = _scenario()
    ad = simulate(sc, n_trials=4 * BLOCK_SIZE, seed=1, precision=Precision(target_se=1e-9))
    assert ad.attrs["stopped_by"] == "n_trials"
    assert ad.sizes["trial"] == 4 * BLOCK_SIZE
    assert ad.attrs["n_trials_budget"] == 4 * BLOCK_SIZE


def test_relative_target():
    sc = _scenario()
    ad = simulate(sc, n_trials=32 * BLOCK_SIZE, seed=2, precision=Precision(target_rse=2e-3))
    x = ad.ettr.values
    assert ad.attrs["stopped_by"] == "target"
    assert _se(x) <= 2e-3 * x.mean()


def test_hopeless_scenario_stops_early_with_a_flag():
    # failures every 3 minutes against 12-minute restarts: no trial finishes, ETTR ~ 0
    hopeless = _scenario(rate_per_hour=20.0, restart=0.2, work=20.0)
    ad = simulate(hopeless, n_trials=64 * BLOCK_SIZE, seed=3,
                  precision=Precision(hopeless_ettr=0.05))  # fmt: skip
    assert ad.attrs["stopped_by"] == "hopeless"
    assert ad.sizes["trial"] == 2 * BLOCK_SIZE  # the first check
    assert float(ad.ettr.mean()) < 0.05
    # negative control: a healthy scenario is never called hopeless at the same floor
    ok = simulate(_scenario(), n_trials=8 * BLOCK_SIZE, seed=3,
                  precision=Precision(hopeless_ettr=0.05))  # fmt: skip
    assert ok.attrs["stopped_by"] == "n_trials"
    assert ok.sizes["trial"] == 8 * BLOCK_SIZE


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"target_se": 0.0}, "precision.target_se"),
        ({"target_rse": -1.0}, "precision.target_rse"),
        ({"target_se": float("nan")}, "precision.target_se"),
        ({"hopeless_ettr": 1.5}, "precision.hopeless_ettr"),
        ({"min_trials": 1, "target_se": 0.01}, "precision.min_trials"),
        ({}, "precision needs a target_se"),  # nothing to stop on
        ({"min_trials": 512}, "precision needs a target_se"),
    ],
)
def test_bad_precision_is_named(kwargs, field):
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        Precision(**kwargs)
    with pytest.raises(ValueError, match="precision must be"):
        simulate(_scenario(), n_trials=10, precision={"target_se": 0.1})


def test_project_records_trials_and_why_per_size():
    import relmc

    cats = (Category("f", rate=2e-6, unit="gpu"),)
    sc = Scenario(failures=FailureModel(cats), job=Job(50.0),
                  policy=Policy(restart_hours=0.5))  # fmt: skip
    # 1e3 GPUs: MTTF 500 h, healthy; 1e7 GPUs: MTTF 3 min against 30-min restarts, hopeless
    with pytest.warns(relmc.errors.NotFinishedWarning, match="n_gpus=10,000,000"):
        proj = relmc.project(None, n_gpus=[1000, 10_000_000], scenario=sc, seed=4,
                             n_trials=16 * BLOCK_SIZE,
                             precision=Precision(target_rse=0.01, hopeless_ettr=0.05))  # fmt: skip
    assert proj["stopped_by"].values.tolist() == ["target", "hopeless"]
    assert proj["n_trials"].values.tolist()[1] == 2 * BLOCK_SIZE
    assert proj["n_trials"].values.tolist()[0] <= 16 * BLOCK_SIZE
    healthy = proj.sel(n_gpus=1000)
    assert float(healthy.ettr_se) <= 0.01 * float(healthy.ettr_mean)
