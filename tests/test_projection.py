"""relmc.project and relmc.optimize_checkpoint: layout, published values, scaling, Daly."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
import scipy.stats
import xarray as xr

import relmc
from relmc.analytic import daly_expected_wall, daly_interval
from relmc.datasets import load_dataset
from relmc.models import fit_conjugate
from relmc.projection import (
    DEFAULT_SIZES,
    QUANTILES,
    check_sizes,
    credible_quantiles,
    default_scenario,
)
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path
from relmc.sim import CAUSES

SIZES = [2048, 16384, 65536]
TRIALS = 256


@pytest.fixture(scope="module")
def data():
    return load_dataset("llama3-405b")


@pytest.fixture(scope="module")
def posterior(data):
    return fit_conjugate(data, seed=0)


@pytest.fixture(scope="module")
def proj(posterior):
    return relmc.project(posterior, n_gpus=SIZES, n_trials=TRIALS, seed=11)


def test_layout(proj, data):
    assert dict(proj.sizes) == {
        "n_gpus": 3,
        "quantile": 5,
        "cause": len(CAUSES),
        "category": data.sizes["category"],
    }
    assert proj["n_gpus"].values.tolist() == SIZES
    assert proj["quantile"].values.tolist() == list(QUANTILES)
    assert proj["cause"].values.tolist() == list(CAUSES)
    assert proj["category"].values.tolist() == data["category"].values.tolist()
    assert proj["unit"].values.tolist() == data["unit"].values.tolist()
    for name in (
        "mttf_hours_quantile",
        "interruptions_per_day_quantile",
        "ettr_quantile",
        "wall_hours_quantile",
    ):
        assert proj[name].dims == ("n_gpus", "quantile"), name
        # quantiles are ordered along the quantile dim
        assert np.all(np.diff(proj[name].values, axis=1) >= 0), name
    assert proj["lost_hours_quantile"].dims == ("n_gpus", "cause", "quantile")
    assert proj["lost_fraction_mean"].dims == ("n_gpus", "cause")
    assert proj["interruptions_mean"].dims == ("n_gpus", "category")
    for name in ("ettr_mean", "ettr_se", "finished_fraction", "checkpoint_interval_hours"):
        assert proj[name].dims == ("n_gpus",), name
    assert "interval_definition" in proj.attrs and "0.05" in proj.attrs["interval_definition"]
    sc = Scenario.from_dict(__import__("json").loads(proj.attrs["scenario"]))
    assert sc.policy == Policy()
    assert proj.attrs["seed_entropy"] == "11"
    assert proj.attrs["n_trials"] == TRIALS
    assert proj.attrs["dataset"] == "llama3-405b"
    assert proj.attrs["time_units"] == "hours"
    # per trial, useful + lost = wall, so mean ETTR + lost fractions ~ 1 (ratio of means vs
    # mean of ratios differ only by the spread of wall times: a few 1e-3 at these sizes)
    total = proj["ettr_mean"] + proj["lost_fraction_mean"].sum("cause")
    np.testing.assert_allclose(total, 1.0, atol=5e-3)
    assert np.all(proj["finished_fraction"] == 1.0)


def test_mttf_at_16k_matches_llama3(proj):
    # Every Llama 3 unit scales in proportion at 16,384 GPUs (the observed size), so on the
    # wall clock of the window Lambda(16384) = sum_c Gamma(x_c + 1/36, E_c) units_c =
    # Gamma(419 + 1/2, 1296 h) exactly (fit_conjugate's default prior, Gamma(1/(2K), 0) per
    # category for K = 18, gives the total Jeffreys' Gamma(1/2, 0)). MTTF is on the kernel's
    # exposed clock: the wall-clock time between interruptions times the exposed share f.
    f = float(proj["exposed_fraction_mean"].sel(n_gpus=16384))
    # closed form of f at the default policy: the 35 + 7 hang interruptions (+ 2 x 1/36 prior)
    # wait 10 min for the NCCL watchdog, the 47 planned ones take a 1-minute checkpoint;
    # nothing else pauses (no swap time, no downtime). f varies by < 0.1% over draws.
    hangs = (35 + 7 + 2 / 36) / 1296 * (10 / 60)
    planned = 47 / 1296 * (1 / 60)
    assert f == pytest.approx(1 - hangs - planned, abs=1e-3)
    med = float(proj["mttf_hours_quantile"].sel(n_gpus=16384, quantile=0.5))
    exact = 1296.0 / scipy.stats.gamma(419.5).median()
    # SE of a median of 4000 draws: 1.25 sd / sqrt(4000), sd / mean = 1/sqrt(419.5): 0.1%
    # relative; 0.5% is 5 SE.
    assert med == pytest.approx(exact * f, rel=5e-3)
    # SOURCES.md 1.4: 54 x 24 / 419 = 3.09 h between interruptions on the wall clock; the
    # prior's half pseudo-event moves the median by 0.04%, so the same 0.5% (5 SE) holds
    assert med / f == pytest.approx(3.09, rel=5e-3)
    # the 90% interval (on the wall clock) holds the published point
    lo, hi = proj["mttf_hours_quantile"].sel(n_gpus=16384, quantile=[0.05, 0.95]).values / f
    assert lo < 3.09 < hi


def test_interruptions_scale_linearly(proj):
    ipd = proj["interruptions_per_day_quantile"].sel(quantile=0.5)
    mttf = proj["mttf_hours_quantile"].sel(quantile=0.5)
    # the clock pauses only during detection of the two hang categories (42 of 419 events,
    # 10 min each) and planned checkpoints, so interruptions per wall-clock day ~ 24 f / MTTF
    # with f = 0.994 (test_mttf_at_16k_matches_llama3). Median over 256 trials
    # has a relative SE of ~2% at 2,048 GPUs (~20 events per job); 10% is 5 SE.
    np.testing.assert_allclose(ipd, 24.0 / mttf, rtol=0.10)
    # ~linear in N: 2,048 -> 16,384 is 8x the GPUs but the per-job "Dependency" rate does not
    # grow, so Lambda grows 419.5 / ((419.5 - 2.03) / 8 + 2.03) = 7.74x (2 events + 1/36)
    ratio = float(ipd.sel(n_gpus=16384) / ipd.sel(n_gpus=2048))
    assert ratio == pytest.approx(7.74, rel=0.10)
    assert np.all(np.diff(proj["ettr_mean"].values) < 0)  # bigger jobs lose more


def test_netcdf_round_trip(proj, tmp_path):
    path = tmp_path / "p.nc"
    proj.to_netcdf(path, engine="h5netcdf")
    back = xr.load_dataset(path, engine="h5netcdf")
    xr.testing.assert_identical(back, proj)


def test_deterministic_and_keyed_by_size(posterior):
    a = relmc.project(posterior, n_gpus=[4096, 8192], n_trials=300, seed=3, n_threads=1)
    b = relmc.project(posterior, n_gpus=[8192], n_trials=300, seed=3, n_threads=2)
    # the 8,192-GPU row depends only on (inputs, seed, size): not on the other sizes or threads
    xr.testing.assert_identical(a.sel(n_gpus=[8192]).drop_attrs(), b.drop_attrs())
    c = relmc.project(posterior, n_gpus=[8192], n_trials=300, seed=4)
    assert float(c["ettr_mean"][0]) != float(b["ettr_mean"][0])


def test_point_rates_and_default_sizes():
    assert check_sizes(None) == list(DEFAULT_SIZES)
    assert DEFAULT_SIZES[0] == 2048 and DEFAULT_SIZES[-1] == 131072
    ds = relmc.project(None, n_gpus=1024, n_trials=50, seed=1)
    assert ds.attrs["n_draws"] == 1
    # one draw: the MTTF "posterior" is a point
    assert np.ptp(ds["mttf_hours_quantile"].values) == 0.0
    expected = Scenario.default(cluster=Cluster(n_gpus=1024)).mttf_hours()
    assert float(ds["mttf_hours_quantile"][0, 0]) == pytest.approx(expected, rel=1e-12)


def test_default_scenario_adds_planned_maintenance(posterior, data):
    sc = default_scenario(posterior, data)
    assert sc.failures.maintenance_rate == pytest.approx(47 / 1296)
    # the fit records the planned rate of its data, so the posterior alone gives the same
    assert default_scenario(posterior).failures.maintenance_rate == pytest.approx(47 / 1296)
    assert sc.failures.names == tuple(data["category"].values.tolist())
    # data without planned events: none
    no_planned = relmc.fit_conjugate(data.drop_vars("maintenance_count"), n_draws=10, seed=0)
    assert default_scenario(no_planned).failures.maintenance_rate == 0.0


def test_the_maintenance_record_is_read_where_project_documents_it(posterior):
    # project documents the observation record on posterior["rate"]'s attrs; the fits write
    # it on posterior.attrs too. Read from either (posterior.attrs first), and from rate
    # draws' own attrs; none: no planned maintenance
    from relmc.rates import recorded_maintenance_rate

    post = posterior.posterior
    assert post.attrs["maintenance_rate"] == post["rate"].attrs["maintenance_rate"] > 0
    only_rate = posterior.copy()
    del only_rate.posterior.attrs["maintenance_rate"]
    assert recorded_maintenance_rate(only_rate) == pytest.approx(47 / 1296)
    assert default_scenario(only_rate).failures.maintenance_rate == pytest.approx(47 / 1296)
    both = posterior.copy()
    both.posterior["rate"].attrs["maintenance_rate"] = 0.5
    assert recorded_maintenance_rate(both) == pytest.approx(47 / 1296)  # posterior.attrs first
    assert recorded_maintenance_rate(posterior.posterior["rate"]) == pytest.approx(47 / 1296)
    neither = only_rate.copy()
    del neither.posterior["rate"].attrs["maintenance_rate"]
    assert recorded_maintenance_rate(neither) == 0.0  # negative control
    assert default_scenario(neither).failures.maintenance_rate == 0.0
    # the copies were deep: the module's posterior keeps its record in both places
    assert post.attrs["maintenance_rate"] == post["rate"].attrs["maintenance_rate"]
    assert post["rate"].attrs["maintenance_rate"] == pytest.approx(47 / 1296)


@pytest.mark.parametrize("bad", [0, -1, 1.5, 10**8 + 1, True, [], [2048, "x"], [2048, 0]])
def test_bad_sizes(posterior, bad):
    with pytest.raises(ValueError, match="n_gpus"):
        relmc.project(posterior, n_gpus=bad, n_trials=10)


def test_bad_inputs(posterior):
    with pytest.raises(ValueError, match="n_trials"):
        relmc.project(posterior, n_gpus=2048, n_trials=0)
    other = FailureModel((Category("x", rate=1e-6),))
    with pytest.raises(ValueError, match="categories"):
        relmc.project(posterior, n_gpus=2048, scenario=Scenario(failures=other), n_trials=10)
    with pytest.raises(ValueError, match="posterior"):
        relmc.project("not a posterior", n_gpus=2048, n_trials=10)
    # a scenario that is not one is named, for a projection and a checkpoint search alike
    for run in (relmc.project, relmc.optimize_checkpoint):
        with pytest.raises(ValueError, match="scenario must be a relmc.Scenario; got str"):
            run(posterior, scenario="cluster.toml", n_trials=10)


# --------------------------------------------------------------------------------------------
# optimize_checkpoint


def daly_scenario(mtbf=2.0, delta=0.1, restart=0.2, work=200.0):
    """One exponential job-level category, no detection, restart only: Daly is exact."""
    fm = FailureModel((Category("only", rate=1.0 / mtbf, unit="job"),))
    pol = Policy(
        checkpoint_interval=0.5,
        snapshot_hours=delta,
        restart_hours=restart,
        wall_cap_factor=1e6,
        max_events=10**8,
    )
    return Scenario(cluster=Cluster(n_gpus=8), failures=fm, job=Job(work), policy=pol)


def test_optimize_point_mass_agrees_with_daly():
    m, d, r, w = 2.0, 0.1, 0.2, 200.0
    ds = relmc.optimize_checkpoint(None, daly_scenario(m, d, r, w), n_trials=2000, seed=7)
    tau = float(ds["optimal_interval_hours"])
    # the exact minimiser of Daly's mean wall time (exact for the kernel's process)
    grid = np.geomspace(0.05, 5.0, 20001)
    wall = daly_expected_wall(w, grid, d, r, m)
    best = grid[np.argmin(wall)]
    assert daly_interval(d, m) == pytest.approx(best, rel=0.01)  # Daly's formula is near-exact

    def loss(t):  # exact expected-ETTR shortfall of interval t (W / E[T]; ~100 failures a job)
        return w / wall.min() - w / daly_expected_wall(w, t, d, r, m)

    # ETTR is flat near the optimum, so compare ETTR: the chosen interval loses < 5e-4 of
    # ETTR, about 3 paired SE of the search at 2,000 trials; the interval itself is within 15%.
    assert loss(tau) < 5e-4
    assert tau == pytest.approx(best, rel=0.15)
    # negative control: 1.5x off the optimum must fail the same test
    assert loss(1.5 * best) > 5e-4
    assert float(ds.attrs["mttf_hours"]) == pytest.approx(m)
    dal = ds.sel(rule="daly")
    assert float(dal["interval_hours"]) == pytest.approx(daly_interval(d, m))
    # at a point mass Daly's interval is (near) optimal: its gain is within 4 MC SE of 0
    assert abs(float(dal["gain"])) < 4 * float(dal["gain_se"]) + 1e-4
    assert ds["rule"].values.tolist() == ["optimum", "young", "daly", "scenario"]
    assert ds["ettr_mean"].dims == ("interval",)


def test_optimize_one_draw_posterior_equals_point_rates():
    sc = daly_scenario(work=40.0)
    one = xr.DataArray([[[0.5]]], dims=("chain", "draw", "category"), coords={"category": ["only"]})
    kw = dict(intervals=[0.3, 0.6, 1.2], n_trials=200, seed=5, refine=False)
    a = relmc.optimize_checkpoint(None, sc, **kw)
    b = relmc.optimize_checkpoint(one, sc, **kw)
    np.testing.assert_array_equal(a["ettr_mean"], b["ettr_mean"])
    np.testing.assert_array_equal(a["rule_ettr_mean"], b["rule_ettr_mean"])


def test_optimize_seeds_are_keys_no_fit_uses():
    # relmc optimize fits and optimises with one seed; a conjugate fit draws chain k from its
    # seed's child (0, k), which was the search's block k (search seed child 0). The search
    # and the comparison now use children SEARCH_KEY and FINAL_KEY: the search at an interval
    # is simulate with that seed, bit for bit; the old rule (child 0) gives other trials
    from relmc._seed import child_seed
    from relmc.optimize import FINAL_KEY, SEARCH_KEY

    sc = daly_scenario(work=40.0)
    ds = relmc.optimize_checkpoint(
        None, sc, intervals=[0.3, 0.6, 1.2], n_trials=64, seed=5, refine=False, n_threads=1
    )
    root = np.random.SeedSequence(5)

    def run(key):
        at = replace_path(sc, "policy.checkpoint_interval", 0.6)
        return relmc.simulate(at, n_trials=64, seed=child_seed(root, key), n_threads=1).ettr

    assert ds["ettr_mean"].sel(interval=0.6).item() == run(SEARCH_KEY).mean().item()
    assert ds["ettr_mean"].sel(interval=0.6).item() != run(0).mean().item()
    assert f"[{SEARCH_KEY}]" in ds.attrs["seed_rule"] and f"[{FINAL_KEY}]" in ds.attrs["seed_rule"]
    assert {SEARCH_KEY, FINAL_KEY}.isdisjoint({0, 1})  # the first keys of a fit's streams


def test_optimize_bad_inputs():
    sc = daly_scenario()
    free = Scenario(
        cluster=sc.cluster,
        failures=sc.failures,
        job=sc.job,
        policy=Policy(snapshot_hours=0.0),
    )
    with pytest.raises(ValueError, match="snapshot_hours"):
        relmc.optimize_checkpoint(None, free, n_trials=10)
    with pytest.raises(ValueError, match="intervals"):
        relmc.optimize_checkpoint(None, sc, intervals=[0.5, -1.0], n_trials=10)
    with pytest.raises(ValueError, match="n_trials"):
        relmc.optimize_checkpoint(None, sc, n_trials=0)
    # the least interval is named as what it is: persist_hours, or (without one) 1e-6 h
    with pytest.raises(ValueError, match=r">= 1e-06 h; got 1e-07"):
        relmc.optimize_checkpoint(None, sc, intervals=[1e-7], n_trials=10)
    slow = replace_path(sc, "policy.persist_hours", 0.25)
    with pytest.raises(ValueError, match=r">= policy.persist_hours \(0.25\); got 0.2"):
        relmc.optimize_checkpoint(None, slow, intervals=[0.2], n_trials=10)


def test_optimize_with_no_trial_finished_names_the_cap_and_the_event_budget():
    """An optimum is refused when no trial finished, naming both things that stop a trial.

    With ``policy.max_events = 1`` every trial of the Daly job (~6,300 events) stops at its
    first event, long before the wall cap: the message named only the cap and advised
    raising ``wall_cap_factor``, which would change nothing here. Negative control: the same
    job with the default budget finishes and has an optimum.
    """
    import warnings

    from relmc.errors import NotFinishedWarning

    sc = daly_scenario()
    budget = replace_path(sc, "policy.max_events", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFinishedWarning)
        with pytest.raises(ValueError, match=r"policy\.max_events = 1\).*raise policy\.wall_cap"
                           r"_factor or policy\.max_events"):  # fmt: skip
            relmc.optimize_checkpoint(None, budget, intervals=[0.1, 0.2], n_trials=4, seed=1)
    ds = relmc.optimize_checkpoint(None, sc, intervals=[0.1, 0.2], n_trials=4, seed=1)
    assert 0.0 < float(ds["optimal_interval_hours"]) < np.inf


def test_optimize_warns_when_the_best_given_interval_is_at_an_edge():
    # Daly's setting, MTTF 2 h, snapshot 0.5 h: expected ETTR 0.4060 at Daly's 1.10 h (the
    # exact optimum, 1.099 h) and 0.3988 at Young's 1.41 h (Daly's formula), ~7 paired SE
    # apart at 200 trials; given 3 and 5 h, the best evaluated is Daly's, the shortest
    sc = daly_scenario(2.0, 0.5, 0.2, 200.0)
    kw = dict(n_trials=200, seed=3)
    with pytest.warns(RuntimeWarning, match="is the shortest evaluated.*include shorter ones"):
        ds = relmc.optimize_checkpoint(None, sc, intervals=[3.0, 5.0], **kw)
    assert float(ds["optimal_interval_hours"]) == pytest.approx(daly_interval(0.5, 2.0))
    # negative controls: intervals around the optimum, and an optimum held at the least
    # admissible interval (persist_hours), warn nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = relmc.optimize_checkpoint(None, sc, intervals=[0.4, 0.8, 1.6, 3.2], **kw)
        assert 0.4 < float(ds["optimal_interval_hours"]) < 3.2
        held = replace_path(replace_path(sc, "policy.checkpoint_interval", 3.0),
                            "policy.persist_hours", 2.5)  # fmt: skip
        ds = relmc.optimize_checkpoint(None, held, intervals=[2.5, 5.0], **kw)
        assert float(ds["optimal_interval_hours"]) == 2.5


def test_optimize_with_persist_beyond_the_rules_runs_them_at_persist():
    # persist 2.5 h, above Young's 1.41 h and Daly's 1.10 h: those intervals cannot be run
    # (it used to fail on them); they are run at 2.5 h, the search starts there (the bound
    # the extended grid now tries) and, ETTR falling past Daly's, ends there, with no warning
    sc = daly_scenario(2.0, 0.5, 0.2, 200.0)
    held = replace_path(replace_path(sc, "policy.checkpoint_interval", 3.0),
                        "policy.persist_hours", 2.5)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = relmc.optimize_checkpoint(None, held, n_trials=100, seed=1)
    iv = ds["interval_hours"]
    assert float(iv.sel(rule="young")) == float(iv.sel(rule="daly")) == 2.5
    assert float(ds["optimal_interval_hours"]) == 2.5 == float(ds["interval"].min())
    # the scenario's own interval is its 3 h
    assert float(iv.sel(rule="scenario")) == 3.0


def test_the_edge_warning_names_the_side_and_spares_the_bounds():
    from relmc.optimize import _check_edge, _Plan

    sc = daly_scenario(work=10.0)
    ts = np.array([0.5, 1.0, 2.0])
    given = _Plan(2.0, 2.0, 0.6, 0.55, ts, 1e-6, False)
    with pytest.warns(RuntimeWarning, match=r"60 min, is the longest.*include longer ones"):
        _check_edge(np.r_[0.25, 0.5, 1.0], 1.0, given, sc)
    extended = _Plan(2.0, 2.0, 0.6, 0.55, ts, 1e-6, True)
    with pytest.warns(RuntimeWarning, match=r"is the shortest.*grid was extended 4 times"):
        _check_edge(ts, 0.5, extended, sc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _check_edge(ts, 1.0, given, sc)  # inside
        _check_edge(np.r_[5.0, 10.0], 10.0, given, sc)  # the job's compute hours
        _check_edge(ts, 0.5, _Plan(2.0, 2.0, 0.6, 0.55, ts, 0.5, False), sc)  # persist_hours


# --------------------------------------------------------------------------------------------
# credible intervals of expected values vs predictive intervals of one job


def _one_category(rates):
    """One job-level category with the given rate draws (1 chain), and Daly's setting.

    No detection, swap or maintenance: the whole wall clock is exposed, so a job's expected
    interruptions per wall-clock day given rate ``r`` is ~ 24 r, and its expected wall time is
    Daly's exact formula (restart-only, failures during restarts).
    """
    post = xr.DataArray(
        np.asarray(rates, float)[None, :, None],
        dims=("chain", "draw", "category"),
        coords={"category": ["x"], "unit": ("category", ["job"])},
    )
    sc = Scenario(
        cluster=Cluster(n_gpus=8),
        failures=FailureModel((Category("x", rate=float(np.mean(rates)), unit="job"),)),
        job=Job(200.0),
        policy=Policy(checkpoint_interval=0.5, snapshot_hours=0.01, restart_hours=0.05),
    )
    return post, sc


def _width(da):
    return float(da.sel(quantile=0.95) - da.sel(quantile=0.05))


def test_credible_interval_is_the_spread_of_the_expected_value():
    # 200 rate draws, lognormal around 0.5/h with 20% spread; ~100 failures per job, so one
    # job's own luck (Poisson, ~10%) and the rate uncertainty (20%) both show
    rates = 0.5 * np.exp(0.2 * np.random.default_rng(0).standard_normal(200))
    post, sc = _one_category(rates)
    ds = relmc.project(post, n_gpus=8, scenario=sc, n_trials=500, credible_trials=4000,
                       trials_per_draw=20, seed=1)  # fmt: skip
    row = ds.isel(n_gpus=0)
    assert ds.attrs["trials_per_draw"] == 20 and ds.attrs["n_draws_credible"] == 200
    # the truth of each draw: E[interruptions/day | r] ~ 24 r (ratio of a ~100-event count to
    # its wall time: bias ~1%), E[ETTR | r] ~ W / E[T] (Daly exact; Jensen bias ~ CV(T)^2 ~ 0.1%)
    q = [0.05, 0.5, 0.95]
    truth_ipd = np.quantile(24 * rates, q)
    wall = daly_expected_wall(200.0, 0.5, 0.01, 0.05, 1 / rates)
    truth_ettr = np.quantile(200.0 / wall, q)
    # per-draw means of 20 trials still carry ~10%/sqrt(20) = 2.2% noise each, which the
    # moment matching removes from the spread; what is left in a 5%/95% quantile of 200 draws
    # is ~1% (up to 1.8% over five seeds): 3% relative (ipd) and 0.01 absolute (ETTR, ~1.5%
    # of it, up to 0.004 over five seeds) hold them
    np.testing.assert_allclose(row["interruptions_per_day_credible"].sel(quantile=q), truth_ipd,
                               rtol=0.03)  # fmt: skip
    np.testing.assert_allclose(row["ettr_credible"].sel(quantile=q), truth_ettr, atol=0.01)
    # credible (rates only) is narrower than predictive (rates and the job's own luck)
    for name in ("ettr", "interruptions_per_day"):
        assert _width(row[f"{name}_credible"]) < 0.95 * _width(row[f"{name}_quantile"]), name
        assert 0 <= float(row[f"{name}_credible_noise"]) < 0.1  # 20 trials: ~3% is noise
    # labelled as what they are
    assert "credible" in row["ettr_credible"].attrs["long_name"]
    assert "posterior-predictive" in row["ettr_quantile"].attrs["long_name"]
    assert "credible" in ds.attrs["interval_definition"]


def test_credible_interval_of_a_job_of_few_events_follows_the_rate():
    # 1,000 rate draws (gamma, shape 2, mean 1e-3/h), a 200-hour job: 0.2 interruptions a job,
    # so the per-draw means of 4 trials are mostly 0 or one event's 24/wall. The truth: each
    # draw's mean over 200 trials (noise share 0.05 of the spread), the same draws. Over eight
    # seeds the estimate's quantiles were within 0.036-0.159 of the truth's 5-95% width of
    # it (six within 0.06: the regression's slope, from ~800 events, and the residual's
    # noisy share of the spread carry Monte Carlo error); 0.2 holds them. The regression on
    # the draw's rate carries the shape; shrinking the per-draw means alone (the negative
    # control, as before) put a step of the Poisson noise into the interval: its 5% and 25%
    # quantiles are one value in every seed (5% at 0.010-0.013 against a truth of 0.0046)
    rates = np.random.default_rng(0).gamma(2.0, 0.0005, 1000)
    post, sc = _one_category(rates)
    n_draws, m, m_truth = 1000, 4, 200

    def per_day(res):
        return res["interruptions"].sum("category").values * 24 / res["wall_hours"].values

    many = relmc.simulate(sc, rates=post.isel(draw=np.repeat(np.arange(n_draws), m_truth)),
                          n_trials=n_draws * m_truth, seed=9)  # fmt: skip
    truth, truth_noise = credible_quantiles(per_day(many), np.repeat(np.arange(n_draws), m_truth))
    assert truth_noise < 0.1
    width = truth[-1] - truth[0]
    ds = relmc.project(post, n_gpus=8, scenario=sc, n_trials=100, credible_trials=n_draws * m,
                       trials_per_draw=m, seed=3)  # fmt: skip
    got = ds["interruptions_per_day_credible"].values[0]
    assert float(per_day(many).mean()) * 200 / 24 < 0.3  # a job of few events indeed
    np.testing.assert_allclose(got, truth, atol=0.2 * width)
    # negative control: the per-draw means of 4 trials alone, shrunk by moment matching
    few = relmc.simulate(sc, rates=post.isel(draw=np.repeat(np.arange(n_draws), m)),
                         n_trials=n_draws * m, seed=3)  # fmt: skip
    means = per_day(few).reshape(n_draws, m)
    mean = means.mean(axis=1)
    total = mean.var(ddof=1)
    shrink = np.sqrt(max(total - means.var(axis=1, ddof=1).mean() / m, 0.0) / total)
    old = np.quantile(mean.mean() + (mean - mean.mean()) * shrink, QUANTILES)
    assert old[1] - old[0] < 0.1 * (truth[1] - truth[0])  # a step: one value at 5% and 25%
    assert got[1] - got[0] > 0.5 * (truth[1] - truth[0])


def test_credible_interval_keeps_what_the_rate_does_not_explain():
    # two categories whose total rate is nearly fixed (gamma, shape 400) but whose split is
    # not (Beta(2, 2)); one costs a 4-hour detection, so E[ETTR] of a draw follows the split,
    # not the total. 500 draws, a 30-hour job of ~0.6 events. The reference: the same draws
    # with 40 trials each (noise share 0.33; its 5-95% width 0.045 against 0.047 from 20,000
    # trials a draw). With 4 trials a draw (noise share 0.63-0.94) the interval spanned
    # 0.54-1.57 of the reference's width over eight seeds: the residual is kept, shrunk, however
    # noisy its estimate; 0.4 holds them. Negative control: the rate's regression alone spans
    # 0.06-0.21 of it, what an estimate that dropped the residual (left out where it did not
    # stand out of the noise: 2 SE) gave in about half the seeds
    from relmc.projection import _rate_regression
    from relmc.rates import job_rates, nested_draws, rate_draws

    rng = np.random.default_rng(0)
    total, split = rng.gamma(400.0, 0.02 / 400, 500), rng.beta(2, 2, 500)
    rates = np.stack([total * (1 - split), total * split], -1)
    coords = {"category": ["cheap", "costly"], "unit": ("category", ["job"] * 2)}
    post = xr.DataArray(rates[None], dims=("chain", "draw", "category"), coords=coords)
    sc = Scenario(
        cluster=Cluster(n_gpus=8),
        failures=FailureModel(
            (
                Category("cheap", rate=float(rates[:, 0].mean()), unit="job"),
                Category("costly", rate=float(rates[:, 1].mean()), unit="job", detection_hours=4.0),
            )
        ),  # fmt: skip
        job=Job(30.0),
        policy=Policy(checkpoint_interval=0.5, snapshot_hours=0.01, restart_hours=0.05),
    )
    draws = rate_draws(sc, post)

    def estimate(m, seed):
        nested = nested_draws(draws, 500 * m, m)
        res = relmc.simulate(sc, rates=nested, n_trials=500 * m, seed=seed)
        rows = res["draw"].values
        ettr, draw, rate = res["ettr"].values, nested.rows[rows], job_rates(sc, nested)[rows]
        q, share = credible_quantiles(ettr, draw, QUANTILES, rate)
        _, group, count = np.unique(draw, return_inverse=True, return_counts=True)
        return q, share, _rate_regression(ettr, group, count, rate)[0]

    ref, ref_share, _ = estimate(40, 99)
    width = ref[-1] - ref[0]
    assert ref_share < 0.5
    got, share, fit = estimate(4, 3)
    assert share > 0.5  # a job of few events: mostly noise
    assert got[-1] - got[0] > 0.4 * width
    assert np.ptp(np.quantile(fit, [0.05, 0.95])) < 0.3 * width


def test_credible_interval_collapses_for_a_point_rate():
    # negative control: 800 identical draws, i.e. no parameter uncertainty. The true credible
    # width is 0; the estimate keeps only Monte Carlo error. With m = 5 trials per draw and
    # D = 800 draws the estimated between-draw sd is at most sqrt(3.1 sqrt(2 / D) / m) = 0.18
    # of a trial's sd in 99.9% of runs; the per-draw means without the noise correction would
    # spread 1 / sqrt(5) = 0.45 of it. 0.25 of the predictive width separates the two.
    post, sc = _one_category(np.full(800, 0.5))
    ds = relmc.project(post, n_gpus=8, scenario=sc, n_trials=4000, credible_trials=4000,
                       trials_per_draw=5, seed=2)  # fmt: skip
    row = ds.isel(n_gpus=0)
    for name in ("ettr", "interruptions_per_day"):
        assert _width(row[f"{name}_credible"]) < 0.25 * _width(row[f"{name}_quantile"]), name
    # ... and the uncorrected means of 5 trials (what the correction removes) do not collapse
    runs = relmc.simulate(sc, rates=post, n_trials=4000, seed=2)
    means = runs["ettr"].values.reshape(800, 5).mean(axis=1)
    naive = np.quantile(means, 0.95) - np.quantile(means, 0.05)
    assert naive > 0.25 * _width(row["ettr_quantile"])


def test_credible_with_one_draw_is_a_point_and_can_be_skipped(posterior):
    # point rates: one draw, the credible interval is a point (its simulation's mean)
    ds = relmc.project(None, n_gpus=1024, n_trials=256, seed=1)
    cred = ds["ettr_credible"].isel(n_gpus=0)
    assert np.ptp(cred.values) == 0.0
    # the same expected value as the predictive run's mean, within 4 MC SE of the two means
    se = float(ds["ettr_se"][0])
    assert abs(float(cred[0]) - float(ds["ettr_mean"][0])) < 4 * np.sqrt(2) * se
    assert float(ds["ettr_credible_noise"][0]) == 0.0
    # credible_trials=0: no credible simulation, NaN rather than a wrong number
    none = relmc.project(posterior, n_gpus=1024, n_trials=64, seed=1, credible_trials=0)
    assert np.all(np.isnan(none["ettr_credible"].values))
    assert np.all(np.isfinite(none["ettr_quantile"].values))
    # the table leaves the skipped E[...] columns out rather than print "nan [nan, nan]"
    from relmc.cli.output import projection_note, projection_table

    skipped, kept = projection_table(none), projection_table(ds)
    assert "E[ETTR]" not in skipped and "nan [" not in skipped and "ETTR (job)" in skipped
    assert "E[ETTR]" in kept and "E[interruptions/day]" in kept
    # and the note under the table explains only the columns it has
    assert "E[...] and MTTF" in projection_note(ds)
    note = projection_note(none)
    assert "No E[...] columns" in note and "E[...] and" not in note


def test_a_credible_simulation_of_one_draw_is_refused(posterior):
    # with many posterior draws, credible_trials / trials_per_draw must leave two or more:
    # one draw's mean printed as an interval [x, x] is not one. Point rates (one draw) keep
    # their point; credible_trials 0 skips the simulation
    for kw in ({"credible_trials": 1}, {"credible_trials": 3, "trials_per_draw": 4},
               {"credible_trials": 2000, "trials_per_draw": 4000}):  # fmt: skip
        with pytest.raises(ValueError, match="leaves one posterior draw"):
            relmc.project(posterior, n_gpus=1024, n_trials=8, seed=1, **kw)
    ds = relmc.project(posterior, n_gpus=1024, n_trials=8, seed=1, credible_trials=5,
                       trials_per_draw=4)  # fmt: skip
    assert ds.attrs["n_draws_credible"] == 2
    # not given, the default (min(n_trials, 2000)) is raised to two draws' worth: a small
    # n_trials still projects
    ds = relmc.project(posterior, n_gpus=1024, n_trials=4, seed=1)
    assert ds.attrs["credible_trials"] == 8 and ds.attrs["n_draws_credible"] == 2


def test_credible_run_leaves_the_predictive_trials_alone(posterior):
    kw = dict(n_gpus=[1024, 2048], n_trials=30, seed=3, keep_trials=True)
    a = relmc.project(posterior, **kw)
    b = relmc.project(posterior, **kw, credible_trials=0)
    # the predictive trials are the layout before credible intervals: trial i with draw i
    np.testing.assert_array_equal(a["draw"].values, np.arange(30))
    xr.testing.assert_identical(a["ettr"], b["ettr"])
    xr.testing.assert_identical(a["ettr_quantile"], b["ettr_quantile"])
    assert a.attrs["credible_trials"] == 30 and a.attrs["n_draws_credible"] == 8  # ceil(30/4)
    for bad in (1, 2.0, True):
        with pytest.raises(ValueError, match="trials_per_draw"):
            relmc.project(posterior, n_gpus=1024, n_trials=30, trials_per_draw=bad)
    with pytest.raises(ValueError, match="credible_trials"):
        relmc.project(posterior, n_gpus=1024, n_trials=30, credible_trials=-1)


# --------------------------------------------------------------------------------------------
# the relmc command: both intervals in the table, JSON and CSV; the assumed defaults named

SMALL = ["--n-gpus", "2048,4096", "--compute-days", "2", "--n-trials", "64", "--seed", "1"]


def test_cli_project_reports_both_intervals_and_the_assumed_defaults(tmp_path, capsys):
    import csv
    import json

    from relmc.cli import main

    out = tmp_path / "p"
    argv = ["project", *SMALL, "--no-plot", "--out", str(out), "--json", "s.json", "--csv", "s.csv"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "E[ETTR]" in cap.out and "ETTR (job)" in cap.out and "E[interruptions/day]" in cap.out
    # one "assumed:" line on stderr, naming the defaults with no source, and nothing else
    (line,) = cap.err.strip().splitlines()
    assert line.startswith("assumed: node swap 0 min, planned downtime 0 min, restart 10 min")
    assert "--swap-minutes" in line and "--maintenance-minutes" in line
    doc = json.loads((out / "s.json").read_text())
    rows = list(csv.DictReader((out / "s.csv").read_text().splitlines()))
    with xr.open_dataset(out / "projection.nc", engine="h5netcdf") as ds:
        for name in ("ettr_credible", "interruptions_per_day_credible"):
            assert doc["variables"][name]["dims"] == ["n_gpus", "quantile"]
            np.testing.assert_array_equal(doc["variables"][name]["values"], ds[name].values)
            assert float(rows[0][f"{name}[0.5]"]) == float(ds[name].isel(n_gpus=0, quantile=2))
    # values the user set are not "assumed"; planned downtime matters only with maintenance
    argv = ["project", *SMALL, "--no-plot", "--out", str(tmp_path / "q")]
    assert main([*argv, "--swap-minutes", "30", "--maintenance-rate", "0"]) == 0
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "node swap" not in line and "planned downtime" not in line and "restart 10" in line
    # --quiet: no report and no assumed line
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_cli_simulate_names_what_the_toml_left_assumed(tmp_path, capsys):
    from relmc.cli import main

    toml = tmp_path / "s.toml"
    toml.write_text(
        "[cluster]\nn_gpus = 2048\n[job]\ncompute_hours = 50\n[policy]\nswap_hours = 0.5\n"
    )
    argv = ["simulate", str(toml), "--n-trials", "50", "--seed", "1", "--out", str(tmp_path / "s")]
    assert main(argv) == 0
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("assumed: planned downtime 0 min, restart 10 min")
    assert "node swap" not in line and "failures.maintenance_hours" in line
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_assumed_values_follow_the_scenario():
    from relmc.defaults import assumed_values

    sc = Scenario.default()
    fields = [a.field for a, _ in assumed_values(sc)]
    assert fields[:2] == ["policy.swap_hours", "failures.maintenance_hours"]
    assert "policy.repair_hours" not in fields  # unlimited spares: no repairs waited for
    finite = Scenario.default(policy=Policy(n_spares=10))
    assert "policy.repair_hours" in [a.field for a, _ in assumed_values(finite)]
    # a value off the default is the user's, even when not named as given
    changed = Scenario.default(policy=Policy(swap_hours=0.25))
    assert "policy.swap_hours" not in [a.field for a, _ in assumed_values(changed)]
    restart_only = Scenario(failures=FailureModel((Category("bug", rate=1e-6),)))
    assert "policy.swap_hours" not in [a.field for a, _ in assumed_values(restart_only)]


def test_credible_quantiles_by_hand():
    # three draws of two trials each: means 2, 6, 12 (centre 20/3), their variance 76/3; the
    # pooled within-draw variance 12/3 = 4, so the noise in a mean of two is 4 / 2 = 2, a
    # share 2 / (76/3) = 6/76 of the spread; the means shrink about the centre by
    # sqrt(1 - 6/76)
    values = [1.0, 3.0, 5.0, 7.0, 10.0, 14.0]
    draw = [0, 0, 1, 1, 2, 2]
    q, share = credible_quantiles(values, draw, [0.0, 0.5, 1.0])
    assert share == pytest.approx(6 / 76, rel=1e-12)
    centre, shrink = 20 / 3, np.sqrt(1 - 6 / 76)
    expect = [centre + (m - centre) * shrink for m in (2.0, 6.0, 12.0)]
    np.testing.assert_allclose(q, expect, rtol=1e-12)
    # more noise (22.6) than spread (0.125): the share is 1 and the interval a point at the
    # centre; no spread at all, the same
    q, share = credible_quantiles([0.0, 10.0, 1.0, 10.0], [0, 0, 1, 1], [0.0, 1.0])
    assert share == 1.0 and q.tolist() == [5.25, 5.25]
    q, share = credible_quantiles([0.0, 10.0, 1.0, 9.0], [0, 0, 1, 1], [0.0, 1.0])
    assert share == 1.0 and q.tolist() == [5.0, 5.0]


def test_credible_quantiles_regress_on_the_rate_by_hand():
    # four draws of rate 1..4, two trials each at rate -/+ 1: the per-draw means are the
    # rates, the within-draw variance 2, so the noise in a mean of two is 1, a share
    # 1 / var(1..4) = 0.6 of the spread. Alone, the means shrink about 2.5 by sqrt(0.4) (their
    # between-draw variance 2/3 of 5/3); with the rate as covariate the line through the means
    # is exact, nothing is left to shrink, and the interval spans the rates
    values = [0.0, 2.0, 1.0, 3.0, 2.0, 4.0, 3.0, 5.0]
    draw = [0, 0, 1, 1, 2, 2, 3, 3]
    rate = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]
    q, share = credible_quantiles(values, draw, [0.0, 1.0])
    assert share == pytest.approx(0.6, rel=1e-12)
    np.testing.assert_allclose(q, 2.5 + np.array([-1.5, 1.5]) * np.sqrt(0.4), rtol=1e-12)
    q, share = credible_quantiles(values, draw, [0.0, 0.5, 1.0], rate)
    assert share == pytest.approx(0.6, rel=1e-12)
    np.testing.assert_allclose(q, [1.0, 2.5, 4.0], atol=1e-12)
    # a curve the line misses: y = rate^2 per draw, no noise; the square term is taken
    rate = np.repeat(np.arange(10.0), 2)
    q, share = credible_quantiles(rate**2, rate.astype(int), [0.0, 0.5, 1.0], rate)
    assert share == 0.0
    np.testing.assert_allclose(q, [0.0, np.median(np.arange(10.0) ** 2), 81.0], atol=1e-9)
    # the square term taken where it stands out (beyond 2 SE, clustered by draw) however small
    # in the values' units: y = rate^2 / 1000 per draw, swamped within draws by -/+ 0.1 (a
    # noise share of 1): the curve is exact (residuals 0, SE 0), so the interval is the
    # curve's. A line would leave the curve's bend to residuals that are all noise: shrunk to
    # nothing, a line from -0.012 to 0.069 (the negative control, by hand)
    rate = np.repeat(np.arange(10.0), 2)
    values = rate**2 / 1000 + np.tile([0.1, -0.1], 10)
    q, share = credible_quantiles(values, rate.astype(int), [0.0, 1.0], rate)
    assert share == 1.0
    np.testing.assert_allclose(q, [0.0, 0.081], atol=1e-12)
    line = np.polyval(np.polyfit(np.arange(10.0), np.arange(10.0) ** 2 / 1000, 1), [0, 9])
    assert np.abs(line - [0.0, 0.081]).max() > 0.01
    # ... and left out where it does not: means 10 rate + scatter, -/+ 5 within draws; the
    # square's coefficient is 0.06 of its SE (by hand, clustered by draw), so the answer is
    # the line's through the means plus their residuals shrunk by moment matching (a
    # quadratic would put the ends at 10.083 and 79.933)
    grid = np.arange(1.0, 9.0)
    means = 10 * grid + np.array([0.3, -0.2, 0.1, -0.4, 0.2, 0.3, -0.1, -0.2])
    values = np.repeat(means, 2) + np.tile([5.0, -5.0], 8)
    z = (grid - grid.mean()) / grid.std()
    basis = np.column_stack([np.ones(8), z, z * z])
    gram = np.linalg.inv(2 * basis.T @ basis)
    beta = gram @ (2 * basis.T @ means)
    resid = 2 * (means - basis @ beta)  # each draw's residual sum over its two trials
    se = np.sqrt((gram @ ((basis * resid[:, None] ** 2).T @ basis) @ gram)[2, 2])
    assert abs(beta[2]) < 0.1 * se
    fit = np.polyval(np.polyfit(grid, means, 1), grid)
    res = means - fit
    total = res.var(ddof=1)
    expect = fit + res.mean() + (res - res.mean()) * np.sqrt(max(total - 50.0 / 2, 0.0) / total)
    q, _ = credible_quantiles(
        values, np.repeat(np.arange(8), 2), [0.0, 0.5, 1.0], np.repeat(grid, 2)
    )
    np.testing.assert_allclose(q, np.quantile(expect, [0.0, 0.5, 1.0]), rtol=1e-12)
    assert abs(q[0] - 10.083) > 0.005
    # an expected value stays within the values: a line through few events does not go below 0
    rate = np.repeat([0.1, 0.2, 0.3, 5.0], 2)
    values = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    q, _ = credible_quantiles(values, np.repeat(np.arange(4), 2), [0.0, 1.0], rate)
    assert q[0] >= 0.0 and q[1] <= 1.0


def test_credible_quantiles_bad_input_and_any_scale():
    draw = np.repeat(np.arange(4), 2)
    values = np.arange(8.0)
    rate = np.repeat([1.0, 2.0, 4.0, 3.0], 2)
    for kwargs, field in (
        ({"values": np.r_[values[:-1], np.nan]}, "values"),
        ({"draw": draw[:-1]}, "draw"),
        ({"covariate": rate[:-1]}, "covariate"),
        ({"covariate": np.r_[rate[:-1], np.inf]}, "covariate"),
        ({"covariate": np.r_[rate[:-1], 9.0]}, "the same for every trial of a draw"),
    ):
        args = {"values": values, "draw": draw, "covariate": rate, **kwargs}
        with pytest.raises(ValueError, match=field):
            credible_quantiles(args["values"], args["draw"], QUANTILES, args["covariate"])
    # a rate in any unit gives the same interval (no overflow or underflow in its square)
    q, _ = credible_quantiles(values, draw, QUANTILES, rate)
    for scale in (1e-170, 1e155):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got, _ = credible_quantiles(values, draw, QUANTILES, rate * scale)
        np.testing.assert_allclose(got, q, rtol=1e-12)
    # one rate for every draw, draws of 1-7 trials: the mean alone, as without a covariate
    # (a mean over each draw's trials of one value rounds to 3 values; the first is exact)
    m = np.arange(1, 8)
    draw = np.repeat(np.arange(7), m)
    values = np.random.default_rng(1).standard_normal(draw.size)
    q, _ = credible_quantiles(values, draw, QUANTILES, np.full(draw.size, 0.1))
    np.testing.assert_allclose(q, credible_quantiles(values, draw, QUANTILES)[0], rtol=1e-12)


def test_the_refinement_vertex_of_a_known_parabola():
    # ETTR exactly quadratic in log interval with its top at 1.3 h: the vertex of the fit
    # through the best point and two neighbours a side is 1.3 h; a valley (a >= 0) or a top
    # outside the points gives none
    from relmc.optimize import _parabola_vertex

    ts = np.geomspace(0.25, 4.0, 9)

    def cache_of(f):
        return {float(t): np.array([f(np.log(t))]) for t in ts}

    top = cache_of(lambda x: 0.9 - 0.05 * (x - np.log(1.3)) ** 2)
    i = int(np.argmax([top[float(t)][0] for t in ts]))
    assert _parabola_vertex(ts, i, top) == pytest.approx(1.3, rel=1e-9)
    valley = cache_of(lambda x: 0.5 + 0.05 * (x - np.log(1.3)) ** 2)
    assert _parabola_vertex(ts, i, valley) is None
    far = cache_of(lambda x: 0.9 - 0.05 * (x - np.log(100.0)) ** 2)  # rising through all
    assert _parabola_vertex(ts, 4, far) is None


def test_optimize_default_grid_is_the_documented_one():
    # without refinement and with the best point inside: 15 log-spaced points from a quarter
    # to four times Daly's interval, plus Young's and Daly's (the docstring's grid)
    from relmc.analytic import young_interval

    m, d = 2.0, 0.1
    ds = relmc.optimize_checkpoint(
        None, daly_scenario(m, d, 0.2, 50.0), n_trials=64, seed=3, refine=False
    )
    dal = daly_interval(d, m)
    expect = np.unique(np.r_[np.geomspace(dal / 4, dal * 4, 15), young_interval(d, m), dal])
    got = ds["interval"].values
    assert 0 < int(np.argmax(ds["ettr_mean"].values)) < got.size - 1  # no extension
    np.testing.assert_allclose(got, expect, rtol=1e-12)


def test_sizes_are_bounded_at_1e8():
    from relmc.cluster import MAX_GPUS
    from relmc.errors import FieldError

    assert check_sizes([1, MAX_GPUS]) == [1, MAX_GPUS]
    for bad in (0, MAX_GPUS + 1, 10**30):
        with pytest.raises(FieldError, match=r"n_gpus must be an integer in \[1, 1e8\]"):
            check_sizes([2048, bad])


def test_the_search_extends_past_either_edge():
    # an ETTR curve rising past the grid's low edge (top at 0.1 h) or its high edge (top at
    # 40 h): the search steps outward by the grid's own ratio until the best point is inside
    from relmc.optimize import _MAX_EXTEND, _Plan, _search

    grid = np.geomspace(1.0, 8.0, 4)  # ratio 2
    sc = daly_scenario(work=200.0)
    for top, outward in ((0.1, 1.0 / 2.0), (40.0, 2.0)):
        plan = _Plan(1.0, 1.0, 1.0, 1.0, grid, 1e-6, True)
        cache = _search(plan, lambda t, top=top: np.array([-(np.log(t / top) ** 2)]), False, sc)
        got = np.array(sorted(cache))
        edge = grid[0] if outward < 1 else grid[-1]
        steps = [edge * outward**k for k in range(1, 4 * _MAX_EXTEND + 1)]
        beyond = got[got < grid[0]] if outward < 1 else got[got > grid[-1]]
        assert beyond.size >= 4  # at least one extension of four points
        np.testing.assert_allclose(np.sort(beyond), np.sort(steps[: beyond.size]), rtol=1e-12)
        best = got[int(np.argmax([cache[float(t)][0] for t in got]))]
        assert best == pytest.approx(top, rel=0.5)  # reached: within a grid step of the top


def test_only_the_default_grid_is_extended():
    # the docstring: the default grid is extended while its best point is at an edge; the
    # intervals a user gives are evaluated as given
    from relmc.optimize import _plan

    sc = daly_scenario(work=200.0)
    assert _plan(sc, None, None).extend is True
    given = _plan(sc, None, [0.3, 0.6])
    assert given.extend is False and 0.3 in given.grid and 0.6 in given.grid


def test_the_vertex_fit_uses_two_neighbours_a_side():
    # a top that is not a parabola: the vertex depends on which points the fit takes; it is
    # the least-squares parabola through the best point and two neighbours a side
    from relmc.optimize import _parabola_vertex

    ts = np.geomspace(0.25, 4.0, 9)
    x = np.log(ts)
    y = 0.9 - np.abs(x - np.log(1.2)) ** 1.5
    cache = {float(t): np.array([v]) for t, v in zip(ts, y, strict=True)}
    i = int(np.argmax(y))
    a, b, _ = np.polyfit(x[i - 2 : i + 3], y[i - 2 : i + 3], 2)
    assert _parabola_vertex(ts, i, cache) == pytest.approx(np.exp(-b / (2 * a)), rel=1e-9)
    a3, b3, _ = np.polyfit(x[i - 1 : i + 2], y[i - 1 : i + 2], 2)  # one a side: different
    assert abs(np.exp(-b3 / (2 * a3)) - np.exp(-b / (2 * a))) > 1e-3


def _returned_names(func) -> tuple[set[str], list[str]]:
    """The ``names`` in ``func``'s Returns section: exact ones, and ``prefix_*`` patterns."""
    import re

    doc = func.__doc__
    ret = doc[doc.index("Returns\n") : doc.index("Raises\n") if "Raises\n" in doc else None]
    found = re.findall(r"``([a-z][a-z0-9_]*\*?)``", ret)
    return {n for n in found if not n.endswith("*")}, [n[:-1] for n in found if n.endswith("*")]


