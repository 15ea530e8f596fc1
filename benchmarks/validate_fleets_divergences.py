"""Where the divergent transitions of ``fit_fleets`` on a design sit (not run in CI).

Fits one design of ``validate_fleets.py`` and prints, for each divergent transition, its
chain and draw, the NUTS step size and tree depth, and the percentile, within the posterior,
of each sampled quantity (``sigma``, ``alpha``, ``delta``, and the free variables ``v``,
``e``, ``delta_std`` or ``delta_centred``), plus the same for the draw before it.

Usage: ``python benchmarks/validate_fleets_divergences.py --design equal --seed 1
[--target-accept 0.95] [--cores 1] [--save FILE.nc]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
import time
import warnings
from pathlib import Path

import numpy as np


def _validate_fleets():
    path = Path(__file__).resolve().parent / "validate_fleets.py"
    spec = importlib.util.spec_from_file_location("validate_fleets", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def percentiles(fit) -> dict[str, np.ndarray]:
    """Each scalar quantity's draws (chain, draw) and their percentile in the posterior."""
    post = fit.posterior
    out = {}
    for name in ("sigma", "alpha", "beta", "delta", "v", "e", "delta_std", "delta_centred"):
        if name not in post:
            continue
        v = post[name].values
        v = v.reshape(v.shape[:2] + (-1,))
        for j in range(v.shape[-1]):
            label = name if v.shape[-1] == 1 else f"{name}[{j}]"
            flat = np.sort(v[..., j].ravel())
            out[label] = (v[..., j], np.searchsorted(flat, v[..., j]) / flat.size * 100)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--design", default="equal")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target-accept", type=float, default=0.95)
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--save", help="netCDF file for the whole InferenceData")
    args = ap.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    vf = _validate_fleets()
    from relmc.models import fit_fleets

    d = vf.DESIGNS[args.design]
    t = time.time()
    fit = fit_fleets(
        d.datasets(), seed=args.seed, cores=args.cores, target_accept=args.target_accept,
        prior=d.prior, pool=d.pool,
    )  # fmt: skip
    if args.save:
        fit.to_netcdf(args.save)
    ss = fit.sample_stats
    div = ss["diverging"].values
    print(f"design {args.design}, seed {args.seed}, target_accept {args.target_accept}: "
          f"{time.time() - t:.0f} s, divergences {int(div.sum())} / {div.size}; step size per "
          f"chain {np.round(ss['step_size'].values[:, 0], 3)}")  # fmt: skip
    pct = percentiles(fit)
    for c, i in zip(*np.nonzero(div), strict=True):
        print(f"chain {c} draw {i}: tree depth {int(ss['tree_depth'].values[c, i])}, "
              f"energy {float(ss['energy'].values[c, i]):.1f}")  # fmt: skip
        for name, (v, p) in pct.items():
            prev = f"{v[c, i - 1]:.4g} ({p[c, i - 1]:.1f}%)" if i > 0 else "-"
            print(f"  {name:16s} {v[c, i]:.4g} (percentile {p[c, i]:.1f}); draw before {prev}")


if __name__ == "__main__":
    main()
