"""Compare relmc.simulate against indep.py in distribution; check invariants.

`compare` runs one spec through both simulators and reports, per output, the two means, their
standard errors and z = (mean_relmc - mean_indep) / SE (flagged ``<<<`` when |z| > 4), the
two-sample KS p-value of the wall times (rounded to 1e-8: deterministic no-event walls differ
in the last bits between implementations) and the documented invariants of each side
(wall = progress + lost, finished trials at progress W, no negative loss, sdc_rework <=
rework, all trials finished). Used by ``run.py``, ``fuzz.py``, ``rerun.py`` and ``atom.py``.

Run directly, it compares one smoke spec (one swap category, persist, maintenance)::

    python benchmarks/outside_physics/compare.py [NRELMC] [NINDEP] [--out DIR]

NRELMC  relmc trials (default 4000); NINDEP  indep.py trials (default 1000);
--out   folder for the log ``log_compare_smoke.txt`` (default ``results/`` beside this script).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep  # noqa: E402
from outlog import DEFAULT_OUT, log_to, print_rows  # noqa: E402

warnings.simplefilter("ignore")


def invariants(r, spec, who):
    """Return the documented invariants that the outputs `r` of `who` violate."""
    bad = []
    lost = sum(r["lost_" + c] for c in indep.CAUSES)
    d = np.abs(r["wall_hours"] - (r["progress_hours"] + lost))
    if d.max() > 1e-6 * max(1.0, r["wall_hours"].max()):
        bad.append(f"{who}: wall != progress + lost (max diff {d.max():.3g})")
    fin = r["finished"] > 0.5
    if fin.any() and np.abs(r["progress_hours"][fin] - spec["W"]).max() > 1e-9:
        bad.append(f"{who}: finished trial with progress != W")
    for c in indep.CAUSES:
        if c == "slowdown":
            continue
        if r["lost_" + c].min() < -1e-9:
            bad.append(f"{who}: negative lost {c} ({r['lost_' + c].min():.3g})")
    if (r["sdc_rework_hours"] - r["lost_rework"]).max() > 1e-9:
        bad.append(f"{who}: sdc_rework > rework")
    if (~fin).any():
        bad.append(f"{who}: {int((~fin).sum())} unfinished trials")
    return bad


def compare(name, spec, n_relmc=4000, n_mine=1500, seed=1, seed_mine=None, quiet=False):
    """Run `spec` through relmc and indep.py; print and return the comparison."""
    import relmc

    sc = indep.build_relmc(spec)
    t0 = time.time()
    ds = relmc.simulate(sc, n_trials=n_relmc, seed=seed, n_threads=1)
    t1 = time.time()
    a = indep.relmc_table(ds, spec)
    b = indep.run_indep(spec, n_mine, seed if seed_mine is None else seed_mine)
    t2 = time.time()
    rows = []
    for k in a:
        ma, mb = a[k].mean(), b[k].mean()
        sa, sb = a[k].std(ddof=1) / np.sqrt(len(a[k])), b[k].std(ddof=1) / np.sqrt(len(b[k]))
        se = np.hypot(sa, sb)
        z = (
            (ma - mb) / se
            if (se > 0 and abs(ma - mb) > 1e-9 * max(1, abs(ma)))
            else 0.0
            if se > 0
            else (0.0 if abs(ma - mb) < 1e-12 else np.inf)
        )
        rows.append((k, ma, sa, mb, sb, z))
    # round: deterministic no-event walls differ in the last bits between implementations
    ks = stats.ks_2samp(np.round(a["wall_hours"], 8), np.round(b["wall_hours"], 8))
    bad = invariants(a, spec, "relmc") + invariants(b, spec, "indep")
    if not quiet:
        print(
            f"== {name}  relmc n={n_relmc} ({t1 - t0:.1f}s)  indep n={n_mine} ({t2 - t1:.1f}s)"
            f"  KS(wall) p={ks.pvalue:.3g}"
        )
        print_rows(rows, bad)
    return dict(name=name, rows=rows, ks=ks.pvalue, bad=bad, a=a, b=b, ds=ds)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="indep.py trials")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, "log_compare_smoke.txt")
    spec = indep.default_spec(
        cats=[indep.cat("a", 0.3, detect=0.1, swap=True)],
        swap_h=0.2,
        persist=0.1,
        maint_rate=0.05,
        maint_h=0.5,
    )
    compare("smoke", spec, args.n_relmc, args.n_indep)
