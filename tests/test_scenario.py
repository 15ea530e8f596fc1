"""Scenario dataclasses: validation names the field, dict round trip, dotted replacement."""

from __future__ import annotations

import dataclasses
import math
import warnings

import pytest

from relmc.errors import FieldError, UnreadFieldWarning
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path
from relmc.sim.simulate import kernel_inputs


def small_failures():
    return FailureModel(
        (
            Category("gpu", rate=1e-5, unit="gpu", recovery="swap"),
            Category("bug", rate=0.01, unit="job"),
        ),
        maintenance_rate=0.03,
    )


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Cluster(n_gpus=0), "cluster.n_gpus"),
        (lambda: Cluster(n_gpus=2.0), "cluster.n_gpus"),
        (lambda: Cluster(n_gpus=10**9), "cluster.n_gpus"),
        (lambda: Cluster(gpus_per_node=0), "cluster.gpus_per_node"),
        (lambda: Cluster(links_per_gpu=math.nan), "cluster.links_per_gpu"),
        (lambda: Category("x", rate=-1.0), "rate"),
        (lambda: Category("x", rate=math.nan), "rate"),
        (lambda: Category("x", rate=math.inf), "rate"),
        (lambda: Category("x", unit="cabinet"), "unit"),
        (lambda: Category("x", recovery="reboot"), "recovery"),
        (lambda: Category("x", detection_hours=-0.1), "detection_hours"),
        (lambda: Category(""), "category.name"),
        (lambda: Category("*"), r"other than '\*'"),  # names every category in a path
        (lambda: FailureModel(()), "failures.categories"),
        (lambda: FailureModel((Category("a"), Category("a"))), "unique names"),
        (lambda: FailureModel((Category("a"),), maintenance_rate=-1), "failures.maintenance_rate"),
        (lambda: Job(0.0), "job.compute_hours"),
        (lambda: Job(math.inf), "job.compute_hours"),
        (lambda: Policy(checkpoint_interval=0.0), "policy.checkpoint_interval"),
        (lambda: Policy(checkpoint_interval="optimal"), "policy.checkpoint_interval"),
        (lambda: Policy(snapshot_hours=-1.0), "policy.snapshot_hours"),
        (lambda: Policy(persist_hours=0.6), "policy.persist_hours"),
        (lambda: Policy(restart_hours=math.nan), "policy.restart_hours"),
        (lambda: Policy(n_spares=-1), "policy.n_spares"),
        (lambda: Policy(repair_hours=0.0), "policy.repair_hours"),
        (lambda: Policy(wall_cap_factor=0.5), "policy.wall_cap_factor"),
        (lambda: Policy(max_events=0), "policy.max_events"),
        (lambda: Policy(max_events=2**31), "policy.max_events"),
        (lambda: Policy(n_spares=10**13), "policy.n_spares"),
    ],
)
def test_each_bad_field_is_named(build, field):
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        build()


def test_dict_round_trip_and_unknown_keys():
    sc = Scenario(
        cluster=Cluster(n_gpus=4096),
        failures=small_failures(),
        policy=Policy(n_spares=4, checkpoint_interval="daly"),
    )
    d = sc.to_dict()
    assert "n_spares" in d["policy"]
    assert Scenario.from_dict(d) == sc
    d["policy"]["checkpoint_every"] = 1.0
    with pytest.raises(ValueError, match="checkpoint_every"):
        Scenario.from_dict(d)
    with pytest.raises(ValueError, match="unknown sections"):
        Scenario.from_dict({"clusterr": {}})


