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

import argparse
import importlib
import pickle
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare2 import compare  # noqa: E402
from outlog import log_to  # noqa: E402


def main(argv=None):
    """Parse the arguments, compare the scenarios and write the pickle."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="?", default="all", help="comma-separated names or 'all'")
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="indep.py trials")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="seed")
    ap.add_argument("module", nargs="?", default="scen_cap", help="scen_cap or scen_ovh")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="result folder")
    args = ap.parse_args(argv)
    scen = importlib.import_module(args.module).SCEN
    names = args.names.split(",") if args.names != "all" else list(scen)
    stem = f"{args.seed}_{'_'.join(n[:6] for n in names)[:60]}"
    log_to(args.out, f"log_run2_{stem}.txt")
    res = {}
    for nme in names:
        r = compare(nme, scen[nme], args.n_relmc, args.n_indep, seed=args.seed)
        res[nme] = dict(rows=r["rows"], ks=r["ks"], ksp=r["ksp"], bad=r["bad"])
    path = args.out / f"res_run2_{stem}.pkl"
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
