"""Independent simulator: indep.py plus an exact wall cap, max_events and uncertain overheads.

An extended copy of ``indep.py`` (which is kept unchanged, for the scripts of the first
check): written from the documentation only (the contract in ``relmc/sim/__init__.py``, the
README and ``relmc/scenario.py``), without reading ``relmc/sim/_kernels.py``,
``relmc/sim/reference.py``, ``relmc/sim/inputs.py`` or the tests. Plain Python, slow but
simple. Covers what ``indep.py`` covers (segments/snapshots/background persist, diurnal
throughput S(t), failure categories with detection and swaps, unlimited or finite pool,
planned maintenance, exposed restarts, time-varying intensities by thinning, stragglers, SDC
with retention, power swings) and adds:

- an exact wall cap: a trial stops at the cap; rework is the compute since the last durable
  checkpoint; pauses, restarts and maintenance checkpoints are cut there;
- ``max_events``: failures, planned events, straggler arrivals and SDC detections count; the
  ``events`` output;
- per-draw overhead spreads (snapshot, persist, restart, swap, detection, maintenance,
  sdc_latency; diagnosis and preemption for ``indep_nodes.py``), drawn once per trial;
- per-event jitter (restart, swap, detection including a straggler's slow phase, maintenance).

`MUT` holds deliberate misreadings of the docs for the power checks of ``mut.py`` and
``parity.py`` (empty by default, the documented process): M1 a max_events stop on a failure
without its power step; M2a / M2 / M2b a persist in flight during a maintenance checkpoint cut
by the cap is durable at once / lost / advanced at wall speed 1; M3 a power step counted at
the cap; M4 a straggler's slow phase without jitter; M6, M7, M9 in ``indep_nodes.py``.

Not covered here: the node model (``indep_nodes.py``). A spec is a plain dict (see
`build_relmc` for the mapping onto relmc.Scenario). Every category uses unit "job" so its
cluster rate Lambda_c equals its `rate`.

Imported by ``compare2.py``, ``indep_nodes.py`` and the scenario and fuzz scripts. Run
directly, it simulates the smoke spec of ``compare.py`` and prints the mean of every output::

    python benchmarks/outside_physics/indep2.py [N] [SEED]

N   number of trials (default 1000); SEED  seed of ``random.Random`` (default 1).
"""

from __future__ import annotations

import math
import random

CAUSES = (
    "rework",
    "checkpoint",
    "detection",
    "node_swap",
    "spare_wait",
    "restart",
    "maintenance",
    "slowdown",
    "diagnosis",
    "preemption",
    "straggler",
)
OMEGA = 2.0 * math.pi / 24.0
MUT = set()  # mutations for power checks (mut.py); empty = the documented process


def default_spec(**kw):
    """Return a spec dict: the defaults below, updated with `kw`.

    Keys (hours unless said): W compute, tau checkpoint interval, delta blocking snapshot,
    persist background persist, R restart, swap_h node swap, n_spares (None: unlimited pool),
    repair_h mean repair, maint_rate / maint_h planned maintenance (per hour / hours), beta
    trend shape and A0 fleet age, h0 start hour and start_day, b / phi_s throughput amplitude
    and peak hour, K checkpoint retention (0: all), cap_factor wall cap / W, n_gpus, cats (a
    list of `cat` dicts).
    """
    s = dict(
        W=20.0,
        tau=0.5,
        delta=1 / 60,
        persist=0.0,
        R=10 / 60,
        swap_h=0.0,
        n_spares=None,
        repair_h=72.0,
        maint_rate=0.0,
        maint_h=0.0,
        beta=1.0,
        A0=8760.0,
        h0=0.0,
        start_day=0,
        b=0.0,
        phi_s=0.0,
        K=0,
        cap_factor=100.0,
        max_events=1_000_000,
        # spreads: dict name->k (snapshot, persist, restart, swap, detection, maintenance,
        # sdc_latency)
        spreads=None,
        jitters=None,  # dict name->k (restart, swap, detection, maintenance)
        n_gpus=8,
        cats=[],
    )
    s.update(kw)
    return s


