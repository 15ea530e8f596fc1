"""Repeat one fuzz spec through relmc and indep.py with other sizes or seeds, full table.

Spec ``I`` is the same as in ``fuzz.py`` (``rand_spec(random.Random(I))``); the full table of
``compare.compare`` is printed (used to re-check a fuzz spec whose |z| or KS p stood out).

    python benchmarks/outside_physics/rerun.py I [NRELMC] [NINDEP] [SEED] [--out DIR]

I       fuzz spec index
NRELMC  relmc trials (default 6000); NINDEP  indep.py trials (default 1500)
SEED    seed of both simulators (default I, as in ``fuzz.py``)
--out   folder for the log ``log_rerun_{I}_{SEED}.txt`` (default ``results/`` beside this script)

(The walk's ``rerun.py`` took all four arguments; the defaults are fuzz.py's.)
"""

import argparse
import random
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.simplefilter("ignore")
from compare import compare  # noqa: E402
from fuzz import rand_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("i", type=int, help="fuzz spec index")
    ap.add_argument("n_relmc", nargs="?", type=int, default=6000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1500, help="indep.py trials")
    ap.add_argument("seed", nargs="?", type=int, default=None, help="seed (default I)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    i, nr, nm = args.i, args.n_relmc, args.n_indep
    seed = i if args.seed is None else args.seed
    log_to(args.out, f"log_rerun_{i}_{seed}.txt")
    r = compare(f"fuzz{i}", rand_spec(random.Random(i)), nr, nm, seed=seed)
