r"""Models of event logs: time-varying rates and per-node heterogeneity (PyMC, NUTS).

:func:`fit_events` fits an event log from :func:`relmc.events.load_events` (or
``synthetic_events()``) and returns an :class:`arviz.InferenceData` that
:func:`relmc.simulate` and :func:`relmc.project` accept like any other fit: ``posterior["rate"]``
(chain, draw, category) per unit-hour with ``unit`` and ``group`` coordinates, plus the physics
parameters per draw. :func:`compare_event_models` ranks several fits of one log by PSIS-LOO.

Model
-----
On node :math:`k` of type :math:`s_k` (good or bad), category :math:`c` fails as an
inhomogeneous Poisson process of intensity

.. math::

    \lambda_{kc}(t) = \mu_c\, w_{s_k}\, \frac{h_c(t)}{H_c}, \qquad
    h_c(t) = (1 + a_c \cos(\omega(h_0 + t - \phi_c)))\, T(t), \qquad
    H_c = \int_0^D h_c(t)\, dt,

:math:`T(t) = ((A + t) / (A + D))^{\beta - 1}` (the form of :mod:`relmc.events` and of the
simulation's contract, :mod:`relmc.sim`), :math:`\mu_c` the expected events of an average node
over the window, and :math:`H_c` integrated without quadrature
(:func:`relmc.events.shape_integral`: a power series in the fleet's first day, quadrature
to a week, by parts after). Each term is optional:

- ``diurnal``: ``"category"`` (an amplitude :math:`a_c` and peak hour :math:`\phi_c` per
  category), ``"pooled"`` (one pair for all) or ``None`` (:math:`a = 0`);
- ``trend``: the fleet-level Crow-AMSAA shape :math:`\beta` (``False``: :math:`\beta = 1`);
- ``nodes``: ``"mixture"``, a two-point mixture: each node is bad with probability :math:`f`
  and a bad node fails :math:`m` times as often as a good one, in every category (one
  multiplier), :math:`w_{good} = 1/(1 - f + f m)`, :math:`w_{bad} = m\, w_{good}`, so the
  fleet mixed at :math:`f` fails at :math:`\mu_c` per node on average (the contract's
  convention for ``bad_fraction`` and ``bad_multiplier``); ``"frailty"``, a gamma frailty:
  node :math:`k` fails :math:`z_k` times as often, :math:`z_k \sim \mathrm{Gamma}(1/v, 1/v)`
  (mean 1, variance :math:`v`); ``None``: every node alike. Node terms need the log's
  ``node`` column.

Likelihood
----------
The point-process density of the log, with each node's type (or frailty) integrated out:
per node, :math:`\sum_{i \in k} \log(\mu_{c_i} h_{c_i}(t_i) / H_{c_i})` plus, over the
node's total :math:`Y_k` events and :math:`M = \sum_c \mu_c`: :math:`-M` (no node term);
:math:`\log \sum_s \pi_s\, w_s^{Y_k} e^{-w_s M}` (mixture); :math:`\log\Gamma(1/v + Y_k) -
\log\Gamma(1/v) - \frac{1}{v}\log(1 + v M) - Y_k \log(1/v + M)` (frailty). Nodes with no
events contribute too (the fleet has ``attrs["n_nodes"]`` nodes).

Priors
------
- :math:`\mu_c` (the window-mean rate): :math:`\propto \mu_c^{1/(2K) - 1}` for :math:`K`
  categories, the default of :func:`relmc.fit_conjugate` (total Jeffreys: the total rate's
  prior is Jeffreys' :math:`\mathrm{Gamma}(1/2, 0)`); improper, with a proper posterior.
  Without time or node terms the posterior of ``rate`` is then exactly ``fit_conjugate``'s.
- :math:`a_c \sim \mathrm{Uniform}(0, 1)`: every amplitude that keeps the intensity >= 0,
  equally; the peak's direction :math:`(\cos, \sin)(\omega\phi_c)` is a 2-D vector
  :math:`z` normalised, :math:`z` with a rotation-invariant density
  :math:`\propto e^{-(|z| - 1)^2 / (2 \cdot 0.2^2)}` (a ring): the peak hour is uniform, and
  the nuisance radius stays near 1, away from the origin where a well-determined direction
  makes a funnel (with a standard normal :math:`z`, NUTS diverged there in each of 11
  validation fits, 1-6 of 1,000 transitions; with the ring, in none of 3).
- :math:`\log\beta \sim \mathrm{Normal}(0, 1)`: centred on no trend, 90% prior mass on
  :math:`0.19 < \beta < 5.2`, from strong burn-in to strong wear-out.
- :math:`f \sim \mathrm{Beta}(1, 19)`: mean 5%, 90% below 14%; Meta's RSC reports lemon
  nodes as a small minority ("roughly forty faulty nodes" in a fleet of thousands, a
  secondary-source number, SOURCES.md §2.4). :math:`m - 1 \sim
  \mathrm{LogNormal}(\log 9, 1)`: median :math:`m = 10`, 90% in [2.7, 47]: an assumption
  (no published multiplier); a bad node that failed only slightly more often would not be
  worth excluding.
- :math:`v \sim \mathrm{Exponential}(1)`: a frailty variance of order 1 (exponential
  frailty) or less.

Outputs
-------
``rate`` is the daily-mean rate *at the window's end*, per unit-hour of the category's unit,
for the fleet mixed at its lemon fraction: :math:`\mu_c / H_c` per node-hour. The fleet's age
there is ``posterior.attrs["fleet_age_hours"]`` (:math:`A + D`), so a job simulated with
``FailureModel(trend_shape=..., fleet_age_hours=attrs["fleet_age_hours"])`` starts where the
log ends. Physics per draw, under the names the scenario uses: ``diurnal_amplitude``,
``diurnal_peak_hour`` (chain, draw, category; a pooled pair repeated along category),
``trend_shape`` (chain, draw), ``bad_node_fraction`` (chain, draw), ``bad_node_multiplier``
(chain, draw, category; one multiplier repeated). :func:`relmc.rates.physics_draws` reads
them in the draw order of the rates. ``frailty_variance`` (chain, draw) is reported but not
simulated: no scenario field takes it (the kernel's node model is the two-point lemon
mixture), so a simulation of a ``nodes="frailty"`` fit runs every node at ``rate``, the mean
over nodes (the frailty has mean 1), and warns so (:class:`~relmc.errors.UnreadFieldWarning`,
:data:`relmc.rates.NOT_SIMULATED_VARIABLES`), unless the scenario sets lemons of its own
(``bad_node_fraction``, ``bad_node_multiplier``): those then apply to the fit's rates as to
any rates (a frailty fit records no lemon draws to replace them). Such a fit is for comparing
node models (``az.compare``) and for its rates.

Pointwise log-likelihood
------------------------
``log_likelihood["events"]`` has one entry per node of the fleet (dim ``node``) when the log
names nodes, else one per day of the window (dim ``day``; the last may be partial): given the
parameters these are independent, so PSIS-LOO (``az.loo``) leaves one node (or day) out.
Every fit of one log uses the same unit, so ``az.compare`` ranks them.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from scipy import sparse, special

from relmc import cluster
from relmc._seed import SeedLike, child_seed, resolve_seed, seed_attrs
from relmc.events import (
    OMEGA,
    QUADRATURE_HOURS,
    SERIES_HOURS,
    SERIES_TERMS,
    _check_real,
    _check_whole,
    _young_nodes,
    intensity_shape,
    one_clock_time,
    shape_integral,
)
from relmc.models._common import (
    SAMPLE_STATS_VALUES,
    az,
    check_convergence,
    check_data,
    check_divergences,
    data_groups,
    draw_values,
    import_pymc,
    make_idata,
    sample_coords,
)
from relmc.models.hierarchical import check_sampling, sample_kwargs

__all__ = [
    "DIURNAL",
    "NODES",
    "PRIOR_TEXT",
    "EventData",
    "event_data",
    "event_model",
    "fit_events",
    "compare_event_models",
    "assemble",
]

DIURNAL: tuple[str | None, ...] = (None, "category", "pooled")
NODES: tuple[str | None, ...] = (None, "mixture", "frailty")

#: Prior hyperparameters (see the module docstring for the reasons).
LEMON_FRACTION_BETA = (1.0, 19.0)
LEMON_EXCESS_LOG_MEDIAN, LEMON_EXCESS_LOG_SD = math.log(9.0), 1.0
TREND_LOG_SD = 1.0
FRAILTY_VARIANCE_RATE = 1.0
PEAK_RING_WIDTH = 0.2

PRIOR_TEXT = {
    "rate": "window-mean events per node mu_c ~ mu_c^(1/(2K) - 1) (total Jeffreys, improper)",
    "diurnal": "a_c ~ Uniform(0, 1); peak direction (cos, sin)(w phi_c) = z / |z|, "
    f"z ~ exp(-(|z| - 1)^2 / (2 {PEAK_RING_WIDTH:g}^2)) (uniform peak hour)",
    "trend": f"log beta ~ Normal(0, {TREND_LOG_SD:g})",
    "mixture": f"f ~ Beta{LEMON_FRACTION_BETA}; m - 1 ~ LogNormal(log 9, {LEMON_EXCESS_LOG_SD:g})",
    "frailty": f"v ~ Exponential({FRAILTY_VARIANCE_RATE:g})",
}


# --------------------------------------------------------------------------------------------
# the data as arrays


@dataclass(frozen=True, eq=False)
class EventData:
    """An event log as the arrays the models use (see :func:`event_data`).

    Attributes
    ----------
    categories, units : ndarray of str, shape (K,)
        Category names and exposure units.
    time : ndarray, shape (n,)
        Hours since the window's start of each event.
    category : ndarray of int, shape (n,)
        Category index of each event.
    count : ndarray of int, shape (K,)
        Events per category.
    node : ndarray of int, shape (n,)
        Node index of each event (``-1`` without nodes).
    node_total : ndarray of int, shape (n_nodes,)
        Events of each node of the fleet (named nodes first, then the unnamed ones, 0 each).
    node_ids : ndarray of str, shape (n_nodes,)
        Node names ('' for nodes the log never names).
    n_nodes : int
        Nodes in the fleet.
    duration, start_hour, fleet_age : float
        Window length (h), hour of day at its start, the fleet's age at its start (h, 0:
        unknown).
    per_node_units : ndarray, shape (K,)
        ``n_nodes / units(n_gpus, unit_c)``: a rate per node-hour times this is per unit-hour.
    has_nodes : bool
        Whether the log names nodes (the pointwise unit is then the node, else the day).
    """

    categories: np.ndarray
    units: np.ndarray
    time: np.ndarray
    category: np.ndarray
    count: np.ndarray
    node: np.ndarray
    node_total: np.ndarray
    node_ids: np.ndarray
    n_nodes: int
    duration: float
    start_hour: float
    fleet_age: float
    per_node_units: np.ndarray
    has_nodes: bool

    @property
    def n_categories(self) -> int:
        """Number of categories ``K``."""
        return int(self.categories.size)

    def total_histogram(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct per-node totals and how many nodes have each."""
        values, mult = np.unique(self.node_total, return_counts=True)
        return values.astype(np.float64), mult.astype(np.float64)


