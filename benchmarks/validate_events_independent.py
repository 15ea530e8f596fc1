r"""The event-log models against an independently written generator (not run in CI, except item 1).

``relmc.events.synthetic_events`` and ``relmc.models.fit_events`` were written together; a
mistake they shared (the diurnal phase, the trend's parametrisation, the "rate at the window's
end" convention, the lemon normalisation, the gpu/node units) would leave recovery perfect.
This script draws logs by a second generator, written from the documented formulas only
(README "Event logs"; the module docstring of :mod:`relmc.events`), by a different exact
method, and checks:

1. *Agreement without a fit*: both generators against closed forms of the documented process
   (counts per category: mean and variance; the hour of day of events: chi-square; the event
   times within the window: KS; per-node counts: variance and cross-category covariance; the
   share of events on bad nodes), with a negative control per family.
2. *Recovery*: the full model (``diurnal="category", trend=True, nodes="mixture"``, the
   options and sampling of ``benchmarks/validate_events.py``) fitted to independent logs; 90%
   coverage per parameter.
3. *A misspecification*: a node is down (no events) for a fixed repair time after each of
   its failures, while the model assumes continuous exposure; the bias of the posterior
   medians.

The process (documented): node ``i`` fails in category ``c`` as a Poisson process of intensity

.. math::

    \lambda_{ic}(t) = k_c \rho_c W_{ic} (1 + a_c \cos(2\pi(h_0 + t - \phi_c)/24))
    ((A + t)/(A + D))^{\beta - 1},

``k_c`` the category's units per node (8 for ``gpu``, 1 for ``node``), ``W`` = ``1/(1 - f + f
m_c)`` on a good node and ``m_c/(1 - f + f m_c)`` on a bad one (each node bad with probability
``f``), or a gamma frailty of mean 1 and variance ``v`` shared by the node's categories.

How this generator differs from relmc's: relmc thins one homogeneous candidate process per
category for the whole fleet and then hands each kept event to a node (bad with probability
``m B / (n - B + m B)``), using its closed-form ``intensity_shape``. Here each node's process
is drawn separately by a time change: cumulative sums of unit exponentials, divided by the
node's rate, mapped through the inverse of the integrated shape, which is computed by 8-point
Gauss-Legendre quadrature on quarter-hour cells and inverted by a vectorised bisection; the
node types and frailties come from their own streams; nothing of :mod:`relmc.events` is used
except :func:`relmc.load_events` to turn the rows into the schema the fits read.

Usage::

    PYTHONPATH=. python benchmarks/validate_events_independent.py agree [--logs 400]
    PYTHONPATH=. python benchmarks/validate_events_independent.py recover [--reps 20]
    PYTHONPATH=. python benchmarks/validate_events_independent.py repair [--reps 10] [--hours 72]

``recover`` and ``repair`` append one JSON line per replication to
``benchmarks/validate_events_independent_{recover,repair}.jsonl`` (a rerun skips the
replications there) and print a Markdown table.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent
#: Units of each exposure unit on one node (the documented packing: 8 GPUs per node).
UNITS_PER_NODE = {"gpu": 8, "node": 1}
GPUS_PER_NODE = 8


def _load_validate_events():
    """``benchmarks/validate_events.py`` as a module (importing it does not import PyMC)."""
    spec = importlib.util.spec_from_file_location("validate_events", HERE / "validate_events.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


#: The clear design of ``benchmarks/validate_events.py`` (its TRUTH as loaded, before any
#: other design is set there).
TRUTH = copy.deepcopy(_load_validate_events().TRUTH)
#: A second design: no lemons, a gamma frailty of variance 0.5, one pooled daily cycle, the
#: window starting at 07:30 (so the start hour is exercised too).
FRAILTY_POOLED = {
    **TRUTH,
    "start_hour": 7.5,
    "diurnal_amplitude": {"GPU": 0.4, "Host": 0.4},
    "diurnal_peak_hour": {"GPU": 14.0, "Host": 14.0},
    "bad_node_fraction": 0.0,
    "bad_node_multiplier": 1.0,
    "frailty_variance": 0.5,
}


def _per_cat(value, names):
    if isinstance(value, dict):
        return np.array([float(value[c]) for c in names])
    return np.full(len(names), float(value))


class Design:
    """The documented process's parameters, as arrays over categories."""

    def __init__(self, truth):
        self.truth = truth
        self.names = list(truth["rate"])
        self.rate = _per_cat(truth["rate"], self.names)
        self.k = np.array([UNITS_PER_NODE[truth["units"][c]] for c in self.names], dtype=float)
        n_gpus = int(truth["n_gpus"])
        if n_gpus % GPUS_PER_NODE:
            raise ValueError("this generator wants whole nodes")
        self.n_nodes = n_gpus // GPUS_PER_NODE
        self.duration = float(truth["duration_hours"])
        self.h0 = float(truth["start_hour"])
        self.amp = _per_cat(truth["diurnal_amplitude"], self.names)
        self.peak = _per_cat(truth["diurnal_peak_hour"], self.names)
        self.beta = float(truth["trend_shape"])
        self.age = float(truth["fleet_age_at_start_hours"])
        self.f = float(truth.get("bad_node_fraction", 0.0))
        self.m = _per_cat(truth.get("bad_node_multiplier", 1.0), self.names)
        self.v = float(truth.get("frailty_variance", 0.0))
        self.cum = [Cumulative(self, c) for c in range(len(self.names))]

    def shape(self, c, t):
        """Relative intensity of category ``c`` at ``t`` hours since the start: 1 at the daily
        mean at the window's end."""
        hour = self.h0 + t
        day = 1.0 + self.amp[c] * np.cos(2.0 * np.pi * (hour - self.peak[c]) / 24.0)
        return day * ((self.age + t) / (self.age + self.duration)) ** (self.beta - 1.0)

    def weights(self):
        """Covariance matrix across categories of a node's multiplier W (E W = 1 by the
        normalisation)."""
        if self.v > 0:
            cov = np.full((len(self.names), len(self.names)), self.v)
            return cov
        norm = 1.0 - self.f + self.f * self.m
        dev = (self.m - 1.0) / norm  # W_bad - W_good
        return self.f * (1.0 - self.f) * np.outer(dev, dev)


