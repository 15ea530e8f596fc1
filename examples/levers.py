"""What is each operator lever worth? Lemon detection, faster hang diagnosis, standbys, spares,
in-memory checkpoints, measured on paired trials at 16,384 and 100,000 GPUs.

Failure rates: Llama 3 405B's fitted posterior (Table 5 counts). Everything about nodes below
is an ASSUMPTION for illustration, taken where possible from AIReSim's published defaults
(its `Params`, arXiv 2603.07041: 15% bad servers failing 5x as often, automated repair 2 h
escalating to a 48 h manual repair with probability 0.8, each still leaving a bad server bad
with probability 0.4 and 0.2, a 20-minute preemption from the shared spare pool, 16 warm
standbys and a spare pool of about 5% of the job's nodes):

* baseline: the above, hangs (NCCL watchdog timeouts, switch/cable faults) seen after the
  10-minute NCCL timeout, then 30 minutes of diagnosis; a ToR switch/cable fault takes its rack
  (2 nodes; assumed), which goes to repair whole, and an NCCL timeout's diagnosis blames the
  wrong node 20% of the time (assumed; only a node-domain category blames a node);
* lemon detection: exclude a node blamed for 2 failures within 7 days (Meta's RSC lemon
  detection cut large-job failures from 14% to 4%, SOURCES.md §2.4; its rule is not published);
* hang diagnosis 5 min: what a collective flight recorder buys (assumed: 5 minutes, 2% of
  NCCL timeouts blamed on the wrong node);
* 64 standbys: four times the baseline's warm standbys;
* 2x spares: twice the shared pool;
* memory restore: restarts read the last checkpoint from peers' memory (2 replicas) in 1/13
  of the restart time when no more than 2 nodes were lost since it (GEMINI reports 13x faster
  recovery, SOURCES.md §3);
* stragglers: the baseline plus one straggler a day per 2,048 nodes, slowing the job to half
  speed for an hour before its node is found and swapped (assumed, as in time_varying.py),
  bad nodes straggling 5x as often as good ones; then the same with lemon detection, which
  counts a straggler against its node like a failure.

Each lever's gain is the per-trial ETTR difference from the baseline on paired trials (same
root seed; trial i uses posterior draw i % n_draws under every policy).
"""

import dataclasses
import os

import numpy as np

import relmc
from relmc.scenario import replace_path

QUICK = os.environ.get("RELMC_EXAMPLE_QUICK") == "1"  # fewer trials, for tests
N_TRIALS = 64 if QUICK else 1000
SEED = 20241129
HANGS = ("NCCL Watchdog Timeouts", "Network Switch/Cable")
NODE_HANGS = HANGS[:1]  # the switch/cable fault takes a rack: no node is blamed for it

data = relmc.load_dataset("llama3-405b")
posterior = relmc.fit_conjugate(data, seed=1)
failures = relmc.FailureModel.from_posterior(posterior)


def baseline(n_gpus: int) -> relmc.Scenario:
    """The AIReSim-like node model at ``n_gpus`` (spare pool ~5% of the job's nodes)."""
    sc = relmc.Scenario(failures=failures, cluster=relmc.Cluster(n_gpus=n_gpus))
    settings = {
        "failures.bad_node_fraction": 0.15,
        "failures.bad_node_multiplier": 5.0,
        "failures.categories.Network Switch/Cable.domain": "rack",
        "policy.n_spares": round(0.05 * n_gpus / 8),
        "policy.n_standbys": 16,
        "policy.preemption_hours": 20 / 60,
        "policy.repair_hours": 2.0,
        "policy.escalation_probability": 0.8,
        "policy.manual_repair_hours": 48.0,
        "policy.auto_repair_miss": 0.4,
        "policy.manual_repair_miss": 0.2,
    }
    for name in HANGS:
        settings[f"failures.categories.{name}.diagnosis_hours"] = 0.5
    for name in NODE_HANGS:
        settings[f"failures.categories.{name}.wrong_blame"] = 0.2
    for path, value in settings.items():
        sc = replace_path(sc, path, value)
    return sc


def levers(base: relmc.Scenario) -> dict[str, relmc.Scenario]:
    """The baseline and one scenario per lever."""
    fast = base
    for name in HANGS:
        fast = replace_path(fast, f"failures.categories.{name}.diagnosis_hours", 5 / 60)
    for name in NODE_HANGS:
        fast = replace_path(fast, f"failures.categories.{name}.wrong_blame", 0.02)
    memory = replace_path(base, "policy.memory_restart_hours", base.policy.restart_hours / 13)
    straggler = relmc.Category(
        "Straggler",
        rate=1.0 / (24.0 * 2048),  # per node-hour: one a day on 2,048 nodes (assumed)
        unit="node",
        kind="straggler",
        straggler_speed=0.5,
        detection_hours=1.0,
        recovery="swap",
    )
    cats = (*base.failures.categories, straggler)
    slow = dataclasses.replace(base, failures=dataclasses.replace(base.failures, categories=cats))
    return {
        "baseline (AIReSim-like nodes)": base,
        "lemon detection (2 in 7 days)": lemons(base),
        "hang diagnosis 5 min": fast,
        "64 standbys": replace_path(base, "policy.n_standbys", 64),
        "2x spares": replace_path(base, "policy.n_spares", 2 * base.policy.n_spares),
        "memory restore": replace_path(memory, "policy.memory_replicas", 2),
        "stragglers": slow,
        "stragglers, lemon detection": lemons(slow),
    }


def lemons(sc: relmc.Scenario) -> relmc.Scenario:
    """``sc`` excluding a node blamed for 2 failures (or stragglers) within 7 days."""
    return replace_path(
        replace_path(sc, "policy.lemon_failures", 2), "policy.lemon_window_hours", 168.0
    )


print(f"54-day job, {N_TRIALS} paired trials per policy; medians with [5%, 95%] bands")
for n_gpus in (16_384, 100_000):
    result = relmc.compare(
        levers(baseline(n_gpus)), posterior=posterior, n_trials=N_TRIALS, seed=SEED
    )
    q = list(result["quantile"].values)
    lo, med, hi = (q.index(v) for v in (0.05, 0.5, 0.95))
    print(f"\n{n_gpus:,} GPUs")
    print(f"{'policy':<32} {'ETTR':>22} {'gain vs baseline':>24} {'finished':>9}")
    for name in result["scenario"].values:
        r = result.sel(scenario=name)
        e = r["ettr_quantile"].values
        g = r["gain_quantile"].values
        print(
            f"{name:<32} {e[med]:>7.3f} [{e[lo]:.3f}, {e[hi]:.3f}] "
            f"{g[med]:>+8.3f} [{g[lo]:+.3f}, {g[hi]:+.3f}] "
            f"{float(r['finished_fraction']):>9.2f}"
        )
    assert np.all(np.isfinite(result["ettr_quantile"].values))