def cat(
    name,
    rate,
    kind="failure",
    detect=0.0,
    swap=False,
    amp=0.0,
    peak=0.0,
    profile=None,
    speed=0.5,
    sdc_L=0.0,
    sdc_exp=False,
):
    """Return a category dict (unit "job": its cluster rate is `rate` per hour).

    `kind` is "failure", "straggler" or "sdc"; `detect` detection hours; `swap` recovery by
    node swap; `amp` / `peak` diurnal cosine; `profile` 24 or 168 hourly weights; `speed`
    straggler speed; `sdc_L` SDC latency hours, exponential if `sdc_exp`, else fixed.
    """
    return dict(
        name=name,
        rate=rate,
        kind=kind,
        detect=detect,
        swap=swap,
        amp=amp,
        peak=peak,
        profile=profile,
        speed=speed,
        sdc_L=sdc_L,
        sdc_exp=sdc_exp,
    )


def build_relmc(spec):
    """Return the relmc.Scenario that `spec` describes."""
    import relmc

    cats = []
    for c in spec["cats"]:
        kw = dict(
            name=c["name"],
            rate=c["rate"],
            unit="job",
            detection_hours=c["detect"],
            recovery="swap" if c["swap"] else "restart",
            kind=c["kind"],
        )
        if c["amp"]:
            kw.update(diurnal_amplitude=c["amp"], diurnal_peak_hour=c["peak"])
        if c["profile"] is not None:
            kw["rate_profile"] = tuple(c["profile"])
        if c["kind"] == "straggler":
            kw["straggler_speed"] = c["speed"]
        if c["kind"] == "sdc":
            kw["sdc_latency_hours"] = c["sdc_L"]
            kw["sdc_latency_distribution"] = "exponential" if c["sdc_exp"] else "fixed"
        cats.append(relmc.Category(**kw))
    fm = dict(
        categories=tuple(cats),
        maintenance_rate=spec["maint_rate"],
        maintenance_hours=spec["maint_h"],
        trend_shape=spec["beta"],
    )
    if spec["beta"] != 1.0:
        fm["fleet_age_hours"] = spec["A0"]
    pol = dict(
        checkpoint_interval=spec["tau"],
        snapshot_hours=spec["delta"],
        persist_hours=spec["persist"],
        restart_hours=spec["R"],
        swap_hours=spec["swap_h"],
        n_spares=spec["n_spares"],
        repair_hours=spec["repair_h"],
        wall_cap_factor=spec["cap_factor"],
        max_events=spec["max_events"],
        checkpoint_retention=spec["K"],
    )
    for k, v in (spec["spreads"] or {}).items():
        pol[k + "_spread"] = v
    for k, v in (spec["jitters"] or {}).items():
        pol[k + "_jitter"] = v
    return relmc.Scenario(
        cluster=relmc.Cluster(n_gpus=spec["n_gpus"]),
        failures=relmc.FailureModel(**fm),
        job=relmc.Job(
            compute_hours=spec["W"],
            start_hour=spec["h0"],
            start_day=spec["start_day"],
            throughput_amplitude=spec["b"],
            throughput_peak_hour=spec["phi_s"],
        ),
        policy=relmc.Policy(**pol),
    )


