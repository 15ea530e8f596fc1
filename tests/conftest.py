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
