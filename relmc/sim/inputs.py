"""Array-only kernel inputs and outputs, and the one function that packs them for the kernel.

The numba kernel takes positional arguments; :func:`kernel_args` is the only place that lays
them out, in the order of :data:`KERNEL_PARAMETERS` (a test checks that this order is the
kernel's signature).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, fields

import numpy as np

__all__ = [
    "KernelInputs",
    "OUTPUTS",
    "KERNEL_PARAMETERS",
    "allocate_outputs",
    "kernel_args",
    "block_args",
    "UNLIMITED_SPARES",
    "OVERHEADS",
    "EVENT_OVERHEADS",
    "PER_DRAW_PHYSICS",
    "WEEK_HOURS",
]

#: ``n_spares`` value that means an unlimited spare pool.
UNLIMITED_SPARES = -1

#: Overheads with a per-draw (epistemic) multiplier: columns of ``overhead_factor``.
OVERHEADS: tuple[str, ...] = (
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

#: Overheads with a per-event (aleatoric) multiplier: entries of ``overhead_jitter``.
EVENT_OVERHEADS: tuple[str, ...] = ("restart", "swap", "detection", "maintenance")

#: Hours in the period of a rate profile (a week; a daily profile is repeated seven times).
WEEK_HOURS = 168

#: Physics parameters that may be given per rate draw (no rows: the single values apply).
PER_DRAW_PHYSICS: tuple[str, ...] = (
    "draw_amp",
    "draw_phase",
    "draw_trend",
    "draw_bad_fraction",
    "draw_bad_multiplier",
)


@dataclass(frozen=True, eq=False)
class KernelInputs:
    """Everything one simulation needs, as arrays and floats (hours, per hour).

    Parameters
    ----------
    cat_rate : ndarray, shape (n_draws, n_categories)
        Cluster-level rate of each category for each rate draw, per hour.
    draw_of_trial : ndarray of int64, shape (n_trials,)
        Which row of ``cat_rate`` each trial uses.
    detect_hours : ndarray, shape (n_categories,)
        Detection latency of each category.
    swap : ndarray of bool, shape (n_categories,)
        Whether recovery from the category needs a node swap.
    maint_rate, maint_hours : float
        Planned maintenance rate (per hour) and downtime (hours).
    work_hours, tau, delta, persist, restart_hours : float
        ``W``, checkpoint interval, blocking snapshot time, background persist time, restart.
    swap_hours : float
        Time to swap a node in from the spare pool.
    n_spares : int
        Spare nodes; negative means unlimited.
    repair_hours : float
        Mean (exponential) repair time of a failed node, used when ``n_spares >= 0``.
    cap_hours : float
        Wall-clock cap of a trial.
    max_events : int
        A trial also stops unfinished after this many events.
    cat_amp, cat_phase : ndarray, shape (n_categories,)
        Diurnal amplitude ``a_c`` in [0, 1] and hour of day of the peak ``phi_c`` of each
        category's rate (default: no modulation; an empty array means zeros).
    start_hour : float
        Hour of day at which the job starts (``h0``).
    trend_shape, fleet_age_hours : float
        Power-law trend of the failure rates: shape ``beta`` (1: constant) and the fleet's
        age ``A0`` at the job's start, hours (> 0).
    speed_amp, speed_phase : float
        Diurnal throughput: amplitude ``b`` in [0, 1) and hour of day ``phi_s`` of the
        fastest running (0: constant speed).
    n_nodes : int
        Nodes in the job (``n``), >= 1.
    bad_fraction : float
        Fraction ``f`` of bad ("lemon") nodes, in [0, 1].
    bad_multiplier : ndarray, shape (n_categories,)
        Rate multiplier ``m_c >= 1`` of a bad node in each category (empty: ones).
    cat_domain : ndarray of int64, shape (n_categories,)
        Nodes one failure of each category takes (1: a node; empty: ones).
    diag_hours, diag_wrong : ndarray, shape (n_categories,)
        Diagnosis time after detection, and probability of blaming the wrong node
        (empty: zeros).
    lemon_k : int
        Lemon detection: blamed failures within ``lemon_window`` that exclude a node (0: off).
    lemon_window : float
        Window of lemon detection, hours (> 0; inf: the whole trial).
    repair_fixed : bool
        Repair stages last exactly their mean (else exponential).
    escalate_prob, manual_repair_hours : float
        Probability of going on from automated to manual repair, and its mean duration.
    auto_miss, manual_miss : float
        Probability that a bad node leaves automated / manual repair still bad.
    retire_after : int
        A node sent to repair for this many times is retired instead (0: never).
    n_standbys : int
        Standby nodes the job holds.
    preempt_hours : float
        Time to take a node from the shared pool (before the swap).
    mem_restart_hours : float
        Restart time from peers' memory (negative: off).
    mem_replicas : int
        In-memory copies of the checkpoint, >= 1.
    cat_kind : ndarray of int64, shape (n_categories,)
        Kind of each category: 0 failure, 1 straggler, 2 silent data corruption (empty: zeros).
    straggler_speed : ndarray, shape (n_categories,)
        Speed factor of the job behind a straggler of each category, in (0, 1) (empty: ones;
        read for straggler categories only).
    sdc_latency : ndarray, shape (n_categories,)
        Wall hours from a corruption to its detection (fixed or the mean; empty: zeros).
    sdc_latency_exp : ndarray of bool, shape (n_categories,)
        Whether the SDC latency is exponential with mean ``sdc_latency`` (empty: False).
    retention : int
        Durable checkpoints kept for SDC rollbacks, ``K >= 1`` newest (0: all).
    overhead_sigma : ndarray, shape (9,)
        Log-standard deviation of the per-draw (epistemic) multiplier of each overhead, in the
        order of :data:`OVERHEADS` (empty: zeros). Read by
        :func:`relmc.sim.simulate.draw_overhead_factors`, not by the kernel.
    overhead_factor : ndarray, shape (n_draws, 9) or (0, 9)
        The per-draw multipliers themselves (no rows: off); see "Uncertain overheads" in
        :mod:`relmc.sim`.
    overhead_jitter : ndarray, shape (4,)
        Log-standard deviation of the per-event multiplier of each event overhead, in the
        order of :data:`EVENT_OVERHEADS` (empty: zeros, off).
    draw_amp, draw_phase : ndarray, shape (n_draws, n_categories) or (0, n_categories)
        Per rate draw, the diurnal amplitude and peak hour of each category, in place of
        ``cat_amp`` / ``cat_phase`` (no rows: the single values); see "Physics parameters per
        draw" in :mod:`relmc.sim`.
    draw_trend : ndarray, shape (n_draws,) or (0,)
        Per rate draw, the trend shape in place of ``trend_shape``.
    draw_bad_fraction : ndarray, shape (n_draws,) or (0,)
        Per rate draw, the bad-node fraction in place of ``bad_fraction``.
    draw_bad_multiplier : ndarray, shape (n_draws, n_categories) or (0, n_categories)
        Per rate draw, each category's bad-node multiplier in place of ``bad_multiplier``.
    cat_profile : ndarray, shape (n_categories, 168) or (0, 168)
        Each category's hourly rate multipliers over a week (mean 1; ones for a category
        without a profile); no rows: no profiles. See "Periodic rate profiles" in
        :mod:`relmc.sim`.
    week_hour0 : float
        Hour of the week at the job's start, in [0, 168) (hour 0 is Monday 00:00).

    Attributes
    ----------
    kepler_table : ndarray, shape (1025, 3) or (0, 3)
        Derived, not given: with no per-draw shapes, the diurnal path's inverse table of ``u
        + e sin u`` (``relmc.sim._kernels._kepler_table``) for the amplitude ``e`` of its
        summed intensity ``L (1 + e cos)``: every category's where all have one diurnal
        amplitude ``e > 0`` and one peak hour (any rates), else, with point rates, ``A / L``
        of the categories' terms summed (``_summed_amplitude``, the path's own floats, at
        most 1); built once here rather than in every block of 256 trials (~130 us a block,
        ~10 % of a block at 2k GPUs); else no rows. The path reads the nearest reference
        table (``kepler_grid``) where the amplitude is the draw's, and builds its own for any
        other amplitude; results do not depend on this table being given
        (tests/test_diurnal_block.py).
    kepler_e : float
        The amplitude ``kepler_table`` is for (NaN: none).
    kepler_grid : ndarray, shape (65, 1025, 3) or (0, 1025, 3)
        Derived, not given: where the diurnal path's intensity has an amplitude per draw
        (shapes per draw, or categories of different shapes with rates per draw), its
        reference tables at the amplitudes ``k / 64``, ``k = 0..64`` (``_kepler_grid``, ~2 ms
        and 1.6 MB, built once a process and shared), of which each draw's blocks read the
        nearest (the solve is computed at the draw's amplitude; a table is a point to step
        from); else no rows (and such draws take no blocks).
    """

    cat_rate: np.ndarray
    draw_of_trial: np.ndarray
    detect_hours: np.ndarray
    swap: np.ndarray
    maint_rate: float
    maint_hours: float
    work_hours: float
    tau: float
    delta: float
    persist: float
    restart_hours: float
    swap_hours: float
    n_spares: int
    repair_hours: float
    cap_hours: float
    max_events: int = 1_000_000
    cat_amp: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cat_phase: np.ndarray = field(default_factory=lambda: np.zeros(0))
    start_hour: float = 0.0
    trend_shape: float = 1.0
    fleet_age_hours: float = 1.0
    speed_amp: float = 0.0
    speed_phase: float = 0.0
    n_nodes: int = 1
    bad_fraction: float = 0.0
    bad_multiplier: np.ndarray = field(default_factory=lambda: np.ones(0))
    cat_domain: np.ndarray = field(default_factory=lambda: np.ones(0, dtype=np.int64))
    diag_hours: np.ndarray = field(default_factory=lambda: np.zeros(0))
    diag_wrong: np.ndarray = field(default_factory=lambda: np.zeros(0))
    lemon_k: int = 0
    lemon_window: float = np.inf
    repair_fixed: bool = False
    escalate_prob: float = 0.0
    manual_repair_hours: float = 168.0
    auto_miss: float = 0.0
    manual_miss: float = 0.0
    retire_after: int = 0
    n_standbys: int = 0
    preempt_hours: float = 0.0
    mem_restart_hours: float = -1.0
    mem_replicas: int = 1
    cat_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    straggler_speed: np.ndarray = field(default_factory=lambda: np.ones(0))
    sdc_latency: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sdc_latency_exp: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    retention: int = 0
    overhead_sigma: np.ndarray = field(default_factory=lambda: np.zeros(0))
    overhead_factor: np.ndarray = field(default_factory=lambda: np.ones((0, len(OVERHEADS))))
    overhead_jitter: np.ndarray = field(default_factory=lambda: np.zeros(0))
    draw_amp: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    draw_phase: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    draw_trend: np.ndarray = field(default_factory=lambda: np.ones(0))
    draw_bad_fraction: np.ndarray = field(default_factory=lambda: np.zeros(0))
    draw_bad_multiplier: np.ndarray = field(default_factory=lambda: np.ones((0, 0)))
    cat_profile: np.ndarray = field(default_factory=lambda: np.ones((0, WEEK_HOURS)))
    week_hour0: float = 0.0
    kepler_table: np.ndarray = field(init=False, repr=False)
    kepler_e: float = field(init=False, repr=False)
    kepler_grid: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n_cat = int(np.shape(self.cat_rate)[1])
        # per-trial counts are int32, and a node's repairs and blamed failures are 31-bit
        # fields of its record: a trial's events must stay below 2^31
        if not 1 <= int(self.max_events) <= 2**31 - 1:
            raise ValueError(
                f"max_events must be an integer in [1, {2**31 - 1}] (per-trial counts are "
                f"int32); got {self.max_events}"
            )
        for name in ("cat_amp", "cat_phase", "diag_hours", "diag_wrong"):
            if np.size(getattr(self, name)) == 0:  # not given: no modulation, no diagnosis
                object.__setattr__(self, name, np.zeros(n_cat))
        if np.size(self.bad_multiplier) == 0:
            object.__setattr__(self, "bad_multiplier", np.ones(n_cat))
        if np.size(self.cat_domain) == 0:
            object.__setattr__(self, "cat_domain", np.ones(n_cat, dtype=np.int64))
        # stragglers and SDC: off unless given (every category a failure category)
        if np.size(self.cat_kind) == 0:
            object.__setattr__(self, "cat_kind", np.zeros(n_cat, dtype=np.int64))
        if np.size(self.straggler_speed) == 0:
            object.__setattr__(self, "straggler_speed", np.ones(n_cat))
        if np.size(self.sdc_latency) == 0:
            object.__setattr__(self, "sdc_latency", np.zeros(n_cat))
        if np.size(self.sdc_latency_exp) == 0:
            object.__setattr__(self, "sdc_latency_exp", np.zeros(n_cat, dtype=np.bool_))
        object.__setattr__(self, "cat_kind", np.asarray(self.cat_kind, dtype=np.int64))
        object.__setattr__(
            self, "sdc_latency_exp", np.asarray(self.sdc_latency_exp, dtype=np.bool_)
        )
        for name in ("straggler_speed", "sdc_latency"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=np.float64))
        # the kernel's types: int64 domains, float rates, plain scalars
        object.__setattr__(self, "cat_domain", np.asarray(self.cat_domain, dtype=np.int64))
        for name in ("bad_multiplier", "diag_hours", "diag_wrong"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=np.float64))
        # uncertain overheads: off unless given
        for name, n in (("overhead_sigma", len(OVERHEADS)), ("overhead_jitter", 4)):
            value = np.asarray(getattr(self, name), dtype=np.float64)
            object.__setattr__(self, name, np.zeros(n) if value.size == 0 else value)
        factor = np.asarray(self.overhead_factor, dtype=np.float64)
        if factor.ndim != 2 or factor.shape[1] != len(OVERHEADS):
            raise ValueError(
                f"overhead_factor must have shape (n_draws, {len(OVERHEADS)}) (columns "
                f"{', '.join(OVERHEADS)}); got {factor.shape}"
            )
        object.__setattr__(self, "overhead_factor", np.ascontiguousarray(factor))
        # physics parameters per draw: off unless given; 2-D ones (n, n_cat), 1-D ones (n,)
        for name in ("draw_amp", "draw_phase", "draw_bad_multiplier"):
            value = np.asarray(getattr(self, name), dtype=np.float64)
            value = np.ascontiguousarray(value.reshape(-1, n_cat))
            object.__setattr__(self, name, value)
        for name in ("draw_trend", "draw_bad_fraction"):
            value = np.ascontiguousarray(np.asarray(getattr(self, name), dtype=np.float64))
            object.__setattr__(self, name, value.reshape(-1))
        profile = np.asarray(self.cat_profile, dtype=np.float64).reshape(-1, WEEK_HOURS)
        if profile.shape[0] not in (0, n_cat):
            raise ValueError(
                f"cat_profile must have 0 or {n_cat} rows (one per category); got "
                f"{profile.shape[0]}"
            )
        object.__setattr__(self, "cat_profile", np.ascontiguousarray(profile))
        n_draws = int(np.shape(self.cat_rate)[0])
        for name in PER_DRAW_PHYSICS:
            rows = getattr(self, name).shape[0]
            if rows not in (0, n_draws):
                raise ValueError(f"{name} must have 0 or {n_draws} rows (one per draw); got {rows}")
        table, e, grid = _diurnal_tables(self)
        object.__setattr__(self, "kepler_table", table)
        object.__setattr__(self, "kepler_e", e)
        object.__setattr__(self, "kepler_grid", grid)

    @property
    def modulated(self) -> bool:
        """Whether any failure rate varies in time (diurnal amplitude or trend, in any draw)."""
        return bool(
            np.any(np.asarray(self.cat_amp) > 0.0)
            or self.trend_shape != 1.0
            or np.any(self.draw_amp > 0.0)
            or np.any(self.draw_trend != 1.0)
            or self.cat_profile.shape[0] > 0
        )

    @property
    def per_draw_physics(self) -> bool:
        """Whether any physics parameter is given per draw (see :mod:`relmc.sim`)."""
        return any(getattr(self, name).shape[0] > 0 for name in PER_DRAW_PHYSICS)

    @property
    def node_model(self) -> bool:
        """Whether any node feature is on (off: the kernel runs the process without nodes).

        The features: lemons, blast radius, diagnosis, the repair pipeline, standbys,
        preemption and restart from memory (see :mod:`relmc.sim`).
        """
        return bool(
            self.bad_fraction > 0.0
            or np.any(self.draw_bad_fraction > 0.0)
            or np.any(np.asarray(self.cat_domain) > 1)
            or np.any(np.asarray(self.diag_hours) > 0.0)
            or np.any(np.asarray(self.diag_wrong) > 0.0)
            or self.lemon_k > 0
            or self.repair_fixed
            or self.escalate_prob > 0.0
            or self.retire_after > 0
            or self.n_standbys > 0
            or self.preempt_hours > 0.0
            or self.mem_restart_hours >= 0.0
        )

    @property
    def uncertain_overheads(self) -> bool:
        """Whether any overhead is uncertain, per draw or per event (see :mod:`relmc.sim`)."""
        return bool(
            np.any(self.overhead_sigma > 0.0)
            or self.overhead_factor.shape[0] > 0
            or np.any(self.overhead_jitter > 0.0)
        )

    @property
    def physics(self) -> bool:
        """Whether any category is a straggler or SDC category (see :mod:`relmc.sim`)."""
        return bool(np.any(np.asarray(self.cat_kind) != 0))

    @property
    def n_trials(self) -> int:
        """Number of trials."""
        return int(self.draw_of_trial.shape[0])

    @property
    def n_categories(self) -> int:
        """Number of failure categories."""
        return int(self.cat_rate.shape[1])


def _diurnal_tables(inputs: KernelInputs) -> tuple[np.ndarray, float, np.ndarray]:
    """Return the diurnal path's derived tables: ``kepler_table``, ``kepler_e``, ``kepler_grid``.

    The table, and its amplitude, where no shape is given per draw and either every category has the
    same amplitude ``e > 0`` and the same peak hour, or some category has an amplitude and the rates
    are point rates (one draw: the summed intensity's amplitude, the same for every trial); else no
    rows and NaN. The reference tables where some category has a diurnal amplitude and the amplitude
    can differ between draws (a shape given per draw, or shapes that differ with more than one rate
    draw); else no rows.
    """
    from relmc.sim._kernels import (
        _KEP_COLS,
        _KEP_N,
        _kepler_table,
        _same_shape,
        _summed_amplitude,
    )

    amp = np.asarray(inputs.cat_amp, dtype=np.float64)
    phase = np.asarray(inputs.cat_phase, dtype=np.float64)
    per_shape = inputs.draw_amp.shape[0] > 0 or inputs.draw_phase.shape[0] > 0
    one_shape = amp.size > 0 and _same_shape(amp, phase)  # the kernel's test of one shape
    table, e = np.zeros((0, _KEP_COLS)), float("nan")
    if one_shape and amp[0] > 0.0 and not per_shape:
        e = float(amp[0])
    elif (amp > 0.0).any() and not per_shape and inputs.cat_rate.shape[0] == 1:
        # shapes that differ, point rates: the summed intensity's amplitude (one cosine)
        e = float(_summed_amplitude(inputs.cat_rate, amp, phase, float(inputs.start_hour)))
    if e == e:  # (not NaN)
        table = np.empty((_KEP_N + 1, _KEP_COLS))
        _kepler_table(e, table)
    modulated = bool((amp > 0.0).any()) or bool((inputs.draw_amp > 0.0).any())
    per_draw = per_shape or (inputs.cat_rate.shape[0] > 1 and not one_shape)
    grid = _reference_grid() if modulated and per_draw else np.zeros((0, _KEP_N + 1, _KEP_COLS))
    return table, e, grid


@functools.cache
def _reference_grid() -> np.ndarray:
    """Return the diurnal path's tables at the amplitudes ``k / _KEP_GRID``: one a process."""
    from relmc.sim._kernels import _KEP_COLS, _KEP_GRID, _KEP_N, _kepler_grid

    grid = np.empty((_KEP_GRID + 1, _KEP_N + 1, _KEP_COLS))
    _kepler_grid(grid)
    return grid


#: Per-trial outputs: (name in results, kernel parameter, dtype, trailing dim or None).
#: The trailing dim ``"category"`` has ``n_categories`` columns, ``"cause"`` has
#: ``len(relmc.sim.CAUSES)``.
OUTPUTS: tuple[tuple[str, str, type, str | None], ...] = (
    ("wall_hours", "wall", np.float64, None),
    ("finished", "finished", np.bool_, None),
    ("progress_hours", "progress", np.float64, None),
    ("interruptions", "interruptions", np.int32, "category"),
    ("maintenance_events", "maint_events", np.int32, None),
    ("events", "n_events", np.int32, None),
    ("lost_hours", "lost", np.float64, "cause"),
    ("power_swings", "swings", np.int32, None),
    # the node model's counts (zero when it is off) and the pool's time-averaged size
    ("nodes_excluded_bad", "nodes_excluded_bad", np.int32, None),
    ("nodes_excluded_good", "nodes_excluded_good", np.int32, None),
    ("repairs_auto", "repairs_auto", np.int32, None),
    ("repairs_manual", "repairs_manual", np.int32, None),
    ("nodes_retired", "nodes_retired", np.int32, None),
    ("wrong_blames", "wrong_blames", np.int32, None),
    ("standby_swaps", "standby_swaps", np.int32, None),
    ("restarts_memory", "restarts_memory", np.int32, None),
    ("restarts_storage", "restarts_storage", np.int32, None),
    ("pool_occupancy", "pool_occupancy", np.float64, None),
    # stragglers and SDC (zero when every category is a failure category)
    ("sdc_rollbacks", "sdc_rollbacks", np.int32, None),
    ("sdc_from_scratch", "sdc_from_scratch", np.int32, None),
    ("sdc_undetected", "sdc_undetected", np.int32, None),
    ("sdc_rework_hours", "sdc_rework", np.float64, None),
)

#: The kernel's parameters, in order: the Generator, the inputs, then the outputs.
KERNEL_PARAMETERS: tuple[str, ...] = (
    "rng",
    *(f.name for f in fields(KernelInputs)),
    *(kernel for _, kernel, _, _ in OUTPUTS),
)


def allocate_outputs(n_trials: int, n_categories: int) -> dict[str, np.ndarray]:
    """Empty output arrays for ``n_trials`` trials, keyed by their names in results."""
    from relmc.sim import CAUSES

    width = {None: (), "category": (n_categories,), "cause": (len(CAUSES),)}
    return {name: np.empty((n_trials, *width[dim]), dtype=dtype) for name, _, dtype, dim in OUTPUTS}


def kernel_args(inputs: KernelInputs, out: dict[str, np.ndarray], block: slice) -> tuple:
    """Positional arguments of the kernel after the Generator, for the trials in ``block``.

    Per-trial inputs (``draw_of_trial``) and every output are sliced to ``block``; the output
    slices are views, so the kernel fills ``out`` in place. For many blocks of one run,
    :func:`block_args` reads the inputs once.
    """
    return block_args(inputs, out)(block)


def block_args(inputs: KernelInputs, out: dict[str, np.ndarray]) -> Callable[[slice], tuple]:
    """:func:`kernel_args` of ``inputs`` and ``out`` as a function of the block alone.

    The inputs' fields and the output arrays are looked up here, once; a block's arguments
    are then the same objects with ``draw_of_trial`` and the outputs sliced (4.5-4.9 us a
    block against 19-21 us looked up afresh: benchmarks/bench_block_overhead.py, 256-trial
    blocks, the inputs' 56 fields and 21 outputs).
    """
    names = [f.name for f in fields(KernelInputs)]
    values = [getattr(inputs, name) for name in names]
    k = names.index("draw_of_trial")
    before, draws, after = tuple(values[:k]), values[k], tuple(values[k + 1 :])
    outs = tuple(out[name] for name, _, _, _ in OUTPUTS)

    def args(block: slice) -> tuple:
        return (*before, draws[block], *after, *(o[block] for o in outs))

    return args
