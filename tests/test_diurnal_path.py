"""The kernel's diurnal path: an exact time change for diurnal failure rates (issue 11).

``relmc.sim._kernels.simulate_block`` sends the renewal configuration (planned maintenance
allowed, recovery a per-category constant, no uncertain overheads) with diurnal failure rates
on, and no other time variation, to ``_block_diurnal``: one standard exponential per failure
mapped through the closed-form integrated intensity ``F`` (a solve of ``F(x) = g`` per
failure), planned maintenance a clock in exposed time carried across failures. Here it is
held to known answers (the integrated intensity at the ``M``-th failure is Gamma(M, 1); the
planned events' Poisson compensator), compared in distribution with the general path and the
event-by-event oracle on scenarios that exercise its branches (shared and different peak
hours, amplitude 1, latencies and swaps, a tight wall cap and an event budget that hand the
trial to the general path, a job shorter than one checkpoint interval, thousands of failures
per trial; planned events in restarts and runs, deferred ones, none without failures),
checked for invariants on random scenarios, and shown to be the path taken (with and without
maintenance), while amplitude-0 scenarios still run the renewal path bit for bit.

Tolerances: compared means within Z_MAX = 4.5 combined standard errors and the two-sample KS
test on wall time at p > 1e-4 (``kernelcheck``; ~30 quantities per comparison, ~25
comparisons, so a correct kernel fails the file with probability ~5e-3 at most); the known
answers within 4 standard errors (the Gamma's exact variance; the compensator's sample
variance over 4,000 trials), each with negative controls that must fail them; invariants
exactly (up to float rounding of sums).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernelcheck import disagreements
from test_fast_paths import _exposed, _path_args, _with_maint, _z_zero
from test_physics import _check_invariants, _random_inputs

from relmc._seed import child_seed
from relmc.defaults import default_failures
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path
from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import KernelInputs, allocate_outputs
from relmc.sim.reference import simulate_reference
from relmc.sim.simulate import BLOCK_SIZE, NODE_OUTPUTS, PHYSICS_OUTPUTS, kernel_inputs

OMEGA = 2.0 * math.pi / 24.0


def _run(block_fn, inputs, seed: int, *extra) -> dict[str, np.ndarray]:
    """Run a kernel path over blocks of 256; ``extra``: its arguments beyond the inputs."""
    n = inputs.n_trials
    out = allocate_outputs(n, inputs.n_categories)
    root = np.random.SeedSequence(seed)
    for b in range(-(-n // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        args = _path_args(block_fn, inputs, out, slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE))
        block_fn(rng, *args, *extra)
    return out


def _scenario(cats, *, n_gpus=1024, work=20.0, start_hour=9.0, **policy) -> Scenario:
    return Scenario(
        cluster=Cluster(n_gpus=n_gpus),
        failures=FailureModel(tuple(cats)),
        job=Job(work, start_hour=start_hour),
        policy=Policy(**policy),
    )


def _four(amp, peaks):
    """test_fast_paths' categories (latencies, unlimited swaps), with diurnal rates."""
    base = [
        Category("gpu", rate=3e-4, unit="gpu", recovery="swap"),
        Category("node", rate=1e-3, unit="node", recovery="swap", detection_hours=0.05),
        Category("hang", rate=2e-4, unit="gpu", detection_hours=1 / 6),
        Category("bug", rate=0.3, unit="job"),
    ]
    return [
        dataclasses.replace(c, diurnal_amplitude=amp, diurnal_peak_hour=p)
        for c, p in zip(base, peaks, strict=True)
    ]


def _llama_spread(amp):
    """The 18 Llama 3 categories, each with its own peak hour."""
    fm = default_failures()
    return [
        dataclasses.replace(c, diurnal_amplitude=amp, diurnal_peak_hour=float((5 * j) % 24))
        for j, c in enumerate(fm.categories)
    ]


POLICY = dict(
    checkpoint_interval=0.5,
    snapshot_hours=1 / 60,
    persist_hours=0.2,
    restart_hours=1 / 6,
    swap_hours=0.25,
)
SCENARIOS = {
    # one shared peak hour: categories by alias, timeline by the time change (~25 failures)
    "a0.3_shared": _scenario(_four(0.3, [14.0] * 4), work=20.3, **POLICY),
    # amplitude 1: the intensity touches 0 at its trough (the solve's safeguards)
    "a1.0_shared": _scenario(_four(1.0, [3.0] * 4), work=20.3, **POLICY),
    # 18 categories, 18 peak hours: categories by inversion at the failure's phase (~10)
    "a0.5_18_peaks": _scenario(_llama_spread(0.5), n_gpus=16_384, work=30.0, **POLICY),
    # the same at 100k GPUs (~80 failures) with swaps free: blocks take most, each failure's
    # category drawn at its phase
    "a0.5_18_peaks_blocks": _scenario(
        _llama_spread(0.5), n_gpus=100_000, work=15.0, **{**POLICY, "swap_hours": 0.0}
    ),
    # restart-only categories, no latency, one shape: categories settled per trial at the end
    "settled": _scenario(
        [
            Category("gpu", rate=1e-3, unit="gpu", diurnal_amplitude=0.5, diurnal_peak_hour=20.0),
            Category("bug", rate=0.5, unit="job", diurnal_amplitude=0.5, diurnal_peak_hour=20.0),
        ],
        work=15.0,
        **POLICY,
    ),
    # a tight wall cap: trials near it take failures here while each, with the costliest
    # recovery, stays under it; the one that would not goes to the general path, carried
    "tight_cap": _scenario(
        _four(0.5, [14.0, 2.0, 8.0, 20.0]), work=10.0, wall_cap_factor=1.8, **POLICY
    ),
    # one shape and a job-level category at 1 an hour, a 3x cap that about half the trials
    # reach: blocks near the cap (a third of the failures), their bound leaving room for the
    # costliest recovery (a swap, 0.25 h)
    "tight_cap_blocks": _scenario(
        [
            Category(
                "gpu",
                rate=3e-4,
                unit="gpu",
                recovery="swap",
                diurnal_amplitude=0.5,
                diurnal_peak_hour=14.0,
            ),
            Category(
                "hang",
                rate=2e-4,
                unit="gpu",
                detection_hours=1 / 6,
                diurnal_amplitude=0.5,
                diurnal_peak_hour=14.0,
            ),
            Category("bug", rate=1.0, unit="job", diurnal_amplitude=0.5, diurnal_peak_hour=14.0),
        ],
        work=10.0,
        wall_cap_factor=3.0,
        **POLICY,
    ),
    # an event budget: the 7th event is the general path's
    "event_budget": _scenario(
        _four(0.5, [14.0, 2.0, 8.0, 20.0]), work=10.0, max_events=7, **POLICY
    ),
    # a job shorter than one checkpoint interval (one segment, the remainder)
    "short_job": _scenario(
        [Category("bug", rate=2.0, unit="job", diurnal_amplitude=0.8, diurnal_peak_hour=11.0)],
        work=0.3,
        **POLICY,
    ),
}
N_TRIALS = 4000


