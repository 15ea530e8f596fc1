"""Tests added after a mutation sample of the renewal path (benchmarks/MUTATION_RENEWAL.md).

``test_block_reduction_runs_up_to_its_bound``: the renewal path's block reduction
(:func:`relmc.sim._kernels._block_map`) is admitted by the bound
``g_up / seg * (1 + _BOUND_RTOL) + 3 <= n_seg - 1`` (the gaps of the buffer summed over a
segment, plus rounding, keep two segments short of the last). The block reduction and the
one-by-one loop give bit-identical outputs (``tests/test_fast_paths.py``), so a bound made
stricter by a segment changes no output, only how many failures each takes (``stats``) and the
time. Here failures come every ~0.001 h against 1.05-h segments, so no run completes a
segment, the job keeps its segments to the event budget, and a buffer's bound is
``3 + ~0.12``: with 5 segments left (``n_seg - 1 = 4``) the block reduction must take most
failures; with 4 segments left (``n_seg - 1 = 3``, the negative control) it can take none,
since ``3 + g_up / seg > 3`` for every non-empty buffer. Both counts are exact properties of
the bound, not statistical. A bound one segment stricter (``n_seg - 2``) takes none with 5
segments and fails the first check. The outputs of both configurations are also compared bit
for bit with the one-by-one loop.

``test_block_map_places_a_gap_at_a_segment_boundary_exactly`` (the rerun of that sample):
the block reduction's float floor of a run's segments at gaps on segment boundaries, against
exact float arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_fast_paths import _blocks_equal_the_loop, _scenario

from relmc.scenario import Category
from relmc.sim import _kernels
from relmc.sim.simulate import kernel_inputs

MAX_EVENTS = 1000


def _stuck(work: float):
    """Kernel inputs: a failure every ~0.001 h, 1-h segments: no progress to the budget."""
    sc = _scenario(
        [Category("bug", rate=1000.0, unit="job")],
        work=work,
        checkpoint_interval=1.0,
        snapshot_hours=0.05,
        restart_hours=0.0,
        max_events=MAX_EVENTS,
    )
    inputs, _ = kernel_inputs(sc, None, 64)
    assert _kernels.renewal_applies(inputs.maint_rate, inputs.n_spares, inputs.swap)
    return inputs


def test_block_reduction_runs_up_to_its_bound():
    for work, n_seg in ((5.0, 5), (4.0, 4)):
        inputs = _stuck(work)
        assert _kernels._segments(inputs.work_hours, inputs.tau)[0] == n_seg
        fast, stats, stats_slow = _blocks_equal_the_loop(inputs, 3)
        # every trial stops at the budget with no progress: the segments left never change
        assert not fast["finished"].any()
        assert (fast["events"] == MAX_EVENTS).all()
        assert (fast["progress_hours"] == 0.0).all()
        assert stats_slow[0] == 0 and stats_slow[1] == stats[:2].sum()
        if n_seg == 5:
            # the bound admits every buffer short of the budget
            assert stats[0] > 0.5 * stats[:2].sum(), stats
        else:
            # negative control: 3 + g_up / seg > n_seg - 1 = 3 for every buffer
            assert stats[0] == 0, stats


def _k_below(g: float, seg: float, inv_seg: float) -> int:
    """The largest ``k`` with ``k * seg <= g`` in the floats (the segment a run's position
    ``g`` is in, as every path places it), from the float floor corrected both ways."""
    k = math.floor(g * inv_seg)
    while k * seg > g:
        k -= 1
    while (k + 1) * seg <= g:
        k += 1
    return k


@pytest.mark.parametrize("persist", [0.0, 0.05])
@pytest.mark.parametrize(
    ("tau", "delta", "floor_high"),
    [(0.5, 0.05, True), (0.09, 0.01, False), (1.5, 0.1, True), (1.3, 0.1, False)],
)
def test_block_map_places_a_gap_at_a_segment_boundary_exactly(tau, delta, floor_high, persist):
    """The renewal path's block reduction (:func:`relmc.sim._kernels._block_map`) takes a
    run's whole segments as a float floor of ``e / seg`` with two corrections (its docstring):
    down where ``floor(e * inv_seg) * seg > e``, up where ``(k + 1) * seg <= e``. Random gaps
    almost never sit where the floor is wrong, so the statistical comparisons cannot see the
    corrections: a mutation sample of benchmarks/MUTATION_RENEWAL.md (the rerun) found the
    first correction broken two ways alive (``kf * seg > ep`` to ``kf + seg > ep``, which
    the second correction undoes only for segments of at most an hour, and to ``kf * seg is
    ep``, never true). Here each gap is a float multiple of ``seg`` or its neighbour below or
    above, taken alone (restart 0, mean gap 1), for segments below and above an hour whose
    floor errs high (0.55 h, 1.6 h) or low (0.1 h, 1.4 h), with and without persist (the two
    compiled forms): the segments it returns and its checkpoint hours must equal exact float
    arithmetic, gap by gap. Negative control: the float floor alone is wrong for hundreds of
    these gaps, in the direction named.
    """
    seg = tau + delta
    inv_seg = 1.0 / seg
    gaps = [
        x
        for m in range(1, 600)
        for x in (m * seg, math.nextafter(m * seg, 0.0), math.nextafter(m * seg, math.inf))
    ]
    want = [_k_below(g, seg, inv_seg) for g in gaps]
    floors = [math.floor(g * inv_seg) for g in gaps]
    high = sum(f > k for f, k in zip(floors, want, strict=True))  # the first correction's
    low = sum(f < k for f, k in zip(floors, want, strict=True))  # the second's
    assert (high if floor_high else low) > 100, (high, low)
    buf = np.zeros(_kernels.BUF)
    for g, k in zip(gaps, want, strict=True):
        buf[0] = g
        acc = np.zeros((_kernels.N_ACC, _kernels.BUF))
        _, sk, n_run = _kernels._block_map(
            buf, 0, 1, 1.0, 0.0, tau, delta, persist, seg, inv_seg, acc
        )
        x = g - k * seg
        assert (sk, n_run) == (k, 1), (g, sk, k)
        assert acc[_kernels.A_CKPT, 0] == k * delta + (x - tau if x > tau else 0.0), g
