"""Fifteenth round: ``relmc simulate --posterior`` of a conjugate and of an event-fit file
(daily cycle per category, trend) with the precision flags, and with a TOML whose
``[failures]`` names the fit's categories; ``relmc project --posterior`` of a hierarchical file
with ``--hopeless-ettr`` alone; the documented raises (fleet and size-resolved categories mixed
in ``fit_scaling``; bad command-line inputs before any file is written); fixed-length repairs
with escalation to manual repair, misses and retirement where it is common, against the
independent node model.

Written from the documents only: ``relmc simulate --help`` (the adaptive-precision group; the
TOML: "without [failures] ... --posterior's categories and recorded maintenance"; "With
--posterior, a [failures] whose [[failures.categories]] each name a fit category (their fields
replace that category's ...; the rate stays the posterior's, rate_multiplier = 0.5 halves it)
... changes the fit's categories so"), ``relmc project --help`` (``--posterior NC``: "used as it
is in place of fitting"; ``--hopeless-ettr``; ``--min-trials``' default 512), ``Precision``'s
docstring ("at least one of target_se, target_rse and hopeless_ettr"), ``default_scenario``'s,
``Category``'s, ``fit_scaling``'s ("Raises ValueError ... for fleet and size-resolved
categories mixed in one fit (their clocks differ); before any drawing"),
``check_sizes_data``'s, ``Policy``'s node fields (``repair_distribution``,
``escalation_probability``, ``manual_repair_hours``, ``auto_repair_miss``,
``manual_repair_miss``, ``retire_after_repairs``, ``n_spares``, ``repair_hours``). Source
bodies, ``_kernels*.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read. No new
simulator: the rule replay is ``r8_proj.replay`` / ``prec_checks`` / ``curve``; the command
line ``r9_cli.cli`` / ``diff_vars`` / ``prec_kw`` / ``check_case``; the event fit
``r10_proj.event_fit`` (``nodes=None``: daily cycle per category and trend); the node trials
``r5_indep.run_r5(node=True)`` (``indep_nodes``' ``repair_fixed``); the report
``r10_proj.report``.

Modes:

cli    (1) the thirteenth round's counts CSV; ``fit_conjugate`` and the event fit written as
       files; for each: ``relmc simulate TOML --posterior F`` with ``--target-rse R2
       --hopeless-ettr H_lo --min-trials 700`` (the target stops) and ``--target-rse 1e-5
       --hopeless-ettr H_hi --min-trials 700`` (the floor stops), and a TOML whose
       ``[failures]`` names the fit's categories (gpu: ``recovery = "swap"``,
       ``detection_hours = 0.25``; net: ``rate_multiplier = 0.5``) with ``--target-rse R3
       --min-trials 700``: every variable against ``simulate(my scenario, rates=the file,
       precision, seed)`` (bit), the scenario attr against mine, the counts against the
       replayed rule; negatives seed + 1, ``min_trials`` 512, the other file, and for the
       ``[failures]`` case the fit's categories unchanged. Then ``relmc project --posterior
       hier.nc --hopeless-ettr H --keep-trials --credible-trials 0`` (no target, default
       ``--min-trials``) against ``project(precision=Precision(hopeless_ettr=H))``:
       ``check_case``, ``prec_checks``; negatives seed + 1, no precision, ``min_trials``
       2048, the conjugate file.
raises (2) ``fit_scaling`` of a dataset mixing size-resolved (hw, sw) and fleet (fl) rows:
       a ``ValueError`` naming the mix; negative: the size-resolved part alone fits. Bad
       command-line inputs (``--min-trials 1``, ``--hopeless-ettr 1.5``, ``--target-rse 0``,
       ``--n-trials 0``, ``--hopeless-ettr 0`` for project, a ``[failures]`` category not in
       the fit): rc != 0 and ``--out`` not created; negative: the valid command creates it.
fixed  (3) a node-model scenario at point (job) rates: a pool of 2 spares, fixed 6-h automated
       repairs, escalation 0.4 to fixed 30-h manual repairs, misses 0.3 / 0.1, retirement
       after 2 repairs, 72 compute hours, 64 and 256 GPUs; ``simulate`` trials vs
       ``run_r5(node=True)``; negatives: exponential repairs, no escalation, no retirement,
       manual repairs 15 h, no misses.
rsweep (4, 6) a point-rate sweep on that scenario at 256 GPUs, axes
       ``policy.escalation_probability`` 0 / 0.4 x ``policy.manual_repair_hours`` 15 / 30,
       ``keep_trials``: per cell the scenario, every summary = ``summarize_cell(simulate)``
       and every kept per-trial variable = ``simulate``'s (bit), each cell's kept trials vs
       ``run_r5(node=True)``; the same spec in 2 shards, with 2 workers and on a Dask
       ``LocalCluster(n_workers=1, threads_per_worker=1, processes=False)`` client (bit);
       negatives: 2 shards with the root seed + 1, the other escalation, the other manual
       hours (with escalation 0.4 where the cell has none).

    taskset -c 1 python benchmarks/outside_physics/r15_proj.py MODE [--seed S] [--n-indep N]
        [--budget B] [--n-sim N] [--iseed I] [--smoke] [--out DIR]

The independent seeds depend on the cell / size and ``--iseed``, not on ``--seed``.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes  # noqa: E402
import r4_run  # noqa: E402
import r5_indep  # noqa: E402
import r6_proj as R6  # noqa: E402
import r8_proj as P8  # noqa: E402
import r9_cli as C9  # noqa: E402
import r9_proj as R9  # noqa: E402
import r10_proj as R10  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit


def _case(lab, file, api, full, budget, kw, sizes, ck, neg, negs_api):
    """``r9_cli.check_case`` with its negatives as ``(identical, note)`` pairs."""
    n0 = {}
    C9.check_case(lab, file, api, full, budget, kw, sizes, ck, n0, negs_api)
    for k, v in n0.items():
        neg[k] = (bool(v), "")


def _scen_attr(ds):
    s = ds.attrs.get("scenario")
    return json.loads(s) if isinstance(s, str) else s


def _js(d):
    return json.dumps(d, sort_keys=True, default=str)


def _rounds(e, budget, mt):
    c = P8.curve(e, budget, mt)
    rs = [(cc - e[:n].mean()) / 4 / e[:n].mean() for n, cc in c]
    return c, rs


def _mid_rse(rs):
    j = min(1, len(rs) - 2)
    return float(f"{0.5 * (rs[j] + rs[j + 1]):.6g}")


def _mid_floor(c):
    c2 = c[min(1, len(c) - 1)][1]
    return float(f"{0.5 * (c[0][1] + c2) if c2 < c[0][1] else c[0][1] + 1e-3:.6g}")


def counts_csv(a):
    csv = a.out / "counts15.csv"
    csv.write_text("category,count,exposure,unit,recovery\ngpu,40,12000,gpu,swap\n"
                   "net,20,1500,node,restart\nrk,6,750,rack,restart\n")  # fmt: skip
    return csv


# ---------------------------------------------------------------- 1: the command line
def prec_cases(name, R2, H_lo, H_hi, mt):
    """The precision flags of a file's two cases: a target that stops, a floor that stops."""
    return {
        f"{name}: target stops": ["--target-rse", str(R2), "--hopeless-ettr", str(H_lo),
                                  "--min-trials", str(mt)],
        f"{name}: floor stops": ["--target-rse", "1e-5", "--hopeless-ettr", str(H_hi),
                                 "--min-trials", str(mt)],
    }  # fmt: skip


