"""Stragglers and SDC with the node model, in the kernel (issues 11 and 12 together).

With a straggler or SDC category and any node feature on, the kernel runs its combined path
(``relmc.sim._kernels._block_physics_nodes``): the physics path's event loop with the node
path's recovery. Here it is run directly, so its bookkeeping checks (nodes conserved, records
listed where their nodes are, no record leaked, record types) are read too, and compared with
the oracle (:mod:`relmc.sim.reference`), which keeps an explicit list of nodes with one clock
each, in distribution with everything on and at the extremes. Known answers for what only
this combination has: an SDC whose node left the job before its detection blames no node
(also when the node is back in the job by then); the restart after a straggler's handling or
an SDC reads storage even with memory restore on; a straggler's node is the one lemon
detection counts.

Tolerances: identities that hold for every trial are exact, or within float rounding of sums
of a few thousand terms (``REL`` = 1e-9 relative to the cap). Statistical checks allow
``Z_MAX`` = 4.5 standard errors (about 7e-6 chance of a false failure each); oracle
comparisons use :func:`physicsinputs.sdc_disagreements` (every output's mean within 4.5
combined standard errors, KS on the wall time).
"""

from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from physicsinputs import run, sdc_disagreements, sdc_inputs
from test_nodes_kernel import _inputs, node_scenarios
from test_physics_sdc import everything

from relmc._seed import child_seed
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario
from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import KERNEL_PARAMETERS, KernelInputs, allocate_outputs, kernel_args
from relmc.sim.simulate import BLOCK_SIZE, NODE_OUTPUTS, simulate

REL = 1e-9
Z_MAX = 4.5
CAUSE = {c: j for j, c in enumerate(CAUSES)}
COUNTS = [name for name in NODE_OUTPUTS if name != "pool_occupancy"]


