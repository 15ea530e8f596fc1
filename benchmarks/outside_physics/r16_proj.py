"""Sixteenth round: a ``fit_fleets`` posterior with the node model and daily rate cycles;
``relmc simulate --posterior`` of a mixture event-fit file and of a ``fit_fleets`` file with
the precision flags; a TOML ``[failures]`` adding straggler and SDC categories beside a
posterior file's; fixed-length repairs with lemon nodes under ``precision``; a repair-chain
sweep on a posterior file through ``relmc sweep run`` (shards, workers); the same cube on a
Dask cluster of worker processes and on dask-jobqueue's ``SLURMCluster``.

Written from the documents only: ``fit_fleets``' docstring (``fleet_rate.sel(fleet=NAME)`` with
the fleet's record in its attrs as the rates of ``simulate``), ``Category``'s
(``diurnal_amplitude``, ``diurnal_peak_hour``: ``rate * (1 + a cos(2 pi (hour - peak) / 24))``
on the wall clock; ``kind`` straggler / sdc, ``straggler_speed``, ``sdc_latency_hours``,
``sdc_latency_distribution``), ``simulate``'s (``rates``, ``precision``; the
``UnreadFieldWarning`` only for fields ``rates``' per-draw parameters replace),
``FailureModel.with_tables``' ("add a straggler or SDC category of a new name ...
:func:`relmc.simulate` adds them at their scenario rate"), ``relmc simulate --help``,
``relmc sweep --help`` / ``relmc sweep run --help`` / ``submit --help``, the sweep template
(``relmc/templates/sweep.toml``: "[[base.failures.categories]] tables naming one change it"),
``run_sweep``'s (``client``: "Works with dask-jobqueue's SLURMCluster"), README "Sweeps: one
machine, a Slurm array or a Dask cluster", the node model's ``Policy`` fields. Source bodies,
``_kernels*.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read. No new simulator:
the node trials ``r5_indep.run_r5(node=True)``, the physics trials ``run_r5(node=False)``
(``indep2``: stragglers, SDC), Lambda(N) and f ``r8_mttf.Mine``, the rule replay
``r8_proj.replay`` / ``curve``, the command line ``r9_cli`` and ``r15_proj.sim_case``, the
fits ``r10_proj.fleets`` and ``r9_proj.event_fit``, the sweep cell check
``r12_proj.cell_checks`` idea (re-done here without precision), the report
``r10_proj.report``.

Modes:

fleetdiur (1) ``fit_fleets`` fleet B (wall record, one draw of each chain) as the rates of a
          node-model scenario (bad fraction 0.1 x 6, ``lemon_failures`` 2) whose gpu and net
          categories have daily cycles (0.8 at 14 h, 0.5 at 16 h), start hour 10, 8 compute
          hours, 64 / 128 GPUs: ``simulate(rates=fleet_rate B)`` per draw vs
          ``run_r5(node=True)``; negatives: node model ignored, daily cycle ignored, the other
          draw's row.
cli       (2) the ninth round's mixture event fit and the tenth round's ``fit_fleets`` file
          (``rate``: a new fleet) as ``relmc simulate TOML --posterior F`` with
          ``--target-rse`` / ``--hopeless-ettr`` / ``--min-trials``: ``r15_proj.sim_case``
          (every variable vs ``simulate(rates=file, precision, seed)``, the scenario attr, the
          replayed rule; negatives seed + 1, ``min_trials`` 512, the other file).
sdc       (3) a conjugate fit (exposed clock) thinned to one draw of each chain, written as a
          file; a TOML whose ``[failures]`` adds a straggler and an SDC category of new names:
          ``relmc simulate TOML --posterior F`` vs ``simulate(my scenario, rates=file)`` (bit,
          scenario attr), then its trials per draw vs ``run_r5(node=False)``; negatives: seed
          + 1, the fit's categories alone (bit); stragglers ignored, SDC ignored, fixed SDC
          latency, the other draw's row (statistics).
fixlemon  (4) fixed 6-h automated / 30-h manual repairs (escalation 0.4, misses 0.3 / 0.1,
          retirement after 2, 2 spares) with lemons (0.1 x 6, exclusion after 2 in 24 h), point
          rates, 64 / 256 GPUs, ``simulate(precision=Precision(target_rse))``: the stop vs the
          replayed rule, the run a prefix of the full run (bit), its trials vs
          ``run_r5(node=True)``; negatives exponential repairs, no lemons, no exclusion, no
          misses, no retirement.
rsweep    (5) a sweep spec TOML on the mixture event-fit file thinned to 2 draws (written as a
          file): ``[base]`` the fixed-repair node policy at 256 GPUs, 72 h, gpu named in
          ``[[base.failures.categories]]`` (swap recovery), axes escalation 0 / 0.4 x manual
          hours 15 / 30, ``keep_trials``; ``relmc sweep run`` (1 shard; 2 shards; 2 workers):
          every cube variable = the API's ``run_sweep`` (bit), per cell = ``summarize_cell(
          simulate(spec.scenario(i), rates=file, seed=cell_seed(seed, i)))`` and the kept
          trials = ``simulate``'s (bit), and per draw vs ``run_r5(node=True)`` with the draw's
          rates, bad fraction and multipliers; negatives: 2 shards with seed + 1, point rates,
          the other cell (bit); node model ignored, the other escalation (statistics).
dask      (6) the rsweep spec on ``LocalCluster(n_workers=2, threads_per_worker=1,
          processes=True)`` (``run_sweep(client=)`` and ``relmc sweep run --dask ADDRESS``),
          on dask-jobqueue's ``SLURMCluster(queue="debug")`` and as ``relmc sweep submit
          --array 2 --partition debug --wait``: every cube variable = in process (bit);
          negative: seed + 1.

    taskset -c 1 python benchmarks/outside_physics/r16_proj.py MODE [--seed S] [--n-indep N]
        [--budget B] [--n-sim N] [--iseed I] [--smoke] [--out DIR]

The independent seeds depend on the size / draw / variant and ``--iseed``, not on ``--seed``.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import shutil
import subprocess
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
import r15_proj as R15  # noqa: E402
from indep2 import cat  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")


def _shown(P, t, b, shown):
    return ", ".join(f"{v} {float(P[v].mean()):.4f}/{b[v].mean():.4f}" for v in shown if v in b)


# ---------------------------------------------------------------- 1: fleets + nodes + diurnal
def run_fleetdiur(a):
    tag = "fleet+node+diurnal"
    ck, neg, comp = {}, {}, {}
    ff = R10.fleets(argparse.Namespace(out=a.out, draws=100), False)
    ra = ff.posterior["rate"].attrs
    recB = dict(n_gpus=R9.NB, exposure_clock=ra.get("exposure_clock"),
                **{k: ra[k] for k in M8.LLAMA_SHAPE if k in ra})  # fmt: skip
    thin = ff.posterior["fleet_rate"].sel(fleet="B").isel(draw=slice(0, 1)).assign_attrs(recB)
    thin = thin.drop_vars("fleet", errors="ignore")
    spec = node_spec(W=8.0, n_gpus=64, tau=0.5, delta=0.03, R=0.3, lemon_k=2, lemon_win=168.0,
                     f=0.1, m=6.0, h0=10.0,
                     cats=[ncat("gpu", 0.1, detect=0.1, amp=0.8, peak=14.0),
                           ncat("net", 0.1, detect=0.05, amp=0.5, peak=16.0),
                           ncat("rk", 0.1, detect=0.02)])  # fmt: skip
    sc = indep_nodes.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, P8.UNITS, strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    print(f"[{tag}] record {recB}; categories "
          f"{[(c.name, c.unit, c.diurnal_amplitude, c.diurnal_peak_hour) for c in cats]}; start "
          f"hour {sc.job.start_hour}; bad fraction 0.1 x 6, lemon_failures 2")  # fmt: skip
    me = M8.Mine(R9.mine_of(thin), sc)
    fm = me.f()
    nd, sizes = len(fm), (64, 128)
    print(f"  my f {np.round(fm, 5).tolist()}; job rates "
          + "; ".join(f"{N}: {np.round(me.lam(N), 4).tolist()}" for N in sizes))  # fmt: skip

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kk = (k + 1) % nd if var == "other draw's row" else k
        for j, c in enumerate(s["cats"]):
            c["rate"] = float(me.fitted(N)[kk][j] / fm[kk])
            if var == "daily cycle ignored":
                c["amp"] = 0.0
        s.update(n_gpus=N, f=0.0 if var == "node model ignored" else spec["f"])
        return s

    variants = (None, "node model ignored", "daily cycle ignored", "other draw's row")
    root = resolve_seed(a.seed)
    for N in sizes:
        scN = R6.at_size(sc, N)
        jr = job_rates(scN, rate_draws(scN, thin))
        ck[f"N={N} job_rates == my Lambda (rel)"] = float(np.abs(jr / me.lam(N) - 1).max())
        t1 = time.time()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            P = relmc.simulate(scN, rates=thin, n_trials=a.n_sim, seed=size_seed(root, N),
                               n_threads=1)  # fmt: skip
        uw = [str(x.message)[:200] for x in w if "UnreadField" in type(x.message).__name__]
        ck[f"N={N} no UnreadFieldWarning (the fleet posterior replaces no daily cycle)"] = not uw
        if uw:
            print(f"    warnings: {uw}")
        print(f"  N={N}: simulate {a.n_sim} trials {time.time() - t1:.1f}s; mean ETTR "
              f"{float(P.ettr.mean()):.4f}; draws {np.unique(P.draw.values).tolist()}")  # fmt: skip
        t = indep_nodes.relmc_table(P, spec)
        for k in range(nd):
            mask = P.draw.values == k
            for j, var in enumerate(variants):
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep,
                                    16100 * N + 7 * k + 100 * j + 100_000 * a.iseed, F=None,
                                    node=True)  # fmt: skip
                if var is None:
                    print(f"    d{k} relmc/indep mean: events "
                          f"{float(P.events.values[mask].mean()):.4f}/{b['events'].mean():.4f}, "
                          f"excluded bad {float(P.nodes_excluded_bad.values[mask].mean()):.4f}/"
                          f"{b['nodes_excluded_bad'].mean():.4f}")  # fmt: skip
                comp[("fleetdiur", N, k, var or "documented")] = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
    return ck, neg, comp


# ---------------------------------------------------------------- 2: the command line, files
def run_cli(a):
    import arviz as az

    ck, neg = {}, {}
    S, budget, mt = a.seed, a.budget, 700
    C9.SEED = S
    files = {}
    ev = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    files["mixture"] = a.out / "mix16.nc"
    ff = R10.fleets(argparse.Namespace(out=a.out, draws=100), False)
    files["fleets"] = a.out / "fleets16.nc"
    for k, x in (("mixture", ev), ("fleets", ff)):
        files[k].unlink(missing_ok=True)
        x.to_netcdf(files[k])
    idat = {k: az.from_netcdf(p) for k, p in files.items()}
    print(f"mixture variables {sorted(ev.posterior.data_vars)}; fleets rate attrs "
          f"{dict(ff.posterior['rate'].attrs)}")  # fmt: skip
    toml0 = ("[cluster]\nn_gpus = 64\n\n[job]\ncompute_hours = 24.0\n\n[policy]\n"
             "restart_hours = 1.5\n")  # fmt: skip
    scs = {}
    for name, idata in idat.items():
        sc = R9.with_compute(default_scenario(idata), 24.0)
        sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
        scs[name] = R6.at_size(sc, 64)
    for name, idata in idat.items():
        other = "fleets" if name == "mixture" else "mixture"
        ss = scs[name]
        print(
            f"[{name}] default_scenario: categories "
            f"{[(c.name, c.unit, c.recovery) for c in ss.failures.categories]}; m "
            f"{ss.failures.maintenance_rate}; bad fraction {ss.failures.bad_node_fraction}"
        )
        fs = relmc.simulate(ss, rates=idata, n_trials=budget, seed=S, n_threads=1)
        e = fs.ettr.values
        c, rs = R15._rounds(e, budget, mt)
        R2, H_lo, H_hi = R15._mid_rse(rs), float(f"{e.mean() - 0.1:.6g}"), R15._mid_floor(c)
        print(f"  full: mean ETTR {e.mean():.5f}; rounds "
              + ", ".join(f"({n}, {cc:.5f}, {r:.6f})" for (n, cc), r in zip(c, rs, strict=True))
              + f"; R2 {R2}, H_lo {H_lo}, H_hi {H_hi}")  # fmt: skip
        cases = R15.prec_cases(name, R2, H_lo, H_hi, mt)
        for lab, fl in cases.items():
            R15.sim_case(a, lab, toml0, ss, idata, files[name], fl, fs, ck, neg,
                         {"API the other file": (scs[other], idat[other])})  # fmt: skip
    return ck, neg, {}


# ---------------------------------------------------------------- 3: straggler + SDC beside a fit
STRAG = dict(rate=0.05, detect=1.0, speed=0.4)
SDC = dict(rate=0.04, L=2.0)


def sdc_toml(N, W):
    return (f"[cluster]\nn_gpus = {N}\n\n[job]\ncompute_hours = {W}\n\n[policy]\n"
            "checkpoint_interval = 0.5\nsnapshot_hours = 0.03\nrestart_hours = 0.3\n"
            "swap_hours = 0.2\n\n"
            '[[failures.categories]]\nname = "slow"\nkind = "straggler"\n'
            f'rate = {STRAG["rate"]}\nunit = "job"\ndetection_hours = {STRAG["detect"]}\n'
            f'straggler_speed = {STRAG["speed"]}\n\n'
            '[[failures.categories]]\nname = "silent"\nkind = "sdc"\n'
            f'rate = {SDC["rate"]}\nunit = "job"\nsdc_latency_hours = {SDC["L"]}\n'
            'sdc_latency_distribution = "exponential"\n')  # fmt: skip


def sdc_scen(base, N, W, extra=True):
    sc = R6.at_size(R9.with_compute(base, W), N)
    pol = dataclasses.replace(sc.policy, checkpoint_interval=0.5, snapshot_hours=0.03,
                              restart_hours=0.3, swap_hours=0.2)  # fmt: skip
    add = (
        relmc.Category(name="slow", rate=STRAG["rate"], unit="job", kind="straggler",
                       detection_hours=STRAG["detect"], straggler_speed=STRAG["speed"]),
        relmc.Category(name="silent", rate=SDC["rate"], unit="job", kind="sdc",
                       sdc_latency_hours=SDC["L"], sdc_latency_distribution="exponential"),
    )  # fmt: skip
    cats = sc.failures.categories + (add if extra else ())
    return dataclasses.replace(
        sc, policy=pol, failures=dataclasses.replace(sc.failures, categories=cats)
    )


def spec_from(ss, me, N, k, var=None):
    """indep2 spec of my scenario ``ss`` at draw ``k``'s job rates."""
    pol, fm, job = ss.policy, ss.failures, ss.job
    cats = []
    for c in ss.failures.categories:
        if c.kind == "failure":
            j = me.cats.index(c.name)
            kk = (k + 1) % len(me.rate) if var == "other draw's row" else k
            cats.append(cat(c.name, float(me.fitted(N)[kk][j]), detect=c.detection_hours,
                            swap=c.recovery == "swap"))  # fmt: skip
        elif c.kind == "straggler" and var != "stragglers ignored":
            cats.append(cat(c.name, c.rate, kind="straggler", detect=c.detection_hours,
                            speed=c.straggler_speed))  # fmt: skip
        elif c.kind == "sdc" and var != "SDC ignored":
            cats.append(cat(c.name, c.rate, kind="sdc", sdc_L=c.sdc_latency_hours,
                            sdc_exp=var != "SDC latency fixed"))  # fmt: skip
    return indep2.default_spec(
        W=job.compute_hours, tau=pol.checkpoint_interval, delta=pol.snapshot_hours,
        persist=pol.persist_hours, R=pol.restart_hours, swap_h=pol.swap_hours,
        n_spares=pol.n_spares, repair_h=pol.repair_hours, maint_rate=fm.maintenance_rate,
        maint_h=fm.maintenance_hours, beta=fm.trend_shape, h0=job.start_hour,
        start_day=job.start_day, b=job.throughput_amplitude, phi_s=job.throughput_peak_hour,
        K=pol.checkpoint_retention, cap_factor=pol.wall_cap_factor, max_events=pol.max_events,
        n_gpus=N, cats=cats,
    )  # fmt: skip


