"""Tenth round: the credible simulation with fleets and maintenance records, a fleet on the
exposed clock, event-log posteriors with diurnal / trend terms under precision, the command
line fitting in the same command, and a sweep's ``[precision]`` table.

Written from the documents only: ``project``'s docstring (the credible simulation:
``credible_trials`` jobs in groups of ``trials_per_draw``, the first ``ceil(CT / M)`` draws,
draw-major; "``precision`` ... applies to the predictive simulation only"), its ``seed_rule``
attr and the README's seed paragraph (credible simulation ``2**32 - 1`` below the size's seed,
overhead multipliers ``2**32 - 2`` of the root), ``nested_draws``' docstring,
``credible_quantiles``', ``relmc.rates``' "Exposure clock", ``load_counts``' ``exposure_clock``,
``fit_fleets`` / ``relmc.models.fleets``, ``fit_events`` and ``relmc.models.events``' "Outputs"
(physics per draw; ``fleet_age_hours`` at the window's end), ``Precision``, ``relmc project
--help`` (``--counts``, ``--observed-gpus``, ``--observed-hours``, the fit options, the adaptive
precision group) and the README's "the command line may fit and simulate with one seed",
``relmc.sweep``'s, ``relmc.sweep.cells``' and ``SweepSpec``'s docstrings (cell ``i`` seeded
``child_seed(root, i)``, ``overhead_seed`` the root, ``[precision]``: ``n_trials`` a budget,
``n_trials`` and ``stopped_code`` recorded per cell). Source bodies, ``tests/`` not read. The
rule replay is ``r8_proj.replay`` (default ``final="rule"``), the documented Lambda(N) and f
``r8_mttf.Mine``, the credible rebuild ``r6_proj.cred_q``, the independent trials
``r5_indep.run_r5``.

Modes:

cred    (1, 2) ``fit_fleets`` of fleets A (categorised) and B (total only) on the wall clock,
        and again with both records on the exposed clock (``load_counts(...,
        exposure_clock="exposed")``); B thinned to 2 x 3 draws with B's record; and a hand
        wall-clock posterior recording ``maintenance_rate`` (scenario's own m given, and
        ``scenario=None``: the default scenario takes the record). Each: one ``project`` with
        ``credible_trials`` CT in groups of M (K = CT / M of 6 draws), the credible run rebuilt
        (``nested_draws``, seed ``child_seed(size_seed(root, N), 2**32 - 1)``, ``overhead_seed``
        root): ``ettr_credible``, ``interruptions_per_day_credible`` and their noise shares bit
        for bit; negatives (no credible key, no ``overhead_seed``, cycled draws, precision run
        on it); then each credible group against ``run_r5`` on the documented rates with
        ``F[k]``; negatives: unconverted (wall) / converted (exposed), ``F[k + 1]``, the
        recorded maintenance instead of the scenario's.
events  (3) ``fit_events(diurnal="category", trend=True)`` of a small synthetic log; project
        with precision (a target, and a hopeless floor placed from the full run): kept trials,
        ``n_trials``, ``stopped_by`` against the replayed rule; then two draws (thinned
        posterior) against ``run_r5`` with the draw's amplitude, peak and trend (negatives:
        the other draw's physics rows, no trend).
cli     (4) ``relmc project --counts CSV --observed-gpus --observed-hours`` (conjugate fit in the
        command) with ``--target-se`` and ``--hopeless-ettr``: ``posterior.nc`` and
        ``projection.nc`` against ``fit_conjugate`` + ``project`` with the same seed (bit);
        ``--dataset`` too.
sweep   (5) a 2 x 2 grid with a ``[precision]`` table run in process: each cell's
        ``n_trials`` / ``stopped_code`` against the rule replayed on ``simulate`` of the
        cell's scenario with the cell's seed; every variable of the cell against
        ``summarize_cell`` of ``simulate(precision)`` (bit).

    taskset -c 1 python benchmarks/outside_physics/r10_proj.py MODE [--seed S] [--ct CT]
        [--m M] [--n-indep N] [--budget B] [--smoke] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

import relmc
from relmc._seed import child_seed, resolve_seed
from relmc.projection import default_scenario, size_seed
from relmc.rates import job_rates, nested_draws, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r8_proj as P8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
KEY = R6.CREDIBLE_KEY


def rows_of(ne):
    return getattr(ne, "draw_index", None) if hasattr(ne, "draw_index") else ne.rows


def bit(x, y):
    return bool(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True))


def comp_print(comp, head):
    for key, r in comp.items():
        print(f"  {str(key):44s} max|z| {r['zmax']:7.2f} ({r['kmax']})  KS wall {r['ks']:.3g} "
              f"progress {r['ksp']:.3g}")  # fmt: skip
    for lab in sorted({k[-1] for k in comp}):
        xs = [r for k, r in comp.items() if k[-1] == lab]
        print(f"  SUMMARY {head} vs {lab:30s} n={len(xs):2d} max|z| "
              f"{max(r['zmax'] for r in xs):7.2f}  KS wall {min(r['ks'] for r in xs):.3g} "
              f"progress {min(r['ksp'] for r in xs):.3g}")  # fmt: skip


# ---------------------------------------------------------------- 1, 2: the credible groups
def credible_block(a, tag, src, sc, sizes, spec, spec_of, variants, ck, neg, comp):
    """project(credible) on ``src``; the credible run rebuilt (bit); groups vs run_r5."""
    root = resolve_seed(a.seed)
    t0 = time.time()
    res = relmc.project(src, n_gpus=list(sizes), scenario=sc, n_trials=512, seed=a.seed,
                        n_threads=1, credible_trials=a.ct, trials_per_draw=a.m)  # fmt: skip
    nd = int(res.attrs["n_draws"])
    K = min(-(-a.ct // a.m), nd)
    print(f"[{tag}] project {time.time() - t0:.1f}s; n_draws {nd}, n_draws_credible "
          f"{res.attrs['n_draws_credible']}; ettr_credible median "
          f"{np.round(res.ettr_credible.sel(quantile=0.5).values, 5).tolist()}; noise "
          f"{np.round(res.ettr_credible_noise.values, 4).tolist()}")  # fmt: skip
    ck[f"[{tag}] n_draws_credible == K"] = int(res.attrs["n_draws_credible"]) == K
    sp = (spec or {}).get("spreads") or {}
    F = r5_indep.overhead_factors(sp, nd, a.seed) if sp else None
    for N in sizes:
        scN = R6.at_size(sc if sc is not None else default_scenario(src), N)
        dr = rate_draws(scN, src)
        ne = nested_draws(dr, a.ct, a.m)
        rows = np.asarray(rows_of(ne))
        ck[f"[{tag}] N={N} nested rows == first K draws x M"] = bit(
            rows, np.repeat(np.arange(K), a.m)[: a.ct]
        )
        cseed = child_seed(size_seed(root, N), KEY)
        Cr = P8.sim(scN, ne, a.ct, cseed, root)
        qe, nze, qi = R6.cred_q(Cr, ne, scN)
        pe = res.ettr_credible.sel(n_gpus=N).values
        pi = res.interruptions_per_day_credible.sel(n_gpus=N).values
        pn = float(res.interruptions_per_day_credible_noise.sel(n_gpus=N))
        ck[f"[{tag}] N={N} ettr_credible (bit)"] = bit(qe, pe)
        ck[f"[{tag}] N={N} ettr_credible_noise (bit)"] = nze == float(
            res.ettr_credible_noise.sel(n_gpus=N)
        )
        ok = [k for k, (q, nz) in qi.items() if bit(q, pi) and nz == pn]
        ck[f"[{tag}] N={N} interruptions_per_day_credible + noise (bit, a spelling)"] = bool(ok)
        negs = [("no credible key", size_seed(root, N), root, ne, None),
                ("cycled draws", cseed, root, dr, None),
                ("precision run (rse 0.05)", cseed, root, ne,
                 relmc.Precision(target_rse=0.05))]  # fmt: skip
        if sp:
            negs.append(("no overhead_seed", cseed, None, ne, None))
        for lab, seed, oseed, rates, prec in negs:
            Q = P8.sim(scN, rates, a.ct, seed, oseed, prec)
            if rates is dr:
                g = Q.draw.values
                q, _ = relmc.projection.credible_quantiles(
                    Q.ettr.values, g, covariate=job_rates(scN, dr)[g]
                )
            else:
                ne2 = ne
                q, _, _ = R6.cred_q(Q, ne2, scN)
            neg[(tag, N, lab)] = (bit(q, pe), float(np.abs(q - pe).max()))
        if spec_of is None:
            continue
        t = indep2.relmc_table(Cr, spec)
        grp = rows[Cr.draw.values]
        for k in range(K):
            mask = grp == k
            for j, var in enumerate(variants):
                kk = (k + 1) % nd if var == "F[k+1]" else k
                fk = dict(zip(r5_indep.COLS, F[kk], strict=True)) if F is not None else None
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep,
                                    1000 * N + 7 * k + 100 * j + 100_000 * a.iseed, F=fk,
                                    node=False)  # fmt: skip
                comp[(tag, N, k, var or "documented")] = r4_run.compare_tables(
                    f"{tag} N={N} g{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
    return res


def fleets(a, exposed):
    """fit_fleets of A and B (R9's data), the record's clock ``wall`` or ``exposed``."""
    import arviz as az

    path = a.out / f"fleet_fit_{'exp' if exposed else 'wall'}_{a.draws}.nc"
    if path.exists():
        return az.from_netcdf(path)
    sh = relmc.cluster.ClusterShape(gpus_per_node=8, nodes_per_rack=2)
    rng = np.random.default_rng(11)
    clk = "exposed" if exposed else "wall"
    ua = {c: M8.my_units(R9.NA, u, M8.LLAMA_SHAPE) for c, u in zip(R9.TRUE, R9.UNITS, strict=True)}
    A = relmc.load_counts(
        {"category": list(R9.TRUE),
         "count": [int(rng.poisson(R9.TRUE[c] * ua[c] * R9.HOURS)) for c in R9.TRUE],
         "exposure": [ua[c] * R9.HOURS for c in R9.TRUE], "unit": list(R9.UNITS)},
        n_gpus=R9.NA, duration_hours=R9.HOURS, shape=sh, name="A", exposure_clock=clk,
    )  # fmt: skip
    A["maintenance_count"] = xr.DataArray(np.int64(round(R9.MAINT_A * R9.HOURS)))
    per_node = sum(R9.TRUE[c] * M8.my_units(R9.NB, u, M8.LLAMA_SHAPE) / (R9.NB // 8)
                   for c, u in zip(R9.TRUE, R9.UNITS, strict=True))  # fmt: skip
    B = relmc.load_counts(
        {"category": ["all"],
         "count": [int(rng.poisson(1.5 * per_node * (R9.NB // 8) * R9.HOURS))],
         "exposure": [(R9.NB // 8) * R9.HOURS], "unit": ["node"]},
        n_gpus=R9.NB, duration_hours=R9.HOURS, shape=sh, name="B", exposure_clock=clk,
    )  # fmt: skip
    B["maintenance_count"] = xr.DataArray(np.int64(round(R9.MAINT_B * R9.HOURS)))
    ff = relmc.fit_fleets({"A": A, "B": B}, n_draws=a.draws, n_tune=300, n_chains=2, cores=1,
                          seed=2)  # fmt: skip
    ff.to_netcdf(path)
    return ff


def run_cred(a):
    ck, neg, comp = {}, {}, {}
    spec = copy.deepcopy(P8.spec8(True))  # spreads on detection, swap, snapshot, restart
    sc = P8.scen_units(spec)
    sizes = (8, 40)
    for exposed in (False, True):
        tag = "B exposed" if exposed else "B wall"
        ff = fleets(a, exposed)
        post = ff.posterior
        ra = post["rate"].attrs
        print(f"[{tag}] rate.attrs: " + ", ".join(f"{k} {ra.get(k)}" for k in
              ("n_gpus", "exposure_clock", "maintenance_rate")))  # fmt: skip
        recB = dict(n_gpus=R9.NB, exposure_clock=ra.get("exposure_clock"),
                    maintenance_rate=R9.MAINT_B,
                    **{k: ra[k] for k in M8.LLAMA_SHAPE if k in ra})  # fmt: skip
        fb = post["fleet_rate"].sel(fleet="B")
        thin = fb.isel(draw=slice(0, 3)).assign_attrs(recB)
        me = M8.Mine(R9.mine_of(thin), sc)
        fm = me.f()
        me_w = M8.Mine(R9.mine_of(thin.assign_attrs({**recB, "exposure_clock": "wall"})), sc)
        for N in sizes:
            scN = R6.at_size(sc, N)
            jr = job_rates(scN, rate_draws(scN, thin))
            ck[f"[{tag}] N={N} job_rates == my Lambda (rel)"] = float(
                np.abs(jr / me.lam(N) - 1).max()
            )
            neg[(tag, N, "job_rates other clock (rel)")] = (
                False, float(np.abs(jr / (me_w.lam(N) if exposed else me.lam(N, f=np.ones(6)))
                                    - 1).max()))  # fmt: skip
        print(f"[{tag}] my f {np.round(fm, 5).tolist()}; job rates at 8 "
              f"{np.round(me.lam(8), 4).tolist()}")  # fmt: skip

        def spec_of(k, N, var, me=me, me_w=me_w, fm=fm, exposed=exposed):
            s = copy.deepcopy(spec)
            if var == "other clock":
                m_ = me_w if exposed else None
                L = m_.fitted(N)[k] / m_.f()[k] if exposed else me.fitted(N)[k]
                mr = spec["maint_rate"] / (m_.f().mean() if exposed else 1.0)
            else:
                L, mr = me.fitted(N)[k] / fm[k], spec["maint_rate"] / fm.mean()
            for c, r in zip(s["cats"], L, strict=True):
                c["rate"] = float(r)
            s["maint_rate"] = mr
            return s

        res = credible_block(a, tag, thin, sc, sizes, spec, spec_of,
                             (None, "other clock", "F[k+1]"), ck, neg, comp)  # fmt: skip
        ck[f"[{tag}] exposed_fraction_mean == my f mean (abs)"] = float(
            np.abs(res.exposed_fraction_mean.values - fm.mean()).max()
        )
    # a posterior carrying a maintenance record
    tag = "maint"
    idata = P8.hand_idata(2, 3, exponent=False, wall=True, jlo=0.04, jhi=0.2)
    for d in (idata.posterior.attrs, idata.posterior["rate"].attrs):
        d["maintenance_rate"] = R9.M_POST
    sp2 = copy.deepcopy(spec)
    sp2["maint_rate"], sp2["maint_h"] = R9.M_SCEN, 0.5
    sc2 = P8.scen_units(sp2)
    me = M8.Mine(idata, sc2)
    fail_p = dataclasses.replace(sc2.failures, maintenance_rate=R9.M_POST)
    me_p = M8.Mine(idata, dataclasses.replace(sc2, failures=fail_p))

    def spec_m(k, N, var):
        s = copy.deepcopy(sp2)
        m_ = me_p if var == "recorded m" else me
        L = m_.fitted(N)[k] / m_.f()[k]
        for c, r in zip(s["cats"], L, strict=True):
            c["rate"] = float(r)
        s["maint_rate"] = (R9.M_POST if var == "recorded m" else R9.M_SCEN) / m_.f().mean()
        return s

    credible_block(a, tag, idata, sc2, sizes, sp2, spec_m, (None, "recorded m", "F[k+1]"), ck,
                   neg, comp)  # fmt: skip
    # scenario=None: the default scenario takes the record (bit rebuild only)
    sc0 = dataclasses.replace(default_scenario(idata), job=dataclasses.replace(
        default_scenario(idata).job, compute_hours=8.0))  # fmt: skip
    print(f"default_scenario(idata) maintenance_rate {sc0.failures.maintenance_rate}")
    ck["[maint default] default scenario's m == record"] = (
        sc0.failures.maintenance_rate == R9.M_POST
    )
    credible_block(a, "maint default", idata, sc0, sizes, None, None, (), ck, neg, comp)
    return ck, neg, comp


# ---------------------------------------------------------------- 3: events with diurnal / trend
def event_fit(a):
    import arviz as az

    path = a.out / f"ev_dt_fit_{a.draws}_{a.nodes}.nc"
    if path.exists():
        return az.from_netcdf(path)
    ev = relmc.events.synthetic_events(
        {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=256, duration_hours=1500.0,
        units={"gpu": "gpu", "net": "node"}, diurnal_amplitude={"gpu": 0.7, "net": 0.4},
        diurnal_peak_hour={"gpu": 14.0, "net": 3.0}, trend_shape=1.6,
        fleet_age_at_start_hours=2000.0, seed=1,
        **(dict(frailty_variance=0.5) if a.nodes == "frailty" else {}),
    )  # fmt: skip
    print(f"log: counts {ev['count'].values.tolist()}")
    t0 = time.time()
    fe = relmc.fit_events(ev, diurnal="category" if a.nodes is None else "pooled", trend=True,
                          nodes=a.nodes, n_draws=a.draws, n_tune=300, n_chains=2, cores=1,
                          seed=1)  # fmt: skip
    print(f"fit_events {time.time() - t0:.1f}s")
    fe.to_netcdf(path)
    return fe


def run_events(a):
    ck, neg, comp = {}, {}, {}
    fe = event_fit(a)
    post = fe.posterior
    at = post["rate"].attrs
    A0 = float(post.attrs["fleet_age_hours"])
    print("record: " + ", ".join(f"{k} {at.get(k)}" for k in ("n_gpus", "exposure_clock")) +
          f"; fleet_age_hours {A0}; model_terms {post.attrs.get('model_terms')}; rate median "
          f"{np.round(post['rate'].median(('chain', 'draw')).values, 6).tolist()}; amp "
          f"{np.round(post['diurnal_amplitude'].median(('chain', 'draw')).values, 3).tolist()}; "
          f"peak {np.round(post['diurnal_peak_hour'].median(('chain', 'draw')).values, 2).tolist()}"
          f"; trend {float(post['trend_shape'].median()):.3f}")  # fmt: skip
    from indep2 import cat, default_spec

    spec = default_spec(W=36.0, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, beta=1.0, A0=A0,
                        cats=[cat("gpu", 0.1, detect=0.1, swap=True), cat("net", 0.05)],
                        spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    sc = indep2.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("gpu", "node"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(
        sc.failures, categories=cats, fleet_age_hours=A0))  # fmt: skip
    sizes = (64, 256)
    root = resolve_seed(a.seed)
    full = {}
    for N in sizes:
        full[N] = P8.sim(R6.at_size(sc, N), fe, a.budget, size_seed(root, N), root)
        print(
            f"N={N}: full run mean ETTR {full[N].ettr.values.mean():.5f}; mean + 4 SE per "
            f"round {[(n, round(c, 5)) for n, c in P8.curve(full[N].ettr.values, a.budget, 512)]}"
        )
    cv = P8.curve(full[sizes[1]].ettr.values, a.budget, 512)
    floor = 0.5 * (cv[1][1] + cv[2][1]) if len(cv) > 2 else cv[-1][1] + 1e-4
    cases = {"rse 0.003": dict(target_rse=0.003),
             "hopeless midway (round 3) + tse 1e-4": dict(hopeless_ettr=floor, target_se=1e-4),
             "tse 0.002, min 700": dict(target_se=0.002, min_trials=700)}  # fmt: skip
    for lab, kw in cases.items():
        prec = relmc.Precision(**kw)
        pk = dict(
            tse=kw.get("target_se"),
            trse=kw.get("target_rse"),
            hopeless=kw.get("hopeless_ettr"),
            min_trials=kw.get("min_trials", 512),
        )
        t0 = time.time()
        res = relmc.project(
            fe,
            n_gpus=list(sizes),
            scenario=sc,
            n_trials=a.budget,
            seed=a.seed,
            n_threads=1,
            keep_trials=True,
            credible_trials=0,
            precision=prec,
        )
        print(f"[{lab}] project {time.time() - t0:.1f}s: n_trials {res.n_trials.values.tolist()}"
              f", stopped_by {res.stopped_by.values.tolist()}")  # fmt: skip
        for N in sizes:
            P = P8.sim(R6.at_size(sc, N), fe, a.budget, size_seed(root, N), root, prec)
            P8.prec_checks(ck, neg, res, N, P, full[N], pk, a.budget, tag=f"[{lab}] ")
    if a.nodes is not None:  # the independent simulator has no frailty: rule checks only
        import arviz as az

        print(f"frailty_variance median {float(post['frailty_variance'].median()):.4f}; "
              f"PHYSICS_VARIABLES {list(relmc.rates.PHYSICS_VARIABLES)}")  # fmt: skip
        r1 = relmc.project(fe, n_gpus=list(sizes), scenario=sc, n_trials=2048, seed=a.seed,
                           n_threads=1, keep_trials=True, credible_trials=0)  # fmt: skip
        r2 = relmc.project(az.InferenceData(posterior=post.drop_vars("frailty_variance")),
                           n_gpus=list(sizes), scenario=sc, n_trials=2048, seed=a.seed,
                           n_threads=1, keep_trials=True, credible_trials=0)  # fmt: skip
        ck["frailty: project == project without frailty_variance (kept ettr, bit)"] = bit(
            r1.ettr.values, r2.ettr.values
        )
        return ck, neg, comp
    # per-draw physics rows: a thinned posterior of 2 draws (chain 0 and 1, draw 0)
    thin = fe.posterior.isel(draw=slice(0, 1))
    import arviz as az

    tid = az.InferenceData(posterior=thin)
    me = M8.Mine(tid, sc)
    fl = {v: M8.flat(thin[v]) for v in ("diurnal_amplitude", "diurnal_peak_hour")}
    beta = thin["trend_shape"].transpose("draw", "chain").values.ravel()
    wm = M8.flat(thin["rate_window_mean"])
    print(f"thin: job rates at 64 {np.round(me.lam(64), 4).tolist()}, f "
          f"{np.round(me.f(), 5).tolist()}, amp {np.round(fl['diurnal_amplitude'], 3).tolist()}"
          f", peak {np.round(fl['diurnal_peak_hour'], 2).tolist()}, trend "
          f"{np.round(beta, 3).tolist()}")  # fmt: skip
    nd = 2
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kp = 1 - k if var == "N7 other draw's physics rows" else k
        L = me.fitted(N)[k] / me.f()[k]
        if var == "rate_window_mean for rate":
            L = L * wm[k] / me.rate[k]
        s["beta"] = 1.0 if var == "no trend" else float(beta[kp])
        for j, c in enumerate(s["cats"]):
            c.update(rate=float(L[j]), amp=float(fl["diurnal_amplitude"][kp, j]),
                     peak=float(fl["diurnal_peak_hour"][kp, j]))  # fmt: skip
        return s

    res = relmc.project(tid, n_gpus=list(sizes), scenario=sc, n_trials=a.n_pred, seed=a.seed,
                        n_threads=1, keep_trials=True, credible_trials=0)  # fmt: skip
    for N in sizes:
        P = P8.sim(R6.at_size(sc, N), tid, a.n_pred, size_seed(root, N), root)
        ck[f"thin N={N} kept ettr == simulate (bit)"] = bit(
            P.ettr.values, res.ettr.sel(n_gpus=N).values
        )
        ck[f"thin N={N} job_rates == my Lambda (rel)"] = float(np.abs(
            job_rates(R6.at_size(sc, N), rate_draws(R6.at_size(sc, N), tid)) / me.lam(N) - 1
        ).max())  # fmt: skip
        t = indep2.relmc_table(P, spec)
        for k in range(nd):
            mask = P.draw.values == k
            for j, var in enumerate(
                (None, "N7 other draw's physics rows", "no trend", "rate_window_mean for rate")
            ):
                fk = dict(zip(r5_indep.COLS, F[k], strict=True))
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep,
                                    3000 * N + 7 * k + 100 * j + 100_000 * a.iseed, F=fk,
                                    node=False)  # fmt: skip
                comp[(N, k, var or "documented")] = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec, quiet=True
                )
    return ck, neg, comp


# ---------------------------------------------------------------- 4: the command line
def cli(args, out):
    """The ninth round's ``cli``, the seed given in ``args``, without plots."""
    return C9.cli(args, out, seeded=False, extra=["--no-plot"])


def run_cli(a):
    import arviz as az

    from relmc.models import fit_conjugate

    ck, neg = {}, {}
    csv = a.out / "counts.csv"
    csv.write_text("category,count,exposure,unit\ngpu,40,12000,gpu\nnet,20,1500,node\n"
                   "rk,6,750,rack\n")  # fmt: skip
    budget, sizes, S = a.budget, (8, 40), a.seed
    base = ["--n-gpus", "8,40", "--compute-hours", "24", "--restart-hours", "1.5",
            "--n-draws", "200", "--n-chains", "2", "--n-trials", str(budget), "--seed", str(S),
            "--keep-trials"]  # fmt: skip
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    post = fit_conjugate(data, n_draws=200, n_chains=2, seed=S)
    sc = R9.with_compute(default_scenario(post), 24.0)
    sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
    root = resolve_seed(S)
    full = {N: P8.sim(R6.at_size(sc, N), post, budget, size_seed(root, N), root) for N in sizes}
    cv = P8.curve(full[40].ettr.values, budget, 512)
    print(f"full run mean ETTR {[round(float(full[N].ettr.mean()), 5) for N in sizes]}; 40 GPUs "
          f"mean + 4 SE per round {[(n, round(c, 5)) for n, c in cv]}")  # fmt: skip
    j = min(1, len(cv) - 2)
    floor = round(0.5 * (cv[j][1] + cv[j + 1][1]), 6)
    cases = {
        "tse + hopeless": ["--target-se", "0.004", "--hopeless-ettr", str(floor)],
        "tse + hopeless, min 300": [
            "--target-se",
            "0.002",
            "--hopeless-ettr",
            str(floor),
            "--min-trials",
            "300",
        ],
    }
    for lab, flags in cases.items():
        out = a.out / f"cli_{lab.replace(' ', '_').replace(',', '').replace('+', 'p')}"
        cli(["project", "--counts", str(csv), "--observed-gpus", "24", "--observed-hours",
             "500", *base, *flags], out)  # fmt: skip
        fp = az.from_netcdf(out / "posterior.nc")
        ck[f"[{lab}] posterior.nc rate == fit_conjugate(seed) (bit)"] = bit(
            fp.posterior["rate"].values, post.posterior["rate"].values
        )
        pa = {k: str(v) for k, v in fp.posterior["rate"].attrs.items()}
        pb = {k: str(v) for k, v in post.posterior["rate"].attrs.items()}
        ck[f"[{lab}] posterior.nc rate.attrs == API's"] = pa == pb
        if pa != pb:
            print("   attrs differ:", {k: (pa.get(k), pb.get(k)) for k in set(pa) | set(pb)
                                       if pa.get(k) != pb.get(k)})  # fmt: skip
        file = xr.open_dataset(out / "projection.nc").load()
        kw = C9.prec_kw(flags)
        prec = relmc.Precision(**kw)
        api = relmc.project(post, n_gpus=list(sizes), scenario=sc, n_trials=budget, seed=S,
                            n_threads=1, keep_trials=True, precision=prec)  # fmt: skip
        bad, miss = C9.diff_vars(file, api)
        ck[f"[{lab}] every data variable == API (bit)"] = not bad and not miss
        print(f"  [{lab}] {len(file.data_vars)} variables; differing {bad}; missing {miss}; "
              f"n_trials {file.n_trials.values.tolist()} stopped_by "
              f"{file.stopped_by.values.tolist()}")  # fmt: skip
        ck[f"[{lab}] scenario attr == mine"] = json.loads(file.attrs["scenario"]) == json.loads(
            api.attrs["scenario"]
        )
        pk = dict(
            tse=kw.get("target_se"),
            trse=kw.get("target_rse"),
            hopeless=kw.get("hopeless_ettr"),
            min_trials=kw.get("min_trials", 512),
        )
        for N in sizes:
            n, sb, _ = P8.replay(full[N].ettr.values, budget, **pk)
            rec = (int(file.n_trials.sel(n_gpus=N)), str(file.stopped_by.sel(n_gpus=N).values))
            ck[f"[{lab}] N={N} (n_trials, stopped_by) == replayed rule"] = rec == (n, sb)
            for mis in P8.MISREADINGS:
                neg[(lab, N, mis)] = (P8.replay(full[N].ettr.values, budget, **pk, mis=mis)[:2]
                                      == rec, "")  # fmt: skip
        post2 = fit_conjugate(data, n_draws=200, n_chains=2, seed=S + 1)
        for nl, (pp, seed) in {
            "fit seed + 1": (post2, S),
            "project seed + 1": (post, S + 1),
            "fit with 4 chains (API default)": (None, S),
        }.items():
            if pp is None:
                pp = fit_conjugate(data, n_draws=200, seed=S)
            o = relmc.project(pp, n_gpus=list(sizes), scenario=sc, n_trials=budget, seed=seed,
                              n_threads=1, keep_trials=True, precision=prec)  # fmt: skip
            b2, m2 = C9.diff_vars(file, o)
            neg[(lab, None, nl)] = (not b2 and not m2, f"{len(b2)} variables differ")
    # --dataset: the bundled llama3-405b, fitted in the command
    out = a.out / "cli_dataset"
    flags = ["--target-rse", "0.001", "--hopeless-ettr", "0.84"]
    cli(["project", "--dataset", "llama3-405b", "--n-gpus", "2048,16384", "--compute-hours", "24",
         "--n-draws", "100", "--n-chains", "2", "--n-trials", str(budget), "--seed", str(S),
         "--keep-trials", *flags], out)  # fmt: skip
    data = relmc.load_dataset("llama3-405b")
    post = fit_conjugate(data, n_draws=100, n_chains=2, seed=S)
    sc = R9.with_compute(default_scenario(post), 24.0)
    file = xr.open_dataset(out / "projection.nc").load()
    fp = az.from_netcdf(out / "posterior.nc")
    ck["[dataset] posterior.nc rate == fit_conjugate(seed) (bit)"] = bit(
        fp.posterior["rate"].values, post.posterior["rate"].values
    )
    prec = relmc.Precision(target_rse=0.001, hopeless_ettr=0.84)
    api = relmc.project(post, n_gpus=[2048, 16384], scenario=sc, n_trials=budget, seed=S,
                        n_threads=1, keep_trials=True, precision=prec)  # fmt: skip
    bad, miss = C9.diff_vars(file, api)
    ck["[dataset] every data variable == API (bit)"] = not bad and not miss
    print(
        f"  [dataset] differing {bad}; missing {miss}; n_trials {file.n_trials.values.tolist()} "
        f"stopped_by {file.stopped_by.values.tolist()}; scenario attr equal "
        f"{json.loads(file.attrs['scenario']) == json.loads(api.attrs['scenario'])}"
    )
    for N in (2048, 16384):
        Pf = P8.sim(R6.at_size(sc, N), post, budget, size_seed(root, N), root)
        n, sb, _ = P8.replay(Pf.ettr.values, budget, trse=0.001, hopeless=0.84)
        rec = (int(file.n_trials.sel(n_gpus=N)), str(file.stopped_by.sel(n_gpus=N).values))
        ck[f"[dataset] N={N} (n_trials, stopped_by) == replayed rule"] = rec == (n, sb)
    o = relmc.project(post, n_gpus=[2048, 16384], scenario=sc, n_trials=budget, seed=S,
                      n_threads=1, keep_trials=True)  # fmt: skip
    b2, _ = C9.diff_vars(file, o)
    neg[("dataset", None, "API without precision")] = (not b2, f"{len(b2)} variables differ")
    return ck, neg, {}


# ---------------------------------------------------------------- 5: a sweep's [precision]
def sweep_one(a, name, budget, pr, ck, neg, codes):
    import shutil

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    d = dict(seed=a.seed, n_trials=budget, posterior="point", quantiles=[0.05, 0.5, 0.95],
             base={"job": {"compute_hours": 24.0}, "policy": {"restart_spread": 2.0}},
             axes={"cluster.n_gpus": [4096, 32768], "policy.checkpoint_interval": [0.25, 1.0]},
             precision=pr)  # fmt: skip
    spec = SweepSpec.from_dict(d)
    store = a.out / f"sweep_{name}.zarr"
    shutil.rmtree(store, ignore_errors=True)
    t0 = time.time()
    relmc.sweep.run_sweep(spec, store, n_threads=1)
    cube = relmc.sweep.open_sweep(store, load=True)
    print(
        f"[{name}] budget {budget} precision {pr}: sweep {time.time() - t0:.1f}s; attrs: "
        + "; ".join(f"{k}={v}" for k, v in cube.attrs.items() if "stop" in k.lower())
    )
    print(f"stopped_code attrs {dict(cube['stopped_code'].attrs)}; n_trials "
          f"{cube['n_trials'].values.tolist()}; stopped_code "
          f"{cube['stopped_code'].values.tolist()}")  # fmt: skip
    root = resolve_seed(a.seed)
    prec = relmc.Precision(**pr)
    pk = dict(
        tse=None, trse=pr["target_rse"], hopeless=pr["hopeless_ettr"], min_trials=pr["min_trials"]
    )
    shp = spec.shape
    for i in range(spec.n_cells):
        idx = np.unravel_index(i, shp)
        sel = {dim: j for dim, j in zip(spec.dims, idx, strict=True)}
        cell = cube.isel(sel)
        sc = spec.scenario(i)
        Pf = relmc.simulate(sc, n_trials=budget, seed=SC.cell_seed(a.seed, i), overhead_seed=root,
                            n_threads=1)  # fmt: skip
        n, sb, fl = P8.replay(Pf.ettr.values, budget, **pk)
        rn, rc = int(cell["n_trials"]), int(cell["stopped_code"])
        codes.setdefault(sb, set()).add(rc)
        cv = P8.curve(Pf.ettr.values, budget, pr["min_trials"])
        print(f"[{name}] cell {i} {sel}: recorded n_trials {rn} stopped_code {rc}; replayed {n} "
              f"{sb} "
              f"(met {fl}); full mean {Pf.ettr.values.mean():.5f}; rounds "
              f"{[(m, round(c, 5)) for m, c in cv]}")  # fmt: skip
        ck[f"[{name}] cell {i} n_trials == replayed rule"] = rn == n
        P = relmc.simulate(sc, n_trials=budget, seed=SC.cell_seed(a.seed, i), overhead_seed=root,
                           n_threads=1, precision=prec)  # fmt: skip
        ck[f"[{name}] cell {i} simulate(precision) stopped_by == replayed"] = (
            str(P.attrs["stopped_by"]) == sb and P.sizes["trial"] == n
        )
        S = SC.summarize_cell(P, spec.quantiles)
        bad = [
            v for v in S.data_vars if v in cell.data_vars and not bit(S[v].values, cell[v].values)
        ]
        miss = [v for v in S.data_vars if v not in cell.data_vars]
        ck[
            f"[{name}] cell {i} every variable == summarize_cell(simulate(precision)) (bit)"
        ] = not bad
        print(f"   differing {bad}; not in cube {miss}")
        for mis in P8.MISREADINGS:
            neg[(name, i, mis)] = (P8.replay(Pf.ettr.values, budget, **pk, mis=mis)[0] == rn, "")
        negs = {"seed by F-order index": SC.cell_seed(a.seed, int(np.ravel_multi_index(
                    idx, shp, order="F"))), "seed without the cell key": root}  # fmt: skip
        for lab, sd in negs.items():
            Q = relmc.simulate(sc, n_trials=budget, seed=sd, overhead_seed=root, n_threads=1,
                               precision=prec)  # fmt: skip
            em = SC.summarize_cell(Q, spec.quantiles)["ettr_mean"].values
            neg[(name, i, lab)] = (
                bit(em, cell["ettr_mean"].values),
                f"{Q.sizes['trial']} trials, ettr_mean diff "
                f"{float(em - cell['ettr_mean'].values):.3g}",
            )
        Q = relmc.simulate(sc, n_trials=budget, seed=SC.cell_seed(a.seed, i), n_threads=1,
                           precision=prec)  # fmt: skip
        em = SC.summarize_cell(Q, spec.quantiles)["ettr_mean"].values
        neg[(name, i, "no overhead_seed")] = (
            bit(em, cell["ettr_mean"].values),
            f"diff {float(em - cell['ettr_mean'].values):.3g}",
        )


def run_sweep(a):
    ck, neg = {}, {}
    codes = {}
    tables = (("A", a.budget, dict(target_rse=0.0015, hopeless_ettr=0.86, min_trials=300)),
              ("B", a.budget * 3 // 8 + 7, dict(target_rse=0.0006, hopeless_ettr=0.7,
                                                min_trials=700)))  # fmt: skip
    for name, budget, pr in tables:
        sweep_one(a, name, budget, pr, ck, neg, codes)
    print(f"label -> stopped_code seen: {codes}")
    ck["one code per label"] = all(len(v) == 1 for v in codes.values()) and len(
        {next(iter(v)) for v in codes.values()}) == len(codes)  # fmt: skip
    return ck, neg, {}


