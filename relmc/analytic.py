"""Closed forms for checkpointed jobs: optimum intervals, expected wall time, ETTR and MTTF.

All times are in hours and all rates per hour unless a name says otherwise. Every function
accepts scalars or NumPy arrays (broadcast together, e.g. one value per posterior draw) and
returns a float for all-scalar input, an array otherwise. Sources are summarised in
``SOURCES.md`` in the relmc repository, §2.2–2.3 (Meta RSC) and §4 (Young 1974, Daly 2006).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from relmc import cluster

__all__ = [
    "young_interval",
    "daly_interval",
    "daly_expected_wall",
    "ettr_first_order",
    "mttf",
    "rsc_projected_mttf",
]

_REL_TOL = 1e-9  # same segment-count tolerance as the simulation (relmc.sim.reference)


def _check(name: str, value, *, lower: float = 0.0, inclusive: bool = False) -> np.ndarray:
    """Return ``value`` as a float array; raise ValueError unless finite and above ``lower``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or array of them, got {value!r}") from None
    bound = f">= {lower:g}" if inclusive else f"> {lower:g}"
    ok = np.isfinite(arr) & ((arr >= lower) if inclusive else (arr > lower))
    if not np.all(ok):
        bad = arr[~ok] if arr.ndim else arr
        raise ValueError(f"{name} must be finite and {bound} (hours or per hour); got {bad!r}")
    return arr


def _out(result: np.ndarray, *inputs) -> float | np.ndarray:
    """Return a Python float when every input was a scalar."""
    if all(np.ndim(x) == 0 for x in inputs):
        return float(result)
    return result


def young_interval(snapshot_hours, mttf_hours):
    """Young's (1974) first-order optimum checkpoint interval, ``sqrt(2 delta M)``.

    Parameters
    ----------
    snapshot_hours : float or array_like
        Blocking checkpoint (dump) time ``delta``, hours, > 0.
    mttf_hours : float or array_like
        Mean time between failures of the whole job ``M``, hours, > 0.

    Returns
    -------
    float or ndarray
        Compute time between checkpoints, hours.
    """
    d = _check("snapshot_hours", snapshot_hours)
    m = _check("mttf_hours", mttf_hours)
    # the product of the roots: 2 d m overflows where d and m are both past ~1e154 hours
    return _out(np.sqrt(2.0 * d) * np.sqrt(m), snapshot_hours, mttf_hours)


