"""What the command prints: number formats, tables, and one-line descriptions of a run."""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import itertools
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "say",
    "note",
    "fmt",
    "band",
    "table",
    "policy_text",
    "model_text",
    "projection_table",
    "PROJECTION_NOTE",
    "PROJECTION_NOTE_NO_CREDIBLE",
    "projection_note",
    "assumed_text",
    "print_assumed",
    "recovery_text",
    "plural",
    "add_summary_options",
    "summary_names",
    "human_output",
    "summary_json",
    "summary_csv",
    "write_summaries",
    "print_summaries",
]


def say(text: str = "") -> None:
    """Print a line of the human-readable report (flushed, so a closed pipe shows at once).

    On stdout, unless a summary goes there (then stderr) or ``--quiet`` (nowhere); see
    :func:`human_output`.
    """
    where = _HUMAN[-1] if _HUMAN else "stdout"
    if where != "none":
        print(text, file=sys.stderr if where == "stderr" else sys.stdout, flush=True)


def note(text: str) -> None:
    """Print a progress note on stderr, only for a person watching a terminal."""
    if sys.stderr.isatty():
        print(text, file=sys.stderr, flush=True)


#: from this magnitude up, :func:`fmt` writes scientific notation (1e12 h is 100 million
#: years: no ordinary MTTF, count or duration reaches it)
FMT_SCIENTIFIC = 1e12


def fmt(x: float) -> str:
    """Format a number with about three significant figures.

    Ordinary magnitudes in plain digits (``3.09``, ``1,296``); from :data:`FMT_SCIENTIFIC`
    up, and below 1e-4 (``.3g``'s own switch), compact scientific notation (``1.23e+15``),
    so that an extreme value (an exposure of 1e308) prints in a few characters, not hundreds.
    """
    if not math.isfinite(x):
        return str(x)
    a = abs(x)
    if a >= FMT_SCIENTIFIC:
        return f"{x:.3g}"
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def band(da, fmt: Callable[[float], str] = fmt) -> str:
    """``median [5%, 95%]`` of a DataArray with a ``quantile`` dim."""
    q = {float(k): float(v) for k, v in zip(da["quantile"].values, da.values, strict=True)}
    return f"{fmt(q[0.5])} [{fmt(q[0.05])}, {fmt(q[0.95])}]"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """Plain-text table; ``right[i]`` right-aligns column ``i``."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def policy_text(sc) -> str:
    """One line describing a scenario's policy and job."""
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
    text = (
        f"checkpoint {ci_s} ({60 * pol.snapshot_hours:.3g} min blocking), restart "
        f"{60 * pol.restart_hours:.3g} min, {spares}, {maint}; job of {w:,.0f} compute-hours "
        f"({w / 24:.3g} days)"
    )
    features = sc.features()
    return text + (f"; with {', '.join(features)}" if features else "")


def model_text(args: argparse.Namespace, posterior, data) -> str:
    """One line describing the data and the fitted model (``data`` None: ``--posterior``)."""
    post = posterior.posterior
    n = post.sizes["chain"] * post.sizes["draw"]
    if data is None:
        fitted = str(post.attrs.get("dataset", "")) or "user data"
        model = str(post.attrs.get("model", "")) or "a model"
        terms = str(post.attrs.get("model_terms", ""))  # an event model's, drawn per trial
        return (
            f"posterior {args.posterior} ({model} fit of {fitted}"
            f"{f'; {terms}, per draw' if terms else ''}): "
            f"{plural(post.sizes['category'], 'category')}, {n} draws"
        )
    name = data.attrs.get("name", "") or "user data"
    kind = "conjugate Gamma-Poisson" if args.model == "conjugate" else "hierarchical (PyMC)"
    if getattr(args, "fleet", None):
        kind = f"fleets model (PyMC; with {', '.join(args.fleet)})"
    if getattr(args, "events", None) is not None:
        terms = str(post.attrs.get("model_terms", "")) or "homogeneous"
        kind = f"event model (PyMC; {terms})"
    n_cat, n_ev = data.sizes["category"], int(data["count"].sum())
    return f"{name}: {plural(n_cat, 'category')}, {plural(n_ev, 'event')}; {kind}, {n} draws"