class Model:
    """Deterministic functions of the spec: intensities, S(t) and its inverse."""

    def __init__(self, spec):
        self.s = spec
        self.cats = spec["cats"]
        self.w0 = spec["start_day"] * 24.0 + spec["h0"]
        self.q = []
        self.bound = []
        for c in self.cats:
            if c["profile"] is not None:
                p = list(c["profile"])
                if len(p) == 24:
                    p = p * 7
                assert len(p) == 168
                m = sum(p) / 168.0
                q = [v / m for v in p]
                self.q.append(q)
                self.bound.append(max(q))
            else:
                self.q.append(None)
                self.bound.append(1.0 + c["amp"])

    # ---- failure intensity -------------------------------------------------------------
    def trend(self, t):
        """Return the trend factor (1 + t / A0) ** (beta - 1) at job time `t`."""
        b = self.s["beta"]
        if b == 1.0:
            return 1.0
        return (1.0 + t / self.s["A0"]) ** (b - 1.0)

    def modulation(self, i, t):
        """Return category `i`'s profile weight or diurnal factor at job time `t`."""
        q = self.q[i]
        if q is not None:
            k = int(math.floor((self.w0 + t) % 168.0))
            return q[min(k, 167)]
        c = self.cats[i]
        return 1.0 + c["amp"] * math.cos(OMEGA * (self.s["h0"] + t - c["peak"]))

    def lam(self, i, t):
        """Return the intensity of category `i` at job time `t`."""
        return self.cats[i]["rate"] * self.modulation(i, t) * self.trend(t)

    def cum_intensity(self, i, t1, t2, n=20000):
        """Integral of lam_i over [t1, t2] by a fine midpoint rule (exact per profile hour)."""
        if t2 <= t1:
            return 0.0
        h = (t2 - t1) / n
        return sum(self.lam(i, t1 + (k + 0.5) * h) for k in range(n)) * h

    # ---- throughput ---------------------------------------------------------------------
    def S(self, t):
        """Return the work done by wall time `t` at full speed: t + (b / omega) sin(...)."""
        b = self.s["b"]
        if b == 0.0:
            return t
        return t + (b / OMEGA) * math.sin(OMEGA * (self.s["h0"] + t - self.s["phi_s"]))

    def Sinv_from(self, t, dS):
        """Return the wall time t2 >= t with S(t2) - S(t) = dS (dS >= 0)."""
        b = self.s["b"]
        if dS <= 0.0:
            return t
        if b == 0.0:
            return t + dS
        target = self.S(t) + dS
        lo, hi = t + dS / (1.0 + b), t + dS / (1.0 - b)
        x = t + dS
        for _ in range(200):
            f = self.S(x) - target
            if f > 0:
                hi = x
            else:
                lo = x
            d = 1.0 + b * math.cos(OMEGA * (self.s["h0"] + x - self.s["phi_s"]))
            xn = x - f / d
            if not (lo < xn < hi):
                xn = 0.5 * (lo + hi)
            if abs(xn - x) < 1e-13 * max(1.0, abs(x)):
                return xn
            x = xn
        return x


class Stop(Exception):
    """Raised when a trial passes the wall cap."""

    pass