def test_category_tables_are_named_in_errors_with_a_hint():
    # a category table with an unknown field is named as the range checks name it (by its
    # name), with the field it most likely means (a time in other units: the hours field);
    # one without a name by its position (a TOML file's [[failures.categories]]); Category
    # objects among the tables are kept as they are
    d = Scenario(failures=small_failures()).to_dict()
    first = d["failures"]["categories"][0]
    name = first["name"]
    d["failures"]["categories"][0] = {**first, "detection_minutes": 3.0}
    with pytest.raises(FieldError) as e:
        Scenario.from_dict(d)
    assert str(e.value).startswith(
        f"failures.categories[{name!r}]: unknown fields ['detection_minutes'] (did you mean "
        "'detection_hours' for 'detection_minutes' (its value in hours)?)"
    )
    assert e.value.field == f"failures.categories[{name!r}].detection_minutes"
    # singular and short units too: restart_minute was taken for restart_jitter
    for key in ("restart_minute", "restart_min", "restart_secs", "restart_day"):
        with pytest.raises(FieldError, match=rf"did you mean 'restart_hours' for '{key}' \(its"):
            Scenario.from_dict({"policy": {key: 2.0}})
    # a misspelt field in days is not told its value is in hours
    with pytest.raises(FieldError, match=r"did you mean 'start_day' for 'strat_day'\?\)"):
        Scenario.from_dict({"job": {"strat_day": 2}})
    d["failures"]["categories"][0] = {**first, "diurnal_amplitud": 0.5}
    with pytest.raises(FieldError, match=r"did you mean 'diurnal_amplitude' for"):
        Scenario.from_dict(d)
    # negative control: nothing near it, no hint
    d["failures"]["categories"][0] = {**first, "colour": "red"}
    with pytest.raises(FieldError, match=r"unknown fields \['colour'\]; known: ") as e:
        Scenario.from_dict(d)
    assert "did you mean" not in str(e.value)
    d["failures"]["categories"][0] = {k: v for k, v in first.items() if k != "name"}
    with pytest.raises(FieldError, match=r"the field 'name' is required") as e:
        Scenario.from_dict(d)
    assert e.value.field == "failures.categories[0].name"
    mixed = Category(**first)
    d["failures"]["categories"][0] = mixed
    assert Scenario.from_dict(d).failures.categories[0] is mixed


def test_replace_path_sets_fields_and_validates():
    sc = Scenario(failures=small_failures())
    assert replace_path(sc, "cluster.n_gpus", 1024).cluster.n_gpus == 1024
    assert replace_path(sc, "policy.restart_hours", 0.05).policy.restart_hours == 0.05
    star = replace_path(sc, "failures.categories.*.detection_hours", 0.2)
    assert all(c.detection_hours == 0.2 for c in star.failures.categories)
    one = replace_path(sc, "failures.categories.bug.rate", 0.5)
    assert one.failures.category("bug").rate == 0.5
    assert one.failures.category("gpu").rate == 1e-5
    for bad, msg in [
        ("cluster.gpus", "unknown field"),
        ("policy", "section.field"),
        ("failures.categories.nope.rate", "no category"),
        ("failures.categories.gpu.name", "unknown field"),
        ("solver.x", "unknown field"),
    ]:
        with pytest.raises(ValueError, match=msg):
            replace_path(sc, bad, 1)
    with pytest.raises(ValueError, match="policy.restart_hours"):
        replace_path(sc, "policy.restart_hours", -1.0)


def test_interval_rules_use_mtbf():
    pol = Policy(checkpoint_interval="young", snapshot_hours=5 / 60)
    assert pol.interval(24.0) == pytest.approx(math.sqrt(2 * 5 / 60 * 24.0))
    with pytest.raises(ValueError, match="finite MTTF"):
        pol.interval(math.inf)
    with pytest.raises(ValueError, match="snapshot_hours > 0"):
        Policy(checkpoint_interval="daly", snapshot_hours=0.0).interval(10.0)


def test_cluster_rates_scale_with_units():
    fm = small_failures()
    rates = fm.cluster_rates(Cluster(n_gpus=16384))
    assert rates[0] == pytest.approx(1e-5 * 16384)
    assert rates[1] == pytest.approx(0.01)