def _run_pn(x: KernelInputs, seed: int):
    """Run the combined path over blocks of 256 trials; return its outputs and stats."""
    assert x.node_model and x.physics
    n = x.n_trials
    out = allocate_outputs(n, x.n_categories)
    stats = np.zeros(4, dtype=np.int64)  # a fourth slot: the kernel checks record types too
    root = np.random.SeedSequence(seed)
    wanted = list(inspect.signature(_kernels._block_physics_nodes.py_func).parameters)[1:-1]
    for b in range(-(-n // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        block = slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)
        named = dict(zip(KERNEL_PARAMETERS[1:], kernel_args(x, out, block), strict=True))
        _kernels._block_physics_nodes(rng, *(named[p] for p in wanted), stats)
    return out, stats


def check_invariants(out, x: KernelInputs, stats) -> None:
    """Identities every trial must satisfy with stragglers, SDC and the node model."""
    assert stats.tolist() == [0, 0, 0, 0], stats  # conserved, listed, no leak, types
    wall, lost = out["wall_hours"], out["lost_hours"]
    cap = x.cap_hours if math.isfinite(x.cap_hours) else float(wall.max())
    assert np.all(wall <= x.cap_hours * (1 + REL))
    np.testing.assert_allclose(
        out["progress_hours"] + lost.sum(axis=1), wall, rtol=0, atol=REL * max(cap, 1.0)
    )
    causes = [j for c, j in CAUSE.items() if c != "slowdown"]
    assert np.all(lost[:, causes] >= -REL * max(cap, 1.0))
    done = out["finished"]
    np.testing.assert_allclose(out["progress_hours"][done], x.work_hours, rtol=1e-12)
    interruptions = out["interruptions"].sum(axis=1)
    events = interruptions + out["maintenance_events"]
    assert np.array_equal(events, out["events"])
    assert np.all(events <= x.max_events)
    for name in (*COUNTS, "sdc_rollbacks", "sdc_from_scratch", "sdc_rework_hours"):
        assert np.all(out[name] >= 0), name
    rework = lost[:, CAUSE["rework"]]
    assert np.all(out["sdc_rework_hours"] <= rework + REL * max(cap, 1.0))
    assert np.all((out["sdc_undetected"] == 0) | (out["sdc_undetected"] == 1))
    assert np.all(out["wrong_blames"] <= interruptions)
    assert np.all(out["repairs_manual"] <= out["repairs_auto"])
    # a restart begins after each recovered event at most (a straggler ended by another
    # stop, or never handled, has none of its own)
    assert np.all(out["restarts_memory"] + out["restarts_storage"] <= events)
    if x.mem_restart_hours < 0:
        assert not out["restarts_memory"].any()
    if x.lemon_k == 0:
        assert not (out["nodes_excluded_bad"].any() or out["nodes_excluded_good"].any())
    occ = out["pool_occupancy"]
    if x.n_spares >= 0:
        assert np.all((occ >= -REL) & (occ <= x.n_spares * (1 + REL)))
    else:
        assert np.all(np.isnan(occ))


# --------------------------------------------------------------------------------------------
# the kernel against the oracle, everything on and at the extremes

#: ``test_physics_sdc.everything`` (stragglers, SDC, failures, maintenance, one spare, four
#: nodes with bad ones, diagnosis, wrong blame, a standby, diurnal rates and speed) plus:
WITH_NODES = {
    "everything": {},
    "lemons_domain_memory": dict(
        lemon_k=2,
        lemon_window=20.0,
        cat_domain=np.array([1, 1, 1, 1, 2]),
        mem_restart_hours=0.05,
        mem_replicas=1,
        n_spares=2,
    ),
    # a domain failure of all four nodes takes most corrupted nodes before their detection
    "sdc_node_leaves": dict(
        cat_domain=np.array([1, 1, 1, 1, 4]),
        sdc_latency=np.array([0.0, 0.0, 0.0, 3.0, 0.0]),
        sdc_latency_exp=np.zeros(5, dtype=bool),
        lemon_k=1,
        n_spares=4,
        repair_hours=0.5,
    ),
    "repair_pipeline_fixed": dict(
        repair_fixed=True,
        escalate_prob=0.5,
        auto_miss=0.3,
        manual_miss=0.2,
        retire_after=2,
        preempt_hours=0.1,
        lemon_k=3,
        lemon_window=10.0,
    ),
    "all_bad_always_wrong_unlimited": dict(
        bad_fraction=1.0,
        diag_wrong=np.ones(5),
        lemon_k=1,
        n_spares=-1,
        mem_restart_hours=0.0,
        mem_replicas=2,
    ),
    "slow_straggler_k1_retention1": dict(
        straggler_speed=np.array([1.0, 0.01, 1.0, 1.0, 1.0]),
        retention=1,
        lemon_k=1,
        bad_multiplier=np.array([5.0, 20.0, 1.0, 20.0, 1.0]),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WITH_NODES))
def test_kernel_matches_oracle_with_nodes(name):
    x = everything(31, n_trials=1500, **WITH_NODES[name])
    assert x.node_model and x.physics
    kernel, stats = _run_pn(x, 32)
    check_invariants(kernel, x, stats)
    oracle = run("reference", x, seed=33)
    assert sdc_disagreements(kernel, oracle) == []
    assert kernel["interruptions"][:, 1].sum() > 0 and kernel["interruptions"][:, 3].sum() > 0


def test_negative_control_the_oracle_comparison_sees_a_wrong_bad_multiplier():
    # the same comparison with the kernel's straggler and SDC categories 20x on bad nodes
    # against the oracle's 5x and 2x must fail (the struck nodes' types and the lemons move)
    x = everything(31, n_trials=1500, lemon_k=1)
    kernel, _ = _run_pn(
        dataclasses.replace(x, bad_multiplier=np.array([5.0, 20.0, 1.0, 20.0, 1.0])), 32
    )
    oracle = run("reference", x, seed=33)
    assert sdc_disagreements(kernel, oracle) != []


# --------------------------------------------------------------------------------------------
# invariants on random scenarios


@st.composite
def physics_node_scenarios(draw):
    sc = draw(node_scenarios())
    f = st.floats
    cats = list(sc.failures.categories)
    kinds = [draw(st.sampled_from(["failure", "straggler", "sdc"])) for _ in cats]
    if all(k == "failure" for k in kinds):
        kinds[0] = draw(st.sampled_from(["straggler", "sdc"]))
    cats = [
        dataclasses.replace(
            c,
            kind=k,
            straggler_speed=draw(f(0.01, 0.95)),
            sdc_latency_hours=draw(f(0.0, 3.0)),
            sdc_latency_distribution=draw(st.sampled_from(["fixed", "exponential"])),
        )
        for c, k in zip(cats, kinds, strict=True)
    ]
    return dataclasses.replace(
        sc,
        failures=dataclasses.replace(sc.failures, categories=tuple(cats)),
        policy=dataclasses.replace(sc.policy, checkpoint_retention=draw(st.integers(0, 3))),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=physics_node_scenarios(), seed=st.integers(0, 2**32 - 1))
def test_invariants_on_random_scenarios(sc, seed):
    x = _inputs(sc, 64)
    if not x.node_model:  # every node feature drawn off: the physics path's tests cover it
        x = dataclasses.replace(x, lemon_k=2, lemon_window=1e-9)
    out, stats = _run_pn(x, seed)
    check_invariants(out, x, stats)


# --------------------------------------------------------------------------------------------
# known answers


def _sdc_with_domain(n_spares: int, n_trials: int):
    """SDC on one of 4 nodes (latency 1 h), and a failure taking all 4 nodes at 0.7/h.

    Every overhead is zero, so the job is exposed all the time: a corruption's node is still
    in the job at its detection iff no domain failure came in the latency, probability
    ``exp(-0.7)``. With ``n_spares = 0`` and repairs of 1e-6 h the same four nodes are back
    in the job at once (then the node that left is in the job again at the detection).
    """
    return sdc_inputs(
        [0.5, 0.7],
        n_trials=n_trials,
        swap=[True, True],
        cat_kind=[2, 0],
        sdc_latency=[1.0, 0.0],
        cat_domain=[1, 4],
        n_nodes=4,
        n_spares=n_spares,
        repair_hours=1e-6,
        repair_fixed=n_spares >= 0,
        cap_hours=200.0,
    )


@pytest.mark.parametrize("n_spares", [-1, 0])
def test_an_sdc_whose_node_left_blames_no_node(n_spares):
    q = math.exp(-0.7)
    x = _sdc_with_domain(n_spares, 400)
    kernel = _run_pn(x, 5)[0]
    oracle = run("reference", _sdc_with_domain(n_spares, 100), 6)
    for engine, out in (("kernel", kernel), ("oracle", oracle)):
        detections = out["interruptions"][:, 0].sum()
        # every domain failure sends 4 nodes to repair; the rest are blamed corrupted nodes
        blamed = out["repairs_auto"].sum() - 4 * out["interruptions"][:, 1].sum()
        se = math.sqrt(q * (1 - q) / detections)
        assert detections > 1000, engine
        assert abs(blamed / detections - q) < Z_MAX * se, (engine, blamed / detections, q)
        # negative control: blaming the node whenever it is in the job at the detection
        # (with every repair instant, nearly always) or always would give about 1
        assert abs(blamed / detections - 1.0) > Z_MAX * se, engine


def _memory_inputs(kind: int):
    # one category of the given kind, memory restore on with more replicas than ever needed
    return sdc_inputs(
        [0.3],
        n_trials=300,
        swap=[True],
        detect=[0.05],
        cat_kind=[kind],
        straggler_speed=[0.5],
        sdc_latency=[0.5],
        work_hours=30.0,
        tau=1.0,
        restart_hours=0.2,
        mem_restart_hours=0.02,
        mem_replicas=10**6,
        n_nodes=8,
        cap_hours=500.0,
    )


@pytest.mark.parametrize("kind", [1, 2])
def test_stragglers_and_sdc_restart_from_storage(kind):
    out, stats = _run_pn(_memory_inputs(kind), 8)
    check_invariants(out, _memory_inputs(kind), stats)
    assert not out["restarts_memory"].any()
    assert out["restarts_storage"].sum() > 300
    # negative control: the same category as an ordinary failure restarts from memory
    # every time (the kernel's node path)
    x = dataclasses.replace(_memory_inputs(kind), cat_kind=np.zeros(1, dtype=np.int64))
    plain = run("kernel", x, 8)
    assert not plain["restarts_storage"].any()
    assert plain["restarts_memory"].sum() == plain["events"].sum() > 300


def test_each_handled_straggler_excludes_its_node_at_k1():
    # one straggler category, lemon detection at the first failure: every handled straggler
    # excludes its node; all but the last straggler of a trial are handled (the last may
    # come after the job's last compute); the struck node is bad with probability
    # m B / (n - B + m B), all bad here
    x = sdc_inputs(
        [0.4],
        n_trials=256,
        swap=[True],
        detect=[0.1],
        cat_kind=[1],
        straggler_speed=[0.5],
        work_hours=40.0,
        tau=1.0,
        n_nodes=16,
        lemon_k=1,
        bad_fraction=1.0,
    )
    out, stats = _run_pn(x, 9)
    check_invariants(out, x, stats)
    assert out["finished"].all()
    excluded = out["nodes_excluded_bad"] + out["nodes_excluded_good"]
    unhandled = out["interruptions"][:, 0] - excluded
    assert np.all((unhandled == 0) | (unhandled == 1)) and excluded.sum() > 2000
    assert not out["nodes_excluded_good"].any()
    assert np.array_equal(out["restarts_storage"], excluded)
    # negative control: at k = 2 a node is excluded at its second straggler only
    out2, _ = _run_pn(dataclasses.replace(x, lemon_k=2), 9)
    assert out2["nodes_excluded_bad"].sum() < 0.2 * excluded.sum()


# --------------------------------------------------------------------------------------------
# through the API


def _api_scenario() -> Scenario:
    cats = (
        Category("node", rate=0.01, unit="node", recovery="swap", detection_hours=0.05),
        Category(
            "slow",
            rate=0.01,
            unit="node",
            recovery="swap",
            kind="straggler",
            detection_hours=0.5,
            straggler_speed=0.3,
        ),  # fmt: skip
        Category(
            "sdc", rate=0.004, unit="node", recovery="swap", kind="sdc", sdc_latency_hours=2.0
        ),  # fmt: skip
    )
    return Scenario(
        cluster=Cluster(n_gpus=128),
        failures=FailureModel(cats, bad_node_fraction=0.2, bad_node_multiplier=5.0),
        job=Job(60.0),
        policy=Policy(
            checkpoint_interval=1.0,
            checkpoint_retention=2,
            lemon_failures=1,
            n_standbys=2,
            n_spares=4,
            repair_hours=10.0,
            memory_restart_hours=0.02,
        ),
    )


def test_stragglers_and_sdc_with_nodes_through_the_api_on_one_or_two_threads():
    a = simulate(_api_scenario(), n_trials=600, seed=3, n_threads=1)
    b = simulate(_api_scenario(), n_trials=600, seed=3, n_threads=2)
    for var in a.data_vars:
        np.testing.assert_array_equal(a[var].values, b[var].values, err_msg=var)
    lost = a["lost_hours"].sel(cause="straggler")
    assert float(lost.mean()) > 0
    bad, good = int(a["nodes_excluded_bad"].sum()), int(a["nodes_excluded_good"].sum())
    assert bad / (bad + good) > 0.3 and good > 0  # bad nodes over-represented (20 % of nodes)
    assert int(a["restarts_memory"].sum()) > 0 and int(a["restarts_storage"].sum()) > 0
    assert int(a["interruptions"].sel(category="sdc").sum()) > 0


# --------------------------------------------------------------------------------------------
# lemon times and the rollback tolerance: the points a review of the combined path found


def _one_node_lemons(kinds, n_trials, window=2.0):
    # one node, lemon detection at 2 failures within `window` hours, 3-hour restarts (during
    # which failures strike too): an exclusion depends on the failures' wall times
    return sdc_inputs(
        [0.2, 1e-9],
        n_trials=n_trials,
        swap=[False, False],
        cat_kind=kinds,
        sdc_latency=[0.0, 0.0],
        n_nodes=1,
        lemon_k=2,
        lemon_window=window,
        restart_hours=3.0,
        cap_hours=500.0,
    )


def test_a_failure_is_recorded_for_lemons_at_its_wall_time():
    # the combined path (an SDC category at 1e-9/h only routes the inputs there) against the
    # node path and the oracle; it once recorded a failure at the start of the phase it
    # struck in (17.2 exclusions per trial against 24.7)
    combined, stats = _run_pn(_one_node_lemons([0, 2], 4000), 1)
    assert stats.tolist() == [0, 0, 0, 0]
    node_path = run("kernel", _one_node_lemons([0, 0], 4000), 2)
    oracle = run("reference", _one_node_lemons([0, 2], 1500), 3)
    assert combined["nodes_excluded_good"].mean() > 20
    assert sdc_disagreements(combined, oracle) == []
    assert sdc_disagreements(combined, node_path) == []
    # negative control: a window of 1.5 h instead of 2 is seen
    narrower = run("kernel", _one_node_lemons([0, 0], 4000, window=1.5), 2)
    assert sdc_disagreements(combined, narrower) != []


def _late_sdc(lemon_k, latency, n_trials):
    # stragglers and SDC on one node; failures recorded during an SDC's latency would come
    # before the SDC's own record if that were dated at the corruption
    return sdc_inputs(
        [0.15, 0.05],
        n_trials=n_trials,
        swap=[False, False],
        detect=[0.5, 0.0],
        cat_kind=[1, 2],
        straggler_speed=[0.5, 1.0],
        sdc_latency=[0.0, latency],
        n_nodes=1,
        lemon_k=lemon_k,
        lemon_window=10.0,
        tau=10.0,
        cap_hours=1000.0,
    )


@pytest.mark.parametrize("lemon_k", [2, 3])
def test_sdc_lemon_records_keep_time_order(lemon_k):
    # the kernel keeps a node's last lemon_k record times in the order recorded; with the
    # SDC recorded at its detection that is time order, as the oracle's count assumes
    kernel, stats = _run_pn(_late_sdc(lemon_k, 10.0, 6000), 21)
    assert stats.tolist() == [0, 0, 0, 0]
    oracle = run("reference", _late_sdc(lemon_k, 10.0, 2000), 22)
    assert kernel["nodes_excluded_good"].mean() > 10
    assert sdc_disagreements(kernel, oracle) == []


def _tau_beyond_the_job(n_trials, tau=1e9):
    # no periodic checkpoint (tau beyond a 50-hour job): frequent planned maintenance takes
    # checkpoints, the SDC rolls back to one taken before the corruption
    return sdc_inputs(
        [0.05],
        n_trials=n_trials,
        cat_kind=[2],
        sdc_latency=[3.0],
        work_hours=50.0,
        tau=tau,
        maint_rate=0.3,
        maint_hours=0.0,
        cap_hours=2000.0,
    )


def test_sdc_rollback_tolerance_scales_with_the_job_not_tau():
    # Any tau beyond the job is the same process (one segment, checkpoints only at planned
    # maintenance), and the same seed draws the same numbers: the outputs must be equal bit
    # for bit. A rounding allowance of 1e-9 tau (1 h at tau = 1e9) let maintenance
    # checkpoints up to an hour of progress after the corruption qualify as rollback points,
    # and made them differ; 1e-9 min(tau, work) does not. Physics path (node model off).
    x = _tau_beyond_the_job(2000)
    assert not x.node_model
    kernel = run("kernel", x, 31)
    assert kernel["interruptions"].sum() > 2000 and kernel["sdc_rollbacks"].sum() > 1000
    near = run("kernel", _tau_beyond_the_job(2000, tau=100.0), 31)
    for name, value in kernel.items():
        np.testing.assert_array_equal(value, near[name], err_msg=name)
    # and the oracle agrees in distribution
    oracle = run("reference", _tau_beyond_the_job(1000), 32)
    assert sdc_disagreements(kernel, oracle) == []
