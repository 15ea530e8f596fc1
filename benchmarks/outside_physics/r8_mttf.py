"""Eighth round (a): ``mttf_hours_quantile`` and ``exposed_fraction_mean`` of ``relmc.project``.

Written from the documents only: ``project``'s docstring (``mttf_hours_quantile``: "Posterior
of the job's mean time to an unexpected interruption, 1/Lambda(N) on the exposed clock ...,
computed exactly from every rate draw"; ``exposed_fraction_mean``: "Mean over draws of the
share of the observation window the observed job was exposed ...; the fitted rates were
divided by it"), its ``interval_definition`` attr ("quantiles of 1/Lambda(N) over all posterior
rate draws"), ``relmc.rates``' module docstring ("Size scaling": ``rate_c * u_c(N_ref) ** (1 -
b_c) * u_c(N) ** b_c``; "Exposure clock"), the docstrings of ``RateDraws``, ``rate_draws``,
``cluster_rates``, ``fitted_rates``, ``scaled_units``, ``mttf_hours``, ``exposed_fraction``
(``f = 1 - sum_c Lambda_c (detection_c + swap_c) - m (snapshot + persist + maintenance)``, the
fitted rates per wall-clock hour at the observed size), ``maintenance_rate``, ``fit_scaling`` and
``relmc.models.scaling``'s module docstring, ``relmc.cluster``'s (the unit table), and the
README's "Size scaling", "Exposure clock" ("Uncertain overheads (below) enter f at their means";
"with 0.5-h swaps and 0.25-h downtime f = 0.847") and "Uncertain overheads" (a 90 % range
factor k: 5 % and 95 % quantiles at value / k and value x k). Source bodies, ``tests/`` not
read.

Everything independent is numpy: the unit counts from ``relmc.cluster``'s table (gpu N, node
ceil(N / gpus_per_node), rack = switch ceil(nodes / nodes_per_rack), link N x links_per_gpu,
pod ceil(N / gpus_per_pod), job 1; the shape the fit records in its ``attrs``), the draws
flattened draw-major over chains, the scaling law per draw, ``f`` per draw with each overhead at
its lognormal mean ``value x exp(sigma^2 / 2)``, ``sigma = ln k / z_0.95``, and
``np.quantile(1 / Lambda, q)``. One ``relmc.project(n_trials=256, credible_trials=0)`` per
posterior and scenario; no simulation is compared here (``r8_proj.py`` does that).

Posteriors (``--cases`` picks some):

llama      ``fit_conjugate(llama3-405b, seed=1)`` (wall clock, observed on 16,384 GPUs) with its
           default scenario; ``llama_sw``: swaps 0.5 h, downtime 0.25 h (the README's f = 0.847);
           ``llama_mult``: "Faulty GPU" ``rate_multiplier`` 0.5 (does the MTTF take it?)
rsc_b      ``fit_scaling(rsc-1, seed=0)``: fitted exponent, ``reference_gpus``, exposed clock;
           ``rsc_b1`` ``fixed_exponent=1.0``; ``rsc_conj`` ``fit_conjugate(rsc-1, seed=0)``
hand_b     hand-built: 2 chains x 6 draws, units gpu / node / rack, an exponent per draw and
           category in [0.5, 1.5], reference_gpus 16 / 32 / 48, per exposed hour
hand_bw    the same with the wall clock observed on 24 GPUs (size scaling *and* the exposure
           clock), detection / swap / snapshot spreads (f at the overheads' means), maintenance
hand_sdc   a wall-clock posterior whose third category is an SDC, plus a straggler the
           posterior lacks (fixed rate): which categories Lambda and f count (printed)

Per case and size: relmc's ``mttf_hours_quantile`` against mine (max relative difference;
``bit`` = equal to ``np.quantile`` of ``1 / relmc.rates.job_rates``), ``exposed_fraction_mean``
against the mean of my ``f``; relmc's ``exposed_fraction`` and ``job_rates`` per draw against
mine. Negative controls, each a misreading (printed as its max relative difference from
project's): ``Nref`` the reference size's rates used at N, ``lin`` b = 1, ``inv`` 1 /
quantile(Lambda, q) (the quantile of the rate, inverted), ``lower`` / ``nearest`` /
``median_unbiased`` other quantile methods, ``nof`` no exposure conversion, ``fN`` f computed at
the projected size, ``fmed`` overheads at their medians in f, ``nomult`` without the rate
multiplier.

    taskset -c 1 python benchmarks/outside_physics/r8_mttf.py [--cases a,b] [--seed S] [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
Z95 = 1.6448536269514722
QS = (0.05, 0.25, 0.5, 0.75, 0.95)
LLAMA_SHAPE = dict(gpus_per_node=8, nodes_per_rack=2, gpus_per_pod=3072, links_per_gpu=1.0)


def my_units(N, unit, sh):
    """``relmc.cluster``'s table."""
    nodes = math.ceil(N / sh["gpus_per_node"])
    return {
        "gpu": float(N), "node": float(nodes),
        "rack": float(math.ceil(nodes / sh["nodes_per_rack"])),
        "switch": float(math.ceil(nodes / sh["nodes_per_rack"])), "link": N * sh["links_per_gpu"],
        "pod": float(math.ceil(N / sh["gpus_per_pod"])), "job": 1.0,
    }[unit]  # fmt: skip