class Cumulative:
    """Integrated shape of one category, ``L(t) = int_0^t shape``, and its inverse."""

    NODES, WEIGHTS = np.polynomial.legendre.leggauss(8)

    def __init__(self, design, c, cell=0.25):
        self.design, self.c = design, c
        n = int(np.ceil(design.duration / cell))
        self.edges = np.linspace(0.0, design.duration, n + 1)
        parts = self._quad(self.edges[:-1], self.edges[1:])
        self.table = np.concatenate([[0.0], np.cumsum(parts)])
        self.total = float(self.table[-1])

    def _quad(self, a, b):
        a, b = np.asarray(a, float), np.asarray(b, float)
        mid, half = (a + b) / 2, (b - a) / 2
        x = mid[..., None] + half[..., None] * self.NODES
        return half * (self.design.shape(self.c, x) @ self.WEIGHTS)

    def __call__(self, t):
        t = np.clip(np.asarray(t, float), 0.0, self.design.duration)
        k = np.clip(np.searchsorted(self.edges, t, side="right") - 1, 0, self.edges.size - 2)
        return self.table[k] + self._quad(self.edges[k], t)

    def inverse(self, y, iterations=40):
        """``t`` with ``L(t) = y`` (vectorised bisection within the cell the table brackets)."""
        y = np.asarray(y, float)
        k = np.clip(np.searchsorted(self.table, y, side="right") - 1, 0, self.edges.size - 2)
        lo, hi = self.edges[k].copy(), self.edges[k + 1].copy()
        target = y - self.table[k]
        for _ in range(iterations):
            mid = (lo + hi) / 2
            below = self._quad(self.edges[k], mid) < target
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        return (lo + hi) / 2


