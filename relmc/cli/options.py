"""Command-line options: one-line parser errors, typed converters, and the scenario options.

Scenario options (``--restart-minutes``, ``--checkpoint-interval``, ...) are generated from the
fields of :class:`relmc.Policy`, :class:`relmc.Job`, :class:`relmc.Cluster` and
:class:`relmc.FailureModel`, with help taken from their docstrings, so the command line cannot
drift from the dataclasses. Every option that sets an API field uses the :class:`Field` action,
which records ``{dotted field: flag}`` in the namespace (``args._flags``); the error handler
(:mod:`relmc.cli.errors`) looks a :class:`relmc.errors.FieldError`'s ``field`` up there to
name the flag that set it.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The largest cluster relmc takes (``relmc.Cluster``'s ``n_gpus`` check, and the observed
#: cluster of ``--observed-gpus`` and ``--fleet CSV:GPUS:HOURS``); relmc.cluster loads only NumPy
from relmc.cluster import MAX_GPUS, MAX_WINDOW_HOURS
from relmc.errors import bound_text

PROG = "relmc"
MAX_CHAINS = 1000  # relmc.models._common's bounds (not imported: the parser stays light)
MAX_POSTERIOR_DRAWS = 10**7
DEFAULT_OUT = "relmc-output"

__all__ = [
    "PROG",
    "DEFAULT_OUT",
    "Parser",
    "Field",
    "FieldAppend",
    "one_line",
    "add_scenario_options",
    "add_data_options",
    "add_run_options",
    "add_out_option",
    "scenario_overrides",
    "add_subcommand",
    "add_precision_options",
    "add_shape_options",
]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``relmc: error: ...``, exit status 2."""

    def error(self, message: str):  # noqa: D102 - argparse hook
        self.exit(2, f"{PROG}: error: {one_line(message)} (see '{self.prog} --help')\n")


