"""Posterior predictive checks: whether each observed count is one a fitted model produces.

:func:`predictive_check` compares each count with the fit's own replicates (in sample: a model
with a rate per category reproduces each count, so only a model that ties counts together can
fail it). :func:`population_check` asks the sharper question a pooled model allows: is each
category's count one the *other* categories' population would produce (a leave-one-category-out
mixed predictive check)?
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from relmc.errors import FieldError

__all__ = [
    "predictive_check",
    "population_check",
    "population_grid",
    "CHECK_QUANTILES",
    "GRID_POINTS",
]

#: Levels of the replicated counts' quantiles a check reports: median and central 90 %.
CHECK_QUANTILES: tuple[float, ...] = (0.05, 0.5, 0.95)


def predictive_check(idata: Any, quantiles: Sequence[float] = CHECK_QUANTILES) -> xr.Dataset:
    """Compare every observed count of a fit with its posterior predictive replicates.

    For each variable a fit holds in both ``observed_data`` and ``posterior_predictive``
    (``count`` per category; a fleets fit's ``total_count`` per fleet too), the replicates
    are the model's counts drawn at every posterior draw (chain, draw). The two-sided
    posterior predictive p-value of an observed count ``y`` is
    ``min(1, 2 min(P(rep >= y), P(rep <= y)))`` over the draws: near 0 the model rarely
    produces a count as far out as the one observed (a category the pooling pulls too far, a
    fleet the multiplier model does not fit). With discrete counts it is conservative (ties
    count on both sides). These are in-sample checks: the data informed the posterior, so a
    well-fitting model gives p-values gathered towards 1 rather than uniform; p-values near 0
    remain evidence of misfit. relmc's models give each category a rate of its own (and each
    fleet a multiplier), which each count then informs: they reproduce every count, whatever
    it is (a category at 400 among others at 10 reads p = 0.98 under the hierarchical model).
    To ask whether a category is out of line with the others, use :func:`population_check`.

    Parameters
    ----------
    idata : arviz.InferenceData
        A fit from :mod:`relmc.models` (or any with matching ``observed_data`` and
        ``posterior_predictive`` variables, replicates over ``chain`` and ``draw``).
    quantiles : sequence of float
        Levels of the replicated counts' quantiles, each in [0, 1].

    Returns
    -------
    xarray.Dataset
        Per variable ``v`` (e.g. ``count``), along its own dims (``category``; ``fleet``):
        ``v_observed``; ``v_predictive_quantile`` (..., quantile); ``v_p``, the two-sided
        p-value; ``v_p_upper`` = P(rep >= observed) and ``v_p_lower`` = P(rep <= observed).

    Raises
    ------
    ValueError
        When ``idata`` holds no variable in both groups, or a variable's replicates and
        observations disagree in their dims.
    """
    post_pred = getattr(idata, "posterior_predictive", None)
    observed = getattr(idata, "observed_data", None)
    if post_pred is None or observed is None:
        raise FieldError(
            "idata",
            "idata must hold posterior_predictive and observed_data groups (a relmc fit does)",
        )
    q = np.asarray(quantiles, dtype=float)
    if q.ndim != 1 or not np.all((q >= 0) & (q <= 1)):
        raise FieldError("quantiles", f"quantiles must be levels in [0, 1]; got {quantiles!r}")
    names = [v for v in post_pred.data_vars if v in observed.data_vars]
    if not names:
        raise FieldError(
            "idata", "idata has no variable in both posterior_predictive and observed_data"
        )
    out = xr.Dataset()
    for name in names:
        rep = post_pred[name]
        obs = observed[name]
        dims = [d for d in rep.dims if d not in ("chain", "draw")]
        if sorted(dims) != sorted(obs.dims) or any(rep.sizes[d] != obs.sizes[d] for d in dims):
            raise FieldError(
                "idata",
                f"posterior_predictive[{name!r}] has dims {rep.dims}, observed_data[{name!r}] "
                f"{obs.dims}: the replicates must be the observations' dims over chain, draw",
            )
        rep = rep.stack(sample=("chain", "draw"))
        obs = obs.reindex_like(rep.isel(sample=0, drop=True))
        upper = (rep >= obs).mean("sample")
        lower = (rep <= obs).mean("sample")
        p = np.minimum(1.0, 2.0 * np.minimum(upper, lower))
        what = f"observed {name} against its posterior predictive replicates"
        out[f"{name}_observed"] = obs.reset_coords(drop=True).assign_attrs(
            units="1", long_name=f"observed {name}"
        )
        out[f"{name}_predictive_quantile"] = (
            rep.quantile(q, dim="sample")
            .transpose(..., "quantile")
            .reset_coords(drop=True)
            .assign_attrs(units="1", long_name=f"replicated {name}: quantiles over draws")
        )
        out[f"{name}_p"] = p.reset_coords(drop=True).assign_attrs(
            units="1",
            long_name=f"two-sided posterior predictive p-value of the {what}",
            definition="min(1, 2 min(P(rep >= obs), P(rep <= obs))) over posterior draws",
        )
        out[f"{name}_p_upper"] = upper.reset_coords(drop=True).assign_attrs(
            units="1", long_name=f"P(replicated {name} >= observed)"
        )
        out[f"{name}_p_lower"] = lower.reset_coords(drop=True).assign_attrs(
            units="1", long_name=f"P(replicated {name} <= observed)"
        )
    out.attrs = {
        "title": "relmc posterior predictive check",
        "model": str(getattr(idata, "posterior", xr.Dataset()).attrs.get("model", "")),
        "dataset": str(getattr(idata, "posterior", xr.Dataset()).attrs.get("dataset", "")),
    }
    return out


#: Points a side of the (log shape, log mean) grid of :func:`population_check`.
GRID_POINTS = 400


def population_grid(
    count: np.ndarray, t: np.ndarray, points: int = GRID_POINTS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lay the pooled model's population ``(alpha, beta)`` on a grid, with each count's likelihood.

    The hierarchical model's hyperpriors (:data:`relmc.models.hierarchical.ALPHA_PRIOR_RATE`,
    ``BETA_PRIOR``) times the negative-binomial likelihood of each count given ``(alpha,
    beta)`` (:func:`relmc.models.hierarchical.marginal_logpmf`), on a ``points`` x ``points``
    grid of ``log alpha`` in [-9, 9] and ``log(alpha / beta)`` (the pooled mean) over the
    counts' rates ``(x + 1/2) / t`` widened by e^8 each way, uniform in both logs (the
    Jacobian ``alpha beta`` is in the prior).

    Returns
    -------
    alpha_beta : ndarray, shape (2, points**2)
        The grid's ``alpha`` and ``beta``.
    log_prior : ndarray, shape (points**2,)
        The hyperpriors' log density per grid cell (in the logs' coordinates).
    log_lik : ndarray, shape (points**2, n_categories)
        Each count's negative-binomial log-likelihood at each cell.
    """
    from scipy import stats

    from relmc.models.hierarchical import ALPHA_PRIOR_RATE, BETA_PRIOR, marginal_logpmf

    rates = (np.asarray(count, dtype=float) + 0.5) / np.asarray(t, dtype=float)
    log_a = np.linspace(-9.0, 9.0, points)
    log_m = np.linspace(np.log(rates.min()) - 8.0, np.log(rates.max()) + 8.0, points)
    la, lm = (g.ravel() for g in np.meshgrid(log_a, log_m, indexing="ij"))
    alpha, beta = np.exp(la), np.exp(la - lm)
    log_prior = (
        stats.expon.logpdf(alpha, scale=1.0 / ALPHA_PRIOR_RATE)
        + stats.gamma.logpdf(beta, BETA_PRIOR["alpha"], scale=1.0 / BETA_PRIOR["beta"])
        + la
        + np.log(beta)
    )
    log_lik = marginal_logpmf(np.asarray(count, dtype=float), np.asarray(t, float), alpha, beta)
    return np.stack([alpha, beta]), log_prior, log_lik


