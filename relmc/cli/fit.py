"""``relmc fit``: fit a failure-rate posterior and print it per category."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import xarray as xr

from relmc._io import write_netcdf
from relmc.cli import inputs, options, output
from relmc.cli.output import fmt, model_text, note, recovery_text, say, table
from relmc.cluster import MAX_FLEET_AGE_HOURS

#: relmc.models.fleets.MAX_FLEET_SIGMA (not imported: the parser loads no PyMC nor ArviZ;
#: tests/test_cli.py holds the two equal)
MAX_FLEET_SIGMA = 10.0

EPILOG = """\
Prints, per category: its count; its rate per unit-hour, the posterior mean with a 90%
credible interval; the mean rate per unit-year (a mean only); and at --n-gpus the hours between
its interruptions, 1 / (the posterior mean of its rate on the cluster), from means.
Then the job MTTF at --n-gpus over all categories: the posterior median of 1/Lambda (Lambda the
cluster's total rate) with its 90% interval, and the median unexpected interruptions per day,
24 / that median (the sum of the categories' means is not the median); a hierarchical fit adds a
population check (relmc.models.population_check: the categories whose count the population of
the others rarely gives, p < 0.05; in --json/--csv as count_p); writes DIR/posterior.nc, which
'relmc project|compare|optimize|simulate --posterior DIR/posterior.nc' use without refitting.

examples:
  relmc fit
  relmc fit --dataset rsc-1 --n-gpus 131072
  relmc fit --counts my_cluster.csv --observed-gpus 4096 --observed-hours 720 \\
      --model hierarchical --n-draws 2000 --seed 3

An event log (one row per interruption: time, category, optionally node, gpus, unit, group;
relmc.load_events) is fitted with --events LOG --observed-gpus N --window-end END (and
--window-start for ISO 8601 times): the event model (relmc.fit_events, PyMC), homogeneous
unless --diurnal, --trend (with --fleet-age-at-start-hours) or --nodes add its terms. Its posterior
carries the terms per draw, which 'relmc project|simulate --posterior' then simulate.

  relmc fit --events examples/event_log.csv --observed-gpus 16384 \\
      --window-start 2024-03-01T00:00:00 --window-end 2024-04-30T00:00:00 \\
      --diurnal category --trend --fleet-age-at-start-hours 2000 --nodes mixture --seed 1

Several fleets at once (relmc.fit_fleets, PyMC): the data above (--dataset or --counts; not
--events, which is fitted on its own) is the fleet with categories; each --fleet adds one
that reports only its total, a bundled dataset (rsc-1, rsc-2) or a counts CSV of one row
with its size and window (CSV:GPUS:HOURS). A log-normal multiplier per fleet scales the
shared category rates; the table then gives a new fleet's rates (the fleets' spread
included), which posterior.nc carries to 'relmc project', and the fleets' multipliers
follow.

  relmc fit --fleet rsc-1 --fleet rsc-2 --seed 1
  relmc fit --counts racks.csv --observed-gpus 4096 --observed-hours 720 \\
      --fleet rsc-1 --fleet other.csv:8192:2000

example scripts, the same from Python (installed with relmc; 'relmc examples --copy DIR' copies
them): quickstart.py (the Llama 3 fit), own_cluster.py (a counts CSV: examples/my_cluster.csv
shows the columns), event_log.py (fitting an event log: daily cycles, trend, lemon nodes),
fleets.py (several fleets: a new fleet's bands)"""


def add_parser(sub) -> None:
    """Register ``relmc fit``."""
    p = options.add_subcommand(
        sub, "fit", "fit a failure-rate posterior and print it per category", EPILOG
    )
    p.add_argument(
        "--n-gpus",
        type=options.int_at_least(1, hi=options.MAX_GPUS),
        metavar="N",
        help="size for the MTTF column, in [1, 1e8] (default: the data's cluster size, else 16384)",
    )
    p.add_argument("--seed", type=options.int_at_least(0), metavar="INT", help="seed of the fit")
    options.add_out_option(p, help=f"output directory (default: {options.DEFAULT_OUT})")
    options.add_data_options(p, posterior=False)
    g = p.add_argument_group("event log (relmc.load_events and relmc.fit_events)")
    g.add_argument("--events", type=Path, metavar="CSV", help="an event log to fit")
    g.add_argument(
        "--window-start",
        metavar="T",
        help="the window's start: hours on the log's axis, or ISO 8601 (needed for ISO times)",
    )
    g.add_argument("--window-end", metavar="T", help="the window's end (required with --events)")
    g.add_argument(
        "--start-hour",
        type=float,
        metavar="H",
        help="hour of day at the window's start, numeric times only (default 0)",
    )
    g.add_argument(
        "--fleet-age-at-start-hours",
        type=options.positive_at_most(MAX_FLEET_AGE_HOURS, "number of hours"),
        metavar="H",
        help="the fleet's age at the window's start, hours in (0, 1e7] (needed with --trend; "
        "relmc.load_events' fleet_age_at_start_hours). The posterior records the age at the "
        "window's end, where its rates hold, as fleet_age_hours. With --trend, an age under "
        "168 h (a window over the fleet's first week) makes the fit orders of magnitude slower "
        "(see relmc.fit_events' trend)",
    )
    # project / simulate's --fleet-age-hours is the age at the job's start: refused here
    # with a pointer, not taken for the log's
    g.add_argument("--fleet-age-hours", dest="fleet_age_job", help=argparse.SUPPRESS)
    g.add_argument(
        "--diurnal",
        choices=("category", "pooled"),
        help="a daily cycle of the rates: per category, or one shared by all",
    )
    g.add_argument("--trend", action="store_true", help="a fleet-level power-law trend")
    g.add_argument(
        "--nodes",
        choices=("mixture", "frailty"),
        help="per-node heterogeneity (lemon nodes); needs a node column",
    )
    g = p.add_argument_group("several fleets (relmc.fit_fleets)")
    g.add_argument(
        "--fleet",
        action="append",
        metavar="NAME|CSV:GPUS:HOURS",
        help="a fleet that reports only its total (repeatable): a bundled dataset, or a counts "
        "CSV of one row observed on GPUS GPUs for HOURS hours, packed as Llama 3 (8 GPUs a "
        "node; the shape options describe --counts); fits the fleets model",
    )
    g.add_argument(
        "--fleet-sigma",
        type=options.positive_at_most(MAX_FLEET_SIGMA),
        metavar="X",
        help="scale of the half-normal prior on the sd of log fleet multipliers, in (0, 10] "
        "(default: 1, fleets that differ by a factor up to about e)",
    )
    options.add_shape_options(p)
    output.add_summary_options(p)
    p.set_defaults(func=run)


_EVENT_OPTIONS = ("window_start", "window_end", "start_hour", "fleet_age_at_start_hours",
                  "diurnal", "nodes")  # fmt: skip


def _check_fleets(args: argparse.Namespace) -> None:
    """Refuse --fleet-sigma without --fleet, and what --fleet cannot take."""
    if not args.fleet:
        if args.fleet_sigma is not None:
            raise ValueError("--fleet-sigma goes with --fleet (several fleets)")
        return
    if args.events is not None:
        raise ValueError("--fleet: not with --events (an event log is fitted on its own)")
    if options.given(args, "model"):
        raise ValueError("--model: not with --fleet (several fleets are fitted by their own model)")


#: p-value below which ``population_text`` lists a category
CHECK_P = 0.05


def population_text(check: xr.Dataset) -> str:
    """Lines of :func:`relmc.models.population_check`: the categories out of line."""
    p = check["count_p"]
    low = [str(k) for k, v in zip(p["category"].values, p.values, strict=True) if v < CHECK_P]
    head = (
        "population check (each category's count against the population of the others, "
        "leave one out; two-sided p):"
    )
    if not low:
        at = int(np.argmin(p.values))
        return (
            f"{head}\n  all {p.size} categories at p >= {CHECK_P} (lowest {p.values[at]:.2g}, "
            f"{p['category'].values[at]})"
        )
    lines = [head]
    for k in low:
        row = check.sel(category=k)
        side = "above" if float(row["count_p_upper"]) < float(row["count_p_lower"]) else "below"
        lines.append(
            f"  {k}: observed {int(row['count_observed']):,}, {side} what the others' "
            f"population gives, p = {float(row['count_p']):.2g}"
        )
    lines.append(
        f"  ({len(low)} of {p.size} at p < {CHECK_P}; about 1 in 20 would be by chance alone)"
    )
    return "\n".join(lines)


def fleet_summary(post) -> dict[str, xr.DataArray]:
    """Each fleet's multiplier and sigma, quantiles over draws (for --json/--csv)."""
    levels = [0.05, 0.5, 0.95]
    out = {}
    for name, what in (
        ("fleet_multiplier", "multiplier of each fleet's category rates against the first"),
        ("sigma", "sd of log fleet multipliers"),
    ):
        da = post[name].quantile(levels, dim=("chain", "draw"))
        out[f"{name}_quantile"] = da.transpose(..., "quantile").assign_attrs(
            units="1", long_name=f"{what}: posterior quantiles"
        )
    return out


def fleets_text(fleets: dict[str, xr.DataArray]) -> str:
    """Lines of a fleets fit from :func:`fleet_summary`: each multiplier and sigma, median [90%]."""

    def band(da) -> str:
        lo, med, hi = da.values
        return f"{med:.3g} [{lo:.3g}, {hi:.3g}]"

    mult = fleets["fleet_multiplier_quantile"]
    names = [str(f) for f in mult["fleet"].values]
    rows = [[names[0], "1 (reference)"]]
    rows += [[name, band(mult.sel(fleet=name))] for name in names[1:]]
    return (
        f"fleets: multiplier on the shared category rates against {names[0]}, median [90%]; "
        f"sd of log multipliers (sigma) {band(fleets['sigma_quantile'])}\n"
        + table(["fleet", "multiplier"], rows, [False, True])
        + "\nthe rates above are a new fleet's (the fleets' spread included): posterior.nc's "
        "'rate', which relmc project uses; an observed fleet's are its 'fleet_rate'. A "
        "log-normal multiplier makes them heavy-tailed: a mean (the table's rate and hours "
        "between) can lie above its 90% interval, and the job MTTF line gives the median"
    )


def _check_events(args: argparse.Namespace) -> None:
    """Refuse event-log options without --events, and the options --events cannot take."""
    if args.fleet_age_job is not None:
        raise ValueError(
            "--fleet-age-hours: relmc fit takes --fleet-age-at-start-hours, the fleet's age at "
            "the log's window start (--fleet-age-hours of project / simulate / compare is the "
            "fleet's age when the job starts)"
        )
    if args.events is None:
        given = [o for o in _EVENT_OPTIONS if getattr(args, o) is not None]  # 0 h is given
        given += ["trend"] if args.trend else []
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise ValueError(f"{flag} goes with --events (an event log)")
        return
    for flag, value in (
        ("--dataset", args.dataset),
        ("--counts", args.counts),
        ("--observed-hours", args.observed_hours),
        ("--model", args.model if options.given(args, "model") else None),
    ):
        if value is not None:
            raise ValueError(f"{flag}: not with --events (the log's window and model are its own)")
    if args.observed_gpus is None:
        raise ValueError("--observed-gpus: required with --events (the fleet's GPUs)")
    if args.window_end is None:
        raise ValueError("--window-end: required with --events (the window's end)")
    if args.trend and args.fleet_age_at_start_hours is None:
        raise ValueError(
            "--fleet-age-at-start-hours: required with --trend (the fleet's age at the "
            "window's start)"
        )


def _time(text: str | None):
    """Return a window bound as given: a number of hours, else the text (ISO 8601)."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return text


#: load_events' arguments as relmc fit's options
_EVENT_FLAGS = {
    "start": "--window-start",
    "end": "--window-end",
    "start_hour": "--start-hour",
    "n_gpus": "--observed-gpus",
    "fleet_age_at_start_hours": "--fleet-age-at-start-hours",
    "maintenance_count": "--observed-maintenance",
}


def _load_events(args: argparse.Namespace):
    from relmc.events import load_events

    shape = inputs.cluster_shape(args)
    try:
        events = load_events(
            args.events,
            n_gpus=args.observed_gpus,
            end=_time(args.window_end),
            start=_time(args.window_start),
            start_hour=args.start_hour,
            fleet_age_at_start_hours=args.fleet_age_at_start_hours,
            shape=shape,
            maintenance_count=args.observed_maintenance,
        )
    except ValueError as e:
        # the loader names its arguments (start, end, ...): say which options they are
        field = getattr(e, "field", None)
        if field in _EVENT_FLAGS:
            raise ValueError(f"{_EVENT_FLAGS[field]}: {e}") from None
        hint = " (the window: --window-start, --window-end)" if field == "window" else ""
        raise ValueError(f"--events: {e}{hint}") from None
    if args.nodes is not None and not int(events.attrs.get("has_nodes", 0)):
        raise ValueError(f"--nodes: needs an event log with a node column; {args.events} has none")
    return events


def _rate_rows(
    posterior, data, n: int
) -> tuple[list[str], list[list[str]], list[bool], xr.Dataset, bool]:
    """Tabulate :func:`relmc.rates.summarize_rates` per category.

    Returns ``(header, rows, right-aligned, summary, scalable)``; the size columns appear only
    when every category's unit scales with cluster size (``scalable``).
    """
    from relmc import cluster
    from relmc.rates import summarize_rates

    units = [str(u) for u in posterior.posterior["rate"]["unit"].values]
    scalable = all(u in cluster.UNITS for u in units)
    s = summarize_rates(posterior, n_gpus=n if scalable else None)
    rows = []
    for c in s["category"].values:
        row_s = s.sel(category=c)
        lo, hi = row_s["rate_quantile"].sel(quantile=[0.05, 0.95]).values
        row = [
            str(c),
            str(row_s["unit"].item()),
            str(int(data["count"].sel(category=c))),
            f"{float(row_s['rate_mean']):.3g} [{lo:.3g}, {hi:.3g}]",
        ]
        if scalable:
            row.append(f"{float(row_s['rate_per_unit_year_mean']):.3g}")
            row.append(fmt(float(row_s["hours_between_mean"])))
        rows.append(row)
    header = ["category", "unit", "count", "rate: mean [90%]"]
    right = [False, False, True, True]
    if scalable:
        header += ["mean per unit-year", f"h between (1/mean), at {n:,} GPUs"]
        right += [True, True]
    return header, rows, right, s, scalable


def run(args: argparse.Namespace) -> int:
    """Run ``relmc fit``."""
    from relmc.models import population_check

    outputs = inputs.check_out(
        args.out, ["posterior.nc", *output.summary_names(args, ["posterior.nc"])]
    )
    _check_events(args)
    _check_fleets(args)
    seed = inputs.root_seed(args)
    data = inputs.load_data(args) if args.events is None else _load_events(args)
    n = args.n_gpus or int(data.attrs.get("n_gpus", 0)) or 16384
    inputs.check_fit_memory(args, data)
    if args.fleet:
        note(f"fitting the fleets model ({len(args.fleet) + 1} fleets) ...")
        posterior = inputs.fit_fleet_posterior(args, data, seed)
    elif args.events is None:
        note(f"fitting {args.model} model ...")
        posterior = inputs.fit_posterior(args, data, seed)
    else:
        note("fitting the event model ...")
        posterior = inputs.fit_event_log(args, data, seed)
    header, rows, right, summary, scalable = _rate_rows(posterior, data, n)
    summary["count"] = data["count"]
    fleets = fleet_summary(posterior.posterior) if args.fleet else {}
    summary.update(fleets)
    check = None
    if args.model == "hierarchical" and args.events is None and not args.fleet:
        check = population_check(posterior)
        summary["count_p"] = check["count_p"]
    summary.attrs = {
        "seed": seed,
        "model": "fleets" if args.fleet else args.model if args.events is None else "events",
        "dataset": str(data.attrs.get("name", "")),
        "n_gpus": n if scalable else 0,
    }
    with outputs.stage() as st:
        posterior.posterior.attrs["relmc_run_id"] = st.run_id
        write_netcdf(posterior, st.path("posterior.nc"))
        output.write_summaries(st, args, summary, "fit")
    rate_units = posterior.posterior["rate"].attrs.get("rate_units", "events per unit-hour")
    say(f"relmc fit: {model_text(args, posterior, data)}, seed {seed}")
    if args.counts is not None:
        say(f"recovery: {recovery_text(data)}")
    say(f"rates in {rate_units}")
    say()
    say(table(header, rows, right))
    if scalable:
        lo, med, hi = summary["mttf_hours_quantile"].values
        say()
        say(
            f"job MTTF at {n:,} GPUs (all categories), posterior median: {fmt(med)} h [90%: "
            f"{fmt(lo)}, {fmt(hi)}]; {24 / med:.3g} unexpected interruptions per day (median)"
        )
        say(clock_note(posterior.posterior["rate"]))
    if check is not None:
        say()
        say(population_text(check))
    if fleets:
        say()
        say(fleets_text(fleets))
    terms = terms_text(posterior.posterior)
    if terms:
        say()
        say(terms)
    maint = maintenance_text(posterior.posterior, data)
    if maint:
        say()
        say(maint)
    say()
    for f in st.written:
        say(f"wrote {f}")
    say(f"run id {st.run_id}")
    output.print_summaries(args, summary, "fit", st.run_id, st.written)
    return 0


def terms_text(post) -> str:
    """Lines of an event fit's terms, posterior median [90%]; "" for a fit without them."""
    import numpy as np

    from relmc.rates import mean_hour_of_day

    def band(da, f: str = ".2f") -> str:
        lo, med, hi = np.quantile(np.asarray(da).ravel(), [0.05, 0.5, 0.95])
        return f"{med:{f}} [{lo:{f}}, {hi:{f}}]"

    lines = []
    if "diurnal_amplitude" in post:
        parts = []
        for c in post["category"].values:
            peak = post["diurnal_peak_hour"].sel(category=c).values.ravel()
            centre = round(float(mean_hour_of_day(peak)), 1) % 24.0  # 23.96 h reads 0.0 h
            amp = band(post["diurnal_amplitude"].sel(category=c))
            parts.append(f"{c} {amp} (peak near {centre:.1f} h)")
        lines.append("daily cycle amplitude: " + "; ".join(parts))
    if "trend_shape" in post:
        age = float(post.attrs.get("fleet_age_hours", 0.0) or 0.0)
        lines.append(
            f"trend shape {band(post['trend_shape'])} (< 1: burn-in, > 1: wear-out), fleet "
            f"{age:.0f} h old at the log's end (where the rates are)"
        )
    if "bad_node_fraction" in post:
        m = post["bad_node_multiplier"]
        m = m.isel(category=0) if "category" in m.dims else m
        lines.append(
            f"lemon nodes: fraction {band(post['bad_node_fraction'], '.3f')}, multiplier "
            f"{band(m, '.1f')}"
        )
    if not lines:
        return ""
    return "fitted terms, posterior median [90%] (drawn per trial by --posterior):\n  " + (
        "\n  ".join(lines)
    )


#: what takes a posterior's recorded planned maintenance (maintenance_text)
_USERS = "simulations of this posterior (relmc project, simulate, compare, optimize, sweeps)"


def maintenance_text(post, data) -> str:
    """Say what planned maintenance the fit records (``attrs["maintenance_rate"]``).

    The rate is the data's ``maintenance_count`` over its window; data without a count records
    none (a rate of 0), and without a window (``duration_hours``) none can be: "" then.
    """
    hours = float(data.attrs.get("duration_hours") or 0.0)
    if "maintenance_count" not in data:
        if not hours > 0.0:
            return ""
        return (
            f"planned maintenance: none recorded, so {_USERS} run none unless the scenario sets "
            "maintenance_rate (--observed-maintenance N records N planned stops in the window)"
        )
    rate = float(post.attrs.get("maintenance_rate", 0.0))
    count = int(data["maintenance_count"].item())
    clock = "exposed" if data.attrs.get("exposure_clock") == "exposed" else "wall-clock"
    if rate > 0:
        runs = f", one every {fmt(1 / rate)} h; {_USERS} run it"
    else:
        runs = f"; {_USERS} run none"
    return (
        f"planned maintenance recorded: {count:,} in {hours:,.6g} h, {rate:.4g} per {clock} "
        f"hour{runs} unless the scenario sets maintenance_rate"
    )


def clock_note(rate) -> str:
    """Say which clock the fit's MTTF line is on, and what ``relmc project`` makes of it."""
    from relmc.rates import _observed_gpus

    if str(rate.attrs.get("exposure_clock", "wall")) == "exposed":
        return "(per hour the jobs ran: the exposed clock, which relmc project reports too)"
    if not _observed_gpus(rate):
        return "(the rates as fitted: without an observed size relmc project uses them as they are)"
    return (
        "(per wall-clock hour of the observation window; relmc project divides the rates by "
        "the share of it the observed job was exposed and reports MTTF on that exposed clock, "
        "a little shorter)"
    )
