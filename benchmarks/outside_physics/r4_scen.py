"""Fourth round's scenarios: per-draw physics with nodes, power swings, node-model spreads.

Three dictionaries of named scenarios (a module, not a script; ``r4_run.py`` runs them):

``DRAWS``  per-draw physics rows with the node model (priority 1; ``pd_ev`` adds the event
           budget and a weekly rate-profile category). Each entry is a
           `PostScen`: a hand-made posterior (``arviz.InferenceData``, the form of
           ``physics.py`` and ``physics_nodes.py``) whose draws carry per-draw ``rate``,
           ``diurnal_amplitude``, ``diurnal_peak_hour`` (every category), ``trend_shape``,
           ``bad_node_fraction`` and ``bad_node_multiplier`` (dims chain, draw, category),
           and a node spec whose categories all name posterior categories (a straggler and
           an SDC made from fit categories by their ``kind``, as the README's "Adding them
           to a fit" allows), so every draw row reaches every category. `draw_spec` gives
           the independent side's spec of one draw.
``POWER``  power swings of straggler and SDC stops with the node model (priority 2):
           stops while computing, ``max_events`` stops on a straggler's arrival and on an
           SDC detection, the cap, ``delta = 0``, stragglers handled at a restart's end.
``SPREAD`` node-model overhead spreads and jitter not named in earlier rounds (priority 3):
           snapshot, persist, detection, maintenance and SDC-latency spreads; detection and
           maintenance jitter; the restart spread and jitter on restarts from memory
           (``sp_mem``, ``sp_memj``); with lemons, standbys, pools, stragglers and SDC on.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indep_nodes import ncat, node_spec  # noqa: E402
from scenarios import profile168  # noqa: E402


def strag(name, rate, **kw):
    return ncat(name, rate, kind="straggler", **kw)


def sdc(name, rate, **kw):
    return ncat(name, rate, kind="sdc", **kw)


# ---- 1. per-draw physics rows with the node model ------------------------------------------
@dataclass
class PostScen:
    """A posterior (per-draw arrays over ``cats`` order) and the node spec it modifies."""

    spec: dict  # node spec; its category rates / amp / peak / mult are replaced per draw
    rate: np.ndarray  # (D, C)
    amp: np.ndarray  # (D, C)
    peak: np.ndarray  # (D, C)
    beta: np.ndarray  # (D,)
    f: np.ndarray  # (D,)
    m: np.ndarray  # (D, C)
    A0: float
    single_tv: bool = True  # relmc's single values time-varying (else constant-rate)

    @property
    def n_draws(self):
        return len(self.beta)

    def idata(self):
        import arviz as az
        import xarray as xr

        names = [c["name"] for c in self.spec["cats"]]
        dc = ("chain", "draw", "category")
        post = xr.Dataset(
            dict(
                rate=(dc, self.rate[None]),
                diurnal_amplitude=(dc, self.amp[None]),
                diurnal_peak_hour=(dc, self.peak[None]),
                trend_shape=(("chain", "draw"), self.beta[None]),
                bad_node_fraction=(("chain", "draw"), self.f[None]),
                bad_node_multiplier=(dc, self.m[None]),
            ),
            coords=dict(chain=[0], draw=np.arange(self.n_draws), category=names),
        )
        post.attrs["fleet_age_hours"] = self.A0
        return az.InferenceData(posterior=post)


def draw_spec(ps: PostScen, d: int, *, peak_shift=0.0, beta=None):
    """The independent side's spec of draw `d`: the draw's values in place of the single ones.

    ``peak_shift`` (12: the peak read as the trough) and ``beta`` (the single trend shape in
    place of the draw's) are spec-level misreadings for the power checks.
    """
    s = copy.deepcopy(ps.spec)
    s["f_single"] = s["f"]  # for misreading Q2 of r4_indep
    s["f"] = float(ps.f[d])
    s["beta"] = float(ps.beta[d]) if beta is None else beta
    s["A0"] = ps.A0
    for k, c in enumerate(s["cats"]):
        c["rate"] = float(ps.rate[d, k])
        c["amp"] = float(ps.amp[d, k])
        c["peak"] = float((ps.peak[d, k] + peak_shift) % 24.0)
        c["mult"] = float(ps.m[d, k])
    return s


def relmc_spec(ps: PostScen):
    """The spec relmc's Scenario is built from: draw 0's categories, a time-varying single
    trend (so the fleet age is given), the single f and m of ``ps.spec`` (replaced per draw).

    With ``ps.single_tv`` false the single values are constant-rate (trend shape 1, no
    amplitude, no fleet age in the scenario): only the draws make the rates time-varying, and
    the fleet age is the posterior's ``attrs["fleet_age_hours"]`` alone.
    """
    s = copy.deepcopy(ps.spec)
    s["beta"] = 1.5 if ps.single_tv else 1.0
    s["A0"] = ps.A0
    for k, c in enumerate(s["cats"]):
        c["rate"] = float(ps.rate[0, k])
        c["amp"] = float(ps.amp[0, k]) if ps.single_tv else 0.0
        c["peak"] = float(ps.peak[0, k]) if ps.single_tv else 0.0
        c["mult"] = None
    return s


# category order of the DRAWS specs: hw (node failure, swap, wrong blame), rack (blast
# radius), slow (straggler), sdc (SDC)
_AMP = np.array(
    [
        [1.0, 0.9, 0.8, 0.5],  # strong, different peaks
        [0.0, 0.0, 0.0, 0.0],  # neutral draw (same process in law, resolution 1)
        [0.6, 0.3, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],  # extreme: every category at amplitude 1, one peak
    ]
)
_PEAK = np.array([[3.0, 14.0, 20.0, 9.0], [0.0, 0.0, 0.0, 0.0], [15.0, 2.0, 1.0, 23.0], [18.0] * 4])
_BETA = np.array([0.3, 1.0, 1.8, 0.5])
_F = np.array([0.3, 0.0, 0.1, 0.6])
_M = np.array([[6.0, 2.0, 4.0, 3.0], [1.0, 1.0, 1.0, 1.0], [10.0, 1.0, 2.0, 8.0], [1.0] * 4])


def _cats_pd():
    return [
        ncat("hw", 0.3, detect=0.1, swap=True, diag=0.2, wrong=0.2),
        ncat("rack", 0.05, detect=0.1, domain="rack", diag=0.2),
        strag("slow", 0.2, detect=0.4, swap=True, diag=0.1, speed=0.3),
        sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.8, sdc_exp=True),
    ]


# fmt: off
DRAWS = dict(
    # lemons shed through a finite pool with the two-stage repair, a standby, preemption,
    # lemon detection, rack blast radius, memory restarts, maintenance, throughput cycle
    pd_lemon=PostScen(
        spec=node_spec(
            W=20.0, n_gpus=64, f=0.1, m=2.0, swap_h=0.2, n_spares=3, repair_h=6.0,
            n_standbys=1, preempt_h=0.2, lemon_k=3, lemon_win=30.0, escalate=0.3,
            manual_h=20.0, auto_miss=0.3, nodes_per_rack=2, mem_R=0.05, mem_r=1, R=0.3,
            persist=0.2, tau=0.5, K=2, maint_rate=0.05, maint_h=0.5, b=0.3, phi_s=6.0,
            h0=17.3, start_day=2, cap_factor=5.0, cats=_cats_pd(),
        ),
        rate=np.array([[0.5, 0.08, 0.3, 0.15], [0.2, 0.05, 0.15, 0.08],
                       [0.25, 0.03, 0.15, 0.08], [0.4, 0.1, 0.25, 0.2]]),
        amp=_AMP, peak=_PEAK, beta=_BETA, f=_F, m=_M, A0=4.0,
    ),
    # an unlimited pool, two standbys, pod blast radius, retirement, no lemon detection
    pd_unl=PostScen(
        spec=node_spec(
            W=15.0, n_gpus=128, f=0.1, m=2.0, swap_h=0.3, n_spares=None, n_standbys=2,
            preempt_h=0.1, gpus_per_pod=64, retire_after=2, mem_R=0.1, mem_r=2, R=0.4,
            tau=0.5, K=3, h0=5.0, cap_factor=6.0,
            cats=[
                ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1, wrong=0.3),
                ncat("rack", 0.05, detect=0.2, domain="pod", diag=0.3),
                strag("slow", 0.2, detect=0.6, swap=True, diag=0.1, speed=0.5),
                sdc("sdc", 0.1, detect=0.1, diag=0.1, sdc_L=0.5),
            ],
        ),
        rate=np.array([[0.6, 0.04, 0.3, 0.2], [0.3, 0.02, 0.1, 0.1],
                       [0.4, 0.05, 0.2, 0.15], [0.5, 0.03, 0.3, 0.3]]),
        amp=_AMP, peak=_PEAK, beta=_BETA, f=_F, m=_M, A0=10.0,
    ),
    # extreme: cap 1.4 W and max_events 6, a pool of 1 that runs dry, lemon k 1
    pd_cap=PostScen(
        spec=node_spec(
            W=20.0, n_gpus=32, f=0.1, m=2.0, swap_h=0.3, n_spares=1, repair_h=8.0,
            lemon_k=1, lemon_win=10.0, nodes_per_rack=2, R=0.2, tau=0.5, K=1,
            cap_factor=1.4, max_events=6, h0=22.0,
            cats=_cats_pd(),
        ),
        rate=np.array([[0.4, 0.05, 0.3, 0.15], [0.2, 0.05, 0.1, 0.1],
                       [0.3, 0.03, 0.2, 0.1], [0.35, 0.1, 0.25, 0.2]]),
        amp=_AMP, peak=_PEAK, beta=_BETA, f=_F, m=_M, A0=2.0,
    ),
)

# the event budget with per-draw rows (max_events 3, a loose cap: most trials stop by the
# budget, so their power-swing parity is read per draw), and a category with a weekly rate
# profile (its per-draw amplitude 0, as the contract requires; the profile applies on the
# node path and with per-draw physics) beside the straggler and the SDC
DRAWS["pd_ev"] = PostScen(
    spec=node_spec(
        W=15.0, n_gpus=64, f=0.1, m=2.0, swap_h=0.2, n_spares=2, repair_h=4.0,
        n_standbys=1, preempt_h=0.1, lemon_k=2, lemon_win=20.0, R=0.2, tau=0.5,
        delta=0.05, K=2, max_events=3, cap_factor=10.0, h0=7.0, start_day=5,
        cats=[
            ncat("hw", 0.2, detect=0.1, swap=True, diag=0.1, wrong=0.2),
            ncat("prof", 0.1, detect=0.1, swap=True, diag=0.1, profile=profile168(2)),
            strag("slow", 0.3, detect=0.3, swap=True, diag=0.1, speed=0.4),
            sdc("sdc", 0.2, detect=0.1, swap=True, diag=0.1, sdc_L=0.4, sdc_exp=True),
        ],
    ),
    rate=np.array([[0.2, 0.1, 0.4, 0.2], [0.1, 0.05, 0.2, 0.1],
                   [0.3, 0.2, 0.3, 0.3], [0.15, 0.1, 0.5, 0.05]]),
    amp=_AMP * np.array([1.0, 0.0, 1.0, 1.0]),
    peak=_PEAK, beta=_BETA, f=_F, m=_M, A0=3.0,
)  # fmt: skip

# the node model switched on by the draws alone (resolution 1): the scenario's single values
# leave it off (f 0, no standbys, no lemon detection, an unlimited pool, no memory restarts);
# two draws have f > 0, two f = 0 (these must still run the node process: node outputs such
# as repairs_auto and restarts_storage counted)
DRAWS["pd_switch"] = PostScen(
    spec=node_spec(
        W=15.0, n_gpus=64, f=0.0, m=1.0, swap_h=0.2, R=0.2, tau=0.5, persist=0.1, K=2,
        h0=12.0,
        cats=[
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1, wrong=0.2),
            ncat("rack", 0.05, detect=0.1, domain="rack", diag=0.2),
            strag("slow", 0.2, detect=0.3, swap=True, diag=0.1, speed=0.4),
            sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.5, sdc_exp=True),
        ],
    ),
    rate=np.array([[0.3, 0.05, 0.2, 0.1]] * 4),
    amp=_AMP, peak=_PEAK, beta=_BETA, f=np.array([0.3, 0.0, 0.1, 0.0]), m=_M, A0=20.0,
)  # fmt: skip

# pd_switch with constant-rate single values as well (trend shape 1, no amplitude, no fleet
# age in the scenario): the time-varying process is switched on by the draws alone too
# (resolution 1), the fleet age given by the posterior only
DRAWS["pd_switch_tv"] = dataclasses.replace(DRAWS["pd_switch"], single_tv=False)

# ---- 2. power swings of straggler / SDC stops with the node model ---------------------------
_pw = dict(W=15.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, n_spares=2, repair_h=4.0,
           n_standbys=1, preempt_h=0.1, lemon_k=2, lemon_win=30.0, tau=0.5, delta=0.05)
POWER = dict(
    # stragglers handled on their own, mostly while computing (short snapshots)
    pw_strag=node_spec(**_pw, cats=[
        strag("slow", 0.6, detect=0.2, swap=True, diag=0.1, speed=0.4),
        ncat("hw", 0.1, detect=0.1, swap=True, diag=0.1),
    ]),
    # SDC detections while computing: fixed latency, K 2
    pw_sdc=node_spec(**_pw, K=2, cats=[
        sdc("sdc", 0.5, detect=0.1, swap=True, diag=0.1, sdc_L=0.3),
        ncat("hw", 0.1, detect=0.1, swap=True, diag=0.1),
    ]),
    # max_events 1-3 dominated by straggler arrivals (stop on an arrival: a down step)
    pw_ev1_strag=node_spec(**_pw, max_events=1, cats=[
        strag("slow", 0.5, detect=0.3, swap=True, diag=0.1, speed=0.5),
        ncat("hw", 0.02, detect=0.1, swap=True),
    ]),
    pw_ev3_strag=node_spec(**_pw, max_events=3, cats=[
        strag("slow", 0.5, detect=0.3, swap=True, diag=0.1, speed=0.5),
        sdc("sdc", 0.05, detect=0.1, swap=True, sdc_L=0.2),
    ]),
    # max_events 2 dominated by SDC detections (the rollback, then the stop)
    pw_ev2_sdc=node_spec(**_pw, max_events=2, K=1, cats=[
        sdc("sdc", 0.6, detect=0.1, swap=True, diag=0.1, sdc_L=0.4, sdc_exp=True),
        strag("slow", 0.05, detect=0.3, speed=0.5),
    ]),
    # the cap (1.3 W) with both: the cap is no step, so cut trials may be odd
    pw_cap=node_spec(**{**_pw, "n_spares": 1, "repair_h": 10.0}, cap_factor=1.3, K=2, cats=[
        strag("slow", 0.4, detect=0.5, swap=True, diag=0.2, speed=0.3),
        sdc("sdc", 0.2, detect=0.1, swap=True, diag=0.2, sdc_L=1.0, sdc_exp=True),
        ncat("hw", 0.2, detect=0.1, swap=True, diag=0.1),
    ]),
    # extreme: delta = 0 (a run is one compute block), speed 0.02, persist = tau
    pw_delta0=node_spec(**{**_pw, "delta": 0.0, "persist": 0.5}, K=2, max_events=8,
                        cap_factor=4.0, cats=[
        strag("slow", 0.5, detect=0.3, swap=True, diag=0.1, speed=0.02),
        sdc("sdc", 0.3, detect=0.1, swap=True, sdc_L=0.4),
    ]),
    # stragglers arriving in long restarts and handled at a restart's end (no step), SDC
    # detections deferred in recoveries, memory restarts
    pw_restart=node_spec(**{**_pw, "R": 1.0}, mem_R=0.2, mem_r=1, K=2, cats=[
        strag("slow", 0.4, detect=0.3, swap=True, diag=0.3, speed=0.5),
        sdc("sdc", 0.3, detect=0.8, swap=True, diag=0.3, sdc_L=0.5, sdc_exp=True),
        ncat("hw", 0.3, detect=0.5, swap=True, diag=0.3),
    ]),
)

# ---- 3. node-model spreads and jitter -------------------------------------------------------
SPREAD = dict(
    # snapshot / persist / restart spreads with memory restarts (the count of nodes left is
    # reset when a persist completes), persist near tau (the cap min(persist F, tau) binds)
    sp_ckpt=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, n_standbys=1, preempt_h=0.2, tau=0.5,
        delta=0.05, persist=0.4, R=0.5, mem_R=0.1, mem_r=1, K=2,
        spreads=dict(snapshot=3.0, persist=3.0, restart=3.0),
        cats=[
            ncat("hw", 0.6, detect=0.05, swap=True, diag=0.05),
            strag("slow", 0.2, detect=0.3, swap=True, diag=0.1, speed=0.5),
        ],
    ),
    # detection spread and jitter: a straggler's slow phase, an SDC's detection delay and
    # the failures' detection, lemon window 3 h
    sp_det=node_spec(
        W=20.0, n_gpus=64, f=0.3, m=5.0, swap_h=0.2, n_spares=2, repair_h=5.0, n_standbys=1,
        preempt_h=0.2, lemon_k=2, lemon_win=3.0, K=2, cap_factor=6.0,
        spreads=dict(detection=3.0), jitters=dict(detection=2.5),
        cats=[
            strag("slow", 0.3, detect=0.8, swap=True, diag=0.1, speed=0.3),
            sdc("sdc", 0.15, detect=0.5, swap=True, diag=0.1, sdc_L=0.5, sdc_exp=True),
            ncat("hw", 0.3, detect=0.3, swap=True, diag=0.1, wrong=0.2),
        ],
    ),
    # maintenance spread and jitter: maintenance resets nodes left and reads storage;
    # repairs go on during the downtime (pool of 1, 4 h repairs)
    sp_maint=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, n_spares=1, repair_h=4.0, R=0.3,
        mem_R=0.05, mem_r=1, maint_rate=0.3, maint_h=1.0, persist=0.2, K=2,
        spreads=dict(maintenance=3.0), jitters=dict(maintenance=3.0),
        cats=[
            ncat("hw", 0.4, detect=0.1, swap=True, diag=0.1),
            strag("slow", 0.2, detect=0.5, swap=True, diag=0.1, speed=0.5),
        ],
    ),
    # SDC latency spread with exponential latency, K 1 (rollbacks from scratch), lemons
    sp_sdcl=node_spec(
        W=10.0, n_gpus=32, f=0.3, m=6.0, swap_h=0.2, n_spares=1, repair_h=3.0, K=1,
        lemon_k=2, lemon_win=50.0, cap_factor=8.0, spreads=dict(sdc_latency=3.0),
        cats=[
            sdc("sdc", 0.15, detect=0.1, swap=True, diag=0.2, sdc_L=0.6, sdc_exp=True),
            ncat("hw", 0.2, detect=0.1, swap=True, diag=0.1),
        ],
    ),
    # everything: the nine spreads and four jitters, stragglers, SDC, blast radius, cap 3 W
    sp_all=node_spec(
        W=20.0, n_gpus=64, f=0.25, m=5.0, swap_h=0.2, n_spares=2, repair_h=5.0, n_standbys=1,
        preempt_h=0.2, lemon_k=2, lemon_win=30.0, nodes_per_rack=2, R=0.3, mem_R=0.05,
        mem_r=1, persist=0.2, delta=0.03, maint_rate=0.1, maint_h=0.5, K=2, cap_factor=3.0,
        b=0.3, h0=8.0,
        spreads=dict(snapshot=2.0, persist=2.0, restart=2.0, swap=2.0, detection=2.0,
                     maintenance=2.0, diagnosis=2.0, preemption=2.0, sdc_latency=2.0),
        jitters=dict(restart=2.0, swap=2.0, detection=2.0, maintenance=2.0),
        cats=[
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1, wrong=0.2),
            ncat("rack", 0.04, detect=0.1, domain="rack", diag=0.2),
            strag("slow", 0.2, detect=0.4, swap=True, diag=0.1, speed=0.4),
            sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.8, sdc_exp=True),
        ],
    ),
    # restarts from memory dominate (r 8, mem 0.5 h against 1 h from storage) under a
    # restart spread and jitter of 5: the per-draw factor and the per-event jitter of the
    # restart from memory
    sp_mem=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, n_standbys=2, preempt_h=0.1, R=1.0,
        mem_R=0.5, mem_r=8, persist=0.1, maint_rate=0.05, maint_h=0.3, K=2,
        spreads=dict(restart=5.0), jitters=dict(restart=5.0),
        cats=[
            ncat("hw", 0.5, detect=0.05, swap=True, diag=0.05),
            sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.5, sdc_exp=True),
        ],
    ),
    # sp_mem with the restart jitter alone (no per-draw factor): the jitter of a restart
    # from memory in isolation
    sp_memj=node_spec(
        W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, n_standbys=2, preempt_h=0.1, R=1.0,
        mem_R=0.5, mem_r=8, persist=0.1, maint_rate=0.05, maint_h=0.3, K=2,
        jitters=dict(restart=5.0),
        cats=[
            ncat("hw", 0.5, detect=0.05, swap=True, diag=0.05),
            sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.5, sdc_exp=True),
        ],
    ),
    # extreme: spreads and jitters of 10 (90 % ranges of 100x), a pool that runs dry
    sp_wild=node_spec(
        W=10.0, n_gpus=32, f=0.3, m=5.0, swap_h=0.2, n_spares=1, repair_h=3.0, R=0.2,
        mem_R=0.02, mem_r=1, persist=0.3, delta=0.02, maint_rate=0.1, maint_h=0.3, K=2,
        cap_factor=5.0,
        spreads=dict(snapshot=10.0, persist=10.0, restart=10.0, detection=10.0,
                     maintenance=10.0, sdc_latency=10.0),
        jitters=dict(restart=10.0, detection=10.0, maintenance=10.0),
        cats=[
            ncat("hw", 0.3, detect=0.1, swap=True, diag=0.1),
            strag("slow", 0.2, detect=0.3, swap=True, diag=0.1, speed=0.3),
            sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.5),
        ],
    ),
)
# fmt: on
