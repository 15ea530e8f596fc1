"""Paired comparisons of scenarios."""

import numpy as np
import pytest

import relmc
from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario, replace_path


def _base():
    cats = (Category("a", rate=2e-4, unit="gpu"), Category("b", rate=1e-3, unit="node"))
    return Scenario(cluster=Cluster(n_gpus=512), failures=FailureModel(cats), job=Job(100.0),
                    policy=Policy(restart_hours=0.3))  # fmt: skip


def test_identical_scenarios_have_zero_gain_in_every_trial(capfd):
    base = _base()
    ds = relmc.compare({"a": base, "b": base}, n_trials=300, seed=1)
    assert capfd.readouterr().err == ""  # no progress bar unasked
    np.testing.assert_array_equal(ds.ettr.sel(scenario="a"), ds.ettr.sel(scenario="b"))
    assert float(np.abs(ds.gain_quantile).max()) == 0.0


def test_gains_are_paired_per_trial_and_match_separate_runs():
    base = _base()
    fast = replace_path(base, "policy.restart_hours", 0.05)
    slow = replace_path(base, "policy.restart_hours", 1.0)
    ds = relmc.compare({"base": base, "fast": fast, "slow": slow}, n_trials=2000, seed=7)
    # the same as simulating each with the same seed by hand, interruptions a day as
    # relmc.summarize gives them (to rounding: summarize sums per-category rates)
    for name, sc in (("base", base), ("fast", fast)):
        sim = relmc.simulate(sc, n_trials=2000, seed=7)
        np.testing.assert_array_equal(ds.ettr.sel(scenario=name), sim.ettr)
        s = relmc.summarize(sim, quantiles=ds["quantile"].values)
        for stat in ("mean", "quantile"):
            np.testing.assert_allclose(
                ds[f"interruptions_per_day_{stat}"].sel(scenario=name),
                s[f"interruptions_per_day_{stat}"],
                rtol=1e-12,
            )
    # a shorter restart changes the failures a day little (exposure is the same clock), the
    # negative control's longer one too: both within a few percent of the baseline's
    per_day = ds["interruptions_per_day_mean"]
    assert float(abs(per_day / per_day.sel(scenario="base") - 1).max()) < 0.1
    # shorter restarts gain, longer restarts lose (a negative control): each beyond 4 SE
    assert float(ds.gain_mean.sel(scenario="fast")) > 4 * float(ds.gain_se.sel(scenario="fast"))
    assert float(ds.gain_mean.sel(scenario="slow")) < -4 * float(ds.gain_se.sel(scenario="slow"))
    # pairing: the paired SE of the gain is smaller than the unpaired one would be
    unpaired = float(np.hypot(ds.ettr_se.sel(scenario="fast"), ds.ettr_se.sel(scenario="base")))
    assert float(ds.gain_se.sel(scenario="fast")) < unpaired
    # the standard errors are the sample sd (n - 1) over sqrt(n), as relmc.summarize's
    np.testing.assert_allclose(ds.ettr_se, ds.ettr.std("trial", ddof=1) / np.sqrt(2000), 1e-12)
    assert ds.attrs["baseline"] == "base"


def test_each_scenario_names_its_kernel_path_and_pairs_by_stream_only_on_the_same_one():
    """``kernel_path`` per scenario; trials pair by stream on one path, by draw across two.

    A diurnal amplitude of 1e-3 takes the diurnal path: against the renewal baseline its
    trials pair by draw only (their gains spread as two unpaired runs': measured 1.25 times
    the ETTR's spread, 6 % of trials within 1e-4), though its mean effect is nil (within 5
    SE). Against a baseline of amplitude 1e-9 (the same path) most trials pair by stream
    (60 % within 1e-4). Negative control: a shorter restart stays on the baseline's path.
    """
    base = _base()
    faint = replace_path(base, "failures.categories.*.diurnal_amplitude", 1e-3)
    fainter = replace_path(base, "failures.categories.*.diurnal_amplitude", 1e-9)
    quick = replace_path(base, "policy.restart_hours", 0.05)
    ds = relmc.compare({"base": base, "faint": faint, "quick": quick}, n_trials=600, seed=3)
    names, kinds = ds["scenario"].values.tolist(), ds["kernel_path"].values.tolist()
    assert dict(zip(names, kinds, strict=True)) == {
        "base": "renewal",
        "faint": "diurnal",
        "quick": "renewal",
    }
    assert "kernel_path" in ds.attrs["pairing"]
    spread = float(ds.ettr.sel(scenario="base").std())
    gain = ds.ettr.sel(scenario="faint") - ds.ettr.sel(scenario="base")
    assert abs(float(gain.mean())) < 5 * float(ds.gain_se.sel(scenario="faint"))
    assert float(gain.std()) > 0.9 * spread and float((abs(gain) < 1e-4).mean()) < 0.15
    same = relmc.compare({"fainter": fainter, "faint": faint}, n_trials=600, seed=3)
    assert same["kernel_path"].values.tolist() == ["diurnal", "diurnal"]
    gain = same.ettr.sel(scenario="faint") - same.ettr.sel(scenario="fainter")
    assert float((abs(gain) < 1e-4).mean()) > 0.4
    assert relmc.simulate(faint, n_trials=4, seed=1).attrs["kernel_path"] == "diurnal"


