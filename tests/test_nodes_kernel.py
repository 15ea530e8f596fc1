"""The kernel's node model (issue 12): off by default, bad input, invariants, known answers.

The node model (lemons, blast radius, diagnosis, the repair pipeline, standbys, restart from
memory; see :mod:`relmc.sim`) is off unless a field turns it on, and then the kernel must give
exactly what it gave before the model existed: golden digests made on that code by the
committed script ``tests/golden/node_model_off.py``. With it on, the node path
(``relmc.sim._kernels._block_nodes``) is run directly, so its bookkeeping checks (nodes
conserved, records listed where their nodes are, no record leaked) are read too.

Tolerances: identities that hold for every trial are exact, or within float rounding of sums
of up to a few thousand terms (``REL`` = 1e-9 relative to the wall clock). Statistical checks
allow ``Z_MAX`` = 4.5 standard errors (about 7e-6 chance of a false failure each).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import tomllib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernelcheck import golden_changes

from relmc._seed import child_seed
from relmc.errors import FieldError
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path
from relmc.sim import CAUSES, _kernels
from relmc.sim.inputs import (
    KERNEL_PARAMETERS,
    OUTPUTS,
    KernelInputs,
    allocate_outputs,
    kernel_args,
)
from relmc.sim.simulate import BLOCK_SIZE, NODE_OUTPUTS, kernel_inputs, simulate

REL = 1e-9
Z_MAX = 4.5
CAUSE = {c: j for j, c in enumerate(CAUSES)}
COUNTS = [name for name in NODE_OUTPUTS if name != "pool_occupancy"]


def _run_nodes(x: KernelInputs, seed: int):
    """Run the node path over blocks of 256 trials; return its outputs and bookkeeping stats."""
    n = x.n_trials
    out = allocate_outputs(n, x.n_categories)
    stats = np.zeros(4, dtype=np.int64)  # a fourth slot: the kernel checks record types too
    root = np.random.SeedSequence(seed)
    for b in range(-(-n // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        block = slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE)
        # the node path's parameters by name (the stragglers and SDC ones are not its own)
        named = dict(zip(KERNEL_PARAMETERS[1:], kernel_args(x, out, block), strict=True))
        wanted = list(inspect.signature(_kernels._block_nodes.py_func).parameters)[1:-1]
        _kernels._block_nodes(rng, *(named[p] for p in wanted), stats)
    return out, stats


def _scenario(cats, *, n_gpus=256, work=20.0, maint=(0.0, 0.0), failures=None, job=None,
              cluster=None, **policy) -> Scenario:  # fmt: skip
    fm = FailureModel(
        tuple(cats), maintenance_rate=maint[0], maintenance_hours=maint[1], **(failures or {})
    )
    return Scenario(
        cluster=Cluster(n_gpus=n_gpus, **(cluster or {})),
        failures=fm,
        job=Job(work, **(job or {})),
        policy=Policy(**policy),
    )


def _inputs(sc: Scenario, n_trials: int) -> KernelInputs:
    x, _ = kernel_inputs(sc, None, n_trials)
    return x


def check_invariants(out, x: KernelInputs, stats) -> None:
    """Identities every trial of the node model must satisfy (see the module docstring)."""
    # conserved, listed, no leak, every listed record of its list's type
    assert stats.tolist() == [0, 0, 0, 0], stats
    wall, lost = out["wall_hours"], out["lost_hours"]
    assert np.all(wall <= x.cap_hours * (1 + REL))
    # time accounting: wall == progress + sum(lost), to rounding
    np.testing.assert_allclose(
        out["progress_hours"] + lost.sum(axis=1), wall, rtol=0, atol=REL * x.cap_hours
    )
    causes = [j for c, j in CAUSE.items() if c != "slowdown"]
    assert np.all(lost[:, causes] >= -REL * x.cap_hours)
    done = out["finished"]
    np.testing.assert_allclose(out["progress_hours"][done], x.work_hours, rtol=1e-12)
    interruptions = out["interruptions"].sum(axis=1)
    events = interruptions + out["maintenance_events"]
    assert np.array_equal(events, out["events"])
    assert np.all(events <= x.max_events)
    for name in COUNTS:
        assert np.all(out[name] >= 0), name
    assert np.all(out["wrong_blames"] <= interruptions)
    assert np.all(out["repairs_manual"] <= out["repairs_auto"])
    # one restart begins after each recovered event: all of them, or all but the last
    restarts = out["restarts_memory"] + out["restarts_storage"]
    gap = events - restarts
    assert np.all((gap == 0) | (gap == 1)) and np.all(gap[done] == 0)
    if x.mem_restart_hours < 0:
        assert not out["restarts_memory"].any()
    if x.n_standbys == 0:
        assert not out["standby_swaps"].any()
    if x.lemon_k == 0:
        assert not (out["nodes_excluded_bad"].any() or out["nodes_excluded_good"].any())
    if x.retire_after == 0:
        assert not out["nodes_retired"].any()
    if x.escalate_prob == 0:
        assert not out["repairs_manual"].any()
    if x.preempt_hours == 0:
        assert not lost[:, CAUSE["preemption"]].any()
    if not np.any(x.diag_hours > 0):
        assert not lost[:, CAUSE["diagnosis"]].any()
    gone = out["nodes_excluded_bad"] + out["nodes_excluded_good"] + out["nodes_retired"]
    occ = out["pool_occupancy"]
    if x.n_spares >= 0:
        assert np.all(gone <= x.n_nodes + x.n_standbys + x.n_spares)
        assert np.all((occ >= -REL) & (occ <= x.n_spares * (1 + REL)))
    else:
        assert np.all(np.isnan(occ))


# --------------------------------------------------------------------------------------------
# off by default: bit for bit what the kernel gave before the node model


def test_off_by_default_is_bit_identical_to_before():
    bad, node_model_off = golden_changes("node_model_off")
    assert not bad, f"outputs changed with the node model off: {bad}"
    for name, (sc, _, seed) in node_model_off.scenarios().items():
        assert not _inputs(sc, 1).node_model, name
        ds = simulate(sc, n_trials=64, seed=seed, n_threads=1)
        for var in COUNTS:
            assert not ds[var].values.any(), (name, var)
        assert np.isnan(ds["pool_occupancy"].values).all()
        assert not ds["lost_hours"].sel(cause=["diagnosis", "preemption"]).values.any()


def test_node_model_property_is_the_kernels_switch():
    base = _inputs(_scenario([Category("a", rate=1e-3, unit="node", recovery="swap")]), 4)
    assert not base.node_model
    cases = {
        "bad_fraction": 0.1,
        "cat_domain": np.array([2]),
        "diag_hours": np.array([0.1]),
        "diag_wrong": np.array([0.1]),
        "lemon_k": 1,
        "repair_fixed": True,
        "escalate_prob": 0.5,
        "retire_after": 2,
        "n_standbys": 1,
        "preempt_hours": 0.1,
        "mem_restart_hours": 0.0,
        "bad_multiplier": np.array([5.0]),  # no bad nodes: still off
        "mem_replicas": 3,  # memory restore off: still off
    }
    for name, value in cases.items():
        x = dataclasses.replace(base, **{name: value})
        args = [getattr(x, f) for f in _kernels.node_model_on.py_func.__code__.co_varnames[:11]]
        assert x.node_model == _kernels.node_model_on(*args), name
        assert x.node_model == (name not in ("bad_multiplier", "mem_replicas")), name


def test_kernel_inputs_defaults_fill_per_category_arrays():
    x = KernelInputs(
        cat_rate=np.ones((1, 3)), draw_of_trial=np.zeros(2, dtype=np.int64),
        detect_hours=np.zeros(3), swap=np.zeros(3, dtype=bool), maint_rate=0.0, maint_hours=0.0,
        work_hours=1.0, tau=0.5, delta=0.0, persist=0.0, restart_hours=0.0, swap_hours=0.0,
        n_spares=-1, repair_hours=1.0, cap_hours=10.0,
    )  # fmt: skip
    assert x.bad_multiplier.tolist() == [1.0] * 3
    assert x.cat_domain.tolist() == [1] * 3 and x.cat_domain.dtype == np.int64
    assert x.diag_hours.tolist() == [0.0] * 3 and x.diag_wrong.tolist() == [0.0] * 3
    assert not x.node_model
    names = [name for name, _, _, _ in OUTPUTS]
    start = names.index("nodes_excluded_bad")  # the stragglers and SDC outputs (issue 11) follow
    assert names[start : start + 10] == [*COUNTS, "pool_occupancy"]


def test_lowering_of_the_node_fields():
    cats = [
        Category(
            "gpu", rate=1e-4, unit="gpu", recovery="swap", diagnosis_hours=0.2, wrong_blame=0.1
        ),  # fmt: skip
        Category("rack", rate=1e-3, unit="rack", domain="rack", bad_node_multiplier=1.0),
        Category("pod", rate=1e-3, unit="pod", domain="pod"),
    ]
    sc = _scenario(
        cats, n_gpus=100, failures={"bad_node_fraction": 0.2, "bad_node_multiplier": 4.0},
        cluster={"nodes_per_rack": 4, "gpus_per_pod": 64}, n_spares=3, lemon_failures=2,
        lemon_window_hours=48.0, repair_distribution="fixed", escalation_probability=0.3,
        manual_repair_hours=96.0, auto_repair_miss=0.4, manual_repair_miss=0.2,
        retire_after_repairs=3, n_standbys=2, preemption_hours=0.3, memory_restart_hours=0.05,
        memory_replicas=2,
    )  # fmt: skip
    x = _inputs(sc, 2)
    assert x.n_nodes == 13  # ceil(100 / 8)
    assert x.cat_domain.tolist() == [1, 4, 8]  # a pod: 64 // 8 nodes
    assert x.bad_multiplier.tolist() == [4.0, 1.0, 4.0]
    assert x.diag_hours.tolist() == [0.2, 0.0, 0.0] and x.diag_wrong.tolist() == [0.1, 0, 0]
    assert (x.bad_fraction, x.lemon_k, x.lemon_window) == (0.2, 2, 48.0)
    assert x.repair_fixed and (x.escalate_prob, x.manual_repair_hours) == (0.3, 96.0)
    assert (x.auto_miss, x.manual_miss, x.retire_after) == (0.4, 0.2, 3)
    assert (x.n_standbys, x.preempt_hours, x.mem_restart_hours, x.mem_replicas) == (
        2, 0.3, 0.05, 2,
    )  # fmt: skip
    # a pod larger than the job is the job's nodes
    small = replace_path(sc, "cluster.n_gpus", 16)
    assert _inputs(small, 1).cat_domain.tolist() == [1, 2, 2]


# --------------------------------------------------------------------------------------------
# bad input: a FieldError (a ValueError) naming the field and its range, before any work


def _cat(**kw):
    return Category("c", **kw)


@pytest.mark.parametrize(
    ("build", "field", "allowed"),
    [
        (lambda: FailureModel((_cat(),), bad_node_fraction=-0.1), "failures.bad_node_fraction",
         "[0, 1]"),
        (lambda: FailureModel((_cat(),), bad_node_fraction=1.5), "failures.bad_node_fraction",
         "[0, 1]"),
        (lambda: FailureModel((_cat(),), bad_node_fraction=math.nan),
         "failures.bad_node_fraction", "[0, 1]"),
        (lambda: FailureModel((_cat(),), bad_node_multiplier=0.5), "failures.bad_node_multiplier",
         ">= 1"),
        (lambda: FailureModel((_cat(),), bad_node_multiplier=math.inf),
         "failures.bad_node_multiplier", ">= 1"),
        (lambda: _cat(bad_node_multiplier=0.99), "failures.categories['c'].bad_node_multiplier",
         ">= 1"),
        (lambda: _cat(domain="switch"), "failures.categories['c'].domain", "node, rack, pod"),
        (lambda: _cat(domain=2), "failures.categories['c'].domain", "node, rack, pod"),
        (lambda: _cat(diagnosis_hours=-0.1), "failures.categories['c'].diagnosis_hours", ">= 0"),
        (lambda: _cat(wrong_blame=1.01), "failures.categories['c'].wrong_blame", "[0, 1]"),
        (lambda: _cat(wrong_blame=-0.01), "failures.categories['c'].wrong_blame", "[0, 1]"),
        (lambda: Policy(lemon_failures=-1), "policy.lemon_failures", "in [0, 1000]"),
        (lambda: Policy(lemon_failures=1.5), "policy.lemon_failures", "in [0, 1000]"),
        (lambda: Policy(lemon_window_hours=0.0), "policy.lemon_window_hours", "> 0"),
        (lambda: Policy(lemon_window_hours=math.inf), "policy.lemon_window_hours", "> 0"),
        (lambda: Policy(repair_distribution="weibull"), "policy.repair_distribution", "fixed"),
        (lambda: Policy(escalation_probability=-0.1), "policy.escalation_probability",
         "[0, 1]"),
        (lambda: Policy(escalation_probability=1.1), "policy.escalation_probability", "[0, 1]"),
        (lambda: Policy(manual_repair_hours=0.0), "policy.manual_repair_hours", "> 0"),
        (lambda: Policy(auto_repair_miss=2.0), "policy.auto_repair_miss", "[0, 1]"),
        (lambda: Policy(manual_repair_miss=math.nan), "policy.manual_repair_miss", "[0, 1]"),
        (lambda: Policy(retire_after_repairs=-1), "policy.retire_after_repairs", "[0, 2147483647]"),
        (lambda: Policy(n_standbys=-1), "policy.n_standbys", "in [0, 1e7]"),
        (lambda: Policy(n_standbys=10**8), "policy.n_standbys", "[0, 1e7]"),
        (lambda: Policy(preemption_hours=-1.0), "policy.preemption_hours", ">= 0"),
        (lambda: Policy(memory_restart_hours=-0.5), "policy.memory_restart_hours", ">= 0"),
        (lambda: Policy(memory_replicas=0), "policy.memory_replicas", "in [1, 2147483647]"),
        (lambda: Policy(memory_replicas=True), "policy.memory_replicas", "in [1, 2147483647]"),
    ],
)  # fmt: skip
def test_each_bad_node_field_is_named_with_its_range(build, field, allowed):
    with pytest.raises(FieldError) as e:
        build()
    assert e.value.field == field
    assert field in str(e.value) and allowed in str(e.value)


def test_node_fields_round_trip_and_sweep():
    sc = _scenario(
        [Category("gpu", rate=1e-4, domain="rack", diagnosis_hours=0.1, wrong_blame=0.2,
                  bad_node_multiplier=3.0)],  # fmt: skip
        failures={"bad_node_fraction": 0.1, "bad_node_multiplier": 2.0},
        n_spares=4, lemon_failures=2, lemon_window_hours=24.0, repair_distribution="fixed",
        escalation_probability=0.5, manual_repair_hours=48.0, auto_repair_miss=0.1,
        manual_repair_miss=0.05, retire_after_repairs=4, n_standbys=2, preemption_hours=0.2,
        memory_restart_hours=0.02, memory_replicas=2,
    )  # fmt: skip
    d = sc.to_dict()
    assert Scenario.from_dict(d) == sc
    assert Scenario.from_dict(tomllib.loads(_toml(d))) == sc
    off = Scenario.from_dict({"failures": d["failures"]})
    assert (
        off.policy.memory_restart_hours is None
        and "memory_restart_hours" not in (off.to_dict()["policy"])
    )
    # every field is a sweep axis
    for path, value in [
        ("failures.bad_node_fraction", 0.3),
        ("failures.bad_node_multiplier", 5.0),
        ("failures.categories.gpu.domain", "pod"),
        ("failures.categories.*.diagnosis_hours", 0.5),
        ("failures.categories.gpu.wrong_blame", 0.0),
        ("failures.categories.gpu.bad_node_multiplier", None),
        ("policy.lemon_failures", 3),
        ("policy.n_standbys", 16),
        ("policy.memory_restart_hours", None),
    ]:
        got = replace_path(sc, path, value)
        *head, leaf = path.split(".")
        obj = got.failures.categories[0] if "categories" in path else getattr(got, head[0])
        assert getattr(obj, leaf) == value, path
    with pytest.raises(FieldError, match="policy.escalation_probability"):
        replace_path(sc, "policy.escalation_probability", 2.0)
    with pytest.raises(FieldError, match="domain"):
        replace_path(sc, "failures.categories.*.domain", "row")


def _toml(d: dict) -> str:
    """A minimal TOML writer for Scenario.to_dict()'s layout (tests only)."""

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return json.dumps(v) if isinstance(v, str) else repr(v)

    lines = []
    for section, fields in d.items():
        lines.append(f"[{section}]")
        for k, v in fields.items():
            if k != "categories":
                lines.append(f"{k} = {value(v)}")
        for cat in fields.get("categories", []):
            lines.append(f"[[{section}.categories]]")
            lines += [f"{k} = {value(v)}" for k, v in cat.items()]
    return "\n".join(lines) + "\n"