def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines included) folded to one space."""
    return " ".join(str(text).split())


class Field(argparse.Action):
    """Store an option's value and record which flag set which API field.

    ``field`` (an extra keyword of ``add_argument``) is the dotted field the value feeds, as a
    :class:`~relmc.errors.FieldError` names it; default: ``dest``.
    """

    def __init__(self, *args, field: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.field = field or self.dest

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: D102
        if isinstance(values, Given):  # a value given in another unit: name it as given
            option_string = f"{option_string} {values.text}"
            values = float(values)
        setattr(namespace, self.dest, values)
        self._record(namespace, option_string)

    def _record(self, namespace, option_string) -> None:
        flags = dict(getattr(namespace, "_flags", {}))
        flags[self.field] = option_string
        namespace._flags = flags


class FieldAppend(Field):
    """Like :class:`Field` for a repeatable option: each use appends to a list."""

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: D102
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        self._record(namespace, option_string)


# --------------------------------------------------------------------------------------------
# typed converters (their __name__ shows in argparse's "invalid NAME value" messages)


def _typed(name: str, fn: Callable[[str], Any]) -> Callable[[str], Any]:
    fn.__name__ = name
    return fn


def _float(s: str) -> float:
    return float(s)


def _positive(what: str, hi: float | None = None) -> Callable[[str], float]:
    """Return a converter to a finite number > 0 (and <= ``hi``), its error naming ``what``."""

    def conv(s: str) -> float:
        v = float(s)
        if not (0 < v < float("inf")) or (hi is not None and v > hi):
            allowed = "> 0"
            if hi is not None:
                allowed = f"in (0, {bound_text(hi)}]"
            raise argparse.ArgumentTypeError(f"must be a finite {what} {allowed}; got {s!r}")
        return v

    return conv


def positive_at_most(hi: float, what: str = "number") -> Callable[[str], float]:
    """Return a converter to a finite number in (0, ``hi``]."""
    return _typed(what, _positive(what, hi))


number = _typed("number", _float)
positive_float = _typed("number", _positive("number"))
positive_hours = _typed("number of hours", _positive("number of hours"))


class Given(float):
    """A number converted from the unit it was given in, with that text (``"-2 min"``).

    Only between a converter and the code that reads it: :class:`Field` stores a plain float
    and names the given text beside the flag in errors, ``relmc compare --policy`` likewise,
    so a refused ``--restart-minutes -2`` reads "got -0.0333... (option --restart-minutes -2)"
    rather than only the hours it became.
    """

    text: str

    @staticmethod
    def of(value: float, text: str) -> Given:
        """Return ``value`` carrying ``text``."""
        given = Given(value)
        given.text = text
        return given


minutes = _typed("number of minutes", lambda s: Given.of(float(s) / 60.0, s.strip()))
days = _typed("number of days", lambda s: Given.of(float(s) * 24.0, s.strip()))
per_day = _typed("number per day", lambda s: Given.of(float(s) / 24.0, s.strip()))


def int_at_least(lo: int, what: str = "integer", hi: int | None = None) -> Callable[[str], int]:
    """Return a converter to an ``int >= lo`` (and ``<= hi``; underscores allowed: ``16_384``)."""

    def conv(s: str) -> int:
        v = int(s.replace("_", ""))
        if v < lo or (hi is not None and v > hi):
            allowed = f">= {lo}" if hi is None else f"in [{lo}, {bound_text(hi)}]"
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}; got {s!r}")
        return v

    return _typed(what, conv)


def _interval(s: str) -> float | str:
    if s in ("young", "daly"):
        return s
    return float(s)


def _spares(s: str) -> int | None:
    from relmc.scenario import MAX_SPARES

    if s.lower() in ("unlimited", "none", "inf"):
        return None
    try:
        v = float(s.replace("_", ""))  # 1e7 is an integer too
    except ValueError:
        v = math.nan
    if not (v.is_integer() and 0 <= v <= MAX_SPARES):
        raise argparse.ArgumentTypeError(
            f"must be an integer in [0, {bound_text(MAX_SPARES)}] or unlimited (also none, "
            f"inf); got {s!r}"
        )
    return int(v)


def int_list(s: str) -> list[int]:
    """Convert ``2048,16384`` to ``[2048, 16384]`` (an empty item, ``2048,,4096``, refused)."""
    try:
        return [int(x.strip().replace("_", "")) for x in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of integers, e.g. 2048,16384; got {s!r}"
        ) from None


def float_list(s: str) -> list[float]:
    """Convert ``0.25,0.5,1`` to ``[0.25, 0.5, 1.0]``."""
    try:
        return [float(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of numbers, e.g. 0.25,0.5,1; got {s!r}"
        ) from None


# --------------------------------------------------------------------------------------------
# scenario options derived from the dataclasses


def plain(text: str) -> str:
    """``text`` without reST markup, for ``--help``: roles, literals and interpreted text.

    ``:func:`~relmc.a.b``` becomes ``b``, ``:class:`relmc.X``` becomes ``relmc.X`` and
    double or single back-quoted text loses its quotes.
    """
    text = re.sub(r":[a-z]+:`~(?:[\w.]*\.)?([^`]+)`", r"\1", text)
    text = re.sub(r":[a-z]+:`([^`]+)`", r"\1", text)
    text = re.sub(r"``([^`]+)``", r"\1", text)
    return re.sub(r"`([^`]+)`", r"\1", text)


def _field_docs(cls) -> dict[str, str]:
    """Parameter descriptions from a numpydoc class docstring (reST markup removed)."""
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
    from relmc.cluster import SHAPE_FIELDS
    from relmc.scenario import Cluster, FailureModel, Job, Policy

    groups: list[tuple[str, list[_Option]]] = []
    said: dict[str, str] = {}  # a paragraph several fields share -> the first flag given it
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
            factory: Any = f.default_factory  # set when the field has no plain default
            default = f.default if f.default is not dataclasses.MISSING else factory()
            text = plain(docs.get(f.name, "")).replace("%", "%%")
            for python, cli in _CLI_WORDS.get(f.name, ()):  # None is not a value a flag takes
                text = text.replace(python, cli)  # a test checks each is found
            if f.name in _SDC_ONLY:
                text += _SDC_NOTE
            if f.name.endswith(("_spread", "_jitter")):  # their shared paragraphs: once
                if text in said:
                    overhead = f.name.rsplit("_", 1)[0].replace("_", " ")
                    text = f"the same as {said[text]}, for the {overhead} overhead"
                else:
                    said[text] = flag
            if f.name == "maintenance_rate":  # default_scenario: the data's or fit's record
                shown = (
                    "the rate the data or fit record, e.g. llama3-405b's 47 in 1,296 h, "
                    "0.87 a day; 0 for data without one"
                )
            elif section == "cluster" and f.name in SHAPE_FIELDS:
                shown = f"{default:g}, or the shape a --posterior fit recorded"
            elif default is None:
                shown = "off" if f.name == "memory_restart_hours" else "unlimited"
            elif isinstance(default, str):
                shown = default
            else:
                shown = f"{default:g}"
            opts: list[_Option] = []
            if f.name == "repair_distribution":
                dist = _typed("distribution", lambda v: v.strip().lower())
                opts.append(_Option((flag,), dest, dist, text, "exponential|fixed"))
            elif f.name == "checkpoint_interval":
                opts.append(
                    _Option((flag,), dest, _typed("interval", _interval), text, "HOURS|young|daly")
                )
                opts.append(
                    _Option((flag + "-minutes",), dest, minutes, "the same in minutes", "MIN")
                )
            elif f.name == "n_spares":
                opts.append(_Option((flag,), dest, _typed("spares", _spares), text, "N|unlimited"))
            elif isinstance(default, int) and not isinstance(default, bool):
                opts.append(_Option((flag,), dest, int_at_least(-(2**62)), text, "N"))
            elif f.name == "compute_hours":
                opts.append(_Option((flag,), dest, number, text, "HOURS"))
                opts.append(_Option(("--compute-days",), dest, days, "the same in days", "DAYS"))
            elif f.name.endswith("_hours"):
                stem = f.name[: -len("_hours")].replace("_", "-")
                opts.append(_Option((flag,), dest, number, text, "HOURS"))
                opts.append(
                    _Option((f"--{stem}-minutes",), dest, minutes, "the same in minutes", "MIN")
                )
            elif f.name == "maintenance_rate":
                opts.append(_Option((flag,), dest, number, text + " Per hour.", "PER_HOUR"))
                opts.append(
                    _Option(("--maintenance-per-day",), dest, per_day, "the same per day", "N")
                )
            else:
                opts.append(_Option((flag,), dest, number, text, "X"))
            first = opts[0]
            opts[0] = dataclasses.replace(first, help=f"{first.help} (default: {shown})")
            groups.append((dest, opts))
    return groups


#: Words of a field's docstring that a flag says otherwise: (the API's, the command line's)
_CLI_WORDS = {
    "n_spares": (("None for an unlimited pool", "unlimited (or none) for an unlimited pool"),),
    "memory_restart_hours": (("None (the default): off", "not given (the default): off"),),
}


#: Fields that only SDC categories read, and what their flags add: project, compare and
#: optimize simulate the data's categories, none of kind "sdc"
_SDC_ONLY = ("checkpoint_retention", "sdc_latency_spread")
_SDC_NOTE = (
    ' Read only where a category has kind "sdc": the bundled data\'s have none; set one in a '
    "scenario file (--scenario, or relmc simulate's), the API or relmc compare --policy "
    "'NAME:failures.categories.Silent Data Corruption.kind=sdc'."
)


def add_scenario_options(p: argparse.ArgumentParser, file: bool = False) -> None:
    """Add one option (or exclusive group of unit variants) per scenario dataclass field.

    ``file``: also ``--scenario TOML``, a scenario file over the data's default scenario
    (relmc project, compare and optimize; relmc simulate takes its file as an argument).
    """
    g = p.add_argument_group(
        "scenario options (fields of relmc.Policy, Job, FailureModel and Cluster; "
        "defaults are relmc's documented reference policy)"
    )
    if file:
        g.add_argument(
            "--scenario",
            type=Path,
            metavar="TOML",
            help="a scenario file (the layout of relmc simulate's; 'relmc simulate --init' "
            "writes one) over the data's default scenario: its [cluster] (not n_gpus: "
            "--n-gpus), [job] and [policy] fields, and its [failures] tables, which change "
            "the data's categories they name (kind, latencies, diurnal_amplitude, ...; not "
            "rate: rate_multiplier) and add straggler and SDC categories of new names; the "
            "options below override it",
        )
    for _, opts in _scenario_options():
        ex = g.add_mutually_exclusive_group()
        for o in opts:
            ex.add_argument(
                *o.flags,
                dest=o.dest,
                type=o.type,
                action=Field,
                default=None,
                help=o.help,
                metavar=o.metavar,
            )


def given(args: argparse.Namespace, field: str) -> bool:
    """Whether a :class:`Field` option feeding ``field`` was given (even as its default)."""
    return field in getattr(args, "_flags", {})


def scenario_overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Scenario fields given on the command line, by section."""
    out: dict[str, dict[str, Any]] = {"policy": {}, "job": {}, "failures": {}, "cluster": {}}
    for dest, _ in _scenario_options():
        if given(args, dest):
            section, name = dest.split(".")
            out[section][name] = getattr(args, dest)
    return out


