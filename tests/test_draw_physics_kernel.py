"""The kernel's physics parameters per draw (contract in relmc.sim, "Physics parameters per draw").

Kernel alone, exact checks only (the oracle and statistical known answers are tested
elsewhere): rows that repeat the single values are the single values bit for bit, on every
path where the single values already turn the feature on; each trial runs exactly its own
draw's row, also when consecutive trials of a block switch draws; neutral rows are off bit for
bit; a draw without bad nodes among draws with bad nodes excludes none; the accounting
identity holds on random scenarios with per-draw arrays.

Exactness per draw within a block: a block's trials share one random stream, so a run with
differing rows cannot be compared trial by trial with a whole run of one draw's single values.
Instead the block is replayed one trial per kernel call on the same Generator (numba advances
the Generator passed in, so consecutive calls read the stream where the previous one
stopped), each call with the single values of that trial's draw and no rows. Every path
draws random numbers per trial only, so the replay reads exactly the block's stream, and the
two agree bit for bit if and only if each trial of the block ran its draw's values.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from threecats import NODE, PHYSICS, three_category_inputs

from relmc.sim import _kernels
from relmc.sim.inputs import OUTPUTS, KernelInputs, allocate_outputs, kernel_args
from relmc.sim.simulate import BLOCK_SIZE, run_kernel

REL = 1e-9  # relative rounding allowance of the accounting identity
N_TRIALS = 2 * BLOCK_SIZE
NAMES = tuple(name for name, _, _, _ in OUTPUTS)


_inputs = three_category_inputs


MODULATED = dict(
    cat_amp=np.array([0.5, 0.25, 0.75]),
    cat_phase=np.array([3.0, 15.0, 20.0]),
    start_hour=5.0,
    trend_shape=1.25,
    fleet_age_hours=400.0,
)
SPEED = dict(speed_amp=0.125, speed_phase=10.0)
#: Scenarios where the single values already turn every per-draw feature on.
SCENARIOS = {
    "general_modulated": {**MODULATED, **SPEED},
    "nodes": {**NODE, **MODULATED},
    "physics_modulated": {**PHYSICS, **MODULATED},
    "physics_nodes": {**PHYSICS, **NODE, **MODULATED},
}
#: The scenarios with the node model on (the node path, the combined path).
WITH_NODES = ("nodes", "physics_nodes")
#: Two draws' rows, both turning each feature on, differing in every parameter. Draw 0 has
#: one diurnal shape for all categories (the alias table picks categories), draw 1 not.
ROWS = dict(
    draw_amp=np.array([[0.5, 0.5, 0.5], [0.0, 0.9, 0.3]]),
    draw_phase=np.array([[4.0, 4.0, 4.0], [2.0, 11.0, 19.0]]),
    draw_trend=np.array([0.75, 2.0]),
    draw_bad_fraction=np.array([0.05, 0.3]),
    draw_bad_multiplier=np.array([[2.0, 1.0, 8.0], [6.0, 3.0, 1.5]]),
)
SINGLE = dict(  # the single value each per-draw array stands in for
    draw_amp="cat_amp",
    draw_phase="cat_phase",
    draw_trend="trend_shape",
    draw_bad_fraction="bad_fraction",
    draw_bad_multiplier="bad_multiplier",
)
NODE_ONLY = ("draw_bad_fraction", "draw_bad_multiplier")


def _run(x: KernelInputs, seed: int = 5) -> dict[str, np.ndarray]:
    return run_kernel(x, np.random.SeedSequence(seed))[0]


def _assert_same(a: dict, b: dict, trials=slice(None)) -> None:
    for name in NAMES:
        assert np.array_equal(a[name][trials], b[name][trials], equal_nan=True), name


def _identity_error(out: dict) -> float:
    total = out["progress_hours"] + out["lost_hours"].sum(axis=1)
    return float(np.max(np.abs(out["wall_hours"] - total) / np.maximum(out["wall_hours"], 1.0)))


def _arrays(x: KernelInputs, names) -> dict[str, np.ndarray]:
    """Per-draw arrays ``names`` whose every row repeats ``x``'s single values."""
    n_draws = x.cat_rate.shape[0]
    out = {}
    for name in names:
        value = np.asarray(getattr(x, SINGLE[name]), dtype=np.float64)
        out[name] = np.tile(value, (n_draws, 1)) if value.ndim else np.full(n_draws, float(value))
    return out


