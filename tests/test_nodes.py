"""Known answers for the node model (lemons, blast radius, diagnosis, repair pipeline, standbys,
memory restore), each derived in ``benchmarks/NODES_ANSWERS.md``, and the kernel against the
oracle with everything on.

Every known answer runs on both engines (``engine`` fixture): the oracle and the kernel.
Tolerance: 4 standard errors of the per-trial statistic (about 6e-5 chance per check for a
correct sampler; the file makes about 40 such checks per engine). Each answer has a negative
control: a deliberately wrong answer, or a deliberately wrong input, that the same check must
reject (|z| > 4). Known answers use zero overheads (no detection, diagnosis, swap, restart or
checkpoint time) unless they say otherwise, so that the job is exposed all the time it is not
waiting for spares, and a job of 1e9 compute hours ended by a wall cap or by ``max_events``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from kernelcheck import disagreements
from nodeinputs import node_disagreements, node_inputs, run
from scipy import linalg, stats
from test_reference import feature_rich

from relmc.sim import CAUSES
from relmc.sim.reference import NODE_COUNTS

SPARE_WAIT = CAUSES.index("spare_wait")
Z = 4.0  # 4 SE: see the module docstring


@pytest.fixture(params=["reference", "kernel"])
def engine(request):
    return request.param


def z_score(samples) -> float:
    """(sample mean) / (its standard error) of a statistic whose expectation is zero."""
    s = np.asarray(samples, dtype=float)
    return float(s.mean() / (s.std(ddof=1) / math.sqrt(s.size)))


def time_integral(q: np.ndarray, rate: np.ndarray, p0: np.ndarray, horizon: float) -> float:
    """``E[integral_0^T rate(X_t) dt]`` for a CTMC with generator ``q`` started from ``p0``.

    Exact (up to the matrix exponential's rounding): the last column of
    ``expm(T [[q, rate], [0, 0]])`` is ``integral_0^T e^{q t} dt rate``.
    """
    k = rate.size
    a = np.zeros((k + 1, k + 1))
    a[:k, :k] = q
    a[:k, k] = rate
    return float(p0 @ linalg.expm(a * horizon)[:k, k])


def generator(rates: dict[tuple[int, int], float], k: int) -> np.ndarray:
    """A generator matrix from off-diagonal rates ``{(i, j): r}`` (self-loops dropped)."""
    q = np.zeros((k, k))
    for (i, j), r in rates.items():
        if i != j:
            q[i, j] += r
    np.fill_diagonal(q, -q.sum(axis=1))
    return q


# ---- 1. lemons without swaps or detection: a mixed Poisson count ----------------------------

# n nodes, B ~ Binomial(n, f) bad, fixed for the trial (restart-only category, no exclusion).
# Given B the count over the cap T (exposed throughout) is Poisson(lambda(B) T) with
# lambda(B) = Lam (n - B + m B) / (n (1 - f + f m)), so E N = Lam T and
# Var N = Lam T + T^2 Var lambda(B), Var lambda(B) = Lam^2 (m - 1)^2 f (1 - f) / (n (1-f+fm)^2).
LEMON = dict(n=8, f=0.25, m=10.0, lam=1.0, horizon=20.0)


def mixture_variance(n, f, m, lam, horizon) -> float:
    var_rate = lam**2 * (m - 1.0) ** 2 * f * (1.0 - f) / (n * (1.0 - f + f * m) ** 2)
    return lam * horizon + horizon**2 * var_rate


def lemon_run(engine, f, seed, n_trials=1500):
    p = LEMON
    x = node_inputs(
        [p["lam"]],
        n_trials=n_trials,
        n_nodes=p["n"],
        bad_fraction=f,
        bad_multiplier=[p["m"]],
        cap_hours=p["horizon"],
    )
    return run(engine, x, seed)["interruptions"][:, 0]


def test_lemons_mixed_poisson_mean_and_dispersion(engine):
    p = LEMON
    count = lemon_run(engine, p["f"], seed=1)
    mean = p["lam"] * p["horizon"]
    var = mixture_variance(**p)  # 91.9 against 20 for a Poisson count
    # E[N - Lam T] = 0 and E[(N - Lam T)^2 - Var] = 0, each within 4 SE at 1500 trials
    assert abs(z_score(count - mean)) < Z
    assert abs(z_score((count - mean) ** 2 - var)) < Z
    # negative controls: Lam taken as the good nodes' rate (mean x (1 - f + f m)), and the
    # dispersion of a wrong multiplier (m = 5: Var 57.5) must both be rejected
    assert abs(z_score(count - mean * (1 - p["f"] + p["f"] * p["m"]))) > Z
    wrong = mixture_variance(p["n"], p["f"], 5.0, p["lam"], p["horizon"])
    assert abs(z_score((count - mean) ** 2 - wrong)) > Z


def test_lemons_negative_control_without_bad_nodes_is_poisson(engine):
    # f = 0: the same mean, Poisson dispersion; the mixture's variance must be rejected
    p = LEMON
    count = lemon_run(engine, 0.0, seed=2)
    mean = p["lam"] * p["horizon"]
    assert abs(z_score((count - mean) ** 2 - mean)) < Z
    assert abs(z_score((count - mean) ** 2 - mixture_variance(**p))) > Z


# ---- 2. swaps to a closed pool, repairs that never fix: Fisher's noncentral law --------------

# n job nodes and S pool nodes; every failure swaps the failed node for a uniform pool node and
# the repair (1e-6 h) returns it unchanged (auto_miss = 1). Total bad Btot = B + B_pool is
# conserved; B is a birth-death chain: up at g (n - B) (Btot - B) / S, down at
# g m B (S - Btot + B) / S, whose stationary law is Fisher's noncentral hypergeometric
# pi(B) ~ C(n, B) C(S, Btot - B) m^-B. The start is B ~ Bin(n, f), B_pool ~ Bin(S, f), so
# the exact mean count over T is the CTMC's time integral from that start.
CLOSED = dict(n=4, spares=4, f=0.5, m=9.0, lam=2.0, horizon=30.0)


def closed_pool_chain(n, spares, f, m, lam):
    """States (B, B_pool), generator, job failure rate and initial law."""
    g = lam / (n * (1.0 - f + f * m))
    states = [(b, bp) for b in range(n + 1) for bp in range(spares + 1)]
    index = {s: i for i, s in enumerate(states)}
    rates = {}
    rate, p0 = np.zeros(len(states)), np.zeros(len(states))
    for (b, bp), i in index.items():
        rate[i] = g * (n - b + m * b)
        p0[i] = stats.binom.pmf(b, n, f) * stats.binom.pmf(bp, spares, f)
        if bp > 0 and b < n:  # a good node fails, a bad one comes from the pool
            rates[(i, index[(b + 1, bp - 1)])] = g * (n - b) * bp / spares
        if b > 0 and bp < spares:  # a bad node fails, a good one comes
            rates[(i, index[(b - 1, bp + 1)])] = g * m * b * (spares - bp) / spares
    return states, generator(rates, len(states)), rate, p0


def closed_pool_mean(n, spares, f, m, lam, horizon) -> float:
    _, q, rate, p0 = closed_pool_chain(n, spares, f, m, lam)
    return time_integral(q, rate, p0, horizon)


def closed_pool_stationary_rate(n, spares, f, m, lam, odds=None) -> float:
    """Long-run job failure rate: E over Btot ~ Bin(n + S, f) of E_pi[lambda(B)]."""
    g = lam / (n * (1.0 - f + f * m))
    odds = 1.0 / m if odds is None else odds
    total = 0.0
    for btot in range(n + spares + 1):
        b = np.arange(max(0, btot - spares), min(n, btot) + 1)
        pi = stats.nchypergeom_fisher.pmf(b, n + spares, n, btot, odds)
        total += stats.binom.pmf(btot, n + spares, f) * float((pi * g * (n - b + m * b)).sum())
    return total


def test_fisher_law_is_the_stationary_law_of_the_closed_pool_chain():
    # the derivation itself: pi Q = 0 on every block of constant Btot
    p = CLOSED
    states, q, _, _ = closed_pool_chain(p["n"], p["spares"], p["f"], p["m"], p["lam"])
    n, s = p["n"], p["spares"]
    for btot in range(n + s + 1):
        block = [i for i, (b, bp) in enumerate(states) if b + bp == btot]
        b = np.array([states[i][0] for i in block])
        pi = stats.nchypergeom_fisher.pmf(b, n + s, n, btot, 1.0 / p["m"])
        np.testing.assert_allclose(pi @ q[np.ix_(block, block)], 0.0, atol=1e-12)
        assert np.all(q[np.ix_(block, [i for i in range(len(states)) if i not in block])] == 0)
    # and the long-run rate is what the exact mean approaches: the slope over [T, 2T]
    slope = (closed_pool_mean(**{**p, "horizon": 400.0}) - closed_pool_mean(**p)) / 370.0
    rate = closed_pool_stationary_rate(p["n"], s, p["f"], p["m"], p["lam"])
    assert slope == pytest.approx(rate, rel=1e-6)


def closed_pool_inputs():
    """:data:`CLOSED`: swaps from a closed pool, instant repairs that never fix, 1000 trials."""
    p = CLOSED
    return node_inputs(
        [p["lam"]],
        n_trials=1000,
        swap=[True],
        n_nodes=p["n"],
        bad_fraction=p["f"],
        bad_multiplier=[p["m"]],
        n_spares=p["spares"],
        repair_hours=1e-6,
        auto_miss=1.0,
        cap_hours=p["horizon"],
    )


def test_closed_pool_never_fixed_sorts_bad_nodes_into_the_pool(engine):
    p = CLOSED
    count = run(engine, closed_pool_inputs(), seed=3)["interruptions"][:, 0]
    exact = closed_pool_mean(**p)  # 38.6 against Lam T = 60 without sorting
    assert abs(z_score(count - exact)) < Z  # 4 SE at 1000 trials
    # negative controls: no sorting (Lam T), and Fisher's law with the odds inverted (m, not
    # 1/m: bad nodes drawn into the job) as the long-run rate
    assert abs(z_score(count - p["lam"] * p["horizon"])) > Z
    inverted = closed_pool_stationary_rate(p["n"], p["spares"], p["f"], p["m"], p["lam"], p["m"])
    assert abs(z_score(count - inverted * p["horizon"])) > Z


# ---- 2b. swaps to an unlimited pool: the job sheds its lemons --------------------------------

# n job nodes, one swap category, an unlimited pool (every replacement bad with probability f),
# no detection. The rates are those of nodes mixed at f at the start (g = Lam / (n (1-f+fm))
# per good node), but failures remove bad nodes m times as often as good ones while
# replacements come bad at f: E B(t) solves dB/dt = g (f (n - B + m B) - m B) (linear in B),
#   E B(t) = B* + (f n - B*) e^{-k t},  k = g (m (1 - f) + f),  B* = f n / (m (1 - f) + f),
# and the job's rate is g (n + (m - 1) B), so E N(T) = g n T + g (m - 1) int_0^T E B.
SHED = dict(n=64, f=0.25, m=9.0, lam=1.0, horizon=200.0)


def shed_mean(n, f, m, lam, horizon) -> float:
    g = lam / (n * (1.0 - f + f * m))
    k = g * (m * (1.0 - f) + f)
    b_star = f * n / (m * (1.0 - f) + f)
    integral = b_star * horizon + (f * n - b_star) * -math.expm1(-k * horizon) / k
    return g * n * horizon + g * (m - 1.0) * integral


def test_unlimited_pool_swaps_shed_lemons(engine):
    p = SHED
    x = node_inputs([p["lam"]], n_trials=1500, swap=[True], n_nodes=p["n"], bad_fraction=p["f"],
                    bad_multiplier=[p["m"]], cap_hours=p["horizon"])  # fmt: skip
    count = run(engine, x, seed=5)["interruptions"][:, 0]
    expected = shed_mean(**p)  # 101.4: the rate falls from Lam = 1/h to about Lam / 2.33
    assert abs(z_score(count - expected)) < Z
    # negative controls: the rate of the start kept throughout (Lam T = 200), and the job
    # settled at its long-run mix from the start (Lam T (1 + (m-1) B*/n) / (1 - f + f m))
    assert abs(z_score(count - p["lam"] * p["horizon"])) > Z
    b_star = p["f"] * p["n"] / (p["m"] * (1 - p["f"]) + p["f"])
    settled = p["horizon"] * (1 + (p["m"] - 1) * b_star / p["n"]) / (1 - p["f"] + p["f"] * p["m"])
    assert abs(z_score(count - settled)) > Z
    # and restart-only failures (no swaps) keep the start's rate on average: Lam T
    kept = run(engine, dataclasses.replace(x, swap=np.zeros(1, dtype=bool)), seed=6)
    assert abs(z_score(kept["interruptions"][:, 0] - p["lam"] * p["horizon"])) < Z


# ---- 3. lemon detection ------------------------------------------------------------------

# Unlimited pool, restart-only category. lemon_k = 1: every blamed node is excluded and
# replaced by a fresh node (bad with probability f). Each of the n slots of the job is then an
# independent two-state chain: good -> bad at g f, bad -> good at g m (1 - f), so
# P(bad at t) = p_inf + (f - p_inf) e^{-kappa t}, p_inf = f / (f + m (1 - f)),
# kappa = g (f + m (1 - f)), and
# E N(T) = n g [T (1 + (m - 1) p_inf) + (m - 1) (f - p_inf) (1 - e^{-kappa T}) / kappa].
DETECT = dict(n=4, f=0.3, m=8.0, lam=1.24, horizon=30.0)


def lemon_k1_mean(n, f, m, lam, horizon, bad_only=False) -> float:
    g = lam / (n * (1.0 - f + f * m))
    p_inf = f / (f + m * (1.0 - f))
    kappa = g * (f + m * (1.0 - f))
    transient = (f - p_inf) * (1.0 - math.exp(-kappa * horizon)) / kappa
    if bad_only:  # failures of bad nodes: n g m integral of P(bad)
        return n * g * m * (p_inf * horizon + transient)
    return n * g * (horizon * (1.0 + (m - 1.0) * p_inf) + (m - 1.0) * transient)


def lemon_slot_chain_mean(n, f, m, lam, horizon, k) -> float:
    """E N(T) for lemon_k = k, infinite window: per slot, states (type, failures so far)."""
    g = lam / (n * (1.0 - f + f * m))
    states = [(t, j) for t in (0, 1) for j in range(k)]
    index = {s: i for i, s in enumerate(states)}
    rates, rate, p0 = {}, np.zeros(len(states)), np.zeros(len(states))
    for (t, j), i in index.items():
        r = g * (m if t else 1.0)
        rate[i] = r
        if j < k - 1:
            rates[(i, index[(t, j + 1)])] = r
        else:  # the k-th failure excludes the node; a fresh one comes
            for t_new, pr in ((0, 1.0 - f), (1, f)):
                rates[(i, index[(t_new, 0)])] = rates.get((i, index[(t_new, 0)]), 0.0) + r * pr
    p0[index[(0, 0)]], p0[index[(1, 0)]] = 1.0 - f, f
    # a fresh node of the same type as the one excluded is a self-loop of the chain: a failure
    # that changes no state still counts, which `rate` does, so dropping self-loops is exact
    return n * time_integral(generator(rates, len(states)), rate, p0, horizon)


def detect_inputs(n_trials, **kw):
    p = {**DETECT, **kw.pop("params", {})}
    return node_inputs(
        [p["lam"]],
        n_trials=n_trials,
        n_nodes=p["n"],
        bad_fraction=p["f"],
        bad_multiplier=[p["m"]],
        cap_hours=p["horizon"],
        **kw,
    )


def test_lemon_detection_k1_closed_form(engine):
    out = run(engine, detect_inputs(1000, lemon_k=1), seed=4)
    count = out["interruptions"][:, 0]
    exact = lemon_k1_mean(**DETECT)  # 17.45 against Lam T = 37.2 without detection
    assert abs(z_score(count - exact)) < Z  # 4 SE at 1000 trials
    excluded = out["nodes_excluded_bad"] + out["nodes_excluded_good"]
    np.testing.assert_array_equal(excluded, count)  # every failure excludes its node
    assert abs(z_score(out["nodes_excluded_bad"] - lemon_k1_mean(**DETECT, bad_only=True))) < Z
    # negative controls: no detection (Lam T), and the stationary rate without the transient
    p = DETECT
    assert abs(z_score(count - p["lam"] * p["horizon"])) > Z
    g = p["lam"] / (p["n"] * (1 - p["f"] + p["f"] * p["m"]))
    p_inf = p["f"] / (p["f"] + p["m"] * (1 - p["f"]))
    stationary = p["n"] * g * p["horizon"] * (1 + (p["m"] - 1) * p_inf)
    assert abs(z_score(count - stationary)) > Z


def test_lemon_detection_k1_formula_matches_its_chain():
    # the closed form against the generic per-slot chain with k = 1 (deterministic)
    assert lemon_k1_mean(**DETECT) == pytest.approx(lemon_slot_chain_mean(**DETECT, k=1), 1e-9)


def test_lemon_detection_k2_and_its_window(engine):
    out = run(engine, detect_inputs(1000, lemon_k=2), seed=5)
    count = out["interruptions"][:, 0]
    exact = lemon_slot_chain_mean(**DETECT, k=2)  # 18.05
    assert abs(z_score(count - exact)) < Z  # 4 SE at 1000 trials
    assert abs(z_score(count - DETECT["lam"] * DETECT["horizon"])) > Z  # no detection: rejected
    # negative control on the input: a window of 1e-6 h never holds two failures, so nothing
    # is excluded, the count is Lam T and the k = 2 answer must be rejected
    out = run(engine, detect_inputs(600, lemon_k=2, lemon_window=1e-6), seed=6)
    short = out["interruptions"][:, 0]
    assert np.all(out["nodes_excluded_bad"] + out["nodes_excluded_good"] == 0)
    assert abs(z_score(short - DETECT["lam"] * DETECT["horizon"])) < Z
    assert abs(z_score(short - exact)) > Z


# Wrong blame, lemon_k = 1, n = 3: a failure blames the failed node with probability 1 - w,
# else one of the other n - 1 uniformly; the blamed node is excluded and replaced (bad with
# probability f). B is a birth-death chain: a failure (rate g (n - B + m B)) removes a bad
# node with probability (1 - w) P_f + w [P_f (B - 1) + (1 - P_f) B] / (n - 1),
# P_f = m B / (n - B + m B).
def wrong_blame_mean(n, f, m, lam, horizon, w) -> float:
    g = lam / (n * (1.0 - f + f * m))
    rates, rate = {}, np.zeros(n + 1)
    for b in range(n + 1):
        total = g * (n - b + m * b)
        rate[b] = total
        p_fail = m * b / (n - b + m * b)
        p_other = (p_fail * (b - 1) + (1 - p_fail) * b) / (n - 1)
        p_removed_bad = (1 - w) * p_fail + w * p_other
        if b > 0:
            rates[(b, b - 1)] = total * p_removed_bad * (1 - f)
        if b < n:
            rates[(b, b + 1)] = total * (1 - p_removed_bad) * f
    p0 = stats.binom.pmf(np.arange(n + 1), n, f)
    return time_integral(generator(rates, n + 1), rate, p0, horizon)


def test_wrong_blame_with_lemon_detection(engine):
    w = 0.7
    p = {**DETECT, "n": 3}
    out = run(engine, detect_inputs(1000, lemon_k=1, diag_wrong=[w], params={"n": 3}), seed=7)
    count = out["interruptions"][:, 0]
    exact = wrong_blame_mean(**p, w=w)  # 25.5 (17.2 if blame were always right)
    assert abs(z_score(count - exact)) < Z  # 4 SE at 1000 trials
    assert abs(z_score(out["wrong_blames"] - w * count)) < Z
    # negative control: the answer with the blame always right
    assert abs(z_score(count - wrong_blame_mean(**p, w=0.0))) > Z


# ---- 4. a finite spare pool: spare waits ---------------------------------------------------

# Rate lam, repairs of mean R, S spares, zero overheads; each trial stops at its M-th failure,
# so M - 1 failures are recovered. Let k_j be the nodes in repair just before failure j
# (k_1 = 0). Exponential repairs: if k_j = S the job waits for the first of S + 1 repairs,
# mean R / (S + 1), after which S remain; otherwise no wait. So after recovery
# k = min(k_j + 1, S), and k_{j+1} is the pure-death chain (rate k / R) seen after an Exp(lam)
# exposure: P = lam (lam I - Q_death)^-1. E[spare wait] = sum_j P(k_j = S) R / (S + 1).
POOL = dict(lam=1.0, repair=2.0)


def spare_wait_exponential(spares, lam, repair, m_events) -> float:
    if spares < 0:
        return 0.0
    q = np.zeros((spares + 1, spares + 1))
    for k in range(1, spares + 1):
        q[k, k - 1], q[k, k] = k / repair, -k / repair
    seen = lam * np.linalg.inv(lam * np.eye(spares + 1) - q)
    up = np.zeros_like(q)
    for k in range(spares + 1):
        up[k, min(k + 1, spares)] = 1.0
    p, total = np.eye(spares + 1)[0], 0.0
    for _ in range(m_events - 1):
        total += p[spares] * repair / (spares + 1)
        p = p @ up @ seen
    return total


def pool_inputs(spares, m_events, n_trials, node_model, **kw):
    extra = dict(n_nodes=4, mem_restart_hours=0.0) if node_model else {}
    return node_inputs(
        [POOL["lam"]],
        n_trials=n_trials,
        swap=[True],
        n_spares=spares,
        repair_hours=POOL["repair"],
        max_events=m_events,
        **extra,
        **kw,
    )


@pytest.mark.parametrize("node_model", [False, True], ids=["today", "node_model"])
@pytest.mark.parametrize("spares", [0, 1, 2])
def test_spare_wait_exponential_repair(engine, spares, node_model):
    # node_model=False is today's count-based finite pool; True the node model's pool
    m_events = 20
    x = pool_inputs(spares, m_events, 600, node_model)
    assert getattr(x, "node_model", False) == node_model
    out = run(engine, x, seed=10 + spares)
    assert np.all(out["interruptions"][:, 0] == m_events)
    wait = out["lost_hours"][:, SPARE_WAIT]
    exact = spare_wait_exponential(spares, **POOL, m_events=m_events)
    assert abs(z_score(wait - exact)) < Z  # 4 SE at 600 trials
    # negative control: a pool with one spare fewer must fail the S answer (S = 0 has none
    # fewer: a pool of one spare must fail it)
    x = pool_inputs(spares - 1 if spares > 0 else 1, m_events, 600, node_model)
    other = run(engine, x, seed=20 + spares)["lost_hours"][:, SPARE_WAIT]
    assert abs(z_score(other - exact)) > Z


# Fixed repairs (node model): failure j's replacement is the node sent at failure j - S,
# available at s_{j-S} + R; so w_j = (s_{j-S} + R - s_j)^+. S = 0: every failure waits R.
# With M = S + 2 events the one wait is (R - Gamma(S, lam))^+, of mean
# R P(G_S <= R) - (S / lam) P(G_{S+1} <= R). S = 1, M = 4: w_2 = (R - X_1)^+ and
# w_3 = (R - X_2 - w_2)^+ with X_j ~ Exp(lam) the exposures between failures; with
# h(x) = E[(x - X)^+] = x - (1 - e^{-lam x}) / lam,
# E[w_2 + w_3] = h(R) + e^{-lam R} h(R) + int_0^R lam e^{-lam x} h(x) dx.
def spare_wait_fixed(spares, lam, repair, m_events) -> float:
    r = repair
    if spares == 0:
        return (m_events - 1) * r
    if m_events == spares + 2:
        g = stats.gamma
        return r * g.cdf(r, spares, scale=1 / lam) - spares / lam * g.cdf(
            r, spares + 1, scale=1 / lam
        )
    assert spares == 1 and m_events == 4

    def h(x):  # E[(x - Exp(lam))^+]
        return x - (1.0 - math.exp(-lam * x)) / lam

    e_lam = math.exp(-lam * r)
    # E[w_3] = P(X_1 >= R) h(R) + integral_0^R lam e^{-lam x} h(x) dx
    integral = (1 - e_lam * (1 + lam * r)) / lam - ((1 - e_lam) / lam - (1 - e_lam**2) / (2 * lam))
    return h(r) + e_lam * h(r) + integral


@pytest.mark.parametrize(("spares", "m_events"), [(0, 10), (1, 4), (2, 4)])
def test_spare_wait_fixed_repair(engine, spares, m_events):
    n_trials = 100 if spares == 0 else 2000
    x = pool_inputs(spares, m_events, n_trials, True, repair_fixed=True)
    wait = run(engine, x, seed=30 + spares)["lost_hours"][:, SPARE_WAIT]
    exact = spare_wait_fixed(spares, **POOL, m_events=m_events)
    # negative control: one spare fewer (S = 0: one more) must fail the S answer
    x = pool_inputs(spares - 1 if spares > 0 else 1, m_events, n_trials, True, repair_fixed=True)
    other = run(engine, x, seed=40 + spares)["lost_hours"][:, SPARE_WAIT]
    if spares == 0:  # deterministic: every failure waits exactly R
        np.testing.assert_allclose(wait, exact, rtol=1e-9)
        assert not np.allclose(other, exact, rtol=1e-9)
        return
    assert abs(z_score(wait - exact)) < Z  # 4 SE at 2000 trials
    assert abs(z_score(other - exact)) > Z


# ---- 5. escalation: mean repair time d1 + p d2 ---------------------------------------------

ESCALATE = dict(d1=1.0, d2=6.0, p=0.3)


def escalate_inputs(n_trials, fixed, **kw):
    e = ESCALATE
    return node_inputs(
        [0.5],
        n_trials=n_trials,
        swap=[True],
        n_nodes=4,
        repair_hours=e["d1"],
        manual_repair_hours=e["d2"],
        escalate_prob=e["p"],
        repair_fixed=fixed,
        **kw,
    )


@pytest.mark.parametrize("fixed", [False, True], ids=["exponential", "fixed"])
def test_escalation_direct_with_no_spares(engine, fixed):
    # S = 0: each failure waits for its own node's whole repair, so by Wald's identity
    # E[spare wait] = (M - 1) (d1 + p d2); stage-2 entries are Binomial(M - 1, p)
    m_events, e = 20, ESCALATE
    out = run(engine, escalate_inputs(600, fixed, n_spares=0, max_events=m_events), seed=50)
    wait = out["lost_hours"][:, SPARE_WAIT]
    assert np.all(out["repairs_auto"] == m_events - 1)
    assert abs(z_score(wait - (m_events - 1) * (e["d1"] + e["p"] * e["d2"]))) < Z
    assert abs(z_score(out["repairs_manual"] - e["p"] * (m_events - 1))) < Z
    assert abs(z_score(wait - (m_events - 1) * e["d1"])) > Z  # negative control: p ignored


# Little's law on pool_occupancy: S = 60 spares (never exhausted: P(> 60 failures) ~ 1e-19),
# failures Poisson(lam) over the cap T. A node sent at s is in repair for min(D, T - s), so
# E[pool_occupancy] = S - (lam / T) int_0^T (T - v) P(D > v) dv, which tends to
# S - lam (d1 + p d2) (Little) as T grows. int_0^T (T - v) e^{-v/a} dv = a T - a^2 (1 - e^{-T/a})
# and for the two stages in series P(D > v) = (d1 e^{-v/d1} - d2 e^{-v/d2}) / (d1 - d2).
def pool_occupancy_exact(spares, lam, horizon, d1, d2, p, fixed) -> float:
    t = horizon
    if fixed:
        inner = (1 - p) * (t * d1 - d1**2 / 2) + p * (t * (d1 + d2) - (d1 + d2) ** 2 / 2)
    else:

        def f(a):
            return a * t - a * a * (1 - math.exp(-t / a))

        inner = (1 - p) * f(d1) + p * (d1 * f(d1) - d2 * f(d2)) / (d1 - d2)
    return spares - lam / t * inner


@pytest.mark.parametrize("fixed", [False, True], ids=["exponential", "fixed"])
def test_escalation_little_law_on_pool_occupancy(engine, fixed):
    spares, horizon, e = 60, 40.0, ESCALATE
    x = escalate_inputs(600, fixed, n_spares=spares, cap_hours=horizon)
    out = run(engine, x, seed=51)
    assert np.all(out["lost_hours"][:, SPARE_WAIT] == 0)  # the pool never runs dry
    occupancy = out["pool_occupancy"]
    exact = pool_occupancy_exact(spares, 0.5, horizon, **e, fixed=fixed)
    assert abs(z_score(occupancy - exact)) < Z  # 4 SE at 600 trials
    ignored = pool_occupancy_exact(spares, 0.5, horizon, e["d1"], e["d2"], 0.0, fixed)
    assert abs(z_score(occupancy - ignored)) > Z  # negative control: p ignored


# ---- 6. blast radius ------------------------------------------------------------------------

# A domain of d nodes goes to repair at once. With S spares (< d) and exponential repairs of
# mean R the job waits for the (d - S)-th of d completions: R sum_{i<d-S} 1 / (d - i)
# (S = 0: R H_d). With S = 0 every event starts with all nodes back, so over M - 1 recovered
# events the mean is (M - 1) R H_d; with S > 0 only the first event (M = 2) is that simple.
BLAST = dict(d=4, repair=2.0)


def blast_wait(spares, d, repair) -> float:
    return repair * sum(1.0 / (d - i) for i in range(max(d - spares, 0)))


def blast_inputs(spares, m_events, n_trials, **kw):
    return node_inputs(
        [0.5],
        n_trials=n_trials,
        n_nodes=8,
        cat_domain=[BLAST["d"]],
        n_spares=spares,
        repair_hours=BLAST["repair"],
        max_events=m_events,
        **kw,
    )


@pytest.mark.parametrize(("spares", "m_events"), [(0, 20), (1, 2), (2, 2), (3, 2)])
def test_blast_radius_spare_wait(engine, spares, m_events):
    n_trials = 300 if m_events > 2 else 1000
    out = run(engine, blast_inputs(spares, m_events, n_trials), seed=60 + spares)
    # every domain event sends d nodes to repair (swap taken as true for the restart-only
    # category)
    np.testing.assert_array_equal(out["repairs_auto"], BLAST["d"] * (m_events - 1))
    wait = out["lost_hours"][:, SPARE_WAIT]
    exact = (m_events - 1) * blast_wait(spares, **BLAST)
    assert abs(z_score(wait - exact)) < Z  # 4 SE
    # negative control: one spare fewer (S = 0: one node per event, a wait of R)
    wrong = (m_events - 1) * (BLAST["repair"] if spares == 0 else blast_wait(spares - 1, **BLAST))
    assert abs(z_score(wait - wrong)) > Z


def test_blast_radius_takes_at_most_the_job(engine):
    # a domain larger than the job takes the whole job (exact, per trial)
    x = node_inputs([0.5], n_trials=100, n_nodes=8, cat_domain=[20], cap_hours=30.0)
    out = run(engine, x, seed=70)
    np.testing.assert_array_equal(out["repairs_auto"], 8 * out["interruptions"][:, 0])
    assert out["interruptions"].sum() > 100


def test_blast_radius_no_spare_wait_with_enough_spares(engine):
    out = run(engine, blast_inputs(BLAST["d"], 2, 200), seed=71)
    assert np.all(out["lost_hours"][:, SPARE_WAIT] == 0)


# ---- 7. restart from memory ------------------------------------------------------------------

# One swap category (every failure takes one node out), no checkpoint or restart time, so a
# checkpoint is durable at each of the W / tau segment ends. A segment suffers K failures with
# P(K >= k) = q^k, q = 1 - e^{-lam tau}; the i-th failure of a segment restarts from storage
# iff i > r. So E[storage] = (W / tau) q^{r+1} / (1 - q), E[memory] = (W / tau)(q - q^{r+1}) /
# (1 - q), and every failure is one or the other.
MEMORY = dict(lam=1.0, tau=0.5, work=20.0)


def memory_split(r, lam, tau, work) -> tuple[float, float]:
    q = 1.0 - math.exp(-lam * tau)
    n_seg = work / tau
    return n_seg * (q - q ** (r + 1)) / (1 - q), n_seg * q ** (r + 1) / (1 - q)


def memory_inputs(replicas):
    """:data:`MEMORY`: node failures only, restarts from memory with ``replicas`` copies."""
    m = MEMORY
    return node_inputs(
        [m["lam"]],
        n_trials=600,
        n_nodes=4,
        swap=[True],
        mem_restart_hours=0.0,
        mem_replicas=replicas,
        work_hours=m["work"],
        tau=m["tau"],
    )


@pytest.mark.parametrize("replicas", [1, 2])
def test_memory_restore_split_by_replicas(engine, replicas):
    m = MEMORY
    x = memory_inputs(replicas)
    out = run(engine, x, seed=80 + replicas)
    memory, storage = out["restarts_memory"], out["restarts_storage"]
    count = out["interruptions"][:, 0]
    assert out["finished"].all()
    np.testing.assert_array_equal(memory + storage, count)
    e_memory, e_storage = memory_split(replicas, **m)
    assert abs(z_score(storage - e_storage)) < Z  # 4 SE at 600 trials
    assert abs(z_score(memory - e_memory)) < Z
    # negative controls: "at least r" instead of "more than r" (the r - 1 answer), and a
    # count never reset by new checkpoints (storage = (N - r)^+ per trial)
    assert abs(z_score(storage - memory_split(replicas - 1, **m)[1])) > Z
    assert abs(z_score(storage - np.maximum(count - replicas, 0))) > Z


def test_memory_restore_blast_radius_reads_storage(engine):
    # many replicas: node failures restart from memory, blast-radius events from storage
    # (exact, per trial), also for failures during restarts
    x = node_inputs(
        [0.3, 0.2],
        n_trials=300,
        n_nodes=8,
        swap=[True, True],
        cat_domain=[1, 4],
        mem_restart_hours=0.05,
        mem_replicas=10**6,
        restart_hours=0.1,
        cap_hours=20.0,
    )
    out = run(engine, x, seed=90)
    np.testing.assert_array_equal(out["restarts_memory"], out["interruptions"][:, 0])
    np.testing.assert_array_equal(out["restarts_storage"], out["interruptions"][:, 1])
    assert np.all(out["interruptions"].sum(axis=0) > 500)


# ---- retirement and exhaustion ---------------------------------------------------------------


def test_retired_last_node_waits_to_the_cap(engine):
    # one node, no spares, retire at the 2nd send: the 2nd failure retires the only node and
    # no node can ever come, so the job waits (spare_wait) to the cap
    x = node_inputs(
        [1.0],
        n_trials=50,
        swap=[True],
        n_spares=0,
        repair_hours=0.5,
        retire_after=2,
        cap_hours=40.0,
    )
    out = run(engine, x, seed=91)
    assert np.all(out["nodes_retired"] == 1) and np.all(out["repairs_auto"] == 1)
    assert np.all(out["interruptions"][:, 0] == 2) and not out["finished"].any()
    np.testing.assert_allclose(out["wall_hours"], 40.0)
    spare = out["lost_hours"][:, SPARE_WAIT]
    assert np.all(spare > 0)


# ---- the kernel against the oracle, everything on and extreme ---------------------------------


def _job(**kw):
    base = dict(
        work_hours=20.0,
        tau=1.0,
        delta=0.05,
        persist=0.2,
        restart_hours=0.2,
        swap_hours=0.1,
        cap_hours=150.0,
        maint_rate=0.05,
        maint_hours=0.3,
    )
    return {**base, **kw}


ALL_ON = dict(
    n_nodes=8,
    bad_fraction=0.3,
    bad_multiplier=[5.0, 1.0, 3.0],
    cat_domain=[1, 1, 4],
    diag_hours=[0.1, 0.0, 0.2],
    diag_wrong=[0.2, 0.5, 0.0],
    lemon_k=2,
    lemon_window=20.0,
    escalate_prob=0.3,
    manual_repair_hours=5.0,
    auto_miss=0.2,
    manual_miss=0.1,
    retire_after=3,
    n_standbys=2,
    preempt_hours=0.1,
    mem_restart_hours=0.05,
    mem_replicas=1,
    n_spares=3,
    repair_hours=2.0,
    swap=[True, False, True],
    detect=[0.05, 0.1, 0.0],
)

NODE_SCENARIOS = {
    "all_on": node_inputs([0.5, 0.2, 0.05], **ALL_ON, **_job()),
    "all_on_time_varying": node_inputs(
        [0.5, 0.2, 0.05],
        **ALL_ON,
        **_job(
            cat_amp=np.array([0.8, 0.0, 0.5]),
            cat_phase=np.array([3.0, 0.0, 15.0]),
            start_hour=5.0,
            trend_shape=0.7,
            fleet_age_hours=30.0,
            speed_amp=0.2,
            speed_phase=9.0,
        ),
    ),
    "all_on_fixed_repair_unlimited": node_inputs(
        [0.5, 0.2, 0.05], **{**ALL_ON, "n_spares": -1, "repair_fixed": True}, **_job()
    ),
    # every node bad for ever (repairs never fix), detection on: only bad nodes excluded
    "all_bad": node_inputs(
        [0.3, 0.1],
        n_nodes=6,
        bad_fraction=1.0,
        bad_multiplier=[4.0, 2.0],
        auto_miss=1.0,
        lemon_k=2,
        swap=[True, False],
        n_spares=2,
        repair_hours=1.0,
        n_standbys=1,
        **_job(),
    ),
    # repairs never fix and escalate half the time; a small closed pool
    "never_fixed": node_inputs(
        [0.4],
        n_nodes=6,
        bad_fraction=0.4,
        bad_multiplier=[6.0],
        auto_miss=1.0,
        manual_miss=1.0,
        escalate_prob=0.5,
        manual_repair_hours=3.0,
        repair_fixed=True,
        swap=[True],
        n_spares=2,
        repair_hours=1.0,
        **_job(),
    ),
    # diagnosis always wrong: the failed node stays, an innocent one is excluded or swapped
    "always_wrong": node_inputs(
        [0.3, 0.2],
        n_nodes=5,
        bad_fraction=0.4,
        bad_multiplier=[5.0, 5.0],
        diag_wrong=[1.0, 1.0],
        diag_hours=[0.1, 0.1],
        lemon_k=1,
        swap=[True, False],
        n_spares=3,
        repair_hours=1.0,
        n_standbys=1,
        **_job(),
    ),
    # a domain larger than the pool and the standbys: every event waits for repairs
    "domain_over_pool": node_inputs(
        [0.1, 0.05],
        n_nodes=8,
        cat_domain=[6, 1],
        swap=[False, True],
        n_spares=2,
        n_standbys=1,
        repair_hours=1.5,
        preempt_hours=0.2,
        mem_restart_hours=0.05,
        mem_replicas=2,
        **_job(),
    ),
    # exclusions and retirements exhaust a tiny pool: trials end at the cap
    "exhausted": node_inputs(
        [0.4],
        n_nodes=3,
        bad_fraction=0.5,
        bad_multiplier=[3.0],
        lemon_k=1,
        retire_after=1,
        swap=[True],
        n_spares=1,
        repair_hours=1.0,
        **_job(cap_hours=60.0),
    ),
}


def check_outputs(out, x) -> None:
    """Accounting and ranges of the node model's outputs."""
    np.testing.assert_allclose(
        out["wall_hours"], out["progress_hours"] + out["lost_hours"].sum(axis=1), rtol=1e-9
    )
    assert np.all(out["wall_hours"] <= x.cap_hours)
    for name in NODE_COUNTS:
        assert np.all(out[name] >= 0), name
    occupancy = out["pool_occupancy"]
    if x.n_spares < 0:
        assert np.isnan(occupancy).all()
    else:
        assert np.all((occupancy >= 0) & (occupancy <= x.n_spares + x.n_standbys + x.n_nodes))
    # a repair entry per send that does not retire; restarts begun follow interruptions
    assert np.all(out["repairs_manual"] <= out["repairs_auto"])
    restarts = out["restarts_memory"] + out["restarts_storage"]
    assert np.all(restarts <= out["interruptions"].sum(axis=1) + out["maintenance_events"])


@pytest.mark.parametrize("name", sorted(NODE_SCENARIOS))
def test_oracle_invariants_everything_on(name):
    # conservation of nodes, a full job while exposed and pools never negative are asserted
    # inside the oracle at every move; here the accounting identity and ranges
    x = dataclasses.replace(NODE_SCENARIOS[name], draw_of_trial=np.zeros(60, dtype=np.int64))
    out = run("reference", x, seed=100)
    check_outputs(out, x)
    assert out["interruptions"].sum() > 0
    if name == "all_bad":
        assert out["nodes_excluded_good"].sum() == 0 and out["nodes_excluded_bad"].sum() > 0
    if name == "always_wrong":
        np.testing.assert_array_equal(out["wrong_blames"], out["interruptions"].sum(axis=1))
    if name == "exhausted":  # the second failure leaves a node short for good
        several = out["interruptions"][:, 0] >= 2
        assert several.sum() > 40 and not out["finished"][several].any()
        np.testing.assert_allclose(out["wall_hours"][several], x.cap_hours)
    if name == "domain_over_pool":
        assert out["lost_hours"][:, SPARE_WAIT].sum() > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NODE_SCENARIOS))
