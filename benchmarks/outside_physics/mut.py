"""Power check: rerun one scenario with one deliberate misreading of the docs (indep2.MUT).

A misreading that the comparison cannot see would make the comparison worthless; each one
below should give |z| >> 5 on the scenario it targets (the recorded values in README.md):

    M3  power step counted at the cap
    M4  straggler slow phase without jitter (needs detection jitter and a straggler)
    M6  standbys not refilled (e.g. scen_nodes lemon_detect)
    M7  failed node chosen uniformly over the job
    M9  nodes-left count never reset (memory restarts: scen_nodes mem, mem2, mem3)
    M2a / M2 / M2b  an in-flight persist at a maintenance checkpoint cut by the cap is
        durable at once / lost / advanced at wall speed 1 (scen_cap cap_mckpt, cap_mckpt_b)
    M1  a max_events stop without its power step: means barely move, see ``parity.py``

    python benchmarks/outside_physics/mut.py MUT MODULE NAME [NRELMC] [NINDEP] [SEED] [--out DIR]

MUT     misreading (a name of `indep2.MUT`)
MODULE  scen_cap, scen_ovh or scen_nodes (scen_nodes goes through ``compare_nodes``)
NAME    scenario name
NRELMC  relmc trials (default 20000); NINDEP  independent trials (default 5000);
SEED    seed (default 1)
--out   folder for the log ``log_mut_{MUT}_{NAME}_{SEED}.txt`` (default ``results/``)

The recorded runs were e.g. ``mut.py M6 scen_nodes lemon_detect 20000 5000 3`` and
``mut.py M2a scen_cap cap_mckpt 20000 5000 1``.
"""

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mut", help="misreading, e.g. M6")
    ap.add_argument("module", help="scen_cap, scen_ovh or scen_nodes")
    ap.add_argument("name", help="scenario name")
    ap.add_argument("n_relmc", nargs="?", type=int, default=20000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=5000, help="independent trials")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="seed")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, f"log_mut_{args.mut}_{args.name}_{args.seed}.txt")
    indep2.MUT.add(args.mut)
    scen = importlib.import_module(args.module).SCEN
    if args.module == "scen_nodes":
        from compare_nodes import compare
    else:
        from compare2 import compare
    print("mutation", args.mut)
    compare(args.name, scen[args.name], args.n_relmc, args.n_indep, seed=args.seed)
