"""Policy choices under posterior uncertainty: the checkpoint interval that maximises ETTR.

Young's and Daly's intervals are optimal for one known failure rate and Daly's simplified
process. With uncertain rates, detection latency, node swaps and planned maintenance, the best
interval is found here by simulation: expected ETTR (mean over trials, one posterior draw per
trial) is evaluated on a grid of intervals around the Young/Daly values with *common random
numbers* (every interval simulated with the same seed, so differences between intervals are far
less noisy than the values themselves), the grid is refined around its best point, and the
chosen interval, Young's and Daly's are then compared on a second, independent set of trials, so
the reported gains are not inflated by having picked the winner on the same noise.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import xarray as xr

from relmc import _seed, analytic
from relmc._cf import provenance
from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.errors import FieldError, NotFinishedWarning
from relmc.projection import given_scenario
from relmc.rates import fit_labels, job_rates, rate_draws
from relmc.scenario import Scenario, replace_path
from relmc.sim.simulate import check_n_trials, kernel_inputs, simulate

__all__ = ["optimize_checkpoint", "RULES"]

#: Labels of the ``rule`` dim of :func:`optimize_checkpoint`'s result.
RULES: tuple[str, ...] = ("optimum", "young", "daly", "scenario")

#: Spawn-key entries of the search's and the final comparison's seeds below the root: keys no
#: fit uses (a conjugate fit's chain k draws from child (0, k), which child 0's block k was),
#: so a fit and an optimisation may share one seed.
SEARCH_KEY = _seed.SEARCH_KEY
FINAL_KEY = _seed.FINAL_KEY

_GRID_SPAN = 4.0  # default grid: Daly's interval / 4 .. x 4
_GRID_POINTS = 15
_REFINE_POINTS = 9
_MAX_EXTEND = 4


def _interval_grid(center: float, span: float, n: int) -> np.ndarray:
    return np.geomspace(center / span, center * span, n)


def _check_intervals(intervals, lo: float, persist: float) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(intervals, dtype=object))
    bound = f"policy.persist_hours ({lo:g})" if lo == persist else f"{lo:g} h"
    out = []
    for v in arr.ravel():
        ok = isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        if not ok or not math.isfinite(float(v)) or float(v) <= 0 or float(v) < lo:
            raise FieldError(
                "intervals",
                f"intervals must be finite numbers of hours > 0 and >= {bound}; got {v!r}",
            )
        out.append(float(v))
    if not out:
        raise FieldError("intervals", "intervals must be a non-empty list of hours")
    return np.unique(out)


def optimize_checkpoint(
    posterior=None,
    scenario: Scenario | None = None,
    *,
    n_gpus: int | None = None,
    intervals: Sequence[float] | None = None,
    n_trials: int = 2000,
    seed=None,
    refine: bool = True,
    n_threads: int | None = None,
    progress: bool | None = None,
) -> xr.Dataset:
    """Find the checkpoint interval that maximises expected ETTR under posterior uncertainty.

    Parameters
    ----------
    posterior : arviz.InferenceData or None
        Failure-rate posterior (one draw per trial); ``None`` uses the scenario's point rates.
    scenario : Scenario, optional
        The job and policy; its ``checkpoint_interval`` is what is varied. Default
        ``default_scenario()`` of ``posterior`` (16,384 GPUs).
    n_gpus : int, optional
        Replace the scenario's cluster size.
    intervals : sequence of float, optional
        Compute hours between checkpoints to evaluate (each > 0 and >= ``persist_hours``);
        Young's and Daly's intervals are always evaluated with them. Default: 15
        log-spaced points from a quarter to four times Daly's interval; this default grid
        (not a given one) is extended while its best point is at an edge.
    n_trials : int
        Trials per evaluated interval, in [2, 1e8] (the standard errors need two).
    seed : int, SeedSequence, Generator or None
        Root seed. The search uses child ``spawn_key + (SEARCH_KEY,)`` (2**32 - 5) for every
        interval; the final comparison of optimum, Young and Daly uses child ``spawn_key +
        (FINAL_KEY,)`` (2**32 - 6). Keys no fit uses: a conjugate fit draws its chain ``k``
        from its seed's child ``(0, k)``, and ``relmc optimize`` fits and optimises with one
        seed, so child 0 here gave the search's first blocks the chains' streams.
    refine : bool
        Refine around the best grid point (9 more points between its neighbours and the
        vertex of a parabola fitted to expected ETTR against log interval). A best point at
        an edge of the evaluated grid has one neighbour and is not refined: a
        ``RuntimeWarning`` then says the optimum may lie beyond it (unless the edge is
        ``persist_hours`` or the job's compute hours, the bounds of the search).
    n_threads : int, optional
        Kernel threads (default: all cores).
    progress : bool, optional
        Progress bar over intervals; default: only when stderr is a terminal.

    Returns
    -------
    xarray.Dataset
        ``ettr_mean``, ``ettr_se`` (interval): the search curve, coordinate ``interval``
        (hours). Along ``rule`` (``optimum``, ``young``, ``daly``, and ``scenario``: the
        scenario's own ``checkpoint_interval``), on independent trials:
        ``interval_hours`` (a rule's interval below the scenario's persist time, which no
        run may take, is run at it), ``rule_ettr_mean``, ``rule_ettr_se`` and ``gain`` /
        ``gain_se``: ETTR of the optimum minus ETTR of the rule (mean of paired per-trial
        differences, with its Monte Carlo standard error; 0 for the optimum itself).
        ``optimal_interval_hours`` (scalar). ``attrs``: ``mttf_hours`` (plug-in MTTF
        ``1 / Lambda`` at the posterior-mean rates, as used by the Young/Daly rules
        everywhere in relmc), ``posterior_mean_mttf_hours`` (``E[1/Lambda]``), the
        objective, scenario JSON, seeds, ``n_trials``, ``n_gpus``.

    Raises
    ------
    ValueError
        For bad inputs, or ``policy.snapshot_hours == 0`` (free checkpoints: the optimum
        is 0), before anything is simulated.
    """
    n_trials = check_n_trials(n_trials)
    if n_trials < 2:  # as relmc.compare and sweeps: a gain without a standard error is no gain
        raise FieldError(
            "n_trials",
            f"n_trials must be >= 2 (the ETTRs and gains need a standard error); got {n_trials}",
        )
    scenario = given_scenario(scenario, posterior)
    if n_gpus is not None:
        scenario = replace_path(scenario, "cluster.n_gpus", n_gpus)
    rates = posterior  # the source itself: an event fit's physics is drawn per trial
    plan = _plan(scenario, rates, intervals)
    root = resolve_seed(seed)
    search_seed, final_seed = child_seed(root, SEARCH_KEY), child_seed(root, FINAL_KEY)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="optimize", unit="interval", leave=False)

    finished: dict[float, float] = {}  # share of the search's trials that finished

    def ettr_of(tau: float, s: np.random.SeedSequence) -> np.ndarray:
        sc = replace_path(scenario, "policy.checkpoint_interval", float(tau))
        res = simulate(
            sc, rates=rates, n_trials=n_trials, seed=s, n_threads=n_threads, progress=False
        )
        if bar is not None:
            bar.update()
        if s is search_seed:
            finished[float(tau)] = float(res["finished"].values.mean())
        return res["ettr"].values

    cache = _search(plan, lambda tau: ettr_of(tau, search_seed), refine, scenario)
    ts = np.array(sorted(cache))
    tau_opt = float(ts[int(np.argmax([cache[t].mean() for t in ts]))])
    _check_finished(finished, tau_opt, scenario)
    _check_edge(ts, tau_opt, plan, scenario)
    # compare on fresh trials, so the winner's own noise does not inflate its gain
    # a rule's interval below persist_hours is inadmissible: it is run at that bound
    taus = {
        "optimum": tau_opt,
        "young": max(plan.young, plan.lo),
        "daly": max(plan.daly, plan.lo),
        "scenario": max(scenario.policy.interval(plan.mttf), plan.lo),
    }
    final = {r: ettr_of(t, final_seed) for r, t in taus.items()}
    if bar is not None:
        bar.close()
    ds = _result(cache, taus, final)
    ds.attrs = {
        "title": "relmc checkpoint-interval optimisation",
        "objective": "expected ETTR: mean over trials of per-trial ETTR, one posterior draw per "
        "trial; every searched interval uses the same trials' seed (common random numbers); "
        "the optimum, Young and Daly are then compared on an independent set of trials",
        "mttf_hours": plan.mttf,
        "mttf_definition": "1 / Lambda at the posterior-mean rates (the MTTF at which Young's "
        "and Daly's rules are evaluated)",
        "posterior_mean_mttf_hours": plan.posterior_mean_mttf,
        "snapshot_hours": scenario.policy.snapshot_hours,
        "n_gpus": scenario.cluster.n_gpus,
        "n_trials": n_trials,
        "scenario": json.dumps(scenario.to_dict()),
        **seed_attrs(root),
        "seed_rule": f"search: spawn_key + [{SEARCH_KEY}]; comparison: spawn_key + [{FINAL_KEY}]",
        **fit_labels(posterior),
        "time_units": "hours",
        **provenance(),
    }
    return ds


def _check_edge(ts: np.ndarray, tau_opt: float, plan: _Plan, scenario: Scenario) -> None:
    """Warn when the best interval is at an edge of the grid that is not a bound of the search."""
    if ts.size < 2 or ts[0] < tau_opt < ts[-1]:
        return
    low = tau_opt == ts[0]
    if (low and tau_opt <= plan.lo) or (not low and tau_opt >= scenario.job.compute_hours):
        return  # the optimum is at a bound: nothing beyond it is admissible
    side, more = ("shortest", "shorter") if low else ("longest", "longer")
    how = (
        f"give intervals that include {more} ones"
        if not plan.extend
        else f"the grid was extended {_MAX_EXTEND} times"
    )
    warnings.warn(
        f"the best checkpoint interval, {60 * tau_opt:.3g} min, is the {side} evaluated, so "
        f"the optimum may lie beyond it and it was not refined; {how}",
        RuntimeWarning,
        stacklevel=3,
    )


def _check_finished(finished: dict[float, float], tau_opt: float, scenario: Scenario) -> None:
    """Refuse an optimum when no trial finished; warn when some at the optimum did not."""
    if max(finished.values()) == 0.0:
        raise ValueError(
            f"no trial finished before the wall-clock cap (policy.wall_cap_factor = "
            f"{scenario.policy.wall_cap_factor:g}) or the event budget (policy.max_events = "
            f"{scenario.policy.max_events:,}) at any of the {len(finished)} intervals searched "
            f"(n_gpus={scenario.cluster.n_gpus:,}): every interval's ETTR is measured where a "
            "trial stopped, so there is no optimum to report; shorten the restart or the job, "
            "or raise policy.wall_cap_factor or policy.max_events"
        )
    if finished[tau_opt] < 1.0:
        warnings.warn(
            f"{100 * (1 - finished[tau_opt]):.3g}% of trials at the optimum interval "
            f"({60 * tau_opt:.3g} min) did not finish before the wall-clock cap or the event "
            "budget: its ETTR is a bound, and the optimum may be an artefact of the cap",
            NotFinishedWarning,
            stacklevel=3,
        )


@dataclass(frozen=True)
class _Plan:
    """What the search needs: the rules' intervals, the first grid, its bounds."""

    mttf: float  # plug-in 1/Lambda at the posterior-mean rates
    posterior_mean_mttf: float  # E[1/Lambda] over draws
    young: float
    daly: float
    grid: np.ndarray
    lo: float  # smallest admissible interval
    extend: bool  # extend the grid while its best point is at an edge


def _plan(scenario: Scenario, rates, intervals) -> _Plan:
    """Validate the inputs and lay out the first grid (no simulation yet)."""
    pol = scenario.policy
    if pol.snapshot_hours <= 0:
        raise FieldError(
            "policy.snapshot_hours",
            "policy.snapshot_hours must be > 0 to optimise the interval (with free "
            "checkpoints the optimal interval is 0)",
        )
    lam = job_rates(scenario, rate_draws(scenario, rates))
    if not np.all(lam > 0):
        raise ValueError("the failure rates are 0 in some draws: there is nothing to optimise")
    mttf = 1.0 / float(lam.mean())
    young = float(analytic.young_interval(pol.snapshot_hours, mttf))
    daly = float(analytic.daly_interval(pol.snapshot_hours, mttf))
    lo = max(pol.persist_hours, 1e-6)
    if intervals is None:
        grid = np.unique(np.r_[_interval_grid(daly, _GRID_SPAN, _GRID_POINTS), young, daly])
        grid = grid[grid >= lo]
        if grid.size < 3:
            raise FieldError(
                "policy.persist_hours",
                f"policy.persist_hours={pol.persist_hours:g} leaves fewer than 3 grid intervals "
                f"near Daly's {daly:g} h; give intervals explicitly",
            )
        extend = True
    else:
        grid = np.unique(np.r_[_check_intervals(intervals, lo, pol.persist_hours), young, daly])
        grid = grid[grid >= lo]  # Young's or Daly's may be below persist_hours
        extend = False
    # validate the scenario at an interval of the grid before any simulation
    kernel_inputs(replace_path(scenario, "policy.checkpoint_interval", float(grid[0])), rates, 1)
    return _Plan(mttf, float(np.mean(1.0 / lam)), young, daly, grid, lo, extend)


def _search(
    plan: _Plan, ettr_of: Callable[[float], np.ndarray], refine: bool, scenario: Scenario
) -> dict[float, np.ndarray]:
    """Evaluate the grid, extend it past an edge optimum, refine around the best point.

    Returns every evaluated interval's per-trial ETTR (all on the same trials' seed).
    """
    cache: dict[float, np.ndarray] = {}

    def evaluate(taus) -> None:
        for t in taus:
            t = float(t)
            if t not in cache:
                cache[t] = ettr_of(t)

    def best() -> tuple[np.ndarray, int]:
        ts = np.array(sorted(cache))
        return ts, int(np.argmax([cache[t].mean() for t in ts]))

    evaluate(plan.grid)
    ts, i = best()
    for _ in range(_MAX_EXTEND if plan.extend else 0):
        if 0 < i < ts.size - 1:
            break
        step = ts[1] / ts[0] if i == 0 else ts[-1] / ts[-2]
        edge = ts[0] if i == 0 else ts[-1]
        new = edge * step ** (np.arange(1, 5) * (-1 if i == 0 else 1))
        bound = plan.lo if i == 0 else scenario.job.compute_hours
        new = new[(new >= plan.lo) & (new <= scenario.job.compute_hours)]
        if new.size < 4 and edge != bound:
            new = np.r_[new, bound]  # the steps pass the bound: try the bound itself
        if new.size == 0:
            break
        evaluate(new)
        ts, i = best()
    if refine and 0 < i < ts.size - 1:
        evaluate(np.geomspace(ts[i - 1], ts[i + 1], _REFINE_POINTS)[1:-1])
        ts, i = best()
        vertex = _parabola_vertex(ts, i, cache)
        if vertex is not None and vertex >= plan.lo:
            evaluate([vertex])
    return cache


def _result(
    cache: dict[float, np.ndarray], taus: dict[str, float], final: dict[str, np.ndarray]
) -> xr.Dataset:
    """Label the search curve and the independent comparison of the rules."""
    ts = np.array(sorted(cache))
    mean = np.array([cache[t].mean() for t in ts])
    se = np.array([_se(cache[t]) for t in ts])
    diff = {r: final["optimum"] - final[r] for r in RULES}
    hours = {"units": "h"}
    return xr.Dataset(
        {
            "ettr_mean": (
                "interval",
                mean,
                {"units": "1", "long_name": "expected ETTR (search trials)"},
            ),
            "ettr_se": ("interval", se, {"units": "1", "long_name": "Monte Carlo SE of ettr_mean"}),
            "interval_hours": (
                "rule",
                [taus[r] for r in RULES],
                {**hours, "long_name": "compute between checkpoints"},
            ),
            "rule_ettr_mean": (
                "rule",
                [final[r].mean() for r in RULES],
                {"units": "1", "long_name": "expected ETTR (independent comparison trials)"},
            ),
            "rule_ettr_se": (
                "rule",
                [_se(final[r]) for r in RULES],
                {"units": "1", "long_name": "Monte Carlo SE of rule_ettr_mean"},
            ),
            "gain": (
                "rule",
                [diff[r].mean() for r in RULES],
                {"units": "1", "long_name": "ETTR(optimum) - ETTR(rule), paired trials"},
            ),
            "gain_se": (
                "rule",
                [_se(diff[r]) for r in RULES],
                {"units": "1", "long_name": "Monte Carlo SE of gain (paired differences)"},
            ),
            "optimal_interval_hours": (
                (),
                taus["optimum"],
                {**hours, "long_name": "interval maximising expected ETTR"},
            ),
        },
        coords={
            "interval": ("interval", ts, {**hours, "long_name": "compute between checkpoints"}),
            "rule": list(RULES),
        },
    )


def _se(x: np.ndarray) -> float:
    # not known from one trial: NaN, never a false 0 (optimize_checkpoint asks for two)
    return float(np.std(x, ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan


def _parabola_vertex(ts: np.ndarray, i: int, cache: dict[float, np.ndarray]) -> float | None:
    """Vertex of a parabola in log interval through the best point and two neighbours a side."""
    sel = slice(max(0, i - 2), min(ts.size, i + 3))
    x = np.log(ts[sel])
    y = np.array([cache[float(t)].mean() for t in ts[sel]])
    if x.size < 3:
        return None
    a, b, _ = np.polyfit(x, y, 2)
    if a >= 0:
        return None
    v = -b / (2 * a)
    if not (x[0] <= v <= x[-1]):
        return None
    return float(np.exp(v))
