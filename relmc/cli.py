"""The ``relmc`` command (also ``python -m relmc``): thin wrappers around the public API.

Subcommands: ``project`` (the main job: fit, project over sizes, table, netCDF, figure),
``fit``, ``simulate``, ``optimize``, ``datasets`` and ``sweep`` (delegated to
:func:`relmc.sweep.main`). Scenario options (``--restart-minutes``, ``--checkpoint-interval``,
...) are generated from the fields of :class:`relmc.Policy`, :class:`relmc.Job`,
:class:`relmc.Cluster` and :class:`relmc.FailureModel`, with help taken from their docstrings,
so the command line cannot drift from the dataclasses.

Bad input of any kind (a bad option, a ``ValueError`` from the API, an unreadable file) prints
one line, ``relmc: error: ...``, and exits with status 2 before any file is written.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import os
import re
import sys
import tempfile
import textwrap
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main", "build_parser"]

PROG = "relmc"
DEFAULT_OUT = "relmc-output"
_HOURS_PER_YEAR = 365.25 * 24.0


# --------------------------------------------------------------------------------------------
# parser plumbing


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``relmc: error: ...``, exit status 2."""

    def error(self, message: str):  # noqa: D102 - argparse hook
        self.exit(2, f"{PROG}: error: {_one_line(message)} (see '{self.prog} --help')\n")


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def _typed(name: str, fn: Callable[[str], Any]) -> Callable[[str], Any]:
    """Give a converter a readable name for argparse's "invalid NAME value" messages."""
    fn.__name__ = name
    return fn


def _float(s: str) -> float:
    return float(s)


_number = _typed("number", _float)
_minutes = _typed("number of minutes", lambda s: float(s) / 60.0)
_days = _typed("number of days", lambda s: float(s) * 24.0)
_per_day = _typed("number per day", lambda s: float(s) / 24.0)


def _int_at_least(lo: int, what: str) -> Callable[[str], int]:
    def conv(s: str) -> int:
        v = int(s.replace("_", ""))
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}; got {s!r}")
        return v

    return _typed(what, conv)


def _interval(s: str) -> float | str:
    if s in ("young", "daly"):
        return s
    return float(s)


def _spares(s: str) -> int | None:
    if s.lower() in ("unlimited", "none", "inf"):
        return None
    return int(s)


def _int_list(s: str) -> list[int]:
    try:
        return [int(x.strip().replace("_", "")) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of integers, e.g. 2048,16384; got {s!r}"
        ) from None


