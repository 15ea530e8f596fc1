"""Independent simulator: stragglers and SDC inside relmc's node model (third round).

Written from the contract (``relmc/sim/__init__.py`` docstring: "Stragglers and silent data
corruption", its resolutions 1-10, and "Nodes: ..."), the README and ``relmc/scenario.py``
only; ``_kernels.py``, ``reference.py``, ``inputs.py`` and ``tests/`` not read.
`PhysNodeTrial` extends ``indep_nodes.NodeTrial`` (itself ``indep2.Trial``: straggler and SDC
timeline, cap, max_events, jitter) so that straggler and SDC categories may run with the node
model on. The readings, quoted from the contract (resolution 10 of the stragglers' section
unless said):

R1  "straggler and SDC categories are node-domain whatever ``cat_domain`` says (one clock per
    node, ``bad_multiplier`` applies)": their job rate is Lambda_c (n - B + m_c B) /
    (n (1 - f + f m_c)) and the node struck is bad with probability m_c B / (n - B + m_c B),
    uniform within its type; a ``domain`` set on them is ignored.
R2  "never wrongly blamed (their ``diag_wrong`` is not read; their ``diag_hours`` is spent)":
    a straggler's recovery is its checkpoint, then diagnosis, then the node action; an SDC's
    is detect_hours, diagnosis, then the node action.
R3  "A straggler's node is the one it struck, recorded for lemon detection at its arrival":
    the node is drawn at the arrival (job composition then), its failure time is the arrival;
    at its handling (end of diagnosis) the lemon check uses the window of the arrival time;
    excluded if over ``lemon_k``, else swapped if ``swap[c]`` (to repair, replaced from
    standbys / pool / repairs as a failure's node), else stays.
R4  "A stop that handles a straggler 'with it' ... costs nothing extra: no node leaves, no
    repair" (resolution 6): its record (made at the arrival) stays; no check, no swap.
R5  "an SDC's node is the one the corruption struck, recorded at the detection's wall time":
    the node is drawn at the corruption (job composition then); at the detection (the moment
    the job stops for it, before ``detect_hours``) the failure time is recorded on it and the
    lemon check uses that time.
R6  "An SDC whose node left the job before detection blames no node, also if that node is
    back in the job by then": every removal from the job is counted per node; if the count
    moved since the corruption, nothing is recorded, nothing leaves (detection and
    diagnosis are still spent).
R7  "The restart after a straggler's handling or an SDC reads storage; a straggler's or a
    maintenance checkpoint resets the count of nodes left, an SDC's rollback does not": the
    straggler's or SDC's own swapped / excluded node then counts in nodes left (the
    checkpoint came before it).
R8  An SDC detection due while the job is not exposed "happens when the next restart
    begins, before any of it is spent" (resolution 9): that restart is not counted in
    restarts_memory / restarts_storage (the restart after the SDC's recovery is).

`PMUT` holds switches, empty by default (the readings R1-R8 above). Alternative readings
where the contract reads two ways; relmc's numbers agree with A1 + A2 + A6 (README.md, third
round), so the recorded comparisons run with ``--mut A1,A2,A6``:

A1  a straggler's node is recorded (with its arrival time) only when the straggler is
    handled: one handled "with" another stop leaves no record (against R3 / R4)
A1h A1, but the record carries the time the straggler's recovery begins (after its
    checkpoint), not its arrival (a check that A1's time is seen)
A2  the restart at whose beginning a deferred SDC detection happens (resolution 9) is
    counted (node resolution 8: restarts are "counted when they begin ..., also if then cut
    by the cap or interrupted"; against R8), as memory or storage by the rule of the
    recovery before it
A3  after an SDC's rollback, nodes left is the count since the rollback point became
    durable ("more than r nodes have left the job since the checkpoint it restarts from
    became durable"), not the count since the newest durable checkpoint (against R7)
A4  after an SDC's rollback no restart reads memory until a new checkpoint is durable
A5  as A4, only when the rollback skipped a retained checkpoint or went to progress 0 (A5b:
    only when it skipped one)
A6  the checkpoints of the run that an SDC detection ends reset no count of nodes left
    (the count goes on from its value at that run's beginning; against R7)
C1  (probe) an SDC's own node counted twice in nodes left

and deliberate misreadings for the negative controls:

P1  the node a straggler / SDC strikes is uniform over the job (bad multiplier ignored for
    the choice; the rate keeps it)
P2  an SDC blames its node even when that node left the job during the latency
P3  the restart after a straggler's handling or an SDC follows the failures' memory rule
P5  a ``domain`` set on a straggler / SDC is read (blast radius)
P6  an SDC's failure is recorded at the corruption's time, not the detection's

`run_phys` simulates trials; build_relmc / relmc_table are ``indep_nodes``'s. Nothing to run
directly: ``run_nodes_phys.py``, ``fuzz_nodes_phys.py``, ``rerun_nodes_phys.py`` and
``physics_nodes.py`` use it.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402
import indep_nodes  # noqa: E402
from indep2 import Stop  # noqa: E402
from indep_nodes import NODE_OUT, build_relmc, ncat, node_spec, relmc_table  # noqa: E402,F401

PMUT: set[str] = set()


class PhysNodeTrial(indep_nodes.NodeTrial):
    def __init__(self, model, rng):
        # NodeTrial.__init__ refuses straggler / SDC kinds: its body, without that assert
        indep2.Trial.__init__(self, model, rng)
        s = self.s
        self.n = math.ceil(s["n_gpus"] / s["gpus_per_node"])
        n = self.n
        self.bad = []
        self.fails = {}
        self.sends = {}
        self.job = [self.new_node() for _ in range(n)]
        self.standbys = [self.new_node() for _ in range(s["n_standbys"])]
        self.unlimited = s["n_spares"] is None
        self.pool = [] if self.unlimited else [self.new_node() for _ in range(s["n_spares"])]
        self.heap = []
        self.seq = 0
        self.cnt = {k: 0 for k in NODE_OUT}
        self.pool_int = 0.0
        self.pool_t = 0.0
        rack = min(s["nodes_per_rack"], n)
        pod = min(max(1, s["gpus_per_pod"] // s["gpus_per_node"]), n)
        self.dom = []
        for c in s["cats"]:
            d = dict(node=1, rack=rack, pod=pod)[c["domain"]]
            if c["kind"] != "failure" and "P5" not in PMUT:
                d = 1  # R1: node-domain whatever cat_domain says
            self.dom.append(d)
        self.mult = [c["mult"] if c["mult"] is not None else s["m"] for c in s["cats"]]
        self.nodes_left = 0
        self.next_mem = False
        self.leaves = {}  # node id -> times it left the job (R6)
        self.leave_times = []  # wall time of every node's leaving (A3)
        self.st_node = None  # (node, arrival time) of the active straggler
        self.sdc_node = None  # (node, leaves count at corruption, corruption time)
        self._nl0, self._in_run = 0, False

    # ---- which node an event strikes -----------------------------------------------------
    def strike(self, i):
        """Node struck by a node-domain event of category i (bad w.p. m B / (n - B + m B))."""
        m = self.mult[i]
        badj = [j for j in self.job if self.bad[j]]
        good = [j for j in self.job if not self.bad[j]]
        B = len(badj)
        pb = m * B / (self.n - B + m * B)
        if "M7" in indep2.MUT or ("P1" in PMUT and self.s["cats"][i]["kind"] != "failure"):
            pb = B / self.n
        return self.rng.choice(badj) if self.rng.random() < pb else self.rng.choice(good)

    def next_arrival(self, t, t_limit):
        arr = super().next_arrival(t, t_limit)
        if arr is not None and arr[1] >= 0 and self.s["cats"][arr[1]]["kind"] == "straggler":
            # every arrival returned is processed at once by indep2's run() / restart()
            if self.dom[arr[1]] > 1:  # P5 only
                self.st_node = (None, arr[0])
            else:
                j = self.strike(arr[1])
                if "A1" not in PMUT and "A1h" not in PMUT:
                    self.fails.setdefault(j, []).append(arr[0])  # R3: recorded at its arrival
                self.st_node = (j, arr[0])
        return arr

    def sdc_detect(self, P):
        r0, s0 = self.sdc_rollbacks, self.sdc_from_scratch
        i = super().sdc_detect(P)
        skipped = self.sdc_rollbacks > r0
        scratch = self.sdc_from_scratch > s0
        if ("A5" in PMUT and (skipped or scratch)) or ("A5b" in PMUT and skipped):
            self.nodes_left = 10**9  # A5: the rollback point is not the checkpoint in memory
        if "A6" in PMUT and self._in_run:
            self.nodes_left = self._nl0  # A6: this run's durable checkpoints reset nothing
        if "A4" in PMUT:
            self.nodes_left = 10**9  # A4: no memory copy until a new checkpoint is durable
        if "A3" in PMUT:
            # A3: nodes left counted since the rollback point's checkpoint (its snapshot's
            # beginning; the job's start for a rollback to 0), not since the newest one
            tb = self.retained[-1][0] if self.retained else 0.0
            self.nodes_left = sum(1 for x in self.leave_times if x > tb)
        return i

    def run(self):
        self._nl0, self._in_run = self.nodes_left, True
        try:
            return super().run()
        finally:
            self._in_run = False

    def sdc_arrive(self, i, p_c):
        super().sdc_arrive(i, p_c)
        j = self.strike(i) if self.dom[i] == 1 else None
        self.sdc_node = (j, self.leaves.get(j, 0), self.t)

    # ---- recovery ------------------------------------------------------------------------
    def lemon_check(self, j, t):
        k = self.s["lemon_k"]
        fl = self.fails.get(j, [])
        return k >= 1 and sum(1 for x in fl if t - self.s["lemon_win"] < x <= t) >= k

    def recovery(self, i, detect=True):
        s = self.s
        c = s["cats"][i]
        kind = c["kind"]
        t_f = self.t  # failure time; for an SDC the detection's wall time
        if detect:
            self.pause("detection", self.jit("detection", self.det_h(i)))
        self.pause("diagnosis", c["diag"] * self.F["diagnosis"])
        leave_repair = []
        excluded = []
        d = self.dom[i]
        if d > 1:
            leave_repair = self.rng.sample(self.job, d)
        else:
            blamed, t_rec = None, t_f
            if kind == "failure":
                assert detect
                struck = self.strike(i)
                blamed = struck
                if self.n > 1 and self.rng.random() < c["wrong"]:
                    blamed = self.rng.choice([j for j in self.job if j != struck])
                    self.cnt["wrong_blames"] += 1
                self.fails.setdefault(blamed, []).append(t_f)
            elif kind == "straggler":
                assert not detect
                blamed, t_rec = self.st_node  # R3: recorded at the arrival already
                self.st_node = None
                if "A1h" in PMUT and blamed is not None:  # A1h: A1 at the handling's time
                    t_rec = t_f
                if ("A1" in PMUT or "A1h" in PMUT) and blamed is not None:
                    self.fails.setdefault(blamed, []).append(t_rec)  # A1: recorded when handled
            else:  # sdc
                assert detect
                j, lv, t_c = self.sdc_node
                self.sdc_node = None
                if self.leaves.get(j, 0) == lv or "P2" in PMUT:  # R6
                    blamed = j
                    if "P6" in PMUT:
                        t_rec = t_c
                    self.fails.setdefault(j, []).append(t_rec)  # R5
            if blamed is not None and blamed in self.job:
                if self.lemon_check(blamed, t_rec):
                    excluded = [blamed]
                    kx = "nodes_excluded_bad" if self.bad[blamed] else "nodes_excluded_good"
                    self.cnt[kx] += 1
                elif c["swap"]:
                    leave_repair = [blamed]
        need = len(leave_repair) + len(excluded)
        self.nodes_left += need
        if "C1" in PMUT and kind == "sdc":
            self.nodes_left += need  # C1 (probe): an SDC's node counted twice
        if kind == "failure" or "P3" in PMUT:
            self.next_mem = d == 1 and self.nodes_left <= s["mem_r"]
        else:
            self.next_mem = False  # R7
        if need == 0:
            return
        self.advance_repairs(self.t)
        for j in leave_repair + excluded:
            self.job.remove(j)
            self.leaves[j] = self.leaves.get(j, 0) + 1
            self.leave_times.append(self.t)
        for j in leave_repair:
            self.send(j, self.t)
        got = 0
        from_pool = False
        while got < need and self.standbys:
            self.job.append(self.standbys.pop(self.rng.randrange(len(self.standbys))))
            self.cnt["standby_swaps"] += 1
            got += 1
        while got < need and self.pool_has():
            self.job.append(self.take_pool())
            from_pool = True
            got += 1
        while len(self.standbys) < s["n_standbys"] and self.pool_has():
            self.standbys.append(self.take_pool())
        self.mark(self.t)
        while got < need:
            from_pool = True
            if not self.heap:
                self.pause("spare_wait", self.cap - self.t + 1.0)  # waits to the cap
            end = self.heap[0][0]
            self.pause("spare_wait", end - self.t)
            j = self.pop_repair()
            if j is not None:
                self.job.append(j)
                got += 1
        if from_pool:
            self.pause("preemption", s["preempt_h"] * self.F["preemption"])
            self.pause("node_swap", self.jit("swap", self.swap_h))

    def restart(self):
        """indep2.Trial.restart (copied), plus the alternative reading A2 (see PMUT)."""
        s = self.s
        while True:
            if self.latent is not None and self.latent[2] <= self.t:
                if "A2" in PMUT:  # A2: the restart it interrupts at its beginning counts
                    if self.s["mem_R"] is not None and self.next_mem:
                        self.cnt["restarts_memory"] += 1
                    else:
                        self.cnt["restarts_storage"] += 1
                i = self.sdc_detect(self.p)
                self.st_active = None
                if self.count_event():
                    raise Stop
                self.recovery(i)
                continue
            t0 = self.t
            Rj = self.jit("restart", self.R)
            t_end = t0 + Rj
            while True:
                lim = min(t_end, self.cap)
                det = self.latent is not None and self.latent[2] <= lim
                if det:
                    lim = self.latent[2]
                arr = self.next_arrival(self.t, lim)
                if arr is not None:
                    ta, i = arr
                    self.t = ta
                    if i == -1:  # planned maintenance in a restart
                        self.lost["restart"] += ta - t0
                        self.maint_events += 1
                        self.st_active = None
                        if self.count_event():
                            raise Stop
                        self.pause("maintenance", self.jit("maintenance", self.maint_h))
                        break
                    k = s["cats"][i]["kind"]
                    if k == "failure":
                        self.lost["restart"] += ta - t0
                        self.inter[i] += 1
                        self.st_active = None
                        if self.count_event():
                            raise Stop
                        self.recovery(i)
                        break
                    if k == "straggler":
                        self.inter[i] += 1
                        self.st_active = i
                        self.st_handle = ta + self.jit("detection", self.det_h(i))
                        if self.count_event():
                            self.lost["restart"] += ta - t0
                            raise Stop
                        continue
                    if k == "sdc":
                        self.sdc_arrive(i, self.p)
                        continue
                    raise AssertionError
                if det:
                    self.t = lim
                    self.lost["restart"] += lim - t0
                    i = self.sdc_detect(self.p)
                    self.st_active = None
                    if self.count_event():
                        raise Stop
                    self.recovery(i)
                    break
                if t_end > self.cap:
                    self.lost["restart"] += self.cap - t0
                    self.t = self.cap
                    raise Stop
                # restart complete
                self.t = t_end
                self.lost["restart"] += Rj
                if self.st_active is not None and self.st_handle <= self.t:
                    i = self.st_active
                    self.st_active = None
                    self.recovery(i, detect=False)
                    break
                return


def run_phys(spec, n, seed):
    m = indep2.Model(spec)
    rng = random.Random(seed)
    rows = [PhysNodeTrial(m, rng).simulate() for _ in range(n)]
    return {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}


def run_indep(spec, n, seed):  # the name compare2.compare looks for
    return run_phys(spec, n, seed)
