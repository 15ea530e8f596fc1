"""Seventeenth round: ``relmc.project`` and ``relmc project --posterior`` of a ``fit_fleets``
fleet under the node model with a daily cycle on one category; straggler and SDC categories
in a sweep's ``[base]`` with axes over ``straggler_speed`` and ``checkpoint_retention``;
``[failures]`` fields other than categories (planned maintenance, a trend, lemons) beside a
conjugate and beside an event-fit posterior file; a sweep with ``[precision]`` on a posterior
file as a Slurm array, fresh and on a partly done store.

Written from the documents only: ``project``'s docstring (trial ``i`` with draw ``i %
n_draws`` seeded by ``size_seed()``; the credible simulation of ``credible_trials`` jobs in
groups of ``trials_per_draw`` on the first ``ceil(CT / M)`` draws, ``nested_draws``;
``keep_trials``: ``ettr`` (n_gpus, trial) with coordinate ``draw``; ``<v>_mean`` etc. "as
:func:`relmc.summarize` does"), ``relmc project --help`` (``--posterior NC``: "its categories,
rates and recorded maintenance"; the node-model flags; no per-category flag: README "per-category
fields are set in the scenario TOML of ``relmc simulate`` and sweeps, or as dotted fields of
``compare --policy``"), ``fit_fleets``' docstring, ``relmc.rates``' ("A posterior may also carry
physics parameters per draw"; ``physics_draws``: a per-category variable with a ``category``
dim; ``maintenance_rate``, ``exposed_fraction``, ``job_rates``), ``RecoveryRules``' (a fit
records them in ``attrs["recovery_rules"]``, ``to_json`` / ``from_attrs``),
``default_scenario``'s, the contract's "Time-varying failure rates" (maintenance not
modulated), "Nodes" and "Physics parameters per draw", ``simulate``'s (``UnreadFieldWarning``
"for each diurnal, trend or lemon field the scenario sets ... that ``rates``' per-draw
parameters replace, the fleet age included"), ``replaced_physics_notes``', ``relmc simulate
--help`` ("With --posterior, a [failures] whose [[failures.categories]] each name a fit
category ... changes the fit's categories so, with its other fields"; "without [failures] (or
one without [[failures.categories]]) ... --posterior's categories and recorded maintenance"),
the sweep template (``[[base.failures.categories]]``: "With posterior = "point" they are the
categories"; ``[slurm] array``: "at most the number of cells"; ``[precision]``), ``SweepSpec``'s,
``run_sweep``'s, ``cell_seed``'s, ``summarize_cell``'s, ``Precision``'s, ``relmc sweep run
--help``, ``relmc sweep submit --help`` ("a partial one submits an array whose tasks share the
cells missing ... at most one task a cell"), ``relmc.sweep.submit``'s ("ValueError when the
options' array exceeds the grid's cells ... before the store or the script is written") and the
README's sweep and reliability sections. Source bodies, ``_kernels*.py``, ``reference.py``,
``inputs.py`` and ``tests/`` not read. No new simulator: the node trials
``r5_indep.run_r5(node=True)``, the physics trials ``run_r5(node=False)``, Lambda(N) and f
``r8_mttf.Mine``, the rule replay ``r8_proj.replay`` / ``curve``, the command line
``r9_cli.cli`` / ``diff_vars``, the fleet fit ``r10_proj.fleets``, the event fit
``r10_proj.event_fit`` (daily cycle per category and a trend), the credible rebuild
``r10_proj.credible_block``, the counts ``r15_proj.counts_csv`` and its round helpers,
``r16_proj``'s ``spec_from`` / ``sweep_cli`` / ``api_cube``, the report ``r10_proj.report``.

Modes:

proj       (1) ``fit_fleets`` fleet B (one draw of each chain) with B's record written as a
           posterior file with recovery rules (gpu, net swap; detection 0.1 / 0.05 / 0.02 h)
           and a daily cycle on gpu as per-draw physics rows (0.8 at 14 h, 0.5 at 17 h);
           ``relmc project --posterior F`` with the node-model flags (bad fraction 0.1 x 6,
           ``--lemon-failures 2``), start hour 10, 8 compute hours, 32 / 64 / 128 GPUs,
           credible trials in groups: every variable = ``project(file)`` (bit); each size's
           kept ettr = ``simulate(rates=file, seed=size_seed)`` (bit), its summaries =
           ``summarize`` (bit); the credible run rebuilt (``credible_block``); each size and
           draw vs ``run_r5(node=True)``; negatives seed + 1 (bit), node model ignored, daily
           cycle ignored, the other draw's row. Then ``project(fleet_rate B DataArray with
           its record, scenario with gpu's cycle 0.8 at 14 h)`` vs ``run_r5``.
sweepsdc   (2) a point-rate sweep spec whose ``[base]`` holds a crash, a hang, a straggler
           and an SDC category (all ``unit = "job"``), axes ``failures.categories.slow.
           straggler_speed`` 0.3 / 0.7 x ``policy.checkpoint_retention`` 1 / 4,
           ``keep_trials``: ``relmc sweep run`` in 1 shard, 2 shards, 2 workers = the API's
           ``run_sweep`` (bit); each cell = ``summarize_cell(simulate(spec.scenario(i),
           seed=cell_seed))`` and its kept trials = that ``simulate``'s (bit); each cell vs
           ``run_r5(node=False)``; negatives: seed + 1, the mirror cell (bit); stragglers
           ignored, SDC ignored, the other straggler speed, the other retention (statistics).
failfields (3) a conjugate fit (wall clock, recorded maintenance 0.04 / h) cut to one draw of
           each chain as a file; TOMLs whose ``[failures]`` sets ``maintenance_rate`` 0.1,
           ``maintenance_hours`` 0.5, ``trend_shape`` 2 / ``fleet_age_hours`` 30,
           ``bad_node_fraction`` 0.1 / ``bad_node_multiplier`` 6, with and without a
           ``[[failures.categories]]`` table naming ``net`` (and one without
           ``maintenance_rate``: the record's then applies): ``relmc simulate TOML
           --posterior F`` = ``simulate(my scenario, rates=file)`` (bit), then vs
           ``run_r5(node=True)``; negatives each field ignored, the record's maintenance.
           The same TOML at 256 GPUs beside the tenth round's event fit (daily cycle per
           category, trend): the ``UnreadFieldWarning`` names ``trend_shape`` and
           ``fleet_age_hours`` (API and command line), the trials follow the posterior's
           trend; negative: the TOML's trend.
slurmprec  (4) a sweep spec with ``[precision]`` (target_rse, hopeless_ettr, min_trials 700)
           on a conjugate posterior file, axes ``cluster.n_gpus`` 64 / 512 x
           ``policy.restart_hours`` 0.3 / 1.5: ``relmc sweep submit --array K`` with K above
           the cells (refused, as documented), then K = cells with ``--wait``; and a store
           half done by ``relmc sweep run --shard 1 --shards 2`` finished by ``submit``: each
           cube = the in-process ``run_sweep`` (bit), each cell's stop = the replayed rule;
           negatives seed + 1, another target (bit), the rule's misreadings.

    taskset -c 1 python benchmarks/outside_physics/r17_proj.py MODE [--seed S] [--n-indep N]
        [--budget B] [--n-sim N] [--iseed I] [--smoke] [--out DIR]

The independent seeds depend on the size / draw / cell / variant and ``--iseed``, not on
``--seed``; fits are cached in ``--out`` and do not depend on ``--seed``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
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
from relmc.defaults import RecoveryRules
from relmc.projection import default_scenario, size_seed
from relmc.rates import job_rates, maintenance_rate, rate_draws

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
import r16_proj as R16  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")


def _unread(w):
    return [str(x.message) for x in w if "UnreadField" in type(x.message).__name__]


def _shown(t, mask, b, names):
    """Means of relmc's table ``t`` (trials ``mask``) / the independent table ``b``."""
    return ", ".join(f"{v} {t[v][mask].mean():.4f}/{b[v].mean():.4f}"
                     for v in names if v in b and v in t)  # fmt: skip


