"""Eleventh round: the credible simulation with physics rows on a ``fit_fleets`` posterior (short
jobs whose start hour, amplitude, peak and trend matter) and with the node model beside a
maintenance record; the command line's hierarchical fit in the same command; a sweep with an
event-fit posterior file and ``[precision]``, in process, sharded and in worker processes; the
mixture event fit under ``precision`` against the independent node model.

Written from the documents only: ``project``'s docstring (the credible simulation:
``credible_trials`` jobs in groups of ``trials_per_draw``, the first ``ceil(CT / M)`` draws,
draw-major; ``posterior``: the record's ``maintenance_rate`` "sets the default scenario's planned
maintenance; a ``scenario`` given keeps its own"), its ``seed_rule`` attr, ``relmc.rates``'
"Exposure clock", ``fit_fleets``, ``PHYSICS_VARIABLES`` and ``relmc.models.events``' "Outputs"
(physics per draw under the scenario's names, ``fleet_age_hours``), ``relmc project --help``
(``--model {conjugate,hierarchical}``, ``--n-tune``, the adaptive precision group),
``fit_hierarchical``'s docstring (seed children, ``cores``: "results do not depend on it"),
``run_sweep``'s (``shard``, ``shards``, ``workers``), ``SweepSpec``'s (``posterior``: a path to a
netCDF InferenceData; ``precision``), ``relmc.sweep.cells``' (cell ``i`` seeded
``cell_seed(seed, i)``, ``overhead_seed`` the root), ``resolve_rates``' and
``posterior_from_source``' (an event fit's posterior group, so cells draw the physics per
trial). Source bodies, ``_kernels*.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read.
No new simulator: the credible rebuild and the groups against the independent trials are the
tenth round's ``r10_proj.credible_block`` (``r6_proj.cred_q``, ``r5_indep.run_r5``; for the node
model with ``r4_indep``'s node trials and ``indep_nodes.relmc_table``, handed to it as its
``r5_indep`` / ``indep2``), the rule replay ``r8_proj.replay``, Lambda(N) and f
``r8_mttf.Mine``, the fleets ``r10_proj.fleets``, the mixture event fit ``r9_proj.event_fit``,
the command-line runner ``r9_cli.cli``.

Modes:

cred    (1, 5) ``fit_fleets`` fleet B (2 x 3 draws, wall clock record with its maintenance rate,
        the scenario's own m given) with hand physics rows per draw: diurnal amplitude 0.6-1.0,
        peaks apart, trend shapes 0.4-1.8 with a fleet age of 6 h; an 8-h job starting at 02:00
        (``h0``); and the fifth round's ``n_all`` node-model posterior (lemon rows, physics rows,
        all nine spreads) whose record carries ``maintenance_rate`` 0.5 beside the scenario's
        0.05. Each: ``credible_block`` (the credible run rebuilt bit for bit, groups vs the
        independent trials); negatives: the other draw's physics rows, amplitude 0, no trend,
        ``F[k + 1]``; the record's m instead of the scenario's.
mix     (2) the ninth round's ``fit_events(nodes="mixture")`` thinned to 2 draws, a node-model
        scenario (``indep_nodes.node_spec``, 72 compute hours, units gpu / node): ``project``
        with ``precision`` (``r8_proj.prec_checks``), then each draw's kept trials against
        ``run_r5(node=True)`` with the documented rates, the draw's bad-node fraction and
        multipliers and ``F[k]``; negatives: node model ignored, the other draw's lemon rows,
        ``F[k + 1]``.
cli     (3) ``relmc project --counts CSV --model hierarchical`` with ``--target-se`` and a
        hopeless floor placed from the API's full run: ``posterior.nc`` against
        ``fit_hierarchical(seed=S)``, ``projection.nc`` against ``project`` (bit), the counts
        against the replayed rule.
sweep   (4) a 2 x 2 grid over ``cluster.n_gpus`` 64 / 256 and ``policy.checkpoint_interval``,
        posterior: the ninth round's ``fit_events(nodes="mixture")`` netCDF, a ``[precision]``
        table (target and a floor placed from the full runs): in process, as 2 shards and with
        2 worker processes: every cube variable equal across the three; per cell ``n_trials`` /
        ``stopped_code`` against the rule replayed on ``simulate`` with ``resolve_rates``, every
        variable against ``summarize_cell(simulate(precision))`` (bit).

    taskset -c 1 python benchmarks/outside_physics/r11_proj.py MODE [--seed S] [--ct CT]
        [--m M] [--n-indep N] [--budget B] [--rse R] [--min M] [--hours H] [--iseed I]
        [--part fleet|node] [--smoke] [--out DIR]
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
from relmc.projection import default_scenario, size_seed
from relmc.rates import job_rates, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r5_scen  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r8_proj as P8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
import r10_proj as R10  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
A0_PHYS = 6.0


# ---------------------------------------------------------------- 1, 5: credible groups
def phys_rows(C, D, n_cat):
    """Amplitude, peak (chain, draw, category) and trend (chain, draw), draws set apart."""
    amp = np.empty((C, D, n_cat))
    peak = np.empty((C, D, n_cat))
    beta = np.empty((C, D))
    for c in range(C):
        for d in range(D):
            k = d * C + c  # flat draw-major index
            amp[c, d] = 0.6 + 0.4 * ((np.arange(n_cat) + k) % 3) / 2
            peak[c, d] = (4.0 + 9.0 * k + 5.0 * np.arange(n_cat)) % 24
            beta[c, d] = (0.4, 1.8, 0.7, 1.5, 1.0, 0.5)[k % 6]
    return amp, peak, beta


def run_fleet_phys(a, ck, neg, comp):
    import arviz as az

    tag = "fleet+phys"
    spec = copy.deepcopy(P8.spec8(True))
    spec.update(A0=A0_PHYS, h0=2.0)
    sc = P8.scen_units(spec)
    print(f"[{tag}] scenario start hour {spec['h0']}, fleet_age_hours "
          f"{sc.failures.fleet_age_hours}, maintenance {sc.failures.maintenance_rate}")  # fmt: skip
    ff = R10.fleets(a, False)
    ra = ff.posterior["rate"].attrs
    recB = dict(n_gpus=R9.NB, exposure_clock=ra.get("exposure_clock"),
                maintenance_rate=R9.MAINT_B,
                **{k: ra[k] for k in M8.LLAMA_SHAPE if k in ra})  # fmt: skip
    thin = ff.posterior["fleet_rate"].sel(fleet="B").isel(draw=slice(0, 3)).assign_attrs(recB)
    thin = thin.drop_vars("fleet", errors="ignore")
    C, D, n_cat = thin.sizes["chain"], thin.sizes["draw"], thin.sizes["category"]
    amp, peak, beta = phys_rows(C, D, n_cat)
    dc = ("chain", "draw", "category")
    post = xr.Dataset({"rate": thin, "diurnal_amplitude": (dc, amp),
                       "diurnal_peak_hour": (dc, peak),
                       "trend_shape": (("chain", "draw"), beta)})  # fmt: skip
    post.attrs.update(fleet_age_hours=A0_PHYS, maintenance_rate=R9.MAINT_B)
    src = az.InferenceData(posterior=post)
    me = M8.Mine(R9.mine_of(thin), sc)
    fm = me.f()
    fl = {v: M8.flat(post[v]) for v in ("diurnal_amplitude", "diurnal_peak_hour")}
    fb = post["trend_shape"].transpose("draw", "chain").values.ravel()
    nd = C * D
    print(f"[{tag}] my f {np.round(fm, 5).tolist()}; job rates at 8 "
          f"{np.round(me.lam(8), 4).tolist()}; amp {np.round(fl['diurnal_amplitude'], 2).tolist()}"
          f"; peak {fl['diurnal_peak_hour'].tolist()}; trend {fb.tolist()}")  # fmt: skip
    for N in (8, 40):
        scN = R6.at_size(sc, N)
        jr = job_rates(scN, rate_draws(scN, src))
        ck[f"[{tag}] N={N} job_rates == my Lambda (rel)"] = float(np.abs(jr / me.lam(N) - 1).max())

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kp = (k + 1) % nd if var == "other draw's physics rows" else k
        L = me.fitted(N)[k] / fm[k]
        s["beta"] = 1.0 if var == "no trend" else float(fb[kp])
        for j, c in enumerate(s["cats"]):
            c.update(rate=float(L[j]),
                     amp=0.0 if var == "amplitude 0" else float(fl["diurnal_amplitude"][kp, j]),
                     peak=float(fl["diurnal_peak_hour"][kp, j]))  # fmt: skip
        s["maint_rate"] = spec["maint_rate"] / fm.mean()
        return s

    variants = (None, "other draw's physics rows", "amplitude 0", "no trend", "F[k+1]")
    res = R10.credible_block(a, tag, src, sc, (8, 40), spec, spec_of, variants, ck, neg, comp)
    ck[f"[{tag}] exposed_fraction_mean == my f mean (abs)"] = float(
        np.abs(res.exposed_fraction_mean.values - fm.mean()).max()
    )


def run_node_maint(a, ck, neg, comp):
    tag = "node+maint"
    ps = r5_scen.SCEN["n_all"]
    idata = ps.idata()
    N0 = ps.spec["n_gpus"]
    for d in (idata.posterior.attrs, idata.posterior["rate"].attrs):
        d["maintenance_rate"] = R9.M_POST
    idata.posterior["rate"].attrs.update(n_gpus=N0, exposure_clock="exposed")
    sc = r5_scen.build_relmc(ps)
    print(f"[{tag}] scenario maintenance {sc.failures.maintenance_rate}, record "
          f"{R9.M_POST}; recorded_maintenance_rate "
          f"{relmc.rates.recorded_maintenance_rate(idata)}")  # fmt: skip
    nd = ps.n_draws

    def spec_of(k, N, var):
        s = r5_scen.draw_spec(ps, (k + 1) % nd if var == "other draw's rows" else k)
        s = {**s, "n_gpus": N}
        if var == "recorded m":
            s["maint_rate"] = R9.M_POST
        return s

    # the tenth round's block with the node model's trials and table
    keep = (R10.r5_indep, R10.indep2)
    R10.r5_indep = types.SimpleNamespace(
        overhead_factors=r5_indep.overhead_factors, COLS=r5_indep.COLS,
        run_r5=lambda spec, n, seed, F=None, node=False: r5_indep.run_r5(spec, n, seed, F=F,
                                                                         node=True),
    )  # fmt: skip
    R10.indep2 = types.SimpleNamespace(relmc_table=indep_nodes.relmc_table)
    try:
        res = R10.credible_block(a, tag, idata, sc, (N0, 2 * N0), ps.spec, spec_of,
                                 (None, "other draw's rows", "recorded m", "F[k+1]"), ck, neg,
                                 comp)  # fmt: skip
    finally:
        R10.r5_indep, R10.indep2 = keep
    ck[f"[{tag}] exposed_fraction_mean == 1 (abs)"] = float(
        np.abs(res.exposed_fraction_mean.values - 1).max()
    )


def run_cred(a):
    ck, neg, comp = {}, {}, {}
    if a.part in (None, "fleet"):
        run_fleet_phys(a, ck, neg, comp)
    if a.part in (None, "node"):
        run_node_maint(a, ck, neg, comp)
    return ck, neg, comp


# ---------------------------------------------------------------- 3: --model hierarchical
def run_cli(a):
    import arviz as az

    ck, neg = {}, {}
    csv = a.out / "counts.csv"
    csv.write_text("category,count,exposure,unit\ngpu,40,12000,gpu\nnet,20,1500,node\n"
                   "rk,6,750,rack\n")  # fmt: skip
    budget, sizes, S = a.budget, (8, 40), a.seed
    nt = 300
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    t0 = time.time()
    post = relmc.fit_hierarchical(data, n_draws=200, n_tune=nt, n_chains=2, cores=1, seed=S)
    print(f"fit_hierarchical {time.time() - t0:.1f}s")
    sc = R9.with_compute(default_scenario(post), 24.0)
    sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
    root = resolve_seed(S)
    full = {N: P8.sim(R6.at_size(sc, N), post, budget, size_seed(root, N), root) for N in sizes}
    cv = P8.curve(full[40].ettr.values, budget, 512)
    print(f"full run mean ETTR {[round(float(full[N].ettr.mean()), 5) for N in sizes]}; 40 GPUs "
          f"mean + 4 SE per round {[(n, round(c, 5)) for n, c in cv]}")  # fmt: skip
    j = min(1, len(cv) - 2)
    floor = round(0.5 * (cv[j][1] + cv[j + 1][1]), 6)
    flags = ["--target-se", "0.002", "--hopeless-ettr", str(floor)]
    out = a.out / "cli_hier"
    shutil.rmtree(out, ignore_errors=True)
    C9.cli(["project", "--counts", str(csv), "--model", "hierarchical", "--observed-gpus", "24",
            "--observed-hours", "500", "--n-draws", "200", "--n-chains", "2", "--n-tune", str(nt),
            "--n-gpus", "8,40", "--compute-hours", "24", "--restart-hours", "1.5", "--n-trials",
            str(budget), "--seed", str(S), "--keep-trials", *flags], out, seeded=False,
           extra=["--no-plot"])  # fmt: skip
    fp = az.from_netcdf(out / "posterior.nc")
    for v in ("rate", "alpha", "beta"):
        ck[f"posterior.nc {v} == fit_hierarchical(seed) (bit)"] = bit(
            fp.posterior[v].values, post.posterior[v].values
        )
    pa = {k: str(v) for k, v in fp.posterior["rate"].attrs.items()}
    pb = {k: str(v) for k, v in post.posterior["rate"].attrs.items()}
    ck["posterior.nc rate.attrs == API's"] = pa == pb
    print(f"  model attr: file {fp.posterior.attrs.get('model')}, API "
          f"{post.posterior.attrs.get('model')}")  # fmt: skip
    file = xr.open_dataset(out / "projection.nc").load()
    kw = C9.prec_kw(flags)
    prec = relmc.Precision(**kw)
    api = relmc.project(post, n_gpus=list(sizes), scenario=sc, n_trials=budget, seed=S,
                        n_threads=1, keep_trials=True, precision=prec)  # fmt: skip
    bad, miss = C9.diff_vars(file, api)
    ck["every data variable == API (bit)"] = not bad and not miss
    print(f"  {len(file.data_vars)} variables; differing {bad}; missing {miss}; n_trials "
          f"{file.n_trials.values.tolist()} stopped_by "
          f"{file.stopped_by.values.tolist()}")  # fmt: skip
    pk = dict(tse=0.002, trse=None, hopeless=floor, min_trials=512)
    for N in sizes:
        n, sb, _ = P8.replay(full[N].ettr.values, budget, **pk)
        rec = (int(file.n_trials.sel(n_gpus=N)), str(file.stopped_by.sel(n_gpus=N).values))
        ck[f"N={N} (n_trials, stopped_by) == replayed rule {(n, sb)}"] = rec == (n, sb)
        for mis in P8.MISREADINGS:
            neg[("cli", N, mis)] = (P8.replay(full[N].ettr.values, budget, **pk, mis=mis)[:2]
                                    == rec, "")  # fmt: skip
    conj = relmc.fit_conjugate(data, n_draws=200, n_chains=2, seed=S)
    for nl, (pp, seed) in {"project seed + 1": (post, S + 1),
                           "conjugate fit (the default --model)": (conj, S)}.items():  # fmt: skip
        o = relmc.project(pp, n_gpus=list(sizes), scenario=sc, n_trials=budget, seed=seed,
                          n_threads=1, keep_trials=True, precision=prec)  # fmt: skip
        b2, m2 = C9.diff_vars(file, o)
        neg[("cli", None, nl)] = (not b2 and not m2, f"{len(b2)} variables differ")
    return ck, neg, {}


# ---------------------------------------------------------------- 4: sweep with a posterior file
def run_sweep(a):
    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    R9.event_fit(a)  # the ninth round's mixture fit, cached as a.out / ev_fit_{draws}.nc
    path = a.out / f"ev_fit_{a.draws}.nc"
    budget = a.budget
    d = dict(seed=a.seed, n_trials=budget, posterior=str(path), quantiles=[0.05, 0.5, 0.95],
             base={"job": {"compute_hours": 24.0}, "policy": {"restart_spread": 2.0}},
             axes={"cluster.n_gpus": [64, 256],
                   "policy.checkpoint_interval": [0.25, 1.0]})  # fmt: skip
    sp0 = SweepSpec.from_dict(d)
    rates = SC.resolve_rates(sp0)
    pv = rates.posterior if hasattr(rates, "posterior") else rates
    names = sorted(pv.data_vars) if isinstance(pv, xr.Dataset) else pv.name
    print(f"resolve_rates: {type(rates).__name__} {names}")
    root = resolve_seed(a.seed)
    full = {}
    for i in range(sp0.n_cells):
        full[i] = relmc.simulate(sp0.scenario(i), rates=rates, n_trials=budget,
                                 seed=SC.cell_seed(a.seed, i), overhead_seed=root,
                                 n_threads=1)  # fmt: skip
    mt = 300
    lo = min(range(sp0.n_cells), key=lambda i: full[i].ettr.values.mean())
    cv = P8.curve(full[lo].ettr.values, budget, mt)
    floor = round(0.5 * (cv[1][1] + cv[2][1]), 6) if len(cv) > 2 else cv[-1][1] + 1e-4
    pr = dict(target_rse=a.rse, hopeless_ettr=floor, min_trials=mt)
    print(f"full runs' mean ETTR {[round(float(full[i].ettr.mean()), 5) for i in full]}; cell "
          f"{lo} curve {[(n, round(c, 5)) for n, c in cv]}; precision {pr}")  # fmt: skip
    spec = SweepSpec.from_dict({**d, "precision": pr})
    cubes = {}
    for lay in ("in process", "2 shards", "2 workers"):
        store = a.out / f"sweep_{lay.replace(' ', '_')}.zarr"
        shutil.rmtree(store, ignore_errors=True)
        t0 = time.time()
        if lay == "2 shards":
            for s in (1, 0):
                relmc.sweep.run_sweep(spec, store, shard=s, shards=2, n_threads=1)
        else:
            relmc.sweep.run_sweep(spec, store, n_threads=1, workers=2 if "workers" in lay else 1)
        cubes[lay] = relmc.sweep.open_sweep(store, load=True)
        print(f"[{lay}] {time.time() - t0:.1f}s; n_trials "
              f"{cubes[lay]['n_trials'].values.tolist()}; stopped_code "
              f"{cubes[lay]['stopped_code'].values.tolist()}")  # fmt: skip
    cube = cubes["in process"]
    for lay in ("2 shards", "2 workers"):
        bad, miss = C9.diff_vars(cube, cubes[lay])
        ck[f"[{lay}] every cube variable == in process (bit)"] = not bad and not miss
        print(f"  [{lay}] differing {bad}; missing {miss}")
    prec = relmc.Precision(**pr)
    pk = dict(tse=None, trse=a.rse, hopeless=floor, min_trials=mt)
    code = {"n_trials": 0, "target": 1, "hopeless": 2}
    for i in range(spec.n_cells):
        idx = np.unravel_index(i, spec.shape)
        sel = dict(zip(spec.dims, idx, strict=True))
        cell = cube.isel(sel)
        n, sb, _ = P8.replay(full[i].ettr.values, budget, **pk)
        rn, rc = int(cell["n_trials"]), int(cell["stopped_code"])
        print(f"  cell {i} {sel}: recorded {rn} / {rc}; replayed {n} {sb}")
        ck[f"cell {i} (n_trials, stopped_code) == replayed rule"] = (rn, rc) == (n, code[sb])
        P = relmc.simulate(spec.scenario(i), rates=rates, n_trials=budget,
                           seed=SC.cell_seed(a.seed, i), overhead_seed=root, n_threads=1,
                           precision=prec)  # fmt: skip
        S = SC.summarize_cell(P, spec.quantiles)
        bad = [v for v in S.data_vars
               if v in cell.data_vars and not bit(S[v].values, cell[v].values)]  # fmt: skip
        ck[f"cell {i} every variable == summarize_cell(simulate(precision)) (bit)"] = not bad
        if bad:
            print(f"   differing {bad}")
        for mis in P8.MISREADINGS:
            neg[("sweep", i, mis)] = (P8.replay(full[i].ettr.values, budget, **pk, mis=mis)[0]
                                      == rn, "")  # fmt: skip
        for lab, rr in (("no posterior (point rates)", None),
                        ("rate only (physics rows dropped)", pv["rate"])):  # fmt: skip
            Q = relmc.simulate(spec.scenario(i), rates=rr, n_trials=budget,
                               seed=SC.cell_seed(a.seed, i), overhead_seed=root, n_threads=1,
                               precision=prec)  # fmt: skip
            em = SC.summarize_cell(Q, spec.quantiles)["ettr_mean"].values
            dm = float(em - cell["ettr_mean"])
            neg[("sweep", i, lab)] = (bit(em, cell["ettr_mean"].values), f"ettr_mean diff {dm:.3g}")
    return ck, neg, {}


# ---------------------------------------------------------------- 2: the mixture fit, precision
def run_mix(a):
    """fit_events(nodes="mixture") thinned to 2 draws through project(precision) vs run_r5."""
    import arviz as az
    from indep_nodes import ncat, node_spec

    ck, neg, comp = {}, {}, {}
    fe = R9.event_fit(a)
    post = fe.posterior
    print(f"record: n_gpus {post['rate'].attrs.get('n_gpus')}, clock "
          f"{post['rate'].attrs.get('exposure_clock')}; model_terms "
          f"{post.attrs.get('model_terms')}")  # fmt: skip
    spec = node_spec(W=a.hours, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, lemon_k=2,
                     lemon_win=168.0, f=0.05, m=3.0,
                     cats=[ncat("gpu", 0.1, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05, swap=True)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    sc = indep_nodes.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("gpu", "node"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    thin = post.isel(draw=slice(0, 1))
    tid = az.InferenceData(posterior=thin)
    me = M8.Mine(tid, sc)
    fm = me.f()
    bf = thin["bad_node_fraction"].transpose("draw", "chain").values.ravel()
    bm = M8.flat(thin["bad_node_multiplier"])
    nd = 2
    sizes = (64, 256)
    print(f"thin: f {np.round(fm, 5).tolist()}; bad_node_fraction {np.round(bf, 4).tolist()}; "
          f"multiplier {np.round(bm, 3).tolist()}; job rates at 64 "
          f"{np.round(me.lam(64), 4).tolist()}")  # fmt: skip
    prec = relmc.Precision(target_rse=a.rse, min_trials=a.min)
    pk = dict(tse=None, trse=a.rse, hopeless=None, min_trials=a.min)
    root = resolve_seed(a.seed)
    t0 = time.time()
    res = relmc.project(tid, n_gpus=list(sizes), scenario=sc, n_trials=a.budget, seed=a.seed,
                        n_threads=1, keep_trials=True, credible_trials=0,
                        precision=prec)  # fmt: skip
    print(f"project {time.time() - t0:.1f}s: n_trials {res.n_trials.values.tolist()}, "
          f"stopped_by {res.stopped_by.values.tolist()}")  # fmt: skip
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kp = 1 - k if var == "other draw's lemon rows" else k
        L = me.fitted(N)[k] / fm[k]
        s.update(n_gpus=N, f=0.0 if var == "node model ignored" else float(bf[kp]))
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
        for k in range(nd):
            mask = P.draw.values == k
            for j, var in enumerate((None, "node model ignored", "other draw's lemon rows",
                                     "F[k+1]")):  # fmt: skip
                fk = dict(zip(r5_indep.COLS, F[(k + 1) % nd if var == "F[k+1]" else k],
                              strict=True))  # fmt: skip
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep,
                                    5000 * N + 7 * k + 100 * j + 100_000 * a.iseed, F=fk,
                                    node=True)  # fmt: skip
                comp[("mix", N, k, var or "documented")] = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
        print(f"  N={N}: {int(mask.sum())} kept trials of draw 1; mean nodes_excluded_bad "
              f"{float(P.nodes_excluded_bad.mean()):.4f}")  # fmt: skip
    return ck, neg, comp


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("cred", "mix", "cli", "sweep"))
    ap.add_argument("--part", choices=("fleet", "node"), help="cred: one posterior only")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--ct", type=int, default=4000, help="credible trials")
    ap.add_argument("--m", type=int, default=1000, help="trials per draw")
    ap.add_argument("--n-indep", type=int, default=1500)
    ap.add_argument("--budget", type=int, default=8192)
    ap.add_argument("--rse", type=float, default=0.002, help="sweep: target_rse")
    ap.add_argument("--min", type=int, default=2048, help="mix: min_trials")
    ap.add_argument("--hours", type=float, default=72.0, help="mix: compute hours")
    ap.add_argument("--draws", type=int, default=100, help="fits: draws per chain")
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r11"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.ct, a.m, a.n_indep, a.budget, a.draws = 800, 200, 100, 1024, 50
    a.out.mkdir(parents=True, exist_ok=True)
    tag = f"{a.mode}_{a.part}_{a.seed}_{a.ct}_{a.m}_{a.n_indep}_{a.budget}_{a.iseed}"
    log_to(a.out, f"log_r11_{tag}.txt")
    print(f"r11_proj {a.mode} part {a.part} seed {a.seed} ct {a.ct} m {a.m} indep {a.n_indep} "
          f"budget {a.budget} iseed {a.iseed}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    ck, neg, comp = dict(cred=run_cred, mix=run_mix, cli=run_cli, sweep=run_sweep)[a.mode](a)
    R10.report(ck, neg, comp, a.mode, t0, a.out / f"res_r11_{tag}.pkl")


if __name__ == "__main__":
    main()