def _float_list(s: str) -> list[float]:
    try:
        return [float(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of numbers, e.g. 0.25,0.5,1; got {s!r}"
        ) from None


class _Store(argparse.Action):
    """Store a scenario field and remember which flag set it (for error messages)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        flags = dict(getattr(namespace, "_flags", {}))
        flags[self.dest] = option_string
        namespace._flags = flags


# --------------------------------------------------------------------------------------------
# scenario options derived from the dataclasses


def _field_docs(cls) -> dict[str, str]:
    """Parameter descriptions from a numpydoc class docstring."""
    doc = inspect.getdoc(cls) or ""
    m = re.search(r"Parameters\n-+\n(.*?)(?:\n\n[A-Z][a-z]+\n-+\n|\Z)", doc, re.S)
    out: dict[str, str] = {}
    if not m:
        return out
    names: list[str] = []
    for line in m.group(1).splitlines():
        head = re.match(r"^([A-Za-z_][\w, ]*?) : ", line)
        if head:
            names = [n.strip() for n in head.group(1).split(",")]
            for n in names:
                out[n] = ""
        elif line.startswith("    ") and names:
            for n in names:
                out[n] = (out[n] + " " + line.strip()).strip()
    return out


@dataclasses.dataclass(frozen=True)
class _Option:
    flags: tuple[str, ...]
    dest: str
    type: Callable[[str], Any]
    help: str
    metavar: str


def _scenario_options() -> list[tuple[str, list[_Option]]]:
    """One group of options per dataclass field (alternative units are exclusive flags)."""
    from relmc.scenario import Cluster, FailureModel, Job, Policy

    groups: list[tuple[str, list[_Option]]] = []
    for section, cls, skip in (
        ("policy", Policy, ()),
        ("job", Job, ()),
        ("failures", FailureModel, ("categories",)),
        ("cluster", Cluster, ("n_gpus",)),
    ):
        docs = _field_docs(cls)
        for f in dataclasses.fields(cls):
            if f.name in skip:
                continue
            dest = f"{section}.{f.name}"
            flag = "--" + f.name.replace("_", "-")
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            text = docs.get(f.name, "").replace("%", "%%")
            shown = "unlimited" if default is None else f"{default:g}"
            opts: list[_Option] = []
            if f.name == "checkpoint_interval":
                opts.append(
                    _Option((flag,), dest, _typed("interval", _interval), text, "HOURS|young|daly")
                )
                opts.append(
                    _Option((flag + "-minutes",), dest, _minutes, "the same in minutes", "MIN")
                )
            elif f.name == "n_spares":
                opts.append(_Option((flag,), dest, _typed("spares", _spares), text, "N|unlimited"))
            elif isinstance(default, int) and not isinstance(default, bool):
                opts.append(_Option((flag,), dest, _int_at_least(-(2**62), "integer"), text, "N"))
            elif f.name == "compute_hours":
                opts.append(_Option((flag,), dest, _number, text, "HOURS"))
                opts.append(_Option(("--compute-days",), dest, _days, "the same in days", "DAYS"))
            elif f.name.endswith("_hours"):
                stem = f.name[: -len("_hours")].replace("_", "-")
                opts.append(_Option((flag,), dest, _number, text, "HOURS"))
                opts.append(
                    _Option((f"--{stem}-minutes",), dest, _minutes, "the same in minutes", "MIN")
                )
            elif f.name == "maintenance_rate":
                opts.append(_Option((flag,), dest, _number, text + " Per hour.", "PER_HOUR"))
                opts.append(
                    _Option(("--maintenance-per-day",), dest, _per_day, "the same per day", "N")
                )
            else:
                opts.append(_Option((flag,), dest, _number, text, "X"))
            first = opts[0]
            opts[0] = dataclasses.replace(first, help=f"{first.help} (default: {shown})")
            groups.append((dest, opts))
    return groups


def _add_scenario_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "scenario options (fields of relmc.Policy, Job, FailureModel and Cluster; "
        "defaults are relmc's documented reference policy)"
    )
    for _, opts in _scenario_options():
        ex = g.add_mutually_exclusive_group()
        for o in opts:
            ex.add_argument(
                *o.flags,
                dest=o.dest,
                type=o.type,
                action=_Store,
                default=None,
                help=o.help,
                metavar=o.metavar,
            )


def _overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Scenario fields given on the command line, by section."""
    out: dict[str, dict[str, Any]] = {"policy": {}, "job": {}, "failures": {}, "cluster": {}}
    for dest, _ in _scenario_options():
        if dest in getattr(args, "_flags", {}):
            section, name = dest.split(".")
            out[section][name] = getattr(args, dest)
    return out


def _blame(err: ValueError, args: argparse.Namespace) -> ValueError:
    """Add the command-line flag that set the field a ValueError names."""
    msg = str(err)
    hits = []
    for dest, flag in getattr(args, "_flags", {}).items():
        for key in (dest, dest.split(".")[1]):
            if key in msg:
                hits.append((msg.index(key), flag))
                break
    if hits:
        return ValueError(f"{msg} (option {min(hits)[1]})")
    return err


def _check_scenario_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Validate the scenario options on their own, before any data is loaded or fitted."""
    from relmc.scenario import Category, Cluster, FailureModel, Job, Policy

    ov = _overrides(args)
    try:
        Policy(**ov["policy"])
        Job(**ov["job"])
        Cluster(**ov["cluster"])
        FailureModel((Category("placeholder"),), **ov["failures"])
    except ValueError as e:
        raise _blame(e, args) from None
    return ov


def _apply(scenario, ov: dict[str, dict[str, Any]], args: argparse.Namespace):
    """Return ``scenario`` with the command-line overrides applied (validated)."""
    try:
        for section, fields in ov.items():
            if fields:
                obj = getattr(scenario, section)
                scenario = dataclasses.replace(
                    scenario, **{section: dataclasses.replace(obj, **fields)}
                )
    except ValueError as e:
        raise _blame(e, args) from None
    return scenario


# --------------------------------------------------------------------------------------------
# shared option groups


def _add_data_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("data and model")
    src = g.add_mutually_exclusive_group()
    src.add_argument(
        "--dataset",
        default=None,
        metavar="NAME",
        help="bundled dataset (see 'relmc datasets'; default: llama3-405b)",
    )
    src.add_argument(
        "--counts",
        type=Path,
        metavar="CSV",
        help="your own counts: columns category, count, exposure (unit-hours), unit, "
        "optional group (see relmc.load_counts)",
    )
    g.add_argument(
        "--observed-gpus",
        type=_int_at_least(1, "integer"),
        metavar="N",
        help="with --counts: GPUs the counts were observed on (exposure may then be omitted)",
    )
    g.add_argument(
        "--observed-hours",
        type=_number,
        metavar="HOURS",
        help="with --counts: length of the observation window",
    )
    g.add_argument(
        "--model",
        choices=("conjugate", "hierarchical"),
        default="conjugate",
        help="conjugate Gamma-Poisson per category, exact and fast (default), or "
        "hierarchical partial pooling with PyMC NUTS (tens of seconds)",
    )
    g.add_argument(
        "--draws",
        type=_int_at_least(1, "integer"),
        metavar="N",
        help="posterior draws (default: 4000 conjugate; 1000 per chain hierarchical)",
    )
    g.add_argument(
        "--chains",
        type=_int_at_least(1, "integer"),
        default=2,
        metavar="N",
        help="hierarchical model: MCMC chains (default: 2)",
    )


def _add_run_options(p: argparse.ArgumentParser, trials: int, out: bool = True) -> None:
    g = p.add_argument_group("run")
    g.add_argument(
        "--trials",
        type=_int_at_least(1, "integer"),
        default=trials,
        metavar="N",
        help=f"simulated jobs per size or interval (default: {trials})",
    )
    g.add_argument(
        "--seed",
        type=_int_at_least(0, "integer"),
        metavar="INT",
        help="root seed (default: fresh; the one used is printed and stored in the output)",
    )
    g.add_argument(
        "--threads",
        type=_int_at_least(1, "integer"),
        metavar="N",
        help="kernel threads (default: all cores); results do not depend on it",
    )
    if out:
        g.add_argument(
            "--out",
            type=Path,
            default=Path(DEFAULT_OUT),
            metavar="DIR",
            help=f"output directory, created if needed (default: {DEFAULT_OUT})",
        )


# --------------------------------------------------------------------------------------------
# the parser

_EPILOGS = {
    "main": """\
examples:
  relmc project                          # the main job: Llama 3 data -> 2k..131k GPUs
  relmc project --restart-minutes 2 --checkpoint-interval-minutes 5
  relmc fit --dataset rsc-1              # posterior summary + posterior.nc
  relmc datasets llama3-405b             # what is bundled, with provenance
  relmc simulate scenario.toml --trials 5000
  relmc optimize --n-gpus 100000         # best checkpoint interval vs Young/Daly
  relmc sweep run sweep.toml             # grids of scenarios (see 'relmc sweep --help')
""",
    "project": """\
Fits the failure-rate posterior, simulates a job of the given compute at each size (one
posterior draw per trial), prints medians with 90% intervals, and writes
  DIR/projection.nc   relmc.project() result (open with xarray.open_dataset)
  DIR/posterior.nc    the fitted posterior (arviz.from_netcdf)
  DIR/projection.png  the summary figure (relmc.plots.main_figure)

Default policy (relmc.Policy): checkpoint every 30 min with a 1-min blocking snapshot,
10-min restart, unlimited spares; job of 54 days of compute (the Llama 3 window). With the
Llama 3 data, planned maintenance is added at the observed 47 per 54 days
(--maintenance-rate 0 turns it off).

examples:
  relmc project
  relmc project --sizes 16384,131072,1048576 --trials 4000 --seed 1
  relmc project --restart-minutes 2 --snapshot-minutes 0.5 --out fast-restart
  relmc project --counts my_cluster.csv --model hierarchical --no-plot
""",
    "fit": """\
Prints, per category, the posterior mean rate with a 90% interval (per unit-hour and per
unit-year) and its contribution to the job MTTF at --n-gpus; writes DIR/posterior.nc.

examples:
  relmc fit
  relmc fit --dataset rsc-1 --n-gpus 131072
  relmc fit --counts my_cluster.csv --model hierarchical --draws 2000 --seed 3
""",
    "simulate": """\
The TOML file uses Scenario.to_dict()'s layout; missing sections take their defaults, and
without [failures] the rates are Llama 3's point rates (or --posterior's categories).

  [cluster]
  n_gpus = 65536
  [job]
  compute_hours = 720
  [policy]
  checkpoint_interval = "daly"
  snapshot_hours = 0.02
  restart_hours = 0.1

