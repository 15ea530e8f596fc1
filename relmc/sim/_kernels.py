"""numba kernels for the training-timeline simulation (the contract is in :mod:`relmc.sim`).

Arrays, scalars and a ``numpy.random.Generator`` in; output arrays filled in place. No Python
objects, no I/O, no validation (that is done by :mod:`relmc.sim.simulate`). One call simulates
one block of trials with one Generator, and releases the GIL, so blocks run on threads.

One pass per event
------------------
Rates are constant, so by memorylessness the exposed time from the start of a restart (or of
the job, with a restart of length 0) to the next event is one fresh exponential ``g``. If
``g < R`` the restart failed; otherwise the run that follows reached ``e = g - R`` hours before
the event, or finished the job if ``e`` reaches the run's length. The position of ``e`` among
the checkpoint segments (``s = tau + delta`` long) is found arithmetically, so one event costs
one draw and one pass, whatever the number of segments or GPUs. Every standard exponential
is drawn in one place (``_gap``), or, in the draw buffer's fills, by the same ziggurat on
NumPy's PCG64 stepped inline (``_pcg_exponential``: the same numbers).

Time-varying rates (diurnal modulation, power-law trend; see :mod:`relmc.sim`) break
memorylessness in exposed time. Diurnal rates alone on the renewal configuration take the
diurnal path (below): an exact time change, one exponential and one solve per failure.
Everything else time-varying takes the general path, where a gap starts at a
known wall time ``t0`` and the exposure is unbroken until the event (a restart runs straight
into the run that follows): :func:`_fail_gap` draws the next failure exactly by thinning a
dominating process of intensity ``(L + A) T(t)``, whose cumulative ``(L + A) K(t)`` inverts in
closed form, accepting a proposal at ``t`` with probability ``(L + A cos(w t + theta)) /
(L + A)``, where ``L + A cos(w t + theta)`` is the sum of the categories' diurnal factors
(same period, so one cosine). The expected number of proposals per failure is at most
``(L + A) / L <= 2``. Maintenance (constant rate) is drawn as its own exponential and the
earlier of the two is the event; the category of a failure at ``t`` is drawn from the
intensities at ``t`` (:func:`_pick_at`: one uniform, one cosine and sine, a scan over the
categories; the alias table when all categories share one diurnal shape).

Periodic rate profiles (``cat_profile`` with rows) are time-varying rates too: category ``c``'s
rate is times ``q_c[k(t)]`` in hour ``k(t)`` of the week. :func:`_fail_gap_profile` thins by
the bound ``sum_c Lambda_c max_k q_c[k] + A`` (each row's maximum taken once per block). A
proposal's acceptance looks its hour's rate up in a table of the week's hourly rates filled
once a draw (:func:`_profile_table`) on the general path, whose rates stay the draw's all
through a trial, and sums it over the categories on the node and physics paths, whose
rates change with the nodes' and the clocks' states (the same floats either way); a
failure's category (:func:`_pick_profile`) costs a pass over the categories, or on the
general path without a cosine a scan of the hour's running sums held in the same table.
Profiles alone (no cosine, no trend) are not thinned on the general path: one exponential a
failure is walked through their piecewise-constant integral (:func:`_invert_profile`, an
exact time change; the hours the gap spans, whole weeks at once). Nothing per
hour of the job but where the
profile's own bound in an hour is under ``PROFILE_LOW`` of the week's (a run of zero hours
skipped at once, a low hour thinned against its own bound: at most one restart per such
hour the job runs through, where the week's bound alone spent its rate times those hours on
rejected proposals). Categories
share one shape only if every row is equal (and the cosines). Without rows every path calls
what it called before (:func:`_next_failure`, :func:`_pick_time`), bit for bit.

A diurnal throughput cycle also takes the general path. Runs are laid out in nominal hours
as before; only the run's events are converted: an event ``e_w`` wall hours into a run that
started at ``t`` is at nominal ``S(t + e_w) - S(t)`` (:func:`_nominal`, closed form), and the
run's nominal length is turned into wall hours by one safeguarded Newton solve
(:func:`_wall_for`). Two conversions per event, none per segment.

Paths, chosen inside :func:`simulate_block` from the inputs
------------------------------------------------------------
* ``_block_renewal``: a failure's recovery (detection, node swap) is a per-category constant
  (unlimited spares, or no category needs a swap), the same for every trial (no uncertain
  overheads), and rates are constant. The clock of
  failures is paused during recovery, so the exposed timeline does not depend on categories;
  the category of each failure is independent of everything else, and per-trial counts are
  drawn once at the end as a multinomial of the failure count. Away from the job's end, each
  failure's contribution depends on its own gap only, so the failures of a buffer of draws are
  reduced at once by a branch-free loop that vectorises (sums kept per buffer position, summed
  per trial in a fixed order: no float sum is reordered); near the end, the cap or the budget
  they are taken one by one, with the same sums (a buffer that reaches the end is reduced up to
  the longest prefix whose bound stays short of it). The Daly configuration (one category, no
  latency) is its one-category case. Near the wall cap or the event budget, a trial hands its
  state to the general path, which draws categories per event. The cap guard bounds each
  failure's recovery by the largest; near the cap the categories of the failures so far are
  drawn early (the multinomial in parts, at least ``_SETTLE_MIN`` failures each) and their
  cost replaces the bound, so the hand-over comes only within about a buffer of failures of
  the cap. Planned maintenance is a
  second memoryless clock: events come at the superposed rate and each is planned with
  probability ``maint_rate / rate``, so the number of events to the next planned one is
  geometric, one draw per planned event; the failures before it go through the block
  reduction, the planned event one by one (its checkpoint, downtime and the segments re-laid
  from the progress reached). A planned event after the job's last compute is deferred: the
  next event is a failure, one exponential at the failure rate later.
* ``_block_diurnal``: the renewal path's configuration (planned maintenance included), with
  diurnal failure rates on and no other time variation (:func:`diurnal_applies`: an amplitude >
  0 in the single values or any draw; no trend in either, no throughput cycle, no rate profiles,
  no uncertain overheads; node model and straggler/SDC categories off). From a wall time ``t``
  at which exposure resumes, the expected failures within ``x`` hours are, in closed form,
  ``F(x) = L x + (A / OMEGA) (sin(phi + OMEGA x) - sin phi)`` (``L + A cos(OMEGA t + theta)``
  the summed intensity, ``phi`` its phase at ``t``), so the next failure is ``F^-1(g)`` for one
  standard exponential ``g`` (exact: a time change of a unit-rate Poisson process). A run that
  reaches the job's end is decided by ``g >= F(restart + run)`` without any solve (usually by a
  closed-form lower bound of ``F``, without a sine); a failure is located by one safeguarded
  solve (:func:`_invert_diurnal`: a gap of 1.5 h or more first descends by whole days and
  steps of 12, 6, 3 and 1.5 h, ``F`` over each in closed form from the phase reached; then a
  fourth-order series guess, Halley steps in a shrinking bracket, bisection where ``F'``
  nears 0 at amplitude 1; typically one sine and cosine, a Taylor polynomial for small
  steps, ~1.1 per failure), and ``x < restart`` means the restart failed. The wall clock is
  kept exactly (recovery pauses are added as they occur, so the phase moves on through them);
  the sine and cosine of the phase are carried by angle addition (the solve's own, then a
  rotation by the category's recovery, precomputed), refreshed from ``math.sin``/``math.cos``
  every ``_REFRESH`` failures. Categories: with one diurnal shape they
  do not depend on time: drawn ahead from the alias table (branch-free, ``CBUF`` per refill),
  or, when every category also costs the same recovery, counted once per trial as a multinomial
  (:func:`_settle_categories`); with different shapes, by exact inversion over the categories'
  intensities at the failure's phase (one uniform, drawn ahead; a scan of the categories'
  running sums, :func:`_pick_at_phase`). At the last event the budget allows the trial
  continues on the general path from the same wall time with a fresh draw (the same
  process). A cycle that could reach the wall cap still draws its gap: its failure is solved
  for and taken here if it comes before the job's end and it and the costliest recovery stay
  under the cap; a planned event before it (and before the job's last compute) is taken here
  if its stop stays under the cap;
  else the general path goes on with that failure's time carried (a gap looked at is not
  dropped), and with the planned event's when it comes first (both clocks, as the general
  path draws them), so a trial under a binding cap stays here up to its last cycle. Cost
  per failure: one exponential, the solve, the category; no thinning.
  Planned maintenance is a homogeneous Poisson clock in exposed time, independent of the
  failures: the exposed hours left to the next planned event are kept (what is left after a
  failure stands, by memorylessness), and a cycle that reaches them is decided by ``g >= F(m)``
  (one sine): no failure first, so the planned event is taken as on the general path (in a run
  its checkpoint; then the downtime and a new restart) and both clocks start afresh (where
  blocks apply the failure gap is kept and its integrated intensity over the stop skipped, as
  after a recovery: the gaps one process over all wall time, as the blocks read them); a planned
  event after the job's last compute is deferred (the cycle's failure, if any, stands, and the
  next planned event is drawn afresh after it). Without maintenance no draw and no arithmetic is
  added. The power-law trend stays on the general path (the integral of the cosine times the
  trend has no closed form).
  With the same shapes in every draw, most recoveries instantaneous and (with planned
  maintenance) at least ``_DIURNAL_PLANNED_RATIO`` (0.25) failures per planned event on average,
  a run of failures is taken at once (``_diurnal_block``; with categories of different shapes
  each point's category drawn at its phase by the same inversion, every point of the block's
  first, a point within a recovery leaving its category unused): the integrated intensity from
  the run's start is a running sum of the gaps (a recovery that costs time is solved at once and
  its unexposed hours skipped), each failure's wall time an independent inversion of ``u + e sin
  u`` from a table over one period (``_kepler_step``: the nearest node's inverse series and one
  Newton step, in a loop without branches; else the full solve), and the runs the renewal path's
  block arithmetic. Such a trial draws its gaps 256 at a time (``_DIURNAL_BUF``; the same draws
  as two refills of ``BUF``), so a block takes up to 256 (with frequent planned events fewer:
  ``_DIURNAL_PLANNED_RATIO``). The failures taken one by one step
  from the same table too (``_solve_one``): with one diurnal shape, and with shapes that differ
  (the summed intensity is one cosine; its amplitude's table built once a run for point rates,
  the nearest reference table for rates per draw); not with shapes per draw. A block runs
  through planned events (at most ``p_max`` of them, those likely within the job's segments
  left: ``_planned_bound``): each taken in its pass in order where the exposed hours from the
  last event's end reach the clock left to it, its downtime's points not failures, the next
  clock drawn there.
* ``_block_general``: everything (maintenance, finite spares, persist, wall cap, event
  budget). The category of each event is drawn by the alias method (one uniform). A finite
  spare pool keeps the number of nodes in repair and the next completion time (exact for
  exponential repairs only, by memorylessness), never a list of repairs.
* ``_block_pool`` / ``_trial_pool``: what the renewal path cannot take (a finite spare pool
  with swap categories) when rates are constant and overheads certain (:func:`pool_applies`),
  with the node model and straggler/SDC categories off (their paths are chosen first).
  It is the general path with its options off (no time variation, throughput cycle,
  profiles, overhead rows or jitter): the same draws in the same order and the same
  arithmetic, so the same outputs bit for bit, with the per-event state (lost hours by cause,
  power steps, planned events) in scalars written once per trial instead of array entries
  updated per event, and none of the options' branches.
* ``_block_pool_reduced``: the pool path's configuration without planned maintenance
  (:func:`pool_reduced_applies`), a buffer of failures at a time: a failure's run depends on
  its gap alone (as on the renewal path, :func:`_block_map`), the pool on the wall clock and
  the categories alone, so one serial pass per buffer takes the categories (alias draws), the
  clock and the pool (its exponentials from a buffer of their own), then the runs are
  reduced at once. Near the job's end, the cap or the event budget the trial continues in
  ``_trial_pool`` from the state reached, the next gap carried. Its own streams: the same
  process as ``_block_pool`` (in distribution), not its outputs bit for bit.
* ``_block_nodes`` / ``_trial_nodes``: the node model (any of its inputs on; see
  :func:`node_model_on`), the general path's timeline plus nodes held as counts by place
  (job, standbys, pool) and type (good, bad), a sparse record of the nodes that were blamed or
  sent to repair, and two repair stages. An event's class (a good node's, a bad node's or a
  blast-radius failure, or maintenance) is drawn from four weights that depend on the bad
  nodes in the job, then its category from that class's alias table: O(1) however the rates
  change. The trial loop indexes arrays only (compiled without reference counting); when an
  event could outgrow the records or the repair stages it returns, the block doubles them,
  and the trial resumes. Recovery (diagnosis, blame, lemons, repair, replacement) is
  :func:`_node_recover`, shared with the combined path.
* ``_block_physics``: straggler and SDC categories (:func:`physics_on`) with the node model
  off: an event loop that draws the next arrival afresh from the clocks that run now and
  compares it with the deterministic times ahead (a restart's end, a run's end, a
  straggler's handling, an SDC's detection, the cap). An arrival drawn in a restart that
  falls past its end is the run's next arrival when the run starts with the same clocks
  (not when a straggler is handled at the restart's end); the combined path below does
  the same and keeps that arrival in its saved state.
* ``_block_physics_nodes``: straggler and SDC categories with the node model on: the physics
  path's loop with the node path's counts, records and :func:`_node_recover`; the struck
  node's type is drawn with its category, and an SDC's node gets a record at the corruption
  so that its detection can blame it, or nobody if it left the job.

Physics parameters per draw (``draw_amp`` .. ``draw_bad_multiplier`` with rows; see
:mod:`relmc.sim`) do not choose paths per trial: the block's path is chosen from every draw
and the single values (:func:`_draws_vary`, :func:`_draws_bad`), then each trial takes its
draw's rows (:func:`_trial_shape`, :func:`_trial_bad`) and redoes what the block would
otherwise do once (diurnal terms, whether categories share a shape, the node path's mixes):
O(n_categories) per trial, nothing per event. Without rows the single values are copied as
they are, so every path computes what it did before, bit for bit.

Uncertain overheads per draw (``overhead_factor`` with rows; see :mod:`relmc.sim`) are read
the same way: each trial takes its draw's row once (:func:`_trial_overheads`, and
:func:`_trial_node_overheads` on the node path) and runs with its own overheads, every
category's detection, diagnosis and SDC latency scaled by one factor each
(:func:`_trial_scaled`): O(n_categories) per trial, nothing per event. Without rows the given
values are copied, not multiplied, so every path computes what it did before, bit for bit.

Calls in the event loops: a compiled function takes a reference to each array it is passed
and drops it on return, two atomic operations each, unless LLVM inlines the call (it does
for small functions on its own). The helpers an event loop calls per event are therefore
``forceinline`` (:func:`_spend`, :func:`_jitter`, the picks, the time-varying gap and pick,
:func:`_ring_rollback`, :func:`_job_rates`, as :func:`_active_rates` already was), and the
ring of retained checkpoints is grown in place only when short, not returned by a call at
every stop (the physics path: 1.8x at 2k GPUs; the general path with diurnal rates 1.3x;
that change alone moved no output bit). Numba's own inlining (``inline="always"``) binds a
callee's array arguments to new variables, and those take and drop references too where the
callee has loops: :func:`_ring_put` is ``forceinline`` (the physics path took and dropped a
reference to both ring arrays at every stop: 1.05x without), and the physics path grows
the ring in a loop around its event loop, never within it (an array variable rebound in a
loop takes and drops a reference at every pass: 1.03-1.05x). A function that only indexes
arrays may be compiled without reference counting (``_nrt=False``: the trial loops
:func:`_general_trials`, :func:`_diurnal_trials`; :func:`_settle_categories`,
:func:`_alias_counts`, :func:`_alias_codes`). numba compiles a plain callee with the
``nrt`` flag of the caller that first needs it (the flag is inherited), and that version
then serves every caller of the same signature. A callee reached both from one of these and
from a function with reference counting (the renewal block, an entry called from Python)
was therefore compiled one way or the other by the order in which a process first ran the
paths: :func:`_trial_general`, compiled after the renewal path, kept reference counts on
the arrays its event loop indexes and ran a profiled job 1.16x slower, with the same
outputs. Every such callee declares ``_nrt=False`` itself. ``forceinline`` is inherited the
same way (a plain callee first compiled for a ``forceinline`` caller is inlined everywhere):
the small helpers reached from both kinds of caller declare it, most ``True``, and
:func:`_alias_codes` and :func:`_gap_bound` ``False`` (inlined, they and a wrapper of the
first, since removed, made the pool path's block 1.13x slower).
A helper a test or a benchmark calls from Python is compiled with numba's defaults there,
and numba's disk cache keys a version by its signature, not its flags, so that version
serves later processes of the checkout: those helpers declare both flags too.
tests/test_kernel_flags.py reads the call graph off this source (a name used in the
package, its tests or benchmarks counting as a call from Python) and fails on any function
that could be compiled either way, for either flag. So no function called, directly or
not, from one of them may return an array (a function numba inlines, ``inline="always"``,
as :func:`_table_for`, is not a call and may), and tests/test_generator_address.py checks
that the inputs' reference counts are unchanged after those paths. Where the calls are is
found by breaking on ``NRT_incref``/``NRT_decref`` in a debugger attached to a running
kernel and reading the return addresses (benchmarks/README.md).
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.random._constants import fe_double as _ZIG_FE  # numba's ziggurat tables
from numba.np.random._constants import ke_double as _ZIG_KE
from numba.np.random._constants import we_double as _ZIG_WE
from numba.np.random._constants import ziggurat_exp_r as _ZIG_R

from relmc._jit import jit
from relmc._seed import _M128, _PCG_MULT  # PCG64's 128-bit multiplier (NumPy's)
from relmc.sim import CAUSES
from relmc.sim.inputs import OVERHEADS, WEEK_HOURS

# lost_hours columns, derived from relmc.sim.CAUSES (the one statement of their order)
REWORK = CAUSES.index("rework")
CHECKPOINT = CAUSES.index("checkpoint")
DETECTION = CAUSES.index("detection")
NODE_SWAP = CAUSES.index("node_swap")
SPARE_WAIT = CAUSES.index("spare_wait")
RESTART = CAUSES.index("restart")
MAINTENANCE = CAUSES.index("maintenance")
SLOWDOWN = CAUSES.index("slowdown")
DIAGNOSIS = CAUSES.index("diagnosis")
PREEMPTION = CAUSES.index("preemption")
N_CAUSES = len(CAUSES)
# overhead_factor columns, derived from relmc.sim.inputs.OVERHEADS (the one statement of their
# order)
F_SNAPSHOT = OVERHEADS.index("snapshot")
F_PERSIST = OVERHEADS.index("persist")
F_RESTART = OVERHEADS.index("restart")
F_SWAP = OVERHEADS.index("swap")
F_DETECTION = OVERHEADS.index("detection")
F_MAINTENANCE = OVERHEADS.index("maintenance")
F_DIAGNOSIS = OVERHEADS.index("diagnosis")
F_PREEMPTION = OVERHEADS.index("preemption")
F_SDC_LATENCY = OVERHEADS.index("sdc_latency")
DAY_HOURS = 24.0  # the diurnal period
OMEGA = 2.0 * math.pi / DAY_HOURS  # diurnal angular frequency, per hour

# sentinel states
EV_NONE = -2  # event code: no event before the end of the run
EV_MAINT = -1  # event code: planned maintenance; categories are 0 .. n_cat - 1
NO_GAP = -1.0  # no pending gap carried into the general path
NO_REPAIR = np.inf  # next repair completion when no node is in repair

BUF = 128  # standard exponentials drawn per refill of the draw buffer
UP_SCALE = 1024.0  # a power of two: _gap_bound's integer sum of floor(b * UP_SCALE)
_BOUND_RTOL = 1e-9  # relative slack of the block bounds over float rounding
# rows of the renewal path's per-position sums
EXPOSED, A_RESTART, A_REWORK, A_CKPT = range(4)
N_ACC = 4
_SEG_RTOL = 1e-9  # relative: float noise must never make an empty last segment
_FEW_PER_CATEGORY = 4  # below this many failures per category, draw categories one by one
_SETTLE_MIN = 64  # near the cap, the renewal path settles categories early in parts this large
_PREFIX_MIN = 16  # the renewal path reduces a prefix of a buffer at once if it holds this many


@jit(_nrt=False)
def _segments(remaining, tau):
    """Return (n_seg, r): segments left and the compute length of the last one."""
    n_seg = math.ceil(remaining / tau * (1.0 - _SEG_RTOL))
    if n_seg < 1:
        n_seg = 1
    r = remaining - (n_seg - 1) * tau
    return n_seg, r


@jit(_nrt=False)
def _run_position(e, tau, delta, persist, n_seg, r):
    """State of a run ``e`` hours after it started (the rare paths: cap, maintenance).

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


@jit(_nrt=False)
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


@jit(_nrt=False, forceinline=True)
def _locate(e, n_seg, last_start, r, tau, seg, inv_seg):
    """Segment ``k`` holding run position ``e``, offset ``x`` in it and its compute length.

    ``0 <= e``; ``last_start = (n_seg - 1) * seg``. A multiplication by ``1 / seg`` and two
    exact corrections instead of a division.
    """
    if e >= last_start:
        return n_seg - 1, e - last_start, r
    k = int(e * inv_seg)
    if k * seg > e:
        k -= 1
    elif (k + 1) * seg <= e:
        k += 1
    return k, e - k * seg, tau


@jit(inline="always")
def _run_stop(e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist):
    """Locate a run stopped by an event at position ``e``: ``(k, computed, ckpt, dk)``.

    ``k`` snapshots done; ``computed`` compute hours of the run; ``ckpt`` snapshot hours spent
    (a snapshot under way counts to the stop); ``dk`` segments made durable (a persist under
    way at the stop does not count). The one arithmetic of the general, pool, diurnal, node
    and physics paths.
    """
    k, x, s_k = _locate(e, n_seg, last_start, r, tau, seg, inv_seg)
    dk = k - 1 if x < persist else k
    if dk < 0:
        dk = 0
    return k, k * tau + min(x, s_k), k * delta + max(x - s_k, 0.0), dk


@jit(inline="always")
def _cap_cut(pos, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps):
    """Account a run cut by the wall cap at ``pos``: ``(steps, rework, ckpt, durable)``.

    ``steps``: the power steps of its snapshots done, and the stop unless a snapshot is under
    way; ``rework``: compute that is not durable; ``ckpt``: snapshot hours spent; ``durable``:
    compute made durable. The one arithmetic of the general, pool, node and physics paths.
    """
    computed, durable, ckpt, _ = _run_position(pos, tau, delta, persist, n_seg, r)
    k, x, s_k = _locate(pos, n_seg, last_start, r, tau, seg, inv_seg)
    return snap_steps * k + (1 if x >= s_k else 0), computed - durable, ckpt, durable


@jit(_nrt=False, forceinline=True)
def _spend(lost, i, cause, t, dt, cap_hours):
    """Advance the clock ``dt`` hours charged to ``cause``, stopping at the cap.

    Returns the new time and whether the cap was reached.
    """
    if t + dt > cap_hours:
        lost[i, cause] += cap_hours - t
        return cap_hours, True
    lost[i, cause] += dt
    return t + dt, False


@jit(inline="always")
def _spend_to(acc, t, dt, cap_hours):
    """:func:`_spend` on a scalar sum ``acc``: returns ``(acc, t, capped)``, the same arithmetic."""
    if t + dt > cap_hours:
        return acc + (cap_hours - t), cap_hours, True
    return acc + dt, t + dt, False


@jit(inline="always")
def _pool_swap(rng, t, n_repair, next_done, n_spares, repair_hours):
    """Send a node into the finite pool's repairs at ``t``; return ``(wait, ready, n, next)``.

    Nodes in repair as a count and the next completion: exact for exponential repairs only.
    By memorylessness, the residual repairs of the nodes still in repair are fresh
    exponentials at any moment, so after each completion the next one is
    ``Exp(repair_hours / count)`` later, and a new node's repair joins by taking the minimum.
    With more nodes in repair than spares (``wait``), the job waits for the earliest
    completion (at ``ready``), whose node is swapped in. ``n``, ``next``: the count in repair
    and the next completion afterwards.
    """
    while next_done <= t:
        n_repair -= 1
        if n_repair > 0:
            next_done += rng.standard_exponential() * repair_hours / n_repair
        else:
            next_done = NO_REPAIR
    n_repair += 1
    done_new = t + rng.standard_exponential() * repair_hours
    if done_new < next_done:
        next_done = done_new
    if n_repair > n_spares:
        ready = next_done
        n_repair -= 1
        if n_repair > 0:
            next_done = ready + rng.standard_exponential() * repair_hours / n_repair
        else:
            next_done = NO_REPAIR
        return True, ready, n_repair, next_done
    return False, t, n_repair, next_done


@jit(inline="always")
def _pool_swap_buf(rng, pbuf, jp, t, n_repair, next_done, n_spares, repair_hours):
    """:func:`_pool_swap` with its exponentials read from ``pbuf`` (refilled when read out).

    Returns ``(wait, ready, n, next, jp)``, ``jp`` the next unread entry of ``pbuf``.
    """
    while next_done <= t:
        n_repair -= 1
        if n_repair > 0:
            if jp == BUF:
                _fill(rng, pbuf)
                jp = 0
            next_done += pbuf[jp] * repair_hours / n_repair
            jp += 1
        else:
            next_done = NO_REPAIR
    n_repair += 1
    if jp == BUF:
        _fill(rng, pbuf)
        jp = 0
    done_new = t + pbuf[jp] * repair_hours
    jp += 1
    if done_new < next_done:
        next_done = done_new
    if n_repair > n_spares:
        ready = next_done
        n_repair -= 1
        if n_repair > 0:
            if jp == BUF:
                _fill(rng, pbuf)
                jp = 0
            next_done = ready + pbuf[jp] * repair_hours / n_repair
            jp += 1
        else:
            next_done = NO_REPAIR
        return True, ready, n_repair, next_done, jp
    return False, t, n_repair, next_done, jp


@jit(inline="always")
def _trial_table(cat_rate, d, maint_rate, weights, prob, slot_code, alias_code, small, large):
    """Fill ``weights`` and the alias table with rate draw ``d``'s events.

    ``weights``: the categories' rates, then maintenance. Returns ``(fail_rate, rate,
    n_slots)``, ``rate`` the superposed one.
    """
    n_cat = cat_rate.shape[1]
    fail_rate = 0.0
    for c in range(n_cat):
        weights[c] = cat_rate[d, c]
        fail_rate += cat_rate[d, c]
    weights[n_cat] = maint_rate
    n_slots = _build_alias(weights, n_cat, prob, slot_code, alias_code, small, large)
    return fail_rate, fail_rate + maint_rate, n_slots


# ---------------------------------------------------------------------------------------------
# PCG64's step inlined into the buffer fills. numba's generator calls NumPy's ``pcg64_next64``
# through a function pointer for every draw: the 128-bit state is loaded, stepped and stored
# each call. The fills of the draw buffer (:func:`_fill`, :func:`_fill_from`) and of the
# uniforms (:func:`_uniforms`) instead load the state once, step it in registers (the same
# 128-bit multiply-add and XSL-RR output), repeat numba's ziggurat exponential on the outputs
# (the uniforms: NumPy's next_double) and store the state back: the same draws, and the
# generator left where NumPy's calls leave it. The state's address reaches the kernel in
# the generator's ``state_address`` field, which numba's draws do not read (they pass
# ``state``): :func:`_generator_at` puts the address of PCG64's ``{state, inc}`` words there
# when :func:`_bitgen_address` marked the generator as NumPy's ``PCG64`` with the word layout
# :func:`_pcg_layout_ok` found in memory; otherwise (another bit generator, another layout,
# or a generator numba unboxed itself, whose ``state_address`` equals ``state``) the fills
# call numba's generator as before. Either way the same numbers (tests/test_pcg_inline.py).
_I64 = ir.IntType(64)
_I128 = ir.IntType(128)
_TO_DOUBLE = 1.0 / 9007199254740992.0  # 2^-53, as NumPy's next_double
_PCG_FLAG = 1  # the low bit of a bitgen_t address (8-byte aligned): PCG64, layout checked
_BIT_GENERATOR = types.NumPyRandomBitGeneratorType("bit_generator")


@intrinsic
def _pcg_address(typingctx, rng):
    """Return the address of ``rng``'s PCG64 ``{state, inc}`` words, or 0 (draw by its calls).

    Non-zero only for a generator built by :func:`_generator_at` from a marked address.
    """
    if not isinstance(rng, types.NumPyRandomGeneratorType):
        return None

    def codegen(context, builder, sig, args):
        gen = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
        bg = cgutils.create_struct_proxy(_BIT_GENERATOR)(context, builder, value=gen.bit_generator)
        differs = builder.icmp_unsigned("!=", bg.state_address, bg.state)
        return builder.select(differs, bg.state_address, ir.Constant(bg.state.type, 0))

    return types.uintp(rng), codegen


@intrinsic
def _pcg_load(typingctx, addr):
    """PCG64's state and increment at ``addr``: their low and high 64-bit words."""

    def codegen(context, builder, sig, args):
        p = builder.inttoptr(args[0], _I64.as_pointer())
        words = [builder.load(builder.gep(p, [ir.Constant(ir.IntType(32), k)])) for k in range(4)]
        return context.make_tuple(builder, sig.return_type, words)

    return types.UniTuple(types.uint64, 4)(addr), codegen


@intrinsic
def _pcg_store(typingctx, addr, lo, hi):
    """Store PCG64's state words ``lo``, ``hi`` at ``addr`` (the increment is unchanged)."""

    def codegen(context, builder, sig, args):
        p = builder.inttoptr(args[0], _I64.as_pointer())
        builder.store(args[1], builder.gep(p, [ir.Constant(ir.IntType(32), 0)]))
        builder.store(args[2], builder.gep(p, [ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return types.none(addr, lo, hi), codegen


@intrinsic
def _pcg_step(typingctx, lo, hi, ilo, ihi):
    """One PCG64 step: the new state's words and the 64-bit output (XSL-RR), as NumPy's."""

    def codegen(context, builder, sig, args):
        def wide(low, high):
            high = builder.shl(builder.zext(high, _I128), ir.Constant(_I128, 64))
            return builder.or_(high, builder.zext(low, _I128))

        s = builder.add(
            builder.mul(wide(*args[:2]), ir.Constant(_I128, _PCG_MULT)), wide(*args[2:])
        )
        nlo = builder.trunc(s, _I64)
        nhi = builder.trunc(builder.lshr(s, ir.Constant(_I128, 64)), _I64)
        x = builder.xor(nhi, nlo)
        fty = ir.FunctionType(_I64, [_I64, _I64, _I64])
        rotr = cgutils.get_or_insert_function(builder.module, fty, "llvm.fshr.i64")
        out = builder.call(rotr, [x, x, builder.lshr(nhi, ir.Constant(_I64, 58))])
        return context.make_tuple(builder, sig.return_type, [nlo, nhi, out])

    return types.UniTuple(types.uint64, 3)(lo, hi, ilo, ihi), codegen


@jit(inline="always")
def _pcg_exponential(lo, hi, ilo, ihi):
    """Numba's ziggurat standard exponential on inlined PCG64 steps: ``(lo, hi, draw)``.

    numba's ``random_standard_exponential`` line for line: ``next_uint64`` is a step, and
    ``next_double`` a step's top 53 bits times 2^-53 (NumPy's PCG64).
    """
    while True:
        lo, hi, ri = _pcg_step(lo, hi, ilo, ihi)
        ri >>= np.uint64(3)
        idx = ri & np.uint64(0xFF)
        ri >>= np.uint64(8)
        x = np.int64(ri) * _ZIG_WE[idx]  # ri < 2^53: the signed conversion is exact
        if ri < _ZIG_KE[idx]:
            return lo, hi, x
        lo, hi, u = _pcg_step(lo, hi, ilo, ihi)
        d = np.int64(u >> np.uint64(11)) * _TO_DOUBLE
        if idx == 0:
            return lo, hi, _ZIG_R - np.log1p(-d)
        if (_ZIG_FE[idx - 1] - _ZIG_FE[idx]) * d + _ZIG_FE[idx] < np.exp(-x):
            return lo, hi, x


@jit(_nrt=False, forceinline=True)
def _gap(rng):
    """One standard exponential: exposed time to the next event, in units of the mean gap.

    Rates are constant, so every gap is a fresh exponential (memorylessness). A time change
    for time-varying rates would map this draw through the integrated rate here.
    """
    return rng.standard_exponential()


@jit(_nrt=False, forceinline=True)
def _accepted(v, base, amp, s, theta):
    """Thinning's acceptance test for a proposal at wall time ``s``.

    ``v`` is uniform on ``[0, bound)``; the proposal is a failure where
    ``v < base + amp cos(OMEGA s + theta)``. Below the intensity's minimum ``base - amp`` it
    is accepted without the cosine (the same answer, as ``amp >= 0``), and without a cosine
    (``amp == 0``, a rate profile alone) it is rejected there (``base - 0 == base + 0 cos``).
    """
    return v < base - amp or (amp > 0.0 and v < base + amp * math.cos(OMEGA * s + theta))


#: A trend window's width in the trend: over a window the trend factor ``T`` changes by at most
#: this ratio, so thinning against ``T``'s largest value there (:func:`_fail_gap`) proposes at
#: most this many times the failures it would at ``T``'s smallest
TREND_RHO = 1.0625
_LOG_TREND_RHO = math.log(TREND_RHO)
#: Slack on a window's bounds of ``T`` for the rounding of its end and of ``T`` itself
_TREND_PAD = 1.0 + 2.0**-40


@jit(_nrt=False)
def _trend_at(t, shape, age):
    """Return the trend factor ``T(t) = (1 + t / age) ** (shape - 1)``."""
    return math.exp((shape - 1.0) * math.log1p(t / age))


@jit(_nrt=False)
def _trend_window(a, shape, age):
    """Return ``(b, t_lo, t_hi)``: a window ``[a, b)`` of the trend and bounds of ``T`` on it.

    ``(age + b) / (age + a) = TREND_RHO ** (1 / |shape - 1|)``, so ``T`` is monotone on the
    window and its ends differ by the factor ``TREND_RHO`` exactly; ``t_lo <= T <= t_hi``
    there (padded by ``_TREND_PAD`` for rounding). Not for ``shape == 1``. A trial running to
    wall time ``t`` passes through about ``|shape - 1| ln(1 + t / age) / ln(TREND_RHO)``
    windows (plus one a draw that starts outside the kept one): 4 for a wear-out of 1.5
    on a fleet 2,000 h old over 1,300 wall hours, 350 for shape 5 on one 3 min old over 10 h.
    """
    ta = _trend_at(a, shape, age)
    b = a + (age + a) * math.expm1(_LOG_TREND_RHO / abs(shape - 1.0))
    if shape > 1.0:
        return b, ta / _TREND_PAD, ta * TREND_RHO * _TREND_PAD
    return b, ta / (TREND_RHO * _TREND_PAD), ta * _TREND_PAD


@jit(_nrt=False, forceinline=True)
def _trend_accepted(v, base, amp, s, theta, t_lo, t_hi, shape, age):
    """Thinning's acceptance test under a trend: ``v < T(s) (base + amp cos(OMEGA s + theta))``.

    ``v`` is uniform on ``[0, bound t_hi)`` with ``bound >= base + amp`` and ``t_lo <= T(s) <=
    t_hi`` (the window's bounds, :func:`_trend_window`). Decided by the bounds where they
    suffice (a squeeze): below ``t_lo (base - amp)`` without the cosine, below ``t_lo f`` or
    at or above ``t_hi f`` with it, and only in between (a share of about ``1 - 1 /
    TREND_RHO`` of the proposals) by ``T(s)`` itself. The same answer as the exact test.
    """
    if v < t_lo * (base - amp):
        return True
    f = base + amp * math.cos(OMEGA * s + theta) if amp > 0.0 else base
    if v < t_lo * f:
        return True
    if v >= t_hi * f:
        return False
    return v < _trend_at(s, shape, age) * f


@jit(_nrt=False, forceinline=True)
def _trend_propose(rng, s, rate, shape, age, wa, wb, wlo, whi):
    """Return the next proposal after ``s`` under a trend: ``(sn, wa, wb, wlo, whi)``.

    Proposals come at ``rate`` times the top ``whi`` of the trend window ``[wa, wb)`` that
    holds ``s``: the kept one if it does, else one made from ``s`` (:func:`_trend_window`;
    a window made past ``s`` by a dropped draw is not ``s``'s). The caller drops a proposal
    at or past ``wb`` and proposes again from ``wb`` (a Poisson process's increments are
    independent), which makes the next window.
    """
    if not wa <= s < wb:
        wa = s
        wb, wlo, whi = _trend_window(s, shape, age)
    return s + _gap(rng) / (rate * whi), wa, wb, wlo, whi


@jit(_nrt=False, forceinline=True)
def _fail_gap(rng, t0, base, amp, theta, bound, shape, age, horizon, wa, wb, wlo, whi):
    """Wall hours from ``t0`` to the next failure, the exposure unbroken from ``t0`` on.

    Returns ``(gap, wa, wb, wlo, whi)``: the gap and the trend window in use (below).

    The failure intensity is ``T(t) (base + amp cos(OMEGA t + theta))``, drawn by thinning;
    exact when ``bound >= base + amp``. A proposal past ``horizon`` (the wall cap) is
    returned at once: the true failure is no earlier, and any time past the cap has the same
    effect.

    Without a trend (``shape == 1``) proposals come at rate ``bound`` and are accepted with
    probability ``(base + amp cos) / bound`` (:func:`_accepted`; none drawn when ``amp == 0``
    and ``bound == base``). With a trend they come in windows ``[wa, wb)`` over which ``T``
    stays within ``[wlo, whi]`` (:func:`_trend_window`; ``whi / wlo`` about ``TREND_RHO``): at
    the constant rate ``bound whi`` in the window, each accepted with probability ``T(s)
    (base + amp cos) / (bound whi)`` (:func:`_trend_accepted`, mostly without ``T(s)``); a
    proposal past ``wb`` is dropped and the proposals start afresh from ``wb`` with the next
    window (a Poisson process's increments are independent). The window is the caller's
    state, kept from call to call in a trial (``wa = 0``, ``wb = -1``: none, at its start), so
    a trend's transcendental functions are spent once a window, not once a proposal
    (inverting the trend's integral took four a failure). It serves a call only if it holds
    ``t0``: a caller may drop a drawn failure (a planned event or a straggler's handling came
    first) and draw again from an earlier time than the window the dropped draw reached.
    """
    if shape == 1.0:
        s = t0
        while True:
            s += _gap(rng) / bound
            if (amp == 0.0 and bound == base) or s > horizon:
                return s - t0, wa, wb, wlo, whi
            if _accepted(rng.random() * bound, base, amp, s, theta):
                return s - t0, wa, wb, wlo, whi
    s = t0
    while True:
        sn, wa, wb, wlo, whi = _trend_propose(rng, s, bound, shape, age, wa, wb, wlo, whi)
        if sn >= wb:  # past the window: nothing before its end, the next window from there
            if wb > horizon:
                return sn - t0, wa, wb, wlo, whi
            s = wb
            continue
        s = sn
        if s > horizon:
            return s - t0, wa, wb, wlo, whi
        if _trend_accepted(rng.random() * bound * whi, base, amp, s, theta, wlo, whi, shape, age):
            return s - t0, wa, wb, wlo, whi


@jit(_nrt=False, forceinline=True)
def _pick_at(rng, s, w, pc, ps, base, zr, zi):
    """Category of a failure at wall time ``s``: ``c`` with probability ``lambda_c(s) / sum``.

    ``lambda_c(s)`` is proportional to ``w_c + pc_c cos(OMEGA s) - ps_c sin(OMEGA s)`` (the
    trend factor is common to all categories and cancels); ``pc``, ``ps`` come from
    :func:`_diurnal_terms`, ``zr``, ``zi`` are their sums and ``base`` the sum of ``w``. One
    cosine, one sine, one uniform and one pass over the categories.
    """
    cs = math.cos(OMEGA * s)
    sn = math.sin(OMEGA * s)
    u = rng.random() * (base + zr * cs - zi * sn)
    acc = 0.0
    last = 0
    for c in range(pc.shape[0]):
        if w[c] > 0.0:
            acc += w[c] + pc[c] * cs - ps[c] * sn
            last = c
            if u < acc:
                return c
    return last  # u rounded onto the total


@jit(_nrt=False, forceinline=True)
def _week_pos(week_hour0, s):
    """``(week_hour0 + s) mod 168``: the floats of ``%`` for ``s >= 0``, at a tenth of the cost.

    ``%`` calls the C library's ``fmod`` (~21 ns; this 1.6 ns, in a loop of 10 million).
    With ``x = week_hour0 + s`` and ``q = floor(x / 168)``, ``x - 168 q`` is exact (a multiple
    of ``x``'s unit in the last place, no larger than ``x``), so it is the remainder when
    ``q`` is the true quotient's floor. It is: a quotient at or above an integer ``n`` (below
    2**53) cannot round below it, and one below ``n`` cannot round up to it, since the float
    next below ``168 n`` lies at least ``128 ulp(n)`` under it, past the rounding's reach of
    ``84 ulp(n)`` (``168 = 8 x 21``, ``21 >= 16``).
    """
    x = week_hour0 + s
    return x - float(WEEK_HOURS) * math.floor(x / float(WEEK_HOURS))


@jit(_nrt=False, forceinline=True)
def _week_hour(week_hour0, s):
    """``k(s) = floor((week_hour0 + s) mod 168)``: the hour of the week at wall time ``s >= 0``."""
    return int(_week_pos(week_hour0, s))  # (below 168: the remainder is exact)


@jit(_nrt=False, forceinline=True)
def _profile_rate(w, prof, k):
    """``sum_c w_c q_c[k]``: the categories' profiled rates in hour ``k`` of the week.

    Without a cosine this is the failure intensity over the trend; with all profiles ones it
    is the sum of ``w`` as :func:`_trial_general` adds it (``x * 1.0`` is ``x``).
    """
    tot = 0.0
    for c in range(prof.shape[0]):
        tot += w[c] * prof[c, k]
    return tot


@jit
def _profile_max(cat_profile, qmax):
    """Fill ``qmax`` with each profile's maximum; return whether all the rows are equal.

    With equal rows (and one diurnal shape) the categories keep their proportions in time.
    """
    same = True
    for c in range(cat_profile.shape[0]):
        m = cat_profile[c, 0]
        for k in range(WEEK_HOURS):
            m = max(m, cat_profile[c, k])
            if cat_profile[c, k] != cat_profile[0, k]:
                same = False
        qmax[c] = m
    return same


@jit(_nrt=False, forceinline=True)
def _profile_bound(w, qmax):
    """``sum_c w_c max_k q_c[k]``: a bound of the profiled rates over the week (``qmax``)."""
    bound = 0.0
    for c in range(qmax.shape[0]):
        bound += w[c] * qmax[c]
    return bound


#: An hour whose bound (its profiled rate plus the cosine's amplitude) is below this share of
#: the week's bound is thinned against its own bound (:func:`_fail_gap_profile`)
PROFILE_LOW = 1.0 / 64.0
#: No table of hourly rates (:func:`_profile_table`): a path whose rates change within a
#: trial (the node model's, the physics') sums the categories' profiled rates per proposal
NO_TABLE = np.empty(0)
#: A table of hourly rates (:func:`_profile_table`): the 168 rates, then at these indices their
#: bound, their sum over the week, whether they vary by the hour (1.0) or not (0.0), whether
#: a category has a diurnal cosine (1.0, set by the caller) or none does (0.0), from ``T_INV``
#: on their inverses (``TABLE_HEAD`` entries up to here), then from ``T_INV + WEEK_HOURS``
#: each hour's cumulative rates by category and each hour's last category of positive rate
#: (:func:`table_size` entries in all)
T_BOUND = WEEK_HOURS
T_WEEK = WEEK_HOURS + 1
T_VARIES = WEEK_HOURS + 2
T_COSINE = WEEK_HOURS + 3
T_INV = WEEK_HOURS + 4
TABLE_HEAD = T_INV + WEEK_HOURS


@jit
def table_size(n_cat):
    """Entries of a table of hourly rates for ``n_cat`` categories (:func:`_profile_table`)."""
    return TABLE_HEAD + WEEK_HOURS * (n_cat + 1)


@jit(_nrt=False)
def _profile_table(w, prof, qmax, tab):
    """Fill ``tab`` (:func:`table_size` floats) with the draw's hourly rates and what follows.

    ``tab[k] = sum_c w_c q_c[k]`` (:func:`_profile_rate`, the same floats) and
    ``tab[T_BOUND] = sum_c w_c max_k q_c[k]``, summed in the categories' order as
    :func:`_fail_gap_profile` sums them, so a look-up there draws what the sums draw, bit
    for bit; ``tab[T_WEEK] = sum_k tab[k]``, the week's integral of the intensity;
    ``tab[T_VARIES]`` 1.0 where some hour's rate differs from another's, else 0.0 (profiles
    of ones: :func:`_next_failure` then thins, one exponential a failure as without them);
    ``tab[T_INV + k] = 1 / tab[k]`` (:func:`_invert_profile`). From ``TABLE_HEAD`` on, hour
    ``k``'s running sums ``sum_{j <= c, x_j > 0} x_j`` of ``x_j = w_j q_j[k]`` over the
    categories ``c`` (row ``k`` of ``n_cat``), the sums :func:`_pick_profile` adds without a
    cosine, and then each hour's last category with ``x_c > 0`` (as a float).
    ``tab[T_COSINE]`` is the caller's to set. ``WEEK_HOURS`` passes over the categories,
    once a draw.
    """
    n_cat = prof.shape[0]
    last_at = TABLE_HEAD + WEEK_HOURS * n_cat
    week = 0.0
    varies = 0.0
    for k in range(WEEK_HOURS):
        acc = 0.0  # the hour's rate: _profile_rate's sum (its terms of 0 add nothing)
        last = 0
        row = TABLE_HEAD + k * n_cat
        for c in range(n_cat):
            x = w[c] * prof[c, k]
            if x > 0.0:
                acc += x
                last = c
            tab[row + c] = acc
        tab[last_at + k] = last
        tab[k] = acc
        week += acc
        tab[T_INV + k] = 1.0 / acc if acc > 0.0 else math.inf
        if acc != tab[0]:
            varies = 1.0
    tab[T_BOUND] = _profile_bound(w, qmax)
    tab[T_WEEK] = week
    tab[T_VARIES] = varies


@jit(_nrt=False)
def _any_cosine(pc, ps):
    """Whether any category's diurnal terms (:func:`_diurnal_terms`) are nonzero."""
    for c in range(pc.shape[0]):
        if pc[c] != 0.0 or ps[c] != 0.0:
            return True
    return False


@jit(_nrt=False, forceinline=True)
def _invert_profile(rng, t0, tab, week_hour0, horizon, ha, hb, hk):
    """Wall hours from ``t0`` to the next failure of a profile alone, by an exact time change.

    Returns ``(gap, ha, hb, hk)``: the gap and the hour of the week ``[ha, hb)`` (index
    ``hk``, a float) that holds the failure, kept by the caller from call to call in a trial
    (``ha = 0``, ``hb = -1``: none) so that a draw starting in it spends no division on the
    week's position (:func:`_week_pos` once an hour left, not once a failure).

    The intensity is ``tab[k(t)]`` (no cosine, no trend: constant on each hour of the week,
    :func:`_profile_table`), so its integral from ``t0`` is piecewise linear, and the next
    failure is where it reaches one standard exponential ``g``: ``g`` is spent hour by hour
    (the rest of ``t0``'s hour, then whole hours; whole weeks at once, ``tab[T_WEEK]``
    each, where ``g`` holds one) and the failure falls ``g / tab[k]`` into the hour
    where it runs out (times the table's ``1 / tab[k]``). One draw a failure, no rejection;
    the cost is the hours the gap spans (past whole weeks), O(1) a failure where failures
    are more frequent than hourly. Zero hours are passed over (nothing of ``g`` is spent
    there); a week of zeros has no failure (``inf``, no draw). Past ``horizon`` (the wall
    cap) it returns at once: the failure is no earlier. Hours run from the first hour's end,
    ``t0 + (k + 1 - pos)``, in steps of 1: the boundaries may differ from the wall clock's
    hours of the week by the rounding of that sum (~1e-13 h). The same process as
    :func:`_fail_gap_profile` thins, in law; other draws.
    """
    week = tab[T_WEEK]
    if not week > 0.0:
        return math.inf, ha, hb, hk
    g = _gap(rng)
    if ha <= t0 < hb:
        k = int(hk)
    else:
        x = _week_pos(week_hour0, t0)
        k = int(x)
        hb = t0 + ((k + 1.0) - x)
    start = t0
    while True:
        m = tab[k] * (hb - start)
        if g < m:  # (so tab[k] > 0)
            return (start + g * tab[T_INV + k]) - t0, hb - 1.0, hb, float(k)
        if hb > horizon:
            return hb - t0, hb - 1.0, hb, float(k)
        g -= m
        start = hb
        hb += 1.0
        k = k + 1 if k < WEEK_HOURS - 1 else 0
        if g >= week:  # whole weeks from an hour's start, each of integral `week`
            n = math.floor(g / week)
            g = max(g - n * week, 0.0)
            start += n * WEEK_HOURS
            hb += n * WEEK_HOURS


@jit(_nrt=False)
def _hour_end(week_hour0, s):
    """Wall time at which the hour of the week holding wall time ``s`` ends (``> s``)."""
    pos = _week_pos(week_hour0, s)
    return s + (math.floor(pos) + 1.0 - pos)


@jit(_nrt=False)
def _zero_run_end(w, prof, week_hour0, s, amp):
    """End of the run of hours with intensity 0 that holds ``s`` (inf: every hour is 0).

    The hour of ``s`` has ``sum_c w_c q_c[k] + amp == 0``; the following hours of the week
    are scanned (at most 167) for the first with a positive rate.
    """
    e = _hour_end(week_hour0, s)
    k = _week_hour(week_hour0, s)
    for j in range(1, WEEK_HOURS):
        if _profile_rate(w, prof, (k + j) % WEEK_HOURS) + amp > 0.0:
            return e
        e += 1.0
    return math.inf


@jit(_nrt=False, forceinline=True)
def _fail_gap_profile(
    rng, t0, w, prof, qmax, tab, week_hour0, amp, theta, shape, age, horizon, wa, wb, wlo, whi
):
    """:func:`_fail_gap` under periodic profiles (``prof`` rows, ``qmax`` their maxima).

    The intensity is ``T(t) (sum_c w_c q_c[k(t)] + amp cos(OMEGA t + theta))``; the bound
    ``sum_c w_c max_k q_c[k] + amp`` dominates it in every hour, so thinning is exact. A
    proposal costs a look-up in ``tab`` where the caller holds the hourly rates there
    (:func:`_profile_table`; the general path, whose rates are the draw's all through a
    trial), else one pass over the categories (the rate in its hour): the same floats. With
    every profile ones it computes what :func:`_fail_gap` does with ``base = sum(w)``, bit for
    bit (the same bound, draws, trend windows and comparisons).

    Low hours: a rejected proposal is a stopping time after which the failures are a fresh
    process, so any exact method may go on from it. Where it lies in an hour whose own bound
    ``b = sum_c w_c q_c[k] + amp`` is below :data:`PROFILE_LOW` of the week's (a zero hour,
    a near-empty night), the proposals at the week's rate would come all through the hour
    and be rejected (a profile of zeros but one hour, at a high rate: ~1e9 proposals in a
    100-hour job). Instead: ``b = 0``, the run of zero hours is skipped (no failure can fall
    there); else the rest of the hour is thinned against ``b`` itself (exact: ``b T(t)``
    dominates the intensity in that hour), and the week's bound resumes at the hour's end.
    Cost: at most one such restart per low hour the job runs through, where the week's bound
    would spend its rate times the hours. Profiles without such hours draw as before, bit for
    bit (the test is made after a rejection only). A trend's windows run through both bounds.
    """
    tabled = tab.shape[0] > 0
    bound = (tab[T_BOUND] if tabled else _profile_bound(w, qmax)) + amp
    low = bound * PROFILE_LOW
    trend = shape != 1.0
    y = t0  # without a trend the wall clock itself (the trend's integral, 1 : 1)
    s = t0
    while True:
        if trend:
            sn, wa, wb, wlo, whi = _trend_propose(rng, s, bound, shape, age, wa, wb, wlo, whi)
            if sn >= wb:  # past the window: the next one from its end
                if wb > horizon:
                    return sn - t0, wa, wb, wlo, whi
                s = wb
                continue
            s = sn
        else:
            y += _gap(rng) / bound
            s = y
        if s > horizon:
            return s - t0, wa, wb, wlo, whi
        k = _week_hour(week_hour0, s)
        base = tab[k] if tabled else _profile_rate(w, prof, k)
        if trend:
            v = rng.random() * bound * whi
            if _trend_accepted(v, base, amp, s, theta, wlo, whi, shape, age):
                return s - t0, wa, wb, wlo, whi
        else:
            if amp == 0.0 and bound == base:
                return s - t0, wa, wb, wlo, whi
            if _accepted(rng.random() * bound, base, amp, s, theta):
                return s - t0, wa, wb, wlo, whi
        b = base + amp
        if b >= low:
            continue
        if b <= 0.0:  # a run of zero hours: skipped
            e = _zero_run_end(w, prof, week_hour0, s, amp)
            if e > horizon:
                return e - t0, wa, wb, wlo, whi
        else:  # the rest of a low hour, against its own bound
            e = _hour_end(week_hour0, s)
            while True:
                if trend:
                    sn, wa, wb, wlo, whi = _trend_propose(rng, s, b, shape, age, wa, wb, wlo, whi)
                    if sn >= wb and wb < e:  # the window ends first: the next from its end
                        if wb > horizon:
                            return sn - t0, wa, wb, wlo, whi
                        s = wb
                        continue
                    s = sn
                else:
                    y += _gap(rng) / b
                    s = y
                if s >= e:
                    break
                if s > horizon:
                    return s - t0, wa, wb, wlo, whi
                if trend:
                    v = rng.random() * b * whi
                    if _trend_accepted(v, base, amp, s, theta, wlo, whi, shape, age):
                        return s - t0, wa, wb, wlo, whi
                elif _accepted(rng.random() * b, base, amp, s, theta):
                    return s - t0, wa, wb, wlo, whi
        y = e
        s = e


@jit(_nrt=False, forceinline=True)
def _next_failure(
    rng, t0, base, amp, theta, w, prof, qmax, tab, week_hour0, shape, age, horizon, wa, wb, wlo,
    whi,
):  # fmt: skip
    """Wall hours to the next failure of time-varying rates, the exposure unbroken.

    :func:`_fail_gap` when ``prof`` has no rows (as without profiles, bit for bit); a profile
    alone (no cosine, no trend) whose rates vary by the hour, with the draw's table of
    hourly rates (``tab``: the general path's), by :func:`_invert_profile`; else
    :func:`_fail_gap_profile` (profiles of ones: what :func:`_fail_gap` draws). Returns
    ``(gap, wa, wb, wlo, whi)``: the trend window to pass to the trial's next call (``wa =
    0``, ``wb = -1`` at a trial's start, see :func:`_fail_gap`), or for a profile alone the
    hour of the week that held the failure (``[wa, wb)``, its index in ``wlo``).
    """
    if prof.shape[0] == 0:
        return _fail_gap(
            rng, t0, base, amp, theta, base + amp, shape, age, horizon, wa, wb, wlo, whi
        )
    if amp == 0.0 and shape == 1.0 and tab.shape[0] > 0 and tab[T_VARIES] > 0.0:
        # a profile alone: a time change
        g, wa, wb, wlo = _invert_profile(rng, t0, tab, week_hour0, horizon, wa, wb, wlo)
        return g, wa, wb, wlo, whi
    return _fail_gap_profile(
        rng, t0, w, prof, qmax, tab, week_hour0, amp, theta, shape, age, horizon, wa, wb, wlo,
        whi,
    )  # fmt: skip


@jit(_nrt=False, forceinline=True)
def _pick_profile(rng, s, w, pc, ps, zr, zi, prof, tab, week_hour0):
    """:func:`_pick_at` under periodic profiles: the category of a failure at ``s``.

    ``lambda_c(s)`` is proportional to ``w_c q_c[k(s)] + pc_c cos(OMEGA s) - ps_c sin(OMEGA
    s)`` (``pc_c = ps_c = 0`` where a category has a profile). Two passes over the
    categories; with every profile ones the same uniform and sums as :func:`_pick_at`.
    Where no category has a cosine (``pc = ps = 0``) and the caller holds the draw's table,
    one uniform and a scan of the hour's running sums there, which are the sums the passes
    add (``x + 0 cos - 0 sin`` is ``x``): the same category, bit for bit, without a cosine,
    a sine or a product.
    """
    k = _week_hour(week_hour0, s)
    if tab.shape[0] > 0 and tab[T_COSINE] == 0.0:
        # no cosine: the hour's running sums of the table (the same floats as below)
        n_cat = prof.shape[0]
        u = rng.random() * tab[k]
        row = TABLE_HEAD + k * n_cat
        for c in range(n_cat):
            if u < tab[row + c]:
                return c
        return int(tab[TABLE_HEAD + WEEK_HOURS * n_cat + k])  # u rounded onto the total
    cs = math.cos(OMEGA * s)
    sn = math.sin(OMEGA * s)
    rate_k = tab[k] if tab.shape[0] > 0 else _profile_rate(w, prof, k)
    u = rng.random() * (rate_k + zr * cs - zi * sn)
    acc = 0.0
    last = 0
    for c in range(prof.shape[0]):
        x = w[c] * prof[c, k]
        if x > 0.0:
            acc += x + pc[c] * cs - ps[c] * sn
            last = c
            if u < acc:
                return c
    return last  # u rounded onto the total


@jit(_nrt=False, forceinline=True)
def _pick_time(rng, s, w, pc, ps, base, zr, zi, prof, tab, week_hour0):
    """Category of a failure at wall time ``s``: :func:`_pick_at` or :func:`_pick_profile`.

    The latter when ``prof`` has rows; without, as without profiles, bit for bit.
    """
    if prof.shape[0] == 0:
        return _pick_at(rng, s, w, pc, ps, base, zr, zi)
    return _pick_profile(rng, s, w, pc, ps, zr, zi, prof, tab, week_hour0)


@jit(_nrt=False)
def _diurnal_terms(w, cat_amp, cat_phase, start_hour, pc, ps):
    """Fill ``pc``, ``ps`` and return their sums ``(zr, zi)``.

    ``w_c a_c cos(OMEGA (h0 + t - phi_c)) = pc_c cos(OMEGA t) - ps_c sin(OMEGA t)``, so the
    categories' diurnal terms sum to ``A cos(OMEGA t + theta)`` with ``A = hypot(zr, zi)``,
    ``theta = atan2(zi, zr)`` (one period).
    """
    _diurnal_angles(cat_phase, start_hour, pc, ps)
    return _diurnal_terms_at(w, cat_amp, pc, ps, pc, ps)


@jit(_nrt=False)
def _diurnal_angles(cat_phase, start_hour, cos_a, sin_a):
    """Store each category's cos and sin of ``OMEGA (h0 - phi_c)`` in ``cos_a``, ``sin_a``."""
    for c in range(cat_phase.shape[0]):
        ang = OMEGA * (start_hour - cat_phase[c])
        cos_a[c] = math.cos(ang)
        sin_a[c] = math.sin(ang)


@jit(_nrt=False, forceinline=True)
def _diurnal_terms_at(w, cat_amp, cos_a, sin_a, pc, ps):
    """:func:`_diurnal_terms` from the angles' cosines and sines (:func:`_diurnal_angles`).

    The same floats: a path whose peak hours do not change between trials computes the
    angles once, not a cosine and a sine per category and trial (~1.4 us a trial with 18
    categories, a quarter of a 54-day trial's time at 2k GPUs). ``pc``, ``ps`` may be
    ``cos_a``, ``sin_a`` (each entry read before it is written).
    """
    zr = 0.0
    zi = 0.0
    for c in range(cat_amp.shape[0]):
        pc[c] = w[c] * cat_amp[c] * cos_a[c]
        ps[c] = w[c] * cat_amp[c] * sin_a[c]
        zr += pc[c]
        zi += ps[c]
    return zr, zi


@jit(_nrt=False)
def _same_shape(cat_amp, cat_phase):
    """Whether every category has the same diurnal amplitude and peak hour."""
    for c in range(1, cat_amp.shape[0]):
        if cat_amp[c] != cat_amp[0] or cat_phase[c] != cat_phase[0]:
            return False
    return True


@jit
def _draws_vary(draw_amp, draw_trend):
    """Whether any draw's failure intensity varies in time (an amplitude > 0 or a trend != 1).

    See "Physics parameters per draw" in :mod:`relmc.sim`; arrays without rows: False.
    """
    for d in range(draw_trend.shape[0]):
        if draw_trend[d] != 1.0:
            return True
    for d in range(draw_amp.shape[0]):
        for c in range(draw_amp.shape[1]):
            if draw_amp[d, c] > 0.0:
                return True
    return False


@jit
def _draws_bad(draw_bad_fraction):
    """Whether any draw has bad nodes (a bad fraction > 0): the node model is then on."""
    for d in range(draw_bad_fraction.shape[0]):
        if draw_bad_fraction[d] > 0.0:
            return True
    return False


@jit(_nrt=False)
def _trial_shape(draw_amp, draw_phase, draw_trend, d, cat_amp, cat_phase, trend_shape, amp, phase):
    """Fill ``amp``, ``phase`` with draw ``d``'s diurnal amplitudes and peaks; return its trend.

    Each per-draw array with rows gives row ``d``, one without rows the single values (copied
    as they are, so off changes no bit). O(n_categories).
    """
    for c in range(amp.shape[0]):
        amp[c] = draw_amp[d, c] if draw_amp.shape[0] > 0 else cat_amp[c]
        phase[c] = draw_phase[d, c] if draw_phase.shape[0] > 0 else cat_phase[c]
    return draw_trend[d] if draw_trend.shape[0] > 0 else trend_shape


@jit
def _trial_bad(draw_bad_fraction, draw_bad_multiplier, d, bad_fraction, bad_multiplier, m):
    """Fill ``m`` with the bad-node multipliers of rate draw ``d``; return its bad fraction.

    As :func:`_trial_shape`: row ``d`` of an array with rows, else the single values.
    """
    for c in range(m.shape[0]):
        m[c] = draw_bad_multiplier[d, c] if draw_bad_multiplier.shape[0] > 0 else bad_multiplier[c]
    return draw_bad_fraction[d] if draw_bad_fraction.shape[0] > 0 else bad_fraction


@jit(_nrt=False)
def _nominal(t1, t2, b, phase0):
    """Nominal hours a run advances from wall ``t1`` to ``t2``: ``S(t2) - S(t1)``.

    ``S(t) = t + (b / OMEGA) sin(OMEGA (phase0 + t))``; the difference of sines is taken as a
    product, exact to rounding however close ``t1`` and ``t2`` are.
    """
    a1 = OMEGA * (phase0 + t1)
    a2 = OMEGA * (phase0 + t2)
    return (t2 - t1) + (b / OMEGA) * 2.0 * math.cos(0.5 * (a1 + a2)) * math.sin(0.5 * (a2 - a1))


@jit(_nrt=False)
def _wall_for(t1, d, b, phase0):
    """Wall hours from ``t1`` in which a run advances ``d`` nominal hours.

    Newton on the increasing ``_nominal(t1, t1 + w) - d`` (derivative ``s > 0``), each step
    kept inside a bracket that shrinks (else bisection): speed in ``[1 - b, 1 + b]`` and
    ``|S(t) - t|`` at most ``b / OMEGA`` give the first bracket.
    """
    if d <= 0.0:
        return 0.0
    lo = max(d / (1.0 + b), d - 2.0 * b / OMEGA)
    hi = min(d / (1.0 - b), d + 2.0 * b / OMEGA)
    w = min(max(d, lo), hi)
    for _ in range(200):
        f = _nominal(t1, t1 + w, b, phase0) - d
        if f == 0.0:
            return w
        if f > 0.0:
            hi = w
        else:
            lo = w
        wn = w - f / (1.0 + b * math.cos(OMEGA * (phase0 + t1 + w)))
        if not (lo < wn < hi):
            wn = 0.5 * (lo + hi)
        if abs(wn - w) <= 4e-16 * (t1 + w):  # the spacing of floats at the wall clock
            return wn
        w = wn
    return w


@jit(_nrt=False)
def _build_alias(weights, n_cat, prob, slot_code, alias_code, small, large):
    """Walker/Vose alias table over the outcomes of positive weight; returns their number.

    Outcome ``j`` of ``weights`` has code ``j`` for ``j < n_cat`` (a category) and
    ``EV_MAINT`` beyond. Zero-weight outcomes get no slot, so they can never be drawn.
    """
    n = 0
    total = 0.0
    for j in range(weights.shape[0]):
        if weights[j] > 0.0:
            slot_code[n] = j if j < n_cat else EV_MAINT
            prob[n] = weights[j]
            total += weights[j]
            n += 1
    n_small = 0
    n_large = 0
    for j in range(n):
        prob[j] = prob[j] * n / total
        alias_code[j] = slot_code[j]
        if prob[j] < 1.0:
            small[n_small] = j
            n_small += 1
        else:
            large[n_large] = j
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        a = small[n_small]
        n_large -= 1
        b = large[n_large]
        alias_code[a] = slot_code[b]
        prob[b] = prob[b] + prob[a] - 1.0
        if prob[b] < 1.0:
            small[n_small] = b
            n_small += 1
        else:
            large[n_large] = b
            n_large += 1
    for q in range(n_large):  # rounding leftovers keep their own slot
        prob[large[q]] = 1.0
    for q in range(n_small):
        prob[small[q]] = 1.0
    return n


@jit(inline="always")
def _slot(u, n, prob):
    """Slot ``j`` of an ``n``-slot alias table that uniform ``u`` selects, and whether it is kept.

    ``u n`` rounded onto ``n`` falls in the last slot; the fraction decides between the slot's
    own code (``keep``) and its alias.
    """
    x = u * n
    j = min(int(x), n - 1)
    return j, (x - j) < prob[j]


@jit(_nrt=False, forceinline=True)
def _pick(rng, prob, slot_code, alias_code, n):
    """Code of one outcome drawn from an alias table of ``n >= 1`` slots (one uniform).

    The slot's code or its alias is selected without a branch (the choice is a coin flip
    that a branch predictor cannot learn); the result is the same.
    """
    if n == 1:
        return slot_code[0]  # one possible outcome: no draw needed
    j, keep = _slot(rng.random(), n, prob)
    return alias_code[j] + keep * (slot_code[j] - alias_code[j])


@jit(_nrt=False, forceinline=True)
def _pick_failure(rng, prob, slot_code, alias_code, n):
    """Draw a category with probability proportional to its rate (maintenance rejected)."""
    while True:
        c = _pick(rng, prob, slot_code, alias_code, n)
        if c >= 0:
            return c


@jit(_nrt=False, forceinline=False)  # indexes arrays only: no reference counting
def _alias_codes(rng, prob, slot_code, alias_code, n, m, ubuf, cbuf):
    """Draw ``m`` outcomes of an ``n``-slot alias table into ``cbuf[:m]`` (``ubuf``: scratch).

    The same uniforms in the same order as ``m`` calls of :func:`_pick`, so the same codes,
    but drawn in a loop of their own and stored, then looked up in a second loop: a float
    kept across the draw's call is spilled to memory and put on the draw's chain (measured:
    5.8 against 10.4 ns a pick, 57 picks from the 18 Llama 3 categories).
    """
    _uniforms(rng, ubuf, m)
    for q in range(m):
        j, keep = _slot(ubuf[q], n, prob)
        cbuf[q] = alias_code[j] + keep * (slot_code[j] - alias_code[j])


@jit(_nrt=False)  # indexes arrays only: no reference counting
def _alias_counts(rng, prob, slot_code, alias_code, n, m, ubuf, hist, i, counts):
    """Add the codes of ``m`` alias draws (``n`` slots) to ``counts[i]``, not their order.

    The uniforms of :func:`_alias_codes` (``ubuf``: scratch), each counted in a bin of its
    slot and of "kept or aliased" (``hist``: ``2 n`` zeros, left zeroed): the same counts as
    ``m`` calls of :func:`_pick`, without the table's codes looked up per draw, and with the
    bins' counts chained far less often than a category's (a slot holds ``1 / n`` of the
    draws; the commonest Llama 3 category a third): 275 against 410 ns for 57 draws.
    """
    chunk = ubuf.shape[0]
    for q0 in range(0, m, chunk):
        mm = min(chunk, m - q0)
        _uniforms(rng, ubuf, mm)
        for q in range(mm):
            j, keep = _slot(ubuf[q], n, prob)
            hist[2 * j + keep] += 1
    for j in range(n):
        counts[i, alias_code[j]] += hist[2 * j]
        counts[i, slot_code[j]] += hist[2 * j + 1]
        hist[2 * j] = 0
        hist[2 * j + 1] = 0


@jit
def _settle_scratch(n_cat):
    """Scratch of :func:`_settle_categories` for up to ``n_cat + 1`` slots (hist zeroed)."""
    return np.empty(CBUF), np.empty(CBUF, dtype=np.int64), np.zeros(2 * n_cat + 2, np.int64)


@jit(_nrt=False, forceinline=True)
def _jitter(rng, j):
    """Per-event multiplier of an overhead: ``exp(j Z)``, ``Z`` standard normal.

    With ``j = 0`` (off) it is 1 and nothing is drawn (see "Uncertain overheads" in
    :mod:`relmc.sim`); ``x * 1.0`` is ``x`` exactly, so off changes no bit.
    """
    return math.exp(j * rng.standard_normal()) if j > 0.0 else 1.0


@jit
def _jitters(overhead_jitter):
    """Return the per-event log-sds (restart, swap, detection, maintenance); zeros if none."""
    if overhead_jitter.shape[0] < 4:
        return 0.0, 0.0, 0.0, 0.0
    return overhead_jitter[0], overhead_jitter[1], overhead_jitter[2], overhead_jitter[3]


@jit
def overheads_on(overhead_factor, overhead_jitter):
    """Whether any overhead is uncertain: a per-draw factor table or a per-event jitter."""
    if overhead_factor.shape[0] > 0:
        return True
    for x in range(overhead_jitter.shape[0]):
        if overhead_jitter[x] > 0.0:
            return True
    return False


@jit(_nrt=False)
def _trial_scaled(overhead_factor, d, col, values, out):
    """Fill ``out`` with ``values`` times the factor ``F[d, col]`` of a trial of rate draw ``d``.

    One factor for every entry (every category). When the table has no rows (off) ``values``
    is copied as it is: nothing is multiplied, so off changes no bit.
    """
    if overhead_factor.shape[0] == 0:
        for c in range(values.shape[0]):
            out[c] = values[c]
        return
    f = overhead_factor[d, col]
    for c in range(values.shape[0]):
        out[c] = values[c] * f


@jit(_nrt=False)
def _trial_overheads(
    overhead_factor, d, detect_hours, det, tau, delta, persist, restart_hours,
    mem_restart_hours, swap_hours, maint_hours,
):  # fmt: skip
    """Return the overheads of a trial of rate draw ``d`` (its row of ``overhead_factor``).

    Fills ``det`` with the detection hours and returns ``(delta, persist, restart_hours,
    mem_restart_hours, swap_hours, maint_hours)``; the given values when the table has no
    rows (off). ``persist`` is capped at ``tau``; a negative ``mem_restart_hours`` (off)
    stays as it is. The node model's and the SDC's overheads: :func:`_trial_node_overheads`,
    :func:`_trial_scaled`.
    """
    _trial_scaled(overhead_factor, d, F_DETECTION, detect_hours, det)
    if overhead_factor.shape[0] == 0:
        return delta, persist, restart_hours, mem_restart_hours, swap_hours, maint_hours
    f_restart = overhead_factor[d, F_RESTART]
    mem = mem_restart_hours * f_restart if mem_restart_hours >= 0.0 else mem_restart_hours
    return (
        delta * overhead_factor[d, F_SNAPSHOT],
        min(persist * overhead_factor[d, F_PERSIST], tau),
        restart_hours * f_restart,
        mem,
        swap_hours * overhead_factor[d, F_SWAP],
        maint_hours * overhead_factor[d, F_MAINTENANCE],
    )


@jit
def _trial_node_overheads(overhead_factor, d, diag_hours, diag, preempt_hours):
    """Return the preemption hours of a trial of rate draw ``d`` and fill ``diag``.

    ``diag`` gets every category's diagnosis hours times ``F[d, diagnosis]`` (one factor for
    all categories); the preemption hours are ``preempt_hours F[d, preemption]``. The given
    values when the table has no rows (off).
    """
    _trial_scaled(overhead_factor, d, F_DIAGNOSIS, diag_hours, diag)
    if overhead_factor.shape[0] == 0:
        return preempt_hours
    return preempt_hours * overhead_factor[d, F_PREEMPTION]


@jit(_nrt=False)
def _reset_trial(i, n_cat, interruptions, maint_events, lost, swings):
    for j in range(N_CAUSES):
        lost[i, j] = 0.0
    for c in range(n_cat):
        interruptions[i, c] = 0
    maint_events[i] = 0
    swings[i] = 0


@jit(_nrt=False)
def _trial_general(
    rng,
    i,
    prob,
    slot_code,
    alias_code,
    n_slots,
    fail_rate,
    rate,
    detect_hours,
    swap,
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
    t,
    p,
    n_seg,
    r,
    events,
    r_eff,
    carry,
    carry_m,
    interruptions,
    maint_events,
    lost,
    swings,
    modulated,
    w,
    pc,
    ps,
    start_hour,
    trend_shape,
    fleet_age_hours,
    maint_rate,
    speed_amp,
    speed_phase,
    shared,
    jr,
    js,
    jd,
    jm,
    prof,
    qmax,
    tab,
    week_hour0,
):
    """Simulate trial ``i`` from a given state to its end: the general path.

    State: wall clock ``t``, durable progress ``p`` with ``n_seg`` segments left (the last of
    compute length ``r``), ``events`` so far, the restart ahead ``r_eff`` (0: none), and
    ``carry``, a gap already drawn for the next event (``NO_GAP``: none), and ``carry_m``
    (modulated only; ``NO_GAP``: none) that of a planned event drawn before it: then
    ``carry`` is the next failure's and the planned event comes first (a failure process
    drawn apart, as when both are drawn here). No node is in
    repair. Returns ``(t, p, done, events)``. When ``modulated``, failures follow the
    time-varying intensities (``w``: the categories' rates at the job's start; ``pc``,
    ``ps``: their diurnal terms, :func:`_diurnal_terms`) and maintenance is drawn apart at
    ``maint_rate``; otherwise ``rate`` is the superposed rate and the alias table picks the
    event. With ``shared`` (every category has the same diurnal shape) the category of a
    failure does not depend on its time and the alias table picks it. With ``speed_amp > 0``
    runs advance at the diurnal speed: ``e``, ``d_run`` are nominal run positions, ``e_w``,
    ``d_w`` their wall hours. The overheads are the trial's (per-draw factors applied by the
    caller); ``jr``, ``js``, ``jd``, ``jm`` are the per-event log-sds of the restart, swap,
    detection and maintenance (:func:`_jitter`; 0: off, no draw). ``prof`` (rows: periodic
    rate profiles, ``qmax`` their maxima, ``tab`` the draw's hourly rates (:func:`_profile_table`;
    no entries: summed per proposal), ``week_hour0`` the hour of the week at 0) times
    the categories' rates by their hourly multipliers (:func:`_next_failure`,
    :func:`_pick_time`); no rows: the draws and arithmetic of the process without them.
    Power swings are added to ``swings[i]``: one at each start of compute, ``2 k`` for the
    snapshots a run completed and one for its stop (see :mod:`relmc.sim`).
    """
    seg = tau + delta
    inv_seg = 1.0 / seg
    last_start = (n_seg - 1) * seg
    tail = r + delta + persist  # the last segment, its snapshot and the final persist
    inv_rate = 1.0 / rate if rate > 0.0 else np.inf
    zr = 0.0
    zi = 0.0
    for c in range(pc.shape[0]):
        zr += pc[c]
        zi += ps[c]
    amp = math.hypot(zr, zi)
    theta = math.atan2(zi, zr)
    g_fail = np.inf  # modulated: gaps to the next failure and the next planned event
    g_maint = np.inf
    tw_a = 0.0  # the trend's window [tw_a, tw_b) (:func:`_fail_gap`): none yet
    tw_b = -1.0
    tw_lo = 0.0
    tw_hi = 0.0
    if carry_m >= 0.0:
        # both carried (modulated, the diurnal path near the cap): the planned event first
        g_fail = carry
        g_maint = carry_m
        carry = carry_m
    speedy = speed_amp > 0.0
    snap_steps = 2 if delta > 0.0 else 0  # power steps per completed snapshot
    sphase = start_hour - speed_phase  # speed s(t) = 1 + b cos(OMEGA (sphase + t))
    n_repair = 0  # nodes in repair (finite pool)
    next_done = NO_REPAIR  # wall time of the next repair completion
    done = False
    while True:
        if carry >= 0.0:
            g = carry
            carry = NO_GAP
        elif modulated:
            g_fail = np.inf
            if fail_rate > 0.0:
                g_fail, tw_a, tw_b, tw_lo, tw_hi = _next_failure(
                    rng, t, fail_rate, amp, theta, w, prof, qmax, tab, week_hour0,
                    trend_shape, fleet_age_hours, cap_hours, tw_a, tw_b, tw_lo, tw_hi,
                )  # fmt: skip
            g_maint = _gap(rng) / maint_rate if maint_rate > 0.0 else np.inf
            g = min(g_fail, g_maint)
        elif rate > 0.0:
            g = _gap(rng) * inv_rate
        else:
            g = np.inf
        e = g - r_eff
        if e < 0.0:
            # ---- an event during the restart
            if t + g > cap_hours:
                lost[i, RESTART] += cap_hours - t
                t = cap_hours
                break
            t += g
            lost[i, RESTART] += g
            events += 1
            if not modulated:
                c = _pick(rng, prob, slot_code, alias_code, n_slots)
            elif g_maint < g_fail:
                c = EV_MAINT
            elif shared:
                c = _pick_failure(rng, prob, slot_code, alias_code, n_slots)
            else:
                c = _pick_time(rng, t, w, pc, ps, fail_rate, zr, zi, prof, tab, week_hour0)
            if c == EV_MAINT:
                maint_events[i] += 1
            else:
                interruptions[i, c] += 1
            if events >= max_events:  # counted, then the trial stops at this event
                break
            if c == EV_MAINT:
                t, capped = _spend(
                    lost, i, MAINTENANCE, t, maint_hours * _jitter(rng, jm), cap_hours
                )
                if capped:
                    break
                r_eff = restart_hours * _jitter(rng, jr)  # off: the restart it was
                continue  # maintenance downtime, then a new restart
        else:
            # ---- the restart (if any) completed; a run from durable progress p
            e_fail = g_fail - r_eff  # modulated: run position of the next failure
            if r_eff > 0.0:
                if t + r_eff > cap_hours:
                    lost[i, RESTART] += cap_hours - t
                    t = cap_hours
                    break
                t += r_eff
                lost[i, RESTART] += r_eff
                r_eff = 0.0
            swings[i] += 1  # compute starts: an up step
            d_run = last_start + tail
            e_w = e  # wall hours into the run of the event; e is its nominal position
            d_w = d_run  # the run's wall length, needed (and solved for) only if it ends
            if speedy:
                e = _nominal(t, t + e_w, speed_amp, sphase) if e_w < np.inf else np.inf
            c = EV_NONE
            if e < d_run:
                if not modulated:
                    c = _pick(rng, prob, slot_code, alias_code, n_slots)
                elif g_maint < g_fail:
                    c = EV_MAINT
                elif shared:
                    c = _pick_failure(rng, prob, slot_code, alias_code, n_slots)
                else:
                    c = _pick_time(
                        rng, t + e_w, w, pc, ps, fail_rate, zr, zi, prof, tab, week_hour0
                    )
                if c == EV_MAINT and e >= last_start + r:
                    # planned event after the last compute: deferred past the end. From here
                    # on only failures are active, so (memoryless) the next event comes at the
                    # failure rate alone, one fresh draw away
                    c = EV_NONE
                    if modulated:
                        # the failure process was drawn apart: its next failure stands
                        e_w = e_fail
                    elif fail_rate > 0.0:
                        e_w += _gap(rng) / fail_rate
                    else:
                        e_w = np.inf
                    e = e_w
                    if speedy and e_w < np.inf:
                        e = _nominal(t, t + e_w, speed_amp, sphase)
                    if e < d_run:
                        if modulated and not shared:
                            c = _pick_time(
                                rng, t + e_w, w, pc, ps, fail_rate, zr, zi, prof, tab,
                                week_hour0,
                            )  # fmt: skip
                        else:
                            c = _pick_failure(rng, prob, slot_code, alias_code, n_slots)
            if c == EV_NONE and speedy:
                d_w = _wall_for(t, d_run, speed_amp, sphase)
            # the run's end or its event (c == EV_NONE exactly when e >= d_run)
            if t + (d_w if c == EV_NONE else e_w) > cap_hours:
                pos = cap_hours - t
                if speedy:
                    pos = _nominal(t, cap_hours, speed_amp, sphase)
                    lost[i, SLOWDOWN] += (cap_hours - t) - pos
                steps, rework, ckpt, durable = _cap_cut(
                    pos, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps
                )
                swings[i] += steps
                lost[i, REWORK] += rework
                lost[i, CHECKPOINT] += ckpt
                p += durable
                t = cap_hours
                break
            if c == EV_NONE:
                swings[i] += snap_steps * (n_seg - 1) + 1  # and the down step at the end
                lost[i, CHECKPOINT] += n_seg * delta + persist
                if speedy:
                    lost[i, SLOWDOWN] += d_w - d_run
                t += d_w
                p = work_hours
                done = True
                break
            events += 1
            t += e_w
            if speedy:
                lost[i, SLOWDOWN] += e_w - e
            k, computed, ckpt, dk = _run_stop(
                e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist
            )
            # the k snapshots done, and the stop (at the event, or at the snapshot under way)
            swings[i] += snap_steps * k + 1
            lost[i, CHECKPOINT] += ckpt
            if c == EV_MAINT:
                maint_events[i] += 1
            else:
                interruptions[i, c] += 1
            if events >= max_events:  # counted, then the trial stops at this event
                lost[i, REWORK] += computed - dk * tau
                p += dk * tau
                break
            if c == EV_MAINT:
                # planned: a fresh checkpoint of the progress reached, then downtime
                dt = delta + persist
                if t + dt > cap_hours:
                    # persists already under way still complete during this checkpoint
                    extra = cap_hours - t  # persists in flight advance at the run's speed
                    if speedy:
                        extra = _nominal(t, cap_hours, speed_amp, sphase)
                    durable = _durable_after(e, extra, tau, delta, persist, n_seg)
                    lost[i, REWORK] += computed - durable
                    lost[i, CHECKPOINT] += cap_hours - t
                    p += durable
                    t = cap_hours
                    break
                lost[i, CHECKPOINT] += dt
                t += dt
                p += computed
                t, capped = _spend(
                    lost, i, MAINTENANCE, t, maint_hours * _jitter(rng, jm), cap_hours
                )
                if capped:
                    break
                n_seg, r = _segments(work_hours - p, tau)  # re-laid from the new progress
                last_start = (n_seg - 1) * seg
                tail = r + delta + persist
                r_eff = restart_hours * _jitter(rng, jr)
                continue
            lost[i, REWORK] += computed - dk * tau
            p += dk * tau
            n_seg -= dk
            last_start = (n_seg - 1) * seg
        # ---- recovery of category c, then a restart
        t, capped = _spend(lost, i, DETECTION, t, detect_hours[c] * _jitter(rng, jd), cap_hours)
        if capped:
            break
        if swap[c]:
            if n_spares >= 0:
                wait, ready, n_repair, next_done = _pool_swap(
                    rng, t, n_repair, next_done, n_spares, repair_hours
                )
                if wait:
                    t, capped = _spend(lost, i, SPARE_WAIT, t, ready - t, cap_hours)
                    if capped:
                        break
            t, capped = _spend(lost, i, NODE_SWAP, t, swap_hours * _jitter(rng, js), cap_hours)
            if capped:
                break
        r_eff = restart_hours * _jitter(rng, jr)
    return t, p, done, events


@jit
def _block_general(
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
    cat_amp,
    cat_phase,
    start_hour,
    trend_shape,
    fleet_age_hours,
    speed_amp,
    speed_phase,
    overhead_factor,
    overhead_jitter,
    draw_amp,
    draw_phase,
    draw_trend,
    cat_profile,
    week_hour0,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
):
    """Run the general path over a block of trials (see the module docstring).

    Uncertain overheads: each trial takes its draw's row of ``overhead_factor`` (no rows:
    the given overheads) and the per-event jitters of ``overhead_jitter``. Physics per draw:
    each trial takes its draw's rows of ``draw_amp``, ``draw_phase``, ``draw_trend`` (no
    rows: the single values); failure rates are time-varying for the whole block if any draw
    or the single values make them so, or ``cat_profile`` has rows (periodic profiles).
    """
    n_cat = cat_rate.shape[1]
    weights = np.empty(n_cat + 1)
    prob = np.empty(n_cat + 1)
    slot_code = np.empty(n_cat + 1, dtype=np.int64)
    alias_code = np.empty(n_cat + 1, dtype=np.int64)
    small = np.empty(n_cat + 1, dtype=np.int64)
    large = np.empty(n_cat + 1, dtype=np.int64)
    n_seg0, r0 = _segments(work_hours, tau)
    modulated = time_varying(cat_amp, trend_shape) or _draws_vary(draw_amp, draw_trend)
    modulated = modulated or cat_profile.shape[0] > 0
    qmax = np.ones(cat_profile.shape[0])  # each profile's maximum
    same_profile = _profile_max(cat_profile, qmax)  # (no rows: True)
    # the draw's hourly rates and their bound (:func:`_profile_table`), with profiles
    tab = np.empty(table_size(n_cat) if cat_profile.shape[0] > 0 else 0)
    per_shape = draw_amp.shape[0] > 0 or draw_phase.shape[0] > 0  # shapes per draw
    amp_i = np.empty(n_cat)  # the trial's diurnal amplitudes and peaks
    phase_i = np.empty(n_cat)
    trend_i = _trial_shape(
        draw_amp, draw_phase, draw_trend, 0, cat_amp, cat_phase, trend_shape, amp_i, phase_i
    )
    shared = _same_shape(amp_i, phase_i) and same_profile
    pc = np.zeros(n_cat)  # the categories' diurnal terms (zero unless modulated)
    ps = np.zeros(n_cat)
    det = np.empty(n_cat)  # the trial's detection hours
    jr, js, jd, jm = _jitters(overhead_jitter)
    _general_trials(
        rng, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours,
        tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours,
        max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp,
        speed_phase, overhead_factor, draw_amp, draw_phase, draw_trend, cat_profile,
        week_hour0, wall, finished, progress, interruptions, maint_events, n_events, lost,
        swings, weights, prob, slot_code, alias_code, small, large, n_seg0, r0, modulated,
        qmax, tab, same_profile, per_shape, amp_i, phase_i, trend_i, shared, pc, ps, det, jr,
        js, jd, jm,
    )  # fmt: skip


@jit(_nrt=False)  # indexes arrays only: no reference counting
def _general_trials(
    rng, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours,
    tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours,
    max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp,
    speed_phase, overhead_factor, draw_amp, draw_phase, draw_trend, cat_profile,
    week_hour0, wall, finished, progress, interruptions, maint_events, n_events, lost,
    swings, weights, prob, slot_code, alias_code, small, large, n_seg0, r0, modulated,
    qmax, tab, same_profile, per_shape, amp_i, phase_i, trend_i, shared, pc, ps, det, jr,
    js, jd, jm,
):  # fmt: skip
    """Run the trial loop of :func:`_block_general`, given its work arrays.

    Apart because it only indexes arrays: compiled without reference counting, so that the
    arrays passed to the per-trial calls (:func:`_trial_general` takes fourteen) are not
    referenced and released around each call, about sixty atomic operations a trial.
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    d_prev = -1  # the draw whose table and diurnal terms are held (kept while it stays)
    d_tab = -1  # the draw whose hourly rates ``tab`` holds
    fail_rate = rate = 0.0
    n_slots = 0
    for i in range(n_trials):
        d = draw_of_trial[i]
        delta_i, persist_i, restart_i, _, swap_i, maint_i = _trial_overheads(
            overhead_factor, d, detect_hours, det, tau, delta, persist, restart_hours, -1.0,
            swap_hours, maint_hours,
        )  # fmt: skip
        if per_shape or draw_trend.shape[0] > 0:
            trend_i = _trial_shape(
                draw_amp, draw_phase, draw_trend, d, cat_amp, cat_phase, trend_shape, amp_i,
                phase_i,
            )  # fmt: skip
            if per_shape:
                shared = _same_shape(amp_i, phase_i) and same_profile
        if d != d_prev or per_shape:
            # the draw's alias table and diurnal terms (a cosine and a sine per category);
            # with shapes per draw, the trial's
            d_prev = d
            fail_rate, rate, n_slots = _trial_table(
                cat_rate, d, maint_rate, weights, prob, slot_code, alias_code, small, large
            )
            if modulated:
                _diurnal_terms(weights, amp_i, phase_i, start_hour, pc, ps)
            if tab.shape[0] > 0 and d != d_tab:  # (the rates are the draw's, not the shape's)
                d_tab = d
                _profile_table(weights, cat_profile, qmax, tab)
            if tab.shape[0] > 0:  # (the shapes may be the trial's)
                tab[T_COSINE] = 1.0 if _any_cosine(pc, ps) else 0.0
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        t, p, done, events = _trial_general(
            rng, i, prob, slot_code, alias_code, n_slots, fail_rate, rate,
            det, swap, maint_i, work_hours, tau, delta_i, persist_i, restart_i,
            swap_i, n_spares, repair_hours, cap_hours, max_events,
            0.0, 0.0, n_seg0, r0, 0, 0.0, NO_GAP, NO_GAP, interruptions, maint_events, lost,
            swings, modulated, weights, pc, ps, start_hour, trend_i,
            fleet_age_hours, maint_rate, speed_amp, speed_phase, shared, jr, js, jd, jm,
            cat_profile, qmax, tab, week_hour0,
        )  # fmt: skip
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events


# ---------------------------------------------------------------------------------------------
# The pool path: the general path's process and random stream for constant rates and certain
# overheads, with the per-event state in scalars.


@jit
def pool_applies(varying, uncertain):
    """Whether the pool path applies: constant rates and certain overheads.

    ``simulate_block`` sends it what the renewal path cannot take (a finite spare pool with
    swap categories) when no rate or speed varies in time (``varying``) and no overhead is
    uncertain (``uncertain``, :func:`overheads_on`); with the node model or straggler/SDC
    categories on, their own paths run first.
    """
    return not varying and not uncertain


@jit
def _trial_pool(
    rng,
    i,
    prob,
    slot_code,
    alias_code,
    n_slots,
    fail_rate,
    rate,
    detect_hours,
    swap,
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
    t,
    p,
    n_seg,
    r,
    events,
    r_eff,
    carry,
    n_repair,
    next_done,
    interruptions,
    maint_events,
    lost,
    swings,
):
    """Simulate trial ``i`` from a given state: :func:`_trial_general` without its options.

    The same process, the same draws in the same order and the same arithmetic in the same
    order as :func:`_trial_general` called by :func:`_block_general` with rates constant
    (``modulated`` false, no throughput cycle, no profiles) and no per-event jitter, so the
    outputs are bit for bit its outputs: every branch below is one of its branches with those
    options off (``x * 1.0`` is ``x``, so the jitter factors are left out). What differs is
    where the state lives: the lost hours by cause, the power steps and the planned events are
    summed in scalars and added to ``lost[i]``, ``swings[i]``, ``maint_events[i]`` at the end
    (each sum starts at the 0 the caller reset, so it is the same float sum), and the options'
    branches are gone. State as :func:`_trial_general`'s (``t``, ``p``, ``n_seg``, ``r``,
    ``events``, ``r_eff``, ``carry``), and the pool's: ``n_repair`` nodes in repair, the next
    completion at ``next_done`` (:func:`_pool_swap`); from the job's start ``0.0, 0.0,
    n_seg0, r0, 0, 0.0, NO_GAP, 0, NO_REPAIR`` (:func:`_segments`). Returns ``(t, p, done,
    events)``.
    """
    seg = tau + delta
    inv_seg = 1.0 / seg
    last_start = (n_seg - 1) * seg
    tail = r + delta + persist  # the last segment, its snapshot and the final persist
    inv_rate = 1.0 / rate if rate > 0.0 else np.inf
    snap_steps = 2 if delta > 0.0 else 0
    done = False
    # lost hours by cause, power steps and planned events of this trial
    l_rework = 0.0
    l_ckpt = 0.0
    l_detect = 0.0
    l_swap = 0.0
    l_wait = 0.0
    l_restart = 0.0
    l_maint = 0.0
    n_steps = 0
    n_maint = 0
    while True:
        if carry >= 0.0:
            g = carry
            carry = NO_GAP
        else:
            g = _gap(rng) * inv_rate if rate > 0.0 else np.inf
        e = g - r_eff
        if e < 0.0:
            # ---- an event during the restart
            if t + g > cap_hours:
                l_restart += cap_hours - t
                t = cap_hours
                break
            t += g
            l_restart += g
            events += 1
            c = _pick(rng, prob, slot_code, alias_code, n_slots)
            if c == EV_MAINT:
                n_maint += 1
            else:
                interruptions[i, c] += 1
            if events >= max_events:  # counted, then the trial stops at this event
                break
            if c == EV_MAINT:
                l_maint, t, capped = _spend_to(l_maint, t, maint_hours, cap_hours)
                if capped:
                    break
                r_eff = restart_hours
                continue  # maintenance downtime, then a new restart
        else:
            # ---- the restart (if any) completed; a run from durable progress p
            if r_eff > 0.0:
                if t + r_eff > cap_hours:
                    l_restart += cap_hours - t
                    t = cap_hours
                    break
                t += r_eff
                l_restart += r_eff
                r_eff = 0.0
            n_steps += 1  # compute starts: an up step
            d_run = last_start + tail
            c = EV_NONE
            if e < d_run:
                c = _pick(rng, prob, slot_code, alias_code, n_slots)
                if c == EV_MAINT and e >= last_start + r:
                    # planned event after the last compute: deferred past the end; the next
                    # event comes at the failure rate alone, one fresh draw away
                    c = EV_NONE
                    if fail_rate > 0.0:
                        e += _gap(rng) / fail_rate
                    else:
                        e = np.inf
                    if e < d_run:
                        c = _pick_failure(rng, prob, slot_code, alias_code, n_slots)
            # the run's end or its event (c == EV_NONE exactly when e >= d_run)
            if t + (d_run if c == EV_NONE else e) > cap_hours:
                pos = cap_hours - t
                steps, rework, ckpt, durable = _cap_cut(
                    pos, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps
                )
                n_steps += steps
                l_rework += rework
                l_ckpt += ckpt
                p += durable
                t = cap_hours
                break
            if c == EV_NONE:
                n_steps += snap_steps * (n_seg - 1) + 1  # and the down step at the end
                l_ckpt += n_seg * delta + persist
                t += d_run
                p = work_hours
                done = True
                break
            events += 1
            t += e
            k, computed, ckpt, dk = _run_stop(
                e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist
            )
            # the k snapshots done, and the stop (at the event, or at the snapshot under way)
            n_steps += snap_steps * k + 1
            l_ckpt += ckpt
            if c == EV_MAINT:
                n_maint += 1
            else:
                interruptions[i, c] += 1
            if events >= max_events:  # counted, then the trial stops at this event
                l_rework += computed - dk * tau
                p += dk * tau
                break
            if c == EV_MAINT:
                # planned: a fresh checkpoint of the progress reached, then downtime
                dt = delta + persist
                if t + dt > cap_hours:
                    # persists already under way still complete during this checkpoint
                    extra = cap_hours - t
                    durable = _durable_after(e, extra, tau, delta, persist, n_seg)
                    l_rework += computed - durable
                    l_ckpt += cap_hours - t
                    p += durable
                    t = cap_hours
                    break
                l_ckpt += dt
                t += dt
                p += computed
                l_maint, t, capped = _spend_to(l_maint, t, maint_hours, cap_hours)
                if capped:
                    break
                n_seg, r = _segments(work_hours - p, tau)  # re-laid from the new progress
                last_start = (n_seg - 1) * seg
                tail = r + delta + persist
                r_eff = restart_hours
                continue
            l_rework += computed - dk * tau
            p += dk * tau
            n_seg -= dk
            last_start = (n_seg - 1) * seg
        # ---- recovery of category c, then a restart
        l_detect, t, capped = _spend_to(l_detect, t, detect_hours[c], cap_hours)
        if capped:
            break
        if swap[c]:
            if n_spares >= 0:
                wait, ready, n_repair, next_done = _pool_swap(
                    rng, t, n_repair, next_done, n_spares, repair_hours
                )
                if wait:
                    l_wait, t, capped = _spend_to(l_wait, t, ready - t, cap_hours)
                    if capped:
                        break
            l_swap, t, capped = _spend_to(l_swap, t, swap_hours, cap_hours)
            if capped:
                break
        r_eff = restart_hours
    lost[i, REWORK] += l_rework
    lost[i, CHECKPOINT] += l_ckpt
    lost[i, DETECTION] += l_detect
    lost[i, NODE_SWAP] += l_swap
    lost[i, SPARE_WAIT] += l_wait
    lost[i, RESTART] += l_restart
    lost[i, MAINTENANCE] += l_maint
    swings[i] += n_steps
    maint_events[i] += n_maint
    return t, p, done, events


@jit
def _block_pool(
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
    swings,
):
    """Run the pool path over a block (:func:`pool_applies`): :func:`_block_general`'s outputs.

    Every event one by one: :func:`_block_pool_reduced` with ``use_blocks`` false, the same
    per-trial set-up as :func:`_block_general` with no overhead rows, no jitter and no time
    variation, then :func:`_trial_pool` from the job's start: bit for bit the general path's
    outputs on the same Generator.
    """
    _block_pool_reduced(
        rng, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours,
        tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours,
        max_events, wall, finished, progress, interruptions, maint_events, n_events, lost,
        swings, False, np.zeros(2, dtype=np.int64),
    )  # fmt: skip


@jit
def pool_reduced_applies(maint_rate, n_spares):
    """Whether the pool path reduces buffers of failures at once (:func:`_block_pool_reduced`).

    Where the pool path applies (:func:`pool_applies`) with no planned maintenance and a
    finite pool; otherwise the pool path takes every event one by one (:func:`_block_pool`).
    """
    return maint_rate == 0.0 and n_spares >= 0


@jit
def _block_pool_reduced(
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
    swings,
    use_blocks,
    stats,
):
    """Run the pool path over a block, a buffer of failures at a time (no planned maintenance).

    The process of :func:`_block_pool` (a finite spare pool with exponential repairs, no
    planned maintenance), with the renewal path's split of the work: a failure's run (restart,
    rework, snapshots, the segments made durable) depends on its gap alone, and the pool on
    the wall clock and the categories alone. Per buffer of ``BUF`` gaps (the trial's first
    failure alone, its run has no restart before it), one serial pass takes each failure's
    category (alias draws made ahead, ``CBUF`` at a time, per trial), the wall clock and the
    recovery: detection, and for a swap category the pool (:func:`_pool_swap_buf`: the pool
    path's arithmetic, its exponentials read from a buffer of their own, which saved 8-9 ns
    of 45 per failure against drawing them one by one), the wait for a repaired node and the
    swap, each stopped by the wall cap as :func:`_trial_pool` stops it; then
    :func:`_block_map` adds the runs of the failures taken, at their buffer positions
    (summed per trial in a fixed order). The pass stops before a failure whose time ``t + g``
    could reach the cap (``cap_hours (1 - _BOUND_RTOL)``) or that the event budget's last
    event would be, and a pass stops short of the first failure whose run could reach the
    job's last segment (:func:`_prefix_fit`'s bound, as the renewal path's; the next pass
    bounds from the progress reached); when not even the next failure is sure to stop short
    of it, or at the cap or budget, from that failure on, its gap carried, the trial
    continues in :func:`_trial_pool` with the clock,
    progress and pool state reached (the same process: each stop is decided by the gaps
    taken and the one carried). A trial whose cap falls in a recovery ends there.
    ``use_blocks=False`` runs every trial in :func:`_trial_pool` from the start: the pool
    path's outputs bit for bit. ``stats[0]`` counts the failures taken here, ``stats[1]``
    the trials handed over.
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    weights = np.empty(n_cat + 1)
    prob = np.empty(n_cat + 1)
    slot_code = np.empty(n_cat + 1, dtype=np.int64)
    alias_code = np.empty(n_cat + 1, dtype=np.int64)
    small = np.empty(n_cat + 1, dtype=np.int64)
    large = np.empty(n_cat + 1, dtype=np.int64)
    buf = np.empty(BUF)
    j = BUF  # next unread entry of buf
    acc = np.zeros((N_ACC, BUF))
    cbuf = np.empty(CBUF, dtype=np.int64)  # the trial's categories, drawn ahead
    ubuf = np.empty(CBUF)  # scratch of _alias_codes
    pbuf = np.empty(BUF)  # the pool's exponentials, drawn ahead
    jp = BUF
    seg = tau + delta
    inv_seg = 1.0 / seg
    seg_up = inv_seg * (1.0 + _BOUND_RTOL)  # segments per hour of a gap bound, rounded up
    n_seg0, r0 = _segments(work_hours, tau)
    cap_safe = cap_hours * (1.0 - _BOUND_RTOL)
    snap_steps = 2 if delta > 0.0 else 0
    d_prev = -1  # the draw whose alias table is held (kept while it stays)
    fail_rate = rate = 0.0
    n_slots = 0
    for i in range(n_trials):
        d = draw_of_trial[i]
        if d != d_prev:
            d_prev = d
            fail_rate, rate, n_slots = _trial_table(
                cat_rate, d, maint_rate, weights, prob, slot_code, alias_code, small, large
            )
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        if not use_blocks or fail_rate == 0.0 or maint_rate > 0.0:
            t, p, done, events = _trial_pool(
                rng, i, prob, slot_code, alias_code, n_slots, fail_rate, rate, detect_hours,
                swap, maint_hours, work_hours, tau, delta, persist, restart_hours, swap_hours,
                n_spares, repair_hours, cap_hours, max_events, 0.0, 0.0, n_seg0, r0, 0, 0.0,
                NO_GAP, 0, NO_REPAIR, interruptions, maint_events, lost, swings,
            )  # fmt: skip
            wall[i] = t
            finished[i] = done
            progress[i] = p
            n_events[i] = events
            continue
        mean_gap = 1.0 / fail_rate
        t = 0.0
        n_seg = n_seg0
        r = r0
        n_repair = 0  # nodes in repair and the next completion (_pool_swap)
        next_done = NO_REPAIR
        l_detect = 0.0
        l_swap = 0.0
        l_wait = 0.0
        n_snap = 0  # power swings: snapshots completed before failures after a restart,
        n_run = 0  # and those failures (each one stop and one start of compute)
        n_fail = 0
        jc = CBUF  # no category drawn ahead yet (what a trial leaves is not used)
        budget = max_events - 1  # the last event the budget allows goes to _trial_pool
        carry = NO_GAP
        ended = False  # the cap fell in a recovery
        while True:
            if j == BUF:
                _fill(rng, buf)
                j = 0
            first = n_fail == 0
            stop = j + 1 if first else BUF
            g_up = _gap_bound(buf, j, stop, mean_gap)
            if g_up * seg_up + 3.0 > n_seg - 1:
                # the job's end may fall in this stretch: the failures whose gaps surely end
                # two segments short of the last go first (as the renewal path's bound), then
                # the next pass bounds the rest from the progress reached
                stop = j + _prefix_fit(buf, j, stop, mean_gap, (n_seg - 4.0) / seg_up)
            q_end = stop
            handed = stop == j  # the next failure's run could reach the last segment
            for q in range(j, stop):
                g = buf[q] * mean_gap
                if n_fail >= budget or t + g > cap_safe:
                    handed = True
                    q_end = q
                    break
                t += g
                n_fail += 1
                if jc == CBUF:
                    _alias_codes(rng, prob, slot_code, alias_code, n_slots, CBUF, ubuf, cbuf)
                    jc = 0
                c = cbuf[jc]
                jc += 1
                interruptions[i, c] += 1
                l_detect, t, ended = _spend_to(l_detect, t, detect_hours[c], cap_hours)
                if not ended and swap[c]:
                    wait, ready, n_repair, next_done, jp = _pool_swap_buf(
                        rng, pbuf, jp, t, n_repair, next_done, n_spares, repair_hours
                    )
                    if wait:
                        l_wait, t, ended = _spend_to(l_wait, t, ready - t, cap_hours)
                    if not ended:
                        l_swap, t, ended = _spend_to(l_swap, t, swap_hours, cap_hours)
                if ended:
                    q_end = q + 1
                    break
            if q_end > j:
                r_before = 0.0 if first else restart_hours  # no restart before the first
                dk_sum, sk, nr = _block_map(
                    buf, j, q_end, mean_gap, r_before, tau, delta, persist, seg, inv_seg, acc
                )
                n_snap += sk
                n_run += nr
                n_seg -= dk_sum
                stats[0] += q_end - j
            if ended:
                j = q_end
                break
            if handed:
                carry = buf[q_end] * mean_gap
                j = q_end + 1
                break
            j = stop
        _acc_total(acc, EXPOSED)  # zeroed (the wall clock is summed above)
        lost[i, REWORK] = _acc_total(acc, A_REWORK)
        lost[i, CHECKPOINT] = _acc_total(acc, A_CKPT)
        lost[i, RESTART] = _acc_total(acc, A_RESTART)
        lost[i, DETECTION] = l_detect
        lost[i, NODE_SWAP] = l_swap
        lost[i, SPARE_WAIT] = l_wait
        swings[i] = snap_steps * n_snap + 2 * n_run
        p = work_hours - ((n_seg - 1) * tau + r)
        done = False
        events = n_fail
        if not ended:
            stats[1] += 1
            r_eff = 0.0 if n_fail == 0 else restart_hours
            t, p, done, events = _trial_pool(
                rng, i, prob, slot_code, alias_code, n_slots, fail_rate, rate, detect_hours,
                swap, maint_hours, work_hours, tau, delta, persist, restart_hours, swap_hours,
                n_spares, repair_hours, cap_hours, max_events, t, p, n_seg, r, n_fail, r_eff,
                carry, n_repair, next_done, interruptions, maint_events, lost, swings,
            )  # fmt: skip
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events


@jit(inline="always")
def _draw_rates(cat_rate, d, w, suffix):
    """Copy draw ``d``'s category rates into ``w``; return their total.

    ``suffix[c]`` gets the rate of categories ``c`` and after (the conditional binomials of
    :func:`_settle_categories`).
    """
    total = 0.0
    for c in range(w.shape[0]):
        w[c] = cat_rate[d, c]
        total += w[c]
    s = 0.0
    for c in range(w.shape[0] - 1, -1, -1):
        s += w[c]
        suffix[c] = s
    return total


@jit(_nrt=False)  # indexes arrays only: no reference counting
def _settle_categories(
    rng, i, n, w, suffix, prob, slot_code, alias_code, n_slots, cost, interruptions, scratch,
    with_total,
):  # fmt: skip
    """Draw the categories of ``n`` failures and add them to ``interruptions[i]``.

    Categories are independent of the timeline with probabilities ``w[c] / sum(w)``, so the
    counts are one multinomial draw: sequential binomials, or ``n`` alias draws when ``n`` is
    small (the draws of ``n`` calls of :func:`_pick`; ``scratch`` is a
    :func:`_settle_scratch`). Returns the summed recovery cost of the ``n`` failures, summed
    in the order drawn; with ``with_total`` false, 0 where the alias draws give the counts
    (:func:`_alias_counts`: the same counts, not the order).
    """
    n_cat = w.shape[0]
    total = 0.0
    if n_slots == 1:
        c = slot_code[0]
        interruptions[i, c] += n
        return n * cost[c]
    if n < _FEW_PER_CATEGORY * n_slots:
        ubuf, cbuf, hist = scratch
        if not with_total:
            _alias_counts(
                rng, prob, slot_code, alias_code, n_slots, n, ubuf, hist, i, interruptions
            )
            return 0.0
        chunk = cbuf.shape[0]
        for q0 in range(0, n, chunk):
            m = min(chunk, n - q0)
            _alias_codes(rng, prob, slot_code, alias_code, n_slots, m, ubuf, cbuf)
            for q in range(m):
                total += cost[cbuf[q]]
            for q in range(m):
                interruptions[i, cbuf[q]] += 1
        return total
    left = n
    for c in range(n_cat):
        if left == 0:
            break
        if w[c] <= 0.0:
            continue
        q = w[c] / suffix[c]
        k = left if q >= 1.0 else rng.binomial(left, q)
        interruptions[i, c] += k
        total += k * cost[c]
        left -= k
    return total


@jit
def _fill(rng, buf):
    """Refill the draw buffer with standard exponentials.

    Stored only: a float kept across the draw's call would be spilled to memory and lengthen
    every draw (a summed draw measures ~20 % slower than a stored one). PCG64's step inlined
    where :func:`_pcg_address` gives its words (the same draws; see there).
    """
    _fill_from(rng, buf, 0)


@jit(_nrt=False)
def _fill_from(rng, buf, j0):
    """Refill ``buf[j0:]`` with standard exponentials (:func:`_fill` from position ``j0``)."""
    a = _pcg_address(rng)
    if a != 0:
        lo, hi, ilo, ihi = _pcg_load(a)
        for q in range(j0, buf.shape[0]):
            lo, hi, buf[q] = _pcg_exponential(lo, hi, ilo, ihi)
        _pcg_store(a, lo, hi)
        return
    for q in range(j0, buf.shape[0]):
        buf[q] = _gap(rng)


@jit(_nrt=False, forceinline=True)
def _uniforms(rng, ubuf, m):
    """Fill ``ubuf[:m]`` with ``rng.random()``'s uniforms on [0, 1).

    PCG64 stepped inline where :func:`_pcg_address` gives its words: NumPy's ``next_double``,
    a step's top 53 bits times 2^-53.
    """
    a = _pcg_address(rng)
    if a != 0:
        lo, hi, ilo, ihi = _pcg_load(a)
        for q in range(m):
            lo, hi, u = _pcg_step(lo, hi, ilo, ihi)
            ubuf[q] = np.int64(u >> np.uint64(11)) * _TO_DOUBLE
        _pcg_store(a, lo, hi)
        return
    for q in range(m):
        ubuf[q] = rng.random()


@jit(_nrt=False, forceinline=False)
def _gap_bound(buf, j0, stop, mean_gap):
    """Return an upper bound on the sum of the gaps ``buf[j0:stop] * mean_gap``.

    ``int(b * UP_SCALE)`` is ``floor(b * UP_SCALE)`` exactly (``b >= 0``, ``UP_SCALE`` a power
    of two), so each ``b < (that + 1) / UP_SCALE``. Integer sums vectorise and are exact in any
    order, unlike a float sum.
    """
    s = 0
    for q in range(np.uint64(j0), np.uint64(stop)):
        s += int(np.int32(buf[q] * UP_SCALE))
    return (s + (stop - j0)) * (mean_gap / UP_SCALE)


@jit
def _block_map(buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc):
    """:func:`_block_map_body` of gaps ``buf[j0:stop]``, every one a failure (the renewal path)."""
    if persist == 0.0:
        return _block_map_body(
            buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
            False, True,
        )  # fmt: skip
    return _block_map_body(
        buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
        False, False,
    )  # fmt: skip


@jit(_nrt=False)
def _block_map_marked(ex, j0, stop, restart_hours, tau, delta, persist, seg, inv_seg, acc):
    """:func:`_block_map_body` of exposures ``ex[j0:stop]``, a negative one not a failure.

    The diurnal path's blocks mark so the points within a recovery (:func:`_diurnal_block`).
    """
    if persist == 0.0:
        return _block_map_body(
            ex, j0, stop, 1.0, restart_hours, tau, delta, persist, seg, inv_seg, acc, True, True
        )
    return _block_map_body(
        ex, j0, stop, 1.0, restart_hours, tau, delta, persist, seg, inv_seg, acc, True, False
    )


@jit(inline="always")
def _block_map_body(
    buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc, marked,
    at_once,
):  # fmt: skip
    """Add the failures of ``buf[j0:stop]`` to ``acc`` at their buffer positions, all at once.

    Valid when every failure here follows a restart of ``restart_hours`` and none reaches the
    job's last segment (the caller's bound). Then each failure's contribution depends on its
    gap alone: the state (segments left) enters only through "was the end reached", so the
    loop has no loop-carried dependency but the integer count of durable segments, and
    vectorises without reordering any float sum: position ``q`` of ``acc`` sums, in order, the
    failures drawn at position ``q`` of successive buffers. The formulas are those of the
    one-by-one loop in :func:`_block_renewal`, written branch-free; ``k`` is a float floor with
    two exact corrections (a float-to-int64 conversion does not vectorise here). Returns the
    number of segments made durable, of snapshots completed and of failures after a
    completed restart (for the power swings). With ``marked`` (a constant at each call), a
    negative entry is not a failure and adds nothing, and the exposures are not added to
    ``acc[EXPOSED]`` (the diurnal path, the only caller with marks, sums its clock apart).
    With ``at_once`` (a constant at each call; the callers pass ``persist == 0``) a snapshot
    is durable when written: every segment of a run is durable (``dkf = kf``: ``x >= 0`` is
    never below a persist of 0) and the rework is ``min(x, tau)``, the same floats as the
    general form gives there (``(kf - dkf) tau = 0``), without its test and count (the Daly
    path's block reduction 1.9 -> 1.2 ns a failure, a `/tmp` harness on the Zen 3 host).
    """
    sdk = 0
    sk = 0
    n_run = 0
    big_r = restart_hours
    for q in range(np.uint64(j0), np.uint64(stop)):
        g = buf[q] * mean_gap
        gp = (g if g > 0.0 else 0.0) if marked else g  # marked, g < 0: not a failure
        e = g - big_r
        ep = e if e > 0.0 else 0.0  # e < 0: the restart failed; everything below adds 0
        kf = np.floor(ep * inv_seg)
        kf = kf - 1.0 if kf * seg > ep else kf
        kf = kf + 1.0 if (kf + 1.0) * seg <= ep else kf
        x = ep - kf * seg
        if not marked:
            acc[EXPOSED, q] += gp
        acc[A_RESTART, q] += gp if gp < big_r else big_r
        if at_once:
            acc[A_REWORK, q] += x if x < tau else tau
        else:
            dkf = kf - 1.0 if (x < persist and kf >= 1.0) else kf  # durable segments of the run
            acc[A_REWORK, q] += (kf - dkf) * tau + (x if x < tau else tau)
            sdk += int(np.int32(dkf))
        acc[A_CKPT, q] += kf * delta + (x - tau if x > tau else 0.0)
        sk += int(np.int32(kf))
        n_run += 1 if e >= 0.0 else 0
    return (sk if at_once else sdk), sk, n_run


@jit
def _block_planned(
    rng, buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
    lam_geo, to_maint, n_seg, r, m_cost, maint_hours, c_known, to_end,
):  # fmt: skip
    """:func:`_block_planned_body` (the renewal path's blocks through planned events)."""
    if persist == 0.0:
        return _block_planned_body(
            rng, buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
            lam_geo, to_maint, n_seg, r, m_cost, maint_hours, c_known, to_end, True,
        )  # fmt: skip
    return _block_planned_body(
        rng, buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
        lam_geo, to_maint, n_seg, r, m_cost, maint_hours, c_known, to_end, False,
    )  # fmt: skip


@jit(inline="always")
def _block_planned_body(
    rng, buf, j0, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
    lam_geo, to_maint, n_seg, r, m_cost, maint_hours, c_known, to_end, at_once,
):  # fmt: skip
    """Add the events of ``buf[j0:stop]`` to ``acc``, planned ones among them, in one call.

    The renewal path with planned maintenance: the failures up to the next planned event
    (``to_maint`` events from ``j0``, that one included) through :func:`_block_map_body`, the
    planned event at its position with the one-by-one loop's arithmetic of
    :func:`_block_renewal` (a fresh checkpoint of the progress reached, the segments re-laid
    from there; during the restart, nothing), the next countdown drawn there
    (:func:`_maint_countdown`, the draw the loop makes at that event), and so on to ``stop``:
    the same sums at the same positions and the same draws in the same order as the loop, so
    identical results. Valid under the block reduction's conditions (every event follows a
    restart of ``restart_hours``; none reaches the job's last segment, the cap or the
    budget), the caller's bound on the last segment allowing every event to be a planned
    stop (a stop re-lays the segments from the progress reached, which may leave one
    segment fewer than a failure's count of durable segments would). Without ``to_end``
    (``stop`` short of the buffer's end) the block ends right after the planned event whose
    next one falls beyond ``stop``, where the caller's next pass starts as it would without
    such blocks. Returns ``(q, to_maint, n_seg, r, sk, nr, n_pl, n_mrun, c_known)``: the
    events taken ``j0 .. q - 1``, the countdown, the segments left and the last one's
    compute, the snapshots completed and the runs after a completed restart (power swings),
    the planned events, those of them that stopped a run, and ``c_known`` with their costs
    added in order as the loop adds them (downtime, with the checkpoint where they stopped a
    run; for the cap guard).
    """
    sk = 0
    nr = 0
    n_pl = 0
    n_mrun = 0
    q = j0
    while True:
        s_end = q + (to_maint - 1)  # the failures before the next planned event
        if s_end > stop:
            if not to_end:
                break  # (right after a planned event) the rest left to the next pass
            s_end = stop
        if s_end > q:
            dk, kk, nn = _block_map_body(
                buf, q, s_end, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc,
                False, at_once,
            )  # fmt: skip
            n_seg -= dk
            sk += kk
            nr += nn
            to_maint -= s_end - q
            q = s_end
        if q >= stop:
            break
        # event q is planned (to_maint 1): the loop's arithmetic, then the next countdown
        g = buf[q] * mean_gap
        e = g - restart_hours
        to_maint = _maint_countdown(rng, lam_geo)
        ep = e if e > 0.0 else 0.0  # e < 0: during the restart; all below adds 0
        k, x, _ = _locate(ep, 0, np.inf, 0.0, tau, seg, inv_seg)  # (never the last segment)
        sk += k
        nr += 1 if e >= 0.0 else 0
        acc[EXPOSED, q] += g
        acc[A_RESTART, q] += g if g < restart_hours else restart_hours
        acc[A_CKPT, q] += k * delta + (x - tau if x > tau else 0.0)
        n_pl += 1
        if e >= 0.0:
            c_known += m_cost
            n_mrun += 1
            left = (n_seg - 1) * tau + r - (k * tau + (x if x < tau else tau))
            n_seg, r = _segments(left, tau)
        else:
            c_known += maint_hours
        q += 1
    return q, to_maint, n_seg, r, sk, nr, n_pl, n_mrun, c_known


@jit
def _prefix_fit_planned(buf, j0, stop, mean_gap, seg_up, limit):
    """How many gaps from ``buf[j0]`` on keep ``bound * seg_up + count`` within ``limit``.

    :func:`_prefix_fit` for a block through planned events, whose bound on the job's last
    segment allows a segment more for each event: the bound of the first ``m`` gaps
    (:func:`_gap_bound`) in segments plus ``m`` grows with ``m``, so one pass that stops at
    the first ``m`` over the limit. The caller recomputes the bound of the prefix it takes
    before relying on it.
    """
    scale = mean_gap / UP_SCALE
    s = 0
    for q in range(j0, stop):
        s += int(np.int32(buf[q] * UP_SCALE)) + 1
        if s * scale * seg_up + (q - j0 + 1) > limit:
            return q - j0
    return stop - j0


@jit
def _prefix_fit(buf, j0, stop, mean_gap, limit):
    """How many gaps from ``buf[j0]`` on have a bound (:func:`_gap_bound`) of at most ``limit``.

    The bound of the first ``m`` is ``(s_m + m) * mean_gap / UP_SCALE`` with ``s_m`` the sum of
    their ``floor(b * UP_SCALE)``; it grows with ``m``, so the count is found by one pass
    that stops at the first ``m`` over the limit. The caller recomputes the bound of the
    prefix it takes with :func:`_gap_bound` (the same expression) before relying on it.
    """
    scale = mean_gap / UP_SCALE
    s = 0
    for q in range(j0, stop):
        s += int(np.int32(buf[q] * UP_SCALE)) + 1
        if s * scale > limit:
            return q - j0
    return stop - j0


def _row_sums(width):
    """Return an intrinsic: :func:`_acc_pairwise_loop` of a row of ``width``, in registers.

    ``(acc, row)``: the row's ``width / 8`` vectors of eight loaded at once and zeroed, then
    added in the loop's pairs (position ``q`` with ``q + h``, ``h`` halving from ``width /
    2``): vector ``k`` with vector ``k + n / 2`` while there are ``n > 1`` vectors, then
    within the last one by halves (shuffles). Every pair is the loop's, so the same sum,
    bit for bit (tests/test_diurnal_block.py). The loop's levels each stored their sums and
    the next loaded them, a chain of store, load and add per level: 137 against 42 ns for
    the four rows of a trial (a harness). ``acc`` C-contiguous with exactly ``width``
    columns (:func:`_acc_pairwise` checks: with more, the loop zeroes the whole row).
    """
    lanes = 8
    n_vec = width // lanes
    if not (n_vec >= 1 and n_vec * lanes == width and n_vec & (n_vec - 1) == 0):
        raise ValueError(f"width must be 8 times a power of two; got {width}")

    @intrinsic
    def _acc_row(typingctx, acc, row):
        if not (
            isinstance(acc, types.Array)
            and acc.dtype == types.float64
            and acc.ndim == 2
            and acc.layout == "C"
        ):
            return None

        def codegen(context, builder, signature, args):
            arr = context.make_array(signature.args[0])(context, builder, args[0])
            n_col = builder.extract_value(arr.shape, 1)
            r = context.cast(builder, args[1], signature.args[1], types.int64)
            vec = ir.VectorType(ir.DoubleType(), lanes)
            at = builder.bitcast(builder.gep(arr.data, [builder.mul(r, n_col)]), vec.as_pointer())
            ptrs = [builder.gep(at, [ir.Constant(ir.IntType(64), k)]) for k in range(n_vec)]
            v = [builder.load(ptr, align=8) for ptr in ptrs]
            for ptr in ptrs:
                builder.store(ir.Constant(vec, None), ptr, align=8)
            while len(v) > 1:
                h = len(v) // 2
                v = [builder.fadd(v[k], v[k + h]) for k in range(h)]
            x, w = v[0], lanes
            while w > 1:
                h = w // 2
                idx = ir.VectorType(ir.IntType(32), h)
                lo = builder.shuffle_vector(x, x, ir.Constant(idx, list(range(h))))
                hi = builder.shuffle_vector(x, x, ir.Constant(idx, list(range(h, w))))
                x, w = builder.fadd(lo, hi), h
            return builder.extract_element(x, ir.Constant(ir.IntType(32), 0))

        return types.float64(acc, row), codegen

    return _acc_row


_acc_row_buf = _row_sums(BUF)


@jit(inline="always")
def _acc_pairwise(acc, row, width):
    """Sum of ``acc[row, :width]`` in a fixed pairwise order (then zeroed): machine-independent.

    ``width`` a constant at every call: ``BUF`` or ``_DIURNAL_BUF`` with as many columns,
    in registers (:func:`_row_sums`); else :func:`_acc_pairwise_loop`. The same sum.
    """
    if width == BUF and acc.shape[1] == BUF:
        return _acc_row_buf(acc, row)
    if width == _DIURNAL_BUF and acc.shape[1] == _DIURNAL_BUF:
        return _acc_row_dbuf(acc, row)
    return _acc_pairwise_loop(acc, row, width)


@jit(inline="always")
def _acc_pairwise_loop(acc, row, width):
    """Sum of ``acc[row, :width]`` in a fixed pairwise order (then zeroed): machine-independent.

    :func:`_acc_pairwise`'s order in a loop over memory, level by level.

    ``width`` a power of two, a constant at every call, so the loops' bounds are too (the
    renewal path at 2k GPUs read 0.81-0.98x in four interleaved A/Bs with the row's width
    read at run time instead, 0.98-1.01x in three with the constant).
    """
    half = width // 2
    while half >= 1:
        for q in range(np.uint64(half)):
            acc[row, q] += acc[row, q + np.uint64(half)]
        half //= 2
    total = acc[row, 0]
    acc[row, :] = 0.0
    return total


@jit
def _acc_total(acc, row):
    """:func:`_acc_pairwise` of a row of ``BUF`` positions (the renewal and pool paths)."""
    return _acc_pairwise(acc, row, BUF)


@jit(_nrt=False, forceinline=True)
def _maint_countdown(rng, lam_geo):
    """Events up to and including the next planned one: ``Geometric(p)`` on 1, 2, ...

    ``lam_geo = -log(1 - p)``, ``p`` the chance that an event is planned maintenance (events
    are independently planned with that chance: two superposed Poisson processes). One
    standard exponential by inversion; capped far beyond any event budget.
    """
    n = _gap(rng) / lam_geo
    if n >= 4.0e18:
        return 4_000_000_000_000_000_000
    return int(n) + 1


@jit
def _block_renewal(
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
    cat_amp,
    cat_phase,
    start_hour,
    trend_shape,
    fleet_age_hours,
    speed_amp,
    speed_phase,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
    use_blocks,
    stats,
):
    """Run the renewal path over a block (per-category constant recovery).

    Per event: one gap ``g`` from the start of the restart (or of the job), no category. The
    gaps are drawn ``BUF`` at a time; the failures of the rest of a buffer (up to the next
    planned event) are added at once by :func:`_block_map` when a cheap bound shows that none of
    them can reach the job's last segment, the wall cap or the event budget, else one by one;
    where the bound of the rest of a buffer reaches the last segment, its longest prefix whose
    bound does not (:func:`_prefix_fit`, at least ``_PREFIX_MIN`` failures) goes first, so a
    trial of few failures per buffer takes only its last ones one by one.
    Both add each failure at its buffer position in ``acc`` (summed per trial in a fixed order),
    so they give identical results (``use_blocks=False`` forces the one-by-one loop, for tests;
    ``stats`` counts the events each took, then the deferred planned events). The recovery costs
    are added per trial from the category counts. While the clock could not yet have reached the
    cap even if every recovery so far had cost the most, nothing depends on the categories; past
    that point, or at the last event the budget allows, the trial continues on the general path.
    The time-varying inputs (``cat_amp`` .. ``speed_phase``) are taken in
    :func:`simulate_block`'s order only: this path runs with them off (:func:`renewal_applies`).

    Near the cap (the bound of a buffer would reach it), the categories of the failures so
    far are drawn early, at least ``_SETTLE_MIN`` at once: categories are independent of the
    timeline, so the multinomial drawn in parts is the same draw; their cost then replaces
    their bound (``c_known``, ``n_known``).

    Planned maintenance (``maint_rate > 0``): events come at the superposed rate, each
    independently planned with probability ``p = maint_rate / (fail_rate + maint_rate)``, so
    the number of events up to the next planned one is geometric (:func:`_maint_countdown`,
    one draw per planned event). A buffer that holds no planned event goes through the block
    reduction as before. A planned event's run's compute becomes durable (its checkpoint,
    downtime and the segments re-laid from the new progress, as in :mod:`relmc.sim`). Where
    the rest of a buffer holds a planned event and the block reduction's bounds hold for it
    with a segment more per event (were each a planned stop), it goes through in one pass
    (:func:`_block_planned`: the failures between planned events through the block
    reduction, each planned event with the loop's arithmetic and its next countdown drawn
    there). A pass cut short of the buffer's end (the job's end near) ends right after a
    planned event. So every such pass ends where a pass of the failures before a planned
    event, or of that event alone, would: the checks near the cap see the same stretches
    as without such passes, and the results are the same. Else a planned event is taken
    one by one. With ``use_blocks=False`` the same passes go through the loop one by one
    (with the same cut), so the two give identical results. The Llama 3 default at 2k /
    16k / 100k GPUs ran 1.11x / 1.16x / 1.02x as fast with such passes (benchmarks/README.md).
    One after the job's last compute is deferred, and the next event is
    then a failure, one exponential at the failure rate away. An event near the job's end is
    taken here only if the cap could not be reached even by a failure at the end of the
    final persist; else the trial hands over before the event's kind is looked at, so the
    general path's fresh choice of kind is the same process. ``maint_rate == 0``: no draw
    and no arithmetic beyond those of the path without maintenance.
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    no_profile = np.ones((0, WEEK_HOURS))  # the general path it hands over to: no profiles
    no_max = np.ones(0)
    w = np.empty(n_cat)
    suffix = np.empty(n_cat)
    cost = np.empty(n_cat)
    prob = np.empty(n_cat)
    slot_code = np.empty(n_cat, dtype=np.int64)
    alias_code = np.empty(n_cat, dtype=np.int64)
    small = np.empty(n_cat + 1, dtype=np.int64)
    large = np.empty(n_cat + 1, dtype=np.int64)
    m_on = maint_rate > 0.0
    # with maintenance, the general path it hands over to picks events from the categories
    # and maintenance (w_all, one more slot)
    w_all = np.empty(n_cat + 1)
    prob_all = np.empty(n_cat + 1)
    slot_all = np.empty(n_cat + 1, dtype=np.int64)
    alias_all = np.empty(n_cat + 1, dtype=np.int64)
    buf = np.empty(BUF)
    acc = np.zeros((N_ACC, BUF))
    scratch = _settle_scratch(n_cat)
    j = BUF  # next unread entry of buf
    max_cost = 0.0
    for c in range(n_cat):
        cost[c] = detect_hours[c] + (swap_hours if swap[c] else 0.0)
        max_cost = max(max_cost, cost[c])
    m_cost = delta + persist + maint_hours  # a planned stop: checkpoint and downtime
    if m_on:
        max_cost = max(max_cost, m_cost)
    seg = tau + delta
    inv_seg = 1.0 / seg
    seg_up = inv_seg * (1.0 + _BOUND_RTOL)  # segments per hour of a gap bound, rounded up
    n_seg0, r0 = _segments(work_hours, tau)
    tail0 = r0 + delta + persist
    cap_safe = cap_hours * (1.0 - _BOUND_RTOL)
    d_prev = -1  # the draw whose rates and tables w .. h_rate hold (none yet)
    fail_rate = 0.0
    n_slots = 0
    h_prob, h_slot, h_alias, h_slots, h_rate = prob, slot_code, alias_code, 0, 0.0
    for i in range(n_trials):
        d = draw_of_trial[i]
        if d != d_prev:
            # the draw's rates and alias tables (kept while the next trials use the same
            # draw: with point rates, every trial)
            d_prev = d
            fail_rate = _draw_rates(cat_rate, d, w, suffix)
            n_slots = _build_alias(w, n_cat, prob, slot_code, alias_code, small, large)
            # the general path's table and rate (without maintenance: the failures' own)
            h_prob, h_slot, h_alias = prob, slot_code, alias_code
            h_slots, h_rate = n_slots, fail_rate
            if m_on:
                for c in range(n_cat):
                    w_all[c] = w[c]
                w_all[n_cat] = maint_rate
                h_slots = _build_alias(w_all, n_cat, prob_all, slot_all, alias_all, small, large)
                h_prob, h_slot, h_alias = prob_all, slot_all, alias_all
                h_rate = fail_rate + maint_rate
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        if fail_rate == 0.0:
            t, p, done, events = _trial_general(
                rng, i, h_prob, h_slot, h_alias, h_slots, 0.0, h_rate,
                detect_hours, swap, maint_hours, work_hours, tau, delta, persist, restart_hours,
                swap_hours, n_spares, repair_hours, cap_hours, max_events,
                0.0, 0.0, n_seg0, r0, 0, 0.0, NO_GAP, NO_GAP, interruptions, maint_events, lost,
                swings, False, w, w, w, 0.0, 1.0, 1.0, maint_rate, 0.0, 0.0, False, 0.0, 0.0,
                0.0, 0.0, no_profile, no_max, no_max, 0.0,
            )  # fmt: skip
            wall[i] = t
            finished[i] = done
            progress[i] = p
            n_events[i] = events
            continue
        rate = fail_rate + maint_rate if m_on else fail_rate
        mean_gap = 1.0 / rate
        inv_fail = 1.0 / fail_rate
        lam_geo = 0.0
        to_maint = 0  # events left up to and including the next planned one
        if m_on:
            lam_geo = -math.log1p(-maint_rate / rate)
            to_maint = _maint_countdown(rng, lam_geo)
        t_up = 0.0  # an upper bound on the exposed time, for the cap guard only
        # recovery and planned stops whose cost is known: c_known hours for n_known events
        # (planned ones, and failures whose categories were settled early near the cap); each
        # other event costs at most max_cost
        c_known = 0.0
        n_known = 0
        n_settled = 0
        x_exp = 0.0  # exposed time, checkpoint and restart of the job's end (not in acc)
        x_ckpt = 0.0
        x_restart = 0.0
        n_fail = 0  # events so far (failures and planned ones)
        n_maint = 0  # planned events, and those of them that stopped a run (a checkpoint)
        n_mrun = 0
        n_snap = 0  # power swings: snapshots completed before failures after a restart,
        n_run = 0  # and those failures (each one stop and one start of compute)
        n_seg = n_seg0
        r = r0
        tail = tail0
        last_start = (n_seg - 1) * seg
        r_eff = 0.0  # the job starts computing, with no restart
        budget = max_events - 1  # the last event the budget allows goes to the general path
        done = False
        stop_trial = False
        g = 0.0
        while not stop_trial:
            if j == BUF:
                _fill(rng, buf)
                j = 0
            # the trial's first failure (no restart before it) is taken alone; with planned
            # events, the buffer's rest through them where the bounds allow (else the
            # failures before the next planned event, then that one alone)
            through = False
            if n_fail > 0 and m_on and j + to_maint <= BUF:
                stop = BUF
                g_up = _gap_bound(buf, j, stop, mean_gap)
                if g_up * seg_up + 3.0 + (stop - j) > n_seg - 1:
                    stop = j + _prefix_fit_planned(buf, j, stop, mean_gap, seg_up, n_seg - 4.0)
                    g_up = _gap_bound(buf, j, stop, mean_gap)
                cnt = stop - j
                # the block reduction's bounds, a segment more for each event (were every
                # one a planned stop); not near the cap, so no categories are settled here
                # (nor in the passes the loop one by one would otherwise have made)
                through = (
                    cnt >= to_maint
                    and n_fail + cnt <= budget
                    and t_up + g_up + c_known + (n_fail + cnt - n_known) * max_cost <= cap_safe
                    and g_up * seg_up + 3.0 + cnt <= n_seg - 1
                )
            if through:
                if use_blocks:
                    q_end, to_maint, n_seg, r, sk, nr, n_pl, n_mr, c_known = _block_planned(
                        rng, buf, j, stop, mean_gap, restart_hours, tau, delta, persist, seg,
                        inv_seg, acc, lam_geo, to_maint, n_seg, r, m_cost, maint_hours, c_known,
                        stop == BUF,
                    )  # fmt: skip
                    n_snap += sk
                    n_run += nr
                    last_start = (n_seg - 1) * seg
                    tail = r + delta + persist
                    n_fail += q_end - j
                    n_maint += n_pl
                    n_mrun += n_mr
                    n_known += n_pl
                    stats[0] += q_end - j
                    t_up += g_up if q_end == stop else _gap_bound(buf, j, q_end, mean_gap)
                    j = q_end
                    continue
            elif n_fail == 0:
                stop = j + 1
            elif not m_on:
                stop = BUF
            else:
                stop = min(BUF, j + max(to_maint - 1, 1))
            if not through:
                cnt = stop - j
                g_up = _gap_bound(buf, j, stop, mean_gap)
            if not through and n_fail > 0 and cnt > _PREFIX_MIN and g_up * seg_up + 3.0 > n_seg - 1:
                # the job's end may fall in this stretch: the failures whose gaps surely end
                # short of it still go through the block reduction (a trial of few failures
                # per buffer, a small cluster's, would otherwise take them one by one)
                fit = _prefix_fit(buf, j, stop, mean_gap, (n_seg - 4.0) / seg_up)
                if fit >= _PREFIX_MIN:
                    stop = j + fit
                    cnt = fit
                    g_up = _gap_bound(buf, j, stop, mean_gap)
            n_open = n_fail - n_maint - n_settled  # failures of unknown category
            if (
                n_open >= _SETTLE_MIN
                and t_up + g_up + c_known + (n_fail + cnt - n_known) * max_cost > cap_safe
            ):
                # near the cap: the categories of the failures so far, drawn now (a
                # multinomial of their count, independent of the timeline: the same draw in
                # parts), replace their bound by their cost
                c_known += _settle_categories(
                    rng, i, n_open, w, suffix, prob, slot_code, alias_code, n_slots, cost,
                    interruptions, scratch, True,
                )  # fmt: skip
                n_settled += n_open
                n_known += n_open
            if (
                use_blocks
                and n_fail > 0
                and (not m_on or to_maint > cnt)
                and n_fail + cnt <= budget
                and t_up + g_up + c_known + (n_fail + cnt - n_known) * max_cost <= cap_safe
                and g_up * seg_up + 3.0 <= n_seg - 1
            ):
                # No failure here reaches the end: failure q's run position is below the
                # segments made durable before it plus its own k + 1, at most the gaps
                # summed over seg (+ rounding), which the bound keeps two segments short of
                # the last. Nor the cap or the budget (t_up, n_fail: upper bounds at q). No
                # planned event (to_maint).
                dk_sum, sk, nr = _block_map(
                    buf, j, stop, mean_gap, restart_hours, tau, delta, persist, seg, inv_seg, acc
                )
                n_snap += sk
                n_run += nr
                n_seg -= dk_sum
                last_start = (n_seg - 1) * seg
                n_fail += cnt
                to_maint -= cnt
                stats[0] += cnt
                t_up += g_up
                j = stop
                continue
            # one by one, the same sums at the same positions, up to the end of the job, the
            # cap guard or the budget
            part = 0.0
            x_def = 0.0  # failure gaps drawn after deferred planned events (not in g_up)
            cut = stop  # (a pass through planned events cut short of the buffer's end) where
            # it ends: after the planned event whose next one falls beyond it, as a block
            cut_short = through and stop < BUF
            for q in range(j, stop):
                g = buf[q] * mean_gap
                e = g - r_eff
                planned = False
                if e >= last_start:
                    # rare: the job's last segment, final snapshot and persist
                    if m_on and e < last_start + tail:
                        # decided before the event's kind is looked at: a failure anywhere
                        # up to the end of the final persist stays under the cap
                        reach = t_up + part + r_eff + last_start + tail + c_known
                        reach += (n_fail + 1 - n_known) * max_cost
                        if reach > cap_hours or n_fail >= budget:
                            j = q + 1
                            stop_trial = True
                            break
                        to_maint -= 1
                        if to_maint == 0:
                            to_maint = _maint_countdown(rng, lam_geo)
                            if e < last_start + r:
                                planned = True
                            else:
                                # after the job's last compute: deferred past the end; only
                                # failures remain, the next one Exp(fail_rate) later (if that
                                # is past the end, the job ends below: the check above
                                # covers it)
                                extra = _gap(rng) * inv_fail
                                stats[2] += 1
                                x_def += extra
                                g += extra
                                e = g - r_eff
                    if e >= last_start + tail:
                        j = q + 1
                        stop_trial = True
                        reach = t_up + part + r_eff + last_start + tail + c_known
                        if reach + (n_fail - n_known) * max_cost > cap_hours:
                            break
                        x_exp += r_eff + last_start + tail
                        x_restart += r_eff
                        x_ckpt += n_seg * delta + persist
                        done = True
                        break
                    if not m_on and (
                        t_up + part + g + c_known + (n_fail + 1 - n_known) * max_cost > cap_hours
                        or n_fail >= budget
                    ):
                        j = q + 1
                        stop_trial = True
                        break
                    k = n_seg - 1
                    x = e - last_start
                    s_k = r
                else:
                    if (
                        t_up + part + g + c_known + (n_fail + 1 - n_known) * max_cost > cap_hours
                        or n_fail >= budget
                    ):
                        j = q + 1
                        stop_trial = True
                        break
                    if m_on:
                        to_maint -= 1
                        if to_maint == 0:
                            to_maint = _maint_countdown(rng, lam_geo)
                            planned = True
                    ep = e if e > 0.0 else 0.0  # e < 0: the restart failed; all below adds 0
                    k = int(ep * inv_seg)
                    if k * seg > ep:
                        k -= 1
                    elif (k + 1) * seg <= ep:
                        k += 1
                    x = ep - k * seg
                    s_k = tau
                n_snap += k
                n_run += 1 if e >= 0.0 else 0
                acc[EXPOSED, q] += g
                acc[A_RESTART, q] += g if g < r_eff else r_eff
                if planned:
                    # a fresh checkpoint of the progress reached (no rework), the downtime
                    # (both counted per trial), then the segments re-laid from there
                    acc[A_CKPT, q] += k * delta + (x - s_k if x > s_k else 0.0)
                    n_maint += 1
                    n_known += 1
                    c_known += m_cost if e >= 0.0 else maint_hours
                    if e >= 0.0:
                        n_mrun += 1
                        left = (n_seg - 1) * tau + r - (k * tau + (x if x < s_k else s_k))
                        n_seg, r = _segments(left, tau)
                        tail = r + delta + persist
                    if cut_short and q + to_maint > stop:
                        cut = q + 1
                else:
                    dk = k - 1 if x < persist else k  # durable segments of this run
                    if dk < 0:
                        dk = 0
                    acc[A_REWORK, q] += (k - dk) * tau + (x if x < s_k else s_k)
                    acc[A_CKPT, q] += k * delta + (x - s_k if x > s_k else 0.0)
                    n_seg -= dk
                part += g
                last_start = (n_seg - 1) * seg
                n_fail += 1
                stats[1] += 1
                r_eff = restart_hours
                if cut < stop:
                    break
            if not stop_trial:
                if cut < stop:
                    g_up = _gap_bound(buf, j, cut, mean_gap)
                t_up += g_up + x_def
                j = cut
        t_exp = _acc_total(acc, EXPOSED) + x_exp
        lost[i, REWORK] = _acc_total(acc, A_REWORK)
        lost[i, CHECKPOINT] = _acc_total(acc, A_CKPT) + x_ckpt
        lost[i, RESTART] = _acc_total(acc, A_RESTART) + x_restart
        # categories of the failures so far, all recovered, and their recovery time
        n_det = 0.0
        n_swp = 0.0
        n_f = n_fail - n_maint - n_settled
        if n_f > 0:
            _settle_categories(
                rng, i, n_f, w, suffix, prob, slot_code, alias_code, n_slots, cost,
                interruptions, scratch, False,
            )  # fmt: skip
        if n_fail - n_maint > 0:
            for c in range(n_cat):
                n_det += interruptions[i, c] * detect_hours[c]
                if swap[c]:
                    n_swp += interruptions[i, c] * swap_hours
        lost[i, DETECTION] = n_det
        lost[i, NODE_SWAP] = n_swp
        t = t_exp + n_det + n_swp
        if n_maint > 0:
            maint_events[i] = n_maint
            lost[i, MAINTENANCE] = n_maint * maint_hours
            lost[i, CHECKPOINT] += n_mrun * (delta + persist)
            t += n_maint * maint_hours + n_mrun * (delta + persist)
        p = work_hours - ((n_seg - 1) * tau + r)
        snap_steps = 2 if delta > 0.0 else 0
        swings[i] = snap_steps * n_snap + 2 * n_run
        if done:
            swings[i] += snap_steps * (n_seg - 1) + 2
            p = work_hours
            events = n_fail
        else:
            # near the cap or the event budget: the general path takes over, gap g pending
            t, p, done, events = _trial_general(
                rng, i, h_prob, h_slot, h_alias, h_slots, fail_rate, h_rate,
                detect_hours, swap, maint_hours, work_hours, tau, delta, persist, restart_hours,
                swap_hours, n_spares, repair_hours, cap_hours, max_events,
                t, p, n_seg, r, n_fail, r_eff, g, NO_GAP, interruptions, maint_events, lost,
                swings, False, w, w, w, 0.0, 1.0, 1.0, maint_rate, 0.0, 0.0, False, 0.0, 0.0,
                0.0, 0.0, no_profile, no_max, no_max, 0.0,
            )  # fmt: skip
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events


# ---------------------------------------------------------------------------------------------
# The diurnal path: the renewal configuration with diurnal failure rates, by an exact time
# change. From a wall time t at which the exposure resumes, the failure intensity is
# lambda(t + x) = L + A cos(phi0 + OMEGA x) (phi0 = OMEGA t + theta; see _trial_general's
# amp, theta), so the expected failures in [t, t + x] are, in closed form,
#     F(x) = L x + (A / OMEGA) (sin(phi0 + OMEGA x) - sin(phi0)),
# increasing (F' = lambda >= 0), and the next failure is F^-1(g) for one standard exponential g.

_POLY_U = 0.5  # |OMEGA x| up to which sin u and cos u - 1 come from Taylor polynomials
_ROT_U = 1e-4  # a final Halley step up to this angle is applied to sin, cos by rotation
# the steps a long gap descends by before its solve (half, quarter, eighth and sixteenth of a
# day: 12, 6, 3, 1.5 h), and the cosines and sines of their angles; the solve then meets gaps
# under 1.5 h, where its series guess and Taylor sines serve. F over a whole day is
# L * DAY_HOURS (the cosine's integral over its period is 0)
_HOP_X = DAY_HOURS / np.array([2.0, 4.0, 8.0, 16.0])
_HOP_C = np.cos(OMEGA * _HOP_X)
_HOP_S = np.sin(OMEGA * _HOP_X)
_REFRESH = 64  # failures between refreshes of the carried phase from math.sin, math.cos
_X_RTOL = 2.2e-16  # a failure time is solved to this fraction of the wall clock (its spacing)
_BRACKET_RTOL = 1e-12  # slack of the closed-form brackets over float rounding
_INV_MAX = 200  # iterations of the safeguarded solve (bisection alone needs < 100)
CBUF = 32  # categories (or the uniforms of picks at a phase) drawn ahead per refill
_DIURNAL_BLOCK_MIN = 8  # the diurnal path takes a block of failures if it holds this many
_DIURNAL_PLANNED_MAX = 32  # planned events a diurnal block takes at most
# a block's bound on planned events (p_max) where fewer than _DIURNAL_PLANNED_MAX are likely
# (_planned_bound): the mean mu expected within the segments left plus _DIURNAL_PLANNED_SD
# standard deviations (Poisson: sqrt(mu)) plus _DIURNAL_PLANNED_ADD; a bound only on the work
# (a block that reaches it ends there and the next takes over; each planned event allowed
# costs the bound on the job's last segment one segment, so near the job's end a bound of 32
# halved the blocks)
_DIURNAL_PLANNED_SD = 4.0
_DIURNAL_PLANNED_ADD = 2
# blocks apply with planned maintenance where there are at least this many failures per
# planned event on average (fewer: the loop one by one); a block then takes at most
# 2 _DIURNAL_PLANNED_MAX points per planned event expected (failures per planned event times
# 64, rounded up): it ends at its _DIURNAL_PLANNED_MAX-th planned event, on average about half
# way through so many points, the points beyond solved for nothing. A bound only on the work
# (exact either way), which never binds from 4 failures per planned event up (64 x 4 = 256,
# _DIURNAL_BUF)
_DIURNAL_PLANNED_RATIO = 0.25


@jit(_nrt=False)
def _planned_bound(n_seg, seg, maint_rate):
    """Return the planned events a diurnal block may take (``p_max``).

    Those likely within the block's reach: ``mu`` expected in the exposed hours of the job's
    segments left less 4 (``(n_seg - 4) seg``; a Poisson count in exposed time, at
    ``maint_rate``), plus ``_DIURNAL_PLANNED_SD`` standard deviations (``sqrt(mu)``) plus
    ``_DIURNAL_PLANNED_ADD``; at most ``_DIURNAL_PLANNED_MAX`` and ``(n_seg - 4) // 2``, at
    least 0. A bound on the work only: a block ends at one planned event more, and each one
    allowed shortens its bound on the job's last segment by a segment, which matters near the
    job's end only, where ``mu`` is small.
    """
    mu = max((n_seg - 4.0) * seg * maint_rate, 0.0)
    likely = int(mu + _DIURNAL_PLANNED_SD * math.sqrt(mu)) + _DIURNAL_PLANNED_ADD
    return max(min(_DIURNAL_PLANNED_MAX, (n_seg - 4) // 2, likely), 0)


# the diurnal path's draw buffer: a trial with blocks refills all of it (two of the loop's
# refills, the same draws), so a block takes up to this many gaps; any other trial refills
# its last BUF positions, as the loop always did
_DIURNAL_BUF = 2 * BUF
_acc_row_dbuf = _row_sums(_DIURNAL_BUF)  # (:func:`_acc_pairwise`)
_PTS_PAD = 8  # floats after each row of a block's point arrays (_point_arrays)
_NEVER = 4_000_000_000_000_000_000  # a countdown that never ends (beyond any event budget)
_COUNT_CHUNK = 16  # gaps summed at once by _block_count's search
_PICK_W = 24  # categories a pick at a phase compares at once (_pick_at_phase: at most these;
# a multiple of the eight lanes of _count_sums' intrinsics)
# how _pick_at_phase finds a category (_pick_mode): by a scan of the running sums; by a count of
# all _PICK_W sums at or below the target; by a count of the first _PICK_HEAD_W, and of the rest
# only where all of those are (categories past the first _PICK_HEAD_W holding at most
# _PICK_TAIL_SHARE of the mean intensity)
_PICK_SCAN = 0
_PICK_COUNT = 1
_PICK_HEAD = 2
_PICK_HEAD_W = 16
_PICK_TAIL_SHARE = 1.0 / 16.0
_NORM_SLACK = 1e-12  # how far a carried phase's (sin, cos) may stray from norm 1 (_sums_rise)


@jit(_nrt=False, forceinline=True)
def _costly_fill(rng, lam_geo, prob_c, slot_c, alias_c, n_slots_c, kbuf, cbuf, ubuf):
    """Draw ``CBUF`` costly failures of a diurnal block ahead (:func:`_diurnal_block`).

    Entry ``q``: the category of a failure whose recovery costs time (``cbuf``, an alias draw
    among those categories; no draw when there is one) and the failures up to and including
    the next such one (``kbuf``, :func:`_maint_countdown`). Independent draws, so taking them
    in order is the same process as drawing each at its failure; drawn in loops of their own,
    out of the in-order pass (a draw's call there spills what the pass carries). ``ubuf``:
    scratch.
    """
    if n_slots_c == 1:
        for q in range(CBUF):
            cbuf[q] = slot_c[0]
    else:
        _alias_codes(rng, prob_c, slot_c, alias_c, n_slots_c, CBUF, ubuf, cbuf)
    for q in range(CBUF):
        kbuf[q] = _maint_countdown(rng, lam_geo)


@jit(inline="always")
def _next_costly(rng, jk, lam_geo, prob_c, slot_c, alias_c, n_slots_c, kbuf, cbuf, ubuf):
    """Take the next costly failure drawn ahead: ``(category, countdown from it, jk)``.

    Reads entry ``jk`` of ``cbuf``, ``kbuf`` (refilled by :func:`_costly_fill` when used up)
    and returns the position after it: the one take of a diurnal block's pass over the costly
    failures and of its pass in order through planned events.
    """
    if jk == CBUF:
        _costly_fill(rng, lam_geo, prob_c, slot_c, alias_c, n_slots_c, kbuf, cbuf, ubuf)
        jk = 0
    return cbuf[jk], kbuf[jk], jk + 1


@jit(_nrt=False, forceinline=True)
def _sincos_small(u):
    """``(sin u, cos u - 1)`` for ``|u| <= _POLY_U`` by their Taylor polynomials.

    Truncated after ``u^13`` and ``u^14``: at ``|u| = 0.5`` the first omitted terms are
    2.3e-17 and 7e-19 (below half an ulp of the values); Estrin's scheme in ``z = u^2``
    keeps the dependency chain short. ``cos u - 1`` directly, without the cancellation.
    """
    z = u * u
    z2 = z * z
    z4 = z2 * z2
    sp = (1.0 - z * (1.0 / 6.0)) + z2 * ((1.0 / 120.0) - z * (1.0 / 5040.0))
    sp += z4 * (((1.0 / 362880.0) - z * (1.0 / 39916800.0)) + z2 * (1.0 / 6227020800.0))
    cp = (-0.5 + z * (1.0 / 24.0)) + z2 * (-(1.0 / 720.0) + z * (1.0 / 40320.0))
    cp += z4 * ((-(1.0 / 3628800.0) + z * (1.0 / 479001600.0)) - z2 * (1.0 / 87178291200.0))
    return u * sp, z * cp


@jit(_nrt=False, forceinline=True)
def _sincos_step(u):
    """``(sin u, cos u - 1)``: :func:`_sincos_small` when ``|u| <= _POLY_U``, else libm."""
    if abs(u) <= _POLY_U:
        return _sincos_small(u)
    return math.sin(u), math.cos(u) - 1.0


@jit(inline="always")
def _cum_turned(x, sn, cm, s0, c0, big_l, k):
    """:func:`_cum_diurnal` given ``sin(OMEGA x)`` and ``cos(OMEGA x) - 1`` (``sn``, ``cm``)."""
    return big_l * x + k * (s0 * cm + c0 * sn)


@jit(_nrt=False, forceinline=True)
def _cum_diurnal(x, s0, c0, big_l, k):
    """``F(x) = L x + k (sin(phi0 + OMEGA x) - sin phi0)`` with ``k = A / OMEGA``.

    ``s0``, ``c0``: the sine and cosine of ``phi0``.
    """
    sn, cm = _sincos_step(OMEGA * x)
    return _cum_turned(x, sn, cm, s0, c0, big_l, k)


@jit(inline="always")
def _passes(g, x, s0, c0, big_l, k):
    """Whether ``g >= F(x)`` (:func:`_cum_diurnal`), by bounds on ``F`` where they decide.

    ``|F(x) - L x| = k |sin(phi0 + OMEGA x) - sin phi0| <= k min(2, OMEGA |x|)``, so a ``g``
    outside that band about ``L x`` is decided without a sine; the band is widened by
    ``_BRACKET_RTOL`` of ``L x + 2 k``, far above the rounding of ``F`` as computed (a few
    ulps, and a carried phase whose norm drifts from 1 by below 1e-13), so the answer is
    the comparison with the computed ``F``, bit for bit. The loop one by one's test of
    whether a planned event comes before the next failure: at 2k GPUs with planned
    maintenance it was one ``sin`` and ``cos`` a cycle (libm: the hours to a planned event
    are mostly beyond :func:`_sincos_step`'s polynomials). (``x`` may be a little below 0
    there, the clock left after a solve's rounding: ``|x|`` keeps the band a bound.)
    """
    lx = big_l * x
    band = k * min(2.0, OMEGA * abs(x)) + _BRACKET_RTOL * (abs(lx) + 2.0 * k)
    if g < lx - band:
        return False
    if g > lx + band:
        return True
    return g >= _cum_diurnal(x, s0, c0, big_l, k)


@jit(inline="always")
def _turn(s, c, cos_d, sin_d):
    """Turn a phase of sine ``s``, cosine ``c`` by an angle of cosine ``cos_d``, sine ``sin_d``."""
    return s * cos_d + c * sin_d, c * cos_d - s * sin_d


@jit(inline="always")
def _invert_diurnal(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t, hi):
    """Solve ``F(x) = g`` for the wall hours ``x`` to the next failure; ``F(hi) > g``.

    Arguments and result as :func:`_solve_diurnal`, which solves. A gap of 1.5 h or more
    (``g >= F(1.5)``, decided by the lower bound ``(L - A) 1.5`` when it can be) is first
    descended: whole days (``F`` grows by ``L`` times 24 h over each, whatever the phase),
    then steps of 12, 6, 3 and 1.5 h, each taken when ``g`` reaches ``F`` over it from the
    phase reached (four multiplications; a step taken rotates the phase by its precomputed
    cosine and sine, four more). The solve then starts under 1.5 h from the failure, where its
    series guess and Taylor sines are accurate, instead of iterating with library sines
    across a day (measured in a chain of solves, amplitude 0.5 and 1: 2.9 h mean gaps 77-85
    -> 59-66 ns a solve, 22.7 h 118-147 -> 74-80 ns; 0.2-0.5 h gaps 1-2 ns slower, the
    test below; at amplitude 1 the lower bound ``(L - A) 1.5`` is 0, so every gap computes
    ``F(1.5)``). Gaps under 1.5 h go to the solve unchanged.
    """
    xs = 0.0  # hours stepped over
    x_s = _HOP_X[3]
    if g >= (big_l - big_a) * x_s and hi > x_s:
        k = big_a / OMEGA
        if g >= _cum_turned(x_s, _HOP_S[3], _HOP_C[3] - 1.0, s0, c0, big_l, k):
            day = big_l * DAY_HOURS
            q = int(g / day)
            if q > 0 and q * day > g:  # g / day rounded up onto a whole number
                q -= 1
            g = g - q * day
            xs = q * DAY_HOURS
            for j in range(4):
                fx = _cum_turned(_HOP_X[j], _HOP_S[j], _HOP_C[j] - 1.0, s0, c0, big_l, k)
                if g >= fx:
                    g -= fx
                    xs += _HOP_X[j]
                    s0, c0 = _turn(s0, c0, _HOP_C[j], _HOP_S[j])
            hi = min(hi - xs, x_s)
    x, s1, c1 = _solve_diurnal(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t + xs, hi)
    if xs > 0.0:
        x = xs + x
    return x, s1, c1


@jit(inline="always")
def _solve_diurnal(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t, hi):
    """Solve ``F(x) = g`` for the wall hours ``x`` to the next failure; ``F(hi) > g``.

    ``s0``, ``c0``: sine and cosine of ``phi0``; ``inv_l``, ``inv_hi``, ``inv_lo``: ``1 / L``,
    ``1 / (L + A)`` and ``1 / (L - A)`` (``inf`` when ``L = A``); ``t``: the wall clock at
    ``x = 0`` (for the tolerance). Returns ``(x, sin(phi0 + OMEGA x), cos(phi0 + OMEGA x))``.

    First guess: the inverse series of ``F`` at 0 to fourth order (one division). Then Halley
    steps (``F'' = -A OMEGA sin``, free from the same sine and cosine; cubic convergence) kept
    inside a bracket that shrinks, else bisection: ``F' = L + A cos`` may touch 0 (amplitude
    1), so no step divides by it unguarded. The closed-form bounds ``(L - A) x <= F(x) <=
    (L + A) x`` and ``|F(x) - L x| <= 2 A / OMEGA`` give the first bracket. A Halley step
    ``dx`` leaves an error of about ``(F2^2 / (4 F1^2) + |F3| / (6 F1)) |dx|^3`` (``F1``,
    ``F2``, ``F3`` the derivatives); the solve stops when that is below ``_X_RTOL`` of the
    wall clock ``t + x`` (its float spacing), or the bracket is that narrow. Typically one
    step (one sine and cosine) per failure.
    """
    k = big_a / OMEGA
    lo = max(g * inv_hi, (g - 2.0 * k) * inv_l) * (1.0 - _BRACKET_RTOL)
    lo = max(lo, 0.0)
    hi = min(hi, min((g + 2.0 * k) * inv_l, g * inv_lo) * (1.0 + _BRACKET_RTOL))
    lam0 = big_l + big_a * c0
    x = 0.5 * (lo + hi)
    if lam0 > 0.0:
        # x = y - b2 y^2 + (2 b2^2 - b3) y^3 + (5 b2 b3 - 5 b2^3 - b4) y^4, y = g / a1,
        # b_n = a_n / a1: a1 = F'(0) = lam0, a2 = F''(0) / 2 = -A OMEGA s0 / 2,
        # a3 = F'''(0) / 6 = -A OMEGA^2 c0 / 6, a4 = F''''(0) / 24 = A OMEGA^3 s0 / 24
        inv = 1.0 / lam0
        y = g * inv
        b2 = (-0.5 * OMEGA) * big_a * s0 * inv
        b3 = (-OMEGA * OMEGA / 6.0) * big_a * c0 * inv
        b4 = (OMEGA * OMEGA * OMEGA / 24.0) * big_a * s0 * inv
        q4 = 5.0 * b2 * (b3 - b2 * b2) - b4
        xg = y * (1.0 + y * (-b2 + y * ((2.0 * b2 * b2 - b3) + y * q4)))
        if lo < xg < hi:
            x = xg
    a3 = big_a * (OMEGA * OMEGA / 6.0)
    for _ in range(_INV_MAX):
        sn, cm = _sincos_step(OMEGA * x)
        dsn = s0 * cm + c0 * sn  # sin(phi0 + u) - s0
        dcs = c0 * cm - s0 * sn  # cos(phi0 + u) - c0
        f = big_l * x + k * dsn - g
        sx = s0 + dsn
        cx = c0 + dcs
        if f == 0.0:
            return x, sx, cx
        if f > 0.0:
            hi = x
        else:
            lo = x
        tol = _X_RTOL * (t + x)
        f1 = big_l + big_a * cx
        f2 = (-OMEGA) * big_a * sx
        den = 2.0 * f1 * f1 - f * f2
        if f1 > 0.0 and den > 0.0:
            dx = 2.0 * f * f1 / den
            xn = x - dx
            if lo < xn < hi:
                adx = abs(dx)
                # the error estimate times f1^2, so that no division is needed
                if (0.25 * f2 * f2 + abs(a3 * cx) * f1) * (adx * adx * adx) <= tol * f1 * f1:
                    d = -OMEGA * dx
                    if abs(d) <= _ROT_U:  # rotate by d: the omitted terms are below 1e-18
                        d2 = d * d
                        sd = d - d * d2 * (1.0 / 6.0)
                        cd = -0.5 * d2
                        return xn, sx + (sx * cd + cx * sd), cx + (cx * cd - sx * sd)
                    sn, cm = _sincos_step(OMEGA * xn)
                    return xn, s0 + (s0 * cm + c0 * sn), c0 + (c0 * cm - s0 * sn)
                x = xn
                continue
        if hi - lo <= tol:
            break
        x = 0.5 * (lo + hi)
    x = 0.5 * (lo + hi)
    sn, cm = _sincos_step(OMEGA * x)
    return x, s0 + (s0 * cm + c0 * sn), c0 + (c0 * cm - s0 * sn)


# The diurnal path's block of failures (:func:`_diurnal_block`): with the category of a
# failure independent of its time and most recoveries instantaneous in exposure, the integrated
# intensity of a block's failures is a running sum of their gaps, and each failure's wall time
# an independent inversion of F from the block's start. In the phase u = phi0 + OMEGA x,
# F(x) = (L / OMEGA) (M(u) - M(phi0)) with M(u) = u + e sin u (e = A / L, a Kepler-type
# equation); M(u + 2 pi) = M(u) + 2 pi, so one table of M's inverse over a period serves.
_KEP_N = 1024  # intervals of the table over m in [0, 2 pi]
_KEP_COLS = 3  # u_j, sin u_j, cos u_j
_KEP_STEP = 0.05  # the largest step from a node the table's solve takes (else the full solve)
TWO_PI = 2.0 * math.pi
INV_OMEGA = 1.0 / OMEGA


@jit(_nrt=False)
def _kepler_table(e, tab):
    """Fill ``tab`` (``_KEP_N + 1`` rows of ``_KEP_COLS``) with the inverse of ``u + e sin u``.

    Row ``j``, one node's three values (24 bytes; the table, 24.6 kB, within a core's
    first-level data cache): the node ``u_j = M^-1(j h)`` (``h = 2 pi / _KEP_N``; safeguarded
    Newton to the float spacing), its sine and cosine. The solve (:func:`_kepler_newton`)
    computes ``M(u_j)``, ``1 / M'(u_j)`` and the inverse's other Taylor coefficients from
    these at the amplitude in use, in its vectorised loop: against rows of eight with them
    stored, the diurnal path at 100k GPUs ran 1.027x and 1.045x as fast in two interleaved A/Bs
    (the copy of the rows, 4.3 -> 1.3 ns a failure in a harness, is what the loop cannot
    vectorise, see :func:`_kepler_pass`), and a table serves amplitudes near its own
    (``KernelInputs.kepler_grid``). Newton starts from the previous node's inverse series
    (:func:`_kepler_series`), so one or two steps reach the node (five or six from ``u =
    m``): 342 against 127 us at amplitude 0.5 on a loaded host. Built once a run where no
    shape is given per draw (``KernelInputs.kepler_table``, read by :func:`_block_diurnal`):
    every category's amplitude where all share one shape, else, with point rates, the summed
    intensity's (:func:`_summed_amplitude`); where the amplitude is the draw's, the nearest of the
    reference tables serves (built once a process, :func:`_kepler_grid`); otherwise (inputs
    not built by ``KernelInputs``) once a kernel call (per 256 trials).
    """
    h = TWO_PI / _KEP_N
    u = 0.0  # the previous node, its sine and cosine, and 1 / M' there (M^-1(0) = 0)
    s = 0.0
    c = 1.0
    b1 = _inv_slope(e, c)
    for j in range(_KEP_N + 1):
        m = j * h
        lo = m - e
        hi = m + e
        # first guess: the previous node's inverse series (the solve's, :func:`_kepler_series`),
        # so that Newton needs one or two steps, not five or six
        mj, b2, b3, b4 = _kepler_series(e, u, s, c, b1)
        dm = m - mj
        un = u + dm * (b1 + dm * (b2 + dm * (b3 + dm * b4)))
        u = un if lo < un < hi else m
        for _ in range(100):
            f = u + e * math.sin(u) - m
            if f == 0.0:
                break
            if f > 0.0:
                hi = u
            else:
                lo = u
            d = 1.0 + e * math.cos(u)
            un = u - f / d if d > 0.0 else 0.5 * (lo + hi)
            if not lo < un < hi:
                un = 0.5 * (lo + hi)
            if un == u or hi - lo <= 4e-16 * max(abs(u), 1.0):
                u = un
                break
            u = un
        s = math.sin(u)
        c = math.cos(u)
        b1 = _inv_slope(e, c)
        tab[j, 0] = u
        tab[j, 1] = s
        tab[j, 2] = c


# Tables where the intensity's amplitude is the draw's (shapes per draw, or shapes that differ
# with rates per draw): the nearest of the reference tables at the amplitudes k / _KEP_GRID
# (``KernelInputs.kepler_grid``, built once a process), not one built per draw (~130 us). The
# solve computes M(u_j) and its derivatives at the amplitude in use, so a node is only a point
# to step from: one of a table for an amplitude up to 1 / (2 _KEP_GRID) away is trusted about
# as often (tests/test_diurnal_block.py)
_KEP_GRID = 64


@jit
def _kepler_grid(grid):
    """Fill ``grid`` (``_KEP_GRID + 1`` tables) with :func:`_kepler_table` at ``k / _KEP_GRID``.

    ``KernelInputs.kepler_grid``: built once a process (~2 ms) and shared by every run's inputs.
    """
    for k in range(_KEP_GRID + 1):
        _kepler_table(k / _KEP_GRID, grid[k])


@jit(inline="always")  # must stay inlined: _diurnal_trials (no reference counting) calls it
def _table_for(e, kepler_table, kepler_e, kepler_grid, tab):
    """Return the diurnal path's table for amplitude ``e`` (blocks and loop), and ``e``.

    The inputs' ``kepler_table`` where it is ``e``'s; else the nearest of ``kepler_grid``'s
    (amplitude ``k / _KEP_GRID``) where the inputs have them (the amplitude is the draw's);
    else ``tab``, built here (:func:`_kepler_table`). So a table depends on ``e`` and the
    inputs alone, whichever trials came before.
    """
    if e == kepler_e:
        return kepler_table, e
    if kepler_grid.shape[0] > 0:
        k = int(e * _KEP_GRID + 0.5) if e >= 0.0 else 0  # (not NaN: defined, table 0)
        return kepler_grid[min(max(k, 0), _KEP_GRID)], e
    _kepler_table(e, tab)
    return tab, e


@jit
def _summed_amplitude(cat_rate, cat_amp, cat_phase, start_hour):
    """Return ``A / L`` of draw 0's summed intensity ``L + A cos`` (:func:`_block_diurnal`'s).

    With categories of different shapes and point rates, the amplitude whose table the
    diurnal path reads (its blocks and the solve one by one); ``KernelInputs`` builds that
    table once a run from it. The path's own computation (:func:`_draw_intensity`), so the
    same float.
    """
    n_cat = cat_rate.shape[1]
    w = np.empty(n_cat)
    suffix = np.empty(n_cat)
    amp = np.empty(n_cat)
    phase = np.empty(n_cat)
    cos_a = np.empty(n_cat)
    sin_a = np.empty(n_cat)
    pc = np.zeros(n_cat)
    ps = np.zeros(n_cat)
    _trial_shape(
        np.zeros((0, n_cat)), np.zeros((0, n_cat)), np.ones(0), 0, cat_amp, cat_phase, 1.0,
        amp, phase,
    )  # fmt: skip
    _diurnal_angles(phase, start_hour, cos_a, sin_a)
    fail_rate, _, _, big_a = _draw_intensity(cat_rate, 0, w, suffix, amp, cos_a, sin_a, pc, ps)
    return big_a / fail_rate if fail_rate > 0.0 else 0.0


@jit(_nrt=False, forceinline=True)
def _draw_intensity(cat_rate, d, w, suffix, amp, cos_a, sin_a, pc, ps):
    """Draw ``d``'s summed diurnal intensity ``L + A cos``: ``(L, zr, zi, A)``.

    Fills ``w``, ``suffix`` (:func:`_draw_rates`) and ``pc``, ``ps``
    (:func:`_diurnal_terms_at`); ``A = hypot(zr, zi)``, at most ``L`` (terms that add up to
    amplitude 1 can round a few ulps above it). The one computation of :func:`_block_diurnal`
    and :func:`_summed_amplitude`, so the inputs' table is for the path's own float.
    """
    fail_rate = _draw_rates(cat_rate, d, w, suffix)
    zr, zi = _diurnal_terms_at(w, amp, cos_a, sin_a, pc, ps)
    return fail_rate, zr, zi, min(math.hypot(zr, zi), fail_rate)


@jit(inline="always")
def _kepler_step(g, m0, phi0, e, w_l, tol0, tab):
    """Wall hours ``X`` with ``F(X) = g`` from the table, and whether to trust them.

    ``M(u) = m0 + g OMEGA / L`` (``m0 = M(phi0)``, ``phi0`` in ``[0, 2 pi)`` the phase at the
    block's start), less whole periods, is solved from the nearest node: its fourth-order
    inverse series (coefficients from the row, :func:`_kepler_newton`) gives a step ``d``
    (error below 1e-10 rad at amplitude 0.5), then one
    Newton step with the sine and cosine of ``u_j + d`` by angle addition (Taylor
    polynomials to ``d^7`` and ``d^8``: the first omitted terms are below 6e-18 for ``|d| <=
    _KEP_STEP``), whose error ``e |sin u| dx^2 / (2 M'(u))`` must be within the wall clock's
    spacing (``tol0 + _X_RTOL g OMEGA / L`` in phase); else (a step beyond ``_KEP_STEP``, ``M'``
    near 0 at amplitude 1) the caller solves in full. No branch. Returns ``(X, ok, sin u,
    cos u)``, ``X = periods * 24 h + (u - phi0) / OMEGA`` (the sine and cosine by a
    second-order rotation by the Newton step, whose omitted term is below 2e-16 when the step
    is below 1e-5).
    """
    mt, nf, m, jj = _kepler_node(g, m0, w_l)
    u_j, sj, cj = tab[jj, 0], tab[jj, 1], tab[jj, 2]
    x, ok, s, c, dx = _kepler_newton(mt, nf, m, m0, phi0, e, tol0, u_j, sj, cj)
    h2 = 0.5 * dx * dx  # sin, cos of u_j + d - dx: a second-order rotation by -dx
    return x, ok, s - c * dx - s * h2, c + s * dx - c * h2


@jit(inline="always")
def _kepler_node(g, m0, w_l):
    """``M = m0 + g OMEGA / L``, its whole periods ``nf``, the rest ``m`` and its nearest node."""
    mt = m0 + g * w_l
    nf = np.floor(mt * (1.0 / TWO_PI))
    m = mt - nf * TWO_PI
    jj = int(np.int32(m * (_KEP_N / TWO_PI) + 0.5))
    return mt, nf, m, min(max(jj, 0), _KEP_N)


@jit(inline="always")
def _kepler_newton(mt, nf, m, m0, phi0, e, tol0, u_j, sj, cj):
    """:func:`_kepler_step`'s arithmetic from a node's row (``u_j``, its sine and cosine).

    ``M(u_j)``, ``b1 = 1 / M'(u_j)`` (0 where ``M' <= 0``: amplitude 1 at ``u = pi``) and the
    inverse's Taylor coefficients at it to fourth order (:func:`_kepler_series`); the series
    step ``d``, the sine and cosine of ``u_j + d``, one Newton step ``dx``, the wall hours and
    the trust test; returns ``(X, ok, sin, cos of u_j + d, dx)``. Computed at the amplitude in
    use, so a node is only a point to step from: a table of an amplitude near ``e`` (within
    ``1 / (2 _KEP_GRID)``) is trusted about as often as ``e``'s own, one far from it makes the
    steps long and the trust test declines them (tests/test_diurnal_block.py). Branch-free
    and table-free, so that the loop of :func:`_kepler_finish` vectorises.
    """
    b1 = _inv_slope(e, cj)
    mj, b2, b3, b4 = _kepler_series(e, u_j, sj, cj, b1)
    dm = m - mj
    d = dm * (b1 + dm * (b2 + dm * (b3 + dm * b4)))
    z = d * d
    sn = d * (1.0 - z * ((1.0 / 6.0) - z * ((1.0 / 120.0) - z * (1.0 / 5040.0))))
    cm = z * (-0.5 + z * ((1.0 / 24.0) - z * ((1.0 / 720.0) - z * (1.0 / 40320.0))))
    s = sj + (sj * cm + cj * sn)
    c = cj + (cj * cm - sj * sn)
    f1 = 1.0 + e * c  # M'(u_j + d)
    f = d + e * (s - sj) - dm  # M(u_j + d) - m
    dx = f / f1
    x = nf * DAY_HOURS + ((u_j + (d - dx)) - phi0) * INV_OMEGA
    ok = (
        (abs(d) <= _KEP_STEP)
        & (f1 > 0.0)
        & (e * abs(s) * dx * dx <= 2.0 * f1 * (tol0 + _X_RTOL * (mt - m0)))
    )
    return x, ok, s, c, dx


@jit(inline="always")
def _inv_slope(e, c):
    """``1 / M'`` at a node of cosine ``c``: ``1 / (1 + e c)``, 0 where ``M' <= 0``.

    Shared by the table's first guesses (:func:`_kepler_table`) and the solve
    (:func:`_kepler_newton`); a select, so the solve's loop stays branch-free.
    """
    a1 = 1.0 + e * c
    return 1.0 / a1 if a1 > 0.0 else 0.0


@jit(inline="always")
def _kepler_series(e, u_j, sj, cj, b1):
    """``M(u_j) = u_j + e sin u_j`` and the inverse's Taylor coefficients ``b2``-``b4`` at it.

    From ``M``'s derivatives ``1 + e cos``, ``-e sin``, ``-e cos``, ``e sin`` at the node
    (``b1 = 1 / M'(u_j)``, 0 where ``M' <= 0``: then all are); ``M^-1(M(u_j) + dm) = u_j +
    dm (b1 + dm (b2 + dm (b3 + dm b4))) + O(dm^5)``. Shared by the solve
    (:func:`_kepler_newton`) and the table's first guesses (:func:`_kepler_table`).
    """
    es = e * sj
    ec = e * cj
    a1 = 1.0 + ec
    a2 = -0.5 * es
    a3 = ec * (-1.0 / 6.0)
    a4 = es * (1.0 / 24.0)
    b12 = b1 * b1
    b13 = b12 * b1
    b15 = b13 * b12
    b2 = -a2 * b13
    b3 = (2.0 * a2 * a2 - a1 * a3) * b15
    b4 = (a2 * (5.0 * a1 * a3 - 5.0 * a2 * a2) - a1 * a1 * a4) * (b15 * b12)
    return u_j + es, b2, b3, b4


@jit(inline="always")
def _kepler_nodes(gf, j0, stop, m0, w_l, nfa, ma, ji):
    """:func:`_kepler_node` for ``gf[j0:stop]``: periods, reduced phase, node.

    A loop without a table read, so it vectorises (see :func:`_kepler_pass`).
    """
    for q in range(np.uint64(j0), np.uint64(stop)):
        _, nfa[q], ma[q], ji[q] = _kepler_node(gf[q], m0, w_l)


@jit(inline="always")
def _kepler_finish(
    gf, xa, okf, sa, ca, with_sc, j0, stop, m0, phi0, e, w_l, tol0, nfa, ma, u, sj_, cj_
):
    """:func:`_kepler_newton` for ``gf[j0:stop]`` from the nodes' rows copied into ``u`` ...

    The function :func:`_kepler_step` uses (so the same floats), one failure per lane: a loop
    over contiguous arrays without branches or table reads, which LLVM vectorises. With
    ``with_sc`` (a constant at each call, so no branch is left in the loop) also each point's
    sine and cosine of its phase into ``sa``, ``ca``: those :func:`_kepler_step` returns (the
    node's series step, rotated back by the Newton step), so the same floats.
    """
    for q in range(np.uint64(j0), np.uint64(stop)):
        x, ok, s, c, dx = _kepler_newton(
            m0 + gf[q] * w_l, nfa[q], ma[q], m0, phi0, e, tol0, u[q], sj_[q], cj_[q]
        )
        xa[q] = x
        okf[q] = 1.0 if ok else 0.0
        if with_sc:
            h2 = 0.5 * dx * dx
            sa[q] = s - c * dx - s * h2
            ca[q] = c + s * dx - c * h2


@jit(inline="always")
def _kepler_rows(tab, j0, stop, wk, ji):
    """Copy the nodes' rows ``tab[ji[q]]`` into the contiguous work rows ``wk[2:5]``."""
    for q in range(np.uint64(j0), np.uint64(stop)):
        jj = np.uint64(ji[q])
        for k in range(np.uint64(_KEP_COLS)):
            wk[np.uint64(2) + k, q] = tab[jj, k]


@jit(_nrt=False, forceinline=True)
def _kepler_pass(gf, xa, okf, j0, stop, m0, phi0, e, w_l, tol0, tab, wk, ji):
    """:func:`_kepler_step`'s ``X``, ``ok`` for ``gf[j0:stop]`` into ``xa``, ``okf`` (1: trusted).

    In three loops, so that two of them vectorise (LLVM does not vectorise a loop that reads
    the table at a computed row: no gathers in its code, see benchmarks/README.md): the
    periods, phases and nodes (:func:`_kepler_nodes`); the nodes' rows copied into the
    contiguous work rows ``wk[2:5]`` (:func:`_kepler_rows`); the arithmetic
    (:func:`_kepler_finish`). The same floats as :func:`_kepler_step` one at a time
    (tests/test_diurnal_block.py): 4.9 against 12.7 ns a solve, 128 at a time (with rows of
    eight).
    """
    _kepler_nodes(gf, j0, stop, m0, w_l, wk[0], wk[1], ji)
    _kepler_rows(tab, j0, stop, wk, ji)
    _kepler_finish(
        gf, xa, okf, xa, xa, False, j0, stop, m0, phi0, e, w_l, tol0, wk[0], wk[1], wk[2],
        wk[3], wk[4],
    )  # fmt: skip


@jit(_nrt=False, forceinline=True)
def _kepler_pass_sc(gf, xa, okf, sa, ca, j0, stop, m0, phi0, e, w_l, tol0, tab, wk, ji):
    """:func:`_kepler_pass`, and the sine and cosine of each point's phase (``sa``, ``ca``).

    The blocks with categories that depend on the time read a failure's category at its
    phase (:func:`_diurnal_block`); :func:`_kepler_pass`'s loops, the last storing two more
    rows (:func:`_kepler_finish` with ``with_sc``).
    """
    _kepler_nodes(gf, j0, stop, m0, w_l, wk[0], wk[1], ji)
    _kepler_rows(tab, j0, stop, wk, ji)
    _kepler_finish(
        gf, xa, okf, sa, ca, True, j0, stop, m0, phi0, e, w_l, tol0, wk[0], wk[1], wk[2],
        wk[3], wk[4],
    )  # fmt: skip


@jit
def _solve_from(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t):
    """:func:`_invert_diurnal` with no upper bound: ``x``, where a block's table declines.

    A call, not inlined: the full solve's code is kept out of the block's loops.
    """
    x, _, _ = _invert_diurnal(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t, np.inf)
    return x


@jit(_nrt=False, forceinline=True)
def _solve_one(g, t, theta, s0, c0, tab_on, e, w_l, tab, big_l, big_a, inv_l, inv_hi, inv_lo, hi):
    """:func:`_invert_diurnal` for the loop one by one: from the table when it has one.

    ``tab_on``: the summed intensity ``L + A cos`` has a table ``tab`` for an amplitude at
    or near ``e = A / L`` (``w_l = OMEGA / L``): one shape for every category, or shapes that
    differ (no shapes per draw; see :func:`_table_for`). A gap the full solve would descend (``g >=
    F(1.5 h)``, its two tests: the bound ``(L - A) 1.5``, then ``F`` over 1.5 h from the phase
    by four multiplications) is solved from the phase at ``t``, ``OMEGA t + theta`` reduced
    onto ``[0, 2 pi)`` (``s0``, ``c0`` its sine and cosine), by :func:`_kepler_step`, as a
    block does from its start; a step it does not trust, a root not below ``hi``, and a
    shorter gap (where the full solve's series guess and one step are as quick) go to the
    full solve. Returns ``(x, sin, cos of the phase at t + x)``. Interleaved A/Bs of
    ``_block_diurnal``, medians of five processes (benchmarks/bench_ab.py, README.md there):
    1.13x at 16k GPUs with planned maintenance (every failure one by one, ~3-h gaps; 1.12x
    at amplitude 1), 1.00-1.02x at 100k with it, 1.00-1.01x at 2k, 100k and 1M without; the
    table for every gap, short ones too, read 0.93x at 100k with maintenance (not kept).
    With 18 peak hours (shapes that differ) and Llama 3's planned maintenance at 2k GPUs,
    every failure one by one: 1.14x (rates per draw 1.12x), 1.01x at 16k (blocks), 1.02x at
    2k without maintenance; the outputs move within the solve's tolerance only.
    """
    x_s = _HOP_X[3]
    if (
        tab_on
        and g >= (big_l - big_a) * x_s
        and g >= _cum_turned(x_s, _HOP_S[3], _HOP_C[3] - 1.0, s0, c0, big_l, big_a / OMEGA)
    ):
        ph = OMEGA * t + theta
        phi0 = ph - np.floor(ph * (1.0 / TWO_PI)) * TWO_PI
        x, ok, s1, c1 = _kepler_step(g, phi0 + e * s0, phi0, e, w_l, _X_RTOL * OMEGA * t, tab)
        if ok and 0.0 <= x < hi:
            return x, s1, c1
    return _invert_diurnal(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t, hi)


@jit(inline="always")
def _stop_in_run(e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps):
    """Account a planned stop ``e`` hours into a run: ``(ckpt, computed, steps)``.

    The snapshots done and a fresh checkpoint of the progress reached (a snapshot under way
    counts to the stop): its checkpoint hours, the compute it keeps (the partial segment's
    too) and its power steps (compute started; the snapshots; the stop). The one arithmetic
    of :func:`_planned_stop` and the diurnal blocks through planned events.
    """
    k, xo, s_k = _locate(e, n_seg, last_start, r, tau, seg, inv_seg)
    ckpt = (k * delta + max(xo - s_k, 0.0)) + (delta + persist)
    return ckpt, k * tau + min(xo, s_k), snap_steps * k + 2


@jit  # called, not inlined: in the loop's two branches it slowed the path without maintenance
def _planned_stop(
    e, m_left, t, p, r_eff, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, work_hours,
    maint_hours, m_stop, snap_steps,
):  # fmt: skip
    """Take the diurnal path's planned event ``m_left`` exposed hours into a cycle from ``t``.

    ``e = m_left - r_eff``, before the job's last compute. During the restart (``e < 0``:
    the restart is lost) the downtime follows; in the run a fresh checkpoint of the progress
    reached, the segments re-laid from there, then the downtime. Returns the wall clock
    after the downtime, the progress, the segments left and the last one's compute, and the
    restart hours, checkpoint hours and power steps it adds.
    """
    if e < 0.0:
        return (t + m_left) + maint_hours, p, n_seg, r, m_left, 0.0, 0
    ckpt, computed, steps = _stop_in_run(
        e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps
    )
    p += computed
    n_seg, r = _segments(work_hours - p, tau)  # re-laid from there
    return (t + m_left) + m_stop, p, n_seg, r, r_eff, ckpt, steps


@jit
def _solve_near(g, t, theta, s0, c0, tab_on, e, w_l, tab, big_l, big_a, inv_l, inv_hi, inv_lo):
    """:func:`_solve_one` without an upper bound: a failure near the cap, taken or carried.

    A call, not inlined: the loop one by one keeps one inlined solve (the job's end its
    bound), as before this case was taken there.
    """
    return _solve_one(
        g, t, theta, s0, c0, tab_on, e, w_l, tab, big_l, big_a, inv_l, inv_hi, inv_lo, np.inf
    )


@jit
def _point_arrays(n):
    """Allocate the diurnal path's draw buffer and a block's per-point arrays as one array.

    Rows (:func:`_point_rows`): the gaps ``buf``, and :func:`_diurnal_block_body`'s ``gf``,
    ``xa``, ``okf``, ``sa``, ``ca``, each ``n`` long. One array, so that a block's call carries
    one array's fields for the six: numba passes an array argument as 5 + 2 ndim words (its
    pointers, size, item size, shape and strides: 7 for a vector), and the trial loop's copies
    of its block's arguments to the stack were about a quarter of its samples with planned
    maintenance at 100k GPUs (~34 block calls a trial; ``perf annotate``: a copy per word, the
    loads missing the cache once a line). Each row is followed by ``_PTS_PAD`` unused floats,
    so that no two rows start a multiple of 4096 bytes apart (a load at a store's address
    modulo 4096 may be held back for it while the store is in flight); a precaution, not
    measured apart.
    """
    return np.empty((6, n + _PTS_PAD))


@jit(_nrt=False, forceinline=True)
def _point_rows(pts):
    """Take the rows of :func:`_point_arrays`: ``(buf, gf, xa, okf, sa, ca)``.

    Views taken without reference counting, for callers compiled without it (the trial loop
    and the blocks), whose caller holds ``pts``.
    """
    n = pts.shape[1] - _PTS_PAD
    return pts[0, :n], pts[1, :n], pts[2, :n], pts[3, :n], pts[4, :n], pts[5, :n]


@jit(_nrt=False, forceinline=True)
def _cost_rows(crs):
    """Take the rows of ``crs``: ``(cost, rot_c, rot_s)``.

    Each category's recovery cost and the cosine and sine of ``OMEGA`` times it (the phase
    turned across the recovery; :func:`_block_diurnal` allocates ``crs``, the trial loop fills
    it). Views without reference counting, as :func:`_point_rows`'.
    """
    return crs[0], crs[1], crs[2]


@jit(_nrt=False, forceinline=True)
def _table_rows(crs, ph):
    """Take the rows of ``crs`` (:func:`_cost_rows`) and ``ph`` (:func:`_phase_sums`).

    ``(cost, rot_c, rot_s, pw, prc, prs)``: views without reference counting.
    """
    cost, rot_c, rot_s = _cost_rows(crs)
    return cost, rot_c, rot_s, ph[0], ph[1], ph[2]


@jit(_nrt=False, forceinline=True)  # inlined by LLVM into its two callers below
def _diurnal_block_body(
    rng,
    i,
    buf,
    j,
    cnt,
    tab,
    t,
    s0,
    c0,
    big_l,
    big_a,
    inv_l,
    inv_hi,
    inv_lo,
    lam_geo,
    k_left,
    cost,
    rot_c,
    rot_s,
    prob_c,
    slot_c,
    alias_c,
    n_slots_c,
    kbuf_c,
    cbuf_c,
    ubuf_c,
    jk,
    interruptions,
    gf,
    xa,
    okf,
    wk,
    ji,
    restart_hours,
    tau,
    delta,
    persist,
    seg,
    inv_seg,
    acc,
    marks,
    sa,
    ca,
    jc,
    ubuf,
    pw,
    prc,
    prs,
    pick_mode,
    planned,
    m_left,
    inv_maint,
    maint_hours,
    m_stop,
    snap_steps,
    p_max,
):
    """Take the points of gaps ``buf[j:j + cnt]`` from a cycle's start at ``t``, by thinning.

    The gaps are those of one Poisson process of the diurnal intensity over all wall time
    (recoveries included): point ``q`` at integrated intensity ``G_q = g_j + .. + g_q`` from
    ``t``. A failure is the first point after the previous failure's recovery; points within a
    recovery are not failures (thinning a Poisson process by windows that each start at one of
    its points, so exact by its independent increments). The caller's bound ensures that no
    point here reaches the job's last segment, the wall cap or the event budget, and that each
    failure follows a restart of ``restart_hours``; ``s0``, ``c0``: the sine and cosine of the
    phase at ``t``. (1) The running sum ``G``; (2) every point's wall time ``X_q = F^-1(G_q)``,
    solved independently (:func:`_kepler_pass`, vectorised; the few it does not trust by
    :func:`_invert_diurnal`); (3) every point's exposure from the point before it, the exposures
    were no point within a recovery (a vectorised pass), into ``wk[0]`` (with ``marks`` or
    ``planned`` the pass in order writes them instead); (4) a pass in order
    over the failures whose recovery costs time only: categories are independent of the time, so
    whether a failure's recovery costs time is a coin of chance ``p`` (the costly categories'
    share of the rate) and the failures up to the next costly one are ``k_left``, geometric
    (:func:`_maint_countdown`, ``lam_geo = -log(1 - p)``; carried across blocks, memoryless);
    between two costly failures every point is a failure. A costly failure's category (among
    those: ``prob_c`` ..) and the countdown from it come from ``kbuf_c``, ``cbuf_c`` at ``jk``
    (drawn ``CBUF`` ahead by :func:`_costly_fill`; carried across blocks like the countdown, and
    by the caller from trial to trial while the draw stays); the others are counted (``n_zero``)
    and drawn by the caller per trial as one multinomial; the points within a costly recovery
    are marked -1 (not failures) and the first point after it is exposed from the recovery's
    end; (5) the exposures through the renewal path's block arithmetic
    (:func:`_block_map_marked`, the marks adding nothing, each failure at its point's position).
    Returns ``(k_left, jk, n_zero, t, dk_sum, sk, nr, n_fail, deficit, exposed, jc)``: the
    countdown and the next costly failure drawn ahead, the failures whose categories are left to
    the caller, the wall clock after the last failure's recovery, the block arithmetic's counts,
    the failures taken, the integrated intensity from the last point to the end of the last
    recovery (the caller skips it in the gaps that follow: the same process goes on), the
    failures' exposed hours and ``jc`` (with ``planned``: the wall clock at the end of the last
    event, a failure's recovery or a planned stop's downtime, the deficit to that end, and the
    wall hours less the failures' recovery hours in place of the exposed hours, unused).

    With ``marks`` the categories' shapes differ, so a failure's category depends on its
    time: the intensity is still one cosine (the categories' terms sum to one, ``big_a`` its
    amplitude), so the points are solved as above, with each point's sine and cosine of its
    phase (:func:`_kepler_pass_sc`); then every point's category is drawn at its phase
    (:func:`_pick_at_phase`, the loop one by one's inversion, from the same uniforms ``ubuf``
    at ``jc``, one a point) into ``ji`` (the Kepler pass's scratch, free by then), and the
    pass in order (4) takes every point that is not within a recovery as a failure of its
    category: the process of all categories with each point marked by its category's share
    of the intensity at that time, which is the categories' processes superposed. The marks
    are independent given the points' times, and whether a point is a failure depends only on
    the points and marks before it, so drawing a mark for every point (a point within a
    recovery leaves its mark unused) is the same process. Every category is counted here
    (``n_zero`` 0; ``k_left``, ``jk`` untouched).

    The marks drawn first, in a loop of their own (no branch there depends on a pick; the
    pass in order then has one, on a point within a recovery, rarely taken), the pass
    writing every failure's exposure (from the end of the last failure's recovery: that
    failure's own time when its recovery costs none, the same float as the gap from the point
    before it): the diurnal path with 18 peak hours at 100k GPUs 1.26x as fast as each pick
    made in the pass in order, whose branch on the picked category's recovery cost waited on
    the pick and was mispredicted at each costly failure (bench_ab, three processes: 1.309,
    1.264, 1.248; `perf` had the pick loop at 67 % of the block's samples).

    With ``planned`` (a constant at each call: planned maintenance on) the block runs through
    planned events: the pass in order (4) goes over every point (with one shape too, the
    countdown taken failure by failure), and where the exposed hours from the last event's
    end (a failure's recovery, or a planned stop's downtime) to a point exceed ``m_left``,
    those left to the next planned event (a homogeneous Poisson clock in exposed time), that
    event comes first, at ``m_left`` exposed hours into its cycle: during the restart
    (``m_left < restart_hours``) the restart's hours so far are lost and ``maint_hours`` of
    downtime follow; in the run the snapshots done, a fresh checkpoint of the progress reached
    (the partial segment's compute kept, its snapshot time so far spent) and the downtime,
    ``m_stop`` in all (:func:`_planned_stop`'s arithmetic, never at the job's last segment
    here); then the next planned event is drawn (``_gap(rng) * inv_maint``), the downtime's
    points are not failures (its window starts at a time the process's past decides, so
    thinning stays exact), and each failure counts the clock down by its exposed hours.
    Several planned events may fall in one gap. At most ``p_max`` a block: at one more the
    block ends before that point (``stop_t``; the caller's bound on the job's last segment
    allows ``p_max`` stops' partial segments, and its budget ``p_max`` events). The block's
    end may be a downtime that outlasts the points (the deficit from ``F`` at its end).
    The planned stops add their restart, checkpoint and progress hours and power steps
    (``snap_steps`` a snapshot, 2 a stop) to sums returned apart; the run arithmetic (5) takes
    the failures only, each a run from a restart (a planned stop's run is re-laid from the
    progress reached, so whole segments from there, as after a failure). Returns also
    ``(stop_t, m_left, n_pl, pl_restart, pl_ckpt, pl_prog, pl_steps)``: the end of the points
    taken, the clock left, the planned events and what they add (without ``planned``:
    ``stop``, ``m_left`` as it came, zeros).

    Measured with timers in place (100k GPUs, blocks of 200 failures, 10 % of them costly):
    the pass over the costly failures 2.7-2.9 ns a failure; the exposures compacted after it
    (instead of marks) cost 1.6 ns a failure, 0.9-1.0 branch-free; marks instead: the
    diurnal path 1.08x and 1.11x as fast (medians of five and three interleaved A/Bs).
    """
    e = big_a / big_l
    w_l = OMEGA / big_l
    k_amp = big_a / OMEGA
    phi0 = math.atan2(s0, c0)
    if phi0 < 0.0:
        phi0 += TWO_PI
    m0 = phi0 + e * s0
    tol0 = _X_RTOL * OMEGA * t
    stop = j + cnt
    big_s = 0.0
    for q in range(np.uint64(j), np.uint64(stop)):
        big_s += buf[q]
        gf[q] = big_s
    if marks:
        _kepler_pass_sc(gf, xa, okf, sa, ca, j, stop, m0, phi0, e, w_l, tol0, tab, wk, ji)
    else:
        _kepler_pass(gf, xa, okf, j, stop, m0, phi0, e, w_l, tol0, tab, wk, ji)
    if _count_zero(okf, j, stop) > 0:
        for q in range(j, stop):
            if okf[q] == 0.0:
                xa[q] = _solve_from(gf[q], s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t)
                if marks:
                    sa[q] = math.sin(phi0 + OMEGA * xa[q])
                    ca[q] = math.cos(phi0 + OMEGA * xa[q])
    # (3) each point's exposure from the point before it (from t for the first): every
    # point's, were none within a recovery (a vectorised pass; the same float expressions)
    ex = wk[0]
    if not (marks or planned):  # (with marks or planned events, the pass in order writes them)
        x = xa[j]
        ex[j] = x if x > 0.0 else 0.0
        for q in range(np.uint64(j + 1), np.uint64(stop)):
            x = xa[q] - xa[q - np.uint64(1)]
            ex[q] = x if x > 0.0 else 0.0
    # then the failures whose recovery costs time, in order: the k_left-th failure from here,
    # and from each such one the next after its countdown (between them every point is a
    # failure, none of them costing time); the points within its recovery are not failures
    # (marked -1: the run arithmetic adds nothing for them), the first after it is exposed
    # from its recovery's end
    n_costly = 0
    c_sum = 0.0  # the costly failures' recovery hours (not exposed)
    n_skip = 0
    c_open = -1  # the last failure's category when it costs time and its recovery outlasts
    p_c = 0  # the block's points, and that failure's point
    w_end = 0.0
    p = j + (k_left - 1)  # the next failure whose recovery costs time (point)
    stop_t = stop  # the points taken, j .. stop_t - 1 (fewer only with planned events)
    n_pl = 0  # planned events taken, and what their stops add
    pl_restart = 0.0
    pl_ckpt = 0.0
    pl_prog = 0.0
    pl_steps = 0
    down = False  # the last event a planned stop (its downtime outlasts the points)
    if marks:
        # every point's category drawn at its phase, into ji (the Kepler pass's scratch,
        # free now): a loop without a branch that depends on a pick; a point within a
        # recovery is not a failure and its category goes unused
        n_cat = interruptions.shape[1]
        if pick_mode != _PICK_SCAN:
            # eight picks at once (_pick_lanes) where eight points and eight uniforms are left
            # (the same uniforms as one by one: a refill where one by one would refill), else
            # one; the lanes stay within the arrays: qp + 8 <= stop (sa, ca, ji hold the
            # block's points) and jc + 8 <= CBUF
            head = pick_mode == _PICK_HEAD
            qp = j
            while qp < stop:
                if jc == CBUF:
                    _uniform_fill(rng, ubuf)
                    jc = 0
                if stop - qp >= 8 and jc <= CBUF - 8:
                    if head:
                        odd = _pick8_head(pw, prc, prs, sa, ca, ubuf, qp, jc, n_cat - 1, ji)
                    else:
                        odd = _pick8_all(pw, prc, prs, sa, ca, ubuf, qp, jc, n_cat - 1, ji)
                    if odd != 0:
                        _pick_fix(odd, pw, prc, prs, sa, ca, ubuf, qp, jc, n_cat, ji)
                    qp += 8
                    jc += 8
                else:
                    ji[qp], jc = _pick_at_phase(
                        rng, jc, ubuf, pw, prc, prs, sa[qp], ca[qp], n_cat, pick_mode
                    )
                    qp += 1
        else:
            for q in range(np.uint64(j), np.uint64(stop)):
                ji[q], jc = _pick_at_phase(
                    rng, jc, ubuf, pw, prc, prs, sa[q], ca[q], n_cat, _PICK_SCAN
                )
    if planned:
        # in order, with the planned events: where the exposed hours from the last event's
        # end to a point pass those left to the next planned event (``m_left``), that event
        # comes first (during the restart: the restart is lost; in the run: the snapshots
        # done and a fresh checkpoint of the progress reached), then its downtime, whose
        # points are not failures (as a recovery's), and the next planned event is drawn;
        # each failure counts that clock down by its exposed hours. At the ``p_max``-th
        # planned event more the block ends before the point (the caller's bound on the job's
        # last segment allows ``p_max`` stops' partial segments)
        k_cnt = k_left  # (one shape) failures up to and including the next costly one
        lim = -np.inf
        c_last = -1  # the last failure's category where known (one shape: a costly one's)
        one = np.uint64(1)
        qu = np.uint64(j)
        stop_u = np.uint64(stop)
        while True:
            # the failures up to the next planned event (a loop of their own: the planned
            # stop's arithmetic below, out of it, leaves it its registers)
            while qu < stop_u:
                xq = xa[qu]
                if xq < lim:
                    ex[qu] = -1.0  # a point within a recovery or a downtime: not a failure
                    n_skip += 1
                    qu += one
                    continue
                if m_left < xq - w_end:
                    break  # the next planned event comes first
                x = xq - w_end
                x = x if x > 0.0 else 0.0
                ex[qu] = x
                m_left -= x
                if marks:
                    c = ji[qu]
                    interruptions[i, c] += 1
                    cq = cost[c]
                else:
                    k_cnt -= 1
                    cq = 0.0
                    c = -1
                    if k_cnt == 0:
                        c, k_cnt, jk = _next_costly(
                            rng, jk, lam_geo, prob_c, slot_c, alias_c, n_slots_c, kbuf_c, cbuf_c,
                            ubuf_c,
                        )  # fmt: skip
                        interruptions[i, c] += 1
                        n_costly += 1
                        cq = cost[c]
                c_sum += cq
                w_end = xq + cq
                lim = w_end - 1e300 * (cq <= 0.0)  # (no branch: as in the pass below)
                c_last = c  # (the recovery left open decided after the loop: no branch here)
                p_c = int(np.int64(qu))
                down = False
                qu += one
            if qu >= stop_u:
                break
            # the planned events before point qu (several may fall in one gap); then the
            # loop above takes qu again (a point within the downtime is not a failure)
            xq = xa[qu]
            while m_left < xq - w_end:
                if n_pl == p_max:
                    stop_t = int(np.int64(qu))
                    break
                y = w_end + m_left
                e_m = m_left - restart_hours
                if e_m < 0.0:  # during the restart: lost, then the downtime
                    pl_restart += m_left
                    w_end = y + maint_hours
                else:
                    # (never the job's last segment here: last_start infinite)
                    ck, computed, steps = _stop_in_run(
                        e_m, 0, np.inf, 0.0, tau, seg, inv_seg, delta, persist, snap_steps
                    )
                    pl_restart += restart_hours
                    pl_ckpt += ck
                    pl_prog += computed
                    pl_steps += steps
                    w_end = y + m_stop
                n_pl += 1
                m_left = _gap(rng) * inv_maint
                lim = w_end
                down = True
            if stop_t < stop:
                break
        # the last failure's recovery outlasts the points unless a downtime came after it
        if not down and c_last >= 0 and cost[c_last] > 0.0:
            c_open = c_last
        p = stop + (k_cnt - 1)  # the countdown (with marks, as it came)
    elif marks:
        # then in order: every point not within a recovery is a failure, exposed from the
        # end of the last failure's recovery (``w_end``; the failure's own time when its
        # recovery costs none, so the exposure is the gap from the point before it); the
        # points before ``lim`` (the end of a costly recovery not yet passed) are not
        lim = -np.inf  # (w_end: 0.0, the block's start)
        for q in range(np.uint64(j), np.uint64(stop)):
            xq = xa[q]
            if xq < lim:
                ex[q] = -1.0  # a point within the recovery: not a failure
                n_skip += 1
                continue
            x = xq - w_end
            ex[q] = x if x > 0.0 else 0.0
            c = np.uint64(ji[q])
            interruptions[i, c] += 1
            cq = cost[c]
            c_sum += cq
            w_end = xq + cq
            # the recovery's end, or (no recovery) a bound below every point: as arithmetic,
            # not ``w_end if cq > 0.0 else -inf``, which compiled to a branch on the category
            # (taken at random, ~9 % of Llama 3's failures costing time): 1.08x on the path
            lim = w_end - 1e300 * (cq <= 0.0)
            p_c = int(np.int64(q))
        c_open = ji[p_c] if cost[ji[p_c]] > 0.0 else -1  # its recovery outlasts the points
        p = stop + (k_left - 1)  # no countdown here: k_left returned as it came
    while not marks and p < stop:  # (with marks, p >= stop: k_left >= 1 is not counted down)
        c, k_next, jk = _next_costly(
            rng, jk, lam_geo, prob_c, slot_c, alias_c, n_slots_c, kbuf_c, cbuf_c, ubuf_c
        )
        interruptions[i, c] += 1
        n_costly += 1
        c_sum += cost[c]
        w_end = xa[p] + cost[c]
        q = p + 1
        while q < stop and xa[q] < w_end:
            ex[q] = -1.0  # a point within the recovery: not a failure
            q += 1
        n_skip += q - (p + 1)
        if q == stop:
            c_open = c
            p_c = p
            p = stop + (k_next - 1)
            break
        x = xa[q] - w_end
        ex[q] = x if x > 0.0 else 0.0
        p = q + (k_next - 1)
    k_left = p - stop + 1  # failures up to and including the next costly one, from stop
    n_fail = (stop_t - j) - n_skip
    n_zero = 0 if marks else n_fail - n_costly
    if c_open < 0 and not planned:
        w_end = xa[stop - 1]  # the last point is a failure without a recovery time
    g_end = gf[stop_t - 1] if stop_t > j else 0.0  # the last point's integrated intensity
    deficit = 0.0
    if c_open >= 0:
        # the last recovery outlasts the block's points: its end in integrated intensity,
        # F(X + cost) - F(X) = L cost + (A / OMEGA) (sin(u + OMEGA cost) - sin u)
        g_c = gf[p_c]
        x_c = xa[p_c]
        if marks:
            sn = sa[p_c]
            cs = ca[p_c]
        else:
            _, ok, sn, cs = _kepler_step(g_c, m0, phi0, e, w_l, tol0, tab)
            if not ok:
                sn = math.sin(phi0 + OMEGA * x_c)
                cs = math.cos(phi0 + OMEGA * x_c)
        skip = _recovery_intensity(big_l, k_amp, cost[c_open], rot_c[c_open], rot_s[c_open], sn, cs)
        deficit = max((g_c + skip) - g_end, 0.0)
    elif down:
        # the last planned stop's downtime outlasts the points: its end's integrated intensity
        deficit = max(_cum_diurnal(w_end, s0, c0, big_l, k_amp) - g_end, 0.0)
    dk_sum, sk, nr = _block_map_marked(
        ex, j, stop_t, restart_hours, tau, delta, persist, seg, inv_seg, acc
    )
    return (
        k_left, jk, n_zero, t + w_end, dk_sum, sk, nr, n_fail, deficit, w_end - c_sum, jc,
        stop_t, m_left, n_pl, pl_restart, pl_ckpt, pl_prog, pl_steps,
    )  # fmt: skip


@jit(_nrt=False)
def _diurnal_block(
    rng,
    i,
    j,
    cnt,
    tab,
    t,
    s0,
    c0,
    big_l,
    big_a,
    inv_l,
    inv_hi,
    inv_lo,
    lam_geo,
    k_left,
    crs,
    prob_c,
    slot_c,
    alias_c,
    n_slots_c,
    kbuf_c,
    cbuf_c,
    ubuf_c,
    jk,
    interruptions,
    pts,
    wk,
    ji,
    restart_hours,
    tau,
    delta,
    persist,
    seg,
    inv_seg,
    acc,
    planned,
    m_left,
    inv_maint,
    maint_hours,
    m_stop,
    snap_steps,
    p_max,
):
    """:func:`_diurnal_block_body` with one shape for every category (no category at a phase).

    Its arguments and returns less those of the categories drawn at the phase (``jc`` returned
    as 0), with ``buf``, ``gf``, ``xa``, ``okf`` as rows of ``pts`` (:func:`_point_arrays`)
    and ``cost``, ``rot_c``, ``rot_s`` as rows of ``crs``. ``planned`` chooses between two
    bodies, each compiled with its constant, so that the trial loop has one call site a kind
    of block (with a call site of its own for blocks through planned events the path without
    maintenance read 0.95x, one peak hour at 100k GPUs, three interleaved A/Bs: ~20 % of the
    trial loop's samples were the copies of its arguments to the stack). A function of its
    own, so that a block's call carries none of them (with them, the diurnal path with planned
    maintenance at 16k GPUs, ~20 block calls a trial, read 0.945x in seven interleaved A/Bs;
    compiled without reference counting, 1.05x). Without reference counting it is for compiled
    callers: a call from Python leaves one reference to ``rng`` unreleased (numba's wrapper
    releases the Generator it unboxed only with reference counting on; the tests' few calls).
    """
    buf, gf, xa, okf, _, _ = _point_rows(pts)
    cost, rot_c, rot_s = _cost_rows(crs)
    if planned:  # (two bodies: the choice made once a block, each with its constant)
        return _diurnal_block_body(
            rng, i, buf, j, cnt, tab, t, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, lam_geo,
            k_left, cost, rot_c, rot_s, prob_c, slot_c, alias_c, n_slots_c, kbuf_c, cbuf_c,
            ubuf_c, jk, interruptions, gf, xa, okf, wk, ji, restart_hours, tau, delta, persist,
            seg, inv_seg, acc, False, gf, gf, 0, ubuf_c, cost, cost, cost, False, True, m_left,
            inv_maint, maint_hours, m_stop, snap_steps, p_max,
        )  # fmt: skip
    return _diurnal_block_body(
        rng, i, buf, j, cnt, tab, t, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, lam_geo,
        k_left, cost, rot_c, rot_s, prob_c, slot_c, alias_c, n_slots_c, kbuf_c, cbuf_c, ubuf_c,
        jk, interruptions, gf, xa, okf, wk, ji, restart_hours, tau, delta, persist, seg,
        inv_seg, acc, False, gf, gf, 0, ubuf_c, cost, cost, cost, False, False, m_left, inv_maint,
        maint_hours, m_stop, snap_steps, p_max,
    )  # fmt: skip


@jit(_nrt=False)
def _diurnal_block_marked(
    rng,
    i,
    j,
    cnt,
    tab,
    t,
    s0,
    c0,
    big_l,
    big_a,
    inv_l,
    inv_hi,
    inv_lo,
    k_left,
    crs,
    jk,
    interruptions,
    pts,
    wk,
    ji,
    restart_hours,
    tau,
    delta,
    persist,
    seg,
    inv_seg,
    acc,
    jc,
    ubuf,
    ph,
    pick_mode,
    planned,
    m_left,
    inv_maint,
    maint_hours,
    m_stop,
    snap_steps,
    p_max,
):
    """:func:`_diurnal_block_body` with every failure's category drawn at its phase.

    Its arguments less ``lam_geo`` and the costly failures' tables and buffers (``prob_c`` ..
    ``ubuf_c``), which a marked block never reads: its categories are drawn at their phases,
    and its countdown ``k_left`` (the trial's ``_NEVER``) is returned as it came, so the body
    gets placeholders of their types (its one compiled form, shared with
    :func:`_diurnal_block`'s). ``buf``, ``gf``, ``xa``, ``okf``, ``sa``, ``ca`` are rows of
    ``pts`` (:func:`_point_arrays`), ``cost``, ``rot_c``, ``rot_s`` of ``crs``, and ``pw``,
    ``prc``, ``prs`` of ``ph`` (:func:`_phase_sums`). A call passes numba's 5 + 2 ndim words
    an array: 9 arrays (77 words) where the body takes 24 (~176). The diurnal path with 18
    peak hours and planned maintenance at 100k GPUs (~34 block calls a trial): bench_ab's
    median over nine processes 1.02x, within the spread between processes. The placeholders
    (``ji``, ``ubuf``) are never read or written: were ``_next_costly`` reached with marks, it
    would overwrite them.

    Without reference counting, as :func:`_diurnal_block` (a call from Python leaves one
    reference to ``rng`` unreleased).
    """
    buf, gf, xa, okf, sa, ca = _point_rows(pts)
    cost, rot_c, rot_s, pw, prc, prs = _table_rows(crs, ph)
    if planned:
        return _diurnal_block_body(
            rng, i, buf, j, cnt, tab, t, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, 0.0,
            k_left, cost, rot_c, rot_s, ubuf, ji, ji, 0, ji, ji, ubuf, jk, interruptions, gf, xa,
            okf, wk, ji, restart_hours, tau, delta, persist, seg, inv_seg, acc, True, sa, ca, jc,
            ubuf, pw, prc, prs, pick_mode, True, m_left,
            inv_maint, maint_hours, m_stop, snap_steps, p_max,
        )  # fmt: skip
    return _diurnal_block_body(
        rng, i, buf, j, cnt, tab, t, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, 0.0, k_left,
        cost, rot_c, rot_s, ubuf, ji, ji, 0, ji, ji, ubuf, jk, interruptions, gf, xa, okf, wk,
        ji, restart_hours, tau, delta, persist, seg, inv_seg, acc, True, sa, ca, jc, ubuf, pw,
        prc, prs, pick_mode, False, m_left, inv_maint,
        maint_hours, m_stop, snap_steps, p_max,
    )  # fmt: skip


@jit(_nrt=False, forceinline=True)
def _pick_at_phase(rng, jc, ubuf, pw, prc, prs, s1, c1, n_cat, pick_mode):
    """Draw a failure's category at a phase of sine ``s1``, cosine ``c1``: ``(c, jc)``.

    Inversion over the categories' intensities at the phase, one uniform a pick (exact up
    to the rounding of the running sums, ~1e-16 of a share):
    ``lambda_c = w_c + rc_c cos - rs_c sin`` (``rc``, ``rs``: the category's diurnal term
    turned into the frame of the phase), and ``pw``, ``prc``, ``prs`` the sums of ``w``,
    ``rc``, ``rs`` over the categories up to ``c``, so that ``P_c = pw_c + prc_c cos - prs_c
    sin`` is the intensity of categories ``0..c``; the category is the first ``c`` with ``P_c >
    u P_last`` (a scan in the categories' order, ending early: Llama 3's are listed by count,
    ~3.5 looks a pick). A category whose running sum does not rise (rate 0) is never taken
    (strict ``>``); should no sum exceed ``u P_last`` (a total intensity of 0 at the phase, in
    rounding), the last category whose sum rises (:func:`_pick_last`). The uniforms are drawn
    ahead (``ubuf`` from ``jc``, refilled ``CBUF`` at a time). Called per failure (in a block,
    :func:`_diurnal_block_body`, per point where fewer than eight points or uniforms are left
    and in the scan's mode; :func:`_pick_lanes` takes eight at once otherwise, the same
    categories) with the Generator, so compiled without reference counting (with it, ~50 ns
    more a pick on this host) and inlined by LLVM.

    ``pick_mode`` (:func:`_pick_mode`; ``_PICK_SCAN`` the scan above): where
    :func:`_sums_rise` holds for the sums (every ``P_c``, as computed, is at least
    ``P_(c-1)`` at every phase), the first ``c`` with ``P_c > u P_last`` is the number of
    ``c`` with ``P_c <= u P_last``, compared without a branch, eight at a time
    (:func:`_count_sums`; the tables hold ``_PICK_W`` entries, ``P = inf`` past the ``n_cat``
    categories), the same category as the scan's. The scan's exit is a branch no predictor
    learns (the category is random): timed alone, ~21 ns a scan of Llama 3's 18 categories
    against ~5 ns a count; the diurnal path with 18 peak hours at 100k GPUs 1.15x as fast
    (bench_ab, three processes). ``_PICK_COUNT`` compares all ``_PICK_W``
    (:func:`_pick_counted`); ``_PICK_HEAD`` the first ``_PICK_HEAD_W``, and counts all of
    them only where all of those are at most the target (the sums at or below it are a
    prefix, so otherwise none of the rest is) or the count passes the last category: Llama 3's last
    two categories hold 1 % of the intensity, so the branch is rarely taken, and the diurnal
    path with 18 peak hours at 100k GPUs ran 1.044x as fast (bench_ab, the median of three
    processes: 1.021, 1.060, 1.044; outputs equal). With the same categories listed rarest
    first (``diurnal18_rev``: the commonest two past the sixteenth) the head first measured
    0.652x, so :func:`_pick_mode` counts all at once there.
    """
    if jc == CBUF:
        _uniform_fill(rng, ubuf)
        jc = 0
    u = ubuf[jc]
    jc += 1
    if pick_mode == _PICK_SCAN:
        target = _pick_target(u, pw, prc, prs, s1, c1, n_cat)
        for c in range(n_cat):
            if pw[c] + prc[c] * c1 - prs[c] * s1 > target:
                return c, jc
        return _pick_last(pw, prc, prs, s1, c1, n_cat), jc
    if pick_mode == _PICK_HEAD:
        k = _count_head(pw, prc, prs, s1, c1, _pick_target(u, pw, prc, prs, s1, c1, n_cat))
        if k < _PICK_HEAD_W and k < n_cat:
            return k, jc
    return _pick_counted(u, pw, prc, prs, s1, c1, n_cat), jc


@jit(_nrt=False, forceinline=True)
def _pick_target(u, pw, prc, prs, s1, c1, n_cat):
    """Return a pick's target at a phase, ``u P_last`` (:func:`_pick_at_phase`)."""
    last = n_cat - 1
    return u * (pw[last] + prc[last] * c1 - prs[last] * s1)


@jit(_nrt=False, forceinline=True)
def _pick_counted(u, pw, prc, prs, s1, c1, n_cat):
    """:func:`_pick_at_phase`'s pick of uniform ``u`` by a count of all ``_PICK_W`` sums.

    The count of sums at most the target (:func:`_count_at_most`), else, where it passes the
    last category, :func:`_pick_last`: the pick of the count modes where the first
    ``_PICK_HEAD_W`` sums do not settle it, and of :func:`_pick_fix`'s lanes.
    """
    k = _count_at_most(pw, prc, prs, s1, c1, _pick_target(u, pw, prc, prs, s1, c1, n_cat))
    return k if k < n_cat else _pick_last(pw, prc, prs, s1, c1, n_cat)


def _count_sums(first, n_chunks):
    """Return an intrinsic counting the sums of chunks ``first .. first + n_chunks - 1``.

    Eight sums a chunk. ``_count_at_most`` all ``_PICK_W``, ``_count_head`` the first
    ``_PICK_HEAD_W`` (:func:`_pick_at_phase`).
    """

    @intrinsic
    def _count_at_most(typingctx, pw, prc, prs, s1, c1, target):
        """How many of :func:`_pick_at_phase`'s sums in the chunks are at most ``target``.

        ``P_c = pw_c + prc_c c1 - prs_c s1``, eight at a time in vector registers, with the float
        operations of the scalar ``pw[c] + prc[c] * c1 - prs[c] * s1 <= target`` (a product, a
        sum and a difference, each rounded; no fused multiply-add), so the same count. Written in
        LLVM's vector form: numba's pipeline unrolls a loop of a constant count one sum at a time
        before its vectoriser sees it (~18 ns a count of 24 compiled so, ~5 ns vectorised). The
        comparisons' bits are gathered into one ``_PICK_W``-bit integer and counted at once
        (``ctpop``: AVX-512's mask registers and ``popcnt`` where the host has them; AVX2 hosts
        split each eight-wide operation in two) instead of summed lane by lane: with the marks
        drawn in a loop of their own, the diurnal path with 18 peak hours at 100k GPUs 1.07x as
        fast as with four lanes summed (bench_ab, three processes: 1.069, 1.078, 1.054; outputs
        equal, the two measured together). The arrays hold ``_PICK_W`` entries at least
        (:func:`_phase_sums`).
        """
        f8 = types.float64
        if not all(
            isinstance(a, types.Array) and a.dtype == f8 and a.ndim == 1 and a.layout == "C"
            for a in (pw, prc, prs)
        ):
            return None
        lanes = 8
        assert _PICK_W % lanes == 0  # every sum in a chunk
        vec = ir.VectorType(ir.DoubleType(), lanes)

        def codegen(context, builder, signature, args):
            data = [
                context.make_array(signature.args[k])(context, builder, args[k]).data
                for k in range(3)
            ]

            def splat(x):
                v = ir.Constant(vec, ir.Undefined)
                for lane in range(lanes):
                    v = builder.insert_element(v, x, ir.Constant(ir.IntType(32), lane))
                return v

            sv, cv, tv = (
                splat(context.cast(builder, args[k], signature.args[k], f8)) for k in (3, 4, 5)
            )
            bits = ir.IntType(_PICK_W)
            mask = ir.Constant(bits, 0)
            for chunk in range(first, first + n_chunks):
                at = ir.Constant(ir.IntType(64), chunk * lanes)

                def load(ptr, at=at):
                    return builder.load(
                        builder.bitcast(builder.gep(ptr, [at]), vec.as_pointer()), align=8
                    )

                w, rc, rs = (load(ptr) for ptr in data)
                v = builder.fsub(builder.fadd(w, builder.fmul(rc, cv)), builder.fmul(rs, sv))
                m = builder.bitcast(builder.fcmp_ordered("<=", v, tv), ir.IntType(lanes))
                m = builder.shl(builder.zext(m, bits), ir.Constant(bits, (chunk - first) * lanes))
                mask = builder.or_(mask, m)
            return builder.zext(builder.ctpop(mask), ir.IntType(64))

        return types.int64(pw, prc, prs, s1, c1, target), codegen

    return _count_at_most


_count_at_most = _count_sums(0, _PICK_W // 8)
_count_head = _count_sums(0, _PICK_HEAD_W // 8)


def _pick_lanes(n_sums):
    """Return an intrinsic drawing eight picks at their phases at once, over the picks.

    :func:`_pick_at_phase`'s count of the first ``n_sums`` sums, vectorised over the picks
    instead of the sums.

    ``_pick8(pw, prc, prs, sa, ca, ubuf, q, jc, last, ji)``: the picks of points ``q .. q + 7``
    at the phases ``sa[q + l]``, ``ca[q + l]``, with the uniforms ``ubuf[jc + l]`` (the eight
    :func:`_pick_at_phase` would take one by one, none refilled between them). Each lane's
    target ``u (P_last)`` and each sum ``P_c = pw_c + prc_c cos - prs_c sin`` with the scalar's
    float operations (a product, a sum and a difference, each rounded; no fused multiply-add),
    so the same comparisons; the lane's count of ``P_c <= target`` over ``c < n_sums`` is
    stored in ``ji[q + l]``. Returns a bit a lane whose count is ``n_sums`` or past ``last``
    (``n_cat - 1``): its pick needs the sums past the first ``n_sums`` or :func:`_pick_last`
    (:func:`_pick_fix`), a lane rarely set where the first ``n_sums`` hold all but a small
    share of the intensity (``_PICK_HEAD``) and, counting all ``_PICK_W``, only where no sum
    exceeds the target. Per sum and eight picks: two products, a sum, a difference, a
    comparison and an add, against :func:`_count_sums`' broadcasts, loads and mask
    gathering per pick (about 45 instructions a pick there). The diurnal path at 100k GPUs
    (bench_ab, medians of three processes, outputs equal): 18 peak hours 1.072x as fast,
    with planned maintenance 1.067x, shapes per draw 1.064x, listed rarest first (all 24
    sums) 1.051x; one peak hour (no picks at a phase) 0.994x.
    """

    @intrinsic
    def _pick8(typingctx, pw, prc, prs, sa, ca, ubuf, q, jc, last, ji):
        f8 = types.float64
        if not (
            all(
                isinstance(a, types.Array) and a.dtype == f8 and a.ndim == 1 and a.layout == "C"
                for a in (pw, prc, prs, sa, ca, ubuf)
            )
            and isinstance(ji, types.Array)
            and ji.dtype == types.int64
            and ji.ndim == 1
            and ji.layout == "C"
        ):
            return None
        lanes = 8
        i64 = ir.IntType(64)
        vec = ir.VectorType(ir.DoubleType(), lanes)
        ivec = ir.VectorType(i64, lanes)

        def codegen(context, builder, signature, args):
            sig = signature.args
            ptr = {
                k: context.make_array(sig[k])(context, builder, args[k]).data
                for k in (0, 1, 2, 3, 4, 5, 9)
            }
            q_, jc_, last_ = (
                context.cast(builder, args[k], sig[k], types.int64) for k in (6, 7, 8)
            )

            def splat(x, v=vec):
                out = ir.Constant(v, ir.Undefined)
                for lane in range(lanes):
                    out = builder.insert_element(out, x, ir.Constant(ir.IntType(32), lane))
                return out

            def load8(p, at, v=vec):
                return builder.load(builder.bitcast(builder.gep(p, [at]), v.as_pointer()), align=8)

            def scalar(k, c):
                return builder.load(builder.gep(ptr[k], [c]))

            sv, cv, uv = load8(ptr[3], q_), load8(ptr[4], q_), load8(ptr[5], jc_)

            def sums(c):
                w, rc, rs = (splat(scalar(k, c)) for k in range(3))
                return builder.fsub(builder.fadd(w, builder.fmul(rc, cv)), builder.fmul(rs, sv))

            target = builder.fmul(uv, sums(last_))
            k = ir.Constant(ivec, None)
            for c in range(n_sums):
                le = builder.fcmp_ordered("<=", sums(ir.Constant(i64, c)), target)
                k = builder.add(k, builder.zext(le, ivec))
            builder.store(k, builder.bitcast(builder.gep(ptr[9], [q_]), ivec.as_pointer()), align=8)
            odd = builder.or_(
                builder.icmp_signed("==", k, splat(ir.Constant(i64, n_sums), ivec)),
                builder.icmp_signed(">", k, splat(last_, ivec)),
            )
            return builder.zext(builder.bitcast(odd, ir.IntType(lanes)), i64)

        return types.int64(pw, prc, prs, sa, ca, ubuf, q, jc, last, ji), codegen

    return _pick8


_pick8_head = _pick_lanes(_PICK_HEAD_W)
_pick8_all = _pick_lanes(_PICK_W)


@jit(_nrt=False, forceinline=False)  # out of line: rarely called
def _pick_fix(odd, pw, prc, prs, sa, ca, ubuf, q, jc, n_cat, ji):
    """Draw the picks of :func:`_pick_lanes`' lanes in ``odd`` (bits) as :func:`_pick_at_phase`.

    A count of all ``_PICK_W`` sums, else :func:`_pick_last` (:func:`_pick_counted`). Out of
    line: rarely called.
    """
    for lane in range(8):
        if (odd >> lane) & 1:
            ji[q + lane] = _pick_counted(
                ubuf[jc + lane], pw, prc, prs, sa[q + lane], ca[q + lane], n_cat
            )


@jit
def _phase_sums(n_cat):
    """``pw``, ``prc``, ``prs`` of :func:`_pick_at_phase` for ``n_cat`` categories: rows 0-2.

    At least ``_PICK_W`` entries; those past the categories' ``P = inf`` (never below a
    target), so a count over ``_PICK_W`` counts the categories' alone. One array, so that a
    marked block's call carries one array's fields for the three (:func:`_point_arrays`).
    """
    n = max(n_cat, _PICK_W)
    ph = np.zeros((3, n))
    ph[0] = np.inf
    return ph


@jit(_nrt=False)
def _sums_rise(pw, prc, prs, n_cat):
    """Whether every ``P_c`` of :func:`_pick_at_phase`, as computed, is >= ``P_(c-1)``.

    At a phase ``(s1, c1)``: ``P_c - P_(c-1) = dw + dc c1 - ds s1`` (``dw``, ``dc``, ``ds`` the
    differences of the tables' entries) is at least ``dw - hypot(dc, ds) hypot(c1, s1)``.
    The phase the diurnal path passes is not always a fresh sine and cosine: the loop one by
    one carries it by rotations across recoveries and solves, refreshed every ``_REFRESH``
    failures, and its norm drifts from 1 (measured up to 7e-15; a test holds it below
    1e-13): ``hypot(c1, s1) <= 1 + _NORM_SLACK``, 1e-12. Each ``P`` is computed with an
    error below ``3 u M`` (``u = 2^-53``, ``M`` the largest ``|pw| + |prc| + |prs|``), and
    the differences and the hypot here within a few ``u M`` more. So the computed sums never
    fall where ``dw - hypot(dc, ds) (1 + _NORM_SLACK) > 64 u M`` for every ``c`` whose
    entries differ from ``c - 1``'s (equal entries give equal sums, exactly); with ties, the
    sums at or below a target are still a prefix. False otherwise (amplitudes of 1, or
    within ~1e-12 of it, where a category's intensity reaches 0): :func:`_pick_at_phase`
    then scans. Also false for more than ``_PICK_W`` categories, and for tables of fewer
    than ``_PICK_W`` entries (the counts read that many, :func:`_count_sums`: :func:`_phase_sums`).
    """
    if n_cat > _PICK_W or min(pw.shape[0], prc.shape[0], prs.shape[0]) < _PICK_W:
        return False
    big_m = 0.0
    for c in range(n_cat):
        big_m = max(big_m, abs(pw[c]) + abs(prc[c]) + abs(prs[c]))
    margin = 64.0 * 2.0**-53 * big_m
    for c in range(1, n_cat):
        dw = pw[c] - pw[c - 1]
        dc = prc[c] - prc[c - 1]
        ds = prs[c] - prs[c - 1]
        if dw == 0.0 and dc == 0.0 and ds == 0.0:
            continue
        if not dw - math.hypot(dc, ds) * (1.0 + _NORM_SLACK) > margin:
            return False
    return True


@jit(_nrt=False)
def _pick_mode(pw, prc, prs, n_cat):
    """How :func:`_pick_at_phase` finds a category from these sums: a ``_PICK_*`` mode.

    A scan where :func:`_sums_rise` does not hold; else a count, of the first
    ``_PICK_HEAD_W`` sums first where the categories after them hold at most
    ``_PICK_TAIL_SHARE`` of the mean intensity (``pw``; the cosine terms average to 0 over a
    day), so that the rest is counted only where all of those are at most the target, a branch
    rarely taken; else of all ``_PICK_W`` at once (with most of the intensity past the first
    ``_PICK_HEAD_W``, the branch would be taken at random). Every mode gives the same category.
    """
    if not _sums_rise(pw, prc, prs, n_cat):
        return _PICK_SCAN
    if n_cat <= _PICK_HEAD_W:
        return _PICK_HEAD
    total = pw[n_cat - 1]
    if total - pw[_PICK_HEAD_W - 1] <= _PICK_TAIL_SHARE * total:
        return _PICK_HEAD
    return _PICK_COUNT


@jit(_nrt=False, forceinline=True)
def _pick_last(pw, prc, prs, s1, c1, n_cat):
    """Return the last category whose running sum rises at the phase (else 0)."""
    c = n_cat - 1
    hi = pw[c] + prc[c] * c1 - prs[c] * s1
    while c > 0:
        lo = pw[c - 1] + prc[c - 1] * c1 - prs[c - 1] * s1
        if hi > lo:
            return c
        hi = lo
        c -= 1
    return 0


@jit(_nrt=False)
def _uniform_fill(rng, ubuf):
    """Fill ``ubuf[:CBUF]`` with uniforms on [0, 1) (:func:`_pick_at_phase`'s refill)."""
    _uniforms(rng, ubuf, CBUF)


@jit(inline="always")
def _recovery_intensity(big_l, k_amp, cost, rot_c, rot_s, sn, cs):
    """``F(X + cost) - F(X)``, the integrated intensity over a recovery from a failure at ``X``.

    ``L cost + (A / OMEGA) (sin(u + OMEGA cost) - sin u)`` with ``sn``, ``cs`` the sine and
    cosine of the phase ``u`` at ``X`` and ``rot_c``, ``rot_s`` those of ``OMEGA cost``.
    """
    return big_l * cost + k_amp * (sn * (rot_c - 1.0) + cs * rot_s)


@jit(_nrt=False)
def _count_zero(a, j0, stop):
    """How many of ``a[j0:stop]`` are 0.0 (a vectorised sum)."""
    n = 0
    for q in range(np.uint64(j0), np.uint64(stop)):
        n += 1 if a[q] == 0.0 else 0
    return n


@jit(_nrt=False, forceinline=True)
def _block_count(buf, j, room, slack, inv_l, lim, need):
    """How many of the gaps ``buf[j:j + room]`` a diurnal block may take (at most ``room``).

    The longest run whose bound on the wall time of its last point, ``(G_up + slack) / L``
    with ``G_up`` the integer-sum bound on the gaps' sum (:func:`_gap_bound`), is at most
    ``lim``, times ``1 + _BOUND_RTOL``; 0 when that is fewer than ``need`` (the caller takes
    no block then). The bound grows with the run, so the first ``need`` gaps are tested
    first (near the job's end most calls stop there), then all ``room`` at once (a
    vectorised sum, the same float expression), then, if they do not all fit, 16 at a time
    and gap by gap (:func:`_block_count_rest`). The first test is inlined in the trial loop:
    near the job's end it is tried before every failure taken one by one.
    """
    if room < need or room <= 0:
        return 0
    if need > 0:
        if (_gap_bound(buf, j, j + need, 1.0) + slack) * inv_l * (1.0 + _BOUND_RTOL) > lim:
            return 0
    return _block_count_rest(buf, j, room, slack, inv_l, lim)


@jit(_nrt=False)
def _block_count_rest(buf, j, room, slack, inv_l, lim):
    """:func:`_block_count` after its first test: all ``room`` gaps, else the longest run."""
    if (_gap_bound(buf, j, j + room, 1.0) + slack) * inv_l * (1.0 + _BOUND_RTOL) <= lim:
        return room
    # the integer sum over chunks of _COUNT_CHUNK gaps (vectorised) while the bound at the
    # chunk's end holds, then gap by gap within the first chunk where it does not: the same
    # integer sums, so the same count as gap by gap from the start
    cnt = 0
    s_int = 0
    while cnt + _COUNT_CHUNK <= room:
        s_c = 0
        for q in range(np.uint64(j + cnt), np.uint64(j + cnt + _COUNT_CHUNK)):
            s_c += int(np.int32(buf[q] * UP_SCALE))
        s_next = s_int + s_c + _COUNT_CHUNK
        if (s_next * (1.0 / UP_SCALE) + slack) * inv_l * (1.0 + _BOUND_RTOL) > lim:
            break
        s_int = s_next
        cnt += _COUNT_CHUNK
    while cnt < room:
        s_int += int(np.int32(buf[j + cnt] * UP_SCALE)) + 1
        if (s_int * (1.0 / UP_SCALE) + slack) * inv_l * (1.0 + _BOUND_RTOL) > lim:
            break
        cnt += 1
    return cnt


@jit
def diurnal_applies(maint_rate, n_spares, swap, amp_on, other_varying, uncertain):
    """Whether the diurnal path applies: the renewal configuration with diurnal rates.

    Planned maintenance at any rate, recovery a per-category constant (unlimited spares or no
    swaps), no uncertain overheads, a diurnal amplitude > 0 somewhere (``amp_on``: the single
    values or any draw's) and no other time variation (``other_varying``: a trend shape != 1 in the
    single value or any draw, a throughput cycle, periodic profiles). The node model and
    straggler/SDC categories are decided before (:func:`simulate_block`).
    """
    if not amp_on or other_varying or uncertain:
        return False
    return renewal_applies(maint_rate, n_spares, swap)


@jit(_nrt=False)  # indexes arrays only: no reference counting
def _diurnal_trials(
    rng, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, fleet_age_hours, draw_amp, draw_phase, kepler_table, kepler_e,
    kepler_grid, wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
    use_blocks, stats, no_profile, no_max, w, suffix, crs, prob, slot_code, alias_code, bw, ph,
    small, large, pc, ps, amp_i, phase_i, cbuf, ubuf, uscr, kbuf_c, cbuf_c, ubuf_c, scratch,
    tab_own, wk, ji, pts, w_c, w_z, suffix_z, prob_c, slot_c, alias_c, prob_z, slot_z, alias_z,
    acc, no_trend, cos_a, sin_a,
):  # fmt: skip
    """Run the trial loop of :func:`_block_diurnal`, given its work arrays.

    Apart because it only indexes arrays: compiled without reference counting, so that the
    arrays passed to the per-trial and per-block calls (:func:`_diurnal_block` takes thirteen,
    :func:`_settle_categories` ten, :func:`_reset_trial` four) are not referenced and released
    around each call: numba's ``NRT_incref`` and ``NRT_decref`` were 5.5 % of the samples of
    the diurnal path at 2k GPUs (``perf record``), none since.
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    # the rows of the work arrays passed to the blocks as one (so a block's call carries one
    # array's fields for each): a recovery's cost and its phase turn, the picks' sums, the
    # block's per-point arrays (its gaps among them)
    cost, rot_c, rot_s, pw, prc, prs = _table_rows(crs, ph)
    buf = _point_rows(pts)[0]
    j = _DIURNAL_BUF
    max_cost = 0.0
    for c in range(n_cat):
        cost[c] = detect_hours[c] + (swap_hours if swap[c] else 0.0)
        max_cost = max(max_cost, cost[c])
        rot_c[c] = math.cos(OMEGA * cost[c])
        rot_s[c] = math.sin(OMEGA * cost[c])
    seg = tau + delta
    inv_seg = 1.0 / seg
    seg_up = inv_seg * (1.0 + _BOUND_RTOL)  # segments per hour of a bound, rounded up
    n_seg0, r0 = _segments(work_hours, tau)
    tail0 = r0 + delta + persist
    snap_steps = 2 if delta > 0.0 else 0
    cap_safe = cap_hours * (1.0 - _BOUND_RTOL)
    m_on = maint_rate > 0.0
    inv_maint = 1.0 / maint_rate if m_on else np.inf
    m_stop = delta + persist + maint_hours  # a planned stop in a run: checkpoint and downtime
    # the most a cycle (restart, run, its event) can add beyond the run: a recovery, or a
    # planned stop
    bound_cost = max(max_cost, m_stop) if m_on else max_cost
    per_shape = draw_amp.shape[0] > 0 or draw_phase.shape[0] > 0
    tab = tab_own
    e_tab = -1.0
    _trial_shape(draw_amp, draw_phase, no_trend, 0, cat_amp, cat_phase, 1.0, amp_i, phase_i)
    _diurnal_angles(phase_i, start_hour, cos_a, sin_a)
    # what depends on the draw alone (its rates, intensity and tables), kept while the next
    # trials use the same draw (with point rates, every trial) and the same shape
    d_prev = -1
    fail_rate = 0.0
    big_a_d = 0.0
    theta = 0.0
    shared = False
    pick_mode = _PICK_SCAN  # how a pick at a phase finds its category (_pick_mode)
    n_slots = 0
    settle = False
    c_first = -1
    fast_d = False
    room_d = _DIURNAL_BUF  # the points a block takes at most (planned events: see below)
    costly = 0.0
    n_slots_c_d = 0
    lam_geo_d = 0.0
    n_slots_z = 0
    # drawn ahead, carried from trial to trial while the draw stays (where blocks apply to
    # it): the blocks' costly failures (jk) and the categories or the picks' uniforms (jc)
    jk = CBUF
    jc = CBUF
    for i in range(n_trials):
        d = draw_of_trial[i]
        if d != d_prev:
            # what was drawn ahead from the last draw's tables is not this draw's
            jk = CBUF
            jc = CBUF
        if per_shape:
            _trial_shape(draw_amp, draw_phase, no_trend, d, cat_amp, cat_phase, 1.0, amp_i, phase_i)
            _diurnal_angles(phase_i, start_hour, cos_a, sin_a)
        if per_shape or d != d_prev:
            d_prev = d
            fail_rate, zr, zi, big_a_d = _draw_intensity(
                cat_rate, d, w, suffix, amp_i, cos_a, sin_a, pc, ps
            )
            theta = math.atan2(zi, zr)
            shared = _same_shape(amp_i, phase_i)
            n_slots = _build_alias(w, n_cat, prob, slot_code, alias_code, small, large)
            settle = shared  # categories at the end: shared shape and one recovery cost
            c_first = -1
            for c in range(n_cat):
                if w[c] > 0.0:
                    if c_first < 0:
                        c_first = c
                    elif cost[c] != cost[c_first]:
                        settle = False
            if not shared:
                # the terms turned by -theta: w a cos(ang - theta) = pc cos theta + ps sin
                # theta, by angle subtraction from the terms' own cosines and sines (no cosine
                # and sine per category and draw: ~0.5 us a draw with 18 categories)
                ct = zr / big_a_d if big_a_d > 0.0 else 1.0
                st = zi / big_a_d if big_a_d > 0.0 else 0.0
                sum_w = 0.0
                sum_c = 0.0
                sum_s = 0.0
                for c in range(n_cat):
                    bw[c] = w[c] * (1.0 + amp_i[c])
                    sum_w += w[c]
                    sum_c += pc[c] * ct + ps[c] * st
                    sum_s += ps[c] * ct - pc[c] * st
                    pw[c] = sum_w
                    prc[c] = sum_c
                    prs[c] = sum_s
                pick_mode = _pick_mode(pw, prc, prs, n_cat)
            # the block of failures applies with planned events off or not over four times as
            # frequent as failures (below), and recoveries of cost 0 (a settled category's) or
            # mostly 0 (the points within costlier ones are thinned out)
            costly = 0.0
            recovering = 0.0  # points per hour of the process times the hours of a recovery
            for c in range(n_cat):
                if cost[c] > 0.0:
                    costly += w[c]
                    recovering += w[c] * cost[c]
            fast_d = costly <= 0.5 * fail_rate
            # an amplitude per draw (shapes per draw, or shapes that differ with rates per
            # draw): the blocks read the nearest of the inputs' reference tables; without
            # them (inputs not built by KernelInputs) no blocks
            fast_d = fast_d and (
                not (per_shape or (not shared and cat_rate.shape[0] > 1))
                or kepler_grid.shape[0] > 0
            )
            # with planned maintenance: blocks run through planned events where there are
            # at least _DIURNAL_PLANNED_RATIO failures per planned event on average, and take
            # at most the points in which twice _DIURNAL_PLANNED_MAX planned events are
            # expected (a block ends at its _DIURNAL_PLANNED_MAX-th: its points beyond are
            # solved for nothing); with more frequent planned events the loop's refills,
            # draws and outputs stay as they were
            fast_d = fast_d and fail_rate >= _DIURNAL_PLANNED_RATIO * maint_rate
            room_d = _DIURNAL_BUF
            if m_on:
                room_d = int(
                    math.ceil(min(2.0 * _DIURNAL_PLANNED_MAX * fail_rate * inv_maint, room_d))
                )
            # the blocks' points within recoveries (not failures): at most one expected per
            # failure at the peak intensity (the work thinned out; exact either way); with
            # shapes that differ, at each category's own peak (its bound)
            if shared:
                fast_d = fast_d and recovering * (1.0 + amp_i[c_first]) <= 1.0
            else:
                peak_rec = 0.0
                for c in range(n_cat):
                    peak_rec += bw[c] * cost[c]
                fast_d = fast_d and peak_rec <= 1.0
            # blocks: the failures up to the next one whose recovery costs time are
            # geometric (lam_geo), those of categories without cost drawn at the trial's end
            # (one shape only: else each failure's category is drawn at its phase)
            n_slots_c_d = 0
            lam_geo_d = 0.0
            if fast_d and shared and fail_rate > 0.0 and costly > 0.0 and not settle:
                for c in range(n_cat):
                    w_c[c] = w[c] if cost[c] > 0.0 else 0.0
                    w_z[c] = 0.0 if cost[c] > 0.0 else w[c]
                n_slots_c_d = _build_alias(w_c, n_cat, prob_c, slot_c, alias_c, small, large)
                lam_geo_d = -math.log1p(-costly / fail_rate)
                # the others' multinomial at a trial's end: its suffix sums and alias table
                s_z = 0.0
                for c in range(n_cat - 1, -1, -1):
                    s_z += w_z[c]
                    suffix_z[c] = s_z
                n_slots_z = _build_alias(w_z, n_cat, prob_z, slot_z, alias_z, small, large)
        big_a = big_a_d
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        if fail_rate == 0.0:
            # no failures: planned events alone (modulated, drawn apart), or nothing
            t, p, done, events = _trial_general(
                rng, i, prob, slot_code, alias_code, n_slots, 0.0, 0.0,
                detect_hours, swap, maint_hours, work_hours, tau, delta, persist, restart_hours,
                swap_hours, n_spares, repair_hours, cap_hours, max_events,
                0.0, 0.0, n_seg0, r0, 0, 0.0, NO_GAP, NO_GAP, interruptions, maint_events, lost,
                swings, m_on, w, pc, ps, start_hour, 1.0, 1.0, maint_rate, 0.0, 0.0, False,
                0.0, 0.0, 0.0, 0.0, no_profile, no_max, no_max, 0.0,
            )  # fmt: skip
            wall[i] = t
            finished[i] = done
            progress[i] = p
            n_events[i] = events
            continue
        fast = fast_d
        # where the buffer's refill starts: all of it with blocks, else its last BUF
        # positions (the loop's refills as they always were)
        j_fill = 0 if fast else _DIURNAL_BUF - BUF
        used_acc = False
        # blocks: failures up to the next one whose recovery costs time (k_left), and those of
        # categories without cost taken so far (n_zero, drawn at the trial's end)
        lam_geo = 0.0
        k_left = _NEVER
        n_slots_c = 0
        n_zero = 0
        # the solve one by one steps from the table too: with one shape for every category
        # (and not per draw), and with shapes that differ where the summed intensity's
        # amplitude has a table (point rates: one a run; rates per draw: the nearest
        # reference table). Its intensity is one cosine either way (L + A cos)
        tab_on = not per_shape and (shared or cat_rate.shape[0] == 1 or kepler_grid.shape[0] > 0)
        # the table's amplitude A / L: every category's, exactly, or that of the categories'
        # terms summed (one cosine)
        e_k = 0.0
        if fast or tab_on:
            e_k = amp_i[c_first] if shared else big_a_d / fail_rate
        if tab_on and e_k != e_tab:  # the loop one by one reads it too: chosen here
            tab, e_tab = _table_for(e_k, kepler_table, kepler_e, kepler_grid, tab_own)
        w_lk = OMEGA / fail_rate
        if fast and shared:
            big_a = e_k * fail_rate
            if costly > 0.0 and not settle:
                n_slots_c = n_slots_c_d
                lam_geo = lam_geo_d
                k_left = _maint_countdown(rng, lam_geo)
        k_amp = big_a / OMEGA
        low_rate = fail_rate - big_a  # the intensity's minimum, >= 0
        inv_l = 1.0 / fail_rate
        inv_hi = 1.0 / (fail_rate + big_a)
        inv_lo = 1.0 / low_rate if low_rate > 0.0 else np.inf
        t = 0.0
        s0 = math.sin(theta)
        c0 = math.cos(theta)
        p = 0.0
        n_seg = n_seg0
        r = r0
        tail = tail0
        last_start = (n_seg - 1) * seg
        r_eff = 0.0
        events = 0
        n_maint = 0  # planned events
        a_maint = 0.0
        # exposed hours to the next planned event (a homogeneous Poisson clock in exposed
        # time: what is left of it after a failure stands); inf: none
        m_left = _gap(rng) * inv_maint if m_on else np.inf
        if not fast:
            jc = CBUF  # where blocks do not apply, a trial draws afresh (what it leaves unused)
        budget = max_events - 1  # the last event the budget allows goes to the general path
        # fast: the gaps in buf are those of one Poisson process over all wall time; what of a
        # costly recovery's integrated intensity its points have not passed is skipped next
        deficit = 0.0
        a_restart = 0.0
        a_rework = 0.0
        a_ckpt = 0.0
        n_sw = 0
        done = False
        carry = NO_GAP  # a failure solved for at a hand-over near the cap (wall hours)
        carry_m = NO_GAP  # and the planned event, when it comes first (exposed hours)
        while True:
            while deficit > 0.0:
                # points within the last recovery are not failures: the next failure is the
                # first point after it (its gap from there written back into buf)
                if j == _DIURNAL_BUF:
                    _fill_from(rng, buf, j_fill)
                    j = j_fill
                if buf[j] > deficit:
                    buf[j] -= deficit
                    deficit = 0.0
                else:
                    deficit -= buf[j]
                    j += 1
            if (
                use_blocks
                and fast
                and r_eff == restart_hours
                and budget - events >= _DIURNAL_BLOCK_MIN
            ):
                # the longest run of the buffer's failures that surely stop short of the
                # job's last segment (the renewal path's bound: exposures sum to at most X, X
                # <= (F(X) + slack) / L) and of the budget, and each of which the loop below
                # would take by its cap guard: a failure at wall time t + X_q <= t + X with
                # t + X + bound_cost under cap_safe, by a margin (_BOUND_RTOL of the cap)
                # far above the rounding of the loop's own sums. So a block takes only
                # failures the loop below would take, the trial hands over to the general
                # path by the same rule, and gaps looked at and not taken are the loop's next,
                # in order
                lim_cap = ((cap_safe - bound_cost) - t) - _BOUND_RTOL * cap_hours
                # with planned maintenance, the block takes at most p_max planned events,
                # each of whose stops adds at most one segment's compute beyond its exposed
                # hours' whole segments (the partial one it checkpoints): so many segments
                # fewer, and so many events fewer of the budget: the planned events likely
                # within the segments left
                p_max = _planned_bound(n_seg, seg, maint_rate) if m_on else 0
                lim = min((n_seg - 4.0 - p_max) / seg_up, lim_cap)
                if m_on and p_max < 1:
                    # no block: one that may take no planned event could end before its first
                    # point, taking nothing, and be tried again from the same state
                    lim = 0.0
                # F(X) >= L X - slack from t's phase on (s0 carried by rotations may sit an
                # ulp below -1)
                slack = k_amp * max(1.0 + s0, 0.0)
                if lim > 0.0 and j == _DIURNAL_BUF:
                    # refilled where the loop below would refill too (blocks run short of the
                    # budget, where the loop draws the cycle's gap, near the cap too), so both
                    # consume the same draws
                    _fill_from(rng, buf, j_fill)
                    j = j_fill
                room = min(min(_DIURNAL_BUF - j, budget - events - p_max), room_d)
                cnt = _block_count(buf, j, room, slack, inv_l, lim, _DIURNAL_BLOCK_MIN)
                if cnt >= _DIURNAL_BLOCK_MIN:
                    if e_k != e_tab:  # the blocks' alone: chosen at a trial's first block
                        tab, e_tab = _table_for(e_k, kepler_table, kepler_e, kepler_grid, tab_own)
                    if shared:
                        (
                            k_left, jk, nz, t, dk_sum, sk, nr, nf, deficit, _, _, stop_t, m_left,
                            n_pl, pl_rs, pl_ck, pl_pr, pl_sw,
                        ) = _diurnal_block(
                            rng, i, j, cnt, tab, t, s0, c0, fail_rate, big_a, inv_l, inv_hi,
                            inv_lo, lam_geo, k_left, crs, prob_c, slot_c, alias_c, n_slots_c,
                            kbuf_c, cbuf_c, ubuf_c, jk, interruptions, pts, wk, ji, restart_hours,
                            tau, delta, persist, seg, inv_seg, acc, m_on, m_left, inv_maint,
                            maint_hours, m_stop, snap_steps, p_max,
                        )  # fmt: skip
                    else:
                        (
                            k_left, jk, nz, t, dk_sum, sk, nr, nf, deficit, _, jc, stop_t, m_left,
                            n_pl, pl_rs, pl_ck, pl_pr, pl_sw,
                        ) = _diurnal_block_marked(
                            rng, i, j, cnt, tab, t, s0, c0, fail_rate, big_a, inv_l, inv_hi,
                            inv_lo, k_left, crs, jk, interruptions, pts, wk, ji, restart_hours,
                            tau, delta, persist, seg, inv_seg, acc, jc, ubuf, ph, pick_mode, m_on,
                            m_left, inv_maint, maint_hours, m_stop, snap_steps, p_max,
                        )  # fmt: skip
                    n_zero += nz
                    used_acc = True
                    if stats.shape[0] > 4:
                        stats[4] += 1  # blocks (when counted)
                    if stats.shape[0] > 6:
                        stats[6] += cnt  # the points blocks solved for (when counted)
                    if stats.shape[0] > 3:
                        stats[3] += nf  # failures taken in blocks (when counted)
                    events += nf
                    j = stop_t
                    n_sw += snap_steps * sk + 2 * nr
                    p += dk_sum * tau
                    if n_pl > 0:
                        if stats.shape[0] > 5:
                            stats[5] += n_pl  # planned events taken in blocks (when counted)
                        # the planned stops' restarts, checkpoints, progress and steps; the
                        # segments re-laid from the progress reached (as after a stop, the
                        # failures since then having made whole segments durable)
                        events += n_pl
                        n_maint += n_pl
                        a_maint += n_pl * maint_hours
                        a_restart += pl_rs
                        a_ckpt += pl_ck
                        n_sw += pl_sw
                        p += pl_pr
                        n_seg, r = _segments(work_hours - p, tau)
                        tail = r + delta + persist
                    else:
                        n_seg -= dk_sum
                    last_start = (n_seg - 1) * seg
                    s0 = math.sin(OMEGA * t + theta)
                    c0 = math.cos(OMEGA * t + theta)
                    continue
            d_run = last_start + tail
            d_tot = r_eff + d_run
            if events >= budget:
                break
            # near the cap: the cycle could reach it. The next failure is solved for without
            # the job's end; a planned event before it (and before the job's last compute) is
            # taken if its stop stays under the cap, else the trial hands over with both
            # clocks (the failure's wall time and the planned event's); the failure is taken
            # if it comes before the job's end and, with the costliest recovery, stays under
            # the cap, else the trial hands over with it (carried: a gap looked at is not
            # dropped)
            near = t + d_tot + bound_cost > cap_safe
            if j == _DIURNAL_BUF:
                _fill_from(rng, buf, j_fill)
                j = j_fill
            if near:
                x, s1, c1 = _solve_near(
                    buf[j], t, theta, s0, c0, tab_on, e_k, w_lk, tab, fail_rate, big_a, inv_l,
                    inv_hi, inv_lo,
                )  # fmt: skip
                j += 1
                # the planned event first (with planned maintenance only: else m_left is inf)
                planned = m_left < x and m_left < d_tot
            else:
                g = buf[j]
                j += 1
                planned = m_left < d_tot and _passes(g, m_left, s0, c0, fail_rate, k_amp)
            if planned:
                # no failure before the next planned event, within this cycle
                e = m_left - r_eff
                if e < last_start + r:
                    if near and t + m_left + m_stop > cap_safe:
                        carry = x  # the general path takes both (its two clocks)
                        carry_m = m_left
                        break
                    # the planned event: during the restart (the restart is lost), or in the
                    # run (a fresh checkpoint of the progress reached); then the downtime and a
                    # new restart. Without blocks both clocks start afresh (g, x are not used);
                    # with them (fast) the gaps are one process over all wall time, as the
                    # blocks read them: the gap is kept and its points within the stop skipped
                    # (as a recovery's)
                    events += 1
                    n_maint += 1
                    a_maint += maint_hours
                    t_stop = t
                    t, p, n_seg, r, d_rs, d_ck, d_sw = _planned_stop(
                        e, m_left, t, p, r_eff, n_seg, last_start, r, tau, seg, inv_seg,
                        delta, persist, work_hours, maint_hours, m_stop, snap_steps,
                    )  # fmt: skip
                    if fast:
                        j -= 1
                        deficit = _cum_diurnal(t - t_stop, s0, c0, fail_rate, k_amp)
                    a_restart += d_rs
                    a_ckpt += d_ck
                    n_sw += d_sw
                    tail = r + delta + persist
                    last_start = (n_seg - 1) * seg
                    s0 = math.sin(OMEGA * t + theta)
                    c0 = math.cos(OMEGA * t + theta)
                    r_eff = restart_hours
                    m_left = _gap(rng) * inv_maint
                    continue
                # after the job's last compute: deferred past the end; only failures remain
                # in this cycle (the next planned event is drawn afresh after a failure)
                m_left = np.inf
            if near:
                if x >= d_tot or t + x + bound_cost > cap_safe:
                    carry = x  # the general path takes this failure (or the job's end, the cap)
                    break
            else:
                # the job's end, if no failure comes first; a sine only past a lower bound
                # of F
                lb = max(low_rate * d_tot, fail_rate * d_tot - 2.0 * k_amp)
                if g >= lb * (1.0 - _BRACKET_RTOL) and g >= _cum_diurnal(
                    d_tot, s0, c0, fail_rate, k_amp
                ):
                    a_restart += r_eff
                    a_ckpt += n_seg * delta + persist
                    n_sw += snap_steps * (n_seg - 1) + 2  # compute starts; the down step
                    t += d_tot
                    p = work_hours
                    done = True
                    break
                x, s1, c1 = _solve_one(
                    g, t, theta, s0, c0, tab_on, e_k, w_lk, tab, fail_rate, big_a, inv_l,
                    inv_hi, inv_lo, d_tot,
                )  # fmt: skip
            events += 1
            if m_left < np.inf:
                m_left -= x  # the exposed hours of this cycle
            elif m_on:
                m_left = _gap(rng) * inv_maint  # a planned event was deferred in this cycle
            if x < r_eff:
                a_restart += x
            else:
                a_restart += r_eff
                e = x - r_eff
                k, computed, ckpt, dk = _run_stop(
                    e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist
                )
                n_sw += snap_steps * k + 2  # compute started; the k snapshots; the stop
                a_ckpt += ckpt
                a_rework += computed - dk * tau
                p += dk * tau
                n_seg -= dk
                last_start = (n_seg - 1) * seg
            if settle:
                c = c_first
            elif shared:
                if jc == CBUF:
                    _alias_codes(rng, prob, slot_code, alias_code, n_slots, CBUF, uscr, cbuf)
                    jc = 0
                c = cbuf[jc]
                jc += 1
            else:
                c, jc = _pick_at_phase(rng, jc, ubuf, pw, prc, prs, s1, c1, n_cat, pick_mode)
            if not settle:
                interruptions[i, c] += 1
            if fast and cost[c] > 0.0:
                # the gaps are one process over all wall time: its points within this
                # recovery are skipped (as in the blocks)
                deficit = _recovery_intensity(fail_rate, k_amp, cost[c], rot_c[c], rot_s[c], s1, c1)
            t = (t + x) + cost[c]
            if events % _REFRESH == 0:
                s0 = math.sin(OMEGA * t + theta)
                c0 = math.cos(OMEGA * t + theta)
            else:
                s0, c0 = _turn(s1, c1, rot_c[c], rot_s[c])
            r_eff = restart_hours
        if used_acc:
            # the blocks' run sums (acc[EXPOSED] is not written: the blocks sum the clock)
            a_restart += _acc_pairwise(acc, A_RESTART, _DIURNAL_BUF)
            a_rework += _acc_pairwise(acc, A_REWORK, _DIURNAL_BUF)
            a_ckpt += _acc_pairwise(acc, A_CKPT, _DIURNAL_BUF)
        n_fail = events - n_maint
        stats[0] += n_fail
        if not settle and n_zero > 0:
            # the categories of the blocks' failures without a recovery cost: one multinomial
            # over those categories (independent of the time; its tables are the draw's)
            _settle_categories(
                rng, i, n_zero, w_z, suffix_z, prob_z, slot_z, alias_z, n_slots_z, cost,
                interruptions, scratch, False,
            )  # fmt: skip
        if settle and n_fail > 0:
            _settle_categories(
                rng, i, n_fail, w, suffix, prob, slot_code, alias_code, n_slots, cost,
                interruptions, scratch, False,
            )  # fmt: skip
        n_det = 0.0
        n_swp = 0.0
        for c in range(n_cat):
            n_det += interruptions[i, c] * detect_hours[c]
            if swap[c]:
                n_swp += interruptions[i, c] * swap_hours
        lost[i, REWORK] = a_rework
        lost[i, CHECKPOINT] = a_ckpt
        lost[i, RESTART] = a_restart
        lost[i, DETECTION] = n_det
        lost[i, NODE_SWAP] = n_swp
        swings[i] = n_sw
        if n_maint > 0:
            stats[2] += n_maint
            maint_events[i] = n_maint
            lost[i, MAINTENANCE] = a_maint
        if not done:
            # near the cap or the event budget: the general path goes on from t, with the
            # failure solved for at the hand-over (carry; and the planned event before it,
            # carry_m) or a fresh draw
            stats[1] += 1
            t, p, done, events = _trial_general(
                rng, i, prob, slot_code, alias_code, n_slots, fail_rate, fail_rate,
                detect_hours, swap, maint_hours, work_hours, tau, delta, persist, restart_hours,
                swap_hours, n_spares, repair_hours, cap_hours, max_events,
                t, p, n_seg, r, events, r_eff, carry, carry_m, interruptions, maint_events,
                lost, swings, True, w, pc, ps, start_hour, 1.0, fleet_age_hours, maint_rate,
                0.0, 0.0,
                shared, 0.0, 0.0, 0.0, 0.0, no_profile, no_max, no_max, 0.0,
            )  # fmt: skip
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events


@jit
def _block_diurnal(
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
    cat_amp,
    cat_phase,
    start_hour,
    fleet_age_hours,
    draw_amp,
    draw_phase,
    kepler_table,
    kepler_e,
    kepler_grid,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
    use_blocks,
    stats,
):
    """Run the diurnal path over a block (:func:`diurnal_applies`; see the module docstring).

    Per failure: one standard exponential ``g`` from the start of the restart (or of the job), and,
    unless the run reaches the job's end (``g >= F(r_eff + d_run)``, decided without a sine whenever
    a closed-form lower bound of ``F`` settles it), one solve of ``F(x) = g`` (:func:`_solve_one`: a
    step from the table of the inverse of ``u + e sin u``, unless shapes are given per draw or the
    step is not trusted, else :func:`_invert_diurnal`; ``x < r_eff``: the restart failed). The wall
    clock is exact and the sine and cosine of the phase are carried from failure to failure by angle
    addition (the solve's own, then a rotation by the category's recovery, precomputed), refreshed
    from ``math.sin``/``math.cos`` every ``_REFRESH`` failures. Categories: when every
    category has one diurnal shape they are independent of time, so alias draws made ahead
    (``CBUF`` per refill; where blocks apply to the draw, ``fast``, what a trial leaves goes
    to the next trial of the same draw, else it is not used), or, when every
    category also costs the same recovery, one multinomial per trial at the end
    (:func:`_settle_categories`); otherwise by exact inversion at the failure's phase: one
    uniform ``u`` (drawn ahead, ``CBUF`` per refill, carried as the categories are) and the
    first category whose running sum
    of the intensities ``lambda_c(t)`` exceeds ``u lambda(t)`` (:func:`_pick_at_phase`).
    At the last event the budget allows the trial continues on the general path (modulated, a
    fresh draw from the same wall time: the same process). A cycle (restart and run) that could
    reach the wall cap (``t + r_eff + d_run`` plus the costliest event cost past ``cap_safe``)
    draws its gap as any other: the failure is solved for without the job's end (``hi``
    infinite) and taken if it comes before the job's end and it and the costliest recovery stay
    under ``cap_safe``; a planned event before it (``m < x``, and before the job's last compute)
    is taken if its stop (``m`` plus the checkpoint and the downtime) stays under ``cap_safe``;
    else the general path goes on from the cycle's start with that failure's wall time as its
    pending gap (``carry``: the gap was looked at, so it is kept, not redrawn) and, when the
    planned event comes first, that event's (``carry_m``; the general path's two clocks, drawn
    apart, as it would have drawn them: a planned event it then defers leaves the carried
    failure standing). A trial under a binding cap so stays here up to its last cycle; at 1M
    GPUs (a 54-day job, a 20x cap) the general path had taken the last ~5 % of every trial's
    events at ~240 ns each. Planned maintenance (``maint_rate > 0``): the exposed hours ``m``
    left to the next planned event are carried across failures; when ``m`` falls within the
    cycle and ``g >= F(m)`` (no failure before it) the planned event is taken (during the
    restart: the restart is lost; in the run: the snapshots done, a fresh checkpoint of the
    progress reached and the segments re-laid from there; then the downtime and a new restart),
    and the failure clock starts afresh after the downtime (where blocks apply, ``fast``, the
    gaps are one process over all wall time, as the blocks read them: ``g`` is kept and its
    integrated intensity over the stop skipped, as after a recovery; else ``g`` is not used
    and the next gap drawn); the planned clock is drawn afresh; one after the job's last compute is
    deferred (the cycle goes on with failures only; the next planned event is drawn afresh after
    the failure, if one comes). The cap guard then bounds a cycle's event by the larger of the
    recoveries and a planned stop. ``maint_rate == 0``: no draw and no arithmetic beyond the
    path without maintenance. ``stats[0]`` counts the failures taken here, ``stats[1]`` the
    trials handed over, ``stats[2]`` the planned events taken here.
    Per-draw amplitudes and peaks (``draw_amp``, ``draw_phase`` with rows) are read per trial;
    the trend is 1 on this path.

    Blocks of failures (:func:`_diurnal_block`): with planned maintenance off or at least
    ``_DIURNAL_PLANNED_RATIO`` (0.25) failures per planned event on average (scenarios with
    fewer keep the loop one by one, their outputs as they were; a block then takes at most the
    points in which ``2 _DIURNAL_PLANNED_MAX`` planned events are expected, ``room_d``: it ends
    at its ``_DIURNAL_PLANNED_MAX``-th, the points beyond solved for nothing, a bound only on
    that work that never binds from 4 failures per planned event up), recoveries that cost nothing
    in at least half of the failure rate, and at most one point of the process expected per
    failure within recoveries at the categories' peak intensities (``sum_c w_c cost_c (1 + a_c)
    <= 1``: a gate on the work thinned out, not needed for exactness), the buffer's gaps are
    read as one Poisson process of the diurnal intensity over all wall time (the categories'
    terms sum to one cosine, whatever their peaks), thinned: a failure is the first point after
    the previous failure's recovery (exact: the process has independent increments, and each
    recovery's window starts at one of its points). Both ways of taking failures read them so:
    after a costly recovery, the loop one by one carries its integrated intensity (``deficit``)
    into the gaps that follow, as a block returns what of it the block's points have not passed,
    so a failure does not depend on which way took it, and gaps that the block bound looked at
    may be taken either way. A cycle's start after a restart takes the longest run of the
    buffer's gaps (at least ``_DIURNAL_BLOCK_MIN``, at most ``room_d``) whose points surely stop
    short of the job's last segment and of the budget, and each of whose failures the loop one
    by one would take by its cap guard (at wall time ``t + X`` at most, ``t + X`` plus the
    costliest event cost under ``cap_safe`` by ``_BOUND_RTOL`` of the cap; bounds on the integer
    sum of the gaps, as on the renewal path, with ``X <= (F(X) + (A / OMEGA) (1 + sin u0)) / L``
    from the phase ``u0`` at the block's start): a block takes only failures the loop would
    take, so a trial hands over to the general path by the same rule. The points' wall times are
    independent solves (a table of the inverse of ``u + e sin u``, :func:`_kepler_pass`,
    vectorised), off any chain, and the failures' runs go through the renewal path's block
    arithmetic. With planned maintenance a block runs through planned events
    (:func:`_diurnal_block_body`: in its pass in order, each where the exposed hours from the
    last event's end reach the clock ``m`` left to it, its stop's restart, checkpoint, progress
    and steps summed apart, its downtime's points not failures, the next clock drawn there), at
    most ``p_max`` a block (at one more it ends before that point; with ``p_max`` 0 no block, as
    one could end before its first point and be tried again): the bound on the job's last
    segment is ``p_max`` segments shorter (a stop keeps a partial segment's compute beyond its
    whole segments) and the budget ``p_max`` events. ``p_max`` is the planned events likely
    within the block's reach (:func:`_planned_bound`: ``mu`` expected in the exposed hours of
    the segments left less 4, plus ``_DIURNAL_PLANNED_SD`` (4) times ``sqrt(mu)`` plus
    ``_DIURNAL_PLANNED_ADD`` (2), at most ``_DIURNAL_PLANNED_MAX`` and ``(n_seg - 4) // 2``);
    a bound on the work only (where a fixed 32 shrank the blocks near the job's end, Llama 3
    with a peak hour per category at 100k GPUs made 34.1 blocks a trial, now 31.1, 30.6 without
    planned maintenance). After a block with planned events the segments are re-laid from the
    progress reached. Before, blocks stopped short of each planned event and the loop took it:
    Llama 3 with a peak hour per category and planned maintenance at 100k GPUs made 119.5 blocks
    a trial instead of 30.6, and left 255 failures one by one instead of 29 (1.44x as fast
    through them, benchmarks/README.md). With one shape for every category a category is
    independent of the time: a block draws only the costly failures (a geometric countdown) and
    leaves the others' categories to one multinomial at the trial's end; with shapes that differ
    it draws every point's category at the point's phase, by the loop's inversion from the same
    uniform buffer (:func:`_pick_at_phase`; a point within a recovery leaves its category
    unused, so a block and the loop one by one consume different uniforms where recoveries cost
    time), so every point is marked by its category's share of the intensity at its time: the
    categories' processes superposed (Llama 3 with a peak hour per category at 100k GPUs: 2.1x
    the loop one by one, benchmarks/README.md). ``stats[3]``, when given, counts the failures
    taken in blocks, ``stats[4]`` the blocks, ``stats[5]`` the planned events taken in blocks,
    ``stats[6]`` the points blocks solved for (those beyond a block's end included).

    The blocks' table is one for the intensity's amplitude ``e = A / L`` (:func:`_table_for`,
    chosen at a trial's start where the loop one by one reads it too, else at its first
    block, where the last one chosen is not for ``e``): the inputs'
    (``kepler_table``: one shape for every category and draw, or shapes that differ with
    point rates), or, where ``e`` is the draw's (shapes per draw, or shapes that differ with
    rates per draw), the nearest of the inputs' reference tables (``kepler_grid``, amplitudes
    ``k / 64``: no table is built per draw, against ~130 us to build one), so a trial's table
    depends on its draw alone; else (inputs not built by ``KernelInputs``) one built here, once
    a call. Without reference tables such draws take no blocks, and their loop one by one
    takes the full solve (so their outputs differ, within the solve's tolerance, from those
    with the reference tables).

    The draw buffer holds ``_DIURNAL_BUF`` (256) gaps: a trial where blocks apply refills all
    of it at once (the same draws as two refills of ``BUF``), so a block takes up to 256 gaps
    (with frequent planned events fewer: ``room_d``, ``_DIURNAL_PLANNED_RATIO``)
    and pays its fixed costs (the phase at its start, the solve's and the run arithmetic's
    loop set-up, the sine and cosine after it; ~400 ns a block) half as often; any other
    trial refills its last ``BUF`` positions, as the loop one by one always did, so its
    draws are unmoved. Where both kinds of trial meet in a block of trials, what one leaves in
    the buffer the next takes first. ``use_blocks`` false (tests) takes every failure one by
    one with the same refills, so a trial with blocks and without consume the same gaps (not
    the same picks' uniforms where categories' shapes differ and recoveries cost time: a
    block draws one for every point, within a recovery too, the loop one a failure).

    Where blocks apply to the draw (``fast``, a function of the draw), what a trial draws
    ahead and leaves (the blocks' costly failures, ``kbuf_c`` .. at ``jk``; the categories or
    the picks' uniforms, ``cbuf`` or ``ubuf`` at ``jc``) the next trial takes first while the
    draw stays (they are the draw's: its tables, its ``lam_geo``), as with the gaps: every
    value read moves its index on at once, so what is carried was never looked at:
    independent draws taken in order, the same process. A 2k-GPU trial (57 failures, ~6 of
    them costly, ~3 one by one) used to draw 32 of each afresh and leave most (~0.5 us of its
    ~3.3). Where blocks do not apply, a trial still draws its categories afresh (its draws as
    they were).
    """
    n_cat = cat_rate.shape[1]
    no_profile = np.ones((0, WEEK_HOURS))
    no_max = np.ones(0)
    w = np.empty(n_cat)
    suffix = np.empty(n_cat)
    # each category's recovery cost, and the cos and sin of OMEGA * cost: the phase across it
    crs = np.empty((3, n_cat))
    prob = np.empty(n_cat)
    slot_code = np.empty(n_cat, dtype=np.int64)
    alias_code = np.empty(n_cat, dtype=np.int64)
    bw = np.empty(n_cat)  # the categories' peak intensities w_c (1 + a_c)
    # sums over the categories up to c of w and of the diurnal terms, turned into the frame
    # of theta (rc, rs: see _pick_at_phase)
    ph = _phase_sums(n_cat)
    small = np.empty(n_cat, dtype=np.int64)
    large = np.empty(n_cat, dtype=np.int64)
    pc = np.zeros(n_cat)  # diurnal terms in _diurnal_terms' frame (the general path's)
    ps = np.zeros(n_cat)
    amp_i = np.empty(n_cat)
    phase_i = np.empty(n_cat)
    cbuf = np.empty(CBUF, dtype=np.int64)  # categories drawn ahead (one shape), at jc
    ubuf = np.empty(CBUF)  # with shapes that differ, the picks' uniforms drawn ahead, at jc
    uscr = np.empty(CBUF)  # scratch of _alias_codes (never ubuf: that may hold carried draws)
    kbuf_c = np.empty(CBUF, dtype=np.int64)  # a block's costly failures drawn ahead: countdowns,
    cbuf_c = np.empty(CBUF, dtype=np.int64)  # categories, scratch (_costly_fill)
    ubuf_c = np.empty(CBUF)
    scratch = _settle_scratch(n_cat)
    # the block of failures (_diurnal_block): its inverse table (the one chosen for amplitude
    # e_tab by _table_for: the inputs', a reference table of the grid, or one built here in
    # tab_own), its per-position work arrays and the run sums it adds at buffer positions
    tab_own = np.empty((_KEP_N + 1, _KEP_COLS))
    wk = np.empty((2 + _KEP_COLS, _DIURNAL_BUF))  # _kepler_pass's work rows and nodes
    ji = np.empty(_DIURNAL_BUF, dtype=np.int64)
    pts = _point_arrays(_DIURNAL_BUF)  # the gaps and the block's per-point arrays
    w_c = np.empty(n_cat)  # the categories whose recovery costs time, and the others
    w_z = np.empty(n_cat)
    suffix_z = np.empty(n_cat)
    prob_c = np.empty(n_cat)
    slot_c = np.empty(n_cat, dtype=np.int64)
    alias_c = np.empty(n_cat, dtype=np.int64)
    prob_z = np.empty(n_cat)
    slot_z = np.empty(n_cat, dtype=np.int64)
    alias_z = np.empty(n_cat, dtype=np.int64)
    acc = np.zeros((N_ACC, _DIURNAL_BUF))
    no_trend = np.ones(0)
    cos_a = np.empty(n_cat)  # the cosine and sine of each category's angle (its peak hour)
    sin_a = np.empty(n_cat)
    _diurnal_trials(
        rng, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
        delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
        cat_amp, cat_phase, start_hour, fleet_age_hours, draw_amp, draw_phase, kepler_table,
        kepler_e, kepler_grid, wall, finished, progress, interruptions, maint_events, n_events,
        lost, swings, use_blocks, stats, no_profile, no_max, w, suffix, crs, prob, slot_code,
        alias_code, bw, ph, small, large, pc, ps, amp_i, phase_i, cbuf, ubuf, uscr, kbuf_c, cbuf_c,
        ubuf_c, scratch, tab_own, wk, ji, pts, w_c, w_z, suffix_z, prob_c, slot_c, alias_c,
        prob_z, slot_z, alias_z, acc, no_trend, cos_a, sin_a,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The node model (relmc.sim, "Nodes"): counts of nodes by place and type, plus a sparse record
# of each node that has failed or been sent to repair; nothing per GPU or per node of the job.

# where a node is; the counts ``nc`` and record lists ``lst`` of L_JOB .. L_POOL are indexed
# ``2 * place + type``
L_JOB = 0
L_STANDBY = 1
L_POOL = 2
GOOD = 0
BAD = 1
FRESH = -1  # a node without a record: never blamed, never sent to repair
# columns of a record: one packed word (bit 0 the node's type, bits 1-31 the repairs begun,
# bits 32-62 the failures blamed), then (from R_T0, as float64 bits) the last lemon_k failure
# times. Where a node is follows from the list or repair stage that holds it; a node leaves a
# list from a position its caller knows. Narrow on purpose: at 1M GPUs almost every node has a
# record, and the struck node's is touched at random, so 24 bytes a record (lemon_k = 2) keep
# them within the caches' reach. Both counts stay below 2^31: a trial has at most
# ``relmc.scenario.MAX_EVENTS`` events
R_WORD, R_T0 = 0, 1
W_REPAIR = 2  # one repair begun, in the packed word
W_FAIL = 1 << 32  # one failure blamed
# the integer bookkeeping ``meta``: records ever used, free records, nodes in repair, nodes in
# repair stage 0 (automated) and 1 (manual), and (fixed durations) each stage's queue head
M_HIGH, M_NFREE, M_REPAIR, M_CNT0, M_CNT1, M_HEAD0, M_HEAD1 = range(7)
N_META = 7
# the float bookkeeping ``fs``: integral of the pool's size over wall time, its last change,
# and (exponential durations) each stage's next completion
F_OCC, F_TLAST, F_NEXT0, F_NEXT1 = range(4)
N_FS = 4
_CAP0 = 16  # first capacity of the records, lists and repair stages (doubled as needed)


@jit
def _grow1(a, need):
    """Return ``a`` (1-D) with room for ``need`` entries, capacity doubled as needed."""
    n = a.shape[0]
    if n >= need:
        return a
    m = max(n, 1)
    while m < need:
        m *= 2
    b = np.empty(m, dtype=a.dtype)
    b[:n] = a
    return b


@jit
def _grow_rows(a, need):
    """Return ``a`` (2-D) with room for ``need`` rows, rows doubled as needed."""
    n = a.shape[0]
    if n >= need:
        return a
    m = max(n, 1)
    while m < need:
        m *= 2
    b = np.empty((m, a.shape[1]), dtype=a.dtype)
    b[:n, :] = a
    return b


@jit
def _grow_cols(a, need):
    """Return ``a`` (2-D) with room for ``need`` columns, columns doubled as needed."""
    n = a.shape[1]
    if n >= need:
        return a
    m = max(n, 1)
    while m < need:
        m *= 2
    b = np.empty((a.shape[0], m), dtype=a.dtype)
    b[:, :n] = a
    return b


# The node model's helpers below are inlined by LLVM (``forceinline``), each compiled once,
# not by numba at every call (``inline="always"``, which type-infers a helper's body again at
# each call site): the same outputs, speed within noise, and the node path's cold compile
# 137 -> 80 s, the combined path's 147 -> 87 s (benchmarks/README.md, "The node model's
# compile").


@jit(_nrt=False, forceinline=True)
def _stage_next(s, qt, meta, fs, fixed):
    """Wall time of the next completion of repair stage ``s`` (inf: none in it)."""
    if meta[M_CNT0 + s] == 0:
        return np.inf
    if fixed:
        return qt[s, meta[M_HEAD0 + s]]
    return fs[F_NEXT0 + s]


@jit(_nrt=False, forceinline=True)
def _repair_first(qt, meta, fs, fixed):
    """Wall time of the next repair completion of either stage (inf: none)."""
    return min(_stage_next(0, qt, meta, fs, fixed), _stage_next(1, qt, meta, fs, fixed))


@jit(_nrt=False, forceinline=True)
def _repair_add(rng, s, rid, t, mean, fixed, qt, qr, meta, fs):
    """Start record ``rid``'s repair stage ``s`` at ``t`` (mean duration ``mean``).

    Fixed durations: stage ``s`` is a FIFO queue (it completes in the order it was entered).
    Exponential: an unordered list plus the stage's next completion; by memorylessness the
    residual repairs are fresh exponentials at any moment, so a new one joins by taking the
    minimum, and when one completes it is any of them with equal chance. O(1) either way.
    """
    k = meta[M_CNT0 + s]
    if fixed:
        j = meta[M_HEAD0 + s] + k
        if j >= qr.shape[1]:
            j -= qr.shape[1]
        qt[s, j] = t + mean
        qr[s, j] = rid
    else:
        qr[s, k] = rid
        done = t + rng.standard_exponential() * mean
        if k == 0 or done < fs[F_NEXT0 + s]:
            fs[F_NEXT0 + s] = done
    meta[M_CNT0 + s] = k + 1
    meta[M_REPAIR] += 1


@jit(_nrt=False, forceinline=True)
def _repair_pop(rng, s, mean, fixed, qt, qr, meta, fs):
    """Remove the node whose repair stage ``s`` completes next: ``(time, record)``."""
    k = meta[M_CNT0 + s]
    if fixed:
        h = meta[M_HEAD0 + s]
        tc = qt[s, h]
        rid = qr[s, h]
        h += 1
        meta[M_HEAD0 + s] = 0 if h == qr.shape[1] else h
    else:
        tc = fs[F_NEXT0 + s]
        j = int(rng.random() * k)
        if j >= k:
            j = k - 1
        rid = qr[s, j]
        qr[s, j] = qr[s, k - 1]
        if k > 1:
            fs[F_NEXT0 + s] = tc + rng.standard_exponential() * mean / (k - 1)
    meta[M_CNT0 + s] = k - 1
    meta[M_REPAIR] -= 1
    return tc, rid


@jit
def _grow_queue(qt, qr, meta, need):
    """Return the repair stages with room for ``need`` nodes each, queue heads moved to 0."""
    cap = qr.shape[1]
    if cap >= need:
        return qt, qr
    m = max(cap, 1)
    while m < need:
        m *= 2
    nt = np.empty((2, m))
    nr = np.empty((2, m), dtype=np.int64)
    for s in range(2):
        h = meta[M_HEAD0 + s]
        for q in range(meta[M_CNT0 + s]):
            j = h + q
            if j >= cap:
                j -= cap
            nt[s, q] = qt[s, j]
            nr[s, q] = qr[s, j]
        meta[M_HEAD0 + s] = 0
    return nt, nr


@jit(forceinline=True)
def _rec_new(rec, free, meta, typ):
    """Return a new record for a node of type ``typ`` (capacity ensured by the caller)."""
    if meta[M_NFREE] > 0:
        meta[M_NFREE] -= 1
        rid = free[meta[M_NFREE]]
    else:
        rid = meta[M_HIGH]
        meta[M_HIGH] += 1
    rec[rid, R_WORD] = typ  # no repairs, no failures blamed
    return rid


@jit(_nrt=False, forceinline=True)
def _rec_free(free, meta, rid):
    """Release a record (its node left the fleet, or its history no longer matters)."""
    free[meta[M_NFREE]] = rid
    meta[M_NFREE] += 1


@jit(forceinline=True)
def _list_remove(lst, ll, which, pos):
    """Remove entry ``pos`` of list ``which`` (the last entry takes its place)."""
    n = ll[which] - 1
    lst[which, pos] = lst[which, n]
    ll[which] = n


@jit(_nrt=False, forceinline=True)
def _put(loc, rid, typ, nc, lst, ll):
    """Place a node of type ``typ`` (record ``rid``, of that type, or ``FRESH``) at ``loc``.

    A recorded node is appended to the place's list of its type (at position ``ll[which]``
    before the call); its record is not touched.
    """
    which = 2 * loc + typ
    nc[which] += 1
    if rid != FRESH:
        n = ll[which]
        lst[which, n] = rid
        ll[which] = n + 1


@jit(forceinline=True)
def _take(rng, loc, nc, lst, ll):
    """Remove a node drawn uniformly from ``loc`` (not empty): ``(record or FRESH, type, j)``.

    One uniform: its type (in proportion to the counts), then its rank among the nodes of that
    type; ranks below the number of recorded ones are those records, the rest fresh nodes.
    """
    g = nc[2 * loc]
    b = nc[2 * loc + 1]
    x = rng.random() * (g + b)
    if x < g or b == 0:
        typ = GOOD
        j = int(x)
    else:
        typ = BAD
        j = int(x - g)
    which = 2 * loc + typ
    if j >= nc[which]:  # x rounded onto a boundary
        j = nc[which] - 1
    nc[which] -= 1
    if j < ll[which]:
        rid = lst[which, j]
        _list_remove(lst, ll, which, j)
        return rid, typ, j  # the list's last record now holds position j
    return FRESH, typ, j


@jit(_nrt=False, forceinline=True)
def _occupancy(fs, nc, t):
    """Add the pool's size since its last change to the integral; call before each change."""
    fs[F_OCC] += (nc[2 * L_POOL] + nc[2 * L_POOL + 1]) * (t - fs[F_TLAST])
    fs[F_TLAST] = t


@jit(forceinline=True)
def _send_to_repair(rng, rid, t, rec, free, meta, qt, qr, fs, retire_after, repair_hours,
                    fixed, i, repairs_auto, nodes_retired, track):  # fmt: skip
    """Send record ``rid``'s node to automated repair at ``t``, or retire it (its n-th time).

    Without ``track`` (an unlimited pool and no escalation: the node never comes back and
    nothing more is counted) the repair is counted and the record released at once.
    """
    word = rec[rid, R_WORD] + W_REPAIR
    rec[rid, R_WORD] = word
    if retire_after > 0 and ((word >> 1) & 0x7FFFFFFF) >= retire_after:
        nodes_retired[i] += 1
        _rec_free(free, meta, rid)
        return
    repairs_auto[i] += 1
    if not track:
        _rec_free(free, meta, rid)
        return
    _repair_add(rng, 0, rid, t, repair_hours, fixed, qt, qr, meta, fs)


@jit(_nrt=False, forceinline=True)
def _repair_next(rng, rec, qt, qr, meta, fs, repair_hours, escalate_prob, manual_hours, fixed,
                 auto_miss, manual_miss, i, repairs_manual):  # fmt: skip
    """Complete the earliest repair stage: ``(time, record, whether the node leaves repair)``.

    An automated repair goes on to manual repair with probability ``escalate_prob``; a bad
    node leaving a stage stays bad with that stage's miss probability, else becomes good.
    """
    s = 0 if _stage_next(0, qt, meta, fs, fixed) <= _stage_next(1, qt, meta, fs, fixed) else 1
    tc, rid = _repair_pop(rng, s, repair_hours if s == 0 else manual_hours, fixed, qt, qr,
                          meta, fs)  # fmt: skip
    if s == 0:
        if escalate_prob > 0.0 and (escalate_prob >= 1.0 or rng.random() < escalate_prob):
            repairs_manual[i] += 1
            _repair_add(rng, 1, rid, tc, manual_hours, fixed, qt, qr, meta, fs)
            return tc, rid, False
        miss = auto_miss
    else:
        miss = manual_miss
    if (rec[rid, R_WORD] & 1) == BAD and miss < 1.0 and (miss <= 0.0 or rng.random() >= miss):
        rec[rid, R_WORD] -= 1  # bit 0: BAD -> GOOD
    return tc, rid, True


@jit(_nrt=False, forceinline=True)
def _release(rid, free, meta, keep):
    """Return the record a repaired node keeps: its own if its history matters, else none."""
    if keep:
        return rid
    _rec_free(free, meta, rid)
    return FRESH


@jit(_nrt=False, forceinline=True)
def _settle(rng, until, nc, lst, ll, rec, free, meta, qt, qr, fs, unlimited, keep,
            n_standbys, repair_hours, escalate_prob, manual_hours, fixed, auto_miss,
            manual_miss, i, repairs_manual):  # fmt: skip
    """Complete every repair stage due by ``until``, in time order.

    A repaired node refills the job's standbys if short, else joins the pool; with an
    unlimited pool it leaves the simulation (its record is released).
    """
    while meta[M_REPAIR] > 0 and _repair_first(qt, meta, fs, fixed) <= until:
        tc, rid, back = _repair_next(
            rng, rec, qt, qr, meta, fs, repair_hours, escalate_prob, manual_hours, fixed,
            auto_miss, manual_miss, i, repairs_manual,
        )  # fmt: skip
        if not back:
            continue
        typ = rec[rid, R_WORD] & 1
        if unlimited:
            _rec_free(free, meta, rid)
            continue
        rid = _release(rid, free, meta, keep)
        if nc[2 * L_STANDBY] + nc[2 * L_STANDBY + 1] < n_standbys:
            _put(L_STANDBY, rid, typ, nc, lst, ll)
        else:
            _occupancy(fs, nc, tc)
            _put(L_POOL, rid, typ, nc, lst, ll)


@jit(forceinline=True)
def _pick_class(rng, w0, w1, w2, w3):
    """Index of one of four weights (not all zero) drawn in proportion to them (one uniform)."""
    x = rng.random() * (w0 + w1 + w2 + w3)
    acc = w0
    last = 0 if w0 > 0.0 else -1
    if x < acc and w0 > 0.0:
        return 0
    acc += w1
    if w1 > 0.0:
        last = 1
        if x < acc:
            return 1
    acc += w2
    if w2 > 0.0:
        last = 2
        if x < acc:
            return 2
    if w3 > 0.0:
        return 3
    return last  # x rounded onto the total


@jit(forceinline=True)
def _node_rates(n_nodes, n_bad, g_sum, h_sum, d_sum):
    """Rates of a good-node, a bad-node and a domain failure with ``n_bad`` bad nodes."""
    nf = float(n_nodes)
    return g_sum * ((nf - n_bad) / nf), h_sum * (n_bad / nf), d_sum


@jit
def _binomial(rng, n, f):
    """Bad nodes among ``n``, each bad with probability ``f`` (no draw when certain)."""
    if n <= 0 or f <= 0.0:
        return 0
    if f >= 1.0:
        return n
    return rng.binomial(n, f)


@jit(forceinline=True)
def _fresh_type(rng, f):
    """Type of a node from an unlimited pool: bad with probability ``f``."""
    if f <= 0.0:
        return GOOD
    if f >= 1.0:
        return BAD
    return BAD if rng.random() < f else GOOD


@jit
def _ensure(rec, free, lst, qt, qr, meta, d_max):
    """Grow the records, lists and repair stages (doubling) to hold what one event can add."""
    need = meta[M_HIGH] + d_max + 2
    rec = _grow_rows(rec, need)
    free = _grow1(free, need)
    lst = _grow_cols(lst, rec.shape[0])  # a list holds live records only
    qt, qr = _grow_queue(qt, qr, meta, meta[M_REPAIR] + d_max + 2)
    return rec, free, lst, qt, qr


@jit
def _node_modulation(w, wg, wb, wd, n_nodes, n_bad, cat_amp, cos_a, sin_a, pc, ps):
    """Set each category's rate with ``n_bad`` bad nodes (``w``) and its diurnal terms.

    Returns the total rate and the sums of the diurnal terms, ``(rate, zr, zi)``; the terms
    from the cosines and sines of the peak-hour angles (:func:`_diurnal_angles`), the same
    floats as :func:`_diurnal_terms`.
    """
    nf = float(n_nodes)
    total = 0.0
    for c in range(w.shape[0]):
        w[c] = wg[c] * ((nf - n_bad) / nf) + wb[c] * (n_bad / nf) + wd[c]
        total += w[c]
    zr, zi = _diurnal_terms_at(w, cat_amp, cos_a, sin_a, pc, ps)
    return total, zr, zi


@jit(forceinline=True)
def _node_event(rng, mode, s, w_good, w_bad, w_dom, w_maint, pg, sg, ag, pb, sb, ab, pd, sd, ad,
                n_slots, is_dom, w, wb, pc, ps, fail_rate, zr, zi, n_bad, n_nodes, prof,
                week_hour0):  # fmt: skip
    """Draw what an event is: ``(code, type of the node struck)``.

    ``mode`` 0: failure or planned event, in proportion to the rates; 1: a failure, rates
    constant in time or of one diurnal shape; 2: a failure at wall time ``s`` with categories
    of their own diurnal shapes or profiles (:func:`_pick_time`, then the struck node's type:
    the category's time factor multiplies its good and bad parts alike). In modes 0
    and 1 a class is drawn first (a good node's, a bad node's or a domain failure, or
    maintenance), then its category from that class's alias table, so the category and the
    type come out jointly as the contract states, in O(1).
    """
    if mode == 2:
        c = _pick_time(rng, s, w, pc, ps, fail_rate, zr, zi, prof, NO_TABLE, week_hour0)
        if is_dom[c] or n_bad == 0:
            return c, GOOD
        bad_part = wb[c] * (n_bad / float(n_nodes))
        return c, (BAD if rng.random() * w[c] < bad_part else GOOD)
    k = _pick_class(rng, w_good, w_bad, w_dom, w_maint if mode == 0 else 0.0)
    if k == 3:
        return EV_MAINT, GOOD
    if k == 0:
        return _pick(rng, pg, sg, ag, n_slots[0]), GOOD
    if k == 1:
        return _pick(rng, pb, sb, ab, n_slots[1]), BAD
    return _pick(rng, pd, sd, ad, n_slots[2]), GOOD


WHO_TYPE = -2  # _node_recover blames a node of the struck type, drawn as the contract says
WHO_NONE = -3  # _node_recover blames no node (an SDC whose node left the job)
NO_RECORD = -4  # no record is followed (_node_recover's ``x_rid``)


@jit(forceinline=True)
def _node_recover(rng, i, t, c, bt, who, t_fail, x_rid, x_pos, cap_hours, n, n_bad, cats, opts,
                  nodes, counts, lost):  # fmt: skip
    """Recover from category ``c`` after its detection: diagnosis, blame, repair, replacement.

    The node blamed: ``who = WHO_TYPE``, a node of type ``bt`` drawn uniformly from the job
    (another of the job's nodes with the category's wrong-blame probability); ``who >= 0``,
    that record's node (in the job); ``WHO_NONE``, none. A lemon's failure is recorded at
    ``t_fail``. A domain category sends ``dom[c]`` nodes drawn uniformly to repair. Then
    standbys, the pool and waiting for repairs replace the nodes that left, with preemption
    and swap hours if a node came from the pool (or a repair). Returns ``(t, capped, need,
    big, short, x_left, x_pos)``: the nodes that left, whether a blast radius of more than
    one node struck, the nodes still owed when the cap came first, whether the node of the
    followed record ``x_rid`` (``NO_RECORD``: none) left the job, and its position
    ``x_pos`` in the job's list of its type, kept as records move (O(1), no scan; a given
    ``who`` is the followed record). The caller updates the job's rates
    from its bad nodes (``nc``), also when ``capped``. Arguments in tuples (the call stays
    short; numba's own inlining needed fewer than 31): ``cats`` the per-category arrays, ``opts``
    the trial's node options, ``nodes`` the counts, records, lists and repair stages,
    ``counts`` the per-trial node outputs.
    """
    is_dom, dom, swap, diag_hours, diag_wrong = cats
    (lemon_k, lemon_window, k_ring, unlimited, keep, track, n_standbys, bad_fraction,
     preempt_hours, swap_hours, js, repair_hours, escalate_prob, manual_repair_hours,
     repair_fixed, auto_miss, manual_miss, retire_after) = opts  # fmt: skip
    nc, ll, lst, rec, recf, free, meta, qt, qr, fs = nodes
    (nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired,
     wrong_blames, standby_swaps) = counts  # fmt: skip
    need = 0  # nodes that leave the job now
    big = False  # a blast radius of more than one node
    short = 0
    x_left = False
    x_which = 2 * L_JOB + (rec[x_rid, R_WORD] & 1) if x_rid >= 0 else -1
    t, capped = _spend(lost, i, DIAGNOSIS, t, diag_hours[c], cap_hours)
    if capped:
        return t, capped, need, big, short, x_left, x_pos
    if meta[M_REPAIR] > 0 and _repair_first(qt, meta, fs, repair_fixed) <= t:
        # repairs done by now: their nodes are back first
        _settle(
            rng, t, nc, lst, ll, rec, free, meta, qt, qr, fs, unlimited, keep, n_standbys,
            repair_hours, escalate_prob, manual_repair_hours, repair_fixed, auto_miss,
            manual_miss, i, repairs_manual,
        )  # fmt: skip
    if is_dom[c]:
        big = dom[c] > 1
        for _ in range(dom[c]):
            rid, typ, j = _take(rng, L_JOB, nc, lst, ll)
            if rid == FRESH:
                rid = _rec_new(rec, free, meta, typ)
            elif rid == x_rid:
                x_left = True
            elif 2 * L_JOB + typ == x_which and x_pos == ll[x_which]:
                x_pos = j  # the followed record was its list's last: it moved to j
            _send_to_repair(
                rng, rid, t, rec, free, meta, qt, qr, fs, retire_after, repair_hours,
                repair_fixed, i, repairs_auto, nodes_retired, track,
            )  # fmt: skip
        need = dom[c]
    elif who != WHO_NONE:
        if who >= 0:
            # the followed record's node (who == x_rid), at its known place
            typ = rec[who, R_WORD] & 1
            which = 2 * L_JOB + typ
            rid = who
            pos = x_pos
        else:
            typ = bt
            q_wrong = diag_wrong[c]
            if n > 1 and q_wrong > 0.0 and (q_wrong >= 1.0 or rng.random() < q_wrong):
                # another of the job's n - 1 nodes, uniformly: bad with probability
                # (bad nodes but the struck one) / (n - 1), then uniform within its type
                wrong_blames[i] += 1
                typ = BAD if rng.random() * (float(n) - 1.0) < n_bad - bt else GOOD
            which = 2 * L_JOB + typ
            j = int(rng.random() * nc[which])
            if j >= nc[which]:
                j = nc[which] - 1
            rid = lst[which, j] if j < ll[which] else FRESH
            pos = j  # its position in the job's list, if recorded
        excluded = False
        if lemon_k > 0:
            if rid == FRESH:  # recorded from now on
                rid = _rec_new(rec, free, meta, typ)
                nc[which] -= 1
                pos = ll[which]
                _put(L_JOB, rid, typ, nc, lst, ll)
            q = rec[rid, R_WORD] >> 32
            recf[rid, R_T0 + q % k_ring] = t_fail
            q += 1
            rec[rid, R_WORD] += W_FAIL
            # the oldest of the last lemon_k failures is in the slot written next
            oldest = recf[rid, R_T0 + q % k_ring]
            excluded = q >= lemon_k and oldest > t_fail - lemon_window
        if excluded or swap[c]:
            nc[which] -= 1
            if rid != FRESH:
                _list_remove(lst, ll, which, pos)
                if rid == x_rid:
                    x_left = True
                elif which == x_which and x_pos == ll[which]:
                    x_pos = pos  # the followed record was its list's last: it moved to pos
            if excluded:
                if typ == BAD:
                    nodes_excluded_bad[i] += 1
                else:
                    nodes_excluded_good[i] += 1
                if rid != FRESH:
                    _rec_free(free, meta, rid)
            else:
                if rid == FRESH:
                    rid = _rec_new(rec, free, meta, typ)
                _send_to_repair(
                    rng, rid, t, rec, free, meta, qt, qr, fs, retire_after, repair_hours,
                    repair_fixed, i, repairs_auto, nodes_retired, track,
                )  # fmt: skip
            need = 1
    if need > 0:
        # replacements: standbys, then pool nodes, then waiting for repairs
        got = 0
        from_pool = False
        while got < need and nc[2 * L_STANDBY] + nc[2 * L_STANDBY + 1] > 0:
            rid, typ, _ = _take(rng, L_STANDBY, nc, lst, ll)
            _put(L_JOB, rid, typ, nc, lst, ll)
            standby_swaps[i] += 1
            got += 1
        while got < need and (unlimited or nc[2 * L_POOL] + nc[2 * L_POOL + 1] > 0):
            if unlimited:
                rid = FRESH
                typ = _fresh_type(rng, bad_fraction)
            else:
                _occupancy(fs, nc, t)
                rid, typ, _ = _take(rng, L_POOL, nc, lst, ll)
            _put(L_JOB, rid, typ, nc, lst, ll)
            got += 1
            from_pool = True
        # the standbys are refilled from the pool at once, while it has nodes
        while nc[2 * L_STANDBY] + nc[2 * L_STANDBY + 1] < n_standbys and (
            unlimited or nc[2 * L_POOL] + nc[2 * L_POOL + 1] > 0
        ):
            if unlimited:
                rid = FRESH
                typ = _fresh_type(rng, bad_fraction)
            else:
                _occupancy(fs, nc, t)
                rid, typ, _ = _take(rng, L_POOL, nc, lst, ll)
            _put(L_STANDBY, rid, typ, nc, lst, ll)
        ready = t
        waited = got < need
        if waited:
            # wait for repairs to return the rest; none before the cap: wait to it
            from_pool = True
            while got < need:
                first = _repair_first(qt, meta, fs, repair_fixed)
                if meta[M_REPAIR] == 0 or first > cap_hours:
                    ready = np.inf
                    break
                tc, rid, back = _repair_next(
                    rng, rec, qt, qr, meta, fs, repair_hours, escalate_prob,
                    manual_repair_hours, repair_fixed, auto_miss, manual_miss, i,
                    repairs_manual,
                )  # fmt: skip
                if back:
                    typ = rec[rid, R_WORD] & 1
                    rid = _release(rid, free, meta, keep)
                    _put(L_JOB, rid, typ, nc, lst, ll)
                    got += 1
                    ready = tc
            short = need - got  # still owed when the cap comes first
        if waited:
            t, capped = _spend(lost, i, SPARE_WAIT, t, ready - t, cap_hours)
            if capped:
                return t, capped, need, big, short, x_left, x_pos
        if from_pool:
            t, capped = _spend(lost, i, PREEMPTION, t, preempt_hours, cap_hours)
            if capped:
                return t, capped, need, big, short, x_left, x_pos
            t, capped = _spend(lost, i, NODE_SWAP, t, swap_hours * _jitter(rng, js), cap_hours)
    return t, capped, need, big, short, x_left, x_pos


@jit(_nrt=False)  # indexes arrays only: no reference counting
def _trial_nodes(
    rng, i, st_f, st_i, g_sum, h_sum, d_sum, wg, wb, wd, pg, sg, ag, pb, sb, ab, pd, sd, ad,
    n_slots, is_dom, dom, d_max, w, pc, ps, detect_hours, swap, maint_rate, maint_hours,
    work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
    cap_hours, max_events, modulated, cat_amp, cat_phase, start_hour, cos_i, sin_i, trend_shape,
    fleet_age_hours, speed_amp, speed_phase, n_nodes, bad_fraction, diag_hours, diag_wrong, lemon_k,
    lemon_window, repair_fixed, escalate_prob, manual_repair_hours, auto_miss, manual_miss,
    retire_after, n_standbys, preempt_hours, mem_restart_hours, mem_replicas, nc, ll, lst, rec,
    recf, free, meta, qt, qr, fs, interruptions, maint_events, lost, swings,
    nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired,
    wrong_blames, standby_swaps, restarts_memory, restarts_storage, jr, js, jd, jm, prof, qmax,
    week_hour0, same_profile,
):  # fmt: skip
    """Simulate trial ``i`` of the node path from the state in ``st_f``, ``st_i``.

    State: ``st_f = [t, p, r, r_eff, tw_a, tw_b, tw_lo, tw_hi]`` (wall clock, durable progress,
    compute of the last segment, the restart ahead, the trend's window of
    :func:`_fail_gap`) and ``st_i = [n_seg, events, left, short, n_bad]`` (segments
    left, events so far, nodes that left since the last durable checkpoint, nodes still owed
    at the cap, bad nodes in the job). Arrays are never reallocated here (so this compiles
    without reference counting, which would otherwise cost more than the event itself): when
    one event might overflow the records or the repair stages, the state is saved and
    ``(True, False)`` returned, and the caller grows them and calls again; otherwise the
    trial runs to its end and returns ``(False, done)``. The timeline is
    :func:`_trial_general`'s, with the trial's overheads and the per-event jitters ``jr``,
    ``js``, ``jd``, ``jm`` (restart, swap, detection, maintenance) as there; ``diag_hours``
    and ``preempt_hours`` are the trial's too (its draw's factors, no jitter). ``modulated``
    (failure rates vary in time) is the block's; ``cat_amp``, ``cat_phase``,
    ``trend_shape`` and ``bad_fraction`` are the trial's (its draw's, see "Physics
    parameters per draw" in :mod:`relmc.sim`); ``cos_i``, ``sin_i`` the cosines and sines of
    its peak hours' angles (:func:`_diurnal_angles`). ``prof``, ``qmax``, ``week_hour0``: the
    periodic profiles as in :func:`_trial_general` (``same_profile``: all rows equal).
    """
    n = n_nodes
    unlimited = n_spares < 0
    keep = lemon_k > 0 or retire_after > 0  # a repaired node's history still matters
    track = not unlimited or escalate_prob > 0.0  # repairs followed to their end
    mem_on = mem_restart_hours >= 0.0
    k_ring = max(lemon_k, 1)
    shared = _same_shape(cat_amp, cat_phase) and same_profile
    mode_run = 0 if not modulated else (1 if shared else 2)  # _node_event's mode
    mode_fail = 2 if (modulated and not shared) else 1
    seg = tau + delta
    inv_seg = 1.0 / seg
    speedy = speed_amp > 0.0
    snap_steps = 2 if delta > 0.0 else 0
    sphase = start_hour - speed_phase
    n_bad = st_i[4]
    # the rates with n_bad bad nodes in the job (redone whenever n_bad changes)
    w_good, w_bad, w_dom = _node_rates(n, n_bad, g_sum, h_sum, d_sum)
    fail_rate = w_good + w_bad + w_dom
    zr = 0.0
    zi = 0.0
    if modulated:
        fail_rate, zr, zi = _node_modulation(w, wg, wb, wd, n, n_bad, cat_amp, cos_i, sin_i, pc, ps)
    amp = math.hypot(zr, zi)
    theta = math.atan2(zi, zr)
    rate = fail_rate + maint_rate
    inv_rate = 1.0 / rate if rate > 0.0 else np.inf

    t = st_f[0]
    p = st_f[1]
    r = st_f[2]
    r_eff = st_f[3]
    n_seg = st_i[0]
    events = st_i[1]
    last_start = (n_seg - 1) * seg
    tail = r + delta + persist
    left = st_i[2]  # nodes that left the job since the checkpoint it restarts from was durable
    short = 0  # nodes the job still waits for when the cap ends the trial
    g_fail = np.inf
    g_maint = np.inf
    tw_a = st_f[4]  # the trend's window (:func:`_fail_gap`), kept across a grow
    tw_b = st_f[5]
    tw_lo = st_f[6]
    tw_hi = st_f[7]
    done = False
    grow = False
    while True:
        if meta[M_HIGH] + d_max + 2 > rec.shape[0] or meta[M_REPAIR] + d_max + 2 > qr.shape[1]:
            grow = True  # the caller grows the records and repair stages, then resumes here
            break
        if modulated:
            g_fail = np.inf
            if fail_rate > 0.0:
                g_fail, tw_a, tw_b, tw_lo, tw_hi = _next_failure(
                    rng, t, fail_rate, amp, theta, w, prof, qmax, NO_TABLE, week_hour0,
                    trend_shape, fleet_age_hours, cap_hours, tw_a, tw_b, tw_lo, tw_hi,
                )  # fmt: skip
            g_maint = _gap(rng) / maint_rate if maint_rate > 0.0 else np.inf
            g = min(g_fail, g_maint)
        elif rate > 0.0:
            g = _gap(rng) * inv_rate
        else:
            g = np.inf
        e = g - r_eff
        bt = GOOD  # the type of the node a failure strikes
        if e < 0.0:
            # ---- an event during the restart
            if t + g > cap_hours:
                lost[i, RESTART] += cap_hours - t
                t = cap_hours
                break
            t += g
            lost[i, RESTART] += g
            events += 1
            if modulated and g_maint < g_fail:
                c = EV_MAINT
            else:
                c, bt = _node_event(
                    rng, mode_fail if modulated else 0, t, w_good, w_bad, w_dom, maint_rate,
                    pg, sg, ag, pb, sb, ab, pd, sd, ad, n_slots, is_dom, w, wb, pc, ps,
                    fail_rate, zr, zi, n_bad, n, prof, week_hour0,
                )  # fmt: skip
            if c == EV_MAINT:
                maint_events[i] += 1
            else:
                interruptions[i, c] += 1
            if events >= max_events:
                break
            if c == EV_MAINT:
                t, capped = _spend(
                    lost, i, MAINTENANCE, t, maint_hours * _jitter(rng, jm), cap_hours
                )
                if capped:
                    break
                r_eff = restart_hours * _jitter(rng, jr)  # after planned maintenance: storage
                restarts_storage[i] += 1
                continue
        else:
            # ---- the restart (if any) completed; a run from durable progress p
            e_fail = g_fail - r_eff
            if r_eff > 0.0:
                if t + r_eff > cap_hours:
                    lost[i, RESTART] += cap_hours - t
                    t = cap_hours
                    break
                t += r_eff
                lost[i, RESTART] += r_eff
                r_eff = 0.0
            swings[i] += 1
            d_run = last_start + tail
            e_w = e
            d_w = d_run
            if speedy:
                e = _nominal(t, t + e_w, speed_amp, sphase) if e_w < np.inf else np.inf
            c = EV_NONE
            if e < d_run:
                if modulated and g_maint < g_fail:
                    c = EV_MAINT
                else:
                    c, bt = _node_event(
                        rng, mode_run, t + e_w, w_good, w_bad, w_dom, maint_rate, pg, sg, ag,
                        pb, sb, ab, pd, sd, ad, n_slots, is_dom, w, wb, pc, ps, fail_rate, zr,
                        zi, n_bad, n, prof, week_hour0,
                    )  # fmt: skip
                if c == EV_MAINT and e >= last_start + r:
                    # planned event after the last compute: deferred past the end
                    c = EV_NONE
                    if modulated:
                        e_w = e_fail
                    elif fail_rate > 0.0:
                        e_w += _gap(rng) / fail_rate
                    else:
                        e_w = np.inf
                    e = e_w
                    if speedy and e_w < np.inf:
                        e = _nominal(t, t + e_w, speed_amp, sphase)
                    if e < d_run:
                        c, bt = _node_event(
                            rng, mode_fail, t + e_w, w_good, w_bad, w_dom, 0.0, pg, sg, ag, pb,
                            sb, ab, pd, sd, ad, n_slots, is_dom, w, wb, pc, ps, fail_rate, zr,
                            zi, n_bad, n, prof, week_hour0,
                        )  # fmt: skip
            if c == EV_NONE and speedy:
                d_w = _wall_for(t, d_run, speed_amp, sphase)
            if t + (d_w if c == EV_NONE else e_w) > cap_hours:
                pos = cap_hours - t
                if speedy:
                    pos = _nominal(t, cap_hours, speed_amp, sphase)
                    lost[i, SLOWDOWN] += (cap_hours - t) - pos
                steps, rework, ckpt, durable = _cap_cut(
                    pos, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps
                )
                swings[i] += steps
                lost[i, REWORK] += rework
                lost[i, CHECKPOINT] += ckpt
                p += durable
                t = cap_hours
                break
            if c == EV_NONE:
                swings[i] += snap_steps * (n_seg - 1) + 1
                lost[i, CHECKPOINT] += n_seg * delta + persist
                if speedy:
                    lost[i, SLOWDOWN] += d_w - d_run
                t += d_w
                p = work_hours
                done = True
                break
            events += 1
            t += e_w
            if speedy:
                lost[i, SLOWDOWN] += e_w - e
            k, computed, ckpt, dk = _run_stop(
                e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist
            )
            swings[i] += snap_steps * k + 1
            lost[i, CHECKPOINT] += ckpt
            if dk > 0:
                left = 0  # a newer checkpoint became durable in this run
            if c == EV_MAINT:
                maint_events[i] += 1
            else:
                interruptions[i, c] += 1
            if events >= max_events:
                lost[i, REWORK] += computed - dk * tau
                p += dk * tau
                break
            if c == EV_MAINT:
                dt = delta + persist
                if t + dt > cap_hours:
                    extra = cap_hours - t
                    if speedy:
                        extra = _nominal(t, cap_hours, speed_amp, sphase)
                    durable = _durable_after(e, extra, tau, delta, persist, n_seg)
                    lost[i, REWORK] += computed - durable
                    lost[i, CHECKPOINT] += cap_hours - t
                    p += durable
                    t = cap_hours
                    break
                lost[i, CHECKPOINT] += dt
                t += dt
                p += computed
                left = 0  # the maintenance checkpoint is durable
                t, capped = _spend(
                    lost, i, MAINTENANCE, t, maint_hours * _jitter(rng, jm), cap_hours
                )
                if capped:
                    break
                n_seg, r = _segments(work_hours - p, tau)
                last_start = (n_seg - 1) * seg
                tail = r + delta + persist
                r_eff = restart_hours * _jitter(rng, jr)
                restarts_storage[i] += 1
                continue
            lost[i, REWORK] += computed - dk * tau
            p += dk * tau
            n_seg -= dk
            last_start = (n_seg - 1) * seg
        # ---- recovery of category c (struck node of type bt), then a restart
        t_fail = t
        t, capped = _spend(lost, i, DETECTION, t, detect_hours[c] * _jitter(rng, jd), cap_hours)
        if capped:
            break
        t, capped, need, big, short, _, _ = _node_recover(
            rng, i, t, c, bt, WHO_TYPE, t_fail, NO_RECORD, 0, cap_hours, n, n_bad,
            (is_dom, dom, swap, diag_hours, diag_wrong),
            (lemon_k, lemon_window, k_ring, unlimited, keep, track, n_standbys, bad_fraction,
             preempt_hours, swap_hours, js, repair_hours, escalate_prob, manual_repair_hours,
             repair_fixed, auto_miss, manual_miss, retire_after),
            (nc, ll, lst, rec, recf, free, meta, qt, qr, fs),
            (nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual,
             nodes_retired, wrong_blames, standby_swaps),
            lost,
        )  # fmt: skip
        left += need
        if nc[2 * L_JOB + BAD] != n_bad:  # the job's rates change with its bad nodes
            n_bad = nc[2 * L_JOB + BAD]
            w_good, w_bad, w_dom = _node_rates(n, n_bad, g_sum, h_sum, d_sum)
            fail_rate = w_good + w_bad + w_dom
            if modulated:
                fail_rate, zr, zi = _node_modulation(
                    w, wg, wb, wd, n, n_bad, cat_amp, cos_i, sin_i, pc, ps
                )
                amp = math.hypot(zr, zi)
                theta = math.atan2(zi, zr)
            rate = fail_rate + maint_rate
            inv_rate = 1.0 / rate if rate > 0.0 else np.inf
        if capped:
            break
        if mem_on and not big and left <= mem_replicas:
            r_eff = mem_restart_hours * _jitter(rng, jr)
            restarts_memory[i] += 1
        else:
            r_eff = restart_hours * _jitter(rng, jr)
            restarts_storage[i] += 1
    st_f[0] = t
    st_f[1] = p
    st_f[2] = r
    st_f[3] = r_eff
    st_f[4] = tw_a
    st_f[5] = tw_b
    st_f[6] = tw_lo
    st_f[7] = tw_hi
    st_i[0] = n_seg
    st_i[1] = events
    st_i[2] = left
    st_i[3] = short
    st_i[4] = n_bad
    return grow, done


@jit
def _node_split(cat_rate, d, is_dom, mix, m_i, wg, wb, wd):
    """Split draw ``d``'s category rates into a good node's, a bad node's and domain parts.

    ``wg[c]``, ``wb[c]``: the job's rate of node-domain category ``c`` if all its nodes were
    good, or all bad (``mix[c] = 1 - f + f m_c``); ``wd[c]``: a domain category's rate.
    Returns their sums ``(g_sum, h_sum, d_sum)``.
    """
    g_sum = 0.0
    h_sum = 0.0
    d_sum = 0.0
    for c in range(cat_rate.shape[1]):
        lam = cat_rate[d, c]
        if is_dom[c]:
            wd[c] = lam
            d_sum += lam
        else:
            wg[c] = lam / mix[c]
            wb[c] = lam * m_i[c] / mix[c]
            g_sum += wg[c]
            h_sum += wb[c]
    return g_sum, h_sum, d_sum


@jit
def _zero_node_counts(
    i, nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired,
    wrong_blames, standby_swaps, restarts_memory, restarts_storage,
):  # fmt: skip
    """Set trial ``i``'s node-model counts to 0 (a node path's start, or no node model)."""
    nodes_excluded_bad[i] = 0
    nodes_excluded_good[i] = 0
    repairs_auto[i] = 0
    repairs_manual[i] = 0
    nodes_retired[i] = 0
    wrong_blames[i] = 0
    standby_swaps[i] = 0
    restarts_memory[i] = 0
    restarts_storage[i] = 0


@jit
def _node_start(
    rng, i, n, n_standbys, n_spares, f_i, nc, ll, meta, fs, nodes_excluded_bad,
    nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired, wrong_blames,
    standby_swaps, restarts_memory, restarts_storage,
):  # fmt: skip
    """Start trial ``i`` of the node model: its counts at zero, its nodes placed.

    The bad nodes in the job, among the standbys and in the pool are binomial at the
    trial's fraction ``f_i``; no records, nothing in repair. Returns the job's bad nodes.
    """
    _zero_node_counts(
        i, nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired,
        wrong_blames, standby_swaps, restarts_memory, restarts_storage,
    )  # fmt: skip
    meta[:] = 0
    ll[:] = 0
    fs[:] = 0.0
    unlimited = n_spares < 0
    n_bad = _binomial(rng, n, f_i)
    nc[2 * L_JOB + GOOD] = n - n_bad
    nc[2 * L_JOB + BAD] = n_bad
    b = _binomial(rng, n_standbys, f_i)
    nc[2 * L_STANDBY + GOOD] = n_standbys - b
    nc[2 * L_STANDBY + BAD] = b
    b = 0 if unlimited else _binomial(rng, n_spares, f_i)
    nc[2 * L_POOL + GOOD] = 0 if unlimited else n_spares - b
    nc[2 * L_POOL + BAD] = b
    return n_bad


@jit
def _node_end(
    rng, i, t, short, n_bad, n, n_standbys, n_spares, keep, nc, ll, lst, rec, free, meta, qt,
    qr, fs, repair_hours, escalate_prob, manual_repair_hours, repair_fixed, auto_miss,
    manual_miss, nodes_excluded_bad, nodes_excluded_good, repairs_manual, nodes_retired,
    pool_occupancy, stats,
):  # fmt: skip
    """End trial ``i`` of the node model at wall time ``t``.

    Repairs completed by the end count; the pool's time average over the wall hours.
    ``short`` nodes still owed at the cap, ``n_bad`` the bad nodes the trial's rates used.
    Then the bookkeeping checks into ``stats`` (see :func:`_block_nodes`).
    """
    unlimited = n_spares < 0
    _settle(
        rng, t, nc, lst, ll, rec, free, meta, qt, qr, fs, unlimited, keep, n_standbys,
        repair_hours, escalate_prob, manual_repair_hours, repair_fixed, auto_miss,
        manual_miss, i, repairs_manual,
    )  # fmt: skip
    if unlimited:
        pool_occupancy[i] = np.nan
    else:
        _occupancy(fs, nc, t)
        pool_occupancy[i] = fs[F_OCC] / t if t > 0.0 else float(n_spares)
    # bookkeeping checks (tests read stats; a correct kernel leaves them at zero)
    held = 0
    listed = 0
    for q in range(6):
        held += nc[q]
        listed += ll[q]
        if ll[q] > nc[q] or nc[q] < 0:
            stats[1] += 1
    out = nodes_excluded_bad[i] + nodes_excluded_good[i] + nodes_retired[i]
    if nc[2 * L_JOB] + nc[2 * L_JOB + 1] + short != n or n_bad != nc[2 * L_JOB + BAD]:
        stats[0] += 1
    if not unlimited and held + meta[M_REPAIR] + out != n + n_standbys + n_spares:
        stats[0] += 1
    if meta[M_HIGH] - meta[M_NFREE] != listed + meta[M_REPAIR]:
        stats[2] += 1
    if stats.shape[0] > 3:
        for q in range(6):
            for j in range(ll[q]):
                if (rec[lst[q, j], R_WORD] & 1) != q % 2:
                    stats[3] += 1


@jit
def _block_nodes(
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
    cat_amp,
    cat_phase,
    start_hour,
    trend_shape,
    fleet_age_hours,
    speed_amp,
    speed_phase,
    n_nodes,
    bad_fraction,
    bad_multiplier,
    cat_domain,
    diag_hours,
    diag_wrong,
    lemon_k,
    lemon_window,
    repair_fixed,
    escalate_prob,
    manual_repair_hours,
    auto_miss,
    manual_miss,
    retire_after,
    n_standbys,
    preempt_hours,
    mem_restart_hours,
    mem_replicas,
    overhead_factor,
    overhead_jitter,
    draw_amp,
    draw_phase,
    draw_trend,
    draw_bad_fraction,
    draw_bad_multiplier,
    cat_profile,
    week_hour0,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
    nodes_excluded_bad,
    nodes_excluded_good,
    repairs_auto,
    repairs_manual,
    nodes_retired,
    wrong_blames,
    standby_swaps,
    restarts_memory,
    restarts_storage,
    pool_occupancy,
    stats,
):
    """Run the node path over a block of trials (the node model on; see :mod:`relmc.sim`).

    The timeline of runs, restarts, maintenance, the wall cap and the event budget is the
    general path's (:func:`_trial_general`), with the rates of node-domain categories set by
    the bad nodes in the job and recovery through diagnosis, blame, lemon detection, standbys,
    the pool and the repair pipeline. Each repair stage is a FIFO queue of completion times
    (fixed durations) or a list with its next completion (exponential, memoryless), so a
    repair costs O(1); records, lists and stages double their capacity as needed. ``stats`` counts
    broken bookkeeping at the end of trials (for tests; always zero): ``[0]`` nodes not
    conserved, ``[1]`` more records listed at a place than nodes there, ``[2]`` records
    leaked, and, only when ``stats`` has a fourth slot (the tests'; it reads every listed
    record, which at 1M GPUs touches ~125,000 of them at random per trial), ``[3]`` listed
    records whose type is not their list's. Physics per draw: each trial takes its draw's
    rows of ``draw_amp`` .. ``draw_bad_multiplier`` (no rows: the single values) for its
    shapes, its initial bad nodes, its pool draws and its rates; failure rates are
    time-varying for the whole block if any draw or the single values make them so, or
    ``cat_profile`` has rows (periodic profiles: each category's factor in the hour
    multiplies its per-type rates). Uncertain overheads: each trial takes its draw's row of
    ``overhead_factor`` (:func:`_trial_overheads`;
    every category's diagnosis and the preemption, :func:`_trial_node_overheads`), and each
    restart, swap, detection and maintenance downtime its jitter.
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    n = n_nodes
    keep = lemon_k > 0 or retire_after > 0  # a repaired node's history still matters
    k_ring = max(lemon_k, 1)
    is_dom = np.zeros(n_cat, dtype=np.bool_)
    dom = np.ones(n_cat, dtype=np.int64)
    mix = np.empty(n_cat)  # 1 - f + f m_c: the fleet's mix relative to a good node
    m_i = np.empty(n_cat)  # the trial's bad-node multipliers
    d_max = 1
    f_i = _trial_bad(draw_bad_fraction, draw_bad_multiplier, 0, bad_fraction, bad_multiplier, m_i)
    for c in range(n_cat):
        if min(cat_domain[c], n) > 1:  # a domain of one node is a node
            is_dom[c] = True
            dom[c] = min(cat_domain[c], n)
            d_max = max(d_max, dom[c])
        mix[c] = 1.0 - f_i + f_i * m_i[c]
    per_bad = draw_bad_fraction.shape[0] > 0 or draw_bad_multiplier.shape[0] > 0
    modulated = time_varying(cat_amp, trend_shape) or _draws_vary(draw_amp, draw_trend)
    modulated = modulated or cat_profile.shape[0] > 0
    qmax = np.ones(cat_profile.shape[0])  # each profile's maximum
    same_profile = _profile_max(cat_profile, qmax)  # (no rows: True)
    per_shape = draw_amp.shape[0] > 0 or draw_phase.shape[0] > 0 or draw_trend.shape[0] > 0
    amp_i = np.empty(n_cat)  # the trial's diurnal amplitudes and peaks
    phase_i = np.empty(n_cat)
    trend_i = _trial_shape(
        draw_amp, draw_phase, draw_trend, 0, cat_amp, cat_phase, trend_shape, amp_i, phase_i
    )
    cos_i = np.empty(n_cat)  # the cosines and sines of the peak hours' angles
    sin_i = np.empty(n_cat)
    _diurnal_angles(phase_i, start_hour, cos_i, sin_i)
    wg = np.zeros(n_cat)  # per good node's share, per bad node's share, domain categories
    wb = np.zeros(n_cat)
    wd = np.zeros(n_cat)
    pg = np.empty(n_cat)  # alias tables: good-node, bad-node and domain failures
    sg = np.empty(n_cat, dtype=np.int64)
    ag = np.empty(n_cat, dtype=np.int64)
    pb = np.empty(n_cat)
    sb = np.empty(n_cat, dtype=np.int64)
    ab = np.empty(n_cat, dtype=np.int64)
    pd = np.empty(n_cat)
    sd = np.empty(n_cat, dtype=np.int64)
    ad = np.empty(n_cat, dtype=np.int64)
    st_f = np.zeros(8)  # a trial's resumable state (see _trial_nodes)
    st_i = np.zeros(5, dtype=np.int64)
    n_slots = np.zeros(3, dtype=np.int64)
    small = np.empty(n_cat, dtype=np.int64)
    large = np.empty(n_cat, dtype=np.int64)
    w = np.zeros(n_cat)  # modulated: each category's rate now
    pc = np.zeros(n_cat)
    ps = np.zeros(n_cat)
    n_seg0, r0 = _segments(work_hours, tau)
    nc = np.zeros(6, dtype=np.int64)
    ll = np.zeros(6, dtype=np.int64)
    rec = np.empty((_CAP0, R_T0 + k_ring), dtype=np.int64)
    recf = rec.view(np.float64)  # the same rows, for the failure times
    free = np.empty(_CAP0, dtype=np.int64)
    lst = np.empty((6, _CAP0), dtype=np.int32)  # record ids, narrow like the records
    qt = np.empty((2, _CAP0))  # the repair stages (see _repair_add)
    qr = np.empty((2, _CAP0), dtype=np.int64)
    meta = np.zeros(N_META, dtype=np.int64)
    fs = np.zeros(N_FS)
    det = np.empty(n_cat)  # the trial's detection hours
    diag = np.empty(n_cat)  # the trial's diagnosis hours
    jr, js, jd, jm = _jitters(overhead_jitter)
    for i in range(n_trials):
        d = draw_of_trial[i]
        delta_i, persist_i, restart_i, mem_i, swap_i, maint_i = _trial_overheads(
            overhead_factor, d, detect_hours, det, tau, delta, persist, restart_hours,
            mem_restart_hours, swap_hours, maint_hours,
        )  # fmt: skip
        preempt_i = _trial_node_overheads(overhead_factor, d, diag_hours, diag, preempt_hours)
        if per_shape:
            trend_i = _trial_shape(
                draw_amp, draw_phase, draw_trend, d, cat_amp, cat_phase, trend_shape, amp_i,
                phase_i,
            )  # fmt: skip
            _diurnal_angles(phase_i, start_hour, cos_i, sin_i)
        if per_bad:
            f_i = _trial_bad(
                draw_bad_fraction, draw_bad_multiplier, d, bad_fraction, bad_multiplier, m_i
            )
            for c in range(n_cat):
                mix[c] = 1.0 - f_i + f_i * m_i[c]
        g_sum, h_sum, d_sum = _node_split(cat_rate, d, is_dom, mix, m_i, wg, wb, wd)
        n_slots[0] = _build_alias(wg, n_cat, pg, sg, ag, small, large)
        n_slots[1] = _build_alias(wb, n_cat, pb, sb, ab, small, large)
        n_slots[2] = _build_alias(wd, n_cat, pd, sd, ad, small, large)
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        n_bad = _node_start(
            rng, i, n, n_standbys, n_spares, f_i, nc, ll, meta, fs, nodes_excluded_bad,
            nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired, wrong_blames,
            standby_swaps, restarts_memory, restarts_storage,
        )  # fmt: skip
        st_f[0] = 0.0
        st_f[1] = 0.0
        st_f[2] = r0
        st_f[3] = 0.0
        st_f[4] = 0.0  # no trend window yet
        st_f[5] = -1.0
        st_f[6] = 0.0
        st_f[7] = 0.0
        st_i[0] = n_seg0
        st_i[1] = 0
        st_i[2] = 0
        st_i[3] = 0
        st_i[4] = n_bad
        while True:
            grow, done = _trial_nodes(
                rng, i, st_f, st_i, g_sum, h_sum, d_sum, wg, wb, wd, pg, sg, ag, pb, sb, ab,
                pd, sd, ad, n_slots, is_dom, dom, d_max, w, pc, ps, det, swap,
                maint_rate, maint_i, work_hours, tau, delta_i, persist_i, restart_i,
                swap_i, n_spares, repair_hours, cap_hours, max_events, modulated, amp_i,
                phase_i, start_hour, cos_i, sin_i, trend_i, fleet_age_hours, speed_amp,
                speed_phase, n_nodes,
                f_i, diag, diag_wrong, lemon_k, lemon_window, repair_fixed,
                escalate_prob, manual_repair_hours, auto_miss, manual_miss, retire_after,
                n_standbys, preempt_i, mem_i, mem_replicas, nc, ll, lst, rec,
                recf, free, meta, qt, qr, fs, interruptions, maint_events, lost, swings,
                nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual,
                nodes_retired, wrong_blames, standby_swaps, restarts_memory, restarts_storage,
                jr, js, jd, jm, cat_profile, qmax, week_hour0, same_profile,
            )  # fmt: skip
            if not grow:
                break
            rec, free, lst, qt, qr = _ensure(rec, free, lst, qt, qr, meta, d_max)
            recf = rec.view(np.float64)
        t = st_f[0]
        wall[i] = t
        finished[i] = done
        progress[i] = st_f[1]
        n_events[i] = st_i[1]
        _node_end(
            rng, i, t, st_i[3], st_i[4], n, n_standbys, n_spares, keep, nc, ll, lst, rec, free,
            meta, qt, qr, fs, repair_hours, escalate_prob, manual_repair_hours, repair_fixed,
            auto_miss, manual_miss, nodes_excluded_bad, nodes_excluded_good, repairs_manual,
            nodes_retired, pool_occupancy, stats,
        )  # fmt: skip


# ---- stragglers and silent data corruption (issue 11; see relmc.sim) -------------------------
STRAGGLER = CAUSES.index("straggler")
KIND_FAILURE, KIND_STRAGGLER, KIND_SDC = 0, 1, 2
# relative to min(tau, work_hours), the scale of progress: a checkpoint at the corrupted
# progress still qualifies (relative to tau alone, a tau far above the job would make it hours)
_SDC_RTOL = 1e-9


@jit
def physics_on(cat_kind):
    """Whether any category is a straggler or SDC category (the physics path's switch)."""
    for c in range(cat_kind.shape[0]):
        if cat_kind[c] != KIND_FAILURE:
            return True
    return False


@jit(_nrt=False, forceinline=True)
def _active_rates(w, cat_kind, cat_amp, cos_a, sin_a, strag_on, sdc_on, wa, pca, psa, modulated):
    """Rates of the categories whose clocks run now, in ``wa``: ``(sum, zr, zi, amp, theta)``.

    Straggler categories are paused while a straggler is active, SDC categories while a
    corruption is latent; failure categories always run. Diurnal terms only if
    ``modulated`` (else zero), from the cosines and sines of the categories' peak-hour angles
    (:func:`_diurnal_angles`, computed by the caller when the peak hours change: the same
    floats as :func:`_diurnal_terms`, without two trigonometric calls per category at every
    change of the running clocks: a straggler's start or end, an SDC's strike or rollback).
    ``amp``, ``theta``: the summed terms' amplitude and phase, ``hypot(zr, zi)`` and
    ``atan2(zi, zr)`` (0 and 0 unmodulated, as those give).
    """
    tot = 0.0
    for c in range(w.shape[0]):
        k = cat_kind[c]
        run = k == KIND_FAILURE or (k == KIND_STRAGGLER and not strag_on)
        run = run or (k == KIND_SDC and not sdc_on)
        wa[c] = w[c] if run else 0.0
        tot += wa[c]
    if not modulated:
        return tot, 0.0, 0.0, 0.0, 0.0
    zr, zi = _diurnal_terms_at(wa, cat_amp, cos_a, sin_a, pca, psa)
    return tot, zr, zi, math.hypot(zr, zi), math.atan2(zi, zr)


@jit(_nrt=False, forceinline=True)
def _pick_scan(u, wa):
    """Category of a constant-rate failure: ``u`` uniform on ``[0, sum(wa))``, one scan."""
    acc = 0.0
    last = 0
    for c in range(wa.shape[0]):
        if wa[c] > 0.0:
            acc += wa[c]
            last = c
            if u < acc:
                return c
    return last


@jit
def _pool_wait(rng, t, n_repair, next_done, n_spares, repair_hours, lost, i, cap_hours):
    """Send a failed node to repair at ``t``; wait for a spare if the pool is short.

    :func:`_pool_swap` (the finite pool of the general and pool paths), with the wait spent
    as ``spare_wait`` up to the cap. Returns ``(t, capped, n_repair, next_done)``.
    """
    wait, ready, n_repair, next_done = _pool_swap(
        rng, t, n_repair, next_done, n_spares, repair_hours
    )
    capped = False
    if wait:
        t, capped = _spend(lost, i, SPARE_WAIT, t, ready - t, cap_hours)
    return t, capped, n_repair, next_done


@jit(_nrt=False, forceinline=True)
def _ring_put(rf, rn, nr, first, n, tau, retention, tol):
    """Add ``n`` durable checkpoints at progress ``first + j tau`` (``j < n``) to the ring.

    The ring is a list of arithmetic runs ``(rf[j], rn[j])`` in increasing progress; a run
    that continues the newest one is merged into it. With ``retention = K >= 1`` only the
    ``K`` newest checkpoints are kept (``O(K)`` per call at most). ``tol``: how far a run's
    next checkpoint may be from ``first`` to continue it (rounding). The arrays must have
    room for one more run: the callers grow them with :func:`_grow1` only when short (the
    physics path once grew and returned them through a call at every stop, their reference
    counts taken and dropped each time: 1.46x slower). Returns the number of runs.
    """
    if n <= 0:
        return nr
    if nr > 0 and abs(rf[nr - 1] + rn[nr - 1] * tau - first) <= tol:
        rn[nr - 1] += n
    else:
        rf[nr] = first
        rn[nr] = n
        nr += 1
    if retention > 0:
        total = 0
        for j in range(nr):
            total += rn[j]
        drop = total - retention
        j0 = 0
        while drop > 0:
            m = min(rn[j0], drop)
            rf[j0] += m * tau
            rn[j0] -= m
            drop -= m
            if rn[j0] == 0:
                j0 += 1
        if j0 > 0:
            for j in range(j0, nr):
                rf[j - j0] = rf[j]
                rn[j - j0] = rn[j]
            nr -= j0
    return nr


@jit(_nrt=False, forceinline=True)
def _ring_rollback(rf, rn, nr, p_c, tau, tol):
    """Newest retained checkpoint at progress ``<= p_c``; drops the newer ones.

    Returns ``(q, skipped, nr)``: its progress (0 and ``nr = 0`` when none qualifies) and
    the number of retained checkpoints newer than it.
    """
    lim = p_c + tol
    skipped = 0
    j = nr - 1
    while j >= 0:
        if rf[j] > lim:
            skipped += rn[j]
            j -= 1
            continue
        m = int((lim - rf[j]) / tau)
        if m > rn[j] - 1:
            m = rn[j] - 1
        skipped += rn[j] - 1 - m
        rn[j] = m + 1
        return rf[j] + m * tau, skipped, j + 1
    return 0.0, skipped, 0


@jit
def _block_physics(
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
    cat_amp,
    cat_phase,
    start_hour,
    trend_shape,
    fleet_age_hours,
    speed_amp,
    speed_phase,
    cat_kind,
    straggler_speed,
    sdc_latency,
    sdc_latency_exp,
    retention,
    overhead_factor,
    overhead_jitter,
    draw_amp,
    draw_phase,
    draw_trend,
    cat_profile,
    week_hour0,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
    sdc_rollbacks,
    sdc_from_scratch,
    sdc_undetected,
    sdc_rework,
):
    """Run the physics path (stragglers, SDC) over a block of trials (see :mod:`relmc.sim`).

    An event loop over the exposed phases (a restart, a run): at each step but one the next
    arrival is drawn afresh from the categories whose clocks run now (exact for Poisson
    processes, constant or time-varying, by independent increments) and compared with the
    deterministic times ahead: the restart's end, the run's end, a straggler's handling, an
    SDC's detection, the cap. The exception: where a restart ends first and the run begins
    with the same clocks (no straggler handled at the restart's end), the arrival drawn in
    the restart is the run's: given none came before the restart's end, it is distributed
    as a fresh draw from there (independent increments again), and one draw is saved per
    restart that completes (the physics path 1.08x, with diurnal rates 1.34x; the random
    streams move). A run's nominal
    position is ``e_a + sig (S(t) - S(t_a))`` from an anchor ``(t_a, e_a)`` moved at each
    change of the straggler factor ``sig``; segments are located arithmetically only when
    the run stops. Retained checkpoints are a ring of arithmetic runs (:func:`_ring_put`).
    Cost O(events), O(K) per event at most. Uncertain
    overheads: each trial takes its draw's row of ``overhead_factor`` (also every SDC
    category's latency: the fixed value, or the exponential's mean), and each restart,
    swap, detection (a straggler's slow phase, drawn at its arrival) and maintenance
    downtime its jitter (:func:`_jitter`). Physics per draw: each trial takes its draw's rows
    of ``draw_amp``, ``draw_phase``, ``draw_trend`` (no rows: the single values); failure
    rates are time-varying for the whole block if any draw or the single values make them so,
    or ``cat_profile`` has rows (periodic profiles, on the rates of the clocks that run).
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    w = np.zeros(n_cat)
    wa = np.zeros(n_cat)
    pca = np.zeros(n_cat)
    psa = np.zeros(n_cat)
    modulated = time_varying(cat_amp, trend_shape) or _draws_vary(draw_amp, draw_trend)
    modulated = modulated or cat_profile.shape[0] > 0
    qmax = np.ones(cat_profile.shape[0])  # each profile's maximum
    _profile_max(cat_profile, qmax)
    per_shape = draw_amp.shape[0] > 0 or draw_phase.shape[0] > 0 or draw_trend.shape[0] > 0
    amp_i = np.empty(n_cat)  # the trial's diurnal amplitudes and peaks
    phase_i = np.empty(n_cat)
    trend_i = _trial_shape(
        draw_amp, draw_phase, draw_trend, 0, cat_amp, cat_phase, trend_shape, amp_i, phase_i
    )
    cos_i = np.empty(n_cat)  # the cosines and sines of the peak hours' angles
    sin_i = np.empty(n_cat)
    _diurnal_angles(phase_i, start_hour, cos_i, sin_i)
    speedy = speed_amp > 0.0
    sphase = start_hour - speed_phase
    n_seg0, r0 = _segments(work_hours, tau)
    tol = _SDC_RTOL * min(tau, work_hours)  # rounding allowance on progress
    rf = np.empty(8)
    rn = np.empty(8, dtype=np.int64)
    det = np.empty(n_cat)  # the trial's detection hours
    lat_i = np.empty(n_cat)  # the trial's SDC latencies (fixed, or the exponential's mean)
    jr, js, jd, jm = _jitters(overhead_jitter)
    delta0 = delta  # the given snapshot and persist; delta, persist are the trial's below
    persist0 = persist
    for i in range(n_trials):
        d = draw_of_trial[i]
        # the trial's overheads (its draw's factors; the given ones when off)
        delta, persist, restart_i, _, swap_i, maint_i = _trial_overheads(
            overhead_factor, d, detect_hours, det, tau, delta0, persist0, restart_hours, -1.0,
            swap_hours, maint_hours,
        )  # fmt: skip
        _trial_scaled(overhead_factor, d, F_SDC_LATENCY, sdc_latency, lat_i)
        if per_shape:
            trend_i = _trial_shape(
                draw_amp, draw_phase, draw_trend, d, cat_amp, cat_phase, trend_shape, amp_i,
                phase_i,
            )  # fmt: skip
            _diurnal_angles(phase_i, start_hour, cos_i, sin_i)
        snap_steps = 2 if delta > 0.0 else 0
        seg = tau + delta
        inv_seg = 1.0 / seg
        for c in range(n_cat):
            w[c] = cat_rate[d, c]
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        lost[i, STRAGGLER] = 0.0
        sdc_rollbacks[i] = 0
        sdc_from_scratch[i] = 0
        sdc_rework[i] = 0.0
        t = 0.0
        p = 0.0
        n_seg = n_seg0
        r = r0
        last_start = (n_seg - 1) * seg
        d_run = last_start + r + delta + persist
        events = 0
        done = False
        tw_a = 0.0  # the trend's window [tw_a, tw_b) (:func:`_fail_gap`): none yet this trial
        tw_b = -1.0
        tw_lo = 0.0
        tw_hi = 0.0
        nr = 0  # runs in the ring of retained checkpoints
        n_repair = 0
        next_done = NO_REPAIR
        s_on = False  # a straggler is active: its category, handling time, speed factor
        s_cat = 0
        s_handle = np.inf
        sig = 1.0
        c_on = False  # a corruption is latent: its category, detection time, progress
        c_cat = 0
        c_detect = np.inf
        c_prog = 0.0
        fail_rate, zr, zi, amp, theta = _active_rates(
            w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa, modulated
        )
        in_restart = False
        t_rend = 0.0
        t_a = 0.0  # the run's anchor: wall time and nominal position
        e_a = 0.0
        swings[i] += 1  # the job starts computing
        g_fail = np.inf  # the next arrival: failure and maintenance gaps, the time
        g_maint = np.inf
        t_arr = np.inf
        kept = False  # the arrival drawn in a restart, past its end, goes to the run
        grow = False  # the ring grown here, between events (see below)
        while True:
            if grow:
                rf = _grow1(rf, nr + 2)
                rn = _grow1(rn, nr + 2)
                grow = False
            while True:
                # room for an event's runs in the ring (a stop puts two at most): grown in the
                # loop around, so that the arrays are not rebound in this one (a rebound array
                # takes and drops references at every event)
                if nr + 2 > rf.shape[0]:
                    grow = True
                    break
                if kept:
                    kept = False
                else:
                    # ---- the next arrival, drawn from now with the clocks that run now
                    g_fail = np.inf
                    g_maint = np.inf
                    if modulated:
                        if fail_rate > 0.0:
                            g_fail, tw_a, tw_b, tw_lo, tw_hi = _next_failure(
                                rng, t, fail_rate, amp, theta, wa, cat_profile, qmax, NO_TABLE,
                                week_hour0, trend_i, fleet_age_hours, cap_hours, tw_a, tw_b,
                                tw_lo, tw_hi,
                            )  # fmt: skip
                        if maint_rate > 0.0:
                            g_maint = _gap(rng) / maint_rate
                        t_arr = t + min(g_fail, g_maint)
                    else:
                        tot = fail_rate + maint_rate
                        t_arr = t + _gap(rng) / tot if tot > 0.0 else np.inf
                t_det = max(c_detect, t) if c_on else np.inf
                rc = -1  # category to recover from (and restart after), -1: none
                rc_detect = 0.0  # its detection hours to spend
                rc_detect_on = False  # a detection begins (jittered): a failure's, an SDC's
                ckpt_stop = False  # stop with a fresh checkpoint (maintenance, straggler)
                maint_stop = False
                sdc_stop = False
                arrival = False
                if in_restart:
                    # a detection due at the restart's start (or in it) comes before its end
                    if t_det <= t_arr and t_det <= t_rend:
                        t_next = t_det
                        sdc_stop = True
                    elif t_arr < t_rend:
                        t_next = t_arr
                        arrival = True
                    else:
                        t_next = t_rend
                    if t_next > cap_hours:
                        lost[i, RESTART] += cap_hours - t
                        t = cap_hours
                        break
                    lost[i, RESTART] += t_next - t
                    t = t_next
                    if not (sdc_stop or arrival):
                        # ---- the restart completes
                        in_restart = False
                        if s_on and s_handle <= t:
                            # a straggler detected during the restart: handled at its end,
                            # nothing computed yet, so no checkpoint
                            rc = s_cat
                        else:
                            swings[i] += 1
                            t_a = t
                            e_a = 0.0
                            sig = straggler_speed[s_cat] if s_on else 1.0
                            kept = True  # the same clocks run on: the arrival stands
                            continue
                else:
                    # ---- a run: which comes first, an event or the run's end?
                    t_next = min(t_arr, t_det)
                    if s_on:
                        t_next = min(t_next, s_handle)
                    e_next = np.inf
                    if t_next < np.inf:
                        ds = _nominal(t_a, t_next, speed_amp, sphase) if speedy else t_next - t_a
                        e_next = e_a + sig * ds
                    ends = e_next >= d_run
                    if ends:
                        dn = (d_run - e_a) / sig
                        t_next = t_a + (_wall_for(t_a, dn, speed_amp, sphase) if speedy else dn)
                    t_stop = min(t_next, cap_hours)
                    ds = _nominal(t_a, t_stop, speed_amp, sphase) if speedy else t_stop - t_a
                    if speedy:
                        lost[i, SLOWDOWN] += (t_stop - t_a) - ds
                    if sig < 1.0:
                        lost[i, STRAGGLER] += (1.0 - sig) * ds
                    e = e_a + sig * ds
                    t = t_stop
                    t_a = t
                    e_a = e
                    if t_next > cap_hours:
                        # ---- the cap cuts the run
                        steps, rework, ckpt, durable = _cap_cut(
                            e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist, snap_steps
                        )
                        swings[i] += steps
                        lost[i, REWORK] += rework
                        lost[i, CHECKPOINT] += ckpt
                        p += durable
                        break
                    if ends:
                        swings[i] += snap_steps * (n_seg - 1) + 1
                        lost[i, CHECKPOINT] += n_seg * delta + persist
                        p = work_hours
                        done = True
                        break
                    if t_det <= t_next:
                        sdc_stop = True
                    elif t_arr <= t_next:
                        arrival = True
                    else:
                        ckpt_stop = True  # the straggler is handled now
                        rc = s_cat
                c = -1
                if arrival:
                    if modulated:
                        if g_maint < g_fail:
                            maint_stop = True
                        else:
                            c = _pick_time(
                                rng, t, wa, pca, psa, fail_rate, zr, zi, cat_profile, NO_TABLE,
                                week_hour0,
                            )  # fmt: skip
                    else:
                        u = rng.random() * (fail_rate + maint_rate)
                        if u >= fail_rate:
                            maint_stop = True
                        else:
                            c = _pick_scan(u, wa)
                    if maint_stop and not in_restart and e_a >= last_start + r:
                        continue  # a planned event after the last compute: deferred, uncounted
                    sdc_arrival = not maint_stop and cat_kind[c] == KIND_SDC
                    if not sdc_arrival:  # an SDC is an event when it is detected
                        events += 1
                        if maint_stop:
                            maint_events[i] += 1
                        else:
                            interruptions[i, c] += 1
                    if sdc_arrival or (
                        events < max_events and not maint_stop and cat_kind[c] == KIND_STRAGGLER
                    ):
                        # a straggler or a corruption: the job runs on
                        if cat_kind[c] == KIND_STRAGGLER:
                            s_on = True
                            s_cat = c
                            s_handle = t + det[c] * _jitter(rng, jd)  # its slow phase
                            if not in_restart:
                                sig = straggler_speed[c]
                            if not in_restart and e_a >= last_start + r:
                                s_handle = np.inf  # after the last compute: never handled
                        else:
                            c_on = True
                            c_cat = c
                            lat = lat_i[c]
                            if sdc_latency_exp[c]:
                                lat = rng.standard_exponential() * lat
                            c_detect = t + lat
                            c_prog = p
                            if not in_restart:
                                k, x, s_k = _locate(e_a, n_seg, last_start, r, tau, seg, inv_seg)
                                c_prog = p + k * tau + min(x, s_k)
                        fail_rate, zr, zi, amp, theta = _active_rates(
                            w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa,
                            modulated,
                        )  # fmt: skip
                        continue
                    if not maint_stop:
                        rc = c
                        rc_detect = det[c]
                        rc_detect_on = True
                if ckpt_stop and e_a >= last_start + r:
                    # a straggler whose handling falls after the job's last compute (it arrived
                    # in the restart before): never handled, the job finishes slow
                    s_handle = np.inf
                    continue
                if sdc_stop:
                    rc = c_cat
                    rc_detect = det[c_cat]
                    rc_detect_on = True
                    events += 1  # counted at detection; the trial may stop after the rollback
                # ---- the job stops (not after a restart-end straggler: nothing ran)
                if not in_restart and (arrival or sdc_stop or ckpt_stop):
                    e = e_a
                    k, computed, ckpt, dk = _run_stop(
                        e, n_seg, last_start, r, tau, seg, inv_seg, delta, persist
                    )
                    swings[i] += snap_steps * k + 1
                    lost[i, CHECKPOINT] += ckpt
                    if events >= max_events and arrival:
                        lost[i, REWORK] += computed - dk * tau
                        p += dk * tau
                        break
                    if maint_stop or ckpt_stop:
                        dt = delta + persist
                        if t + dt > cap_hours:
                            extra = cap_hours - t
                            if speedy:
                                extra = _nominal(t, cap_hours, speed_amp, sphase)
                            durable = _durable_after(e, extra, tau, delta, persist, n_seg)
                            lost[i, REWORK] += computed - durable
                            lost[i, CHECKPOINT] += cap_hours - t
                            p += durable
                            t = cap_hours
                            break
                        lost[i, CHECKPOINT] += dt
                        t += dt
                        # a persist in flight completes during it and is kept before it
                        nr = _ring_put(rf, rn, nr, p + tau, k, tau, retention, tol)
                        if computed > k * tau:
                            nr = _ring_put(rf, rn, nr, p + computed, 1, tau, retention, tol)
                            if c_on and p + computed <= c_prog + tol:
                                # begun after the corruption (in the snapshot it struck): the
                                # rollback takes an older one
                                c_prog = p + computed - 2.0 * tol
                        p += computed
                        n_seg, r = _segments(work_hours - p, tau)
                    else:
                        lost_run = computed - dk * tau
                        lost[i, REWORK] += lost_run
                        if sdc_stop:
                            sdc_rework[i] += lost_run
                        nr = _ring_put(rf, rn, nr, p + tau, dk, tau, retention, tol)
                        p += dk * tau
                        n_seg -= dk
                        if c_on and p < c_prog:
                            # a fall back while latent: every checkpoint taken from here on
                            # begins after the corruption
                            c_prog = p
                elif events >= max_events and arrival:
                    break  # (during a restart)
                if sdc_stop:
                    q, skipped, nr = _ring_rollback(rf, rn, nr, c_prog, tau, tol)
                    if q < p:
                        lost[i, REWORK] += p - q
                        sdc_rework[i] += p - q
                        p = q
                        n_seg, r = _segments(work_hours - p, tau)
                    sdc_rollbacks[i] += skipped
                    if nr == 0:
                        sdc_from_scratch[i] += 1
                        p = 0.0
                        n_seg, r = n_seg0, r0
                    interruptions[i, c_cat] += 1
                    c_on = False
                    c_detect = np.inf
                    if events >= max_events:
                        break  # the max_events-th event: stop after the rollback
                last_start = (n_seg - 1) * seg
                d_run = last_start + r + delta + persist
                in_restart = False
                sig = 1.0
                # the clocks that run change (else the rates stand as they are)
                if s_on or sdc_stop:
                    s_on = False  # any stop removes an active straggler with it
                    fail_rate, zr, zi, amp, theta = _active_rates(
                        w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa, modulated
                    )
                s_handle = np.inf
                if maint_stop:
                    t, capped = _spend(
                        lost, i, MAINTENANCE, t, maint_i * _jitter(rng, jm), cap_hours
                    )
                    if capped:
                        break
                else:
                    # ---- recovery of category rc (a straggler's detection was its slow phase:
                    # a handled straggler spends no detection and draws none)
                    if rc_detect_on:
                        rc_detect *= _jitter(rng, jd)
                    t, capped = _spend(lost, i, DETECTION, t, rc_detect, cap_hours)
                    if capped:
                        break
                    if swap[rc]:
                        if n_spares >= 0:
                            t, capped, n_repair, next_done = _pool_wait(
                                rng, t, n_repair, next_done, n_spares, repair_hours, lost, i,
                                cap_hours,
                            )  # fmt: skip
                            if capped:
                                break
                        t, capped = _spend(
                            lost, i, NODE_SWAP, t, swap_i * _jitter(rng, js), cap_hours
                        )
                        if capped:
                            break
                in_restart = True
                t_rend = t + restart_i * _jitter(rng, jr)
            if not grow:
                break
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events
        sdc_undetected[i] = 1 if c_on else 0


@jit(forceinline=True)
def _job_rates(w, wg, wb, wd, n, n_bad):
    """Each category's rate for the job with ``n_bad`` bad nodes of ``n``, in ``w``."""
    nf = float(n)
    for c in range(w.shape[0]):
        w[c] = wg[c] * ((nf - n_bad) / nf) + wb[c] * (n_bad / nf) + wd[c]


# the combined path's resumable state (see _trial_physics_nodes): floats, then integers
(PN_T, PN_P, PN_R, PN_TREND, PN_TA, PN_EA, PN_SHANDLE, PN_SIG, PN_SARRIVAL, PN_CDETECT,
 PN_CPROG, PN_TARR, PN_GFAIL, PN_GMAINT, PN_TWA, PN_TWB, PN_TWLO, PN_TWHI) = range(18)  # fmt: skip
(PN_NSEG, PN_EVENTS, PN_DONE, PN_NR, PN_LEFT, PN_SHORT, PN_NBAD, PN_SON, PN_SCAT, PN_SBT,
 PN_CON, PN_CCAT, PN_XRID, PN_XPOS, PN_INRESTART, PN_KEPT) = range(16)  # fmt: skip
_PN_F = 18
_PN_I = 16


@jit(_nrt=False)  # indexes arrays only: no reference counting
def _trial_physics_nodes(
    rng, i, sf, si, cat_kind, straggler_speed, sdc_latency_exp, retention, swap, maint_rate,
    work_hours, tau, cap_hours, max_events, fleet_age_hours, speed_amp, sphase,
    modulated, amp_i, cos_i, sin_i, trend_i, cat_profile, qmax, week_hour0, n, is_dom, dom, wrong,
    d_max, wg, wb, wd, w, wa, pca, psa, det, diag, lat_i, jr, js, jd, jm, delta_i, persist_i,
    restart_i, mem_i, swap_i, maint_i, preempt_i, f_i, n_seg0, r0, lemon_k, lemon_window,
    n_standbys, n_spares, repair_hours, escalate_prob, manual_repair_hours, repair_fixed,
    auto_miss, manual_miss, retire_after, mem_restart_hours, mem_replicas, rf, rn, nc, ll, lst,
    rec, recf, free, meta, qt, qr, fs, interruptions, maint_events, lost, swings,
    sdc_rollbacks, sdc_from_scratch, sdc_rework, nodes_excluded_bad, nodes_excluded_good,
    repairs_auto, repairs_manual, nodes_retired, wrong_blames, standby_swaps, restarts_memory,
    restarts_storage, stats,
):  # fmt: skip
    """Simulate trial ``i`` of the combined path from the state in ``sf``, ``si``.

    The state (:data:`_PN_F`, :data:`_PN_I`) is every quantity the event loop carries
    from one event to the next (the next arrival too, where a restart kept it for the run);
    what follows from it (the segment bounds, the job's rates) is recomputed here. As in
    :func:`_trial_nodes`, arrays are never reallocated (so this compiles without reference
    counting): when one event might overflow the records, the repair stages or the ring of
    retained checkpoints, the state is saved and ``True`` returned, and the caller grows
    them and calls again; otherwise the trial runs to its end and ``False`` is returned.
    ``stats[1]`` counts SDC detections whose followed record is not at its kept place in
    the job's list (always zero; the tests read it).
    """
    nf = float(n)
    unlimited = n_spares < 0
    keep = lemon_k > 0 or retire_after > 0  # a repaired node's history still matters
    track = not unlimited or escalate_prob > 0.0  # repairs followed to their end
    mem_on = mem_restart_hours >= 0.0
    k_ring = max(lemon_k, 1)
    tol = _SDC_RTOL * min(tau, work_hours)  # rounding allowance on progress
    speedy = speed_amp > 0.0
    snap_steps = 2 if delta_i > 0.0 else 0
    seg = tau + delta_i
    inv_seg = 1.0 / seg
    t = sf[PN_T]
    p = sf[PN_P]
    r = sf[PN_R]
    t_rend = sf[PN_TREND]
    t_a = sf[PN_TA]
    e_a = sf[PN_EA]
    s_handle = sf[PN_SHANDLE]
    sig = sf[PN_SIG]
    s_arrival = sf[PN_SARRIVAL]
    c_detect = sf[PN_CDETECT]
    c_prog = sf[PN_CPROG]
    t_arr = sf[PN_TARR]  # the next arrival (kept from a restart: PN_KEPT)
    g_fail = sf[PN_GFAIL]
    g_maint = sf[PN_GMAINT]
    tw_a = sf[PN_TWA]  # the trend's window (:func:`_fail_gap`)
    tw_b = sf[PN_TWB]
    tw_lo = sf[PN_TWLO]
    tw_hi = sf[PN_TWHI]
    kept = si[PN_KEPT] != 0
    n_seg = si[PN_NSEG]
    events = si[PN_EVENTS]
    done = si[PN_DONE] != 0
    nr = si[PN_NR]
    left = si[PN_LEFT]
    short = si[PN_SHORT]
    n_bad = si[PN_NBAD]
    s_on = si[PN_SON] != 0
    s_cat = si[PN_SCAT]
    s_bt = si[PN_SBT]
    c_on = si[PN_CON] != 0
    c_cat = si[PN_CCAT]
    x_rid = si[PN_XRID]
    x_pos = si[PN_XPOS]
    in_restart = si[PN_INRESTART] != 0
    last_start = (n_seg - 1) * seg
    d_run = last_start + r + delta_i + persist_i
    _job_rates(w, wg, wb, wd, n, n_bad)
    fail_rate, zr, zi, amp, theta = _active_rates(
        w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa, modulated
    )
    grow = False
    while True:
        if (
            meta[M_HIGH] + d_max + 3 > rec.shape[0]
            or meta[M_REPAIR] + d_max + 3 > qr.shape[1]
            or nr + 2 > rf.shape[0]
        ):
            grow = True  # room for one event: an SDC's record, a domain's nodes, two ring runs
            break
        if kept:
            kept = False  # the arrival drawn in the restart, past its end: the run's
        else:
            # ---- the next arrival, drawn from now with the clocks that run now
            g_fail = np.inf
            g_maint = np.inf
            if modulated:
                if fail_rate > 0.0:
                    g_fail, tw_a, tw_b, tw_lo, tw_hi = _next_failure(
                        rng, t, fail_rate, amp, theta, wa, cat_profile, qmax, NO_TABLE,
                        week_hour0, trend_i, fleet_age_hours, cap_hours, tw_a, tw_b, tw_lo,
                        tw_hi,
                    )  # fmt: skip
                if maint_rate > 0.0:
                    g_maint = _gap(rng) / maint_rate
                t_arr = t + min(g_fail, g_maint)
            else:
                tot = fail_rate + maint_rate
                t_arr = t + _gap(rng) / tot if tot > 0.0 else np.inf
        t_det = max(c_detect, t) if c_on else np.inf
        rc = -1  # category to recover from (and restart after), -1: none
        rc_detect = 0.0  # its detection hours to spend
        rc_detect_on = False  # a detection begins (jittered): a failure's, an SDC's
        rc_bt = GOOD  # the struck node's type, who is blamed, when the failure happened
        rc_who = WHO_TYPE
        rc_tfail = t
        ckpt_stop = False  # stop with a fresh checkpoint (maintenance, straggler)
        maint_stop = False
        sdc_stop = False
        arrival = False
        if in_restart:
            # a detection due at the restart's start (or in it) comes before its end
            if t_det <= t_arr and t_det <= t_rend:
                t_next = t_det
                sdc_stop = True
            elif t_arr < t_rend:
                t_next = t_arr
                arrival = True
            else:
                t_next = t_rend
            if t_next > cap_hours:
                lost[i, RESTART] += cap_hours - t
                t = cap_hours
                break
            lost[i, RESTART] += t_next - t
            t = t_next
            if not (sdc_stop or arrival):
                # ---- the restart completes
                in_restart = False
                if s_on and s_handle <= t:
                    # a straggler detected during the restart: handled at its end,
                    # nothing computed yet, so no checkpoint
                    rc = s_cat
                    rc_bt = s_bt
                    rc_tfail = s_arrival
                else:
                    swings[i] += 1
                    t_a = t
                    e_a = 0.0
                    sig = straggler_speed[s_cat] if s_on else 1.0
                    kept = True  # the same clocks run on: the arrival stands
                    continue
        else:
            # ---- a run: which comes first, an event or the run's end?
            t_next = min(t_arr, t_det)
            if s_on:
                t_next = min(t_next, s_handle)
            e_next = np.inf
            if t_next < np.inf:
                ds = _nominal(t_a, t_next, speed_amp, sphase) if speedy else t_next - t_a
                e_next = e_a + sig * ds
            ends = e_next >= d_run
            if ends:
                dn = (d_run - e_a) / sig
                t_next = t_a + (_wall_for(t_a, dn, speed_amp, sphase) if speedy else dn)
            t_stop = min(t_next, cap_hours)
            ds = _nominal(t_a, t_stop, speed_amp, sphase) if speedy else t_stop - t_a
            if speedy:
                lost[i, SLOWDOWN] += (t_stop - t_a) - ds
            if sig < 1.0:
                lost[i, STRAGGLER] += (1.0 - sig) * ds
            e = e_a + sig * ds
            t = t_stop
            t_a = t
            e_a = e
            if t_next > cap_hours:
                # ---- the cap cuts the run
                steps, rework, ckpt, durable = _cap_cut(
                    e, n_seg, last_start, r, tau, seg, inv_seg, delta_i, persist_i,
                    snap_steps,
                )  # fmt: skip
                swings[i] += steps
                lost[i, REWORK] += rework
                lost[i, CHECKPOINT] += ckpt
                p += durable
                break
            if ends:
                swings[i] += snap_steps * (n_seg - 1) + 1
                lost[i, CHECKPOINT] += n_seg * delta_i + persist_i
                p = work_hours
                done = True
                break
            if t_det <= t_next:
                sdc_stop = True
            elif t_arr <= t_next:
                arrival = True
            else:
                ckpt_stop = True  # the straggler is handled now
                rc = s_cat
                rc_bt = s_bt
                rc_tfail = s_arrival
        c = -1
        if arrival:
            if modulated:
                if g_maint < g_fail:
                    maint_stop = True
                else:
                    c = _pick_time(
                        rng, t, wa, pca, psa, fail_rate, zr, zi, cat_profile, NO_TABLE,
                        week_hour0,
                    )  # fmt: skip
            else:
                u = rng.random() * (fail_rate + maint_rate)
                if u >= fail_rate:
                    maint_stop = True
                else:
                    c = _pick_scan(u, wa)
            if maint_stop and not in_restart and e_a >= last_start + r:
                continue  # a planned event after the last compute: deferred, uncounted
            bt = GOOD  # the struck node's type: bad in proportion to the bad nodes' part
            if not maint_stop and not is_dom[c] and n_bad > 0:
                if rng.random() * w[c] < wb[c] * (n_bad / nf):
                    bt = BAD
            sdc_arrival = not maint_stop and cat_kind[c] == KIND_SDC
            if not sdc_arrival:  # an SDC is an event when it is detected
                events += 1
                if maint_stop:
                    maint_events[i] += 1
                else:
                    interruptions[i, c] += 1
            if sdc_arrival or (
                events < max_events and not maint_stop and cat_kind[c] == KIND_STRAGGLER
            ):
                # a straggler or a corruption: the job runs on
                if cat_kind[c] == KIND_STRAGGLER:
                    s_on = True
                    s_cat = c
                    s_handle = t + det[c] * _jitter(rng, jd)  # its slow phase
                    s_bt = bt
                    s_arrival = t
                    if not in_restart:
                        sig = straggler_speed[c]
                    if not in_restart and e_a >= last_start + r:
                        s_handle = np.inf  # after the last compute: never handled
                else:
                    c_on = True
                    c_cat = c
                    lat = lat_i[c]
                    if sdc_latency_exp[c]:
                        lat = rng.standard_exponential() * lat
                    c_detect = t + lat
                    c_prog = p
                    if not in_restart:
                        k, x, s_k = _locate(e_a, n_seg, last_start, r, tau, seg, inv_seg)
                        c_prog = p + k * tau + min(x, s_k)
                    # the corrupted node: one of the job's of type bt, recorded now
                    which = 2 * L_JOB + bt
                    j = int(rng.random() * nc[which])
                    if j >= nc[which]:
                        j = nc[which] - 1
                    if j < ll[which]:
                        x_rid = lst[which, j]
                        x_pos = j
                    else:
                        x_rid = _rec_new(rec, free, meta, bt)
                        nc[which] -= 1
                        x_pos = ll[which]
                        _put(L_JOB, x_rid, bt, nc, lst, ll)
                fail_rate, zr, zi, amp, theta = _active_rates(
                    w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa,
                    modulated,
                )  # fmt: skip
                continue
            if not maint_stop:
                rc = c
                rc_detect = det[c]
                rc_detect_on = True
                rc_bt = bt
                rc_tfail = t  # the failure's wall time
        if ckpt_stop and e_a >= last_start + r:
            # a straggler whose handling falls after the job's last compute (it arrived
            # in the restart before): never handled, the job finishes slow
            s_handle = np.inf
            continue
        if sdc_stop:
            rc = c_cat
            rc_detect = det[c_cat]
            rc_detect_on = True
            rc_who = x_rid if x_rid >= 0 else WHO_NONE  # none: its node left the job
            if x_rid >= 0 and lst[2 * L_JOB + (rec[x_rid, R_WORD] & 1), x_pos] != x_rid:
                stats[1] += 1
            rc_tfail = t  # recorded when it is detected (so records stay in time order)
            events += 1  # counted at detection; the trial may stop after the rollback
        # ---- the job stops (not after a restart-end straggler: nothing ran)
        if not in_restart and (arrival or sdc_stop or ckpt_stop):
            e = e_a
            k, computed, ckpt, dk = _run_stop(
                e, n_seg, last_start, r, tau, seg, inv_seg, delta_i, persist_i
            )
            swings[i] += snap_steps * k + 1
            lost[i, CHECKPOINT] += ckpt
            if events >= max_events and arrival:
                lost[i, REWORK] += computed - dk * tau
                p += dk * tau
                break
            if maint_stop or ckpt_stop:
                dt = delta_i + persist_i
                if t + dt > cap_hours:
                    extra = cap_hours - t
                    if speedy:
                        extra = _nominal(t, cap_hours, speed_amp, sphase)
                    durable = _durable_after(e, extra, tau, delta_i, persist_i, n_seg)
                    lost[i, REWORK] += computed - durable
                    lost[i, CHECKPOINT] += cap_hours - t
                    p += durable
                    t = cap_hours
                    break
                lost[i, CHECKPOINT] += dt
                t += dt
                left = 0  # the maintenance or straggler checkpoint is durable
                # a persist in flight completes during it and is kept before it
                nr = _ring_put(rf, rn, nr, p + tau, k, tau, retention, tol)
                if computed > k * tau:
                    nr = _ring_put(rf, rn, nr, p + computed, 1, tau, retention, tol)
                    if c_on and p + computed <= c_prog + tol:
                        # begun after the corruption (in the snapshot it struck): the
                        # rollback takes an older one
                        c_prog = p + computed - 2.0 * tol
                p += computed
                n_seg, r = _segments(work_hours - p, tau)
            else:
                if arrival and dk > 0:
                    left = 0  # a newer checkpoint became durable in this run
                lost_run = computed - dk * tau
                lost[i, REWORK] += lost_run
                if sdc_stop:
                    sdc_rework[i] += lost_run
                nr = _ring_put(rf, rn, nr, p + tau, dk, tau, retention, tol)
                p += dk * tau
                n_seg -= dk
                if c_on and p < c_prog:
                    # a fall back while latent: every checkpoint taken from here on
                    # begins after the corruption
                    c_prog = p
        elif events >= max_events and arrival:
            break  # (during a restart)
        if sdc_stop:
            q, skipped, nr = _ring_rollback(rf, rn, nr, c_prog, tau, tol)
            if q < p:
                lost[i, REWORK] += p - q
                sdc_rework[i] += p - q
                p = q
                n_seg, r = _segments(work_hours - p, tau)
            sdc_rollbacks[i] += skipped
            if nr == 0:
                sdc_from_scratch[i] += 1
                p = 0.0
                n_seg, r = n_seg0, r0
            interruptions[i, c_cat] += 1
            c_on = False
            c_detect = np.inf
            if events >= max_events:
                break  # the max_events-th event: stop after the rollback
        last_start = (n_seg - 1) * seg
        d_run = last_start + r + delta_i + persist_i
        in_restart = False
        sig = 1.0
        if s_on or sdc_stop:  # the clocks that run change (else the rates stand as they are)
            s_on = False  # any stop removes an active straggler with it
            fail_rate, zr, zi, amp, theta = _active_rates(
                w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa, modulated
            )
        s_handle = np.inf
        memory = False  # whether the restart reads the checkpoint from peers' memory
        if maint_stop:
            t, capped = _spend(lost, i, MAINTENANCE, t, maint_i * _jitter(rng, jm), cap_hours)
            if capped:
                break
        else:
            # ---- recovery of category rc (a straggler's detection was its slow phase:
            # a handled straggler spends no detection and draws none)
            if rc_detect_on:
                rc_detect *= _jitter(rng, jd)
            t, capped = _spend(lost, i, DETECTION, t, rc_detect, cap_hours)
            if capped:
                break
            t, capped, need, big, short, gone, x_pos = _node_recover(
                rng, i, t, rc, rc_bt, rc_who, rc_tfail, x_rid, x_pos, cap_hours, n, n_bad,
                (is_dom, dom, swap, diag, wrong),
                (lemon_k, lemon_window, k_ring, unlimited, keep, track, n_standbys, f_i,
                 preempt_i, swap_i, js, repair_hours, escalate_prob, manual_repair_hours,
                 repair_fixed, auto_miss, manual_miss, retire_after),
                (nc, ll, lst, rec, recf, free, meta, qt, qr, fs),
                (nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual,
                 nodes_retired, wrong_blames, standby_swaps),
                lost,
            )  # fmt: skip
            left += need
            if gone or sdc_stop:
                x_rid = NO_RECORD  # the corrupted node left the job, or its SDC was dealt with
            if nc[2 * L_JOB + BAD] != n_bad:  # the job's rates change with its bad nodes
                n_bad = nc[2 * L_JOB + BAD]
                _job_rates(w, wg, wb, wd, n, n_bad)
                fail_rate, zr, zi, amp, theta = _active_rates(
                    w, cat_kind, amp_i, cos_i, sin_i, s_on, c_on, wa, pca, psa,
                    modulated,
                )  # fmt: skip
            if capped:
                break
            # stragglers and SDC restart from storage
            memory = mem_on and not big and left <= mem_replicas
            memory = memory and cat_kind[rc] == KIND_FAILURE
        in_restart = True
        if memory:
            restarts_memory[i] += 1
            t_rend = t + mem_i * _jitter(rng, jr)
        else:
            restarts_storage[i] += 1
            t_rend = t + restart_i * _jitter(rng, jr)
    sf[PN_T] = t
    sf[PN_P] = p
    sf[PN_R] = r
    sf[PN_TREND] = t_rend
    sf[PN_TA] = t_a
    sf[PN_EA] = e_a
    sf[PN_SHANDLE] = s_handle
    sf[PN_SIG] = sig
    sf[PN_SARRIVAL] = s_arrival
    sf[PN_CDETECT] = c_detect
    sf[PN_CPROG] = c_prog
    sf[PN_TARR] = t_arr
    sf[PN_GFAIL] = g_fail
    sf[PN_GMAINT] = g_maint
    sf[PN_TWA] = tw_a
    sf[PN_TWB] = tw_b
    sf[PN_TWLO] = tw_lo
    sf[PN_TWHI] = tw_hi
    si[PN_KEPT] = 1 if kept else 0
    si[PN_NSEG] = n_seg
    si[PN_EVENTS] = events
    si[PN_DONE] = 1 if done else 0
    si[PN_NR] = nr
    si[PN_LEFT] = left
    si[PN_SHORT] = short
    si[PN_NBAD] = n_bad
    si[PN_SON] = 1 if s_on else 0
    si[PN_SCAT] = s_cat
    si[PN_SBT] = s_bt
    si[PN_CON] = 1 if c_on else 0
    si[PN_CCAT] = c_cat
    si[PN_XRID] = x_rid
    si[PN_XPOS] = x_pos
    si[PN_INRESTART] = 1 if in_restart else 0
    return grow


@jit
def _block_physics_nodes(
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
    cat_amp,
    cat_phase,
    start_hour,
    trend_shape,
    fleet_age_hours,
    speed_amp,
    speed_phase,
    n_nodes,
    bad_fraction,
    bad_multiplier,
    cat_domain,
    diag_hours,
    diag_wrong,
    lemon_k,
    lemon_window,
    repair_fixed,
    escalate_prob,
    manual_repair_hours,
    auto_miss,
    manual_miss,
    retire_after,
    n_standbys,
    preempt_hours,
    mem_restart_hours,
    mem_replicas,
    cat_kind,
    straggler_speed,
    sdc_latency,
    sdc_latency_exp,
    retention,
    overhead_factor,
    overhead_jitter,
    draw_amp,
    draw_phase,
    draw_trend,
    draw_bad_fraction,
    draw_bad_multiplier,
    cat_profile,
    week_hour0,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
    nodes_excluded_bad,
    nodes_excluded_good,
    repairs_auto,
    repairs_manual,
    nodes_retired,
    wrong_blames,
    standby_swaps,
    restarts_memory,
    restarts_storage,
    pool_occupancy,
    sdc_rollbacks,
    sdc_from_scratch,
    sdc_undetected,
    sdc_rework,
    stats,
):
    """Run stragglers and SDC with the node model over a block of trials (see :mod:`relmc.sim`).

    :func:`_block_physics`'s event loop (the next arrival drawn afresh from the clocks that
    run now, against the deterministic times ahead; one drawn in a restart, past its end, is
    the run's unless a straggler is handled at the restart's end) with
    :func:`_block_nodes`'s nodes: each category's rate is the job's with its bad nodes
    (:func:`_job_rates`), straggler and SDC categories are node-domain and never wrongly
    blamed, and recovery is
    :func:`_node_recover` (diagnosis, blame, lemon detection, repair, standbys, the pool,
    waiting for repairs). The struck node's type is drawn at the arrival with its category
    (bad in proportion to the bad nodes' part of the category's rate). A straggler's node is
    drawn from the job at its handling (the job's nodes do not change while it is active:
    any stop ends it) and its failure recorded at the arrival. An SDC's node is drawn and
    given a record at the corruption, so that its detection blames that node, or none if it
    left the job in between (the record is followed: its place in the job's list is kept
    as records move, O(1) per move). The restart after a straggler's handling or an SDC
    reads storage; a maintenance or straggler checkpoint resets the count of nodes that
    left. ``stats`` as in :func:`_block_nodes`. The trial loop is
    :func:`_trial_physics_nodes` (no reference counting; it returns when an event could
    outgrow the records, repair stages or the ring of retained checkpoints, and resumes
    after the block grows them).
    """
    n_trials = draw_of_trial.shape[0]
    n_cat = cat_rate.shape[1]
    n = n_nodes
    keep = lemon_k > 0 or retire_after > 0  # a repaired node's history still matters
    k_ring = max(lemon_k, 1)
    is_dom = np.zeros(n_cat, dtype=np.bool_)
    dom = np.ones(n_cat, dtype=np.int64)
    wrong = np.zeros(n_cat)  # wrong-blame probabilities: none for stragglers and SDC
    mix = np.empty(n_cat)  # 1 - f + f m_c: the fleet's mix relative to a good node
    m_i = np.empty(n_cat)  # the trial's bad-node multipliers
    d_max = 1
    f_i = _trial_bad(draw_bad_fraction, draw_bad_multiplier, 0, bad_fraction, bad_multiplier, m_i)
    for c in range(n_cat):
        if cat_kind[c] == KIND_FAILURE:
            wrong[c] = diag_wrong[c]
            if min(cat_domain[c], n) > 1:  # a domain of one node is a node
                is_dom[c] = True
                dom[c] = min(cat_domain[c], n)
                d_max = max(d_max, dom[c])
        mix[c] = 1.0 - f_i + f_i * m_i[c]
    per_bad = draw_bad_fraction.shape[0] > 0 or draw_bad_multiplier.shape[0] > 0
    wg = np.zeros(n_cat)  # a good node's share, a bad node's share, domain categories
    wb = np.zeros(n_cat)
    wd = np.zeros(n_cat)
    w = np.zeros(n_cat)  # the job's rate per category with its bad nodes
    wa = np.zeros(n_cat)
    pca = np.zeros(n_cat)
    psa = np.zeros(n_cat)
    modulated = time_varying(cat_amp, trend_shape) or _draws_vary(draw_amp, draw_trend)
    modulated = modulated or cat_profile.shape[0] > 0
    qmax = np.ones(cat_profile.shape[0])  # each profile's maximum
    _profile_max(cat_profile, qmax)
    per_shape = draw_amp.shape[0] > 0 or draw_phase.shape[0] > 0 or draw_trend.shape[0] > 0
    amp_i = np.empty(n_cat)  # the trial's diurnal amplitudes and peaks
    phase_i = np.empty(n_cat)
    trend_i = _trial_shape(
        draw_amp, draw_phase, draw_trend, 0, cat_amp, cat_phase, trend_shape, amp_i, phase_i
    )
    cos_i = np.empty(n_cat)  # the cosines and sines of the peak hours' angles
    sin_i = np.empty(n_cat)
    _diurnal_angles(phase_i, start_hour, cos_i, sin_i)
    sphase = start_hour - speed_phase
    n_seg0, r0 = _segments(work_hours, tau)
    rf = np.empty(8)
    rn = np.empty(8, dtype=np.int64)
    det = np.empty(n_cat)  # the trial's detection hours
    diag = np.empty(n_cat)  # the trial's diagnosis hours
    lat_i = np.empty(n_cat)  # the trial's SDC latencies (fixed, or the exponential's mean)
    jr, js, jd, jm = _jitters(overhead_jitter)
    nc = np.zeros(6, dtype=np.int64)
    ll = np.zeros(6, dtype=np.int64)
    rec = np.empty((_CAP0, R_T0 + k_ring), dtype=np.int64)
    free = np.empty(_CAP0, dtype=np.int64)
    lst = np.empty((6, _CAP0), dtype=np.int32)
    qt = np.empty((2, _CAP0))
    qr = np.empty((2, _CAP0), dtype=np.int64)
    meta = np.zeros(N_META, dtype=np.int64)
    fs = np.zeros(N_FS)
    sf = np.zeros(_PN_F)  # a trial's resumable state (see _trial_physics_nodes)
    si = np.zeros(_PN_I, dtype=np.int64)
    for i in range(n_trials):
        d = draw_of_trial[i]
        # the trial's overheads (its draw's factors; the given ones when off)
        delta_i, persist_i, restart_i, mem_i, swap_i, maint_i = _trial_overheads(
            overhead_factor, d, detect_hours, det, tau, delta, persist, restart_hours,
            mem_restart_hours, swap_hours, maint_hours,
        )  # fmt: skip
        preempt_i = _trial_node_overheads(overhead_factor, d, diag_hours, diag, preempt_hours)
        _trial_scaled(overhead_factor, d, F_SDC_LATENCY, sdc_latency, lat_i)
        if per_shape:
            trend_i = _trial_shape(
                draw_amp, draw_phase, draw_trend, d, cat_amp, cat_phase, trend_shape, amp_i,
                phase_i,
            )  # fmt: skip
            _diurnal_angles(phase_i, start_hour, cos_i, sin_i)
        if per_bad:
            f_i = _trial_bad(
                draw_bad_fraction, draw_bad_multiplier, d, bad_fraction, bad_multiplier, m_i
            )
            for c in range(n_cat):
                mix[c] = 1.0 - f_i + f_i * m_i[c]
        _node_split(cat_rate, d, is_dom, mix, m_i, wg, wb, wd)
        _reset_trial(i, n_cat, interruptions, maint_events, lost, swings)
        lost[i, STRAGGLER] = 0.0
        sdc_rollbacks[i] = 0
        sdc_from_scratch[i] = 0
        sdc_rework[i] = 0.0
        n_bad = _node_start(
            rng, i, n, n_standbys, n_spares, f_i, nc, ll, meta, fs, nodes_excluded_bad,
            nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired, wrong_blames,
            standby_swaps, restarts_memory, restarts_storage,
        )  # fmt: skip
        sf[:] = 0.0
        si[:] = 0
        sf[PN_R] = r0
        sf[PN_SHANDLE] = np.inf
        sf[PN_SIG] = 1.0
        sf[PN_CDETECT] = np.inf
        sf[PN_TWB] = -1.0  # no trend window yet
        si[PN_NSEG] = n_seg0
        si[PN_NBAD] = n_bad
        si[PN_XRID] = NO_RECORD
        swings[i] += 1  # the job starts computing
        while True:
            recf = rec.view(np.float64)
            grow = _trial_physics_nodes(
                rng, i, sf, si, cat_kind, straggler_speed, sdc_latency_exp, retention, swap,
                maint_rate, work_hours, tau, cap_hours, max_events,
                fleet_age_hours, speed_amp, sphase, modulated, amp_i, cos_i, sin_i, trend_i,
                cat_profile, qmax, week_hour0, n, is_dom, dom, wrong, d_max, wg, wb, wd, w, wa,
                pca, psa, det, diag, lat_i, jr, js, jd, jm, delta_i, persist_i, restart_i,
                mem_i, swap_i, maint_i, preempt_i, f_i, n_seg0, r0, lemon_k, lemon_window,
                n_standbys, n_spares, repair_hours, escalate_prob, manual_repair_hours,
                repair_fixed, auto_miss, manual_miss, retire_after, mem_restart_hours,
                mem_replicas, rf, rn, nc, ll, lst, rec, recf, free, meta, qt, qr, fs,
                interruptions, maint_events, lost, swings, sdc_rollbacks, sdc_from_scratch,
                sdc_rework, nodes_excluded_bad, nodes_excluded_good, repairs_auto,
                repairs_manual, nodes_retired, wrong_blames, standby_swaps, restarts_memory,
                restarts_storage, stats,
            )  # fmt: skip
            if not grow:
                break
            rec, free, lst, qt, qr = _ensure(rec, free, lst, qt, qr, meta, d_max + 1)
            rf = _grow1(rf, si[PN_NR] + 2)
            rn = _grow1(rn, si[PN_NR] + 2)
        t = sf[PN_T]
        c_on = si[PN_CON] != 0
        done = si[PN_DONE] != 0
        p = sf[PN_P]
        events = si[PN_EVENTS]
        short = si[PN_SHORT]
        n_bad = si[PN_NBAD]
        wall[i] = t
        finished[i] = done
        progress[i] = p
        n_events[i] = events
        sdc_undetected[i] = 1 if c_on else 0
        _node_end(
            rng, i, t, short, n_bad, n, n_standbys, n_spares, keep, nc, ll, lst, rec, free,
            meta, qt, qr, fs, repair_hours, escalate_prob, manual_repair_hours, repair_fixed,
            auto_miss, manual_miss, nodes_excluded_bad, nodes_excluded_good, repairs_manual,
            nodes_retired, pool_occupancy, stats,
        )  # fmt: skip


@jit
def node_model_on(
    bad_fraction,
    cat_domain,
    diag_hours,
    diag_wrong,
    lemon_k,
    repair_fixed,
    escalate_prob,
    retire_after,
    n_standbys,
    preempt_hours,
    mem_restart_hours,
):
    """Whether any node feature is on (:attr:`relmc.sim.inputs.KernelInputs.node_model`)."""
    if (
        bad_fraction > 0.0
        or lemon_k > 0
        or repair_fixed
        or escalate_prob > 0.0
        or retire_after > 0
        or n_standbys > 0
        or preempt_hours > 0.0
        or mem_restart_hours >= 0.0
    ):
        return True
    for c in range(cat_domain.shape[0]):
        if cat_domain[c] > 1 or diag_hours[c] > 0.0 or diag_wrong[c] > 0.0:
            return True
    return False


@jit
def time_varying(cat_amp, trend_shape):
    """Whether any failure intensity varies in time (a diurnal amplitude or a trend)."""
    if trend_shape != 1.0:
        return True
    for c in range(cat_amp.shape[0]):
        if cat_amp[c] != 0.0:
            return True
    return False


@jit
def renewal_applies(maint_rate, n_spares, swap, modulated=False, uncertain=False):
    """Whether the renewal path applies: recovery a per-category constant.

    Planned maintenance (``maint_rate``, constant while exposed) is memoryless like the
    failures, so it does not stop the path. Never with time-varying rates or speed
    (``modulated``): its gaps are memoryless in exposed time and its segments are as long on
    the wall clock as in nominal hours. Nor with uncertain overheads (``uncertain``,
    :func:`overheads_on`): its recovery costs and segments are the same for every trial and
    failure.
    """
    if modulated or uncertain:
        return False
    if n_spares < 0:
        return True
    for c in range(swap.shape[0]):
        if swap[c]:
            return False
    return True


# The paths :func:`simulate_block` chooses from (:func:`block_path`'s codes); those up to
# PATH_NODES run the node model and write its outputs.
PATH_PHYSICS_NODES = 0
PATH_NODES = 1
PATH_PHYSICS = 2
PATH_DIURNAL = 3
PATH_RENEWAL = 4
PATH_POOL_REDUCED = 5
PATH_POOL = 6
PATH_GENERAL = 7


@jit
def block_path(
    bad_fraction, cat_domain, diag_hours, diag_wrong, lemon_k, repair_fixed, escalate_prob,
    retire_after, n_standbys, preempt_hours, mem_restart_hours, draw_bad_fraction, cat_kind,
    maint_rate, n_spares, swap, cat_amp, trend_shape, speed_amp, cat_profile, draw_amp,
    draw_trend, overhead_factor, overhead_jitter,
):  # fmt: skip
    """Return the path (``PATH_*``) that :func:`simulate_block` runs for these inputs.

    The node model (any of its inputs on, or a draw's bad fraction > 0) runs a node path, with
    straggler or SDC categories the combined one; else those categories run the physics path;
    else diurnal rates alone on the renewal configuration the diurnal path, the renewal
    configuration otherwise the renewal path, constant rates and certain overheads the pool
    path (reduced a buffer at a time without planned maintenance), and everything else the
    general path. Rates are time-varying for the whole block if any draw's are.
    """
    if node_model_on(
        bad_fraction, cat_domain, diag_hours, diag_wrong, lemon_k, repair_fixed, escalate_prob,
        retire_after, n_standbys, preempt_hours, mem_restart_hours,
    ) or _draws_bad(draw_bad_fraction):  # fmt: skip
        return PATH_PHYSICS_NODES if physics_on(cat_kind) else PATH_NODES
    if physics_on(cat_kind):
        return PATH_PHYSICS
    # a diurnal amplitude > 0 (single values or any draw), and any other time variation
    amp_on = time_varying(cat_amp, 1.0) or _draws_vary(draw_amp, np.ones(0))
    other = trend_shape != 1.0 or _draws_vary(np.zeros((0, cat_amp.shape[0])), draw_trend)
    other = other or speed_amp != 0.0 or cat_profile.shape[0] > 0
    varying = amp_on or other
    uncertain = overheads_on(overhead_factor, overhead_jitter)
    if diurnal_applies(maint_rate, n_spares, swap, amp_on, other, uncertain):
        return PATH_DIURNAL
    if renewal_applies(maint_rate, n_spares, swap, varying, uncertain):
        return PATH_RENEWAL
    if pool_applies(varying, uncertain):
        return PATH_POOL_REDUCED if pool_reduced_applies(maint_rate, n_spares) else PATH_POOL
    return PATH_GENERAL


@jit
def _clear_outputs(
    node_on, sdc_rollbacks, sdc_from_scratch, sdc_undetected, sdc_rework, nodes_excluded_bad,
    nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired, wrong_blames,
    standby_swaps, restarts_memory, restarts_storage, pool_occupancy,
):  # fmt: skip
    """Zero the SDC outputs (a physics path writes them), and without the node model its outputs.

    ``pool_occupancy`` is NaN without the node model. One compiled call, not thirteen NumPy
    assignments (~1 us each) per block.
    """
    for i in range(sdc_rollbacks.shape[0]):
        sdc_rollbacks[i] = 0
        sdc_from_scratch[i] = 0
        sdc_undetected[i] = 0
        sdc_rework[i] = 0.0
    if node_on:
        return
    for i in range(nodes_excluded_bad.shape[0]):
        _zero_node_counts(
            i, nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual,
            nodes_retired, wrong_blames, standby_swaps, restarts_memory, restarts_storage,
        )  # fmt: skip
        pool_occupancy[i] = np.nan


# Generators at an address: numba unboxes a ``numpy.random.Generator`` argument through
# ctypes (its ctypes interface looked up, three ``ctypes.cast`` calls): a call of a path on
# 0 trials took 19.7 us with a generator used before, 21.0 with a fresh one, against 8.4
# and 8.7 with the address (benchmarks/bench_block_overhead.py), a 2k-GPU block ~300 us.
# :func:`simulate_block` passes the address of the generator's ``bitgen_t`` instead
# (:func:`_bitgen_address`), to a wrapper per path that builds numba's generator from it
# (:func:`_generator_at`) and calls the path: the same generator, the same draws.
_GENERATOR = types.NumPyRandomGeneratorType("NumPyRandomGeneratorType")
# a foreign function of its own (not ctypes.pythonapi's, whose argtypes are shared)
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)


def _bitgen_address(rng):
    """Return the address of ``rng``'s ``bitgen_t`` (NumPy's C interface to its bit generator).

    The struct lives as long as the generator: the caller holds ``rng`` through the call
    that reads it. Its low bit (``_PCG_FLAG``; the struct is 8-byte aligned) is set where
    the bit generator is NumPy's ``PCG64`` and its state's words lie as :func:`_pcg_layout_ok`
    found them: :func:`_generator_at` then lets the fills step it inline.
    """
    addr = _capsule_pointer(rng.bit_generator.capsule, b"BitGenerator")
    if addr % 8 != 0:
        raise RuntimeError(f"bitgen_t at {addr:#x} is not 8-byte aligned")
    if type(rng.bit_generator) is np.random.PCG64 and _pcg_layout_ok():
        return addr | _PCG_FLAG
    return addr


_PCG_LAYOUT: list[bool] = []  # _pcg_layout_ok's answer, once found


def _pcg_layout_ok() -> bool:
    """Whether NumPy's ``PCG64`` keeps its state as the inlined step reads it (found once).

    NumPy's ``pcg64_state`` begins with a pointer to ``{state, inc}``, two 128-bit integers;
    where the C compiler has a native 128-bit integer (GCC, Clang) each is two 64-bit words,
    low first on a little-endian machine, which is how :func:`_pcg_load` reads them.
    Checked on a generator whose state is known from Python: its words in memory (read only
    inside its own object, :func:`_pcg_words`) must be the state's and the increment's, and
    the step's arithmetic must give NumPy's next output (:func:`_pcg_steps_as_numpy`).
    Elsewhere (e.g. a build whose 128-bit type is a struct ``{high, low}``, a big-endian
    machine) the fills call NumPy's functions as numba's generator does.
    """
    if not _PCG_LAYOUT:
        bg = np.random.PCG64(20261206)
        bg.advance(12345)
        _PCG_LAYOUT.append(_pcg_words(bg) == _pcg_expected(bg) and _pcg_steps_as_numpy(bg))
    return _PCG_LAYOUT[0]


def _pcg_expected(bg) -> list[int]:
    """``bg``'s state and increment as four 64-bit words, low first, from its Python state."""
    st = bg.state["state"]
    mask = (1 << 64) - 1
    return [st["state"] & mask, st["state"] >> 64, st["inc"] & mask, st["inc"] >> 64]


def _pcg_words(bg) -> list[int] | None:
    """Return the four 64-bit words where :func:`_pcg_load` would read ``bg``'s state, or None.

    ``pcg64_state``'s first field points to them; None where that pointer does not lie in
    ``bg``'s own object (where NumPy keeps them), so no address outside it is read.
    """
    words_at = ctypes.c_void_p.from_address(bg.ctypes.state_address).value
    if not words_at or not id(bg) <= words_at <= id(bg) + bg.__sizeof__() - 32:
        return None
    return list((ctypes.c_uint64 * 4).from_address(words_at))


def _pcg_steps_as_numpy(bg) -> bool:
    """Return whether :func:`_pcg_step`'s arithmetic gives NumPy's next raw output.

    The multiply-add and XSL-RR done here in Python on ``bg``'s state (``bg`` stepped once).
    """
    lo, hi, ilo, ihi = _pcg_expected(bg)
    mask = (1 << 64) - 1
    s = (((hi << 64) | lo) * _PCG_MULT + ((ihi << 64) | ilo)) & _M128
    x = ((s >> 64) ^ s) & mask
    r = s >> 122
    out = ((x >> r) | (x << (64 - r))) & mask
    return int(bg.random_raw()) == out


@intrinsic
def _generator_at(typingctx, addr):
    """Numba's generator over the ``bitgen_t`` at ``addr`` (:func:`_bitgen_address`).

    The fields numba's unboxing of a ``numpy.random.Generator`` fills, read from the struct
    it reads them from through ctypes (``state``, ``next_uint64``, ``next_uint32``,
    ``next_double``, in NumPy's ``bitgen_t`` order), so the draws are the same; no parent
    object and no meminfo (numba's reference operations on a null meminfo do nothing). An
    address marked by ``_PCG_FLAG`` (the flag cleared before use) also puts the address of
    PCG64's ``{state, inc}`` words in ``state_address``, which numba's draws do not read, for
    :func:`_pcg_address`; unmarked, ``state_address`` is ``state``, as numba's unboxing sets it.
    """
    if not isinstance(addr, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        marked = context.cast(builder, args[0], addr, types.uintp)
        word = context.get_value_type(types.uintp)
        address = builder.and_(marked, ir.Constant(word, ~_PCG_FLAG & (2**64 - 1)))
        base = builder.inttoptr(address, word.as_pointer())

        def field(k):
            return builder.load(builder.gep(base, [ir.Constant(ir.IntType(32), k)]))

        bit_gen = cgutils.create_struct_proxy(_BIT_GENERATOR)(context, builder)
        state = field(0)
        bit_gen.parent = cgutils.get_null_value(bit_gen.parent.type)
        # marked: PCG64's {state, inc} words, the first field of its pcg64_state; unmarked,
        # the load reads the bitgen_t's own first word instead (NumPy's C API allows a null
        # state), so it is in bounds either way, and its value is not used
        flag = builder.icmp_unsigned("!=", builder.and_(marked, ir.Constant(word, _PCG_FLAG)),
                                     ir.Constant(word, 0))  # fmt: skip
        at = builder.select(flag, state, address)
        words = builder.load(builder.inttoptr(at, word.as_pointer()))
        bit_gen.state_address = builder.select(flag, words, state)
        bit_gen.state = state
        bit_gen.fnptr_next_uint64 = field(1)
        bit_gen.fnptr_next_uint32 = field(2)
        bit_gen.fnptr_next_double = field(3)
        bit_gen.bit_generator = address
        gen = cgutils.create_struct_proxy(_GENERATOR)(context, builder)
        gen.bit_generator = bit_gen._getvalue()
        gen.meminfo = cgutils.get_null_value(gen.meminfo.type)
        gen.parent = cgutils.get_null_value(gen.parent.type)
        return gen._getvalue()

    return _GENERATOR(addr), codegen


@jit
def _block_physics_nodes_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase, n_nodes,
    bad_fraction, bad_multiplier, cat_domain, diag_hours, diag_wrong, lemon_k, lemon_window,
    repair_fixed, escalate_prob, manual_repair_hours, auto_miss, manual_miss, retire_after,
    n_standbys, preempt_hours, mem_restart_hours, mem_replicas, cat_kind, straggler_speed,
    sdc_latency, sdc_latency_exp, retention, overhead_factor, overhead_jitter, draw_amp,
    draw_phase, draw_trend, draw_bad_fraction, draw_bad_multiplier, cat_profile, week_hour0, wall,
    finished, progress, interruptions, maint_events, n_events, lost, swings, nodes_excluded_bad,
    nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired, wrong_blames, standby_swaps,
    restarts_memory, restarts_storage, pool_occupancy, sdc_rollbacks, sdc_from_scratch,
    sdc_undetected, sdc_rework, stats,
):  # fmt: skip
    """:func:`_block_physics_nodes` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_physics_nodes(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours,
        speed_amp, speed_phase, n_nodes, bad_fraction, bad_multiplier, cat_domain, diag_hours,
        diag_wrong, lemon_k, lemon_window, repair_fixed, escalate_prob, manual_repair_hours,
        auto_miss, manual_miss, retire_after, n_standbys, preempt_hours, mem_restart_hours,
        mem_replicas, cat_kind, straggler_speed, sdc_latency, sdc_latency_exp, retention,
        overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend, draw_bad_fraction,
        draw_bad_multiplier, cat_profile, week_hour0, wall, finished, progress, interruptions,
        maint_events, n_events, lost, swings, nodes_excluded_bad, nodes_excluded_good,
        repairs_auto, repairs_manual, nodes_retired, wrong_blames, standby_swaps, restarts_memory,
        restarts_storage, pool_occupancy, sdc_rollbacks, sdc_from_scratch, sdc_undetected,
        sdc_rework, stats,
    )  # fmt: skip


@jit
def _block_nodes_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase, n_nodes,
    bad_fraction, bad_multiplier, cat_domain, diag_hours, diag_wrong, lemon_k, lemon_window,
    repair_fixed, escalate_prob, manual_repair_hours, auto_miss, manual_miss, retire_after,
    n_standbys, preempt_hours, mem_restart_hours, mem_replicas, overhead_factor, overhead_jitter,
    draw_amp, draw_phase, draw_trend, draw_bad_fraction, draw_bad_multiplier, cat_profile,
    week_hour0, wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
    nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired,
    wrong_blames, standby_swaps, restarts_memory, restarts_storage, pool_occupancy, stats,
):  # fmt: skip
    """:func:`_block_nodes` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_nodes(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours,
        speed_amp, speed_phase, n_nodes, bad_fraction, bad_multiplier, cat_domain, diag_hours,
        diag_wrong, lemon_k, lemon_window, repair_fixed, escalate_prob, manual_repair_hours,
        auto_miss, manual_miss, retire_after, n_standbys, preempt_hours, mem_restart_hours,
        mem_replicas, overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend,
        draw_bad_fraction, draw_bad_multiplier, cat_profile, week_hour0, wall, finished, progress,
        interruptions, maint_events, n_events, lost, swings, nodes_excluded_bad,
        nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired, wrong_blames,
        standby_swaps, restarts_memory, restarts_storage, pool_occupancy, stats,
    )  # fmt: skip


@jit
def _block_physics_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase, cat_kind,
    straggler_speed, sdc_latency, sdc_latency_exp, retention, overhead_factor, overhead_jitter,
    draw_amp, draw_phase, draw_trend, cat_profile, week_hour0, wall, finished, progress,
    interruptions, maint_events, n_events, lost, swings, sdc_rollbacks, sdc_from_scratch,
    sdc_undetected, sdc_rework,
):  # fmt: skip
    """:func:`_block_physics` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_physics(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours,
        speed_amp, speed_phase, cat_kind, straggler_speed, sdc_latency, sdc_latency_exp, retention,
        overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend, cat_profile,
        week_hour0, wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
        sdc_rollbacks, sdc_from_scratch, sdc_undetected, sdc_rework,
    )  # fmt: skip


@jit
def _block_diurnal_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, fleet_age_hours, draw_amp, draw_phase, kepler_table, kepler_e,
    kepler_grid, wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
    use_blocks, stats,
):  # fmt: skip
    """:func:`_block_diurnal` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_diurnal(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, cat_amp, cat_phase, start_hour, fleet_age_hours, draw_amp,
        draw_phase, kepler_table, kepler_e, kepler_grid, wall, finished, progress, interruptions,
        maint_events, n_events, lost, swings, use_blocks, stats,
    )  # fmt: skip


@jit
def _block_renewal_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase, wall,
    finished, progress, interruptions, maint_events, n_events, lost, swings, use_blocks, stats,
):  # fmt: skip
    """:func:`_block_renewal` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_renewal(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours,
        speed_amp, speed_phase, wall, finished, progress, interruptions, maint_events, n_events,
        lost, swings, use_blocks, stats,
    )  # fmt: skip


@jit
def _block_pool_reduced_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events, wall,
    finished, progress, interruptions, maint_events, n_events, lost, swings, use_blocks, stats,
):  # fmt: skip
    """:func:`_block_pool_reduced` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_pool_reduced(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, wall, finished, progress, interruptions, maint_events, n_events,
        lost, swings, use_blocks, stats,
    )  # fmt: skip


@jit
def _block_pool_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events, wall,
    finished, progress, interruptions, maint_events, n_events, lost, swings,
):  # fmt: skip
    """:func:`_block_pool` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_pool(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, wall, finished, progress, interruptions, maint_events, n_events,
        lost, swings,
    )  # fmt: skip


@jit
def _block_general_at(
    addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours, work_hours, tau,
    delta, persist, restart_hours, swap_hours, n_spares, repair_hours, cap_hours, max_events,
    cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase,
    overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend, cat_profile, week_hour0,
    wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
):  # fmt: skip
    """:func:`_block_general` with the generator at ``addr`` (:func:`_generator_at`)."""
    _block_general(
        _generator_at(addr), cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
        work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
        cap_hours, max_events, cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours,
        speed_amp, speed_phase, overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend,
        cat_profile, week_hour0, wall, finished, progress, interruptions, maint_events, n_events,
        lost, swings,
    )  # fmt: skip


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
    cat_amp,
    cat_phase,
    start_hour,
    trend_shape,
    fleet_age_hours,
    speed_amp,
    speed_phase,
    n_nodes,
    bad_fraction,
    bad_multiplier,
    cat_domain,
    diag_hours,
    diag_wrong,
    lemon_k,
    lemon_window,
    repair_fixed,
    escalate_prob,
    manual_repair_hours,
    auto_miss,
    manual_miss,
    retire_after,
    n_standbys,
    preempt_hours,
    mem_restart_hours,
    mem_replicas,
    cat_kind,
    straggler_speed,
    sdc_latency,
    sdc_latency_exp,
    retention,
    overhead_sigma,
    overhead_factor,
    overhead_jitter,
    draw_amp,
    draw_phase,
    draw_trend,
    draw_bad_fraction,
    draw_bad_multiplier,
    cat_profile,
    week_hour0,
    kepler_table,
    kepler_e,
    kepler_grid,
    wall,
    finished,
    progress,
    interruptions,
    maint_events,
    n_events,
    lost,
    swings,
    nodes_excluded_bad,
    nodes_excluded_good,
    repairs_auto,
    repairs_manual,
    nodes_retired,
    wrong_blames,
    standby_swaps,
    restarts_memory,
    restarts_storage,
    pool_occupancy,
    sdc_rollbacks,
    sdc_from_scratch,
    sdc_undetected,
    sdc_rework,
):
    """Simulate ``len(draw_of_trial)`` trials; fill the output arrays (see relmc.sim).

    ``rng`` is advanced as NumPy's own draws would advance it, and is used by one call at a
    time: as with NumPy's generators, two threads must not draw from one generator at once
    (``run_kernel`` gives each block its own). The path is chosen here from the inputs
    (see the module docstring); all paths implement the one contract. With the node model
    off the node inputs are not read and the node outputs are zero (``pool_occupancy``
    NaN). With every category a failure category the straggler and SDC inputs are not read
    and their outputs are zero; otherwise the physics path runs (:func:`_block_physics`), or
    with the node model on the combined path (:func:`_block_physics_nodes`).
    Diurnal failure rates alone on the renewal configuration run the diurnal path
    (:func:`diurnal_applies`); with every amplitude 0 the renewal path runs as before, bit for
    bit. Uncertain overheads (``overhead_factor`` with rows, or an ``overhead_jitter`` > 0; see
    :mod:`relmc.sim`) run on the general, node and physics paths, never the renewal or pool path;
    ``overhead_sigma`` is not read (the factors are drawn by the caller). Physics per draw
    (``draw_amp`` .. ``draw_bad_multiplier`` with rows; see :mod:`relmc.sim`): failure rates
    are time-varying for the whole block if any draw has an amplitude > 0 or a trend shape
    != 1, and the node model is on if any draw has a bad fraction > 0 (or the single values
    say so); each trial then reads its draw's rows. Periodic rate profiles (``cat_profile``
    with rows, ``week_hour0``; see :mod:`relmc.sim`) make failure rates time-varying (never
    the renewal path) and apply on the general, node and physics paths; no rows: each path
    computes what it did without them, bit for bit.

    A Python function (the path by :func:`block_path`, then one compiled call to it), so only
    the path chosen is compiled. One compiled function calling every path compiled all of
    them at its first call: ~590 s on a cold numba cache for ``relmc project``, which runs
    the renewal path only (the node paths alone took 180 s each). The path releases the GIL as
    before, so blocks still run on threads. The call passes the generator's address, not the
    generator (``_block_*_at``, :func:`_generator_at`): numba's unboxing of a generator cost
    ~12 us a call (a call on 0 trials 21.0 against 8.7 us, a fresh generator's).
    """
    addr = _bitgen_address(rng)  # rng, held here, keeps it alive through the call
    path = block_path(
        bad_fraction, cat_domain, diag_hours, diag_wrong, lemon_k, repair_fixed, escalate_prob,
        retire_after, n_standbys, preempt_hours, mem_restart_hours, draw_bad_fraction, cat_kind,
        maint_rate, n_spares, swap, cat_amp, trend_shape, speed_amp, cat_profile, draw_amp,
        draw_trend, overhead_factor, overhead_jitter,
    )  # fmt: skip
    _clear_outputs(
        path <= PATH_NODES, sdc_rollbacks, sdc_from_scratch, sdc_undetected, sdc_rework,
        nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual, nodes_retired,
        wrong_blames, standby_swaps, restarts_memory, restarts_storage, pool_occupancy,
    )  # fmt: skip
    if path == PATH_PHYSICS_NODES:
        _block_physics_nodes_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares,
            repair_hours, cap_hours, max_events, cat_amp, cat_phase, start_hour,
            trend_shape, fleet_age_hours, speed_amp, speed_phase, n_nodes, bad_fraction,
            bad_multiplier, cat_domain, diag_hours, diag_wrong, lemon_k, lemon_window,
            repair_fixed, escalate_prob, manual_repair_hours, auto_miss, manual_miss,
            retire_after, n_standbys, preempt_hours, mem_restart_hours, mem_replicas,
            cat_kind, straggler_speed, sdc_latency, sdc_latency_exp, retention,
            overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend,
            draw_bad_fraction, draw_bad_multiplier, cat_profile, week_hour0, wall,
            finished, progress, interruptions, maint_events, n_events, lost, swings,
            nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual,
            nodes_retired, wrong_blames, standby_swaps, restarts_memory, restarts_storage,
            pool_occupancy, sdc_rollbacks, sdc_from_scratch, sdc_undetected, sdc_rework,
            np.zeros(3, dtype=np.int64),
        )  # fmt: skip
    elif path == PATH_NODES:
        _block_nodes_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares,
            repair_hours, cap_hours, max_events,
            cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase,
            n_nodes, bad_fraction, bad_multiplier, cat_domain, diag_hours, diag_wrong, lemon_k,
            lemon_window, repair_fixed, escalate_prob, manual_repair_hours, auto_miss,
            manual_miss, retire_after, n_standbys, preempt_hours, mem_restart_hours,
            mem_replicas, overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend,
            draw_bad_fraction, draw_bad_multiplier, cat_profile, week_hour0,
            wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
            nodes_excluded_bad, nodes_excluded_good, repairs_auto, repairs_manual,
            nodes_retired, wrong_blames, standby_swaps, restarts_memory, restarts_storage,
            pool_occupancy, np.zeros(3, dtype=np.int64),
        )  # fmt: skip
    elif path == PATH_PHYSICS:
        _block_physics_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares,
            repair_hours, cap_hours, max_events,
            cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase,
            cat_kind, straggler_speed, sdc_latency, sdc_latency_exp, retention,
            overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend, cat_profile,
            week_hour0, wall, finished, progress, interruptions, maint_events, n_events, lost,
            swings, sdc_rollbacks, sdc_from_scratch, sdc_undetected, sdc_rework,
        )  # fmt: skip
    elif path == PATH_DIURNAL:
        _block_diurnal_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
            cap_hours, max_events, cat_amp, cat_phase, start_hour, fleet_age_hours, draw_amp,
            draw_phase, kepler_table, kepler_e, kepler_grid, wall, finished, progress,
            interruptions, maint_events, n_events, lost, swings, True,
            np.zeros(3, dtype=np.int64),
        )  # fmt: skip
    elif path == PATH_RENEWAL:
        _block_renewal_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares, repair_hours,
            cap_hours, max_events,
            cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase,
            wall, finished, progress, interruptions, maint_events, n_events, lost, swings,
            True, np.zeros(3, dtype=np.int64),
        )  # fmt: skip
    elif path == PATH_POOL_REDUCED:
        _block_pool_reduced_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares,
            repair_hours, cap_hours, max_events, wall, finished, progress, interruptions,
            maint_events, n_events, lost, swings, True, np.zeros(2, dtype=np.int64),
        )  # fmt: skip
    elif path == PATH_POOL:
        _block_pool_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares,
            repair_hours, cap_hours, max_events, wall, finished, progress, interruptions,
            maint_events, n_events, lost, swings,
        )  # fmt: skip
    else:
        _block_general_at(
            addr, cat_rate, draw_of_trial, detect_hours, swap, maint_rate, maint_hours,
            work_hours, tau, delta, persist, restart_hours, swap_hours, n_spares,
            repair_hours, cap_hours, max_events,
            cat_amp, cat_phase, start_hour, trend_shape, fleet_age_hours, speed_amp, speed_phase,
            overhead_factor, overhead_jitter, draw_amp, draw_phase, draw_trend, cat_profile,
            week_hour0, wall, finished, progress, interruptions, maint_events, n_events, lost,
            swings,
        )  # fmt: skip
