"""Lowered, array-only inputs shared by the numba kernel and the reference oracle."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["KernelInputs"]


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

    @property
    def n_trials(self) -> int:
        """Number of trials."""
        return int(self.draw_of_trial.shape[0])

    @property
    def n_categories(self) -> int:
        """Number of failure categories."""
        return int(self.cat_rate.shape[1])
