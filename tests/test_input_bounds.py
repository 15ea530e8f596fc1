"""Bad input at the limits of numbers: one clear error naming the field and its range, before
any work; and extreme values that are valid give the answers their ordinary neighbours give.

Each test below came from an audit of every field at NaN, +-inf, 0, 1e300, 5e-324, 10**30 and
2**63 (integers), wrong types and nested lists: values that overflowed a kernel argument, made
an integrated intensity overflow (so a trial stopped failing), normalised a rate profile to
zeros or NaN, named the wrong field, or were refused only after the fit.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import xarray as xr

import relmc
from relmc import Category, FailureModel, Job, Policy, Scenario
from relmc.errors import FieldError
from relmc.rates import RateDraws, exposed_fraction, nested_draws
from relmc.scenario import MAX_EVENTS, MAX_TREND_FACTOR, Z95, replace_path
from relmc.sim.simulate import kernel_inputs

DEFAULT = Scenario.default()


# --------------------------------------------------------------------------------------------
# integers the kernel takes as 64-bit (or 31-bit) words


@pytest.mark.parametrize(
    ("field", "lo", "hi"),
    [
        ("lemon_failures", 0, 1000),
        ("retire_after_repairs", 0, MAX_EVENTS),
        ("memory_replicas", 1, MAX_EVENTS),
        ("checkpoint_retention", 0, MAX_EVENTS),
        ("n_standbys", 0, 10**7),
        ("max_events", 1, MAX_EVENTS),
    ],
)
def test_integer_policy_fields_have_an_upper_bound(field, lo, hi):
    assert getattr(Policy(**{field: hi}), field) == hi  # the bound itself is valid
    for bad in (hi + 1, 2**63, 10**30, lo - 1):
        with pytest.raises(FieldError, match=rf"policy\.{field} must be an integer in \[{lo}, "):
            Policy(**{field: bad})


def test_huge_integers_are_refused_before_the_kernel_on_every_path():
    # a numba argument of more than 64 bits was an OverflowError or a TypingError traceback
    sdc = replace_path(DEFAULT, "failures.categories.Silent Data Corruption.kind", "sdc")
    for sc, path in (
        (DEFAULT, "policy.lemon_failures"),
        (DEFAULT, "policy.retire_after_repairs"),
        (replace_path(DEFAULT, "policy.memory_restart_hours", 0.05), "policy.memory_replicas"),
        (sdc, "policy.checkpoint_retention"),
    ):
        with pytest.raises(FieldError) as e:
            replace_path(sc, path, 10**30)
        assert e.value.field == path


# --------------------------------------------------------------------------------------------
# the fleet-level trend


def _trend(shape: float, age: float) -> Scenario:
    fm = replace_path(DEFAULT, "failures.trend_shape", shape)
    return replace_path(fm, "failures.fleet_age_hours", age)


@pytest.mark.parametrize(
    ("shape", "age"), [(2.0, 1e-300), (2.0, 1e-100), (100.0, 1.0), (1.0001, 5e-324), (0.5, 5e-324)]
)
def test_a_trend_that_overflows_within_the_cap_is_refused(shape, age):
    # trend 2 at age 1e-300 ran with ETTR 0.96 and 9 failures a trial: the integrated
    # intensity overflowed to inf after the first restarts, so no failure came after them
    with pytest.raises(FieldError) as e:
        kernel_inputs(_trend(shape, age))
    assert e.value.field == "failures.fleet_age_hours"
    assert "must be >=" in str(e.value)


def test_fields_set_one_by_one_are_checked_together():
    # a sweep sets its axes one by one: a trend of 100 before its fleet age of 1e6 h, a rule
    # interval before its snapshot time; the half-set scenario in between is not refused
    sc = replace_path(
        replace_path(DEFAULT, "failures.trend_shape", 100.0), "failures.fleet_age_hours", 1e6
    )
    kernel_inputs(sc)
    free = replace_path(DEFAULT, "policy.snapshot_hours", 0.0)
    sc = replace_path(
        replace_path(free, "policy.checkpoint_interval", "young"), "policy.snapshot_hours", 0.01
    )
    kernel_inputs(sc)


def test_the_trend_bound_is_the_stated_factor_at_the_cap():
    cap = DEFAULT.policy.wall_cap_factor * DEFAULT.job.compute_hours
    shape = 3.0
    least = cap / math.expm1(math.log(MAX_TREND_FACTOR) / (shape - 1.0))
    sc = _trend(shape, least * (1 + 1e-9))  # just inside
    kernel_inputs(sc)
    assert (1 + cap / sc.failures.fleet_age_hours) ** (shape - 1) <= MAX_TREND_FACTOR
    with pytest.raises(FieldError) as e:
        kernel_inputs(_trend(shape, least * (1 - 1e-6)))
    assert f"must be >= {least:.6g} h" in str(e.value)  # the least age stated is the bound
    kernel_inputs(_trend(1.0, 5e-324))  # no trend: the age is unused


def test_a_steep_trend_at_the_default_fleet_age_blames_the_shape():
    # the fleet age left at its default (a placeholder): the shape set is blamed, with the
    # largest shape allowed at that age, which passes (stated rounded down); set elsewhere,
    # the age is blamed and the message gives both bounds
    cap = DEFAULT.policy.wall_cap_factor * DEFAULT.job.compute_hours
    age = DEFAULT.failures.fleet_age_hours
    most = 1.0 + math.log(MAX_TREND_FACTOR) / math.log1p(cap / age)  # 21.08 at 8760 h
    with pytest.raises(FieldError) as e:
        kernel_inputs(replace_path(DEFAULT, "failures.trend_shape", 100.0))
    assert e.value.field == "failures.trend_shape"
    stated = float(re.search(r"must be <= ([0-9.]+)", str(e.value)).group(1))
    assert most - 0.01 < stated <= most and str(e.value).endswith("got 100")
    kernel_inputs(replace_path(DEFAULT, "failures.trend_shape", stated))
    with pytest.raises(FieldError):
        kernel_inputs(replace_path(DEFAULT, "failures.trend_shape", most * (1 + 1e-9)))
    with pytest.raises(FieldError) as e:
        kernel_inputs(_trend(100.0, 1000.0))
    assert e.value.field == "failures.fleet_age_hours"
    assert "(at 1000 h the shape may be at most 9.391)" in str(e.value)


def test_a_younger_fleet_wears_out_faster():
    # the audit's symptom was the reverse (a smaller age gave a higher ETTR); each age here
    # is inside the bound, and a younger fleet's (1 + t / age) ** (shape - 1) is larger at
    # every t, so failures are stochastically more: mean ETTR falls, interruptions rise
    # (differences of many SEs at 32 trials)
    out = []
    for age in (8760.0, 100.0, 10.0):
        ds = relmc.simulate(_trend(2.0, age), n_trials=32, seed=3, n_threads=1)
        out.append((float(ds.ettr.mean()), float(ds.interruptions.mean())))
    ettr, count = zip(*out, strict=True)
    assert ettr[0] > ettr[1] > ettr[2] and count[0] < count[1] < count[2], out


def _trend_posterior(shapes, age: float):
    import arviz as az

    cats = list(DEFAULT.failures.names)
    n = len(shapes)
    rate = np.tile([c.rate for c in DEFAULT.failures.categories], (1, n, 1))
    post = xr.Dataset(
        {
            "rate": (("chain", "draw", "category"), rate),
            "trend_shape": (("chain", "draw"), np.asarray(shapes, float)[None, :]),
        },
        coords={
            "category": cats,
            "unit": ("category", [c.unit for c in DEFAULT.failures.categories]),
        },
        attrs={"fleet_age_hours": age, "exposure_clock": "exposed"},
    )
    return az.InferenceData(posterior=post)


def test_a_posterior_trend_is_checked_at_its_largest_shape():
    # at age 0.001 h the wall cap is 2.6e7 fleet ages: shape 1.5 multiplies the rates by
    # 5e3 there, shape 3 by 7e14 (over the 1e12 allowed)
    kernel_inputs(DEFAULT, _trend_posterior([1.5, 1.5], 1e-3), 4)
    kernel_inputs(DEFAULT, _trend_posterior([1.5, 3.0], 8760.0), 4)
    with pytest.raises(FieldError, match=r"posterior.attrs\['fleet_age_hours'\] must be >=") as e:
        kernel_inputs(DEFAULT, _trend_posterior([1.5, 3.0], 1e-3), 4)
    assert "trend_shape = 3" in str(e.value)
    assert e.value.field == "posterior.attrs['fleet_age_hours']"  # where the age is set
    # a posterior without an age takes the scenario's, which the refusal then names
    young = replace_path(DEFAULT, "failures.fleet_age_hours", 1e-3)
    with pytest.raises(FieldError, match="failures.fleet_age_hours must be >=") as e:
        kernel_inputs(young, _trend_posterior([1.5, 3.0], 0.0), 4)
    assert e.value.field == "failures.fleet_age_hours"


# --------------------------------------------------------------------------------------------
# rate profiles at the float limits


def test_profiles_at_the_float_limits_normalise_like_their_scaled_copies():
    flat = Category("x", rate=1e-5, rate_profile=[1.0] * 24).weekly_profile()
    huge = Category("x", rate=1e-5, rate_profile=[1e308] * 24).weekly_profile()
    np.testing.assert_array_equal(huge, flat)  # was all 0: the mean overflowed
    spike = Category("x", rate=1e-5, rate_profile=[1.0] + [0.0] * 23).weekly_profile()
    tiny = Category("x", rate=1e-5, rate_profile=[5e-324] + [0.0] * 23).weekly_profile()
    np.testing.assert_array_equal(tiny, spike)  # was inf and NaN: the mean underflowed
    week = [1e-320] + [0.0] * 167  # a subnormal mean: 168.67 at the peak, mean 1.004
    np.testing.assert_array_equal(Category("x", rate_profile=week).weekly_profile()[:2], [168, 0])
    assert spike[0] == 24.0 and spike.mean() == 1.0
    # negative control: an ordinary profile is divided by its mean as it always was
    q = np.tile(np.arange(1.0, 25.0), 7)
    np.testing.assert_array_equal(
        Category("x", rate=1e-5, rate_profile=list(range(1, 25))).weekly_profile(), q / q.mean()
    )


def test_an_overflowing_profile_simulates_as_the_flat_one():
    def run(profile):
        fm = FailureModel((Category("x", rate=1e-5, rate_profile=profile),))
        return relmc.simulate(Scenario(failures=fm), n_trials=16, seed=2, n_threads=1)

    np.testing.assert_array_equal(
        run([1e308] * 24).interruptions.values, run([1.0] * 24).interruptions.values
    )
    a, b = run([5e-324] + [0.0] * 23), run([1.0] + [0.0] * 23)
    np.testing.assert_array_equal(a.interruptions.values, b.interruptions.values)
    assert np.all(np.isfinite(relmc.summarize(a)["interruptions_per_day_mean"].values))


# --------------------------------------------------------------------------------------------
# the job, the rates, the cluster


def test_compute_hours_has_a_floor_that_keeps_per_day_rates_finite():
    with pytest.raises(FieldError, match=r"job.compute_hours must be a finite number >= 1e-09"):
        Job(5e-324)
    ds = relmc.simulate(replace_path(DEFAULT, "job.compute_hours", 1e-9), n_trials=2, seed=0)
    assert np.all(np.isfinite(ds.power_swings_per_day.values))  # was inf at 5e-324


@pytest.mark.parametrize("value", [True, np.bool_(True), "1", None, [1.0]])
def test_rate_mappings_take_real_numbers_only(value):
    # True was taken as a rate of 1 per GPU-hour
    with pytest.raises(FieldError, match=r"rates\['Faulty GPU'\] must be a finite number"):
        relmc.simulate(DEFAULT, rates={"Faulty GPU": value}, n_trials=1)


def test_sizes_must_be_flat():
    with pytest.raises(FieldError, match="a flat list of integers"):
        relmc.projection.check_sizes([[2048]])
    assert relmc.projection.check_sizes(np.array([4096, 2048])) == [2048, 4096]


def test_maintenance_rate_and_links_per_gpu_have_upper_bounds():
    with pytest.raises(FieldError, match=r"failures.maintenance_rate must be a number in \[0, "):
        replace_path(DEFAULT, "failures.maintenance_rate", 1e300)
    with pytest.raises(FieldError, match=r"cluster.links_per_gpu must be a number in \(0, 1000\]"):
        replace_path(DEFAULT, "cluster.links_per_gpu", 1e300)
    assert replace_path(DEFAULT, "failures.maintenance_rate", 1e12).failures.maintenance_rate


@pytest.mark.parametrize("categories", [None, [1.0], "abc", (Category("a"), 3)])
def test_failure_model_names_its_categories_field(categories):
    with pytest.raises(FieldError, match="failures.categories must be a non-empty list"):
        FailureModel(categories)


def test_an_interval_rule_with_free_snapshots_is_refused():
    with pytest.raises(FieldError, match="needs policy.snapshot_hours > 0") as e:
        Policy(checkpoint_interval="daly", snapshot_hours=0.0).interval(1.0)
    assert e.value.field == "policy.snapshot_hours"
    assert Policy(checkpoint_interval="daly").snapshot_hours > 0  # negative control


# --------------------------------------------------------------------------------------------
# the segment count blames the field furthest from its default


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("policy.wall_cap_factor", 1e11),
        ("policy.wall_cap_factor", 1e300),
        ("job.compute_hours", 1e300),
        ("policy.checkpoint_interval", 1e-12),
    ],
)
def test_too_many_segments_blame_the_outlier(path, value):
    with pytest.raises(FieldError) as e:
        relmc.simulate(replace_path(DEFAULT, path, value), n_trials=1)
    assert e.value.field == path
    text = str(e.value)
    for name in ("policy.wall_cap_factor", "job.compute_hours", "policy.checkpoint_interval"):
        assert name in text


def test_segments_blame_a_given_field_only():
    from relmc.sim.simulate import check_segments

    pol, job = Policy(wall_cap_factor=1e300), Job(720.0)
    with pytest.raises(FieldError) as e:
        check_segments(pol, job, 0.5, {"job.compute_hours", "policy.wall_cap_factor"})
    assert e.value.field == "policy.wall_cap_factor"
    with pytest.raises(FieldError) as e:  # only compute_hours was set: it is the one to change
        check_segments(Policy(wall_cap_factor=1e11), Job(2000.0), 0.5, {"job.compute_hours"})
    assert e.value.field == "job.compute_hours"
    check_segments(Policy(), Job(), 0.5, set())  # negative control: the defaults fit


# --------------------------------------------------------------------------------------------
# projections and fits


def test_projection_counts_are_bounded_and_the_stated_range_is_the_accepted_one():
    with pytest.raises(FieldError, match=r"credible_trials must be 0 \(none\) or an integer"):
        relmc.project(None, n_gpus=2048, n_trials=4, credible_trials=-1)
    with pytest.raises(FieldError, match=r"credible_trials must be 0"):
        relmc.project(None, n_gpus=2048, n_trials=4, credible_trials=False)
    with pytest.raises(FieldError, match=r"trials_per_draw must be an integer in \[2, 1e\+08\]"):
        relmc.project(None, n_gpus=2048, n_trials=4, trials_per_draw=10**9)


def test_one_group_larger_than_the_trials_is_cut_to_them():
    draws = RateDraws(np.arange(6.0).reshape(3, 2), "test")
    big = nested_draws(draws, 5, 10**8)  # was 1e8 rows (0.8 GB of indices alone)
    assert big.n_draws == 5 and np.all(big.draw_index == 0)
    # negative control: several groups keep their m rows each
    np.testing.assert_array_equal(nested_draws(draws, 5, 2).draw_index, [0, 0, 1, 1, 2, 2])


def test_fits_bound_their_draws_and_chains_before_drawing():
    from relmc.models import fit_conjugate
    from relmc.models._common import check_draws

    with pytest.raises(ValueError, match=r"n_chains must be an integer in \[1, 1000\]"):
        fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=10, n_chains=10**12)
    with pytest.raises(ValueError, match="n_draws x n_chains must be at most 1e\\+07"):
        check_draws(5_000_000, 4)
    assert check_draws(2_500_000, 4) == (2_500_000, 4)


def test_cli_bounds_match_the_models():
    from relmc.cli import options
    from relmc.models import _common

    assert options.MAX_CHAINS == _common.MAX_CHAINS
    assert options.MAX_POSTERIOR_DRAWS == _common.MAX_POSTERIOR_DRAWS


# --------------------------------------------------------------------------------------------
# overheads that leave the observed job no exposure


def _observed(scenario: Scenario) -> RateDraws:
    rates = np.array([[c.rate for c in scenario.failures.categories]])
    return RateDraws(rates, "test", observed_gpus=16_384)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("policy.swap_hours", 30.0),
        ("policy.snapshot_hours", 1e300),
        ("failures.maintenance_hours", 100.0),
        ("failures.maintenance_rate", 1e9),
    ],
)
def test_no_exposure_blames_the_overhead_that_took_it(path, value):
    sc = replace_path(DEFAULT, path, value)
    with pytest.raises(FieldError, match="must sum to below 1") as e:
        exposed_fraction(sc, _observed(sc))
    assert e.value.field == path
    f = exposed_fraction(DEFAULT, _observed(DEFAULT))  # negative control
    assert 0.99 < float(f[0]) < 1.0


def test_planned_pauses_blame_the_rate_or_the_hours_by_their_scales():
    # maintenance 0.1 an hour (2.4 a day) of 20 h each: the hours are further above one hour
    # than the rate above one a day, so the hours are blamed; 1e9 an hour of 1 h: the rate
    base = replace_path(DEFAULT, "failures.maintenance_rate", 0.1)
    sc = replace_path(base, "failures.maintenance_hours", 20.0)
    with pytest.raises(FieldError) as e:
        exposed_fraction(sc, _observed(sc))
    assert e.value.field == "failures.maintenance_hours"
    # a persist longer than the snapshot is the checkpoint overhead blamed (0.1 x 11 h)
    sc = replace_path(base, "policy.checkpoint_interval", 10.0)
    sc = replace_path(replace_path(sc, "policy.persist_hours", 6.0), "policy.snapshot_hours", 5.0)
    with pytest.raises(FieldError) as e:
        exposed_fraction(sc, _observed(sc))
    assert e.value.field == "policy.persist_hours"
    sc = replace_path(sc, "policy.snapshot_hours", 7.0)  # negative control: now the snapshot
    with pytest.raises(FieldError) as e:
        exposed_fraction(sc, _observed(sc))
    assert e.value.field == "policy.snapshot_hours"
    # persist and snapshot compared at their means: a persist of 6 h with a spread whose mean
    # factor is 1.5 (9 h) against a 10 h snapshot blames the snapshot (6 ** 1.5 = 14.7 would
    # not), and against an 8 h one the persist
    spread = math.exp(Z95 * math.sqrt(2.0 * math.log(1.5)))
    sc = replace_path(
        replace_path(base, "policy.checkpoint_interval", 20.0), "policy.persist_hours", 6.0
    )
    sc = replace_path(sc, "policy.persist_spread", spread)
    assert sc.policy.mean_factor("persist") == pytest.approx(1.5)
    for snapshot, blamed in ((10.0, "policy.snapshot_hours"), (8.0, "policy.persist_hours")):
        sc = replace_path(sc, "policy.snapshot_hours", snapshot)
        with pytest.raises(FieldError) as e:
            exposed_fraction(sc, _observed(sc))
        assert e.value.field == blamed


def test_segment_errors_state_each_field_s_bound():
    from relmc.sim.simulate import check_segments

    with pytest.raises(FieldError) as e:  # 1e4 h x 20 / 1e12 intervals of 5e-9 h: 40x over
        check_segments(Policy(), Job(1e4), 5e-9)
    text = str(e.value)  # a factor below 1 is no way out
    assert "job.compute_hours <= 250 h" in text and "policy.wall_cap_factor <=" not in text
    with pytest.raises(FieldError) as e:  # here a smaller factor would do: 5 at most
        check_segments(Policy(wall_cap_factor=40.0), Job(1e4), 5e-8)
    assert "policy.wall_cap_factor <= 5," in str(e.value) or "policy.wall_cap_factor <= 5 " in str(
        e.value
    )


def test_an_overhead_a_drawn_multiple_could_overflow_is_refused():
    # a snapshot of 1.7e308 h with a spread of 100: some draws' multiple was inf, the segment
    # infinite and the checkpoint's lost hours NaN. A stated value times e^(40 (sigma + j))
    # must stay below 1e300 h, whatever the seed
    spread = replace_path(DEFAULT, "policy.snapshot_spread", 100.0)
    with pytest.raises(FieldError, match=r"policy.snapshot_hours must be <= 2.31e\+251 h with "):
        replace_path(spread, "policy.snapshot_hours", 1.7e308)
    with pytest.raises(FieldError) as e:  # spread and jitter add; a category's field named
        sc = replace_path(DEFAULT, "policy.detection_spread", 100.0)
        sc = replace_path(sc, "policy.detection_jitter", 100.0)
        replace_path(sc, "failures.categories.CPU.detection_hours", 1e250)
    assert e.value.field == "failures.categories['CPU'].detection_hours"
    assert "and policy.detection_jitter = 100" in str(e.value)
    with pytest.raises(
        FieldError, match=r"detection_spread = 100 and policy.detection_jitter = 2 "
    ):
        sc = replace_path(DEFAULT, "policy.detection_spread", 100.0)
        sc = replace_path(sc, "policy.detection_jitter", 2.0)  # log-sd 0.42: named too
        replace_path(sc, "failures.categories.CPU.detection_hours", 1e250)
    # negative controls: the same value without a spread, and a large one within the bound
    assert replace_path(DEFAULT, "policy.snapshot_hours", 1.7e308).policy.snapshot_hours > 1e308
    assert replace_path(spread, "policy.snapshot_hours", 2e251).policy.snapshot_spread == 100.0


def test_gpu_power_is_bounded():
    # 1e308 W a GPU made the job's power step and every swing count inf; one megawatt a GPU
    # is the most a cluster takes (1e8 GPUs step by at most 1e8 MW)
    with pytest.raises(FieldError, match=r"cluster.gpu_busy_watts must be a number in \(0, 1e"):
        replace_path(DEFAULT, "cluster.gpu_busy_watts", 1e308)
    assert replace_path(DEFAULT, "cluster.gpu_busy_watts", 1e6).cluster.power_step_mw > 0


@pytest.mark.parametrize(
    "x, text",
    [
        (1e6, "1e6"),
        (10**8, "1e8"),
        (1e300, "1e300"),
        (2147483647, "2147483647"),
        (24.0, "24"),
        (0.5, "0.5"),
        (1.5e20, "1.5e20"),
        (float("inf"), "inf"),
    ],
)
def test_a_bound_is_written_as_the_docs_write_it(x, text):
    from relmc.errors import bound_text

    assert bound_text(x) == text
