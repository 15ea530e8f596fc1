r"""Gamma-Poisson model with partial pooling across categories (PyMC, NUTS).

Pooling scale
-------------
Rates of different units (per GPU-hour, per node-hour, per job-hour) cannot share one Gamma
distribution: their ratio depends on the units, not on reliability. So the model pools a
unit-free quantity, the category's rate *in the observed fleet*,

.. math::

    \theta_c = \lambda_c \, r_c, \qquad r_c = E_c / D

where :math:`\lambda_c` is the rate per unit-hour, :math:`E_c` the exposure (unit-hours) and
:math:`D` the observation window (``attrs["duration_hours"]``), so :math:`r_c` is the number of
units of category :math:`c` in the fleet and :math:`\theta_c` its events per fleet-hour
(``pool="fleet"``). When every category has the same unit (e.g. the BUGS pumps, one pump per
category, or per-GPU categories only), the per-unit rates are already comparable and
:math:`r_c = 1` (``pool="unit"``); for the pumps this is exactly the BUGS model. ``pool="auto"``
picks ``"unit"`` when all categories share one unit and ``"fleet"`` otherwise.

Priors
------
``"bugs"``
    :math:`\theta_c \sim \mathrm{Gamma}(\alpha, \beta)`, :math:`\alpha \sim \mathrm{Exp}(1)`,
    :math:`\beta \sim \mathrm{Gamma}(0.1, 1)` (shape, rate): the BUGS "Pumps" model
    (``SOURCES.md`` §5 in the relmc repository). Its :math:`\beta` prior (mean 0.1, density
    falling like :math:`e^{-\beta}`) expects pooled rates of order 1-10 per time unit, so it is
    *not* scale-free: fine for the pumps (per 1000 h), informative for per-fleet-hour rates of order
    0.001-0.1 such as Llama 3's.
``"scaled"`` (default)
    The same hyperpriors on the dimensionless :math:`\phi_c = \theta_c / s`, where
    :math:`s = \sum_c x_c / \sum_c (E_c / r_c)` is the maximum-likelihood common rate on the
    pooling scale. Fixing only the scale from the data (as rstanarm's autoscaling does) makes
    the fit invariant to the time unit; the spread of rates across categories is still learned.

Sampler
-------
Sampling :math:`\log \theta_c` jointly with :math:`(\alpha, \beta)` (the centred model) is a
funnel when :math:`\alpha` is small: a zero-count category's :math:`\log \theta_c` then
spreads over a range of order :math:`1/\alpha`, NUTS diverges and misplaces its lower tail
(counts 0, 0, 0, 0, 3, 200 over exposures 1, 1, 10, 10, 100, 100 with ``"bugs"``: 17 of 8,000
transitions diverged at seed 1). So the pooled variable (:math:`\theta_c`, or :math:`\phi_c`
for ``"scaled"``; Poisson mean pooled variable :math:`\times\, t_c`) is integrated out:
given :math:`(\alpha, \beta)` the counts are independent negative binomials,
:math:`x_c \sim \mathrm{NegBin}(\alpha,\ \beta / (\beta + t_c))`. NUTS samples only
:math:`(\alpha, \beta)` from this 2-D posterior, and each draw of the pooled
variable is then drawn exactly from its conjugate conditional
:math:`\mathrm{Gamma}(\alpha + x_c, \beta + t_c)` with its own child of the fit's seed.
The joint draws are exact up to the MCMC error of :math:`(\alpha, \beta)` alone.

The 2-D posterior is sampled in :math:`(\log\alpha,\ \log(\alpha / \beta))`, the log
shape and the log prior mean of the pooled rates (the same priors on :math:`\alpha` and
:math:`\beta`, with the Jacobian; the map from :math:`(\log\alpha, \log\beta)` is linear
with determinant 1), at ``target_accept`` 0.95 by default: where zero-count categories let
:math:`\beta` wander far into its prior's long left tail, the ridge along which the prior mean
is pinned lies along an axis. On the reproducer above (4 x 2000 draws, seeds 0-4) the
:math:`(\log\alpha, \log\beta)` sampler at 0.9 had 1, 309, 3, 5 and 0 divergent
transitions, at 0.95 8, 0, 0, 0, 0; this one at 0.95 had none (benchmarks/VALIDATION.md).

Pointwise log-likelihood
------------------------
``log_likelihood["count"]`` is the negative-binomial log pmf of each count given
:math:`(\alpha, \beta)`: with the category's own rate integrated out, PSIS-LOO
(``az.loo``) estimates the same leave-one-category-out predictive density as with the
Poisson pmf given :math:`\theta_c`, but with stable importance weights (leaving out a
category moves only :math:`(\alpha, \beta)`).
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from scipy import special

from relmc import _seed
from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.models._common import (
    MAX_POSTERIOR_DRAWS,
    SAMPLE_STATS_VALUES,
    Observations,
    az,
    check_convergence,
    check_data,
    check_divergences,
    check_draws,
    check_int,
    data_groups,
    draw_values,
    import_pymc,
    make_idata,
    predictive_counts,
    sample_coords,
)

__all__ = ["PRIORS", "POOLS", "fit_hierarchical"]

PRIORS: tuple[str, ...] = ("scaled", "bugs")
POOLS: tuple[str, ...] = ("auto", "fleet", "unit")
#: The pooled Gamma's hyperpriors (both pooling scales): alpha ~ Exponential(rate) and
#: beta ~ Gamma(shape, rate), as PyMC's keywords; one statement for both parametrisations
ALPHA_PRIOR_RATE = 1.0
BETA_PRIOR = {"alpha": 0.1, "beta": 1.0}
#: NUTS target acceptance of the 2-D (alpha, beta) sampler (see "Sampler" above)
TARGET_ACCEPT = 0.95
#: Spawn-key entry of the pooled rates' stream below the fit's seed: a key no simulation's
#: blocks use, so a fit and a simulation may share one seed (the command line's do).
POOL_KEY = _seed.POOL_KEY

PRIOR_TEXT = {
    "bugs": "theta_c ~ Gamma(alpha, beta); alpha ~ Exponential(1); beta ~ Gamma(0.1, 1) "
    "(shape, rate); theta_c = rate_c * ref_units_c",
    "scaled": "theta_c / scale ~ Gamma(alpha, beta); alpha ~ Exponential(1); "
    "beta ~ Gamma(0.1, 1) (shape, rate); theta_c = rate_c * ref_units_c; "
    "scale = sum(count) / sum(exposure / ref_units)",
}


def check_prior(prior: object) -> str:
    """Return ``prior`` if it names a pooled prior, else raise ``ValueError``."""
    if not isinstance(prior, str) or prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(map(repr, PRIORS))}; got {prior!r}")
    return prior


def ref_units(obs: Observations, pool: object, field: str = "data") -> tuple[str, np.ndarray]:
    """Resolve ``pool`` and return it with the reference units ``r_c`` of each category."""
    if not isinstance(pool, str) or pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(map(repr, POOLS))}; got {pool!r}")
    if pool == "auto":
        pool = "unit" if len(set(obs.unit.tolist())) == 1 else "fleet"
    if pool == "unit":
        return pool, np.ones(obs.n)
    duration = obs.attrs.get("duration_hours")
    if (
        isinstance(duration, bool)
        or not isinstance(duration, int | float | np.number)
        or not np.isfinite(duration)
        or duration <= 0
    ):
        raise ValueError(
            f"{field}.attrs['duration_hours'] must be a number > 0 for pool='fleet' "
            f"(categories with different units: {sorted(set(obs.unit.tolist()))}); "
            f"got {duration!r}"
        )
    return pool, obs.exposure / float(duration)


def pooled_hyperpriors():
    """Add ``alpha`` and ``beta`` (the pooled Gamma's shape and rate) to the current model."""
    pm = import_pymc()
    alpha = pm.Exponential("alpha", ALPHA_PRIOR_RATE)
    beta = pm.Gamma("beta", **BETA_PRIOR)
    return alpha, beta


def rate_scale(obs: Observations, ref: np.ndarray) -> float:
    """Return the ``"scaled"`` prior's scale ``sum(count) / sum(exposure / ref)`` (count >= 1/2).

    The pooled rate per reference unit that the data give, so the pooled prior is on rates
    of order 1 whatever the rates' units.
    """
    return float(max(obs.count.sum(), 0.5) / np.sum(obs.exposure / ref))


def pooled_exposure(obs: Observations, ref: np.ndarray, prior: str, scale: float) -> np.ndarray:
    r"""Exposure ``t_c`` of the pooled variable: ``count_c ~ Poisson(pooled_c * t_c)``.

    The pooled variable is :math:`\theta_c` (``"bugs"``) or :math:`\phi_c = \theta_c / s`
    (``"scaled"``), and the Poisson mean is :math:`\lambda_c E_c = \theta_c E_c / r_c`.
    """
    return obs.exposure / ref * (scale if prior == "scaled" else 1.0)


def pooled_hyperpriors_by_mean():
    """Add ``alpha`` and ``beta`` as :func:`pooled_hyperpriors`, sampled by log shape and mean.

    The free variables are ``log_alpha`` and ``log_mean`` (``log(alpha / beta)``); the
    potential ``hyperprior`` is the log density of :func:`pooled_hyperpriors`' priors at
    ``(alpha, beta)`` plus ``log alpha + log beta`` (their log-scale Jacobian); the linear map
    to ``(log alpha, log beta)`` has determinant 1, so the posterior is the same.
    """
    pm = import_pymc()
    import pytensor.tensor as pt

    log_alpha = pm.Flat("log_alpha")
    log_mean = pm.Flat("log_mean")
    log_beta = log_alpha - log_mean
    alpha = pm.Deterministic("alpha", pt.exp(log_alpha))
    beta = pm.Deterministic("beta", pt.exp(log_beta))
    prior = pm.logp(pm.Exponential.dist(ALPHA_PRIOR_RATE), alpha) + pm.logp(
        pm.Gamma.dist(**BETA_PRIOR), beta
    )
    pm.Potential("hyperprior", prior + log_alpha + log_beta)
    return alpha, beta


def marginal_model(count: np.ndarray, t: np.ndarray):
    """PyMC model of (alpha, beta) given the counts, the pooled rates integrated out.

    ``count`` and ``t`` are ``pm.Data`` (``"count_data"``, ``"t_data"``), so one compiled model
    serves many data sets via ``pm.set_data`` (simulation-based calibration does this).
    Sampled by log shape and log prior mean (:func:`pooled_hyperpriors_by_mean`).
    """
    pm = import_pymc()
    with pm.Model() as model:
        count_data = pm.Data("count_data", np.asarray(count, dtype=np.int64))
        t_data = pm.Data("t_data", np.asarray(t, dtype=np.float64))
        alpha, beta = pooled_hyperpriors_by_mean()
        pm.Potential("count_marginal", marginal_logp(count_data, t_data, alpha, beta).sum())
    return model


def marginal_logp(count, t, alpha, beta):
    r"""Log negative-binomial pmf of ``count`` given ``alpha``, ``beta`` (PyTensor, per category).

    With :math:`\phi_c \sim \mathrm{Gamma}(\alpha, \beta)` and
    :math:`x_c \sim \mathrm{Poisson}(\phi_c t_c)`, integrating :math:`\phi_c` out gives
    :math:`x_c \sim \mathrm{NegBin}(r = \alpha,\ p = \beta / (\beta + t_c))`.
    """
    import pytensor.tensor as pt

    return (
        pt.gammaln(count + alpha)
        - pt.gammaln(alpha)
        - pt.gammaln(count + 1.0)
        + alpha * pt.log(beta)
        - (alpha + count) * pt.log(beta + t)
        + count * pt.log(t)
    )


def marginal_logpmf(
    count: np.ndarray, t: np.ndarray, alpha: np.ndarray, beta: np.ndarray
) -> np.ndarray:
    """NumPy twin of :func:`marginal_logp` for draws ``alpha``, ``beta`` of shape (...)."""
    a, b = alpha[..., None], beta[..., None]
    return (
        special.gammaln(count + a)
        - special.gammaln(a)
        - special.gammaln(count + 1.0)
        + a * np.log(b)
        - (a + count) * np.log(b + t)
        + special.xlogy(count, t)
    )


def poisson_logpmf(count: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Log Poisson pmf of ``count`` at ``mean`` (broadcast), exact at ``mean = 0``."""
    return special.xlogy(count, mean) - mean - special.gammaln(count + 1.0)


def draw_pooled_log(
    alpha: np.ndarray,
    beta: np.ndarray,
    count: np.ndarray,
    t: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    r"""Exact draws of the log pooled rates given ``alpha``, ``beta`` and the counts.

    :math:`\phi_c \mid \alpha, \beta, x \sim \mathrm{Gamma}(\alpha + x_c, \beta + t_c)`,
    one per (alpha, beta) draw, as :math:`\log G_{a+1} + \log(U) / a`
    (:math:`\mathrm{Gamma}(a) = \mathrm{Gamma}(a + 1) \, U^{1/a}`, exact for every shape),
    which stays finite where a direct Gamma draw with a shape of 0.01 would round to 0.
    """
    a = alpha[..., None] + count
    log_g = np.log(rng.standard_gamma(a + 1.0)) + np.log(rng.uniform(size=a.shape)) / a
    return log_g - np.log(beta[..., None] + t)


def sample_kwargs(
    n_draws: int,
    n_tune: int,
    n_chains: int,
    seed: int,
    progressbar: bool,
    cores,
    target_accept: float,
) -> dict:
    """Keyword arguments of ``pm.sample`` shared by the PyMC fits (PyMC's names)."""
    kw = {
        "draws": n_draws,
        "tune": n_tune,
        "chains": n_chains,
        "random_seed": seed,
        "progressbar": progressbar,
        "compute_convergence_checks": False,
        "target_accept": target_accept,
        "return_inferencedata": True,
    }
    if cores is not None:
        kw["cores"] = cores
    return kw


#: float64 values a draw keeps besides the 4 per category (the memory check's estimate):
#: alpha, beta and NUTS's sample statistics
DRAW_EXTRA_VALUES = 2 + SAMPLE_STATS_VALUES


def check_sampling(
    n_draws: object,
    n_tune: object,
    n_chains: object,
    target_accept: object,
    cores: object,
    n_values: int = 0,
) -> tuple[int, int, int, float]:
    """Validate the NUTS options shared by the PyMC fits (``n_values``: :func:`check_draws`)."""
    n_draws, n_chains = check_draws(n_draws, n_chains, n_values)
    n_tune = check_int(n_tune, "n_tune", 0, MAX_POSTERIOR_DRAWS)
    if cores is not None:
        check_int(cores, "cores", 1)
    if (
        isinstance(target_accept, bool)
        or not isinstance(target_accept, float | int)
        or not 0 < target_accept < 1
    ):
        raise ValueError(f"target_accept must be a number in (0, 1), got {target_accept!r}")
    return n_draws, n_tune, n_chains, float(target_accept)


def fit_hierarchical(
    data: xr.Dataset,
    *,
    prior: str = "scaled",
    pool: str = "auto",
    n_draws: int = 1000,
    n_tune: int = 1000,
    n_chains: int = 4,
    cores: int | None = None,
    target_accept: float = TARGET_ACCEPT,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    progressbar: bool = False,
) -> az.InferenceData:
    r"""Fit a Gamma-Poisson model with partial pooling across categories.

    :math:`x_c \sim \mathrm{Poisson}(\lambda_c E_c)` with the pooled rates
    :math:`\theta_c = \lambda_c r_c \sim \mathrm{Gamma}(\alpha, \beta)`; see the module
    docstring for the pooling scale :math:`r_c` and the priors. Sampled with PyMC's NUTS.

    Parameters
    ----------
    data : xarray.Dataset
        Observations along ``category`` (``count``, ``exposure``, ``unit``, ``group``);
        ``attrs["duration_hours"]`` (> 0) is needed when categories have different units.
    prior : {"scaled", "bugs"}, optional
        Hyperprior; ``"bugs"`` is the BUGS pumps model on :math:`\theta`, ``"scaled"`` the same
        on :math:`\theta / s` (time-unit invariant). Default ``"scaled"``.
    pool : {"auto", "fleet", "unit"}, optional
        Pooling scale: rates in the observed fleet (``r_c = E_c / D``) or per unit
        (``r_c = 1``); ``"auto"`` uses ``"unit"`` iff all categories share one unit.
    n_draws, n_tune : int, optional
        Posterior draws (>= 1) and tuning steps (>= 0) per chain.
    n_chains : int, optional
        Chains, >= 1 (>= 2 for a meaningful r_hat).
    cores : int, optional
        Processes for the chains (PyMC's default when None); results do not depend on it.
    target_accept : float, optional
        NUTS target acceptance in (0, 1); 0.95 by default (see "Sampler" in the module docstring).
    seed : int, SeedSequence, Generator or None, optional
        Root seed; child 0 seeds NUTS, child 1 the posterior predictive, child ``POOL_KEY``
        (2**32 - 7) the pooled rates given (alpha, beta): a key no simulation's blocks use
        (a run with the same seed draws block ``b`` from child ``b``; child 2, as before
        this key, was block 2's stream).
    progressbar : bool, optional
        Show PyMC's progress bar.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rate`` (chain, draw, category) per unit-hour with coordinates
        ``unit`` and ``group``; ``alpha`` and ``beta`` (chain, draw), the Gamma shape and rate
        of the pooled :math:`\theta` (of :math:`\theta/s` for ``"scaled"``). Attrs
        ``rate_units``, ``model="hierarchical"``, ``prior``, ``pool``, ``rate_scale`` (s),
        ``dataset``, ``seed_entropy``, ``seed_spawn_key``. ``posterior_predictive``:
        ``count`` at the observed exposure. ``observed_data``: ``count``; ``constant_data``:
        ``exposure`` and ``ref_units`` (:math:`r_c`); ``sample_stats`` from NUTS, which
        samples only ``alpha`` and ``beta`` (see the module docstring, "Sampler").
        ``log_likelihood``: ``count`` (chain, draw, category), the negative-binomial log pmf
        of each count given (alpha, beta).

    Raises
    ------
    ValueError
        For invalid data or options, before any sampling.

    Warns
    -----
    ConvergenceWarning
        If any r_hat > 1.01, any bulk ESS < 100 per chain, or NUTS diverged.
    """
    obs = check_data(data)
    prior = check_prior(prior)
    pool, ref = ref_units(obs, pool)
    n_draws, n_tune, n_chains, target_accept = check_sampling(
        n_draws, n_tune, n_chains, target_accept, cores,
        draw_values(obs.n, DRAW_EXTRA_VALUES),
    )  # fmt: skip

    pm = import_pymc()
    root = resolve_seed(seed)
    nuts_ss, pred_ss, pool_ss = child_seed(root, 0), child_seed(root, 1), child_seed(root, POOL_KEY)
    scale = rate_scale(obs, ref)
    t = pooled_exposure(obs, ref, prior, scale)
    # NUTS samples only (alpha, beta), with the pooled rates integrated out (negative-binomial
    # marginal): a smooth 2-D posterior with no funnel, whatever the counts.
    with marginal_model(obs.count, t):
        trace = pm.sample(
            **sample_kwargs(
                n_draws,
                n_tune,
                n_chains,
                int(nuts_ss.generate_state(1)[0]),
                progressbar,
                cores,
                target_accept,
            )
        )
    post = trace.posterior
    alpha_d, beta_d = post["alpha"].values, post["beta"].values
    # then the pooled rates given (alpha, beta), exactly: Gamma(alpha + x_c, beta + t_c)
    log_pooled = draw_pooled_log(alpha_d, beta_d, obs.count, t, np.random.default_rng(pool_ss))
    lam = np.exp(log_pooled) * (t / obs.exposure)  # pooled_c * t_c / E_c per unit-hour
    coords = sample_coords(obs, n_chains, n_draws)
    dims = ("chain", "draw", "category")
    posterior = xr.Dataset(
        {
            "rate": (dims, lam),
            "alpha": (("chain", "draw"), alpha_d),
            "beta": (("chain", "draw"), beta_d),
        },
        coords=coords,
    )
    log_lik = xr.Dataset(
        {"count": (dims, marginal_logpmf(obs.count, t, alpha_d, beta_d))}, coords=coords
    )
    where = f"fit_hierarchical({obs.name!r})"
    check_divergences(trace.sample_stats, where)
    check_convergence(posterior, ["rate", "alpha", "beta"], where)

    pred = predictive_counts(lam, obs.exposure, np.random.default_rng(pred_ss))
    predictive = xr.Dataset({"count": (dims, pred)}, coords=coords)
    groups = data_groups(obs)
    groups["constant_data"]["ref_units"] = ("category", ref)
    attrs = {
        "model": "hierarchical",
        "prior": f"{prior}: {PRIOR_TEXT[prior]}",
        "pool": pool,
        "rate_scale": scale if prior == "scaled" else 1.0,
        "sampler": "NUTS on (alpha, beta) with the pooled rates integrated out (negative "
        "binomial), then the pooled rates exactly from Gamma(alpha + count, beta + t)",
        **obs.record(),
        **seed_attrs(root),
    }
    return make_idata(
        posterior,
        predictive,
        **groups,
        attrs=attrs,
        sample_stats=trace.sample_stats,
        log_likelihood=log_lik,
    )
