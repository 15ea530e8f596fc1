"""Round 2 scenarios compared (relmc vs indep.py): 7 edge regimes in the dict `SCEN`.

A remainder segment with persist = tau, SDC deferred with zero spares, a straggler with a long
detection, daily/weekly profiles on straggler and SDC categories, heavy maintenance with
throughput 0.9 and K = 1, zero overheads, and delta = 0 with persist. ``daily0`` is a 24-h
profile with zero hours (also used by ``fuzz.py``).

Used through ``run.py`` (fifth positional argument ``scenarios2``); run directly, it lists the
scenarios::

    python benchmarks/outside_physics/scenarios2.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep import cat, default_spec  # noqa: E402
from scenarios import profile168  # noqa: E402

daily0 = [0, 0, 0, 0, 0, 0, 2, 3, 1, 1, 0, 0, 0, 5, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0]

SCEN = {}
SCEN["remainder_persist_tau"] = default_spec(
    W=10.3,
    tau=0.7,
    delta=0.05,
    persist=0.7,
    R=0.2,
    b=0.9,
    h0=17.3,
    phi_s=3.0,
    K=2,
    maint_rate=0.2,
    maint_h=0.3,
    cats=[
        cat("slow", 0.4, kind="straggler", speed=0.1, detect=0.9),
        cat("sdc", 0.15, kind="sdc", sdc_L=1.0, detect=0.2),
        cat("crash", 0.3, detect=0.1, swap=True),
    ],
)
SCEN["remainder_persist_tau"]["swap_h"] = 0.1

SCEN["sdc_deferred_spares0"] = default_spec(
    W=15.0,
    delta=0.03,
    persist=0.1,
    R=0.3,
    n_spares=0,
    repair_h=1.0,
    swap_h=0.2,
    K=4,
    cats=[
        cat("sdc", 0.3, kind="sdc", sdc_L=0.3, detect=0.5, swap=True),
        cat("hw", 0.3, detect=2.0, swap=True),
        cat("slow", 0.3, kind="straggler", speed=0.5, detect=0.4, swap=True),
    ],
)

SCEN["straggler_long_D"] = default_spec(
    W=8.0,
    tau=0.5,
    delta=0.05,
    persist=0.2,
    R=0.5,
    maint_rate=0.1,
    maint_h=0.5,
    cats=[
        cat("slow", 0.4, kind="straggler", speed=0.02, detect=3.0),
        cat("crash", 0.2, detect=0.2),
    ],
)

SCEN["profiles_on_straggler_sdc"] = default_spec(
    W=30.0,
    tau=0.5,
    delta=0.03,
    persist=0.15,
    R=0.2,
    beta=0.5,
    A0=1.0,
    h0=23.5,
    start_day=6,
    K=3,
    cats=[
        cat("slow", 0.4, kind="straggler", speed=0.3, detect=0.6, profile=daily0),
        cat("sdc", 0.2, kind="sdc", sdc_L=0.9, sdc_exp=True, detect=0.1, profile=profile168(5)),
        cat("crash", 0.3, detect=0.3, amp=1.0, peak=6.0),
    ],
)

SCEN["maint_heavy_throughput_sdcK1"] = default_spec(
    W=15.0,
    delta=0.1,
    persist=0.4,
    R=0.1,
    b=0.9,
    h0=17.3,
    phi_s=11.0,
    K=1,
    maint_rate=0.5,
    maint_h=0.2,
    cats=[cat("sdc", 0.1, kind="sdc", sdc_L=0.6, sdc_exp=True, detect=0.05), cat("crash", 0.2)],
)

SCEN["zero_overheads"] = default_spec(
    W=10.0,
    tau=0.25,
    delta=0.02,
    persist=0.0,
    R=0.0,
    K=0,
    maint_rate=0.3,
    maint_h=0.0,
    cats=[
        cat("crash", 1.5),
        cat("slow", 0.5, kind="straggler", speed=0.5, detect=0.0),
        cat("sdc", 0.3, kind="sdc", sdc_L=0.0),
    ],
)

SCEN["delta0_persist_sdc"] = default_spec(
    W=12.0,
    tau=0.5,
    delta=0.0,
    persist=0.5,
    R=0.1,
    K=2,
    maint_rate=0.2,
    maint_h=0.2,
    cats=[
        cat("sdc", 0.2, kind="sdc", sdc_L=0.7, detect=0.1),
        cat("crash", 0.3, detect=0.1),
        cat("slow", 0.2, kind="straggler", speed=0.25, detect=0.5),
    ],
)

if __name__ == "__main__":
    for name, spec in SCEN.items():
        print(name, [(c["name"], c["kind"], c["rate"]) for c in spec["cats"]])
