"""What if restarts took 2 minutes instead of 10, and checkpoints came every 5 minutes, not 30?

Projects Llama 3 405B's fitted failure rates to a 100,000-GPU job under four policies and
prints the ETTR of each with its 90% band, and the gain over the baseline with its own band.

The gain is computed per trial, pairing trials that use the same posterior draw of the
failure rates (trial i uses draw i % n_draws under every policy), so its band reflects the
rate uncertainty and each job's own luck, not the difference of two separate bands.
Writes ``what_if.png`` (ETTR vs cluster size per policy) to the current directory.
"""

import dataclasses
import os

import numpy as np

import relmc
from relmc.plots import plot_ettr
from relmc.scenario import replace_path

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials and sizes, for tests
N_TRIALS = 256 if QUICK else 4000
SEED = 20240723  # one root seed for every policy: same draws, same block seeds
TARGET = 100_000  # GPUs

data = relmc.load_dataset("llama3-405b")
posterior = relmc.fit_conjugate(data, seed=1)
# the fit's categories and mean rates, plus its data's planned maintenance (47 in 54 days)
failures = relmc.FailureModel.from_posterior(posterior)
base = relmc.Scenario(failures=failures)  # 30-min checkpoints (1-min snapshot), 10-min restart

two_min_restart = replace_path(base, "policy.restart_hours", 2 / 60)
policies = {
    "baseline: ckpt 30 min, restart 10 min": base,
    "restart 2 min": two_min_restart,
    "ckpt every 5 min": dataclasses.replace(
        base, policy=dataclasses.replace(base.policy, checkpoint_interval=5 / 60)
    ),
    "both": replace_path(two_min_restart, "policy.checkpoint_interval", 5 / 60),
}

ettr = {}
for label, scenario in policies.items():
    at_target = replace_path(scenario, "cluster.n_gpus", TARGET)
    sim = relmc.simulate(at_target, rates=posterior, n_trials=N_TRIALS, seed=SEED)
    ettr[label] = sim["ettr"].values

print(
    f"ETTR at {TARGET:,} GPUs, 54-day job, {N_TRIALS} trials per policy "
    "(blocking snapshot 1 min per checkpoint throughout)"
)
print(f"{'policy':<40} {'ETTR median [5%, 95%]':>24} {'gain vs baseline [5%, 95%]':>28}")
baseline = ettr[next(iter(ettr))]
for label, e in ettr.items():
    lo, med, hi = np.quantile(e, [0.05, 0.5, 0.95])
    g_lo, g_med, g_hi = np.quantile(e - baseline, [0.05, 0.5, 0.95])
    print(
        f"{label:<40} {med:>9.3f} [{lo:.3f}, {hi:.3f}] {g_med:>+12.3f} [{g_lo:+.3f}, {g_hi:+.3f}]"
    )

sizes = [16_384, TARGET] if QUICK else [2048, 8192, 16_384, 32_768, 65_536, TARGET, 131_072]
projections = {
    label: relmc.project(posterior, n_gpus=sizes, scenario=sc, n_trials=N_TRIALS, seed=SEED)
    for label, sc in policies.items()
}
plot_ettr(projections, "what_if.png")
print("wrote what_if.png")
