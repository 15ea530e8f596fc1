"""Periodic rate profiles: known answers on the oracle (and the kernel), with controls.

A category with a profile fails, while the job is exposed, with intensity
``Lambda_c q_c[k(t)] T(t)``, ``k(t) = floor((w0 + t) mod 168)``, ``w0 = week_hour0``
(:mod:`relmc.sim`, "Periodic rate profiles"); a category without one has a row of ones and
keeps its diurnal cosine.

Setup common to the counting answers: no checkpoint cost, no restart, detection or swap time,
an unlimited pool and a job far longer than the window (one segment of 1e9 h), so the job is
exposed for its whole wall time and a trial stopped by the wall cap at ``H`` counts the
failures of ``[0, H]`` (``max_events`` is left at 1e6, far above any count here). The count
of a category over an exposed interval is then Poisson with mean
``Lambda_c int_0^H q_c[k(t)] (1 + a_c cos(...)) T(t) dt`` (a non-homogeneous Poisson
process), and the counts of the categories are independent.

``q[k]`` is constant on each hour of the week, so every integral is a sum over the hour
pieces of ``[w0, w0 + H)`` (each cut at the integer hours of ``w0 + t``) of ``q[k]`` times
the integral of the other factors over the piece, which has a closed form (1: the piece's
length; the trend: ``A0 / beta ((1 + b / A0)^beta - (1 + a / A0)^beta)``; the cosine:
``(b - a) + a_c / w (sin(w (h0 + b - phi)) - sin(w (h0 + a - phi)))``). Without the other
factors the sum is also ``C(w0 + H) - C(w0)`` for the cumulative profile ``C`` (whole
weeks, whole hours, then the fraction of the last hour), checked against the pieces below.

Tolerances: a mean is checked at 4 standard errors of its *exact* sampling distribution
(Poisson: ``SE = sqrt(mean / N)``), two-sided 6.3e-5 per check; about 12 such checks per
engine, so a correct sampler fails this file with probability below 1e-3. The category mix
uses a pooled chi-square (p >= 1e-4). Every control misses its check by 9 to 200 standard
errors (the expected margin is stated with each), so a control passes by chance with
probability below 1e-8.

The kernel engine is parametrised too: both engines must meet every answer.
"""

from __future__ import annotations

import dataclasses
import math
import zlib

import numpy as np
import pytest
from nodeinputs import node_inputs, run
from physicsinputs import sdc_inputs
from scipy import stats

from relmc.sim import CAUSES
from relmc.sim.inputs import WEEK_HOURS
from relmc.sim.reference import simulate_reference

Z_TOL = 4.0
_SLOWDOWN = CAUSES.index("slowdown")

ENGINES = [
    "reference",
    "kernel",
]


def _weekly_profile() -> np.ndarray:
    """A daily profile with zeros and a 3x peak, halved at the weekend, normalised to mean 1.

    Every day: hours 2-4 (02:00 to 05:00) 0 (a maintenance window), hours 13-15 3, the rest
    1; Saturday and Sunday (days 5, 6) times 0.5. The raw week's mean is 27/28 (weekday
    27/24, weekend half that), so after normalising the weekday peak is 3.11 and the
    baseline 1.037.
    """
    raw = np.ones(WEEK_HOURS)
    for k in range(WEEK_HOURS):
        hour, day = k % 24, k // 24
        if hour in (2, 3, 4):
            raw[k] = 0.0
        elif hour in (13, 14, 15):
            raw[k] = 3.0
        if day >= 5:
            raw[k] *= 0.5
    return raw / raw.mean()


def _night_profile() -> np.ndarray:
    """Hours 1-5 of every day 3x the rest (no weekend change), normalised to mean 1."""
    raw = np.ones(WEEK_HOURS)
    for k in range(WEEK_HOURS):
        if k % 24 in (1, 2, 3, 4, 5):
            raw[k] = 3.0
    return raw / raw.mean()


Q = _weekly_profile()


def _cumulative(q: np.ndarray, u: float) -> float:
    """``C(u) = int_0^u q[floor(v) mod 168] dv`` for ``u >= 0``: weeks, hours, a fraction."""
    n = math.floor(u)
    weeks, k = divmod(n, WEEK_HOURS)
    return weeks * float(q.sum()) + float(q[:k].sum()) + (u - n) * float(q[k])


def _window(q: np.ndarray, w0: float, h: float) -> float:
    """``int_0^H q[k(t)] dt = C(w0 + H) - C(w0)``."""
    return _cumulative(q, w0 + h) - _cumulative(q, w0)


