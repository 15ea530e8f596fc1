"""Plain peers of relmc's kernel for one job in "the Daly configuration".

The process (the special case of :mod:`relmc.sim` in which Daly's formula is exact): one
exponential failure process of rate ``rate`` (per hour) that runs during compute, blocking
snapshots and restarts; the job needs ``work`` hours of compute, laid out as segments of ``tau``
hours (the last one holds the remainder) each followed by a ``delta``-hour snapshot that is
durable at once; a failure throws away the compute since the last snapshot and costs a restart
of ``restart`` hours, which failures can also hit. No detection latency, node swap, spares,
maintenance or background persist; the job starts computing at once. No wall cap: the peers are
only run on jobs that finish (the benchmark's Daly case averages ~6,300 failures per job).

Each peer returns ``(wall_hours, events)`` per trial, ``events`` counting every failure (during
compute, snapshots or restarts), the same count as ``simulate(...)["events"]``.

All three are written the way a competent user would write them, with the same arithmetic
shortcut as relmc (between two failures the position among checkpoint segments is computed, not
stepped), so the speed ratios measure the execution engine rather than the algorithm:

* :func:`python_loop` - a plain-Python event loop, ``random.expovariate`` draws.
* :func:`numpy_vectorised` - every live trial advances one phase (a run attempt or a restart
  attempt) per step; one ``Generator.exponential`` call per step for all live trials.
* :func:`simpy_job` - SimPy processes: a job process whose run / restart timeouts are
  interrupted by a failure process (``Process.interrupt``), one ``Environment`` per trial.
"""

from __future__ import annotations

import math
import random

import numpy as np

__all__ = ["python_loop", "numpy_vectorised", "simpy_job"]

_SEG_RTOL = 1e-9  # same segment-count tolerance as relmc.sim._kernels


def _run(p, work, tau, delta):
    """Return (n_seg, d_run) for a run from durable progress ``p``."""
    rem = work - p
    n = max(1, math.ceil(rem / tau - _SEG_RTOL))
    r = rem - (n - 1) * tau
    return n, (n - 1) * (tau + delta) + r + delta


def python_loop(n_trials, *, work, tau, delta, restart, rate, seed=0):
    """Plain-Python event loop over trials; returns ``(wall_hours, events)`` arrays."""
    rnd = random.Random(seed)
    expo = rnd.expovariate
    seg = tau + delta
    walls = np.empty(n_trials)
    events = np.empty(n_trials, dtype=np.int64)
    for i in range(n_trials):
        t = 0.0
        p = 0.0
        ev = 0
        while True:
            n, d_run = _run(p, work, tau, delta)
            e = expo(rate)
            if e >= d_run:
                t += d_run
                break
            ev += 1
            t += e
            p += min(int(e // seg), n - 1) * tau  # snapshots completed in this run
            while True:  # restart, itself exposed to failures
                e = expo(rate)
                if e >= restart:
                    t += restart
                    break
                ev += 1
                t += e
        walls[i] = t
        events[i] = ev
    return walls, events


def numpy_vectorised(n_trials, *, work, tau, delta, restart, rate, seed=0):
    """NumPy, vectorised over trials; returns ``(wall_hours, events)`` arrays.

    State arrays hold only the live trials; finished trials are written out and dropped
    (compacted) once a tenth of the live set is done.
    """
    rng = np.random.default_rng(seed)
    scale = 1.0 / rate
    seg = tau + delta
    walls = np.empty(n_trials)
    events = np.empty(n_trials, dtype=np.int64)
    idx = np.arange(n_trials)
    t = np.zeros(n_trials)
    p = np.zeros(n_trials)
    ev = np.zeros(n_trials, dtype=np.int64)
    restarting = np.zeros(n_trials, dtype=bool)
    live = np.ones(n_trials, dtype=bool)
    while idx.size:
        e = rng.exponential(scale, idx.size)
        # restart attempts
        ok = restarting & (e >= restart)
        hit_r = restarting & ~ok
        # run attempts (the remainder is computed for all, used only where running)
        rem = work - p
        n = np.maximum(1.0, np.ceil(rem / tau - _SEG_RTOL))
        d_run = (n - 1.0) * seg + (rem - (n - 1.0) * tau) + delta
        running = live & ~restarting
        done = running & (e >= d_run)
        hit = running & ~done
        k = np.minimum(np.floor(e / seg), n - 1.0)
        step = np.where(done, d_run, e)
        step[ok] = restart
        step[~live] = 0.0  # finished earlier, not yet compacted
        t += step
        p += np.where(hit, k * tau, 0.0)
        ev += hit | hit_r
        restarting = (restarting & ~ok) | hit
        live &= ~done
        n_done = idx.size - np.count_nonzero(live)
        if n_done and (n_done * 10 >= idx.size or n_done == idx.size):
            gone = ~live
            walls[idx[gone]] = t[gone]
            events[idx[gone]] = ev[gone]
            idx, t, p, ev, restarting = idx[live], t[live], p[live], ev[live], restarting[live]
            live = np.ones(idx.size, dtype=bool)
    return walls, events


def simpy_job(n_trials, *, work, tau, delta, restart, rate, seed=0):
    """SimPy: a job process interrupted by a failure process; returns ``(wall_hours, events)``."""
    import simpy

    rnd = random.Random(seed)
    seg = tau + delta
    walls = np.empty(n_trials)
    events = np.empty(n_trials, dtype=np.int64)

    def job(env):
        p = 0.0
        while True:
            n, d_run = _run(p, work, tau, delta)
            start = env.now
            try:
                yield env.timeout(d_run)
                return
            except simpy.Interrupt:
                p += min(int((env.now - start) // seg), n - 1) * tau
            while True:
                try:
                    yield env.timeout(restart)
                    break
                except simpy.Interrupt:
                    pass

    def failures(env, proc, count):
        while True:
            yield env.timeout(rnd.expovariate(rate))
            if not proc.is_alive:
                return
            proc.interrupt()
            count[0] += 1

    for i in range(n_trials):
        env = simpy.Environment()
        count = [0]
        proc = env.process(job(env))
        env.process(failures(env, proc, count))
        env.run(until=proc)
        walls[i] = env.now
        events[i] = count[0]
    return walls, events
