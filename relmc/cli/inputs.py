"""What the options mean: the root seed, the output directory, the data, the fit, input files."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from relmc._io import OutputSet
from relmc.cli import options
from relmc.cli.options import scenario_overrides

__all__ = [
    "check_scenario_options",
    "check_observed_overheads",
    "check_segments",
    "apply_overrides",
    "root_seed",
    "check_out",
    "load_data",
    "check_fit_memory",
    "fit_posterior",
    "read_toml",
    "read_posterior",
    "precision",
    "cluster_shape",
    "check_scalable",
]


def precision(args: argparse.Namespace):
    """Return the :class:`relmc.Precision` the precision flags build (``--target-se``, ...).

    ``None`` when none is given. Errors are ``FieldError``s on ``precision.*``, so the handler
    names the flag.
    """
    from relmc.sim.simulate import Precision

    given = {
        k: getattr(args, k)
        for k in ("target_se", "target_rse", "hopeless_ettr", "min_trials")
        if getattr(args, k, None) is not None
    }
    if set(given) == {"min_trials"}:
        raise ValueError(
            "--min-trials: goes with a target (--target-se, --target-rse or --hopeless-ettr); "
            "without one every run takes its --n-trials"
        )
    return Precision(**given) if given else None


def root_seed(args: argparse.Namespace) -> int:
    """Return the root seed: given, or fresh 63-bit entropy (printed, so a run can be repeated)."""
    if args.seed is not None:
        return int(args.seed)
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


def check_out(out: Path, names: Sequence[str] = ()) -> OutputSet:
    """Fail before any work if ``--out`` cannot take the files ``names``; return their set.

    See :class:`relmc._io.OutputSet`: the folder must be writable and no target a directory;
    output sets a killed command left half-moved there are completed first.
    """
    outputs = OutputSet(out, names, what="--out")
    outputs.check()
    return outputs


def load_data(args: argparse.Namespace):
    """Load the observations of ``--dataset`` or ``--counts`` (with ``--observed-*``)."""
    from relmc.datasets import load_counts, load_dataset

    maintenance = args.observed_maintenance
    if args.counts is None:
        if args.observed_gpus is not None or args.observed_hours is not None:
            raise ValueError("--observed-gpus and --observed-hours go with --counts")
        name = "llama3-405b" if args.dataset is None else args.dataset
        try:
            data = load_dataset(name)  # "" is a name given (and refused), not the default
        except ValueError as e:
            raise ValueError(f"--dataset: {e}") from None
        if maintenance is not None and "maintenance_count" in data:
            raise ValueError(
                f"--observed-maintenance: the bundled {name} records its own planned "
                f"interruptions ({int(data['maintenance_count'])}); the flag adds a count to "
                "--counts, to relmc fit --events or to a bundled dataset that has none"
            )
        return _with_maintenance(data, maintenance, f"--dataset {name} records no window length")
    shape = cluster_shape(args)
    try:
        data = load_counts(
            args.counts,
            n_gpus=args.observed_gpus,
            duration_hours=args.observed_hours,
            shape=shape,
        )
    except ValueError as e:
        # the loader's hint names its arguments; here they are the options
        text = str(e).replace(
            "give both n_gpus and duration_hours", "give both --observed-gpus and --observed-hours"
        )
        raise ValueError(f"--counts: {text}") from None
    data = _with_maintenance(data, maintenance, "needs --observed-hours with --counts")
    units = sorted({str(u) for u in data["unit"].values})
    if getattr(args, "model", None) == "hierarchical" and len(units) > 1:
        if not float(data.attrs.get("duration_hours") or 0.0) > 0.0:
            raise ValueError(
                f"--observed-hours: the hierarchical model pools categories of different units "
                f"({', '.join(units)}) per hour of the observed window, so it needs the "
                "window's length: give --observed-hours (and --observed-gpus)"
            )
    return data


def _with_maintenance(data, count, source: str):
    """Return ``data`` with ``--observed-maintenance``'s count (``with_maintenance``)."""
    from relmc.datasets import with_maintenance

    try:
        return with_maintenance(data, count)
    except ValueError as e:
        if getattr(e, "field", None) == "duration_hours":  # the data has no window
            raise ValueError(
                f"--observed-maintenance: {source}: the rate is the count over the window"
            ) from None
        raise ValueError(
            "--observed-maintenance: " + str(e).replace("maintenance_count ", "", 1)
        ) from None


