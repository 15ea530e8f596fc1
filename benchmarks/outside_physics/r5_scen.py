"""Fifth round's scenarios: posteriors with per-draw physics rows run under overhead spreads.

``SCEN`` maps a name to a `PostScen5` (a module, not a script; ``r5_run.py`` runs them):
``r4_scen.PostScen`` (per-draw ``rate``, ``diurnal_amplitude``, ``diurnal_peak_hour``,
``trend_shape``, and with the node model ``bad_node_fraction`` and ``bad_node_multiplier``)
whose spec also carries ``spreads`` and ``jitters`` (``relmc.Policy``'s ``*_spread`` and
``*_jitter``). ``node`` False: the general path (``indep2`` spec, no node rows in the
posterior). ``mix`` G > 0: the mixture check, a posterior of ``n`` draws whose physics rows
cycle over the scenario's first G draws (draw ``d`` has row ``d mod G``), one relmc trial per
draw, so each trial has its own factors and the independent side draws its own per trial.

Given-factor scenarios (each draw compared with the independent side run on the draw's rows
and relmc's documented ``F[d]``):

g_all     general path: the seven general spreads and four jitters, a straggler, an SDC, a
          pool of 1, maintenance, persist, throughput cycle, 3 draws (burn-in, neutral,
          wear-out)
g_cap     general path under a cap of 1.5 W and ``max_events`` 6, wide restart, detection,
          maintenance spreads and jitters
n_all     ``pd_lemon`` (lemons, standby, pool, two-stage repair, rack blast radius, memory
          restarts, straggler, SDC) with all nine spreads and four jitters, 4 draws
n_cap     ``pd_cap`` (cap 1.4 W, ``max_events`` 6, a pool of 1, lemon k 1) with restart,
          swap, detection, diagnosis and preemption spreads and jitters
n_mem     memory restarts dominate (r 4), persist near tau (the ``min(persist F, tau)`` cap),
          snapshot / persist / restart / maintenance spreads, restart jitter, 3 draws
n_switch  ``pd_switch`` (node model on by the draws alone) with detection, diagnosis, swap,
          restart and SDC-latency spreads and jitter
n_wild    spreads and jitters of 10 (90 % ranges of 100x), 2 draws, cap 5 W
n_ev      ``pd_ev`` (``max_events`` 3, a weekly-profile category) with spreads and jitters

Mixture scenarios: ``mix_g`` (g_all, G 2) and ``mix_n`` (n_all, G 2).
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes  # noqa: E402
import r4_scen  # noqa: E402
from indep2 import cat, default_spec  # noqa: E402
from indep_nodes import ncat, node_spec  # noqa: E402

ALL9 = ("snapshot", "persist", "restart", "swap", "detection", "maintenance", "diagnosis",
        "preemption", "sdc_latency")  # fmt: skip
JIT4 = ("restart", "swap", "detection", "maintenance")


@dataclass
class PostScen5(r4_scen.PostScen):
    """``r4_scen.PostScen`` plus ``node`` (False: no node rows) and ``mix`` (G, or 0)."""

    node: bool = True
    mix: int = 0

    def idata(self, n_draws=None):
        """The posterior; with `n_draws` (mixture) draw ``d`` holds row ``d mod mix``."""
        import arviz as az
        import xarray as xr

        G = self.n_draws if not n_draws else self.mix
        idx = np.arange(n_draws or G) % G
        names = [c["name"] for c in self.spec["cats"]]
        dc = ("chain", "draw", "category")
        v = dict(
            rate=(dc, self.rate[idx][None]),
            diurnal_amplitude=(dc, self.amp[idx][None]),
            diurnal_peak_hour=(dc, self.peak[idx][None]),
            trend_shape=(("chain", "draw"), self.beta[idx][None]),
        )
        if self.node:
            v.update(
                bad_node_fraction=(("chain", "draw"), self.f[idx][None]),
                bad_node_multiplier=(dc, self.m[idx][None]),
            )
        post = xr.Dataset(v, coords=dict(chain=[0], draw=np.arange(len(idx)), category=names))
        post.attrs["fleet_age_hours"] = self.A0
        return az.InferenceData(posterior=post)


def draw_spec(ps: PostScen5, d: int):
    """The independent side's spec of physics row `d` (spreads and jitters kept)."""
    if ps.node:
        return r4_scen.draw_spec(ps, d)
    s = copy.deepcopy(ps.spec)
    s["beta"], s["A0"] = float(ps.beta[d]), ps.A0
    for k, c in enumerate(s["cats"]):
        c.update(rate=float(ps.rate[d, k]), amp=float(ps.amp[d, k]), peak=float(ps.peak[d, k]))
    return s


def build_relmc(ps: PostScen5):
    """relmc's Scenario (draw 0's categories, replaced per draw; ``r4_scen.relmc_spec``)."""
    s = r4_scen.relmc_spec(ps)
    return indep_nodes.build_relmc(s) if ps.node else indep2.build_relmc(s)


def _with(ps, spreads=None, jitters=None, **kw):
    s = copy.deepcopy(ps.spec)
    s.update(spreads=spreads, jitters=jitters)
    return PostScen5(**{**dataclasses.asdict(ps), "spec": s, **kw})


_g_cats = [
    cat("gpu", 0.3, detect=0.2, swap=True),
    cat("net", 0.1, detect=0.1),
    cat("slow", 0.2, kind="straggler", detect=0.5, speed=0.3),
    cat("sdc", 0.1, kind="sdc", detect=0.1, sdc_L=0.8, sdc_exp=True),
]
_g_amp = np.array([[1.0, 0.5, 0.8, 0.6], [0.0] * 4, [0.4, 1.0, 0.3, 1.0]])
_g_peak = np.array([[3.0, 14.0, 20.0, 9.0], [0.0] * 4, [15.0, 2.0, 1.0, 23.0]])

