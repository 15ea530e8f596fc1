r"""Job-level rates that scale as a power of the number of units, fitted exactly.

Every other relmc model makes a category's job-level rate linear in its units:
:math:`\Lambda_c(N) = \lambda_c u_c(N)` (components in series; ``SOURCES.md`` §6). Whether it
is linear is a question data at several job sizes can answer. Here

.. math::

    \Lambda_c(N) = \lambda_c \, u_c(N_\mathrm{ref}) \left(\frac{u_c(N)}{u_c(N_\mathrm{ref})}
    \right)^{b_c},

with :math:`u_c(N)` the units of category :math:`c` in a job of :math:`N` GPUs
(:func:`relmc.cluster.units`), :math:`\lambda_c` its rate per unit-hour *in a job of*
:math:`N_\mathrm{ref}` GPUs (the largest size it was observed at) and :math:`b_c` its size
exponent; :math:`b_c = 1` is the linear rule.

Data
----
Size-resolved rows (see :mod:`relmc.datasets`): ``job_count`` and ``job_hours`` along
(``category``, ``job_gpus``): interruptions of jobs of ``job_gpus`` GPUs over ``job_hours``
hours those jobs ran (0 hours: not observed at that size). Then
:math:`x_{ci} \sim \mathrm{Poisson}(E_{ci} \Lambda_c(N_i))`. A category with no size-resolved
row keeps :math:`b_c = 1` and takes its fleet row (``count``, ``exposure``) as
:func:`relmc.fit_conjugate` does. A category *with* size-resolved rows ignores its fleet row: a
fleet rate per unit-hour pools the jobs of every size on the cluster, so it is not the rate of
a job of any one size (for Meta's RSC-1 it is 3.2x and 3.65x below the job-level rates at 8 and
1,024 GPUs).

Priors
------
:math:`b_c \sim \mathrm{Normal}(1, 0.5)`: centred on the series-system rule that every
published projection uses (Kokolis et al. for RSC, the Gemini report; ``SOURCES.md`` §6), with
95% of its mass in [0.02, 1.98]: from a rate that hardly grows with the job (job-level causes
such as software bugs, :math:`b \approx 0`) to one that grows with pairs of units
(:math:`b \approx 2`), with no preferred direction. The rate of a size-resolved category
with at least one event has the scale-invariant prior :math:`p(\lambda_c) \propto 1 /
\lambda_c` (Gamma(0, 0)): multiplying :math:`\lambda_c` by a constant is all a change of the
reference size does at fixed :math:`b_c`, so under this prior the exponent's posterior does not
depend on which size the rate is quoted at (a Gamma(1/2, 0) prior would tilt it by about
:math:`1/(2 X_c)` of a log unit). Any other category has :func:`relmc.fit_conjugate`'s default
Gamma(:math:`1/(2K)`, 0) for :math:`K` categories (the total rate has Jeffreys' prior), so a
category without size data gets exactly the conjugate posterior.

Sampler: exact, no MCMC
-----------------------
Given :math:`b_c` the rate is conjugate: :math:`\lambda_c \mid b_c, x \sim \mathrm{Gamma}
(a + X_c, S_c(b_c))` with :math:`X_c = \sum_i x_{ci}` and :math:`S_c(b) = \sum_i E_{ci}
u_c(N_\mathrm{ref}) r_{ci}^{b}`, :math:`r_{ci} = u_c(N_i) / u_c(N_\mathrm{ref})`. Integrating
:math:`\lambda_c` out leaves the one-dimensional marginal

.. math::

    p(b \mid x) \propto \mathrm{N}(b; 1, 0.5^2)\, \exp\Big(b \sum_i x_{ci} \log r_{ci}\Big)\,
    S_c(b)^{-(a + X_c)},

which is log-concave (a log-sum-exp of terms linear in :math:`b`, with a negative sign, plus
a Gaussian). It is evaluated on a grid of 4,097 points spanning its mode :math:`\pm` the
distance where the log density has fallen by 50, and :math:`b_c` is drawn by inverting its
CDF; then :math:`\lambda_c` is drawn from its conditional gamma. Chain :math:`k` uses the
child seed :math:`(0, k)`, the predictive counts :math:`(1,)`.

Exposure clock
--------------
A job MTTF is measured on the hours jobs ran, so ``job_hours`` are taken as *exposed* hours
(the kernel's failure clock; see :mod:`relmc.rates`): a fit whose categories are all
size-resolved records ``exposure_clock = "exposed"``, and its rates are simulated as they are.
A fit of fleet rows alone records ``"wall"`` (counts over an observed window). Mixing the two
in one fit is refused.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import xarray as xr
from scipy import special

from relmc import cluster
from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.datasets import MAX_COUNT
from relmc.models._common import (
    SAMPLE_STATS_VALUES,
    az,
    check_data,
    check_draws,
    data_groups,
    draw_values,
    make_idata,
)
from relmc.models.conjugate import total_jeffreys

__all__ = ["EXPONENT_PRIOR", "fit_scaling", "check_sizes_data", "exponent_marginal"]

#: Normal(mean, sd) prior of every size exponent ``b`` (see the module docstring).
EXPONENT_PRIOR: tuple[float, float] = (1.0, 0.5)

#: grid points of the exponent's marginal; its span is where the log density is within 50
#: of its peak, so the mass left outside is below e^-50 and the cells are ~1/200 of an sd
_GRID_POINTS = 4097
_TAIL_DROP = 50.0


def check_sizes_data(data: Any, field: str = "data") -> dict[str, Any]:
    """Validate a dataset's size-resolved rows; return them as arrays.

    Parameters
    ----------
    data : xarray.Dataset
        With ``category`` and ``unit`` (category), ``job_count`` (whole numbers >= 0) and
        ``job_hours`` (finite, >= 0; 0 = not observed) along (``category``, ``job_gpus``),
        ``job_gpus`` integers >= 1; optionally the fleet rows ``count``, ``exposure``.

    Returns
    -------
    dict
        ``categories``, ``unit``, ``group``, ``job_gpus`` (int64), ``job_count`` (int64,
        category x size), ``job_hours`` (float64), ``sized`` (bool per category: any hours).

    Raises
    ------
    ValueError
        Naming the variable and the allowed values.
    """
    if not isinstance(data, xr.Dataset) or "category" not in data.dims:
        raise ValueError(f"{field} must be an xarray.Dataset with a 'category' dimension")
    for var in ("job_count", "job_hours", "unit"):
        if var not in data.variables:
            raise ValueError(
                f"{field} is missing {var!r}: size-resolved data need job_count and job_hours "
                "along (category, job_gpus) and unit along category"
            )
    for var in ("job_count", "job_hours"):
        if set(data[var].dims) != {"category", "job_gpus"}:
            raise ValueError(f"{field}[{var!r}] must have dims (category, job_gpus)")
    cats = np.asarray(data["category"].values).astype(str)
    sizes = np.asarray(data["job_gpus"].values)
    if (
        sizes.dtype.kind not in "iuf"
        or sizes.size == 0
        or not np.all(np.isfinite(sizes))
        or np.any(sizes < 1)
        or np.any(sizes != np.round(sizes))
        or np.unique(sizes).size != sizes.size
    ):
        raise ValueError(
            f"{field}['job_gpus'] must be distinct whole numbers of GPUs >= 1; got {sizes.tolist()}"
        )
    count = np.asarray(data["job_count"].transpose("category", "job_gpus").values)
    hours = np.asarray(data["job_hours"].transpose("category", "job_gpus").values)
    if count.dtype.kind not in "iuf" or hours.dtype.kind not in "iuf":
        raise ValueError(f"{field}: job_count and job_hours must be numbers")
    if not np.all(np.isfinite(count)) or np.any(count < 0) or np.any(count != np.round(count)):
        raise ValueError(f"{field}['job_count'] must be whole numbers >= 0; got {count.tolist()}")
    if np.any(count > MAX_COUNT):
        raise ValueError(
            f"{field}['job_count'] must be at most 2**53 (exact as a float); got {count.tolist()}"
        )
    if not np.all(np.isfinite(hours)) or np.any(hours < 0):
        raise ValueError(
            f"{field}['job_hours'] must be finite hours >= 0 (0: not observed); got "
            f"{hours.tolist()}"
        )
    if np.any((hours == 0) & (count > 0)):
        raise ValueError(f"{field}: a job_count > 0 needs job_hours > 0 at the same size")
    unit = np.asarray(data["unit"].values).astype(str)
    sized = np.asarray((hours > 0).any(axis=1), dtype=bool)
    for c, u, s in zip(cats, unit, sized.tolist(), strict=True):
        if s and (u not in cluster.UNITS or u == "job"):
            raise ValueError(
                f"{field}: category {c!r} has size-resolved rows but unit {u!r}, which has no "
                f"count that grows with the job; units must be among "
                f"{', '.join(x for x in cluster.UNITS if x != 'job')}"
            )
    group = (
        np.asarray(data["group"].values).astype(str) if "group" in data else np.full(cats.size, "")
    )
    return {
        "categories": cats,
        "unit": unit,
        "group": group,
        "job_gpus": sizes.astype(np.int64),
        "job_count": count.astype(np.int64),
        "job_hours": hours.astype(np.float64),
        "sized": sized,
    }


def _check_prior(prior: Any) -> tuple[float, float]:
    msg = f"exponent_prior must be a (mean, sd) pair of finite numbers with sd > 0; got {prior!r}"
    if not isinstance(prior, tuple | list) or len(prior) != 2:
        raise ValueError(msg)
    for v in prior:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise ValueError(msg)
    if prior[1] <= 0:
        raise ValueError(msg)
    return float(prior[0]), float(prior[1])


def exponent_marginal(
    count: np.ndarray,
    hours: np.ndarray,
    log_ratio: np.ndarray,
    *,
    shape: float,
    prior: tuple[float, float] = EXPONENT_PRIOR,
) -> tuple[np.ndarray, np.ndarray]:
    """Grid and normalised CDF of the exponent's marginal posterior of one category.

    Parameters
    ----------
    count, hours : ndarray, shape (n_sizes,)
        Interruptions and job-hours at each observed size (hours > 0).
    log_ratio : ndarray, shape (n_sizes,)
        ``log(u(N_i) / u(N_ref))``.
    shape : float
        Gamma prior shape ``a`` >= 0 of the rate (rate parameter 0; 0 is ``1 / rate``), with
        ``a + sum(count) > 0``.
    prior : (float, float)
        Normal (mean, sd) of the exponent.

    Returns
    -------
    grid, cdf : ndarray, shape (4097,)
        The exponent values and the CDF of the marginal there (0 at the first, 1 at the last).
    """
    mu, sd = prior
    x = np.asarray(count, float)
    log_e = np.log(np.asarray(hours, float))
    lr = np.asarray(log_ratio, float)
    total = x.sum() + shape
    slope = float(x @ lr)

    def logp(b: np.ndarray) -> np.ndarray:
        t = log_e[None, :] + np.outer(b, lr)
        return -0.5 * ((b - mu) / sd) ** 2 + b * slope - total * special.logsumexp(t, axis=1)

    # Newton on the concave log density, from the prior mean, kept inside a bracket of the
    # mode: the slope falls by at least 1 / sd^2 per unit of b (the second derivative is
    # -1/sd^2 minus total times a variance), so the mode lies between mu and mu + sd^2
    # grad(mu). Unguarded, Newton leaves for ever where the curvature of the logsumexp
    # vanishes (far from the mode, sizes far apart and many counts: steps of thousands), or
    # bounces between two points where it is exactly -1/sd^2 (the bracket's ends); a step
    # that would not land strictly inside the bracket bisects it instead.
    b = mu
    lo = hi = mu
    for it in range(200):
        t = log_e + b * lr
        w = np.exp(t - special.logsumexp(t))
        mean_lr = float(w @ lr)
        grad = -(b - mu) / sd**2 + slope - total * mean_lr
        hess = -1.0 / sd**2 - total * float(w @ (lr - mean_lr) ** 2)
        if it == 0:
            lo, hi = sorted((mu, mu + sd**2 * grad))
        elif grad > 0.0:
            lo = b
        elif grad < 0.0:
            hi = b
        step = -grad / hess
        if not lo < b + step < hi:
            step = 0.5 * (lo + hi) - b
        b += step
        if abs(step) < 1e-12 * (1.0 + abs(b)):
            break
    width = 1.0 / math.sqrt(-hess)
    peak = float(logp(np.array([b]))[0])
    lo, hi = b - 10 * width, b + 10 * width
    while logp(np.array([lo]))[0] > peak - _TAIL_DROP:
        lo = b - 2 * (b - lo)
    while logp(np.array([hi]))[0] > peak - _TAIL_DROP:
        hi = b + 2 * (hi - b)
    grid = np.linspace(lo, hi, _GRID_POINTS)
    dens = np.exp(logp(grid) - peak)
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (dens[1:] + dens[:-1]) * np.diff(grid))])
    return grid, cdf / cdf[-1]


def fit_scaling(
    data: xr.Dataset,
    *,
    exponent_prior: tuple[float, float] = EXPONENT_PRIOR,
    fixed_exponent: float | None = None,
    n_draws: int = 1000,
    n_chains: int = 4,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> az.InferenceData:
    r"""Fit job-level rates that scale as a power of the units, with exact draws.

    See the module docstring for the model, the priors and the sampler.

    Parameters
    ----------
    data : xarray.Dataset
        Size-resolved rows ``job_count`` / ``job_hours`` along (``category``, ``job_gpus``)
        (see ``check_sizes_data()``; ``relmc.load_dataset("rsc-1")`` has Meta's job MTTF
        at 8 and 1,024 GPUs), and for categories without them the fleet rows ``count``,
        ``exposure`` (as :func:`relmc.load_dataset` gives).
    exponent_prior : (float, float), optional
        Normal (mean, sd) of each size exponent; default (1, 0.5).
    fixed_exponent : float, optional
        Hold every size-resolved category's exponent at this value instead of fitting it (a
        sensitivity check, or the linear rule with 1.0).
    n_draws : int, optional
        Draws per chain, >= 1 (default 1000).
    n_chains : int, optional
        Independent chains of exact draws, >= 1 (default 4), so ``az.summary`` reports r_hat.
    seed : int, SeedSequence, Generator or None, optional
        Root of randomness; the same int gives the same result.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rate`` (chain, draw, category), events per unit-hour in a job of
        ``reference_gpus`` GPUs (coordinate along ``category``, with ``unit`` and ``group``);
        ``exponent`` (chain, draw, category), the size exponent (1 where not fitted);
        ``rate_per_million``. ``posterior.attrs``: ``model="scaling"``, the priors,
        ``exposure_clock`` (``"exposed"`` or ``"wall"``), what :mod:`relmc.models` fits record
        about their data, the seed. ``posterior_predictive``, ``log_likelihood`` (Poisson log
        pmf per draw) and ``observed_data`` hold ``job_count`` (and ``count`` for categories
        fitted from fleet rows); ``constant_data`` the matching ``job_hours`` / ``exposure``.
        :func:`relmc.simulate` and :func:`relmc.project` scale the rates through
        :mod:`relmc.rates`.

    Raises
    ------
    ValueError
        For invalid data, priors, draws or seed; for fleet and size-resolved categories mixed
        in one fit (their clocks differ); before any drawing.
    """
    sizes = check_sizes_data(data)
    mu, sd = _check_prior(exponent_prior)
    if fixed_exponent is not None and (
        isinstance(fixed_exponent, bool)
        or not isinstance(fixed_exponent, numbers.Real)
        or not math.isfinite(fixed_exponent)
    ):
        raise ValueError(f"fixed_exponent must be a finite number or None; got {fixed_exponent!r}")
    n_draws, n_chains = check_draws(
        n_draws, n_chains, draw_values(len(sizes["categories"]), SAMPLE_STATS_VALUES)
    )
    root = resolve_seed(seed)
    sized = sizes["sized"]
    fleet = None
    if not sized.all():
        if "count" not in data or "exposure" not in data:
            missing = [str(c) for c, s in zip(sizes["categories"], sized, strict=True) if not s]
            raise ValueError(
                f"data: categories {missing} have no size-resolved rows and no fleet rows "
                "(count, exposure)"
            )
        if sized.any():
            raise ValueError(
                "data: some categories have size-resolved rows (job-hours jobs ran: the exposed "
                "clock) and others only fleet rows (an observed window: the wall clock); fit "
                "them separately"
            )
        fleet = check_data(data)
    n_cat = sizes["categories"].size
    a = total_jeffreys(n_cat)[0]
    shape = cluster.recorded_shape(data.attrs) or cluster.ClusterShape()
    job_gpus = sizes["job_gpus"]

    reference = np.ones(n_cat, dtype=np.int64)
    scale = np.ones((n_cat, job_gpus.size))  # u_ref * r_i: job rate = rate * scale ** ...
    log_ratio = np.zeros((n_cat, job_gpus.size))
    for c in range(n_cat):
        if not sized[c]:
            reference[c] = int(data.attrs.get("n_gpus", 0) or 1)
            continue
        seen = sizes["job_hours"][c] > 0
        reference[c] = int(job_gpus[seen].max())
        u = np.array([cluster.units(int(n), sizes["unit"][c], shape) for n in job_gpus])
        u_ref = cluster.units(int(reference[c]), sizes["unit"][c], shape)
        scale[c] = u_ref
        log_ratio[c] = np.log(u / u_ref)

    rate = np.empty((n_chains, n_draws, n_cat))
    log_rate = np.empty((n_chains, n_draws, n_cat))
    expo = np.ones((n_chains, n_draws, n_cat))
    for k in range(n_chains):
        rng = np.random.default_rng(child_seed(root, 0, k))
        for c in range(n_cat):
            if not sized[c]:
                assert fleet is not None
                rate[k, :, c] = rng.standard_gamma(a + fleet.count[c], n_draws) / fleet.exposure[c]
                with np.errstate(divide="ignore"):
                    log_rate[k, :, c] = np.log(rate[k, :, c])
                continue
            seen = sizes["job_hours"][c] > 0
            x, e, lr = sizes["job_count"][c, seen], sizes["job_hours"][c, seen], log_ratio[c, seen]
            shape_c = 0.0 if x.sum() > 0 else a  # scale-invariant 1/rate unless no events
            if fixed_exponent is None:
                grid, cdf = exponent_marginal(x, e, lr, shape=shape_c, prior=(mu, sd))
                b = np.interp(rng.random(n_draws), cdf, grid)
            else:
                b = np.full(n_draws, float(fixed_exponent))
            b_lr = np.outer(b, lr)
            t = np.log(e)[None, :] + b_lr
            gam = rng.standard_gamma(shape_c + x.sum(), n_draws)
            with np.errstate(over="ignore", divide="ignore"):
                s = (e[None, :] * np.exp(b_lr)).sum(axis=1) * scale[c, 0]
                rate[k, :, c] = gam / s
                log_rate[k, :, c] = np.log(gam) - special.logsumexp(t, axis=1)
            log_rate[k, :, c] -= np.log(scale[c, 0])
            expo[k, :, c] = b

    # expected counts of every row under every draw: job-hours x job-level rate at that size;
    # where a wide exponent prior draws an extreme b, the product overflows or underflows
    # (inf x 0) while the job rate itself is finite: those from logs
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        job_rate = rate[..., None] * scale * np.exp(expo[..., None] * log_ratio)
        log_job = log_rate[..., None] + np.log(scale) + expo[..., None] * log_ratio
        redo = ~np.isfinite(job_rate) | (job_rate == 0.0)
        job_rate[redo] = np.exp(log_job[redo])
        # a size no job ran (0 job-hours) expects 0, whatever rate an extreme b gives it
        mean_job = np.where(sizes["job_hours"] > 0, job_rate * sizes["job_hours"], 0.0)
        log_lik_job = special.xlogy(sizes["job_count"], mean_job) - mean_job
        # a count where the mean underflowed: its log from the logs (finite, not -inf)
        tiny = (mean_job == 0.0) & (sizes["job_count"] > 0)
        log_mean = log_job + np.log(sizes["job_hours"])
        log_lik_job[tiny] = (sizes["job_count"] * log_mean)[tiny]
    log_lik_job -= special.gammaln(sizes["job_count"] + 1.0)
    pred_rng = np.random.default_rng(child_seed(root, 1))
    pred_job = pred_rng.poisson(mean_job).astype(np.int64)

    coords = xr.Coordinates(
        {
            "chain": np.arange(n_chains),
            "draw": np.arange(n_draws),
            "category": sizes["categories"],
            "unit": ("category", sizes["unit"]),
            "group": ("category", sizes["group"]),
            "job_gpus": job_gpus,
        }
    )
    dims = ("chain", "draw", "category")
    job_dims = (*dims, "job_gpus")
    posterior = xr.Dataset(
        {
            "rate": (dims, rate),
            "exponent": (
                dims,
                expo,
                {
                    "units": "1",
                    "long_name": "size exponent b: job-level rate proportional to units ** b",
                },
            ),
        },
        coords=coords,
    ).drop_vars("job_gpus")
    posterior = posterior.assign_coords(
        reference_gpus=(
            "category",
            reference,
            {"units": "1", "long_name": "GPUs of the job in which rate is per unit-hour"},
        )
    )
    predictive = xr.Dataset({"job_count": (job_dims, pred_job)}, coords=coords)
    log_lik = xr.Dataset({"job_count": (job_dims, log_lik_job)}, coords=coords)
    grid_coords = coords.to_dataset().drop_vars(["chain", "draw"]).coords
    observed = xr.Dataset(
        {"job_count": (("category", "job_gpus"), sizes["job_count"], {"units": "1"})},
        coords=grid_coords,
    )
    constant = xr.Dataset(
        {"job_hours": (("category", "job_gpus"), sizes["job_hours"], {"units": "h"})},
        coords=grid_coords,
    )
    if fleet is not None:  # every category from its fleet row, as fit_conjugate
        groups = data_groups(fleet)
        # compat given: xarray's default is changing (a FutureWarning); the two share only
        # the category coordinates, equal
        observed = xr.merge(
            [observed, groups["observed_data"]], compat="no_conflicts", combine_attrs="override"
        )
        constant = xr.merge(
            [constant, groups["constant_data"]], compat="no_conflicts", combine_attrs="override"
        )
        mean = rate * fleet.exposure
        log_lik["count"] = (
            dims,
            special.xlogy(fleet.count, mean) - mean - special.gammaln(fleet.count + 1.0),
        )
        predictive["count"] = (dims, pred_rng.poisson(mean).astype(np.int64))
    record = (
        fleet.record()
        if fleet is not None
        else {
            "dataset": str(data.attrs.get("name", "")),
            "rate_units": "events per unit-hour",
            "maintenance_rate": 0.0,
            "recovery_rules": str(data.attrs.get("recovery_rules", "")),
            "n_gpus": int(data.attrs.get("n_gpus", 0) or 0),
        }
    )
    how = (
        f"~ Normal({mu:g}, {sd:g})"
        if fixed_exponent is None
        else f"fixed at {float(fixed_exponent):g}"
    )
    attrs = {
        "model": "scaling",
        "prior": f"size-resolved categories: rate ~ 1/rate (Gamma(0, 0); Gamma({a:g}, 0) "
        f"without events), size exponent b {how}; other categories: rate ~ Gamma({a:g}, 0) "
        "(total Jeffreys), b = 1",
        "prior_shape": a,
        "prior_rate": 0.0,
        "exponent_prior_mean": mu,
        "exponent_prior_sd": sd,
        "fixed_exponent": "" if fixed_exponent is None else float(fixed_exponent),
        **record,
        # planned maintenance belongs to fleet windows; job MTTF rows have none
        "exposure_clock": "wall" if fleet is not None else "exposed",
        **seed_attrs(root),
    }
    if fleet is None:
        attrs["maintenance_rate"] = 0.0
    return make_idata(
        posterior,
        predictive,
        observed_data=observed,
        constant_data=constant,
        attrs=attrs,
        log_likelihood=log_lik,
    )
