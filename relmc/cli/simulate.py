"""``relmc simulate``: simulate one scenario from a TOML file and summarise it."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from relmc._io import check_trial_memory, write_netcdf
from relmc.cli import inputs, options, output
from relmc.cli.output import assumed_text, fmt, policy_text, say, table
from relmc.defaults import assumed_values
from relmc.errors import FieldError

EPILOG = """\
Simulates the scenario's job (one posterior draw per trial with --posterior), prints the
mean and median [90% interval] of one job's ETTR, the median [90% interval] of its wall time
and interruptions per day and the mean lost time by cause, and writes
  DIR/simulation.nc   relmc.simulate() result, one row per trial (xarray.open_dataset)
and, with --json/--csv NAME, the summary (relmc.summarize) as DIR/NAME.

The TOML file uses Scenario.to_dict()'s layout ([cluster], [job], [policy], [failures] with
[[failures.categories]] tables); missing fields and sections take their defaults, and without
[failures] (or one without [[failures.categories]]) the categories and rates are Llama 3's
point rates, with its planned maintenance (47 in 1,296 h, 0.87 a day; maintenance_rate = 0
turns it off), or --posterior's categories and recorded maintenance rate (a
maintenance_rate in [failures] replaces the record's). With --posterior, a [failures] whose
[[failures.categories]] each name a fit category (their fields replace that category's, e.g.
kind = "sdc" and sdc_latency_hours; the rate stays the posterior's, rate_multiplier = 0.5
halves it) or add a straggler or SDC category (no count data has them) changes the fit's
categories so, with its other fields. 'relmc simulate --init' writes a template (the
package's relmc/templates/scenario.toml) that lists every field with its meaning, unit,
allowed range and default.

Prints one "assumed:" line on stderr naming the defaults the scenario left in place that no
published number stands behind (node-swap time, planned downtime, restart, checkpoint and
persist times); --quiet drops it.

examples:
  relmc simulate --init my.toml                    # the commented template, to edit
  relmc simulate my.toml
  relmc simulate examples/scenario.toml            # after 'relmc examples --copy examples'
  relmc simulate scenario.toml --target-rse 0.001 --hopeless-ettr 0.1 --n-trials 1000000
  relmc simulate scenario.toml --posterior relmc-output/posterior.nc --n-trials 10000 --seed 2

example scripts (installed with relmc; 'relmc examples --copy DIR' copies them): scenario.toml
(a complete scenario), time_varying.py (daily cycles, a wear-out trend and power swings in a
scenario), levers.py (the node fields: lemons, repairs, standbys, in-memory checkpoints),
uncertain_overheads.py (the policy's *_spread and *_jitter fields)"""


def add_parser(sub) -> None:
    """Register ``relmc simulate``."""
    p = options.add_subcommand(sub, "simulate", "simulate one scenario from a TOML file", EPILOG)
    p.add_argument(
        "scenario",
        type=Path,
        nargs="?",
        help="scenario TOML (Scenario.to_dict layout; --init writes a commented template)",
    )
    p.add_argument(
        "--init",
        type=Path,
        nargs="?",
        const=Path("scenario.toml"),
        metavar="PATH",
        help="write a commented template scenario to PATH (default: scenario.toml) and stop; "
        "never replaces a file",
    )
    p.add_argument(
        "--posterior",
        type=Path,
        metavar="NC",
        help="posterior netCDF (e.g. from 'relmc fit'): one draw per trial",
    )
    options.add_run_options(p, n_trials=2000, per="scenario")
    options.add_precision_options(p)
    output.add_summary_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc simulate`` (or write the template scenario, with ``--init``)."""
    from relmc.scenario import Scenario

    if args.init is not None:
        if args.scenario is not None:
            raise ValueError(
                f"--init writes a template and simulates nothing; drop {str(args.scenario)!r} "
                "or --init"
            )
        return _init(args.init)
    if args.scenario is None:
        raise ValueError(
            "give a scenario TOML to simulate (or --init PATH to write a commented template)"
        )
    from relmc.sim.simulate import simulate
    from relmc.summary import summarize

    outputs = inputs.check_out(
        args.out, ["simulation.nc", *output.summary_names(args, ["simulation.nc"])]
    )
    precision = inputs.precision(args)
    d = inputs.read_toml(args.scenario)
    written = d  # the file's own fields: what the "assumed:" line leaves out
    posterior = inputs.read_posterior(args.posterior) if args.posterior is not None else None
    if posterior is not None:
        inputs.check_posterior_units(posterior, "simulate")
        d = {**d, "failures": failures_with_posterior(d.get("failures"), posterior)}
        d = cluster_with_posterior(d, posterior)
    try:
        sc = Scenario.from_dict(d)
    except FieldError as e:  # a field of the file: the file named first
        raise FieldError(e.field, f"{args.scenario}: {e}") from None
    inputs.check_segments(sc.policy, sc.job, given=d)
    check_trial_memory(args.n_trials, len(sc.failures.categories))
    seed = inputs.root_seed(args)
    res = simulate(
        sc,
        rates=posterior,
        n_trials=args.n_trials,
        seed=seed,
        n_threads=args.n_threads,
        precision=precision,
    )
    with outputs.stage() as st:
        res.attrs["relmc_run_id"] = st.run_id
        write_netcdf(res, st.path("simulation.nc"))
        s = summarize(res)
        s.attrs = {k: v for k, v in res.attrs.items() if k != "scenario"}
        output.write_summaries(st, args, s, "simulate")

    q = s["ettr_quantile"]
    ran = res.sizes["trial"]
    how = "" if precision is None else f" (adaptive precision: budget {args.n_trials:,}, "
    how += "" if precision is None else f"stopped by {res.attrs['stopped_by']})"
    say(f"relmc simulate: {args.scenario} on {sc.cluster.n_gpus:,} GPUs, {ran:,} trials{how}")
    say(
        f"policy: {policy_text(sc)}; interval used "
        f"{60 * res.attrs['checkpoint_interval_hours']:.3g} min"
    )
    say(f"rates: {res.attrs['rates_source']}; seed {seed}")
    say()
    say(
        f"ETTR mean {float(s['ettr_mean']):.4f} +- {float(s['ettr_se']):.4f} (MC SE); median "
        f"{float(q.sel(quantile=0.5)):.3f} [90%: {float(q.sel(quantile=0.05)):.3f}, "
        f"{float(q.sel(quantile=0.95)):.3f}]"
    )
    wq = s["wall_hours_quantile"]
    say(
        f"wall-clock hours: median {fmt(float(wq.sel(quantile=0.5)))} [90%: "
        f"{fmt(float(wq.sel(quantile=0.05)))}, {fmt(float(wq.sel(quantile=0.95)))}]"
    )
    pv = s["interruptions_per_day_quantile"]
    say(
        f"unexpected interruptions/day: median {fmt(float(pv.sel(quantile=0.5)))} [90%: "
        f"{fmt(float(pv.sel(quantile=0.05)))}, {fmt(float(pv.sel(quantile=0.95)))}]"
    )
    say(f"finished before the cap: {100 * float(s['finished_fraction']):.1f}% of trials")
    nodes = node_text(s)
    if nodes:
        say(nodes)
    physics = physics_text(s, sc)
    if physics:
        say(physics)
    short = retention_text(sc, float(res.attrs["checkpoint_interval_hours"]))
    if short:
        say(short)
    lost = s["lost_hours_mean"]
    wall = float(s["wall_hours_mean"])
    rows = [
        [str(c), fmt(float(v)), f"{100 * float(v) / wall:.2f}%"]
        for c, v in zip(lost["cause"].values, lost.values, strict=True)
    ]
    say()
    say(table(["lost to", "mean hours", "% of wall"], rows, [False, True, True]))
    say()
    for f in st.written:
        say(f"wrote {f}")
    say(f"run id {st.run_id}")
    items = assumed_values(sc, inputs.given_fields({}, written))
    fields = ", ".join(a.field for a, _ in items)
    output.print_assumed(args, assumed_text(items, f"set them in {args.scenario}: {fields}"))
    output.print_summaries(args, s, "simulate", st.run_id, st.written)
    return 0


def scenario_template(path: str | os.PathLike = "scenario.toml") -> str:
    """Return the commented template scenario that ``relmc simulate --init`` writes.

    The text is package data (``relmc/templates/scenario.toml``), so an installed relmc
    writes it without the repository. It lists every field of the scenario dataclasses with
    its meaning, unit, allowed range and default.

    Parameters
    ----------
    path : str or path-like
        Where the template will be written; its name appears in the usage comments.

    Returns
    -------
    str
        TOML that :meth:`relmc.Scenario.from_dict` accepts as it is.
    """
    import string
    from importlib.resources import files

    text = files("relmc").joinpath("templates", "scenario.toml").read_text(encoding="utf-8")
    return string.Template(text).substitute(path=str(path))


def _init(path: Path) -> int:
    """Write the template scenario to ``path`` (never over an existing file)."""
    from relmc._io import OutputSet, write_bytes

    if path.exists() or path.is_symlink():
        raise ValueError(
            f"--init: {str(path)!r} exists; relmc simulate --init never replaces a file"
        )
    outputs = OutputSet(path.parent, [path.name], what="--init")
    outputs.check()
    with outputs.stage() as st:
        write_bytes(st.path(path.name), scenario_template(path).encode())
    say(
        f"wrote {st.written[0]}; edit it, then 'relmc simulate {path} --n-trials 2000' "
        "(a field left out takes its default)"
    )
    return 0


def failures_with_posterior(failures, posterior):
    """Return the scenario's ``[failures]`` with ``--posterior``: the fit's categories and more.

    :meth:`relmc.FailureModel.with_tables` on the fit's model
    (:meth:`relmc.FailureModel.from_posterior`): without ``[failures]`` the fit's categories;
    tables that name fit categories change them (e.g. ``kind = "sdc"`` with a latency makes
    the fit's SDC latent; the rate stays the posterior's, and a ``rate`` is refused:
    ``rate_multiplier`` changes it); straggler or SDC tables of new names are added (at their
    scenario rate in every draw, as :func:`relmc.simulate` takes them). Tables with a failure
    category the fit lacks are the whole model, as given (its names must then match the
    fit's).
    """
    from relmc.scenario import FailureModel

    return FailureModel.from_posterior(posterior).with_tables(failures)


def cluster_with_posterior(d: dict, posterior) -> dict:
    """Return the scenario ``d`` whose ``[cluster]`` takes the fit's shape where it gives none.

    The shape the fit recorded (:func:`relmc.rates.fit_shape`: its data's nodes per rack and
    so on) counts the fitted categories' units at N GPUs as on the observed cluster; fields
    the file's ``[cluster]`` sets stay as set (a shape that differs from the fit's is then
    warned of, :class:`relmc.errors.ClusterShapeWarning`).
    """
    from relmc.cluster import shape_attrs
    from relmc.rates import fit_shape

    shape = fit_shape(posterior)
    given = d.get("cluster")
    if shape is None or (given is not None and not isinstance(given, dict)):
        return d  # a malformed [cluster] is named by Scenario.from_dict
    return {**d, "cluster": {**shape_attrs(shape), **(given or {})}}


def physics_text(s, sc) -> str:
    """One line of the straggler and SDC categories' means per job, or "" without them."""
    kinds = {c.name: c.kind for c in sc.failures.categories}
    counts = s["interruptions_mean"]
    parts = []
    stragglers = [c for c, k in kinds.items() if k == "straggler"]
    if stragglers:
        n = float(counts.sel(category=stragglers).sum())
        parts.append(f"stragglers per job (mean): {fmt(n)} slow-downs")
    sdcs = [c for c, k in kinds.items() if k == "sdc"]
    if sdcs:
        n = float(counts.sel(category=sdcs).sum())
        parts.append(
            f"silent data corruption per job (mean): {fmt(n)} detected, "
            f"{fmt(float(s['sdc_from_scratch_mean']))} rolled back to the beginning, "
            f"{fmt(float(s['sdc_rollbacks_mean']))} kept checkpoints skipped over, "
            f"{fmt(float(s['sdc_undetected_mean']))} still latent at the end, "
            f"{fmt(float(s['sdc_rework_hours_mean']))} h of rework from rollbacks"
        )
    return "; ".join(parts)


def retention_text(sc, tau: float) -> str:
    """Return a note when the kept checkpoints span less than an SDC's fixed latency, or "".

    The ``checkpoint_retention`` newest checkpoints cover about ``K (tau + snapshot)`` wall
    hours before a detection; a corruption found ``L`` hours after it struck, with ``L``
    beyond that, finds every checkpoint taken before it dropped and rolls back to the
    beginning (unless a failure restarted the job in between).
    """
    k = sc.policy.checkpoint_retention
    if k <= 0:
        return ""
    span = k * (tau + sc.policy.snapshot_hours)
    late = [
        c
        for c in sc.failures.categories
        if c.kind == "sdc" and c.sdc_latency_distribution == "fixed" and c.sdc_latency_hours > span
    ]
    if not late:
        return ""
    names = ", ".join(f"{c.name!r} ({fmt(c.sdc_latency_hours)} h)" for c in late)
    return (
        f"note: the {k} kept checkpoints span about {fmt(span)} wall hours, less than the SDC "
        f"latency of {names}: such a corruption rolls back to the beginning (keep more, with "
        "policy.checkpoint_retention, or 0 for all)"
    )


def node_text(s) -> str:
    """One line of the node model's means per job, or "" when it was off (all zero)."""
    from relmc.sim.simulate import NODE_OUTPUTS

    m = {k: float(s[f"{k}_mean"]) for k in NODE_OUTPUTS if f"{k}_mean" in s}
    occ = m.pop("pool_occupancy", math.nan)
    if not any(v > 0 for v in m.values()) and math.isnan(occ):
        return ""
    text = (
        f"nodes per job (mean): excluded as lemons {fmt(m['nodes_excluded_bad'])} bad + "
        f"{fmt(m['nodes_excluded_good'])} good; repairs {fmt(m['repairs_auto'])} automated, "
        f"{fmt(m['repairs_manual'])} manual, {fmt(m['nodes_retired'])} nodes retired; "
        f"{fmt(m['wrong_blames'])} wrong blames; {fmt(m['standby_swaps'])} standby swaps; "
        f"restarts {fmt(m['restarts_memory'])} from memory, {fmt(m['restarts_storage'])} "
        "from storage"
    )
    if not math.isnan(occ):
        text += f"; {fmt(occ)} nodes in the pool on average"
    return text
