"""Tests added by the mutation sample of benchmarks/MUTATION_PHYSICS_NODES.md.

Each kills a sampled mutant that the existing tests let survive and that is not equivalent.
"""

from __future__ import annotations

import numpy as np
import pytest

from relmc.sim import _kernels

TOL = 1e-9  # the kernel's rounding allowance, relative (here to tau: tau < work)


def _ring(tau, stale):
    # room for 8 runs; the slots past the runs hold a stale count, as they do in the kernel
    # after a rollback or a retention cut dropped runs (or garbage from np.empty)
    return np.full(8, np.nan), np.full(8, stale, dtype=np.int64)


def _checkpoints(rf, rn, nr, tau):
    return [rf[j] + m * tau for j in range(nr) for m in range(rn[j])]


@pytest.mark.parametrize("stale", [0, 1, 3, 4, -7, 2**40])
def test_the_checkpoint_ring_merges_a_run_that_continues_the_newest_one(stale):
    """_ring_put (in arrays with room, and in arrays grown as the paths grow them): checkpoints
    that continue the newest run are merged into it, so a job that checkpoints on the grid
    keeps ONE run and the ring costs O(K) (the contract in _ring_put's docstring); a run that
    does not continue it is a new run, whatever the stale count in the slot past the runs (in
    arrays with room). Mutant #7 of the report
    (``rn[nr - 1]`` -> ``rn[nr - 0]`` in the merge test) reads that stale slot instead: it
    splits contiguous checkpoints into one run per call (the combined path then grows its
    arrays with the events) and, when the stale count happens to fit, merges a run that does
    not continue the newest, moving its checkpoints (a rollback then returns a wrong one).
    Exact: integer run counts; checkpoint positions to 1e-12 relative (float sums of tau).
    """
    tau = 0.7
    for grown in (True, False):
        rf, rn = _ring(tau, stale)
        if grown:  # one run of room, then grown only when short (as the paths do)
            rf, rn = rf[:1].copy(), rn[:1].copy()
        nr = 0
        total = 0
        for n in (3, 1, 2, 5, 1, 1, 4):  # contiguous: each continues the newest run
            first = tau * (total + 1)
            if nr + 1 > rf.shape[0]:
                rf, rn = _kernels._grow1(rf, nr + 1), _kernels._grow1(rn, nr + 1)
            nr = _kernels._ring_put(rf, rn, nr, first, n, tau, 0, TOL * tau)
            total += n
            assert nr == 1, (grown, stale, n, nr, rn[:4])
            assert rn[0] == total and rf[0] == pytest.approx(tau, rel=1e-12)
        # a gap (2 tau missing): a new run, the old one unchanged
        nr = _kernels._ring_put(rf, rn, nr, tau * (total + 3), 1, tau, 0, TOL * tau)
        assert nr == 2 and rn[0] == total and rn[1] == 1
        np.testing.assert_allclose(
            _checkpoints(rf, rn, nr, tau),
            [tau * m for m in [*range(1, total + 1), total + 3]],
            rtol=1e-12,
        )

    # the false merge: runs [(tau, 2)], stale count 4 in the next slot, a checkpoint at 5 tau
    # (not continuing 2 tau): it must be a run of its own, and the rollback to 5 tau returns it
    rf, rn = _ring(tau, 4)
    nr = _kernels._ring_put(rf, rn, 0, tau, 2, tau, 0, TOL * tau)
    rn[1] = 4  # as left by a dropped run of four
    nr = _kernels._ring_put(rf, rn, nr, 5 * tau, 1, tau, 0, TOL * tau)
    np.testing.assert_allclose(_checkpoints(rf, rn, nr, tau), [tau, 2 * tau, 5 * tau], rtol=1e-12)
    q, skipped, nr = _kernels._ring_rollback(rf, rn, nr, 5 * tau, tau, TOL * tau)
    assert q == pytest.approx(5 * tau, rel=1e-12) and skipped == 0


def test_an_sdc_late_in_a_long_run_rolls_back_to_the_checkpoint_before_it():
    """The combined path (stragglers/SDC with the node model) against the oracle, on SDC
    alone with many checkpoints per run (tau = 0.25 h, 20 h of work, keep-all retention,
    latency 0.5 h): an SDC's corrupted progress ``c_prog = p + k tau + min(x, s_k)`` picks the
    checkpoint the rollback returns to. The node model is on but idle (lemon_k = 2 in a 1e-9 h
    window, an unlimited pool, zero overheads). The existing oracle comparisons run
    tau = 0.9 h with few segments per run, where mutant #4 of the report (``k * tau`` ->
    ``k ** tau``) moves ``c_prog`` by under 0.1 h for k <= 3 and survives; here k reaches 80
    and ``k ** 0.25`` is far below ``0.25 k``: the mutant rolls back much further (mean wall
    37.6 h against 22.5 h, rollbacks 67 against 7.9 per trial). Tolerance:
    :func:`physicsinputs.sdc_disagreements` (every output's mean within 4.5 combined standard
    errors, KS on the wall time), as in test_physics_nodes_kernel.py.
    """
    from physicsinputs import run, sdc_disagreements, sdc_inputs
    from test_physics_nodes_kernel import _run_pn, check_invariants

    def inputs(n_trials):
        return sdc_inputs(
            [0.2], n_trials=n_trials, swap=[True], cat_kind=[2], sdc_latency=[0.5],
            work_hours=20.0, tau=0.25, n_nodes=4, retention=0, cap_hours=1000.0,
            lemon_k=2, lemon_window=1e-9,
        )  # fmt: skip

    x = inputs(1000)
    assert x.node_model and x.physics
    kernel, stats = _run_pn(x, 3)
    check_invariants(kernel, x, stats)
    oracle = run("reference", inputs(400), 4)
    assert kernel["sdc_rollbacks"].sum() > 2000  # many SDC rollbacks compared
    assert sdc_disagreements(kernel, oracle) == []


def test_power_swings_of_the_combined_path_match_the_oracle():
    """Mutant #10 of the report (``swings += snap_steps * k + 1`` -> ``snap_steps / k + 1``
    where a run stops) changed only the power swings, which the oracle comparisons of
    test_physics_nodes_kernel.py do not read: the combined path's swings per trial against
    the oracle's, with snapshots (two steps each) and every feature of ``everything`` on.
    Tolerance: 4.5 combined standard errors (kernelcheck.mean_disagreement).
    """
    from kernelcheck import mean_disagreement
    from physicsinputs import run
    from test_physics_nodes_kernel import _run_pn
    from test_physics_sdc import everything

    x = everything(31, n_trials=1500, lemon_k=2, lemon_window=20.0)
    assert x.node_model and x.physics and x.delta > 0
    kernel, _ = _run_pn(x, 32)
    oracle = run("reference", x, seed=33)
    assert kernel["power_swings"].mean() > 10
    assert mean_disagreement("power_swings", kernel["power_swings"], oracle["power_swings"]) is None
