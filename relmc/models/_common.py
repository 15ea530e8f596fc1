"""Shared pieces of the failure-rate models: input checks, seeds, diagnostics, result layout."""

from __future__ import annotations

import itertools
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from relmc._cf import provenance
from relmc._cf import rate_units as cf_rate_units
from relmc.cluster import MAX_RATE, UNITS
from relmc.datasets import MAX_COUNT
from relmc.datasets import whole_number as _whole

# arviz 0.23 announces its 1.0 refactor with a FutureWarning on import. It says nothing about our
# numbers, and under ``filterwarnings = error`` it would turn every first import into a failure,
# so it (and only it) is silenced here, once, around the import.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="ArviZ is undergoing", category=FutureWarning)
    import arviz as az

__all__ = ["ConvergenceWarning", "az", "import_arviz", "import_pymc"]

#: Units a dataset may use: the cluster units plus ``pump`` (BUGS pumps data, 1000 pump-hours).
DATA_UNITS: tuple[str, ...] = (*UNITS, "pump")

#: Convergence thresholds (Vehtari et al. 2021, "Rank-normalization, folding, and localization").
RHAT_MAX = 1.01
ESS_PER_CHAIN_MIN = 100


def import_arviz():
    """Return :mod:`arviz`, imported with its 1.0 refactor notice silenced (see above)."""
    return az


def import_pymc():
    """Import and return :mod:`pymc`, settling PyTensor's BLAS lookup once, quietly.

    Without a BLAS to link, PyTensor warns from the default of ``config.blas__ldflags`` and
    does not cache the value, so under ``-W error`` every graph rewrite that reads it fails
    (logged as rewrite failures). The value is read once here with that one warning ignored;
    the environment notice says nothing about the numbers, and the fallback is NumPy's BLAS.
    """
    import pymc as pm
    import pytensor

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PyTensor could not link to a BLAS")
        _ = pytensor.config.blas__ldflags
    return pm


class ConvergenceWarning(RuntimeWarning):
    """MCMC diagnostics say the posterior draws may not be trustworthy."""


@dataclass(frozen=True)
class Observations:
    """Validated, plain-array view of one observation dataset."""

    name: str
    categories: np.ndarray
    count: np.ndarray
    exposure: np.ndarray
    unit: np.ndarray
    group: np.ndarray
    attrs: Mapping[str, Any]

    @property
    def n(self) -> int:
        """Number of categories."""
        return int(self.count.shape[0])

    @property
    def maintenance_rate(self) -> float:
        """Planned interruptions per hour when the data carries ``maintenance_count``, else 0."""
        return float(self.attrs.get("_maintenance_rate", 0.0))

    def record(self) -> dict[str, Any]:
        """Return what every fit records about its data in ``posterior.attrs``.

        ``dataset``, ``rate_units``, ``maintenance_rate`` (planned interruptions per hour),
        ``recovery_rules`` (JSON, "" when the data state none), ``n_gpus`` (the observed
        cluster, 0 if unknown), ``exposure_clock`` (``"wall"`` or ``"exposed"``, what the
        exposure hours count) and, when the data record one, the observed cluster's shape
        (:func:`relmc.cluster.shape_attrs`): what :meth:`relmc.FailureModel.from_posterior`,
        :mod:`relmc.rates`, :func:`relmc.projection.default_scenario` and the plots read back.
        """
        from relmc.cluster import recorded_shape, shape_attrs

        shape = recorded_shape(self.attrs)
        return {
            "dataset": self.name,
            "rate_units": self.rate_units,
            "maintenance_rate": self.maintenance_rate,
            "recovery_rules": str(self.attrs.get("recovery_rules", "")),
            "n_gpus": int(self.attrs.get("n_gpus", 0) or 0),
            "exposure_clock": str(self.attrs.get("exposure_clock", "wall")),
            **({} if shape is None else shape_attrs(shape)),
        }

    @property
    def rate_units(self) -> str:
        """Units of a rate: events per exposure unit (``attrs['rate_units']`` when given)."""
        return str(self.attrs.get("rate_units", "events per unit-hour"))


