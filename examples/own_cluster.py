"""Your own cluster: interruption counts from a CSV -> posterior -> projection -> figure.

Run ``python examples/own_cluster.py [path/to/counts.csv]``; without an argument it uses the
illustrative ``my_cluster.csv`` beside this script (4,096 GPUs, 30 days; not real data).
Writes ``own_cluster.nc`` (the projection) and ``own_cluster.png`` to the current directory.
"""

import os
import sys
from pathlib import Path

import relmc
from relmc.plots import main_figure

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials and sizes, for tests
csv = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("my_cluster.csv")

# Counts observed on 4,096 GPUs over 30 days; exposure is computed from these two numbers.
data = relmc.load_counts(csv, n_gpus=4096, duration_hours=30 * 24.0, name="my-cluster")
posterior = relmc.fit_conjugate(data, seed=2024)

# Categories, units and groups come from the fit; a software hang is only seen when the
# NCCL watchdog fires (10 min here), which relmc cannot guess from a free-text name.
failures = relmc.FailureModel.from_posterior(
    posterior, detection_hours={"Software / NCCL hang": 10 / 60}
)
scenario = relmc.Scenario(failures=failures, job=relmc.Job(compute_hours=30 * 24.0))
sizes = [4096, 32768] if QUICK else [1024, 4096, 16384, 65536, 131072]
projection = relmc.project(
    posterior, n_gpus=sizes, scenario=scenario, n_trials=200 if QUICK else 2000, seed=7
)

print(
    f"{data.attrs['name']}: {int(data['count'].sum())} interruptions in {len(data.category)} "
    "categories; projection of a 30-day job (median [5%, 95%])"
)
for n in sizes:
    p = projection.sel(n_gpus=n)
    mttf, ettr = p["mttf_hours_quantile"].values, p["ettr_quantile"].values
    print(
        f"{n:>8,} GPUs: MTTF {mttf[2]:7.2f} h [{mttf[0]:.2f}, {mttf[4]:.2f}]   "
        f"ETTR {ettr[2]:.3f} [{ettr[0]:.3f}, {ettr[4]:.3f}]"
    )
projection.to_netcdf("own_cluster.nc")
main_figure(projection, posterior, "own_cluster.png")
print("wrote own_cluster.nc and own_cluster.png")
