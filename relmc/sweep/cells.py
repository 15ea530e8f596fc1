"""Cells of a sweep: posterior source, seeds, shards, and simulating and summarising one cell.

Cell ``i`` (flat C-order index over the axes) is :func:`relmc.simulate` of the cell's scenario
with seed :func:`cell_seed` ``(spec.seed, i)`` and ``overhead_seed`` the spec's root seed (so
each posterior draw's overhead multipliers, like its rates, are the same in every cell),
summarised by :func:`summarize_cell`. Nothing
here keeps state between calls: the resolved posterior is an argument of every function that
needs it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from relmc import _seed
from relmc._seed import SeedLike, child_seed, resolve_seed
from relmc.errors import FieldError
from relmc.rates import posterior_from_source
from relmc.summary import summary_variables
from relmc.sweep.spec import SweepSpec, _check_int

__all__ = [
    "POSTERIOR_KEY",
    "resolve_rates",
    "cell_seed",
    "shard_cells",
    "format_cells",
    "parse_cells",
    "check_cells",
    "simulate_cell",
    "summarize_cell",
    "STOPPED_BY",
]

#: Spawn-key entry of a conjugate posterior's seed below the sweep's root. A fit draws its
#: chains from its seed's children ``(0, k)``, which are cell 0's blocks' keys below the root
#: itself; cells use ``0 .. n_cells - 1`` (< 100,000) and the overhead multipliers
#: ``OVERHEAD_KEY`` (2**32 - 2), so the streams never meet.
POSTERIOR_KEY = _seed.POSTERIOR_KEY

#: Values of a cell's ``stopped_code``, in order (see :class:`relmc.Precision`).
STOPPED_BY: tuple[str, ...] = ("n_trials", "target", "hopeless")


def resolve_rates(spec: SweepSpec):
    """Turn the spec's posterior source into the ``rates`` argument of :func:`relmc.simulate`.

    :func:`relmc.rates.posterior_from_source` with the spec's source and ``n_draws``, a
    conjugate fit drawn from ``fit_conjugate(seed=child_seed(root, POSTERIOR_KEY))`` (its
    chains use its seed's children ``(0, k)``: drawn from the root itself, as before this
    key, chain ``k`` took cell 0's block ``k``'s stream), relative paths resolved against the
    spec's folder. Not cached: :func:`relmc.sweep.run_sweep` resolves it once per run and
    hands it to every cell explicitly.

    Returns
    -------
    None, xarray.DataArray or arviz.InferenceData
        ``None`` for ``"point"``; else rate draws per unit-hour with a ``category`` dim, or,
        for a netCDF file with physics per draw or a variable no simulation takes, an
        InferenceData of its posterior group alone, as
        :func:`relmc.rates.posterior_from_source` returns them.
    """
    return posterior_from_source(
        spec.posterior,
        seed=child_seed(resolve_seed(spec.seed), POSTERIOR_KEY),
        n_draws=spec.n_draws,
        path_root=spec.root,
    )


def cell_seed(seed: SeedLike, flat: int) -> np.random.SeedSequence:
    """Seed of cell ``flat``: ``child_seed(resolve_seed(seed), flat)``.

    For an integer ``seed`` this is ``SeedSequence(seed, spawn_key=(flat,))``.
    """
    return child_seed(resolve_seed(seed), flat)


def shard_cells(n_cells: int, shard: int = 0, shards: int = 1) -> range:
    """Cells owned by shard ``shard`` of ``shards``: ``shard, shard + shards, ...``.

    The shards are disjoint and together cover every cell exactly once.
    """
    _check_int("shards", shards, 1, None)
    if (
        isinstance(shard, bool)
        or not isinstance(shard, int | np.integer)
        or not 0 <= shard < shards
    ):
        raise FieldError("shard", f"shard must be an integer in [0, {shards - 1}]; got {shard!r}")
    return range(int(shard), n_cells, int(shards))


def check_cells(cells: Sequence[int], n_cells: int, field: str = "cells") -> list[int]:
    """Return ``cells`` as a list of distinct flat cell indices in ``[0, n_cells)``, checked.

    Raises ``FieldError`` on ``field`` naming the first bad entry.
    """
    if isinstance(cells, str | bytes) or not isinstance(cells, Sequence | np.ndarray):
        raise FieldError(field, f"{field} must be a list of cell indices; got {cells!r}")
    out: list[int] = []
    seen: set[int] = set()
    for c in cells:
        if isinstance(c, bool | np.bool_) or not isinstance(c, int | np.integer):
            raise FieldError(field, f"{field}: a cell index must be an integer; got {c!r}")
        if not 0 <= int(c) < n_cells:
            raise FieldError(
                field, f"{field}: cell {int(c)} is not in [0, {n_cells - 1}] (the grid's cells)"
            )
        if int(c) in seen:
            raise FieldError(field, f"{field}: cell {int(c)} is listed twice")
        seen.add(int(c))
        out.append(int(c))
    if not out:
        raise FieldError(field, f"{field} must list at least one cell")
    return out


def format_cells(cells: Sequence[int]) -> str:
    """``[0, 1, 2, 3, 8, 10, 11]`` as ``"0-3,8,10-11"`` (runs of consecutive cells as ranges)."""
    parts: list[str] = []
    items = [int(c) for c in cells]
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        parts.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ",".join(parts)


#: one entry of a cell list: an index or a range A-B (ASCII digits only)
_CELLS_PART = re.compile(r"([0-9]+)(?:-([0-9]+))?")


def parse_cells(text: str, n_cells: int, field: str = "cells") -> list[int]:
    """Read :func:`format_cells`' text (``"0-3,8"``; whitespace and newlines allowed), checked."""
    cells: list[int] = []
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        match = _CELLS_PART.fullmatch(part)
        if match is None:
            raise FieldError(field, f"{field}: {part!r} is not a cell index or a range A-B of them")
        a = int(match[1])
        b = int(match[2]) if match[2] is not None else a
        if b < a:
            raise FieldError(field, f"{field}: the range {part!r} runs backwards")
        if b >= n_cells:  # before building a list of a range's every cell
            raise FieldError(
                field, f"{field}: cell {b} is not in [0, {n_cells - 1}] (the grid's cells)"
            )
        cells.extend(range(a, b + 1))
    return check_cells(cells, n_cells, field)