def event_data(events: xr.Dataset, fleet_age_at_start_hours: float | None = None) -> EventData:
    """Validate an event log and return it as :class:`EventData`.

    Parameters
    ----------
    events : xarray.Dataset
        From :func:`relmc.events.load_events` or ``synthetic_events()``.
    fleet_age_at_start_hours : float, optional
        Overrides ``events.attrs["fleet_age_at_start_hours"]``, > 0.

    Raises
    ------
    ValueError
        When ``events`` is not an event log (naming the missing variable or attribute).
    """
    check_data(events, "events")
    for var in ("event_time", "event_category", "event_node"):
        if var not in events:
            raise ValueError(
                f"events is missing {var!r}: pass an event log from relmc.load_events or "
                "relmc.events.synthetic_events"
            )
    attrs = events.attrs
    for key in ("n_gpus", "gpus_per_node", "duration_hours", "start_hour"):
        if key not in attrs:
            raise ValueError(f"events.attrs is missing {key!r}: not an event log from load_events")
    duration = _check_real(
        attrs["duration_hours"],
        "events.attrs['duration_hours']",
        0.0,
        cluster.MAX_WINDOW_HOURS,
        hi_open=False,
    )
    start_hour = _check_real(
        attrs["start_hour"], "events.attrs['start_hour']", 0.0, 24.0, lo_open=False
    )
    n_gpus = cluster.check_gpus(attrs["n_gpus"], "events.attrs['n_gpus']", whole=True)
    gpus_per_node = _check_whole(attrs["gpus_per_node"], "events.attrs['gpus_per_node']")
    age = attrs.get("fleet_age_at_start_hours", 0.0)
    field = "events.attrs['fleet_age_at_start_hours']"
    if fleet_age_at_start_hours is not None:
        age, field = fleet_age_at_start_hours, "fleet_age_at_start_hours"
    age = _check_real(
        age,
        f"{field} (0: unknown)",
        0.0,
        cluster.MAX_FLEET_AGE_HOURS,
        lo_open=False,
        hi_open=False,
    )
    names = np.asarray(events["category"].values).astype(str)
    units = np.asarray(events["unit"].values).astype(str)
    # the log's own shape (racks of its nodes, links of its GPUs), as load_events counted its
    # exposure and as the fit records it for projections; a log written before the other
    # fields were recorded: Llama 3's, as then
    shape = cluster.recorded_shape(attrs) or cluster.ClusterShape(gpus_per_node=gpus_per_node)
    n_nodes = int(cluster.units(n_gpus, "node", shape))
    time = np.asarray(events["event_time"].values, dtype=np.float64)
    if np.any(~np.isfinite(time)) or np.any(time < 0) or np.any(time > duration):
        raise ValueError("events['event_time'] must lie in [0, duration_hours]")
    index = {c: i for i, c in enumerate(names.tolist())}
    cats = np.asarray(events["event_category"].values).astype(str)
    unknown = sorted(set(cats.tolist()) - set(index))
    if unknown:
        raise ValueError(f"events['event_category'] names categories {unknown} not in 'category'")
    category = np.array([index[c] for c in cats.tolist()], dtype=np.int64)
    has_nodes = bool(int(attrs.get("has_nodes", 0)))
    if has_nodes:
        ids, node = np.unique(
            np.asarray(events["event_node"].values).astype(str), return_inverse=True
        )
        if ids.size > n_nodes:
            raise ValueError(f"events names {ids.size} nodes but the fleet has {n_nodes}")
        node_total = np.zeros(n_nodes, dtype=np.int64)
        np.add.at(node_total, node, 1)
        node_ids = np.concatenate([ids, np.full(n_nodes - ids.size, "", dtype=ids.dtype)])
    else:
        node = np.full(time.size, -1, dtype=np.int64)
        node_total = np.zeros(0, dtype=np.int64)
        node_ids = np.zeros(0, dtype=str)
    return EventData(
        categories=names,
        units=units,
        time=time,
        category=category,
        count=np.bincount(category, minlength=names.size).astype(np.int64),
        node=node.astype(np.int64),
        node_total=node_total,
        node_ids=node_ids,
        n_nodes=n_nodes,
        duration=duration,
        start_hour=start_hour,
        fleet_age=age,
        per_node_units=np.array([n_nodes / cluster.units(n_gpus, u, shape) for u in units]),
        has_nodes=has_nodes,
    )