def sim_case(a, lab, toml_text, ss, idata, pf, fl, full, ck, neg, negs_sc):
    """``relmc simulate TOML --posterior pf FLAGS`` against ``simulate(ss, rates=idata)``."""
    S, budget = a.seed, a.budget
    toml = a.out / f"{lab.replace(' ', '_').replace(':', '')}.toml"
    toml.write_text(toml_text)
    out = a.out / f"sim_{lab.replace(' ', '_').replace(':', '')}"
    shutil.rmtree(out, ignore_errors=True)
    ck[f"[{lab}] rc == 0"] = (
        C9.cli(["simulate", str(toml), "--posterior", str(pf), "--n-trials", str(budget), *fl],
               out) == 0
    )  # fmt: skip
    if not ck[f"[{lab}] rc == 0"]:
        return
    sfile = xr.open_dataset(out / "simulation.nc").load()
    kw = C9.prec_kw(fl)
    pr = relmc.Precision(**kw)
    api = relmc.simulate(ss, rates=idata, n_trials=budget, seed=S, n_threads=1, precision=pr)
    theirs = _scen_attr(sfile)
    ck[f"[{lab}] file's scenario attr == mine (to_dict)"] = _js(ss.to_dict()) == _js(theirs)
    if not ck[f"[{lab}] file's scenario attr == mine (to_dict)"]:
        m, t = ss.to_dict(), theirs
        for k in m:
            if _js(m[k]) != _js(t.get(k)):
                print(f"    scenario attr differs in [{k}]: mine {_js(m[k])[:700]}\n"
                      f"      file {_js(t.get(k))[:700]}")  # fmt: skip
    ck[f"[{lab}] stopped_by attr == API's"] = sfile.attrs["stopped_by"] == api.attrs["stopped_by"]
    k512 = {k: v for k, v in kw.items() if k != "min_trials"}
    negs = {
        "API seed + 1": relmc.simulate(ss, rates=idata, n_trials=budget, seed=S + 1, n_threads=1,
                                       precision=pr),
        "API min_trials 512": relmc.simulate(ss, rates=idata, n_trials=budget, seed=S,
                                             n_threads=1, precision=relmc.Precision(**k512)),
    }  # fmt: skip
    for nl, (sc2, rates2) in negs_sc.items():
        negs[nl] = relmc.simulate(sc2, rates=rates2, n_trials=budget, seed=S, n_threads=1,
                                  precision=pr)  # fmt: skip
    _case(lab, sfile, api, full, budget, kw, [None], ck, neg, negs)