def test_kernel_matches_reference_everything_on(name):
    x = dataclasses.replace(NODE_SCENARIOS[name], draw_of_trial=np.zeros(1000, dtype=np.int64))
    fast = run("kernel", x, seed=201)  # skips until the kernel has the node model
    slow = run("reference", x, seed=200)
    check_outputs(fast, x)
    assert node_disagreements(fast, slow) == []


@pytest.mark.slow
def test_comparison_negative_control_sees_a_changed_escalation():
    # two oracle runs, one with escalate_prob 0.3 -> 0.4: the same comparison must object
    base = dataclasses.replace(NODE_SCENARIOS["all_on"], draw_of_trial=np.zeros(1000, np.int64))
    same = run("reference", base, seed=300)
    assert node_disagreements(same, run("reference", base, seed=301)) == []
    changed = run("reference", dataclasses.replace(base, escalate_prob=0.4), seed=302)
    assert any(b.startswith("repairs_manual") for b in node_disagreements(same, changed))


# ---- the node model with nothing that changes the process is today's process ------------------


@pytest.mark.slow
@pytest.mark.parametrize("spares", [-1, 0, 2])
def test_trivial_node_model_matches_the_plain_process(engine, spares):
    # n = 6 nodes, all good, memory restore as long as a restart and never refused: the same
    # process as with the node model off, in distribution (clocks per node vs one per category)
    base = feature_rich(11, n_trials=1500, n_spares=spares, cap_hours=40.0)
    node = dataclasses.replace(
        base, n_nodes=6, mem_restart_hours=float(base.restart_hours), mem_replicas=10**6
    )
    plain = run(engine, base, seed=400)
    nodes = run(engine, node, seed=401)
    assert disagreements(plain, nodes) == []
    # every restart of a finished trial is counted: from memory after a failure, from
    # storage after planned maintenance
    done = nodes["finished"]
    assert done.sum() > 100
    np.testing.assert_array_equal(
        nodes["restarts_memory"][done], nodes["interruptions"][done].sum(axis=1)
    )
    np.testing.assert_array_equal(
        nodes["restarts_storage"][done], nodes["maintenance_events"][done]
    )


def test_blast_domains_lower_to_node_counts():
    # a category's domain becomes the nodes one event takes: 1 for a node, nodes_per_rack for
    # a rack, gpus_per_pod // gpus_per_node for a pod (at least 1, where a pod is smaller than
    # a node), never more than the job's nodes
    from relmc.scenario import Category, Cluster, FailureModel, Scenario
    from relmc.sim.simulate import kernel_inputs

    cats = tuple(Category(d, rate=1e-4, unit="node", domain=d) for d in ("node", "rack", "pod"))

    def domains(**shape):
        sc = Scenario(cluster=Cluster(**shape), failures=FailureModel(cats))
        return kernel_inputs(sc, None, 1)[0].cat_domain.tolist()

    assert domains(n_gpus=16_384, nodes_per_rack=4, gpus_per_pod=256) == [1, 4, 32]
    assert domains(n_gpus=16_384, gpus_per_node=8, gpus_per_pod=4) == [1, 2, 1]
    assert domains(n_gpus=64, nodes_per_rack=16, gpus_per_pod=3072) == [1, 8, 8]  # 8 nodes
