"""Fourth round: run relmc and the independent node simulator on ``r4_scen`` and compare.

Three groups (``r4_scen``): ``draws`` (per-draw physics rows with the node model: one
``relmc.simulate(..., rates=idata)`` call whose trials go to the draws in turn, each draw's
trials compared with ``r4_indep`` run on that draw's values), ``power`` (power swings of
straggler and SDC stops with the node model) and ``spread`` (node-model overhead spreads and
jitter; relmc in calls of at most 4,096 trials, seeds ``SEED * 1000 + j``, as
``compare2.py``). The independent side is ``r4_indep.run_r4`` (``indep_nodes_phys`` with
relmc's readings A1, A2, A6 of the third round).

Per scenario (per draw for ``draws``) it prints every shared output's two means, SEs and
z = (relmc - indep) / SE (``<<<`` past |z| = 4), including ``swings_even`` (the share of
trials with an even number of power swings) and ``swings_even_stop`` (the same among trials
stopped by ``max_events``, where the contract says the count is even); the KS p of wall and
progress (rounded to 1e-8); the power swings' per-trial distribution (KS p, and a
two-sample chi-square p on the counts, values merged until every expected cell is >= 5);
and the invariants of both sides (``compare2.invariants``, plus: finished and
``max_events``-stopped trials have an even swing count). A summary line per scenario gives
max |z|. Results are pickled to ``OUT/res_r4_{GROUP}_{SEED}_{tag}.pkl`` and the log to
``OUT/log_r4_{GROUP}_{SEED}_{tag}.txt``.

    python benchmarks/outside_physics/r4_run.py GROUP [NAMES] [NRELMC] [NINDEP] [SEED]
        [--mut Q2,W1] [--out DIR]

GROUP   ``draws``, ``power`` or ``spread``
NAMES   comma-separated scenario names of the group, or ``all`` (default ``all``)
NRELMC  relmc trials per scenario (``draws``: over all draws; default 20000)
NINDEP  independent trials per scenario (``draws``: per draw; default 5000)
SEED    seed (default 1): relmc ``SEED`` (``draws``; ``SEED * 1000 + j`` for ``spread``),
        the independent side ``SEED + 100 * d`` for draw ``d`` (else ``SEED``)
--mut   deliberate misreadings on the independent side (negative controls): ``r4_indep``
        switches Q2, W1, W2, W3, W4, O1, O2, O3, O5, and the spec-level ones Q1 (a draw's peak
        hour read as its trough, +12 h), Q3 (the per-draw trend ignored: shape 1), O4 (the
        maintenance spread and jitter ignored with the node model)
--out   folder (default ``results/`` beside this script)

Run pinned to one core (``taskset -c 1``); relmc gets ``n_threads=1``.
"""

from __future__ import annotations

import argparse
import copy
import math
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare2  # noqa: E402
import r4_indep  # noqa: E402
import r4_scen  # noqa: E402
from outlog import DEFAULT_OUT, log_to, print_rows  # noqa: E402

warnings.simplefilter("ignore")

SPEC_MUTS = {"Q1", "Q3", "O4"}


def _derive(t, spec):
    """Add the parity outputs to a table of outputs (in place); return the stop mask."""
    ev = t["power_swings"] % 2 == 0
    t["swings_even"] = ev.astype(float)
    cap = spec["cap_factor"] * spec["W"]
    stop = (
        (t["finished"] < 0.5)
        & (t["events"] >= spec["max_events"])
        & (t["wall_hours"] < cap * (1 - 1e-12))
    )
    return stop


