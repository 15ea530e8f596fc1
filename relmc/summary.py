"""The one summary of simulated trials: means, Monte Carlo standard errors and quantiles.

:func:`relmc.project`, every sweep cell and the ``relmc`` command reduce a
:func:`relmc.simulate` result with :func:`summarize`, so the same quantity has the same name
everywhere. For each per-trial quantity ``v``:

``v_mean``
    Mean over trials.
``v_se``
    Monte Carlo standard error of ``v_mean``: sample standard deviation / sqrt(n_trials).
    With one posterior draw per trial, trials are independent, so this is exact.
``v_quantile`` (dim ``quantile``)
    Quantiles over trials: with one posterior draw per trial, a posterior-predictive interval
    for one job (rate uncertainty and the randomness of the timeline together).

The per-trial quantities are the simulation's own (``wall_hours``, ``ettr``, ``progress_hours``,
``events``, ``maintenance_events``, ``interruptions`` by category, ``lost_hours`` by cause, the
node model's counts and ``pool_occupancy``, NaN where the pool is unlimited) and
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

__all__ = ["QUANTILES", "HOURS_PER_DAY", "summarize", "check_quantiles"]

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


def _per_day(ds: xr.Dataset) -> dict[str, xr.DataArray]:
    days = ds["wall_hours"] / HOURS_PER_DAY
    with np.errstate(divide="ignore", invalid="ignore"):
        by_cat = ds["interruptions"] / days
        return {
            "interruptions_per_day": by_cat.sum("category"),
            "interruptions_per_day_by_category": by_cat,
            "maintenance_per_day": ds["maintenance_events"] / days,
        }


def _labelled(
    like: xr.DataArray,
    values,
    units: str,
    long_name: str,
    coords: dict,
    quantile: Sequence[float] = (),
) -> tuple:
    """``values`` labelled as ``like`` (dims, attrs), ``quantile`` last if given.

    Returns ``(dims, values, attrs)`` for a Dataset, with ``units`` and ``long_name`` set over
    ``like``'s attrs, and adds ``like``'s coords to ``coords``. Every NaN becomes the positive
    quiet NaN (a mean over trials that are all NaN comes out as the negative NaN of x86; one
    NaN pattern keeps stores' checksums of the bytes stable).
    """
    values = np.asarray(values, dtype=float)
    values = np.where(np.isnan(values), np.nan, values)
    for k, v in like.coords.items():
        coords.setdefault(k, v.variable)
    dims = (*like.dims, "quantile") if len(quantile) else like.dims
    return dims, values, {**like.attrs, "units": units, "long_name": long_name}


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
    if not isinstance(ds, xr.Dataset) or "trial" not in ds.dims:
        raise FieldError("ds", "summarize needs a relmc.simulate() result with a 'trial' dim")
    q = check_quantiles(quantiles)
    n = ds.sizes["trial"]
    per_trial = {str(name): da for name, da in ds.data_vars.items() if "trial" in da.dims}
    if {"wall_hours", "interruptions", "maintenance_events"} <= set(per_trial):
        units = {"units": "1/d"}
        for name, da in _per_day(ds).items():
            per_trial[name] = da.assign_attrs(units, long_name=_PER_DAY[name])
    out: dict[str, tuple] = {}
    coords: dict = {"quantile": xr.Variable("quantile", np.asarray(q, dtype=float))}
    for name, da in per_trial.items():
        # NumPy on the values, xarray only to label the results: the same functions xarray's
        # reductions call (nanmean, nanstd, nanquantile), bit for bit, without its per-call
        # overhead (a sweep summarises every cell)
        x = np.asarray(da.values, dtype=float)
        axis = da.get_axis_num("trial")
        like = da.isel(trial=0, drop=True)  # dims and coords without the trial
        if name == "finished":
            f = float(np.mean(x))
            se = (f * (1 - f) / n) ** 0.5
            fin = "fraction of jobs finished before the wall cap"
            out["finished_fraction"] = _labelled(like, f, "1", fin, coords)
            out["finished_fraction_se"] = _labelled(
                like, se, "1", "Monte Carlo standard error of finished_fraction", coords
            )
            continue
        long_name = da.attrs.get("long_name", name)
        units = da.attrs.get("units", "1")
        with warnings.catch_warnings():
            # pool_occupancy is NaN in every trial without a finite pool: NaN results
            warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
            warnings.filterwarnings("ignore", "Degrees of freedom <= 0", RuntimeWarning)
            warnings.filterwarnings("ignore", "All-NaN slice encountered", RuntimeWarning)
            mean = np.nanmean(x, axis=axis)
            sd = np.nanstd(x, axis=axis, ddof=1) if n > 1 else np.zeros_like(mean)
            # without NaN, quantile is nanquantile's own computation, without its per-slice
            # loop (bit for bit: tests/test_summary.py)
            quantile = np.nanquantile if np.isnan(x).any() else np.quantile
            qv = quantile(x, q, axis=axis)
        out[f"{name}_mean"] = _labelled(like, mean, units, f"mean {long_name}", coords)
        out[f"{name}_se"] = _labelled(
            like, sd / np.sqrt(n), units, f"Monte Carlo standard error of {name}_mean", coords
        )
        out[f"{name}_quantile"] = _labelled(
            like,
            np.moveaxis(qv, 0, -1),
            units,
            f"{long_name}, quantiles over trials",
            coords,
            quantile=q,
        )
    if "lost_hours" in per_trial and "wall_hours" in per_trial:
        lf = (
            per_trial["lost_hours"].mean("trial") / float(per_trial["wall_hours"].mean())
        ).assign_attrs(units="1", long_name="mean lost hours / mean wall hours, by cause")
        out["lost_fraction_mean"] = (lf.dims, lf.values, lf.attrs)
        for k, v in lf.coords.items():
            coords.setdefault(k, v.variable)
    res = xr.Dataset(out, coords=coords)
    res = res.drop_vars([c for c in ("draw",) if c in res.coords])
    res["n_trials"] = ((), n, {"units": "1", "long_name": "simulated jobs"})
    res["quantile"].attrs = {"long_name": "quantile over trials"}
    res.attrs.update(ds.attrs)
    res.attrs.update(provenance())
    res.attrs["interval_definition"] = (
        "v_quantile: quantiles over trials, one posterior draw per trial (posterior "
        "predictive for one job); v_se: Monte Carlo standard error of v_mean"
    )
    return res
