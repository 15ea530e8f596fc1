"""``relmc project``: fit the data, project interruptions, MTTF and ETTR over cluster sizes."""

from __future__ import annotations

import argparse
import sys
import time

from relmc._extras import install_hint
from relmc._io import write_netcdf
from relmc.cli import inputs, options, output
from relmc.cli.output import (
    assumed_text,
    model_text,
    policy_text,
    projection_note,
    projection_table,
    recovery_line,
    say,
)
from relmc.defaults import assumed_values

EPILOG = """\
Fits the failure-rate posterior, simulates a job of the given compute at each size (one
posterior draw per trial), prints medians with 90% intervals, and writes
  DIR/projection.nc   relmc.project() result (open with xarray.open_dataset)
  DIR/posterior.nc    the fitted posterior (arviz.from_netcdf; not with --posterior, whose
                      file is read only)
  DIR/projection.png  the summary figure (relmc.plots.main_figure)

Default policy (relmc.Policy): checkpoint every 30 min with a 1-min blocking snapshot,
10-min restart, unlimited spares; job of 54 days of compute (the Llama 3 window). With the
Llama 3 data, planned maintenance is added at the observed 47 per 54 days
(--maintenance-rate 0 turns it off).

Prints one "assumed:" line on stderr naming the defaults used that no published number
stands behind (node-swap time, planned downtime, restart, checkpoint and persist times);
--quiet drops it. Rates fitted per wall-clock hour of an observed window are divided by the
share of that window the observed job was exposed (its clock paused for detection, swaps and
downtime), with this run's overheads, before they are simulated.

examples:
  relmc project
  relmc project --n-gpus 16384,131072,1048576 --n-trials 4000 --seed 1
  relmc project --restart-minutes 2 --snapshot-minutes 0.5 --out fast-restart
  relmc project --counts my_cluster.csv --observed-gpus 4096 --observed-hours 720 --no-plot
  relmc project --target-se 0.001 --n-trials 100000   # each size stops at SE 0.001
  relmc project --n-gpus 16384 --keep-trials   # projection.nc keeps per-trial ETTR by draw

example scripts, the same from Python (installed with relmc; 'relmc examples --copy DIR' copies
them): quickstart.py (this command's default run), own_cluster.py (a counts CSV, as --counts;
its input is examples/my_cluster.csv), time_varying.py (time-varying rates and speed),
uncertain_overheads.py (credible and predictive bands with uncertain overheads)"""


