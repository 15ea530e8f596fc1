"""Power-swing parity of unfinished trials, relmc vs indep2, on named scen_cap scenarios.

For each scenario: the share of unfinished trials with an even number of power swings, in
relmc (20,000 trials, seed 5) and in indep2.py (4,000 trials, seed 5); the two should agree.

    python benchmarks/outside_physics/parity2.py NAME [NAME ...] [--out DIR]

NAME    scenario of ``scen_cap`` (the recorded run: ev1 ev1_strag ev1_maint ev2_sdc cap_heavy)
--out   folder for the log ``log_parity2_{names}.txt`` (default ``results/`` beside this script)
"""

import argparse
import sys
from pathlib import Path

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import scen_cap  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="+", help="scen_cap scenario names")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, f"log_parity2_{'_'.join(n[:8] for n in args.names)[:60]}.txt")
    for name in args.names:
        spec = scen_cap.SCEN[name]
        ds = relmc.simulate(indep2.build_relmc(spec), n_trials=20000, seed=5, n_threads=1)
        u = ~ds.finished.values
        b = indep2.run_indep(spec, 4000, 5)
        v = b["finished"] < 0.5
        print(
            name,
            "even-swing fraction of unfinished: relmc",
            (ds.power_swings.values[u] % 2 == 0).mean(),
            "indep2",
            (b["power_swings"][v] % 2 == 0).mean(),
        )
