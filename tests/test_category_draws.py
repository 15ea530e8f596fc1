"""The categories of a trial's failures, drawn as one multinomial (the renewal and diurnal paths).

``_settle_categories`` draws the counts of ``n`` failures over the categories: ``n`` alias draws
when ``n`` is small, else sequential binomials. Its alias draws are written as two loops
(uniforms stored first, then the table looked up, :func:`_alias_codes`), or, where only the
counts are needed, counted in bins of slot and "kept or aliased" (:func:`_alias_counts`);
both must give what ``n`` calls of ``_pick`` give from the same Generator, draw for draw, and
leave the Generator where those calls leave it. Exact comparisons: each has a negative
control (another seed, or a table that differs in one slot, must change the result).

The renewal path keeps a draw's rates and alias tables while the next trials use the same
draw; trials of another draw with the same rates must give the outputs bit for bit, and a
draw that differs must not.
"""

from __future__ import annotations

import dataclasses
import inspect

import numba
import numpy as np
import pytest

from relmc._seed import child_seed
from relmc.defaults import default_failures
from relmc.scenario import Cluster, Job, Scenario
from relmc.sim import _kernels
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args
from relmc.sim.simulate import BLOCK_SIZE, kernel_inputs

LLAMA3 = np.array([c.rate for c in default_failures().categories])  # 18 rates


@numba.njit(cache=True)
def _table(w):
    n = w.shape[0]
    prob = np.empty(n)
    slot = np.empty(n, dtype=np.int64)
    alias = np.empty(n, dtype=np.int64)
    small = np.empty(n + 1, dtype=np.int64)
    large = np.empty(n + 1, dtype=np.int64)
    n_slots = _kernels._build_alias(w, n, prob, slot, alias, small, large)
    return prob, slot, alias, n_slots


@numba.njit(cache=True)
def _by_pick(rng, w, m):
    """``m`` categories by ``_pick`` one at a time, then the Generator's next uniform."""
    prob, slot, alias, n_slots = _table(w)
    codes = np.empty(m, dtype=np.int64)
    for q in range(m):
        codes[q] = _kernels._pick(rng, prob, slot, alias, n_slots)
    return codes, rng.random()


@numba.njit(cache=True)
def _by_codes(rng, w, m):
    prob, slot, alias, n_slots = _table(w)
    codes = np.empty(m, dtype=np.int64)
    ubuf = np.empty(m)
    _kernels._alias_codes(rng, prob, slot, alias, n_slots, m, ubuf, codes)
    return codes, rng.random()


@numba.njit(cache=True)
def _by_counts(rng, w, m, chunk):
    prob, slot, alias, n_slots = _table(w)
    counts = np.zeros((2, w.shape[0]), dtype=np.int64)
    hist = np.zeros(2 * w.shape[0] + 2, dtype=np.int64)
    _kernels._alias_counts(rng, prob, slot, alias, n_slots, m, np.empty(chunk), hist, 1, counts)
    return counts, hist, rng.random()


@numba.njit(cache=True)
def _settle(rng, w, n, with_total):
    prob, slot, alias, n_slots = _table(w)
    n_cat = w.shape[0]
    suffix = np.empty(n_cat)
    s = 0.0
    for c in range(n_cat - 1, -1, -1):
        s += w[c]
        suffix[c] = s
    cost = 0.1 + np.arange(n_cat) * 0.37
    counts = np.zeros((1, n_cat), dtype=np.int64)
    scratch = _kernels._settle_scratch(n_cat)
    total = _kernels._settle_categories(
        rng, 0, n, w, suffix, prob, slot, alias, n_slots, cost, counts, scratch, with_total
    )
    return counts[0], total, scratch[2].copy(), rng.random()


def _weights(kind: str) -> np.ndarray:
    if kind == "llama3":
        return LLAMA3.copy()
    if kind == "two":
        return np.array([0.3, 0.7])
    if kind == "zeros":  # zero-weight categories get no slot
        return np.array([0.0, 2.0, 0.0, 1.0, 0.5, 0.0])
    rng = np.random.default_rng(3)
    return rng.gamma(0.3, size=40)  # forty categories, very unequal


@pytest.mark.parametrize("kind", ["llama3", "two", "zeros", "forty"])
@pytest.mark.parametrize("m", [1, 31, 32, 57, 200])
def test_alias_codes_and_counts_are_the_draws_of_pick_one_at_a_time(kind, m):
    w = _weights(kind)
    codes, after = _by_pick(np.random.default_rng(m), w, m)
    codes2, after2 = _by_codes(np.random.default_rng(m), w, m)
    np.testing.assert_array_equal(codes2, codes)
    assert after2 == after  # as many uniforms consumed
    for chunk in (1, 7, 32):
        counts, hist, after3 = _by_counts(np.random.default_rng(m), w, m, chunk)
        np.testing.assert_array_equal(counts[1], np.bincount(codes, minlength=w.size))
        assert not counts[0].any()  # only row i is written
        assert not hist.any()  # the bins are left zeroed for the next call
        assert after3 == after
    # negative control: another seed draws other categories
    if m >= 31:
        other, _ = _by_pick(np.random.default_rng(m + 1000), w, m)
        assert not np.array_equal(other, codes)


