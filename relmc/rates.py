"""The one path from a failure-rate source to what a simulation needs.

Every caller that turns a posterior into numbers (``simulate``, ``project``,
``optimize_checkpoint``, the plots, the sweeps and the ``relmc`` command) goes through this
module, so the unit checks, the order of the draws and the job-level rate are defined once.

A *rate source* is one of:

- ``None``: the scenario's own point rates (one draw);
- a mapping ``category -> rate``: replaces the named categories' point rates (one draw);
- an arviz ``InferenceData`` with ``posterior["rate"]`` (dims ``chain``, ``draw``,
  ``category``), as every :mod:`relmc.models` fit returns;
- that ``DataArray`` itself (any dims besides ``category``).

A posterior's categories must be the scenario's, except that straggler and SDC categories
(``Category.kind``) the posterior lacks may be added to a scenario: no count data has them, so
they keep their scenario rate (per exposed hour) in every draw (:attr:`RateDraws.fixed`).

A posterior may also carry physics parameters per draw (the event-log fits of
:mod:`relmc.models.events`: diurnal amplitude and peak hour, trend shape, lemon fraction and
multiplier); :func:`physics_draws` reads them in the same draw order as the rates, and
:func:`with_posterior_physics` puts a point summary of them into a scenario.

Draw order
----------
Draws are flattened *draw-major, chain-minor*: row ``k`` of :attr:`RateDraws.values` is
chain ``k mod n_chains``, draw ``k // n_chains``. Trial ``i`` of a simulation uses row
``i mod n_draws``, so any number of trials spreads evenly over all chains (a chain-by-chain
order would give 1,000 trials of a 4 x 1,000 fit to chain 0 alone). With one chain this is the
plain order of the draws. :func:`nested_draws` gives each of the first draws several trials in
a row (a projection's credible intervals need trials that share a draw).

Size scaling
------------
A fit may say that a category's job-level rate is not linear in its units
(:mod:`relmc.models.scaling`): ``posterior["exponent"]`` ``b_c`` per draw and the coordinate
``reference_gpus`` (the job size ``N_ref`` at which ``rate`` is per unit-hour). At ``N`` GPUs
the category's job-level rate is then ``rate_c * u_c(N_ref) ** (1 - b_c) * u_c(N) ** b_c``
(``u_c`` its units), which is ``rate_c * u_c(N)`` at ``b_c = 1``. Without an exponent every
rate is linear in its units, exactly as before.

Exposure clock
--------------
The kernel draws failures only while the job is *exposed* (computing, snapshotting, waiting
for the final persist, restarting); its clock pauses during detection, node swaps, spare
waits, planned downtime and the maintenance checkpoint (see :mod:`relmc.sim`). A fit of counts
over an observation window (Llama 3: 419 in 1,296 h) measures interruptions per *wall-clock*
hour of a job that was itself paused part of that time. :func:`cluster_rates` therefore
divides such rates by the share of the window the observed job was exposed,
:func:`exposed_fraction`, computed at the observed size (the fit's ``n_gpus``) with the
scenario's overheads, so a simulation at the observed size shows the fitted interruptions per
wall-clock day. Rates that are already per exposed hour (a scenario's point rates, a mapping,
a fit whose ``exposure_clock`` attribute is ``"exposed"``, such as job MTTF data) and fits
without an observed size are used as they are.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from relmc._cf import provenance
from relmc.cluster import (
    SHAPE_FIELDS,
    ClusterShape,
    recorded_shape,
    unit_shape_fields,
    units,
)
from relmc.errors import ClusterShapeWarning, FieldError, bound_text
from relmc.scenario import MAX_RATE, OVERHEAD_DRAWS, Category

if TYPE_CHECKING:
    from relmc.scenario import Scenario

__all__ = [
    "RateDraws",
    "rate_array",
    "check_draws",
    "fit_labels",
    "rate_draws",
    "draw_of_trial",
    "nested_draws",
    "unit_counts",
    "scaled_units",
    "fitted_rates",
    "exposed_fraction",
    "cluster_rates",
    "job_rates",
    "mttf_hours",
    "recorded_maintenance_rate",
    "posterior_from_source",
    "summarize_rates",
    "SOURCE_KINDS",
    "PHYSICS_VARIABLES",
    "PhysicsDraws",
    "physics_draws",
    "replaced_physics_notes",
    "posterior_reads",
    "with_posterior_physics",
    "NOT_SIMULATED_VARIABLES",
    "not_simulated_notes",
]

#: Kinds of the string rate sources that sweep specs use (see :func:`posterior_from_source`).
SOURCE_KINDS: tuple[str, ...] = ("point", "conjugate:DATASET", "a netCDF InferenceData path")

_SOURCE_TEXT = (
    "None, a mapping category -> rate, an InferenceData with posterior['rate'], "
    "or a DataArray with a 'category' dim"
)


@dataclass(frozen=True, eq=False)
class RateDraws:
    """Rate draws per unit-hour in a scenario's category order, with how they scale and tick.

    Attributes
    ----------
    values : ndarray, shape (n_draws, n_categories)
        Draw-major, chain-minor (see the module docstring); finite and >= 0.
    source : str
        What they came from, for ``attrs``.
    exponent : ndarray, shape (n_draws, n_categories), or None
        Size exponent ``b`` of each category in each draw (see "Size scaling" in the module
        docstring); ``None``: every rate is linear in its units.
    reference_gpus : ndarray of int64, shape (n_categories,), or None
        Job size (GPUs) at which ``values`` are per unit-hour; set with ``exponent``.
    observed_gpus : int
        When > 0, ``values`` are per unit-hour of the *wall clock* of a window observed on a
        job of this many GPUs, and :func:`cluster_rates` converts them to the kernel's exposed
        clock (see "Exposure clock" in the module docstring). 0: already per exposed hour.
    draw_index : ndarray of int64, shape (n_draws,), or None
        The source's row (draw-major) that each row repeats (:func:`nested_draws`); ``None``:
        row ``k`` is the source's row ``k``.
    source_draws : int or None
        How many rows the source has (:func:`nested_draws`: all the posterior's draws, of
        which ``draw_index`` may use the first few), at least one past the largest of
        ``rows``; ``None``: one past the largest of ``rows`` (``n_draws`` without
        ``draw_index``). A draw's
        overhead multipliers are drawn per source row, for all of them
        (``relmc.sim.simulate.draw_overhead_factors``), so that a subset's rows get the
        multipliers the whole posterior gives them.
    fixed : ndarray of bool, shape (n_categories,), or None
        Columns that are not the source's but a straggler or SDC category's scenario rate,
        the same in every draw and already per exposed hour (see :func:`rate_draws`);
        ``None``: none.
    physics : PhysicsDraws or None
        The posterior's physics parameters in the same rows (an event-log fit); ``None``
        when it has none. Simulations use them per draw (see "Physics parameters per draw"
        in :mod:`relmc.sim`).
    not_simulated : tuple of str
        Posterior variables of :data:`NOT_SIMULATED_VARIABLES` that the source has: physics
        it describes that no simulation takes (a simulation warns of each; see
        :func:`not_simulated_notes`).
    """

    values: np.ndarray
    source: str
    exponent: np.ndarray | None = None
    reference_gpus: np.ndarray | None = None
    observed_gpus: int = 0
    draw_index: np.ndarray | None = None
    fixed: np.ndarray | None = None
    physics: PhysicsDraws | None = None
    source_draws: int | None = None
    not_simulated: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.source_draws is None:
            return
        least = self._rows_end
        if (
            isinstance(self.source_draws, bool | np.bool_)
            or not isinstance(self.source_draws, int | np.integer)
            or self.source_draws < least
        ):
            raise ValueError(
                f"source_draws must be an integer >= {least} (one past the largest source "
                f"row); got {self.source_draws!r}"
            )

    @property
    def fitted(self) -> np.ndarray:
        """Bool per column: the source's own rates (not :attr:`fixed`)."""
        n = self.values.shape[1]
        return np.ones(n, dtype=bool) if self.fixed is None else ~self.fixed

    @property
    def n_draws(self) -> int:
        """Number of draws (rows)."""
        return int(self.values.shape[0])

    @property
    def rows(self) -> np.ndarray:
        """The source's row of each row: :attr:`draw_index`, or ``0 .. n_draws - 1``."""
        if self.draw_index is None:
            return np.arange(self.n_draws, dtype=np.int64)
        return self.draw_index

    @property
    def n_source(self) -> int:
        """Rows of the source: :attr:`source_draws`, else one past the largest of :attr:`rows`."""
        if self.source_draws is not None:
            return int(self.source_draws)
        return self._rows_end

    @property
    def _rows_end(self) -> int:
        """One past the largest of :attr:`rows` (0 without rows): the fewest source rows."""
        rows = self.rows
        return int(rows.max()) + 1 if rows.size else 0


