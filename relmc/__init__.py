"""relmc: Monte Carlo reliability projections for large synchronous training jobs.

Failure rates are learned from published or logged interruption counts with Bayesian models
(:mod:`relmc.models`) and pushed through a numba simulation of a training job's timeline
(:mod:`relmc.sim`) to project interruptions and effective training time ratio (ETTR) at any
cluster size. Heavy submodules (PyMC, matplotlib, dask) load only when first used.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> module that defines it; resolved on first access (PEP 562)
_LAZY = {
    "list_datasets": "relmc.datasets",
    "load_dataset": "relmc.datasets",
    "load_counts": "relmc.datasets",
    "load_events": "relmc.events",
    "fit_conjugate": "relmc.models",
    "fit_hierarchical": "relmc.models",
    "fit_fleets": "relmc.models",
    "fit_scaling": "relmc.models",
    "fit_events": "relmc.models",
    "Scenario": "relmc.scenario",
    "Cluster": "relmc.scenario",
    "Category": "relmc.scenario",
    "FailureModel": "relmc.scenario",
    "Job": "relmc.scenario",
    "Policy": "relmc.scenario",
    "spread_of_range": "relmc.scenario",
    "simulate": "relmc.sim.simulate",
    "Precision": "relmc.sim.simulate",
    "summarize": "relmc.summary",
    "project": "relmc.projection",
    "compare": "relmc.comparison",
    "optimize_checkpoint": "relmc.optimize",
}
_SUBMODULES = {
    "analytic",
    "cluster",
    "comparison",
    "datasets",
    "defaults",
    "errors",
    "events",
    "models",
    "optimize",
    "overheads",
    "plots",
    "projection",
    "rates",
    "scenario",
    "sim",
    "summary",
    "sweep",
}

__all__ = sorted([*_LAZY, "__version__"])


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"relmc.{name}")
    raise AttributeError(f"module 'relmc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_SUBMODULES])
