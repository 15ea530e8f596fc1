"""Comparing two sets of kernel outputs (kernel vs oracle, fast path vs general path).

Every per-trial quantity's mean must agree within ``z_max`` combined standard errors (4.5 by
default: about 7e-6 chance per comparison for two correct samplers, so a few dozen comparisons
per file stay below 1e-3), and wall time's distributions by a two-sample KS test (p >= 1e-4).
Also the golden digests' check (:func:`golden_changes`): outputs recomputed now against
digests a committed script wrote on an earlier commit.
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

from relmc.sim import CAUSES

Z_MAX = 4.5
KS_P_MIN = 1e-4
#: Outputs every path writes (the plain paths leave the node and SDC outputs to simulate_block).
TIMELINE = (
    "wall_hours",
    "finished",
    "progress_hours",
    "interruptions",
    "maintenance_events",
    "events",
    "lost_hours",
    "power_swings",
)


GOLDEN = Path(__file__).resolve().parent / "golden"


def golden_changes(name: str):
    """Recompute ``tests/golden/<name>.py``'s digests; return ``(changed, module)``.

    ``changed`` lists the (scenario, output) pairs whose digest differs from the one in
    ``<name>.json`` (written by the script on the commit its docstring names); the scenario
    sets must be the same. Digests the JSON lists under ``moved`` (outputs a later change
    moved on purpose, with its note) replace the first ones.
    """
    sys.path.insert(0, str(GOLDEN))
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(GOLDEN))
    data = json.loads((GOLDEN / f"{name}.json").read_text())
    gold = data["digests"]
    for s, moved in data.get("moved", {}).get("digests", {}).items():
        gold[s].update(moved)
    now = module.compute()
    assert gold.keys() == now.keys(), (sorted(gold), sorted(now))
    return [(s, v) for s in gold for v in gold[s] if gold[s][v] != now[s][v]], module


def quantities(out) -> dict[str, np.ndarray]:
    q = {
        "wall_hours": out["wall_hours"],
        "progress_hours": out["progress_hours"],
        "finished": out["finished"].astype(float),
        "maintenance_events": out["maintenance_events"].astype(float),
    }
    if "events" in out:
        q["events"] = out["events"].astype(float)
    if "power_swings" in out:  # every stop and start the grid sees (the oracle counts them too)
        q["power_swings"] = out["power_swings"].astype(float)
    for c in range(out["interruptions"].shape[1]):
        q[f"interruptions[{c}]"] = out["interruptions"][:, c].astype(float)
    for j, cause in enumerate(CAUSES):
        q[f"lost_{cause}"] = out["lost_hours"][:, j]
    return q


def mean_disagreement(name: str, a, b, z_max: float = Z_MAX) -> str | None:
    """Why the means of samples ``a`` and ``b`` disagree (``z_max`` combined SE), or None.

    Samples that are NaN in every trial on both sides (an output that does not apply) agree.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if np.isnan(a).all() and np.isnan(b).all():
        return None
    if np.isnan(a).any() or np.isnan(b).any():
        return f"{name}: NaN in one sample only"
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    diff = abs(a.mean() - b.mean())
    if se == 0:
        if diff > 1e-9 * max(1.0, abs(a.mean())):
            return f"{name}: {a.mean()} vs {b.mean()} (no spread)"
    elif diff / se > z_max:
        return f"{name}: {a.mean():.5g} vs {b.mean():.5g}, z={diff / se:.1f}"
    return None


def disagreements(a_out, b_out, z_max: float = Z_MAX) -> list[str]:
    """Quantities whose means (Z_MAX combined SE) or wall-time distributions (KS) disagree."""
    bad = []
    qa, qb = quantities(a_out), quantities(b_out)
    for name in qa.keys() & qb.keys():  # the oracle reports no "events"
        found = mean_disagreement(name, qa[name], qb[name], z_max)
        if found:
            bad.append(found)
    # failure-free trials end at the same atom, reached by different float sums: round
    wa, wb = np.round(a_out["wall_hours"], 9), np.round(b_out["wall_hours"], 9)
    if np.ptp(wa) > 0 or np.ptp(wb) > 0:
        # the asymptotic p-value (hundreds of trials or more): scipy's exact one fails, with a
        # warning, on samples with many ties (trials that end on the same atom)
        p = stats.ks_2samp(wa, wb, method="asymp").pvalue
        if p < KS_P_MIN:
            bad.append(f"wall_hours KS p={p:.2g}")
    return bad