_POINT_SOURCE = "scenario point rates"

#: the largest cluster-level interruption rate simulated, per hour (one every 3.6 ns): beyond
#: it, rates times times overflow in the simulation and no job makes progress anyway
MAX_CLUSTER_RATE = MAX_RATE
#: how a ``rates_source`` names a posterior's physics drawn per trial, then "(variables)"
PHYSICS_SOURCE = "physics per draw from the posterior"


def _names_text(names: list[str], most: int = 5) -> str:
    """Return "categories 'a', 'b'" (with "and N more" beyond ``most``) for a message."""
    shown = ", ".join(repr(n) for n in names[:most])
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return f"{'category' if len(names) == 1 else 'categories'} {shown}{more}"


def _check_values(values: np.ndarray, names: list[str], field: str) -> None:
    """Refuse a draw that is not finite and >= 0, naming ``field[category]``."""
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        c = names[int(np.argwhere(bad)[0][1])]
        raise FieldError(
            f"{field}[{c!r}]",
            f"{field}[{c!r}] must be finite and >= 0; found {float(values[bad][0])!r}",
        )


def check_draws(posterior: Any, field: str = "posterior") -> xr.DataArray:
    """:func:`rate_array` of ``posterior``, every draw checked finite and >= 0 (``field[c]``).

    For callers that build a scenario from the posterior's means, so that a bad draw is named
    as the posterior's before it becomes a scenario rate.
    """
    da = rate_array(posterior, field)
    names = [str(c) for c in da["category"].values]
    _check_values(_ordered(da, names), names, field)
    return da


def fit_labels(posterior: Any) -> dict[str, str]:
    """Return the ``dataset`` and ``model`` a fit recorded, for a result's ``attrs`` ("" if none).

    Read from an InferenceData's posterior group, or from the attrs of a rate DataArray or
    Dataset taken from one (``idata.posterior["rate"]`` keeps them); ``None``: both "".
    """
    attrs = dict(getattr(getattr(posterior, "posterior", posterior), "attrs", {}) or {})
    return {"dataset": str(attrs.get("dataset", "")), "model": str(attrs.get("model", ""))}


def rate_array(posterior: Any, field: str = "posterior") -> xr.DataArray:
    """Return ``posterior["rate"]`` of an InferenceData, or a rate DataArray as it is.

    A size-scaling fit's ``posterior["exponent"]`` is attached to the rate as the coordinate
    ``exponent`` (dims ``chain``, ``draw``, ``category``), so every consumer of the rate
    array (simulations, sweeps, plots) scales it the same way.

    Raises
    ------
    ValueError
        Naming ``field`` when ``posterior`` is neither.
    """
    post = getattr(posterior, "posterior", None)
    if post is not None:
        if "rate" not in post:
            raise FieldError(field, f"{field} must have posterior['rate'] (a relmc.models fit)")
        rate = post["rate"]
        if "exponent" in post.data_vars:  # a size-scaling fit: the exponent travels with rate
            rate = rate.assign_coords(exponent=post["exponent"])
        return rate
    if isinstance(posterior, xr.DataArray) and "category" in posterior.dims:
        return posterior
    raise FieldError(
        field,
        f"{field} must be an arviz InferenceData with posterior['rate'] or a DataArray with a "
        f"'category' dim; got {type(posterior).__name__}",
    )


def _finite_rate(name: str, value: Any) -> float:
    real = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
    v = float(value) if real else math.nan  # not True for 1, nor the string "1"
    if not math.isfinite(v) or v < 0:
        raise FieldError(
            f"rates[{name!r}]", f"rates[{name!r}] must be a finite number >= 0; got {value!r}"
        )
    return v


def _ordered(da: xr.DataArray, names: list[str]) -> np.ndarray:
    """Values of ``da`` as (n_draws, n_categories): draw-major, chain-minor, scenario order."""
    other = [d for d in da.dims if d != "category"]
    if "chain" in other and "draw" in other:
        other = ["draw", "chain", *[d for d in other if d not in ("chain", "draw")]]
    values = da.transpose(*other, "category").sel(category=names).values
    if values.dtype.kind not in "iuf":  # not bool, complex, strings or objects
        raise FieldError("rates", f"rates must be numbers (real); got an array of {values.dtype}")
    return values.reshape(-1, len(names))


def rate_draws(scenario: Scenario, rates: Any = None) -> RateDraws:
    """Per-unit-hour rate draws of any rate source, in the scenario's category order.

    Parameters
    ----------
    scenario : Scenario
        Gives the categories, their units and (for ``rates=None``) the point rates.
    rates : None, mapping, InferenceData, DataArray or RateDraws
        The source (see the module docstring); a :class:`RateDraws` (e.g. from
        :func:`nested_draws`) is returned as it is once its width is checked.

    Returns
    -------
    RateDraws
        With the size exponents and reference sizes of a scaling fit (coordinates
        ``exponent`` and ``reference_gpus`` of the rate array), and ``observed_gpus`` set when
        the rates are per wall-clock hour of an observed window (the rate's ``attrs``:
        ``n_gpus`` > 0 and ``exposure_clock`` not ``"exposed"``), and ``not_simulated``
        naming the posterior's variables that describe physics no simulation takes
        (:data:`NOT_SIMULATED_VARIABLES`).

    Raises
    ------
    ValueError
        For an unknown source type, categories that do not match the scenario's, a unit that
        differs from the scenario's, no draws, or a rate (or exponent) that is not finite
        (and >= 0).
    """
    fm = scenario.failures
    names = list(fm.names)
    if isinstance(rates, RateDraws):
        if rates.values.ndim != 2 or rates.values.shape[1] != len(names):
            raise FieldError(
                "rates",
                f"rates: RateDraws of {rates.values.shape} do not fit the scenario's "
                f"{len(names)} categories",
            )
        return rates
    if rates is None:
        return _point(scenario, fm, _POINT_SOURCE)
    posterior = getattr(rates, "posterior", None)  # InferenceData (itself a Mapping)
    if isinstance(rates, Mapping) and posterior is None:
        fm = fm.with_rates({k: _finite_rate(k, v) for k, v in rates.items()})
        return _point(scenario, fm, "rates mapping")
    if posterior is None and not (isinstance(rates, xr.DataArray) and "category" in rates.dims):
        raise FieldError("rates", f"rates must be {_SOURCE_TEXT}; got {type(rates).__name__}")
    da = rate_array(rates, "rates")
    got = [str(c) for c in da["category"].values]
    # straggler and SDC categories that no fit has: their scenario rate in every draw
    added = [c.name for c in fm.categories if c.kind != "failure" and c.name not in got]
    fitted_names = [n for n in names if n not in added]
    if sorted(got) != sorted(fitted_names):
        extra = [c for c in fitted_names if c not in got]
        lacks = [c for c in got if c not in fitted_names]
        parts = []
        if extra:
            parts.append(f"the scenario has {_names_text(extra)} that the rates lack")
        if lacks:
            parts.append(f"the rates have {_names_text(lacks)} that the scenario lacks")
        raise FieldError(
            "rates",
            f"rates: categories do not match the scenario's ({'; '.join(parts)}; "
            f"{len(got)} in the rates, {len(fitted_names)} in the scenario); build the "
            "scenario with FailureModel.from_posterior(idata) (straggler and SDC categories "
            "the posterior lacks may be added: they keep their scenario rate)",
        )
    if "unit" in da.coords:
        for c, u in zip(got, da["unit"].values, strict=True):
            if str(u) != fm.category(c).unit:
                raise FieldError(
                    "rates",
                    f"rates: category {c!r} was fitted per {u}-hour but the scenario scales it "
                    f"per {fm.category(c).unit}; refit with matching units",
                )
    _warn_shape(scenario, recorded_shape(da.attrs), fitted_names)
    values = _ordered(da, fitted_names)
    if values.shape[0] == 0:
        raise FieldError("rates", "rates: the posterior has no draws")
    _check_values(values, fitted_names, "rates")
    n = values.shape[0]
    exponent, reference = _scaling(da, fitted_names, n)
    observed = _observed_gpus(da)
    source = f"posterior ({n} draws, draw-major over chains, cycled over trials)"
    if exponent is not None:
        source += "; job-level rates scale as a power of the units (size exponents fitted)"
    if observed:
        source += (
            f"; per wall-clock hour of a window observed on {observed:,} GPUs, divided by the "
            "share of it the observed job was exposed"
        )
    physics = _read_physics(scenario, posterior, names, added, n)
    if physics is not None:
        source += f"; {PHYSICS_SOURCE} ({', '.join(physics.present)})"
    post_vars = () if posterior is None else posterior
    unread = tuple(v for v in NOT_SIMULATED_VARIABLES if v in post_vars)
    if not added:
        return RateDraws(
            values.astype(float),
            source,
            exponent,
            reference,
            observed,
            physics=physics,
            not_simulated=unread,
        )
    # put the added categories' columns in at their scenario positions
    fixed = np.array([name in added for name in names])
    full = np.empty((n, len(names)))
    full[:, ~fixed] = values
    full[:, fixed] = [fm.category(name).rate for name in added]
    if exponent is not None and reference is not None:
        e = np.ones((n, len(names)))  # linear in their units
        e[:, ~fixed] = exponent
        r = np.ones(len(names), dtype=np.int64)
        r[~fixed] = reference
        exponent, reference = e, r
    source += f"; {', '.join(added)} at the scenario's rate (not in the posterior)"
    return RateDraws(
        full,
        source,
        exponent,
        reference,
        observed,
        fixed=fixed,
        physics=physics,
        not_simulated=unread,
    )


