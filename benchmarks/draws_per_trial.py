"""The random numbers a renewal-path trial needs, drawn alone: the floor of a trial's cost.

A trial of ``m`` failures whose categories are drawn one per failure (the renewal path's alias
draws, below ``_FEW_PER_CATEGORY`` failures a category slot) needs ``m`` standard exponentials
and ``m`` uniforms. This jitted loop draws just those, stored in buffers as the kernel stores
them, for 200,000 trials of ``m`` = 57 (Llama 3 at 2,048 GPUs, 54 days) and of 128 (a full
buffer); best of 7, process CPU time. Compare with ``bench_kernel.py``'s 2,048-GPU size row
(see README.md, "On the 2026-12-04 (Zen 5) host").

Run: ``python benchmarks/draws_per_trial.py`` (~10 s).
"""

import time

import numba
import numpy as np


@numba.njit
def per_trial(rng, n_trials, m, buf, ubuf):
    """Draw ``m`` exponentials then ``m`` uniforms per trial, ``n_trials`` times."""
    s = 0.0
    for _ in range(n_trials):
        for q in range(m):
            buf[q] = rng.standard_exponential()
        for q in range(m):
            ubuf[q] = rng.random()
        s += buf[3] + ubuf[5]
    return s


def main() -> None:
    buf, ubuf = np.empty(128), np.empty(128)
    per_trial(np.random.default_rng(0), 10, 57, buf, ubuf)  # compile outside the timings
    n = 200_000
    for m in (57, 128):
        best = float("inf")
        for _ in range(7):
            rng = np.random.default_rng(1)
            c0 = time.process_time()
            per_trial(rng, n, m, buf, ubuf)
            best = min(best, time.process_time() - c0)
        print(
            f"{m:>4} failures a trial: {best / n * 1e9:7.1f} ns a trial, "
            f"{best / n / m * 1e9:.2f} ns a failure (an exponential and a uniform)"
        )


if __name__ == "__main__":
    main()