def _inputs(name: str, n: int = N_TRIALS) -> KernelInputs:
    x, _ = kernel_inputs(SCENARIOS[name], None, n)
    return x


def _applies(x: KernelInputs) -> bool:
    other = x.trend_shape != 1.0 or bool(np.any(x.draw_trend != 1.0)) or x.speed_amp != 0.0
    other = other or x.cat_profile.shape[0] > 0
    amp_on = bool(np.any(x.cat_amp > 0.0) or np.any(x.draw_amp > 0.0))
    return _kernels.diurnal_applies(x.maint_rate, x.n_spares, x.swap, amp_on, other, False)


def _identity(out) -> None:
    np.testing.assert_allclose(
        out["progress_hours"] + out["lost_hours"].sum(axis=1), out["wall_hours"], rtol=1e-9
    )


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_diurnal_path_matches_general_path(name):
    x = _inputs(name)
    assert _applies(x)
    stats = np.zeros(3, dtype=np.int64)
    fast = _run(_kernels._block_diurnal, x, 1, True, stats)
    general = _run(_kernels._block_general, x, seed=2)
    assert disagreements(fast, general) == []
    for out in (fast, general):
        _identity(out)
        assert out["events"].max() <= x.max_events
        assert out["wall_hours"].max() <= x.cap_hours * (1 + 1e-12)
    assert stats[0] > 0  # failures were taken on the diurnal path
    if name == "tight_cap":  # the hand-over is exercised: both outcomes occur
        assert stats[1] > 0 and 0.05 < fast["finished"].mean() < 0.95
    if name == "event_budget":
        assert stats[1] > 0 and (fast["events"][~fast["finished"]] == 7).all()
        assert (~fast["finished"]).any()
    if name == "short_job":
        assert x.work_hours < x.tau and fast["interruptions"].sum() > 0


@pytest.mark.slow
def test_diurnal_path_matches_general_path_with_thousands_of_failures():
    # Llama 3 rates at 100k GPUs, 18 peak hours, a 54-day job: ~2,700 failures per trial
    sc = _scenario(_llama_spread(0.5), n_gpus=100_000, work=54 * 24.0, **POLICY)
    x, _ = kernel_inputs(sc, None, 600)
    stats = np.zeros(3, dtype=np.int64)
    fast = _run(_kernels._block_diurnal, x, 3, True, stats)
    general = _run(_kernels._block_general, x, seed=4)
    assert fast["events"].mean() > 2000 and stats[1] == 0
    assert disagreements(fast, general) == []
    _identity(fast)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    ["a0.3_shared", "a0.5_18_peaks", "a0.5_18_peaks_blocks", "a1.0_shared", "tight_cap",
     "tight_cap_blocks"],
)  # fmt: skip
def test_diurnal_path_matches_reference(name):
    x = _inputs(name, 1500)
    stats = np.zeros(5, dtype=np.int64)
    fast = _run(_kernels._block_diurnal, x, 5, True, stats)
    assert stats[0] > 0
    if name == "a0.5_18_peaks_blocks":
        assert stats[3] > 0.5 * stats[0], stats  # the blocks took most failures
    slow = simulate_reference(x, np.random.default_rng(6))
    assert disagreements(fast, slow) == []
    _identity(slow)


@pytest.mark.slow
def test_reference_comparison_negative_control_sees_a_six_hour_phase_error():
    # the oracle's peak hours 6 h late: the same checks must see it (~25 failures per trial,
    # amplitude 1 on all four categories, a 20 h job: the failures crowd around the peak)
    x = _inputs("a1.0_shared", 1500)
    wrong = dataclasses.replace(x, cat_phase=x.cat_phase + 6.0)
    fast = _run(_kernels._block_diurnal, x, 5, True, np.zeros(3, dtype=np.int64))
    slow = simulate_reference(wrong, np.random.default_rng(6))
    assert disagreements(fast, slow) != []


# ---------------------------------------------------------------- a known answer
# Restart 0, no checkpoint cost, no recovery time and an unreachable job end: the job is
# exposed from 0 on, and the wall time of the trial's M-th failure (the budget stops it
# there) is the M-th point T_M of the process. Its integrated intensity Lambda(T_M) is then
# Gamma(M, 1): mean M, variance M. The first M - 1 failures are the diurnal path's, the
# M-th the general path's (the budget hand-over).
RATES, AMPS, PEAKS, START = [1.2, 0.8], [1.0, 0.5], [15.0, 9.0], 7.0
M_EVENTS = 20


def _known_inputs(n, amps=AMPS) -> KernelInputs:
    return KernelInputs(
        cat_rate=np.array([RATES]),
        draw_of_trial=np.zeros(n, dtype=np.int64),
        detect_hours=np.zeros(2),
        swap=np.zeros(2, dtype=bool),
        maint_rate=0.0,
        maint_hours=0.0,
        work_hours=1e5,
        tau=1.0,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=1.0,
        cap_hours=1e7,
        max_events=M_EVENTS,
        cat_amp=np.array(amps, dtype=float),
        cat_phase=np.array(PEAKS, dtype=float),
        start_hour=START,
    )


def _big_lambda(t, amps=AMPS, peak_shift=0.0):
    """``integral_0^t sum_c lambda_c``, closed form (the contract's intensity)."""
    total = 0.0
    for w, a, p in zip(RATES, amps, PEAKS, strict=True):
        ang = OMEGA * (START - p - peak_shift)
        total = total + w * (t + a / OMEGA * (np.sin(ang + OMEGA * t) - math.sin(ang)))
    return total


