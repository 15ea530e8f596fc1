"""Sixth round: ``relmc.simulate(..., seed=S, overhead_seed=O)`` with O apart from S.

Written from the documents only: the ``overhead_seed`` paragraph of ``relmc.simulate``'s
docstring ("Root of the per-draw overhead multipliers ...; default: ``seed``. Simulations given
the same value share each posterior draw's multipliers (common random numbers) ... Recorded in
``attrs`` (``overhead_seed_entropy``, ``overhead_seed_spawn_key``) when given"), the contract's
"Uncertain overheads" (``relmc/sim/__init__.py``) and ``draw_overhead_factors``' docstring
(``Z`` from ``child_seed(root, OVERHEAD_KEY)``, "the first six columns for every row, then the
rest"). ``_kernels.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read. No new
simulator: the fifth round's ``r5_indep.run_r5`` (``indep2.Trial`` / ``r4_indep.R4Trial`` with a
draw's factor row given) and ``r5_indep.overhead_factors`` (the documented ``F`` of an int
seed), on the fifth round's posteriors (``r5_scen.SCEN``, given-factor ones).

Per scenario (posterior of D draws, NRELMC relmc trials per draw):

(a) ``F(O)`` computed from the documents equals relmc's own ``draw_overhead_factors`` rooted at
    O (the run does not put the factors in its dataset), and ``F(O) != F(S)``; the same for O
    given as a ``SeedSequence`` with a spawn key (``F`` from ``(entropy, spawn_key +
    (OVERHEAD_KEY,))``, derived here from the docstring, not through ``overhead_factors``).
(b) run A = ``simulate(seed=S, overhead_seed=O)``: each draw's trials against ``run_r5`` on the
    draw's rows and ``F(O)[d]`` (``r4_run.compare_tables``: z of every output, KS of wall /
    progress / power swings, chi-square of the swings, invariants).
    Negative control N1: the independent side with ``F(S)[d]`` (the factors from the seed).
(c) run B = ``(S2, O)``: against the same independent tables (``F(O)``), and against A directly
    (relmc vs relmc, per draw, z of every output); run C = ``(S, O2)``: against ``F(O)`` (must
    fail: negative control N2) and against ``F(O2)`` (must pass). Bit checks: B's trials differ
    from A's (S drives the trials); ``(S, overhead_seed=S)`` equals ``(S, None)`` bit for bit
    (the default is ``seed``); A differs from ``(S, None)``.
(d) attrs: A records ``overhead_seed_entropy == str(O)`` and ``overhead_seed_spawn_key ==
    "[]"``; the SeedSequence run records its spawn key; ``(S, None)`` records neither.

    taskset -c 1 python benchmarks/outside_physics/r6_oseed.py [NAMES] [NRELMC] [NINDEP]
        [--seed S] [--oseed O] [--out DIR]

NAMES   comma-separated given-factor names of ``r5_scen.SCEN`` (default ``g_all,n_switch``)
NRELMC  relmc trials per draw (default 8000); NINDEP independent trials per draw (default 4000)
--seed  S (default 1; S2 = S + 1); --oseed O (default 1001; O2 = O + 1); --out (default /tmp/r6)
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r5_run  # noqa: E402
import r5_scen  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")


def factors_of(spreads, n_rows, ss):
    """``F`` for a root ``SeedSequence`` `ss` (spawn key kept), from the docstring alone."""
    from relmc.sim.simulate import OVERHEAD_KEY

    child = np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (OVERHEAD_KEY,))
    rng = np.random.default_rng(child)
    z = np.concatenate([rng.standard_normal((n_rows, 6)), rng.standard_normal((n_rows, 3))], 1)
    sig = np.array([math.log((spreads or {}).get(k, 1.0)) / r5_indep.Z95 for k in r5_indep.COLS])
    return np.exp(sig * z)


def relmc_factors(sc, idata, n, ss):
    """relmc's own ``F`` rooted at `ss` (``kernel_inputs`` + ``draw_overhead_factors``)."""
    from relmc.sim import simulate as S

    inp, _ = S.kernel_inputs(sc, rates=idata, n_trials=n)
    return S.draw_overhead_factors(inp, ss).overhead_factor