# --------------------------------------------------------------------------------------------
# the PyMC model


def _check_terms(diurnal: Any, trend: Any, nodes: Any, data: EventData) -> None:
    if diurnal not in DIURNAL:
        raise ValueError(f"diurnal must be one of {DIURNAL}; got {diurnal!r}")
    if not isinstance(trend, bool):
        raise ValueError(f"trend must be True or False; got {trend!r}")
    if nodes not in NODES:
        raise ValueError(f"nodes must be one of {NODES}; got {nodes!r}")
    if nodes is not None and not data.has_nodes:
        raise ValueError(
            f"nodes={nodes!r} needs an event log with a node column (events.attrs['has_nodes'] "
            "is 0); use nodes=None"
        )
    if trend and not data.fleet_age > 0:
        raise ValueError(
            "fleet_age_at_start_hours must be > 0 for trend=True (the fleet's age at the "
            "window's start sets the power law's clock); give it to load_events or fit_events"
        )
    clock = one_clock_time(data.time, data.start_hour)
    if diurnal is not None and clock is not None:
        raise ValueError(
            f"diurnal={diurnal!r}: every one of the log's {data.time.size} events is at "
            f"{clock} (dates without clock times?): a daily cycle fitted to them would be the "
            "format's, not the fleet's; use diurnal=None, or give the events' times of day"
        )