def run_sdc(a):
    import arviz as az

    ck, neg, comp = {}, {}, {}
    S, N, W = a.seed, 64, 24.0
    C9.SEED = S
    csv = R15.counts_csv(a)
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0, exposure_clock="exposed")
    conj = relmc.fit_conjugate(data, n_draws=50, n_chains=2, seed=S)
    thin = conj.posterior.isel(draw=slice(0, 1))
    pf = a.out / f"conj16_thin_{S}.nc"
    pf.unlink(missing_ok=True)
    az.InferenceData(posterior=thin).to_netcdf(pf)
    idata = az.from_netcdf(pf)
    ss = sdc_scen(default_scenario(idata), N, W)
    toml = a.out / "sdc16.toml"
    toml.write_text(sdc_toml(N, W))
    out = a.out / f"sim_sdc_{S}"
    shutil.rmtree(out, ignore_errors=True)
    rc = C9.cli(["simulate", str(toml), "--posterior", str(pf), "--n-trials", str(a.n_sim)], out)
    ck["relmc simulate TOML (+ straggler, SDC) --posterior rc == 0"] = rc == 0
    if rc:
        return ck, neg, comp
    P = xr.open_dataset(out / "simulation.nc").load()
    theirs = R15._scen_attr(P)
    ck["file's scenario attr == mine (to_dict)"] = R15._js(ss.to_dict()) == R15._js(theirs)
    if not ck["file's scenario attr == mine (to_dict)"]:
        m = ss.to_dict()
        for k in m:
            if R15._js(m[k]) != R15._js(theirs.get(k)):
                print(f"    differs in [{k}]: mine {R15._js(m[k])[:900]}\n"
                      f"      file {R15._js(theirs.get(k))[:900]}")  # fmt: skip
    api = relmc.simulate(ss, rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
    bad, miss = C9.diff_vars(P, api)
    print(f"  file vs API: {len(P.data_vars)} variables, differing {bad}, missing {miss}")
    ck["simulation.nc == simulate(my scenario, rates=file) every variable (bit)"] = not (
        bad or miss
    )
    for lab, Q in {
        "API seed + 1": relmc.simulate(ss, rates=idata, n_trials=a.n_sim, seed=S + 1,
                                       n_threads=1),
        "API the fit's categories alone": relmc.simulate(
            sdc_scen(default_scenario(idata), N, W, extra=False), rates=idata,
            n_trials=a.n_sim, seed=S, n_threads=1),
    }.items():  # fmt: skip
        b2, _ = C9.diff_vars(P, Q)
        neg[("sdc", None, lab)] = (not b2, f"{len(b2)} of {len(P.data_vars)} variables differ")
    # my scenario as the independent physics simulator's spec
    me = M8.Mine(idata, ss)
    print(f"  fit categories {me.cats} units {me.unit}; f {me.f().tolist()}; job rates at {N} "
          f"{np.round(me.fitted(N), 4).tolist()}; relmc: interruptions "
          f"{np.round(P.interruptions.mean('trial').values, 3).tolist()} "
          f"({P.category.values.tolist()}), sdc_rollbacks {float(P.sdc_rollbacks.mean()):.4f}"
          f", sdc_rework_hours {float(P.sdc_rework_hours.mean()):.4f}, mean ETTR "
          f"{float(P.ettr.mean()):.4f}")  # fmt: skip
    sp0 = spec_from(ss, me, N, 0)
    mine = indep2.build_relmc(sp0)
    for part in ("policy", "job"):
        x, y = getattr(mine, part), getattr(ss, part)
        dif = [f.name for f in dataclasses.fields(x) if getattr(x, f.name) != getattr(y, f.name)]
        ck[f"indep spec's scenario {part} == mine"] = not dif
        if dif:
            print(f"    {part} differs in {dif}")
    fx, fy = mine.failures, ss.failures
    dif = [f.name for f in dataclasses.fields(fx)
           if f.name != "categories" and getattr(fx, f.name) != getattr(fy, f.name)]  # fmt: skip
    ck["indep spec's failure model (but categories) == mine"] = not dif
    if dif:
        print(f"    failures differ in {dif}")
    t = indep2.relmc_table(P, sp0)
    variants = (None, "stragglers ignored", "SDC ignored", "SDC latency fixed",
                "other draw's row")  # fmt: skip
    for k in range(len(me.rate)):
        mask = P.draw.values == k
        for j, var in enumerate(variants):
            b = r5_indep.run_r5(spec_from(ss, me, N, k, var), a.n_indep,
                                16300 + 7 * k + 100 * j + 100_000 * a.iseed, F=None,
                                node=False)  # fmt: skip
            if var is None:
                print(f"    d{k} relmc/indep: wall {float(P.wall_hours.values[mask].mean()):.3f}/"
                      f"{b['wall_hours'].mean():.3f}, sdc_rollbacks "
                      f"{float(P.sdc_rollbacks.values[mask].mean()):.4f}/"
                      f"{b.get('sdc_rollbacks', np.zeros(1)).mean():.4f}")  # fmt: skip
            comp[("sdc", N, k, var or "documented")] = r4_run.compare_tables(
                f"d{k}", {x: y[mask].copy() for x, y in t.items()}, b, sp0, quiet=True
            )
    return ck, neg, comp


# ---------------------------------------------------------------- 4: fixed repairs + lemons
MT = 700  # min_trials: not a whole number of blocks


def lemon_spec(N):
    return node_spec(W=72.0, n_gpus=N, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=2,
                     repair_h=6.0, escalate=0.4, manual_h=30.0, auto_miss=0.3, manual_miss=0.1,
                     retire_after=2, repair_fixed=True, f=0.1, m=6.0, lemon_k=2,
                     lemon_win=24.0,
                     cats=[ncat("gpu", 0.12, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05)])  # fmt: skip


def run_fixlemon(a):
    ck, neg, comp = {}, {}, {}
    root = resolve_seed(a.seed)
    variants = (None, "exponential repairs", "no lemons", "no exclusion", "no misses",
                "no retirement")  # fmt: skip
    shown = ("repairs_auto", "repairs_manual", "nodes_retired", "nodes_excluded_bad",
             "nodes_excluded_good", "pool_occupancy")  # fmt: skip

    def spec_of(N, var):
        s = lemon_spec(N)
        s.update({"exponential repairs": dict(repair_fixed=False), "no lemons": dict(f=0.0),
                  "no exclusion": dict(lemon_k=0), "no misses": dict(auto_miss=0.0,
                                                                     manual_miss=0.0),
                  "no retirement": dict(retire_after=0)}.get(var, {}))  # fmt: skip
        return s

    for N in (64, 256):
        spec = lemon_spec(N)
        sc = indep_nodes.build_relmc(spec)
        seed = size_seed(root, N)
        t1 = time.time()
        Pf = relmc.simulate(sc, n_trials=a.budget, seed=seed, n_threads=1)
        e = Pf.ettr.values
        c, rs = R15._rounds(e, a.budget, MT)
        R = R15._mid_rse(rs)
        pr = relmc.Precision(target_rse=R, min_trials=MT)
        P = relmc.simulate(sc, n_trials=a.budget, seed=seed, n_threads=1, precision=pr)
        n = P.sizes["trial"]
        rn, rsb, _ = P8.replay(e, a.budget, trse=R, min_trials=MT)
        print(f"  N={N}: full {a.budget} + precision {time.time() - t1:.1f}s; mean ETTR "
              f"{e.mean():.4f}; finished {float(Pf.finished.mean()):.3f}; rounds (n, SE/mean) "
              f"{[(nn, round(r, 6)) for (nn, _), r in zip(c, rs, strict=True)]}; R {R}; "
              f"recorded {n} {P.attrs['stopped_by']}; replayed {rn} {rsb}")  # fmt: skip
        ck[f"N={N} (n_trials, stopped_by) == replayed rule"] = (n, P.attrs["stopped_by"]) == (
            rn, rsb)  # fmt: skip
        ck[f"N={N} precision run == prefix of the full run (every trial variable, bit)"] = all(
            bit(P[v].values, Pf[v].isel(trial=slice(0, n)).values)
            for v in P.data_vars if "trial" in P[v].dims
        )  # fmt: skip
        for mis in ("rounds add min_trials", "min not rounded"):
            neg[("fixlemon", N, f"rule misread: {mis}")] = (
                P8.replay(e, a.budget, trse=R, min_trials=MT, mis=mis)[0] == n,
                "",
            )
        neg[("fixlemon", N, "precision run == full run")] = (n == a.budget, f"{n}")
        t = indep_nodes.relmc_table(P, spec)
        for j, var in enumerate(variants):
            b = r5_indep.run_r5(
                spec_of(N, var),
                a.n_indep,
                16400 * N + 100 * j + 100_000 * a.iseed,
                F=None,
                node=True,
            )
            if var is None:
                print("    relmc/indep mean: " + _shown(P, t, b, shown))
            comp[("fixlemon", N, var or "documented")] = r4_run.compare_tables(
                f"N={N}", {x: y.copy() for x, y in t.items()}, b, spec, quiet=True
            )
    return ck, neg, comp


# ---------------------------------------------------------------- 5, 6: repair-chain sweep
AXES = {"policy.escalation_probability": [0.0, 0.4], "policy.manual_repair_hours": [15.0, 30.0]}


def sweep_files(a):
    """The ninth round's mixture fit thinned to 2 draws as a file, and the sweep spec TOML."""
    import arviz as az

    ev = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    pf = a.out / "mix16_thin.nc"
    if not pf.exists():
        az.InferenceData(posterior=ev.posterior.isel(draw=slice(0, 1))).to_netcdf(pf)
    toml = a.out / f"rsweep16_{a.seed}_{a.n_sim}.toml"
    toml.write_text(
        f'seed = {a.seed}\nn_trials = {a.n_sim}\nposterior = "{pf}"\nkeep_trials = true\n'
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/rsweep16_default.zarr"\n\n[base]\n'
        "cluster.n_gpus = 256\njob.compute_hours = 72.0\npolicy.checkpoint_interval = 0.5\n"
        "policy.snapshot_hours = 0.03\npolicy.restart_hours = 0.3\npolicy.swap_hours = 0.2\n"
        "policy.n_spares = 2\npolicy.repair_hours = 6.0\npolicy.repair_distribution = "
        '"fixed"\npolicy.auto_repair_miss = 0.3\npolicy.manual_repair_miss = 0.1\n'
        "policy.retire_after_repairs = 2\npolicy.lemon_failures = 2\n"
        "policy.lemon_window_hours = 24.0\n\n"
        '[[base.failures.categories]]\nname = "gpu"\nrecovery = "swap"\n'
        "detection_hours = 0.1\n\n[axes]\n"
        + "".join(f'"{k}" = {v}\n' for k, v in AXES.items())
    )  # fmt: skip
    return pf, toml


def sweep_cli(args, tag, show_warnings=False):
    cmd = ["taskset", "-c", "1", "relmc", "sweep", "run", *args, "--n-threads", "1",
           "--no-progress"]  # fmt: skip
    t0 = time.time()
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"  $ {' '.join(cmd[3:])}  [{tag}] ({time.time() - t0:.1f}s, rc {r.returncode})")
    if show_warnings:
        wl = [x for x in r.stderr.splitlines() if "warning" in x.lower()]
        print(f"  relmc sweep run's warnings: {wl}")
    if r.returncode:
        print(r.stderr[-2000:])
    return r.returncode


