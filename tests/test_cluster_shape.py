"""A fit records the shape of the cluster its data came from; projections count units with it.

A rate per rack-hour times the racks at N GPUs: racks depend on nodes per rack, so a fit of
rack-level counts observed on racks of 16 nodes, projected onto the default racks of 2, sees
8x the racks and 8x the interruptions. These tests pin the known answer at the observed
size (the data's own rate) through the Python API, the command line, ``relmc simulate`` and
sweeps, with the default shape as the negative control.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import xarray as xr

import relmc
from relmc import cluster
from relmc.cli import main
from relmc.cluster import ClusterShape, recorded_shape
from relmc.errors import ClusterShapeWarning
from relmc.projection import default_scenario
from relmc.rates import fit_shape, fitted_rates, rate_draws

N, HOURS, EVENTS = 4096, 720.0, 10  # 10 ToR-switch interruptions in 30 days on 4,096 GPUs
RACKS16 = ClusterShape(nodes_per_rack=16)
COUNTS = {"category": ["ToR switch", "GPU"], "count": [EVENTS, 20], "unit": ["rack", "gpu"]}


def _fit(shape=RACKS16, n_gpus=N, seed=1):
    data = relmc.load_counts(COUNTS, n_gpus=n_gpus, duration_hours=HOURS, shape=shape)
    return data, relmc.fit_conjugate(data, n_draws=2000, n_chains=2, seed=seed)


def _job_rate(scenario, post, category):
    """Posterior mean of a category's job-level rate per hour at ``scenario``'s size.

    On the fit's own clock (per wall-clock hour of the observed window, as the data count).
    """
    draws = rate_draws(scenario, post)
    c = list(scenario.failures.names).index(category)
    return float(fitted_rates(scenario, draws)[:, c].mean())


def test_the_fit_records_its_shape_and_the_default_scenario_takes_it():
    data, post = _fit()
    assert recorded_shape(data.attrs) == RACKS16
    assert post.posterior.attrs["nodes_per_rack"] == 16
    assert fit_shape(post) == RACKS16
    sc = default_scenario(post)
    assert (sc.cluster.nodes_per_rack, sc.cluster.gpus_per_node) == (16, 8)
    # known answer at the observed size: the data's rate, (10 + a) / 720 h with the total
    # Jeffreys prior's a = 1/(2K) = 1/4; the posterior mean over 4,000 exact draws has a
    # relative SE of 1/sqrt(10.25 * 4000) = 0.5 %: 4 SE is 2 %
    sc = relmc.scenario.replace_path(sc, "cluster.n_gpus", N)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fit's own shape: nothing to warn of
        got = _job_rate(sc, post, "ToR switch")
    assert got == pytest.approx((EVENTS + 0.25) / HOURS, rel=0.02)
    # negative control: the default racks of 2 nodes are 8x as many racks
    other = relmc.scenario.replace_path(sc, "cluster.nodes_per_rack", 2)
    with pytest.warns(ClusterShapeWarning, match=r"nodes_per_rack = 16; this scenario's"):
        wrong = _job_rate(other, post, "ToR switch")
    assert wrong == pytest.approx(8 * got, rel=1e-12)


def test_the_warning_names_only_the_fields_the_fitted_units_read():
    _, post = _fit(shape=ClusterShape(nodes_per_rack=16, gpus_per_pod=1024))
    sc = relmc.scenario.replace_path(default_scenario(post), "cluster.n_gpus", N)
    # gpus_per_pod counts pods, which no fitted category is per: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rate_draws(relmc.scenario.replace_path(sc, "cluster.gpus_per_pod", 3072), post)
    with pytest.warns(ClusterShapeWarning) as rec:
        rate_draws(relmc.scenario.replace_path(sc, "cluster.gpus_per_node", 4), post)
    text = str(rec[0].message)
    assert "gpus_per_node = 8" in text and "'ToR switch'" in text and "'GPU'" not in text
    assert "cluster.gpus_per_node = 8" in text and "--gpus-per-node 8" in text
    assert "pod" not in text
    # a fit that recorded no shape (no cluster given) warns of nothing
    plain = relmc.load_counts({**COUNTS, "exposure": [1e4, 1e6]})
    assert recorded_shape(plain.attrs) is None
    bare = relmc.fit_conjugate(plain, n_draws=50, n_chains=1, seed=1)
    assert fit_shape(bare) is None and default_scenario(bare).cluster.nodes_per_rack == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rate_draws(relmc.scenario.replace_path(default_scenario(bare), "cluster.n_gpus", N), bare)


def test_recorded_shape_reads_old_and_foreign_attrs():
    # files written before the other fields were recorded: Llama 3's, as those versions assumed
    assert recorded_shape({"gpus_per_node": np.int64(4)}) == ClusterShape(gpus_per_node=4)
    assert recorded_shape({"gpus_per_node": 0}) is None and recorded_shape({}) is None
    assert recorded_shape({"gpus_per_node": 8, "nodes_per_rack": -1}) is None  # not a shape
    assert cluster.shape_attrs(RACKS16)["nodes_per_rack"] == 16
    # the bundled Llama 3 fit records Llama 3's shape: its defaults, so nothing changes
    llama = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=20, n_chains=1, seed=1)
    assert fit_shape(llama) == ClusterShape()


def test_project_summarize_and_sweep_take_the_fit_shape(tmp_path):
    _, post = _fit()
    ds = relmc.project(post, n_gpus=[N], n_trials=400, seed=3)
    per_day = float(ds["interruptions_per_day_mean"].sel(n_gpus=N))
    # the data's 30 events in 30 days (20 GPU + 10 rack) per wall-clock day; the simulation
    # reads them per exposed hour (a little more) and counts over its own wall clock:
    # between 0.9x and 1.2x of 1/day, where the default racks would give 30 + 70 = ~3.3/day
    assert 0.9 < per_day < 1.2, per_day
    s = relmc.rates.summarize_rates(post, n_gpus=N)
    tor = float(s["hours_between_mean"].sel(category="ToR switch"))
    assert tor == pytest.approx(HOURS / (EVENTS + 0.25), rel=0.02)
    # a sweep over a posterior file: its base cluster is the fit's shape
    post.to_netcdf(str(tmp_path / "post.nc"))
    spec = relmc.sweep.SweepSpec.from_dict(
        {"seed": 1, "n_trials": 8, "posterior": "post.nc", "axes": {"cluster.n_gpus": [N]}},
        root=tmp_path,
    )
    assert spec.base_scenario.cluster.nodes_per_rack == 16
    # ... unless [base.cluster] says otherwise (then the cells warn as simulate does)
    spec2 = relmc.sweep.SweepSpec.from_dict(
        {"seed": 1, "n_trials": 8, "posterior": "post.nc", "axes": {"cluster.n_gpus": [N]},
         "base": {"cluster": {"nodes_per_rack": 4}}},
        root=tmp_path,
    )  # fmt: skip
    assert spec2.base_scenario.cluster.nodes_per_rack == 4
    assert spec.sha256() != spec2.sha256()


def test_command_line_fit_project_simulate(tmp_path, capsys):
    csv = tmp_path / "c.csv"
    csv.write_text("category,count,unit\nToR switch,10,rack\n")
    window = ["--observed-gpus", str(N), "--observed-hours", str(HOURS)]
    assert main(["fit", "--counts", str(csv), *window, "--nodes-per-rack", "16",
                 "--seed", "1", "--out", str(tmp_path / "f")]) == 0  # fmt: skip
    out = capsys.readouterr().out
    # the fit's own line at the observed size: the posterior median of Gamma(10 + 1/2) / 30
    # days, 0.339, printed to two digits (the draws' median is within 1 % of it); the
    # default racks would print 2.7
    assert "; 0.34 unexpected interruptions per day" in out, out
    post = tmp_path / "f" / "posterior.nc"
    with xr.open_dataset(post, group="posterior") as p:
        assert int(p.attrs["nodes_per_rack"]) == 16
    toml = tmp_path / "s.toml"
    toml.write_text(f"[cluster]\nn_gpus = {N}\n[job]\ncompute_hours = 200\n")
    argv = ["simulate", str(toml), "--posterior", str(post), "--n-trials", "300", "--seed", "2"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main([*argv, "--out", str(tmp_path / "s")]) == 0
    with xr.open_dataset(tmp_path / "s" / "simulation.nc") as res:
        per_day = float((res.interruptions.sum("category") / (res.wall_hours / 24)).mean())
    assert 0.2 < per_day < 0.55, per_day  # ~0.35; the default racks: ~2.8
    capsys.readouterr()
    # the file's own nodes_per_rack stays, and is warned of
    toml.write_text(f"[cluster]\nn_gpus = {N}\nnodes_per_rack = 2\n[job]\ncompute_hours = 200\n")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main([*argv, "--out", str(tmp_path / "s2")]) == 0
    err = capsys.readouterr().err
    assert "nodes_per_rack = 16; this scenario's cluster has nodes_per_rack = 2" in err
    # a bad shape option is named as the option, before anything is read
    assert main(["fit", "--counts", str(csv), "--links-per-gpu", "0", "--out", "x"]) == 2
    assert capsys.readouterr().err.startswith("relmc: error: --links-per-gpu: links_per_gpu")


def test_an_event_log_fit_counts_racks_with_the_log_s_shape(tmp_path):
    """load_events counts a rack category's exposure with the log's racks; the event model
    must turn its per-node rates into per-rack ones with the same racks, since projections
    count racks with the shape the fit records (it used the default racks: 1/8 the rate)."""
    from relmc.events import load_events
    from relmc.models import fit_events
    from relmc.models.events import event_data

    rng = np.random.default_rng(0)
    times = np.sort(rng.uniform(0.0, HOURS, 40))
    log = tmp_path / "rack.csv"
    log.write_text("time,category,unit\n" + "".join(f"{t:.4f},ToR,rack\n" for t in times))
    ev = load_events(log, n_gpus=N, end=HOURS, shape=RACKS16)
    racks = cluster.units(N, "rack", RACKS16)  # 32
    assert float(ev["exposure"][0]) == racks * HOURS
    d = event_data(ev)
    assert d.per_node_units.tolist() == [cluster.units(N, "node", RACKS16) / racks]  # 16, not 2
    fit = fit_events(ev, n_draws=300, n_tune=300, n_chains=2, seed=1, cores=1, progressbar=False)
    assert fit_shape(fit) == RACKS16
    sc = relmc.scenario.replace_path(default_scenario(fit), "cluster.n_gpus", N)
    got = _job_rate(sc, fit, "ToR")
    # known answer: the observed 40 events in 720 h (Poisson: 16 % relative SD, so within a
    # factor 1.7 is over 3 SD); the default racks' count would give 1/8 of it
    assert 40 / HOURS / 1.7 < got < 1.7 * 40 / HOURS, got


@pytest.mark.parametrize(
    "value, kw, expected",
    [
        (1, {}, 1),
        (np.int64(100_000_000), {}, 100_000_000),
        (0, {"lo": 0}, 0),
        (64.0, {"whole": True}, 64),
        (np.float32(8.0), {"whole": True}, 8),
        (np.array(16_384), {}, 16_384),
        (np.array(2048.0), {"whole": True}, 2048),
    ],
)
def test_check_gpus_takes_counts_in_range(value, kw, expected):
    n = cluster.check_gpus(value, "n_gpus", **kw)
    assert n == expected and type(n) is int


@pytest.mark.parametrize(
    "value, kw, text",
    [
        (0, {}, "an integer in [1, 1e8]"),
        (100_000_001, {}, "an integer in [1, 1e8]"),
        (-1, {"lo": 0}, "an integer in [0, 1e8]"),
        (True, {}, "an integer"),
        (np.True_, {"whole": True}, "a whole number"),
        (64.0, {}, "an integer"),  # a float only where asked for
        (64.5, {"whole": True}, "a whole number"),
        (float("nan"), {"whole": True}, "a whole number"),
        (float("inf"), {"whole": True}, "a whole number"),
        (1e300, {"whole": True}, "a whole number"),
        (10**400, {}, "an integer"),
        ("64", {}, "an integer"),
        (None, {}, "an integer"),
    ],
)
def test_check_gpus_names_the_field_and_the_range(value, kw, text):
    with pytest.raises(relmc.errors.FieldError, match=r"fleet\.attrs\['n_gpus'\] must be") as e:
        cluster.check_gpus(value, "fleet.attrs['n_gpus']", why=" (the GPUs)", **kw)
    assert e.value.field == "fleet.attrs['n_gpus']"
    assert text in str(e.value) and "(the GPUs); got" in str(e.value)
