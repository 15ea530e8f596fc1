"""The one summary of simulated trials: means, Monte Carlo standard errors and quantiles.

:func:`relmc.project`, every sweep cell and the ``relmc`` command reduce a
:func:`relmc.simulate` result with :func:`summarize`, so the same quantity has the same name
everywhere. For each per-trial quantity ``v``:

``v_mean``
    Mean over trials.
``v_se``
    Monte Carlo standard error of ``v_mean``: sample standard deviation / sqrt(k), k the
    trials with a value (all of them but where ``v`` is NaN); NaN where k < 2.
    With one posterior draw per trial, trials are independent, so this is exact.
``v_quantile`` (dim ``quantile``)
    Quantiles over trials: with one posterior draw per trial, a posterior-predictive interval
    for one job (rate uncertainty and the randomness of the timeline together).

The per-trial quantities are the simulation's own (``wall_hours``, ``ettr``, ``progress_hours``,
``events``, ``maintenance_events``, ``interruptions`` by category, ``lost_hours`` by cause, the
power swings, the straggler and SDC counts, the node model's counts and ``pool_occupancy``, NaN
where the pool is unlimited) and
three rates per wall-clock day derived from them: ``interruptions_per_day`` (all categories),
``interruptions_per_day_by_category`` and ``maintenance_per_day``. Also ``finished_fraction``
(with ``finished_fraction_se``), ``lost_fraction_mean`` (mean lost hours / mean wall hours, by
cause) and ``n_trials``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr

from relmc._cf import provenance
from relmc.errors import FieldError

__all__ = ["QUANTILES", "HOURS_PER_DAY", "summarize", "summary_variables", "check_quantiles"]

#: Default quantile levels: the median and the central 50% and 90% intervals.
QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)

HOURS_PER_DAY = 24.0

_PER_DAY = {
    "interruptions_per_day": "unexpected interruptions per wall-clock day",
    "interruptions_per_day_by_category": "unexpected interruptions per wall-clock day, by category",
    "maintenance_per_day": "planned interruptions per wall-clock day",
}


def check_quantiles(quantiles: Sequence[float], field: str = "quantiles") -> tuple[float, ...]:
    """Return quantile levels as floats, or raise unless strictly increasing in [0, 1]."""
    msg = f"{field} must be a non-empty list of strictly increasing numbers in [0, 1]"
    if isinstance(quantiles, str) or not isinstance(quantiles, Sequence | np.ndarray):
        raise FieldError(field, f"{msg}; got {quantiles!r}")
    try:
        q = np.asarray(quantiles, dtype=float)
    except (TypeError, ValueError):
        raise FieldError(field, f"{msg}; got {quantiles!r}") from None
    if (
        q.ndim != 1
        or q.size == 0
        or not np.all(np.isfinite(q))
        or np.any((q < 0) | (q > 1))
        or np.any(np.diff(q) <= 0)
    ):
        raise FieldError(field, f"{msg}; got {list(np.atleast_1d(q))!r}")
    return tuple(float(v) for v in q)


def _per_day_variables(variables) -> dict[str, xr.Variable]:
    """Return the per-day rates from ``xarray.Variable`` objects (no DataArray per operation).

    Bit for bit what the DataArray arithmetic of the implementation this replaced gives
    (kept in tests/test_summary.py as the reference).
    """
    days = variables["wall_hours"] / HOURS_PER_DAY
    with np.errstate(divide="ignore", invalid="ignore"):
        by_cat = variables["interruptions"] / days
        out = {
            "interruptions_per_day": by_cat.sum("category"),
            "interruptions_per_day_by_category": by_cat,
            "maintenance_per_day": variables["maintenance_events"] / days,
        }
    for name, v in out.items():
        v.attrs = {"units": "1/d", "long_name": _PER_DAY[name]}
    return out


def _labelled(
    dims: tuple,
    attrs: dict,
    values,
    units: str,
    long_name: str,
    quantile: Sequence[float] = (),
) -> tuple:
    """``(dims, values, attrs)`` for a Dataset: ``quantile`` last if given, units and name set.

    ``attrs`` are the per-trial variable's, with ``units`` and ``long_name`` set over them.
    Every NaN becomes the positive quiet NaN (a mean over trials that are all NaN comes out
    as the negative NaN of x86; one NaN pattern keeps stores' checksums of the bytes stable).
    """
    values = np.asarray(values, dtype=float)
    values = np.where(np.isnan(values), np.nan, values)
    dims = (*dims, "quantile") if len(quantile) else dims
    return dims, values, {**attrs, "units": units, "long_name": long_name}


def summarize(ds: xr.Dataset, *, quantiles: Sequence[float] = QUANTILES) -> xr.Dataset:
    """Summarise a :func:`relmc.simulate` result over its trials.

    Parameters
    ----------
    ds : xarray.Dataset
        A :func:`relmc.simulate` result (dim ``trial``).
    quantiles : sequence of float
        Quantile levels, strictly increasing in [0, 1].

    Returns
    -------
    xarray.Dataset
        The variables listed in the module docstring; ``attrs`` are the simulation's, plus
        ``interval_definition``.
    """
    out, coords = summary_variables(ds, quantiles)
    res = xr.Dataset(out, coords=coords)
    res.attrs.update(ds.attrs)
    res.attrs.update(provenance())
    res.attrs["interval_definition"] = (
        "v_quantile: quantiles over trials, one posterior draw per trial (posterior "
        "predictive for one job); v_se: Monte Carlo standard error of v_mean"
    )
    return res


def summary_variables(ds: xr.Dataset, quantiles: Sequence[float]) -> tuple[dict, dict]:
    """:func:`summarize`'s variables and coordinates, before they become a Dataset.

    For a caller that adds variables of its own and builds one Dataset (xarray's
    construction costs a merge per call), as every sweep cell does.

    Parameters
    ----------
    ds : xarray.Dataset
        A :func:`relmc.simulate` result (dim ``trial``).
    quantiles : sequence of float
        Quantile levels, strictly increasing in [0, 1].

    Returns
    -------
    data_vars : dict
        Name -> ``(dims, values, attrs)``, :func:`summarize`'s data variables in its order.
    coords : dict
        Name -> ``xarray.Variable``: ``quantile`` and the coordinates of ``ds`` on the
        summarised variables' other dims (scalar ones included; ``draw`` and those on
        ``trial`` left out).
    """
    if not isinstance(ds, xr.Dataset) or "trial" not in ds.dims:
        raise FieldError("ds", "summarize needs a relmc.simulate() result with a 'trial' dim")
    q = check_quantiles(quantiles)
    n = ds.sizes["trial"]
    if n == 0:
        raise FieldError("ds", "summarize needs at least one trial; the result has 0")
    # NumPy on the values and xarray Variables (no DataArrays) to label the results: the same
    # functions xarray's reductions call (nanmean, nanstd, nanquantile), bit for bit, without
    # its per-call overhead (a sweep summarises every cell; tests/test_summary.py compares
    # with the xarray implementation)
    variables = ds.variables
    per_trial = {str(k): variables[k] for k in ds.data_vars if "trial" in variables[k].dims}
    if {"wall_hours", "interruptions", "maintenance_events"} <= set(per_trial):
        per_trial.update(_per_day_variables(variables))
    coord_dims = {str(k): set(variables[k].dims) for k in ds.coords if k != "draw"}
    coords: dict = {  # first, as summaries always listed it
        "quantile": xr.Variable(
            "quantile", np.asarray(q, dtype=float), {"long_name": "quantile over trials"}
        )
    }

    def labelled(var: xr.Variable, values, units, long_name, quantile=()) -> tuple:
        dims = tuple(d for d in var.dims if d != "trial")
        for k, kd in coord_dims.items():  # a DataArray's coords: those on its dims
            if kd <= set(dims):
                coords.setdefault(k, variables[k])
        return _labelled(dims, var.attrs, values, units, long_name, quantile)

    out: dict[str, tuple] = {}
    for name, var in per_trial.items():
        x = np.asarray(var.values, dtype=float)
        axis = var.get_axis_num("trial")
        if name == "finished":
            f = float(np.mean(x))
            se = (f * (1 - f) / n) ** 0.5
            fin = "fraction of jobs finished before the wall cap or the event budget"
            out["finished_fraction"] = labelled(var, f, "1", fin)
            out["finished_fraction_se"] = labelled(
                var, se, "1", "Monte Carlo standard error of finished_fraction"
            )
            continue
        long_name = var.attrs.get("long_name", name)
        units = var.attrs.get("units", "1")
        with warnings.catch_warnings():
            # pool_occupancy is NaN in every trial without a finite pool: NaN results
            warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
            warnings.filterwarnings("ignore", "Degrees of freedom <= 0", RuntimeWarning)
            warnings.filterwarnings("ignore", "All-NaN slice encountered", RuntimeWarning)
            missing = np.isnan(x)
            mean = np.nanmean(x, axis=axis)
            # one trial has no spread to estimate: NaN, as for one value among NaN
            sd = np.nanstd(x, axis=axis, ddof=1) if n > 1 else np.full_like(mean, np.nan)
            # the mean of the k trials with a value: its error is sd / sqrt(k) (k = n
            # without NaN, the same float); k = 0: NaN
            with np.errstate(divide="ignore", invalid="ignore"):
                se = sd / np.sqrt(np.sum(~missing, axis=axis))
            # without NaN, quantile is nanquantile's own computation, without its per-slice
            # loop (bit for bit: tests/test_summary.py)
            quantile = np.nanquantile if missing.any() else np.quantile
            qv = quantile(x, q, axis=axis)
        out[f"{name}_mean"] = labelled(var, mean, units, f"mean {long_name}")
        out[f"{name}_se"] = labelled(var, se, units, f"Monte Carlo standard error of {name}_mean")
        out[f"{name}_quantile"] = labelled(
            var, np.moveaxis(qv, 0, -1), units, f"{long_name}, quantiles over trials", q
        )
    if "lost_hours" in per_trial and "wall_hours" in per_trial:
        lost = per_trial["lost_hours"]
        lf = lost.mean("trial") / float(per_trial["wall_hours"].mean())
        long_name = "mean lost hours / mean wall hours, by cause"
        dims, values, _ = labelled(lost, lf.values, "1", long_name)
        out["lost_fraction_mean"] = (dims, values, {"units": "1", "long_name": long_name})
    out["n_trials"] = ((), n, {"units": "1", "long_name": "simulated jobs"})
    return out, coords
