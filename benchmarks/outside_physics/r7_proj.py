"""Seventh round: ``relmc.project`` with precision, per-draw physics rows, size-scaled rates.

Written from the documents only: ``relmc/projection.py``'s module docstring, ``project``'s
docstring (``precision``: "n_trials becomes a budget, and each size stops once its ETTR
standard error meets the target ...; n_trials and stopped_by (n_gpus) record what ran";
``keep_trials``: "With precision, trials a size did not run are NaN") and the ``seed_rule``
attr; ``relmc.Precision``'s and ``relmc.simulate``'s docstrings ("The trials run are a prefix
of the n_trials run, whole blocks"; ``overhead_seed``: "Simulations given the same value share
each posterior draw's multipliers (common random numbers), also when one simulates a subset of
the draws (relmc.rates.RateDraws.n_source)"); ``draw_overhead_factors``' docstring;
``relmc.rates``' module docstring ("Size scaling": without an exponent every rate is linear in
its units), ``nested_draws``' ("a prefix of the trials (adaptive precision) holds whole
groups"; ``source_draws``), ``RateDraws``'; the contract's "Uncertain overheads" and "Physics
parameters per draw" ("Trials that share a rate draw share its physics parameters ... rows that
repeat a posterior draw repeat its parameters"). ``_kernels.py``, ``reference.py``,
``inputs.py`` and ``tests/`` not read. The independent side is the fifth round's
``r5_indep.run_r5`` (``indep2.Trial``, general path) with a factor row given; the sixth round's
``r6_proj`` supplies the rate posterior, the seed rule's rebuild and the credible quantiles.

Modes (one ``relmc.project(keep_trials=True)`` at sizes 8 and 16 each; ``node``: the
scenario's size and twice it):

prec   the sixth round's rate posterior (2 chains x D draws) with
       ``precision=Precision(target_rse=RSE, min_trials=MIN)``: the kept trials are
       ``simulate(..., precision=...)`` with the seed rule's seeds (bit for bit, NaN past the
       prefix; the prefix equals the first trials of the full run; ``n_trials`` = the prefix);
       the credible quantiles rebuilt from the credible simulation as actually run (both the
       full ``credible_trials`` run and the ``precision`` run are tried: which one project runs
       is read from the result, printed); the nested draws' groups in a ``precision`` run of
       the credible simulation (whole groups or not, printed).
phys   the fifth round's ``g_all`` (1 chain x 3 draws with diurnal amplitude / peak hour and
       trend shape per draw; snapshot, persist, restart, swap, detection, maintenance and
       SDC-latency spreads; four jitters); credible groups of the first K < 3 draws against
       ``run_r5`` on draw k's physics rows and ``F[k]``. Negative control: draw k + 1's physics
       rows with ``F[k]`` (X2 of the fifth round).
units  the sixth round's rate posterior with the categories in units ``gpu`` (``gpu``),
       ``node`` (``net``) and ``job`` (``sdc``), per unit-hour rates chosen so that the job
       rates at 8 GPUs are the sixth round's: ``job_rates`` at N = rate x units(N) (documented
       scaling, every draw); the independent side at each size on draw k's rates times the
       units at that size and ``F[k]`` (the same factor row at both sizes). Negative control:
       the rates at 16 read as those at 8 (no size scaling).
node   a fifth-round node-model scenario (``--scen``: ``n_all``, all nine spreads, or
       ``n_cap``, diagnosis and preemption spreads), 4 draws with per-draw physics and lemon
       rows; the independent side (``r4_indep.R4Trial``) per size on draw k's rows and
       ``F[k]``: the diagnosis and preemption columns of the credible groups. Negative
       control: draw k + 1's rows with ``F[k]``.

Every mode: ``F = r5_indep.overhead_factors(spreads, n_draws, root)`` (one ``Z`` row per
posterior draw) against relmc's ``draw_overhead_factors`` for the nested rows with
``n_source`` (bit), the credible groups and predictive draws against ``run_r5`` with ``F[k]``,
relmc's credible group k against its predictive draw k, and the negative controls N4 (draw
k + 1's factors), N5 (factors per trial) and N6 (``F_K``: Z of K rows, the reading the sixth
round mended away).

    taskset -c 1 python benchmarks/outside_physics/r7_proj.py MODE [NPRED] [CT] [M] [NINDEP]
        [--seed ROOT] [--draws D] [--rse RSE] [--min MIN] [--iseed I] [--scen S] [--out DIR]

--iseed offsets the independent side's seeds (a fresh independent sample, same relmc runs).
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import relmc
from relmc._seed import child_seed, resolve_seed
from relmc.cluster import units as units_of
from relmc.projection import size_seed
from relmc.rates import job_rates, nested_draws, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r5_scen  # noqa: E402
import r6_proj as R6  # noqa: E402
from outlog import log_to  # noqa: E402
from r6_oseed import z_relmc  # noqa: E402

warnings.simplefilter("ignore")

SIZES = (8, 16)
UNITS = ("gpu", "node", "job")  # r6_proj's categories gpu, net, sdc


def setup(mode, a):
    """(idata, scenario, spec_of(k, N), spreads, n_draws, table spec, precision)."""
    if mode == "node":
        ps = r5_scen.SCEN[a.scen]

        def spec_of(k, N):
            return {**r5_scen.draw_spec(ps, k), "n_gpus": N}

        return (
            ps.idata(), r5_scen.build_relmc(ps), spec_of, ps.spec["spreads"], ps.n_draws,
            r5_scen.draw_spec(ps, 0), None,
        )  # fmt: skip
    if mode == "phys":
        ps = r5_scen.SCEN["g_all"]
        return (
            ps.idata(), r5_scen.build_relmc(ps), lambda k, N: r5_scen.draw_spec(ps, k),
            ps.spec["spreads"], ps.n_draws, r5_scen.draw_spec(ps, 0), None,
        )  # fmt: skip
    idata, rate = R6.posterior(a.chains, a.draws)
    nd = a.chains * a.draws
    flat = rate.transpose(1, 0, 2).reshape(nd, 3)
    sc = indep2.build_relmc(R6.SPEC)
    prec = None
    if mode == "prec":
        prec = relmc.Precision(target_rse=a.rse, min_trials=a.min)
        return idata, sc, lambda k, N: R6.draw_spec(flat[k]), R6.SPEC["spreads"], nd, R6.SPEC, prec
    # units: per unit-hour rates whose job rates at SIZES[0] are the sixth round's
    u0 = np.array([units_of(SIZES[0], u) for u in UNITS])
    idata.posterior["rate"] = idata.posterior["rate"] / u0
    cats = tuple(
        dataclasses.replace(c, unit=u, rate=c.rate / x)
        for c, u, x in zip(sc.failures.categories, UNITS, u0, strict=True)
    )
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))

    def spec_of(k, N):
        return R6.draw_spec(flat[k] / u0 * np.array([units_of(N, u) for u in UNITS]))

    return idata, sc, spec_of, R6.SPEC["spreads"], nd, R6.SPEC, None


def sim(sc, rates, n, seed, oseed, prec=None):
    return relmc.simulate(
        sc, rates=rates, n_trials=n, seed=seed, overhead_seed=oseed, n_threads=1, precision=prec
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("prec", "phys", "units", "node"))
    ap.add_argument("--scen", default="n_all", help="node mode: r5_scen's node scenario")
    ap.add_argument("n_pred", nargs="?", type=int, default=16000)
    ap.add_argument("ct", nargs="?", type=int, default=6000)
    ap.add_argument("m", nargs="?", type=int, default=1500)
    ap.add_argument("n_indep", nargs="?", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--draws", type=int, default=4)
    ap.add_argument("--rse", type=float, default=0.003)
    ap.add_argument("--min", type=int, default=512)
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r7"))
    a = ap.parse_args(argv)
    mode = a.mode + (a.scen if a.mode == "node" else "")
    tag = f"{mode}_{a.seed}_{a.n_pred}_{a.ct}_{a.m}_{a.draws}_{a.rse}_{a.min}_{a.iseed}"
    log_to(a.out, f"log_r7_proj_{tag}.txt")
    print(f"r7_proj {a.mode} predictive {a.n_pred} credible {a.ct} x {a.m}/draw indep "
          f"{a.n_indep}/draw seed {a.seed}  relmc {relmc.__version__}")  # fmt: skip
    idata, sc, spec_of, sp, nd, tspec, prec = setup(a.mode, a)
    node = a.mode == "node"
    sizes = (tspec["n_gpus"], 2 * tspec["n_gpus"]) if node else SIZES
    if prec is not None:
        print(f"precision: target_rse {a.rse}, min_trials {a.min}")
    ck, out = {}, dict(comp={}, rel={}, neg={}, info={})
    root = resolve_seed(a.seed)
    t0 = time.time()
    res = relmc.project(
        idata, n_gpus=list(sizes), scenario=sc, n_trials=a.n_pred, seed=a.seed, n_threads=1,
        keep_trials=True, credible_trials=a.ct, trials_per_draw=a.m, precision=prec,
    )  # fmt: skip
    print(f"project: {time.time() - t0:.1f}s; n_trials {res.n_trials.values.tolist()}, "
          f"stopped_by {res.stopped_by.values.tolist()}, n_draws_credible "
          f"{res.attrs['n_draws_credible']}")  # fmt: skip
    K = min(-(-a.ct // a.m), nd)
    F = r5_indep.overhead_factors(sp, nd, a.seed)
    FK = r5_indep.overhead_factors(sp, K, a.seed)
    ck["n_draws_credible == K"] = int(res.attrs["n_draws_credible"]) == K
    from relmc.sim import simulate as S

    pred, cred, nest = {}, {}, {}
    for N in sizes:
        scN = R6.at_size(sc, N)
        n_run = int(res.n_trials.sel(n_gpus=N))
        P = sim(scN, idata, a.n_pred, size_seed(root, N), root, prec)
        pred[N] = P
        kept = res.ettr.sel(n_gpus=N).values
        ck[f"N={N} predictive: n_trials == trials simulate ran"] = P.sizes["trial"] == n_run
        ck[f"N={N} predictive ettr == project's first n_trials (bit)"] = bool(
            np.array_equal(P.ettr.values, kept[:n_run])
        )
        ck[f"N={N} kept ettr NaN past n_trials"] = bool(np.isnan(kept[n_run:]).all())
        ck[f"N={N} stopped_by == simulate's"] = str(res.stopped_by.sel(n_gpus=N).values) == str(
            P.attrs["stopped_by"]
        )
        if prec is not None:
            Pf = sim(scN, idata, a.n_pred, size_seed(root, N), root)
            ck[f"N={N} precision run == prefix of the full run (every variable, bit)"] = all(
                np.array_equal(
                    P[v].values, Pf[v].isel(trial=slice(0, n_run)).values, equal_nan=True
                )
                for v in P.data_vars
            )
            ck[f"N={N} prefix is whole blocks (n_trials % 256 == 0 or == budget)"] = (
                n_run % 256 == 0 or n_run == a.n_pred
            )
            Q = sim(scN, idata, a.n_pred, size_seed(root, N), None, prec)
            out["neg"][(N, "pred no overhead_seed")] = (
                bool(np.array_equal(Q.ettr.values, kept[: Q.sizes["trial"]])),
                float(np.nanmax(np.abs(Q.ettr.values - kept[: Q.sizes["trial"]]))),
            )
        dr = rate_draws(scN, idata)
        if a.mode == "units":
            u = np.array([units_of(N, x) for x in UNITS])
            jr = job_rates(scN, dr)
            want = (dr.values * u).sum(1)
            ck[f"N={N} job_rates == sum rate x units(N) (max rel diff)"] = float(
                np.abs(jr / want - 1).max()
            )
            out["info"][N] = (u.tolist(), float(jr.mean()))
        ne = nested_draws(dr, a.ct, a.m)
        nest[N] = ne
        ck[f"N={N} nested: first K draws, M each; n_source == n_draws"] = bool(
            np.array_equal(ne.rows, np.repeat(np.arange(K), a.m)[: len(ne.rows)])
            and ne.n_source == nd
        )
        inp, _ = S.kernel_inputs(scN, rates=ne, n_trials=a.ct)
        Fn = S.draw_overhead_factors(inp, root, rows=ne.rows, n_source=ne.n_source)
        ck[f"N={N} draw_overhead_factors(nested, n_source) == F[rows] (bit)"] = bool(
            np.array_equal(Fn.overhead_factor, F[ne.rows])
        )
        cseed = child_seed(size_seed(root, N), R6.CREDIBLE_KEY)
        pe = res.ettr_credible.sel(n_gpus=N).values
        pi = res.interruptions_per_day_credible.sel(n_gpus=N).values
        runs = {"full credible_trials": sim(scN, ne, a.ct, cseed, root)}
        if prec is not None:
            runs["with precision"] = sim(scN, ne, a.ct, cseed, root, prec)
        for lab, Cr in runs.items():
            qe, nze, qi = R6.cred_q(Cr, ne, scN)
            q24, n24 = qi["24n/w"]
            hit = (
                np.array_equal(qe, pe)
                and nze == float(res.ettr_credible_noise.sel(n_gpus=N))
                and np.array_equal(q24, pi)
                and n24 == float(res.interruptions_per_day_credible_noise.sel(n_gpus=N))
            )
            grp = ne.rows[Cr.draw.values]
            cnt = np.bincount(grp, minlength=K)
            whole = [int(c) for c in cnt if c]
            out["info"][(N, lab)] = (Cr.sizes["trial"], str(Cr.attrs["stopped_by"]), whole)
            print(f"  N={N} credible rebuilt {lab}: {Cr.sizes['trial']} trials, stopped_by "
                  f"{Cr.attrs['stopped_by']}, group sizes {whole}; quantiles and noise "
                  f"bit-identical to project's: {hit}, max |diff| "
                  f"{float(np.abs(qe - pe).max()):.3g}")  # fmt: skip
            if lab == "full credible_trials":
                ck[f"N={N} credible quantiles, noise == full run's (bit)"] = bool(hit)
                cred[N] = Cr
            else:
                out["neg"][(N, "cred with precision")] = (bool(hit), float(np.abs(qe - pe).max()))
        for lab, seed, oseed in (
            ("cred no overhead_seed", cseed, None),
            ("cred seed without the credible key", size_seed(root, N), root),
        ):
            Q = sim(scN, ne, a.ct, seed, oseed)
            q, _, _ = R6.cred_q(Q, ne, scN)
            out["neg"][(N, lab)] = (bool(np.array_equal(q, pe)), float(np.abs(q - pe).max()))
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    for (N, lab), (eq, d) in out["neg"].items():
        print(f"  negative N={N} {lab}: bit-identical {eq}, max |diff| {d:.3g}")

    # statistical
    t0 = time.time()
    ind = {}
    per_size = a.mode in ("units", "node")
    for N in sizes if per_size else sizes[:1]:
        for k in range(K):
            spec = spec_of(k, N)
            fd = {k2: dict(zip(r5_indep.COLS, f, strict=True)) for k2, f in
                  (("F", F[k]), ("F1", F[(k + 1) % nd]), ("FK", FK[k]))}  # fmt: skip
            s0 = 1000 * (N if per_size else 0) + 50 + k + 100_000 * a.iseed
            ind[(N, k, "F[k]")] = r5_indep.run_r5(spec, a.n_indep, s0, F=fd["F"], node=node)
            ind[(N, k, "N4: F[k+1]")] = r5_indep.run_r5(
                spec, a.n_indep, s0 + 100, F=fd["F1"], node=node
            )
            ind[(N, k, "N5: per trial")] = r5_indep.run_r5(spec, a.n_indep, s0 + 200, node=node)
            if not np.array_equal(F[k], FK[k]):
                ind[(N, k, "N6: F_K[k]")] = r5_indep.run_r5(
                    spec, a.n_indep, s0 + 300, F=fd["FK"], node=node
                )
            if a.mode in ("phys", "node"):
                ind[(N, k, "N7: rows of k+1")] = r5_indep.run_r5(
                    spec_of((k + 1) % nd, N), a.n_indep, s0 + 400, F=fd["F"], node=node
                )
            if a.mode == "units" and N == sizes[1]:
                ind[(N, k, "N8: rates of 8")] = r5_indep.run_r5(
                    spec_of(k, sizes[0]), a.n_indep, s0 + 500, F=fd["F"], node=node
                )
    print(f"independent side: {time.time() - t0:.1f}s")

    table = indep_nodes.relmc_table if node else indep2.relmc_table

    def tab(ds, mask):
        return {k: v[mask].copy() for k, v in table(ds, tspec).items()}

    for N in sizes:
        NI = N if per_size else sizes[0]
        grp = nest[N].rows[cred[N].draw.values]
        pdw = pred[N].draw.values
        for k in range(K):
            g = tab(cred[N], grp == k)
            for (nn, kk, lab), b in ind.items():
                if nn != NI or kk != k:
                    continue
                out["comp"][(N, "cred", k, lab)] = r4_run.compare_tables(
                    f"cred N={N} g{k} vs {lab}", dict(g), {x: y.copy() for x, y in b.items()},
                    tspec, quiet=True,
                )  # fmt: skip
            if (pdw == k).sum() >= 20:
                out["comp"][(N, "pred", k, "F[k]")] = r4_run.compare_tables(
                    f"pred N={N} d{k} vs F[k]", tab(pred[N], pdw == k),
                    {x: y.copy() for x, y in ind[(NI, k, "F[k]")].items()}, tspec, quiet=True,
                )  # fmt: skip
                out["rel"][(N, k, "cred vs pred")] = z_relmc(g, tab(pred[N], pdw == k))
            if not per_size and N == sizes[1]:
                g8 = tab(cred[sizes[0]], nest[sizes[0]].rows[cred[sizes[0]].draw.values] == k)
                out["rel"][(N, k, "cred 8 vs cred 16")] = z_relmc(g8, g)
    for key, r in out["comp"].items():
        print(
            f"  {str(key):40s} max|z| {r['zmax']:7.2f} ({r['kmax']})  KS wall {r['ks']:.3g} "
            f"progress {r['ksp']:.3g}  broken {len(r['bad'])}"
        )
    for key, (z, k) in out["rel"].items():
        print(f"  relmc {str(key):32s} max|z| {abs(z):6.2f} ({k})")
    print("\nSUMMARY (max |z| over groups / draws and sizes; KS p min)")
    for what in sorted({(w, lab) for (_, w, _, lab) in out["comp"]}):
        xs = [r for (_, w, _, lab), r in out["comp"].items() if (w, lab) == what]
        print(
            f"  {what[0]:4s} {what[1]:16s} n={len(xs):2d}  max|z| "
            f"{max(r['zmax'] for r in xs):7.2f}  KS wall {min(r['ks'] for r in xs):.3g} "
            f"progress {min(r['ksp'] for r in xs):.3g}  broken {sum(len(r['bad']) for r in xs)}"
        )
    for lab in sorted({lb for (_, _, lb) in out["rel"]}):
        zs = [abs(z) for (_, _, lb), (z, _) in out["rel"].items() if lb == lab]
        print(f"  relmc {lab}: max|z| {max(zs):.2f} (n={len(zs)})")
    bits = [v for v in ck.values() if isinstance(v, bool)]
    print(f"  bit/equality checks passed {sum(bits)}/{len(bits)}; negatives bit-identical "
          f"{sum(eq for eq, _ in out['neg'].values())}/{len(out['neg'])}")  # fmt: skip
    path = a.out / f"res_r7_proj_{tag}.pkl"
    with open(path, "wb") as f:
        pickle.dump(dict(out, checks=ck), f)
    print("wrote", path)


if __name__ == "__main__":
    main()