def fit_shape(posterior: Any) -> ClusterShape | None:
    """Return the shape of the cluster a fit's data came from, as the fit recorded it, or None.

    Fits record their data's shape (:func:`relmc.load_counts` with ``n_gpus`` or ``shape``,
    event logs, the bundled datasets); ``relmc.projection.default_scenario`` gives its
    scenario this shape, and :func:`rate_draws` warns when a scenario's differs where the
    fitted categories' units are counted (:class:`~relmc.errors.ClusterShapeWarning`).
    """
    try:
        return recorded_shape(rate_array(posterior).attrs)
    except FieldError:
        return None


def _warn_shape(scenario: Scenario, shape: ClusterShape | None, names: list[str]) -> None:
    """Warn when ``scenario`` counts the fitted categories' units with another shape."""
    if shape is None:
        return
    fm, cl = scenario.failures, scenario.cluster
    differ = [
        f
        for f in SHAPE_FIELDS
        if getattr(cl, f) != getattr(shape, f)
        and any(f in unit_shape_fields(fm.category(c).unit) for c in names)
    ]
    if not differ:
        return
    which = [c for c in names if set(unit_shape_fields(fm.category(c).unit)) & set(differ)]
    per = sorted({fm.category(c).unit for c in which})
    fit = ", ".join(f"{f} = {getattr(shape, f):g}" for f in differ)
    this = ", ".join(f"{f} = {getattr(cl, f):g}" for f in differ)
    fields = ", ".join(f"cluster.{f} = {getattr(shape, f):g}" for f in differ)
    flags = " ".join(f"--{f.replace('_', '-')} {getattr(shape, f):g}" for f in differ)
    warnings.warn(
        f"rates: the fit's data came from a cluster with {fit}; this scenario's cluster has "
        f"{this}, so the rates of {_names_text(which)} (per {'/'.join(per)}-hour) meet "
        f"another count of {'/'.join(per)}s at the same GPU count. To project the observed "
        f"cluster, give the scenario the fit's shape ({fields}; on the command line "
        f"{flags}); a cluster packed otherwise is a what-if of its own",
        ClusterShapeWarning,
        stacklevel=3,
    )


def _point(scenario: Scenario, fm: Any, source: str) -> RateDraws:
    """One draw of point rates (repeated when an overhead has a per-draw spread).

    With a spread the row is repeated over ``OVERHEAD_DRAWS`` draws, each of which then has
    its own overhead multipliers.
    """
    values = np.array([[c.rate for c in fm.categories]], float)
    if np.any(scenario.policy.overhead_sigma > 0.0):
        values = np.repeat(values, OVERHEAD_DRAWS, axis=0)
        source += f", repeated over {OVERHEAD_DRAWS:,} draws of the uncertain overheads"
    return RateDraws(values, source)


