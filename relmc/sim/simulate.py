"""Public simulation API: ``simulate`` lowers a scenario to arrays, runs the kernel, labels it."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import xarray as xr

from relmc.scenario import Scenario
from relmc.sim import CAUSES
from relmc.sim._kernels import simulate_block
from relmc.sim.inputs import KernelInputs

__all__ = ["simulate", "summarize", "lower", "rate_draws", "resolve_seed", "BLOCK_SIZE"]

BLOCK_SIZE = 256
"""Trials per block. Each block has its own child ``SeedSequence``; part of the result's
identity, so it is a constant (recorded in ``attrs``), not a tuning knob."""

MAX_TRIALS = 100_000_000
MAX_SEGMENTS = 1e12  # segment counts and indices stay exact in float64 and int64 far below this


def resolve_seed(seed) -> np.random.SeedSequence:
    """Return the root ``SeedSequence`` for ``seed``.

    ``int`` or ``SeedSequence``: used as is. ``Generator``: 128 bits are drawn from it (so the
    caller's generator advances). ``None``: fresh OS entropy (recorded in the result's attrs).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(
            int(seed.integers(0, 2**63)) << 64 | int(seed.integers(0, 2**63))
        )
    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        if seed is not None and seed < 0:
            raise ValueError(
                f"seed must be an integer >= 0, a SeedSequence, a Generator or None; got {seed!r}"
            )
        return np.random.SeedSequence(None if seed is None else int(seed))
    raise ValueError(
        f"seed must be an integer >= 0, a SeedSequence, a Generator or None; got {seed!r}"
    )


def _block_seed(root: np.random.SeedSequence, b: int) -> np.random.SeedSequence:
    # built from (entropy, spawn_key) rather than root.spawn(), which mutates the root
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, b))


def rate_draws(scenario: Scenario, rates) -> tuple[np.ndarray, str]:
    """Per-unit-hour rates, shape (n_draws, n_categories) in scenario order, and a label."""
    fm = scenario.failures
    names = list(fm.names)
    if rates is None:
        return np.array([[c.rate for c in fm.categories]]), "scenario point rates"
    posterior = getattr(rates, "posterior", None)  # InferenceData (itself a Mapping)
    if isinstance(rates, Mapping) and posterior is None:
        fm = fm.with_rates({k: _finite_rate(k, v) for k, v in rates.items()})
        return np.array([[c.rate for c in fm.categories]]), "rates mapping"
    da = posterior["rate"] if posterior is not None else rates
    if not isinstance(da, xr.DataArray) or "category" not in da.dims:
        raise ValueError(
            "rates must be None, a mapping category -> rate, an InferenceData with "
            f"posterior['rate'], or a DataArray with a 'category' dim; got {type(rates).__name__}"
        )
    got = [str(c) for c in da["category"].values]
    if sorted(got) != sorted(names):
        raise ValueError(
            f"rates: categories {got} do not match the scenario's {names}; build the scenario "
            "with FailureModel.from_posterior(idata)"
        )
    if "unit" in da.coords:
        for c, u in zip(got, da["unit"].values, strict=True):
            if str(u) != fm.category(c).unit:
                raise ValueError(
                    f"rates: category {c!r} was fitted per {u}-hour but the scenario scales it "
                    f"per {fm.category(c).unit}; refit with matching units"
                )
    other = [d for d in da.dims if d != "category"]
    values = da.transpose(*other, "category").sel(category=names).values.reshape(-1, len(names))
    if values.shape[0] == 0:
        raise ValueError("rates: the posterior has no draws")
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        c = names[int(np.argwhere(bad)[0][1])]
        raise ValueError(f"rates[{c!r}] must be finite and >= 0; found {values[bad][0]!r}")
    return values.astype(float), f"posterior ({values.shape[0]} draws, cycled over trials)"


def _finite_rate(name, value) -> float:
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"rates[{name!r}] must be a finite number >= 0; got {value!r}")
    return v


