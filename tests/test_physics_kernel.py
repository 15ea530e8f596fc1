"""The kernel's stragglers and silent data corruption (issue 11; contract in relmc.sim).

Kinds of tests: off by default (bit identity by golden digests, zero outputs); bad input
named with its range; invariants on random scenarios (hypothesis); extremes that must end;
two known answers derived here, each with a negative control that must fail.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernelcheck import golden_changes

from relmc._seed import child_seed
from relmc.errors import FieldError
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario
from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import KernelInputs, allocate_outputs, kernel_args
from relmc.sim.simulate import BLOCK_SIZE, simulate

CAUSE = {c: j for j, c in enumerate(CAUSES)}
REL = 1e-9  # relative rounding allowance of the accounting identity (sums of ~1e3 terms)
NEW = ("sdc_rollbacks", "sdc_from_scratch", "sdc_undetected", "sdc_rework_hours")


def _run(x: KernelInputs, seed: int) -> dict[str, np.ndarray]:
    out = allocate_outputs(x.n_trials, x.n_categories)
    root = np.random.SeedSequence(seed)
    for b in range(-(-x.n_trials // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        sl = slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)
        _kernels.simulate_block(rng, *kernel_args(x, out, sl))
    return out


def _inputs(rates, kind, *, n_trials=512, speed=None, latency=None, lat_exp=None, **kw):
    """KernelInputs with the kernel's exact types (a new type signature would recompile)."""
    n = len(rates)
    base: dict[str, Any] = dict(
        cat_rate=np.asarray([rates], dtype=np.float64),
        draw_of_trial=np.zeros(n_trials, dtype=np.int64),
        detect_hours=np.zeros(n),
        swap=np.zeros(n, dtype=np.bool_),
        maint_rate=0.0,
        maint_hours=0.0,
        work_hours=20.0,
        tau=1.0,
        delta=0.0,
        persist=0.0,
        restart_hours=0.0,
        swap_hours=0.0,
        n_spares=-1,
        repair_hours=10.0,
        cap_hours=400.0,
        cat_kind=np.asarray(kind, dtype=np.int64),
        straggler_speed=np.ones(n) if speed is None else np.asarray(speed, dtype=np.float64),
        sdc_latency=np.zeros(n) if latency is None else np.asarray(latency, dtype=np.float64),
        sdc_latency_exp=np.zeros(n, dtype=np.bool_)
        if lat_exp is None
        else np.asarray(lat_exp, dtype=np.bool_),
    )
    floats = {"maint_rate", "maint_hours", "work_hours", "tau", "delta", "persist",
              "restart_hours", "swap_hours", "repair_hours", "cap_hours", "start_hour",
              "trend_shape", "fleet_age_hours", "speed_amp", "speed_phase"}  # fmt: skip
    for k, v in kw.items():
        if k in floats:
            v = float(v)
        elif k in ("detect_hours", "cat_amp", "cat_phase"):
            v = np.asarray(v, dtype=np.float64)
        elif k == "swap":
            v = np.asarray(v, dtype=np.bool_)
        base[k] = v
    return KernelInputs(**base)


def check_invariants(out, x: KernelInputs) -> None:
    """Identities every trial must satisfy (see relmc.sim)."""
    wall, lost = out["wall_hours"], out["lost_hours"]
    assert np.all(wall <= x.cap_hours * (1 + REL))
    # time accounting: wall == progress + sum(lost), to rounding; SDC rollbacks are rework
    np.testing.assert_allclose(
        out["progress_hours"] + lost.sum(axis=1), wall, rtol=0, atol=REL * x.cap_hours
    )
    causes = [j for c, j in CAUSE.items() if c != "slowdown"]
    assert np.all(lost[:, causes] >= -REL * x.cap_hours)
    done = out["finished"]
    np.testing.assert_allclose(out["progress_hours"][done], x.work_hours, rtol=1e-12)
    assert np.all(out["progress_hours"] >= 0) and np.all(out["progress_hours"] <= x.work_hours)
    assert np.all(out["events"] <= x.max_events)
    for name in NEW:
        assert np.all(out[name] >= 0), name
    assert np.all(out["sdc_undetected"] <= 1)
    # the SDC rework is a part of the rework
    assert np.all(out["sdc_rework_hours"] <= lost[:, CAUSE["rework"]] + REL * x.cap_hours)
    sdc = x.cat_kind == 2
    assert np.all(out["sdc_from_scratch"] <= out["interruptions"][:, sdc].sum(axis=1))
    if not np.any(x.cat_kind == 1):
        assert not lost[:, CAUSE["straggler"]].any()
    if not np.any(sdc):
        assert not any(out[name].any() for name in NEW)


