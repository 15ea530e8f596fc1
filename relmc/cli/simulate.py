"""``relmc simulate``: simulate one scenario from a TOML file and summarise it."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from relmc._io import check_trial_memory, write_netcdf
from relmc.cli import inputs, options, output
from relmc.cli.output import assumed_text, fmt, policy_text, say, table
from relmc.defaults import assumed_values

EPILOG = """\
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

Prints one "assumed:" line on stderr naming the defaults the scenario left in place that no
published number stands behind (node-swap time, planned downtime, restart, checkpoint and
persist times); --quiet drops it.

examples:
  relmc simulate scenario.toml
  relmc simulate scenario.toml --target-rse 0.001 --hopeless-ettr 0.1 --n-trials 1000000
  relmc simulate scenario.toml --posterior relmc-output/posterior.nc --n-trials 10000 --seed 2
"""


def add_parser(sub) -> None:
    """Register ``relmc simulate``."""
    p = options.add_subcommand(sub, "simulate", "simulate one scenario from a TOML file", EPILOG)
    p.add_argument("scenario", type=Path, help="scenario TOML (Scenario.to_dict layout)")
    p.add_argument(
        "--posterior",
        type=Path,
        metavar="NC",
        help="posterior netCDF (e.g. from 'relmc fit'): one draw per trial",
    )
    options.add_run_options(p, n_trials=2000)
    options.add_precision_options(p)
    output.add_summary_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc simulate``."""
    from relmc.scenario import FailureModel, Scenario
    from relmc.sim.simulate import simulate
    from relmc.summary import summarize

    outputs = inputs.check_out(
        args.out, ["simulation.nc", *output.summary_names(args, ["simulation.nc"])]
    )
    precision = inputs.precision(args)
    d = inputs.read_toml(args.scenario)
    posterior = inputs.read_posterior(args.posterior) if args.posterior is not None else None
    if posterior is not None and "failures" not in d:
        d = {**d, "failures": FailureModel.from_posterior(posterior)}
    sc = Scenario.from_dict(d)
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
    given = {
        f"{section}.{name}"
        for section in ("policy", "failures")
        if isinstance(d.get(section), dict)
        for name in d[section]
    }
    items = assumed_values(sc, given)
    fields = ", ".join(a.field for a, _ in items)
    output.print_assumed(args, assumed_text(items, f"set them in {args.scenario}: {fields}"))
    output.print_summaries(args, s, "simulate", st.run_id, st.written)
    return 0


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
