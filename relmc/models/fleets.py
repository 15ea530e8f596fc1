r"""Pooling several fleets: shared category rates times a log-normal fleet multiplier (PyMC).

Model
-----
Exactly one fleet is *categorised* (two or more categories, e.g. Llama 3 by root cause); the
others report only a *total* (one category, e.g. RSC-1 failures per node-day). Fleet
:math:`k` has the rates :math:`\lambda_{kc} = \kappa_c \, e^{\sigma (z_k - z_1)}` per unit-hour,
with :math:`\kappa_c` the categorised fleet's (:math:`k = 1`) own rates, given the pooled prior of
:func:`relmc.fit_hierarchical` (same ``prior`` and ``pool`` options),
:math:`z_k \sim \mathcal N(0, 1)` and :math:`\sigma \sim \mathrm{HalfNormal}(s_f)`, with
:math:`s_f` = ``fleet_sigma``. NUTS samples the log ratios :math:`\delta_k = \sigma (z_k - z_1)`
directly, with their implied prior :math:`\mathcal N(0, \sigma^2 (I + 11^T))`.
Equivalently all fleets, the observed ones and a new one, are exchangeable draws
:math:`\lambda_c e^{\sigma z_k}` around a common :math:`\lambda_c`; the categorised fleet is only
the parametrisation anchor (its rates are what its data pin down, which keeps NUTS's geometry
simple).

Total-only fleets
-----------------
A total-only fleet :math:`k` with one category of unit :math:`v_k` (e.g. ``node``), count
:math:`X_k` over exposure :math:`E_k` :math:`v_k`-hours and size :math:`G_k` GPUs
(``attrs["n_gpus"]``) has

.. math::

    X_k \sim \mathrm{Poisson}\Big(E_k \sum_c \lambda_{kc}\,
        \frac{\mathrm{units}(G_k, u_c)}{\mathrm{units}(G_k, v_k)}\Big),

i.e. its rate per :math:`v_k`-hour is the sum over categories of the per-unit rates times the
units of each category per :math:`v_k` (for RSC, per node: 8 GPUs, 1 node, 1/2 rack, 8 links,
...; :func:`relmc.cluster.units` with ``shape``). Assumptions, stated plainly:

- every interruption of the total-only fleet falls in one of the categorised fleet's categories
  and counts once; differences in definitions (RSC counts job failures attributed to a node,
  Llama 3 counts job interruptions) and hardware (A100 vs H100) are absorbed by the single
  multiplier :math:`e^{\sigma (z_k - z_1)}`, which scales all categories alike;
- ``job``-unit categories count once per total-only fleet (as if the fleet ran one job) and
  ``pod``-unit ones use the fleet's pod count; both are small next to per-GPU and per-node
  causes.

Sampler
-------
The categorised fleet's pooled rates also enter the totals' likelihood, so they cannot be
integrated out as in :func:`relmc.fit_hierarchical`. They are parametrised around their exact
conditional given :math:`(\alpha, \beta)` and the categorised fleet's counts: with
:math:`t_c` the pooled exposure, :math:`g_c = (\beta + t_c)\,\phi_c \sim
\mathrm{Gamma}(a_c, 1)`, :math:`a_c = \alpha + x_c`, written exactly as
:math:`g_c = h_c\, e^{-e_c / a_c}` with :math:`h_c \sim \mathrm{Gamma}(a_c + 1, 1)` and
:math:`e_c \sim \mathrm{Exp}(1)` independent (:math:`\mathrm{Gamma}(a) =
\mathrm{Gamma}(a + 1)\, U^{1/a}`); NUTS samples :math:`e_c` and
:math:`v_c = (\log h_c - \psi(a_c + 1)) / \sqrt{\psi_1(a_c + 1)}`, which has mean 0 and sd 1
for every :math:`\alpha`; :math:`(\alpha, \beta)` carry the negative-binomial marginal of the
counts and are sampled by log shape and log prior mean, as in :func:`relmc.fit_hierarchical`.
The density is the model's own (a change of variables and an auxiliary variable whose marginal
is the model's), and the funnel of the centred parametrisation, :math:`\log \phi_c`
spreading like :math:`1/\alpha` for a zero-count category, is gone; so is the steep wall that
standardising :math:`\log g_c` itself leaves there (the Gamma density's cut-off at
:math:`g_c \approx 1` in units of its sd :math:`\approx 1/\alpha`), where NUTS diverged.

The log fleet ratios :math:`\delta_k` are sampled centred where the counts pin them and
non-centred elsewhere, chosen from the data (:func:`centred_fleets`: the sd of
:math:`\delta_k` that a total :math:`X_k` and the categorised fleet's :math:`\sum_c x_c`
allow, about :math:`\sqrt{1/X_k + 1/\sum_c x_c}`, below ``CENTRED_SD`` :math:`= 0.25` times
``fleet_sigma``, and the estimate of :math:`\delta_k` more than ``CENTRED_APART`` :math:`= 3`
such sds from 0). Centred, a weakly informed :math:`\delta_k`, or one pinned near 0, and
:math:`\sigma` form a funnel (:math:`\delta_k` squeezed to 0 as :math:`\sigma \to 0`); non-centred,
:math:`\delta_k = \sigma \times` (a standard normal), a well-pinned :math:`\delta_k` leaves
a thin curved ridge. With both kinds, the non-centred ratios are drawn given the centred ones
(their conditional prior), so the prior, and the posterior, are the model's. On small designs
checked against the exact posterior (``benchmarks/validate_fleets.py``,
``benchmarks/VALIDATION.md``), the all-centred sampler diverged (e.g. 90 of 4,000
transitions with 2 events in a total-only fleet).

``log_likelihood``: ``count`` (Poisson log pmf of each categorised count given its rate) and
``total_count`` (of each total-only fleet's count given its total rate, dim ``total_fleet``).

Output
------
``posterior["rate"]`` is the posterior *predictive* of a new fleet's category rates,
:math:`\kappa_c e^{\sigma (z_{new} - z_1)}` with a fresh :math:`z_{new} \sim \mathcal N(0,1)`
per draw: what a projection to a new cluster needs. It is wider than the categorised fleet's
own posterior because it includes the fleet-to-fleet spread. ``posterior["fleet_rate"]`` holds
each observed fleet's category rates. ``rate`` carries the categorised fleet's observation
record, so on the wall clock each of its draws is converted with the exposed fraction its own
rates give at that fleet's size (:func:`relmc.rates.exposed_fraction`), as a fleet with those
rates observed there would be; a draw whose overheads would leave no exposed time is refused,
naming the overhead to change.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.cluster import (
    ClusterShape,
    check_gpus,
    check_shape,
    recorded_shape,
    units,
)
from relmc.datasets import warn_exposure_against_window
from relmc.models._common import (
    SAMPLE_STATS_VALUES,
    Observations,
    az,
    check_convergence,
    check_data,
    check_divergences,
    data_groups,
    draw_values,
    import_pymc,
    make_idata,
    predictive_counts,
    sample_coords,
)
from relmc.models.hierarchical import (
    PRIOR_TEXT,
    check_prior,
    check_sampling,
    marginal_logp,
    poisson_logpmf,
    pooled_exposure,
    pooled_hyperpriors_by_mean,
    rate_scale,
    ref_units,
    sample_kwargs,
)

__all__ = ["fit_fleets"]

#: A total-only fleet's log ratio is sampled centred when the data's sd of it is below this
#: times ``fleet_sigma`` and its estimate is more than ``CENTRED_APART`` of those sds from 0,
#: non-centred otherwise (:func:`centred_fleets`; benchmarks/VALIDATION.md)
CENTRED_SD = 0.25
CENTRED_APART = 3.0
#: ``target_accept`` by default where a total-only fleet's log ratio is pinned near 0
#: (:func:`pinned_near_zero`; benchmarks/VALIDATION.md)
PINNED_TARGET_ACCEPT = 0.99


def _named(datasets: object) -> list[tuple[str, object]]:
    if isinstance(datasets, Mapping) and not isinstance(datasets, xr.Dataset):
        return [(str(k), v) for k, v in datasets.items()]
    if isinstance(datasets, Sequence) and not isinstance(datasets, str | bytes):
        out = []
        for i, d in enumerate(datasets):
            name = d.attrs.get("name", "") if isinstance(d, xr.Dataset) else ""
            out.append((str(name) or f"fleet{i}", d))
        return out
    raise ValueError(
        "datasets must be a sequence of xarray.Datasets or a mapping name -> Dataset, "
        f"got {type(datasets).__name__}"
    )


#: the largest ``fleet_sigma``: a half-normal scale of 10 already lets fleets differ by a
#: typical factor e^10 (about 22,000); its draws of sigma (< 50 in any run) times the
#: normal deviates keep every multiplier e^(sigma z) far below float64's overflow at e^709
MAX_FLEET_SIGMA = 10.0


def fleet_draw_values(n_categories: int, n_fleets: int) -> int:
    """Return the float64 values a fleets fit keeps per draw, at least.

    :func:`relmc.models._common.draw_values` of the categorised fleet, its sampler's statistics,
    each fleet's category rates (``fleet_rate``), and per fleet its total, multiplier, offset,
    predictive total and log-likelihood; ``sigma``, ``alpha``, ``beta``.
    """
    return (
        draw_values(n_categories, SAMPLE_STATS_VALUES)
        + int(n_fleets) * int(n_categories)
        + 5 * int(n_fleets)
        + 3
    )


def _per_unit(obs: Observations, field: str, categories_units, shape) -> np.ndarray:
    """Units of each category per unit of the total-only fleet ``obs``.

    Counted with the fleet's own recorded shape (:func:`relmc.cluster.recorded_shape`: the
    bundled fleets' 8 GPUs a node, a counts file's ``load_counts(..., shape=)``), else
    ``shape``.
    """
    shape = recorded_shape(obs.attrs) or shape
    n_gpus = check_gpus(
        obs.attrs.get("n_gpus"),
        f"{field}.attrs['n_gpus']",
        why=" for a total-only fleet (it maps the total onto the categories' units)",
    )
    v = str(obs.unit[0])
    if v == "pump":
        raise ValueError(f"{field}['unit'] must be a cluster unit for a fleet, got 'pump'")
    per = units(n_gpus, v, shape)
    return np.array([units(n_gpus, str(u), shape) / per for u in categories_units])


def _check_fleet_exposure(obs: Observations, field: str, n_gpus: int, shape: ClusterShape) -> None:
    """Warn when a total-only fleet's exposure disagrees with its ``n_gpus`` and window.

    The same check as :func:`relmc.load_counts` makes of a counts file against its
    ``n_gpus`` and ``duration_hours`` (:func:`relmc.datasets.warn_exposure_against_window`),
    here against the fleet's ``attrs``: ``n_gpus`` maps the fleet's total onto the
    categories' units, so one that does not match its exposure (an edited attribute, a
    fleet of another size) moves the fleet's multiplier by the factor, silently. Skipped
    when the fleet records no window (``attrs["duration_hours"]`` 0 or absent); the low side
    only on the wall clock (``attrs["exposure_clock"]``), as there.
    """
    hours = float(obs.attrs.get("duration_hours", 0))  # a number in [0, 1e6]: check_data
    if hours <= 0.0:
        return
    shape = recorded_shape(obs.attrs) or shape  # as _per_unit counts the fleet's units
    where = f"{field}.attrs['n_gpus'] and .attrs['duration_hours']"
    warn_exposure_against_window(
        obs.categories,
        obs.exposure,
        obs.unit,
        n_gpus,
        hours,
        shape,
        field,
        check_low=str(obs.attrs.get("exposure_clock", "wall")) == "wall",
        fix=f"the fleet's exposure must be {{u}}-hours, and {where} the cluster and window "
        "its total comes from (fit_fleets maps the total onto the categories' units with "
        "n_gpus)",
        high_fix=f"check {where} against the fleet's exposure (fit_fleets maps the total "
        "onto the categories' units with n_gpus)",
        stacklevel=4,  # fit_fleets' caller
    )


def fit_fleets(
    datasets: Sequence[xr.Dataset] | Mapping[str, xr.Dataset],
    *,
    prior: str = "scaled",
    pool: str = "auto",
    fleet_sigma: float = 1.0,
    shape: ClusterShape | None = None,
    n_draws: int = 1000,
    n_tune: int = 1000,
    n_chains: int = 4,
    cores: int | None = None,
    target_accept: float | None = None,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    progressbar: bool = False,
) -> az.InferenceData:
    r"""Fit several fleets at once with a log-normal fleet multiplier on shared category rates.

    See the module docstring for the model, how a total-only fleet's units map onto the
    categories, and the assumptions.

    Parameters
    ----------
    datasets : sequence of xarray.Dataset, or mapping name -> Dataset
        Two or more fleets: exactly one with two or more categories (the categorised fleet),
        the others with one category each (totals). Fleet names are the mapping keys or
        ``attrs["name"]``, and must be unique. Total-only fleets need ``attrs["n_gpus"]``.
        An event log (:func:`relmc.load_events`) is a fleet by its counts and its record
        (window, size, ``maintenance_count``), as :func:`relmc.fit_conjugate` fits it: its
        events' times and nodes are not read, so it adds no daily cycle, trend or lemon
        terms (:func:`relmc.fit_events` fits those, one log on its own).
    prior : {"scaled", "bugs"}, optional
        Pooled prior on the categorised fleet's rates, as in :func:`relmc.fit_hierarchical`.
    pool : {"auto", "fleet", "unit"}, optional
        Pooling scale of the categorised fleet, as in :func:`relmc.fit_hierarchical`.
    fleet_sigma : float, optional
        Scale, in (0, 10] (``MAX_FLEET_SIGMA``), of the half-normal prior on :math:`\sigma`,
        the sd of log fleet multipliers. The default 1 lets fleets differ by a typical factor
        up to about e; 10 by e^10 (larger scales overflow the multipliers).
    shape : relmc.cluster.ClusterShape, optional
        GPU packing used to count each category's units in total-only fleets that record
        none; a fleet that records its shape (``attrs``, as ``load_counts`` with ``n_gpus``
        and the bundled datasets do; :func:`relmc.cluster.recorded_shape`) is counted with
        its own.
    n_draws, n_tune, n_chains, cores, target_accept, seed, progressbar
        As in :func:`relmc.fit_hierarchical`. ``target_accept`` defaults to 0.95, or to
        ``PINNED_TARGET_ACCEPT`` = 0.99 where a total-only fleet's log ratio is pinned near 0
        (``relmc.models.fleets.pinned_near_zero``: near-equal fleets with many events,
        sampled non-centred, leave a thin ridge at large sigma where NUTS diverged at 0.95;
        benchmarks/VALIDATION.md).

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rate`` (chain, draw, category): a new fleet's category rates per
        unit-hour (categories, ``unit`` and ``group`` of the categorised fleet);
        ``fleet_rate`` (chain, draw, fleet, category): each observed fleet's category rates
        (to project one of them rather than a new fleet, pass its draws,
        ``idata.posterior["fleet_rate"].sel(fleet=NAME)``, as the rates to
        :func:`relmc.project` or :func:`relmc.simulate`, with that fleet's observation
        record in their ``attrs``: ``n_gpus`` and ``exposure_clock`` for the exposure-clock
        conversion, ``maintenance_rate``; ``rate.attrs`` holds the categorised fleet's.
        Without them the rates are taken per exposed hour, with no planned maintenance);
        ``fleet_total`` (chain, draw, fleet): each fleet's total rate per unit-hour of its own
        reported unit (the categorised fleet's per hour of the whole fleet);
        ``fleet_multiplier`` (chain, draw, fleet): :math:`e^{\sigma (z_k - z_1)}`;
        ``sigma``, ``alpha``, ``beta`` (chain, draw); ``rate_per_million`` (``rate`` x 1e6,
        for reading ``az.summary``). Attrs as :func:`relmc.fit_hierarchical`
        with ``model="fleets"``, ``dataset`` the categorised fleet and ``fleets`` all names.
        ``posterior_predictive``: ``count`` (chain, draw, category) of the categorised fleet
        and ``total_count`` (chain, draw, fleet). ``observed_data``: ``count`` and
        ``total_count`` (for the categorised fleet the sum of its counts, not an extra
        likelihood term); ``constant_data``: ``exposure`` and ``total_exposure``.
        ``log_likelihood``: ``count`` (chain, draw, category) and ``total_count`` (chain,
        draw, total_fleet), Poisson log pmfs (see the module docstring).

    Raises
    ------
    ValueError
        For invalid datasets or options, before any sampling.

    Warns
    -----
    ConvergenceWarning
        If any r_hat > 1.01, any bulk ESS < 100 per chain, or NUTS diverged.
    """
    names, fleets = _order_fleets(datasets)
    main, totals = fleets[0], fleets[1:]
    prior = check_prior(prior)
    pool, ref = ref_units(main, pool, f"datasets[{names[0]!r}]")
    if (
        isinstance(fleet_sigma, bool)
        or not isinstance(fleet_sigma, numbers.Real)
        or not 0 < fleet_sigma <= MAX_FLEET_SIGMA  # NaN fails too
    ):
        raise ValueError(
            f"fleet_sigma must be a finite number in (0, {MAX_FLEET_SIGMA:g}], got {fleet_sigma!r}"
        )
    shape = check_shape(shape)
    per_unit = np.array(
        [
            _per_unit(f, f"datasets[{n!r}]", main.unit, shape)
            for n, f in zip(names[1:], totals, strict=True)
        ]
    )  # (total fleet, category)
    for n, f in zip(names[1:], totals, strict=True):  # n_gpus checked by _per_unit
        _check_fleet_exposure(f, f"datasets[{n!r}]", int(f.attrs["n_gpus"]), shape)
    tot_count = np.array([f.count[0] for f in totals])
    tot_exposure = np.array([f.exposure[0] for f in totals])
    expected = _expected_totals(main, per_unit, tot_exposure)
    if target_accept is None:
        pinned = pinned_near_zero(tot_count, main.count, float(fleet_sigma), expected)
        target_accept = PINNED_TARGET_ACCEPT if pinned.any() else 0.95
    n_draws, n_tune, n_chains, target_accept = check_sampling(
        n_draws, n_tune, n_chains, target_accept, cores,
        fleet_draw_values(main.n, len(fleets)),
    )  # fmt: skip

    root = resolve_seed(seed)
    nuts_ss, pred_ss = child_seed(root, 0), child_seed(root, 1)
    scale = rate_scale(main, ref)
    trace = _sample(
        main,
        names,
        ref,
        prior,
        scale,
        float(fleet_sigma),
        per_unit,
        tot_count,
        tot_exposure,
        sample_kwargs(
            n_draws,
            n_tune,
            n_chains,
            int(nuts_ss.generate_state(1)[0]),
            progressbar,
            cores,
            target_accept,
        ),
    )
    pred_rng = np.random.default_rng(pred_ss)
    draws = _fleet_draws(trace.posterior, main, ref, prior, scale, per_unit, pred_rng)
    coords = sample_coords(main, n_chains, n_draws).assign(fleet=names)
    dims = ("chain", "draw", "category")
    posterior = xr.Dataset(
        {
            "rate": (dims, draws["rate"]),
            "fleet_rate": (("chain", "draw", "fleet", "category"), draws["fleet_rate"]),
            "fleet_total": (("chain", "draw", "fleet"), draws["fleet_total"]),
            "fleet_multiplier": (("chain", "draw", "fleet"), draws["fleet_multiplier"]),
            "sigma": (("chain", "draw"), trace.posterior["sigma"].values),
            "alpha": (("chain", "draw"), trace.posterior["alpha"].values),
            "beta": (("chain", "draw"), trace.posterior["beta"].values),
        },
        coords=coords,
    )
    where = f"fit_fleets({names})"
    check_divergences(trace.sample_stats, where)
    check_convergence(posterior, ["fleet_rate", "sigma", "alpha", "beta"], where)

    log_lik = xr.Dataset(
        {
            "count": (dims, poisson_logpmf(main.count, draws["category_rate"] * main.exposure)),
            "total_count": (
                ("chain", "draw", "total_fleet"),
                poisson_logpmf(tot_count, draws["fleet_total"][..., 1:] * tot_exposure),
            ),
        },
        coords=coords.assign(total_fleet=names[1:]),
    )
    pred_cat = predictive_counts(draws["category_rate"], main.exposure, pred_rng)
    pred_tot = predictive_counts(draws["fleet_total"][..., 1:], tot_exposure, pred_rng)
    predictive = xr.Dataset(
        {
            "count": (dims, pred_cat),
            "total_count": (
                ("chain", "draw", "fleet"),
                np.concatenate([pred_cat.sum(-1, keepdims=True), pred_tot], axis=-1),
            ),
        },
        coords=coords,
    )
    groups = _data_groups(main, names, totals, ref, tot_count, tot_exposure)
    attrs = {
        "model": "fleets",
        "prior": (
            f"{prior}: {PRIOR_TEXT[prior]}; fleet k rates = rate_c * exp(sigma*(z_k - z_1)), "
            f"z_k ~ Normal(0, 1), sigma ~ HalfNormal({float(fleet_sigma):g})"
        ),
        "pool": pool,
        "rate_scale": scale if prior == "scaled" else 1.0,
        **main.record(),
        "fleets": ",".join(names),
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


def _order_fleets(datasets: object) -> tuple[list[str], list[Observations]]:
    """Return the validated fleets, the categorised one first, and their names."""
    named = _named(datasets)
    if len(named) < 2:
        raise ValueError(f"datasets must hold at least 2 fleets, got {len(named)}")
    names = [n for n, _ in named]
    if len(set(names)) != len(names):
        raise ValueError(f"datasets: fleet names must be unique, got {names}")
    fleets = [check_data(d, f"datasets[{n!r}]") for n, d in named]
    cat_idx = [i for i, f in enumerate(fleets) if f.n >= 2]
    if len(cat_idx) != 1:
        raise ValueError(
            "datasets must hold exactly one fleet with >= 2 categories (the categorised fleet) "
            f"and the rest with one category (totals); categorised: {[names[i] for i in cat_idx]}"
        )
    order = cat_idx + [i for i in range(len(fleets)) if i != cat_idx[0]]
    return [names[i] for i in order], [fleets[i] for i in order]


def _sample(
    main: Observations,
    names: list[str],
    ref: np.ndarray,
    prior: str,
    scale: float,
    fleet_sigma: float,
    per_unit: np.ndarray,
    tot_count: np.ndarray,
    tot_exposure: np.ndarray,
    kwargs: dict,
):
    """Build the PyMC model of the module docstring and sample it with NUTS.

    The pooled rates are parametrised around their exact conditional given (alpha, beta) and
    the categorised fleet's counts, Gamma(alpha + x_c, beta + t_c) (see the module docstring,
    "Sampler"), so that small alpha opens no funnel; the log fleet ratios centred or not as
    the counts pin them (:func:`centred_fleets`).
    """
    pm = import_pymc()
    import pytensor.tensor as pt

    t = pooled_exposure(main, ref, prior, scale)
    with pm.Model(coords={"category": main.categories, "fleet": names}):
        alpha, beta = pooled_hyperpriors_by_mean()
        pm.Potential("count_marginal", marginal_logp(main.count, t, alpha, beta).sum())
        # g_c = (beta + t_c) * pooled_c ~ Gamma(a_c, 1), a_c = alpha + x_c, given alpha and the
        # categorised fleet's counts, written g_c = h_c * U_c^(1 / a_c) with h_c ~ Gamma(a_c + 1,
        # 1) and U_c ~ Uniform(0, 1) independent (exact for every shape). v_c standardises
        # log h_c by its exact mean and sd, digamma and sqrt(trigamma) of a_c + 1, so v_c has
        # mean 0 and sd 1 for every alpha; e_c = -log U_c ~ Exponential(1). Standardising
        # log g_c itself left, for a zero-count category and small alpha, a wall in v_c as
        # steep as exp(v_c / alpha) (Gamma(a) density's cut at g ~ 1), where NUTS diverged
        a = alpha + main.count
        v = pm.Flat("v", dims="category")
        sd = pt.sqrt(pt.tri_gamma(a + 1.0))
        log_h = pt.psi(a + 1.0) + sd * v
        # density of v: Gamma(a + 1, 1) density of h times |dh/dv| = h * sd
        logp_v = (a + 1.0) * log_h - pt.exp(log_h) - pt.gammaln(a + 1.0) + pt.log(sd)
        pm.Potential("pooled_given_counts", logp_v.sum())
        e = pm.Exponential("e", 1.0, dims="category")
        log_g = log_h - e / a
        log_pooled = pm.Deterministic("log_pooled", log_g - pt.log(beta + t), dims="category")
        kappa = pt.exp(log_pooled) * (t / main.exposure)  # the categorised fleet's rates
        sigma = pm.HalfNormal("sigma", sigma=fleet_sigma)
        expected = _expected_totals(main, per_unit, tot_exposure)
        centred = centred_fleets(tot_count, main.count, fleet_sigma, expected)
        log_mult = _log_ratios(pm, pt, sigma, centred)
        mu_tot = pt.exp(log_mult) * tot_exposure * pt.dot(per_unit, kappa)
        pm.Poisson("total_count", mu=mu_tot, observed=tot_count)
        return pm.sample(**kwargs)


def _expected_totals(main, per_unit: np.ndarray, tot_exposure: np.ndarray) -> np.ndarray:
    """Each total's expected count at delta = 0 (:func:`centred_fleets`).

    The categorised fleet's rates at their estimates ``(x_c + 1/(2C)) / E_c``.
    """
    return tot_exposure * (per_unit @ ((main.count + 0.5 / main.n) / main.exposure))


def pinned_near_zero(
    tot_count: np.ndarray, main_count: np.ndarray, fleet_sigma: float, tot_expected: np.ndarray
) -> np.ndarray:
    r"""Total-only fleets whose log ratio the counts pin near 0.

    The data's sd of :math:`\delta_k` is below ``CENTRED_SD`` x ``fleet_sigma`` but its
    estimate is within ``CENTRED_APART`` sds of 0: sampled non-centred
    (:func:`centred_fleets`), these leave a thin ridge at large :math:`\sigma` (the ratio
    pinned, the standard normal behind it squeezed), which NUTS crosses only with smaller
    steps: :func:`fit_fleets` then samples at ``PINNED_TARGET_ACCEPT``.
    """
    sd, z = _ratio_sd_and_z(tot_count, main_count, tot_expected)
    return (sd < CENTRED_SD * fleet_sigma) & (np.abs(z) <= CENTRED_APART)


def centred_fleets(
    tot_count: np.ndarray,
    main_count: np.ndarray,
    fleet_sigma: float,
    tot_expected: np.ndarray | None = None,
) -> np.ndarray:
    r"""Which total-only fleets' log ratios :math:`\delta_k` NUTS samples centred.

    The data's sd of :math:`\delta_k`, about :math:`\sqrt{1 / (X_k + 1/2) + 1 / (\sum_c x_c +
    1/2)}` (two Poisson log rates), against the prior's scale: centred where it is below
    ``CENTRED_SD`` x ``fleet_sigma`` (the counts pin :math:`\delta_k`) and the estimate
    :math:`\hat\delta_k = \log((X_k + 1/2) / \hat\mu_k)` is more than ``CENTRED_APART`` of
    those sds from 0, non-centred elsewhere. :math:`\hat\mu_k` (``tot_expected``) is the
    total's expected count at :math:`\delta_k = 0` with the categorised fleet's rates at
    :math:`(x_c + 1/(2C)) / E_c`; without it only the sd is used. A pinned :math:`\delta_k`
    near 0 lets :math:`\sigma` reach 0, the centred funnel's neck, where NUTS diverged
    (benchmarks/VALIDATION.md, the ``CENTRED_SD`` sweep).
    """
    sd, z = _ratio_sd_and_z(tot_count, main_count, tot_expected)
    centred = sd < CENTRED_SD * fleet_sigma
    if tot_expected is not None:
        centred &= np.abs(z) > CENTRED_APART
    return centred


def _ratio_sd_and_z(tot_count, main_count, tot_expected):
    """Return the data's sd of each log fleet ratio, and its estimate in those sds."""
    tot_count = np.asarray(tot_count, dtype=float)
    sd = np.sqrt(1.0 / (tot_count + 0.5) + 1.0 / (np.sum(main_count) + 0.5))
    if tot_expected is None:
        return sd, np.full_like(sd, np.nan)
    return sd, np.log((tot_count + 0.5) / np.asarray(tot_expected)) / sd


def _log_ratios(pm, pt, sigma, centred: np.ndarray):
    r"""Add the log fleet ratios ``delta`` (total-only fleets) to the current model.

    Prior :math:`\delta \sim \mathcal N(0, \sigma^2 S)`, :math:`S = I + 11^T`. Fleets in
    ``centred`` (set C) are sampled directly, ``delta_centred`` with prior
    :math:`\mathcal N(0, \sigma^2 S_{CC})`; the others (set N) given them, non-centred:
    :math:`\delta_N = S_{NC} S_{CC}^{-1} \delta_C + \sigma L w`, :math:`L L^T = S_{NN} -
    S_{NC} S_{CC}^{-1} S_{CN}`, ``delta_std`` :math:`= w \sim \mathcal N(0, I)`. The
    product of the two is the prior of :math:`\delta` (a change of variables with no data in
    it), so the posterior is the model's; only NUTS's geometry changes.
    """
    n = centred.size
    cov = np.eye(n) + np.ones((n, n))
    c_idx, n_idx = np.flatnonzero(centred), np.flatnonzero(~centred)
    parts = [None] * n
    if c_idx.size:
        s_cc = cov[np.ix_(c_idx, c_idx)]
        d_c = pm.MvNormal(
            "delta_centred", mu=np.zeros(c_idx.size), chol=sigma * np.linalg.cholesky(s_cc)
        )
        for j, i in enumerate(c_idx):
            parts[i] = d_c[j]
    if n_idx.size:
        s_nn = cov[np.ix_(n_idx, n_idx)]
        if c_idx.size:
            gain = cov[np.ix_(n_idx, c_idx)] @ np.linalg.inv(s_cc)
            mean = pt.dot(gain, d_c)
            s_nn = s_nn - gain @ cov[np.ix_(c_idx, n_idx)]
        else:
            mean = pt.zeros(n_idx.size)
        w = pm.Normal("delta_std", 0.0, 1.0, shape=n_idx.size)
        d_n = mean + sigma * pt.dot(np.linalg.cholesky(s_nn), w)
        for j, i in enumerate(n_idx):
            parts[i] = d_n[j]
    return pm.Deterministic("delta", pt.stack(parts))


def _fleet_draws(
    post: xr.Dataset,
    main: Observations,
    ref: np.ndarray,
    prior: str,
    scale: float,
    per_unit: np.ndarray,
    pred_rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Return per-draw rates: each fleet's, a new fleet's, and each fleet's total."""
    t = pooled_exposure(main, ref, prior, scale)
    kappa_d = np.exp(post["log_pooled"].values) * (t / main.exposure)  # (chain, draw, category)
    sig = post["sigma"].values
    delta = post["delta"].values  # (chain, draw, total fleet)
    n_fleets = delta.shape[-1] + 1
    mult = np.exp(np.concatenate([np.zeros(sig.shape + (1,)), delta], axis=-1))
    fleet_rate = kappa_d[:, :, None, :] * mult[..., None]  # (chain, draw, fleet, category)
    # New fleet: sigma * (z_new - z_1). Given w_k = z_k - z_1 = delta_k / sigma (k >= 2), the
    # iid Normal(0, 1) z's give z_1 | w ~ Normal(-sum(w) / K, 1 / K) for K fleets, exactly.
    w_sum = delta.sum(-1) / sig
    z1 = -w_sum / n_fleets + pred_rng.standard_normal(sig.shape) / np.sqrt(n_fleets)
    z_new = pred_rng.standard_normal(sig.shape)
    new_rate = kappa_d * np.exp(sig * (z_new - z1))[..., None]
    # units per unit of each fleet's reported unit; the categorised fleet reports per
    # fleet-hour, with E_c / D units of category c (NaN without a duration)
    duration = main.attrs.get("duration_hours", 0)
    ok = isinstance(duration, int | float) and math.isfinite(duration) and duration > 0
    main_units = main.exposure / float(duration) if ok else np.full(main.n, np.nan)
    per_unit_all = np.vstack([main_units, per_unit])
    return {
        "category_rate": kappa_d,
        "fleet_rate": fleet_rate,
        "fleet_multiplier": mult,
        "rate": new_rate,
        "fleet_total": np.einsum("cdfk,fk->cdf", fleet_rate, per_unit_all),
    }


def _data_groups(
    main: Observations,
    names: list[str],
    totals: list[Observations],
    ref: np.ndarray,
    tot_count: np.ndarray,
    tot_exposure: np.ndarray,
) -> dict[str, xr.Dataset]:
    """Return observed_data and constant_data of the categorised fleet plus the totals."""
    groups = data_groups(main)
    fleet_coord = {"fleet": names}
    groups["observed_data"]["total_count"] = xr.DataArray(
        np.concatenate([[main.count.sum()], tot_count]), dims="fleet", coords=fleet_coord
    )
    groups["constant_data"]["ref_units"] = ("category", ref)
    groups["constant_data"]["total_exposure"] = xr.DataArray(
        np.concatenate([[np.nan], tot_exposure]),
        dims="fleet",
        coords=fleet_coord,
        attrs={"units": "unit-hours of each total-only fleet's unit (NaN: categorised)"},
    )
    groups["constant_data"]["total_unit"] = xr.DataArray(
        np.array(["fleet"] + [str(f.unit[0]) for f in totals]), dims="fleet", coords=fleet_coord
    )
    return groups