def _scaling(
    da: xr.DataArray, names: list[str], n: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Size exponents (n_draws, n_categories) and reference sizes of a rate array, or Nones."""
    if "exponent" not in da.coords:
        return None, None
    exponent = _ordered(da.coords["exponent"], names).astype(float)
    if exponent.shape[0] != n or not np.all(np.isfinite(exponent)):
        raise FieldError("rates", "rates: the size exponent must be finite, one per rate draw")
    if "reference_gpus" not in da.coords:
        raise FieldError(
            "rates", "rates: a size exponent needs the coordinate reference_gpus (category)"
        )
    ref = np.asarray(da.coords["reference_gpus"].sel(category=names).values)
    if ref.dtype.kind not in "iuf" or not np.all((ref >= 1) & (ref == np.round(ref))):
        raise FieldError(
            "rates", f"rates: reference_gpus must be whole numbers >= 1; got {ref.tolist()}"
        )
    return exponent, ref.astype(np.int64)


def _observed_gpus(da: xr.DataArray) -> int:
    """Observed job size of rates per wall-clock hour (``attrs``), else 0 (no conversion)."""
    if str(da.attrs.get("exposure_clock", "wall")) == "exposed":
        return 0
    n = da.attrs.get("n_gpus", 0)
    if isinstance(n, bool | np.bool_) or not isinstance(n, int | np.integer | float | np.floating):
        return 0
    return int(n) if n >= 1 and float(n) == int(n) else 0


def nested_draws(draws: RateDraws, n_trials: int, trials_per_draw: int) -> RateDraws:
    """Return the draws for ``n_trials`` trials that share each draw ``trials_per_draw`` ways.

    The first ``K = min(ceil(n_trials / m), n_draws)`` rows (draw-major, so spread over every
    chain) each repeated ``m = trials_per_draw`` times in a row: with :func:`draw_of_trial`,
    trials ``k m .. k m + m - 1`` use draw ``k``: the groups are contiguous, so a prefix of
    the trials (as adaptive precision runs, whole blocks of 256) holds whole groups but for
    its last, which may be cut short. With more trials than ``K m`` the groups cycle. With
    ``m = 1`` the trials use exactly the rows they use without nesting.

    Parameters
    ----------
    draws : RateDraws
        All the draws (from :func:`rate_draws`).
    n_trials : int
        Trials to run, >= 1.
    trials_per_draw : int
        Trials per draw ``m``, >= 1.

    Returns
    -------
    RateDraws
        ``K m`` rows (``n_trials`` when one group holds them all);
        :attr:`RateDraws.draw_index` gives each row's row in ``draws``, and
        ``RateDraws.source_draws`` how many rows ``draws`` has (its source's), so each
        group gets the overhead multipliers its draw has in a simulation of all of ``draws``.
    """
    m = int(trials_per_draw)
    k = min(-(-int(n_trials) // m), draws.n_draws)
    # one group of more rows than trials: its first n_trials rows give the same trials
    idx = np.repeat(np.arange(k, dtype=np.int64), m if k > 1 else min(m, int(n_trials)))
    rows = draws.rows[idx]
    return RateDraws(
        values=draws.values[idx],
        source=f"{draws.source}; {k} draws x {m} trials each",
        exponent=None if draws.exponent is None else draws.exponent[idx],
        reference_gpus=draws.reference_gpus,
        observed_gpus=draws.observed_gpus,
        draw_index=rows,
        fixed=draws.fixed,
        physics=None if draws.physics is None else draws.physics.take(idx),
        source_draws=draws.n_source,
        not_simulated=draws.not_simulated,
    )


def draw_of_trial(n_trials: int, n_draws: int) -> np.ndarray:
    """Row of :attr:`RateDraws.values` that each trial uses: ``i mod n_draws``."""
    return np.arange(n_trials, dtype=np.int64) % n_draws


def unit_counts(scenario: Scenario) -> np.ndarray:
    """Exposure units of each category at the scenario's cluster size (category order)."""
    cl = scenario.cluster
    return np.array([cl.units(c.unit) for c in scenario.failures.categories], dtype=float)


def _units_at(scenario: Scenario, n_gpus: int) -> np.ndarray:
    shape = scenario.cluster.shape
    return np.array([units(int(n_gpus), c.unit, shape) for c in scenario.failures.categories])


def scaled_units(scenario: Scenario, draws: RateDraws, n_gpus: int | None = None) -> np.ndarray:
    """Return the factors turning per-unit-hour rates into job-level rates at ``n_gpus``.

    Parameters
    ----------
    scenario : Scenario
        Categories, units and cluster shape; ``n_gpus`` defaults to its cluster's size.
    draws : RateDraws
        With or without size exponents.
    n_gpus : int, optional
        Job size (GPUs).

    Returns
    -------
    ndarray
        The unit counts ``u_c(N)``, shape (n_categories,), when the draws have no exponent;
        else ``u_c(N_ref) ** (1 - b) * u_c(N) ** b``, shape (n_draws, n_categories).
    """
    u = unit_counts(scenario) if n_gpus is None else _units_at(scenario, n_gpus)
    if draws.exponent is None or draws.reference_gpus is None:
        return u
    shape = scenario.cluster.shape
    ref = np.array(
        [
            units(int(n), c.unit, shape)
            for n, c in zip(draws.reference_gpus, scenario.failures.categories, strict=True)
        ]
    )
    b = draws.exponent
    with np.errstate(over="ignore"):
        return ref ** (1.0 - b) * u**b


def fitted_rates(scenario: Scenario, draws: RateDraws, n_gpus: int | None = None) -> np.ndarray:
    """Job-level rate of each category per hour *on the rates' own clock*, (n_draws, n_cat).

    The rates times :func:`scaled_units` at ``n_gpus`` (default: the scenario's size), before
    any exposure-clock conversion: for a fit of counts over an observed window, interruptions
    per wall-clock hour as the data count them.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return draws.values * scaled_units(scenario, draws, n_gpus)


def exposed_fraction(scenario: Scenario, draws: RateDraws) -> np.ndarray:
    """Share of the observation window the observed job was exposed to failures, per draw.

    In a long window on the wall clock, each unexpected interruption of category ``c`` pauses
    the failure clock for its detection plus (if it needs a swap) ``policy.swap_hours``, and
    each planned one for the maintenance checkpoint (``snapshot_hours + persist_hours``) plus
    ``failures.maintenance_hours``. With ``Lambda_c`` and ``m`` the fitted rates per
    wall-clock hour at the observed size, the exposed share is::

        f = 1 - sum_c Lambda_c (detection_c + swap_c) - m (snapshot + persist + maintenance)

    and the rates per exposed hour are ``Lambda_c / f`` (renewal-reward: the events of a
    window over its exposed hours). The overheads are the scenario's, i.e. the observed job is
    assumed to have recovered as the scenario does; spare waits (finite pools), diurnal and
    trend modulation are left out.

    Returns
    -------
    ndarray, shape (n_draws,)
        ``f`` per draw; all ones when the draws are already per exposed hour
        (``draws.observed_gpus == 0``).

    Raises
    ------
    ValueError
        When the overheads would pause the observed job for the whole window (``f <= 0``).
    """
    if draws.observed_gpus <= 0:
        return np.ones(draws.n_draws)
    fm, pol = scenario.failures, scenario.policy
    mean = pol.mean_factor  # uncertain overheads enter with their means
    swap = np.array([c.recovery == "swap" for c in fm.categories])
    detect = np.array([c.detection_hours for c in fm.categories]) * mean("detection")
    pause = detect + pol.swap_hours * mean("swap") * swap
    planned = fm.maintenance_rate * (
        fm.maintenance_hours * mean("maintenance")
        + pol.snapshot_hours * mean("snapshot")
        + pol.persist_hours * mean("persist")
    )
    with np.errstate(over="ignore", invalid="ignore"):
        lam = fitted_rates(scenario, draws, draws.observed_gpus)[:, draws.fitted]
        f = 1.0 - lam @ pause[draws.fitted] - planned
    if not np.all(f > 0):  # also catches NaN
        raise _paused_error(scenario, draws, lam, detect, swap)
    return f


def _paused_error(scenario: Scenario, draws: RateDraws, lam, detect, swap) -> FieldError:
    """Build :func:`exposed_fraction`'s error: each overhead's share of the window.

    At the draw that leaves the least exposed; the largest share is blamed (its field).
    """
    fm, pol = scenario.failures, scenario.policy
    mean = pol.mean_factor
    fitted = draws.fitted
    names = [n for n, k in zip(fm.names, fitted, strict=True) if k]
    with np.errstate(over="ignore", invalid="ignore"):
        by_cat = lam * detect[fitted]  # (n_draws, fitted categories)
        swaps = lam @ (pol.swap_hours * mean("swap") * swap[fitted])
        downtime = fm.maintenance_rate * fm.maintenance_hours * mean("maintenance")
        ckpt = fm.maintenance_rate * (
            pol.snapshot_hours * mean("snapshot") + pol.persist_hours * mean("persist")
        )
        total = by_cat.sum(axis=1) + swaps + downtime + ckpt
    i = int(np.argmax(np.nan_to_num(total, nan=np.inf)))
    c = int(np.argmax(np.nan_to_num(by_cat[i], nan=np.inf))) if names else 0
    snap = "policy.snapshot_hours"
    if pol.persist_hours * mean("persist") > pol.snapshot_hours * mean("snapshot"):
        snap = "policy.persist_hours"
    terms = [
        (
            float(by_cat[i, c]) if names else 0.0,
            f"failures.categories[{names[c]!r}].detection_hours" if names else "",
            "detection" + (f" (the most: {names[c]!r})" if names else ""),
        ),
        (float(swaps[i]), "policy.swap_hours", f"swaps (policy.swap_hours = {pol.swap_hours:g})"),
        (
            downtime,
            "failures.maintenance_hours",
            f"maintenance downtime (failures.maintenance_hours = {fm.maintenance_hours:g})",
        ),
        (
            ckpt,
            snap,
            f"maintenance checkpoints (policy.snapshot_hours + persist_hours = "
            f"{pol.snapshot_hours + pol.persist_hours:g})",
        ),
    ]
    worst = max(terms, key=lambda t: np.nan_to_num(t[0], nan=np.inf))[1]
    hours = fm.maintenance_hours + pol.snapshot_hours + pol.persist_hours
    if worst in ("failures.maintenance_hours", snap) and fm.maintenance_rate * 24.0 > hours:
        # planned pauses: blame the rate when it is further above one a day than their
        # hours are above one hour
        worst = "failures.maintenance_rate"
    shares = ", ".join(f"{what} {share:.3g}" for share, _, what in terms)
    return FieldError(
        worst,
        f"{worst}: with these overheads the job observed on {draws.observed_gpus:,} GPUs "
        f"would have been paused for its whole observation window: the shares of it paused "
        f"must sum to below 1 (the rates observed, failures.maintenance_rate = "
        f"{fm.maintenance_rate:g} per hour planned), got {float(total[i]):.3g}: {shares}; "
        "shorten the overheads",
    )


def cluster_rates(scenario: Scenario, draws: RateDraws) -> np.ndarray:
    """Cluster-level rate of each category per exposed hour, shape (n_draws, n_categories).

    :func:`fitted_rates` at the scenario's size, divided by :func:`exposed_fraction` when the
    draws are per wall-clock hour of an observed window (see the module docstring), times each
    category's ``rate_multiplier`` (a what-if factor: the exposure conversion is about the
    observed job, so it takes the rates as observed); without a size exponent, an observed
    size and a multiplier this is the rates times the unit counts.

    Raises
    ------
    ValueError
        When a rate times its units (or the total with maintenance) overflows, or the
        exposure conversion is impossible.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        rates = fitted_rates(scenario, draws)
        if draws.observed_gpus > 0:  # the fitted columns only: added ones are per exposed hour
            f = exposed_fraction(scenario, draws)[:, None]
            rates = np.where(draws.fitted, rates / f, rates)
        mult = np.array([c.rate_multiplier for c in scenario.failures.categories])
        if np.any(mult != 1.0):
            rates = rates * mult
        total = rates.sum(axis=1) + scenario.failures.maintenance_rate
    if not np.all(total <= MAX_CLUSTER_RATE):  # also catches inf and NaN
        raise _overflow_error(scenario, draws, rates, total)
    return rates


def _overflow_error(scenario: Scenario, draws: RateDraws, rates, total) -> FieldError:
    """Build :func:`cluster_rates`' error: the largest category's rate, or else the total.

    Where every category is within bounds but their sum with the planned maintenance rate is
    not, the larger of the maintenance rate and the largest category's rate is blamed.
    """
    names = scenario.failures.names
    m = float(scenario.failures.maintenance_rate)
    bad = ~(rates <= MAX_CLUSTER_RATE)
    maintenance = False
    if bad.any():  # the largest (a NaN counts as the largest)
        flat = np.argmax(np.nan_to_num(rates, nan=np.inf, posinf=np.inf))
        i, c = (int(k) for k in np.unravel_index(flat, rates.shape))
        what = f"the cluster-level rate of {names[c]!r}"
    else:
        i = int(np.argmax(np.nan_to_num(total, nan=np.inf)))
        c = int(np.argmax(rates[i])) if rates.shape[1] else -1
        what = (
            f"the cluster's total event rate, {float(total[i]):.3g} per hour (the categories' "
            f"{float(rates[i].sum()):.3g} and planned maintenance {m:.3g})"
        )
        maintenance = c < 0 or m >= rates[i, c]
    if maintenance:
        field, bound = "failures.maintenance_rate", "it must stay"
    elif scenario.failures.categories[c].rate_multiplier > 1.0:
        field = f"failures.categories[{names[c]!r}].rate_multiplier"
        bound = "rates times units and multipliers must stay"
    else:
        point = draws.source.startswith(_POINT_SOURCE)
        field = f"failures.categories[{names[c]!r}].rate" if point else f"rates[{names[c]!r}]"
        bound = "rates times units must stay"
    return FieldError(
        field,
        f"{field}: {what} overflows at n_gpus={scenario.cluster.n_gpus}: {bound} at most "
        f"{MAX_CLUSTER_RATE:.0e} per hour",
    )


def maintenance_rate(scenario: Scenario, draws: RateDraws) -> float:
    """Planned maintenance rate per exposed hour (the kernel's clock).

    ``failures.maintenance_rate`` counts planned events per wall-clock hour of the window the
    rates were observed in, like the categories' rates: when the draws are per wall-clock hour
    (``draws.observed_gpus > 0``) it is divided by the mean over draws of
    :func:`exposed_fraction` (the kernel takes one maintenance rate; the fraction varies by a
    few tenths of a percent over a posterior, so the mean's error is second order).
    Otherwise it is used as it is.
    """
    m = float(scenario.failures.maintenance_rate)
    if draws.observed_gpus <= 0 or m == 0.0:
        return m
    return m / float(np.mean(exposed_fraction(scenario, draws)))


def job_rates(scenario: Scenario, draws: RateDraws) -> np.ndarray:
    """Job-level rate of unexpected interruptions, ``Lambda(N)`` per exposed hour, per draw.

    The sum over every category of :func:`cluster_rates` (each category's ``rate_multiplier``
    applied; straggler and SDC categories included, as the kernel's ``interruptions`` counts
    them: a straggler at its arrival, an SDC at its detection); planned maintenance is not an
    unexpected interruption and is left out.
    """
    return cluster_rates(scenario, draws).sum(axis=1)


def mttf_hours(scenario: Scenario, draws: RateDraws) -> np.ndarray:
    """Mean time to an unexpected interruption, ``1 / Lambda(N)`` hours, one per draw.

    ``Lambda(N)`` is :func:`job_rates`, per exposed hour (the kernel's clock): the mean
    running time (computing or restarting) from one interruption to the next, which is what
    Young's and Daly's rules take as the MTBF. For a fit of a window observed at ``N``, it is
    the observed wall-clock time between interruptions times :func:`exposed_fraction`.
    """
    lam = job_rates(scenario, draws)
    with np.errstate(divide="ignore"):
        return np.where(lam > 0, 1.0 / np.where(lam > 0, lam, 1.0), math.inf)


def recorded_maintenance_rate(posterior: Any) -> float:
    """Planned-maintenance rate (per hour) a fit recorded from its data, else 0.

    Read from an InferenceData's ``posterior.attrs``, else from ``posterior["rate"].attrs``
    (the observation record :func:`relmc.project` documents there; the fits write both, so
    only a posterior built or edited by hand has it in one place); from rate draws' own
    ``attrs``.
    """
    post = getattr(posterior, "posterior", None)
    if post is None:
        attrs = getattr(posterior, "attrs", {})
    else:
        attrs = post.attrs
        if "maintenance_rate" not in attrs and "rate" in getattr(post, "data_vars", {}):
            attrs = post["rate"].attrs
    return float(attrs.get("maintenance_rate", 0.0))


def posterior_from_source(source: str, *, seed: Any, n_draws: int, path_root: Any = None) -> Any:
    """Resolve a sweep's string rate source to a rate source :func:`rate_draws` takes.

    Parameters
    ----------
    source : str
        ``"point"`` (``None``: the scenario's own rates), ``"conjugate:DATASET"`` (a conjugate
        fit of a bundled dataset with ``n_draws`` draws from ``seed``), or a path to a netCDF
        InferenceData with ``posterior["rate"]``.
    seed : int or SeedSequence
        Seed of the conjugate fit.
    n_draws : int
        Draws of the conjugate fit.
    path_root : path-like, optional
        Folder a relative netCDF path is resolved against.

    Returns
    -------
    None, xarray.DataArray or arviz.InferenceData
        The rate draws (loaded into memory), or ``None`` for ``"point"``; for a netCDF
        with physics per draw (an event fit, :data:`PHYSICS_VARIABLES`), an InferenceData
        of its posterior group alone (loaded), so that cells draw them per trial too;
        likewise for one with a variable of :data:`NOT_SIMULATED_VARIABLES`, so that the
        sweep warns of it.
    """
    from pathlib import Path

    if not isinstance(source, str) or not source:
        raise FieldError(
            "posterior",
            f"posterior must be 'point', 'conjugate:DATASET' or a netCDF path; got {source!r}",
        )
    if source == "point":
        return None
    if source.startswith("conjugate:"):
        from relmc.datasets import list_datasets, load_dataset
        from relmc.models import fit_conjugate

        name = source.split(":", 1)[1]
        if name not in list_datasets():
            raise FieldError(
                "posterior",
                f"posterior: unknown dataset {name!r} in {source!r}; known: {list_datasets()}",
            )
        # one chain of exactly n_draws exact draws: the source's draw count is the spec's
        idata = fit_conjugate(load_dataset(name), n_draws=n_draws, n_chains=1, seed=seed)
        return rate_array(idata).load()
    path = Path(source)
    if path_root is not None and not path.is_absolute():
        path = Path(path_root) / path
    if not path.is_file():
        what = "is a directory, not a file" if path.is_dir() else "does not exist"
        raise FieldError(
            "posterior",
            "posterior must be 'point', 'conjugate:DATASET' or an existing netCDF file; "
            f"{str(path)!r} {what}",
        )
    import arviz as az

    try:
        idata = az.from_netcdf(str(path))
        rates = rate_array(idata).load()
        if not any(v in idata.posterior for v in (*PHYSICS_VARIABLES, *NOT_SIMULATED_VARIABLES)):
            return rates
        # an event fit: its physics per draw (or a variable no simulation takes, to warn of)
        # too: the posterior group alone, in memory
        return az.InferenceData(posterior=idata.posterior.load())
    except Exception as e:  # arviz raises several types for a wrong file
        raise FieldError(
            "posterior",
            f"posterior: {str(path)!r} is not an InferenceData with posterior['rate']: {e}",
        ) from e


def summarize_rates(
    posterior: Any,
    *,
    n_gpus: int | None = None,
    shape: Any = None,
    quantiles: tuple[float, ...] = (0.05, 0.5, 0.95),
) -> xr.Dataset:
    """Summarise a fitted rate posterior per category, and the job MTTF at a cluster size.

    Parameters
    ----------
    posterior : InferenceData or DataArray
        A :mod:`relmc.models` fit (``posterior["rate"]``) or its rate array.
    n_gpus : int, optional
        Cluster size at which to express each category as hours between interruptions and
        the job's MTTF; needs every category's unit to be a cluster unit
        (:data:`relmc.cluster.UNITS`). ``None``: per-unit rates only. A size-scaling fit's
        exponents apply; there is no scenario here, so the rates stay on the fit's own clock
        (per wall-clock hour for counts over a window: no exposure conversion).
    shape : relmc.cluster.ClusterShape, optional
        GPU packing used to count units: default the shape the fit recorded
        (:func:`fit_shape`), else Llama 3's.
    quantiles : tuple of float
        Quantile levels of the bands.

    Returns
    -------
    xarray.Dataset
        Along ``category`` (with ``unit``): ``rate_mean`` and ``rate_quantile`` (events per
        unit-hour), ``rate_per_unit_year_mean``; with ``n_gpus``: ``hours_between_mean``
        (1 / mean cluster-level rate of the category) and ``mttf_hours_quantile`` (1/Lambda(N)
        over draws) with ``interruptions_per_day_quantile`` (24 Lambda(N)). ``attrs``:
        ``n_gpus`` (0 when not given), ``n_draws``.
    """
    from relmc import cluster
    from relmc.summary import HOURS_PER_DAY, check_quantiles

    q = check_quantiles(quantiles)
    rate = rate_array(posterior)
    if shape is None:
        shape = recorded_shape(rate.attrs)
    other = [d for d in rate.dims if d != "category"]
    if "chain" in other and "draw" in other:
        other = ["draw", "chain", *[d for d in other if d not in ("chain", "draw")]]
    flat = rate.transpose(*other, "category").values.reshape(-1, rate.sizes["category"])
    coords = {"category": rate["category"].values, "quantile": list(q)}
    units = [str(u) for u in rate["unit"].values] if "unit" in rate.coords else []
    hours_per_year = 365.25 * HOURS_PER_DAY
    ds = xr.Dataset(
        {
            "rate_mean": (
                "category",
                flat.mean(axis=0),
                {"units": "1/h", "long_name": "mean rate per unit-hour"},
            ),
            "rate_quantile": (
                ("category", "quantile"),
                np.quantile(flat, q, axis=0).T,
                {"units": "1/h", "long_name": "rate per unit-hour, quantiles over draws"},
            ),
            "rate_per_unit_year_mean": (
                "category",
                flat.mean(axis=0) * hours_per_year,
                {"units": "1/(365.25 d)", "long_name": "mean rate per unit-year (Julian year)"},
            ),
        },
        coords=coords,
    )
    if units:
        ds = ds.assign_coords(unit=("category", units))
    ds.attrs = {"n_gpus": 0, "n_draws": int(flat.shape[0]), **provenance()}
    if n_gpus is None:
        return ds
    unknown = sorted({u for u in units if u not in cluster.UNITS}) if units else ["(none)"]
    if unknown:
        raise FieldError(
            "n_gpus",
            f"rates per {unknown} cannot be scaled to a cluster of n_gpus={n_gpus}; "
            f"units must be among {', '.join(cluster.UNITS)}",
        )
    scale = np.array([cluster.units(n_gpus, u, shape) for u in units])
    if "exponent" in rate.coords:  # a size-scaling fit (see the module docstring)
        b = rate.coords["exponent"].transpose(*other, "category").values.reshape(flat.shape)
        ref = np.array(
            [
                cluster.units(int(n), u, shape)
                for n, u in zip(rate["reference_gpus"].values, units, strict=True)
            ]
        )
        scale = ref ** (1.0 - b) * scale**b
    lam = flat * scale
    total = lam.sum(axis=1)
    with np.errstate(divide="ignore"):
        mean_lam = lam.mean(axis=0)
        ds["hours_between_mean"] = (
            "category",
            np.where(mean_lam > 0, 1.0 / np.where(mean_lam > 0, mean_lam, 1.0), np.inf),
            {"units": "h", "long_name": f"1 / mean cluster-level rate at {n_gpus} GPUs"},
        )
        mttf = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0), np.inf)
    ds["mttf_hours_quantile"] = (
        "quantile",
        np.quantile(mttf, q),
        {"units": "h", "long_name": "job MTTF 1/Lambda(N), quantiles over draws"},
    )
    ds["interruptions_per_day_quantile"] = (
        "quantile",
        np.quantile(total * HOURS_PER_DAY, q),
        {"units": "1/d", "long_name": "unexpected interruptions per day, quantiles over draws"},
    )
    ds.attrs["n_gpus"] = int(n_gpus)
    return ds


