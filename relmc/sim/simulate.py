"""Public simulation API: ``simulate`` lowers a scenario to arrays, runs the kernel, labels it."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import inspect
import json
import math
import numbers
import os
import sys
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from relmc import _seed
from relmc._cf import provenance
from relmc._io import check_trial_memory
from relmc._seed import child_seed, pcg64_states, resolve_seed, seed_attrs
from relmc.errors import FieldError, UnreadFieldWarning
from relmc.rates import (
    cluster_rates,
    draw_of_trial,
    maintenance_rate,
    not_simulated_notes,
    posterior_reads,
    rate_draws,
    replaced_physics_notes,
)
from relmc.scenario import Job, Policy, Scenario, check_trend, unread_context
from relmc.sim import CAUSES
from relmc.sim._kernels import block_path, simulate_block
from relmc.sim.inputs import (
    KERNEL_PARAMETERS,
    UNLIMITED_SPARES,
    WEEK_HOURS,
    KernelInputs,
    allocate_outputs,
    block_args,
)

__all__ = [
    "simulate",
    "kernel_inputs",
    "run_kernel",
    "check_n_trials",
    "check_n_threads",
    "Precision",
    "BLOCK_SIZE",
    "MAX_TRIALS",
    "draw_overhead_factors",
    "kernel_path",
    "PATH_NAMES",
]

BLOCK_SIZE = 256
"""Trials per block. Each block has its own child ``SeedSequence``; part of the result's
identity, so it is a constant (recorded in ``attrs``), not a tuning knob."""
# a round of at least this many blocks computes their generators' states together
# (pcg64_states: ~125 us a call, then ~3.8 us a block with the state set, against ~16 us a
# block built alone: even at about 10 blocks)
_STATES_MIN = 12

MAX_TRIALS = 100_000_000
MAX_SEGMENTS = 1e12  # segment counts and indices stay exact in float64 and int64 far below this

#: Spawn-key entry of the stream of the per-draw overhead multipliers below a run's root
#: (2**32 - 2; the reserved keys' table is in ``relmc._seed``).
OVERHEAD_KEY = _seed.OVERHEAD_KEY
#: Columns of ``overhead_factor`` drawn first (snapshot .. maintenance; later ones follow).
_FIRST_OVERHEADS = 6


def draw_overhead_factors(
    inputs: KernelInputs,
    root: np.random.SeedSequence,
    rows: np.ndarray | None = None,
    n_source: int | None = None,
) -> KernelInputs:
    """Return ``inputs`` with ``overhead_factor`` drawn: one row per rate draw.

    Row ``d`` is ``exp(overhead_sigma * Z[rows[d]])``, ``Z`` the ``n_source`` standard normal
    rows of the source drawn in order from the stream ``child_seed(root, OVERHEAD_KEY)`` (the
    first six columns for every row, then the rest); ``rows`` (default
    ``0 .. n_draws - 1``) is the source draw of each row (:attr:`relmc.rates.RateDraws.rows`),
    so rows that repeat one posterior draw (a credible simulation's groups) share its
    multipliers; ``n_source`` (``relmc.rates.RateDraws.n_source``; default one past the
    largest of ``rows``) the source's rows, all drawn, so a simulation of some of a
    posterior's draws gives each the multipliers a simulation of all of them gives it (the
    later columns of a row come after the first six of every row: drawn for fewer rows,
    they would move). The inputs are returned unchanged when every ``overhead_sigma`` is 0
    or the factors are already there (see "Uncertain overheads" in :mod:`relmc.sim`).
    """
    sigma = inputs.overhead_sigma
    if not np.any(sigma > 0.0) or inputs.overhead_factor.shape[0] > 0:
        return inputs
    n = inputs.cat_rate.shape[0]
    rows = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    if rows.shape != (n,) or (n and rows.min() < 0):
        raise ValueError(f"rows must be {n} source-draw indices >= 0; got shape {rows.shape}")
    m = int(rows.max()) + 1 if n else 0
    if n_source is not None:
        if isinstance(n_source, bool) or not isinstance(n_source, numbers.Integral):
            raise ValueError(f"n_source must be an integer; got {n_source!r}")
        if n_source < m:
            raise ValueError(
                f"n_source must be at least {m} (one past the largest of rows); got {n_source}"
            )
        m = int(n_source)
    rng = np.random.Generator(np.random.PCG64(child_seed(root, OVERHEAD_KEY)))
    # the first six columns as they were drawn before the later ones existed, then the rest,
    # so a seed's multipliers for snapshot .. maintenance do not move
    first = rng.standard_normal((m, _FIRST_OVERHEADS))
    z = np.concatenate([first, rng.standard_normal((m, sigma.shape[0] - _FIRST_OVERHEADS))], 1)
    return dataclasses.replace(inputs, overhead_factor=np.exp(sigma * z[rows]))


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


#: each field of the segment count's product, with its default (the dataclasses'): the field
#: furthest above (or, for the interval, below) its default is blamed when the count is too large
_SEGMENT_FIELDS = (
    ("job.compute_hours", float(Job.compute_hours)),
    ("policy.wall_cap_factor", float(Policy.wall_cap_factor)),
    ("policy.checkpoint_interval", float(Policy.checkpoint_interval)),
)


def check_segments(policy, job, tau: float, given: set[str] | None = None) -> None:
    """Refuse a wall cap of more than ``MAX_SEGMENTS`` checkpoint intervals ``tau``.

    The count is ``wall_cap_factor * compute_hours / tau``; the error names all three and
    blames (as its ``field``) the one furthest from its default, among ``given`` (the fields
    the user set, when known; else all three).
    """
    cap = policy.wall_cap_factor * job.compute_hours
    if cap / tau <= MAX_SEGMENTS:
        return
    values = {
        "job.compute_hours": job.compute_hours,
        "policy.wall_cap_factor": policy.wall_cap_factor,
        "policy.checkpoint_interval": tau,
    }
    candidates = [(f, d) for f, d in _SEGMENT_FIELDS if given is None or f in given]
    if not candidates:
        candidates = list(_SEGMENT_FIELDS)

    def excess(item):
        f, d = item
        r = values[f] / d
        return 1.0 / r if f == "policy.checkpoint_interval" else r

    field = max(candidates, key=excess)[0]
    ways = [f"job.compute_hours <= {MAX_SEGMENTS * tau / policy.wall_cap_factor:.3g} h"]
    factor = MAX_SEGMENTS * tau / job.compute_hours
    if factor >= 1.0:  # the factor's own lower bound
        ways.append(f"policy.wall_cap_factor <= {factor:.3g}")
    ways.append(f"policy.checkpoint_interval >= {cap / MAX_SEGMENTS:.3g} h")
    raise FieldError(
        field,
        f"{field}: the wall cap, policy.wall_cap_factor ({policy.wall_cap_factor:g}) x "
        f"job.compute_hours ({job.compute_hours:g} h), must be at most {MAX_SEGMENTS:.0e} "
        f"checkpoint intervals (policy.checkpoint_interval = {tau:g} h): so "
        f"{', '.join(ways[:-1])} or {ways[-1]}; got {values[field]!r}",
    )


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
    check_segments(pol, scenario.job, tau)
    check_trend(fm.trend_shape, fm.fleet_age_hours, cap)
    phys_kw = _draw_physics(draws)
    if "draw_trend" in phys_kw:  # the posterior's trend shapes, at its fleet age (or the
        # scenario's, where the posterior records none: the field then named is the scenario's)
        age = phys_kw.get("fleet_age_hours", float(fm.fleet_age_hours))
        age_field = None if "fleet_age_hours" in phys_kw else "failures.fleet_age_hours"
        check_trend(float(np.max(phys_kw["draw_trend"])), age, cap, "rates", age_field)
    inputs = KernelInputs(
        cat_rate=np.ascontiguousarray(cat_rate, dtype=np.float64),
        draw_of_trial=draw_of_trial(n_trials, draws.n_draws),
        detect_hours=np.array([c.detection_hours for c in fm.categories], dtype=np.float64),
        swap=np.array([c.recovery == "swap" for c in fm.categories], dtype=np.bool_),
        maint_rate=maintenance_rate(scenario, draws),
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
        cat_amp=np.array([c.diurnal_amplitude for c in fm.categories], dtype=np.float64),
        cat_phase=np.array([c.diurnal_peak_hour for c in fm.categories], dtype=np.float64),
        start_hour=float(scenario.job.start_hour),
        trend_shape=float(fm.trend_shape),
        fleet_age_hours=phys_kw.pop("fleet_age_hours", float(fm.fleet_age_hours)),
        speed_amp=float(scenario.job.throughput_amplitude),
        speed_phase=float(scenario.job.throughput_peak_hour),
        **_node_inputs(scenario),
        **_physics_inputs(scenario),
        overhead_sigma=pol.overhead_sigma,
        overhead_jitter=pol.overhead_jitter,
        **phys_kw,
        **_profile_inputs(scenario, draws),
    )
    labels = {
        "rates_source": draws.source,
        "mttf_hours": mttf,
        "n_draws": draws.n_draws,
        "draw_rows": draws.rows,
        "source_draws": draws.n_source,
        "physics_notes": [
            *replaced_physics_notes(scenario, draws.physics),
            *not_simulated_notes(draws),
        ],
        "posterior_reads": posterior_reads(scenario, draws.physics),
    }
    return inputs, labels


def _profile_inputs(scenario: Scenario, draws) -> dict[str, Any]:
    """Each category's weekly rate profile (ones without one) and the job's hour of the week.

    Nothing when no category has a profile. A posterior whose diurnal amplitude is positive
    in some draw for a category with a profile is refused (the two do not combine).
    """
    profiles = [c.weekly_profile() for c in scenario.failures.categories]
    if all(q is None for q in profiles):
        return {}
    phys = draws.physics
    if phys is not None and phys.diurnal_amplitude is not None:
        for col, (c, q) in enumerate(zip(scenario.failures.categories, profiles, strict=True)):
            if q is not None and np.any(phys.diurnal_amplitude[:, col] > 0):
                raise FieldError(
                    f"failures.categories[{c.name!r}].rate_profile",
                    f"failures.categories[{c.name!r}].rate_profile: the posterior gives this "
                    "category a diurnal amplitude per draw; a category takes a rate profile or "
                    "a diurnal cosine, not both (drop the profile, or pass "
                    "relmc.rates.rate_array(posterior) to ignore the posterior's physics)",
                )
    ones = np.ones(WEEK_HOURS)
    job = scenario.job
    return {
        "cat_profile": np.array([ones if q is None else q for q in profiles]),
        "week_hour0": float(24 * job.start_day + job.start_hour),
    }


def _draw_physics(draws) -> dict[str, Any]:
    """Lower the posterior's physics parameters per draw to kernel inputs (none: nothing)."""
    phys = draws.physics
    if phys is None:
        return {}
    out: dict[str, Any] = {}
    for var, name in (
        ("diurnal_amplitude", "draw_amp"),
        ("diurnal_peak_hour", "draw_phase"),
        ("trend_shape", "draw_trend"),
        ("bad_node_fraction", "draw_bad_fraction"),
        ("bad_node_multiplier", "draw_bad_multiplier"),
    ):
        value = getattr(phys, var)
        if value is not None:
            out[name] = np.ascontiguousarray(value, dtype=np.float64)
    if phys.fleet_age_hours is not None:  # the age at which the posterior's rates hold
        out["fleet_age_hours"] = float(phys.fleet_age_hours)
    return out


