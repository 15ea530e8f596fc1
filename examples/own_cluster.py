"""Your own cluster: interruption counts from a CSV -> posterior -> projection -> figure.

    python examples/own_cluster.py [COUNTS.csv [N_GPUS DAYS]]

Without arguments it uses the illustrative ``my_cluster.csv`` beside this script (4,096 GPUs,
30 days; not real data). For your own counts give the CSV (columns ``category``, ``count``,
``unit``, optionally ``group``, ``exposure``, ``recovery``, ``detection_minutes``: see
``relmc.load_counts``) and the size and window they were observed on; set ``SHAPE`` below to
your cluster's packing (it counts your nodes and racks, and the fit records it for the
projection) and ``DETECTION_MINUTES`` to the categories your monitoring sees late.
Writes ``own_cluster.nc`` (the projection) and ``own_cluster.png`` to the current directory.
"""

import os
import sys
from pathlib import Path

import relmc
from relmc.cluster import ClusterShape, shape_attrs
from relmc.plots import main_figure

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials and sizes, for tests
HERE = Path(__file__).with_name("my_cluster.csv")
csv = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
N_GPUS = int(sys.argv[2]) if len(sys.argv) > 2 else 4096  # the cluster the counts come from
DAYS = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0  # ... and the window, in days
SHAPE = ClusterShape(gpus_per_node=8, nodes_per_rack=2)  # your servers and racks
# Categories seen only when a watchdog fires, minutes; relmc cannot guess this from a
# free-text name (a category your CSV lacks is skipped; a detection_minutes column wins).
DETECTION_MINUTES = {"Software / NCCL hang": 10.0}

# Exposure from the size, window and shape (unit-hours of each row's unit), unless the CSV
# has an exposure column; relmc warns if that column disagrees with them.
data = relmc.load_counts(
    csv, n_gpus=N_GPUS, duration_hours=DAYS * 24.0, shape=SHAPE, name=csv.stem.replace("_", "-")
)
posterior = relmc.fit_conjugate(data, seed=2024)

# Categories, units and groups come from the fit; the cluster is packed as the observed one
# (the fit records SHAPE, and relmc warns of a scenario packed otherwise).
names = [str(c) for c in data["category"].values]
detection = {c: m / 60.0 for c, m in DETECTION_MINUTES.items() if c in names}
scenario = relmc.Scenario(
    cluster=relmc.Cluster(**shape_attrs(SHAPE)),
    failures=relmc.FailureModel.from_posterior(posterior, detection_hours=detection),
    job=relmc.Job(compute_hours=DAYS * 24.0),
)
sizes = [N_GPUS, 8 * N_GPUS] if QUICK else [N_GPUS // 4, N_GPUS, 4 * N_GPUS, 16 * N_GPUS]
projection = relmc.project(
    posterior, n_gpus=sizes, scenario=scenario, n_trials=200 if QUICK else 2000, seed=7
)

print(
    f"{data.attrs['name']}: {int(data['count'].sum())} interruptions in {len(data.category)} "
    f"categories on {N_GPUS:,} GPUs over {DAYS:g} days; projection of a {DAYS:g}-day job "
    "(median [5%, 95%])"
)
for n in projection["n_gpus"].values:
    p = projection.sel(n_gpus=n)
    mttf, ettr = p["mttf_hours_quantile"].values, p["ettr_quantile"].values
    print(
        f"{n:>8,} GPUs: MTTF {mttf[2]:7.2f} h [{mttf[0]:.2f}, {mttf[4]:.2f}]   "
        f"ETTR {ettr[2]:.3f} [{ettr[0]:.3f}, {ettr[4]:.3f}]"
    )
projection.to_netcdf("own_cluster.nc")
main_figure(projection, posterior, "own_cluster.png")
print("wrote own_cluster.nc and own_cluster.png")
