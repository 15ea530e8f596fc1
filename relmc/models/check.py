"""Posterior predictive checks: whether each observed count is one a fitted model produces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from relmc.errors import FieldError

__all__ = ["predictive_check", "CHECK_QUANTILES"]

#: Levels of the replicated counts' quantiles a check reports: median and central 90 %.
CHECK_QUANTILES: tuple[float, ...] = (0.05, 0.5, 0.95)


def predictive_check(idata: Any, quantiles: Sequence[float] = CHECK_QUANTILES) -> xr.Dataset:
    """Compare every observed count of a fit with its posterior predictive replicates.

    For each variable a fit holds in both ``observed_data`` and ``posterior_predictive``
    (``count`` per category; a fleets fit's ``total_count`` per fleet too), the replicates
    are the model's counts drawn at every posterior draw (chain, draw). The two-sided
    posterior predictive p-value of an observed count ``y`` is
    ``min(1, 2 min(P(rep >= y), P(rep <= y)))`` over the draws: near 0 the model rarely
    produces a count as far out as the one observed (a category the pooling pulls too far, a
    fleet the multiplier model does not fit). With discrete counts it is conservative (ties
    count on both sides). These are in-sample checks: the data informed the posterior, so a
    well-fitting model gives p-values gathered towards 1 rather than uniform; p-values near 0
    remain evidence of misfit. Of many categories, about 1 in 20 may read below 0.05 by
    chance when the model is right only out of sample.

    Parameters
    ----------
    idata : arviz.InferenceData
        A fit from :mod:`relmc.models` (or any with matching ``observed_data`` and
        ``posterior_predictive`` variables, replicates over ``chain`` and ``draw``).
    quantiles : sequence of float
        Levels of the replicated counts' quantiles, each in [0, 1].

    Returns
    -------
    xarray.Dataset
        Per variable ``v`` (e.g. ``count``), along its own dims (``category``; ``fleet``):
        ``v_observed``; ``v_predictive_quantile`` (..., quantile); ``v_p``, the two-sided
        p-value; ``v_p_upper`` = P(rep >= observed) and ``v_p_lower`` = P(rep <= observed).

    Raises
    ------
    ValueError
        When ``idata`` holds no variable in both groups, or a variable's replicates and
        observations disagree in their dims.
    """
    post_pred = getattr(idata, "posterior_predictive", None)
    observed = getattr(idata, "observed_data", None)
    if post_pred is None or observed is None:
        raise FieldError(
            "idata",
            "idata must hold posterior_predictive and observed_data groups (a relmc fit does)",
        )
    q = np.asarray(quantiles, dtype=float)
    if q.ndim != 1 or not np.all((q >= 0) & (q <= 1)):
        raise FieldError("quantiles", f"quantiles must be levels in [0, 1]; got {quantiles!r}")
    names = [v for v in post_pred.data_vars if v in observed.data_vars]
    if not names:
        raise FieldError(
            "idata", "idata has no variable in both posterior_predictive and observed_data"
        )
    out = xr.Dataset()
    for name in names:
        rep = post_pred[name]
        obs = observed[name]
        dims = [d for d in rep.dims if d not in ("chain", "draw")]
        if sorted(dims) != sorted(obs.dims) or any(rep.sizes[d] != obs.sizes[d] for d in dims):
            raise FieldError(
                "idata",
                f"posterior_predictive[{name!r}] has dims {rep.dims}, observed_data[{name!r}] "
                f"{obs.dims}: the replicates must be the observations' dims over chain, draw",
            )
        rep = rep.stack(sample=("chain", "draw"))
        obs = obs.reindex_like(rep.isel(sample=0, drop=True))
        upper = (rep >= obs).mean("sample")
        lower = (rep <= obs).mean("sample")
        p = np.minimum(1.0, 2.0 * np.minimum(upper, lower))
        what = f"observed {name} against its posterior predictive replicates"
        out[f"{name}_observed"] = obs.reset_coords(drop=True).assign_attrs(
            units="1", long_name=f"observed {name}"
        )
        out[f"{name}_predictive_quantile"] = (
            rep.quantile(q, dim="sample")
            .transpose(..., "quantile")
            .reset_coords(drop=True)
            .assign_attrs(units="1", long_name=f"replicated {name}: quantiles over draws")
        )
        out[f"{name}_p"] = p.reset_coords(drop=True).assign_attrs(
            units="1",
            long_name=f"two-sided posterior predictive p-value of the {what}",
            definition="min(1, 2 min(P(rep >= obs), P(rep <= obs))) over posterior draws",
        )
        out[f"{name}_p_upper"] = upper.reset_coords(drop=True).assign_attrs(
            units="1", long_name=f"P(replicated {name} >= observed)"
        )
        out[f"{name}_p_lower"] = lower.reset_coords(drop=True).assign_attrs(
            units="1", long_name=f"P(replicated {name} <= observed)"
        )
    out.attrs = {
        "title": "relmc posterior predictive check",
        "model": str(getattr(idata, "posterior", xr.Dataset()).attrs.get("model", "")),
        "dataset": str(getattr(idata, "posterior", xr.Dataset()).attrs.get("dataset", "")),
    }
    return out