def _chi2_counts(a, b, min_exp=5.0):
    """Two-sample chi-square p on integer counts; neighbouring values merged for small cells."""
    vals = np.union1d(a, b)
    ca = np.array([(a == v).sum() for v in vals], dtype=float)
    cb = np.array([(b == v).sum() for v in vals], dtype=float)
    n = len(a) + len(b)
    need = min_exp * n / min(len(a), len(b))
    bins_a, bins_b, acc_a, acc_b = [], [], 0.0, 0.0
    for x, y in zip(ca, cb, strict=True):
        acc_a += x
        acc_b += y
        if acc_a + acc_b >= need:
            bins_a.append(acc_a)
            bins_b.append(acc_b)
            acc_a = acc_b = 0.0
    if acc_a + acc_b > 0:
        if bins_a:
            bins_a[-1] += acc_a
            bins_b[-1] += acc_b
        else:
            bins_a.append(acc_a)
            bins_b.append(acc_b)
    if len(bins_a) < 2:
        return 1.0, len(bins_a)
    _, p, _, _ = stats.chi2_contingency(np.array([bins_a, bins_b]))
    return float(p), len(bins_a)


def compare_tables(name, a, b, spec, quiet=False):
    """Compare relmc's table `a` with the independent table `b` (dicts of arrays)."""
    sa_stop = _derive(a, spec)
    sb_stop = _derive(b, spec)
    a["swings_even_stop"] = a["swings_even"][sa_stop] if sa_stop.any() else np.zeros(0)
    b["swings_even_stop"] = b["swings_even"][sb_stop] if sb_stop.any() else np.zeros(0)
    rows = []
    for k in a:
        if k not in b:
            continue
        x, y = a[k], b[k]
        if len(x) < 2 or len(y) < 2:
            continue
        if np.isnan(x).all() and np.isnan(y).all():
            continue
        ma, mb = x.mean(), y.mean()
        sa, sb = x.std(ddof=1) / math.sqrt(len(x)), y.std(ddof=1) / math.sqrt(len(y))
        se = math.hypot(sa, sb)
        if se > 0:
            z = (ma - mb) / se if abs(ma - mb) > 1e-9 * max(1, abs(ma)) else 0.0
        else:
            z = 0.0 if abs(ma - mb) < 1e-12 else math.inf
        rows.append((k, ma, sa, mb, sb, z))
    ks = stats.ks_2samp(np.round(a["wall_hours"], 8), np.round(b["wall_hours"], 8)).pvalue
    ksp = stats.ks_2samp(np.round(a["progress_hours"], 8), np.round(b["progress_hours"], 8))
    ksp = ksp.pvalue
    ksw = stats.ks_2samp(a["power_swings"], b["power_swings"]).pvalue
    chi, nbins = _chi2_counts(a["power_swings"], b["power_swings"])
    bad = compare2.invariants(a, spec, "relmc") + compare2.invariants(b, spec, "indep")
    for who, t, st in (("relmc", a, sa_stop), ("indep", b, sb_stop)):
        fin = t["finished"] > 0.5
        if (t["power_swings"][fin] % 2 != 0).any():
            bad.append(f"{who}: finished trial with an odd swing count")
        if (t["power_swings"][st] % 2 != 0).any():
            bad.append(f"{who}: max_events-stopped trial with an odd swing count")
    zmax = max((abs(r[5]) for r in rows), default=0.0)
    kmax = max(rows, key=lambda r: abs(r[5]))[0] if rows else ""
    if not quiet:
        print(
            f"== {name}  finished {a['finished'].mean():.3f}/{b['finished'].mean():.3f}  "
            f"relmc n={len(a['wall_hours'])} indep n={len(b['wall_hours'])}  KS(wall) p={ks:.3g}"
            f"  KS(progress) p={ksp:.3g}  swings: KS p={ksw:.3g} chi2 p={chi:.3g} "
            f"({nbins} bins)  max_events stops {int(sa_stop.sum())}/{int(sb_stop.sum())}"
        )
        print_rows(rows, bad)
        print(
            f"SUMMARY {name}: max|z| {zmax:.2f} ({kmax})  KS wall {ks:.3g} progress {ksp:.3g}"
            f"  swings KS {ksw:.3g} chi2 {chi:.3g}  invariants broken {len(bad)}"
        )
    return dict(
        name=name, rows=rows, ks=ks, ksp=ksp, ks_swings=ksw, chi2_swings=chi, bad=bad,
        zmax=zmax, kmax=kmax,
    )  # fmt: skip