def summarize_cell(res: xr.Dataset, quantiles: Sequence[float]) -> xr.Dataset:
    """Summarise one cell's :func:`relmc.simulate` result into the cube's per-cell variables.

    :func:`relmc.summarize` (means, Monte Carlo SEs, quantiles, per-day rates), plus
    ``stopped_code`` and ``checkpoint_interval_hours`` (the interval the cell used, a rule
    resolved), without scalar coords or attrs (the cube has its own).
    """
    variables, coords = summary_variables(res, tuple(quantiles))
    code = STOPPED_BY.index(str(res.attrs.get("stopped_by", "n_trials")))
    variables["stopped_code"] = xr.Variable(
        (),
        np.int8(code),
        {
            "long_name": "why the cell's trials stopped",
            "flag_values": np.arange(len(STOPPED_BY), dtype=np.int8),
            "flag_meanings": " ".join(STOPPED_BY),
        },
    )
    # the interval the cell used: a rule ("young", "daly") resolved at the cell's rates
    variables["checkpoint_interval_hours"] = xr.Variable(
        (),
        float(res.attrs["checkpoint_interval_hours"]),
        {"units": "h", "long_name": "compute between checkpoints, as the cell resolved it"},
    )
    # one Dataset built once (adding variables one by one costs xarray a merge each); scalar
    # coords such as n_gpus would clash with the axes, and the cube has its own attrs
    coords = {name: v for name, v in coords.items() if v.ndim}
    return xr.Dataset(variables, coords=coords)


