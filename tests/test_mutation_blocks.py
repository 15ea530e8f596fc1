"""Tests that kill surviving mutants of the block paths (``benchmarks/MUTATION_BLOCKS.md``).

Each test names the mutant it kills (line of ``relmc/sim/_kernels.py`` at ``9f48773``) and
its tolerance.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from relmc.sim import _kernels

OMEGA = 2.0 * math.pi / 24.0


def test_diurnal_block_skips_a_costly_recovery_from_the_full_solves_phase():
    """The skip over a costly recovery where the table declines (the full solve's phase).

    Kills ``_diurnal_block``'s ``cs = math.cos(phi0 + OMEGA * x)`` -> ``math.cos(phi0 / OMEGA * x)``
    (line 2765, second sample #21): the cosine of the phase at a failure that
    ``_kepler_step`` does not trust, used in the skip of the integrated intensity over its
    recovery. A table of NaN declines every step, so both failures of a block of two take the
    full solve: the first (gap 3.0) costs 3 h, the second (gap 2.0) none. Its wall time must
    be ``X2 = F^-1(F(X1 + 3) + 2)`` with ``X1 = F^-1(3)``, ``F(x) = L x + (A / OMEGA) (sin(phi0
    + OMEGA x) - sin phi0)`` solved at 30 digits (mpmath), within 1e-9 h (the full solve is
    good to the wall clock's spacing, ~1e-14 h here); the mutant is 0.37 h off.
    """
    big_l, big_a, phi0, t0, cost = 2.0, 1.0, 1.0, 100.0, 3.0
    gaps = [3.0, 2.0]
    buf = np.zeros(_kernels.BUF)
    buf[:2] = gaps
    tab = np.full((_kernels._KEP_N + 1, _kernels._KEP_COLS), np.nan)
    costs = np.array([cost])
    rot_c = np.array([math.cos(OMEGA * cost)])
    rot_s = np.array([math.sin(OMEGA * cost)])
    prob_c = np.array([1.0])
    slot_c = np.zeros(1, dtype=np.int64)
    alias_c = np.zeros(1, dtype=np.int64)
    interruptions = np.zeros((1, 1), dtype=np.int32)
    gf, xa, okf, cq = (np.empty(_kernels.BUF) for _ in range(4))
    wk = np.empty((2 + _kernels._KEP_COLS, _kernels.BUF))
    ji = np.empty(_kernels.BUF, dtype=np.int64)
    acc = np.zeros((_kernels.N_ACC, _kernels.BUF))
    seg = 0.5 + 1 / 60
    k_left, n_zero, t, *_ = _kernels._diurnal_block(
        np.random.default_rng(0), 0, buf, 0, 2, tab, t0, math.sin(phi0), math.cos(phi0),
        big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), 1.0 / (big_l - big_a),
        1e-300,  # lam_geo: after the first (costly) failure, the countdown never ends
        1,  # k_left: the first failure is the costly one
        costs, rot_c, rot_s, prob_c, slot_c, alias_c, 1, interruptions, gf, xa, okf, cq, wk, ji,
        0.1, 0.5, 1 / 60, 0.1, seg, 1.0 / seg, acc,
    )  # fmt: skip
    assert okf[:2].tolist() == [0.0, 0.0]  # both took the full solve
    assert interruptions[0, 0] == 1 and n_zero == 1 and k_left > 10**18

    with mpmath.workdps(30):
        k = mpmath.mpf(big_a) / OMEGA

        def big_f(x):
            return big_l * x + k * (mpmath.sin(phi0 + OMEGA * x) - mpmath.sin(phi0))

        x1 = mpmath.findroot(lambda x: big_f(x) - gaps[0], 1.5)
        x2 = mpmath.findroot(lambda x: big_f(x) - (big_f(x1 + cost) + gaps[1]), x1 + cost + 1.0)
    assert abs(t - (t0 + float(x2))) <= 1e-9, (t, t0 + float(x2))
