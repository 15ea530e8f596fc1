"""The numba kernel and simulate(): closed forms, invariants, determinism, scale, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

from relmc.analytic import daly_expected_wall
from relmc.errors import UnreadFieldWarning
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario
from relmc.sim import CAUSES
from relmc.sim.simulate import simulate
from relmc.summary import summarize


def daly_scenario(mtbf, tau=0.5, delta=0.05, restart=0.2, work=20.0):
    """One exponential category, no detection latency, restart only: Daly is exact.

    The wall cap is lifted far beyond Daly's mean so no trial is truncated.
    """
    fm = FailureModel((Category("only", rate=1.0 / mtbf, unit="job"),))
    pol = Policy(
        checkpoint_interval=tau,
        snapshot_hours=delta,
        restart_hours=restart,
        wall_cap_factor=1e6,
        max_events=10**8,
    )
    return Scenario(cluster=Cluster(n_gpus=8), failures=fm, job=Job(work), policy=pol)


def full_scenario(n_gpus=4096, n_spares=2, work=40.0, **policy):
    """Every feature on: several units, hangs, swaps, finite spares, maintenance, persist."""
    cats = (
        Category("gpu", rate=2e-5, unit="gpu", recovery="swap"),
        Category("node", rate=4e-5, unit="node", recovery="swap", detection_hours=0.05),
        Category("hang", rate=5e-6, unit="gpu", detection_hours=1 / 6),
        Category("bug", rate=0.02, unit="job"),
        Category("rack", rate=1e-4, unit="rack", recovery="swap"),
    )
    fm = FailureModel(cats, maintenance_rate=0.05, maintenance_hours=0.1)
    kw = dict(
        checkpoint_interval=0.5,
        snapshot_hours=1 / 60,
        persist_hours=0.1,
        restart_hours=1 / 6,
        swap_hours=0.25,
        n_spares=n_spares,
        repair_hours=6.0,
    )
    kw.update(policy)
    return Scenario(cluster=Cluster(n_gpus=n_gpus), failures=fm, job=Job(work), policy=Policy(**kw))


# MTBF from 10x down to 0.1x the segment length tau + delta = 0.55 h. At 0.1x a segment needs
# e^10 ~ 22,000 attempts, so that regime uses a one-segment job, a shorter restart (else each
# attempt costs e^{R/M} ~ 38 restarts) and fewer trials.
@pytest.mark.parametrize(
    ("ratio", "work", "restart", "n"),
    [
        (10, 20.0, 0.2, 20_000),
        (3, 20.0, 0.2, 20_000),
        (1, 20.0, 0.2, 20_000),
        (0.3, 20.0, 0.2, 20_000),
        (0.1, 0.5, 0.02, 2000),
    ],
)
def test_mean_wall_matches_daly_exact(ratio, work, restart, n):
    mtbf = 0.55 * ratio
    sc = daly_scenario(mtbf, work=work, restart=restart)
    ds = simulate(sc, n_trials=n, seed=11, n_threads=2)
    assert bool(ds.finished.all())
    exact = daly_expected_wall(work, 0.5, 0.05, restart, mtbf)
    mean = float(ds.wall_hours.mean())
    se = float(ds.wall_hours.std(ddof=1)) / math.sqrt(n)
    # 4 standard errors: a correct kernel fails one regime with probability ~6e-5
    assert abs(mean - exact) < 4 * se, (mean, exact, se)


def test_daly_negative_control_detects_missing_restart_term():
    # the same check against Daly *without* the restart factor e^{R/M} must fail: the test above
    # has the power to see a wrong restart model
    mtbf, n = 0.55, 20_000
    ds = simulate(daly_scenario(mtbf), n_trials=n, seed=11, n_threads=1)
    wrong = mtbf * (math.exp(0.55 / mtbf) - 1) * 20.0 / 0.5
    se = float(ds.wall_hours.std(ddof=1)) / math.sqrt(n)
    assert abs(float(ds.wall_hours.mean()) - wrong) > 4 * se


def test_accounting_identity_every_trial():
    ds = simulate(full_scenario(), n_trials=3000, seed=3)
    total = ds.progress_hours + ds.lost_hours.sum("cause")
    np.testing.assert_allclose(total, ds.wall_hours, rtol=1e-10, atol=1e-9)
    fin = ds.finished.values
    np.testing.assert_allclose(ds.progress_hours.values[fin], 40.0, rtol=1e-12)
    np.testing.assert_allclose(ds.ettr.values[fin], 40.0 / ds.wall_hours.values[fin])
    assert (ds.lost_hours >= 0).all()
    # slowdown needs a diurnal throughput cycle (tests/test_physics.py); diagnosis and
    # preemption the node model (tests/test_nodes_kernel.py), straggler a straggler category
    # (tests/test_physics_sdc.py); every other cause occurs here
    absent = ("slowdown", "diagnosis", "preemption", "straggler")
    for cause in CAUSES:
        if cause in absent:
            assert float(abs(ds.lost_hours.sel(cause=cause)).max()) == 0.0
            continue
        assert float(ds.lost_hours.sel(cause=cause).sum()) > 0, cause


def test_no_failures_costs_exactly_checkpoints():
    fm = FailureModel((Category("none", rate=0.0),))
    pol = Policy(checkpoint_interval=0.3, snapshot_hours=0.01, persist_hours=0.2)
    sc = Scenario(cluster=Cluster(n_gpus=64), failures=fm, job=Job(10.0), policy=pol)
    ds = simulate(sc, n_trials=5, seed=0)
    n_seg = math.ceil(10.0 / 0.3)  # 34 segments, the last one 0.1 h of compute
    np.testing.assert_allclose(ds.wall_hours, 10.0 + n_seg * 0.01 + 0.2, rtol=1e-12)
    assert int(ds.interruptions.sum()) == 0


def test_maintenance_only_loses_no_work():
    fm = FailureModel((Category("none", rate=0.0),), maintenance_rate=0.5, maintenance_hours=0.2)
    sc = Scenario(failures=fm, job=Job(30.0), policy=Policy(persist_hours=0.05))
    ds = simulate(sc, n_trials=2000, seed=1)
    assert float(ds.lost_hours.sel(cause="rework").max()) == 0.0
    # planned events at 0.5/h while exposed: the compute, snapshots and restarts take
    # 30 + 61/60 + 0.17 n h, so E[n] solves n = 0.5 (31.02 + 0.167 n), n = 16.9; 4 SE of the
    # mean of 2000 Poisson-like counts is ~0.4
    assert abs(float(ds.maintenance_events.mean()) - 0.5 * 31.0167 / (1 - 0.5 / 6)) < 0.4
    per_event = ds.lost_hours.sel(cause="maintenance") / ds.maintenance_events.where(
        ds.maintenance_events > 0
    )
    np.testing.assert_allclose(per_event.dropna("trial"), 0.2)


def test_finite_spares_cause_waits_and_unlimited_does_not():
    few = simulate(full_scenario(n_spares=0), n_trials=500, seed=2)
    with pytest.warns(UnreadFieldWarning, match="repair_hours = 6 has no effect"):
        many = simulate(full_scenario(n_spares=None), n_trials=500, seed=2)  # repairs unread
    # with no spares every swap waits a whole repair (mean 6 h); ~1.2 hardware failures per
    # trial make the mean wait several hours, far from 0
    assert float(few.lost_hours.sel(cause="spare_wait").mean()) > 1.0
    assert float(many.lost_hours.sel(cause="spare_wait").max()) == 0.0


def test_same_seed_identical_different_seed_different_threads_identical():
    sc = full_scenario()
    a = simulate(sc, n_trials=1500, seed=42, n_threads=1)
    b = simulate(sc, n_trials=1500, seed=42, n_threads=2)
    c = simulate(sc, n_trials=1500, seed=43, n_threads=2)
    xr.testing.assert_identical(a, b)
    assert not np.array_equal(a.wall_hours.values, c.wall_hours.values)
    # a SeedSequence is not consumed: passing the same one twice gives the same result
    ss = np.random.SeedSequence(7)
    xr.testing.assert_identical(
        simulate(sc, n_trials=300, seed=ss), simulate(sc, n_trials=300, seed=ss)
    )


def test_prefix_of_trials_does_not_depend_on_total():
    # trial i's randomness depends only on its block, so the first blocks are shared
    sc = full_scenario()
    small = simulate(sc, n_trials=512, seed=9)
    large = simulate(sc, n_trials=2048, seed=9)
    np.testing.assert_array_equal(small.wall_hours, large.wall_hours[:512])


def test_interruptions_scale_linearly_with_gpus():
    # gpu-unit rate only, no checkpoint/restart overhead worth speaking of: the count over a
    # fixed exposure is Poisson(rate * N * exposure)
    fm = FailureModel((Category("g", rate=1e-6, unit="gpu"),))
    pol = Policy(checkpoint_interval=0.5, snapshot_hours=0.0, restart_hours=0.0)
    means = []
    for n in (2048, 16384, 131072):
        sc = Scenario(cluster=Cluster(n_gpus=n), failures=fm, job=Job(100.0), policy=pol)
        ds = simulate(sc, n_trials=4000, seed=5)
        # exposure is the wall time (failures strike during rework too), so divide by it
        means.append(float(ds.interruptions.sum() / ds.wall_hours.sum()))
    expected = np.array([2048, 16384, 131072]) * 1e-6
    # 4 SE of a Poisson rate estimated from >= 4000*100 h of exposure
    se = np.sqrt(expected / (4000 * 100.0))
    assert np.all(np.abs(np.array(means) - expected) < 4 * se), (means, expected)


def test_one_million_gpus_runs_and_flags_hopeless_trials():
    cats = (Category("g", rate=2e-5, unit="gpu", recovery="swap"),)
    sc = Scenario(
        cluster=Cluster(n_gpus=1_000_000),
        failures=FailureModel(cats),
        job=Job(1296.0),
        policy=Policy(wall_cap_factor=2.0),
    )
    ds = simulate(sc, n_trials=20, seed=1)
    # MTBF 0.05 h vs 0.53 h segments: e^{10} expected attempts per segment, hopeless
    assert not bool(ds.finished.any())
    np.testing.assert_allclose(ds.wall_hours, 2.0 * 1296.0)
    assert float(ds.progress_hours.max()) < 1296.0


def test_event_cap_ends_runaway_scenario():
    # restarts take 1 h and failures come every 3.6 s: the wall cap is ~1e7 events away
    cats = (Category("g", rate=1000.0, unit="job"),)
    sc = Scenario(
        failures=FailureModel(cats),
        job=Job(100.0),
        policy=Policy(restart_hours=1.0, max_events=10_000),
    )
    ds = simulate(sc, n_trials=4, seed=1)
    assert not bool(ds.finished.any())
    assert (ds.events == 10_000).all()
    np.testing.assert_allclose(ds.progress_hours + ds.lost_hours.sum("cause"), ds.wall_hours)


def test_posterior_draws_cycle_over_trials():
    fm = FailureModel((Category("a", rate=0.1, unit="job"), Category("b", rate=0.1, unit="job")))
    sc = Scenario(failures=fm, job=Job(10.0))
    draws = xr.DataArray(
        [[[0.0, 1.0], [2.0, 0.0], [0.0, 0.0]]],
        dims=("chain", "draw", "category"),
        coords={"category": ["b", "a"], "unit": ("category", ["job", "job"])},
    )
    ds = simulate(sc, rates=draws, n_trials=9, seed=0)
    np.testing.assert_array_equal(ds.draw, np.arange(9) % 3)
    # categories are matched by name (the posterior lists b first): draw 0 has only a
    # failing, draw 1 only b, draw 2 nothing
    inter = ds.interruptions
    assert int(inter.sel(category="b").isel(trial=[0, 3, 6]).sum()) == 0
    assert int(inter.sel(category="a").isel(trial=[0, 3, 6]).sum()) > 0
    assert int(inter.sel(category="a").isel(trial=[1, 4, 7]).sum()) == 0
    assert int(inter.sel(category="b").isel(trial=[1, 4, 7]).sum()) > 0
    assert int(inter.isel(trial=[2, 5, 8]).sum()) == 0


def test_summarize_means_and_standard_errors():
    ds = simulate(daly_scenario(1.0), n_trials=4000, seed=4)
    s = summarize(ds)
    assert float(s.wall_hours_mean) == pytest.approx(float(ds.wall_hours.mean()))
    assert float(s.wall_hours_se) == pytest.approx(float(ds.wall_hours.std(ddof=1)) / 4000**0.5)
    assert s.lost_hours_quantile.dims == ("cause", "quantile")  # quantile last everywhere
    assert float(s.finished_fraction) == 1.0
    assert int(s.n_trials) == 4000


def test_result_round_trips_through_netcdf(tmp_path):
    ds = simulate(full_scenario(), n_trials=300, seed=8)
    path = tmp_path / "run.nc"
    ds.to_netcdf(path)
    back = xr.open_dataset(path).load()
    xr.testing.assert_identical(ds, back)
    assert Scenario.from_dict(__import__("json").loads(back.attrs["scenario"])) == full_scenario()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_trials": 0}, "n_trials"),
        ({"n_trials": 2.5}, "n_trials"),
        ({"n_threads": 0}, "n_threads"),
        ({"seed": -1}, "seed"),
        ({"seed": "abc"}, "seed"),
        ({"rates": {"gpu": float("nan")}}, "rates"),
        ({"rates": {"gpu": float("inf")}}, "rates"),
        ({"rates": {"gpu": -1.0}}, "rates"),
        ({"rates": {"nope": 1.0}}, "unknown categories"),
        ({"rates": 3.0}, "rates must be"),
    ],
)
def test_bad_simulate_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate(full_scenario(), **{"n_trials": 10, **kwargs})


def test_posterior_with_other_units_is_refused():
    fm = FailureModel((Category("a", rate=0.1, unit="gpu"),))
    draws = xr.DataArray(
        [[0.1]],
        dims=("draw", "category"),
        coords={"category": ["a"], "unit": ("category", ["node"])},
    )
    with pytest.raises(ValueError, match="per node-hour"):
        simulate(Scenario(failures=fm), rates=draws, n_trials=2)


def test_tiny_interval_is_rejected_not_overflowed():
    sc = Scenario(
        failures=FailureModel((Category("none", rate=0.0),)),
        policy=Policy(checkpoint_interval=1e-17),
    )
    with pytest.raises(ValueError, match="policy.checkpoint_interval"):
        simulate(sc, n_trials=1)


def test_overflowing_cluster_rate_is_rejected():
    sc = Scenario(failures=FailureModel((Category("huge", rate=1e305, unit="gpu"),)))
    with pytest.raises(ValueError, match="'huge' overflows"):
        simulate(sc, n_trials=1)


def test_infinite_cap_is_rejected():
    sc = Scenario(
        failures=FailureModel((Category("none", rate=0.0),)),
        job=Job(1e300),
        policy=Policy(wall_cap_factor=1e10, checkpoint_interval=1e290),
    )
    with pytest.raises(ValueError, match="wall_cap_factor"):
        simulate(sc, n_trials=1)


def test_planned_events_after_last_compute_do_not_loop():
    # 1e11 planned events per hour and a final snapshot of 1 minute: deferring them one by one
    # would take ~1.7e9 draws per trial; they are suppressed in one step instead, and every
    # trial ends within its event budget
    fm = FailureModel((Category("none", rate=0.0),), maintenance_rate=1e11)
    pol = Policy(checkpoint_interval=1e-6, restart_hours=0.0, max_events=10)
    ds = simulate(Scenario(failures=fm, job=Job(1e-9), policy=pol), n_trials=20, seed=1)
    assert (ds.events <= 10).all()
    np.testing.assert_allclose(ds.progress_hours + ds.lost_hours.sum("cause"), ds.wall_hours)


def test_deferred_planned_event_without_failures_still_stops_at_the_cap():
    # no failure rate, frequent planned events and the cap inside the final snapshot: a
    # planned event there is deferred, and the trial must stop at the cap, not finish past it
    fm = FailureModel((Category("none", rate=0.0),), maintenance_rate=2.0)
    pol = Policy(
        checkpoint_interval=1.0, snapshot_hours=0.5, persist_hours=0.5, restart_hours=0.0,
        wall_cap_factor=1.6,
    )  # fmt: skip
    ds = simulate(Scenario(failures=fm, job=Job(1.0), policy=pol), n_trials=2000, seed=1)
    assert float(ds.wall_hours.max()) <= 1.6
    assert not ds.finished.any()  # W + delta + persist = 2 h > cap: none can finish


def test_nan_in_posterior_draws_is_rejected():
    fm = FailureModel((Category("a", rate=0.1, unit="job"),))
    draws = xr.DataArray([[0.1], [np.nan]], dims=("draw", "category"), coords={"category": ["a"]})
    with pytest.raises(ValueError, match="rates\\['a'\\] must be finite"):
        simulate(Scenario(failures=fm), rates=draws, n_trials=2)


def test_block_args_are_the_inputs_and_views_of_the_blocks_rows():
    """``block_args``: the kernel's arguments for a block, the inputs looked up once.

    In ``KERNEL_PARAMETERS`` order: every input field is the inputs' own object but
    ``draw_of_trial``, which is the block's rows; every output a view of the block's rows
    of ``out`` (so the kernel fills ``out``); equal to ``kernel_args`` block by block.
    Negative control: a block's view of ``out`` shares no memory with the next block's.
    """
    from dataclasses import fields

    from relmc.sim.inputs import (
        KERNEL_PARAMETERS,
        OUTPUTS,
        KernelInputs,
        allocate_outputs,
        block_args,
        kernel_args,
    )
    from relmc.sim.simulate import kernel_inputs

    inputs = kernel_inputs(Scenario.default(), None, 10)[0]
    out = allocate_outputs(10, inputs.n_categories)
    args = block_args(inputs, out)
    names = KERNEL_PARAMETERS[1:]
    n_in = len(fields(KernelInputs))
    for lo, hi in ((0, 4), (4, 10), (8, 12)):
        got = dict(zip(names, args(slice(lo, hi)), strict=True))
        ref = dict(zip(names, kernel_args(inputs, out, slice(lo, hi)), strict=True))
        for name in names[:n_in]:
            value = getattr(inputs, name)
            if name == "draw_of_trial":
                np.testing.assert_array_equal(got[name], value[lo:hi])
            else:
                assert got[name] is value, name
        for key, name, _, _ in OUTPUTS:
            view = got[name]
            assert view.shape == out[key][lo:hi].shape and view.base is out[key], name
            assert np.shares_memory(view, out[key][lo:hi]) and np.shares_memory(view, ref[name])
            if hi < 10:
                assert not np.shares_memory(view, out[key][hi:]), name