def cluster_shape(args: argparse.Namespace):
    """Return the shape of ``--gpus-per-node`` etc. (the rest Llama 3's), or None if none given.

    None lets :func:`relmc.load_counts` record a shape only with ``--observed-gpus``.
    """
    from relmc.cluster import SHAPE_FIELDS, ClusterShape

    given = {
        name: getattr(args, f"cluster.{name}")
        for name in SHAPE_FIELDS
        if getattr(args, f"cluster.{name}", None) is not None
    }
    if not given:
        return None
    try:
        return ClusterShape(**given)
    except ValueError as e:  # named as the option that set it
        field = getattr(e, "field", "")
        raise ValueError(f"--{field.replace('_', '-')}: {e}" if field else str(e)) from None


def check_scalable(args: argparse.Namespace, data, command: str) -> None:
    """Refuse, before any fit, data whose exposure units do not scale with a GPU count."""
    from relmc.scenario import check_scalable_units

    src = "--counts" if args.counts is not None else f"--dataset {data.attrs.get('name', '')}"
    check_scalable_units(data["unit"].values, src, f"relmc {command}", " (relmc fit takes any)")


def check_posterior_units(posterior, command: str) -> None:
    """Refuse, before any simulation, a ``--posterior`` whose units do not scale with GPUs."""
    from relmc.scenario import check_scalable_units

    post = getattr(posterior, "posterior", posterior)
    units = [str(u) for u in post["unit"].values] if "unit" in post.coords else []
    check_scalable_units(units, "--posterior", f"relmc {command}")


def posterior_and_data(args: argparse.Namespace, seed: int, command: str, ov=None, data=None):
    """Return ``(posterior, data)``: ``--posterior`` read (``data`` None), else the data fitted.

    Every check of the data and options comes before the fit (units that scale with a
    cluster, trial and fit memory, and, with ``ov``, overheads that would leave the observed
    job no exposure); with ``--posterior`` the fit's options are refused and its categories'
    units checked. ``data``: the data already loaded (else loaded here).
    """
    from relmc._io import check_trial_memory
    from relmc.cli.output import note

    path = getattr(args, "posterior", None)
    if path is None:
        data = load_data(args) if data is None else data
        check_scalable(args, data, command)
        if ov is not None:
            check_observed_overheads(data, ov)
        check_trial_memory(args.n_trials, data.sizes["category"])
        check_fit_memory(args, data)
        note(f"fitting {args.model} model ...")
        return fit_posterior(args, data, seed), data
    given = [
        opt
        for opt, value in (
            ("--observed-gpus", args.observed_gpus),
            ("--observed-hours", args.observed_hours),
            ("--observed-maintenance", args.observed_maintenance),
            ("--n-draws", args.n_draws),
            ("--n-chains", args.n_chains),
            ("--n-tune", getattr(args, "n_tune", None)),
            ("--model", args.model if options.given(args, "model") else None),
        )
        if value is not None
    ]
    if given:
        raise ValueError(f"{given[0]}: a fit option; --posterior is used as it is, not fitted")
    posterior = read_posterior(path)
    check_posterior_units(posterior, command)
    check_trial_memory(args.n_trials, posterior.posterior.sizes["category"])
    return posterior, None


def check_observed_overheads(data, ov: dict[str, dict]) -> None:
    """Refuse, before any fit, overheads that pause the observed job for its whole window.

    The projection turns rates per wall-clock hour of the observed window into rates per
    exposed hour (:func:`relmc.rates.exposed_fraction`); here that share is computed at the
    data's own rates (count over exposure) with the scenario the options build, so overheads
    that leave no exposure at all are refused before the fit. (Posterior draws above the
    observed rates may still leave none; the projection then refuses them.)
    """
    from relmc.rates import RateDraws, exposed_fraction
    from relmc.scenario import FailureModel, Scenario

    observed = data.attrs.get("n_gpus", 0)
    if str(data.attrs.get("exposure_clock", "wall")) == "exposed" or not observed:
        return
    sc = apply_overrides(Scenario(failures=FailureModel.from_counts(data)), ov)
    rates = np.array([[c.rate for c in sc.failures.categories]])
    exposed_fraction(sc, RateDraws(rates, "the observed counts", observed_gpus=int(observed)))


