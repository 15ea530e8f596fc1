"""Cluster shape: how many exposure units of each kind a cluster of N GPUs has.

A failure category's rate is per *unit-hour*; the cluster-level rate at size N is
``rate * units(N, unit)``. The units and their defaults follow the Llama 3 405B cluster
(Llama 3 paper §3.3.1; ``SOURCES.md`` §1.3 in the relmc repository):

============  ======================================================================
unit          count at N GPUs (defaults)
============  ======================================================================
``gpu``       N
``node``      ceil(N / 8): eight GPUs and two CPUs per Grand Teton server
``rack``      ceil(nodes / 2): two servers (16 GPUs) per rack
``switch``    one top-of-rack switch per rack, so the same count as ``rack``
``link``      N * links_per_gpu: one 400 Gbps RoCE NIC link per GPU
``pod``       ceil(N / 3072): 192 racks of 16 GPUs form a pod with full bisection
``job``       1, whatever N: causes that do not grow with size (e.g. a software bug
              that crashes the whole job once it is hit)
============  ======================================================================

Which unit each Llama 3 root-cause category scales with is a modelling choice; the default
mapping is :data:`LLAMA3_DEFAULT_UNITS`, documented entry by entry, and every public function
that uses it accepts an override.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from relmc.errors import FieldError

__all__ = [
    "UNITS",
    "ClusterShape",
    "SHAPE_FIELDS",
    "check_gpus",
    "check_shape",
    "shape_attrs",
    "recorded_shape",
    "unit_shape_fields",
    "LLAMA3_DEFAULT_UNITS",
    "units",
    "units_table",
    "resolve_units",
]

UNITS: tuple[str, ...] = ("gpu", "node", "rack", "switch", "link", "pod", "job")


#: the largest rate relmc takes, per hour (one event every 3.6 ns): a category's rate per
#: unit-hour (a data row's count over its exposure), a job's or a cluster's rate
#: (``relmc.scenario.MAX_RATE``, ``relmc.rates.MAX_CLUSTER_RATE``)
MAX_RATE = 1e12

#: far beyond any fabric (Llama 3: 1); keeps link counts, and rates per link, finite
MAX_LINKS_PER_GPU = 1000.0

#: the largest cluster relmc takes, GPUs: a scenario's ``cluster.n_gpus``, ``relmc fit
#: --n-gpus``, and the cluster a fit's data were observed on (``load_counts``' and
#: ``load_events``' ``n_gpus``, a total-only fleet's ``attrs["n_gpus"]``). 500 times the
#: largest published training cluster; the projection's sizes are held to it too
MAX_GPUS = 100_000_000

#: the longest observation window relmc takes, hours (about 114 years; ``load_counts``'
#: ``duration_hours``, ``load_events``' window): with :data:`MAX_GPUS` and
#: :data:`MAX_LINKS_PER_GPU` an exposure stays below 1e17 unit-hours, and (count + 1) / that
#: above any float's least normal value, so every rate and its logarithm are finite
MAX_WINDOW_HOURS = 1_000_000.0

#: the oldest fleet relmc takes, hours (about 1,140 years; ``load_events``'
#: ``fleet_age_at_start_hours``): ten times :data:`MAX_WINDOW_HOURS`, older than any hardware,
#: and small enough that the power-law trend's (age + t) / (age + window) stays well resolved
#: in float64 for windows down to a second
MAX_FLEET_AGE_HOURS = 10_000_000.0


@dataclass(frozen=True)
class ClusterShape:
    """How GPUs are packed into nodes, racks and pods.

    Parameters
    ----------
    gpus_per_node : int
        GPUs in one server (Llama 3: 8).
    nodes_per_rack : int
        Servers under one top-of-rack switch (Llama 3: 2).
    gpus_per_pod : int
        GPUs in one full-bisection pod (Llama 3: 3,072).
    links_per_gpu : float
        Network links per GPU, in (0, 1000] (Llama 3: one 400 Gbps NIC per GPU).
    """

    gpus_per_node: int = 8
    nodes_per_rack: int = 2
    gpus_per_pod: int = 3072
    links_per_gpu: float = 1.0

    def __post_init__(self) -> None:
        for name in ("gpus_per_node", "nodes_per_rack", "gpus_per_pod"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
                raise FieldError(name, f"{name} must be an integer >= 1; got {value!r}")
            object.__setattr__(self, name, int(value))
        lpg = self.links_per_gpu
        if (
            isinstance(lpg, bool | np.bool_)
            or not isinstance(lpg, int | float | np.integer | np.floating)
            or not (0 < lpg <= MAX_LINKS_PER_GPU)
        ):
            raise FieldError(
                "links_per_gpu",
                f"links_per_gpu must be a number in (0, {MAX_LINKS_PER_GPU:g}]; got {lpg!r}",
            )
        object.__setattr__(self, "links_per_gpu", float(lpg))


#: the fields of :class:`ClusterShape`, as data and fits record them in ``attrs``
SHAPE_FIELDS: tuple[str, ...] = ("gpus_per_node", "nodes_per_rack", "gpus_per_pod", "links_per_gpu")

#: the shape fields each unit's count at N GPUs depends on (:func:`units`)
_UNIT_FIELDS: dict[str, tuple[str, ...]] = {
    "gpu": (),
    "node": ("gpus_per_node",),
    "rack": ("gpus_per_node", "nodes_per_rack"),
    "switch": ("gpus_per_node", "nodes_per_rack"),
    "link": ("links_per_gpu",),
    "pod": ("gpus_per_pod",),
    "job": (),
}


def unit_shape_fields(unit: str) -> tuple[str, ...]:
    """Return the :class:`ClusterShape` fields ``units(n, unit, shape)`` reads (gpu, job: none)."""
    return _UNIT_FIELDS.get(str(unit), ())


def check_shape(shape: Any, field: str = "shape") -> ClusterShape:
    """Return ``shape`` if it is a :class:`ClusterShape`, Llama 3's for None; else refuse it."""
    if shape is None:
        return ClusterShape()
    if not isinstance(shape, ClusterShape):
        raise FieldError(field, f"{field} must be a relmc.cluster.ClusterShape; got {shape!r}")
    return shape


