"""The one path from a rate source to kernel inputs: draw order, units, packing."""

import dataclasses
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import relmc
from relmc.rates import (
    cluster_rates,
    draw_of_trial,
    mttf_hours,
    rate_array,
    rate_draws,
    unit_counts,
)
from relmc.scenario import Category, Cluster, FailureModel, Scenario
from relmc.sim._kernels import simulate_block
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args
from relmc.sim.simulate import kernel_inputs


def _scenario(n_gpus=16):
    cats = (Category("a", rate=1e-3, unit="gpu"), Category("b", rate=2e-3, unit="node"))
    return Scenario(cluster=Cluster(n_gpus=n_gpus), failures=FailureModel(cats))


def _posterior(n_chains=4, n_draws=5):
    # rate of category a encodes (chain, draw) as 1 + chain + draw / 100; b is constant
    chain = np.arange(n_chains)[:, None]
    draw = np.arange(n_draws)[None, :]
    a = 1e-3 * (1 + chain + draw / 100)
    values = np.stack([a, np.full_like(a, 2e-3)], axis=-1)
    return xr.DataArray(
        values,
        dims=("chain", "draw", "category"),
        coords={"chain": np.arange(n_chains), "draw": np.arange(n_draws), "category": ["a", "b"],
                "unit": ("category", ["gpu", "node"])},
    )  # fmt: skip


def _chain_of_row(values):
    return np.floor(values[:, 0] / 1e-3 - 1 + 1e-9).astype(int)


def test_draws_are_spread_over_every_chain():
    draws = rate_draws(_scenario(), _posterior(4, 5))
    assert draws.n_draws == 20
    chains = _chain_of_row(draws.values)
    # draw-major, chain-minor: rows 0..3 are draw 0 of chains 0..3
    np.testing.assert_array_equal(chains[:8], [0, 1, 2, 3, 0, 1, 2, 3])
    # 4 trials of a 4 x 5 posterior use all four chains (chain-by-chain order used chain 0 only)
    rows = draw_of_trial(4, draws.n_draws)
    assert sorted(chains[rows]) == [0, 1, 2, 3]
    # negative control: the old chain-by-chain flattening gives chain 0 to the first 5 trials
    old = _posterior(4, 5).transpose("chain", "draw", "category").values.reshape(-1, 2)
    assert set(_chain_of_row(old)[:4]) == {0}


def test_simulate_uses_every_chain_with_few_trials():
    post = _posterior(4, 250)
    ds = relmc.simulate(_scenario(), rates=post, n_trials=8, seed=1, n_threads=1)
    values = rate_draws(_scenario(), post).values
    assert sorted(set(_chain_of_row(values[ds["draw"].values]))) == [0, 1, 2, 3]


def test_one_chain_keeps_the_plain_order():
    post = _posterior(1, 7)
    values = rate_draws(_scenario(), post).values
    np.testing.assert_array_equal(values, post.isel(chain=0).values)


def test_inference_data_and_its_rate_array_give_the_same_draws():
    fit = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=20, seed=0)
    sc = relmc.Scenario(failures=FailureModel.from_posterior(fit))
    a = rate_draws(sc, fit).values
    b = rate_draws(sc, rate_array(fit)).values
    np.testing.assert_array_equal(a, b)
    # FailureModel.from_posterior takes the DataArray too, with the same categories
    assert FailureModel.from_posterior(rate_array(fit)).names == sc.failures.names


def test_unit_counts_and_mttf():
    sc = _scenario(n_gpus=64)  # 64 GPUs, 8 nodes
    np.testing.assert_array_equal(unit_counts(sc), [64.0, 8.0])
    draws = rate_draws(sc)
    lam = 64 * 1e-3 + 8 * 2e-3
    assert mttf_hours(sc, draws)[0] == pytest.approx(1 / lam, rel=1e-12)
    assert sc.mttf_hours() == pytest.approx(1 / lam, rel=1e-12)


@pytest.mark.parametrize(
    ("rates", "match"),
    [
        ({"a": -1.0}, r"rates\['a'\]"),
        ({"a": float("nan")}, r"rates\['a'\]"),
        ({"zzz": 1.0}, "unknown categories"),
        (np.ones(3), "rates must be"),
        (_posterior().sel(category=["a"]), r"do not match.*has category 'b' that the rates lack"),
        (_posterior().assign_coords(unit=("category", ["node", "node"])), "fitted per node-hour"),
        (_posterior().astype(str), "must be numbers"),
    ],
)
def test_bad_rate_sources_are_named(rates, match):
    with pytest.raises(ValueError, match=match):
        rate_draws(_scenario(), rates)