def run_cli(a):
    import arviz as az

    ck, neg = {}, {}
    csv = counts_csv(a)
    S, budget, mt = a.seed, a.budget, 700
    C9.SEED = S
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    files = {}
    conj = relmc.fit_conjugate(data, n_draws=200, n_chains=2, seed=S)
    files["conj"] = a.out / "conj15.nc"
    files["conj"].unlink(missing_ok=True)
    conj.to_netcdf(files["conj"])
    t0 = time.time()
    ev = R10.event_fit(argparse.Namespace(out=a.out, draws=100, nodes=None))
    print(f"event fit (diurnal per category, trend) {time.time() - t0:.1f}s; model_terms "
          f"{ev.posterior.attrs.get('model_terms')}")  # fmt: skip
    files["events"] = a.out / "ev15.nc"
    files["events"].unlink(missing_ok=True)
    ev.to_netcdf(files["events"])
    idat = {k: az.from_netcdf(p) for k, p in files.items()}
    toml0 = ("[cluster]\nn_gpus = 40\n\n[job]\ncompute_hours = 24.0\n\n[policy]\n"
             "restart_hours = 1.5\n")  # fmt: skip
    over = {"gpu": dict(recovery="swap", detection_hours=0.25), "net": dict(rate_multiplier=0.5)}
    toml1 = toml0 + (
        '\n[[failures.categories]]\nname = "gpu"\nrecovery = "swap"\ndetection_hours = 0.25\n'
        '\n[[failures.categories]]\nname = "net"\nrate_multiplier = 0.5\n'
    )
    for name, idata in idat.items():
        other = idat["events" if name == "conj" else "conj"]
        sc = R9.with_compute(default_scenario(idata), 24.0)
        sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
        ss = R6.at_size(sc, 40)
        print(f"[{name}] default_scenario: categories "
              f"{[(c.name, c.unit, c.recovery, c.detection_hours) for c in ss.failures.categories]}"
              f"; maintenance_rate {ss.failures.maintenance_rate}")  # fmt: skip
        fs = relmc.simulate(ss, rates=idata, n_trials=budget, seed=S, n_threads=1)
        e = fs.ettr.values
        c, rs = _rounds(e, budget, mt)
        R2, H_lo, H_hi = _mid_rse(rs), float(f"{e.mean() - 0.1:.6g}"), _mid_floor(c)
        print(f"  full: mean ETTR {e.mean():.5f}; rounds "
              + ", ".join(f"({n}, {cc:.5f}, {r:.6f})" for (n, cc), r in zip(c, rs, strict=True))
              + f"; R2 {R2}, H_lo {H_lo}, H_hi {H_hi}")  # fmt: skip
        sc_o = R9.with_compute(default_scenario(other), 24.0)
        sc_o = R6.at_size(
            dataclasses.replace(sc_o, policy=dataclasses.replace(sc_o.policy, restart_hours=1.5)),
            40,
        )
        cases = prec_cases(name, R2, H_lo, H_hi, mt)
        for lab, fl in cases.items():
            sim_case(a, lab, toml0, ss, idata, files[name], fl, fs, ck, neg,
                     {"API the other file": (sc_o, other)})  # fmt: skip
        # [failures] naming the fit's categories
        cats = tuple(dataclasses.replace(x, **over.get(x.name, {}))
                     for x in ss.failures.categories)  # fmt: skip
        s1 = dataclasses.replace(ss, failures=dataclasses.replace(ss.failures, categories=cats))
        f1 = relmc.simulate(s1, rates=idata, n_trials=budget, seed=S, n_threads=1)
        e1 = f1.ettr.values
        c1, rs1 = _rounds(e1, budget, mt)
        R3 = _mid_rse(rs1)
        print(f"  [failures] full: mean ETTR {e1.mean():.5f} (unchanged {e.mean():.5f}); R3 {R3}")
        half = tuple(dataclasses.replace(x, rate_multiplier=1.0) if x.name == "net" else x
                     for x in cats)  # fmt: skip
        s_half = dataclasses.replace(s1, failures=dataclasses.replace(s1.failures, categories=half))
        sim_case(a, f"{name}: [failures] names the fit's categories", toml1, s1, idata,
                 files[name], ["--target-rse", str(R3), "--min-trials", str(mt)], f1, ck, neg,
                 {"API the fit's categories unchanged": (ss, idata),
                  "API rate_multiplier not applied": (s_half, idata)})  # fmt: skip
    # ---- relmc project --posterior of a hierarchical file with --hopeless-ettr alone
    hier = relmc.fit_hierarchical(data, n_draws=200, n_tune=300, n_chains=2, cores=1, seed=S)
    hp = a.out / "hier15.nc"
    hp.unlink(missing_ok=True)
    hier.to_netcdf(hp)
    hid = az.from_netcdf(hp)
    sizes = (8, 40)
    sc = R9.with_compute(default_scenario(hid), 24.0)
    sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
    root = resolve_seed(S)
    full = {N: P8.sim(R6.at_size(sc, N), hid, budget, size_seed(root, N), root) for N in sizes}
    cv = P8.curve(full[40].ettr.values, budget, 512)
    H = _mid_floor(cv)
    e8 = full[8].ettr.values[:512]
    lo8 = e8.mean() - 4 * e8.std(ddof=1) / np.sqrt(512)
    print(f"  hier full: mean ETTR {[round(float(full[N].ettr.mean()), 5) for N in sizes]}; "
          f"40-GPU rounds (n, mean + 4 SE) {[(n, round(x, 5)) for n, x in cv]}; H {H}; 8-GPU "
          f"first round mean - 4 SE {lo8:.5f}"
    )  # fmt: skip
    out_p = a.out / "proj_hier"
    shutil.rmtree(out_p, ignore_errors=True)
    fl = ["--hopeless-ettr", str(H)]
    ck["project --posterior hier --hopeless-ettr rc == 0"] = (
        C9.cli(["project", "--posterior", str(hp), "--n-gpus", "8,40", "--compute-hours", "24",
                "--restart-hours", "1.5", "--n-trials", str(budget), "--credible-trials", "0",
                "--keep-trials", *fl], out_p, extra=["--no-plot"]) == 0
    )  # fmt: skip
    if not ck["project --posterior hier --hopeless-ettr rc == 0"]:
        return ck, neg, {}
    file = xr.open_dataset(out_p / "projection.nc").load()
    kw = C9.prec_kw(fl)
    pkw = dict(n_gpus=list(sizes), scenario=sc, n_trials=budget, n_threads=1, keep_trials=True,
               credible_trials=0)  # fmt: skip
    prec = relmc.Precision(**kw)
    api = relmc.project(hid, seed=S, precision=prec, **pkw)
    negs = {
        "API seed + 1": relmc.project(hid, seed=S + 1, precision=prec, **pkw),
        "API no precision": relmc.project(hid, seed=S, **pkw),
        "API min_trials 2048": relmc.project(
            hid, seed=S, precision=relmc.Precision(**kw, min_trials=2048), **pkw
        ),
        "API the conjugate file": relmc.project(idat["conj"], seed=S, precision=prec, **pkw),
    }
    fullx = xr.Dataset(
        {"ettr": xr.concat([full[N].ettr for N in sizes], dim="n_gpus").assign_coords(
            n_gpus=list(sizes))}
    )  # fmt: skip
    _case("project --posterior hier", file, api, fullx, budget, kw, sizes, ck, neg, negs)
    print(f"  n_trials {file.n_trials.values.tolist()} stopped_by "
          f"{file.stopped_by.values.tolist()}")  # fmt: skip
    ck["project hier: stop reasons (n_trials at 8, hopeless at 40) as planned"] = [
        str(x) for x in file.stopped_by.values
    ] == ["n_trials", "hopeless"]
    pk = dict(tse=None, trse=None, hopeless=H, min_trials=512)
    for N in sizes:
        P = P8.sim(R6.at_size(sc, N), hid, budget, size_seed(root, N), root, prec)
        P8.prec_checks(ck, neg, file, N, P, full[N], pk, budget, tag="hier ")
    return ck, neg, {}