def _node_spec_of(sv, me, N, k, amp=None, beta=None, A0=None):
    """The ``run_r5(node=True)`` spec of scenario ``sv`` at draw ``k`` of ``me``'s rates (per
    exposed hour: the fitted job rates at N over f, the maintenance rate over mean f);
    ``amp``: per-category (amplitude, peak) replacing the scenario's, ``beta`` / ``A0`` the
    trend's."""
    pol, fm, job = sv.policy, sv.failures, sv.job
    f = me.f()
    L = me.fitted(N)[k] / f[k]
    mr = fm.maintenance_rate / f.mean() if me.wall else fm.maintenance_rate
    cats = []
    for j, name in enumerate(me.cats):
        c = next(x for x in sv.failures.categories if x.name == name)
        a_, p_ = (c.diurnal_amplitude, c.diurnal_peak_hour) if amp is None else amp[j]
        cats.append(ncat(name, float(L[j]), detect=c.detection_hours, swap=c.recovery == "swap",
                         amp=float(a_), peak=float(p_)))  # fmt: skip
    return node_spec(
        W=job.compute_hours, n_gpus=N, tau=pol.checkpoint_interval, delta=pol.snapshot_hours,
        persist=pol.persist_hours, R=pol.restart_hours, swap_h=pol.swap_hours,
        n_spares=pol.n_spares, maint_rate=float(mr), maint_h=fm.maintenance_hours,
        beta=fm.trend_shape if beta is None else float(beta),
        A0=fm.fleet_age_hours if A0 is None else float(A0), h0=job.start_hour,
        cap_factor=pol.wall_cap_factor, f=fm.bad_node_fraction, m=fm.bad_node_multiplier,
        lemon_k=pol.lemon_failures, lemon_win=pol.lemon_window_hours, cats=cats,
    )  # fmt: skip


def _policy_diff(spec, sv, build=indep_nodes.build_relmc, skip=("maintenance_rate",)):
    """Fields of ``sv``'s policy, job and failure model (but its categories) that the scenario
    the independent ``spec`` builds does not hold; ``maintenance_rate`` is skipped (the spec's
    is per exposed hour, checked against ``relmc.rates.maintenance_rate`` apart)."""
    mine = build(spec)
    out = []
    for part in ("policy", "job"):
        x, y = getattr(mine, part), getattr(sv, part)
        out += [f"{part}.{f.name}" for f in dataclasses.fields(x)
                if getattr(x, f.name) != getattr(y, f.name)]  # fmt: skip
    fx, fy = mine.failures, sv.failures
    out += [f"failures.{f.name}" for f in dataclasses.fields(fx)
            if f.name not in ("categories", *skip)
            and getattr(fx, f.name) != getattr(fy, f.name)]  # fmt: skip
    return out


# ---------------------------------------------------------------- 1: project of a fleet
SIZES = (32, 64, 128)
CYCLE = ((0.8, 14.0), (0.5, 17.0))  # gpu's daily cycle per row (chain 0, chain 1)
RULES = RecoveryRules(category_recovery=(("gpu", "swap"), ("net", "swap")),
                      category_detection_hours=(("gpu", 0.1), ("net", 0.05),
                                                ("rk", 0.02)))  # fmt: skip
PFLAGS = ["--compute-hours", "8", "--start-hour", "10", "--checkpoint-interval", "0.5",
          "--snapshot-hours", "0.03", "--restart-hours", "0.3", "--swap-hours", "0.2",
          "--bad-node-fraction", "0.1", "--bad-node-multiplier", "6", "--lemon-failures",
          "2"]  # fmt: skip


def proj_files(a):
    """fit_fleets' fleet B, one draw of each chain, with B's record: the DataArray, and a
    posterior file with the recovery rules and gpu's daily cycle as per-draw rows."""
    import arviz as az

    ff = R10.fleets(argparse.Namespace(out=a.out, draws=100), False)
    ra = ff.posterior["rate"].attrs
    recB = dict(n_gpus=R9.NB, exposure_clock=ra.get("exposure_clock"),
                maintenance_rate=R9.MAINT_B,
                **{k: ra[k] for k in M8.LLAMA_SHAPE if k in ra})  # fmt: skip
    thin = ff.posterior["fleet_rate"].sel(fleet="B").isel(draw=slice(0, 1))
    thin = thin.drop_vars("fleet", errors="ignore").assign_attrs(recB)
    pf = a.out / "fleetB17.nc"
    if not pf.exists():
        amp, pk = np.zeros(thin.shape), np.zeros(thin.shape)
        for ch, (x, h) in enumerate(CYCLE):
            amp[ch, 0, 0], pk[ch, 0, 0] = x, h
        dims = ("chain", "draw", "category")
        rec = {**recB, "recovery_rules": RULES.to_json()}
        post = xr.Dataset({"rate": thin.assign_attrs(rec), "diurnal_amplitude": (dims, amp),
                           "diurnal_peak_hour": (dims, pk)}, attrs=rec)  # fmt: skip
        az.InferenceData(posterior=post).to_netcdf(pf)
    return thin, pf