def test_integrated_intensity_at_the_mth_failure_is_gamma():
    n = 6000
    x = _known_inputs(n)
    stats = np.zeros(3, dtype=np.int64)
    out = _run(_kernels._block_diurnal, x, 8, True, stats)
    assert stats[0] == n * (M_EVENTS - 1) and stats[1] == n  # all but the M-th on the path
    assert (out["events"] == M_EVENTS).all() and not out["finished"].any()
    se = math.sqrt(M_EVENTS / n)  # 4 SE of the exact Gamma(M, 1) variance
    z = (_big_lambda(out["wall_hours"]).mean() - M_EVENTS) / se
    assert abs(z) < 4.0, z
    # negative controls: the integral for peaks 6 h late, and for amplitude 0
    z_phase = (_big_lambda(out["wall_hours"], peak_shift=6.0).mean() - M_EVENTS) / se
    z_flat = (_big_lambda(out["wall_hours"], amps=[0.0, 0.0]).mean() - M_EVENTS) / se
    assert abs(z_phase) > 4.0 and abs(z_flat) > 4.0, (z_phase, z_flat)


def test_solve_meets_its_tolerance_and_carries_the_phase():
    # F(x) = g solved to the wall clock's spacing, and the sine and cosine it returns are
    # those of the phase at t + x, on random phases, amplitudes up to 1 (troughs at 0)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        big_l = rng.uniform(0.01, 5.0)
        big_a = big_l * (1.0 if rng.random() < 0.3 else rng.random())
        phi0 = rng.uniform(0, 2 * math.pi)
        t = rng.uniform(0.0, 2000.0)
        g = rng.standard_exponential()
        s0, c0 = math.sin(phi0), math.cos(phi0)
        inv_lo = 1.0 / (big_l - big_a) if big_l > big_a else math.inf
        x, s1, c1 = _kernels._invert_diurnal(
            g, s0, c0, big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), inv_lo, t, 1e9
        )
        f = big_l * x + big_a / OMEGA * (math.sin(phi0 + OMEGA * x) - s0)
        lam = big_l + big_a * math.cos(phi0 + OMEGA * x)
        # |F(x) - g| <= lambda(x) times a few spacings of the wall clock, plus rounding of F
        assert abs(f - g) <= lam * 8e-16 * (t + x) + 1e-13 * (g + big_a / OMEGA), (f, g)
        assert abs(s1 - math.sin(phi0 + OMEGA * x)) < 1e-13
        assert abs(c1 - math.cos(phi0 + OMEGA * x)) < 1e-13


def _passes_cases(seed: int = 3, n: int = 4000, gaps_only: bool = False) -> list[tuple[float, ...]]:
    """``(g, x, s0, c0, L, k)`` for :func:`_kernels._passes`: random, near its bounds and at ``F``.

    Amplitudes up to 1, hours to the event 0.01-500, phases carried with norms up to 1e-13
    off 1 (the loop's drift is held below that); ``g`` an exponential, or at the band's edges
    ``L x +- k min(2, OMEGA x)`` (a few ulps either side), or at the computed ``F`` and its
    float neighbours; and extremes where the sine's difference is the whole band (``OMEGA x =
    pi`` from a crest or a trough), ``g`` just past ``F``; ``g`` at the thresholds the
    kernel uses (the band with its slack) and a float either side; hours 0 and 1e6 and
    amplitude 0 now and then. ``gaps_only``: the cases with the exponential ``g`` alone.
    """
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        big_l = rng.uniform(0.005, 5.0)
        k = big_l * (1.0 if rng.random() < 0.3 else rng.random()) / OMEGA
        k = 0.0 if rng.random() < 0.05 else k
        x = 10.0 ** rng.uniform(-2.0, math.log10(500.0))
        x = rng.choice([0.0, 1e6]) if rng.random() < 0.05 else x
        phi0 = rng.uniform(0.0, 2.0 * math.pi)
        if rng.random() < 0.2:  # the band's extremes: sin(phi0 + pi) - sin(phi0) = -+2
            x = math.pi / OMEGA
            phi0 = rng.choice([math.pi / 2, 3 * math.pi / 2])
        norm = 1.0 + rng.uniform(-1e-13, 1e-13)
        s0, c0 = math.sin(phi0) * norm, math.cos(phi0) * norm
        f = _kernels._cum_diurnal(x, s0, c0, big_l, k)
        sign = rng.choice([-1.0, 1.0])
        edge = big_l * x + sign * k * min(2.0, OMEGA * x)
        lx = big_l * x
        band = k * min(2.0, OMEGA * abs(x)) + _kernels._BRACKET_RTOL * (abs(lx) + 2.0 * k)
        threshold = lx + sign * band
        for g in (
            rng.standard_exponential() * max(big_l * x, 1e-3),
            edge * (1.0 + rng.uniform(-4e-16, 4e-16)),
            f,
            np.nextafter(f, np.inf),
            np.nextafter(f, -np.inf),
            threshold,
            np.nextafter(threshold, np.inf),
            np.nextafter(threshold, -np.inf),
        ):
            if g >= 0.0:  # (a gap: g is an exponential)
                cases.append((float(g), x, s0, c0, big_l, k))
            if gaps_only:
                break
    return cases


def test_planned_event_test_by_bounds_is_the_comparison_with_f(monkeypatch):
    # the loop one by one's test whether a planned event comes before the next failure
    # (g >= F(m_left)), decided by bounds on F where they can: the same answer as the
    # comparison with F as computed, in every case, bounds decided most random ones
    cases = _passes_cases()
    got = [_kernels._passes(*c) for c in cases]
    want = [c[0] >= _kernels._cum_diurnal(*c[1:]) for c in cases]
    assert got == want
    assert any(want) and not all(want)
    # the bounds decide most cases of an exponential gap (the test's purpose: no sine), F
    # computed for the rest (counted through the Python function)
    random_g = _passes_cases(n=1000, gaps_only=True)
    calls = []
    exact = _kernels._cum_diurnal
    monkeypatch.setattr(_kernels, "_cum_diurnal", lambda *a: calls.append(1) or exact(*a))
    assert [_kernels._passes.py_func(*c) for c in random_g] == [
        c[0] >= exact(*c[1:]) for c in random_g
    ]
    assert len(calls) < 0.5 * len(random_g), (len(calls), len(random_g))
    monkeypatch.setattr(_kernels, "_cum_diurnal", exact)
    # negative controls: the same cases see a band without its slack over rounding (the
    # extremes' carried norms put F beyond it), and a band half as wide
    monkeypatch.setattr(_kernels, "_BRACKET_RTOL", 0.0)
    bare = [_kernels._passes.py_func(*c) for c in cases]
    assert bare != want
    monkeypatch.setattr(_kernels, "_BRACKET_RTOL", 1e-12)
    monkeypatch.setattr(_kernels, "OMEGA", OMEGA / 2.0)  # k min(2, OMEGA x) halved below 2
    half = [_kernels._passes.py_func(*c) for c in cases]
    assert half != want