def flat(da):
    """(chain, draw, category) -> (draw-major rows, category)."""
    da = da.transpose("draw", "chain", "category")
    return da.values.reshape(-1, da.shape[-1])


def lognormal_mean(k):
    s = math.log(k or 1.0) / Z95
    return math.exp(s * s / 2)


class Mine:
    """The documented Lambda(N), f and MTTF quantiles of a posterior and scenario."""

    def __init__(self, idata, sc):
        post = idata.posterior
        r = post["rate"]
        at = r.attrs
        self.cats = [str(c) for c in r.category.values]
        self.unit = [str(u) for u in r["unit"].values]
        self.rate = flat(r)
        self.b = flat(post["exponent"]) if "exponent" in post else None
        self.nref = (
            np.asarray(r["reference_gpus"].values, dtype=np.int64)
            if "reference_gpus" in r.coords
            else None
        )
        self.shape = {k: at.get(k, v) for k, v in LLAMA_SHAPE.items()}
        self.nobs = int(at.get("n_gpus", 0) or 0)
        self.wall = self.nobs > 0 and at.get("exposure_clock", "wall") != "exposed"
        self.sc = sc
        byname = {c.name: c for c in sc.failures.categories}
        pol = sc.policy
        self.det = np.array([byname[c].detection_hours for c in self.cats])
        self.swap = np.array(
            [pol.swap_hours if byname[c].recovery == "swap" else 0.0 for c in self.cats]
        )
        self.mult = np.array([byname[c].rate_multiplier for c in self.cats])
        self.kind = [byname[c].kind for c in self.cats]
        self.fixed = [c for c in sc.failures.categories if c.name not in self.cats]
        self.m = sc.failures.maintenance_rate
        g = lambda n: getattr(pol, n + "_spread", 1.0) or 1.0  # noqa: E731
        self.means = dict(
            det=lognormal_mean(g("detection")), swap=lognormal_mean(g("swap")),
            snap=lognormal_mean(g("snapshot")), persist=lognormal_mean(g("persist")),
            maint=lognormal_mean(g("maintenance")),
        )  # fmt: skip

    def u(self, N):
        return np.array([my_units(N, u, self.shape) for u in self.unit])

    def fitted(self, N, linear=False, at_ref=False):
        """Job-level rates on the rates' own clock, (draws, cats)."""
        if self.b is None or linear:
            return self.rate * self.u(N)
        un = np.array([self.u(int(n))[i] for i, n in enumerate(self.nref)])
        uN = un if at_ref else self.u(N)
        return self.rate * un ** (1.0 - self.b) * uN**self.b

    def f(self, at=None, medians=False, skip_sdc=False):
        if not self.wall:
            return np.ones(len(self.rate))
        mm = {k: 1.0 for k in self.means} if medians else self.means
        L = self.fitted(at or self.nobs)
        keep = np.array([not (skip_sdc and k == "sdc") for k in self.kind])
        pol = self.sc.policy
        ov = (self.det * mm["det"] + self.swap * mm["swap"]) * keep
        snap, pers = pol.snapshot_hours, pol.persist_hours
        return 1.0 - (L * ov).sum(1) - self.m * (
            snap * mm["snap"]
            + pers * mm["persist"]
            + self.sc.failures.maintenance_hours * mm["maint"]
        )  # fmt: skip

    def lam(self, N, f=None, mult=True, fixed=False, **kw):
        L = self.fitted(N, **kw) / (self.f() if f is None else f)[:, None]
        if mult:
            L = L * self.mult
        tot = L.sum(1)
        if fixed:
            tot = tot + sum(c.rate * my_units(N, c.unit, self.shape) for c in self.fixed)
        return tot