class Trial:
    """One trial: the state of the job, advanced by `simulate`."""

    def __init__(self, model: Model, rng: random.Random):
        self.m = model
        s = model.s
        self.s = s
        self.rng = rng
        self.t = 0.0
        self.p = 0.0  # durable progress
        self.retained = []  # (snapshot begin wall time, progress), oldest first
        self.lost = {c: 0.0 for c in CAUSES}
        self.inter = [0] * len(s["cats"])
        self.maint_events = 0
        self.swings = 0
        self.sdc_rollbacks = 0
        self.sdc_from_scratch = 0
        self.sdc_rework = 0.0
        self.repairs = []
        # straggler state
        self.st_active = None
        self.st_handle = None
        # sdc state
        self.latent = None  # (cat, t_a, t_det)
        self.cap = s["cap_factor"] * s["W"]
        self.events = 0
        Z95 = 1.6448536269514722
        sp = s["spreads"] or {}
        F = {
            k: math.exp(math.log(sp.get(k, 1.0)) / Z95 * rng.gauss(0, 1))
            if sp.get(k, 1.0) != 1.0
            else 1.0
            for k in (
                "snapshot",
                "persist",
                "restart",
                "swap",
                "detection",
                "maintenance",
                "sdc_latency",
                "diagnosis",
                "preemption",
            )
        }
        self.set_factors(F)
        jt = s["jitters"] or {}
        self.jsig = {
            k: math.log(jt.get(k, 1.0)) / Z95
            for k in ("restart", "swap", "detection", "maintenance")
        }

    def set_factors(self, F):
        """Take the overhead factors ``F`` (a dict by overhead) and the overheads they scale."""
        s = self.s
        self.F = F
        self.delta = s["delta"] * F["snapshot"]
        self.persist = min(s["persist"] * F["persist"], s["tau"])
        self.R = s["R"] * F["restart"]
        self.swap_h = s["swap_h"] * F["swap"]
        self.maint_h = s["maint_h"] * F["maintenance"]

    def rate_of(self, i):
        """Cluster rate of category i now (the node model overrides it)."""
        return self.s["cats"][i]["rate"]

    def jit(self, k, v):
        """Per-event jittered duration of overhead `k` of (per-draw) value `v`."""
        sg = self.jsig[k]
        if sg == 0.0:
            return v
        return v * math.exp(sg * self.rng.gauss(0, 1))

    def det_h(self, i):
        """Per-draw detection hours of category i (before jitter)."""
        return self.s["cats"][i]["detect"] * self.F["detection"]

    def pause(self, cause, dur):
        """Advance a pause of `dur` hours charged to `cause`; cut at the cap (raise Stop)."""
        if self.t + dur > self.cap:
            self.lost[cause] += self.cap - self.t
            self.t = self.cap
            raise Stop
        self.t += dur
        self.lost[cause] += dur

    def count_event(self):
        """Count one event; True when it is the max_events-th (the trial stops)."""
        self.events += 1
        return self.events >= self.s["max_events"]

    # ---- helpers -------------------------------------------------------------------------
    def keep(self, entry):
        """Append a retained checkpoint, dropping the oldest beyond K (K > 0)."""
        self.retained.append(entry)
        K = self.s["K"]
        if K > 0 and len(self.retained) > K:
            del self.retained[0]

    def sources(self):
        """Return the exposed categories (no straggler while one is active, no SDC while latent)."""
        out = []
        for i, c in enumerate(self.s["cats"]):
            if c["kind"] == "straggler" and self.st_active is not None:
                continue
            if c["kind"] == "sdc" and self.latent is not None:
                continue
            out.append(i)
        return out

    def next_arrival(self, t, t_limit):
        """Return the first arrival in [t, t_limit) of the exposed sources, by thinning.

        Returns (time, i) with i a category index or -1 for planned maintenance; None if none.
        """
        m = self.m
        src = self.sources()
        mr = self.s["maint_rate"]
        u = t
        while u < t_limit:
            if self.s["beta"] == 1.0:
                v = min(t_limit, u + 24.0)
            else:
                v = min(t_limit, u + 0.05 * (self.s["A0"] + u))
            tb = max(m.trend(u), m.trend(v))
            B = sum(self.rate_of(i) * m.bound[i] for i in src) * tb + mr
            if B <= 0.0:
                u = v
                continue
            u2 = u + self.rng.expovariate(B)
            if u2 >= v:
                u = v
                continue
            u = u2
            lams = [self.rate_of(i) * m.modulation(i, u) * m.trend(u) for i in src]
            tot = sum(lams) + mr
            assert tot <= B * (1 + 1e-9), (tot, B)
            x = self.rng.random() * B
            if x < tot:
                for i, lam_i in zip(src, lams, strict=True):
                    if x < lam_i:
                        return u, i
                    x -= lam_i
                return u, -1
        return None

    def recovery(self, i, detect=True):
        """Apply category `i`'s detection (if `detect`), spare wait and swap."""
        c = self.s["cats"][i]
        if detect:
            self.pause("detection", self.jit("detection", self.det_h(i)))
        if c["swap"]:
            if self.s["n_spares"] is None:
                pass
            else:
                self.repairs = [r for r in self.repairs if r > self.t]
                self.repairs.append(self.t + self.rng.expovariate(1.0 / self.s["repair_h"]))
                if len(self.repairs) > self.s["n_spares"]:
                    r = min(self.repairs)
                    self.repairs.remove(r)
                    self.pause("spare_wait", r - self.t)
            self.pause("node_swap", self.jit("swap", self.swap_h))

    def sdc_arrive(self, i, p_c):
        """Record a latent SDC of category `i` arriving now, with its detection time."""
        c = self.s["cats"][i]
        Lm = c["sdc_L"] * self.F["sdc_latency"]
        L = self.rng.expovariate(1.0 / Lm) if (c["sdc_exp"] and Lm > 0) else Lm
        self.latent = (i, self.t, self.t + L, p_c)

    def sdc_detect(self, P):
        """Roll back at detection; P the progress reached. Returns the category."""
        i, t_a, _, _ = self.latent
        self.inter[i] += 1
        idx = None
        for k, (tb, _) in enumerate(self.retained):
            if tb <= t_a:
                idx = k
        if idx is None:
            q = 0.0
            self.sdc_rollbacks += len(self.retained)
            self.sdc_from_scratch += 1
            self.retained = []
        else:
            q = self.retained[idx][1]
            self.sdc_rollbacks += len(self.retained) - 1 - idx
            self.retained = self.retained[: idx + 1]
        self.lost["rework"] += P - q
        self.sdc_rework += P - q
        self.p = q
        self.latent = None
        return i

    # ---- restart phase -------------------------------------------------------------------
    def restart(self):
        """Restarts until a run can begin (returns), handling events in restarts."""
        s = self.s
        while True:
            if self.latent is not None and self.latent[2] <= self.t:
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

    # ---- run phase -------------------------------------------------------------------------
    def run(self):
        """One run from durable progress self.p. Returns True when the job finished."""
        s = self.s
        m = self.m
        W, tau, delta, persist = s["W"], s["tau"], self.delta, self.persist
        p0 = self.p
        rem = W - p0
        n = max(1, math.ceil(rem / tau - 1e-9))
        segs = []  # (comp_start, comp_end, snap_end, durable_x, progress_after)
        for j in range(n):
            sj = tau if j < n - 1 else rem - (n - 1) * tau
            a = j * (tau + delta)
            e = a + sj
            segs.append((a, e, e + delta, e + delta + persist, p0 + min((j + 1) * tau, rem)))
        x_lc = segs[-1][1]
        x_end = segs[-1][3]
        # state
        x = 0.0
        sigma = s["cats"][self.st_active]["speed"] if self.st_active is not None else 1.0
        bps = [(self.t, 0.0, sigma)]  # breakpoints for x -> wall

        def advance(t2):
            nonlocal x
            dS = m.S(t2) - m.S(self.t)
            x += sigma * dS
            self.lost["straggler"] += (1.0 - sigma) * dS
            self.lost["slowdown"] += (t2 - self.t) - dS
            self.t = t2

        def wall_of(X):
            tb, xb, sg = bps[0]
            for b in bps:
                if b[1] <= X:
                    tb, xb, sg = b
            return m.Sinv_from(tb, (X - xb) / sg)

        def compute_done(x):
            return sum(min(max(x - a, 0.0), e - a) for (a, e, _, _, _) in segs)

        def snap_time(x):
            return sum(min(max(x - e, 0.0), delta) for (_, e, _, _, _) in segs)

        def final_wait(x):
            return max(0.0, x - (x_lc + delta))

        def swings(x, stopped):
            if delta > 0:
                iv = [(a, e) for (a, e, _, _, _) in segs]
            else:
                iv = [(0.0, x_lc)]
            c = 0
            for a, e in iv:
                if x >= a:
                    c += 1
                if x >= e:
                    c += 1
                elif x > a and stopped:
                    c += 1
            return c

        def computing(x):
            return any(a < x < e for (a, e, _, _, _) in segs)

        def flush(x):
            """Checkpoints of this run durable at x go to the retained list; returns durable p."""
            pd = p0
            for _a, e, _se, dx, pa in segs:
                if dx <= x:
                    self.keep((wall_of(e), pa))
                    pd = pa
            return pd

        def stop_common(x, stopped=True):
            self.swings += swings(x, stopped)
            self.lost["checkpoint"] += snap_time(x) + final_wait(x)

        def stop_checkpoint(x):
            """Maintenance / straggler stop: fresh checkpoint of the progress reached."""
            flush(x)
            for _a, e, se, dx, pa in segs:  # persists in flight complete, kept before it
                if se <= x < dx:
                    self.keep((wall_of(e), pa))
            P = p0 + compute_done(x)
            stop_common(x)
            if self.t + delta + persist > self.cap:
                # cut by the cap: persists in flight completed; the fresh one is not durable
                if "M2a" not in MUT and "M2" not in MUT:
                    # in-flight persists complete at their own remaining time (relmc's reading,
                    # found by cap_mckpt; "M2a": durable at once, "M2": lost)
                    if (
                        "M2b" not in MUT
                    ):  # remaining nominal persist advanced at s(t) (relmc; cap_mckpt_b)
                        pd = max(
                            [p0]
                            + [
                                pa
                                for (_a, e, se, dx, pa) in segs
                                if se <= x and m.Sinv_from(self.t, max(0.0, dx - x)) <= self.cap
                            ]
                        )
                    else:
                        pd = max(
                            [p0]
                            + [
                                pa
                                for (_a, e, se, dx, pa) in segs
                                if se <= x and self.t + max(0.0, dx - x) <= self.cap
                            ]
                        )
                else:
                    pd = max(
                        [p0]
                        + [
                            pa
                            for (_a, e, se, dx, pa) in segs
                            if se <= x and ("M2" not in MUT or dx <= x)
                        ]
                    )
                self.lost["rework"] += P - pd
                self.p = pd
                self.pause("checkpoint", delta + persist)
            self.keep((self.t, P))
            self.p = P
            self.t += delta + persist
            self.lost["checkpoint"] += delta + persist

        def stop_failure(x):
            pd = flush(x)
            stop_common(x)
            self.lost["rework"] += p0 + compute_done(x) - pd
            self.p = pd

        while True:
            t_end = m.Sinv_from(self.t, (x_end - x) / sigma)
            cands = [(t_end, "end")]
            if self.st_active is not None and x < x_lc:
                t_lc = m.Sinv_from(self.t, (x_lc - x) / sigma)
                if self.st_handle < t_lc:
                    cands.append((max(self.st_handle, self.t), "handle"))
            if self.latent is not None:
                cands.append((max(self.latent[2], self.t), "sdcdet"))
            if self.cap < t_end:
                cands.append((self.cap, "cap"))
            t_next, what = min(cands)
            arr = self.next_arrival(self.t, t_next)
            if arr is not None:
                ta, i = arr
                advance(ta)
                if i == -1:
                    if x >= x_lc:
                        continue  # deferred past the end of the job
                    self.maint_events += 1
                    self.st_active = None
                    if self.count_event():
                        stop_failure(x)
                        raise Stop
                    stop_checkpoint(x)
                    self.pause("maintenance", self.jit("maintenance", self.maint_h))
                    return False
                k = s["cats"][i]["kind"]
                if k == "failure":
                    self.inter[i] += 1
                    self.st_active = None
                    if "M1" in MUT and self.events + 1 >= s["max_events"]:
                        pd = flush(x)
                        stop_common(x, stopped=False)
                        self.lost["rework"] += p0 + compute_done(x) - pd
                        self.p = pd
                    else:
                        stop_failure(x)
                    if self.count_event():
                        raise Stop
                    self.recovery(i)
                    return False
                if k == "straggler":
                    self.inter[i] += 1
                    if self.count_event():
                        stop_failure(x)
                        raise Stop
                    self.st_active = i
                    self.st_handle = ta + (
                        self.det_h(i) if "M4" in MUT else self.jit("detection", self.det_h(i))
                    )
                    sigma = s["cats"][i]["speed"]
                    bps.append((self.t, x, sigma))
                    continue
                if k == "sdc":
                    self.sdc_arrive(i, p0 + compute_done(x))
                    continue
                raise AssertionError
            advance(t_next)
            if what == "end":
                x = x_end
                self.p = flush(x_end)
                assert abs(self.p - W) < 1e-9, (self.p, W)
                self.p = W
                stop_common(x_end, stopped=False)
                return True
            if what == "handle":
                i = self.st_active
                self.st_active = None
                stop_checkpoint(x)
                self.recovery(i, detect=False)
                return False
            if what == "sdcdet":
                self.st_active = None
                pd = flush(x)
                stop_common(x)
                # compute since the last durable checkpoint is lost too (in-flight persists lost)
                P = p0 + compute_done(x)
                self.p = pd
                i = self.sdc_detect(P)
                if self.count_event():
                    raise Stop
                self.recovery(i)
                return False
            if what == "cap":
                pd = flush(x)
                stop_common(x, stopped="M3" in MUT)
                self.lost["rework"] += p0 + compute_done(x) - pd
                self.p = pd
                raise Stop

    def simulate(self):
        """Run the trial to the end or the cap; return its outputs (a dict of scalars)."""
        finished = False
        try:
            while True:
                if self.run():
                    finished = True
                    break
                assert self.t <= self.cap + 1e-9
                self.restart()
        except Stop:
            finished = False
        out = dict(
            wall_hours=self.t,
            finished=finished,
            progress_hours=self.p,
            maintenance_events=self.maint_events,
            power_swings=self.swings,
            events=self.events,
            sdc_rollbacks=self.sdc_rollbacks,
            sdc_from_scratch=self.sdc_from_scratch,
            sdc_undetected=int(self.latent is not None),
            sdc_rework_hours=self.sdc_rework,
        )
        for c in CAUSES:
            out["lost_" + c] = self.lost[c]
        for i, c in enumerate(self.s["cats"]):
            out["int_" + c["name"]] = self.inter[i]
        return out


