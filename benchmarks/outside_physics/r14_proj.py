"""Fourteenth round: ``relmc project --counts --model hierarchical`` with ``--target-rse`` and
``--hopeless-ettr`` together, and ``relmc simulate --posterior`` of the hierarchical file with
the precision flags, against the Python API and the replayed stop rule; lemon exclusion beside
retirement after repairs, escalation to manual repair and repair misses, under ``precision``,
against the independent node model; a node-model sweep on a mixture file in shards and
workers; a pooled daily cycle; size exponents on two size-resolved categories.

Written from the documents only: ``relmc project --help`` and ``relmc simulate --help`` (the
adaptive-precision group: "any target makes --n-trials a budget: first --min-trials trials
(default 512), then rounds that double the total, each of whole 256-trial blocks, stopping at
the first target met or at the budget"; ``--hopeless-ettr``: "stop early, flagged hopeless,
once mean ETTR + 4 SE is below ETTR"; ``--posterior NC``: "one draw per trial"; the TOML
without ``[failures]``: "--posterior's categories and recorded maintenance"), ``Precision``'s,
``project``'s, ``simulate``'s and ``fit_hierarchical``'s docstrings, ``Policy``'s node fields
(``lemon_failures``, ``lemon_window_hours``, ``retire_after_repairs``,
``escalation_probability``, ``manual_repair_hours``, ``auto_repair_miss``,
``manual_repair_miss``, ``repair_distribution``, ``n_spares``, ``repair_hours``). Source bodies,
``_kernels*.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read. No new simulator and
no copies: the rule replay is ``r8_proj.replay`` / ``prec_checks`` / ``curve``, the command line
``r9_cli.cli`` / ``diff_vars`` / ``prec_kw`` / ``check_case``, the mixture fit
``r9_proj.event_fit``, the node trials ``r5_indep.run_r5(node=True)`` (``indep_nodes``: finite
pool, two-stage repair with escalation, misses, retirement, lemon exclusion), the report
``r10_proj.report``.

Modes:

cli    (1) the thirteenth round's counts CSV (gpu 40 / 12,000 GPU-h swap, net 20 / 1,500
       node-h, rk 6 / 750 rack-h; 24 GPUs, 500 h). ``relmc project --counts CSV --model
       hierarchical --n-gpus 8,40 --target-rse R --hopeless-ettr H --min-trials 700
       --credible-trials CT --trials-per-draw 50 --keep-trials`` (R midway in the 8-GPU SE /
       mean curve, H just above the 40-GPU first round's mean + 4 SE) against ``project`` of
       ``fit_hierarchical(seed=S, cores=1)`` with the same arguments (every variable, bit),
       the counts against the replayed rule; then ``relmc simulate TOML --posterior
       posterior.nc`` (the project run's file) with ``--target-rse`` / ``--hopeless-ettr`` /
       ``--min-trials`` in two cases (the target stops; the floor stops) against
       ``simulate(scenario, rates=the file, precision, seed=S)`` (every variable, bit; the
       scenario attr against mine). Negatives: seed + 1, no hopeless floor, ``min_trials`` 512,
       the conjugate fit, the rule's misreadings.
lemon  (2) the ninth round's ``fit_events(nodes="mixture")`` thinned to draw 0 of each chain; a
       node-model scenario (gpu swaps its node, net restarts), a finite pool of 2 spares with
       6-h exponential automated repairs, escalation 0.4 to 30-h manual repairs, misses 0.3
       (automated) / 0.1 (manual), retirement after 2 repairs, ``lemon_failures`` 2 in 168 h;
       ``project(precision)``: ``prec_checks``, then each draw's kept trials against
       ``run_r5(node=True)`` with the draw's bad-node fraction and multipliers and ``F[k]``;
       negatives: no retirement, no escalation, no misses, no exclusion, the other draw's
       lemon rows, ``F[k + 1]``.
nsweep (3) a ``SweepSpec`` with that node-model scenario as ``base`` on the mixture fit thinned
       to 2 draws as a posterior file, axes ``cluster.n_gpus`` 64 / 256 x
       ``policy.lemon_failures`` 0 / 2, ``[precision]``: per cell the scenario, the replayed
       rule, every variable = ``summarize_cell(simulate(precision))`` (bit), each draw vs
       ``run_r5(node=True)``; the same spec in 2 shards, with 2 workers, in 2 shards x 2
       workers (every cube variable bit); negatives: seed + 1, ``rate`` alone, the other
       draw's lemon rows, the node model ignored, ``F[k + 1]``.
mixpool (4) ``fit_events(diurnal="pooled", trend=True, nodes="mixture")`` of a synthetic log
       with one shared cycle (cached in ``--out``): the pooled rows repeated along category,
       then the thirteenth round's ``r13_proj.run_mixdt`` as it is on this fit.
scal2  (5) ``fit_scaling`` of a hand two-category size-resolved dataset (hw on nodes, sw on
       GPUs), 64 and 16,384 GPUs: ``job_rates`` against a one-line Lambda per category, each
       draw's ``simulate`` trials vs ``run_r5``; negatives: exponent 1, the exponents
       swapped, the other draw's row, ``F[k + 1]``.

    taskset -c 1 python benchmarks/outside_physics/r14_proj.py MODE [--seed S] [--n-indep N]
        [--budget B] [--rse R] [--min M] [--hours H] [--n-sim N] [--iseed I] [--smoke]
        [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import math
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

import relmc
from relmc._seed import resolve_seed
from relmc.projection import default_scenario, size_seed
from relmc.rates import job_rates, rate_draws

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
import r12_proj as R12  # noqa: E402
import r13_proj as R13  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit


def _case(lab, file, api, full, budget, kw, sizes, ck, neg, negs_api):
    """``r9_cli.check_case`` with its negatives as ``(identical, note)`` pairs."""
    n0 = {}
    C9.check_case(lab, file, api, full, budget, kw, sizes, ck, n0, negs_api)
    for k, v in n0.items():
        neg[k] = (bool(v), "")


def _rse(e):
    return float(e.std(ddof=1) / np.sqrt(e.size) / e.mean())


def _scen_attr(ds):
    s = ds.attrs.get("scenario")
    return json.loads(s) if isinstance(s, str) else s


# ---------------------------------------------------------------- 1: hierarchical + hopeless
def run_cli(a):
    import arviz as az

    ck, neg = {}, {}
    csv = a.out / "counts14.csv"
    csv.write_text("category,count,exposure,unit,recovery\ngpu,40,12000,gpu,swap\n"
                   "net,20,1500,node,restart\nrk,6,750,rack,restart\n")  # fmt: skip
    budget, sizes, S, nt, mt = a.budget, (8, 40), a.seed, 300, 700
    ct, m = (400, 50) if not a.smoke else (200, 50)
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    t0 = time.time()
    post = relmc.fit_hierarchical(data, n_draws=200, n_tune=nt, n_chains=2, cores=1, seed=S)
    print(f"fit_hierarchical {time.time() - t0:.1f}s")
    fitf = ["--counts", str(csv), "--model", "hierarchical", "--observed-gpus", "24",
            "--observed-hours", "500", "--n-draws", "200", "--n-chains", "2", "--n-tune",
            str(nt)]  # fmt: skip
    C9.SEED = S
    sc = R9.with_compute(default_scenario(post), 24.0)
    sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
    root = resolve_seed(S)
    full = {N: P8.sim(R6.at_size(sc, N), post, budget, size_seed(root, N), root) for N in sizes}
    cv = {N: P8.curve(full[N].ettr.values, budget, mt) for N in sizes}
    for N in sizes:
        e = full[N].ettr.values
        print(f"  full N={N}: mean ETTR {e.mean():.5f}; rounds (n, mean + 4 SE, SE / mean) "
              + ", ".join(f"({n}, {c:.5f}, {(c - e[:n].mean()) / 4 / e[:n].mean():.6f})"
                          for n, c in cv[N]))  # fmt: skip
    e8 = full[8].ettr.values
    r8 = [(c - e8[:n].mean()) / 4 / e8[:n].mean() for n, c in cv[8]]
    j = min(1, len(r8) - 2)
    R = float(f"{0.5 * (r8[j] + r8[j + 1]):.6g}")
    e40 = full[40].ettr.values
    n1 = cv[40][0][0]
    lo8 = e8[:n1].mean() - 4 * e8[:n1].std(ddof=1) / np.sqrt(n1)
    c1, c2 = cv[40][0][1], cv[40][min(1, len(cv[40]) - 1)][1]
    H = float(f"{0.5 * (c1 + c2) if c2 < c1 else c1 + 1e-3:.6g}")
    print(
        f"  target_rse R {R}; hopeless H {H} (40-GPU mean + 4 SE in rounds 1, 2: {c1:.5f}, "
        f"{c2:.5f}; 8-GPU first round mean - 4 SE {lo8:.5f}; 40-GPU mean {e40.mean():.5f})"
    )
    flags = ["--target-rse", str(R), "--hopeless-ettr", str(H), "--min-trials", str(mt)]
    projf = ["--n-gpus", ",".join(map(str, sizes)), "--compute-hours", "24", "--restart-hours",
             "1.5", "--n-trials", str(budget), "--credible-trials", str(ct),
             "--trials-per-draw", str(m), "--keep-trials", *flags]  # fmt: skip
    out_p = a.out / "cli_proj"
    shutil.rmtree(out_p, ignore_errors=True)
    ck["relmc project --counts --model hierarchical rc == 0"] = (
        C9.cli(["project", *fitf, *projf], out_p, extra=["--no-plot"]) == 0
    )
    fq = az.from_netcdf(out_p / "posterior.nc").posterior
    ck["project: posterior.nc rate == fit_hierarchical(seed) (bit)"] = bit(
        fq["rate"].values, post.posterior["rate"].values
    )
    file = xr.open_dataset(out_p / "projection.nc").load()
    kw = C9.prec_kw(flags)
    print(f"  precision {kw}")
    pkw = dict(n_gpus=list(sizes), scenario=sc, n_trials=budget, n_threads=1, keep_trials=True,
               credible_trials=ct, trials_per_draw=m)  # fmt: skip
    api = relmc.project(post, seed=S, precision=relmc.Precision(**kw), **pkw)
    conj = relmc.fit_conjugate(data, n_draws=200, n_chains=2, seed=S)
    kw_noh = {k: v for k, v in kw.items() if k != "hopeless_ettr"}
    kw512 = {k: v for k, v in kw.items() if k != "min_trials"}
    negs = {
        "API seed + 1": relmc.project(post, seed=S + 1, precision=relmc.Precision(**kw), **pkw),
        "API without the hopeless floor": relmc.project(
            post, seed=S, precision=relmc.Precision(**kw_noh), **pkw
        ),
        "API min_trials 512": relmc.project(
            post, seed=S, precision=relmc.Precision(**kw512), **pkw
        ),
        "API the conjugate fit": relmc.project(
            conj, seed=S, precision=relmc.Precision(**kw), **pkw
        ),
    }
    fullx = xr.Dataset(
        {
            "ettr": xr.concat([full[N].ettr for N in sizes], dim="n_gpus").assign_coords(
                n_gpus=list(sizes)
            )
        }
    )
    _case("project hier", file, api, fullx, budget, kw, sizes, ck, neg, negs)
    print(f"  n_trials {file.n_trials.values.tolist()} stopped_by "
          f"{file.stopped_by.values.tolist()}; n_draws_credible "
          f"{file.attrs.get('n_draws_credible')}")  # fmt: skip
    ck["project: stop reasons (target at 8, hopeless at 40) as planned"] = [
        str(x) for x in file.stopped_by.values
    ] == ["target", "hopeless"]
    prec = relmc.Precision(**kw)
    pk = dict(tse=None, trse=R, hopeless=H, min_trials=mt)
    for N in sizes:
        P = P8.sim(R6.at_size(sc, N), post, budget, size_seed(root, N), root, prec)
        P8.prec_checks(ck, neg, file, N, P, full[N], pk, budget, tag="cli ")
    # ---- relmc simulate --posterior of the hierarchical file, with the precision flags
    pf = out_p / "posterior.nc"
    pidata = az.from_netcdf(pf)
    toml = a.out / "sim14.toml"
    toml.write_text("[cluster]\nn_gpus = 40\n\n[job]\ncompute_hours = 24.0\n\n[policy]\n"
                    "restart_hours = 1.5\n")  # fmt: skip
    ss = R6.at_size(sc, 40)
    fs = relmc.simulate(ss, rates=pidata, n_trials=budget, seed=S, n_threads=1)
    e = fs.ettr.values
    c = P8.curve(e, budget, mt)
    rs = [(cc - e[:n].mean()) / 4 / e[:n].mean() for n, cc in c]
    jj = min(1, len(rs) - 2)
    R2 = float(f"{0.5 * (rs[jj] + rs[jj + 1]):.6g}")
    H_lo = float(f"{e.mean() - 0.1:.6g}")
    cc2 = c[min(1, len(c) - 1)][1]
    H_hi = float(f"{0.5 * (c[0][1] + cc2) if cc2 < c[0][1] else c[0][1] + 1e-3:.6g}")
    print(f"  simulate full (40 GPUs, posterior file): mean ETTR {e.mean():.5f}; rounds "
          + ", ".join(f"({n}, {cc:.5f}, {r:.6f})" for (n, cc), r in zip(c, rs, strict=True))
          + f"; R2 {R2}, H_lo {H_lo}, H_hi {H_hi}")  # fmt: skip
    scases = {
        "simulate --posterior hier: target stops": ["--target-rse", str(R2), "--hopeless-ettr",
                                                    str(H_lo), "--min-trials", str(mt)],
        "simulate --posterior hier: floor stops": ["--target-rse", "1e-5", "--hopeless-ettr",
                                                   str(H_hi), "--min-trials", str(mt)],
    }  # fmt: skip
    for lab, fl in scases.items():
        out = a.out / lab.split(": ")[1].replace(" ", "_")
        shutil.rmtree(out, ignore_errors=True)
        ck[f"[{lab}] rc == 0"] = (
            C9.cli(["simulate", str(toml), "--posterior", str(pf), "--n-trials", str(budget),
                    *fl], out) == 0
        )  # fmt: skip
        sfile = xr.open_dataset(out / "simulation.nc").load()
        k2 = C9.prec_kw(fl)
        sa = relmc.simulate(ss, rates=pidata, n_trials=budget, seed=S, n_threads=1,
                            precision=relmc.Precision(**k2))  # fmt: skip
        mine, theirs = ss.to_dict(), _scen_attr(sfile)
        ck[f"[{lab}] file's scenario attr == mine (to_dict)"] = json.dumps(
            mine, sort_keys=True, default=str
        ) == json.dumps(theirs, sort_keys=True, default=str)
        if not ck[f"[{lab}] file's scenario attr == mine (to_dict)"]:
            print(f"    scenario attr differs: {str(theirs)[:600]}")
        ck[f"[{lab}] stopped_by attr == API's"] = (
            sfile.attrs["stopped_by"] == sa.attrs["stopped_by"]
        )
        k2n = {k: v for k, v in k2.items() if k != "hopeless_ettr"}
        k25 = {k: v for k, v in k2.items() if k != "min_trials"}
        snegs = {
            "API seed + 1": relmc.simulate(ss, rates=pidata, n_trials=budget, seed=S + 1,
                                           n_threads=1, precision=relmc.Precision(**k2)),
            "API without the hopeless floor": relmc.simulate(
                ss, rates=pidata, n_trials=budget, seed=S, n_threads=1,
                precision=relmc.Precision(**k2n)),
            "API min_trials 512": relmc.simulate(ss, rates=pidata, n_trials=budget, seed=S,
                                                 n_threads=1, precision=relmc.Precision(**k25)),
            "API the conjugate fit's rates": relmc.simulate(
                ss, rates=conj, n_trials=budget, seed=S, n_threads=1,
                precision=relmc.Precision(**k2)),
        }  # fmt: skip
        _case(lab, sfile, sa, fs, budget, k2, [None], ck, neg, snegs)
    return ck, neg, {}


# ---------------------------------------------------------------- 2: lemons + repair chain
def run_lemon(a):
    spec = node_spec(W=a.hours, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=2,
                     repair_h=6.0, escalate=0.4, manual_h=30.0, auto_miss=0.3, manual_miss=0.1,
                     retire_after=2, lemon_k=2, lemon_win=168.0, f=0.05, m=3.0,
                     cats=[ncat("gpu", 0.1, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip

    def vary(s, var):
        if var == "no retirement":
            s["retire_after"] = 0
        if var == "no escalation":
            s["escalate"] = 0.0
        if var == "no misses":
            s.update(auto_miss=0.0, manual_miss=0.0)
        if var == "no exclusion":
            s["lemon_k"] = 0

    variants = (None, "no retirement", "no escalation", "no misses", "no exclusion",
                "other draw's lemon rows", "F[k+1]")  # fmt: skip
    fields = ("n_spares", "repair_hours", "repair_distribution", "escalation_probability",
              "manual_repair_hours", "auto_repair_miss", "manual_repair_miss",
              "retire_after_repairs", "lemon_failures", "lemon_window_hours")  # fmt: skip
    shown = ("nodes_excluded_bad", "nodes_excluded_good", "repairs_auto", "repairs_manual",
             "nodes_retired", "pool_occupancy")  # fmt: skip
    return R13.lemon_compare(a, spec, variants, vary, 14000, fields, shown)


# ---------------------------------------------------------------- 3: node-model sweep, mixture file
def run_nsweep(a):
    """A sweep with the node model on a mixture event-fit file, [precision]: per cell the
    scenario, the replayed rule, summarize_cell(simulate(precision)) (bit) and the draws vs
    run_r5(node=True); then 2 shards, 2 workers, 2 shards x 2 workers (bit); seed + 1."""
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    fe = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    thin = fe.posterior.isel(draw=slice(0, 1)).copy()
    path = a.out / "ev_mix_thin14.nc"
    path.unlink(missing_ok=True)
    az.InferenceData(posterior=thin).to_netcdf(path)
    tid = az.InferenceData(posterior=thin)
    spec = node_spec(W=a.hours, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=2,
                     repair_h=6.0, escalate=0.4, manual_h=30.0, auto_miss=0.3, lemon_k=2,
                     lemon_win=168.0, f=0.05, m=3.0,
                     cats=[ncat("gpu", 0.1, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    sc = indep_nodes.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("gpu", "node"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    budget, mt = a.budget, 256
    axes = {"cluster.n_gpus": [64, 256], "policy.lemon_failures": [0, 2]}
    base = sc.to_dict()
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
        N, lk = (list(axes.values())[p][j] for p, j in enumerate(idx))
        exp_sc[i] = dataclasses.replace(R6.at_size(sc, N), policy=dataclasses.replace(
            sc.policy, lemon_failures=lk))  # fmt: skip
        si = sp0.scenario(i)
        pr_ = tuple(
            dataclasses.replace(c, rate=m_.rate)
            for c, m_ in zip(si.failures.categories, exp_sc[i].failures.categories, strict=True)
        )
        si = dataclasses.replace(si, failures=dataclasses.replace(si.failures, categories=pr_))
        ck[
            f"cell {i} spec.scenario(i) == my scenario at (N, lemon_failures), point rates aside"
        ] = si == exp_sc[i]
        full[i] = relmc.simulate(sp0.scenario(i), rates=rates, n_trials=budget,
                                 seed=SC.cell_seed(a.seed, i), overhead_seed=root,
                                 n_threads=1)  # fmt: skip
    pr = dict(target_rse=a.rse, min_trials=mt)
    print(f"full runs' mean ETTR {[round(float(full[i].ettr.mean()), 5) for i in full]}; "
          f"SE / mean at the budget {[round(_rse(full[i].ettr.values), 6) for i in full]}; "
          f"precision {pr}")  # fmt: skip
    spec_sw = SweepSpec.from_dict({**d, "precision": pr})
    store = a.out / "nsweep_r14.zarr"
    shutil.rmtree(store, ignore_errors=True)
    t0 = time.time()
    relmc.sweep.run_sweep(spec_sw, store, n_threads=1)
    cube = relmc.sweep.open_sweep(store, load=True)
    print(f"run_sweep {time.time() - t0:.1f}s; dims {spec_sw.dims}; n_trials "
          f"{cube['n_trials'].values.tolist()}; stopped_code "
          f"{cube['stopped_code'].values.tolist()}")  # fmt: skip
    prec = relmc.Precision(**pr)
    pk = dict(tse=None, trse=a.rse, hopeless=None, min_trials=mt)
    me = M8.Mine(tid, sc)
    fm = me.f()
    bf = thin["bad_node_fraction"].transpose("draw", "chain").values.ravel()
    bm = M8.flat(thin["bad_node_multiplier"])
    print(f"thin: f {np.round(fm, 5).tolist()}; bad_node_fraction {np.round(bf, 4).tolist()}; "
          f"multiplier {np.round(bm, 3).tolist()}")  # fmt: skip
    nd = 2
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)
    variants = (None, "other draw's lemon rows", "node model ignored", "F[k+1]")
    run = dict(budget=budget, pk=pk, prec=prec, seed=a.seed, root=root)
    for i in range(spec_sw.n_cells):
        cell, P = R12.cell_checks(ck, neg, "nsweep", spec_sw, cube, full, i, rates, **run)
        R12.rates_negative(neg, ("nsweep", i, "rate only (lemon rows dropped)"), spec_sw, cell,
                           i, thin["rate"], **run)  # fmt: skip
        N = int(exp_sc[i].cluster.n_gpus)
        lk = int(exp_sc[i].policy.lemon_failures)
        t = indep_nodes.relmc_table(P, spec)
        print(f"    relmc mean nodes_excluded_bad {float(P.nodes_excluded_bad.mean()):.4f}, "
              f"repairs_manual {float(P.repairs_manual.mean()):.4f}")  # fmt: skip
        for k in range(nd):
            mask = P.draw.values % nd == k
            for j, var in enumerate(variants):
                s = copy.deepcopy(spec)
                kp = 1 - k if var == "other draw's lemon rows" else k
                L = me.fitted(N)[k] / fm[k]
                s.update(n_gpus=N, lemon_k=lk,
                         f=0.0 if var == "node model ignored" else float(bf[kp]))  # fmt: skip
                for jj, c in enumerate(s["cats"]):
                    c.update(rate=float(L[jj]), mult=float(bm[kp, jj]))
                fk = dict(zip(r5_indep.COLS, F[(k + 1) % nd if var == "F[k+1]" else k],
                              strict=True))  # fmt: skip
                b = r5_indep.run_r5(s, a.n_indep, 15000 * N + 31 * lk + 7 * k + 100 * j
                                    + 100_000 * a.iseed, F=fk, node=True)  # fmt: skip
                comp[("nsweep", i, k, var or "documented")] = r4_run.compare_tables(
                    f"cell {i} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
    orig = relmc.sweep.run_sweep
    for lay in ("2 shards", "2 workers", "2 shards x 2 workers"):
        st = a.out / f"nsweep_r14_{lay.replace(' ', '_')}.zarr"
        shutil.rmtree(st, ignore_errors=True)
        t0 = time.time()
        if lay == "2 workers":
            orig(spec_sw, st, n_threads=1, workers=2)
        else:
            for sh in (1, 0):
                orig(spec_sw, st, shard=sh, shards=2, n_threads=1,
                     workers=2 if "workers" in lay else 1)  # fmt: skip
        cb = relmc.sweep.open_sweep(st, load=True)
        bad, miss = C9.diff_vars(cube, cb)
        print(f"  [{lay}] {time.time() - t0:.1f}s; n_trials {cb['n_trials'].values.tolist()}; "
              f"differing {bad}; missing {miss}; {len(cube.data_vars)} variables")  # fmt: skip
        ck[f"[{lay}] every cube variable == in process (bit)"] = not bad and not miss
    st = a.out / "nsweep_r14_seed+1.zarr"
    shutil.rmtree(st, ignore_errors=True)
    for sh in (1, 0):
        orig(dataclasses.replace(spec_sw, seed=spec_sw.seed + 1), st, shard=sh, shards=2,
             n_threads=1)  # fmt: skip
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    neg[("nsweep", None, "2 shards, root seed + 1")] = (
        not bad and not miss,
        f"{len(bad)} of {len(cube.data_vars)} variables differ",
    )
    return ck, neg, comp


# ---------------------------------------------------------------- 4: mixture + pooled diurnal
def mixpool_fit(a):
    """A synthetic log with lemons, one daily cycle shared by both categories and a trend,
    fitted with ``fit_events(diurnal="pooled", trend=True, nodes="mixture")`` (cached)."""
    return R13.events_fit(a, "mixpool", "pooled", {"gpu": 0.6, "net": 0.6},
                          {"gpu": 9.0, "net": 9.0}, 2)  # fmt: skip


def run_mixpool(a):
    """The thirteenth round's ``run_mixdt`` (node model, precision, each draw vs run_r5) on a
    pooled-cycle fit (``mixpool_fit``)."""

    ck0 = {}
    fe = mixpool_fit(a)
    po = fe.posterior
    print(f"model_terms {po.attrs.get('model_terms')}; variables {sorted(po.data_vars)}")
    for v in ("diurnal_amplitude", "diurnal_peak_hour"):
        x = po[v].transpose("chain", "draw", "category").values
        ck0[f"pooled: {v} repeated along category (bit)"] = bool((x == x[..., :1]).all())
        print(f"  {v} dims {po[v].dims}; draw 0: {np.round(x[:, 0, :], 4).tolist()}")
    ck, neg, comp = R13.run_mixdt(a, fit=mixpool_fit)
    return {**ck0, **ck}, neg, comp


# ---------------------------------------------------------------- 5: two size-resolved categories
def scal2_data():
    """Two size-resolved categories in ``check_sizes_data``'s layout: ``hw`` on nodes (rsc-1's
    job rows) and ``sw`` on GPUs (12 in 9,000 job-h at 8 GPUs, 30 in 300 at 1,024)."""
    return xr.Dataset(
        dict(unit=("category", ["node", "gpu"]), group=("category", ["", ""]),
             job_count=(("category", "job_gpus"), [[10, 10], [12, 30]]),
             job_hours=(("category", "job_gpus"), [[11448.0, 79.0], [9000.0, 300.0]])),
        coords=dict(category=["hw", "sw"], job_gpus=[8, 1024]),
    )  # fmt: skip


def my_lambda2(rate, b, nref, units, N, gpn=8):
    """rate_c * u_c(N_ref) ** (1 - b_c) * u_c(N) ** b_c, u = ceil(N / 8) on nodes, N on GPUs."""
    u = lambda n, un: math.ceil(n / gpn) if un == "node" else n  # noqa: E731
    un_ = np.array([u(int(r), x) for r, x in zip(nref, units, strict=True)], dtype=float)
    uN = np.array([u(N, x) for x in units], dtype=float)
    return rate * un_ ** (1.0 - b) * uN**b


def run_scal2(a):
    import arviz as az

    from relmc.models.scaling import check_sizes_data

    ck, neg, comp = {}, {}, {}
    ds = scal2_data()
    chk = check_sizes_data(ds)
    print(f"check_sizes_data: categories {list(chk['categories'])}, unit {list(chk['unit'])}, "
          f"sized {list(chk['sized'])}")  # fmt: skip
    fs = relmc.fit_scaling(ds, n_draws=50, n_chains=2, seed=2)
    po = fs.posterior
    thin = po.isel(draw=slice(0, 1))[["rate", "exponent"]]
    tid = az.InferenceData(posterior=thin)
    nref = np.asarray(thin["rate"]["reference_gpus"].values).ravel()
    units = [str(u) for u in thin["rate"]["unit"].values]
    r = M8.flat(thin["rate"])
    b = M8.flat(thin["exponent"])
    print(f"fit_scaling: exposure_clock {po.attrs.get('exposure_clock')}; reference_gpus "
          f"{nref.tolist()}; unit {units}; thin rate {np.round(r, 7).tolist()}; exponent "
          f"{np.round(b, 4).tolist()}; posterior mean exponent "
          f"{np.round(po['exponent'].mean(('chain', 'draw')).values, 3).tolist()}")  # fmt: skip
    spec = default_spec(W=8.0, tau=0.25, delta=0.01, persist=0.05, R=0.1, swap_h=0.1,
                        maint_rate=0.05, maint_h=0.2,
                        cats=[cat("hw", 0.1, detect=0.1, swap=True), cat("sw", 0.05)],
                        spreads=dict(detection=3.0, swap=2.5, restart=3.0))  # fmt: skip
    sc = indep2.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("node", "gpu"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    me = M8.Mine(tid, sc)
    fm = me.f()
    n_ref = int(nref[0])
    sizes = (max(8, n_ref // 16), n_ref * 16)
    nd = 2
    root = resolve_seed(a.seed)
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)
    variants = (None, "exponent 1", "exponents swapped", "other draw's row", "F[k+1]")

    def lam_of(k, N, var):
        bb = b[k].copy()
        if var == "exponent 1":
            bb = np.ones_like(bb)
        if var == "exponents swapped":
            bb = bb[::-1]
        kk = 1 - k if var == "other draw's row" else k
        return my_lambda2(r[kk], bb if var != "other draw's row" else b[kk], nref, units, N)

    for N in sizes:
        scN = R6.at_size(sc, N)
        jr = np.asarray(job_rates(scN, rate_draws(scN, tid)))
        mine = np.stack([my_lambda2(r[k], b[k], nref, units, N).sum() for k in range(nd)])
        print(f"  N={N}: job_rates {np.round(jr, 5).tolist()}; my Lambda per category "
              + "; ".join(str(np.round(my_lambda2(r[k], b[k], nref, units, N), 5).tolist())
                          for k in range(nd)))  # fmt: skip
        ck[f"N={N} job_rates == my one-line Lambda, summed over the categories (rel)"] = float(
            np.abs(jr.ravel() / mine - 1).max()
        )
        ck[f"N={N} job_rates == Mine's (rel)"] = float(np.abs(jr.ravel() / me.lam(N) - 1).max())
        for var in ("exponent 1", "exponents swapped"):
            alt = np.stack([lam_of(k, N, var).sum() for k in range(nd)])
            neg[("scal2", N, f"job_rates with {var} (rel)")] = (
                False, f"{float(np.abs(jr.ravel() / alt - 1).max()):.3g}")  # fmt: skip
        P = P8.sim(scN, tid, a.n_sim, size_seed(root, N), root)
        t = indep2.relmc_table(P, spec)
        print(f"    relmc: finished {float(P.finished.mean()):.4f}, mean ETTR "
              f"{float(P.ettr.mean()):.4f}, interruptions a trial "
              f"{P.interruptions.mean('trial').values.round(3).tolist()}")  # fmt: skip
        for k in range(nd):
            mask = P.draw.values % nd == k
            for j, var in enumerate(variants):
                s_ = copy.deepcopy(spec)
                s_.update(n_gpus=N)
                L = lam_of(k, N, var) / fm[k]
                for jj, c in enumerate(s_["cats"]):
                    c.update(rate=float(L[jj]))
                fk = dict(zip(r5_indep.COLS, F[(k + 1) % nd if var == "F[k+1]" else k],
                              strict=True))  # fmt: skip
                bi = r5_indep.run_r5(s_, a.n_indep, 21000 * N + 7 * k + 100 * j
                                     + 100_000 * a.iseed, F=fk, node=False)  # fmt: skip
                comp[("scal2", N, k, var or "documented")] = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, bi, spec,
                    quiet=True,
                )  # fmt: skip
    return ck, neg, comp


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("cli", "lemon", "nsweep", "mixpool", "scal2"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--n-indep", type=int, default=1500)
    ap.add_argument("--budget", type=int, default=16384, help="trial budget")
    ap.add_argument("--rse", type=float, default=0.001, help="lemon: target_rse")
    ap.add_argument("--min", type=int, default=2048, help="lemon: min_trials")
    ap.add_argument("--hours", type=float, default=72.0, help="lemon: compute hours")
    ap.add_argument("--n-sim", type=int, default=4000, help="scal2: relmc trials per size")
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r14"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.n_indep, a.budget, a.min, a.n_sim = 100, 2048, 512, 400
        if a.mode == "nsweep":
            a.budget = 1024
    a.out.mkdir(parents=True, exist_ok=True)
    tag = f"{a.mode}_{a.seed}_{a.n_indep}_{a.budget}_{a.iseed}"
    log_to(a.out, f"log_r14_{tag}.txt")
    print(f"r14_proj {a.mode} seed {a.seed} indep {a.n_indep} budget {a.budget} iseed "
          f"{a.iseed}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    ck, neg, comp = dict(
        cli=run_cli, lemon=run_lemon, nsweep=run_nsweep, mixpool=run_mixpool, scal2=run_scal2
    )[a.mode](a)
    R10.report(ck, neg, comp, a.mode, t0, a.out / f"res_r14_{tag}.pkl")


if __name__ == "__main__":
    main()