def test_a_failures_section_without_categories_takes_the_default_ones():
    from relmc.defaults import default_failures

    sc = Scenario.from_dict({"failures": {"bad_node_fraction": 0.15, "bad_node_multiplier": 5}})
    default = default_failures()
    assert sc.failures.categories == default.categories
    assert sc.failures.maintenance_rate == default.maintenance_rate
    assert (sc.failures.bad_node_fraction, sc.failures.bad_node_multiplier) == (0.15, 5.0)
    # negative control: categories given, even empty, are the model's (an empty list refused)
    with pytest.raises(ValueError, match="failures.categories must be a non-empty list"):
        Scenario.from_dict({"failures": {"categories": [], "bad_node_fraction": 0.15}})
    # a bad field of the section is still named
    with pytest.raises(ValueError, match="failures.bad_node_fraction"):
        Scenario.from_dict({"failures": {"bad_node_fraction": 1.5}})


def test_features_name_what_a_scenario_models_beyond_constant_rates():
    base = Scenario.default()
    assert base.features() == []
    changes = {
        "job.throughput_amplitude": (0.015, "throughput +-1.5% a day"),
        "failures.categories.Faulty GPU.diurnal_amplitude": (0.3, "daily rate cycles (1 category)"),
        "failures.categories.Faulty GPU.rate_multiplier": (0.5, "rate multipliers (1 category)"),
        "failures.categories.Faulty GPU.kind": ("straggler", "stragglers (1 category)"),
        "failures.categories.CPU.kind": ("sdc", "silent data corruption (1 category)"),
        "failures.trend_shape": (0.7, "fleet trend, shape 0.7"),
        "failures.bad_node_fraction": (0.05, "lemon nodes (5%, x1)"),
        "policy.restart_spread": (2.0, "uncertain overheads"),
        "failures.categories.Network Switch/Cable.domain": ("rack", "blast radius (1 category)"),
        "failures.categories.GPU HBM3 Memory.diagnosis_hours": (0.5, "diagnosis (1 category)"),
        "failures.categories.GPU HBM3 Memory.wrong_blame": (0.2, "wrong blame (1 category)"),
        "policy.lemon_failures": (2, "lemon detection (2 in 168 h)"),
        "policy.escalation_probability": (0.8, "repair escalation or misses"),
        "policy.auto_repair_miss": (0.4, "repair escalation or misses"),
        "policy.retire_after_repairs": (1, "retirement after 1 repair"),
        "policy.n_standbys": (1, "1 standby"),
        "policy.preemption_hours": (1 / 3, "pool preemption 20 min"),
        "policy.memory_restart_hours": (0.01, "restarts from memory (1 replica)"),
    }
    for path, (value, label) in changes.items():
        assert replace_path(base, path, value).features() == [label], path
    # fields a kind does not read label nothing (a straggler's domain), and the retention
    # only with SDC categories
    slow = replace_path(base, "failures.categories.Faulty GPU.kind", "straggler")
    assert replace_path(slow, "failures.categories.Faulty GPU.domain", "rack").features() == [
        "stragglers (1 category)"
    ]
    assert replace_path(base, "policy.checkpoint_retention", 4).features() == []
    sdc = replace_path(base, "failures.categories.CPU.kind", "sdc")
    assert replace_path(sdc, "policy.checkpoint_retention", 4).features() == [
        "silent data corruption (1 category)",
        "4 checkpoints kept",
    ]


def test_simulate_warns_of_fields_a_kind_does_not_read():
    import relmc

    slow = Category("slow", rate=1e-6, unit="node", straggler_speed=0.3)  # kind forgotten
    sc = Scenario(failures=FailureModel(categories=(slow,)), job=Job(compute_hours=5.0))
    assert sc.unread_notes() == [
        "failures.categories['slow'] sets straggler_speed, which its kind ('failure') does "
        'not read (meant kind = "straggler"?)'
    ]
    with pytest.warns(UnreadFieldWarning, match=r"sets straggler_speed, which its kind \('fai"):
        relmc.simulate(sc, n_trials=4, seed=1)
    # negative control: with its kind, no warning (pytest's filter makes one an error)
    fixed = dataclasses.replace(slow, kind="straggler")
    relmc.simulate(dataclasses.replace(sc, failures=FailureModel(categories=(fixed,))),
                   n_trials=4, seed=1)  # fmt: skip
    # a straggler's domain and wrong blame are not read either: it strikes one node, never
    # wrongly blamed, and they do not turn the node model on (the same numbers, bit for bit)
    slow = Category("slow", rate=1e-3, unit="node", kind="straggler")
    rack = dataclasses.replace(slow, domain="rack", wrong_blame=0.3)
    assert rack.unread_fields() == ["domain", "wrong_blame"]
    runs = []
    for c in (slow, rack):
        one = Scenario(failures=FailureModel(categories=(c,)), job=Job(compute_hours=50.0))
        assert not kernel_inputs(one, None, 4)[0].node_model
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnreadFieldWarning)
            runs.append(relmc.simulate(one, n_trials=64, seed=2))
    assert runs[0]["wall_hours"].values.tobytes() == runs[1]["wall_hours"].values.tobytes()


