"""Run named scenarios through relmc and indep2.py (`compare2.compare`), pickle the results.

As ``run.py``, for ``compare2.compare``. For each scenario it prints the table (means, SEs, z,
KS p of wall and progress, invariants) and pickles, per scenario, ``dict(rows=..., ks=...,
ksp=..., bad=...)`` to ``OUT/res_run2_{SEED}_{names}.pkl``.

    python benchmarks/outside_physics/run2.py [NAMES] [NRELMC] [NINDEP] [SEED] [MODULE] [--out DIR]

NAMES   comma-separated scenario names, or ``all`` (default ``all``)
NRELMC  relmc trials per scenario (default 4000)
NINDEP  indep2.py trials per scenario (default 1000)
SEED    seed of both simulators (default 1)
MODULE  scenario module: ``scen_cap`` or ``scen_ovh`` (default ``scen_cap``)
--out   folder for the pickle and the log ``log_run2_{SEED}_{names}.txt`` (default
        ``results/`` beside this script)

The recorded runs were ``run2.py all 20000 5000 1 scen_cap``, ``run2.py all 20000 5000 2
scen_cap`` (seed 7 on single scenarios) and ``run2.py all 20480 5000 1 scen_ovh`` (and seed 2).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402
from compare2 import compare  # noqa: E402

if __name__ == "__main__":
    run.main(compare_fn=compare, default_module="scen_cap", tag="run2", doc=__doc__)
