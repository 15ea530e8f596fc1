"""The renewal path's two per-failure parts timed alone, in sequence and interleaved (issue 10).

    python benchmarks/renewal_parts.py        # ~15 s

In the Daly configuration a failure costs one standard exponential stored in the draw
buffer (``_kernels._fill``) and its share of the block reduction (``_kernels._block_map``,
the branch-free loop that adds a buffer of failures at once). This times, ns per failure,
best of 5 over 100,000 buffers of ``BUF`` (128) failures, one thread:

* ``fill``: ``_fill`` alone (the stored draw);
* ``map``: ``_block_map`` alone over one buffer of Daly's gaps (MTBF 30.5 min, 10-min
  restart, 30-min checkpoints with 1-min snapshots, durable at once), in L1;
* ``fill + map``: both, one after the other, as the path runs them;
* ``interleaved by K``: the next buffer's draws ``K`` at a time, each chunk followed by the
  current buffer's reduction over the same ``K`` positions: whether the CPU overlaps the
  reduction's vector arithmetic with the draws' chain when they are interleaved.

The summed draw, ``bench_kernel.py`` section [0]'s denominator (its ``>= 0.9`` target), is
measured in the same run; its ratio to ``fill + map`` bounds the path's Daly ratio from
above: the path adds the gap bounds, the trial loop and the ziggurat's rare tail on top.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from relmc.sim import _kernels as K

N_BUF = 100_000
MEAN_GAP = 1.0 / 1.9654  # Daly configuration: the Llama 3 total rate at 100k GPUs, per hour
RESTART, TAU, DELTA = 10 / 60, 0.5, 1 / 60
SEG = TAU + DELTA


@numba.njit
def _summed(rng, n):
    s = 0.0
    for _ in range(n * K.BUF):
        s += rng.standard_exponential()
    return s


@numba.njit
def _fill_only(rng, buf, n):
    for _ in range(n):
        K._fill(rng, buf)
    return buf[0]


@numba.njit
def _map_only(buf, acc, n):
    s = 0
    for _ in range(n):
        s += K._block_map(buf, 0, K.BUF, MEAN_GAP, RESTART, TAU, DELTA, 0.0, SEG, 1 / SEG, acc)[0]
    return s


@numba.njit
def _fill_then_map(rng, buf, acc, n):
    s = 0
    for _ in range(n):
        K._fill(rng, buf)
        s += K._block_map(buf, 0, K.BUF, MEAN_GAP, RESTART, TAU, DELTA, 0.0, SEG, 1 / SEG, acc)[0]
    return s


@numba.njit
def _interleaved(rng, cur, nxt, acc, n, chunk):
    s = 0
    for _ in range(n):
        for c0 in range(0, K.BUF, chunk):
            for q in range(c0, c0 + chunk):
                nxt[q] = K._gap(rng)
            s += K._block_map_body(
                cur, c0, c0 + chunk, MEAN_GAP, RESTART, TAU, DELTA, 0.0, SEG, 1 / SEG, acc,
                False, True,
            )[0]  # fmt: skip
        cur, nxt = nxt, cur
    return s


def best_ns(run) -> float:
    """ns per failure of ``run(N_BUF)``: best of 5 (compiled first by ``run(2)``)."""
    run(2)
    t = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        run(N_BUF)
        t = min(t, time.perf_counter() - t0)
    return t / (N_BUF * K.BUF) * 1e9


def main() -> None:
    rng = np.random.default_rng(2026)
    buf, nxt = np.empty(K.BUF), np.empty(K.BUF)
    acc = np.zeros((K.N_ACC, K.BUF))
    K._fill(rng, buf)
    rows = {
        "summed draw": best_ns(lambda n: _summed(rng, n)),
        "fill": best_ns(lambda n: _fill_only(rng, buf, n)),
        "map": best_ns(lambda n: _map_only(buf, acc, n)),
        "fill + map": best_ns(lambda n: _fill_then_map(rng, buf, acc, n)),
    }
    for k in (16, 32, 128):
        rows[f"interleaved by {k}"] = best_ns(lambda n, k=k: _interleaved(rng, buf, nxt, acc, n, k))
    for name, ns in rows.items():
        print(f"{name:<18} {ns:6.2f} ns/failure")
    bound = rows["summed draw"] / rows["fill + map"]
    print(f"summed draw / (fill + map): {bound:.3f} (the most the Daly path could read)")


if __name__ == "__main__":
    main()
