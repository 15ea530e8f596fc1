"""Golden digests of simulation outputs with the node model off (issue 12).

With every node feature off the kernel must produce, bit for bit, what it produced before the
node model existed. This script simulates a few named scenarios (the Daly configuration, the
renewal path with categories, the 18 Llama 3 categories with planned maintenance and latencies,
a finite spare pool, diurnal rates with a trend and a throughput cycle) with fixed seeds and
writes a SHA-256 digest of each output array to ``node_model_off.json``. The JSON committed
beside it was written by running this script on the code before the node model::

    PYTHONPATH=/path/to/checkout-before-issue-12 python tests/golden/node_model_off.py

and ``tests/test_nodes_kernel.py`` recomputes the digests with the current code. Only outputs
that existed before are digested; ``lost_hours`` is cut to its first eight causes (the two
new causes must be zero, which the test checks apart). Digests are of float64/int32 bytes on
x86-64 with glibc's libm (the diurnal scenario calls cos, sin, expm1 and log1p).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "node_model_off.json"
N_OLD_CAUSES = 8  # rework .. slowdown: the causes before the node model


def scenarios() -> dict:
    """Name -> (scenario, n_trials, seed). Only API that predates the node model."""
    import dataclasses

    from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario

    llama = Scenario.default()
    llama = dataclasses.replace(
        llama,
        cluster=Cluster(n_gpus=16_384),
        job=Job(200.0),
        policy=Policy(persist_hours=0.05, swap_hours=0.25, restart_hours=0.15),
    )
    cats = (
        Category("gpu", rate=3e-4, unit="gpu", recovery="swap"),
        Category("node", rate=1e-3, unit="node", recovery="swap", detection_hours=0.05),
        Category("hang", rate=2e-4, unit="gpu", detection_hours=1 / 6),
        Category("bug", rate=0.3, unit="job"),
    )
    diurnal = (
        Category(
            "gpu",
            rate=2e-4,
            unit="gpu",
            recovery="swap",
            diurnal_amplitude=0.5,
            diurnal_peak_hour=15.0,
        ),  # fmt: skip
        Category("bug", rate=0.1, unit="job", diurnal_amplitude=0.2, diurnal_peak_hour=3.0),
    )
    return {
        "daly": (
            Scenario(
                cluster=Cluster(n_gpus=1024),
                failures=FailureModel((Category("all", rate=1.5, unit="job"),)),
                job=Job(200.0),
                policy=Policy(checkpoint_interval=0.5, snapshot_hours=0.05, restart_hours=0.2),
            ),
            512,
            11,
        ),
        "renewal_categories": (
            Scenario(
                cluster=Cluster(n_gpus=1024),
                failures=FailureModel(cats),
                job=Job(100.0),
                policy=Policy(persist_hours=0.1, swap_hours=0.25, restart_hours=0.2),
            ),
            512,
            12,
        ),
        "llama3_maintenance": (llama, 512, 13),
        "finite_spares": (
            dataclasses.replace(
                llama,
                policy=dataclasses.replace(llama.policy, n_spares=8, repair_hours=24.0),
            ),
            512,
            14,
        ),
        "diurnal_trend_speed": (
            Scenario(
                cluster=Cluster(n_gpus=2048),
                failures=FailureModel(
                    diurnal,
                    maintenance_rate=0.02,
                    maintenance_hours=0.5,
                    trend_shape=0.7,
                    fleet_age_hours=500.0,
                ),  # fmt: skip
                job=Job(
                    150.0, start_hour=5.0, throughput_amplitude=0.02, throughput_peak_hour=4.0
                ),  # fmt: skip
                policy=Policy(n_spares=4, repair_hours=10.0, swap_hours=0.1),
            ),
            512,
            15,
        ),
    }


def digests(ds) -> dict[str, str]:
    """SHA-256 of each pre-node-model output of a ``simulate`` result."""
    out = {}
    for name in (
        "wall_hours",
        "ettr",
        "finished",
        "progress_hours",
        "interruptions",
        "maintenance_events",
        "events",
        "power_swings",
        "lost_hours",
    ):
        a = ds[name].values
        if name == "lost_hours":
            a = a[:, :N_OLD_CAUSES]
        out[name] = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
    return out


# Scenarios that a faster kernel path has taken over since the digests were made (issue 10:
# the renewal path handles planned maintenance with unlimited spares). The same process with
# other draws, so their digests hold only for the path they took then, the general path:
# ``simulate_as_made`` runs them on it, with the blocks and seeds ``simulate`` gives it.
ON_GENERAL_PATH = ("llama3_maintenance",)


def _general_path_block(rng, *args):
    """``simulate_block``'s call, made on the general path (the arguments it names).

    The outputs the general path does not write (the node model's and SDC's, after
    ``swings``) are set as ``simulate_block`` sets them: 0, and NaN pool occupancy.
    """
    import inspect

    from relmc.sim import _kernels
    from relmc.sim.inputs import KERNEL_PARAMETERS

    named = dict(zip(KERNEL_PARAMETERS[1:], args, strict=True))
    params = inspect.signature(_kernels._block_general.py_func).parameters
    _kernels._block_general(rng, *(named[p] for p in list(params)[1:]))
    for p in KERNEL_PARAMETERS[KERNEL_PARAMETERS.index("swings") + 1 :]:
        named[p][:] = np.nan if p == "pool_occupancy" else 0


def simulate_as_made(name: str, scenario, **kwargs):
    """``simulate(scenario, **kwargs)`` on the path the digest of ``name`` was made with."""
    import relmc.sim.simulate as sim

    if name not in ON_GENERAL_PATH:
        return sim.simulate(scenario, **kwargs)
    kept = sim.simulate_block
    sim.simulate_block = _general_path_block
    try:
        return sim.simulate(scenario, **kwargs)
    finally:
        sim.simulate_block = kept


def compute() -> dict[str, dict[str, str]]:
    """Digests of every scenario, simulated on one thread."""
    return {
        name: digests(simulate_as_made(name, sc, n_trials=n, seed=seed, n_threads=1))
        for name, (sc, n, seed) in scenarios().items()
    }


def write(out: Path, computed: dict[str, dict[str, str]]) -> None:
    """Write digests to ``out`` with the commit of the ``relmc`` that computed them."""
    import relmc

    src = Path(relmc.__file__).resolve().parent.parent
    commit = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    data = {"made_with_commit": commit, "digests": computed}
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out} from {src} at {commit}", file=sys.stderr)


def main() -> None:
    write(OUT, compute())


if __name__ == "__main__":
    main()
