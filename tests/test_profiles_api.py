"""Rate profiles from the scenario down: fields, validation, lowering (the process itself is
tested in tests/test_profiles.py and tests/test_profiles_kernel.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import relmc
from relmc.scenario import replace_path
from relmc.sim.simulate import kernel_inputs

DAY = [1.0] * 8 + [3.0] * 8 + [2.0] * 8  # mean 2


def _with_profile(sc, profile, i=0, **job):
    cats = list(sc.failures.categories)
    cats[i] = dataclasses.replace(cats[i], rate_profile=profile)
    fm = dataclasses.replace(sc.failures, categories=tuple(cats))
    return dataclasses.replace(sc, failures=fm, job=dataclasses.replace(sc.job, **job))


@pytest.fixture(scope="module")
def base():
    return relmc.Scenario.default()


@pytest.mark.parametrize(
    "bad",
    [[1.0] * 23, [1.0] * 25, [0.0] * 24, [1.0] * 23 + [-1.0], [1.0] * 23 + [math.nan],
     [1.0] * 23 + [math.inf], "1" * 24, [1.0] * 23 + [True], 3.0],
)  # fmt: skip
def test_bad_profiles_are_refused_naming_the_field(bad):
    with pytest.raises(ValueError, match=r"failures\.categories\['a'\]\.rate_profile"):
        relmc.Category("a", rate=1e-6, rate_profile=bad)


def test_a_profile_and_a_cosine_do_not_combine():
    with pytest.raises(ValueError, match="a rate profile or a diurnal cosine, not both"):
        relmc.Category("a", rate=1e-6, rate_profile=DAY, diurnal_amplitude=0.2)


@pytest.mark.parametrize("bad", [-1, 7, 1.5, True, "mon"])
def test_bad_start_day_is_refused(bad):
    with pytest.raises(ValueError, match=r"job\.start_day"):
        relmc.Job(start_day=bad)


def test_weekly_profile_repeats_a_day_and_has_mean_one():
    c = relmc.Category("a", rate=1e-6, rate_profile=DAY)
    q = c.weekly_profile()
    assert q.shape == (168,) and q.mean() == pytest.approx(1.0, rel=1e-15)
    np.testing.assert_allclose(q[:24], np.array(DAY) / 2.0)
    np.testing.assert_array_equal(q[24:48], q[:24])
    week = list(range(1, 169))
    np.testing.assert_allclose(relmc.Category("b", rate_profile=week).weekly_profile(),
                               np.array(week) / np.mean(week))  # fmt: skip
    assert relmc.Category("c").weekly_profile() is None


def test_lowering(base):
    off, _ = kernel_inputs(base, None, 4)
    assert off.cat_profile.shape == (0, 168) and not off.modulated
    sc = _with_profile(base, DAY, i=2, start_day=3, start_hour=6.5)
    x, _ = kernel_inputs(sc, None, 4)
    assert x.cat_profile.shape == (len(base.failures.categories), 168)
    np.testing.assert_allclose(x.cat_profile[2, :24], np.array(DAY) / 2.0)
    np.testing.assert_array_equal(np.delete(x.cat_profile, 2, axis=0), 1.0)
    assert x.week_hour0 == 3 * 24 + 6.5 and x.modulated


def test_round_trip_and_sweep_path(base):
    sc = _with_profile(base, DAY, start_day=5)
    again = relmc.Scenario.from_dict(sc.to_dict())
    assert again.failures.categories[0].rate_profile == tuple(DAY)
    assert again.job.start_day == 5
    name = base.failures.categories[1].name
    moved = replace_path(base, f"failures.categories.{name}.rate_profile", DAY)
    assert moved.failures.category(name).rate_profile == tuple(DAY)


def test_posterior_amplitude_on_a_profiled_category_is_refused():
    import arviz as az
    import xarray as xr

    coords = {"chain": [0], "draw": [0, 1], "category": ["a", "b"]}
    post = xr.Dataset(
        {
            "rate": (("chain", "draw", "category"), np.full((1, 2, 2), 1e-4)),
            "diurnal_amplitude": (("chain", "draw", "category"), np.full((1, 2, 2), 0.3)),
            "diurnal_peak_hour": (("chain", "draw", "category"), np.full((1, 2, 2), 6.0)),
        },
        coords=coords,
    )
    cats = (relmc.Category("a", rate=1e-4, rate_profile=DAY), relmc.Category("b", rate=1e-4))
    sc = relmc.Scenario(cluster=relmc.Cluster(n_gpus=64), failures=relmc.FailureModel(cats))
    with pytest.raises(ValueError, match=r"\['a'\]\.rate_profile: the posterior gives"):
        kernel_inputs(sc, az.InferenceData(posterior=post), 4)
    # without the posterior's physics (its rates alone) it is accepted
    from relmc.rates import rate_array

    x, _ = kernel_inputs(sc, rate_array(az.InferenceData(posterior=post)), 4)
    assert x.cat_profile.shape == (2, 168)


def test_zero_and_near_zero_hours_cost_no_proposals_at_the_weeks_rate():
    """A weekly profile of zeros (or 1e-9) but its last hour, at a high rate, ends at once.

    Rate 100 per GPU-hour on 1,024 GPUs: the week's bound is 100 x 1,024 x 168 = 1.7e7 per
    hour, so thinning against it alone spent ~1.7e9 rejected proposals on a 100-hour job that
    never reaches hour 167 (70 s a trial, and the event budget counts no proposal). Zero
    hours are skipped and low ones thinned against their own bound (``_fail_gap_profile``).
    Known answers: with zeros, no failure can happen, every job finishes in its wall time
    (100 h of compute, 200 snapshots of one minute, ``103.33`` h); with 1e-9 the low hours'
    rate is 1024 x 100 x 1.7e-7 = 0.017 per hour, a failure in a job's first 103 h with
    probability 1 - exp(-1.78) = 0.83: at least 0.6 of 64 trials (4.9 SE below).
    A test that did not skip would not end; none measures time.
    """
    import warnings

    from relmc.errors import NotFinishedWarning

    def job(profile):
        cat = relmc.Category(name="x", rate=100.0, rate_profile=profile)
        return relmc.Scenario(
            cluster=relmc.Cluster(n_gpus=1024),
            failures=relmc.FailureModel(categories=(cat,)),
            job=relmc.Job(compute_hours=100.0),
            policy=relmc.Policy(max_events=1),
        )

    zero = relmc.simulate(job([0.0] * 167 + [1.0]), n_trials=64, seed=1)
    assert zero["finished"].all() and int(zero["interruptions"].sum()) == 0
    assert np.allclose(zero["wall_hours"], 100.0 + 200 / 60.0, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotFinishedWarning)  # the budget of one event
        tiny = relmc.simulate(job([1e-9] * 167 + [1.0]), n_trials=64, seed=1)
    hit = float((tiny["interruptions"].sum("category") > 0).mean())
    assert 0.6 < hit <= 1.0, hit
