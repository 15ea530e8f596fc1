"""Fixtures for tests against real services (Slurm, Dask).

Where Slurm is absent, its tests skip with a visible reason, unless the ``CI`` variable is set:
``.ci/run`` starts a real Slurm, so there a missing Slurm is a failure, not a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SMALL_SPEC = """\
seed = 3
n_trials = 64
posterior = "point"
quantiles = [0.1, 0.5, 0.9]

[base.job]
compute_hours = 240

[axes]
"cluster.n_gpus" = [4096, 65536]
"policy.checkpoint_interval" = [0.5, "young"]
"policy.restart_hours" = [0.1, 0.4]
"""


def _slurm_problem() -> str | None:
    if shutil.which("sbatch") is None or shutil.which("sinfo") is None:
        return "Slurm is not installed (no sbatch/sinfo on PATH); run .ci/slurm_local.sh start"
    try:
        r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "sinfo timed out: slurmctld is not answering"
    states = r.stdout.split()
    if r.returncode != 0 or not any(s in ("idle", "mixed", "allocated") for s in states):
        return f"Slurm is not running or has no usable node: {r.stderr.strip() or states}"
    return None


@pytest.fixture(scope="session")
def slurm() -> None:
    """Require a working Slurm: skip without one, but fail under CI."""
    problem = _slurm_problem()
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but Slurm is unusable: {problem}")
    pytest.skip(problem)


@pytest.fixture
def small_spec(tmp_path: Path) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(SMALL_SPEC)
    return p