def test_kernel_parameters_match_the_kernel_signature():
    # the one packing function lays out arguments in KERNEL_PARAMETERS' order; if the kernel's
    # signature drifts from it, every positional argument would land in the wrong place
    signature = inspect.signature(simulate_block)
    assert tuple(signature.parameters) == KERNEL_PARAMETERS
    inputs, _ = kernel_inputs(_scenario(), None, 3)
    out = allocate_outputs(3, inputs.n_categories)
    args = kernel_args(inputs, out, slice(0, 3))
    assert len(args) + 1 == len(KERNEL_PARAMETERS)
    # outputs are views: the kernel fills `out` in place
    assert all(np.shares_memory(a, out[k]) for a, k in zip(args[-len(out) :], out, strict=True))


def test_summarize_rates_matches_closed_forms():
    from relmc.rates import summarize_rates

    post = _posterior(2, 50)  # rates of a: 1e-3 (1 + chain + draw/100) per GPU-hour
    s = summarize_rates(post, n_gpus=64)
    flat = rate_draws(_scenario(64), post).values
    lam = flat @ np.array([64.0, 8.0])  # 64 GPUs, 8 nodes
    np.testing.assert_allclose(s["rate_mean"], flat.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(
        s["mttf_hours_quantile"], np.quantile(1 / lam, [0.05, 0.5, 0.95]), rtol=1e-12
    )
    np.testing.assert_allclose(
        s["interruptions_per_day_quantile"], np.quantile(24 * lam, [0.05, 0.5, 0.95]), rtol=1e-12
    )
    np.testing.assert_allclose(s["hours_between_mean"].sel(category="b"), 1 / (8 * 2e-3))
    # without a size: per-unit rates only
    assert "mttf_hours_quantile" not in summarize_rates(post)


def test_summarize_rates_refuses_units_it_cannot_scale():
    from relmc.rates import summarize_rates

    pumps = relmc.fit_conjugate(relmc.load_dataset("pumps"), n_draws=10, seed=0)
    with pytest.raises(ValueError, match="cannot be scaled"):
        summarize_rates(pumps, n_gpus=1024)
    assert summarize_rates(pumps)["rate_mean"].sizes["category"] == 10


# --------------------------------------------------------------------------------------------
# exposure clock: rates per wall-clock hour of an observed window vs the kernel's exposed clock


@pytest.fixture(scope="module")
def llama_fit():
    return relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=100, seed=0)


def _overheads(fit, swap_hours=0.5, maintenance_hours=0.25):
    """Llama 3 at its observed 16,384 GPUs with the issue's 0.5-h swaps and 0.25-h downtime."""
    import dataclasses

    from relmc.projection import default_scenario

    sc = default_scenario(fit)
    return dataclasses.replace(
        sc,
        policy=dataclasses.replace(sc.policy, swap_hours=swap_hours),
        failures=dataclasses.replace(sc.failures, maintenance_hours=maintenance_hours),
    )


def _per_wall_day(runs):
    """Unexpected interruptions per wall-clock day over all trials (total / total)."""
    return float(runs["interruptions"].sum()) / (float(runs["wall_hours"].sum()) / 24.0)


def test_exposed_fraction_closed_form(llama_fit):
    from relmc.rates import exposed_fraction, fitted_rates

    sc = _overheads(llama_fit)
    draws = rate_draws(sc, llama_fit)
    assert draws.observed_gpus == 16384
    lam = fitted_rates(sc, draws)  # per wall-clock hour at 16,384 GPUs
    swap = np.array([c.recovery == "swap" for c in sc.failures.categories])
    detect = np.array([c.detection_hours for c in sc.failures.categories])
    planned = 47 / 1296 * (0.25 + 1 / 60)  # downtime + the maintenance checkpoint's snapshot
    expected = 1 - lam @ (detect + 0.5 * swap) - planned
    np.testing.assert_allclose(exposed_fraction(sc, draws), expected, rtol=1e-12)
    # the rates the kernel gets are the fitted ones over that share
    np.testing.assert_allclose(cluster_rates(sc, draws), lam / expected[:, None], rtol=1e-12)
    # overheads longer than the window between interruptions: refused, naming the fields
    with pytest.raises(ValueError, match="swap_hours"):
        cluster_rates(_overheads(llama_fit, swap_hours=10.0), draws)


