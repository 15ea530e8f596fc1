"""Shared names for the paper scripts: where results and figures live, and the policies."""

import argparse
import contextlib
from pathlib import Path

from relmc._io import atomic_path, write_netcdf

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
FIGURES = HERE / "figures"

#: Named seeds: every number in the paper comes from one of these.
SEEDS = {
    "fit": 1,  # relmc.fit_conjugate draws
    "projection": 20240723,  # every policy and size (same seed: trials paired by rate draw)
    "physics": 20241129,  # every time-varying scenario and size (examples/time_varying.py's)
}

#: Policies compared in the paper, as dotted-path overrides of the default scenario
#: (relmc.scenario.replace_path). Times in hours.
POLICIES = {
    "baseline": {},
    "restart_2min": {"policy.restart_hours": 2 / 60},
    "ckpt_5min": {"policy.checkpoint_interval": 5 / 60},
    "both": {"policy.restart_hours": 2 / 60, "policy.checkpoint_interval": 5 / 60},
}
LABELS = {
    "baseline": "ckpt every 30 min, restart 10 min",
    "restart_2min": "restart 2 min",
    "ckpt_5min": "ckpt every 5 min",
    "both": "ckpt 5 min + restart 2 min",
}
WHAT_IF_GPUS = 100_000
#: Sizes of the time-varying physics comparison (examples/time_varying.py's).
PHYSICS_GPUS = (16_384, 100_000)


def physics_scenarios(posterior) -> dict:
    """The time-varying scenarios of ``examples/time_varying.py`` (one definition for both)."""
    import importlib.util

    path = HERE.parent / "examples" / "time_varying.py"
    spec = importlib.util.spec_from_file_location("time_varying", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.physics_scenarios(posterior)


def figure_args(description: str) -> argparse.Namespace:
    """``--results DIR --out DIR`` for a figure or table script."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--results", type=Path, default=RESULTS, help="netCDF from make_results.py")
    p.add_argument("--out", type=Path, default=FIGURES, help="where to write the figure")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    return args


def load_posterior(results: Path):
    import arviz as az

    return az.from_netcdf(results / "posterior.nc")


def load_projection(results: Path, policy: str = "baseline"):
    import xarray as xr

    with xr.open_dataset(results / f"projection_{policy}.nc") as ds:
        return ds.load()


@contextlib.contextmanager
def output(out: Path, name: str):
    """Yield a temporary path for ``out/name``; rename it into place when complete, then say so.

    A script killed mid-write leaves the previous file (or none), never a partial one.
    """
    path = out / name
    with atomic_path(path) as tmp:
        yield tmp
    print(f"wrote {path}")


def save_netcdf(obj, path: Path) -> None:
    """Write a Dataset or InferenceData atomically and say so."""
    write_netcdf(obj, path)
    print(f"wrote {path}")