examples:
  relmc simulate scenario.toml
  relmc simulate scenario.toml --posterior relmc-output/posterior.nc --trials 10000 --seed 2
""",
    "optimize": """\
Searches the checkpoint interval that maximises expected ETTR (one posterior draw per trial,
common random numbers across intervals), then compares it with Young's and Daly's intervals
on fresh trials; writes DIR/optimize.nc.

examples:
  relmc optimize
  relmc optimize --n-gpus 131072 --snapshot-minutes 0.5 --restart-minutes 5
  relmc optimize --intervals 0.1,0.2,0.3,0.5 --trials 4000 --seed 1
""",
    "datasets": """\
examples:
  relmc datasets                 # one line per dataset
  relmc datasets llama3-405b     # full provenance and the counts
""",
    "sweep": """\
Everything after 'sweep' goes to relmc.sweep.main; see 'relmc sweep --help'.
""",
}


def build_parser() -> argparse.ArgumentParser:
    """Return the ``relmc`` argument parser (subcommands in ``dest="command"``)."""
    from relmc import __version__

    fmt = argparse.RawDescriptionHelpFormatter
    p = _Parser(
        prog=PROG,
        description="Monte Carlo reliability projections for large synchronous training jobs.",
        epilog=_EPILOGS["main"],
        formatter_class=fmt,
    )
    p.add_argument("--version", action="version", version=f"relmc {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name, help=help, description=help, epilog=_EPILOGS[name], formatter_class=fmt
        )

    pr = add("project", "fit the data and project interruptions, MTTF and ETTR over sizes")
    pr.add_argument(
        "--sizes",
        type=_int_list,
        metavar="N,N,...",
        help="cluster sizes in GPUs, each in [1, 1e8] (default: 2048,4096,...,131072)",
    )
    pr.add_argument("--no-plot", action="store_true", help="do not write the PNG figure")
    _add_data_options(pr)
    _add_run_options(pr, trials=2000)
    _add_scenario_options(pr)
    pr.set_defaults(func=_cmd_project)

    fi = add("fit", "fit a failure-rate posterior and print it per category")
    fi.add_argument(
        "--n-gpus",
        type=_int_at_least(1, "integer"),
        metavar="N",
        help="size for the MTTF column (default: the data's cluster size, else 16384)",
    )
    fi.add_argument(
        "--seed", type=_int_at_least(0, "integer"), metavar="INT", help="seed of the fit"
    )
    fi.add_argument(
        "--out",
        type=Path,
        default=Path(DEFAULT_OUT),
        metavar="DIR",
        help=f"output directory (default: {DEFAULT_OUT})",
    )
    _add_data_options(fi)
    fi.set_defaults(func=_cmd_fit)

    si = add("simulate", "simulate one scenario from a TOML file")
    si.add_argument("scenario", type=Path, help="scenario TOML (Scenario.to_dict layout)")
    si.add_argument(
        "--posterior",
        type=Path,
        metavar="NC",
        help="posterior netCDF (e.g. from 'relmc fit'): one draw per trial",
    )
    _add_run_options(si, trials=2000)
    si.set_defaults(func=_cmd_simulate)

    op = add("optimize", "checkpoint interval maximising expected ETTR vs Young/Daly")
    op.add_argument(
        "--n-gpus",
        type=_int_at_least(1, "integer"),
        default=16384,
        metavar="N",
        help="cluster size in GPUs (default: 16384)",
    )
    op.add_argument(
        "--intervals",
        type=_float_list,
        metavar="H,H,...",
        help="intervals to evaluate, hours (default: a grid around Daly's, refined)",
    )
    _add_data_options(op)
    _add_run_options(op, trials=1000)
    _add_scenario_options(op)
    op.set_defaults(func=_cmd_optimize)

    ds = add("datasets", "list the bundled datasets, or describe one with its provenance")
    ds.add_argument("name", nargs="?", help="dataset to describe")
    ds.set_defaults(func=_cmd_datasets)

    sw = add("sweep", "grids of scenarios into a resumable zarr store (relmc.sweep)")
    sw.add_argument("args", nargs=argparse.REMAINDER, help="arguments of 'relmc sweep'")
    return p


# --------------------------------------------------------------------------------------------
# helpers for commands


def _seed(args: argparse.Namespace) -> int:
    """Return the root seed: given, or fresh 63-bit entropy (printed, so a run can be repeated)."""
    if args.seed is not None:
        return int(args.seed)
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


def _check_out(out: Path) -> None:
    """Fail before any work if ``--out`` cannot become a writable directory."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out must be a directory; {str(out)!r} is a file")
    existing = out
    while not existing.exists():  # the nearest ancestor that exists must be writable
        existing = existing.parent
    try:  # permissions alone do not tell (root, read-only or virtual file systems): try it
        os.rmdir(tempfile.mkdtemp(prefix=".relmc-check-", dir=existing))
    except OSError as e:
        raise ValueError(
            f"--out {str(out)!r}: cannot write in {str(existing)!r} ({e.strerror})"
        ) from None


