"""Ninth round (b): ``relmc project`` / ``relmc simulate`` with ``--target-se``,
``--target-rse``, ``--hopeless-ettr``, ``--min-trials`` against the Python API.

Written from ``relmc project --help`` / ``relmc simulate --help`` (the adaptive-precision group:
"any target makes --n-trials a budget: first --min-trials trials (default 512), then rounds that
double the total, each of whole 256-trial blocks"; ``--posterior NC``: "its categories, rates
and recorded maintenance"; ``--maintenance-rate``: "default: the rate the data or fit record";
the output files ``projection.nc`` / ``simulation.nc``), the README's "Adaptive precision from
the command line" paragraph and ``relmc.Precision``'s, ``project``'s and ``simulate``'s
docstrings. Each command runs with ``--seed``, ``--n-threads 1``, ``--keep-trials``; the API
runs with the same arguments (the scenario: ``default_scenario(posterior)`` with the flags'
fields, checked equal to the file's ``scenario`` attr; for ``simulate`` the ``--init`` template,
compute 48 h, its point rates, read with ``tomllib`` into ``Scenario.from_dict``); every data
variable compared bit for bit, and
``n_trials`` / ``stopped_by`` against ``r8_proj.replay`` on the full run. Negative controls:
the API with ``min_trials`` 512 where the command gave another, with the other target kind,
and with seed + 1 (variables that differ).

    taskset -c 1 python benchmarks/outside_physics/r9_cli.py [--budget B] [--seed S]
        [--smoke] [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

import relmc
from relmc._seed import resolve_seed
from relmc.projection import default_scenario, size_seed

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r6_proj as R6  # noqa: E402
import r8_proj as P8  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
ENV = dict(os.environ, NUMBA_NUM_THREADS="1")


def cli(args, out, threads=True, seeded=True, extra=()):
    """Run ``relmc ARGS`` on core 1 into ``out``; its return code (stderr printed if not 0).

    With ``seeded``, ``--seed SEED``; ``extra`` flags go last (the tenth round's
    ``--no-plot``)."""
    th = ["--n-threads", "1"] if threads else []
    sd = ["--seed", str(SEED)] if seeded else []
    cmd = ["taskset", "-c", "1", "relmc", *args, *sd, *th, "--out", str(out), "--quiet",
           *extra]  # fmt: skip
    t0 = time.time()
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    print(f"$ {' '.join(cmd[3:])}  ({time.time() - t0:.1f}s, rc {r.returncode})")
    if r.returncode:
        print(r.stderr[-2000:])
    return r.returncode


def diff_vars(x, y):
    """Names of data variables not equal bit for bit (NaN equal), and of those missing."""
    bad = [v for v in x.data_vars if v in y.data_vars
           and not np.array_equal(np.asarray(x[v].values), np.asarray(y[v].values),
                                  equal_nan=x[v].dtype.kind == "f")]  # fmt: skip
    miss = sorted(set(x.data_vars) ^ set(y.data_vars))
    return bad, miss


def prec_kw(flags):
    kw, it = {}, iter(flags)
    names = {"--target-se": "target_se", "--target-rse": "target_rse",
             "--hopeless-ettr": "hopeless_ettr", "--min-trials": "min_trials"}  # fmt: skip
    for f in it:
        if f in names:
            v = next(it)
            kw[names[f]] = int(v) if f == "--min-trials" else float(v)
    return kw


def check_case(lab, file, api, full, budget, kw, sizes, ck, neg, negs_api):
    bad, miss = diff_vars(file, api)
    ck[f"[{lab}] every data variable == API (bit)"] = not bad and not miss
    print(f"  [{lab}] {len(file.data_vars)} variables; differing {bad}; missing {miss}")
    pk = dict(tse=kw.get("target_se"), trse=kw.get("target_rse"), hopeless=kw.get("hopeless_ettr"),
              min_trials=kw.get("min_trials", 512))  # fmt: skip
    for N in sizes:
        e = full.ettr.sel(n_gpus=N).values if N is not None else full.ettr.values
        n, sb, fl = P8.replay(e, budget, **pk)
        if N is not None:
            rn, rsb = int(file.n_trials.sel(n_gpus=N)), str(file.stopped_by.sel(n_gpus=N).values)
        else:
            rn, rsb = file.sizes["trial"], str(file.attrs["stopped_by"])
        ck[f"[{lab}] N={N} (n_trials, stopped_by) == replayed rule"] = (rn, rsb) == (n, sb)
        nb, sbb, _ = P8.replay(e, budget, **pk, final="budget")
        neg[(lab, N, "last round labelled n_trials")] = (nb, sbb) == (rn, rsb)
        for mis in P8.MISREADINGS:
            n2, sb2, _ = P8.replay(e, budget, **pk, mis=mis)
            neg[(lab, N, mis)] = (n2, sb2) == (rn, rsb)
        print(f"    N={N}: file n_trials {rn} stopped_by {rsb}; replayed {n} {sb} (met: {fl})")
    for nl, other in negs_api.items():
        b2, m2 = diff_vars(file, other)
        neg[(lab, None, nl)] = not b2 and not m2
        print(f"    negative {nl}: {len(b2)} variables differ")


def main(argv=None):
    global SEED
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r9/cli"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.budget = 1024
    SEED = a.seed
    a.out.mkdir(parents=True, exist_ok=True)
    log_to(a.out, f"log_r9_cli_{a.seed}_{a.budget}.txt")
    print(f"r9_cli budget {a.budget} seed {a.seed}  relmc {relmc.__version__}")
    t00 = time.time()
    ck, neg = {}, {}
    root = resolve_seed(a.seed)
    # ---- project on a hand posterior (wall clock on 24 GPUs, maintenance recorded 0.5 / h)
    idata = P8.hand_idata(2, 50, exponent=False, wall=True, jlo=0.04, jhi=0.2)
    for d in (idata.posterior.attrs, idata.posterior["rate"].attrs):
        d["maintenance_rate"] = 0.5
    pnc = a.out / "hand_posterior.nc"
    idata.to_netcdf(pnc)
    import arviz as az

    post = az.from_netcdf(pnc)
    sizes = [8, 40]
    sc0 = default_scenario(post)
    sc = dataclasses.replace(sc0, job=dataclasses.replace(sc0.job, compute_hours=24.0))
    scm = dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, maintenance_rate=0.05)
    )  # fmt: skip
    full = relmc.project(post, n_gpus=sizes, scenario=sc, n_trials=a.budget, seed=a.seed,
                         n_threads=1, keep_trials=True)  # fmt: skip
    for N in sizes:
        e = full.ettr.sel(n_gpus=N).values
        print(f"full N={N}: mean ETTR {e.mean():.5f}; mean + 4 SE, SE/mean by round: "
              + ", ".join(f"{n}: {c:.5f}, {(c - e[:n].mean()) / 4 / e[:n].mean():.5f}"
                          for n, c in P8.curve(e, a.budget, 512)))  # fmt: skip
    e40 = full.ettr.sel(n_gpus=40).values
    cv = P8.curve(e40, a.budget, 512)
    hop = (cv[1][1] + cv[0][1]) / 2 if cv[1][1] < cv[0][1] else cv[0][1] + 1e-4
    rse2 = (cv[-2][1] - e40[: cv[-2][0]].mean()) / 4 / e40[: cv[-2][0]].mean()
    fullm = relmc.project(post, n_gpus=sizes, scenario=scm, n_trials=a.budget, seed=a.seed,
                          n_threads=1, keep_trials=True)  # fmt: skip
    cm = P8.curve(fullm.ettr.sel(n_gpus=40).values, a.budget, 512)
    hop3 = (cm[1][1] + cm[0][1]) / 2 if cm[1][1] < cm[0][1] else cm[0][1] + 1e-4
    sr = [(c - e40[:n].mean()) / 4 / e40[:n].mean() for n, c in cv]
    rse_last = (sr[-1] + min(sr[:-1])) / 2 if sr[-1] < min(sr[:-1]) else sr[-1]
    print(f"floors: {hop:.8g} (m 0.5), {hop3:.8g} (m 0.05); target_rse met first at the budget "
          f"at 40 GPUs: {rse_last:.6g}")  # fmt: skip
    cases = {
        "project --target-rse --min-trials 600": (
            ["--target-rse", f"{rse2 * 1.0001:.6g}", "--min-trials", "600"], sc, []),
        "project --target-se --hopeless-ettr": (
            ["--target-se", "0.0005", "--hopeless-ettr", f"{hop:.8g}"], sc, []),
        "project --target-rse met first at the budget": (
            ["--target-rse", f"{rse_last:.8g}"], sc, []),
        "project --hopeless-ettr --min-trials 300 --maintenance-rate 0.05": (
            ["--hopeless-ettr", f"{hop3:.8g}", "--min-trials", "300"], scm,
            ["--maintenance-rate", "0.05"]),
    }  # fmt: skip
    for lab, (flags, scx, extra) in cases.items():
        out = a.out / lab.replace(" ", "_").replace("-", "")
        cli(["project", "--posterior", str(pnc), "--n-gpus", "8,40", "--compute-hours", "24",
             "--n-trials", str(a.budget), "--keep-trials", "--no-plot", *flags, *extra],
            out)  # fmt: skip
        file = xr.open_dataset(out / "projection.nc").load()
        js = json.loads(file.attrs["scenario"])
        ck[f"[{lab}] file scenario == my scenario (JSON)"] = js == json.loads(
            json.dumps(scx.to_dict())
        )
        print(f"  [{lab}] file's maintenance_rate {js['failures']['maintenance_rate']}")
        kw = prec_kw(flags)
        base = dict(n_gpus=sizes, scenario=scx, n_trials=a.budget, n_threads=1, keep_trials=True)
        api = relmc.project(post, seed=a.seed, precision=relmc.Precision(**kw), **base)
        fullx = full if scx is sc else fullm
        kw512 = {k: v for k, v in kw.items() if k != "min_trials"}
        other = dict(kw512)
        if "target_rse" in other:
            other["target_se"] = other.pop("target_rse")
        elif "target_se" in other:
            other["target_rse"] = other.pop("target_se")
        negs = {
            "API min_trials 512": relmc.project(post, seed=a.seed,
                                                precision=relmc.Precision(**kw512), **base),
            "API seed + 1": relmc.project(post, seed=a.seed + 1,
                                          precision=relmc.Precision(**kw), **base),
        }  # fmt: skip
        if other != kw512:
            negs["API the other target kind"] = relmc.project(
                post, seed=a.seed, precision=relmc.Precision(**other), **base
            )
        if scx is scm:
            negs["API with the recorded maintenance 0.5"] = relmc.project(
                post, seed=a.seed, precision=relmc.Precision(**kw), **{**base, "scenario": sc}
            )
        check_case(lab, file, api, fullx, a.budget, kw, sizes, ck, neg, negs)
    # ---- simulate: the --init template (its one category's point rate), compute 48 h
    toml = a.out / "s.toml"
    if not toml.exists():
        subprocess.run(["taskset", "-c", "1", "relmc", "simulate", "--init", str(toml)], env=ENV,
                       capture_output=True)  # fmt: skip
        txt = toml.read_text().replace("compute_hours = 720.0", "compute_hours = 48.0")
        toml.write_text(txt)
    with open(toml, "rb") as f:
        scs = relmc.Scenario.from_dict(tomllib.load(f))
    lpost = None
    fs = relmc.simulate(scs, rates=lpost, n_trials=a.budget, seed=a.seed, n_threads=1)
    e = fs.ettr.values
    cv = P8.curve(e, a.budget, 512)
    print(f"simulate full: mean ETTR {e.mean():.5f}; SE by round: "
          + ", ".join(f"{n}: {(c - e[:n].mean()) / 4:.6f}" for n, c in cv))  # fmt: skip
    se_mid = (cv[1][1] - e[: cv[1][0]].mean()) / 4
    ses = [(c - e[:n].mean()) / 4 for n, c in cv]
    se_last = (ses[-1] + min(ses[:-1])) / 2 if ses[-1] < min(ses[:-1]) else ses[-1]
    scases = {
        "simulate --target-se --min-trials 700": ["--target-se", f"{se_mid * 1.0001:.6g}",
                                                  "--min-trials", "700"],
        "simulate --target-se met first at the budget": ["--target-se", f"{se_last:.8g}"],
        "simulate --target-rse --hopeless-ettr 0.999": ["--target-rse", "1e-4",
                                                        "--hopeless-ettr", "0.999"],
    }  # fmt: skip
    for lab, flags in scases.items():
        out = a.out / lab.replace(" ", "_").replace("-", "")
        cli(["simulate", str(toml), "--n-trials", str(a.budget), *flags], out)
        file = xr.open_dataset(out / "simulation.nc").load()
        kw = prec_kw(flags)
        api = relmc.simulate(scs, rates=lpost, n_trials=a.budget, seed=a.seed, n_threads=1,
                             precision=relmc.Precision(**kw))  # fmt: skip
        kw512 = {k: v for k, v in kw.items() if k != "min_trials"}
        negs = {
            "API min_trials 512": relmc.simulate(scs, rates=lpost, n_trials=a.budget,
                                                 seed=a.seed, n_threads=1,
                                                 precision=relmc.Precision(**kw512)),
            "API seed + 1": relmc.simulate(scs, rates=lpost, n_trials=a.budget, seed=a.seed + 1,
                                           n_threads=1, precision=relmc.Precision(**kw)),
        }  # fmt: skip
        ck[f"[{lab}] stopped_by attr == API's"] = (
            file.attrs["stopped_by"] == api.attrs["stopped_by"]
        )
        check_case(lab, file, api, fs, a.budget, kw, [None], ck, neg, negs)
    print()
    for k, v in ck.items():
        print(f"  check {k}: {v}")
    tal = {}
    for (_, _, lb), eq in neg.items():
        tal.setdefault(lb, []).append(eq)
    print("  negatives (identical to the file / of):")
    for lb, xs in tal.items():
        print(f"    {lb:40s} {sum(xs)}/{len(xs)}")
    print(f"SUMMARY cli: checks passed {sum(ck.values())}/{len(ck)}; negatives identical "
          f"{sum(neg.values())}/{len(neg)}; total {time.time() - t00:.1f}s")  # fmt: skip
    _ = R6, size_seed, root


SEED = 7

if __name__ == "__main__":
    main()