def test_simulated_interruptions_per_wall_day_match_the_fitted_rate(llama_fit):
    # 400 jobs of 54 days at the observed size, ~420 interruptions each: the rate per wall-clock
    # day has an MC SE of ~0.35% (Poisson 1/sqrt(400 x 420) and the posterior's 4.9% spread
    # over 100 draws / sqrt(4)); 2% is ~6 SE. Without the conversion the 0.5-h swaps and
    # 0.25-h downtime pause the failure clock ~15% of the wall clock and the rate falls ~13%
    # below the fitted one: the negative control must miss the same 2%.
    sc = _overheads(llama_fit)
    fitted = 24 * float(job_rates_on_wall_clock(sc, llama_fit))
    runs = relmc.simulate(sc, rates=llama_fit, n_trials=400, seed=1)
    assert _per_wall_day(runs) == pytest.approx(fitted, rel=0.02)
    # negative control: the same rates taken as per exposed hour (no conversion)
    exposed = rate_array(llama_fit).assign_attrs(exposure_clock="exposed")
    uncorrected = relmc.simulate(sc, rates=exposed, n_trials=400, seed=1)
    assert _per_wall_day(uncorrected) != pytest.approx(fitted, rel=0.02)
    assert _per_wall_day(uncorrected) < 0.9 * fitted


def job_rates_on_wall_clock(sc, fit):
    """Posterior-mean fitted job rate per wall-clock hour at the scenario's size."""
    from relmc.rates import fitted_rates

    return fitted_rates(sc, rate_draws(sc, fit)).sum(axis=1).mean()


def test_rates_without_an_observed_window_are_used_as_they_are(llama_fit):
    # point rates and a mapping are per exposed hour (the kernel's clock): no conversion,
    # even with long overheads
    sc = _overheads(llama_fit)
    for source in (None, {"Faulty GPU": 1e-6}):
        draws = rate_draws(sc, source)
        assert draws.observed_gpus == 0
        np.testing.assert_array_equal(cluster_rates(sc, draws), draws.values * unit_counts(sc))
    # so is a rate array that records no observed size
    draws = rate_draws(_scenario(), _posterior())
    assert draws.observed_gpus == 0
    np.testing.assert_array_equal(
        cluster_rates(_scenario(), draws), draws.values * unit_counts(_scenario())
    )


def test_counts_can_declare_exposed_hours(tmp_path):
    # a CSV whose exposure counts only the hours the job ran: recorded, and the fitted rates
    # are used as they are (no conversion); the default "wall" converts at the observed size
    src = Path(__file__).resolve().parents[1] / "examples" / "my_cluster.csv"
    kw = {"n_gpus": 4096, "duration_hours": 720.0}
    wall = relmc.fit_conjugate(relmc.load_counts(src, **kw), n_draws=10, seed=0)
    exposed_data = relmc.load_counts(src, exposure_clock="exposed", **kw)
    assert exposed_data.attrs["exposure_clock"] == "exposed"
    exposed = relmc.fit_conjugate(exposed_data, n_draws=10, seed=0)
    assert exposed.posterior.attrs["exposure_clock"] == "exposed"
    sc = relmc.Scenario(failures=relmc.FailureModel.from_posterior(wall))
    assert rate_draws(sc, wall).observed_gpus == 4096
    assert rate_draws(sc, exposed).observed_gpus == 0
    np.testing.assert_array_equal(rate_draws(sc, wall).values, rate_draws(sc, exposed).values)
    with pytest.raises(ValueError, match="exposure_clock must be one of wall, exposed"):
        relmc.load_counts(src, exposure_clock="hours", **kw)


