"""Random specs: stragglers and SDC inside the node model, relmc vs indep_nodes_phys.py.

Spec ``i`` is ``gen(i)`` (``random.Random(3000 + i)``): a straggler and / or an SDC
category (rates, slow phase, speed 0.02-0.7, fixed or exponential latency 0.3-3 h, swap or
restart-only, diagnosis, own bad multiplier, diurnal amplitude), maybe a failure category
(node, or rack domain, wrong blame), lemons, standbys, preemption, an unlimited or finite
pool, lemon detection, retirement, escalation, misses, fixed repairs, memory restarts,
retention K 0-3, maintenance, persist, throughput cycle, cap 1.3-10 W, max_events, spreads
and jitter. Always at least one node-model feature on. Each spec goes through
``run_nodes_phys.compare`` with seed ``i + 1``; one line per spec: finished shares, the largest
|z| and its output, KS p of wall and progress, ``<<<`` past |z| = 4, broken invariants; the
rows are pickled to ``OUT/fuzz_nodes_phys_{START}_{STOP}[_MUT].pkl``.

    python benchmarks/outside_physics/fuzz_nodes_phys.py START STOP [NRELMC] [NINDEP]
        [--mut A1,A2,A6] [--loose] [--out DIR]

START STOP  spec indices ``range(START, STOP)``
NRELMC      relmc trials per spec (default 6000); NINDEP  independent trials (default 1500)
--mut       readings / misreadings of ``indep_nodes_phys.PMUT`` (relmc's readings: A1,A2,A6)
--loose     cap 10 W and no max_events (more trials finish)
--out       folder for the log and the pickle (default ``results/`` beside this script)
"""

import argparse
import pickle
import random
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.simplefilter("ignore")
import indep_nodes_phys  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402
from run_nodes_phys import compare  # noqa: E402


