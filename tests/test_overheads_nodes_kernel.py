"""The kernel's per-draw diagnosis, preemption and SDC latency factors (columns 6, 7, 8).

Contract in relmc.sim, "Uncertain overheads": a trial of draw ``d`` runs with every
``diag_hours[c] F[d,6]``, ``preempt_hours F[d,7]`` and every ``sdc_latency[c] F[d,8]`` (the
fixed latency, or the exponential's mean). Kernel alone, exact checks only (the oracle is
tested elsewhere): a table of ones is off bit for bit; a factor equals its input scaled, bit
for bit, on the path that reads it (the same stream, the same arithmetic); trials of each
draw see their own factor; a column that does not apply changes nothing. The other columns
are tested in ``test_overheads_kernel.py``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from threecats import NODE, PHYSICS, run_path, three_category_inputs

from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import OUTPUTS, OVERHEADS, KernelInputs
from relmc.sim.simulate import BLOCK_SIZE

CAUSE = {c: j for j, c in enumerate(CAUSES)}
N_F = len(OVERHEADS)  # columns of overhead_factor
DIAG, PREEMPT, SDC = (OVERHEADS.index(x) for x in ("diagnosis", "preemption", "sdc_latency"))

SCENARIOS = {
    "general": {},
    "nodes": NODE,
    # wrong blame, no standbys (every replacement from the pool is preempted)
    "nodes_blame": {**NODE, "diag_wrong": np.array([0.5, 0.0, 0.25]), "n_standbys": 0},
    "physics": PHYSICS,  # an exponential SDC latency
    "physics_fixed": {**PHYSICS, "sdc_latency_exp": np.array([False, False, False])},
}
#: column of overhead_factor -> (the KernelInputs field it multiplies, scenarios that read it)
COLUMNS = {
    DIAG: ("diag_hours", ("nodes", "nodes_blame")),
    PREEMPT: ("preempt_hours", ("nodes", "nodes_blame")),
    SDC: ("sdc_latency", ("physics", "physics_fixed")),
}
APPLIES = [(col, name) for col, (_, names) in COLUMNS.items() for name in names]
#: Outputs that show each column in use (nonzero in its scenarios when off).
SHOWS = {DIAG: "diagnosis", PREEMPT: "preemption", SDC: "rework"}


def _run(x: KernelInputs, seed: int = 5) -> dict[str, np.ndarray]:
    """Run ``simulate_block`` (the path it chooses) over blocks seeded as ``run_kernel`` does."""
    return run_path(_kernels.simulate_block, x, seed)


def _assert_same(a: dict, b: dict, rows=slice(None)) -> None:
    for name, _, _, _ in OUTPUTS:
        assert np.array_equal(a[name][rows], b[name][rows], equal_nan=True), name


def _table(col: int, values, n_draws: int = 2) -> np.ndarray:
    """A factor table of ones but column ``col`` (``values`` per draw)."""
    f = np.ones((n_draws, N_F))
    f[:, col] = values
    return f


def _scaled(x: KernelInputs, col: int, factor: float) -> dict:
    field = COLUMNS[col][0]
    return {field: getattr(x, field) * factor}


# ---- off: ones in the new columns are the process without them, bit for bit


@pytest.mark.parametrize("name", SCENARIOS)
def test_table_of_ones_is_off_bit_for_bit(name):
    off = three_category_inputs(**SCENARIOS[name])
    a = _run(off)
    _assert_same(a, _run(dataclasses.replace(off, overhead_factor=np.ones((2, N_F)))))
    assert a["events"].sum() > 100
    for col in (c for c, n in APPLIES if n == name):
        assert a["lost_hours"][:, CAUSE[SHOWS[col]]].sum() > 0  # the column's overhead is spent


# ---- a factor is its input scaled, bit for bit (the same stream, the same arithmetic)


@pytest.mark.parametrize(("col", "name"), APPLIES)
def test_factor_two_is_the_input_doubled(col, name):
    """``F[:, col] = 2`` equals the input doubled without a table; per draw, ``F[1, col] = 2``
    equals it doubled with ``F[0, col] = 1/2`` (powers of two: ``x * 2 * 0.5 == x``)."""
    x = three_category_inputs(**SCENARIOS[name])
    a = _run(dataclasses.replace(x, overhead_factor=_table(col, 2.0)))
    _assert_same(a, _run(dataclasses.replace(x, **_scaled(x, col, 2.0))))
    b = _run(dataclasses.replace(x, overhead_factor=_table(col, [1.0, 2.0])))
    c = _run(
        dataclasses.replace(x, overhead_factor=_table(col, [0.5, 1.0]), **_scaled(x, col, 2.0))
    )
    _assert_same(b, c)
    off = _run(x)
    d1 = x.draw_of_trial == 1
    assert not np.array_equal(b["wall_hours"][d1], off["wall_hours"][d1])


@pytest.mark.parametrize(("col", "name"), APPLIES)
def test_each_draw_sees_its_own_factor(col, name):
    """One draw per block (blocks have streams of their own): the block of draw ``d`` is,
    bit for bit, the run with the input times ``F[d, col]`` and no table, for factors that
    are no powers of two (one product, the same as NumPy's)."""
    x = three_category_inputs(**SCENARIOS[name])
    x = dataclasses.replace(x, draw_of_trial=np.repeat(np.arange(2, dtype=np.int64), BLOCK_SIZE))
    factors = (0.7, 1.9)
    a = _run(dataclasses.replace(x, overhead_factor=_table(col, factors)))
    for d, f in enumerate(factors):
        block = slice(d * BLOCK_SIZE, (d + 1) * BLOCK_SIZE)
        _assert_same(a, _run(dataclasses.replace(x, **_scaled(x, col, f))), block)
    off = _run(x)
    for d in (0, 1):
        block = slice(d * BLOCK_SIZE, (d + 1) * BLOCK_SIZE)
        assert not np.array_equal(a["wall_hours"][block], off["wall_hours"][block])


def test_diagnosis_and_preemption_hours_per_failure():
    """Every failure is diagnosed once (also a wrongly blamed one: no second diagnosis) and,
    with no standbys, no lemons and an unlimited pool, every one takes nodes from the pool
    (swap or blast radius): lost hours are counts times ``diag_hours F[d,6]`` and
    ``preempt_hours F[d,7]``, exactly (multiples of 1/16: sums exact in binary)."""
    kw = {**SCENARIOS["nodes_blame"], "lemon_k": 0, "n_spares": -1}
    x = three_category_inputs(**kw, cap_hours=math.inf, max_events=1_000_000)
    assert np.all(x.swap | (x.cat_domain > 1))
    f = np.ones((2, N_F))
    f[:, DIAG] = [0.5, 2.0]
    f[:, PREEMPT] = [2.0, 4.0]
    out = _run(dataclasses.replace(x, overhead_factor=f))
    assert np.all(out["finished"])
    assert out["wrong_blames"].sum() > 50
    n_c = out["interruptions"].astype(float)
    lost = out["lost_hours"]
    for d in (0, 1):
        m = x.draw_of_trial == d
        diag = n_c[m] @ (x.diag_hours * f[d, DIAG])
        pre = n_c[m].sum(axis=1) * (x.preempt_hours * f[d, PREEMPT])
        assert np.array_equal(lost[m, CAUSE["diagnosis"]], diag)
        assert np.array_equal(lost[m, CAUSE["preemption"]], pre)
        assert diag.sum() > 0 and pre.sum() > 0


def test_fixed_sdc_latency_per_draw():
    """One SDC category, a fixed latency, no other overheads: a detected corruption's rework is
    the latency ``L F[d,8]`` plus the compute since the newest checkpoint before it (less than
    ``tau``), so the rework per detection lies in ``[L F, L F + tau)``."""
    tau = 1.0 / 64.0
    x = three_category_inputs(
        cat_rate=np.array([[0.0, 0.0, 0.05], [0.0, 0.0, 0.05]]),
        detect_hours=np.zeros(3),
        swap=np.zeros(3, dtype=np.bool_),
        maint_rate=0.0,
        tau=tau,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        n_spares=-1,
        cap_hours=math.inf,
        max_events=1_000_000,
        cat_kind=np.array([0, 0, 2], dtype=np.int64),
        sdc_latency=np.array([0.0, 0.0, 1.0]),
        sdc_latency_exp=np.zeros(3, dtype=np.bool_),
        retention=0,
    )
    f = _table(SDC, [0.5, 3.0])
    out = _run(dataclasses.replace(x, overhead_factor=f))
    n_det = out["interruptions"][:, 2].astype(float)
    rework = out["lost_hours"][:, CAUSE["rework"]]
    for d in (0, 1):
        m = (x.draw_of_trial == d) & (n_det > 0)
        assert m.sum() > 50
        per = rework[m] / n_det[m]
        lat = x.sdc_latency[2] * f[d, SDC]
        # slack: the kernel's checkpoint tolerance (1e-9 tau) and float rounding
        assert np.all(per >= lat - 1e-9 * tau), d
        assert np.all(per <= lat + tau * (1.0 + 1e-9)), d


# ---- a column that does not apply changes nothing


@pytest.mark.parametrize(
    ("col", "name"),
    [
        (DIAG, "general"),
        (PREEMPT, "general"),
        (SDC, "general"),
        (DIAG, "physics"),  # the node model off: no diagnosis (a straggler's slow phase is
        (PREEMPT, "physics"),  # detection's, column 4)
        (SDC, "nodes"),  # no SDC category
        (SDC, "nodes_blame"),
    ],
)
def test_column_that_does_not_apply_changes_nothing(col, name):
    x = three_category_inputs(**SCENARIOS[name])
    f = np.exp(np.random.default_rng(col).standard_normal(2))
    _assert_same(_run(x), _run(dataclasses.replace(x, overhead_factor=_table(col, f))))


@pytest.mark.parametrize(
    ("col", "zero"),
    [
        (DIAG, {"diag_hours": np.zeros(3)}),
        (PREEMPT, {"preempt_hours": 0.0}),
        (SDC, {"cat_kind": np.array([0, 1, 0], dtype=np.int64)}),  # stragglers, no SDC
    ],
)
def test_zero_or_absent_overhead_stays_off(col, zero):
    """An overhead of 0 stays 0 whatever its factor; stragglers alone read no SDC latency."""
    base = {**(PHYSICS if col == SDC else NODE), **zero}
    x = three_category_inputs(**base)
    f = _table(col, [0.3, 5.0])
    _assert_same(_run(x), _run(dataclasses.replace(x, overhead_factor=f)))
