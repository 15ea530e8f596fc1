"""``relmc datasets``: list the bundled datasets, or describe one with its provenance."""

from __future__ import annotations

import argparse
import textwrap

from relmc.cli import options
from relmc.cli.output import plural, say, table

EPILOG = """\
examples:
  relmc datasets                 # one line per dataset
  relmc datasets llama3-405b     # full provenance and the counts

example scripts (installed with relmc; 'relmc examples --copy DIR' copies them): quickstart.py
(a bundled dataset, fitted and projected), own_cluster.py (your own counts instead:
examples/my_cluster.csv shows the CSV's columns)"""


def add_parser(sub) -> None:
    """Register ``relmc datasets``."""
    p = options.add_subcommand(
        sub, "datasets", "list the bundled datasets, or describe one with its provenance", EPILOG
    )
    p.add_argument("name", nargs="?", help="dataset to describe")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``relmc datasets``."""
    from relmc.datasets import list_datasets, load_dataset

    if args.name is None:
        for name in list_datasets():
            d = load_dataset(name)
            say(f"{name}")
            say(
                textwrap.fill(d.attrs["title"], 96, initial_indent="    ", subsequent_indent="    ")
            )
            say(
                textwrap.fill(
                    f"source: {d.attrs['source']}; {plural(d.sizes['category'], 'category')}, "
                    f"{plural(int(d['count'].sum()), 'event')}",
                    96,
                    initial_indent="    ",
                    subsequent_indent="    ",
                )
            )
        say()
        say("'relmc datasets NAME' describes one with its provenance.")
        return 0
    d = load_dataset(args.name)
    say(f"{args.name}: {d.attrs['title']}")
    for key in ("source", "where", "checked", "exposure_assumption", "notes"):
        text = str(d.attrs.get(key, ""))
        if text:
            say()
            say(f"{key.replace('_', ' ')}:")
            for para in text.split("\n"):
                say(textwrap.fill(para, 96, initial_indent="  ", subsequent_indent="  "))
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
    say()
    header = ["category", "group", "unit", "count", f"exposure ({d['exposure'].attrs['units']})"]
    say(table(header, rows, [False, False, False, True, True]))
    if "maintenance_count" in d:
        say(f"\nplanned interruptions (kept apart from count): {int(d['maintenance_count'])}")
    return 0
