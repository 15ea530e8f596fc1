"""Independent Gamma-Poisson model per category, in closed form."""

from __future__ import annotations

import numbers

import numpy as np
import xarray as xr
from scipy import special

from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.datasets import MAX_COUNT
from relmc.models._common import (
    az,
    check_data,
    check_draws,
    data_groups,
    draw_values,
    make_idata,
    predictive_counts,
    sample_coords,
)

__all__ = ["JEFFREYS", "fit_conjugate", "total_jeffreys"]

#: Gamma(1/2, 0) ``(shape, rate)``: Jeffreys' prior for one Poisson rate. Given to each of K
#: categories it adds K/2 events to the total (see ``total_jeffreys()``, the default).
JEFFREYS: tuple[float, float] = (0.5, 0.0)


def total_jeffreys(n_categories: int) -> tuple[float, float]:
    """Gamma(1/(2K), 0) per category: the prior whose implied total rate is Jeffreys'.

    Independent Gamma(a, 0) rates over K categories observed over the same window have a
    total (rate x units, summed) distributed Gamma(K a, 0), so ``a = 1/(2K)`` gives the total
    Jeffreys' Gamma(1/2, 0), and its posterior Gamma(X + 1/2, D) for X events in D hours.
    """
    return (0.5 / n_categories, 0.0)


#: the largest prior shape: a prior worth at most 2**53 events, the largest count a dataset
#: holds (``relmc.datasets.MAX_COUNT``), so ``shape + count`` and each draw's expected count
#: (at most twice that) stay exact-ish floats that NumPy's Poisson draws take
MAX_PRIOR_SHAPE = float(MAX_COUNT)
#: the largest prior rate (pseudo-exposure, unit-hours): a thousand times the most any data
#: reach (1e8 GPUs x 1,000 links per GPU x a 1e6 h window = 1e17 link-hours)
MAX_PRIOR_RATE = 1e20


def _check_prior(prior: object) -> tuple[float, float]:
    msg = (
        "prior must be a (shape, rate) pair of finite numbers with shape in (0, 2**53] (a "
        "prior worth at most that many events) and rate in [0, 1e20] (exposure units, "
        f"unit-hours); got {prior!r}"
    )
    if not isinstance(prior, tuple | list) or len(prior) != 2:
        raise ValueError(msg)
    shape, rate = prior
    for v in (shape, rate):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ValueError(msg)
    # comparisons, not float(): an int beyond any float fails them without an OverflowError
    if not (0 < shape <= MAX_PRIOR_SHAPE and 0 <= rate <= MAX_PRIOR_RATE):  # NaN fails
        raise ValueError(msg)
    return float(shape), float(rate)


