"""Fit an event log (one row per interruption) and project with its diurnal, trend and lemon
parameters.

    python examples/event_log.py [LOG.csv]

Default log: examples/event_log.csv, SYNTHETIC (made by examples/make_event_log.py from known
parameters, so you can see what the fit recovers). For your own log, change N_GPUS, START, END
and FLEET_AGE_AT_START_HOURS below to your fleet and window.

Steps: load and validate the log; fit a homogeneous model (constant rates, every node alike)
and the full one (a daily cycle per category, a fleet-level power-law trend, lemon nodes);
compare them by PSIS-LOO; project ETTR at three sizes with the full posterior: its rates,
diurnal terms, trend and lemon parameters all per posterior draw, so their uncertainty
reaches the bands (the medians are printed for the report).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np

import relmc
from relmc.models import ConvergenceWarning, compare_event_models, fit_events
from relmc.rates import physics_draws, with_posterior_physics

HERE = Path(__file__).resolve().parent
N_GPUS = 16384  # the fleet observed, all in service for the whole window
START, END = "2024-03-01T00:00:00", "2024-04-30T00:00:00"  # local time of the data centre
FLEET_AGE_AT_START_HOURS = 2000.0  # hours the fleet had been in service at START
QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # the tests run a short version
FIT = {"n_draws": 300, "n_tune": 400, "n_chains": 2} if QUICK else {"n_draws": 1000, "n_tune": 1000}
N_TRIALS = 200 if QUICK else 2000
SIZES = [4096, 16384, 65536]


def q(da, probs=(0.05, 0.5, 0.95)):
    return np.quantile(np.asarray(da).ravel(), probs)


def main(path: Path) -> None:
    events = relmc.load_events(
        path,
        n_gpus=N_GPUS,
        start=START,
        end=END,
        fleet_age_at_start_hours=FLEET_AGE_AT_START_HOURS,
    )
    counts = ", ".join(
        f"{c} {int(n)}"
        for c, n in zip(events["category"].values, events["count"].values, strict=True)
    )
    print(
        f"{path.name}: {int(events['count'].sum())} interruptions over "
        f"{events.attrs['duration_hours']:.0f} h on {events.attrs['n_nodes']} nodes ({counts})"
    )

    with warnings.catch_warnings():
        # short quick-mode chains may miss r_hat/ESS targets; a real run should heed them
        if QUICK:
            warnings.simplefilter("ignore", ConvergenceWarning)
        homogeneous = fit_events(events, seed=1, **FIT)
        full = fit_events(events, diurnal="category", trend=True, nodes="mixture", seed=2, **FIT)
    table = compare_event_models({"full": full, "homogeneous": homogeneous})
    diff, dse = table.loc["homogeneous", "elpd_diff"], table.loc["homogeneous", "dse"]
    print(f"LOO prefers: {table.index[0]} (elpd difference {diff:.1f}, SE {dse:.1f})")

    post = full.posterior
    print("full model, posterior median [90% interval]:")
    for c in post["category"].values:
        r = q(post["rate"].sel(category=c) * 1e6)
        a = q(post["diurnal_amplitude"].sel(category=c))
        peak = post["diurnal_peak_hour"].sel(category=c).values.ravel()
        centre = np.angle(np.exp(2j * np.pi * peak / 24).mean()) * 24 / (2 * np.pi) % 24
        print(
            f"  {c:<11} rate {r[1]:7.1f} [{r[0]:.1f}, {r[2]:.1f}] per 1e6 "
            f"{post['unit'].sel(category=c).item()}-h at the end; diurnal amplitude "
            f"{a[1]:.2f} [{a[0]:.2f}, {a[2]:.2f}], peak near {centre:4.1f} h"
        )
    b, f, m = (
        q(post["trend_shape"]),
        q(post["bad_node_fraction"]),
        q(post["bad_node_multiplier"].isel(category=0)),
    )
    print(
        f"  trend shape {b[1]:.2f} [{b[0]:.2f}, {b[2]:.2f}] (< 1: burn-in), fleet "
        f"{post.attrs['fleet_age_hours']:.0f} h old at the log's end"
    )
    print(
        f"  lemon nodes: fraction {f[1]:.3f} [{f[0]:.3f}, {f[2]:.3f}], "
        f"multiplier {m[1]:.1f} [{m[0]:.1f}, {m[2]:.1f}]"
    )
    share = (post["bad_node_fraction"] * post["bad_node_multiplier"].isel(category=0)) / (
        1
        - post["bad_node_fraction"]
        + post["bad_node_fraction"] * post["bad_node_multiplier"].isel(category=0)
    )
    s = q(share)
    print(
        f"  -> {100 * s[1]:.0f}% [{100 * s[0]:.0f}, {100 * s[2]:.0f}] of node failures "
        "strike a lemon"
    )

    # the scenario: categories from the posterior; simulate/project take the rates and the
    # physics (diurnal terms, trend, lemons) per posterior draw from the posterior itself
    scenario = relmc.Scenario(failures=relmc.FailureModel.from_posterior(full))
    point = with_posterior_physics(scenario, full).failures  # medians, for the report only
    print(
        f"projection: rates, diurnal terms, trend and lemons per posterior draw "
        f"({len(physics_draws(scenario, full).trend_shape)} draws); medians: trend shape "
        f"{point.trend_shape:.2f} from a fleet {point.fleet_age_hours:.0f} h old, "
        f"lemon fraction {point.bad_node_fraction:.3f}"
    )
    proj = relmc.project(full, scenario=scenario, n_gpus=SIZES, n_trials=N_TRIALS, seed=3)
    flat = relmc.project(
        homogeneous,
        scenario=relmc.Scenario(failures=relmc.FailureModel.from_posterior(homogeneous)),
        n_gpus=SIZES,
        n_trials=N_TRIALS,
        seed=3,
    )
    for n in SIZES:
        e = proj["ettr_quantile"].sel(n_gpus=n, quantile=[0.05, 0.5, 0.95]).values
        h = flat["ettr_quantile"].sel(n_gpus=n, quantile=0.5).item()
        print(
            f"  {n:>7,} GPUs: ETTR {e[1]:.3f} [{e[0]:.3f}, {e[2]:.3f}] (homogeneous fit: {h:.3f})"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "event_log.csv")
