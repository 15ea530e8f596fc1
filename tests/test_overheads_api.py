"""Uncertain overheads from the scenario down: fields, lowering, draws, exposure, helpers.

The process itself (per-draw factors and per-event jitter in the kernel and the oracle, with
closed-form answers) is tested in tests/test_overheads.py and tests/test_overheads_kernel.py.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import relmc
from relmc import overheads
from relmc.rates import cluster_rates, exposed_fraction, maintenance_rate, rate_draws
from relmc.scenario import JITTER_FIELDS, OVERHEAD_DRAWS, SPREAD_FIELDS, Z95, replace_path
from relmc.sim.inputs import EVENT_OVERHEADS, OVERHEADS
from relmc.sim.simulate import draw_overhead_factors, kernel_inputs


def _policy(sc, **kw):
    return dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, **kw))


@pytest.fixture(scope="module")
def base():
    return relmc.Scenario.default()


def test_field_order_matches_the_kernel_columns():
    assert [f.removesuffix("_spread") for f in SPREAD_FIELDS] == list(OVERHEADS)
    assert [f.removesuffix("_jitter") for f in JITTER_FIELDS] == list(EVENT_OVERHEADS)


@pytest.mark.parametrize("name", [*SPREAD_FIELDS, *JITTER_FIELDS])
@pytest.mark.parametrize("bad", [0.99, 0.0, -1.0, 101.0, math.nan, math.inf, True, "2"])
def test_bad_spreads_are_refused_naming_the_field_and_range(name, bad):
    with pytest.raises(ValueError, match=rf"policy\.{name}.*\[1, 100\]"):
        relmc.Policy(**{name: bad})


def test_spread_of_range_gives_the_stated_quantiles():
    # a lognormal of median m and sigma = ln(k) / z_0.95 has exactly these 5% / 95% quantiles
    for lo, hi in [(5 / 60, 20 / 60), (0.01, 0.02), (1.0, 1.0), (0.5, 50.0)]:
        m, k = relmc.spread_of_range(lo, hi)
        dist = stats.lognorm(s=math.log(k) / Z95, scale=m) if k > 1 else None
        if dist is None:
            assert m == lo == hi and k == 1.0
            continue
        assert dist.ppf(0.05) == pytest.approx(lo, rel=1e-12)
        assert dist.ppf(0.95) == pytest.approx(hi, rel=1e-12)
    with pytest.raises(ValueError, match="high"):
        relmc.spread_of_range(2.0, 1.0)
    with pytest.raises(ValueError, match="low"):
        relmc.spread_of_range(0.0, 1.0)
    # a range wider than any *_spread field takes (k > 100) is refused where it is made,
    # not only when the spread reaches a Policy; k = 100 itself passes (the fields' bound)
    with pytest.raises(ValueError, match=r"high must be at most low x 10000 = 0.2 \(a spread"):
        relmc.spread_of_range(2e-5, 1.0)
    m, k = relmc.spread_of_range(1e-4, 1.0)
    assert k == pytest.approx(100.0) and relmc.Policy(restart_hours=m, restart_spread=k)


def test_mean_factor_is_the_lognormal_mean(base):
    pol = dataclasses.replace(base.policy, restart_spread=3.0, restart_jitter=2.0)
    s, j = math.log(3.0) / Z95, math.log(2.0) / Z95
    assert pol.mean_factor("restart") == pytest.approx(math.exp((s * s + j * j) / 2), rel=1e-14)
    assert pol.mean_factor("snapshot") == 1.0  # no spread, and snapshots have no jitter
    # by simulation of the product of the two lognormals: the same mean (4 SE at 1e6 draws)
    rng = np.random.default_rng(0)
    x = np.exp(s * rng.standard_normal(10**6) + j * rng.standard_normal(10**6))
    assert abs(x.mean() - pol.mean_factor("restart")) < 4 * x.std() / 1e3


def test_lowering_sigma_jitter_and_repeated_point_rates(base):
    off, _ = kernel_inputs(base, None, 10)
    assert not off.uncertain_overheads and off.cat_rate.shape[0] == 1
    sc = _policy(
        base, restart_spread=2.0, snapshot_spread=1.5, detection_jitter=4.0, preemption_spread=3.0
    )
    x, labels = kernel_inputs(sc, None, 10)
    assert x.uncertain_overheads
    np.testing.assert_allclose(
        x.overhead_sigma, np.log([1.5, 1, 2.0, 1, 1, 1, 1, 3.0, 1]) / Z95, rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(x.overhead_jitter, np.log([1, 1, 4.0, 1]) / Z95, atol=1e-15)
    # point rates repeated so that every draw has its own overheads; rates unchanged
    assert x.cat_rate.shape == (OVERHEAD_DRAWS, off.cat_rate.shape[1])
    np.testing.assert_array_equal(x.cat_rate, np.repeat(off.cat_rate, OVERHEAD_DRAWS, axis=0))
    assert "repeated over 4,096 draws" in labels["rates_source"]
    np.testing.assert_array_equal(x.draw_of_trial, np.arange(10))
    # a jitter alone needs no per-draw table
    y, _ = kernel_inputs(_policy(base, swap_jitter=2.0), None, 10)
    assert y.cat_rate.shape[0] == 1 and y.uncertain_overheads


def test_posterior_draws_are_not_repeated(base):
    fit = relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=50, seed=0)
    from relmc.projection import default_scenario

    sc = _policy(default_scenario(fit), restart_spread=2.0)
    x, _ = kernel_inputs(sc, fit, 10)
    assert x.cat_rate.shape[0] == rate_draws(sc, fit).n_draws == 50 * 4


def test_the_first_six_columns_are_drawn_as_before_the_later_ones_existed(base):
    # diagnosis, preemption and sdc_latency were added later; their normals are drawn after
    # the first six columns of every row, so a seed's snapshot .. maintenance factors stay
    from relmc._seed import child_seed
    from relmc.sim.simulate import OVERHEAD_KEY

    sc = _policy(base, restart_spread=2.0, maintenance_spread=3.0, sdc_latency_spread=2.0)
    x, _ = kernel_inputs(sc, None, 10)
    f = draw_overhead_factors(x, np.random.SeedSequence(7)).overhead_factor
    rng = np.random.Generator(np.random.PCG64(child_seed(np.random.SeedSequence(7), OVERHEAD_KEY)))
    first = rng.standard_normal((OVERHEAD_DRAWS, 6))
    np.testing.assert_array_equal(f[:, :6], np.exp(x.overhead_sigma[:6] * first))
    later = rng.standard_normal((OVERHEAD_DRAWS, 3))
    np.testing.assert_array_equal(f[:, 6:], np.exp(x.overhead_sigma[6:] * later))
    assert np.all(f[:, 8] != 1.0) and np.all(f[:, [6, 7]] == 1.0)


def test_kernel_inputs_refuse_a_factor_table_of_the_wrong_width(base):
    x, _ = kernel_inputs(base, None, 10)
    with pytest.raises(ValueError, match=r"overhead_factor must have shape \(n_draws, 9\)"):
        dataclasses.replace(x, overhead_factor=np.ones((3, 6)))  # 18 values: not 2 rows of 9


def test_overhead_factors_depend_only_on_the_seed_and_the_draws(base):
    sc = _policy(base, restart_spread=2.0, maintenance_spread=3.0)
    x, _ = kernel_inputs(sc, None, 10)
    a = draw_overhead_factors(x, np.random.SeedSequence(7))
    b = draw_overhead_factors(x, np.random.SeedSequence(7))
    c = draw_overhead_factors(x, np.random.SeedSequence(8))
    np.testing.assert_array_equal(a.overhead_factor, b.overhead_factor)
    assert not np.array_equal(a.overhead_factor, c.overhead_factor)
    f = a.overhead_factor
    assert f.shape == (OVERHEAD_DRAWS, len(OVERHEADS))
    # the columns without a spread are exactly 1; the others lognormal with the stated range
    np.testing.assert_array_equal(f[:, [0, 1, 3, 4, 6, 7, 8]], 1.0)
    for col, k in ((2, 2.0), (5, 3.0)):
        q5, q95 = np.quantile(f[:, col], [0.05, 0.95])
        # quantiles of 4,096 draws: the 5% quantile's SE in log space is about
        # sqrt(0.05 * 0.95 / 4096) / pdf(z_0.05) * sigma ~ 0.033 sigma; 0.15 sigma is > 4 SE
        sig = math.log(k) / Z95
        assert abs(math.log(q5) - (-math.log(k))) < 0.15 * sig
        assert abs(math.log(q95) - math.log(k)) < 0.15 * sig
    # rows that repeat one source draw share its multipliers (a credible simulation's groups)
    g = draw_overhead_factors(x, np.random.SeedSequence(7), np.repeat(np.arange(1024), 4))
    np.testing.assert_array_equal(g.overhead_factor, np.repeat(f[:1024], 4, axis=0))
    with pytest.raises(ValueError, match="rows"):
        draw_overhead_factors(x, np.random.SeedSequence(7), np.arange(3))
    # already drawn, or nothing to draw: returned as it is
    assert draw_overhead_factors(a, np.random.SeedSequence(9)) is a
    off, _ = kernel_inputs(base, None, 10)
    assert draw_overhead_factors(off, np.random.SeedSequence(9)) is off


def test_a_subset_of_the_draws_gets_the_multipliers_all_of_them_give_it(base):
    # the credible simulation's nested draws: the first K of n source draws, m trials each;
    # their factor rows are the full posterior's rows, in every column (the later three are
    # drawn after the first six of every source row, so they depend on how many rows are
    # drawn: n_source, not K)
    from relmc.rates import nested_draws

    sc = _policy(base, restart_spread=2.0, sdc_latency_spread=3.0)
    root = np.random.SeedSequence(11)
    draws = rate_draws(sc, None)
    n = draws.n_draws
    full_x, full_lab = kernel_inputs(sc, draws, 10)
    full = draw_overhead_factors(full_x, root, full_lab["draw_rows"], full_lab["source_draws"])
    nested = nested_draws(draws, 40, 4)  # the first 10 draws, 4 trials each
    assert nested.source_draws == n and nested.n_source == n and nested.n_draws == 40
    x, lab = kernel_inputs(sc, nested, 10)
    assert lab["source_draws"] == n
    got = draw_overhead_factors(x, root, lab["draw_rows"], lab["source_draws"])
    np.testing.assert_array_equal(got.overhead_factor, full.overhead_factor[nested.rows])
    # nested again: still the source's rows and count
    again = nested_draws(nested, 8, 2)
    assert again.n_source == n
    np.testing.assert_array_equal(again.rows, nested.rows[np.repeat(np.arange(4), 2)])
    # negative control: drawn for the 10 rows used alone, the first six columns agree and the
    # SDC latency's column does not
    short = draw_overhead_factors(x, root, lab["draw_rows"]).overhead_factor
    np.testing.assert_array_equal(short[:, :6], got.overhead_factor[:, :6])
    assert not np.any(short[:, 8] == got.overhead_factor[:, 8])
    # a hand-made subset: one past its largest row unless its source's count is given
    from relmc.rates import RateDraws

    hand = RateDraws(draws.values[[0, 5]], "hand", draw_index=np.array([0, 5]))
    assert hand.n_draws == 2 and hand.n_source == 6
    assert RateDraws(draws.values[[0, 5]], "hand", draw_index=np.array([0, 5]),
                     source_draws=n).n_source == n  # fmt: skip
    for bad in (5, 6.0, True):
        with pytest.raises(ValueError, match="source_draws must be an integer >= 6"):
            RateDraws(draws.values[[0, 5]], "hand", draw_index=np.array([0, 5]), source_draws=bad)
    with pytest.raises(ValueError, match="n_source must be at least 10"):
        draw_overhead_factors(x, root, lab["draw_rows"], 9)
    with pytest.raises(ValueError, match="n_source must be an integer"):
        draw_overhead_factors(x, root, lab["draw_rows"], 10.0)


def test_scenario_round_trip_and_sweep_path(base):
    sc = _policy(base, restart_spread=2.5, swap_jitter=1.5)
    again = relmc.Scenario.from_dict(sc.to_dict())
    assert again.policy.restart_spread == 2.5 and again.policy.swap_jitter == 1.5
    moved = replace_path(base, "policy.detection_spread", 3.0)
    assert moved.policy.detection_spread == 3.0
    with pytest.raises(ValueError, match="policy.detection_spread"):
        replace_path(base, "policy.detection_spread", 0.5)


# --------------------------------------------------------------------------------------------
# exposure clock: fitted rates per wall-clock hour, with uncertain overheads and maintenance


@pytest.fixture(scope="module")
def llama_fit():
    return relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=100, seed=0)


def _observed(fit, **policy):
    from relmc.projection import default_scenario

    sc = default_scenario(fit)
    sc = dataclasses.replace(
        sc,
        policy=dataclasses.replace(sc.policy, swap_hours=0.5, **policy),
        failures=dataclasses.replace(sc.failures, maintenance_hours=0.25),
    )
    return sc


def test_exposed_fraction_takes_the_overheads_means(llama_fit):
    from relmc.rates import fitted_rates

    sc = _observed(llama_fit, swap_spread=2.0, swap_jitter=3.0, detection_spread=2.0)
    draws = rate_draws(sc, llama_fit)
    lam = fitted_rates(sc, draws)
    swap = np.array([c.recovery == "swap" for c in sc.failures.categories])
    detect = np.array([c.detection_hours for c in sc.failures.categories])
    ms = math.exp((math.log(2) ** 2 + math.log(3) ** 2) / 2 / Z95**2)
    md = math.exp(math.log(2) ** 2 / 2 / Z95**2)
    planned = sc.failures.maintenance_rate * (0.25 + sc.policy.snapshot_hours)
    expected = 1 - lam @ (md * detect + 0.5 * ms * swap) - planned
    np.testing.assert_allclose(exposed_fraction(sc, draws), expected, rtol=1e-12)
    np.testing.assert_allclose(cluster_rates(sc, draws), lam / expected[:, None], rtol=1e-12)


def test_maintenance_rate_is_converted_to_the_exposed_clock(llama_fit):
    sc = _observed(llama_fit)
    draws = rate_draws(sc, llama_fit)
    m = sc.failures.maintenance_rate
    assert m == pytest.approx(47 / 1296)  # Llama 3: 47 planned interruptions in 54 days
    f = exposed_fraction(sc, draws)
    assert maintenance_rate(sc, draws) == pytest.approx(m / f.mean(), rel=1e-12)
    # point rates are per exposed hour already: unchanged
    assert maintenance_rate(sc, rate_draws(sc, None)) == m


def test_simulate_refuses_trials_that_cannot_fit_in_memory(monkeypatch, base):
    # the API checks memory as the CLI does, before any work: with 1 MiB "available", 10,000
    # trials (a few hundred bytes each, times 3 copies) are refused naming n_trials
    import relmc._io

    monkeypatch.setattr(relmc._io, "available_memory", lambda: 2**20)
    with pytest.raises(ValueError, match=r"n_trials=10,000 needs about .* use at most"):
        relmc.simulate(base, n_trials=10_000, seed=0)


# --------------------------------------------------------------------------------------------
# overheads from first principles (relmc.overheads): arithmetic and refusals


def test_snapshot_hours_from_the_model():
    # Llama 3 405B at 14 bytes per parameter over Tectonic's 2 TB/s: 405e9 * 14 / 2e12 s
    a = overheads.snapshot_hours(405e9)
    assert a.value * 3600 == pytest.approx(405e9 * 14 / 2e12, rel=1e-12)
    assert a.name == "snapshot_hours" and a.inputs["bytes_per_param"] == 14.0
    assert float(a) == a.value and "assumed snapshot_hours" in str(a)
    b = overheads.snapshot_hours(1e9, bytes_per_param=2.0, storage_bytes_per_s=1e9)
    assert b.value == pytest.approx(2.0 / 3600, rel=1e-12)  # 2 GB at 1 GB/s: 2 s


def test_snapshot_hours_from_the_state_per_gpu():
    a = overheads.snapshot_hours_from_state(4e9, 16384)  # 4 GB per GPU, 2 TB/s: 32.8 s
    assert a.value * 3600 == pytest.approx(4e9 * 16384 / 2e12, rel=1e-12)
    assert a.inputs["n_gpus"] == 16384


def test_restart_hours_grows_as_a_power_of_the_size():
    base = overheads.restart_hours(4096, exponent=0.3)
    assert base.value == pytest.approx(10 / 60, rel=1e-12)  # at the reference size
    twice = overheads.restart_hours(8192, exponent=0.3)
    assert twice.value == pytest.approx(10 / 60 * 2**0.3, rel=1e-12)
    flat = overheads.restart_hours(100_000, exponent=0.0)
    assert flat.value == pytest.approx(10 / 60, rel=1e-12)
    load = overheads.restart_hours(4096, exponent=0.0, load_bytes=7.2e15, storage_bytes_per_s=2e12)
    assert load.value == pytest.approx(10 / 60 + 1.0, rel=1e-12)  # 3,600 s of reading
    other = overheads.restart_hours(
        1000, exponent=1.0, reference_hours=0.5, reference_gpus=500, load_bytes=0.0
    )
    assert other.value == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: overheads.snapshot_hours(0),
        lambda: overheads.snapshot_hours(-1e9),
        lambda: overheads.snapshot_hours(math.nan),
        lambda: overheads.snapshot_hours(True),
        lambda: overheads.snapshot_hours(1e9, bytes_per_param=0),
        lambda: overheads.snapshot_hours(1e9, storage_bytes_per_s=math.inf),
        lambda: overheads.snapshot_hours_from_state(0, 8),
        lambda: overheads.snapshot_hours_from_state(1e9, 0),
        lambda: overheads.restart_hours(0, exponent=0.1),
        lambda: overheads.restart_hours(1024, exponent=-0.1),
        lambda: overheads.restart_hours(1024, exponent=0.1, reference_hours=0),
        lambda: overheads.restart_hours(1024, exponent=0.1, reference_gpus=0),
        lambda: overheads.restart_hours(1024, exponent=0.1, load_bytes=-1.0),
        lambda: overheads.restart_hours(1024, exponent=0.1, storage_bytes_per_s=0),
    ],
)
def test_overhead_helpers_refuse_bad_inputs(call):
    with pytest.raises(ValueError, match="must be a finite number"):
        call()


def test_overhead_helpers_details():
    # the published bandwidth exactly, keyword-only options, a fractional load, and the
    # refusals say which bound applies (> 0 or >= 0)
    assert overheads.TECTONIC_SUSTAINED_BYTES_PER_S == 2e12
    assert overheads.snapshot_hours(1e9).inputs["storage_bytes_per_s"] == 2e12
    with pytest.raises(TypeError):
        overheads.snapshot_hours(1e9, 2.0)  # bytes_per_param is keyword-only
    with pytest.raises(TypeError):
        overheads.restart_hours(4096, 0.2)  # so is the exponent
    half = overheads.restart_hours(4096, exponent=0.0, load_bytes=1.5e12, storage_bytes_per_s=1e12)
    assert half.value == pytest.approx(10 / 60 + 1.5 / 3600, rel=1e-12)
    with pytest.raises(ValueError, match=r"n_params must be a finite number > 0"):
        overheads.snapshot_hours(0)
    with pytest.raises(ValueError, match=r"load_bytes must be a finite number >= 0"):
        overheads.restart_hours(1024, exponent=0.1, load_bytes=-1.0)
    with pytest.raises(TypeError):
        overheads.snapshot_hours_from_state(4e9, 16384, 2e12)  # bandwidth is keyword-only
    # no load by default: exactly the start-up term; sizes need not be multiples
    assert overheads.restart_hours(4096, exponent=0.3).value == 10 / 60
    odd = overheads.restart_hours(1500, exponent=1.0, reference_hours=1.0, reference_gpus=1000)
    assert odd.value == pytest.approx(1.5, rel=1e-12)
    # an Assumption is frozen, and its report gives hours, seconds and the inputs
    a = overheads.snapshot_hours_from_state(4e9, 16384)
    with pytest.raises(AttributeError):
        a.value = 1.0
    text = str(a)
    assert "= 0.009102 h (32.8 s)" in text
    # the seconds are the hours times 3600 exactly: 10.252 s shows as 10.3 (10.249, i.e.
    # hours times 3599, would show 10.2)
    b = overheads.snapshot_hours(10.252e9, bytes_per_param=1.0, storage_bytes_per_s=1e9)
    assert "h (10.3 s)" in str(b)
    assert "bytes_per_gpu=4e+09, n_gpus=16384, storage_bytes_per_s=2e+12:" in text


@pytest.fixture
def drawn(monkeypatch):
    """Every overhead-factor draw made while the test runs: (entropy, spawn key, rows, factors)."""
    import relmc.sim.simulate as simmod

    calls = []
    real = simmod.draw_overhead_factors

    def spy(inputs, root, rows=None, n_source=None):
        out = real(inputs, root, rows, n_source)
        if out is not inputs:
            rows = np.arange(out.overhead_factor.shape[0]) if rows is None else np.asarray(rows)
            calls.append((root.entropy, root.spawn_key, rows, out.overhead_factor))
        return out

    monkeypatch.setattr(simmod, "draw_overhead_factors", spy)
    return calls


# the SDC latency's spread is drawn (its column of multipliers) though no category has kind
# "sdc" to use it: the test reads the multipliers, not their effect
@pytest.mark.filterwarnings("ignore::relmc.errors.UnreadFieldWarning")
def test_project_shares_each_draws_multipliers_across_sizes(base, drawn):
    # an uncertain restart time is a property of the software, not of the cluster size: every
    # size (and the credible simulation) uses the same multiplier for posterior draw d; also
    # an SDC latency's, a column drawn after the first six of every row (the credible
    # simulation runs the first 32 / 4 = 8 of the 4,096 draws: drawn for those 8 rows alone,
    # its later columns would differ from the predictive simulation's)
    sc = _policy(base, restart_spread=3.0, sdc_latency_spread=2.0)
    ds = relmc.project(
        scenario=sc, n_gpus=[2048, 8192], n_trials=64, credible_trials=32, seed=5, n_threads=1
    )
    assert len(drawn) == 4  # two sizes, each with its credible simulation
    assert {(e, k) for e, k, _, _ in drawn} == {(5, ())}  # the projection's own root
    by_draw: dict[int, np.ndarray] = {}
    for _, _, rows, f in drawn:
        for r, row in zip(rows, f, strict=True):
            np.testing.assert_array_equal(by_draw.setdefault(int(r), row), row)
    assert len(by_draw) >= 64  # every trial's draw was checked, not one
    assert "overhead multipliers" in ds.attrs["seed_rule"]


def test_sweep_cells_share_each_draws_multipliers(tmp_path, drawn):
    # a draw's unknown restart time is the same unknown in every cell of a sweep, as its rates
    # are: every cell's factor rows come from the spec's root seed, not the cell's own
    from relmc import sweep
    from relmc.sweep.spec import SweepSpec

    axes = {"cluster.n_gpus": [2048, 8192], "policy.checkpoint_interval": [0.5, 1.0]}
    base = {"job": {"compute_hours": 20.0}, "policy": {"restart_spread": 3.0}}
    spec = {"seed": 4, "n_trials": 16, "posterior": "point", "axes": axes, "base": base}
    store = tmp_path / "cube.zarr"
    assert sweep.run_sweep(spec, store, progress=False) == [0, 1, 2, 3]
    assert len(drawn) == 5  # the store's template (a cell's shapes), then the four cells
    assert {(e, k) for e, k, _, _ in drawn} == {(4, ())}  # the spec's root, not (4, (cell,))
    for _, _, _, f in drawn[1:]:
        np.testing.assert_array_equal(f, drawn[0][3])
    assert np.unique(drawn[0][3][:, 2]).size == drawn[0][3].shape[0]  # a row per draw
    # a cell is simulate with the cell's seed and the root as overhead_seed, bit for bit;
    # the control: with the cell's seed for both, its restart losses differ
    sp = SweepSpec.from_dict(spec)
    cube = sweep.open_sweep(store, load=True)
    assert "overhead multipliers" in cube.attrs["overhead_seed"]
    flat = 3
    cell = cube.isel(dict(zip(sp.dims, sp.cell_index(flat), strict=True)))

    def run(**kw):
        return relmc.simulate(
            sp.scenario(flat), n_trials=16, seed=sweep.cell_seed(4, flat), n_threads=1, **kw
        )

    got = run(overhead_seed=4)
    assert cell.ettr_mean.item() == got.ettr.mean().item()
    np.testing.assert_array_equal(cell.lost_hours_mean, got.lost_hours.mean("trial"))
    assert cell.ettr_mean.item() != run().ettr.mean().item()


def test_a_store_made_before_cells_shared_multipliers_is_refused_with_spreads(tmp_path):
    # a store whose cells each drew their own multipliers (no "overhead_seed" attr) must not
    # be resumed by cells that share them, where a spread is set; without one it resumes
    zarr = pytest.importorskip("zarr")
    from relmc import sweep
    from relmc.sweep import store as store_mod

    def old_store(policy, axes, cells=(0,)):
        spec = {"seed": 4, "n_trials": 8, "posterior": "point", "axes": axes,
                "base": {"job": {"compute_hours": 20.0}, "policy": policy}}  # fmt: skip
        path = tmp_path / f"s{len(list(tmp_path.iterdir()))}.zarr"
        assert sweep.run_sweep(spec, path, progress=False, cells=list(cells)) == list(cells)
        group = zarr.open_group(str(path), mode="r+")
        del group.attrs["overhead_seed"]
        store_mod._consolidate(path)
        return spec, path

    sizes = {"cluster.n_gpus": [2048, 4096]}
    for policy, axes in (
        ({"restart_spread": 3.0}, sizes),
        ({}, {"policy.restart_spread": [1.0, 2.0]}),
        ({}, {**sizes, "policy.detection_spread": [2.0]}),  # on the second axis
    ):
        spec, path = old_store(policy, axes)
        with pytest.raises(ValueError, match="shared each posterior draw's overhead multipliers"):
            sweep.run_sweep(spec, path, progress=False)
    # nothing to mix: no spread, or an axis that sets the base's spread to 1 in every cell
    for policy, axes in (
        ({}, sizes),
        ({"restart_spread": 3.0}, {**sizes, "policy.restart_spread": [1.0]}),
    ):
        spec, path = old_store(policy, axes)
        assert sweep.run_sweep(spec, path, progress=False) == [1]
    # a complete old store has nothing to compute, so nothing to mix: it reruns as a no-op
    # and its numbers are read as they are; once a cell is damaged (to be recomputed under
    # the new rule), it is refused again
    spec, path = old_store({"restart_spread": 3.0}, sizes, cells=(0, 1))
    before = sweep.open_sweep(path).ettr_mean.values.copy()
    reads = []  # the store is read back against its checksums once for the rule, not twice
    real_status = store_mod.status

    def counted(*args, **kw):
        reads.append(kw.get("verify", False))
        return real_status(*args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_mod, "status", counted)
        assert sweep.run_sweep(spec, path, progress=False) == []
    assert reads.count(True) == 1
    np.testing.assert_array_equal(sweep.open_sweep(path).ettr_mean.values, before)
    next((path / "ettr_mean").glob("c*1")).write_bytes(b"\0" * 7)  # cell 1's chunk, garbled
    with pytest.raises(ValueError, match="the 1 of its 2 cells left to compute"):
        sweep.run_sweep(spec, path, progress=False)


def test_simulate_overhead_seed_is_separate_from_the_trials_seed(base, drawn):
    sc = _policy(base, restart_spread=3.0)

    def run(seed, oseed):
        return relmc.simulate(sc, n_trials=64, seed=seed, n_threads=1, overhead_seed=oseed)

    a, b, c = run(1, 9), run(2, 9), run(1, None)
    np.testing.assert_array_equal(drawn[0][3], drawn[1][3])  # same multipliers ...
    assert not np.array_equal(a["wall_hours"].values, b["wall_hours"].values)  # ... new trials
    assert not np.array_equal(drawn[0][3], drawn[2][3])  # control: the default follows seed
    assert (a.attrs["overhead_seed_entropy"], a.attrs["overhead_seed_spawn_key"]) == ("9", "[]")
    assert "overhead_seed_entropy" not in c.attrs
    with pytest.raises(ValueError, match="overhead_seed"):
        relmc.simulate(sc, n_trials=8, overhead_seed=-1)