def _pieces(q: np.ndarray, w0: float, h: float, piece=lambda a, b: b - a) -> float:
    """``sum_pieces q[k] int_a^b g(t) dt`` over the hour pieces ``[a, b]`` of ``[0, H]``.

    ``piece(a, b)`` is the closed-form integral of the other factors ``g`` over the piece
    (default: ``g = 1``, the piece's length). The pieces end where ``w0 + t`` is an integer.
    """
    total, a, k = 0.0, 0.0, math.floor(w0)
    while a < h:
        b = min(k + 1 - w0, h)
        total += float(q[k % WEEK_HOURS]) * piece(a, b)
        a, k = b, k + 1
    return total


def _counting_inputs(rates, *, n_trials: int, w0: float, cap: float, profile, **kw):
    """Zero overheads, a job far longer than ``cap``: counts of ``[0, cap]`` (module)."""
    return node_inputs(
        np.atleast_2d(rates),
        n_trials=n_trials,
        cap_hours=cap,
        cat_profile=np.atleast_2d(profile),
        week_hour0=w0,
        **kw,
    )


def _z(sample, mean: float) -> float:
    """Signed standard errors of a Poisson sample's mean from ``mean`` (``SE = sqrt(m / N)``)."""
    sample = np.asarray(sample, dtype=float)
    return (sample.mean() - mean) / math.sqrt(mean / sample.size)


def test_the_two_closed_forms_of_a_window_agree():
    """The cumulative form and the sum over hour pieces are the same number (no sampling)."""
    for w0, h in ((5.6, 10.3), (160.4, 23.1), (88.05, 204.9), (0.0, 168.0), (167.99, 0.02)):
        assert _window(Q, w0, h) == pytest.approx(_pieces(Q, w0, h), rel=1e-12)
    assert _window(Q, 0.0, 168.0) == pytest.approx(168.0, rel=1e-12)  # mean 1 over a week


# ---- (a) expected count in windows ----------------------------------------------------------

#: (w0, H, Lambda, trials, expected |z| of the shifted-profile control)
WINDOWS = {
    # Monday 05:36 to 15:54: starts after the zero hours, ends in the peak
    "monday": (5.6, 10.3, 2.0, 1500, 33.0),
    # Sunday 16:24 to Monday 15:30: across the week's boundary
    "week_boundary": (160.4, 23.1, 2.0, 1000, 19.0),
    # Thursday 16:03 to the next Friday 04:57: across a week boundary, 8.5 days, ends in zeros
    "long": (88.05, 204.9, 1.25, 1000, 7.4),
}