def fit_conjugate(
    data: xr.Dataset,
    *,
    prior: tuple[float, float] | None = None,
    n_draws: int = 1000,
    n_chains: int = 4,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> az.InferenceData:
    r"""Fit an independent Gamma-Poisson model to each category, exactly.

    For each category :math:`c` with count :math:`x_c` over exposure :math:`E_c` unit-hours,
    :math:`x_c \sim \mathrm{Poisson}(\lambda_c E_c)` and :math:`\lambda_c \sim
    \mathrm{Gamma}(a, b)` (shape, rate) give the posterior
    :math:`\lambda_c \mid x_c \sim \mathrm{Gamma}(a + x_c,\ b + E_c)`, drawn exactly.

    Parameters
    ----------
    data : xarray.Dataset
        Observations along ``category``: ``count`` (events), ``exposure`` (unit-hours),
        ``unit`` and optionally ``group`` (see :func:`relmc.load_dataset`).
    prior : (float, float) or None, optional
        Gamma prior ``(shape, rate)`` on every category's rate; rate in exposure units
        (unit-hours). ``shape`` in (0, 2**53] (``MAX_PRIOR_SHAPE``: a prior worth at most as
        many events as the largest count a dataset holds) and ``rate`` in [0, 1e20]
        (``MAX_PRIOR_RATE``: a thousand times the largest exposure the data can reach), so that
        every draw, its expected count and its log-likelihood stay finite. The default ``None``
        is ``total_jeffreys()``: Gamma(1/(2K), 0) for K categories, so that the *total* rate,
        the quantity a job's MTTF depends on, has Jeffreys' prior Gamma(1/2, 0) and its
        posterior adds half an event, not K/2, to the observed total: for Llama 3 (K = 18, 419
        events in 1,296 h) the job MTTF's posterior median is 3.09 h, the observed 1,296 / 419 =
        3.093 h, where Jeffreys' prior per category (``JEFFREYS``, Gamma(1/2, 0), the default
        before) gives 3.03 h (nine extra events, +2.1%). The price: a category with zero events
        gets the posterior mean ``1 / (2K E)`` instead of ``1 / (2E)``, i.e. its own rate is
        shrunk toward 0; when such categories matter, pass ``prior=JEFFREYS`` or use
        :func:`relmc.fit_hierarchical`. Both are improper but give a proper posterior
        (``exposure > 0``) and are invariant to the time unit. A proper prior (``rate > 0``) is
        needed for simulation-based calibration.
    n_draws : int, optional
        Posterior draws per chain, >= 1 (default 1000; 4 x 1000 = 4000 draws in all).
    n_chains : int, optional
        Chains, >= 1 (default 4). The draws are exact and independent; several chains only let
        ``az.summary`` / ``az.rhat`` report their diagnostics like for the MCMC fits. Chain
        ``k`` draws from its own child seed, so the draws of a chain do not depend on
        ``n_chains``.
    seed : int, SeedSequence, Generator or None, optional
        Root of randomness; the same int gives the same result. A Generator is advanced.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rate`` (chain, draw, category), events per unit-hour, with
        coordinates ``unit`` and ``group`` along ``category`` and attrs ``rate_units``,
        ``model="conjugate"``, ``prior`` (text), ``prior_shape``, ``prior_rate``, ``dataset``,
        ``seed_entropy``, ``seed_spawn_key``; ``rate_per_million`` (``rate`` x 1e6, for
        reading ``az.summary``). ``posterior_predictive``: ``count`` (chain, draw, category)
        at the observed exposure. ``log_likelihood``: ``count``, the Poisson log pmf of each
        observed count under each draw. ``observed_data``: ``count``; ``constant_data``:
        ``exposure``.

    Notes
    -----
    ``az.loo`` runs on this fit but flags it (Pareto k > 0.7, an arviz ``UserWarning``):
    the categories share nothing, so leaving one out leaves its rate at its improper prior,
    and no importance sampling from the posterior can reach that. This is the model's nature,
    not a numerical problem; compare pooled models (:func:`relmc.fit_hierarchical`) with LOO.

    Raises
    ------
    ValueError
        For invalid data, prior, n_draws or seed, before any drawing.
    """
    obs = check_data(data)
    shape, rate = _check_prior(total_jeffreys(obs.n) if prior is None else prior)
    n_draws, n_chains = check_draws(n_draws, n_chains, draw_values(obs.n))
    root = resolve_seed(seed)

    post_shape = shape + obs.count
    post_rate = rate + obs.exposure
    # one stream per chain (child 0, k) and one for the predictive (child 1)
    lam = np.stack(
        [
            np.random.default_rng(child_seed(root, 0, k)).standard_gamma(
                post_shape, size=(n_draws, obs.n)
            )
            / post_rate
            for k in range(n_chains)
        ]
    )
    pred = predictive_counts(lam, obs.exposure, np.random.default_rng(child_seed(root, 1)))
    log_lik = special.xlogy(obs.count, lam * obs.exposure) - lam * obs.exposure
    log_lik -= special.gammaln(obs.count + 1.0)

    coords = sample_coords(obs, n_chains, n_draws)
    dims = ("chain", "draw", "category")
    posterior = xr.Dataset({"rate": (dims, lam)}, coords=coords)
    predictive = xr.Dataset({"count": (dims, pred)}, coords=coords)
    default = " (default: total Jeffreys, 1/(2K) for K categories)" if prior is None else ""
    attrs = {
        "model": "conjugate",
        "prior": f"rate ~ Gamma(shape={shape:g}, rate={rate:g}) per category{default}",
        "prior_shape": shape,
        "prior_rate": rate,
        **obs.record(),
        **seed_attrs(root),
    }
    return make_idata(
        posterior,
        predictive,
        **data_groups(obs),
        attrs=attrs,
        log_likelihood=xr.Dataset({"count": (dims, log_lik)}, coords=coords),
    )