def check_data(data: Any, field: str = "data") -> Observations:
    """Validate an observation dataset and return its arrays.

    Raises
    ------
    ValueError
        Naming the field and the allowed values, for anything the models cannot use.
    """
    if not isinstance(data, xr.Dataset):
        raise ValueError(f"{field} must be an xarray.Dataset, got {type(data).__name__}")
    if "category" not in data.dims:
        raise ValueError(f"{field} must have a 'category' dimension; dims are {tuple(data.dims)}")
    if data.sizes["category"] < 1:
        raise ValueError(f"{field}: 'category' must have length >= 1")
    for var in ("count", "exposure", "unit"):
        if var not in data.variables:
            raise ValueError(
                f"{field} is missing variable {var!r}; needs count, exposure and unit "
                "along 'category' (group optional)"
            )
        if data[var].dims != ("category",):
            raise ValueError(f"{field}[{var!r}] must have dims ('category',), got {data[var].dims}")
    cats = np.asarray(data["category"].values).astype(str)
    if len(set(cats.tolist())) != cats.size:
        raise ValueError(f"{field}: 'category' labels must be unique")

    raw = np.asarray(data["count"].values)
    if raw.dtype.kind not in "iuf":  # a bool array is kind "b"
        raise ValueError(f"{field}['count'] must be integers >= 0, got dtype {raw.dtype}")
    if not np.all(np.isfinite(raw)) or np.any(raw < 0) or np.any(raw != np.round(raw)):
        raise ValueError(f"{field}['count'] must be finite integers >= 0, got {raw.tolist()}")
    if np.any(raw > MAX_COUNT):
        raise ValueError(
            f"{field}['count'] must be at most 2**53 (exact as a float), got {raw.tolist()}"
        )
    count = raw.astype(np.int64)

    exposure = np.asarray(data["exposure"].values)
    if exposure.dtype.kind not in "iuf":
        raise ValueError(f"{field}['exposure'] must be numbers > 0, got dtype {exposure.dtype}")
    exposure = exposure.astype(np.float64)
    if not np.all(np.isfinite(exposure)) or np.any(exposure <= 0):
        raise ValueError(
            f"{field}['exposure'] must be finite and > 0 (unit-hours), got {exposure.tolist()}"
        )

    unit = np.asarray(data["unit"].values).astype(str)
    bad = sorted(set(unit.tolist()) - set(DATA_UNITS))
    if bad:
        raise ValueError(f"{field}['unit'] must be one of {', '.join(DATA_UNITS)}; got {bad}")
    if "group" in data.variables:
        group = np.asarray(data["group"].values).astype(str)
    else:
        group = np.full(cats.size, "", dtype=str)
    least = (count + 1) / MAX_RATE
    if np.any(exposure < least):
        raise ValueError(
            f"{field}['exposure'] must be at least (count + 1) / {MAX_RATE:g} unit-hours (a rate "
            f"above {MAX_RATE:g} per unit-hour is no failure process), got {exposure.tolist()}"
        )
    attrs = dict(data.attrs)
    duration = _check_attrs(data, attrs, field)
    if "maintenance_count" in data.variables and duration > 0:
        attrs["_maintenance_rate"] = float(data["maintenance_count"]) / duration
    return Observations(
        name=str(attrs.get("name", "")),
        categories=cats,
        count=count,
        exposure=exposure,
        unit=unit,
        group=group,
        attrs=attrs,
    )


