"""Simulation-based calibration (Talts et al. 2018) of the hierarchical model, ``prior="bugs"``.

Each replication draws ``alpha``, ``beta`` and four pump rates from the model's own prior, draws
Poisson counts at pumps-like exposures, fits the model and records the rank of each true rate
among thinned posterior draws. If data simulator, model and sampler agree, the ranks are uniform.

A ``fit_hierarchical`` call builds and compiles a new PyMC model (seconds on 2 cores), which
would dominate 100 replications. So the test takes the model ``fit_hierarchical`` samples,
:func:`relmc.models.hierarchical.marginal_model` (NUTS on alpha and beta, the rates integrated
out), compiles its log density and gradient once, and re-samples after ``pm.set_data``; the
rates are then drawn exactly given (alpha, beta) with
:func:`relmc.models.hierarchical.draw_pooled_log`, as ``fit_hierarchical`` does.
``test_sbc_model_matches_fit_hierarchical`` checks one fit of it against ``fit_hierarchical``
within Monte Carlo error.
"""

from __future__ import annotations

import logging

import arviz as az
import numpy as np
import pytest
import xarray as xr
from scipy import stats

from relmc.models import fit_hierarchical, import_pymc
from relmc.models.hierarchical import TARGET_ACCEPT, draw_pooled_log, marginal_model

pytestmark = pytest.mark.slow

# four of the BUGS pumps' exposures (1000 pump-hours, SOURCES.md §5): 1 to 126, so a rate
# of order 1 gives counts from ~1 to ~100
_EXPOSURE = np.array([1.05, 5.24, 31.4, 126.0])
# The bugs prior is very wide (beta ~ Gamma(0.1, 1) puts 10% of its mass below 1e-10), so about
# half of its data sets have a count above 1e4 and some exceed int64. Replications are kept only
# when every count is <= _COUNT_CAP. That is a condition on the data alone, so it leaves SBC exact:
# the rank of the true rate is uniform given each data set, hence given any set of data sets.
# What is left is checked: every data set with counts 0..1000 at these exposures.
_COUNT_CAP = 1000
_TUNE = 200  # NUTS tuning steps per replication (one chain)
_THIN = 8  # keep every 8th draw: thinned draws are close to independent (Talts et al. §5)
_DRAWS = 19  # kept draws: ranks 0..19, 20 equally likely values under calibration
_BINS = 5  # 4 rank values per bin
_REPS = 60  # 240 ranks, 48 expected per bin
_REPS_CONTROL = 16
_SEED = 20240602


class _SameModel:
    """relmc's ``fit_hierarchical(prior="bugs", pool="unit")`` sampler, compiled once.

    The model is ``marginal_model`` itself (all categories are pumps, so ``t`` is the
    exposure), sampled with PyMC's NUTS, target acceptance ``TARGET_ACCEPT`` as in
    ``fit_hierarchical``, and the same diagonal mass-matrix adaptation that ``pm.sample``
    sets up by default; then the rates given each (alpha, beta) draw by ``draw_pooled_log``.
    """

    def __init__(self) -> None:
        pm = import_pymc()
        self.pm = pm
        self.model = marginal_model(np.zeros(_EXPOSURE.size, dtype=np.int64), _EXPOSURE)
        self.logp_dlogp = self.model.logp_dlogp_function(ravel_inputs=True)
        self.logp_dlogp.trust_input = True
        self.start = self.pm.blocking.DictToArrayBijection.map(self.model.initial_point())

    def sample(self, count, exposure, seed: int, tune: int, draws: int) -> dict[str, np.ndarray]:
        """Posterior draws (one chain) of log theta, log alpha, log beta; and divergences."""
        pm = self.pm
        from pymc.step_methods.hmc.quadpotential import QuadPotentialDiagAdapt

        count = np.asarray(count, dtype=np.int64)
        pm.set_data({"count_data": count, "t_data": exposure}, model=self.model)
        n = self.start.data.size
        # what pm.sample's default init builds, with our compiled function instead of a new one
        potential = QuadPotentialDiagAdapt(n, self.start.data, np.ones(n), 10, rng=seed)
        step = pm.NUTS(
            model=self.model,
            potential=potential,
            logp_dlogp_func=self.logp_dlogp,
            target_accept=TARGET_ACCEPT,
            rng=seed,
        )
        with self.model:
            trace = pm.sample(
                draws=draws,
                tune=tune,
                chains=1,
                cores=1,
                step=step,
                random_seed=seed,  # an int: pm.sample does not advance a Generator it is given
                progressbar=False,
                quiet=True,
                compute_convergence_checks=False,
                return_inferencedata=False,
            )
        alpha, beta = trace.get_values("alpha"), trace.get_values("beta")
        rng = np.random.default_rng(seed)
        return {
            "log_theta": draw_pooled_log(alpha, beta, count, exposure, rng),
            "log_alpha": np.log(alpha),
            "log_beta": np.log(beta),
            "divergences": int(trace.get_sampler_stats("diverging").sum()),
        }


