"""The one path from a rate source to kernel inputs: draw order, units, packing."""

import inspect

import numpy as np
import pytest
import xarray as xr

import relmc
from relmc.rates import draw_of_trial, mttf_hours, rate_array, rate_draws, unit_counts
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
        (_posterior().sel(category=["a"]), "do not match"),
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
    signature = inspect.signature(simulate_block.py_func)
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