def run_indep(spec, n, seed):
    """Simulate `n` trials of `spec` from ``random.Random(seed)``; arrays per output."""
    import numpy as np

    m = Model(spec)
    rng = random.Random(seed)
    rows = [Trial(m, rng).simulate() for _ in range(n)]
    return {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}


def relmc_table(ds, spec):
    """Return relmc.simulate's dataset `ds` as arrays named as `run_indep`'s outputs."""
    import numpy as np

    out = dict(
        wall_hours=ds.wall_hours.values,
        finished=ds.finished.values.astype(float),
        progress_hours=ds.progress_hours.values,
        maintenance_events=ds.maintenance_events.values.astype(float),
        power_swings=ds.power_swings.values.astype(float),
        events=ds.events.values.astype(float),
        sdc_rollbacks=ds.sdc_rollbacks.values.astype(float),
        sdc_from_scratch=ds.sdc_from_scratch.values.astype(float),
        sdc_undetected=ds.sdc_undetected.values.astype(float),
        sdc_rework_hours=ds.sdc_rework_hours.values,
    )
    for c in CAUSES:
        out["lost_" + c] = ds.lost_hours.sel(cause=c).values
    for c in spec["cats"]:
        out["int_" + c["name"]] = ds.interruptions.sel(category=c["name"]).values.astype(float)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def main(argv=None):
    """Simulate the smoke spec of ``compare.py`` and print the mean of every output."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=1000, help="number of trials")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="seed")
    args = ap.parse_args(argv)
    spec = default_spec(
        cats=[cat("a", 0.3, detect=0.1, swap=True)],
        swap_h=0.2,
        persist=0.1,
        maint_rate=0.05,
        maint_h=0.5,
    )
    out = run_indep(spec, args.n, args.seed)
    for k, v in out.items():
        print(f"  {k:22s} {v.mean():10.5g}")


if __name__ == "__main__":
    main()
