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
    flight advances at ``s(t)`` too while the job runs; a maintenance (or straggler)
    checkpoint waits for those in flight, which are durable at its end whatever the speed
    (resolution 7 of the stragglers' section; a checkpoint the wall cap cuts: "Wall cap and
    outputs"). Restarts,
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

Periodic rate profiles
    Off by default (``cat_profile`` has no rows; then the process above, bit for bit). A
    category may follow a periodic profile of hourly values instead of the cosine: while the
    job is exposed it fails with intensity::

        lambda_c(t) = Lambda_c * q_c[k(t)] * T(t),   k(t) = floor((w0 + t) mod 168)

    where ``k(t)`` is the hour of the week at wall time ``t`` (hour 0 is Monday 00:00,
    ``w0 = week_hour0`` the job's start, in [0, 168)) and ``q_c = cat_profile[c]`` holds 168
    values ``>= 0`` with mean 1 (a daily profile is repeated seven times; the scenario
    normalises a user's values to mean 1, so ``Lambda_c`` stays the category's average
    rate over the week). When any category has a profile every category has a row: ones
    for a category without one, whose own diurnal cosine then applies as above; a category
    with a profile has ``a_c = 0`` (the two are not combined on one category). The trend
    ``T`` multiplies both. Failure rates are then time-varying (as under a cosine): the
    expected number of failures of ``c`` in an exposed wall interval is the integral of
    ``lambda_c`` over it, and given a failure at ``t`` its category is ``c`` with
    probability ``lambda_c(t) / sum_k lambda_k(t)``. Planned maintenance is not modulated.
    Implementations may sample by thinning (a bound ``Lambda_c max_k q_c[k]`` per category
    over an interval) or by inverting the piecewise-constant integral; cost stays
    O(events): no loop over the hours of the job (a loop over one week's 168 hours per
    trial, or per event, is the most either may spend), with one exception: thinning
    against the week's bound spends that bound's rate times the hours on rejected
    proposals, unbounded where a profile's hours are zero or nearly so and its peak rate
    high, so after a rejection in an hour whose own bound is under ``PROFILE_LOW`` (1/64)
    of the week's the kernel skips a run of zero hours at once, or thins the rest of that
    hour against its own bound: at most one restart per such hour the job runs through.
    The kernel inverts where profiles are the only modulation (no cosine on any category,
    no trend) on the general path, one exponential a failure walked through the hours it
    spans (whole weeks at once), and thins everywhere else. The profile applies on every path
    (general, node model, stragglers and SDC) and with per-draw physics: a draw's amplitude
    row applies to the categories without a profile (resolution: a per-draw amplitude
    ``> 0`` on a category with a profile is refused by :func:`relmc.simulate`).
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

Stragglers and silent data corruption
-------------------------------------
Off by default (every category is a *failure* category; then the process above is unchanged
bit for bit). A category ``c`` has a kind ``cat_kind[c]``: 0 failure (all of the above), 1
straggler, 2 silent data corruption (SDC). Stragglers and SDC are not node-model features:
with the node model on, their node is the one swapped (a node-domain event, no wrong blame).

Straggler (kind 1, speed ``straggler_speed[c]`` in (0, 1))
    Arrives at the category's rate (diurnal and trend factors as for failures) while the job
    is exposed and no straggler is active (its clock is paused while one is). It does not
    stop the job: from its arrival the job's runs advance at ``straggler_speed[c]`` times
    their speed (times ``s(t)`` under a throughput cycle) until it is *handled*, at wall
    time ``arrival + detect_hours[c]`` if the job is then running: the job stops as for
    planned maintenance (a fresh checkpoint, ``delta`` + ``persist``, of the progress
    reached, no rework), then recovery of ``c`` (``diag_hours[c]`` and a swap if
    ``swap[c]``; its ``detect_hours`` were the slow phase itself), then a restart. A
    failure, a planned event or another stop before that handles the straggler with it:
    the slow node is removed during that recovery at no extra cost, and the slow phase ends
    at the stop (with the node model no node leaves for it and none is recorded:
    resolutions 6 and 10). If the detection time falls during a restart, the straggler is
    handled at the end of the restart (the restart is not slowed; nothing is computed
    during it). The
    extra wall hours of a slow phase (wall hours minus the nominal hours the run would have
    taken at its unslowed speed) are lost to ``straggler``; a straggler counts in
    ``interruptions[c]`` when it arrives.
SDC (kind 2, latency ``sdc_latency[c]``, fixed or exponential with that mean per
``sdc_latency_exp``)
    Corruption arrives at the category's rate while the job is exposed, as failures are
    (computing, snapshots, the final persist wait, restarts: resolution 2 below;
    its clock is paused while a corruption is latent, so at most one is) and is silent: the
    job runs on. It is detected ``L`` wall hours later (``L`` drawn at the arrival), at once
    if the job is then exposed, else when the exposure resumes. At detection the job stops
    and rolls back to the newest *retained* checkpoint whose snapshot began at or before the
    corruption (progress at most the corrupted progress ``p_c``); ``retention`` ``K >= 1``
    keeps the ``K`` newest durable checkpoints (``K = 0``: all are kept), so a rollback may
    lose several intervals, and if none qualifies the job restarts from progress 0. Durable
    compute beyond the rollback point and the compute of the run since its last durable
    checkpoint are ``rework``. Then recovery of ``c`` (``detect_hours[c]``, diagnosis, swap
    per ``swap[c]``) and a restart. An SDC counts in ``interruptions[c]`` when detected. A
    failure between arrival and detection recovers as usual to the last durable checkpoint
    (which may be corrupted); the latent corruption stays latent. A trial that ends (done,
    cap, ``max_events``) with a latent corruption ends with it undetected
    (``sdc_undetected`` = 1); its progress counts as is.
Outputs
    ``straggler`` is a ``lost_hours`` cause appended after ``preemption``; ``sdc_rollbacks``
    counts the checkpoints skipped over by rollbacks (beyond the newest durable one),
    ``sdc_from_scratch`` the rollbacks to progress 0, ``sdc_undetected`` per trial;
    ``sdc_rework`` (hours) is the part of ``rework`` charged at detections: at each, the
    progress reached (durable, plus the run's compute when detected during a run: computing,
    a snapshot or the final persist wait) less the rollback point. The rest of ``rework`` is
    that of failures, the cap and the budget.
Resolutions of points left open above (kernel and oracle alike; issue 11)
    1. Clocks: while a straggler is active the clocks of *every* straggler category are
       paused, while a corruption is latent those of *every* SDC category (so at most one
       of each at once); they restart fresh when it ends (memoryless: the same process).
    2. SDC arrivals are exposed exactly as failures (computing, snapshots, the final persist
       wait, restarts). The corrupted progress ``p_c`` is the progress reached then: the
       durable progress plus the compute done in the run (during a snapshot its progress,
       during a restart the durable progress).
    3. Events: a straggler counts in ``interruptions[c]`` and towards ``max_events`` at its
       arrival; at the ``max_events``-th arrival the trial stops there and the compute since
       the last durable checkpoint is rework. An SDC is an event when it is *detected*, not
       when it arrives: its rollback is done, then the trial stops (no recovery) if that was
       the ``max_events``-th event. A straggler's handling is no event.
    4. The slow phase's loss: from wall ``t1`` to ``t2`` at factor ``sigma`` the run
       advances ``sigma (S(t2) - S(t1))`` nominal hours; ``straggler`` gets
       ``(1 - sigma) (S(t2) - S(t1))`` (``(1 - sigma) (t2 - t1)`` without a throughput
       cycle; a handled straggler costs exactly ``(1 - sigma) detect_hours[c]``) and
       ``slowdown`` keeps ``(t2 - t1) - (S(t2) - S(t1))``, so the accounting identity holds
       exactly. Every run activity is slowed: compute, snapshots, the final persist wait and
       the background persists in flight (stretched from the arrival on).
    5. A straggler that arrives during a restart, a snapshot or the final persist wait
       starts its slow phase there; a restart is never slowed (one arriving in a restart
       slows the run after it). One whose handling time falls after the job's last compute
       (final snapshot or persist wait) is never handled: the job finishes slow (a failure
       there still ends it). One handled at the end of a restart takes no checkpoint (the
       progress is durable) and makes no power step: its recovery (a swap per ``swap[c]``),
       then a new restart.
    6. A stop that handles a straggler "with it" (failure, planned event, SDC detection, the
       cap) costs nothing extra: no node leaves, no repair; the slow phase just ends.
    7. Retained checkpoints are the durable ones of runs plus the checkpoints taken at
       maintenance and at a straggler's handling; the job's start (progress 0) is none. A
       maintenance or straggler checkpoint begins at the stop's wall time; persists in
       flight complete during it and are kept before it. Persists in flight at a failure or
       a detection are lost.
    8. The rollback point is chosen by *time*, as stated: the newest retained checkpoint
       whose snapshot began at or before the corruption's wall time. (Its progress is at
       most ``p_c``; but a checkpoint of progress at most ``p_c`` taken after a fall back
       during the latency, or a maintenance checkpoint of the snapshot the corruption
       struck, began after it and does not qualify.) The retained list is read at
       detection; the newer ones are discarded and ``sdc_rollbacks`` adds their number (all
       retained ones for a rollback to 0); ``sdc_from_scratch`` counts every rollback for
       which none qualified, also when progress was 0 already.
    9. A detection due while the job is not exposed (recovery, maintenance, a maintenance or
       straggler checkpoint) happens when the next restart begins, before any of it is
       spent; a detection due at the same moment as a restart's end comes first. With the
       node model that restart has begun: it counts (memory or storage by the rule of the
       recovery before it, node resolution 8), and the SDC's recovery ends in a restart of
       its own.
    10. Node model: straggler and SDC categories are node-domain whatever ``cat_domain``
        says (one clock per node, ``bad_multiplier`` applies), never wrongly blamed (their
        ``diag_wrong`` is not read; their ``diag_hours`` is spent). A straggler's node is
        the one it struck; one handled on its own records a failure on it for lemon
        detection, at its arrival's wall time (one handled with another stop, resolution 6,
        records nothing: its node is not singled out); an SDC's node is the
        one the corruption struck, recorded at the detection's wall time (the failure
        becomes known then; at the corruption's time, failures recorded on the node during
        the latency would come before it, out of time order). Either may be excluded as a
        lemon. An SDC whose node left the job before detection blames no node, also if
        that node is back in the job by then (repaired and returned). The
        restart after a straggler's handling or an SDC reads storage; a straggler's or a
        maintenance checkpoint resets the count of nodes left; an SDC's detection resets
        nothing, neither by its rollback nor by the checkpoints of the run it ends (which
        may postdate the corruption; the restart reads storage anyway), so the count runs
        on to the next checkpoint made durable after the detection.

