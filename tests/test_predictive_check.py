"""Checks of fits: in-sample predictive (relmc.models.predictive_check) and leave-one-out
population (relmc.models.population_check, relmc fit's lines for a hierarchical fit)."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
import xarray as xr

import relmc
from relmc.cli.fit import population_text
from relmc.models import population_check, predictive_check
from relmc.models.check import population_grid


def _idata(replicates, observed):
    """One chain of replicated counts per category and the observed counts."""
    cats = [f"c{k}" for k in range(len(observed))]
    rep = np.repeat(np.asarray(replicates)[None, :, None], len(cats), axis=2)
    pp = xr.Dataset({"count": (("chain", "draw", "category"), rep)}, coords={"category": cats})
    obs = xr.Dataset({"count": ("category", np.asarray(observed))}, coords={"category": cats})
    return az.InferenceData(posterior_predictive=pp, observed_data=obs)


def test_p_values_by_hand():
    # replicates 0..9 once each: P(rep >= 9) = 0.1, so p = 0.2; at 0 the same below; at 4,
    # P(rep >= 4) = 0.6 and P(rep <= 4) = 0.5, p capped at 1; 20 no replicate reaches: p = 0
    check = predictive_check(_idata(np.arange(10), [9, 0, 4, 20]))
    np.testing.assert_allclose(check["count_p"], [0.2, 0.2, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(check["count_p_upper"], [0.1, 1.0, 0.6, 0.0], atol=1e-12)
    np.testing.assert_allclose(check["count_p_lower"], [1.0, 0.1, 0.5, 1.0], atol=1e-12)
    assert check["count_observed"].values.tolist() == [9, 0, 4, 20]
    np.testing.assert_allclose(check["count_predictive_quantile"].sel(category="c0"),
                               np.quantile(np.arange(10), [0.05, 0.5, 0.95]))  # fmt: skip


def test_a_fit_reproduces_its_counts_and_a_changed_count_is_found():
    # the conjugate fit of Llama 3: each category's count is near the middle of its
    # replicates (in sample: p >= 0.5 for all 18). Negative control: Faulty GPU's observed
    # 148 read as 300, which the posterior's replicates (90% 121-176) never reach: p < 0.001
    fit = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), seed=1)
    check = predictive_check(fit)
    assert float(check["count_p"].min()) >= 0.5
    changed = fit.copy()
    changed.observed_data["count"].loc[{"category": "Faulty GPU"}] = 300
    check = predictive_check(changed)
    assert float(check["count_p"].sel(category="Faulty GPU")) < 1e-3
    assert float(check["count_p"].drop_sel(category="Faulty GPU").min()) >= 0.5


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="posterior_predictive and observed_data"):
        predictive_check(az.InferenceData(posterior=xr.Dataset({"rate": ("x", [1.0])})))
    bad = _idata(np.arange(10), [1, 2])
    bad.observed_data = xr.Dataset({"count": ("other", [1, 2, 3])})
    with pytest.raises(ValueError, match="dims"):
        predictive_check(bad)
    with pytest.raises(ValueError, match="quantiles"):
        predictive_check(_idata(np.arange(10), [1]), quantiles=[0.5, 2.0])
    with pytest.raises(ValueError, match="population_check needs a pooled fit"):
        population_check(relmc.fit_conjugate(relmc.load_dataset("pumps"), seed=1))
    # a pooled fit's record with its population's alpha missing from the posterior
    pooled = _pooled([3, 4, 5], [1.0, 1.0, 1.0])
    pooled.posterior = pooled.posterior.drop_vars("alpha")
    with pytest.raises(ValueError, match="population_check needs a pooled fit"):
        population_check(pooled)


# The BUGS pumps (facts.md section 5): 10 pumps, failures x over t thousand hours, BUGS prior
PUMPS_X = np.array([5, 1, 5, 14, 3, 19, 1, 1, 4, 22.0])
PUMPS_T = np.array([94.3, 15.7, 62.9, 126, 5.24, 31.4, 1.048, 1.048, 2.096, 10.48])


def test_the_population_grid_is_the_published_pumps_posterior():
    # the grid's posterior of (alpha, beta) with every pump against the published BUGS runs
    # (Mamba.jl: alpha 0.679 (sd 0.267), beta 0.894 (0.528); JAGS in NIMBLE: 0.706 (0.272),
    # 0.949 (0.549)): their Monte Carlo error is ~0.01 in alpha's mean, ~0.02 in beta's; the
    # grid's 0.697 (0.271) and 0.925 lie between them. Tolerances: 0.03 (alpha), 0.06 (beta).
    # Negative control: the exposures in hours, not thousands (the BUGS prior is not
    # scale-free), give alpha 0.14
    def moments(t):
        (alpha, beta), log_prior, log_lik = population_grid(PUMPS_X, t)
        log_w = log_prior[0] + log_lik.sum(axis=1)
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        mean = float(w @ alpha)
        return mean, float(np.sqrt(w @ alpha**2 - mean**2)), float(w @ beta)

    a, sd, b = moments(PUMPS_T)
    assert abs(a - 0.69) < 0.03 and abs(sd - 0.27) < 0.02 and abs(b - 0.92) < 0.06
    assert abs(moments(PUMPS_T * 1000)[0] - 0.69) > 0.3


def _pooled(count, exposure, ref_units=None, prior="scaled"):
    """A pooled fit's record, as fit_hierarchical writes it, without sampling."""
    cats = [f"c{k}" for k in range(len(count))]
    ref = np.ones(len(count)) if ref_units is None else np.asarray(ref_units, float)
    post = xr.Dataset(
        {"alpha": (("chain", "draw"), [[1.0]]), "beta": (("chain", "draw"), [[1.0]])},
        attrs={"prior": f"{prior}: ...", "rate_scale": 1.0},
    )
    const = xr.Dataset(
        {"exposure": ("category", np.asarray(exposure, float)), "ref_units": ("category", ref)},
        coords={"category": cats},
    )
    obs = xr.Dataset({"count": ("category", np.asarray(count))}, coords={"category": cats})
    return az.InferenceData(posterior=post, constant_data=const, observed_data=obs)


