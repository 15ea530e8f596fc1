"""Fourth round: the independent node simulator with this round's deliberate misreadings.

No new physics: the simulator is ``indep_nodes_phys.PhysNodeTrial`` (third round; itself
``indep_nodes.NodeTrial`` on ``indep2.Trial``), written from the contract alone
(``_kernels.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read). This module adds
`R4Trial`, the same process unless a switch in `R4MUT` is set, and `run_r4`, which runs it
with relmc's readings A1, A2, A6 of the third round (``indep_nodes_phys.PMUT``) always on.

Per-draw physics rows with the node model need no new code: a trial of draw ``d`` "runs the
whole process above" with draw ``d``'s amplitudes, peaks, trend, bad fraction and
multipliers, so the independent side runs the spec of that draw (``r4_scen.draw_spec``).

Deliberate misreadings (`R4MUT`; each must be seen at large |z| by ``r4_run.py``):

Q2  per-draw physics with nodes: the standbys and the pool (and an unlimited pool's nodes)
    are bad with the scenario's single ``bad_fraction`` (spec key ``f_single``), only the
    job's nodes with the draw's (resolution 2 of "Physics parameters per draw" misread:
    "the node model's other inputs ... are the single values")
W1  no power step when an SDC detection stops the job while it computes
W2  no power step when a straggler's handling stops the job while it computes
W3  no power step at a straggler's arrival that is the ``max_events``-th event
W4  a straggler handled at the end of a restart makes an up and a down step (resolution 5:
    "takes no checkpoint ... and makes no power step")
O1  the restart from memory not scaled by the per-draw restart factor (contract:
    "``restart_hours F[d,2]`` (and ``mem_restart_hours F[d,2]`` when restart from memory is
    on)")
O2  no per-event jitter on a restart from memory (contract: "each restart (also one after
    a failure during a restart, and the restart from memory)")
O3  a straggler's slow phase (its ``detect_hours``) without the per-draw detection factor
    (contract: "every ``detect_hours[c] F[d,4]`` (one factor for all categories)")
O5  the per-draw persist not capped at ``tau`` (contract: ``min(persist F[d,1], tau)``)

The spec-level misreadings of ``r4_run.py`` (a draw's peak hour read as its trough, the
per-draw trend ignored, a spread left out) change the spec, not this code.

W1-W4, O1 and O2 edit one line of a method of ``indep2``, ``indep_nodes`` or
``indep_nodes_phys`` at run time (`_patch`: the method's source with one exact substring
replaced, compiled in its module's namespace and set on `R4Trial` only while the switch is
on), so the simulator itself is not copied. Nothing to run directly: ``r4_run.py`` uses it.
"""

from __future__ import annotations

import inspect
import random
import sys
import textwrap
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes  # noqa: E402
import indep_nodes_phys as P  # noqa: E402
from indep_nodes import build_relmc, relmc_table  # noqa: E402,F401

R4MUT: set[str] = set()
RELMC_READINGS = ("A1", "A2", "A6")  # the third round's readings relmc follows


def _patch(func, pairs):
    """Return `func` recompiled with each (old, new) substring replaced exactly once."""
    src = inspect.getsource(func)  # replaced as indented in the file, then dedented
    for old, new in pairs:
        assert src.count(old) == 1, (func.__qualname__, old, src.count(old))
        src = src.replace(old, new)
    src = textwrap.dedent(src)
    mod = sys.modules[func.__module__]
    ns = {}
    exec(compile(src, f"<r4 patch of {func.__qualname__}>", "exec"), mod.__dict__, ns)
    return ns[func.__name__]