# --------------------------------------------------------------------------------------------
# physics parameters per draw (event-log fits, relmc.models.events)

#: Posterior variables of the physics beyond the rates, as the event-log fits name them, and
#: the scenario field each one is a draw of (``bad_node_*``: the contract's lemon fields,
#: ``bad_fraction`` and ``bad_multiplier[c]`` in relmc.sim, not yet on FailureModel).
PHYSICS_VARIABLES: dict[str, str] = {
    "diurnal_amplitude": "failures.categories.NAME.diurnal_amplitude",
    "diurnal_peak_hour": "failures.categories.NAME.diurnal_peak_hour",
    "trend_shape": "failures.trend_shape",
    "bad_node_fraction": "failures.bad_node_fraction",
    "bad_node_multiplier": "failures.bad_node_multiplier (per category)",
}

#: Posterior variables of physics that a fit reports and no simulation takes, with what a
#: simulation does instead; :func:`rate_draws` records those a posterior has
#: (``RateDraws.not_simulated``) and a simulation warns of each
#: (:class:`~relmc.errors.UnreadFieldWarning`).
NOT_SIMULATED_VARIABLES: dict[str, str] = {
    "frailty_variance": (
        "the gamma frailty of fit_events(nodes='frailty') is not simulated (the node model "
        "is the two-point lemon mixture): every node fails at the posterior's rate, the mean "
        "over nodes, unless the scenario sets lemons of its own (bad_node_fraction, "
        "bad_node_multiplier), which then apply to these rates as to any"
    ),
}