def test_a_wrong_blame_off_the_node_domain_is_warned_of():
    import relmc

    # a rack failure sends all its nodes to repair: no node is blamed, so wrong_blame is not
    # read there (relmc.sim), and a forgotten domain would silently simulate no wrong blame
    sw = Category("switch", rate=2e-4, unit="node", domain="rack", wrong_blame=0.5)
    sc = Scenario(cluster=Cluster(n_gpus=1024), failures=FailureModel(categories=(sw,)),
                  job=Job(compute_hours=100.0))  # fmt: skip
    assert sw.unread_fields() == [] and not sc.reads(sw, "wrong_blame")
    assert sc.unread_notes() == [
        "failures.categories['switch'].wrong_blame = 0.5 has no effect: its domain ('rack') "
        "takes 2 nodes here, and a failure that takes several sends them all to repair (only "
        "a one-node domain blames a node)"
    ]
    assert "wrong blame (1 category)" not in sc.features()
    with pytest.warns(UnreadFieldWarning, match=r"wrong_blame = 0.5 has no effect: its domai"):
        warned = relmc.simulate(sc, n_trials=64, seed=3)
    # what the warning says: the numbers of wrong_blame 0, bit for bit
    zero = dataclasses.replace(sc, failures=FailureModel(categories=(
        dataclasses.replace(sw, wrong_blame=0.0),)))  # fmt: skip
    plain = relmc.simulate(zero, n_trials=64, seed=3)
    for name in ("wall_hours", "interruptions", "wrong_blames"):
        assert warned[name].values.tobytes() == plain[name].values.tobytes(), name
    assert warned["interruptions"].values.sum() > 50 and warned["wrong_blames"].sum() == 0
    # negative controls: a node-domain category reads it (no warning, blames made), and a
    # sweep whose cells vary the domain reads it in some cell (no note)
    node = dataclasses.replace(sc, failures=FailureModel(categories=(
        dataclasses.replace(sw, domain="node"),)))  # fmt: skip
    assert node.unread_notes() == [] and "wrong blame (1 category)" in node.features()
    assert relmc.simulate(node, n_trials=64, seed=3)["wrong_blames"].sum() > 20
    assert sc.unread_notes(among=[sc, node]) == []
    # a rack or a pod of one node is a node: the blame is read there (relmc.sim, resolution 1)
    for shape in ({"nodes_per_rack": 1}, {"gpus_per_pod": 8}):
        one = dataclasses.replace(sc, cluster=Cluster(n_gpus=1024, **shape))
        one = replace_path(one, "failures.categories.switch.domain", "pod" if shape.get(
            "gpus_per_pod") else "rack")  # fmt: skip
        assert one.reads(one.failures.categories[0], "wrong_blame")
        assert one.unread_notes() == [] and "wrong blame (1 category)" in one.features()
        assert relmc.simulate(one, n_trials=64, seed=3)["wrong_blames"].sum() > 20
    # a job of fewer nodes than a rack: the rack is capped at the job's nodes
    small = dataclasses.replace(sc, cluster=Cluster(n_gpus=8, nodes_per_rack=2))
    assert small.domain_nodes("rack") == 1 and small.reads(sw, "wrong_blame")
    assert small.unread_notes() == []
    assert dataclasses.replace(sc, cluster=Cluster(n_gpus=16)).domain_nodes("rack") == 2