def _names(scenario: str) -> tuple[str, ...]:
    if scenario in WITH_NODES:
        return tuple(SINGLE)
    return tuple(n for n in SINGLE if n not in NODE_ONLY)


def _single_of_draw(x: KernelInputs, d: int) -> KernelInputs:
    """``x`` with no per-draw rows and the single values of draw ``d``'s rows."""
    kw = {}
    for name, single in SINGLE.items():
        rows = getattr(x, name)
        if rows.shape[0]:
            kw[single] = float(rows[d]) if rows.ndim == 1 else rows[d].copy()
            kw[name] = rows[:0]
    return dataclasses.replace(x, **kw)


# ---- (a) rows that repeat the single values are the single values, bit for bit


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_rows_equal_to_the_single_values_are_bit_identical(scenario):
    x = _inputs(**SCENARIOS[scenario])
    assert x.modulated and (x.node_model == (scenario in WITH_NODES))
    plain = _run(x)
    names = _names(scenario)
    for subset in [(name,) for name in names] + [names]:  # each array alone, then all
        y = dataclasses.replace(x, **_arrays(x, subset))
        assert y.per_draw_physics
        _assert_same(plain, _run(y))


def test_neutral_rows_are_off_bit_for_bit():
    """Rows with every amplitude 0, trend 1 and bad fraction 0 leave every feature off: the
    renewal path and the general path run as without them."""
    for x in (
        _inputs(maint_rate=0.0, n_spares=-1),  # the renewal path
        _inputs(),  # the general path
    ):
        y = dataclasses.replace(
            x,
            draw_amp=np.zeros((2, 3)),
            draw_phase=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
            draw_trend=np.ones(2),
            draw_bad_fraction=np.zeros(2),
            draw_bad_multiplier=np.array([[3.0, 1.0, 2.0], [1.0, 5.0, 1.0]]),
        )
        assert not y.modulated and not y.node_model
        _assert_same(_run(x), _run(y))


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("draw_trend", np.array([0.5, 0.7])),  # burn-in in every draw
        ("draw_trend", np.array([1.0, 1.5])),  # wear-out in one
        ("draw_amp", np.array([[0.0, 0.0, 0.0], [0.0, 0.3, 0.0]])),
    ],
)
def test_rows_that_vary_in_time_make_the_inputs_modulated(name, rows):
    """``KernelInputs.modulated`` from the per-draw rows alone: a trend shape other than 1 in
    any draw (below 1 too) or an amplitude above 0 in any draw. Negative control: the same
    inputs without the rows are not."""
    x = _inputs()
    assert not x.modulated
    assert dataclasses.replace(x, **{name: rows}).modulated


# ---- (b) each trial runs its own draw's row, exactly


def _replay(x: KernelInputs, seed: int) -> tuple[dict, dict]:
    """One block of ``x`` in one call, and replayed one trial per call (see the docstring)."""
    n_cat = x.n_categories
    block = allocate_outputs(x.n_trials, n_cat)
    rng = np.random.Generator(np.random.PCG64(seed))
    _kernels.simulate_block(rng, *kernel_args(x, block, slice(0, x.n_trials)))
    replay = allocate_outputs(x.n_trials, n_cat)
    rng = np.random.Generator(np.random.PCG64(seed))
    singles = [_single_of_draw(x, d) for d in range(x.cat_rate.shape[0])]
    for i, d in enumerate(x.draw_of_trial):
        _kernels.simulate_block(rng, *kernel_args(singles[d], replay, slice(i, i + 1)))
    return block, replay


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_trial_runs_its_draws_row_exactly(scenario):
    # each per-draw array alone, then all of them: a path that takes per-draw rows only when
    # some other array has them too (the physics path's ``per_shape`` with ``draw_amp`` alone,
    # a mutant of benchmarks/MUTATION_PHYSICS.md's rerun) runs draw 0's row in every trial
    names = _names(scenario)
    draws = np.random.default_rng(3).integers(0, 2, 160)  # switching draws at random
    for subset in [(name,) for name in names] + [names]:
        x = _inputs(
            **SCENARIOS[scenario],
            n_trials=draws.size,
            draw_of_trial=draws.astype(np.int64),
            **{name: ROWS[name] for name in subset},
        )
        for d in range(2):
            y = _single_of_draw(x, d)
            assert y.modulated and (y.node_model == (scenario in WITH_NODES))
        block, replay = _replay(x, seed=11)
        _assert_same(block, replay)
        # and the draws differ: the check is not vacuous
        one_draw, _ = _replay(_single_of_draw(x, 0), 11)
        assert not np.array_equal(block["wall_hours"], one_draw["wall_hours"]), subset


