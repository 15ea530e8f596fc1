"""Array-only kernel inputs and outputs, and the one function that packs them for the kernel.

The numba kernel takes positional arguments; :func:`kernel_args` is the only place that lays
them out, in the order of :data:`KERNEL_PARAMETERS` (a test checks that this order is the
kernel's signature).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

__all__ = [
    "KernelInputs",
    "OUTPUTS",
    "KERNEL_PARAMETERS",
    "allocate_outputs",
    "kernel_args",
    "UNLIMITED_SPARES",
]

#: ``n_spares`` value that means an unlimited spare pool.
UNLIMITED_SPARES = -1


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

    def __post_init__(self) -> None:
        n_cat = int(np.shape(self.cat_rate)[1])
        for name in ("cat_amp", "cat_phase"):
            if np.size(getattr(self, name)) == 0:  # not given: no modulation
                object.__setattr__(self, name, np.zeros(n_cat))

    @property
    def modulated(self) -> bool:
        """Whether any failure rate varies in time (diurnal amplitude or trend)."""
        return bool(np.any(np.asarray(self.cat_amp) > 0.0) or self.trend_shape != 1.0)

    @property
    def n_trials(self) -> int:
        """Number of trials."""
        return int(self.draw_of_trial.shape[0])

    @property
    def n_categories(self) -> int:
        """Number of failure categories."""
        return int(self.cat_rate.shape[1])


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
    slices are views, so the kernel fills ``out`` in place.
    """
    args = []
    for f in fields(KernelInputs):
        value = getattr(inputs, f.name)
        args.append(value[block] if f.name == "draw_of_trial" else value)
    args.extend(out[name][block] for name, _, _, _ in OUTPUTS)
    return tuple(args)