def _documented(
    ds: xr.Dataset, func, per_trial: set[str] = frozenset(), also: set[str] = frozenset()
) -> None:
    """Every name ``func``'s Returns gives is in ``ds`` and every variable of ``ds`` is named.

    Names may be variables, coordinates, dims, attrs or ``func``'s parameters; a variable is
    named exactly, by a ``prefix_*`` pattern, or as ``<v>_mean``/``_se``/``_quantile`` of a
    per-trial output ``v`` of :func:`relmc.simulate` (``per_trial``); ``also``: other names
    it may mention (scenario fields).
    """
    import inspect

    exact, patterns = _returned_names(func)
    known = {"attrs", *ds.variables, *ds.dims, *ds.attrs, *inspect.signature(func).parameters}
    # and the labels of string coordinates (e.g. ``rule``: ``young``, ``daly``)
    known |= {str(v) for c in ds.coords.values() if c.dtype.kind in "OU" for v in c.values.flat}
    known |= also
    assert not exact - known, f"{func.__name__}'s docstring names {sorted(exact - known)}"
    for p in patterns:
        assert any(str(v).startswith(p) for v in ds.data_vars), p
    summarised = {f"{v}_{s}" for v in per_trial for s in ("mean", "se", "quantile")}
    unnamed = [
        v
        for v in map(str, ds.data_vars)
        if v not in exact and v not in summarised and not v.startswith(tuple(patterns))
    ]
    assert not unnamed, f"{func.__name__}'s docstring does not name {unnamed}"


