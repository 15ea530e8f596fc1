"""Observed failure counts and their exposures, as validated :class:`xarray.Dataset` objects.

Every dataset, bundled or the user's own, has the same schema, which the models rely on:

=================  ============  ==================================================================
name               dims, dtype   meaning
=================  ============  ==================================================================
``category``       (category)    coordinate: category names (str)
``count``          (category)    observed interruptions or failures (int64, >= 0)
``exposure``       (category)    exposure in unit-hours of that category's unit (float64, > 0);
                   float64       attrs ``units``. For cluster data it is
                                 ``relmc.cluster.units(n_gpus, unit) * duration_hours``, so
                                 ``count / exposure`` is a rate per unit-hour (per GPU-hour for
                                 unit ``gpu``, per node-hour for ``node``, per hour for ``job``)
``unit``           (category)    exposure unit, one of :data:`relmc.cluster.UNITS` for cluster
                   str           data (``"pump"`` for the pumps data set)
``group``          (category)    root-cause group (Llama 3 Table 5's "Category" column); ``""``
                   str           when there is none
``maintenance_count``  0-d int64     optional; planned interruptions kept apart from ``count``
``job_count``      (category,    optional size-resolved rows: interruptions of jobs of
                   job_gpus)     ``job_gpus`` GPUs (int64, >= 0); :mod:`relmc.models.scaling`
``job_hours``      (category,    hours those jobs *ran* (float64, >= 0; 0: not observed at that
                   job_gpus)     size), so ``job_count / job_hours`` is a job-level rate per
                                 exposed hour (a job MTTF's clock)
``job_gpus``       (job_gpus)    coordinate: job sizes of the size-resolved rows (int64, GPUs)
=================  ============  ==================================================================

``rsc-1`` carries Meta's job MTTF at 8 and 1,024 GPUs as size-resolved rows (secondary-source
quality, pseudo-counts; ``attrs["job_mttf_checked"]`` and ``attrs["job_exposure_assumption"]``).

Exposure clock: ``exposure`` is unit-hours of the *wall clock* of the observation window
(units in service times the window's hours, downtime included), which is what a count over a
window measures and what a user's CSV must report; :mod:`relmc.rates` converts such rates to
the simulation's exposed clock with the scenario's overheads. ``job_hours`` are hours jobs ran.

``attrs`` (all str, int or float, so a dataset round-trips through ``to_netcdf``): ``name``,
``title``, ``source``, ``arxiv``, ``where``, ``checked`` (how each number was checked: [P] read in
the primary text, [S] seen only in secondary sources, [D] derived by arithmetic; the marks of
``SOURCES.md`` in the relmc repository), ``n_gpus``, ``gpus_per_node``, ``duration_hours``
(0 where not applicable), ``exposure_assumption``, ``rate_units`` and ``notes``.

The bundled numbers live in ``relmc/data/*.csv`` (each with a ``#`` provenance header) and their
descriptions in ``relmc/data/datasets.toml``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import numbers
import os
import tomllib
import warnings
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from relmc import cluster
from relmc._io import read_text
from relmc.defaults import DEFAULT_RULES, RecoveryRules
from relmc.errors import FieldError

__all__ = ["list_datasets", "load_dataset", "load_counts"]

_HOURS_PER_DAY = 24.0
# Mean Gregorian month (365.25 / 12 days), used to turn "11 months of data" into hours.
_HOURS_PER_MONTH = 365.25 / 12.0 * _HOURS_PER_DAY
_NODE_DAYS_PER_RATE_UNIT = 1000.0  # RSC rates are published per 1000 node-days

#: input limits: a count must be exact as a float (the models compute in float64), and a table
#: has at most this many rows (categories), which bounds the memory a hostile file can take
MAX_COUNT = 2**53
MAX_ROWS = 100_000

_REQUIRED = ("category", "count", "exposure", "unit")
_OPTIONAL = ("group", "recovery", "detection_minutes")
#: values of the optional ``recovery`` column
RECOVERY_KINDS = ("restart", "swap")

#: What a counts file's exposure hours count (:func:`load_counts`): the window's wall clock,
#: or only the hours the observed job was exposed to failures.
EXPOSURE_CLOCKS = ("wall", "exposed")

#: what applies to a category when the optional columns are absent (or a cell is blank); the
#: CLI prints it in a run's header and the errors quote it
ABSENT_COLUMN_DEFAULTS = (
    "without a recovery column (or in its blank cells) recovery follows the group column by "
    "Llama 3 Table 5's rule: groups Dependency, Unknown or none (no group column) restart, "
    "others need a node swap; without a detection_minutes column (or in its blank cells) "
    "NCCL Watchdog Timeouts and Network Switch/Cable are seen after PyTorch's 10-minute NCCL "
    "timeout, other categories at once"
)


# --------------------------------------------------------------------------------------------
# reading and validating rows


class _Row:
    """One data row: its 1-based data-row number, file line (0 if none) and raw fields."""

    __slots__ = ("number", "line", "fields")

    def __init__(self, number: int, line: int, fields: dict[str, Any]) -> None:
        self.number = number
        self.line = line
        self.fields = fields

    def where(self, category: str | None = None) -> str:
        parts = [f"line {self.line}"] if self.line else []
        if category:
            parts.append(f"category {category!r}")
        return f"row {self.number}" + (f" ({', '.join(parts)})" if parts else "")


def _read_csv_text(
    text: str, origin: str, *, max_rows: int = MAX_ROWS, what: str = "categories"
) -> tuple[list[str], list[_Row]]:
    """Parse CSV text, skipping blank lines and lines whose first non-blank character is ``#``.

    More than ``max_rows`` data rows (``what`` they are, for the message) is an error.
    """
    header: list[str] | None = None
    rows: list[_Row] = []
    for lineno, line in enumerate(io.StringIO(text), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            values = next(csv.reader([line]))
        except csv.Error as e:  # e.g. a field over the csv module's 128 KiB limit
            raise ValueError(f"{origin}: line {lineno}: not valid CSV ({e})") from None
        if header is None:
            header = [v.strip().lower() for v in values]
            continue
        row = _Row(len(rows) + 1, lineno, {})
        if row.number > max_rows:
            raise ValueError(f"{origin}: more than {max_rows:,} data rows ({what})")
        if len(values) != len(header):
            raise ValueError(
                f"{origin}: {row.where()} has {len(values)} fields but the header has "
                f"{len(header)} ({', '.join(header)})"
            )
        row.fields = dict(zip(header, values, strict=True))
        rows.append(row)
    if header is None:
        raise ValueError(f"{origin}: empty file: no header and no data rows")
    return header, rows


def _read_columns(columns: Mapping[str, Any], origin: str) -> tuple[list[str], list[_Row]]:
    """Turn a mapping of column name -> sequence of values into rows."""
    header = [str(k).strip().lower() for k in columns]
    lists = [list(np.asarray(v, dtype=object).ravel()) for v in columns.values()]
    lengths = {len(v) for v in lists}
    if len(lengths) > 1:
        sizes = ", ".join(f"{h}: {len(v)}" for h, v in zip(header, lists, strict=True))
        raise ValueError(f"{origin}: columns have different lengths ({sizes})")
    n = lengths.pop() if lengths else 0
    if n > MAX_ROWS:
        raise ValueError(f"{origin}: more than {MAX_ROWS:,} rows (categories); got {n:,}")
    rows = [_Row(i + 1, 0, {h: v[i] for h, v in zip(header, lists, strict=True)}) for i in range(n)]
    return header, rows


def _is_missing(value: Any) -> bool:
    """Return True for None, blank strings, NaN and pandas missing-value markers."""
    if isinstance(value, str):
        return value.strip() == ""
    missing = pd.isna(value)
    return bool(missing) if np.ndim(missing) == 0 else False


def _as_text(value: Any) -> str:
    return "" if _is_missing(value) else str(value).strip()


def _number(value: Any, field: str, where: str, origin: str) -> float | int:
    """Return ``value`` as an int or float; ValueError naming the field and row if it is not."""
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"{origin}: {where}: field {field!r} is not a number; got {value!r}")
    if _is_missing(value):
        raise ValueError(f"{origin}: {where}: field {field!r} is empty")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            pass
    raise ValueError(f"{origin}: {where}: field {field!r} is not a number; got {value!r}")


def _count(value: Any, where: str, origin: str) -> int:
    x = _number(value, "count", where, origin)
    if isinstance(x, float):
        if not math.isfinite(x) or not x.is_integer():
            raise ValueError(
                f"{origin}: {where}: field 'count' must be a whole number >= 0; got {value!r}"
            )
        x = int(x)
    if x < 0:
        raise ValueError(f"{origin}: {where}: field 'count' must be >= 0; got {value!r}")
    if x > MAX_COUNT:
        raise ValueError(
            f"{origin}: {where}: field 'count' must be at most {MAX_COUNT:.0e} (2**53, exact "
            f"as a float); got {value!r}"
        )
    return x


def _exposure(value: Any, where: str, origin: str) -> float:
    x = float(_number(value, "exposure", where, origin))
    if not math.isfinite(x) or x <= 0:
        raise ValueError(
            f"{origin}: {where}: field 'exposure' must be a finite number > 0 (unit-hours); "
            f"got {value!r}"
        )
    return x


def _category(row: _Row, seen: dict[str, int], origin: str) -> str:
    name = _as_text(row.fields.get("category"))
    if not name:
        raise ValueError(f"{origin}: {row.where()}: field 'category' is empty")
    if name in seen:
        raise ValueError(
            f"{origin}: {row.where(name)}: field 'category' duplicates row {seen[name]}"
        )
    seen[name] = row.number
    return name


# --------------------------------------------------------------------------------------------
# building the Dataset


def _build(
    categories: list[str],
    count: list[int],
    exposure: list[float],
    unit: list[str],
    group: list[str],
    attrs: dict[str, Any],
    exposure_units: str = "unit-hours",
) -> xr.Dataset:
    """Assemble the schema described in the module docstring."""
    ds = xr.Dataset(
        {
            "count": ("category", np.asarray(count, dtype=np.int64)),
            "exposure": ("category", np.asarray(exposure, dtype=np.float64)),
            "unit": ("category", np.asarray(unit, dtype=str)),
            "group": ("category", np.asarray(group, dtype=str)),
        },
        coords={"category": np.asarray(categories, dtype=str)},
        attrs=attrs,
    )
    ds["count"].attrs = {"long_name": "observed interruptions or failures", "units": "events"}
    ds["exposure"].attrs = {
        "long_name": "exposure: units of the category's `unit` times hours observed",
        "units": exposure_units,
    }
    ds["unit"].attrs = {"long_name": "exposure unit the category's rate is per"}
    ds["group"].attrs = {"long_name": "root-cause group ('' when none)"}
    return ds


def _cluster_exposure(
    categories: list[str],
    unit_of: Mapping[str, str],
    n_gpus: int,
    duration_hours: float,
    shape: cluster.ClusterShape,
    fraction: float = 1.0,
) -> list[float]:
    return [
        cluster.units(n_gpus, unit_of[c], shape) * duration_hours * fraction for c in categories
    ]


def _metadata() -> dict[str, dict[str, Any]]:
    with resources.files("relmc").joinpath("data", "datasets.toml").open("rb") as f:
        return tomllib.load(f)


def _bundled_csv(filename: str) -> tuple[list[str], list[_Row]]:
    text = resources.files("relmc").joinpath("data", filename).read_text(encoding="utf-8")
    return _read_csv_text(text, f"relmc/data/{filename}")


def _common_attrs(name: str, meta: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "title": meta["title"],
        "source": meta["source"],
        "arxiv": meta["arxiv"],
        "where": meta["where"],
        "checked": meta["checked"],
    }


def _llama3(name: str, meta: Mapping[str, Any], units: Mapping[str, str] | None) -> xr.Dataset:
    origin = f"relmc/data/{meta['file']}"
    _, rows = _bundled_csv(meta["file"])
    seen: dict[str, int] = {}
    categories = [_category(r, seen, origin) for r in rows]
    counts = [_count(r.fields["count"], r.where(), origin) for r in rows]
    groups = [_as_text(r.fields["group"]) for r in rows]
    if sum(counts) != meta["unexpected_total"]:  # guards the bundled file against edits
        raise ValueError(f"{origin}: counts sum to {sum(counts)}, not {meta['unexpected_total']}")
    unit_of = cluster.resolve_units(categories, cluster.LLAMA3_DEFAULT_UNITS, units)
    n_gpus = int(meta["n_gpus"])
    shape = cluster.ClusterShape(gpus_per_node=int(meta["gpus_per_node"]))
    hours = float(meta["duration_days"]) * _HOURS_PER_DAY
    attrs = _common_attrs(name, meta) | {
        "n_gpus": n_gpus,
        "gpus_per_node": shape.gpus_per_node,
        "duration_hours": hours,
        "exposure_assumption": meta["exposure_assumption"],
        "rate_units": meta["rate_units"],
        "notes": meta["notes"],
        "recovery_rules": RecoveryRules(
            tuple(meta["hang_categories"]), tuple(meta["restart_groups"])
        ).to_json(),
    }
    ds = _build(
        categories,
        counts,
        _cluster_exposure(categories, unit_of, n_gpus, hours, shape),
        [unit_of[c] for c in categories],
        groups,
        attrs,
    )
    ds = with_maintenance(ds, meta["maintenance_count"])
    ds["maintenance_count"].attrs["description"] = (
        "Automated maintenance (e.g. firmware and Linux kernel upgrades) or operator-"
        "initiated operations (configuration or dataset updates), Llama 3 Section 3.3.4 "
        "[P]: 466 interruptions = 47 planned + 419 unexpected. No per-category breakdown "
        "is published; the paper says such maintenance caused at least one training "
        "interruption daily."
    )
    return ds


def _pumps(name: str, meta: Mapping[str, Any], units: Mapping[str, str] | None) -> xr.Dataset:
    if units:
        raise ValueError(
            f"units: the {name!r} dataset has the fixed unit 'pump' (1000 pump-hours) and "
            f"takes no override; got {dict(units)!r}"
        )
    origin = f"relmc/data/{meta['file']}"
    _, rows = _bundled_csv(meta["file"])
    categories = [f"pump{_count(r.fields['pump'], r.where(), origin):02d}" for r in rows]
    counts = [_count(r.fields["x"], r.where(), origin) for r in rows]
    exposure = [_exposure(r.fields["t"], r.where(), origin) for r in rows]
    attrs = _common_attrs(name, meta) | {
        "n_gpus": int(meta["n_gpus"]),
        "gpus_per_node": int(meta["gpus_per_node"]),
        "duration_hours": float(meta["duration_hours"]),
        "exposure_assumption": meta["exposure_assumption"],
        "rate_units": meta["rate_units"],
        "notes": meta["notes"],
    }
    n = len(categories)
    return _build(categories, counts, exposure, ["pump"] * n, [""] * n, attrs, "1000 pump-hours")


def _rsc_rows() -> dict[str, dict[str, float | int]]:
    origin = "relmc/data/rsc.csv"
    _, rows = _bundled_csv("rsc.csv")
    out: dict[str, dict[str, float | int]] = {}
    for r in rows:
        f = r.fields
        out[_as_text(f["name"])] = {
            "n_gpus": _count(f["n_gpus"], r.where(), origin),
            "gpus_per_node": _count(f["gpus_per_node"], r.where(), origin),
            "utilization": float(_number(f["utilization"], "utilization", r.where(), origin)),
            "months": float(_number(f["months"], "months", r.where(), origin)),
            "rate": float(_number(f["failures_per_1000_node_days"], "rate", r.where(), origin)),
        }
    return out


def _rsc(name: str, meta: Mapping[str, Any], units: Mapping[str, str] | None) -> xr.Dataset:
    table = _rsc_rows()
    p = table[name]
    n_gpus = int(p["n_gpus"])
    shape = cluster.ClusterShape(gpus_per_node=int(p["gpus_per_node"]))
    hours = p["months"] * _HOURS_PER_MONTH
    util = p["utilization"]
    nodes = cluster.units(n_gpus, "node", shape)
    node_days = nodes * hours * util / _HOURS_PER_DAY
    count = round(p["rate"] / _NODE_DAYS_PER_RATE_UNIT * node_days)  # [D] pseudo-count
    categories = ["all"]
    unit_of = cluster.resolve_units(categories, {"all": "node"}, units)
    utilised_gpu_hours = sum(
        q["n_gpus"] * q["months"] * _HOURS_PER_MONTH * q["utilization"] for q in table.values()
    )
    assumption = (
        f"{meta['exposure_assumption_static']} Assumed exposure [D]: every node of the cluster "
        f"({n_gpus:,} GPUs / {shape.gpus_per_node} = {nodes:,.0f} nodes) for {p['months']:g} "
        f"months ({p['months']:g} x {_HOURS_PER_MONTH:g} h = {hours:,.1f} h, a mean Gregorian "
        f"month of 365.25/12 days) at the published average cluster utilisation "
        f"{util:.0%}: {nodes:,.0f} x {hours:,.1f} h x {util:g} = {node_days * 24:,.0f} "
        f"node-hours ({node_days:,.1f} node-days). Derived count [D] = round({p['rate']:.2f} "
        f"per 1000 node-days x {node_days:,.1f} node-days) = {count}. For another unit "
        f"(load_dataset(..., units={{'all': unit}})) the exposure is "
        f"relmc.cluster.units({n_gpus}, unit) x {hours:.1f} h x {util:g} and the count is kept."
    )
    notes = (
        f"{meta['notes']} Sanity check [D]: RSC-1 and RSC-2 together at the assumed exposures "
        f"give {utilised_gpu_hours / 1e6:.0f} million utilised GPU-hours, consistent with the "
        f"abstract's 'over 150 million A100 GPU hours' [P]."
    )
    attrs = _common_attrs(name, meta) | {
        "n_gpus": n_gpus,
        "gpus_per_node": shape.gpus_per_node,
        "duration_hours": hours,
        "exposure_assumption": assumption,
        "rate_units": meta["rate_units"],
        "notes": notes,
        "utilization": util,
        "published_rate_per_1000_node_days": p["rate"],
    }
    ds = _build(
        categories,
        [count],
        _cluster_exposure(categories, unit_of, n_gpus, hours, shape, util),
        [unit_of["all"]],
        [""],
        attrs,
    )
    if "job_mttf_file" in meta:
        ds = _with_job_mttf(ds, meta)
    return ds


def _with_job_mttf(ds: xr.Dataset, meta: Mapping[str, Any]) -> xr.Dataset:
    """Add the job MTTF by size as size-resolved pseudo-count rows (category ``all``)."""
    origin = f"relmc/data/{meta['job_mttf_file']}"
    _, rows = _bundled_csv(meta["job_mttf_file"])
    sizes = [_count(r.fields["n_gpus"], r.where(), origin) for r in rows]
    mttf = [float(_number(r.fields["mttf_hours"], "mttf_hours", r.where(), origin)) for r in rows]
    k = int(meta["job_assumed_failures"])
    ds = ds.assign_coords(job_gpus=("job_gpus", np.asarray(sizes, dtype=np.int64)))
    ds["job_gpus"].attrs = {"long_name": "GPUs of the jobs of a size-resolved row", "units": "1"}
    ds["job_mttf_hours"] = ("job_gpus", np.asarray(mttf, dtype=np.float64))
    ds["job_mttf_hours"].attrs = {
        "long_name": "published mean time to failure of jobs of this size",
        "units": "h",
        "checked": "[S-quote] secondary-source quality",
    }
    ds["job_count"] = (("category", "job_gpus"), np.full((1, len(sizes)), k, dtype=np.int64))
    ds["job_count"].attrs = {
        "long_name": "assumed interruptions behind each job MTTF (pseudo-count)",
        "units": "events",
    }
    ds["job_hours"] = (("category", "job_gpus"), k * np.asarray([mttf], dtype=np.float64))
    ds["job_hours"].attrs = {
        "long_name": "hours jobs of this size ran: pseudo-count x MTTF",
        "units": "h",
    }
    table = ", ".join(f"{n:,} GPUs: {m:,.1f} h" for n, m in zip(sizes, mttf, strict=True))
    ds.attrs["job_mttf_checked"] = meta["job_mttf_checked"]
    ds.attrs["job_exposure_assumption"] = (
        f"Job MTTF by size ({table}) as size-resolved pseudo-counts [D]: job_count = {k} "
        f"assumed interruptions at each size (an ASSUMPTION: the paper's counts are not "
        f"published; a relative sd of 1/sqrt({k}) on each MTTF, for a secondary-source figure "
        f"and an unknown job mix) and job_hours = {k} x MTTF. The width of a size exponent "
        f"fitted to them (relmc.models.scaling.fit_scaling) follows from this choice. "
        f"job_hours are hours the jobs ran (the exposed clock of a job MTTF)."
    )
    return ds


_BUILDERS = {"llama3-405b": _llama3, "pumps": _pumps, "rsc-1": _rsc, "rsc-2": _rsc}


# --------------------------------------------------------------------------------------------
# public API


def list_datasets() -> list[str]:
    """Return the names of the bundled datasets, for :func:`load_dataset`.

    Returns
    -------
    list of str
        ``["llama3-405b", "pumps", "rsc-1", "rsc-2"]``. Each loaded dataset's ``attrs["title"]``
        describes it in one line.
    """
    return list(_BUILDERS)


def load_dataset(name: str, *, units: Mapping[str, str] | None = None) -> xr.Dataset:
    """Load a bundled dataset of observed failure counts and exposures.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`:

        ``"llama3-405b"``
            Llama 3 405B pre-training (arXiv:2407.21783), Table 5: the 419 unexpected
            interruptions in 18 root-cause categories over 54 days (1,296 h) on 16,384 H100
            GPUs, 8 per node, plus the 47 planned interruptions as ``maintenance_count``. Exposure
            assumes all 16,384 GPUs for all 54 days, so ``count / exposure`` is a lower bound
            on each rate. The counts are used; Table 5's printed 30.1% for Faulty GPU disagrees
            with 148/419 = 35.3% (see ``attrs["notes"]``).
        ``"pumps"``
            The 10 BUGS pumps (``pump01`` .. ``pump10`` = BUGS index 1..10), unit ``"pump"``,
            exposure in the published thousands of hours (``attrs["rate_units"]`` is
            "events per 1000 pump-hours"), because the BUGS prior is scale-dependent.
        ``"rsc-1"``, ``"rsc-2"``
            Meta's RSC clusters (arXiv:2410.21680; 16k and 8k A100 GPUs, 8 per node): one
            category ``"all"``, unit ``node``. Only rates are published (6.50 and 2.34 failures
            per 1000 node-days, seen in secondary sources), so the exposure is an assumption
            (all nodes x 11 months x the published 83% / 85% utilisation, in node-hours) and the
            count is derived as rate x exposure, rounded. The width of any posterior fitted to
            these datasets therefore reflects that assumed exposure, not an observed count;
            read ``attrs["exposure_assumption"]`` before using it. ``"rsc-1"`` also carries
            the paper's measured job MTTF at 8 GPUs (47.7 days) and 1,024 GPUs (7.9 h) as
            size-resolved rows (``job_count``, ``job_hours`` along ``job_gpus``; quoted in a
            secondary source only, pseudo-counts of an assumed 10 failures per size; see
            ``attrs["job_mttf_checked"]`` and ``attrs["job_exposure_assumption"]``), for
            :func:`relmc.fit_scaling`.
    units : mapping of str to str, optional
        Overrides of the default category -> exposure-unit mapping (for Llama 3
        :data:`relmc.cluster.LLAMA3_DEFAULT_UNITS`; for RSC ``{"all": "node"}``). ``exposure``
        is recomputed as ``relmc.cluster.units(n_gpus, unit) * duration_hours`` (times the
        utilisation for RSC); counts are unchanged. Units are :data:`relmc.cluster.UNITS`.
        The pumps dataset takes no override.

    Returns
    -------
    xarray.Dataset
        The schema of the module docstring: ``count`` (events), ``exposure`` (unit-hours,
        or 1000 pump-hours), ``unit`` and ``group`` along ``category``; provenance in ``attrs``.

    Raises
    ------
    ValueError
        If ``name`` is not one of the bundled names (a str), ``units`` is not a mapping, or it
        names an unknown category or unit.

    Notes
    -----
    Fleets from ``SOURCES.md`` (in the relmc repository) section 3 that are *not* bundled, and why:

    - OPT-175B: "at least 35 manual restarts" and "70+ automatic restarts" are a lower bound
      and an authors' estimate, seen only in secondary quotes, and the job's up-time (52-59%,
      Lockwood's derivation) leaves its exposure uncertain.
    - MegaScale: "over 100 automatic recoveries" is secondary-only, with no run length beyond
      "multi-week", so there is no exposure.
    - ByteRobust: the failure counts are platform-wide over 778,135 jobs on a >200,000-GPU
      platform whose GPU-hours are not published (secondary only); the 9,600-GPU job has only an
      ETTR.
    - Crusoe H200: only percentage shares are published; ~205 failures in 4 months is
      Lockwood's inference.
    - Lablup B200: 10 GPU failures on 504 GPUs, but the abstract does not say whether they fall
      in the 55-day telemetry or the 73-day log window, so the exposure is ambiguous.
    - NVIDIA 6K-GPU run, BLOOM, Acme, Philly: counts not retrieved. NCSA Delta: ratios only.
      Gemini, DGX Cloud: goodput/downtime claims, no counts. Databricks: an assumed AFR, not data.
    """
    if not isinstance(name, str) or name not in _BUILDERS:
        raise ValueError(f"name must be one of {', '.join(_BUILDERS)} (a str); got {name!r}")
    if units is not None and not isinstance(units, Mapping):
        raise ValueError(
            "units must be a mapping of category -> unit (one of "
            f"{', '.join(cluster.UNITS)}), e.g. {{'all': 'node'}}; got {units!r}"
        )
    return _BUILDERS[name](name, _metadata()[name], units)


def _shown(value: Any) -> str:
    """Return ``value`` as an error message shows it.

    A numpy scalar as its Python value; an integer too long to print (Python refuses over
    4,300 digits) by its size.
    """
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"{'a negative' if value < 0 else 'an'} integer of {value.bit_length()} bits"
    return repr(value)


def whole_number(value: Any) -> float | None:
    """``value`` as a float if it is a finite whole number (a NumPy one too), else None."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        return None
    try:
        v = float(value)
    except OverflowError:
        return None
    return v if np.isfinite(v) and v == round(v) else None


def with_maintenance(ds: xr.Dataset, count: Any, field: str = "maintenance_count") -> xr.Dataset:
    """Return a copy of ``ds`` with ``maintenance_count`` set to ``count`` (None: ``ds``).

    ``count``: planned interruptions (maintenance) in the observed window, kept apart from the
    failure counts, a whole number in [0, 2**53]. Needs the window's length
    (``attrs["duration_hours"]`` > 0): fits record ``count / duration_hours`` (planned
    interruptions per hour of the window, on the clock of the data's rates,
    ``attrs["exposure_clock"]``) as the planned maintenance rate
    (:meth:`relmc.FailureModel.from_posterior`). Raises ``ValueError`` naming ``field``
    otherwise.
    """
    if count is None:
        return ds
    # the range is checked on count itself: 2**53 + 1 rounds to 2**53 as a float
    whole = not isinstance(count, np.ndarray) and whole_number(count) is not None
    if not whole or not 0 <= count <= MAX_COUNT:
        raise FieldError(
            field,
            f"{field} must be a whole number in [0, 2**53] (planned interruptions in the "
            f"observed window); got {_shown(count)}",
        )
    if not float(ds.attrs.get("duration_hours") or 0.0) > 0.0:
        raise FieldError(  # the field missing is the window's
            "duration_hours",
            f"{field} needs the window's length (duration_hours): the planned maintenance "
            "rate is the count over the window",
        )
    out = ds.assign(maintenance_count=((), np.int64(count)))
    out["maintenance_count"].attrs = {
        "long_name": "planned interruptions in the same window, not included in count",
        "units": "events",
        "description": "Given with the observations (the user's count of planned maintenance).",
    }
    return out


def load_counts(
    path_or_dataframe: str | os.PathLike[str] | Mapping[str, Any] | Any,
    *,
    n_gpus: int | None = None,
    duration_hours: float | None = None,
    shape: cluster.ClusterShape | None = None,
    name: str = "",
    title: str = "",
    notes: str = "",
    exposure_clock: str = "wall",
    maintenance_count: int | None = None,
) -> xr.Dataset:
    """Load and validate a user's own failure counts.

    Parameters
    ----------
    path_or_dataframe : str, path, pandas.DataFrame or mapping
        A CSV file, a DataFrame or a mapping of column name -> values, with columns
        ``category``, ``count``, ``exposure``, ``unit`` and optionally ``group``, ``recovery``
        and ``detection_minutes`` (other columns are ignored; names are case-insensitive).
        ``count`` is a whole number of events >= 0; ``exposure`` is the unit-hours of that
        row's ``unit`` (e.g. GPU-hours for ``gpu``, hours for ``job``), finite and > 0;
        ``unit`` is one of :data:`relmc.cluster.UNITS`. ``recovery`` is ``restart`` or
        ``swap`` (a node swap from the spare pool) and ``detection_minutes`` a finite number
        >= 0 (how long the interruption goes unseen); they are recorded in
        ``attrs["recovery_rules"]`` as explicit per-category values, which
        :meth:`relmc.FailureModel.from_posterior` and ``from_counts`` apply over the group
        rules. When they are absent or blank: see ``ABSENT_COLUMN_DEFAULTS`` (recovery by
        group with Llama 3 Table 5's rule, so without a group column every category is
        restart-only; detection at once except NCCL timeouts and switch/cable hangs).
        ``attrs["recovery_columns"]`` lists which of the two columns were given. In a CSV,
        blank lines and lines starting with ``#`` are ignored.
    n_gpus : int, optional
        Cluster size the counts were observed on (GPUs), an integer in [1, 1e8]
        (``relmc.cluster.MAX_GPUS``, the largest cluster a scenario takes), recorded in
        ``attrs``. With
        ``duration_hours``, it lets the ``exposure`` column be omitted: exposure is then
        ``relmc.cluster.units(n_gpus, unit, shape) * duration_hours``.
    duration_hours : float, optional
        Observation window (hours), in (0, 1e6] (``relmc.cluster.MAX_WINDOW_HOURS``,
        about 114 years, which keeps every exposure finite), recorded in ``attrs``; see
        ``n_gpus``.
    shape : relmc.cluster.ClusterShape, optional
        The observed cluster's packing of GPUs into nodes, racks and pods: it gives exposure
        from ``n_gpus``, and it is recorded in ``attrs`` (:func:`relmc.cluster.shape_attrs`),
        so that fits record it and projections from them count racks, nodes and pods as the
        observed cluster did (:func:`relmc.cluster.recorded_shape`). Default: Llama 3's (8
        GPUs per node, 2 nodes per rack), recorded only with ``n_gpus``.
    name, title, notes : str, optional
        Recorded in ``attrs`` (``name`` defaults to the file's stem, or "user").
    exposure_clock : {"wall", "exposed"}
        What the exposure hours count, recorded in ``attrs``. ``"wall"`` (the default): the
        wall-clock hours of the observation window, downtime included (units in service times
        the window's length); with ``n_gpus`` given, simulations divide the fitted rates by
        the share of the window the observed job was exposed (see "Exposure clock" in
        :mod:`relmc.rates`). ``"exposed"``: only the hours the job was running (computing,
        checkpointing or restarting, e.g. summed from job logs); the rates are used as they
        are.
    maintenance_count : int, optional
        Planned interruptions (maintenance) in the same window, not included in ``count``: a
        whole number in [0, 2**53], stored as ``maintenance_count``. Needs
        ``duration_hours``. Fits record ``maintenance_count / duration_hours`` as the planned
        maintenance rate, which the default scenario of a fit takes
        (``relmc.projection.default_scenario``: ``relmc.project`` without a scenario,
        ``relmc project|simulate --posterior``), as it takes the bundled Llama 3 data's 47 in
        1,296 h; a scenario you build sets its own ``maintenance_rate``. The rate is on the
        rates' clock: per wall-clock hour of the window by default (projections divide it by
        the exposed share, as they divide the rates); with ``exposure_clock="exposed"`` it is
        taken per exposed hour, as the rates are, so give ``duration_hours`` as the hours the
        job ran. Default: none recorded.

    Returns
    -------
    xarray.Dataset
        The schema of the module docstring, in the input's row order; ``attrs`` describe the
        input. ``n_gpus``, ``gpus_per_node`` and ``duration_hours`` are 0 when not given.

    Raises
    ------
    ValueError
        Before anything is returned, naming the field and the 1-based data row (and the file
        line and category where known): a missing column, no data rows, a non-numeric value, a
        negative or fractional count, an exposure that is not finite and > 0, a unit not in
        :data:`relmc.cluster.UNITS`, an empty or duplicate category, a recovery other than
        restart or swap, a detection_minutes not finite and >= 0; or bad ``n_gpus`` /
        ``duration_hours`` / ``maintenance_count``.
    """
    if exposure_clock not in EXPOSURE_CLOCKS:
        raise FieldError(
            "exposure_clock",
            f"exposure_clock must be one of {', '.join(EXPOSURE_CLOCKS)}; got {exposure_clock!r}",
        )
    header, rows, origin, default_name = _read_source(path_or_dataframe)
    n_gpus, duration_hours = _check_window(n_gpus, duration_hours)
    record_shape = shape is not None or n_gpus is not None
    shape = cluster.check_shape(shape)
    compute_exposure = (
        "exposure" not in header and n_gpus is not None and duration_hours is not None
    )
    _check_header(header, rows, origin, compute_exposure)
    if compute_exposure:
        n, hours = int(n_gpus or 0), float(duration_hours or 0.0)  # both given here

        def exposure_of(row: _Row, unit: str, where: str) -> float:
            return cluster.units(n, unit, shape) * hours

        assumption = (
            f"No exposure column: exposure = relmc.cluster.units({n_gpus}, unit) x "
            f"{duration_hours:g} h (all GPUs in service for the whole window, "
            f"{shape.gpus_per_node} GPUs per node)."
        )
    else:

        def exposure_of(row: _Row, unit: str, where: str) -> float:
            return _exposure(row.fields["exposure"], where, origin)

        assumption = "As given in the input's exposure column (unit-hours of each row's unit)."
    columns = _parse_rows(rows, origin, exposure_of)
    if not compute_exposure and n_gpus is not None and duration_hours is not None:
        _warn_exposure_against_window(
            columns, n_gpus, duration_hours, shape, origin, check_low=exposure_clock == "wall"
        )
    given = [c for c in ("recovery", "detection_minutes") if c in header]
    recovery, detection = _recovery_columns(rows, columns[0], origin)
    attrs = {
        "name": name or default_name,
        "title": title or f"user counts from {origin}",
        "source": origin,
        "arxiv": "",
        "where": "",
        "checked": (
            "Not checked against any publication: user-supplied counts and exposures, "
            "validated for form only (whole counts >= 0, finite exposure > 0, known units, "
            "unique categories)."
        ),
        "n_gpus": int(n_gpus or 0),
        # the cluster's shape (its racks, nodes, pods at N GPUs): fits record it, and
        # projections from them take it (relmc.cluster.recorded_shape); 0: none given
        **(cluster.shape_attrs(shape) if record_shape else {"gpus_per_node": 0}),
        "duration_hours": float(duration_hours or 0.0),
        "exposure_assumption": assumption,
        "rate_units": "events per unit-hour",
        "notes": notes,
        "recovery_columns": ",".join(given),
        "exposure_clock": exposure_clock,
    }
    if given:
        attrs["recovery_rules"] = dataclasses.replace(
            DEFAULT_RULES, category_recovery=recovery, category_detection_hours=detection
        ).to_json()
    return with_maintenance(_build(*columns, attrs), maintenance_count)


#: a row's exposure below this share of its window's unit-hours is warned of (GPU-days for
#: GPU-hours read 1/24, node-hours on a gpu row 1/8)
LOW_EXPOSURE_SHARE = 0.25


def _warn_exposure_against_window(
    columns, n_gpus: int, hours: float, shape, origin: str, check_low: bool = True
) -> None:
    """Warn when a row's exposure disagrees with the observed size and window.

    :func:`warn_exposure_against_window` for :func:`load_counts`' rows.
    """
    names, _counts, exposure, unit, _groups = columns
    warn_exposure_against_window(
        names, exposure, unit, n_gpus, hours, shape, origin, check_low=check_low, stacklevel=4
    )


def warn_exposure_against_window(
    names,
    exposure,
    unit,
    n_gpus: int,
    hours: float,
    shape,
    origin: str,
    *,
    check_low: bool = True,
    fix: str = (
        "the exposure column must be {u}-hours (not days, nor another unit's hours), and "
        "n_gpus and duration_hours the cluster and window the counts come from (or leave the "
        "column out to compute it)"
    ),
    high_fix: str = (
        "check the exposure column against n_gpus and duration_hours (or leave the column "
        "out to compute it)"
    ),
    stacklevel: int = 3,
) -> None:
    """Warn (``UserWarning``) when a row's exposure disagrees with the observed size and window.

    With the observed size ``n_gpus`` and window ``hours`` both known, a row's exposure can be
    at most ``units(n_gpus, unit) * hours`` (every unit in service all the window); more than
    1% above that says the exposure and the size disagree (a fit then divides by the size's
    exposed share, or maps the rows' units with the size, while the rates come from the
    exposure). Below :data:`LOW_EXPOSURE_SHARE` of it says the same the other way, most often
    an exposure in other units (GPU-days, or node-hours on a per-GPU row), which would
    inflate the rate by the factor: warned of too, each direction once; not with
    ``check_low`` False (the exposed clock: the hours the job ran, a share of the window by
    design). ``fix`` and ``high_fix``: the advice of the low and high warnings (``{u}``: the
    row's unit), naming the inputs as the caller's user gave them.
    """
    warned_high = warned_low = False
    for name, e, u in zip(names, exposure, unit, strict=True):
        name, e = str(name), float(e)
        most = cluster.units(int(n_gpus), str(u), shape) * float(hours)
        window = f"{n_gpus:,} GPUs give in {hours:g} h ({most:.4g} {u}-hours, every unit in "
        if e > 1.01 * most and not warned_high:
            warned_high = True
            warnings.warn(
                f"{origin}: category {name!r}: exposure {e:.4g} {u}-hours is more than "
                f"{window}service the whole window); {high_fix.format(u=u)}",
                UserWarning,
                stacklevel=stacklevel,
            )
        elif check_low and e < LOW_EXPOSURE_SHARE * most and not warned_low:
            warned_low = True
            warnings.warn(
                f"{origin}: category {name!r}: exposure {e:.4g} {u}-hours is {e / most:.3g} "
                f"of what {window}service the whole window), so its rate is "
                f"{most / e:.3g}x the rate those units would have; {fix.format(u=u)}",
                UserWarning,
                stacklevel=stacklevel,
            )


def _recovery_columns(
    rows: list[_Row], categories: list[str], origin: str
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, float], ...]]:
    """Explicit per-category recovery kinds and detection latencies (hours); blanks skipped."""
    recovery: list[tuple[str, str]] = []
    detection: list[tuple[str, float]] = []
    for row, cat in zip(rows, categories, strict=True):
        where = row.where(cat)
        rec = _as_text(row.fields.get("recovery")).lower()
        if rec:
            if rec not in RECOVERY_KINDS:
                raise ValueError(
                    f"{origin}: {where}: field 'recovery' must be restart or swap (blank: by "
                    f"group, restart for Dependency, Unknown or no group); got "
                    f"{row.fields['recovery']!r}"
                )
            recovery.append((cat, rec))
        value = row.fields.get("detection_minutes")
        if not _is_missing(value):
            blank = "blank: 10 for NCCL timeouts and switch/cable hangs, else 0"
            try:
                x = float(_number(value, "detection_minutes", where, origin))
            except ValueError as e:
                raise ValueError(f"{e} ({blank})") from None
            if not (math.isfinite(x) and x >= 0):
                raise ValueError(
                    f"{origin}: {where}: field 'detection_minutes' must be a finite number of "
                    f"minutes >= 0 ({blank}); got {value!r}"
                )
            detection.append((cat, x / 60.0))
    return tuple(recovery), tuple(detection)


def _read_source(src: Any) -> tuple[list[str], list[_Row], str, str]:
    """Header, rows, a name for messages and a default dataset name of any accepted input."""
    if isinstance(src, str | os.PathLike):
        path = Path(src)
        header, rows = _read_csv_text(read_text(path, ""), str(path))
        return header, rows, str(path), path.stem
    if isinstance(src, Mapping):
        return (*_read_columns(src, "columns"), "columns", "user")
    if hasattr(src, "columns") and hasattr(src, "to_dict"):
        if "category" not in [str(c).strip().lower() for c in src.columns] and (
            getattr(src.index, "name", None) == "category"
        ):
            src = src.reset_index()
        columns = {c: src[c].tolist() for c in src.columns}
        return (*_read_columns(columns, "DataFrame"), "DataFrame", "user")
    raise ValueError(
        "path_or_dataframe must be a CSV path, a pandas DataFrame or a mapping of columns; "
        f"got {type(src).__name__}"
    )


def _check_window(n_gpus: Any, duration_hours: Any) -> tuple[int | None, float | None]:
    """Validate the optional cluster size and observation window.

    ``n_gpus`` an integer in [1, ``relmc.cluster.MAX_GPUS``] (1e8, the largest cluster a
    scenario takes), ``duration_hours`` a number in (0, ``relmc.cluster.MAX_WINDOW_HOURS``]
    (1e6 h, about 114 years): every exposure they give stays finite and far from overflow.
    """
    if n_gpus is not None:
        n_gpus = cluster.check_gpus(n_gpus, "n_gpus")
    if duration_hours is not None:
        allowed = "in (0, 1e6] hours"
        if isinstance(duration_hours, bool) or not isinstance(duration_hours, numbers.Real):
            raise FieldError(
                "duration_hours",
                f"duration_hours must be a number {allowed}; got {duration_hours!r}",
            )
        try:
            value = float(duration_hours)
        except OverflowError:  # an int beyond any float
            value = math.inf
        if not (0 < value <= cluster.MAX_WINDOW_HOURS):
            raise FieldError(
                "duration_hours",
                f"duration_hours must be a finite number {allowed}; got {duration_hours!r}",
            )
        duration_hours = value
    return n_gpus, duration_hours


def delimiter_hint(header: list[str]) -> str:
    """Return a hint when a one-column header holds another delimiter (";", a tab), else ""."""
    if len(header) == 1:
        for sep, name in ((";", "semicolons"), ("\t", "tabs")):
            if sep in header[0]:
                return (
                    f" (the header is one column holding {name}: the file must be comma-separated)"
                )
    return ""


def _check_header(header: list[str], rows: list[_Row], origin: str, compute_exposure: bool) -> None:
    """Every needed column present once, and at least one data row."""
    needed = [c for c in _REQUIRED if not (c == "exposure" and compute_exposure)]
    if len(set(header)) != len(header):
        dups = sorted({h for h in header if header.count(h) > 1})
        raise ValueError(f"{origin}: header: duplicate column(s) {dups}")
    missing = [c for c in needed if c not in header]
    if missing:
        hint = (
            " (or give both n_gpus and duration_hours to compute exposure)"
            if missing == ["exposure"]
            else ""
        )
        hint += delimiter_hint(header)
        raise ValueError(
            f"{origin}: header: missing column(s) {missing}{hint}; need "
            f"{', '.join(_REQUIRED)} (and optionally {', '.join(_OPTIONAL)}: "
            f"{ABSENT_COLUMN_DEFAULTS}); got {header}"
        )
    if not rows:
        raise ValueError(f"{origin}: no data rows (only a header and comments)")


def _parse_rows(
    rows: list[_Row], origin: str, exposure_of: Callable[[_Row, str, str], float]
) -> tuple[list[str], list[int], list[float], list[str], list[str]]:
    """Categories, counts, exposures, units and groups, each row validated in order."""
    categories: list[str] = []
    counts: list[int] = []
    exposure: list[float] = []
    unit: list[str] = []
    group: list[str] = []
    seen: dict[str, int] = {}
    for row in rows:
        cat = _category(row, seen, origin)
        where = row.where(cat)
        u = _as_text(row.fields["unit"]).lower()
        if u not in cluster.UNITS:
            raise ValueError(
                f"{origin}: {where}: field 'unit' must be one of {', '.join(cluster.UNITS)}; "
                f"got {row.fields['unit']!r}"
            )
        counts.append(_count(row.fields["count"], where, origin))
        exposure.append(exposure_of(row, u, where))
        least = (counts[-1] + 1) / cluster.MAX_RATE
        if exposure[-1] < least:  # a rate beyond any simulation (and any hardware)
            bound = (
                f"must be at least (count + 1) / {cluster.MAX_RATE:g} = {least:.3g} unit-hours (a "
                f"rate per {u}-hour above {cluster.MAX_RATE:g} is no failure process)"
            )
            if "exposure" in row.fields:
                raise ValueError(
                    f"{origin}: {where}: field 'exposure' {bound}; got {row.fields['exposure']!r}"
                )
            raise FieldError(
                "duration_hours",
                f"{origin}: {where}: the exposure n_gpus and duration_hours give, "
                f"{exposure[-1]:.3g} {u}-hours, {bound}",
            )
        categories.append(cat)
        unit.append(u)
        group.append(_as_text(row.fields.get("group")))
    folded: dict[str, str] = {}
    for cat in categories:
        other = folded.setdefault(cat.casefold(), cat)
        if other != cat:
            warnings.warn(
                f"{origin}: categories {other!r} and {cat!r} differ only in case: they are "
                "fitted as two categories (merge their rows if they are one cause)",
                UserWarning,
                stacklevel=3,
            )
            break
    return categories, counts, exposure, unit, group
