"""Run named scenarios through relmc and indep_nodes_phys.py, pickle them (third round).

As ``run_nodes.py``, with ``indep_nodes_phys.run_phys`` (stragglers and SDC inside the node
model) as the independent side of ``compare2.compare``. Per scenario it prints the table
(means, SEs, z, KS p of wall and progress, invariants) and pickles ``dict(rows=..., ks=...,
ksp=..., bad=...)`` to ``OUT/res_run_nodes_phys_{SEED}_{names}.pkl``.

    python benchmarks/outside_physics/run_nodes_phys.py [NAMES] [NRELMC] [NINDEP] [SEED]
        [MODULE] [--mut P1,P3] [--out DIR]

NAMES   comma-separated scenario names, or ``all`` (default ``all``)
NRELMC  relmc trials per scenario (default 4000)
NINDEP  indep_nodes_phys.py trials per scenario (default 1000)
SEED    seed of both simulators (default 1)
MODULE  scenario module (default ``scen_nodes_phys``)
--mut   deliberate misreadings of ``indep_nodes_phys.PMUT`` (negative controls)
--out   folder (default ``results/`` beside this script)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare2  # noqa: E402
import indep_nodes_phys  # noqa: E402
import run  # noqa: E402


def compare(name, spec, n_relmc=4000, n_mine=1500, seed=1, seed_mine=None, quiet=False):
    return compare2.compare(
        name, spec, n_relmc, n_mine, seed, seed_mine, quiet, sim=indep_nodes_phys,
        run=indep_nodes_phys.run_phys,
    )  # fmt: skip


if __name__ == "__main__":
    argv = sys.argv[1:]
    tag = "run_nodes_phys"
    if "--mut" in argv:
        k = argv.index("--mut")
        muts = argv[k + 1].split(",")
        del argv[k : k + 2]
        indep_nodes_phys.PMUT.update(muts)
        tag += "_" + "".join(muts)
        print("misreadings", sorted(indep_nodes_phys.PMUT))
    run.main(argv, compare_fn=compare, default_module="scen_nodes_phys", tag=tag, doc=__doc__)