def daly_interval(snapshot_hours, mttf_hours):
    """Daly's (2006, eq. 37) higher-order optimum checkpoint interval.

    ``tau = sqrt(2 delta M) [1 + sqrt(delta / (2M)) / 3 + (delta / (2M)) / 9] - delta`` for
    ``delta < 2M``, else ``tau = M``. ``tau`` is compute time between checkpoints, excluding
    ``delta``. With restart 10 min and dump 5 min Daly reports 117 min at ``M = 24`` h, 57 min
    at 6 h and 9.1 min at 15 min (the restart time does not enter the optimum).

    Parameters
    ----------
    snapshot_hours : float or array_like
        Blocking checkpoint (dump) time ``delta``, hours, > 0.
    mttf_hours : float or array_like
        Mean time between failures of the whole job ``M``, hours, > 0.

    Returns
    -------
    float or ndarray
        Compute time between checkpoints, hours.
    """
    d = _check("snapshot_hours", snapshot_hours)
    m = _check("mttf_hours", mttf_hours)
    x = d / (2.0 * m)
    tau = np.sqrt(2.0 * d) * np.sqrt(m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return _out(np.where(d < 2.0 * m, tau, m), snapshot_hours, mttf_hours)


def daly_expected_wall(work_hours, interval_hours, snapshot_hours, restart_hours, mttf_hours):
    """Daly's exact expected wall time of a checkpointed job with exponential failures.

    For ``W`` a multiple of ``tau`` this is Daly's (2006) formula
    ``E[T] = M e^{R/M} (e^{(tau + delta)/M} - 1) W / tau``. It is exact under these
    assumptions: one exponential failure process with mean ``M`` that runs during compute,
    checkpoints and restarts (a failure during a restart triggers a new restart); every failure
    costs the compute since the last checkpoint plus a restart ``R``; a checkpoint is durable as
    soon as its blocking write ends (no background persist); no detection latency, node swap,
    spare wait or planned maintenance; the job starts computing at once (no initial restart).

    When ``W`` is not a multiple of ``tau`` the job is laid out as the simulation does it:
    ``n = ceil(W / tau)`` segments (up to a relative tolerance of 1e-9 so float noise never
    adds an empty one), ``n - 1`` of length ``tau`` and a last one of ``r = W - (n-1) tau``,
    each followed by a checkpoint. By linearity over segments the exact mean is
    ``M e^{R/M} [(n - 1)(e^{(tau + delta)/M} - 1) + (e^{(r + delta)/M} - 1)]``, which equals
    Daly's formula when ``r = tau``.

    Parameters
    ----------
    work_hours : float or array_like
        Compute the job needs ``W``, hours, > 0.
    interval_hours : float or array_like
        Compute time between checkpoints ``tau``, hours, > 0.
    snapshot_hours : float or array_like
        Blocking checkpoint time ``delta``, hours, >= 0.
    restart_hours : float or array_like
        Restart time ``R`` (start-up plus checkpoint load), hours, >= 0.
    mttf_hours : float or array_like
        Mean time between failures of the whole job ``M = 1 / Lambda``, hours, > 0.

    Returns
    -------
    float or ndarray
        Expected wall-clock hours. ``inf`` where the exponentials overflow (hopeless jobs).
    """
    w = _check("work_hours", work_hours)
    tau = _check("interval_hours", interval_hours)
    d = _check("snapshot_hours", snapshot_hours, inclusive=True)
    r_ = _check("restart_hours", restart_hours, inclusive=True)
    m = _check("mttf_hours", mttf_hours)
    q = w / tau
    n = np.maximum(1.0, np.ceil(q * (1.0 - _REL_TOL)))
    rem = w - (n - 1.0) * tau
    with np.errstate(over="ignore"):  # overflow to inf is the honest answer for hopeless jobs
        per_segments = (n - 1.0) * np.expm1((tau + d) / m) + np.expm1((rem + d) / m)
        result = m * np.exp(r_ / m) * per_segments
    return _out(result, work_hours, interval_hours, snapshot_hours, restart_hours, mttf_hours)


def ettr_first_order(
    n_nodes, failure_rate_per_node_hour, restart_hours, interval_hours, snapshot_hours
):
    """First-order expected ETTR of the Meta RSC study (Kokolis et al. 2025).

    ``E[ETTR] ~= (1 - N r (u0 + dt / 2)) / (1 + w / dt)``: each failure (rate ``N r``) costs a
    restart ``u0`` plus, on average, half an interval of recomputation; each interval ``dt``
    of compute costs a blocking write ``w``. First order in ``N r (u0 + dt)``: it ignores
    failures during restarts and checkpoints and becomes meaningless (even negative) when
    ``N r (u0 + dt / 2)`` approaches 1; it is returned as is, not clipped.

    Parameters
    ----------
    n_nodes : float or array_like
        Nodes in the job ``N``, > 0.
    failure_rate_per_node_hour : float or array_like
        Failures per node-hour ``r`` (divide a per-node-day rate by 24), >= 0.
    restart_hours : float or array_like
        Restart overhead ``u0``, hours, >= 0.
    interval_hours : float or array_like
        Checkpoint interval ``dt``, hours, > 0.
    snapshot_hours : float or array_like
        Blocking checkpoint write time ``w``, hours, >= 0.

    Returns
    -------
    float or ndarray
        Expected effective training time ratio (dimensionless).
    """
    n = _check("n_nodes", n_nodes)
    r = _check("failure_rate_per_node_hour", failure_rate_per_node_hour, inclusive=True)
    u0 = _check("restart_hours", restart_hours, inclusive=True)
    dt = _check("interval_hours", interval_hours)
    wcp = _check("snapshot_hours", snapshot_hours, inclusive=True)
    result = (1.0 - n * r * (u0 + dt / 2.0)) / (1.0 + wcp / dt)
    return _out(
        result,
        n_nodes,
        failure_rate_per_node_hour,
        restart_hours,
        interval_hours,
        snapshot_hours,
    )


def mttf(
    n_gpus: int,
    rates: Mapping[str, object],
    units: Mapping[str, str],
    shape: cluster.ClusterShape | None = None,
):
    """Mean time to failure of a job on ``n_gpus`` GPUs, ``1 / sum_c rate_c units_c(N)``.

    Parameters
    ----------
    n_gpus : int
        GPUs in the job, >= 1.
    rates : mapping of str to float or array_like
        Failure rate of each category per exposure unit-hour, >= 0. Values may be arrays with
        a leading sample dimension (e.g. posterior draws), broadcast together.
    units : mapping of str to str
        Exposure unit of each category in ``rates`` (one of :data:`relmc.cluster.UNITS`).
    shape : relmc.cluster.ClusterShape, optional
        Packing of GPUs into nodes and racks; the Llama 3 defaults when omitted.

    Returns
    -------
    float or ndarray
        Mean time to failure, hours; ``inf`` where every rate is zero. A float when every rate
        is a scalar, otherwise an array of the broadcast shape.
    """
    if not isinstance(rates, Mapping) or not rates:
        raise ValueError(f"rates must be a non-empty mapping category -> rate, got {rates!r}")
    if not isinstance(units, Mapping):
        raise ValueError(f"units must be a mapping category -> unit, got {units!r}")
    missing = sorted(set(rates) - set(units))
    if missing:
        raise ValueError(f"units: no unit for categories {missing}; give one of {cluster.UNITS}")
    total: Any = 0.0
    for cat, rate in rates.items():
        lam = _check(f"rates[{cat!r}]", rate, inclusive=True)
        total = total + lam * cluster.units(n_gpus, units[cat], shape)
    with np.errstate(divide="ignore"):
        result = 1.0 / np.asarray(total, dtype=np.float64)
    return _out(result, *rates.values())


def rsc_projected_mttf(n_gpus: int, failures_per_node_day=6.5e-3):
    """Job MTTF projected as in the Meta RSC study: nodes in series, 8 GPUs per node.

    ``MTTF(N) = 1 / (ceil(N / 8) r_f)``. With the RSC-1 rate of 6.5 failures per 1000
    node-days this gives 1.803 h at 16,384 GPUs and 0.225 h at 131,072 GPUs
    (``SOURCES.md`` §2.2; fits large jobs only).

    Parameters
    ----------
    n_gpus : int
        GPUs in the job, >= 1.
    failures_per_node_day : float or array_like
        Failure rate per node-day, >= 0 (RSC-1: 6.5e-3, RSC-2: 2.34e-3).

    Returns
    -------
    float or ndarray
        Mean time to failure, hours.
    """
    r = _check("failures_per_node_day", failures_per_node_day, inclusive=True)
    shape = cluster.ClusterShape(gpus_per_node=8)
    result = mttf(n_gpus, {"node": r / 24.0}, {"node": "node"}, shape)
    return _out(np.asarray(result), failures_per_node_day)