def _load_data(args: argparse.Namespace):
    from relmc.datasets import load_counts, load_dataset

    if args.counts is None:
        if args.observed_gpus is not None or args.observed_hours is not None:
            raise ValueError("--observed-gpus and --observed-hours go with --counts")
        try:
            return load_dataset(args.dataset or "llama3-405b")
        except ValueError as e:
            raise ValueError(f"--dataset: {e}") from None
    if not args.counts.is_file():
        raise ValueError(f"--counts: no such file: {str(args.counts)!r}")
    try:
        return load_counts(
            args.counts, n_gpus=args.observed_gpus, duration_hours=args.observed_hours
        )
    except ValueError as e:
        raise ValueError(f"--counts: {e}") from None


def _fit(args: argparse.Namespace, data, seed: int):
    from relmc.models import fit_conjugate, fit_hierarchical

    if args.model == "conjugate":
        return fit_conjugate(data, draws=args.draws or 4000, rng=seed)
    return fit_hierarchical(
        data,
        draws=args.draws or 1000,
        chains=args.chains,
        random_seed=seed,
        progressbar=sys.stderr.isatty(),
    )


def _say(text: str = "") -> None:
    print(text, flush=True)


def _status(text: str) -> None:
    """Print a progress note on stderr, only for a person watching a terminal."""
    if sys.stderr.isatty():
        print(text, file=sys.stderr, flush=True)


