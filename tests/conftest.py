"""Suite-wide pytest settings.

The suite runs on worker processes (pytest-xdist, ``-n auto --dist loadfile`` in
``pyproject.toml``): every test file on one worker, so module fixtures (PyMC fits, compiled
sweeps) are built once. ``auto`` means one worker per CPU, at most :data:`MAX_WORKERS` (each
worker imports numba, PyMC and the kernels: ~0.5-1 GB). ``-n 0`` runs in this process.
"""

from __future__ import annotations

import os

MAX_WORKERS = 4


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