@pytest.fixture(scope="module")
def same_model():
    logging.getLogger("pymc").setLevel(logging.ERROR)
    return _SameModel()


def _prior_data_set(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Log rates and counts from the bugs prior, given every count <= _COUNT_CAP."""
    while True:
        alpha = rng.exponential(1.0)  # Exponential(1)
        beta = rng.gamma(0.1, 1.0)  # Gamma(shape 0.1, rate 1)
        # theta ~ Gamma(alpha, rate beta), drawn on the log scale: Gamma(alpha) = Gamma(alpha + 1)
        # * U**(1/alpha) is exact and does not underflow to 0 for alpha << 1 (log theta of -1000
        # occurs), so the rank of the true rate stays defined
        log_theta = (
            np.log(rng.gamma(alpha + 1.0, size=_EXPOSURE.size))
            + np.log(rng.uniform(size=_EXPOSURE.size)) / alpha
            - np.log(beta)
        )
        mean = np.exp(log_theta) * _EXPOSURE
        # a Poisson mean above 1e6 cannot give a count <= 1000 (probability < 1e-400)
        if np.all(mean < 1e6):
            count = rng.poisson(mean)
            if np.all(count <= _COUNT_CAP):
                return log_theta, count


def _sbc_ranks(model: _SameModel, exposure_factor: float, reps: int) -> tuple[np.ndarray, int]:
    """Ranks (reps, category) of the true rates; the fit sees exposures times exposure_factor."""
    rng = np.random.default_rng(_SEED)
    ranks = np.empty((reps, _EXPOSURE.size), dtype=np.int64)
    divergences = 0
    for r in range(reps):
        log_theta, count = _prior_data_set(rng)
        fit = model.sample(
            count,
            _EXPOSURE * exposure_factor,
            seed=int(rng.integers(2**31)),
            tune=_TUNE,
            draws=_DRAWS * _THIN,
        )
        divergences += fit["divergences"]
        kept = fit["log_theta"][_THIN - 1 :: _THIN]  # (_DRAWS, category), log scale
        # ties (possible only through float rounding) are broken at random
        below = (kept < log_theta).sum(axis=0)
        ties = (kept == log_theta).sum(axis=0)
        ranks[r] = below + rng.integers(0, ties + 1)
    return ranks, divergences


def _rank_uniformity_pvalue(ranks: np.ndarray) -> tuple[float, float]:
    """Chi-square p-value of uniform ranks over _BINS bins, pooled over categories.

    The four ranks of one replication share alpha and beta, so they are not independent and
    the plain chi-square would be too liberal. The statistic is divided by its estimated
    design effect (the variance of a replication's bin counts over that of four independent
    uniform ranks; Rao & Scott 1981, first-order correction), never by less than 1.
    Returns the p-value and the design effect.
    """
    reps, k = ranks.shape
    per_rep = np.stack([np.bincount(r * _BINS // (_DRAWS + 1), minlength=_BINS) for r in ranks])
    counts = per_rep.sum(axis=0)
    p = 1.0 / _BINS
    deff = float(np.mean(per_rep.var(axis=0, ddof=1) / (k * p * (1 - p))))
    chi2 = stats.chisquare(counts).statistic / max(deff, 1.0)
    return float(stats.chi2.sf(chi2, _BINS - 1)), deff


def test_sbc_model_matches_fit_hierarchical(same_model):
    # pumps-like: rates 4 to 0.8 per 1000 pump-hours; data and seed give no divergences in
    # fit_hierarchical (some pumps-like sets do: its ConvergenceWarning would fail the test)
    count = np.array([4, 6, 30, 100])
    data = xr.Dataset(
        {
            "count": ("category", count),
            "exposure": ("category", _EXPOSURE),
            "unit": ("category", np.array(["pump"] * 4)),
            "group": ("category", np.array([""] * 4)),
        },
        coords={"category": np.array([f"pump{i}" for i in range(4)])},
        attrs={"name": "sbc-pumps", "rate_units": "events per 1000 pump-hours"},
    )
    ref = fit_hierarchical(
        data, prior="bugs", n_draws=1000, n_tune=1000, n_chains=4, cores=1, seed=5
    )
    ours = same_model.sample(count, _EXPOSURE, seed=6, tune=1000, draws=4000)
    ref_post = ref.posterior
    pairs = {
        "log_theta": (np.log(ref_post["rate"]), ours["log_theta"]),
        "log_alpha": (np.log(ref_post["alpha"]), ours["log_alpha"]),
        "log_beta": (np.log(ref_post["beta"]), ours["log_beta"]),
    }
    for name, (a, b) in pairs.items():
        b = xr.DataArray(np.reshape(b, (1, b.shape[0], -1)), dims=("chain", "draw", "c"))
        a = a.values.reshape(a.sizes["chain"], a.sizes["draw"], -1)
        a = xr.DataArray(a, dims=("chain", "draw", "c"))
        se = np.hypot(az.mcse(a.to_dataset(name="x"))["x"], az.mcse(b.to_dataset(name="x"))["x"])
        diff = np.abs(a.mean(("chain", "draw")) - b.mean(("chain", "draw")))
        # same posterior: means agree within 4 combined MC standard errors (each of the six
        # quantities fails by chance with probability 6e-5)
        assert np.all(diff < 4 * se), (name, diff.values, se.values)


def test_hierarchical_sbc_ranks_uniform(same_model):
    ranks, divergences = _sbc_ranks(same_model, 1.0, _REPS)
    p, deff = _rank_uniformity_pvalue(ranks)
    # calibrated model and sampler: uniform ranks; with a fixed seed, p < 0.001 would be a
    # 1-in-1000 accident. Power is modest (240 ranks in 5 bins): the negative control (rates
    # off by 2x where counts inform them) fails by far, a slightly too narrow posterior may not.
    # With this seed p = 0.23. The centred sampler this replaced left too many ranks in the
    # lowest bin over 9 seeds (its funnel); benchmarks/VALIDATION.md has 5 x 100 replications
    # with zero-count categories for the current sampler.
    assert p > 1e-3, (p, deff, divergences, np.bincount(ranks.ravel() * _BINS // 20))


def test_hierarchical_sbc_negative_control_fails(same_model):
    # the fit sees half the exposures: posteriors sit twice too high wherever counts inform
    # them, ranks pile up at the bottom
    ranks, _ = _sbc_ranks(same_model, 0.5, _REPS_CONTROL)
    p, deff = _rank_uniformity_pvalue(ranks)
    assert p < 1e-6, (p, deff, np.bincount(ranks.ravel() * _BINS // 20))
