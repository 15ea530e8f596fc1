"""Figures from saved results: failure-rate posteriors and projections over cluster size.

Every function here reads datasets that already exist (a fitted posterior, a
:func:`relmc.project` result, possibly re-opened from netCDF) and never runs a simulation.
Each returns a :class:`matplotlib.figure.Figure` built without pyplot (so it works under any
backend, Agg included, and leaves no global figure state), and writes it to ``path`` when one
is given. matplotlib is imported only when a function is called (``pip install relmc[plot]``).

Bands follow the projection's quantiles: a darker band for the central 50% (25-75%), a lighter
one for the central 90% (5-95%), and a line for the median.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from relmc.rates import rate_array
from relmc.summary import QUANTILES

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "PUBLISHED_MTTF",
    "main_figure",
    "plot_ettr",
    "plot_lost_hours",
    "plot_mttf",
    "plot_rates",
]

#: Published job MTTF points overlaid by :func:`plot_mttf`: ``(label, n_gpus, hours, kind,
#: source)``. ``kind`` is ``"observed"`` or ``"projection"``. See ``SOURCES.md`` in the relmc
#: repository.
PUBLISHED_MTTF: tuple[tuple[str, int, float, str, str], ...] = (
    (
        "Llama 3 405B, observed",
        16_384,
        54 * 24 / 419,  # 1,296 h / 419 unexpected interruptions = 3.09 h (SOURCES.md 1.4)
        "observed",
        "arXiv:2407.21783 Sec. 3.3.4",
    ),
    ("Meta RSC-1, projected", 16_384, 1.8, "projection", "arXiv:2410.21680 (SOURCES.md 2.2)"),
    ("Meta RSC-1, projected", 131_072, 0.23, "projection", "arXiv:2410.21680 (SOURCES.md 2.2)"),
)

_Q = QUANTILES
_UNIT_WORDS = {
    "gpu": "per GPU",
    "node": "per node",
    "rack": "per rack",
    "switch": "per switch",
    "link": "per link",
    "pod": "per pod",
    "job": "per job",
}
_CAUSE_LABELS = {
    "rework": "rework (lost progress)",
    "checkpoint": "checkpoint writes",
    "detection": "detection",
    "node_swap": "node swap",
    "spare_wait": "waiting for spares",
    "restart": "restart",
    "maintenance": "planned maintenance",
    "slowdown": "diurnal slowdown",
    "diagnosis": "diagnosis",
    "preemption": "preemption (shared pool)",
}


# --------------------------------------------------------------------------------------------
# helpers


def _new_figure(figsize: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    return _new_figure(figsize).add_subplot()


def _finish(fig: Any, path: str | os.PathLike[str] | None) -> Figure:
    if path is not None:
        fig.savefig(os.fspath(path), dpi=150)
    return fig


def _require(ds: Any, names: tuple[str, ...], what: str, where: str) -> None:
    if not isinstance(ds, xr.Dataset):
        raise ValueError(f"{where}: {what} must be an xarray.Dataset; got {type(ds).__name__}")
    missing = [n for n in names if n not in ds.variables]
    if missing:
        raise ValueError(
            f"{where}: {what} lacks {missing}; pass a relmc.project() result (or one "
            "re-opened with xarray.open_dataset), or a sweep cube with an n_gpus axis"
        )


def _quantiles(da: xr.DataArray, where: str) -> dict[float, np.ndarray]:
    """Return ``{q: values over n_gpus}`` for the median and the band quantiles it has.

    The median (0.5) is needed; a band is drawn where both its ends are there (0.25 and
    0.75; 0.05 and 0.95), so a sweep with quantiles ``[0.05, 0.5, 0.95]`` plots its 90%
    band alone.
    """
    extra = [str(d) for d in da.dims if d not in ("n_gpus", "quantile")]
    if extra:
        raise ValueError(
            f"{where}: {da.name} has the dims {extra} beside n_gpus and quantile; pass one "
            f"line's data: a relmc.project() result, or a sweep cube with one value of each "
            f"other axis selected (e.g. cube.isel({', '.join(f'{d}=0' for d in extra)}))"
        )
    have = np.asarray(da["quantile"].values, dtype=float)
    out = {}
    for q in _Q:
        hit = np.flatnonzero(np.isclose(have, q, atol=1e-9))
        if hit.size:
            out[q] = np.asarray(da.isel(quantile=int(hit[0])).transpose("n_gpus").values, float)
    if 0.5 not in out:
        raise ValueError(f"{where}: {da.name} needs the median (quantile 0.5); has {have.tolist()}")
    return out


#: The bands :func:`_band` draws: (low, high, fill opacity, name).
_BANDS = ((0.05, 0.95, 0.15, "90%"), (0.25, 0.75, 0.35, "50%"))


def _band_text(qs: dict[float, np.ndarray]) -> str:
    """Describe what :func:`_band` draws for ``qs``: ``"median, 50%/90% bands"`` and so on."""
    names = [name for lo, hi, _, name in reversed(_BANDS) if lo in qs and hi in qs]
    if not names:
        return "median"
    return f"median, {'/'.join(names)} band{'s' if len(names) > 1 else ''}"


def _sizes(ds: xr.Dataset) -> np.ndarray:
    return np.asarray(ds["n_gpus"].values, dtype=float).reshape(-1)


def _band(ax: Axes, x: np.ndarray, qs: dict[float, np.ndarray], color, label: str) -> None:
    """Median line with the 50% and 90% bands ``qs`` has (filled between quantiles)."""
    for lo, hi, alpha, _ in _BANDS:
        if lo in qs and hi in qs:
            ax.fill_between(x, qs[lo], qs[hi], color=color, alpha=alpha, linewidth=0)
    ax.plot(x, qs[0.5], color=color, marker="o", markersize=3.5, label=label)


def _gpu_axis(ax: Axes, x: np.ndarray) -> None:
    """Log x axis of GPU counts, a tick labelled at every size shown (2k, 16k, 100k, 1M).

    With more than 12 distinct sizes, ticks are thinned evenly (the first and last kept).
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xscale("log", base=2)
    ax.set_xlabel("cluster size (GPUs)")
    lo, hi = float(np.min(x)), float(np.max(x))
    if lo == hi:
        lo, hi = lo / 2, hi * 2
    ax.set_xlim(lo / 1.25, hi * 1.25)
    ticks = sorted({float(v) for v in np.asarray(x, float).ravel()})
    if len(ticks) > 12:
        keep = np.unique(np.linspace(0, len(ticks) - 1, 12).round().astype(int))
        ticks = [ticks[i] for i in keep]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _gpus(v)))
    if len(ticks) > 1 and float(np.min(np.diff(np.log2(ticks)))) < 0.7:
        # neighbours closer than a factor 1.6 (e.g. 100k and 128k): tilt so both stay legible
        ax.tick_params(axis="x", labelrotation=40)
    ax.xaxis.set_minor_formatter(NullFormatter())