def _run_patched(muts):
    """``indep2.Trial.run`` with the power-step misreadings W1-W3 (or None if none set)."""
    pairs = []
    if "W1" in muts:  # the sdcdet branch: stop_common(x) -> no step while computing
        pairs.append(
            (
                "self.st_active = None\n                pd = flush(x)\n"
                "                stop_common(x)\n",
                "self.st_active = None\n                pd = flush(x)\n"
                "                stop_common(x, stopped=False)\n",
            )
        )
    if "W2" in muts:  # the handle branch: its checkpoint stop makes no step
        pairs.append(
            (
                "self.swings += swings(x, stopped)",
                "self.swings += swings(x, stopped and not getattr(self, '_w2', False))",
            )
        )
        pairs.append(
            (
                "self.st_active = None\n                stop_checkpoint(x)\n",
                "self.st_active = None\n                self._w2 = True\n"
                "                stop_checkpoint(x)\n                self._w2 = False\n",
            )
        )
    if "W3" in muts:  # a straggler's arrival that is the last event: no step
        pairs.append(
            (
                "if self.count_event():\n                        stop_failure(x)\n"
                "                        raise Stop\n                    self.st_active = i\n",
                "if self.count_event():\n                        pd = flush(x)\n"
                "                        stop_common(x, stopped=False)\n"
                "                        self.lost['rework'] += p0 + compute_done(x) - pd\n"
                "                        self.p = pd\n"
                "                        raise Stop\n                    self.st_active = i\n",
            )
        )
    return _patch(indep2.Trial.run, pairs) if pairs else None


class R4Trial(P.PhysNodeTrial):
    """``PhysNodeTrial`` with the switches of `R4MUT` (none set: the same process)."""

    def new_node(self):
        if "Q2" in R4MUT and len(self.bad) >= self.n:
            # Q2: standbys and pool nodes at the scenario's single bad fraction
            self.bad.append(self.rng.random() < self.s.get("f_single", self.s["f"]))
            return len(self.bad) - 1
        return super().new_node()

    def det_h(self, i):
        c = self.s["cats"][i]
        if "O3" in R4MUT and c["kind"] == "straggler":
            return c["detect"]  # O3: the slow phase without the detection factor
        return super().det_h(i)


def _configure():
    """Set `R4Trial`'s patched methods from `R4MUT` (call after changing it)."""
    for name in ("run", "jit", "restart"):
        if name in R4Trial.__dict__:
            delattr(R4Trial, name)
    base = _run_patched(R4MUT)
    if base is not None:

        def run(self):
            # PhysNodeTrial.run (A6's bookkeeping) around the patched indep2.Trial.run
            self._nl0, self._in_run = self.nodes_left, True
            try:
                return base(self)
            finally:
                self._in_run = False

        R4Trial.run = run
    if "W4" in R4MUT:  # a straggler handled at a restart's end: an up and a down step
        R4Trial.restart = _patch(
            P.PhysNodeTrial.restart,
            [
                (
                    "self.st_active = None\n                    self.recovery(i, detect=False)",
                    "self.st_active = None\n                    self.swings += 2\n"
                    "                    self.recovery(i, detect=False)",
                )
            ],
        )
    if "O1" in R4MUT or "O2" in R4MUT:
        mem = 'self.s["mem_R"]' if "O1" in R4MUT else 'self.s["mem_R"] * self.F["restart"]'
        R4Trial.jit = _patch(
            indep_nodes.NodeTrial.jit,
            [
                (
                    'v = self.s["mem_R"] * self.F["restart"]',
                    ("return " if "O2" in R4MUT else "v = ") + mem,
                ),
                ("super().jit(k, v)", "indep2.Trial.jit(self, k, v)"),  # no __class__ cell
            ],
        )


def set_mut(muts):
    """Replace `R4MUT` by `muts` (an iterable of switch names) and reconfigure."""
    known = {"Q2", "W1", "W2", "W3", "W4", "O1", "O2", "O3", "O5"}
    muts = set(muts)
    assert muts <= known, muts - known
    R4MUT.clear()
    R4MUT.update(muts)
    _configure()


def run_r4(spec, n, seed):
    """Simulate `n` trials of `spec` (relmc's readings A1, A2, A6, and `R4MUT`)."""
    P.PMUT.clear()
    P.PMUT.update(RELMC_READINGS)
    m = indep2.Model(spec)
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        tr = R4Trial(m, rng)
        if "O5" in R4MUT:
            tr.persist = spec["persist"] * tr.F["persist"]  # O5: not capped at tau
        rows.append(tr.simulate())
    return {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
