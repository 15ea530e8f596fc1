"""Cells of a sweep: posterior source, seeds, shards, and simulating and summarising one cell.

Cell ``i`` (flat C-order index over the axes) is :func:`relmc.simulate` of the cell's scenario
with seed :func:`cell_seed` ``(spec.seed, i)``, summarised by :func:`summarize_cell`. Nothing
here keeps state between calls: the resolved posterior is an argument of every function that
needs it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from relmc._seed import SeedLike, child_seed, resolve_seed
from relmc.errors import FieldError
from relmc.sweep.spec import SweepSpec, _check_int, _posterior_kind

__all__ = ["resolve_rates", "cell_seed", "shard_cells", "simulate_cell", "summarize_cell"]

_HOURS_PER_DAY = 24.0


def resolve_rates(spec: SweepSpec):
    """Turn the spec's posterior source into the ``rates`` argument of :func:`relmc.simulate`.

    The one place that knows the sources: ``"point"`` → ``None`` (the scenario's own rates);
    ``"conjugate:DATASET"`` → ``fit_conjugate(load_dataset(DATASET))`` with
    ``n_draws`` draws from the root ``resolve_seed(seed)`` (cell seeds are its children
    ``child_seed(root, i)``, so the streams never overlap); anything else → a netCDF
    ``InferenceData`` path. Not cached: :func:`relmc.sweep.run_sweep` resolves it once per
    run and hands it to every cell explicitly.

    Returns
    -------
    None or xarray.DataArray
        Rate draws per unit-hour with a ``category`` dim.
    """
    kind, arg = _posterior_kind(spec.posterior)
    if kind == "point":
        rates = None
    elif kind == "conjugate":
        from relmc.datasets import list_datasets, load_dataset
        from relmc.models import fit_conjugate

        if arg not in list_datasets():
            raise ValueError(
                f"posterior: unknown dataset {arg!r} in {spec.posterior!r}; "
                f"known: {list_datasets()}"
            )
        rng = np.random.default_rng(resolve_seed(spec.seed))
        idata = fit_conjugate(load_dataset(arg), draws=spec.n_draws, rng=rng)
        rates = idata.posterior["rate"].load()
    else:
        path = spec.posterior_path()
        if not path.is_file():
            raise ValueError(
                f"posterior must be 'point', 'conjugate:DATASET' or an existing netCDF file; "
                f"{str(path)!r} does not exist"
            )
        import arviz as az

        try:
            idata = az.from_netcdf(str(path))
            rates = idata.posterior["rate"].load()
        except Exception as e:  # arviz raises several types for a wrong file
            raise ValueError(
                f"posterior: {str(path)!r} is not an InferenceData with posterior['rate']: {e}"
            ) from e
    return rates


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


def summarize_cell(res: xr.Dataset, quantiles: Sequence[float]) -> xr.Dataset:
    """Summarise one cell's :func:`relmc.simulate` result into the cube's per-cell variables.

    :func:`relmc.summarize` (means, Monte Carlo SEs, quantiles) plus interruptions and planned
    maintenance per day of wall-clock time (mean and SE over trials), without scalar coords or
    attrs (the cube has its own).
    """
    from relmc.sim.simulate import summarize

    out = summarize(res, quantiles=tuple(quantiles))
    # interruptions per day of wall-clock time, per trial, then averaged over trials; the
    # standard error treats trials as independent (exact with one posterior draw per trial)
    days = res["wall_hours"] / _HOURS_PER_DAY
    per_day = res["interruptions"] / days
    n = res.sizes["trial"]
    for name, x in (
        ("interruptions_per_day", per_day),
        ("interruptions_per_day_total", per_day.sum("category")),
        ("maintenance_per_day", res["maintenance_events"] / days),
    ):
        attrs = {"units": "1/day", "long_name": f"{name.replace('_', ' ')} of wall-clock time"}
        out[f"{name}_mean"] = x.mean("trial").assign_attrs(attrs)
        out[f"{name}_se"] = (x.std("trial", ddof=1) / np.sqrt(n)).assign_attrs(attrs)
    out = out.drop_vars([v for v in ("n_trials",) if v in out])
    # scalar coords such as n_gpus would clash with the axes; the cube has its own
    out = out.drop_vars([c for c in out.coords if out[c].ndim == 0])
    out.attrs = {}
    return out


def simulate_cell(
    spec: SweepSpec, flat: int, rates, n_threads: int, n_trials: int | None = None
) -> xr.Dataset:
    """Simulate cell ``flat`` with its own seed and return its summary (and trials if kept).

    ``rates`` is the resolved posterior (:func:`resolve_rates`); ``n_trials`` overrides the
    spec's (only for :func:`cell_template`).
    """
    from relmc.sim.simulate import simulate

    res = simulate(
        spec.scenario(flat),
        rates=rates,
        n_trials=spec.n_trials if n_trials is None else n_trials,
        seed=cell_seed(spec.seed, flat),
        n_threads=n_threads,
        progress=False,
    )
    out = summarize_cell(res, spec.quantiles)
    if spec.keep_trials:
        per_trial = [name for name, da in res.data_vars.items() if "trial" in da.dims]
        trials = res[per_trial].reset_coords([c for c in ("draw",) if c in res.coords])
        trials = trials.drop_vars([c for c in trials.coords if trials[c].ndim == 0])
        out = out.merge(trials, combine_attrs="drop")
    return out


def cell_template(spec: SweepSpec, rates) -> xr.Dataset:
    """Return one cell's variables, from a 2-trial run of cell 0 (shapes and dtypes only).

    Also lowers every cell, which runs simulate's own checks (rate categories vs scenario,
    persist time vs the interval a rule picks), so they fail before anything is written.
    """
    from relmc.sim.simulate import lower

    for flat in range(spec.n_cells):
        try:
            lower(spec.scenario(flat), rates, 1)
        except ValueError as e:
            raise ValueError(f"cell {spec.cell_values(flat)}: {e}") from e
    return simulate_cell(spec, 0, rates, 1, n_trials=2)
