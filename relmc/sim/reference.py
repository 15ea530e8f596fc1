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
  whole interval, ``Lambda_c (1 + a_c) max(T(start), T(end))`` (``T`` is monotone), each
  accepted with probability ``lambda_c(t) / bound``; the earliest accepted candidate of any
  category fires. The constant-rate clocks above are then unused for categories;
* a diurnal throughput cycle: each activity of a run (a segment's compute, its snapshot,
  the final persist wait) is given its nominal length; its wall end is found by bisection
  on ``S(t) = t + (b / w) sin(w (h0 + t - phi_s))`` and the activity is exposed over that
  wall interval. An event at wall ``u`` is at nominal ``S(u) - S(start)`` into it. A
  snapshot's persist is durable at the wall time its nominal ``persist`` has elapsed;
* power swings are counted as the segments are stepped through: one whenever the job
  starts computing, one whenever it stops (a snapshot of positive length starts, an event
  strikes while computing, its last compute ends).

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
"""

from __future__ import annotations

import math

import numpy as np

from relmc.sim import CAUSES
from relmc.sim.inputs import KernelInputs

__all__ = ["simulate_reference"]

_REWORK, _CHECKPOINT, _DETECTION, _NODE_SWAP, _SPARE_WAIT, _RESTART, _MAINTENANCE = range(7)
_SLOWDOWN = 7
assert CAUSES[_MAINTENANCE] == "maintenance" and CAUSES[_SLOWDOWN] == "slowdown"
assert len(CAUSES) == 8

_REL_TOL = 1e-9  # float noise in (W - p) / tau must never create an extra, empty segment
_MAINT = -1  # event id of planned maintenance; categories are 0..n_categories-1


class _Stop(Exception):
    """Raised at the wall cap or the ``max_events``-th event; unwinds to the trial loop."""


class _Trial:
    """State of one trial: wall clock, durable progress, clocks, repairs and tallies."""

    def __init__(self, inputs: KernelInputs, rates: np.ndarray, rng: np.random.Generator):
        self.x = inputs
        self.rng = rng
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
        self.pending: list[tuple[float, float]] = []  # (durable at, progress) of persists
        self.next_cat = [self._draw(r, 0.0) for r in self.rates]
        self.next_maint = self._draw(float(inputs.maint_rate), 0.0)
        self.amp = [float(a) for a in inputs.cat_amp]
        self.peak = [float(h) for h in inputs.cat_phase]
        self.varying = any(a > 0.0 for a in self.amp) or float(inputs.trend_shape) != 1.0
        self.speed_amp = float(inputs.speed_amp)
        self.elapsed = 0.0  # nominal hours of the last exposed activity, also when it stopped

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
        shape, age = float(self.x.trend_shape), float(self.x.fleet_age_hours)
        return ((age + t) / age) ** (shape - 1.0)

    def intensity(self, c: int, t: float) -> float:
        """Failure intensity of category ``c`` at wall time ``t`` (per hour)."""
        hour = float(self.x.start_hour) + t
        day = 1.0 + self.amp[c] * math.cos(2.0 * math.pi * (hour - self.peak[c]) / 24.0)
        return self.rates[c] * day * self.trend(t)

    def first_failure(self, t0: float, t1: float) -> tuple[float, int | None]:
        """Earliest failure in the exposed wall interval ``[t0, t1)`` by per-category thinning."""
        first, who = math.inf, None
        top = max(self.trend(t0), self.trend(t1))
        for c, rate in enumerate(self.rates):
            bound = rate * (1.0 + self.amp[c]) * top
            if bound <= 0.0:
                continue
            s = t0
            while True:
                s += self.rng.exponential(1.0 / bound)
                if s >= min(t1, first):
                    break
                if self.rng.random() * bound < self.intensity(c, s):
                    first, who = s, c
                    break
        return first, who

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
        index or ``_MAINT`` when that clock fired first. Raises ``_Stop`` at the cap, after
        charging the elapsed part; the caller then charges the lost compute as rework. A
        ``scaled`` activity (part of a run) lasts ``duration`` nominal hours at the diurnal
        speed: ``elapsed`` (also left in ``self.elapsed``) is nominal, and wall hours beyond
        it are ``slowdown``.
        """
        t0 = self.t
        scaled = scaled and self.speed_amp > 0.0
        end = self.wall_end(t0, duration) if scaled else t0 + duration
        limit = min(end, self.cap)
        first: float
        who: int | None
        if self.varying:
            first, who = self.first_failure(t0, limit)
        else:
            first, who = math.inf, None
            for c, tc in enumerate(self.next_cat):
                if tc < first:
                    first, who = tc, c
        if maint_exposed and self.next_maint < first:
            first, who = self.next_maint, _MAINT
        event: int | str | None  # a category index, _MAINT, None (run done) or "cap"
        if first < limit:
            stop, event = max(first, t0), who
        elif end <= self.cap:
            stop, event = end, None
        else:
            stop, event = self.cap, "cap"
        elapsed = wall = stop - t0
        if scaled:
            elapsed = duration
            if event is not None:
                elapsed = min(max(self.big_s(stop) - self.big_s(t0), 0.0), duration)
            self.lost[_SLOWDOWN] += wall - elapsed
        self.elapsed = elapsed
        if cause is not None:
            self.lost[cause] += elapsed
        if not maint_exposed:
            self.next_maint += wall
        self.t = stop
        if event == "cap":
            raise _Stop
        if event == _MAINT:
            self.next_maint = self._draw(float(self.x.maint_rate), stop)
        elif isinstance(event, int) and not self.varying:
            self.next_cat[event] = self._draw(self.rates[event], stop)
        return event, elapsed

    # ---- progress bookkeeping -------------------------------------------------------

    def durable_at(self, t: float) -> float:
        """Durable progress at wall time ``t`` (snapshots whose persist ended by ``t``)."""
        d = self.p
        for when, prog in self.pending:
            if when <= t:
                d = max(d, prog)
        return d

    def fall_back(self, computed: float) -> None:
        """Throw away compute since the last durable checkpoint (a failure or the cap)."""
        d = self.durable_at(self.t)
        self.lost[_REWORK] += computed - d
        self.p = d
        self.pending = []

    # ---- recovery -------------------------------------------------------------------

    def recover(self, c: int) -> None:
        """Spend detection, then a node swap (spare pool) if category ``c`` needs one."""
        x = self.x
        self.pause(float(x.detect_hours[c]), _DETECTION)
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
        self.pause(float(x.swap_hours), _NODE_SWAP)

    def check_events(self) -> None:
        """Stop unfinished, at this moment, once ``max_events`` events have happened."""
        if sum(self.interruptions) + self.maintenance_events >= self.max_events:
            raise _Stop

    def failure(self, c: int, computed: float) -> None:
        """Unexpected failure of category ``c`` with ``computed`` progress reached."""
        self.interruptions[c] += 1
        self.fall_back(computed)
        self.check_events()
        self.recover(c)

    # ---- phases ---------------------------------------------------------------------

    def restart(self) -> None:
        """Restart until one completes; failures and maintenance may strike during it."""
        x = self.x
        while True:
            event, _ = self.expose(float(x.restart_hours), _RESTART)
            if event is None:
                return
            if event == _MAINT:
                self.maintenance_events += 1
                self.check_events()
                self.pause(float(x.maint_hours), _MAINTENANCE)
            else:
                self.failure(event, self.p)

    def maintenance(self, computed: float) -> bool:
        """Planned maintenance with ``computed`` progress reached; True if the job is done."""
        x = self.x
        self.maintenance_events += 1
        try:
            self.check_events()
            self.pause(float(x.delta) + float(x.persist), _CHECKPOINT)
        except _Stop:
            self.fall_back(computed)
            raise
        self.p = computed
        self.pending = []
        if self.done():  # unreachable but for float noise: the event came before compute ended
            return True
        self.pause(float(x.maint_hours), _MAINTENANCE)
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
        w, tau, delta, persist = (
            float(x.work_hours),
            float(x.tau),
            float(x.delta),
            float(x.persist),
        )
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
            try:
                event, elapsed = self.expose(length, None, scaled=True)
            except _Stop:
                self.fall_back(start + self.elapsed)
                raise
            if event is not None:
                self.swings += 1  # an event while computing stops it
                computed = start + elapsed
                if event == _MAINT:
                    return self.maintenance(computed)
                self.failure(event, computed)
                return False
            # blocking snapshot; planned events after the last compute are deferred
            if delta > 0.0 or last:
                # compute stops for a snapshot; after the last compute it stops in any case
                # (final persist wait, or the job's end)
                self.swings += 1
            try:
                event, _ = self.expose(delta, _CHECKPOINT, maint_exposed=not last, scaled=True)
            except _Stop:
                self.fall_back(end_prog)
                raise
            if event is not None:
                if event == _MAINT:
                    return self.maintenance(end_prog)
                self.failure(event, end_prog)
                return False
            if delta > 0.0 and not last:
                self.swings += 1  # compute resumes
            durable = self.t + persist
            if self.speed_amp > 0.0:
                durable = self.wall_end(self.t, persist)
            self.pending.append((durable, end_prog))
        # final persist wait: exposed to failures only
        try:
            event, _ = self.expose(persist, _CHECKPOINT, maint_exposed=False, scaled=True)
        except _Stop:
            self.fall_back(w)
            raise
        if event is not None:
            self.failure(event, w)
            return False
        self.p = w
        self.pending = []
        return True

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
        :data:`relmc.sim.CAUSES`; ``power_swings`` (n_trials,) int64.
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
    }
    cat_rate = np.asarray(inputs.cat_rate, dtype=np.float64)
    assert cat_rate.ndim == 2
    assert np.shape(inputs.detect_hours) == (n_cat,) and np.shape(inputs.swap) == (n_cat,)
    for i in range(n_trials):
        trial = _Trial(inputs, cat_rate[int(inputs.draw_of_trial[i])], rng)
        out["finished"][i] = trial.simulate()
        out["wall_hours"][i] = trial.t
        out["progress_hours"][i] = trial.p
        out["interruptions"][i] = trial.interruptions
        out["maintenance_events"][i] = trial.maintenance_events
        out["lost_hours"][i] = trial.lost
        out["power_swings"][i] = trial.swings
    return out
