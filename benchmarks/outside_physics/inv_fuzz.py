"""relmc alone: documented invariants under a tight cap and max_events, random specs.

Spec ``i`` is ``rand_spec(random.Random(10_000 + i))`` (the generator of ``fuzz.py``) with a
wall cap factor of 1, 1.3, 2 or 5 and ``max_events`` of 1, 3, 10 or 1,000,000 drawn from the
same generator; 3,000 relmc trials (seed ``i``). Checked: wall = progress + lost, finished at
progress W, no negative loss, sdc_rework <= rework, wall <= cap, 0 <= progress <= W, events
<= max_events, even power swings on finished trials, no unfinished trial below the cap with
events < max_events, sdc_undetected in {0, 1}, no SDC outputs without an SDC category. One
line per spec, then the number of specs with problems.

    python benchmarks/outside_physics/inv_fuzz.py START STOP [--out DIR]

START STOP  spec indices ``range(START, STOP)``
--out       folder for the log ``log_inv_fuzz_{START}_{STOP}.txt`` (default ``results/``
            beside this script)
"""

import argparse
import dataclasses
import random
import sys
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.simplefilter("ignore")
import indep  # noqa: E402
from compare import invariants  # noqa: E402
from fuzz import rand_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402


def main(argv=None):
    """Check specs START..STOP-1 and print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", type=int, help="first spec index")
    ap.add_argument("stop", type=int, help="one past the last spec index")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args(argv)
    log_to(args.out, f"log_inv_fuzz_{args.start}_{args.stop}.txt")
    nbad = 0
    for i in range(args.start, args.stop):
        rng = random.Random(10_000 + i)
        spec = rand_spec(rng)
        spec["cap_factor"] = rng.choice([1.0, 1.3, 2.0, 5.0])
        sc = indep.build_relmc(spec)
        me = rng.choice([1, 3, 10, 1_000_000])
        sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, max_events=me))
        ds = relmc.simulate(sc, n_trials=3000, seed=i, n_threads=1)
        a = indep.relmc_table(ds, spec)
        bad = [b for b in invariants(a, spec, "relmc") if "unfinished" not in b]
        cap = spec["cap_factor"] * spec["W"]
        fin = a["finished"] > 0.5
        if (a["wall_hours"] > cap * (1 + 1e-12)).any():
            bad.append(f"wall > cap ({a['wall_hours'].max()} > {cap})")
        if (a["progress_hours"] > spec["W"] + 1e-9).any():
            bad.append("progress > W")
        if (a["progress_hours"] < -1e-12).any():
            bad.append("progress < 0")
        ev = ds.events.values
        if (ev > me).any():
            bad.append(f"events > max_events ({ev.max()} > {me})")
        if fin.any() and (a["power_swings"][fin] % 2 != 0).any():
            bad.append("odd power swings on a finished trial")
        u = (~fin) & (a["wall_hours"] < cap * (1 - 1e-12)) & (ev < me)
        if u.any():
            bad.append(f"{int(u.sum())} unfinished trials below the cap with events < max_events")
        if not set(np.unique(a["sdc_undetected"])) <= {0.0, 1.0}:
            bad.append("sdc_undetected not 0/1")
        sdc_cats = [c["name"] for c in spec["cats"] if c["kind"] == "sdc"]
        if not sdc_cats and (a["sdc_undetected"].any() or a["sdc_rework_hours"].any()):
            bad.append("sdc outputs without sdc")
        if bad:
            nbad += 1
        print(
            f"inv{i:3d} cap {spec['cap_factor']} max_events {me}: finished {fin.mean():.3f}  {bad}",
            flush=True,
        )
    print("specs with problems:", nbad)


if __name__ == "__main__":
    main()
