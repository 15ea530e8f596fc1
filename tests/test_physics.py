"""Failure physics: time-varying failure rates (diurnal cycles, power-law trend), diurnal
throughput, power swings.

Three kinds of checks, as for the constant-rate process:

* known answers: with no checkpoint cost, no restart and no recovery time the job is exposed
  for its whole wall time, so a trial capped at ``window`` hours counts a Poisson number of
  failures of each category with mean ``integral_0^window lambda_c(t) dt``; the kernel's
  mean count must be within 4 standard errors (``sqrt(mean / n)``) of that integral. Each has
  a negative control (a wrong phase; a thinning sampler with too low a bound) that the same
  check must reject. Without failures, a job at diurnal speed ``s(t)`` ends at the wall time
  ``T`` that solves ``S(T) - S(0) = W + n delta + persist`` (``S`` the antiderivative of
  ``s``), to 1e-9 relative. Power swings: exactly two per snapshot without failures, and
  exactly ``2 (events + 1)`` per finished trial when nothing but compute is ever exposed
  (no snapshot time, no restart time);
* the kernel against the event-by-event oracle (per-category thinning, written apart) in
  distribution, with the feature on alone and with spares, persist and maintenance on;
* invariants on random scenarios (hypothesis): ``wall == progress + sum(lost)``, no negative
  time, finished trials have ``progress == W``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from physicsinputs import with_sdc_fields
from scipy import integrate, optimize
from test_kernel_vs_reference import N_TRIALS, SCENARIOS, _disagreements, _run_both, _scenario

from relmc._seed import resolve_seed
from relmc.errors import FieldError, UnreadFieldWarning
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path
from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import KernelInputs
from relmc.sim.reference import simulate_reference
from relmc.sim.simulate import kernel_inputs, run_kernel, simulate

Z_MAX = 4.0  # known answers: 4 SE; about 40 such checks, so a false alarm has p ~ 2.5e-3


def _window_inputs(n_trials, window, rates, amp, peak, start_hour=0.0, shape=1.0, age=1.0):
    """Always exposed (no checkpoint cost, restart or recovery) until the cap at ``window``."""
    n_cat = len(rates)
    return KernelInputs(
        cat_rate=np.array([rates], dtype=float),
        draw_of_trial=np.zeros(n_trials, dtype=np.int64),
        detect_hours=np.zeros(n_cat),
        swap=np.zeros(n_cat, dtype=bool),
        maint_rate=0.0,
        maint_hours=0.0,
        work_hours=1e6,
        tau=5.0,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=1.0,
        cap_hours=float(window),
        cat_amp=np.array(amp, dtype=float),
        cat_phase=np.array(peak, dtype=float),
        start_hour=start_hour,
        trend_shape=shape,
        fleet_age_hours=age,
    )


def _expected_counts(x: KernelInputs, t0: float, t1: float, phase_error: float = 0.0):
    """``integral_{t0}^{t1} lambda_c(t) dt`` for each category, by quadrature of the contract."""

    def lam(t, c):
        hour = x.start_hour + t - x.cat_phase[c] - phase_error
        day = 1.0 + x.cat_amp[c] * math.cos(2.0 * math.pi * hour / 24.0)
        return x.cat_rate[0, c] * day * (1.0 + t / x.fleet_age_hours) ** (x.trend_shape - 1.0)

    return np.array(
        [
            integrate.quad(lam, t0, t1, args=(c,), limit=400, epsabs=0, epsrel=1e-11)[0]
            for c in range(x.n_categories)
        ]
    )


def _z(counts: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """z-scores of mean Poisson counts (variance = mean) per category."""
    return (counts.mean(axis=0) - expected) / np.sqrt(expected / counts.shape[0])


# (window h, rates per h, amplitudes, peak hours, start hour, trend shape, fleet age h)
WINDOWS = {
    "diurnal_full": (30.0, [0.5, 0.3], [1.0, 0.5], [3.0, 15.0], 7.0, 1.0, 1.0),
    "diurnal_short": (5.0, [2.0], [1.0], [12.0], 10.0, 1.0, 1.0),
    "diurnal_trough": (6.0, [2.0, 1.0], [0.8, 1.0], [0.0, 0.0], 9.0, 1.0, 1.0),
    "burn_in": (48.0, [0.4], [0.0], [0.0], 0.0, 0.5, 5.0),
    "wear_out": (40.0, [0.2, 0.1], [0.0, 0.0], [0.0, 0.0], 0.0, 3.0, 20.0),
    "both": (36.0, [0.3, 0.2], [1.0, 0.3], [14.0, 2.0], 20.0, 1.7, 30.0),
    "both_burn_in": (20.0, [1.0], [0.6], [5.0], 3.0, 0.7, 2.0),
    # the trend's windows (the kernel thins in windows over which T changes by TREND_RHO):
    # ~350 windows a trial of a steep wear-out on a fleet 3 min old, ~90 of a steep burn-in
    # on one 36 s old, one window for a trend that barely moves, shapes a hair from 1
    "steep_wear_out": (10.0, [1e-9], [0.5], [4.0], 2.0, 5.0, 0.05),
    "steep_burn_in": (24.0, [10.0], [0.0], [0.0], 0.0, 0.3, 0.01),
    "old_fleet": (30.0, [0.5], [1.0], [17.3], 5.0, 2.5, 1e5),
    "near_one_above": (12.0, [1.0], [0.2], [0.0], 0.0, 1.0001, 0.5),
    "near_one_below": (12.0, [1.0], [0.0], [0.0], 0.0, 0.9999, 0.5),
}
N_WINDOW = 6000


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_kernel_failure_count_is_the_integrated_intensity(name):
    window, rates, amp, peak, h0, shape, age = WINDOWS[name]
    x = _window_inputs(N_WINDOW, window, rates, amp, peak, h0, shape, age)
    assert not _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap, x.modulated)
    out, _ = run_kernel(x, resolve_seed(11))
    assert np.all(out["wall_hours"] == window) and not out["finished"].any()
    z = _z(out["interruptions"], _expected_counts(x, 0.0, window))
    assert np.all(np.abs(z) < Z_MAX), z


@pytest.mark.parametrize("name", ["diurnal_short", "both"])
def test_oracle_failure_count_is_the_integrated_intensity(name):
    window, rates, amp, peak, h0, shape, age = WINDOWS[name]
    x = _window_inputs(1500, window, rates, amp, peak, h0, shape, age)
    out = simulate_reference(x, np.random.default_rng(12))
    z = _z(out["interruptions"], _expected_counts(x, 0.0, window))
    assert np.all(np.abs(z) < Z_MAX), z


@pytest.mark.parametrize("path", ["general", "physics"])
def test_a_trend_after_dropped_draws_is_the_integrated_intensity(path):
    # planned events of no cost at 3/h: each drops the failure drawn past it and draws again
    # from its own time, earlier than the trend windows that draw reached; the exposure is
    # unbroken, so the count is still the integral (a window reused there, its bounds not
    # the trend's at the earlier time, over-counted: 22.3 against 21.0). The physics path: a
    # straggler category of rate 0 (the same draws of failures, its own trial loop)
    window, rate, shape, age = 6.0, 0.5, 2.0, 0.5
    x = _window_inputs(N_WINDOW, window, [rate], [0.0], [0.0], 0.0, shape, age)
    x = dataclasses.replace(x, maint_rate=3.0)
    if path == "physics":
        x = with_sdc_fields(
            dataclasses.replace(
                x,
                cat_rate=np.array([[rate, 0.0]]),
                detect_hours=np.zeros(2),
                swap=np.zeros(2, dtype=bool),
                cat_amp=np.zeros(2),
                cat_phase=np.zeros(2),
            ),
            cat_kind=[0, 1],
            straggler_speed=[1.0, 0.5],
            sdc_latency=[0.0, 0.0],
            sdc_latency_exp=[False, False],
        )
    out, _ = run_kernel(x, resolve_seed(13))
    assert np.all(out["wall_hours"] == window) and out["maintenance_events"].mean() > 15
    counts = out["interruptions"][:, :1]
    z = _z(counts, _expected_counts(x, 0.0, window)[:1])
    assert np.all(np.abs(z) < Z_MAX), z


def test_negative_control_a_steeper_or_flatter_trend_is_seen():
    # the steep windows' counts against the integral of a trend of shape 4.9 or 5.1 (not 5)
    window, rates, amp, peak, h0, shape, age = WINDOWS["steep_wear_out"]
    x = _window_inputs(N_WINDOW, window, rates, amp, peak, h0, shape, age)
    out, _ = run_kernel(x, resolve_seed(11))
    for wrong in (4.9, 5.1):
        y = dataclasses.replace(x, trend_shape=wrong)
        z = _z(out["interruptions"], _expected_counts(y, 0.0, window))
        assert np.all(np.abs(z) > Z_MAX), (wrong, z)


def test_negative_control_a_six_hour_phase_error_is_seen():
    # the same counts against the integral of a rate whose peak is 6 h late must fail
    window, rates, amp, peak, h0, shape, age = WINDOWS["diurnal_short"]
    x = _window_inputs(N_WINDOW, window, rates, amp, peak, h0, shape, age)
    out, _ = run_kernel(x, resolve_seed(11))
    z = _z(out["interruptions"], _expected_counts(x, 0.0, window, phase_error=6.0))
    assert np.any(np.abs(z) > Z_MAX), z


def _count_by_gaps(bound_scale, n, window, base, amp, theta, shape, age, seed):
    rng = np.random.default_rng(seed)
    counts = np.zeros((n, 1))
    for i in range(n):
        t = 0.0
        wa, wb, wlo, whi = 0.0, -1.0, 0.0, 0.0  # the trend's window, none yet
        while True:
            g, wa, wb, wlo, whi = _kernels._fail_gap(
                rng, t, base, amp, theta, (base + amp) * bound_scale, shape, age, np.inf, wa, wb,
                wlo, whi,
            )  # fmt: skip
            t += g
            if t >= window:
                break
            counts[i, 0] += 1
    return counts


def test_thinning_bound_correct_passes_too_low_fails():
    # _fail_gap alone, gap after gap over [0, 24): with the bound base + amp it reproduces the
    # integral; with a bound 30 % too low (acceptance clipped at 1) it must not
    base, amp, theta, shape, age, window = 2.0, 2.0, 0.3, 1.5, 10.0, 24.0
    x = _window_inputs(1, window, [base], [1.0], [0.0], 0.0, shape, age)
    x = dataclasses.replace(x, cat_phase=np.array([-theta * 24.0 / (2.0 * math.pi)]))
    expected = _expected_counts(x, 0.0, window)
    good = _count_by_gaps(1.0, 3000, window, base, amp, theta, shape, age, 5)
    bad = _count_by_gaps(0.7, 3000, window, base, amp, theta, shape, age, 5)
    assert abs(_z(good, expected)[0]) < Z_MAX
    assert abs(_z(bad, expected)[0]) > Z_MAX


def test_failures_resume_at_the_wall_clock_intensity_after_a_pause():
    # a crash detected 12 h later: the exposure resumes half a day on, so the failure process
    # must read the wall clock. With rate 0.05/h and a peak at hour 6, two exposed stretches:
    # the mean count must match the kernel run with the oracle (which steps the wall clock)
    sc = _scenario(
        [Category("g", rate=0.05, unit="job", detection_hours=12.0, diurnal_amplitude=1.0,
                  diurnal_peak_hour=6.0)],
        work=30.0, checkpoint_interval=1.0, snapshot_hours=0.0, restart_hours=0.0,
    )  # fmt: skip
    fast, slow = _run_both(sc, 3000, seed=4)
    assert _disagreements(fast, slow) == []


# ---- diurnal throughput ------------------------------------------------------------------------


def _no_failure_wall(x: KernelInputs, phase_error: float = 0.0) -> float:
    """Wall time of a failure-free job at diurnal speed: ``S(T) - S(0) = W + n delta + persist``."""
    w = 2.0 * math.pi / 24.0
    b, h = x.speed_amp, x.start_hour - x.speed_phase - phase_error

    def big_s(t):
        return t + b / w * math.sin(w * (h + t))

    nominal = x.work_hours + math.ceil(x.work_hours / x.tau - 1e-9) * x.delta + x.persist
    return optimize.brentq(
        lambda t: big_s(t) - big_s(0.0) - nominal, 0.0, 2.0 * nominal / (1.0 - b) + 1.0,
        xtol=1e-13, rtol=1e-15,
    )  # fmt: skip


# (W, tau, delta, persist, b, peak hour, start hour)
SPEEDS = {
    "compute_only": (100.0, 1.0, 0.0, 0.0, 0.3, 3.0, 9.0),
    "llama3_like": (1296.0, 0.5, 1 / 60, 0.1, 0.01, 4.0, 13.0),
    "short_fast_start": (5.0, 0.7, 0.05, 0.3, 0.5, 10.0, 10.0),
    "near_stall": (60.0, 2.0, 0.1, 0.5, 0.95, 18.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(SPEEDS))
def test_failure_free_wall_time_solves_the_integrated_speed(name):
    work, tau, delta, persist, b, peak, h0 = SPEEDS[name]
    x = _window_inputs(3, 1e6, [0.0], [0.0], [0.0], h0)
    x = dataclasses.replace(
        x, work_hours=work, tau=tau, delta=delta, persist=persist, speed_amp=b, speed_phase=peak
    )
    expected = _no_failure_wall(x)
    n_seg = math.ceil(work / tau - 1e-9)
    nominal = work + n_seg * delta + persist
    fast, _ = run_kernel(x, resolve_seed(1))
    slow = simulate_reference(x, np.random.default_rng(1))
    for out in (fast, slow):
        assert out["finished"].all()
        np.testing.assert_allclose(out["wall_hours"], expected, rtol=1e-9)
        # slowdown is the wall time beyond the nominal run (negative when it ran fast)
        slowdown = out["lost_hours"][:, CAUSES.index("slowdown")]
        np.testing.assert_allclose(slowdown, expected - nominal, rtol=1e-7, atol=1e-9)
    # negative controls: the nominal wall time, and a peak 6 h late, are off by far more
    assert abs(expected / nominal - 1.0) > 1e-6
    assert abs(_no_failure_wall(x, phase_error=6.0) / expected - 1.0) > 1e-6


def test_slowdown_is_negative_when_the_job_runs_at_its_fast_hours():
    # 4 h starting at the peak of a 40 % cycle: always faster than nominal
    x = _window_inputs(1, 1e6, [0.0], [0.0], [0.0], 10.0)
    x = dataclasses.replace(x, work_hours=4.0, tau=1.0, delta=0.0, speed_amp=0.4, speed_phase=12.0)
    fast, _ = run_kernel(x, resolve_seed(1))
    assert fast["lost_hours"][0, CAUSES.index("slowdown")] < -0.5
    assert fast["wall_hours"][0] < 4.0


# ---- power swings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("work", "tau", "delta", "persist"),
    [
        (10.3, 1.0, 0.05, 0.3),
        (100.0, 0.5, 1 / 60, 0.0),
        (2.0, 2.0, 0.1, 0.1),
        (54 * 24, 0.5, 0.01, 0.2),
    ],
)
def test_failure_free_swings_are_two_per_snapshot(work, tau, delta, persist):
    fm = FailureModel((Category("none", rate=0.0),))
    pol = Policy(
        checkpoint_interval=tau, snapshot_hours=delta, persist_hours=persist, restart_hours=0.1
    )
    cluster = Cluster(n_gpus=16_384, power_swing_threshold_mw=5.0)
    ds = simulate(Scenario(cluster=cluster, failures=fm, job=Job(work), policy=pol), n_trials=3)
    n_snap = math.ceil(work / tau - 1e-9)
    days = ds.wall_hours.values / 24.0
    np.testing.assert_array_equal(ds.power_swings.values, 2 * n_snap)
    np.testing.assert_allclose(ds.power_swings_per_day.values, 2 * n_snap / days, rtol=1e-12)
    # 16,384 GPUs x (700 - 100) W
    np.testing.assert_allclose(ds.max_power_step_mw.values, 16_384 * 600 / 1e6, rtol=1e-12)
    # negative control: counting only the snapshots' down steps (or forgetting the job's start
    # and end) is off by at least one swing
    assert not np.any(ds.power_swings.values == n_snap)
    assert not np.any(ds.power_swings.values == 2 * n_snap - 2)
    # a step below the threshold is not counted per day; the largest step is still reported
    big = dataclasses.replace(cluster, power_swing_threshold_mw=20.0)
    quiet = simulate(Scenario(cluster=big, failures=fm, job=Job(work), policy=pol), n_trials=3)
    assert (quiet.power_swings_per_day == 0).all() and (quiet.max_power_step_mw > 9).all()


def _only_compute_exposed(rate, persist, maint, n_spares=-1, restart=0.0):
    return KernelInputs(
        cat_rate=np.array([[rate, rate / 2]]),
        draw_of_trial=np.zeros(1000, dtype=np.int64),
        detect_hours=np.array([0.0, 0.3]),
        swap=np.array([False, True]),
        maint_rate=maint,
        maint_hours=0.1,
        work_hours=12.0,
        tau=1.0,
        delta=0.0,
        persist=persist,
        restart_hours=restart,
        swap_hours=0.2,
        n_spares=n_spares,
        repair_hours=2.0,
        cap_hours=1e6,
    )


@pytest.mark.parametrize(
    ("persist", "maint", "n_spares"), [(0.0, 0.0, -1), (0.5, 0.0, -1), (0.5, 0.4, 1)]
)
def test_swings_are_two_per_event_when_only_compute_is_exposed(persist, maint, n_spares):
    # delta = 0 and no restart time: every event stops compute (or strikes in the final
    # persist wait, after the down step at the end of compute) and compute starts again:
    # exactly 2 (events + 1) swings in every finished trial, on both paths and in the oracle
    x = _only_compute_exposed(0.5, persist, maint, n_spares)
    fast, _ = run_kernel(x, resolve_seed(2))
    slow = simulate_reference(x, np.random.default_rng(2))
    for out in (fast, slow):
        events = out["interruptions"].sum(axis=1) + out["maintenance_events"]
        assert out["finished"].all() and events.mean() > 3
        np.testing.assert_array_equal(out["power_swings"], 2 * (events + 1))
    # negative control: with a restart, failures during it change nothing, and the identity
    # must break
    x = _only_compute_exposed(0.5, persist, maint, n_spares, restart=0.5)
    fast, _ = run_kernel(x, resolve_seed(2))
    events = fast["interruptions"].sum(axis=1) + fast["maintenance_events"]
    assert np.any(fast["power_swings"] != 2 * (events + 1))


# ---- off values take the old path -----------------------------------------------------------


def test_off_values_are_the_constant_rate_process():
    sc = Scenario.default(job=Job(100.0))
    x, _ = kernel_inputs(sc, None, 10)
    assert not x.modulated
    assert not _kernels.time_varying(x.cat_amp, x.trend_shape)
    assert _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap, x.modulated) == (
        _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap)
    )
    # explicit off values (amplitude 0 at any peak hour, shape 1 at any age, any start hour)
    off = replace_path(sc, "failures.categories.*.diurnal_peak_hour", 17.0)
    off = replace_path(off, "failures.fleet_age_hours", 3.0)
    off = replace_path(off, "job.start_hour", 5.5)
    off = replace_path(off, "job.throughput_peak_hour", 9.0)
    a = simulate(sc, n_trials=300, seed=3, n_threads=1)
    with pytest.warns(UnreadFieldWarning, match="peak_hour = .* has no effect") as said:
        b = simulate(off, n_trials=300, seed=3, n_threads=1)  # and says so of the peak hours
    assert {str(w.message).split(" = ")[0] for w in said} == {
        "job.throughput_peak_hour",
        *(f"failures.categories[{c.name!r}].diurnal_peak_hour" for c in sc.failures.categories),
    }
    for name in ("wall_hours", "progress_hours", "interruptions", "lost_hours", "events"):
        np.testing.assert_array_equal(a[name].values, b[name].values)
    # any modulation leaves the constant-rate path
    on = replace_path(sc, "failures.trend_shape", 1.0 + 1e-12)
    assert kernel_inputs(on, None, 1)[0].modulated


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("failures.categories.*.diurnal_amplitude", 1.5, "diurnal_amplitude"),
        ("failures.categories.*.diurnal_amplitude", -0.1, "diurnal_amplitude"),
        ("failures.categories.*.diurnal_peak_hour", 24.0, "diurnal_peak_hour"),
        ("failures.trend_shape", 0.0, "failures.trend_shape"),
        ("failures.fleet_age_hours", 0.0, "failures.fleet_age_hours"),
        ("job.start_hour", 24.0, "job.start_hour"),
        ("job.start_hour", float("nan"), "job.start_hour"),
        ("job.throughput_amplitude", 1.0, "job.throughput_amplitude"),
        ("job.throughput_peak_hour", -1.0, "job.throughput_peak_hour"),
        ("cluster.gpu_busy_watts", 0.0, "cluster.gpu_busy_watts"),
        ("cluster.gpu_idle_watts", 800.0, "cluster.gpu_idle_watts"),
        ("cluster.power_swing_threshold_mw", -1.0, "cluster.power_swing_threshold_mw"),
    ],
)
def test_bad_physics_fields_are_named(path, value, field):
    with pytest.raises(FieldError, match=field) as info:
        replace_path(Scenario.default(), path, value)
    assert field in info.value.field


# ---- kernel vs oracle --------------------------------------------------------------------------

_CATS = (
    Category("gpu", rate=3e-5, unit="gpu", recovery="swap", diurnal_amplitude=0.8,
             diurnal_peak_hour=14.0),
    Category("hang", rate=2e-5, unit="gpu", detection_hours=1 / 6, diurnal_amplitude=0.3,
             diurnal_peak_hour=2.0),
    Category("bug", rate=0.03, unit="job"),
)  # fmt: skip
PHYSICS = {
    # diurnal and trend alone on the constant-recovery configuration
    "diurnal_trend": _scenario(list(_CATS), work=20.0, checkpoint_interval=0.5, restart_hours=0.2),
    # with finite spares, persist and maintenance
    "with_old_features": _scenario(
        list(_CATS),
        work=20.0,
        maint=(0.08, 0.1),
        checkpoint_interval=0.5,
        snapshot_hours=1 / 60,
        persist_hours=0.1,
        restart_hours=1 / 6,
        swap_hours=0.25,
        n_spares=3,
        repair_hours=4.0,
    ),
    # diurnal throughput alone (constant rates), with persist and maintenance: the wall cap
    # falls in maintenance checkpoints with persists in flight
    "throughput": _scenario(
        [
            Category("g", rate=1e-4, unit="gpu"),
            Category("n", rate=1e-3, unit="node", recovery="swap"),
        ],
        work=10.0,
        maint=(0.3, 0.1),
        checkpoint_interval=1.0,
        snapshot_hours=0.2,
        persist_hours=0.8,
        restart_hours=0.1,
        swap_hours=0.05,
        wall_cap_factor=1.6,
    ),
    # everything at once
    "all_physics": _scenario(
        list(_CATS),
        work=20.0,
        maint=(0.08, 0.1),
        checkpoint_interval=0.5,
        snapshot_hours=1 / 60,
        persist_hours=0.1,
        restart_hours=1 / 6,
        swap_hours=0.25,
        n_spares=3,
        repair_hours=4.0,
    ),
}
# trend (shape, fleet age h) and throughput (amplitude, peak hour) of each
_TREND = {
    "diurnal_trend": (2.5, 15.0, 0.0, 0.0),
    "with_old_features": (0.6, 4.0, 0.0, 0.0),
    "throughput": (1.0, 1.0, 0.3, 4.0),
    "all_physics": (1.8, 10.0, 0.2, 20.0),
}


def _physics_scenario(name):
    sc = PHYSICS[name]
    shape, age, b, peak = _TREND[name]
    fm = dataclasses.replace(sc.failures, trend_shape=shape, fleet_age_hours=age)
    job = dataclasses.replace(
        sc.job, start_hour=9.0, throughput_amplitude=b, throughput_peak_hour=peak
    )
    return dataclasses.replace(sc, failures=fm, job=job)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PHYSICS))
def test_kernel_matches_reference_with_time_varying_rates(name):
    sc = _physics_scenario(name)
    fast, slow = _run_both(sc, 2000, seed=21)
    assert _disagreements(fast, slow) == []
    # and the power swings, with the same 4.5 combined SE as every other mean
    a, b = fast["power_swings"].astype(float), slow["power_swings"].astype(float)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert abs(a.mean() - b.mean()) < 4.5 * se, (a.mean(), b.mean())


@pytest.mark.slow
def test_kernel_vs_reference_negative_control_sees_a_wrong_throughput_phase():
    # the oracle's fastest hour is 12 h off: the same checks must see it
    sc = _physics_scenario("throughput")
    wrong = replace_path(sc, "job.throughput_peak_hour", 16.0)
    fast, slow = _run_both(sc, 2000, seed=21, ref_scenario=wrong)
    assert any(b.startswith("lost_slowdown") for b in _disagreements(fast, slow))


@pytest.mark.slow
def test_kernel_vs_reference_negative_control_sees_a_wrong_trend():
    # the oracle is given a trend shape of 2.0 instead of 2.5: the same checks must see it
    sc = _physics_scenario("diurnal_trend")
    wrong = replace_path(sc, "failures.trend_shape", 2.0)
    fast, slow = _run_both(sc, 2000, seed=21, ref_scenario=wrong)
    assert any(b.startswith("interruptions") for b in _disagreements(fast, slow))


# ---- invariants on random scenarios -------------------------------------------------------------


@st.composite
def _random_inputs(draw):
    n_cat = draw(st.integers(1, 3))
    rates = [draw(st.just(0.0) | st.floats(0.01, 2.0)) for _ in range(n_cat)]
    tau = draw(st.floats(0.05, 3.0))
    return KernelInputs(
        cat_rate=np.array([rates]),
        draw_of_trial=np.zeros(8, dtype=np.int64),
        detect_hours=np.array([draw(st.floats(0.0, 1.0)) for _ in range(n_cat)]),
        swap=np.array([draw(st.booleans()) for _ in range(n_cat)]),
        maint_rate=draw(st.sampled_from([0.0, 0.2])),
        maint_hours=draw(st.floats(0.0, 0.5)),
        work_hours=draw(st.floats(0.1, 10.0)),
        tau=tau,
        delta=draw(st.floats(0.0, 0.3)),
        persist=draw(st.floats(0.0, 1.0)) * tau,
        restart_hours=draw(st.floats(0.0, 0.5)),
        swap_hours=draw(st.floats(0.0, 0.5)),
        n_spares=draw(st.sampled_from([-1, 0, 2])),
        repair_hours=draw(st.floats(0.1, 5.0)),
        cap_hours=draw(st.floats(1.0, 6.0)) * 10.0,
        max_events=draw(st.sampled_from([3, 1000])),
        cat_amp=np.array([draw(st.floats(0.0, 1.0)) for _ in range(n_cat)]),
        cat_phase=np.array([draw(st.floats(0.0, 23.9)) for _ in range(n_cat)]),
        start_hour=draw(st.floats(0.0, 23.9)),
        trend_shape=draw(st.floats(0.3, 3.0)),
        fleet_age_hours=draw(st.floats(0.5, 100.0)),
        speed_amp=draw(st.just(0.0) | st.floats(0.0, 0.9)),
        speed_phase=draw(st.floats(0.0, 23.9)),
    )


def _check_invariants(out, x: KernelInputs) -> None:
    wall, progress, lost = out["wall_hours"], out["progress_hours"], out["lost_hours"]
    # wall == progress + lost, up to rounding of sums of O(cap) hours
    np.testing.assert_allclose(wall, progress + lost.sum(axis=1), rtol=1e-9, atol=1e-12)
    # no negative time, but slowdown, which is negative when the job ran fast: at most the
    # speed's excess over 1 (b) times the wall time
    slow = CAUSES.index("slowdown")
    assert np.all(np.delete(lost, slow, axis=1) >= -1e-12)
    assert np.all(lost[:, slow] >= -x.speed_amp * wall - 1e-12)
    assert np.all(wall >= 0) and np.all(wall <= x.cap_hours)
    assert np.all(progress >= 0) and np.all(progress <= x.work_hours)
    assert np.all(progress[out["finished"]] == x.work_hours)
    events = out["interruptions"].sum(axis=1) + out["maintenance_events"]
    stopped = ~out["finished"]
    assert np.all((wall[stopped] == x.cap_hours) | (events[stopped] == x.max_events))
    # power: a finished job went up at its start and down at its end, alternately between
    swings = out["power_swings"]
    assert np.all(swings >= 0)
    assert np.all(swings[out["finished"]] % 2 == 0) and np.all(swings[out["finished"]] >= 2)


@settings(max_examples=30, deadline=None, database=None)
@given(x=_random_inputs(), seed=st.integers(0, 2**32 - 1))
def test_invariants_hold_on_random_time_varying_scenarios(x, seed):
    x = dataclasses.replace(x, cap_hours=max(x.cap_hours, x.work_hours))
    fast, _ = run_kernel(x, resolve_seed(seed))
    _check_invariants(fast, x)
    _check_invariants(simulate_reference(x, np.random.default_rng(seed)), x)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hopeless", "event_cap", "tiny_interval", "no_spares"])
def test_power_swings_match_the_oracle_on_the_constant_rate_scenarios(name):
    # the renewal path's block sums, its hand-over to the general path near the cap or the
    # budget, and the general path, against the oracle's step-by-step count (4.5 combined SE)
    fast, slow = _run_both(SCENARIOS[name], N_TRIALS[name], seed=22)
    a, b = fast["power_swings"].astype(float), slow["power_swings"].astype(float)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert abs(a.mean() - b.mean()) <= 4.5 * se + 1e-12, (a.mean(), b.mean(), se)