def plural(n: int, word: str) -> str:
    """``"1 category"``, ``"2 categories"``, ``"1,000 events"``."""
    if n == 1:
        return f"1 {word}"
    many = word[:-1] + "ies" if word.endswith("y") else word + "s"
    return f"{n:,} {many}"


def recovery_text(data) -> str:
    """Which recovery and detection rules a user's counts get (printed in a run's header)."""
    given = set(filter(None, str(data.attrs.get("recovery_columns", "")).split(",")))
    groups = any(str(g) for g in data["group"].values) if "group" in data else False
    if "recovery" in given:
        rec = "recovery from the recovery column (blank cells: by group)"
    elif groups:
        rec = (
            "no recovery column: recovery by group (Dependency, Unknown or none: restart; "
            "others: node swap)"
        )
    else:
        rec = "no recovery or group column: every category restart-only (no node swap)"
    if "detection_minutes" in given:
        det = (
            "detection from the detection_minutes column (blank cells: 10 min for NCCL "
            "Watchdog Timeouts and Network Switch/Cable, others at once)"
        )
    else:
        det = (
            "no detection_minutes column: NCCL Watchdog Timeouts and Network Switch/Cable "
            "seen after 10 min, others at once"
        )
    return f"{rec}; {det}"


def recovery_line(args: argparse.Namespace, data, sc) -> str:
    """Return a run's ``recovery:`` header line, or "" for a bundled dataset.

    From the counts' columns (``--counts``), or, from ``--posterior`` (``data`` None), the
    recovery the scenario's categories got.
    """
    if data is None:
        return f"recovery: {scenario_recovery_text(sc)}"
    if args.counts is not None:
        return f"recovery: {recovery_text(data)}"
    return ""


def scenario_recovery_text(sc) -> str:
    """Return which categories a scenario swaps a node for, restarts, and detects late.

    For a run from ``--posterior``, whose data (and so its columns) is not at hand: the
    recovery the fit's rules gave each category, as the simulation uses it.
    """
    cats = sc.failures.categories
    swap = [c.name for c in cats if c.recovery == "swap"]
    restart = [c.name for c in cats if c.recovery != "swap"]
    late = [f"{c.name} ({fmt(60 * c.detection_hours)} min)" for c in cats if c.detection_hours > 0]
    if not swap:
        parts = ["every category restart-only (no node swap)"]
    elif not restart:
        parts = ["a node swap for every category"]
    else:
        parts = [f"node swap for {', '.join(swap)}", f"restart only for {', '.join(restart)}"]
    parts.append(f"detected late: {', '.join(late)}" if late else "every category detected at once")
    return "; ".join(parts)


_CAUSE_TEXT = {"node_swap": "node swap", "spare_wait": "spare wait"}


def _three(x: float) -> str:
    return f"{x:.3f}"


#: What the columns of :func:`projection_table` are, printed under it.
PROJECTION_NOTE = (
    "median [90% interval]. (job): posterior predictive for one job, over trials with one "
    "posterior draw each (which rates are true and the job's own luck); E[...] and MTTF: "
    "credible intervals of the expected value over posterior draws (rates only). MTTF: mean "
    "running time to an unexpected interruption, 1/Lambda(N) on the exposed clock."
)


#: :data:`PROJECTION_NOTE` for a table without the E[...] columns (``credible_trials=0``).
PROJECTION_NOTE_NO_CREDIBLE = (
    "median [90% interval]. (job): posterior predictive for one job, over trials with one "
    "posterior draw each (which rates are true and the job's own luck). MTTF (mean running "
    "time to an unexpected interruption, 1/Lambda(N) on the exposed clock): a credible "
    "interval over posterior draws (rates only). No E[...] columns: the credible simulation "
    "was skipped (credible_trials=0)."
)


