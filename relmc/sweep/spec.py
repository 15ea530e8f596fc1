"""Sweep specs: the grid, its posterior source, n_trials and seed; validated in full up front.

A :class:`SweepSpec` is built from a TOML file (layout in :mod:`relmc.sweep`) or a mapping. On
construction it checks every field and builds every cell's scenario, so bad input fails before
any work starts and before any file is written. Its :meth:`SweepSpec.canonical` form (and that
form's SHA-256) identifies the numbers a store holds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import tomllib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from relmc.errors import FieldError, UnreadFieldWarning, bound_text

__all__ = ["SlurmOptions", "SweepSpec", "load_spec", "resolve_store", "spec_template"]

SPEC_FORMAT = 1
"""Version of the canonical spec layout (part of the spec's hash)."""

DONE = "done"
CHECKSUM = "cell_checksum"
#: the most cells one sweep may have (the store holds a file per cell per variable)
MAX_CELLS = 100_000
DEFAULT_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
DEFAULT_N_DRAWS = 2000  # draws of a conjugate posterior when a spec gives none

# Allow-lists for everything that reaches an #SBATCH line. #SBATCH values are read by sbatch,
# not a shell, but a newline or quote could still start a new line or option; these patterns
# admit neither whitespace nor quotes nor shell metacharacters.
_PARTITION_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}(,[A-Za-z0-9_.-]{1,64})*$")
_ACCOUNT_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_JOB_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
# Slurm time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S
_TIME_RE = re.compile(
    r"^(\d{1,4}|\d{1,4}:\d{1,2}|\d{1,4}:\d{1,2}:\d{1,2}|\d{1,3}-\d{1,2}(:\d{1,2}){0,2})$"
)
_EXTRA_RE = re.compile(r"^--?[A-Za-z][A-Za-z0-9-]*(=[A-Za-z0-9_.,:=/@%+-]+)?$")

_TOP_KEYS = (
    "seed",
    "n_trials",
    "posterior",
    "n_draws",
    "keep_trials",
    "quantiles",
    "store",
    "base",
    "axes",
    "slurm",
    "precision",
)