Nodes: lemons, blast radius, diagnosis, repair pipeline, standbys, memory restore
---------------------------------------------------------------------------------
Everything in this section is off by default (``KernelInputs.node_model`` is false); then the
process is the one above, bit for bit. When any of it is on, nodes are modelled as *counts*
(good and bad nodes in the job, among the job's standbys, in the shared pool, in each repair
stage, excluded, retired) plus a sparse *record* of each node that has failed or been sent
to repair (its type, failure times and repairs; where it is follows from the list or repair
stage that holds it); nothing is held per GPU. The job holds ``n_nodes`` nodes, always all
of them while it is exposed.

Node types (lemons)
    Each node is *good* or *bad*. At the job's start the numbers of bad nodes in the job, among
    its ``n_standbys`` standbys and in the pool of ``n_spares`` are independent
    ``Binomial(n, f)`` (``f = bad_fraction``; with an unlimited pool every node drawn from it
    is bad with probability ``f``). A bad node fails ``m_c >= 1`` times as often as a good one
    in category ``c`` (``bad_multiplier[c]``). ``Lambda_c`` is the category's rate for a job of
    nodes mixed at the fleet's fraction: with ``B`` bad nodes in the job, the job's rate of a
    node-domain category is ``Lambda_c (n - B + m_c B) / (n (1 - f + f m_c))`` (so its
    expectation over ``B ~ Binomial(n, f)`` is ``Lambda_c``); standbys and pool nodes do not
    fail. A failure of a node-domain category strikes a bad node with probability
    ``m_c B / (n - B + m_c B)``, and, given the type, a node of that type uniformly at random.
    Rates change only when ``B`` does (at swaps), so the process is still memoryless between
    events; diurnal and trend factors multiply these rates as above.
