"""Posterior predictive checks of fits (relmc.models.predictive_check, relmc fit's lines)."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
import xarray as xr

import relmc
from relmc.cli.fit import check_text
from relmc.models import predictive_check


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
    text = check_text(check)
    assert "c3: observed 20, replicated 90% [0, 9], p = 0" in text
    assert "(1 of 4 categories at p < 0.05)" in text and "c0:" not in text


def test_a_fit_reproduces_its_counts_and_a_changed_count_is_found():
    # the conjugate fit of Llama 3: each category's count is near the middle of its
    # replicates (in sample: p >= 0.5 for all 18). Negative control: Faulty GPU's observed
    # 148 read as 300, which the posterior's replicates (90% 121-176) never reach: p < 0.001
    fit = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), seed=1)
    check = predictive_check(fit)
    assert float(check["count_p"].min()) >= 0.5
    assert "all 18 categories at p >= 0.05" in check_text(check)
    changed = fit.copy()
    changed.observed_data["count"].loc[{"category": "Faulty GPU"}] = 300
    check = predictive_check(changed)
    assert float(check["count_p"].sel(category="Faulty GPU")) < 1e-3
    others = check["count_p"].drop_sel(category="Faulty GPU")
    assert float(others.min()) >= 0.5
    assert "Faulty GPU: observed 300" in check_text(check)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="posterior_predictive and observed_data"):
        predictive_check(az.InferenceData(posterior=xr.Dataset({"rate": ("x", [1.0])})))
    bad = _idata(np.arange(10), [1, 2])
    bad.observed_data = xr.Dataset({"count": ("other", [1, 2, 3])})
    with pytest.raises(ValueError, match="dims"):
        predictive_check(bad)
    with pytest.raises(ValueError, match="quantiles"):
        predictive_check(_idata(np.arange(10), [1]), quantiles=[0.5, 2.0])


def test_relmc_fit_prints_and_summarises_the_check(tmp_path, capsys):
    from relmc.cli import main

    out = tmp_path / "o"
    assert main(["fit", "--seed", "1", "--out", str(out), "--csv", "s.csv"]) == 0
    text = capsys.readouterr().out
    assert "posterior predictive check (two-sided p" in text
    assert "all 18 categories at p >= 0.05" in text
    rows = (out / "s.csv").read_text().splitlines()
    header = rows[0].split(",")
    col = header.index("count_p")
    assert len(rows) == 19 and all(float(r.split(",")[col]) >= 0.5 for r in rows[1:])