def proj_scen(idata):
    """default_scenario(file) with the fields of ``PFLAGS``."""
    sc = default_scenario(idata)
    job = dataclasses.replace(sc.job, compute_hours=8.0, start_hour=10.0)
    pol = dataclasses.replace(sc.policy, checkpoint_interval=0.5, snapshot_hours=0.03,
                              restart_hours=0.3, swap_hours=0.2, lemon_failures=2)  # fmt: skip
    fm = dataclasses.replace(sc.failures, bad_node_fraction=0.1, bad_node_multiplier=6.0)
    return dataclasses.replace(sc, job=job, policy=pol, failures=fm)


def run_proj(a):
    import arviz as az

    ck, neg, comp = {}, {}, {}
    S = a.seed
    C9.SEED = S
    root = resolve_seed(S)
    thin, pf = proj_files(a)
    idata = az.from_netcdf(pf)
    sc = proj_scen(idata)
    ct, m = (400, 200) if a.smoke else (2000, 1000)
    cats = [(c.name, c.unit, c.recovery, c.detection_hours) for c in sc.failures.categories]
    print(f"file: record {dict(thin.attrs)}; default_scenario categories {cats}; maintenance "
          f"{sc.failures.maintenance_rate}; credible {ct} in groups of {m}")  # fmt: skip
    ck["default_scenario(file): recovery / detection from the recorded rules"] = cats == [
        ("gpu", "gpu", "swap", 0.1), ("net", "node", "swap", 0.05),
        ("rk", "rack", "restart", 0.02)]  # fmt: skip
    ph = rate_draws(sc, idata).physics
    ck["physics_draws: gpu's cycle per row (draw-major)"] = bit(
        ph.diurnal_amplitude[:, 0], [x for x, _ in CYCLE]
    ) and bit(ph.diurnal_peak_hour[:, 0], [h for _, h in CYCLE])
    # the command line and the API
    out = a.out / f"proj17_{S}"
    shutil.rmtree(out, ignore_errors=True)
    sizes = ",".join(map(str, SIZES))
    args = ["project", "--posterior", str(pf), "--n-gpus", sizes, *PFLAGS, "--n-trials",
            str(a.n_sim), "--credible-trials", str(ct), "--trials-per-draw", str(m),
            "--keep-trials"]  # fmt: skip
    rc = C9.cli(args, out, extra=["--no-plot"])
    ck["relmc project --posterior F (node flags) rc == 0"] = rc == 0
    if rc:
        return ck, neg, comp
    file = xr.open_dataset(out / "projection.nc").load()
    kw = dict(n_gpus=list(SIZES), n_trials=a.n_sim, n_threads=1, keep_trials=True,
              credible_trials=ct, trials_per_draw=m)  # fmt: skip
    t0 = time.time()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        api = relmc.project(idata, scenario=sc, seed=S, **kw)
    print(
        f"API project {time.time() - t0:.1f}s; mean ETTR {np.round(api.ettr_mean.values, 4)};"
        f" ettr_credible median {np.round(api.ettr_credible.sel(quantile=0.5).values, 4)}"
    )
    ck["API project(file): no UnreadFieldWarning"] = not _unread(w)
    bad, miss = C9.diff_vars(file, api)
    print(f"  projection.nc vs API: {len(file.data_vars)} variables; differing {bad}; "
          f"missing {miss}")  # fmt: skip
    ck["projection.nc == project(file, my scenario): every variable (bit)"] = not (bad or miss)
    ck["projection.nc scenario attr == API's"] = R15._js(R15._scen_attr(file)) == R15._js(
        R15._scen_attr(api)
    )
    ck["attrs n_draws, n_draws_credible == 2, 2"] = (
        int(file.attrs["n_draws"]), int(file.attrs["n_draws_credible"])) == (2, 2)  # fmt: skip
    Q = relmc.project(idata, scenario=sc, seed=S + 1, **kw)
    b2, _ = C9.diff_vars(file, Q)
    neg[("proj", None, "API seed + 1")] = (not b2, f"{len(b2)} of {len(file.data_vars)} differ")
    # a scenario's own cycle on gpu beside the file's rows: warned of
    g = next(c for c in sc.failures.categories if c.name == "gpu")
    sw = dataclasses.replace(sc.failures, categories=tuple(
        dataclasses.replace(c, diurnal_amplitude=0.3, diurnal_peak_hour=5.0) if c is g else c
        for c in sc.failures.categories))  # fmt: skip
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        relmc.simulate(R6.at_size(dataclasses.replace(sc, failures=sw), 64), rates=idata,
                       n_trials=256, seed=S, n_threads=1)  # fmt: skip
    uw = _unread(w)
    print(f"  scenario cycle beside the rows: {uw}")
    ck["a scenario's gpu cycle beside the rows: UnreadFieldWarning names it"] = any(
        "diurnal_amplitude" in x for x in uw
    ) and any("diurnal_peak_hour" in x for x in uw)
    # the credible simulation rebuilt (r10's credible_block: nested draws, seeds, quantiles)
    a2 = argparse.Namespace(**{**vars(a), "ct": ct, "m": m})
    R10.credible_block(a2, "file", idata, sc, SIZES, None, None, (), ck, neg, comp)
    # each size against the independent node model
    me = M8.Mine(idata, sc)
    fm = me.f()
    nd = len(fm)
    print(f"  my f {np.round(fm, 5).tolist()}; job rates "
          + "; ".join(f"{N}: {np.round(me.lam(N), 4).tolist()}" for N in SIZES))  # fmt: skip
    shown = ("events", "int_gpu", "nodes_excluded_bad", "lost_node_swap", "maintenance_events")

    def spec_of(k, N, var, cyc):
        kk = (k + 1) % nd if var == "other draw's row" else k
        amp = [cyc[kk], (0.0, 0.0), (0.0, 0.0)]
        if var == "daily cycle ignored":
            amp[0] = (0.0, 0.0)
        s = _node_spec_of(R6.at_size(sc, N), me, N, kk, amp=amp)
        if var == "node model ignored":
            s["f"] = 0.0
        return s

    variants = (None, "node model ignored", "daily cycle ignored", "other draw's row")
    s0 = spec_of(0, 64, None, CYCLE)
    dif = _policy_diff(s0, R6.at_size(sc, 64))
    ck["indep spec's policy / job / failure model == my scenario's"] = not dif
    if dif:
        print(f"    indep spec differs in {dif}")
    # the DataArray with its record; gpu's cycle in the scenario (r16's fleetdiur way)
    gA = dataclasses.replace(g, diurnal_amplitude=CYCLE[0][0], diurnal_peak_hour=CYCLE[0][1])
    scA = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=tuple(
        gA if c is g else c for c in sc.failures.categories)))  # fmt: skip
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        resA = relmc.project(thin, scenario=scA, seed=S, **{**kw, "credible_trials": 0})
    ck["API project(DataArray): no UnreadFieldWarning"] = not _unread(w)
    routes = {"file": (idata, sc, api, CYCLE, variants),
              "DataArray": (thin, scA, resA, (CYCLE[0],) * nd,
                            (None, "daily cycle ignored"))}  # fmt: skip
    for N in SIZES:
        scN = R6.at_size(sc, N)
        dr = rate_draws(scN, idata)
        jr = job_rates(scN, dr)
        ck[f"N={N} job_rates == my Lambda (rel)"] = float(np.abs(jr / me.lam(N) - 1).max())
        ck[f"N={N} maintenance_rate == record / mean f (rel)"] = abs(
            maintenance_rate(scN, dr) / (R9.MAINT_B / fm.mean()) - 1)  # fmt: skip
        for r, (src, scr, res, cyc, varr) in routes.items():
            t1 = time.time()
            P = relmc.simulate(R6.at_size(scr, N), rates=src, n_trials=a.n_sim,
                               seed=size_seed(root, N), overhead_seed=root,
                               n_threads=1)  # fmt: skip
            ck[f"[{r}] N={N} kept ettr, draw == simulate(size_seed) (bit)"] = bit(
                P.ettr.values, res.ettr.sel(n_gpus=N).values) and bit(
                P.draw.values, res.draw.values)  # fmt: skip
            Sm = relmc.summarize(P)
            rs = res.sel(n_gpus=N)
            both = [v for v in Sm.data_vars if v in rs.data_vars]
            bs = [v for v in both if not bit(Sm[v].values, rs[v].values)]
            ck[f"[{r}] N={N} every summary in project == summarize(simulate) (bit)"] = not bs
            if bs:
                print(f"    [{r}] N={N}: {len(both)} summaries shared; differing {bs}")
            t = indep_nodes.relmc_table(P, s0)
            for k in range(nd):
                mask = P.draw.values == k
                for j, var in enumerate(varr):
                    b = r5_indep.run_r5(spec_of(k, N, var, cyc), a.n_indep,
                                        17100 * N + 7 * k + 100 * j + 1000 * (r == "DataArray")
                                        + 100_000 * a.iseed, F=None, node=True)  # fmt: skip
                    if var is None:
                        print(f"    [{r}] N={N} d{k} relmc/indep: {_shown(t, mask, b, shown)}")
                    comp[(r, N, k, var or "documented")] = r4_run.compare_tables(
                        f"{r} N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0,
                        quiet=True,
                    )  # fmt: skip
            print(f"  [{r}] N={N}: mean ETTR {float(P.ettr.mean()):.4f} "
                  f"({time.time() - t1:.1f}s)")  # fmt: skip
    return ck, neg, comp