def lower(scenario: Scenario, rates=None, n_trials: int = 1) -> tuple[KernelInputs, dict]:
    """Lower a scenario (and optional rate draws) to :class:`KernelInputs` plus labels.

    Trial ``i`` uses rate draw ``i % n_draws``: with as many trials as draws, every posterior
    draw is used once; with more, the draws are cycled in order.
    """
    unit_rates, source = rate_draws(scenario, rates)
    cl, fm, pol = scenario.cluster, scenario.failures, scenario.policy
    scale = np.array([cl.units(c.unit) for c in fm.categories])
    with np.errstate(over="ignore"):
        cat_rate = unit_rates * scale
        total = cat_rate.sum(axis=1) + fm.maintenance_rate
    if not np.all(np.isfinite(total)):
        c = (
            fm.names[int(np.argwhere(~np.isfinite(cat_rate))[0][1])]
            if not np.all(np.isfinite(cat_rate))
            else "(total)"
        )
        raise ValueError(
            f"rates: the cluster-level rate of {c!r} overflows at n_gpus={cl.n_gpus}; "
            "rates times units must stay finite"
        )
    mean_rate = float(cat_rate.mean(axis=0).sum())
    mtbf = math.inf if mean_rate == 0 else 1.0 / mean_rate
    tau = pol.interval(mtbf)
    if pol.persist_hours > tau:
        raise ValueError(
            f"policy.persist_hours must be in [0, checkpoint_interval={tau:g}]; "
            f"got {pol.persist_hours!r}"
        )
    w = scenario.job.compute_hours
    cap = pol.wall_cap_factor * w
    if not math.isfinite(cap):
        raise ValueError(f"policy.wall_cap_factor * job.compute_hours must be finite; got {cap!r}")
    if cap / tau > MAX_SEGMENTS:
        raise ValueError(
            f"policy.checkpoint_interval must be >= wall cap / {MAX_SEGMENTS:.0e} = "
            f"{cap / MAX_SEGMENTS:.3g} h (at most {MAX_SEGMENTS:.0e} segments per trial); "
            f"got {tau!r}"
        )
    inputs = KernelInputs(
        cat_rate=np.ascontiguousarray(cat_rate, dtype=np.float64),
        draw_of_trial=np.arange(n_trials, dtype=np.int64) % cat_rate.shape[0],
        detect_hours=np.array([c.detection_hours for c in fm.categories], dtype=np.float64),
        swap=np.array([c.recovery == "swap" for c in fm.categories], dtype=np.bool_),
        maint_rate=float(fm.maintenance_rate),
        maint_hours=float(fm.maintenance_hours),
        work_hours=float(w),
        tau=float(tau),
        delta=float(pol.snapshot_hours),
        persist=float(pol.persist_hours),
        restart_hours=float(pol.restart_hours),
        swap_hours=float(pol.swap_hours),
        n_spares=-1 if pol.n_spares is None else int(pol.n_spares),
        repair_hours=float(pol.repair_hours),
        cap_hours=float(cap),
        max_events=int(pol.max_events),
    )
    labels = {"rates_source": source, "mttf_hours": mtbf, "n_draws": cat_rate.shape[0]}
    return inputs, labels