Blast radius
    A category of domain size ``d_c > 1`` (``cat_domain``: 1 a node, else the nodes of a rack,
    a pod, ... from the cluster's shape, at most ``n``) takes ``d = min(d_c, n)`` nodes of the
    job at once, chosen uniformly at random (the bad ones among them hypergeometric); its rate
    is ``Lambda_c`` whatever the node types, there is no wrong blame, and all ``d`` nodes go
    to repair (``swap[c]`` is then taken as true). Their failures do not count towards lemon
    detection.
Detection, diagnosis and blame (node-domain categories)
    After ``detect_hours[c]`` (``detection``) comes ``diag_hours[c]`` of diagnosis
    (``diagnosis``). With probability ``diag_wrong[c]`` the wrong node is blamed: one of the
    job's other ``n - 1`` nodes uniformly at random (``wrong_blames`` counts these); the node
    that failed stays in the job, unchanged. The blamed node is the one acted on below, and
    the failure is recorded on it at the failure's wall time.
Lemon detection (``lemon_k >= 1``; 0 is off)
    A blamed node whose recorded failures within the window ``(t - lemon_window, t]`` of this
    failure's time ``t`` number ``lemon_k`` or more is *excluded*: it leaves the job and the
    fleet for good (``nodes_excluded_bad`` / ``_good`` by its true type), and is replaced like
    a swapped node, whatever the category's recovery.
Node replacement
    A node that leaves the job (swapped because ``swap[c]``, or excluded) is replaced at the
    end of diagnosis. Swapped nodes go to repair (below) at that moment. The replacement is a
    standby if the job holds one: instant (``standby_swaps`` counts them), and the job at once
    takes a node from the pool to refill its standbys if the pool has one. Otherwise a pool
    node is taken, drawn uniformly from the pool (so bad with the pool's current bad
    fraction): ``preempt_hours`` (``preemption``, reaching the shared pool) then
    ``swap_hours`` (``node_swap``). If the pool is empty the job waits (``spare_wait``) for the
    next repair that returns a node, takes it, then ``preempt_hours`` and ``swap_hours``. An
    event that needs several nodes (a blast radius) takes standbys first, then pool nodes,
    then waits until it has all of them; ``preempt_hours`` and ``swap_hours`` are charged once
    per event, if any node came from the pool. If no node can ever come (pool and repairs
    empty: all excluded or retired) the job waits to the wall cap. With an unlimited pool
    (``n_spares < 0``) a pool node is always there, bad with probability ``f``; nodes sent
    to repair are counted but never come back.
Repair pipeline
    A node sent to repair for the ``retire_after``-th time is retired instead
    (``nodes_retired``; ``retire_after = 0`` is off). Otherwise stage 1 (automated,
    ``repairs_auto`` counts entries) lasts ``repair_hours`` (mean; exponential, or exactly
    that if ``repair_fixed``); then with probability ``escalate_prob`` the node enters stage 2
    (manual, ``repairs_manual``), mean ``manual_repair_hours``, same distribution family. A
    bad node leaving stage ``s`` is still bad with probability ``auto_miss`` (``s = 1``) or
    ``manual_miss`` (``s = 2``), else good; a good node stays good. Repairs run on the wall
    clock, many at once; a repaired node refills the job's standbys if short, else joins the
    pool. Nodes are conserved: ``n + n_standbys + n_spares`` = job + standbys + pool + in
    repair + excluded + retired, at every moment. Today's finite pool is the case
    ``n_standbys = 0``, ``preempt_hours = 0``, one exponential stage, no retirement.
    ``pool_occupancy`` is the time average over the trial's wall hours of the nodes in the
    pool (NaN with an unlimited pool).
Restart from memory (``mem_restart_hours >= 0``; negative is off)
    Peers hold the last checkpoint in memory with ``mem_replicas = r`` copies. A restart after
    an unexpected failure takes ``mem_restart_hours`` instead of ``restart_hours``
    (``restarts_memory``) unless the failure took a blast-radius domain (``d > 1``) or more
    than ``r`` nodes have left the job since the checkpoint it restarts from became durable
    (nodes left counts swapped and excluded nodes, and is reset whenever a new checkpoint
    becomes durable); then it reads storage in ``restart_hours``. A restart after planned
    maintenance always reads storage. ``restarts_memory`` and ``restarts_storage`` count the
    restarts begun from each.
Resolutions of points left open above (kernel and oracle agree on these)
    1. ``n_nodes = ceil(n_gpus / gpus_per_node)``; a rack is ``nodes_per_rack`` nodes, a pod
       ``max(1, gpus_per_pod // gpus_per_node)``, each capped at ``n``. A category whose
       capped domain is one node is a node-domain category.
    2. Diagnosis (``diag_hours[c]``) follows detection for every category (restart-only and
       blast-radius ones too); wrong blame only for node-domain ones, and never when
       ``n = 1``. A node-domain failure of a restart-only category is still recorded on the
       blamed node (and may exclude it); if nothing is excluded no node leaves.
    3. A blamed node keeps its recorded failure times and its repair count through repairs;
       failures during a restart count. A failure ``s`` is in the window of ``t`` when
       ``t - lemon_window < s <= t``. An excluded node does not go to repair.
    4. A standby (or pool node) taken is drawn uniformly among the standbys (pool).
       ``standby_swaps`` counts nodes taken from the standbys.
    5. Replacing ``d`` nodes: standbys first, then pool nodes for the rest, then the
       standbys are refilled from what the pool has left, then the job waits for repairs.
       A node coming out of repair goes to a waiting job first, then to the standbys if
       short, then to the pool. ``preempt_hours`` and ``swap_hours`` are charged once, after
       any wait, when any node came from the pool or from repair; none when all were standbys.
    6. Retirement is decided when a node is sent: its ``retire_after``-th send retires it
       (not counted in ``repairs_auto``). ``repairs_auto`` counts sends into stage 1,
       ``repairs_manual`` escalations at the end of stage 1; a repair stage that would end
       after the trial's end never ends. With an unlimited pool, sent nodes go through the
       pipeline the same way and leave the simulation when they come out.
    7. The wall cap cuts a spare wait like any pause; a repair ending after the cap returns
       nothing. With the pool, the standbys and the repairs all empty, the job waits to the
       cap.
    8. Restarts are counted when they begin (the end of recovery, or of maintenance
       downtime), also if then cut by the cap or interrupted; the job's start is no restart.
       With the node model on and ``mem_restart_hours < 0`` every restart counts in
       ``restarts_storage``. A restart after a failure during a restart follows the same
       rule; ``nodes left`` is reset before the event when a checkpoint of the run became
       durable before it, and by the maintenance checkpoint.
    9. Bad nodes in the job change only when nodes are replaced (at the end of recovery); the
       job's rates change then.
New outputs
    ``diagnosis`` and ``preemption`` are ``lost_hours`` causes appended after ``slowdown``
    (zero when off). The per-trial counts above (``nodes_excluded_bad``,
    ``nodes_excluded_good``, ``repairs_auto``, ``repairs_manual``, ``nodes_retired``,
    ``wrong_blames``, ``standby_swaps``, ``restarts_memory``, ``restarts_storage``) are zero
    when off, and ``pool_occupancy`` is NaN unless the node model is on with a finite pool.

Physics parameters per draw
---------------------------
Off by default (``draw_amp``, ``draw_phase``, ``draw_trend``, ``draw_bad_fraction`` and
``draw_bad_multiplier`` have no rows; then the process above is unchanged bit for bit). A
posterior that carries physics parameters per draw (an event-log fit,
:func:`relmc.fit_events`) gives them per rate draw: a trial of draw ``d`` runs the whole
process above with, for each array that has rows (each on its own):

* ``a_c = draw_amp[d, c]`` and ``phi_c = draw_phase[d, c]`` in place of ``cat_amp[c]`` and
  ``cat_phase[c]`` (shape ``(n_draws, n_categories)``);
* ``beta = draw_trend[d]`` in place of ``trend_shape`` (shape ``(n_draws,)``);
* ``f = draw_bad_fraction[d]`` in place of ``bad_fraction`` (shape ``(n_draws,)``);
* ``m_c = draw_bad_multiplier[d, c]`` in place of ``bad_multiplier[c]`` (shape
  ``(n_draws, n_categories)``).

Resolutions
    1. Which process runs is decided for the whole simulation, not per draw: failure rates
       vary in time if any draw has an amplitude > 0 or a trend shape != 1 (or the single
       values say so), and the node model is on if any draw has a bad fraction > 0 (or the
       single values turn it on). A draw whose own values are neutral (every ``a_c = 0``,
       ``beta = 1``, ``f = 0``) then runs the same process with those values: it is the same
       process in law, not bit for bit the path without the feature.
    2. The node model's other inputs (``n_nodes``, the pool, the repair pipeline, ...) are
       the single values for every draw.
    3. Trials that share a rate draw share its physics parameters, as they share its rates
       (rows that repeat a posterior draw repeat its parameters).

Uncertain overheads
-------------------
Off by default (``overhead_factor`` has no rows and every ``overhead_jitter`` is 0; then the
process above is unchanged bit for bit, and no extra random number is drawn). The stated
overheads are then *medians* of lognormal durations, uncertain in two ways that combine.

Per draw (epistemic: the true value is unknown but the same all through a job)
    ``overhead_factor`` (shape ``(n_draws, 9)``, columns snapshot, persist, restart, swap,
    detection, maintenance, diagnosis, preemption, sdc_latency) holds one multiplier per rate
    draw and overhead, drawn by
    :func:`relmc.sim.simulate.draw_overhead_factors` as ``exp(sigma_x Z)`` with ``Z``
    standard normal and ``sigma_x = overhead_sigma[x]``, from the run's seed (a stream of
    its own, so the rate draws and the trials' streams do not move). A trial of draw ``d``
    runs the whole process above with ``delta F[d,0]``, ``min(persist F[d,1], tau)``,
    ``restart_hours F[d,2]`` (and ``mem_restart_hours F[d,2]`` when restart from memory is
    on), ``swap_hours F[d,3]``, every ``detect_hours[c] F[d,4]`` (one factor for all
    categories), ``maint_hours F[d,5]``, every ``diag_hours[c] F[d,6]`` (the node model's
    diagnosis, one factor for all categories), ``preempt_hours F[d,7]`` and every
    ``sdc_latency[c] F[d,8]`` (an SDC's latency: the fixed value, or the mean of the
    exponential with ``sdc_latency_exp``). ``tau`` stays as given (it was chosen from the
    medians, as an operator who does not know the true values would); the maintenance
    checkpoint and the straggler's checkpoint take the trial's ``delta`` and ``persist``.
    Trials that share a rate draw share its factors (also rows that repeat one posterior
    draw, as a credible simulation's groups do), so a credible interval over draws includes
    the overheads' uncertainty and a predictive one both kinds. ``Z`` has a row for every
    draw of the source posterior (``relmc.rates.RateDraws.n_source``), whichever of
    them a simulation runs, so a simulation of some of its draws (a credible simulation
    runs its first few) gives each draw the factors a simulation of all of them gives it.
Per event (aleatoric: each occurrence differs)
    With ``j_x = overhead_jitter[x] > 0`` (columns restart, swap, detection, maintenance),
    each occurrence of that overhead lasts its (per-draw) value times a fresh
    ``exp(j_x Z)``, drawn from the trial's stream when the overhead begins: each restart
    (also one after a failure during a restart, and the restart from memory), each node
    swap, each detection (for a straggler, its slow phase ``detect_hours[c]``, drawn at the
    arrival; for an SDC, the detection delay after the corruption is found), each
    maintenance downtime. Snapshots and persists have no per-event jitter: they occur per
    segment, and a draw per segment would break the O(events) cost; their uncertainty is
    per draw only. Spare waits, repairs, diagnosis and preemption keep their own process.
Resolutions
    1. A median ``m`` with a 90% range factor ``k >= 1`` (5% and 95% quantiles ``m / k`` and
       ``m k``) is ``sigma = ln(k) / z_0.95``, ``z_0.95 = 1.6448536...``; the mean duration is
       ``m exp(sigma^2 / 2)``, and with both kinds ``m exp((sigma^2 + j^2) / 2)``.
    2. An overhead of 0 stays 0 (no draw is skipped: the draw is made and multiplies 0).
    3. The restart in flight when the wall cap strikes is cut like any other; a jittered
       restart during which an event arrives is abandoned, and the next restart draws
       afresh.
    4. The renewal fast path does not run when either kind is on (the general, node and
       physics paths implement them); the results are the process above, whichever path.
    5. The exposure-clock conversion of fitted rates (:func:`relmc.rates.exposed_fraction`)
       uses the overheads' means (resolution 1).

Wall cap and outputs
--------------------
A trial whose wall clock would pass ``cap_hours`` stops exactly at the cap with
``finished = False``; compute since the last durable checkpoint then counts as rework. A
persist already under way when a maintenance (or straggler) checkpoint began goes on during
it at the run's speed ``s(t)``: if the cap cuts the checkpoint, that persist is durable only
if it ended before the cap (uncut, every persist in flight is durable at the checkpoint's
end). A trial also stops unfinished at the moment of its ``max_events``-th event (failures
and planned events; the event is counted, no recovery follows: a planned event takes no
checkpoint then, so the compute since the last durable checkpoint is rework), so no scenario
loops for long however high its event rate. Per
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
    is no step; the ``max_events``-th event is the step of its kind (a failure, a planned
    event or a straggler's arrival while computing: down), so a trial stopped by the event
    budget ends, like a finished one, with an even count. Counted arithmetically per event:
    ``2 k`` steps for the ``k`` snapshots a run completed before its event (``delta > 0``).
    Without failures a job of ``n`` segments has ``2 n`` swings, two per snapshot.

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
    "diagnosis",
    "preemption",
    "straggler",
)
"""Names of the ``lost_hours`` causes, in kernel order.

They line up with common badput vocabularies: ``rework`` is "wasted progress from
disruption", ``checkpoint`` is "checkpoint save" (blocking snapshots and waited-for
persists), ``restart`` is "program start-up + checkpoint restore", ``detection`` is time a
crashed or hung job sits before the failure is noticed. ``slowdown`` (last, so the earlier
indices stay) is wall time of runs beyond their nominal time under a diurnal throughput
cycle; it may be negative (the job ran faster than nominal). ``diagnosis`` (finding the node
at fault after detection) and ``preemption`` (taking a node from the shared pool) follow, zero
unless the node model is on. ``straggler`` (wall hours a job ran slow behind a straggling
node, beyond its unslowed speed) follows, zero unless a category is a straggler category.
"""

__all__ = ["CAUSES"]
