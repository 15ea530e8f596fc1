"""The pool path a buffer of failures at a time, against the pool path one event at a time.

``relmc.sim._kernels._block_pool_reduced`` runs the pool path's process (a finite spare pool
with exponential repairs, constant rates, certain overheads) when there is no planned
maintenance: a failure's run is reduced with the renewal path's block arithmetic, the pool
and the clock in one serial pass per buffer, and near the job's end, the wall cap or the
event budget the trial continues in ``_trial_pool``. It draws its own streams (the pool's
exponentials from a buffer of their own, categories ahead), so it is compared with
``_block_pool`` (the general path's outputs bit for bit, ``tests/test_pool_path.py``) in
distribution: every output's mean within 4.5 combined standard errors (``kernelcheck``: about
7e-6 chance per comparison for two correct samplers; ~25 outputs in each of 9 scenarios keep
the file below 2e-3) and the wall time's distribution by a two-sample KS test, at 2,000
trials of hundreds of failures each. Each scenario must put most of its failures through the
reduction (``stats``), and those near the cap or the budget must hand over. Negative controls:
the same comparison sees repairs 10 % longer, and a detection latency 10 % longer on one
category. ``use_blocks=False`` (``_block_pool``) gives the general path's outputs bit for
bit, and invariants hold on random scenarios (hypothesis). The Llama 3 scale (100k GPUs, 96
spares, 72 h repairs) is compared too, as ``benchmarks/bench_kernel.py`` runs it, and the
oracle on a scenario the reduction takes nearly whole.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernelcheck import TIMELINE, disagreements, mean_disagreement
from test_diurnal_path import _run as _run_path
from test_fast_paths import _run, _scenario, _with_policy
from test_pool_path import SWAPS, pool_scenarios

from relmc.defaults import default_failures
from relmc.scenario import Category, Cluster, Job, Policy, Scenario
from relmc.sim import _kernels
from relmc.sim.reference import simulate_reference
from relmc.sim.simulate import kernel_inputs

_MANY = dict(
    n_gpus=1024,  # 128 nodes: ~2.4 failures an hour, ~2.3 of them swaps
    work=100.0,
    checkpoint_interval=0.1,
    snapshot_hours=1 / 120,
    restart_hours=0.05,
    swap_hours=0.05,
    n_spares=8,
    repair_hours=5.0,
)
MANY = {
    # ~25 nodes would be in repair: most swaps wait for one
    "waits": _scenario(SWAPS, **_MANY),
    # no spares: every swap waits for the next repair
    "empty_pool": _scenario(SWAPS, **{**_MANY, "n_spares": 0, "repair_hours": 0.3}),
    # a pool that is never exhausted
    "ample_pool": _scenario(SWAPS, **{**_MANY, "n_spares": 5000}),
    # a low wall cap: trials stop at the cap in runs, restarts, detections, waits and swaps
    "near_cap": _scenario(SWAPS, **{**_MANY, "wall_cap_factor": 2.2}),
    # the event budget's last event is taken by the one-by-one loop
    "event_budget": _scenario(SWAPS, **{**_MANY, "max_events": 150}),
    # persist, no snapshots, a remainder segment, restarts longer than most gaps
    "persist": _scenario(
        SWAPS,
        **{
            **_MANY,
            "work": 100.03,
            "snapshot_hours": 0.0,
            "persist_hours": 0.06,
            "restart_hours": 0.4,
        },
    ),
    # one failure category only, a swap with a long detection
    "one_category": _scenario(
        [Category("node", rate=0.02, unit="node", recovery="swap", detection_hours=0.3)],
        **_MANY,
    ),
    # few failures per trial: the first is taken alone, the job's end comes within a buffer
    "few": _scenario(SWAPS, **{**_MANY, "n_gpus": 256, "work": 60.0}),
}
N_TRIALS = 2000


def _run_reduced(inputs, seed: int, use_blocks: bool = True):
    """Run ``_block_pool_reduced`` over blocks of 256: outputs and its counts (taken, handed)."""
    stats = np.zeros(2, dtype=np.int64)
    out = _run_path(_kernels._block_pool_reduced, inputs, seed, use_blocks, stats)
    return out, stats


def _check_accounting(out, inputs) -> None:
    np.testing.assert_allclose(
        out["progress_hours"] + out["lost_hours"].sum(axis=1), out["wall_hours"], rtol=1e-9
    )
    assert (out["lost_hours"] >= 0).all()
    assert out["wall_hours"].max() <= inputs.cap_hours * (1 + 1e-12)
    assert out["events"].max() <= inputs.max_events
    np.testing.assert_array_equal(out["events"], out["interruptions"].sum(axis=1))
    done = out["finished"]
    np.testing.assert_allclose(out["progress_hours"][done], inputs.work_hours, rtol=1e-12)
    assert (out["progress_hours"][~done] <= inputs.work_hours * (1 + 1e-12)).all()


def _disagreements(a, b) -> list[str]:
    bad = disagreements(a, b)
    found = mean_disagreement("power_swings", a["power_swings"], b["power_swings"])
    return bad + ([found] if found else [])


@pytest.mark.parametrize("name", sorted(MANY))
def test_reduced_pool_path_matches_the_pool_path_in_distribution(name):
    inputs, _ = kernel_inputs(MANY[name], None, N_TRIALS)
    assert _kernels.pool_reduced_applies(inputs.maint_rate, inputs.n_spares)
    fast, stats = _run_reduced(inputs, seed=11)
    slow = _run(_kernels._block_pool, inputs, seed=12)
    assert _disagreements(fast, slow) == []
    _check_accounting(fast, inputs)
    taken, handed = stats
    total = fast["events"].sum()
    # the reduction takes nearly all failures: the last few before the job's end (where
    # the bound cannot exclude the last segment), the cap or the budget go one by one
    assert taken > 0.95 * total
    if name == "near_cap":  # the cap falls in both: some trials finish, some do not
        assert 0.05 < fast["finished"].mean() < 0.95
        assert (fast["wall_hours"][~fast["finished"]] == inputs.cap_hours).any()
    if name == "event_budget":
        assert (fast["events"][~fast["finished"]] == 150).all()
        assert (~fast["finished"]).mean() > 0.5
    if name in ("waits", "empty_pool", "near_cap"):
        assert fast["lost_hours"][:, _kernels.SPARE_WAIT].mean() > 0.5  # waits happen
    if name == "ample_pool":
        assert (fast["lost_hours"][:, _kernels.SPARE_WAIT] == 0).all()
    # every trial that did not stop in a recovery at the cap handed over to the one-by-one
    # loop (the job's end is always taken there)
    assert handed >= fast["finished"].sum()


@pytest.mark.parametrize(
    "change",
    [dict(repair_hours=5.5), dict(detection_hours=("node", 0.022))],
    ids=["repairs_10pct_longer", "node_detection_10pct_longer"],
)
def test_negative_control_the_comparison_sees_a_ten_percent_change(change):
    base = MANY["waits"]
    if "repair_hours" in change:
        wrong = _with_policy(base, **change)
    else:
        cat, hours = change["detection_hours"]
        cats = tuple(
            dataclasses.replace(c, detection_hours=hours) if c.name == cat else c
            for c in base.failures.categories
        )
        wrong = dataclasses.replace(
            base, failures=dataclasses.replace(base.failures, categories=cats)
        )
    fast, _ = _run_reduced(kernel_inputs(base, None, N_TRIALS)[0], seed=11)
    slow = _run(_kernels._block_pool, kernel_inputs(wrong, None, N_TRIALS)[0], seed=12)
    bad = _disagreements(fast, slow)
    if "repair_hours" in change:
        assert any(b.startswith("lost_spare_wait") for b in bad), bad
    else:
        assert any(b.startswith("lost_detection") for b in bad), bad


def test_llama3_scale_matches_the_pool_path():
    # the benchmark's row: Llama 3 rates at 100k GPUs, 96 spares, 72 h exponential repairs,
    # no planned maintenance (~6,300 failures per trial)
    fm = dataclasses.replace(default_failures(), maintenance_rate=0.0)
    sc = Scenario(
        cluster=Cluster(n_gpus=100_000),
        failures=fm,
        job=Job(54 * 24.0),
        policy=Policy(
            checkpoint_interval=0.5,
            snapshot_hours=1 / 60,
            restart_hours=1 / 6,
            swap_hours=0.25,
            n_spares=96,
            repair_hours=72.0,
        ),
    )
    inputs, _ = kernel_inputs(sc, None, 400)
    fast, stats = _run_reduced(inputs, seed=21)
    slow = _run(_kernels._block_pool, inputs, seed=22)
    assert _disagreements(fast, slow) == []
    assert stats[0] > 0.99 * fast["events"].sum()
    assert fast["lost_hours"][:, _kernels.SPARE_WAIT].mean() > 10.0


@pytest.mark.parametrize("name", ["waits", "near_cap", "event_budget", "few"])
def test_without_blocks_the_outputs_are_the_general_paths_bit_for_bit(name):
    # use_blocks=False is the pool path one event at a time (_block_pool calls it so): the
    # general path's draws and arithmetic, so its outputs exactly
    inputs, _ = kernel_inputs(MANY[name], None, 300)
    out, stats = _run_reduced(inputs, seed=5, use_blocks=False)
    general = _run(_kernels._block_general, inputs, seed=5)
    assert [k for k in TIMELINE if not np.array_equal(out[k], general[k])] == []
    assert stats[0] == 0 and stats[1] == 0


def test_simulate_block_takes_the_reduction_without_maintenance_only():
    inputs, _ = kernel_inputs(MANY["waits"], None, 300)
    full = _run(_kernels.simulate_block, inputs, seed=3)
    reduced, _ = _run_reduced(inputs, seed=3)
    assert [k for k in TIMELINE if not np.array_equal(full[k], reduced[k])] == []
    assert not _kernels.pool_reduced_applies(0.1, 8)  # planned maintenance: one by one
    assert not _kernels.pool_reduced_applies(0.0, -1)  # unlimited spares: the renewal path
    assert _kernels.pool_reduced_applies(0.0, 0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=pool_scenarios(), seed=st.integers(0, 2**32 - 1))
def test_invariants_on_random_scenarios(sc, seed):
    sc = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, maintenance_rate=0.0))
    inputs, _ = kernel_inputs(sc, None, 40)
    out, stats = _run_reduced(inputs, seed)
    _check_accounting(out, inputs)
    assert stats[0] <= out["events"].sum()


def test_reduced_pool_path_matches_the_oracle():
    # against the slow event-by-event oracle, written apart from the kernel (a list of
    # repairs instead of a count and the next completion), on a scenario the reduction takes
    # nearly whole: ~70 failures per trial, most swaps wait
    sc = _scenario(SWAPS, **{**_MANY, "n_gpus": 512, "work": 30.0, "checkpoint_interval": 0.25})
    inputs, _ = kernel_inputs(sc, None, 1500)
    fast, stats = _run_reduced(inputs, seed=31)
    assert stats[0] > 0.9 * fast["events"].sum()
    assert fast["lost_hours"][:, _kernels.SPARE_WAIT].mean() > 1.0
    slow = simulate_reference(inputs, np.random.default_rng(32))
    assert disagreements(fast, slow) == []
    # negative control: the oracle with repairs 10 % longer is told apart
    wrong, _ = kernel_inputs(_with_policy(sc, repair_hours=5.5), None, 1500)
    bad = disagreements(fast, simulate_reference(wrong, np.random.default_rng(32)))
    assert any(b.startswith("lost_spare_wait") for b in bad), bad
