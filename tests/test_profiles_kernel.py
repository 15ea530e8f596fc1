"""The kernel's periodic rate profiles (contract: "Periodic rate profiles" in relmc.sim).

The kernel alone, on ``KernelInputs`` built here: a profile of ones changes no bit of a
process already time-varying (a cosine, a trend) on every path; a profile of ones alone is
the process without it in law; no failure of a category falls in an hour where its profile
is zero; the accounting identity on random scenarios of every path; the renewal path is
never taken with profiles. Known answers and the oracle are tested elsewhere.
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from typing import Any

import numpy as np
import pytest
from kernelcheck import TIMELINE
from scipy import stats
from threecats import run_path

from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import (
    WEEK_HOURS,
    KernelInputs,
)
from relmc.sim.simulate import run_kernel

REL = 1e-9
Z_MAX = 4.5


def _run(x: KernelInputs, seed: int = 3) -> dict[str, np.ndarray]:
    return run_kernel(x, np.random.SeedSequence(seed))[0]


_run_path = run_path


def _inputs(rates, *, n_trials: int = 512, **kw: Any) -> KernelInputs:
    """KernelInputs for one rate row (the kernel's exact types; no overheads unless given)."""
    rates = np.atleast_2d(np.asarray(rates, dtype=np.float64))
    n_cat = rates.shape[1]
    args: dict[str, Any] = dict(
        cat_rate=rates,
        draw_of_trial=np.arange(n_trials, dtype=np.int64) % rates.shape[0],
        detect_hours=np.zeros(n_cat),
        swap=np.zeros(n_cat, dtype=np.bool_),
        maint_rate=0.0,
        maint_hours=0.0,
        work_hours=200.0,
        tau=4.0,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=0.0,
        cap_hours=math.inf,
    )
    for name in ("cat_amp", "cat_phase", "bad_multiplier", "diag_hours", "diag_wrong"):
        if name in kw:
            kw[name] = np.asarray(kw[name], dtype=np.float64)
    for name in ("cat_domain", "cat_kind"):
        if name in kw:
            kw[name] = np.asarray(kw[name], dtype=np.int64)
    args.update(kw)
    return KernelInputs(**args)


def _ones(n_cat: int) -> np.ndarray:
    return np.ones((n_cat, WEEK_HOURS))


def _same(a: dict, b: dict, names=TIMELINE) -> None:
    for name in names:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


#: Scenarios already time-varying (a cosine or a trend) on every path: a profile of ones on
#: them must change no bit.
NODE = dict(
    n_nodes=16,
    bad_fraction=0.2,
    bad_multiplier=[4.0, 1.0, 2.0],
    cat_domain=[1, 1, 4],
    diag_hours=[0.2, 0.0, 0.1],
    diag_wrong=[0.1, 0.0, 0.0],
    lemon_k=2,
    lemon_window=300.0,
    n_standbys=1,
    escalate_prob=0.3,
)
PHYS = dict(
    cat_kind=[0, 1, 2],
    straggler_speed=np.array([1.0, 0.5, 1.0]),
    sdc_latency=np.array([0.0, 0.0, 4.0]),
    sdc_latency_exp=np.array([False, False, True]),
    retention=2,
)
COSINE = dict(cat_amp=[0.5, 0.0, 0.8], cat_phase=[3.0, 0.0, 17.0], start_hour=6.5)
OVERHEADS = dict(
    maint_rate=0.02,
    maint_hours=3.0,
    detect_hours=np.array([0.2, 0.1, 0.3]),
    swap=np.array([True, False, True]),
    delta=0.1,
    persist=0.4,
    restart_hours=0.3,
    swap_hours=0.5,
    n_spares=2,
    repair_hours=30.0,
    cap_hours=900.0,
)
VARYING = {
    "general_cosine": dict(**COSINE, **OVERHEADS),
    "general_shared": dict(cat_amp=[0.4] * 3, cat_phase=[5.0] * 3, **OVERHEADS),
    "general_trend_speed": dict(
        trend_shape=1.3, fleet_age_hours=400.0, speed_amp=0.03, **COSINE, **OVERHEADS
    ),
    "general_jitter": dict(
        trend_shape=0.8, overhead_jitter=np.array([0.2, 0.1, 0.3, 0.2]), **OVERHEADS
    ),
    "node_cosine": dict(**NODE, **COSINE, **OVERHEADS),
    "node_trend": dict(**NODE, trend_shape=1.2, fleet_age_hours=300.0, **OVERHEADS),
    "physics_cosine": dict(**PHYS, **COSINE, trend_shape=1.2, fleet_age_hours=300.0),
    "per_draw": dict(
        draw_amp=np.array([[0.3, 0.0, 0.5], [0.0, 0.0, 0.0]]),
        draw_phase=np.array([[1.0, 0.0, 9.0], [0.0, 0.0, 0.0]]),
        draw_trend=np.array([1.2, 1.0]),
        **OVERHEADS,
    ),
}
RATES = [0.03, 0.06, 0.02]


@pytest.mark.parametrize("name", list(VARYING))
def test_ones_on_a_varying_process_change_no_bit(name):
    # a profile of ones multiplies every rate by exactly 1.0 along the same draws: the same
    # thinning bound, the same acceptances, the same category picks
    kw = dict(VARYING[name])
    rates = [RATES, [0.02, 0.03, 0.05]] if name == "per_draw" else RATES
    x = _inputs(rates, n_trials=300, **kw)
    assert x.modulated
    y = dataclasses.replace(x, cat_profile=_ones(3), week_hour0=101.25)
    _same(_run(x), _run(y))


def test_ones_alone_are_the_process_without_them_in_law():
    # no cosine, no trend: ones switch the time-varying sampler on (a different draw
    # sequence), so equal in law only
    x = _inputs(RATES, n_trials=4000, **OVERHEADS)
    y = dataclasses.replace(x, cat_profile=_ones(3), week_hour0=12.0)
    a, b = _run(x, 1), _run(y, 2)
    for name in ("wall_hours", "events", "interruptions", "maintenance_events"):
        va = np.asarray(a[name], dtype=float).reshape(x.n_trials, -1)
        vb = np.asarray(b[name], dtype=float).reshape(x.n_trials, -1)
        se = np.sqrt((va.var(axis=0) + vb.var(axis=0)) / x.n_trials)
        z = (va.mean(axis=0) - vb.mean(axis=0)) / np.where(se > 0, se, 1.0)
        assert np.all(np.abs(z) < Z_MAX), (name, z)


def _night_profile(n_cat: int, which) -> np.ndarray:
    """Zero from 00:00 to 08:00 every day and all Sunday for the categories in ``which``."""
    prof = _ones(n_cat)
    q = np.ones(WEEK_HOURS)
    for k in range(WEEK_HOURS):
        if k % 24 < 8 or k >= 144:
            q[k] = 0.0
    q /= q.mean()
    for c in which:
        prof[c] = q
    return prof


def _first_failure_hours(x: KernelInputs, seed: int):
    out = _run(x, seed)
    assert np.all(out["events"] == 1)
    k = np.floor(np.fmod(x.week_hour0 + out["wall_hours"], WEEK_HOURS)).astype(int)
    return out, k


FIRST = {
    # one category (its shape shared), two with different profiles, a cosine on the other
    "general_one": dict(rates=[0.05], prof=[0]),
    "general_shared_rows": dict(rates=[0.02, 0.04], prof=[0, 1]),
    "general_cosine": dict(
        rates=[0.03, 0.05], prof=[0], cat_amp=[0.0, 0.7], cat_phase=[0.0, 4.0], start_hour=3.0
    ),
    "general_trend": dict(rates=[0.05, 0.01], prof=[0], trend_shape=0.6, fleet_age_hours=50.0),
    "node": dict(
        rates=[0.03, 0.03],
        prof=[0],
        n_nodes=8,
        bad_fraction=0.3,
        bad_multiplier=[5.0, 1.0],
        cat_domain=[1, 4],
    ),
    "node_shared_rows": dict(rates=[0.03, 0.02], prof=[0, 1], n_nodes=8, bad_fraction=0.3),
    "physics": dict(
        rates=[0.04, 0.03],
        prof=[0],
        cat_kind=[0, 1],
        straggler_speed=np.array([1.0, 0.5]),
        sdc_latency=np.zeros(2),
        sdc_latency_exp=np.zeros(2, dtype=np.bool_),
    ),
}


@pytest.mark.parametrize("name", list(FIRST))
def test_no_failure_in_a_zero_hour(name):
    # max_events = 1 and no overheads: the wall time is the first failure's time
    kw = dict(FIRST[name])
    rates = kw.pop("rates")
    which = kw.pop("prof")
    n_cat = len(rates)
    x = _inputs(
        rates, n_trials=2000, work_hours=1e9, tau=1e9, max_events=1,
        cat_profile=_night_profile(n_cat, which), week_hour0=37.5, **kw,
    )  # fmt: skip
    out, k = _first_failure_hours(x, 8)
    zero = (k % 24 < 8) | (k >= 144)
    for c in range(n_cat):
        hit = out["interruptions"][:, c] == 1
        if c in which:
            assert hit.sum() > 100
            assert not np.any(zero & hit), np.unique(k[zero & hit])
        else:
            assert np.any(zero & hit)  # control: a category without the profile does
    # control: failures spread over the whole week (the offset applied, not hour 0 only)
    assert len(np.unique(k)) > 40


def test_zero_hours_control_profile_ignored_would_fail():
    # negative control of the check itself: without the profile, failures do fall in the
    # hours it zeroes
    x = _inputs(
        [0.05], n_trials=2000, work_hours=1e9, tau=1e9, max_events=1,
        cat_profile=_ones(1), week_hour0=37.5, trend_shape=1.1,
    )  # fmt: skip
    out, k = _first_failure_hours(x, 8)
    assert np.any((k % 24 < 8) | (k >= 144))


def _random_profile(rng, n_cat: int, which) -> np.ndarray:
    prof = _ones(n_cat)
    for c in which:
        q = rng.gamma(0.7, size=WEEK_HOURS)
        q[rng.random(WEEK_HOURS) < 0.2] = 0.0
        if rng.random() < 0.5:  # a daily profile repeated
            q = np.tile(q[:24], 7)
        prof[c] = q / q.mean()
    return prof


def _random_scenario(rng, path: str) -> KernelInputs:
    n_cat = 3
    rates = rng.uniform(0.005, 0.08, size=(2, n_cat))
    which = [c for c in range(n_cat) if rng.random() < 0.6] or [0]
    amp = np.where(np.isin(np.arange(n_cat), which), 0.0, rng.uniform(0.0, 0.9, n_cat))
    kw: dict[str, Any] = dict(
        cat_amp=amp,
        cat_phase=rng.uniform(0, 24, n_cat),
        start_hour=float(rng.uniform(0, 24)),
        trend_shape=float(rng.choice([1.0, 0.7, 1.4])),
        fleet_age_hours=float(rng.uniform(50, 2000)),
        speed_amp=float(rng.choice([0.0, 0.04])),
        maint_rate=float(rng.choice([0.0, 0.01])),
        maint_hours=2.0,
        detect_hours=rng.uniform(0, 0.5, n_cat),
        swap=rng.random(n_cat) < 0.5,
        delta=0.1,
        persist=float(rng.uniform(0, 1.0)),
        restart_hours=0.3,
        swap_hours=0.4,
        n_spares=int(rng.choice([-1, 2])),
        repair_hours=20.0,
        cap_hours=float(rng.choice([5000.0, 600.0])),  # (the node path may wait to it)
        max_events=int(rng.choice([1_000_000, 15])),
        work_hours=float(rng.uniform(50, 300)),
        tau=float(rng.uniform(1, 6)),
        overhead_jitter=np.array([0.2, 0.1, 0.2, 0.1]) * rng.integers(0, 2),
        cat_profile=_random_profile(rng, n_cat, which),
        week_hour0=float(rng.uniform(0, WEEK_HOURS)),
    )
    if path == "node":
        kw.update(
            n_nodes=16, bad_fraction=0.2, bad_multiplier=[3.0, 1.0, 2.0], cat_domain=[1, 2, 1],
            diag_hours=[0.1, 0.0, 0.2], lemon_k=2, lemon_window=200.0,
        )  # fmt: skip
    elif path == "physics":
        kw.update(PHYS)
    elif path == "per_draw":
        profiled = np.isin(np.arange(n_cat), which)
        kw["draw_amp"] = np.where(profiled, 0.0, rng.uniform(0, 0.8, (2, n_cat)))
        kw["draw_phase"] = rng.uniform(0, 24, (2, n_cat))
        kw["draw_trend"] = np.array([1.0, 1.3])
        kw["draw_bad_fraction"] = np.array([0.0, 0.2])
        kw["n_nodes"] = 8
    return _inputs(rates, n_trials=256, **kw)


@pytest.mark.parametrize("path", ["general", "node", "physics", "per_draw"])
def test_accounting_identity(path):
    rng = np.random.default_rng(["general", "node", "physics", "per_draw"].index(path))
    for _ in range(4):
        x = _random_scenario(rng, path)
        assert x.modulated and (x.node_model == (path in ("node", "per_draw")))
        assert x.physics == (path == "physics")
        out = _run(x, int(rng.integers(1 << 30)))
        wall = out["wall_hours"]
        total = out["progress_hours"] + out["lost_hours"].sum(axis=1)
        np.testing.assert_allclose(total, wall, rtol=REL, atol=REL * np.max(wall))
        lost = np.delete(out["lost_hours"], CAUSES.index("slowdown"), axis=1)  # (+ or -)
        assert np.all(lost >= -REL * np.max(wall))


def test_renewal_path_not_taken():
    # a scenario the renewal path takes without profiles; with them the block runs the
    # general path, bit for bit, and the profile changes the results
    x = _inputs(RATES, n_trials=512, detect_hours=np.array([0.1, 0.2, 0.3]), restart_hours=0.2)
    assert _kernels.renewal_applies(x.maint_rate, x.n_spares, x.swap)
    y = dataclasses.replace(x, cat_profile=_night_profile(3, [0, 2]), week_hour0=50.0)
    assert y.modulated
    assert not _kernels.renewal_applies(y.maint_rate, y.n_spares, y.swap, y.modulated)
    on = _run_path(_kernels.simulate_block, y, 4)
    _same(on, _run_path(_kernels._block_general, y, 4))
    off = _run_path(_kernels.simulate_block, x, 4)
    assert not np.array_equal(off["wall_hours"], on["wall_hours"])
    renewal = _run_path(_kernels._block_renewal, x, 4, True, np.zeros(2, dtype=np.int64))
    _same(off, renewal)  # (the control: renewal without)


def test_week_position_is_the_remainder_bit_for_bit():
    # _week_pos replaces `%` (a call of fmod) on the hot path: the same float for every s >= 0,
    # where a rounded quotient x / 168 would first go wrong (just below and above the
    # multiples of 168, up to ~1e12 hours) and at random
    rng = np.random.default_rng(0)
    m = 168.0 * np.concatenate([np.arange(0, 400), rng.integers(1, 6e9, 400)]).astype(float)
    near = [m, np.nextafter(m, np.inf), np.nextafter(m, 0.0)]
    s = np.concatenate([*near, rng.uniform(0, 2000, 4000), rng.uniform(0, 1e12, 1000)])
    s = s[s >= 0.0]
    for h0 in (0.0, 0.5, 101.25, np.nextafter(168.0, 0.0)):
        got = np.array([_kernels._week_pos(h0, float(v)) for v in s])
        want = np.array([(h0 + float(v)) % 168.0 for v in s])
        assert np.array_equal(got, want), s[got != want][:5]
        hours = np.array([_kernels._week_hour(h0, float(v)) for v in s])
        assert np.array_equal(hours, want.astype(int))


def _gaps(rng, tab, w, prof, qmax, h0, amp, theta, shape, age, n):
    """``n`` gaps of _fail_gap_profile in a row (the trend window carried), their ends."""
    out = np.empty((n, 5))
    t, wa, wb, wlo, whi = 0.0, 0.0, -1.0, 0.0, 0.0
    for j in range(n):
        g, wa, wb, wlo, whi = _kernels._fail_gap_profile(
            rng, t, w, prof, qmax, tab, h0, amp, theta, shape, age, np.inf, wa, wb, wlo, whi
        )
        t += g
        out[j] = (t, wa, wb, wlo, whi)
    return out


@pytest.mark.parametrize("case", range(6))
def test_hourly_table_draws_what_the_sums_draw(case):
    # the general path looks the hourly rates up in a table filled once a draw
    # (_profile_table); the node and physics paths sum them per proposal (NO_TABLE). The same
    # generator state must give the same gaps, bit for bit: random profiles with zero and
    # near-zero hours (the low-hours branches), a cosine, a trend
    rng = np.random.default_rng(case)
    n_cat = 4
    prof = _random_profile(rng, n_cat, [c for c in range(n_cat) if rng.random() < 0.7] or [1])
    prof[0, rng.random(WEEK_HOURS) < 0.3] = 1e-6 * (case % 2)
    w = rng.uniform(0.001, 0.2, n_cat)
    qmax = np.ones(n_cat)
    _kernels._profile_max(prof, qmax)
    tab = np.empty(_kernels.table_size(n_cat))
    _kernels._profile_table(w, prof, qmax, tab)
    amp = [0.0, 0.05][case % 2]
    shape = [1.0, 1.0, 0.6, 1.7, 1.0, 2.5][case]
    args = (w, prof, qmax, float(rng.uniform(0, WEEK_HOURS)), amp, 0.4, shape, 30.0, 400)
    a = _gaps(np.random.default_rng(case + 10), tab, *args)
    b = _gaps(np.random.default_rng(case + 10), _kernels.NO_TABLE, *args)
    assert np.array_equal(a, b)
    # control: a table one ulp off in the bound draws other gaps
    tab[WEEK_HOURS] = np.nextafter(tab[WEEK_HOURS], np.inf)
    c = _gaps(np.random.default_rng(case + 10), tab, *args)
    assert not np.array_equal(a[:, 0], c[:, 0])


def _integral(tab, y0, y1):
    """``int_{y0}^{y1} tab[floor(y mod 168)] dy`` (hours of the week, exact per hour piece)."""
    rates = np.asarray(tab[:WEEK_HOURS], dtype=float)
    cum = np.concatenate([[0.0], np.cumsum(rates)])

    def c(y):
        n, pos = np.divmod(y, float(WEEK_HOURS))
        k = np.minimum(pos.astype(int), WEEK_HOURS - 1)
        return n * cum[-1] + cum[k] + rates[k] * (pos - k)

    return c(y1) - c(y0)


INVERT = {
    # hourly rates, and the control's wrong reading of them: frequent failures (within the
    # hour), a night of zeros, a week of zeros but one hour (each read an hour late); gaps
    # of months (whole weeks skipped), read at a rate 10 % high (a gap spans many weeks,
    # so an hour's shift is lost in it)
    "frequent": (lambda q: 3.0 * q, lambda r: np.roll(r, 1)),
    "nights_zero": (
        lambda q: 0.2 * np.where(np.arange(WEEK_HOURS) % 24 < 8, 0.0, q),
        lambda r: np.roll(r, 1),
    ),
    "one_hour": (
        lambda q: np.where(np.arange(WEEK_HOURS) == 97, 0.5, 0.0),
        lambda r: np.roll(r, 1),
    ),
    "months": (lambda q: 2e-4 * q, lambda r: 1.1 * r),
}


def _invert_table(rates) -> np.ndarray:
    """The head of the table :func:`_kernels._profile_table` fills (what _invert_profile reads)."""
    rates = np.asarray(rates, dtype=float)
    inv = np.full(WEEK_HOURS, np.inf)
    np.divide(1.0, rates, out=inv, where=rates > 0.0)
    varies = float(np.any(rates != rates[0]))
    tab = np.concatenate([rates, [rates.max(), rates.sum(), varies, 0.0], inv])
    assert tab.shape == (_kernels.TABLE_HEAD,) and tab[_kernels.T_INV] == inv[0]
    return tab


def _inverted_gaps(tab, h0, t0, carry):
    """A gap from each start in ``t0``; with ``carry`` the hour kept from call to call."""
    gen = np.random.default_rng(5)
    gaps = np.empty(len(t0))
    ha, hb, hk = 0.0, -1.0, 0.0
    for j, t in enumerate(t0):
        g, a, b, k = _kernels._invert_profile(gen, float(t), tab, h0, np.inf, ha, hb, hk)
        if carry:
            ha, hb, hk = a, b, k
        gaps[j] = g
    return gaps


@pytest.mark.parametrize("carry", [False, True])
@pytest.mark.parametrize("name", list(INVERT))
def test_inverted_profile_gaps_have_the_exact_law(name, carry):
    # _invert_profile (a profile alone on the general path): the integral of the intensity
    # over a gap is a standard exponential, so 1 - exp(-integral) is uniform (KS, p >= 1e-4
    # over 20,000 gaps). Starts spread over three weeks at random, or (carry) each draw
    # starting where the last failure fell plus a pause (none a third of the time; back by
    # up to 2 h a tenth: a drawn failure dropped) with the hour kept from call to call.
    # Control: the same gaps read against the wrong rates (INVERT) must fail (p < 1e-8)
    rates, misread = INVERT[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    q = rng.gamma(2.0, size=WEEK_HOURS)
    tab = _invert_table(rates(q / q.mean()))
    h0 = 13.37
    n = 20_000
    if carry:
        gen = np.random.default_rng(5)  # (the draws _inverted_gaps makes, to chain the starts)
        t0 = np.empty(n)
        t, ha, hb, hk = 0.0, 0.0, -1.0, 0.0
        pause = rng.exponential(0.3, n) * (rng.random(n) > 1 / 3)
        back = rng.random(n) < 0.1
        for j in range(n):
            t0[j] = t
            g, ha, hb, hk = _kernels._invert_profile(gen, t, tab, h0, np.inf, ha, hb, hk)
            t = max(t + g - 2.0 * rng.random(), 0.0) if back[j] else t + g + pause[j]
    else:
        t0 = rng.uniform(0.0, 3 * WEEK_HOURS, n)
    gaps = _inverted_gaps(tab, h0, t0, carry)
    assert np.all(gaps >= 0.0) and np.all(np.isfinite(gaps))
    u = -np.expm1(-_integral(tab, h0 + t0, h0 + t0 + gaps))
    assert stats.kstest(u, "uniform").pvalue >= 1e-4
    wrong = misread(tab[:WEEK_HOURS])
    u_wrong = -np.expm1(-_integral(wrong, h0 + t0, h0 + t0 + gaps))
    assert stats.kstest(u_wrong, "uniform").pvalue < 1e-8
    # a failure never falls in an hour of zero rate
    k = np.floor(np.fmod(h0 + t0 + gaps, WEEK_HOURS)).astype(int)
    assert np.all(tab[k] > 0.0)


def test_inverted_profile_ends_at_the_cap_and_without_rates():
    # past the horizon it returns a time past it (the failure is no earlier); a week of
    # zeros has no failure and draws nothing
    rates = np.zeros(WEEK_HOURS)
    rates[50] = 1e-9
    gen = np.random.default_rng(1)
    g = _kernels._invert_profile(gen, 0.0, _invert_table(rates), 60.0, 30.0, 0.0, -1.0, 0.0)[0]
    assert g > 30.0
    state = gen.bit_generator.state
    zero = _invert_table(np.zeros(WEEK_HOURS))
    assert _kernels._invert_profile(gen, 5.0, zero, 0.0, np.inf, 0.0, -1.0, 0.0)[0] == math.inf
    assert gen.bit_generator.state == state


@pytest.mark.parametrize("case", range(3))
def test_pick_by_the_tables_running_sums_is_the_pick_by_the_passes(case):
    # without a cosine on any category the general path picks a failure's category by a scan
    # of the hour's running sums in its table; the node and physics paths (NO_TABLE) by two
    # passes over the categories. The same generator state must pick the same categories, bit
    # for bit: random profiles with zero hours and categories of zero rate in some hours
    rng = np.random.default_rng(case + 40)
    n_cat = [2, 5, 18][case]
    prof = _random_profile(rng, n_cat, [c for c in range(n_cat) if rng.random() < 0.7] or [0])
    w = rng.uniform(0.001, 0.2, n_cat)
    qmax = np.ones(n_cat)
    _kernels._profile_max(prof, qmax)
    tab = np.empty(_kernels.table_size(n_cat))
    _kernels._profile_table(w, prof, qmax, tab)
    tab[_kernels.T_COSINE] = 0.0
    zero = np.zeros(n_cat)
    h0 = float(rng.uniform(0, WEEK_HOURS))
    times = rng.uniform(0.0, 2 * WEEK_HOURS, 3000)
    times = times[[tab[_kernels._week_hour(h0, float(s))] > 0.0 for s in times]]

    def picks(table):
        gen = np.random.default_rng(case)
        return np.array(
            [
                _kernels._pick_profile(gen, float(s), w, zero, zero, 0.0, 0.0, prof, table, h0)
                for s in times
            ]
        )

    by_table = picks(tab)
    assert np.array_equal(by_table, picks(_kernels.NO_TABLE))
    assert len(np.unique(by_table)) > 1
    # control: running sums of category 0 at 1.5 times its rate (the totals kept) give
    # other categories
    wrong = np.empty_like(tab)
    _kernels._profile_table(w * np.where(np.arange(n_cat) == 0, 1.5, 1.0), prof, qmax, wrong)
    wrong[:WEEK_HOURS] = tab[:WEEK_HOURS]
    wrong[_kernels.T_COSINE] = 0.0
    assert not np.array_equal(by_table, picks(wrong))