def simulate_cell(
    spec: SweepSpec, flat: int, rates, n_threads: int, n_trials: int | None = None
) -> xr.Dataset:
    """Simulate cell ``flat`` with its own seed and return its summary (and trials if kept).

    ``rates`` is the resolved posterior (:func:`resolve_rates`); ``n_trials`` overrides the
    spec's (only for :func:`cell_template`). The trials follow :func:`cell_seed`; the
    overhead multipliers of the policy's ``*_spread`` fields follow the spec's root seed
    (``overhead_seed``), one row per posterior draw shared by every cell: an unknown
    restart time is the same unknown in every cell, as a draw's rates are (common random
    numbers across the axes, as :func:`relmc.project` shares them across sizes).
    """
    from relmc.sim.simulate import simulate, unread_warnings_from_callers

    with unread_warnings_from_callers():  # the run warns once for the grid (warn_unread_cells)
        res = simulate(
            spec.scenario(flat),
            rates=rates,
            n_trials=spec.n_trials if n_trials is None else n_trials,
            seed=cell_seed(spec.seed, flat),
            n_threads=n_threads,
            progress=False,
            precision=spec.precision,
            overhead_seed=resolve_seed(spec.seed),
        )
    out = summarize_cell(res, spec.quantiles)
    if spec.keep_trials:
        per_trial = [name for name, da in res.data_vars.items() if "trial" in da.dims]
        trials = res[per_trial].reset_coords([c for c in ("draw",) if c in res.coords])
        trials = trials.drop_vars([c for c in trials.coords if trials[c].ndim == 0])
        # "override": every variable keeps its own attrs (units, flag_meanings); the cube's
        # own attrs are set by the store, so the cell's dataset attrs stay empty
        out = out.merge(trials, combine_attrs="override")
        out.attrs = {}
    return out


def warn_unread_cells(spec: SweepSpec, labels: Sequence[Mapping[str, Any]] = ()) -> None:
    """Warn (:class:`~relmc.errors.UnreadFieldWarning`) of category fields no cell reads.

    A field unread in some cells only (an axis over a category's ``kind``) is no mistake.
    ``labels``: :func:`lower_cells`' (what each cell's posterior per-draw physics replace,
    each warned once, so an axis over one warns once per value; and what it makes read,
    not warned of as dead).
    """
    from relmc.sim.simulate import warn_unread

    cells = [spec.scenario(flat) for flat in range(spec.n_cells)]
    warn_unread(cells, labels, stacklevel=4)


#: The labels of :func:`relmc.sim.simulate.kernel_inputs` that :func:`lower_cells` keeps of
#: each cell (a cell's labels also hold its draws' rows: thousands over a grid)
_NOTE_LABELS = ("physics_notes", "posterior_reads")


def lower_cells(spec: SweepSpec, rates) -> list[dict[str, Any]]:
    """Lower every cell, which runs simulate's own checks before anything is written.

    (Rate categories vs scenario, persist time vs the interval a rule picks.) Returns, in
    cell order, the ``"physics_notes"`` (:func:`relmc.rates.replaced_physics_notes`) and
    ``"posterior_reads"`` (:func:`relmc.rates.posterior_reads`) of each cell's labels, for
    :func:`warn_unread_cells`.
    """
    from relmc.sim.simulate import kernel_inputs

    out = []
    for flat in range(spec.n_cells):
        try:
            labels = kernel_inputs(spec.scenario(flat), rates, 1)[1]
        except ValueError as e:
            raise ValueError(f"cell {spec.cell_values(flat)}: {e}") from e
        out.append({k: labels[k] for k in _NOTE_LABELS})
    return out


def cell_template(spec: SweepSpec, rates) -> xr.Dataset:
    """Return one cell's variables, from a 2-trial run of cell 0 (shapes and dtypes only).

    Callers that write a store lower every cell first (:func:`lower_cells`), so bad cells
    fail before anything is written.
    """
    return simulate_cell(spec, 0, rates, 1, n_trials=2)
