"""Golden digests of the renewal path with planned maintenance (issue 10).

The renewal path takes a buffer's failures and planned events in one pass where the block
reduction's bounds allow (``_block_planned``; before, each planned event was a pass of its
own and went through the loop one by one). The passes are cut so that every check near the
cap sees the stretches it saw before, and each event's arithmetic is the loop's, so no
output may move. This script simulates scenarios that take that path (Llama 3's default at
2,048 GPUs over 54 days, ~1.1 failures per planned event, and at 16,384 GPUs; planned events
as frequent as failures with a persist, passes cut short by the job's end over most of
it; ~10 failures per planned event, with the categories settled early near the cap, which
about half the trials reach; restarts long enough that planned events fall in them,
snapshots durable at once) with fixed seeds, and writes a
SHA-256 digest of each output array to ``renewal_planned.json``. The JSON committed beside
it was written by running this script on the code before those passes (commit 59eb115)::

    cd /path/to/checkout-at-59eb115 && python -c "import sys; sys.path.insert(0, \
        '/path/to/this/tests/golden'); import renewal_planned as g; g.main()"

(run from the old checkout, so that its ``relmc`` is imported before an installed one), and
``tests/test_fast_paths.py`` recomputes the digests with the current code. Digests are of
float64/int32 bytes on x86-64 (no libm call on this path but ``log1p`` and ``ceil``).
"""

from __future__ import annotations

from pathlib import Path

from node_model_off import digests, write

HERE = Path(__file__).resolve().parent
OUT = HERE / "renewal_planned.json"


def scenarios() -> dict:
    """Name -> (scenario, n_trials, seed)."""
    import dataclasses

    from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario

    llama = Scenario.default()
    cats = (
        Category("gpu", rate=3e-4, unit="gpu", recovery="swap"),
        Category("node", rate=1e-3, unit="node", recovery="swap", detection_hours=0.05),
        Category("hang", rate=2e-4, unit="gpu", detection_hours=1 / 6),
        Category("bug", rate=0.3, unit="job"),
    )
    policy = Policy(
        checkpoint_interval=0.5,
        snapshot_hours=1 / 60,
        persist_hours=0.2,
        restart_hours=1 / 6,
        swap_hours=0.25,
    )
    return {
        "llama3_default_2k": (
            dataclasses.replace(llama, cluster=Cluster(n_gpus=2_048), job=Job(54 * 24.0)),
            256,
            21,
        ),
        "llama3_default_16k": (
            dataclasses.replace(llama, cluster=Cluster(n_gpus=16_384), job=Job(400.0)),
            256,
            22,
        ),
        # ~1.5 failures an hour and as many planned events, a persist of 0.2 h: the passes
        # through planned events are cut short of the buffer's end over most of the job
        "frequent": (
            Scenario(
                cluster=Cluster(n_gpus=1024),
                failures=FailureModel(cats, maintenance_rate=1.5, maintenance_hours=0.25),
                job=Job(100.3),
                policy=policy,
            ),
            256,
            23,
        ),
        # ~10 failures per planned event and a cap of four times the job, which about half
        # the trials reach: the categories are settled early near the cap, at a pass's start
        "settled_near_cap": (
            Scenario(
                cluster=Cluster(n_gpus=2048),
                failures=FailureModel(cats, maintenance_rate=0.15, maintenance_hours=0.5),
                job=Job(60.0),
                policy=dataclasses.replace(policy, wall_cap_factor=4.0),
            ),
            256,
            24,
        ),
        # restarts of 0.6 h, snapshots durable at once: planned events during restarts
        "long_restarts": (
            Scenario(
                cluster=Cluster(n_gpus=1024),
                failures=FailureModel(
                    (Category("all", rate=1.2, unit="job"),),
                    maintenance_rate=0.8,
                    maintenance_hours=0.1,
                ),
                job=Job(150.0),
                policy=Policy(checkpoint_interval=0.5, snapshot_hours=0.05, restart_hours=0.6),
            ),
            256,
            25,
        ),
    }


def compute() -> dict[str, dict[str, str]]:
    """Digests of every scenario, simulated on one thread."""
    from relmc.sim.simulate import simulate

    return {
        name: digests(simulate(sc, n_trials=n, seed=seed, n_threads=1))
        for name, (sc, n, seed) in scenarios().items()
    }


def main() -> None:
    write(OUT, compute())


if __name__ == "__main__":
    main()