def test_alias_counts_see_a_table_that_differs_in_one_slot():
    # negative control: the counts follow the table (a slot's alias moved changes them)
    w = LLAMA3.copy()
    base, _, _ = _by_counts(np.random.default_rng(1), w, 500, 32)
    w2 = w.copy()
    w2[int(np.argmax(w))] *= 1.2
    moved, _, _ = _by_counts(np.random.default_rng(1), w2, 500, 32)
    assert not np.array_equal(base, moved)


@pytest.mark.parametrize("n", [0, 1, 40, 71, 72, 300])
def test_settle_counts_do_not_depend_on_whether_the_total_is_summed(n):
    # with_total=False counts in bins, with_total=True looks each code up and sums the costs
    # in the order drawn: the same counts and Generator state; the total is the costs of
    # those counts (to rounding)
    w = LLAMA3.copy()
    c_t, total, hist_t, after_t = _settle(np.random.default_rng(n), w, n, True)
    c_f, _, hist_f, after_f = _settle(np.random.default_rng(n), w, n, False)
    np.testing.assert_array_equal(c_f, c_t)
    assert c_t.sum() == n
    assert after_f == after_t
    assert not hist_t.any() and not hist_f.any()
    cost = 0.1 + np.arange(w.size) * 0.37
    assert total == pytest.approx(float(c_t @ cost), rel=1e-12, abs=0.0)


def test_settle_small_counts_are_multinomial():
    # the alias branch (n < 4 per slot) against the multinomial's means and variances:
    # 20,000 draws of n = 57 over the 18 Llama 3 categories, every count's mean within 4.5
    # standard errors, and the chi-square of the summed counts at p > 1e-4
    from scipy import stats

    w = LLAMA3.copy()
    p = w / w.sum()
    rng = np.random.default_rng(7)
    counts = np.array([_settle(rng, w, 57, False)[0] for _ in range(20_000)])
    mean = counts.mean(axis=0)
    se = np.sqrt(57 * p * (1 - p) / counts.shape[0])
    assert np.all(np.abs(mean - 57 * p) < 4.5 * se)
    tot = counts.sum(axis=0)
    assert stats.chisquare(tot, tot.sum() * p).pvalue > 1e-4
    # negative control: the same counts against rates with the first category 10 % higher
    p2 = w.copy()
    p2[0] *= 1.1
    p2 /= p2.sum()
    assert stats.chisquare(tot, tot.sum() * p2).pvalue < 1e-4


def _renewal(inputs, seed: int) -> dict[str, np.ndarray]:
    n = inputs.n_trials
    out = allocate_outputs(n, inputs.n_categories)
    root = np.random.SeedSequence(seed)
    params = list(inspect.signature(_kernels._block_renewal.py_func).parameters)
    for b in range(-(-n // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        named = dict(
            zip(
                KERNEL_PARAMETERS[1:],
                kernel_args(inputs, out, slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)),
                strict=True,
            )
        )
        args = [named[p] for p in params if p in named]
        _kernels._block_renewal(rng, *args, True, np.zeros(3, dtype=np.int64))
    return out


@pytest.mark.parametrize("maint", [False, True])
def test_renewal_tables_kept_across_trials_of_one_draw_change_nothing(maint):
    # draws 0 and 1 have the same rates, 2 and 3 the same others: trials that alternate
    # between equal draws (tables rebuilt every trial) and trials that repeat a draw (tables
    # kept) give the same outputs bit for bit
    fm = default_failures()
    if not maint:
        fm = dataclasses.replace(fm, maintenance_rate=0.0)
    sc = Scenario(cluster=Cluster(n_gpus=2048), failures=fm, job=Job(24.0 * 20))
    inputs, _ = kernel_inputs(sc, None, 600)
    r0 = inputs.cat_rate[0]
    r1 = r0 * np.linspace(0.7, 1.4, r0.size)
    rates = np.array([r0, r0, r1, r1])
    alternating = np.arange(600) % 4  # 0 1 2 3 0 1 ...: a new draw every trial
    repeated = np.where(alternating % 2 == 1, alternating - 1, alternating)  # 0 0 2 2 ...
    a = _renewal(dataclasses.replace(inputs, cat_rate=rates, draw_of_trial=alternating), 4)
    b = _renewal(dataclasses.replace(inputs, cat_rate=rates, draw_of_trial=repeated), 4)
    for k in ("wall_hours", "progress_hours", "events", "interruptions", "lost_hours"):
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    np.testing.assert_array_equal(a["power_swings"], b["power_swings"])
    # negative control: draws 0 and 1 differ by 1 % in one category's rate
    r0b = r0.copy()
    r0b[int(np.argmax(r0))] *= 1.01
    c = _renewal(
        dataclasses.replace(
            inputs, cat_rate=np.array([r0, r0b, r1, r1]), draw_of_trial=alternating
        ),
        4,
    )
    assert not np.array_equal(a["wall_hours"], c["wall_hours"])