def z_relmc(a, b):
    """Max |z| between two relmc tables of one draw (every shared output); (z, output)."""
    best = (0.0, "")
    for k in a:
        x, y = a[k], b[k]
        if np.isnan(x).all():
            continue
        se = math.hypot(x.std(ddof=1) / math.sqrt(len(x)), y.std(ddof=1) / math.sqrt(len(y)))
        if se == 0:
            continue
        z = (x.mean() - y.mean()) / se
        if abs(z) > abs(best[0]):
            best = (float(z), k)
    return best


def same(x, y):
    """Bit-identical datasets (every data variable)."""
    return all(np.array_equal(x[v].values, y[v].values, equal_nan=True) for v in x.data_vars)


def run_scen(name, ps, n, nm, s1, o1, quiet=False):
    D = ps.n_draws
    sc = r5_scen.build_relmc(ps)
    idata = ps.idata()
    sp = ps.spec["spreads"]
    s2, o2 = s1 + 1, o1 + 1
    out = dict(name=name, checks={}, comp={}, rel={})
    ck = out["checks"]

    # (a) the factors
    FO, FS, FO2 = (r5_indep.overhead_factors(sp, D, s) for s in (o1, s1, o2))
    ck["F(O) == relmc draw_overhead_factors(O)"] = float(
        np.abs(FO - relmc_factors(sc, idata, n * D, np.random.SeedSequence(o1))).max()
    )
    ck["max |log F(O) - log F(S)| (must be > 0)"] = float(np.abs(np.log(FO) - np.log(FS)).max())
    ssk = np.random.SeedSequence(o1, spawn_key=(7, 3))
    ck["F(SeedSequence(O, (7, 3))) == relmc's"] = float(
        np.abs(factors_of(sp, D, ssk) - relmc_factors(sc, idata, n * D, ssk)).max()
    )
    ck["factors_of(int O) == r5_indep.overhead_factors"] = float(
        np.abs(factors_of(sp, D, np.random.SeedSequence(o1)) - FO).max()
    )

    # the runs
    def sim(seed, oseed):
        return relmc.simulate(
            sc, rates=idata, n_trials=n * D, seed=seed, overhead_seed=oseed, n_threads=1
        )

    t0 = time.time()
    A, B, C = sim(s1, o1), sim(s2, o1), sim(s1, o2)
    dflt, selfo, sk = sim(s1, None), sim(s1, s1), sim(s1, ssk)
    if not quiet:
        print(f"[{name}] six relmc runs of {n * D} trials: {time.time() - t0:.1f}s")
    ck["(S, overhead_seed=S) == (S, None) bit for bit"] = same(selfo, dflt)
    ck["(S, O) != (S, None)"] = not same(A, dflt)
    ck["(S2, O) != (S, O) (trials move with S)"] = not same(A, B)
    plain = dataclasses.replace(ps, spec={**ps.spec, "spreads": None, "jitters": None})
    psc, pid = r5_scen.build_relmc(plain), plain.idata()
    ck["no spreads: (S, O) == (S, None) bit for bit"] = same(
        relmc.simulate(psc, rates=pid, n_trials=n * D, seed=s1, overhead_seed=o1, n_threads=1),
        relmc.simulate(psc, rates=pid, n_trials=n * D, seed=s1, n_threads=1),
    )
    ck["trial i on draw i mod D"] = bool((A.draw.values == np.arange(n * D) % D).all())
    # (d) attrs
    ck["attrs A: overhead_seed_entropy, spawn_key"] = (
        A.attrs.get("overhead_seed_entropy"),
        A.attrs.get("overhead_seed_spawn_key"),
    )
    ck["attrs SeedSequence(O, (7, 3))"] = (
        sk.attrs.get("overhead_seed_entropy"),
        sk.attrs.get("overhead_seed_spawn_key"),
    )
    ck["attrs (S, None) has overhead_seed_*"] = any(
        k.startswith("overhead_seed") for k in dflt.attrs
    )
    ck["attrs ok"] = (
        A.attrs.get("overhead_seed_entropy") == str(o1)
        and A.attrs.get("overhead_seed_spawn_key") == "[]"
        and sk.attrs.get("overhead_seed_entropy") == str(o1)
        and sk.attrs.get("overhead_seed_spawn_key") == "[7, 3]"
        and not ck["attrs (S, None) has overhead_seed_*"]
        and A.attrs.get("seed_entropy") == str(s1)
    )
    if not quiet:
        for k, v in ck.items():
            print(f"  check {k}: {v}")

    tabs = {k: r5_run._table(ps, ds) for k, ds in dict(A=A, B=B, C=C).items()}
    draw = A.draw.values
    for d in range(D):
        spec = r5_scen.draw_spec(ps, d)
        ind = {}
        for tag, F in (("F(O)", FO), ("F(S)", FS), ("F(O2)", FO2)):
            Fd = dict(zip(r5_indep.COLS, F[d], strict=True))
            ind[tag] = r5_indep.run_r5(spec, nm, s1 + 100 * d + 7, F=Fd, node=ps.node)
        pairs = (
            ("A(S,O) vs F(O)", "A", "F(O)"),
            ("B(S2,O) vs F(O)", "B", "F(O)"),
            ("C(S,O2) vs F(O2)", "C", "F(O2)"),
            ("N1: A(S,O) vs F(S)", "A", "F(S)"),
            ("N2: C(S,O2) vs F(O)", "C", "F(O)"),
        )
        for lab, r, f in pairs:
            a = {k: v[draw == d].copy() for k, v in tabs[r].items()}
            b = {k: v.copy() for k, v in ind[f].items()}
            res = r4_run.compare_tables(f"{name}/d{d} {lab}", a, b, spec, quiet=True)
            out["comp"][(d, lab)] = res
            if not quiet:
                print(
                    f"  d{d} {lab:22s} max|z| {res['zmax']:7.2f} ({res['kmax']})  KS wall "
                    f"{res['ks']:.3g} progress {res['ksp']:.3g} swings {res['ks_swings']:.3g} "
                    f"chi2 {res['chi2_swings']:.3g}  invariants broken {len(res['bad'])}"
                )
        a = {k: v[draw == d] for k, v in tabs["A"].items()}
        for lab, r in (("A vs B (same O)", "B"), ("N3: A vs C (O2)", "C")):
            b = {k: v[draw == d] for k, v in tabs[r].items()}
            out["rel"][(d, lab)] = z_relmc(a, b)
            if not quiet:
                z, k = out["rel"][(d, lab)]
                print(f"  d{d} relmc {lab:18s} max|z| {abs(z):7.2f} ({k})")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="?", default="g_all,n_switch")
    ap.add_argument("n_relmc", nargs="?", type=int, default=8000)
    ap.add_argument("n_indep", nargs="?", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--oseed", type=int, default=1001)
    ap.add_argument("--out", type=Path, default=Path("/tmp/r6"))
    args = ap.parse_args(argv)
    names = args.names.split(",")
    tag = "_".join(names)[:60]
    log_to(args.out, f"log_r6_oseed_{args.seed}_{args.oseed}_{tag}.txt")
    print(
        f"r6_oseed {names} relmc {args.n_relmc}/draw indep {args.n_indep}/draw S {args.seed} "
        f"O {args.oseed}  relmc {relmc.__version__}"
    )
    res = {}
    for nme in names:
        t0 = time.time()
        res[nme] = run_scen(nme, r5_scen.SCEN[nme], args.n_relmc, args.n_indep, args.seed,
                            args.oseed)  # fmt: skip
        print(f"({nme}: {time.time() - t0:.1f}s)")
    print("\nSUMMARY (max |z| over draws; KS p: min over draws)")
    for nme, r in res.items():
        labs = sorted({lab for _, lab in r["comp"]})
        for lab in labs:
            xs = [x for (_, lb), x in r["comp"].items() if lb == lab]
            print(
                f"  {nme:9s} {lab:22s} max|z| {max(x['zmax'] for x in xs):7.2f}  KS wall "
                f"{min(x['ks'] for x in xs):.3g} progress {min(x['ksp'] for x in xs):.3g}  "
                f"swings chi2 {min(x['chi2_swings'] for x in xs):.3g}  broken "
                f"{sum(len(x['bad']) for x in xs)}"
            )
        for lab in sorted({lab for _, lab in r["rel"]}):
            zs = [abs(z) for (_, lb), (z, _) in r["rel"].items() if lb == lab]
            print(f"  {nme:9s} relmc {lab:16s} max|z| {max(zs):7.2f}")
        bits = {k: v for k, v in r["checks"].items() if isinstance(v, bool | float)}
        print(f"  {nme:9s} checks {bits}")
    path = args.out / f"res_r6_oseed_{args.seed}_{args.oseed}_{tag}.pkl"
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