@dataclass(frozen=True)
class SlurmOptions:
    """How ``submit`` asks Slurm for resources (none of this changes the results).

    Parameters
    ----------
    array : int
        Array tasks (= shards), 1 to 100,000.
    partition, account : str, optional
        Slurm partition(s) (comma-separated) and account; letters, digits, ``_ . -`` only.
    time : str, optional
        Time limit per task in a Slurm format (``MM``, ``HH:MM:SS``, ``D-HH:MM`` ...).
    cpus_per_task : int
        CPUs per task; each task simulates with that many threads.
    max_parallel : int, optional
        At most this many array tasks at once (``--array=0-N%M``).
    job_name : str
        ``--job-name``.
    extra : tuple of str
        Further ``#SBATCH`` options, each one ``--option`` or ``--option=value`` without spaces
        or quotes (e.g. ``"--mem=4G"``, ``"--qos=normal"``).
    python : str, optional
        Python executable the tasks run; default: the submitting interpreter.
    """

    array: int = 1
    partition: str | None = None
    account: str | None = None
    time: str | None = None
    cpus_per_task: int = 1
    max_parallel: int | None = None
    job_name: str = "relmc-sweep"
    extra: tuple[str, ...] = ()
    python: str | None = None

    def __post_init__(self) -> None:
        _check_int("slurm.array", self.array, 1, 100_000)
        _check_int("slurm.cpus_per_task", self.cpus_per_task, 1, 4096)
        if self.max_parallel is not None:
            _check_int("slurm.max_parallel", self.max_parallel, 1, 100_000)
        for name, value, regex, what in (
            ("slurm.partition", self.partition, _PARTITION_RE, "letters, digits, _ . - and ,"),
            ("slurm.account", self.account, _ACCOUNT_RE, "letters, digits, _ . -"),
            ("slurm.time", self.time, _TIME_RE, "a Slurm time such as 30, 02:00:00 or 1-12:00"),
            ("slurm.job_name", self.job_name, _JOB_NAME_RE, "letters, digits, _ . -"),
        ):
            if value is None and name != "slurm.job_name":
                continue
            if not isinstance(value, str) or not regex.fullmatch(value):
                raise FieldError(
                    name, f"{name} must be {what} (no spaces or shell characters); got {value!r}"
                )
        if isinstance(self.extra, str) or not isinstance(self.extra, Sequence):
            raise FieldError(
                "slurm.extra", f"slurm.extra must be a list of strings; got {self.extra!r}"
            )
        object.__setattr__(self, "extra", tuple(self.extra))
        for line in self.extra:
            if not isinstance(line, str) or not _EXTRA_RE.fullmatch(line):
                raise FieldError(
                    "slurm.extra",
                    "slurm.extra entries must be one sbatch option like '--mem=4G' (letters, "
                    f"digits and _ . , : = / @ % + - only, no spaces or quotes); got {line!r}",
                )
        if self.python is not None and (
            not isinstance(self.python, str) or not self.python or "\n" in self.python
        ):
            raise FieldError(
                "slurm.python",
                f"slurm.python must be a path to a Python executable; got {self.python!r}",
            )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SlurmOptions:
        """Build from the spec's ``[slurm]`` table; unknown keys raise ``ValueError``."""
        if not isinstance(d, Mapping):
            raise ValueError(f"slurm must be a table; got {d!r}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"slurm: unknown keys {unknown}; known: {sorted(known)}")
        return cls(**dict(d))


@dataclass(frozen=True)
class SweepSpec:
    """A grid of scenarios to simulate; validated in full on construction.

    Parameters
    ----------
    axes : sequence of (str, sequence)
        ``(dotted scenario field, values)`` pairs, in dim order; e.g.
        ``[("cluster.n_gpus", [16384, 131072]), ("policy.restart_hours", [0.1, 0.5])]``.
        Values are numbers, strings or booleans; none empty, no duplicates. No two axes may set
        one field (a ``*`` category path and a category's own path of that field, say). A
        number is held as the field holds it (``1`` on a float field is ``1.0``), so ``[1, 2]``
        and ``[1.0, 2.0]`` are one spec.
    seed : int
        Root seed, >= 0.
    n_trials : int
        Simulated jobs per cell, >= 2 (standard errors need two).
    base : mapping, optional
        Overrides of ``Scenario.default().to_dict()`` (nested like it). With a posterior,
        the cluster shape its fit recorded is the default cluster's
        (:func:`relmc.rates.fit_shape`); with a posterior whose categories are not the
        default's (Llama 3's), its categories (and the fit's recorded maintenance) are the
        default failure model instead; with any posterior,
        ``failures.categories`` tables that name its categories change them and straggler
        or SDC tables of new names are added (:meth:`relmc.FailureModel.with_tables`).
    posterior : str
        ``"point"`` (the scenario's own rates), ``"conjugate:DATASET"`` (a conjugate fit of a
        bundled dataset, drawn from the root seed) or a path to a netCDF ``InferenceData``
        with ``posterior["rate"]`` (relative paths are relative to ``root``).
    n_draws : int, optional
        Draws of a conjugate posterior (default 2000). A posterior file's draws are all used,
        and ``"point"`` has none: given with either, it is not read
        (:class:`~relmc.errors.UnreadFieldWarning` from :meth:`from_dict` and
        :meth:`from_toml`, where a spec's file gives it).
    keep_trials : bool
        Also store the per-trial variables (dim ``trial``).
    quantiles : sequence of float
        Quantile levels of the summaries, strictly increasing in [0, 1].
    store : str, optional
        Default store path (relative to ``root``).
    slurm : SlurmOptions or mapping
        Options for :func:`submit`.
    precision : relmc.Precision or mapping, optional
        Adaptive precision per cell (a ``[precision]`` table: ``target_se``, ``target_rse``,
        ``hopeless_ettr``, ``min_trials``): ``n_trials`` becomes each cell's budget, and a cell
        stops once its ETTR standard error meets the target or it is hopeless. The cube then
        records ``n_trials`` and ``stopped_code`` per cell. Not with ``keep_trials``.
    root : str, optional
        Directory that relative paths are resolved against (the spec file's folder).
    """

    axes: tuple[tuple[str, tuple[Any, ...]], ...]
    seed: int
    n_trials: int = 1000
    base: Mapping[str, Any] = field(default_factory=dict)
    posterior: str = "point"
    n_draws: int = DEFAULT_N_DRAWS
    keep_trials: bool = False
    quantiles: tuple[float, ...] = DEFAULT_QUANTILES
    store: str | None = None
    slurm: SlurmOptions = field(default_factory=SlurmOptions)
    root: str | None = None
    precision: Any = None

    def __post_init__(self) -> None:
        # stored back as plain ints: NumPy integers pass the check but are no JSON numbers
        object.__setattr__(self, "seed", _check_int("seed", self.seed, 0, None))
        object.__setattr__(self, "n_trials", _check_int("n_trials", self.n_trials, 2, 100_000_000))
        object.__setattr__(self, "n_draws", _check_int("n_draws", self.n_draws, 1, 10_000_000))
        if not isinstance(self.keep_trials, bool):
            raise FieldError(
                "keep_trials", f"keep_trials must be true or false; got {self.keep_trials!r}"
            )
        q = self.quantiles
        if isinstance(q, str) or not isinstance(q, Sequence) or not q:
            raise FieldError(
                "quantiles", f"quantiles must be a non-empty list of numbers in [0, 1]; got {q!r}"
            )
        q = tuple(q)
        if not all(_is_number(v) and 0 <= v <= 1 for v in q) or any(
            b <= a for a, b in zip(q, q[1:], strict=False)
        ):
            raise FieldError(
                "quantiles",
                f"quantiles must be strictly increasing numbers in [0, 1]; got {list(q)!r}",
            )
        object.__setattr__(self, "quantiles", tuple(float(v) for v in q))
        if not isinstance(self.posterior, str) or not self.posterior:
            raise FieldError(
                "posterior",
                "posterior must be 'point', 'conjugate:DATASET' or a netCDF path; "
                f"got {self.posterior!r}",
            )
        if self.store is not None and (not isinstance(self.store, str) or not self.store):
            raise FieldError("store", f"store must be a path; got {self.store!r}")
        if isinstance(self.slurm, Mapping):
            object.__setattr__(self, "slurm", SlurmOptions.from_dict(self.slurm))
        if not isinstance(self.slurm, SlurmOptions):
            raise ValueError(f"slurm must be a table of Slurm options; got {self.slurm!r}")
        if not isinstance(self.base, Mapping):
            raise ValueError(f"base must be a table of scenario fields; got {self.base!r}")
        object.__setattr__(self, "precision", _check_precision(self.precision))
        if self.precision is not None and self.keep_trials:
            raise FieldError(
                "keep_trials",
                "keep_trials cannot be combined with precision (cells would hold different "
                "numbers of trials); drop one of them",
            )
        object.__setattr__(self, "axes", _check_axes(self.axes))
        n_cells = math.prod(len(v) for _, v in self.axes)
        if n_cells > MAX_CELLS:  # before building a scenario per cell
            raise FieldError(
                "axes",
                f"axes: the grid has {n_cells:,} cells; at most {MAX_CELLS:,} are allowed (each "
                "cell is one simulation and a file per variable in the store); split the sweep",
            )
        # build every cell's scenario now, so that any bad value fails before work starts
        fitted, shape = _source_model(self.posterior, self.root)
        base = _base_scenario(self.base, fitted, shape)
        if fitted is not None:
            _check_rate_axes(self.axes, fitted.names)
        object.__setattr__(self, "_base_scenario", base)
        _check_overlapping_axes(base, self.axes)
        scenarios = _cell_scenarios(base, self.axes)
        # each number as the scenario holds it (1 -> 1.0 for a float field): equal scenarios,
        # equal spec identity and cube labels
        object.__setattr__(self, "axes", _typed_axes(self.axes, scenarios))
        object.__setattr__(self, "_scenarios", scenarios)
        # a cell's trials must fit in memory: refused now, before any store or file is written
        check_cell_memory(self)

    def __getstate__(self) -> dict[str, Any]:
        # ship the spec without its cell scenarios (rebuilt one at a time where needed)
        return {k: v for k, v in self.__dict__.items() if k != "_scenarios"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, root: str | os.PathLike | None = None) -> SweepSpec:
        """Build a spec from a TOML-like mapping (the layout in the module docstring)."""
        if not isinstance(d, Mapping):
            raise ValueError(f"a sweep spec must be a table; got {type(d).__name__}")
        unknown = sorted(set(d) - set(_TOP_KEYS))
        if unknown:
            from relmc.scenario import field_suggestion

            hints = [(k, field_suggestion(k, set(_TOP_KEYS))) for k in unknown]
            hint = "; ".join(f"did you mean {f[0]!r} for {k!r}?" for k, f in hints if f)
            raise ValueError(
                f"sweep spec: unknown keys {unknown}{f' ({hint})' if hint else ''}; "
                f"known: {list(_TOP_KEYS)}"
            )
        if "seed" not in d:
            raise ValueError("sweep spec: 'seed' (an integer >= 0) is required")
        if "axes" not in d:
            raise ValueError("sweep spec: an [axes] table is required")
        axes = d["axes"]
        if not isinstance(axes, Mapping):
            raise ValueError(f"axes must be a table of 'dotted.field' = [values]; got {axes!r}")
        kwargs = {k: v for k, v in d.items() if k != "axes"}
        if "quantiles" in kwargs and isinstance(kwargs["quantiles"], list):
            kwargs["quantiles"] = tuple(kwargs["quantiles"])
        spec = cls(
            axes=tuple(axes.items()),
            root=None if root is None else str(Path(root).resolve()),
            **kwargs,
        )
        kind = _posterior_kind(spec.posterior)[0]
        if "n_draws" in d and kind != "conjugate":
            # the spec's identity has no n_draws then: a store made with it or without is one
            what = "a posterior file's draws are all used" if kind == "netcdf" else "it has none"
            warnings.warn(
                f"n_draws = {spec.n_draws} is not read: it sets the draws of a conjugate "
                f"posterior, and the posterior is {spec.posterior!r} ({what}); remove it",
                UnreadFieldWarning,
                stacklevel=2,
            )
        return spec

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> SweepSpec:
        """Read a spec from a TOML file; relative paths in it are relative to its folder."""
        from relmc._io import read_text

        p = Path(path)
        text = read_text(p, "sweep spec")
        try:
            d = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"sweep spec {str(p)!r} is not valid TOML: {e}") from e
        return cls.from_dict(d, root=p.resolve().parent)

    # -- geometry ----------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """Number of values along each axis."""
        return tuple(len(v) for _, v in self.axes)

    @property
    def n_cells(self) -> int:
        """Number of cells (scenarios) in the grid."""
        return math.prod(self.shape)

    @property
    def paths(self) -> tuple[str, ...]:
        """Dotted scenario field of each axis."""
        return tuple(p for p, _ in self.axes)

    @property
    def dims(self) -> tuple[str, ...]:
        """Dim name of each axis: the field's last component, else the full path.

        The full path where two axes share a last component or it is a name the cube uses
        itself (``unit``, ``category``, ``trial`` ...; ``_RESERVED_DIMS``).
        """
        leaves = [p.rsplit(".", 1)[-1] for p in self.paths]
        return tuple(
            leaf if leaves.count(leaf) == 1 and leaf not in _RESERVED_DIMS else path
            for leaf, path in zip(leaves, self.paths, strict=True)
        )

    def cell_index(self, flat: int) -> tuple[int, ...]:
        """Multi-index (one position per axis) of flat cell ``flat`` (C order)."""
        return tuple(int(i) for i in np.unravel_index(flat, self.shape))

    def cell_values(self, flat: int) -> dict[str, Any]:
        """``{dotted field: value}`` of cell ``flat``."""
        idx = self.cell_index(flat)
        return {p: v[i] for (p, v), i in zip(self.axes, idx, strict=True)}

    def scenario(self, flat: int):
        """Return the validated :class:`~relmc.scenario.Scenario` of cell ``flat``."""
        cached = self.__dict__.get("_scenarios")
        if cached is not None:
            return cached[flat]
        from relmc.scenario import replace_path

        s = self.__dict__["_base_scenario"]
        for path, value in self.cell_values(flat).items():
            s = replace_path(s, path, value)
        return s

    @property
    def base_scenario(self):
        """The base scenario (defaults + ``base`` overrides), before any axis is applied."""
        return self.__dict__["_base_scenario"]

    # -- identity ----------------------------------------------------------------------------

    def posterior_identity(self) -> str | dict[str, str]:
        """Return what identifies the posterior: its source string, or a file's SHA-256."""
        kind, arg = _posterior_kind(self.posterior)
        if kind == "netcdf":
            path = self.posterior_path()
            return {"netcdf_sha256": _sha256_file(path)}
        return self.posterior

    def posterior_path(self) -> Path:
        """Absolute path of a netCDF posterior source."""
        p = Path(self.posterior)
        if not p.is_absolute() and self.root is not None:
            p = Path(self.root) / p
        return p

    def canonical(self) -> dict[str, Any]:
        """Everything that determines the cube's numbers, as a plain dict.

        Leaves out the store path and Slurm options (they change where and how, not what), and
        includes the fully resolved base scenario, so a change in relmc's defaults shows up.
        """
        base = self.base_scenario.to_dict()
        for cat in base["failures"]["categories"]:
            for name, default in _LATER_DEFAULTS.items():
                if cat.get(name) == default:
                    del cat[name]
        return {
            "format": SPEC_FORMAT,
            "base": base,
            "axes": [[p, list(v)] for p, v in self.axes],
            "posterior": self.posterior_identity(),
            "n_draws": self.n_draws if _posterior_kind(self.posterior)[0] == "conjugate" else None,
            "n_trials": self.n_trials,
            "seed": self.seed,
            "keep_trials": self.keep_trials,
            "quantiles": list(self.quantiles),
            # only when set, so the identity of a spec without it is unchanged
            **(
                {"precision": dataclasses.asdict(self.precision)}
                if self.precision is not None
                else {}
            ),
        }

    def canonical_json(self) -> str:
        """Canonical JSON (sorted keys, no whitespace) of :meth:`canonical`."""
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"), allow_nan=False)

    def sha256(self) -> str:
        """SHA-256 of :meth:`canonical_json`: the store's identity."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()

    def default_store(self) -> Path | None:
        """Return the spec's ``store`` resolved against ``root`` (None if not set)."""
        if self.store is None:
            return None
        p = Path(self.store)
        if not p.is_absolute() and self.root is not None:
            p = Path(self.root) / p
        return p


