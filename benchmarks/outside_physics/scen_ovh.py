"""Named scenarios of uncertain overheads (per-draw spreads, per-event jitter).

``SCEN`` maps a name to an ``indep2`` spec: jitter only (jit_all), the general path's spreads
(spr_all), both with stragglers and SDC (both_strag_sdc), both under a tight cap with a
finite pool and diurnal rates (both_cap_pool). A module of scenarios, not a script::

    python benchmarks/outside_physics/run2.py all 20480 5000 1 scen_ovh
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep2 import cat, default_spec  # noqa: E402

SCEN = dict(
    # jitter only (no per-draw factor): restart, swap, detection, maintenance
    jit_all=default_spec(
        W=20.0,
        persist=0.1,
        R=0.3,
        swap_h=0.4,
        maint_rate=0.1,
        maint_h=0.6,
        cats=[cat("a", 0.3, detect=0.2, swap=True), cat("b", 0.2, detect=0.1)],
        jitters=dict(restart=3.0, swap=2.0, detection=4.0, maintenance=2.5),
    ),
    # spreads only, all seven of the general path
    spr_all=default_spec(
        W=15.0,
        persist=0.15,
        delta=0.05,
        R=0.3,
        swap_h=0.4,
        maint_rate=0.1,
        maint_h=0.6,
        cats=[cat("a", 0.3, detect=0.2, swap=True), cat("b", 0.2, detect=0.1)],
        spreads=dict(
            snapshot=3.0, persist=2.0, restart=2.5, swap=2.0, detection=3.0, maintenance=2.0
        ),
    ),
    # both kinds, with straggler (jittered slow phase) and SDC (latency spread, exp latency)
    both_strag_sdc=default_spec(
        W=15.0,
        persist=0.1,
        R=0.25,
        K=2,
        cats=[
            cat("a", 0.3, detect=0.1),
            cat("s", 0.15, kind="straggler", detect=0.5, speed=0.3),
            cat("c", 0.1, kind="sdc", sdc_L=1.5, detect=0.1),
        ],
        spreads=dict(restart=2.0, detection=2.0, sdc_latency=3.0, persist=3.0),
        jitters=dict(restart=2.0, detection=3.0),
    ),
    # both kinds under a tight cap, finite pool, diurnal rates
    both_cap_pool=default_spec(
        W=10.0,
        cap_factor=1.6,
        R=0.3,
        swap_h=0.3,
        n_spares=1,
        repair_h=5.0,
        cats=[cat("a", 0.4, detect=0.2, swap=True, amp=0.7, peak=5.0)],
        h0=2.0,
        maint_rate=0.2,
        maint_h=0.5,
        spreads=dict(restart=2.0, swap=3.0, maintenance=2.0),
        jitters=dict(restart=2.0, swap=2.0, maintenance=3.0, detection=2.0),
    ),
)