# --------------------------------------------------------------------------------------------
# off by default


def test_off_by_default_is_bit_identical_to_before():
    # the golden digests of the node-model-off scenarios (made before the node model and this
    # issue) still hold with the new inputs at their defaults; the new outputs are zero
    # (outputs the JSON lists under "moved" were moved on purpose by a later change, its note)
    bad, node_model_off = golden_changes("node_model_off")
    assert not bad, bad
    for name, (scenario, n, seed) in node_model_off.scenarios().items():
        ds = node_model_off.simulate_as_made(name, scenario, n_trials=n, seed=seed)
        assert not ds["lost_hours"].sel(cause="straggler").values.any()
        for out in NEW:
            assert not ds[out].values.any(), (name, out)


def test_explicit_failure_kinds_equal_the_defaults_bit_for_bit():
    x = _inputs([0.3, 0.2], [0, 0], maint_rate=0.05, maint_hours=0.5, delta=0.05, persist=0.1,
                restart_hours=0.2, n_spares=1, swap=[True, False])  # fmt: skip
    d = {f.name: getattr(x, f.name) for f in dataclasses.fields(x) if f.init}
    for k in ("cat_kind", "straggler_speed", "sdc_latency", "sdc_latency_exp"):
        d[k] = np.zeros(0, dtype=d[k].dtype)
    y = KernelInputs(**d)
    a, b = _run(x, 5), _run(y, 5)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert not x.physics


# --------------------------------------------------------------------------------------------
# bad input


S = "failures.categories['s']."  # the field prefix of a category named "s"


@pytest.mark.parametrize(
    ("build", "field", "allowed"),
    [
        (lambda: Category("s", kind="slow"), S + "kind", "one of"),
        (lambda: Category("s", straggler_speed=0.0), S + "straggler_speed", "(0, 1)"),
        (lambda: Category("s", straggler_speed=1.0), S + "straggler_speed", "(0, 1)"),
        (lambda: Category("s", straggler_speed=1.5), S + "straggler_speed", "(0, 1)"),
        (lambda: Category("s", straggler_speed="x"), S + "straggler_speed", "(0, 1)"),  # type: ignore[arg-type]
        (lambda: Category("s", sdc_latency_hours=-1.0), S + "sdc_latency_hours", ">= 0"),
        (lambda: Category("s", sdc_latency_hours=math.inf), S + "sdc_latency_hours", ">= 0"),
        (
            lambda: Category("s", sdc_latency_distribution="gamma"),
            S + "sdc_latency_distribution",
            "fixed, exponential",
        ),
        (lambda: Policy(checkpoint_retention=-1), "policy.checkpoint_retention", "[0, 2147483647]"),
        (lambda: Policy(checkpoint_retention=1.5), "policy.checkpoint_retention", "2147483647]"),  # type: ignore[arg-type]
    ],
)  # fmt: skip
def test_each_bad_field_is_named_with_its_range(build, field, allowed):
    with pytest.raises(FieldError) as e:
        build()
    assert e.value.field == field
    assert allowed in str(e.value)


def test_stragglers_with_the_node_model_run_on_the_combined_path():
    # once refused; now the kernel's combined path (tests/test_physics_nodes_kernel.py): the
    # straggler's slow time is charged and restarts are counted by source, which only the
    # node model does (the physics path leaves those counts at zero). A slow phase of 0.5 h
    # (with none, a straggler is handled at its arrival and slows only a final snapshot it
    # strikes: ~1 in 64 trials, so whether any trial of a seed does was luck)
    straggler = Category("s", rate=0.01, kind="straggler", recovery="swap", detection_hours=0.5)
    sc = Scenario(
        cluster=Cluster(n_gpus=64),
        failures=FailureModel((straggler,), bad_node_fraction=0.1),
        job=Job(10.0),
    )
    ds = simulate(sc, n_trials=64, seed=0)
    slow = ds["lost_hours"].sel(cause="straggler")
    assert float(slow.sum()) > 0 and float((slow > 0).mean()) > 0.9
    assert int(ds["restarts_storage"].sum()) > 0 and int(ds["restarts_memory"].sum()) == 0
    plain = dataclasses.replace(sc, failures=dataclasses.replace(sc.failures, bad_node_fraction=0))
    assert int(simulate(plain, n_trials=64, seed=0)["restarts_storage"].sum()) == 0


