"""Ninth round: the hopeless stop with physics rows, the node model and an event-log posterior
with lemon rows; ``fit_fleets`` posteriors in ``relmc.project``; a recorded maintenance rate
beside a scenario's own.

Written from the documents only: ``relmc.Precision``'s docstring (rounds of whole 256-trial
blocks: ``min_trials`` rounded up, then doubling to ``n_trials``; after each round, the last
too, stop when ``mean + 4 SE`` is below ``hopeless_ettr`` (checked first) or SE <= the target;
``"n_trials"`` only where the budget ran out before the rule was met), ``project``'s and
``simulate``'s docstrings (``posterior``: rate draws with a ``category`` dim, e.g.
``fleet_rate.sel(fleet=NAME)``, whose ``attrs`` carry ``n_gpus``, ``exposure_clock``,
``maintenance_rate``, "without which they are per exposed hour and add no planned
maintenance"; ``scenario``: default ``default_scenario()`` of the posterior), ``fit_fleets``'
docstring and ``relmc.models.fleets``' module docstring (``fleet_rate`` = kappa_c x the fleet's
multiplier; ``fleet_total``), ``relmc.rates``' (draw order, "Exposure clock"),
``exposed_fraction``, ``maintenance_rate`` ("``failures.maintenance_rate`` ... divided by the
mean over draws of exposed_fraction"), ``recorded_maintenance_rate``,
``FailureModel.from_posterior`` and ``relmc.projection.default_scenario`` ("Planned maintenance
defaults to the rate the fitted data recorded"), ``synthetic_events`` / ``fit_events``. The
independent trials are the fifth round's ``r5_indep.run_r5``; the rule replay and the
precision checks are ``r8_proj.replay`` / ``r8_proj.prec_checks`` (default ``final="rule"``);
the documented Lambda(N) and f are ``r8_mttf.Mine``.

Modes:

hope K   K in phys (``r5_scen`` g_all), node (n_all), events (``fit_events(nodes="mixture")``
         on a ``synthetic_events`` log with lemons, 2 x D draws): the full run at two sizes,
         its ``mean + 4 SE`` per round, and floors / targets placed to fire at a chosen round,
         exactly at ``c_j`` (strict), at the first check, together with a target, in the round
         that reaches the budget; each case one ``project(keep_trials=True, precision)``:
         ``r8_proj.prec_checks`` and the misreadings' tally.
fleets   ``fit_fleets`` of a categorised fleet A (gpu / net / rk, 24 GPUs, wall clock) and a
         total-only fleet B (one ``node`` category, 48 GPUs): the posterior's identities;
         ``project`` on ``fleet_rate.sel(fleet=B)`` with B's record, on A's with ``rate.attrs``,
         on ``rate``, and on B's without attrs: ``job_rates``, ``mttf_hours_quantile``,
         ``exposed_fraction_mean`` against mine; then on a thinned B (2 x 3 draws) the
         predictive trials of each draw against ``run_r5`` on the documented rates.
maint    a wall-clock posterior whose ``rate.attrs`` record ``maintenance_rate`` 0.5 / h beside
         a scenario of 0.05 / h: ``recorded_maintenance_rate``, ``rates.maintenance_rate``,
         ``exposed_fraction``, the scenario ``project`` / ``simulate`` record, and the trials
         against ``run_r5`` under both readings; ``scenario=None`` too.

    taskset -c 1 python benchmarks/outside_physics/r9_proj.py MODE [K] [--budget B]
        [--n-indep N] [--seed S] [--draws D] [--smoke] [--out DIR]
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
from relmc._seed import resolve_seed
from relmc.projection import default_scenario, size_seed
from relmc.rates import (
    exposed_fraction,
    job_rates,
    maintenance_rate,
    rate_draws,
    recorded_maintenance_rate,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r5_scen  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r8_proj as P8  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
UNITS = ("gpu", "node", "rack")


def with_compute(sc, hours):
    return dataclasses.replace(sc, job=dataclasses.replace(sc.job, compute_hours=hours))


def event_fit(a):
    """A synthetic log with lemons, fitted with ``nodes="mixture"`` (cached in --out)."""
    import arviz as az

    path = a.out / f"ev_fit_{a.draws}.nc"
    if path.exists():
        return az.from_netcdf(path)
    ev = relmc.events.synthetic_events(
        {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=256, duration_hours=1500.0,
        units={"gpu": "gpu", "net": "node"}, bad_node_fraction=0.1, bad_node_multiplier=8.0,
        seed=1,
    )  # fmt: skip
    print(f"log: counts {ev['count'].values.tolist()}, bad nodes {ev.attrs['n_bad_nodes']} of "
          f"{ev.attrs['n_nodes']}")  # fmt: skip
    fe = relmc.fit_events(ev, nodes="mixture", n_draws=a.draws, n_tune=300, n_chains=2, cores=1,
                          seed=1)  # fmt: skip
    fe.to_netcdf(path)
    return fe


# ---------------------------------------------------------------- 1. the hopeless stop
def hope_setup(a):
    if a.kind in ("phys", "node"):
        ps = r5_scen.SCEN["g_all" if a.kind == "phys" else "n_all"]
        base = r5_scen.draw_spec(ps, 0)
        sizes = (base["n_gpus"], 2 * base["n_gpus"]) if a.kind == "node" else (8, 16)
        return ps.idata(), r5_scen.build_relmc(ps), sizes
    fe = event_fit(a)
    sc = with_compute(default_scenario(fe), 200.0)
    return fe, sc, (64, 256)


def run_hope(a):
    idata, sc, sizes = hope_setup(a)
    root = resolve_seed(a.seed)
    budget, mt = a.budget, 512
    t0 = time.time()
    full = {N: P8.sim(R6.at_size(sc, N), idata, budget, size_seed(root, N), root) for N in sizes}
    print(f"full runs: {time.time() - t0:.1f}s")
    cvs = {}
    for N in sizes:
        e = full[N].ettr.values
        cvs[N] = P8.curve(e, budget, mt)
        print(f"N={N}: mean ETTR {e.mean():.4f}; mean + 4 SE by round: "
              + ", ".join(f"{n}: {c:.6f}" for n, c in cvs[N]))  # fmt: skip
    # the size whose curve has a round that is a new minimum after the first
    hi = next(
        (
            N
            for N in sizes[::-1]
            if any(c[1] < min(x[1] for x in cvs[N][:j]) for j, c in enumerate(cvs[N]) if j)
        ),
        sizes[-1],
    )
    cv = cvs[hi]
    cs = [c for _, c in cv]
    js = [j for j in range(1, len(cs)) if cs[j] < min(cs[:j])]
    j = js[0] if js else 1
    lo = min(min(c for _, c in cvs[N]) for N in sizes)
    cases = {
        f"midway, fires at round {j} ({cv[j][0]}) of N={hi}": dict(
            hopeless=(cs[j] + min(cs[:j])) / 2
        ),
        "floor = c_j (strict)": dict(hopeless=float(cs[j])),
        "floor = c_j (1 + 1e-12)": dict(hopeless=float(cs[j]) * (1 + 1e-12)),
        "first check (floor 0.999)": dict(hopeless=0.999),
        "floor 0.999 with target_se 1 (both at once)": dict(hopeless=0.999, tse=1.0),
        "floor midway with target_rse": dict(hopeless=(cs[j] + min(cs[:j])) / 2, trse=1e-3),
        "floor 1e-3 above the lowest c of both sizes": dict(hopeless=min(0.999, lo + 1e-3)),
    }
    cases["min_trials 600, floor midway"] = dict(hopeless=(cs[j] + min(cs[:j])) / 2, min=600)
    cases["budget 5000 (not whole blocks), floor 1e-3 above the lowest c"] = dict(
        hopeless=min(0.999, lo + 1e-3), budget=5000
    )
    if len(js) and js[-1] == len(cs) - 1:
        cases["floor met first at the budget"] = dict(hopeless=(cs[-1] + min(cs[:-1])) / 2)
    means = [full[hi].ettr.values[:n].mean() for n, _ in cv]
    se = [(c - m) / 4 for c, m in zip(cs, means, strict=True)]
    if se[-1] < min(se[:-1]):
        tse = (se[-1] + min(se[:-1])) / 2
        cases["target_se met first at the budget"] = dict(hopeless=None, tse=tse)
    ck, neg = {}, {}
    for lab, c in cases.items():
        m_c, bud = c.get("min", mt), c.get("budget", budget)
        kw = dict(min_trials=m_c)
        if c.get("hopeless"):
            kw["hopeless_ettr"] = c["hopeless"]
        if "tse" in c:
            kw["target_se"] = c["tse"]
        if "trse" in c:
            kw["target_rse"] = c["trse"]
        prec = relmc.Precision(**kw)
        t0 = time.time()
        res = relmc.project(
            idata, n_gpus=list(sizes), scenario=sc, n_trials=bud, seed=a.seed, n_threads=1,
            keep_trials=True, credible_trials=0, precision=prec,
        )  # fmt: skip
        print(f"\n== {lab}: {kw} ({time.time() - t0:.1f}s)")
        pk = dict(tse=c.get("tse"), trse=c.get("trse"), hopeless=c.get("hopeless"), min_trials=m_c)
        for N in sizes:
            scN = R6.at_size(sc, N)
            P = P8.sim(scN, idata, bud, size_seed(root, N), root, prec)
            Pf = full[N] if bud == budget else P8.sim(scN, idata, bud, size_seed(root, N), root)
            P8.prec_checks(ck, neg, res, N, P, Pf, pk, bud, tag=f"[{lab}] ")
    bits = [v for v in ck.values() if isinstance(v, bool)]
    flo = [v for v in ck.values() if not isinstance(v, bool)]
    for k, v in ck.items():
        if v is False or (not isinstance(v, bool) and v > 1e-12):
            print(f"  FAILED check {k}: {v}")
    P8.tally(neg)
    print(f"\nSUMMARY hope {a.kind}: bit/equality checks passed {sum(bits)}/{len(bits)}; float "
          f"checks max {max(flo):.3g}; misreadings identical to the record "
          f"{sum(eq for eq, _ in neg.values())}/{len(neg)}")  # fmt: skip
    return dict(checks=ck, neg=neg)


# ---------------------------------------------------------------- 2. fit_fleets
NA, NB, HOURS = 24, 48, 500.0
MAINT_A, MAINT_B = 0.02, 0.04
TRUE = dict(gpu=0.004, net=0.012, rk=0.012)


def fleet_fit(a):
    import arviz as az

    path = a.out / f"fleet_fit_{a.draws}.nc"
    if path.exists():
        return az.from_netcdf(path)
    sh = relmc.cluster.ClusterShape(gpus_per_node=8, nodes_per_rack=2)
    rng = np.random.default_rng(11)
    ua = {c: M8.my_units(NA, u, M8.LLAMA_SHAPE) for c, u in zip(TRUE, UNITS, strict=True)}
    A = relmc.load_counts(
        {"category": list(TRUE), "count": [int(rng.poisson(TRUE[c] * ua[c] * HOURS)) for c in TRUE],
         "exposure": [ua[c] * HOURS for c in TRUE], "unit": list(UNITS)},
        n_gpus=NA, duration_hours=HOURS, shape=sh, name="A",
    )  # fmt: skip
    A["maintenance_count"] = xr.DataArray(np.int64(round(MAINT_A * HOURS)))
    per_node = sum(TRUE[c] * M8.my_units(NB, u, M8.LLAMA_SHAPE) / (NB // 8)
                   for c, u in zip(TRUE, UNITS, strict=True))  # fmt: skip
    B = relmc.load_counts(
        {"category": ["all"], "count": [int(rng.poisson(1.5 * per_node * (NB // 8) * HOURS))],
         "exposure": [(NB // 8) * HOURS], "unit": ["node"]},
        n_gpus=NB, duration_hours=HOURS, shape=sh, name="B",
    )  # fmt: skip
    B["maintenance_count"] = xr.DataArray(np.int64(round(MAINT_B * HOURS)))
    print(f"fleet A counts {A['count'].values.tolist()}, B {B['count'].values.tolist()}")
    ff = relmc.fit_fleets({"A": A, "B": B}, n_draws=a.draws, n_tune=500, n_chains=2, cores=1,
                          seed=2)  # fmt: skip
    ff.to_netcdf(path)
    return ff


def mine_of(src):
    import arviz as az

    return az.InferenceData(posterior=xr.Dataset({"rate": src.drop_vars("fleet", errors="ignore")}))


def fleets_spec():
    spec = copy.deepcopy(P8.spec8(True))
    spec["spreads"], spec["jitters"] = None, None
    return spec


def draws_vs_indep(a, sizes, sc, src, res, root, spec, spec_of, variants, base, ck, tag,
                   extra=None):  # fmt: skip
    """Per size, ``project``'s kept trials = ``simulate`` of ``src`` (bit, into ``ck``); per
    draw k < 6 and variant, relmc's trials of draw k against ``run_r5`` on ``spec_of(k, N,
    variant)`` (seed ``base N + 7 k + 100 j``). Keys ``(N, k, variant or "documented")``;
    with ``extra``, each comparison also holds that variable's two means."""
    comp = {}
    for N in sizes:
        P = P8.sim(R6.at_size(sc, N), src, a.n_pred, size_seed(root, N), root)
        ck[f"{tag}N={N} kept ettr == simulate (bit)"] = bool(
            np.array_equal(P.ettr.values, res.ettr.sel(n_gpus=N).values)
        )
        t = indep2.relmc_table(P, spec)
        for k in range(6):
            mask = P.draw.values == k
            for j, var in enumerate(variants):
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep, base * N + 7 * k + 100 * j,
                                    node=False)  # fmt: skip
                r = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec, quiet=True
                )
                if extra is not None:
                    r["extra"] = (t[extra][mask].mean(), b[extra].mean())
                comp[(N, k, var or "documented")] = r
    return comp


