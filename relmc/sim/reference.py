"""Slow, event-by-event simulation of the job timeline: the test oracle for the kernel.

This is a plain-Python implementation of the process stated in :mod:`relmc.sim`, written to be
obviously correct rather than fast. It deliberately uses a different formulation from a
superposed-rate kernel:

* every category, and planned maintenance, keeps its own *absolute* next-event time, an
  independent exponential clock (competing risks). The earliest pending clock that falls inside
  an exposed interval fires; only the clock that fired is redrawn (from the firing time);
* while the job is not exposed (detection, node swap, spare wait, maintenance downtime, the
  maintenance checkpoint) the clocks are *paused*: every pending clock is shifted later by the
  paused time. Clocks are never redrawn on a pause. During the final snapshot and the final
  persist wait only the maintenance clock is paused (planned events there are deferred past
  the end of the job);
* every segment (compute, then snapshot) is stepped through one at a time, with a list of the
  snapshots whose background persist is still in flight;
* a finite spare pool keeps an explicit list of the absolute completion times of the nodes in
  repair;
* time-varying failure rates (diurnal cycles, power-law trend) are sampled per category by
  thinning, afresh at every exposed interval (a Poisson process has independent increments):
  candidates of a homogeneous process whose rate bounds the category's intensity over the
  whole interval, ``Lambda_c (1 + a_c) max(T(start), T(end))`` (``T`` is monotone; with
  profiles, per run of hours of equal multiplier, below), each accepted with probability
  ``lambda_c(t) / bound``; the earliest accepted candidate of any category fires. The
  constant-rate clocks above are then unused for categories;
* a diurnal throughput cycle: each activity of a run (a segment's compute, its snapshot,
  the final persist wait) is given its nominal length; its wall end is found by bisection
  on ``S(t) = t + (b / w) sin(w (h0 + t - phi_s))`` and the activity is exposed over that
  wall interval. An event at wall ``u`` is at nominal ``S(u) - S(start)`` into it. A
  snapshot's persist is durable at the wall time its nominal ``persist`` has elapsed;
* power swings are counted as the segments are stepped through: one whenever the job
  starts computing, one whenever it stops (a snapshot of positive length starts, an event
  strikes while computing, its last compute ends);
* the node model (``node_model`` true) holds an explicit object per node (type, where it is,
  recorded failure times, times sent to repair) in lists (job, standbys, pool, excluded,
  retired) and a heap of repair-stage completions, never counts. Each node of the job has
  its *own* exponential clock per node-domain category, at ``g_c = Lambda_c / (n (1 - f + f
  m_c))`` if good and ``m_c g_c`` if bad; the clock that fires names the failed node. A
  blast-radius category keeps one cluster clock at ``Lambda_c``. Nodes entering the job get
  fresh clocks; clocks of nodes that leave are dropped. Under time-varying rates each (node,
  category) is thinned like a category above. An unlimited pool creates a fresh node object
  (bad with probability ``f``) for every draw. Nodes are counted across job, standbys, pool,
  repair, excluded and retired (and repaired nodes gone back to an unlimited pool) after
  every move, and the job must hold all ``n`` nodes whenever it is exposed (assertions).

Resolutions of points the contract leaves open (the kernel must agree):

* The job starts computing at wall time 0 from progress 0, with no initial restart, all clocks
  freshly drawn and no node in repair.
* Segments are re-laid from the durable progress ``p`` at every (re)start:
  ``n = ceil(q (1 - 1e-9))`` with ``q = (W - p) / tau``; ``p >= W (1 - 1e-9)`` counts as done.
* Background persists are pipelined: a snapshot ending at ``t`` is durable at ``t + persist``,
  whatever other persists are in flight. A failure kills the persists still in flight; an
  unexpected failure at ``t`` falls back to the last snapshot durable at or before ``t``.
* Rework is compute hours only: the blocking snapshot time of a segment lost to a failure
  stays ``checkpoint``; the elapsed part of an interrupted restart stays ``restart``.
* Planned maintenance during a (non-final) snapshot abandons it (its elapsed time is
  ``checkpoint``) and takes the fresh ``delta + persist`` checkpoint of the segment's progress.
* Maintenance during a restart counts in ``maintenance_events``; it costs the elapsed restart
  (``restart``), ``maint_hours`` and a full new restart, with no checkpoint.
* A planned event after the last compute (final snapshot or final persist wait): the
  maintenance clock is paused there (by memorylessness the same as discarding the event), so
  it neither counts nor costs anything, even if a failure later in that snapshot or wait sends
  the job back to computing. The final snapshot is the one that follows the compute reaching
  ``W``, after any restart; it is exposed to failures.
* Repairs run on the wall clock. At the end of detection, repairs completed at or before that
  time leave the list, then the new repair is added; if more than ``n_spares`` nodes are then
  in repair the job waits for the earliest completion in the list (possibly the new node's).
* Wall cap: an activity that would end after ``cap_hours`` is cut at the cap and its elapsed
  part charged to its cause; progress is what is durable at the cap (background persists
  complete during a maintenance checkpoint, since the job is still alive), and compute beyond it
  is rework. A trial that ends exactly at the cap is finished.
* ``max_events``: the event that brings failures plus counted planned events to
  ``max_events`` is counted, then the trial stops unfinished at that event's time (no
  recovery, no maintenance checkpoint); compute since the last durable checkpoint is rework.
  A planned event deferred past the end of the job (final persist wait) is not an event.

Resolutions for the node model (the kernel must agree):

* A category is a blast-radius category iff ``cat_domain[c] > 1``; it takes
  ``d = min(cat_domain[c], n)`` nodes, with no blame, no lemon record, ``swap`` taken as true.
  Memory restore reads "``d > 1``" literally: with ``n = 1`` such an event takes one node and
  may restart from memory.
* ``diag_hours[c]`` (``diagnosis``, clocks paused) follows detection for *every* category,
  restart-only and blast-radius ones included; only the wrong blame is limited to
  node-domain categories. With ``n = 1`` there is no other node: the blame is always right.
* The wrong node is drawn at the end of diagnosis, uniformly among the job's other ``n - 1``
  nodes. A node-domain failure is recorded on the blamed node also when the category is
  restart-only; a node's record follows it through repairs for the whole trial.
* Lemon detection comes before repair: a blamed node whose recorded failures in
  ``(t - lemon_window, t]`` (this one included) reach ``lemon_k`` is excluded, never sent
  to repair, whatever ``swap[c]``. So ``lemon_k = 1`` excludes every blamed node.
* Replacement of ``k`` nodes: standbys first (each drawn uniformly among the standbys; each
  counts one ``standby_swaps``), then pool nodes (uniform), then the standbys are refilled
  from what is left in the pool (free, not a swap), then the job waits. A node leaving
  repair goes to a waiting job first, then to short standbys, then to the pool. A node that
  reaches a waiting job counts as taken from the pool. ``preempt_hours`` then
  ``swap_hours`` are charged once, after the last node has arrived, if any node came from
  the pool (an unlimited pool included); none if only standbys were used.
* Swapped nodes enter repair before the replacement is drawn: a repair that ends at that
  same instant (zero repair time) is not in the pool for the draw, but it is the next repair
  that returns a node if the job has to wait.
* Retirement: a node's sends to repair are counted including this one; the send that makes
  it ``retire_after`` retires it instead (no stage 1, not counted in ``repairs_auto``).
* Stages: at the end of stage 1 a bad node is fixed with probability ``1 - auto_miss``;
  then, independently of its type, it enters stage 2 with probability ``escalate_prob``,
  at whose end a bad node is fixed with probability ``1 - manual_miss`` (so an escalated
  bad node stays bad with probability ``auto_miss * manual_miss``). ``repairs_manual``
  counts entries into stage 2 at the wall time they happen; stage ends after the trial's
  end do not happen (nor count).
* Unlimited pool: nodes sent to repair go through the same stages, counted by the same
  rules, then return to the unlimited pool and are not seen again; standbys are refilled
  from it at once with fresh nodes.
* If the job waits for nodes and none is in repair, no node can ever come: the job waits to
  the cap (``spare_wait``); with an infinite cap the wall time is infinite.
* Memory restore: the nodes that left the job (swapped, excluded, blast-radius) are counted
  at the end of diagnosis. The count is reset when an unexpected failure finds a snapshot of
  the run it interrupts durable at or before its time, and when a maintenance checkpoint
  completes. A restart after a failure reads memory iff ``mem_restart_hours >= 0``, the
  failure was not a blast of ``d > 1`` nodes and the count is ``<= mem_replicas``; a
  failure during a restart decides the next restart afresh; a restart after planned
  maintenance (while running or during a restart) reads storage. With the node model on
  and memory restore off every restart counts in ``restarts_storage``; with the model off
  both counts are zero.
* ``pool_occupancy``: repairs are settled up to the trial's last wall time (cap and
  ``max_events`` stops included), then the pool's size is averaged over ``[0, wall]``.
* Initial node types are drawn node by node (each bad with probability ``f``), which makes
  the counts the stated binomials.

Stragglers and silent data corruption (``cat_kind``; inputs without the fields have them off).
The oracle keeps an explicit list of every kept durable checkpoint (wall time its snapshot
began, progress), oldest first, ``retention`` applied by dropping the oldest; an active
straggler as a record (arrival, handling time, node, speed) whose speed factor multiplies the
stepping of every run activity (a straggler arrival splits the activity in two pieces); a
latent corruption as a record (wall time, corrupted progress, detection time, node). It
asserts that the newest kept checkpoint is the durable progress, that a rollback is at most
the corrupted and the reached progress, and at each trial's end that wall equals progress
plus lost hours with no negative time but ``slowdown``. Its resolutions of the points the
contract leaves open are the one list in :mod:`relmc.sim` ("Resolutions of points left open
above (kernel and oracle alike; issue 11)", items 1-10); the kernel agrees with all of them.

Uncertain overheads (``overhead_factor``, ``overhead_jitter``; off when the table has no rows
and every jitter is 0, and then nothing changes, nothing extra is drawn). Each trial reads its
draw's row of ``overhead_factor`` (filled beforehand by
:func:`relmc.sim.simulate.draw_overhead_factors`; the oracle refuses ``overhead_sigma > 0``
without it) and holds its own ``delta``, ``persist`` (capped at ``tau``), restart (storage
and memory), swap, per-category detection, maintenance downtime, per-category diagnosis
(node model), preemption (node model) and per-category SDC latency (the fixed latency, or
the mean of the exponential one, before the latency is drawn), used everywhere the stated
ones were (the maintenance and straggler checkpoints included). A per-event
multiplier ``exp(j Z)`` is drawn from the oracle's generator as each restart attempt, node
swap, detection (a straggler's at its arrival) or maintenance downtime begins, only for an
overhead whose jitter is positive, and whatever its length (0 stays 0).

Physics parameters per draw (``draw_amp``, ``draw_phase``, ``draw_trend``,
``draw_bad_fraction``, ``draw_bad_multiplier``; off when none has rows, and then nothing
changes, nothing extra is drawn). A trial of draw ``d`` reads row ``d`` of each array that has
rows in place of the single value (``cat_amp``, ``cat_phase``, ``trend_shape``,
``bad_fraction``, ``bad_multiplier``), each on its own: its thinning uses its own amplitudes,
peaks and trend shape, its initial nodes (job, standbys, pool) and every fresh node of an
unlimited pool are bad with its own ``f``, its per-node rates use its own ``f`` and ``m_c``.
Which process runs is decided for the whole simulation: thinning (rather than constant-rate
clocks) if any draw's rates vary in time, the node model if ``node_model`` (any draw's
``f > 0``); a neutral draw then runs that process with its neutral values.
Periodic rate profiles (``cat_profile``, ``week_hour0``; off when the table has no rows, and
then nothing changes, nothing extra is drawn). With rows, rates vary in time (thinning, as
above, for the whole simulation) and every category's intensity, cosine and trend included,
is multiplied by ``q_c[k(t)]``, ``k(t) = floor((week_hour0 + t) mod 168)``, looked up at each
candidate's wall time (in ``first_failure``, the hour of the candidate's piece). Each
exposed interval is split where ``q_c`` changes (adjacent hours with equal multipliers form
one piece) and each piece is thinned against its own bound,
``Lambda_c (1 + a_c) q * max(T(a), T(b))`` for the piece ``[a, b)`` of multiplier ``q``; a
piece of multiplier 0 draws nothing (a Poisson process has independent increments, so the
pieces are independent). A row of ones is one piece and leaves a category as it was, bit
for bit; the node model's per-node sources, stragglers and SDC read the same factor (they
are thinned by the same code).
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from relmc.sim import CAUSES
from relmc.sim.inputs import EVENT_OVERHEADS, OVERHEADS, WEEK_HOURS, KernelInputs

__all__ = ["simulate_reference", "NODE_COUNTS", "SDC_COUNTS", "SDC_OUTPUTS"]

#: Per-trial counts of silent data corruption, in output order (zero when none is on).
SDC_COUNTS: tuple[str, ...] = ("sdc_rollbacks", "sdc_from_scratch", "sdc_undetected")
#: Every per-trial SDC output: the counts and the rework hours of rollbacks (a part of
#: ``lost_hours[rework]``).
SDC_OUTPUTS: tuple[str, ...] = (*SDC_COUNTS, "sdc_rework_hours")

_REWORK, _CHECKPOINT, _DETECTION, _NODE_SWAP, _SPARE_WAIT, _RESTART, _MAINTENANCE = range(7)
_SLOWDOWN, _DIAGNOSIS, _PREEMPTION, _STRAGGLER = 7, 8, 9, 10
assert CAUSES[_MAINTENANCE] == "maintenance" and CAUSES[_SLOWDOWN] == "slowdown"
assert CAUSES[_DIAGNOSIS] == "diagnosis" and CAUSES[_PREEMPTION] == "preemption"
assert CAUSES[_STRAGGLER] == "straggler" and len(CAUSES) == 11

_REL_TOL = 1e-9  # float noise in (W - p) / tau must never create an extra, empty segment
_MAINT = -1  # event id of planned maintenance; categories are 0..n_categories-1
_FAILURE, _STRAGGLE, _SDC = 0, 1, 2  # category kinds (``cat_kind``)
# per-event (aleatoric) overhead multipliers: entries of ``overhead_jitter``
_J_RESTART, _J_SWAP, _J_DETECTION, _J_MAINTENANCE = range(4)
assert EVENT_OVERHEADS == ("restart", "swap", "detection", "maintenance")
assert OVERHEADS == (
    "snapshot",
    "persist",
    "restart",
    "swap",
    "detection",
    "maintenance",
    "diagnosis",
    "preemption",
    "sdc_latency",
)
_KIND_DEFAULTS = {  # stragglers and SDC: inputs without these fields have them off
    "cat_kind": 0,
    "straggler_speed": 1.0,
    "sdc_latency": 0.0,
    "sdc_latency_exp": False,
}


class _Stop(Exception):
    """Raised at the wall cap or the ``max_events``-th event; unwinds to the trial loop."""


class _Trial:
    """State of one trial: wall clock, durable progress, clocks, repairs and tallies."""

    def __init__(
        self,
        inputs: KernelInputs,
        rates: np.ndarray,
        rng: np.random.Generator,
        factor: np.ndarray | None = None,
        draw: int = 0,
    ):
        self.x = inputs
        self.rng = rng
        self.draw = draw  # the trial's rate draw: its row of each per-draw physics array
        self.overheads(inputs, factor)
        self.rates = [float(r) for r in rates]
        self.cap = float(inputs.cap_hours)
        self.max_events = int(inputs.max_events)
        self.t = 0.0
        self.p = 0.0  # durable progress, compute hours
        self.lost = [0.0] * len(CAUSES)
        self.interruptions = [0] * len(self.rates)
        self.maintenance_events = 0
        self.swings = 0  # changes between computing (busy) and not computing (idle)
        self.repairs: list[float] = []  # absolute completion times of nodes in repair
        # (durable at, progress, snapshot began) of persists in flight
        self.pending: list[tuple[float, float, float]] = []
        self.next_cat = [self._draw(r, 0.0) for r in self.rates]
        self.next_maint = self._draw(float(inputs.maint_rate), 0.0)
        # the draw's physics parameters (a per-draw array with rows), else the single values
        amp, peak = _draw_row(inputs, "draw_amp", draw), _draw_row(inputs, "draw_phase", draw)
        beta = _draw_row(inputs, "draw_trend", draw)
        self.amp = [float(a) for a in (inputs.cat_amp if amp is None else amp)]
        self.peak = [float(h) for h in (inputs.cat_phase if peak is None else peak)]
        self.beta = float(inputs.trend_shape if beta is None else beta)
        # periodic rate profiles: each category's 168 hourly multipliers (None: off)
        table = np.asarray(getattr(inputs, "cat_profile", np.ones((0, WEEK_HOURS))))
        self.profile = None
        self.constant: list[bool] = []  # per category: a row of one value
        if table.shape[0] > 0:
            assert table.shape == (len(rates), WEEK_HOURS)
            self.profile = [[float(v) for v in row] for row in table]
            assert all(v >= 0.0 for row in self.profile for v in row)
            self.constant = [all(v == row[0] for v in row) for row in self.profile]
        self.week0 = float(getattr(inputs, "week_hour0", 0.0))
        # thinning or constant-rate clocks: decided for the whole simulation (any draw)
        self.varying = _modulated(inputs)
        self.speed_amp = float(inputs.speed_amp)
        self.elapsed = 0.0  # nominal hours of the last exposed activity, also when it stopped
        self.struck: Any = None  # the node whose clock fired (node model), else None
        n_cat = len(self.rates)
        self.kind = [int(k) for k in _kind_field(inputs, "cat_kind", n_cat)]
        self.slow_speed = _kind_field(inputs, "straggler_speed", n_cat)
        self.latency = [v * self.latency_factor for v in _kind_field(inputs, "sdc_latency", n_cat)]
        self.latency_exp = [bool(v) for v in _kind_field(inputs, "sdc_latency_exp", n_cat)]
        self.retention = int(getattr(inputs, "retention", 0))
        # every durable checkpoint still kept: (wall time its snapshot began, progress), oldest
        # first; the newest is always the durable progress ``p`` (none: ``p = 0``)
        self.ckpts: list[tuple[float, float]] = []
        self.slow: dict | None = None  # the active straggler: category, arrival, handling, node
        self.latent: dict | None = None  # the latent corruption: category, time, progress, ...
        self.act_base, self.act_moves = 0.0, False  # progress at the activity's start, computing
        self.sdc_rollbacks = 0
        self.sdc_from_scratch = 0
        self.sdc_rework = 0.0  # rework charged at detections (part of lost[_REWORK])

    def overheads(self, inputs: KernelInputs, factor: np.ndarray | None) -> None:
        """Set the trial's overheads: the stated ones times this draw's ``factor`` row (if any).

        ``factor`` is the trial's row of ``overhead_factor`` (columns of :data:`OVERHEADS`),
        None when the per-draw kind is off: then every overhead is exactly as stated. The
        per-event multipliers (``overhead_jitter``, 0: off) are drawn by :meth:`vary`.
        """
        x = inputs
        f = [1.0] * len(OVERHEADS) if factor is None else [float(v) for v in factor]
        assert len(f) == len(OVERHEADS) and all(v >= 0.0 for v in f)
        self.delta = float(x.delta) * f[0]
        self.persist = float(x.persist)
        if factor is not None:  # the persist is capped at tau (tau stays as given)
            self.persist = min(self.persist * f[1], float(x.tau))
        self.restart_hours = float(x.restart_hours) * f[2]
        self.restart_factor = f[2]  # also for the restart from memory (node model)
        self.swap_hours = float(x.swap_hours) * f[3]
        self.detect = [float(d) * f[4] for d in x.detect_hours]
        self.maint_hours = float(x.maint_hours) * f[5]
        # the node model's diagnosis (every category) and preemption, and every SDC latency
        # (the fixed value, or the exponential's mean): applied where they are read
        self.diag_factor = f[6]
        self.preempt_hours = float(getattr(x, "preempt_hours", 0.0)) * f[7]
        self.latency_factor = f[8]
        jitter = np.asarray(getattr(inputs, "overhead_jitter", np.zeros(0)), dtype=np.float64)
        self.jitter = [float(j) for j in jitter] if jitter.size else [0.0] * len(EVENT_OVERHEADS)
        assert len(self.jitter) == len(EVENT_OVERHEADS) and min(self.jitter) >= 0.0

    def vary(self, k: int) -> float:
        """Per-event multiplier ``exp(j Z)`` of event overhead ``k``, drawn now (1 when off).

        ``k`` indexes :data:`~relmc.sim.inputs.EVENT_OVERHEADS`. Nothing is drawn when its
        jitter is 0; otherwise the draw is made whatever the overhead (0 stays 0).
        """
        j = self.jitter[k]
        if j == 0.0:
            return 1.0
        return math.exp(j * float(self.rng.standard_normal()))

    def big_s(self, t: float) -> float:
        """``S(t)``: nominal hours a run would advance from wall time 0 to ``t``."""
        b, w = self.speed_amp, 2.0 * math.pi / 24.0
        return t + b / w * math.sin(w * (float(self.x.start_hour) + t - float(self.x.speed_phase)))

    def wall_end(self, t0: float, nominal: float) -> float:
        """Wall time at which a run from ``t0`` has advanced ``nominal`` hours (bisection)."""
        b = self.speed_amp
        lo, hi = t0 + nominal / (1.0 + b), t0 + nominal / (1.0 - b)
        target = self.big_s(t0) + nominal
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if self.big_s(mid) < target:
                lo = mid
            else:
                hi = mid
        return hi

    def trend(self, t: float) -> float:
        """Return the power-law trend factor at wall time ``t`` (1 at the job's start)."""
        shape, age = self.beta, float(self.x.fleet_age_hours)
        return ((age + t) / age) ** (shape - 1.0)

    def week_hour(self, t: float) -> int:
        """``k(t) = floor((w0 + t) mod 168)``: the hour of the week at wall time ``t``."""
        return int(math.floor((self.week0 + t) % WEEK_HOURS)) % WEEK_HOURS

    def weekly(self, c: int, t: float) -> float:
        """Profile multiplier ``q_c[k(t)]`` of category ``c`` at wall time ``t`` (1 when off)."""
        if self.profile is None:
            return 1.0
        return self.profile[c][self.week_hour(t)]

    def pieces(self, c: int, t0: float, t1: float) -> list[tuple[float, float, float]]:
        """Split ``[t0, t1)`` where category ``c``'s profile multiplier changes.

        Returns ``(a, b, q)`` triples: consecutive wall intervals over which ``q_c[k(t)] = q``
        (adjacent hours with equal multipliers form one piece). One piece ``(t0, t1, 1)``
        when profiles are off, one for a constant row. Hour ends are stepped from the first
        one by whole hours and each piece's hour is counted in integers from ``t0``'s, not
        looked up at the rounded hour end: at a fractional ``week_hour0`` an end past a power
        of two (1024 h) can round just below the hour's true end, and a look-up there read
        the previous hour's multiplier for every piece after it.
        """
        if self.profile is None:
            return [(t0, t1, 1.0)]
        row = self.profile[c]
        if self.constant[c]:  # (a row of ones: one piece, as without profiles)
            return [(t0, t1, row[0])]
        out = []
        k = self.week_hour(t0)  # an integer count of hours from here on: no float drift
        pos = (self.week0 + t0) % WEEK_HOURS
        end = t0 + (math.floor(pos) + 1.0 - pos)  # the end of t0's hour of the week
        a, q = t0, row[k]
        while True:
            while end < t1 and row[(k + 1) % WEEK_HOURS] == q:
                k += 1
                end += 1.0
            if end >= t1:
                out.append((a, t1, q))
                return out
            out.append((a, end, q))
            k += 1
            a, q = end, row[k % WEEK_HOURS]
            end += 1.0

    def modulation(self, c: int, t: float, q: float | None = None) -> float:
        """Diurnal, weekly-profile and trend factor of category ``c`` at wall time ``t``.

        1 when the rates are constant. The profile multiplies the cosine (a category with a
        profile has ``a_c = 0``; one without has a row of ones); ``q``: its multiplier at
        ``t`` when the caller knows it (the piece of :meth:`pieces` holding ``t``).
        """
        hour = float(self.x.start_hour) + t
        day = 1.0 + self.amp[c] * math.cos(2.0 * math.pi * (hour - self.peak[c]) / 24.0)
        if self.profile is not None:
            day *= self.weekly(c, t) if q is None else q
        return day * self.trend(t)

    def intensity(self, c: int, t: float) -> float:
        """Failure intensity of category ``c`` at wall time ``t`` (per hour)."""
        return self.rates[c] * self.modulation(c, t)

    def sources(self) -> list[tuple[int, Any, float]]:
        """Independent failure sources: (category, node or None, rate at modulation 1)."""
        return [(c, None, rate) for c, rate in enumerate(self.rates)]

    def first_failure(self, t0: float, t1: float) -> tuple[float, int | None]:
        """Earliest failure in the exposed wall interval ``[t0, t1)`` by per-source thinning.

        The node that failed (None for a cluster-level source) is left in ``self.struck``.
        """
        first, who, struck = math.inf, None, None
        for c, node, rate in self.sources():
            if self.blocked(c):
                continue
            for a, b, q in self.pieces(c, t0, t1):
                if a >= first:
                    break
                top = max(self.trend(a), self.trend(b))
                bound = rate * (1.0 + self.amp[c]) * q * top
                if bound <= 0.0:
                    continue
                s, hit = a, False
                while True:
                    s += self.rng.exponential(1.0 / bound)
                    if s >= min(b, first):
                        break
                    if self.rng.random() * bound < rate * self.modulation(c, s, q):
                        first, who, struck, hit = s, c, node, True
                        break
                if hit:
                    break
        self.struck = struck
        return first, who

    def earliest_clock(self) -> tuple[float, int | None]:
        """Earliest pending constant-rate category clock: (time, category)."""
        first, who = math.inf, None
        for c, tc in enumerate(self.next_cat):
            if tc < first and not self.blocked(c):
                first, who = tc, c
        self.struck = None
        return first, who

    def blocked(self, c: int) -> bool:
        """Whether category ``c``'s clock is paused: a straggler active, a corruption latent."""
        kind = self.kind[c]
        return (kind == _STRAGGLE and self.slow is not None) or (
            kind == _SDC and self.latent is not None
        )

    def fresh_clocks(self, kind: int, now: float) -> None:
        """Restart the paused clocks of every category of ``kind`` at ``now`` (memoryless)."""
        if self.varying:
            return
        for c in range(len(self.rates)):
            if self.kind[c] == kind:
                self.next_cat[c] = self._draw(self.rates[c], now)

    def redraw(self, c: int, now: float) -> None:
        """Redraw the constant-rate clock of category ``c`` that fired at ``now``."""
        self.next_cat[c] = self._draw(self.rates[c], now)

    def _draw(self, rate: float, now: float) -> float:
        """Absolute time of the next event of a clock with ``rate``, drawn at ``now``."""
        if rate <= 0.0:
            return math.inf
        return now + self.rng.exponential(1.0 / rate)

    # ---- time advancing -------------------------------------------------------------

    def pause(self, duration: float, cause: int) -> None:
        """Spend ``duration`` unexposed, charged to ``cause``; every clock is shifted."""
        end = self.t + duration
        if end > self.cap:
            self.lost[cause] += self.cap - self.t
            self.t = self.cap
            raise _Stop
        self.lost[cause] += duration
        self.next_cat = [c + duration for c in self.next_cat]
        self.next_maint += duration
        self.t = end

    def expose(
        self,
        duration: float,
        cause: int | None,
        maint_exposed: bool = True,
        scaled: bool = False,
    ):
        """Spend up to ``duration`` exposed to events, charged to ``cause`` (None: compute).

        Returns ``(event, elapsed)``: ``event`` is None when the interval completed, a category
        index or ``_MAINT`` when that clock fired first, ``("sdc", c)`` when a latent
        corruption is detected, ``("straggler", c)`` when an active straggler is handled.
        Straggler and SDC *arrivals* do not end the interval: they are recorded and the
        interval goes on (from an arrival on, a ``scaled`` activity advances at the
        straggler's speed). Raises ``_Stop`` at the cap, after charging the elapsed part;
        the caller then charges the lost compute as rework. A ``scaled`` activity (part of a
        run) lasts ``duration`` nominal hours at the diurnal speed times the straggler's
        factor: ``elapsed`` (also left in ``self.elapsed``) is nominal; wall hours beyond
        the unslowed run's are ``slowdown``, the unslowed run's nominal hours beyond those
        made are ``straggler``.
        """
        done = 0.0  # nominal hours of this activity done so far
        while True:
            t0 = self.t
            factor = self.slow["speed"] if scaled and self.slow is not None else 1.0
            stretched = scaled and (self.speed_amp > 0.0 or factor < 1.0)
            rem = duration - done
            end = self.wall_end(t0, rem / factor) if stretched else t0 + rem
            # deadlines: detection of a latent corruption (any exposed activity), handling
            # of a straggler (only in a run before its last compute; in a restart the
            # caller handles it at the restart's end)
            due, due_event = math.inf, None
            if self.latent is not None:
                due, due_event = max(self.latent["detect"], t0), ("sdc", self.latent["c"])
            if self.slow is not None and scaled and maint_exposed:
                handle = max(self.slow["handle"], t0)
                if handle < due:
                    due, due_event = handle, ("straggler", self.slow["c"])
            if due > t0 and due >= end:  # neither overdue nor before the end
                due, due_event = math.inf, None
            limit = min(end, self.cap, due)
            first: float
            who: int | None
            if self.varying:
                first, who = self.first_failure(t0, limit)
            else:
                first, who = self.earliest_clock()
            if maint_exposed and self.next_maint < first:
                first, who = self.next_maint, _MAINT
            event: object  # a category index, _MAINT, a tuple, None (done) or "cap"
            if first < limit:
                stop, event = max(first, t0), who
            elif due <= self.cap and due < math.inf:
                stop, event = due, due_event
            elif end <= self.cap:
                stop, event = end, None
            else:
                stop, event = self.cap, "cap"
            wall = stop - t0
            nominal = wall
            if stretched:
                unslowed = self.big_s(stop) - self.big_s(t0)  # nominal hours at factor 1
                nominal = rem
                if event is not None:
                    nominal = min(max(factor * unslowed, 0.0), rem)
                if factor < 1.0:
                    self.lost[_SLOWDOWN] += wall - unslowed
                    self.lost[_STRAGGLER] += unslowed - nominal
                else:
                    self.lost[_SLOWDOWN] += wall - nominal
            assert wall >= 0.0 and nominal >= 0.0
            done += nominal
            self.elapsed = done
            if cause is not None:
                self.lost[cause] += nominal
            if not maint_exposed:
                self.next_maint += wall
            self.t = stop
            if event == "cap":
                raise _Stop
            if event == _MAINT:
                self.next_maint = self._draw(float(self.x.maint_rate), stop)
            elif isinstance(event, int) and self.kind[event] != _FAILURE:
                self.arrival(event, done)  # a straggler or a corruption: the activity goes on
                continue
            elif isinstance(event, int) and not self.varying:
                self.redraw(event, stop)
            return event, done

    def arrival(self, c: int, done: float) -> None:
        """Record the arrival now (``self.t``) of a straggler or a corruption of category ``c``."""
        now = self.t
        if self.kind[c] == _STRAGGLE:
            self.interruptions[c] += 1
            speed = self.slow_speed[c]
            assert 0.0 < speed < 1.0
            self.slow = {
                "c": c,
                "arrival": now,
                # its slow phase is its detection: the multiplier is drawn at the arrival
                "handle": now + self.detect[c] * self.vary(_J_DETECTION),
                "node": self.struck,
                "speed": speed,
            }
            # persists in flight are part of the run: from now on they advance slower too
            self.pending = [
                (self.run_wall_end(now, self.nominal_left(now, when)), prog, began)
                if when > now
                else (when, prog, began)
                for when, prog, began in self.pending
            ]
            self.check_events()
        else:
            mean = self.latency[c]
            latency = float(self.rng.exponential(mean)) if self.latency_exp[c] else mean
            self.latent = {
                "c": c,
                "time": now,
                "progress": self.act_base + (done if self.act_moves else 0.0),
                "detect": now + latency,
                "node": self.struck,
            }

    def nominal_left(self, now: float, when: float) -> float:
        """Nominal hours, at factor 1, a run needs from ``now`` to wall ``when``."""
        if self.speed_amp > 0.0:
            return self.big_s(when) - self.big_s(now)
        return when - now

    def run_wall_end(self, t0: float, nominal: float) -> float:
        """Wall time at which the run from ``t0`` has advanced ``nominal`` hours."""
        factor = self.slow["speed"] if self.slow is not None else 1.0
        if self.speed_amp > 0.0:
            return self.wall_end(t0, nominal / factor)
        return t0 + nominal / factor

    def end_slow(self) -> None:
        """End an active straggler's slow phase: the job stops (its node is handled)."""
        if self.slow is not None:
            self.slow = None
            self.fresh_clocks(_STRAGGLE, self.t)

    # ---- progress bookkeeping -------------------------------------------------------

    def durable_at(self, t: float) -> float:
        """Durable progress at wall time ``t`` (snapshots whose persist ended by ``t``)."""
        d = self.p
        for when, prog, _ in self.pending:
            if when <= t:
                d = max(d, prog)
        return d

    def keep(self, began: float, progress: float) -> None:
        """Keep a checkpoint that became durable; drop the oldest beyond ``retention``."""
        assert not self.ckpts or (
            self.ckpts[-1][0] <= began and self.ckpts[-1][1] <= progress * (1 + _REL_TOL)
        )
        self.ckpts.append((began, progress))
        if self.retention > 0:
            del self.ckpts[: -self.retention]

    def settle(self, t: float, everything: bool = False) -> None:
        """Keep the persists durable by ``t`` (all in flight if ``everything``), in order."""
        still = []
        for when, prog, began in self.pending:
            if when <= t or everything:
                self.keep(began, prog)
            else:
                still.append((when, prog, began))
        self.pending = still

    def check_progress(self) -> None:
        """Check that the newest kept checkpoint is the durable progress (none: 0)."""
        newest = self.ckpts[-1][1] if self.ckpts else 0.0
        assert newest == self.p or (self.p == float(self.x.work_hours) and not self.pending), (
            newest,
            self.p,
        )

    def fall_back(self, computed: float) -> None:
        """Throw away compute since the last durable checkpoint (a failure or the cap)."""
        d = self.durable_at(self.t)
        assert computed >= d - 1e-9 * max(1.0, d)
        self.lost[_REWORK] += computed - d
        self.settle(self.t)
        self.p = d
        self.pending = []
        self.check_progress()

    # ---- recovery -------------------------------------------------------------------

    def recover(self, c: int, detect: bool = True) -> None:
        """Spend detection, then a node swap (spare pool) if category ``c`` needs one."""
        x = self.x
        if detect:
            self.pause(self.detect[c] * self.vary(_J_DETECTION), _DETECTION)
        if not bool(x.swap[c]):
            return
        if x.n_spares >= 0:
            now = self.t
            self.repairs = [r for r in self.repairs if r > now]
            self.repairs.append(now + self.rng.exponential(float(x.repair_hours)))
            if len(self.repairs) > x.n_spares:
                earliest = min(self.repairs)
                self.repairs.remove(earliest)
                self.pause(earliest - now, _SPARE_WAIT)
        self.pause(self.swap_hours * self.vary(_J_SWAP), _NODE_SWAP)

    def check_events(self) -> None:
        """Stop unfinished, at this moment, once ``max_events`` events have happened."""
        if sum(self.interruptions) + self.maintenance_events >= self.max_events:
            raise _Stop

    def failure(self, c: int, computed: float) -> None:
        """Unexpected failure of category ``c`` with ``computed`` progress reached."""
        self.end_slow()
        self.interruptions[c] += 1
        self.fall_back(computed)
        self.check_events()
        self.recover(c)

    def blame(self, node, when: float) -> None:
        """Name the node a straggler or a corruption struck (used by the node model)."""

    def sdc_detect(self, computed: float) -> None:
        """Detect the latent corruption now with ``computed`` progress reached; roll back."""
        lat = self.latent
        assert lat is not None and lat["detect"] <= self.t
        c = lat["c"]
        self.latent = None
        self.fresh_clocks(_SDC, self.t)
        self.end_slow()
        self.interruptions[c] += 1
        self.settle(self.t)  # persists in flight now are lost, as in a failure
        self.pending = []
        clean = [i for i, (began, _) in enumerate(self.ckpts) if began <= lat["time"]]
        keep = clean[-1] + 1 if clean else 0  # checkpoints up to the rollback point
        back = self.ckpts[keep - 1][1] if keep else 0.0
        self.sdc_rollbacks += len(self.ckpts) - keep
        self.sdc_from_scratch += 0 if keep else 1
        assert back <= lat["progress"] * (1 + _REL_TOL) + 1e-12
        assert back <= computed * (1 + _REL_TOL) + 1e-12
        self.lost[_REWORK] += computed - back
        self.sdc_rework += computed - back
        self.ckpts = self.ckpts[:keep]
        self.p = back
        self.check_progress()
        self.check_events()
        self.blame(lat["node"], self.t)  # recorded at the detection: records in time order
        self.recover(c)
        self.after_sdc()

    def after_sdc(self) -> None:
        """Run after an SDC's or a straggler's recovery (node model: restart from storage)."""

    def checkpoint_now(self, computed: float) -> None:
        """Take a fresh checkpoint of ``computed`` (maintenance, straggler): ``delta + persist``.

        Persists in flight complete during it; its snapshot begins now.
        """
        began = self.t
        try:
            self.pause(self.delta + self.persist, _CHECKPOINT)
        except _Stop:
            self.fall_back(computed)
            raise
        self.settle(self.t, everything=True)
        self.keep(began, computed)
        self.p = computed
        self.check_progress()

    def handle_straggler(self, computed: float | None) -> bool:
        """Handle the active straggler; True if the job is then done.

        In a run (``computed`` reached) the job first takes a fresh checkpoint as for planned
        maintenance; at the end of a restart (``computed`` None) it takes none.
        """
        slow = self.slow
        assert slow is not None and slow["handle"] <= self.t
        self.end_slow()
        if computed is not None:
            self.checkpoint_now(computed)
            if self.done():
                return True
        self.after_straggler_checkpoint(computed is not None)
        self.blame(slow["node"], slow["arrival"])
        self.recover(slow["c"], detect=False)  # its detection was the slow phase itself
        self.after_sdc()
        return False

    def after_straggler_checkpoint(self, took: bool) -> None:
        """Run after a straggler's checkpoint (the node model resets its count of nodes)."""

    # ---- phases ---------------------------------------------------------------------

    def restart_length(self) -> float:
        """Hours of the restart about to begin (before its per-event multiplier)."""
        return self.restart_hours

    def planned_in_restart(self) -> None:
        """Note planned maintenance during a restart (used by the node model)."""

    def restart(self) -> None:
        """Restart until one completes; failures and maintenance may strike during it."""
        while True:
            self.act_base, self.act_moves = self.p, False
            length = self.restart_length() * self.vary(_J_RESTART)  # drawn as it begins
            event, _ = self.expose(length, _RESTART)
            if event is None:
                if self.slow is not None and self.slow["handle"] <= self.t:
                    self.handle_straggler(None)  # handled at the end of the restart
                    continue
                return
            if isinstance(event, tuple):
                assert event[0] == "sdc"
                self.sdc_detect(self.p)
            elif event == _MAINT:
                self.end_slow()
                self.maintenance_events += 1
                self.check_events()
                self.planned_in_restart()
                self.pause(self.maint_hours * self.vary(_J_MAINTENANCE), _MAINTENANCE)
            else:
                self.failure(event, self.p)

    def maintenance(self, computed: float) -> bool:
        """Planned maintenance with ``computed`` progress reached; True if the job is done."""
        self.end_slow()
        self.maintenance_events += 1
        try:
            self.check_events()
        except _Stop:
            self.fall_back(computed)
            raise
        self.checkpoint_now(computed)
        if self.done():  # unreachable but for float noise: the event came before compute ended
            return True
        self.pause(self.maint_hours * self.vary(_J_MAINTENANCE), _MAINTENANCE)
        return False

    def done(self) -> bool:
        w = float(self.x.work_hours)
        if self.p >= w * (1.0 - _REL_TOL):
            self.p = w
            return True
        return False

    def run(self) -> bool:
        """Compute from durable progress ``p``; True when finished, False after an event.

        After a False return the job needs a restart.
        """
        x = self.x
        w, tau, delta, persist = float(x.work_hours), float(x.tau), self.delta, self.persist
        if self.done():
            return True
        self.swings += 1  # compute starts
        base = self.p
        remaining = w - base
        q = remaining / tau
        n = max(1, math.ceil(q * (1.0 - _REL_TOL)))
        self.pending = []
        for k in range(n):
            last = k == n - 1
            start = base + k * tau
            length = remaining - (n - 1) * tau if last else tau
            end_prog = w if last else base + (k + 1) * tau
            # compute
            self.act_base, self.act_moves = start, True
            try:
                event, elapsed = self.expose(length, None, scaled=True)
            except _Stop:
                self.fall_back(start + self.elapsed)
                raise
            if event is not None:
                self.swings += 1  # an event while computing stops it
                return self.stop_run(event, start + elapsed)
            # blocking snapshot; planned events after the last compute are deferred
            if delta > 0.0 or last:
                # compute stops for a snapshot; after the last compute it stops in any case
                # (final persist wait, or the job's end)
                self.swings += 1
            began = self.t  # the snapshot captures the state at its start
            self.act_base, self.act_moves = end_prog, False
            try:
                event, _ = self.expose(delta, _CHECKPOINT, maint_exposed=not last, scaled=True)
            except _Stop:
                self.fall_back(end_prog)
                raise
            if event is not None:
                return self.stop_run(event, end_prog)
            if delta > 0.0 and not last:
                self.swings += 1  # compute resumes
            durable = self.run_wall_end(self.t, persist)
            self.pending.append((durable, end_prog, began))
        # final persist wait: exposed to failures only (and to a corruption's detection)
        try:
            event, _ = self.expose(persist, _CHECKPOINT, maint_exposed=False, scaled=True)
        except _Stop:
            self.fall_back(w)
            raise
        if event is not None:
            return self.stop_run(event, w)
        self.p = w
        self.pending = []
        return True

    def stop_run(self, event, computed: float) -> bool:
        """Stop the run for ``event`` with ``computed`` progress; True if the job is done."""
        if event == _MAINT:
            return self.maintenance(computed)
        if isinstance(event, tuple):
            if event[0] == "sdc":
                self.sdc_detect(computed)
                return False
            return self.handle_straggler(computed)
        self.failure(event, computed)
        return False

    def check_accounts(self) -> None:
        """At the trial's end: wall == progress + lost, no negative time but slowdown.

        Also: the SDC rework is within the rework.
        """
        if not math.isfinite(self.t):
            return
        total = self.p + sum(self.lost)
        assert abs(self.t - total) <= 1e-7 * max(1.0, self.t), (self.t, total)
        for j, hours in enumerate(self.lost):
            assert j == _SLOWDOWN or hours >= -1e-7 * max(1.0, self.t), (CAUSES[j], hours)
        assert 0.0 <= self.p <= float(self.x.work_hours) * (1 + _REL_TOL)
        slack = 1e-7 * max(1.0, self.t)  # SDC rework is a part of the rework
        assert -slack <= self.sdc_rework <= self.lost[_REWORK] + slack

    def simulate(self) -> bool:
        """Run the trial to the end or the cap; return ``finished``."""
        try:
            if self.run():
                return True
            while True:
                self.restart()
                if self.run():
                    return True
        except _Stop:
            return False


# ---- the node model -------------------------------------------------------------------------

#: Per-trial counts of the node model, in output order (zero when it is off).
NODE_COUNTS: tuple[str, ...] = (
    "nodes_excluded_bad",
    "nodes_excluded_good",
    "repairs_auto",
    "repairs_manual",
    "nodes_retired",
    "wrong_blames",
    "standby_swaps",
    "restarts_memory",
    "restarts_storage",
)


def _per_category(value, n_cat: int, default: float) -> list[float]:
    """Per-category values of a node-model input; an empty array means the default."""
    a = np.asarray(value, dtype=np.float64).ravel()
    if a.size == 0:
        return [default] * n_cat
    assert a.shape == (n_cat,), f"a per-category input has shape {a.shape}, not ({n_cat},)"
    return [float(v) for v in a]


def _draw_row(inputs, name: str, draw: int):
    """Row ``draw`` of the per-draw physics array ``name``, or None (the single value).

    None when the array has no rows, or the inputs predate it.
    """
    table = getattr(inputs, name, None)
    if table is None or np.shape(table)[0] == 0:
        return None
    return np.asarray(table)[draw]


def _modulated(inputs) -> bool:
    """Whether failure rates vary in time in any draw (single values, per-draw rows, profiles)."""
    if any(float(a) > 0.0 for a in np.ravel(inputs.cat_amp)) or float(inputs.trend_shape) != 1.0:
        return True
    amp = np.asarray(getattr(inputs, "draw_amp", np.zeros((0, 0))), dtype=np.float64)
    trend = np.asarray(getattr(inputs, "draw_trend", np.ones(0)), dtype=np.float64)
    profile = np.asarray(getattr(inputs, "cat_profile", np.ones((0, WEEK_HOURS))))
    return bool(np.any(amp > 0.0) or np.any(trend != 1.0) or profile.shape[0] > 0)


def _kind_field(inputs, name: str, n_cat: int) -> list[float]:
    """Per-category stragglers/SDC input ``name`` (absent or empty: its default)."""
    return _per_category(getattr(inputs, name, np.zeros(0)), n_cat, _KIND_DEFAULTS[name])


class _Node:
    """One node: its type, where it is, its recorded failures, repairs and failure clocks."""

    __slots__ = ("bad", "where", "failures", "sends", "clock")

    def __init__(self, bad: bool, where: str):
        self.bad = bad
        self.where = where  # job, standby, pool, repair1, repair2, excluded, retired, returned
        self.failures: list[float] = []  # wall times of the failures recorded on it
        self.sends = 0  # times sent to repair (or retired)
        self.clock: list[float] = []  # absolute next failure time per category (in the job)


class _NodeTrial(_Trial):
    """A trial of the node model: an explicit list of node objects, one clock per node.

    Every node of the job carries its own exponential clock per node-domain category, at
    ``g_c = Lambda_c / (n (1 - f + f m_c))`` for a good node and ``m_c g_c`` for a bad one;
    a blast-radius category keeps one cluster clock at ``Lambda_c``. Nodes move between
    lists (job, standbys, pool) and a heap of repair completions; every move is checked
    against the conservation of nodes.
    """

    def __init__(
        self,
        inputs: KernelInputs,
        rates: np.ndarray,
        rng: np.random.Generator,
        factor: np.ndarray | None = None,
        draw: int = 0,
    ):
        super().__init__(inputs, rates, rng, factor, draw)
        x = inputs
        n_cat = len(self.rates)
        self.n = int(x.n_nodes)
        # the draw's bad-node fraction and multipliers (per-draw rows), else the single values
        f, mult = _draw_row(x, "draw_bad_fraction", draw), _draw_row(x, "draw_bad_multiplier", draw)
        self.f = float(x.bad_fraction if f is None else f)
        self.mult = _per_category(x.bad_multiplier if mult is None else mult, n_cat, 1.0)
        self.dsize = [int(d) for d in _per_category(x.cat_domain, n_cat, 1.0)]
        self.diag = [v * self.diag_factor for v in _per_category(x.diag_hours, n_cat, 0.0)]
        self.wrong = _per_category(x.diag_wrong, n_cat, 0.0)
        for c in range(n_cat):  # stragglers and SDC: node-domain, never a wrong blame
            if self.kind[c] != _FAILURE:
                self.dsize[c], self.wrong[c] = 1, 0.0
        self.node_cats = [c for c in range(n_cat) if self.dsize[c] <= 1]
        self.good_rate = [
            self.rates[c] / (self.n * (1.0 - self.f + self.f * self.mult[c])) for c in range(n_cat)
        ]
        for c in self.node_cats:  # per-node clocks replace the cluster clock
            self.next_cat[c] = math.inf
        self.lemon_k, self.window = int(x.lemon_k), float(x.lemon_window)
        self.n_standbys, self.finite = int(x.n_standbys), int(x.n_spares) >= 0
        self.mem_hours, self.replicas = float(x.mem_restart_hours), int(x.mem_replicas)
        if self.mem_hours >= 0.0:  # negative is off; on, the restart's per-draw factor applies
            self.mem_hours *= self.restart_factor
        self.counts = dict.fromkeys(NODE_COUNTS, 0)
        self.created = 0  # fresh nodes drawn from an unlimited pool
        self.total = self.n + self.n_standbys + (int(x.n_spares) if self.finite else 0)
        self.shop: list[tuple[float, int, _Node, int]] = []  # heap: (done at, seq, node, stage)
        self.seq = 0
        self.excluded: list[_Node] = []
        self.retired: list[_Node] = []
        self.returned = 0  # repaired nodes gone back to an unlimited pool
        self.need = 0  # nodes the job still waits for
        self.left = 0  # nodes that left the job since the last durable checkpoint
        self.memory_next = False  # whether the next restart reads peers' memory
        self.t_fail = 0.0
        self.struck_fail: _Node | None = None
        self.pool_area, self.pool_t = 0.0, 0.0
        self.took_pool = False  # whether the current replacement took a node from the pool
        self.job: list[_Node] = []
        for _ in range(self.n):
            self.join(self.fresh())
        self.standbys = [self.fresh("standby") for _ in range(self.n_standbys)]
        self.pool = [self.fresh("pool") for _ in range(int(x.n_spares) if self.finite else 0)]
        self.created = 0  # the initial nodes are in self.total already
        self.check_nodes()

    # ---- nodes ----------------------------------------------------------------------

    def fresh(self, where: str = "job") -> _Node:
        """Make a new node, bad with probability ``f``."""
        self.created += 1
        return _Node(bool(self.rng.random() < self.f), where)

    def node_rate(self, node: _Node, c: int) -> float:
        """Failure rate of ``node`` in node-domain category ``c`` (per exposed hour)."""
        return self.good_rate[c] * (self.mult[c] if node.bad else 1.0)

    def join(self, node: _Node) -> None:
        """Put ``node`` in the job with fresh clocks (the job is not exposed now)."""
        node.where = "job"
        node.clock = [math.inf] * len(self.rates)
        for c in self.node_cats:
            node.clock[c] = self._draw(self.node_rate(node, c), self.t)
        self.job.append(node)

    def leave(self, node: _Node) -> None:
        self.job.remove(node)
        node.clock = []
        if self.latent is not None and self.latent["node"] is node:
            # a latent corruption's node left the job: its detection blames no node, also
            # if the node is back in the job by then (repaired, it is another node's story)
            self.latent["node"] = None

    def check_nodes(self) -> None:
        """Nodes are conserved across job, standbys, pool, repair, excluded and retired."""
        held = len(self.job) + len(self.standbys) + len(self.pool) + len(self.shop)
        held += len(self.excluded) + len(self.retired) + self.returned
        assert held == self.total + self.created, (held, self.total, self.created)
        assert len(self.job) + self.need == self.n and self.need >= 0
        assert 0 <= len(self.standbys) <= self.n_standbys and len(self.pool) >= 0
        assert self.finite or not self.pool
        assert all(nd.where == "job" for nd in self.job)
        assert all(nd.where == "standby" for nd in self.standbys)
        assert all(nd.where == "pool" for nd in self.pool)

    def integrate_pool(self, t: float) -> None:
        """Accumulate the time integral of the pool's size up to ``t``."""
        assert t >= self.pool_t
        self.pool_area += len(self.pool) * (t - self.pool_t)
        self.pool_t = t

    def take_from_pool(self) -> _Node | None:
        """Draw a node uniformly from the pool (fresh from an unlimited one), or None."""
        if not self.finite:
            return self.fresh()
        if not self.pool:
            return None
        self.integrate_pool(self.t)
        return self.pool.pop(int(self.rng.integers(len(self.pool))))

    # ---- repair pipeline --------------------------------------------------------------

    def stage_hours(self, stage: int) -> float:
        mean = float(self.x.repair_hours if stage == 1 else self.x.manual_repair_hours)
        if bool(self.x.repair_fixed) or mean <= 0.0:
            return mean
        return float(self.rng.exponential(mean))

    def enter_stage(self, node: _Node, stage: int, now: float) -> None:
        node.where = f"repair{stage}"
        self.counts["repairs_auto" if stage == 1 else "repairs_manual"] += 1
        self.seq += 1
        heapq.heappush(self.shop, (now + self.stage_hours(stage), self.seq, node, stage))

    def send_to_repair(self, node: _Node) -> None:
        """Send a node that left the job to repair, or retire it on its last send."""
        node.sends += 1
        retire_after = int(self.x.retire_after)
        if retire_after > 0 and node.sends >= retire_after:
            node.where = "retired"
            self.retired.append(node)
            self.counts["nodes_retired"] += 1
        else:
            self.enter_stage(node, 1, self.t)

    def advance_shop(self, t: float) -> None:
        """Process every repair stage that ends at or before ``t``, in time order."""
        if not self.shop or self.shop[0][0] > t:
            return
        while self.shop and self.shop[0][0] <= t:
            when, _, node, stage = heapq.heappop(self.shop)
            self.integrate_pool(when)
            miss = float(self.x.auto_miss if stage == 1 else self.x.manual_miss)
            if node.bad and self.rng.random() >= miss:
                node.bad = False
            if stage == 1 and float(self.x.escalate_prob) > 0.0:
                if self.rng.random() < float(self.x.escalate_prob):
                    self.enter_stage(node, 2, when)
                    continue
            self.route(node)
        self.check_nodes()

    def route(self, node: _Node) -> None:
        """Send a repaired node to a waiting job, else the standbys if short, else the pool."""
        if self.need > 0:
            self.join(node)
            self.need -= 1
            self.took_pool = True
        elif len(self.standbys) < self.n_standbys:
            node.where = "standby"
            self.standbys.append(node)
        elif self.finite:
            node.where = "pool"
            self.pool.append(node)
        else:
            node.where = "returned"
            self.returned += 1

    # ---- clocks -------------------------------------------------------------------------

    def sources(self) -> list[tuple[int, Any, float]]:
        cluster: list[tuple[int, _Node | None, float]] = [
            (c, None, self.rates[c]) for c in range(len(self.rates)) if self.dsize[c] > 1
        ]
        per_node: list[tuple[int, _Node | None, float]] = [
            (c, nd, self.node_rate(nd, c)) for nd in self.job for c in self.node_cats
        ]
        return cluster + per_node

    def earliest_clock(self) -> tuple[float, int | None]:
        first, who = super().earliest_clock()
        struck: _Node | None = None
        for node in self.job:
            for c in self.node_cats:
                if node.clock[c] < first and not self.blocked(c):
                    first, who, struck = node.clock[c], c, node
        self.struck = struck
        return first, who

    def fresh_clocks(self, kind: int, now: float) -> None:
        if self.varying:
            return
        for c in range(len(self.rates)):
            if self.kind[c] != kind:
                continue
            if c in self.node_cats:
                for node in self.job:
                    node.clock[c] = self._draw(self.node_rate(node, c), now)
            else:
                self.next_cat[c] = self._draw(self.rates[c], now)

    def blame(self, node, when: float) -> None:
        # the struck node, if it is still in the job (a failure's recovery may have swapped it)
        self.t_fail = when
        self.struck_fail = node if node is not None and node.where == "job" else None

    def after_sdc(self) -> None:
        self.memory_next = False

    def after_straggler_checkpoint(self, took: bool) -> None:
        if took:
            self.left = 0

    def redraw(self, c: int, now: float) -> None:
        if self.struck is None:
            super().redraw(c, now)
        else:
            self.struck.clock[c] = self._draw(self.node_rate(self.struck, c), now)

    def pause(self, duration: float, cause: int) -> None:
        super().pause(duration, cause)
        for node in self.job:
            node.clock = [tc + duration for tc in node.clock]

    def expose(self, duration, cause, maint_exposed=True, scaled=False):
        assert len(self.job) == self.n and self.need == 0  # the job holds all its nodes
        return super().expose(duration, cause, maint_exposed=maint_exposed, scaled=scaled)

    # ---- failures, recovery, restarts ---------------------------------------------------

    def fall_back(self, computed: float) -> None:
        if any(when <= self.t for when, _, _ in self.pending):  # a new checkpoint is durable
            self.left = 0
        super().fall_back(computed)

    def failure(self, c: int, computed: float) -> None:
        self.t_fail, self.struck_fail = self.t, self.struck
        super().failure(c, computed)

    def recover(self, c: int, detect: bool = True) -> None:
        """Spend detection and diagnosis; blame, detect lemons, repair, replace."""
        x = self.x
        if detect:
            self.pause(self.detect[c] * self.vary(_J_DETECTION), _DETECTION)
        self.pause(self.diag[c], _DIAGNOSIS)
        self.advance_shop(self.t)
        to_repair: list[_Node] = []
        to_exclude: list[_Node] = []
        blast = False
        if self.dsize[c] > 1:  # blast radius: d nodes at once, no blame, all to repair
            d = min(self.dsize[c], self.n)
            picks = self.rng.choice(len(self.job), size=d, replace=False)
            to_repair = [self.job[int(i)] for i in picks]
            blast = d > 1
        elif self.struck_fail is None:  # an SDC whose node has left the job: no one to blame
            assert self.kind[c] == _SDC
        else:
            blamed = self.struck_fail
            assert blamed.where == "job"
            if self.n > 1 and self.wrong[c] > 0.0 and self.rng.random() < self.wrong[c]:
                others = [nd for nd in self.job if nd is not blamed]
                blamed = others[int(self.rng.integers(len(others)))]
                self.counts["wrong_blames"] += 1
            blamed.failures.append(self.t_fail)
            recent = sum(1 for s in blamed.failures if s > self.t_fail - self.window)
            if self.lemon_k >= 1 and recent >= self.lemon_k:
                to_exclude = [blamed]
            elif bool(x.swap[c]):
                to_repair = [blamed]
        for node in to_exclude:
            self.leave(node)
            node.where = "excluded"
            self.excluded.append(node)
            self.counts["nodes_excluded_bad" if node.bad else "nodes_excluded_good"] += 1
        for node in to_repair:
            self.leave(node)
            self.send_to_repair(node)
        gone = len(to_exclude) + len(to_repair)
        self.left += gone
        self.memory_next = self.mem_hours >= 0.0 and not blast and self.left <= self.replicas
        self.replace(gone)

    def replace(self, need: int) -> None:
        """Refill the job: standbys first, then pool nodes, then wait for repairs."""
        self.need = need
        self.took_pool = False
        while self.need > 0 and self.standbys:
            standby = self.standbys.pop(int(self.rng.integers(len(self.standbys))))
            self.join(standby)
            self.need -= 1
            self.counts["standby_swaps"] += 1
        while self.need > 0:
            node = self.take_from_pool()
            if node is None:
                break
            self.join(node)
            self.need -= 1
            self.took_pool = True
        while len(self.standbys) < self.n_standbys:
            node = self.take_from_pool()
            if node is None:
                break
            node.where = "standby"
            self.standbys.append(node)
        self.check_nodes()
        while self.need > 0:
            if not self.shop:  # no node can ever come: wait to the cap
                self.lost[_SPARE_WAIT] += self.cap - self.t
                self.t = self.cap
                raise _Stop
            self.pause(self.shop[0][0] - self.t, _SPARE_WAIT)
            self.advance_shop(self.t)
        if self.took_pool:
            self.pause(self.preempt_hours, _PREEMPTION)
            self.pause(self.swap_hours * self.vary(_J_SWAP), _NODE_SWAP)
        self.check_nodes()

    def restart_length(self) -> float:
        if self.memory_next:
            self.counts["restarts_memory"] += 1
            return self.mem_hours
        self.counts["restarts_storage"] += 1
        return self.restart_hours

    def planned_in_restart(self) -> None:
        self.memory_next = False

    def maintenance(self, computed: float) -> bool:
        self.memory_next = False
        done = super().maintenance(computed)
        self.left = 0  # the maintenance checkpoint is durable
        return done

    def finish(self) -> float:
        """Settle repairs to the trial's end; return the pool's time-average size."""
        self.advance_shop(self.t)
        self.integrate_pool(self.t)
        if not self.finite or self.t <= 0.0:
            return math.nan
        return self.pool_area / self.t


def simulate_reference(inputs: KernelInputs, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Simulate every trial of ``inputs`` event by event (slow; the oracle for the kernel).

    Parameters
    ----------
    inputs : KernelInputs
        Lowered inputs (hours, per hour). Not validated here: validation lives in the scenario
        layer.
    rng : numpy.random.Generator
        Source of all random draws; advanced in place.

    Returns
    -------
    dict of str to ndarray
        ``wall_hours`` (n_trials,) float64, hours; ``finished`` (n_trials,) bool;
        ``progress_hours`` (n_trials,) float64, durable compute hours at the end;
        ``interruptions`` (n_trials, n_categories) int64; ``maintenance_events`` (n_trials,)
        int64; ``lost_hours`` (n_trials, len(CAUSES)) float64, hours by cause in the order of
        :data:`relmc.sim.CAUSES`; ``power_swings`` (n_trials,) int64; the node model's counts
        (n_trials,) int64, named in :data:`NODE_COUNTS` (zero when it is off), and
        ``pool_occupancy`` (n_trials,) float64, the time-average number of nodes in the pool
        (NaN unless the node model is on with a finite pool).
    """
    n_trials, n_cat = inputs.n_trials, inputs.n_categories
    out = {
        "wall_hours": np.zeros(n_trials),
        "finished": np.zeros(n_trials, dtype=bool),
        "progress_hours": np.zeros(n_trials),
        "interruptions": np.zeros((n_trials, n_cat), dtype=np.int64),
        "maintenance_events": np.zeros(n_trials, dtype=np.int64),
        "lost_hours": np.zeros((n_trials, len(CAUSES))),
        "power_swings": np.zeros(n_trials, dtype=np.int64),
        **{name: np.zeros(n_trials, dtype=np.int64) for name in NODE_COUNTS},
        "pool_occupancy": np.full(n_trials, np.nan),
        **{name: np.zeros(n_trials, dtype=np.int64) for name in SDC_COUNTS},
        "sdc_rework_hours": np.zeros(n_trials),
    }
    # inputs from before the node model have no node_model property: it is off
    trial_class = _NodeTrial if getattr(inputs, "node_model", False) else _Trial
    cat_rate = np.asarray(inputs.cat_rate, dtype=np.float64)
    assert cat_rate.ndim == 2
    assert np.shape(inputs.detect_hours) == (n_cat,) and np.shape(inputs.swap) == (n_cat,)
    # uncertain overheads: the per-draw factors are an input (no rows: off), never drawn here
    factors = np.asarray(
        getattr(inputs, "overhead_factor", np.ones((0, len(OVERHEADS)))), dtype=np.float64
    )
    sigma = np.asarray(getattr(inputs, "overhead_sigma", np.zeros(0)), dtype=np.float64)
    if factors.shape[0] == 0 and np.any(sigma > 0.0):
        raise ValueError(
            "overhead_sigma > 0 but overhead_factor has no rows: draw them first with "
            "relmc.sim.simulate.draw_overhead_factors"
        )
    assert factors.shape[0] in (0, cat_rate.shape[0]), "one factor row per rate draw"
    for i in range(n_trials):
        d = int(inputs.draw_of_trial[i])
        factor = factors[d] if factors.shape[0] else None
        trial = trial_class(inputs, cat_rate[d], rng, factor, draw=d)
        out["finished"][i] = trial.simulate()
        if isinstance(trial, _NodeTrial):
            out["pool_occupancy"][i] = trial.finish()
            for name, value in trial.counts.items():
                out[name][i] = value
        out["wall_hours"][i] = trial.t
        out["progress_hours"][i] = trial.p
        out["interruptions"][i] = trial.interruptions
        out["maintenance_events"][i] = trial.maintenance_events
        out["lost_hours"][i] = trial.lost
        out["power_swings"][i] = trial.swings
        out["sdc_rollbacks"][i] = trial.sdc_rollbacks
        out["sdc_from_scratch"][i] = trial.sdc_from_scratch
        out["sdc_undetected"][i] = int(trial.latent is not None)
        out["sdc_rework_hours"][i] = trial.sdc_rework
        trial.check_accounts()
    return out
