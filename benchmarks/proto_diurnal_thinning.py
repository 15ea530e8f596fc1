"""Prototype, apart from relmc: diurnal failures by thinning against a binned bound.

    python benchmarks/proto_diurnal_thinning.py      # ~30 s

Not used by relmc. It measures what issue 11's remaining target (a diurnal rate at >= 0.2 of
the exponential-draw rate) would need: the diurnal path's solve of ``F(x) = g`` costs ~40 ns
per failure at 100k GPUs, which alone is above the whole budget. Here the failure times of
the intensity ``L + A cos(OMEGA t + theta)`` are drawn by thinning: candidates from a
piecewise-constant bound over ``K`` bins per day (its maximum over each bin), a candidate in
bin ``b`` accepted at once when ``u hi_b <= lo_b`` (the bin's minimum: a squeeze, no cosine)
and else by the exact test ``u hi_b < lambda(t)``. Exponentials and uniforms come from
128-entry buffers. Exact (thinning of a Poisson process), checked here by the known answer:
after ``n`` failures at ``t_n``, the integral of the intensity over ``[0, t_n]`` is a sum of
``n`` unit exponentials (z printed, mean ``n``, sd ``sqrt(n)``). What a path built on it
would still need: the renewal path's block reduction on the wall-time gaps (the diurnal
path's per-failure "rest" is ~14 ns), and whole days skipped by the bound's daily integral
(long gaps walk ~90 bins here).
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

OMEGA = 2.0 * math.pi / 24.0


def tables(big_l: float, big_a: float, theta: float, k: int):
    """Each bin's bound (its intensity's maximum, raised by 1e-12), its inverse, its minimum."""
    w = 24.0 / k
    hi = np.empty(k)
    lo = np.empty(k)
    for b in range(k):
        ends = [b * w, (b + 1) * w]
        # the cosine's extremes inside the bin: where the phase crosses a multiple of pi
        for m in range(-4, 8):
            tt = (m * math.pi - theta) / OMEGA
            if b * w < tt < (b + 1) * w:
                ends.append(tt)
        lam = [big_l + big_a * math.cos(OMEGA * tt + theta) for tt in ends]
        hi[b] = max(lam) * (1.0 + 1e-12)
        lo[b] = max(min(lam) * (1.0 - 1e-12), 0.0)
    return hi, 1.0 / hi, lo


@numba.njit(error_model="numpy")
def chain(rng, n, big_l, big_a, theta, hi, inv_hi, lo, w, buf_e, buf_u):
    """Time of the ``n``-th failure from 0, and how many candidates needed the cosine."""
    k = hi.shape[0]
    t = 0.0
    b = 0
    b_end = w
    day0 = 0.0
    with_cos = 0
    je = buf_e.shape[0]
    ju = buf_u.shape[0]
    for _ in range(n):
        while True:
            if je == buf_e.shape[0]:
                for q in range(buf_e.shape[0]):
                    buf_e[q] = rng.standard_exponential()
                je = 0
            e = buf_e[je]
            je += 1
            while e >= hi[b] * (b_end - t):  # the bound's integral to the bin's end
                e -= hi[b] * (b_end - t)
                t = b_end
                b += 1
                if b == k:
                    b = 0
                    day0 += 24.0
                b_end = day0 + (b + 1) * w
            t += e * inv_hi[b]
            if ju == buf_u.shape[0]:
                for q in range(buf_u.shape[0]):
                    buf_u[q] = rng.random()
                ju = 0
            u = buf_u[ju] * hi[b]
            ju += 1
            if u <= lo[b]:
                break
            with_cos += 1
            if u < big_l + big_a * math.cos(OMEGA * t + theta):
                break
    return t, with_cos


def main() -> None:
    n = 2_000_000
    k = 96  # 15-min bins
    print(f"binned thinning, {k} bins a day, {n:,} failures a chain, best of 3 (process CPU)")
    for mean_gap in (22.7, 2.9, 0.2, 0.02):
        for amp in (0.5, 1.0):
            big_l = 1.0 / mean_gap
            big_a = amp * big_l
            theta = 0.7
            hi, inv_hi, lo = tables(big_l, big_a, theta, k)
            be, bu = np.empty(128), np.empty(128)
            chain(
                np.random.default_rng(1), 100, big_l, big_a, theta, hi, inv_hi, lo, 24.0 / k, be, bu
            )
            best = math.inf
            for _ in range(3):
                t0 = time.process_time()
                t_n, with_cos = chain(
                    np.random.default_rng(1), n, big_l, big_a, theta, hi, inv_hi, lo, 24.0 / k,
                    be, bu,
                )  # fmt: skip
                best = min(best, (time.process_time() - t0) / n * 1e9)
            integral = big_l * t_n + big_a / OMEGA * (
                math.sin(OMEGA * t_n + theta) - math.sin(theta)
            )
            z = (integral - n) / math.sqrt(n)
            print(
                f"  mean gap {mean_gap:>5} h, amplitude {amp}: {best:5.1f} ns/failure; "
                f"cosine for {with_cos / n:.3f} of failures; integral z = {z:+.2f}"
            )
    # negative control: a bound 3 % below the intensity's maximum in each bin (thinning then
    # loses the arrivals above it) fails the same known answer
    big_l, big_a, theta = 1.0 / 0.2, 0.5 / 0.2, 0.7
    hi, inv_hi, lo = tables(big_l, big_a, theta, k)
    hi, inv_hi = hi * 0.97, inv_hi / 0.97
    be, bu = np.empty(128), np.empty(128)
    t_n, _ = chain(
        np.random.default_rng(1), n, big_l, big_a, theta, hi, inv_hi, lo, 24.0 / k, be, bu
    )
    integral = big_l * t_n + big_a / OMEGA * (math.sin(OMEGA * t_n + theta) - math.sin(theta))
    print(f"  negative control, bound 3 % low: integral z = {(integral - n) / math.sqrt(n):+.1f}")


if __name__ == "__main__":
    main()
