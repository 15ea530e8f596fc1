"""Eighteenth round: straggler and SDC categories with the node model in a sweep on a
posterior file (axes over a fixed SDC latency and the checkpoint retention); ``[failures]``
lemon fields beside a mixture event fit whose per-draw lemon rows replace them, and planned
maintenance recorded by an event fit; ``relmc sweep submit`` with ``--max-parallel``, with the
spec's ``[slurm]`` table, with a task killed mid-run and recovered, and a ``[precision]`` spec
with more tasks than cells still to do.

Written from the documents only: the contract (``relmc.sim``: "Stragglers and silent data
corruption" and its resolution 10, "Nodes", "Physics parameters per draw"), ``simulate``'s
docstring (the ``UnreadFieldWarning`` "for each diurnal, trend or lemon field the scenario
sets ... that ``rates``' per-draw parameters replace"), ``replaced_physics_notes``' and
``physics_draws``' ("a category the posterior lacks takes the scenario's own value (for
``bad_node_multiplier``, the category's or else the model's)"), ``fit_events``' ("Attrs: ...
the data's record"), ``load_events``', ``relmc.datasets``' schema (``maintenance_count``
optional), ``FailureModel.from_posterior``' ("Planned maintenance defaults to the rate the
fitted data recorded (``posterior.attrs["maintenance_rate"]``)"), ``default_scenario``',
``maintenance_rate``', ``relmc simulate --help``, the sweep template
(``relmc/templates/sweep.toml``: "straggler or SDC tables of new names are added to them";
``[slurm]`` ``array``, ``max_parallel``), ``SweepSpec``', ``SlurmOptions``' (``max_parallel``:
"``--array=0-N%M``"), ``run_sweep``', ``status``' / ``SweepStatus``', ``relmc.sweep``'s module
docstring ("Crash safety": "a process killed at any moment (SIGKILL, preemption, a requeued
Slurm task) ..."; "Claims"), ``relmc.sweep.submit``' ("On a partly done store the array's
tasks share the cells missing at submission (at most one task a cell)"; "a failed task raises
a ``RuntimeError`` naming the job, its task logs and the store"), ``relmc sweep submit
--help``, ``relmc sweep run --help``, ``relmc sweep status --help`` and the README's
"Reliability promises" and sweep sections. Source bodies, ``_kernels*.py``,
``reference.py``, ``inputs.py`` and ``tests/`` not read. No new simulator: the node trials
with stragglers and SDC ``r5_indep.run_r5(node=True)`` (``indep_nodes_phys`` with relmc's
readings A1, A2, A6), Lambda(N) and f ``r8_mttf.Mine``, the command line ``r9_cli.cli`` /
``diff_vars`` and ``r17_proj.cli_err`` / ``ff_case``, the mixture fit ``r9_proj.event_fit``,
the counts ``r15_proj.counts_csv``, the node spec ``r17_proj._node_spec_of`` /
``_policy_diff``, ``r16_proj.sweep_cli`` / ``api_cube``, the report ``r10_proj.report``
through ``r10_proj.mode_main``.

Modes:

nodesweep  (1) a conjugate fit of the fifteenth round's counts (wall clock, 24 GPUs, 500 h)
           cut to one draw of each chain as the spec's ``posterior`` file; ``[base]`` 64 GPUs,
           24 h, a finite pool (4 spares, 4-h repairs), a standby, preemption, lemons 0.1 x 6
           excluded after 2 failures in 12 h, gpu named (detection 0.1 h), a straggler
           ``slow`` and an SDC ``silent`` (fixed latency) added by new names, swap recovery;
           axes ``failures.categories.silent.sdc_latency_hours`` 1 / 4 x
           ``policy.checkpoint_retention`` 2 / 8; ``keep_trials``: ``relmc sweep run`` in 1
           shard, 2 shards, 2 workers = the API's ``run_sweep`` (bit); each cell =
           ``summarize_cell(simulate(spec.scenario(i), rates=file, seed=cell_seed,
           overhead_seed=root))`` and its kept trials = that ``simulate``'s (bit); each cell
           and draw vs ``run_r5(node=True)``; negatives the mirror cell, seed + 1 (bit);
           stragglers ignored, SDC ignored, exponential latency, node model ignored.
eventlemon (2) the ninth round's mixture event fit (one draw of each chain) beside a TOML
           whose ``[failures]`` sets ``bad_node_fraction`` 0.3 / ``bad_node_multiplier`` 3
           (and maintenance): the ``UnreadFieldWarning`` (API, command's stderr) names the
           two, ``relmc simulate TOML --posterior F`` = the API (bit), the TOML's lemon fields
           change nothing (bit), the trials per draw follow the posterior's lemons (negative:
           the TOML's); the same with a straggler added (which multiplier it takes, and
           whether the warning says so); a mixture fit of a log carrying
           ``maintenance_count``: the recorded rate, used by ``relmc simulate`` without
           ``maintenance_rate`` (rate, bit, trials; negative: maintenance 0).
submitplus (3) ``relmc sweep submit --max-parallel 1`` (the script's ``%1``, at most one task
           running, the cube = in-process ``run_sweep``), the ``[slurm]`` table's ``array``
           instead of ``--array`` (the same checks; two tasks at once: the control of the
           first), ``scancel`` of one array task mid-run and ``relmc sweep submit`` again on
           the partly done store, SIGKILL of a task's process and ``relmc sweep run`` on the
           store: each final cube = in process (bit), nothing recomputed, nothing lost; a
           ``[precision]`` spec on a store with 2 of 6 cells left and ``--array 5``.

    taskset -c 1 python benchmarks/outside_physics/r18_proj.py MODE [--seed S] [--n-indep N]
        [--n-sim N] [--iseed I] [--smoke] [--out DIR]

The independent seeds depend on the cell / draw / variant and ``--iseed``, not on ``--seed``;
fits are cached in ``--out`` and do not depend on ``--seed``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

import relmc
from relmc._seed import resolve_seed
from relmc.projection import default_scenario
from relmc.rates import job_rates, maintenance_rate, rate_draws

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_mttf as M8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
import r10_proj as R10  # noqa: E402
import r15_proj as R15  # noqa: E402
import r16_proj as R16  # noqa: E402
import r17_proj as R17  # noqa: E402
from indep_nodes import ncat  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")


def _thin(a, idata, name):
    """``idata``'s posterior cut to its first draw of each chain, written once as ``name``."""
    import arviz as az

    pf = a.out / name
    if not pf.exists():
        az.InferenceData(posterior=idata.posterior.isel(draw=slice(0, 1))).to_netcdf(pf)
    return pf


