"""``relmc optimize``: the checkpoint interval maximising expected ETTR, against Young/Daly."""

from __future__ import annotations

import argparse

from relmc._io import write_netcdf
from relmc.cli import inputs, options, output
from relmc.cli.output import (
    fmt,
    model_text,
    policy_text,
    recovery_line,
    say,
    table,
)

EPILOG = """\
Searches the checkpoint interval that maximises expected ETTR (one posterior draw per trial,
common random numbers across intervals), then compares it with Young's and Daly's intervals
and the scenario's own (--checkpoint-interval, default 30 min: the 'scenario' row, with its
gain) on fresh trials; writes DIR/optimize.nc.

examples:
  relmc optimize
  relmc optimize --n-gpus 131072 --snapshot-minutes 0.5 --restart-minutes 5
  relmc optimize --intervals 0.1,0.2,0.3,0.5 --n-trials 4000 --seed 1

example script (installed with relmc; 'relmc examples --copy DIR' copies them): what_if.py
(checkpoint interval and restart time compared from Python, on paired trials)"""


def add_parser(sub) -> None:
    """Register ``relmc optimize``."""
    p = options.add_subcommand(
        sub, "optimize", "checkpoint interval maximising expected ETTR vs Young/Daly", EPILOG
    )
    p.add_argument(
        "--n-gpus",
        type=options.int_at_least(1, hi=options.MAX_GPUS),
        default=16384,
        metavar="N",
        help="cluster size in GPUs, in [1, 1e8] (default: 16384)",
    )
    p.add_argument(
        "--intervals",
        action=options.Field,
        type=options.float_list,
        metavar="H,H,...",
        help="intervals to evaluate, hours, with Young's and Daly's always added (default: a "
        "grid around Daly's, extended past an edge; either is refined around its best point, "
        "with a warning when that is at an edge)",
    )
    options.add_data_options(p)
    # two at least, as relmc compare: the gains need a standard error
    options.add_run_options(p, n_trials=1000, per="checkpoint interval", min_trials=2)
    options.add_scenario_options(p, file=True)
    output.add_summary_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc optimize``."""
    from relmc.optimize import optimize_checkpoint
    from relmc.projection import default_scenario
    from relmc.scenario import replace_path

    ov = inputs.check_scenario_options(args)
    file = inputs.read_scenario_file(args)
    outputs = inputs.check_out(
        args.out, ["optimize.nc", *output.summary_names(args, ["optimize.nc"])]
    )
    seed = inputs.root_seed(args)
    data = inputs.data_for_file(args, file)
    posterior, data = inputs.posterior_and_data(args, seed, "optimize", data=data)
    base = inputs.over_scenario(default_scenario(posterior, data), file, args.scenario)
    sc = inputs.apply_overrides(base, ov)
    sc = replace_path(sc, "cluster.n_gpus", args.n_gpus)
    ds = optimize_checkpoint(
        posterior,
        sc,
        intervals=args.intervals,
        n_trials=args.n_trials,
        seed=seed,
        n_threads=args.n_threads,
    )
    with outputs.stage() as st:
        ds.attrs["relmc_run_id"] = st.run_id
        write_netcdf(ds, st.path("optimize.nc"))
        output.write_summaries(st, args, ds, "optimize")

    say(f"relmc optimize: {model_text(args, posterior, data)}")
    recovery = recovery_line(args, data, sc)
    if recovery:
        say(recovery)
    say(f"{args.n_gpus:,} GPUs; policy: {policy_text(sc)}")
    if file:
        say(f"scenario file: {args.scenario} ({', '.join(sorted(file))})")
    say(
        f"MTTF at the posterior-mean rates {fmt(ds.attrs['mttf_hours'])} h; "
        f"{args.n_trials:,} trials per interval, seed {seed}"
    )
    say()
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
    say(table(header, rows, [False, True, True, True]))
    say()
    say(
        "expected ETTR on independent trials (one posterior draw each); gain = ETTR(optimum) "
        "- ETTR(rule) on paired trials, with its Monte Carlo SE."
    )
    say()
    for f in st.written:
        say(f"wrote {f}")
    say(f"run id {st.run_id}")
    output.print_summaries(args, ds, "optimize", st.run_id, st.written)
    return 0