def at_size(sc, N):
    return dataclasses.replace(sc, cluster=dataclasses.replace(sc.cluster, n_gpus=N))


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a / b - 1.0)))


def hand_posterior(wall, sdc=False, seed=0):
    import arviz as az
    import xarray as xr

    rng = np.random.default_rng(seed)
    C, D = 2, 6
    names, units = ["gpu", "net", "sdc" if sdc else "rk"], ["gpu", "node", "gpu" if sdc else "rack"]
    nref = np.array([16, 32, 48])
    # per-unit rates chosen so that the job rates at 8 GPUs are 0.05-0.3 per hour
    b = rng.uniform(0.5, 1.5, (C, D, 3))
    j8 = rng.uniform(0.05, 0.3, (C, D, 3))
    sh = LLAMA_SHAPE
    u8 = np.array([my_units(8, u, sh) for u in units])
    ur = np.array([my_units(int(n), u, sh) for n, u in zip(nref, units, strict=True)])
    rate = j8 / (ur ** (1 - b) * u8**b)
    dc = ("chain", "draw", "category")
    co = dict(chain=np.arange(C), draw=np.arange(D), category=names, unit=("category", units))
    post = dict(rate=(dc, rate))
    if not sdc:
        co["reference_gpus"] = ("category", nref)
        post["exponent"] = (dc, b)
    ds = xr.Dataset(post, coords=co)
    if wall:
        ds["rate"].attrs.update(n_gpus=24, exposure_clock="wall", **sh)
    return az.InferenceData(posterior=ds)


def hand_scenario(sdc=False, straggler=False, spreads=True):
    cats = [
        relmc.Category(name="gpu", rate=1e-3, unit="gpu", detection_hours=0.2, recovery="swap"),
        relmc.Category(name="net", rate=1e-3, unit="node", detection_hours=0.1),
        relmc.Category(name="sdc", rate=1e-3, unit="gpu", detection_hours=0.1, kind="sdc",
                       sdc_latency_hours=0.8)
        if sdc else relmc.Category(name="rk", rate=1e-3, unit="rack", detection_hours=0.05),
    ]  # fmt: skip
    if straggler:
        cats.append(relmc.Category(name="slow", rate=0.004, unit="node", kind="straggler",
                                   detection_hours=0.5, straggler_speed=0.5))  # fmt: skip
    pol = dict(checkpoint_interval=0.5, snapshot_hours=0.03, persist_hours=0.1, restart_hours=0.3,
               swap_hours=0.3)  # fmt: skip
    if spreads:
        pol.update(detection_spread=3.0, swap_spread=2.5, snapshot_spread=2.0, restart_spread=3.0)
    return relmc.Scenario(
        cluster=relmc.Cluster(n_gpus=8),
        failures=relmc.FailureModel(
            categories=tuple(cats), maintenance_rate=0.05, maintenance_hours=0.2
        ),
        job=relmc.Job(compute_hours=8.0),
        policy=relmc.Policy(**pol),
    )