def _added(sc, var=None):
    """``ncat``s of the straggler / SDC categories of ``sc`` (unit job: rate = job rate; no
    multiplier of their own: the model's); ``var`` drops or misreads one."""
    out = []
    for c in sc.failures.categories:
        sw = c.recovery == "swap"
        if c.kind == "straggler" and var != "stragglers ignored":
            out.append(ncat(c.name, c.rate, kind="straggler", detect=c.detection_hours, swap=sw,
                            speed=c.straggler_speed))  # fmt: skip
        elif c.kind == "sdc" and var != "SDC ignored":
            exp = c.sdc_latency_distribution == "exponential"
            out.append(ncat(c.name, c.rate, kind="sdc", detect=c.detection_hours, swap=sw,
                            sdc_L=c.sdc_latency_hours,
                            sdc_exp=exp != (var == "exponential SDC latency")))  # fmt: skip
    return out


def _cat_diff(spec, sc):
    """Straggler / SDC fields of ``sc`` that the scenario the independent ``spec`` builds does
    not hold."""
    mine = {c.name: c for c in indep_nodes.build_relmc(spec).failures.categories}
    out = []
    for c in sc.failures.categories:
        if c.kind == "failure":
            continue
        m = mine.get(c.name)
        for f in ("kind", "rate", "unit", "detection_hours", "recovery", "straggler_speed",
                  "sdc_latency_hours", "sdc_latency_distribution", "bad_node_multiplier",
                  "domain", "diagnosis_hours"):  # fmt: skip
            if m is None or getattr(m, f) != getattr(c, f):
                out.append(f"{c.name}.{f}")
    return out


# ---------------------------------------------------------------- 1: nodes + straggler + SDC sweep
NCATS = (
    dict(name="slow", kind="straggler", rate=0.06, unit="job", detection_hours=1.0,
         recovery="swap", straggler_speed=0.5),
    dict(name="silent", kind="sdc", rate=0.05, unit="job", recovery="swap",
         sdc_latency_hours=1.0, sdc_latency_distribution="fixed"),
)  # fmt: skip
NAXES = {"failures.categories.silent.sdc_latency_hours": [1.0, 4.0],
         "policy.checkpoint_retention": [2, 8]}  # fmt: skip
NPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2,
            n_spares=4, repair_hours=4.0, n_standbys=1, preemption_hours=0.1, lemon_failures=2,
            lemon_window_hours=12.0)  # fmt: skip
NFM = dict(bad_node_fraction=0.1, bad_node_multiplier=6.0)
NN, NW = 64, 24.0


def conj_file(a):
    """The fifteenth round's counts on the wall clock (24 GPUs, 500 h), ``fit_conjugate`` (2 x
    50 draws, seed 1), one draw of each chain, as a file."""
    pf = a.out / "conj18_thin.nc"
    if not pf.exists():
        data = relmc.load_counts(str(R15.counts_csv(a)), n_gpus=24, duration_hours=500.0)
        conj = relmc.fit_conjugate(data, n_draws=50, n_chains=2, seed=1)
        _thin(a, conj, pf.name)
    return pf


def _tv(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)


def ns_toml(a, pf, seed):
    toml = a.out / f"nodesweep18_{seed}_{a.n_sim}.toml"
    toml.write_text(
        f'seed = {seed}\nn_trials = {a.n_sim}\nposterior = "{pf}"\nkeep_trials = true\n'
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/nodesweep18_default.zarr"\n\n[base]\n'
        f"cluster.n_gpus = {NN}\njob.compute_hours = {NW}\n"
        + "".join(f"policy.{k} = {_tv(v)}\n" for k, v in NPOL.items())
        + "\n[base.failures]\n" + "".join(f"{k} = {v}\n" for k, v in NFM.items())
        + '\n[[base.failures.categories]]\nname = "gpu"\ndetection_hours = 0.1\n'
        + "".join("\n[[base.failures.categories]]\n"
                  + "".join(f"{k} = {_tv(v)}\n" for k, v in c.items()) for c in NCATS)
        + "\n[axes]\n" + "".join(f'"{k}" = {v}\n' for k, v in NAXES.items())
    )  # fmt: skip
    return toml


def ns_scen(d0, L, K):
    """My cell scenario: the file's categories with gpu's detection 0.1 h, then the straggler
    and the SDC (latency ``L``), the [base] fields, retention ``K``."""
    sc = R6.at_size(R9.with_compute(d0, NW), NN)
    cats = tuple(dataclasses.replace(c, detection_hours=0.1) if c.name == "gpu" else c
                 for c in sc.failures.categories)  # fmt: skip
    cats += tuple(relmc.Category(**{**c, "sdc_latency_hours": L} if c["kind"] == "sdc" else c)
                  for c in NCATS)  # fmt: skip
    fm = dataclasses.replace(sc.failures, categories=cats, **NFM)
    pol = dataclasses.replace(sc.policy, **NPOL, checkpoint_retention=K)
    return dataclasses.replace(sc, failures=fm, policy=pol)


def ns_spec(sc, me, k, var=None):
    """``run_r5(node=True)`` spec of cell scenario ``sc`` at draw ``k`` (fitted rates over f,
    the added straggler / SDC at their scenario rates); ``var`` a misreading."""
    s = R17._node_spec_of(sc, me, sc.cluster.n_gpus, k)
    pol = sc.policy
    s.update(repair_h=pol.repair_hours, n_standbys=pol.n_standbys,
             preempt_h=pol.preemption_hours, K=pol.checkpoint_retention)  # fmt: skip
    s["cats"] = s["cats"] + _added(sc, var)
    if var == "node model ignored":  # a finite pool of spares and exponential repairs alone
        s.update(f=0.0, n_standbys=0, preempt_h=0.0, lemon_k=0)
    return s