#: a field set for a feature that is off, a value for it, and a setting that turns it on
DEAD = [
    ("policy.lemon_window_hours", 24.0, ("policy.lemon_failures", 2)),
    ("policy.manual_repair_hours", 10.0, ("policy.escalation_probability", 0.3)),
    ("policy.manual_repair_miss", 0.5, ("policy.escalation_probability", 0.3)),
    ("policy.memory_replicas", 3, ("policy.memory_restart_hours", 0.01)),
    ("policy.checkpoint_retention", 2, ("failures.categories.sw.kind", "sdc")),
    ("policy.repair_hours", 5.0, ("policy.n_spares", 8)),
    ("job.throughput_peak_hour", 5.0, ("job.throughput_amplitude", 0.1)),
    ("failures.categories.hw.diurnal_peak_hour", 7.0,
     ("failures.categories.hw.diurnal_amplitude", 0.5)),
]  # fmt: skip


def _dead_base(node: bool) -> Scenario:
    cats = (
        Category("hw", rate=3e-4, unit="node", recovery="swap", detection_hours=0.1),
        Category("sw", rate=2e-4, unit="node", diagnosis_hours=0.1 if node else 0.0),
    )
    fm = FailureModel(cats, maintenance_rate=0.01, bad_node_fraction=0.1 if node else 0.0)
    return Scenario(cluster=Cluster(n_gpus=1024), failures=fm, job=Job(compute_hours=200.0),
                    policy=Policy(restart_hours=0.2, swap_hours=0.1,
                                  n_standbys=2 if node else 0))  # fmt: skip


def test_maintenance_hours_without_planned_maintenance_is_warned_of():
    # a sweep axis over maintenance_hours at a planned rate of 0 changed nothing and said
    # nothing (outside round twenty-one); now a dead field, the outputs those of the default
    # bit for bit. Negative control: with a planned rate the field is read.
    import relmc

    sc = replace_path(_dead_base(False), "failures.maintenance_rate", 0.0)
    dead = replace_path(sc, "failures.maintenance_hours", 0.5)
    assert list(dead.dead_fields()) == ["failures.maintenance_hours"]
    with pytest.warns(UnreadFieldWarning, match="maintenance_hours = 0.5 has no effect"):
        got = relmc.simulate(dead, n_trials=128, seed=4)
    ref = relmc.simulate(sc, n_trials=128, seed=4)
    assert all(got[v].values.tobytes() == ref[v].values.tobytes() for v in ref.data_vars)
    live = replace_path(dead, "failures.maintenance_rate", 0.01)
    assert live.dead_fields() == {}


@pytest.mark.parametrize("path, value, on", DEAD, ids=[d[0] for d in DEAD])
def test_a_field_whose_feature_is_off_is_warned_of(path, value, on):
    import relmc

    leaf = path.rsplit(".", 1)[1]
    shown = path.replace("categories.hw.", "categories['hw'].")
    for node in (False, True):  # the plain paths and the node model's
        sc = _dead_base(node)
        dead = replace_path(sc, path, value)
        assert list(dead.dead_fields()) == [shown]
        note = dead.unread_notes()
        assert len(note) == 1 and note[0].startswith(f"{shown} = {value:g} has no effect: ")
        # what the note says: the outputs of the field's default, bit for bit
        with pytest.warns(UnreadFieldWarning, match=f"{leaf} = {value:g} has no effect"):
            got = relmc.simulate(dead, n_trials=128, seed=4)
        ref = relmc.simulate(sc, n_trials=128, seed=4)
        assert all(got[v].values.tobytes() == ref[v].values.tobytes() for v in ref.data_vars)
    # negative controls: with its feature on the field is read (no note), and a sweep whose
    # cells turn the feature on in one of them says nothing
    live = replace_path(dead, *on)
    assert shown not in live.dead_fields()
    assert not any(n.startswith(shown) for n in live.unread_notes())
    assert not any(n.startswith(shown) for n in dead.unread_notes(among=[dead, live]))
    assert dead.unread_notes(among=[dead, dead]) == note
    # an axis through the field's default (the feature off in every cell) still says so
    assert dead.unread_notes(among=[sc, dead]) == note
    # scenarios without the field's category neither read it nor make it read (a comparison
    # whose baseline lacks a category one policy adds)
    if "categories" in path:
        lacking = dataclasses.replace(sc, failures=dataclasses.replace(
            sc.failures, categories=sc.failures.categories[1:]))  # fmt: skip
        assert dead.unread_notes(among=[dead, lacking]) == note