def check_fit_memory(args: argparse.Namespace, data) -> None:
    """Refuse ``--n-draws`` x ``--n-chains`` that memory cannot hold with the posterior written.

    Before the fit: the fit's values per draw (:func:`relmc.models._common.draw_values`) at
    the copies :data:`relmc._io.WRITTEN_FIT_COPIES` gives ``args.command`` (``fit`` or
    ``project``: the posterior is encoded as netCDF in memory too; other commands, which do
    not write it, :data:`relmc._io.FIT_COPIES`).
    """
    from relmc._io import FIT_COPIES, WRITTEN_FIT_COPIES, check_posterior_memory
    from relmc.models._common import draw_values
    from relmc.models.hierarchical import DRAW_EXTRA_VALUES

    if getattr(args, "fleet", None):  # relmc fit --fleet: every fleet's rates too
        from relmc.models.fleets import fleet_draw_values

        n_values = fleet_draw_values(data.sizes["category"], len(args.fleet) + 1)
    elif getattr(args, "events", None) is not None:  # relmc fit --events: the pointwise too
        from relmc.models.events import event_data, event_draw_values

        n_values = event_draw_values(event_data(data))
    else:
        extra = 0 if args.model == "conjugate" else DRAW_EXTRA_VALUES
        n_values = draw_values(data.sizes["category"], extra)
    copies = WRITTEN_FIT_COPIES.get(args.command, FIT_COPIES)  # compare, optimize: not written
    check_posterior_memory(args.n_draws or 1000, args.n_chains or 4, n_values, copies)


def _quiet_pymc(args: argparse.Namespace):
    """Return a context in which PyMC's logger is quiet below a warning with ``--quiet``.

    pymc is imported first: importing it sets its logger's level.
    """
    import contextlib

    import pymc  # noqa: F401

    @contextlib.contextmanager
    def quiet():
        log = logging.getLogger("pymc")
        level = log.level
        if getattr(args, "quiet", False):
            log.setLevel(logging.WARNING)
        try:
            yield
        finally:
            log.setLevel(level)

    return quiet()


def load_fleet(text: str):
    """Load a total-only fleet of ``--fleet``: a bundled dataset, or ``CSV:GPUS:HOURS``."""
    from relmc.datasets import list_datasets, load_counts, load_dataset

    if text in list_datasets():
        return load_dataset(text)
    rest, sep, hours = text.rpartition(":")
    path, sep2, gpus = rest.rpartition(":")
    if not (sep and sep2 and path):
        raise ValueError(
            f"--fleet: {text!r} is not a bundled dataset ({', '.join(list_datasets())}) nor "
            "CSV:GPUS:HOURS (a counts file, the GPUs and hours it was observed on)"
        )
    try:
        n_gpus, duration = int(gpus.replace("_", "")), float(hours)
    except ValueError:
        raise ValueError(
            f"--fleet {text}: GPUS must be an integer and HOURS a number; got {gpus!r}, {hours!r}"
        ) from None
    try:  # counted as packed as Llama 3 (the shape options describe --counts)
        data = load_counts(path, n_gpus=n_gpus, duration_hours=duration)
    except ValueError as e:
        # the loader names its arguments; here they are the parts GPUS and HOURS
        message = str(e)
        field = getattr(e, "field", None)
        if field == "n_gpus" and message.startswith("n_gpus "):
            message = "GPUS " + message[len("n_gpus ") :]
        elif field == "duration_hours" and message.startswith("duration_hours "):
            message = "HOURS " + message[len("duration_hours ") :]
        raise ValueError(f"--fleet {text}: {message}") from None
    if not data.attrs.get("name"):
        data.attrs["name"] = Path(path).stem
    return data


def fit_fleet_posterior(args: argparse.Namespace, data, seed: int):
    """Fit ``data`` (the categorised fleet) with every ``--fleet``: InferenceData."""
    from relmc.models import fit_fleets

    fleets = [data, *(load_fleet(f) for f in args.fleet)]
    names = [str(f.attrs.get("name", "")) or "user data" for f in fleets]
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(
                f"--fleet: the fleet {name!r} is given twice (a dataset's name, or a CSV's "
                "file name without .csv)"
            )
        seen.add(name)
    with _quiet_pymc(args):
        try:
            return fit_fleets(
                dict(zip(names, fleets, strict=True)),
                fleet_sigma=1.0 if args.fleet_sigma is None else args.fleet_sigma,
                n_draws=args.n_draws or 1000,
                n_tune=_n_tune(args),
                n_chains=args.n_chains or 4,
                seed=seed,
                progressbar=sys.stderr.isatty() and not getattr(args, "quiet", False),
            )
        except ValueError as e:
            raise ValueError(f"--fleet: {e}") from None