def shape_attrs(shape: ClusterShape) -> dict[str, Any]:
    """Return ``attrs`` recording ``shape``, its :data:`SHAPE_FIELDS` (:func:`recorded_shape`)."""
    return {name: getattr(shape, name) for name in SHAPE_FIELDS}


def recorded_shape(attrs: Mapping) -> ClusterShape | None:
    """Return the cluster shape ``attrs`` record (:func:`shape_attrs`), or None.

    None when ``gpus_per_node`` is absent or 0 (relmc's record of "no cluster given") or a
    value is not a valid shape (a file written elsewhere). Fields absent beside a recorded
    ``gpus_per_node`` (files written before the others were recorded) are Llama 3's defaults,
    which those versions assumed.
    """
    gpn = attrs.get("gpus_per_node", 0)
    try:
        if not gpn:
            return None
        given = {
            name: attrs[name].item() if isinstance(attrs[name], np.generic) else attrs[name]
            for name in SHAPE_FIELDS
            if name in attrs
        }
        return ClusterShape(**given)
    except (ValueError, TypeError, AttributeError):
        return None


def check_gpus(value: Any, field: str, *, lo: int = 1, whole: bool = False, why: str = "") -> int:
    """Return ``value`` as a count of GPUs, an int in [``lo``, :data:`MAX_GPUS`] (1e8).

    The one check of a cluster's size given as data: an observed cluster's ``n_gpus``
    (``load_counts``, ``load_events``, a fleet's or a fit's attributes) and the sizes a
    projection runs at.

    Parameters
    ----------
    value : Any
        An integer (Python's or NumPy's, not a bool); with ``whole`` also a whole float such
        as an attribute read back from netCDF holds (``64.0``).
    field : str
        The name the error gives the value (``"n_gpus"``, ``"events.attrs['n_gpus']"``).
    lo : int
        The least count allowed (0 where 0 records an unknown size).
    whole : bool
        Accept whole floats and 0-d arrays too.
    why : str
        Words the error adds after the range (what the count is for).

    Raises
    ------
    relmc.errors.FieldError
        ``"<field> must be an integer in [<lo>, 1e8]<why>; got <value>"`` ("a whole number"
        with ``whole``).
    """
    v = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
    n = None
    if not isinstance(v, bool | np.bool_):
        if isinstance(v, int | np.integer):
            n = int(v)
        elif whole and isinstance(v, float | np.floating) and math.isfinite(v) and v == int(v):
            n = int(v)
    if n is None or not lo <= n <= MAX_GPUS:
        kind = "a whole number" if whole else "an integer"
        raise FieldError(field, f"{field} must be {kind} in [{lo}, 1e8]{why}; got {value!r}")
    return n