def test_a_peak_hour_under_a_profile_or_a_posteriors_amplitude(tmp_path):
    import arviz as az
    import numpy as np
    import xarray as xr

    import relmc
    from relmc.models import fit_conjugate

    # a rate profile is no cosine (amplitude 0): its peak hour is dead too, bit for bit
    sc = _dead_base(False)
    prof = replace_path(sc, "failures.categories.hw.rate_profile", tuple(range(1, 25)))
    peak = replace_path(prof, "failures.categories.hw.diurnal_peak_hour", 12.0)
    assert list(peak.dead_fields()) == ["failures.categories['hw'].diurnal_peak_hour"]
    with pytest.warns(UnreadFieldWarning, match="diurnal_peak_hour = 12 has no effect"):
        got = relmc.simulate(peak, n_trials=128, seed=4)
    ref = relmc.simulate(prof, n_trials=128, seed=4)
    assert all(got[v].values.tobytes() == ref[v].values.tobytes() for v in ref.data_vars)
    # a posterior's per-draw amplitude with the scenario's own peak hour: read, no note
    data = relmc.load_dataset("llama3-405b")
    post = fit_conjugate(data, seed=1, n_draws=20)
    shape = (post.posterior.sizes["chain"], post.posterior.sizes["draw"], data.sizes["category"])
    amp = xr.DataArray(np.full(shape, 0.9), dims=("chain", "draw", "category"),
                       coords={"category": post.posterior["category"]})  # fmt: skip
    phys = az.InferenceData(posterior=post.posterior.assign(diurnal_amplitude=amp))
    base = dataclasses.replace(relmc.FailureModel.from_posterior(post), maintenance_rate=0.0)
    fsc = Scenario(cluster=Cluster(n_gpus=4096), failures=base, job=Job(compute_hours=100.0))
    name = base.categories[0].name
    at12 = replace_path(fsc, f"failures.categories.{name}.diurnal_peak_hour", 12.0)
    assert f"failures.categories[{name!r}].diurnal_peak_hour" in at12.dead_fields()
    a = relmc.simulate(at12, rates=phys, n_trials=256, seed=4)  # no warning: an error here
    b = relmc.simulate(fsc, rates=phys, n_trials=256, seed=4)
    assert a["interruptions"].values.tobytes() != b["interruptions"].values.tobytes()
    # and no warning from a comparison, a projection or a sweep, which gather the posterior's
    # reads over their scenarios or cells (a warning is an error here)
    other = replace_path(at12, "policy.restart_hours", 0.05)
    relmc.compare({"x": at12, "y": other}, posterior=phys, n_gpus=[4096, 8192], n_trials=4)
    relmc.project(phys, n_gpus=[4096, 8192], scenario=at12, n_trials=16, progress=False)
    phys.to_netcdf(str(tmp_path / "phys.nc"))
    post.to_netcdf(str(tmp_path / "post.nc"))
    peak12 = [{"name": name, "diurnal_peak_hour": 12.0}]
    spec = {"seed": 1, "n_trials": 8, "posterior": str(tmp_path / "phys.nc"),
            "base": {"cluster": {"n_gpus": 4096}, "job": {"compute_hours": 100.0},
                     "failures": {"maintenance_rate": 0.0, "categories": peak12}},
            "axes": {"policy.restart_hours": [0.05, 0.1]}}  # fmt: skip
    assert relmc.sweep.run_sweep(spec, tmp_path / "phys.zarr", progress=False) == [0, 1]
    # negative control: without the posterior's amplitude the same field is warned of, by
    # each of them
    # (each warning points at the call here, not into relmc)
    with pytest.warns(UnreadFieldWarning, match="diurnal_peak_hour = 12 has no effect") as w1:
        relmc.simulate(at12, rates=post, n_trials=16, seed=4)
    with pytest.warns(UnreadFieldWarning, match="diurnal_peak_hour = 12 has no effect") as w2:
        relmc.compare({"x": at12, "y": other}, posterior=post, n_gpus=[4096, 8192], n_trials=4)
    with pytest.warns(UnreadFieldWarning, match="diurnal_peak_hour = 12 has no effect") as w3:
        relmc.project(post, n_gpus=[4096, 8192], scenario=at12, n_trials=16, progress=False)
    spec["posterior"] = str(tmp_path / "post.nc")
    with pytest.warns(UnreadFieldWarning, match="diurnal_peak_hour = 12 has no effect") as w4:
        relmc.sweep.run_sweep(spec, tmp_path / "post.zarr", progress=False)
    for caught in (w1, w2, w3, w4):
        assert {w.filename for w in caught if w.category is UnreadFieldWarning} == {__file__}


