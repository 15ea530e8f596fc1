"""Table: ETTR at 100,000 GPUs per policy, and the paired gain over the baseline (Markdown)."""

import numpy as np
import xarray as xr
from common import LABELS, figure_args, output

args = figure_args(__doc__)
with xr.open_dataset(args.results / "what_if_100k.nc") as ds:
    ettr = ds["ettr"].load()
base = ettr.sel(policy="baseline").values
lines = [
    f"ETTR of a 54-day job at {ds.attrs['n_gpus']:,} GPUs, {ettr.sizes['trial']:,} trials per "
    "policy; median [5%, 95%]; gain paired by posterior draw.",
    "",
    "| policy | ETTR | gain vs baseline |",
    "|---|---|---|",
]
for name in ettr["policy"].values:
    e = ettr.sel(policy=name).values
    lo, med, hi = np.quantile(e, [0.05, 0.5, 0.95])
    glo, gmed, ghi = np.quantile(e - base, [0.05, 0.5, 0.95])
    lines.append(
        f"| {LABELS[str(name)]} | {med:.3f} [{lo:.3f}, {hi:.3f}] "
        f"| {gmed:+.3f} [{glo:+.3f}, {ghi:+.3f}] |"
    )
text = "\n".join(lines) + "\n"
with output(args.out, "what_if_100k.md") as tmp:
    tmp.write_text(text)
    print(text, end="")
