"""The run arithmetic the kernel paths share, against exact rational arithmetic.

``_run_stop`` (a run stopped by an event) and ``_cap_cut`` (a run cut by the wall cap) serve
the general, pool, diurnal, node and physics paths alike, so the tests that compare those
paths bit for bit cannot see a mistake inside them. Here they are checked against a
position computed with ``fractions.Fraction`` from the contract's layout of a run: segment
``j`` is ``tau`` hours of compute then a ``delta``-hour snapshot, the last one ``r`` hours
of compute, its snapshot and the final persist; snapshot ``j`` is durable ``persist`` hours
after it ends. Hours are binary fractions, so the boundaries (a snapshot's start and end, a
persist's end, the last segment's start) are exact in floating point and the boundary cases
must come out exactly. Last, the event budget kernel inputs accept, which the width of the
kernel's counts bounds.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as Q

import pytest

from relmc.scenario import Scenario
from relmc.sim import _kernels
from relmc.sim.simulate import kernel_inputs

TAU, DELTA, PERSIST = 0.5, 0.125, 0.25
N_SEG, R = 5, 0.375  # four whole segments, then 0.375 h of compute


def _exact(e: float, n_seg: int = N_SEG, r: float = R):
    """``(k, computed, ckpt, dk, durable, in_snapshot)`` of a run at position ``e``."""
    tau, delta, persist, e = Q(TAU), Q(DELTA), Q(PERSIST), Q(e)
    seg = tau + delta
    k = min(int(e // seg), n_seg - 1)
    x = e - k * seg
    s_k = tau if k < n_seg - 1 else Q(r)
    computed = k * tau + min(x, s_k)
    ckpt = k * delta + max(x - s_k, Q(0))
    dk = max(k - 1 if x < persist else k, 0)
    return k, computed, ckpt, dk, dk * tau, x >= s_k


SEG = TAU + DELTA
LAST = (N_SEG - 1) * SEG
POSITIONS = sorted(
    {0.0, 0.1, TAU, TAU + 0.0625, SEG, SEG + PERSIST, SEG + PERSIST - 2**-20, 2 * SEG + TAU}
    | {LAST - 2**-20, LAST, LAST + PERSIST, LAST + R, LAST + R + DELTA / 2}
    | {j * SEG + PERSIST for j in range(1, N_SEG)}
)


@pytest.mark.parametrize("e", POSITIONS)
def test_run_stop_matches_exact_arithmetic(e):
    k, computed, ckpt, dk = _kernels._run_stop(
        e, N_SEG, LAST, R, TAU, SEG, 1.0 / SEG, DELTA, PERSIST
    )
    ek, ecomp, eckpt, edk, _, _ = _exact(e)
    assert (k, dk) == (ek, edk)
    assert computed == float(ecomp) and ckpt == float(eckpt)
    assert computed + ckpt == e  # a run's hours are compute or snapshot


@pytest.mark.parametrize("e", POSITIONS)
@pytest.mark.parametrize("snap_steps", [0, 2])
def test_cap_cut_matches_exact_arithmetic(e, snap_steps):
    steps, rework, ckpt, durable = _kernels._cap_cut(
        e, N_SEG, LAST, R, TAU, SEG, 1.0 / SEG, DELTA, PERSIST, snap_steps
    )
    ek, ecomp, eckpt, _, edurable, in_snapshot = _exact(e)
    assert steps == snap_steps * ek + (1 if in_snapshot else 0)
    assert durable == float(edurable) and rework == float(ecomp - edurable)
    assert ckpt == float(eckpt)


def test_negative_control_the_boundaries_are_seen():
    # a persist that ends exactly at the stop makes its segment durable; a stop 2^-20 h
    # earlier does not, so a "<=" for "<" in the durable test would fail the cases above
    at = _kernels._run_stop(SEG + PERSIST, N_SEG, LAST, R, TAU, SEG, 1.0 / SEG, DELTA, PERSIST)
    before = _kernels._run_stop(
        SEG + PERSIST - 2**-20, N_SEG, LAST, R, TAU, SEG, 1.0 / SEG, DELTA, PERSIST
    )
    assert (at[3], before[3]) == (1, 0)
    assert _exact(SEG + PERSIST)[3] == 1 and _exact(SEG + PERSIST - 2**-20)[3] == 0


def test_kernel_inputs_refuse_an_event_budget_past_the_counts_width():
    # the kernel's per-trial counts are int32 and a node record's counts 31 bits wide;
    # Scenario refuses such a budget, and so do kernel inputs changed directly
    x, _ = kernel_inputs(Scenario.default(), None, 1)
    dataclasses.replace(x, max_events=2**31 - 1)  # the largest allowed
    for bad in (0, 2**31):
        with pytest.raises(ValueError, match=r"max_events must be an integer in \[1, 2147483647\]"):
            dataclasses.replace(x, max_events=bad)