def test_the_replay_detects_a_trial_that_runs_the_wrong_row():
    """Negative control: replaying with draw 1's values for every trial differs."""
    x = _inputs(**MODULATED, n_trials=64, draw_trend=ROWS["draw_trend"])
    block, _ = _replay(x, seed=2)
    wrong = dataclasses.replace(x, draw_trend=np.full(2, ROWS["draw_trend"][1]))
    assert not np.array_equal(block["wall_hours"], _replay(wrong, seed=2)[0]["wall_hours"])


# ---- (c) the node model per draw


def test_a_draw_without_bad_nodes_excludes_none():
    # restart-only node categories: a struck node stays in the job, so a lemon fails again
    x = _inputs(
        **{**NODE, "bad_fraction": 0.0},
        swap=np.array([False, False, False]),
        draw_bad_fraction=np.array([0.0, 0.4]),
        draw_bad_multiplier=np.array([[20.0, 1.0, 20.0], [20.0, 1.0, 20.0]]),
    )
    out = _run(x)
    d = x.draw_of_trial
    assert out["nodes_excluded_bad"][d == 0].sum() == 0
    assert out["nodes_excluded_bad"][d == 1].sum() > 0  # lemons are caught where there are some


def test_a_bad_fraction_per_draw_alone_turns_the_node_model_on():
    x = _inputs(draw_bad_fraction=np.array([0.0, 0.2]))
    assert x.node_model and not _kernels.node_model_on(
        x.bad_fraction, x.cat_domain, x.diag_hours, x.diag_wrong, x.lemon_k, x.repair_fixed,
        x.escalate_prob, x.retire_after, x.n_standbys, x.preempt_hours, x.mem_restart_hours,
    )  # fmt: skip
    out = _run(x)
    assert out["restarts_storage"].sum() > 0  # counted on the node path only
    assert not np.isnan(out["pool_occupancy"]).any()


# ---- (d) the accounting identity with per-draw arrays


def _random_rows(rng, n_draws: int, n_cat: int, kind: str) -> dict[str, np.ndarray]:
    neutral = rng.random(n_draws) < 0.3  # some draws neutral
    amp = rng.random((n_draws, n_cat)) * (rng.random((n_draws, n_cat)) < 0.7)
    amp[neutral] = 0.0
    trend = np.where(neutral, 1.0, rng.uniform(0.5, 2.5, n_draws))
    rows = dict(draw_amp=amp, draw_phase=rng.uniform(0.0, 24.0, (n_draws, n_cat)), draw_trend=trend)
    if kind == "nodes":
        rows["draw_bad_fraction"] = np.where(neutral, 0.0, rng.uniform(0.0, 0.5, n_draws))
        rows["draw_bad_multiplier"] = rng.uniform(1.0, 10.0, (n_draws, n_cat))
    return rows


@pytest.mark.parametrize("kind", ["general", "nodes", "physics"])
@pytest.mark.parametrize("seed", range(4))
def test_accounting_identity_on_random_scenarios(kind, seed):
    rng = np.random.default_rng(100 + seed)
    n_draws = 4
    extra = {"general": SPEED, "nodes": NODE, "physics": PHYSICS}[kind]
    x = _inputs(
        **extra,
        cat_rate=rng.uniform(0.005, 0.08, (n_draws, 3)),
        draw_of_trial=rng.integers(0, n_draws, BLOCK_SIZE).astype(np.int64),
        start_hour=float(rng.uniform(0.0, 24.0)),
        fleet_age_hours=float(rng.uniform(50.0, 2000.0)),
        **_random_rows(rng, n_draws, 3, kind),
    )
    out = _run(x, seed)
    assert _identity_error(out) <= REL
    assert np.all(out["progress_hours"] <= x.work_hours * (1 + REL))
    assert np.all(out["wall_hours"] <= x.cap_hours)