# ---------------------------------------------------------------- 2: documented raises
def run_raises(a):
    import r14_proj as R14

    ck, neg = {}, {}
    sized = R14.scal2_data()
    mixed = xr.Dataset(
        dict(unit=("category", ["node", "gpu", "node"]), group=("category", ["", "", ""]),
             job_count=(("category", "job_gpus"), [[10, 10], [12, 30], [0, 0]]),
             job_hours=(("category", "job_gpus"), [[11448.0, 79.0], [9000.0, 300.0],
                                                   [0.0, 0.0]]),
             count=("category", [0, 0, 25]), exposure=("category", [0.0, 0.0, 5000.0])),
        coords=dict(category=["hw", "sw", "fl"], job_gpus=[8, 1024]),
    )  # fmt: skip
    t0 = time.time()
    try:
        relmc.fit_scaling(mixed, n_draws=20, n_chains=1, seed=2)
        msg, typ = None, None
    except Exception as exc:  # noqa: BLE001
        msg, typ = str(exc), type(exc).__name__
    dt = time.time() - t0
    print(f"fit_scaling(mixed): {typ}: {msg} ({dt:.2f}s)")
    ck["fit_scaling(fleet + size-resolved) raises ValueError"] = typ == "ValueError"
    low = (msg or "").lower()
    ck["its message names the mix (fleet / size-resolved / clock)"] = any(
        w in low for w in ("fleet", "size-resolved", "size resolved", "clock", "job_")
    )
    ck["it raises before any drawing (< 5 s)"] = dt < 5.0
    try:
        fs = relmc.fit_scaling(sized, n_draws=20, n_chains=1, seed=2)
        ok = "exponent" in fs.posterior
    except Exception as exc:  # noqa: BLE001
        ok = False
        print(f"  size-resolved alone raised {type(exc).__name__}: {exc}")
    neg[("raises", "size-resolved part alone also raises")] = (not ok, "")
    fleet_only = relmc.load_counts(
        {"category": ["fl"], "count": [25], "exposure": [5000.0], "unit": ["node"]},
        n_gpus=64,
        duration_hours=500.0,
    )
    try:
        relmc.fit_scaling(fleet_only, n_draws=20, n_chains=1, seed=2)
        fo = "fits"
    except Exception as exc:  # noqa: BLE001
        fo = f"{type(exc).__name__}: {exc}"
    print(f"  fleet rows alone: {fo}")
    # ---- command-line inputs documented as invalid: rc != 0, --out not created
    C9.SEED = a.seed
    csv = counts_csv(a)
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    pf = a.out / "conj15_raises.nc"
    pf.unlink(missing_ok=True)
    relmc.fit_conjugate(data, n_draws=50, n_chains=2, seed=a.seed).to_netcdf(pf)
    toml = a.out / "raises.toml"
    toml.write_text("[cluster]\nn_gpus = 40\n\n[job]\ncompute_hours = 24.0\n")
    tbad = a.out / "raises_badcat.toml"
    tbad.write_text('[job]\ncompute_hours = 24.0\n\n[[failures.categories]]\nname = "gpux"\n'
                    'recovery = "swap"\n')  # fmt: skip
    simb = ["simulate", str(toml), "--posterior", str(pf), "--n-trials", "1024"]
    projb = ["project", "--posterior", str(pf), "--n-gpus", "8,40", "--compute-hours", "24",
             "--n-trials", "1024", "--credible-trials", "0"]  # fmt: skip
    bad = {
        "simulate --min-trials 1": [*simb, "--target-rse", "0.01", "--min-trials", "1"],
        "simulate --hopeless-ettr 1.5": [*simb, "--hopeless-ettr", "1.5"],
        "simulate --target-rse 0": [*simb, "--target-rse", "0"],
        "simulate --n-trials 0": [*simb[:-1], "0"],
        "project --hopeless-ettr 0": [*projb, "--hopeless-ettr", "0"],
        "project --target-se -0.01": [*projb, "--target-se=-0.01"],
        "simulate [failures] category not in the fit (kind failure)": [
            "simulate", str(tbad), "--posterior", str(pf), "--n-trials", "1024"],
    }  # fmt: skip
    for lab, args in bad.items():
        out = a.out / f"bad_{lab.split(' ')[0]}_{abs(hash(lab)) % 10**6}"
        shutil.rmtree(out, ignore_errors=True)
        cmd = ["taskset", "-c", "1", "relmc", *args, "--seed", str(a.seed), "--n-threads", "1",
               "--out", str(out), "--quiet"]  # fmt: skip
        r = subprocess.run(cmd, env=C9.ENV, capture_output=True, text=True)
        err = (r.stderr.strip().splitlines() or [""])[-1]
        made = out.exists()
        print(f"  [{lab}] rc {r.returncode}; out created {made}"
              + (f" (holding {sorted(p.name for p in out.iterdir())})" if made else "")
              + f"; stderr: {err[:300]}")  # fmt: skip
        ck[f"[{lab}] rc != 0"] = r.returncode != 0
        ck[f"[{lab}] --out not created (or left empty)"] = (not made) or not any(out.iterdir())
    for lab, args in {"simulate valid": simb, "project valid": projb}.items():
        out = a.out / f"ok_{lab.split(' ')[0]}"
        shutil.rmtree(out, ignore_errors=True)
        rc = C9.cli(args, out, extra=["--no-plot"] if lab.startswith("project") else [])
        neg[("raises", f"{lab}: rc 0 and --out holds files")] = (
            not (rc == 0 and out.exists() and any(out.iterdir())),
            f"rc {rc}; {sorted(p.name for p in out.iterdir()) if out.exists() else 'no dir'}",
        )
    return ck, neg, {}