def test_straggler_and_sdc_categories_may_be_added_to_a_posterior(llama_fit):
    # no count data has stragglers: a scenario built from a fit may add one (and an SDC
    # category) at its own rate, the same in every draw and not converted by the exposure
    # clock; an added *failure* category is still a mismatch
    import dataclasses

    sc = _overheads(llama_fit)
    straggler = relmc.Category("Straggler", rate=2e-5, unit="node", kind="straggler")
    sdc = relmc.Category("Latent SDC", rate=1e-6, unit="gpu", kind="sdc", sdc_latency_hours=2)
    cats = (*sc.failures.categories[:3], straggler, *sc.failures.categories[3:], sdc)
    added = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    plain, draws = rate_draws(sc, llama_fit), rate_draws(added, llama_fit)
    assert draws.values.shape == (plain.n_draws, plain.values.shape[1] + 2)
    assert draws.fixed.tolist() == [c.name in ("Straggler", "Latent SDC") for c in cats]
    np.testing.assert_array_equal(draws.values[:, ~draws.fixed], plain.values)
    np.testing.assert_array_equal(draws.values[:, 3], 2e-5)
    assert "Straggler, Latent SDC at the scenario's rate" in draws.source
    rates = cluster_rates(added, draws)
    units = unit_counts(added)
    np.testing.assert_allclose(rates[:, 3], 2e-5 * units[3], rtol=1e-15)  # not divided by f
    np.testing.assert_allclose(rates[:, ~draws.fixed], cluster_rates(sc, plain), rtol=1e-12)
    failure = relmc.Category("Made up", rate=1e-6)
    wrong = dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, categories=(*sc.failures.categories, failure))
    )
    # what differs is named, not both lists of 18 names
    only = r"scenario has category 'Made up' that the rates lack; 18 in the rates, 19 in"
    with pytest.raises(ValueError, match=only):
        rate_draws(wrong, llama_fit)


def test_simulated_planned_events_per_wall_day_match_the_fitted_rate(llama_fit):
    # Llama 3: 47 planned interruptions in 54 days. 400 jobs of 54 days at the observed size
    # with 0.5-h swaps and 0.25-h downtime: ~47 planned events each, 18,800 in all, a Poisson
    # SE of 0.73% on the rate per wall-clock day; 3% is ~4 SE. Without the conversion the
    # failure clock's pauses (exposed share f = 0.85) lower the rate by ~15%: the negative
    # control (the unconverted rate's expectation m f) must be outside the same 3%.
    from relmc.rates import exposed_fraction

    sc = _overheads(llama_fit)
    runs = relmc.simulate(sc, rates=llama_fit, n_trials=400, seed=3)
    per_day = float(runs["maintenance_events"].sum()) / (float(runs["wall_hours"].sum()) / 24)
    fitted = 24 * sc.failures.maintenance_rate
    assert per_day == pytest.approx(fitted, rel=0.03)
    f = float(exposed_fraction(sc, rate_draws(sc, llama_fit)).mean())
    assert f < 0.9
    assert fitted * f != pytest.approx(fitted, rel=0.03)
    assert per_day != pytest.approx(fitted * f, rel=0.03)


def _scaling_posterior(n_chains=2, n_draws=3):
    """_posterior with a size exponent per (chain, draw, category) and reference sizes."""
    da = _posterior(n_chains, n_draws)
    expo = 0.5 + 0.1 * np.arange(n_chains)[:, None, None] + np.array([0.0, 0.3])
    expo = np.broadcast_to(expo + 0.01 * np.arange(n_draws)[None, :, None], da.shape)
    return da.assign_coords(
        exponent=(("chain", "draw", "category"), expo.copy()),
        reference_gpus=("category", [8, 16]),
    )


def test_added_categories_scale_linearly_beside_fitted_exponents():
    # a straggler category the fit lacks keeps its scenario rate and scales linearly in its
    # units (exponent 1, reference 1); the fitted columns keep their exponents, draw by draw
    import dataclasses

    sc = _scenario()
    straggler = Category("slow", rate=1e-5, unit="node", kind="straggler")
    cats = (sc.failures.categories[0], straggler, sc.failures.categories[1])
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    plain = rate_draws(_scenario(), _scaling_posterior())
    draws = rate_draws(sc, _scaling_posterior())
    assert draws.fixed.tolist() == [False, True, False]
    np.testing.assert_array_equal(draws.exponent[:, ~draws.fixed], plain.exponent)
    np.testing.assert_array_equal(draws.exponent[:, 1], 1.0)
    assert draws.reference_gpus.tolist() == [8, 1, 16]
    assert len(set(plain.exponent[:, 0])) == 6  # every draw its own exponent: rows can differ


def test_size_exponents_need_one_per_rate_draw():
    # an exponent per category only (no draws) is refused, not broadcast over the draws
    da = _scaling_posterior()
    per_cat = da.drop_vars("exponent").assign_coords(exponent=("category", [0.5, 0.8]))
    with pytest.raises(ValueError, match="size exponent must be finite, one per rate draw"):
        rate_draws(_scenario(), per_cat)
    bad = da.copy()
    bad.coords["exponent"].values[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="size exponent must be finite"):
        rate_draws(_scenario(), bad)