@pytest.mark.parametrize(
    "window",
    [
        "monday",
        "week_boundary",
        pytest.param("long", marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_count_in_a_window_is_lambda_times_the_profile_integral(engine, window):
    """``E[N(0, H)] = Lambda (C(w0 + H) - C(w0))``; the one-hour shift misses.

    With zero overheads the exposed time is the wall time (module), so ``N(0, H)`` is
    Poisson with mean ``Lambda int_0^H q[k(t)] dt``, which is ``Lambda`` times the overlap
    of ``[w0, w0 + H)`` with each hour ``k`` of the week (mod 168) times ``q[k]``. Windows
    not aligned to hours; the profile has zeros, peaks and a weekend dip
    (:func:`_weekly_profile`); two windows cross the week's boundary. Expected (rate
    ``Lambda`` as in :data:`WINDOWS`): 33.39 (monday), 44.18 (week_boundary), 256.6 (long).
    Tolerance 4 SE, ``SE = sqrt(mean / N)``.

    Negative control: the same profile shifted one hour later (``q'[k] = q[k - 1]``)
    integrates to ``Lambda (C(w0 - 1 + H) - C(w0 - 1))``: it gains the hour before the window
    and loses its last hour, which the windows put on a zero and a peak, so it misses by
    33, 19 and 7.4 SE (stated in :data:`WINDOWS`); it must miss by more than 4.
    """
    w0, h, rate, n, _ = WINDOWS[window]
    out = run(engine, _counting_inputs([rate], n_trials=n, w0=w0, cap=h, profile=Q), 101)
    assert np.all(out["wall_hours"] == pytest.approx(h, rel=1e-12))
    assert not out["finished"].any()
    counts = out["interruptions"][:, 0]
    mean = rate * _window(Q, w0, h)
    assert abs(_z(counts, mean)) < Z_TOL, (counts.mean(), mean)
    shifted = rate * _window(np.roll(Q, 1), w0, h)
    assert abs(_z(counts, shifted)) > Z_TOL, (counts.mean(), shifted)


# ---- (b) category mix by hour ---------------------------------------------------------------

MIX_RATES = (6.0, 6.0)
#: hours of the week (Monday 03, 09, 14, Saturday 14), each observed over [k + 0.1, k + 0.9)
MIX_HOURS = (3, 9, 14, 134)
MIX_TRIALS = 400


def _mix_fraction(k: int, q1: np.ndarray, q2: np.ndarray) -> float:
    """``Lambda_1 q_1[k] / (Lambda_1 q_1[k] + Lambda_2 q_2[k])``."""
    a, b = MIX_RATES[0] * q1[k], MIX_RATES[1] * q2[k]
    return float(a / (a + b))


def _mix_counts(engine: str) -> dict[int, tuple[int, int]]:
    """Per hour ``k``: (failures of category 1, all failures) in ``[k + 0.1, k + 0.9)``."""
    profile = np.stack([Q, _night_profile()])
    found = {}
    for i, k in enumerate(MIX_HOURS):
        inputs = _counting_inputs(
            [MIX_RATES], n_trials=MIX_TRIALS, w0=k + 0.1, cap=0.8, profile=profile
        )
        counts = run(engine, inputs, 200 + i)["interruptions"].sum(axis=0)
        found[k] = (int(counts[0]), int(counts.sum()))
    return found


def _mix_chi2(found, q1: np.ndarray, q2: np.ndarray) -> tuple[float, int]:
    """Pooled ``sum_k (x_k - n_k p_k)^2 / (n_k p_k (1 - p_k))`` over hours with ``0 < p_k < 1``."""
    chi2, df = 0.0, 0
    for k, (x, n) in found.items():
        p = _mix_fraction(k, q1, q2)
        if 0.0 < p < 1.0:
            chi2 += (x - n * p) ** 2 / (n * p * (1.0 - p))
            df += 1
    return chi2, df


@pytest.mark.parametrize("engine", ENGINES)
def test_category_mix_by_hour_of_the_week(engine):
    """Among failures in hour ``k``, category 1's share is ``L1 q1[k] / (L1 q1[k] + L2 q2[k])``.

    Each hour is observed alone: ``week_hour0 = k + 0.1``, a cap of 0.8 h, so every failure
    of a trial is in hour ``k``. There the two counts are independent Poisson with means
    ``0.8 Lambda_c q_c[k]`` (summed over trials, still Poisson), so given the total ``n_k``
    category 1's count is ``Binomial(n_k, p_k)``. Profiles: category 1 the weekly one
    (zeros at night, a weekday peak, a weekend dip), category 2 a night profile (3x at hours
    1-5); ``Lambda = 6/h`` each. ``p_k`` = 0 (Monday 03: category 1's zero), 0.595 (Monday
    09), 0.815 (Monday 14), 0.688 (Saturday 14), for about 2,000-4,000 failures an hour.
    Checks: no failure of category 1 in its zero hour; the pooled chi-square over the other
    three hours (3 degrees of freedom) has p >= 1e-4.

    Negative control: the hour-blind share ``Lambda_1 / (Lambda_1 + Lambda_2) = 0.5`` (both
    profiles flat) is off by about 11, 54 and 25 SE in those hours and 64 in the zero hour (a
    chi-square of several thousand on 4 degrees of freedom); it must have p < 1e-12.
    """
    found = _mix_counts(engine)
    q1, q2 = Q, _night_profile()
    assert _mix_fraction(3, q1, q2) == 0.0
    assert found[3][0] == 0 and found[3][1] > 500, found
    assert all(n > 1000 for _, n in found.values()), found
    chi2, df = _mix_chi2(found, q1, q2)
    assert df == 3 and stats.chi2.sf(chi2, df) >= 1e-4, (chi2, found)
    flat = np.ones(WEEK_HOURS)
    blind, blind_df = _mix_chi2(found, flat, flat)
    assert stats.chi2.sf(blind, blind_df) < 1e-12, (blind, found)


# ---- (c) a profile with a trend ---------------------------------------------------------------

#: beta: (Lambda, A0) — wear-out and burn-in
TRENDS = {2.0: (0.4, 20.0), 0.5: (1.0, 5.0)}
TREND_W0, TREND_H, TREND_TRIALS = 30.3, 60.5, 800


def _trend_piece(beta: float, age: float):
    """``int_a^b (1 + t / A0)^(beta - 1) dt``: ``A0 / beta ((1 + b/A0)^beta - (1 + a/A0)^beta)``."""
    return lambda a, b: age / beta * ((1.0 + b / age) ** beta - (1.0 + a / age) ** beta)


@pytest.mark.parametrize("beta", sorted(TRENDS))
@pytest.mark.parametrize("engine", ENGINES)
def test_count_under_a_profile_and_a_trend(engine, beta):
    """``E[N] = Lambda int_0^H q[k(t)] T(t) dt``, summed exactly over the hour pieces.

    On each hour piece ``[a, b]`` the profile is ``q[k]`` and the trend integrates to
    ``A0 / beta ((1 + b / A0)^beta - (1 + a / A0)^beta)``. Window Tuesday 06:18 + 60.5 h.
    Expected: 75.92 (``beta = 2``, ``Lambda = 0.4``, ``A0 = 20``) and 32.72 (``beta = 0.5``,
    ``Lambda = 1``, ``A0 = 5``); tolerance 4 SE, ``SE = sqrt(mean / 800)``.

    Negative controls: the profile without the trend (``Lambda (C(w0 + H) - C(w0))``: 30.07
    and 75.19) and the trend without the profile (``Lambda A0 / beta ((1 + H/A0)^beta - 1)``:
    60.80 and 26.19) miss by 35 to 240 SE; each must miss by more than 4.
    """
    rate, age = TRENDS[beta]
    inputs = _counting_inputs(
        [rate],
        n_trials=TREND_TRIALS,
        w0=TREND_W0,
        cap=TREND_H,
        profile=Q,
        trend_shape=beta,
        fleet_age_hours=age,
    )
    counts = run(engine, inputs, 300)["interruptions"][:, 0]
    piece = _trend_piece(beta, age)
    mean = rate * _pieces(Q, TREND_W0, TREND_H, piece)
    assert abs(_z(counts, mean)) < Z_TOL, (counts.mean(), mean)
    no_trend = rate * _window(Q, TREND_W0, TREND_H)
    no_profile = rate * piece(0.0, TREND_H)
    for control in (no_trend, no_profile):
        assert abs(_z(counts, control)) > Z_TOL, (counts.mean(), control)


# ---- (c2) low hours: thinned against their own bound ---------------------------------------


def _low_profile() -> np.ndarray:
    """Hours 0-11 of every day at 0.01 of hours 12-23, normalised to mean 1.

    The low hours' rate is 0.0198, the high ones' 1.98: the low hours are below
    ``PROFILE_LOW`` (1/64) of the week's bound, so the kernel thins them against their own.
    """
    raw = np.array([0.01 if k % 24 < 12 else 1.0 for k in range(WEEK_HOURS)])
    return raw / raw.mean()


LOW_RATES = (150.0, 0.8)  # per hour: the profiled category, and one with a cosine
LOW_AMP, LOW_PEAK, LOW_BETA, LOW_AGE = 1.0, 6.0, 2.0, 20.0
LOW_W0, LOW_H, LOW_TRIALS = 1.1, 10.95, 800  # Monday 01:06 to 12:03: low hours, 3 min high


@pytest.mark.parametrize("engine", ENGINES)
def test_low_hours_thinned_against_their_own_bound(engine):
    """A window of a profile's low hours and 3 minutes of a high one, a trend and a cosine.

    Category 0 follows :func:`_low_profile` (``Lambda_0 = 150 /h``), category 1 a row of ones
    with ``a_1 = 1`` peaking at 06:00 (``Lambda_1 = 0.8 /h``), both times the trend
    ``(1 + t / 20)`` (``beta = 2``); a low hour's own bound ``Lambda_0 q_low + Lambda_1 (1 +
    a_1)`` = 4.57 is below 1/64 of the week's (4.67), so after a rejection in one of them
    ``_fail_gap_profile`` thins the rest of that hour against it, and the week's bound
    resumes at the hour's end (the oracle thins each run of equal hours against its own
    multiplier, ``ReferenceSim.pieces``). Monday 01:06 to 12:03: ``E[N_0] = Lambda_0 sum_pieces q[k]
    int T`` = 64.2 (41.2 in the low hours, 23.0 in hour 12's first 3 minutes) and ``E[N_1] =
    Lambda_1 int_0^H T(t) (1 + a_1 cos(w (w0 + t - 6))) dt`` = 18.6 (quadrature); tolerance
    4 SE each, ``SE = sqrt(mean / 800)``.

    Negative controls, each must miss by more than 4 SE: category 1 without its cosine
    (``Lambda_1 int T`` = 11.2, 49 SE off: a low-hour bound that left out the amplitude
    would cut the cosine's excess); category 0's low hours alone (41.2, 81 SE: a low
    hour's bound carried past its end, into hour 12); category 0 at the high hours' rate
    over the window (a low hour taken at the week's bound and not thinned: 4143).
    """
    from scipy import integrate

    q = _low_profile()
    inputs = _counting_inputs(
        np.array([LOW_RATES]),
        n_trials=LOW_TRIALS,
        w0=LOW_W0,
        cap=LOW_H,
        profile=np.stack([q, np.ones(WEEK_HOURS)]),
        cat_amp=np.array([0.0, LOW_AMP]),
        cat_phase=np.array([0.0, LOW_PEAK]),
        start_hour=LOW_W0 % 24.0,
        trend_shape=LOW_BETA,
        fleet_age_hours=LOW_AGE,
    )
    out = run(engine, inputs, 500)
    n0, n1 = out["interruptions"][:, 0], out["interruptions"][:, 1]
    trend = _trend_piece(LOW_BETA, LOW_AGE)
    m0 = LOW_RATES[0] * _pieces(q, LOW_W0, LOW_H, trend)
    w = 2.0 * math.pi / 24.0

    def intensity(t: float, amp: float) -> float:
        return (1.0 + t / LOW_AGE) * (1.0 + amp * math.cos(w * (LOW_W0 + t - LOW_PEAK)))

    m1 = LOW_RATES[1] * integrate.quad(intensity, 0.0, LOW_H, args=(LOW_AMP,))[0]
    assert abs(_z(n0, m0)) < Z_TOL, (n0.mean(), m0)
    assert abs(_z(n1, m1)) < Z_TOL, (n1.mean(), m1)
    no_cosine = LOW_RATES[1] * integrate.quad(intensity, 0.0, LOW_H, args=(0.0,))[0]
    assert abs(_z(n1, no_cosine)) > Z_TOL, (n1.mean(), no_cosine)
    low_only = LOW_RATES[0] * _pieces(q, LOW_W0, 12.0 - LOW_W0, trend)
    high = LOW_RATES[0] * q.max() * trend(0.0, LOW_H)
    for control in (low_only, high):
        assert abs(_z(n0, control)) > Z_TOL, (n0.mean(), control)


def test_the_oracles_pieces_hold_each_hours_multiplier_past_a_rounded_hour_end():
    """The oracle's pieces carry the multiplier of the hour they cover, whatever the rounding.

    Hour ends are stepped by whole hours from the first; at a fractional ``week_hour0`` an
    end past 1024 h rounds just below the hour's true end. Looked up there, the multiplier
    was the previous hour's for every piece after it: with ``week_hour0 = 96.3`` and hour
    113 of the week at 50 (zeros elsewhere), the interval [997.43, 1040) h had its high
    piece an hour late, [1025.7, 1026.7), while hour 113 is [1024.7, 1025.7). Known answer:
    that piece; and over 20,000 random intervals (offsets, rows of 0/1/2, up to 3,000 h)
    every piece's multiplier is the row's at the piece's midpoint (0.6% of pieces were not).
    """
    import random

    from relmc.sim.reference import _Trial

    t = object.__new__(_Trial)  # (pieces reads only the profile, its constancy and week0)
    row = [0.0] * WEEK_HOURS
    row[113] = 50.0
    t.profile, t.constant, t.week0 = [row], [False], 96.3
    pieces = t.pieces(0, 997.428354754894, 1040.0)
    high = [(a, b) for a, b, q in pieces if q == 50.0]
    assert high == [pytest.approx((1024.7, 1025.7), abs=1e-9)], pieces
    rng = random.Random(1)
    bad = 0
    for _ in range(20_000):
        t.week0 = rng.uniform(0.0, WEEK_HOURS)
        t.profile = [[rng.choice((0.0, 1.0, 2.0)) for _ in range(WEEK_HOURS)]]
        a = rng.uniform(0.0, 3000.0)
        for x, y, q in t.pieces(0, a, a + rng.uniform(0.0, 60.0)):
            mid = math.floor((t.week0 + 0.5 * (x + y)) % WEEK_HOURS)
            bad += y - x > 1e-6 and t.profile[0][mid] != q
    assert bad == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_a_profile_of_zeros_but_one_hour_at_a_high_rate_ends_at_once(engine):
    """Zero (or 1e-9) hours but the week's last, ``Lambda = 1e5 /h``: both engines end at once.

    Normalised to mean 1, the last hour's multiplier is ~168: a bound over the whole week,
    1.7e7 per hour, would propose ~1.7e9 candidates in 100 h (the kernel's near-hang before it
    thinned low hours against their own bound; the oracle's too before it split an interval
    at the hours where the multiplier changes). Known answers over ``[0, 100 h]`` from Monday
    00:00 (hours 0-99, all low): zeros, no failure; 1e-9, ``E[N] = Lambda q_low 100`` = 1.68
    (``q_low = 1e-9 / mean``), 4 SE at 400 trials. Negative control: that mean is more than 4
    SE from 0 and from the rate at the week's mean (``Lambda 100``). A test that did not skip
    would not end; none measures time. The kernel inverts a profile alone and thins it under
    a trend, so it runs both ways: as given, and with a trend of shape ``1 + 1e-6`` on a
    fleet 1,000 h old (a factor within 1e-7 of 1 over the window: the same answers).
    """
    rate, h, n = 1e5, 100.0, 400
    forms = [{}, {"trend_shape": 1.0 + 1e-6, "fleet_age_hours": 1e3}]
    for form in forms if engine == "kernel" else forms[:1]:
        counts = {}
        for low in (0.0, 1e-9):
            raw = np.array([low] * (WEEK_HOURS - 1) + [1.0])
            inputs = _counting_inputs(
                [rate], n_trials=n, w0=0.0, cap=h, profile=raw / raw.mean(), **form
            )
            counts[low] = run(engine, inputs, 8)["interruptions"][:, 0]
        assert counts[0.0].sum() == 0
        q_low = 1e-9 / ((WEEK_HOURS - 1) * 1e-9 + 1.0) * WEEK_HOURS
        mean = rate * q_low * h
        assert abs(_z(counts[1e-9], mean)) < Z_TOL, (form, counts[1e-9].mean(), mean)
        for control in (1e-3, rate * h):  # (a Poisson SE needs a positive mean: 0 as 1e-3)
            assert abs(_z(counts[1e-9], control)) > Z_TOL, (counts[1e-9].mean(), control)


# ---- (d) a profile on one category, a diurnal cosine on another -----------------------------

MIXED_RATES = (1.5, 2.0)
MIXED_AMP, MIXED_PEAK = 0.8, 15.0
MIXED_W0, MIXED_H, MIXED_TRIALS = 58.0, 10.0, 800  # Wednesday 10:00 to 20:00


def _cosine_piece(amp: float, peak: float, h0: float):
    """``int_a^b 1 + amp cos(w (h0 + t - peak)) dt``, ``w = 2 pi / 24``."""
    w = 2.0 * math.pi / 24.0

    def piece(a: float, b: float) -> float:
        return (b - a) + amp / w * (math.sin(w * (h0 + b - peak)) - math.sin(w * (h0 + a - peak)))

    return piece


@pytest.mark.parametrize("engine", ENGINES)
def test_profile_on_one_category_and_a_cosine_on_the_other(engine):
    """Category 0 follows the weekly profile, category 1 (a row of ones) its own cosine.

    ``E[N_0] = Lambda_0 (C(w0 + H) - C(w0))`` = 24.89 and ``E[N_1] = Lambda_1 (H + a / w
    (sin(w (h0 + H - phi)) - sin(w (h0 - phi))))`` = 31.81 (``Lambda = 1.5, 2 /h``,
    ``a_1 = 0.8`` peaking at 15:00, ``a_0 = 0``; Wednesday 10:00 to 20:00, ``start_hour =
    w0 mod 24 = 10``). Tolerance 4 SE each, ``SE = sqrt(mean / 800)``.

    Negative controls: the cosine also on category 0 (``Lambda_0 sum q[k] int (1 + a cos)``:
    92.96, 72 SE off); category 1 without its cosine (``Lambda_1 H = 20``, 73 SE) and with
    category 0's profile too (89 SE); each must miss by more than 4.
    """
    rates = np.array([MIXED_RATES])
    h0 = MIXED_W0 % 24.0
    inputs = _counting_inputs(
        rates,
        n_trials=MIXED_TRIALS,
        w0=MIXED_W0,
        cap=MIXED_H,
        profile=np.stack([Q, np.ones(WEEK_HOURS)]),
        cat_amp=np.array([0.0, MIXED_AMP]),
        cat_phase=np.array([0.0, MIXED_PEAK]),
        start_hour=h0,
    )
    out = run(engine, inputs, 400)
    n0, n1 = out["interruptions"][:, 0], out["interruptions"][:, 1]
    cosine = _cosine_piece(MIXED_AMP, MIXED_PEAK, h0)
    m0 = MIXED_RATES[0] * _window(Q, MIXED_W0, MIXED_H)
    m1 = MIXED_RATES[1] * cosine(0.0, MIXED_H)
    assert abs(_z(n0, m0)) < Z_TOL, (n0.mean(), m0)
    assert abs(_z(n1, m1)) < Z_TOL, (n1.mean(), m1)
    both_on_0 = MIXED_RATES[0] * _pieces(Q, MIXED_W0, MIXED_H, cosine)
    assert abs(_z(n0, both_on_0)) > Z_TOL, (n0.mean(), both_on_0)
    for control in (
        MIXED_RATES[1] * MIXED_H,
        MIXED_RATES[1] * _pieces(Q, MIXED_W0, MIXED_H, cosine),
    ):
        assert abs(_z(n1, control)) > Z_TOL, (n1.mean(), control)


# ---- a table of ones is no profile ---------------------------------------------------------


def test_a_table_of_ones_is_bit_for_bit_the_process_without_profiles_oracle():
    """Oracle only: under a cosine (already thinned) a table of ones changes no draw.

    The bound is multiplied by ``max q = 1`` and each acceptance test by ``q = 1``, exactly,
    so the same seed gives the same trials. (The kernel need only agree in law.) Control:
    a profile that is not flat changes the counts.
    """
    base = node_inputs(
        [[1.0, 0.5]],
        n_trials=200,
        cap_hours=30.0,
        restart_hours=0.1,
        detect=[0.05, 0.2],
        cat_amp=np.array([0.5, 0.3]),
        cat_phase=np.array([14.0, 3.0]),
        start_hour=7.5,
    )
    ones = dataclasses.replace(base, cat_profile=np.ones((2, WEEK_HOURS)), week_hour0=31.5)
    a = simulate_reference(base, np.random.default_rng(5))
    b = simulate_reference(ones, np.random.default_rng(5))
    for name in ("wall_hours", "interruptions", "lost_hours", "progress_hours"):
        np.testing.assert_array_equal(a[name], b[name])
    other = dataclasses.replace(ones, cat_profile=np.stack([Q, np.ones(WEEK_HOURS)]))
    c = simulate_reference(other, np.random.default_rng(5))
    assert not np.array_equal(a["interruptions"], c["interruptions"])


# ---- (e) invariants on random scenarios with profiles ----------------------------------------


def _random_profile(rng: np.random.Generator) -> np.ndarray:
    """168 gamma-distributed values, about a tenth of them 0, normalised to mean 1."""
    q = rng.gamma(2.0, 1.0, WEEK_HOURS) * (rng.random(WEEK_HOURS) > 0.1)
    return q / q.mean()


def _profiles(rng: np.random.Generator, n_cat: int, on) -> np.ndarray:
    """Rows: a random profile for the categories in ``on``, ones for the others."""
    return np.stack(
        [_random_profile(rng) if c in on else np.ones(WEEK_HOURS) for c in range(n_cat)]
    )


def _run_of_the_job(rng: np.random.Generator) -> dict:
    """A random job: work, checkpoints, overheads, start time (hours)."""
    w0 = float(rng.uniform(0.0, WEEK_HOURS))
    return dict(
        work_hours=float(rng.uniform(40.0, 120.0)),
        tau=float(rng.uniform(2.0, 8.0)),
        delta=float(rng.uniform(0.02, 0.2)),
        persist=float(rng.uniform(0.0, 1.0)),
        restart_hours=float(rng.uniform(0.05, 0.5)),
        week_hour0=w0,
        start_hour=w0 % 24.0,
    )


def _scenario(name: str, n_trials: int = 150):
    """One of the random scenarios of (e), drawn from a seed of its own."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    job = _run_of_the_job(rng)
    rates = rng.uniform(0.02, 0.15, size=3)
    if name == "maintenance":
        return node_inputs(
            [rates[:2]],
            n_trials=n_trials,
            detect=[0.1, 0.4],
            maint_rate=0.05,
            maint_hours=1.5,
            cat_profile=_profiles(rng, 2, on={0}),
            cat_amp=np.array([0.0, 0.6]),
            cat_phase=np.array([0.0, 9.0]),
            speed_amp=0.05,
            speed_phase=4.0,
            cap_hours=job["work_hours"] * 5,
            **job,
        )
    if name == "finite_spares":
        return node_inputs(
            [rates[:2]],
            n_trials=n_trials,
            detect=[0.2, 0.05],
            swap=[True, True],
            swap_hours=0.5,
            n_spares=1,
            repair_hours=25.0,
            trend_shape=1.6,
            fleet_age_hours=200.0,
            cat_profile=_profiles(rng, 2, on={0, 1}),
            cap_hours=job["work_hours"] * 5,
            **job,
        )
    if name == "node_model":
        return node_inputs(
            [rates[:2]],
            n_trials=n_trials,
            detect=[0.1, 0.1],
            swap=[True, False],
            swap_hours=0.3,
            n_nodes=16,
            bad_fraction=0.15,
            bad_multiplier=[5.0, 1.0],
            cat_domain=[1, 4],
            diag_hours=[0.2, 0.1],
            diag_wrong=[0.1, 0.0],
            lemon_k=2,
            lemon_window=200.0,
            n_standbys=1,
            n_spares=4,
            repair_hours=20.0,
            mem_restart_hours=0.05,
            cat_profile=_profiles(rng, 2, on={1}),
            cap_hours=job["work_hours"] * 5,
            **job,
        )
    if name == "stragglers_sdc":
        return sdc_inputs(
            [rates * 2.0],
            n_trials=n_trials,
            detect=[0.1, 1.5, 0.2],
            swap=[True, True, False],
            swap_hours=0.2,
            cat_kind=[0, 1, 2],
            straggler_speed=[1.0, 0.5, 1.0],
            sdc_latency=[0.0, 0.0, 3.0],
            sdc_latency_exp=[False, False, True],
            retention=2,
            cat_profile=_profiles(rng, 3, on={1, 2}),
            cat_amp=np.array([0.5, 0.0, 0.0]),
            cat_phase=np.array([20.0, 0.0, 0.0]),
            cap_hours=job["work_hours"] * 5,
            **job,
        )
    if name == "per_draw_physics":
        n_draws = 3
        inputs = node_inputs(
            rng.uniform(0.02, 0.15, size=(n_draws, 2)),
            n_trials=n_trials,
            detect=[0.1, 0.3],
            cat_profile=_profiles(rng, 2, on={0}),
            # amplitudes only on the category without a profile
            draw_amp=np.column_stack([np.zeros(n_draws), rng.uniform(0.0, 0.9, n_draws)]),
            draw_phase=rng.uniform(0.0, 24.0, size=(n_draws, 2)),
            draw_trend=rng.uniform(0.5, 2.0, n_draws),
            fleet_age_hours=100.0,
            cap_hours=job["work_hours"] * 5,
            **job,
        )
        draws = rng.integers(0, n_draws, n_trials).astype(np.int64)
        return dataclasses.replace(inputs, draw_of_trial=draws)
    assert name == "cap_and_event_budget"
    return node_inputs(
        [rates * 4.0],
        n_trials=n_trials,
        detect=[0.1, 0.2, 0.05],
        maint_rate=0.1,
        maint_hours=0.5,
        trend_shape=0.7,
        fleet_age_hours=50.0,
        overhead_jitter=np.array([0.3, 0.0, 0.2, 0.0]),
        max_events=6,
        cat_profile=_profiles(rng, 3, on={0, 1, 2}),
        cap_hours=job["work_hours"] * 1.3,
        **job,
    )


SCENARIOS = (
    "maintenance",
    "finite_spares",
    "node_model",
    "stragglers_sdc",
    "per_draw_physics",
    "cap_and_event_budget",
)


def _accounting_breaks(out, work: float) -> list[str]:
    """The invariants that fail: identity, signs, progress of finished trials."""
    bad = []
    wall, progress, lost = out["wall_hours"], out["progress_hours"], out["lost_hours"]
    if not np.allclose(progress + lost.sum(axis=1), wall, rtol=1e-9, atol=0.0):
        bad.append("wall != progress + sum(lost)")
    others = np.delete(lost, _SLOWDOWN, axis=1)
    if np.any(others < -1e-12 * np.maximum(wall, 1.0)[:, None]):
        bad.append("negative lost hours")
    done = out["finished"].astype(bool)
    if not np.allclose(progress[done], work, rtol=1e-9, atol=0.0):
        bad.append("finished with progress != W")
    return bad


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("engine", ENGINES)
def test_accounting_invariants_with_profiles(engine, name):
    """``wall == progress + sum(lost)`` (1e-9 relative), no negative lost hours but
    ``slowdown``, finished trials have ``progress == W``; the scenarios have failures.

    Random scenarios (seeded) with profiles on: maintenance and a throughput cycle, a finite
    pool with a trend, the node model (lemons, blast radius, diagnosis, standbys, memory
    restore), stragglers and SDC with a profile each, per-draw physics (amplitudes on the
    category without a profile), and a tight wall cap with an event budget and jittered
    overheads. The identities are exact up to rounding, hence 1e-9.

    Negative control: the same outputs with one cause's column dropped (the largest but
    ``slowdown``) break the identity.
    """
    inputs = _scenario(name)
    assert not (inputs.physics and inputs.node_model)  # the kernel's stragglers: no nodes
    out = run(engine, inputs, 500)
    assert out["interruptions"].sum() > 0
    assert _accounting_breaks(out, inputs.work_hours) == []
    others = np.delete(np.arange(len(CAUSES)), _SLOWDOWN)
    worst = others[np.argmax(out["lost_hours"][:, others].sum(axis=0))]
    dropped = dict(out, lost_hours=out["lost_hours"].copy())
    dropped["lost_hours"][:, worst] = 0.0
    assert "wall != progress + sum(lost)" in _accounting_breaks(dropped, inputs.work_hours)


@pytest.mark.slow
@pytest.mark.parametrize("name", SCENARIOS)
def test_kernel_matches_the_oracle_with_profiles(name):
    """Kernel vs oracle on the random scenarios of (e) at 1,000 trials: every output's mean
    within 4.5 combined SE and wall time by KS (tests/kernelcheck.py)."""
    from kernelcheck import disagreements

    x = _scenario(name, n_trials=1000)
    assert x.cat_profile.shape[0] > 0
    bad = disagreements(run("reference", x, 500), run("kernel", x, 600))
    assert not bad, bad
