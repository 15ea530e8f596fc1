"""Figures render with Agg from a small real projection, and show what they claim to show."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

import relmc
from relmc import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SIZES = [2048, 16384, 131072]


@pytest.fixture(scope="module", autouse=True)
def _agg():
    # plots.py never touches pyplot; this guards against a test machine with a display
    matplotlib.use("Agg")


@pytest.fixture(scope="module")
def posterior():
    return relmc.fit_conjugate(relmc.load_dataset("llama3-405b"), n_draws=500, seed=3)


@pytest.fixture(scope="module")
def projection(posterior):
    return relmc.project(posterior, n_gpus=SIZES, n_trials=64, seed=5)


@pytest.fixture(scope="module")
def fast_projection(posterior):
    sc = relmc.scenario.replace_path(
        relmc.Scenario(failures=relmc.FailureModel.from_posterior(posterior)),
        "policy.restart_hours",
        2 / 60,
    )
    return relmc.project(posterior, n_gpus=SIZES, scenario=sc, n_trials=64, seed=5)


def _check_png(path, min_w=600, min_h=400):
    assert path.exists()
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_MAGIC
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    assert min_w <= w <= 4000 and min_h <= h <= 4000, (w, h)
    assert path.stat().st_size > 10_000  # a blank canvas of this size compresses far smaller


def _bands(ax):
    return [
        c
        for c in ax.collections
        if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")
    ]


def test_plot_rates(posterior, tmp_path):
    fig = plots.plot_rates(posterior, tmp_path / "rates.png")
    _check_png(tmp_path / "rates.png")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    assert "interruptions per day" in ax.get_xlabel() and "16,384" in ax.get_xlabel()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    n_cat = posterior.posterior.sizes["category"]
    assert len(labels) == n_cat
    assert "Faulty GPU (per GPU)" in labels and "Network Switch/Cable (per rack)" in labels
    # sorted by median: Faulty GPU (148 of 419 interruptions) is the top row
    assert labels[-1] == "Faulty GPU (per GPU)"
    # one median dot per category, at rate x 16,384 GPUs x 24 h for a per-GPU category
    medians = np.concatenate([line.get_xdata() for line in ax.get_lines()])
    assert medians.size == n_cat
    rate = posterior.posterior["rate"].sel(category="Faulty GPU")
    expected = float(rate.median()) * 16384 * 24
    assert np.any(np.isclose(medians, expected, rtol=1e-9))


def test_plot_rates_colours_a_group_alike_whatever_the_draws():
    """Colours follow the data's order of groups, not the medians' (which draws can swap)."""
    from matplotlib.colors import to_hex

    def rates(a, b):  # two categories, groups A and B, medians a and b per GPU-hour
        values = np.array([[a, b]] * 3)[None]  # (chain, draw, category)
        return xr.DataArray(
            values, dims=("chain", "draw", "category"),
            coords={"category": ["x", "y"], "unit": ("category", ["gpu", "gpu"]),
                    "group": ("category", ["A", "B"])},
        )  # fmt: skip

    def colour_of(fig, label):
        (ax,) = fig.axes
        (line,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
        return to_hex(line.get_color())

    first, second = plots.plot_rates(rates(1e-6, 2e-6)), plots.plot_rates(rates(2e-6, 1e-6))
    assert colour_of(first, "A") == colour_of(second, "A")
    assert colour_of(first, "B") == colour_of(second, "B") != colour_of(first, "A")
    # the legend still lists the groups top to bottom (the larger median first)
    assert [t.get_text() for t in first.axes[0].get_legend().get_texts()] == ["B", "A"]
    assert [t.get_text() for t in second.axes[0].get_legend().get_texts()] == ["A", "B"]


def test_plot_rates_rejects_bad_input():
    with pytest.raises(ValueError, match="posterior"):
        plots.plot_rates(xr.Dataset())


def test_plot_mttf(projection, tmp_path):
    fig = plots.plot_mttf(projection, tmp_path / "mttf.png")
    _check_png(tmp_path / "mttf.png")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "GPUs" in ax.get_xlabel() and "hours" in ax.get_ylabel()
    assert len(_bands(ax)) == 2  # 50% and 90% bands
    lines = {line.get_label(): line for line in ax.get_lines()}
    median = lines["relmc projection (median, 50%/90% bands)"]
    np.testing.assert_allclose(
        median.get_ydata(), projection["mttf_hours_quantile"].sel(quantile=0.5)
    )
    # published points: Llama 3 observed 1296 h / 419 at 16,384; RSC projections 1.8 h, 0.23 h
    llama = lines["Llama 3 405B, observed"]
    assert llama.get_xdata()[0] == 16384 and np.isclose(llama.get_ydata()[0], 1296 / 419)
    rsc = [
        (ln.get_xdata()[0], ln.get_ydata()[0]) for ln in ax.get_lines() if "RSC" in ln.get_label()
    ]
    assert sorted(rsc) == [(16384, 1.8), (131072, 0.23)]
    texts = {t.get_text() for t in ax.texts}
    assert {"3.1 h", "1.8 h", "0.23 h"} <= texts
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend.count("Meta RSC-1, projected") == 1


def test_plot_mttf_without_published(projection):
    fig = plots.plot_mttf(projection, published=False)
    (ax,) = fig.axes
    assert len(ax.get_lines()) == 1 and not ax.texts


def test_plot_ettr_policies(projection, fast_projection, tmp_path):
    fig = plots.plot_ettr(
        {"restart 10 min": projection, "restart 2 min": fast_projection}, tmp_path / "ettr.png"
    )
    _check_png(tmp_path / "ettr.png")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert "ETTR" in ax.get_ylabel()
    assert len(_bands(ax)) == 4  # two bands per policy
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["restart 10 min", "restart 2 min"]
    lines = [ln for ln in ax.get_lines() if ln.get_label() in labels]
    assert len(lines) == 2
    slow, fast = (ln.get_ydata() for ln in lines)
    assert np.all(fast > slow)  # shorter restarts cannot lose training time at these sizes
    assert any(np.allclose(ln.get_ydata(), 0.9) for ln in ax.get_lines())  # the 0.9 reference


def test_plot_ettr_single_dataset_gets_policy_label(projection):
    fig = plots.plot_ettr(projection)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["ckpt every 30 min (1 min), restart 10 min"]


def test_policy_label_names_a_fits_physics_per_draw(projection):
    # a projection whose rates came with an event fit's terms (its rates_source says so):
    # the legend says so too, not the scenario alone
    with_trend = projection.copy()
    with_trend.attrs["rates_source"] = (
        "posterior (250 draws, draw-major over chains, cycled over trials); physics per draw "
        "from the posterior (trend_shape)"
    )
    fig = plots.plot_ettr(with_trend)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["ckpt every 30 min (1 min), restart 10 min\n+ fit's trend_shape per draw"]


def test_plot_ettr_draws_the_bands_its_quantiles_have(projection):
    # a sweep whose spec keeps quantiles [0.05, 0.5, 0.95]: the median and the 90% band
    three = projection.sel(quantile=[0.05, 0.5, 0.95])
    fig = plots.plot_ettr({"a": three})
    (ax,) = fig.axes
    (band,) = _bands(ax)
    lo, hi = three["ettr_quantile"].sel(quantile=0.05), three["ettr_quantile"].sel(quantile=0.95)
    ys = band.get_paths()[0].vertices[:, 1]
    assert np.isclose(ys.min(), float(lo.min())) and np.isclose(ys.max(), float(hi.max()))
    assert ax.get_legend().get_title().get_text() == "policy (median, 90% band)"
    # the median alone: a line, no band; without the median, an error naming it
    ax = plots.plot_ettr(projection.sel(quantile=[0.5])).axes[0]
    assert _bands(ax) == [] and ax.get_legend().get_title().get_text() == "policy (median)"
    with pytest.raises(ValueError, match=r"ettr_quantile needs the median \(quantile 0.5\)"):
        plots.plot_ettr(projection.sel(quantile=[0.05, 0.95]))
    # a cube of more lines than one (a sweep's other axis): told to select one
    cube = xr.concat([projection, projection], dim="restart_hours")
    with pytest.raises(ValueError, match=r"dims \['restart_hours'\].*cube.isel\(restart_hours=0\)"):
        plots.plot_ettr(cube)
    plots.plot_ettr(cube.isel(restart_hours=0))


def test_plot_lost_hours(projection, tmp_path):
    fig = plots.plot_lost_hours(projection, tmp_path / "lost.png")
    _check_png(tmp_path / "lost.png")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    assert "fraction of wall-clock time" in ax.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    nonzero = (projection["lost_fraction_mean"] > 0).any("n_gpus")
    assert len(labels) == 1 + int(nonzero.sum())
    assert "useful training" in labels and "rework (lost progress)" in labels
    assert "waiting for spares" not in labels  # unlimited spares: always zero, left out
    # the stacked layers reach exactly 1 at every size
    top = np.max([p.get_paths()[0].vertices[:, 1].max() for p in ax.collections])
    assert np.isclose(top, 1.0)


def test_plot_lost_hours_single_size(posterior):
    one = relmc.project(posterior, n_gpus=[16384], n_trials=16, seed=1)
    fig = plots.plot_lost_hours(one)
    bars = fig.axes[0].patches
    assert len(bars) >= 3  # bars, one per layer
    # stacked: each layer starts where the one below ends, and the last ends at 1
    lost = one["lost_fraction_mean"].sel(n_gpus=16384).values
    heights = [b.get_height() for b in bars]
    assert np.isclose(heights[0], 1.0 - lost.sum())  # useful training at the bottom
    assert bars[0].get_y() == 0.0
    for below, bar in zip(bars[:-1], bars[1:], strict=True):
        assert np.isclose(bar.get_y(), below.get_y() + below.get_height()), bar.get_label()
    assert np.isclose(bars[-1].get_y() + bars[-1].get_height(), 1.0)


def test_main_figure(projection, posterior, tmp_path):
    path = tmp_path / "main.png"
    fig = plots.main_figure(projection, posterior, path)
    _check_png(path, min_w=1500, min_h=1000)
    assert len(fig.axes) == 4
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert [t[:3] for t in titles] == ["(a)", "(b)", "(c)", "(d)"]
    assert all(ax.get_title() == "" for ax in fig.axes)  # no centred title under the left one
    # each panel where the docstring puts it (row by row): rates, MTTF, ETTR, lost time
    assert [t[4:] for t in titles] == [
        "Failure-rate posterior by category",
        "Mean time to failure vs cluster size",
        "Effective training time ratio vs cluster size",
        "Where the time goes vs cluster size",
    ]


def test_main_figure_from_netcdf(projection, posterior, tmp_path):
    """Figures come from saved results: a re-opened projection draws the same figure."""
    projection.to_netcdf(tmp_path / "p.nc")
    with xr.open_dataset(tmp_path / "p.nc") as reopened:
        fig = plots.main_figure(reopened.load(), posterior, tmp_path / "main.png")
    _check_png(tmp_path / "main.png", min_w=1500, min_h=1000)
    assert "54 days" in fig.get_suptitle()


def test_main_figure_refuses_a_posterior_of_another_fit(projection, posterior, tmp_path):
    # panels (a) and (b)-(d) of two fits in one figure: refused before anything is drawn
    other = posterior.copy()
    other.posterior.attrs = {**posterior.posterior.attrs, "dataset": "rsc-1"}
    path = tmp_path / "main.png"
    with pytest.raises(ValueError, match=r"^posterior: its dataset is 'rsc-1' but the proj"):
        plots.main_figure(projection, other, path)
    assert not path.exists()
    # negative control: a posterior without labels (a user's own draws) is taken
    other.posterior.attrs = {}
    plots.main_figure(projection, other, path)
    assert path.exists()


@pytest.mark.parametrize("drop", ["mttf_hours_quantile", "quantile"])
def test_missing_variables_are_named(projection, drop):
    with pytest.raises(ValueError, match=drop):
        plots.plot_mttf(projection.drop_vars(drop))


def test_missing_median_is_named(projection):
    with pytest.raises(ValueError, match=r"mttf_hours_quantile needs the median"):
        plots.plot_mttf(projection.sel(quantile=[0.05, 0.25, 0.75, 0.95]))


def test_references_only_where_they_belong(projection):
    # a Llama 3 fit shows the published points and the 0.9 line; a user's own cluster does not
    def texts(fig):
        ax = fig.axes[0]
        return [line.get_label() for line in ax.get_lines()], [t.get_text() for t in ax.texts]

    labels, _ = texts(plots.plot_mttf(projection))
    assert "Llama 3 405B, observed" in labels
    _, notes = texts(plots.plot_ettr(projection))
    assert any("Llama 3" in t for t in notes)
    own = projection.assign_attrs(dataset="my_cluster")
    labels, _ = texts(plots.plot_mttf(own))
    assert not any("Llama" in lab or "RSC" in lab for lab in labels)
    _, notes = texts(plots.plot_ettr(own))
    assert not any("Llama" in t for t in notes)
    # asked for explicitly, they are drawn
    labels, _ = texts(plots.plot_mttf(own, published=True))
    assert "Llama 3 405B, observed" in labels


def test_every_size_has_a_tick_label(projection):
    ax = plots.plot_ettr(projection).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2k", "16k", "128k"]
    assert plots._gpus(100_000) == "100k" and plots._gpus(2**20) == "1M"
    # the axis spans the sizes with a margin of a factor 1.25 each side (2, one size alone)
    assert np.allclose(ax.get_xlim(), (2048 / 1.25, 131072 * 1.25))
    one = plots.plot_ettr(projection.sel(n_gpus=[16384])).axes[0]
    assert np.allclose(one.get_xlim(), (16384 / 2 / 1.25, 16384 * 2 * 1.25))


def test_rates_panel_uses_the_observed_cluster_size(posterior):
    own = posterior.copy()
    own.posterior.attrs["n_gpus"] = 4096
    title = plots.plot_rates(own).axes[0].get_xlabel()
    assert "4,096-GPU cluster" in title and "16,384" not in title
