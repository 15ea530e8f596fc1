"""Projections over cluster size: posterior failure rates → interruptions, MTTF and ETTR bands.

:func:`project` runs :func:`relmc.simulate` once per cluster size, one posterior draw per
trial, and reports two kinds of interval, each labelled:

*posterior predictive* (``ettr_quantile``, ``interruptions_per_day_quantile``, ...)
    quantiles over trials: where *one* job will land, mixing parameter uncertainty (which rates
    are true) with the randomness of its own timeline (when the failures strike);
*credible* (``ettr_credible``, ``interruptions_per_day_credible``, ``mttf_hours_quantile``)
    quantiles over posterior draws of an *expected* value: parameter uncertainty alone. The
    job MTTF is a function of the rates, so its quantiles come straight from every rate draw.
    The expected ETTR and interruptions per day of a draw are estimated from the
    ``trials_per_draw`` trials that share it, in a second simulation of ``credible_trials``
    trials (:func:`relmc.rates.nested_draws`; the predictive trials keep one draw each, so
    they stay independent and their Monte Carlo standard errors exact), in two parts
    (:func:`credible_quantiles`):

    1. *what the draw's failure rate explains*: the trials' values are regressed on the
       draw's job failure rate ``Lambda(N)``, known exactly for every draw (a line, or a
       quadratic where the square stands out of the noise: beyond 2 standard errors,
       clustered by draw; least squares over all trials), so this part carries no per-draw
       noise and its quantiles follow the rate's posterior, shape included;
    2. *what it leaves* (the categories' mix, a draw's overhead multipliers, curvature):
       each draw's mean residual still holds Monte Carlo noise of variance ``s_w^2 / m``
       (``s_w^2`` the pooled variance within draws), so the residual means are pulled
       towards their mean by ``sqrt(V_b / V)`` (``V`` their variance, ``V_b = V - mean
       (s_w^2 / m)``): their spread then matches the between-draw variance (exact for the
       variance, approximate for the shape). It is kept however noisy its estimate: left out
       where it did not stand out of the noise (2 standard errors), an interval of draws that
       differ in their categories' mix more than in their total rate fell to 5-20 % of its
       width in half the seeds (``tests/test_projection.py``).

    Without the first part (the per-draw means alone shrunk, as before), a job of 0-1
    events put a step of the Poisson noise into the interval: its 5 % and 25 % quantiles one
    value, the 5 % at 0.010-0.013 against a truth of 0.0046 interruptions a day
    (``tests/test_projection.py``). The values stay in the range the trials took. With one
    posterior draw (point rates) the credible interval is a point.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr

from relmc._cf import provenance
from relmc._seed import CREDIBLE_KEY, child_seed, resolve_seed, seed_attrs
from relmc.cluster import check_gpus, shape_attrs
from relmc.errors import FieldError, NotFinishedWarning
from relmc.rates import (
    RateDraws,
    check_draws,
    draw_of_trial,
    exposed_fraction,
    fit_labels,
    fit_shape,
    job_rates,
    mttf_hours,
    nested_draws,
    rate_draws,
)
from relmc.scenario import Cluster, FailureModel, Scenario, replace_path
from relmc.sim.simulate import (
    BLOCK_SIZE,
    MAX_TRIALS,
    OVERHEAD_KEY,
    Precision,
    check_n_trials,
    kernel_inputs,
    simulate,
    unread_warnings_from_callers,
    warn_unread,
)
from relmc.summary import QUANTILES, summarize

__all__ = [
    "DEFAULT_SIZES",
    "QUANTILES",
    "INTERVAL_DEFINITION",
    "TRIALS_PER_DRAW",
    "CREDIBLE_TRIALS",
    "project",
    "credible_quantiles",
    "default_scenario",
    "check_sizes",
    "size_seed",
]

#: Cluster sizes of a default projection: powers of two from 2,048 to 131,072 GPUs.
DEFAULT_SIZES: tuple[int, ...] = tuple(2048 * 2**k for k in range(7))

INTERVAL_DEFINITION = (
    "median and central 50%/90% intervals (quantiles 0.25-0.75 and 0.05-0.95). *_quantile: "
    "posterior predictive for one job, quantiles over trials, each trial with a posterior "
    "draw (parameter uncertainty and the job's own luck); *_credible: credible intervals of "
    "the expected value, quantiles over posterior draws of the mean over the trials sharing "
    "each draw in a separate simulation (credible_trials, trials_per_draw per draw): a "
    "regression on each draw's job failure rate, plus what it leaves with its Monte Carlo "
    "noise removed by moment matching (parameter uncertainty only); "
    "mttf_hours_quantile: credible, quantiles of 1/Lambda(N) over all posterior rate draws"
)

#: Default trials per posterior draw of the credible-interval simulation: the within-draw noise
#: is estimated from the repeats, and 4 of them cut it to a quarter of a trial's variance.
TRIALS_PER_DRAW = 4

#: Default (and, with a larger ``n_trials``, the cap of) ``credible_trials``: 500 draws of 4
#: trials, enough for the 5% and 95% quantiles over draws.
CREDIBLE_TRIALS = 2000

#: Spawn-key entry of the credible simulation's seed below each size's seed (2**32 - 1; the
#: reserved keys' table is in ``relmc._seed``): the predictive blocks' keys never reach it.
_CREDIBLE_KEY = CREDIBLE_KEY


def check_sizes(n_gpus) -> list[int]:
    """Validate cluster sizes and return them sorted and without repeats.

    Parameters
    ----------
    n_gpus : int or sequence of int or None
        GPUs per job, each an integer in [1, 1e8]; ``None`` gives ``DEFAULT_SIZES``.

    Returns
    -------
    list of int
        The sizes, ascending.

    Raises
    ------
    ValueError
        Naming ``n_gpus`` and the allowed range, for an empty list or a bad entry.
    """
    if n_gpus is None:
        return list(DEFAULT_SIZES)
    if np.ndim(n_gpus) > 1:
        raise FieldError(
            "n_gpus", f"n_gpus must be an integer or a flat list of integers; got {n_gpus!r}"
        )
    values = [n_gpus] if np.ndim(n_gpus) == 0 else list(np.asarray(n_gpus, dtype=object).ravel())
    if not values:
        raise FieldError(
            "n_gpus", "n_gpus must be a non-empty list of integers in [1, 1e8]; got []"
        )
    out = []
    for v in values:
        out.append(check_gpus(v, "n_gpus"))
    return sorted(set(out))


def default_scenario(posterior=None, data: xr.Dataset | None = None) -> Scenario:
    """Return the scenario a projection uses when none is given.

    Parameters
    ----------
    posterior : arviz.InferenceData, optional
        A fit from :mod:`relmc.models`: the failure model gets its categories (with relmc's
        default detection latency and recovery kind, see
        :meth:`relmc.FailureModel.from_categories`) and posterior-mean rates. ``None`` gives
        :meth:`relmc.Scenario.default` (Llama 3 point rates, with planned maintenance).
    data : xarray.Dataset, optional
        The observations the posterior was fitted to. When they carry ``maintenance_count``
        and ``attrs["duration_hours"]`` (Llama 3: 47 planned interruptions in 1,296 h),
        planned maintenance is added at that rate (job level). Without ``data`` the rate the
        fit recorded is used (see :meth:`relmc.FailureModel.from_posterior`).

    Returns
    -------
    Scenario
        The cluster shape the fit recorded (its data's: :func:`relmc.rates.fit_shape`; else
        Llama 3's), and the default job (54 days of compute) and policy (30-minute
        checkpoints with 1-minute blocking snapshots, 10-minute restarts, unlimited spares).
    """
    if posterior is None:
        return Scenario.default()
    kwargs = {}
    if data is not None and "maintenance_count" in data and data.attrs.get("duration_hours", 0) > 0:
        kwargs["maintenance_rate"] = float(data["maintenance_count"]) / float(
            data.attrs["duration_hours"]
        )
    failures = FailureModel.from_posterior(posterior, **kwargs)
    shape = fit_shape(posterior)
    if shape is None:
        return Scenario(failures=failures)
    return Scenario(cluster=Cluster(**shape_attrs(shape)), failures=failures)


def given_scenario(scenario, posterior) -> Scenario:
    """Return the scenario a projection or a search runs: ``scenario``, else the default.

    A bad ``posterior`` (or a bad draw of it) is named as the posterior's here, not as the
    rate of the scenario built from its means. Raises ``ValueError`` where ``scenario`` is
    given and is not a :class:`relmc.Scenario`. The default is :func:`default_scenario`
    of ``posterior``.
    """
    if posterior is not None:
        check_draws(posterior)
    if scenario is None:
        scenario = default_scenario(posterior)
    if not isinstance(scenario, Scenario):
        raise ValueError(f"scenario must be a relmc.Scenario; got {type(scenario).__name__}")
    return scenario


def size_seed(root: np.random.SeedSequence, n_gpus: int) -> np.random.SeedSequence:
    """Seed of the simulation at ``n_gpus``: ``SeedSequence(entropy, spawn_key + (n_gpus,))``.

    Keyed by the size itself, not its position, so a size's result does not depend on which
    other sizes are projected with it.
    """
    return child_seed(root, int(n_gpus))


def project(
    posterior=None,
    *,
    n_gpus: int | Sequence[int] | None = None,
    scenario: Scenario | None = None,
    n_trials: int = 2000,
    seed=None,
    n_threads: int | None = None,
    progress: bool | None = None,
    precision: Precision | None = None,
    keep_trials: bool = False,
    credible_trials: int | None = None,
    trials_per_draw: int = TRIALS_PER_DRAW,
) -> xr.Dataset:
    """Project interruptions, MTTF and ETTR over cluster sizes, with posterior bands.

    For each size ``N`` the scenario's ``cluster.n_gpus`` is set to ``N`` and
    :func:`relmc.simulate` runs ``n_trials`` jobs, trial ``i`` with posterior draw
    ``i % n_draws``, seeded by ``size_seed()``: the posterior-predictive intervals. A second
    simulation of ``credible_trials`` jobs in groups of ``trials_per_draw`` that share a draw
    (the first ``ceil(credible_trials / trials_per_draw)`` draws, draw-major over chains;
    :func:`relmc.rates.nested_draws`) gives the credible intervals of the expected values
    (module docstring). The result depends only on the inputs and ``seed``, whatever
    ``n_threads``.

    Parameters
    ----------
    posterior : arviz.InferenceData, DataArray or None
        Failure-rate posterior from :mod:`relmc.models` (``posterior["rate"]`` per unit-hour),
        or such rate draws themselves with a ``category`` dim (e.g. one observed fleet's,
        ``idata.posterior["fleet_rate"].sel(fleet=NAME)`` of :func:`relmc.fit_fleets`); their
        ``attrs`` carry the observation record a fit writes on ``posterior["rate"]``
        (``n_gpus``, ``exposure_clock``, ``maintenance_rate``; see
        :func:`relmc.fit_fleets`), without which they are per exposed hour and add no
        planned maintenance. The record's ``maintenance_rate`` (read from an
        InferenceData's ``posterior.attrs`` first, as the fits write it there too) sets the
        default scenario's planned maintenance; a ``scenario`` given keeps its own.
        ``None`` uses the scenario's point rates (one draw, no parameter uncertainty).
    n_gpus : int or sequence of int, optional
        Cluster sizes (GPUs), integers in [1, 1e8]; default ``DEFAULT_SIZES``
        (2,048 to 131,072 in powers of two). The result's ``n_gpus`` holds them ascending,
        each once (select by label, ``.sel(n_gpus=N)``, not by the order given); a size's
        numbers do not depend on the other sizes given.
    scenario : Scenario, optional
        Everything but the size; default ``default_scenario()`` of ``posterior`` (Llama 3
        default policy, no planned maintenance unless given the data; see there).
    n_trials : int
        Simulated jobs per size, in [1, 1e8].
    seed : int, SeedSequence, Generator or None
        Root of randomness, recorded in ``attrs`` (fresh entropy when ``None``).
    n_threads : int, optional
        Threads for the kernel (default: all cores).
    progress : bool, optional
        Progress bar over sizes (tqdm); default: only when stderr is a terminal.
    precision : relmc.Precision, optional
        Adaptive precision per size: ``n_trials`` becomes a budget, and each size stops once
        its ETTR standard error meets the target or it is hopeless (see
        :class:`relmc.Precision`); ``n_trials`` and ``stopped_by`` (n_gpus) record what ran.
        It applies to the predictive simulation only: the credible simulation always runs its
        ``credible_trials``.
    keep_trials : bool
        Also keep each trial's ETTR, ``ettr`` (n_gpus, trial), with coordinate ``draw``
        (trial): the posterior draw trial ``i`` used, the same at every size, so results can
        be paired by draw later. With ``precision``, trials a size did not run are NaN.
        Default ``False`` (the result is then unchanged).
    credible_trials : int, optional
        Jobs of the credible-interval simulation at each size, in [0, 1e8]; default
        ``min(n_trials, CREDIBLE_TRIALS)`` (2,000), at least two draws' worth (``2 x
        trials_per_draw``) with several posterior draws. 0 skips it (the ``*_credible``
        variables are then NaN). Given, it must leave two posterior draws or more.
    trials_per_draw : int
        Jobs sharing each posterior draw in that simulation, in [2, 1e8] (default
        ``TRIALS_PER_DRAW``, 4): more trials per draw mean less noise in each draw's mean,
        fewer draws for its quantiles.

    Returns
    -------
    xarray.Dataset
        Dims ``n_gpus``, ``quantile`` (0.05, 0.25, 0.5, 0.75, 0.95), ``cause`` and
        ``category`` (with its ``unit``). Times in hours.

        ``mttf_hours_quantile`` (n_gpus, quantile)
            Posterior of the job's mean time to an unexpected interruption, ``1/Lambda(N)``
            on the exposed clock (:func:`relmc.rates.mttf_hours`: every category, its rate
            multiplier applied, planned maintenance left out), computed exactly from
            every rate draw (parameter uncertainty only: a credible interval); the quantiles
            are NumPy's default (linear interpolation between order statistics).
        ``interruptions_per_day_quantile`` (n_gpus, quantile)
            Posterior predictive of one job's unexpected interruptions per wall-clock day.
        ``interruptions_per_day_credible`` (n_gpus, quantile)
            Credible interval of the expected interruptions per wall-clock day.
        ``ettr_quantile`` (n_gpus, quantile), ``ettr_mean``, ``ettr_se`` (n_gpus)
            Effective training time ratio of one job (posterior predictive); ``_se`` is the
            Monte Carlo standard error of the mean.
        ``ettr_credible`` (n_gpus, quantile)
            Credible interval of the expected ETTR (see the module docstring).
        ``ettr_credible_noise``, ``interruptions_per_day_credible_noise`` (n_gpus)
            Share of the per-draw means' variance that is Monte Carlo noise
            (``credible_quantiles()``); near 1 (few events a job) the credible interval is
            resolved only as far as the draws' failure rates explain it.
        ``exposed_fraction_mean`` (n_gpus)
            Mean over draws of the share of the observation window the observed job was
            exposed (:func:`relmc.rates.exposed_fraction`; 1 when the rates are per exposed
            hour); the fitted rates were divided by it.
        ``<v>_mean``, ``<v>_se``, ``<v>_quantile``
            Every per-trial output *v* of :func:`relmc.simulate`, summarised over the
            trials at each size as :func:`relmc.summarize` does, with the output's own dims
            before ``quantile``: e.g. ``wall_hours_quantile`` (n_gpus, quantile),
            ``lost_hours_mean`` and ``lost_hours_quantile`` (n_gpus, cause[, quantile]),
            ``interruptions_mean`` (n_gpus, category: unexpected interruptions per job),
            ``power_swings_per_day_*``, ``sdc_rollbacks_*`` and the node model's counts.
        ``interruptions_per_day_by_category_*``, ``maintenance_per_day_*``
            Unexpected interruptions by category and planned interruptions, per wall-clock
            day.
        ``lost_fraction_mean`` (n_gpus, cause)
            Mean lost hours / mean wall hours.
        ``finished_fraction``, ``finished_fraction_se``, ``n_trials``, ``stopped_by``
            (n_gpus): the fraction of trials that finished before the wall cap or the event
            budget, the trials run and why they stopped (``"n_trials"``: the budget ran out
            before the rule was met, ``"target"`` or ``"hopeless"``).
        ``checkpoint_interval_hours`` (n_gpus)
            The checkpoint interval used (rules are evaluated at each size).

        ``ettr`` (n_gpus, trial), coordinate ``draw`` (trial)
            Only with ``keep_trials``: per-trial ETTR and the posterior draw of each trial.

        ``attrs``: ``interval_definition``, ``scenario`` (JSON: the scenario given, whose
        ``cluster.n_gpus`` is not one simulated; the sizes are the ``n_gpus`` coordinate),
        ``seed_entropy``, ``seed_spawn_key``, ``seed_rule``, ``n_trials``, ``n_draws`` (all
        posterior draws), ``credible_trials``, ``trials_per_draw``, ``n_draws_credible``,
        ``dataset``, ``time_units``, ``exposure_clock``. Writable to netCDF and re-loadable.

    Raises
    ------
    ValueError
        For bad sizes, trials, seed, scenario or posterior, before anything is simulated.
    """
    sizes = check_sizes(n_gpus)
    n_trials = check_n_trials(n_trials)
    if not isinstance(keep_trials, bool | np.bool_):
        raise FieldError("keep_trials", f"keep_trials must be True or False; got {keep_trials!r}")
    given_credible = credible_trials is not None
    if credible_trials is None:
        credible_trials = min(n_trials, CREDIBLE_TRIALS)
    elif not (
        isinstance(credible_trials, int | np.integer)
        and not isinstance(credible_trials, bool | np.bool_)
        and credible_trials == 0
    ):
        try:
            credible_trials = check_n_trials(credible_trials, "credible_trials")
        except FieldError:
            raise FieldError(
                "credible_trials",
                f"credible_trials must be 0 (none) or an integer in [1, {MAX_TRIALS:.0e}]; "
                f"got {credible_trials!r}",
            ) from None
    if (
        isinstance(trials_per_draw, bool | np.bool_)
        or not isinstance(trials_per_draw, int | np.integer)
        or not 2 <= trials_per_draw <= MAX_TRIALS
    ):
        raise FieldError(
            "trials_per_draw",
            f"trials_per_draw must be an integer in [2, {MAX_TRIALS:.0e}]; got {trials_per_draw!r}",
        )
    scenario = given_scenario(scenario, posterior)
    root = resolve_seed(seed)
    # the source itself, not only its rates: an event fit's physics is drawn per trial
    draws = rate_draws(scenario, posterior)
    if 0 < credible_trials <= trials_per_draw and draws.n_draws > 1:  # one posterior draw
        if given_credible:
            raise FieldError(
                "credible_trials",
                f"credible_trials ({credible_trials}) / trials_per_draw ({trials_per_draw}) "
                "leaves one posterior draw: a credible interval needs several; give "
                f"credible_trials above trials_per_draw ({int(trials_per_draw)}), or 0 to "
                "skip it",
            )
        credible_trials = 2 * int(trials_per_draw)  # the default from a small n_trials
    nested = nested_draws(draws, max(credible_trials, 1), int(trials_per_draw))
    # build every size's inputs first: a bad scenario/posterior combination fails before work
    scenarios = [replace_path(scenario, "cluster.n_gpus", n) for n in sizes]
    labels = [kernel_inputs(sc, draws, 1)[1] for sc in scenarios]
    warn_unread(scenarios, labels)  # once, not per size and simulation
    if progress is None:
        progress = sys.stderr.isatty()

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(sizes), desc="project", unit="size", leave=False)
    rows = []
    per_trial = np.full((len(sizes), n_trials), np.nan) if keep_trials else None
    for i, (n, sc) in enumerate(zip(sizes, scenarios, strict=True)):
        if bar is not None:
            bar.set_postfix_str(f"{n:,} GPUs")
        with unread_warnings_from_callers():  # warned once above, for every size
            res = simulate(
                sc,
                rates=draws,
                n_trials=n_trials,
                seed=size_seed(root, n),
                n_threads=n_threads,
                progress=False,
                precision=precision,
                overhead_seed=root,  # one multiplier per posterior draw at every size
            )
            cred = None
            if credible_trials:
                cred = simulate(
                    sc,
                    rates=nested,
                    n_trials=credible_trials,
                    seed=child_seed(size_seed(root, n), _CREDIBLE_KEY),
                    n_threads=n_threads,
                    progress=False,
                    overhead_seed=root,
                )
        rows.append(_summarize_size(res, sc, draws, cred, nested))
        if per_trial is not None:
            per_trial[i, : res.sizes["trial"]] = res["ettr"].values
        warn_not_finished(res, f"at n_gpus={n:,}")
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()

    ds = xr.concat(rows, dim="n_gpus", coords="minimal", compat="override", join="override")
    ds = ds.assign_coords(n_gpus=("n_gpus", np.array(sizes, dtype=np.int64)))
    ds["n_gpus"].attrs = {"long_name": "GPUs in the job", "units": "1"}
    ds["quantile"].attrs = {
        "long_name": "quantile level: over trials (*_quantile) or over posterior draws "
        "(*_credible, mttf_hours_quantile)"
    }
    if per_trial is not None:
        ds["ettr"] = xr.DataArray(
            per_trial,
            dims=("n_gpus", "trial"),
            coords={
                "trial": np.arange(n_trials),
                "draw": ("trial", draw_of_trial(n_trials, draws.n_draws)),
            },
            attrs={
                "units": "1",
                "long_name": "ETTR per trial (NaN: not run, adaptive precision stopped first)",
            },
        )
        ds["draw"].attrs = {
            "long_name": "posterior rate draw of each trial (draw-major over chains)"
        }
    ds.attrs = {
        "title": "relmc projection over cluster size",
        "interval_definition": INTERVAL_DEFINITION,
        "scenario": json.dumps(scenario.to_dict()),
        **seed_attrs(root),
        "seed_rule": "size N is simulated with SeedSequence(seed_entropy, seed_spawn_key + [N]), "
        f"in blocks of {BLOCK_SIZE} trials, block b with spawn key + [N, b]; the credible "
        f"simulation at N with spawn key + [N, {_CREDIBLE_KEY}] (its blocks + [N, "
        f"{_CREDIBLE_KEY}, b]); the overhead multipliers of each posterior draw (the policy's "
        f"*_spread) from spawn key + [{OVERHEAD_KEY}], the same at every size",
        "n_trials": n_trials,
        "n_draws": draws.n_draws,
        "credible_trials": int(credible_trials),
        "trials_per_draw": int(trials_per_draw),
        "n_draws_credible": int(np.unique(nested.rows).size) if credible_trials else 0,
        "rates_source": draws.source,
        "exposure_clock": (
            f"fitted per wall-clock hour of a window observed on {draws.observed_gpus} GPUs; "
            "divided by exposed_fraction_mean for the simulation"
            if draws.observed_gpus
            else "rates per exposed hour, used as they are"
        ),
        **fit_labels(posterior),
        "time_units": "hours",
        **provenance(),
    }
    return ds


def warn_not_finished(res: xr.Dataset, where: str, stacklevel: int = 3) -> None:
    """Warn (:class:`~relmc.errors.NotFinishedWarning`) when trials hit the wall-clock cap."""
    finished = res["finished"].values
    if finished.all():
        return
    share = 1.0 - float(finished.mean())
    warnings.warn(
        f"{where}, {100 * share:.3g}% of trials did not finish, stopped by the wall-clock "
        "cap (policy.wall_cap_factor x job.compute_hours) or the event budget "
        "(policy.max_events): their ETTR and lost time are measured where they stopped, so "
        "the results are bounds, not estimates",
        NotFinishedWarning,
        stacklevel=stacklevel,
    )


def credible_quantiles(
    values: np.ndarray,
    draw: np.ndarray,
    quantiles: Sequence[float] = QUANTILES,
    covariate: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Quantiles over posterior draws of the expected value of a per-trial quantity.

    Parameters
    ----------
    values : ndarray, shape (n_trials,)
        The quantity per trial (e.g. ETTR), finite.
    draw : ndarray of int, shape (n_trials,)
        The posterior draw of each trial; trials with the same draw share its rates.
    quantiles : sequence of float
        Levels in [0, 1].
    covariate : ndarray, shape (n_trials,), optional
        A known function of each trial's draw, finite and the same for every trial of a draw
        (the projection gives the draw's job failure rate ``Lambda(N)``). The values are
        regressed on it (least squares over the trials: a line, or a quadratic where the
        square's coefficient is beyond 2 standard errors clustered by draw; with fewer than
        three distinct values a line, with one the mean), and a draw's expected value is the
        regression at its covariate plus its share of what the regression leaves (module
        docstring). ``None``: no regression.

    Returns
    -------
    quantiles : ndarray, shape (len(quantiles),)
        Quantiles of the per-draw expected values (module docstring), within the range of
        ``values``. One draw: its mean at every level. NaN when there are several draws but
        none with two or more trials (the noise cannot be estimated).
    noise : float
        Share of the per-draw means' variance that is Monte Carlo noise, in [0, 1] (0 with
        one draw, NaN with no estimate). Near 1 a job sees few events: what the covariate
        does not explain is then not resolved from the noise, so the interval is reliable
        only as far as the covariate explains the draws: more trials per draw resolve it.
    """
    q = np.asarray(quantiles, dtype=float)
    x = np.asarray(values, dtype=float)
    draw = np.asarray(draw)
    if x.ndim != 1 or not np.isfinite(x).all():
        raise FieldError("values", "values must be a 1-d array of finite numbers")
    if draw.shape != x.shape:
        raise FieldError("draw", f"draw must have the shape of values {x.shape}; got {draw.shape}")
    _, group, m = np.unique(draw, return_inverse=True, return_counts=True)
    if covariate is not None:
        covariate = np.asarray(covariate, dtype=float)
        if covariate.shape != x.shape or not np.isfinite(covariate).all():
            raise FieldError(
                "covariate", f"covariate must be finite numbers of the shape of values {x.shape}"
            )
        first = np.zeros(m.size)
        first[group] = covariate
        if not np.array_equal(first[group], covariate):
            raise FieldError("covariate", "covariate must be the same for every trial of a draw")
    raw = np.bincount(group, weights=x) / m
    if raw.size == 1:
        return np.full(q.size, raw[0]), 0.0
    multi = m >= 2
    if not multi.any():
        return np.full(q.size, np.nan), math.nan
    fit_draw, fit = _rate_regression(x, group, m, covariate)
    resid = x - fit
    means = np.bincount(group, weights=resid) / m
    within = np.bincount(group, weights=(resid - means[group]) ** 2)
    s2_within = within[multi].sum() / (m[multi] - 1).sum()
    noise = s2_within * np.mean(1.0 / m)
    centre = means.mean()
    total = means.var(ddof=1)
    between = max(total - noise, 0.0)
    shrink = math.sqrt(between / total) if total > 0 else 0.0
    expected = fit_draw + centre + (means - centre) * shrink
    spread = raw.var(ddof=1)
    share = min(noise / spread, 1.0) if spread > 0 else 1.0
    return np.quantile(np.clip(expected, x.min(), x.max()), q), float(share)