def test_posterior_path_is_resolved_against_its_root(tmp_path, monkeypatch):
    # a sweep spec's relative netCDF path is read from the spec's folder, not the cwd
    import arviz as az

    from relmc.rates import posterior_from_source

    post = _posterior().rename("rate").to_dataset()
    az.InferenceData(posterior=post).to_netcdf(str(tmp_path / "fit.nc"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    got = posterior_from_source("fit.nc", seed=0, n_draws=1, path_root=tmp_path)
    xr.testing.assert_equal(got.reset_coords(drop=True), _posterior().reset_coords(drop=True))
    with pytest.raises(ValueError, match="fit.nc' does not exist"):  # no root: the cwd's
        posterior_from_source("fit.nc", seed=0, n_draws=1)


def test_flat_draws_are_draw_major_and_other_layouts_kept():
    # a per-draw physics variable lines up with the rates' rows (draw-major, chain-minor, as
    # _ordered); one without a chain dim (a single chain, or stacked samples) is read as is
    from relmc.rates import _flat_draws

    da = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("chain", "draw"))
    assert _flat_draws(da).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert _flat_draws(xr.DataArray([1.0, 2.0], dims=("draw",))).tolist() == [1.0, 2.0]
    assert _flat_draws(xr.DataArray([1.0, 2.0], dims=("chain",))).tolist() == [1.0, 2.0]


def test_cluster_rate_total_is_checked_per_draw():
    # each category's cluster rate is under the kernel's limit, their total per draw is not:
    # refused as the total, blaming the largest category; the same rates over a second, lower
    # draw still are
    from relmc.rates import MAX_CLUSTER_RATE

    sc = _scenario(n_gpus=8)  # 8 GPUs, one node: a per-GPU rate is x8, a per-node rate x1
    each = 0.6 * MAX_CLUSTER_RATE
    rates = {"a": each / 8, "b": 1.1 * each}
    total = "the cluster's total event rate, 1.26e+12 per hour (the categories' 1.26e+12 and "
    with pytest.raises(ValueError, match=re.escape(total)) as e:
        cluster_rates(sc, rate_draws(sc, rates))
    assert e.value.field == "rates['b']"
    two = xr.DataArray([[each / 8, 1.1 * each], [1e-3, 1e-3]], dims=("draw", "category"),
                       coords={"category": ["a", "b"]})  # fmt: skip
    with pytest.raises(ValueError, match=re.escape(total)):
        cluster_rates(sc, rate_draws(sc, two))
    half = {"a": 0.4 * MAX_CLUSTER_RATE / 8, "b": 0.4 * MAX_CLUSTER_RATE}
    assert cluster_rates(sc, rate_draws(sc, half)).sum() == pytest.approx(0.8 * MAX_CLUSTER_RATE)


def test_cluster_rate_total_with_maintenance_blames_the_larger_term():
    # planned maintenance that overflows the total is named as itself (not a category); where
    # a category's rate is the larger term, the category is (negative control)
    from relmc.rates import MAX_CLUSTER_RATE

    sc = _scenario(n_gpus=8)
    rates = {"a": 1e-3, "b": 0.4 * MAX_CLUSTER_RATE}
    heavy = dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, maintenance_rate=0.7 * MAX_CLUSTER_RATE)
    )
    with pytest.raises(ValueError, match=r"planned maintenance 7e\+11\) overflows") as e:
        cluster_rates(heavy, rate_draws(heavy, rates))
    assert e.value.field == "failures.maintenance_rate"
    light = dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, maintenance_rate=0.3 * MAX_CLUSTER_RATE)
    )
    rates["b"] = 0.8 * MAX_CLUSTER_RATE
    with pytest.raises(ValueError, match=r"planned maintenance 3e\+11\) overflows") as e:
        cluster_rates(light, rate_draws(light, rates))
    assert e.value.field == "rates['b']"
    rates["b"] = 0.6 * MAX_CLUSTER_RATE  # 0.9e12 in all: accepted
    assert cluster_rates(light, rate_draws(light, rates))[0, 1] == 0.6 * MAX_CLUSTER_RATE