def test_a_scenario_whose_change_does_nothing_in_it_is_warned_of_by_name():
    """A field changed from the baseline but dead in its scenario is named, per scenario.

    ``checkpoint_retention`` without an SDC category changes nothing (gain exactly 0); with
    an SDC scenario beside it, the field is read somewhere, so the warning of fields unread
    in every scenario is silent, and this one names the scenario. Negative controls: the
    same retention with an SDC category is not warned of, and a field dead in every
    scenario is warned of once, by the other warning, not again per scenario.
    """
    import warnings

    from relmc.errors import UnreadFieldWarning

    base = _base()
    sdc = replace_path(base, "failures.categories.b.kind", "sdc")
    sdc = replace_path(sdc, "failures.categories.b.sdc_latency_hours", 2.0)
    keep = replace_path(base, "policy.checkpoint_retention", 3)
    both = replace_path(sdc, "policy.checkpoint_retention", 3)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        ds = relmc.compare(
            {"base": base, "sdc": sdc, "keep": keep, "both": both}, n_trials=50, seed=1
        )
    text = [str(w.message) for w in got if issubclass(w.category, UnreadFieldWarning)]
    named = [t for t in text if t.startswith("compare: scenario")]
    assert len(named) == 1 and "'keep'" in named[0] and "checkpoint_retention" in named[0]
    np.testing.assert_array_equal(ds.gain_quantile.sel(scenario="keep"), 0.0)
    # a dead field the scenario has at the baseline's value is not its change: not named
    quick = replace_path(keep, "policy.restart_hours", 0.1)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        relmc.compare({"keep": keep, "both": both, "quick": quick}, n_trials=50, seed=1)
    text = [str(w.message) for w in got if issubclass(w.category, UnreadFieldWarning)]
    assert not any(t.startswith("compare: scenario") for t in text), text
    peak = replace_path(base, "failures.categories.*.diurnal_peak_hour", 3.0)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        relmc.compare({"base": base, "peak": peak}, n_trials=50, seed=1)
    text = [str(w.message) for w in got if issubclass(w.category, UnreadFieldWarning)]
    assert text and not any(t.startswith("compare: scenario") for t in text)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scenarios": {}}, "at least 2"),
        ({"baseline": "zzz"}, "baseline must be one of"),
        ({"n_trials": 1}, "n_trials"),
        ({"quantiles": [0.9, 0.1]}, "quantiles"),
        ({"n_gpus": [512, 0]}, "n_gpus"),
        ({"n_gpus": []}, "n_gpus"),
    ],
)
def test_bad_input_is_named(kwargs, match):
    base = _base()
    kw = {"scenarios": {"a": base, "b": base}, **kwargs}
    with pytest.raises(ValueError, match=match):
        relmc.compare(kw.pop("scenarios"), **kw)


def test_names_that_print_alike_are_refused():
    # keys 1 and "1" are distinct in the mapping but one label in the result: refused before
    # anything runs; distinct labels pass (negative control)
    from relmc.errors import FieldError

    base = _base()
    with pytest.raises(FieldError, match=r"scenario names must be unique; got \['1', '1'\]"):
        relmc.compare({1: base, "1": base}, n_trials=4, seed=1)
    ds = relmc.compare({1: base, "2": base}, n_trials=4, seed=1)
    assert ds["scenario"].values.tolist() == ["1", "2"]


def test_several_sizes_are_each_the_comparison_at_that_size():
    # one root seed at every size: each size's numbers are those of a comparison at that size
    # alone, bit for bit; the sizes come out ascending, each once
    base = _base()
    fast = replace_path(base, "policy.restart_hours", 0.05)
    scs = {"base": base, "fast": fast}
    both = relmc.compare(scs, n_gpus=[4096, 256, 4096], n_trials=300, seed=3)
    assert both["n_gpus"].values.tolist() == [256, 4096]
    assert both["ettr"].dims == ("n_gpus", "scenario", "trial") and both["draw"].dims == ("trial",)
    for n in (256, 4096):
        one = relmc.compare(scs, n_gpus=n, n_trials=300, seed=3)
        assert "n_gpus" not in one.dims
        for name, v in one.data_vars.items():
            np.testing.assert_array_equal(both[name].sel(n_gpus=n), v, err_msg=name)
    # sixteen times the GPUs: more failures, so a larger gain from faster restarts (beyond 4 SE
    # of the difference; the same trials' streams at both sizes, so not paired across sizes)
    g = both.sel(scenario="fast")
    diff = float(g.gain_mean.sel(n_gpus=4096) - g.gain_mean.sel(n_gpus=256))
    assert diff > 4 * float(np.hypot(*g.gain_se.values))


def test_trials_stopped_by_the_cap_are_warned_of():
    # a cap of 1.05 x the compute hours at failures every ~2 h of a 100-h job: most trials
    # stop at the cap, as relmc.project warns; a scenario that finishes is not named
    from relmc.errors import NotFinishedWarning

    base = replace_path(_base(), "policy.wall_cap_factor", 1.05)
    calm = replace_path(replace_path(base, "failures.categories.a.rate_multiplier", 0.0),
                        "failures.categories.b.rate_multiplier", 0.0)  # fmt: skip
    with pytest.warns(NotFinishedWarning, match=r"compare: 'capped' at n_gpus=512") as got:
        ds = relmc.compare({"capped": base, "calm": calm}, n_trials=50, seed=1)
    assert not any("'calm'" in str(w.message) for w in got)
    assert float(ds.finished_fraction.sel(scenario="capped")) < 1.0
    assert float(ds.finished_fraction.sel(scenario="calm")) == 1.0
