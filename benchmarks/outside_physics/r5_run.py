"""Fifth round: per-draw physics rows with overhead spreads, relmc against ``r5_indep``.

Per scenario of ``r5_scen.SCEN`` one ``relmc.simulate(scenario, rates=idata, seed=SEED)``
call. Given-factor scenarios: ``NRELMC * D`` trials over the posterior's D draws (trial ``i``
is draw ``i mod D``, checked), and for each draw ``d`` the independent side runs
``r5_indep.run_r5`` on draw ``d``'s physics rows with draw ``d``'s overhead factors ``F[d]``,
computed from the contract and ``draw_overhead_factors``' docstring (``r5_indep.
overhead_factors``; the largest difference to relmc's own ``draw_overhead_factors`` is
printed, a check of that docstring, not an input). Mixture scenarios (``mix`` G): a posterior
of ``NRELMC * G`` draws cycling over G physics rows, one trial per draw (each its own factors);
the trials of row g against the independent side drawing factors per trial.

Per comparison (``r4_run.compare_tables``): z of every shared output (``<<<`` past 4), KS p of
wall / progress / power swings, chi-square p of the swings, the invariants of both sides
(wall = progress + lost, no negative loss, finished at W, cap, ``max_events``, even swings
where due). A closing table gives per scenario / draw max |z|, KS p minima and the factors.
Results pickled to ``OUT/res_r5_{SEED}_{tag}.pkl``, the log to ``OUT/log_r5_{SEED}_{tag}.txt``.

    taskset -c 1 python benchmarks/outside_physics/r5_run.py [NAMES] [NRELMC] [NINDEP] [SEED]
        [--mut X1,X4] [--out DIR]

NAMES   comma-separated names of ``r5_scen.SCEN`` or ``all`` (default)
NRELMC  relmc trials per draw (per physics row for a mixture; default 10000)
NINDEP  independent trials per draw (default 5000)
SEED    relmc's seed (also the overhead seed); the independent side ``SEED + 100 d``
--mut   misreadings on the independent side (``r5_indep``: X1-X6)
--out   folder (default /tmp/r5)
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r5_scen  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")


def relmc_factors(sc, idata, n, seed):
    """relmc's own ``F`` (``kernel_inputs`` + ``draw_overhead_factors``), for the check only."""
    from relmc._seed import resolve_seed
    from relmc.sim import simulate as S

    inp, _ = S.kernel_inputs(sc, rates=idata, n_trials=n)
    return S.draw_overhead_factors(inp, resolve_seed(seed)).overhead_factor


def _table(ps, ds):
    return (indep_nodes.relmc_table if ps.node else indep2.relmc_table)(
        ds, r5_scen.draw_spec(ps, 0)
    )


def run_given(name, ps, n, nm, seed, muts, quiet=False):
    """Each draw's trials against the independent side on its rows and its ``F[d]``."""
    D = ps.n_draws
    sc = r5_scen.build_relmc(ps)
    idata = ps.idata()
    t0 = time.time()
    ds = relmc.simulate(sc, rates=idata, n_trials=n * D, seed=seed, n_threads=1)
    draw = ds.draw.values
    assign = bool((draw == np.arange(len(draw)) % D).all())
    F = r5_indep.overhead_factors(ps.spec["spreads"], D, seed)
    dF = float(np.abs(F - relmc_factors(sc, idata, n * D, seed)).max())
    if not quiet:
        print(
            f"relmc {n * D} trials {time.time() - t0:.1f}s; trial i -> draw i mod {D}: "
            f"{assign}; max |F - relmc's draw_overhead_factors| {dF:.3g}"
        )
    a = _table(ps, ds)
    out = {}
    for d in range(D):
        dd = (d + 1) % D if "X2" in muts else d
        fd = (d + 1) % D if "X3" in muts else d
        spec = r5_scen.draw_spec(ps, dd)
        Fd = dict(zip(r5_indep.COLS, F[fd], strict=True))
        t0 = time.time()
        b = r5_indep.run_r5(spec, nm, seed + 100 * d, F=Fd, node=ps.node)
        if not quiet:
            used = {k: round(float(v), 3) for k, v in Fd.items() if v != 1.0}
            print(f"-- draw {d}: beta {ps.beta[d]}  F {used}  (indep {time.time() - t0:.1f}s)")
        ad = {k: v[draw == d] for k, v in a.items()}
        res = r4_run.compare_tables(f"{name}/d{d}", ad, b, spec, quiet=quiet)
        res.update(assign=assign, dF=dF, F=Fd)
        if not assign:
            res["bad"].append("relmc: trial i not on draw i mod D")
        out[d] = res
    return out


