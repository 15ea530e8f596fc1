"""Quickstart: fit the Llama 3 405B interruption counts, project 2k to 131k GPUs, plot."""

import os

import relmc
from relmc.plots import main_figure

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials and sizes, for tests

data = relmc.load_dataset("llama3-405b")  # 419 unexpected interruptions, 54 days, 16,384 GPUs
posterior = relmc.fit_conjugate(data, seed=1)  # Gamma-Poisson posterior per root-cause category
sizes = [2048, 16384, 131072] if QUICK else None  # None: 2,048 to 131,072 GPUs
projection = relmc.project(posterior, n_gpus=sizes, n_trials=200 if QUICK else 2000, seed=1)
median = projection.sel(quantile=0.5)
for n, mttf, ettr in zip(
    median.n_gpus.values,
    median.mttf_hours_quantile.values,
    median.ettr_quantile.values,
    strict=True,
):
    print(f"{n:>8,} GPUs: MTTF {mttf:6.2f} h, ETTR {ettr:.3f}")
main_figure(projection, posterior, "quickstart.png")
print("wrote quickstart.png")