# --------------------------------------------------------------------------------------------
# shared option groups


def add_data_options(p: argparse.ArgumentParser, posterior: bool = True) -> None:
    """Add ``--dataset``/``--counts`` (``posterior``: and ``--posterior``) and the fit's options.

    The fit's options: ``--observed-*``, ``--model``, ``--n-draws``, ``--n-chains``.
    """
    g = p.add_argument_group("data and model")
    src = g.add_mutually_exclusive_group()
    if posterior:
        src.add_argument(
            "--posterior",
            type=Path,
            metavar="NC",
            help="a fitted posterior netCDF (e.g. DIR/posterior.nc of 'relmc fit'), used as it "
            "is in place of fitting --dataset or --counts: its categories, rates and recorded "
            "maintenance (the fit options below do not apply)",
        )
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
        help="your own counts: columns category, count, exposure (unit-hours), unit; "
        "optional group, recovery (restart|swap) and detection_minutes. Without recovery, "
        "recovery follows group (Dependency, Unknown or no group: restart; others: node swap), "
        "so without both every category is restart-only; without detection_minutes, NCCL "
        "Watchdog Timeouts and Network Switch/Cable are seen after 10 min, others at once "
        "(see relmc.load_counts; the run's header says which applied)",
    )
    g.add_argument(
        "--observed-gpus",
        type=int_at_least(1, hi=MAX_GPUS),
        metavar="N",
        help="with --counts: GPUs the counts were observed on, in [1, 1e8] (exposure may then be "
        "omitted: it is computed with --gpus-per-node and --nodes-per-rack, default 8 and 2); "
        "with relmc fit --events: the fleet's GPUs",
    )
    g.add_argument(
        "--observed-hours",
        type=positive_at_most(MAX_WINDOW_HOURS, "number of hours"),
        metavar="HOURS",
        help="with --counts: length of the observation window, in (0, 1e6] hours",
    )
    g.add_argument(
        "--observed-maintenance",
        type=int_at_least(0),
        metavar="N",
        help="with --counts (and --observed-hours), relmc fit --events or a bundled dataset "
        "that records none: planned interruptions (maintenance) in the observed window, left "
        "out of the counts or the log, a whole number in [0, 2**53]; the fit records N / "
        "window hours as the planned maintenance rate, which projections from it take "
        "(default: none)",
    )
    g.add_argument(
        "--model",
        choices=("conjugate", "hierarchical"),
        default="conjugate",
        action=Field,  # recorded when given, so --posterior can refuse it even as its default
        help="conjugate Gamma-Poisson per category, exact and fast (default), or "
        "hierarchical partial pooling with PyMC NUTS (tens of seconds)",
    )
    g.add_argument(
        "--n-draws",
        type=int_at_least(1, hi=MAX_POSTERIOR_DRAWS),
        action=Field,
        metavar="N",
        help="posterior draws per chain, at most 1e7 over all chains (default: 1000)",
    )
    g.add_argument(
        "--n-chains",
        type=int_at_least(1, hi=MAX_CHAINS),
        default=None,
        metavar="N",
        help="chains, in [1, 1000] (default: 4, as the API; r_hat needs several)",
    )
    g.add_argument(
        "--n-tune",
        type=int_at_least(0, hi=MAX_POSTERIOR_DRAWS),
        action=Field,
        metavar="N",
        help="NUTS tuning steps per chain, in [0, 1e7] (default: 1000, as the API); the "
        "hierarchical and event models only (the conjugate one draws exactly)",
    )