def _check_attrs(data: xr.Dataset, attrs: Mapping[str, Any], field: str) -> float:
    """Validate the attributes a fit reads and records; return ``duration_hours`` (0: none).

    ``n_gpus`` a whole number in [0, 1e8] (0: unknown); ``duration_hours`` a finite number in
    [0, 1e6] (0: unknown); ``exposure_clock`` one of ``wall``, ``exposed``; ``gpus_per_node``
    a whole number >= 0 (0: no shape recorded, only without ``n_gpus``), and with it the
    shape's other fields as :class:`relmc.cluster.ClusterShape` takes them; the variable
    ``maintenance_count`` a finite whole number >= 0.
    """
    from relmc.cluster import MAX_WINDOW_HOURS, SHAPE_FIELDS, ClusterShape, check_gpus
    from relmc.datasets import EXPOSURE_CLOCKS

    n = check_gpus(
        attrs.get("n_gpus", 0),
        f"{field}.attrs['n_gpus']",
        lo=0,
        whole=True,
        why=" (the GPUs the data were observed on, 0: unknown)",
    )
    duration = attrs.get("duration_hours", 0)
    if isinstance(duration, np.ndarray) and duration.ndim == 0:
        duration = duration.item()
    ok = not isinstance(duration, bool | np.bool_) and isinstance(duration, numbers.Real)
    try:
        d = float(duration) if ok else np.nan
    except OverflowError:  # an int beyond any float
        d = np.inf
    if not 0 <= d <= MAX_WINDOW_HOURS:  # NaN fails
        raise ValueError(
            f"{field}.attrs['duration_hours'] must be a finite number in [0, 1e6] hours (the "
            f"observation window, 0: unknown); got {duration!r}"
        )
    clock = attrs.get("exposure_clock", "wall")
    if not isinstance(clock, str) or clock not in EXPOSURE_CLOCKS:
        raise ValueError(
            f"{field}.attrs['exposure_clock'] must be one of {', '.join(EXPOSURE_CLOCKS)}; "
            f"got {clock!r}"
        )
    if "gpus_per_node" in attrs:
        gpn = attrs["gpus_per_node"]
        g = _whole(gpn)
        if g is None or g < 0:
            raise ValueError(
                f"{field}.attrs['gpus_per_node'] must be a whole number >= 1 (0: no cluster "
                f"shape recorded); got {gpn!r}"
            )
        if g == 0 and n > 0:
            raise ValueError(
                f"{field}.attrs['gpus_per_node'] must be a whole number >= 1 with "
                f"attrs['n_gpus'] = {int(n)} (the observed cluster's shape; 0 only without a "
                f"cluster, n_gpus 0); got {gpn!r}"
            )
        if g > 0:
            given = {}
            for k in SHAPE_FIELDS:
                if k in attrs:
                    v = attrs[k].item() if isinstance(attrs[k], np.generic) else attrs[k]
                    # a whole float (8.0, as a file written elsewhere may hold it) is the int
                    whole = _whole(v) if k != "links_per_gpu" else None
                    given[k] = int(whole) if whole is not None else v

            try:
                ClusterShape(**given)
            except (ValueError, TypeError) as e:
                name = getattr(e, "field", "gpus_per_node")
                raise ValueError(f"{field}.attrs[{name!r}]: {e}") from None
    if "maintenance_count" in data.variables:
        raw = np.asarray(data["maintenance_count"].values)
        m = _whole(raw) if raw.ndim == 0 and raw.dtype.kind in "iuf" else None
        if m is None or not 0 <= m <= MAX_COUNT:
            raise ValueError(
                f"{field}['maintenance_count'] must be one whole number in [0, 2**53] (planned "
                f"interruptions over the window); got {raw.tolist()!r}"
            )
    return float(d)