def _node_inputs(scenario: Scenario) -> dict[str, Any]:
    """Lower the node model's fields (lemons, blast radius, repairs, ...) to kernel inputs."""
    fm, pol, cl = scenario.failures, scenario.policy, scenario.cluster
    n_nodes = -(-cl.n_gpus // cl.gpus_per_node)  # a part-filled node is still a node
    cats = fm.categories
    return {
        "n_nodes": int(n_nodes),
        "bad_fraction": float(fm.bad_node_fraction),
        "bad_multiplier": np.array(
            [
                fm.bad_node_multiplier if c.bad_node_multiplier is None else c.bad_node_multiplier
                for c in cats
            ],
            dtype=np.float64,
        ),
        # a straggler or SDC strikes one node and is never wrongly blamed (relmc.sim): their
        # domain and wrong blame are not read, so they do not turn the node model on either
        "cat_domain": np.array(
            [scenario.domain_nodes(c.domain) if c.kind == "failure" else 1 for c in cats],
            dtype=np.int64,
        ),
        "diag_hours": np.array([c.diagnosis_hours for c in cats], dtype=np.float64),
        "diag_wrong": np.array(
            [c.wrong_blame if c.kind == "failure" else 0.0 for c in cats], dtype=np.float64
        ),
        "lemon_k": int(pol.lemon_failures),
        "lemon_window": float(pol.lemon_window_hours),
        "repair_fixed": pol.repair_distribution == "fixed",
        "escalate_prob": float(pol.escalation_probability),
        "manual_repair_hours": float(pol.manual_repair_hours),
        "auto_miss": float(pol.auto_repair_miss),
        "manual_miss": float(pol.manual_repair_miss),
        "retire_after": int(pol.retire_after_repairs),
        "n_standbys": int(pol.n_standbys),
        "preempt_hours": float(pol.preemption_hours),
        "mem_restart_hours": -1.0
        if pol.memory_restart_hours is None
        else float(pol.memory_restart_hours),
        "mem_replicas": int(pol.memory_replicas),
    }


def _physics_inputs(scenario: Scenario) -> dict[str, Any]:
    """Lower the straggler and SDC fields (issue 11) to kernel inputs."""
    cats = scenario.failures.categories
    kinds = {"failure": 0, "straggler": 1, "sdc": 2}
    return {
        "cat_kind": np.array([kinds[c.kind] for c in cats], dtype=np.int64),
        "straggler_speed": np.array(
            [c.straggler_speed if c.kind == "straggler" else 1.0 for c in cats], dtype=np.float64
        ),
        "sdc_latency": np.array([c.sdc_latency_hours for c in cats], dtype=np.float64),
        "sdc_latency_exp": np.array(
            [c.sdc_latency_distribution == "exponential" for c in cats], dtype=np.bool_
        ),
        "retention": int(scenario.policy.checkpoint_retention),
    }


@dataclass(frozen=True)
class Precision:
    """When to stop adding trials before ``n_trials``: a target and a hopelessness floor.

    Trials run in rounds of whole blocks (``BLOCK_SIZE`` trials each): first
    ``min_trials`` (rounded up to blocks), then rounds that double the total, up to
    ``n_trials`` (the last block cut there: a budget of 3,000 runs at most 3,000 trials).
    After each round the Monte Carlo standard error of mean ETTR is computed from
    the trials so far; the run stops when it is at most ``target_se`` (absolute) or
    ``target_rse`` times the mean (relative), or when the mean is hopeless: even
    ``mean + 4 SE`` is below ``hopeless_ettr`` (checked first: where both hold, the run is
    recorded hopeless). The last round, which reaches ``n_trials``, is checked too: a run
    records ``"n_trials"`` as why it stopped only where the rule was not met by then (the
    budget ran out), else ``"target"`` or ``"hopeless"``, with the same trials. The stopping
    rule reads only results, and block ``b`` always has the same seed, so the outcome is the
    same on any thread count.

    Parameters
    ----------
    target_se : float, optional
        Absolute target for the standard error of mean ETTR, > 0.
    target_rse : float, optional
        Relative target (standard error / mean ETTR), > 0.
    hopeless_ettr : float, optional
        Stop early, flagged ``"hopeless"``, once mean ETTR + 4 SE is below this, in (0, 1].
    min_trials : int
        Trials before the first check, >= 2 (default 2 blocks).

    At least one of ``target_se``, ``target_rse`` and ``hopeless_ettr`` must be given.
    """

    target_se: float | None = None
    target_rse: float | None = None
    hopeless_ettr: float | None = None
    min_trials: int = 2 * BLOCK_SIZE

    def __post_init__(self) -> None:
        for name in ("target_se", "target_rse"):
            v = getattr(self, name)
            if v is not None and (
                isinstance(v, bool)
                or not isinstance(v, numbers.Real)
                or not (0 < float(v) < math.inf)
            ):
                raise FieldError(f"precision.{name}", f"precision.{name} must be > 0; got {v!r}")
        h = self.hopeless_ettr
        if h is not None and (
            isinstance(h, bool) or not isinstance(h, numbers.Real) or not (0 < float(h) <= 1)
        ):
            raise FieldError(
                "precision.hopeless_ettr", f"precision.hopeless_ettr must be in (0, 1]; got {h!r}"
            )
        m = self.min_trials
        if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 2:
            raise FieldError(
                "precision.min_trials", f"precision.min_trials must be an integer >= 2; got {m!r}"
            )
        if self.target_se is None and self.target_rse is None and h is None:
            raise FieldError(
                "precision",
                "precision needs a target_se, target_rse or hopeless_ettr to stop on (without "
                "one every run takes its n_trials: leave precision out, or a sweep spec's "
                "[precision] table)",
            )

    def stop(self, ettr: np.ndarray) -> str | None:
        """Return why to stop after these trials' ETTR (``"target"``, ``"hopeless"``) or None."""
        n = ettr.size
        mean = float(ettr.mean())
        se = float(ettr.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
        if self.hopeless_ettr is not None and mean + 4.0 * se < self.hopeless_ettr:
            return "hopeless"
        if self.target_se is not None and se <= self.target_se:
            return "target"
        if self.target_rse is not None and mean > 0 and se <= self.target_rse * mean:
            return "target"
        return None


def _rounds(n_trials: int, precision: Precision | None) -> list[int]:
    """Block counts after which to check the stopping rule (the last is all blocks)."""
    n_blocks = -(-n_trials // BLOCK_SIZE)
    if precision is None:
        return [n_blocks]
    first = max(1, -(-precision.min_trials // BLOCK_SIZE))
    ends = []
    b = first
    while b < n_blocks:
        ends.append(b)
        b *= 2
    return [*ends, n_blocks]


def run_kernel(
    inputs: KernelInputs,
    root: np.random.SeedSequence,
    *,
    n_threads: int = 1,
    progress: bool = False,
    precision: Precision | None = None,
) -> tuple[dict[str, np.ndarray], str]:
    """Run the kernel over fixed blocks of trials; each block gets its own child seed.

    Returns the outputs (truncated to the trials run) and why the run stopped: ``"n_trials"``
    (all of them, the rule not met), ``"target"`` or ``"hopeless"`` (see :class:`Precision`).
    """
    inputs = draw_overhead_factors(inputs, root)
    n = inputs.n_trials
    out = allocate_outputs(n, inputs.n_categories)
    args = block_args(inputs, out)

    # Each block's generator is PCG64(child_seed(root, b)). For a round of many blocks their
    # states are computed together (pcg64_states: ~3.8 against ~16 us a block) and set on a
    # generator each thread keeps; else each block's is built.
    states: dict[int, dict] | None = None  # the round's, by block
    local = threading.local()

    def block(b: int) -> None:
        if states is None:
            rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        else:
            if not hasattr(local, "rng"):
                local.rng = np.random.Generator(np.random.PCG64(0))
            rng = local.rng
            rng.bit_generator.state = states[b]
        simulate_block(rng, *args(slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)))

    rounds = _rounds(n, precision)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=rounds[-1], desc="simulate", unit="block", leave=False)
    done_blocks = 0
    stopped = "n_trials"
    pool = ThreadPoolExecutor(max_workers=n_threads) if n_threads > 1 else None
    try:
        for end in rounds:
            todo = range(done_blocks, end)
            found = pcg64_states(root, todo) if len(todo) >= _STATES_MIN else None
            states = None if found is None else dict(zip(todo, found, strict=True))
            for _ in map(block, todo) if pool is None or len(todo) == 1 else pool.map(block, todo):
                if bar is not None:
                    bar.update()
            done_blocks = end
            if precision is not None:  # the last round too: a rule met there is recorded
                m = min(n, end * BLOCK_SIZE)
                wall = out["wall_hours"][:m]
                with np.errstate(invalid="ignore", divide="ignore"):
                    ettr = np.where(wall > 0, out["progress_hours"][:m] / wall, 0.0)
                why = precision.stop(ettr)
                if why is not None:
                    stopped = why
                    break
    finally:
        if pool is not None:
            pool.shutdown()
        if bar is not None:
            bar.close()
    m = min(n, done_blocks * BLOCK_SIZE)
    if m < n:
        out = {k: v[:m] for k, v in out.items()}
    return out, stopped


def simulate(
    scenario: Scenario | None = None,
    *,
    rates=None,
    n_trials: int = 1000,
    seed=None,
    n_threads: int | None = None,
    progress: bool | None = None,
    precision: Precision | None = None,
    overhead_seed=None,
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
        Root of randomness. Trials are split into blocks of ``BLOCK_SIZE``, block ``b``
        seeded by the child ``(entropy, spawn_key + (b,))``, so the result depends only on the
        inputs and the seed, whatever ``n_threads``.
    n_threads : int, optional
        Threads running blocks (kernels release the GIL); default: all cores.
    progress : bool, optional
        Show a progress bar; default: only when stderr is a terminal and the run is large.
    precision : Precision, optional
        Adaptive precision: stop before ``n_trials`` (then a budget) once the Monte Carlo
        standard error of mean ETTR meets a target, or once the mean is hopeless (see
        :class:`Precision`). The trials run are a prefix of the ``n_trials`` run, whole blocks.
    overhead_seed : int, SeedSequence or None
        Root of the per-draw overhead multipliers (the policy's ``*_spread`` fields; see
        "Uncertain overheads" in :mod:`relmc.sim`); default: ``seed``. Simulations given the
        same value share each posterior draw's multipliers (common random numbers), also
        for a subset of the draws made by :func:`relmc.rates.nested_draws` (it records the
        source's count, ``RateDraws.n_source``; a posterior cut to its first draws is a
        posterior of its own, whose multipliers are its own):
        :func:`relmc.project` gives its own seed to every size and to the credible simulation,
        so an uncertain restart time is the same at every cluster size. Recorded in ``attrs``
        (``overhead_seed_entropy``, ``overhead_seed_spawn_key``) when given.

    Returns
    -------
    xarray.Dataset
        Per trial (dim ``trial``): ``wall_hours``, ``ettr``, ``finished``, ``progress_hours``,
        ``events``, ``maintenance_events``, ``power_swings`` (steps of the job's power
        between computing and not), ``power_swings_per_day`` (those of at least
        ``cluster.power_swing_threshold_mw``, per wall-clock day), ``max_power_step_mw``;
        ``interruptions`` (trial, category);
        ``lost_hours`` (trial, cause); the SDC counts ``sdc_rollbacks`` (retained
        checkpoints skipped over by rollbacks: a rollback to the last checkpoint adds 0),
        ``sdc_from_scratch`` (rollbacks to progress 0) and ``sdc_undetected`` (corruption
        still latent at the trial's end), zero without SDC categories, and
        ``sdc_rework_hours`` (the part of ``lost_hours[rework]`` that SDC rollbacks
        discarded: at each detection, the progress reached less the rollback point); the
        node model's
        counts ``nodes_excluded_bad``,
        ``nodes_excluded_good``, ``repairs_auto``, ``repairs_manual``, ``nodes_retired``,
        ``wrong_blames``, ``standby_swaps``, ``restarts_memory``, ``restarts_storage`` (zero
        when it is off) and ``pool_occupancy`` (NaN unless it is on with a finite pool; see
        :mod:`relmc.sim`). Coordinates ``draw`` (rate draw per trial: the row of
        ``rates``; for draws from :func:`relmc.rates.nested_draws`, the row of that set,
        whose posterior draw is its ``rows[draw]``), ``unit``
        (category), ``n_gpus``. The scenario (JSON), seed and units are in ``attrs``, with
        ``n_trials_budget`` and ``stopped_by`` (``"n_trials"``: the budget ran out before
        the rule was met, ``"target"`` or ``"hopeless"``; see :class:`Precision`).

    Warns
    -----
    relmc.errors.UnreadFieldWarning
        For each category that sets fields its kind does not read (e.g. a straggler speed
        on a category whose kind is not "straggler"; :meth:`relmc.Scenario.unread_notes`),
        a wrong-blame chance whose domain takes several nodes, and each field set for a feature
        that is off (:meth:`relmc.Scenario.dead_fields`): they change nothing. And for each
        diurnal, trend or lemon field the scenario sets (other than its default or the
        posterior's point value) that ``rates``' per-draw parameters replace, the fleet age
        included (:func:`relmc.rates.replaced_physics_notes`). And for each posterior
        variable of physics that no simulation takes
        (:data:`relmc.rates.NOT_SIMULATED_VARIABLES`,
        e.g. the variance of a frailty fit's node rates).
    """
    scenario = Scenario.default() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise ValueError(f"scenario must be a relmc.Scenario; got {type(scenario).__name__}")
    n_trials = check_n_trials(n_trials)
    n_threads = check_n_threads(n_threads)
    if precision is not None and not isinstance(precision, Precision):
        raise FieldError(
            "precision", f"precision must be a relmc.Precision or None; got {precision!r}"
        )
    root = resolve_seed(seed)
    overhead_root = root if overhead_seed is None else resolve_seed(overhead_seed, "overhead_seed")
    inputs, labels = kernel_inputs(scenario, rates, n_trials)
    if _WARN_UNREAD.get():  # a forgotten kind simulates another model
        warn_unread([scenario], [labels])
    check_trial_memory(n_trials, inputs.n_categories)  # before any work
    inputs = draw_overhead_factors(
        inputs, overhead_root, labels["draw_rows"], labels["source_draws"]
    )
    if progress is None:
        progress = sys.stderr.isatty() and n_trials >= 100 * BLOCK_SIZE
    out, stopped = run_kernel(
        inputs, root, n_threads=n_threads, progress=progress, precision=precision
    )
    ds = _label(scenario, inputs, labels, root, out)
    if overhead_seed is not None:
        ds.attrs.update({f"overhead_{k}": v for k, v in seed_attrs(overhead_root).items()})
    ds.attrs["n_trials_budget"] = n_trials
    ds.attrs["stopped_by"] = stopped
    ds.attrs["kernel_path"] = kernel_path(inputs)
    if precision is not None:
        ds.attrs["precision"] = json.dumps(dataclasses.asdict(precision))
    return ds


#: The kernel's paths by :func:`relmc.sim._kernels.block_path`'s codes (``PATH_*``).
PATH_NAMES = (
    "physics+nodes",
    "nodes",
    "physics",
    "diurnal",
    "renewal",
    "pool (reduced)",
    "pool",
    "general",
)


def kernel_path(inputs: KernelInputs) -> str:
    """Return the name of the kernel path that simulates ``inputs`` (:data:`PATH_NAMES`).

    Every block of a run takes the same path: it depends on the scenario's features and the
    draws' parameters, not on the trials. Two runs on different paths draw their random
    numbers differently, so their trials do not pair by stream, only by posterior draw.
    """
    args = block_args(inputs, allocate_outputs(0, inputs.n_categories))(slice(0, 0))
    named = dict(zip(KERNEL_PARAMETERS[1:], args, strict=True))
    wanted = inspect.signature(block_path.py_func).parameters
    return PATH_NAMES[block_path(*(named[p] for p in wanted))]


#: Whether :func:`simulate` warns of fields a category's kind does not read: callers that
#: simulate many scenarios (sweeps, comparisons) warn once of those unread in all of them
#: (:func:`unread_warnings_from_callers`); a context variable, so threads do not share it.
_WARN_UNREAD: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "relmc_warn_unread", default=True
)


@contextlib.contextmanager
def unread_warnings_from_callers() -> Iterator[None]:
    """Within this block :func:`simulate` leaves the unread-field warnings to its caller."""
    token = _WARN_UNREAD.set(False)
    try:
        yield
    finally:
        _WARN_UNREAD.reset(token)


def warn_unread(
    scenarios: Sequence[Scenario],
    labels: Iterable[Mapping[str, Any]] = (),
    stacklevel: int = 3,
) -> None:
    """Warn once of each field that changes nothing in every one of ``scenarios``.

    :meth:`Scenario.unread_notes` among them (a field unread, dead or inert in each scenario
    that has it). ``labels``: the scenarios' :func:`kernel_inputs` labels, or only their
    ``"physics_notes"`` (fields a posterior's per-draw parameters replace, warned once
    each, so that a sweep axis over such a field warns once per value, not once per cell)
    and ``"posterior_reads"`` (fields the posterior makes read, not warned of as dead).
    ``stacklevel`` as :func:`warnings.warn`'s, counted from this function's frame (3: the
    frame that called this function's caller, e.g. the user's call of :func:`simulate`).
    """
    physics_notes: list[str] = []
    live: set[str] = set()
    for lab in labels:
        physics_notes += lab["physics_notes"]
        live |= lab["posterior_reads"]
    seen: set[str] = set()
    context = unread_context(scenarios)  # once: a sweep may have thousands of cells
    notes = [n for sc in scenarios for n in sc.unread_notes(context=context, live=live)]
    for note in [*notes, *physics_notes]:
        if note not in seen:
            seen.add(note)
            warnings.warn(note, UnreadFieldWarning, stacklevel=stacklevel)


#: The node model's per-trial outputs and their long names (zero, or NaN, when it is off).
NODE_OUTPUTS = {
    "nodes_excluded_bad": "bad nodes excluded by lemon detection",
    "nodes_excluded_good": "good nodes excluded by lemon detection",
    "repairs_auto": "automated repairs begun",
    "repairs_manual": "manual repairs begun (escalations)",
    "nodes_retired": "nodes retired after repeated repairs",
    "wrong_blames": "failures blamed on the wrong node",
    "standby_swaps": "nodes replaced by a standby",
    "restarts_memory": "restarts from a checkpoint in peers' memory",
    "restarts_storage": "restarts from a checkpoint in storage (node model only)",
    "pool_occupancy": "time-averaged nodes in the spare pool (NaN: unlimited or node model off)",
}

#: Straggler and SDC per-trial outputs and their long names (zero when every category is a
#: failure category); counts, but ``*_hours`` in hours.
PHYSICS_OUTPUTS = {
    "sdc_rollbacks": "retained checkpoints skipped over by SDC rollbacks",
    "sdc_from_scratch": "SDC rollbacks to progress 0 (no clean checkpoint retained)",
    "sdc_undetected": "silent data corruption still latent at the trial's end",
    "sdc_rework_hours": "rework hours of SDC rollbacks (part of lost_hours[rework])",
}


def _label(scenario, inputs, labels, root, out) -> xr.Dataset:
    fm = scenario.failures
    wall = out["wall_hours"]
    trial = np.arange(wall.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        ettr = np.where(wall > 0, out["progress_hours"] / wall, 0.0)
    hours = {"units": "h"}
    cl = scenario.cluster
    step = cl.power_step_mw
    swings = out["power_swings"]
    counted = swings if step >= cl.power_swing_threshold_mw else np.zeros_like(swings)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_day = np.where(wall > 0, counted * 24.0 / wall, 0.0)
    ds = xr.Dataset(
        {
            "wall_hours": ("trial", wall, {**hours, "long_name": "wall-clock time"}),
            "ettr": ("trial", ettr, {"units": "1", "long_name": "effective training time ratio"}),
            "finished": (
                "trial",
                out["finished"],
                {"units": "1", "long_name": "job finished before the cap"},
            ),
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
            "power_swings": (
                "trial",
                swings,
                {"long_name": "steps of the job's power (computing <-> not)", "units": "1"},
            ),
            "power_swings_per_day": (
                "trial",
                per_day,
                {
                    "long_name": "power steps of at least the threshold per wall-clock day",
                    "units": "1/d",
                    "threshold_mw": cl.power_swing_threshold_mw,
                },
            ),
            "max_power_step_mw": (
                "trial",
                np.where(swings > 0, step, 0.0),
                {"long_name": "largest step of the job's power", "units": "MW"},
            ),
            "lost_hours": (
                ("trial", "cause"),
                out["lost_hours"],
                {**hours, "long_name": "wall-clock hours lost, by cause"},
            ),
            **{
                name: ("trial", out[name], {"long_name": long_name, "units": "1"})
                for name, long_name in NODE_OUTPUTS.items()
            },
            **{
                name: (
                    "trial",
                    out[name],
                    {"long_name": long_name, "units": "h" if name.endswith("_hours") else "1"},
                )
                for name, long_name in PHYSICS_OUTPUTS.items()
            },
        },
        coords={
            "trial": trial,
            "category": list(fm.names),
            "cause": list(CAUSES),
            "draw": ("trial", inputs.draw_of_trial[: trial.size]),
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
            "power_step_mw": step,
            "cap_hours": inputs.cap_hours,
            "mttf_hours": labels["mttf_hours"],
            "rates_source": labels["rates_source"],
            "time_units": "hours",
            **provenance(),
        }
    )
    return ds
