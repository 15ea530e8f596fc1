"""Run named scenarios through relmc and indep_nodes.py (`compare_nodes.compare`), pickle them.

As ``run.py``, for ``compare_nodes.compare``. For each scenario it prints the table (means, SEs, z,
KS p of wall and progress, invariants) and pickles, per scenario, ``dict(rows=..., ks=...,
ksp=..., bad=...)`` to ``OUT/res_run_nodes_{SEED}_{names}.pkl``.

    python benchmarks/outside_physics/run_nodes.py [NAMES] [NRELMC] [NINDEP] [SEED] [MODULE]
        [--out DIR]

NAMES   comma-separated scenario names, or ``all`` (default ``all``)
NRELMC  relmc trials per scenario (default 4000)
NINDEP  indep_nodes.py trials per scenario (default 1000)
SEED    seed of both simulators (default 1)
MODULE  scenario module: ``scen_nodes`` (default ``scen_nodes``)
--out   folder for the pickle and the log ``log_run_nodes_{SEED}_{names}.txt`` (default
        ``results/`` beside this script)

The recorded runs were ``run_nodes.py all 20000 5000 1 scen_nodes`` and seed 2 (``node_ovh``
also at 81,920 against 20,000).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402
from compare_nodes import compare  # noqa: E402

if __name__ == "__main__":
    run.main(compare_fn=compare, default_module="scen_nodes", tag="run_nodes", doc=__doc__)