def test_the_returned_variables_are_the_documented_ones(posterior):
    # relmc.simulate's and relmc.project's Returns sections name what the results hold, both
    # ways (a docstring once named variables that project does not write)
    import dataclasses

    sc = dataclasses.replace(Scenario.default(), job=Job(compute_hours=24.0))
    sim = relmc.simulate(sc, n_trials=16, seed=1)
    _documented(sim, relmc.simulate)
    # the per-trial outputs, and the rates per day relmc.summary derives from them
    per_trial = {str(v) for v in sim.data_vars} | {
        "interruptions_per_day",
        "interruptions_per_day_by_category",
        "maintenance_per_day",
    }
    proj = relmc.project(posterior, n_gpus=[2048], n_trials=16, seed=1, keep_trials=True)
    _documented(proj, relmc.project, per_trial)
    # negative control: a variable the docstring does not name is caught
    with pytest.raises(AssertionError, match="does not name"):
        _documented(proj.assign(unheard_of=proj["ettr_mean"]), relmc.project, per_trial)


def test_compare_and_optimize_return_the_documented_variables(posterior):
    import dataclasses

    sc = dataclasses.replace(Scenario.default(), job=Job(compute_hours=24.0))
    fast = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=0.05))
    _documented(relmc.compare({"base": sc, "fast": fast}, n_trials=16, seed=1), relmc.compare)
    opt = relmc.optimize_checkpoint(
        posterior, sc, n_gpus=2048, intervals=[0.25, 0.5, 1.0], n_trials=16, seed=1
    )
    _documented(opt, relmc.optimize_checkpoint, also={"checkpoint_interval"})  # a Policy field


