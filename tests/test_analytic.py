"""Closed forms against published values, hand arithmetic and a numerical renewal argument."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from relmc import analytic

MIN = 1.0 / 60.0  # hours per minute


# ---- Young and Daly intervals -----------------------------------------------------------


@pytest.mark.parametrize(
    ("mttf_hours", "published_min", "decimals"),
    [(24.0, 117.0, 0), (6.0, 57.0, 0), (0.25, 9.1, 1)],  # facts §4: R = 10 min, delta = 5 min
)
def test_daly_interval_reproduces_published_cases(mttf_hours, published_min, decimals):
    tau_min = analytic.daly_interval(5 * MIN, mttf_hours) / MIN
    # Daly prints whole minutes (one decimal at M = 15 min): compare after the same rounding
    assert round(tau_min, decimals) == published_min


def test_young_interval_values():
    # facts §4 [D]: Young gives 120, 60 and 12.2 min for delta = 5 min
    assert analytic.young_interval(5 * MIN, 24.0) / MIN == pytest.approx(120.0, rel=1e-12)
    assert analytic.young_interval(5 * MIN, 6.0) / MIN == pytest.approx(60.0, rel=1e-12)
    assert round(analytic.young_interval(5 * MIN, 0.25) / MIN, 1) == 12.2
    # sqrt(2 * 2 * 9) = 6, exactly representable
    assert analytic.young_interval(2.0, 9.0) == 6.0


def test_intervals_at_extreme_scales():
    """sqrt(2 delta M) where the product 2 delta M itself over- or underflows a double."""
    for d, m in [(1e200, 1e200), (1e-200, 1e-200), (1e300, 1e10), (1e-300, 1e-10)]:
        expected = np.sqrt(2.0) * np.sqrt(d) * np.sqrt(m)  # each root representable
        assert analytic.young_interval(d, m) == pytest.approx(expected, rel=1e-14)
    # Daly's correction is first order in delta / 2M, so it tends to Young's where that is small
    assert analytic.daly_interval(1e-200, 1e200) == pytest.approx(np.sqrt(2.0), rel=1e-14)
    assert analytic.daly_interval(1e150, 1e200) == pytest.approx(np.sqrt(2.0) * 1e175, rel=1e-12)


def test_daly_interval_large_checkpoint_is_mtbf():
    assert analytic.daly_interval(3.0, 1.0) == 1.0  # delta >= 2M -> tau = M
    assert analytic.daly_interval(2.0, 1.0) == 1.0  # boundary belongs to the second branch


def test_intervals_broadcast_over_draws():
    m = np.array([24.0, 6.0, 0.25])
    got = analytic.daly_interval(5 * MIN, m)
    assert isinstance(got, np.ndarray) and got.shape == (3,)
    assert got == pytest.approx([analytic.daly_interval(5 * MIN, float(x)) for x in m], rel=1e-15)
    assert isinstance(analytic.young_interval(1.0, 2.0), float)


# ---- Daly's expected wall time -----------------------------------------------------------


def _segment_by_renewal(length, restart, mtbf):
    """Expected time to complete one segment of ``length`` exposed hours, by quadrature.

    Starting from a restart, a segment needs ``a = restart + length`` failure-free hours:
    E_R = int_0^a (x + E_R) f(x) dx + a S(a), solved for E_R. A fresh segment (no restart
    first) needs ``length`` hours: E_0 = int_0^L (x + E_R) f(x) dx + L S(L).
    """
    lam = 1.0 / mtbf
    pdf = lambda x: lam * math.exp(-lam * x)  # noqa: E731
    a = restart + length
    mean_part_a = integrate.quad(lambda x: x * pdf(x), 0.0, a, epsabs=0, epsrel=1e-13)[0]
    e_r = (mean_part_a + a * math.exp(-lam * a)) / math.exp(-lam * a)
    mean_part_l = integrate.quad(lambda x: x * pdf(x), 0.0, length, epsabs=0, epsrel=1e-13)[0]
    fail_l = -math.expm1(-lam * length)
    return mean_part_l + fail_l * e_r + length * math.exp(-lam * length)


@pytest.mark.parametrize("mtbf", [50.0, 3.0, 0.7, 0.2])
@pytest.mark.parametrize(("work", "tau"), [(12.0, 1.5), (10.0, 1.5)])  # multiple / remainder
def test_daly_expected_wall_matches_renewal_quadrature(mtbf, work, tau):
    delta, restart = 0.1, 0.25
    n = math.ceil(work / tau)
    rem = work - (n - 1) * tau
    expected = (n - 1) * _segment_by_renewal(tau + delta, restart, mtbf) + _segment_by_renewal(
        rem + delta, restart, mtbf
    )
    got = analytic.daly_expected_wall(work, tau, delta, restart, mtbf)
    # quadrature at rel 1e-13, then a division by exp(-a/M) that can be ~e^-7: 1e-9 is ample
    assert got == pytest.approx(expected, rel=1e-9)


def test_daly_expected_wall_is_dalys_formula_for_whole_segments():
    w, tau, d, r, m = 500.0, 2.0, 5 * MIN, 10 * MIN, 6.0
    daly = m * math.exp(r / m) * (math.exp((tau + d) / m) - 1.0) * w / tau
    assert analytic.daly_expected_wall(w, tau, d, r, m) == pytest.approx(daly, rel=1e-12)


def test_daly_expected_wall_float_noise_adds_no_empty_segment():
    # 1.1 / 0.1 = 11.000000000000002 in floating point: still 11 segments, not 12
    got = analytic.daly_expected_wall(1.1, 0.1, 0.01, 0.0, 1e9)
    assert got == pytest.approx(1.1 + 11 * 0.01, rel=1e-7)  # M = 1e9 h: failures negligible


def test_daly_expected_wall_reproduces_design_peer_number():
    # SOURCES.md §7: Llama 3 rates at 100k GPUs, 54 days of compute, 30-min checkpoints of
    # 1 min, 10-min restarts -> exact mean wall 3,233.8 h.
    # Llama 3 rate: 419 unexpected interruptions in 54 days on 16,384 GPUs, linear in GPUs.
    rate = 419 / (54 * 24) / 16384 * 100_000
    got = analytic.daly_expected_wall(54 * 24, 0.5, 1 * MIN, 10 * MIN, 1.0 / rate)
    assert round(got, 1) == 3233.8


def test_daly_expected_wall_overflow_is_inf():
    assert analytic.daly_expected_wall(10.0, 1.0, 0.1, 0.1, 1e-3) == math.inf


# ---- ETTR and MTTF ----------------------------------------------------------------------


def test_ettr_first_order_hand_arithmetic():
    # N r = 100 * 1e-3 = 0.1 per hour; (u0 + dt/2) = 0.5 + 0.5 = 1 h -> numerator 0.9;
    # denominator 1 + 0.1 / 1 = 1.1 -> 9 / 11
    got = analytic.ettr_first_order(100, 1e-3, 0.5, 1.0, 0.1)
    assert got == pytest.approx(9.0 / 11.0, rel=1e-14)
    assert analytic.ettr_first_order(100, 0.0, 0.5, 2.0, 0.0) == 1.0  # no failures, free ckpt


def test_ettr_first_order_close_to_daly_when_failures_rare():
    # Expanding Daly: W / E[T] = (1 - lam (u0 + dt/2 + w/2)) / (1 + w/dt) + O(lam^2 (u0+dt+w)^2).
    # The RSC form has no lam w / 2 term (it ignores failures during the blocking write), so
    # the two differ by lam w / 2 / (1 + w/dt) to first order, plus second-order terms.
    n_nodes, r, u0, dt, w = 2048, 6.5e-3 / 24 / 100, 10 * MIN, 0.5, 1 * MIN
    mtbf = 1.0 / (n_nodes * r)
    daly_ettr = 1000.0 / analytic.daly_expected_wall(1000.0, dt, w, u0, mtbf)
    first = analytic.ettr_first_order(n_nodes, r, u0, dt, w)
    lam = n_nodes * r
    write_term = lam * w / 2 / (1 + w / dt)
    small = lam * (u0 + dt + w)  # ~ 4e-3: second-order terms are of its square
    assert first - daly_ettr == pytest.approx(write_term, abs=small**2)


def test_rsc_projection_reproduced():
    # facts §2.2 [D]: 6.5e-3 failures per node-day -> 1.803 h at 16,384 GPUs, 0.225 h at 131,072
    assert round(analytic.rsc_projected_mttf(16_384), 3) == 1.803
    assert round(analytic.rsc_projected_mttf(131_072), 3) == 0.225
    via_mttf = analytic.mttf(16_384, {"hw": 6.5e-3 / 24}, {"hw": "node"})
    assert via_mttf == pytest.approx(analytic.rsc_projected_mttf(16_384), rel=1e-15)


def test_mttf_sums_categories_over_units():
    # 16 GPUs = 2 nodes = 1 rack: 1/(0.01*16 + 0.1*2 + 0.5*1 + 0.14) = 1/1.0 = 1 h
    rates = {"a": 0.01, "b": 0.1, "c": 0.5, "d": 0.14}
    units = {"a": "gpu", "b": "node", "c": "rack", "d": "job"}
    assert analytic.mttf(16, rates, units) == pytest.approx(1.0, rel=1e-14)


def test_mttf_with_draws_returns_array():
    draws = np.array([1e-3, 2e-3, 4e-3])
    got = analytic.mttf(1000, {"gpu": draws, "sw": 0.0}, {"gpu": "gpu", "sw": "job"})
    assert isinstance(got, np.ndarray) and got.shape == (3,)
    assert got == pytest.approx(1.0 / (1000 * draws), rel=1e-14)
    assert analytic.mttf(8, {"x": 0.0}, {"x": "gpu"}) == math.inf


# ---- bad inputs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: analytic.young_interval(0.0, 1.0), "snapshot_hours"),
        (lambda: analytic.young_interval(1.0, -1.0), "mttf_hours"),
        (lambda: analytic.daly_interval(1.0, math.nan), "mttf_hours"),
        (lambda: analytic.daly_interval("x", 1.0), "snapshot_hours"),
        (lambda: analytic.daly_expected_wall(0.0, 1.0, 0.1, 0.1, 1.0), "work_hours"),
        (lambda: analytic.daly_expected_wall(1.0, 0.0, 0.1, 0.1, 1.0), "interval_hours"),
        (lambda: analytic.daly_expected_wall(1.0, 1.0, -0.1, 0.1, 1.0), "snapshot_hours"),
        (lambda: analytic.daly_expected_wall(1.0, 1.0, 0.1, math.inf, 1.0), "restart_hours"),
        (lambda: analytic.daly_expected_wall(1.0, 1.0, 0.1, 0.1, [1.0, 0.0]), "mttf_hours"),
        (lambda: analytic.ettr_first_order(0, 1e-3, 0.1, 1.0, 0.1), "n_nodes"),
        (lambda: analytic.ettr_first_order(8, -1e-3, 0.1, 1.0, 0.1), "failure_rate_per_node"),
        (lambda: analytic.ettr_first_order(8, 1e-3, 0.1, 0.0, 0.1), "interval_hours"),
        (lambda: analytic.mttf(8, {"a": -1.0}, {"a": "gpu"}), "rates['a']"),
        (lambda: analytic.mttf(8, {"a": 1.0}, {}), "units"),
        (lambda: analytic.mttf(8, {"a": 1.0}, {"a": "galaxy"}), "unit"),
        (lambda: analytic.mttf(0, {"a": 1.0}, {"a": "gpu"}), "n_gpus"),
        (lambda: analytic.mttf(8, {}, {}), "rates"),
        (lambda: analytic.rsc_projected_mttf(8, -1.0), "failures_per_node_day"),
    ],
)
def test_bad_input_names_argument_and_range(call, name):
    with pytest.raises(ValueError, match=r"must|no unit") as err:
        call()
    assert name in str(err.value)
