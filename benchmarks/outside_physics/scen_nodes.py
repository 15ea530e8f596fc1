"""Named scenarios of the node model (8 nodes of 8 GPUs, or 4 in ``dry``).

``SCEN`` maps a name to an ``indep_nodes.node_spec``: lemons shed (lemon_shed), lemon
detection with wrong blame, diagnosis, a finite pool, standbys and preemption
(lemon_detect), blast radius with escalation, misses and retirement (blast), standbys with an
unlimited pool (standby_unl), a pool that runs dry (dry), node-model overhead spreads and
jitter (node_ovh), max_events with a tight cap (node_ev4), restarts from memory (mem, mem2,
mem3) and time-varying node categories (node_tv). A module of scenarios, not a script::

    python benchmarks/outside_physics/run_nodes.py all 20000 5000 1 scen_nodes
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep_nodes import ncat, node_spec  # noqa: E402

SCEN = dict(
    # lemons (f=0.3, m=6), unlimited pool, one swap category; rates fall as lemons are shed
    lemon_shed=node_spec(
        W=30.0,
        n_gpus=64,
        f=0.3,
        m=6.0,
        swap_h=0.2,
        cats=[ncat("hw", 0.3, detect=0.1, swap=True), ncat("sw", 0.2, detect=0.05, mult=1.0)],
    ),
    # lemon detection k=2 in 20 h window, wrong blame 0.3, diagnosis, finite pool 3, standbys 1,
    # preemption; restart-only node category recorded too
    lemon_detect=node_spec(
        W=30.0,
        n_gpus=64,
        f=0.3,
        m=8.0,
        swap_h=0.2,
        n_spares=3,
        repair_h=10.0,
        n_standbys=1,
        preempt_h=0.3,
        lemon_k=2,
        lemon_win=20.0,
        cap_factor=4.0,
        cats=[
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.2, wrong=0.3),
            ncat("hang", 0.2, detect=0.3, diag=0.1, wrong=0.2),
        ],
    ),
    # blast radius (rack of 2, pod of 4), standbys 2, pool 2, escalation + misses + retirement
    blast=node_spec(
        W=20.0,
        n_gpus=64,
        f=0.2,
        m=4.0,
        swap_h=0.3,
        n_spares=2,
        repair_h=4.0,
        n_standbys=2,
        preempt_h=0.2,
        nodes_per_rack=2,
        gpus_per_pod=32,
        escalate=0.3,
        manual_h=12.0,
        auto_miss=0.3,
        manual_miss=0.1,
        retire_after=3,
        cap_factor=5.0,
        cats=[
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1),
            ncat("rack", 0.08, detect=0.1, domain="rack", diag=0.2),
            ncat("pod", 0.04, detect=0.2, domain="pod"),
        ],
    ),
)

SCEN.update(
    # unlimited pool with standbys: standbys always refilled (no preemption or swap charged)
    standby_unl=node_spec(
        W=25.0,
        n_gpus=64,
        f=0.2,
        m=5.0,
        swap_h=0.3,
        n_standbys=2,
        preempt_h=0.5,
        lemon_k=3,
        lemon_win=50.0,
        cats=[ncat("hw", 0.4, detect=0.1, swap=True, diag=0.1, wrong=0.1)],
    ),
    # pool runs dry: 1 spare, fixed 3 h repairs, retirement at the 2nd send, lemon k=2,
    # jittered swap and detection, cap 3
    dry=node_spec(
        W=15.0,
        n_gpus=32,
        f=0.3,
        m=5.0,
        swap_h=0.2,
        n_spares=1,
        repair_h=3.0,
        repair_fixed=True,
        retire_after=2,
        lemon_k=2,
        lemon_win=30.0,
        cap_factor=3.0,
        jitters=dict(swap=2.0, detection=3.0),
        cats=[
            ncat("hw", 0.5, detect=0.1, swap=True, diag=0.1, wrong=0.2),
            ncat("rack", 0.05, detect=0.1, domain="rack"),
        ],
    ),
)

SCEN.update(
    # node model with uncertain overheads: diagnosis / preemption / swap / restart spreads,
    # swap / detection / restart jitter; finite pool, standbys, lemon detection
    node_ovh=node_spec(
        W=20.0,
        n_gpus=64,
        f=0.25,
        m=6.0,
        swap_h=0.3,
        n_spares=2,
        repair_h=6.0,
        n_standbys=1,
        preempt_h=0.4,
        lemon_k=2,
        lemon_win=30.0,
        cap_factor=4.0,
        R=0.3,
        spreads=dict(diagnosis=3.0, preemption=2.5, swap=2.0, restart=2.0),
        jitters=dict(swap=2.0, detection=2.5, restart=2.0),
        cats=[
            ncat("hw", 0.35, detect=0.1, swap=True, diag=0.3, wrong=0.2),
            ncat("rack", 0.05, detect=0.1, domain="rack", diag=0.2),
        ],
    ),
    # node model under max_events = 4 and a tight cap
    node_ev4=node_spec(
        W=20.0,
        n_gpus=64,
        f=0.3,
        m=6.0,
        swap_h=0.2,
        n_spares=1,
        repair_h=8.0,
        n_standbys=1,
        preempt_h=0.3,
        lemon_k=2,
        lemon_win=20.0,
        cap_factor=1.5,
        max_events=4,
        cats=[
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.2, wrong=0.3),
            ncat("hang", 0.15, detect=0.3, diag=0.1),
        ],
    ),
)

SCEN.update(
    # restarts from memory (r = 1): swaps, restart-only node failures, a rack domain,
    # maintenance, long persists (nodes-left reset when a checkpoint becomes durable)
    mem=node_spec(
        W=20.0,
        n_gpus=64,
        f=0.2,
        m=4.0,
        swap_h=0.2,
        n_spares=2,
        repair_h=5.0,
        n_standbys=1,
        preempt_h=0.2,
        lemon_k=2,
        lemon_win=20.0,
        R=0.4,
        mem_R=0.05,
        mem_r=1,
        persist=0.3,
        tau=0.5,
        maint_rate=0.1,
        maint_h=0.3,
        cap_factor=4.0,
        cats=[
            ncat("hw", 0.4, detect=0.05, swap=True, diag=0.1, wrong=0.2),
            ncat("sw", 0.4, detect=0.05, mult=1.0),
            ncat("rack", 0.05, detect=0.1, domain="rack"),
        ],
    ),
    # memory restarts with r = 2, jittered restarts and a restart spread
    mem2=node_spec(
        W=15.0,
        n_gpus=64,
        f=0.3,
        m=5.0,
        swap_h=0.1,
        R=0.5,
        mem_R=0.1,
        mem_r=2,
        persist=0.2,
        tau=1.0,
        spreads=dict(restart=2.0),
        jitters=dict(restart=2.0),
        cats=[ncat("hw", 0.5, detect=0.05, swap=True, diag=0.05)],
    ),
)

SCEN.update(
    # memory restarts, not cap-bound: unlimited pool, r = 1, swap + rack + restart-only
    # categories, maintenance, persist 0.4 of tau 0.5
    mem3=node_spec(
        W=20.0,
        n_gpus=64,
        f=0.2,
        m=4.0,
        swap_h=0.2,
        R=0.4,
        mem_R=0.05,
        mem_r=1,
        persist=0.4,
        tau=0.5,
        maint_rate=0.1,
        maint_h=0.3,
        n_standbys=1,
        preempt_h=0.2,
        cats=[
            ncat("hw", 0.4, detect=0.05, swap=True, diag=0.1, wrong=0.2),
            ncat("sw", 0.4, detect=0.05, mult=1.0),
            ncat("rack", 0.05, detect=0.1, domain="rack"),
        ],
    ),
)

SCEN.update(
    # node model with a diurnal cosine and a burn-in trend on the node categories
    node_tv=node_spec(
        W=20.0,
        n_gpus=64,
        f=0.25,
        m=5.0,
        swap_h=0.2,
        n_spares=2,
        repair_h=6.0,
        n_standbys=1,
        lemon_k=2,
        lemon_win=24.0,
        beta=0.5,
        A0=10.0,
        h0=20.0,
        cap_factor=4.0,
        cats=[
            ncat("hw", 0.4, detect=0.1, swap=True, diag=0.1, amp=0.8, peak=2.0),
            ncat("rack", 0.05, detect=0.1, domain="rack", amp=0.5, peak=14.0),
        ],
    ),
)
