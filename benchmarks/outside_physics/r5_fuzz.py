"""Fifth round: random posteriors x random overhead spreads, relmc against ``r5_indep``.

Spec ``i``: even ``i`` the node model (``r4_fuzz.gen_draws(i)``: a random posterior of 2-3
draws with per-draw ``rate``, amplitude, peak, trend, bad fraction and multipliers over a
random node spec), odd ``i`` the general path (a random ``indep2`` spec: a swap or restart
failure, at random a second failure, a straggler and an SDC, pool, maintenance, persist,
throughput, retention, cap, ``max_events``; a random posterior without node rows); then
random spreads (each of the nine kinds, the seven general ones off the node model, with
probability 0.5, range 1.5-6) and jitters (each of four with probability 0.4) from
``random.Random(7000 + i)``. Each draw's trials are compared as ``r5_run.run_given`` does (the
draw's rows and its factors ``F[d]``); one line per draw (``r4_fuzz._line``), rows past
|z| = 4 in full; a closing count of |z| > 3 and > 4 and the KS minima.

    taskset -c 1 python benchmarks/outside_physics/r5_fuzz.py START STOP [NRELMC] [NINDEP]
        [--seed S] [--out DIR]

START STOP  spec indices; NRELMC relmc trials per draw (default 4000); NINDEP independent
trials per draw (default 1500); --seed both sides' seed (default ``i + 1``); --out folder
(default /tmp/r5).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r4_fuzz  # noqa: E402
import r5_indep  # noqa: E402
import r5_run  # noqa: E402
import r5_scen  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from outlog import log_to  # noqa: E402

warnings.simplefilter("ignore")
GENERAL = ("snapshot", "persist", "restart", "swap", "detection", "maintenance", "sdc_latency")


def _general(i):
    """A random general-path posterior (no node rows)."""
    r = random.Random(8000 + i)
    tau = r.choice([0.5, 1.0])
    cats = [cat("gpu", 0.3, detect=r.choice([0.0, 0.1, 0.3]), swap=r.random() < 0.7)]
    if r.random() < 0.5:
        cats.append(cat("net", 0.1, detect=r.choice([0.0, 0.2])))
    if r.random() < 0.6:
        cats.append(cat("slow", 0.2, kind="straggler", detect=r.choice([0.1, 0.5]),
                        speed=r.choice([0.1, 0.5])))  # fmt: skip
    if r.random() < 0.6:
        cats.append(cat("sdc", 0.1, kind="sdc", detect=0.1, sdc_L=r.choice([0.3, 1.0]),
                        sdc_exp=r.random() < 0.5))  # fmt: skip
    kw = dict(
        W=r.choice([8.0, 15.0, 20.0]), tau=tau, delta=r.choice([0.0, 0.02, 0.05]),
        persist=r.choice([0.0, 0.1, 0.8 * tau]), R=r.choice([0.1, 0.3]),
        swap_h=r.choice([0.0, 0.2]), maint_rate=r.choice([0.0, 0.1]), maint_h=0.5,
        b=r.choice([0.0, 0.0, 0.4]), phi_s=r.uniform(0, 24), h0=r.uniform(0, 24),
        start_day=r.randrange(7), K=r.choice([0, 1, 2, 3]),
        cap_factor=r.choice([1.5, 3.0, 10.0]), max_events=r.choice([4, 10, 10**6, 10**6]),
    )  # fmt: skip
    if r.random() < 0.5:
        kw.update(n_spares=r.choice([0, 1, 3]), repair_h=r.choice([2.0, 10.0]))
    C, D = len(cats), r.choice([2, 3])
    base = np.array([c["rate"] for c in cats])
    return r5_scen.PostScen5(
        spec=default_spec(cats=cats, **kw),
        rate=np.array([[b * r.choice([0.5, 1.0, 2.0]) for b in base] for _ in range(D)]),
        amp=np.array([[r.choice([0.0, r.uniform(0, 1), 1.0]) for _ in range(C)]
                      for _ in range(D)]),
        peak=np.array([[r.uniform(0, 24) for _ in range(C)] for _ in range(D)]),
        beta=np.array([r.choice([0.3, 0.7, 1.0, 1.5, 2.5]) for _ in range(D)]),
        f=None, m=None, A0=r.choice([2.0, 50.0, 1000.0]), node=False,
    )  # fmt: skip


def gen(i):
    """Random posterior number `i` with random spreads and jitters."""
    ps = r4_fuzz.gen_draws(i) if i % 2 == 0 else _general(i)
    node = i % 2 == 0
    r = random.Random(7000 + i)
    kinds = r5_indep.COLS if node else GENERAL
    sp = {k: r.choice([1.5, 2.0, 3.0, 6.0]) for k in kinds if r.random() < 0.5}
    jt = {k: r.choice([1.5, 2.0, 3.0, 6.0]) for k in r5_scen.JIT4 if r.random() < 0.4}
    sp = sp or {"restart": 3.0}
    if node:
        return r5_scen._with(ps, sp, jt or None)
    ps.spec.update(spreads=sp, jitters=jt or None)
    return ps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", type=int)
    ap.add_argument("stop", type=int)
    ap.add_argument("n_relmc", nargs="?", type=int, default=4000)
    ap.add_argument("n_indep", nargs="?", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path("/tmp/r5"))
    args = ap.parse_args(argv)
    log_to(args.out, f"log_r5_fuzz_{args.start}_{args.stop}.txt")
    r5_indep.set_mut([])
    print(f"r5_fuzz {args.start}-{args.stop} relmc {args.n_relmc}/draw indep {args.n_indep}/draw")
    out = {}
    for i in range(args.start, args.stop):
        seed = i + 1 if args.seed is None else args.seed
        t0 = time.time()
        ps = gen(i)
        try:
            res = r5_run.run_given(str(i), ps, args.n_relmc, args.n_indep, seed, set(), True)
        except Exception as e:  # a refusal by relmc is reported, not a failure of the run
            print(f"spec {i}: {type(e).__name__}: {str(e)[:300]}")
            out[i] = dict(error=f"{type(e).__name__}: {e}")
            continue
        out[i] = res
        for d, x in res.items():
            tag = f"spec {i} {'node' if ps.node else 'gen'} draw {d} (beta {ps.beta[d]})"
            r4_fuzz._line(tag, x)
        print(
            f"  spreads {ps.spec['spreads']} jitters {ps.spec['jitters']}  F ok "
            f"{res[0]['dF'] < 1e-12}  assign {res[0]['assign']}  ({time.time() - t0:.1f}s)"
        )
    xs = [x for r in out.values() if "error" not in r for x in r.values()]
    z = np.array([x["zmax"] for x in xs])
    n_err = sum("error" in r for r in out.values())
    print(
        f"\n{len(xs)} draw comparisons in {len(out)} specs ({n_err} refused): max|z| "
        f"{z.max():.2f}, {int((z > 3).sum())} above 3, {int((z > 4).sum())} "
        f"above 4; min KS wall {min(x['ks'] for x in xs):.3g}, progress "
        f"{min(x['ksp'] for x in xs):.3g}, swings chi2 {min(x['chi2_swings'] for x in xs):.3g};"
        f" invariants broken {sum(len(x['bad']) for x in xs)}"
    )
    path = args.out / f"res_r5_fuzz_{args.start}_{args.stop}.pkl"
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