def _tmp(path: Path) -> Path:
    return path.with_name(f".tmp-{path.name}")


def _write_dataset(ds, path: Path) -> None:
    """Write a netCDF atomically: a temporary file renamed into place when complete."""
    tmp = _tmp(path)
    ds.to_netcdf(tmp, engine="h5netcdf")
    os.replace(tmp, path)


def _write_idata(idata, path: Path) -> None:
    tmp = _tmp(path)
    idata.to_netcdf(str(tmp))
    os.replace(tmp, path)


def _fmt(x: float) -> str:
    """Format a number with about three significant figures, without scientific notation."""
    if not math.isfinite(x):
        return str(x)
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def _band(da, fmt: Callable[[float], str] = _fmt) -> str:
    q = {float(k): float(v) for k, v in zip(da["quantile"].values, da.values, strict=True)}
    return f"{fmt(q[0.5])} [{fmt(q[0.05])}, {fmt(q[0.95])}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def _policy_text(sc) -> str:
    pol, w = sc.policy, sc.job.compute_hours
    ci = pol.checkpoint_interval
    ci_s = f"{ci} interval" if isinstance(ci, str) else f"every {60 * ci:.3g} min"
    spares = "unlimited spares" if pol.n_spares is None else f"{pol.n_spares} spare nodes"
    fm = sc.failures
    maint = (
        f"planned maintenance {24 * fm.maintenance_rate:.3g}/day"
        if fm.maintenance_rate > 0
        else "no planned maintenance"
    )
    return (
        f"checkpoint {ci_s} ({60 * pol.snapshot_hours:.3g} min blocking), restart "
        f"{60 * pol.restart_hours:.3g} min, {spares}, {maint}; job of {w:,.0f} compute-hours "
        f"({w / 24:.3g} days)"
    )


def _model_text(args: argparse.Namespace, posterior, data) -> str:
    n = posterior.posterior.sizes["chain"] * posterior.posterior.sizes["draw"]
    name = data.attrs.get("name", "") or "user data"
    kind = "conjugate Gamma-Poisson" if args.model == "conjugate" else "hierarchical (PyMC)"
    n_cat, n_ev = data.sizes["category"], int(data["count"].sum())
    return f"{name}: {n_cat} categories, {n_ev} events; {kind}, {n} draws"


_CAUSE_TEXT = {"node_swap": "node swap", "spare_wait": "spare wait"}


