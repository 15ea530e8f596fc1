"""Compare relmc.simulate against indep2.py in distribution; check invariants with a cap.

`compare` is ``compare.compare`` (kept unchanged for the first check's scripts) on
``indep2.py``: per output the two means, their standard errors and z = (mean_relmc -
mean_indep) / SE (flagged ``<<<`` when |z| > 4), including ``events``; the two-sample KS
p-values of the wall and of the progress (both rounded to 1e-8; under a binding cap most
walls sit at the cap, so the KS of progress is the informative one); and the documented
invariants of each side (wall = progress + lost, finished trials at progress W, no negative
loss, sdc_rework <= rework, wall <= cap, an unfinished trial at the cap or at max_events,
events <= max_events). With overhead spreads relmc runs as independent calls of at most 4096
trials (seeds ``seed * 1000 + j``), because its trials cycle over 4096 overhead draws. Used
by ``run2.py``, ``mut.py``, ``fuzz2.py`` and ``rerun2.py``.

Run directly, it compares the smoke spec of ``compare.py``::

    python benchmarks/outside_physics/compare2.py [NRELMC] [NINDEP] [--out DIR]

NRELMC  relmc trials (default 4000); NINDEP  indep2.py trials (default 1000);
--out   folder for the log ``log_compare2_smoke.txt`` (default ``results/`` beside this script).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2 as indep  # noqa: E402
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
    cap = spec["cap_factor"] * spec["W"]
    if r["wall_hours"].max() > cap * (1 + 1e-12):
        bad.append(f"{who}: wall > cap")
    unf = ~fin
    at = (np.abs(r["wall_hours"] - cap) < 1e-9 * cap) | (r["events"] >= spec["max_events"])
    if (unf & ~at).any():
        bad.append(f"{who}: unfinished not at cap nor at max_events ({int((unf & ~at).sum())})")
    if (r["events"] > spec["max_events"]).any():
        bad.append(f"{who}: events > max_events")
    return bad


def compare(
    name, spec, n_relmc=4000, n_mine=1500, seed=1, seed_mine=None, quiet=False, sim=indep,
    run=None,
):  # fmt: skip
    """Run `spec` through relmc and indep.py; print and return the comparison.

    ``sim`` is the simulator's module (its ``build_relmc`` and ``relmc_table``; ``indep2``, or
    ``indep_nodes`` for ``compare_nodes.compare``) and ``run`` its runner (default
    ``sim.run_indep``). An output that is NaN on both sides (pool occupancy with an unlimited
    pool) is left out.
    """
    import relmc

    run = sim.run_indep if run is None else run
    sc = sim.build_relmc(spec)
    t0 = time.time()
    if spec.get("spreads"):
        # per-draw overhead factors cycle over 4096 draws: independent runs of <= 4096 trials
        parts = []
        left, j = n_relmc, 0
        while left > 0:
            m = min(4096, left)
            ds = relmc.simulate(sc, n_trials=m, seed=seed * 1000 + j, n_threads=1)
            parts.append(sim.relmc_table(ds, spec))
            left -= m
            j += 1
        a = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    else:
        ds = relmc.simulate(sc, n_trials=n_relmc, seed=seed, n_threads=1)
        a = sim.relmc_table(ds, spec)
    t1 = time.time()
    b = run(spec, n_mine, seed if seed_mine is None else seed_mine)
    t2 = time.time()
    rows = []
    for k in a:
        if np.isnan(a[k]).all() and np.isnan(b[k]).all():
            continue
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
    ksp = stats.ks_2samp(np.round(a["progress_hours"], 8), np.round(b["progress_hours"], 8))
    bad = invariants(a, spec, "relmc") + invariants(b, spec, "indep")
    if not quiet:
        fr = (a["finished"].mean(), b["finished"].mean())
        print(
            f"== {name} finished {fr[0]:.3f}/{fr[1]:.3f}  relmc n={n_relmc} ({t1 - t0:.1f}s)"
            f"  indep n={n_mine} ({t2 - t1:.1f}s)"
            f"  KS(wall) p={ks.pvalue:.3g}  KS(progress) p={ksp.pvalue:.3g}"
        )
        print_rows(rows, bad)
    return dict(name=name, rows=rows, ks=ks.pvalue, ksp=ksp.pvalue, bad=bad, a=a, b=b, ds=ds)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="indep2.py trials")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, "log_compare2_smoke.txt")
    spec = indep.default_spec(
        cats=[indep.cat("a", 0.3, detect=0.1, swap=True)],
        swap_h=0.2,
        persist=0.1,
        maint_rate=0.05,
        maint_h=0.5,
    )
    compare("smoke", spec, args.n_relmc, args.n_indep)
