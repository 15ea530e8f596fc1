"""Bayesian failure-rate models; every fit returns an :class:`arviz.InferenceData`.

- :func:`fit_conjugate`: independent Gamma-Poisson per category, exact draws (milliseconds).
- :func:`fit_hierarchical`: partial pooling across categories on a unit-free scale (PyMC).
- :func:`fit_fleets`: several fleets, shared category rates times a fleet multiplier (PyMC).
- :func:`fit_scaling`: a category's job-level rate as a power of its units, from job MTTFs
  observed at several sizes (exact grid draws of the exponent).
- :func:`fit_events`: an event log, with diurnal, trend and per-node (lemon) terms (PyMC);
  :func:`compare_event_models` ranks such fits by PSIS-LOO.
- :func:`population_check`: each category's count of a pooled fit against the population of
  the others (leave one out); :func:`predictive_check`: each observed count against the
  fit's own replicates (in sample).

Every fit returns ``posterior["rate"]`` (chain, draw, category) in events per unit-hour of the
data's exposure, with ``unit`` and ``group`` coordinates along ``category``; MCMC fits warn with
:class:`ConvergenceWarning` when r_hat > 1.01, bulk ESS < 100 per chain, or NUTS diverged.
"""

from relmc.models._common import ConvergenceWarning, import_arviz, import_pymc
from relmc.models.check import population_check, predictive_check
from relmc.models.conjugate import JEFFREYS, fit_conjugate, total_jeffreys
from relmc.models.events import compare_event_models, fit_events
from relmc.models.fleets import fit_fleets
from relmc.models.hierarchical import fit_hierarchical
from relmc.models.scaling import fit_scaling

__all__ = [
    "JEFFREYS",
    "ConvergenceWarning",
    "compare_event_models",
    "fit_conjugate",
    "fit_events",
    "fit_fleets",
    "fit_hierarchical",
    "fit_scaling",
    "import_arviz",
    "import_pymc",
    "population_check",
    "predictive_check",
    "total_jeffreys",
]