def _has_credible(ds) -> bool:
    """Whether a projection ran its credible simulation (``credible_trials=0`` leaves NaN)."""
    if "ettr_credible" not in ds or "interruptions_per_day_credible" not in ds:
        return False
    return bool(np.isfinite(ds["ettr_credible"].values).any())


def projection_note(ds) -> str:
    """Say what the columns of :func:`projection_table`'s table of ``ds`` are.

    :data:`PROJECTION_NOTE`, or :data:`PROJECTION_NOTE_NO_CREDIBLE` where the table leaves
    the E[...] columns out (a projection run with ``credible_trials=0``).
    """
    return PROJECTION_NOTE if _has_credible(ds) else PROJECTION_NOTE_NO_CREDIBLE


def projection_table(ds) -> str:
    """Format a :func:`relmc.project` result as a table: medians with 90% intervals.

    Parameters
    ----------
    ds : xarray.Dataset
        A projection (possibly re-opened from netCDF).

    Returns
    -------
    str
        One row per size: MTTF (h); unexpected interruptions per day and ETTR, each as one
        job's posterior-predictive band and as the credible band of the expected value (when
        the projection has ``*_credible``); the two largest causes of lost time (mean share
        of wall-clock time). See :func:`projection_note`.
    """
    rows = []
    # credible_trials=0 skips the credible simulation: its variables are NaN, its columns left out
    credible = _has_credible(ds)
    noisy = []  # E[...] cells whose per-draw means are mostly Monte Carlo noise
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
        cells = [f"{int(n):,}", band(row["mttf_hours_quantile"])]
        for name, f in (("interruptions_per_day", fmt), ("ettr", _three)):
            cells.append(band(row[f"{name}_quantile"], f))
            if credible:
                cell = band(row[f"{name}_credible"], f)
                noise = float(row.get(f"{name}_credible_noise", np.nan))
                if noise > NOISY_CREDIBLE:
                    cell += " *"
                    noisy.append(noise)
                cells.append(cell)
        rows.append([*cells, top])
    header = ["GPUs", "MTTF h", "interruptions/day (job)"]
    header += ["E[interruptions/day]"] if credible else []
    header += ["ETTR (job)"] + (["E[ETTR]"] if credible else [])
    header += ["top lost time (% of wall)"]
    text = table(header, rows, [True] * (len(header) - 1) + [False])
    if noisy:
        lo, hi = f"{min(noisy):.2g}", f"{max(noisy):.2g}"
        text += (
            f"\n* not resolved: Monte Carlo noise is {lo if lo == hi else f'{lo}-{hi}'} of the "
            "spread of the per-draw means (few events a job): the interval is resolved only "
            "as far as the draws' failure rates explain it, and what else differs between "
            "draws (overheads, the categories' mix) is estimated from noise; raise "
            "--trials-per-draw and --credible-trials together (the draws are their ratio)"
        )
    n_cred = int(ds.attrs.get("n_draws_credible", 0))
    if credible and 1 < n_cred < FEW_CREDIBLE_DRAWS and n_cred < int(ds.attrs.get("n_draws", 0)):
        text += (
            f"\nE[...] from {n_cred} posterior draws only: their 5% and 95% quantiles are rough; "
            "raise --credible-trials (draws = credible trials / trials per draw)"
        )
    return text


#: Posterior draws of the credible simulation below which ``projection_table`` says its
#: E[...] quantiles are rough (the 5% quantile of 100 draws sits on about 5 of them).
FEW_CREDIBLE_DRAWS = 100


#: The share of Monte Carlo noise in the per-draw means above which ``projection_table``
#: marks an E[...] interval as not resolved (``*_credible_noise``; near 1 the interval is
#: resolved only as far as the draws' failure rates explain it).
NOISY_CREDIBLE = 0.5