# names that the cube uses itself (dims, coords, per-cell and per-trial variables that are
# not summaries); an axis leaf with one of these names keeps its full path (which has a dot,
# so it never clashes). "unit" is the category coord's unit; "draw" a kept trial's draw.
_RESERVED_DIMS = frozenset(
    {
        "trial",
        "category",
        "cause",
        "quantile",
        "unit",
        "draw",
        "n_trials",
        "stopped_code",
        "checkpoint_interval_hours",
        DONE,
        CHECKSUM,
    }
)


def _check_precision(value: Any):
    """Return ``value`` as a :class:`relmc.Precision` (from a table), or None."""
    from relmc.sim.simulate import Precision

    if value is None or isinstance(value, Precision):
        return value
    if not isinstance(value, Mapping):
        raise FieldError("precision", f"precision must be a table; got {value!r}")
    known = {f.name for f in dataclasses.fields(Precision)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise FieldError("precision", f"precision: unknown keys {unknown}; known: {sorted(known)}")
    return Precision(**dict(value))


def check_cell_memory(spec: SweepSpec, at_once: int = 1) -> None:
    """Refuse (``FieldError`` on ``n_trials``) cells whose trials cannot fit in memory.

    :func:`relmc._io.check_trial_memory` for the spec's ``n_trials`` (with ``precision``: the
    budget) and the base scenario's failure categories (axes change fields of categories,
    never their number, so every cell has as many), ``at_once`` cells held at the same time
    (parallel worker processes). :class:`SweepSpec` checks one cell on construction;
    :func:`relmc.sweep.run_sweep` checks again for its local workers.
    """
    from relmc._io import check_trial_memory

    n_categories = len(spec.base_scenario.failures.categories)
    check_trial_memory(spec.n_trials, n_categories, field="n_trials", at_once=at_once)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def _check_int(name: str, value: Any, lo: int, hi: int | None) -> int:
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not ok or value < lo or (hi is not None and value > hi):
        rng = f"in [{lo}, {bound_text(hi)}]" if hi is not None else f">= {lo}"
        raise FieldError(name, f"{name} must be an integer {rng}; got {value!r}")
    return int(value)


def _check_axes(axes: Any) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if isinstance(axes, Mapping):
        axes = tuple(axes.items())
    if isinstance(axes, str) or not isinstance(axes, Iterable):
        raise ValueError(f"axes must be (field, values) pairs; got {axes!r}")
    out = []
    seen_paths = set()
    for item in axes:
        if not (isinstance(item, tuple | list) and len(item) == 2):
            raise ValueError(f"axes: each axis is a (field, values) pair; got {item!r}")
        path, values = item
        if not isinstance(path, str) or "." not in path:
            raise ValueError(f"axes: the field must be a dotted scenario path; got {path!r}")
        if path in seen_paths:
            raise ValueError(f"axes: field {path!r} appears twice")
        seen_paths.add(path)
        if isinstance(values, str) or not isinstance(values, Sequence):
            raise ValueError(f"axes[{path!r}] must be a list of values; got {values!r}")
        if len(values) == 0:
            raise ValueError(f"axes[{path!r}] is empty; give at least one value")
        keys = set()
        for v in values:
            key: tuple[str, Any]
            if isinstance(v, bool):
                key = ("bool", v)
            elif _is_number(v):
                if not math.isfinite(float(v)):
                    raise ValueError(f"axes[{path!r}]: values must be finite; got {v!r}")
                key = ("num", float(v))
            elif isinstance(v, str):
                key = ("str", v)
            else:
                raise ValueError(
                    f"axes[{path!r}]: values must be numbers, strings or booleans; got {v!r}"
                )
            if key in keys:
                raise ValueError(f"axes[{path!r}]: duplicate value {v!r}")
            keys.add(key)
        out.append((path, tuple(v.item() if isinstance(v, np.generic) else v for v in values)))
    if not out:
        raise ValueError(
            "axes: at least one axis is required (use relmc.simulate for one scenario)"
        )
    return tuple(out)


def _merge(
    default: Mapping[str, Any],
    over: Mapping[str, Any],
    where: str,
    names: Mapping[str, set[str]] | None = None,
) -> dict[str, Any]:
    """``default`` with ``over``'s values, table by table; an unknown field is an error.

    ``names``: every field of a table under its key (``{"policy": {...}}``), for the
    suggestion and the list of an unknown field's error, where ``default`` leaves out fields
    that default to ``None`` (``policy.n_spares``).
    """
    out = dict(default)
    for k, v in over.items():
        if k not in default:
            from relmc.scenario import field_suggestion

            known = set(default) | set((names or {}).get("", ()))
            found = field_suggestion(k, known)
            hint = f" (did you mean {where}{found[0]}{found[1]}?)" if found else ""
            raise ValueError(f"{where}{k}: unknown field{hint}; known: {sorted(known)}")
        if isinstance(default[k], Mapping) and isinstance(v, Mapping):
            inner = {"": names[k]} if names and k in names else None
            out[k] = _merge(default[k], v, f"{where}{k}.", inner)
        else:
            out[k] = v
    return out


#: Category fields added after the spec format was fixed: at these defaults they are left out
#: of a spec's identity, so a store made before them still resumes (its numbers are the same).
_LATER_DEFAULTS = {"rate_multiplier": 1.0}


def _source_model(source: str, root: str | None):
    """Return the failure model and cluster shape a posterior source implies (no draws).

    ``"conjugate:DATASET"``: the dataset's point model (:meth:`FailureModel.from_counts`)
    and recorded shape; a netCDF path: :meth:`FailureModel.from_posterior` of it and the
    shape the fit recorded (:func:`relmc.rates.fit_shape`). ``"point"``, or a source
    :func:`relmc.rates.posterior_from_source` will refuse, gives ``(None, None)``; a shape
    not recorded is None.
    """
    from relmc.cluster import recorded_shape
    from relmc.rates import fit_shape
    from relmc.scenario import FailureModel

    if source.startswith("conjugate:"):
        from relmc.datasets import list_datasets, load_dataset

        name = source.split(":", 1)[1]
        if name not in list_datasets():
            return None, None
        data = load_dataset(name)
        try:
            return FailureModel.from_counts(data), recorded_shape(data.attrs)
        except ValueError as e:  # e.g. units that do not scale with a cluster (pumps)
            raise FieldError("posterior", f"posterior: {source!r} cannot be simulated: {e}") from e
    if source == "point":
        return None, None
    path = Path(source)
    if root is not None and not path.is_absolute():
        path = Path(root) / path
    if not path.is_file():
        return None, None
    import arviz as az

    try:
        idata = az.from_netcdf(str(path))
        return FailureModel.from_posterior(idata), fit_shape(idata)
    except (OSError, KeyError, ValueError):
        return None, None  # refused with its reason where the rates are read


def _check_rate_axes(axes, fitted_names) -> None:
    """Refuse an axis over the rate of a category a posterior gives (it would change nothing)."""
    from relmc.scenario import category_path

    for path, _ in axes:
        parts = category_path(path)
        if parts is not None and parts[1] == "rate" and parts[0] in ("*", *fitted_names):
            raise FieldError(
                "axes",
                f"axes: {path!r}: the posterior gives this category's rate in every cell, so "
                f"the axis would change nothing; sweep failures.categories.{parts[0]}."
                "rate_multiplier instead",
            )


def _base_scenario(base: Mapping[str, Any], fitted=None, shape=None):
    from relmc.cluster import shape_attrs
    from relmc.scenario import Scenario

    start = Scenario.default()  # read once: it loads the bundled Llama 3 data
    default = start.to_dict()
    if shape is not None:  # the fit's cluster shape, where [base.cluster] gives none
        default["cluster"] = {**default["cluster"], **shape_attrs(shape)}
    if fitted is not None:
        model = start.failures
        if fitted.names != model.names:
            model = fitted
            default["failures"] = Scenario(failures=fitted).to_dict()["failures"]
        given = base.get("failures")
        if isinstance(given, Mapping) and "categories" in given:
            try:
                layered = model.with_tables(given)
            except FieldError as e:
                raise FieldError(f"base.{e.field}", f"base: {e}") from e
            if layered is not given:  # the fit's categories, changed and added to
                layered = dict(layered)
                layered["categories"] = [
                    c if isinstance(c, Mapping) else dataclasses.asdict(c)
                    for c in layered["categories"]
                ]
                base = {**base, "failures": layered}
    elif isinstance(base.get("failures"), Mapping) and "categories" in base["failures"]:
        # point rates with categories of the spec's own: the failures table is read as
        # relmc simulate reads one, its other fields from their defaults (no planned
        # maintenance unless it says so), not from Llama 3's
        from relmc.scenario import FailureModel

        default["failures"] = {
            **{f.name: f.default for f in dataclasses.fields(FailureModel)},
            "categories": default["failures"]["categories"],  # replaced by the spec's
        }
    # optional fields that to_dict leaves out when None (e.g. policy.n_spares) are still allowed
    known_none = {
        sec: {f.name for f in dataclasses.fields(type(getattr(start, sec)))}
        for sec in ("cluster", "job", "policy")
    }
    over = {}
    for sec, v in base.items():
        if sec in known_none and isinstance(v, Mapping):
            extra = {k: x for k, x in v.items() if k in known_none[sec] and k not in default[sec]}
            rest = {k: x for k, x in v.items() if k not in extra}
            over[sec] = rest
            default[sec] = {**default[sec], **extra}
        else:
            over[sec] = v
    merged = _merge(default, over, "base.", known_none)
    try:
        return Scenario.from_dict(merged)
    except (TypeError, ValueError) as e:
        field = f"base.{e.field}" if isinstance(e, FieldError) else "base"
        raise FieldError(field, f"base: {e}") from e


def _axis_fields(base, path: str) -> set[tuple[str, ...]]:
    """Return the scenario fields an axis sets: ``(section, field)``, ``(category, NAME, field)``.

    ``*`` stands for every category of ``base``; an unknown category is left to
    :func:`relmc.scenario.replace_path` to refuse.
    """
    from relmc.scenario import category_path

    parts = category_path(path)
    if parts is None:
        return {tuple(path.split(".", 1))}
    name, fld = parts
    names = base.failures.names if name == "*" else (name,)
    return {("category", str(n), fld) for n in names}


def _check_overlapping_axes(base, axes) -> None:
    """Refuse two axes that set one field (a ``*`` path and a category's own, say).

    Both would be applied to each cell and the later one would win, so the earlier axis's
    labels would change nothing.
    """
    seen: dict[tuple[str, ...], str] = {}
    for path, _ in axes:
        for key in sorted(_axis_fields(base, path)):
            other = seen.get(key)
            if other is not None and other != path:
                what = f"{key[2]} of category {key[1]!r}" if key[0] == "category" else ".".join(key)
                raise FieldError(
                    "axes",
                    f"axes: {other!r} and {path!r} both set {what}; one axis would override "
                    "the other and its values would change nothing: keep one of them (or "
                    "name each category's own field instead of '*')",
                )
            seen[key] = path


def _field_value(scenario, path: str) -> Any:
    """Return the value of the field at dotted ``path`` in ``scenario`` (``*``: first category)."""
    from relmc.scenario import category_path

    parts = category_path(path)
    if parts is None:
        section, rest = path.split(".", 1)
        return getattr(getattr(scenario, section), rest)
    name, fld = parts
    cats = scenario.failures.categories
    if name != "*":
        cats = [c for c in cats if c.name == name]
    return getattr(cats[0], fld) if cats else None


def _typed_axes(axes, cells: list) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """Each axis number as the cells' scenarios hold it: ``1`` becomes ``1.0`` on a float field.

    The spec's identity and the cube's labels then follow the scenarios, so ``[1, 2]`` and
    ``[1.0, 2.0]`` are one spec. A value is read from a cell that holds it (``cells`` in C
    order, the last axis fastest; its other axes at their first values), so a value valid
    only beside another axis's (a persist time within a longer checkpoint interval) is typed
    too. A value the field does not hold as an equal number (a rule name) stays as given.
    """
    out = []
    stride = len(cells)
    for path, values in axes:
        stride //= len(values)
        typed = []
        for j, v in enumerate(values):
            if _is_number(v):
                held = _field_value(cells[j * stride], path)
                if _is_number(held) and type(held) in (int, float) and held == v:
                    v = held
            typed.append(v)
        out.append((path, tuple(typed)))
    return tuple(out)


def _cell_scenarios(base, axes) -> list:
    from relmc.scenario import replace_path

    # one pass per axis: apply each value once, then combine (C order, last axis fastest)
    level = [base]
    for path, values in axes:
        nxt = []
        for s in level:
            for v in values:
                try:
                    nxt.append(replace_path(s, path, v))
                except (TypeError, ValueError) as e:
                    raise FieldError(f"axes.{path}", f"axes[{path!r}] = {v!r}: {e}") from e
        level = nxt
    return level


def load_spec(spec: SweepSpec | Mapping[str, Any] | str | os.PathLike) -> SweepSpec:
    """Return a validated :class:`SweepSpec` from a spec, a mapping or a TOML file path."""
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, Mapping):
        return SweepSpec.from_dict(spec)
    if isinstance(spec, str | os.PathLike):
        return SweepSpec.from_toml(spec)
    raise ValueError(f"spec must be a SweepSpec, a mapping or a TOML path; got {spec!r}")