def run_kernel(
    inputs: KernelInputs,
    root: np.random.SeedSequence,
    *,
    n_threads: int = 1,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Run the kernel over fixed blocks of trials; each block gets its own child seed."""
    n, n_cat = inputs.n_trials, inputs.n_categories
    out = {
        "wall_hours": np.empty(n),
        "finished": np.empty(n, dtype=np.bool_),
        "progress_hours": np.empty(n),
        "interruptions": np.empty((n, n_cat), dtype=np.int32),
        "maintenance_events": np.empty(n, dtype=np.int32),
        "events": np.empty(n, dtype=np.int32),
        "lost_hours": np.empty((n, len(CAUSES))),
    }
    order = (
        "wall_hours",
        "finished",
        "progress_hours",
        "interruptions",
        "maintenance_events",
        "events",
        "lost_hours",
    )

    def block(b: int) -> None:
        s = slice(b * BLOCK_SIZE, min(n, (b + 1) * BLOCK_SIZE))
        rng = np.random.Generator(np.random.PCG64(_block_seed(root, b)))
        simulate_block(
            rng,
            inputs.cat_rate,
            inputs.draw_of_trial[s],
            inputs.detect_hours,
            inputs.swap,
            inputs.maint_rate,
            inputs.maint_hours,
            inputs.work_hours,
            inputs.tau,
            inputs.delta,
            inputs.persist,
            inputs.restart_hours,
            inputs.swap_hours,
            inputs.n_spares,
            inputs.repair_hours,
            inputs.cap_hours,
            inputs.max_events,
            *(out[k][s] for k in order),
        )

    n_blocks = -(-n // BLOCK_SIZE)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_blocks, desc="simulate", unit="block", leave=False)
    if n_threads == 1 or n_blocks == 1:
        for b in range(n_blocks):
            block(b)
            if bar is not None:
                bar.update()
    else:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            for _ in pool.map(block, range(n_blocks)):
                if bar is not None:
                    bar.update()
    if bar is not None:
        bar.close()
    return out


def simulate(
    scenario: Scenario | None = None,
    *,
    rates=None,
    n_trials: int = 1000,
    seed=None,
    n_threads: int | None = None,
    progress: bool | None = None,
) -> xr.Dataset:
    """Simulate ``n_trials`` runs of the scenario's training job.

    Parameters
    ----------
    scenario : Scenario, optional
        The projection to run; :meth:`Scenario.default` (Llama 3 point rates, 16,384 GPUs)
        when omitted.
    rates : InferenceData, DataArray, mapping or None
        Failure rates per unit-hour. An ``InferenceData`` (or DataArray with a ``category``
        dim) gives one posterior draw per trial, cycling through the draws in order, so
        parameter uncertainty flows into the result; a mapping replaces named categories' rates;
        ``None`` uses the scenario's own rates.
    n_trials : int
        Number of simulated jobs, 1 to 1e8.
    seed : int, SeedSequence, Generator or None
        Root of randomness. Trials are split into blocks of :data:`BLOCK_SIZE`, block ``b``
        seeded by the child ``(entropy, spawn_key + (b,))``, so the result depends only on the
        inputs and the seed, whatever ``n_threads``.
    n_threads : int, optional
        Threads running blocks (kernels release the GIL); default: all cores.
    progress : bool, optional
        Show a progress bar; default: only when stderr is a terminal and the run is large.

    Returns
    -------
    xarray.Dataset
        Per trial (dim ``trial``): ``wall_hours``, ``ettr``, ``finished``, ``progress_hours``,
        ``events``, ``maintenance_events``; ``interruptions`` (trial, category);
        ``lost_hours`` (trial, cause). Coordinates ``draw`` (rate draw per trial), ``unit``
        (category), ``n_gpus``. The scenario (JSON), seed and units are in ``attrs``.
    """
    scenario = Scenario.default() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise ValueError(f"scenario must be a relmc.Scenario; got {type(scenario).__name__}")
    if (
        isinstance(n_trials, bool)
        or not isinstance(n_trials, int | np.integer)
        or not (1 <= n_trials <= MAX_TRIALS)
    ):
        raise ValueError(f"n_trials must be an integer in [1, {MAX_TRIALS:.0e}]; got {n_trials!r}")
    if n_threads is None:
        n_threads = os.cpu_count() or 1
    if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
        raise ValueError(f"n_threads must be an integer >= 1; got {n_threads!r}")
    root = resolve_seed(seed)
    inputs, labels = lower(scenario, rates, int(n_trials))
    if progress is None:
        progress = sys.stderr.isatty() and n_trials >= 100 * BLOCK_SIZE
    out = run_kernel(inputs, root, n_threads=n_threads, progress=progress)
    return _label(scenario, inputs, labels, root, out)


def _label(scenario, inputs, labels, root, out) -> xr.Dataset:
    fm = scenario.failures
    trial = np.arange(inputs.n_trials)
    wall = out["wall_hours"]
    with np.errstate(invalid="ignore", divide="ignore"):
        ettr = np.where(wall > 0, out["progress_hours"] / wall, 0.0)
    hours = {"units": "h"}
    ds = xr.Dataset(
        {
            "wall_hours": ("trial", wall, {**hours, "long_name": "wall-clock time"}),
            "ettr": ("trial", ettr, {"units": "1", "long_name": "effective training time ratio"}),
            "finished": ("trial", out["finished"], {"long_name": "job finished before the cap"}),
            "progress_hours": (
                "trial",
                out["progress_hours"],
                {**hours, "long_name": "durable compute at the end"},
            ),
            "interruptions": (
                ("trial", "category"),
                out["interruptions"],
                {"long_name": "unexpected interruptions", "units": "1"},
            ),
            "maintenance_events": (
                "trial",
                out["maintenance_events"],
                {"long_name": "planned interruptions", "units": "1"},
            ),
            "events": ("trial", out["events"], {"long_name": "events simulated", "units": "1"}),
            "lost_hours": (
                ("trial", "cause"),
                out["lost_hours"],
                {**hours, "long_name": "wall-clock hours lost, by cause"},
            ),
        },
        coords={
            "trial": trial,
            "category": list(fm.names),
            "cause": list(CAUSES),
            "draw": ("trial", inputs.draw_of_trial),
            "unit": ("category", [c.unit for c in fm.categories]),
            "n_gpus": scenario.cluster.n_gpus,
        },
    )
    ds.attrs.update(
        {
            "scenario": json.dumps(scenario.to_dict()),
            "seed_entropy": str(root.entropy),
            "seed_spawn_key": json.dumps(list(root.spawn_key)),
            "block_size": BLOCK_SIZE,
            "checkpoint_interval_hours": inputs.tau,
            "cap_hours": inputs.cap_hours,
            "mttf_hours": labels["mttf_hours"],
            "rates_source": labels["rates_source"],
            "time_units": "hours",
            "relmc_version": _version(),
        }
    )
    return ds


def _version() -> str:
    from relmc import __version__

    return __version__


def summarize(ds: xr.Dataset, *, quantiles=(0.05, 0.25, 0.5, 0.75, 0.95)) -> xr.Dataset:
    """Summarise a :func:`simulate` result over trials.

    For every numeric per-trial variable ``v``: ``v_mean``, ``v_se`` (Monte Carlo standard
    error of the mean, ``std / sqrt(n)``) and ``v_quantile`` (dim ``quantile``). Also
    ``finished_fraction`` with its standard error, and ``n_trials``.
    """
    if "trial" not in ds.dims:
        raise ValueError("summarize needs a simulate() result with a 'trial' dim")
    q = np.asarray(quantiles, dtype=float)
    if q.ndim != 1 or np.any((q < 0) | (q > 1)):
        raise ValueError(f"quantiles must be numbers in [0, 1]; got {quantiles!r}")
    n = ds.sizes["trial"]
    out = {}
    for name, da in ds.data_vars.items():
        if "trial" not in da.dims:
            continue
        x = da.astype(float)
        if name == "finished":
            f = x.mean("trial")
            out["finished_fraction"] = f
            out["finished_fraction_se"] = np.sqrt(f * (1 - f) / n)
            continue
        out[f"{name}_mean"] = x.mean("trial").assign_attrs(da.attrs)
        sd = x.std("trial", ddof=1) if n > 1 else xr.zeros_like(x.isel(trial=0))
        out[f"{name}_se"] = (sd / np.sqrt(n)).assign_attrs(da.attrs)
        out[f"{name}_quantile"] = x.quantile(q, dim="trial").assign_attrs(da.attrs)
    res = xr.Dataset(out)
    drop = [c for c in ("draw",) if c in res.coords]
    res = res.drop_vars(drop)
    res["n_trials"] = n
    res.attrs.update(ds.attrs)
    return res
