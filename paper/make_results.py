"""Compute and save every result the paper's figures and tables read (netCDF, named seeds).

    python paper/make_results.py                 # 2,000 trials per size (a few minutes, 2 cores)
    python paper/make_results.py --quick         # 200 trials, 4 sizes (under a minute; tests)

Writes to paper/results/ (or --out): posterior.nc (the Llama 3 conjugate fit),
projection_<policy>.nc for each policy in common.POLICIES, what_if_100k.nc (per-trial
ETTR at 100,000 GPUs under every policy, trials paired by posterior draw) and physics.nc
(per-trial ETTR at 16,384 and 100,000 GPUs under examples/time_varying.py's scenarios,
paired the same way). Each file is
written to a temporary name and renamed (relmc._io.write_netcdf), so a half-written file is
never read as complete.
"""

import argparse
from pathlib import Path

import numpy as np
import xarray as xr
from common import (
    PHYSICS_GPUS,
    POLICIES,
    RESULTS,
    SEEDS,
    WHAT_IF_GPUS,
    physics_scenarios,
    save_netcdf,
)

import relmc
from relmc.scenario import replace_path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--n-trials", type=int, default=2000, help="trials per size and policy")
    p.add_argument("--quick", action="store_true", help="200 trials and 4 sizes")
    args = p.parse_args()
    n_trials = 200 if args.quick else args.n_trials
    sizes = [2048, 16_384, 131_072] if args.quick else [2048 * 2**k for k in range(7)]
    sizes = sorted({*sizes, WHAT_IF_GPUS})
    args.out.mkdir(parents=True, exist_ok=True)

    data = relmc.load_dataset("llama3-405b")
    posterior = relmc.fit_conjugate(data, seed=SEEDS["fit"])
    save_netcdf(posterior, args.out / "posterior.nc")

    # the fit records its data's planned-maintenance rate (47 in 1,296 h): from_posterior uses it
    base = relmc.Scenario(failures=relmc.FailureModel.from_posterior(posterior))
    ettr = {}
    for name, overrides in POLICIES.items():
        sc = base
        for path, value in overrides.items():
            sc = replace_path(sc, path, value)
        proj = relmc.project(
            posterior, n_gpus=sizes, scenario=sc, n_trials=n_trials, seed=SEEDS["projection"]
        )
        proj.attrs["policy"] = name
        save_netcdf(proj, args.out / f"projection_{name}.nc")
        sim = relmc.simulate(
            replace_path(sc, "cluster.n_gpus", WHAT_IF_GPUS),
            rates=posterior,
            n_trials=n_trials,
            seed=SEEDS["projection"],
        )
        ettr[name] = sim["ettr"].values
    what_if = xr.Dataset(
        {"ettr": (("policy", "trial"), np.stack(list(ettr.values())))},
        coords={"policy": list(ettr), "trial": np.arange(n_trials)},
        attrs={
            "n_gpus": WHAT_IF_GPUS,
            "seed": SEEDS["projection"],
            "pairing": "trial i uses posterior draw i % n_draws under every policy",
        },
    )
    save_netcdf(what_if, args.out / "what_if_100k.nc")

    scenarios = physics_scenarios(posterior)
    per_trial = np.empty((len(scenarios), len(PHYSICS_GPUS), n_trials))
    for i, sc in enumerate(scenarios.values()):
        for j, n in enumerate(PHYSICS_GPUS):
            sim = relmc.simulate(
                replace_path(sc, "cluster.n_gpus", n),
                rates=posterior,
                n_trials=n_trials,
                seed=SEEDS["physics"],
            )
            per_trial[i, j] = sim["ettr"].values
    physics = xr.Dataset(
        {"ettr": (("scenario", "n_gpus", "trial"), per_trial, {"units": "1"})},
        coords={"scenario": list(scenarios), "n_gpus": list(PHYSICS_GPUS)},
        attrs={
            "seed": SEEDS["physics"],
            "scenarios": "examples/time_varying.py (physics_scenarios)",
            "pairing": "trial i uses posterior draw i % n_draws in every scenario",
        },
    )
    save_netcdf(physics, args.out / "physics.nc")


if __name__ == "__main__":
    main()
