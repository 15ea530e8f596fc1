"""Errors relmc raises for bad input.

Every check of user input raises a :class:`ValueError` naming the field and its allowed range.
Where the field has a dotted name (``policy.restart_hours``, ``cluster.n_gpus``, ``n_trials``),
the error is a :class:`FieldError` that carries it, so a caller (the ``relmc`` command) can tell
which of its own options set the field without reading the message text.
"""

from __future__ import annotations

import math

__all__ = ["ClusterShapeWarning", "FieldError", "NotFinishedWarning", "UnreadFieldWarning"]


def bound_text(x: float) -> str:
    """Write a range's bound as the docs do.

    ``1e8`` for a power of ten from a million up, other whole numbers below 2**53 in digits
    (``2147483647``), else ``%g`` without the exponent's padding (``0.5``, ``1.5e20``), and
    ``inf`` for infinity.
    """
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if float(x).is_integer() and abs(x) < 2**53:
        sign, text = ("-" if x < 0 else ""), str(abs(int(x)))
        if len(text) > 6 and text.strip("0") == "1":
            return f"{sign}1e{len(text) - 1}"
        return sign + text
    return f"{x:g}".replace("e+0", "e").replace("e+", "e")


class FieldError(ValueError):
    """A ``ValueError`` about one named input field.

    Parameters
    ----------
    field : str
        Dotted name of the field as the API spells it (``"policy.restart_hours"``).
    message : str
        The whole message, which names the field and the allowed range.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field

    def __reduce__(self):  # picklable across processes (Dask, multiprocessing)
        return (type(self), (self.field, str(self)))


class NotFinishedWarning(RuntimeWarning):
    """Some simulated trials hit the wall-clock cap or the event budget before the job finished.

    Their ETTR is measured where they stopped (0 when no checkpoint was ever durable), so
    summaries over them are bounds, not estimates of a finished job.
    """


class UnreadFieldWarning(UserWarning):
    """A category sets fields that its ``kind`` does not read (they change nothing).

    E.g. ``straggler_speed`` on a category whose kind is ``"failure"``: a forgotten ``kind``
    silently simulates another model (:meth:`relmc.Category.unread_fields`). Sweeps and
    comparisons warn only of fields unread in every one of their scenarios, so a sweep axis
    over ``kind`` does not warn.

    Also a scenario field that a posterior's per-draw diurnal, trend or lemon parameters
    replace in a simulation with that posterior (``failures.trend_shape``, the fleet age at
    which its rates hold, a category's ``diurnal_amplitude``, ...), set to a value other than
    its default or the posterior's point value (:func:`relmc.rates.replaced_physics_notes`).
    A simulation warns of these; a projection, a sweep or a comparison once for all its
    sizes, cells or scenarios, so an axis over such a field (which then changes nothing)
    warns once per value.

    Also a field set for a feature that is off (:meth:`relmc.Scenario.dead_fields`, e.g.
    ``memory_replicas`` without ``memory_restart_hours``; sweeps and comparisons only where
    the feature is off in every scenario) and a ``wrong_blame`` whose domain takes several
    nodes (no node is blamed there).

    Also a posterior variable of physics that no simulation takes
    (:data:`relmc.rates.NOT_SIMULATED_VARIABLES`: the ``frailty_variance`` of
    ``fit_events(nodes="frailty")``), once per simulation, projection, sweep or comparison.

    Also a spread or jitter (``policy.swap_spread``, ...) set on an overhead that is 0 or
    whose event never occurs (:meth:`relmc.Scenario.inert_overheads`; the default swap time
    is 0): it multiplies 0. Sweeps and comparisons warn only where the overhead is 0 in
    every one of their scenarios.
    """


class ClusterShapeWarning(UserWarning):
    """A fit's rates meet a cluster packed otherwise than the one they were observed on.

    A rate per node, rack, switch, link or pod is multiplied by that unit's count at N GPUs,
    which depends on the cluster's shape (GPUs per node, nodes per rack, GPUs per pod, links
    per GPU). A fit records the shape of the cluster its data came from; a scenario of another
    shape projects onto a cluster of that other shape, a legitimate what-if but more often a
    forgotten ``--nodes-per-rack`` (:func:`relmc.rates.rate_draws`). Projections built from a
    fit's defaults take its shape.
    """