def _meets_tolerance(g, x, s1, c1, ph, t, big_l, big_a, phase_slack=0.0, trig_slack=0.0):
    """Whether ``x``, ``s1``, ``c1`` solve ``F(x) = g`` from phase ``ph`` at wall clock ``t``.

    ``|F(x) - g|`` within a few spacings of the wall clock times the intensity, plus 1e-15 of
    ``g + A / OMEGA`` (the kernel's worst case in a 45-digit check was 1.22 times the
    spacings plus 2.7e-16 of that sum), plus ``2 A / OMEGA`` times ``phase_slack`` (an angle
    the phase may be off by); ``x < hi`` is the caller's; the sine and cosine those of the
    phase reached, within ``1e-13 + OMEGA 1.8e-15 (t + x)`` (``math.sin`` of an angle of
    thousands of radians carries the clock's rounding) plus ``trig_slack``.
    """
    f = big_l * x + big_a / OMEGA * (math.sin(ph + OMEGA * x) - math.sin(ph))
    lam = big_l + big_a * math.cos(ph + OMEGA * x)
    tol = 1e-13 + OMEGA * 1.8e-15 * (t + x) + trig_slack
    phase = 2.0 * big_a / OMEGA * phase_slack
    ok = abs(f - g) <= lam * 8e-16 * (t + x) + 1e-15 * (g + big_a / OMEGA) + phase
    ok = ok and abs(s1 - math.sin(ph + OMEGA * x)) < tol
    return ok and abs(c1 - math.cos(ph + OMEGA * x)) < tol


def _long_gap_errors(invert, n: int = 2000, seed: int = 1) -> tuple[int, float]:
    """Cases where ``invert`` misses the solve's tolerance, on gaps of hours to weeks.

    Returns ``(misses, share of the gaps that the descent takes, g >= F(1.5 h))``. The
    tolerance: :func:`_meets_tolerance`. Every other case is solved again with ``hi`` just
    above the root, so the descent's ``hi - xs`` bound is used too.
    """
    rng = np.random.default_rng(seed)
    misses = 0
    long = 0
    for _ in range(n):
        big_l = rng.uniform(0.005, 2.0)
        big_a = big_l * (1.0 if rng.random() < 0.3 else rng.random())
        phi0 = rng.uniform(0, 2 * math.pi)
        t = rng.uniform(0.0, 2000.0)
        g = rng.standard_exponential() * rng.choice([1.0, 10.0, 100.0])
        s0, c0 = math.sin(phi0), math.cos(phi0)
        inv_lo = 1.0 / (big_l - big_a) if big_l > big_a else math.inf
        long += g >= big_l * 1.5 + big_a / OMEGA * (math.sin(phi0 + OMEGA * 1.5) - s0)
        args = (g, s0, c0, big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), inv_lo, t)
        x, s1, c1 = invert(*args, 1e9)
        if rng.random() < 0.5:
            x, s1, c1 = invert(*args, x + 0.01)
        misses += not _meets_tolerance(g, x, s1, c1, phi0, t, big_l, big_a)
    return misses, long / n


def test_long_gaps_descend_by_days_and_steps_within_the_tolerance(monkeypatch):
    # gaps from minutes to weeks (amplitudes up to 1): the descent by whole days and 12, 6,
    # 3, 1.5 h steps before the solve meets the solve's own tolerance
    misses, share = _long_gap_errors(_kernels._invert_diurnal)
    assert misses == 0 and share > 0.5, (misses, share)
    # negative control: the same check sees a descent whose 3-h step turns the phase by a
    # degree too little (the Python source with that step's cosine and sine changed)
    wrong = _kernels.OMEGA * 3.0 - math.radians(1.0)
    assert _kernels._HOP_X[2] == 3.0
    cos, sin = _kernels._HOP_C.copy(), _kernels._HOP_S.copy()
    cos[2], sin[2] = math.cos(wrong), math.sin(wrong)
    monkeypatch.setattr(_kernels, "_HOP_C", cos)
    monkeypatch.setattr(_kernels, "_HOP_S", sin)
    bad, _ = _long_gap_errors(_kernels._invert_diurnal.py_func, n=300)
    # the 3-h step is taken in about a third of these gaps (727 of 2,000 in a check), and a
    # degree off misses the tolerance by orders of magnitude: ~115 misses expected in 300,
    # so 30 leaves a wide margin
    assert bad > 30, bad


def _one_by_one_errors(
    n: int, seed: int, e_scale: float = 1.0, theta_off: float = 0.0, grid: bool = False
) -> tuple[int, float]:
    """Misses of the loop's solve (``_solve_one``, the table's step) and its share of the table.

    Random cases as ``_long_gap_errors`` (amplitudes 0.1 to 1, near-trough ones 0.95-0.999
    among them; gaps of minutes to weeks; ``hi`` far or just above the root), at wall clocks
    up to 30,000 h (a 20x cap on a 62-day job), with the phase ``OMEGA t + theta`` the kernel
    carries and its sine and cosine turned by up to 1e-14 rad (what 63 rotations between two
    refreshes can leave), against the same tolerance (:func:`_meets_tolerance`, and ``x <
    hi``) plus what a phase of thousands of radians carries: rounded to its own spacing (the
    kernel's reduction onto ``[0, 2 pi)``, and this check's sines) or turned by that drift,
    ``F`` moves by up to ``2 A / OMEGA`` times the angle (the rest of the tolerance is tight
    at amplitude 1's troughs, where ``lambda`` is near 0). ``e_scale`` scales the amplitude
    the table and its step are given, ``theta_off`` is added to the ``theta`` they are given
    (1 and 0: the kernel's). With ``grid``, amplitudes anywhere in [0.05, 1] and the table
    the nearest reference table (``KernelInputs.kepler_grid``, amplitudes ``k / 64``) while
    the step is given the exact amplitude: what the kernel does with rates per draw and
    categories of different shapes. Returns ``(misses, share of the cases where the table's
    step was taken)``.
    """
    from relmc.sim.inputs import _reference_grid

    rng = np.random.default_rng(seed)
    tabs = {}
    misses = 0
    taken = 0
    for _ in range(n):
        big_l = rng.uniform(0.005, 2.0)
        e = 1.0 if rng.random() < 0.3 else float(rng.choice([0.1, 0.5, 0.8, 0.95, 0.99, 0.999]))
        if grid and rng.random() < 0.7:
            e = float(rng.uniform(0.05, 1.0))
        big_a = big_l * e
        e_tab = e * e_scale
        if grid:
            tabs[e_tab] = _reference_grid()[int(e_tab * _kernels._KEP_GRID + 0.5)]
        elif e_tab not in tabs:
            tabs[e_tab] = np.empty((_kernels._KEP_N + 1, _kernels._KEP_COLS))
            _kernels._kepler_table(e_tab, tabs[e_tab])
        t = rng.uniform(0.0, 30_000.0)
        theta = rng.uniform(-math.pi, math.pi)
        ph = OMEGA * t + theta
        drift = rng.uniform(-1e-14, 1e-14)
        s0, c0 = math.sin(ph + drift), math.cos(ph + drift)
        g = rng.standard_exponential() * rng.choice([1.0, 10.0, 100.0])
        inv_lo = 1.0 / (big_l - big_a) if big_l > big_a else math.inf
        args = (g, s0, c0, big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), inv_lo, t)
        hi = 1e9
        for _ in range(2):
            x, s1, c1 = _kernels._solve_one(
                g, t, theta + theta_off, s0, c0, True, e_tab, OMEGA / big_l, tabs[e_tab],
                *args[3:8], hi,
            )  # fmt: skip
            if rng.random() < 0.5:
                break
            hi = x + 0.01
        full = _kernels._invert_diurnal(*args, hi)
        taken += (x, s1, c1) != full
        slack = 4.4e-16 * (abs(ph) + OMEGA * x) + abs(drift)
        ok = _meets_tolerance(g, x, s1, c1, ph, t, big_l, big_a, slack, abs(drift))
        misses += not (ok and x < hi)
    return misses, taken / n


