"""The event-by-event oracle against closed forms, exact identities and martingale checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relmc import analytic
from relmc.sim import CAUSES
from relmc.sim.inputs import KernelInputs
from relmc.sim.reference import NODE_COUNTS, simulate_reference

CAUSE = {c: i for i, c in enumerate(CAUSES)}


def make_inputs(
    rates=(), *, n_trials=100, detect=None, swap=None, cat_rate=None, draw_of_trial=None, **kw
) -> KernelInputs:
    rates = np.atleast_2d(np.asarray(rates, dtype=float)) if cat_rate is None else cat_rate
    if rates.size == 0:
        rates = np.zeros((1, 0))
    n_cat = rates.shape[1]
    args = dict(
        maint_rate=0.0,
        maint_hours=0.0,
        work_hours=4.0,
        tau=1.0,
        delta=0.1,
        persist=0.0,
        restart_hours=0.2,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=0.0,
        cap_hours=math.inf,
    )
    args.update(kw)
    return KernelInputs(
        cat_rate=rates,
        draw_of_trial=(
            np.zeros(n_trials, dtype=np.int64) if draw_of_trial is None else draw_of_trial
        ),
        detect_hours=np.zeros(n_cat) if detect is None else np.asarray(detect, dtype=float),
        swap=np.zeros(n_cat, dtype=bool) if swap is None else np.asarray(swap, dtype=bool),
        **args,
    )


def z_score(samples) -> float:
    """(mean - 0) / standard error of a sample whose expectation should be zero."""
    samples = np.asarray(samples, dtype=float)
    return samples.mean() / (samples.std(ddof=1) / math.sqrt(samples.size))


def check_identity(out, x: KernelInputs) -> None:
    n, k = x.n_trials, x.n_categories
    assert out["wall_hours"].shape == (n,) and out["wall_hours"].dtype == np.float64
    assert out["finished"].shape == (n,) and out["finished"].dtype == bool
    assert out["progress_hours"].shape == (n,) and out["progress_hours"].dtype == np.float64
    assert out["interruptions"].shape == (n, k) and out["interruptions"].dtype == np.int64
    assert out["maintenance_events"].shape == (n,)
    assert out["maintenance_events"].dtype == np.int64
    assert out["lost_hours"].shape == (n, len(CAUSES))
    assert out["lost_hours"].dtype == np.float64
    # wall == progress + lost, up to rounding of sums of O(cap) hours: 1e-9 relative is ample
    np.testing.assert_allclose(
        out["wall_hours"], out["progress_hours"] + out["lost_hours"].sum(axis=1), rtol=1e-9
    )
    assert np.all(out["lost_hours"] >= -1e-12)
    assert np.all(out["progress_hours"] >= 0) and np.all(out["progress_hours"] <= x.work_hours)
    assert np.all(out["progress_hours"][out["finished"]] == x.work_hours)
    events = out["interruptions"].sum(axis=1) + out["maintenance_events"]
    assert np.all(events <= x.max_events)
    stopped = ~out["finished"]
    assert np.all((out["wall_hours"][stopped] == x.cap_hours) | (events[stopped] == x.max_events))
    assert np.all(out["wall_hours"] <= x.cap_hours)


# ---- Daly's exact formula ----------------------------------------------------------------

# tau + delta = 1.1 h; MTBF 10x, 1x and 0.3x the segment length. W = 4 segments except the
# hardest regime (~50 failures per segment), kept to 3 so the whole file runs in seconds.
DALY_REGIMES = [(11.0, 4.0, 3000), (1.1, 4.0, 3000), (0.33, 3.0, 1500)]


def daly_run(mtbf, work, n_trials, seed):
    x = make_inputs([1.0 / mtbf], n_trials=n_trials, work_hours=work)
    out = simulate_reference(x, np.random.default_rng(seed))
    assert out["finished"].all()
    return x, out


@pytest.mark.parametrize(("mtbf", "work", "n_trials"), DALY_REGIMES)
def test_mean_wall_matches_daly_within_4_se(mtbf, work, n_trials):
    x, out = daly_run(mtbf, work, n_trials, seed=20240611)
    exact = analytic.daly_expected_wall(work, x.tau, x.delta, x.restart_hours, mtbf)
    # 4 standard errors: a correct simulation fails this with probability ~6e-5 per regime
    assert abs(z_score(out["wall_hours"] - exact)) < 4


def test_daly_negative_control_without_restart_term_fails():
    # Dropping e^{R/M} (failures during restarts) is 18% low at M = 1.1 h, R = 0.2 h; the
    # same 4-SE check must reject it or the check has no power.
    mtbf, work, n_trials = DALY_REGIMES[1]
    x, out = daly_run(mtbf, work, n_trials, seed=20240611)
    wrong = analytic.daly_expected_wall(work, x.tau, x.delta, 0.0, mtbf)
    assert abs(z_score(out["wall_hours"] - wrong)) > 4


def test_daly_remainder_segment():
    # W = 3.5 tau: three full segments and a half one, each followed by a checkpoint
    x = make_inputs([1.0 / 1.1], n_trials=3000, work_hours=3.5)
    out = simulate_reference(x, np.random.default_rng(7))
    exact = analytic.daly_expected_wall(3.5, x.tau, x.delta, x.restart_hours, 1.1)
    assert abs(z_score(out["wall_hours"] - exact)) < 4  # 4 SE, as above


# ---- exact and structural checks ---------------------------------------------------------


@pytest.mark.parametrize(
    ("work", "tau", "n_segments"),
    [(4.0, 1.0, 4), (3.5, 1.0, 4), (1.1, 0.1, 11), (0.3, 0.1, 3), (0.25, 1.0, 1)],
)
def test_zero_rates_cost_exactly_the_checkpoints(work, tau, n_segments):
    # 1.1 / 0.1 = 11.000000000000002: the segment tolerance must not add a 12th segment
    x = make_inputs(
        [0.0, 0.0], n_trials=5, work_hours=work, tau=tau, delta=0.03, persist=0.02, maint_rate=0.0
    )
    out = simulate_reference(x, np.random.default_rng(0))
    check_identity(out, x)
    assert out["finished"].all()
    np.testing.assert_allclose(out["wall_hours"], work + n_segments * 0.03 + 0.02, rtol=1e-12)
    np.testing.assert_allclose(
        out["lost_hours"][:, CAUSE["checkpoint"]], n_segments * 0.03 + 0.02, rtol=1e-12
    )
    assert np.all(np.delete(out["lost_hours"], CAUSE["checkpoint"], axis=1) == 0)
    assert np.all(out["interruptions"] == 0) and np.all(out["maintenance_events"] == 0)


def feature_rich(seed, n_trials=300, **kw):
    rng = np.random.default_rng(seed)
    n_cat = 5
    n_draws = 4
    rates = rng.uniform(0.0, 0.6, size=(n_draws, n_cat))
    rates[:, 2] = 0.0  # a category that never fires
    args = dict(
        maint_rate=0.15,
        maint_hours=0.7,
        work_hours=7.3,
        tau=0.9,
        delta=0.05,
        persist=0.4,
        restart_hours=0.15,
        swap_hours=0.3,
        n_spares=1,
        repair_hours=3.0,
        cap_hours=40.0,
    )
    args.update(kw)
    return make_inputs(
        cat_rate=rates,
        n_trials=n_trials,
        draw_of_trial=rng.integers(0, n_draws, size=n_trials),
        detect=rng.uniform(0.0, 0.2, size=n_cat),
        swap=np.array([True, False, True, False, True]),
        **args,
    )


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"n_spares": -1},
        {"n_spares": 0, "cap_hours": 25.0},
        {"persist": 0.9, "work_hours": 7.25},  # persist == tau; last segment shorter than persist
        {"persist": 0.0, "delta": 0.0, "restart_hours": 0.0},
    ],
)
def test_accounting_identity_on_feature_rich_inputs(kw):
    x = feature_rich(11, **kw)
    out = simulate_reference(x, np.random.default_rng(3))
    check_identity(out, x)
    assert np.all(out["interruptions"][:, 2] == 0)  # zero rate never fires
    assert out["finished"].any() and out["interruptions"].sum() > 0
    assert out["maintenance_events"].sum() > 0
    if x.n_spares < 0:
        assert np.all(out["lost_hours"][:, CAUSE["spare_wait"]] == 0)
        swaps = out["interruptions"][:, x.swap].sum(axis=1)
        done = out["finished"]  # a capped trial may stop in the middle of a swap
        np.testing.assert_allclose(
            out["lost_hours"][done, CAUSE["node_swap"]], swaps[done] * x.swap_hours
        )
    if x.persist == 0.0 and x.delta == 0.0 and x.restart_hours == 0.0:
        assert np.all(out["lost_hours"][:, [CAUSE["checkpoint"], CAUSE["restart"]]] == 0)


def test_same_seed_same_result():
    x = feature_rich(5, n_trials=50)
    a = simulate_reference(x, np.random.default_rng(9))
    b = simulate_reference(x, np.random.default_rng(9))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_hopeless_scenario_stops_at_cap():
    # MTBF 0.01 h against 1-h segments: practically never finishes
    x = make_inputs([100.0], n_trials=20, work_hours=5.0, cap_hours=12.5, restart_hours=0.0)
    out = simulate_reference(x, np.random.default_rng(1))
    check_identity(out, x)
    assert not out["finished"].any()
    assert np.all(out["wall_hours"] == 12.5)  # exactly at the cap, not past it
    assert np.all(out["progress_hours"] == 0.0)
    assert np.all(out["lost_hours"][:, CAUSE["rework"]] > 0)


def test_cap_mid_compute_counts_compute_as_rework():
    # no failures, cap 2.5 h into a 4-segment job: segments 1-2 durable (persist 0), the
    # half-done third segment is rework, two snapshots are checkpoint time
    x = make_inputs([0.0], n_trials=3, cap_hours=2.5, delta=0.1)
    out = simulate_reference(x, np.random.default_rng(0))
    check_identity(out, x)
    assert not out["finished"].any()
    np.testing.assert_allclose(out["progress_hours"], 2.0)
    np.testing.assert_allclose(out["lost_hours"][:, CAUSE["rework"]], 2.5 - 2.0 - 0.2)
    np.testing.assert_allclose(out["lost_hours"][:, CAUSE["checkpoint"]], 0.2)


def test_cap_during_persist_loses_undurable_segment():
    # persist 0.5: at cap 1.3 the first snapshot (ends 1.1, durable 1.6) is not yet durable
    x = make_inputs([0.0], n_trials=2, cap_hours=1.3, delta=0.1, persist=0.5)
    out = simulate_reference(x, np.random.default_rng(0))
    check_identity(out, x)
    np.testing.assert_allclose(out["progress_hours"], 0.0)
    np.testing.assert_allclose(out["lost_hours"][:, CAUSE["rework"]], 1.2)


def test_finishing_exactly_at_cap_is_finished():
    x = make_inputs([0.0], n_trials=2, work_hours=2.0, delta=0.25, cap_hours=2.5)
    out = simulate_reference(x, np.random.default_rng(0))
    assert out["finished"].all() and np.all(out["wall_hours"] == 2.5)


def test_maintenance_only_loses_no_work():
    # restart 0 so that maintenance cannot strike during a restart (which takes no checkpoint)
    delta, persist, mh = 0.1, 0.3, 0.5
    x = make_inputs(
        [0.0],
        n_trials=400,
        maint_rate=0.8,
        maint_hours=mh,
        delta=delta,
        persist=persist,
        restart_hours=0.0,
        work_hours=5.0,
    )
    out = simulate_reference(x, np.random.default_rng(4))
    check_identity(out, x)
    k = out["maintenance_events"]
    lost = out["lost_hours"]
    assert out["finished"].all() and k.sum() > 100
    assert np.all(lost[:, CAUSE["rework"]] == 0)
    assert np.all(lost[:, CAUSE["restart"]] == 0)
    np.testing.assert_allclose(lost[:, CAUSE["maintenance"]], k * mh, rtol=1e-12)
    # 5 h of compute in pieces of <= tau, each closed by a snapshot or a fresh checkpoint
    # (>= delta), plus persist per fresh checkpoint and for the final persist wait
    assert np.all(lost[:, CAUSE["checkpoint"]] >= 5 * delta + (k + 1) * persist - 1e-9)


def test_maintenance_after_last_compute_is_deferred():
    # compute takes 1e-6 h, the final snapshot and persist 5 h each, maintenance every hour on
    # average: a maintenance clock running after the last compute would fire in ~all trials
    x = make_inputs(
        [0.0], n_trials=200, work_hours=1e-6, tau=20.0, delta=5.0, persist=5.0, maint_rate=1.0
    )
    out = simulate_reference(x, np.random.default_rng(2))
    check_identity(out, x)
    assert np.all(out["maintenance_events"] == 0)  # P(any event in 1e-6 h x 200) ~ 2e-4
    np.testing.assert_allclose(out["wall_hours"], 1e-6 + 5.0 + 5.0, rtol=1e-12)


def test_failure_in_final_persist_loses_last_segment():
    # one segment; a failure can only strike while the final persist is waited for
    # (compute+snapshot 2e-6 h): every failed trial reworks its whole W
    x = make_inputs(
        [0.2], n_trials=200, work_hours=1e-6, tau=20.0, delta=1e-6, persist=10.0, restart_hours=0
    )
    out = simulate_reference(x, np.random.default_rng(2))
    check_identity(out, x)
    failed = out["interruptions"][:, 0]
    assert failed.sum() > 100
    np.testing.assert_allclose(out["lost_hours"][:, CAUSE["rework"]], failed * 1e-6, rtol=1e-6)


# ---- martingale checks: clocks run only while exposed ------------------------------------


PAUSED = [CAUSE["detection"], CAUSE["node_swap"], CAUSE["spare_wait"], CAUSE["maintenance"]]


@pytest.mark.parametrize(
    "kw",
    [
        # exposed in restarts; checkpoints free, so every non-exposed hour is a paused cause
        {"delta": 0.0, "persist": 0.0, "restart_hours": 0.15},
        # maintenance checkpoints unexposed, final persist exposed; restart 0 so that every
        # maintenance event takes a fresh checkpoint (events during a restart take none)
        {"restart_hours": 0.0},
    ],
)
def test_failure_count_matches_rate_times_exposed_time(kw):
    # N_c(t) - lam_c * exposed(t) is a martingale, so E[N_c] = lam_c E[exposed] at the job's
    # end (a stopping time). Failures are not exposed during detection, node swap, spare
    # wait, maintenance downtime and maintenance checkpoints. 4 SE at 1500 trials.
    x = feature_rich(21, n_trials=1500, cap_hours=math.inf, maint_rate=0.4, **kw)
    out = simulate_reference(x, np.random.default_rng(8))
    check_identity(out, x)
    paused = out["lost_hours"][:, PAUSED].sum(axis=1)
    exposed = out["wall_hours"] - paused - out["maintenance_events"] * (x.delta + x.persist)
    lam = x.cat_rate[x.draw_of_trial]
    for c in (0, 1, 3, 4):
        assert abs(z_score(out["interruptions"][:, c] - lam[:, c] * exposed)) < 4
    # negative control: counting the paused time as exposed must be rejected
    assert abs(z_score(out["interruptions"][:, 0] - lam[:, 0] * out["wall_hours"])) > 4


def test_maintenance_count_matches_rate_times_exposed_time_with_failures():
    # as above for the maintenance clock, with free checkpoints (no maintenance checkpoint
    # or final persist time to subtract) and restarts exposed. 4 SE at 1500 trials.
    x = feature_rich(22, n_trials=1500, cap_hours=math.inf, maint_rate=0.4, delta=0.0, persist=0.0)
    out = simulate_reference(x, np.random.default_rng(8))
    check_identity(out, x)
    k = out["maintenance_events"]
    exposed = out["wall_hours"] - out["lost_hours"][:, PAUSED].sum(axis=1)
    assert abs(z_score(k - x.maint_rate * exposed)) < 4


def test_maintenance_count_excludes_checkpoints_and_final_persist():
    # no failures: maintenance is unexposed during its own checkpoints, its downtime, the
    # final snapshot and the final persist wait. Restart 0 so every event takes a fresh
    # checkpoint. 4 SE at 1500 trials.
    delta, persist, mh = 0.1, 0.6, 0.5
    x = make_inputs(
        [0.0],
        n_trials=1500,
        work_hours=3.0,
        maint_rate=1.5,
        maint_hours=mh,
        delta=delta,
        persist=persist,
        restart_hours=0.0,
    )
    out = simulate_reference(x, np.random.default_rng(6))
    check_identity(out, x)
    k = out["maintenance_events"]
    lost_m = out["lost_hours"][:, CAUSE["maintenance"]]
    exposed = out["wall_hours"] - lost_m - k * (delta + persist) - (delta + persist)
    assert abs(z_score(k - x.maint_rate * exposed)) < 4
    # negative control: a maintenance clock running through the final persist is rejected
    assert abs(z_score(k - x.maint_rate * (exposed + persist))) > 4


def test_spare_wait_with_no_spares_is_one_repair_per_swap():
    # n_spares = 0: each swap failure waits for its own node's repair, mean repair_hours
    # (wall-clock repair, nothing else in the list), so E[spare_wait] = repair * E[N_swap].
    x = feature_rich(23, n_trials=1500, cap_hours=math.inf, n_spares=0)
    out = simulate_reference(x, np.random.default_rng(5))
    check_identity(out, x)
    n_swap = out["interruptions"][:, x.swap].sum(axis=1)
    assert abs(z_score(out["lost_hours"][:, CAUSE["spare_wait"]] - x.repair_hours * n_swap)) < 4
    np.testing.assert_allclose(out["lost_hours"][:, CAUSE["node_swap"]], n_swap * x.swap_hours)


def test_many_spares_never_wait():
    x = feature_rich(24, n_trials=200, n_spares=1000)
    out = simulate_reference(x, np.random.default_rng(5))
    check_identity(out, x)
    assert np.all(out["lost_hours"][:, CAUSE["spare_wait"]] == 0)


# ---- max_events ---------------------------------------------------------------------------


def test_max_events_stops_at_the_event():
    # max_events = 1: the trial stops unfinished at its first failure, an Exp(1)-distributed
    # time (the job needs 100 h). 4 SE at 2000 trials.
    x = make_inputs([1.0], n_trials=2000, work_hours=100.0, max_events=1, persist=0.0)
    out = simulate_reference(x, np.random.default_rng(12))
    check_identity(out, x)
    assert not out["finished"].any()
    assert np.all(out["interruptions"][:, 0] == 1)
    assert abs(z_score(out["wall_hours"] - 1.0)) < 4
    # nothing but compute, snapshots and rework happened before the stop
    others = np.delete(out["lost_hours"], [CAUSE["rework"], CAUSE["checkpoint"]], axis=1)
    assert np.all(others == 0)


def test_max_events_counts_failures_and_planned_events():
    x = feature_rich(31, n_trials=300, cap_hours=math.inf, max_events=3, maint_rate=0.5)
    out = simulate_reference(x, np.random.default_rng(13))
    check_identity(out, x)
    events = out["interruptions"].sum(axis=1) + out["maintenance_events"]
    assert np.all(events[~out["finished"]] == 3)
    assert (~out["finished"]).sum() > 50 and out["finished"].any()
    stopped_by_maint = ~out["finished"] & (out["maintenance_events"] > 0)
    assert stopped_by_maint.any()


# ---- the node model off ---------------------------------------------------------------------


def test_node_outputs_are_off_without_the_node_model():
    # inputs without the node model (here: without its fields at all) run the plain process:
    # its counts are zero, pool_occupancy NaN, diagnosis and preemption never charged
    x = feature_rich(5, n_trials=50)
    assert not getattr(x, "node_model", False)
    out = simulate_reference(x, np.random.default_rng(9))
    check_identity(out, x)
    for name in NODE_COUNTS:
        assert out[name].shape == (50,) and np.all(out[name] == 0), name
    assert np.isnan(out["pool_occupancy"]).all()
    assert np.all(out["lost_hours"][:, [CAUSE["diagnosis"], CAUSE["preemption"]]] == 0)
