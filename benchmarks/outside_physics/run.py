"""Run named scenarios through relmc and indep.py (`compare.compare`) and pickle the results.

Merges the walk's ``run_any.py`` and ``run_all.py`` (the latter was ``run_any.py`` with the
scenario module fixed to ``scenarios``). For each scenario it prints the table of
``compare.compare`` (means, SEs, z, KS p of the wall, invariants) and pickles, per scenario,
``dict(rows=..., ks=..., bad=...)`` to ``OUT/res_{SEED}_{names}.pkl``.

    python benchmarks/outside_physics/run.py [NAMES] [NRELMC] [NINDEP] [SEED] [MODULE] [--out DIR]

NAMES   comma-separated scenario names, or ``all`` (default ``all``)
NRELMC  relmc trials per scenario (default 4000)
NINDEP  indep.py trials per scenario (default 1000)
SEED    seed of both simulators (default 1)
MODULE  scenario module: ``scenarios`` (round 1, default) or ``scenarios2`` (round 2)
--out   folder for the pickle and the log ``log_run_{SEED}_{names}.txt`` (default
        ``results/`` beside this script)

The recorded runs were ``run.py all 20000 5000 1`` and ``run.py all 20000 6000 2 scenarios2``.
"""

import argparse
import importlib
import pickle
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare import compare  # noqa: E402
from outlog import log_to  # noqa: E402


def main(argv=None, *, compare_fn=compare, default_module="scenarios", tag="run", doc=None):
    """Parse the arguments, compare the scenarios and write the pickle.

    ``run2.py`` and ``run_nodes.py`` call it with their comparer (``compare2.compare``,
    ``compare_nodes.compare``), default scenario module, file-name tag and docstring.
    """
    ap = argparse.ArgumentParser(description=(doc or __doc__).split("\n")[0])
    ap.add_argument("names", nargs="?", default="all", help="comma-separated names or 'all'")
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="independent trials")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="seed")
    ap.add_argument("module", nargs="?", default=default_module, help="scenario module")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="result folder")
    args = ap.parse_args(argv)
    scen = importlib.import_module(args.module).SCEN
    names = args.names.split(",") if args.names != "all" else list(scen)
    stem = f"{args.seed}_{'_'.join(n[:6] for n in names)[:60]}"
    log_to(args.out, f"log_{tag}_{stem}.txt")
    res = {}
    for nme in names:
        r = compare_fn(nme, scen[nme], args.n_relmc, args.n_indep, seed=args.seed)
        res[nme] = {k: r[k] for k in ("rows", "ks", "ksp", "bad") if k in r}
    path = args.out / (f"res_{stem}.pkl" if tag == "run" else f"res_{tag}_{stem}.pkl")
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