def _rate_regression(
    x: np.ndarray, group: np.ndarray, m: np.ndarray, covariate: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Least squares of ``x`` on the draws' covariate: (per draw, per trial).

    A line, or a quadratic where its square term stands out: beyond 2 standard errors,
    clustered by draw (the trials of a draw share its covariate; few events make the
    residuals far from normal). The covariate is standardised over the draws (after scaling
    by its largest magnitude, so that no scale overflows) so that the columns are of one
    scale; one distinct value gives the mean alone.
    """
    n_draws = m.size
    if covariate is None:
        return np.zeros(n_draws), np.zeros(x.size)
    c_draw = np.zeros(n_draws)
    c_draw[group] = covariate  # one value a draw (checked by the caller)
    if np.ptp(c_draw) == 0:
        mean = np.full(n_draws, x.mean())
        return mean, mean[group]
    c_draw = c_draw / np.abs(c_draw).max()  # of order 1 before its square: any scale
    z = (c_draw - c_draw.mean()) / c_draw.std()
    sums = np.bincount(group, weights=x)  # each draw's sum of values
    for degree in (2, 1) if np.unique(z).size > 2 else (1,):
        basis = np.column_stack([z**p for p in range(degree + 1)])
        weighted = basis * m[:, None]  # each draw's row once per trial of it
        gram_inv = np.linalg.pinv(basis.T @ weighted)
        beta = gram_inv @ (basis.T @ sums)
        if degree == 1:
            break
        resid_sum = sums - m * (basis @ beta)
        meat = (basis * resid_sum[:, None] ** 2).T @ basis
        se_square = math.sqrt(max((gram_inv @ meat @ gram_inv)[2, 2], 0.0))
        if abs(beta[2]) > 2.0 * se_square:
            break
    fit = basis @ beta
    return fit, fit[group]


def _summarize_size(
    res: xr.Dataset,
    sc: Scenario,
    draws: RateDraws,
    cred_res: xr.Dataset | None,
    nested: RateDraws,
) -> xr.Dataset:
    """One size's row: :func:`relmc.summarize`, the credible intervals, MTTF over all draws."""
    out = summarize(res, quantiles=QUANTILES)
    labels = {
        "ettr": ("1", "effective training time ratio"),
        "interruptions_per_day": ("1/d", "unexpected interruptions per wall-clock day"),
    }
    values: dict[str, np.ndarray] = {}
    draw = np.zeros(0, dtype=np.int64)
    rate = np.zeros(0)
    if cred_res is not None:
        draw = nested.rows[cred_res["draw"].values]
        rate = job_rates(sc, nested)[cred_res["draw"].values]  # Lambda(N) of each trial's draw
        wall = cred_res["wall_hours"].values
        values["ettr"] = cred_res["ettr"].values
        values["interruptions_per_day"] = (
            cred_res["interruptions"].sum("category").values * 24.0 / wall
        )
    for name, (units, what) in labels.items():
        if cred_res is None:
            cred, noise = np.full(len(QUANTILES), np.nan), math.nan
        else:
            cred, noise = credible_quantiles(values[name], draw, QUANTILES, rate)
        out[f"{name}_credible"] = xr.DataArray(
            cred,
            dims="quantile",
            attrs={
                "units": units,
                "long_name": f"expected {what}: credible interval over posterior draws",
                "interval": "credible (parameter uncertainty only)",
            },
        )
        out[f"{name}_credible_noise"] = (
            (),
            noise,
            {
                "units": "1",
                "long_name": f"Monte Carlo noise share of the per-draw means of {what}",
                "description": "near 1 (few events per job) the credible interval is "
                "resolved only as far as the draws' failure rates explain it: what else "
                "differs between draws is estimated from noise; raise trials_per_draw",
            },
        )
        out[f"{name}_quantile"].attrs.update(
            long_name=f"{what} of one job: posterior-predictive quantiles over trials",
            interval="posterior predictive (parameter uncertainty and the job's own luck)",
        )
    out["mttf_hours_quantile"] = xr.DataArray(
        np.quantile(mttf_hours(sc, draws), QUANTILES),
        dims="quantile",
        attrs={
            "units": "h",
            "long_name": "mean time to an unexpected interruption, 1/Lambda(N)",
            "description": "quantiles over posterior rate draws (no simulation noise), on the "
            "exposed clock",
            "interval": "credible (parameter uncertainty only)",
        },
    )
    out["exposed_fraction_mean"] = (
        (),
        float(exposed_fraction(sc, draws).mean()),
        {
            "units": "1",
            "long_name": "share of the observation window the observed job was exposed",
        },
    )
    out["checkpoint_interval_hours"] = (
        (),
        float(res.attrs["checkpoint_interval_hours"]),
        {"units": "h", "long_name": "compute between checkpoints"},
    )
    out["stopped_by"] = ((), str(res.attrs["stopped_by"]), {"long_name": "why trials stopped"})
    out = out.reset_coords(drop=True)
    out.attrs = {}
    return out.assign_coords(unit=("category", res["unit"].values))