def draw(design, rng, *, normalise=True, repair_hours=0.0):
    """One log of the documented process, by a time change per node.

    Returns a dict: ``time`` (hours), ``category`` (index), ``node`` (index) of each event,
    ``bad`` (per node) and ``weight`` (per node and category). ``normalise=False`` drops the
    lemon normalisation (a negative control); ``repair_hours > 0`` takes a node out of service
    for that long after each of its events (any category): the events it would have had then
    are deleted, which by the independent increments of a Poisson process is exactly a node
    that resumes after its repair.
    """
    types, frail, events = rng.spawn(3)
    n, ncat = design.n_nodes, len(design.names)
    bad = types.random(n) < design.f
    if design.v > 0:
        w = np.repeat(frail.gamma(1.0 / design.v, design.v, size=n)[:, None], ncat, axis=1)
    else:
        norm = (1.0 - design.f + design.f * design.m) if normalise else np.ones(ncat)
        w = np.where(bad[:, None], design.m / norm, 1.0 / norm)
    times, cats, nodes = [], [], []
    for c in range(ncat):
        per_node = design.k[c] * design.rate[c] * w[:, c]  # per hour at shape 1
        bound = per_node * design.cum[c].total  # each node's expected count
        if not np.any(bound > 0):
            continue
        width = int(np.ceil(bound.max() + 8 * np.sqrt(bound.max()) + 10))
        arrivals = np.cumsum(events.exponential(size=(n, width)), axis=1)
        while np.any(arrivals[:, -1] <= bound):  # rare: extend every row exactly
            more = np.cumsum(events.exponential(size=(n, width)), axis=1)
            arrivals = np.concatenate([arrivals, arrivals[:, -1:] + more], axis=1)
        node, _ = np.nonzero(arrivals <= bound[:, None])
        y = arrivals[arrivals <= bound[:, None]] / per_node[node]
        times.append(design.cum[c].inverse(y))
        cats.append(np.full(node.size, c))
        nodes.append(node)
    t, cat, node = (np.concatenate(x) if x else np.zeros(0) for x in (times, cats, nodes))
    cat, node = cat.astype(int), node.astype(int)
    if repair_hours > 0 and t.size:
        order = np.lexsort((t, node))
        t, cat, node = t[order], cat[order], node[order]
        keep = np.ones(t.size, bool)
        back = -np.inf
        for i in range(t.size):
            if i and node[i] != node[i - 1]:
                back = -np.inf
            if t[i] < back:
                keep[i] = False
            else:
                back = t[i] + repair_hours
        t, cat, node = t[keep], cat[keep], node[keep]
    return {"time": t, "category": cat, "node": node, "bad": bad, "weight": w}


def to_dataset(design, log, name="independent"):
    """The log as rows read by :func:`relmc.load_events` (the schema ``fit_events`` takes)."""
    from relmc import load_events

    columns = {
        "time": log["time"],
        "category": np.asarray(design.names)[log["category"]],
        "node": np.array([f"n{i:05d}" for i in log["node"]]),
    }
    return load_events(
        columns,
        n_gpus=int(design.truth["n_gpus"]),
        end=design.duration,
        start_hour=design.h0,
        fleet_age_at_start_hours=design.age,
        units=dict(design.truth["units"]),
        name=name,
    )


def from_relmc(design, ds):
    """A ``synthetic_events`` log as the dict of :func:`draw` (bad nodes rebuilt from the seed
    record: child 0 of the root draws the node types, one uniform per node)."""
    from relmc._seed import child_seed, seed_from_attrs

    index = {c: i for i, c in enumerate(design.names)}
    cat = np.array([index[c] for c in ds["event_category"].values], dtype=int)
    node = np.array([int(s[1:]) for s in ds["event_node"].values], dtype=int)
    root = seed_from_attrs(ds.attrs)
    bad = np.random.default_rng(child_seed(root, 0)).random(design.n_nodes) < design.f
    if int(bad.sum()) != int(ds.attrs["n_bad_nodes"]):
        raise AssertionError("bad nodes rebuilt from the seed disagree with n_bad_nodes")
    return {"time": ds["event_time"].values, "category": cat, "node": node, "bad": bad}


def relmc_logs(design, n_logs, seed):
    """``n_logs`` logs from ``relmc.events.synthetic_events`` at the design's truth."""
    from relmc.events import synthetic_events

    kw = {k: v for k, v in design.truth.items()}
    kw.setdefault("frailty_variance", 0.0)
    seeds = np.random.SeedSequence(seed).spawn(n_logs)
    return [from_relmc(design, synthetic_events(**kw, seed=s)) for s in seeds]


def independent_logs(design, n_logs, seed, **kw):
    """``n_logs`` logs from :func:`draw`."""
    return [
        draw(design, np.random.default_rng(s), **kw)
        for s in np.random.SeedSequence(seed).spawn(n_logs)
    ]


# --------------------------------------------------------------------------------------------
# closed forms and the agreement checks