def test_the_loops_solve_from_the_table_meets_the_tolerance():
    # the loop one by one solves from the table (unless shapes are given per draw: the
    # summed intensity is one cosine, whatever the categories' peaks; for gaps the full
    # solve would descend: g >= F(1.5 h)) as a block does; what it declines
    # goes to the full solve: the same tolerance as the full solve's (_long_gap_errors), and
    # a good share of the cases take the table's step (a case where both return the same
    # floats counts as not taken)
    misses, share = _one_by_one_errors(3000, seed=5)
    assert misses == 0 and share > 0.4, (misses, share)
    # negative controls: a table and step for an amplitude 1 % too small (each consistent in
    # itself, so its own trust test passes), and a phase 1e-10 rad off (F then off by about
    # lambda 1e-10 / OMEGA, a few to thousands of times the tolerance): each misses in most
    # of the cases where the step is taken
    for kw in ({"e_scale": 0.99}, {"theta_off": 1e-10}):
        bad, share = _one_by_one_errors(300, seed=6, **kw)
        assert bad > 0.5 * share * 300, (kw, bad, share)


def test_the_loops_solve_from_a_reference_table_meets_the_tolerance():
    # with rates per draw and categories of different shapes the summed intensity's
    # amplitude is the draw's, and the loop one by one steps from the nearest reference
    # table (up to 1/128 away) with the exact amplitude: the same tolerance, no miss, and
    # the step still taken in a good share of the cases. Negative control: the step given
    # the table's amplitude instead of the draw's (an amplitude up to 1/128 off) misses
    misses, share = _one_by_one_errors(3000, seed=7, grid=True)
    assert misses == 0 and share > 0.5, (misses, share)  # 0.73 on this seed
    bad, share = _one_by_one_errors(300, seed=8, grid=True, e_scale=0.99)
    assert bad > 0.5 * share * 300, (bad, share)


def test_a_whole_day_rounded_up_onto_g_does_not_overshoot():
    # g one ulp below F(24 m) = 24 m L, amplitude 1: g / (24 L) rounds up onto m in some
    # cases; the descent must then take m - 1 days (else g goes below 0 and the solve, with
    # 1 / (L - A) infinite, returns -inf). Each case: x finite, about 24 m, and F(x) = g to
    # the solve's tolerance
    rng = np.random.default_rng(3)
    rounded_up = 0
    for _ in range(3000):
        big_l = rng.uniform(0.005, 2.0)
        m = int(rng.integers(1, 60))
        g = math.nextafter(m * big_l * 24.0, 0.0)
        rounded_up += int(g / (big_l * 24.0)) == m
        phi0 = rng.uniform(0, 2 * math.pi)
        s0, c0 = math.sin(phi0), math.cos(phi0)
        x, _, _ = _kernels._invert_diurnal(
            g, s0, c0, big_l, big_l, 1.0 / big_l, 0.5 / big_l, math.inf, 0.0, 1e9
        )
        # (x itself within 1e-3 h: at amplitude 1 a root at the trough, where F' = 0, is
        # determined only to the cube root of F's rounding)
        assert math.isfinite(x) and 24.0 * (m - 1) - 1e-3 <= x <= 24.0 * m + 1e-3, (x, m)
        f = big_l * x + big_l / OMEGA * (math.sin(phi0 + OMEGA * x) - s0)
        assert abs(f - g) <= 1e-15 * (g + big_l / OMEGA) + 2 * big_l * 8e-16 * x, (f, g)
    assert rounded_up > 30, rounded_up  # the case is reached (about 6 % of these)


# ---------------------------------------------------------------- which path runs
def _bitwise(a, b) -> None:
    for key in a.keys() - NODE_OUTPUTS.keys() - PHYSICS_OUTPUTS.keys():
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


# Llama 3's 18 categories with their own peak hours at 100k GPUs: ~4.6 failures an hour
MANY = _scenario(_llama_spread(0.5), n_gpus=100_000, work=10.0, **POLICY)


def test_simulate_block_takes_the_diurnal_path():
    # simulate_block's outputs are, bit for bit, those of _block_diurnal on the same stream
    for name, x in (
        ("16k", _inputs("a0.5_18_peaks", 600)),
        ("settled", _inputs("settled", 600)),
        ("100k", kernel_inputs(MANY, None, 600)[0]),
        ("maintenance", kernel_inputs(_with_maint(MANY, 0.05, 0.25), None, 600)[0]),
    ):
        via = _run(_kernels.simulate_block, x, seed=9)
        _bitwise(via, _run(_kernels._block_diurnal, x, 9, True, np.zeros(3, dtype=np.int64)))
        # negative control: the general path on the same stream gives other numbers
        other = _run(_kernels._block_general, x, seed=9)
        assert not np.array_equal(via["wall_hours"], other["wall_hours"]), name


