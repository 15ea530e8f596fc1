"""Tests that kill surviving mutants of the block paths (``benchmarks/MUTATION_BLOCKS.md``).

Each test names the mutant it kills (line of ``relmc/sim/_kernels.py`` at ``9f48773``) and
its tolerance.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from test_diurnal_block import _costs, _points, _random_marked_block

from relmc.sim import _kernels

OMEGA = 2.0 * math.pi / 24.0


def test_diurnal_block_thins_a_costly_recovery_and_returns_what_is_left_of_it():
    """A costly recovery in a block: its points skipped, the rest of its intensity returned.

    Originally killed ``_diurnal_block``'s ``cs = math.cos(phi0 + OMEGA * x)`` ->
    ``math.cos(phi0 / OMEGA * x)`` (second sample #21 at 9f48773); the block now thins the
    process, and this test covers the same line of the new code (the phase where the table
    declines) and the deficit it returns. A table of NaN declines every
    step, so all three points take the full solve. Points at integrated intensities 3, 5 and 5.5
    from the block's start (``L = 2``, ``A = 1``): the first is a failure whose recovery costs
    3 h; the other two fall within it (``F(X1 + 3) ~ 9``), so they are not failures. Expected
    (mpmath, 30 digits, within 1e-9): one failure, the clock at ``t0 + X1 + 3`` with ``X1 =
    F^-1(3)``, and the deficit ``F(X1 + 3) - 5.5``; the mutant's deficit is off by 0.45, and
    one that keeps the points in the recovery has three failures.
    """
    big_l, big_a, phi0, t0, cost = 2.0, 1.0, 1.0, 100.0, 3.0
    gaps = [3.0, 2.0, 0.5]
    pts, _, gf, xa, okf, _, _ = _points(np.pad(gaps, (0, _kernels.BUF - len(gaps))))
    tab = np.full((_kernels._KEP_N + 1, _kernels._KEP_COLS), np.nan)
    prob_c = np.array([1.0])
    slot_c = np.zeros(1, dtype=np.int64)
    alias_c = np.zeros(1, dtype=np.int64)
    interruptions = np.zeros((1, 1), dtype=np.int32)
    wk = np.empty((2 + _kernels._KEP_COLS, _kernels.BUF))
    ji = np.empty(_kernels.BUF, dtype=np.int64)
    acc = np.zeros((_kernels.N_ACC, _kernels.BUF))
    seg = 0.5 + 1 / 60
    k_left, _, n_zero, t, _, _, _, n_fail, deficit, _ = _kernels._diurnal_block(
        np.random.default_rng(0), 0, 0, 3, tab, t0, math.sin(phi0), math.cos(phi0),
        big_l, big_a, 1.0 / big_l, 1.0 / (big_l + big_a), 1.0 / (big_l - big_a),
        1e-300,  # lam_geo: after the first (costly) failure, the countdown never ends
        1,  # k_left: the first failure is the costly one
        _costs([cost]), prob_c, slot_c, alias_c, 1, np.empty(_kernels.CBUF, np.int64),
        np.empty(_kernels.CBUF, np.int64), np.empty(_kernels.CBUF), _kernels.CBUF,
        interruptions, pts, wk, ji, 0.1, 0.5, 1 / 60, 0.1, seg, 1.0 / seg, acc,
        False, np.inf, 0.0, 0.0, 0.0, 0, 0,  # planned maintenance off
    )[:10]  # fmt: skip
    assert okf[:3].tolist() == [0.0, 0.0, 0.0]  # all took the full solve
    assert n_fail == 1 and interruptions[0, 0] == 1 and n_zero == 0 and k_left > 10**18

    with mpmath.workdps(30):
        k = mpmath.mpf(big_a) / OMEGA

        def big_f(x):
            return big_l * x + k * (mpmath.sin(phi0 + OMEGA * x) - mpmath.sin(phi0))

        x1 = mpmath.findroot(lambda x: big_f(x) - gaps[0], 1.5)
        left = big_f(x1 + cost) - sum(gaps)
    assert abs(t - (t0 + float(x1) + cost)) <= 1e-9, (t, t0 + float(x1) + cost)
    assert abs(deficit - float(left)) <= 1e-9, (deficit, float(left))


def test_marked_block_gives_a_point_the_table_declines_the_phase_of_its_full_solve():
    """A marked block whose table declines every step: each point's sine and cosine from its
    full solve's wall time, and the block's outputs those of the block with its own table.

    Kills ``_diurnal_block_body``'s ``sa[q] = math.sin(phi0 + OMEGA * xa[q])`` ->
    ``math.sin(phi0 // OMEGA * xa[q])`` and ``ca[q] = math.cos(phi0 + OMEGA * xa[q])`` ->
    ``math.cos(phi0 + OMEGA / xa[q])`` (benchmarks/MUTATION_DIURNAL_BODY.md, lines 3533 and
    3534 at 3dbc129): with a table that serves every step, no point reaches those lines. A
    table of NaN declines every step (``okf`` 0 at every point), so every point's phase comes
    from there. Two categories of different shapes (amplitudes 1 and 0.3), 20 random blocks:
    ``sa``, ``ca`` within 1e-12 of the sine and cosine of ``phi0 + OMEGA X`` at every point;
    the wall times within 1e-9 h of the blocks solved with their own tables (the same gaps,
    uniforms and categories), and the failures, counts and clock equal (to 1e-9 h). Negative
    control: the same comparison of ``sa`` against the sine of the mutant's phase fails.
    """
    amps, peaks, costs = np.array([1.0, 0.3]), np.array([4.0, 14.0]), np.array([0.0, 0.7])
    nan_tab = np.full((_kernels._KEP_N + 1, _kernels._KEP_COLS), np.nan)
    for block in range(20):
        runs = []
        for tab in (None, nan_tab):
            rng = np.random.default_rng(500 + block)  # the same block for both tables
            w = np.array([0.6, 0.4]) * rng.uniform(1.5, 6.0)
            rows = []
            out = _random_marked_block(
                rng, np.random.default_rng(block), w, amps, peaks, costs, _kernels.CBUF,
                np.empty(_kernels.CBUF), tab=tab, rows=rows,
            )  # fmt: skip
            runs.append((out, rows))
        (out0, _), (out1, rows1) = runs
        _, j, cnt, _, t0, phi0, _, _, counts1 = out1[:9]
        _, xa, okf, sa, ca = (r[j : j + cnt] for r in rows1)
        assert np.all(okf == 0.0), block  # every point from the full solve
        phase = phi0 + OMEGA * xa
        np.testing.assert_allclose(sa, np.sin(phase), rtol=0, atol=1e-12)
        np.testing.assert_allclose(ca, np.cos(phase), rtol=0, atol=1e-12)
        assert np.max(np.abs(sa - np.sin(phi0 // OMEGA * xa))) > 0.1  # the negative control
        xa0 = out0[9][j : j + cnt]
        np.testing.assert_allclose(xa, xa0, rtol=0, atol=1e-9)
        assert out1[0][7] == out0[0][7] and np.array_equal(counts1, out0[8]), block
        assert abs(out1[0][3] - out0[0][3]) <= 1e-9 * max(1.0, t0), block