def add_parser(sub) -> None:
    """Register ``relmc project``."""
    p = options.add_subcommand(
        sub, "project", "fit the data and project interruptions, MTTF and ETTR over sizes", EPILOG
    )
    p.add_argument(
        "--n-gpus",
        action=options.Field,
        type=options.int_list,
        metavar="N,N,...",
        help="cluster sizes in GPUs, each in [1, 1e8] (default: 2048,4096,...,131072)",
    )
    p.add_argument("--no-plot", action="store_true", help="do not write the PNG figure")
    p.add_argument(
        "--credible-trials",
        type=options.int_at_least(0, hi=10**8),
        action=options.Field,
        field="credible_trials",
        metavar="N",
        help="jobs of the separate simulation behind the credible intervals (E[...] columns) "
        "at each size, groups of --trials-per-draw sharing a posterior draw; 0 skips it "
        "(default: --n-trials, at most 2000)",
    )
    p.add_argument(
        "--trials-per-draw",
        type=options.int_at_least(2, hi=10**8),
        action=options.Field,
        field="trials_per_draw",
        default=4,
        metavar="M",
        help="jobs sharing each posterior draw in that simulation, in [2, 1e8] (default: 4)",
    )
    p.add_argument(
        "--keep-trials",
        action="store_true",
        help="also store each trial's ETTR, ettr (n_gpus, trial), with the posterior draw of "
        "each trial (coordinate draw) in projection.nc, for paired comparisons later",
    )
    options.add_data_options(p)
    options.add_run_options(p, n_trials=2000, per="cluster size")
    options.add_precision_options(p)
    options.add_scenario_options(p, file=True)
    output.add_summary_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc project``."""
    from relmc.projection import check_sizes, default_scenario, project

    t0 = time.perf_counter()
    sizes = check_sizes(args.n_gpus)
    ov = inputs.check_scenario_options(args)
    file = inputs.read_scenario_file(args)
    precision = inputs.precision(args)
    fitted = args.posterior is None  # a read posterior is not written again (nor changed)
    names = ["projection.nc", *(["posterior.nc"] if fitted else [])]
    names += [] if args.no_plot else ["projection.png"]
    names += output.summary_names(args, names)
    outputs = inputs.check_out(args.out, names)
    seed = inputs.root_seed(args)
    data = inputs.data_for_file(args, file)
    posterior, data = inputs.posterior_and_data(args, seed, "project", ov, data=data)
    base = inputs.over_scenario(default_scenario(posterior, data), file, args.scenario)
    sc = inputs.apply_overrides(base, ov)
    ds = project(
        posterior,
        n_gpus=sizes,
        scenario=sc,
        n_trials=args.n_trials,
        seed=seed,
        n_threads=args.n_threads,
        keep_trials=args.keep_trials,
        precision=precision,
        credible_trials=args.credible_trials,
        trials_per_draw=args.trials_per_draw,
    )
    # everything is computed: only now touch the file system, all files or none
    plot_note = ""
    with outputs.stage() as st:
        ds.attrs["relmc_run_id"] = st.run_id
        if fitted:
            posterior.posterior.attrs["relmc_run_id"] = st.run_id
        write_netcdf(ds, st.path("projection.nc"))
        if fitted:
            write_netcdf(posterior, st.path("posterior.nc"))
        output.write_summaries(st, args, ds, "project")
        if not args.no_plot:
            try:
                from relmc import plots

                plots.main_figure(ds, posterior, st.path("projection.png"))
            except ImportError as e:
                st.path("projection.png").unlink(missing_ok=True)
                hint = install_hint(e.name or "") or 'pip install "relmc[plot]"'
                plot_note = f"figure skipped ({e}); {hint}"
    files = st.written

    say(f"relmc project: {model_text(args, posterior, data)}")
    recovery = recovery_line(args, data, sc)
    if recovery:
        say(recovery)
    say(f"policy: {policy_text(sc)}")
    if file:
        say(f"scenario file: {args.scenario} ({', '.join(sorted(file))})")
    if precision is None:
        say(f"{args.n_trials:,} trials per size, seed {seed}")
    else:
        ran = ", ".join(
            f"{int(n):,}: {int(k):,} ({s})"
            for n, k, s in zip(
                ds["n_gpus"].values, ds["n_trials"].values, ds["stopped_by"].values, strict=True
            )
        )
        say(f"adaptive precision, budget {args.n_trials:,} trials per size, seed {seed}")
        say(f"trials run (stopped by) per size: {ran}")
    exposed = float(ds["exposed_fraction_mean"].values.ravel()[0])
    if exposed < 1.0:
        say(
            f"exposure clock: rates per wall-clock hour of the observed window, divided by the "
            f"share {exposed:.3g} of it the observed job was exposed (with this run's overheads)"
        )
    say()
    say(projection_table(ds))
    say()
    say(projection_note(ds))
    say()
    for f in files:
        say(f"wrote {f}")
    say(f"run id {st.run_id} (attrs relmc_run_id of every file written)")
    if plot_note:
        print(f"{options.PROG}: warning: {plot_note}", file=sys.stderr)
    say(f"done in {time.perf_counter() - t0:.1f} s")
    items = assumed_values(sc, inputs.given_fields(ov, file))
    flags = ", ".join(a.flag for a, _ in items)
    output.print_assumed(args, assumed_text(items, f"set with {flags}"))
    output.print_summaries(args, ds, "project", st.run_id, files)
    return 0
