"""Sweeps: grids of scenarios → one labelled, resumable zarr cube; local, Dask or Slurm.

A *sweep spec* names a base scenario, grid axes over any dotted scenario field, a posterior
source, trials per cell and a root seed. Every cell of the grid is one :func:`relmc.simulate`
call, summarised (means, Monte Carlo standard errors, quantiles, interruptions per day, lost
hours by cause) and written into its own region of a zarr store that is created up front with
all coordinates. A TOML spec looks like::

    seed = 2026                      # root seed (required)
    trials = 2000                    # trials per cell
    posterior = "conjugate:llama3-405b"  # or "point", or a netCDF InferenceData path
    n_draws = 2000           # draws of a conjugate posterior
    keep_trials = false              # also store per-trial data
    quantiles = [0.05, 0.5, 0.95]
    store = "sweep.zarr"             # relative to the spec file; CLI --store overrides

    [base]                           # overrides of Scenario.default().to_dict()
    job.compute_hours = 1296

    [axes]                           # dims of the cube, in this order
    "cluster.n_gpus" = [16384, 65536, 131072]
    "policy.checkpoint_interval" = [0.25, 0.5, "young"]

    [slurm]                          # only for `submit`
    partition = "debug"
    time = "01:00:00"
    array = 4

Determinism
    Cell ``i`` (flat C-order index over the axes) is simulated with seed
    ``SeedSequence(seed, spawn_key=(i,))``; the conjugate posterior is drawn from
    ``SeedSequence(seed)`` itself. Results depend only on (spec, cell), never on how cells are
    spread over threads, processes, shards, Dask workers or Slurm array tasks, so the cube is
    bit-identical however it was run.
Sharding
    Shard ``s`` of ``k`` owns the cells ``s, s + k, s + 2k, ...`` (interleaved, so expensive
    large-cluster cells are spread over shards). Shards are disjoint, so two tasks never write
    the same cell; every cell's arrays are chunked one cell per chunk, so no two cells share a
    zarr chunk either.
Crash safety
    A cell's data variables are written first; its ``done`` flag (a bool array, one chunk per
    cell) is written last. zarr's local store writes every chunk to a temporary file and renames
    it into place, so a process killed at any moment (SIGKILL, preemption, a requeued Slurm task)
    leaves each chunk either old or new, and a cell counts as complete only after all of its
    data is in place. A rerun computes only the cells whose flag is unset. (A *machine* crash
    can still lose page-cache data that zarr has not fsync'ed; rerun after one.)

The store records the canonical spec (JSON) and its SHA-256 in its attrs; a run against a
store created by a different spec is refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tomllib
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

__all__ = [
    "SlurmOptions",
    "SweepSpec",
    "SweepStatus",
    "load_spec",
    "resolve_rates",
    "cell_seed",
    "shard_cells",
    "init_store",
    "run_sweep",
    "open_sweep",
    "status",
    "sbatch_script",
    "submit",
    "main",
]

SPEC_FORMAT = 1
"""Version of the canonical spec layout (part of the spec's hash)."""

ATTR_SPEC = "relmc_sweep_spec"
ATTR_HASH = "relmc_sweep_spec_sha256"
DONE = "done"
DEFAULT_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
_HOURS_PER_DAY = 24.0

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
    "trials",
    "posterior",
    "n_draws",
    "keep_trials",
    "quantiles",
    "store",
    "base",
    "axes",
    "slurm",
)


def _need_sweep_extra(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"relmc.sweep needs {module!r}, part of the 'sweep' extra: pip install 'relmc[sweep]'"
        ) from e


