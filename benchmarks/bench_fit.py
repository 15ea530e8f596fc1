"""Fit-time benchmark: conjugate (closed form) and hierarchical (PyMC NUTS) on Llama 3 Table 5.

Targets: conjugate < 10 ms at 4000 draws; hierarchical, 4 chains x 1000 draws, < 60 s wall time
including PyMC model compilation. Printed, not asserted (tests check correctness only). The
conjugate time is also shown as a ratio to the cost of the random numbers it draws (one Gamma
and one Poisson variate per draw and category), which no implementation can avoid.

Run: python benchmarks/bench_fit.py [--skip-mcmc]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import relmc
from relmc.models import fit_conjugate, fit_hierarchical


def _median_ms(fn, repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-mcmc", action="store_true", help="only the conjugate fit")
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    data = relmc.load_dataset("llama3-405b")
    count, exposure = data["count"].values, data["exposure"].values
    draws = 4000
    gen = np.random.default_rng(0)

    t_fit = _median_ms(lambda: fit_conjugate(data, n_draws=draws, seed=gen), args.repeat)

    def raw_draws():
        lam = gen.standard_gamma(count + 0.5, size=(1, draws, count.size)) / exposure
        gen.poisson(lam * exposure)

    t_raw = _median_ms(raw_draws, args.repeat)
    print(
        f"conjugate  Llama 3 ({count.size} categories, {draws} draws): {t_fit:.2f} ms "
        f"(target < 10 ms); random numbers alone {t_raw:.2f} ms; ratio {t_fit / t_raw:.2f}"
    )

    if args.skip_mcmc:
        return
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", relmc.models.ConvergenceWarning)
        idata = fit_hierarchical(data, n_draws=1000, n_tune=1000, n_chains=4, seed=0)
    wall = time.perf_counter() - t0
    sampling = float(idata.sample_stats.attrs.get("sampling_time", float("nan")))
    print(
        f"hierarchical Llama 3, 4 chains x 1000 draws (+1000 tune): {wall:.1f} s wall "
        f"incl. compilation (target < 60 s); NUTS sampling alone {sampling:.1f} s; "
        f"convergence warnings: {len(caught)}"
    )


if __name__ == "__main__":
    main()