def run_mix(name, ps, n, nm, seed, muts, quiet=False):
    """Mixture: ``n * G`` draws cycling over G rows, one trial each; per row compared."""
    G = ps.mix
    sc = r5_scen.build_relmc(ps)
    t0 = time.time()
    ds = relmc.simulate(sc, rates=ps.idata(n * G), n_trials=n * G, seed=seed, n_threads=1)
    draw = ds.draw.values
    assign = bool((draw == np.arange(len(draw))).all())
    if not quiet:
        print(f"relmc {n * G} trials / draws {time.time() - t0:.1f}s; trial i -> draw i: {assign}")
    a = _table(ps, ds)
    out = {}
    for g in range(G):
        spec = r5_scen.draw_spec(ps, g)
        b = r5_indep.run_r5(spec, nm, seed + 100 * g, F=None, node=ps.node)
        ad = {k: v[draw % G == g] for k, v in a.items()}
        res = r4_run.compare_tables(f"{name}/row{g}", ad, b, spec, quiet=quiet)
        res.update(assign=assign, dF=0.0, F=None)
        out[g] = res
    return out


def run_one(name, ps, n, nm, seed, muts, quiet=False):
    f = run_mix if ps.mix else run_given
    return f(name, ps, n, nm, seed, muts, quiet)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="?", default="all")
    ap.add_argument("n_relmc", nargs="?", type=int, default=10000)
    ap.add_argument("n_indep", nargs="?", type=int, default=5000)
    ap.add_argument("seed", nargs="?", type=int, default=1)
    ap.add_argument("--mut", default="")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r5"))
    args = ap.parse_args(argv)
    muts = {m for m in args.mut.split(",") if m}
    r5_indep.set_mut(muts)
    names = list(r5_scen.SCEN) if args.names == "all" else args.names.split(",")
    tag = ("all" if args.names == "all" else "_".join(names))[:60]
    if muts:
        tag += "_mut" + "".join(sorted(muts))
    log_to(args.out, f"log_r5_{args.seed}_{tag}.txt")
    print(
        f"r5_run {names} relmc {args.n_relmc}/draw indep {args.n_indep}/draw seed {args.seed}"
        f" misreadings {sorted(muts)}  relmc {relmc.__version__}"
    )
    res = {}
    for nme in names:
        t0 = time.time()
        res[nme] = run_one(nme, r5_scen.SCEN[nme], args.n_relmc, args.n_indep, args.seed, muts)
        print(f"({nme}: {time.time() - t0:.1f}s)")
    print("\nSUMMARY  scenario/draw  max|z| (output)  KS wall  KS progress  swings KS/chi2  bad")
    for nme, r in res.items():
        for d, x in r.items():
            print(
                f"  {nme}/{d}  {x['zmax']:5.2f} ({x['kmax']})  {x['ks']:.3g}  {x['ksp']:.3g}  "
                f"{x['ks_swings']:.3g}/{x['chi2_swings']:.3g}  {len(x['bad'])}"
                f"{'  <<<' if x['zmax'] > 4 else ''}"
            )
    allz = [x["zmax"] for r in res.values() for x in r.values()]
    print(
        f"over {len(allz)} comparisons: max|z| {max(allz):.2f}; min KS wall "
        f"{min(x['ks'] for r in res.values() for x in r.values()):.3g}, progress "
        f"{min(x['ksp'] for r in res.values() for x in r.values()):.3g}"
    )
    path = args.out / f"res_r5_{args.seed}_{tag}.pkl"
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
