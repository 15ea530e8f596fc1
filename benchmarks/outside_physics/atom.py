"""Show the KS tie artefact: no-event walls differ by ~1e-13 between the two simulators.

For each fuzz spec ``I`` (``fuzz.py``'s generator) it prints the spec, runs
``compare.compare`` (6,000 relmc / 1,500 indep.py trials, seed ``I``), the three most frequent
wall values (atoms, e.g. the deterministic no-event wall) on each side and the KS p-value of
the raw walls and of the walls rounded to 1e-8. Raw walls of an atom differ in the last bits
between implementations, so the raw KS p can be ~0 while the rounded one (what
``compare.py`` reports) is not.

    python benchmarks/outside_physics/atom.py I [I ...] [--out DIR]

I      one or more fuzz spec indices
--out  folder for the log ``log_atom_{I_...}.txt`` (default ``results/`` beside this script)
"""

import argparse
import random
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.simplefilter("ignore")
from compare import compare  # noqa: E402
from fuzz import rand_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("indices", nargs="+", type=int, help="fuzz spec indices")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, f"log_atom_{'_'.join(map(str, args.indices))[:60]}.txt")
    for i in args.indices:
        spec = rand_spec(random.Random(i))
        print({k: v for k, v in spec.items() if k != "cats"})
        for c in spec["cats"]:
            print("  ", c)
        r = compare(f"fuzz{i}", spec, 6000, 1500, seed=i, quiet=True)
        a, b = r["a"]["wall_hours"], r["b"]["wall_hours"]
        va, ca = np.unique(a, return_counts=True)
        vb, cb = np.unique(b, return_counts=True)
        top_a = sorted(zip(va, ca, strict=True), key=lambda x: -x[1])[:3]
        top_b = sorted(zip(vb, cb, strict=True), key=lambda x: -x[1])[:3]
        print("  top atoms relmc", [(repr(v), c) for v, c in top_a])
        print("  top atoms indep", [(repr(v), c) for v, c in top_b])
        print(
            "  KS raw",
            stats.ks_2samp(a, b).pvalue,
            " KS rounded 1e-8",
            stats.ks_2samp(np.round(a, 8), np.round(b, 8)).pvalue,
        )
