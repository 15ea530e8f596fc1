"""Sixth round: the credible simulation's groups and the seed rule of ``relmc.project``.

Written from the documents only: ``relmc/projection.py``'s module docstring, ``project``'s and
``size_seed``'s docstrings and the ``seed_rule`` attr it writes ("size N is simulated with
SeedSequence(seed_entropy, seed_spawn_key + [N]) ...; the credible simulation at N with spawn
key + [N, 4294967295] ...; the overhead multipliers of each posterior draw (the policy's
*_spread) from spawn key + [4294967294], the same at every size"), ``credible_quantiles``'
docstring, ``relmc.rates.nested_draws`` / ``draw_of_trial`` / ``RateDraws``' docstrings,
``relmc.simulate``'s (``overhead_seed``: "Simulations given the same value share each posterior
draw's multipliers (common random numbers)"), ``draw_overhead_factors``' and the contract's
"Uncertain overheads" ("Trials that share a rate draw share its factors (also rows that repeat
one posterior draw, as a credible simulation's groups do)"). ``_kernels.py``, ``reference.py``,
``inputs.py`` and ``tests/`` not read. The trials of the independent side are the fifth round's
``r5_indep.run_r5`` (``indep2.Trial``, general path) with a factor row given.

The posterior: C chains x D draws of the rates of three categories (a swap failure, a restart
failure, an SDC with exponential latency), each (chain, draw) distinct, unit ``job`` (the
cluster size changes no rate, so every size runs the same process and only the seeds differ),
spreads on snapshot, restart, swap, detection and SDC latency, restart jitter. One
``relmc.project(..., keep_trials=True, credible_trials=CT, trials_per_draw=M)`` at sizes 8
and 16, then:

(c) predictive seed rule: ``relmc.simulate(scenario at N, rates=idata, n_trials,
    seed=SeedSequence(entropy, spawn_key + (N,)), overhead_seed=root)`` equals project's kept
    ``ettr`` bit for bit, and its summaries (``wall_hours_mean``, ``lost_hours_mean``,
    ``interruptions_mean``, ``ettr_mean``); ``draw`` is ``i mod n_draws``. Negative controls:
    the same without ``overhead_seed`` (factors from ``[N, OVERHEAD_KEY]``), the seed keyed by
    the size's position instead of N.
(a) the credible draws: ``nested_draws(rate_draws(...), CT, M)`` (the documented call) has
    rows ``k`` repeated M times for the first ``K = min(ceil(CT / M), n_draws)`` draws, in the
    draw-major-over-chains order (row ``k`` = chain ``k mod C``, draw ``k // C``); project's
    ``n_draws_credible`` is K.
(b) reconstruction: ``relmc.simulate(scenario at N, rates=nested, n_trials=CT,
    seed=child_seed(size_seed(root, N), 2**32 - 1), overhead_seed=root)``, then the public
    ``credible_quantiles`` of per-trial ETTR and interruptions per wall-clock day (all
    categories) grouped by source draw with covariate ``job_rates`` (``Lambda(N)``) equal
    project's ``ettr_credible`` / ``interruptions_per_day_credible`` and their ``_noise``, bit
    for bit. Negative controls: credible seed without the credible key; no ``overhead_seed``;
    the draws cycled (``i mod n_draws``) instead of nested.
(a, statistical) the factor rows: each credible group (source draw k, M trials) against
    ``run_r5`` on draw k's rates with ``F[k]``, ``F`` = ``r5_indep.overhead_factors(spreads,
    n_draws, root)`` (the predictive run's documented factors, Z with one row per posterior
    draw), and the predictive trials of draw k against the same tables; relmc against relmc:
    credible group k vs predictive draw k, credible at 8 vs at 16. Negative controls: factors
    drawn per trial within a group (``F`` None), draw k + 1's factors, and the other reading of
    "the first six columns for every row, then the rest" with Z of K rows (the credible run's
    own number of draws): ``F_K`` equals ``F`` in columns 0-5 and differs in 6-8 (diagnosis,
    preemption, SDC latency) when K < n_draws. relmc's own ``draw_overhead_factors`` with
    ``rows=nested.rows`` is compared with both (a check of the public function, printed),
    and with ``n_source=nested.n_source`` (added by the mend of this round's finding) with
    ``F``.

    taskset -c 1 python benchmarks/outside_physics/r6_proj.py [NPRED] [CT] [M] [NINDEP]
        [--seed ROOT] [--chains C] [--draws D] [--out DIR]

NPRED   predictive trials per size (default 16000); CT credible trials (default 6000); M
        trials per draw (default 1500); NINDEP independent trials per draw (default 3000)
--seed  project's seed (int, default 3); --chains / --draws the posterior's shape (2 x 4)
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
from relmc.projection import credible_quantiles, size_seed
from relmc.rates import job_rates, nested_draws, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from outlog import log_to  # noqa: E402
from r6_oseed import z_relmc  # noqa: E402

warnings.simplefilter("ignore")

CREDIBLE_KEY = 2**32 - 1  # as the seed_rule attr writes it
SIZES = (8, 16)
NAMES = ("gpu", "net", "sdc")
SPEC = default_spec(
    W=8.0, tau=0.5, delta=0.03, persist=0.1, R=0.3, swap_h=0.3,
    cats=[cat("gpu", 0.2, detect=0.2, swap=True), cat("net", 0.1, detect=0.1),
          cat("sdc", 0.2, kind="sdc", detect=0.1, sdc_L=0.8, sdc_exp=True)],
    spreads=dict(snapshot=2.0, restart=3.0, swap=2.5, detection=3.0, sdc_latency=8.0),
    jitters=dict(restart=2.0),
)  # fmt: skip


def posterior(C, D, seed=0):
    """InferenceData with ``rate`` (chain, draw, category), every (chain, draw) distinct."""
    import arviz as az
    import xarray as xr

    rng = np.random.default_rng(seed)
    rate = rng.uniform(0.05, 0.3, (C, D, 3))
    rate[..., 2] = rng.uniform(0.15, 0.5, (C, D))  # the SDC category: enough rollbacks
    post = xr.Dataset(
        dict(rate=(("chain", "draw", "category"), rate)),
        coords=dict(chain=np.arange(C), draw=np.arange(D), category=list(NAMES)),
    )
    return az.InferenceData(posterior=post), rate


def at_size(sc, N):
    return dataclasses.replace(sc, cluster=dataclasses.replace(sc.cluster, n_gpus=N))


def draw_spec(row):
    s = {**SPEC, "cats": [dict(c) for c in SPEC["cats"]]}
    for c, r in zip(s["cats"], row, strict=True):
        c["rate"] = float(r)
    return s


def ipd_of(ds):
    """Unexpected interruptions (every category) per wall-clock day, per trial: 3 spellings."""
    n = ds.interruptions.sum("category").values.astype(float)
    w = ds.wall_hours.values
    return {"n/(w/24)": n / (w / 24.0), "24n/w": 24.0 * n / w, "n*24/w": n * 24.0 / w}


def cred_q(ds, nested, sc):
    """Credible quantiles of ETTR and interruptions/day as documented; (ettr, noise, ipd dict)."""
    row = ds.draw.values
    grp = nested.rows[row]
    cov = job_rates(sc, nested)[row]
    qe, ne = credible_quantiles(ds.ettr.values, grp, covariate=cov)
    qi = {k: credible_quantiles(v, grp, covariate=cov) for k, v in ipd_of(ds).items()}
    return qe, ne, qi


def sim(sc, rates, n, seed, oseed):
    return relmc.simulate(sc, rates=rates, n_trials=n, seed=seed, overhead_seed=oseed, n_threads=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_pred", nargs="?", type=int, default=16000)
    ap.add_argument("ct", nargs="?", type=int, default=6000)
    ap.add_argument("m", nargs="?", type=int, default=1500)
    ap.add_argument("n_indep", nargs="?", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--draws", type=int, default=4)
    ap.add_argument("--out", type=Path, default=Path("/tmp/r6"))
    a = ap.parse_args(argv)
    tag = f"{a.seed}_{a.n_pred}_{a.ct}_{a.m}_{a.chains}x{a.draws}"
    log_to(a.out, f"log_r6_proj_{tag}.txt")
    print(f"r6_proj predictive {a.n_pred} credible {a.ct} x {a.m}/draw indep {a.n_indep}/draw "
          f"seed {a.seed} posterior {a.chains} x {a.draws}  relmc {relmc.__version__}")  # fmt: skip
    ck = {}
    out = dict(checks=ck, comp={}, rel={}, neg={})
    idata, rate = posterior(a.chains, a.draws)
    nd = a.chains * a.draws
    sc = indep2.build_relmc(SPEC)
    root = resolve_seed(a.seed)
    t0 = time.time()
    res = relmc.project(
        idata, n_gpus=list(SIZES), scenario=sc, n_trials=a.n_pred, seed=a.seed, n_threads=1,
        keep_trials=True, credible_trials=a.ct, trials_per_draw=a.m,
    )  # fmt: skip
    print(f"project: {time.time() - t0:.1f}s; seed_rule: {res.attrs['seed_rule']}")
    K = min(-(-a.ct // a.m), nd)
    flat = rate.transpose(1, 0, 2).reshape(nd, 3)  # draw-major over chains
    sp = SPEC["spreads"]
    F = r5_indep.overhead_factors(sp, nd, a.seed)  # Z with one row per posterior draw
    FK = r5_indep.overhead_factors(sp, K, a.seed)  # the other reading: Z of K rows
    ck["n_draws_credible == K"] = int(res.attrs["n_draws_credible"]) == K
    ck["kept draw == i mod n_draws"] = bool((res.draw.values == np.arange(a.n_pred) % nd).all())
    from relmc.sim import simulate as S

    pred, cred, nest = {}, {}, {}
    for i, N in enumerate(SIZES):
        scN = at_size(sc, N)
        # (c) predictive seed rule
        P = sim(scN, idata, a.n_pred, size_seed(root, N), root)
        pred[N] = P
        kept = res.ettr.sel(n_gpus=N).values
        ck[f"N={N} predictive ettr == project (bit)"] = bool(np.array_equal(P.ettr.values, kept))
        summ = dict(
            wall_hours_mean=P.wall_hours.mean("trial"),
            ettr_mean=P.ettr.mean("trial"),
            lost_hours_mean=P.lost_hours.mean("trial"),
            interruptions_mean=P.interruptions.mean("trial"),
        )
        ck[f"N={N} predictive summaries max |diff|"] = max(
            float(np.abs(res[k].sel(n_gpus=N).values - v.values).max()) for k, v in summ.items()
        )
        for lab, seed, oseed in (
            ("no overhead_seed", size_seed(root, N), None),
            ("seed by position", child_seed(root, i), root),
        ):
            Q = sim(scN, idata, a.n_pred, seed, oseed)
            out["neg"][(N, "pred " + lab)] = (
                bool(np.array_equal(Q.ettr.values, kept)),
                float(np.abs(Q.ettr.values - kept).max()),
            )
        # (a) the credible draws
        dr = rate_draws(scN, idata)
        ck[f"N={N} rate_draws draw-major over chains"] = bool(np.array_equal(dr.values, flat))
        ne = nested_draws(dr, a.ct, a.m)
        nest[N] = ne
        ck[f"N={N} nested rows: first K draws, M each"] = bool(
            np.array_equal(ne.rows, np.repeat(np.arange(K), a.m))
            and np.array_equal(ne.values, flat[ne.rows])
        )
        # relmc's own factor rows for the nested draws (public function, documented call)
        inp, _ = S.kernel_inputs(scN, rates=ne, n_trials=a.ct)
        Fr = S.draw_overhead_factors(inp, root, rows=ne.rows).overhead_factor
        ck[f"N={N} draw_overhead_factors(nested) vs F[rows] max|diff| cols 0-5, 6-8"] = (
            float(np.abs(Fr - F[ne.rows])[:, :6].max()),
            float(np.abs(Fr - F[ne.rows])[:, 6:].max()),
        )
        ck[f"N={N} draw_overhead_factors(nested) vs F_K[rows] max|diff|"] = float(
            np.abs(Fr - FK[ne.rows]).max()
        )
        # with the source's row count (RateDraws.n_source, as simulate passes it since the
        # sixth round's finding was mended): the predictive run's rows
        Fn = S.draw_overhead_factors(inp, root, rows=ne.rows, n_source=ne.n_source)
        ck[f"N={N} draw_overhead_factors(nested, n_source) vs F[rows] max|diff|"] = float(
            np.abs(Fn.overhead_factor - F[ne.rows]).max()
        )
        inp, _ = S.kernel_inputs(scN, rates=idata, n_trials=a.n_pred)
        ck[f"N={N} draw_overhead_factors(predictive) vs F max|diff|"] = float(
            np.abs(S.draw_overhead_factors(inp, root).overhead_factor - F).max()
        )
        # (b) reconstruction of the credible simulation
        cseed = child_seed(size_seed(root, N), CREDIBLE_KEY)
        Cr = sim(scN, ne, a.ct, cseed, root)
        cred[N] = Cr
        qe, nze, qi = cred_q(Cr, ne, scN)
        pe = res.ettr_credible.sel(n_gpus=N).values
        pi = res.interruptions_per_day_credible.sel(n_gpus=N).values
        ck[f"N={N} ettr_credible (bit)"] = bool(np.array_equal(qe, pe))
        ck[f"N={N} ettr_credible_noise (bit)"] = bool(
            nze == float(res.ettr_credible_noise.sel(n_gpus=N))
        )
        pn = float(res.interruptions_per_day_credible_noise.sel(n_gpus=N))
        ck[f"N={N} interruptions_per_day_credible: bit-identical spellings"] = [
            k for k, (q, nz) in qi.items() if np.array_equal(q, pi) and nz == pn
        ]
        ck[f"N={N} interruptions_per_day_credible: max |diff| per spelling"] = {
            k: float(np.abs(q - pi).max()) for k, (q, _) in qi.items()
        }
        negs = (
            ("cred seed without the credible key", size_seed(root, N), root, ne),
            ("cred no overhead_seed", cseed, None, ne),
            ("cred draws cycled i mod n_draws", cseed, root, dr),
        )
        for lab, seed, oseed, rates in negs:
            Q = sim(scN, rates, a.ct, seed, oseed)
            if rates is dr:
                grp, cov = Q.draw.values, job_rates(scN, dr)[Q.draw.values]
                q, _ = credible_quantiles(Q.ettr.values, grp, covariate=cov)
            else:
                q, _, _ = cred_q(Q, ne, scN)
            out["neg"][(N, lab)] = (bool(np.array_equal(q, pe)), float(np.abs(q - pe).max()))
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    for (N, lab), (eq, d) in out["neg"].items():
        print(f"  negative N={N} {lab}: bit-identical {eq}, max |diff| {d:.3g}")

    # statistical: the factor rows of the groups
    t0 = time.time()
    ind = {}
    for k in range(nd):
        spec = draw_spec(flat[k])
        fk = dict(zip(r5_indep.COLS, F[k], strict=True))
        ind[(k, "F[k]")] = r5_indep.run_r5(spec, a.n_indep, 50 + k, F=fk, node=False)
        if k < K:
            f1 = dict(zip(r5_indep.COLS, F[(k + 1) % nd], strict=True))
            fK = dict(zip(r5_indep.COLS, FK[k], strict=True))
            ind[(k, "N4: F[k+1]")] = r5_indep.run_r5(spec, a.n_indep, 150 + k, F=f1, node=False)
            ind[(k, "N5: per trial")] = r5_indep.run_r5(spec, a.n_indep, 250 + k, node=False)
            if not np.array_equal(F[k], FK[k]):
                ind[(k, "N6: F_K[k]")] = r5_indep.run_r5(spec, a.n_indep, 350 + k, F=fK, node=False)
    print(f"independent side: {time.time() - t0:.1f}s")

    def tab(ds, mask):
        return {k: v[mask].copy() for k, v in indep2.relmc_table(ds, SPEC).items()}

    for N in SIZES:
        grp = nest[N].rows[cred[N].draw.values]
        for k in range(K):
            a_ = tab(cred[N], grp == k)
            for (kk, lab), b in ind.items():
                if kk != k:
                    continue
                r = r4_run.compare_tables(
                    f"cred N={N} g{k} vs {lab}", dict(a_), {x: y.copy() for x, y in b.items()},
                    SPEC, quiet=True,
                )  # fmt: skip
                out["comp"][(N, "cred", k, lab)] = r
        pd = pred[N].draw.values
        for k in range(nd):
            b = ind[(k, "F[k]")]
            r = r4_run.compare_tables(
                f"pred N={N} d{k} vs F[k]", tab(pred[N], pd == k),
                {x: y.copy() for x, y in b.items()}, SPEC, quiet=True,
            )  # fmt: skip
            out["comp"][(N, "pred", k, "F[k]")] = r
    for k in range(K):
        g8 = tab(cred[SIZES[0]], nest[SIZES[0]].rows[cred[SIZES[0]].draw.values] == k)
        g16 = tab(cred[SIZES[1]], nest[SIZES[1]].rows[cred[SIZES[1]].draw.values] == k)
        p8 = tab(pred[SIZES[0]], pred[SIZES[0]].draw.values == k)
        out["rel"][(k, "cred 8 vs cred 16")] = z_relmc(g8, g16)
        out["rel"][(k, "cred 8 vs pred 8")] = z_relmc(g8, p8)
    for key, r in out["comp"].items():
        print(
            f"  {str(key):38s} max|z| {r['zmax']:7.2f} ({r['kmax']})  KS wall {r['ks']:.3g} "
            f"progress {r['ksp']:.3g} swings chi2 {r['chi2_swings']:.3g}  broken {len(r['bad'])}"
        )
    for key, (z, k) in out["rel"].items():
        print(f"  relmc {str(key):28s} max|z| {abs(z):6.2f} ({k})")
    print("\nSUMMARY (max |z| over groups / draws and sizes; KS p min)")
    for what in sorted({(w, lab) for (_, w, _, lab) in out["comp"]}):
        xs = [r for (_, w, _, lab), r in out["comp"].items() if (w, lab) == what]
        print(
            f"  {what[0]:4s} {what[1]:14s} n={len(xs):2d}  max|z| "
            f"{max(r['zmax'] for r in xs):7.2f}  KS wall {min(r['ks'] for r in xs):.3g} "
            f"progress {min(r['ksp'] for r in xs):.3g}  broken {sum(len(r['bad']) for r in xs)}"
        )
    for lab in ("cred 8 vs cred 16", "cred 8 vs pred 8"):
        zs = [abs(z) for (_, lb), (z, _) in out["rel"].items() if lb == lab]
        print(f"  relmc {lab}: max|z| {max(zs):.2f}")
    bits = [v for k, v in ck.items() if isinstance(v, bool)]
    print(f"  bit/equality checks passed {sum(bits)}/{len(bits)}; negatives bit-identical "
          f"{sum(eq for eq, _ in out['neg'].values())}/{len(out['neg'])}")  # fmt: skip
    path = a.out / f"res_r6_proj_{tag}.pkl"
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