def not_simulated_notes(draws: RateDraws) -> list[str]:
    """Return a note on each posterior variable of ``draws`` that no simulation takes.

    One per name in ``RateDraws.not_simulated`` (:data:`NOT_SIMULATED_VARIABLES`), e.g.
    ``frailty_variance``: a simulation of a ``fit_events(nodes="frailty")`` posterior runs a
    fleet of identical nodes at its rates.
    """
    return [
        f"posterior[{name!r}] is not used: {NOT_SIMULATED_VARIABLES[name]}"
        for name in draws.not_simulated
    ]


#: each variable's allowed range: (low, high, high included)
_PHYSICS_RANGE = {
    "diurnal_amplitude": (0.0, 1.0, True),
    "diurnal_peak_hour": (0.0, 24.0, False),
    "trend_shape": (0.0, 100.0, True),
    "bad_node_fraction": (0.0, 1.0, True),
    "bad_node_multiplier": (1.0, math.inf, False),
}


@dataclass(frozen=True, eq=False)
class PhysicsDraws:
    """Physics parameters per posterior draw, in the row order of :func:`rate_draws`.

    Row ``k`` belongs with row ``k`` of :attr:`RateDraws.values` (draw-major, chain-minor);
    per-category arrays are in the scenario's category order. An attribute is ``None`` when
    the posterior does not have the variable (the scenario's own value then applies).

    Attributes
    ----------
    diurnal_amplitude, diurnal_peak_hour : ndarray, shape (n_draws, n_categories), or None
        Relative amplitude in [0, 1] and hour of day of the peak in [0, 24).
    trend_shape : ndarray, shape (n_draws,), or None
        Crow-AMSAA shape, > 0.
    fleet_age_hours : float or None
        The fleet's age (hours) at which the posterior's ``rate`` holds
        (``posterior.attrs["fleet_age_hours"]``), with ``trend_shape``.
    bad_node_fraction : ndarray, shape (n_draws,), or None
        Probability that a node is bad.
    bad_node_multiplier : ndarray, shape (n_draws, n_categories), or None
        How many times as often a bad node fails, >= 1.
    point : dict or None
        The point values :func:`with_posterior_physics` gives, by scenario field, over all the
        posterior's draws (kept by :meth:`take`, so a subset of the rows still knows them); a
        category the posterior lacks keeps the scenario's own value exactly.
    """

    diurnal_amplitude: np.ndarray | None
    diurnal_peak_hour: np.ndarray | None
    trend_shape: np.ndarray | None
    fleet_age_hours: float | None
    bad_node_fraction: np.ndarray | None
    bad_node_multiplier: np.ndarray | None
    point: dict[str, Any] | None = None

    @property
    def present(self) -> tuple[str, ...]:
        """Names of the variables the posterior has, in :data:`PHYSICS_VARIABLES` order."""
        return tuple(v for v in PHYSICS_VARIABLES if getattr(self, v) is not None)

    def take(self, idx: np.ndarray) -> PhysicsDraws:
        """Return the same parameters in rows ``idx`` (as :func:`nested_draws` takes rates)."""
        return dataclasses.replace(
            self,
            **{v: getattr(self, v)[idx] for v in PHYSICS_VARIABLES if getattr(self, v) is not None},
        )