def test_cli_flags_set_the_node_fields():
    from relmc.cli import build_parser
    from relmc.cli.compare import parse_policy
    from relmc.cli.inputs import check_scenario_options

    argv = [
        "project", "--bad-node-fraction", "0.15", "--bad-node-multiplier", "5",
        "--lemon-failures", "2", "--lemon-window-minutes", "600", "--repair-distribution",
        "fixed", "--escalation-probability", "0.8", "--manual-repair-hours", "48",
        "--auto-repair-miss", "0.4", "--manual-repair-miss", "0.2", "--retire-after-repairs",
        "3", "--n-standbys", "16", "--preemption-minutes", "20", "--memory-restart-minutes",
        "2", "--memory-replicas", "2",
    ]  # fmt: skip
    ov = check_scenario_options(build_parser().parse_args(argv))
    assert ov["failures"] == {"bad_node_fraction": 0.15, "bad_node_multiplier": 5.0}
    pol = Policy(**ov["policy"])
    assert (pol.lemon_failures, pol.lemon_window_hours, pol.repair_distribution) == (
        2, 10.0, "fixed",
    )  # fmt: skip
    assert (pol.n_standbys, pol.preemption_hours, pol.memory_replicas) == (16, 1 / 3, 2)
    assert pol.memory_restart_hours == pytest.approx(2 / 60)
    with pytest.raises(FieldError, match="policy.memory_replicas"):
        check_scenario_options(build_parser().parse_args(["project", "--memory-replicas", "0"]))
    # per-category fields: TOML, or compare's dotted fields
    name, fields = parse_policy("racks:failures.categories.*.domain=rack,n_standbys=4")
    assert fields == {"failures.categories.*.domain": "rack", "policy.n_standbys": 4}