def _posterior_kind(source: str) -> tuple[str, str]:
    if source == "point":
        return "point", ""
    if source.startswith("conjugate:"):
        return "conjugate", source.split(":", 1)[1]
    return "netcdf", source


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except FileNotFoundError as e:
        raise ValueError(
            "posterior must be 'point', 'conjugate:DATASET' or an existing netCDF file; "
            f"{str(path)!r} does not exist"
        ) from e
    except IsADirectoryError as e:
        raise ValueError(
            "posterior must be 'point', 'conjugate:DATASET' or an existing netCDF file; "
            f"{str(path)!r} is a directory, not a file"
        ) from e
    except OSError as e:
        raise ValueError(f"posterior: cannot read {str(path)!r}: {e}") from e
    return h.hexdigest()


def resolve_store(spec: SweepSpec, store: str | os.PathLike | None) -> Path:
    """Absolute store path: ``store``, else the spec's ``store``; ``ValueError`` if neither."""
    from relmc.sweep.store import store_path

    if store is None:
        store = spec.default_store()
        if store is None:
            raise ValueError(
                "no store given: pass store=... (CLI --store) or set 'store' in the spec"
            )
    return store_path(store)


def spec_template(path: str | os.PathLike = "sweep.toml") -> str:
    """Return the commented template sweep spec that ``relmc sweep init`` writes.

    The text is package data (``relmc/templates/sweep.toml``, read with
    :mod:`importlib.resources`), so an installed relmc writes it without the repository.

    Parameters
    ----------
    path : str or path-like
        Where the spec will be written; its name appears in the template's usage comments and
        its stem names the default store (``sweep.toml`` -> ``store = "sweep.zarr"``).

    Returns
    -------
    str
        A spec that :func:`load_spec` accepts as it is.
    """
    import string
    from importlib.resources import files

    p = Path(path)
    text = files("relmc").joinpath("templates", "sweep.toml").read_text(encoding="utf-8")
    store = (p.stem or "sweep") + ".zarr"  # beside the spec (the spec's paths are relative to it)
    return string.Template(text).substitute(
        spec=str(p), store=store, store_path=str(p.with_name(store))
    )