#: ``relmc sweep run`` layouts checked against the in-process cube: the runs of each
LAYOUTS = {"1 shard": [[]], "2 shards": [["--shard", "1", "--shards", "2"],
                                         ["--shard", "0", "--shards", "2"]],
           "2 workers": [["--workers", "2"]]}  # fmt: skip


def cli_layouts(a, toml, cube, name, ck, show_warnings=False):
    """``relmc sweep run TOML`` in each of ``LAYOUTS`` into ``a.out / {name}_cli_*.zarr``;
    into ``ck``: rc 0, and every cube variable == ``cube`` (the API's ``run_sweep``, bit).
    ``show_warnings``: print the one-shard run's warning lines."""
    for lay, runs in LAYOUTS.items():
        st = a.out / f"{name}_cli_{lay.replace(' ', '_')}.zarr"
        shutil.rmtree(st, ignore_errors=True)
        rcs = [sweep_cli([str(toml), "--store", str(st), *r], lay,
                         show_warnings and lay == "1 shard") for r in runs]  # fmt: skip
        ck[f"[relmc sweep run, {lay}] rc == 0"] = not any(rcs)
        if any(rcs):
            continue
        bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        print(f"  [{lay}] differing {bad}; missing {miss}")
        ck[f"[relmc sweep run, {lay}] every cube variable == API run_sweep (bit)"] = not (
            bad or miss
        )


