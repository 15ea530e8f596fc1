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
from relmc.summary import check_quantiles

__all__ = [
    "CHECK_QUANTILES",
    "GRID_DEPTH",
    "GRID_POINTS",
    "population_check",
    "population_grid",
    "predictive_check",
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
    it is (a category at 400 among twelve at 10 read p = 0.83 in-sample under the hierarchical
    model, 7e-6 under :func:`population_check`).
    To ask whether a category is out of line with the others, use :func:`population_check`.

    Parameters
    ----------
    idata : arviz.InferenceData
        A fit from :mod:`relmc.models` (or any with matching ``observed_data`` and
        ``posterior_predictive`` variables, replicates over ``chain`` and ``draw``).
    quantiles : sequence of float
        Levels of the replicated counts' quantiles, strictly increasing in [0, 1].

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
    q = list(check_quantiles(quantiles))
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

#: Log-density drop below a posterior's peak that the fine grid still covers (e^-40).
GRID_DEPTH = 40.0


def _grid(box, points: int) -> tuple[np.ndarray, np.ndarray]:
    """``log alpha`` and ``log mean`` of a ``points`` x ``points`` grid over ``box``.

    The grid is uniform in both logs, so its cells have one area: normalising over the cells
    needs no area (the weights are relative).
    """
    (a0, a1), (m0, m1) = box
    log_a, log_m = np.linspace(a0, a1, points), np.linspace(m0, m1, points)
    la, lm = (g.ravel() for g in np.meshgrid(log_a, log_m, indexing="ij"))
    return la, lm


def _log_prior(la: np.ndarray, lm: np.ndarray, beta_rate: np.ndarray) -> np.ndarray:
    """Hyperpriors' log density in (log alpha, log mean) per cell, one row per ``beta_rate``.

    ``alpha ~ Exp(ALPHA_PRIOR_RATE)``, ``b ~ Gamma(BETA_PRIOR["alpha"], BETA_PRIOR["beta"] x
    beta_rate)`` (``b = alpha / mean``, the population's rate on the grid's scale), with the
    Jacobian ``alpha b`` of the logs.
    """
    from scipy import stats

    from relmc.models.hierarchical import ALPHA_PRIOR_RATE, BETA_PRIOR

    alpha, b = np.exp(la), np.exp(la - lm)
    rate = BETA_PRIOR["beta"] * np.asarray(beta_rate, dtype=float)[:, None]
    return (
        stats.expon.logpdf(alpha, scale=1.0 / ALPHA_PRIOR_RATE)
        + stats.gamma.logpdf(b, BETA_PRIOR["alpha"], scale=1.0 / rate)
        + la
        + (la - lm)
    )


def population_grid(
    count: np.ndarray,
    t: np.ndarray,
    points: int = GRID_POINTS,
    beta_rate: float | np.ndarray = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lay the pooled model's population on a grid, with each count's likelihood.

    The hierarchical model (:mod:`relmc.models.hierarchical`) with its pooled rates integrated
    out: each count is ``NegBin(alpha, b / (b + t_c))`` (``marginal_logpmf`` of
    :mod:`relmc.models.hierarchical`) given the population's shape ``alpha`` and rate ``b``, under
    ``alpha ~ Exp(1)`` and ``b ~ Gamma(0.1, beta_rate)`` (``beta_rate`` 1 is the hierarchical
    model's ``beta`` prior; the ``"scaled"`` prior on rates in units of ``t`` is ``beta_rate
    = rate_scale``). Several ``beta_rate`` give one prior row each. The grid is uniform in
    ``log alpha`` and ``log(alpha / b)`` (the population's mean) and placed in two steps: a
    coarse grid over ``log alpha`` in [-20, 20] and the mean over the counts' rates ``(x +
    1/2) / t`` widened by e^60 each way finds where every posterior it will serve is within
    e^-40 of its peak (:data:`GRID_DEPTH`); the fine grid of ``points`` a side covers that
    box. The posteriors served: with one ``beta_rate``, all counts and all counts but one;
    with one ``beta_rate`` per category (:func:`population_check`'s held-out scales),
    category ``c``'s prior with all counts but ``c``.

    Returns
    -------
    alpha_b : ndarray, shape (2, points**2)
        The grid's ``alpha`` and ``b``.
    log_prior : ndarray, shape (n_beta_rates, points**2)
        The hyperpriors' log density per cell (in the logs' coordinates), one row per
        ``beta_rate``.
    log_lik : ndarray, shape (points**2, n_categories)
        Each count's negative-binomial log-likelihood at each cell.
    """
    from relmc.models.hierarchical import marginal_logpmf

    x = np.asarray(count, dtype=float)
    t = np.asarray(t, dtype=float)
    rates = (x + 0.5) / t
    rate_rows = np.atleast_1d(np.asarray(beta_rate, dtype=float))
    wide = ((-20.0, 20.0), (np.log(rates.min()) - 60.0, np.log(rates.max()) + 60.0))
    la, lm = _grid(wide, 241)
    lik = marginal_logpmf(x, t, np.exp(la), np.exp(la - lm))
    total = lik.sum(axis=1)
    keep = np.zeros(la.size, dtype=bool)
    priors = _log_prior(la, lm, rate_rows)
    if rate_rows.size == x.size > 1:  # a prior per category: each with all counts but its own
        posts = (priors[c] + total - lik[:, c] for c in range(x.size))
    else:
        posts = (p + total - drop for p in priors for drop in (0.0, *lik.T))
    for post in posts:  # one posterior at a time: memory of the order of the grid
        keep |= post > post.max() - GRID_DEPTH
    step_a, step_m = 40.0 / 240, (wide[1][1] - wide[1][0]) / 240
    box = (
        (la[keep].min() - step_a, la[keep].max() + step_a),
        (lm[keep].min() - step_m, lm[keep].max() + step_m),
    )
    la, lm = _grid(box, points)
    alpha, b = np.exp(la), np.exp(la - lm)
    return np.stack([alpha, b]), _log_prior(la, lm, rate_rows), marginal_logpmf(x, t, alpha, b)


def population_check(idata: Any) -> xr.Dataset:
    """Check each count of a pooled fit against the population of the other categories.

    For :func:`relmc.fit_hierarchical`: given the population (shape ``alpha``, rate ``b`` on
    the scale of ``t_c = exposure / ref_units``) a category's count is negative binomial,
    ``NegBin(alpha, b / (b + t_c))``. Its p-value is that count's tail probability under the
    population fitted *without* it: the posterior given the other counts, exactly on a grid
    (``population_grid``; the model's posterior is 2-D once the pooled rates are integrated
    out). With the ``"scaled"`` prior the scale is refitted without the category too (it is
    the other counts' pooled rate), so a count does not shape its own prior.

    A category far out of line with the others (a lemon batch, a miscounted cause) reads near
    0, where the in-sample :func:`predictive_check` reads near 1. What counts as out of line
    is the model's: its ``alpha ~ Exp(1)`` prior keeps a spread between categories of at least
    ~45 % (CV) plausible, so the check cannot single out a category among near-identical ones
    (four at 1e5 events and a fifth at 1.5e5 read p = 0.67), and with few categories the
    population is loosely known: a count must be far out. The verdict also depends on the
    prior (Llama 3's Faulty GPU: p = 0.01 under ``"scaled"``, 0.41 under ``"bugs"``).

    Parameters
    ----------
    idata : arviz.InferenceData
        A :func:`relmc.fit_hierarchical` fit (``observed_data["count"]``, ``constant_data``
        ``exposure`` and ``ref_units``, ``posterior.attrs`` ``prior`` and ``rate_scale``, with
        ``alpha`` and ``beta`` in its posterior).

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
        or not {"rate_scale", "prior"} <= set(post.attrs)
        or const is None
        or not {"exposure", "ref_units"} <= set(const.data_vars)
        or obs is None
        or "count" not in obs
    ):
        raise FieldError(
            "idata",
            "population_check needs a pooled fit (relmc.fit_hierarchical: posterior alpha and "
            "beta with attrs prior and rate_scale, constant_data exposure and ref_units)",
        )
    observed = obs["count"]
    count = observed.values.astype(float)
    t = (const["exposure"] / const["ref_units"]).values.astype(float)
    n = count.size
    if str(post.attrs["prior"]).startswith("scaled"):
        # the other counts' pooled rate (relmc.models.hierarchical.rate_scale without c)
        others = ~np.eye(n, dtype=bool)
        beta_rate = np.array(
            [max(count[o].sum(), 0.5) / t[o].sum() if n > 1 else 1.0 for o in others]
        )
    else:
        beta_rate = np.ones(n)
    (alpha, b), log_prior, log_lik = population_grid(count, t, beta_rate=beta_rate)
    total = log_lik.sum(axis=1)
    upper, lower = np.empty(n), np.empty(n)
    for c in range(n):
        log_w = log_prior[c] + total - log_lik[:, c]  # the posterior without category c
        cells = log_w > log_w.max() - GRID_DEPTH  # the rest weighs under e^-40 each
        w = np.exp(log_w[cells] - log_w.max())
        w /= w.sum()
        a_c, b_c = alpha[cells], b[cells]
        dist = stats.nbinom(a_c, b_c / (b_c + t[c]))
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
