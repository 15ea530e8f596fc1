"""``Category.rate_multiplier``: a what-if factor on a rate, whatever gives it; and the refusal
of a rate change that a posterior would silently replace (in ``compare`` and the CLI)."""

import numpy as np
import pytest
import xarray as xr

import relmc
from relmc.rates import cluster_rates, rate_draws
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path

OUTPUTS = ("ettr", "wall_hours", "interruptions", "lost_hours")


def _base(mult_a=1.0, rate_a=2e-4):
    cats = (
        Category("a", rate=rate_a, unit="gpu", detection_hours=0.05, rate_multiplier=mult_a),
        Category("b", rate=1e-3, unit="node", detection_hours=0.1),
    )
    return Scenario(cluster=Cluster(n_gpus=512), failures=FailureModel(cats), job=Job(100.0),
                    policy=Policy(restart_hours=0.3))  # fmt: skip


def _posterior(scale_a=1.0, n_gpus=0):
    """Rate draws of "a" and "b" (draw, category); ``n_gpus`` > 0: per wall-clock hour of a
    window observed on that many GPUs (the exposure-clock conversion applies)."""
    rng = np.random.default_rng(5)
    v = np.stack([rng.gamma(50, 2e-4 / 50, 64) * scale_a, rng.gamma(20, 1e-3 / 20, 64)], 1)
    da = xr.DataArray(v, dims=("draw", "category"), coords={"category": ["a", "b"]})
    if n_gpus:
        da.attrs["n_gpus"] = n_gpus
    return da


def _same(x, y):
    for name in OUTPUTS:
        np.testing.assert_array_equal(x[name].values, y[name].values, err_msg=name)


def test_a_multiplier_of_two_is_the_rate_doubled_bit_for_bit():
    # x 2 is exact in binary floating point, so rate * 2 and the multiplier 2 give the same
    # kernel rates and so the same trials; negative control: the base scenario differs
    doubled = relmc.simulate(_base(rate_a=4e-4), n_trials=400, seed=3)
    mult = relmc.simulate(_base(mult_a=2.0), n_trials=400, seed=3)
    _same(doubled, mult)
    base = relmc.simulate(_base(), n_trials=400, seed=3)
    assert not np.array_equal(base["ettr"].values, mult["ettr"].values)
    # more failures of "a": about twice as many (4 SE at 400 trials is far wider than 5%)
    ia, ib = (float(r["interruptions"].sel(category="a").mean()) for r in (mult, base))
    assert ia > 1.5 * ib


def test_multiplier_one_is_the_default_bit_for_bit():
    _same(
        relmc.simulate(_base(mult_a=1.0), n_trials=300, seed=4),
        relmc.simulate(_base(), n_trials=300, seed=4),
    )


def test_with_a_posterior_the_multiplier_scales_the_draws():
    # without an observed size: the same as the posterior's draws of "a" doubled, bit for bit
    sc = _base(mult_a=2.0)
    _same(
        relmc.simulate(sc, rates=_posterior(), n_trials=300, seed=6),
        relmc.simulate(_base(), rates=_posterior(scale_a=2.0), n_trials=300, seed=6),
    )
    # with an observed size the exposure conversion takes the rates as observed, and the
    # multiplier scales the converted rate: column "a" doubles exactly, "b" is unchanged
    post = _posterior(n_gpus=512)
    plain = cluster_rates(_base(), rate_draws(_base(), post))
    scaled = cluster_rates(sc, rate_draws(sc, post))
    np.testing.assert_array_equal(scaled[:, 0], 2.0 * plain[:, 0])
    np.testing.assert_array_equal(scaled[:, 1], plain[:, 1])
    # negative control: doubling the draws instead changes the observed job's exposure too
    doubled = cluster_rates(_base(), rate_draws(_base(), _posterior(2.0, n_gpus=512)))
    assert not np.array_equal(doubled, scaled)


@pytest.mark.parametrize("bad", [-0.5, float("nan"), float("inf"), "2"])
def test_bad_multipliers_are_named(bad):
    with pytest.raises(ValueError, match=r"failures.categories\['a'\].rate_multiplier"):
        Category("a", rate=1e-4, rate_multiplier=bad)