def assumed_text(items, setter: str) -> str:
    """One ``assumed:`` line naming the unsourced defaults a run used (empty if none).

    Parameters
    ----------
    items : list of (relmc.defaults.AssumedDefault, value)
        From :func:`relmc.defaults.assumed_values`.
    setter : str
        How to set them (``"set with --swap-minutes, ..."``).
    """
    if not items:
        return ""
    parts = []
    for a, v in items:
        if isinstance(v, str):
            shown = f"{v} rule"
        elif a.field == "policy.repair_hours":
            shown = f"{v:g} h"
        else:
            shown = f"{60 * v:.3g} min"
        parts.append(f"{a.what} {shown}")
    return f"assumed: {', '.join(parts)} (relmc defaults, no published value; {setter})"


def print_assumed(args: argparse.Namespace, text: str) -> None:
    """Print the ``assumed:`` line on stderr, unless ``--quiet`` or there is none."""
    if text and not getattr(args, "quiet", False):
        print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# machine-readable summaries: --json / --csv, and where the human output goes

STDOUT = "-"

SUMMARY_HELP = """\
summaries: --json NAME and --csv NAME write the numbers of the command's netCDF output (every
variable without a trial dim) into DIR/NAME, with the other files of the run (same run id,
all or none); NAME is a file name inside --out. NAME '-' prints the summary on stdout instead,
and the human-readable report then goes to stderr (--quiet drops it). CSV: one row per
size (project), category (fit), rule (optimize) or policy (compare: the column scenario), or a
single row (simulate); extra dims are flattened into columns NAME[VALUE,...], and a variable
without the row dim (optimize's search curve) repeats on every row.
"""


def add_summary_options(p: argparse.ArgumentParser) -> None:
    """``--json NAME|-``, ``--csv NAME|-`` and ``--quiet``."""
    g = p.add_argument_group("summaries", SUMMARY_HELP)
    g.add_argument(
        "--json",
        metavar="NAME|-",
        help="also write the summary as JSON: DIR/NAME, or '-' for stdout (report to stderr)",
    )
    g.add_argument(
        "--csv",
        metavar="NAME|-",
        help="also write the summary as CSV: DIR/NAME, or '-' for stdout (report to stderr)",
    )
    g.add_argument("--quiet", action="store_true", help="no human-readable report")


def summary_names(args: argparse.Namespace, taken: Sequence[str]) -> list[str]:
    """Validate ``--json``/``--csv``; return the file names they add to the output set."""
    given = {f"--{k}": getattr(args, k, None) for k in ("json", "csv")}
    given = {k: v for k, v in given.items() if v is not None}
    if list(given.values()).count(STDOUT) > 1:
        raise ValueError("--json - and --csv - both print on stdout; send one of them to a file")
    names: list[str] = []
    for flag, name in given.items():
        if name == STDOUT:
            continue
        if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
            raise ValueError(
                f"{flag} takes a file name inside --out (or '-' for stdout); got {name!r}"
            )
        if name in (*taken, *names):
            raise ValueError(f"{flag}: {name!r} is already one of this run's files")
        names.append(name)
    return names


_HUMAN: list[str] = []  # a stack: where say() writes while a command runs


@contextlib.contextmanager
def human_output(args: argparse.Namespace) -> Iterator[None]:
    """Send :func:`say` to stdout, to stderr (a summary on stdout) or nowhere (``--quiet``)."""
    if getattr(args, "quiet", False):
        where = "none"
    elif STDOUT in (getattr(args, "json", None), getattr(args, "csv", None)):
        where = "stderr"
    else:
        where = "stdout"
    _HUMAN.append(where)
    try:
        yield
    finally:
        _HUMAN.pop()


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()] if x.ndim else _jsonable(x.item())
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None  # JSON has no NaN or infinity
    return x