def test_of_several_overflowing_categories_the_largest_is_blamed():
    # two categories over the kernel's limit at different draws: the largest rate is named
    # (first in order would be 'a'); a NaN counts as the largest
    from relmc.rates import MAX_CLUSTER_RATE

    sc = _scenario(n_gpus=8)  # 'a' per GPU (x8), 'b' per node (x1)
    two = xr.DataArray(
        [[1e-3, 3 * MAX_CLUSTER_RATE], [2 * MAX_CLUSTER_RATE / 8, 1e-3]],
        dims=("draw", "category"),
        coords={"category": ["a", "b"]},
    )
    with pytest.raises(ValueError, match=r"the cluster-level rate of 'b' overflows") as e:
        cluster_rates(sc, rate_draws(sc, two))
    assert e.value.field == "rates['b']"
    swapped = two.copy(data=[[1e-3, 2 * MAX_CLUSTER_RATE], [3 * MAX_CLUSTER_RATE / 8, 1e-3]])
    with pytest.raises(ValueError) as e:
        cluster_rates(sc, rate_draws(sc, swapped))
    assert e.value.field == "rates['a']"


def _frailty_posterior(with_frailty=True):
    import arviz as az

    rate = _posterior(2, 4)
    post = xr.Dataset({"rate": rate})
    if with_frailty:  # as fit_events(nodes="frailty") names it, one value a draw
        post["frailty_variance"] = (("chain", "draw"), np.full((2, 4), 0.8))
    return az.InferenceData(posterior=post)


def test_a_frailty_fit_warns_that_its_frailty_is_not_simulated(tmp_path):
    # the gamma frailty of fit_events(nodes="frailty") is reported, not simulated: every node
    # fails at the mean rate. A simulation says so once, and its numbers are those of the same
    # rates without the variable.
    from relmc.errors import UnreadFieldWarning
    from relmc.rates import NOT_SIMULATED_VARIABLES, not_simulated_notes

    sc = dataclasses.replace(_scenario(), job=relmc.Job(compute_hours=20.0))
    frail, plain = _frailty_posterior(True), _frailty_posterior(False)
    assert rate_draws(sc, frail).not_simulated == ("frailty_variance",)
    assert rate_draws(sc, plain).not_simulated == ()
    # kept by a subset of the draws, and beside a straggler category the posterior lacks
    assert relmc.rates.nested_draws(rate_draws(sc, frail), 8, 4).not_simulated == (
        "frailty_variance",
    )
    slow = relmc.Category("s", rate=1e-5, unit="node", kind="straggler", straggler_speed=0.5)
    with_slow = dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, categories=(*sc.failures.categories, slow))
    )
    assert rate_draws(with_slow, frail).not_simulated == ("frailty_variance",)
    note = not_simulated_notes(rate_draws(sc, frail))
    assert note == [
        f"posterior['frailty_variance'] is not used: {NOT_SIMULATED_VARIABLES['frailty_variance']}"
    ]
    assert "mean over nodes" in note[0]
    with pytest.warns(UnreadFieldWarning) as caught:
        got = relmc.simulate(sc, rates=frail, n_trials=64, seed=5)
    assert [str(w.message) for w in caught] == note
    # negative control: without the variable, no warning (filterwarnings = error) and the
    # same numbers, bit for bit
    same = relmc.simulate(sc, rates=plain, n_trials=64, seed=5)
    xr.testing.assert_identical(got.drop_attrs(), same.drop_attrs())
    # a projection over sizes and a credible run warns once, not per size or simulation
    with pytest.warns(UnreadFieldWarning) as caught:
        relmc.project(frail, n_gpus=[8, 16], scenario=sc, n_trials=32, credible_trials=16,
                      trials_per_draw=4, seed=1)  # fmt: skip
    assert [str(w.message) for w in caught] == note
    # so does a sweep over a posterior file of such a fit, once for its cells
    path = tmp_path / "frail.nc"
    frail.to_netcdf(str(path))
    spec = relmc.sweep.SweepSpec.from_dict({
        "seed": 3, "n_trials": 16, "posterior": str(path),
        "base": {"job": {"compute_hours": 20}, "cluster": {"n_gpus": 16}},
        "axes": {"policy.checkpoint_interval": [0.5, 1.0]},
    })  # fmt: skip
    with pytest.warns(UnreadFieldWarning) as caught:
        relmc.sweep.run_sweep(spec, tmp_path / "s.zarr", progress=False)
    assert [str(w.message) for w in caught] == note
