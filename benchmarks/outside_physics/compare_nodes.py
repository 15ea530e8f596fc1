"""Compare relmc.simulate against indep_nodes.py (the node model) in distribution.

As ``compare2.py``, with specs of ``indep_nodes.node_spec``: relmc's Scenario from
``indep_nodes.build_relmc``, the independent side from ``indep_nodes.run_nodes``, and the node
outputs (node counts, pool occupancy) compared as well; an output that is NaN on both sides
(pool occupancy with an unlimited pool) is left out. Means, SEs, z (``<<<`` past |z| = 4), KS
p of wall and progress, invariants. Used by ``run_nodes.py``, ``mut.py``, ``fuzz2.py`` and
``rerun2.py``.

Run directly, it compares a smoke node spec (lemons, a swap category, one standby)::

    python benchmarks/outside_physics/compare_nodes.py [NRELMC] [NINDEP] [--out DIR]

NRELMC  relmc trials (default 4000); NINDEP  indep_nodes.py trials (default 1000);
--out   folder for the log ``log_compare_nodes_smoke.txt`` (default ``results/`` beside this
        script).
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare2  # noqa: E402
import indep_nodes  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402


def compare(name, spec, n_relmc=4000, n_mine=1500, seed=1, seed_mine=None, quiet=False):
    """Run the node spec `spec` through relmc and indep_nodes.py (``compare2.compare``)."""
    return compare2.compare(
        name, spec, n_relmc, n_mine, seed, seed_mine, quiet, sim=indep_nodes,
        run=indep_nodes.run_nodes,
    )  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="indep_nodes.py trials")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, "log_compare_nodes_smoke.txt")
    spec = indep_nodes.node_spec(
        W=20.0,
        n_gpus=64,
        f=0.2,
        m=4.0,
        swap_h=0.2,
        n_standbys=1,
        preempt_h=0.2,
        cats=[indep_nodes.ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1)],
    )
    compare("smoke", spec, args.n_relmc, args.n_indep)