def _check_n_gpus(n_gpus: int) -> int:
    if isinstance(n_gpus, bool) or not isinstance(n_gpus, int | np.integer) or n_gpus < 1:
        raise ValueError(f"n_gpus must be an integer >= 1, got {n_gpus!r}")
    return int(n_gpus)


def units(n_gpus: int, unit: str, shape: ClusterShape | None = None) -> float:
    """Return how many exposure units of kind ``unit`` a cluster of ``n_gpus`` GPUs has.

    Parameters
    ----------
    n_gpus : int
        Number of GPUs, >= 1.
    unit : str
        One of :data:`UNITS`.
    shape : ClusterShape, optional
        Packing of GPUs; the Llama 3 defaults when omitted.

    Returns
    -------
    float
        The unit count (a float because ``link`` may be fractional per GPU).
    """
    n = _check_n_gpus(n_gpus)
    shape = ClusterShape() if shape is None else shape
    if unit == "gpu":
        return float(n)
    nodes = math.ceil(n / shape.gpus_per_node)
    if unit == "node":
        return float(nodes)
    if unit in ("rack", "switch"):
        return float(math.ceil(nodes / shape.nodes_per_rack))
    if unit == "link":
        return float(n * shape.links_per_gpu)
    if unit == "pod":
        return float(math.ceil(n / shape.gpus_per_pod))
    if unit == "job":
        return 1.0
    raise ValueError(f"unit must be one of {', '.join(UNITS)}; got {unit!r}")


def units_table(n_gpus, shape: ClusterShape | None = None) -> dict[str, np.ndarray]:
    """Return ``{unit: counts}`` for every unit at each size in ``n_gpus`` (scalar or 1-d)."""
    sizes = np.atleast_1d(np.asarray(n_gpus))
    return {u: np.array([units(int(n), u, shape) for n in sizes]) for u in UNITS}


# Default unit for each Llama 3 Table 5 root-cause category, and why.
# GPU faults are per GPU (each GPU is an independent chance of failure); host components are
# per server; a network switch or cable fault takes out the rack under its ToR switch, so it
# scales with racks; software bugs and NCCL watchdog timeouts are treated as per-GPU because a
# collective job with more ranks exercises more code paths and more links per step (the
# alternative, "job", makes their rate size-independent and is a one-line override).
LLAMA3_DEFAULT_UNITS: dict[str, str] = {
    "Faulty GPU": "gpu",
    "GPU HBM3 Memory": "gpu",
    "Software Bug": "gpu",
    "Network Switch/Cable": "rack",
    "Host Maintenance": "node",
    "GPU SRAM Memory": "gpu",
    "GPU System Processor": "gpu",
    "NIC": "node",
    "NCCL Watchdog Timeouts": "gpu",
    "Silent Data Corruption": "gpu",
    "GPU Thermal Interface + Sensor": "gpu",
    "SSD": "node",
    "Power Supply": "node",
    "Server Chassis": "node",
    "IO Expansion Board": "node",
    "Dependency": "job",
    "CPU": "node",
    "System Memory": "node",
}


def resolve_units(
    categories, defaults: Mapping[str, str], overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Return the unit of each category: ``overrides`` first, then ``defaults``.

    Raises
    ------
    ValueError
        If an override names an unknown category or unit, or a category has no unit.
    """
    categories = list(categories)
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(categories))
    if unknown:
        raise ValueError(f"units: unknown categories {unknown}; known: {categories}")
    out = {}
    for c in categories:
        u = overrides.get(c, defaults.get(c))
        if u is None:
            raise ValueError(f"units: category {c!r} has no unit; give one of {', '.join(UNITS)}")
        if u not in UNITS:
            raise ValueError(f"units[{c!r}] must be one of {', '.join(UNITS)}; got {u!r}")
        out[c] = u
    return out