# ---------------------------------------------------------------- 2: straggler + SDC sweep
SCATS = (
    dict(name="crash", rate=0.12, unit="job", recovery="swap", detection_hours=0.1),
    dict(name="hang", rate=0.05, unit="job", detection_hours=0.25),
    dict(name="slow", kind="straggler", rate=0.06, unit="job", detection_hours=1.0,
         straggler_speed=0.5),
    dict(name="silent", kind="sdc", rate=0.05, unit="job", sdc_latency_hours=2.0,
         sdc_latency_distribution="exponential"),
)  # fmt: skip
SAXES = {"failures.categories.slow.straggler_speed": [0.3, 0.7],
         "policy.checkpoint_retention": [1, 4]}  # fmt: skip
SPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2)


def _tv(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)


def sdc_sweep_toml(a, seed):
    toml = a.out / f"sweepsdc17_{seed}_{a.n_sim}.toml"
    toml.write_text(
        f"seed = {seed}\nn_trials = {a.n_sim}\nposterior = \"point\"\nkeep_trials = true\n"
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/sweepsdc17_default.zarr"\n\n[base]\n'
        "cluster.n_gpus = 64\njob.compute_hours = 24.0\n"
        + "".join(f"policy.{k} = {v}\n" for k, v in SPOL.items())
        + "".join("\n[[base.failures.categories]]\n"
                  + "".join(f"{k} = {_tv(v)}\n" for k, v in c.items()) for c in SCATS)
        + "\n[axes]\n" + "".join(f'"{k}" = {v}\n' for k, v in SAXES.items())
    )  # fmt: skip
    return toml


def sdc_cell_scen(speed, K):
    cats = tuple(relmc.Category(**{**c, "straggler_speed": speed} if c["name"] == "slow" else c)
                 for c in SCATS)  # fmt: skip
    return relmc.Scenario(cluster=relmc.Cluster(n_gpus=64),
                          failures=relmc.FailureModel(categories=cats),
                          job=relmc.Job(compute_hours=24.0),
                          policy=relmc.Policy(**SPOL, checkpoint_retention=K))  # fmt: skip


class PointRates:
    """``r8_mttf.Mine``'s face for point rates of unit ``job`` (one draw), for
    ``r16_proj.spec_from``."""

    def __init__(self, sc):
        fc = [c for c in sc.failures.categories if c.kind == "failure"]
        self.cats = [c.name for c in fc]
        self.rate = np.array([[c.rate for c in fc]])

    def fitted(self, N):
        return self.rate


