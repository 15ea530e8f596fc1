"""Fifth round: per-draw physics rows together with per-draw overhead factors (independent side).

No new physics: the trials are the earlier rounds' independent simulators, imported, not
copied: ``indep2.Trial`` (the general path) and ``r4_indep.R4Trial`` (the node model with
stragglers and SDC, relmc's readings A1, A2, A6 of the third round). Written from the contract
(``relmc/sim/__init__.py``: "Physics parameters per draw", "Uncertain overheads"), the README
and ``relmc/scenario.py``; ``_kernels.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not
read. What this round adds is how the two per-draw inputs combine, as the contract states:

* a trial of rate draw ``d`` runs with draw ``d``'s physics rows (``r5_scen.draw_spec``) *and*
  draw ``d``'s overhead multipliers ``F[d]``, shared by every trial of the draw ("Trials that
  share a rate draw share its factors"), while the per-event jitter is fresh per occurrence;
* ``F[d, x] = exp(sigma_x Z[d, x])``, ``sigma_x = ln(k_x) / z_0.95`` (resolution 1), ``Z``
  drawn as ``draw_overhead_factors``' docstring says: standard normal rows from the stream
  ``child_seed(root, OVERHEAD_KEY)`` of the run's seed, "the first six columns for every row,
  then the rest" (`overhead_factors`, numpy only; ``OVERHEAD_KEY`` is the public constant of
  ``relmc.sim.simulate``). The earlier simulators draw a trial's factors themselves (once per
  trial, right for point rates cycled over 4,096 draws); `run_r5` with ``F`` given sets them
  instead (`set_factors`: ``delta F0``, ``min(persist F1, tau)``, ``R F2`` (and the memory
  restart, read from ``F`` by ``indep_nodes``), ``swap F3``, detection ``F4``, maintenance
  ``F5``, diagnosis ``F6``, preemption ``F7``, SDC latency ``F8``). With ``F`` None each trial
  draws its own (the mixture check of ``r5_run.py``: one relmc trial per posterior draw).

Deliberate misreadings (`R5MUT`; each must be seen by ``r5_run.py --mut``):

X1  the factors drawn afresh per trial instead of once per draw (the draw's ``F`` ignored)
X2  a draw's physics rows applied to the next draw's trials (``r5_run``: spec of draw d + 1)
X3  a draw's factors applied to the next draw's trials (``r5_run``: ``F[d + 1]``)
X4  the spread factor applied to the wrong overhead: restart and detection factors swapped
X5  the per-event jitter read as per trial (one ``Z`` per overhead kind and trial, reused by
    every occurrence)
X6  (mixture check) ``sigma = ln(k) / z_0.975`` (the 90 % range read as a 95 % one)

Nothing to run directly: ``r5_run.py`` and ``r5_fuzz.py`` use it.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes_phys as P  # noqa: E402
import r4_indep  # noqa: E402

Z95 = 1.6448536269514722
COLS = (
    "snapshot", "persist", "restart", "swap", "detection", "maintenance", "diagnosis",
    "preemption", "sdc_latency",
)  # fmt: skip
R5MUT: set[str] = set()
KNOWN = {"X1", "X2", "X3", "X4", "X5", "X6"}


def overhead_factors(spreads, n_draws, seed):
    """``F`` (n_draws, 9) from the contract and ``draw_overhead_factors``' docstring."""
    from relmc.sim.simulate import OVERHEAD_KEY

    root = np.random.SeedSequence(seed)
    child = np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (OVERHEAD_KEY,))
    rng = np.random.default_rng(child)
    z = np.concatenate([rng.standard_normal((n_draws, 6)), rng.standard_normal((n_draws, 3))], 1)
    sig = np.array([math.log((spreads or {}).get(k, 1.0)) / Z95 for k in COLS])
    return np.exp(sig * z)


def set_factors(tr, F):
    """Give trial `tr` the per-draw factors `F` (a dict over `COLS`) and what follows from them."""
    F = dict(F)
    if "X4" in R5MUT:
        F["restart"], F["detection"] = F["detection"], F["restart"]
    tr.set_factors(F)  # indep2.Trial's own, as its constructor applies the factors it draws


class _SameGauss:
    """An rng whose ``gauss`` returns one fixed standard normal (X5); the rest delegated."""

    def __init__(self, rng, z):
        self._rng, self._z = rng, z

    def gauss(self, mu=0.0, sigma=1.0):
        return mu + sigma * self._z

    def __getattr__(self, name):
        return getattr(self._rng, name)


class _R5:
    """Mixin: misreadings X5 (jitter per trial) and X6 (the 95 % reading of the range)."""

    def __init__(self, model, rng):
        super().__init__(model, rng)
        self._jz = {}
        if "X6" in R5MUT:
            sp = self.s["spreads"] or {}
            z975 = 1.959963984540054
            set_factors(
                self,
                {k: math.exp(math.log(sp.get(k, 1.0)) / z975 * rng.gauss(0, 1)) for k in COLS},
            )

    def jit(self, k, v):
        if "X5" not in R5MUT or self.jsig[k] == 0.0:
            return super().jit(k, v)
        if k not in self._jz:
            self._jz[k] = self.rng.gauss(0, 1)
        rng = self.rng
        self.rng = _SameGauss(rng, self._jz[k])
        try:
            return super().jit(k, v)
        finally:
            self.rng = rng


class GenTrial(_R5, indep2.Trial):
    """The general path (no node model)."""


class NodeTrial(_R5, r4_indep.R4Trial):
    """The node model with stragglers and SDC (relmc's readings A1, A2, A6)."""


def set_mut(muts):
    """Replace `R5MUT` by `muts` (the spec- and row-level X2, X3 act in ``r5_run``)."""
    muts = set(muts)
    assert muts <= KNOWN, muts - KNOWN
    R5MUT.clear()
    R5MUT.update(muts)


def run_r5(spec, n, seed, F=None, node=True):
    """`n` trials of `spec` from ``random.Random(seed)``; per-draw factors `F` (dict) or None."""
    P.PMUT.clear()
    P.PMUT.update(r4_indep.RELMC_READINGS)
    m = indep2.Model(spec)
    rng = random.Random(seed)
    cls = NodeTrial if node else GenTrial
    rows = []
    for _ in range(n):
        tr = cls(m, rng)
        if F is not None and "X1" not in R5MUT and "X6" not in R5MUT:
            set_factors(tr, F)
        rows.append(tr.simulate())
    return {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
