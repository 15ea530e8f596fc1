"""Make examples/event_log.csv: a SYNTHETIC event log from known parameters (not data).

The log is drawn by ``relmc.events.synthetic_events`` with the parameters below and the named
seed, so ``python examples/make_event_log.py [OUT.csv]`` rewrites the committed file byte for
byte (the tests check it). It
stands in for a real cluster's interruption log in ``examples/event_log.py``: a 16,384-GPU
fleet (2,048 nodes) watched for 60 days from 2024-03-01 00:00 local time, 2,000 h old at the
start and still burning in, with daily cycles and a few lemon nodes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from relmc.events import synthetic_events, write_events_csv

SEED = 20240301  # named seed: the file depends only on it and the parameters
START = "2024-03-01T00:00:00"
PARAMETERS = {
    "rate": {"GPU": 1.2e-5, "GPU memory": 6.0e-6, "Host": 4.0e-5},  # per unit-hour at the end
    "units": {"GPU": "gpu", "GPU memory": "gpu", "Host": "node"},
    "n_gpus": 16384,
    "duration_hours": 60 * 24.0,
    "start_hour": 0.0,
    "diurnal_amplitude": {"GPU": 0.2, "GPU memory": 0.5, "Host": 0.1},
    "diurnal_peak_hour": {"GPU": 15.0, "GPU memory": 16.0, "Host": 10.0},
    "trend_shape": 0.6,
    "fleet_age_at_start_hours": 2000.0,
    "bad_node_fraction": 0.03,
    "bad_node_multiplier": 12.0,
}
GROUPS = {"GPU": "GPU", "GPU memory": "GPU", "Host": "Host"}  # Llama 3 Table 5's groups
OUT = Path(__file__).resolve().parent / "event_log.csv"


def main(out: Path = OUT) -> None:
    events = synthetic_events(**PARAMETERS, seed=SEED)
    events["group"] = ("category", [GROUPS[c] for c in events["category"].values])
    write_events_csv(
        events,
        out,
        start=START,
        comments=[
            "SYNTHETIC event log (not data): one row per interruption, drawn by",
            f"relmc.events.synthetic_events with seed {SEED} (examples/make_event_log.py).",
            f"Window: {START} to 2024-04-30T00:00:00 local time; fleet: 16384 GPUs (2048 nodes).",
            f"{events.attrs['n_bad_nodes']} of 2048 nodes were drawn bad (lemons).",
            "Parameters: " + json.dumps(PARAMETERS),
        ],
    )
    print(f"wrote {out.name}: {int(events['count'].sum())} events")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
