"""Independent simulator of a subset of relmc's node model (relmc.sim docstring, "Nodes").

Written from the contract, the README ("Nodes: ...") and the scenario.py docstrings only.
`NodeTrial` extends ``indep2.Trial`` (exact cap, max_events, overhead jitter) with explicit
node objects: bad ("lemon") nodes with a per-category multiplier, blast-radius domains (rack,
pod), detection then diagnosis, wrong blame, lemon detection and exclusion, standbys,
preemption, a finite pool (or unlimited) with the two-stage repair pipeline (exponential or
fixed, escalation, misses), retirement, pool occupancy, diagnosis / preemption spreads, and
restarts from memory (mem_R, mem_r). Failure categories only (no straggler or SDC with
nodes). Deliberate misreadings in ``indep2.MUT`` (``mut.py``): M6 standbys not refilled, M7
the failed node chosen uniformly over the job, M9 the count of nodes left never reset.

`node_spec` and `ncat` build specs, `build_relmc` maps one onto relmc.Scenario, `run_nodes`
simulates trials and `relmc_table` puts relmc's dataset in the same form. Imported by
``compare_nodes.py``, ``scen_nodes.py``, ``fuzz2.py`` and ``diag_closed.py``; there is
nothing to run.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import indep2  # noqa: E402


def node_spec(**kw):
    """Spec of indep2.default_spec plus the node fields below."""
    extra = dict(
        f=0.0,
        m=1.0,
        n_standbys=0,
        preempt_h=0.0,
        lemon_k=0,
        lemon_win=168.0,
        retire_after=0,
        escalate=0.0,
        manual_h=168.0,
        auto_miss=0.0,
        manual_miss=0.0,
        repair_fixed=False,
        gpus_per_node=8,
        nodes_per_rack=2,
        gpus_per_pod=3072,
        mem_R=None,
        mem_r=1,
    )
    for k in list(kw):
        if k in extra:
            extra[k] = kw.pop(k)
    s = indep2.default_spec(**kw)
    s.update(extra)
    return s


def ncat(name, rate, domain="node", diag=0.0, wrong=0.0, mult=None, **kw):
    """A failure category with node-model fields."""
    c = indep2.cat(name, rate, **kw)
    c.update(domain=domain, diag=diag, wrong=wrong, mult=mult)
    return c


def build_relmc(spec):
    sc = indep2.build_relmc(spec)
    cats = []
    for c, rc in zip(spec["cats"], sc.failures.categories, strict=True):
        kw = dict(domain=c["domain"], diagnosis_hours=c["diag"], wrong_blame=c["wrong"])
        if c["mult"] is not None:
            kw["bad_node_multiplier"] = c["mult"]
        cats.append(dataclasses.replace(rc, **kw))
    fm = dataclasses.replace(
        sc.failures,
        categories=tuple(cats),
        bad_node_fraction=spec["f"],
        bad_node_multiplier=spec["m"],
    )
    pol = dataclasses.replace(
        sc.policy,
        n_standbys=spec["n_standbys"],
        preemption_hours=spec["preempt_h"],
        lemon_failures=spec["lemon_k"],
        lemon_window_hours=spec["lemon_win"],
        retire_after_repairs=spec["retire_after"],
        escalation_probability=spec["escalate"],
        manual_repair_hours=spec["manual_h"],
        auto_repair_miss=spec["auto_miss"],
        manual_repair_miss=spec["manual_miss"],
        memory_restart_hours=spec["mem_R"],
        memory_replicas=spec["mem_r"],
        repair_distribution="fixed" if spec["repair_fixed"] else "exponential",
    )
    cl = dataclasses.replace(
        sc.cluster,
        gpus_per_node=spec["gpus_per_node"],
        nodes_per_rack=spec["nodes_per_rack"],
        gpus_per_pod=spec["gpus_per_pod"],
    )
    return dataclasses.replace(sc, failures=fm, policy=pol, cluster=cl)


NODE_OUT = (
    "nodes_excluded_bad",
    "nodes_excluded_good",
    "repairs_auto",
    "repairs_manual",
    "nodes_retired",
    "wrong_blames",
    "standby_swaps",
    "restarts_memory",
    "restarts_storage",
    "pool_occupancy",
)


class NodeTrial(indep2.Trial):
    def __init__(self, model, rng):
        super().__init__(model, rng)
        s = self.s
        assert all(c["kind"] == "failure" for c in s["cats"])
        self.n = math.ceil(s["n_gpus"] / s["gpus_per_node"])
        n = self.n
        self.bad = []  # node id -> bad?
        self.fails = {}
        self.sends = {}
        self.job = [self.new_node() for _ in range(n)]
        self.standbys = [self.new_node() for _ in range(s["n_standbys"])]
        self.unlimited = s["n_spares"] is None
        self.pool = [] if self.unlimited else [self.new_node() for _ in range(s["n_spares"])]
        self.heap = []  # (end, seq, id, stage)
        self.seq = 0
        self.cnt = {k: 0 for k in NODE_OUT}
        self.pool_int = 0.0
        self.pool_t = 0.0
        # domains
        rack = min(s["nodes_per_rack"], n)
        pod = min(max(1, s["gpus_per_pod"] // s["gpus_per_node"]), n)
        self.dom = [dict(node=1, rack=rack, pod=pod)[c["domain"]] for c in s["cats"]]
        self.mult = [c["mult"] if c["mult"] is not None else s["m"] for c in s["cats"]]
        self.nodes_left = 0  # since the newest durable checkpoint
        self.next_mem = False  # the next restart reads memory

    def new_node(self):
        self.bad.append(self.rng.random() < self.s["f"])
        return len(self.bad) - 1

    def rate_of(self, i):
        c = self.s["cats"][i]
        if self.dom[i] > 1:
            return c["rate"]
        n, f, m = self.n, self.s["f"], self.mult[i]
        B = sum(self.bad[j] for j in self.job)
        return c["rate"] * (n - B + m * B) / (n * (1 - f + f * m))

    def jit(self, k, v):
        if k == "restart":
            if self.s["mem_R"] is not None and self.next_mem:
                self.cnt["restarts_memory"] += 1
                v = self.s["mem_R"] * self.F["restart"]
            else:
                self.cnt["restarts_storage"] += 1
        return super().jit(k, v)

    def keep(self, entry):
        # a checkpoint became durable (run checkpoints durable before the stop, maintenance's)
        self.nodes_left = 0
        super().keep(entry)

    def pause(self, cause, dur):
        if cause == "maintenance":
            self.next_mem = False  # a restart after planned maintenance reads storage
        super().pause(cause, dur)

    # ---- pool and repairs ------------------------------------------------------------------
    def mark(self, t):
        if not self.unlimited:
            self.pool_int += len(self.pool) * (t - self.pool_t)
        self.pool_t = t

    def dur(self, mean):
        return mean if self.s["repair_fixed"] else self.rng.expovariate(1.0 / mean)

    def send(self, j, t):
        self.sends[j] = self.sends.get(j, 0) + 1
        ra = self.s["retire_after"]
        if ra > 0 and self.sends[j] == ra:
            self.cnt["nodes_retired"] += 1
            return
        self.cnt["repairs_auto"] += 1
        self.seq += 1
        heapq.heappush(self.heap, (t + self.dur(self.s["repair_h"]), self.seq, j, 1))

    def pop_repair(self):
        """Process the earliest repair stage end; return the node if it comes out, else None."""
        end, _, j, st = heapq.heappop(self.heap)
        self.mark(end)
        if self.bad[j]:
            miss = self.s["auto_miss"] if st == 1 else self.s["manual_miss"]
            self.bad[j] = self.rng.random() < miss
        if st == 1 and self.rng.random() < self.s["escalate"]:
            self.cnt["repairs_manual"] += 1
            self.seq += 1
            heapq.heappush(self.heap, (end + self.dur(self.s["manual_h"]), self.seq, j, 2))
            return None
        return j

    def place(self, j):
        """A repaired node: standbys if short, else the pool (vanishes with unlimited pool)."""
        if len(self.standbys) < self.s["n_standbys"]:
            self.standbys.append(j)
        elif not self.unlimited:
            self.pool.append(j)

    def advance_repairs(self, t):
        while self.heap and self.heap[0][0] <= t:
            j = self.pop_repair()
            if j is not None:
                self.place(j)
        self.mark(t)

    def take_pool(self):
        if self.unlimited:
            return self.new_node()
        return self.pool.pop(self.rng.randrange(len(self.pool)))

    def pool_has(self):
        return self.unlimited or len(self.pool) > 0

    # ---- recovery -----------------------------------------------------------------------
    def recovery(self, i, detect=True):
        assert detect
        s = self.s
        c = s["cats"][i]
        t_f = self.t
        self.pause("detection", self.jit("detection", self.det_h(i)))
        self.pause("diagnosis", c["diag"] * self.F["diagnosis"])
        leave_repair = []
        excluded = []
        d = self.dom[i]
        if d > 1:
            leave_repair = self.rng.sample(self.job, d)
        else:
            m = self.mult[i]
            badj = [j for j in self.job if self.bad[j]]
            good = [j for j in self.job if not self.bad[j]]
            B = len(badj)
            pb = m * B / (self.n - B + m * B)
            if "M7" in indep2.MUT:  # misreading: the struck node uniform over the job
                pb = B / self.n
            struck = self.rng.choice(badj) if self.rng.random() < pb else self.rng.choice(good)
            blamed = struck
            if self.n > 1 and self.rng.random() < c["wrong"]:
                others = [j for j in self.job if j != struck]
                blamed = self.rng.choice(others)
                self.cnt["wrong_blames"] += 1
            fl = self.fails.setdefault(blamed, [])
            fl.append(t_f)
            k = s["lemon_k"]
            if k >= 1 and sum(1 for x in fl if t_f - s["lemon_win"] < x <= t_f) >= k:
                excluded = [blamed]
                self.cnt["nodes_excluded_bad" if self.bad[blamed] else "nodes_excluded_good"] += 1
            elif c["swap"]:
                leave_repair = [blamed]
        need = len(leave_repair) + len(excluded)
        self.nodes_left += need
        self.cum_left = getattr(self, "cum_left", 0) + need
        self.next_mem = d == 1 and self.nodes_left <= s["mem_r"]
        if "M9" in indep2.MUT:  # misreading: the count of nodes left never reset (keep() ignored)
            self.next_mem = d == 1 and self.cum_left <= s["mem_r"]
        if need == 0:
            return
        self.advance_repairs(self.t)
        for j in leave_repair + excluded:
            self.job.remove(j)
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
        while "M6" not in indep2.MUT and len(self.standbys) < s["n_standbys"] and self.pool_has():
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

    def simulate(self):
        out = super().simulate()
        self.advance_repairs(self.t)
        for k in NODE_OUT:
            out[k] = self.cnt[k]
        out["pool_occupancy"] = (
            (self.pool_int / self.t if self.t > 0 else float(len(self.pool)))
            if not self.unlimited
            else float("nan")
        )
        # conservation check
        if not self.unlimited:
            s = self.s
            inrep = len(self.heap)
            tot = (
                len(self.job)
                + len(self.standbys)
                + len(self.pool)
                + inrep
                + out["nodes_excluded_bad"]
                + out["nodes_excluded_good"]
                + out["nodes_retired"]
            )
            assert tot == self.n + s["n_standbys"] + s["n_spares"], tot
        return out


def run_nodes(spec, n, seed):
    m = indep2.Model(spec)
    rng = random.Random(seed)
    rows = [NodeTrial(m, rng).simulate() for _ in range(n)]
    return {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}


def relmc_table(ds, spec):
    out = indep2.relmc_table(ds, spec)
    for k in NODE_OUT:
        out[k] = np.asarray(ds[k].values, dtype=float)
    return out