def projection_table(ds) -> str:
    """Format a :func:`relmc.project` result as a table: medians with 90% intervals.

    Parameters
    ----------
    ds : xarray.Dataset
        A projection (possibly re-opened from netCDF).

    Returns
    -------
    str
        One row per size: MTTF (h), unexpected interruptions per day, ETTR and the two
        largest causes of lost time (mean share of wall-clock time).
    """
    rows = []
    for n in ds["n_gpus"].values:
        row = ds.sel(n_gpus=n)
        lost = row["lost_fraction_mean"]
        order = np.argsort(-lost.values)[:2]
        top = ", ".join(
            f"{_CAUSE_TEXT.get(str(lost['cause'].values[i]), str(lost['cause'].values[i]))} "
            f"{100 * float(lost.values[i]):.1f}%"
            for i in order
            if lost.values[i] > 0
        )
        rows.append(
            [
                f"{int(n):,}",
                _band(row["mttf_hours"]),
                _band(row["interruptions_per_day"]),
                _band(row["ettr"], lambda x: f"{x:.3f}"),
                top,
            ]
        )
    header = [
        "GPUs",
        "MTTF h",
        "unexpected interruptions/day",
        "ETTR",
        "top lost time (% of wall)",
    ]
    return _table(header, rows, [True, True, True, True, False])


# --------------------------------------------------------------------------------------------
# commands


def _cmd_project(args: argparse.Namespace) -> int:
    from relmc.projection import check_sizes, default_scenario, project

    t0 = time.perf_counter()
    try:
        sizes = check_sizes(args.sizes)
    except ValueError as e:
        raise ValueError(f"--sizes: {e}") from None
    ov = _check_scenario_options(args)
    _check_out(args.out)
    seed = _seed(args)
    data = _load_data(args)
    _status(f"fitting {args.model} model ...")
    posterior = _fit(args, data, seed)
    sc = _apply(default_scenario(posterior, data), ov, args)
    ds = project(
        posterior,
        n_gpus=sizes,
        scenario=sc,
        n_trials=args.trials,
        seed=seed,
        n_threads=args.threads,
    )
    # everything is computed: only now touch the file system
    args.out.mkdir(parents=True, exist_ok=True)
    files = [args.out / "projection.nc", args.out / "posterior.nc"]
    _write_dataset(ds, files[0])
    _write_idata(posterior, files[1])
    plot_note = ""
    if not args.no_plot:
        png = args.out / "projection.png"
        try:
            from relmc import plots

            plots.main_figure(ds, posterior, _tmp(png))
        except ImportError as e:
            plot_note = f"figure skipped ({e}); install relmc[plot] for matplotlib"
        else:
            os.replace(_tmp(png), png)
            files.append(png)

    _say(f"relmc project: {_model_text(args, posterior, data)}")
    _say(f"policy: {_policy_text(sc)}")
    _say(f"{args.trials:,} trials per size, seed {seed}")
    _say()
    _say(projection_table(ds))
    _say()
    _say(
        "median [90% interval]. MTTF: mean time to an unexpected interruption, posterior of "
        "1/Lambda(N) from the rate draws; other columns: posterior predictive over trials, "
        "one posterior draw per trial."
    )
    _say()
    for f in files:
        _say(f"wrote {f}")
    if plot_note:
        print(f"{PROG}: warning: {plot_note}", file=sys.stderr)
    _say(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from relmc import cluster

    _check_out(args.out)
    seed = _seed(args)
    data = _load_data(args)
    n = args.n_gpus or int(data.attrs.get("n_gpus", 0)) or 16384
    _status(f"fitting {args.model} model ...")
    posterior = _fit(args, data, seed)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "posterior.nc"
    _write_idata(posterior, path)

    rate = posterior.posterior["rate"].stack(sample=("chain", "draw"))
    units = [str(u) for u in rate["unit"].values]
    scalable = all(u in cluster.UNITS for u in units)
    rows = []
    total = 0.0
    for i, c in enumerate(rate["category"].values):
        r = rate.isel(category=i).values
        lo, hi = np.quantile(r, [0.05, 0.95])
        row = [
            str(c),
            units[i],
            str(int(data["count"].sel(category=c))),
            f"{r.mean():.3g} [{lo:.3g}, {hi:.3g}]",
        ]
        if scalable:
            row.append(f"{r.mean() * _HOURS_PER_YEAR:.3g}")
            lam = r * cluster.units(n, units[i])
            total = total + lam
            row.append(_fmt(1.0 / lam.mean()) if lam.mean() > 0 else "inf")
        rows.append(row)
    header = ["category", "unit", "count", "rate: mean [90%]"]
    right = [False, False, True, True]
    if scalable:
        header += ["per unit-year", f"h between, at {n:,} GPUs"]
        right += [True, True]
    _say(f"relmc fit: {_model_text(args, posterior, data)}, seed {seed}")
    _say(f"rates in {rate.attrs.get('units', 'events per unit-hour')}")
    _say()
    _say(_table(header, rows, right))
    if scalable:
        mttf = 1.0 / np.asarray(total)
        lo, med, hi = np.quantile(mttf, [0.05, 0.5, 0.95])
        _say()
        _say(
            f"job MTTF at {n:,} GPUs (all categories): {_fmt(med)} h [90%: {_fmt(lo)}, "
            f"{_fmt(hi)}]; {24 / med:.3g} unexpected interruptions per day"
        )
    _say()
    _say(f"wrote {path}")
    return 0


def _read_toml(path: Path) -> dict:
    import tomllib

    if not path.is_file():
        raise ValueError(f"scenario: no such file: {str(path)!r}")
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"scenario: {path} is not valid TOML: {e}") from None


