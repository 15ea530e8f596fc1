"""Twelfth round: fitted size exponents (``fit_scaling``) in the credible simulation beside a
maintenance record and on the wall clock; a ``fit_fleets`` posterior with the node model in the
credible groups; lemon exclusion with a mixture event fit under ``precision``; a sweep on a
diurnal / trend event-fit file with ``[precision]`` against the independent simulator; a
``frailty`` fit's ``UnreadFieldWarning``; ``--model hierarchical`` with ``--dataset`` in
``relmc fit`` and ``relmc project``.

Written from the documents only: ``fit_scaling``'s docstring (``rate`` per unit-hour at
``reference_gpus``, ``exponent`` per draw, ``posterior.attrs`` ``exposure_clock`` and the
record), ``relmc.rates``' "Size scaling" (``rate_c * u_c(N_ref) ** (1 - b_c) * u_c(N) ** b_c``)
and "Exposure clock" (wall-clock rates divided by the exposed share at the fit's ``n_gpus``),
``project``'s docstring (``credible_trials`` in groups of ``trials_per_draw``, the first
``ceil(CT / M)`` draws draw-major; the record's ``maintenance_rate`` sets the default scenario's,
"a ``scenario`` given keeps its own"), its ``seed_rule`` attr, ``fit_fleets``, the node model's
fields (``bad_node_fraction``, ``bad_node_multiplier``, ``Policy.lemon_failures``,
``lemon_window_hours``), ``Precision``, ``SweepSpec``'s (``base`` over
``Scenario.default().to_dict()``, ``posterior`` a netCDF path, ``[precision]``),
``relmc.sweep.cells``' (cell ``i`` seeded ``cell_seed(seed, i)``, ``overhead_seed`` the root),
``relmc.models.events``' "Outputs" (``fleet_age_hours``), ``relmc.errors.UnreadFieldWarning`` and
``relmc.rates.NOT_SIMULATED_VARIABLES`` (``frailty_variance`` warned of once per simulation or
projection, not simulated), ``relmc fit --help`` and ``relmc project --help`` (``--dataset``,
``--model {conjugate,hierarchical}``, ``--n-draws``, ``--n-chains``, ``--n-tune``, ``--seed``),
``fit_hierarchical``'s docstring. Source bodies, ``_kernels*.py``, ``reference.py``,
``inputs.py`` and ``tests/`` not read. No new simulator and no copies: the credible rebuild and
the groups against the independent trials are ``r10_proj.credible_block`` (``r6_proj.cred_q``,
``r5_indep.run_r5`` with ``F[k]``; for the node model handed ``run_r5(node=True)`` and
``indep_nodes.relmc_table``, as the eleventh round did), Lambda(N) with exponents and f
``r8_mttf.Mine``, the rule replay ``r8_proj.replay`` / ``prec_checks``, the fits
``r10_proj.fleets`` / ``event_fit`` and ``r9_proj.event_fit``, the command-line runner
``r9_cli.cli`` / ``diff_vars``.

Modes:

scal      (1) ``fit_scaling(load_dataset("rsc-1"))`` (one category ``all``, unit node,
          ``reference_gpus`` 1,024, exposed clock) thinned to 2 x 3 draws; a one-category
          scenario (unit node, swap recovery, spreads on detection, swap, snapshot, restart,
          8 compute hours, m 0.05 / h), sizes 512 / 2,048. (a) ``scal+maint``: the record's
          ``maintenance_rate`` set to 0.5 (``posterior.attrs`` and ``rate.attrs``) beside the
          scenario's 0.05; (b) ``scal wall``: the record moved to the wall clock at
          ``n_gpus`` 1,024 (f computed there with the scaled rates). Each: ``credible_block``;
          negatives: exponent 1 instead of the fitted, the other draw's row (k + 1), the
          record's m instead of the scenario's, no clock conversion, ``F[k + 1]``.
fleetnode (2) ``fit_fleets`` fleet B (2 x 3 draws, wall record of 48 GPUs with m 0.04) with a
          node-model scenario (gpu / net / rk restart-only, bad-node fraction 0.1, multiplier
          6, ``lemon_failures`` 2, m 0.3 / h), sizes 64 / 128: ``credible_block`` with the node
          trials; negatives: node model ignored, the other draw's row, the record's m, F[k+1].
lemon     (3) the ninth round's ``fit_events(nodes="mixture")`` thinned to 2 draws, restart-only
          categories so lemons are excluded (``lemon_failures`` 2 in 168 h), 72 compute hours,
          ``project(precision)``: ``prec_checks``, then each draw's kept trials against
          ``run_r5(node=True)``; negatives: no exclusion, node model ignored, the other draw's
          lemon rows, ``F[k + 1]``.
sweep     (4) the tenth round's diurnal / trend event fit thinned to 2 draws, written with
          ``fleet_age_hours`` 6 as the sweep's posterior file; a 2 x 2 grid (``cluster.n_gpus``
          64 / 256 x ``job.start_hour`` 2 / 14, 6 compute hours), ``[precision]`` (target_rse,
          a floor midway in the lowest cell's curve, min 256): per cell the scenario = mine,
          (``n_trials``, ``stopped_code``) = the replayed rule, every variable =
          ``summarize_cell(simulate(precision))`` (bit); every cell's kept trials per draw
          against ``run_r5`` with the draw's rates, amplitude, peak, trend and the start hour;
          negatives: the other draw's physics rows, amplitude 0, no trend; point rates, rate
          alone (bit).
frailty   (one line) the tenth round's ``r10_proj.event_fit`` with ``nodes="frailty"``
          (``diurnal="pooled"``, trend; 2 x 50 draws, cached in ``--out``): ``simulate`` and
          ``project`` each emit one ``UnreadFieldWarning`` naming ``frailty_variance``, none
          without it, and every variable equals that without the variable (and with it x 9).
cli       (5) ``relmc fit --dataset llama3-405b --model hierarchical`` and ``relmc project
          --dataset llama3-405b --model hierarchical``: ``posterior.nc`` against
          ``fit_hierarchical(load_dataset(...), seed=S)`` (bit), ``projection.nc`` against
          ``project`` with the same seed (every variable, bit); negatives: seed + 1, the
          conjugate fit.

    taskset -c 1 python benchmarks/outside_physics/r12_proj.py MODE [--seed S] [--ct CT]
        [--m M] [--n-indep N] [--budget B] [--rse R] [--min M] [--hours H] [--iseed I]
        [--smoke] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import shutil
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

import relmc
from relmc._seed import resolve_seed
from relmc.projection import size_seed
from relmc.rates import job_rates, rate_draws
from relmc.sweep import cells as SC

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r8_proj as P8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
import r10_proj as R10  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
M_POST, M_SCEN, NOBS = 0.5, 0.05, 1024
A0_SW, M_FN = 6.0, 0.3


# ---------------------------------------------------------------- 1: size exponents, credible
def scal_fit(a):
    import arviz as az

    path = a.out / f"scal_fit_{a.seed}.nc"
    if path.exists():
        return az.from_netcdf(path)
    fs = relmc.fit_scaling(relmc.load_dataset("rsc-1"), n_draws=50, n_chains=2, seed=2)
    fs.to_netcdf(path)
    return fs


def scal_spec():
    return default_spec(
        W=8.0, tau=0.5, delta=0.03, persist=0.1, R=0.3, swap_h=0.2, maint_rate=M_SCEN,
        maint_h=0.2, cats=[cat("all", 0.1, detect=0.1, swap=True)],
        spreads=dict(detection=3.0, swap=2.5, snapshot=2.0, restart=3.0),
        jitters=dict(restart=2.0),
    )  # fmt: skip


def scal_scen(spec):
    sc = indep2.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit="node", rate=1e-3) for c in sc.failures.categories)
    return dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))


def run_scal(a):
    import arviz as az

    ck, neg, comp = {}, {}, {}
    fs = scal_fit(a)
    p0 = fs.posterior.isel(draw=slice(0, 3))[["rate", "exponent"]]
    print(f"fit_scaling: attrs exposure_clock {fs.posterior.attrs.get('exposure_clock')}, "
          f"n_gpus {fs.posterior.attrs.get('n_gpus')}, maintenance_rate "
          f"{fs.posterior.attrs.get('maintenance_rate')}; reference_gpus "
          f"{p0.reference_gpus.values.tolist()}; thin rate "
          f"{np.round(M8.flat(p0.rate).ravel(), 6).tolist()} exponent "
          f"{np.round(M8.flat(p0.exponent).ravel(), 4).tolist()}")  # fmt: skip
    spec = scal_spec()
    sc = scal_scen(spec)
    sizes = (512, 2048)
    for tag in ("scal+maint", "scal wall"):
        post = p0.copy(deep=True)
        rec = dict(maintenance_rate=M_POST)
        if tag == "scal wall":
            rec.update(n_gpus=NOBS, exposure_clock="wall")
        post.attrs.update(rec)
        post["rate"].attrs.update(rec)
        src = az.InferenceData(posterior=post)
        me = M8.Mine(src, sc)
        fm = me.f()
        fail_p = dataclasses.replace(sc.failures, maintenance_rate=M_POST)
        me_p = M8.Mine(src, dataclasses.replace(sc, failures=fail_p))
        nd = len(fm)
        print(
            f"[{tag}] my f {np.round(fm, 5).tolist()}; job rates "
            + "; ".join(f"{N}: {np.round(me.lam(N), 4).tolist()}" for N in sizes)
            + f"; exponent-1 rates at 2048 {np.round(me.lam(2048, linear=True), 4).tolist()}"
        )
        for N in sizes:
            scN = R6.at_size(sc, N)
            jr = job_rates(scN, rate_draws(scN, src))
            ck[f"[{tag}] N={N} job_rates == my Lambda (rel)"] = float(
                np.abs(jr / me.lam(N) - 1).max()
            )
            neg[(tag, N, "job_rates with exponent 1 (rel)")] = (
                False, float(np.abs(jr / me.lam(N, linear=True) - 1).max()))  # fmt: skip

        def spec_of(k, N, var, me=me, me_p=me_p, fm=fm, nd=nd):
            s = copy.deepcopy(spec)
            kk = (k + 1) % nd if var == "other draw's row" else k
            m_ = me_p if var == "recorded m" else me
            f_ = m_.f()
            if var == "exponent 1":
                L = m_.fitted(N, linear=True)[kk] / f_[kk]
            elif var == "no conversion":
                L, f_ = m_.fitted(N)[kk], np.ones(nd)
            else:
                L = m_.fitted(N)[kk] / f_[kk]
            s["cats"][0]["rate"] = float(L[0])
            s["maint_rate"] = (M_POST if var == "recorded m" else M_SCEN) / f_.mean()
            return s

        variants = [None, "exponent 1", "other draw's row", "recorded m", "F[k+1]"]
        if tag == "scal wall":
            variants = [None, "exponent 1", "no conversion"]
        res = R10.credible_block(a, tag, src, sc, sizes, spec, spec_of, variants, ck, neg, comp)
        ck[f"[{tag}] exposed_fraction_mean == my f mean (abs)"] = float(
            np.abs(res.exposed_fraction_mean.values - fm.mean()).max()
        )
    return ck, neg, comp


# ---------------------------------------------------------------- 2: fleet posterior + node model
def run_fleetnode(a):
    """fit_fleets fleet B (2 x 3 draws, wall record, maintenance record) with the node model."""
    tag = "fleet+node"
    ck, neg, comp = {}, {}, {}
    ff = R10.fleets(argparse.Namespace(out=a.out, draws=100), False)
    ra = ff.posterior["rate"].attrs
    recB = dict(n_gpus=R9.NB, exposure_clock=ra.get("exposure_clock"),
                maintenance_rate=R9.MAINT_B,
                **{k: ra[k] for k in M8.LLAMA_SHAPE if k in ra})  # fmt: skip
    thin = ff.posterior["fleet_rate"].sel(fleet="B").isel(draw=slice(0, 3)).assign_attrs(recB)
    thin = thin.drop_vars("fleet", errors="ignore")
    spec = node_spec(W=8.0, n_gpus=64, tau=0.5, delta=0.03, R=0.3, lemon_k=2, lemon_win=168.0,
                     f=0.1, m=6.0, maint_rate=M_FN, maint_h=0.2,
                     cats=[ncat("gpu", 0.1, detect=0.1), ncat("net", 0.1, detect=0.05),
                           ncat("rk", 0.1, detect=0.02)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    sc = indep_nodes.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, P8.UNITS, strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    me = M8.Mine(R9.mine_of(thin), sc)
    fm = me.f()
    fail_p = dataclasses.replace(sc.failures, maintenance_rate=R9.MAINT_B)
    me_p = M8.Mine(R9.mine_of(thin), dataclasses.replace(sc, failures=fail_p))
    nd = len(fm)
    sizes = (64, 128)
    print(f"[{tag}] record {recB}; scenario m {M_FN}, bad_node_fraction 0.1, multiplier 6, "
          f"lemon_failures 2, restart recovery; my f {np.round(fm, 5).tolist()}; job rates "
          + "; ".join(f"{N}: {np.round(me.lam(N), 4).tolist()}" for N in sizes))  # fmt: skip
    for N in sizes:
        scN = R6.at_size(sc, N)
        jr = job_rates(scN, rate_draws(scN, thin))
        ck[f"[{tag}] N={N} job_rates == my Lambda (rel)"] = float(np.abs(jr / me.lam(N) - 1).max())

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kk = (k + 1) % nd if var == "other draw's row" else k
        m_ = me_p if var == "recorded m" else me
        for j, c in enumerate(s["cats"]):
            c["rate"] = float(m_.fitted(N)[kk][j] / m_.f()[kk])
        s["maint_rate"] = (R9.MAINT_B if var == "recorded m" else M_FN) / m_.f().mean()
        s.update(n_gpus=N, f=0.0 if var == "node model ignored" else spec["f"])
        return s

    keep = (R10.r5_indep, R10.indep2)  # the tenth round's block with the node model's trials
    R10.r5_indep = types.SimpleNamespace(
        overhead_factors=r5_indep.overhead_factors, COLS=r5_indep.COLS,
        run_r5=lambda spec, n, seed, F=None, node=False: r5_indep.run_r5(spec, n, seed, F=F,
                                                                         node=True),
    )  # fmt: skip
    R10.indep2 = types.SimpleNamespace(relmc_table=indep_nodes.relmc_table)
    try:
        res = R10.credible_block(a, tag, thin, sc, sizes, spec, spec_of,
                                 (None, "node model ignored", "other draw's row", "recorded m",
                                  "F[k+1]"), ck, neg, comp)  # fmt: skip
    finally:
        R10.r5_indep, R10.indep2 = keep
    ck[f"[{tag}] exposed_fraction_mean == my f mean (abs)"] = float(
        np.abs(res.exposed_fraction_mean.values - fm.mean()).max()
    )
    return ck, neg, comp


# ---------------------------------------------------------------- 3: lemon exclusion, mixture fit
def run_lemon(a):
    """The ninth round's mixture fit (2 draws) with restart recovery: lemons are excluded."""
    import arviz as az

    ck, neg, comp = {}, {}, {}
    fe = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    post = fe.posterior
    spec = node_spec(W=a.hours, n_gpus=64, tau=0.5, delta=0.03, R=0.3, lemon_k=2,
                     lemon_win=168.0, f=0.05, m=3.0,
                     cats=[ncat("gpu", 0.1, detect=0.1), ncat("net", 0.05, detect=0.05)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    sc = indep_nodes.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("gpu", "node"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    print(f"scenario: recovery {[c.recovery for c in sc.failures.categories]}, lemon_failures "
          f"{spec['lemon_k']}")  # fmt: skip
    thin = post.isel(draw=slice(0, 1))
    tid = az.InferenceData(posterior=thin)
    me = M8.Mine(tid, sc)
    fm = me.f()
    bf = thin["bad_node_fraction"].transpose("draw", "chain").values.ravel()
    bm = M8.flat(thin["bad_node_multiplier"])
    nd, sizes = 2, (64, 256)
    print(f"thin: f {np.round(fm, 5).tolist()}; bad_node_fraction {np.round(bf, 4).tolist()}; "
          f"multiplier {np.round(bm, 3).tolist()}")  # fmt: skip
    prec = relmc.Precision(target_rse=a.rse, min_trials=a.min)
    pk = dict(tse=None, trse=a.rse, hopeless=None, min_trials=a.min)
    root = resolve_seed(a.seed)
    res = relmc.project(tid, n_gpus=list(sizes), scenario=sc, n_trials=a.budget, seed=a.seed,
                        n_threads=1, keep_trials=True, credible_trials=0,
                        precision=prec)  # fmt: skip
    print(f"project: n_trials {res.n_trials.values.tolist()}, stopped_by "
          f"{res.stopped_by.values.tolist()}")  # fmt: skip
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)
    variants = (None, "no exclusion", "node model ignored", "other draw's lemon rows", "F[k+1]")

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kp = 1 - k if var == "other draw's lemon rows" else k
        L = me.fitted(N)[k] / fm[k]
        s.update(n_gpus=N, f=0.0 if var == "node model ignored" else float(bf[kp]),
                 lemon_k=0 if var == "no exclusion" else spec["lemon_k"])  # fmt: skip
        for j, c in enumerate(s["cats"]):
            c.update(rate=float(L[j]), mult=float(bm[kp, j]))
        return s

    for N in sizes:
        scN = R6.at_size(sc, N)
        ck[f"N={N} job_rates == my Lambda (rel)"] = float(
            np.abs(job_rates(scN, rate_draws(scN, tid)) / me.lam(N) - 1).max()
        )
        Pf = P8.sim(scN, tid, a.budget, size_seed(root, N), root)
        P = P8.sim(scN, tid, a.budget, size_seed(root, N), root, prec)
        P8.prec_checks(ck, neg, res, N, P, Pf, pk, a.budget)
        t = indep_nodes.relmc_table(P, spec)
        print(f"  N={N}: mean nodes_excluded_bad {float(P.nodes_excluded_bad.mean()):.4f}, "
              f"good {float(P.nodes_excluded_good.mean()):.4f}")  # fmt: skip
        for k in range(nd):
            mask = P.draw.values == k
            for j, var in enumerate(variants):
                fk = dict(zip(r5_indep.COLS, F[(k + 1) % nd if var == "F[k+1]" else k],
                              strict=True))  # fmt: skip
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep,
                                    7000 * N + 7 * k + 100 * j + 100_000 * a.iseed, F=fk,
                                    node=True)  # fmt: skip
                comp[("lemon", N, k, var or "documented")] = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
    return ck, neg, comp


# ---------------------------------------------------------------- 4: sweep, diurnal / trend file
STOP_CODE = {"n_trials": 0, "target": 1, "hopeless": 2}  # a sweep cube's stopped_code


def cell_checks(ck, neg, mode, spec_sw, cube, full, i, rates, budget, pk, prec, seed, root):
    """Cell ``i`` of a sweep's ``cube``: its (``n_trials``, ``stopped_code``) against the
    documented rule replayed on the full run ``full[i]`` (each misreading a negative), and
    every variable against ``summarize_cell(simulate(precision))`` with the cell's seed
    (bit). Returns the cell and that simulation (the twelfth and fourteenth rounds' sweeps).
    """
    sel = dict(zip(spec_sw.dims, np.unravel_index(i, spec_sw.shape), strict=True))
    cell = cube.isel(sel)
    n, sb, _ = P8.replay(full[i].ettr.values, budget, **pk)
    rn, rc = int(cell["n_trials"]), int(cell["stopped_code"])
    print(f"  cell {i} {sel}: recorded {rn} / {rc}; replayed {n} {sb}")
    ck[f"cell {i} (n_trials, stopped_code) == replayed rule"] = (rn, rc) == (n, STOP_CODE[sb])
    P = relmc.simulate(spec_sw.scenario(i), rates=rates, n_trials=budget,
                       seed=SC.cell_seed(seed, i), overhead_seed=root, n_threads=1,
                       precision=prec)  # fmt: skip
    S = SC.summarize_cell(P, spec_sw.quantiles)
    bad = [v for v in S.data_vars
           if v in cell.data_vars and not bit(S[v].values, cell[v].values)]  # fmt: skip
    ck[f"cell {i} every variable == summarize_cell(simulate(precision)) (bit)"] = not bad
    for mis in P8.MISREADINGS:
        neg[(mode, i, mis)] = (P8.replay(full[i].ettr.values, budget, **pk, mis=mis)[0]
                               == rn, "")  # fmt: skip
    return cell, P


def rates_negative(neg, key, spec_sw, cell, i, rates, budget, pk, prec, seed, root):
    """Negative ``key``: cell ``i`` simulated with other ``rates`` gives another
    ``ettr_mean`` than the cube's."""
    Q = relmc.simulate(spec_sw.scenario(i), rates=rates, n_trials=budget,
                       seed=SC.cell_seed(seed, i), overhead_seed=root, n_threads=1,
                       precision=prec)  # fmt: skip
    em = SC.summarize_cell(Q, spec_sw.quantiles)["ettr_mean"].values
    neg[key] = (bit(em, cell["ettr_mean"].values),
                f"ettr_mean diff {float(em - cell['ettr_mean']):.3g}")  # fmt: skip


def run_sweep(a):
    """A sweep on a 2-draw diurnal / trend event fit file with [precision]; cells vs run_r5."""
    import arviz as az

    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    fe = R10.event_fit(argparse.Namespace(out=a.out, draws=100, nodes=None))
    thin = fe.posterior.isel(draw=slice(0, 1)).copy()
    thin.attrs["fleet_age_hours"] = A0_SW
    path = a.out / "ev_dt_thin.nc"
    path.unlink(missing_ok=True)
    az.InferenceData(posterior=thin).to_netcdf(path)
    tid = az.InferenceData(posterior=thin)
    spec = default_spec(W=6.0, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, beta=1.5, A0=A0_SW,
                        cats=[cat("gpu", 0.1, detect=0.1, swap=True), cat("net", 0.05)],
                        spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    sc = indep2.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("gpu", "node"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    budget, mt = a.budget, 256
    axes = {"cluster.n_gpus": [64, 256], "job.start_hour": [2.0, 14.0]}
    base = sc.to_dict()  # the fit gives the categories' rates: their tables leave rate out
    base["failures"]["categories"] = [{k: v for k, v in c.items() if k != "rate"}
                                      for c in base["failures"]["categories"]]  # fmt: skip
    d = dict(seed=a.seed, n_trials=budget, posterior=str(path), quantiles=[0.05, 0.5, 0.95],
             base=base, axes=axes)  # fmt: skip
    sp0 = SweepSpec.from_dict(d)
    rates = SC.resolve_rates(sp0)
    root = resolve_seed(a.seed)
    exp_sc, full = {}, {}
    for i in range(sp0.n_cells):
        idx = np.unravel_index(i, sp0.shape)
        N, h = (list(axes.values())[p][j] for p, j in enumerate(idx))  # dims in axes' order
        exp_sc[i] = dataclasses.replace(R6.at_size(sc, N), job=dataclasses.replace(
            sc.job, start_hour=h))  # fmt: skip
        si = sp0.scenario(i)  # its categories' point rates are the posterior's (unused)
        pr_ = tuple(
            dataclasses.replace(c, rate=m.rate)
            for c, m in zip(si.failures.categories, exp_sc[i].failures.categories, strict=True)
        )
        si = dataclasses.replace(si, failures=dataclasses.replace(si.failures, categories=pr_))
        ck[f"cell {i} spec.scenario(i) == my scenario at (N, start hour), point rates aside"] = (
            si == exp_sc[i]
        )
        full[i] = relmc.simulate(sp0.scenario(i), rates=rates, n_trials=budget,
                                 seed=SC.cell_seed(a.seed, i), overhead_seed=root,
                                 n_threads=1)  # fmt: skip
    lo = min(range(sp0.n_cells), key=lambda i: full[i].ettr.values.mean())
    cv = P8.curve(full[lo].ettr.values, budget, mt)
    floor = round(0.5 * (cv[1][1] + cv[2][1]), 6) if len(cv) > 2 else cv[-1][1] + 1e-4
    pr = dict(target_rse=a.rse, hopeless_ettr=floor, min_trials=mt)
    print(f"full runs' mean ETTR {[round(float(full[i].ettr.mean()), 5) for i in full]}; cell "
          f"{lo} curve {[(n, round(c, 5)) for n, c in cv]}; precision {pr}")  # fmt: skip
    spec_sw = SweepSpec.from_dict({**d, "precision": pr})
    store = a.out / "sweep_r12.zarr"
    shutil.rmtree(store, ignore_errors=True)
    t0 = time.time()
    relmc.sweep.run_sweep(spec_sw, store, n_threads=1)
    cube = relmc.sweep.open_sweep(store, load=True)
    print(f"run_sweep {time.time() - t0:.1f}s; n_trials {cube['n_trials'].values.tolist()}; "
          f"stopped_code {cube['stopped_code'].values.tolist()}")  # fmt: skip
    prec = relmc.Precision(**pr)
    pk = dict(tse=None, trse=a.rse, hopeless=floor, min_trials=mt)
    me = M8.Mine(tid, sc)
    fl = {v: M8.flat(thin[v]) for v in ("diurnal_amplitude", "diurnal_peak_hour")}
    beta = thin["trend_shape"].transpose("draw", "chain").values.ravel()
    print(f"thin: f {np.round(me.f(), 5).tolist()}, amp "
          f"{np.round(fl['diurnal_amplitude'], 3).tolist()}, peak "
          f"{np.round(fl['diurnal_peak_hour'], 2).tolist()}, trend {np.round(beta, 3).tolist()}, "
          f"fleet age {A0_SW}")  # fmt: skip
    nd = 2
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)
    variants = (None, "other draw's physics rows", "amplitude 0", "no trend")
    run = dict(budget=budget, pk=pk, prec=prec, seed=a.seed, root=root)
    for i in range(spec_sw.n_cells):
        cell, P = cell_checks(ck, neg, "sweep", spec_sw, cube, full, i, rates, **run)
        for lab, rr in (("point rates", None), ("rate only (physics rows dropped)",
                                                 thin["rate"])):  # fmt: skip
            rates_negative(neg, ("sweep", i, lab), spec_sw, cell, i, rr, **run)
        N = int(exp_sc[i].cluster.n_gpus)
        h = float(exp_sc[i].job.start_hour)
        t = indep2.relmc_table(P, spec)
        for k in range(nd):
            mask = P.draw.values % nd == k
            for j, var in enumerate(variants):
                s = copy.deepcopy(spec)
                kp = 1 - k if var == "other draw's physics rows" else k
                L = me.fitted(N)[k] / me.f()[k]
                s.update(n_gpus=N, h0=h, beta=1.0 if var == "no trend" else float(beta[kp]))
                for jj, c in enumerate(s["cats"]):
                    c.update(rate=float(L[jj]),
                             amp=0.0 if var == "amplitude 0" else
                             float(fl["diurnal_amplitude"][kp, jj]),
                             peak=float(fl["diurnal_peak_hour"][kp, jj]))  # fmt: skip
                b = r5_indep.run_r5(
                    s,
                    a.n_indep,
                    9000 * N + int(h) + 7 * k + 100 * j + 100_000 * a.iseed,
                    F=dict(zip(r5_indep.COLS, F[k], strict=True)),
                    node=False,
                )
                comp[("sweep", i, k, var or "documented")] = r4_run.compare_tables(
                    f"cell {i} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
    return ck, neg, comp


# ---------------------------------------------------------------- frailty: the warning
def run_frailty(a):
    import arviz as az

    ck, neg = {}, {}
    fr = R10.event_fit(argparse.Namespace(out=a.out, draws=50, nodes="frailty"))
    post = fr.posterior
    print(f"frailty fit: variables {sorted(post.data_vars)}")
    sc = relmc.projection.default_scenario(fr)
    sc = dataclasses.replace(sc, job=dataclasses.replace(sc.job, compute_hours=24.0))
    without = az.InferenceData(posterior=post.drop_vars("frailty_variance"))
    for name, fn in (
        ("simulate", lambda s: relmc.simulate(sc, rates=s, n_trials=512, seed=a.seed,
                                              n_threads=1)),
        ("project", lambda s: relmc.project(s, n_gpus=[64, 256], scenario=sc, n_trials=512,
                                            seed=a.seed, n_threads=1)),
    ):  # fmt: skip
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r1 = fn(fr)
        hits = [x for x in w if issubclass(x.category, relmc.errors.UnreadFieldWarning)
                and "frailty_variance" in str(x.message)]  # fmt: skip
        print(
            f"  {name}: {len(hits)} UnreadFieldWarning naming frailty_variance: "
            + " | ".join(str(x.message)[:160] for x in hits)
        )
        ck[f"{name}: one UnreadFieldWarning naming frailty_variance"] = len(hits) == 1
        with warnings.catch_warnings(record=True) as w2:
            warnings.simplefilter("always")
            r0 = fn(without)
        ck[f"{name}: no frailty warning without the variable"] = not any(
            "frailty_variance" in str(x.message) for x in w2
        )
        bad, miss = C9.diff_vars(r1, r0)
        ck[f"{name}: every variable == without frailty_variance (bit)"] = not bad and not miss
        r2 = fn(az.InferenceData(posterior=post.assign(frailty_variance=post.frailty_variance * 9)))
        ck[f"{name}: frailty_variance x 9 changes nothing (bit)"] = C9.diff_vars(r2, r0) == ([], [])
        print(f"  {name}: {len(r1.data_vars)} variables compared; differing {bad}; missing {miss}")
    return ck, neg, {}


# ---------------------------------------------------------------- 5: --dataset hierarchical
def run_cli(a):
    import arviz as az

    ck, neg = {}, {}
    S, ds = a.seed, "llama3-405b"
    kw = dict(n_draws=100, n_tune=200, n_chains=2)
    data = relmc.load_dataset(ds)
    t0 = time.time()
    post = relmc.fit_hierarchical(data, cores=1, seed=S, **kw)
    print(f"fit_hierarchical {time.time() - t0:.1f}s; variables {sorted(post.posterior.data_vars)}")
    C9.SEED = S
    flags = ["--dataset", ds, "--model", "hierarchical", "--n-draws", "100", "--n-chains", "2",
             "--n-tune", "200"]  # fmt: skip
    out_f = a.out / "cli_fit"
    shutil.rmtree(out_f, ignore_errors=True)
    C9.cli(["fit", *flags], out_f, threads=False)
    out_p = a.out / "cli_proj"
    shutil.rmtree(out_p, ignore_errors=True)
    sizes = (4096, 16384)
    C9.cli(["project", *flags, "--n-gpus", ",".join(map(str, sizes)), "--compute-hours", "24",
            "--n-trials", "1024"], out_p, extra=["--no-plot"])  # fmt: skip
    conj = relmc.fit_conjugate(data, n_draws=100, n_chains=2, seed=S)
    for lab, out in (("fit", out_f), ("project", out_p)):
        fp = az.from_netcdf(out / "posterior.nc").posterior
        for v in post.posterior.data_vars:
            ck[f"{lab}: posterior.nc {v} == fit_hierarchical(seed) (bit)"] = v in fp and bit(
                fp[v].values, post.posterior[v].values
            )
        pa = {k: str(v) for k, v in fp["rate"].attrs.items()}
        pb = {k: str(v) for k, v in post.posterior["rate"].attrs.items()}
        ck[f"{lab}: rate.attrs == API's"] = pa == pb
        if pa != pb:
            dif = [(k, pa.get(k), pb.get(k)) for k in set(pa) | set(pb) if pa.get(k) != pb.get(k)]
            print(f"  {lab} attrs differing: {dif}")
        neg[(lab, None, "conjugate fit's rate")] = (
            fp["rate"].shape == conj.posterior["rate"].shape
            and bit(fp["rate"].values, conj.posterior["rate"].values),
            "",
        )
    file = xr.open_dataset(out_p / "projection.nc").load()
    sc = relmc.projection.default_scenario(post)
    sc = dataclasses.replace(sc, job=dataclasses.replace(sc.job, compute_hours=24.0))
    api = relmc.project(post, n_gpus=list(sizes), scenario=sc, n_trials=1024, seed=S,
                        n_threads=1)  # fmt: skip
    bad, miss = C9.diff_vars(file, api)
    print(f"  projection.nc: {len(file.data_vars)} variables; differing {bad}; missing {miss}")
    ck["project: every projection.nc variable == project(seed) (bit)"] = not bad and not miss
    for nl, (pp, seed) in {"project seed + 1": (post, S + 1), "conjugate fit": (conj, S)}.items():
        o = relmc.project(pp, n_gpus=list(sizes), scenario=sc, n_trials=1024, seed=seed,
                          n_threads=1)  # fmt: skip
        b2, m2 = C9.diff_vars(file, o)
        neg[("cli", None, nl)] = (not b2 and not m2, f"{len(b2)} variables differ")
    return ck, neg, {}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("scal", "fleetnode", "lemon", "sweep", "frailty", "cli"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--ct", type=int, default=4000, help="credible trials")
    ap.add_argument("--m", type=int, default=1000, help="trials per draw")
    ap.add_argument("--n-indep", type=int, default=1500)
    ap.add_argument("--budget", type=int, default=16384, help="lemon: trial budget")
    ap.add_argument("--rse", type=float, default=0.001, help="lemon: target_rse")
    ap.add_argument("--min", type=int, default=2048, help="lemon: min_trials")
    ap.add_argument("--hours", type=float, default=72.0, help="lemon: compute hours")
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r12"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.ct, a.m, a.n_indep, a.budget, a.min = 800, 200, 100, 1024, 512
    a.out.mkdir(parents=True, exist_ok=True)
    tag = f"{a.mode}_{a.seed}_{a.ct}_{a.m}_{a.n_indep}_{a.iseed}"
    log_to(a.out, f"log_r12_{tag}.txt")
    print(f"r12_proj {a.mode} seed {a.seed} ct {a.ct} m {a.m} indep {a.n_indep} iseed {a.iseed}"
          f"  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    ck, neg, comp = dict(
        scal=run_scal,
        fleetnode=run_fleetnode,
        lemon=run_lemon,
        sweep=run_sweep,
        frailty=run_frailty,
        cli=run_cli,
    )[a.mode](a)
    R10.report(ck, neg, comp, a.mode, t0, a.out / f"res_r12_{tag}.pkl")


if __name__ == "__main__":
    main()
