"""Fourth round: random specs, relmc against ``r4_indep`` (node model on throughout).

Two kinds (``KIND``):

``draws``   a random hand-made posterior (2 or 3 draws; per-draw ``rate``,
            ``diurnal_amplitude``, ``diurnal_peak_hour``, ``trend_shape``,
            ``bad_node_fraction``, ``bad_node_multiplier``) over a node failure category and,
            at random, a blast-radius category, a straggler and an SDC (made from posterior
            categories by their ``kind``), on a random node spec (pool, standbys, preemption,
            lemon detection, repair pipeline, retirement, memory restarts, retention, cap,
            ``max_events``, maintenance, throughput); each draw's trials compared apart
            (``r4_run.run_draws``' method)
``spread``  a random node spec with stragglers / SDC and random overhead spreads (all nine
            kinds) and jitter (all four), relmc in calls of at most 4,096 trials

Spec ``i`` comes from ``random.Random(4000 + i)`` (``draws``) or ``random.Random(5000 + i)``
(``spread``). Per spec (per draw) one line: max |z| and its output, KS p of wall, progress
and power swings, the swings' chi-square p, broken invariants; rows past |z| = 4 are printed
in full. Results pickled to ``OUT/res_r4_fuzz_{KIND}_{START}_{STOP}.pkl``.

    python benchmarks/outside_physics/r4_fuzz.py KIND START STOP [NRELMC] [NINDEP] [--seed S]
        [--out DIR]

KIND    ``draws`` or ``spread``
START STOP  spec indices (``range(START, STOP)``)
NRELMC  relmc trials per spec (default 8000; ``draws``: over all its draws)
NINDEP  independent trials per spec (default 1500; ``draws``: per draw)
--seed  seed of both sides (default: ``i + 1`` for spec ``i``)
--out   folder (default ``results/`` beside this script)
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r4_indep  # noqa: E402
import r4_run  # noqa: E402
import r4_scen  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

warnings.simplefilter("ignore")


def _node_kw(r):
    """Random node-model and policy fields shared by both kinds."""
    tau = r.choice([0.5, 1.0])
    kw = dict(
        W=r.choice([8.0, 15.0, 20.0]),
        tau=tau,
        delta=r.choice([0.0, 0.02, 0.05]),
        persist=r.choice([0.0, 0.1, 0.8 * tau]),
        R=r.choice([0.1, 0.3]),
        swap_h=r.choice([0.0, 0.2]),
        n_gpus=r.choice([16, 32, 64, 128]),
        f=r.choice([0.0, 0.1, 0.3]),
        m=r.choice([1.0, 3.0, 8.0]),
        n_standbys=r.choice([0, 1, 2]),
        preempt_h=r.choice([0.0, 0.2]),
        lemon_k=r.choice([0, 1, 2, 3]),
        lemon_win=r.choice([5.0, 50.0]),
        retire_after=r.choice([0, 0, 2]),
        escalate=r.choice([0.0, 0.4]),
        manual_h=r.choice([5.0, 20.0]),
        auto_miss=r.choice([0.0, 0.5]),
        manual_miss=r.choice([0.0, 0.2]),
        repair_fixed=r.random() < 0.3,
        nodes_per_rack=r.choice([2, 4]),
        gpus_per_pod=r.choice([64, 3072]),
        K=r.choice([0, 1, 2, 3]),
        maint_rate=r.choice([0.0, 0.1]),
        maint_h=r.choice([0.0, 0.5]),
        b=r.choice([0.0, 0.0, 0.4]),
        phi_s=r.uniform(0, 24),
        h0=r.uniform(0, 24),
        start_day=r.randrange(7),
        cap_factor=r.choice([1.5, 3.0, 10.0]),
        max_events=r.choice([4, 10, 10**6, 10**6]),
    )
    if r.random() < 0.6:
        kw.update(n_spares=r.choice([0, 1, 3]), repair_h=r.choice([2.0, 10.0]))
    if r.random() < 0.5:
        kw.update(mem_R=r.choice([0.0, 0.05]), mem_r=r.choice([1, 2]))
    return kw


def _cats(r, with_rack=None):
    cats = [
        ncat(
            "hw",
            0.3,
            detect=r.choice([0.0, 0.1, 0.3]),
            swap=r.random() < 0.8,
            diag=r.choice([0.0, 0.1, 0.3]),
            wrong=r.choice([0.0, 0.3]),
        )
    ]
    if with_rack if with_rack is not None else r.random() < 0.4:
        cats.append(ncat("rack", 0.05, detect=0.1, domain=r.choice(["rack", "pod"]), diag=0.2))
    if r.random() < 0.6:
        cats.append(
            r4_scen.strag(
                "slow",
                0.2,
                detect=r.choice([0.1, 0.5]),
                swap=r.random() < 0.7,
                diag=r.choice([0.0, 0.1]),
                speed=r.choice([0.1, 0.5]),
            )
        )
    if r.random() < 0.6:
        cats.append(
            r4_scen.sdc(
                "sdc",
                0.1,
                detect=0.1,
                swap=r.random() < 0.7,
                diag=r.choice([0.0, 0.1]),
                sdc_L=r.choice([0.3, 1.0]),
                sdc_exp=r.random() < 0.5,
            )
        )
    return cats


def gen_draws(i):
    """Random `r4_scen.PostScen` number `i`."""
    r = random.Random(4000 + i)
    spec = node_spec(cats=_cats(r), **_node_kw(r))
    C = len(spec["cats"])
    D = r.choice([2, 3])
    base = np.array([c["rate"] for c in spec["cats"]])
    rate = np.array([[b * r.choice([0.5, 1.0, 2.0]) for b in base] for _ in range(D)])
    amp = np.array([[r.choice([0.0, r.uniform(0, 1), 1.0]) for _ in range(C)] for _ in range(D)])
    peak = np.array([[r.uniform(0, 24) for _ in range(C)] for _ in range(D)])
    beta = np.array([r.choice([0.3, 0.7, 1.0, 1.5, 2.5]) for _ in range(D)])
    f = np.array([r.choice([0.0, 0.05, 0.2, 0.5]) for _ in range(D)])
    m = np.array([[r.choice([1.0, 2.0, 5.0, 10.0]) for _ in range(C)] for _ in range(D)])
    return r4_scen.PostScen(
        spec=spec, rate=rate, amp=amp, peak=peak, beta=beta, f=f, m=m,
        A0=r.choice([2.0, 50.0, 1000.0]),
    )  # fmt: skip


def gen_spread(i):
    """Random node spec number `i` with spreads and jitter."""
    r = random.Random(5000 + i)
    kw = _node_kw(r)
    sp = {}
    for k in (
        "snapshot", "persist", "restart", "swap", "detection", "maintenance", "diagnosis",
        "preemption", "sdc_latency",
    ):  # fmt: skip
        if r.random() < 0.4:
            sp[k] = r.choice([1.5, 2.0, 3.0, 6.0])
    jt = {}
    for k in ("restart", "swap", "detection", "maintenance"):
        if r.random() < 0.4:
            jt[k] = r.choice([1.5, 2.0, 3.0, 6.0])
    if not sp:
        sp["detection"] = 2.0
    kw.update(spreads=sp, jitters=jt or None)
    cats = _cats(r)
    if r.random() < 0.3:
        cats[0].update(amp=0.6, peak=r.uniform(0, 24))
    return node_spec(cats=cats, **kw)


def _line(tag, res):
    ks = f"KS wall {res['ks']:.3g} progress {res['ksp']:.3g} swings {res['ks_swings']:.3g}"
    print(
        f"{tag}: max|z| {res['zmax']:.2f} ({res['kmax']})  {ks}  chi2 {res['chi2_swings']:.3g}"
        f"  invariants broken {len(res['bad'])}{'  <<<' if res['zmax'] > 4 else ''}"
    )
    for k, ma, _sa, mb, _sb, z in res["rows"]:
        if abs(z) > 4:
            print(f"    {k:22s} relmc {ma:10.5g}  indep {mb:10.5g}  z={z:6.2f}")
    for m in res["bad"]:
        print("    INVARIANT:", m)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=["draws", "spread"])
    ap.add_argument("start", type=int)
    ap.add_argument("stop", type=int)
    ap.add_argument("n_relmc", nargs="?", type=int, default=8000)
    ap.add_argument("n_indep", nargs="?", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    log_to(args.out, f"log_r4_fuzz_{args.kind}_{args.start}_{args.stop}.txt")
    r4_indep.set_mut([])
    print(f"r4_fuzz {args.kind} {args.start}-{args.stop} relmc {args.n_relmc} indep {args.n_indep}")
    out = {}
    for i in range(args.start, args.stop):
        seed = i + 1 if args.seed is None else args.seed
        t0 = time.time()
        try:
            if args.kind == "draws":
                ps = gen_draws(i)
                sc = r4_indep.build_relmc(r4_scen.relmc_spec(ps))
                ds = relmc.simulate(
                    sc, rates=ps.idata(), n_trials=args.n_relmc, seed=seed, n_threads=1
                )
                a = r4_indep.relmc_table(ds, r4_scen.draw_spec(ps, 0))
                out[i] = {}
                for d in range(ps.n_draws):
                    sel = ds.draw.values == d
                    spec = r4_scen.draw_spec(ps, d)
                    b = r4_indep.run_r4(spec, args.n_indep, seed + 100 * d)
                    ad = {k: v[sel] for k, v in a.items()}
                    res = r4_run.compare_tables(f"{i}/d{d}", ad, b, spec, quiet=True)
                    out[i][d] = res
                    _line(f"spec {i} draw {d} (f {ps.f[d]}, beta {ps.beta[d]})", res)
            else:
                spec = gen_spread(i)
                a = r4_run.relmc_plain(spec, args.n_relmc, seed)
                b = r4_indep.run_r4(spec, args.n_indep, seed)
                res = r4_run.compare_tables(str(i), a, b, spec, quiet=True)
                out[i] = res
                _line(f"spec {i} (spreads {spec['spreads']}, jitters {spec['jitters']})", res)
        except Exception as e:  # a refusal by relmc is reported, not a failure of the run
            print(f"spec {i}: {type(e).__name__}: {str(e)[:300]}")
            out[i] = dict(error=f"{type(e).__name__}: {e}")
        print(f"  ({time.time() - t0:.1f}s)")
    path = args.out / f"res_r4_fuzz_{args.kind}_{args.start}_{args.stop}.pkl"
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