def test_a_spread_on_an_overhead_of_zero_is_warned_of(tmp_path):
    import relmc
    from relmc import sweep
    from relmc.scenario import JITTER_FIELDS, SPREAD_FIELDS

    cat = Category("a", rate=1e-6, unit="gpu")
    zero = Scenario(
        failures=FailureModel(categories=(cat,)),
        job=Job(compute_hours=10.0),
        policy=Policy(snapshot_hours=0.0, restart_hours=0.0),
    )
    # every overhead 0 (swap, persist, detection, diagnosis, preemption at their defaults; no
    # maintenance, no SDC category): each spread and jitter multiplies 0
    assert sorted(zero.inert_overheads()) == sorted(f[: -len("_spread")] for f in SPREAD_FIELDS)
    pol = {f: 2.0 for f in (*SPREAD_FIELDS, *JITTER_FIELDS)}
    notes = dataclasses.replace(zero, policy=dataclasses.replace(zero.policy, **pol)).unread_notes()
    assert len(notes) == len(pol)
    assert notes[0] == "policy.snapshot_spread = 2 has no effect: policy.snapshot_hours is 0"
    assert (
        "policy.maintenance_jitter = 2 has no effect: there is no planned maintenance"
        in (notes[-1])
    )
    assert 'policy.sdc_latency_spread = 2 has no effect: no category has kind = "sdc"' in notes
    assert "policy.detection_spread = 2 has no effect: every category's detection_hours is 0" in (
        notes
    )
    sdc0 = Category("s", rate=1e-6, unit="gpu", kind="sdc")  # its latency 0
    with_sdc = replace_path(zero, "policy.sdc_latency_spread", 2.0)
    with_sdc = dataclasses.replace(with_sdc, failures=FailureModel(categories=(cat, sdc0)))
    assert with_sdc.unread_notes() == [
        "policy.sdc_latency_spread = 2 has no effect: every SDC category's sdc_latency_hours is 0"
    ]
    # negative control: each overhead nonzero, no note
    busy = Category("b", rate=1e-6, unit="gpu", detection_hours=0.1, diagnosis_hours=0.1)
    sdc = Category("s", rate=1e-6, unit="gpu", kind="sdc", sdc_latency_hours=1.0)
    live = Scenario(
        failures=FailureModel(categories=(busy, sdc), maintenance_rate=0.01, maintenance_hours=1.0),
        job=Job(compute_hours=10.0),
        policy=Policy(persist_hours=0.1, swap_hours=0.2, preemption_hours=0.1, **pol),
    )
    assert live.inert_overheads() == {} and live.unread_notes() == []
    # a restart from memory is a restart the spread scales; maintenance without downtime
    mem = replace_path(replace_path(zero, "policy.restart_hours", 0.0),
                       "policy.memory_restart_hours", 0.1)  # fmt: skip
    assert "restart" not in mem.inert_overheads()
    down0 = replace_path(zero, "failures.maintenance_rate", 0.01)
    assert down0.inert_overheads()["maintenance"] == "failures.maintenance_hours is 0"
    # simulate warns; a comparison or a sweep through 0 and another value does not (the
    # spread acts in one of them), one that stays at 0 warns once
    one = Scenario(failures=FailureModel(categories=(cat,)), job=Job(compute_hours=10.0))
    swap = replace_path(one, "policy.swap_spread", 3.0)
    with pytest.warns(UnreadFieldWarning, match=r"swap_spread = 3 has no effect: policy.swap_h"):
        relmc.simulate(swap, n_trials=4, seed=1)
    relmc.compare({"0": swap, "1": replace_path(swap, "policy.swap_hours", 0.5)},
                  n_trials=4, seed=1)  # fmt: skip
    spec = {"seed": 1, "n_trials": 4, "posterior": "point", "base": swap.to_dict(),
            "axes": {"policy.swap_hours": [0.0, 0.5]}}  # fmt: skip
    sweep.run_sweep(spec, tmp_path / "a.zarr", progress=False)
    other = {**spec, "axes": {"cluster.n_gpus": [2048, 4096]}}
    with pytest.warns(UnreadFieldWarning, match="swap_spread = 3 has no effect") as caught:
        sweep.run_sweep(other, tmp_path / "b.zarr", progress=False)
    assert sum(issubclass(w.category, UnreadFieldWarning) for w in caught) == 1


