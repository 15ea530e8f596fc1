"""Round 1 scenarios compared (relmc vs indep.py): 12 specs in the dict `SCEN`.

Diurnal rates with burn-in and wear-out trends, a weekly profile with zero hours and finite
spares, stragglers, SDC (fixed and exponential latency, K = 1, 2, 3), maintenance, background
persist, throughput amplitude up to 0.9, and everything at once. ``profile168`` builds the
weekly profile used here and by the other scripts.

Used by ``run.py`` (the default scenario module); run directly, it lists the scenarios::

    python benchmarks/outside_physics/scenarios.py
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep import cat, default_spec  # noqa: E402

H = 1 / 60


def profile168(seed=7):
    """Return a weekly profile with many zero hours and a few spikes."""
    rng = random.Random(seed)
    p = []
    for h in range(168):
        day, hod = divmod(h, 24)
        if day >= 5:  # weekend: mostly zero
            v = 0.0 if hod % 6 else 3.0
        elif 1 <= hod <= 4:  # nightly maintenance window: zero
            v = 0.0
        elif hod == 9:
            v = 8.0  # firmware push spike
        else:
            v = rng.choice([0.5, 1.0, 1.5])
        p.append(v)
    return p


SCEN = {}

# 1 diurnal (amplitude 1 and 0.6) + burn-in trend, long detections move the clocks; swaps
SCEN["diurnal_trend_burnin"] = default_spec(
    h0=17.3,
    beta=0.3,
    A0=2.0,
    swap_h=0.25,
    R=0.2,
    cats=[
        cat("gpu", 1.2, detect=1.5, swap=True, amp=1.0, peak=3.0),
        cat("sw", 0.6, detect=0.0, amp=0.6, peak=15.5),
    ],
)

# 2 diurnal + wear-out trend, fleet age small
SCEN["diurnal_trend_wearout"] = default_spec(
    W=16.0,
    h0=17.3,
    beta=4.0,
    A0=8.0,
    R=0.2,
    cats=[
        cat("gpu", 0.008, detect=0.5, swap=True, amp=1.0, peak=20.0),
        cat("net", 0.005, detect=1 / 6, amp=0.3, peak=8.0),
    ],
)

# 3 weekly profile with zeros + finite spares, starting Sunday 17:18 (wraps the week)
SCEN["profile_finite_spares"] = default_spec(
    W=60.0,
    tau=1.0,
    delta=2 * H,
    h0=17.3,
    start_day=6,
    n_spares=1,
    repair_h=8.0,
    swap_h=0.3,
    R=0.25,
    cats=[
        cat("hw", 0.25, detect=0.2, swap=True, profile=profile168()),
        cat("sw", 0.1, amp=0.8, peak=11.0),
    ],
)

# 4 stragglers + SDC + maintenance + persist
SCEN["straggler_sdc_maint_persist"] = default_spec(
    delta=0.05,
    persist=0.2,
    R=0.15,
    maint_rate=0.1,
    maint_h=0.5,
    K=2,
    cats=[
        cat("slow", 0.3, kind="straggler", speed=0.3, detect=0.7, swap=True),
        cat("sdc", 0.04, kind="sdc", sdc_L=1.2, detect=0.1),
        cat("crash", 0.2, detect=0.05),
    ],
)

# 5 throughput amplitude 0.9 + failures, persist
SCEN["throughput_0.9_failures"] = default_spec(
    b=0.9,
    phi_s=5.0,
    h0=17.3,
    persist=0.3,
    delta=0.05,
    R=0.3,
    maint_rate=0.05,
    maint_h=1.0,
    cats=[cat("a", 0.4, detect=0.3, swap=True), cat("b", 0.2, amp=0.5, peak=2.0)],
)
SCEN["throughput_0.9_failures"]["swap_h"] = 0.4

# 6 SDC exponential latency, K = 1
SCEN["sdc_exp_K1"] = default_spec(
    W=12.0,
    K=1,
    R=0.1,
    cats=[cat("sdc", 0.15, kind="sdc", sdc_L=0.8, sdc_exp=True, detect=0.2), cat("crash", 0.3)],
)

# 7 SDC exponential latency, K = 3, with swaps and persist
SCEN["sdc_exp_K3"] = default_spec(
    K=3,
    persist=0.25,
    delta=0.03,
    swap_h=0.2,
    cats=[
        cat("sdc", 0.3, kind="sdc", sdc_L=1.0, sdc_exp=True, detect=0.1, swap=True),
        cat("crash", 0.3, detect=0.2, swap=True),
    ],
)

# 8 burn-in trend with maintenance
SCEN["burnin_maint"] = default_spec(
    beta=0.3,
    A0=0.5,
    maint_rate=0.15,
    maint_h=0.7,
    persist=0.2,
    delta=0.05,
    cats=[cat("a", 3.0, detect=0.1), cat("b", 1.0, detect=0.4, swap=True)],
)
SCEN["burnin_maint"]["swap_h"] = 0.3

# 9 straggler arriving in restarts; handling in restarts; throughput cycle
SCEN["straggler_restart_throughput"] = default_spec(
    R=0.6,
    b=0.5,
    phi_s=14.0,
    h0=17.3,
    delta=0.05,
    persist=0.1,
    cats=[
        cat("slow", 0.5, kind="straggler", speed=0.2, detect=0.3, swap=True),
        cat("crash", 0.3, detect=0.1),
    ],
)
SCEN["straggler_restart_throughput"]["swap_h"] = 0.2

# 10 everything at once
SCEN["everything"] = default_spec(
    W=30.0,
    tau=0.5,
    delta=0.04,
    persist=0.2,
    R=0.2,
    swap_h=0.25,
    n_spares=2,
    repair_h=6.0,
    maint_rate=0.06,
    maint_h=0.6,
    beta=0.6,
    A0=3.0,
    h0=17.3,
    start_day=4,
    b=0.4,
    phi_s=9.0,
    K=3,
    cats=[
        cat("gpu", 0.3, detect=0.3, swap=True, amp=1.0, peak=2.0),
        cat("prof", 0.2, detect=0.1, profile=profile168(3)),
        cat("slow", 0.25, kind="straggler", speed=0.4, detect=0.8, swap=True, amp=0.5, peak=12),
        cat("sdc", 0.1, kind="sdc", sdc_L=1.5, sdc_exp=True, detect=0.2, swap=True),
    ],
)

# 11 SDC fixed latency > K intervals, K = 2, with maintenance (maintenance checkpoints retained)
SCEN["sdc_fixed_K2_maint"] = default_spec(
    K=2,
    delta=0.05,
    persist=0.1,
    maint_rate=0.2,
    maint_h=0.3,
    R=0.1,
    cats=[cat("sdc", 0.1, kind="sdc", sdc_L=1.3, detect=0.1), cat("crash", 0.2)],
)

# 12 straggler speed 0.02 (very slow), with diurnal straggler rate + wearout trend
SCEN["straggler_0.02_diurnal_trend"] = default_spec(
    h0=17.3,
    beta=2.0,
    A0=10.0,
    delta=0.02,
    persist=0.1,
    R=0.1,
    cats=[
        cat("slow", 0.3, kind="straggler", speed=0.02, detect=0.5, amp=1.0, peak=20.0),
        cat("crash", 0.1),
    ],
)

if __name__ == "__main__":
    for name, spec in SCEN.items():
        print(name, [(c["name"], c["kind"], c["rate"]) for c in spec["cats"]])
