"""Thirteenth round: ``relmc fit --counts --model hierarchical`` and ``relmc project --counts
--model hierarchical`` with the precision flags and the credible flags against the Python API;
fitted size exponents projected far from the reference size (1/16 and 16 times) in the credible
simulation; lemon exclusion with a mixture event fit beside node swaps, standbys and a finite
spare pool under ``precision``.

Written from the documents only: ``relmc fit --help`` and ``relmc project --help`` (``--counts``,
``--observed-gpus``, ``--observed-hours``, ``--model``, ``--n-draws``, ``--n-chains``,
``--n-tune``, the adaptive-precision group: "first --min-trials trials ..., then rounds that
double the total, each of whole 256-trial blocks", ``--credible-trials``,
``--trials-per-draw``, ``--keep-trials``, ``--posterior NC``: "used as it is in place of
fitting"), ``relmc.load_counts``' docstring (``recovery`` column), ``fit_hierarchical``'s
(seeded; ``cores``: results do not depend on it), ``project``'s (``credible_trials`` in groups
of ``trials_per_draw``, the first ``ceil(CT / M)`` draws draw-major; ``precision``) and its
``seed_rule`` attr, ``fit_scaling``'s (``rate`` at ``reference_gpus``, ``exponent`` per draw),
``relmc.rates``' "Size scaling" (``rate_c * u_c(N_ref) ** (1 - b_c) * u_c(N) ** b_c``), the node
model's fields (``bad_node_fraction``, ``bad_node_multiplier``, ``Policy.lemon_failures``,
``lemon_window_hours``, ``n_standbys``, ``Policy.n_spares``, ``repair_hours``),
``relmc.models.events``' "Outputs", ``Precision``. Source bodies, ``_kernels*.py``,
``reference.py``, ``inputs.py`` and ``tests/`` not read. No new simulator and no copies: the
credible rebuild and the groups against the independent trials are ``r10_proj.credible_block``
(``r6_proj.cred_q``, ``r5_indep.run_r5`` with ``F[k]``), the rsc-1 fit and its scenario
``r12_proj.scal_fit`` / ``scal_spec`` / ``scal_scen``, Lambda(N) ``r8_mttf.Mine`` (and here a
second, one-line reading of the formula), the rule replay ``r8_proj.replay`` / ``prec_checks``,
the mixture fit ``r9_proj.event_fit``, the node trials ``run_r5(node=True)`` (``indep_nodes``:
standbys, finite pool, two-stage repair, lemon exclusion), the command-line runner
``r9_cli.cli`` / ``diff_vars`` / ``prec_kw``.

Modes:

cli    (1) a counts CSV (gpu 40 / 12,000 GPU-h with ``recovery`` swap, net 20 / 1,500 node-h,
       rk 6 / 750 rack-h) observed on 24 GPUs for 500 h: ``relmc fit --counts CSV --model
       hierarchical --n-draws 200 --n-chains 2 --n-tune 300`` against ``fit_hierarchical(
       load_counts(CSV, n_gpus=24, duration_hours=500), cores=1, seed=S)`` (every variable and
       ``rate.attrs``, bit); ``relmc project --counts CSV --model hierarchical --target-rse R
       --min-trials 700 --credible-trials 800 --trials-per-draw 50 --keep-trials`` (R midway
       between the 40-GPU full run's second and third rounds' SE / mean) against ``project``
       with the same arguments and seed (every variable, bit), the counts against the
       replayed rule; ``relmc project --posterior`` of the fit's ``posterior.nc`` with the same
       flags = the same file. Negatives: seed + 1, the conjugate fit, ``min_trials`` 512 (the
       default), ``target_se`` R in place of ``target_rse``, the rule's misreadings.
scal   (2) ``fit_scaling(load_dataset("rsc-1"))`` (one category, unit node, ``reference_gpus``
       1,024) thinned to 2 x 3 draws, projected at 64 and 16,384 GPUs (1/16 and 16 times the
       reference), exposed record with m 0.5 beside the scenario's 0.05: ``job_rates`` against
       my one-line Lambda, ``credible_block``; negatives: exponent 1, the other draw's row,
       the record's m, ``F[k + 1]``.
lemon  (3) the ninth round's ``fit_events(nodes="mixture")`` thinned to 2 draws; gpu swaps its
       node (0.2 h), net restarts; 2 standbys, a finite pool of 1 spare with 12-h repairs,
       ``lemon_failures`` 2 in 168 h; ``project(precision)``: ``prec_checks``, then each
       draw's kept trials against ``run_r5(node=True)``; negatives: no exclusion, no standbys,
       an unlimited pool, the other draw's lemon rows, ``F[k + 1]``.
mixdt  (4) a synthetic log (256 GPUs, 1,500 h, lemons 0.1 x 8, diurnal per category, trend
       1.6) fitted with ``fit_events(diurnal="category", trend=True, nodes="mixture")``
       (2 x 100 draws, cached in ``--out``), thinned to draw 0 of each chain, written with
       ``fleet_age_hours`` 6; a node-model scenario (restart-only gpu / net, ``lemon_failures``
       2, a job starting at 02:00), sizes 64 / 256, ``project(precision)``: ``prec_checks``,
       each draw's kept trials against ``run_r5(node=True)`` with the draw's rates, lemon rows,
       amplitudes, peaks and trend; negatives: the other draw's rows, amplitude 0, no trend,
       the node model ignored.
sweep  (5) the twelfth round's ``r12_proj.run_sweep`` as it is (a 2-draw diurnal / trend
       event-fit file with ``fleet_age_hours`` 6, a 2 x 2 grid of ``cluster.n_gpus`` 64 / 256 x
       ``job.start_hour`` 2 / 14, ``[precision]``; per cell the replayed rule, every variable =
       ``summarize_cell(simulate(precision))``, each cell's draws against ``run_r5``), its
       spec captured, then run again in 2 shards (shard 1 first), with ``workers=2``, and in 2
       shards of 2 workers each: every cube variable equal to the in-process store's (bit);
       negative: 2 shards with the root seed + 1.

    taskset -c 1 python benchmarks/outside_physics/r13_proj.py MODE [--seed S] [--ct CT]
        [--m M] [--n-indep N] [--budget B] [--rse R] [--min M] [--hours H] [--iseed I]
        [--smoke] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
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
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
bit = R10.bit
M_POST, M_SCEN, A0_DT = 0.5, 0.05, 6.0


# ---------------------------------------------------------------- 1: --counts --model hierarchical
def rse_rounds(ettr, budget, min_trials):
    """SE / mean at each round of the documented schedule (min rounded up to 256, doubling)."""
    n, out = min(-(-min_trials // 256) * 256, budget), []
    while True:
        x = ettr[:n]
        out.append((n, float(x.std(ddof=1) / math.sqrt(n) / x.mean())))
        if n >= budget:
            return out
        n = min(2 * n, budget)


def run_cli(a):
    import arviz as az

    ck, neg = {}, {}
    csv = a.out / "counts13.csv"
    csv.write_text("category,count,exposure,unit,recovery\ngpu,40,12000,gpu,swap\n"
                   "net,20,1500,node,restart\nrk,6,750,rack,restart\n")  # fmt: skip
    budget, sizes, S, nt, mt = a.budget, (8, 40), a.seed, 300, 700
    ct, m = (800, 50) if not a.smoke else (200, 50)
    data = relmc.load_counts(str(csv), n_gpus=24, duration_hours=500.0)
    t0 = time.time()
    post = relmc.fit_hierarchical(data, n_draws=200, n_tune=nt, n_chains=2, cores=1, seed=S)
    print(f"fit_hierarchical {time.time() - t0:.1f}s; variables {sorted(post.posterior.data_vars)}")
    fitf = [
        "--counts",
        str(csv),
        "--model",
        "hierarchical",
        "--observed-gpus",
        "24",
        "--observed-hours",
        "500",
        "--n-draws",
        "200",
        "--n-chains",
        "2",
        "--n-tune",
        str(nt),
    ]
    C9.SEED = S
    out_f = a.out / "cli_fit"
    shutil.rmtree(out_f, ignore_errors=True)
    ck["relmc fit rc == 0"] = C9.cli(["fit", *fitf], out_f, threads=False) == 0
    fp = az.from_netcdf(out_f / "posterior.nc").posterior
    for v in post.posterior.data_vars:
        ck[f"fit: posterior.nc {v} == fit_hierarchical(seed) (bit)"] = v in fp and bit(
            fp[v].values, post.posterior[v].values
        )
    pa = {k: str(v) for k, v in fp["rate"].attrs.items()}
    pb = {k: str(v) for k, v in post.posterior["rate"].attrs.items()}
    ck["fit: rate.attrs == API's"] = pa == pb
    pa2 = {k: str(v) for k, v in fp.attrs.items() if k not in ("created_at", "run_id")}
    pb2 = {k: str(v) for k, v in post.posterior.attrs.items() if k not in ("created_at", "run_id")}
    dif = sorted(k for k in set(pa2) | set(pb2) if pa2.get(k) != pb2.get(k))
    print(f"  posterior attrs differing (created_at / run_id aside): {dif}")
    print(f"  recovery: {[c.recovery for c in default_scenario(post).failures.categories]}")
    # the full runs give the target rse and the replay
    sc = R9.with_compute(default_scenario(post), 24.0)
    sc = dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, restart_hours=1.5))
    root = resolve_seed(S)
    full = {N: P8.sim(R6.at_size(sc, N), post, budget, size_seed(root, N), root) for N in sizes}
    rr = rse_rounds(full[40].ettr.values, budget, mt)
    print(f"full runs' mean ETTR {[round(float(full[N].ettr.mean()), 5) for N in sizes]}; 40 GPUs "
          f"SE / mean per round {[(n, round(r, 6)) for n, r in rr]}")  # fmt: skip
    j = min(1, len(rr) - 2)
    R = float(f"{0.5 * (rr[j][1] + rr[j + 1][1]):.6g}")
    flags = ["--target-rse", str(R), "--min-trials", str(mt)]
    projf = ["--n-gpus", ",".join(map(str, sizes)), "--compute-hours", "24", "--restart-hours",
             "1.5", "--n-trials", str(budget), "--credible-trials", str(ct),
             "--trials-per-draw", str(m), "--keep-trials", *flags]  # fmt: skip
    out_p = a.out / "cli_proj"
    shutil.rmtree(out_p, ignore_errors=True)
    ck["relmc project --counts rc == 0"] = (
        C9.cli(["project", *fitf, *projf], out_p, extra=["--no-plot"]) == 0
    )
    out_q = a.out / "cli_proj_post"
    shutil.rmtree(out_q, ignore_errors=True)
    ck["relmc project --posterior rc == 0"] = (
        C9.cli(["project", "--posterior", str(out_f / "posterior.nc"), *projf], out_q,
               extra=["--no-plot"]) == 0
    )  # fmt: skip
    fq = az.from_netcdf(out_p / "posterior.nc").posterior
    ck["project: posterior.nc rate == fit_hierarchical(seed) (bit)"] = bit(
        fq["rate"].values, post.posterior["rate"].values
    )
    file = xr.open_dataset(out_p / "projection.nc").load()
    fileq = xr.open_dataset(out_q / "projection.nc").load()
    kw = C9.prec_kw(flags)
    print(f"  precision {kw}")
    prec = relmc.Precision(**kw)
    pkw = dict(n_gpus=list(sizes), scenario=sc, n_trials=budget, n_threads=1, keep_trials=True,
               credible_trials=ct, trials_per_draw=m)  # fmt: skip
    api = relmc.project(post, seed=S, precision=prec, **pkw)
    bad, miss = C9.diff_vars(file, api)
    ck["project --counts: every projection.nc variable == project(seed) (bit)"] = (
        not bad and not miss
    )
    print(f"  {len(file.data_vars)} variables; differing {bad}; missing {miss}; n_trials "
          f"{file.n_trials.values.tolist()} stopped_by {file.stopped_by.values.tolist()}; "
          f"n_draws_credible {file.attrs.get('n_draws_credible')}")  # fmt: skip
    bq, mq = C9.diff_vars(fileq, api)
    ck["project --posterior fit's posterior.nc: every variable == project(seed) (bit)"] = (
        not bq and not mq
    )
    print(f"  --posterior run: differing {bq}; missing {mq}")
    ck["n_draws_credible == ceil(CT / M)"] = int(file.attrs["n_draws_credible"]) == -(-ct // m)
    pk = dict(tse=None, trse=R, hopeless=None, min_trials=mt)
    for N in sizes:
        n, sb, _ = P8.replay(full[N].ettr.values, budget, **pk)
        rec = (int(file.n_trials.sel(n_gpus=N)), str(file.stopped_by.sel(n_gpus=N).values))
        print(f"  N={N}: recorded {rec}; replayed {(n, sb)}")
        ck[f"N={N} (n_trials, stopped_by) == replayed rule"] = rec == (n, sb)
        e = file.ettr.sel(n_gpus=N).values[: rec[0]]
        ck[f"N={N} kept ettr == full run's prefix (bit)"] = bit(e, full[N].ettr.values[: rec[0]])
        for mis in P8.MISREADINGS:
            neg[("cli", N, mis)] = (P8.replay(full[N].ettr.values, budget, **pk, mis=mis)[:2]
                                    == rec, "")  # fmt: skip
    conj = relmc.fit_conjugate(data, n_draws=200, n_chains=2, seed=S)
    negs = {
        "project seed + 1": (post, S + 1, prec),
        "conjugate fit (the default --model)": (conj, S, prec),
        "min_trials 512 (the default)": (post, S, relmc.Precision(target_rse=R)),
        "target_se R in place of target_rse": (post, S,
                                               relmc.Precision(target_se=R, min_trials=mt)),
    }  # fmt: skip
    for nl, (pp, seed, pr) in negs.items():
        o = relmc.project(pp, seed=seed, precision=pr, **pkw)
        b2, m2 = C9.diff_vars(file, o)
        neg[("cli", None, nl)] = (not b2 and not m2, f"{len(b2)} variables differ")
    fc = az.from_netcdf(out_f / "posterior.nc").posterior
    neg[("cli", None, "fit: the conjugate fit's rate")] = (
        fc["rate"].shape == conj.posterior["rate"].shape
        and bit(fc["rate"].values, conj.posterior["rate"].values),
        "",
    )
    return ck, neg, {}


# ---------------------------------------------------------------- 2: exponents far from N_ref
def my_lambda(post, N, n_ref, gpn=8):
    """rate * u(N_ref) ** (1 - b) * u(N) ** b for a unit-node, one-category posterior."""
    r = post["rate"].transpose("draw", "chain", "category").values.reshape(-1)
    b = post["exponent"].transpose("draw", "chain", "category").values.reshape(-1)
    u = lambda n: math.ceil(n / gpn)  # noqa: E731
    return r * u(n_ref) ** (1.0 - b) * u(N) ** b


def run_scal(a):
    import arviz as az

    ck, neg, comp = {}, {}, {}
    fs = R12.scal_fit(a)
    p0 = fs.posterior.isel(draw=slice(0, 3))[["rate", "exponent"]]
    nref = int(np.asarray(p0.reference_gpus.values).ravel()[0])
    print(f"fit_scaling: reference_gpus {p0.reference_gpus.values.tolist()}; unit "
          f"{p0.rate['unit'].values.tolist()}; exposure_clock "
          f"{fs.posterior.attrs.get('exposure_clock')}; thin rate "
          f"{np.round(M8.flat(p0.rate).ravel(), 6).tolist()} exponent "
          f"{np.round(M8.flat(p0.exponent).ravel(), 4).tolist()}")  # fmt: skip
    spec = R12.scal_spec()
    sc = R12.scal_scen(spec)
    sizes = (nref // 16, nref * 16)
    tag = "scal far"
    post = p0.copy(deep=True)
    post.attrs.update(maintenance_rate=M_POST)
    post["rate"].attrs.update(maintenance_rate=M_POST)
    src = az.InferenceData(posterior=post)
    me = M8.Mine(src, sc)
    fail_p = dataclasses.replace(sc.failures, maintenance_rate=M_POST)
    me_p = M8.Mine(src, dataclasses.replace(sc, failures=fail_p))
    nd = len(me.f())
    for N in sizes:
        scN = R6.at_size(sc, N)
        jr = job_rates(scN, rate_draws(scN, src))
        mine = my_lambda(post, N, nref)
        print(f"[{tag}] N={N}: job_rates {np.round(jr, 5).tolist()}; mine "
              f"{np.round(mine, 5).tolist()}; exponent 1 "
              f"{np.round(me.lam(N, linear=True), 5).tolist()}")  # fmt: skip
        ck[f"[{tag}] N={N} job_rates == my one-line Lambda (rel)"] = float(
            np.abs(jr / mine - 1).max()
        )
        ck[f"[{tag}] N={N} job_rates == r8_mttf.Mine Lambda (rel)"] = float(
            np.abs(jr / me.lam(N) - 1).max()
        )
        neg[(tag, N, "job_rates with exponent 1 (rel)")] = (
            False, float(np.abs(jr / me.lam(N, linear=True) - 1).max()))  # fmt: skip

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kk = (k + 1) % nd if var == "other draw's row" else k
        m_ = me_p if var == "recorded m" else me
        L = m_.fitted(N, linear=var == "exponent 1")[kk] / m_.f()[kk]
        s["cats"][0]["rate"] = float(L[0])
        s["maint_rate"] = M_POST if var == "recorded m" else M_SCEN
        return s

    variants = (None, "exponent 1", "other draw's row", "recorded m", "F[k+1]")
    R10.credible_block(a, tag, src, sc, sizes, spec, spec_of, variants, ck, neg, comp)
    return ck, neg, comp


# ---------------------------------------------------------------- 3: lemons, swaps, standbys, pool
def node_compare(a, mode, tid, spec, variants, other, vary, seed_base, fields, shown):
    """A thinned node-model posterior ``tid`` (one draw of each chain) under ``spec`` (a node
    spec, gpu on ``gpu`` units, net on nodes), projected at 64 / 256 GPUs with precision:
    ``prec_checks``, then each draw's kept trials against ``run_r5(node=True)`` trials,
    documented and with each of ``variants``: ``other`` takes the other draw's rows,
    "F[k+1]" the other draw's overhead factors, and ``vary(s, var, kp)`` sets the rest of the
    spec dict ``s`` for draw ``kp`` (after its size, bad fraction, rates and multipliers).
    Seeds ``seed_base * N + 7 k + 100 j``; ``fields``: the policy's fields printed;
    ``shown``: outputs printed per size (relmc) and per draw (independent). Comparisons keyed
    ``(mode, N, k, variant)``. The lemon and mixdt modes, and round 14's lemon and mixpool.
    """
    ck, neg, comp = {}, {}, {}
    thin = tid.posterior
    sc = indep_nodes.build_relmc(spec)
    cats = tuple(dataclasses.replace(c, unit=u) for c, u in
                 zip(sc.failures.categories, ("gpu", "node"), strict=True))  # fmt: skip
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, categories=cats))
    if fields:
        print(f"scenario: recovery {[c.recovery for c in sc.failures.categories]}, "
              + ", ".join(f"{f} {getattr(sc.policy, f)}" for f in fields))  # fmt: skip
    me = M8.Mine(tid, sc)
    fm = me.f()
    bf = thin["bad_node_fraction"].transpose("draw", "chain").values.ravel()
    bm = M8.flat(thin["bad_node_multiplier"])
    nd, sizes = 2, (64, 256)
    print(f"thin: f {np.round(fm, 5).tolist()}; bad_node_fraction {np.round(bf, 4).tolist()}; "
          f"multiplier {np.round(bm, 3).tolist()}; job rates "
          + "; ".join(f"{N}: {np.round(me.lam(N), 4).tolist()}" for N in sizes))  # fmt: skip
    prec = relmc.Precision(target_rse=a.rse, min_trials=a.min)
    pk = dict(tse=None, trse=a.rse, hopeless=None, min_trials=a.min)
    root = resolve_seed(a.seed)
    res = relmc.project(tid, n_gpus=list(sizes), scenario=sc, n_trials=a.budget, seed=a.seed,
                        n_threads=1, keep_trials=True, credible_trials=0,
                        precision=prec)  # fmt: skip
    print(f"project: n_trials {res.n_trials.values.tolist()}, stopped_by "
          f"{res.stopped_by.values.tolist()}")  # fmt: skip
    F = r5_indep.overhead_factors(spec["spreads"], nd, a.seed)

    def spec_of(k, N, var):
        s = copy.deepcopy(spec)
        kp = 1 - k if var == other else k
        L = me.fitted(N)[k] / fm[k]
        s.update(n_gpus=N, f=float(bf[kp]))
        for j, c in enumerate(s["cats"]):
            c.update(rate=float(L[j]), mult=float(bm[kp, j]))
        vary(s, var, kp)
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
        print(f"  N={N}: relmc mean a trial: "
              + ", ".join(f"{v} {float(P[v].mean()):.4f}" for v in shown))  # fmt: skip
        for k in range(nd):
            mask = P.draw.values == k
            for j, var in enumerate(variants):
                fk = dict(zip(r5_indep.COLS, F[(k + 1) % nd if var == "F[k+1]" else k],
                              strict=True))  # fmt: skip
                b = r5_indep.run_r5(spec_of(k, N, var), a.n_indep,
                                    seed_base * N + 7 * k + 100 * j + 100_000 * a.iseed, F=fk,
                                    node=True)  # fmt: skip
                if var is None:
                    print(f"    d{k} independent mean: "
                          + ", ".join(f"{v} {b[v].mean():.4f}" for v in shown))  # fmt: skip
                comp[(mode, N, k, var or "documented")] = r4_run.compare_tables(
                    f"N={N} d{k}", {x: y[mask].copy() for x, y in t.items()}, b, spec,
                    quiet=True,
                )  # fmt: skip
    return ck, neg, comp


def lemon_compare(a, spec, variants, vary, seed_base, fields, shown):
    """:func:`node_compare` of the ninth round's mixture fit (draw 0 of each chain) as the
    ``lemon`` mode, the other draw's lemon rows its ``other``; ``vary(s, var)`` the policy's
    variants. Round 13's lemon mode, and round 14's."""
    import arviz as az

    fe = R9.event_fit(argparse.Namespace(out=a.out, draws=100))
    tid = az.InferenceData(posterior=fe.posterior.isel(draw=slice(0, 1)))
    return node_compare(a, "lemon", tid, spec, variants, "other draw's lemon rows",
                        lambda s, var, kp: vary(s, var), seed_base, fields, shown)  # fmt: skip


def run_lemon(a):
    spec = node_spec(W=a.hours, n_gpus=64, tau=0.5, delta=0.03, R=0.3, swap_h=0.2, n_spares=1,
                     repair_h=12.0, n_standbys=2, lemon_k=2, lemon_win=168.0, f=0.05, m=3.0,
                     cats=[ncat("gpu", 0.1, detect=0.1, swap=True),
                           ncat("net", 0.05, detect=0.05)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip

    def vary(s, var):
        s.update(lemon_k=0 if var == "no exclusion" else spec["lemon_k"],
                 n_standbys=0 if var == "no standbys" else spec["n_standbys"],
                 n_spares=None if var == "unlimited pool" else spec["n_spares"])  # fmt: skip

    variants = (None, "no exclusion", "no standbys", "unlimited pool", "other draw's lemon rows",
                "F[k+1]")  # fmt: skip
    fields = ("n_spares", "repair_hours", "n_standbys", "lemon_failures", "lemon_window_hours")
    shown = ("nodes_excluded_bad", "nodes_excluded_good", "standby_swaps", "pool_occupancy")
    return lemon_compare(a, spec, variants, vary, 13000, fields, shown)


# ---------------------------------------------------------------- 4: mixture fit with diurnal/trend
def events_fit(a, name, diurnal, amplitude, peak_hour, seed):
    """A synthetic log (gpu 6e-4 on GPUs, net 1.5e-3 on nodes, 256 GPUs, 1,500 h, lemons 0.1 x
    8, trend 1.6 from age 2,000 h) with the daily cycles ``amplitude`` / ``peak_hour``, fitted
    with ``fit_events(diurnal=diurnal, trend=True, nodes="mixture")``; cached in ``a.out`` as
    ``ev_{name}_fit_100.nc``."""
    import arviz as az

    path = a.out / f"ev_{name}_fit_100.nc"
    if path.exists():
        return az.from_netcdf(path)
    ev = relmc.events.synthetic_events(
        {"gpu": 6e-4, "net": 1.5e-3}, n_gpus=256, duration_hours=1500.0,
        units={"gpu": "gpu", "net": "node"}, diurnal_amplitude=amplitude,
        diurnal_peak_hour=peak_hour, trend_shape=1.6, fleet_age_at_start_hours=2000.0,
        bad_node_fraction=0.1, bad_node_multiplier=8.0, seed=seed,
    )  # fmt: skip
    print(f"log: counts {ev['count'].values.tolist()}, bad nodes {ev.attrs['n_bad_nodes']}")
    t0 = time.time()
    fe = relmc.fit_events(ev, diurnal=diurnal, trend=True, nodes="mixture", n_draws=100,
                          n_tune=300, n_chains=2, cores=1, seed=seed)  # fmt: skip
    print(f"fit_events(diurnal={diurnal!r}) {time.time() - t0:.1f}s")
    fe.to_netcdf(path)
    return fe


def mixdt_fit(a):
    """A synthetic log with lemons, a daily cycle per category and a trend, fitted with all
    three terms."""
    return events_fit(a, "mixdt", "category", {"gpu": 0.7, "net": 0.4},
                      {"gpu": 14.0, "net": 3.0}, 1)  # fmt: skip


def run_mixdt(a, fit=mixdt_fit):
    """Mixture + diurnal + trend posterior (``fit(a)``), node model, project(precision) vs
    run_r5(node)."""
    import arviz as az

    fe = fit(a)
    thin = fe.posterior.isel(draw=slice(0, 1)).copy()
    thin.attrs["fleet_age_hours"] = A0_DT
    print(f"fit variables {sorted(fe.posterior.data_vars)}")
    tid = az.InferenceData(posterior=thin)
    spec = node_spec(W=a.hours, n_gpus=64, tau=0.5, delta=0.03, R=0.3, lemon_k=2,
                     lemon_win=168.0, f=0.05, m=3.0, beta=1.5, A0=A0_DT, h0=2.0,
                     cats=[ncat("gpu", 0.1, detect=0.1), ncat("net", 0.05, detect=0.05)],
                     spreads=dict(restart=2.0, detection=2.0))  # fmt: skip
    amp, peak = (M8.flat(thin[v]) for v in ("diurnal_amplitude", "diurnal_peak_hour"))
    beta = thin["trend_shape"].transpose("draw", "chain").values.ravel()
    print(f"thin: amp {np.round(amp, 3).tolist()}; peak {np.round(peak, 2).tolist()}; trend "
          f"{np.round(beta, 3).tolist()}; fleet age {A0_DT}; start hour {spec['h0']}")  # fmt: skip

    def vary(s, var, kp):
        if var == "node model ignored":
            s["f"] = 0.0
        s["beta"] = 1.0 if var == "no trend" else float(beta[kp])
        for j, c in enumerate(s["cats"]):
            c.update(
                peak=float(peak[kp, j]), amp=0.0 if var == "amplitude 0" else float(amp[kp, j])
            )

    variants = (None, "other draw's rows", "amplitude 0", "no trend", "node model ignored")
    shown = ("nodes_excluded_bad", "nodes_excluded_good")
    return node_compare(a, "mixdt", tid, spec, variants, "other draw's rows", vary, 17000, (),
                        shown)  # fmt: skip


# ---------------------------------------------------------------- 5: sweep layouts, diurnal/trend
def run_sweep(a):
    """The twelfth round's sweep (diurnal / trend file, [precision], cells vs run_r5), then the
    same spec in 2 shards and with 2 worker processes: every cube variable bit-equal."""
    got = {}
    orig = relmc.sweep.run_sweep

    def capture(spec, store, **kw):
        got["spec"], got["store"] = spec, Path(store)
        return orig(spec, store, **kw)

    relmc.sweep.run_sweep = capture  # the twelfth round's run_sweep calls it by attribute
    try:
        ck, neg, comp = R12.run_sweep(a)
    finally:
        relmc.sweep.run_sweep = orig
    spec, base = got["spec"], relmc.sweep.open_sweep(got["store"], load=True)
    print(f"spec: dims {spec.dims}, shape {spec.shape}, posterior {spec.posterior}")
    for lay in ("2 shards", "2 workers", "2 shards x 2 workers"):
        store = a.out / f"sweep_r13_{lay.replace(' ', '_')}.zarr"
        shutil.rmtree(store, ignore_errors=True)
        t0 = time.time()
        if lay == "2 workers":
            orig(spec, store, n_threads=1, workers=2)
        else:
            for sh in (1, 0):
                orig(spec, store, shard=sh, shards=2, n_threads=1,
                     workers=2 if "workers" in lay else 1)  # fmt: skip
        cube = relmc.sweep.open_sweep(store, load=True)
        bad, miss = C9.diff_vars(base, cube)
        print(f"  [{lay}] {time.time() - t0:.1f}s; n_trials {cube['n_trials'].values.tolist()}; "
              f"differing {bad}; missing {miss}; {len(base.data_vars)} variables")  # fmt: skip
        ck[f"[{lay}] every cube variable == in process (bit)"] = not bad and not miss
    store = a.out / "sweep_r13_seed+1.zarr"  # negative: the same layout with the root seed + 1
    shutil.rmtree(store, ignore_errors=True)
    for sh in (1, 0):
        orig(dataclasses.replace(spec, seed=spec.seed + 1), store, shard=sh, shards=2, n_threads=1)
    bad, miss = C9.diff_vars(base, relmc.sweep.open_sweep(store, load=True))
    neg[("sweep", None, "2 shards, root seed + 1")] = (
        not bad and not miss,
        f"{len(bad)} of {len(base.data_vars)} variables differ",
    )
    return ck, neg, comp


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("cli", "scal", "lemon", "mixdt", "sweep"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--ct", type=int, default=4000, help="scal: credible trials")
    ap.add_argument("--m", type=int, default=1000, help="scal: trials per draw")
    ap.add_argument("--n-indep", type=int, default=1500)
    ap.add_argument("--budget", type=int, default=16384, help="cli, lemon, sweep: trial budget")
    ap.add_argument("--rse", type=float, default=0.001, help="lemon, sweep: target_rse")
    ap.add_argument("--min", type=int, default=2048, help="lemon: min_trials")
    ap.add_argument("--hours", type=float, default=72.0, help="lemon: compute hours")
    ap.add_argument("--iseed", type=int, default=0, help="offset of the independent seeds")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/r13"))
    a = ap.parse_args(argv)
    if a.smoke:
        a.ct, a.m, a.n_indep, a.budget, a.min = 800, 200, 100, 1024, 512
    a.out.mkdir(parents=True, exist_ok=True)
    tag = f"{a.mode}_{a.seed}_{a.ct}_{a.m}_{a.n_indep}_{a.budget}_{a.iseed}"
    log_to(a.out, f"log_r13_{tag}.txt")
    print(f"r13_proj {a.mode} seed {a.seed} ct {a.ct} m {a.m} indep {a.n_indep} budget "
          f"{a.budget} iseed {a.iseed}  relmc {relmc.__version__}")  # fmt: skip
    t0 = time.time()
    ck, neg, comp = dict(
        cli=run_cli, scal=run_scal, lemon=run_lemon, mixdt=run_mixdt, sweep=run_sweep
    )[a.mode](a)
    R10.report(ck, neg, comp, a.mode, t0, a.out / f"res_r13_{tag}.pkl")


if __name__ == "__main__":
    main()
