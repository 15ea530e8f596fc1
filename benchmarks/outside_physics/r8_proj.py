"""Eighth round (b): ``relmc.project`` with fitted size exponents, an observed size, precision.

Written from the documents only: ``project``'s docstring (``precision``: "n_trials becomes a
budget, and each size stops once its ETTR standard error meets the target or it is hopeless
...; n_trials and stopped_by (n_gpus) record what ran"; ``keep_trials``: "With precision, trials
a size did not run are NaN"), its ``seed_rule`` attr, ``relmc.Precision``'s docstring (rounds of
whole 256-trial blocks: first ``min_trials`` rounded up to blocks, then rounds that double the
total, up to ``n_trials``; stop when SE <= ``target_se`` or <= ``target_rse`` x mean, or when
``mean + 4 SE`` is below ``hopeless_ettr``), ``relmc.summary``'s (SE = sample standard deviation
/ sqrt(k)), ``relmc.simulate``'s ("The trials run are a prefix of the n_trials run, whole
blocks"), the README's adaptive-precision paragraph, ``relmc.rates``' module docstring ("Size
scaling", "Exposure clock") and the docstrings of ``cluster_rates``, ``exposed_fraction``,
``maintenance_rate`` (per wall-clock hour: divided by the mean of f over draws), and the
contract's "Uncertain overheads" and "Physics parameters per draw". Source bodies, ``tests/``
not read. The independent trials are the fifth round's ``r5_indep.run_r5`` (``indep2.Trial``,
or ``r4_indep.R4Trial`` for the node model) with the draw's factor row ``F[k]``
(``r5_indep.overhead_factors``); the documented rates per draw and size are ``r8_mttf.Mine``.

Modes (one ``relmc.project(keep_trials=True)`` at two sizes, optionally with ``precision``):

scale  hand-built 2 chains x D draws, units gpu / node / rack, a size exponent per draw and
       category in [0.5, 1.5], ``reference_gpus`` 16 / 32 / 48, per exposed hour; sizes 8 and
       24. Independent side per draw and size on ``rate u(N_ref)^(1-b) u(N)^b``. Negative
       controls: N8 the reference size's job rates used at N, N9 the linear rule (b = 1).
obs    the same categories without exponents (``--exp``: with them) on the wall clock of a
       window observed on 24 GPUs, detection / swap / snapshot spreads, maintenance; sizes 8 and
       40. Independent side on the fitted rates at N divided by f (f at 24 GPUs, overheads at
       their lognormal means) and the maintenance rate divided by mean f. Negative controls:
       N10 no conversion, N11 f computed at the projected size.
phys   the fifth round's ``g_all`` (per-draw diurnal amplitude, peak, trend; seven spreads).
node   the fifth round's ``n_all`` (node model, all nine spreads), its size and twice it.
hope   the hopeless stop (see below).

Every mode but ``hope``, with ``--rse``/``--tse``/``--hopeless``: the kept trials equal
``simulate(..., precision)`` with the seed rule's seeds (bit), NaN past them, the prefix equals
the full run's first trials in every variable, ``n_trials`` / ``stopped_by`` equal simulate's and
*the documented rule replayed on the full run's ETTR*; ``ettr_mean`` / ``ettr_se`` those of the
prefix. Misreadings of the rule replayed beside it (their trial counts printed). The credible
quantiles rebuilt bit for bit (covariate ``job_rates``) and with my Lambda as covariate. Then each
posterior draw's predictive trials (the prefix) against ``run_r5`` with ``F[k]``.

hope   a posterior whose ETTR at the larger size is low: the full run's ``mean + 4 SE`` after
       each round gives floors that fire at a chosen round (midway), exactly at the boundary
       (c_j: strict "below" must not fire; c_j (1 + 1e-12): must), at the first check, together
       with a target in the same round (which is recorded is printed), and a budget and
       ``min_trials`` that are not whole blocks. Each: ``n_trials``, ``stopped_by`` against
       the replayed rule and its misreadings (``mean - 4 SE``, ``mean`` alone, ``<=``, rounds
       adding ``min_trials``, ``min_trials`` not rounded to blocks, the SE with ddof 0); the
       kept trials against ``simulate(..., precision)``; ``ettr_mean`` / ``ettr_se``.

    taskset -c 1 python benchmarks/outside_physics/r8_proj.py MODE [NPRED] [NINDEP]
        [--seed S] [--draws D] [--rse R] [--tse T] [--hopeless H] [--min M] [--ct CT] [--m M]
        [--exp] [--iseed I] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import math
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
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r5_scen  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
BLOCK = 256
UNITS = ("gpu", "node", "rack")
NREF = np.array([16, 32, 48])


def spec8(obs):
    det = (0.1, 0.05, 0.02) if obs else (0.2, 0.1, 0.05)
    return default_spec(
        W=8.0, tau=0.5, delta=0.03, persist=0.1, R=0.3, swap_h=0.2 if obs else 0.3,
        maint_rate=0.05, maint_h=0.2,
        cats=[cat("gpu", 0.1, detect=det[0], swap=True), cat("net", 0.1, detect=det[1]),
              cat("rk", 0.1, detect=det[2])],
        spreads=dict(detection=3.0, swap=2.5, snapshot=2.0, restart=3.0), jitters=dict(restart=2.0),
    )  # fmt: skip


def hand_idata(C, D, exponent, wall, seed=0, jlo=0.05, jhi=0.3):
    """rate (and exponent, reference_gpus) per unit-hour; job rates at 8 GPUs in [jlo, jhi]."""
    import arviz as az
    import xarray as xr

    rng = np.random.default_rng(seed)
    sh = M8.LLAMA_SHAPE
    b = rng.uniform(0.5, 1.5, (C, D, 3)) if exponent else np.ones((C, D, 3))
    j8 = rng.uniform(jlo, jhi, (C, D, 3))
    u8 = np.array([M8.my_units(8, u, sh) for u in UNITS])
    ur = np.array([M8.my_units(int(n), u, sh) for n, u in zip(NREF, UNITS, strict=True)])
    rate = j8 / (ur ** (1 - b) * u8**b) if exponent else j8 / u8
    dc = ("chain", "draw", "category")
    co = dict(chain=np.arange(C), draw=np.arange(D), category=["gpu", "net", "rk"],
              unit=("category", list(UNITS)))  # fmt: skip
    post = dict(rate=(dc, rate))
    if exponent:
        co["reference_gpus"] = ("category", NREF)
        post["exponent"] = (dc, b)
    ds = xr.Dataset(post, coords=co)
    if wall:
        ds["rate"].attrs.update(n_gpus=24, exposure_clock="wall", **sh)
    return az.InferenceData(posterior=ds)


def scen_units(spec):
    sc = indep2.build_relmc(spec)
    cats = tuple(
        dataclasses.replace(c, unit=u, rate=1e-3)
        for c, u in zip(sc.failures.categories, UNITS, strict=True)
    )
    return dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))


def setup(a):
    """(idata, scenario, sizes, spec_of(k, N, variant), spreads, n_draws, spec, negs, node)."""
    if a.mode in ("phys", "node"):
        ps = r5_scen.SCEN["g_all" if a.mode == "phys" else "n_all"]
        node = a.mode == "node"
        base = r5_scen.draw_spec(ps, 0)
        sizes = (base["n_gpus"], 2 * base["n_gpus"]) if node else (8, 16)

        def spec_of(k, N, var=None):
            s = r5_scen.draw_spec(ps, k if var is None else (k + 1) % ps.n_draws)
            return {**s, "n_gpus": N} if node else s

        return (ps.idata(), r5_scen.build_relmc(ps), sizes, spec_of, ps.spec["spreads"],
                ps.n_draws, base, ["N7: rows of k+1"], node)  # fmt: skip
    obs = a.mode == "obs"
    spec = spec8(obs)
    idata = hand_idata(a.chains, a.draws, exponent=(not obs) or a.exp, wall=obs,
                       jlo=0.05 if not obs else 0.04, jhi=0.3 if not obs else 0.2)  # fmt: skip
    sc = scen_units(spec)
    me = M8.Mine(idata, sc)
    sizes = (8, 24) if not obs else (8, 40)
    fm = me.f()
    m_conv = spec["maint_rate"] / fm.mean() if obs else spec["maint_rate"]

    def spec_of(k, N, var=None):
        if var == "N8: rates at N_ref":
            L = me.fitted(N, at_ref=True)[k]
        elif var == "N9: linear (b=1)":
            L = me.fitted(N, linear=True)[k]
        elif var == "N10: no conversion":
            L = me.fitted(N)[k]
        elif var == "N11: f at N":
            L = me.fitted(N)[k] / me.f(at=N)[k]
        else:
            L = me.fitted(N)[k] / fm[k]
        s = copy.deepcopy(spec)
        for c, r in zip(s["cats"], L, strict=True):
            c["rate"] = float(r)
        s["maint_rate"] = spec["maint_rate"] if var == "N10: no conversion" else m_conv
        return s

    negs = ["N10: no conversion", "N11: f at N"] if obs else []
    if me.b is not None and not (me.b == 1).all():
        negs += ["N8: rates at N_ref", "N9: linear (b=1)"]
    nd = a.chains * a.draws
    print(f"{a.mode}: f mean {fm.mean():.4f} [{fm.min():.4f}, {fm.max():.4f}]; maintenance "
          f"{spec['maint_rate']} -> {m_conv:.5f}; job rates per draw at sizes "
          + "; ".join(f"{N}: {np.round(me.fitted(N).sum(1) / fm, 3).tolist()}"
                      for N in sizes))  # fmt: skip
    return idata, sc, sizes, spec_of, spec["spreads"], nd, spec, negs, False


# ---------------------------------------------------------------- the documented stop rule
def replay(
    ettr,
    budget,
    tse=None,
    trse=None,
    hopeless=None,
    min_trials=2 * BLOCK,
    mis=None,
    both="hopeless",
    final="rule",
):
    """(n, stopped_by, flags) of Precision's documented rule on the full run's ETTR.

    The documents did not say which label a round gets where both the target and the floor
    are met (``both``: the one recorded), nor where the rule is met in the round that reaches
    the budget (``final``: "budget" records ``n_trials``, "rule" the rule's label); the
    readings relmc follows are found by ``run_hope`` and printed. relmc at 15a6cfc followed
    "budget"; since ed158f3 (this round's first finding) the documents say "rule", and relmc
    follows it: the default here.
    """
    n = min(-(-min_trials // BLOCK) * BLOCK, budget)
    if mis == "min not rounded":
        n = min(min_trials, budget)
    while True:
        x = ettr[:n]
        mean = x.mean()
        se = x.std(ddof=0 if mis == "ddof 0" else 1) / math.sqrt(n)
        tgt = (tse is not None and se <= tse) or (trse is not None and se <= trse * mean)
        c = {"mean - 4 SE": mean - 4 * se, "mean alone": mean}.get(mis, mean + 4 * se)
        hop = hopeless is not None and (c <= hopeless if mis == "<=" else c < hopeless)
        if (tgt or hop) and not (n >= budget and final == "budget"):
            lab = both if (tgt and hop) else ("target" if tgt else "hopeless")
            return n, lab, (bool(tgt), bool(hop))
        if n >= budget:
            return n, "n_trials", (bool(tgt), bool(hop))
        n = min(n + min_trials if mis == "rounds add min_trials" else 2 * n, budget)


MISREADINGS = ("mean - 4 SE", "mean alone", "<=", "rounds add min_trials", "min not rounded",
               "ddof 0")  # fmt: skip


def curve(ettr, budget, min_trials):
    """[(n, mean + 4 SE)] after each documented round."""
    out, n = [], min(-(-min_trials // BLOCK) * BLOCK, budget)
    while True:
        x = ettr[:n]
        out.append((n, x.mean() + 4 * x.std(ddof=1) / math.sqrt(n)))
        if n >= budget:
            return out
        n = min(2 * n, budget)


def sim(sc, rates, n, seed, oseed, prec=None):
    return relmc.simulate(
        sc, rates=rates, n_trials=n, seed=seed, overhead_seed=oseed, n_threads=1, precision=prec
    )


def prec_checks(ck, neg, res, N, P, Pf, prec_kw, budget, tag=""):
    """The precision checks of one size: P the precision run, Pf the full run."""
    kept = res.ettr.sel(n_gpus=N).values
    n_run = int(res.n_trials.sel(n_gpus=N))
    sb = str(res.stopped_by.sel(n_gpus=N).values)
    pre = f"{tag}N={N} "
    ck[pre + "n_trials == simulate's prefix"] = P.sizes["trial"] == n_run
    ck[pre + "kept ettr == simulate(precision) (bit)"] = bool(
        np.array_equal(P.ettr.values, kept[:n_run])
    )
    ck[pre + "kept ettr NaN past n_trials"] = bool(np.isnan(kept[n_run:]).all())
    ck[pre + "stopped_by == simulate's"] = sb == str(P.attrs["stopped_by"])
    ck[pre + "prefix == full run's first trials (every variable, bit)"] = all(
        np.array_equal(P[v].values, Pf[v].isel(trial=slice(0, n_run)).values, equal_nan=True)
        for v in P.data_vars
    )
    n_me, sb_me, flags = replay(Pf.ettr.values, budget, **prec_kw)
    ck[pre + "(n_trials, stopped_by) == documented rule replayed"] = (n_run, sb) == (n_me, sb_me)
    x = Pf.ettr.values[:n_run]
    ck[pre + "ettr_mean == prefix mean (rel)"] = abs(
        float(res.ettr_mean.sel(n_gpus=N)) / x.mean() - 1
    )
    ck[pre + "ettr_se == prefix sd(ddof 1)/sqrt(n) (rel)"] = abs(
        float(res.ettr_se.sel(n_gpus=N)) / (x.std(ddof=1) / math.sqrt(n_run)) - 1
    )
    alt = {
        f"{b}/{fi}": replay(Pf.ettr.values, budget, **prec_kw, both=b, final=fi)[:2]
        for b in ("hopeless", "target")
        for fi in ("budget", "rule")
    }
    ck[pre + "n_trials == replayed (any reading)"] = all(v[0] == n_run for v in alt.values()) or (
        n_run == n_me
    )
    print(f"  {pre}recorded n_trials {n_run} stopped_by {sb}; replayed {n_me} {sb_me} "
          f"(target, hopeless met in the last round: {flags}); readings both/final: "
          + ", ".join(f"{k} {v[0]} {v[1]}" for k, v in alt.items()))  # fmt: skip
    for k, v in alt.items():
        neg[(tag + str(N), "reading " + k)] = (v == (n_run, sb), f"{v[0]} {v[1]}")
    for mis in MISREADINGS:
        n2, sb2, _ = replay(Pf.ettr.values, budget, **prec_kw, mis=mis)
        neg[(tag + str(N), "rule: " + mis)] = ((n2, sb2) == (n_run, sb), f"{n2} {sb2}")
    return n_run


def tally(neg):
    """Per misreading / reading: in how many (case, size) it gave the record."""
    labs = sorted({lab for (_, lab) in neg})
    print("  tally (identical to the record / of):")
    for lab in labs:
        xs = [eq for (_, lb), (eq, _) in neg.items() if lb == lab]
        print(f"    {lab:40s} {sum(xs)}/{len(xs)}")


def prec_of(a):
    kw = {}
    if a.rse:
        kw["target_rse"] = a.rse
    if a.tse:
        kw["target_se"] = a.tse
    if a.hopeless:
        kw["hopeless_ettr"] = a.hopeless
    if not kw:
        return None, None
    pk = dict(tse=kw.get("target_se"), trse=kw.get("target_rse"), hopeless=kw.get("hopeless_ettr"),
              min_trials=a.min)  # fmt: skip
    return relmc.Precision(**kw, min_trials=a.min), pk


def run_main(a):
    idata, sc, sizes, spec_of, sp, nd, tspec, negs, node = setup(a)
    prec, pk = prec_of(a)
    print(f"precision: {pk}")
    ck, neg, comp, rel = {}, {}, {}, {}
    root = resolve_seed(a.seed)
    t0 = time.time()
    res = relmc.project(
        idata, n_gpus=list(sizes), scenario=sc, n_trials=a.n_pred, seed=a.seed, n_threads=1,
        keep_trials=True, credible_trials=a.ct, trials_per_draw=a.m, precision=prec,
    )  # fmt: skip
    print(f"project: {time.time() - t0:.1f}s; n_trials {res.n_trials.values.tolist()}, stopped_by "
          f"{res.stopped_by.values.tolist()}; mttf median "
          f"{np.round(res.mttf_hours_quantile.sel(quantile=0.5).values, 4).tolist()}")  # fmt: skip
    F = r5_indep.overhead_factors(sp, nd, a.seed)
    me = None if a.mode in ("phys", "node") else M8.Mine(idata, sc)
    pred = {}
    for N in sizes:
        scN = R6.at_size(sc, N)
        Pf = sim(scN, idata, a.n_pred, size_seed(root, N), root)
        if prec is not None:
            P = sim(scN, idata, a.n_pred, size_seed(root, N), root, prec)
            prec_checks(ck, neg, res, N, P, Pf, pk, a.n_pred)
            for lab, seed in (("seed by position", child_seed(root, sizes.index(N))),
                              ("seed without the size key", root)):  # fmt: skip
                Q = sim(scN, idata, a.n_pred, seed, root, prec)
                kept = res.ettr.sel(n_gpus=N).values
                k = min(Q.sizes["trial"], int(res.n_trials.sel(n_gpus=N)))
                neg[(str(N), "pred " + lab)] = (
                    bool(np.array_equal(Q.ettr.values[:k], kept[:k])),
                    f"max|d| {float(np.abs(Q.ettr.values[:k] - kept[:k]).max()):.3g}",
                )
        else:
            P = Pf
            ck[f"N={N} kept ettr == simulate (bit)"] = bool(
                np.array_equal(P.ettr.values, res.ettr.sel(n_gpus=N).values)
            )
        pred[N] = P
        dr = rate_draws(scN, idata)
        jr = job_rates(scN, dr)
        if me is not None:
            lam = me.lam(N)
            ck[f"N={N} job_rates == my Lambda(N) (max rel)"] = float(np.abs(jr / lam - 1).max())
            ck[f"N={N} mttf_hours_quantile == np.quantile(1/my Lambda) (max rel)"] = float(
                np.abs(np.quantile(1 / lam, res["quantile"].values)
                       / res.mttf_hours_quantile.sel(n_gpus=N).values - 1).max()
            )  # fmt: skip
            ck[f"N={N} exposed_fraction_mean == mean my f (abs)"] = abs(
                float(res.exposed_fraction_mean.sel(n_gpus=N)) - me.f().mean()
            )
        if a.ct:
            ne = nested_draws(dr, a.ct, a.m)
            Cr = sim(scN, ne, a.ct, child_seed(size_seed(root, N), R6.CREDIBLE_KEY), root)
            qe, nze, _ = R6.cred_q(Cr, ne, scN)
            pe = res.ettr_credible.sel(n_gpus=N).values
            ck[f"N={N} ettr_credible, noise == full credible run's (bit)"] = bool(
                np.array_equal(qe, pe) and nze == float(res.ettr_credible_noise.sel(n_gpus=N))
            )
            if me is not None:
                grp = ne.rows[Cr.draw.values]
                qm, _ = credible_quantiles(Cr.ettr.values, grp, covariate=me.lam(N)[grp])
                ck[f"N={N} ettr_credible with my Lambda as covariate (max abs)"] = float(
                    np.abs(qm - pe).max()
                )
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    for (N, lab), (eq, d) in neg.items():
        print(f"  negative N={N} {lab}: identical {eq} ({d})")

    t0 = time.time()
    ind = {}
    same = a.mode == "phys"  # unit job: the rates do not depend on the size
    for N in sizes[:1] if same else sizes:
        for k in range(nd):
            s0 = 1000 * N + 50 + k + 100_000 * a.iseed
            fk = dict(zip(r5_indep.COLS, F[k], strict=True))
            ind[(N, k, "F[k]")] = r5_indep.run_r5(spec_of(k, N), a.n_indep, s0, F=fk, node=node)
            for j, lab in enumerate(negs):
                if lab == "N11: f at N" and N == 24:
                    continue
                ind[(N, k, lab)] = r5_indep.run_r5(
                    spec_of(k, N, lab), a.n_indep, s0 + 100 * (j + 1), F=fk, node=node
                )
    print(f"independent side: {time.time() - t0:.1f}s")
    table = indep_nodes.relmc_table if node else indep2.relmc_table
    for N in sizes:
        pdw = pred[N].draw.values
        t = table(pred[N], tspec)
        for k in range(nd):
            mask = pdw == k
            if mask.sum() < 20:
                continue
            g = {x: y[mask].copy() for x, y in t.items()}
            for (nn, kk, lab), b in ind.items():
                if nn == (sizes[0] if same else N) and kk == k:
                    comp[(N, k, lab)] = r4_run.compare_tables(
                        f"pred N={N} d{k} vs {lab}", dict(g), {x: y.copy() for x, y in b.items()},
                        tspec, quiet=True,
                    )  # fmt: skip
        if len(sizes) == 2 and N == sizes[1] and a.mode == "phys":
            from r6_oseed import z_relmc

            t8 = table(pred[sizes[0]], tspec)
            for k in range(nd):
                m8, m16 = pred[sizes[0]].draw.values == k, pdw == k
                rel[k] = z_relmc(
                    {x: y[m8] for x, y in t8.items()}, {x: y[m16] for x, y in t.items()}
                )
    for key, r in comp.items():
        print(f"  {str(key):36s} max|z| {r['zmax']:7.2f} "
              f"({r['kmax']})  KS wall {r['ks']:.3g} progress {r['ksp']:.3g}  "
              f"broken {len(r['bad'])}")  # fmt: skip
    print("\nSUMMARY (max |z| over draws and sizes; KS p min; outputs per comparison)")
    for lab in sorted({lb for (_, _, lb) in comp}):
        xs = [r for (_, _, lb), r in comp.items() if lb == lab]
        print(f"  pred vs {lab:22s} n={len(xs):2d}  max|z| {max(r['zmax'] for r in xs):7.2f}  "
              f"KS wall {min(r['ks'] for r in xs):.3g} progress {min(r['ksp'] for r in xs):.3g}  "
              f"broken {sum(len(r['bad']) for r in xs)}")  # fmt: skip
    if rel:
        print(f"  relmc pred at {sizes[0]} vs {sizes[1]} per draw: max|z| "
              f"{max(abs(z) for z, _ in rel.values()):.2f}")  # fmt: skip
    tally(neg)
    bits = [v for v in ck.values() if isinstance(v, bool)]
    flo = {k: v for k, v in ck.items() if not isinstance(v, bool)}
    print(f"  bit/equality checks passed {sum(bits)}/{len(bits)}; float checks max "
          f"{max(flo.values()) if flo else 0:.3g}; negatives identical "
          f"{sum(eq for eq, _ in neg.values())}/{len(neg)}")  # fmt: skip
    return dict(checks=ck, neg=neg, comp=comp, rel=rel)


# ---------------------------------------------------------------- the hopeless stop
def run_hope(a):
    spec = copy.deepcopy(spec8(False))
    spec["spreads"], spec["jitters"] = None, None
    idata = hand_idata(a.chains, a.draws, exponent=False, wall=False, jlo=0.15, jhi=0.35)
    sc = scen_units(spec)
    sizes = (8, 32)
    root = resolve_seed(a.seed)
    budget = a.n_pred
    full = {N: sim(R6.at_size(sc, N), idata, budget, size_seed(root, N), root) for N in sizes}
    for N in sizes:
        e = full[N].ettr.values
        print(f"N={N}: full run mean ETTR {e.mean():.4f}; mean + 4 SE by round: "
              + ", ".join(f"{n}: {c:.6f}" for n, c in curve(e, budget, a.min)))  # fmt: skip
    hi = sizes[1]
    cv = curve(full[hi].ettr.values, budget, a.min)
    cs = [c for _, c in cv]
    j = next(j for j in range(2, len(cs)) if cs[j] < min(cs[:j]))  # a round of its own
    lo_other = min(c for _, c in curve(full[sizes[0]].ettr.values, budget, a.min))
    cases = {
        f"midway, fires at round {j} ({cv[j][0]})": dict(hopeless=(cs[j] + min(cs[:j])) / 2),
        "floor = c_j (strict: must not fire there)": dict(hopeless=float(cs[j])),
        "floor = c_j (1 + 1e-12)": dict(hopeless=float(cs[j]) * (1 + 1e-12)),
        "floor = c_j (1 - 1e-12)": dict(hopeless=float(cs[j]) * (1 - 1e-12)),
        "first check, both sizes (floor 0.999)": dict(hopeless=0.999),
        "with a target met in the same round": dict(hopeless=0.999, tse=1.0),
        "min 600, budget 5000 (not whole blocks)": dict(
            hopeless=(cs[j] + min(cs[:j])) / 2, min_trials=600, budget=5000
        ),
        "above the small size's floor too": dict(hopeless=min(0.999, lo_other + 0.01)),
    }
    cases["budget = min_trials = 512 (one round), floor 0.999"] = dict(hopeless=0.999, budget=512)
    if cs[-1] < min(cs[:-1]):
        cases["floor met first in the last round (the budget's)"] = dict(
            hopeless=(cs[-1] + min(cs[:-1])) / 2
        )
    means = [full[hi].ettr.values[:n].mean() for n, _ in cv]
    se = [(c - m) / 4 for c, m in zip(cs, means, strict=True)]
    if se[-1] < min(se[:-1]):
        cases["target met first in the last round (the budget's)"] = dict(
            hopeless=None, tse=(se[-1] + min(se[:-1])) / 2
        )
    ck, neg = {}, {}
    for lab, c in cases.items():
        c = dict(c)
        bud = c.pop("budget", budget)
        mt = c.pop("min_trials", a.min)
        kw = (
            dict(hopeless_ettr=c["hopeless"], min_trials=mt)
            if c["hopeless"]
            else dict(min_trials=mt)
        )
        if "tse" in c:
            kw["target_se"] = c["tse"]
        prec = relmc.Precision(**kw)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = relmc.project(
                idata, n_gpus=list(sizes), scenario=sc, n_trials=bud, seed=a.seed, n_threads=1,
                keep_trials=True, credible_trials=a.ct, trials_per_draw=a.m, precision=prec,
            )  # fmt: skip
        wn = sorted({type(x.message).__name__ for x in w})
        print(f"\n== {lab}: hopeless_ettr {c['hopeless']!r}, target_se {c.get('tse')}, min_trials "
              f"{mt}, budget {bud}; warnings {wn}")  # fmt: skip
        pk = dict(tse=c.get("tse"), trse=None, hopeless=c["hopeless"], min_trials=mt)
        for N in sizes:
            scN = R6.at_size(sc, N)
            Pf = full[N] if bud == budget else sim(scN, idata, bud, size_seed(root, N), root)
            P = sim(scN, idata, bud, size_seed(root, N), root, prec)
            prec_checks(ck, neg, res, N, P, Pf, pk, bud, tag=f"[{lab}] ")
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    print("\nmisreadings of the rule (trial count each predicts; identical = same as recorded):")
    for (N, lab), (eq, d) in neg.items():
        print(f"  {N} {lab}: {d} identical {eq}")
    tally(neg)
    bits = [v for v in ck.values() if isinstance(v, bool)]
    flo = [v for v in ck.values() if not isinstance(v, bool)]
    print(f"\nSUMMARY bit/equality checks passed {sum(bits)}/{len(bits)}; float checks max "
          f"{max(flo):.3g}; misreadings identical to the record {sum(eq for eq, _ in neg.values())}"
          f"/{len(neg)}")  # fmt: skip
    return dict(checks=ck, neg=neg)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("scale", "obs", "phys", "node", "hope"))
    ap.add_argument("n_pred", nargs="?", type=int, default=16384)
    ap.add_argument("n_indep", nargs="?", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--rse", type=float, default=None)
    ap.add_argument("--tse", type=float, default=None)
    ap.add_argument("--hopeless", type=float, default=None)
    ap.add_argument("--min", type=int, default=512)
    ap.add_argument("--ct", type=int, default=2000)
    ap.add_argument("--m", type=int, default=250)
    ap.add_argument("--exp", action="store_true", help="obs: with size exponents too")
    ap.add_argument("--iseed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/r8"))
    a = ap.parse_args(argv)
    tag = (f"{a.mode}{'_exp' if a.exp else ''}_{a.seed}_{a.n_pred}_{a.n_indep}_{a.draws}_"
           f"{a.rse}_{a.tse}_{a.hopeless}_{a.min}_{a.iseed}")  # fmt: skip
    log_to(a.out, f"log_r8_proj_{tag}.txt")
    print(f"r8_proj {a.mode} predictive {a.n_pred} indep {a.n_indep}/draw seed {a.seed} "
          f"credible {a.ct} x {a.m}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    out = run_hope(a) if a.mode == "hope" else run_main(a)
    print(f"total {time.time() - t0:.1f}s")
    with open(a.out / f"res_r8_proj_{tag}.pkl", "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main()