def fit_event_log(args: argparse.Namespace, events, seed: int):
    """Fit :func:`relmc.fit_events` to a loaded log with the command's terms and draws."""
    from relmc.models import fit_events

    try:
        with _quiet_pymc(args):
            return fit_events(
                events,
                diurnal=args.diurnal,
                trend=args.trend,
                nodes=args.nodes,
                n_draws=args.n_draws or 1000,
                n_tune=_n_tune(args),
                n_chains=args.n_chains or 4,
                seed=seed,
                progressbar=sys.stderr.isatty() and not getattr(args, "quiet", False),
            )
    except ValueError as e:  # the terms' refusals, named as the options that set them
        text = str(e)
        if text.startswith(f"diurnal={args.diurnal!r}:"):
            text = text.replace(f"diurnal={args.diurnal!r}:", f"--diurnal {args.diurnal}:", 1)
            text = text.replace("use diurnal=None", "leave --diurnal out")
            raise ValueError(text) from None
        raise


def fit_posterior(args: argparse.Namespace, data, seed: int):
    """Fit ``--model`` to ``data`` with ``--n-draws`` (and ``--n-chains``); InferenceData."""
    from relmc.models import fit_conjugate, fit_hierarchical

    n_draws = args.n_draws or 1000
    if args.model == "conjugate":
        if getattr(args, "n_tune", None) is not None:
            raise ValueError(
                "--n-tune: the conjugate model draws its posterior exactly, with no tuning; "
                "drop it, or fit --model hierarchical"
            )
        return fit_conjugate(data, n_draws=n_draws, n_chains=args.n_chains or 4, seed=seed)
    quiet = getattr(args, "quiet", False)
    with _quiet_pymc(args):  # PyMC reports the sampler's start on its logger
        return fit_hierarchical(
            data,
            n_draws=n_draws,
            n_tune=_n_tune(args),
            n_chains=args.n_chains or 4,
            seed=seed,
            progressbar=sys.stderr.isatty() and not quiet,
        )


def _n_tune(args: argparse.Namespace) -> int:
    """``--n-tune`` (default 1000, the API's)."""
    n = getattr(args, "n_tune", None)
    return 1000 if n is None else int(n)


def read_toml(path: Path) -> dict:
    """Read a scenario TOML file into a dict (UTF-8, at most 16 MiB)."""
    import tomllib

    from relmc._io import read_text

    text = read_text(path, "scenario")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"scenario: {path} is not valid TOML: {e}") from None


#: The tables of a scenario file (``--scenario``, ``relmc simulate``'s argument)
SCENARIO_TABLES = ("cluster", "job", "policy", "failures")


def read_scenario_file(args: argparse.Namespace) -> dict | None:
    """Read ``--scenario`` before any fit: its tables, every field checked but the categories.

    ``[cluster]``, ``[job]`` and ``[policy]`` are checked over the default scenario here;
    ``[failures]`` names the data's categories, checked once the data are loaded
    (:func:`over_scenario`). ``cluster.n_gpus`` is refused (the sizes are ``--n-gpus``'s).
    """
    from relmc.errors import FieldError
    from relmc.scenario import Scenario

    path = getattr(args, "scenario", None)
    if path is None:
        return None
    d = read_toml(path)
    unknown = sorted(set(d) - set(SCENARIO_TABLES))
    if unknown:
        raise ValueError(
            f"--scenario: {path}: unknown tables {unknown}; known: {list(SCENARIO_TABLES)}"
        )
    cluster = d.get("cluster")
    if isinstance(cluster, dict) and "n_gpus" in cluster:
        raise FieldError(
            "cluster.n_gpus",
            f"--scenario: {path}: cluster.n_gpus: the sizes are --n-gpus's; leave n_gpus out "
            "of the file",
        )
    over_scenario(Scenario.default(), {k: v for k, v in d.items() if k != "failures"}, path)
    return d


def over_scenario(sc, d: dict | None, path: Path | None):
    """Return scenario ``sc`` with a scenario file's tables ``d`` over it (``--scenario``).

    ``[cluster]``, ``[job]`` and ``[policy]`` fields replace ``sc``'s; ``[failures]`` is
    layered on ``sc``'s categories (:meth:`relmc.FailureModel.with_tables`: tables naming
    one change it, straggler and SDC tables of new names are added, a ``rate`` of a fit
    category is refused). Errors name the file first.
    """
    from relmc.errors import FieldError
    from relmc.scenario import Scenario

    if not d:
        return sc
    out = sc.to_dict()
    try:
        for section in ("cluster", "job", "policy"):
            given = d.get(section)
            if given is None:
                continue
            if not isinstance(given, dict):
                raise FieldError(section, f"[{section}] must be a table; got {given!r}")
            out[section] = {**out[section], **given}
        if "failures" in d:
            out["failures"] = sc.failures.with_tables(d["failures"])
        return Scenario.from_dict(out)
    except FieldError as e:
        raise FieldError(e.field, f"--scenario: {path}: {e}") from None


