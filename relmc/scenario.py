"""Scenarios: frozen dataclasses that hold every parameter of a projection.

A :class:`Scenario` is a :class:`Cluster` (size and shape), a :class:`FailureModel` (failure
categories with their rates, scaling units, detection latency and recovery kind, plus planned
maintenance), a :class:`Job` (compute hours needed) and a :class:`Policy` (checkpointing,
restart, spares, wall cap). Validation lives here: every bad field raises a ``ValueError`` that
names the field and its allowed range, when the object is built. Scenarios round-trip through a
plain, TOML-friendly dict (:meth:`Scenario.to_dict`, :meth:`Scenario.from_dict`), and any field
can be replaced by a dotted path (:func:`replace_path`), which is how sweeps name their axes.

Times are in hours, rates in events per unit-hour (per GPU-hour for unit ``gpu``, per
node-hour for ``node``, per hour for ``job``).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from relmc.cluster import MAX_GPUS, MAX_RATE, UNITS, ClusterShape, units
from relmc.defaults import DEFAULT_RULES, RecoveryRules
from relmc.errors import FieldError, bound_text

__all__ = [
    "Category",
    "Cluster",
    "FailureModel",
    "Job",
    "Policy",
    "Scenario",
    "replace_path",
    "spread_of_range",
]

RECOVERY_KINDS = ("restart", "swap")
#: Category fields read for one kind only, and that kind.
KIND_FIELDS = {
    "straggler_speed": "straggler",
    "sdc_latency_hours": "sdc",
    "sdc_latency_distribution": "sdc",
    # stragglers and SDC strike one node and are never wrongly blamed (relmc.sim)
    "domain": "failure",
    "wrong_blame": "failure",
}
DOMAINS = ("node", "rack", "pod")  # blast radius of one failure
REPAIR_DISTRIBUTIONS = ("exponential", "fixed")
CATEGORY_KINDS = ("failure", "straggler", "sdc")  # kernel codes 0, 1, 2
SDC_LATENCY_DISTRIBUTIONS = ("fixed", "exponential")


#: The 95% quantile of the standard normal: a 90% range ``[m / k, m k]`` is ``sigma = ln k / Z95``.
Z95 = 1.6448536269514722

#: Largest allowed spread or jitter factor (a 90% range of four orders of magnitude).
MAX_SPREAD = 100.0
# MAX_RATE (imported): the largest interruption rate of a job, per hour (one every 3.6 ns);
# the same bound as ``relmc.rates.MAX_CLUSTER_RATE`` on the categories' cluster-level rates,
# defined in relmc.cluster, below the data loaders, which bound a row's rate by it too

#: Policy fields of the per-draw overhead spreads, in the kernel's column order.
SPREAD_FIELDS: tuple[str, ...] = (
    "snapshot_spread",
    "persist_spread",
    "restart_spread",
    "swap_spread",
    "detection_spread",
    "maintenance_spread",
    "diagnosis_spread",
    "preemption_spread",
    "sdc_latency_spread",
)

#: Policy fields of the per-event overhead jitters, in the kernel's order.
JITTER_FIELDS: tuple[str, ...] = (
    "restart_jitter",
    "swap_jitter",
    "detection_jitter",
    "maintenance_jitter",
)

#: Largest power of one GPU, W (a bound on input errors: 1e8 GPUs at it step by 1e8 MW)
MAX_GPU_WATTS = 1e6

#: Largest drawn overhead, in hours, that a stated value with a spread or jitter may reach at
#: ``OVERHEAD_Z_MAX`` standard normals (:class:`Scenario` refuses a larger stated value)
OVERHEAD_HOURS_MAX = 1e300
#: Standard normals beyond any NumPy draw (its ziggurat's tail stays under ~12.2)
OVERHEAD_Z_MAX = 40.0

#: Draws over which point rates are repeated when an overhead has a spread (each draw its
#: own overhead multipliers; trials cycle over them).
OVERHEAD_DRAWS = 4096


def spread_of_range(low: float, high: float) -> tuple[float, float]:
    """Median and 90%-range factor ``k`` of a lognormal whose 5% and 95% quantiles are given.

    ``median = sqrt(low * high)``, ``k = sqrt(high / low)``: e.g. restarts of 5-20 minutes
    (Meta's RSC clusters) are a median of 10 minutes with ``k = 2``. ``0 < low <= high``,
    and ``high <= low * MAX_SPREAD ** 2`` (``k`` at most 100, as every ``*_spread`` field
    takes: a 90% range of four orders of magnitude).
    """
    lo = _check_real("low", low, lo_open=True)
    hi = _check_real("high", high, lo_open=True)
    if hi < lo or not math.isfinite(hi):
        raise _fail("high", f"finite and >= low={lo:g}", high)
    k = math.sqrt(hi / lo)
    if k > MAX_SPREAD:
        raise _fail(
            "high",
            f"at most low x {MAX_SPREAD**2:g} = {lo * MAX_SPREAD**2:g} (a spread k = "
            f"sqrt(high / low) in [1, {MAX_SPREAD:g}], as the *_spread fields take)",
            high,
        )
    return math.sqrt(lo * hi), k


def _fail(name: str, allowed: str, value: Any) -> FieldError:
    if getattr(value, "ndim", 0) and hasattr(value, "shape"):  # an array: not its whole repr
        got = f"an array of shape {tuple(value.shape)}"
    elif isinstance(value, np.generic):  # -1.0, not np.float64(-1.0)
        got = repr(value.item())
    else:
        got = repr(value)
    return FieldError(name, f"{name} must be {allowed}; got {got}")


def _scalar(value: Any) -> Any:
    """Return a 0-d array's one element, anything else as it is.

    NumPy's, or an xarray DataArray's such as ``result.ettr_mean.sel(...)``.
    """
    if getattr(value, "ndim", None) == 0 and not isinstance(value, np.generic):
        try:
            return np.asarray(value)[()]
        except (TypeError, ValueError):
            return value
    return value


def _is_real(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def _check_real(name: str, value: Any, *, lo: float = 0.0, lo_open: bool = False) -> float:
    """Validate a finite real ``>= lo`` (``> lo`` when ``lo_open``) and return it as float.

    A 0-d array of one real (e.g. ``optimize_checkpoint(...).optimal_interval_hours``) is
    taken as that number.
    """
    allowed = f"a finite number {'>' if lo_open else '>='} {lo:g}"
    value = _scalar(value)
    if not _is_real(value):
        raise _fail(name, allowed, value)
    v = float(value)
    if not math.isfinite(v) or v < lo or (lo_open and v == lo):
        raise _fail(name, allowed, value)
    return v


def _check_range(
    name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """Validate a real in ``[lo, hi]`` (an end excluded when ``lo_open`` / ``hi_open``).

    Returns it as float; a 0-d array of one real is taken as that number.
    """
    left, right = "(" if lo_open else "[", ")" if hi_open else "]"
    allowed = f"a number in {left}{bound_text(lo)}, {bound_text(hi)}{right}"
    value = _scalar(value)
    if not _is_real(value):
        raise _fail(name, allowed, value)
    v = float(value)
    if not (lo <= v <= hi) or (lo_open and v == lo) or (hi_open and v == hi):
        raise _fail(name, allowed, value)
    return v


def _check_int(name: str, value: Any, *, lo: int, hi: int | None = None, note: str = "") -> int:
    """Validate an integer ``>= lo`` (and ``<= hi`` when given) and return it as int.

    The message writes ``hi`` as the docs do (:func:`relmc.errors.bound_text`: ``1e8``); the
    same message, ending in ``note``, for a wrong type and for either bound.
    """
    top = bound_text(hi) if hi is not None else ""
    allowed = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {top}]"
    allowed += note
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lo:
        raise _fail(name, allowed, value)
    if hi is not None and value > hi:
        raise _fail(name, allowed, value)
    return int(value)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class Cluster:
    """Cluster size and shape (see :mod:`relmc.cluster` for how units are counted).

    Parameters
    ----------
    n_gpus : int
        GPUs used by the job, 1 to 10**8.
    gpus_per_node, nodes_per_rack, gpus_per_pod : int
        Packing of GPUs into servers, racks and pods (Llama 3: 8, 2, 3,072).
    links_per_gpu : float
        Network links per GPU, in (0, 1000] (Llama 3: 1).
    gpu_busy_watts : float
        Power of one GPU while the job computes, in (0, 1e6] W. Default: 700 W, the H100 SXM
        TDP of Llama 3's cluster.
    gpu_idle_watts : float
        Power of one GPU while the job does not compute (snapshots, restarts, recovery), in
        [0, gpu_busy_watts] W. The default of 100 W is an assumption (an H100 idles near
        60-100 W), not a measurement of a training job's pauses.
    power_swing_threshold_mw : float
        Power steps of the whole job of at least this many MW count in
        ``power_swings_per_day``, >= 0.
    """

    n_gpus: int = 16_384
    gpus_per_node: int = 8
    nodes_per_rack: int = 2
    gpus_per_pod: int = 3072
    links_per_gpu: float = 1.0
    gpu_busy_watts: float = 700.0
    gpu_idle_watts: float = 100.0
    power_swing_threshold_mw: float = 0.0

    def __post_init__(self) -> None:
        n = _check_int("cluster.n_gpus", self.n_gpus, lo=1, hi=MAX_GPUS)
        _set(self, "n_gpus", n)
        try:  # the shape's own checks, named as cluster fields
            shape = ClusterShape(
                self.gpus_per_node, self.nodes_per_rack, self.gpus_per_pod, self.links_per_gpu
            )
        except FieldError as e:
            raise FieldError(f"cluster.{e.field}", f"cluster.{e}") from None
        for f in dataclasses.fields(shape):
            _set(self, f.name, getattr(shape, f.name))
        busy = _check_range(
            "cluster.gpu_busy_watts", self.gpu_busy_watts, 0.0, MAX_GPU_WATTS, lo_open=True
        )
        _set(self, "gpu_busy_watts", busy)
        _set(
            self,
            "gpu_idle_watts",
            _check_range("cluster.gpu_idle_watts", self.gpu_idle_watts, 0.0, busy),
        )
        _set(
            self,
            "power_swing_threshold_mw",
            _check_real("cluster.power_swing_threshold_mw", self.power_swing_threshold_mw),
        )

    @property
    def power_step_mw(self) -> float:
        """The job's power step between computing and not computing, MW."""
        return self.n_gpus * (self.gpu_busy_watts - self.gpu_idle_watts) / 1e6

    @property
    def shape(self) -> ClusterShape:
        """The packing as a :class:`relmc.cluster.ClusterShape`."""
        return ClusterShape(
            **{f.name: getattr(self, f.name) for f in dataclasses.fields(ClusterShape)}
        )

    def units(self, unit: str) -> float:
        """Return the number of exposure units of kind ``unit`` in this cluster."""
        return units(self.n_gpus, unit, self.shape)


@dataclass(frozen=True)
class Category:
    """One failure category.

    Parameters
    ----------
    name : str
        Category name, e.g. ``"GPU HBM3 Memory"``; not ``"*"``, which names every category
        in a path (``failures.categories.*.detection_hours``).
    rate : float
        Events per unit-hour (>= 0). Replaced by posterior draws when ``simulate`` gets them.
    unit : str
        Exposure unit the rate scales with, one of :data:`relmc.cluster.UNITS`.
    detection_hours : float
        Time from the failure until it is noticed (0 for a crash; a watchdog timeout for a hang).
    recovery : {"restart", "swap"}
        ``"swap"`` when the failed host must be replaced by a spare node before restarting.
    group : str
        Root-cause group, informational (e.g. ``"GPU"``).
    diurnal_amplitude : float
        Relative amplitude ``a`` of a daily cycle of the rate, in [0, 1]: the rate is
        ``rate * (1 + a cos(2 pi (hour - diurnal_peak_hour) / 24))`` at each hour of day
        (wall clock). 0 (the default): constant.
    diurnal_peak_hour : float
        Hour of day of the rate's peak, in [0, 24).
    bad_node_multiplier : float or None
        How many times as often a bad ("lemon") node fails in this category as a good one,
        >= 1; ``None`` (the default) takes the failure model's ``bad_node_multiplier``. Set 1
        for categories that are not node faults (software bugs).
    domain : {"node", "rack", "pod"}
        Blast radius: how many of the job's nodes one failure takes out (``"rack"``: the
        cluster's ``nodes_per_rack``; ``"pod"``: ``gpus_per_pod // gpus_per_node``; at most
        the job's nodes). A rack or pod failure sends all its nodes to repair.
    diagnosis_hours : float
        Time after detection to find the node at fault (``diagnosis``), >= 0.
    wrong_blame : float
        Probability that diagnosis blames the wrong node (another of the job's nodes), in
        [0, 1]; node-domain categories only.
    kind : {"failure", "straggler", "sdc"}
        ``"failure"`` (the default) stops the job; ``"straggler"`` slows it until handled
        ``detection_hours`` later; ``"sdc"`` (silent data corruption) lets it run on and is
        found ``sdc_latency_hours`` later, rolling back to a clean checkpoint (see
        :mod:`relmc.sim`).
    straggler_speed : float
        Speed of the job behind a straggler, as a fraction of its normal speed, in (0, 1);
        read for ``kind="straggler"`` only.
    sdc_latency_hours : float
        Wall hours from a corruption to its detection (fixed, or the mean), >= 0.
    sdc_latency_distribution : {"fixed", "exponential"}
        Distribution of the SDC latency.
    rate_profile : sequence of float
        A periodic profile of the rate instead of the cosine: 24 hourly values (hour of day
        0-23, repeated every day) or 168 (hour of the week, Monday 00:00 first; the job's
        ``start_day`` and ``start_hour`` place it), each >= 0 with a positive mean. Relative:
        relmc divides them by their mean, so ``rate`` stays the category's average rate.
        Empty (the default): no profile. Not with ``diurnal_amplitude > 0``.
    rate_multiplier : float
        A what-if factor on the category's rate, >= 0, whatever gives the rate (``rate``, a
        mapping or posterior draws; after a fit's exposure-clock conversion, which is about
        the observed job): 0.5 halves the category's events (e.g. a better burn-in), 2
        doubles them. 1 (the default): as given. With a posterior this is how a rate is
        changed: the posterior replaces ``rate``.
    """

    name: str
    rate: float = 0.0
    unit: str = "gpu"
    detection_hours: float = 0.0
    recovery: str = "restart"
    group: str = ""
    diurnal_amplitude: float = 0.0
    diurnal_peak_hour: float = 0.0
    bad_node_multiplier: float | None = None
    domain: str = "node"
    diagnosis_hours: float = 0.0
    wrong_blame: float = 0.0
    kind: str = "failure"
    straggler_speed: float = 0.5
    sdc_latency_hours: float = 0.0
    sdc_latency_distribution: str = "fixed"
    rate_profile: tuple[float, ...] = ()
    rate_multiplier: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip() or self.name == "*":
            # '*' names every category in a path (failures.categories.*.field)
            raise _fail("category.name", "a non-empty string other than '*'", self.name)
        where = f"failures.categories[{self.name!r}]"
        _set(self, "rate", _check_real(f"{where}.rate", self.rate))
        _set(self, "rate_multiplier", _check_real(f"{where}.rate_multiplier", self.rate_multiplier))
        if self.unit not in UNITS:
            raise _fail(f"{where}.unit", f"one of {', '.join(UNITS)}", self.unit)
        _set(self, "detection_hours", _check_real(f"{where}.detection_hours", self.detection_hours))
        if self.recovery not in RECOVERY_KINDS:
            raise _fail(f"{where}.recovery", "'restart' or 'swap'", self.recovery)
        if not isinstance(self.group, str):
            raise _fail(f"{where}.group", "a string", self.group)
        amp = _check_range(f"{where}.diurnal_amplitude", self.diurnal_amplitude, 0.0, 1.0)
        _set(self, "diurnal_amplitude", amp)
        peak = _check_range(
            f"{where}.diurnal_peak_hour", self.diurnal_peak_hour, 0.0, 24.0, hi_open=True
        )
        _set(self, "diurnal_peak_hour", peak)
        if self.bad_node_multiplier is not None:
            m = _check_real(f"{where}.bad_node_multiplier", self.bad_node_multiplier, lo=1.0)
            _set(self, "bad_node_multiplier", m)
        if self.domain not in DOMAINS:
            raise _fail(f"{where}.domain", f"one of {', '.join(DOMAINS)}", self.domain)
        _set(self, "diagnosis_hours", _check_real(f"{where}.diagnosis_hours", self.diagnosis_hours))
        _set(self, "wrong_blame", _check_range(f"{where}.wrong_blame", self.wrong_blame, 0.0, 1.0))
        self._check_physics(where)
        self._check_profile(where)

    def _check_profile(self, where: str) -> None:
        """Validate ``rate_profile`` (24 or 168 values >= 0, positive mean, no cosine)."""
        field = f"{where}.rate_profile"
        prof = self.rate_profile
        allowed = "24 or 168 finite numbers >= 0 with a positive mean (or empty: none)"
        if isinstance(prof, str | bytes) or not isinstance(prof, list | tuple | np.ndarray):
            raise _fail(field, allowed, prof)
        values = []
        for v in prof:
            if not _is_real(v) or not math.isfinite(float(v)) or float(v) < 0:
                raise _fail(field, allowed, prof)
            values.append(float(v))
        if values and (len(values) not in (24, 168) or sum(values) <= 0):
            raise FieldError(
                field,
                f"{field} must be {allowed}; got {len(values)} values"
                + (" summing to 0" if len(values) in (24, 168) else ""),
            )
        if values and self.diurnal_amplitude > 0:
            raise FieldError(
                field,
                f"{field}: a category takes a rate profile or a diurnal cosine, not both; set "
                f"{where}.diurnal_amplitude = 0 (got {self.diurnal_amplitude:g})",
            )
        _set(self, "rate_profile", tuple(values))

    def weekly_profile(self) -> np.ndarray | None:
        """Return the profile as 168 hourly multipliers of mean 1 (None without a profile)."""
        if not self.rate_profile:
            return None
        q = np.asarray(self.rate_profile, dtype=np.float64)
        q = np.tile(q, 7) if q.size == 24 else q
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            m = q.mean()
            out = q / m
            if not (np.finfo(np.float64).tiny <= m < math.inf and np.all(np.isfinite(out))):
                # values near the float limits (a mean that overflows, or is subnormal and so
                # inexact): scale
                # by the largest first, which changes nothing else
                q = q / q.max()
                out = q / q.mean()
        return out

    def reads(self, name: str) -> bool:
        """Whether this category's ``kind`` reads field ``name`` (a ``KIND_FIELDS`` key).

        ``wrong_blame`` moreover needs a domain of one node, which the cluster decides
        (:meth:`Scenario.reads`).
        """
        return self.kind == KIND_FIELDS[name]

    def unread_fields(self) -> list[str]:
        """Fields set away from their defaults that this category's ``kind`` does not read.

        ``straggler_speed`` is read for ``kind="straggler"`` only, ``sdc_latency_hours`` and
        ``sdc_latency_distribution`` for ``kind="sdc"`` only, ``domain`` and ``wrong_blame``
        for ``kind="failure"`` only (stragglers and SDC strike one node, never wrongly
        blamed). :func:`relmc.simulate` warns naming them (:meth:`Scenario.unread_notes`),
        since a forgotten ``kind`` silently simulates another model.
        """
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        return [
            name
            for name in KIND_FIELDS
            if not self.reads(name) and getattr(self, name) != defaults[name]
        ]

    def _check_physics(self, where: str) -> None:
        """Validate the straggler and SDC fields."""
        if self.kind not in CATEGORY_KINDS:
            raise _fail(f"{where}.kind", f"one of {', '.join(CATEGORY_KINDS)}", self.kind)
        speed = _check_range(
            f"{where}.straggler_speed", self.straggler_speed, 0.0, 1.0, lo_open=True, hi_open=True
        )
        _set(self, "straggler_speed", speed)
        lat = _check_real(f"{where}.sdc_latency_hours", self.sdc_latency_hours)
        _set(self, "sdc_latency_hours", lat)
        if self.sdc_latency_distribution not in SDC_LATENCY_DISTRIBUTIONS:
            raise _fail(
                f"{where}.sdc_latency_distribution",
                f"one of {', '.join(SDC_LATENCY_DISTRIBUTIONS)}",
                self.sdc_latency_distribution,
            )


def check_scalable_units(
    units: Sequence[str], where: str, who: str = "a simulation", tail: str = ""
) -> None:
    """Refuse exposure units that do not scale with a cluster of GPUs, naming ``where``.

    relmc's fits take any unit (the BUGS pumps are per pump-hour); a simulation, projection
    or comparison needs each category's unit among :data:`relmc.cluster.UNITS`. Raises a
    ``FieldError`` (a ``ValueError``) of field ``where``: ``"{where}: unit(s) pump do not
    scale with a cluster of GPUs; {who} needs units among gpu, node, ...{tail}"``.
    """
    bad = sorted({str(u) for u in units} - set(UNITS))
    if bad:
        raise FieldError(
            where,
            f"{where}: unit(s) {', '.join(bad)} do not scale with a cluster of GPUs; {who} "
            f"needs units among {', '.join(UNITS)}{tail}",
        )


@dataclass(frozen=True)
class FailureModel:
    """Failure categories plus planned maintenance.

    Parameters
    ----------
    categories : tuple of Category
        At least one, with unique names.
    maintenance_rate : float
        Planned interruptions per hour (job level, independent of size), in [0, 1e12].
    maintenance_hours : float
        Downtime of one planned interruption beyond the restart, >= 0.
    trend_shape : float
        Shape ``beta`` of a fleet-level power-law (Crow-AMSAA) trend of every failure rate,
        in (0, 100]: the rates are multiplied by ``(1 + t / fleet_age_hours) ** (beta - 1)`` at wall
        time ``t`` after the job's start, so they are the categories' rates at the start.
        ``beta < 1``: burn-in (falling), ``> 1``: wear-out (rising), 1 (the default): constant.
    fleet_age_hours : float
        Age of the fleet when the job starts (hours since the power-law process began), > 0.
        Used only when ``trend_shape != 1``; the default of one year is a placeholder.
    bad_node_fraction : float
        Fraction ``f`` of nodes that are bad ("lemons"), in [0, 1]; each node of the job, its
        standbys and the spare pool is bad with this probability at the job's start. 0 (the
        default): no lemons. Meta's lemon-node detection cut large-job failures from 14 % to
        4 % (Kokolis et al. 2025); AIReSim's default is 0.15 with a multiplier of 5.
    bad_node_multiplier : float
        How many times as often a bad node fails as a good one, >= 1 (per category unless
        the category sets its own). The categories' rates are those of a job of nodes mixed
        at ``bad_node_fraction`` at its start; swaps then replace failed nodes (bad ones
        ``m`` times as often) by pool nodes bad at that fraction, so without lemon
        detection the job sheds bad nodes and fails less than the rates as it runs
        (README, "Lemon nodes").
    """

    categories: tuple[Category, ...] = ()
    maintenance_rate: float = 0.0
    maintenance_hours: float = 0.0
    trend_shape: float = 1.0
    fleet_age_hours: float = 8760.0
    bad_node_fraction: float = 0.0
    bad_node_multiplier: float = 1.0

    def __post_init__(self) -> None:
        given = self.categories
        allowed = "a non-empty list of categories (relmc.Category or tables of its fields)"
        if not isinstance(given, list | tuple) or not all(
            isinstance(c, Category | Mapping) for c in given
        ):
            raise _fail("failures.categories", allowed, given)
        cats = tuple(
            c if isinstance(c, Category) else _from_mapping(Category, c, _category_where(c, i))
            for i, c in enumerate(given)
        )
        if not cats:
            raise _fail("failures.categories", "a non-empty list of categories", self.categories)
        names = [c.name for c in cats]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise _fail("failures.categories", "categories with unique names", dup)
        _set(self, "categories", cats)
        _set(
            self,
            "maintenance_rate",
            _check_range("failures.maintenance_rate", self.maintenance_rate, 0.0, MAX_RATE),
        )
        _set(
            self,
            "maintenance_hours",
            _check_real("failures.maintenance_hours", self.maintenance_hours),
        )
        # at most 100: far beyond any observed wear-out; keeps the trend finite
        shape = _check_range("failures.trend_shape", self.trend_shape, 0.0, 100.0, lo_open=True)
        _set(self, "trend_shape", shape)
        _set(
            self,
            "fleet_age_hours",
            _check_real("failures.fleet_age_hours", self.fleet_age_hours, lo_open=True),
        )
        _set(
            self,
            "bad_node_fraction",
            _check_range("failures.bad_node_fraction", self.bad_node_fraction, 0.0, 1.0),
        )
        _set(
            self,
            "bad_node_multiplier",
            _check_real("failures.bad_node_multiplier", self.bad_node_multiplier, lo=1.0),
        )

    @property
    def names(self) -> tuple[str, ...]:
        """Category names, in order."""
        return tuple(c.name for c in self.categories)

    def category(self, name: str) -> Category:
        """Return the category called ``name``."""
        for c in self.categories:
            if c.name == name:
                return c
        raise ValueError(f"failures.categories: no category {name!r}; known: {list(self.names)}")

    def cluster_rates(self, cluster: Cluster) -> np.ndarray:
        """Return each category's cluster-level rate (per hour) at ``cluster``'s size.

        The point rates times their units and ``rate_multiplier`` (as
        :func:`relmc.rates.cluster_rates` gives them for point rates).
        """
        return np.array(
            [c.rate * cluster.units(c.unit) * c.rate_multiplier for c in self.categories]
        )

    def with_rates(self, rates: Mapping[str, float]) -> FailureModel:
        """Return a copy with the named categories' rates replaced."""
        unknown = sorted(set(rates) - set(self.names))
        if unknown:
            raise ValueError(f"rates: unknown categories {unknown}; known: {list(self.names)}")
        cats = tuple(
            dataclasses.replace(c, rate=rates[c.name]) if c.name in rates else c
            for c in self.categories
        )
        return dataclasses.replace(self, categories=cats)

    @classmethod
    def from_counts(
        cls,
        data,
        *,
        detection_hours: Mapping[str, float] | None = None,
        recovery: Mapping[str, str] | None = None,
        maintenance: bool = True,
    ) -> FailureModel:
        """Build a point-estimate failure model (rate = count / exposure) from observations.

        Parameters
        ----------
        data : xarray.Dataset
            Observations as returned by :func:`relmc.load_dataset` / :func:`relmc.load_counts`.
        detection_hours, recovery : mapping, optional
            Per-category overrides of the data's recovery rules (see :meth:`from_categories`).
        maintenance : bool
            Include planned maintenance at the observed rate when the data carries
            ``maintenance_count`` (Llama 3: 47 in 54 days).
        """
        names = [str(c) for c in data["category"].values]
        rate = np.asarray(data["count"].values, float) / np.asarray(data["exposure"].values, float)
        unit = [str(u) for u in data["unit"].values]
        check_scalable_units(unit, "data")
        group = [str(g) for g in data["group"].values] if "group" in data else [""] * len(names)
        maint = 0.0
        if maintenance and "maintenance_count" in data:
            maint = float(data["maintenance_count"]) / float(data.attrs["duration_hours"])
        return cls.from_categories(
            names,
            rate,
            unit,
            group,
            detection_hours=detection_hours,
            recovery=recovery,
            maintenance_rate=maint,
            rules=RecoveryRules.from_attrs(data.attrs, DEFAULT_RULES),
        )

    @classmethod
    def from_posterior(cls, idata, **kwargs) -> FailureModel:
        """Build a failure model whose categories match a fitted posterior.

        ``idata`` is an InferenceData with ``posterior["rate"]`` or that DataArray.
        Rates are set to the posterior mean (used only for ``"young"``/``"daly"`` interval
        choices and when ``simulate`` is not given the posterior itself). Planned maintenance
        defaults to the rate the fitted data recorded (``posterior.attrs
        ["maintenance_rate"]``; Llama 3: 47 in 1,296 h), else none. ``kwargs`` go to
        :meth:`from_categories`.
        """
        from relmc.rates import rate_array, recorded_maintenance_rate

        rate = rate_array(idata)
        kwargs.setdefault("maintenance_rate", recorded_maintenance_rate(idata))
        post = getattr(idata, "posterior", None)
        attrs = post.attrs if post is not None else rate.attrs
        kwargs.setdefault("rules", RecoveryRules.from_attrs(attrs, DEFAULT_RULES))
        names = [str(c) for c in rate["category"].values]
        group = [str(g) for g in rate["group"].values] if "group" in rate.coords else None
        mean = rate.mean([d for d in rate.dims if d != "category"]).values
        unit = [str(u) for u in rate["unit"].values]
        check_scalable_units(unit, "posterior")  # a fit of pumps: named as the fit's
        return cls.from_categories(names, mean, unit, group or [""] * len(names), **kwargs)

    def with_tables(self, failures: Any) -> Any:
        """Return a ``[failures]`` table layered on this (fitted) model, or it as it is.

        ``None`` gives this model. A table whose ``categories`` each either name one of this
        model's categories (their fields replace that category's, e.g. ``kind = "sdc"`` with
        a latency; a ``rate`` is refused, for a posterior gives it: ``rate_multiplier``
        changes it) or add a straggler or SDC category of a new name (no count data has
        them; :func:`relmc.simulate` adds them at their scenario rate) gives this model's
        categories with those changes and additions, and the table's other fields over this
        model's maintenance (a table without categories: this model's categories with its
        fields). Anything else (a name given twice, a value of the wrong type) is returned as
        it is: the whole model, checked as given.
        A ``rate`` equal to the category's own is no change, and accepted; a failure
        category this model lacks is refused (``FieldError`` naming it, with the closest of
        this model's names): the posterior's rates must match the scenario's categories.
        """
        if failures is None:
            return self
        if not isinstance(failures, Mapping):
            return failures
        tables = failures.get("categories", [])  # none: this model's, with the fields
        mine = {c.name: c for c in self.categories}
        _check_table_names(tables, mine)
        if not isinstance(tables, list | tuple) or any(
            not isinstance(t, Mapping)
            or not isinstance(t.get("name"), str)
            or (t.get("name") not in mine and t.get("kind", "failure") == "failure")
            for t in tables
        ):
            return failures
        changed = {t["name"]: t for t in tables if t.get("name") in mine}
        if len(changed) < sum(t.get("name") in mine for t in tables):
            return failures  # a name given twice: the model's own check says so
        for name, t in changed.items():
            # a rate equal to this model's (e.g. a scenario written back from to_dict()) is
            # no change; another would be replaced by the posterior, so it is refused
            if "rate" in t and t["rate"] != mine[name].rate:
                field = f"failures.categories[{name!r}].rate"
                raise FieldError(
                    field,
                    f"{field}: the posterior gives this fit category's rate; to change it, set "
                    "rate_multiplier (e.g. 2 doubles its events) and leave rate out",
                )
        # a changed category as a table of its fields and the given ones, checked as any
        # table (unknown fields named, with a hint)
        cats = [
            {**dataclasses.asdict(c), **changed[c.name]} if c.name in changed else c
            for c in self.categories
        ]
        return {
            "maintenance_rate": self.maintenance_rate,
            "maintenance_hours": self.maintenance_hours,
            **failures,
            "categories": [*cats, *(t for t in tables if t.get("name") not in mine)],
        }

    @classmethod
    def from_categories(
        cls,
        names,
        rates,
        unit,
        group,
        *,
        detection_hours: Mapping[str, float] | None = None,
        recovery: Mapping[str, str] | None = None,
        maintenance_rate: float = 0.0,
        maintenance_hours: float = 0.0,
        rules: RecoveryRules = DEFAULT_RULES,
    ) -> FailureModel:
        """Build categories whose detection latency and recovery kind follow ``rules``.

        ``rules`` (:class:`relmc.defaults.RecoveryRules`; default
        :data:`relmc.defaults.DEFAULT_RULES`, Llama 3 Table 5's taxonomy) says which categories
        hang (detected when PyTorch's NCCL watchdog fires) and which root-cause groups need only
        a restart, and may name categories' recovery and detection explicitly (a counts file's
        ``recovery`` / ``detection_minutes`` columns); ``detection_hours`` and ``recovery``
        override them all per category.
        """
        detection_hours = dict(detection_hours or {})
        recovery = dict(recovery or {})
        for label, mapping in (("detection_hours", detection_hours), ("recovery", recovery)):
            unknown = sorted(set(mapping) - set(names))
            if unknown:
                raise ValueError(f"{label}: unknown categories {unknown}; known: {list(names)}")
        cats = []
        for n, r, u, g in zip(names, rates, unit, group, strict=True):
            det = rules.detection_hours(n)
            rec = rules.recovery(g, n)
            cats.append(
                Category(
                    name=n,
                    rate=float(r),
                    unit=u,
                    group=g,
                    detection_hours=detection_hours.get(n, det),
                    recovery=recovery.get(n, rec),
                )
            )
        return cls(
            tuple(cats), maintenance_rate=maintenance_rate, maintenance_hours=maintenance_hours
        )


@dataclass(frozen=True)
class Job:
    """The training job.

    Parameters
    ----------
    compute_hours : float
        Hours of failure-free compute the job needs at full size (``W``), >= 1e-9 (3.6
        microseconds: shorter jobs would make per-day rates overflow).
        Default: 54 days, the Llama 3 405B observation window.
    start_hour : float
        Hour of day at which the job starts, in [0, 24); the clock of diurnal cycles.
    throughput_amplitude : float
        Relative amplitude ``b`` of a daily cycle of the job's speed, in [0, 1): the job runs
        at ``1 + b cos(2 pi (hour - throughput_peak_hour) / 24)`` times its nominal speed
        (Llama 3 405B saw 1-2 % diurnal throughput variation: ``b`` about 0.005-0.01).
        0 (the default): constant speed.
    throughput_peak_hour : float
        Hour of day of the fastest running, in [0, 24) (the coolest hour).
    start_day : int
        Day of the week on which the job starts, 0 (Monday) to 6 (Sunday); the clock of
        weekly rate profiles (``Category.rate_profile`` of 168 values).
    """

    compute_hours: float = 54.0 * 24.0
    start_hour: float = 0.0
    throughput_amplitude: float = 0.0
    throughput_peak_hour: float = 0.0
    start_day: int = 0

    def __post_init__(self) -> None:
        _set(
            self,
            "compute_hours",
            _check_real("job.compute_hours", self.compute_hours, lo=MIN_COMPUTE_HOURS),
        )
        _set(
            self, "start_hour", _check_range("job.start_hour", self.start_hour, 0, 24, hi_open=True)
        )
        b = _check_range("job.throughput_amplitude", self.throughput_amplitude, 0, 1, hi_open=True)
        _set(self, "throughput_amplitude", b)
        peak = _check_range(
            "job.throughput_peak_hour", self.throughput_peak_hour, 0, 24, hi_open=True
        )
        _set(self, "throughput_peak_hour", peak)
        _set(self, "start_day", _check_int("job.start_day", self.start_day, lo=0, hi=6,
                                           note=" (0 is Monday)"))  # fmt: skip


INTERVAL_RULES = ("young", "daly")
#: the shortest job: 3.6 microseconds, so that counts per wall-clock day stay finite
MIN_COMPUTE_HOURS = 1e-9
MAX_SPARES = 10_000_000  # a spare pool larger than any cluster is "unlimited": use None
MAX_EVENTS = 2**31 - 1
#: lemon detection keeps each node's last ``lemon_failures`` failure times; beyond a thousand
#: failures in a window a node is a lemon by any operator's standard
MAX_LEMON_FAILURES = 1000


#: the most the fleet-level trend may multiply the failure rates by within a trial
MAX_TREND_FACTOR = 1e12


def check_trend(
    shape: float, age: float, cap: float, where: str = "failures", age_field: str | None = None
) -> None:
    """Refuse a power-law trend that overflows within a trial's wall cap ``cap``.

    Within the cap, the job may last at most ``1e12`` fleet ages (``cap / age``) and the trend
    ``(1 + t / age) ** (shape - 1)`` may multiply the rates by at most ``MAX_TREND_FACTOR``;
    past that the integrated intensity overflows and a simulation would stop failing. ``shape``
    is the largest trend shape (of a posterior's draws, say); 1 is no trend. ``where``
    ``"rates"``: the shapes are a posterior's, and the age its
    ``posterior.attrs['fleet_age_hours']`` unless ``age_field`` names where it came from.
    """
    if shape == 1.0 or not math.isfinite(cap):
        return
    if age_field is not None:
        field = age_field
    elif where == "rates":  # the age at which the posterior's rates hold, an attribute of the fit
        field = "posterior.attrs['fleet_age_hours']"
    else:
        field = f"{where}.fleet_age_hours"
    what = "failures.trend_shape" if where == "failures" else "the posterior's largest trend_shape"
    x = cap / age
    if not x <= 1e12:
        raise FieldError(
            field,
            f"{field} must be >= {cap / 1e12:.3g} h with a trend ({what} = "
            f"{shape:g}): the wall cap, policy.wall_cap_factor x job.compute_hours = {cap:.6g} "
            f"h, may span at most 1e12 fleet ages; got {age!r}",
        )
    if shape > 1.0 and (shape - 1.0) * math.log1p(x) > math.log(MAX_TREND_FACTOR):
        least = cap / math.expm1(math.log(MAX_TREND_FACTOR) / (shape - 1.0))
        most = 1.0 + math.log(MAX_TREND_FACTOR) / math.log1p(x)  # the shape allowed at this age
        step = 10.0 ** (math.floor(math.log10(most)) - 3)
        most = math.floor(most / step) * step  # 4 digits, rounded down: the stated one passes
        why = (
            f"the trend multiplies the rates by (1 + t / {field}) ** (trend_shape - 1), at "
            f"most {MAX_TREND_FACTOR:.0e} up to the wall cap (policy.wall_cap_factor x "
            f"job.compute_hours = {cap:.6g} h)"
        )
        if where == "failures" and age == FailureModel.fleet_age_hours:
            # the fleet age left at its placeholder default: the shape is what was set
            raise FieldError(
                "failures.trend_shape",
                f"failures.trend_shape must be <= {most:.4g} at the default "
                f"{field} = {age:g} h (or set {field} >= {least:.6g} h): {why}; got {shape:g}",
            )
        raise FieldError(
            field,
            f"{field} must be >= {least:.6g} h with {what} = {shape:g} (at {age:g} h the "
            f"shape may be at most {most:.4g}): {why}; got {age!r}",
        )


def _rule_needs_snapshot(rule: str) -> FieldError:
    return FieldError(
        "policy.snapshot_hours",
        f"policy.checkpoint_interval={rule!r} needs policy.snapshot_hours > 0 "
        "(with free checkpoints the optimal interval is 0)",
    )


@dataclass(frozen=True)
class Policy:
    """Operational choices: checkpointing, restart, spares and the wall-clock cap.

    Defaults (30-minute checkpoints with 1-minute blocking snapshots, 10-minute restarts) are
    a reference configuration, not measurements: Llama 3 publishes no checkpoint or restart
    times, and Meta's RSC paper quotes restart overheads of 5-20 minutes.

    Parameters
    ----------
    checkpoint_interval : float or {"young", "daly"}
        Compute hours between checkpoints (> 0), or a rule evaluated at the scenario's mean
        time between unexpected interruptions.
    snapshot_hours : float
        Blocking snapshot time per checkpoint (``delta``), >= 0.
    persist_hours : float
        Background persist time after a snapshot before it is durable, in [0, interval].
    restart_hours : float
        Job start-up plus checkpoint load after any interruption (``R``), >= 0.
    swap_hours : float
        Time to swap a spare node into the job after a hardware failure, >= 0.
    n_spares : int or None
        Spare nodes in the pool; ``None`` for an unlimited pool.
    repair_hours : float
        Mean repair time of a failed node (exponential), > 0; used with a finite pool.
        The default of 72 h is an assumption, to be set from your own repair logs.
    wall_cap_factor : float
        A trial stops unfinished once its wall clock passes ``wall_cap_factor * compute_hours``;
        >= 1.
    max_events : int
        A trial also stops unfinished after this many events (a guard for scenarios whose
        event rate is so high that even the cap is far away), >= 1.
    lemon_failures : int
        Lemon detection: a node blamed for this many failures within
        ``lemon_window_hours`` is excluded for good, in [0, 1000] (0, the default: off).
    lemon_window_hours : float
        The window of lemon detection, > 0 (default one week).
    repair_distribution : {"exponential", "fixed"}
        Distribution of each repair stage's duration, of mean ``repair_hours`` (automated)
        or ``manual_repair_hours`` (manual); ``"fixed"``: exactly that long.
    escalation_probability : float
        Probability that a node leaving automated repair goes on to manual repair, in [0, 1].
    manual_repair_hours : float
        Mean duration of manual repair, > 0 (default one week).
    auto_repair_miss : float
        Probability that a bad node leaves automated repair still bad, in [0, 1].
    manual_repair_miss : float
        Probability that a bad node leaves manual repair still bad, in [0, 1].
    retire_after_repairs : int
        A node sent to repair for this many times is retired instead, in [0, 2**31 - 1]
        (0: never).
    n_standbys : int
        Warm standby nodes the job holds beside its own: a failed node is replaced by one at
        once, and the standbys are refilled from the pool, in [0, 10**7].
    preemption_hours : float
        Time to take a node from the shared pool when no standby is left (preempting
        another job), before the swap, >= 0.
    memory_restart_hours : float or None
        Restart time when the checkpoint is restored from peers' memory instead of storage
        (when no more than ``memory_replicas`` nodes have left the job since it became
        durable, and the failure took no rack or pod), >= 0; ``None`` (the default): off.
    memory_replicas : int
        Copies of the checkpoint held in memory, in [1, 2**31 - 1].
    checkpoint_retention : int
        Durable checkpoints kept for rolling back from silent data corruption: the newest
        ``K`` in [1, 2**31 - 1], or 0 (the default) for all.
    snapshot_spread, persist_spread, restart_spread, swap_spread, detection_spread, \
maintenance_spread : float
        Uncertain overheads, per draw (epistemic: unknown, but the same all through a job):
        the stated value (``snapshot_hours``, ``persist_hours``, ``restart_hours``,
        ``swap_hours``, every category's ``detection_hours``, ``failures.maintenance_hours``)
        is the median of a lognormal whose 90% range is ``[value / k, value * k]`` for this
        factor ``k``, in [1, 100]; 1 (the default): known exactly. One multiplier per
        posterior draw (point rates are repeated over ``OVERHEAD_DRAWS`` (4,096) draws), so
        credible intervals include it. :func:`spread_of_range` turns a published range
        (e.g. restarts of 5-20 minutes) into a median and ``k``.
    diagnosis_spread, preemption_spread, sdc_latency_spread : float
        The same per-draw uncertainty for the node model's diagnosis time (every category's
        ``diagnosis_hours``), ``preemption_hours``, and every SDC category's
        ``sdc_latency_hours`` (a fixed latency, or the mean of an exponential one).
    restart_jitter, swap_jitter, detection_jitter, maintenance_jitter : float
        Uncertain overheads, per event (aleatoric: each restart, swap, detection, maintenance
        downtime differs): a fresh lognormal multiplier of median 1 and 90% range
        ``[1 / k, k]`` each time, ``k`` in [1, 100]; 1 (the default): off. Combines with the
        spreads; snapshots and persists have none (see "Uncertain overheads" in
        :mod:`relmc.sim`).
    """

    checkpoint_interval: float | str = 0.5
    snapshot_hours: float = 1.0 / 60.0
    persist_hours: float = 0.0
    restart_hours: float = 10.0 / 60.0
    swap_hours: float = 0.0
    n_spares: int | None = None
    repair_hours: float = 72.0
    wall_cap_factor: float = 20.0
    max_events: int = 1_000_000
    lemon_failures: int = 0
    lemon_window_hours: float = 168.0
    repair_distribution: str = "exponential"
    escalation_probability: float = 0.0
    manual_repair_hours: float = 168.0
    auto_repair_miss: float = 0.0
    manual_repair_miss: float = 0.0
    retire_after_repairs: int = 0
    n_standbys: int = 0
    preemption_hours: float = 0.0
    memory_restart_hours: float | None = None
    memory_replicas: int = 1
    checkpoint_retention: int = 0
    snapshot_spread: float = 1.0
    persist_spread: float = 1.0
    restart_spread: float = 1.0
    swap_spread: float = 1.0
    detection_spread: float = 1.0
    maintenance_spread: float = 1.0
    diagnosis_spread: float = 1.0
    preemption_spread: float = 1.0
    sdc_latency_spread: float = 1.0
    restart_jitter: float = 1.0
    swap_jitter: float = 1.0
    detection_jitter: float = 1.0
    maintenance_jitter: float = 1.0

    def __post_init__(self) -> None:
        ci = _scalar(self.checkpoint_interval)
        if isinstance(ci, str):
            ci = str(ci)  # not a NumPy string
            _set(self, "checkpoint_interval", ci)
            if ci not in INTERVAL_RULES:
                raise _fail("policy.checkpoint_interval", "a number > 0 or 'young'/'daly'", ci)
        else:
            ci = _check_real("policy.checkpoint_interval", ci, lo_open=True)
            _set(self, "checkpoint_interval", ci)
        for name in ("snapshot_hours", "persist_hours", "restart_hours", "swap_hours"):
            _set(self, name, _check_real(f"policy.{name}", getattr(self, name)))
        if not isinstance(ci, str) and self.persist_hours > ci:
            raise _fail(
                "policy.persist_hours", f"in [0, checkpoint_interval={ci:g}]", self.persist_hours
            )
        if self.n_spares is not None:
            # None, the default, is an unlimited pool: in TOML a field left out
            note = " or None (unlimited: in a TOML file, leave the field out)"
            spares = _check_int("policy.n_spares", self.n_spares, lo=0, hi=MAX_SPARES, note=note)
            _set(self, "n_spares", spares)
        _set(
            self,
            "repair_hours",
            _check_real("policy.repair_hours", self.repair_hours, lo_open=True),
        )
        _set(
            self,
            "wall_cap_factor",
            _check_real("policy.wall_cap_factor", self.wall_cap_factor, lo=1.0),
        )
        # per-trial counts are stored as int32
        _set(
            self,
            "max_events",
            _check_int("policy.max_events", self.max_events, lo=1, hi=MAX_EVENTS),
        )
        self._check_nodes()

    def _check_nodes(self) -> None:
        """Validate the node-model fields (lemons, repair pipeline, standbys, memory restore)."""
        for name, hi in (
            ("lemon_failures", MAX_LEMON_FAILURES),
            ("retire_after_repairs", MAX_EVENTS),
            ("n_standbys", MAX_SPARES),
        ):
            _set(self, name, _check_int(f"policy.{name}", getattr(self, name), lo=0, hi=hi))
        for name in ("lemon_window_hours", "manual_repair_hours"):
            _set(self, name, _check_real(f"policy.{name}", getattr(self, name), lo_open=True))
        if self.repair_distribution not in REPAIR_DISTRIBUTIONS:
            raise _fail(
                "policy.repair_distribution", "'exponential' or 'fixed'", self.repair_distribution
            )
        for name in ("escalation_probability", "auto_repair_miss", "manual_repair_miss"):
            _set(self, name, _check_range(f"policy.{name}", getattr(self, name), 0.0, 1.0))
        pre = _check_real("policy.preemption_hours", self.preemption_hours)
        _set(self, "preemption_hours", pre)
        if self.memory_restart_hours is not None:
            mem = _check_real("policy.memory_restart_hours", self.memory_restart_hours)
            _set(self, "memory_restart_hours", mem)
        reps = _check_int("policy.memory_replicas", self.memory_replicas, lo=1, hi=MAX_EVENTS)
        _set(self, "memory_replicas", reps)
        keep = _check_int(
            "policy.checkpoint_retention", self.checkpoint_retention, lo=0, hi=MAX_EVENTS
        )
        _set(self, "checkpoint_retention", keep)
        for name in (*SPREAD_FIELDS, *JITTER_FIELDS):
            k = _check_range(f"policy.{name}", getattr(self, name), 1.0, MAX_SPREAD)
            _set(self, name, k)

    @property
    def overhead_sigma(self) -> np.ndarray:
        """Log-sd of the per-draw multiplier of each overhead, in ``SPREAD_FIELDS`` order."""
        return np.log([getattr(self, f) for f in SPREAD_FIELDS]) / Z95

    @property
    def overhead_jitter(self) -> np.ndarray:
        """Log-sd of the per-event multiplier of each event overhead (``JITTER_FIELDS``)."""
        return np.log([getattr(self, f) for f in JITTER_FIELDS]) / Z95

    def mean_factor(self, overhead: str) -> float:
        """Mean multiplier of an overhead's median: ``exp((sigma^2 + j^2) / 2)``.

        ``overhead`` is one of ``snapshot``, ``persist``, ``restart``, ``swap``,
        ``detection``, ``maintenance``, ``diagnosis``, ``preemption``, ``sdc_latency``. (A
        persist is capped at the checkpoint interval; the mean ignores the cap.)
        """
        s = math.log(getattr(self, f"{overhead}_spread")) / Z95
        j = math.log(getattr(self, f"{overhead}_jitter", 1.0)) / Z95
        return math.exp((s * s + j * j) / 2.0)

    def interval(self, mttf_hours: float) -> float:
        """Return the checkpoint interval in hours, applying a named rule at ``mttf_hours``."""
        ci = self.checkpoint_interval
        if not isinstance(ci, str):
            return float(ci)
        from relmc import analytic

        if not math.isfinite(mttf_hours):
            raise FieldError(
                "policy.checkpoint_interval",
                f"policy.checkpoint_interval={ci!r} needs a finite MTTF; the failure rates are 0",
            )
        if self.snapshot_hours == 0:
            raise _rule_needs_snapshot(ci)
        rule = analytic.young_interval if ci == "young" else analytic.daly_interval
        tau = float(rule(self.snapshot_hours, mttf_hours))
        if self.persist_hours > tau:
            raise _fail(
                "policy.persist_hours", f"in [0, checkpoint_interval={tau:g}]", self.persist_hours
            )
        return tau


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """Everything a projection needs: cluster, failure model, job and policy.

    ``failures`` is required; :meth:`Scenario.default` gives Llama 3's point rates.
    """

    cluster: Cluster = field(default_factory=Cluster)
    failures: FailureModel
    job: Job = field(default_factory=Job)
    policy: Policy = field(default_factory=Policy)

    def __post_init__(self) -> None:
        for name, cls in (("cluster", Cluster), ("job", Job), ("policy", Policy)):
            value = getattr(self, name)
            if isinstance(value, Mapping):
                value = _from_mapping(cls, value, name)
                _set(self, name, value)
            if not isinstance(value, cls):  # a TOML user wrote `cluster = 5`, not a table
                raise _fail(name, f"a {cls.__name__} or a table of its fields ([{name}])", value)
        f = self.failures
        if isinstance(f, Mapping):
            f = _failures_from_mapping(f)
        if not isinstance(f, FailureModel):
            raise _fail("failures", "a FailureModel or a table of its fields ([failures])", f)
        _set(self, "failures", f)
        self._check_overhead_scale()

    def _check_overhead_scale(self) -> None:
        """Refuse a stated overhead that a drawn multiplier could carry past the floats.

        An overhead with a spread or jitter is its value times ``exp(sigma Z)`` (and
        ``exp(j Z)`` per event); a value times ``exp(OVERHEAD_Z_MAX (sigma + j))`` must stay
        below ``OVERHEAD_HOURS_MAX`` (1e300 h), whatever the seed: an infinite snapshot made
        the segment infinite and its lost hours NaN.
        """
        pol = self.policy
        if all(getattr(pol, f) == 1.0 for f in (*SPREAD_FIELDS, *JITTER_FIELDS)):
            return  # every overhead known exactly: nothing is drawn (most scenarios)
        values = self.overhead_values()
        jitter = dict(zip(JITTER_FIELDS, pol.overhead_jitter, strict=True))
        for name, sigma in zip(SPREAD_FIELDS, pol.overhead_sigma, strict=True):
            overhead = name[: -len("_spread")]
            j = jitter.get(f"{overhead}_jitter", 0.0)
            if sigma + j == 0.0:
                continue
            limit = OVERHEAD_HOURS_MAX / math.exp(OVERHEAD_Z_MAX * (sigma + j))
            for path, value in values[overhead]:
                if value > limit:
                    by = f"policy.{name} = {getattr(pol, name):g}" + (
                        f" and policy.{overhead}_jitter = {getattr(pol, f'{overhead}_jitter'):g}"
                        if j > 0
                        else ""
                    )
                    raise FieldError(
                        path,
                        f"{path} must be <= {limit:.3g} h with {by} (a drawn multiple of it "
                        f"must stay a finite number of hours); got {value!r}",
                    )

    @classmethod
    def default(cls, **kwargs) -> Scenario:
        """Llama 3 point rates on 16,384 GPUs with the default policy (fields overridable).

        See :func:`relmc.defaults.default_scenario`; this reads the bundled Llama 3 data.
        """
        from relmc.defaults import default_scenario

        return default_scenario(**kwargs)

    def mttf_hours(self) -> float:
        """Mean time between unexpected interruptions (hours) at the scenario's point rates."""
        total = float(self.failures.cluster_rates(self.cluster).sum())
        return math.inf if total == 0 else 1.0 / total

    def features(self) -> list[str]:
        """Short labels of what the scenario models beyond constant rates and speed.

        Empty for the defaults' kind of job; e.g. ``["throughput +-1.5% a day",
        "daily rate cycles (3 categories)", "stragglers (1 category)"]``. Reports and figure
        labels print them, so a result is not mistaken for one without them.
        """
        job, fm, pol = self.job, self.failures, self.policy
        out = []
        if job.throughput_amplitude > 0:
            out.append(f"throughput +-{100 * job.throughput_amplitude:.3g}% a day")

        def count(what: str, n: int) -> None:
            if n:
                out.append(f"{what} ({n} {'category' if n == 1 else 'categories'})")

        cats = fm.categories
        count("daily rate cycles", sum(c.diurnal_amplitude > 0 for c in cats))
        count("rate profiles", sum(bool(c.rate_profile) for c in cats))
        count("rate multipliers", sum(c.rate_multiplier != 1.0 for c in cats))
        count("stragglers", sum(c.kind == "straggler" for c in cats))
        count("silent data corruption", sum(c.kind == "sdc" for c in cats))
        if fm.trend_shape != 1.0:
            out.append(f"fleet trend, shape {fm.trend_shape:g}")
        if fm.bad_node_fraction > 0:
            out.append(
                f"lemon nodes ({100 * fm.bad_node_fraction:.3g}%, x{fm.bad_node_multiplier:g})"
            )
        if np.any(pol.overhead_sigma > 0) or np.any(pol.overhead_jitter > 0):
            out.append("uncertain overheads")
        # the node model's recovery (the policy line itself gives spares and maintenance)
        failures = [c for c in cats if c.kind == "failure"]  # the others are node-domain
        count("blast radius", sum(c.domain != "node" for c in failures))
        count("diagnosis", sum(c.diagnosis_hours > 0 for c in cats))
        count("wrong blame", sum(c.wrong_blame > 0 and self.reads(c, "wrong_blame") for c in cats))
        if pol.lemon_failures > 0:
            out.append(f"lemon detection ({pol.lemon_failures} in {pol.lemon_window_hours:g} h)")
        if pol.escalation_probability > 0 or pol.auto_repair_miss > 0:
            out.append("repair escalation or misses")
        if pol.retire_after_repairs > 0:
            k = pol.retire_after_repairs
            out.append(f"retirement after {k} repair{'' if k == 1 else 's'}")
        if pol.n_standbys > 0:
            out.append(f"{pol.n_standbys} standby{'' if pol.n_standbys == 1 else 's'}")
        if pol.preemption_hours > 0:
            out.append(f"pool preemption {60 * pol.preemption_hours:.3g} min")
        if pol.memory_restart_hours is not None:
            n = pol.memory_replicas
            out.append(f"restarts from memory ({n} replica{'' if n == 1 else 's'})")
        if pol.checkpoint_retention > 0 and any(c.kind == "sdc" for c in cats):
            k = pol.checkpoint_retention
            out.append(f"{k} checkpoint{'' if k == 1 else 's'} kept")
        return out

    def overhead_values(self) -> dict[str, list[tuple[str, float]]]:
        """Return the stated values that each overhead's spread and jitter multiply, by path.

        Keys are the overheads of ``SPREAD_FIELDS`` (``snapshot`` .. ``sdc_latency``); each
        holds ``(path, hours)`` of the fields it scales: a category's per category (SDC
        latencies of the ``"sdc"`` categories only), the restart also the restart from
        memory (0 when off).
        """
        pol, fm = self.policy, self.failures
        cats = fm.categories

        def per_category(field: str, kinds=CATEGORY_KINDS) -> list[tuple[str, float]]:
            return [
                (f"failures.categories[{c.name!r}].{field}", getattr(c, field))
                for c in cats
                if c.kind in kinds
            ]

        return {
            "snapshot": [("policy.snapshot_hours", pol.snapshot_hours)],
            "persist": [("policy.persist_hours", pol.persist_hours)],
            "restart": [
                ("policy.restart_hours", pol.restart_hours),
                ("policy.memory_restart_hours", pol.memory_restart_hours or 0.0),
            ],
            "swap": [("policy.swap_hours", pol.swap_hours)],
            "detection": per_category("detection_hours"),
            "maintenance": [("failures.maintenance_hours", fm.maintenance_hours)],
            "diagnosis": per_category("diagnosis_hours"),
            "preemption": [("policy.preemption_hours", pol.preemption_hours)],
            "sdc_latency": per_category("sdc_latency_hours", ("sdc",)),
        }

    def domain_nodes(self, domain: str) -> int:
        """Nodes of the job one failure of ``domain`` takes: a rack's or a pod's, at most all.

        ``"node"`` 1, ``"rack"`` ``nodes_per_rack``, ``"pod"`` ``max(1, gpus_per_pod //
        gpus_per_node)``, each at most the job's ``ceil(n_gpus / gpus_per_node)`` nodes
        (:mod:`relmc.sim`, resolution 1).
        """
        cl = self.cluster
        n_nodes = -(-cl.n_gpus // cl.gpus_per_node)  # a part-filled node is still a node
        pod = max(1, cl.gpus_per_pod // cl.gpus_per_node)
        return min({"node": 1, "rack": cl.nodes_per_rack, "pod": pod}[domain], n_nodes)

    def reads(self, c: Category, name: str) -> bool:
        """Whether the simulation reads field ``name`` (a ``KIND_FIELDS`` key) of category ``c``.

        A field of ``KIND_FIELDS`` is read for its kind only (:meth:`Category.reads`);
        ``wrong_blame`` moreover only where the category's domain takes one node of this job
        (:meth:`domain_nodes`; a failure that takes several sends them all to repair: no node
        is blamed, :mod:`relmc.sim`).
        """
        if not c.reads(name):
            return False
        return name != "wrong_blame" or self.domain_nodes(c.domain) == 1

    def dead_fields(self) -> dict[str, str]:
        """Fields set away from their defaults whose feature is off here, with why.

        Each changes nothing while it is off (the outputs are those of the field's default,
        bit for bit): ``policy.lemon_window_hours`` without lemon detection
        (``lemon_failures`` 0); ``policy.manual_repair_hours`` and ``manual_repair_miss``
        without escalation (``escalation_probability`` 0); ``policy.memory_replicas``
        without restarts from memory (``memory_restart_hours`` None);
        ``policy.checkpoint_retention`` without an SDC category; ``policy.repair_hours``
        with an unlimited pool (a node sent to repair never comes back);
        ``job.throughput_peak_hour`` with ``throughput_amplitude`` 0;
        ``failures.maintenance_hours`` with ``maintenance_rate`` 0; a category's
        ``diurnal_peak_hour`` with ``diurnal_amplitude`` 0 (with or without a
        ``rate_profile``), unless a posterior's per-draw amplitude makes it read
        (``relmc.rates.posterior_reads``). Keys are dotted paths
        (``failures.categories['gpu'].diurnal_peak_hour``).
        """
        return {p: o.why for p, o in self._feature_off().items() if o.moved}

    def _feature_off(self) -> dict[str, _Off]:
        """:meth:`dead_fields`' paths whose feature is off, moved from the default or not."""
        pol, job = self.policy, self.job
        out: dict[str, _Off] = {}

        def off(obj: Any, name: str, why: str, section: str) -> None:
            value = getattr(obj, name)
            moved = value != type(obj).__dataclass_fields__[name].default
            cat = obj.name if isinstance(obj, Category) else None
            out[f"{section}.{name}"] = _Off(value, moved, why, cat)

        if pol.lemon_failures == 0:
            why = "policy.lemon_failures is 0 (no lemon detection)"
            off(pol, "lemon_window_hours", why, "policy")
        if pol.escalation_probability == 0:
            for name in ("manual_repair_hours", "manual_repair_miss"):
                why = "policy.escalation_probability is 0 (no node reaches manual repair)"
                off(pol, name, why, "policy")
        if pol.memory_restart_hours is None:
            why = "policy.memory_restart_hours is not set (no restart from memory)"
            off(pol, "memory_replicas", why, "policy")
        if not any(c.kind == "sdc" for c in self.failures.categories):
            off(pol, "checkpoint_retention", 'no category has kind = "sdc"', "policy")
        if pol.n_spares is None:
            why = "policy.n_spares is unlimited (a node sent to repair never comes back)"
            off(pol, "repair_hours", why, "policy")
        if job.throughput_amplitude == 0:
            off(job, "throughput_peak_hour", "job.throughput_amplitude is 0", "job")
        if self.failures.maintenance_rate == 0:
            why = "failures.maintenance_rate is 0 (no planned maintenance)"
            off(self.failures, "maintenance_hours", why, "failures")
        for c in self.failures.categories:
            if c.diurnal_amplitude == 0:  # a rate_profile has amplitude 0 too: no cosine
                section = f"failures.categories[{c.name!r}]"
                off(c, "diurnal_peak_hour", "its diurnal_amplitude is 0", section)
        return out

    def inert_overheads(self) -> dict[str, str]:
        """Overheads whose stated values are all 0 (or whose event never occurs), with why.

        Keys are overhead names (``SPREAD_FIELDS`` less ``_spread``); a spread or jitter on
        one of them multiplies 0 (:mod:`relmc.sim`, "Uncertain overheads": an overhead of 0
        stays 0), so it has no effect on the process (its draws are still made).
        """
        out = {}
        for overhead, values in self.overhead_values().items():
            if overhead == "maintenance" and self.failures.maintenance_rate == 0:
                out[overhead] = "there is no planned maintenance (failures.maintenance_rate is 0)"
            elif not values:
                out[overhead] = 'no category has kind = "sdc"'
            elif all(v == 0 for _, v in values):
                path = values[0][0]
                which = "SDC category's" if overhead == "sdc_latency" else "category's"
                out[overhead] = (
                    f"every {which} {path.rsplit('.', 1)[1]} is 0"
                    if path.startswith("failures.categories")
                    else f"{path} is 0"
                )
        return out

    def unread_notes(
        self,
        among: Sequence[Scenario] = (),
        *,
        context: UnreadContext | None = None,
        live: Collection[str] = (),
    ) -> list[str]:
        """One sentence per field set that changes nothing: unread by its kind, dead, or inert.

        E.g. ``failures.categories['slow'] sets straggler_speed, which its kind ('failure')
        does not read (meant kind = "straggler"?)``; see :meth:`Category.unread_fields`.
        And a spread or jitter (``policy.*_spread``, ``policy.*_jitter``) set on an overhead
        that is 0 (:meth:`inert_overheads`), e.g. ``policy.swap_spread = 3 has no effect:
        policy.swap_hours is 0`` (the default swap time is 0). With ``among`` (e.g. a
        sweep's cells, a comparison's scenarios): only the fields unread in each of them that
        has the category, so that varying ``kind`` across them is not taken for a forgotten
        one, and only the spreads inert in all of them (an axis over an overhead through 0).
        A field set for a feature that is off (:meth:`dead_fields`), e.g.
        ``policy.memory_replicas = 3 has no effect: policy.memory_restart_hours is not set
        ...``; with ``among``, only where it is off in every one of them.
        A ``wrong_blame`` on a failure category whose domain takes several nodes of this job
        (:meth:`reads`) is said to have no effect (no node is blamed there), e.g.
        ``... wrong_blame = 0.2 has no effect: its domain ('rack') takes 2 nodes here``.
        ``context`` is ``relmc.scenario.unread_context(among)``, computed once by a caller
        that asks every one of many scenarios (``among`` is then not read). ``live``: paths of
        :meth:`dead_fields` that the rates read all the same (a posterior's per-draw
        ``diurnal_amplitude`` makes a category's ``diurnal_peak_hour`` read:
        ``relmc.rates.posterior_reads``), left out.
        """
        read_somewhere, inert_among, dead_among = (
            unread_context(among) if context is None else context
        )
        out = []
        for c in self.failures.categories:
            unread = [f for f in c.unread_fields() if (c.name, f) not in read_somewhere]
            if (
                c.kind == "failure"
                and c.wrong_blame != 0
                and not self.reads(c, "wrong_blame")
                and (c.name, "wrong_blame") not in read_somewhere
            ):
                d = self.domain_nodes(c.domain)
                out.append(
                    f"failures.categories[{c.name!r}].wrong_blame = {c.wrong_blame:g} has no "
                    f"effect: its domain ({c.domain!r}) takes {d} nodes here, and a failure "
                    "that takes several sends them all to repair (only a one-node domain "
                    "blames a node)"
                )
            if unread:
                kinds = sorted({KIND_FIELDS[f] for f in unread})
                meant = " or ".join(f'kind = "{k}"' for k in kinds)
                out.append(
                    f"failures.categories[{c.name!r}] sets {', '.join(unread)}, which its "
                    f"kind ({c.kind!r}) does not read (meant {meant}?)"
                )
        for path, o in self._feature_off().items():
            if o.moved and path not in live and (dead_among is None or path in dead_among):
                shown = f"{o.value:g}" if isinstance(o.value, float) else repr(o.value)
                out.append(f"{path} = {shown} has no effect: {o.why}")
        pol = self.policy
        spreads = [n for n in (*SPREAD_FIELDS, *JITTER_FIELDS) if getattr(pol, n) != 1.0]
        if not spreads:
            return out
        inert = self.inert_overheads()
        for name in spreads:
            overhead, value = name.rsplit("_", 1)[0], getattr(pol, name)
            if overhead in inert and (inert_among is None or overhead in inert_among):
                out.append(f"policy.{name} = {value:g} has no effect: {inert[overhead]}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return a plain, TOML-friendly nested dict (``None`` fields are left out)."""
        return _drop_none(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scenario:
        """Build (and validate) a scenario from :meth:`to_dict`'s layout; missing = default.

        A missing ``failures`` section gives :func:`relmc.defaults.default_failures`; one
        without ``categories`` gives its categories and fields, with the section's fields in
        place of theirs (e.g. lemon nodes on the default Llama 3 categories).
        """
        if not isinstance(d, Mapping):
            raise _fail("scenario", "a mapping", d)
        unknown = sorted(set(d) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(
                f"scenario: unknown sections {unknown}; known: cluster, failures, job, policy"
            )
        d = dict(d)
        fm = d.get("failures")
        if fm is None or (isinstance(fm, Mapping) and "categories" not in fm):
            from relmc.defaults import default_failures

            base = default_failures()
            d["failures"] = base if fm is None else {**dataclasses.asdict(base), **fm}
        return cls(**d)


class _Off(NamedTuple):
    """A field whose feature is off (:meth:`Scenario._feature_off`)."""

    value: Any
    moved: bool  # set away from its default
    why: str
    category: str | None  # the category's name, for a per-category field


#: :func:`unread_context`'s result: the ``(category name, field)`` pairs some scenario's
#: kinds read, the overheads inert in every scenario and the fields dead in every scenario
#: (:meth:`Scenario.dead_fields`; each None: no scenarios given)
UnreadContext = tuple[set[tuple[str, str]], set[str] | None, set[str] | None]


def unread_context(among: Sequence[Scenario]) -> UnreadContext:
    """Return what :meth:`Scenario.unread_notes` reads of ``among``, once for all of them."""
    read_somewhere = {  # fields a category reads in one of them
        (c.name, f)
        for sc in among
        for c in sc.failures.categories
        for f in KIND_FIELDS
        if sc.reads(c, f)
    }
    inert: set[str] | None = None
    for sc in among:
        own = set(sc.inert_overheads())
        inert = own if inert is None else inert & own
    # a field is dead among them where its feature is off in every one that has the field
    # (a scenario at the field's default counts: an axis through the default is no reader)
    dead: set[str] | None = None
    if among:
        offs = [sc._feature_off() for sc in among]
        names = [{c.name for c in sc.failures.categories} for sc in among]
        category = {path: o.category for off in offs for path, o in off.items()}
        dead = set()
        for path, cat in category.items():
            having = [off for off, n in zip(offs, names, strict=True) if cat is None or cat in n]
            if all(path in off for off in having):
                dead.add(path)
    return read_somewhere, inert, dead


def _drop_none(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list | tuple):
        return [_drop_none(v) for v in obj]
    return obj


def _from_mapping(cls, d: Any, where: str):
    if not isinstance(d, Mapping):
        raise _fail(where, "a table of fields", d)
    fields = dataclasses.fields(cls)
    known = {f.name for f in fields}
    unknown = sorted(set(d) - known)
    if unknown:
        hints = []
        for u in unknown:
            if (found := field_suggestion(u, known)) is not None:
                hints.append(f"{found[0]!r} for {u!r}{found[1]}")
        hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
        raise FieldError(
            f"{where}.{unknown[0]}",
            f"{where}: unknown fields {unknown}{hint}; known: {sorted(known)}",
        )
    for f in fields:
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if required and f.name not in d:
            raise FieldError(f"{where}.{f.name}", f"{where}: the field {f.name!r} is required")
    return cls(**dict(d))


_TIME_UNITS = ("_minutes", "_minute", "_mins", "_min", "_seconds", "_second", "_secs",
               "_days", "_day")  # fmt: skip


def _in_other_units(name: Any) -> bool:
    """Whether ``name`` reads as a time in units other than the fields' hours."""
    return isinstance(name, str) and name.endswith(_TIME_UNITS)


def _check_table_names(tables: Any, mine: Mapping[str, Any]) -> None:
    """Refuse a failure table naming a category a fitted model lacks (a misspelt name).

    Layered on a fit, each table names one of its categories or adds a straggler or SDC
    one; a failure category of another name would meet no posterior rate (the rates must
    match the scenario's categories), so it is named here, where a misspelling is clear.
    """
    if not isinstance(tables, list | tuple) or not all(
        isinstance(t, Mapping) and isinstance(t.get("name"), str) for t in tables
    ):
        return
    lower = {k.lower(): k for k in mine}
    for t in tables:
        name = t["name"]
        if name in mine or t.get("kind", "failure") != "failure":
            continue
        close = lower.get(name.lower()) or next(
            iter(difflib.get_close_matches(name, sorted(mine), n=1, cutoff=0.6)), None
        )
        hint = f"; did you mean {close!r}?" if close else "."
        field = f"failures.categories[{name!r}]"
        raise FieldError(
            field,
            f"{field}: the fit has no category {name!r}{hint} A table naming a fit category "
            "changes it, a straggler or SDC table of a new name adds one, and without "
            "[[failures.categories]] tables the fit's categories are simulated as they are; "
            f"the fit's categories: {', '.join(repr(k) for k in mine)}",
        )


def _closest(name: Any, known: set[str]) -> str | None:
    """Return the known field a misspelt or mis-united ``name`` most likely means, or None.

    Times are fields in hours: ``restart_minutes`` means ``restart_hours``.
    """
    if not isinstance(name, str):
        return None
    for unit in _TIME_UNITS:
        if name.endswith(unit) and name[: -len(unit)] + "_hours" in known:
            return name[: -len(unit)] + "_hours"
    match = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return match[0] if match else None


def _category_where(c: Any, i: int) -> str:
    """Name a category table in messages by its name, as the range checks do, else its index."""
    name = c.get("name") if isinstance(c, Mapping) else None
    return (
        f"failures.categories[{name!r}]"
        if isinstance(name, str) and name
        else (f"failures.categories[{i}]")
    )


def _failures_from_mapping(d: Mapping[str, Any]) -> FailureModel:
    d = dict(d)
    cats = d.get("categories", ())
    if not isinstance(cats, list | tuple):
        raise _fail("failures.categories", "a list of category tables", cats)
    d["categories"] = tuple(
        c if isinstance(c, Category) else _from_mapping(Category, c, _category_where(c, i))
        for i, c in enumerate(cats)
    )
    return _from_mapping(FailureModel, d, "failures")


def category_path(path: str) -> tuple[str, str] | None:
    """Split ``failures.categories.NAME.field`` into ``(NAME, field)``; None for another path.

    ``NAME`` may contain dots (the field is the last part) or be ``*`` (every category).
    """
    head = "failures.categories."
    if not path.startswith(head):
        return None
    name, _, fld = path[len(head) :].rpartition(".")
    return name, fld


def replace_path(scenario: Scenario, path: str, value: Any) -> Scenario:
    """Return a copy of ``scenario`` with the field at dotted ``path`` set to ``value``.

    Paths are ``section.field`` (``"cluster.n_gpus"``, ``"policy.restart_hours"``,
    ``"failures.maintenance_rate"``) or ``failures.categories.NAME.field`` where ``NAME`` is a
    category name (it may contain dots) or ``*`` for every category
    (``"failures.categories.*.detection_hours"``). The result is validated.
    """
    if not isinstance(path, str) or "." not in path:
        raise ValueError(f"path must be 'section.field'; got {path!r}")
    section, rest = path.split(".", 1)
    if section in ("cluster", "job", "policy"):
        obj = getattr(scenario, section)
        known = {f.name for f in dataclasses.fields(obj)}
        if rest not in known:
            raise ValueError(
                f"unknown field {path!r}{_path_hint(section, rest, known)}; known: "
                f"{[f'{section}.{f.name}' for f in dataclasses.fields(obj)]}"
            )
        return dataclasses.replace(scenario, **{section: dataclasses.replace(obj, **{rest: value})})
    if section == "failures":
        fm = scenario.failures
        if (parts := category_path(path)) is not None:
            name, fld = parts
            known = {f.name for f in dataclasses.fields(Category)} - {"name"}
            if fld not in known:
                raise ValueError(
                    f"unknown field {path!r}{_path_hint(path[: -len(fld) - 1], fld, known)}: "
                    "category fields are "
                    + ", ".join(f.name for f in dataclasses.fields(Category) if f.name != "name")
                )
            if name != "*":
                fm.category(name)  # raises for an unknown name
            cats = tuple(
                dataclasses.replace(c, **{fld: value}) if name in ("*", c.name) else c
                for c in fm.categories
            )
            return dataclasses.replace(scenario, failures=dataclasses.replace(fm, categories=cats))
        known = {f.name for f in dataclasses.fields(FailureModel)} - {"categories"}
        if rest in known:
            return dataclasses.replace(scenario, failures=dataclasses.replace(fm, **{rest: value}))
        hint = _path_hint(section, rest, known)
        if hint:
            raise ValueError(f"unknown field {path!r}{hint}; known: {sorted(known)}")
    raise ValueError(f"unknown field {path!r}; sections are cluster, failures, job, policy")


def _path_hint(head: str, name: str, known: set[str]) -> str:
    """`` (did you mean 'HEAD.FIELD'?)`` for a misspelt or mis-united field, else ``""``."""
    found = field_suggestion(name, known)
    if found is None:
        return ""
    return f" (did you mean {f'{head}.{found[0]}'!r}{found[1]}?)"


def field_suggestion(name: Any, known: set[str]) -> tuple[str, str] | None:
    """Return ``(field, note)`` for a misspelt or mis-united ``name``, or None.

    ``field`` is the known field it most likely means (:func:`_closest`); ``note`` is
    ``" (its value in hours)"`` where ``name`` is a time in other units and ``field`` one in
    hours (``restart_minutes``: ``restart_hours``), else ``""``. The one source of the
    "did you mean" hints of scenario tables, dotted paths and sweep specs.
    """
    match = _closest(name, known)
    if match is None:
        return None
    note = " (its value in hours)" if _in_other_units(name) and match.endswith("_hours") else ""
    return match, note