def test_lowering_of_the_new_fields():
    from relmc.sim.simulate import kernel_inputs

    sc = Scenario(
        cluster=Cluster(n_gpus=64),
        failures=FailureModel((
            Category("f", rate=1e-3),
            Category("s", rate=1e-3, kind="straggler", straggler_speed=0.3),
            Category("d", rate=1e-3, kind="sdc", sdc_latency_hours=4.0,
                     sdc_latency_distribution="exponential"),
        )),
        job=Job(10.0),
        policy=Policy(checkpoint_retention=3),
    )  # fmt: skip
    x, _ = kernel_inputs(sc, None, 4)
    assert x.cat_kind.tolist() == [0, 1, 2]
    assert x.straggler_speed.tolist() == [1.0, 0.3, 1.0]
    assert x.sdc_latency.tolist() == [0.0, 0.0, 4.0]
    assert x.sdc_latency_exp.tolist() == [False, False, True]
    assert x.retention == 3 and x.physics
    ds = simulate(sc, n_trials=8, seed=1)
    for name in NEW:
        units = "h" if name.endswith("_hours") else "1"
        assert ds[name].attrs["units"] == units and ds[name].attrs["long_name"]


# --------------------------------------------------------------------------------------------
# invariants on random scenarios, and extremes that must end


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rates=st.lists(st.floats(0.0, 0.6), min_size=3, max_size=3),
    speed=st.floats(0.01, 0.99),
    latency=st.floats(0.0, 6.0),
    lat_exp=st.booleans(),
    retention=st.integers(0, 3),
    maint=st.sampled_from([0.0, 0.05]),
    spares=st.sampled_from([-1, 0, 2]),
    delta=st.sampled_from([0.0, 0.05]),
    persist=st.sampled_from([0.0, 0.3]),
    diurnal=st.booleans(),
    speed_amp=st.sampled_from([0.0, 0.3]),
    max_events=st.sampled_from([1_000_000, 9]),
    seed=st.integers(0, 2**16),
)
def test_invariants_on_random_scenarios(
    rates, speed, latency, lat_exp, retention, maint, spares, delta, persist, diurnal,
    speed_amp, max_events, seed,
):  # fmt: skip
    x = _inputs(
        rates, [0, 1, 2], n_trials=256, speed=[1.0, speed, 1.0], latency=[0.0, 0.0, latency],
        lat_exp=[False, False, lat_exp], retention=retention, maint_rate=maint, maint_hours=0.5,
        n_spares=spares, repair_hours=5.0, swap=[True, True, False], delta=delta,
        persist=persist, restart_hours=0.1, swap_hours=0.2, detect_hours=[0.05, 1.5, 0.1],
        cat_amp=[0.5, 0.3, 0.8] if diurnal else [0.0, 0.0, 0.0], cat_phase=[3.0, 10.0, 20.0],
        trend_shape=1.3 if diurnal else 1.0, fleet_age_hours=100.0, speed_amp=speed_amp,
        speed_phase=5.0, max_events=max_events, cap_hours=200.0,
    )  # fmt: skip
    out = _run(x, seed)
    check_invariants(out, x)


@pytest.mark.parametrize(
    "case",
    ["speed_0.01", "latency_beyond_K1", "sdc_rate_high", "straggler_rate_high"],
)
def test_extremes_end(case):
    kw = dict(retention=1, cap_hours=400.0, delta=0.02, persist=0.1, restart_hours=0.05)
    if case == "speed_0.01":
        x = _inputs([0.0, 0.5, 0.0], [0, 1, 2], speed=[1, 0.01, 1], detect_hours=[0, 50.0, 0], **kw)
    elif case == "latency_beyond_K1":
        x = _inputs([0.1, 0.0, 0.3], [0, 1, 2], latency=[0, 0, 7.5], **kw)  # 7.5 intervals
    elif case == "sdc_rate_high":
        x = _inputs([0.0, 0.0, 500.0], [0, 1, 2], latency=[0, 0, 0.01], **kw)
    else:
        x = _inputs([0.0, 1e4, 0.0], [0, 1, 2], speed=[1, 0.5, 1], **kw)
    out = _run(x, 3)
    check_invariants(out, x)
    if case == "latency_beyond_K1":
        # with K = 1 and a latency of 7.5 intervals, an SDC can never find a clean checkpoint
        # once one was written after it: most rollbacks go to progress 0
        n = out["interruptions"][:, 2].sum()
        assert n > 0 and out["sdc_from_scratch"].sum() >= 0.5 * n
        # a trial finishes only when no corruption is found before its end
        assert np.all(out["interruptions"][out["finished"], 0] >= 0)
    if case == "sdc_rate_high":
        assert not out["finished"].any()


# --------------------------------------------------------------------------------------------
# known answers