def _shape_integral_pt(t0, t1, h0, amp, cos_p, sin_p, beta, age, duration):
    """PyTensor twin of :func:`relmc.events.shape_integral` (peak as a unit vector).

    ``t0``, ``t1``, ``h0``, ``age`` and ``duration`` are numbers (the data); ``beta`` is the
    number 1.0 without a trend.
    """
    import pytensor.tensor as pt

    scale = age + duration
    # the data's logs in NumPy: PyTensor makes a Python float that float32 holds exactly
    # (0.75) a float32 constant, and its log a float32 one (~5e-8 off)
    lu0, lu1 = np.log(np.float64((age + t0) / scale)), np.log(np.float64((age + t1) / scale))

    def trend_integral(l0, l1):
        # scale / beta (u1^beta - u0^beta) from the logs of u (relmc.events._trend_integral)
        return scale * pt.exp(beta * l0) * pt.expm1(beta * (l1 - l0)) / beta

    trend_part = trend_integral(lu0, lu1)

    def boundary(t):
        x = OMEGA * (h0 + t)
        # theta = x - psi: sin and cos of the difference from the peak's unit vector
        s = np.sin(x) * cos_p - np.cos(x) * sin_p
        c = np.cos(x) * cos_p + np.sin(x) * sin_p
        deriv = pt.exp((beta - 1.0) * np.log(np.float64((age + t) / scale)))
        total = deriv * s / OMEGA
        for k, trig in ((1, c / OMEGA**2), (2, -s / OMEGA**3), (3, -c / OMEGA**4)):
            deriv = deriv * (beta - k) / (age + t)
            total = total + trig * deriv
        return total

    # the young piece [t0, tm]: relmc.events.shape_integral's power series to 24 h and its
    # quadrature to a week (nodes fixed by the data)
    trend = not (isinstance(beta, float) and beta == 1.0)
    tm = min(max(QUADRATURE_HOURS - age, t0), t1) if trend else t0
    cycle = boundary(t1) - boundary(tm)
    if tm > t0:
        s0, s1 = age + t0, age + tm
        ls0, ls1 = math.log(min(s0, SERIES_HOURS)), math.log(min(s1, SERIES_HOURS))
        log_scale = math.log(scale)
        re = trend_integral(ls0 - log_scale, ls1 - log_scale)  # n = 0
        n = np.arange(1.0, SERIES_TERMS + 1.0)
        base = n * math.log(OMEGA) - special.gammaln(n + 1.0)
        diff = (
            scale
            * pt.exp(base - beta * log_scale)
            * (pt.exp((beta + n) * ls1) - pt.exp((beta + n) * ls0))
            / (n + beta)
        )
        quarter = n.astype(np.int64) % 4
        re = re + (diff * ((quarter == 0) * 1.0 - (quarter == 2) * 1.0)).sum()
        im = (diff * ((quarter == 1) * 1.0 - (quarter == 3) * 1.0)).sum()
        nodes, weights = _young_nodes(s0, s1)
        wt_t = weights * pt.exp((beta - 1.0) * np.log(nodes / scale))
        re = re + (wt_t * np.cos(OMEGA * nodes)).sum()
        im = im + (wt_t * np.sin(OMEGA * nodes)).sum()
        # int T cos(x - psi), x = omega s + d: (cos d re - sin d im) cos psi
        # + (sin d re + cos d im) sin psi
        d = OMEGA * (h0 - age)
        c_part = math.cos(d) * re - math.sin(d) * im
        s_part = math.sin(d) * re + math.cos(d) * im
        cycle = cycle + (cos_p * c_part + sin_p * s_part)
    return trend_part + amp * cycle


def event_model(data: EventData, *, diurnal: str | None, trend: bool, nodes: str | None):
    """Build the PyMC model of the module docstring for one event log.

    Free variables: ``log_mu`` (K,), and with the terms ``amplitude`` and ``peak_vector``
    (one row per category, or one pooled), ``trend_shape``, ``bad_node_fraction`` and
    ``lemon_excess`` (``m - 1``), or ``frailty_variance``.
    """
    import pytensor.tensor as pt

    pm = import_pymc()
    _check_terms(diurnal, trend, nodes, data)
    k = data.n_categories
    n_diurnal = k if diurnal == "category" else 1
    cat_map = np.arange(k) if diurnal == "category" else np.zeros(k, dtype=np.int64)
    values, mult = data.total_histogram()
    start = np.log(np.maximum(data.count, 0.5) / data.n_nodes)
    with pm.Model() as model:
        log_mu = pm.Flat("log_mu", shape=k, initval=start)
        # prior mu^(1/(2K) - 1) on mu is mu^(1/(2K)) on log mu
        pm.Potential("rate_prior", log_mu.sum() / (2.0 * k))
        mu = pt.exp(log_mu)
        t = data.time
        log_h = pt.zeros(t.shape)
        amp = cos_p = sin_p = 0.0
        if diurnal is not None:
            amp = pm.Uniform("amplitude", 0.0, 1.0, shape=n_diurnal)
            # the peak's direction is peak_vector / |peak_vector|, uniform; the radius is a
            # nuisance kept near 1 (a ring, width PEAK_RING_WIDTH), because near the origin a
            # well-determined direction is a funnel that NUTS diverges in
            start_vec = np.tile([1.0, 0.0], (n_diurnal, 1))
            vec = pm.Flat("peak_vector", shape=(n_diurnal, 2), initval=start_vec)
            norm = pt.sqrt((vec**2).sum(axis=1))
            pm.Potential("peak_ring", -(((norm - 1.0) / PEAK_RING_WIDTH) ** 2).sum() / 2.0)
            cos_p, sin_p = vec[:, 0] / norm, vec[:, 1] / norm
            x = OMEGA * (data.start_hour + t)
            ev = cat_map[data.category]
            log_h = log_h + pt.log1p(amp[ev] * (np.cos(x) * cos_p[ev] + np.sin(x) * sin_p[ev]))
            amp, cos_p, sin_p = amp[cat_map], cos_p[cat_map], sin_p[cat_map]
        beta = 1.0
        age = data.fleet_age if data.fleet_age > 0 else 1.0
        if trend:
            beta = pm.LogNormal("trend_shape", 0.0, TREND_LOG_SD)
            log_h = log_h + (beta - 1.0) * np.log((age + t) / (age + data.duration))
        big_h = pt.ones(k) * _shape_integral_pt(
            0.0, data.duration, data.start_hour, amp, cos_p, sin_p, beta, age, data.duration
        )
        total_mu = mu.sum()
        logp = log_h.sum() + (data.count * (log_mu - pt.log(big_h))).sum()
        if nodes is None:
            logp = logp - data.n_nodes * total_mu
        elif nodes == "mixture":
            f = pm.Beta("bad_node_fraction", *LEMON_FRACTION_BETA)
            excess = pm.LogNormal("lemon_excess", LEMON_EXCESS_LOG_MEDIAN, LEMON_EXCESS_LOG_SD)
            # log sum_s pi_s w_s^Y e^(-w_s M) = good + softplus(bad - good), summed over the
            # nodes' totals; written so (PyTensor 2.38's fusion rewrite fails on the
            # logaddexp form, pytensor#2145, fixed upstream; the numbers were the same)
            log_w_good = -pt.log1p(f * excess)
            w_good = pt.exp(log_w_good)
            good = mult.sum() * pt.log1p(-f) + (mult * values).sum() * log_w_good
            good = good - mult.sum() * w_good * total_mu
            diff = pt.log(f) - pt.log1p(-f) + values * pt.log1p(excess) - w_good * excess * total_mu
            logp = logp + good + (mult * pt.softplus(diff)).sum()
        else:
            v = pm.Exponential("frailty_variance", FRAILTY_VARIANCE_RATE)
            kappa = 1.0 / v
            per = (
                pt.gammaln(kappa + values)
                - pt.gammaln(kappa)
                - kappa * pt.log1p(v * total_mu)
                - values * pt.log(kappa + total_mu)
            )
            logp = logp + (mult * per).sum()
        pm.Potential("events_loglik", logp)
    return model