# ---------------------------------------------------------------- 3: fixed repairs + escalation
def run_fixed(a):
    ck, neg, comp = {}, {}, {}
    spec = node_spec(W=72.0, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=2,
                     repair_h=6.0, escalate=0.4, manual_h=30.0, auto_miss=0.3, manual_miss=0.1,
                     retire_after=2, repair_fixed=True,
                     cats=[ncat("gpu", 0.12, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05)])  # fmt: skip
    sc = indep_nodes.build_relmc(spec)
    p = sc.policy
    print(f"scenario: rates (job) {[c.rate for c in sc.failures.categories]} "
          f"{[c.unit for c in sc.failures.categories]}, n_spares {p.n_spares}, repair_hours "
          f"{p.repair_hours} ({p.repair_distribution}), escalation {p.escalation_probability}"
          f" to {p.manual_repair_hours} h, misses {p.auto_repair_miss} / "
          f"{p.manual_repair_miss}, retire_after_repairs {p.retire_after_repairs}")  # fmt: skip
    ck["scenario's repair_distribution == 'fixed'"] = p.repair_distribution == "fixed"
    variants = (None, "exponential repairs", "no escalation", "no retirement",
                "manual repairs 15 h", "no misses")  # fmt: skip
    shown = ("repairs_auto", "repairs_manual", "nodes_retired", "pool_occupancy")

    def spec_of(N, var):
        s = copy.deepcopy(spec)
        s["n_gpus"] = N
        if var == "exponential repairs":
            s["repair_fixed"] = False
        if var == "no escalation":
            s["escalate"] = 0.0
        if var == "no retirement":
            s["retire_after"] = 0
        if var == "manual repairs 15 h":
            s["manual_h"] = 15.0
        if var == "no misses":
            s.update(auto_miss=0.0, manual_miss=0.0)
        return s

    root = resolve_seed(a.seed)
    for N in (64, 256):
        scN = R6.at_size(sc, N)
        t1 = time.time()
        P = relmc.simulate(scN, n_trials=a.n_sim, seed=size_seed(root, N), n_threads=1)
        print(
            f"  N={N}: simulate {a.n_sim} trials {time.time() - t1:.1f}s; finished "
            f"{float(P.finished.mean()):.4f}; mean ETTR {float(P.ettr.mean()):.4f}; relmc "
            "mean a trial: "
            + ", ".join(f"{v} {float(P[v].mean()):.4f}" for v in shown)
            + f"; share of trials with a retirement {float((P.nodes_retired > 0).mean()):.3f}"
        )
        t = indep_nodes.relmc_table(P, spec)
        for j, var in enumerate(variants):
            b = r5_indep.run_r5(spec_of(N, var), a.n_indep, 15000 * N + 100 * j
                                + 100_000 * a.iseed, F=None, node=True)  # fmt: skip
            if var is None:
                print("    independent mean: "
                      + ", ".join(f"{v} {b[v].mean():.4f}" for v in shown))  # fmt: skip
            comp[("fixed", N, var or "documented")] = r4_run.compare_tables(
                f"N={N}", {x: y.copy() for x, y in t.items()}, b, spec, quiet=True
            )
    return ck, neg, comp


