"""Figure: what time-varying rates, throughput, stragglers and latent SDC cost, paired gains."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402
from common import figure_args, output  # noqa: E402

args = figure_args(__doc__)
with xr.open_dataset(args.results / "physics.nc") as ds:
    ettr = ds["ettr"].load()
gain = ettr - ettr.sel(scenario="constant")  # per trial: the trials are paired
names = [str(s) for s in ettr["scenario"].values if s != "constant"]
sizes = [int(n) for n in ettr["n_gpus"].values]
q = np.quantile(gain.sel(scenario=names).values, [0.05, 0.25, 0.5, 0.75, 0.95], axis=-1)
LIMIT = -0.1  # gains below it are drawn at the edge, with their median written

fig, ax = plt.subplots(figsize=(8.5, 4.8), layout="constrained")
y = np.arange(len(names))
for j, (n, color, dy) in enumerate(zip(sizes, ("C0", "C3"), (-0.15, 0.15), strict=True)):
    lo, q1, med, q3, hi = (np.maximum(v[:, j], LIMIT) for v in q)
    ax.hlines(y + dy, lo, hi, color=color, lw=1)
    ax.hlines(y + dy, q1, q3, color=color, lw=4)
    ax.plot(med, y + dy, "o", color=color, ms=5, label=f"{n:,} GPUs")
    for i in np.flatnonzero(q[2][:, j] < LIMIT):
        ax.annotate(
            f"median {q[2][i, j]:+.2f} (off scale)",
            (LIMIT, y[i] + dy),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
            color=color,
        )
ax.axvline(0.0, color="0.4", lw=0.8)
ax.set_yticks(y, names)
ax.invert_yaxis()
ax.set_xlim(LIMIT - 0.005, None)
ax.set_xlabel("ETTR gain over constant rates and speed, per paired trial")
ax.set_title(
    f"54-day job on Llama 3's fitted rates, {ettr.sizes['trial']:,} trials "
    "(dot: median; bars: 50% and 90%)",
    fontsize="medium",
)
ax.grid(axis="x", alpha=0.3)
ax.legend(loc="upper left", fontsize="small")
with output(args.out, "physics.png") as tmp:
    fig.savefig(tmp, dpi=150, format="png")