def add_shape_options(p: argparse.ArgumentParser | Any) -> None:
    """Add the observed cluster's shape (``--gpus-per-node`` ...) to a command without scenarios."""
    for name, default, typ, meta in (
        ("gpus_per_node", "8", int_at_least(1), "N"),
        ("nodes_per_rack", "2", int_at_least(1), "N"),
        ("gpus_per_pod", "3072", int_at_least(1), "N"),
        ("links_per_gpu", "1", _float, "X"),
    ):
        p.add_argument(
            "--" + name.replace("_", "-"),
            dest=f"cluster.{name}",
            type=typ,
            action=Field,
            metavar=meta,
            help=f"the observed cluster's shape (default: {default}, Llama 3's): exposure "
            "from --observed-gpus, and recorded in posterior.nc, whose projections count "
            "nodes, racks, pods and links with it",
        )


def add_out_option(p: argparse.ArgumentParser | Any, help: str | None = None) -> None:
    """``--out DIR`` (default ``relmc-output``)."""
    p.add_argument(
        "--out",
        type=Path,
        default=Path(DEFAULT_OUT),
        metavar="DIR",
        help=help or f"output directory, created if needed (default: {DEFAULT_OUT})",
    )


#: The most trials one run takes, as :func:`relmc.simulate` checks it (``MAX_TRIALS`` of
#: :mod:`relmc.sim.simulate`, not imported here: the parser loads no numerics;
#: tests/test_cli.py holds the two equal).
MAX_TRIALS = 100_000_000