def expected(design):
    """Closed forms of the documented process: per category the mean and variance of a log's
    count, a node's count mean, the node-count covariance matrix across categories, and the
    expected share of events on bad nodes."""
    mu_node = design.k * design.rate * np.array([c.total for c in design.cum])
    cov_w = design.weights()
    node_cov = np.outer(mu_node, mu_node) * cov_w + np.diag(mu_node)
    n = design.n_nodes
    out = {
        "count_mean": n * mu_node,
        "count_var": n * np.diag(node_cov),
        "node_mean": mu_node,
        "node_cov": node_cov,
    }
    if design.f > 0:
        b = np.arange(n + 1)
        pmf = stats.binom.pmf(b, n, design.f)
        share = []
        for m in design.m:  # given B bad nodes, an event is on one w.p. mB/(n - B + mB)
            share.append(float(pmf @ (m * b / (n - b + m * b))))
        out["bad_share"] = np.array(share)
    return out


def hour_probabilities(design, c):
    """P(an event of category ``c`` falls in hour of day 0..23), from the integrated shape."""
    first = np.ceil(design.h0) - design.h0
    cuts = np.concatenate([[0.0], np.arange(first, design.duration, 1.0), [design.duration]])
    cuts = np.unique(cuts)
    mass = np.diff(design.cum[c](cuts))
    hour = np.floor(design.h0 + (cuts[:-1] + cuts[1:]) / 2).astype(int) % 24
    return np.bincount(hour, weights=mass, minlength=24) / design.cum[c].total


def _z_mean(x, target):
    x = np.asarray(x, float)
    return (x.mean() - target) / (x.std(ddof=1) / np.sqrt(x.size))


def _z_var(x, target):
    """(sample variance - target) / its SE (from the sample's fourth moment)."""
    x = np.asarray(x, float)
    n, s2 = x.size, x.var(ddof=1)
    m4 = np.mean((x - x.mean()) ** 4)
    se = np.sqrt(max(m4 - s2**2 * (n - 3) / (n - 1), 1e-300) / n)
    return (s2 - target) / se


#: Tolerances: |z| <= Z for means, variances, covariances and shares (4 SE: a two-sided
#: normal tail of 6e-5 per check); p >= P for chi-square and KS (the same order of tail).
Z, P = 4.0, 1e-4


def agreement(design, logs):
    """Every check of the logs against the design's closed forms: {name: (statistic, ok)};
    statistics are z scores (ok: |z| <= Z) or p values (ok: p >= P)."""
    ex = expected(design)
    ncat, n = len(design.names), design.n_nodes
    counts = np.array([np.bincount(g["category"], minlength=ncat) for g in logs])
    res = {}
    for c, name in enumerate(design.names):
        z = _z_mean(counts[:, c], ex["count_mean"][c])
        res[f"count mean [{name}]"] = ("z", z, abs(z) <= Z)
        z = _z_var(counts[:, c], ex["count_var"][c])
        res[f"count variance [{name}]"] = ("z", z, abs(z) <= Z)
        t = np.concatenate([g["time"][g["category"] == c] for g in logs])
        hist = np.bincount(np.floor(design.h0 + t).astype(int) % 24, minlength=24)
        p = stats.chisquare(hist, hist.sum() * hour_probabilities(design, c)).pvalue
        res[f"hour of day chi2 [{name}]"] = ("p", p, p >= P)
        total = design.cum[c].total
        p = stats.kstest(t, lambda x, c=c, total=total: design.cum[c](x) / total).pvalue
        res[f"time in window KS [{name}]"] = ("p", p, p >= P)
    # per-node counts: variance per category and covariance across categories, per log
    per_node = np.array(
        [
            np.bincount(g["node"] * ncat + g["category"], minlength=n * ncat).reshape(n, ncat)
            for g in logs
        ]
    )
    for c, name in enumerate(design.names):
        v = per_node[:, :, c].var(axis=1, ddof=1)  # unbiased for the node-count variance
        z = _z_mean(v, ex["node_cov"][c, c])
        res[
            f"node-count variance [{name}] (index {ex['node_cov'][c, c] / ex['node_mean'][c]:.2f})"
        ] = ("z", z, abs(z) <= Z)
    if ncat > 1:
        cov = [np.cov(x[:, 0], x[:, 1])[0, 1] for x in per_node]
        z = _z_mean(cov, ex["node_cov"][0, 1])
        res[f"node-count covariance [{design.names[0]}, {design.names[1]}]"] = ("z", z, abs(z) <= Z)
    if "bad_share" in ex:
        for c, name in enumerate(design.names):
            share = [g["bad"][g["node"][g["category"] == c]].mean() for g in logs]
            z = _z_mean(share, ex["bad_share"][c])
            res[f"share on bad nodes [{name}]"] = ("z", z, abs(z) <= Z)
        # given the bad nodes drawn, a log's count is Poisson with mean
        # n mu (n - B + m B) / (n (1 - f + f m)): the rates without the noise of B
        bad = np.array([g["bad"].sum() for g in logs])
        for c, name in enumerate(design.names):
            norm = 1.0 - design.f + design.f * design.m[c]
            mean = ex["node_mean"][c] * (n - bad + design.m[c] * bad) / norm
            z = (counts[:, c].sum() - mean.sum()) / np.sqrt(mean.sum())
            res[f"count given bad nodes [{name}]"] = ("z", z, abs(z) <= Z)
    return res


