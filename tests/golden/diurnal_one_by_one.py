"""Golden digests of the diurnal path's outputs where it takes failures one by one (issue 11).

The diurnal path's blocks (no per-draw shapes, recoveries mostly instantaneous and not too
long, planned maintenance off or at least ``_DIURNAL_PLANNED_RATIO`` failures per planned
event) read the random gaps as one process thinned by the recoveries; every other diurnal
scenario keeps the per-failure loop, whose outputs must not move when the blocks change.
This script simulates such scenarios (different peak hours per category with a recovery too
long for blocks, and planned maintenance; one shape with recoveries that cost time on 60 % of
the rate, without and with planned maintenance; Llama 3 at 2k GPUs with planned maintenance
six times as frequent as Llama 3's, 0.19 failures per planned event) with fixed seeds and
writes a SHA-256 digest
of each output array to ``diurnal_one_by_one.json``. The JSON committed beside it was
written by running this script on the code before the blocks thinned (commit 07ff0e6)::

    PYTHONPATH=/path/to/checkout-at-07ff0e6 python tests/golden/diurnal_one_by_one.py

and ``tests/test_diurnal_block.py`` recomputes the digests with the current code. Digests are
of float64/int32 bytes on x86-64 with glibc's libm.

Since the loop one by one solves from the table of the inverse of ``u + e sin u`` where every
category has one shape (``_solve_one``), the failure times of the one-shape scenarios then
present move within the solve's tolerance: their ``wall_hours`` and ``lost_hours`` (against
07ff0e6's code: at most 2.5e-13 relative; every other output, and every output of the
scenario with different peak hours, equal bit for bit). Those digests are kept apart under
``moved`` in the JSON, written by::

    python tests/golden/diurnal_one_by_one.py --moved "NOTE"

which keeps ``digests`` as they are and records what differs from them now; and the moved
outputs' values as 07ff0e6's code gives them are kept in ``diurnal_one_by_one_moved.npz``
(written by ``--arrays`` on a checkout that reproduces ``digests``, here 47c261a), so the
test checks the moved arrays against them (within 1e-12 relative), not only against digests
the moving code wrote.

When blocks began to run between planned events (the commit after 467f59c), the two
maintenance scenarios of 07ff0e6 (Llama 3 at 16k GPUs, 10.6 failures per planned event;
one shape, 52) left the loop for blocks, their streams moving (held to the general path and
the reference oracle in distribution by tests/test_diurnal_block.py and
tests/test_diurnal_path.py), and were dropped here, with their moved arrays. The two that
replace them stay on the loop; their digests were written by 467f59c's code (the loop with
the table's step, before blocks took planned maintenance)::

    PYTHONPATH=/path/to/checkout-at-467f59c python tests/golden/diurnal_one_by_one.py --add \
        llama3_maintenance_2k one_shape_frequent_maintenance

When blocks began to take categories of different shapes (each failure's category drawn at
its phase, the commit after eab2ddc), 07ff0e6's ``peak_hours`` (different peak hours,
recoveries costing time on 15 % of the rate) left the loop for blocks and was dropped; the
scenario that replaces it has the same categories with planned maintenance too frequent for
blocks (2.6 failures an hour against 0.5 planned events), and stays on the loop; its digests
were written by eab2ddc's code::

    PYTHONPATH=/path/to/checkout-at-eab2ddc python tests/golden/diurnal_one_by_one.py --add \
        peak_hours_frequent_maintenance

When the pick of a category at a failure's phase became an inversion (one uniform a failure,
where it had been a rejection from alias proposals: e03f3dc), that
scenario's categories were drawn from other random numbers and its outputs moved (held to the
general path and the reference oracle in distribution by tests/test_diurnal_path.py and the
pick to the model's shares by tests/test_diurnal_block.py); its digests were rewritten by that
commit's code with ``--add peak_hours_frequent_maintenance``. The other scenarios have one
shape and do not pick at a phase: unmoved.

When the loop one by one began to solve from the table with categories of different shapes
too (the summed intensity is one cosine, ``L + A cos``, whose amplitude ``A / L`` has a table
for point rates, built once a run by ``KernelInputs``), that scenario's failure times moved
within the solve's tolerance: its ``wall_hours`` and ``lost_hours`` (at most 7.7e-15
relative against cebebf1's code; every other output equal bit for bit). It joined
``MOVED_SCENARIOS``; its moved digests were recorded by ``--moved`` and the values cebebf1's
code gives (that code reproduces its digests in ``digests``) added to
``diurnal_one_by_one_moved.npz`` beside the others.

When blocks began to run through planned events down to ``_DIURNAL_PLANNED_RATIO`` (0.25)
failures per planned event (they had needed ``_DIURNAL_BLOCK_MIN``, 8: the commit after
da1754c), the three maintenance scenarios then here left the loop for blocks, their streams
moving (held to the general path and the oracle in distribution, and to the loop trial by
trial, by tests/test_diurnal_block.py and tests/test_diurnal_path.py), and were dropped, with
``peak_hours_frequent_maintenance``'s moved digests and arrays: ``llama3_maintenance_2k``
(1.2 failures per planned event), ``one_shape_frequent_maintenance`` and
``peak_hours_frequent_maintenance`` (5.2). The three that replace them stay on the loop (each
takes no block: tests/test_diurnal_block.py asserts it); their digests were written by
da1754c's code, the loop as it was (66295cd's, before the loop's planned-event test by bounds,
gives the same, as does the current code)::

    cd /path/to/checkout-at-da1754c && python -c "import sys; sys.path.insert(0, \
        '/path/to/this/tests/golden'); import diurnal_one_by_one as g; \
        sys.exit(g.main(['--add', 'peak_hours_long_recoveries_maintenance', \
        'llama3_frequent_maintenance_2k', 'costly_60pct_maintenance']))"

(run from the old checkout, so that its ``relmc`` is imported before an installed one).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "diurnal_one_by_one.json"
ARRAYS = HERE / "diurnal_one_by_one_moved.npz"
# the scenarios whose failure times the table's step moved (one diurnal shape; different
# peak hours since the step serves them too), and the outputs that moved
MOVED_SCENARIOS = ("costly_60pct",)
MOVED = ("wall_hours", "lost_hours")


def scenarios() -> dict:
    """Name -> (scenario, n_trials, seed)."""
    import dataclasses

    from relmc.scenario import Category, Cluster, FailureModel, Job, Policy, Scenario

    policy = Policy(checkpoint_interval=0.5, snapshot_hours=1 / 60, restart_hours=0.1)
    peaks = (
        Category("gpu", rate=1.2, unit="job", recovery="swap", diurnal_amplitude=0.5,
                 diurnal_peak_hour=15.0),
        Category("hang", rate=0.4, unit="job", detection_hours=1 / 6, diurnal_amplitude=0.8,
                 diurnal_peak_hour=3.0),
        Category("bug", rate=1.0, unit="job", diurnal_amplitude=0.3, diurnal_peak_hour=9.0),
    )  # fmt: skip
    llama = Scenario.default()
    llama = dataclasses.replace(
        llama,
        cluster=Cluster(n_gpus=2_048),
        job=Job(200.0, start_hour=7.0),
        failures=dataclasses.replace(
            llama.failures,
            categories=tuple(
                dataclasses.replace(c, diurnal_amplitude=0.5, diurnal_peak_hour=14.0)
                for c in llama.failures.categories
            ),
        ),
    )
    costly = (
        Category("bug", rate=1.0, unit="job", diurnal_amplitude=0.5, diurnal_peak_hour=14.0),
        Category("hang", rate=1.5, unit="job", detection_hours=0.2, diurnal_amplitude=0.5,
                 diurnal_peak_hour=14.0),
    )  # fmt: skip
    cluster = Cluster(n_gpus=1024)
    long_recoveries = tuple(
        dataclasses.replace(c, detection_hours=3.0) if c.name == "hang" else c for c in peaks
    )
    llama_frequent = dataclasses.replace(
        llama,
        failures=dataclasses.replace(
            llama.failures, maintenance_rate=6.0 * llama.failures.maintenance_rate
        ),
    )
    return {
        "peak_hours_long_recoveries_maintenance": (
            Scenario(
                cluster=cluster,
                failures=FailureModel(long_recoveries, maintenance_rate=0.5, maintenance_hours=0.5),
                job=Job(60.0),
                policy=policy,
            ),
            384,
            26,
        ),
        "llama3_frequent_maintenance_2k": (llama_frequent, 256, 27),
        "costly_60pct_maintenance": (
            Scenario(
                cluster=cluster,
                failures=FailureModel(costly, maintenance_rate=0.5, maintenance_hours=0.5),
                job=Job(60.0),
                policy=policy,
            ),
            384,
            28,
        ),
        "costly_60pct": (
            Scenario(cluster=cluster, failures=FailureModel(costly), job=Job(60.0), policy=policy),
            384,
            24,
        ),
    }


@functools.cache
def _simulated() -> dict:
    """Each scenario's simulated Dataset (``relmc.simulate``, one thread).

    Kept for the process: the test reads the digests (:func:`compute`) and the moved arrays
    (:func:`moved_arrays`) of one simulation.
    """
    from relmc.sim.simulate import simulate

    return {
        name: simulate(sc, n_trials=n, seed=seed, n_threads=1)
        for name, (sc, n, seed) in scenarios().items()
    }


def _digests(datasets: dict) -> dict[str, dict[str, str]]:
    sys.path.insert(0, str(HERE.parent))
    try:
        from kernelcheck import TIMELINE  # the outputs every kernel path writes
    finally:
        sys.path.remove(str(HERE.parent))
    return {
        name: {
            v: hashlib.sha256(np.ascontiguousarray(ds[v].values).tobytes()).hexdigest()
            for v in TIMELINE
        }
        for name, ds in datasets.items()
    }


def compute() -> dict[str, dict[str, str]]:
    """Each scenario's output digests (``relmc.simulate``, one thread)."""
    return _digests(_simulated())