def test_project_takes_rate_draws_as_a_dataarray(posterior):
    # e.g. one observed fleet's draws of fit_fleets (fleet_rate.sel(fleet=NAME)): the same
    # numbers as the InferenceData they came from, trial for trial
    kw = dict(n_gpus=[4096], n_trials=200, seed=4, credible_trials=0)
    a = relmc.project(posterior, **kw)
    b = relmc.project(posterior.posterior["rate"], **kw)
    for v in ("ettr_mean", "mttf_hours_quantile", "interruptions_per_day_mean"):
        np.testing.assert_array_equal(a[v].values, b[v].values, err_msg=v)
    # the fit's labels come with the DataArray (its attrs), as in compare and optimize
    assert (b.attrs["dataset"], b.attrs["model"]) == ("llama3-405b", "conjugate")
    assert (a.attrs["dataset"], a.attrs["model"]) == ("llama3-405b", "conjugate")
    # negative control: draws without the fit's attrs record none
    bare = relmc.project(posterior.posterior["rate"].copy(data=None).drop_attrs(), **kw)
    assert (bare.attrs["dataset"], bare.attrs["model"]) == ("", "")


@pytest.mark.parametrize("value", [np.inf, np.nan, -1.0])
def test_a_bad_draw_is_named_as_the_posteriors(posterior, value):
    # not as the rate of the scenario built from the posterior's means (an inf draw made an
    # infinite mean rate, which was refused as failures.categories[...].rate)
    bad = posterior.posterior["rate"].copy(deep=True)
    bad[0, 3, 0] = value
    c = str(bad["category"].values[0])
    for run in (
        lambda: relmc.project(bad, n_gpus=[1024], n_trials=8, seed=1, credible_trials=0),
        lambda: relmc.optimize_checkpoint(bad, n_trials=8, seed=1),
    ):
        with pytest.raises(ValueError, match=rf"^posterior\['{c}'\] must be finite and >= 0"):
            run()