def _read_posterior(path: Path):
    from relmc.models._common import az

    if not path.is_file():
        raise ValueError(f"--posterior: no such file: {str(path)!r}")
    try:
        idata = az.from_netcdf(str(path))
    except (OSError, KeyError) as e:
        raise ValueError(f"--posterior: cannot read {path} as an InferenceData: {e}") from None
    if "posterior" not in idata.groups() or "rate" not in idata.posterior:
        raise ValueError(f"--posterior: {path} has no posterior['rate'] (use 'relmc fit')")
    return idata


def _cmd_simulate(args: argparse.Namespace) -> int:
    from relmc.scenario import FailureModel, Scenario
    from relmc.sim.simulate import simulate, summarize

    _check_out(args.out)
    d = _read_toml(args.scenario)
    posterior = _read_posterior(args.posterior) if args.posterior is not None else None
    if posterior is not None and "failures" not in d:
        d = {**d, "failures": FailureModel.from_posterior(posterior)}
    sc = Scenario.from_dict(d)
    seed = _seed(args)
    res = simulate(sc, rates=posterior, n_trials=args.trials, seed=seed, n_threads=args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "simulation.nc"
    _write_dataset(res, path)

    s = summarize(res)
    q = s["ettr_quantile"]
    days = res["wall_hours"] / 24.0
    per_day = (res["interruptions"].sum("category") / days).quantile([0.05, 0.5, 0.95])
    _say(f"relmc simulate: {args.scenario} on {sc.cluster.n_gpus:,} GPUs, {args.trials:,} trials")
    _say(
        f"policy: {_policy_text(sc)}; interval used "
        f"{60 * res.attrs['checkpoint_interval_hours']:.3g} min"
    )
    _say(f"rates: {res.attrs['rates_source']}; seed {seed}")
    _say()
    _say(
        f"ETTR mean {float(s['ettr_mean']):.4f} +- {float(s['ettr_se']):.4f} (MC SE); median "
        f"{float(q.sel(quantile=0.5)):.3f} [90%: {float(q.sel(quantile=0.05)):.3f}, "
        f"{float(q.sel(quantile=0.95)):.3f}]"
    )
    wq = s["wall_hours_quantile"]
    _say(
        f"wall-clock hours: median {_fmt(float(wq.sel(quantile=0.5)))} [90%: "
        f"{_fmt(float(wq.sel(quantile=0.05)))}, {_fmt(float(wq.sel(quantile=0.95)))}]"
    )
    pv = per_day.values
    _say(f"unexpected interruptions/day: median {_fmt(pv[1])} [90%: {_fmt(pv[0])}, {_fmt(pv[2])}]")
    _say(f"finished before the cap: {100 * float(s['finished_fraction']):.1f}% of trials")
    lost = s["lost_hours_mean"]
    wall = float(s["wall_hours_mean"])
    rows = [
        [str(c), _fmt(float(v)), f"{100 * float(v) / wall:.2f}%"]
        for c, v in zip(lost["cause"].values, lost.values, strict=True)
    ]
    _say()
    _say(_table(["lost to", "mean hours", "% of wall"], rows, [False, True, True]))
    _say()
    _say(f"wrote {path}")
    return 0


def _cmd_optimize(args: argparse.Namespace) -> int:
    from relmc.optimize import optimize_checkpoint
    from relmc.projection import default_scenario
    from relmc.scenario import replace_path

    ov = _check_scenario_options(args)
    _check_out(args.out)
    seed = _seed(args)
    data = _load_data(args)
    _status(f"fitting {args.model} model ...")
    posterior = _fit(args, data, seed)
    sc = _apply(default_scenario(posterior, data), ov, args)
    sc = replace_path(sc, "cluster.n_gpus", args.n_gpus)
    try:
        ds = optimize_checkpoint(
            posterior,
            sc,
            intervals=args.intervals,
            n_trials=args.trials,
            seed=seed,
            n_threads=args.threads,
        )
    except ValueError as e:
        raise (ValueError(f"--intervals: {e}") if str(e).startswith("intervals") else e) from None
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "optimize.nc"
    _write_dataset(ds, path)

    _say(f"relmc optimize: {_model_text(args, posterior, data)}")
    _say(f"{args.n_gpus:,} GPUs; policy: {_policy_text(sc)}")
    _say(
        f"MTTF at the posterior-mean rates {_fmt(ds.attrs['mttf_hours'])} h; "
        f"{args.trials:,} trials per interval, seed {seed}"
    )
    _say()
    rows = []
    for r in ds["rule"].values:
        row = ds.sel(rule=r)
        gain = (
            "-" if r == "optimum" else f"{float(row['gain']):+.5f} +- {float(row['gain_se']):.5f}"
        )
        rows.append(
            [
                str(r),
                f"{60 * float(row['interval_hours']):.3g} min",
                f"{float(row['rule_ettr_mean']):.4f} +- {float(row['rule_ettr_se']):.4f}",
                gain,
            ]
        )
    header = ["interval", "compute between ckpts", "expected ETTR +- SE", "optimum gain +- SE"]
    _say(_table(header, rows, [False, True, True, True]))
    _say()
    _say(
        "expected ETTR on independent trials (one posterior draw each); gain = ETTR(optimum) "
        "- ETTR(rule) on paired trials, with its Monte Carlo SE."
    )
    _say()
    _say(f"wrote {path}")
    return 0


def _cmd_datasets(args: argparse.Namespace) -> int:
    from relmc.datasets import list_datasets, load_dataset

    if args.name is None:
        for name in list_datasets():
            d = load_dataset(name)
            _say(f"{name}")
            _say(
                textwrap.fill(d.attrs["title"], 96, initial_indent="    ", subsequent_indent="    ")
            )
            _say(
                textwrap.fill(
                    f"source: {d.attrs['source']}; {d.sizes['category']} categories, "
                    f"{int(d['count'].sum())} events",
                    96,
                    initial_indent="    ",
                    subsequent_indent="    ",
                )
            )
        _say()
        _say("'relmc datasets NAME' describes one with its provenance.")
        return 0
    d = load_dataset(args.name)
    _say(f"{args.name}: {d.attrs['title']}")
    for key in ("source", "where", "checked", "exposure_assumption", "notes"):
        text = str(d.attrs.get(key, ""))
        if text:
            _say()
            _say(f"{key.replace('_', ' ')}:")
            for para in text.split("\n"):
                _say(textwrap.fill(para, 96, initial_indent="  ", subsequent_indent="  "))
    rows = [
        [
            str(c),
            str(d["group"].values[i]),
            str(d["unit"].values[i]),
            str(int(d["count"].values[i])),
            f"{float(d['exposure'].values[i]):.4g}",
        ]
        for i, c in enumerate(d["category"].values)
    ]
    _say()
    header = ["category", "group", "unit", "count", f"exposure ({d['exposure'].attrs['units']})"]
    _say(_table(header, rows, [False, False, False, True, True]))
    if "maintenance_count" in d:
        _say(f"\nplanned interruptions (kept apart from count): {int(d['maintenance_count'])}")
    return 0


# --------------------------------------------------------------------------------------------
# entry point


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"{PROG}: warning: {_one_line(message)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``relmc`` command; return its exit status (0 ok, 2 bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "sweep":
            from relmc.sweep import main as sweep_main

            return sweep_main(argv[1:])
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version and option errors: return, don't exit
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return args.func(args)
        except BrokenPipeError:  # e.g. `relmc fit | head`: stop quietly, as Unix tools do
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
        except (ValueError, OSError) as e:
            print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            return 130
