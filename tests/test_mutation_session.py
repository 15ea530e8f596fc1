"""Tests added by the mutation sample of benchmarks/MUTATION_SESSION.md.

Each kills a sampled mutant that the existing tests let survive and that is not equivalent.
"""

from __future__ import annotations

import math

import numpy as np

from relmc.sim import _kernels


def test_the_descent_takes_exactly_the_gaps_of_one_and_a_half_hours_or_more(monkeypatch):
    # _invert_diurnal descends a gap g >= F(1.5 h) (F from the failure's phase) before the
    # solve, and hands a shorter gap to the solve unchanged: the solve then always meets a gap
    # under 1.5 h, with hi <= 1.5 h. The solve is replaced by a recorder (the Python source,
    # as the negative control of test_diurnal_path does), on random phases, amplitudes up to
    # 1 and gaps from 0 to 4 h. Exact: cases within 1e-9 (relative) of the gate are skipped,
    # and the checks on the solve's gap allow 1e-9 (relative) of rounding.
    omega = _kernels.OMEGA
    calls = []

    def record(g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t, hi):
        calls.append((g, s0, c0, big_l, big_a, inv_l, inv_hi, inv_lo, t, hi))
        return 0.0, s0, c0

    monkeypatch.setattr(_kernels, "_solve_diurnal", record)
    invert = _kernels._invert_diurnal.py_func
    rng = np.random.default_rng(7)
    n_long = n_short = 0
    for _ in range(2000):
        big_l = rng.uniform(0.005, 2.0)
        big_a = big_l * (1.0 if rng.random() < 0.3 else rng.random())
        phi0 = rng.uniform(0, 2 * math.pi)
        t = rng.uniform(0.0, 2000.0)
        x0 = rng.uniform(0.0, 4.0)
        s0, c0 = math.sin(phi0), math.cos(phi0)
        k = big_a / omega
        g = big_l * x0 + k * (math.sin(phi0 + omega * x0) - s0)
        f15 = big_l * 1.5 + k * (math.sin(phi0 + omega * 1.5) - s0)
        if abs(g - f15) <= 1e-9 * f15:
            continue
        inv_lo = 1.0 / (big_l - big_a) if big_l > big_a else math.inf
        args = (g, s0, c0, big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), inv_lo, t, 1e9)
        calls.clear()
        invert(*args)
        assert len(calls) == 1
        got = calls[0]
        if g < f15:
            n_short += 1
            assert got == args, (args, got)  # the solve meets the gap as given
        else:
            n_long += 1
            g1, s1, c1, hi1 = got[0], got[1], got[2], got[9]
            # the phase reached: phi0 + OMEGA xs, xs a whole number of 1.5-h steps
            xs = got[8] - t
            assert xs >= 1.5 - 1e-9 and abs(xs / 1.5 - round(xs / 1.5)) < 1e-9, (args, got)
            assert abs(s1 - math.sin(phi0 + omega * xs)) < 1e-12
            assert abs(c1 - math.cos(phi0 + omega * xs)) < 1e-12
            f15_1 = big_l * 1.5 + k * (math.sin(phi0 + omega * (xs + 1.5)) - s1)
            assert hi1 <= 1.5, (args, got)
            assert -1e-9 * f15 <= g1 < f15_1 * (1.0 + 1e-9), (args, got)
    assert n_long > 500 and n_short > 500, (n_long, n_short)
