"""What do time-varying failure rates, a diurnal throughput cycle and power swings cost?

Projects Llama 3 405B's fitted failure rates to 16,384 and 100,000 GPUs under seven scenarios
and prints, per scenario and size, the ETTR with its 90% band, the hours lost to the
throughput cycle (``slowdown``) and the job's synchronised power swings per day:

* ``constant``: today's homogeneous Poisson failures at constant speed (the baseline);
* ``diurnal rates``: every category's rate peaks mid-afternoon with amplitude 0.3. This is an
  ASSUMPTION for illustration: Llama 3 reports the temperature effect on throughput, not on
  failure rates;
* ``throughput 1.5%``: the job runs 1.5% faster and slower over the day, peaking at night
  (Llama 3: "a diurnal 1-2% throughput variation based on time-of-day", higher mid-day
  temperatures lowering GPU clocks);
* ``wear-out trend``: a power-law (Crow-AMSAA) trend of shape 1.2 for a fleet one year old
  at the job's start, an ASSUMED value to show the lever's size;
* ``stragglers``: a straggler category added to the fit (Llama 3: "a single straggler can
  slow down thousands of other GPUs", but no rate is published): one straggler a day per
  2,048 nodes, the job at half speed until it is found an hour later and the node swapped.
  All three numbers are ASSUMED;
* ``latent SDC``: Llama 3's 6 silent data corruptions in 54 days (its fitted rate) made
  latent: found 4 hours after they strike (ASSUMED), the job rolls back to the newest
  retained checkpoint taken before the corruption. Keeping the newest 12 (6 hours of
  half-hourly checkpoints) covers the latency and costs a few hours per corruption; keeping
  only 2 does not: every corruption then sends the job back to its start, so at 16,384 GPUs
  about a quarter of the jobs finish (their median ETTR near 0.13) and at 100,000 none do.
  Retention must outlast the detection latency.

The throughput cycle's ``slowdown`` averages to about zero: a job's nominal hours are at its
daily mean speed, so it gains at night what it loses by day (measured against its fastest
hour it would lose the amplitude, 1.5% of its run time). Power swings count every change
between computing and idling of the whole job, one step of ``N (P_busy - P_idle)`` each.

Trials are paired across scenarios (same root seed, trial ``i`` uses posterior draw
``i % n_draws``), so the gain column's band is the spread of per-trial differences.
"""

import dataclasses
import os

import numpy as np

import relmc
from relmc.scenario import replace_path

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials, for tests
N_TRIALS = 128 if QUICK else 2000
SEED = 20241129
SIZES = (16_384, 100_000)


def physics_scenarios(posterior) -> dict[str, relmc.Scenario]:
    """The seven scenarios above, on the fit's categories (paper/make_results.py uses them)."""
    failures = relmc.FailureModel.from_posterior(posterior)
    base = relmc.Scenario(failures=failures)
    diurnal = replace_path(base, "failures.categories.*.diurnal_amplitude", 0.3)
    diurnal = replace_path(diurnal, "failures.categories.*.diurnal_peak_hour", 15.0)
    scenarios = {
        "constant": base,
        "diurnal rates (a=0.3, assumed)": diurnal,
        "throughput 1.5% (Llama 3)": replace_path(
            replace_path(base, "job.throughput_amplitude", 0.015), "job.throughput_peak_hour", 3.0
        ),
        "wear-out trend (shape 1.2, assumed)": replace_path(base, "failures.trend_shape", 1.2),
    }
    straggler = relmc.Category(
        "Straggler",
        rate=1.0 / (24.0 * 2048),  # per node-hour: one a day on 2,048 nodes (assumed)
        unit="node",
        kind="straggler",
        straggler_speed=0.5,
        detection_hours=1.0,
        recovery="swap",
    )
    scenarios["stragglers (assumed rate)"] = dataclasses.replace(
        base,
        failures=dataclasses.replace(base.failures, categories=(*failures.categories, straggler)),
    )
    sdc = replace_path(base, "failures.categories.Silent Data Corruption.kind", "sdc")
    sdc = replace_path(sdc, "failures.categories.Silent Data Corruption.sdc_latency_hours", 4.0)
    for keep in (12, 2):
        scenarios[f"latent SDC (4 h, assumed), keep {keep}"] = replace_path(
            sdc, "policy.checkpoint_retention", keep
        )
    return scenarios


def main() -> None:
    data = relmc.load_dataset("llama3-405b")
    posterior = relmc.fit_conjugate(data, seed=1)
    scenarios = physics_scenarios(posterior)
    slowdown = relmc.sim.CAUSES.index("slowdown")
    print(f"54-day job, {N_TRIALS} paired trials per scenario; medians with [5%, 95%] bands")
    header = (
        f"{'scenario':<38} {'ETTR':>22} {'gain vs constant':>24} {'slowdown h':>11} "
        f"{'swings/day':>11}"
    )
    for n_gpus in SIZES:
        step = relmc.Cluster(n_gpus=n_gpus).power_step_mw
        print(f"\n{n_gpus:,} GPUs (power step {step:.1f} MW)")
        print(header)
        ettr = {}
        for label, scenario in scenarios.items():
            sized = replace_path(scenario, "cluster.n_gpus", n_gpus)
            sim = relmc.simulate(sized, rates=posterior, n_trials=N_TRIALS, seed=SEED)
            ettr[label] = sim["ettr"].values
            lost_slow = sim["lost_hours"].isel(cause=slowdown).values
            swings = sim["power_swings_per_day"].values
            lo, med, hi = np.quantile(ettr[label], [0.05, 0.5, 0.95])
            g_lo, g_med, g_hi = np.quantile(ettr[label] - ettr["constant"], [0.05, 0.5, 0.95])
            print(
                f"{label:<38} {med:>7.3f} [{lo:.3f}, {hi:.3f}] "
                f"{g_med:>+8.3f} [{g_lo:+.3f}, {g_hi:+.3f}] "
                f"{np.median(lost_slow):>11.2f} {np.median(swings):>11.1f}"
            )


if __name__ == "__main__":
    main()