def test_dispatch_conditions():
    swap = np.array([False, True])
    assert _kernels.diurnal_applies(0.0, -1, swap, True, False, False)
    assert _kernels.diurnal_applies(0.0, 3, np.array([False, False]), True, False, False)
    assert not _kernels.diurnal_applies(0.0, -1, swap, False, False, False)  # amplitude 0
    assert _kernels.diurnal_applies(0.1, -1, swap, True, False, False)  # maintenance too
    assert not _kernels.diurnal_applies(0.0, 3, swap, True, False, False)  # finite swaps
    assert not _kernels.diurnal_applies(0.0, -1, swap, True, True, False)  # trend etc.
    assert not _kernels.diurnal_applies(0.0, -1, swap, True, False, True)  # overheads
    # from scenarios: planned maintenance stays on the path, a trend or a throughput cycle
    # leave it
    sc = SCENARIOS["a0.3_shared"]
    assert _applies(kernel_inputs(sc, None, 1)[0])
    assert _applies(kernel_inputs(replace_path(sc, "failures.maintenance_rate", 0.01), None, 1)[0])
    for path, value in (
        ("failures.trend_shape", 1.5),
        ("job.throughput_amplitude", 0.01),
    ):
        assert not _applies(kernel_inputs(replace_path(sc, path, value), None, 1)[0]), path


def test_amplitude_zero_still_runs_the_renewal_path_bit_for_bit():
    # peak hours and a start hour set, every amplitude 0: the renewal path, the same bits
    sc = _scenario(_four(0.0, [14.0, 2.0, 8.0, 20.0]), work=20.3, **POLICY)
    x, _ = kernel_inputs(sc, None, 600)
    assert not _applies(x) and not x.modulated
    assert _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap)
    via = _run(_kernels.simulate_block, x, seed=10)
    renewal = _run(_kernels._block_renewal, x, 10, True, np.zeros(3, dtype=np.int64))
    for key in via.keys() - NODE_OUTPUTS.keys() - PHYSICS_OUTPUTS.keys():
        np.testing.assert_array_equal(via[key], renewal[key], err_msg=key)


# ---------------------------------------------------------------- planned maintenance
# The diurnal path with planned maintenance: a homogeneous Poisson clock in exposed time whose
# exposed hours left are carried across failures; a cycle that reaches them without a failure
# first takes the planned event (during the restart, or in the run with a fresh checkpoint),
# and one after the job's last compute is deferred. Compared with the general path (which
# draws both clocks afresh after every event) and the oracle, and held to the planned events'
# Poisson compensator.


# a long final snapshot and persist (0.7 h of a 3 h job), no restart, frequent planned events:
# many fall after the job's last compute and are deferred past its end
LONG_TAIL = _scenario(
    [Category("bug", rate=0.3, unit="job", detection_hours=0.05, diurnal_amplitude=0.8)],
    work=3.0,
    checkpoint_interval=1.0,
    snapshot_hours=0.2,
    persist_hours=0.5,
    restart_hours=0.0,
)
# one shape, 2.6 failures an hour, a seventh of them with 0.2 h of recovery: with planned
# events at 0.1 an hour (26 failures between two), blocks of failures run through planned
# events
BLOCKS_M = _scenario(
    [
        Category("bug", rate=2.2, unit="job", diurnal_amplitude=0.6, diurnal_peak_hour=14.0),
        Category(
            "hang",
            rate=0.4,
            unit="job",
            detection_hours=0.2,
            diurnal_amplitude=0.6,
            diurnal_peak_hour=14.0,
        ),
    ],
    work=30.3,
    **POLICY,
)
MAINT = {
    # planned events in restarts and runs, categories by alias
    "shared": _with_maint(SCENARIOS["a0.3_shared"], 0.3, 0.25),
    # Llama 3's 18 categories (inversion at the phase) and a rarer planned event
    "18_peaks": _with_maint(SCENARIOS["a0.5_18_peaks"], 0.05, 0.25),
    # categories settled per trial from the failures alone
    "settled": _with_maint(SCENARIOS["settled"], 0.4, 0.1),
    # the cap guard bounds a cycle by a planned stop (0.5 h downtime > every recovery)
    "tight_cap": _with_maint(
        replace_path(SCENARIOS["tight_cap"], "policy.wall_cap_factor", 2.2), 0.3, 0.5
    ),
    "event_budget": _with_maint(SCENARIOS["event_budget"], 0.5, 0.1),
    "long_tail": _with_maint(LONG_TAIL, 1.0, 0.25),
    # downtime 0: a planned stop costs its checkpoint only
    "no_downtime": _with_maint(SCENARIOS["a1.0_shared"], 0.5, 0.0),
    # one segment with a long snapshot and persist (1.5 h after 1 h of compute), failures and
    # planned events both frequent: most cycles defer a planned event and many then fail in
    # the tail, so the planned events drawn afresh after such a failure are a large share
    "one_segment": _with_maint(
        _scenario(
            [Category("bug", rate=0.5, unit="job", diurnal_amplitude=0.6)],
            work=1.0,
            checkpoint_interval=1.0,
            snapshot_hours=0.5,
            persist_hours=1.0,
            restart_hours=0.1,
        ),
        2.0,
        0.1,
    ),
    # blocks through planned events
    "blocks": _with_maint(BLOCKS_M, 0.1, 0.25),
    # the same under a cap about half the trials reach (a planned stop, 0.5 h, the costliest
    # event): near it, blocks and the loop take failures and planned events that fit
    "blocks_tight_cap": _with_maint(
        replace_path(BLOCKS_M, "policy.wall_cap_factor", 4.7), 0.1, 0.5
    ),
    # planned events about as frequent as failures (1.5 an hour against 2.6), and more
    # frequent (6 an hour: 0.43 failures a planned event, blocks of at most 27 points)
    "blocks_frequent": _with_maint(BLOCKS_M, 1.5, 0.25),
    "blocks_more_planned": _with_maint(BLOCKS_M, 6.0, 0.05),
    # Llama 3's 18 categories at their own peak hours at 100k GPUs (~2 failures an hour)
    # with 4 planned events an hour: blocks whose categories are drawn at every point's
    # phase end at their 32nd planned event, the marks of the points beyond it unused
    "peaks_more_planned": _with_maint(SCENARIOS["a0.5_18_peaks_blocks"], 4.0, 0.02),
}