def run_sweepsdc(a):
    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    toml = sdc_sweep_toml(a, a.seed)
    sp = SweepSpec.from_toml(toml)
    root = resolve_seed(a.seed)
    print(f"spec: dims {sp.dims}, shape {sp.shape}, posterior {sp.posterior}")
    grid = list(np.ndindex(*sp.shape))
    for i, idx in enumerate(grid):
        want = sdc_cell_scen(*(v[j] for v, j in zip(SAXES.values(), idx, strict=True)))
        got = sp.scenario(i)
        ck[f"cell {i} spec.scenario == my scenario (the [base] categories, the axes)"] = got == want
        if got != want:
            gd, wd = got.to_dict(), want.to_dict()
            print(f"    cell {i} differs in {[k for k in gd if gd[k] != wd.get(k)]}: "
                  f"{R15._js(gd)[:1500]}")  # fmt: skip
    t0 = time.time()
    cube = R16.api_cube(a, sp, "sweepsdc17_api")
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    print(
        f"API run_sweep {time.time() - t0:.1f}s; {len(cube.data_vars)} variables, {len(tv)} "
        f"with a trial dim; mean ETTR {np.round(cube['ettr_mean'].values, 4).tolist()}"
    )
    ems = {}
    shown = ("int_slow", "int_silent", "lost_straggler", "sdc_rollbacks", "sdc_from_scratch",
             "sdc_rework_hours")  # fmt: skip
    variants = (None, "stragglers ignored", "SDC ignored", "the other straggler speed",
                "the other retention")  # fmt: skip

    def spec_of(sc, me, var):
        s = R16.spec_from(sc, me, 64, 0, var)
        if var == "the other straggler speed":
            c = next(c for c in s["cats"] if c["kind"] == "straggler")
            c["speed"] = 1.0 - c["speed"]
        if var == "the other retention":
            s["K"] = 5 - s["K"]
        return s

    for i, idx in enumerate(grid):
        cell = cube.isel(dict(zip(sp.dims, idx, strict=True)))
        sc = sp.scenario(i)
        P = relmc.simulate(sc, n_trials=a.n_sim, seed=SC.cell_seed(a.seed, i),
                           overhead_seed=root, n_threads=1)  # fmt: skip
        Sm = SC.summarize_cell(P, sp.quantiles)
        bad = [v for v in Sm.data_vars
               if v in cell.data_vars and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
        ck[f"cell {i} every summary == summarize_cell(simulate(cell_seed)) (bit)"] = not bad
        badt = [v for v in tv if v not in P or not bit(P[v].values, cell[v].values)]
        ck[f"cell {i} every kept per-trial variable == simulate's (bit)"] = not badt
        if bad or badt:
            print(f"  cell {i}: summaries differing {bad}; trial variables differing {badt}")
        ems[i] = Sm["ettr_mean"].values
        me = PointRates(sc)
        s0 = R16.spec_from(sc, me, 64, 0)
        dif = _policy_diff(s0, sc, indep2.build_relmc)
        ck[f"cell {i} indep spec's policy / job / failure model == the cell's"] = not dif
        if dif:
            print(f"    cell {i}: indep spec differs in {dif}")
        t = indep2.relmc_table(P, s0)
        for j, var in enumerate(variants):
            b = r5_indep.run_r5(spec_of(sc, me, var), a.n_indep,
                                17200 + 101 * i + 1000 * j + 100_000 * a.iseed, F=None,
                                node=False)  # fmt: skip
            if var is None:
                print(f"  cell {i} {sp.cell_values(i)}: ETTR {float(cell['ettr_mean']):.4f}; "
                      f"relmc/indep {_shown(t, slice(None), b, shown)}")  # fmt: skip
            comp[("sweepsdc", i, 0, var or "documented")] = r4_run.compare_tables(
                f"cell {i}", {x: y.copy() for x, y in t.items()}, b, s0, quiet=True
            )
    R16.mirror_negatives("sweepsdc", sp.n_cells, ems, neg)
    R16.cli_layouts(a, toml, cube, "sweepsdc17", ck)
    t2 = sdc_sweep_toml(a, a.seed + 1)
    R16.seed_negative(a, t2, cube, "sweepsdc17", "sweepsdc", neg)
    return ck, neg, comp


# ---------------------------------------------------------------- 3: [failures] fields
FF = dict(maintenance_rate=0.1, maintenance_hours=0.5, trend_shape=2.0, fleet_age_hours=30.0,
          bad_node_fraction=0.1, bad_node_multiplier=6.0)  # fmt: skip
FPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2)
M_REC = 20  # planned events recorded in the 500-h window: 0.04 / h
NE = 256  # the event fit's size (its log's): about 0.2 failures an hour


def ff_toml(N, W, net, drop=()):
    return (f"[cluster]\nn_gpus = {N}\n\n[job]\ncompute_hours = {W}\n\n[policy]\n"
            + "".join(f"{k} = {v}\n" for k, v in FPOL.items())
            + "\n[failures]\n"
            + "".join(f"{k} = {v}\n" for k, v in FF.items() if k not in drop)
            + ('\n[[failures.categories]]\nname = "net"\ndetection_hours = 0.1\n'
               if net else ""))  # fmt: skip


def ff_scen(base, N, W, net=True, fields=True, **over):
    sc = R6.at_size(R9.with_compute(base, W), N)
    fm = dataclasses.replace(sc.failures, **({**FF, **over} if fields else {}))
    if net:
        fm = dataclasses.replace(fm, categories=tuple(
            dataclasses.replace(c, detection_hours=0.1) if c.name == "net" else c
            for c in fm.categories))  # fmt: skip
    return dataclasses.replace(sc, failures=fm, policy=dataclasses.replace(sc.policy, **FPOL))


def cli_err(args, out):
    """``r9_cli.cli`` keeping stderr (the warnings)."""
    cmd = ["taskset", "-c", "1", "relmc", *args, "--seed", str(C9.SEED), "--n-threads", "1",
           "--out", str(out), "--quiet"]  # fmt: skip
    t0 = time.time()
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"$ {' '.join(cmd[3:])}  ({time.time() - t0:.1f}s, rc {r.returncode})")
    if r.returncode:
        print(r.stderr[-2000:])
    return r.returncode, r.stderr


def ff_case(a, lab, toml_text, pf, ss, idata, ck, neg, negs):
    """``relmc simulate TOML --posterior pf`` against ``simulate(ss, rates=idata)``; negatives
    ``negs`` name -> scenario (bit). Returns (file, the command's stderr, API warnings)."""
    toml = a.out / f"ff17_{lab}.toml"
    toml.write_text(toml_text)
    out = a.out / f"ff17_{lab}_{a.seed}"
    shutil.rmtree(out, ignore_errors=True)
    rc, err = cli_err(["simulate", str(toml), "--posterior", str(pf), "--n-trials",
                       str(a.n_sim)], out)  # fmt: skip
    ck[f"[{lab}] relmc simulate TOML --posterior rc == 0"] = rc == 0
    if rc:
        return None, err, []
    P = xr.open_dataset(out / "simulation.nc").load()
    theirs = R15._scen_attr(P)
    ok = R15._js(ss.to_dict()) == R15._js(theirs)
    ck[f"[{lab}] file's scenario attr == mine (to_dict)"] = ok
    if not ok:
        m = ss.to_dict()
        for k in m:
            if R15._js(m[k]) != R15._js(theirs.get(k)):
                print(f"    differs in [{k}]: mine {R15._js(m[k])[:900]}\n"
                      f"      file {R15._js(theirs.get(k))[:900]}")  # fmt: skip
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        api = relmc.simulate(ss, rates=idata, n_trials=a.n_sim, seed=a.seed, n_threads=1)
    bad, miss = C9.diff_vars(P, api)
    print(f"  [{lab}] file vs API: {len(P.data_vars)} variables, differing {bad}, missing "
          f"{miss}; mean ETTR {float(P.ettr.mean()):.4f}; maintenance events "
          f"{float(P.maintenance_events.mean()):.3f}; automated repairs "
          f"{float(P.repairs_auto.mean()):.3f}")  # fmt: skip
    ck[f"[{lab}] simulation.nc == simulate(my scenario, rates=file) every variable (bit)"] = not (
        bad or miss
    )
    for nl, sv in {"API seed + 1": None, **negs}.items():
        Q = relmc.simulate(ss if sv is None else sv, rates=idata, n_trials=a.n_sim,
                           seed=a.seed + (sv is None), n_threads=1)  # fmt: skip
        b2, _ = C9.diff_vars(P, Q)
        neg[("failfields", lab, nl)] = (not b2, f"{len(b2)} of {len(P.data_vars)} differ")
    return P, err, _unread(w)


