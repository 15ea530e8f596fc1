"""Random specs: relmc vs indep (means, KS) and invariants.

Spec ``i`` is ``rand_spec(random.Random(i))``: 1-4 categories (failure, straggler, SDC), each
with no modulation, a diurnal cosine or a daily/weekly profile; random W, tau, delta,
persist, R, swaps, spares (None, 0, 1, 3), maintenance, trend (burn-in or wear-out, the
wear-out factor kept at most ~4 over 3 W), start hour/day, throughput amplitude (0, 0.5,
0.95) and retention K. Each spec goes through ``compare.compare`` (seed ``i``); one line per
spec: both mean walls, KS p of the wall, the largest |z| and its output, and invariant
violations (``unfinished trials``: trials stopped by the wall cap, 100 W by default). The
results are pickled to ``OUT/fuzz_{START}_{STOP}.pkl``.

    python benchmarks/outside_physics/fuzz.py START STOP [NRELMC] [NINDEP] [--out DIR]

START STOP  spec indices ``range(START, STOP)``
NRELMC      relmc trials per spec (default 6000, as in the recorded runs)
NINDEP      indep.py trials per spec (default 1500, as in the recorded runs)
--out       folder for the pickle and the log ``log_fuzz_{START}_{STOP}.txt`` (default
            ``results/`` beside this script)

The recorded runs were ``fuzz.py 0 40`` and ``fuzz.py 40 80``. ``rerun.py`` repeats one spec
with other sizes or seeds; ``atom.py`` shows the KS tie artefact on a spec.
"""

import argparse
import pickle
import random
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
warnings.simplefilter("ignore")
from compare import compare  # noqa: E402
from indep import cat, default_spec  # noqa: E402
from outlog import log_to  # noqa: E402
from scenarios import profile168  # noqa: E402
from scenarios2 import daily0  # noqa: E402


def rand_spec(rng):
    """Draw a random spec (dict of indep.py) drawn with `rng` (a ``random.Random``)."""
    tau = rng.choice([0.25, 0.5, 0.7, 1.0])
    W = rng.choice([6.0, 10.3, 15.0])
    s = dict(
        W=W,
        tau=tau,
        delta=rng.choice([0.0, 0.02, 0.1]),
        persist=rng.choice([0.0, rng.uniform(0, tau), tau]),
        R=rng.choice([0.0, 0.1, 0.5]),
        swap_h=rng.choice([0.0, 0.3]),
        n_spares=rng.choice([None, 0, 1, 3]),
        repair_h=rng.choice([1.0, 5.0]),
        maint_rate=rng.choice([0.0, 0.1, 0.4]),
        maint_h=rng.choice([0.0, 0.5]),
        beta=rng.choice([1.0, 0.3, 0.7, 1.5, 3.0]),
        h0=round(rng.uniform(0, 24), 2) % 24,
        start_day=rng.randrange(7),
        b=rng.choice([0.0, 0.5, 0.95]),
        phi_s=round(rng.uniform(0, 24), 2) % 24,
        K=rng.choice([0, 1, 2, 4]),
    )
    # keep the trend factor at most ~4 over 3 W
    if s["beta"] > 1:
        s["A0"] = 3 * W / (4 ** (1 / (s["beta"] - 1)) - 1)
    else:
        s["A0"] = rng.choice([0.5, 2.0, 20.0])
    cats = []
    nc = rng.randint(1, 4)
    kinds = ["failure"] + [rng.choice(["failure", "straggler", "sdc"]) for _ in range(nc - 1)]
    for j, k in enumerate(kinds):
        c = dict(
            name=f"c{j}",
            rate=rng.uniform(0.05, 0.35),
            kind=k,
            detect=rng.choice([0.0, 0.2, 1.0]),
            swap=rng.random() < 0.5,
        )
        mod = rng.choice(["none", "amp", "prof"])
        if mod == "amp":
            c.update(amp=rng.choice([0.5, 1.0]), peak=round(rng.uniform(0, 24), 2) % 24)
        elif mod == "prof":
            c["profile"] = rng.choice([daily0, profile168(rng.randrange(100))])
        if k == "straggler":
            c.update(speed=rng.choice([0.02, 0.3, 0.8]), detect=rng.choice([0.0, 0.3, 2.0]))
        if k == "sdc":
            c.update(
                sdc_L=rng.choice([0.0, 0.3, 1.5]), sdc_exp=rng.random() < 0.5, rate=c["rate"] / 3
            )
        cats.append(cat(**c))
    return default_spec(**s, cats=cats)


def main(argv=None):
    """Parse the arguments, compare specs START..STOP-1 and write the pickle."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", type=int, help="first spec index")
    ap.add_argument("stop", type=int, help="one past the last spec index")
    ap.add_argument("n_relmc", nargs="?", type=int, default=6000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1500, help="indep.py trials")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="result folder")
    args = ap.parse_args(argv)
    start, stop, nr, nm = args.start, args.stop, args.n_relmc, args.n_indep
    log_to(args.out, f"log_fuzz_{start}_{stop}.txt")
    out = {}
    for i in range(start, stop):
        spec = rand_spec(random.Random(i))
        r = compare(f"fuzz{i}", spec, nr, nm, seed=i, quiet=True)
        zs = [(abs(z), k) for k, ma, sa, mb, sb, z in r["rows"] if z == z]
        zmax = max(zs)
        w = [row for row in r["rows"] if row[0] == "wall_hours"][0]
        print(
            f"fuzz{i:3d} wall {w[1]:8.3f} vs {w[3]:8.3f}  KS p={r['ks']:.3g}  max|z|={zmax[0]:.2f} "
            f"({zmax[1]})  {r['bad']}",
            flush=True,
        )
        out[i] = dict(rows=r["rows"], ks=r["ks"], bad=r["bad"], spec=spec)
    path = args.out / f"fuzz_{start}_{stop}.pkl"
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