def mode_main(rnd, doc, runners, argv, *, n_sim=6000, smoke_sim=400, n_sim_help="", tag_sim=False):
    """The command line of a round whose modes share the fifteenth round's flags.

    ``rnd`` the round's name (``"r15"``), ``runners`` mode -> ``fn(args) -> (ck, neg,
    comp)``; ``--n-sim``'s default and smoke value, and whether the log's tag names it.
    Parses ``argv``, logs to ``--out/log_{rnd}_{tag}.txt``, runs the mode and reports.
    """
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("mode", choices=tuple(runners))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--n-indep", type=int, default=2000)
    ap.add_argument("--budget", type=int, default=8192, help="trial budget")
    ap.add_argument("--n-sim", type=int, default=n_sim, help=n_sim_help)
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path(f"/tmp/{rnd}"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.n_indep, a.budget, a.n_sim = 100, 2048, smoke_sim
    a.out.mkdir(parents=True, exist_ok=True)
    sim = f"_{a.n_sim}" if tag_sim else ""
    tag = f"{a.mode}_{a.seed}_{a.n_indep}_{a.budget}{sim}_{a.iseed}"
    log_to(a.out, f"log_{rnd}_{tag}.txt")
    sim = f" n_sim {a.n_sim}" if tag_sim else ""
    print(f"{rnd}_proj {a.mode} seed {a.seed} indep {a.n_indep} budget {a.budget}{sim} iseed "
          f"{a.iseed}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    ck, neg, comp = runners[a.mode](a)
    report(ck, neg, comp, a.mode, t0, a.out / f"res_{rnd}_{tag}.pkl")


def report(ck, neg, comp, mode, t0, pkl):
    """Print a mode's checks, negatives, comparisons and summary line; pickle them to ``pkl``
    (the eleventh and twelfth rounds print theirs with it too)."""
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    for k, (eq, d) in neg.items():
        print(f"  negative {k}: identical {eq} {d}")
    if comp:
        comp_print(comp, mode)
    bits = [v for v in ck.values() if isinstance(v, bool)]
    flo = [v for v in ck.values() if not isinstance(v, bool)]
    print(
        f"SUMMARY {mode}: bit/equality checks {sum(bits)}/{len(bits)}; float checks max "
        f"{max(flo) if flo else 0:.3g}; negatives identical "
        f"{sum(bool(eq) for eq, _ in neg.values())}/{len(neg)}; total {time.time() - t0:.1f}s"
    )
    with open(pkl, "wb") as f:
        pickle.dump(dict(checks=ck, neg=neg, comp=comp), f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("cred", "events", "cli", "sweep"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--ct", type=int, default=4000, help="credible trials")
    ap.add_argument("--m", type=int, default=1000, help="trials per draw")
    ap.add_argument("--n-indep", type=int, default=1500)
    ap.add_argument("--n-pred", type=int, default=4000, help="events: thinned run's trials")
    ap.add_argument("--budget", type=int, default=8192)
    ap.add_argument("--draws", type=int, default=100, help="fits: draws per chain")
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--nodes", choices=("frailty",), help="events: fit with this node model")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r10"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.ct, a.m, a.n_indep, a.n_pred, a.budget, a.draws = 800, 200, 100, 400, 1024, 50
    a.out.mkdir(parents=True, exist_ok=True)
    tag = f"{a.mode}_{a.seed}_{a.ct}_{a.m}_{a.n_indep}_{a.budget}_{a.iseed}_{a.nodes}"
    log_to(a.out, f"log_r10_{tag}.txt")
    print(f"r10_proj {a.mode} seed {a.seed} ct {a.ct} m {a.m} indep {a.n_indep} budget "
          f"{a.budget} iseed {a.iseed}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    ck, neg, comp = dict(cred=run_cred, events=run_events, cli=run_cli, sweep=run_sweep)[a.mode](a)
    report(ck, neg, comp, a.mode, t0, a.out / f"res_r10_{tag}.pkl")


if __name__ == "__main__":
    main()
