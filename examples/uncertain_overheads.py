"""What does not knowing the overheads do to a projection?

Projects Llama 3 405B's fitted failure rates to 16,384 and 100,000 GPUs with four states of
knowledge about the recovery overheads, and prints per size the median ETTR, the 90%
credible interval of the expected ETTR (what is known about the system) and the 90%
predictive interval of one job (that plus the job's own luck):

* ``known``: the reference policy taken as exact (10-minute restarts, 1-minute snapshots,
  10-minute watchdog on hangs);
* ``restart 5-20 min``: Meta's RSC clusters report restart overheads of 5-20 minutes; read
  as the 90% range of an unknown but fixed restart time (median 10 min, range factor 2),
  one value per posterior draw (``Policy.restart_spread``);
* ``+ per-event jitter``: on top, every restart and detection varies from one event to the
  next (range factors 1.5 and 2: ASSUMED values to show the lever's size; the node swap is
  0 here, as in the reference policy, so a jitter on it would multiply 0);
* ``restart grows with N``: the restart's median grows as ``(N / 4096) ** 0.2`` from 10
  minutes at 4,096 GPUs (``relmc.overheads.restart_hours``; the exponent is an ASSUMPTION,
  no published number gives it), still with the 5-20 minute spread.

Overhead uncertainty per draw widens the credible interval (it is uncertainty about the
system); per-event jitter mostly moves the mean (restarts that last longer are also more
often interrupted) and barely widens either band, because it averages out over the
hundreds of events of a 54-day job.
"""

import os
import warnings

import relmc
from relmc import overheads
from relmc.errors import NotFinishedWarning
from relmc.scenario import replace_path

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials, for tests
N_TRIALS = 256 if QUICK else 2000
SEED = 20241130
SIZES = (16_384, 100_000)

data = relmc.load_dataset("llama3-405b")
posterior = relmc.fit_conjugate(data, seed=1)
base = relmc.Scenario(failures=relmc.FailureModel.from_posterior(posterior))

median, k = relmc.spread_of_range(5 / 60, 20 / 60)  # RSC: 5-20 minutes
rsc = replace_path(replace_path(base, "policy.restart_hours", median), "policy.restart_spread", k)
jitter = rsc
for path, value in (("restart_jitter", 1.5), ("detection_jitter", 2.0)):
    jitter = replace_path(jitter, f"policy.{path}", value)
scenarios = {
    "known": base,
    "restart 5-20 min (RSC), per draw": rsc,
    "+ per-event jitter (assumed)": jitter,
}

print(f"54-day job, {N_TRIALS} trials per size; ETTR median, 90% credible, 90% predictive")
print(f"{'overheads':<36} {'GPUs':>8} {'median':>7} {'credible':>16} {'predictive':>16}")


def show(name, n_gpus, sc):
    with warnings.catch_warnings():  # a few trials may hit the wall cap: said below instead
        warnings.simplefilter("ignore", NotFinishedWarning)
        res = relmc.project(
            posterior, n_gpus=[n_gpus], scenario=sc, n_trials=N_TRIALS, seed=SEED, progress=False
        )
    q = res["ettr_quantile"].sel(n_gpus=n_gpus)
    c = res["ettr_credible"].sel(n_gpus=n_gpus)
    med = float(q.sel(quantile=0.5))
    cred = f"[{float(c.sel(quantile=0.05)):.3f}, {float(c.sel(quantile=0.95)):.3f}]"
    pred = f"[{float(q.sel(quantile=0.05)):.3f}, {float(q.sel(quantile=0.95)):.3f}]"
    unfinished = 1.0 - float(res["finished_fraction"].sel(n_gpus=n_gpus))
    note = f"  ({100 * unfinished:.2f}% hit the wall cap)" if unfinished > 0 else ""
    print(f"{name:<36} {n_gpus:>8,} {med:>7.3f} {cred:>16} {pred:>16}{note}")


for n_gpus in SIZES:
    for name, sc in scenarios.items():
        show(name, n_gpus, sc)
    grown = overheads.restart_hours(n_gpus, exponent=0.2)  # an Assumption, in hours
    show(
        "restart grows with N (assumed)",
        n_gpus,
        replace_path(rsc, "policy.restart_hours", grown.value),
    )
    print(f"  {grown}")