def run_failfields(a):
    import arviz as az

    ck, neg, comp = {}, {}, {}
    S, N, W = a.seed, 64, 24.0
    C9.SEED = S
    csv = R15.counts_csv(a)
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    data["maintenance_count"] = xr.DataArray(np.int64(M_REC))
    conj = relmc.fit_conjugate(data, n_draws=50, n_chains=2, seed=S)
    pf = a.out / f"conj17_thin_{S}.nc"
    pf.unlink(missing_ok=True)
    az.InferenceData(posterior=conj.posterior.isel(draw=slice(0, 1))).to_netcdf(pf)
    idata = az.from_netcdf(pf)
    d0 = default_scenario(idata)
    print(
        f"conjugate: record maintenance {idata.posterior.attrs.get('maintenance_rate')} "
        f"(default scenario {d0.failures.maintenance_rate}); clock "
        f"{idata.posterior['rate'].attrs.get('exposure_clock')}; categories "
        f"{[(c.name, c.unit, c.recovery, c.detection_hours) for c in d0.failures.categories]}"
    )
    ss = ff_scen(d0, N, W)
    ss0 = ff_scen(d0, N, W, net=False)
    negs = {"API without the TOML's [failures] fields": ff_scen(d0, N, W, fields=False),
            "API the record's maintenance rate": ff_scen(
                d0, N, W, maintenance_rate=d0.failures.maintenance_rate)}  # fmt: skip
    P, err, uw = ff_case(a, "conj_net", ff_toml(N, W, True), pf, ss, idata, ck, neg, negs)
    ck["[conj_net] no UnreadFieldWarning (the conjugate file carries no physics)"] = not uw
    ff_case(a, "conj_fields", ff_toml(N, W, False), pf, ss0, idata, ck, neg,
            {"API the record's maintenance rate": ff_scen(
                d0, N, W, net=False, maintenance_rate=d0.failures.maintenance_rate)})  # fmt: skip
    # no maintenance_rate in the TOML: the record's (0.04 / h) is the default it leaves
    ff_case(a, "conj_nomaint", ff_toml(N, W, True, drop=("maintenance_rate",)), pf,
            ff_scen(d0, N, W, maintenance_rate=d0.failures.maintenance_rate), idata, ck, neg,
            {"API maintenance off (0)": ff_scen(d0, N, W, maintenance_rate=0.0),
             "API maintenance 0.1 (conj_net's)": ss})  # fmt: skip
    if P is None:
        return ck, neg, comp
    me = M8.Mine(idata, ss)
    fm = me.f()
    print(
        f"  my f {np.round(fm, 5).tolist()}; job rates at {N} {np.round(me.lam(N), 4).tolist()}"
        f"; maintenance per exposed hour {FF['maintenance_rate'] / fm.mean():.5f}"
    )
    dr = rate_draws(ss, idata)
    jr = job_rates(ss, dr)
    ck["[conj_net] job_rates == my Lambda (rel)"] = float(np.abs(jr / me.lam(N) - 1).max())
    ck["[conj_net] maintenance_rate == TOML's / mean f (rel)"] = abs(
        maintenance_rate(ss, dr) / (FF["maintenance_rate"] / fm.mean()) - 1)  # fmt: skip
    s0 = _node_spec_of(ss, me, N, 0)
    dif = _policy_diff(s0, ss)
    ck["[conj_net] indep spec's policy / job / failure model == my scenario's"] = not dif
    if dif:
        print(f"    indep spec differs in {dif}")
    var_sc = {
        None: ss,
        "maintenance: the record's rate": ff_scen(
            d0, N, W, maintenance_rate=d0.failures.maintenance_rate),
        "maintenance hours ignored": ff_scen(d0, N, W, maintenance_hours=0.0),
        "trend ignored": ff_scen(d0, N, W, trend_shape=1.0),
        "bad nodes ignored": ff_scen(d0, N, W, bad_node_fraction=0.0),
        "other draw's row": ss,
    }  # fmt: skip
    shown = ("events", "maintenance_events", "lost_maintenance", "int_gpu", "nodes_excluded_bad")
    t = indep_nodes.relmc_table(P, s0)
    nd = len(fm)
    for k in range(nd):
        mask = P.draw.values == k
        for j, (var, sv) in enumerate(var_sc.items()):
            kk = (k + 1) % nd if var == "other draw's row" else k
            b = r5_indep.run_r5(_node_spec_of(sv, M8.Mine(idata, sv), N, kk), a.n_indep,
                                17300 + 7 * k + 100 * j + 100_000 * a.iseed, F=None,
                                node=True)  # fmt: skip
            if var is None:
                print(f"    d{k} relmc/indep: {_shown(t, mask, b, shown)}")
            comp[("conj", N, k, var or "documented")] = r4_run.compare_tables(
                f"conj d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0, quiet=True
            )
    # the same fields beside an event fit whose draws carry a trend
    ev = R10.event_fit(argparse.Namespace(out=a.out, draws=100, nodes=None))
    pe = a.out / "ev17_thin.nc"
    if not pe.exists():
        az.InferenceData(posterior=ev.posterior.isel(draw=slice(0, 1))).to_netcdf(pe)
    ie = az.from_netcdf(pe)
    post = ie.posterior
    A0 = float(post.attrs["fleet_age_hours"])
    beta = post["trend_shape"].transpose("draw", "chain").values.ravel()
    amp = M8.flat(post["diurnal_amplitude"])
    peak = M8.flat(post["diurnal_peak_hour"])
    de = default_scenario(ie)
    print(
        f"event fit: fleet_age_hours {A0}; trend per draw {np.round(beta, 4).tolist()}; "
        f"amplitude {np.round(amp, 3).tolist()}; peak {np.round(peak, 2).tolist()}; "
        f"categories {[(c.name, c.unit, c.recovery) for c in de.failures.categories]}"
    )
    N = NE
    se = ff_scen(de, N, W)
    Pe, err, uw = ff_case(a, "events_net", ff_toml(N, W, True), pe, se, ie, ck, neg,
                          {"API without the TOML's [failures] fields": ff_scen(
                              de, N, W, fields=False)})  # fmt: skip
    print(f"  API UnreadFieldWarning: {uw}\n  command's stderr: {err.strip()[:1500]}")
    for fld in ("trend_shape", "fleet_age_hours"):
        ck[f"[events_net] API UnreadFieldWarning names {fld}"] = any(fld in x for x in uw)
        ck[f"[events_net] the command's stderr names {fld}"] = fld in err
    kept = [f for f in ("maintenance_rate", "maintenance_hours", "bad_node_fraction",
                        "bad_node_multiplier") if f in " ".join(uw)]  # fmt: skip
    ck["[events_net] no warning on the fields the posterior does not replace"] = not kept
    if Pe is None:
        return ck, neg, comp
    me = M8.Mine(ie, se)
    print(f"  my f {np.round(me.f(), 5).tolist()}; job rates {np.round(me.lam(N), 4).tolist()}")
    dr = rate_draws(se, ie)
    jr = job_rates(se, dr)
    ck["[events_net] job_rates == my Lambda (rel)"] = float(np.abs(jr / me.lam(N) - 1).max())
    ph = dr.physics
    ck["[events_net] physics_draws trend / fleet age == the file's"] = bit(
        ph.trend_shape, beta) and ph.fleet_age_hours == A0  # fmt: skip
    ak0 = list(zip(amp[0], peak[0], strict=True))
    se0 = _node_spec_of(se, me, N, 0, amp=ak0, beta=beta[0], A0=A0)
    dif = _policy_diff(se0, se, indep_nodes.build_relmc)
    print(f"  indep spec vs my scenario (trend fields are the posterior's): {dif}")
    te = indep_nodes.relmc_table(Pe, se0)
    for k in range(len(beta)):
        mask = Pe.draw.values == k
        ak = list(zip(amp[k], peak[k], strict=True))
        for j, var in enumerate((None, "the TOML's trend (2, 30 h)")):
            tr = (FF["trend_shape"], FF["fleet_age_hours"]) if var else (beta[k], A0)
            s = _node_spec_of(se, me, N, k, amp=ak, beta=tr[0], A0=tr[1])
            b = r5_indep.run_r5(s, a.n_indep, 17400 + 7 * k + 100 * j + 100_000 * a.iseed,
                                F=None, node=True)  # fmt: skip
            if var is None:
                print(f"    d{k} relmc/indep: {_shown(te, mask, b, shown)}")
            comp[("events", N, k, var or "documented")] = r4_run.compare_tables(
                f"events d{k}", {x: y[mask].copy() for x, y in te.items()}, b, s, quiet=True
            )
    return ck, neg, comp


