"""Calibration evidence for ``fit_hierarchical`` with zero-count categories (not run in CI).

Two checks of the sampler (NUTS on (alpha, beta) with the rates integrated out, then the rates
exactly given (alpha, beta); see ``relmc.models.hierarchical``), ``prior="bugs"``:

1. Simulation-based calibration (Talts et al. 2018): SEEDS x REPS replications, each drawing
   (alpha, beta, theta) from the prior and counts at exposures that make zero counts common,
   fitting, and ranking the true log theta (and log alpha, log beta) among thinned draws.
   Reported: chi-square p-value of rank uniformity per seed (ranks pooled over categories,
   divided by the design effect as in tests/test_models_sbc.py), the share of zero counts, and
   the p-value of the lowest rank bin's excess for zero-count categories.
2. Exact grid: for counts 0,0,0,0,3,200 over exposures 1,1,10,10,100,100 (the issue's
   reproducer), the (alpha, beta) posterior on a fine log grid (written from scipy.stats, not
   from relmc) gives the exact CDF of log theta for a zero-count category; at the sampler's
   5/50/95% quantiles it must be 0.05/0.5/0.95 within MC error (z-scores reported, SE
   sqrt(p(1-p)/ESS) with arviz's ESS of the indicator). The old centred sampler (theta sampled
   on the log scale with alpha and beta) is run on the same check for comparison.

Usage: ``python benchmarks/validate_hierarchical.py [--seeds 5] [--reps 100] [--grid-seeds 5]``.
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np
from scipy import stats

from relmc.models import fit_hierarchical, import_arviz, import_pymc
from relmc.models.hierarchical import TARGET_ACCEPT, draw_pooled_log, marginal_model

az = import_arviz()
pm = import_pymc()

EXPOSURE = np.array([0.05, 0.2, 1.05, 5.24, 31.4, 126.0])  # 1000 pump-hours; small ones give zeros
COUNT_CAP = 1000  # keep data sets with every count <= cap (a condition on data: SBC stays exact)
TUNE, THIN, DRAWS, BINS = 300, 4, 19, 5  # ranks 0..19, 5 bins of 4

ZERO_COUNT = np.array([0, 0, 0, 0, 3, 200])
ZERO_EXPOSURE = np.array([1.0, 1.0, 10.0, 10.0, 100.0, 100.0])


def prior_data(rng):
    while True:
        alpha, beta = rng.exponential(1.0), rng.gamma(0.1, 1.0)
        n = EXPOSURE.size
        log_theta = (
            np.log(rng.gamma(alpha + 1.0, size=n)) + np.log(rng.uniform(size=n)) / alpha
        ) - np.log(beta)
        mean = np.exp(log_theta) * EXPOSURE
        if np.all(mean < 1e6):
            count = rng.poisson(mean)
            if np.all(count <= COUNT_CAP):
                return np.log(alpha), np.log(beta), log_theta, count


class Sampler:
    """fit_hierarchical's sampler (marginal_model + draw_pooled_log), compiled once."""

    def __init__(self):
        self.model = marginal_model(np.zeros(EXPOSURE.size, dtype=np.int64), EXPOSURE)
        self.f = self.model.logp_dlogp_function(ravel_inputs=True)
        self.f.trust_input = True
        self.start = pm.blocking.DictToArrayBijection.map(self.model.initial_point())

    def sample(self, count, seed):
        from pymc.step_methods.hmc.quadpotential import QuadPotentialDiagAdapt

        pm.set_data({"count_data": count, "t_data": EXPOSURE}, model=self.model)
        n = self.start.data.size
        pot = QuadPotentialDiagAdapt(n, self.start.data, np.ones(n), 10, rng=seed)
        step = pm.NUTS(
            model=self.model,
            potential=pot,
            logp_dlogp_func=self.f,
            target_accept=TARGET_ACCEPT,
            rng=seed,
        )
        with self.model:
            tr = pm.sample(
                draws=DRAWS * THIN, tune=TUNE, chains=1, cores=1, step=step, random_seed=seed,
                progressbar=False, quiet=True, compute_convergence_checks=False,
                return_inferencedata=False,
            )  # fmt: skip
        a, b = tr.get_values("alpha")[THIN - 1 :: THIN], tr.get_values("beta")[THIN - 1 :: THIN]
        lt = draw_pooled_log(a, b, count, EXPOSURE, np.random.default_rng(seed))
        div = int(tr.get_sampler_stats("diverging").sum())
        return np.log(a), np.log(b), lt, div


def rank(draws, truth, rng):
    below = (draws < truth).sum(axis=0)
    ties = (draws == truth).sum(axis=0)
    return below + rng.integers(0, ties + 1)