# --------------------------------------------------------------------------------------------
# Spec
# --------------------------------------------------------------------------------------------


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
                raise ValueError(
                    f"{name} must be {what} (no spaces or shell characters); got {value!r}"
                )
        if isinstance(self.extra, str) or not isinstance(self.extra, Sequence):
            raise ValueError(f"slurm.extra must be a list of strings; got {self.extra!r}")
        object.__setattr__(self, "extra", tuple(self.extra))
        for line in self.extra:
            if not isinstance(line, str) or not _EXTRA_RE.fullmatch(line):
                raise ValueError(
                    "slurm.extra entries must be one sbatch option like '--mem=4G' (letters, "
                    f"digits and _ . , : = / @ % + - only, no spaces or quotes); got {line!r}"
                )
        if self.python is not None and (
            not isinstance(self.python, str) or not self.python or "\n" in self.python
        ):
            raise ValueError(
                f"slurm.python must be a path to a Python executable; got {self.python!r}"
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
        Values are numbers, strings or booleans; none empty, no duplicates.
    seed : int
        Root seed, >= 0.
    trials : int
        Simulated jobs per cell, >= 2 (standard errors need two).
    base : mapping, optional
        Overrides of ``Scenario.default().to_dict()`` (nested like it).
    posterior : str
        ``"point"`` (the scenario's own rates), ``"conjugate:DATASET"`` (a conjugate fit of a
        bundled dataset, drawn from the root seed) or a path to a netCDF ``InferenceData``
        with ``posterior["rate"]`` (relative paths are relative to ``root``).
    n_draws : int
        Draws of a conjugate posterior.
    keep_trials : bool
        Also store the per-trial variables (dim ``trial``).
    quantiles : sequence of float
        Quantile levels of the summaries, strictly increasing in [0, 1].
    store : str, optional
        Default store path (relative to ``root``).
    slurm : SlurmOptions or mapping
        Options for :func:`submit`.
    root : str, optional
        Directory that relative paths are resolved against (the spec file's folder).
    """

    axes: tuple[tuple[str, tuple[Any, ...]], ...]
    seed: int
    trials: int = 1000
    base: Mapping[str, Any] = field(default_factory=dict)
    posterior: str = "point"
    n_draws: int = 2000
    keep_trials: bool = False
    quantiles: tuple[float, ...] = DEFAULT_QUANTILES
    store: str | None = None
    slurm: SlurmOptions = field(default_factory=SlurmOptions)
    root: str | None = None

    def __post_init__(self) -> None:
        _check_int("seed", self.seed, 0, None)
        _check_int("trials", self.trials, 2, 100_000_000)
        _check_int("n_draws", self.n_draws, 1, 10_000_000)
        if not isinstance(self.keep_trials, bool):
            raise ValueError(f"keep_trials must be true or false; got {self.keep_trials!r}")
        q = self.quantiles
        if isinstance(q, str) or not isinstance(q, Sequence) or not q:
            raise ValueError(f"quantiles must be a non-empty list of numbers in [0, 1]; got {q!r}")
        q = tuple(q)
        if not all(_is_number(v) and 0 <= v <= 1 for v in q) or any(
            b <= a for a, b in zip(q, q[1:], strict=False)
        ):
            raise ValueError(
                f"quantiles must be strictly increasing numbers in [0, 1]; got {list(q)!r}"
            )
        object.__setattr__(self, "quantiles", tuple(float(v) for v in q))
        if not isinstance(self.posterior, str) or not self.posterior:
            raise ValueError(
                "posterior must be 'point', 'conjugate:DATASET' or a netCDF path; "
                f"got {self.posterior!r}"
            )
        if self.store is not None and (not isinstance(self.store, str) or not self.store):
            raise ValueError(f"store must be a path; got {self.store!r}")
        if isinstance(self.slurm, Mapping):
            object.__setattr__(self, "slurm", SlurmOptions.from_dict(self.slurm))
        if not isinstance(self.slurm, SlurmOptions):
            raise ValueError(f"slurm must be a table of Slurm options; got {self.slurm!r}")
        if not isinstance(self.base, Mapping):
            raise ValueError(f"base must be a table of scenario fields; got {self.base!r}")
        object.__setattr__(self, "axes", _check_axes(self.axes))
        # build every cell's scenario now, so that any bad value fails before work starts
        base = _base_scenario(self.base)
        object.__setattr__(self, "_base_scenario", base)
        object.__setattr__(self, "_scenarios", _cell_scenarios(base, self.axes))

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
            raise ValueError(f"sweep spec: unknown keys {unknown}; known: {list(_TOP_KEYS)}")
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
        return cls(
            axes=tuple(axes.items()),
            root=None if root is None else str(Path(root).resolve()),
            **kwargs,
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> SweepSpec:
        """Read a spec from a TOML file; relative paths in it are relative to its folder."""
        p = Path(path)
        try:
            with p.open("rb") as f:
                d = tomllib.load(f)
        except FileNotFoundError as e:
            raise ValueError(f"sweep spec file not found: {str(p)!r}") from e
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
        """Dim name of each axis: the field's last component if unique, else the full path."""
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

        s = self._base_scenario
        for path, value in self.cell_values(flat).items():
            s = replace_path(s, path, value)
        return s

    @property
    def base_scenario(self):
        """The base scenario (defaults + ``base`` overrides), before any axis is applied."""
        return self._base_scenario

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
        return {
            "format": SPEC_FORMAT,
            "base": self.base_scenario.to_dict(),
            "axes": [[p, list(v)] for p, v in self.axes],
            "posterior": self.posterior_identity(),
            "n_draws": self.n_draws if _posterior_kind(self.posterior)[0] == "conjugate" else None,
            "trials": self.trials,
            "seed": self.seed,
            "keep_trials": self.keep_trials,
            "quantiles": list(self.quantiles),
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


# dims that the cube uses itself; an axis leaf with one of these names keeps its full path
_RESERVED_DIMS = frozenset({"trial", "category", "cause", "quantile", DONE})


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def _check_int(name: str, value: Any, lo: int, hi: int | None) -> int:
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not ok or value < lo or (hi is not None and value > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be an integer {rng}; got {value!r}")
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


def _merge(default: Mapping[str, Any], over: Mapping[str, Any], where: str) -> dict[str, Any]:
    out = dict(default)
    for k, v in over.items():
        if k not in default:
            raise ValueError(f"{where}{k}: unknown field; known: {sorted(default)}")
        if isinstance(default[k], Mapping) and isinstance(v, Mapping):
            out[k] = _merge(default[k], v, f"{where}{k}.")
        else:
            out[k] = v
    return out


def _base_scenario(base: Mapping[str, Any]):
    from relmc.scenario import Scenario

    default = Scenario.default().to_dict()
    # optional fields that to_dict leaves out when None (e.g. policy.n_spares) are still allowed
    known_none = {
        sec: {f.name for f in dataclasses.fields(type(getattr(Scenario.default(), sec)))}
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
    merged = _merge(default, over, "base.")
    try:
        return Scenario.from_dict(merged)
    except (TypeError, ValueError) as e:
        raise ValueError(f"base: {e}") from e


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
                    raise ValueError(f"axes[{path!r}] = {v!r}: {e}") from e
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


# --------------------------------------------------------------------------------------------
# Posterior sources
# --------------------------------------------------------------------------------------------


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
    except OSError as e:
        raise ValueError(f"posterior: cannot read {str(path)!r}: {e}") from e
    return h.hexdigest()


_RATES_CACHE: dict[tuple, Any] = {}


def _rates_key(spec: SweepSpec) -> tuple:
    return (spec.posterior, json.dumps(spec.posterior_identity()), spec.seed, spec.n_draws)


def resolve_rates(spec: SweepSpec):
    """Turn the spec's posterior source into the ``rates`` argument of :func:`relmc.simulate`.

    The one place that knows the sources: ``"point"`` → ``None`` (the scenario's own rates);
    ``"conjugate:DATASET"`` → ``fit_conjugate(load_dataset(DATASET))`` with
    ``n_draws`` draws from ``SeedSequence(seed)`` (cell seeds are its children
    ``spawn_key=(i,)``, so the streams never overlap); anything else → a netCDF
    ``InferenceData`` path. Cached per process.

    Returns
    -------
    None or xarray.DataArray
        Rate draws per unit-hour with a ``category`` dim.
    """
    kind, arg = _posterior_kind(spec.posterior)
    key = _rates_key(spec)
    if key in _RATES_CACHE:
        return _RATES_CACHE[key]
    if kind == "point":
        rates = None
    elif kind == "conjugate":
        from relmc.datasets import list_datasets, load_dataset
        from relmc.models import fit_conjugate

        if arg not in list_datasets():
            raise ValueError(
                f"posterior: unknown dataset {arg!r} in {spec.posterior!r}; "
                f"known: {list_datasets()}"
            )
        rng = np.random.default_rng(np.random.SeedSequence(spec.seed))
        idata = fit_conjugate(load_dataset(arg), draws=spec.n_draws, rng=rng)
        rates = idata.posterior["rate"].load()
    else:
        path = spec.posterior_path()
        if not path.is_file():
            raise ValueError(
                f"posterior must be 'point', 'conjugate:DATASET' or an existing netCDF file; "
                f"{str(path)!r} does not exist"
            )
        import arviz as az

        try:
            idata = az.from_netcdf(str(path))
            rates = idata.posterior["rate"].load()
        except Exception as e:  # arviz raises several types for a wrong file
            raise ValueError(
                f"posterior: {str(path)!r} is not an InferenceData with posterior['rate']: {e}"
            ) from e
    _RATES_CACHE[key] = rates
    return rates


# --------------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------------


def cell_seed(root_seed: int, flat: int) -> np.random.SeedSequence:
    """Seed of cell ``flat``: ``SeedSequence(root_seed, spawn_key=(flat,))``."""
    return np.random.SeedSequence(root_seed, spawn_key=(int(flat),))


def shard_cells(n_cells: int, shard: int = 0, shards: int = 1) -> range:
    """Cells owned by shard ``shard`` of ``shards``: ``shard, shard + shards, ...``.

    The shards are disjoint and together cover every cell exactly once.
    """
    _check_int("shards", shards, 1, None)
    if (
        isinstance(shard, bool)
        or not isinstance(shard, int | np.integer)
        or not 0 <= shard < shards
    ):
        raise ValueError(f"shard must be an integer in [0, {shards - 1}]; got {shard!r}")
    return range(int(shard), n_cells, int(shards))


def _summarize_cell(res: xr.Dataset, quantiles: Sequence[float]) -> xr.Dataset:
    from relmc.sim.simulate import summarize

    out = summarize(res, quantiles=tuple(quantiles))
    # interruptions per day of wall-clock time, per trial, then averaged over trials; the
    # standard error treats trials as independent (exact with one posterior draw per trial)
    days = res["wall_hours"] / _HOURS_PER_DAY
    per_day = res["interruptions"] / days
    n = res.sizes["trial"]
    for name, x in (
        ("interruptions_per_day", per_day),
        ("interruptions_per_day_total", per_day.sum("category")),
        ("maintenance_per_day", res["maintenance_events"] / days),
    ):
        attrs = {"units": "1/day", "long_name": f"{name.replace('_', ' ')} of wall-clock time"}
        out[f"{name}_mean"] = x.mean("trial").assign_attrs(attrs)
        out[f"{name}_se"] = (x.std("trial", ddof=1) / np.sqrt(n)).assign_attrs(attrs)
    out = out.drop_vars([v for v in ("n_trials",) if v in out])
    # scalar coords such as n_gpus would clash with the axes; the cube has its own
    out = out.drop_vars([c for c in out.coords if out[c].ndim == 0])
    out.attrs = {}
    return out


def _simulate_cell(spec: SweepSpec, flat: int, rates, n_threads: int, n_trials=None) -> xr.Dataset:
    from relmc.sim.simulate import simulate

    res = simulate(
        spec.scenario(flat),
        rates=rates,
        n_trials=spec.trials if n_trials is None else n_trials,
        seed=cell_seed(spec.seed, flat),
        n_threads=n_threads,
        progress=False,
    )
    out = _summarize_cell(res, spec.quantiles)
    if spec.keep_trials:
        per_trial = [name for name, da in res.data_vars.items() if "trial" in da.dims]
        trials = res[per_trial].reset_coords([c for c in ("draw",) if c in res.coords])
        trials = trials.drop_vars([c for c in trials.coords if trials[c].ndim == 0])
        out = out.merge(trials, combine_attrs="drop")
    return out


def _template(spec: SweepSpec, rates) -> xr.Dataset:
    """Return one cell's variables, from a 2-trial run of cell 0 (shapes and dtypes only).

    Also lowers every cell, which runs simulate's own checks (rate categories vs scenario,
    persist time vs the interval a rule picks), so they fail before anything is written.
    """
    from relmc.sim.simulate import lower

    for flat in range(spec.n_cells):
        try:
            lower(spec.scenario(flat), rates, 1)
        except ValueError as e:
            raise ValueError(f"cell {spec.cell_values(flat)}: {e}") from e
    return _simulate_cell(spec, 0, rates, 1, n_trials=2)


# --------------------------------------------------------------------------------------------
# Store
# --------------------------------------------------------------------------------------------


def _axis_coord(path: str, values: tuple[Any, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    attrs: dict[str, Any] = {"field": path}
    if all(isinstance(v, bool) for v in values):
        arr = np.array(values, dtype=bool)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        arr = np.array(values, dtype=np.int64)
    elif all(_is_number(v) for v in values):
        arr = np.array(values, dtype=np.float64)
    else:
        # mixed numbers and rules (e.g. 0.5 and "young"): string labels, the exact values in JSON
        arr = np.array([str(v) for v in values], dtype=object)
        attrs["values_json"] = json.dumps(list(values))
    return arr, attrs


def _coords(spec: SweepSpec) -> dict[str, Any]:
    coords = {}
    for dim, (path, values) in zip(spec.dims, spec.axes, strict=True):
        arr, attrs = _axis_coord(path, values)
        coords[dim] = xr.Variable(dim, arr, attrs)
    return coords


def _empty_cube(spec: SweepSpec, template: xr.Dataset) -> tuple[xr.Dataset, dict]:
    da = _need_sweep_extra("dask.array")
    dims, shape = spec.dims, spec.shape
    # the template ran 2 trials; the cube holds spec.trials
    sizes = {**template.sizes, "trial": spec.trials}
    data_vars = {}
    encoding = {}
    for name, v in template.data_vars.items():
        vshape = shape + tuple(sizes[d] for d in v.dims)
        chunks = (1,) * len(shape) + vshape[len(shape) :]
        if np.issubdtype(v.dtype, np.floating):
            fill = np.nan
        else:
            fill = 0
        data_vars[name] = xr.Variable(
            dims + v.dims, da.full(vshape, fill, dtype=v.dtype, chunks=chunks), v.attrs
        )
        encoding[name] = {"chunks": chunks}
    data_vars[DONE] = xr.Variable(
        dims,
        da.zeros(shape, dtype=bool, chunks=(1,) * len(shape)),
        {"long_name": "cell complete (written after its data)"},
    )
    encoding[DONE] = {"chunks": (1,) * len(shape)}
    coords = _coords(spec)
    for c, v in template.coords.items():
        vals = np.arange(spec.trials) if c == "trial" else v.values
        if vals.dtype.kind in "UO":
            vals = vals.astype(object)
        coords[c] = xr.Variable(v.dims, vals, v.attrs)
    cube = xr.Dataset(data_vars, coords=coords)
    cube.attrs.update(
        {
            ATTR_SPEC: spec.canonical_json(),
            ATTR_HASH: spec.sha256(),
            "root_seed": spec.seed,
            "cell_seed": "SeedSequence(root_seed, spawn_key=(flat C-order cell index,))",
            "sharding": "shard s of k owns flat cells s, s+k, s+2k, ...",
            "posterior": spec.posterior,
            "n_trials": spec.trials,
            "axes": json.dumps([[d, p] for d, p in zip(spec.dims, spec.paths, strict=True)]),
            "time_units": "hours",
            "relmc_version": _version(),
        }
    )
    return cube, encoding


def _version() -> str:
    from relmc import __version__

    return __version__


def _read_attrs(store: Path) -> dict[str, Any]:
    zarr = _need_sweep_extra("zarr")
    try:
        g = zarr.open_group(str(store), mode="r")
    except Exception as e:  # zarr raises several types for a missing or foreign store
        raise ValueError(f"{str(store)!r} is not a relmc sweep store: {e}") from e
    attrs = dict(g.attrs)
    if ATTR_HASH not in attrs:
        raise ValueError(f"{str(store)!r} is a zarr store but not a relmc sweep store")
    return attrs


def init_store(spec: SweepSpec, store: str | os.PathLike, *, rates=None, template=None) -> Path:
    """Create the sweep's zarr store with all coordinates, or check an existing one.

    The store is built in a temporary sibling folder and renamed into place, so concurrent
    tasks that all try to create it agree on one, and none sees a half-made store.

    Raises
    ------
    ValueError
        If ``store`` exists and was made by a different spec, or is not a sweep store.
    """
    store = Path(store)
    if store.exists():
        _check_same_spec(spec, store)
        return store
    if template is None:
        template = _template(spec, resolve_rates(spec) if rates is None else rates)
    cube, encoding = _empty_cube(spec, template)
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_name(f".{store.name}.{uuid.uuid4().hex}.tmp")
    try:
        cube.to_zarr(
            str(tmp), mode="w-", compute=False, consolidated=False, zarr_format=3, encoding=encoding
        )
        try:
            os.rename(tmp, store)  # atomic; fails if another task created the store first
        except OSError:
            if not store.exists():
                raise
    finally:
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    _check_same_spec(spec, store)
    return store


def _check_same_spec(spec: SweepSpec, store: Path) -> None:
    attrs = _read_attrs(store)
    if attrs[ATTR_HASH] != spec.sha256():
        theirs = json.loads(attrs.get(ATTR_SPEC, "{}"))
        ours = spec.canonical()
        diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
        raise ValueError(
            f"store {str(store)!r} was created by a different sweep spec (differs in {diff}; "
            f"sha256 {attrs[ATTR_HASH][:12]} vs {spec.sha256()[:12]}); use a new store path, "
            "or delete the old store to start over"
        )


class _Writer:
    """Writes whole cells into an existing store (zarr, one chunk per cell per variable)."""

    def __init__(self, store: Path, spec: SweepSpec):
        zarr = _need_sweep_extra("zarr")
        self.spec = spec
        self.group = zarr.open_group(str(store), mode="r+")
        self.arrays: dict[str, Any] = {}

    def _array(self, name: str):
        if name not in self.arrays:
            self.arrays[name] = self.group[name]
        return self.arrays[name]

    def done_mask(self) -> np.ndarray:
        return np.asarray(self._array(DONE)[...], dtype=bool).reshape(-1)

    def write(self, flat: int, cell: xr.Dataset) -> None:
        idx = self.spec.cell_index(flat)
        for name, v in cell.data_vars.items():
            arr = self._array(name)
            if arr.shape[len(idx) :] != v.shape:
                raise ValueError(
                    f"cell {flat}: variable {name!r} has shape {v.shape}, the store expects "
                    f"{arr.shape[len(idx) :]} (categories differ between cells?)"
                )
            arr[idx] = v.values
        # last: the marker. Each chunk write is a temp file + rename (zarr LocalStore), so the
        # marker is never visible before the data above is in place.
        self._array(DONE)[idx] = True


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


def _default_threads() -> int:
    env = os.environ.get("SLURM_CPUS_PER_TASK")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _resolve_store(spec: SweepSpec, store) -> Path:
    if store is None:
        store = spec.default_store()
        if store is None:
            raise ValueError(
                "no store given: pass store=... (CLI --store) or set 'store' in the spec"
            )
    return Path(store).absolute()


def run_sweep(
    spec: SweepSpec | Mapping[str, Any] | str | os.PathLike,
    store: str | os.PathLike | None = None,
    *,
    shard: int = 0,
    shards: int = 1,
    client=None,
    workers: int = 1,
    n_threads: int | None = None,
    progress: bool | None = None,
) -> list[int]:
    """Compute the missing cells of one shard of a sweep and write them to the store.

    Parameters
    ----------
    spec : SweepSpec, mapping or path
        The sweep; validated in full (every cell's scenario built) before anything is written.
    store : path, optional
        zarr store; created if missing (default: the spec's ``store``).
    shard, shards : int
        Run only cells ``shard, shard + shards, ...`` (see :func:`shard_cells`).
    client : distributed.Client or str, optional
        Run the cells as Dask tasks on this client (or scheduler address); workers must see
        the store's path. Works with dask-jobqueue's ``SLURMCluster``.
    workers : int
        Local worker processes across cells (1: in this process). Ignored with ``client``.
    n_threads : int, optional
        numba threads inside each cell; default: the CPUs of this process
        (``SLURM_CPUS_PER_TASK`` under Slurm) divided by ``workers``.
    progress : bool, optional
        Progress bar; default: only when stderr is a terminal.

    Returns
    -------
    list of int
        Flat indices of the cells computed by this call (already complete cells are skipped).
    """
    spec = load_spec(spec)
    store = _resolve_store(spec, store)
    cells = shard_cells(spec.n_cells, shard, shards)
    _check_int("workers", workers, 1, 1024)
    if n_threads is None:
        n_threads = max(1, _default_threads() // workers)
    _check_int("n_threads", n_threads, 1, 4096)
    if store.exists():
        _check_same_spec(spec, store)  # before any (possibly slow) posterior work
    rates = resolve_rates(spec)
    init_store(spec, store, rates=rates)
    done = _Writer(store, spec).done_mask()
    todo = [c for c in cells if not done[c]]
    if not todo:
        return []
    bar = _progress_bar(len(todo), progress, f"sweep shard {shard}/{shards}")
    try:
        if client is not None:
            _run_dask(spec, store, todo, client, n_threads, bar, rates)
        elif workers > 1:
            _run_processes(spec, store, todo, workers, n_threads, bar, rates)
        else:
            writer = _Writer(store, spec)
            for flat in todo:
                writer.write(flat, _simulate_cell(spec, flat, rates, n_threads))
                bar(1)
    finally:
        bar(None)
    return todo


def _progress_bar(total: int, progress: bool | None, desc: str) -> Callable[[int | None], None]:
    from tqdm.auto import tqdm

    # disable=None: tqdm turns itself off when stderr is not a terminal
    t = tqdm(
        total=total, desc=desc, unit="cell", disable=None if progress is None else not progress
    )

    def update(n: int | None) -> None:
        if n is None:
            t.close()
        else:
            t.update(n)

    return update


# worker-process state for the local process pool
_WORKER: dict[str, Any] = {}


def _worker_init(spec: SweepSpec, store: str, n_threads: int, parent: int, rates) -> None:
    _WORKER.update(spec=spec, store=Path(store), n_threads=n_threads, parent=parent)
    _RATES_CACHE[_rates_key(spec)] = rates  # resolved once, in the parent


def _worker_cell(flat: int) -> int:
    if os.getppid() != _WORKER["parent"]:
        os._exit(1)  # the parent died (e.g. SIGKILL): do not start new cells behind its back
    spec = _WORKER["spec"]
    if "writer" not in _WORKER:
        _WORKER["writer"] = _Writer(_WORKER["store"], spec)
    cell = _simulate_cell(spec, flat, _RATES_CACHE[_rates_key(spec)], _WORKER["n_threads"])
    _WORKER["writer"].write(flat, cell)
    return flat


def _run_processes(spec, store, todo, workers, n_threads, bar, rates) -> None:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawn, not fork: the parent may already run numba/tqdm threads
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=min(workers, len(todo)),
        mp_context=ctx,
        initializer=_worker_init,
        initargs=(spec, str(store), n_threads, os.getpid(), rates),
    ) as pool:
        futures = [pool.submit(_worker_cell, flat) for flat in todo]
        for f in as_completed(futures):
            f.result()
            bar(1)


def _dask_cell(spec: SweepSpec, store: str, flat: int, n_threads: int, rates) -> int:
    """One Dask task: simulate cell ``flat`` and write it (workers need the store's path)."""
    cell = _simulate_cell(spec, flat, rates, n_threads)
    _Writer(Path(store), spec).write(flat, cell)
    return flat


def _run_dask(spec, store, todo, client, n_threads, bar, rates) -> None:
    distributed = _need_sweep_extra("distributed")
    own = isinstance(client, str)
    if own:
        client = distributed.Client(client)
    try:
        key = spec.sha256()[:16]
        # the posterior is resolved once here and shipped to every worker once
        rates_f = rates if rates is None else client.scatter(rates, broadcast=True)
        futures = [
            client.submit(
                _dask_cell,
                spec,
                str(store),
                flat,
                n_threads,
                rates_f,
                key=f"relmc-sweep-{key}-{flat}",
            )  # fmt: skip
            for flat in todo
        ]
        for f in distributed.as_completed(futures):
            f.result()
            bar(1)
    finally:
        if own:
            client.close()


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def open_sweep(store: str | os.PathLike, *, load: bool = False) -> xr.Dataset:
    """Open a sweep's cube (lazily, with dask, unless ``load``).

    Cells whose ``done`` flag is False hold fill values (NaN for floats); select complete
    cells with ``cube.where(cube.done)``. The spec is in ``attrs["relmc_sweep_spec"]``.
    """
    store = Path(store)
    _read_attrs(store)
    ds = xr.open_zarr(str(store), consolidated=False, zarr_format=3)
    ds = ds[sorted(ds.data_vars)]  # zarr lists arrays in no fixed order
    return ds.load() if load else ds


@dataclass(frozen=True)
class SweepStatus:
    """Which cells of a store are complete.

    Attributes
    ----------
    n_cells : int
        Cells in the grid.
    done, missing : ndarray of int
        Flat indices of complete and missing cells.
    spec_sha256 : str
        The store's spec hash.
    """

    n_cells: int
    done: np.ndarray
    missing: np.ndarray
    spec_sha256: str

    @property
    def complete(self) -> bool:
        """Whether every cell is done."""
        return self.missing.size == 0

    def __str__(self) -> str:
        miss = _ranges(self.missing)
        return f"{self.done.size}/{self.n_cells} cells done, {self.missing.size} missing" + (
            f": {miss}" if self.missing.size else ""
        )


def _ranges(idx: np.ndarray, limit: int = 20) -> str:
    parts = []
    start = prev = None
    for i in map(int, idx):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = i
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(parts[:limit]) + (",..." if len(parts) > limit else "")


def status(store: str | os.PathLike) -> SweepStatus:
    """Done and missing cells of a sweep store (flat C-order indices)."""
    store = Path(store)
    attrs = _read_attrs(store)
    zarr = _need_sweep_extra("zarr")
    done = np.asarray(zarr.open_group(str(store), mode="r")[DONE][...], dtype=bool).reshape(-1)
    return SweepStatus(
        n_cells=int(done.size),
        done=np.flatnonzero(done),
        missing=np.flatnonzero(~done),
        spec_sha256=attrs[ATTR_HASH],
    )


# --------------------------------------------------------------------------------------------
# Slurm
# --------------------------------------------------------------------------------------------


def sbatch_script(
    spec_path: str | os.PathLike,
    store: str | os.PathLike,
    options: SlurmOptions,
) -> str:
    """Return the sbatch script of a sweep: one array task per shard.

    Every ``#SBATCH`` value comes from the allow-listed :class:`SlurmOptions`; every path in
    the shell part is ``shlex.quote``-d.
    """
    n = options.array
    array = f"0-{n - 1}" + (f"%{options.max_parallel}" if options.max_parallel else "")
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={options.job_name}",
        f"#SBATCH --array={array}",
        "#SBATCH --ntasks=1",
        f"#SBATCH --cpus-per-task={options.cpus_per_task}",
    ]
    if options.partition:
        lines.append(f"#SBATCH --partition={options.partition}")
    if options.account:
        lines.append(f"#SBATCH --account={options.account}")
    if options.time:
        lines.append(f"#SBATCH --time={options.time}")
    lines += [f"#SBATCH {x}" for x in options.extra]
    python = options.python or sys.executable
    cmd = [
        python,
        "-m",
        "relmc.sweep",
        "run",
        str(Path(spec_path).absolute()),
        "--store",
        str(Path(store).absolute()),
    ]
    lines += [
        "# written by relmc.sweep; each task computes the missing cells of its shard, so a",
        "# requeued or rerun task only redoes unfinished cells",
        "set -euo pipefail",
        " ".join(shlex.quote(c) for c in cmd)
        + f' --shard "$SLURM_ARRAY_TASK_ID" --shards {n} --threads {options.cpus_per_task}'
        + " --no-progress",
    ]
    return "\n".join(lines) + "\n"


def submit(
    spec_path: str | os.PathLike,
    *,
    store: str | os.PathLike | None = None,
    options: SlurmOptions | None = None,
    dry_run: bool = False,
    wait: bool = False,
    workdir: str | os.PathLike | None = None,
) -> str:
    """Validate the sweep, create its store and submit it as a Slurm job array.

    Parameters
    ----------
    spec_path : path
        TOML spec file (array tasks read it again).
    store : path, optional
        Store path; default the spec's ``store``.
    options : SlurmOptions, optional
        Default: the spec's ``[slurm]`` table.
    dry_run : bool
        Return the sbatch script without creating or submitting anything.
    wait : bool
        ``sbatch --wait``: return when every task has finished (raises if one failed).
    workdir : path, optional
        Where the script and the task logs go; default ``<store>.slurm`` beside the store.

    Returns
    -------
    str
        The script (``dry_run``) or the Slurm job id.
    """
    spec = SweepSpec.from_toml(spec_path)
    opts = spec.slurm if options is None else options
    if not isinstance(opts, SlurmOptions):
        raise ValueError(f"options must be SlurmOptions; got {opts!r}")
    store = _resolve_store(spec, store)
    script = sbatch_script(spec_path, store, opts)
    if dry_run:
        return script
    if store.exists():
        _check_same_spec(spec, store)
    init_store(spec, store)
    work = Path(workdir) if workdir is not None else store.with_name(store.name + ".slurm")
    work.mkdir(parents=True, exist_ok=True)
    script_path = work / "sweep.sbatch"
    script_path.write_text(script)
    # no shell: arguments go to sbatch as a list; logs land in the working directory
    cmd = ["sbatch", "--parsable", "--output=slurm-%A_%a.out"]
    if wait:
        cmd.append("--wait")
    cmd.append(str(script_path))
    try:
        proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, check=False)
    except FileNotFoundError as e:
        raise RuntimeError("sbatch not found: is Slurm installed on this machine?") from e
    if proc.returncode != 0:
        raise RuntimeError(f"sbatch failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout.strip().split(";")[0]


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


_EXAMPLES = {
    "sweep": """examples (spec layout: examples/sweep.toml, or the relmc.sweep docstring):
  relmc sweep run examples/sweep.toml
  relmc sweep submit examples/sweep.toml --array 8 --partition gpu --dry-run
  relmc sweep status examples/sweep.zarr
  relmc sweep open examples/sweep.zarr""",
    "run": """examples:
  relmc sweep run spec.toml                          # every missing cell, all cores
  relmc sweep run spec.toml --shard 3 --shards 8     # what Slurm array task 3 of 8 runs
  relmc sweep run spec.toml --dask tcp://host:8786   # on a Dask cluster
  (kill it at any moment and run it again: only missing cells are computed)""",
    "submit": """examples:
  relmc sweep submit spec.toml --array 8 --dry-run   # print the sbatch script only
  relmc sweep submit spec.toml --array 8 --partition gpu --time 02:00:00 --account proj
  relmc sweep submit spec.toml --sbatch=--mem=8G --wait""",
    "status": """examples:
  relmc sweep status sweep.zarr
  relmc sweep status sweep.zarr --json""",
    "open": """examples:
  relmc sweep open sweep.zarr
  (from Python: relmc.sweep.open_sweep("sweep.zarr") returns the xarray cube)""",
}


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(
        prog="relmc sweep",
        description="Grids of scenarios into one resumable zarr cube.",
        epilog=_EXAMPLES["sweep"],
        formatter_class=fmt,
    )
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, epilog=_EXAMPLES[name], formatter_class=fmt)

    r = add("run", "compute the missing cells (of one shard)")
    r.add_argument("spec", help="sweep spec (TOML)")
    r.add_argument("--store", help="zarr store (default: the spec's 'store')")
    r.add_argument("--shard", type=int, default=0, help="this shard's index, 0-based")
    r.add_argument("--shards", type=int, default=1, help="number of shards")
    r.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler")
    r.add_argument("--workers", type=int, default=1, help="local processes across cells")
    r.add_argument("--threads", type=int, help="numba threads per cell")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")

    s = add("submit", "submit a Slurm job array (one task per shard)")
    s.add_argument("spec", help="sweep spec (TOML)")
    s.add_argument("--store", help="zarr store (default: the spec's 'store')")
    s.add_argument("--array", type=int, help="array tasks (= shards)")
    s.add_argument("--partition")
    s.add_argument("--account")
    s.add_argument("--time", help="time limit per task, e.g. 02:00:00")
    s.add_argument("--cpus-per-task", type=int)
    s.add_argument("--max-parallel", type=int, help="at most this many tasks at once")
    s.add_argument(
        "--sbatch",
        action="append",
        default=[],
        metavar="OPTION",
        help="extra #SBATCH option, e.g. --sbatch=--mem=4G (repeatable)",
    )
    s.add_argument("--python", help="Python executable of the tasks")
    s.add_argument("--dry-run", action="store_true", help="print the script, submit nothing")
    s.add_argument("--wait", action="store_true", help="wait until every task has finished")

    st = add("status", "done and missing cells of a store")
    st.add_argument("store")
    st.add_argument("--json", action="store_true", help="machine-readable output")

    o = add("open", "print the cube of a store")
    o.add_argument("store")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``relmc sweep {run,submit,status,open}``; returns the exit code (2: bad input)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            spec = SweepSpec.from_toml(args.spec)
            done = run_sweep(
                spec,
                args.store,
                shard=args.shard,
                shards=args.shards,
                client=args.dask,
                workers=args.workers,
                n_threads=args.threads,
                progress=False if args.no_progress else None,
            )
            st = status(_resolve_store(spec, args.store))
            print(f"computed {len(done)} cells; store: {st}")
        elif args.command == "submit":
            spec = SweepSpec.from_toml(args.spec)
            over = {
                "array": args.array,
                "partition": args.partition,
                "account": args.account,
                "time": args.time,
                "cpus_per_task": args.cpus_per_task,
                "max_parallel": args.max_parallel,
                "python": args.python,
            }
            over = {k: v for k, v in over.items() if v is not None}
            if args.sbatch:
                over["extra"] = (*spec.slurm.extra, *args.sbatch)
            opts = dataclasses.replace(spec.slurm, **over)
            out = submit(
                args.spec, store=args.store, options=opts, dry_run=args.dry_run, wait=args.wait
            )
            print(out if args.dry_run else f"submitted job {out}")
        elif args.command == "status":
            st = status(args.store)
            if args.json:
                print(
                    json.dumps(
                        {
                            "n_cells": st.n_cells,
                            "done": st.done.tolist(),
                            "missing": st.missing.tolist(),
                        }
                    )
                )
            else:
                print(st)
        elif args.command == "open":
            print(open_sweep(args.store))
    except ValueError as e:
        print(f"relmc sweep: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"relmc sweep: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    from relmc.sweep import main as _main  # run the importable module, so pickles name it

    sys.exit(_main())