def population_check(idata: Any) -> xr.Dataset:
    """Check each count of a pooled fit against the population of the other categories.

    For :func:`relmc.fit_hierarchical`: given the population ``(alpha, beta)`` a category's count
    is negative binomial, ``NegBin(alpha, beta / (beta + t_c))`` (``t_c`` its exposure on the
    pooling scale: ``exposure / ref_units x rate_scale``). Its p-value is that count's tail
    probability under the population fitted *without* it: the posterior of ``(alpha, beta)``
    given the other counts, exactly on a grid (``population_grid``; the model's
    posterior is 2-D once the pooled rates are integrated out). A category far out of line
    with the others (a lemon batch, a miscounted cause) reads near 0, where the in-sample
    :func:`predictive_check` reads near 1. With few categories the population is loosely
    known and the check is weak: a count must be far out to read below 0.05.

    Parameters
    ----------
    idata : arviz.InferenceData
        A :func:`relmc.fit_hierarchical` fit (``observed_data["count"]``, ``constant_data``
        ``exposure`` and ``ref_units``, ``posterior.attrs["rate_scale"]``, with ``alpha`` and
        ``beta`` in its posterior).

    Returns
    -------
    xarray.Dataset
        Along ``category``: ``count_observed``; ``count_p`` (two-sided, ``min(1, 2 min(upper,
        lower))``), ``count_p_upper`` = P(count >= observed), ``count_p_lower`` = P(count <=
        observed), under the population without the category.

    Raises
    ------
    ValueError
        For a fit without a population (e.g. :func:`relmc.fit_conjugate`'s).
    """
    from scipy import stats

    post = getattr(idata, "posterior", None)
    const = getattr(idata, "constant_data", None)
    obs = getattr(idata, "observed_data", None)
    if (
        post is None
        or not {"alpha", "beta"} <= set(post.data_vars)
        or "rate_scale" not in post.attrs
        or const is None
        or not {"exposure", "ref_units"} <= set(const.data_vars)
        or obs is None
        or "count" not in obs
    ):
        raise FieldError(
            "idata",
            "population_check needs a pooled fit (relmc.fit_hierarchical: posterior alpha and "
            "beta with attrs rate_scale, constant_data exposure and ref_units)",
        )
    observed = obs["count"]
    count = observed.values.astype(float)
    t = (const["exposure"] / const["ref_units"]).values * float(post.attrs["rate_scale"])
    (alpha, beta), log_prior, log_lik = population_grid(count, t)
    total = log_prior + log_lik.sum(axis=1)
    upper, lower = np.empty(t.size), np.empty(t.size)
    for c in range(t.size):
        log_w = total - log_lik[:, c]  # the posterior without category c
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        dist = stats.nbinom(alpha, beta / (beta + t[c]))
        upper[c] = float(np.sum(w * dist.sf(count[c] - 1)))
        lower[c] = float(np.sum(w * dist.cdf(count[c])))
    p = np.minimum(1.0, 2.0 * np.minimum(upper, lower))
    what = "under the population of the other categories (leave one out, exact on a grid)"
    return xr.Dataset(
        {
            "count_observed": ("category", observed.values, {"units": "1"}),
            "count_p": (
                "category",
                p,
                {"units": "1", "long_name": f"two-sided p of the observed count {what}"},
            ),
            "count_p_upper": (
                "category",
                upper,
                {"units": "1", "long_name": f"P(count >= observed) {what}"},
            ),
            "count_p_lower": (
                "category",
                lower,
                {"units": "1", "long_name": f"P(count <= observed) {what}"},
            ),
        },
        coords={"category": observed["category"].values},
        attrs={"title": "relmc population check (leave one category out)"},
    )