def test_an_overflowing_multiplier_is_named_before_any_work():
    sc = _base(mult_a=1e300)
    with pytest.raises(ValueError, match=r"failures.categories\['a'\].rate_multiplier: .*overflow"):
        relmc.simulate(sc, n_trials=10, seed=1)


def test_compare_refuses_a_rate_the_posterior_replaces():
    base = _base()
    changed = replace_path(base, "failures.categories.a.rate", 1e-3)
    for source in (_posterior(), {"a": 2e-4}):
        with pytest.raises(ValueError, match=r"failures.categories\['a'\].rate is 0.0002 in "):
            relmc.compare({"x": base, "y": changed}, posterior=source, n_trials=10, seed=1)
    # negative controls: without a posterior the change is the comparison; a category the
    # mapping does not give keeps its scenario rate, so changing it is allowed too
    relmc.compare({"x": base, "y": changed}, n_trials=10, seed=1)
    b_changed = replace_path(base, "failures.categories.b.rate", 2e-3)
    relmc.compare({"x": base, "y": b_changed}, posterior={"a": 2e-4}, n_trials=10, seed=1)


def test_compare_with_a_multiplier_on_a_posterior():
    base = _base()
    more = replace_path(base, "failures.categories.a.rate_multiplier", 2.0)
    ds = relmc.compare({"x": base, "y": more}, posterior=_posterior(), n_trials=600, seed=2)
    # the second is the posterior with "a" doubled, trial for trial
    sim = relmc.simulate(base, rates=_posterior(scale_a=2.0), n_trials=600, seed=2)
    np.testing.assert_array_equal(ds["ettr"].sel(scenario="y"), sim["ettr"])
    # more failures lose ETTR: beyond 4 SE
    assert float(ds["gain_mean"].sel(scenario="y")) < -4 * float(ds["gain_se"].sel(scenario="y"))
    # the interval each scenario ran with is recorded
    ci = ds["checkpoint_interval_hours"]
    assert ci.attrs["units"] == "h"
    np.testing.assert_array_equal(ci, [base.policy.checkpoint_interval] * 2)


def test_compare_records_a_rules_interval():
    base = _base()
    daly = replace_path(base, "policy.checkpoint_interval", "daly")
    ds = relmc.compare({"x": base, "daly": daly}, n_trials=20, seed=2)
    sim = relmc.simulate(daly, n_trials=20, seed=2)
    assert float(ds["checkpoint_interval_hours"].sel(scenario="daly")) == pytest.approx(
        sim.attrs["checkpoint_interval_hours"], rel=0, abs=0
    )
    assert float(ds["checkpoint_interval_hours"].sel(scenario="daly")) != float(
        ds["checkpoint_interval_hours"].sel(scenario="x")
    )


def test_scenario_mttf_takes_the_multiplier():
    sc = _base()
    doubled = replace_path(sc, "failures.categories.*.rate_multiplier", 2.0)
    assert doubled.mttf_hours() == sc.mttf_hours() / 2.0
    # the same as the rate path's, for point rates
    from relmc.rates import mttf_hours

    assert float(mttf_hours(doubled, rate_draws(doubled))[0]) == pytest.approx(
        doubled.mttf_hours(), rel=1e-12
    )


def test_tables_on_a_fit_accept_its_own_rate_and_refuse_another():
    fit = _base().failures
    same = fit.with_tables({"categories": [{"name": "a", "rate": fit.category("a").rate}]})
    assert [c["name"] if isinstance(c, dict) else c.name for c in same["categories"]] == ["a", "b"]
    with pytest.raises(ValueError, match=r"failures.categories\['a'\].rate: the posterior gives"):
        fit.with_tables({"categories": [{"name": "a", "rate": 3e-4}]})
    # a table that is not a category (a name of the wrong type) is left for the model's check
    odd = {"categories": [{"name": ["a"], "kind": "straggler"}]}
    assert fit.with_tables(odd) is odd
