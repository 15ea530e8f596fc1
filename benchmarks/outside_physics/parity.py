"""Power-swing parity of trials stopped by max_events = 1 (a failure): relmc, indep2 and M1.

A trial that stops at its max_events-th event makes the power step of that event's kind, so
stopped trials should mostly have an even number of power swings. Scenario ``ev1`` of
``scen_cap``: relmc (20,000 trials, seed 5), indep2.py and indep2.py with the misreading M1
(the stop keeps the power step; its means barely move, but the parity does: recorded share of
even counts 1.0 in relmc, 0.09 under M1).

    python benchmarks/outside_physics/parity.py [--out DIR]

--out   folder for the log ``log_parity.txt`` (default ``results/`` beside this script)
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
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, "log_parity.txt")
    spec = scen_cap.SCEN["ev1"]
    ds = relmc.simulate(indep2.build_relmc(spec), n_trials=20000, seed=5, n_threads=1)
    u = ~ds.finished.values
    print(
        "relmc: unfinished",
        u.sum(),
        "even swings frac",
        (ds.power_swings.values[u] % 2 == 0).mean(),
    )
    b = indep2.run_indep(spec, 3000, 5)
    u = b["finished"] < 0.5
    print("indep2: even frac", (b["power_swings"][u] % 2 == 0).mean())
    indep2.MUT.add("M1")
    b = indep2.run_indep(spec, 3000, 5)
    u = b["finished"] < 0.5
    print("indep2 M1: even frac", (b["power_swings"][u] % 2 == 0).mean())
