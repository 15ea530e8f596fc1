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
    (``reference/facts.md`` §5). Its :math:`\beta` prior (mean 0.1, density falling like
    :math:`e^{-\beta}`) expects pooled rates of order 1-10 per time unit, so it is *not*
    scale-free: fine for the pumps (per 1000 h), informative for per-fleet-hour rates of order
    0.001-0.1 such as Llama 3's.
``"scaled"`` (default)
    The same hyperpriors on the dimensionless :math:`\phi_c = \theta_c / s`, where
    :math:`s = \sum_c x_c / \sum_c (E_c / r_c)` is the maximum-likelihood common rate on the
    pooling scale. Fixing only the scale from the data (as rstanarm's autoscaling does) makes
    the fit invariant to the time unit; the spread of rates across categories is still learned.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.models._common import (
    Observations,
    az,
    check_convergence,
    check_data,
    check_divergences,
    check_int,
    data_groups,
    import_pymc,
    make_idata,
    predictive_counts,
    sample_coords,
)

__all__ = ["PRIORS", "POOLS", "fit_hierarchical"]

PRIORS: tuple[str, ...] = ("scaled", "bugs")
POOLS: tuple[str, ...] = ("auto", "fleet", "unit")

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


def pooled_theta(prior: str, n: int, scale: float, dims: str = "category"):
    """Add ``alpha``, ``beta`` and the pooled rates ``theta`` (returned) to the current model."""
    pm = import_pymc()
    alpha = pm.Exponential("alpha", 1.0)
    beta = pm.Gamma("beta", alpha=0.1, beta=1.0)
    if prior == "bugs":
        return pm.Gamma("theta", alpha=alpha, beta=beta, dims=dims)
    phi = pm.Gamma("phi", alpha=alpha, beta=beta, dims=dims)
    return phi * scale


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


def check_sampling(
    n_draws: object, n_tune: object, n_chains: object, target_accept: object, cores: object
) -> tuple[int, int, int, float]:
    """Validate the NUTS options shared by the PyMC fits."""
    n_draws = check_int(n_draws, "n_draws", 1)
    n_tune = check_int(n_tune, "n_tune", 0)
    n_chains = check_int(n_chains, "n_chains", 1)
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
    target_accept: float = 0.9,
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
        NUTS target acceptance in (0, 1).
    seed : int, SeedSequence, Generator or None, optional
        Root seed; one child seeds NUTS, another the posterior predictive.
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
        ``exposure`` and ``ref_units`` (:math:`r_c`); ``sample_stats`` from NUTS.

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
        n_draws, n_tune, n_chains, target_accept, cores
    )

    pm = import_pymc()
    root = resolve_seed(seed)
    nuts_ss, pred_ss = child_seed(root, 0), child_seed(root, 1)
    scale = float(max(obs.count.sum(), 0.5) / np.sum(obs.exposure / ref))
    # Poisson mean: rate_c * E_c = theta_c * (E_c / r_c)
    time_c = obs.exposure / ref
    with pm.Model(coords={"category": obs.categories}):
        theta = pooled_theta(prior, obs.n, scale)
        pm.Poisson("count", mu=theta * time_c, observed=obs.count, dims="category")
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
    theta_draws = post["theta"].values if prior == "bugs" else post["phi"].values * scale
    lam = theta_draws / ref
    coords = sample_coords(obs, n_chains, n_draws)
    dims = ("chain", "draw", "category")
    posterior = xr.Dataset(
        {
            "rate": (dims, lam),
            "alpha": (("chain", "draw"), post["alpha"].values),
            "beta": (("chain", "draw"), post["beta"].values),
        },
        coords=coords,
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
        "dataset": obs.name,
        "rate_units": obs.rate_units,
        "maintenance_rate": obs.maintenance_rate,
        "recovery_rules": str(obs.attrs.get("recovery_rules", "")),
        **seed_attrs(root),
    }
    return make_idata(posterior, predictive, **groups, attrs=attrs, sample_stats=trace.sample_stats)
