"""Compare relmc.simulate against indep_nodes.py (the node model) in distribution.

As ``compare2.py``, with specs of ``indep_nodes.node_spec``: relmc's Scenario from
``indep_nodes.build_relmc``, the independent side from ``indep_nodes.run_nodes``, and the node
outputs (node counts, pool occupancy) compared as well; an output that is NaN on both sides
(pool occupancy with an unlimited pool) is left out. Means, SEs, z (``<<<`` past |z| = 4), KS
p of wall and progress, invariants. Used by ``run_nodes.py``, ``mut.py``, ``fuzz2.py`` and
``rerun2.py``.

Run directly, it compares a smoke node spec (lemons, a swap category, one standby)::

    python benchmarks/outside_physics/compare_nodes.py [NRELMC] [NINDEP] [--out DIR]

NRELMC  relmc trials (default 4000); NINDEP  indep_nodes.py trials (default 1000);
--out   folder for the log ``log_compare_nodes_smoke.txt`` (default ``results/`` beside this
        script).
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
import indep_nodes  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

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


def compare(name, spec, n_relmc=4000, n_mine=1500, seed=1, seed_mine=None, quiet=False):
    """Run `spec` through relmc and indep.py; print and return the comparison."""
    import relmc

    sc = indep_nodes.build_relmc(spec)
    t0 = time.time()
    if spec.get("spreads"):
        # per-draw overhead factors cycle over 4096 draws: independent runs of <= 4096 trials
        parts = []
        left, j = n_relmc, 0
        while left > 0:
            m = min(4096, left)
            ds = relmc.simulate(sc, n_trials=m, seed=seed * 1000 + j, n_threads=1)
            parts.append(indep_nodes.relmc_table(ds, spec))
            left -= m
            j += 1
        a = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    else:
        ds = relmc.simulate(sc, n_trials=n_relmc, seed=seed, n_threads=1)
        a = indep_nodes.relmc_table(ds, spec)
    t1 = time.time()
    b = indep_nodes.run_nodes(spec, n_mine, seed if seed_mine is None else seed_mine)
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
        for k, ma, sa, mb, sb, z in rows:
            if ma == 0 and mb == 0:
                continue
            flag = "  <<<" if abs(z) > 4 else ""
            print(
                f"  {k:22s} relmc {ma:10.5g} ±{sa:8.2g}   indep {mb:10.5g} ±{sb:8.2g}   "
                f"z={z:6.2f}{flag}"
            )
        for m in bad:
            print("  INVARIANT:", m)
    return dict(name=name, rows=rows, ks=ks.pvalue, ksp=ksp.pvalue, bad=bad, a=a, b=b, ds=ds)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1000, help="indep_nodes.py trials")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, "log_compare_nodes_smoke.txt")
    spec = indep_nodes.node_spec(
        W=20.0,
        n_gpus=64,
        f=0.2,
        m=4.0,
        swap_h=0.2,
        n_standbys=1,
        preempt_h=0.2,
        cats=[indep_nodes.ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1)],
    )
    compare("smoke", spec, args.n_relmc, args.n_indep)
