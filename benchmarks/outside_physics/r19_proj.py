"""Nineteenth round: straggler and SDC categories (an SDC with a multiplier of its own and an
exponential latency) added by new names to a sweep's ``[base]`` on a mixture event-fit file
with the node model; an event fit's planned maintenance recorded from the command line
(``relmc fit --events --observed-maintenance``) and taken by ``relmc project``, ``relmc
compare`` and a sweep, and ``fit_fleets`` given such a log; ``relmc sweep submit`` with
``--max-parallel 2`` (fresh and on a partly done store), ``scontrol requeue`` of a running array
task, and SIGKILLs timed into a cell's chunk writes.

Written from the documents only: the contract (``relmc.sim``: "Stragglers and silent data
corruption" and its resolution 10, "Nodes", "Physics parameters per draw"), ``Category``'s
docstring (``bad_node_multiplier``: "``None`` (the default) takes the failure model's";
``sdc_latency_hours`` "fixed, or the mean"; ``sdc_latency_distribution``), ``physics_draws``'
("a category the posterior lacks takes the scenario's own value (for ``bad_node_multiplier``,
the category's or else the model's)"), ``replaced_physics_notes``', ``simulate``'s, the sweep
template (``relmc/templates/sweep.toml``: "straggler or SDC tables of new names are added to
them"; "With posterior = "point" ... no planned maintenance unless maintenance_rate is set"),
``run_sweep``'s, ``cell_seed``'s, ``summarize_cell``'s, ``load_events``' and ``load_counts``'
(``maintenance_count``: "Fits record ``maintenance_count / duration_hours`` ... as the planned
maintenance rate, which the default scenario of a fit takes"), ``fit_events``' ("Attrs: ... the
data's record"), ``fit_fleets``' and ``relmc.models.fleets``' (``rate.attrs`` "holds the
categorised fleet's" record, ``maintenance_rate``), ``default_scenario``',
``FailureModel.from_posterior``', ``maintenance_rate``', ``relmc.project``'s ("The record's
``maintenance_rate`` ... sets the default scenario's planned maintenance; a ``scenario`` given
keeps its own"), ``relmc.compare``'s, ``relmc fit --help`` (``--observed-maintenance``: "with
--counts (and --observed-hours), relmc fit --events or a bundled dataset that records none ...
the fit records N / window hours as the planned maintenance rate, which projections from it
take"; "Several fleets at once ... the data above (--dataset or --counts) is the fleet with
categories"), ``relmc project --help`` / ``relmc compare --help`` (``--posterior NC``: "its
categories, rates and recorded maintenance"; ``--maintenance-rate``: "default: the rate the
data or fit record"), the README ("Planned maintenance kept out of your counts or log is given
as a count over the window ..."), ``relmc.sweep``'s module docstring ("Crash safety": "a process
killed at any moment (SIGKILL, preemption, a requeued Slurm task) leaves each chunk either old
or new, and a cell counts as complete only after all of its data is in place. A rerun computes
only the cells whose flag is unset"), ``relmc.sweep.submit``', ``SlurmOptions``'
(``max_parallel``: "``--array=0-N%M``"), ``relmc sweep submit --help`` ("a partial one submits
an array whose tasks share the cells missing ... at most one task a cell"), the script's comment
("a requeued or rerun task only redoes unfinished cells"), ``relmc sweep run --help`` and
``relmc sweep status --help``. Source bodies, ``_kernels*.py``, ``reference.py``,
``inputs.py`` and ``tests/`` not read. No new simulator: the node trials with stragglers and
SDC ``r5_indep.run_r5(node=True)`` (``indep_nodes_phys`` with relmc's readings A1, A2, A6),
Lambda(N) and f ``r8_mttf.Mine``, the command line ``r9_cli.cli`` / ``diff_vars``, the
mixture fit ``r9_proj.event_fit``, the node spec ``r17_proj._node_spec_of`` /
``_policy_diff``, ``r18_proj._thin`` / ``_cat_diff`` / ``sub_toml`` / ``Submission`` /
``_status`` / ``_wait_cells`` / ``_task_logs`` / ``_script`` / ``_cells``,
``r16_proj.sweep_cli`` / ``api_cube``, the report ``r10_proj.report`` through
``r10_proj.mode_main``.

Modes:

mixnode    (1) the ninth round's mixture event fit (256 GPUs, 1,500 h, lemons) cut to one draw
           of each chain as the spec's ``posterior``; ``[base]`` 256 GPUs, 24 h, a finite pool
           (4 spares, 4-h repairs), lemon exclusion after 2 failures in 24 h, the model's
           ``bad_node_multiplier`` 3, gpu named (swap, detection 0.1 h), a straggler ``slow``
           (no multiplier of its own) and an SDC ``silent`` (``bad_node_multiplier`` 12 of its
           own, exponential latency) added by new names; axes
           ``failures.categories.silent.sdc_latency_hours`` 1 / 4 x
           ``policy.checkpoint_retention`` 2 / 8; ``keep_trials``: ``relmc sweep run`` in 1
           shard, 2 shards, 2 workers = the API's ``run_sweep`` (bit); each cell =
           ``summarize_cell(simulate(spec.scenario(i), rates=file, seed=cell_seed,
           overhead_seed=root))`` (bit); each cell and draw vs ``run_r5(node=True)`` with the
           draw's lemon fraction and per-category multipliers, the straggler at the model's
           and the SDC at its own; negatives the mirror cell, seed + 1 (bit); the SDC at the
           model's multiplier, a fixed latency of the same mean, the lemon rows ignored.
maintflow  (2) a synthetic log (lemons, groups) written as a CSV, ``relmc fit --events ...
           --nodes mixture --observed-maintenance 30`` (1,500 h: 0.02 / h) = the API's
           ``load_events(maintenance_count=30)`` + ``fit_events`` (bit); the posterior's
           ``maintenance_rate``; cut to one draw of each chain: ``relmc project --posterior``
           and ``relmc compare --posterior`` = the API (bit), with ``--maintenance-rate
           0.02`` the same (bit), 0 not; a sweep on the file (axis ``failures.maintenance_hours``)
           = with ``failures.maintenance_rate = 0.02`` in ``[base]`` (bit), 0 not; the trials
           vs ``run_r5(node=True)`` with maintenance 0.02 / mean f (negative: 0); then
           ``fit_fleets`` with that log as the categorised fleet and ``relmc fit --events
           --fleet``.
slurmmore  (3) ``relmc sweep submit --array 3 --max-parallel 2`` (the script's ``%2``; at most
           2 running and a task held by the array limit, ``squeue`` every 0.2 s; control without
           the limit), the same on a store with 2 of 6 cells done by ``relmc sweep run
           --cells``; ``scontrol requeue`` of array task 0 mid-run (Slurm holds it about 2 min:
           waited for after the kills); SIGKILLs of ``relmc sweep run --cells K`` at the 1st,
           the n/2-th, the (n-2)-th and the (n-1)-th of a cell's n chunk renames (inotify on the
           store's folders), ``status --verify`` and a rerun: each final cube = the in-process
           ``run_sweep`` (bit).

    taskset -c 1 python benchmarks/outside_physics/r19_proj.py MODE [--seed S] [--n-indep N]
        [--n-sim N] [--iseed I] [--smoke] [--out DIR]

The independent seeds depend on the cell / draw / variant and ``--iseed``, not on ``--seed``;
fits are cached in ``--out`` and do not depend on ``--seed``.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import os
import re
import select
import shutil
import signal
import struct
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
from relmc.rates import job_rates, maintenance_rate, physics_draws, rate_draws

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
import r18_proj as R18  # noqa: E402
from indep_nodes import ncat  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")


def _tv(v):
    return f'"{v}"' if isinstance(v, str) else repr(v)


def _lemons(post):
    return (post["bad_node_fraction"].transpose("draw", "chain").values.ravel(),
            M8.flat(post["bad_node_multiplier"]))  # fmt: skip


def _warned(w):
    return [str(x.message) for x in w if "UnreadField" in type(x.message).__name__]


# ---------------------------------------------------------------- 1: mixture + stragglers + SDC
MN, MW = 256, 24.0
MPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2,
            n_spares=4, repair_hours=4.0, lemon_failures=2, lemon_window_hours=24.0)  # fmt: skip
MFM = dict(bad_node_multiplier=3.0)
SDC_M = 12.0
MCATS = (
    dict(name="slow", kind="straggler", rate=0.06, unit="job", detection_hours=1.0,
         recovery="swap", straggler_speed=0.5),
    dict(name="silent", kind="sdc", rate=0.15, unit="job", recovery="swap",
         sdc_latency_hours=1.0, sdc_latency_distribution="exponential",
         bad_node_multiplier=SDC_M),
)  # fmt: skip
MAXES = {"failures.categories.silent.sdc_latency_hours": [1.0, 4.0],
         "policy.checkpoint_retention": [2, 8]}  # fmt: skip


def project_rates(a, pf, flags, rec, tag, ck):
    """``relmc project --posterior pf`` (``flags``, ``a.n_sim`` trials, every trial kept) three
    ways: with the file's recorded maintenance, with ``--maintenance-rate rec`` and with 0.

    Returns the three projections by label (``"record"``, ``"--maintenance-rate {rec:g}"``,
    ``"--maintenance-rate 0"``; None where the command failed) and sets ``ck["[project LABEL]
    rc == 0"]``; outputs under ``a.out / f"proj{tag}_LABEL_{a.seed}"``.
    """
    outs = {}
    for lab, extra in (("record", []), (f"--maintenance-rate {rec:g}", ["--maintenance-rate",
                                                                      repr(rec)]),
                       ("--maintenance-rate 0", ["--maintenance-rate", "0"])):  # fmt: skip
        out = a.out / f"proj{tag}_{lab.replace(' ', '_')}_{a.seed}"
        shutil.rmtree(out, ignore_errors=True)
        rc = C9.cli(["project", "--posterior", str(pf), *flags, *extra, "--n-trials",
                     str(a.n_sim), "--credible-trials", "0", "--keep-trials"], out,
                    extra=("--no-plot",))  # fmt: skip
        ck[f"[project {lab}] rc == 0"] = rc == 0
        outs[lab] = xr.open_dataset(out / "projection.nc").load() if rc == 0 else None
    return outs


def mn_toml(a, pf, seed):
    toml = a.out / f"mixnode19_{seed}_{a.n_sim}.toml"
    toml.write_text(
        f'seed = {seed}\nn_trials = {a.n_sim}\nposterior = "{pf}"\nkeep_trials = true\n'
        f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/mixnode19_default.zarr"\n\n[base]\n'
        f"cluster.n_gpus = {MN}\njob.compute_hours = {MW}\n"
        + "".join(f"policy.{k} = {_tv(v)}\n" for k, v in MPOL.items())
        + "\n[base.failures]\n" + "".join(f"{k} = {v}\n" for k, v in MFM.items())
        + '\n[[base.failures.categories]]\nname = "gpu"\nrecovery = "swap"\n'
        "detection_hours = 0.1\n"
        + "".join("\n[[base.failures.categories]]\n"
                  + "".join(f"{k} = {_tv(v)}\n" for k, v in c.items()) for c in MCATS)
        + "\n[axes]\n" + "".join(f'"{k}" = {v}\n' for k, v in MAXES.items())
    )  # fmt: skip
    return toml


def mn_scen(d0, L, K):
    """My cell scenario: the file's categories with gpu swapped and seen at 0.1 h, then the
    straggler and the SDC (mean latency ``L``), the [base] fields, retention ``K``."""
    sc = R6.at_size(R9.with_compute(d0, MW), MN)
    cats = tuple(dataclasses.replace(c, recovery="swap", detection_hours=0.1)
                 if c.name == "gpu" else c for c in sc.failures.categories)  # fmt: skip
    cats += tuple(relmc.Category(**{**c, "sdc_latency_hours": L} if c["kind"] == "sdc" else c)
                  for c in MCATS)  # fmt: skip
    fm = dataclasses.replace(sc.failures, categories=cats, **MFM)
    pol = dataclasses.replace(sc.policy, **MPOL, checkpoint_retention=K)
    return dataclasses.replace(sc, failures=fm, policy=pol)


def _added(sc, var=None):
    """``ncat``s of the added straggler / SDC categories (unit job: rate = job rate), each
    with its own multiplier or None (the model's); ``var`` misreads one."""
    out = []
    for c in sc.failures.categories:
        sw = c.recovery == "swap"
        if c.kind == "straggler":
            out.append(ncat(c.name, c.rate, kind="straggler", detect=c.detection_hours, swap=sw,
                            speed=c.straggler_speed, mult=c.bad_node_multiplier))  # fmt: skip
        elif c.kind == "sdc":
            exp = c.sdc_latency_distribution == "exponential"
            m = None if var == "SDC at the model's multiplier" else c.bad_node_multiplier
            out.append(ncat(c.name, c.rate, kind="sdc", detect=c.detection_hours, swap=sw,
                            sdc_L=c.sdc_latency_hours, mult=m,
                            sdc_exp=exp != (var == "fixed SDC latency (same mean)")))  # fmt: skip
    return out


def mn_spec(sc, me, k, bf, bm, var=None):
    """``run_r5(node=True)`` spec of cell scenario ``sc`` at draw ``k``: the fitted rates over
    f, the draw's lemon fraction and per-category multipliers, the added categories at their
    scenario rates; ``var`` a misreading."""
    s = R17._node_spec_of(sc, me, sc.cluster.n_gpus, k)
    pol = sc.policy
    s.update(repair_h=pol.repair_hours, n_standbys=pol.n_standbys,
             preempt_h=pol.preemption_hours, K=pol.checkpoint_retention)  # fmt: skip
    s["f"] = 0.0 if var == "lemon rows ignored" else float(bf[k])
    for c, x in zip(s["cats"], bm[k], strict=True):
        c["mult"] = float(x)
    s["cats"] = s["cats"] + _added(sc, var)
    return s


def run_mixnode(a):
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    S = a.seed
    root = resolve_seed(S)
    ev = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    pf = R18._thin(a, ev, "mix19_thin.nc")
    idata = az.from_netcdf(pf)
    bf, bm = _lemons(idata.posterior)
    d0 = default_scenario(idata)
    print(f"file: bad fraction per draw {np.round(bf, 4).tolist()}, multipliers "
          f"{np.round(bm, 3).tolist()}; categories "
          f"{[(c.name, c.unit, c.recovery, c.detection_hours) for c in d0.failures.categories]}"
          f"; maintenance {d0.failures.maintenance_rate}")  # fmt: skip
    toml = mn_toml(a, pf, S)
    sp = SweepSpec.from_toml(toml)
    grid = list(np.ndindex(*sp.shape))
    print(f"spec: dims {sp.dims}, shape {sp.shape}")
    for i, idx in enumerate(grid):
        want = mn_scen(d0, *(v[j] for v, j in zip(MAXES.values(), idx, strict=True)))
        got = sp.scenario(i)
        ck[
            f"cell {i} spec.scenario == my scenario (file's categories, gpu changed, slow and "
            "silent added, silent's own multiplier, [base] fields, the axes)"
        ] = got == want
        if got != want:
            gd, wd = got.to_dict(), want.to_dict()
            for k in gd:
                if R15._js(gd[k]) != R15._js(wd.get(k)):
                    print(f"    cell {i} [{k}] spec {R15._js(gd[k])[:1200]}\n"
                          f"      mine {R15._js(wd.get(k))[:1200]}")  # fmt: skip
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        relmc.simulate(sp.scenario(3), rates=idata, n_trials=256, seed=S, n_threads=1)
    uw = _warned(w)
    print(f"  simulate(cell 3) warnings: {uw}")
    nm = [x for x in uw if "bad_node_multiplier" in x]
    ck["simulate(cell 3): bad_node_fraction not named (not set); the bad_node_multiplier note "
       "says the model's value applies to 'slow' and does not name 'silent' (its own)"] = (
        not any("bad_node_fraction" in x for x in uw) and len(nm) == 1
        and "'slow'" in nm[0] and "silent" not in nm[0])  # fmt: skip
    dr = physics_draws(sp.scenario(0), idata)
    pm = np.asarray(dr.bad_node_multiplier)
    names = [c.name for c in sp.scenario(0).failures.categories]
    print(f"  physics_draws: bad_node_fraction {np.asarray(dr.bad_node_fraction).tolist()}; "
          f"bad_node_multiplier {np.round(pm, 3).tolist()} over {names}")  # fmt: skip
    ck["physics_draws: lemon rows = the file's; slow at the model's 3, silent at its own 12"] = (
        bit(dr.bad_node_fraction, bf) and bit(pm[:, :2], bm)
        and bool(np.all(pm[:, names.index("slow")] == MFM["bad_node_multiplier"]))
        and bool(np.all(pm[:, names.index("silent")] == SDC_M)))  # fmt: skip
    t0 = time.time()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cube = R16.api_cube(a, sp, f"mixnode19_api_{S}")
    print(f"  run_sweep warnings: {sorted(set(_warned(w)))}")
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    print(
        f"API run_sweep {time.time() - t0:.1f}s; {len(cube.data_vars)} variables, {len(tv)} "
        f"with a trial dim; mean ETTR {np.round(cube['ettr_mean'].values, 4).tolist()}"
    )
    me = M8.Mine(idata, sp.scenario(0))
    fm = me.f()
    print(f"  my f {np.round(fm, 5).tolist()}; fitted job rates at {MN} over f "
          f"{np.round(me.fitted(MN) / fm[:, None], 4).tolist()}")  # fmt: skip
    shown = ("events", "int_gpu", "int_slow", "int_silent", "sdc_rollbacks", "sdc_from_scratch",
             "nodes_excluded_bad", "nodes_excluded_good", "repairs_auto",
             "pool_occupancy")  # fmt: skip
    variants = (None, "SDC at the model's multiplier", "fixed SDC latency (same mean)",
                "lemon rows ignored")  # fmt: skip
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
            np.abs(jr / me.lam(MN, fixed=True) - 1).max())  # fmt: skip
        s0 = mn_spec(sc, me, 0, bf, bm)
        dif = R17._policy_diff(s0, sc, skip=("maintenance_rate", "bad_node_fraction"))
        dif += R18._cat_diff(s0, sc)
        ck[f"cell {i} indep spec's policy / job / failure model / added categories (silent's "
           "multiplier) == the cell's"] = not dif  # fmt: skip
        if dif:
            print(f"    cell {i}: indep spec differs in {dif}")
        t = indep_nodes.relmc_table(P, s0)
        print(f"  cell {i} {sp.cell_values(i)}: ETTR {float(cell['ettr_mean']):.4f}, finished "
              f"{float(P.finished.mean()):.3f} ({time.time() - t1:.1f}s)")  # fmt: skip
        for k in range(len(bf)):
            mask = P.draw.values == k
            for j, var in enumerate(variants):
                if var is not None and k:
                    continue  # the misreadings on draw 0 only
                b = r5_indep.run_r5(mn_spec(sc, me, k, bf, bm, var), a.n_indep,
                                    19100 + 101 * i + 7 * k + 1000 * j + 100_000 * a.iseed,
                                    F=None, node=True)  # fmt: skip
                if var is None:
                    print(f"    d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
                comp[("mixnode", i, k, var or "documented")] = r4_run.compare_tables(
                    f"cell {i} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0,
                    quiet=True,
                )  # fmt: skip
    R16.mirror_negatives("mixnode", sp.n_cells, ems, neg)
    R16.cli_layouts(a, toml, cube, "mixnode19", ck, show_warnings=True)
    t2 = mn_toml(a, pf, S + 1)
    R16.seed_negative(a, t2, cube, "mixnode19", "mixnode", neg)
    return ck, neg, comp


# ---------------------------------------------------------------- 2: recorded maintenance
EN, EW, EH, M_EV = 256, 24.0, 1500.0, 30
EPOL = dict(checkpoint_interval=0.5, snapshot_hours=0.03, restart_hours=0.3, swap_hours=0.2,
            n_spares=4, repair_hours=4.0, lemon_failures=2, lemon_window_hours=24.0)  # fmt: skip
EFM = dict(maintenance_hours=0.5)
PFL = ["--n-gpus", str(EN), "--compute-hours", str(EW), "--checkpoint-interval", "0.5",
       "--snapshot-hours", "0.03", "--restart-hours", "0.3", "--swap-hours", "0.2",
       "--n-spares", "4", "--repair-hours", "4", "--lemon-failures", "2",
       "--lemon-window-hours", "24", "--maintenance-hours", "0.5"]  # fmt: skip
GROUPS = {"gpu": "GPU", "net": "Dependency"}
FIT = ["--observed-gpus", str(EN), "--window-end", str(EH), "--nodes", "mixture", "--n-draws",
       "100", "--n-chains", "2", "--n-tune", "300"]  # fmt: skip


def ev_log(a):
    """A synthetic log (gpu per GPU, net per node, lemons 0.1 x 8, seed 2) as a CSV with
    ``time, category, node, unit, group``."""
    path = a.out / "evlog19.csv"
    if not path.exists():
        ev = relmc.events.synthetic_events(
            {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=EN, duration_hours=EH,
            units={"gpu": "gpu", "net": "node"}, bad_node_fraction=0.1,
            bad_node_multiplier=8.0, seed=2,
        )  # fmt: skip
        unit = dict(zip(ev.category.values.tolist(), ev["unit"].values.tolist(), strict=True))
        lines = ["time,category,node,unit,group"]
        for t, c, n in zip(ev.event_time.values, ev.event_category.values,
                           ev.event_node.values, strict=True):  # fmt: skip
            lines.append(f"{float(t)!r},{c},{n},{unit[str(c)]},{GROUPS[str(c)]}")
        path.write_text("\n".join(lines) + "\n")
        print(f"log: counts {ev['count'].values.tolist()}, bad nodes {ev.attrs['n_bad_nodes']}")
    return path


def cli_fit(a, name, extra):
    """``relmc fit --events LOG ...`` (seed 1) into ``--out/name`` once; its posterior file."""
    out = a.out / name
    pf = out / "posterior.nc"
    if not pf.exists():
        s0, C9.SEED = C9.SEED, 1
        try:
            rc = C9.cli(["fit", "--events", str(ev_log(a)), *FIT, *extra], out, threads=False)
        finally:
            C9.SEED = s0
        if rc:
            return None
    return pf


def ev_scen(d0, **fm):
    sc = R6.at_size(R9.with_compute(d0, EW), EN)
    return dataclasses.replace(
        sc,
        policy=dataclasses.replace(sc.policy, **EPOL),
        failures=dataclasses.replace(sc.failures, **{**EFM, **fm}),
    )


def ev_spec(sc, me, k, bf, bm, maint=None):
    """``run_r5(node=True)`` spec of ``sc`` at draw ``k``: the draw's lemons; maintenance per
    wall-clock hour ``maint`` (None: the scenario's), over mean f."""
    s = R17._node_spec_of(sc, me, sc.cluster.n_gpus, k)
    s.update(repair_h=sc.policy.repair_hours, f=float(bf[k]))
    for c, x in zip(s["cats"], bm[k], strict=True):
        c["mult"] = float(x)
    if maint is not None:
        s["maint_rate"] = maint / me.f().mean() if me.wall else maint
    return s


def _indep(a, tag, P, sc, idata, comp, base, key, neg_maint=True):
    """``P``'s trials per draw vs ``run_r5(node=True)``; negative maintenance 0 on draw 0."""
    me = M8.Mine(idata, sc)
    bf, bm = _lemons(idata.posterior)
    s0 = ev_spec(sc, me, 0, bf, bm)
    dif = R17._policy_diff(s0, sc, skip=("maintenance_rate", "bad_node_fraction",
                                         "bad_node_multiplier"))  # fmt: skip
    t = indep_nodes.relmc_table(P, s0)
    shown = ("events", "maintenance_events", "lost_maintenance", "int_gpu", "int_net",
             "nodes_excluded_bad", "repairs_auto")  # fmt: skip
    for k in range(len(bf)):
        mask = P.draw.values == k
        for j, var in enumerate((None, "maintenance 0")):
            if var and (k or not neg_maint):
                continue
            s = ev_spec(sc, me, k, bf, bm, maint=0.0 if var else None)
            b = r5_indep.run_r5(s, a.n_indep, base + 7 * k + 100 * j + 100_000 * a.iseed,
                                F=None, node=True)  # fmt: skip
            if var is None:
                print(f"    [{tag}] d{k} relmc/indep: {R17._shown(t, mask, b, shown)}")
            comp[(key, tag, k, var or "documented")] = r4_run.compare_tables(
                f"{tag} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, s0, quiet=True
            )
    return dif


#: The policies of ``compare_three``'s command line (its ``pol``: the same three)
CPOL = ["--policy", "fast:restart_hours=0.1", "--policy", "nomaint:failures.maintenance_rate=0"]


def compare_three(a, mode, pf, flags, pol, posterior, n_gpus, rec, tag, ck, neg):
    """``relmc compare --posterior pf`` three ways: the record, ``--maintenance-rate rec``, 0.

    Checks (into ``ck``): each run's rc; the record's ``compare.nc`` == ``relmc.compare(pol,
    posterior, n_gpus)`` every variable (bit); its ``scenarios`` attr's maintenance (baseline
    and fast at ``rec``, nomaint 0); the rate set by hand == the record's run (bit); with 0
    the baseline == the record run's nomaint (bit ettr). The run with 0 against the record's
    is a negative (into ``neg``, keyed by ``mode``). Returns the record run's ``compare.nc``
    (None if it failed). ``flags``: the run's size and policy options; ``pol``: baseline,
    fast and nomaint as ``CPOL`` makes them; ``tag``: the output folders' prefix.
    """
    import json

    S = a.seed
    set_rate = f"--maintenance-rate {rec:g}"
    couts = {}
    for lab, extra in (("record", []), (set_rate, ["--maintenance-rate", repr(rec)]),
                       ("--maintenance-rate 0", ["--maintenance-rate", "0"])):  # fmt: skip
        out = a.out / f"{tag}_{lab.replace(' ', '_')}_{S}"
        shutil.rmtree(out, ignore_errors=True)
        rc = C9.cli(["compare", "--posterior", str(pf), *flags, *extra, *CPOL, "--n-trials",
                     str(a.n_sim)], out)  # fmt: skip
        ck[f"[compare {lab}] rc == 0"] = rc == 0
        couts[lab] = xr.open_dataset(out / "compare.nc").load() if rc == 0 else None
    Pc = couts["record"]
    if Pc is None:
        return None
    cap = relmc.compare(pol, posterior=posterior, n_gpus=n_gpus, n_trials=a.n_sim, seed=S,
                        n_threads=1)  # fmt: skip
    bad, miss = C9.diff_vars(Pc, cap)
    print(
        f"  [compare] file vs API: {len(Pc.data_vars)} variables, differing {bad}, "
        f"missing {miss}; ETTR mean {np.round(Pc['ettr_mean'].values, 4).tolist()} over "
        f"{Pc['scenario'].values.tolist()}"
    )
    ck["[compare] compare.nc == relmc.compare(my 3 scenarios, posterior=file) every variable "
       "(bit)"] = not (bad or miss)  # fmt: skip
    scs = Pc.attrs.get("scenarios")
    scs = json.loads(scs) if isinstance(scs, str) else scs
    mr = {k: v["failures"]["maintenance_rate"] for k, v in (scs or {}).items()}
    print(f"  [compare] the scenarios attr's maintenance_rate {mr}")
    ck["[compare] the scenarios attr: baseline and fast at the record, nomaint 0"] = mr == {
        "baseline": rec, "fast": rec, "nomaint": 0.0}  # fmt: skip
    if couts[set_rate] is not None:
        b2, m2 = C9.diff_vars(Pc, couts[set_rate])
        ck[f"[compare] {set_rate} == the record's run (bit)"] = not (b2 or m2)
    z = couts["--maintenance-rate 0"]
    if z is not None:
        b2, _ = C9.diff_vars(Pc, z)
        neg[(mode, "compare", "--maintenance-rate 0")] = (
            not b2, f"{len(b2)} of {len(Pc.data_vars)} differ; ETTR mean "
            f"{np.round(z['ettr_mean'].values, 4).tolist()}")  # fmt: skip
        ck["[compare] --maintenance-rate 0: its baseline == the record run's nomaint "
           "(bit ettr)"] = bit(z["ettr"].sel(scenario="baseline").values,
                               Pc["ettr"].sel(scenario="nomaint").values)  # fmt: skip
    return Pc


def run_maintflow(a):
    import arviz as az

    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    S = a.seed
    C9.SEED = S
    root = resolve_seed(S)
    log = ev_log(a)
    rec = M_EV / EH
    # (a) the fit from the command line, with and without the count, and from the API
    t0 = time.time()
    pf_full = cli_fit(a, "fit19_maint", ["--observed-maintenance", str(M_EV)])
    pf_none = cli_fit(a, "fit19_nomaint", [])
    ck["relmc fit --events ... --observed-maintenance 30 rc == 0; without it rc == 0"] = (
        pf_full is not None and pf_none is not None)  # fmt: skip
    if pf_full is None or pf_none is None:
        return ck, neg, comp
    fe = az.from_netcdf(pf_full)
    fn = az.from_netcdf(pf_none)
    at, ra = fe.posterior.attrs, fe.posterior["rate"].attrs
    print(f"CLI fits ({time.time() - t0:.1f}s): posterior attrs maintenance_rate "
          f"{at.get('maintenance_rate')}, rate attrs {ra.get('maintenance_rate')}; without the "
          f"flag {fn.posterior.attrs.get('maintenance_rate')}, "
          f"{fn.posterior['rate'].attrs.get('maintenance_rate')}")  # fmt: skip
    ck[f"the fit records maintenance_rate {M_EV} / {EH:g} h in the posterior's, rate's attrs"] = (
        at.get("maintenance_rate") is not None
        and abs(float(at["maintenance_rate"]) - rec) < 1e-15
        and ra.get("maintenance_rate") is not None
        and abs(float(ra["maintenance_rate"]) - rec) < 1e-15)  # fmt: skip
    ck["without --observed-maintenance the fit records none (absent or 0)"] = not float(
        fn.posterior.attrs.get("maintenance_rate", 0) or 0)  # fmt: skip
    ck["the count changes no draw: rate, lemon rows (bit)"] = all(
        bit(fe.posterior[v].values, fn.posterior[v].values)
        for v in ("rate", "bad_node_fraction", "bad_node_multiplier"))  # fmt: skip
    evd = relmc.load_events(str(log), n_gpus=EN, end=EH, maintenance_count=M_EV)
    ck["load_events(maintenance_count=30) stores maintenance_count 30"] = (
        "maintenance_count" in evd and int(evd["maintenance_count"]) == M_EV)  # fmt: skip
    api_pf = a.out / "fit19_api.nc"
    if not api_pf.exists():
        relmc.fit_events(evd, nodes="mixture", n_draws=100, n_tune=300, n_chains=2,
                         seed=1).to_netcdf(api_pf)  # fmt: skip
    fa = az.from_netcdf(api_pf)
    same = [v for v in ("rate", "bad_node_fraction", "bad_node_multiplier")
            if bit(fa.posterior[v].values, fe.posterior[v].values)]  # fmt: skip
    print(f"  API fit: maintenance_rate {fa.posterior.attrs.get('maintenance_rate')}; equal to "
          f"the CLI's: {same}")  # fmt: skip
    ck["API load_events + fit_events (seed 1) == relmc fit --events --seed 1: rate, lemon rows "
       "(bit); the same record"] = bool(
        len(same) == 3 and fa.posterior.attrs.get("maintenance_rate") == at.get(
            "maintenance_rate"))  # fmt: skip
    pf = R18._thin(a, fe, "fit19_maint_thin.nc")
    idata = az.from_netcdf(pf)
    d0 = default_scenario(idata)
    bf, bm = _lemons(idata.posterior)
    print(
        f"  thin file: lemons {np.round(bf, 4).tolist()} x {np.round(bm, 3).tolist()}; "
        f"default categories "
        f"{[(c.name, c.unit, c.recovery, c.detection_hours) for c in d0.failures.categories]}"
    )
    ck["default_scenario(file): maintenance_rate == the record"] = bool(
        d0.failures.maintenance_rate == float(at["maintenance_rate"]))  # fmt: skip
    sc = ev_scen(d0)
    sc0 = ev_scen(d0, maintenance_rate=0.0)
    me = M8.Mine(idata, sc)
    fm = me.f()
    dr = rate_draws(sc, idata)
    ck["maintenance_rate == record / mean f (rel)"] = abs(
        maintenance_rate(sc, dr) / (rec / fm.mean()) - 1)  # fmt: skip
    ck["job_rates == my Lambda (rel)"] = float(np.abs(job_rates(sc, dr) / me.lam(EN) - 1).max())
    print(f"  my f {np.round(fm, 5).tolist()}; maintenance per exposed hour {rec / fm.mean():.6f}")
    # (b) relmc project --posterior
    outs = project_rates(a, pf, PFL, rec, "19", ck)
    Pp = outs["record"]
    api = relmc.project(idata, n_gpus=[EN], scenario=sc, n_trials=a.n_sim, seed=S, n_threads=1,
                        credible_trials=0, keep_trials=True)  # fmt: skip
    api0 = relmc.project(idata, n_gpus=[EN], scenario=sc0, n_trials=a.n_sim, seed=S,
                         n_threads=1, credible_trials=0, keep_trials=True)  # fmt: skip
    if Pp is not None:
        sa = R15._scen_attr(Pp)
        print(f"  projection scenario attr maintenance_rate "
              f"{(sa or {}).get('failures', {}).get('maintenance_rate')}; mean ETTR "
              f"{float(Pp['ettr_mean'].values.ravel()[0]):.4f}")  # fmt: skip
        mine = sc.to_dict()
        mine["cluster"] = {**mine["cluster"], "n_gpus": sa["cluster"]["n_gpus"]}
        print(f"  [project] scenario attr's n_gpus {sa['cluster']['n_gpus']} (the CLI's); the "
              f"API's {R15._scen_attr(api)['cluster']['n_gpus']}")  # fmt: skip
        api_at = R15._scen_attr(api)
        api_at["cluster"] = {**api_at["cluster"], "n_gpus": sa["cluster"]["n_gpus"]}
        ck["[project] scenario attr == mine and the API's but cluster.n_gpus (to_dict)"] = (
            R15._js(sa) == R15._js(mine) and R15._js(sa) == R15._js(api_at))  # fmt: skip
        bad, miss = C9.diff_vars(Pp, api)
        print(f"  [project] file vs API: {len(Pp.data_vars)} variables, differing {bad}, "
              f"missing {miss}")  # fmt: skip
        ck["[project] projection.nc == project(file, my scenario) every variable (bit)"] = not (
            bad or miss)  # fmt: skip
        if outs["--maintenance-rate 0.02"] is not None:
            b2, m2 = C9.diff_vars(Pp, outs["--maintenance-rate 0.02"])
            ck["[project] --maintenance-rate 0.02 == the record's run (bit)"] = not (b2 or m2)
        if outs["--maintenance-rate 0"] is not None:
            b2, _ = C9.diff_vars(Pp, outs["--maintenance-rate 0"])
            neg[("maintflow", "project", "--maintenance-rate 0")] = (
                not b2, f"{len(b2)} of {len(Pp.data_vars)} differ")  # fmt: skip
            b3, m3 = C9.diff_vars(outs["--maintenance-rate 0"], api0)
            ck["[project] --maintenance-rate 0 == project(scenario with 0) (bit)"] = not (
                b3 or m3)  # fmt: skip
        Q = relmc.simulate(sc, rates=idata, n_trials=a.n_sim, seed=size_seed(root, EN),
                           overhead_seed=root, n_threads=1)  # fmt: skip
        ck["[project] kept ettr and draw == simulate(rates=file, size_seed, overhead_seed=root)"
           " (bit)"] = bit(Pp["ettr"].values.ravel(), Q.ettr.values) and bit(
            Pp["draw"].values, Q.draw.values)  # fmt: skip
        print(f"  [project] maintenance events a trial {float(Q.maintenance_events.mean()):.4f}")
        dif = _indep(a, "project", Q, sc, idata, comp, 19500, "maintflow")
        ck["[project] indep spec's policy / job / failure model == mine"] = not dif
    # (c) relmc compare --posterior
    pol = {
        "baseline": sc,
        "fast": relmc.scenario.replace_path(sc, "policy.restart_hours", 0.1),
        "nomaint": relmc.scenario.replace_path(sc, "failures.maintenance_rate", 0.0),
    }
    Pc = compare_three(a, "maintflow", pf, PFL, pol, idata, EN, rec, "cmp19", ck, neg)
    if Pc is not None:
        for nm_ in ("baseline", "fast"):
            Q = relmc.simulate(pol[nm_], rates=idata, n_trials=a.n_sim, seed=S, n_threads=1)
            same = bit(Pc["ettr"].sel(scenario=nm_).values, Q.ettr.values)
            ck[f"[compare] reading: {nm_}'s trials == simulate(rates=file, seed) (bit ettr)"] = (
                same)  # fmt: skip
            if same:
                _indep(a, f"compare {nm_}", Q, pol[nm_], idata, comp, 19600 + 50 * (nm_ == "fast"),
                       "maintflow", neg_maint=nm_ == "baseline")  # fmt: skip
    # (d) a sweep on the file
    cubes = {}
    sps = {}
    for lab, fld in (("record", ""), ("0.02 set", f"failures.maintenance_rate = {rec!r}\n"),
                     ("0 set", "failures.maintenance_rate = 0.0\n")):  # fmt: skip
        toml = a.out / f"msweep19_{lab.replace(' ', '_')}_{S}.toml"
        toml.write_text(
            f'seed = {S}\nn_trials = {a.n_sim}\nposterior = "{pf}"\n'
            f'quantiles = [0.05, 0.5, 0.95]\nstore = "{a.out}/msweep19_default.zarr"\n\n[base]\n'
            f"cluster.n_gpus = {EN}\njob.compute_hours = {EW}\n"
            + "".join(f"policy.{k} = {_tv(v)}\n" for k, v in EPOL.items()) + fld
            + '\n[axes]\n"failures.maintenance_hours" = [0.5, 2.0]\n'
        )  # fmt: skip
        sps[lab] = SweepSpec.from_toml(toml)
        cubes[lab] = R16.api_cube(a, sps[lab], f"msweep19_api_{lab.replace(' ', '_')}_{S}")
        if lab == "record":
            st = a.out / f"msweep19_cli_{S}.zarr"
            shutil.rmtree(st, ignore_errors=True)
            rc = R16.sweep_cli([str(toml), "--store", str(st)], "record")
            ck["[sweep] relmc sweep run rc == 0"] = rc == 0
            if rc == 0:
                b2, m2 = C9.diff_vars(cubes[lab], relmc.sweep.open_sweep(st, load=True))
                ck["[sweep] relmc sweep run == API run_sweep every cube variable (bit)"] = not (
                    b2 or m2)  # fmt: skip
    sp = sps["record"]
    mrs = [sp.scenario(i).failures.maintenance_rate for i in range(sp.n_cells)]
    print(f"  [sweep] cell maintenance_rate {mrs}; mean ETTR "
          f"{np.round(cubes['record']['ettr_mean'].values, 4).tolist()}")  # fmt: skip
    b2, m2 = C9.diff_vars(cubes["record"], cubes["0.02 set"])
    ck["[sweep] [base] failures.maintenance_rate = 0.02 gives the same cube (bit)"] = not (
        b2 or m2)  # fmt: skip
    b2, _ = C9.diff_vars(cubes["record"], cubes["0 set"])
    neg[("maintflow", "sweep", "failures.maintenance_rate = 0")] = (
        not b2, f"{len(b2)} of {len(cubes['record'].data_vars)} differ")  # fmt: skip
    for i, hrs in enumerate((0.5, 2.0)):
        want = ev_scen(d0, maintenance_hours=hrs)
        got = sp.scenario(i)
        ck[f"[sweep] cell {i} spec.scenario == my scenario (default_scenario(file) + [base], "
           "the record's maintenance)"] = got == want  # fmt: skip
        if got != want:
            gd, wd = got.to_dict(), want.to_dict()
            for k in gd:
                if R15._js(gd[k]) != R15._js(wd.get(k)):
                    print(f"    cell {i} [{k}] spec {R15._js(gd[k])[:900]}\n"
                          f"      mine {R15._js(wd.get(k))[:900]}")  # fmt: skip
        P = relmc.simulate(got, rates=idata, n_trials=a.n_sim, seed=SC.cell_seed(S, i),
                           overhead_seed=root, n_threads=1)  # fmt: skip
        Sm = SC.summarize_cell(P, sp.quantiles)
        cell = cubes["record"].isel(failures_maintenance_hours=i) if (
            "failures_maintenance_hours" in cubes["record"].dims) else cubes["record"].isel(
            {sp.dims[0]: i})  # fmt: skip
        bad = [v for v in Sm.data_vars
               if v in cell.data_vars and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
        ck[f"[sweep] cell {i} every summary == summarize_cell(simulate(rates=file, cell_seed)) "
           "(bit)"] = not bad  # fmt: skip
        _indep(a, f"sweep cell {i}", P, got, idata, comp, 19700 + 200 * i, "maintflow")
    # (e) fit_fleets with the log as the categorised fleet; relmc fit --events --fleet
    fl_pf = a.out / "fleets19.nc"
    err = None
    if not fl_pf.exists():
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                ff = relmc.fit_fleets({"evlog": evd, "rsc-1": relmc.load_dataset("rsc-1")},
                                      n_draws=100, n_tune=300, n_chains=2, cores=1,
                                      seed=2)  # fmt: skip
            ws = sorted({f"{type(x.message).__name__}: {str(x.message)[:300]}" for x in w
                         if "relmc" in type(x.message).__module__})  # fmt: skip
            print(f"  fit_fleets' relmc warnings: {ws}")
            ff.to_netcdf(fl_pf)
        except Exception as e:  # noqa: BLE001 (a refusal is recorded)
            err = f"{type(e).__name__}: {e}"
    print(f"  fit_fleets(log with nodes and maintenance_count, rsc-1): "
          f"{'refused: ' + err if err else 'accepted'}")  # fmt: skip
    if err is None:
        ff = az.from_netcdf(fl_pf)
        post = ff.posterior
        lem = [v for v in ("bad_node_fraction", "bad_node_multiplier") if v in post]
        fr = post["rate"].attrs.get("maintenance_rate")
        print(f"    posterior variables {sorted(post.data_vars)}; rate attrs maintenance_rate "
              f"{fr}; posterior attrs {post.attrs.get('maintenance_rate')}")  # fmt: skip
        ck["[fit_fleets] rate.attrs maintenance_rate == the log's record 0.02"] = (
            fr is not None and abs(float(fr) - rec) < 1e-15)  # fmt: skip
        dfl = default_scenario(ff)
        ck["[fit_fleets] default_scenario takes the record"] = (
            dfl.failures.maintenance_rate == rec)  # fmt: skip
        ck["[fit_fleets] no lemon rows in the posterior (the fleets model has no node terms)"] = (
            not lem)  # fmt: skip
    out = a.out / f"fitfleet19_{S}"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        "taskset",
        "-c",
        "1",
        "relmc",
        "fit",
        "--events",
        str(log),
        *FIT,
        "--fleet",
        "rsc-1",
        "--observed-maintenance",
        str(M_EV),
        "--seed",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"  $ {' '.join(cmd[3:])}: rc {r.returncode}; {r.stderr.strip()[-500:]!r}")
    ck["[relmc fit --events --nodes mixture --fleet rsc-1] refused with rc 2 before fitting "
       "(--fleet takes --dataset or --counts as the categorised fleet)"] = (
        r.returncode == 2 and not (out / "posterior.nc").exists())  # fmt: skip
    return ck, neg, comp


# ---------------------------------------------------------------- 3: submit: max-parallel 2,
# requeue, SIGKILL into chunk writes
class Inotify:
    """Linux inotify through ctypes: renames into (and creations in) the watched folders."""

    IN_CREATE, IN_MOVED_TO, IN_CLOSE_WRITE = 0x100, 0x80, 0x8

    def __init__(self, dirs):
        self.libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK)
        assert self.fd >= 0
        self.wd = {}
        for d in dirs:
            w = self.libc.inotify_add_watch(self.fd, str(d).encode(),
                                            self.IN_CREATE | self.IN_MOVED_TO)  # fmt: skip
            self.wd[w] = Path(d).name

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return []
        try:
            buf = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return []
        out, i = [], 0
        while i + 16 <= len(buf):
            wd, mask, _, ln = struct.unpack_from("iIII", buf, i)
            name = buf[i + 16 : i + 16 + ln].rstrip(b"\0").decode()
            out.append((self.wd.get(wd, "?"), mask, name))
            i += 16 + ln
        return out

    def close(self):
        os.close(self.fd)


def _cell_chunks(st, key):
    """Files of the store whose name is cell ``key``'s chunk (``c.i.j`` or ``c.i.j.*``)."""
    out = []
    for d in Path(st).iterdir():
        if d.is_dir():
            out += [d.name + "/" + f.name for f in d.iterdir()
                    if f.name == key or f.name.startswith(key + ".")]  # fmt: skip
    return sorted(out)


def _tmp_files(st):
    return sorted(str(p.relative_to(st)) for p in Path(st).rglob("*")
                  if p.is_file() and not re.fullmatch(r"c(\.\d+)*|zarr\.json", p.name))  # fmt: skip


def kill_in_writes(toml, st, cell, key, target, ncells):
    """``relmc sweep run --cells CELL`` as a child; SIGKILL at the ``target``-th rename into
    the store's folders (None: let it finish and count the renames). Returns a record."""
    dirs = [st, *[d for d in Path(st).iterdir() if d.is_dir()]]
    ino = Inotify(dirs)
    cmd = ["taskset", "-c", "1", "relmc", "sweep", "run", str(toml), "--store", str(st),
           "--cells", str(cell), "--n-threads", "1", "--no-progress"]  # fmt: skip
    p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    moved, created, order, t_first, t_kill = 0, 0, [], None, None
    while p.poll() is None:
        for d, mask, name in ino.read(0.05):
            if mask & Inotify.IN_CREATE:
                created += 1
            if mask & Inotify.IN_MOVED_TO:
                moved += 1
                order.append(f"{d}/{name}")
                if t_first is None:
                    t_first = time.perf_counter()
                if target is not None and moved >= target and t_kill is None:
                    os.kill(p.pid, signal.SIGKILL)
                    t_kill = time.perf_counter()
    out, err = p.communicate()
    for d, mask, name in ino.read(0.01):  # what landed after the kill was decided
        if mask & Inotify.IN_MOVED_TO:
            moved += 1
            order.append(f"{d}/{name}")
    ino.close()
    return dict(rc=p.returncode, moved=moved, created=created, order=order,
                chunks=_cell_chunks(st, key), tmp=_tmp_files(st), out=out, err=err,
                first_to_kill_ms=None if t_kill is None else 1e3 * (t_kill - t_first))  # fmt: skip


def run_slurmmore(a):
    from relmc.sweep.spec import SweepSpec

    ck, neg = {}, {}
    S = a.seed
    py1 = R18.py_core1(a)
    if not R18.slurm_up():
        print("  no local Slurm partition 'debug': the Slurm checks are skipped")
        ck["local Slurm is up"] = False
        return ck, neg, {}
    n_heavy = 50_000 if not a.smoke else 30_000
    W = 20_000.0
    toml = R18.sub_toml(a, f"sub19_{S}", S, n_heavy, W)
    sp = SweepSpec.from_toml(toml)
    cube = R16.inproc_cube(a, sp, "sub19", "slurmmore", neg)

    def cmp(lab, st):
        bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
        print(f"  [{lab}] differing {bad}; missing {miss}")
        ck[f"[{lab}] every cube variable == in-process run_sweep (bit)"] = not (bad or miss)

    base = ["--partition", "debug", "--cpus-per-task", "1", "--time", "00:20:00", "--python",
            str(py1)]  # fmt: skip

    class Sub(R18.Submission):
        """``R18.Submission`` also recording the pending tasks' reasons (``squeue %r``)."""

        reasons = frozenset()

        def _watch(self):
            self.reasons = set()
            while self.job and self.p.poll() is None:
                self.max_running = max(self.max_running, len(R18._squeue("%i", self.job)))
                self.reasons |= set(R18._squeue("%r", self.job, "PENDING"))
                time.sleep(0.2)

    def dry(st, extra):
        r = R18._dry_run(toml, st, *extra, *base)
        return r, *R18._script(r)

    # (a) --array 3 --max-parallel 2 on a fresh store, and the control without the limit
    for lab, mp in (("max-parallel 2", ["--max-parallel", "2"]), ("no limit", [])):
        st = a.out / f"sub19_{lab.replace(' ', '_')}_{S}.zarr"
        R18._fresh(st)
        r, arr, cl = dry(st, ["--array", "3", *mp])
        print(f"  [{lab}] dry run: rc {r.returncode}; --array={arr}; cells {cl!r}")
        want = "0-2%2" if mp else "0-2"
        ck[f"[{lab}] dry run: #SBATCH --array={want}, nothing written"] = (
            r.returncode == 0 and arr == want and not st.exists()
            and not Path(f"{st}.slurm").exists())  # fmt: skip
        s = Sub([toml, "--store", st, "--array", 3, *mp, *base, "--wait"], lab).wait()
        print(f"    pending reasons seen: {sorted(s.reasons)}")
        logs, nc = R18._task_logs(st)
        ck[f"[{lab}] submit --wait rc == 0; 3 task logs computing 6 cells"] = (
            s.rc == 0 and len(logs) == 3 and nc == 6)  # fmt: skip
        if mp:
            ck["[max-parallel 2] at most 2 tasks running at once, 2 seen; a task held by "
               "JobArrayTaskLimit"] = (
                s.max_running == 2 and "JobArrayTaskLimit" in s.reasons)  # fmt: skip
        else:
            neg[("slurmmore", None, "control: without the limit a task held by "
                 "JobArrayTaskLimit")] = ("JobArrayTaskLimit" in s.reasons,
                                          f"reasons {sorted(s.reasons)}, most running "
                                          f"{s.max_running}")  # fmt: skip
        if s.rc == 0:
            cmp(f"--array 3, {lab}", st)
    # (b) the same on a partly done store
    st = a.out / f"sub19_partial_{S}.zarr"
    R18._fresh(st)
    r = R18._sweep_run([toml, "--store", st, "--cells", "0-1"], "--cells 0-1")
    done0, miss0, _ = R18._status(st)
    r, arr, cl = dry(st, ["--array", "3", "--max-parallel", "2"])
    print(f"  [partial] done {done0}, missing {miss0}; dry run --array={arr}; cells {cl!r}")
    ck["[partial] dry run: --array=0-2%2 and the list = cells 2-5"] = (
        done0 == [0, 1] and arr == "0-2%2" and cl is not None and R18._cells(cl) == [2, 3, 4, 5]
    )
    s = Sub([toml, "--store", st, "--array", 3, "--max-parallel", 2, *base, "--wait"],
            "partial, max-parallel 2").wait()  # fmt: skip
    logs, nc = R18._task_logs(st)
    print(f"    pending reasons seen: {sorted(s.reasons)}; logs "
          f"{ {k: v.strip()[-120:] for k, v in logs.items()} }")  # fmt: skip
    ck["[partial] submit --wait rc == 0; 3 task logs computing the 4 missing cells; at most 2 "
       "running"] = s.rc == 0 and len(logs) == 3 and nc == 4 and s.max_running <= 2  # fmt: skip
    if s.rc == 0:
        cmp("partial store, --array 3 --max-parallel 2", st)
    # (c) scontrol requeue of task 0 mid-run
    st_rq = a.out / f"sub19_requeue_{S}.zarr"
    R18._fresh(st_rq)
    s = Sub([toml, "--store", st_rq, "--array", 2, *base], "to be requeued").wait()
    own0 = [i for i in range(sp.n_cells) if i % 2 == 0]
    done_at = R18._wait_cells(st_rq, own0)
    left = sorted(set(own0) - set(done_at or []))
    rq = subprocess.run(["scontrol", "requeue", f"{s.job}_0"], capture_output=True, text=True)
    t_rq = time.time()
    print(f"  scontrol requeue {s.job}_0: rc {rq.returncode} {rq.stderr.strip()!r}; cells "
          f"{done_at} done, task 0's left {left}")  # fmt: skip
    # Slurm holds a requeued task about 2 min (its credential is revoked; releasing it early
    # with scontrol update StartTime=now fails it: "Job credential revoked"): the SIGKILL part
    # runs meanwhile, on another store, and the task is waited for after it

    def finish_requeue():
        states = []
        while time.time() - t_rq < 400:
            q = R18._squeue("%i %T %r %S", s.job, "all")
            if q and (not states or states[-1] != q):
                states.append(q)
            if not q:
                break
            time.sleep(0.3)
        print(f"  [requeue] task states since the requeue ({time.time() - t_rq:.1f}s): {states}")
        ck["[requeue] task 0 requeued mid-run (rc 0; a cell of its shard done, another not)"] = (
            rq.returncode == 0 and bool(done_at) and bool(left))  # fmt: skip
        logs, nc = R18._task_logs(st_rq)
        print(f"    logs { ({k: v.strip()[-300:] for k, v in logs.items()}) }")
        l0 = next((v for k, v in logs.items() if k.endswith("_0.out")), "")
        m0 = re.findall(r"computed (\d+) cells", l0)
        ck["[requeue] the requeued task's log: it computed only the cells unfinished at the "
           "requeue"] = bool(m0) and int(m0[-1]) == len(left)  # fmt: skip
        done, miss, corrupt = R18._status(st_rq, verify=True)
        ck["[requeue] status --verify: all done, none corrupt"] = (
            not miss and not corrupt and len(done) == sp.n_cells)  # fmt: skip
        cmp("scontrol requeue", st_rq)

    # (d) SIGKILL timed into a cell's chunk writes
    st = a.out / f"sub19_kill_{S}.zarr"
    R18._fresh(st)
    keyof = lambda i: "c." + ".".join(map(str, np.unravel_index(i, sp.shape)))  # noqa: E731
    R18._sweep_run([toml, "--store", st, "--cells", "5"], "--cells 5 (creates the store)")
    full = kill_in_writes(toml, st, 4, keyof(4), None, sp.n_cells)  # counts a whole cell's
    n, nch = full["moved"], len(full["chunks"])
    print(f"  a full cell (4): {n} renames into the store's folders, {full['created']} creations; "
          f"its chunk files {nch}; first {full['order'][:3]}, last "
          f"{full['order'][-3:]}")  # fmt: skip
    kills = {0: 1, 1: max(2, n // 2), 2: n - 2, 3: n - 1}
    rec, inside = {}, 0
    for cell, T in kills.items():
        k = kill_in_writes(toml, st, cell, keyof(cell), T, sp.n_cells)
        rec[cell] = k
        k["flag"] = any(x.startswith("done/") for x in k["chunks"])
        inside += k["rc"] == -9 and 0 < len(k["chunks"]) < nch and not k["flag"]
        print(f"  SIGKILL cell {cell} at rename {T} of {n}: rc {k['rc']}; renames seen "
              f"{k['moved']} ({k['first_to_kill_ms']:.2f} ms after the first); the cell's chunk "
              f"files in place {len(k['chunks'])}, done flag {k['flag']}; other files "
              f"{k['tmp'][:6]}; last renamed {k['order'][-2:]}")  # fmt: skip
    unflagged = sorted(c for c, k in rec.items() if not k["flag"])
    done, miss, corrupt = R18._status(st, verify=True)
    print(
        f"  after the kills: done {done}, missing {miss}, corrupt {corrupt}; kills inside the "
        f"writes (some of the cell's chunks in place, no done flag) {inside} of {len(kills)}"
    )
    ck[f"[SIGKILL] 4 kills at renames 1, n/2, n-2, n-1 of n = {n}: all killed (rc -9), at least "
       "3 inside the cell's writes, a done flag only with every chunk in place"] = (
        all(k["rc"] == -9 for k in rec.values()) and inside >= 3
        and all(len(k["chunks"]) == nch for k in rec.values() if k["flag"]))  # fmt: skip
    ck["[SIGKILL] status --verify: the killed cells without a flag missing, none corrupt"] = (
        miss == unflagged and not corrupt)  # fmt: skip
    part = relmc.sweep.open_sweep(st, load=True)
    b2, m2 = C9.diff_vars(cube, part)
    neg[("slurmmore", "SIGKILL", "the store after the kills == in-process cube")] = (
        not (b2 or m2), f"{len(b2)} of {len(cube.data_vars)} differ")  # fmt: skip
    r = R18._sweep_run([toml, "--store", st], "rerun")
    m = re.search(r"computed (\d+) cells", r.stdout + r.stderr)
    ck["[SIGKILL] relmc sweep run rc 0 computes exactly the unflagged cells, no stale-claim "
       "warning"] = (
        r.returncode == 0 and m is not None and int(m.group(1)) == len(unflagged)
        and "StaleClaim" not in r.stderr)  # fmt: skip
    done, miss, corrupt = R18._status(st, verify=True)
    ck["[SIGKILL] status --verify at the end: all done, none corrupt"] = (
        not miss and not corrupt and len(done) == sp.n_cells)  # fmt: skip
    print(f"  files other than chunks and zarr.json left in the store: {_tmp_files(st)[:10]}")
    cmp("SIGKILLs in the writes, then relmc sweep run", st)
    finish_requeue()
    left_jobs = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True)
    print(f"  squeue at the end: {left_jobs.stdout.split()}")
    return ck, neg, {}


def _bools(fn):
    """``fn``'s checks with numpy booleans as Python ones (the report counts bools apart)."""

    def run(a):
        ck, neg, comp = fn(a)
        return {k: bool(v) if isinstance(v, np.bool_) else v for k, v in ck.items()}, neg, comp

    return run


def main(argv=None):
    runners = {k: _bools(v) for k, v in dict(mixnode=run_mixnode, maintflow=run_maintflow,
                                               slurmmore=run_slurmmore).items()}  # fmt: skip
    R10.mode_main("r19", __doc__, runners, argv, n_sim=8000, smoke_sim=512, tag_sim=True,
                  n_sim_help="relmc trials per cell / case")  # fmt: skip


if __name__ == "__main__":
    main()