def gen(i):
    """Spec `i` (see the docstring)."""
    r = random.Random(3000 + i)
    tau = r.choice([0.5, 1.0])
    sp, jt = {}, {}
    for k in ("diagnosis", "preemption", "sdc_latency", "swap", "restart"):
        if r.random() < 0.2:
            sp[k] = r.choice([1.5, 2.5])
    for k in ("detection", "swap", "restart"):
        if r.random() < 0.2:
            jt[k] = r.choice([1.5, 2.5])
    cats = []
    has_s = r.random() < 0.75
    has_c = r.random() < 0.75 or not has_s
    if has_s:
        cats.append(
            ncat(
                "slow",
                r.choice([0.1, 0.3, 0.6]),
                kind="straggler",
                detect=r.choice([0.1, 0.5, 1.5]),
                speed=r.choice([0.02, 0.3, 0.7]),
                swap=r.random() < 0.7,
                diag=r.choice([0.0, 0.1, 0.3]),
                mult=r.choice([None, 1.0, 5.0]),
                amp=r.choice([0.0, 0.0, 0.6]),
                peak=r.uniform(0, 24),
            )
        )
    if has_c:
        cats.append(
            ncat(
                "sdc",
                r.choice([0.05, 0.15, 0.3]),
                kind="sdc",
                sdc_L=r.choice([0.3, 1.0, 3.0]),
                sdc_exp=r.random() < 0.5,
                detect=r.choice([0.0, 0.1]),
                swap=r.random() < 0.7,
                diag=r.choice([0.0, 0.2]),
                mult=r.choice([None, 1.0, 5.0]),
            )
        )
    if r.random() < 0.8:
        cats.append(
            ncat(
                "hw",
                r.choice([0.1, 0.3, 0.6]),
                detect=r.choice([0.0, 0.1]),
                swap=r.random() < 0.7,
                diag=r.choice([0.0, 0.1]),
                wrong=r.choice([0.0, 0.3]),
                domain=r.choice(["node", "node", "rack"]),
            )
        )
    spec = dict(
        W=r.choice([8.0, 12.0, 20.0]),
        tau=tau,
        delta=r.choice([0.0, 0.02, 0.05]),
        persist=r.choice([0.0, 0.1, 0.8 * tau]),
        R=r.choice([0.05, 0.2, 0.5]),
        swap_h=r.choice([0.0, 0.2]),
        maint_rate=r.choice([0.0, 0.0, 0.2]),
        maint_h=r.choice([0.1, 0.5]),
        cap_factor=r.choice([1.3, 2.0, 4.0, 10.0]),
        max_events=r.choice([5, 20, 10**6, 10**6]),
        b=r.choice([0.0, 0.0, 0.5]),
        h0=r.uniform(0, 24),
        phi_s=r.uniform(0, 24),
        K=r.choice([0, 1, 2, 3]),
        n_spares=r.choice([None, 0, 1, 3]),
        repair_h=r.choice([2.0, 8.0]),
        n_gpus=r.choice([16, 32, 64]),
        f=r.choice([0.0, 0.1, 0.3]),
        m=r.choice([1.0, 3.0, 8.0]),
        n_standbys=r.choice([0, 1, 2]),
        preempt_h=r.choice([0.0, 0.3]),
        lemon_k=r.choice([0, 1, 2, 3]),
        lemon_win=r.choice([5.0, 50.0]),
        retire_after=r.choice([0, 0, 2]),
        escalate=r.choice([0.0, 0.5]),
        manual_h=5.0,
        auto_miss=r.choice([0.0, 0.5]),
        repair_fixed=r.random() < 0.3,
        mem_R=r.choice([None, None, 0.05]),
        mem_r=r.choice([1, 2]),
        nodes_per_rack=r.choice([2, 4]),
        spreads=sp or None,
        jitters=jt or None,
        cats=cats,
    )
    node_on = (
        spec["f"] > 0
        or spec["n_standbys"] > 0
        or spec["preempt_h"] > 0
        or spec["lemon_k"] > 0
        or spec["retire_after"] > 0
        or spec["escalate"] > 0
        or spec["repair_fixed"]
        or spec["mem_R"] is not None
        or any(c["diag"] > 0 or c["domain"] != "node" for c in cats)
    )
    if not node_on:
        spec["f"] = 0.1
    return node_spec(**spec)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", type=int)
    ap.add_argument("stop", type=int)
    ap.add_argument("n_relmc", nargs="?", type=int, default=6000)
    ap.add_argument("n_indep", nargs="?", type=int, default=1500)
    ap.add_argument("--mut", default="", help="comma-separated PMUT flags")
    ap.add_argument("--loose", action="store_true", help="cap 10 W, no max_events")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    muts = [m for m in args.mut.split(",") if m]
    indep_nodes_phys.PMUT.update(muts)
    stem = f"fuzz_nodes_phys_{args.start}_{args.stop}" + ("_" + "".join(muts) if muts else "")
    stem += "_loose" if args.loose else ""
    log_to(args.out, f"log_{stem}.txt")
    print("readings / misreadings:", sorted(indep_nodes_phys.PMUT))
    out = {}
    for i in range(args.start, args.stop):
        spec = gen(i)
        if args.loose:
            spec.update(cap_factor=10.0, max_events=10**6)
        try:
            res = compare(f"f{i}", spec, args.n_relmc, args.n_indep, seed=i + 1, quiet=True)
        except Exception as e:  # noqa: BLE001
            print(f"spec {i}: ERROR {type(e).__name__}: {e}", flush=True)
            continue
        zs = [(abs(z), k) for (k, ma, sa, mb, sb, z) in res["rows"] if np.isfinite(z)]
        mz = max(zs)
        fin = res["a"]["finished"].mean(), res["b"]["finished"].mean()
        kinds = "+".join(c["kind"][:4] for c in spec["cats"])
        flag = "  <<<" if mz[0] > 4 else ""
        print(
            f"spec {i}: [{kinds}] fin {fin[0]:.3f}/{fin[1]:.3f} max|z| {mz[0]:.2f} ({mz[1]}) "
            f"KS wall {res['ks']:.3g} prog {res['ksp']:.3g}{flag}",
            *res["bad"],
            flush=True,
        )
        out[i] = dict(rows=res["rows"], ks=res["ks"], ksp=res["ksp"], bad=res["bad"])
    path = Path(args.out) / f"{stem}.pkl"
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
