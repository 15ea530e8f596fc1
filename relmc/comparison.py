"""Compare policies or scenarios on paired trials: each ETTR and the gains over a baseline.

:func:`compare` simulates every scenario with the same root seed, so trial ``i`` uses the same
posterior draw of the failure rates (``i mod n_draws``) under every scenario, and block ``b``
the same child seed. A gain is computed per trial and then summarised, so its interval holds
the rate uncertainty and each job's own luck together, not the difference of two separate
bands (which would be far too wide: most of each band's width is shared).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from relmc._cf import provenance
from relmc._seed import resolve_seed, seed_attrs
from relmc.errors import FieldError, UnreadFieldWarning
from relmc.projection import check_sizes, warn_not_finished
from relmc.rates import fit_labels, rate_draws
from relmc.scenario import Scenario, replace_path
from relmc.sim.simulate import (
    check_n_trials,
    kernel_inputs,
    simulate,
    unread_warnings_from_callers,
    warn_unread,
)
from relmc.summary import HOURS_PER_DAY, QUANTILES, check_quantiles

__all__ = ["compare"]


def compare(
    scenarios: Mapping[str, Scenario],
    *,
    posterior: Any = None,
    baseline: str | None = None,
    n_gpus: int | Sequence[int] | None = None,
    n_trials: int = 2000,
    seed: Any = None,
    quantiles: Sequence[float] = QUANTILES,
    n_threads: int | None = None,
) -> xr.Dataset:
    """Simulate several scenarios on paired trials and report each ETTR and the gains.

    Parameters
    ----------
    scenarios : mapping of str to Scenario
        Named scenarios (at least two), e.g. policies built with
        :func:`relmc.scenario.replace_path` from one base.
    posterior : InferenceData, DataArray, mapping or None
        Failure rates for every scenario (see :func:`relmc.simulate`); ``None``: each
        scenario's own point rates.
    baseline : str, optional
        The scenario gains are measured against; default: the first.
    n_gpus : int or sequence of int, optional
        Set every scenario's ``cluster.n_gpus``. A sequence (each in [1, 1e8]) compares at
        each size: the result gains an ``n_gpus`` dim (ascending, each once) and each size's
        numbers are those of a comparison at that size alone (one root seed at every size).
    n_trials : int
        Trials per scenario, in [2, 1e8].
    seed : int, SeedSequence, Generator or None
        One root for every scenario (that is what pairs the trials).
    quantiles : sequence of float
        Quantile levels of the bands.
    n_threads : int, optional
        Kernel threads.

    Returns
    -------
    xarray.Dataset
        Along ``scenario``: ``ettr`` (scenario, trial) per trial; ``ettr_mean``, ``ettr_se``,
        ``ettr_quantile`` (scenario, quantile); ``gain_mean``, ``gain_se``, ``gain_quantile``:
        the per-trial difference ETTR(scenario) - ETTR(baseline) summarised (0 for the
        baseline); ``interruptions_per_day_mean`` and ``interruptions_per_day_quantile``
        (each trial's unexpected interruptions per wall-clock day); ``finished_fraction``;
        ``checkpoint_interval_hours``, the interval each scenario ran with (a rule's
        resolved). ``draw`` (trial) is the posterior draw each
        trial used (a scenario whose trials hit the wall-clock cap or the event budget is
        warned of, :class:`~relmc.errors.NotFinishedWarning`); ``kernel_path`` (scenario),
        the kernel path each scenario ran on: trials pair by random stream as far as two
        scenarios draw their random numbers alike, which two paths do not (a policy that
        turns on time-varying rates, stragglers, SDC, the node model or a finite pool
        against one without: its trials pair by posterior draw only, and the gain's band
        holds both jobs' luck; the gain's mean and SE stay exact), and on the diurnal path
        only partly (a trial whose failure times move enough draws differently from there
        on). ``attrs``: ``baseline``, the
        scenarios (JSON; with several sizes, at the first), seed, ``pairing``, ``dataset`` and
        ``model`` (the posterior's, or empty).

    Raises
    ------
    ValueError
        Naming the field, before anything is simulated.
    """
    if not isinstance(scenarios, Mapping) or len(scenarios) < 2:
        raise FieldError("scenarios", "scenarios must be a mapping of at least 2 named scenarios")
    names = [str(k) for k in scenarios]
    if len(set(names)) != len(names):
        raise FieldError("scenarios", f"scenario names must be unique; got {names}")
    for k, sc in scenarios.items():
        if not isinstance(sc, Scenario):
            raise FieldError(
                f"scenarios[{k!r}]", f"scenarios[{k!r}] must be a relmc.Scenario; got {sc!r}"
            )
    base = names[0] if baseline is None else str(baseline)
    if base not in names:
        raise FieldError("baseline", f"baseline must be one of {names}; got {baseline!r}")
    n_trials = check_n_trials(n_trials)
    if n_trials < 2:
        raise FieldError("n_trials", f"n_trials must be >= 2 to compare; got {n_trials}")
    q = check_quantiles(quantiles)
    given = dict(zip(names, scenarios.values(), strict=True))
    sizes = None if n_gpus is None or np.ndim(n_gpus) == 0 else check_sizes(n_gpus)
    if sizes is None:
        runs_at = [given if n_gpus is None else _at_size(given, n_gpus)]
    else:
        runs_at = [_at_size(given, n) for n in sizes]
    # every combination is checked before any simulation
    labels = [kernel_inputs(sc, posterior, 1)[1] for runs in runs_at for sc in runs.values()]
    _check_rates_apply(runs_at[0], posterior)
    root = resolve_seed(seed)
    # fields unread in every scenario: once here (a kind changed by one policy reads them);
    # fields the posterior's physics replace, once each
    warn_unread(list(runs_at[0].values()), labels)
    warn_policy_dead(runs_at[0], base)
    rows = [_compare_at(runs, posterior, base, n_trials, root, q, n_threads) for runs in runs_at]
    if sizes is None:
        ds = rows[0]
    else:
        ds = xr.concat(rows, dim="n_gpus", data_vars="all", coords="minimal", compat="override")
        ds = ds.assign_coords(n_gpus=("n_gpus", np.array(sizes, dtype=np.int64)))
        ds["n_gpus"].attrs = {"long_name": "GPUs in the job", "units": "1"}
    runs = runs_at[0]
    ds.attrs = {
        "title": "relmc paired comparison",
        **provenance(),
        **fit_labels(posterior),
        "baseline": base,
        "pairing": "one root seed for every scenario: trial i uses posterior draw i mod n_draws "
        "and block b the same child seed under every scenario; gains are per-trial differences; "
        "scenarios on different kernel paths (kernel_path) draw their random numbers "
        "differently and pair by posterior draw only",
        "scenarios": json.dumps({k: sc.to_dict() for k, sc in runs.items()}),
        **seed_attrs(root),
        "n_trials": n_trials,
    }
    return ds


_NOT_THERE = object()  # a category the scenario lacks


def _value_at(sc: Scenario, path: str) -> Any:
    """Return the value at a :meth:`Scenario.dead_fields` path (``failures.categories['x'].f``)."""
    import ast

    head = "failures.categories["
    if path.startswith(head):
        name_text, _, field = path[len(head) :].rpartition("].")
        name = ast.literal_eval(name_text)
        if name not in sc.failures.names:
            return _NOT_THERE
        return getattr(sc.failures.category(name), field)
    section, field = path.split(".", 1)
    return getattr(getattr(sc, section), field)


def warn_policy_dead(scenarios: Mapping[str, Scenario], baseline: str) -> None:
    """Warn of each scenario that changes, against the baseline, fields dead in it.

    A field whose feature is off in a scenario (:meth:`Scenario.dead_fields`, e.g.
    ``policy.checkpoint_retention`` without an SDC category) changes nothing there, so a
    scenario that differs from the baseline only by it has a gain of 0 by construction.
    :func:`warn_unread` warns of fields unread in every scenario; this, of those another
    scenario reads (its feature on there: an SDC category in one policy, the retention
    changed in another). One :class:`~relmc.errors.UnreadFieldWarning` per such scenario,
    naming the fields.
    """
    base = scenarios[baseline]
    off = {k: sc._feature_off() for k, sc in scenarios.items()}

    def read_elsewhere(path: str, name: str) -> bool:  # (else warn_unread warns of it)
        return any(
            path not in off[k] and _value_at(sc, path) is not _NOT_THERE
            for k, sc in scenarios.items()
            if k != name
        )

    for name, sc in scenarios.items():
        if name == baseline:
            continue
        dead = sc.dead_fields()
        moved = [
            p for p in dead if _value_at(sc, p) != _value_at(base, p) and read_elsewhere(p, name)
        ]
        if not moved:
            continue
        shown = "; ".join(f"{p} ({dead[p]})" for p in moved[:3])
        more = f"; and {len(moved) - 3} more" if len(moved) > 3 else ""
        warnings.warn(
            f"compare: scenario {name!r} changes fields that do nothing in it, so its gain "
            f"over {baseline!r} from them is 0: {shown}{more}",
            UnreadFieldWarning,
            stacklevel=3,
        )


def _at_size(scenarios: Mapping[str, Scenario], n_gpus: Any) -> dict[str, Scenario]:
    """Every scenario with ``cluster.n_gpus`` set to ``n_gpus``."""
    return {k: replace_path(sc, "cluster.n_gpus", n_gpus) for k, sc in scenarios.items()}


def _compare_at(
    runs: Mapping[str, Scenario],
    posterior: Any,
    base: str,
    n_trials: int,
    root: Any,
    q: Sequence[float],
    n_threads: int | None,
) -> xr.Dataset:
    """One size's comparison: the scenarios on paired trials, summarised (no ``attrs``)."""
    names = list(runs)
    ettr, per_day, finished, interval, paths, draw = [], [], [], [], [], None
    for name, sc in runs.items():
        with unread_warnings_from_callers():
            res = simulate(
                sc,
                rates=posterior,
                n_trials=n_trials,
                seed=root,
                n_threads=n_threads,
                progress=False,
            )
        ettr.append(res["ettr"].values)
        wall = res["wall_hours"].values
        with np.errstate(divide="ignore", invalid="ignore"):
            count = res["interruptions"].values.sum(axis=1)
            per_day.append(np.where(wall > 0, count * HOURS_PER_DAY / wall, 0.0))
        finished.append(res["finished"].values.mean())
        warn_not_finished(res, f"compare: {name!r} at n_gpus={sc.cluster.n_gpus:,}", stacklevel=4)
        interval.append(float(res.attrs["checkpoint_interval_hours"]))
        paths.append(res.attrs["kernel_path"])
        draw = res["draw"].values
    e = np.stack(ettr)  # (scenario, trial)
    gain = e - e[names.index(base)]
    sd = np.sqrt(n_trials)
    ds = xr.Dataset(
        {
            "ettr": (("scenario", "trial"), e, {"units": "1", "long_name": "ETTR per trial"}),
            "ettr_mean": ("scenario", e.mean(1), {"units": "1", "long_name": "mean ETTR"}),
            "ettr_se": (
                "scenario",
                e.std(1, ddof=1) / sd,
                {"units": "1", "long_name": "Monte Carlo standard error of ettr_mean"},
            ),
            "ettr_quantile": (
                ("scenario", "quantile"),
                np.quantile(e, q, axis=1).T,
                {"units": "1", "long_name": "ETTR, quantiles over trials"},
            ),
            "gain_mean": (
                "scenario",
                gain.mean(1),
                {"units": "1", "long_name": f"mean paired ETTR gain over {base!r}"},
            ),
            "gain_se": (
                "scenario",
                gain.std(1, ddof=1) / sd,
                {"units": "1", "long_name": "Monte Carlo standard error of gain_mean"},
            ),
            "gain_quantile": (
                ("scenario", "quantile"),
                np.quantile(gain, q, axis=1).T,
                {"units": "1", "long_name": f"paired ETTR gain over {base!r}, quantiles"},
            ),
            "interruptions_per_day_mean": (
                "scenario",
                np.stack(per_day).mean(1),
                {"units": "1/d", "long_name": "unexpected interruptions per wall-clock day, mean"},
            ),
            "interruptions_per_day_quantile": (
                ("scenario", "quantile"),
                np.quantile(np.stack(per_day), q, axis=1).T,
                {
                    "units": "1/d",
                    "long_name": "unexpected interruptions per wall-clock day, quantiles over "
                    "trials",
                },
            ),
            "finished_fraction": (
                "scenario",
                np.array(finished),
                {
                    "units": "1",
                    "long_name": (
                        "fraction of jobs finished before the wall cap or the event budget"
                    ),
                },
            ),
            "checkpoint_interval_hours": (
                "scenario",
                np.array(interval),
                {
                    "units": "h",
                    "long_name": "checkpoint interval simulated (a rule's, young or daly, "
                    "resolved at the posterior-mean rates)",
                },
            ),
        },
        coords={
            "scenario": names,
            "trial": np.arange(n_trials),
            "quantile": list(q),
            "draw": ("trial", draw),
            "kernel_path": (
                "scenario",
                paths,
                {"long_name": "kernel path that simulated the scenario (relmc.sim.PATH_NAMES)"},
            ),
        },
    )
    return ds


def _check_rates_apply(runs: Mapping[str, Scenario], posterior: Any) -> None:
    """Refuse a category ``rate`` that differs between scenarios where ``posterior`` gives it.

    The source's rates replace the scenario's (:mod:`relmc.rates`), so such a change would
    compare a scenario with itself; ``rate_multiplier`` is what changes a given rate.
    """
    if posterior is None:
        return
    first_name, first = next(iter(runs.items()))
    if isinstance(posterior, Mapping) and getattr(posterior, "posterior", None) is None:
        given = {str(k) for k in posterior}
    else:
        fitted = rate_draws(first, posterior).fitted
        given = {n for n, f in zip(first.failures.names, fitted, strict=True) if f}
    for name, sc in runs.items():
        for c in sc.failures.categories:
            if c.name not in given or c.name not in first.failures.names:
                continue
            r0 = first.failures.category(c.name).rate
            if c.rate != r0:
                field = f"failures.categories[{c.name!r}].rate"
                raise FieldError(
                    field,
                    f"{field} is {r0:g} in scenario {first_name!r} and {c.rate:g} in "
                    f"{name!r}, but the posterior gives this category's rate in every "
                    f"scenario, so the change would have no effect; change "
                    f"failures.categories[{c.name!r}].rate_multiplier instead (e.g. 2 to "
                    "double its events)",
                )
