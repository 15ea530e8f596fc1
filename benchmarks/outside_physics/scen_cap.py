"""Named scenarios of the wall cap and max_events (most trials hit one or the other).

``SCEN`` maps a name to an ``indep2`` spec. Tight caps (cap_heavy, cap_pool, cap_maint,
cap_strag_sdc), both limits with time-varying rates (cap_ev5_tv), small event budgets (ev3,
ev10_strag_sdc), and targeted ones: the cap cutting maintenance checkpoints with persists in
flight (cap_mckpt, cap_mckpt_b under a throughput cycle) or straggler checkpoints
(cap_strag_ckpt), and max_events = 1 or 2 stopping on a failure, a straggler arrival, a
planned event or an SDC detection (ev1, ev1_strag, ev1_maint, ev2_sdc). A module of
scenarios, not a script::

    python benchmarks/outside_physics/run2.py all 20000 5000 1 scen_cap
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep2 import cat, default_spec  # noqa: E402

SCEN = dict(
    # heavy failures, tight cap: most trials stop at the cap
    cap_heavy=default_spec(
        W=10.0,
        cap_factor=1.3,
        persist=0.1,
        swap_h=0.2,
        cats=[cat("a", 0.8, detect=0.1, swap=True), cat("b", 0.5, detect=0.05)],
        maint_rate=0.1,
        maint_h=0.3,
    ),
    # cap 2.0, finite pool, long restarts (cap strikes in restarts and spare waits)
    cap_pool=default_spec(
        W=8.0,
        cap_factor=2.0,
        R=0.5,
        swap_h=0.3,
        n_spares=1,
        repair_h=6.0,
        cats=[cat("a", 0.6, detect=0.2, swap=True)],
        persist=0.2,
        tau=1.0,
    ),
    # cap with maintenance dominating (cap in maintenance checkpoints / downtime)
    cap_maint=default_spec(
        W=6.0,
        cap_factor=1.5,
        persist=0.25,
        delta=0.1,
        tau=0.5,
        maint_rate=1.0,
        maint_h=0.4,
        cats=[cat("a", 0.3, detect=0.1)],
    ),
    # max_events 3, no binding cap
    ev3=default_spec(
        W=20.0,
        max_events=3,
        persist=0.1,
        maint_rate=0.1,
        maint_h=0.5,
        cats=[cat("a", 0.2, detect=0.1, swap=True), cat("b", 0.1)],
    ),
    # max_events 10 with stragglers and SDC (event = straggler arrival, SDC detection)
    ev10_strag_sdc=default_spec(
        W=20.0,
        max_events=10,
        persist=0.1,
        K=2,
        cats=[
            cat("a", 0.3, detect=0.1),
            cat("s", 0.2, kind="straggler", detect=0.5, speed=0.3),
            cat("c", 0.1, kind="sdc", sdc_L=1.0, sdc_exp=True, detect=0.1),
        ],
    ),
    # both: cap 1.5 and max_events 5, diurnal + trend + throughput
    cap_ev5_tv=default_spec(
        W=10.0,
        cap_factor=1.5,
        max_events=5,
        b=0.5,
        h0=17.0,
        beta=0.5,
        A0=5.0,
        cats=[cat("a", 0.5, detect=0.1, amp=0.8, peak=3.0)],
        maint_rate=0.1,
        maint_h=0.3,
    ),
    # cap with straggler + SDC
    cap_strag_sdc=default_spec(
        W=10.0,
        cap_factor=1.4,
        persist=0.1,
        K=1,
        cats=[
            cat("a", 0.4, detect=0.1),
            cat("s", 0.3, kind="straggler", detect=0.7, speed=0.2),
            cat("c", 0.2, kind="sdc", sdc_L=0.8, detect=0.1),
        ],
    ),
)

SCEN.update(
    # targeted: the cap cuts maintenance checkpoints with long persists in flight
    cap_mckpt=default_spec(
        W=4.0,
        tau=1.0,
        persist=1.0,
        delta=0.05,
        R=0.0,
        maint_rate=2.0,
        maint_h=0.0,
        cap_factor=1.5,
        cats=[cat("a", 0.0)],
    ),
    # targeted: max_events = 1, the event a failure (mostly during compute)
    ev1=default_spec(W=20.0, max_events=1, delta=0.05, cats=[cat("a", 0.2, detect=0.1)]),
)

SCEN.update(
    # targeted: max_events = 1 and the event a straggler arrival / a planned event
    ev1_strag=default_spec(
        W=20.0,
        max_events=1,
        delta=0.05,
        persist=0.2,
        cats=[cat("s", 0.2, kind="straggler", detect=0.5, speed=0.3)],
    ),
    ev1_maint=default_spec(
        W=20.0,
        max_events=1,
        delta=0.05,
        persist=0.2,
        maint_rate=0.2,
        maint_h=0.5,
        cats=[cat("a", 0.0)],
    ),
    # targeted: max_events = 2 with SDC detections (the rollback is done, then the stop)
    ev2_sdc=default_spec(
        W=20.0,
        max_events=2,
        delta=0.05,
        persist=0.1,
        K=2,
        cats=[cat("c", 0.3, kind="sdc", sdc_L=1.0, detect=0.2), cat("a", 0.1, detect=0.1)],
    ),
)

SCEN.update(
    # the cut maintenance checkpoint under a throughput cycle (in-flight persists' speed)
    cap_mckpt_b=default_spec(
        W=4.0,
        tau=1.0,
        persist=1.0,
        delta=0.05,
        R=0.0,
        maint_rate=2.0,
        maint_h=0.0,
        cap_factor=1.5,
        b=0.8,
        h0=3.0,
        phi_s=9.0,
        cats=[cat("a", 0.0)],
    ),
    # the cap cuts straggler checkpoints (handled stragglers, long persists)
    cap_strag_ckpt=default_spec(
        W=4.0,
        tau=1.0,
        persist=0.8,
        delta=0.05,
        R=0.05,
        cap_factor=1.5,
        cats=[cat("s", 2.0, kind="straggler", detect=0.1, speed=0.5)],
    ),
)