def seed_negative(a, toml2, cube, name, mode, neg):
    """Bit negative: ``relmc sweep run`` of ``toml2`` (the spec at seed + 1) in 2 shards into
    ``a.out / {name}_cli_seed+1.zarr`` against ``cube``."""
    st = a.out / f"{name}_cli_seed+1.zarr"
    shutil.rmtree(st, ignore_errors=True)
    for r in (["--shard", "1", "--shards", "2"], ["--shard", "0", "--shards", "2"]):
        sweep_cli([str(toml2), "--store", str(st), *r], "seed + 1")
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    neg[(mode, None, "relmc sweep run 2 shards, seed + 1")] = (
        not bad and not miss, f"{len(bad)} of {len(cube.data_vars)} variables differ")  # fmt: skip


def mirror_negatives(mode, n_cells, ems, neg):
    """Bit negatives: each cell's result against its mirror cell's (``ems`` per cell)."""
    for i in range(n_cells):
        j = n_cells - 1 - i
        neg[(mode, i, f"cell {j}'s result")] = (bit(ems[j], ems[i]), "")


def api_cube(a, sp, name, **kw):
    st = a.out / f"{name}.zarr"
    shutil.rmtree(st, ignore_errors=True)
    relmc.sweep.run_sweep(sp, st, n_threads=1, **kw)
    return relmc.sweep.open_sweep(st, load=True)


