"""Public simulation API: ``simulate`` lowers a scenario to arrays, runs the kernel, labels it."""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import xarray as xr

from relmc._seed import child_seed, resolve_seed, seed_attrs
from relmc.errors import FieldError
from relmc.rates import cluster_rates, draw_of_trial, rate_draws
from relmc.scenario import Scenario
from relmc.sim import CAUSES
from relmc.sim._kernels import simulate_block
from relmc.sim.inputs import UNLIMITED_SPARES, KernelInputs, allocate_outputs, kernel_args

__all__ = [
    "simulate",
    "kernel_inputs",
    "run_kernel",
    "check_n_trials",
    "check_n_threads",
    "BLOCK_SIZE",
    "MAX_TRIALS",
]

BLOCK_SIZE = 256
"""Trials per block. Each block has its own child ``SeedSequence``; part of the result's
identity, so it is a constant (recorded in ``attrs``), not a tuning knob."""

MAX_TRIALS = 100_000_000
MAX_SEGMENTS = 1e12  # segment counts and indices stay exact in float64 and int64 far below this


def check_n_trials(n_trials: Any, field: str = "n_trials") -> int:
    """Return ``n_trials`` as an int, or raise naming ``field`` unless it is in [1, 1e8]."""
    if (
        isinstance(n_trials, bool | np.bool_)
        or not isinstance(n_trials, numbers.Integral)
        or not (1 <= int(n_trials) <= MAX_TRIALS)
    ):
        raise FieldError(
            field, f"{field} must be an integer in [1, {MAX_TRIALS:.0e}]; got {n_trials!r}"
        )
    return int(n_trials)


def check_n_threads(n_threads: Any) -> int:
    """Return ``n_threads`` as an int (``None``: all cores), or raise unless it is >= 1."""
    if n_threads is None:
        return os.cpu_count() or 1
    if (
        isinstance(n_threads, bool | np.bool_)
        or not isinstance(n_threads, numbers.Integral)
        or n_threads < 1
    ):
        raise FieldError("n_threads", f"n_threads must be an integer >= 1; got {n_threads!r}")
    return int(n_threads)


def kernel_inputs(scenario: Scenario, rates=None, n_trials: int = 1) -> tuple[KernelInputs, dict]:
    """Turn a scenario (and a rate source) into :class:`KernelInputs` plus labels.

    Rate draws come from :func:`relmc.rates.rate_draws` (draw-major over chains); trial ``i``
    uses draw ``i mod n_draws``.
    """
    draws = rate_draws(scenario, rates)
    fm, pol = scenario.failures, scenario.policy
    cat_rate = cluster_rates(scenario, draws)
    mean_rate = float(cat_rate.mean(axis=0).sum())
    mttf = math.inf if mean_rate == 0 else 1.0 / mean_rate
    tau = pol.interval(mttf)
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
        draw_of_trial=draw_of_trial(n_trials, draws.n_draws),
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
        n_spares=UNLIMITED_SPARES if pol.n_spares is None else int(pol.n_spares),
        repair_hours=float(pol.repair_hours),
        cap_hours=float(cap),
        max_events=int(pol.max_events),
    )
    labels = {"rates_source": draws.source, "mttf_hours": mttf, "n_draws": draws.n_draws}
    return inputs, labels


def run_kernel(
    inputs: KernelInputs,
    root: np.random.SeedSequence,
    *,
    n_threads: int = 1,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Run the kernel over fixed blocks of trials; each block gets its own child seed."""
    n = inputs.n_trials
    out = allocate_outputs(n, inputs.n_categories)

    def block(b: int) -> None:
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        simulate_block(rng, *kernel_args(inputs, out, slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)))

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
        dim) gives one posterior draw per trial, draw-major over chains and cycled (see
        :mod:`relmc.rates`), so
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
    n_trials = check_n_trials(n_trials)
    n_threads = check_n_threads(n_threads)
    root = resolve_seed(seed)
    inputs, labels = kernel_inputs(scenario, rates, n_trials)
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
            **seed_attrs(root),
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