def _flat_draws(da: xr.DataArray) -> np.ndarray:
    """Values of a (chain, draw) variable, draw-major and chain-minor (as :func:`_ordered`)."""
    other = [d for d in da.dims]
    if "chain" in other and "draw" in other:
        other = ["draw", "chain", *[d for d in other if d not in ("chain", "draw")]]
    return da.transpose(*other).values.reshape(-1)


def physics_draws(scenario: Scenario, posterior: Any) -> PhysicsDraws:
    """Read the per-draw physics parameters of a posterior, aligned with its rate draws.

    Parameters
    ----------
    scenario : Scenario
        Gives the category order (the posterior's categories must match, as for
        :func:`rate_draws`).
    posterior : InferenceData
        A fit, e.g. :func:`relmc.fit_events`; variables of :data:`PHYSICS_VARIABLES` that it
        lacks are ``None`` in the result.

    Returns
    -------
    PhysicsDraws
        Row ``k`` goes with row ``k`` of ``rate_draws(scenario, posterior).values`` (it is
        that :attr:`RateDraws.physics`, all ``None`` when the posterior has none).

    Raises
    ------
    ValueError
        Naming the variable, for values outside its range (amplitude in [0, 1], peak hour in
        [0, 24), trend shape in (0, 100], fraction in [0, 1], multiplier >= 1), a draw count
        that differs from the rates', categories that do not match the scenario's, or a
        ``category`` dim on a fleet variable (``trend_shape``, ``bad_node_fraction``).

    Notes
    -----
    :func:`relmc.simulate` (and everything built on it) uses them per draw whenever the rates
    are such a posterior; to simulate its rates without them, pass ``rate_array(posterior)``.
    A per-category variable (``diurnal_amplitude``, ``diurnal_peak_hour``,
    ``bad_node_multiplier``) without a ``category`` dim is one value a draw for every
    category the posterior fits; a category the posterior lacks takes the scenario's own
    value (for ``bad_node_multiplier``, the category's or else the model's).
    """
    if getattr(posterior, "posterior", None) is None:
        raise FieldError("posterior", "posterior must be an InferenceData (e.g. from fit_events)")
    phys = rate_draws(scenario, posterior).physics
    if phys is None:
        return PhysicsDraws(**{v: None for v in PHYSICS_VARIABLES}, fleet_age_hours=None)
    return phys


def _read_physics(
    scenario: Scenario, post: Any, names: list[str], added: list[str], n: int
) -> PhysicsDraws | None:
    """Read the physics variables of posterior group ``post`` (None: it has none).

    In the rows of its ``n`` rate draws and the scenario's category order; categories in
    ``added`` (not in the posterior) take the scenario's own values.
    """
    if post is None or not any(v in post for v in PHYSICS_VARIABLES):
        return None
    fm = scenario.failures
    own = {
        "diurnal_amplitude": lambda c: c.diurnal_amplitude,
        "diurnal_peak_hour": lambda c: c.diurnal_peak_hour,
        "bad_node_multiplier": lambda c: (
            fm.bad_node_multiplier if c.bad_node_multiplier is None else c.bad_node_multiplier
        ),
    }
    fitted = [name for name in names if name not in added]
    values: dict[str, Any] = {}
    for var, (lo, hi, hi_in) in _PHYSICS_RANGE.items():
        if var not in post:
            values[var] = None
            continue
        da = post[var]
        per_cat = "category" in da.dims
        if per_cat and var not in _PER_CATEGORY_POINT:
            raise FieldError(
                f"posterior[{var!r}]",
                f"posterior[{var!r}] is one value per draw for the whole fleet; found a "
                f"'category' dim (dims {tuple(da.dims)})",
            )
        arr = _ordered(da, fitted) if per_cat else _flat_draws(da)
        arr = np.asarray(arr, dtype=float)
        ok = np.isfinite(arr) & (arr >= lo) & ((arr <= hi) if hi_in else (arr < hi))
        if var == "trend_shape":
            ok &= arr > 0
        if not ok.all():
            found = float(arr[~ok].ravel()[0])  # a number, not NumPy's repr
            raise FieldError(
                f"posterior[{var!r}]",
                f"posterior[{var!r}] must be in [{bound_text(lo)}, {bound_text(hi)}"
                f"{']' if hi_in else ')'}"
                f"{' and > 0' if var == 'trend_shape' else ''}; found {found!r}",
            )
        if arr.shape[0] != n:
            raise FieldError(
                f"posterior[{var!r}]",
                f"posterior[{var!r}] has {arr.shape[0]} draws but the rates have {n}",
            )
        if not per_cat and var in _PER_CATEGORY_POINT:  # one value a draw for every category
            arr = np.repeat(arr[:, None], len(fitted), axis=1)
            per_cat = True
        if per_cat and added:
            full = np.empty((n, len(names)))
            is_added = np.array([name in added for name in names])
            full[:, ~is_added] = arr
            full[:, is_added] = [own[var](fm.category(name)) for name in added]
            arr = full
        values[var] = arr
    age = float(post.attrs.get("fleet_age_hours", 0.0) or 0.0)
    phys = PhysicsDraws(
        fleet_age_hours=age if values["trend_shape"] is not None and age > 0 else None,
        **values,
    )
    point = _physics_point(phys)
    for var in _PER_CATEGORY_POINT:  # a category the posterior lacks: its own value, exactly
        if var in point and added:
            point[var] = np.array(
                [
                    own[var](fm.category(name)) if name in added else v
                    for name, v in zip(names, point[var], strict=True)
                ]
            )
    return dataclasses.replace(phys, point=point)