# ---------------------------------------------------------------- 4: [precision] on Slurm
MT = 700
PAXES = {"cluster.n_gpus": [64, 512], "policy.restart_hours": [0.3, 1.5]}


def prec_spec_toml(a, pf, seed, prec, name):
    toml = a.out / f"{name}.toml"
    pr = "".join(f"{k} = {v}\n" for k, v in (prec or {}).items())
    toml.write_text(
        f'seed = {seed}\nn_trials = {a.budget}\nposterior = "{pf}"\n'
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/{name}_default.zarr"\n\n[base]\n'
        "job.compute_hours = 24.0\n"
        + "".join(f"policy.{k} = {v}\n" for k, v in FPOL.items() if k != "restart_hours")
        + "\n[axes]\n" + "".join(f'"{k}" = {v}\n' for k, v in PAXES.items())
        + (f"\n[precision]\n{pr}" if prec else "")
    )  # fmt: skip
    return toml


def submit(a, toml, st, array, extra=()):
    cmd = ["relmc", "sweep", "submit", str(toml), "--store", str(st), "--array", str(array),
           "--partition", "debug", "--cpus-per-task", "1", "--time", "00:20:00", "--python",
           str(a.out / "python_core1.sh"), *extra]  # fmt: skip
    t0 = time.time()
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"  $ {' '.join(cmd)} ({time.time() - t0:.1f}s, rc {r.returncode})\n"
          f"    {r.stdout.strip()[-1500:]}\n    {r.stderr.strip()[-1500:]}")  # fmt: skip
    return r


