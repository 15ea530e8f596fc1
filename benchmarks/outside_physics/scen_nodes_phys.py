"""Named scenarios: stragglers and SDC inside the node model (third round).

``SCEN`` maps a name to an ``indep_nodes.node_spec`` with straggler and / or SDC categories
and node-model features on; each stresses one reading of ``indep_nodes_phys.py`` (R1-R8 in its
docstring). A module of scenarios, not a script::

    python benchmarks/outside_physics/run_nodes_phys.py all 20000 5000 1 --mut A1,A2,A6
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep_nodes import ncat, node_spec  # noqa: E402


def strag(name, rate, **kw):
    return ncat(name, rate, kind="straggler", **kw)


def sdc(name, rate, **kw):
    return ncat(name, rate, kind="sdc", **kw)


# fmt: off
SCEN = dict(
    # R1 / R3: lemons (f 0.3, m 6) struck by a swap straggler of unit node, lemon k=2 in 30 h,
    # finite pool 2, standby 1, preemption; a failure category beside it
    strag_lemon=node_spec(
        W=30.0, n_gpus=32, f=0.3, m=6.0, swap_h=0.2, n_spares=2, repair_h=8.0, n_standbys=1,
        preempt_h=0.3, lemon_k=2, lemon_win=30.0, cap_factor=5.0,
        cats=[
            strag("slow", 0.3, detect=0.4, swap=True, diag=0.2, speed=0.3),
            ncat("hw", 0.15, detect=0.1, swap=True, diag=0.1, wrong=0.2),
        ],
    ),
    # R4: stragglers with a long slow phase, mostly handled with frequent failures that have a
    # long diagnosis (the straggler's node stays; its record counts for later lemon checks)
    strag_with=node_spec(
        W=20.0, n_gpus=32, f=0.3, m=5.0, swap_h=0.2, n_spares=1, repair_h=4.0,
        lemon_k=2, lemon_win=50.0, cap_factor=6.0,
        cats=[
            strag("slow", 0.5, detect=1.5, swap=True, diag=0.5, speed=0.5),
            ncat("hw", 0.6, detect=0.1, swap=True, diag=0.6, wrong=0.3),
        ],
    ),
    # straggler speed 0.02, swap, pool of 1 with 5 h repairs, no standbys: spare waits
    strag_002=node_spec(
        W=15.0, n_gpus=32, f=0.2, m=5.0, swap_h=0.3, n_spares=1, repair_h=5.0, preempt_h=0.1,
        lemon_k=3, lemon_win=100.0, cap_factor=8.0,
        cats=[
            strag("slow", 0.25, detect=0.5, swap=True, diag=0.1, speed=0.02),
            ncat("hw", 0.1, detect=0.1, swap=True),
        ],
    ),
    # restart-only straggler: its node leaves only when excluded (lemon k=2)
    strag_ro=node_spec(
        W=25.0, n_gpus=32, f=0.3, m=8.0, swap_h=0.2, n_spares=2, repair_h=6.0, n_standbys=1,
        preempt_h=0.2, lemon_k=2, lemon_win=40.0, cap_factor=5.0,
        cats=[strag("slow", 0.4, detect=0.3, diag=0.2, speed=0.4)],
    ),
    # R7: memory restarts (r = 1) with a swap straggler and swap failures, persist 0.3 of 0.5
    strag_mem=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, R=0.4, mem_R=0.05, mem_r=1,
        persist=0.3, tau=0.5, n_standbys=1, preempt_h=0.2,
        cats=[
            strag("slow", 0.3, detect=0.3, swap=True, diag=0.1, speed=0.5),
            ncat("hw", 0.5, detect=0.05, swap=True, diag=0.05),
        ],
    ),
    # R1 / R2: a straggler and an SDC with domain="rack" and wrong_blame 0.9 set (both
    # unread), beside a rack failure category with its blast radius; racks of 4 nodes
    phys_domain=node_spec(
        W=20.0, n_gpus=64, f=0.25, m=5.0, swap_h=0.2, n_spares=3, repair_h=4.0,
        nodes_per_rack=4, lemon_k=2, lemon_win=40.0, cap_factor=5.0, K=2,
        cats=[
            strag("slow", 0.3, detect=0.3, swap=True, diag=0.1, speed=0.4, domain="rack",
                  wrong=0.9),
            sdc("sdc", 0.15, detect=0.1, swap=True, sdc_L=1.0, domain="rack", wrong=0.9),
            ncat("rack", 0.05, detect=0.1, domain="rack", diag=0.2),
        ],
    ),
    # SDC with standbys 2 and finite pool 2, K = 2, exponential latency 1.5 h > tau 0.5
    sdc_standby=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=5.0, swap_h=0.2, n_spares=2, repair_h=6.0, n_standbys=2,
        preempt_h=0.3, K=2, tau=0.5, persist=0.1, cap_factor=6.0,
        cats=[
            sdc("sdc", 0.2, detect=0.2, swap=True, diag=0.2, sdc_L=1.5, sdc_exp=True),
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1),
        ],
    ),
    # R6: a small job (4 nodes), long exponential latency, frequent swap failures: the SDC's
    # node often leaves (and comes back from repair) before detection; lemons, k=2
    sdc_left=node_spec(
        W=20.0, n_gpus=32, f=0.4, m=6.0, swap_h=0.1, n_spares=2, repair_h=1.0, K=0,
        lemon_k=2, lemon_win=60.0, cap_factor=6.0,
        cats=[
            sdc("sdc", 0.3, detect=0.1, swap=True, diag=0.1, sdc_L=3.0, sdc_exp=True),
            ncat("hw", 0.8, detect=0.05, swap=True, diag=0.05),
        ],
    ),
    # K = 1, fixed latency 0.8 > tau 0.5 (rollbacks from scratch), lemons, k=2
    sdc_k1=node_spec(
        W=10.0, n_gpus=32, f=0.3, m=6.0, swap_h=0.2, n_spares=1, repair_h=3.0, K=1, tau=0.5,
        lemon_k=2, lemon_win=50.0, cap_factor=8.0,
        cats=[
            sdc("sdc", 0.12, detect=0.1, swap=True, diag=0.2, sdc_L=0.8),
            ncat("hw", 0.2, detect=0.1, swap=True, diag=0.1),
        ],
    ),
    # R7: memory restarts (r = 2) with SDC (rollback does not reset nodes left) and failures
    sdc_mem=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.1, R=0.5, mem_R=0.05, mem_r=2,
        persist=0.2, tau=0.5, K=3,
        cats=[
            sdc("sdc", 0.25, detect=0.1, swap=True, diag=0.1, sdc_L=1.0, sdc_exp=True),
            ncat("hw", 0.6, detect=0.05, swap=True, diag=0.05),
        ],
    ),
    # R8: SDC detections often due in a long recovery or maintenance (deferred to the next
    # restart's beginning), memory restarts on, standbys
    sdc_defer=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.3, R=0.3, mem_R=0.05, mem_r=1,
        maint_rate=0.2, maint_h=1.5, n_standbys=1, preempt_h=0.2, K=2,
        cats=[
            sdc("sdc", 0.3, detect=0.3, swap=True, diag=0.5, sdc_L=0.7, sdc_exp=True),
            ncat("hw", 0.4, detect=1.0, swap=True, diag=0.5),
        ],
    ),
    # restart-only SDC: its node leaves only when excluded (k = 2)
    sdc_ro=node_spec(
        W=20.0, n_gpus=32, f=0.3, m=8.0, swap_h=0.2, n_spares=2, repair_h=5.0, n_standbys=1,
        lemon_k=2, lemon_win=60.0, K=2, cap_factor=6.0,
        cats=[sdc("sdc", 0.3, detect=0.1, diag=0.2, sdc_L=0.6)],
    ),
    # both, cap 1.3 W hit, finite pool, lemons
    both_cap=node_spec(
        W=20.0, n_gpus=64, f=0.3, m=5.0, swap_h=0.3, n_spares=1, repair_h=10.0, n_standbys=1,
        preempt_h=0.3, lemon_k=2, lemon_win=20.0, K=2, cap_factor=1.3,
        cats=[
            strag("slow", 0.3, detect=0.5, swap=True, diag=0.2, speed=0.3),
            sdc("sdc", 0.15, detect=0.1, swap=True, diag=0.2, sdc_L=1.0, sdc_exp=True),
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1, wrong=0.2),
        ],
    ),
    # both, max_events 5 and a cap of 3 W
    both_ev=node_spec(
        W=20.0, n_gpus=64, f=0.3, m=5.0, swap_h=0.2, n_spares=2, repair_h=5.0, n_standbys=1,
        lemon_k=2, lemon_win=30.0, K=2, max_events=5, cap_factor=3.0,
        cats=[
            strag("slow", 0.3, detect=0.3, swap=True, diag=0.1, speed=0.5),
            sdc("sdc", 0.15, detect=0.1, swap=True, diag=0.1, sdc_L=0.8),
            ncat("hw", 0.2, detect=0.1, swap=True, diag=0.1),
        ],
    ),
    # both with a throughput cycle, diurnal straggler, burn-in trend, maintenance
    both_tv=node_spec(
        W=20.0, n_gpus=64, f=0.25, m=5.0, swap_h=0.2, n_spares=2, repair_h=6.0, n_standbys=1,
        lemon_k=2, lemon_win=24.0, b=0.5, phi_s=3.0, h0=20.0, beta=0.5, A0=10.0, K=3,
        maint_rate=0.1, maint_h=0.3, persist=0.2, cap_factor=5.0,
        cats=[
            strag("slow", 0.3, detect=0.4, swap=True, diag=0.1, speed=0.3, amp=0.8, peak=2.0),
            sdc("sdc", 0.15, detect=0.1, swap=True, diag=0.1, sdc_L=1.0, sdc_exp=True, amp=0.5,
                peak=14.0),
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1),
        ],
    ),
    # both with spreads (diagnosis, preemption, sdc_latency, swap) and jitter (detection:
    # the straggler's slow phase and the SDC's detection delay; swap; restart)
    both_ovh=node_spec(
        W=20.0, n_gpus=64, f=0.25, m=6.0, swap_h=0.3, n_spares=2, repair_h=6.0, n_standbys=1,
        preempt_h=0.4, lemon_k=2, lemon_win=30.0, K=2, R=0.3, cap_factor=5.0,
        spreads=dict(diagnosis=3.0, preemption=2.5, sdc_latency=2.0, swap=2.0),
        jitters=dict(detection=2.5, swap=2.0, restart=2.0),
        cats=[
            strag("slow", 0.3, detect=0.4, swap=True, diag=0.3, speed=0.3),
            sdc("sdc", 0.15, detect=0.1, swap=True, diag=0.2, sdc_L=1.0, sdc_exp=True),
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.3, wrong=0.2),
        ],
    ),
    # pool runs dry: 1 spare, fixed 3 h repairs, retirement at the 2nd send, escalation
    strag_dry=node_spec(
        W=15.0, n_gpus=32, f=0.3, m=5.0, swap_h=0.2, n_spares=1, repair_h=3.0,
        repair_fixed=True, retire_after=2, escalate=0.3, manual_h=6.0, auto_miss=0.3,
        lemon_k=2, lemon_win=30.0, cap_factor=3.0, K=1,
        cats=[
            strag("slow", 0.4, detect=0.3, swap=True, diag=0.1, speed=0.2),
            sdc("sdc", 0.1, detect=0.1, swap=True, sdc_L=0.5),
        ],
    ),
    # unlimited pool with standbys, straggler and SDC only (no failure category)
    phys_unl=node_spec(
        W=25.0, n_gpus=64, f=0.2, m=5.0, swap_h=0.3, n_standbys=2, preempt_h=0.5, lemon_k=2,
        lemon_win=50.0, K=2,
        cats=[
            strag("slow", 0.4, detect=0.3, swap=True, diag=0.1, speed=0.3),
            sdc("sdc", 0.2, detect=0.1, swap=True, diag=0.1, sdc_L=0.6, sdc_exp=True),
        ],
    ),
)

SCEN.update(
    # R3 / R4 isolated: a swap straggler with a 2 h slow phase, frequent short planned
    # maintenance that mostly handles it "with it" (no node leaves); no failure category.
    # Under R3 (record at the arrival) a straggler's node handled with maintenance keeps its
    # record and stays, so a later straggler on it excludes it (bad nodes among them)
    strag_maint=node_spec(
        W=20.0, n_gpus=32, f=0.3, m=8.0, swap_h=0.2, n_spares=3, repair_h=4.0,
        lemon_k=2, lemon_win=200.0, maint_rate=1.0, maint_h=0.05, cap_factor=6.0,
        cats=[strag("slow", 0.5, detect=2.0, swap=True, diag=0.1, speed=0.5)],
    ),
)

SCEN.update(
    # the time a straggler's record carries: lemon window 2 h, slow phase 1.5 h (no jitter),
    # 2 nodes, frequent restart-only node failures recorded on the nodes; k = 2
    strag_win=node_spec(
        W=20.0, n_gpus=16, f=0.0, swap_h=0.1, n_spares=4, repair_h=2.0,
        lemon_k=2, lemon_win=2.0, cap_factor=8.0,
        cats=[
            strag("slow", 0.4, detect=1.5, swap=True, diag=0.1, speed=0.5),
            ncat("sw", 0.6, detect=0.05, diag=0.05),
        ],
    ),
)

SCEN.update(
    # memory restarts with r = 100 (the count of nodes left never binds) and a restart-only
    # SDC (no node leaves for it): only a rule on the memory copy after a rollback shows
    sdc_mem_r=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.1, R=0.5, mem_R=0.05, mem_r=100,
        persist=0.2, tau=0.5, K=3,
        cats=[
            sdc("sdc", 0.25, detect=0.1, diag=0.1, sdc_L=1.0, sdc_exp=True),
            ncat("hw", 0.6, detect=0.05, swap=True, diag=0.05),
        ],
    ),
)

SCEN.update(
    # memory restarts r = 1, a swap SDC and restart-only failures (no node leaves for them):
    # after an SDC the count of nodes left is 1 under R7, so the next failure reads memory
    sdc_mem_sw=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.1, R=0.5, mem_R=0.05, mem_r=1,
        persist=0.2, tau=0.5, K=3,
        cats=[
            sdc("sdc", 0.25, detect=0.1, swap=True, diag=0.1, sdc_L=1.0, sdc_exp=True),
            ncat("sw", 0.6, detect=0.05, diag=0.05),
        ],
    ),
)

SCEN.update(
    # the time an SDC's record carries (R5): lemon window 1.5 h, fixed latency 2 h, 2 nodes,
    # frequent restart-only node failures recorded on the nodes; k = 2
    sdc_win=node_spec(
        W=20.0, n_gpus=16, f=0.0, swap_h=0.1, n_spares=4, repair_h=2.0, K=0,
        lemon_k=2, lemon_win=1.5, cap_factor=8.0,
        cats=[
            sdc("sdc", 0.3, detect=0.1, swap=True, diag=0.1, sdc_L=2.0),
            ncat("sw", 0.8, detect=0.05, diag=0.05),
        ],
    ),
)
# fmt: on