def run_fleets(a):
    ff = fleet_fit(a)
    post = ff.posterior
    ra = post["rate"].attrs
    print("rate.attrs record: " + ", ".join(f"{k} {ra.get(k)}" for k in
          ("n_gpus", "exposure_clock", "maintenance_rate", "dataset", "fleets")))  # fmt: skip
    ck, negs = {}, {}
    # identities of the posterior (module docstring)
    fa, fb = post["fleet_rate"].sel(fleet="A"), post["fleet_rate"].sel(fleet="B")
    mB = post["fleet_multiplier"].sel(fleet="B")
    ck["fleet_rate[A] == rate of kappa (multiplier[A] == 1)"] = float(
        np.abs(post["fleet_multiplier"].sel(fleet="A").values - 1).max()
    )
    ck["fleet_rate[B] == fleet_rate[A] x multiplier[B] (rel)"] = float(
        np.abs((fa * mB).values / fb.values - 1).max()
    )
    uB = np.array([M8.my_units(NB, u, M8.LLAMA_SHAPE) for u in UNITS]) / (NB // 8)
    tB = (fb.values * uB).sum(-1)
    ck["fleet_total[B] == sum_c fleet_rate[B,c] u_c(48)/u_node(48) (rel)"] = float(
        np.abs(tB / post["fleet_total"].sel(fleet="B").values - 1).max()
    )
    uA = np.array([M8.my_units(NA, u, M8.LLAMA_SHAPE) for u in UNITS])
    ck["fleet_total[A] == sum_c fleet_rate[A,c] u_c(24) (rel)"] = float(
        np.abs((fa.values * uA).sum(-1) / post["fleet_total"].sel(fleet="A").values - 1).max()
    )
    print(f"multiplier B median {float(mB.median()):.3f}; sigma median "
          f"{float(post['sigma'].median()):.3f}")  # fmt: skip
    spec = fleets_spec()
    sc = P8.scen_units(spec)
    sizes = (8, 40)
    recB = dict(n_gpus=NB, exposure_clock="wall", maintenance_rate=MAINT_B,
                **{k: ra[k] for k in M8.LLAMA_SHAPE if k in ra})  # fmt: skip
    srcs = {
        "B with B's record": fb.assign_attrs(recB),
        "A with rate.attrs": fa.assign_attrs(dict(ra)),
        "new fleet (rate)": ff,
        "B without attrs": fb.assign_attrs({}),
    }
    wrong = {  # misreadings of what project uses, against B with B's record
        "N1 rate (new fleet) for B": mine_of(post["rate"].assign_attrs(recB)),
        "N2 A's record (n_gpus 24) for B": mine_of(fb.assign_attrs(dict(ra))),
        "N3 B unconverted": mine_of(fb.assign_attrs({})),
        "N4 B's fleet_total x nodes as one rate": None,
    }
    spec10 = copy.deepcopy(spec)
    spec10["swap_h"] /= 10
    for c in spec10["cats"]:
        c["detect"] /= 10
    sc10 = P8.scen_units(spec10)
    for lab, src in srcs.items():
        t0 = time.time()
        scx = sc
        if lab == "new fleet (rate)":
            try:
                relmc.project(src, n_gpus=[8], scenario=sc, n_trials=256, seed=a.seed,
                              n_threads=1, credible_trials=0)  # fmt: skip
                print("new fleet: no FieldError with the full overheads")
            except relmc.errors.FieldError as e:
                print(f"new fleet with the full overheads: FieldError ({str(e)[:160]}...); "
                      "rerun with detection and swap / 10")  # fmt: skip
                scx = sc10
        res = relmc.project(src, n_gpus=list(sizes), scenario=scx, n_trials=a.budget,
                            seed=a.seed, n_threads=1, credible_trials=0)  # fmt: skip
        me = M8.Mine(mine_of(src) if not hasattr(src, "posterior") else src, scx)
        for N in sizes:
            scN = R6.at_size(scx, N)
            jr = job_rates(scN, rate_draws(scN, src))
            lam = me.lam(N)
            q = res["quantile"].values
            mq = res.mttf_hours_quantile.sel(n_gpus=N).values
            pre = f"[{lab}] N={N} "
            ck[pre + "job_rates == my Lambda (rel)"] = float(np.abs(jr / lam - 1).max())
            ck[pre + "mttf == quantile(1/my Lambda) (rel)"] = float(
                np.abs(np.quantile(1 / lam, q) / mq - 1).max()
            )
            ck[pre + "mttf == quantile(1/job_rates) (bit)"] = bool(
                np.array_equal(np.quantile(1 / jr, q), mq)
            )
            ck[pre + "exposed_fraction_mean == my f mean (abs)"] = abs(
                float(res.exposed_fraction_mean.sel(n_gpus=N)) - me.f().mean()
            )
            if lab == "B with B's record":
                for wl, wi in wrong.items():
                    if wi is None:
                        L = post["fleet_total"].sel(fleet="B").values.T.ravel() * (N / 8)
                    else:
                        L = M8.Mine(wi, sc).lam(N)
                    negs[(N, wl)] = float(np.abs(np.quantile(1 / L, q) / mq - 1).max())
                ch = M8.flat(fb)  # draw-major; chain-major is the misreading
                cm = fb.values.reshape(-1, 3)
                negs[(N, "N5 chain-major draws")] = float(
                    np.abs(cm / rate_draws(scN, src).values - 1).max()
                )
                ck[pre + "rate_draws == draw-major flattening (bit)"] = bool(
                    np.array_equal(ch, rate_draws(scN, src).values)
                )
        med = np.round(res.mttf_hours_quantile.sel(quantile=0.5).values, 4).tolist()
        print(
            f"{lab}: project {time.time() - t0:.1f}s; f mean {me.f().mean():.5f}; mttf median {med}"
        )
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    for (N, lab), v in negs.items():
        print(f"  negative N={N} {lab}: max rel diff (mttf quantiles; N5 the rate rows) {v:.3g}")
    # predictive trials against run_r5 on a thinned B (2 x 3 draws)
    thin = fb.isel(draw=slice(0, 3)).assign_attrs(recB)
    me = M8.Mine(mine_of(thin), sc)
    fm = me.f()
    m_conv = spec["maint_rate"] / fm.mean()
    print(f"thinned B: f {np.round(fm, 5).tolist()}; maintenance {spec['maint_rate']} -> "
          f"{m_conv:.5f}; job rates at 8: {np.round(me.lam(8), 4).tolist()}")  # fmt: skip
    t0 = time.time()
    res = relmc.project(thin, n_gpus=list(sizes), scenario=sc, n_trials=a.n_pred, seed=a.seed,
                        n_threads=1, credible_trials=0, keep_trials=True)  # fmt: skip
    root = resolve_seed(a.seed)
    print(f"thinned project {a.n_pred} trials: {time.time() - t0:.1f}s")

    def spec_of(k, N, var=None):
        s = copy.deepcopy(spec)
        if var == "N3 unconverted":
            L, m = me.fitted(N)[k], spec["maint_rate"]
        elif var == "N1 rate (new fleet)":
            m1 = M8.Mine(mine_of(post["rate"].isel(draw=slice(0, 3)).assign_attrs(recB)), sc)
            L, m = m1.fitted(N)[k] / m1.f()[k], spec["maint_rate"] / m1.f().mean()
        else:
            L, m = me.fitted(N)[k] / fm[k], m_conv
        for c, r in zip(s["cats"], L, strict=True):
            c["rate"] = float(r)
        s["maint_rate"] = m
        return s

    variants = (None, "N1 rate (new fleet)", "N3 unconverted")
    comp = draws_vs_indep(a, sizes, sc, thin, res, root, spec, spec_of, variants, 1000, ck,
                          "thinned ")  # fmt: skip
    for key, r in comp.items():
        print(f"  {str(key):40s} max|z| {r['zmax']:7.2f} ({r['kmax']})  KS wall {r['ks']:.3g} "
              f"progress {r['ksp']:.3g}")  # fmt: skip
    summ(comp)
    bits = [v for v in ck.values() if isinstance(v, bool)]
    flo = [v for v in ck.values() if not isinstance(v, bool)]
    print(f"SUMMARY fleets: bit checks {sum(bits)}/{len(bits)}; float checks max {max(flo):.3g}; "
          f"negatives (mttf rel diff) min {min(negs.values()):.3g}")  # fmt: skip
    return dict(checks=ck, neg=negs, comp=comp)


def summ(comp):
    for lab in sorted({lb for (_, _, lb) in comp}):
        xs = [r for (_, _, lb), r in comp.items() if lb == lab]
        print(f"  SUMMARY vs {lab:22s} n={len(xs):2d}  max|z| {max(r['zmax'] for r in xs):7.2f}  "
              f"KS wall {min(r['ks'] for r in xs):.3g} progress {min(r['ksp'] for r in xs):.3g}  "
              f"broken {sum(len(r['bad']) for r in xs)}")  # fmt: skip


# ---------------------------------------------------------------- 3. maintenance
M_POST, M_SCEN = 0.5, 0.05


def run_maint(a):
    spec = fleets_spec()
    spec["maint_rate"], spec["maint_h"] = M_SCEN, 0.5
    idata = P8.hand_idata(2, 3, exponent=False, wall=True, jlo=0.04, jhi=0.2)
    idata.posterior["rate"].attrs["maintenance_rate"] = M_POST
    sc = P8.scen_units(spec)
    ck, negs = {}, {}
    # where the record is read: rate.attrs only, posterior.attrs too, and the two disagreeing
    ra = idata.posterior["rate"]
    print(f"rate.attrs only: recorded_maintenance_rate(idata) {recorded_maintenance_rate(idata)}, "
          f"(rate DataArray) {recorded_maintenance_rate(ra)}; default_scenario(idata) "
          f"{default_scenario(idata).failures.maintenance_rate}")  # fmt: skip
    idata.posterior.attrs["maintenance_rate"] = 0.3
    print(f"posterior.attrs 0.3, rate.attrs 0.5: recorded_maintenance_rate(idata) "
          f"{recorded_maintenance_rate(idata)}, default_scenario(idata) "
          f"{default_scenario(idata).failures.maintenance_rate}")  # fmt: skip
    idata.posterior.attrs["maintenance_rate"] = M_POST  # as a fit writes it: both
    ck["recorded_maintenance_rate == attrs 0.5"] = recorded_maintenance_rate(idata) == M_POST
    me = M8.Mine(idata, sc)
    fail_p = dataclasses.replace(sc.failures, maintenance_rate=M_POST)
    sc_p = dataclasses.replace(sc, failures=fail_p)
    me_p = M8.Mine(idata, sc_p)
    dr = rate_draws(sc, idata)
    fr = exposed_fraction(sc, dr)
    ck["exposed_fraction == my f with the scenario's m (rel)"] = float(
        np.abs(fr / me.f() - 1).max()
    )
    negs["exposed_fraction with the recorded m"] = float(np.abs(fr / me_p.f() - 1).max())
    mr = maintenance_rate(sc, dr)
    ck["maintenance_rate == scenario m / mean f (rel)"] = abs(mr / (M_SCEN / me.f().mean()) - 1)
    negs["maintenance_rate = recorded m / mean f"] = abs(mr / (M_POST / me_p.f().mean()) - 1)
    sizes = (8, 40)
    root = resolve_seed(a.seed)
    res = relmc.project(idata, n_gpus=list(sizes), scenario=sc, n_trials=a.n_pred, seed=a.seed,
                        n_threads=1, credible_trials=0, keep_trials=True)  # fmt: skip
    jsc = json.loads(res.attrs["scenario"])
    print("project's scenario attr, failures.maintenance_rate: "
          f"{jsc['failures']['maintenance_rate']}")  # fmt: skip
    ck["project records the scenario's m"] = jsc["failures"]["maintenance_rate"] == M_SCEN
    ck["exposed_fraction_mean == my f (scenario's m) (abs)"] = float(
        np.abs(res.exposed_fraction_mean.values - me.f().mean()).max()
    )
    r0 = relmc.project(idata, n_gpus=[8], n_trials=256, seed=a.seed, n_threads=1,
                       credible_trials=0)  # fmt: skip
    j0 = json.loads(r0.attrs["scenario"])
    print(f"scenario=None: maintenance_rate {j0['failures']['maintenance_rate']}; default_scenario "
          f"{default_scenario(idata).failures.maintenance_rate}")  # fmt: skip
    ck["scenario=None: default_scenario's m == recorded"] = (
        j0["failures"]["maintenance_rate"] == M_POST
    )
    S = relmc.simulate(R6.at_size(sc, 8), rates=idata, n_trials=256, seed=a.seed, n_threads=1)
    ck["simulate records the scenario's m"] = (
        json.loads(S.attrs["scenario"])["failures"]["maintenance_rate"] == M_SCEN
    )

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        m_ = me_p if var == "recorded m" else me
        L = m_.fitted(N)[k] / m_.f()[k]
        for c, r in zip(s["cats"], L, strict=True):
            c["rate"] = float(r)
        s["maint_rate"] = (M_POST if var == "recorded m" else M_SCEN) / m_.f().mean()
        return s

    variants = ("documented (scenario's m)", "recorded m")
    comp = draws_vs_indep(a, sizes, sc, idata, res, root, spec, spec_of, variants, 2000, ck, "",
                          extra="maintenance_events")  # fmt: skip
    for r in comp.values():
        r["maint"] = r.pop("extra")
    for key, r in comp.items():
        print(f"  {str(key):40s} max|z| {r['zmax']:7.2f} ({r['kmax']})  KS wall {r['ks']:.3g} "
              f"maintenance events relmc {r['maint'][0]:.3f} "
              f"indep {r['maint'][1]:.3f}")  # fmt: skip
    summ(comp)
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    for k, v in negs.items():
        print(f"  negative {k}: rel diff {v:.3g}")
    return dict(checks=ck, neg=negs, comp=comp)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("hope", "fleets", "maint"))
    ap.add_argument("kind", nargs="?", default="phys", choices=("phys", "node", "events"))
    ap.add_argument("--budget", type=int, default=4096, help="hope: n_trials; fleets: bit runs")
    ap.add_argument("--n-pred", type=int, default=6000, help="trials of the statistical runs")
    ap.add_argument("--n-indep", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--draws", type=int, default=100, help="fits: draws per chain")
    ap.add_argument("--smoke", action="store_true", help="small sizes, seconds")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r9"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.budget, a.n_pred, a.n_indep, a.draws = 1024, 600, 100, 50
    a.out.mkdir(parents=True, exist_ok=True)
    tag = f"{a.mode}_{a.kind}_{a.seed}_{a.budget}_{a.n_pred}_{a.n_indep}_{a.draws}"
    log_to(a.out, f"log_r9_proj_{tag}.txt")
    print(f"r9_proj {a.mode} {a.kind} seed {a.seed} budget {a.budget} n_pred {a.n_pred} indep "
          f"{a.n_indep} draws {a.draws}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    out = dict(hope=run_hope, fleets=run_fleets, maint=run_maint)[a.mode](a)
    print(f"total {time.time() - t0:.1f}s")
    with open(a.out / f"res_r9_proj_{tag}.pkl", "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main()
