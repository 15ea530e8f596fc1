r"""Simulation of one synchronous training job's timeline: the contract.

This docstring is the single statement of the process that both the numba kernel
(:mod:`relmc.sim._kernels`) and the slow event-by-event oracle (:mod:`relmc.sim.reference`)
implement. Times are in hours. The lowered inputs are a :class:`~relmc.sim.inputs.KernelInputs`.

Job and checkpoints
-------------------
The job needs ``W`` hours of compute. Starting from durable progress ``p`` it computes in
*segments*: ``n = ceil((W - p) / tau)`` segments, all ``tau`` long except the last, which holds
the remainder ``r = W - p - (n - 1) tau``. Every segment ends with a *blocking snapshot* of
``delta`` hours; the snapshot's progress becomes *durable* ``persist`` hours after the snapshot
ends (background persist; compute goes on meanwhile; ``0 <= persist <= tau``). The job is
finished when the final segment's snapshot is durable, so the final ``persist`` is waited for.
Progress counts in compute hours; each segment is laid out ``[compute s_k][snapshot delta]``.

Diurnal throughput
    A *run* (the job's activity from the end of a restart, or from its start, to the next
    event or the end: compute, blocking snapshots, background persists, the final persist
    wait) advances at speed ``s(t) = 1 + b cos(2 pi (h0 + t - phi_s) / 24)`` *nominal* hours
    per wall hour, on the wall clock ``t`` (``b`` in [0, 1), ``phi_s`` the hour of day of the
    fastest running, ``h0`` the job's start hour). All the lengths above (``tau``, ``delta``,
    ``persist``, ``W``) are nominal: a run that starts at wall ``t1`` has reached nominal
    position ``S(t2) - S(t1)`` at wall ``t2``, ``S(t) = t + (b / w) sin(w (h0 + t - phi_s))``,
    ``w = 2 pi / 24``, and the segment layout is the one above in nominal hours. A persist in
    flight advances at ``s(t)`` too, also during a maintenance checkpoint. Restarts,
    detection, swaps, spare waits, maintenance downtime and the maintenance checkpoint take
    their stated wall hours. (Scaling the snapshots and persists with the compute keeps the
    layout arithmetic, so events are still placed in O(1); with ``b`` of 1-2 % and
    checkpoints a few % of the run the difference is second order.) Without failures, a
    job's wall time ``T`` solves ``S(T) - S(0) = W + n delta + persist``. With ``b = 0``
    this is the process above.

Interruptions
-------------
Categories ``c`` have cluster-level rates ``Lambda_c`` (per hour, already scaled by the units
of a cluster of N GPUs); planned maintenance has rate ``maint_rate``. All are independent
Poisson processes. Events are drawn only while the job is *exposed*: computing,
snapshotting, waiting for the final persist, or restarting. The clock of failures is paused
during detection, node swap, spare wait, maintenance downtime and the maintenance checkpoint.

Time-varying failure rates
    Let ``t`` be the trial's *wall clock* (hours since the job started; it runs on through
    every pause). While the job is exposed, category ``c`` fails with intensity::

        lambda_c(t) = Lambda_c * (1 + a_c cos(2 pi (h0 + t - phi_c) / 24)) * T(t)
        T(t) = (1 + t / A0) ** (beta - 1)

    ``a_c`` in [0, 1] is the category's diurnal amplitude, ``phi_c`` the hour of day of its
    peak, ``h0`` the hour of day at which the job starts; ``T`` is a fleet-level power-law
    (Crow-AMSAA) trend of shape ``beta > 0`` for a fleet of age ``A0 > 0`` hours at the job's
    start: intensity proportional to ``beta * age ** (beta - 1)``, scaled so that
    ``T(0) = 1`` (``Lambda_c`` is the rate at the job's start; ``beta < 1`` burn-in, ``> 1``
    wear-out). Both modulations read the wall clock, never the exposed time: a pause moves
    the time of day and the age on, and events resume at the intensity of the moment the
    exposure resumes. The expected number of failures of ``c`` in an exposed wall interval
    ``[t1, t2]`` is ``integral_{t1}^{t2} lambda_c(t) dt``; given a failure at ``t``, its
    category is ``c`` with probability ``lambda_c(t) / sum_k lambda_k(t)``. Planned
    maintenance is not modulated (constant ``maint_rate`` while exposed). With every
    ``a_c = 0`` and ``beta = 1`` this is the constant-rate process above.

Unexpected failure of category ``c`` while running
    Progress falls back to the last durable checkpoint; the compute done since then is
    ``rework``. Then recovery of ``c`` (below), then a restart.
Planned maintenance while running
    The job first takes a fresh checkpoint of the progress reached so far: ``delta`` blocking
    plus ``persist`` waited for (both ``checkpoint`` time, no events during it), which makes that
    progress durable and loses no work; then ``maint_hours`` of downtime (``maintenance``),
    then a restart. A planned event that arrives after the job's last compute (during the
    final snapshot or the final persist wait) is deferred past the end of the job and does not
    count.
Recovery of category ``c``
    ``detect_hours[c]`` of ``detection`` (a crash is seen at once, a hang when a watchdog
    times out). If ``swap[c]`` the failed node is replaced: with unlimited spares
    (``n_spares < 0``) that costs ``swap_hours`` (``node_swap``). With a finite pool the failed
    node goes to repair (exponential, mean ``repair_hours``) at the end of detection; if more
    than ``n_spares`` nodes are then in repair, the job waits (``spare_wait``) until the
    earliest repair completes, then swaps (``swap_hours``). Restart-only categories skip this.
Restart
    ``restart_hours`` (job start-up plus checkpoint load), exposed to events. A failure during
    a restart counts as an interruption of its category and leads to its recovery and a new
    restart; planned maintenance during a restart costs ``maint_hours`` and a new restart.

Wall cap and outputs
--------------------
A trial whose wall clock would pass ``cap_hours`` stops exactly at the cap with
``finished = False``; compute since the last durable checkpoint then counts as rework (a
persist already under way when a maintenance checkpoint began still completes during it). A
trial also stops unfinished at the moment of its ``max_events``-th event (failures and
planned events; the event is counted, no recovery follows), so no scenario loops for long
however high its event rate. Per
trial the outputs are ``wall_hours``, ``finished``, ``progress_hours`` (durable compute at the
end, ``W`` when finished), ``interruptions[c]``, ``maintenance_events`` and ``lost_hours`` by
cause, in the order of :data:`CAUSES`. Run time lost to ``rework`` and ``checkpoint`` is
counted in nominal hours; ``slowdown`` is the wall hours of every run minus its nominal
hours, negative when the job ran faster than nominal on balance. Exactly, up to rounding::

    wall_hours == progress_hours + sum(lost_hours)

ETTR is ``progress_hours / wall_hours`` (``W / wall_hours`` for a finished trial).

Power swings
    Every GPU of the job draws ``P_busy`` while the job computes and ``P_idle`` at every other
    moment (blocking snapshots, the final persist wait, restarts, recovery, maintenance, and
    before and after the job), so the job's power changes by one step of
    ``N (P_busy - P_idle)`` at once, synchronised over the cluster, at each change between
    the two. ``power_swings`` counts these changes per trial, from the same timeline: an up
    step at the start of the job and at every start of compute after a restart; a down step
    at the start of every blocking snapshot of positive length (``delta > 0``), at the end
    of every snapshot that compute follows (up), at every failure or planned event that
    strikes while computing, and at the end of the job's last compute (the final snapshot,
    the final persist wait or the job's end, whichever comes first). A failure during a
    snapshot, a persist wait or a restart changes nothing (the job is already idle). Every
    stop and start counts, even when the recovery and the restart last 0 h. The wall cap
    is no step. Counted arithmetically per event: ``2 k`` steps for the ``k`` snapshots a run
    completed before its event (``delta > 0``). Without failures a job of ``n`` segments has
    ``2 n`` swings, two per snapshot.

Cost is O(number of events) per trial: between two events whole segments are advanced
arithmetically, never one by one, and nothing depends on the number of GPUs.
"""

CAUSES: tuple[str, ...] = (
    "rework",
    "checkpoint",
    "detection",
    "node_swap",
    "spare_wait",
    "restart",
    "maintenance",
    "slowdown",
)
"""Names of the ``lost_hours`` causes, in kernel order.

They line up with common badput vocabularies: ``rework`` is "wasted progress from
disruption", ``checkpoint`` is "checkpoint save" (blocking snapshots and waited-for
persists), ``restart`` is "program start-up + checkpoint restore", ``detection`` is time a
crashed or hung job sits before the failure is noticed. ``slowdown`` (last, so the earlier
indices stay) is wall time of runs beyond their nominal time under a diurnal throughput
cycle; it may be negative (the job ran faster than nominal).
"""

__all__ = ["CAUSES"]