@pytest.mark.parametrize("name", sorted(MAINT))
def test_diurnal_path_with_maintenance_matches_general_path(name):
    x, _ = kernel_inputs(MAINT[name], None, N_TRIALS)
    assert x.maint_rate > 0 and _applies(x)
    stats = np.zeros(3, dtype=np.int64)
    fast = _run(_kernels._block_diurnal, x, 1, True, stats)
    general = _run(_kernels._block_general, x, seed=2)
    assert disagreements(fast, general) == []
    assert fast["maintenance_events"].mean() > 0.2
    assert stats[0] > 0 and stats[2] > 0  # failures and planned events taken on the path
    for out in (fast, general):
        _identity(out)
        assert out["events"].max() <= x.max_events
        assert out["wall_hours"].max() <= x.cap_hours * (1 + 1e-12)
    # a finished trial had every planned event's whole downtime (a stopped one may not: the
    # cap cuts it, or the budget's last event stops the trial before it)
    maint = CAUSES.index("maintenance")
    ok = fast["finished"]
    np.testing.assert_allclose(
        fast["lost_hours"][ok, maint], fast["maintenance_events"][ok] * x.maint_hours, atol=1e-9
    )
    if name == "tight_cap":  # the hand-over is exercised: both outcomes occur
        assert stats[1] > 0 and 0.05 < fast["finished"].mean() < 0.95
    if name == "event_budget":
        assert stats[1] > 0 and (fast["events"][~fast["finished"]] == 7).all()


@pytest.mark.parametrize(
    "name",
    ["blocks", "blocks_tight_cap", "blocks_frequent", "blocks_more_planned", "peaks_more_planned"],
)
def test_blocks_run_through_planned_events(name):
    """With planned events blocks take them in their pass in order (the exposed hours from
    the last event's end reaching the clock left to the next one): most failures and most
    planned events in blocks, every planned event taken; the comparisons above and below hold
    these scenarios to the general path and the oracle. With Llama 3's categories at their
    peak hours and 4 planned events an hour in a 15-h job, over a third of each: near the
    job's end a block may take fewer planned events (``p_max``, from the segments left), so
    the loop takes the rest (42 % and 35 % in a check)."""
    x, _ = kernel_inputs(MAINT[name], None, 400)
    stats = np.zeros(7, dtype=np.int64)
    out = _run(_kernels._block_diurnal, x, 1, True, stats)
    if name.endswith("more_planned"):
        # at most the points in which 64 planned events are expected (28 and 32 here)
        room = _block_room(x)
        assert room < 40 and stats[6] <= room * stats[4] and stats[6] > 8.5 * stats[4], stats
    share = 0.3 if name == "peaks_more_planned" else 0.5
    assert stats[3] > share * stats[0] and stats[4] > 2 * 400, stats
    assert stats[5] > share * stats[2], stats  # planned events in blocks
    planned = out["maintenance_events"].sum()  # on this path, and after a hand-over
    assert stats[2] == planned if stats[1] == 0 else 0 < stats[2] <= planned
    if name == "blocks_tight_cap":
        assert stats[1] > 0.05 * 400 and 0.05 < out["finished"].mean() < 0.95


def _block_room(x):
    """The most points a block takes with planned maintenance (the kernel's ``room_d`` below
    the buffer's 256): those in which 64 planned events are expected, rounded up."""
    return math.ceil(2 * _kernels._DIURNAL_PLANNED_MAX * x.cat_rate[0].sum() / x.maint_rate)


def test_blocks_with_frequent_planned_events_solve_few_points_beyond_their_end():
    # A block ends at its 32nd planned event; with 0.43 failures per planned event (2.6 and
    # 6 an hour) it takes at most the 28 points in which 64 are expected, so the points it
    # solves beyond its end stay a fraction of those it takes (26 solved and 12 failures taken
    # a block in a check, 2.2 points a failure), not the 256 the buffer holds: a job of 300 h,
    # where the segments left do not bound blocks first. (Exact either way: only the work.)
    x, _ = kernel_inputs(
        replace_path(MAINT["blocks_more_planned"], "job.compute_hours", 300.3), None, 40
    )
    stats = np.zeros(7, dtype=np.int64)
    _run(_kernels._block_diurnal, x, 1, True, stats)
    room = _block_room(x)
    assert room == 28 and stats[4] > 40 * 100, stats
    assert 8.5 * stats[4] < stats[6] <= room * stats[4] and stats[6] < 3.0 * stats[3], stats


def test_diurnal_path_takes_planned_maintenance_without_failures():
    # every category's rate 0: planned events alone (the general path's, drawn apart)
    sc = _with_maint(
        _scenario(
            [Category("bug", rate=0.0, unit="job", diurnal_amplitude=0.5)], work=20.0, **POLICY
        ),
        0.3,
        0.25,
    )
    x, _ = kernel_inputs(sc, None, N_TRIALS)
    assert _applies(x)
    fast = _run(_kernels._block_diurnal, x, 1, True, np.zeros(3, dtype=np.int64))
    general = _run(_kernels._block_general, x, seed=2)
    assert disagreements(fast, general) == []
    assert fast["interruptions"].sum() == 0 and fast["maintenance_events"].mean() > 3


def test_diurnal_maintenance_negative_controls_detect_ten_percent_errors():
    # the general path is given 10 % longer downtime, then a 10 % higher planned rate
    base = MAINT["shared"]
    x, _ = kernel_inputs(base, None, N_TRIALS)
    fast = _run(_kernels._block_diurnal, x, 1, True, np.zeros(3, dtype=np.int64))
    fm = base.failures
    longer = _with_maint(base, fm.maintenance_rate, fm.maintenance_hours * 1.1)
    more = _with_maint(base, fm.maintenance_rate * 1.1, fm.maintenance_hours)
    bad = disagreements(
        fast, _run(_kernels._block_general, kernel_inputs(longer, None, 4000)[0], 2)
    )
    assert any(b.startswith("lost_maintenance") for b in bad)
    bad = disagreements(fast, _run(_kernels._block_general, kernel_inputs(more, None, 4000)[0], 2))
    assert any(b.startswith("maintenance_events") for b in bad)


# LONG_TAIL with rare failures (0.02 an hour): a failure inside a final snapshot or persist,
# time closed to planned events that the compensator below cannot see, is then rare (its bias
# on the mean deviation ~0.005 per trial, ~0.2 standard errors at 4,000 trials)
RARE_FAILURE_TAIL = _with_maint(
    replace_path(LONG_TAIL, "failures.categories.*.rate", 0.02), 1.0, 0.25
)