# --------------------------------------------------------------------------------------------
# from the sampler's draws to the posterior


@dataclass(frozen=True, eq=False)
class _Draws:
    """Parameters per draw, shape (chain, draw, ...), per category where they vary by it."""

    mu: np.ndarray  # (C, S, K) window-mean events per node
    amplitude: np.ndarray | None  # (C, S, K)
    peak_hour: np.ndarray | None  # (C, S, K)
    peak_vector: np.ndarray | None  # (C, S, K, 2) unit vector (cos, sin)
    trend_shape: np.ndarray | None  # (C, S)
    fraction: np.ndarray | None  # (C, S)
    multiplier: np.ndarray | None  # (C, S)
    frailty_variance: np.ndarray | None  # (C, S)

    def shape_kwargs(self, data: EventData) -> dict[str, Any]:
        """Keyword arguments of the intensity's shape, broadcast as (C, S, K)."""
        zero = np.zeros_like(self.mu)
        beta = 1.0 if self.trend_shape is None else self.trend_shape[..., None]
        return {
            "start_hour": data.start_hour,
            "amplitude": zero if self.amplitude is None else self.amplitude,
            "peak_hour": zero if self.peak_hour is None else self.peak_hour,
            "trend_shape": beta,
            "fleet_age_hours": data.fleet_age if data.fleet_age > 0 else 1.0,
            "duration_hours": data.duration,
        }


def _draws(post: xr.Dataset, data: EventData, diurnal: str | None) -> _Draws:
    k = data.n_categories
    cat_map = np.arange(k) if diurnal == "category" else np.zeros(k, dtype=np.int64)

    def get(name):
        return post[name].values if name in post else None

    amp = vec = peak = None
    if diurnal is not None:
        amp = get("amplitude")[..., cat_map]
        raw = get("peak_vector")[..., cat_map, :]
        vec = raw / np.sqrt((raw**2).sum(axis=-1, keepdims=True))
        peak = np.mod(np.arctan2(vec[..., 1], vec[..., 0]) / OMEGA, 24.0)
        peak = np.where(peak >= 24.0, 0.0, peak)  # mod can round up to 24.0
    excess = get("lemon_excess")
    return _Draws(
        mu=np.exp(get("log_mu")),
        amplitude=amp,
        peak_hour=peak,
        peak_vector=vec,
        trend_shape=get("trend_shape"),
        fraction=get("bad_node_fraction"),
        multiplier=None if excess is None else 1.0 + excess,
        frailty_variance=get("frailty_variance"),
    )