def check_int(value: Any, field: str, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` unless it is an integer in range."""
    allowed = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum:g}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{field} must be an integer {allowed}, got {value!r}")
    v = int(value)
    if v < minimum or (maximum is not None and v > maximum):
        raise ValueError(f"{field} must be an integer {allowed}, got {value!r}")
    return v


#: the most chains a fit runs (each is a loop in Python, or a sampler process)
MAX_CHAINS = 1000
#: the most posterior draws a fit returns, over all chains (the rates alone of 18
#: categories then take 1.4 GB)
MAX_POSTERIOR_DRAWS = 10**7


def check_draws(n_draws: Any, n_chains: Any, n_values: int = 0) -> tuple[int, int]:
    """Validate a fit's ``n_draws`` (per chain) and ``n_chains``; return them as ints.

    ``n_chains`` in [1, ``MAX_CHAINS``], ``n_draws`` >= 1, and at most ``MAX_POSTERIOR_DRAWS``
    draws in all; with ``n_values`` (float64 values the fit keeps per draw, at least), draws
    that memory cannot hold are refused before any work
    (:func:`relmc._io.check_posterior_memory`).
    """
    n_draws = check_int(n_draws, "n_draws", 1, MAX_POSTERIOR_DRAWS)
    n_chains = check_int(n_chains, "n_chains", 1, MAX_CHAINS)
    if n_draws * n_chains > MAX_POSTERIOR_DRAWS:
        raise ValueError(
            f"n_draws x n_chains must be at most {MAX_POSTERIOR_DRAWS:.0e} posterior draws in "
            f"all; got {n_draws} x {n_chains}"
        )
    if n_values:
        from relmc._io import check_posterior_memory

        check_posterior_memory(n_draws, n_chains, n_values)
    return n_draws, n_chains


#: float64 values per draw a NUTS fit keeps besides its variables (PyMC's 18 sample statistics
#: and a margin): the memory check's estimate
SAMPLE_STATS_VALUES = 20


def draw_values(n_categories: int, extra: int = 0) -> int:
    """Return the float64 values a fit keeps per draw, at least.

    4 per category (the rate, its per-million copy, the predictive count and the
    log-likelihood) plus ``extra``.
    """
    return 4 * int(n_categories) + int(extra)


def category_coords(obs: Observations) -> xr.Coordinates:
    """Coordinates along ``category``: labels plus the ``unit`` and ``group`` of each."""
    return xr.Coordinates(
        {
            "category": obs.categories,
            "unit": ("category", obs.unit),
            "group": ("category", obs.group),
        }
    )


def sample_coords(obs: Observations, chains: int, draws: int) -> xr.Coordinates:
    """Coordinates ``chain``, ``draw`` and those of :func:`category_coords`.

    Built once per fit and shared by its groups: index creation dominates small fits.
    """
    return xr.Coordinates(
        {
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            "category": obs.categories,
            "unit": ("category", obs.unit),
            "group": ("category", obs.group),
        }
    )


def data_groups(obs: Observations) -> dict[str, xr.Dataset]:
    """Return the ``observed_data`` and ``constant_data`` groups of a fit."""
    coords = category_coords(obs)
    rate = cf_rate_units(obs.rate_units)
    # exposure is in units of 1 / (the rate's units): "1/h" -> "h", "1/(1000 h)" -> "1000 h"
    exposure = rate[2:].strip("()") if rate.startswith("1/") else "unit-hours"
    observed = xr.Dataset(
        {
            "count": (
                "category",
                obs.count,
                {"units": "1", "long_name": "observed interruptions or failures"},
            )
        },
        coords=coords,
        attrs={"dataset": obs.name, **provenance()},
    )
    constant = xr.Dataset(
        {
            "exposure": (
                "category",
                obs.exposure,
                {
                    "units": exposure,
                    "long_name": "exposure: units of the category's `unit` times hours observed",
                },
            )
        },
        coords=coords,
        attrs={"dataset": obs.name, **provenance()},
    )
    return {"observed_data": observed, "constant_data": constant}


def predictive_counts(
    rate: np.ndarray, exposure: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Poisson counts at ``exposure`` for every draw of ``rate`` (..., category)."""
    return rng.poisson(rate * exposure).astype(np.int64)


def check_convergence(posterior: xr.Dataset, var_names: list[str], where: str) -> None:
    """Warn with :class:`ConvergenceWarning` if r_hat or bulk ESS miss their thresholds.

    Thresholds: r_hat > 1.01, or bulk ESS < 100 per chain (Vehtari et al. 2021).
    """
    n_chains = posterior.sizes["chain"]
    ess_min = ESS_PER_CHAIN_MIN * n_chains
    problems = []
    with warnings.catch_warnings():
        # arviz warns (RuntimeWarning) about very short chains; the thresholds below report it.
        warnings.simplefilter("ignore", RuntimeWarning)
        rhat = az.rhat(posterior, var_names=var_names)
        ess = az.ess(posterior, var_names=var_names, method="bulk")
    for name in var_names:
        r = rhat[name]
        e = ess[name]
        labels = _labels(name, r)
        for lab, rv, ev in zip(labels, np.ravel(r.values), np.ravel(e.values), strict=True):
            if not np.isfinite(rv) or rv > RHAT_MAX:
                problems.append(f"{lab}: r_hat {rv:.3f} > {RHAT_MAX}")
            if not np.isfinite(ev) or ev < ess_min:
                problems.append(
                    f"{lab}: bulk ESS {ev:.0f} < {ess_min} "
                    f"({ESS_PER_CHAIN_MIN} per chain x {n_chains} chains)"
                )
    if problems:
        shown = "; ".join(problems[:8]) + (
            f"; and {len(problems) - 8} more" if len(problems) > 8 else ""
        )
        warnings.warn(
            f"{where}: MCMC may not have converged ({shown}). Increase draws and tune, or "
            "check the data.",
            ConvergenceWarning,
            stacklevel=3,
        )


def check_divergences(sample_stats: xr.Dataset, where: str) -> None:
    """Warn with :class:`ConvergenceWarning` if NUTS reported divergent transitions."""
    if "diverging" not in sample_stats:
        return
    n = int(sample_stats["diverging"].sum())
    if n > 0:
        total = int(sample_stats["diverging"].size)
        warnings.warn(
            f"{where}: {n} of {total} NUTS transitions diverged; the posterior may be biased. "
            "Increase target_accept.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _labels(name: str, da: xr.DataArray) -> list[str]:
    if da.ndim == 0:
        return [name]
    axes = [np.asarray(da[d].values).astype(str) for d in da.dims]
    return [f"{name}[{', '.join(idx)}]" for idx in itertools.product(*axes)]


#: ``rate_per_million`` = ``rate`` x DISPLAY_SCALE: rates per unit-hour are ~1e-6 to 1e-2, which
#: ``az.summary`` (3 decimals) prints as 0.000; per million unit-hours they read 0.1 to 1e4.
DISPLAY_SCALE = 1e6


def display_units(rate_units: str) -> str:
    """UDUNITS units of ``rate_per_million`` given the prose ``rate_units`` of ``rate``."""
    units = cf_rate_units(rate_units)
    if units != rate_units:  # a unit string: rate x 1e6 is in units of 1e-6 of it
        return f"1e-6{units[1:]}" if units.startswith("1/") else f"1e-6 {units}"
    return f"1e6 x ({rate_units})"


def make_idata(
    posterior: xr.Dataset,
    posterior_predictive: xr.Dataset,
    observed_data: xr.Dataset,
    constant_data: xr.Dataset,
    attrs: Mapping[str, Any],
    log_likelihood: xr.Dataset,
    sample_stats: xr.Dataset | None = None,
) -> az.InferenceData:
    """Assemble the InferenceData every fit returns; ``attrs`` go on posterior and ``rate``.

    Adds ``rate_per_million`` (``rate`` x 1e6, for reading ``az.summary``; nothing computes
    from it) and the ``log_likelihood`` group (pointwise, for ``az.loo`` / ``az.compare``).
    """
    posterior = posterior.assign_attrs({**attrs, **provenance()})
    posterior["rate"].attrs.update(
        {
            **attrs,
            "units": cf_rate_units(str(attrs["rate_units"])),
            "long_name": "failure rate per unit of exposure",
            "description": f"rate in {attrs['rate_units']}; each category's exposure unit is "
            "its `unit` coordinate",
        }
    )
    posterior["rate_per_million"] = (posterior["rate"] * DISPLAY_SCALE).assign_attrs(
        units=display_units(str(attrs["rate_units"])),
        long_name="rate x 1e6, for display (az.summary); rate is the quantity to use",
    )
    posterior_predictive = posterior_predictive.assign_attrs(
        {k: attrs[k] for k in ("model", "dataset")}
    )
    groups = {
        "posterior": posterior,
        "posterior_predictive": posterior_predictive,
        "log_likelihood": log_likelihood.assign_attrs({k: attrs[k] for k in ("model", "dataset")}),
        "observed_data": observed_data,
        "constant_data": constant_data,
    }
    if sample_stats is not None:
        groups["sample_stats"] = sample_stats
    return az.InferenceData(**groups)  # type: ignore[arg-type]  # arviz types **kwargs as bool
