"""Tests added by the pool path's mutation sample (benchmarks/MUTATION_RENEWAL.md, "The pool
path at ed5f408").

Each kills a sampled mutant that the existing tests let survive and that is not equivalent.
"""

from __future__ import annotations

import numpy as np
import pytest

from relmc.sim import _kernels


@pytest.mark.parametrize(("n_spares", "repair_hours"), [(0, 3.0), (2, 5.0), (8, 40.0)])
def test_the_pools_buffered_swap_reads_the_stream_the_direct_one_draws(n_spares, repair_hours):
    """``_pool_swap_buf`` (the reduced pool path's swap) must read its exponentials from its
    buffer in order, refilling it (``BUF`` draws of the Generator) only when it is read
    out, so that a run of swaps consumes exactly the stream ``_pool_swap`` draws one at a
    time: given Generators of one seed, every swap's ``(wait, ready, n, next)`` is the same,
    bit for bit, over 600 swaps at times 0.5 h apart on average (repairs completing between
    swaps, waits for a repaired node, and several refills). A sampled mutant (``jp == BUF``
    -> ``jp < BUF`` at a completion: the buffer refilled, its unread draws dropped) survived
    every test: the pool paths are compared in distribution only, and dropping draws changes
    no distribution. Negative control: a buffer that starts one draw ahead diverges.
    """
    times = np.cumsum(np.random.default_rng(1).exponential(0.5, 600))

    def buffered(skip):
        rng = np.random.Generator(np.random.PCG64(7))
        pbuf = np.empty(_kernels.BUF)
        jp = _kernels.BUF  # empty: the first read refills
        if skip:  # a buffer one draw ahead of the stream (the negative control)
            _kernels._fill(rng, pbuf)
            jp = skip
        n, nxt = 0, _kernels.NO_REPAIR
        out = []
        for t in times:
            wait, ready, n, nxt, jp = _kernels._pool_swap_buf(
                rng, pbuf, jp, t, n, nxt, n_spares, repair_hours
            )
            out.append((wait, ready, n, nxt))
        return out

    rng = np.random.Generator(np.random.PCG64(7))
    n, nxt = 0, _kernels.NO_REPAIR
    direct = []
    for t in times:
        wait, ready, n, nxt = _kernels._pool_swap(rng, t, n, nxt, n_spares, repair_hours)
        direct.append((wait, ready, n, nxt))
    waits = sum(w for w, *_ in direct)
    completions = sum(a[2] + 1 > b[2] for a, b in zip(direct, direct[1:], strict=False))
    assert waits > 10 or n_spares == 8, waits
    assert completions > 100, completions  # repairs end between swaps: the loop's refills
    assert buffered(0) == direct
    assert buffered(1) != direct
