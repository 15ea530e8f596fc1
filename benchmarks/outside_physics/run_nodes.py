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

import argparse
import importlib
import pickle
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare_nodes import compare  # noqa: E402
from outlog import log_to  # noqa: E402


def main(argv=None):
    """Parse the arguments, compare the scenarios and write the pickle."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="?", default="all", help="comma-separated names or 'all'")
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="indep.py trials")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="seed")
    ap.add_argument("module", nargs="?", default="scen_nodes", help="scen_nodes")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="result folder")
    args = ap.parse_args(argv)
    scen = importlib.import_module(args.module).SCEN
    names = args.names.split(",") if args.names != "all" else list(scen)
    stem = f"{args.seed}_{'_'.join(n[:6] for n in names)[:60]}"
    log_to(args.out, f"log_run_nodes_{stem}.txt")
    res = {}
    for nme in names:
        r = compare(nme, scen[nme], args.n_relmc, args.n_indep, seed=args.seed)
        res[nme] = dict(rows=r["rows"], ks=r["ks"], ksp=r["ksp"], bad=r["bad"])
    path = args.out / f"res_run_nodes_{stem}.pkl"
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