def uniformity_p(ranks):
    """Chi-square p of uniform ranks (reps, k) in BINS bins, with the design-effect correction."""
    reps, k = ranks.shape
    per = np.stack([np.bincount(r * BINS // (DRAWS + 1), minlength=BINS) for r in ranks])
    p = 1.0 / BINS
    deff = max(float(np.mean(per.var(axis=0, ddof=1) / (k * p * (1 - p)))), 1.0)
    chi2 = stats.chisquare(per.sum(axis=0)).statistic / deff
    return float(stats.chi2.sf(chi2, BINS - 1)), per.sum(axis=0)


def sbc(sampler, seed, reps):
    rng = np.random.default_rng(seed)
    r_theta, r_ab, zero_ranks, div = [], [], [], 0
    for _ in range(reps):
        la, lb, lt, count = prior_data(rng)
        da, db, dt, d = sampler.sample(count, int(rng.integers(2**31)))
        div += d
        rt = rank(dt, lt, rng)
        r_theta.append(rt)
        r_ab.append([rank(da[:, None], la, rng)[0], rank(db[:, None], lb, rng)[0]])
        zero_ranks.extend(rt[count == 0].tolist())
    r_theta, r_ab = np.array(r_theta), np.array(r_ab)
    zero_ranks = np.array(zero_ranks)
    n0 = zero_ranks.size
    low = int((zero_ranks < (DRAWS + 1) // BINS).sum())
    return {
        "p_theta": uniformity_p(r_theta)[0],
        "bins_theta": uniformity_p(r_theta)[1].tolist(),
        "p_alpha_beta": uniformity_p(r_ab)[0],
        "zero_share": n0 / r_theta.size,
        "zero_low_bin": f"{low}/{n0}",
        # two-sided binomial p of the lowest bin's share among zero-count ranks (expected 1/BINS)
        "p_zero_low_bin": float(stats.binomtest(low, n0, 1 / BINS).pvalue) if n0 else float("nan"),
        "divergences": div,
    }


def grid_posterior(count, t):
    log_a, log_b = np.linspace(-12.0, 4.0, 800), np.linspace(-90.0, 8.0, 1600)
    a, b = np.exp(log_a)[:, None], np.exp(log_b)[None, :]
    lp = stats.expon.logpdf(a) + stats.gamma.logpdf(b, 0.1) + np.log(a) + np.log(b)
    for x, tc in zip(count, t, strict=True):
        lp = lp + stats.nbinom.logpmf(x, a, b / (b + tc))
    w = np.exp(lp - lp.max())
    edge = (w[0].sum() + w[-1].sum() + w[:, 0].sum() + w[:, -1].sum()) / w.sum()
    return a, b, w / w.sum(), edge


def cdf_check(log_theta, grid, x=0, tc=1.0, levels=(0.05, 0.5, 0.95)):
    a, b, w, _ = grid
    q = np.quantile(log_theta, levels)
    rows = []
    for lev, qq in zip(levels, q, strict=True):
        cdf = float((w * stats.gamma.cdf(np.exp(qq), a + x, scale=1 / (b + tc))).sum())
        ess = float(az.ess((log_theta <= qq).astype(float)))
        rows.append((lev, cdf, (cdf - lev) / np.sqrt(lev * (1 - lev) / ess)))
    return rows


def _rows(rows):
    return ", ".join(f"{lev:.2f}: CDF {c:.4f} (z {z:+.2f})" for lev, c, z in rows)


def centred_fit(seed, draws):
    """The old centred model: theta_c ~ Gamma(alpha, beta) sampled with (alpha, beta)."""
    with pm.Model():
        alpha = pm.Exponential("alpha", 1.0)
        beta = pm.Gamma("beta", alpha=0.1, beta=1.0)
        theta = pm.Gamma("theta", alpha=alpha, beta=beta, shape=ZERO_COUNT.size)
        pm.Poisson("count", mu=theta * ZERO_EXPOSURE, observed=ZERO_COUNT)
        tr = pm.sample(
            draws=draws, tune=1000, chains=4, cores=1, random_seed=seed,
            target_accept=0.9, progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    return np.log(tr.posterior["theta"].values[..., 0]), int(tr.sample_stats["diverging"].sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--grid-seeds", type=int, default=5)
    ap.add_argument("--centred-seeds", type=int, default=2)
    ap.add_argument("--draws", type=int, default=2000)
    args = ap.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    t0 = time.time()

    print(f"## SBC: {args.seeds} seeds x {args.reps} replications, exposures {EXPOSURE.tolist()}")
    sampler = Sampler()
    for s in range(args.seeds):
        t = time.time()
        r = sbc(sampler, 20240700 + s, args.reps)
        print(f"seed {20240700 + s}: {r} ({time.time() - t:.0f} s)", flush=True)

    grid = grid_posterior(ZERO_COUNT, ZERO_EXPOSURE)
    print(f"\n## exact grid: counts {ZERO_COUNT.tolist()}, exposures {ZERO_EXPOSURE.tolist()}; "
          f"mass on the grid's edges {grid[3]:.1e}")  # fmt: skip
    data = __import__("xarray").Dataset(
        {"count": ("category", ZERO_COUNT), "exposure": ("category", ZERO_EXPOSURE),
         "unit": ("category", np.array(["pump"] * 6))},
        coords={"category": [f"c{i}" for i in range(6)]}, attrs={"name": "zero-counts"},
    )  # fmt: skip
    for s in range(args.grid_seeds):
        fit = fit_hierarchical(data, prior="bugs", n_draws=args.draws, n_chains=4, cores=1, seed=s)
        lt = np.log(fit.posterior["rate"].values[..., 0])
        div = int(fit.sample_stats["diverging"].sum())
        rows = ", ".join(
            f"{lev:.2f}: CDF {c:.4f} (z {z:+.2f})" for lev, c, z in cdf_check(lt, grid)
        )
        print(f"new sampler, seed {s}, 4 x {args.draws}: divergences {div}; {rows}", flush=True)
    for s in range(args.centred_seeds):
        lt, div = centred_fit(s, args.draws)
        rows = ", ".join(
            f"{lev:.2f}: CDF {c:.4f} (z {z:+.2f})" for lev, c, z in cdf_check(lt, grid)
        )
        print(f"old centred sampler, seed {s}, 4 x {args.draws}: divergences {div}; {rows}")
    print(f"\ntotal {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