# fmt: off
SCEN = dict(
    g_all=PostScen5(
        spec=default_spec(
            W=15.0, tau=0.5, delta=0.03, persist=0.2, R=0.3, swap_h=0.3, n_spares=1,
            repair_h=4.0, maint_rate=0.1, maint_h=0.5, b=0.3, phi_s=6.0, h0=17.3, start_day=2,
            K=2, cap_factor=5.0, cats=copy.deepcopy(_g_cats),
            spreads=dict(snapshot=2.0, persist=3.0, restart=3.0, swap=2.5, detection=3.0,
                         maintenance=2.5, sdc_latency=3.0),
            jitters=dict(restart=2.0, swap=2.0, detection=2.5, maintenance=2.0),
        ),
        rate=np.array([[0.5, 0.15, 0.3, 0.15], [0.2, 0.1, 0.15, 0.08], [0.3, 0.05, 0.2, 0.1]]),
        amp=_g_amp, peak=_g_peak, beta=np.array([0.4, 1.0, 1.7]), f=None, m=None, A0=5.0,
        node=False,
    ),
    g_cap=PostScen5(
        spec=default_spec(
            W=10.0, tau=0.5, delta=0.02, persist=0.1, R=0.3, swap_h=0.2, maint_rate=0.3,
            maint_h=0.5, h0=2.0, K=1, cap_factor=1.5, max_events=6,
            cats=[copy.deepcopy(_g_cats[0]), copy.deepcopy(_g_cats[2]),
                  copy.deepcopy(_g_cats[3])],
            spreads=dict(persist=2.0, restart=4.0, detection=3.0, maintenance=3.0),
            jitters=dict(restart=3.0, detection=2.0, maintenance=3.0),
        ),
        rate=np.array([[0.4, 0.3, 0.2], [0.2, 0.1, 0.1], [0.3, 0.2, 0.15]]),
        amp=_g_amp[:, [0, 2, 3]], peak=_g_peak[:, [0, 2, 3]], beta=np.array([0.5, 1.0, 2.0]),
        f=None, m=None, A0=3.0, node=False,
    ),
    n_all=_with(r4_scen.DRAWS["pd_lemon"], {k: 2.0 for k in ALL9}, {k: 2.0 for k in JIT4}),
    n_cap=_with(
        r4_scen.DRAWS["pd_cap"],
        dict(restart=3.0, swap=3.0, detection=2.0, diagnosis=3.0, preemption=3.0),
        dict(restart=2.0, swap=3.0, detection=2.0),
    ),
    n_mem=PostScen5(
        spec=node_spec(
            W=20.0, n_gpus=64, f=0.2, m=4.0, swap_h=0.2, n_standbys=2, preempt_h=0.1, R=1.0,
            mem_R=0.3, mem_r=4, tau=0.5, delta=0.04, persist=0.4, maint_rate=0.05,
            maint_h=0.3, K=2, h0=9.0,
            spreads=dict(snapshot=3.0, persist=3.0, restart=4.0, maintenance=2.0),
            jitters=dict(restart=3.0, maintenance=2.0),
            cats=[
                ncat("hw", 0.5, detect=0.05, swap=True, diag=0.05),
                r4_scen.sdc("sdc", 0.1, detect=0.1, swap=True, diag=0.1, sdc_L=0.5,
                            sdc_exp=True),
            ],
        ),
        rate=np.array([[0.6, 0.15], [0.3, 0.1], [0.4, 0.05]]),
        amp=np.array([[0.8, 0.5], [0.0, 0.0], [1.0, 0.3]]),
        peak=np.array([[4.0, 16.0], [0.0, 0.0], [21.0, 8.0]]),
        beta=np.array([0.5, 1.0, 1.6]), f=np.array([0.3, 0.0, 0.1]),
        m=np.array([[5.0, 2.0], [1.0, 1.0], [8.0, 4.0]]), A0=6.0,
    ),
    n_switch=_with(
        r4_scen.DRAWS["pd_switch"],
        dict(restart=2.0, swap=3.0, detection=3.0, diagnosis=3.0, sdc_latency=3.0),
        dict(swap=2.0, detection=2.0),
    ),
    n_ev=_with(
        r4_scen.DRAWS["pd_ev"],
        dict(snapshot=2.0, restart=3.0, detection=3.0, diagnosis=2.0, sdc_latency=2.0),
        dict(restart=2.0, detection=3.0),
    ),
)
_wild = r4_scen.DRAWS["pd_unl"]
SCEN["n_wild"] = PostScen5(
    spec={**copy.deepcopy(_wild.spec), "cap_factor": 5.0,
          "spreads": dict(snapshot=10.0, persist=10.0, restart=10.0, detection=10.0,
                          maintenance=10.0, diagnosis=10.0, sdc_latency=10.0),
          "jitters": dict(restart=10.0, detection=10.0, maintenance=10.0),
          "persist": 0.2, "maint_rate": 0.1, "maint_h": 0.3},
    rate=_wild.rate[[0, 2]], amp=_wild.amp[[0, 2]], peak=_wild.peak[[0, 2]],
    beta=_wild.beta[[0, 2]], f=_wild.f[[0, 2]], m=_wild.m[[0, 2]], A0=_wild.A0,
)
SCEN["mix_g"] = dataclasses.replace(SCEN["g_all"], mix=2)
SCEN["mix_n"] = dataclasses.replace(SCEN["n_all"], mix=2)
# fmt: on