def test_sweeps_and_comparisons_warn_only_of_fields_no_scenario_reads(tmp_path):
    import relmc
    from relmc import sweep

    cat = {"name": "slow", "rate": 1e-6, "unit": "node", "straggler_speed": 0.3}
    base = {"job": {"compute_hours": 10.0}, "failures": {"categories": [cat]}}
    spec = {"seed": 1, "n_trials": 4, "posterior": "point", "base": base,
            "axes": {"failures.categories.slow.kind": ["failure", "straggler"]}}  # fmt: skip
    # the straggler cells read straggler_speed: no warning (pytest makes one an error)
    sweep.run_sweep(spec, tmp_path / "a.zarr", progress=False)
    sc = Scenario.from_dict(base)
    relmc.compare({"a": sc, "b": replace_path(sc, "failures.categories.slow.kind", "straggler")},
                  n_trials=4, seed=1)  # fmt: skip
    # negative control: an axis that leaves the kind alone warns once, for the grid
    other = {**spec, "axes": {"cluster.n_gpus": [2048, 4096]}}
    with pytest.warns(UnreadFieldWarning, match="sets straggler_speed") as caught:
        sweep.run_sweep(other, tmp_path / "b.zarr", progress=False)
    assert sum(issubclass(w.category, UnreadFieldWarning) for w in caught) == 1
    with pytest.warns(UnreadFieldWarning, match="sets straggler_speed") as caught:
        relmc.compare({"a": sc, "b": replace_path(sc, "policy.restart_hours", 0.1)},
                      n_trials=4, seed=1)  # fmt: skip
    assert sum(issubclass(w.category, UnreadFieldWarning) for w in caught) == 1


def test_unread_fields_are_those_a_kind_ignores():
    assert Category("a").unread_fields() == []
    assert Category("a", sdc_latency_hours=3.0).unread_fields() == ["sdc_latency_hours"]
    assert Category("a", kind="sdc", sdc_latency_hours=3.0).unread_fields() == []
    assert Category("a", kind="sdc", straggler_speed=0.3).unread_fields() == ["straggler_speed"]
    both = Category("a", kind="straggler", sdc_latency_distribution="exponential")
    assert both.unread_fields() == ["sdc_latency_distribution"]


def test_failure_model_refuses_bad_category_tables_naming_the_field():
    # FailureModel takes categories as relmc.Category or tables of their fields; a table
    # with an unknown or a missing field is a FieldError naming it, as through Scenario or
    # TOML (it was a TypeError from Category's constructor)
    with pytest.raises(FieldError, match=r"failures.categories\['x'\]: unknown fields \['bog"):
        FailureModel(categories=[{"name": "x", "bogus": 1}])
    with pytest.raises(FieldError, match=r"failures.categories\[0\]: the field 'name' is req"):
        FailureModel(categories=[{"rate": 1.0}])
    # negative control: a good table is a Category
    (cat,) = FailureModel(categories=[{"name": "x", "rate": 1e-6}]).categories
    assert cat == Category("x", rate=1e-6)
