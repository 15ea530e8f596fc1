"""``relmc fit``: fit a failure-rate posterior and print it per category."""

from __future__ import annotations

import argparse

import numpy as np

from relmc._io import write_netcdf
from relmc.cli import inputs, options
from relmc.cli.output import fmt, model_text, note, say, table

EPILOG = """\
Prints, per category, the posterior mean rate with a 90% interval (per unit-hour and per
unit-year) and its contribution to the job MTTF at --n-gpus; writes DIR/posterior.nc.

examples:
  relmc fit
  relmc fit --dataset rsc-1 --n-gpus 131072
  relmc fit --counts my_cluster.csv --model hierarchical --n-draws 2000 --seed 3
"""

_HOURS_PER_YEAR = 365.25 * 24.0


def add_parser(sub) -> None:
    """Register ``relmc fit``."""
    p = options.add_subcommand(
        sub, "fit", "fit a failure-rate posterior and print it per category", EPILOG
    )
    p.add_argument(
        "--n-gpus",
        type=options.int_at_least(1),
        metavar="N",
        help="size for the MTTF column (default: the data's cluster size, else 16384)",
    )
    p.add_argument("--seed", type=options.int_at_least(0), metavar="INT", help="seed of the fit")
    options.add_out_option(p, help=f"output directory (default: {options.DEFAULT_OUT})")
    options.add_data_options(p)
    p.set_defaults(func=run)


def _rate_rows(posterior, data, n: int) -> tuple[list[str], list[list[str]], list[bool], object]:
    """Tabulate a fit per category; also return the job rate draws at ``n`` GPUs.

    Returns ``(header, rows, right-aligned, total)``; ``total`` is the draws of the job's
    unexpected-interruption rate at ``n`` GPUs (per hour), or ``None`` if some category's unit
    does not scale with cluster size.
    """
    from relmc import cluster

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
            row.append(fmt(1.0 / lam.mean()) if lam.mean() > 0 else "inf")
        rows.append(row)
    header = ["category", "unit", "count", "rate: mean [90%]"]
    right = [False, False, True, True]
    if scalable:
        header += ["per unit-year", f"h between, at {n:,} GPUs"]
        right += [True, True]
    return header, rows, right, (total if scalable else None)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc fit``."""
    inputs.check_out(args.out)
    seed = inputs.root_seed(args)
    data = inputs.load_data(args)
    n = args.n_gpus or int(data.attrs.get("n_gpus", 0)) or 16384
    note(f"fitting {args.model} model ...")
    posterior = inputs.fit_posterior(args, data, seed)
    args.out.mkdir(parents=True, exist_ok=True)
    path = write_netcdf(posterior, args.out / "posterior.nc")

    header, rows, right, total = _rate_rows(posterior, data, n)
    rate_units = posterior.posterior["rate"].attrs.get("units", "events per unit-hour")
    say(f"relmc fit: {model_text(args, posterior, data)}, seed {seed}")
    say(f"rates in {rate_units}")
    say()
    say(table(header, rows, right))
    if total is not None:
        mttf = 1.0 / np.asarray(total)
        lo, med, hi = np.quantile(mttf, [0.05, 0.5, 0.95])
        say()
        say(
            f"job MTTF at {n:,} GPUs (all categories): {fmt(med)} h [90%: {fmt(lo)}, "
            f"{fmt(hi)}]; {24 / med:.3g} unexpected interruptions per day"
        )
    say()
    say(f"wrote {path}")
    return 0
