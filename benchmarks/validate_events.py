"""Recovery of the event-log model's parameters: coverage of 90% intervals (not run in CI).

Each replication draws a synthetic event log from known parameters
(``relmc.events.synthetic_events``: per-node inhomogeneous Poisson processes by thinning, with
lemon nodes), fits the full model (``fit_events(diurnal="category", trend=True,
nodes="mixture")``) and records whether the central 90% posterior interval of each parameter
covers the truth. A calibrated posterior covers each parameter in about 90% of replications;
with ``R`` replications the count is Binomial(R, 0.9) and must lie in its central 99% range
(for R = 100: 82 to 97), the stated tolerance, for each parameter separately.

Negative control: the homogeneous model (``fit_events(events)``: constant rates, no diurnal
terms, no lemons) fitted to the same logs. Its ``rate`` is the window's mean rate, but the logs
have a strong burn-in trend, so it must miss the rate at the window's end: its coverage must
fall below the tolerance's lower end. LOO (``compare_event_models``) must prefer the full model.

The peak hour is circular: its interval is taken on the draws' signed distance to the truth,
wrapped into [-12, 12) h.

Results are appended to a JSON-lines file (one line per replication; a rerun skips the
replications already there), then summarised as a Markdown table.

Usage: ``PYTHONPATH=. python benchmarks/validate_events.py [--reps 100] [--seed 20240713]
[--design clear|pooled|frailty|weak] [--out FILE.jsonl]`` (designs: :data:`DESIGNS`).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

from relmc._seed import child_seed
from relmc.events import synthetic_events
from relmc.models import ConvergenceWarning, compare_event_models, fit_events

#: The truth: a 4,096-GPU fleet (512 nodes) observed for 60 days, young (300 h old at the
#: start) and burning in (beta 0.5: the rate falls to 1/2.4 of its start value by the end),
#: two categories with different units, daily cycles and peaks, 4% lemons failing 8x as often.
TRUTH = {
    "rate": {"GPU": 1.0e-4, "Host": 4.0e-4},  # per unit-hour at the window's end
    "units": {"GPU": "gpu", "Host": "node"},
    "n_gpus": 4096,
    "duration_hours": 1440.0,
    "start_hour": 0.0,
    "diurnal_amplitude": {"GPU": 0.5, "Host": 0.3},
    "diurnal_peak_hour": {"GPU": 15.0, "Host": 4.0},
    "trend_shape": 0.5,
    "fleet_age_at_start_hours": 300.0,
    "bad_node_fraction": 0.04,
    "bad_node_multiplier": 8.0,
}
LEVEL = 0.90
SAMPLING = {"n_draws": 500, "n_tune": 500, "n_chains": 2, "cores": 1}

#: Designs beyond the clear one above: (truth changes, the full model's options). ``pooled``:
#: one daily cycle for both categories, fitted pooled; ``frailty``: no lemons, a gamma
#: frailty of variance 0.5 per node, fitted as such; ``weak``: signals near the boundaries
#: (amplitudes 0.1 and 0.05, trend shape 0.9, 1% lemons failing 4x as often), where the
#: posteriors lean on the priors; ``young``: the clear design in a fleet 2 h old at the
#: window's start (the trend's integral with a daily cycle in its first week is
#: ``shape_integral``'s power series and quadrature, not integration by parts).
DESIGNS = {
    "clear": ({}, {"diurnal": "category", "trend": True, "nodes": "mixture"}),
    "pooled": (
        {
            "diurnal_amplitude": {"GPU": 0.4, "Host": 0.4},
            "diurnal_peak_hour": {"GPU": 14.0, "Host": 14.0},
        },
        {"diurnal": "pooled", "trend": True, "nodes": "mixture"},
    ),
    "frailty": (
        {"bad_node_fraction": 0.0, "bad_node_multiplier": 1.0, "frailty_variance": 0.5},
        {"diurnal": "category", "trend": True, "nodes": "frailty"},
    ),
    "weak": (
        {
            "diurnal_amplitude": {"GPU": 0.1, "Host": 0.05},
            "trend_shape": 0.9,
            "bad_node_fraction": 0.01,
            "bad_node_multiplier": 4.0,
        },
        {"diurnal": "category", "trend": True, "nodes": "mixture"},
    ),
    "young": (
        {"fleet_age_at_start_hours": 2.0},
        {"diurnal": "category", "trend": True, "nodes": "mixture"},
    ),
}


def parameters(fit):
    """(name, draws, truth, circular) for each checked parameter of a fit."""
    post = fit.posterior
    out = []
    for c in ("GPU", "Host"):
        out.append((f"rate[{c}]", post["rate"].sel(category=c).values.ravel(), TRUTH["rate"][c], 0))
    if "diurnal_amplitude" in post and POOLED[0]:
        for var, circ in (("diurnal_amplitude", 0), ("diurnal_peak_hour", 1)):
            out.append((var, post[var].isel(category=0).values.ravel(), TRUTH[var]["GPU"], circ))
    elif "diurnal_amplitude" in post:
        for c in ("GPU", "Host"):
            out.append(
                (
                    f"diurnal_amplitude[{c}]",
                    post["diurnal_amplitude"].sel(category=c).values.ravel(),
                    TRUTH["diurnal_amplitude"][c],
                    0,
                )
            )
            out.append(
                (
                    f"diurnal_peak_hour[{c}]",
                    post["diurnal_peak_hour"].sel(category=c).values.ravel(),
                    TRUTH["diurnal_peak_hour"][c],
                    1,
                )
            )
    if "trend_shape" in post:
        out.append(("trend_shape", post["trend_shape"].values.ravel(), TRUTH["trend_shape"], 0))
    if "frailty_variance" in post:
        out.append(
            (
                "frailty_variance",
                post["frailty_variance"].values.ravel(),
                TRUTH["frailty_variance"],
                0,
            )
        )
    if "bad_node_fraction" in post:
        out.append(
            (
                "bad_node_fraction",
                post["bad_node_fraction"].values.ravel(),
                TRUTH["bad_node_fraction"],
                0,
            )
        )
        out.append(
            (
                "bad_node_multiplier",
                post["bad_node_multiplier"].isel(category=0).values.ravel(),
                TRUTH["bad_node_multiplier"],
                0,
            )
        )
    return out


def covered(draws, truth, circular):
    """Whether the central LEVEL interval of the draws covers the truth."""
    if circular:
        draws = np.mod(draws - truth + 12.0, 24.0) - 12.0
        truth = 0.0
    lo, hi = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return bool(lo <= truth <= hi)


def replication(rep, root):
    events = synthetic_events(**TRUTH, seed=child_seed(root, rep, 0))
    seed = child_seed(root, rep, 1)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        full = fit_events(events, seed=seed, **MODEL, **SAMPLING)
        t1 = time.perf_counter()
        hom = fit_events(events, seed=seed, **SAMPLING)
    t2 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pareto-k notes are counted from the table instead
        table = compare_event_models({"full": full, "homogeneous": hom})
    row = {
        "rep": rep,
        "events": int(events["count"].sum()),
        "bad_nodes": int(events.attrs["n_bad_nodes"]),
        "full": {n: covered(d, t, c) for n, d, t, c in parameters(full)},
        "homogeneous": {n: covered(d, t, c) for n, d, t, c in parameters(hom)},
        "medians": {n: float(np.median(d)) for n, d, t, c in parameters(full)},
        "loo_best": str(table.index[0]),
        "loo_diff": float(table.loc["homogeneous", "elpd_diff"]),
        "loo_dse": float(table.loc["homogeneous", "dse"]),
        "loo_warning": bool(table["warning"].any()),
        "divergences": int(full.sample_stats["diverging"].sum()),
        "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning) for w in caught),
        "seconds_full": round(t1 - t0, 1),
        "seconds_homogeneous": round(t2 - t1, 1),
    }
    return row


def binomial_range(n, p=LEVEL, mass=0.99):
    """Central ``mass`` range [lo, hi] of Binomial(n, p): P(X < lo) and P(X > hi) each <= tail."""
    tail = (1 - mass) / 2
    x = np.arange(n + 1)
    lo = int(x[stats.binom.cdf(x - 1, n, p) <= tail].max())
    hi = int(x[stats.binom.sf(x, n, p) <= tail].min())
    return lo, hi


def summarise(rows):
    n = len(rows)
    lo, hi = binomial_range(n)
    lines = [
        f"{n} replications; tolerance: covered count in [{lo}, {hi}] (central 99% of "
        f"Binomial({n}, {LEVEL}))",
        "",
        "| parameter | truth | full model: covered | coverage | in tolerance "
        "| homogeneous: covered |",
        "|---|---|---|---|---|---|",
    ]
    names = list(rows[0]["full"])
    ok_all = True
    for name in names:
        k = sum(r["full"][name] for r in rows)
        hom = [r["homogeneous"][name] for r in rows if name in r["homogeneous"]]
        ok = lo <= k <= hi
        ok_all &= ok
        truth = _truth(name)
        hom_text = f"{sum(hom)}/{len(hom)}" if hom else "(not in model)"
        lines.append(
            f"| {name} | {truth:g} | {k}/{n} | {k / n:.2f} | {'yes' if ok else 'NO'} | {hom_text} |"
        )
    hom_under = all(
        sum(r["homogeneous"][name] for r in rows) < lo for name in rows[0]["homogeneous"]
    )
    best = sum(r["loo_best"] == "full" for r in rows)
    z = [r["loo_diff"] / r["loo_dse"] for r in rows if r["loo_dse"] > 0]
    div = sum(r["divergences"] for r in rows)
    conv = sum(r["convergence_warnings"] > 0 for r in rows)
    secs = [r["seconds_full"] for r in rows]
    lines += [
        "",
        f"Every full-model parameter within tolerance: {'yes' if ok_all else 'NO'}.",
        "Negative control (homogeneous model) under-covers every rate: "
        f"{'yes' if hom_under else 'NO'}.",
        f"LOO prefers the full model in {best}/{n} replications; elpd difference / its SE: "
        f"median {np.median(z):.1f}, min {np.min(z):.1f}.",
        f"Events per log: median {int(np.median([r['events'] for r in rows]))}; bad nodes drawn: "
        f"median {int(np.median([r['bad_nodes'] for r in rows]))} of 512.",
        f"Full fits: {div} divergent transitions in all; {conv} fits warned "
        "(r_hat/ESS/divergence); "
        f"median {np.median(secs):.0f} s per fit (2 chains x (500 tune + 500 draws), 1 core).",
    ]
    return "\n".join(lines), ok_all and hom_under


def _truth(name):
    if name.startswith("rate["):
        return TRUTH["rate"][name[5:-1]]
    if "[" in name:
        key, cat = name[:-1].split("[")
        return TRUTH[key][cat]
    value = TRUTH[name]
    return value["GPU"] if isinstance(value, dict) else value  # a pooled pair


MODEL: dict = {}
POOLED = [False]


def use_design(name):
    """Set TRUTH, the full model's options and POOLED for design ``name``."""
    changes, model = DESIGNS[name]
    TRUTH.update(changes)
    MODEL.clear()
    MODEL.update(model)
    POOLED[0] = model["diurnal"] == "pooled"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20240713)
    ap.add_argument("--design", choices=sorted(DESIGNS), default="clear")
    ap.add_argument("--out", help="default benchmarks/validate_events[_DESIGN].jsonl")
    args = ap.parse_args()
    use_design(args.design)
    suffix = "" if args.design == "clear" else f"_{args.design}"
    out = Path(args.out or f"benchmarks/validate_events{suffix}.jsonl")
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[row["rep"]] = row
    root = np.random.SeedSequence(args.seed)
    t0 = time.perf_counter()
    for rep in range(args.reps):
        if rep in done:
            continue
        row = replication(rep, root)
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        done[rep] = row
        k = sum(all(r["full"].values()) for r in done.values())
        print(
            f"rep {rep}: {row['events']} events, full fit {row['seconds_full']} s, all covered "
            f"so far in {k}/{len(done)}; {time.perf_counter() - t0:.0f} s",
            flush=True,
        )
    rows = [done[r] for r in sorted(done) if r < args.reps]
    text, ok = summarise(rows)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