def run_slurmprec(a):
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    S, B = a.seed, a.budget
    root = resolve_seed(S)
    pf = a.out / "conjprec17.nc"
    if not pf.exists():
        data = relmc.load_counts(str(R15.counts_csv(a)), n_gpus=24, duration_hours=500.0)
        relmc.fit_conjugate(data, n_draws=50, n_chains=2, seed=1).to_netcdf(pf)
    idata = az.from_netcdf(pf)
    sp0 = SweepSpec.from_toml(prec_spec_toml(a, pf, S, None, f"slurmprec17_noprec_{S}"))
    grid = list(np.ndindex(*sp0.shape))
    t0 = time.time()
    full = {i: P8.sim(sp0.scenario(i), idata, B, SC.cell_seed(S, i), root).ettr.values
            for i in range(sp0.n_cells)}  # fmt: skip
    print(f"full runs ({B} trials a cell) {time.time() - t0:.1f}s")
    curves = {i: P8.curve(e, B, MT) for i, e in full.items()}
    for i, e in full.items():
        print(f"  cell {i} {sp0.cell_values(i)}: mean ETTR {e.mean():.5f}; mean + 4 SE per "
              f"round {[(n, round(c, 5)) for n, c in curves[i]]}")  # fmt: skip
    lo = min(full, key=lambda i: full[i].mean())
    R = R15._mid_rse(R15._rounds(full[0], B, MT)[1])
    H = R15._mid_floor(curves[lo])
    prec = dict(target_rse=R, hopeless_ettr=H, min_trials=MT)
    pk = dict(tse=None, trse=R, hopeless=H, min_trials=MT)
    rep = {i: P8.replay(e, B, **pk) for i, e in full.items()}
    print(f"precision {prec} (R: cell 0's rounds 2 / 3 midway; H: cell {lo}'s first two "
          f"rounds); replayed per cell {[(n, sb) for n, sb, _ in rep.values()]}")  # fmt: skip
    toml = prec_spec_toml(a, pf, S, prec, f"slurmprec17_{S}_{B}")
    sp = SweepSpec.from_toml(toml)
    t0 = time.time()
    cube = R16.api_cube(a, sp, f"slurmprec17_api_{S}")
    print(f"API run_sweep {time.time() - t0:.1f}s; {len(cube.data_vars)} variables; n_trials "
          f"{cube['n_trials'].values.tolist()}; stopped_code {cube['stopped_code'].values.tolist()}"
          f" ({dict(cube['stopped_code'].attrs)})")  # fmt: skip
    prc = relmc.Precision(**prec)
    codes = {}
    for i, idx in enumerate(grid):
        cell = cube.isel(dict(zip(sp.dims, idx, strict=True)))
        n, sb, _ = rep[i]
        rn, rc = int(cell["n_trials"]), int(cell["stopped_code"])
        codes.setdefault(sb, set()).add(rc)
        ck[f"cell {i} n_trials == replayed rule"] = rn == n
        P = relmc.simulate(sp.scenario(i), rates=idata, n_trials=B, seed=SC.cell_seed(S, i),
                           overhead_seed=root, n_threads=1, precision=prc)  # fmt: skip
        ck[f"cell {i} simulate(precision) (n, stopped_by) == replayed"] = (
            P.sizes["trial"], str(P.attrs["stopped_by"])) == (n, sb)  # fmt: skip
        Sm = SC.summarize_cell(P, sp.quantiles)
        bad = [v for v in Sm.data_vars
               if v in cell.data_vars and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
        ck[f"cell {i} every variable == summarize_cell(simulate(precision)) (bit)"] = not bad
        print(f"  cell {i}: recorded {rn} code {rc}; replayed {n} {sb}; differing {bad}")
        for mis in ("rounds add min_trials", "min not rounded", "mean - 4 SE", "<="):
            neg[("slurmprec", i, f"rule misread: {mis}")] = (
                P8.replay(full[i], B, **pk, mis=mis)[:2] == (rn, sb), "")  # fmt: skip
    print(f"  label -> stopped_code: {codes}")
    ck["one stopped_code per label, distinct"] = all(len(v) == 1 for v in codes.values()) and (
        len({next(iter(v)) for v in codes.values()}) == len(codes))  # fmt: skip
    ck["stop labels seen: more than one"] = len(codes) > 1
    # Slurm's tasks are not children of this process: a wrapper pins them to core 1 too
    py1 = a.out / "python_core1.sh"
    py1.write_text(f'#!/bin/sh\nexec taskset -c 1 {sys.executable} "$@"\n')
    py1.chmod(0o755)

    def cmp(lab, st):
        bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        print(f"  [{lab}] differing {bad}; missing {miss}")
        ck[f"[{lab}] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)

    st = a.out / f"slurmprec17_fresh_{S}.zarr"
    for p in (st, Path(f"{st}.slurm")):
        shutil.rmtree(p, ignore_errors=True)
    r = submit(a, toml, st, sp.n_cells + 2, ["--wait"])
    ck[
        f"submit --array {sp.n_cells + 2} (> {sp.n_cells} cells): rc 2, names slurm.array, "
        "nothing written"
    ] = (
        r.returncode == 2
        and "slurm.array" in r.stderr
        and not st.exists()
        and not Path(f"{st}.slurm").exists()
    )
    r = submit(a, toml, st, sp.n_cells, ["--wait"])
    ck[f"submit --array {sp.n_cells} --wait rc == 0"] = r.returncode == 0
    if r.returncode == 0:
        cmp(f"Slurm array of {sp.n_cells}, fresh store", st)
    # a partly done store
    st = a.out / f"slurmprec17_part_{S}.zarr"
    for p in (st, Path(f"{st}.slurm")):
        shutil.rmtree(p, ignore_errors=True)
    rc = R16.sweep_cli([str(toml), "--store", str(st), "--shard", "1", "--shards", "2"],
                       "shard 1 of 2")  # fmt: skip
    ck["relmc sweep run --shard 1 --shards 2 rc == 0"] = rc == 0
    done = relmc.sweep.open_sweep(st, load=True)
    missing = [i for i in range(sp.n_cells) if i % 2 == 0]
    print(f"  partial store: n_trials {done['n_trials'].values.tolist()}")
    r = submit(a, toml, st, sp.n_cells, ["--dry-run"])
    m = re.search(r"--array=(\S+)", r.stdout)
    cl = re.search(r"<<'RELMC_CELLS'\n(.*?)\nRELMC_CELLS", r.stdout, re.S)
    ck[f"dry run on the partial store: --array=0-{len(missing) - 1}, cells {missing}"] = (
        r.returncode == 0 and m is not None and m.group(1) == f"0-{len(missing) - 1}"
        and cl is not None and cl.group(1).strip() == ",".join(map(str, missing)))  # fmt: skip
    r = submit(a, toml, st, sp.n_cells, ["--wait"])
    ck[f"submit --array {sp.n_cells} --wait on the partial store rc == 0"] = r.returncode == 0
    logs = sorted(Path(f"{st}.slurm").glob("*.out")) if Path(f"{st}.slurm").exists() else []
    ck[f"the partial store's array ran {len(missing)} tasks (at most one a missing cell)"] = (
        len(logs) == len(missing))  # fmt: skip
    print(f"  task logs {[p.name for p in logs]}")
    if r.returncode == 0:
        cmp("Slurm array on the partly done store", st)
    # negatives (in process)
    for lab, (sd, pr) in {
        "seed + 1": (S + 1, prec),
        "another target (target_rse x 3)": (S, {**prec, "target_rse": 3 * R}),
    }.items():
        spn = SweepSpec.from_toml(prec_spec_toml(a, pf, sd, pr, f"slurmprec17_neg_{S}"))
        cn = R16.api_cube(a, spn, f"slurmprec17_neg_{S}")
        b2, m2 = C9.diff_vars(cube, cn)
        neg[("slurmprec", None, lab)] = (
            not b2 and not m2, f"{len(b2)} of {len(cube.data_vars)} differ; n_trials "
            f"{cn['n_trials'].values.tolist()}")  # fmt: skip
    return ck, neg, comp


def main(argv=None):
    runners = dict(proj=run_proj, sweepsdc=run_sweepsdc, failfields=run_failfields,
                   slurmprec=run_slurmprec)  # fmt: skip
    R10.mode_main("r17", __doc__, runners, argv, n_sim=8000, smoke_sim=512, tag_sim=True,
                  n_sim_help="relmc trials per size / cell")  # fmt: skip


if __name__ == "__main__":
    main()