def relmc_plain(spec, n, seed):
    """relmc on a node spec; under spreads in calls of at most 4,096 trials."""
    sc = r4_indep.build_relmc(spec)
    if not spec.get("spreads"):
        ds = relmc.simulate(sc, n_trials=n, seed=seed, n_threads=1)
        return r4_indep.relmc_table(ds, spec)
    parts, left, j = [], n, 0
    while left > 0:
        m = min(4096, left)
        ds = relmc.simulate(sc, n_trials=m, seed=seed * 1000 + j, n_threads=1)
        parts.append(r4_indep.relmc_table(ds, spec))
        left -= m
        j += 1
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def spec_mut(spec, muts):
    """Apply the spec-level misreading O4 (the others act in draw_spec or r4_indep)."""
    s = copy.deepcopy(spec)
    if "O4" in muts:
        for key in ("spreads", "jitters"):
            if s.get(key):
                s[key] = {k: v for k, v in s[key].items() if k != "maintenance"} or None
    return s


def run_draws(name, ps, n, nm, seed, muts):
    """Per-draw physics with nodes: one relmc call, each draw compared apart."""
    sc = r4_indep.build_relmc(r4_scen.relmc_spec(ps))
    t0 = time.time()
    ds = relmc.simulate(sc, rates=ps.idata(), n_trials=n, seed=seed, n_threads=1)
    print(f"relmc {n} trials {time.time() - t0:.1f}s; draw of trial[:8]:", ds.draw.values[:8])
    a = r4_indep.relmc_table(ds, r4_scen.draw_spec(ps, 0))
    out = {}
    for d in range(ps.n_draws):
        sel = ds.draw.values == d
        spec = r4_scen.draw_spec(
            ps, d, peak_shift=12.0 if "Q1" in muts else 0.0, beta=1.0 if "Q3" in muts else None
        )
        t0 = time.time()
        b = r4_indep.run_r4(spec, nm, seed + 100 * d)
        print(
            f"-- draw {d}: amp {ps.amp[d]} peak {ps.peak[d]} beta {ps.beta[d]} f {ps.f[d]} "
            f"m {ps.m[d]}  (indep {time.time() - t0:.1f}s)"
        )
        ad = {k: v[sel] for k, v in a.items()}
        out[d] = compare_tables(f"{name}/d{d}", ad, b, spec)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("group", choices=["draws", "power", "spread"])
    ap.add_argument("names", nargs="?", default="all")
    ap.add_argument("n_relmc", nargs="?", type=int, default=20000)
    ap.add_argument("n_indep", nargs="?", type=int, default=5000)
    ap.add_argument("seed", nargs="?", type=int, default=1)
    ap.add_argument("--mut", default="", help="misreadings, comma-separated")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    muts = {m for m in args.mut.split(",") if m}
    r4_indep.set_mut(muts - SPEC_MUTS)
    scen = dict(draws=r4_scen.DRAWS, power=r4_scen.POWER, spread=r4_scen.SPREAD)[args.group]
    names = list(scen) if args.names == "all" else args.names.split(",")
    tag = "_".join(n[:10] for n in names)[:50] if args.names != "all" else "all"
    if muts:
        tag += "_mut" + "".join(sorted(muts))
    log_to(args.out, f"log_r4_{args.group}_{args.seed}_{tag}.txt")
    print(
        f"r4_run {args.group} {names} relmc {args.n_relmc} indep {args.n_indep} seed "
        f"{args.seed} misreadings {sorted(muts)}  relmc {relmc.__version__}"
    )
    res = {}
    for nme in names:
        t0 = time.time()
        if args.group == "draws":
            res[nme] = run_draws(nme, scen[nme], args.n_relmc, args.n_indep, args.seed, muts)
        else:
            spec = scen[nme]
            a = relmc_plain(spec, args.n_relmc, args.seed)
            b = r4_indep.run_r4(spec_mut(spec, muts), args.n_indep, args.seed)
            res[nme] = compare_tables(nme, a, b, spec)
        print(f"({nme}: {time.time() - t0:.1f}s)")
    path = args.out / f"res_r4_{args.group}_{args.seed}_{tag}.pkl"
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
