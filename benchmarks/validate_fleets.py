r"""Exact-grid check of ``fit_fleets`` on small designs (not run in CI).

``fit_fleets`` samples the categorised fleet's pooled rates, its hyperparameters
:math:`(\alpha, \beta)`, :math:`\sigma` and the log fleet ratios :math:`\delta_k` with NUTS
(see ``relmc.models.fleets``). Here its marginal posteriors of :math:`\sigma`, of each
:math:`\delta_k` and of one category rate of the categorised fleet are compared with the exact
posterior, computed by numerical integration on grids, for designs small enough to integrate:
the exact CDF at the sampler's 5/50/95% quantiles must be 0.05/0.5/0.95 within Monte Carlo
error, ``z = (CDF - level) / sqrt(level (1 - level) / ESS)`` with arviz's ESS of the indicator.

The model (from ``relmc/models/fleets.py`` and ``hierarchical.py``)
--------------------------------------------------------------------
Categorised fleet: counts :math:`x_c`, exposures :math:`E_c` (unit-hours), units :math:`u_c`,
:math:`C` categories over :math:`D` hours, :math:`G` GPUs. With mixed units, ``pool="auto"``
is ``"fleet"``: :math:`r_c = E_c / D`; ``prior="scaled"``:
:math:`s = \max(\sum_c x_c, 0.5) / \sum_c (E_c / r_c)` and pooled exposure
:math:`t_c = s E_c / r_c`, which is :math:`t = sD` for every category. Priors
:math:`\alpha \sim \mathrm{Exp}(1)`, :math:`\beta \sim \mathrm{Gamma}(0.1, 1)` (shape, rate),
:math:`\phi_c \sim \mathrm{Gamma}(\alpha, \beta)` iid, :math:`x_c \sim \mathrm{Poisson}(\phi_c t)`;
the rate per unit-hour is :math:`\kappa_c = \phi_c t / E_c` (``fleet_rate`` of the categorised
fleet). :math:`\sigma \sim \mathrm{HalfNormal}(s_f)` and, for the :math:`K - 1` total-only
fleets, :math:`\delta \sim \mathcal N(0, \sigma^2 \Sigma)`, :math:`\Sigma = I + 11^T`.
Total-only fleet :math:`k`: :math:`X_k \sim \mathrm{Poisson}(e^{\delta_k} T_k \sum_c w_{kc}
\kappa_c)`, :math:`w_{kc} = \mathrm{units}(G_k, u_c) / \mathrm{units}(G_k, v_k)`.

Designs are chosen so that :math:`m_{kc} = w_{kc} t / E_c` does not depend on :math:`c` (units
``gpu`` and ``node`` only, GPU counts multiples of 8: then :math:`m_{kc} = s G_k / (G\,
\mathrm{units}(G_k, v_k))`); the script asserts this. Then the totals see the rates only
through :math:`\Phi = \sum_c \phi_c`: :math:`X_k \sim \mathrm{Poisson}(\mu_k \Phi)`,
:math:`\mu_k = c_k e^{\delta_k}`, :math:`c_k = T_k m_k`.

Exact reductions
----------------
1. Given :math:`(\alpha, \beta)`, write :math:`a_c = \alpha + x_c`, :math:`A = \sum_c a_c`,
   :math:`b = \beta + t`, :math:`X = \sum_k X_k`, :math:`R(\delta) = \sum_k \mu_k`. The
   Gamma-Dirichlet decomposition :math:`\phi_c = \Phi B_c` (:math:`\Phi` and :math:`B \sim
   \mathrm{Dir}(a)` independent) integrates the rates out:

   .. math::

       p(x, X \mid \alpha, \beta, \delta) = \prod_c \mathrm{NegBin}(x_c; \alpha,
       \tfrac{\beta}{b}) \cdot \frac{\Gamma(A + X)}{\Gamma(A)}
       \frac{b^A}{(b + R)^{A + X}} \prod_k \frac{\mu_k^{X_k}}{X_k!},

   and given everything else :math:`\Phi \sim \mathrm{Gamma}(A + X, b + R)`,
   :math:`B_c \sim \mathrm{Beta}(a_c, A - a_c)`, independent.
2. The :math:`(\alpha, \beta)` part depends on :math:`\delta` only through :math:`R`, so
   :math:`\tilde G(R) = \sum_{\alpha, \beta} \pi(\alpha) \pi(\beta) \prod_c \mathrm{NegBin}
   \cdot \Gamma(A + X) b^A / (\Gamma(A) (b + R)^{A + X})` is computed once on a grid in
   :math:`\log R` (trapezoid in :math:`(\log\alpha, \log\beta)`, Jacobian
   :math:`\alpha\beta`) and interpolated by a cubic spline.
3. :math:`(\sigma, \delta)` are integrated in :math:`(\sigma, w)`, :math:`\delta = \sigma w`
   (:math:`\sigma = 7 s_f u^2`, a uniform grid in :math:`u`),
   where the density :math:`\pi(\sigma)\, \mathcal N(w; 0, \Sigma)\, \tilde G(R(\sigma w))\,
   e^{\sum_k X_k \sigma w_k}` is bounded and smooth (in :math:`(\sigma, \delta)` the prior of
   :math:`\delta` has an integrable singularity at 0). CDFs of :math:`\sigma` and of
   :math:`\delta_k = \sigma w_k` come from cubic-spline antiderivatives of 1-D marginals.
4. A category rate :math:`\kappa_c = (t / E_c) \Phi B_c`: the :math:`(\sigma, w)` grid gives the
   measure of :math:`R` (binned linearly onto the :math:`\log R` grid), the :math:`(\alpha,
   \beta, R)` weights then the measure of :math:`(\alpha, \rho = b + R)` (binned onto a
   :math:`\log\rho` grid), and :math:`P(\Phi B_c \le y) = E_\Phi[I_{y/\Phi}(a_c, A - a_c)]`
   with :math:`\Phi \sim \mathrm{Gamma}(A + X, \rho)` by Gauss-Legendre in :math:`\Phi`'s
   probability.

Options ``prior`` and ``pool``
------------------------------
``pooled_exposure`` gives :math:`t_c = s E_c / r_c` with :math:`s = 1` for ``prior="bugs"``
(the pooled variable is the rate per reference unit-hour, :math:`\theta_c`; the priors on
:math:`\alpha, \beta` are unchanged but now act on that scale) and ``pool="unit"``:
:math:`r_c = 1`, so :math:`t_c = s E_c` (with ``"scaled"``, :math:`s = \max(\sum x, 0.5) /
\sum_c E_c`). With ``"bugs"`` and fleet pooling :math:`t_c = D` for every category: the
reduction above holds with that :math:`t`. With ``pool="unit"`` and mixed units :math:`t_c`
differs between categories, and the Gamma-Dirichlet step needs one more grid dimension:

Two categories (``Exact2``): any :math:`t_c`, any weights
---------------------------------------------------------
With :math:`C = 2`, :math:`\phi_c = \Phi B_c`, :math:`B = (B_1, 1 - B_1)`,
:math:`d\phi_1 d\phi_2 = \Phi\, d\Phi\, dB_1`, and :math:`c_{kc} = T_k w_{kc} t_c / E_c`
(a total's mean is :math:`e^{\delta_k} \sum_c c_{kc} \phi_c = e^{\delta_k} \Phi\, m_k(B)`,
:math:`m_k(B) = \sum_c c_{kc} B_c`), the priors and all likelihoods give, up to constants,

.. math::

    \pi(\alpha)\pi(\beta) \frac{\beta^{2\alpha}}{\Gamma(\alpha)^2}\, \Phi^{A + X - 1}
    B_1^{a_1 - 1} (1 - B_1)^{a_2 - 1} e^{-\Phi (\beta + t \cdot B + R)}
    \prod_k (e^{\delta_k} m_k(B))^{X_k},

:math:`R = \sum_k e^{\delta_k} m_k(B)`. :math:`\Phi` integrates out:
:math:`\Gamma(A + X) (\beta + \rho')^{-(A + X)}`, :math:`\rho' = t \cdot B + R`. In
:math:`l = \mathrm{logit}\, B_1` (Jacobian :math:`B_1 (1 - B_1)`) the factor
:math:`(B_1 (1 - B_1))^{\alpha}` couples :math:`B_1` to :math:`\alpha` through
:math:`q = \log(B_1 (1 - B_1))` alone, so :math:`(\alpha, \beta)` are summed once into
:math:`G_2(\rho', q) = \sum_{\alpha} e^{\alpha q} \sum_\beta \pi \pi \beta^{2\alpha}
\Gamma(A + X) / \Gamma(\alpha)^2 (\beta + \rho')^{-(A + X)}` (a table in :math:`\log\rho'` per
:math:`\alpha`, then a sum over :math:`\alpha` per :math:`l` node), and the posterior of
:math:`(\sigma, w, l)` is :math:`\pi(\sigma) \mathcal N(w) e^{\sum_k X_k \delta_k}
\prod_k m_k(B)^{X_k} B_1^{x_1} (1 - B_1)^{x_2} G_2(\rho', q)` on a three-dimensional grid (one
total-only fleet). Checked: sigma, delta and the share :math:`B_1 = \phi_1 / (\phi_1 +
\phi_2)` (from the fit, :math:`\phi_c = \kappa_c E_c / t_c`).

The new fleet's rate
--------------------
``fit_fleets``'s ``rate`` is :math:`\kappa_c e^{\sigma (z_{new} - z_1)}`, with
:math:`z_1 \mid w \sim \mathcal N(-\sum_k w_k / K, 1/K)` and :math:`z_{new} \sim
\mathcal N(0, 1)`. Its CDF is taken from :math:`2 \times 10^6` independent draws of the grid
posterior (``Exact.draws``: :math:`(\sigma, w)` from the grid's weights, :math:`(\alpha,
\beta)` given :math:`R`, then :math:`\Phi`, :math:`B_c` and the two normals exactly), MC SE
at most :math:`3.5 \times 10^{-4}`, a twentieth of a 4 x 1000 fit's.

Checks of the grid itself (``--grid-checks``): the closed form of 1. against a Monte Carlo
average over :math:`\phi`; with a negligible total exposure (the totals carry no information)
the :math:`\sigma` marginal must be the HalfNormal prior, :math:`\delta / (\sqrt 2 s_f)` must
have the density :math:`K_0(|x|)/\pi` (a product of two standard normals; :math:`K = 2`) and
the rate marginal the direct :math:`\mathrm{Gamma}(a_c, b)` mixture; the evidence from steps 2-3
and from step 4 must agree (normalisation); mass on the grids' edges; and every design's CDFs at
doubled resolution. Also (``--grid-checks-new`` alone): the two-category closed form against
Monte Carlo; the two-category grid against the one-sum grid on a design where both hold; the
new fleet's rate against the grid of :math:`K + 1` fleets, the new one with no events over
negligible exposure (its :math:`\delta` is then the new fleet's log ratio, a second
derivation); the grid draws' category rate against its deterministic CDF (step 4).

Usage: ``python benchmarks/validate_fleets.py [--designs weak,equal,zero,apart] [--seeds 3]
[--draws 1000] [--chains 4] [--cores 2] [--grid-checks] [--alternative]``; ``--fit-only
--save DIR`` fits and saves only, ``--centred-sd`` overrides
``relmc.models.fleets.CENTRED_SD`` (the sweep designs ``sweep10`` ... ``sweep300``).
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings
from dataclasses import dataclass

import numpy as np
import xarray as xr
from scipy import integrate, interpolate, special, stats

LEVELS = (0.05, 0.5, 0.95)


# --------------------------------------------------------------------------------------------
# designs


@dataclass(frozen=True)
class Design:
    """Categorised fleet (counts by category, units gpu/node) plus total-only fleets."""

    name: str
    note: str
    count: tuple[int, ...]
    unit: tuple[str, ...]
    n_gpus: int
    hours: float
    # total-only fleets: (count, unit, n_gpus, hours)
    totals: tuple[tuple[int, str, int, float], ...]
    rate_category: int  # the category whose rate is checked
    prior: str = "scaled"
    pool: str = "auto"

    def units(self, n_gpus: int, unit: str) -> float:
        assert n_gpus % 8 == 0 and unit in ("gpu", "node", "job")
        return float(n_gpus if unit == "gpu" else n_gpus // 8 if unit == "node" else 1)

    def datasets(self) -> list[xr.Dataset]:
        cats = [f"c{i}-{u}" for i, u in enumerate(self.unit)]
        main = xr.Dataset(
            {
                "count": ("category", np.array(self.count, dtype=np.int64)),
                "exposure": (
                    "category",
                    np.array([self.units(self.n_gpus, u) * self.hours for u in self.unit]),
                ),
                "unit": ("category", np.array(self.unit)),
            },
            coords={"category": cats},
            attrs={"name": "main", "n_gpus": self.n_gpus, "duration_hours": self.hours},
        )
        out = [main]
        for k, (x, v, g, h) in enumerate(self.totals):
            out.append(
                xr.Dataset(
                    {
                        "count": ("category", np.array([x], dtype=np.int64)),
                        "exposure": ("category", np.array([self.units(g, v) * h])),
                        "unit": ("category", np.array([v])),
                    },
                    coords={"category": ["all"]},
                    attrs={"name": f"total{k + 1}", "n_gpus": g, "duration_hours": h},
                )
            )
        return out

    def pooled(self) -> tuple[np.ndarray, np.ndarray]:
        """Exposures E_c (unit-hours) and pooled exposures t_c (``pooled_exposure``)."""
        x = np.array(self.count, dtype=float)
        e = np.array([self.units(self.n_gpus, u) * self.hours for u in self.unit])
        pool = self.pool
        if pool == "auto":
            pool = "unit" if len(set(self.unit)) == 1 else "fleet"
        r = np.ones_like(e) if pool == "unit" else e / self.hours
        s = max(x.sum(), 0.5) / np.sum(e / r) if self.prior == "scaled" else 1.0
        return e, s * e / r

    def reduced2(self) -> dict:
        """x, t_c, c_kc, X_k of the two-category reduction (``Exact2``), no assumption on m_kc."""
        assert len(self.count) == 2
        e, t = self.pooled()
        c = []
        for _, v, g, h in self.totals:
            w = np.array([self.units(g, u) / self.units(g, v) for u in self.unit])
            c.append(self.units(g, v) * h * w * t / e)
        return {
            "x": np.array(self.count, dtype=float),
            "t": t,
            "c": np.array(c),
            "X": np.array([tt[0] for tt in self.totals], dtype=float),
            "rate_factor": t / e,
        }

    def reduced(self) -> dict:
        """x, t, c_k, X_k and t / E_c of the reduced model (module docstring), asserted."""
        x = np.array(self.count, dtype=float)
        e, t = self.pooled()
        assert np.allclose(t, t[0]), t
        c = []
        for _, v, g, h in self.totals:
            w = np.array([self.units(g, u) / self.units(g, v) for u in self.unit])
            m = w * t / e
            assert np.allclose(m, m[0]), m
            c.append(self.units(g, v) * h * m[0])
        return {
            "x": x,
            "t": float(t[0]),
            "c": np.array(c),
            "X": np.array([tt[0] for tt in self.totals], dtype=float),
            "rate_factor": t[0] / e,
        }


DESIGNS = {
    # sigma weakly identified: few events anywhere; the one total says little about delta
    "weak": Design(
        name="weak",
        note="K=2; categorised 64 GPUs x 720 h, counts 2, 0, 1 (gpu, gpu, node); total-only "
        "fleet 64 GPUs x 720 h, 2 events",
        count=(2, 0, 1),
        unit=("gpu", "gpu", "node"),
        n_gpus=64,
        hours=720.0,
        totals=((2, "node", 64, 720.0),),
        rate_category=1,
    ),
    # near-equal fleets with moderate counts: the data put sigma near 0 (a funnel's neck)
    "equal": Design(
        name="equal",
        note="K=3; categorised 128 GPUs x 720 h, counts 12, 5, 3 (gpu, gpu, node); two "
        "total-only fleets of the same GPU-hours with 19 and 21 events",
        count=(12, 5, 3),
        unit=("gpu", "gpu", "node"),
        n_gpus=128,
        hours=720.0,
        totals=((19, "node", 128, 720.0), (21, "gpu", 64, 1440.0)),
        rate_category=2,
    ),
    # fleets far apart with many events: the data pin delta (the centred branch)
    "apart": Design(
        name="apart",
        note="K=2; categorised 256 GPUs x 720 h, counts 40, 25, 15 (gpu, gpu, node); "
        "total-only fleet 256 GPUs x 720 h, 300 events",
        count=(40, 25, 15),
        unit=("gpu", "gpu", "node"),
        n_gpus=256,
        hours=720.0,
        totals=((300, "node", 256, 720.0),),
        rate_category=2,
    ),
    # a zero-count total-only fleet beside an informative one
    "zero": Design(
        name="zero",
        note="K=3; categorised 64 GPUs x 720 h, counts 6, 1, 0 (gpu, node, node); total-only "
        "fleets: 0 events over the same GPU-hours, 9 events over twice them",
        count=(6, 1, 0),
        unit=("gpu", "node", "node"),
        n_gpus=64,
        hours=720.0,
        totals=((0, "node", 64, 720.0), (9, "node", 128, 720.0)),
        rate_category=2,
    ),
    # prior="bugs": the pooled variable is the rate per reference unit-hour, t = D
    "bugs": Design(
        name="bugs",
        note="K=2, prior='bugs'; categorised 128 GPUs x 720 h, counts 12, 5, 3 (gpu, gpu, "
        "node); total-only fleet 128 GPUs x 720 h, 8 events",
        count=(12, 5, 3),
        unit=("gpu", "gpu", "node"),
        n_gpus=128,
        hours=720.0,
        totals=((8, "node", 128, 720.0),),
        rate_category=2,
        prior="bugs",
    ),
    # pool="unit" with mixed units: t_c = s E_c differs between categories (two-category grid)
    "unitmix": Design(
        name="unitmix",
        note="K=2, pool='unit'; categorised 64 GPUs x 720 h, counts 4, 1 (gpu, node); "
        "total-only fleet 64 GPUs x 720 h, 6 events",
        count=(4, 1),
        unit=("gpu", "node"),
        n_gpus=64,
        hours=720.0,
        totals=((6, "node", 64, 720.0),),
        rate_category=1,
        pool="unit",
    ),
    # a job category weighs 8 times more per pooled rate in the smaller total-only fleet
    "weights": Design(
        name="weights",
        note="K=2; categorised 512 GPUs x 720 h, counts 6, 2 (gpu, job); total-only fleet "
        "64 GPUs x 720 h, 5 events (the job category 2 of its 2.75 expected at delta = 0)",
        count=(6, 2),
        unit=("gpu", "job"),
        n_gpus=512,
        hours=720.0,
        totals=((5, "node", 64, 720.0),),
        rate_category=1,
    ),
}
# the CENTRED_SD sweep: apart's categorised fleet, a total-only fleet of 10 to 300 events
# (the data sd of delta from 0.33 to 0.13)
for _x in (10, 20, 40, 80, 300):
    DESIGNS[f"sweep{_x}"] = Design(
        name=f"sweep{_x}",
        note=f"K=2; categorised as apart; total-only fleet 256 GPUs x 720 h, {_x} events",
        count=(40, 25, 15),
        unit=("gpu", "gpu", "node"),
        n_gpus=256,
        hours=720.0,
        totals=((_x, "node", 256, 720.0),),
        rate_category=2,
    )
# and near-equal fleets (delta near 0, sigma's mode at 0: the funnel's neck) at 20 and 300
# events a side (sweep80 is the 80-event one); data sd of delta 0.31 and 0.08
for _x, _c in ((20, (10, 6, 4)), (300, (150, 90, 60))):
    DESIGNS[f"sweq{_x}"] = Design(
        name=f"sweq{_x}",
        note=f"K=2; categorised 256 GPUs x 720 h, counts {_c} (gpu, gpu, node); total-only "
        f"fleet 256 GPUs x 720 h, {_x} events",
        count=_c,
        unit=("gpu", "gpu", "node"),
        n_gpus=256,
        hours=720.0,
        totals=((_x, "node", 256, 720.0),),
        rate_category=2,
    )


# --------------------------------------------------------------------------------------------
# exact posterior on grids


class Exact:
    """Exact marginal posteriors of sigma, delta_k and kappa_c (module docstring)."""

    def __init__(self, red: dict, fleet_sigma: float = 1.0, res: float = 1.0):
        self.x, self.t, self.c, self.X = red["x"], red["t"], red["c"], red["X"]
        self.rate_factor = red["rate_factor"]
        self.fs = fleet_sigma
        self.k = self.c.size  # total-only fleets (K - 1)
        n = self.k
        # (alpha, beta) on log grids (trapezoid; spectrally accurate for smooth integrands)
        self.la = np.linspace(-10.0, 5.0, _n(100, res))
        self.lb = np.linspace(-90.0, 12.0, _n(600, res))
        # R = sum_k c_k exp(delta_k), on a log grid wide enough for every (sigma, w) point
        lc = np.log(self.c)
        self.lr = np.linspace(lc.min() - 25.0, np.log(self.c.sum()) + 25.0, _n(1000, res))
        # sigma = 7 s_f u^2, u uniform in [0, 1] (dense near 0, where near-equal fleets put
        # sigma's mode); w = delta / sigma with prior N(0, I + 11^T), sd sqrt(2) each
        self.u = np.linspace(0.0, 1.0, _n(200 if n == 1 else 160, res))
        self.sig_max = 7.0 * fleet_sigma
        self.sig = self.sig_max * self.u**2
        self.w = np.linspace(-12.0, 12.0, _n(2000 if n == 1 else 220, res))
        self.lrho = None
        self.cov = np.eye(n) + np.ones((n, n))
        self._ab_part()
        self._sigma_w()
        self.W = None  # the (alpha, rho) weights of the category rate, made when first needed

    # log prior x marginal likelihood of the categorised counts on the (alpha, beta) grid
    def _ab_part(self):
        a = np.exp(self.la)[:, None]
        b = np.exp(self.lb)[None, :]
        x, t, X = self.x, self.t, self.X.sum()
        lp = stats.expon.logpdf(a) + stats.gamma.logpdf(b, 0.1) + np.log(a) + np.log(b)
        for xc in x:
            lp = lp + stats.nbinom.logpmf(xc, a, b / (b + t))
        A = a * x.size + x.sum()
        lp = lp + special.gammaln(A + X) - special.gammaln(A) + A * np.log(b + t)
        self.ab_lp = lp + np.log(_trap(self.la))[:, None] + np.log(_trap(self.lb))[None, :]
        self.A, self.bt = A[:, 0], (b + t)[0]
        # log G~(R) = logsumexp over (alpha, beta) of ab_lp - (A + X) log(b + R)
        r = np.exp(self.lr)
        out = np.empty((self.la.size, r.size))
        for i in range(self.la.size):
            m = self.ab_lp[i][:, None] - (self.A[i] + X) * np.log(self.bt[:, None] + r[None, :])
            out[i] = special.logsumexp(m, axis=0)
        self.log_g = special.logsumexp(out, axis=0)
        edge = np.concatenate([out[0], out[-1]])
        self.edge_alpha = float(np.exp(special.logsumexp(edge) - special.logsumexp(out)))
        # beta edges, at the R that carries the most weight (updated after the (sigma, w) grid)
        self._spline = interpolate.CubicSpline(self.lr, self.log_g)

    def _log_gtilde(self, log_r):
        # linear extrapolation in log R beyond the grid (log G~ is asymptotically linear there:
        # slope 0 as R -> 0, about -(A + X) as R -> inf); the mass there is reported
        lo, hi = self.lr[0], self.lr[-1]
        v = self._spline(np.clip(log_r, lo, hi))
        d = self._spline.derivative()
        v = np.where(log_r < lo, v + d(lo) * (log_r - lo), v)
        return np.where(log_r > hi, v + d(hi) * (log_r - hi), v)

    def _w_points(self):
        if self.k == 1:
            return self.w[:, None], _trap(self.w)
        w1, w2 = np.meshgrid(self.w, self.w, indexing="ij")
        tw = np.outer(_trap(self.w), _trap(self.w)).ravel()
        return np.stack([w1.ravel(), w2.ravel()], axis=1), tw

    def _sigma_w(self):
        """Posterior weights on the (sigma, w) grid, without and with G~(R)."""
        pts, tw = self._w_points()
        lw = stats.multivariate_normal(np.zeros(self.k), self.cov).logpdf(pts).reshape(-1)
        jac = 2.0 * self.sig_max * self.u  # d sigma / d u (0 at u = 0: a zero weight)
        with np.errstate(divide="ignore"):
            ls = stats.halfnorm.logpdf(self.sig, scale=self.fs) + np.log(_trap(self.u) * jac)
        delta = self.sig[:, None, None] * pts[None, :, :]  # (sigma, w point, k)
        log_r = special.logsumexp(delta + np.log(self.c), axis=-1)
        self.log_r = log_r
        # P2: prior of (sigma, w) times the delta-linear part of the totals' likelihood
        self.lp2 = ls[:, None] + (lw + np.log(tw))[None, :] + (delta * self.X).sum(-1)
        lpost = self.lp2 + self._log_gtilde(log_r)
        self.log_z = special.logsumexp(lpost)
        self.post = np.exp(lpost - self.log_z)
        self.delta_shape = (self.sig.size,) + ((self.w.size,) * self.k)
        p = self.post.reshape(self.delta_shape)
        # mass on the (sigma, w) edges
        e = p[-1].sum() + p[:, [0, -1]].sum()
        if self.k == 2:
            e += p[:, :, [0, -1]].sum()
        self.edge_sigma_w = float(e)
        self.r_in_range = float(
            self.post[(log_r > self.lr[0]) & (log_r < self.lr[-1])].sum()
        )  # posterior mass whose R lies on the R grid

    def rate_weights(self):
        """Make the weights on (alpha, log rho), rho = beta + t + R, of the category rate."""
        if self.W is not None:
            return
        # The posterior mass of each (sigma, w) point is moved linearly onto the two log R
        # nodes next to its R (nu_j: the posterior of R, summing to 1); (alpha, beta) given
        # R_j has weights exp(ab_lp - (A + X) log(b + R_j)) / G~(R_j), smooth in R. Points with
        # R off the grid are left out (their mass is reported as "R off its grid").
        inside = (self.log_r >= self.lr[0]) & (self.log_r <= self.lr[-1])
        nu = _bin_linear(self.log_r[inside], self.post[inside], self.lr)
        keep = nu > 1e-300
        r, lnu, lg = np.exp(self.lr[keep]), np.log(nu[keep]), self.log_g[keep]
        X = self.X.sum()
        rho_lo = np.log(self.bt.min() + r.min())
        rho_hi = np.log(self.bt.max() + r.max())
        self.lrho = np.linspace(rho_lo, rho_hi, 2 * self.lr.size - 1)
        W = np.empty((self.la.size, self.lrho.size))
        beta_edge = 0.0
        for i in range(self.la.size):
            rho = self.bt[:, None] + r[None, :]
            m = self.ab_lp[i][:, None] - (self.A[i] + X) * np.log(rho) - lg[None, :] + lnu
            beta_edge += np.exp(m[[0, -1]]).sum()
            W[i] = _bin_linear(np.log(rho).ravel(), np.exp(m).ravel(), self.lrho)
        total = W.sum()
        self.W = W / total
        self.edge_beta = float(beta_edge / total)

    # ---- CDFs

    def cdf_sigma(self, q):
        p = self.post.reshape(self.sig.size, -1).sum(1) / _trap(self.u)  # density in u
        return _cdf_1d(self.u, p, np.sqrt(max(q, 0.0) / self.sig_max))

    def cdf_delta(self, k, q):
        p = self.post.reshape(self.delta_shape)
        if self.k == 2:
            p = p.sum(axis=2 - k)  # keep w_k
        dens = p / _trap(self.w)[None, :]
        out = 0.0
        for i, s in enumerate(self.sig):
            mass = p[i].sum()
            if mass == 0:
                continue
            if s == 0:
                out += mass * (q >= 0)
                continue
            out += mass * _cdf_1d(self.w, dens[i] / mass, q / s)
        return float(out)

    def cdf_rate(self, cat, y, n_u=48):
        """P(kappa_cat <= y): kappa = rate_factor * Phi * B."""
        self.rate_weights()
        yy = y / self.rate_factor[cat]
        u, wu = special.roots_legendre(n_u)
        u, wu = (u + 1) / 2, wu / 2
        X = self.X.sum()
        rho = np.exp(self.lrho)
        out = 0.0
        for i in range(self.la.size):
            if self.W[i].sum() < 1e-14:
                continue
            a = np.exp(self.la[i])
            a1 = a + self.x[cat]
            a2 = self.A[i] - a1
            nz = self.W[i] > 1e-16
            g = special.gammaincinv(self.A[i] + X, u)  # Phi * rho at the nodes
            z = yy * rho[nz, None] / g[None, :]
            f = special.betainc(a1, a2, np.minimum(z, 1.0))
            out += float((self.W[i, nz] * (f @ wu)).sum())
        return out

    def draws(self, cat, n=2_000_000, seed=0):
        """Independent draws of sigma, delta, kappa_cat and a new fleet's rate of cat.

        (sigma, w) from the grid's weights (trapezoid nodes); R at that point; (alpha, beta)
        given R from their weights at one of the two log R nodes next to R (picked with the
        linear-binning weights, as in :meth:`rate_weights`); then exactly: Phi ~ Gamma(A + X,
        b + R), B_c ~ Beta(a_c, A - a_c), and the new fleet's log ratio sigma (z_new - z_1),
        z_1 | w ~ N(-sum(w) / K, 1 / K), z_new ~ N(0, 1) (``_fleet_draws``).
        """
        rng = np.random.default_rng(seed)
        p = self.post.ravel()
        idx = rng.choice(p.size, size=n, p=p / p.sum())
        i_sig, i_w = np.unravel_index(idx, self.post.shape)
        pts, _ = self._w_points()
        sig, w = self.sig[i_sig], pts[i_w]
        log_r = self.log_r.ravel()[idx]
        h = self.lr[1] - self.lr[0]
        f = np.clip((log_r - self.lr[0]) / h, 0.0, self.lr.size - 1.000001)
        j = np.floor(f).astype(np.int64)
        j += rng.random(n) < f - j
        X = self.X.sum()
        i_a, i_b = np.empty(n, np.int64), np.empty(n, np.int64)
        for jj in np.unique(j):
            sel = np.flatnonzero(j == jj)
            m = self.ab_lp - (self.A[:, None] + X) * np.log(self.bt[None, :] + np.exp(self.lr[jj]))
            q = np.exp(m - m.max()).ravel()
            k = rng.choice(q.size, size=sel.size, p=q / q.sum())
            i_a[sel], i_b[sel] = np.unravel_index(k, m.shape)
        a_c = np.exp(self.la[i_a]) + self.x[cat]
        big_a = self.A[i_a]
        phi = rng.gamma(big_a + X) / (self.bt[i_b] + np.exp(log_r))
        kappa = self.rate_factor[cat] * phi * rng.beta(a_c, big_a - a_c)
        n_fleets = self.k + 1
        z1 = -w.sum(1) / n_fleets + rng.standard_normal(n) / np.sqrt(n_fleets)
        eps = sig * (rng.standard_normal(n) - z1)
        return {"sigma": sig, "delta": sig[:, None] * w, "kappa": kappa, "new": kappa * np.exp(eps)}

    def cdf_new_rate(self, cat, y):
        """P(new fleet's rate of cat <= y), from :meth:`draws` (MC SE <= 3.5e-4)."""
        if getattr(self, "_new", None) is None:
            self._new = np.sort(self.draws(cat)["new"])
        return float(np.searchsorted(self._new, y, side="right") / self._new.size)

    def cdf_rate_no_totals(self, cat, y):
        """P(kappa_cat <= y) from Gamma(a_c, b) directly, valid when R = 0."""
        yy = y / self.rate_factor[cat]
        a = np.exp(self.la)[:, None]
        w = np.exp(self.ab_lp - (self.A[:, None] + self.X.sum()) * np.log(self.bt[None, :]))
        w /= w.sum()
        return float((w * special.gammainc(a + self.x[cat], yy * self.bt[None, :])).sum())


class Exact2:
    """Exact marginal posteriors of sigma, delta_1 and the share B_1 for two categories.

    Any pooled exposures t_c and weights c_kc (module docstring, "Two categories"); one
    total-only fleet. Grid in (sigma, w, l), l = logit B_1; (alpha, beta) summed into
    G2(rho', q) with rho' = t.B + R and q = log(B_1 (1 - B_1)).
    """

    def __init__(self, red: dict, fleet_sigma: float = 1.0, res: float = 1.0):
        self.x, self.t, self.c, self.X = red["x"], red["t"], red["c"], red["X"]
        assert self.x.size == 2 and self.c.shape == (1, 2)
        self.fs = fleet_sigma
        self.k = 1
        self.la = np.linspace(-10.0, 5.0, _n(100, res))
        self.lb = np.linspace(-90.0, 12.0, _n(600, res))
        self.l = np.linspace(-25.0, 25.0, _n(200, res))
        self.u = np.linspace(0.0, 1.0, _n(200, res))
        self.sig_max = 7.0 * fleet_sigma
        self.sig = self.sig_max * self.u**2
        self.w = np.linspace(-12.0, 12.0, _n(1600, res))
        lo = np.log(self.t.min())
        self.lrho = np.linspace(lo, np.log(self.t.max() + self.c.max()) + 25.0, _n(1000, res))
        self._g2()
        self._grid()

    def _g2(self):
        a = np.exp(self.la)[:, None]
        b = np.exp(self.lb)[None, :]
        xs, X = self.x.sum(), self.X.sum()
        big_a = 2 * a + xs
        base = (
            stats.expon.logpdf(a) + stats.gamma.logpdf(b, 0.1) + np.log(a) + np.log(b)
            + np.log(_trap(self.la))[:, None] + np.log(_trap(self.lb))[None, :]
            + 2 * a * np.log(b) - 2 * special.gammaln(a) + special.gammaln(big_a + X)
        )  # fmt: skip
        rho = np.exp(self.lrho)
        out = np.empty((self.la.size, rho.size))
        edge_b = np.empty((self.la.size, rho.size))
        for i in range(self.la.size):
            m = base[i][:, None] - (big_a[i, 0] + X) * np.log(b[0][:, None] + rho[None, :])
            out[i] = special.logsumexp(m, axis=0)
            edge_b[i] = np.logaddexp(m[0], m[-1])
        self.out, self.edge_b_out = out, edge_b

    def _grid(self):
        lw = stats.norm.logpdf(self.w, scale=np.sqrt(2.0)) + np.log(_trap(self.w))
        jac = 2.0 * self.sig_max * self.u
        with np.errstate(divide="ignore"):
            ls = stats.halfnorm.logpdf(self.sig, scale=self.fs) + np.log(_trap(self.u) * jac)
        delta = self.sig[:, None] * self.w[None, :]
        base = ls[:, None] + lw[None, :] + self.X[0] * delta
        alpha = np.exp(self.la)
        lt = np.log(_trap(self.l))
        acc, m_run = np.zeros_like(base), -np.inf
        lp_l = np.empty(self.l.size)
        edge_a, edge_b, tot = 0.0, 0.0, 0.0
        for j, ell in enumerate(self.l):
            lb1, lb2 = -np.logaddexp(0.0, -ell), -np.logaddexp(0.0, ell)
            bvec = np.exp([lb1, lb2])
            q = lb1 + lb2
            m_k = float(self.c[0] @ bvec)
            log_rho = np.logaddexp(np.log(self.t @ bvec), delta + np.log(m_k))
            tab = self.out + alpha[:, None] * q
            lg = special.logsumexp(tab, axis=0)
            sp = interpolate.CubicSpline(self.lrho, lg)
            hi = self.lrho[-1]
            # beyond the grid log G2 is linear in log rho' (slope -(A + X)); no mass there
            lg_pts = np.where(
                log_rho > hi,
                sp(hi) + sp.derivative()(hi) * (log_rho - hi),
                sp(np.clip(log_rho, self.lrho[0], hi)),
            )
            lp = (
                base + self.X[0] * np.log(m_k) + self.x[0] * lb1 + self.x[1] * lb2 + lt[j]
                + lg_pts
            )  # fmt: skip
            mj = lp.max()
            lp_l[j] = mj + np.log(np.exp(lp - mj).sum())
            if mj > m_run:
                acc *= np.exp(m_run - mj) if np.isfinite(m_run) else 0.0
                m_run = mj
            acc += np.exp(lp - m_run)
            # alpha and beta edges: their share of G2 at each point, weighted by the point
            pw = np.exp(lp - lp.max()).ravel()
            idx = np.clip(np.searchsorted(self.lrho, log_rho.ravel()), 0, self.lrho.size - 1)
            ea = np.exp(np.logaddexp(tab[0], tab[-1]) - lg)[idx]
            eb = np.exp(special.logsumexp(self.edge_b_out + alpha[:, None] * q, axis=0) - lg)
            edge_a += np.exp(mj) * (pw * ea).sum()
            edge_b += np.exp(mj) * (pw * eb[idx]).sum()
            tot += np.exp(mj) * pw.sum()
        self.post = acc / acc.sum()
        self.p_l = np.exp(lp_l - special.logsumexp(lp_l))
        self.log_z = special.logsumexp(lp_l)
        self.delta_shape = self.post.shape
        self.edge_alpha, self.edge_beta = edge_a / tot, edge_b / tot
        self.edge_sigma_w = float(self.post[-1].sum() + self.post[:, [0, -1]].sum())
        self.edge_l = float(self.p_l[[0, -1]].sum())

    cdf_sigma = Exact.cdf_sigma
    cdf_delta = Exact.cdf_delta

    def cdf_share(self, q):
        ell = np.log(q) - np.log1p(-q)
        return _cdf_1d(self.l, self.p_l / _trap(self.l), ell)


def exact_for(design, fleet_sigma=1.0, res=1.0):
    """``Exact`` where the totals see the rates through their sum only, else ``Exact2``."""
    try:
        return Exact(design.reduced(), fleet_sigma, res)
    except AssertionError:
        return Exact2(design.reduced2(), fleet_sigma, res)


def alternative(design):
    """The grid of a nearby model the fit must be told apart from (``--alternative``).

    prior="bugs" -> "scaled"; pool="unit" -> "fleet"; unequal weights -> every category
    weighing as the first in the total-only fleet.
    """
    import dataclasses

    if design.prior == "bugs":
        alt = dataclasses.replace(design, prior="scaled")
        return "prior='scaled'", alt, exact_for(alt)
    if design.pool == "unit":
        alt = dataclasses.replace(design, pool="fleet")
        return (
            "pool='fleet'",
            alt,
            Exact2(alt.reduced2()) if len(alt.count) == 2 else exact_for(alt),
        )
    red = design.reduced2()
    red["c"] = np.repeat(red["c"][:, :1], 2, axis=1)
    return "equal weights", design, Exact2(red)


def _n(n, res):
    """Points of a grid of n intervals at resolution factor res."""
    return int(round(n * res)) + 1


def _trap(g):
    w = np.full(g.size, g[1] - g[0])
    w[[0, -1]] /= 2
    return w


def _bin_linear(v, wts, grid):
    """Linear ('cloud in cell') binning of weights at v onto a uniform grid."""
    h = grid[1] - grid[0]
    f = np.clip((v - grid[0]) / h, 0.0, grid.size - 1.000001)
    i = np.floor(f).astype(np.int64)
    d = f - i
    out = np.bincount(i, wts * (1 - d), minlength=grid.size)
    out += np.bincount(i + 1, wts * d, minlength=grid.size)
    return out[: grid.size]


def _cdf_1d(g, dens, q):
    """CDF at q of a density on a uniform grid (cubic-spline antiderivative, renormalised)."""
    if q <= g[0]:
        return 0.0
    if q >= g[-1]:
        return 1.0
    sp = interpolate.CubicSpline(g, dens)
    return float(sp.integrate(g[0], q) / sp.integrate(g[0], g[-1]))


# --------------------------------------------------------------------------------------------
# checks of the grid


def grid_checks(fleet_sigma=1.0):
    rng = np.random.default_rng(1)
    print("## checks of the grid", flush=True)
    # 1. closed-form marginal of the totals given (alpha, beta, delta) vs Monte Carlo over phi
    red = DESIGNS["equal"].reduced()
    x, t, c, X = red["x"], red["t"], red["c"], red["X"]
    for alpha, beta, delta in [(0.7, 0.02, (0.1, -0.2)), (3.0, 1.5, (0.5, 0.3))]:
        a, b = alpha + x, beta + t
        mu = c * np.exp(delta)
        A, Xs = a.sum(), X.sum()
        exact = (
            special.gammaln(A + Xs) - special.gammaln(A) + A * np.log(b)
            - (A + Xs) * np.log(b + mu.sum()) + (X * np.log(mu) - special.gammaln(X + 1)).sum()
        )  # fmt: skip
        phi = rng.gamma(a, 1 / b, size=(2_000_000, x.size)).sum(1)
        lik = np.exp((stats.poisson.logpmf(X[None, :], mu[None, :] * phi[:, None])).sum(1))
        mc, se = lik.mean(), lik.std() / np.sqrt(lik.size)
        print(
            f"closed-form totals marginal at alpha={alpha}, beta={beta}, delta={delta}: "
            f"exact {np.exp(exact):.6e}, Monte Carlo {mc:.6e} +- {se:.1e} "
            f"(z {(mc - np.exp(exact)) / se:+.2f})"
        )
    # 2. totals with negligible exposure: sigma, delta at their priors, rate as without totals
    d = DESIGNS["weak"]
    red = d.reduced()
    red["c"], red["X"] = red["c"] * 1e-12, red["X"] * 0.0  # no events over ~no exposure
    ex = Exact(red, fleet_sigma)
    for lev in LEVELS:
        qs = stats.halfnorm.ppf(lev, scale=fleet_sigma)
        # delta / (sqrt(2) s_f) = product of two standard normals: density K0(|x|)/pi
        qd = _k0_ppf(lev) * np.sqrt(2) * fleet_sigma
        print(
            f"no-information totals, level {lev}: sigma CDF {ex.cdf_sigma(qs):.5f}, "
            f"delta CDF {ex.cdf_delta(0, qd):.5f}"
        )
    for y in (1e-5, 3e-5, 1e-4):
        print(
            f"no-information totals, rate of category {d.rate_category} at {y:g}: "
            f"grid {ex.cdf_rate(d.rate_category, y):.5f}, "
            f"Gamma(a_c, b) directly {ex.cdf_rate_no_totals(d.rate_category, y):.5f}"
        )
    # normalisation: with X = 0 and R ~ 0 the (sigma, w) part is the prior, so the evidence
    # is G~(0), and the prior's mass on the (sigma, w) grid must be 1
    prior_mass = np.exp(ex.log_z - float(ex._log_gtilde(np.array(ex.lr[0]))))
    ex.rate_weights()
    print(f"no-information totals: prior mass on the (sigma, w) grid {prior_mass:.8f}; edges: "
          f"alpha {ex.edge_alpha:.1e}, beta {ex.edge_beta:.1e}, (sigma, w) "
          f"{ex.edge_sigma_w:.1e}")  # fmt: skip
    grid_checks_new(rng, fleet_sigma)


def grid_checks_new(rng, fleet_sigma=1.0):
    """Checks of the two-category grid and of the new fleet's rate (Monte Carlo on the grid)."""
    import dataclasses

    # 4. two categories, any t_c and c_kc: the B_1 integral of the closed form in Phi against
    # a Monte Carlo average over phi_c ~ Gamma(alpha + x_c, beta + t_c), independent
    for dn, alpha, beta, delta in [("unitmix", 0.7, 0.02, 0.3), ("weights", 2.0, 1.5, -0.4)]:
        red = DESIGNS[dn].reduced2()
        x, t, c, X = red["x"], red["t"], red["c"][0], red["X"][0]
        a, b = alpha + x, beta + t
        big_a = a.sum()

        def f(b1, a=a, b=b, c=c, X=X, big_a=big_a, delta=delta):
            bb = np.array([b1, 1 - b1])
            mu = np.exp(delta) * (c @ bb)
            return np.exp(
                special.gammaln(big_a + X) - special.gammaln(a).sum() + (a * np.log(b)).sum()
                + (a - 1) @ np.log(bb) - (big_a + X) * np.log(b @ bb + mu)
                + X * np.log(mu) - special.gammaln(X + 1)
            )  # fmt: skip

        exact = integrate.quad(f, 0, 1, limit=200, epsabs=0, epsrel=1e-10)[0]
        phi = rng.gamma(a, 1 / b, size=(2_000_000, 2))
        lik = stats.poisson.pmf(X, np.exp(delta) * phi @ c)
        mc, se = lik.mean(), lik.std() / np.sqrt(lik.size)
        print(f"two categories ({dn}), closed form in Phi integrated over B_1 at alpha={alpha}, "
              f"beta={beta}, delta={delta}: {exact:.6e}, Monte Carlo {mc:.6e} +- {se:.1e} "
              f"(z {(mc - exact) / se:+.2f})")  # fmt: skip
    # 5. where the totals see the rates through their sum only, the two-category grid (B_1 on
    # a grid) and the one-sum grid (B integrated out) must agree
    d = dataclasses.replace(DESIGNS["unitmix"], pool="auto")  # fleet pooling: t_c equal
    e1, e2 = Exact(d.reduced(), fleet_sigma), Exact2(d.reduced2(), fleet_sigma)
    diff_s = max(abs(e1.cdf_sigma(q) - e2.cdf_sigma(q)) for q in (0.05, 0.2, 0.5, 1.0, 2.0))
    diff_d = max(abs(e1.cdf_delta(0, q) - e2.cdf_delta(0, q)) for q in (-1, -0.3, 0, 0.3, 1))
    print(f"two-category grid vs one-sum grid ({d.note}, pool='fleet'): max |CDF difference| "
          f"sigma {diff_s:.1e}, delta {diff_d:.1e}")  # fmt: skip
    # 6. the new fleet's rate two ways: z_1 | w of the K fleets (``draws``, as fit_fleets), and
    # the grid of K + 1 fleets, the new one with no events over ~no exposure, whose delta is
    # then the new fleet's log ratio given the data
    d = DESIGNS["weak"]
    red = d.reduced()
    ex = Exact(red, fleet_sigma)
    new = ex.draws(d.rate_category)["new"]
    aug = dict(red, c=np.append(red["c"], red["c"][0] * 1e-9), X=np.append(red["X"], 0.0))
    dr = Exact(aug, fleet_sigma).draws(d.rate_category, seed=7)
    new_aug = dr["kappa"] * np.exp(dr["delta"][:, -1])
    for lev in LEVELS:
        q = np.quantile(new, lev)
        cdf = np.mean(new_aug <= q)
        se = np.sqrt(2 * lev * (1 - lev) / new.size)  # two independent 2e6-draw samples
        print(f"new fleet's rate ({d.name}), level {lev}: CDF from the K + 1 fleet grid "
              f"{cdf:.5f} (z {(cdf - lev) / se:+.2f})")  # fmt: skip
    # the draws' kappa against the deterministic CDF of step 4 of the reduction
    kap = ex.draws(d.rate_category, seed=3)["kappa"]
    for lev in LEVELS:
        q = np.quantile(kap, lev)
        print(f"category rate ({d.name}), level {lev}: grid draws vs deterministic CDF "
              f"{ex.cdf_rate(d.rate_category, q) - lev:+.1e} (MC SE "
              f"{np.sqrt(lev * (1 - lev) / kap.size):.1e})")  # fmt: skip


def _k0_ppf(level):
    """Quantile of the density K0(|x|)/pi (product of two independent standard normals)."""

    def cdf(q):
        if q == 0:
            return 0.5
        v = integrate.quad(lambda s: special.k0(s) / np.pi, 0, abs(q), limit=200)[0]
        return 0.5 + np.sign(q) * v

    from scipy.optimize import brentq

    return brentq(lambda q: cdf(q) - level, -30, 30, xtol=1e-12)


# --------------------------------------------------------------------------------------------
# the sampler against the grid


def quantities(fit, design):
    post = fit.posterior
    out = {"sigma": post["sigma"].values}
    fleets = list(post["fleet"].values)
    for k in range(1, len(fleets)):
        out[f"delta_{k}"] = np.log(post["fleet_multiplier"].sel(fleet=fleets[k]).values)
    cat = str(post["category"].values[design.rate_category])
    out[f"rate[{cat}]"] = post["fleet_rate"].sel(fleet=fleets[0], category=cat).values
    out[f"new_rate[{cat}]"] = post["rate"].sel(category=cat).values
    if len(design.count) == 2:
        # share of the first category in the pooled rates, phi_c = kappa_c E_c / t_c
        e, t = design.pooled()
        phi = post["fleet_rate"].sel(fleet=fleets[0]).values * (e / t)
        out["share"] = phi[..., 0] / phi.sum(-1)
    return out


def exact_cdf(ex, design, name, q):
    if name == "sigma":
        return ex.cdf_sigma(q)
    if name.startswith("delta_"):
        return ex.cdf_delta(int(name.split("_")[1]) - 1, q)
    if name == "share":
        return ex.cdf_share(q)
    if name.startswith("new_rate"):
        return ex.cdf_new_rate(design.rate_category, q)
    return ex.cdf_rate(design.rate_category, q)


def compare(ex, design, draws, az):
    rows = []
    for name, v in draws.items():
        for lev in LEVELS:
            q = float(np.quantile(v, lev))
            cdf = exact_cdf(ex, design, name, q)
            ess = float(az.ess((v <= q).astype(float)))
            z = (cdf - lev) / np.sqrt(lev * (1 - lev) / ess)
            rows.append((name, lev, q, cdf, ess, z))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--designs", default="weak,equal,zero,apart")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--tune", type=int, default=1000)
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--grid-checks", action="store_true")
    ap.add_argument("--no-fit", action="store_true", help="grids only")
    ap.add_argument("--alternative", action="store_true", help="also z against alternative()")
    ap.add_argument("--grid-checks-new", action="store_true", help="checks 4-6 only")
    ap.add_argument("--save", help="folder to save each fit's draws in (npz), for --load")
    ap.add_argument("--load", help="folder of saved draws: compare them instead of fitting")
    ap.add_argument("--label", default="", help="printed with each seed (e.g. the code's state)")
    ap.add_argument("--fit-only", action="store_true", help="fit and --save, no grid")
    ap.add_argument("--tag", default="", help="appended to saved file names")
    ap.add_argument(
        "--centred-sd", type=float, help="override relmc.models.fleets.CENTRED_SD (a sweep)"
    )
    args = ap.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    t0 = time.time()
    if args.grid_checks:
        grid_checks()
    elif args.grid_checks_new:
        grid_checks_new(np.random.default_rng(1))

    import relmc.models.fleets as fleets_mod
    from relmc.models import fit_fleets, import_arviz

    if args.centred_sd is not None:  # the rule on the data sd alone, at this threshold
        fleets_mod.CENTRED_SD = args.centred_sd
        fleets_mod.CENTRED_APART = -np.inf

    az = import_arviz()
    for dn in args.designs.split(","):
        d = DESIGNS[dn]
        t = time.time()
        print(f"\n## design {dn}: {d.note}")
        if args.fit_only:
            for s in range(args.seed0, args.seed0 + args.seeds):
                t = time.time()
                fit = fit_fleets(
                    d.datasets(), n_draws=args.draws, n_tune=args.tune, n_chains=args.chains,
                    cores=args.cores, seed=s, prior=d.prior, pool=d.pool,
                )  # fmt: skip
                div, secs = int(fit.sample_stats["diverging"].sum()), time.time() - t
                np.savez(f"{args.save}/{dn}-{s}{args.tag}.npz", _divergences=div,
                         _seconds=secs, **quantities(fit, d))  # fmt: skip
                print(f"{args.label}seed {s}: {secs:.0f} s, divergences {div}", flush=True)
            continue
        ex = exact_for(d)
        if isinstance(ex, Exact):
            ex.rate_weights()
            edges = f"beta {ex.edge_beta:.1e}, R off its grid {1 - ex.r_in_range:.1e}"
        else:
            edges = f"beta {ex.edge_beta:.1e}, logit B_1 {ex.edge_l:.1e}"
        print(f"grid: {time.time() - t:.0f} s; edges: alpha {ex.edge_alpha:.1e}, (sigma, w) "
              f"{ex.edge_sigma_w:.1e}, {edges}", flush=True)  # fmt: skip
        # doubled resolution (1.5 for the three-dimensional grid of two categories)
        ex2 = exact_for(d, res=2 if isinstance(ex, Exact) else 1.5) if args.grid_checks else None
        for s in range(args.seed0, args.seed0 + args.seeds):
            if args.no_fit:
                break
            t = time.time()
            path = f"{args.load or args.save}/{dn}-{s}{args.tag}.npz"
            if args.load:
                saved = dict(np.load(path))
                div, secs = int(saved.pop("_divergences")), float(saved.pop("_seconds"))
                draws = saved
            else:
                fit = fit_fleets(
                    d.datasets(), n_draws=args.draws, n_tune=args.tune, n_chains=args.chains,
                    cores=args.cores, seed=s, prior=d.prior, pool=d.pool,
                )  # fmt: skip
                div, secs = int(fit.sample_stats["diverging"].sum()), time.time() - t
                draws = quantities(fit, d)
                if args.save:
                    np.savez(path, _divergences=div, _seconds=secs, **draws)
            shape = next(iter(draws.values())).shape
            if isinstance(ex, Exact2):  # no rate on that grid: sigma, delta and the share
                draws = {k: v for k, v in draws.items() if not k.endswith("]")}
            else:
                draws.pop("share", None)
            rows = compare(ex, d, draws, az)
            print(f"{args.label}seed {s}, {shape[0]} x {shape[1]}: {secs:.0f} s, "
                  f"divergences {div} / {shape[0] * shape[1]}; bulk ESS of sigma "
                  f"{float(az.ess(draws['sigma'])):.0f}; max |z| "
                  f"{max(abs(r[-1]) for r in rows):.2f}", flush=True)  # fmt: skip
            for name in dict.fromkeys(r[0] for r in rows):
                sel = [r for r in rows if r[0] == name]
                txt = ", ".join(f"{lev:.2f}: {c:.4f} (z {z:+.2f})" for _, lev, _, c, _, z in sel)
                print(f"  {name:14s} ESS {min(r[4] for r in sel):6.0f}  {txt}")
                if ex2 is not None:
                    diff = max(abs(exact_cdf(ex2, d, name, q) - c) for _, _, q, c, _, _ in sel)
                    print(f"  {'':14s} doubled grid: max |CDF change| {diff:.1e}")
            if args.alternative:
                what, d_alt, ex_alt = alternative(d)
                if isinstance(ex_alt, Exact2):
                    alt = {k: v for k, v in draws.items() if not k.endswith("]")}
                    # the share of the other model's pooled rates, phi'_c = phi_c t_c / t'_c
                    rt = d.pooled()[1] / d_alt.pooled()[1]
                    alt["share"] = (
                        rt[0] * alt["share"] / (rt[0] * alt["share"] + rt[1] * (1 - alt["share"]))
                    )
                else:
                    ex_alt.rate_weights()
                    alt = {k: v for k, v in draws.items() if k != "share"}
                for name, _, _, c, _, z in compare(ex_alt, d, alt, az):
                    print(f"  against the grid of {what}: {name} CDF {c:.4f} (z {z:+.2f})")
    print(f"\ntotal {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
