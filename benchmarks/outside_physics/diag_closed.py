"""relmc alone: the mean diagnosis per event under a diagnosis spread, against its closed form.

With a per-draw diagnosis factor F (lognormal, median 1, 95th percentile 3, so sigma =
ln 3 / 1.645), the diagnosis per event has mean diag * exp(sigma^2 / 2). A restart-only node
category keeps the event count independent of F. relmc, 12 independent calls of 4,096 trials
(seeds 100-111; trials cycle over 4096 overhead draws); prints theory, relmc's mean per event,
its SE and z, and the median per event (theory: diag = 0.3). Recorded: z = 0.41.

    python benchmarks/outside_physics/diag_closed.py [--out DIR]

--out   folder for the log ``log_diag_closed.txt`` (default ``results/`` beside this script)
"""

import argparse
import math
import sys
from pathlib import Path

import numpy as np

import relmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep_nodes as inn  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402
from outlog import DEFAULT_OUT, log_to  # noqa: E402

Z95 = 1.6448536269514722

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="result folder")
    args = ap.parse_args()
    log_to(args.out, "log_diag_closed.txt")
    spec = node_spec(
        W=20.0,
        n_gpus=64,
        f=0.2,
        m=3.0,
        R=0.1,
        cap_factor=50.0,
        spreads=dict(diagnosis=3.0),
        cats=[ncat("hang", 0.4, detect=0.1, diag=0.3)],
    )
    sc = inn.build_relmc(spec)
    rows = []
    for j in range(12):
        ds = relmc.simulate(sc, n_trials=4096, seed=100 + j, n_threads=1)
        rows.append(
            (ds.lost_hours.sel(cause="diagnosis").values, ds.interruptions.sum("category").values)
        )
    d = np.concatenate([r[0] for r in rows])
    n = np.concatenate([r[1] for r in rows])
    ef = math.exp((math.log(3.0) / Z95) ** 2 / 2)
    per = d / np.maximum(n, 1)
    m = n > 0
    print(
        "E[F] theory",
        ef * 0.3,
        "relmc mean diag per event",
        per[m].mean(),
        "+-",
        per[m].std() / math.sqrt(m.sum()),
        "z",
        (per[m].mean() - ef * 0.3) / (per[m].std() / math.sqrt(m.sum())),
    )
    print("median per-event diag (theory 0.3)", np.median(per[m]))