def test_population_check_finds_the_category_out_of_line():
    # twelve categories of 8-13 events on equal exposures and one of 60: the others'
    # population rarely gives 60, p = 0.0035 (not smaller: the Exp(1) prior on the
    # population's shape keeps a spread between categories open); every other count reads
    # p > 0.6 (30 reads 0.09). Negative control: the thirteenth at 11 reads like the rest
    base = [10, 12, 9, 11, 8, 13, 10, 12, 9, 11, 10, 12]
    check = population_check(_pooled([*base, 60], np.full(13, 100.0)))
    p = check["count_p"].values
    assert p[-1] < 0.01 and p[:-1].min() > 0.1
    assert float(check["count_p_upper"][-1]) < float(check["count_p_lower"][-1])
    text = population_text(check)
    assert "c12: observed 60, above what the others' population gives" in text
    assert "(1 of 13 at p < 0.05" in text
    calm = population_check(_pooled([*base, 11], np.full(13, 100.0)))
    assert float(calm["count_p"].min()) > 0.1
    assert "all 13 categories at p >= 0.05" in population_text(calm)


def test_relmc_fit_hierarchical_prints_the_population_check(tmp_path, capsys, monkeypatch):
    from relmc.cli import main

    monkeypatch.chdir(tmp_path)
    counts = [10, 12, 9, 11, 8, 13, 10, 12, 9, 11, 10, 12, 60]
    rows = "".join(f"c{k},{n},100000,gpu\n" for k, n in enumerate(counts))
    (tmp_path / "c.csv").write_text("category,count,exposure,unit\n" + rows)
    argv = ["fit", "--counts", "c.csv", "--model", "hierarchical", "--seed", "1"]
    argv += ["--n-draws", "300", "--n-tune", "300", "--n-chains", "2", "--csv", "s.csv"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # r_hat of a short run
        assert main([*argv, "--out", "o"]) == 0
    text = capsys.readouterr().out
    assert "population check (each category's count against the population of the others" in text
    assert "c12: observed 60, above what the others' population gives" in text
    header, *lines = (tmp_path / "o" / "s.csv").read_text().splitlines()
    col = header.split(",").index("count_p")
    p = [float(r.split(",")[col]) for r in lines]
    assert p[-1] < 0.05 and min(p[:-1]) > 0.05


def _reference_p(count, t, beta_rate):
    """Leave-one-out p-values on a brute-force grid: 1,500 points a side, log alpha in
    [-20, 12] and the log mean over the counts' rates widened by e^60, the hyperpriors
    written out from scipy (written apart from relmc.models.check's two-step grid)."""
    from scipy import special, stats

    x, t = np.asarray(count, float), np.asarray(t, float)
    rates = (x + 0.5) / t
    log_m = np.linspace(np.log(rates.min()) - 60, np.log(rates.max()) + 60, 1500)
    la, lm = (g.ravel() for g in np.meshgrid(np.linspace(-20, 12, 1500), log_m, indexing="ij"))
    a, b = np.exp(la)[:, None], np.exp(la - lm)[:, None]
    lik = (special.gammaln(x + a) - special.gammaln(a) - special.gammaln(x + 1)
           + a * np.log(b / (b + t)) + x * np.log(t / (b + t)))  # fmt: skip
    p = []
    for c in range(x.size):
        prior_b = stats.gamma.logpdf(b[:, 0], 0.1, scale=1 / beta_rate[c])
        prior = stats.expon.logpdf(a[:, 0]) + prior_b + la + (la - lm)
        lw = prior + lik.sum(1) - lik[:, c]
        w = np.exp(lw - lw.max())
        w /= w.sum()
        nb = stats.nbinom(a[:, 0], b[:, 0] / (b[:, 0] + t[c]))
        p.append(min(1.0, 2 * min(w @ nb.sf(x[c] - 1), w @ nb.cdf(x[c]))))
    return np.array(p)


@pytest.mark.parametrize(
    ("count", "t"),
    [([0, 0, 0, 0, 0, 50], [1.0] * 6), ([0, 50], [1.0, 1.0]), ([3, 40, 7], [2.0, 5.0, 300.0])],
)
def test_population_check_matches_a_wide_brute_force_grid(count, t):
    # zero counts give the "bugs" prior's long tail in the population's rate: a grid over
    # the counts' rates widened by e^8 had left 2-8% of the posterior out (p 0.037 against
    # 0.046 for the 50 among five zeros); the two-step grid agrees with a brute-force one
    # over e^60 to 1e-3
    got = population_check(_pooled(count, t, prior="bugs"))["count_p"].values
    np.testing.assert_allclose(got, _reference_p(count, t, np.ones(len(count))), atol=1e-3)


def test_population_check_is_the_same_in_any_unit_and_refits_the_scale():
    # the same counts with exposures in other units (x 8, per 8 units) give the same p-values
    base = np.array([10, 12, 9, 11, 8, 13, 10, 12, 9, 11, 10, 12, 60])
    exposure = np.linspace(50.0, 400.0, 13)
    count = np.round(base * exposure / 100).astype(int)
    one = population_check(_pooled(count, exposure))["count_p"].values
    eight = population_check(_pooled(count, 8 * exposure, np.full(13, 8.0)))["count_p"].values
    np.testing.assert_allclose(one, eight, atol=1e-9)
    assert one[-1] < 0.01 and one[:-1].min() > 0.1
    # and the grid moves with the rates: exposures times 1e-3 and 1e-12 (rates ~100 and
    # ~1e11 an exposure unit, the population's log mean positive) give the same p-values
    # ("scaled" scales its prior with the rates, and the grid is laid around them)
    for f in (1e-3, 1e-12):
        scaled = population_check(_pooled(count, exposure * f))["count_p"].values
        np.testing.assert_allclose(one, scaled, atol=1e-9)
    # "scaled": the scale of a category's prior is the other counts' pooled rate, so the 50
    # among five zeros does not set its own: p = 0.015, as the brute-force grid with those
    # scales gives; with the scale of all counts (negative control) it read 0.099
    count, t = [0, 0, 0, 0, 0, 50], np.full(6, 1e3)
    got = population_check(_pooled(count, t))["count_p"].values
    held_out = np.array([max(50 - c, 0.5) / 5e3 for c in count])
    np.testing.assert_allclose(got, _reference_p(count, t, held_out), atol=1e-3)
    assert got[-1] < 0.03
    assert _reference_p(count, t, np.full(6, 50 / 6e3))[-1] > 0.05


def test_population_check_of_many_categories_weighs_cells_from_the_peak():
    # 40 categories of one rate, exposures 1 to 1e8 (counts Poisson): the log posterior peaks
    # at about -392, so weights exp(log_w + peak) (~e^-784) underflow to 0 where those taken
    # from the peak do not; the 40th at three times the rate reads p = 0.0005, the others
    # p > 0.1. Negative control: the 40th at its own rate reads like the rest
    rng = np.random.default_rng(7)
    t = np.logspace(0, 8, 40)
    count = rng.poisson(t)
    out = count.copy()
    out[-1] = rng.poisson(3 * t[-1])
    p = population_check(_pooled(out, t, prior="bugs"))["count_p"].values
    assert np.isfinite(p).all() and p[-1] < 0.01 and p[:-1].min() > 0.1
    calm = population_check(_pooled(count, t, prior="bugs"))["count_p"].values
    assert calm.min() > 0.1