#: Negative controls: (label, truth changes, draw options, the check family that must fail).
CONTROLS = [
    ("peak hour +3 h", {"diurnal_peak_hour": {"GPU": 18.0, "Host": 7.0}}, {}, "hour of day"),
    ("trend shape 0.6", {"trend_shape": 0.6}, {}, "time in window"),
    ("lemon normalisation dropped", {}, {"normalise": False}, "count mean"),
    (
        "rate read at the window's start",
        {"rate": {c: r * (300.0 / 1740.0) ** -0.5 for c, r in TRUTH["rate"].items()}},
        {},
        "count mean",
    ),
    (
        "gpu category per node, not per GPU",
        {"units": {"GPU": "node", "Host": "node"}},
        {},
        "count mean [GPU]",
    ),
    ("multiplier 4, normalised (dispersion)", {"bad_node_multiplier": 4.0}, {}, "node-count"),
    ("multiplier 4, normalised (share)", {"bad_node_multiplier": 4.0}, {}, "share on bad nodes"),
]


def control(truth, changes, options, n_logs, seed):
    """Agreement of logs drawn at a perturbed truth with the closed forms of ``truth``."""
    perturbed = Design({**copy.deepcopy(truth), **changes})
    logs = independent_logs(perturbed, n_logs, seed, **options)
    return agreement(Design(truth), logs)


def detected(res, family):
    """Whether some check of ``family`` failed."""
    return any(not ok for name, (_, _, ok) in res.items() if name.startswith(family))


def _table(rows):
    lines = ["| check | statistic | relmc | independent | tolerance |", "|---|---|---|---|---|"]
    for name, (kind, a, oka), (_, b, okb) in rows:
        tol = f"|z| <= {Z:g}" if kind == "z" else f"p >= {P:g}"
        fmt = (lambda x: f"{x:+.2f}") if kind == "z" else (lambda x: f"{x:.3g}")
        lines.append(
            f"| {name} | {kind} | {fmt(a)}{'' if oka else ' FAIL'} "
            f"| {fmt(b)}{'' if okb else ' FAIL'} | {tol} |"
        )
    return "\n".join(lines)


def run_agreement(n_logs, seed):
    ok = True
    out = []
    for label, truth in (
        ("clear (validate_events TRUTH)", TRUTH),
        ("frailty 0.5, pooled cycle, start 07:30", FRAILTY_POOLED),
    ):
        design = Design(truth)
        t0 = time.perf_counter()
        a = agreement(design, relmc_logs(design, n_logs, seed * 100 + 1))
        b = agreement(design, independent_logs(design, n_logs, seed * 100 + 2))
        ok &= all(v[2] for v in a.values()) and all(v[2] for v in b.values())
        out += [
            f"### {label}: {n_logs} logs per generator ({time.perf_counter() - t0:.0f} s)",
            "",
            _table([(k, a[k], b[k]) for k in a]),
            "",
        ]
    out += [
        "### Negative controls (independent generator, perturbed; checked against the clear truth)",
        "",
        "| perturbation | family that must fail | failed | its statistics |",
        "|---|---|---|---|",
    ]
    for i, (label, changes, options, family) in enumerate(CONTROLS):
        res = control(TRUTH, changes, options, n_logs, seed * 100 + 10 + i)
        hit = detected(res, family)
        ok &= hit
        stat = "; ".join(f"{k}: {v[0]} {v[1]:.3g}" for k, v in res.items() if k.startswith(family))
        out.append(f"| {label} | {family} | {'yes' if hit else 'NO'} | {stat} |")
    return "\n".join(out), ok


# --------------------------------------------------------------------------------------------
# fits


def _validate_events():
    mod = _load_validate_events()
    mod.use_design("clear")
    return mod