# ---------------------------------------------------------------- 4, 6: repair-chain sweep
def fixed_spec(N=256):
    return node_spec(W=72.0, n_gpus=N, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=2,
                     repair_h=6.0, escalate=0.4, manual_h=30.0, auto_miss=0.3, manual_miss=0.1,
                     retire_after=2, repair_fixed=True,
                     cats=[ncat("gpu", 0.12, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05)])  # fmt: skip


def run_rsweep(a):
    """A point-rate sweep on the fixed-repair node scenario, axes
    ``policy.escalation_probability`` 0 / 0.4 x ``policy.manual_repair_hours`` 15 / 30,
    ``keep_trials``: per cell the scenario, every summary = ``summarize_cell(simulate)`` and
    every kept per-trial variable = ``simulate``'s (bit), the trials vs ``run_r5(node=True)``;
    the same spec in 2 shards, with 2 workers and on a Dask client (bit)."""
    from relmc.sweep import cells as SC
    from relmc.sweep.spec import SweepSpec

    ck, neg, comp = {}, {}, {}
    spec = fixed_spec(256)
    sc = indep_nodes.build_relmc(spec)
    axes = {"policy.escalation_probability": [0.0, 0.4], "policy.manual_repair_hours": [15.0, 30.0]}
    d = dict(seed=a.seed, n_trials=a.n_sim, posterior="point", quantiles=[0.05, 0.5, 0.95],
             base=sc.to_dict(), axes=axes, keep_trials=True)  # fmt: skip
    sp = SweepSpec.from_dict(d)
    store = a.out / "rsweep.zarr"
    shutil.rmtree(store, ignore_errors=True)
    t0 = time.time()
    relmc.sweep.run_sweep(sp, store, n_threads=1)
    cube = relmc.sweep.open_sweep(store, load=True)
    tv = [v for v in cube.data_vars if "trial" in cube[v].dims]
    print(
        f"run_sweep {time.time() - t0:.1f}s; dims {sp.dims}; {len(cube.data_vars)} variables, "
        f"{len(tv)} with a trial dim; mean ETTR {np.round(cube['ettr_mean'].values, 4).tolist()}"
    )
    variants = (None, "the other escalation", "the other manual hours")
    for i in range(sp.n_cells):
        idx = np.unravel_index(i, sp.shape)
        sel = dict(zip(sp.dims, idx, strict=True))
        esc, mh = (list(axes.values())[p][j] for p, j in enumerate(idx))
        mine = dataclasses.replace(sc, policy=dataclasses.replace(
            sc.policy, escalation_probability=esc, manual_repair_hours=mh))  # fmt: skip
        ck[f"cell {i} spec.scenario(i) == mine (escalation {esc}, manual {mh} h)"] = (
            sp.scenario(i) == mine
        )
        cell = cube.isel(sel)
        P = relmc.simulate(sp.scenario(i), n_trials=a.n_sim, seed=SC.cell_seed(a.seed, i),
                           n_threads=1)  # fmt: skip
        Sm = SC.summarize_cell(P, sp.quantiles)
        bad = [v for v in Sm.data_vars
               if v in cell.data_vars and not bit(Sm[v].values, cell[v].values)]  # fmt: skip
        ck[f"cell {i} every summary variable == summarize_cell(simulate) (bit)"] = not bad
        badt = [v for v in tv if v not in P or not bit(P[v].values, cell[v].values)]
        ck[f"cell {i} every kept per-trial variable == simulate's (bit)"] = not badt and bool(tv)
        if bad or badt:
            print(f"  cell {i}: summaries differing {bad}; trial variables differing {badt}")
        kept = {v: cell[v].values for v in tv}
        t = indep_nodes.relmc_table(cell[tv], spec)
        print(f"  cell {i} {sel}: repairs_manual {kept['repairs_manual'].mean():.4f}, "
              f"nodes_retired {kept['nodes_retired'].mean():.4f}, finished "
              f"{kept['finished'].mean():.4f}")  # fmt: skip
        for j, var in enumerate(variants):
            s = copy.deepcopy(spec)
            s.update(escalate=(0.4 - esc) if var == "the other escalation" else esc,
                     manual_h=(45.0 - mh) if var == "the other manual hours" else mh)  # fmt: skip
            if esc == 0.0 and var == "the other manual hours":
                s["escalate"] = 0.4  # manual hours cannot act without escalation
            b = r5_indep.run_r5(s, a.n_indep, 16000 + 101 * i + 7 * j + 100_000 * a.iseed,
                                F=None, node=True)  # fmt: skip
            comp[("rsweep", i, var or "documented")] = r4_run.compare_tables(
                f"cell {i}", {x: y.copy() for x, y in t.items()}, b, spec, quiet=True
            )
    orig = relmc.sweep.run_sweep
    lays = ["2 shards", "2 workers"]
    try:
        from dask.distributed import Client, LocalCluster

        t0 = time.time()
        cl = LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                          dashboard_address=None)  # fmt: skip
        client = Client(cl)
        print(f"  dask LocalCluster (1 worker, 1 thread, in process) up in {time.time() - t0:.1f}s")
        lays.append("dask client")
    except Exception as exc:  # noqa: BLE001
        client = None
        print(f"  dask not run: {type(exc).__name__}: {exc}")
    for lay in lays:
        st = a.out / f"rsweep_{lay.replace(' ', '_')}.zarr"
        shutil.rmtree(st, ignore_errors=True)
        t0 = time.time()
        if lay == "2 workers":
            orig(sp, st, n_threads=1, workers=2)
        elif lay == "dask client":
            orig(sp, st, n_threads=1, client=client)
        else:
            for sh in (1, 0):
                orig(sp, st, shard=sh, shards=2, n_threads=1)
        cb = relmc.sweep.open_sweep(st, load=True)
        bad, miss = C9.diff_vars(cube, cb)
        print(f"  [{lay}] {time.time() - t0:.1f}s; differing {bad}; missing {miss}; "
              f"{len(cube.data_vars)} variables")  # fmt: skip
        ck[f"[{lay}] every cube variable == in process (bit)"] = not bad and not miss
    if client is not None:
        client.close()
        cl.close()
    st = a.out / "rsweep_seed+1.zarr"
    shutil.rmtree(st, ignore_errors=True)
    for sh in (1, 0):
        orig(dataclasses.replace(sp, seed=sp.seed + 1), st, shard=sh, shards=2, n_threads=1)
    bad, miss = C9.diff_vars(cube, relmc.sweep.open_sweep(st, load=True))
    neg[("rsweep", None, "2 shards, root seed + 1")] = (
        not bad and not miss, f"{len(bad)} of {len(cube.data_vars)} variables differ")  # fmt: skip
    return ck, neg, comp


def main(argv=None):
    runners = dict(cli=run_cli, raises=run_raises, fixed=run_fixed, rsweep=run_rsweep)
    R10.mode_main("r15", __doc__, runners, argv, n_sim_help="fixed: relmc trials per size")


if __name__ == "__main__":
    main()
