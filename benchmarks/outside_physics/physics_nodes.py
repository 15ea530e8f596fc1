"""Per-draw physics rows with the node model: lemons per draw, stragglers and SDC added.

A hand-made posterior (``arviz.InferenceData``) of three draws gives, for one failure
category ``hw`` (unit job), a per-draw ``rate``, ``bad_node_fraction`` (0.3, 0.0, 0.15) and
``bad_node_multiplier`` (6, 1, 3; dims chain, draw, category). The scenario adds a straggler
``slow`` (its own bad_node_multiplier 4) and an SDC ``sdc`` (no multiplier of its own), which
the posterior lacks (they keep their scenario rates: README, "Adding them to a fit"), and has
the node model on (lemons shed through an unlimited pool, a standby, preemption, diagnosis;
every category swaps, so the multipliers set how fast the job sheds lemons); the scenario's
single f = 0.1, m = 2 are replaced by the draws'. ``relmc.simulate(..., rates=idata)``
assigns trials to draws in turn; each draw's trials are compared with
``indep_nodes_phys.py`` run on that draw's values (relmc's readings A1, A2, A6).

The contract gives ``m_c = draw_bad_multiplier[d, c]`` "in place of ``bad_multiplier[c]``"
but does not say what a category the posterior lacks gets; ``--slow-m`` and ``--sdc-m``
choose the reading for the independent side:

    --slow-m own|draw     the straggler's own multiplier (4), or the draw's hw value
    --sdc-m model|one|draw  the scenario's single m (2), 1, or the draw's hw value

    python benchmarks/outside_physics/physics_nodes.py [NRELMC] [NINDEP] [--slow-m own]
        [--sdc-m model] [--out DIR]

NRELMC  relmc trials over the 3 draws (default 30000); NINDEP  independent trials per draw
(default 4000).
"""

import argparse
import math
import sys
import warnings
from pathlib import Path

import arviz as az
import numpy as np
import xarray as xr
from scipy import stats

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes_phys as P  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

warnings.simplefilter("ignore")

RATE = np.array([0.3, 0.15, 0.4])
F = np.array([0.3, 0.0, 0.15])
M = np.array([6.0, 1.0, 3.0])
D = 3


def idata():
    post = xr.Dataset(
        dict(
            rate=(("chain", "draw", "category"), RATE[None, :, None]),
            bad_node_fraction=(("chain", "draw"), F[None]),
            bad_node_multiplier=(("chain", "draw", "category"), M[None, :, None]),
        ),
        coords=dict(chain=[0], draw=np.arange(D), category=["hw"]),
    )
    return az.InferenceData(posterior=post)


def spec(d, slow_m="own", sdc_m="model"):
    """The spec of draw `d` (d None: the scenario's single values) under the readings."""
    f = 0.1 if d is None else F[d]
    mh = None if d is None else M[d]
    ms = 4.0 if (slow_m == "own" or d is None) else M[d]
    mc = {"model": None, "one": 1.0, "draw": mh}[sdc_m] if d is not None else None
    return node_spec(
        W=20.0, n_gpus=64, f=f, m=2.0, swap_h=0.2, n_standbys=1, preempt_h=0.2, K=2,
        cap_factor=10.0,
        cats=[
            ncat("hw", 0.3 if d is None else RATE[d], detect=0.1, swap=True, diag=0.1,
                 mult=mh),
            ncat("slow", 0.4, kind="straggler", detect=0.4, swap=True, diag=0.1, speed=0.3,
                 mult=ms),
            ncat("sdc", 0.2, kind="sdc", detect=0.1, swap=True, diag=0.1, sdc_L=0.4,
                 sdc_exp=True, mult=mc),
        ],
    )  # fmt: skip


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_relmc", nargs="?", type=int, default=30000)
    ap.add_argument("n_indep", nargs="?", type=int, default=4000)
    ap.add_argument("--slow-m", default="own", choices=["own", "draw"])
    ap.add_argument("--sdc-m", default="model", choices=["model", "one", "draw"])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    log_to(args.out, f"log_physics_nodes_{args.slow_m}_{args.sdc_m}.txt")
    P.PMUT.update(["A1", "A2", "A6"])
    print("readings: slow m", args.slow_m, " sdc m", args.sdc_m)
    sc = P.build_relmc(spec(None))
    ds = relmc.simulate(sc, rates=idata(), n_trials=args.n_relmc, seed=31, n_threads=1)
    A = P.relmc_table(ds, spec(0))
    for d in range(D):
        sel = ds.draw.values == d
        B = P.run_phys(spec(d, args.slow_m, args.sdc_m), args.n_indep, 700 + d)
        ks = stats.ks_2samp(np.round(A["wall_hours"][sel], 8), np.round(B["wall_hours"], 8))
        print(
            f"== draw {d}: rate {RATE[d]} f {F[d]} m {M[d]}  relmc n={sel.sum()} "
            f"indep n={args.n_indep}  KS(wall) p={ks.pvalue:.3g}"
        )
        for k in A:
            a, b = A[k][sel], B[k]
            if np.isnan(a).all() and np.isnan(b).all():
                continue
            if a.mean() == 0 and b.mean() == 0:
                continue
            se = math.hypot(a.std(ddof=1) / math.sqrt(len(a)), b.std(ddof=1) / math.sqrt(len(b)))
            z = (a.mean() - b.mean()) / se if se > 0 and abs(a.mean() - b.mean()) > 1e-9 else 0.0
            print(
                f"  {k:22s} relmc {a.mean():10.5g}   indep {b.mean():10.5g}   "
                f"z={z:6.2f}{'  <<<' if abs(z) > 4 else ''}"
            )


if __name__ == "__main__":
    main()