def fit_rows(mode, reps, seed, repair_hours, out):
    import warnings

    from relmc.models import ConvergenceWarning, fit_events

    ve = _validate_events()
    design = Design(TRUTH)
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[row["rep"]] = row
    for rep in range(reps):
        if rep in done:
            continue
        log = draw(
            design,
            np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(rep, 0))),
            repair_hours=repair_hours,
        )
        events = to_dataset(design, log)
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            fit = fit_events(
                events,
                seed=np.random.SeedSequence(seed, spawn_key=(rep, 1)),
                **ve.MODEL,
                **ve.SAMPLING,
            )
        params = ve.parameters(fit)
        row = {
            "rep": rep,
            "mode": mode,
            "repair_hours": repair_hours,
            "events": int(log["time"].size),
            "bad_nodes": int(log["bad"].sum()),
            "covered": {n: ve.covered(d, t, c) for n, d, t, c in params},
            "median": {n: float(np.median(_centre(d, t, c))) for n, d, t, c in params},
            "sd": {n: float(np.std(_centre(d, t, c))) for n, d, t, c in params},
            "truth": {n: float(t) for n, d, t, c in params},
            "divergences": int(fit.sample_stats["diverging"].sum()),
            "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning) for w in caught),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        with out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        done[rep] = row
        print(f"{mode} rep {rep}: {row['events']} events, {row['seconds']} s", flush=True)
    return [done[r] for r in sorted(done) if r < reps], ve


def _centre(draws, truth, circular):
    """Draws, the peak hour as its wrapped value nearest the truth."""
    if circular:
        return truth + np.mod(draws - truth + 12.0, 24.0) - 12.0
    return draws


def coverage_table(rows, ve):
    n = len(rows)
    lo, hi = ve.binomial_range(n)
    lines = [
        f"{n} replications; tolerance: covered count in [{lo}, {hi}] "
        f"(central 99% of Binomial({n}, 0.9))",
        "",
        "| parameter | truth | covered | in tolerance | mean posterior median |",
        "|---|---|---|---|---|",
    ]
    for name in rows[0]["covered"]:
        k = sum(r["covered"][name] for r in rows)
        med = np.mean([r["median"][name] for r in rows])
        lines.append(
            f"| {name} | {rows[0]['truth'][name]:g} | {k}/{n} "
            f"| {'yes' if lo <= k <= hi else 'NO'} | {med:.4g} |"
        )
    div = sum(r["divergences"] for r in rows)
    warn = sum(r["convergence_warnings"] > 0 for r in rows)
    lines.append("")
    lines.append(
        f"Events per log: median {int(np.median([r['events'] for r in rows]))}; {div} divergent "
        f"transitions; {warn} fits warned; "
        f"median {np.median([r['seconds'] for r in rows]):.0f} s per fit."
    )
    return "\n".join(lines)


def bias_table(rows):
    n = len(rows)
    lines = [
        f"{n} replications, repair time {rows[0]['repair_hours']:g} h",
        "",
        "| parameter | truth | mean posterior median | bias (%) | bias / posterior SD | covered |",
        "|---|---|---|---|---|---|",
    ]
    for name in rows[0]["covered"]:
        truth = rows[0]["truth"][name]
        med = np.array([r["median"][name] for r in rows])
        sd = np.array([r["sd"][name] for r in rows])
        bias = med - truth
        pct = (
            f"{100 * bias.mean() / truth:+.1f}" if "peak" not in name else f"({bias.mean():+.2f} h)"
        )
        se = bias.std(ddof=1) / np.sqrt(n)
        k = sum(r["covered"][name] for r in rows)
        lines.append(
            f"| {name} | {truth:g} | {med.mean():.4g} (SE {se:.2g}) | {pct} "
            f"| {np.mean(bias / sd):+.2f} | {k}/{n} |"
        )
    lines.append("")
    lines.append(f"Events per log: median {int(np.median([r['events'] for r in rows]))}.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["agree", "recover", "repair"])
    ap.add_argument("--logs", type=int, default=400)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--hours", type=float, default=72.0)
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args()
    if args.what == "agree":
        text, ok = run_agreement(args.logs, args.seed)
        print(text)
        return 0 if ok else 1
    hours = args.hours if args.what == "repair" else 0.0
    out = HERE / f"validate_events_independent_{args.what}.jsonl"
    rows, ve = fit_rows(args.what, args.reps, args.seed + (1 if hours else 0), hours, out)
    print(coverage_table(rows, ve) if args.what == "recover" else bias_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