def moved_arrays(datasets: dict | None = None) -> dict[str, np.ndarray]:
    """The moved outputs (``MOVED``) of the scenarios that have them, keyed ``scenario/output``."""
    datasets = _simulated() if datasets is None else datasets
    return {f"{s}/{v}": np.asarray(datasets[s][v].values) for s in MOVED_SCENARIOS for v in MOVED}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--moved",
        metavar="NOTE",
        help="keep the JSON's digests; record the current code's that differ, with NOTE",
    )
    mode.add_argument(
        "--add",
        nargs="+",
        metavar="SCENARIO",
        help="add these scenarios' digests (this code's) to the JSON, the others kept",
    )
    mode.add_argument(
        "--arrays",
        action="store_true",
        help=f"write the moved outputs' values to {ARRAYS.name} (only on code whose digests "
        "are the JSON's first ones)",
    )
    args = ap.parse_args(argv)
    if args.moved is not None and not args.moved.strip():
        ap.error("--moved: the note must say what moved and why")
    datasets = _simulated()
    now = _digests(datasets)
    if args.arrays:
        gold = json.loads(OUT.read_text())["digests"]
        if now != gold:
            ap.error("--arrays: this code does not reproduce the JSON's digests")
        np.savez_compressed(ARRAYS, **moved_arrays(datasets))
        print("wrote", ARRAYS)
        return 0
    if args.add:
        data = json.loads(OUT.read_text())
        unknown = sorted(set(args.add) - set(now))
        if unknown:
            ap.error(f"--add: no such scenario: {', '.join(unknown)}")
        for name in args.add:
            data["digests"][name] = now[name]
        OUT.write_text(json.dumps(data, indent=1) + "\n")
        print("wrote", OUT)
        return 0
    if args.moved is not None:
        data = json.loads(OUT.read_text())
        gold = data["digests"]
        moved = {s: {v: d for v, d in now[s].items() if d != gold[s][v]} for s in gold}
        data["moved"] = {"note": args.moved, "digests": {s: m for s, m in moved.items() if m}}
    else:
        data = {"digests": now}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print("wrote", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