def run_nodesweep(a):
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    S = a.seed
    root = resolve_seed(S)
    pf = conj_file(a)
    idata = az.from_netcdf(pf)
    d0 = default_scenario(idata)
    print(f"file: record n_gpus {idata.posterior['rate'].attrs.get('n_gpus')}, clock "
          f"{idata.posterior['rate'].attrs.get('exposure_clock')}; default categories "
          f"{[(c.name, c.unit, c.recovery, c.detection_hours) for c in d0.failures.categories]}"
          f"; maintenance {d0.failures.maintenance_rate}")  # fmt: skip
    toml = ns_toml(a, pf, S)
    sp = SweepSpec.from_toml(toml)
    grid = list(np.ndindex(*sp.shape))
    print(f"spec: dims {sp.dims}, shape {sp.shape}")
    for i, idx in enumerate(grid):
        want = ns_scen(d0, *(v[j] for v, j in zip(NAXES.values(), idx, strict=True)))
        got = sp.scenario(i)
        ck[f"cell {i} spec.scenario == my scenario (file's categories, gpu changed, slow and "
           "silent added, [base] node fields, the axes)"] = got == want  # fmt: skip
        if got != want:
            gd, wd = got.to_dict(), want.to_dict()
            for k in gd:
                if R15._js(gd[k]) != R15._js(wd.get(k)):
                    print(f"    cell {i} [{k}] spec {R15._js(gd[k])[:1200]}\n"
                          f"      mine {R15._js(wd.get(k))[:1200]}")  # fmt: skip
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        relmc.simulate(sp.scenario(3), rates=idata, n_trials=256, seed=S, n_threads=1)
    uw = R17._unread(w)
    ck["simulate(cell 3): no UnreadFieldWarning (every field set is read)"] = not uw
    if uw:
        print(f"  warnings: {uw}")
    t0 = time.time()
    cube = R16.api_cube(a, sp, f"nodesweep18_api_{S}")
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    print(
        f"API run_sweep {time.time() - t0:.1f}s; {len(cube.data_vars)} variables, {len(tv)} "
        f"with a trial dim; mean ETTR {np.round(cube['ettr_mean'].values, 4).tolist()}"
    )
    me = M8.Mine(idata, sp.scenario(0))
    fm = me.f()
    nd = len(fm)
    print(f"  my f {np.round(fm, 5).tolist()}; fitted job rates at {NN} over f "
          f"{np.round(me.fitted(NN) / fm[:, None], 4).tolist()}")  # fmt: skip
    shown = ("events", "int_slow", "int_silent", "lost_straggler", "sdc_rollbacks",
             "sdc_from_scratch", "nodes_excluded_bad", "standby_swaps", "repairs_auto",
             "pool_occupancy")  # fmt: skip
    variants = (None, "stragglers ignored", "SDC ignored", "exponential SDC latency",
                "node model ignored")  # fmt: skip
    ems = {}
    for i, idx in enumerate(grid):
        cell = cube.isel(dict(zip(sp.dims, idx, strict=True)))
        sc = sp.scenario(i)
        t1 = time.time()
        P = relmc.simulate(sc, rates=idata, n_trials=a.n_sim, seed=SC.cell_seed(S, i),
                           overhead_seed=root, n_threads=1)  # fmt: skip
        Sm = SC.summarize_cell(P, sp.quantiles)
        bad = [v for v in Sm.data_vars
               if v in cell.data_vars and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
        ck[f"cell {i} every summary == summarize_cell(simulate(rates=file, cell_seed)) (bit)"] = (
            not bad)  # fmt: skip
        badt = [v for v in tv if v not in P or not bit(P[v].values, cell[v].values)]
        ck[f"cell {i} every kept per-trial variable == simulate's (bit)"] = not badt
        if bad or badt:
            print(f"  cell {i}: summaries differing {bad}; trial variables differing {badt}")
        ems[i] = Sm["ettr_mean"].values
        jr = job_rates(sc, rate_draws(sc, idata))
        ck[f"cell {i} job_rates == my Lambda + the added rates (rel)"] = float(
            np.abs(jr / me.lam(NN, fixed=True) - 1).max())  # fmt: skip
        s0 = ns_spec(sc, me, 0)
        dif = R17._policy_diff(s0, sc) + _cat_diff(s0, sc)
        ck[f"cell {i} indep spec's policy / job / failure model / added categories == the "
           "cell's"] = not dif  # fmt: skip
        if dif:
            print(f"    cell {i}: indep spec differs in {dif}")
        t = indep_nodes.relmc_table(P, s0)
        print(f"  cell {i} {sp.cell_values(i)}: ETTR {float(cell['ettr_mean']):.4f}, finished "
              f"{float(P.finished.mean()):.3f} ({time.time() - t1:.1f}s)")  # fmt: skip
        for k in range(nd):
            mask = P.draw.values == k
            for j, var in enumerate(variants):
                if var is not None and k:
                    continue  # the misreadings on draw 0 only
                b = r5_indep.run_r5(ns_spec(sc, me, k, var), a.n_indep,
                                    18100 + 101 * i + 7 * k + 1000 * j + 100_000 * a.iseed,
                                    F=None, node=True)  # fmt: skip
                if var is None:
                    print(f"    d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
                comp[("nodesweep", i, k, var or "documented")] = r4_run.compare_tables(
                    f"cell {i} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0,
                    quiet=True,
                )  # fmt: skip
    R16.mirror_negatives("nodesweep", sp.n_cells, ems, neg)
    R16.cli_layouts(a, toml, cube, "nodesweep18", ck)
    t2 = ns_toml(a, pf, S + 1)
    R16.seed_negative(a, t2, cube, "nodesweep18", "nodesweep", neg)
    return ck, neg, comp


# ---------------------------------------------------------------- 2: lemon rows, maintenance record
EN, EW = 256, 24.0
EPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2,
            lemon_failures=2, lemon_window_hours=24.0)  # fmt: skip
ELEM = dict(bad_node_fraction=0.3, bad_node_multiplier=3.0)
EMNT = dict(maintenance_rate=0.05, maintenance_hours=0.5)
ESLOW = dict(name="slow", kind="straggler", rate=0.2, unit="job", detection_hours=1.0,
             recovery="swap", straggler_speed=0.5)  # fmt: skip
M_EV = 30  # planned events in the maintenance log's 1,500-h window: 0.02 / h


def ev_toml(fields, slow=False):
    return (f"[cluster]\nn_gpus = {EN}\n\n[job]\ncompute_hours = {EW}\n\n[policy]\n"
            + "".join(f"{k} = {v}\n" for k, v in EPOL.items())
            + "\n[failures]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items())
            + '\n[[failures.categories]]\nname = "gpu"\nrecovery = "swap"\n'
            "detection_hours = 0.1\n"
            + ("\n[[failures.categories]]\n" + "".join(f"{k} = {_tv(v)}\n"
                                                       for k, v in ESLOW.items())
               if slow else ""))  # fmt: skip


def ev_scen(d0, fields, slow=False):
    sc = R6.at_size(R9.with_compute(d0, EW), EN)
    cats = tuple(dataclasses.replace(c, recovery="swap", detection_hours=0.1)
                 if c.name == "gpu" else c for c in sc.failures.categories)  # fmt: skip
    if slow:
        cats += (relmc.Category(**ESLOW),)
    fm = dataclasses.replace(sc.failures, categories=cats, **fields)
    return dataclasses.replace(sc, failures=fm, policy=dataclasses.replace(sc.policy, **EPOL))


def maint_fit(a):
    """A log with lemons and ``maintenance_count`` (30 in 1,500 h), fitted with
    ``nodes="mixture"`` (cached in --out)."""
    import arviz as az

    path = a.out / "evm18_fit.nc"
    if path.exists():
        return az.from_netcdf(path)
    ev = relmc.events.synthetic_events(
        {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=256, duration_hours=1500.0,
        units={"gpu": "gpu", "net": "node"}, bad_node_fraction=0.1, bad_node_multiplier=8.0,
        seed=2,
    )  # fmt: skip
    ev["maintenance_count"] = xr.DataArray(np.int64(M_EV))
    t0 = time.time()
    fe = relmc.fit_events(ev, nodes="mixture", n_draws=100, n_tune=300, n_chains=2, cores=1,
                          seed=1)  # fmt: skip
    print(f"maintenance log: counts {ev['count'].values.tolist()}, bad nodes "
          f"{ev.attrs['n_bad_nodes']}; fit_events {time.time() - t0:.1f}s")  # fmt: skip
    fe.to_netcdf(path)
    return fe


def _lemons(post):
    return (post["bad_node_fraction"].transpose("draw", "chain").values.ravel(),
            M8.flat(post["bad_node_multiplier"]))  # fmt: skip


def ev_spec(sc, me, k, f=None, mult=None, slow_m=None, maint=None):
    """``run_r5(node=True)`` spec of ``sc`` at draw ``k``: fraction ``f`` and the fit
    categories' multipliers ``mult`` (None: the scenario's), the straggler's ``slow_m``
    (None: the model's), maintenance per wall-clock hour ``maint`` (None: the scenario's)."""
    s = R17._node_spec_of(sc, me, EN, k)
    if f is not None:
        s["f"] = float(f)
    if mult is not None:
        for c, x in zip(s["cats"], mult, strict=True):
            c["mult"] = float(x)
    if maint is not None:
        s["maint_rate"] = maint / me.f().mean() if me.wall else maint
    add = _added(sc)
    for c in add:
        c["mult"] = None if slow_m is None else float(slow_m)
    s["cats"] = s["cats"] + add
    return s


def _rekey(neg, lab):
    """``r17_proj.ff_case`` files its negatives under "failfields": this round's mode name."""
    for k in [k for k in neg if k[0] == "failfields" and k[1] == lab]:
        neg[("eventlemon", *k[1:])] = neg.pop(k)


def ev_case(a, lab, text, pf, ss, idata, ck, neg, negs):
    P, err, uw = R17.ff_case(a, lab, text, pf, ss, idata, ck, neg, negs)
    _rekey(neg, lab)
    wl = [x for x in err.splitlines() if "warning" in x.lower()]
    print(f"  [{lab}] API UnreadFieldWarning: {uw}\n  [{lab}] command's warnings: {wl}")
    return P, wl, uw


def run_eventlemon(a):
    import arviz as az

    ck, neg, comp = {}, {}, {}
    S = a.seed
    C9.SEED = S
    # (a) the mixture fit's lemon rows beside the TOML's lemon fields
    ev = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    pf = _thin(a, ev, "mix18_thin.nc")
    idata = az.from_netcdf(pf)
    bf, bm = _lemons(idata.posterior)
    d0 = default_scenario(idata)
    print(f"mixture fit: bad fraction per draw {np.round(bf, 4).tolist()}, multipliers "
          f"{np.round(bm, 3).tolist()}; record n_gpus "
          f"{idata.posterior['rate'].attrs.get('n_gpus')}; maintenance "
          f"{d0.failures.maintenance_rate}; categories "
          f"{[(c.name, c.unit, c.recovery) for c in d0.failures.categories]}")  # fmt: skip
    fields = {**ELEM, **EMNT}
    ss = ev_scen(d0, fields)
    nolem = ev_scen(d0, EMNT)
    negs = {"API the TOML's maintenance ignored": ev_scen(d0, ELEM),
            "API rate_array(file): rates without the lemon rows": None}  # fmt: skip
    P, wl, uw = ev_case(a, "lemon", ev_toml(fields), pf, ss, idata, ck, neg,
                        {k: v for k, v in negs.items() if v is not None})  # fmt: skip
    for fld in ELEM:
        ck[f"[lemon] API UnreadFieldWarning names {fld}"] = any(fld in x for x in uw)
        ck[f"[lemon] the command's stderr names {fld}"] = any(fld in x for x in wl)
    ck["[lemon] no warning names the maintenance fields (they are read)"] = not any(
        f in x for f in EMNT for x in uw + wl)  # fmt: skip
    if P is None:
        return ck, neg, comp
    Q = relmc.simulate(nolem, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
    b2, _ = C9.diff_vars(P, Q)
    ck["[lemon] the TOML's lemon fields change nothing: API without them == the file (bit)"] = (
        not b2)  # fmt: skip
    Q = relmc.simulate(ss, rates=relmc.rates.rate_array(idata), n_trials=a.n_sim, seed=S,
                       n_threads=1)  # fmt: skip
    b2, _ = C9.diff_vars(P, Q)
    neg[("eventlemon", "lemon", "API rate_array(file): rates without the lemon rows")] = (
        not b2, f"{len(b2)} of {len(P.data_vars)} differ")  # fmt: skip
    me = M8.Mine(idata, ss)
    fm = me.f()
    dr = rate_draws(ss, idata)
    ck["[lemon] job_rates == my Lambda (rel)"] = float(np.abs(job_rates(ss, dr) / me.lam(EN)
                                                              - 1).max())  # fmt: skip
    ck["[lemon] maintenance_rate == TOML's / mean f (rel)"] = abs(
        maintenance_rate(ss, dr) / (EMNT["maintenance_rate"] / fm.mean()) - 1)  # fmt: skip
    ph = dr.physics
    ck["[lemon] physics_draws lemon rows == the file's"] = bit(ph.bad_node_fraction, bf) and bit(
        np.asarray(ph.bad_node_multiplier)[:, : bm.shape[1]], bm)  # fmt: skip
    s0 = ev_spec(ss, me, 0, bf[0], bm[0])
    dif = R17._policy_diff(s0, ss, skip=("maintenance_rate", *ELEM))
    ck["[lemon] indep spec's policy / job / failure model == my scenario's"] = not dif
    if dif:
        print(f"    indep spec differs in {dif}")
    print(f"  my f {np.round(fm, 5).tolist()}; job rates {np.round(me.lam(EN), 4).tolist()}")
    shown = ("events", "int_gpu", "int_net", "nodes_excluded_bad", "nodes_excluded_good",
             "maintenance_events")  # fmt: skip
    t = indep_nodes.relmc_table(P, s0)
    for k in range(len(bf)):
        mask = P.draw.values == k
        for j, var in enumerate((None, "the TOML's lemon values")):
            s = ev_spec(ss, me, k) if var else ev_spec(ss, me, k, bf[k], bm[k])
            b = r5_indep.run_r5(s, a.n_indep, 18300 + 7 * k + 100 * j + 100_000 * a.iseed,
                                F=None, node=True)  # fmt: skip
            if var is None:
                print(f"    d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
            comp[("lemon", EN, k, var or "documented")] = r4_run.compare_tables(
                f"lemon d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0, quiet=True
            )
    # (b) the same with a straggler the posterior lacks (no multiplier of its own)
    sst = ev_scen(d0, fields, slow=True)
    P, wl, uw = ev_case(
        a,
        "lemon_slow",
        ev_toml(fields, slow=True),
        pf,
        sst,
        idata,
        ck,
        neg,
        {"API the TOML's maintenance ignored": ev_scen(d0, ELEM, slow=True)},
    )
    ck["[lemon_slow] API UnreadFieldWarning names bad_node_fraction"] = any(
        "bad_node_fraction" in x for x in uw)  # fmt: skip
    nm = [x for x in uw if "bad_node_multiplier" in x]
    ck["[lemon_slow] the bad_node_multiplier note says the model's value applies to 'slow' (it "
       "is read there: physics_draws)"] = bool(nm) and all(
        "'slow'" in x and "is not used" not in x for x in nm)  # fmt: skip
    print(f"  [lemon_slow] bad_node_multiplier named as replaced: API "
          f"{any('bad_node_multiplier' in x for x in uw)}, command "
          f"{any('bad_node_multiplier' in x for x in wl)}")  # fmt: skip
    if P is None:
        return ck, neg, comp
    Q = relmc.simulate(ev_scen(d0, {**fields, "bad_node_multiplier": 1.0}, slow=True),
                       rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)  # fmt: skip
    b2, _ = C9.diff_vars(P, Q)
    print(f"  [lemon_slow] API with the model's bad_node_multiplier 1 for 3: {len(b2)} of "
          f"{len(P.data_vars)} variables differ")  # fmt: skip
    ck["[lemon_slow] the model's bad_node_multiplier is read (1 for 3 changes the result)"] = bool(
        b2)  # fmt: skip
    shown = ("events", "int_slow", "lost_straggler", "int_gpu", "nodes_excluded_bad",
             "nodes_excluded_good", "repairs_auto")  # fmt: skip
    s0 = ev_spec(sst, me, 0, bf[0], bm[0])
    dif = _cat_diff(s0, sst)
    ck["[lemon_slow] indep spec's straggler == the scenario's"] = not dif
    t = indep_nodes.relmc_table(P, s0)
    for k in range(len(bf)):
        mask = P.draw.values == k
        for j, var in enumerate((None, "reading: the straggler takes the draw's multiplier",
                                 "the TOML's lemon values")):  # fmt: skip
            if var is None:
                s = ev_spec(sst, me, k, bf[k], bm[k])
            elif var.startswith("reading"):
                s = ev_spec(sst, me, k, bf[k], bm[k], slow_m=bm[k, 0])
            else:
                s = ev_spec(sst, me, k)
            b = r5_indep.run_r5(s, a.n_indep, 18400 + 7 * k + 100 * j + 100_000 * a.iseed,
                                F=None, node=True)  # fmt: skip
            if var is None:
                print(f"    d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
            comp[("lemon_slow", EN, k, var or "documented")] = r4_run.compare_tables(
                f"lemon_slow d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0, quiet=True
            )
    # (c) planned maintenance recorded by an event fit
    fe = maint_fit(a)
    rec = fe.posterior.attrs.get("maintenance_rate")
    print(f"maintenance fit: posterior attrs maintenance_rate {rec}; rate attrs "
          f"{fe.posterior['rate'].attrs.get('maintenance_rate')}")  # fmt: skip
    ck[f"event fit of a log with maintenance_count {M_EV} in 1,500 h records maintenance_rate "
       f"{M_EV / 1500}"] = rec is not None and abs(float(rec) - M_EV / 1500) < 1e-12  # fmt: skip
    pm = _thin(a, fe, "evm18_thin.nc")
    im = az.from_netcdf(pm)
    dm = default_scenario(im)
    ck["default_scenario(file): maintenance_rate == the record"] = (
        rec is not None and dm.failures.maintenance_rate == float(rec))  # fmt: skip
    sm = ev_scen(dm, {"maintenance_hours": EMNT["maintenance_hours"]})
    P, wl, uw = ev_case(
        a, "maint_record", ev_toml({"maintenance_hours": EMNT["maintenance_hours"]}), pm, sm,
        im, ck, neg, {"API maintenance 0": ev_scen(dm, {"maintenance_rate": 0.0,
                                                        "maintenance_hours": 0.5})})  # fmt: skip
    ck["[maint_record] no UnreadFieldWarning"] = not uw and not wl
    if P is None:
        return ck, neg, comp
    ck["[maint_record] the file's scenario maintenance_rate == the record"] = (
        R15._scen_attr(P)["failures"]["maintenance_rate"] == float(rec))  # fmt: skip
    me = M8.Mine(im, sm)
    fm = me.f()
    dr = rate_draws(sm, im)
    ck["[maint_record] maintenance_rate == record / mean f (rel)"] = abs(
        maintenance_rate(sm, dr) / (float(rec) / fm.mean()) - 1)  # fmt: skip
    ck["[maint_record] job_rates == my Lambda (rel)"] = float(
        np.abs(job_rates(sm, dr) / me.lam(EN) - 1).max())  # fmt: skip
    bf, bm = _lemons(im.posterior)
    print(f"  my f {np.round(fm, 5).tolist()} (the record's maintenance in f); maintenance per "
          f"exposed hour {float(rec) / fm.mean():.5f}; lemons {np.round(bf, 4).tolist()} x "
          f"{np.round(bm, 3).tolist()}")  # fmt: skip
    s0 = ev_spec(sm, me, 0, bf[0], bm[0])
    dif = R17._policy_diff(s0, sm, skip=("maintenance_rate", *ELEM))
    ck["[maint_record] indep spec's policy / job / failure model == my scenario's"] = not dif
    shown = ("events", "maintenance_events", "lost_maintenance", "int_gpu",
             "nodes_excluded_bad")  # fmt: skip
    t = indep_nodes.relmc_table(P, s0)
    for k in range(len(bf)):
        mask = P.draw.values == k
        for j, var in enumerate((None, "maintenance 0")):
            s = ev_spec(sm, me, k, bf[k], bm[k], maint=0.0 if var else None)
            b = r5_indep.run_r5(s, a.n_indep, 18500 + 7 * k + 100 * j + 100_000 * a.iseed,
                                F=None, node=True)  # fmt: skip
            if var is None:
                print(f"    d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
            comp[("maint_record", EN, k, var or "documented")] = r4_run.compare_tables(
                f"maint d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0, quiet=True
            )
    return ck, neg, comp


# ---------------------------------------------------------------- 3: submit: max-parallel, table,
# a killed task, precision
SUB_AXES = {"policy.restart_hours": [0.3, 1.5], "policy.snapshot_hours": [0.01, 0.03, 0.05]}


def py_core1(a):
    """A Python that runs on core 1 (``a.out / python_core1.sh``), for ``--python``: Slurm's
    tasks are not children of this process, so its ``taskset`` does not reach them."""
    py1 = a.out / "python_core1.sh"
    py1.write_text(f'#!/bin/sh\nexec taskset -c 1 {sys.executable} "$@"\n')
    py1.chmod(0o755)
    return py1


def slurm_up():
    """Whether the local Slurm answers with its partition ``debug`` (``sinfo``, printed)."""
    r = subprocess.run(["sinfo", "-h", "-o", "%P %a %D %t"], capture_output=True, text=True)
    print(f"sinfo: {r.stdout.strip()!r}")
    return r.returncode == 0 and "debug" in r.stdout


def sub_toml(a, name, seed, n, W, slurm=None, prec=None):
    """A point-rate spec (one crash category, 6 cells); ``slurm`` / ``prec`` tables."""
    toml = a.out / f"{name}.toml"
    tab = lambda h, d: (f"\n[{h}]\n" + "".join(f"{k} = {_tv(v)}\n" for k, v in d.items())  # noqa: E731
                        if d else "")  # fmt: skip
    toml.write_text(
        f'seed = {seed}\nn_trials = {n}\nposterior = "point"\nquantiles = [0.05, 0.5, 0.95]\n'
        f'store = "{a.out}/{name}_default.zarr"\n\n[base]\ncluster.n_gpus = 64\n'
        f"job.compute_hours = {W}\npolicy.checkpoint_interval = 0.5\n\n"
        '[[base.failures.categories]]\nname = "crash"\nrate = 0.2\nunit = "job"\n\n[axes]\n'
        + "".join(f'"{k}" = {v}\n' for k, v in SUB_AXES.items())
        + tab("slurm", slurm) + tab("precision", prec)
    )  # fmt: skip
    return toml


def _fresh(st):
    for p in (st, Path(f"{st}.slurm")):
        shutil.rmtree(p, ignore_errors=True)


def _squeue(fmt, job, states="RUNNING"):
    r = subprocess.run(["squeue", "-h", "-j", str(job), "-t", states, "-o", fmt],
                       capture_output=True, text=True)  # fmt: skip
    return [x.strip() for x in r.stdout.splitlines() if x.strip()]


class Submission:
    """``relmc sweep submit`` in a subprocess: its job id (read as soon as it is printed), the
    most array tasks seen running at once (``squeue`` every 0.2 s), its output."""

    def __init__(self, args, tag):
        self.cmd = ["relmc", "sweep", "submit", *map(str, args)]
        self.tag, self.t0 = tag, time.time()
        self.p = subprocess.Popen(self.cmd, env=dict(ENV, PYTHONUNBUFFERED="1"), text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        self.job, self.first, self.max_running, self.out = None, "", 0, ""
        line = self.p.stdout.readline()
        self.first = line
        m = re.search(r"job (\d+)", line)
        self.job = m.group(1) if m else None
        self.th = threading.Thread(target=self._watch, daemon=True)
        self.th.start()

    def _watch(self):
        while self.job and self.p.poll() is None:
            self.max_running = max(self.max_running, len(_squeue("%i", self.job)))
            time.sleep(0.2)

    def wait(self):
        out, err = self.p.communicate()
        self.th.join()
        self.out, self.err, self.rc = self.first + out, err, self.p.returncode
        print(
            f"  $ {' '.join(self.cmd)}  [{self.tag}] ({time.time() - self.t0:.1f}s, rc "
            f"{self.rc}); job {self.job}; most tasks running at once {self.max_running}\n"
            f"    stdout: {self.out.strip()[-600:]!r}\n    stderr: {self.err.strip()[-900:]!r}"
        )
        return self


def _wait_gone(job, limit=300):
    t0 = time.time()
    while _squeue("%i", job, "all") and time.time() - t0 < limit:
        time.sleep(0.3)


def _task_logs(st):
    d = Path(f"{st}.slurm")
    logs = sorted(d.glob("*.out")) if d.exists() else []
    txt = {p.name: p.read_text() for p in logs}
    comp = sum(int(m) for t in txt.values() for m in re.findall(r"computed (\d+) cells", t))
    return txt, comp


def _cells(txt):
    """A ``relmc sweep run --cells`` list (``0-3,8``) as a list of cells."""
    out = []
    for part in (txt or "").strip().split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def _dry_run(toml, st, *args):
    """``relmc sweep submit TOML --store ST ARGS... --dry-run`` (the completed process)."""
    return subprocess.run(["relmc", "sweep", "submit", str(toml), "--store", str(st),
                           *map(str, args), "--dry-run"], env=ENV, capture_output=True,
                          text=True)  # fmt: skip


def _script(r):
    """The ``--array`` value and the cell list of a ``--dry-run`` script."""
    arr = re.search(r"#SBATCH --array=(\S+)", r.stdout)
    cl = re.search(r"<<'RELMC_CELLS'\n(.*?)\nRELMC_CELLS", r.stdout, re.S)
    return (arr.group(1) if arr else None), (cl.group(1).strip() if cl else None)


def _status(st, verify=False):
    s = relmc.sweep.status(st, verify=verify)
    return sorted(map(int, s.done)), sorted(map(int, s.missing)), sorted(map(int, s.corrupt))


def _wait_cells(st, owned, limit=240):
    """Poll the store until one of ``owned`` is done (not all of them); the done cells."""
    t0 = time.time()
    while time.time() - t0 < limit:
        try:
            done = set(_status(st)[0])
        except Exception:  # noqa: BLE001 (the store is being created)
            done = set()
        if done & set(owned):
            return sorted(done)
        time.sleep(0.1)
    return None


def _sweep_run(args, tag):
    cmd = ["taskset", "-c", "1", "relmc", "sweep", "run", *map(str, args), "--n-threads", "1",
           "--no-progress"]  # fmt: skip
    t0 = time.time()
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"  $ {' '.join(cmd[3:])}  [{tag}] ({time.time() - t0:.1f}s, rc {r.returncode}): "
          f"{(r.stdout + r.stderr).strip()[-600:]!r}")  # fmt: skip
    return r


def run_submitplus(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    py1 = py_core1(a)
    if not slurm_up():
        print("  no local Slurm partition 'debug': the Slurm checks are skipped")
        ck["local Slurm is up"] = False
        return ck, neg, {}
    n_heavy = 50_000 if not a.smoke else 30_000
    W = 20_000.0  # ~4,600 events a trial: a cell takes a few seconds, so a kill lands mid-run
    sl = dict(partition="debug", time="00:20:00", cpus_per_task=1)
    t_flags = sub_toml(a, f"sub18_flags_{S}", S, n_heavy, W)
    t_table = sub_toml(a, f"sub18_table_{S}", S, n_heavy, W,
                       slurm=dict(array=3, python=str(py1), **sl))  # fmt: skip
    sp = SweepSpec.from_toml(t_flags)
    ck["the [slurm] table is not part of the spec's identity (same sha256)"] = (
        sp.sha256() == SweepSpec.from_toml(t_table).sha256())  # fmt: skip
    cube = R16.inproc_cube(a, sp, "sub18", "submitplus", neg)

    def cmp(lab, st):
        bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        print(f"  [{lab}] differing {bad}; missing {miss}")
        ck[f"[{lab}] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)

    base = ["--partition", "debug", "--cpus-per-task", "1", "--time", "00:20:00", "--python",
            str(py1)]  # fmt: skip
    # (a) --max-parallel
    st = a.out / f"sub18_maxpar_{S}.zarr"
    _fresh(st)
    r = _dry_run(t_flags, st, "--array", 2, "--max-parallel", 1, *base)
    arr = re.search(r"#SBATCH --array=(\S+)", r.stdout)
    print(f"  dry run --array 2 --max-parallel 1: rc {r.returncode}; {arr and arr.group(0)}")
    ck["[max-parallel] dry run: #SBATCH --array=0-1%1, nothing written"] = (
        r.returncode == 0 and arr is not None and arr.group(1) == "0-1%1"
        and not st.exists() and not Path(f"{st}.slurm").exists())  # fmt: skip
    s = Submission([t_flags, "--store", st, "--array", 2, "--max-parallel", 1, *base, "--wait"],
                   "--array 2 --max-parallel 1").wait()  # fmt: skip
    ck["[max-parallel] submit --wait rc == 0"] = s.rc == 0
    ck["[max-parallel] at most one task running at any time (squeue), one seen"] = (
        s.max_running == 1)  # fmt: skip
    logs, nc = _task_logs(st)
    ck["[max-parallel] 2 task logs, cells computed 6 in all"] = len(logs) == 2 and nc == 6
    if s.rc == 0:
        cmp("--max-parallel 1", st)
    # (b) the [slurm] table instead of the flags
    st = a.out / f"sub18_table_{S}.zarr"
    _fresh(st)
    r = _dry_run(t_table, st)
    arr = re.search(r"#SBATCH --array=(\S+)", r.stdout)
    sh = re.search(r"--shards (\d+)", r.stdout)
    opts = re.findall(r"#SBATCH --(?:partition|time|cpus-per-task)=\S+", r.stdout)
    print(f"  dry run from [slurm]: rc {r.returncode}; {arr and arr.group(0)}; shards "
          f"{sh and sh.group(1)}; options {opts}; python {str(py1) in r.stdout}")  # fmt: skip
    ck["[slurm table] dry run: --array=0-2, --shards 3, partition / time from the table, the "
       "table's python"] = (
        r.returncode == 0 and arr is not None and arr.group(1) == "0-2" and sh is not None
        and sh.group(1) == "3" and "#SBATCH --partition=debug" in r.stdout
        and "#SBATCH --time=00:20:00" in r.stdout and str(py1) in r.stdout)  # fmt: skip
    r = _dry_run(t_table, st, "--array", 2)
    arr2 = re.search(r"#SBATCH --array=(\S+)", r.stdout)
    print(f"  (--array 2 beside the table's 3: {arr2 and arr2.group(0)})")
    s = Submission([t_table, "--store", st, "--wait"], "[slurm] array = 3").wait()
    ck["[slurm table] submit --wait rc == 0"] = s.rc == 0
    logs, nc = _task_logs(st)
    ck["[slurm table] 3 task logs, cells computed 6 in all"] = len(logs) == 3 and nc == 6
    neg[("submitplus", None, "control of the max-parallel check: most tasks running at once "
         "without a limit == 1")] = (s.max_running == 1, f"{s.max_running}")  # fmt: skip
    if s.rc == 0:
        cmp("[slurm] array = 3", st)
    # (c) scancel of one array task mid-run, then relmc sweep submit again
    st = a.out / f"sub18_scancel_{S}.zarr"
    _fresh(st)
    s = Submission([t_flags, "--store", st, "--array", 2, *base, "--wait"], "to be cancelled")
    own0 = [i for i in range(sp.n_cells) if i % 2 == 0]
    done_at = _wait_cells(st, own0)
    left = sorted(set(own0) - set(done_at or []))
    t_kill = time.time()
    rk = subprocess.run(["scancel", f"{s.job}_0"], capture_output=True, text=True)
    print(f"  scancel {s.job}_0 (rc {rk.returncode}) with cells {done_at} done; task 0's left "
          f"{left}")  # fmt: skip
    s.wait()
    ck["[scancel] task 0 cancelled mid-run (a cell of its shard done, another not)"] = bool(
        done_at) and bool(left) and rk.returncode == 0  # fmt: skip
    ck["[scancel] submit --wait fails (rc != 0) naming the job and a task log"] = (
        s.rc != 0 and str(s.job) in s.err and ".out" in s.err)  # fmt: skip
    done, miss, corrupt = _status(st, verify=True)
    print(f"  after the cancel ({time.time() - t_kill:.1f}s): done {done}, missing {miss}, "
          f"corrupt {corrupt}")  # fmt: skip
    ck["[scancel] status --verify: task 1's cells done, no corrupt cell, the missing cells "
       "task 0's"] = (
        set(range(1, sp.n_cells, 2)) <= set(done) and not corrupt and bool(miss)
        and set(miss) <= set(own0))  # fmt: skip
    part = relmc.sweep.open_sweep(st, load=True)
    b2, m2 = C9.diff_vars(cube, part)
    neg[("submitplus", "scancel", "the store after the cancel == in-process cube")] = (
        not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ")  # fmt: skip
    r = _dry_run(t_flags, st, "--array", 2, *base)
    arr, cl = _script(r)
    want = {"0", "0-0"} if len(miss) == 1 else {f"0-{min(2, len(miss)) - 1}"}
    print(f"  dry run on the partly done store: --array={arr}; cell list {cl!r}")
    ck["[scancel] dry run again: the array over the missing cells, their list"] = (
        arr in want and cl is not None and _cells(cl) == miss)  # fmt: skip
    shutil.rmtree(Path(f"{st}.slurm"), ignore_errors=True)  # the first job's logs: counted apart
    s = Submission([t_flags, "--store", st, "--array", 2, *base, "--wait"], "again").wait()
    ck["[scancel] submit again --wait rc == 0"] = s.rc == 0
    logs, nc = _task_logs(st)
    ck[f"[scancel] the second array computed the {len(miss)} missing cells, no other"] = (
        nc == len(miss) and len(logs) == min(2, len(miss)))  # fmt: skip
    done, miss2, corrupt = _status(st, verify=True)
    ck["[scancel] status --verify at the end: all done, none corrupt"] = (
        not miss2 and not corrupt and len(done) == sp.n_cells)  # fmt: skip
    if s.rc == 0:
        cmp("scancel, then submit again", st)
    # (d) SIGKILL of a task's process, then relmc sweep run on the store
    st = a.out / f"sub18_sigkill_{S}.zarr"
    _fresh(st)
    s = Submission([t_flags, "--store", st, "--array", 2, *base], "process to be killed").wait()
    done_at = _wait_cells(st, own0)
    jid = _squeue("%A", f"{s.job}_0")
    pids = []
    if jid:
        r = subprocess.run(["scontrol", "listpids", jid[0]], capture_output=True, text=True)
        for ln in r.stdout.splitlines()[1:]:
            pid = ln.split()[0]
            try:
                cmdl = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "sweep run" in cmdl and str(st) in cmdl and "--shard" in cmdl:
                pids.append(int(pid))
    left = sorted(set(own0) - set(done_at or []))
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    print(f"  task 0 (job {jid}): SIGKILL to its relmc process {pids} with cells {done_at} "
          f"done; task 0's left {left}")  # fmt: skip
    ck["[SIGKILL] task 0's process killed mid-run"] = (
        len(pids) == 1 and bool(done_at) and bool(left))  # fmt: skip
    _wait_gone(s.job)
    logs, nc = _task_logs(st)
    done, miss, corrupt = _status(st, verify=True)
    print(f"  after the kill: done {done}, missing {miss}, corrupt {corrupt}; logs "
          f"{ {k: v.strip()[-200:] for k, v in logs.items()} }")  # fmt: skip
    ck["[SIGKILL] status --verify: no corrupt cell, task 0's unfinished cells missing"] = (
        not corrupt and bool(miss) and set(miss) <= set(own0))  # fmt: skip
    t0 = time.time()
    r = _sweep_run([t_flags, "--store", st], "relmc sweep run on the store")
    m = re.search(r"computed (\d+) cells", r.stdout + r.stderr)
    ck["[SIGKILL] relmc sweep run rc == 0, computes only the missing cells, no stale-claim "
       "wait"] = (
        r.returncode == 0 and m is not None and int(m.group(1)) == len(miss)
        and "StaleClaim" not in r.stderr and time.time() - t0 < 120)  # fmt: skip
    done, miss2, corrupt = _status(st, verify=True)
    ck["[SIGKILL] status --verify at the end: all done, none corrupt"] = (
        not miss2 and not corrupt)  # fmt: skip
    cmp("SIGKILL, then relmc sweep run", st)
    # (e) [precision]: more tasks than cells still to do
    prec = dict(target_rse=0.003, min_trials=512)
    t_prec = sub_toml(a, f"sub18_prec_{S}", S, 16384, 24.0, prec=prec)
    spp = SweepSpec.from_toml(t_prec)
    cp = R16.api_cube(a, spp, f"sub18_prec_inproc_{S}")
    print(f"  [precision] in process: n_trials {cp['n_trials'].values.tolist()}, stopped_code "
          f"{cp['stopped_code'].values.tolist()}")  # fmt: skip
    st = a.out / f"sub18_prec_{S}.zarr"
    _fresh(st)
    r = _sweep_run([t_prec, "--store", st, "--cells", "0-3"], "--cells 0-3")
    ck["[precision] relmc sweep run --cells 0-3 rc == 0"] = r.returncode == 0
    done0, miss0, _ = _status(st)
    r = subprocess.run(["relmc", "sweep", "submit", str(t_prec), "--store", str(st), "--array",
                        str(spp.n_cells + 1), *base], env=ENV, capture_output=True,
                       text=True)  # fmt: skip
    print(f"  submit --array {spp.n_cells + 1}: rc {r.returncode}; {r.stderr.strip()[-300:]!r}")
    ck[f"[precision] --array {spp.n_cells + 1} (> {spp.n_cells} cells) refused: rc 2, names "
       "slurm.array, no STORE.slurm, the store as it was"] = (
        r.returncode == 2 and "slurm.array" in r.stderr and not Path(f"{st}.slurm").exists()
        and _status(st)[:2] == (done0, miss0))  # fmt: skip
    r = _dry_run(t_prec, st, "--array", 5, *base)
    arr, cl = _script(r)
    print(f"  [precision] done {done0}, missing {miss0}; dry run --array 5: --array={arr}; "
          f"cells {cl!r}")  # fmt: skip
    ck["[precision] --array 5 with 2 cells left: --array=0-1, the list = cells 4, 5"] = (
        miss0 == [4, 5] and arr == "0-1" and cl is not None and _cells(cl) == [4, 5]
    )
    s = Submission([t_prec, "--store", st, "--array", 5, *base, "--wait"], "precision").wait()
    logs, nc = _task_logs(st)
    ck["[precision] submit --wait rc == 0; 2 task logs, 2 cells computed"] = (
        s.rc == 0 and len(logs) == 2 and nc == 2)  # fmt: skip
    if s.rc == 0:
        bad, miss = C9.diff_vars(cp, relmc.sweep.open_sweep(st, load=True))
        print(f"  [precision] differing {bad}; missing {miss}")
        ck["[precision] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)
    cn = R16.api_cube(a, dataclasses.replace(spp, seed=S + 1), f"sub18_prec_neg_{S}")
    b2, m2 = C9.diff_vars(cp, cn)
    neg[("submitplus", "precision", "in-process cube, seed + 1")] = (
        not (b2 or m2), f"{len(b2)} of {len(cp.data_vars)} differ; n_trials "
        f"{cn['n_trials'].values.tolist()}")  # fmt: skip
    return ck, neg, {}


def main(argv=None):
    runners = dict(nodesweep=run_nodesweep, eventlemon=run_eventlemon, submitplus=run_submitplus)
    R10.mode_main("r18", __doc__, runners, argv, n_sim=8000, smoke_sim=512, tag_sim=True,
                  n_sim_help="relmc trials per cell / case")  # fmt: skip


if __name__ == "__main__":
    main()