def _with_trend(posterior, shape=2.0, age=2000.0):
    """The Llama 3 fit with a per-draw trend, as an event fit carries one (and its age)."""
    post = posterior.posterior.copy()
    post["trend_shape"] = xr.full_like(post["rate"].isel(category=0, drop=True), shape)
    post.attrs = {**post.attrs, "fleet_age_hours": age}
    return az.InferenceData(posterior=post)


def test_project_and_optimize_draw_a_posteriors_physics(posterior):
    # a wear-out trend of shape 2 from 2,000 h of age: the rates grow 1.65-fold over a
    # 54-day job, so ETTR falls far below the rates-only run (beyond 10 SE at 200 trials)
    trend = _with_trend(posterior)
    kw = dict(n_gpus=[16384], n_trials=200, seed=2, credible_trials=0)
    with_physics = relmc.project(trend, **kw)
    rates_only = relmc.project(trend.posterior["rate"], **kw)
    assert "physics per draw from the posterior" in with_physics.attrs["rates_source"]
    a, b = (float(p["ettr_mean"].item()) for p in (with_physics, rates_only))
    se = np.hypot(float(with_physics["ettr_se"].item()), float(rates_only["ettr_se"].item()))
    assert b - a > 10 * se
    # negative control: the rates alone are what the plain fit gives, bit for bit
    plain = relmc.project(posterior, **kw)
    np.testing.assert_array_equal(plain["ettr_mean"], rates_only["ettr_mean"])
    # optimize draws it too: its scenario row with the trend is far below the rates-only one
    sc = relmc.Scenario(failures=relmc.FailureModel.from_posterior(posterior))
    sc = replace_path(sc, "cluster.n_gpus", 16384)  # 54 days: the rates end 1.65x higher
    okw = dict(intervals=[0.25, 0.5, 1.0], n_trials=100, seed=3, refine=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an edge optimum is not the point here
        o1 = relmc.optimize_checkpoint(trend, sc, **okw)
        o2 = relmc.optimize_checkpoint(trend.posterior["rate"], sc, **okw)
    r1 = float(o1["rule_ettr_mean"].sel(rule="scenario"))
    r2 = float(o2["rule_ettr_mean"].sel(rule="scenario"))
    assert r2 - r1 > 10 * np.hypot(
        *(float(o["rule_ettr_se"].sel(rule="scenario")) for o in (o1, o2))
    )
