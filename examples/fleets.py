"""Several fleets at once: Llama 3's root causes with the totals Meta's RSC clusters publish.

Llama 3 405B reports its 419 unexpected interruptions by root cause; Meta's RSC-1 (16k A100
GPUs) and RSC-2 (8k) report only a failure rate per node-day over 11 months (bundled as
``rsc-1`` and ``rsc-2``, with the exposure they assume stated in their provenance:
``relmc datasets rsc-1``). :func:`relmc.fit_fleets` fits them together: shared category rates
times a log-normal multiplier per fleet, whose spread (``sigma``) says how much fleets differ.

The script prints:

* each fleet's multiplier against Llama 3 and ``sigma``, median [90%] (each fleet's total
  sets its own multiplier, so the fit reproduces every total: a check of the model's fit to
  them would pass whatever they were; the spread between fleets is what it learns);
* the job MTTF (``1/Lambda(N)``) and the credible interval of the expected ETTR at 16,384 and
  100,000 GPUs for Llama 3 alone (its conjugate fit) and for *a new fleet* drawn from the
  fleets' spread: what a cluster not yet observed should plan for.

The new fleet's bands are far wider than Llama 3's own: with three fleets whose failure rates
per GPU differ by up to ~3x (RSC counts every job failure on a node, Llama 3 one job's
interruptions; the multiplier absorbs such differences of definition and hardware), which
fleet a new cluster resembles is the largest uncertainty, larger than Llama 3's counts leave
about its own rates.
"""

import os
import warnings

import numpy as np

import relmc
from relmc.errors import NotFinishedWarning

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # a shorter fit and fewer trials, for tests
N_DRAWS, N_TUNE = (500, 500) if QUICK else (1000, 1000)
N_TRIALS = 400 if QUICK else 2000
SIZES = [16_384, 100_000]

data = {name: relmc.load_dataset(name) for name in ("llama3-405b", "rsc-1", "rsc-2")}
fit = relmc.fit_fleets(data, n_draws=N_DRAWS, n_tune=N_TUNE, seed=1)
post = fit.posterior


def band(da, digits=3):
    lo, med, hi = np.quantile(np.asarray(da).ravel(), [0.05, 0.5, 0.95])
    return f"{med:.{digits}g} [{lo:.{digits}g}, {hi:.{digits}g}]"


print("fleet multipliers on the shared category rates (against llama3-405b), median [90%]:")
for name in post["fleet"].values[1:]:
    print(f"  {name}: {band(post['fleet_multiplier'].sel(fleet=name))}")
print(f"  sigma (sd of log multipliers): {band(post['sigma'])}")


llama = relmc.fit_conjugate(data["llama3-405b"], seed=1)
print(f"\n54-day job, {N_TRIALS} trials per size; MTTF h and expected ETTR, median [90% credible]")
for label, source in (("Llama 3 alone", llama), ("a new fleet", fit)):
    with warnings.catch_warnings():
        # a new fleet as failure-prone as the spread allows has jobs that hit the wall-clock
        # cap: their ETTR is a bound (the share is printed below)
        warnings.simplefilter("ignore", NotFinishedWarning)
        proj = relmc.project(source, n_gpus=SIZES, n_trials=N_TRIALS, seed=2)
    for n in SIZES:
        row = proj.sel(n_gpus=n)
        mttf = row["mttf_hours_quantile"].sel(quantile=[0.05, 0.5, 0.95]).values
        ettr = row["ettr_credible"].sel(quantile=[0.05, 0.5, 0.95]).values
        capped = 1.0 - float(row["finished_fraction"])
        print(
            f"  {label:<14} {n:>7,} GPUs: MTTF {mttf[1]:.3g} h [{mttf[0]:.3g}, {mttf[2]:.3g}], "
            f"E[ETTR] {ettr[1]:.3f} [{ettr[0]:.3f}, {ettr[2]:.3f}]"
            + (f" ({100 * capped:.2g}% of jobs stopped by the wall cap)" if capped else "")
        )
