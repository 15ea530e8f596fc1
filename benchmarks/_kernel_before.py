"""numba kernels for the training-timeline simulation (the contract is in :mod:`relmc.sim`).

Arrays, scalars and a ``numpy.random.Generator`` in; output arrays filled in place. No Python
objects, no I/O, no validation (that is done by :mod:`relmc.sim.simulate`). One call simulates
one block of trials with one Generator, and releases the GIL, so blocks run on threads.

Cost per trial is O(events): inside a run, the position of the next event among the
checkpoint segments is found arithmetically.
"""

from __future__ import annotations

import math

import numpy as np

from relmc._jit import jit

# lost_hours columns, in relmc.sim.CAUSES order
REWORK, CHECKPOINT, DETECTION, NODE_SWAP, SPARE_WAIT, RESTART, MAINTENANCE = range(7)
N_CAUSES = 7

_SEG_RTOL = 1e-9  # relative: float noise must never make an empty last segment


@jit
def _segments(remaining, tau):
    """Return (n_seg, r): segments left and the compute length of the last one."""
    n_seg = math.ceil(remaining / tau * (1.0 - _SEG_RTOL))
    if n_seg < 1:
        n_seg = 1
    r = remaining - (n_seg - 1) * tau
    return n_seg, r


@jit
def _run_position(e, tau, delta, persist, n_seg, r):
    """State of a run ``e`` hours after it started.

    Returns ``(computed, durable, ckpt, in_final)``: compute hours done in this run,
    compute hours of it that are durable, checkpoint hours spent, and whether the job's last
    compute is done (final snapshot or persist under way). ``computed + ckpt == e``.
    """
    seg = tau + delta
    k = int(e / seg)  # not e // seg: float floor division compiles to a slow fmod
    if k > 0 and k * seg > e:  # e / seg rounded up onto the next whole number
        k -= 1
    if k > n_seg - 1:
        k = n_seg - 1
    x = e - k * seg
    s_k = tau if k < n_seg - 1 else r
    if x < s_k:
        computed = k * tau + x
        ckpt = k * delta
    else:
        computed = k * tau + s_k
        ckpt = k * delta + (x - s_k)
    # snapshot j ends at (j + 1) * seg and is durable `persist` later (persist <= tau)
    if k == 0:
        d = 0
    elif x >= persist:
        d = k
    else:
        d = k - 1
    # the job's last compute is done: only its final snapshot and persist remain
    in_final_wait = k == n_seg - 1 and x >= s_k
    return computed, d * tau, ckpt, in_final_wait


@jit
def _durable_after(e, extra, tau, delta, persist, n_seg):
    """Durable compute of a run stopped at ``e`` once ``extra`` more hours have passed.

    No new snapshot is started in the meantime; one already taken becomes durable when its
    persist completes.
    """
    seg = tau + delta
    k = int(e / seg)
    if k > 0 and k * seg > e:
        k -= 1
    if k > n_seg - 1:
        k = n_seg - 1
    if k == 0:
        return 0.0
    if e - k * seg + extra >= persist:
        return k * tau
    return (k - 1) * tau


@jit
def _spend(lost, i, cause, t, dt, cap_hours):
    """Advance the clock ``dt`` hours charged to ``cause``, stopping at the cap.

    Returns the new time and whether the cap was reached.
    """
    if t + dt > cap_hours:
        lost[i, cause] += cap_hours - t
        return cap_hours, True
    lost[i, cause] += dt
    return t + dt, False


@jit
def _heap_push(heap, n, value):
    i = n
    heap[i] = value
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] <= heap[i]:
            break
        heap[parent], heap[i] = heap[i], heap[parent]
        i = parent
    return n + 1


@jit
def _heap_pop(heap, n):
    top = heap[0]
    n -= 1
    heap[0] = heap[n]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        child = left
        if left + 1 < n and heap[left + 1] < heap[left]:
            child = left + 1
        if heap[i] <= heap[child]:
            break
        heap[i], heap[child] = heap[child], heap[i]
        i = child
    return top, n


@jit
def _pick(rng, cum, n_cat, fail_rate, rate):
    """Return the category index of an event, or -1 for planned maintenance."""
    if n_cat == 1 and rate == fail_rate:
        return 0  # one possible outcome: no draw needed
    u = rng.random() * rate
    if u >= fail_rate:
        return -1
    for c in range(n_cat):
        if u < cum[c]:
            return c
    return n_cat - 1  # u rounded onto the last edge