def add_run_options(
    p: argparse.ArgumentParser,
    n_trials: int,
    out: bool = True,
    per: str = "scenario",
    min_trials: int = 1,
) -> None:
    """``--n-trials``, ``--seed``, ``--n-threads`` and (if ``out``) ``--out``.

    ``per``: what ``--n-trials`` counts simulated jobs per (a scenario, a cluster size, a
    checkpoint interval, a policy); ``min_trials``: its least value (2 for a comparison,
    whose gains need a standard error).
    """
    g = p.add_argument_group("run")
    g.add_argument(
        "--n-trials",
        type=int_at_least(min_trials, hi=MAX_TRIALS),
        action=Field,
        default=n_trials,
        metavar="N",
        help=f"simulated jobs per {per}, in [{min_trials}, 1e8] (default: {n_trials})",
    )
    g.add_argument(
        "--seed",
        type=int_at_least(0),
        metavar="INT",
        help="root seed (default: fresh; the one used is printed and stored in the output)",
    )
    g.add_argument(
        "--n-threads",
        type=int_at_least(1),
        metavar="N",
        help="kernel threads (default: all cores); results do not depend on it",
    )
    if out:
        add_out_option(g)


def add_precision_options(p: argparse.ArgumentParser) -> None:
    """``--target-se``, ``--target-rse``, ``--hopeless-ettr``: :class:`relmc.Precision` fields."""
    g = p.add_argument_group(
        "adaptive precision (relmc.Precision; any target makes --n-trials a budget: first "
        "--min-trials trials (default 512), then rounds that double the total, each of whole "
        "256-trial blocks but the last, cut at the budget, stopping at the first target met or "
        "at the budget; a budget below --min-trials runs the budget)"
    )
    g.add_argument(
        "--target-se",
        type=_typed("number", _float),
        action=Field,
        field="precision.target_se",
        metavar="SE",
        help="stop once the Monte Carlo SE of mean ETTR is at most SE (> 0), e.g. 0.001",
    )
    g.add_argument(
        "--target-rse",
        type=_typed("number", _float),
        action=Field,
        field="precision.target_rse",
        metavar="RSE",
        help="stop once SE / mean ETTR is at most RSE (> 0), e.g. 0.002",
    )
    g.add_argument(
        "--hopeless-ettr",
        type=_typed("number", _float),
        action=Field,
        field="precision.hopeless_ettr",
        metavar="ETTR",
        help="stop early, flagged hopeless, once mean ETTR + 4 SE is below ETTR, in (0, 1]",
    )
    g.add_argument(
        "--min-trials",
        type=int_at_least(2),
        action=Field,
        field="precision.min_trials",
        metavar="N",
        help="trials before the first check, >= 2 (default 512, two blocks; rounded up to "
        "whole blocks); only with a target",
    )


def add_subcommand(sub, name: str, help: str, epilog: str) -> argparse.ArgumentParser:
    """Add subcommand ``name`` to ``sub`` (from ``add_subparsers``) with help and examples."""
    return sub.add_parser(
        name,
        help=help,
        description=help,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