def cases(seed):
    from relmc.models.scaling import fit_scaling
    from relmc.projection import default_scenario

    out = {}

    def llama():
        p = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), seed=1)
        return p, default_scenario(p)

    def rsc(kind):
        d = relmc.load_dataset("rsc-1")
        p = {"b": lambda: fit_scaling(d, seed=0),
             "b1": lambda: fit_scaling(d, seed=0, fixed_exponent=1.0),
             "conj": lambda: relmc.fit_conjugate(d, seed=0)}[kind]()  # fmt: skip
        return p, default_scenario(p)

    def llama_sw():
        p, sc = llama()
        pol = dataclasses.replace(sc.policy, swap_hours=0.5)
        return p, dataclasses.replace(
            sc, policy=pol, failures=dataclasses.replace(sc.failures, maintenance_hours=0.25)
        )

    def llama_mult():
        p, sc = llama()
        cats = tuple(
            dataclasses.replace(c, rate_multiplier=0.5) if c.name == "Faulty GPU" else c
            for c in sc.failures.categories
        )
        return p, dataclasses.replace(
            sc, failures=dataclasses.replace(sc.failures, categories=cats)
        )

    out["llama"] = (llama, [2048, 16384, 131072])
    out["llama_sw"] = (llama_sw, [2048, 16384, 131072])
    out["llama_mult"] = (llama_mult, [16384, 131072])
    out["rsc_b"] = (lambda: rsc("b"), [8, 1024, 100_000])
    out["rsc_b1"] = (lambda: rsc("b1"), [8, 1024, 100_000])
    out["rsc_conj"] = (lambda: rsc("conj"), [8, 1024, 100_000])
    out["hand_b"] = (lambda: (hand_posterior(False), hand_scenario()), [8, 24, 40, 100])
    out["hand_bw"] = (lambda: (hand_posterior(True), hand_scenario()), [8, 24, 40, 100])
    out["hand_sdc"] = (
        lambda: (hand_posterior(True, sdc=True), hand_scenario(sdc=True, straggler=True)),
        [8, 24, 40],
    )
    return out


def observed_size_check(allc, a):
    """README: a simulation at the observed size reproduces the fitted interruptions per
    wall-clock day (its test: 0.05 %; 13.3 % fewer without the conversion, 0.5-h swaps and
    0.25-h downtime). project's ``interruptions_per_day_mean`` at 16,384 GPUs against 24 x the
    mean over draws of the fitted rate per wall-clock hour; negative control: what a simulation
    without the conversion would show, 24 x mean(Lambda_fit x f)."""
    print("\nobserved-size check (llama, llama_sw at 16,384 GPUs, "
          f"{a.sim} trials, seed {a.seed}):")  # fmt: skip
    for name in ("llama", "llama_sw"):
        post, sc = allc[name][0]()
        t0 = time.time()
        res = relmc.project(post, n_gpus=[16384], scenario=sc, n_trials=a.sim, seed=a.seed,
                            n_threads=1, credible_trials=0).sel(n_gpus=16384)  # fmt: skip
        me = Mine(post, sc)
        Lf = me.fitted(16384).sum(1)
        want = 24 * Lf.mean()
        got, se = float(res.interruptions_per_day_mean), float(res.interruptions_per_day_se)
        unconv = 24 * (Lf * me.f()).mean()
        dt = time.time() - t0
        print(f"  {name}: project {got:.4f} +- {se:.4f} per wall-clock day ({dt:.1f}s); "
              f"fitted {want:.4f}: rel {got / want - 1:+.4%}, z {(got - want) / se:+.2f}; "
              f"negative (no conversion) {unconv:.4f}: z {(got - unconv) / se:+.2f}; "
              f"f mean {me.f().mean():.4f}")  # fmt: skip