def _gpus(v: float) -> str:
    """Return a short GPU count as the field writes it.

    Powers of two in binary units (2k, 16k, 128k, 1M), other sizes in decimal ones (100k).
    """
    n = int(round(v))
    if n >= 1024 and n & (n - 1) == 0:
        return f"{n // 2**20}M" if n >= 2**20 else f"{n // 1024}k"
    if v >= 1e6:
        return f"{v / 1e6:.3g}M"
    if v >= 1e3:
        return f"{v / 1e3:.3g}k"
    return f"{v:.0f}"


#: Datasets whose clusters the published reference points describe.
_REFERENCE_DATASETS = ("llama3-405b", "rsc-1", "rsc-2")


def _references_belong(*datasets: xr.Dataset) -> bool:
    """Whether Llama 3 / Meta RSC reference points belong on a figure of these results."""
    return any(str(ds.attrs.get("dataset", "")) in _REFERENCE_DATASETS for ds in datasets)


# --------------------------------------------------------------------------------------------
# public figures


def plot_rates(
    posterior,
    path: str | os.PathLike[str] | None = None,
    *,
    n_gpus: int | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Forest plot of the failure-rate posterior by category.

    Each category's rate per unit-hour is turned into a common, readable unit: expected
    interruptions per day on a cluster of ``n_gpus`` GPUs (rate x units of the category's
    kind at that size x 24 h), so categories that scale with GPUs, nodes, racks or the job
    can be compared on one axis. Shown per category: the posterior median (dot), central 50%
    (thick bar) and central 90% (thin bar), on a log x axis, sorted by median.

    Parameters
    ----------
    posterior : arviz.InferenceData or xarray.DataArray
        A fit from :mod:`relmc.models` (``posterior["rate"]``, dims chain, draw, category, with
        a ``unit`` coordinate on ``category``; ``group`` is shown when present), or that
        DataArray itself.
    path : str or path-like, optional
        Where to write the figure (format from the suffix, e.g. ``.png``).
    n_gpus : int, optional
        Cluster size the rates are expressed at, in GPUs. Default: the size of the cluster the
        data were observed on, as the fit recorded it (``posterior.attrs["n_gpus"]``), else
        16,384 (the Llama 3 cluster).
    ax : matplotlib.axes.Axes, optional
        Draw into this axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the plot.

    Raises
    ------
    ValueError
        If ``posterior`` has no ``rate`` with ``category`` dim and ``unit`` coordinate.
    """
    from relmc.cluster import units

    rate = _rate_array(posterior)
    if n_gpus is None:
        post = getattr(posterior, "posterior", None)
        observed = int((post.attrs if post is not None else rate.attrs).get("n_gpus", 0) or 0)
        n_gpus = observed if observed > 0 else 16_384
    ax = _axes(ax, (8.0, 0.28 * rate.sizes["category"] + 1.6))
    fig = ax.figure
    names = [str(c) for c in rate["category"].values]
    unit = [str(u) for u in rate["unit"].values]
    group = [str(g) for g in rate["group"].values] if "group" in rate.coords else [""] * len(names)
    scale = np.array([units(int(n_gpus), u) * 24.0 for u in unit])
    draws = rate.transpose(..., "category").values.reshape(-1, len(names)) * scale
    q = np.quantile(draws, _Q, axis=0)
    order = np.argsort(q[2])  # smallest at the bottom, largest on top
    y = np.arange(len(names))
    groups = list(dict.fromkeys(group[i] for i in order[::-1]))  # the legend: top to bottom
    # colours by the data's order of groups, not the draws' (two fits of one data, or two
    # seeds, colour a group alike even where close medians swap places)
    palette = _palette(len(groups))
    colors = {g: palette[i] for i, g in enumerate(dict.fromkeys(group))}
    for g in groups:
        idx = [i for i in order if group[i] == g]
        pos = [int(np.flatnonzero(order == i)[0]) for i in idx]
        c = colors[g]
        ax.hlines(pos, q[0, idx], q[4, idx], color=c, linewidth=1.0)
        ax.hlines(pos, q[1, idx], q[3, idx], color=c, linewidth=3.5)
        ax.plot(q[2, idx], pos, "o", color=c, markersize=4, label=g or None, linestyle="none")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{names[i]} ({_UNIT_WORDS.get(unit[i], unit[i])})" for i in order])
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.set_xscale("log")
    ax.set_xlabel(
        f"interruptions per day on a {int(n_gpus):,}-GPU cluster\n"
        "(dot: posterior median; thick bar: 50%, thin bar: 90% interval)"
    )
    ax.set_title("Failure-rate posterior by category")
    ax.grid(axis="x", which="major", alpha=0.3)
    if any(groups):
        ax.legend(title="root-cause group", fontsize="small", loc="lower right")
    ax.tick_params(axis="y", labelsize="small")
    return _finish(fig, path)


def _rate_array(posterior) -> xr.DataArray:
    try:
        rate = rate_array(posterior)
    except ValueError:
        raise ValueError(
            "plot_rates: posterior must be an InferenceData with posterior['rate'] "
            f"(dims chain, draw, category), or that DataArray; got {type(posterior).__name__}"
        ) from None
    if "unit" not in rate.coords:
        raise ValueError("plot_rates: posterior['rate'] needs a 'unit' coordinate on 'category'")
    return rate


def _palette(n: int) -> list:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(max(n, 1))]


def plot_mttf(
    projection: xr.Dataset,
    path: str | os.PathLike[str] | None = None,
    published: bool | None = None,
    *,
    ax: Axes | None = None,
) -> Figure:
    """Job mean time to failure versus cluster size, with bands, on log-log axes.

    Parameters
    ----------
    projection : xarray.Dataset
        A :func:`relmc.project` result: ``mttf_hours_quantile`` (n_gpus, quantile), in hours.
    path : str or path-like, optional
        Where to write the figure.
    published : bool, optional
        Overlay published points (``PUBLISHED_MTTF``): Llama 3's observed 3.09 h at
        16,384 GPUs (filled marker) and Meta RSC-1's projections of 1.8 h at 16,384 and
        0.23 h at 131,072 GPUs (open markers, marked as projections). Default: only when the
        projection was fitted to Llama 3 or RSC data (``attrs["dataset"]``); a user's own
        cluster is not compared with them unless asked.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the plot.
    """
    where = "plot_mttf"
    _require(projection, ("mttf_hours_quantile", "n_gpus", "quantile"), "projection", where)
    ax = _axes(ax, (6.4, 4.6))
    x = _sizes(projection)
    qs = _quantiles(projection["mttf_hours_quantile"], where)
    _band(ax, x, qs, _palette(1)[0], f"relmc projection ({_band_text(qs)})")
    xs = list(x)
    if published is None:
        published = _references_belong(projection)
    if published:
        for label, n, hours, kind, _src in PUBLISHED_MTTF:
            observed = kind == "observed"
            ax.plot(
                [n],
                [hours],
                linestyle="none",
                marker="*" if observed else "D",
                markersize=11 if observed else 6,
                markerfacecolor="black" if observed else "white",
                markeredgecolor="black",
                label=label,
                zorder=5,
            )
            ax.annotate(
                f"{hours:.2g} h",
                (n, hours),
                xytext=(8, 0) if observed else (-7, 0),
                textcoords="offset points",
                ha="left" if observed else "right",
                va="center",
                fontsize="small",
            )
            xs.append(n)
    _gpu_axis(ax, np.asarray(xs, float))
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 3.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("job MTTF: hours between unexpected interruptions")
    ax.set_title("Mean time to failure vs cluster size")
    ax.grid(which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=True))
    ax.legend(uniq.values(), uniq.keys(), fontsize="small", loc="upper right")
    return _finish(ax.figure, path)


def plot_ettr(
    projections: Mapping[str, xr.Dataset] | xr.Dataset,
    path: str | os.PathLike[str] | None = None,
    *,
    reference: bool | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Effective training time ratio versus cluster size, one banded line per policy.

    Parameters
    ----------
    projections : xarray.Dataset or mapping of str to xarray.Dataset
        One :func:`relmc.project` result, or several keyed by a legend label (e.g. one per
        restart/checkpoint policy), or slices of a sweep along ``n_gpus``. Each needs
        ``ettr_quantile`` (n_gpus, quantile) with the median (0.5); the 50% and 90% bands
        are drawn where their quantiles (0.25 and 0.75; 0.05 and 0.95) are there.
    path : str or path-like, optional
        Where to write the figure.
    reference : bool, optional
        Mark ETTR = 0.9, the level Llama 3 405B exceeded on 16,384 GPUs (dotted). Default:
        only when a projection was fitted to Llama 3 or RSC data.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the plot.
    """
    where = "plot_ettr"
    if isinstance(projections, xr.Dataset):
        projections = {_policy_label(projections): projections}
    if not isinstance(projections, Mapping) or not projections:
        raise ValueError(f"{where}: projections must be a Dataset or a non-empty mapping")
    ax = _axes(ax, (6.4, 4.6))
    colors = _palette(len(projections))
    xs: list[np.ndarray] = []
    drawn: set[str] = set()
    for (label, ds), c in zip(projections.items(), colors, strict=True):
        _require(ds, ("ettr_quantile", "n_gpus", "quantile"), f"projection {label!r}", where)
        x = _sizes(ds)  # type: ignore[arg-type]  # a Dataset, checked by _require
        qs = _quantiles(ds["ettr_quantile"], where)
        _band(ax, x, qs, c, str(label))
        drawn.add(_band_text(qs))
        xs.extend(x)
    if reference is None:
        reference = _references_belong(*projections.values())
    if reference:
        ax.axhline(0.9, color="gray", linestyle=":", linewidth=1)
        ax.annotate(
            "0.9 (Llama 3: >0.9 on 16k GPUs)",
            (0.98, 0.9),
            xycoords=("axes fraction", "data"),
            xytext=(0, 3),
            textcoords="offset points",
            ha="right",
            fontsize="small",
            color="dimgray",
        )
    _gpu_axis(ax, np.asarray(xs, float))
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("ETTR: useful training time / wall time")
    ax.set_title("Effective training time ratio vs cluster size")
    ax.grid(which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="lower left", title=f"policy ({'; '.join(sorted(drawn))})")
    return _finish(ax.figure, path)


def _policy_label(ds: xr.Dataset) -> str:
    """Return a short policy label from the scenario JSON in attrs, or a generic one."""
    import json

    from relmc.scenario import Scenario

    try:
        d = json.loads(ds.attrs["scenario"])
        pol = d["policy"]
        ci, dt, r = pol["checkpoint_interval"], pol["snapshot_hours"], pol["restart_hours"]
    except (KeyError, TypeError, ValueError):
        return "projection"
    ci_s = ci if isinstance(ci, str) else f"{60 * ci:.3g} min"
    label = f"ckpt every {ci_s} ({60 * dt:.2g} min), restart {60 * r:.3g} min"
    try:
        features = Scenario.from_dict(d).features()
    except (TypeError, ValueError):
        features = []  # a scenario another version wrote: the policy alone
    from relmc.rates import PHYSICS_SOURCE

    source = str(ds.attrs.get("rates_source", ""))
    mark = f"{PHYSICS_SOURCE} ("
    if mark in source:  # an event fit's terms, drawn per trial (not in the scenario)
        features.append(f"fit's {source.split(mark, 1)[1].split(')', 1)[0]} per draw")
    return label + "".join(f"\n+ {f}" for f in features)


def plot_lost_hours(
    projection: xr.Dataset,
    path: str | os.PathLike[str] | None = None,
    *,
    ax: Axes | None = None,
) -> Figure:
    """Where the wall-clock time goes: useful training and each cause of loss, versus size.

    A stacked area of fractions of wall time: each cause of ``lost_fraction_mean`` (mean
    hours lost to it / mean wall hours) and, at the bottom, useful training, ``1 - sum`` of
    them (mean durable compute / mean wall hours; close to, but not the same as, the mean of
    per-trial ETTR). The stack therefore reaches 1. Causes that are zero at every size are
    left out.

    Parameters
    ----------
    projection : xarray.Dataset
        A :func:`relmc.project` result: ``lost_fraction_mean`` (n_gpus, cause), fractions of
        wall time.
    path : str or path-like, optional
        Where to write the figure.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the plot.
    """
    where = "plot_lost_hours"
    _require(projection, ("lost_fraction_mean", "n_gpus"), "projection", where)
    ax = _axes(ax, (6.4, 4.6))
    x = _sizes(projection)
    lost = projection["lost_fraction_mean"].transpose("n_gpus", "cause")
    causes = [str(c) for c in lost["cause"].values]
    values = np.asarray(lost.values, float).reshape(len(x), len(causes))
    keep = [i for i in range(len(causes)) if np.any(values[:, i] > 0)]
    layers = [np.clip(1.0 - values.sum(axis=1), 0.0, 1.0)]
    labels = ["useful training"]
    layers += [values[:, i] for i in keep]
    labels += [_CAUSE_LABELS.get(causes[i], causes[i]) for i in keep]
    colors = ["#b9d7a8", *_palette(len(keep))]
    if len(x) == 1:  # a single size: draw a bar instead of an area of zero width
        bottom = 0.0
        for v, lab, c in zip(layers, labels, colors, strict=True):
            ax.bar(x, v, bottom=bottom, width=x * 0.3, color=c, label=lab)
            bottom = bottom + v
    else:
        ax.stackplot(x, *layers, labels=labels, colors=colors, alpha=0.9)
    _gpu_axis(ax, x)
    if len(x) > 1:
        ax.set_xlim(float(x.min()), float(x.max()))
    ax.set_ylim(0, 1)
    ax.set_ylabel("fraction of wall-clock time (mean)")
    ax.set_title("Where the time goes vs cluster size")
    handles, labs = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], labs[::-1], fontsize="small", loc="lower left", framealpha=0.9)
    return _finish(ax.figure, path)