def summary_dataset(ds) -> Any:
    """``ds`` without per-trial variables and coordinates (dim ``trial``)."""
    drop = [k for k, v in ds.variables.items() if "trial" in v.dims]
    return ds.drop_vars(drop)


def summary_json(ds, command: str, run_id: str, files: Sequence[Any] | None = None) -> str:
    """JSON of a summary dataset: coordinates, variables (dims, units, values) and attrs.

    ``files`` (the paths written; only known once they are in place) is added when given.
    """
    ds = summary_dataset(ds)
    doc = {
        "command": f"relmc {command}",
        "relmc_run_id": run_id,
        **({} if files is None else {"files": [str(f) for f in files]}),
        "attrs": {
            k: _jsonable(v)
            for k, v in ds.attrs.items()
            if isinstance(v, str | int | float | np.generic)
        },
        "coords": {k: _jsonable(v.values) for k, v in ds.coords.items()},
        "variables": {
            k: {
                "dims": list(v.dims),
                "units": str(v.attrs.get("units", "")),
                "values": _jsonable(v.values),
            }
            for k, v in ds.data_vars.items()
        },
    }
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


#: the dim along which each command's CSV summary has one row (None: a single row)
ROW_DIM = {
    "project": "n_gpus",
    "fit": "category",
    "optimize": "rule",
    "compare": "scenario",
    "simulate": None,
}


def column_label(x) -> str:
    """Return a coordinate value as a CSV column name shows it: floats to 6 digits.

    A search curve's intervals read ``ettr_mean[0.14153]`` rather than 17 digits; quantile
    levels, sizes and names read as they are.
    """
    v = _jsonable(x)
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def summary_csv(ds, command: str) -> str:
    """CSV of a summary dataset: one row per element of its row dim (see ``SUMMARY_HELP``)."""
    ds = summary_dataset(ds)
    row = ROW_DIM[command]
    n_rows = ds.sizes[row] if row else 1
    columns: dict[str, list[Any]] = {}
    if row:
        columns[row] = _jsonable(ds[row].values)
        for name, c in ds.coords.items():  # labels along the rows, e.g. each category's unit
            if name != row and c.dims == (row,):
                columns[str(name)] = _jsonable(c.values)
    for name, v in ds.data_vars.items():
        extra = [d for d in v.dims if d != row]
        v = v.transpose(*([row] if row in v.dims else []), *extra)
        values = np.asarray(v.values)
        if row not in v.dims:
            values = np.broadcast_to(values, (n_rows, *values.shape))
        values = values.reshape(n_rows, -1)
        if not extra:
            columns[name] = [_jsonable(x) for x in values[:, 0]]
            continue
        labels = [
            ",".join(column_label(x) for x in combo)
            for combo in itertools.product(*(v[d].values for d in extra))
        ]
        for j, label in enumerate(labels):
            columns[f"{name}[{label}]"] = [_jsonable(x) for x in values[:, j]]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for i in range(n_rows):
        w.writerow(["" if c[i] is None else c[i] for c in columns.values()])
    return buf.getvalue()


def write_summaries(st, args: argparse.Namespace, ds, command: str) -> None:
    """Write ``--json``/``--csv`` files (not ``-``) into the staging folder ``st``."""
    from relmc._io import write_bytes

    for kind in ("json", "csv"):
        name = getattr(args, kind, None)
        if name is None or name == STDOUT:
            continue
        text = summary_json(ds, command, st.run_id) if kind == "json" else summary_csv(ds, command)
        write_bytes(st.path(name), text.encode())


def print_summaries(args: argparse.Namespace, ds, command: str, run_id: str, files) -> None:
    """Print the ``-`` summary (``--json -`` or ``--csv -``) on stdout, after the files."""
    if getattr(args, "json", None) == STDOUT:
        sys.stdout.write(summary_json(ds, command, run_id, files))
    elif getattr(args, "csv", None) == STDOUT:
        sys.stdout.write(summary_csv(ds, command))
    sys.stdout.flush()