@jit
def simulate_block(
    rng,
    cat_rate,
    draw_of_trial,
    detect_hours,
    swap,
    maint_rate,
    maint_hours,
    work_hours,
    tau,
    delta,
    persist,
    restart_hours,
    swap_hours,
    n_spares,
    repair_hours,
    cap_hours,
    max_events,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
):
    """Simulate ``len(draw_of_trial)`` trials; fill the output arrays (see relmc.sim)."""
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    cum = np.empty(n_cat)
    heap = np.empty(max(n_spares, 0) + 1)
    for i in range(n_trials):
        d = draw_of_trial[i]
        fail_rate = 0.0
        for c in range(n_cat):
            fail_rate += cat_rate[d, c]
            cum[c] = fail_rate
        rate = fail_rate + maint_rate
        inv_rate = 1.0 / rate if rate > 0.0 else np.inf
        for j in range(N_CAUSES):
            lost[i, j] = 0.0
        for c in range(n_cat):
            interruptions[i, c] = 0
        maint_events[i] = 0
        t = 0.0
        p = 0.0
        n_heap = 0
        events = 0
        done = False
        capped = False
        need_restart = False  # the next phase: a restart (True) or a run (False)
        # time to the next event left over from a restart that ended first: by memorylessness
        # (the rate is the same in restarts and runs) it is the run's first gap; -1: none
        carry = -1.0
        while not (done or capped):
            if need_restart:
                e = rng.exponential(inv_rate) if rate > 0.0 else np.inf
                if e >= restart_hours:
                    t, capped = _spend(lost, i, RESTART, t, restart_hours, cap_hours)
                    if capped:
                        break
                    need_restart = False
                    carry = e - restart_hours
                    continue
                t, capped = _spend(lost, i, RESTART, t, e, cap_hours)
                if capped:
                    break
                events += 1
                c = _pick(rng, cum, n_cat, fail_rate, rate)
                if events >= max_events:  # counted, then the trial stops at this event
                    if c < 0:
                        maint_events[i] += 1
                    else:
                        interruptions[i, c] += 1
                    capped = True
                    break
                if c < 0:
                    maint_events[i] += 1
                    t, capped = _spend(lost, i, MAINTENANCE, t, maint_hours, cap_hours)
                    if capped:
                        break
                    continue
                interruptions[i, c] += 1
            else:
                # ---- a run from durable progress p ----
                n_seg, r = _segments(work_hours - p, tau)
                d_run = (n_seg - 1) * (tau + delta) + r + delta + persist
                e = 0.0
                c = -2  # -2: no event before the end of the run
                while True:
                    if carry >= 0.0:
                        e += carry
                        carry = -1.0
                    else:
                        e += rng.exponential(inv_rate) if rate > 0.0 else np.inf
                    if e >= d_run:
                        break
                    c = _pick(rng, cum, n_cat, fail_rate, rate)
                    if c >= 0:
                        break
                    computed, durable, ckpt, in_final = _run_position(
                        e, tau, delta, persist, n_seg, r
                    )
                    if not in_final:
                        break
                    # planned event after the last compute: deferred past the end. From here
                    # on only failures are active, so the next event (memoryless) comes at the
                    # failure rate alone: no loop over further planned events.
                    c = -2
                    if fail_rate > 0.0:
                        e += rng.exponential(1.0 / fail_rate)
                        if e < d_run:
                            c = _pick(rng, cum, n_cat, fail_rate, fail_rate)
                    break
                if t + min(e, d_run) > cap_hours:
                    computed, durable, ckpt, in_final = _run_position(
                        cap_hours - t, tau, delta, persist, n_seg, r
                    )
                    lost[i, REWORK] += computed - durable
                    lost[i, CHECKPOINT] += ckpt
                    p += durable
                    t = cap_hours
                    capped = True
                    break
                if c == -2:
                    lost[i, CHECKPOINT] += n_seg * delta + persist
                    t += d_run
                    p = work_hours
                    done = True
                    break
                events += 1
                computed, durable, ckpt, in_final = _run_position(e, tau, delta, persist, n_seg, r)
                t += e
                lost[i, CHECKPOINT] += ckpt
                if events >= max_events:  # counted, then the trial stops at this event
                    if c < 0:
                        maint_events[i] += 1
                    else:
                        interruptions[i, c] += 1
                    lost[i, REWORK] += computed - durable
                    p += durable
                    capped = True
                    break
                if c < 0:
                    # planned: a fresh checkpoint of the progress reached, then downtime
                    maint_events[i] += 1
                    dt = delta + persist
                    if t + dt > cap_hours:
                        # persists already under way still complete during this checkpoint
                        durable = _durable_after(e, cap_hours - t, tau, delta, persist, n_seg)
                        lost[i, REWORK] += computed - durable
                        lost[i, CHECKPOINT] += cap_hours - t
                        p += durable
                        t = cap_hours
                        capped = True
                        break
                    lost[i, CHECKPOINT] += dt
                    t += dt
                    p += computed
                    t, capped = _spend(lost, i, MAINTENANCE, t, maint_hours, cap_hours)
                    if capped:
                        break
                    need_restart = True
                    continue
                interruptions[i, c] += 1
                lost[i, REWORK] += computed - durable
                p += durable
            # ---- recovery of category c, then a restart ----
            t, capped = _spend(lost, i, DETECTION, t, detect_hours[c], cap_hours)
            if capped:
                break
            if swap[c]:
                if n_spares >= 0:
                    while n_heap > 0 and heap[0] <= t:
                        _, n_heap = _heap_pop(heap, n_heap)
                    n_heap = _heap_push(heap, n_heap, t + rng.exponential(repair_hours))
                    if n_heap > n_spares:
                        ready, n_heap = _heap_pop(heap, n_heap)
                        if ready > t:
                            t, capped = _spend(lost, i, SPARE_WAIT, t, ready - t, cap_hours)
                            if capped:
                                break
                t, capped = _spend(lost, i, NODE_SWAP, t, swap_hours, cap_hours)
                if capped:
                    break
            need_restart = True
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events
