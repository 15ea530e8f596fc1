"""The ``relmc`` command (also ``python -m relmc``): thin wrappers around the public API.

Subcommands, one module each: ``project`` (the main job: fit, project over sizes, table,
netCDF, figure), ``fit``, ``simulate``, ``optimize``, ``compare``, ``datasets``, ``sweep``
(``run``/``submit``/``status``/``open`` of :mod:`relmc.sweep`) and ``examples`` (the example
scripts installed with the package). Scenario options are generated
from the dataclasses (:mod:`relmc.cli.options`); output formatting is in
:mod:`relmc.cli.output`.

Bad input of any kind (a bad option, a ``ValueError`` from the API, an unreadable file, a
missing optional dependency) prints one line, ``relmc: error: ...``, and exits with status 2
before any file is written; :mod:`relmc.cli.errors` is the one handler for every subcommand.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from relmc.cli import compare, datasets, examples, fit, optimize, project, simulate, sweep
from relmc.cli.errors import run_command
from relmc.cli.options import PROG, Parser
from relmc.cli.output import projection_table

__all__ = ["main", "build_parser", "projection_table"]

EPILOG = """\
examples:
  relmc project                          # the main job: Llama 3 data -> 2k..131k GPUs
  relmc project --restart-minutes 2 --checkpoint-interval-minutes 5
  relmc fit --dataset rsc-1              # posterior summary + posterior.nc
  relmc datasets llama3-405b             # what is bundled, with provenance
  relmc simulate scenario.toml --n-trials 5000
  relmc optimize --n-gpus 100000         # best checkpoint interval vs Young/Daly
  relmc compare --policy fast:restart_minutes=2   # paired gain of a policy over the default
  relmc sweep run sweep.toml             # grids of scenarios (see 'relmc sweep --help')

templates (shipped in the package, relmc/templates/; written commented, ready to edit):
  relmc simulate --init scenario.toml    # every scenario field with its unit, range, default
  relmc sweep init sweep.toml            # a sweep spec

example scripts, the same from Python (installed with relmc: 'relmc examples' lists them,
'relmc examples --copy DIR' copies them to run and edit): quickstart.py (fit and project),
what_if.py (paired policy gains), own_cluster.py (your own counts CSV), event_log.py (an event
log), levers.py (node and operator levers), time_varying.py (daily cycles, trends, power
swings, stragglers, latent SDC), uncertain_overheads.py (restart and detection times known only
as ranges), fleets.py (Llama 3's causes with Meta RSC's totals: a new fleet's bands)
"""

_SUBCOMMANDS = (project, fit, simulate, optimize, compare, datasets, sweep, examples)


def build_parser() -> argparse.ArgumentParser:
    """Return the ``relmc`` argument parser (each subcommand sets ``func``)."""
    from relmc import __version__

    p = Parser(
        prog=PROG,
        description="Monte Carlo reliability projections for large synchronous training jobs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"relmc {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in _SUBCOMMANDS:
        module.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``relmc`` command; return its exit status.

    0 ok; 2 bad input (before any work) or a file that cannot be read or written (a full
    disk), in one ``relmc: error:`` line naming the flag, field or file; 1 another failure,
    in one such line (``sbatch`` missing or failing, a Slurm task that failed or was
    cancelled under ``relmc sweep submit --wait``), or a closed output pipe; 130
    interrupted (Ctrl-C).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version and option errors: return, don't exit
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    return run_command(args.func, args)