def inproc_cube(a, sp, name, mode, neg):
    """``sp``'s in-process cube (:func:`api_cube` into ``{name}_inproc_{seed}``, timed and
    summarised) and its bit negative, the same spec at seed + 1 (``neg[(mode, None,
    "in-process cube, seed + 1")]``)."""
    S = a.seed
    t0 = time.time()
    cube = api_cube(a, sp, f"{name}_inproc_{S}")
    tv = sum("trial" in cube[v].dims for v in cube.data_vars)
    print(f"in process {time.time() - t0:.1f}s: {sp.n_cells} cells of {sp.n_trials} trials, "
          f"{len(cube.data_vars)} variables ({tv} per trial); mean ETTR "
          f"{np.round(cube['ettr_mean'].values, 4).tolist()}")  # fmt: skip
    cneg = api_cube(a, dataclasses.replace(sp, seed=S + 1), f"{name}_inproc_seed+1_{S}")
    b2, m2 = C9.diff_vars(cube, cneg)
    neg[(mode, None, "in-process cube, seed + 1")] = (
        not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ")  # fmt: skip
    return cube


def indep_cell(a, sp, i, idata, P, comp):
    """Cell ``i``'s trials ``P`` per draw against ``run_r5(node=True)`` with the draw's rates,
    bad fraction and multipliers (as ``r13_proj.node_compare``); negatives: node model
    ignored, the other escalation."""
    sc = sp.scenario(i)
    pol, N = sc.policy, sc.cluster.n_gpus
    thin = idata.posterior
    me = M8.Mine(idata, sc)
    fm = me.f()
    bf = thin["bad_node_fraction"].transpose("draw", "chain").values.ravel()
    bm = M8.flat(thin["bad_node_multiplier"])
    jr = job_rates(sc, rate_draws(sc, idata))
    comp_ck = float(np.abs(jr / me.lam(N) - 1).max())
    byname = {c.name: c for c in sc.failures.categories}
    print(
        f"    cell {i}: job_rates vs my Lambda (rel) {comp_ck:.3g}; f {np.round(fm, 5).tolist()}"
        f"; bad fraction {np.round(bf, 4).tolist()}; multiplier {np.round(bm, 3).tolist()}"
    )
    spec = node_spec(W=sc.job.compute_hours, n_gpus=N, tau=pol.checkpoint_interval,
                     delta=pol.snapshot_hours, R=pol.restart_hours, swap_h=pol.swap_hours,
                     n_spares=pol.n_spares, repair_h=pol.repair_hours,
                     escalate=pol.escalation_probability, manual_h=pol.manual_repair_hours,
                     auto_miss=pol.auto_repair_miss, manual_miss=pol.manual_repair_miss,
                     retire_after=pol.retire_after_repairs,
                     repair_fixed=pol.repair_distribution == "fixed",
                     lemon_k=pol.lemon_failures, lemon_win=pol.lemon_window_hours,
                     cap_factor=pol.wall_cap_factor,
                     cats=[ncat(c, 0.1, detect=byname[c].detection_hours,
                                swap=byname[c].recovery == "swap") for c in me.cats])  # fmt: skip
    mine = indep_nodes.build_relmc(spec)
    dif = [f.name for f in dataclasses.fields(mine.policy)
           if getattr(mine.policy, f.name) != getattr(pol, f.name)]  # fmt: skip
    if dif:
        print(f"    cell {i}: policy fields not mirrored {dif}")
    t = indep_nodes.relmc_table(P, spec)
    for k in range(len(fm)):
        mask = P.draw.values == k
        for j, var in enumerate((None, "node model ignored", "the other escalation")):
            s = copy.deepcopy(spec)
            L = me.fitted(N)[k] / fm[k]
            s.update(f=0.0 if var == "node model ignored" else float(bf[k]))
            if var == "the other escalation":
                s["escalate"] = 0.4 - spec["escalate"]
            for jj, c in enumerate(s["cats"]):
                c.update(rate=float(L[jj]), mult=float(bm[k, jj]))
            b = r5_indep.run_r5(s, a.n_indep, 16500 + 101 * i + 7 * k + 1000 * j
                                + 100_000 * a.iseed, F=None, node=True)  # fmt: skip
            comp[("rsweep", i, k, var or "documented")] = r4_run.compare_tables(
                f"cell {i} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s, quiet=True
            )
    return comp_ck


def run_rsweep(a):
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    pf, toml = sweep_files(a)
    idata = az.from_netcdf(pf)
    sp = SweepSpec.from_toml(toml)
    c0 = [(c.name, c.recovery, c.detection_hours) for c in sp.scenario(0).failures.categories]
    print(f"spec: dims {sp.dims}, shape {sp.shape}, posterior {sp.posterior}; cell 0 "
          f"categories {c0}")  # fmt: skip
    d0 = {c.name: c for c in default_scenario(idata).failures.categories}
    for i in range(sp.n_cells):
        cs = sp.scenario(i)
        want = (dataclasses.replace(d0["gpu"], recovery="swap", detection_hours=0.1), d0["net"])
        ck[f"cell {i} categories == the file's, gpu's recovery / detection replaced"] = (
            cs.failures.categories == want
        )
        ck[f"cell {i} policy: the [base] repair chain and this cell's axes"] = (
            cs.policy.repair_distribution, cs.policy.n_spares, cs.policy.repair_hours,
            cs.policy.retire_after_repairs, cs.policy.lemon_failures,
            cs.policy.lemon_window_hours, cs.policy.escalation_probability,
            cs.policy.manual_repair_hours,
        ) == ("fixed", 2, 6.0, 2, 2, 24.0,
              *(v[j] for v, j in zip(AXES.values(), np.unravel_index(i, sp.shape),
                                     strict=True)))  # fmt: skip
    t0 = time.time()
    cube = api_cube(a, sp, "rsweep16_api")
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    print(
        f"API run_sweep {time.time() - t0:.1f}s; {len(cube.data_vars)} variables, {len(tv)} "
        f"with a trial dim; mean ETTR {np.round(cube['ettr_mean'].values, 4).tolist()}"
    )
    root = resolve_seed(a.seed)
    ems = {}
    for i in range(sp.n_cells):
        idx = np.unravel_index(i, sp.shape)
        sel = dict(zip(sp.dims, idx, strict=True))
        cell = cube.isel(sel)
        P = relmc.simulate(
            sp.scenario(i),
            rates=idata,
            n_trials=a.n_sim,
            seed=SC.cell_seed(a.seed, i),
            overhead_seed=root,
            n_threads=1,
        )
        Sm = SC.summarize_cell(P, sp.quantiles)
        bad = [v for v in Sm.data_vars
               if v in cell.data_vars and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
        ck[f"cell {i} every summary == summarize_cell(simulate(rates=file)) (bit)"] = not bad
        badt = [v for v in tv if v not in P or not bit(P[v].values, cell[v].values)]
        ck[f"cell {i} every kept per-trial variable == simulate's (bit)"] = not badt
        if bad or badt:
            print(f"  cell {i}: summaries differing {bad}; trial variables differing {badt}")
        ems[i] = Sm["ettr_mean"].values
        Q = relmc.simulate(
            sp.scenario(i),
            rates=None,
            n_trials=a.n_sim,
            seed=SC.cell_seed(a.seed, i),
            overhead_seed=root,
            n_threads=1,
        )
        neg[("rsweep", i, "point rates (the scenario's own)")] = (
            bit(SC.summarize_cell(Q, sp.quantiles)["ettr_mean"].values, cell["ettr_mean"].values),
            "")  # fmt: skip
        print(f"  cell {i} {sel}: ETTR {float(cell['ettr_mean']):.4f}; repairs_manual "
              f"{float(P.repairs_manual.mean()):.3f}; excluded bad "
              f"{float(P.nodes_excluded_bad.mean()):.3f}; retired "
              f"{float(P.nodes_retired.mean()):.3f}")  # fmt: skip
        ck[f"cell {i} job_rates == my Lambda (rel)"] = indep_cell(a, sp, i, idata, P, comp)
    mirror_negatives("rsweep", sp.n_cells, ems, neg)
    cli_layouts(a, toml, cube, "rsweep16", ck)
    t2 = a.out / f"rsweep16_seed+1_{a.n_sim}.toml"
    t2.write_text(toml.read_text().replace(f"seed = {a.seed}\n", f"seed = {a.seed + 1}\n", 1))
    seed_negative(a, t2, cube, "rsweep16", "rsweep", neg)
    return ck, neg, comp


def run_dask(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    pf, toml = sweep_files(a)
    sp = SweepSpec.from_toml(toml)
    t0 = time.time()
    cube = api_cube(a, sp, "dask16_inproc")
    print(f"in process {time.time() - t0:.1f}s; {len(cube.data_vars)} variables")

    def cmp(lab, st):
        bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        print(f"  [{lab}] differing {bad}; missing {miss}")
        ck[f"[{lab}] every cube variable == in process (bit)"] = not (bad or miss)

    from dask.distributed import Client, LocalCluster

    t0 = time.time()
    cl = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None)  # fmt: skip
    client = Client(cl)
    pids = sorted(client.run(os.getpid).values())
    print(f"  LocalCluster(2 worker processes) up {time.time() - t0:.1f}s; worker pids {pids}; "
          f"mine {os.getpid()}")  # fmt: skip
    ck["LocalCluster workers are other processes"] = os.getpid() not in pids and len(pids) == 2
    st = a.out / "dask16_procs.zarr"
    shutil.rmtree(st, ignore_errors=True)
    t0 = time.time()
    relmc.sweep.run_sweep(sp, st, n_threads=1, client=client)
    print(f"  run_sweep(client=processes) {time.time() - t0:.1f}s")
    cmp("LocalCluster processes, run_sweep(client=)", st)
    st = a.out / "dask16_cli.zarr"
    shutil.rmtree(st, ignore_errors=True)
    rc = sweep_cli([str(toml), "--store", str(st), "--dask", cl.scheduler_address], "--dask")
    ck["[relmc sweep run --dask ADDRESS] rc == 0"] = rc == 0
    if rc == 0:
        cmp("relmc sweep run --dask ADDRESS (LocalCluster processes)", st)
    st = a.out / "dask16_seed+1.zarr"
    shutil.rmtree(st, ignore_errors=True)
    relmc.sweep.run_sweep(dataclasses.replace(sp, seed=sp.seed + 1), st, n_threads=1,
                          client=client)  # fmt: skip
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    neg[("dask", None, "LocalCluster processes, seed + 1")] = (
        not bad and not miss,
        f"{len(bad)} of {len(cube.data_vars)} variables differ",
    )
    client.close()
    cl.close()
    # Slurm's tasks are not children of this process: a wrapper pins them to core 1 too
    py1 = a.out / "python_core1.sh"
    py1.write_text(f'#!/bin/sh\nexec taskset -c 1 {sys.executable} "$@"\n')
    py1.chmod(0o755)
    # dask-jobqueue's SLURMCluster on the local Slurm
    st = a.out / "dask16_slurm.zarr"
    shutil.rmtree(st, ignore_errors=True)
    try:
        from dask_jobqueue import SLURMCluster

        t0 = time.time()
        with SLURMCluster(cores=1, processes=1, memory="2GB", walltime="00:20:00",
                          queue="debug", python=str(py1), log_directory=str(a.out / "slurm_logs"),
                          job_script_prologue=["export NUMBA_NUM_THREADS=1"],
                          scheduler_options={"dashboard_address": None}) as sl:  # fmt: skip
            print("  SLURMCluster job script:\n    "
                  + sl.job_script().replace("\n", "\n    "))  # fmt: skip
            sl.scale(jobs=2)
            with Client(sl) as c2:
                c2.wait_for_workers(1, timeout=180)
                print(f"  SLURMCluster up {time.time() - t0:.1f}s; workers "
                      f"{len(c2.scheduler_info()['workers'])}")  # fmt: skip
                t0 = time.time()
                relmc.sweep.run_sweep(sp, st, n_threads=1, client=c2)
                print(f"  run_sweep(client=SLURMCluster) {time.time() - t0:.1f}s")
        cmp("dask-jobqueue SLURMCluster (partition debug)", st)
    except Exception as exc:  # noqa: BLE001
        print(f"  SLURMCluster not run: {type(exc).__name__}: {exc}")
        ck["SLURMCluster ran"] = False
    # relmc sweep submit: a Slurm job array
    st = a.out / "dask16_submit.zarr"
    shutil.rmtree(st, ignore_errors=True)
    cmd = ["relmc", "sweep", "submit", str(toml), "--store", str(st), "--array", "2",
           "--partition", "debug", "--cpus-per-task", "1", "--time", "00:20:00",
           "--python", str(py1), "--wait"]  # fmt: skip
    t0 = time.time()
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"  $ {' '.join(cmd)} ({time.time() - t0:.1f}s, rc {r.returncode})\n"
          f"    {r.stdout[-800:]}{r.stderr[-1500:]}")  # fmt: skip
    ck["[relmc sweep submit --array 2 --partition debug --wait] rc == 0"] = r.returncode == 0
    if r.returncode == 0:
        cmp("relmc sweep submit, Slurm array of 2", st)
    return ck, neg, {}


def main(argv=None):
    runners = dict(fleetdiur=run_fleetdiur, cli=run_cli, sdc=run_sdc, fixlemon=run_fixlemon,
                   rsweep=run_rsweep, dask=run_dask)  # fmt: skip
    R10.mode_main("r16", __doc__, runners, argv, n_sim=8000, smoke_sim=512, tag_sim=True,
                  n_sim_help="relmc trials per size / cell")  # fmt: skip


if __name__ == "__main__":
    main()
