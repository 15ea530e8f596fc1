"""Suite-wide pytest settings.

The suite runs on worker processes (pytest-xdist, ``-n auto --dist loadfile`` in
``pyproject.toml``): every test file on one worker, so module fixtures (PyMC fits, compiled
sweeps) are built once. ``auto`` means one worker per CPU, at most :data:`MAX_WORKERS` (each
worker imports numba, PyMC and the kernels: ~0.5-1 GB). ``-n 0`` runs in this process.
Files start longest first (:data:`LONGEST_FIRST`), so that no long file starts last.
"""

from __future__ import annotations

import os

MAX_WORKERS = 4

# The files that take longest (seconds of one worker in a full run on a 2-core host,
# 2026-12-01: 588, 170, 161, 117, 103, 85, 78, 75 of 2,109 in all), started in this order
# before the rest (which keep their collection order). With ``--dist loadfile`` a file runs
# on one worker; xdist's own order (files with most tests first, turned off by
# ``--no-loadscope-reorder`` in pyproject.toml) started the bounds-check compile, one test
# of ~10 minutes, last, and one worker idled for most of it: 1,383 s of wall for 2,109
# worker-seconds. A hint for the scheduler only: a file missing here runs all the same.
LONGEST_FIRST = (
    "test_kernel_boundscheck.py",
    "test_sweep_pack.py",
    "test_examples.py",
    "test_models.py",
    "test_sweep.py",
    "test_physics_nodes_kernel.py",
    "test_faults.py",
    "test_profiles.py",
)


def pytest_xdist_auto_num_workers(config) -> int:
    """Workers for ``-n auto``: the CPUs this process may use, at most :data:`MAX_WORKERS`."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cpus))


def pytest_configure(config) -> None:
    """Compile the kernels once, in the controlling process, before any worker starts.

    ``simulate_block`` compiles every path of the kernel at its first call (about two minutes
    of CPU on a cold cache); numba's on-disk cache then serves every worker and every CLI
    subprocess a test starts. Without this, each worker and subprocess that starts before
    the cache is written compiles on its own, at the same time, on the same cores (a CLI
    test's subprocess once ran past its 300 s limit that way).
    """
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    import relmc

    relmc.simulate(relmc.Scenario.default(), n_trials=2, seed=0)


def pytest_collection_modifyitems(config, items) -> None:
    """Put the files of :data:`LONGEST_FIRST` first, in its order (a stable sort).

    Runs in every worker alike (the workers' collections must agree, and do).
    """
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))
