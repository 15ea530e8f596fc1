"""Seventh round: ``overhead_seed`` given to ``relmc.simulate`` with point rates (no posterior).

Written from the documents only: the README's "Uncertain overheads" ("point rates are repeated
over 4,096 draws so each has its own"), ``relmc.simulate``'s docstring (``overhead_seed``: "Root
of the per-draw overhead multipliers ...; default: seed"; ``draw``: "rate draw per trial: the
row of rates"), ``draw_overhead_factors``' docstring ("Row d is exp(overhead_sigma * Z[rows[d]]),
Z ... drawn in order from the stream child_seed(root, OVERHEAD_KEY) (the first six columns for
every row, then the rest)"), ``relmc.rates``' "Draw order" (trial i uses row ``i mod n_draws``)
and the contract's "Uncertain overheads". ``_kernels.py``, ``reference.py``, ``inputs.py`` and
``tests/`` not read. The independent side is the fifth round's ``r5_indep.run_r5`` (general
path) with a factor row given; ``F`` for a seed is ``r5_indep.overhead_factors(spreads, 4096,
seed)``.

The scenario: the sixth round's ``r6_proj.SPEC`` (a swap failure, a restart failure, an SDC
with exponential latency; snapshot, restart, swap, detection and SDC-latency spreads, restart
jitter) plus a persist spread, at its own point rates (``rates=None``). Runs A = (S, O),
B = (S + 1, O), C = (S, O + 1) of ``n = 4096 M`` trials.

(a) bits: ``F(O)`` (4,096 rows) = relmc's ``draw_overhead_factors`` rooted at O (kernel inputs
    of the point rates); ``draw`` = ``i mod 4096`` (also for a run of fewer than 4,096 trials:
    ``draw`` = i); (S, overhead_seed=S) = (S, None); (S, O) != (S, None); B's trials != A's;
    without spreads or jitters (S, O) = (S, None).
(b) rows: for six rows chosen from ``F(O)`` (the largest and smallest restart, detection and
    SDC-latency factors), A's M trials of the row against ``run_r5`` with ``F(O)[row]``, and
    B's (same O) and relmc A against B; negative controls: the same trials against
    ``F(S)[row]`` (factors from the seed) and C's trials of the row against ``F(O)[row]``.
(c) halves (every row): A's trials on the 2,048 rows with the larger documented SDC-latency
    (then restart) factor against independent trials that cycle those rows' ``F(O)``; the
    negative control splits the same way but gives the independent trials ``F(S)`` of the rows.
(d) mixture: all of A's trials against independent trials that draw their factors per trial.

    taskset -c 1 python benchmarks/outside_physics/r7_point.py [M] [NINDEP] [--seed S]
        [--oseed O] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r6_proj as R6  # noqa: E402
from outlog import log_to  # noqa: E402
from r6_oseed import relmc_factors, same, z_relmc  # noqa: E402

warnings.simplefilter("ignore")

ROWS = 4096  # the README's cycled draws of point rates
SPEC = copy.deepcopy(R6.SPEC)
SPEC["spreads"] = {**SPEC["spreads"], "persist": 2.0}


def fdict(row):
    return dict(zip(r5_indep.COLS, row, strict=True))


def indep_rows(F, rows, n, seed):
    """`n` independent trials cycling over `rows`, trial j with ``F[rows[j mod len]]``."""
    per = np.bincount(np.arange(n) % len(rows), minlength=len(rows))
    parts = [r5_indep.run_r5(SPEC, int(c), seed + j, F=fdict(F[r]), node=False)
             for j, (r, c) in enumerate(zip(rows, per, strict=True)) if c]  # fmt: skip
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("m", nargs="?", type=int, default=100)
    ap.add_argument("n_indep", nargs="?", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--oseed", type=int, default=1001)
    ap.add_argument("--out", type=Path, default=Path("/tmp/r7"))
    a = ap.parse_args(argv)
    S, O = a.seed, a.oseed  # noqa: E741
    log_to(a.out, f"log_r7_point_{S}_{O}_{a.m}_{a.n_indep}.txt")
    print(f"r7_point M {a.m} (trials per row) indep {a.n_indep} seed {S} overhead_seed {O}  "
          f"relmc {relmc.__version__}")  # fmt: skip
    sc = indep2.build_relmc(SPEC)
    sp = SPEC["spreads"]
    n = ROWS * a.m
    ck, out = {}, dict(comp={}, rel={})

    def sim(seed, oseed, n=n, scen=sc):
        return relmc.simulate(scen, n_trials=n, seed=seed, overhead_seed=oseed, n_threads=1)

    FO, FS, FO1 = (r5_indep.overhead_factors(sp, ROWS, s) for s in (O, S, O + 1))
    t0 = time.time()
    A = sim(S, O)
    print(f"relmc A: {time.time() - t0:.1f}s for {n} trials")
    B, C = sim(S + 1, O), sim(S, O + 1)
    rf = relmc_factors(sc, None, n, np.random.SeedSequence(O))
    ck["relmc draw_overhead_factors(O) has 4096 rows"] = rf.shape[0] == ROWS
    ck["F(O) == relmc draw_overhead_factors(O) (bit)"] = bool(np.array_equal(rf, FO))
    ck["F(O) != F(S)"] = not np.array_equal(FO, FS)
    ck["draw == i mod 4096"] = bool((A.draw.values == np.arange(n) % ROWS).all())
    small = sim(S, O, n=1000)
    ck["n = 1000: draw == i"] = bool((small.draw.values == np.arange(1000)).all())
    ck["(S, overhead_seed=S) == (S, None) (bit)"] = same(sim(S, S, n=20000), sim(S, None, n=20000))
    ck["(S, O) != (S, None)"] = not same(sim(S, O, n=20000), sim(S, None, n=20000))
    ck["B's trials != A's"] = not np.array_equal(A.ettr.values, B.ettr.values)
    bare = indep2.build_relmc({**SPEC, "spreads": None, "jitters": None})
    ck["no spreads: (S, O) == (S, None) (bit)"] = same(
        sim(S, O, n=20000, scen=bare), sim(S, None, n=20000, scen=bare)
    )
    ck["attrs overhead_seed_entropy"] = A.attrs.get("overhead_seed_entropy")
    for k, v in ck.items():
        print(f"  check {k}: {v}")

    def tab(ds, mask):
        return {k: v[mask].copy() for k, v in indep2.relmc_table(ds, SPEC).items()}

    def cmp(key, x, y):
        out["comp"][key] = r4_run.compare_tables(
            str(key), dict(x), {k: v.copy() for k, v in y.items()}, SPEC, quiet=True
        )

    # (b) six rows
    t0 = time.time()
    lf = np.log(FO)
    rows = []
    for c in (8, 2, 4):  # SDC latency, restart, detection
        for r in (int(lf[:, c].argmax()), int(lf[:, c].argmin())):
            if r not in rows:
                rows.append(r)
    for j, r in enumerate(rows):
        io = r5_indep.run_r5(SPEC, a.n_indep, 500 + j, F=fdict(FO[r]), node=False)
        is_ = r5_indep.run_r5(SPEC, a.n_indep, 600 + j, F=fdict(FS[r]), node=False)
        ta, tb, tc = (tab(x, x.draw.values == r) for x in (A, B, C))
        cmp(("row", r, "A vs F(O)[row]"), ta, io)
        cmp(("row", r, "B vs F(O)[row]"), tb, io)
        cmp(("row", r, "N1: A vs F(S)[row]"), ta, is_)
        cmp(("row", r, "N2: C vs F(O)[row]"), tc, io)
        out["rel"][(r, "A vs B")] = z_relmc(ta, tb)
        out["rel"][(r, "N3: A vs C")] = z_relmc(ta, tc)
    print(f"rows {rows}: {time.time() - t0:.1f}s; factors (O) sdc_lat / restart / detection: "
          + "; ".join(f"{FO[r, 8]:.3g}/{FO[r, 2]:.3g}/{FO[r, 4]:.3g}" for r in rows))  # fmt: skip

    # (c) halves by the documented factor
    t0 = time.time()
    for c, nm in ((8, "sdc_latency"), (2, "restart")):
        for lab, Fx in (("F(O)", FO), ("N4: F(S)", FS)):
            hi = np.sort(np.argsort(Fx[:, c])[ROWS // 2 :])  # index order
            ind = indep_rows(Fx, hi, a.n_indep, 10_000 + c * 1000)
            cmp(("half", nm, f"A high vs {lab}"), tab(A, np.isin(A.draw.values, hi)), ind)
    # (d) mixture
    mix = r5_indep.run_r5(SPEC, a.n_indep, 777, node=False)
    cmp(("mix", "all", "A vs per-trial factors"), tab(A, np.ones(n, bool)), mix)
    print(f"halves and mixture: {time.time() - t0:.1f}s")

    for key, r in out["comp"].items():
        print(
            f"  {str(key):44s} max|z| {r['zmax']:7.2f} ({r['kmax']})  KS wall {r['ks']:.3g} "
            f"progress {r['ksp']:.3g}  broken {len(r['bad'])}"
        )
    for key, (z, k) in out["rel"].items():
        print(f"  relmc {str(key):24s} max|z| {abs(z):6.2f} ({k})")
    print("\nSUMMARY (max |z|; KS p min)")
    for what in sorted({(w, lab) for (w, _, lab) in out["comp"]}):
        xs = [r for (w, _, lab), r in out["comp"].items() if (w, lab) == what]
        print(
            f"  {what[0]:4s} {what[1]:22s} n={len(xs)}  max|z| "
            f"{max(r['zmax'] for r in xs):7.2f}  KS wall {min(r['ks'] for r in xs):.3g}  "
            f"broken {sum(len(r['bad']) for r in xs)}"
        )
    for lab in ("A vs B", "N3: A vs C"):
        zs = [abs(z) for (_, lb), (z, _) in out["rel"].items() if lb == lab]
        print(f"  relmc {lab}: max|z| {max(zs):.2f}")
    bits = [v for v in ck.values() if isinstance(v, bool)]
    print(f"  bit/equality checks passed {sum(bits)}/{len(bits)}")
    path = a.out / f"res_r7_point_{S}_{O}_{a.m}.pkl"
    with open(path, "wb") as f:
        pickle.dump(dict(out, checks=ck), f)
    print("wrote", path)


if __name__ == "__main__":
    main()
