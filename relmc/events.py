r"""Event logs: one row per interruption, validated, and synthetic logs from known parameters.

An *event log* records when each interruption happened, its category and, optionally, the node
it struck and the size of the job it interrupted. :func:`load_events` reads one (CSV, DataFrame
or mapping of columns) into an :class:`xarray.Dataset`; :func:`synthetic_events` draws one from
known parameters (to test a pipeline, or the models of :mod:`relmc.models.events`);
:func:`write_events_csv` writes either back as CSV.

Columns (names case-insensitive; other columns are ignored)
------------------------------------------------------------
``time`` (required)
    When the interruption happened: either an ISO 8601 timestamp (``2024-05-01T13:45:00``,
    optionally with a UTC offset) or a number of hours since the window's start. All rows use
    the same kind.
``category`` (required)
    The failure category (any non-empty text).
``node`` (optional)
    Identifier of the node struck (any non-empty text). With it the models can estimate
    per-node heterogeneity (lemon nodes); every row then needs one.
``gpus`` (optional)
    GPUs of the job that was interrupted, an integer in [1, n_gpus]. Recorded
    (``event_gpus``); the models of :mod:`relmc.models.events` do not use it yet.
``unit``, ``group`` (optional)
    The category's exposure unit (one of :data:`relmc.cluster.UNITS`; default ``node``) and
    root-cause group; every row of a category must agree.

The window and the fleet are arguments, not file metadata: ``n_gpus`` (the fleet observed, in
service for the whole window) and the window's ``start`` and ``end``.

Exposure convention
-------------------
Rates are per *wall-clock* unit-hour of the observation window: the exposure of a category is
``relmc.cluster.units(n_gpus, unit) * duration_hours``, every GPU in service for the whole
window, as :func:`relmc.load_counts` computes it from ``n_gpus`` and ``duration_hours``.

The time-varying intensity
--------------------------
The models and the generator share one form, the one the simulation's contract uses
(:mod:`relmc.sim`): on a node of the mixed fleet, category :math:`c` fails at

.. math::

    \lambda_c(t) = \rho_c \, (1 + a_c \cos(\omega (h_0 + t - \phi_c))) \, T(t), \qquad
    T(t) = \left(\frac{A + t}{A + D}\right)^{\beta - 1}, \qquad \omega = 2\pi / 24,

with :math:`t` hours since the window's start, :math:`h_0` the hour of day at the start,
:math:`D` the window's length, :math:`A` the fleet's age at the start (hours since the
power-law process began), :math:`a_c \in [0, 1]` the diurnal amplitude, :math:`\phi_c` the hour
of day of the peak and :math:`\beta > 0` the Crow-AMSAA shape. :math:`T(D) = 1`, so
:math:`\rho_c` is the daily-mean rate *at the window's end*, where a job started after the log
begins; the fleet's age there, :math:`A + D`, is what :class:`relmc.FailureModel` calls
``fleet_age_hours``. :func:`shape_integral` integrates the intensity in closed form.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import numbers
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from relmc import cluster
from relmc._cf import provenance
from relmc._io import atomic_path, read_text
from relmc._seed import SeedLike, child_seed, resolve_seed, seed_attrs
from relmc.datasets import _read_csv_text, _Row, delimiter_hint, with_maintenance
from relmc.errors import FieldError, bound_text

__all__ = [
    "load_events",
    "one_clock_time",
    "synthetic_events",
    "write_events_csv",
    "intensity_shape",
    "shape_integral",
    "OMEGA",
    "SERIES_HOURS",
    "SERIES_TERMS",
    "QUADRATURE_HOURS",
    "QUADRATURE_PANELS",
    "QUADRATURE_NODES",
    "THIN_MAX_RATIO",
    "DEFAULT_UNIT",
    "MAX_EVENT_ROWS",
]

#: Angular frequency of the daily cycle, radians per hour.
OMEGA = 2.0 * math.pi / 24.0
#: :func:`shape_integral` integrates a trend with a daily cycle by a power series before the
#: fleet is this old (hours).
SERIES_HOURS = 24.0
#: Terms of that power series: :math:`(24 \omega)^{40} / 40! < 10^{-16}`.
SERIES_TERMS = 40
#: ... by Gauss-Legendre quadrature from :data:`SERIES_HOURS` to this age (hours), by parts
#: after.
QUADRATURE_HOURS = 168.0
#: Equal panels of that quadrature (each at most a day).
QUADRATURE_PANELS = 6
#: Gauss-Legendre nodes a panel.
QUADRATURE_NODES = 20
#: :func:`synthetic_events` thins a homogeneous process while the trend's maximum over the
#: window is at most this many times its mean (candidates per event), else the trend's own.
THIN_MAX_RATIO = 32.0
#: Exposure unit of a category whose unit the log does not state.
DEFAULT_UNIT = "node"
#: The most rows an event log may have (bounds the memory a hostile input can take; a CSV is
#: also bounded by relmc's 16 MiB input limit).
MAX_EVENT_ROWS = 1_000_000

_REQUIRED = ("time", "category")
_OPTIONAL = ("node", "gpus", "unit", "group")


# --------------------------------------------------------------------------------------------
# the intensity's shape (NumPy; the models have a PyTensor twin)


def intensity_shape(
    t: Any,
    *,
    start_hour: Any = 0.0,
    amplitude: Any = 0.0,
    peak_hour: Any = 0.0,
    trend_shape: Any = 1.0,
    fleet_age_hours: Any = 1.0,
    duration_hours: Any = 1.0,
) -> np.ndarray:
    r"""Relative intensity :math:`(1 + a \cos(\omega(h_0 + t - \phi))) T(t)` (broadcast).

    Parameters
    ----------
    t : array_like
        Hours since the window's start.
    start_hour : array_like
        Hour of day at the window's start (:math:`h_0`).
    amplitude, peak_hour : array_like
        Diurnal amplitude :math:`a \in [0, 1]` and hour of day of the peak :math:`\phi`.
    trend_shape : array_like
        Crow-AMSAA shape :math:`\beta > 0` (1: no trend).
    fleet_age_hours : array_like
        The fleet's age at the window's start, :math:`A > 0` hours.
    duration_hours : array_like
        The window's length :math:`D`, hours; :math:`T(D) = 1`.

    Returns
    -------
    numpy.ndarray
        Dimensionless; multiply by the daily-mean rate at the window's end.
    """
    t = np.asarray(t, dtype=float)
    diurnal = 1.0 + np.asarray(amplitude) * np.cos(OMEGA * (start_hour + t - peak_hour))
    beta = np.asarray(trend_shape, dtype=float)
    age = np.asarray(fleet_age_hours, dtype=float)
    trend = np.exp((beta - 1.0) * np.log((age + t) / (age + duration_hours)))
    return diurnal * trend


def shape_integral(
    t0: Any,
    t1: Any,
    *,
    start_hour: Any = 0.0,
    amplitude: Any = 0.0,
    peak_hour: Any = 0.0,
    trend_shape: Any = 1.0,
    fleet_age_hours: Any = 1.0,
    duration_hours: Any = 1.0,
) -> np.ndarray:
    r"""Integral of :func:`intensity_shape` over :math:`[t_0, t_1]` (hours).

    The trend alone integrates exactly:
    :math:`\int T = \frac{A + D}{\beta} [u^\beta]_{u_0}^{u_1}`, :math:`u = (A + t)/(A + D)`.
    The diurnal term :math:`a \int T(t) \cos\theta(t)\,dt`, :math:`\theta = \omega(h_0 + t -
    \phi)`, is integrated in three pieces by the fleet's age :math:`s = A + t` (without a
    trend, :math:`\beta = 1`, the last alone, exact).

    *Before a day* (:data:`SERIES_HOURS`), by the power series of :math:`e^{i\omega s}`
    (:data:`SERIES_TERMS` terms), each term exact,

    .. math::

        \int s^{\beta - 1} e^{i \omega s}\,ds
        = \sum_{n \ge 0} \frac{(i\omega)^n s^{n + \beta}}{n!\,(n + \beta)},

    whose terms peak near :math:`n = \omega s \le 2\pi` at ~85 times their sum (so rounding
    stays near :math:`10^{-14}`; the singular :math:`s^{\beta - 1}` at a new fleet is exact).
    *From a day to a week* (:data:`QUADRATURE_HOURS`), by Gauss-Legendre quadrature,
    :data:`QUADRATURE_PANELS` equal panels of :data:`QUADRATURE_NODES` nodes (a panel is at
    most a day: one cycle, and :math:`s^{\beta - 1}` is analytic there, its singularity at
    least a panel's length away).

    *From a week*, by parts four times,

    .. math::

        \int T \cos\theta = \left[\frac{T \sin\theta}{\omega} + \frac{T' \cos\theta}{\omega^2}
        - \frac{T'' \sin\theta}{\omega^3} - \frac{T''' \cos\theta}{\omega^4}
        \right]_{t_0}^{t_1} + R, \qquad
        |R| \le \frac{|T'''(t_1) - T'''(t_0)|}{\omega^4}

    (:math:`T^{(4)}` keeps one sign), exact for :math:`\beta \in \{1, 2, 3\}`. Its terms
    grow as powers of :math:`(\beta - k) / (\omega s)`: the error falls with age, and
    diverges in a young fleet (x250 of the integral itself at 1 h, 1e-3 at 48 h).

    Measured against 30-digit quadrature (mpmath; amplitude 1, peak hours 2 and 14, the 19
    equal sub-intervals of a 720-h window and 12 shorter ones, fleets 1e-6 h to 168 h old at
    the window's start), as a fraction of the interval's :math:`\int T`: before a week below
    :math:`2 \times 10^{-12}` (:math:`0.2 \le \beta \le 7.4`); after, below
    :math:`3.2 \times 10^{-6}` for :math:`0.2 \le \beta \le 5` and :math:`7 \times 10^{-5}`
    for :math:`\beta = 7.4`, less as the fleet ages.

    Parameters
    ----------
    t0, t1 : array_like
        Bounds, hours since the window's start (broadcast).
    start_hour, amplitude, peak_hour, trend_shape, fleet_age_hours, duration_hours
        As in :func:`intensity_shape`.

    Returns
    -------
    numpy.ndarray
        Hours (the expected number of events of a process of daily-mean rate 1 per hour at the
        window's end).
    """
    beta = np.asarray(trend_shape, dtype=float)
    age = np.asarray(fleet_age_hours, dtype=float)
    scale = age + np.asarray(duration_hours, dtype=float)
    t0, t1 = np.asarray(t0, dtype=float), np.asarray(t1, dtype=float)
    start, peak = np.asarray(start_hour, dtype=float), np.asarray(peak_hour, dtype=float)

    def log_u(t):
        return np.log((age + t) / scale)

    trend_part = _trend_integral(log_u(t0), log_u(t1), beta, scale)

    def boundary(t):
        # sum_k T^(k) G_k: G_0 = sin/w, G_1 = cos/w^2, G_2 = -sin/w^3, G_3 = -cos/w^4
        theta = OMEGA * (start_hour + t - peak_hour)
        s, c = np.sin(theta), np.cos(theta)
        deriv = np.exp((beta - 1.0) * log_u(t))  # T, then T', T'', T'''
        total = deriv * s / OMEGA
        for k, trig in ((1, c / OMEGA**2), (2, -s / OMEGA**3), (3, -c / OMEGA**4)):
            deriv = deriv * (beta - k) / (age + t)
            total = total + trig * deriv
        return total

    # the young piece [t0, tm]: empty (tm = t0) from a week and without a trend
    tm = np.where(beta == 1.0, t0, np.clip(QUADRATURE_HOURS - age, t0, np.maximum(t0, t1)))
    cycle = boundary(t1) - boundary(tm)
    if np.any(tm > t0):
        shape = np.broadcast_shapes(tm.shape, t1.shape, scale.shape, start.shape, peak.shape)
        young = np.zeros(shape)
        where = np.broadcast_to(tm > t0, shape)
        b = [np.broadcast_to(v, shape)[where] for v in (t0, tm, beta, age, scale)]
        t0_, tm_, beta_, age_, scale_ = b
        c, s = _young_cycle(age_ + t0_, age_ + tm_, beta_, scale_)
        phase = OMEGA * (np.broadcast_to(start - peak, shape)[where] - age_)
        young[where] = np.cos(phase) * c - np.sin(phase) * s
        cycle = cycle + young
    return trend_part + np.asarray(amplitude) * cycle


def _trend_integral(lu0: Any, lu1: Any, beta: Any, scale: Any) -> np.ndarray:
    """``scale / beta * (u1^beta - u0^beta)`` from the logs of ``u``; exact as beta -> 0.

    At ``beta == 0`` its limit, ``scale * (lu1 - lu0)`` (the integral of ``1/u``).
    """
    d = lu1 - lu0
    head = scale * np.exp(beta * lu0)
    return np.where(beta == 0, head * d, head * np.expm1(beta * d) / np.where(beta == 0, 1.0, beta))


def _young_nodes(s0: Any, s1: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`shape_integral`'s quadrature nodes and weights on ``[max(s0, 24), s1]`` (ages).

    Shapes ``s0.shape + (QUADRATURE_PANELS * QUADRATURE_NODES,)``; weights 0 where the piece
    is empty.
    """
    x, w = np.polynomial.legendre.leggauss(QUADRATURE_NODES)
    a = np.maximum(np.asarray(s0, dtype=float), SERIES_HOURS)[..., None]
    h = np.maximum(np.asarray(s1, dtype=float)[..., None] - a, 0.0) / QUADRATURE_PANELS
    panel = np.repeat(np.arange(QUADRATURE_PANELS), QUADRATURE_NODES)
    unit = np.tile((1.0 + x) / 2.0, QUADRATURE_PANELS)
    return a + h * (panel + unit), h * np.tile(w / 2.0, QUADRATURE_PANELS)


def _young_cycle(s0, s1, beta, scale) -> tuple[np.ndarray, np.ndarray]:
    r"""Integrate the young piece of :func:`shape_integral` (NumPy).

    :math:`\int_{s_0}^{s_1} (s / S)^{\beta - 1} (\cos \omega s, \sin \omega s)\,ds` for ages
    :math:`s_0 \le s_1 \le` :data:`QUADRATURE_HOURS`.
    """
    # the power series on [s0, min(s1, 24)] (empty: both ends at 24 h)
    ls0 = np.log(np.minimum(s0, SERIES_HOURS))
    ls1 = np.log(np.minimum(s1, SERIES_HOURS))
    log_scale = np.log(scale)
    re = _trend_integral(ls0 - log_scale, ls1 - log_scale, beta, scale)  # n = 0
    im = np.zeros_like(re)
    for n in range(1, SERIES_TERMS + 1):
        # S (s/S)^beta (omega s)^n / n! / (n + beta), at each end
        c = n * math.log(OMEGA) - math.lgamma(n + 1.0)
        diff = (
            scale
            * np.exp(c - beta * log_scale)
            * (np.exp((beta + n) * ls1) - np.exp((beta + n) * ls0))
            / (n + beta)
        )
        if n % 4 == 1:
            im += diff
        elif n % 4 == 2:
            re -= diff
        elif n % 4 == 3:
            im -= diff
        else:
            re += diff
    # Gauss-Legendre on [max(s0, 24), s1], node by node (a draw-by-day array stays small)
    nodes, weights = _young_nodes(s0, s1)
    for j in range(nodes.shape[-1]):
        s, wt = nodes[..., j], weights[..., j]
        wt_t = wt * np.exp((beta - 1.0) * np.log(s / scale))
        re += wt_t * np.cos(OMEGA * s)
        im += wt_t * np.sin(OMEGA * s)
    return re, im


# --------------------------------------------------------------------------------------------
# reading rows


def _read_csv(text: str, origin: str) -> tuple[list[str], list[_Row]]:
    """Header and rows of CSV text, at most :data:`MAX_EVENT_ROWS` events (one reader)."""
    return _read_csv_text(text, origin, max_rows=MAX_EVENT_ROWS, what="events")


def _read_source(src: Any) -> tuple[list[str], list[_Row], str, str]:
    """Header, rows, a name for messages and a default log name of any accepted input."""
    if isinstance(src, str | os.PathLike):
        path = Path(src)
        header, rows = _read_csv(read_text(path, "events"), str(path))
        return header, rows, str(path), path.stem
    if hasattr(src, "columns") and hasattr(src, "to_dict"):  # a DataFrame
        src = {c: src[c].tolist() for c in src.columns}
        origin = "DataFrame"
    elif isinstance(src, Mapping):
        origin = "columns"
    else:
        raise ValueError(
            "events must be a CSV path, a pandas DataFrame or a mapping of columns; "
            f"got {type(src).__name__}"
        )
    header = [str(k).strip().lower() for k in src]
    lists = [list(np.asarray(v, dtype=object).ravel()) for v in src.values()]
    if len({len(v) for v in lists}) > 1:
        sizes = ", ".join(f"{h}: {len(v)}" for h, v in zip(header, lists, strict=True))
        raise ValueError(f"{origin}: columns have different lengths ({sizes})")
    n = len(lists[0]) if lists else 0
    if n > MAX_EVENT_ROWS:
        raise ValueError(f"{origin}: more than {MAX_EVENT_ROWS:,} rows (events); got {n:,}")
    rows = [_Row(i + 1, 0, {h: v[i] for h, v in zip(header, lists, strict=True)}) for i in range(n)]
    return header, rows, origin, "user"


def _missing(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip() == ""
    if value is None:
        return True
    na = pd.isna(value)
    return bool(na) if np.ndim(na) == 0 else False


def _text(value: Any) -> str:
    return "" if _missing(value) else str(value).strip()


def _as_hours(value: Any) -> float | None:
    """``value`` as a finite or infinite float if it is a number (or numeric text), else None."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _as_datetime(value: Any) -> dt.datetime | None:
    """``value`` as a datetime if it is one (or ISO 8601 text, or numpy datetime64), else None."""
    if isinstance(value, dt.datetime):
        return value.to_pydatetime() if isinstance(value, pd.Timestamp) else value
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value).to_pydatetime()
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def one_clock_time(time_hours: Any, start_hour: float) -> str | None:
    """``"HH:MM"`` when events at two or more instants all fall at that time of day, else None.

    ``time_hours`` are hours since a window starting at ``start_hour`` o'clock. A log of dates
    without clock times (``2024-06-01``) puts every event at midnight: a daily cycle fitted
    to it is the format's (:func:`load_events` warns; ``fit_events(diurnal=...)`` refuses).
    Times within a second of each other on the clock count as one time of day.
    """
    t = np.asarray(time_hours, dtype=float)
    if t.size < 2 or np.ptp(t) < 1.0 / 3600.0:  # one instant (a burst): nothing to say
        return None
    clock = np.mod(float(start_hour) + t, 24.0)
    # distance on the 24-h circle from the first event's time of day
    gap = np.abs(np.mod(clock - clock[0] + 12.0, 24.0) - 12.0)
    if not np.all(gap < 1.0 / 3600.0):
        return None
    minutes = int(round(float(clock[0]) * 60.0)) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _hour_of_day(t: dt.datetime) -> float:
    return t.hour + t.minute / 60.0 + (t.second + t.microsecond / 1e6) / 3600.0


def _check_gpus(value: Any, field: str = "n_gpus") -> int:
    """Return an observed fleet's GPUs, an integer in [1, ``relmc.cluster.MAX_GPUS``]."""
    return cluster.check_gpus(value, field)


def _check_age(value: Any, field: str = "fleet_age_at_start_hours") -> float:
    """Return a fleet's age, hours in (0, ``relmc.cluster.MAX_FLEET_AGE_HOURS``]."""
    return _check_real(value, field, 0.0, cluster.MAX_FLEET_AGE_HOURS, hi_open=False)


def _check_real(
    value: Any,
    field: str,
    lo: float,
    hi: float = math.inf,
    *,
    lo_open: bool = True,
    hi_open: bool = True,
) -> float:
    """Return ``value`` as a float if it is a finite number in the interval, else raise.

    The message names ``field`` and the interval; with no bounds, only "a finite number".
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    try:
        v = float(value) if ok else math.nan
    except OverflowError:  # an int beyond any float
        v = math.inf
    above = v > lo if lo_open else v >= lo
    below = v < hi if hi_open else v <= hi
    if not (above and below and math.isfinite(v)):
        if math.isinf(lo) and math.isinf(hi):
            allowed = ""
        else:
            left = "(" if lo_open or math.isinf(lo) else "["
            right = ")" if hi_open or math.isinf(hi) else "]"
            allowed = f" in {left}{lo:g}, {bound_text(hi)}{right}"
        raise FieldError(
            field.split(" ")[0],
            f"{field} must be a finite number{allowed}; got {value!r}",
        )
    return v


def _check_whole(value: Any, field: str, lo: int = 1) -> int:
    """Return ``value`` as an int if it is a whole number >= ``lo`` (``64.0`` too), else raise."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    try:
        v = float(value) if ok else math.nan
    except OverflowError:  # an int beyond any float
        v = math.inf
    if not (math.isfinite(v) and v.is_integer() and v >= lo):
        raise ValueError(f"{field} must be a whole number >= {lo}; got {value!r}")
    return int(v)


class _Window:
    """The observation window in hours, and how to turn a row's ``time`` into hours."""

    def __init__(self, kind: str, start: Any, end: Any, start_hour: Any, origin: str) -> None:
        self.kind = kind
        if kind == "hours":
            for name, value in (("start", start), ("end", end)):
                if value is not None and _as_hours(value) is None and _as_datetime(value):
                    raise FieldError(
                        name,
                        f"{origin}: the times are hours (the first row's is a number), so "
                        f"{name} must be hours on the log's time axis too; got {name}={value!r} "
                        "(or write the log's times as ISO 8601 timestamps)",
                    )
            self.start = 0.0 if start is None else _check_real(start, "start", -math.inf)
            if end is None:
                raise FieldError(
                    "end",
                    "end is required: the window's end, in hours on the log's time axis (the "
                    "log cannot say when observation stopped)",
                )
            self.end = _check_real(end, "end", -math.inf)
            self.start_hour = (
                0.0
                if start_hour is None
                else _check_real(start_hour, "start_hour", 0.0, 24.0, lo_open=False)
            )
            self.start_text = ""
            self.start_dt: dt.datetime | None = None
        else:
            if start_hour is not None:
                raise FieldError(
                    "start_hour",
                    "start_hour is only for times in hours; with ISO 8601 times the hour of day "
                    f"comes from start; got start_hour={start_hour!r}",
                )
            s, e = _as_datetime(start), _as_datetime(end)
            if s is None or e is None:
                raise FieldError(
                    "start" if s is None else "end",
                    f"{origin}: the times are ISO 8601 timestamps, so start and end must be ISO "
                    f"8601 timestamps (or datetimes) too; got start={start!r}, end={end!r}",
                )
            if (s.tzinfo is None) != (e.tzinfo is None):
                raise FieldError(
                    "end",
                    f"start and end must both have a UTC offset or both have none; got {start!r}, "
                    f"{end!r}",
                )
            self.start_dt = s
            self.start = 0.0
            self.end = (e - s).total_seconds() / 3600.0
            self.start_hour = _hour_of_day(s)
            self.start_text = s.isoformat()
        if not self.end > self.start:
            raise FieldError("end", f"end must be after start; got start={start!r}, end={end!r}")
        if not self.end - self.start <= cluster.MAX_WINDOW_HOURS:
            raise FieldError(
                "end",
                "the window (end - start) must be at most 1e6 hours (about 114 years); got "
                f"start={start!r}, end={end!r}",
            )

    @property
    def duration(self) -> float:
        return self.end - self.start

    def hours(self, value: Any, where: str, origin: str) -> float:
        """Hours since the window's start of one row's ``time``, validated."""
        if _missing(value):
            raise ValueError(f"{origin}: {where}: field 'time' is empty")
        if self.kind == "hours":
            h = _as_hours(value)
            if h is None or not math.isfinite(h):
                raise ValueError(
                    f"{origin}: {where}: field 'time' must be a finite number of hours, like the "
                    f"first row's; got {value!r}"
                )
            t = h - self.start
        else:
            d = _as_datetime(value)
            if d is None:
                raise ValueError(
                    f"{origin}: {where}: field 'time' must be an ISO 8601 timestamp, like the "
                    f"first row's; got {value!r}"
                )
            assert self.start_dt is not None
            if (d.tzinfo is None) != (self.start_dt.tzinfo is None):
                raise ValueError(
                    f"{origin}: {where}: field 'time' must "
                    f"{'have' if self.start_dt.tzinfo is not None else 'not have'} a UTC offset, "
                    f"like start; got {value!r}"
                )
            t = (d - self.start_dt).total_seconds() / 3600.0
        if not 0.0 <= t <= self.duration:
            off = -t if t < 0.0 else t - self.duration
            side = "before start" if t < 0.0 else "after end"
            raise FieldError(
                "window",  # the row's time or the window: the command line names both
                f"{origin}: {where}: field 'time' must be inside the window [start, end] "
                f"(0 to {self.duration:g} h after start); got {value!r}, {_span(off)} {side}",
            )
        return t


def _span(hours: float) -> str:
    """``hours`` as a reader wants it: seconds, minutes or hours (3 significant digits)."""
    if hours < 1.0 / 60.0:
        return f"{hours * 3600.0:.3g} s"
    if hours < 1.0:
        return f"{hours * 60.0:.3g} min"
    return f"{hours:.4g} h"


def _kind_of(value: Any) -> str:
    if _as_hours(value) is not None:
        return "hours"
    return "iso8601"


# --------------------------------------------------------------------------------------------
# building the Dataset


def _build(
    *,
    time: np.ndarray,
    category_of: np.ndarray,
    node: np.ndarray,
    gpus: np.ndarray,
    categories: list[str],
    unit: list[str],
    group: list[str],
    n_gpus: int,
    shape: cluster.ClusterShape,
    duration: float,
    attrs: dict[str, Any],
) -> xr.Dataset:
    """Assemble the event-log schema: events along ``event``, counts along ``category``."""
    order = np.argsort(time, kind="stable")
    time, category_of, node, gpus = time[order], category_of[order], node[order], gpus[order]
    count = np.bincount(category_of, minlength=len(categories)).astype(np.int64)
    exposure = np.array([cluster.units(n_gpus, u, shape) * duration for u in unit])
    ds = xr.Dataset(
        {
            "event_time": (
                "event",
                time.astype(np.float64),
                {"units": "h", "long_name": "time of the interruption since the window's start"},
            ),
            "event_category": (
                "event",
                np.asarray(categories, dtype=str)[category_of]
                if len(time)
                else np.array([], dtype=str),
                {"long_name": "category of the interruption"},
            ),
            "event_node": (
                "event",
                node.astype(str),
                {"long_name": "node struck ('' when the log names none)"},
            ),
            "event_gpus": (
                "event",
                gpus.astype(np.int64),
                {"units": "1", "long_name": "GPUs of the interrupted job (0: not given)"},
            ),
            "count": (
                "category",
                count,
                {"units": "1", "long_name": "observed interruptions or failures"},
            ),
            "exposure": (
                "category",
                exposure,
                {
                    "units": "h",
                    "long_name": "exposure: units of the category's `unit` times hours observed",
                },
            ),
            "unit": ("category", np.asarray(unit, dtype=str)),
            "group": ("category", np.asarray(group, dtype=str)),
        },
        coords={"category": np.asarray(categories, dtype=str)},
        attrs={**attrs, **provenance()},
    )
    ds["unit"].attrs = {"long_name": "exposure unit the category's rate is per"}
    ds["group"].attrs = {"long_name": "root-cause group ('' when none)"}
    return ds


def _window_attrs(
    *,
    n_gpus: int,
    shape: cluster.ClusterShape,
    duration: float,
    start_hour: float,
    fleet_age: float,
    start_text: str,
    time_input: str,
    has_nodes: bool,
) -> dict[str, Any]:
    return {
        "n_gpus": int(n_gpus),
        **cluster.shape_attrs(shape),  # recorded by the fits (relmc.cluster.recorded_shape)
        "n_nodes": int(cluster.units(n_gpus, "node", shape)),
        "duration_hours": float(duration),
        "start_hour": float(start_hour),
        "window_start": start_text,
        "fleet_age_at_start_hours": float(fleet_age),
        "time_input": time_input,
        "has_nodes": int(has_nodes),
        "rate_units": "events per unit-hour",
        "exposure_assumption": (
            f"exposure = relmc.cluster.units({n_gpus}, unit) x {duration:g} h: every GPU in "
            "service for the whole window, wall-clock hours "
            f"({shape.gpus_per_node} GPUs per node)"
        ),
    }


def load_events(
    path_or_dataframe: str | os.PathLike[str] | Mapping[str, Any] | Any,
    *,
    n_gpus: int,
    end: Any,
    start: Any = None,
    start_hour: float | None = None,
    fleet_age_at_start_hours: float | None = None,
    units: Mapping[str, str] | None = None,
    shape: cluster.ClusterShape | None = None,
    name: str = "",
    title: str = "",
    notes: str = "",
    maintenance_count: int | None = None,
) -> xr.Dataset:
    """Load and validate an event log: one row per interruption.

    Parameters
    ----------
    path_or_dataframe : str, path, pandas.DataFrame or mapping
        A CSV file (blank lines and lines starting with ``#`` are skipped), a DataFrame or a
        mapping of column name -> values, with the columns of the module docstring:
        ``time`` and ``category``, optionally ``node``, ``gpus``, ``unit``, ``group``.
    n_gpus : int
        GPUs of the fleet observed, in [1, 1e8] (``relmc.cluster.MAX_GPUS``, the largest
        cluster a scenario takes), all in service for the whole window (the exposure
        convention of the module docstring). The fleet has ``ceil(n_gpus / gpus_per_node)``
        nodes; a log naming more distinct nodes is refused.
    end : float, str or datetime
        The window's end: hours on the log's time axis when ``time`` is numeric, else an ISO
        8601 timestamp (or datetime). Every event must lie in ``[start, end]``, and the
        window ``end - start`` is at most 1e6 hours (``relmc.cluster.MAX_WINDOW_HOURS``,
        about 114 years, which keeps every exposure finite).
    start : float, str or datetime, optional
        The window's start, of the same kind as ``end``: default 0 h for numeric times;
        required for ISO 8601 times. Event times are stored as hours since it.
    start_hour : float, optional
        Hour of day at the window's start, in [0, 24), the clock of diurnal terms (use the
        data centre's local time). Numeric times only (default 0); with ISO 8601 times it is
        ``start``'s clock time as written.
    fleet_age_at_start_hours : float, optional
        The fleet's age at the window's start (hours since the power-law trend's process
        began, e.g. since the fleet entered service), in (0, 1e7] hours
        (``relmc.cluster.MAX_FLEET_AGE_HOURS``, over a thousand years, beyond which the
        trend's ratio of ages is no longer resolved); needed only by fits with a trend.
        Stored as ``attrs["fleet_age_at_start_hours"]`` (0: unknown).
    units : mapping, optional
        Category -> exposure unit (one of :data:`relmc.cluster.UNITS`), for logs without a
        ``unit`` column; a category named here but absent from the log is kept with zero
        events. Default ``DEFAULT_UNIT`` (``node``).
    shape : relmc.cluster.ClusterShape, optional
        GPU packing (Llama 3 defaults: 8 GPUs per node).
    name, title, notes : str, optional
        Recorded in ``attrs`` (``name`` defaults to the file's stem, or "user").
    maintenance_count : int, optional
        Planned interruptions (maintenance) in the window, which the log leaves out: a whole
        number in [0, 2**53], stored as ``maintenance_count``. Fits record
        ``maintenance_count / duration_hours`` as the planned maintenance rate, which the
        default scenario of a fit takes (:func:`relmc.load_counts`' argument of the same
        name). Default: none recorded.

    Returns
    -------
    xarray.Dataset
        Along ``event`` (sorted by time): ``event_time`` (hours since the window's start),
        ``event_category``, ``event_node`` ('' without a node column), ``event_gpus`` (0
        without a gpus column). Along ``category`` (first appearance in the log, then
        categories only in ``units``): ``count``, ``exposure`` (unit-hours), ``unit`` and
        ``group``, the schema of :func:`relmc.load_counts`, so :func:`relmc.fit_conjugate`
        fits the log's counts directly. ``attrs``: ``n_gpus``, ``gpus_per_node``,
        ``n_nodes``, ``duration_hours``, ``start_hour``, ``window_start`` (ISO text, '' for
        numeric times), ``fleet_age_at_start_hours``, ``time_input`` (``hours`` or
        ``iso8601``), ``has_nodes`` (1 or 0), ``rate_units``, ``exposure_assumption``,
        ``name``, ``title``, ``source``, ``checked``, ``notes``.

    Raises
    ------
    ValueError
        Before anything is returned, naming the row (and file line), the field and the
        reason: a missing column, no rows, a time that is empty, of the other kind than the
        first row's, not finite or outside the window, an empty category or node, a gpus
        value that is not an integer in [1, n_gpus], a unit not in
        :data:`relmc.cluster.UNITS`, a category whose rows disagree on unit or group, more
        distinct nodes than the fleet has; or a bad ``n_gpus``, window, ``start_hour``,
        ``fleet_age_at_start_hours``, ``units`` or ``maintenance_count``.
    """
    header, rows, origin, default_name = _read_source(path_or_dataframe)
    n_gpus = _check_gpus(n_gpus)
    shape = cluster.check_shape(shape)
    fleet_age = 0.0 if fleet_age_at_start_hours is None else _check_age(fleet_age_at_start_hours)
    declared = _check_units(units)
    if len(set(header)) != len(header):
        dups = sorted({h for h in header if header.count(h) > 1})
        raise ValueError(f"{origin}: header: duplicate column(s) {dups}")
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        raise ValueError(
            f"{origin}: header: missing column(s) {missing}{delimiter_hint(header)}; need "
            f"{', '.join(_REQUIRED)} "
            f"(optionally {', '.join(_OPTIONAL)}); got {header}"
        )
    if not rows:
        raise ValueError(f"{origin}: no data rows (only a header and comments)")
    first = rows[0].fields["time"]
    if _missing(first):
        raise ValueError(f"{origin}: {rows[0].where()}: field 'time' is empty")
    window = _Window(_kind_of(first), start, end, start_hour, origin)
    has_nodes = "node" in header
    has_gpus = "gpus" in header
    n_nodes = int(cluster.units(n_gpus, "node", shape))

    times = np.empty(len(rows))
    cat_index = np.empty(len(rows), dtype=np.int64)
    node = np.full(len(rows), "", dtype=object)
    gpus = np.zeros(len(rows), dtype=np.int64)
    categories: dict[str, int] = {}
    unit_of: dict[str, tuple[str, int]] = {}
    group_of: dict[str, tuple[str, int]] = {}
    nodes_seen: set[str] = set()
    for i, row in enumerate(rows):
        where = row.where()
        times[i] = window.hours(row.fields["time"], where, origin)
        cat = _text(row.fields["category"])
        if not cat:
            raise ValueError(f"{origin}: {where}: field 'category' is empty")
        cat_index[i] = categories.setdefault(cat, len(categories))
        if "unit" in header:
            u = _text(row.fields["unit"]).lower()
            if u not in cluster.UNITS:
                raise ValueError(
                    f"{origin}: {where}: field 'unit' must be one of {', '.join(cluster.UNITS)}; "
                    f"got {row.fields['unit']!r}"
                )
            _agree(unit_of, cat, u, row, "unit", origin)
        if "group" in header:
            _agree(group_of, cat, _text(row.fields["group"]), row, "group", origin)
        if has_nodes:
            nd = _text(row.fields["node"])
            if not nd:
                raise ValueError(
                    f"{origin}: {where}: field 'node' is empty (with a node column every row "
                    "names its node; leave the column out if nodes are unknown)"
                )
            node[i] = nd
            nodes_seen.add(nd)
        if has_gpus:
            gpus[i] = _gpus(row.fields["gpus"], n_gpus, where, origin)
    clock = one_clock_time(times, window.start_hour)
    if clock is None:  # dates only: two events of a day share a time and may both be real
        _warn_duplicates(times, cat_index, node, gpus, rows, origin, has_nodes, has_gpus)
    else:
        warnings.warn(
            f"{origin}: every event is at {clock} (dates without clock times?): the log says "
            "nothing of the time of day, and a daily cycle fitted to it would be the format's "
            "(fit_events refuses diurnal terms on it)",
            UserWarning,
            stacklevel=2,
        )
    if len(nodes_seen) > n_nodes:
        raise ValueError(
            f"{origin}: field 'node': the log names {len(nodes_seen):,} distinct nodes but a "
            f"fleet of n_gpus={n_gpus:,} has {n_nodes:,} ({shape.gpus_per_node} GPUs per node)"
        )
    for cat, u in declared.items():
        if cat in unit_of and unit_of[cat][0] != u:
            raise ValueError(
                f"units[{cat!r}] is {u!r} but the log's unit column says {unit_of[cat][0]!r} "
                f"(row {unit_of[cat][1]})"
            )
        categories.setdefault(cat, len(categories))
    names = list(categories)
    unit = [unit_of[c][0] if c in unit_of else declared.get(c, DEFAULT_UNIT) for c in names]
    group = [group_of[c][0] if c in group_of else "" for c in names]
    attrs = {
        "name": name or default_name,
        "title": title or f"event log from {origin}",
        "source": origin,
        "checked": (
            "Not checked against any publication: a user's event log, validated for form only "
            "(times inside the window, known units, consistent categories)."
        ),
        "notes": notes,
        **_window_attrs(
            n_gpus=n_gpus,
            shape=shape,
            duration=window.duration,
            start_hour=window.start_hour,
            fleet_age=fleet_age,
            start_text=window.start_text,
            time_input=window.kind,
            has_nodes=has_nodes,
        ),
    }
    ds = _build(
        time=times,
        category_of=cat_index,
        node=node,
        gpus=gpus,
        categories=names,
        unit=unit,
        group=group,
        n_gpus=n_gpus,
        shape=shape,
        duration=window.duration,
        attrs=attrs,
    )
    return with_maintenance(ds, maintenance_count)


def _warn_duplicates(
    times, cat_index, node, gpus, rows: list[_Row], origin: str, has_nodes: bool, has_gpus: bool
) -> None:
    """Warn of rows that repeat another's time, category, node and gpus (counted twice)."""
    first: dict[tuple, int] = {}
    pairs = []
    for i in range(len(rows)):
        key = (float(times[i]), int(cat_index[i]), str(node[i]), int(gpus[i]))
        if key in first:
            pairs.append((rows[first[key]].number, rows[i].number))
        else:
            first[key] = i
    if pairs:
        shown = ", ".join(f"row {b} repeats row {a}" for a, b in pairs[:5])
        more = f" and {len(pairs) - 5} more" if len(pairs) > 5 else ""
        fields = ["time", "category", *(["node"] if has_nodes else [])]
        fields += ["gpus"] if has_gpus else []
        what = ", ".join(fields[:-1]) + " and " + fields[-1]
        warnings.warn(
            f"{origin}: {len(pairs)} row(s) repeat another's {what} ({shown}{more}): each is "
            "counted as an interruption of its own; drop them if the log recorded one event "
            "twice",
            UserWarning,
            stacklevel=3,
        )


def _agree(seen: dict[str, tuple[str, int]], cat: str, value: str, row: _Row, field: str, origin):
    if cat in seen and seen[cat][0] != value:
        raise ValueError(
            f"{origin}: {row.where()}: field {field!r} is {value!r} but row {seen[cat][1]} gives "
            f"category {cat!r} the {field} {seen[cat][0]!r}; a category has one {field}"
        )
    seen.setdefault(cat, (value, row.number))


def _gpus(value: Any, n_gpus: int, where: str, origin: str) -> int:
    if _missing(value):
        return 0
    x = _as_hours(value)
    if x is None or not math.isfinite(x) or not float(x).is_integer() or not 1 <= x <= n_gpus:
        raise ValueError(
            f"{origin}: {where}: field 'gpus' must be an integer in [1, n_gpus={n_gpus}] (or "
            f"blank); got {value!r}"
        )
    return int(x)


def _check_units(units: Any) -> dict[str, str]:
    if units is None:
        return {}
    if not isinstance(units, Mapping):
        raise ValueError(f"units must be a mapping category -> unit; got {type(units).__name__}")
    out = {}
    for c, u in units.items():
        if not isinstance(c, str) or not c.strip():
            raise ValueError(f"units: category names must be non-empty text; got {c!r}")
        if u not in cluster.UNITS:
            raise ValueError(f"units[{c!r}] must be one of {', '.join(cluster.UNITS)}; got {u!r}")
        out[c.strip()] = str(u)
    return out


# --------------------------------------------------------------------------------------------
# synthetic logs


def _per_category(value: Any, names: list[str], field: str, lo: float, hi: float, *, hi_open: bool):
    """Return a number or a mapping category -> number as an array in ``names`` order, checked."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"{field}: unknown categories {unknown}; known: {names}")
        missing = sorted(set(names) - set(value))
        if missing:
            raise ValueError(f"{field}: no value for categories {missing}")
        items = [(f"{field}[{c!r}]", value[c]) for c in names]
    else:
        items = [(field, value)] * len(names)
    out = []
    for label, v in items:
        ok = isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))
        if not ok or not (lo <= float(v) <= hi) or (hi_open and float(v) == hi):
            raise ValueError(
                f"{label} must be a number in [{bound_text(lo)}, {bound_text(hi)}"
                f"{')' if hi_open else ']'}; got {v!r}"
            )
        out.append(float(v))
    return np.array(out)


def synthetic_events(
    rate: Mapping[str, float],
    *,
    n_gpus: int,
    duration_hours: float,
    units: Mapping[str, str] | None = None,
    start_hour: float = 0.0,
    diurnal_amplitude: float | Mapping[str, float] = 0.0,
    diurnal_peak_hour: float | Mapping[str, float] = 0.0,
    trend_shape: float = 1.0,
    fleet_age_at_start_hours: float = 8760.0,
    bad_node_fraction: float = 0.0,
    bad_node_multiplier: float | Mapping[str, float] = 1.0,
    frailty_variance: float = 0.0,
    shape: cluster.ClusterShape | None = None,
    seed: SeedLike = None,
) -> xr.Dataset:
    r"""Draw a synthetic event log from known parameters: per-node event times by thinning.

    Each of the fleet's ``n`` nodes is bad with probability ``f = bad_node_fraction``
    (independently). A node of type ``s`` fails in category :math:`c` as an inhomogeneous
    Poisson process of intensity :math:`w_{s,c}\, \rho_c\, (1 + a_c \cos(\omega(h_0 + t -
    \phi_c)))\, T(t)` (module docstring), with :math:`w = 1/(1 - f + f m_c)` for a good node
    and :math:`m_c / (1 - f + f m_c)` for a bad one, so that the fleet mixed at fraction
    :math:`f` fails at :math:`\rho_c` per node-hour on average, the convention of the
    simulation's contract. The superposition over nodes is drawn by thinning (Lewis and
    Shedler 1979): candidate times of a homogeneous process at the intensity's maximum over
    the window, each kept with probability intensity / maximum; where the trend's maximum is
    more than :data:`THIN_MAX_RATIO` times its mean over the window (a young fleet burning in:
    1 h old with shape 0.2 would take ~3e4 candidates an event), the candidates are the
    trend's own process instead (its integral inverted in closed form), each kept with
    probability :math:`(1 + a_c \cos) / (1 + a_c)`. Each kept event is then given
    a node, bad with probability :math:`m_c B / (n - B + m_c B)` for :math:`B` bad nodes and
    uniform within its type. That is the same law as drawing each node's process separately.

    Parameters
    ----------
    rate : mapping
        Category -> daily-mean rate per unit-hour *at the window's end* (>= 0), the quantity
        the fits of :mod:`relmc.models.events` call ``rate``.
    n_gpus : int
        GPUs of the fleet, in [1, 1e8] (``ceil(n_gpus / gpus_per_node)`` nodes).
    duration_hours : float
        The window's length, in (0, 1e6] hours (``relmc.cluster.MAX_WINDOW_HOURS``).
    units : mapping, optional
        Category -> exposure unit of its rate (default ``DEFAULT_UNIT``, ``node``).
    start_hour : float
        Hour of day at the window's start, in [0, 24).
    diurnal_amplitude, diurnal_peak_hour : float or mapping
        Per category (or one for all): amplitude in [0, 1] and hour of day of the peak in
        [0, 24).
    trend_shape : float
        Crow-AMSAA shape :math:`\beta`, in (0, 100] (1: no trend).
    fleet_age_at_start_hours : float
        The fleet's age at the window's start, in (0, 1e7] hours.
    bad_node_fraction : float
        Probability that a node is bad, in [0, 1].
    bad_node_multiplier : float or mapping
        How many times as often a bad node fails, per category (or one for all), >= 1.
    frailty_variance : float
        Instead of two node types: each node's rates are multiplied by its own frailty
        :math:`w \sim \mathrm{Gamma}(1/v, v)` (mean 1, variance :math:`v`), the same for every
        category (the ``nodes="frailty"`` model of :func:`relmc.fit_events`); >= 0, 0: off.
        Not with ``bad_node_fraction > 0``. The frailties are drawn from child 2 of the seed.
    shape : relmc.cluster.ClusterShape, optional
        GPU packing (Llama 3 defaults).
    seed : int, SeedSequence, Generator or None
        Root of randomness: child 0 draws the node types, child ``(1, c)`` category ``c``'s
        events, so a category's events do not depend on the categories after it.

    Returns
    -------
    xarray.Dataset
        The schema of :func:`load_events` (nodes named ``n00000``, ...; only nodes with
        events appear, as in a real log; ``event_gpus`` 0), with ``attrs["truth"]`` (JSON of
        the parameters), ``n_bad_nodes`` (the bad nodes drawn), ``checked`` saying the log is
        synthetic, and the root seed.
    """
    if not isinstance(rate, Mapping) or not rate:
        raise ValueError(f"rate must be a non-empty mapping category -> rate; got {rate!r}")
    names = [str(c) for c in rate]
    rates = _per_category(dict(rate), names, "rate", 0.0, math.inf, hi_open=True)
    n_gpus = _check_gpus(n_gpus)
    duration = _check_real(
        duration_hours, "duration_hours", 0.0, cluster.MAX_WINDOW_HOURS, hi_open=False
    )
    declared = _check_units(units)
    unknown = sorted(set(declared) - set(names))
    if unknown:
        raise ValueError(f"units: unknown categories {unknown}; known: {names}")
    unit = [declared.get(c, DEFAULT_UNIT) for c in names]
    h0 = _check_real(start_hour, "start_hour", 0.0, 24.0, lo_open=False)
    amp = _per_category(diurnal_amplitude, names, "diurnal_amplitude", 0.0, 1.0, hi_open=False)
    peak = _per_category(diurnal_peak_hour, names, "diurnal_peak_hour", 0.0, 24.0, hi_open=True)
    beta = _check_real(trend_shape, "trend_shape", 0.0, 100.0, hi_open=False)
    age = _check_age(fleet_age_at_start_hours)
    f = _check_real(bad_node_fraction, "bad_node_fraction", 0.0, 1.0, lo_open=False, hi_open=False)
    mult = _per_category(
        bad_node_multiplier, names, "bad_node_multiplier", 1.0, math.inf, hi_open=True
    )
    v = _check_real(frailty_variance, "frailty_variance", 0.0, 100.0, lo_open=False)
    if v > 0 and f > 0:
        raise ValueError(
            "frailty_variance: a gamma frailty and bad nodes are alternatives; give "
            f"bad_node_fraction=0 with frailty_variance > 0 (got {f:g} and {v:g})"
        )
    shape = cluster.ClusterShape() if shape is None else shape
    root = resolve_seed(seed)

    n_nodes = int(cluster.units(n_gpus, "node", shape))
    frailty = None
    if v > 0:
        frailty = np.random.default_rng(child_seed(root, 2)).gamma(1.0 / v, v, size=n_nodes)
        frailty_cdf = np.cumsum(frailty)
    is_bad = np.random.default_rng(child_seed(root, 0)).random(n_nodes) < f
    bad_ids = np.flatnonzero(is_bad)
    good_ids = np.flatnonzero(~is_bad)
    per_node = rates * np.array([cluster.units(n_gpus, u, shape) for u in unit]) / n_nodes
    times, cats, nodes = [], [], []
    for c in range(len(names)):
        rng = np.random.default_rng(child_seed(root, 1, c))
        norm = 1.0 - f + f * mult[c]
        fleet = per_node[c] * (good_ids.size + mult[c] * bad_ids.size) / norm
        if frailty is not None:
            fleet = per_node[c] * float(frailty_cdf[-1])
        shape_kw = dict(
            start_hour=h0,
            amplitude=amp[c],
            peak_hour=peak[c],
            trend_shape=beta,
            fleet_age_hours=age,
            duration_hours=duration,
        )
        # T is monotone, so its maximum over the window is at an end
        t_max = max(
            float(
                intensity_shape(0.0, trend_shape=beta, fleet_age_hours=age, duration_hours=duration)
            ),
            1.0,
        )
        scale = age + duration
        log_u0 = math.log(age / scale)
        trend_total = float(_trend_integral(log_u0, 0.0, beta, scale))  # int_0^D T
        if t_max * duration <= THIN_MAX_RATIO * trend_total:
            bound = (1.0 + amp[c]) * t_max
            candidates = rng.uniform(0.0, duration, size=rng.poisson(fleet * bound * duration))
            kept = candidates[
                rng.random(candidates.size) * bound < intensity_shape(candidates, **shape_kw)
            ]
        else:
            # the trend's own process by inversion of its integral, thinned by the cycle
            n_cand = rng.poisson(fleet * (1.0 + amp[c]) * trend_total)
            u0b = math.exp(beta * log_u0)  # ((A + t) / (A + D))^beta at t = 0
            x = np.exp(np.log(u0b + rng.random(n_cand) * (1.0 - u0b)) / beta)
            candidates = np.minimum(np.maximum(scale * x - age, 0.0), duration)
            cycle = 1.0 + amp[c] * np.cos(OMEGA * (h0 + candidates - peak[c]))
            kept = candidates[rng.random(n_cand) * (1.0 + amp[c]) < cycle]
        if frailty is not None:  # a node in proportion to its frailty
            u = rng.random(kept.size) * frailty_cdf[-1]
            node = np.minimum(np.searchsorted(frailty_cdf, u, side="right"), n_nodes - 1)
        else:
            p_bad = (
                mult[c] * bad_ids.size / (good_ids.size + mult[c] * bad_ids.size) if fleet else 0.0
            )
            on_bad = rng.random(kept.size) < p_bad
            node = np.where(
                on_bad,
                bad_ids[rng.integers(0, max(bad_ids.size, 1), kept.size)] if bad_ids.size else -1,
                good_ids[rng.integers(0, max(good_ids.size, 1), kept.size)]
                if good_ids.size
                else -1,
            )
        times.append(kept)
        cats.append(np.full(kept.size, c, dtype=np.int64))
        nodes.append(node)
    node_ids = np.concatenate(nodes)
    width = len(str(max(n_nodes - 1, 0)))
    truth = {
        "rate": dict(zip(names, rates.tolist(), strict=True)),
        "units": dict(zip(names, unit, strict=True)),
        "start_hour": h0,
        "diurnal_amplitude": dict(zip(names, amp.tolist(), strict=True)),
        "diurnal_peak_hour": dict(zip(names, peak.tolist(), strict=True)),
        "trend_shape": beta,
        "fleet_age_at_start_hours": age,
        "bad_node_fraction": f,
        "bad_node_multiplier": dict(zip(names, mult.tolist(), strict=True)),
        "frailty_variance": v,
        "n_gpus": n_gpus,
        "duration_hours": duration,
    }
    attrs = {
        "name": "synthetic",
        "title": "synthetic event log drawn by relmc.events.synthetic_events",
        "source": "relmc.events.synthetic_events",
        "checked": "Synthetic: drawn from the known parameters in attrs['truth']; not data.",
        "notes": "",
        "truth": json.dumps(truth),
        "n_bad_nodes": int(bad_ids.size),
        **seed_attrs(root),
        **_window_attrs(
            n_gpus=n_gpus,
            shape=shape,
            duration=duration,
            start_hour=h0,
            fleet_age=age,
            start_text="",
            time_input="hours",
            has_nodes=True,
        ),
    }
    return _build(
        time=np.concatenate(times),
        category_of=np.concatenate(cats),
        node=np.array([f"n{k:0{width}d}" for k in node_ids], dtype=object),
        gpus=np.zeros(node_ids.size, dtype=np.int64),
        categories=names,
        unit=unit,
        group=[""] * len(names),
        n_gpus=n_gpus,
        shape=shape,
        duration=duration,
        attrs=attrs,
    )


def write_events_csv(
    events: xr.Dataset,
    path: str | os.PathLike[str],
    *,
    start: str | dt.datetime | None = None,
    comments: Sequence[str] = (),
) -> Path:
    """Write an event log as CSV that :func:`load_events` reads back (atomically).

    Columns ``time``, ``category``, ``unit``, then ``group`` when any category has one,
    ``node`` when the log has nodes and ``gpus`` when any is given. ``time`` is hours since
    the window's start (6 decimals: 3.6 ms), or with ``start`` (the window's start, an ISO
    8601 timestamp or datetime) ISO 8601 timestamps to the microsecond. Each entry of
    ``comments`` becomes a ``#`` line at the top (provenance). Categories without events are
    not in the file (give them to ``load_events`` through ``units``). Read it back with
    ``load_events(path, n_gpus=attrs["n_gpus"], end=attrs["duration_hours"],
    start_hour=attrs["start_hour"])`` (hours), or ``start=start, end=start + duration``.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        If ``events`` is not an event log or ``start`` not a timestamp.
    """
    if not isinstance(events, xr.Dataset) or "event_time" not in events:
        raise ValueError("events must be an event log from load_events or synthetic_events")
    origin = None
    if start is not None:
        origin = _as_datetime(start)
        if origin is None:
            raise ValueError(f"start must be an ISO 8601 timestamp or a datetime; got {start!r}")
    names = events["category"].values.tolist()
    unit_of = dict(zip(names, events["unit"].values.tolist(), strict=True))
    group_of = dict(zip(names, events["group"].values.tolist(), strict=True))
    has_groups = any(group_of.values())
    has_nodes = bool(events.attrs.get("has_nodes", 0))
    gpus = events["event_gpus"].values
    has_gpus = bool(np.any(gpus > 0))
    buf = io.StringIO()
    for line in comments:
        for part in str(line).splitlines() or [""]:
            buf.write(f"# {part}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "time",
            "category",
            "unit",
            *(["group"] if has_groups else []),
            *(["node"] if has_nodes else []),
            *(["gpus"] if has_gpus else []),
        ]
    )
    for t, c, n, g in zip(
        events["event_time"].values,
        events["event_category"].values,
        events["event_node"].values,
        gpus,
        strict=True,
    ):
        if origin is None:
            when = f"{t:.6f}"
        else:
            when = (origin + dt.timedelta(microseconds=round(float(t) * 3.6e9))).isoformat()
        row = [when, c, unit_of[c]]
        if has_groups:
            row.append(group_of[c])
        if has_nodes:
            row.append(n)
        if has_gpus:
            row.append(str(int(g)) if g > 0 else "")
        w.writerow(row)
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(buf.getvalue(), encoding="utf-8")
    return path
