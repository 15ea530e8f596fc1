"""The node model's known answers on an engine: predicted, measured, z, and the negative controls.

Prints the Markdown table of ``benchmarks/NODES_ANSWERS.md``. The formulas, inputs, seeds and
trial counts are those of ``tests/test_nodes.py`` (imported from there, so the two cannot
drift)::

    PYTHONPATH=. python benchmarks/nodes_answers.py [reference|kernel]
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_nodes as t  # noqa: E402
from nodeinputs import run  # noqa: E402


def row(name, formula, samples, predicted, controls):
    s = np.asarray(samples, dtype=float)
    se = s.std(ddof=1) / math.sqrt(s.size)
    z = (s.mean() - predicted) / se if se > 0 else 0.0
    ctrl = "; ".join(
        f"{label}: {value:.4g} (z={(s.mean() - value) / se:+.0f})"
        if se > 0
        else f"{label}: {value:.4g}"
        for label, value in controls
    )
    return (
        f"| {name} | {formula} | {predicted:.4g} | {s.mean():.4g} ± {se:.2g} | {z:+.2f} | {ctrl} |"
    )


def main(engine: str) -> None:
    rows = []
    p = t.LEMON
    count = t.lemon_run(engine, p["f"], seed=1)
    mean, var = p["lam"] * p["horizon"], t.mixture_variance(**p)
    rows.append(
        row(
            "1 lemons: mean",
            "Lam T",
            count,
            mean,
            [("Lam as good rate", mean * (1 - p["f"] + p["f"] * p["m"]))],
        )
    )
    rows.append(
        row(
            "1 lemons: E(N-Lam T)^2",
            "Lam T + T^2 Var lambda(B)",
            (count - mean) ** 2,
            var,
            [
                ("m=5", t.mixture_variance(p["n"], p["f"], 5.0, p["lam"], p["horizon"])),
                ("Poisson", mean),
            ],
        )
    )
    c0 = t.lemon_run(engine, 0.0, seed=2)
    rows.append(
        row(
            "1 lemons f=0 (control input)",
            "Lam T (Poisson)",
            (c0 - mean) ** 2,
            mean,
            [("mixture variance", var)],
        )
    )

    p = t.CLOSED
    count = run(engine, t.closed_pool_inputs(), seed=3)["interruptions"][:, 0]
    inv = t.closed_pool_stationary_rate(p["n"], p["spares"], p["f"], p["m"], p["lam"], p["m"])
    stat = t.closed_pool_stationary_rate(p["n"], p["spares"], p["f"], p["m"], p["lam"])
    rows.append(
        row(
            "2 closed pool, never fixed",
            "CTMC from Bin x Bin start (Fisher limit)",
            count,
            t.closed_pool_mean(**p),
            [
                ("Lam T", p["lam"] * p["horizon"]),
                ("stationary x T", stat * p["horizon"]),
                ("odds m", inv * p["horizon"]),
            ],
        )
    )

    p = t.DETECT
    out = run(engine, t.detect_inputs(1000, lemon_k=1), seed=4)
    g = p["lam"] / (p["n"] * (1 - p["f"] + p["f"] * p["m"]))
    p_inf = p["f"] / (p["f"] + p["m"] * (1 - p["f"]))
    rows.append(
        row(
            "3 lemon k=1",
            "n g [T(1+(m-1)p_inf) + (m-1)(f-p_inf)(1-e^-kT)/k]",
            out["interruptions"][:, 0],
            t.lemon_k1_mean(**p),
            [
                ("Lam T", p["lam"] * p["horizon"]),
                ("stationary", p["n"] * g * p["horizon"] * (1 + (p["m"] - 1) * p_inf)),
            ],
        )
    )
    rows.append(
        row(
            "3 lemon k=1: bad excluded",
            "n g m [p_inf T + (f-p_inf)(1-e^-kT)/k]",
            out["nodes_excluded_bad"],
            t.lemon_k1_mean(**p, bad_only=True),
            [],
        )
    )
    out = run(engine, t.detect_inputs(1000, lemon_k=2), seed=5)
    k2 = t.lemon_slot_chain_mean(**p, k=2)
    rows.append(
        row(
            "3 lemon k=2",
            "per-slot CTMC (type, failures)",
            out["interruptions"][:, 0],
            k2,
            [("Lam T", p["lam"] * p["horizon"])],
        )
    )
    out = run(engine, t.detect_inputs(600, lemon_k=2, lemon_window=1e-6), seed=6)
    rows.append(
        row(
            "3 lemon k=2, window 1e-6 (control input)",
            "Lam T",
            out["interruptions"][:, 0],
            p["lam"] * p["horizon"],
            [("k=2 answer", k2)],
        )
    )
    q = {**p, "n": 3}
    out = run(engine, t.detect_inputs(1000, lemon_k=1, diag_wrong=[0.7], params={"n": 3}), seed=7)
    rows.append(
        row(
            "3 wrong blame w=0.7, k=1",
            "birth-death CTMC on B",
            out["interruptions"][:, 0],
            t.wrong_blame_mean(**q, w=0.7),
            [("w=0", t.wrong_blame_mean(**q, w=0.0))],
        )
    )

    for node_model in (False, True):
        for spares in (0, 1, 2):
            x = t.pool_inputs(spares, 20, 600, node_model)
            wait = run(engine, x, seed=10 + spares)["lost_hours"][:, t.SPARE_WAIT]
            other = spares - 1 if spares > 0 else 1
            tag = "node model" if node_model else "today"
            rows.append(
                row(
                    f"4 pool S={spares} exp ({tag})",
                    "embedded chain, M=20",
                    wait,
                    t.spare_wait_exponential(spares, **t.POOL, m_events=20),
                    [(f"S={other} answer", t.spare_wait_exponential(other, **t.POOL, m_events=20))],
                )
            )
    for spares, m_events in ((1, 4), (2, 4)):
        x = t.pool_inputs(spares, m_events, 2000, True, repair_fixed=True)
        wait = run(engine, x, seed=30 + spares)["lost_hours"][:, t.SPARE_WAIT]
        rows.append(
            row(
                f"4 pool S={spares} fixed, M={m_events}",
                "E(R - Gamma)^+ / recursion",
                wait,
                t.spare_wait_fixed(spares, **t.POOL, m_events=m_events),
                [],
            )
        )

    e = t.ESCALATE
    for fixed in (False, True):
        out = run(engine, t.escalate_inputs(600, fixed, n_spares=0, max_events=20), seed=50)
        rows.append(
            row(
                f"5 escalation direct ({'fixed' if fixed else 'exp'})",
                "19 (d1 + p d2)",
                out["lost_hours"][:, t.SPARE_WAIT],
                19 * (e["d1"] + e["p"] * e["d2"]),
                [("p ignored", 19 * e["d1"])],
            )
        )
        x = t.escalate_inputs(600, fixed, n_spares=60, cap_hours=40.0)
        occ = run(engine, x, seed=51)["pool_occupancy"]
        rows.append(
            row(
                f"5 Little on pool ({'fixed' if fixed else 'exp'})",
                "S - (lam/T) int (T-v) P(D>v) dv",
                occ,
                t.pool_occupancy_exact(60, 0.5, 40.0, **e, fixed=fixed),
                [
                    (
                        "p ignored",
                        t.pool_occupancy_exact(60, 0.5, 40.0, e["d1"], e["d2"], 0.0, fixed),
                    ),
                    ("Little limit", 60 - 0.5 * (e["d1"] + e["p"] * e["d2"])),
                ],
            )
        )

    for spares, m_events in ((0, 20), (1, 2), (2, 2), (3, 2)):
        out = run(
            engine,
            t.blast_inputs(spares, m_events, 300 if m_events > 2 else 1000),
            seed=60 + spares,
        )
        wrong = t.BLAST["repair"] if spares == 0 else t.blast_wait(spares - 1, **t.BLAST)
        rows.append(
            row(
                f"6 blast d=4 S={spares}",
                "R sum_{i<d-S} 1/(d-i) per event",
                out["lost_hours"][:, t.SPARE_WAIT] / (m_events - 1),
                t.blast_wait(spares, **t.BLAST),
                [("S-1 / one node", wrong)],
            )
        )

    m = t.MEMORY
    for r in (1, 2):
        out = run(engine, t.memory_inputs(r), seed=80 + r)
        rows.append(
            row(
                f"7 memory r={r}: storage",
                "(W/tau) q^(r+1)/(1-q)",
                out["restarts_storage"],
                t.memory_split(r, **m)[1],
                [("r-1 answer", t.memory_split(r - 1, **m)[1])],
            )
        )
        rows.append(
            row(
                f"7 memory r={r}: memory",
                "(W/tau)(q-q^(r+1))/(1-q)",
                out["restarts_memory"],
                t.memory_split(r, **m)[0],
                [],
            )
        )

    print(f"engine: {engine}\n")
    print("| answer | formula | predicted | measured ± SE | z | negative controls (z) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    start = time.perf_counter()
    main(sys.argv[1] if len(sys.argv) > 1 else "reference")
    print(f"\n({time.perf_counter() - start:.0f} s)")
