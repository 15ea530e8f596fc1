"""One random spec of ``fuzz_nodes_phys.py`` (or one named scenario) again, other sizes / seed.

    python benchmarks/outside_physics/rerun_nodes_phys.py I NRELMC NINDEP SEED [--loose]
        [--mut A1,A2,A6] [--out DIR]

I       spec index of ``fuzz_nodes_phys.gen``, or a name of ``scen_nodes_phys.SCEN``
--loose as ``fuzz_nodes_phys.py --loose`` (cap 10 W, no max_events)
--mut   readings / misreadings of ``indep_nodes_phys.PMUT`` (relmc's readings: A1,A2,A6)
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes_phys  # noqa: E402
from fuzz_nodes_phys import gen  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402
from run_nodes_phys import compare  # noqa: E402
from scen_nodes_phys import SCEN  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("i")
    ap.add_argument("n_relmc", type=int)
    ap.add_argument("n_indep", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--loose", action="store_true")
    ap.add_argument("--mut", default="")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    muts = [m for m in args.mut.split(",") if m]
    indep_nodes_phys.PMUT.update(muts)
    tail = "_loose" if args.loose else ""
    log_to(args.out, f"log_rerun_nodes_phys_{args.i}_{args.seed}{tail}.txt")
    print("readings / misreadings:", sorted(indep_nodes_phys.PMUT))
    if args.i in SCEN:
        spec = SCEN[args.i]
    else:
        spec = gen(int(args.i))
        if args.loose:
            spec.update(cap_factor=10.0, max_events=10**6)
    compare(str(args.i), spec, args.n_relmc, args.n_indep, seed=args.seed)