def _chain_shape(d: _Draws, ch: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Amplitude and peak hour (draws, K) and trend shape (draws, 1) of chain ``ch``."""
    zero = np.zeros_like(d.mu[ch])
    amp = zero if d.amplitude is None else d.amplitude[ch]
    peak = zero if d.peak_hour is None else d.peak_hour[ch]
    beta = np.ones((zero.shape[0], 1)) if d.trend_shape is None else d.trend_shape[ch][:, None]
    return amp, peak, beta


def _node_part(d: _Draws, total: np.ndarray, nodes: str | None, sl=slice(None)) -> np.ndarray:
    """Per-node log-likelihood beyond the events' own terms, (c, S, len(total))."""
    big_m = d.mu[sl].sum(axis=-1)[..., None]
    y = np.asarray(total, dtype=float)
    if nodes is None:
        return np.broadcast_to(-big_m, (*big_m.shape[:-1], y.size)).copy()
    if nodes == "mixture":
        assert d.fraction is not None and d.multiplier is not None
        f, m = d.fraction[sl][..., None], d.multiplier[sl][..., None]
        w_good = 1.0 / (1.0 - f + f * m)
        w_bad = m * w_good
        good = np.log1p(-f) + y * np.log(w_good) - w_good * big_m
        bad = np.log(f) + y * np.log(w_bad) - w_bad * big_m
        return np.logaddexp(good, bad)
    assert d.frailty_variance is not None
    v = d.frailty_variance[sl][..., None]
    kappa = 1.0 / v
    return (
        special.gammaln(kappa + y)
        - special.gammaln(kappa)
        - kappa * np.log1p(v * big_m)
        - y * np.log(kappa + big_m)
    )


def pointwise_units(data: EventData) -> int:
    """Units of the pointwise log-likelihood: the fleet's nodes, else the window's days."""
    return data.n_nodes if data.has_nodes else max(1, math.ceil(data.duration / 24.0))


def event_draw_values(data: EventData) -> int:
    """Return the float64 values an event fit keeps per draw, at least.

    :func:`relmc.models._common.draw_values` of its categories, the sampler's statistics, and
    the pointwise log-likelihood, one value per node of the fleet (a log with a node column)
    or per day of the window (:func:`pointwise_units`): for a large fleet far the largest part.
    """
    return draw_values(data.n_categories, SAMPLE_STATS_VALUES + pointwise_units(data))


def _pointwise(d: _Draws, data: EventData, nodes: str | None, big_h: np.ndarray) -> tuple:
    """Pointwise log-likelihood (chain, draw, unit), the unit's name and its coordinates."""
    n_chains = d.mu.shape[0]
    c = data.category
    n_units = pointwise_units(data)
    if data.has_nodes:
        assign = data.node
        coords = {"node": np.arange(n_units), "node_id": ("node", data.node_ids)}
        unit = "node"
    else:
        assign = np.minimum((data.time // 24.0).astype(np.int64), n_units - 1)
        coords = {
            "day": np.arange(n_units),
            "day_start_hours": ("day", 24.0 * np.arange(n_units)),
        }
        unit = "day"
    indicator = sparse.csr_matrix(
        (np.ones(c.size), (np.arange(c.size), assign)), shape=(c.size, n_units)
    )
    out = np.empty((*d.mu.shape[:2], n_units))
    for ch in range(n_chains):  # one chain at a time bounds the memory: (draws, events)
        amp, peak, beta = _chain_shape(d, ch)  # (S, K), (S, K), (S, 1)
        common = {
            "start_hour": data.start_hour,
            "fleet_age_hours": data.fleet_age if data.fleet_age > 0 else 1.0,
            "duration_hours": data.duration,
        }
        log_event = (
            np.log(d.mu[ch][:, c])
            + np.log(
                intensity_shape(
                    data.time, amplitude=amp[:, c], peak_hour=peak[:, c], trend_shape=beta, **common
                )
            )
            - np.log(big_h[ch][:, c])
        )
        per_unit = np.asarray(indicator.T @ log_event.T).T  # (draws, units)
        if data.has_nodes:
            per_unit = per_unit + _node_part(d, data.node_total, nodes, slice(ch, ch + 1))[0]
        else:
            # fleet intensity n mu h / H: log n per event, minus each day's expected events
            per_unit = per_unit + np.log(data.n_nodes) * np.bincount(assign, minlength=n_units)
            lo = 24.0 * np.arange(n_units)
            hi = np.minimum(lo + 24.0, data.duration)
            part = shape_integral(
                lo,
                hi,
                amplitude=amp[..., None],
                peak_hour=peak[..., None],
                trend_shape=beta[..., None],
                **common,
            )  # (draws, K, days)
            expected = data.n_nodes * (d.mu[ch] / big_h[ch])[..., None] * part
            per_unit = per_unit - expected.sum(axis=1)
        out[ch] = per_unit
    return out, unit, coords


def _predictive(d: _Draws, data: EventData, nodes: str | None, rng) -> np.ndarray:
    """Events per category over the window in the fleet, per draw."""
    n = data.n_nodes
    if nodes is None:
        weight = np.full(d.mu.shape[:2], float(n))
    elif nodes == "mixture":
        assert d.fraction is not None and d.multiplier is not None
        bad = rng.binomial(n, d.fraction)
        weight = (n - bad + d.multiplier * bad) / (1.0 - d.fraction + d.fraction * d.multiplier)
    else:  # the sum of n Gamma(1/v, 1/v) frailties is Gamma(n/v, 1/v)
        assert d.frailty_variance is not None
        weight = rng.gamma(n / d.frailty_variance) * d.frailty_variance
    return rng.poisson(d.mu * weight[..., None]).astype(np.int64)


def _physics_vars(d: _Draws, dims3, dims2) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    if d.amplitude is not None:
        out["diurnal_amplitude"] = (
            dims3,
            d.amplitude,
            {"units": "1", "long_name": "relative amplitude of the daily cycle of the rate"},
        )
        out["diurnal_peak_hour"] = (
            dims3,
            d.peak_hour,
            {"units": "h", "long_name": "hour of day of the rate's daily peak, in [0, 24)"},
        )
    if d.trend_shape is not None:
        out["trend_shape"] = (
            dims2,
            d.trend_shape,
            {"units": "1", "long_name": "Crow-AMSAA shape of the fleet-level power-law trend"},
        )
    if d.fraction is not None and d.multiplier is not None:
        out["bad_node_fraction"] = (
            dims2,
            d.fraction,
            {"units": "1", "long_name": "probability that a node is bad (a lemon)"},
        )
        out["bad_node_multiplier"] = (
            dims3,
            np.repeat(d.multiplier[..., None], d.mu.shape[-1], axis=-1),
            {
                "units": "1",
                "long_name": "how many times as often a bad node fails (one for all categories)",
            },
        )
    if d.frailty_variance is not None:
        out["frailty_variance"] = (
            dims2,
            d.frailty_variance,
            {"units": "1", "long_name": "variance of the per-node gamma frailty (mean 1)"},
        )
    return out


def _terms_text(diurnal: str | None, trend: bool, nodes: str | None) -> str:
    return f"diurnal={diurnal or 'none'}, trend={'power-law' if trend else 'none'}, " + (
        f"nodes={nodes or 'none'}"
    )


def fit_events(
    events: xr.Dataset,
    *,
    diurnal: str | None = None,
    trend: bool = False,
    nodes: str | None = None,
    fleet_age_at_start_hours: float | None = None,
    n_draws: int = 1000,
    n_tune: int = 1000,
    n_chains: int = 4,
    cores: int | None = None,
    target_accept: float = 0.9,
    seed: SeedLike = None,
    progressbar: bool = False,
) -> az.InferenceData:
    """Fit an event log: Poisson process rates with optional diurnal, trend and node terms.

    The defaults fit the homogeneous model (constant rates, every node alike); each term is
    switched on by its argument (see the module docstring for the model, likelihood and
    priors). Sampled with PyMC's NUTS.

    Parameters
    ----------
    events : xarray.Dataset
        An event log from :func:`relmc.load_events` or
        ``synthetic_events()``.
    diurnal : {None, "category", "pooled"}
        Daily cycle of the rates: none, one amplitude and peak hour per category, or one pair
        shared by all categories.
    trend : bool
        A fleet-level power-law (Crow-AMSAA) trend of every rate; needs the fleet's age at the
        window's start. Where the window covers the fleet's first week (its age at the start
        below 168 h), the integral's quadrature piece enters the model's graph and NUTS slows
        by orders of magnitude: with daily cycles, a 200-h window of 2,048 GPUs took 7.3 s for
        20 steps from an age of 200 h, and did not finish them in 900 s from 40 h
        (benchmarks/outside_physics/README.md, round twenty-one). Start such a window a week
        into the fleet's life, or fit without the trend.
    nodes : {None, "mixture", "frailty"}
        Per-node heterogeneity: none, a two-point mixture (lemon fraction and multiplier), or
        a gamma frailty; needs a log with a ``node`` column.
    fleet_age_at_start_hours : float, optional
        The fleet's age at the window's start, hours in (0, 1e7]; default
        ``events.attrs["fleet_age_at_start_hours"]``.
    n_draws, n_tune : int
        Posterior draws (>= 1) and tuning steps (>= 0) per chain.
    n_chains : int
        Chains, >= 1.
    cores : int, optional
        Processes for the chains (PyMC's default when None); results do not depend on it.
    target_accept : float
        NUTS target acceptance in (0, 1).
    seed : int, SeedSequence, Generator or None
        Root seed: child 0 seeds NUTS, child 1 the posterior predictive.
    progressbar : bool
        Show PyMC's progress bar.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rate`` (chain, draw, category), the daily-mean rate per unit-hour at
        the window's end, with ``unit`` and ``group``; ``rate_window_mean`` (the mean over
        the window, per unit-hour); ``rate_per_million``; the physics per draw (module
        docstring, "Outputs"). Attrs: ``model="events"``, ``model_terms``, ``prior``,
        ``loo_unit`` (``node`` or ``day``), ``start_hour``, ``duration_hours``, ``n_nodes``,
        ``fleet_age_at_start_hours``, ``fleet_age_hours`` (at the window's end, where
        ``rate`` is; what ``FailureModel.fleet_age_hours`` means for a job starting then),
        ``rate_reference``, the data's record and the root seed. ``log_likelihood``:
        ``events`` (chain, draw, node or day). ``posterior_predictive``: ``count`` (chain,
        draw, category), events in the fleet over the window. ``observed_data``: ``count``;
        ``constant_data``: ``exposure``; ``sample_stats`` from NUTS.

    Raises
    ------
    ValueError
        For an invalid log, term or option, before any sampling.

    Warns
    -----
    ConvergenceWarning
        If any r_hat > 1.01, any bulk ESS < 100 per chain, or NUTS diverged.
    """
    data = event_data(events, fleet_age_at_start_hours)
    _check_terms(diurnal, trend, nodes, data)
    n_draws, n_tune, n_chains, target_accept = check_sampling(
        n_draws, n_tune, n_chains, target_accept, cores, event_draw_values(data),
    )  # fmt: skip
    pm = import_pymc()
    root = resolve_seed(seed)
    model = event_model(data, diurnal=diurnal, trend=trend, nodes=nodes)
    with model:
        trace = pm.sample(
            **sample_kwargs(
                n_draws,
                n_tune,
                n_chains,
                int(child_seed(root, 0).generate_state(1)[0]),
                progressbar,
                cores,
                target_accept,
            )
        )
    return assemble(
        trace,
        events,
        diurnal=diurnal,
        trend=trend,
        nodes=nodes,
        root=root,
        fleet_age_at_start_hours=fleet_age_at_start_hours,
    )


def assemble(
    trace: Any,
    events: xr.Dataset,
    *,
    diurnal: str | None,
    trend: bool,
    nodes: str | None,
    root: np.random.SeedSequence,
    fleet_age_at_start_hours: float | None = None,
) -> az.InferenceData:
    """Turn draws of :func:`event_model`'s free variables into :func:`fit_events`' result.

    Public for studies that sample the model themselves (e.g. one compiled model for many
    logs) or evaluate the pointwise log-likelihood at chosen parameters.

    Parameters
    ----------
    trace : arviz.InferenceData
        ``posterior`` with the free variables (``log_mu``, and per term ``amplitude``,
        ``peak_vector``, ``trend_shape``, ``bad_node_fraction``, ``lemon_excess``,
        ``frailty_variance``) over (chain, draw, ...); ``sample_stats`` with ``diverging``.
    events : xarray.Dataset
        The log the draws are of.
    diurnal, trend, nodes, fleet_age_at_start_hours
        The terms, as given to :func:`fit_events`.
    root : numpy.random.SeedSequence
        Root seed: child 1 draws the posterior predictive; recorded in ``attrs``.
    """
    data = event_data(events, fleet_age_at_start_hours)
    _check_terms(diurnal, trend, nodes, data)
    obs = check_data(events, "events")
    post = trace.posterior
    d = _draws(post, data, diurnal)
    n_chains, n_draws = d.mu.shape[:2]
    big_h = shape_integral(0.0, data.duration, **d.shape_kwargs(data))
    big_h = np.broadcast_to(big_h, d.mu.shape)
    rate = d.mu / big_h * data.per_node_units
    coords = sample_coords(obs, n_chains, n_draws)
    dims3, dims2 = ("chain", "draw", "category"), ("chain", "draw")
    posterior = xr.Dataset(
        {
            "rate": (dims3, rate),
            "rate_window_mean": (
                dims3,
                d.mu / data.duration * data.per_node_units,
                {
                    "units": "1/h",
                    "long_name": "rate per unit-hour averaged over the observation window",
                },
            ),
            **_physics_vars(d, dims3, dims2),
        },
        coords=coords,
    )
    where = f"fit_events({obs.name!r})"
    check_divergences(trace.sample_stats, where)
    check = posterior.drop_vars(["diurnal_peak_hour"], errors="ignore")
    if d.peak_vector is not None:  # the peak hour wraps at 24: check its direction instead
        check["peak_cos"] = (dims3, d.peak_vector[..., 0])
        check["peak_sin"] = (dims3, d.peak_vector[..., 1])
    check_convergence(check, [str(v) for v in check.data_vars], where)

    ll, unit, unit_coords = _pointwise(d, data, nodes, big_h)
    log_lik = xr.Dataset(
        {"events": (("chain", "draw", unit), ll)},
        coords={"chain": coords["chain"], "draw": coords["draw"], **unit_coords},
    )
    pred = _predictive(d, data, nodes, np.random.default_rng(child_seed(root, 1)))
    predictive = xr.Dataset({"count": (dims3, pred)}, coords=coords)
    priors = [PRIOR_TEXT["rate"]]
    priors += [PRIOR_TEXT["diurnal"]] if diurnal else []
    priors += [PRIOR_TEXT["trend"]] if trend else []
    priors += [PRIOR_TEXT[nodes]] if nodes else []
    attrs = {
        "model": "events",
        "model_terms": _terms_text(diurnal, trend, nodes),
        "prior": "; ".join(priors),
        "loo_unit": unit,
        "start_hour": data.start_hour,
        "duration_hours": data.duration,
        "n_nodes": data.n_nodes,
        "fleet_age_at_start_hours": data.fleet_age,
        "fleet_age_hours": data.fleet_age + data.duration if data.fleet_age > 0 else 0.0,
        "rate_reference": "daily-mean rate at the window's end (fleet mixed at its lemon "
        "fraction); rate_window_mean is the mean over the window",
        "sampler": "NUTS on log mu, amplitude, peak direction, log trend shape, logit lemon "
        "fraction, log (multiplier - 1), log frailty variance; node types integrated out",
        **obs.record(),
        **seed_attrs(root),
    }
    return make_idata(
        posterior,
        predictive,
        **data_groups(obs),
        attrs=attrs,
        sample_stats=trace.sample_stats,
        log_likelihood=log_lik,
    )


def compare_event_models(
    fits: Mapping[str, Any], *, ic: Literal["loo", "waic"] = "loo", **kwargs
) -> pd.DataFrame:
    """Rank fits of one event log by expected log predictive density (``az.compare``).

    Every fit must come from :func:`fit_events` on the same log (same pointwise unit and
    number of units), so the comparison is of models, not of data. The same as
    ``az.compare(fits, ic="loo", var_name="events")``.

    Parameters
    ----------
    fits : mapping
        Name -> InferenceData of :func:`fit_events`; at least two.
    ic : {"loo", "waic"}
        Information criterion (PSIS-LOO by default).
    **kwargs
        Passed to :func:`arviz.compare` (e.g. ``scale``).

    Returns
    -------
    pandas.DataFrame
        ``az.compare``'s table: ``elpd_loo``, ``p_loo``, ``elpd_diff``, ``dse``, ``weight``,
        ``warning`` per model, best first.

    Raises
    ------
    ValueError
        For fewer than two fits, a fit without ``log_likelihood["events"]``, or fits of
        different logs.
    """
    if not isinstance(fits, Mapping) or len(fits) < 2:
        raise ValueError("fits must be a mapping name -> fit_events result with at least two")
    seen = {}
    for name, fit in fits.items():
        ll = getattr(fit, "log_likelihood", None)
        if ll is None or "events" not in ll:
            raise ValueError(f"fits[{name!r}] has no log_likelihood['events']: not from fit_events")
        unit = [dim for dim in ll["events"].dims if dim not in ("chain", "draw")]
        key = (
            tuple(unit),
            tuple(ll["events"].shape[2:]),
            fit.posterior.attrs.get("dataset"),
            json.dumps(fit.observed_data["count"].values.tolist()),
        )
        seen[name] = key
    if len(set(seen.values())) > 1:
        raise ValueError(
            "fits are of different event logs (pointwise unit, number of units, dataset or "
            f"counts differ): {seen}"
        )
    with warnings.catch_warnings():
        # arviz 0.23's compare calls DataFrame.sort_values(inplace=True), which pandas 3.1
        # deprecates (Pandas4Warning); it says nothing about the numbers, and under
        # ``-W error`` it would make every comparison fail. Silenced here, around the call.
        warnings.filterwarnings("ignore", message="The inplace keyword")
        return az.compare(dict(fits), ic=ic, var_name="events", **kwargs)