def _mean_se(v):
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def test_straggler_mean_wall_time_renewal():
    # No failures; stragglers arrive at rate lam while none is active, each slows the job to
    # speed s for D hours, then is handled at no cost (delta = persist = restart = 0, no swap).
    # In compute coordinates the job alternates Exp(lam) normal compute with slow stretches
    # of a = s D compute (wall D each), so wall = W + (1 - s) / s * Z(W), Z the slow compute
    # in [0, W]. Alternating renewal from an up period, cycle C = U + a, mu = 1/lam + a:
    #   E[Z(W)] = a W / mu + a (E[C^2] / (2 mu^2) - 1) + a^2 / (2 mu) + o(1)
    # (renewal function t/mu + E C^2/(2 mu^2) - 1, plus the length-biased partial cycle), with
    # E[C^2] = 1/lam^2 + mu^2; the o(1) is exponentially small at W / mu = 180.
    lam, big_d, s, w = 0.1, 2.0, 0.5, 2000.0
    a = s * big_d
    mu = 1.0 / lam + a

    def expected(speed):
        aa = speed * big_d
        m = 1.0 / lam + aa
        z = aa * w / m + aa * ((1 / lam**2 + m**2) / (2 * m**2) - 1) + aa**2 / (2 * m)
        return w + (1 - speed) / speed * z

    assert mu == 11.0
    x = _inputs([lam], [1], n_trials=2000, speed=[s], detect_hours=[big_d], work_hours=w,
                cap_hours=20 * w)  # fmt: skip
    out = _run(x, 17)
    check_invariants(out, x)
    assert out["finished"].all()
    mean, se = _mean_se(out["wall_hours"])
    # 4 SE at 2000 trials (SE ~ 0.3 h on ~2182 h)
    assert abs(mean - expected(s)) < 4 * se, (mean, se, expected(s))
    # negative control: the formula without the slowdown (s = 1: wall = W) must fail
    assert abs(mean - expected(1.0)) > 20 * se
    # the lost straggler hours are the whole excess
    np.testing.assert_allclose(out["lost_hours"][:, CAUSE["straggler"]], out["wall_hours"] - w,
                               rtol=0, atol=1e-9 * w)  # fmt: skip


@pytest.mark.parametrize("latency", [0.25, 2.5])
def test_sdc_rework_per_detection(latency):
    # No other failures, K = 0 (all kept), zero overheads, tau = 1, fixed latency L. After
    # each rollback progress is a multiple of tau and the next corruption comes X ~ Exp(lam)
    # compute later (its clock paused while one is latent), at phase phi = X mod tau. It is
    # found L later at progress p_c + L; the newest checkpoint at or below p_c is floor(p_c):
    #   rework per SDC      = L + E[phi],  E[phi] = 1/lam - tau / (e^(lam tau) - 1)
    #   rollbacks per SDC   = E[floor((phi + L) / tau)] = n0 + P(phi >= tau - l),
    #   L = n0 tau + l,     P(phi >= y) = (e^(-lam y) - e^(-lam tau)) / (1 - e^(-lam tau)).
    # The last corruption of a trial is found only if p_c + L < W; with W - L a multiple of
    # tau its phase given that it is not found is again Exp mod tau (memoryless), so by Wald's
    # identity the ratio of totals has no edge bias.
    lam, tau = 0.5, 1.0
    w = 200.0 + latency
    n0 = math.floor(latency / tau)
    ell = latency - n0 * tau
    e_phi = 1 / lam - tau / math.expm1(lam * tau)
    p_tail = (math.exp(-lam * (tau - ell)) - math.exp(-lam * tau)) / -math.expm1(-lam * tau)
    x = _inputs([lam], [2], n_trials=1000, latency=[latency], work_hours=w, cap_hours=20 * w,
                retention=0)  # fmt: skip
    out = _run(x, 23)
    check_invariants(out, x)
    assert out["finished"].all()
    n = out["interruptions"][:, 0].astype(float)
    rework = out["lost_hours"][:, CAUSE["rework"]]
    skipped = out["sdc_rollbacks"].astype(float)

    def ratio(y):
        # ratio of totals over trials, SE by the delta method
        r = y.sum() / n.sum()
        d = y - r * n
        return r, float(d.std(ddof=1) * math.sqrt(n.size) / n.sum())

    # no other failures: all the rework is the rollbacks' (to rounding: two sums)
    np.testing.assert_allclose(out["sdc_rework_hours"], rework, rtol=1e-12, atol=1e-9)
    r, se = ratio(rework)
    assert abs(r - (latency + e_phi)) < 4 * se, (r, se, latency + e_phi)
    # negative control: a uniform phase (E[phi] = tau / 2) must fail
    assert abs(r - (latency + tau / 2)) > 6 * se
    r2, se2 = ratio(skipped)
    assert abs(r2 - (n0 + p_tail)) < 4 * se2, (r2, se2, n0 + p_tail)
    assert abs(r2 - latency / tau) > 6 * se2  # uniform phase's answer, L / tau, must fail