# --------------------------------------------------------------------------------------------
# invariants on random scenarios with everything on


@st.composite
def node_scenarios(draw):
    f = st.floats
    n_cat = draw(st.integers(1, 3))
    cats = []
    for k in range(n_cat):
        cats.append(
            Category(
                f"c{k}",
                rate=draw(f(1e-3, 0.08)),
                unit="node",
                recovery=draw(st.sampled_from(["swap", "restart"])),
                detection_hours=draw(f(0.0, 0.2)),
                domain=draw(st.sampled_from(["node", "node", "rack", "pod"])),
                diagnosis_hours=draw(f(0.0, 0.3)),
                wrong_blame=draw(f(0.0, 1.0)),
                bad_node_multiplier=draw(st.none() | f(1.0, 10.0)),
                diurnal_amplitude=draw(st.sampled_from([0.0, 0.0, 0.7])),
                diurnal_peak_hour=float(3 * k),
            )
        )
    tau = draw(f(0.2, 2.0))
    return _scenario(
        cats,
        n_gpus=draw(st.sampled_from([8, 16, 40, 128, 512])),
        work=draw(f(2.0, 30.0)),
        maint=(draw(st.sampled_from([0.0, 0.1])), draw(f(0.0, 0.5))),
        failures={
            "bad_node_fraction": draw(f(0.0, 1.0)),
            "bad_node_multiplier": draw(f(1.0, 10.0)),
            "trend_shape": draw(st.sampled_from([1.0, 1.0, 0.6, 1.8])),
            "fleet_age_hours": 50.0,
        },
        job={"throughput_amplitude": draw(st.sampled_from([0.0, 0.0, 0.3]))},
        cluster={"nodes_per_rack": draw(st.integers(1, 4)), "gpus_per_pod": 64},
        checkpoint_interval=tau,
        snapshot_hours=draw(f(0.0, 0.05)),
        persist_hours=draw(f(0.0, 1.0)) * tau,
        restart_hours=draw(f(0.0, 0.3)),
        swap_hours=draw(f(0.0, 0.3)),
        n_spares=draw(st.none() | st.integers(0, 12)),
        repair_hours=draw(f(0.5, 40.0)),
        wall_cap_factor=draw(f(1.0, 5.0)),
        max_events=draw(st.sampled_from([3, 50, 1_000_000])),
        lemon_failures=draw(st.integers(0, 3)),
        lemon_window_hours=draw(f(0.5, 200.0)),
        repair_distribution=draw(st.sampled_from(["exponential", "fixed"])),
        escalation_probability=draw(f(0.0, 1.0)),
        manual_repair_hours=draw(f(1.0, 80.0)),
        auto_repair_miss=draw(f(0.0, 1.0)),
        manual_repair_miss=draw(f(0.0, 1.0)),
        retire_after_repairs=draw(st.integers(0, 3)),
        n_standbys=draw(st.integers(0, 4)),
        preemption_hours=draw(f(0.0, 0.5)),
        memory_restart_hours=draw(st.none() | f(0.0, 0.1)),
        memory_replicas=draw(st.integers(1, 3)),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=node_scenarios(), seed=st.integers(0, 2**32 - 1))