def test_diurnal_planned_events_match_their_compensator():
    # Known answer: the Poisson compensator (optional stopping): E[planned] = M E[exposed
    # before the job's last compute]. Restart 0 (every planned event stops a run) and every
    # trial finishes, so the exposed hours are the wall time less detection, downtime and the
    # planned stops' checkpoints, and the final snapshot and persist are exposed to failures
    # only (the time in the tails of runs that a failure cut short is not seen here, hence
    # rare failures). Tolerance 4 standard errors of the per-trial deviations. Negative
    # controls: a planned rate 10 % off, and the final snapshot and persist counted as exposed
    # to planned events (the deferral ignored).
    x, _ = kernel_inputs(RARE_FAILURE_TAIL, None, N_TRIALS)
    stats = np.zeros(3, dtype=np.int64)
    out = _run(_kernels._block_diurnal, x, 4, True, stats)
    assert out["finished"].all() and stats[1] == 0
    exposed = _exposed(out, x)
    before_end = exposed - (x.delta + x.persist)
    dev = out["maintenance_events"] - x.maint_rate * before_end
    assert abs(_z_zero(dev)) < 4.0, _z_zero(dev)
    assert abs(_z_zero(out["maintenance_events"] - 1.1 * x.maint_rate * before_end)) > 4.0
    assert abs(_z_zero(out["maintenance_events"] - x.maint_rate * exposed)) > 4.0


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "shared", "long_tail", "tight_cap", "blocks", "blocks_tight_cap", "blocks_more_planned",
        "peaks_more_planned",
    ],
)  # fmt: skip
def test_diurnal_path_with_maintenance_matches_reference(name):
    x, _ = kernel_inputs(MAINT[name], None, 1500)
    stats = np.zeros(3, dtype=np.int64)
    fast = _run(_kernels._block_diurnal, x, 5, True, stats)
    assert stats[2] > 0
    slow = simulate_reference(x, np.random.default_rng(6))
    assert disagreements(fast, slow) == []
    _identity(slow)


@settings(max_examples=40, deadline=None, database=None)
@given(
    x=_random_inputs(),
    maint=st.sampled_from([0.0, 0.3, 2.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_invariants_hold_on_random_diurnal_path_scenarios(x, maint, seed):
    # test_physics' random scenarios, restricted to the diurnal path's configuration (no
    # trend or throughput cycle, unlimited spares, an amplitude > 0) with planned maintenance
    # at none, a moderate or a high rate: wall = progress + lost, no negative time, finished
    # trials complete, stopped ones at the cap or the budget, power swings paired
    x = dataclasses.replace(
        x,
        trend_shape=1.0,
        speed_amp=0.0,
        n_spares=-1,
        maint_rate=maint,
        cat_amp=np.maximum(x.cat_amp, 0.05),
        cap_hours=max(x.cap_hours, x.work_hours),
    )
    assert _applies(x)
    stats = np.zeros(3, dtype=np.int64)
    out = _run(_kernels._block_diurnal, x, seed, True, stats)
    _check_invariants(out, x)


def test_diurnal_terms_from_the_angles_are_the_same_floats():
    # The paths that compute the peak hours' angles once (the diurnal, physics, node and
    # combined paths: _diurnal_angles, then _diurnal_terms_at at every change of the rates)
    # rely on these being _diurnal_terms' floats, bit for bit; also where the terms are
    # written over the angles' arrays (each entry read before it is written). Negative
    # control: angles of a start hour 1e-9 h later are not the same floats.
    r = np.random.default_rng(11)
    for _ in range(200):
        k = int(r.integers(1, 20))
        w = r.exponential(1.0, k) * (r.random(k) < 0.8)
        amp = r.random(k)
        phase = r.uniform(0.0, 24.0, k)
        start = float(r.uniform(0.0, 24.0))
        pc, ps = np.empty(k), np.empty(k)
        want = _kernels._diurnal_terms(w, amp, phase, start, pc, ps)
        cos_a, sin_a = np.empty(k), np.empty(k)
        _kernels._diurnal_angles(phase, start, cos_a, sin_a)
        qc, qs = np.empty(k), np.empty(k)
        assert _kernels._diurnal_terms_at(w, amp, cos_a, sin_a, qc, qs) == want
        assert np.array_equal(qc, pc) and np.array_equal(qs, ps)
        assert _kernels._diurnal_terms_at(w, amp, cos_a, sin_a, cos_a, sin_a) == want
        assert np.array_equal(cos_a, pc) and np.array_equal(sin_a, ps)
    _kernels._diurnal_angles(phase, start + 1e-9, cos_a, sin_a)
    assert _kernels._diurnal_terms_at(w, amp, cos_a, sin_a, qc, qs) != want


def test_rates_with_the_clocks_that_run_use_the_angles_terms():
    # _active_rates (the physics paths) with the angles: each running category's terms, the
    # paused ones' zero, the same floats as _diurnal_terms of the running rates
    k = 5
    w = np.array([0.3, 0.2, 0.1, 0.05, 0.4])
    kind = np.array(
        [_kernels.KIND_FAILURE, _kernels.KIND_STRAGGLER, _kernels.KIND_SDC, 0, 0], np.int64
    )
    amp = np.array([0.5, 0.8, 0.2, 1.0, 0.0])
    phase = np.array([14.0, 3.0, 22.5, 9.0, 1.0])
    cos_a, sin_a = np.empty(k), np.empty(k)
    _kernels._diurnal_angles(phase, 6.0, cos_a, sin_a)
    for s_on, c_on in ((False, False), (True, False), (False, True), (True, True)):
        wa, pca, psa = np.empty(k), np.empty(k), np.empty(k)
        tot, zr, zi, a, th = _kernels._active_rates(
            w, kind, amp, cos_a, sin_a, s_on, c_on, wa, pca, psa, True
        )
        assert (a, th) == (math.hypot(zr, zi), math.atan2(zi, zr))
        running = w * np.array([1, not s_on, not c_on, 1, 1], dtype=float)
        assert np.array_equal(wa, running) and tot == sum(running)
        pc, ps = np.empty(k), np.empty(k)
        assert (zr, zi) == _kernels._diurnal_terms(running, amp, phase, 6.0, pc, ps)
        assert np.array_equal(pca, pc) and np.array_equal(psa, ps)
        assert (zr != 0.0) and (pca[1] == 0.0) == s_on and (pca[2] == 0.0) == c_on
    # unmodulated: the rates alone, terms and their amplitude and phase 0 (hypot and atan2 of 0)
    tot, *rest = _kernels._active_rates(
        w, kind, amp, cos_a, sin_a, False, False, wa, pca, psa, False
    )
    assert tot == w.sum() and rest == [0.0, 0.0, 0.0, 0.0]
