"""What the command prints: number formats, tables, and one-line descriptions of a run."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["say", "note", "fmt", "band", "table", "policy_text", "model_text", "projection_table"]


def say(text: str = "") -> None:
    """Print a line of the result on stdout (flushed, so a closed pipe shows at once)."""
    print(text, flush=True)


def note(text: str) -> None:
    """Print a progress note on stderr, only for a person watching a terminal."""
    if sys.stderr.isatty():
        print(text, file=sys.stderr, flush=True)


def fmt(x: float) -> str:
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
    return (
        f"checkpoint {ci_s} ({60 * pol.snapshot_hours:.3g} min blocking), restart "
        f"{60 * pol.restart_hours:.3g} min, {spares}, {maint}; job of {w:,.0f} compute-hours "
        f"({w / 24:.3g} days)"
    )


def model_text(args: argparse.Namespace, posterior, data) -> str:
    """One line describing the data and the fitted model."""
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
                band(row["mttf_hours_quantile"]),
                band(row["interruptions_per_day_quantile"]),
                band(row["ettr_quantile"], lambda x: f"{x:.3f}"),
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
    return table(header, rows, [True, True, True, True, False])