def main_figure(projection: xr.Dataset, posterior, path: str | os.PathLike[str]) -> Figure:
    """Draw the four-panel summary written by ``relmc project``.

    Panels: (a) failure-rate posterior by category (:func:`plot_rates`), (b) MTTF vs size
    with published points (:func:`plot_mttf`), (c) ETTR vs size (:func:`plot_ettr`), (d)
    where the wall time goes (:func:`plot_lost_hours`).

    Parameters
    ----------
    projection : xarray.Dataset
        A :func:`relmc.project` result.
    posterior : arviz.InferenceData
        The fit the projection used.
    path : str or path-like
        Where to write the figure (e.g. ``relmc-projection.png``).

    Returns
    -------
    matplotlib.figure.Figure
        The 2x2 figure.

    Raises
    ------
    ValueError
        When the two record different fits (their ``dataset`` or ``model`` attrs differ where
        both have one), before anything is drawn.
    """
    from relmc.errors import FieldError
    from relmc.rates import fit_labels

    mine, theirs = (
        fit_labels(posterior),
        {k: str(projection.attrs.get(k, "")) for k in ("dataset", "model")},
    )
    for key in ("dataset", "model"):
        if mine[key] and theirs[key] and mine[key] != theirs[key]:
            raise FieldError(
                "posterior",
                f"posterior: its {key} is {mine[key]!r} but the projection's fit was "
                f"{theirs[key]!r}; pass the posterior the projection used",
            )
    fig = _new_figure((15.0, 11.0))
    axes = fig.subplots(2, 2)
    plot_rates(posterior, ax=axes[0, 0])
    plot_mttf(projection, ax=axes[0, 1])
    plot_ettr(projection, ax=axes[1, 0])
    plot_lost_hours(projection, ax=axes[1, 1])
    for a, letter in zip(axes.flat, "abcd", strict=True):
        title = a.get_title()
        a.set_title("")
        a.set_title(f"({letter}) {title}", loc="left")
    fig.suptitle(_main_title(projection), fontsize="large")
    return _finish(fig, path)


def _main_title(projection: xr.Dataset) -> str:
    import json

    parts = ["relmc projection"]
    try:
        sc = json.loads(projection.attrs["scenario"])
        w = float(sc["job"]["compute_hours"])
        parts.append(f"job of {w:,.0f} compute-hours ({w / 24:.0f} days)")
    except (KeyError, TypeError, ValueError):
        pass
    if "n_trials" in projection.attrs:
        parts.append(f"{int(projection.attrs['n_trials']):,} trials per size")
    return "; ".join(parts)