def main(argv=None):
    from relmc.rates import exposed_fraction, job_rates, rate_draws

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("/tmp/r8"))
    ap.add_argument("--sim", type=int, default=0, help="trials of the observed-size check")
    a = ap.parse_args(argv)
    log_to(a.out, f"log_r8_mttf_{a.seed}_{a.cases or 'all'}.txt")
    print(f"r8_mttf seed {a.seed}  relmc {relmc.__version__}")
    allc = cases(a.seed)
    names = a.cases.split(",") if a.cases else list(allc)
    summary = []
    for name in names:
        make, sizes = allc[name]
        t0 = time.time()
        post, sc = make()
        res = relmc.project(
            post, n_gpus=sizes, scenario=sc, n_trials=256, seed=a.seed, n_threads=1,
            credible_trials=0,
        )  # fmt: skip
        me = Mine(post, sc)
        qs = list(res["quantile"].values)
        print(f"\n== {name}: {len(me.rate)} draws, units {sorted(set(me.unit))}, exponent "
              f"{me.b is not None}, observed {me.nobs} wall {me.wall}; "
              f"project {time.time() - t0:.1f}s")  # fmt: skip
        f_me = me.f()
        dr = rate_draws(sc, post)
        f_rl = exposed_fraction(sc, dr)
        print(f"  f: mine mean {f_me.mean():.6f} [{f_me.min():.6f}, {f_me.max():.6f}]; relmc "
              f"exposed_fraction max rel diff {rel(f_rl, f_me):.3g}; "
              f"medians {rel(me.f(medians=True), f_rl):.3g}"
              + (f", SDC left out {rel(me.f(skip_sdc=True), f_rl):.3g}"
                 if "sdc" in me.kind else ""))  # fmt: skip
        for N in sizes:
            r = res.sel(n_gpus=N)
            pm = r.mttf_hours_quantile.values
            scN = at_size(sc, N)
            jr = job_rates(scN, rate_draws(scN, post))
            bit = np.array_equal(np.quantile(1.0 / jr, qs), pm)
            lam = me.lam(N)
            mine = np.quantile(1.0 / lam, qs)
            row = dict(case=name, N=N, mine=rel(mine, pm), bit=bit, jr=rel(jr, lam),
                       fmean=abs(float(r.exposed_fraction_mean) - f_me.mean()))  # fmt: skip
            neg = {
                "inv": 1.0 / np.quantile(lam, [1 - q for q in qs]),
                "lower": np.quantile(1.0 / lam, qs, method="lower"),
                "nearest": np.quantile(1.0 / lam, qs, method="nearest"),
                "med_unb": np.quantile(1.0 / lam, qs, method="median_unbiased"),
            }
            if me.b is not None:
                neg["Nref"] = np.quantile(1.0 / me.lam(N, at_ref=True), qs)
                neg["lin"] = np.quantile(1.0 / me.lam(N, linear=True), qs)
            if me.wall:
                neg["nof"] = np.quantile(1.0 / me.lam(N, f=np.ones(len(lam))), qs)
                if N != me.nobs:
                    neg["fN"] = np.quantile(1.0 / me.lam(N, f=me.f(at=N)), qs)
                neg["fmed"] = np.quantile(1.0 / me.lam(N, f=me.f(medians=True)), qs)
                if "sdc" in me.kind:
                    neg["f_noSDC"] = np.quantile(1.0 / me.lam(N, f=me.f(skip_sdc=True)), qs)
            if (me.mult != 1).any():
                neg["nomult"] = np.quantile(1.0 / me.lam(N, mult=False), qs)
            if me.fixed:
                neg["fixed_in"] = np.quantile(1.0 / me.lam(N, fixed=True), qs)
            row["neg"] = {k: rel(v, pm) for k, v in neg.items()}
            summary.append(row)
            print(f"  N={N:>7}: mttf q {np.array2string(pm, precision=4)}; mine max rel diff "
                  f"{row['mine']:.2e}, = np.quantile(1/job_rates) bit {bit}; job_rates vs mine "
                  f"{row['jr']:.2e}; exposed_fraction_mean diff {row['fmean']:.2e}")  # fmt: skip
            print("      negatives (max rel diff from project's): "
                  + ", ".join(f"{k} {v:.3g}" for k, v in row["neg"].items()))  # fmt: skip
    if a.sim:
        observed_size_check(allc, a)
    print("\nSUMMARY")
    for r in summary:
        neg = min(r["neg"].items(), key=lambda kv: kv[1])
        print(f"  {r['case']:10s} N={r['N']:>7}  mine {r['mine']:.1e}  bit {r['bit']}  "
              f"job_rates {r['jr']:.1e}  f_mean {r['fmean']:.1e}  "
              f"smallest negative {neg[0]} {neg[1]:.2g}")  # fmt: skip
    ok = sum(r["bit"] for r in summary)
    print(f"  bit (np.quantile of 1/job_rates) {ok}/{len(summary)}; mine within 1e-12: "
          f"{sum(r['mine'] < 1e-12 for r in summary)}/{len(summary)}")  # fmt: skip


if __name__ == "__main__":
    main()