def mean_hour_of_day(hours: Any, axis: int = 0) -> np.ndarray:
    """Circular mean of hours of day along ``axis`` (they wrap at 24), in [0, 24)."""
    angle = 2.0 * math.pi * np.asarray(hours, dtype=float) / 24.0
    mean = np.arctan2(np.sin(angle).mean(axis=axis), np.cos(angle).mean(axis=axis))
    hour = np.mod(mean * 24.0 / (2.0 * math.pi), 24.0)
    return np.where(hour >= 24.0, 0.0, hour)


def with_posterior_physics(scenario: Scenario, posterior: Any) -> Scenario:
    """Return ``scenario`` with the posterior's diurnal and trend parameters as point values.

    Each category's ``diurnal_amplitude`` becomes its posterior median and
    ``diurnal_peak_hour`` its circular mean (hours of day wrap at 24); ``trend_shape``
    becomes its median and ``fleet_age_hours`` the fleet's age at which the posterior's
    ``rate`` holds (``posterior.attrs["fleet_age_hours"]``: for an event-log fit, the end of
    the log). Variables the posterior lacks leave the scenario's values. Rates are untouched:
    pass the posterior to :func:`relmc.simulate` / :func:`relmc.project` for their draws.

    This is a point summary, for reports and for simulations with other rates: a simulation
    whose rates are the posterior itself uses the parameters per draw instead (see
    :func:`physics_draws`), so their uncertainty reaches the bands. The lemon parameters become
    ``FailureModel.bad_node_fraction`` and each ``Category.bad_node_multiplier`` (posterior
    medians; multipliers floored at 1, the model's range), which turn the node model on.

    Raises
    ------
    ValueError
        As :func:`physics_draws`.
    """
    phys = physics_draws(scenario, posterior)
    fm = scenario.failures
    point = _physics_point(phys)
    per_cat = {k: point.pop(k) for k in _PER_CATEGORY_POINT if k in point}
    fields: list[dict[str, Any]] = [
        {k: float(v[j]) for k, v in per_cat.items()} for j in range(len(fm.categories))
    ]
    cats = tuple(dataclasses.replace(c, **f) for c, f in zip(fm.categories, fields, strict=True))
    changes: dict[str, Any] = {"categories": cats, **point}
    return dataclasses.replace(scenario, failures=dataclasses.replace(fm, **changes))


#: The point values of :func:`_physics_point` that are per category (``Category`` fields).
_PER_CATEGORY_POINT = ("diurnal_amplitude", "diurnal_peak_hour", "bad_node_multiplier")


def _physics_point(phys: PhysicsDraws) -> dict[str, Any]:
    """Return the scenario fields :func:`with_posterior_physics` sets from ``phys``, by name.

    ``FailureModel`` fields as floats; those in :data:`_PER_CATEGORY_POINT` as arrays in the
    scenario's category order. Only the variables the posterior has. ``phys.point`` when it
    has one (the values over all the posterior's draws), else computed from its rows.
    """
    if phys.point is not None:
        return dict(phys.point)
    point: dict[str, Any] = {}
    if phys.diurnal_amplitude is not None:
        point["diurnal_amplitude"] = np.median(phys.diurnal_amplitude, axis=0)
    if phys.diurnal_peak_hour is not None:
        point["diurnal_peak_hour"] = mean_hour_of_day(phys.diurnal_peak_hour)
    if phys.trend_shape is not None:
        point["trend_shape"] = float(np.median(phys.trend_shape))
        if phys.fleet_age_hours is not None:
            point["fleet_age_hours"] = phys.fleet_age_hours
    if phys.bad_node_fraction is not None:
        point["bad_node_fraction"] = float(np.median(phys.bad_node_fraction))
    if phys.bad_node_multiplier is not None:
        point["bad_node_multiplier"] = np.maximum(1.0, np.median(phys.bad_node_multiplier, axis=0))
    return point


def posterior_reads(scenario: Scenario, phys: PhysicsDraws | None) -> frozenset[str]:
    """Return the scenario fields a posterior's per-draw physics makes read although off.

    A per-draw ``diurnal_amplitude`` without a per-draw ``diurnal_peak_hour`` is combined
    with each category's own ``diurnal_peak_hour`` (:class:`PhysicsDraws`: the scenario's
    value then applies), which :meth:`relmc.Scenario.dead_fields` takes for dead where the
    scenario's amplitude is 0; with both per draw, the peak is replaced instead (and
    :func:`replaced_physics_notes` says so). Paths as :meth:`relmc.Scenario.dead_fields`'.
    """
    if phys is None or phys.diurnal_amplitude is None:
        return frozenset()
    return frozenset(
        f"failures.categories[{c.name!r}].diurnal_peak_hour" for c in scenario.failures.categories
    )


def replaced_physics_notes(scenario: Scenario, phys: PhysicsDraws | None) -> list[str]:
    """Return a note on each scenario field that a posterior's per-draw parameters replace.

    A simulation with ``phys`` (the posterior's diurnal, trend or lemon parameters) uses them
    draw by draw, and the fleet age at which its rates hold, whatever the scenario says. A
    field left at its default, or at the posterior's own point value
    (:func:`with_posterior_physics`, over all its draws), is taken as not set; so is a
    category the posterior lacks (the simulation reads its own values). Any other value is
    one the user set and the simulation does not read: one note per field.
    """
    if phys is None:
        return []
    fm = scenario.failures
    model_default = {f.name: f.default for f in dataclasses.fields(type(fm))}
    cat_default = {f.name: f.default for f in dataclasses.fields(Category)}
    notes = []
    for name, value in _physics_point(phys).items():
        if name not in _PER_CATEGORY_POINT:
            x = getattr(fm, name)
            if x != model_default[name] and x != value:
                why = (
                    f"the posterior's rates hold at fleet age {value:g} h "
                    "(posterior.attrs['fleet_age_hours']), with its per-draw trend_shape"
                    if name == "fleet_age_hours"
                    else f"the posterior's per-draw {name} replaces it"
                )
                notes.append(f"failures.{name} = {x:g} is not used: {why}")
            continue
        odd = []
        if name == "bad_node_multiplier":  # the model's multiplier, for categories without one
            # the categories without one the posterior replaces it for, and those (it lacks)
            # that read it
            inherit = [
                c
                for c, v in zip(fm.categories, value, strict=True)
                if c.bad_node_multiplier is None and float(v) != fm.bad_node_multiplier
            ]
            read = [
                c.name
                for c, v in zip(fm.categories, value, strict=True)
                if c.bad_node_multiplier is None and float(v) == fm.bad_node_multiplier
            ]
            if fm.bad_node_multiplier != model_default[name] and inherit:
                if read:
                    notes.append(
                        f"failures.bad_node_multiplier = {fm.bad_node_multiplier:g} applies only "
                        f"to {', '.join(repr(n) for n in read)}, which the posterior lacks: its "
                        f"per-draw bad_node_multiplier replaces it for "
                        f"{', '.join(repr(c.name) for c in inherit)}"
                    )
                else:
                    odd.append(f"failures.bad_node_multiplier = {fm.bad_node_multiplier:g}")
        odd += [
            f"failures.categories[{c.name!r}].{name} = {getattr(c, name):g}"
            for c, v in zip(fm.categories, value, strict=True)
            if getattr(c, name) not in (cat_default[name], float(v))
        ]
        if odd:
            verb, pron = ("is", "it") if len(odd) == 1 else ("are", "them")
            notes.append(
                f"{', '.join(odd)} {verb} not used: the posterior's per-draw {name} replaces {pron}"
            )
    return notes