def test_invariants_on_random_scenarios(sc, seed):
    x = _inputs(sc, 64)
    out, stats = _run_nodes(x, seed)
    check_invariants(out, x, stats)


def _extreme_base(**policy):
    cats = [
        Category("node", rate=0.02, unit="node", recovery="swap", detection_hours=0.05),
        Category("soft", rate=0.01, unit="node", diagnosis_hours=0.1, wrong_blame=0.3),
        Category("rack", rate=0.004, unit="rack", domain="rack", recovery="swap"),
    ]
    kw = {"n_spares": 3, "repair_hours": 5.0, "swap_hours": 0.1, "restart_hours": 0.1}
    kw.update(policy)
    return cats, kw


EXTREMES = {
    "all_bad_x10": ({"bad_node_fraction": 1.0, "bad_node_multiplier": 10.0}, {}),
    "repairs_never_fix": (
        {"bad_node_fraction": 0.5, "bad_node_multiplier": 5.0},
        {"auto_repair_miss": 1.0, "manual_repair_miss": 1.0, "escalation_probability": 0.5},
    ),
    "always_wrong_blame": ({}, {"lemon_failures": 2, "cats_wrong": 1.0}),
    "domain_larger_than_pool": ({}, {"n_spares": 1, "rack_size": 8, "n_standbys": 1}),
    "retire_at_once_tiny_pool": ({}, {"retire_after_repairs": 1, "n_spares": 1}),
    "lemon_at_first_failure": ({"bad_node_fraction": 0.3}, {"lemon_failures": 1}),
    "exclusions_unlimited_pool": (
        {},
        {"lemon_failures": 1, "n_spares": None, "n_standbys": 2},
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", list(EXTREMES))
def test_extreme_settings_end_and_keep_the_invariants(name):
    failures, policy = EXTREMES[name]
    policy = dict(policy)
    wrong = policy.pop("cats_wrong", None)
    rack = policy.pop("rack_size", 2)
    cats, kw = _extreme_base(**policy)
    if wrong is not None:
        cats = [dataclasses.replace(c, wrong_blame=wrong) for c in cats]
    sc = _scenario(cats, n_gpus=64, work=40.0, failures=failures,
                   cluster={"nodes_per_rack": rack}, wall_cap_factor=5.0, **kw)  # fmt: skip
    x = _inputs(sc, 256)
    assert x.node_model
    out, stats = _run_nodes(x, 7)
    check_invariants(out, x, stats)
    if name == "retire_at_once_tiny_pool":
        # every node sent to repair is retired: after the pool's one node, a swap waits to the
        # cap, so no trial that needed two replacements finishes
        assert not out["repairs_auto"].any() and out["nodes_retired"].any()
        stuck = out["nodes_retired"] >= 2
        assert stuck.any() and not out["finished"][stuck].any()
        assert np.all(out["wall_hours"][stuck] == x.cap_hours)
    if name == "always_wrong_blame":
        node_domain = out["interruptions"][:, :2].sum(axis=1)
        gone = out["nodes_excluded_good"] + out["nodes_excluded_bad"]
        assert np.array_equal(out["wrong_blames"][out["finished"]],
                              node_domain[out["finished"]])  # fmt: skip
        assert gone.any()
    if name == "all_bad_x10":
        assert not out["nodes_excluded_good"].any()


# --------------------------------------------------------------------------------------------
# known answers


def _ok(out):
    """Trials that finished: no event of theirs was cut by the cap or the event budget."""
    assert out["finished"].mean() > 0.9
    return out["finished"]


def test_domain_event_sends_its_whole_domain_to_repair():
    # a rack category on racks of 4 nodes, unlimited pool: each event sends exactly 4 nodes
    cats = [Category("rack", rate=0.05, unit="rack", domain="rack", recovery="restart"),
            Category("node", rate=0.01, unit="node")]  # fmt: skip
    sc = _scenario(cats, n_gpus=256, cluster={"nodes_per_rack": 4})
    out, stats = _run_nodes(_inputs(sc, 512), 3)
    check_invariants(out, _inputs(sc, 512), stats)
    ok = _ok(out)
    rack = out["interruptions"][:, 0]
    assert rack.sum() > 100
    assert np.array_equal(out["repairs_auto"][ok], 4 * rack[ok])
    # a job of 2 nodes: the rack is capped at the job
    small = _inputs(replace_path(sc, "cluster.n_gpus", 16), 512)
    out, _ = _run_nodes(small, 4)
    ok = _ok(out)
    assert np.array_equal(out["repairs_auto"][ok], 2 * out["interruptions"][ok, 0])


def test_preemption_and_swap_hours_per_swap_event():
    # no lemons, no diagnosis, unlimited pool; the node model is on only through preemption:
    # every swap event costs exactly preempt_hours + swap_hours, restart-only ones nothing
    cats = [Category("hw", rate=2e-3, unit="node", recovery="swap", detection_hours=0.05),
            Category("sw", rate=0.2, unit="job")]  # fmt: skip
    sc = _scenario(cats, preemption_hours=0.25, swap_hours=0.1)
    x = _inputs(sc, 512)
    out, stats = _run_nodes(x, 5)
    check_invariants(out, x, stats)
    ok = _ok(out)
    hw = out["interruptions"][ok, 0]
    lost = out["lost_hours"][ok]
    np.testing.assert_allclose(lost[:, CAUSE["preemption"]], 0.25 * hw, rtol=1e-12, atol=0)
    np.testing.assert_allclose(lost[:, CAUSE["node_swap"]], 0.1 * hw, rtol=1e-12, atol=0)
    assert hw.sum() > 100
    # standbys first: with enough standbys and an unlimited pool every swap is a standby swap,
    # free of preemption and swap time
    out, _ = _run_nodes(_inputs(replace_path(sc, "policy.n_standbys", 2), 512), 6)
    ok = _ok(out)
    assert np.array_equal(out["standby_swaps"][ok], out["interruptions"][ok, 0])
    assert not out["lost_hours"][:, [CAUSE["preemption"], CAUSE["node_swap"]]].any()


def test_fixed_repairs_with_an_empty_pool_wait_exactly_the_repair():
    # no spares and fixed repairs: each swap waits for its own node, exactly repair_hours
    cats = [Category("hw", rate=2e-3, unit="node", recovery="swap"),
            Category("sw", rate=0.1, unit="job")]  # fmt: skip
    sc = _scenario(cats, n_spares=0, repair_distribution="fixed", repair_hours=1.5,
                   wall_cap_factor=20.0)  # fmt: skip
    x = _inputs(sc, 512)
    out, stats = _run_nodes(x, 8)
    check_invariants(out, x, stats)
    ok = _ok(out)
    hw = out["interruptions"][ok, 0]
    assert hw.sum() > 100
    wait = out["lost_hours"][ok, CAUSE["spare_wait"]]
    np.testing.assert_allclose(wait, 1.5 * hw, rtol=0, atol=1e-9 * x.cap_hours)
    assert np.array_equal(out["repairs_auto"][ok], hw)
    np.testing.assert_allclose(out["pool_occupancy"], 0.0)


def test_memory_restarts_and_lemon_exclusions_count_exactly():
    cats = [Category("hw", rate=2e-3, unit="node", recovery="swap"),
            Category("sw", rate=2e-3, unit="node")]  # fmt: skip
    # replicas beyond any nodes lost: every restart after a failure is from memory, every one
    # after planned maintenance from storage
    sc = _scenario(cats, maint=(0.05, 0.1), memory_restart_hours=0.01, memory_replicas=10**6,
                   lemon_failures=1)  # fmt: skip
    x = _inputs(sc, 512)
    out, stats = _run_nodes(x, 9)
    check_invariants(out, x, stats)
    ok = _ok(out)
    fails = out["interruptions"][ok].sum(axis=1)
    assert np.array_equal(out["restarts_memory"][ok], fails)
    assert np.array_equal(out["restarts_storage"][ok], out["maintenance_events"][ok])
    # lemon_k = 1, right blame: every failure excludes its node (all good: f = 0)
    assert np.array_equal(out["nodes_excluded_good"][ok], fails)
    assert not out["nodes_excluded_bad"].any() and not out["repairs_auto"].any()
    # one replica and a rack domain: rack failures always restart from storage
    rack = [*cats, Category("rack", rate=0.02, unit="rack", domain="rack")]
    sc2 = _scenario(rack, memory_restart_hours=0.01, memory_replicas=10**6)
    out, _ = _run_nodes(_inputs(sc2, 512), 10)
    ok = _ok(out)
    assert np.array_equal(out["restarts_storage"][ok], out["interruptions"][ok, 2])


def test_wrong_blames_are_binomial():
    # each node-domain failure is blamed on the wrong node with probability q
    q = 0.3
    cats = [Category("hw", rate=5e-3, unit="node", recovery="swap", wrong_blame=q)]
    x = _inputs(_scenario(cats), 1024)
    out, _ = _run_nodes(x, 11)
    ok = _ok(out)
    n = out["interruptions"][ok].sum()
    k = out["wrong_blames"][ok].sum()
    assert n > 1000
    assert abs(k - q * n) / math.sqrt(n * q * (1 - q)) < Z_MAX


def _two_modes(count, lam_w, m, k):
    """Whether counts look like Poisson(lam_w / k) and Poisson(m lam_w / k), half each."""
    low = count < lam_w
    if abs(low.mean() - 0.5) / math.sqrt(0.25 / count.size) > Z_MAX:
        return False
    for sel, mean in ((low, lam_w / k), (~low, m * lam_w / k)):
        # Poisson SE of a mode's mean; wall exceeds W by at most (events x 1e-3 h): < 0.2 %
        if not sel.any() or abs(count[sel].mean() - mean) / math.sqrt(mean / sel.sum()) > Z_MAX:
            return False
    return True


def test_bad_nodes_multiply_the_rate_negative_control():
    # One node, f = 1/2, m = 9: the job's rate is Lambda/5 (good node) or 9 Lambda/5 (bad),
    # each in half the trials. Restart-only failures, no restart or snapshot cost and tiny
    # segments: wall ~ W, so a trial's count is Poisson(rate W), a two-mode mixture.
    lam, w = 0.5, 100.0  # Lambda W = 50: modes at 10 and 90
    cats = [Category("n", rate=lam, unit="node")]
    sc = _scenario(cats, n_gpus=8, work=w,
                   failures={"bad_node_fraction": 0.5, "bad_node_multiplier": 9.0},
                   checkpoint_interval=1e-3, snapshot_hours=0.0, restart_hours=0.0)  # fmt: skip
    out, _ = _run_nodes(_inputs(sc, 1024), 12)
    assert _two_modes(out["interruptions"][:, 0], lam * w, 9.0, 5.0)
    # negative control: without bad nodes the counts are one Poisson(50) mode
    off = replace_path(sc, "failures.bad_node_fraction", 0.0)
    out, _ = _run_nodes(_inputs(replace_path(off, "policy.preemption_hours", 1e-9), 1024), 12)
    assert not _two_modes(out["interruptions"][:, 0], lam * w, 9.0, 5.0)
    assert abs(out["interruptions"][:, 0].mean() - lam * w) < Z_MAX * math.sqrt(50 / 1024)


def test_same_result_on_one_or_two_threads():
    cats, kw = _extreme_base(lemon_failures=2, n_standbys=2, escalation_probability=0.5,
                             memory_restart_hours=0.02)  # fmt: skip
    sc = _scenario(cats, n_gpus=128, failures={"bad_node_fraction": 0.2,
                                               "bad_node_multiplier": 4.0}, **kw)  # fmt: skip
    a = simulate(sc, n_trials=600, seed=3, n_threads=1)
    b = simulate(sc, n_trials=600, seed=3, n_threads=2)
    for var in a.data_vars:
        np.testing.assert_array_equal(a[var].values, b[var].values, err_msg=var)


# --------------------------------------------------------------------------------------------
# with nothing of it in play, the node path is today's process: compared with the general path


def _run_plain(x: KernelInputs, seed: int):
    n = x.n_trials
    out = allocate_outputs(n, x.n_categories)
    root = np.random.SeedSequence(seed)
    for b in range(-(-n // BLOCK_SIZE)):
        rng = np.random.Generator(np.random.PCG64(child_seed(root, b)))
        _kernels.simulate_block(
            rng, *kernel_args(x, out, slice(b * BLOCK_SIZE, (b + 1) * BLOCK_SIZE))
        )
    return out


_CATS = [
    Category("gpu", rate=3e-5, unit="gpu", recovery="swap"),
    Category("node", rate=1e-4, unit="node", recovery="swap", detection_hours=0.05),
    Category("hang", rate=2e-5, unit="gpu", detection_hours=1 / 6),
    Category("bug", rate=0.03, unit="job"),
]
PLAIN = {
    # finite pool (exponential repairs), maintenance, persist, swaps
    "finite_pool_maintenance": _scenario(
        _CATS,
        n_gpus=1024,
        maint=(0.08, 0.1),
        persist_hours=0.1,
        restart_hours=1 / 6,
        swap_hours=0.25,
        n_spares=3,
        repair_hours=4.0,
    ),  # fmt: skip
    # time-varying rates of their own diurnal shapes, a trend and a throughput cycle
    "diurnal_trend_speed": _scenario(
        [
            dataclasses.replace(c, diurnal_amplitude=0.6, diurnal_peak_hour=float(5 * k))
            for k, c in enumerate(_CATS)
        ],
        n_gpus=2048,
        maint=(0.05, 0.2),
        failures={"trend_shape": 1.5, "fleet_age_hours": 30.0},
        job={"start_hour": 7.0, "throughput_amplitude": 0.2, "throughput_peak_hour": 3.0},
        n_spares=2,
        repair_hours=3.0,
        swap_hours=0.1,
    ),  # fmt: skip
    # unlimited pool, the cap and the event budget in reach
    "unlimited_cap_budget": _scenario(
        _CATS, n_gpus=4096, work=40.0, wall_cap_factor=1.6, max_events=60, swap_hours=0.2
    ),
}


@pytest.mark.parametrize("name", list(PLAIN))
def test_node_path_with_nothing_in_play_is_the_general_process(name):
    # The node model on through lemon detection that can never fire (2 blames within 1e-9 h)
    # and nothing else: no bad nodes, no diagnosis, one exponential repair stage, no
    # standbys, preemption or memory restore. Then the node path must be the process of the
    # general path, in distribution (kernelcheck: means within 4.5 SE, KS on wall time).
    from kernelcheck import disagreements

    x = _inputs(PLAIN[name], 2048)
    on = dataclasses.replace(x, lemon_k=2, lemon_window=1e-9)
    assert on.node_model and not x.node_model
    nodes, stats = _run_nodes(on, 21)
    check_invariants(nodes, on, stats)
    assert not nodes["nodes_excluded_good"].any()
    plain = _run_plain(x, 22)
    bad = disagreements(nodes, plain)
    assert not bad, bad
    # negative control: 30 % longer node swaps must be seen
    wrong = dataclasses.replace(on, swap_hours=1.3 * on.swap_hours)
    assert disagreements(_run_nodes(wrong, 21)[0], plain)
