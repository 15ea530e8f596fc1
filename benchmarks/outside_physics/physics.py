"""Per-draw physics: a hand-made posterior with per-draw amplitude / peak / trend.

An ``arviz.InferenceData`` with three draws gives per-draw ``rate``, ``diurnal_amplitude``,
``diurnal_peak_hour`` (4 categories: a swap failure, a straggler, an exponential-latency SDC
and a weekly-profile failure) and ``trend_shape`` (0.3, 1.0, 1.5; fleet age 4 h), on a
scenario with finite spares, maintenance, persist, throughput amplitude 0.3 and K = 3.
``relmc.simulate(..., rates=idata)`` assigns trials to draws in turn; the trials of each
draw are compared (means, z, KS of the wall) with indep.py run on that draw's values. Last,
a per-draw amplitude > 0 on the profile category must be refused (as documented).

    python benchmarks/outside_physics/physics.py [NRELMC] [NINDEP] [--draw1] [--out DIR]

NRELMC   relmc trials over all 3 draws (default 30000; 90000 with --draw1)
NINDEP   indep.py trials per draw (default 3000; 12000 with --draw1)
--draw1  instead, the walk's ``physics_d1.py``: draw 1 only (no diurnal, trend 1), larger
         samples, other seeds (relmc 77, indep.py 555), a few outputs
--out    folder for the log ``log_physics.txt`` / ``log_physics_d1.txt`` (default
         ``results/`` beside this script)

The recorded log was made with ``physics.py 45000 4000``.
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
import indep  # noqa: E402
from indep import cat, default_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402
from scenarios import profile168  # noqa: E402

warnings.simplefilter("ignore")

A0 = 4.0
names = ["gpu", "slow", "sdc", "prof"]
rate = np.array([[0.5, 0.3, 0.1, 0.2], [0.15, 0.15, 0.05, 0.1], [0.08, 0.05, 0.03, 0.05]])
amp = np.array([[1.0, 0.8, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0], [0.5, 1.0, 0.9, 0.0]])
peak = np.array([[3.0, 20.0, 9.0, 0.0], [0.0, 0.0, 0.0, 0.0], [15.0, 1.0, 23.0, 0.0]])
beta = np.array([0.3, 1.0, 1.5])
D = len(beta)
post = xr.Dataset(
    dict(
        rate=(("chain", "draw", "category"), rate[None]),
        diurnal_amplitude=(("chain", "draw", "category"), amp[None]),
        diurnal_peak_hour=(("chain", "draw", "category"), peak[None]),
        trend_shape=(("chain", "draw"), beta[None]),
    ),
    coords=dict(chain=[0], draw=np.arange(D), category=names),
)
post.attrs["fleet_age_hours"] = A0
idata = az.InferenceData(posterior=post)

base = dict(
    W=20.0,
    tau=0.5,
    delta=0.03,
    persist=0.2,
    R=0.2,
    swap_h=0.2,
    n_spares=1,
    repair_h=4.0,
    maint_rate=0.1,
    maint_h=0.4,
    h0=17.3,
    start_day=2,
    b=0.3,
    phi_s=6.0,
    K=3,
    A0=A0,
)


def spec_for(d):
    """Return the indep.py spec of draw `d`."""
    return default_spec(
        beta=float(beta[d]),
        **base,
        cats=[
            cat("gpu", rate[d, 0], detect=0.3, swap=True, amp=amp[d, 0], peak=peak[d, 0]),
            cat(
                "slow",
                rate[d, 1],
                kind="straggler",
                speed=0.3,
                detect=0.6,
                amp=amp[d, 1],
                peak=peak[d, 1],
            ),
            cat(
                "sdc",
                rate[d, 2],
                kind="sdc",
                sdc_L=0.5,
                sdc_exp=True,
                detect=0.1,
                amp=amp[d, 2],
                peak=peak[d, 2],
            ),
            cat("prof", rate[d, 3], detect=0.1, profile=profile168(2)),
        ],
    )


def scenario():
    """Return the relmc scenario (draw 0's categories; per-draw values replace them).

    trend_shape != 1 so that the fleet age is given.
    """
    return indep.build_relmc(default_spec(beta=1.5, **base, cats=spec_for(0)["cats"]))


def per_draw(n, nm):
    """Compare every draw's relmc trials with indep.py on that draw; then the refusal."""
    sc = scenario()
    ds = relmc.simulate(sc, rates=idata, n_trials=n, seed=21, n_threads=1)
    print("draw of trial[:6]:", ds.draw.values[:6])
    A = indep.relmc_table(ds, spec_for(0))
    for d in range(D):
        sel = ds.draw.values == d
        B = indep.run_indep(spec_for(d), nm, 100 + d)
        ks = stats.ks_2samp(A["wall_hours"][sel], B["wall_hours"])
        print(
            f"== draw {d}: amp {amp[d]}, beta {beta[d]}  relmc n={sel.sum()} indep n={nm}  KS "
            f"p={ks.pvalue:.3g}"
        )
        for k in A:
            a, b = A[k][sel], B[k]
            if a.mean() == 0 and b.mean() == 0:
                continue
            se = math.hypot(a.std(ddof=1) / math.sqrt(len(a)), b.std(ddof=1) / math.sqrt(len(b)))
            zz = (a.mean() - b.mean()) / se if se > 0 and abs(a.mean() - b.mean()) > 1e-9 else 0.0
            print(
                f"  {k:20s} relmc {a.mean():10.5g}  indep {b.mean():10.5g}  "
                f"z={zz:6.2f}{'  <<<' if abs(zz) > 4 else ''}"
            )
    # refusal: per-draw amplitude > 0 on a profile category
    amp2 = amp.copy()
    amp2[0, 3] = 0.2
    post2 = post.copy()
    post2["diurnal_amplitude"] = (("chain", "draw", "category"), amp2[None])
    try:
        relmc.simulate(sc, rates=az.InferenceData(posterior=post2), n_trials=10, seed=1)
        print("REFUSAL: not refused!")
    except Exception as e:
        print("refused as documented:", type(e).__name__, str(e)[:200])


def draw1(n, nm):
    """Run the walk's physics_d1.py: draw 1 alone (no diurnal, no trend), larger samples."""
    sc = scenario()
    ds = relmc.simulate(sc, rates=idata, n_trials=n, seed=77, n_threads=1)
    A = indep.relmc_table(ds, spec_for(1))
    sel = ds.draw.values == 1
    B = indep.run_indep(spec_for(1), nm, 555)
    for k in [
        "wall_hours",
        "int_gpu",
        "int_slow",
        "int_prof",
        "int_sdc",
        "power_swings",
        "lost_rework",
    ]:
        a, b = A[k][sel], B[k]
        se = math.hypot(a.std(ddof=1) / math.sqrt(len(a)), b.std(ddof=1) / math.sqrt(len(b)))
        print(
            f"{k:14s} relmc {a.mean():.4f} (n={len(a)}) indep {b.mean():.4f} "
            f"z={(a.mean() - b.mean()) / se:.2f}"
        )
    print("KS", stats.ks_2samp(A["wall_hours"][sel], B["wall_hours"]).pvalue)


def main(argv=None):
    """Parse the arguments and run `per_draw` or `draw1`."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_relmc", nargs="?", type=int, default=None, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=None, help="indep.py trials per draw")
    ap.add_argument("--draw1", action="store_true", help="draw 1 alone (physics_d1.py)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args(argv)
    n, nm = (90000, 12000) if args.draw1 else (30000, 3000)
    n = n if args.n_relmc is None else args.n_relmc
    nm = nm if args.n_indep is None else args.n_indep
    if args.draw1:
        log_to(args.out, "log_physics_d1.txt")
        draw1(n, nm)
    else:
        log_to(args.out, "log_physics.txt")
        per_draw(n, nm)


if __name__ == "__main__":
    main()
