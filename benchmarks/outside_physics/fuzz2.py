"""Random specs with the wall cap, max_events, spreads and jitter (and the node model).

Spec ``i`` is ``gen(i, nodes)`` (``random.Random(1000 + i)``): spreads and jitter on random
overheads, W, tau, delta, persist, R, swaps, maintenance, cap factor 1.2-5, max_events 2, 5,
20 or none, throughput amplitude, sometimes a finite pool; on the general path one failure
category (maybe diurnal), maybe a straggler and an SDC category, K, a trend; with ``nodes``,
node-model categories (swap, restart-only, rack or pod domain), lemons, standbys,
preemption, lemon detection, retirement, escalation, misses, fixed repairs, memory restarts.
``loose``: cap 5 or 10 W and no max_events, so most trials finish. Each spec goes through
``compare2.compare`` (or ``compare_nodes.compare``) with seed ``i + 1``; one line per spec:
finished shares, the largest |z| and its output, KS p of wall and progress, ``<<<`` past
|z| = 4, broken invariants. The rows are pickled to
``OUT/fuzz2_{START}_{STOP}[_loose][_nodes].pkl``.

    python benchmarks/outside_physics/fuzz2.py START STOP [NRELMC] [NINDEP] [nodes] [loose]
        [--out DIR]

START STOP  spec indices ``range(START, STOP)``
NRELMC      relmc trials per spec (default 6000); NINDEP  independent trials (default 1500)
nodes       the node model (``indep_nodes.py``); loose  the loose variant
--out       folder for the log and the pickle (default ``results/`` beside this script)

The recorded runs were ``fuzz2.py 0 120``, ``fuzz2.py 0 90 6000 1500 nodes`` and
``fuzz2.py 100 160 6000 1500 nodes loose``; ``rerun2.py`` repeats one spec.
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
import compare2  # noqa: E402
import compare_nodes  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

LOOSE = "loose" in sys.argv


def gen(i, nodes):
    """Spec `i` of the general path (`nodes` false) or of the node model; see the docstring."""
    r = random.Random(1000 + i)
    sp = {}
    jt = {}
    for k in ("snapshot", "persist", "restart", "swap", "detection", "maintenance"):
        if r.random() < 0.3:
            sp[k] = r.choice([1.5, 2.0, 3.0])
    for k in ("restart", "swap", "detection", "maintenance"):
        if r.random() < 0.3:
            jt[k] = r.choice([1.5, 2.0, 3.0])
    tau = r.choice([0.5, 1.0])
    base = dict(
        W=r.choice([5.0, 10.0, 15.0]),
        tau=tau,
        delta=r.choice([0.0, 0.02, 0.1]),
        persist=r.choice([0.0, 0.1, tau * 0.8]),
        R=r.choice([0.0, 0.1, 0.4]),
        swap_h=r.choice([0.0, 0.2]),
        maint_rate=r.choice([0.0, 0.1, 0.5]),
        maint_h=r.choice([0.0, 0.3]),
        cap_factor=r.choice([1.2, 1.5, 2.0, 5.0]),
        max_events=r.choice([2, 5, 20, 10**6]),
        b=r.choice([0.0, 0.0, 0.5]),
        h0=r.uniform(0, 24),
        phi_s=r.uniform(0, 24),
        spreads=sp or None,
        jitters=jt or None,
    )
    if LOOSE:
        base.update(cap_factor=r.choice([5.0, 10.0]), max_events=10**6)
    if r.random() < 0.5:
        base["n_spares"] = r.choice([0, 1, 3])
        base["repair_h"] = r.choice([2.0, 10.0])
    if not nodes:
        cats = [
            cat(
                "a",
                r.choice([0.1, 0.4, 1.0]),
                detect=r.choice([0.0, 0.1, 0.3]),
                swap=r.random() < 0.5,
                amp=r.choice([0.0, 0.8]),
                peak=r.uniform(0, 24),
            )
        ]
        if r.random() < 0.4:
            cats.append(
                cat(
                    "s",
                    r.choice([0.1, 0.4]),
                    kind="straggler",
                    detect=r.choice([0.1, 0.5]),
                    speed=r.choice([0.2, 0.6]),
                )
            )
        if r.random() < 0.4:
            cats.append(
                cat(
                    "c",
                    r.choice([0.1, 0.3]),
                    kind="sdc",
                    sdc_L=r.choice([0.2, 1.0]),
                    sdc_exp=r.random() < 0.5,
                    detect=0.1,
                )
            )
            if r.random() < 0.5:
                sp["sdc_latency"] = 2.0
                base["spreads"] = sp
        base["K"] = r.choice([0, 1, 2])
        if r.random() < 0.3:
            base.update(beta=r.choice([0.5, 2.0]), A0=r.choice([5.0, 50.0]))
        return default_spec(cats=cats, **base)
    cats = [
        ncat(
            "hw",
            r.choice([0.2, 0.5]),
            detect=r.choice([0.0, 0.1]),
            swap=r.random() < 0.8,
            diag=r.choice([0.0, 0.1, 0.3]),
            wrong=r.choice([0.0, 0.3]),
            amp=r.choice([0.0, 0.6]),
            peak=r.uniform(0, 24),
        )
    ]
    if r.random() < 0.5:
        cats.append(
            ncat(
                "sw",
                r.choice([0.1, 0.3]),
                detect=0.05,
                mult=r.choice([1.0, None]),
                diag=r.choice([0.0, 0.1]),
                wrong=r.choice([0.0, 0.5]),
            )
        )
    if r.random() < 0.5:
        cats.append(
            ncat(
                "dom",
                r.choice([0.03, 0.1]),
                domain=r.choice(["rack", "pod"]),
                detect=0.1,
                diag=r.choice([0.0, 0.2]),
            )
        )
    if r.random() < 0.3:
        sp["diagnosis"] = 2.0
    if r.random() < 0.3:
        sp["preemption"] = 2.0
    base["spreads"] = sp or None
    return node_spec(
        cats=cats,
        n_gpus=r.choice([16, 64, 128]),
        f=r.choice([0.0, 0.1, 0.3]),
        m=r.choice([1.0, 3.0, 8.0]),
        n_standbys=r.choice([0, 1, 3]),
        preempt_h=r.choice([0.0, 0.3]),
        lemon_k=r.choice([0, 1, 2, 3]),
        lemon_win=r.choice([5.0, 50.0]),
        retire_after=r.choice([0, 0, 2]),
        escalate=r.choice([0.0, 0.5]),
        manual_h=r.choice([5.0, 20.0]),
        auto_miss=r.choice([0.0, 0.5]),
        manual_miss=r.choice([0.0, 0.3]),
        repair_fixed=r.random() < 0.3,
        nodes_per_rack=r.choice([2, 4]),
        gpus_per_pod=r.choice([32, 64]),
        mem_R=r.choice([None, 0.05]),
        mem_r=r.choice([1, 2]),
        **base,
    )


def main(argv=None):
    """Parse the arguments, compare specs START..STOP-1, write the log and the pickle."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", type=int, help="first spec index")
    ap.add_argument("stop", type=int, help="one past the last spec index")
    ap.add_argument("n_relmc", nargs="?", type=int, default=6000, help="relmc trials")
    ap.add_argument("n_indep", nargs="?", type=int, default=1500, help="independent trials")
    ap.add_argument("flags", nargs="*", help="nodes, loose")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args(argv)
    if set(args.flags) - {"nodes", "loose"}:
        ap.error(f"flags must be nodes or loose, not {args.flags}")
    a, b, nr, ni = args.start, args.stop, args.n_relmc, args.n_indep
    nodes = "nodes" in args.flags
    stem = f"fuzz2_{a}_{b}" + "".join("_" + f for f in sorted(set(args.flags)))
    log_to(args.out, f"log_{stem}.txt")
    cmp = compare_nodes.compare if nodes else compare2.compare
    out = {}
    for i in range(a, b):
        spec = gen(i, nodes)
        try:
            res = cmp(f"f{i}", spec, nr, ni, seed=i + 1, quiet=True)
        except Exception as e:  # noqa: BLE001
            print(f"spec {i}: ERROR {type(e).__name__}: {e}")
            continue
        zs = [(abs(z), k) for (k, ma, sa, mb, sb, z) in res["rows"] if np.isfinite(z)]
        mz = max(zs)
        fin = res["a"]["finished"].mean(), res["b"]["finished"].mean()
        flag = "  <<<" if mz[0] > 4 else ""
        print(
            f"spec {i}: fin {fin[0]:.3f}/{fin[1]:.3f} max|z| {mz[0]:.2f} ({mz[1]}) "
            f"KS wall {res['ks']:.3g} prog {res['ksp']:.3g}{flag}",
            *res["bad"],
            flush=True,
        )
        out[i] = dict(rows=res["rows"], ks=res["ks"], ksp=res["ksp"], bad=res["bad"])
    path = args.out / f"{stem}.pkl"
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