def given_fields(ov: dict[str, dict], file: dict | None) -> set[str]:
    """Dotted fields the options ``ov`` or a scenario file set (the "assumed:" line's not)."""
    out = {f"{section}.{name}" for section, fields in ov.items() for name in fields}
    for section in ("cluster", "job", "policy", "failures"):
        given = (file or {}).get(section)
        if isinstance(given, dict):
            out |= {f"{section}.{name}" for name in given}
    return out


def data_for_file(args: argparse.Namespace, file: dict | None):
    """Load the data where a scenario file has ``[failures]`` and check it against them.

    Before any fit: the tables name the data's categories (:func:`over_scenario` on the
    data's categories). Returns the data, or None where nothing was loaded (no
    ``[failures]``, or ``--posterior``, whose categories are checked once it is read).
    """
    from relmc.scenario import FailureModel, Scenario

    if not file or "failures" not in file or getattr(args, "posterior", None) is not None:
        return None
    data = load_data(args)
    check_scalable(args, data, args.command)
    over_scenario(
        Scenario(failures=FailureModel.from_counts(data)),
        {"failures": file["failures"]},
        args.scenario,
    )
    return data


def read_posterior(path: Path):
    """Read a posterior netCDF (as ``relmc fit`` writes) with ``posterior['rate']``."""
    from relmc.models import import_arviz

    az = import_arviz()

    if not path.is_file():
        raise ValueError(f"--posterior: no such file: {str(path)!r}")
    try:
        idata = az.from_netcdf(str(path))
    except (OSError, KeyError) as e:
        raise ValueError(f"--posterior: cannot read {path} as an InferenceData: {e}") from None
    if "posterior" not in idata.groups() or "rate" not in idata.posterior:
        raise ValueError(f"--posterior: {path} has no posterior['rate'] (use 'relmc fit')")
    rate = idata.posterior["rate"]
    if "category" not in rate.dims or "unit" not in rate.coords:
        raise ValueError(
            f"--posterior: {path}: posterior['rate'] needs a 'category' dim with a 'unit' "
            "coordinate (each rate's exposure unit), as 'relmc fit' writes it"
        )
    return idata


def apply_overrides(scenario, ov: dict[str, dict]):
    """Return ``scenario`` with the command-line overrides applied (validated)."""
    for section, fields in ov.items():
        if fields:
            obj = getattr(scenario, section)
            scenario = dataclasses.replace(
                scenario, **{section: dataclasses.replace(obj, **fields)}
            )
    return scenario


def check_scenario_options(args: argparse.Namespace) -> dict[str, dict]:
    """Validate the scenario options on their own, before any data is loaded or fitted."""
    from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, check_trend

    ov = scenario_overrides(args)
    pol = Policy(**ov["policy"])
    job = Job(**ov["job"])
    Cluster(**ov["cluster"])
    check_segments(pol, job, given=ov)
    fm = FailureModel((Category("placeholder"),), **ov["failures"])
    check_trend(fm.trend_shape, fm.fleet_age_hours, pol.wall_cap_factor * job.compute_hours)
    if isinstance(pol.checkpoint_interval, str) and pol.snapshot_hours == 0:
        pol.interval(1.0)  # a rule with free snapshots: its error, before the fit
    if getattr(args, "counts", None) is not None and not args.counts.is_file():
        what = "is a directory" if args.counts.is_dir() else "no such file"
        raise ValueError(f"--counts: {what}: {str(args.counts)!r}")
    return ov


def check_segments(policy, job, given: dict[str, dict] | None = None) -> None:
    """Refuse a fixed interval that splits the wall cap into too many checkpoint segments.

    The simulation refuses it too, but only after the fit; here the field blamed is, of those
    the user set (``given``: ``{section: {field: value}}``), the one furthest from its
    default (see :func:`relmc.sim.simulate.check_segments`).
    """
    from relmc.sim.simulate import check_segments as check

    ci = policy.checkpoint_interval
    if isinstance(ci, str):
        return  # a rule's interval is known only after the fit; the simulation checks it
    names = {
        f"{section}.{name}"
        for section, fields in (given or {}).items()
        if isinstance(fields, dict)
        for name in fields
    }
    check(policy, job, ci, names)
