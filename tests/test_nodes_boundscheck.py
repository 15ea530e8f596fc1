"""The node kernel under numba's bounds checking: no index outside its arrays.

The node path keeps records, lists and repair stages in arrays it grows by doubling, and
compiles its trial loop without reference counting; an index past an array's end there reads
or writes memory that is not the array's, which no output comparison is sure to notice (a
sampled mutant that dropped the struck node's list position did exactly that and changed no
output). Here the kernel is compiled afresh with ``NUMBA_BOUNDSCHECK=1`` in a subprocess (its
own cache directory) and run on the node scenarios of tests/test_nodes.py, extremes
included, and on one of 3,000 nodes whose records, lists and stages double many times; any
index out of range raises ``IndexError`` there. Slow: a full compile of the kernels.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import numba
import numpy as np

# bounds checking is on: an index past the end raises (the check's own negative control)
@numba.njit
def past(a):
    return a[a.shape[0]]

try:
    past(np.zeros(3))
    sys.exit("numba's bounds checking is off")
except IndexError:
    pass

from nodeinputs import node_inputs, run
from test_nodes import ALL_ON, NODE_SCENARIOS, _job

scenarios = dict(NODE_SCENARIOS)
scenarios["3000_nodes"] = node_inputs(
    [0.02, 0.01, 0.002], n_trials=8, **{{**ALL_ON, "n_nodes": 3000, "n_spares": 60,
    "n_standbys": 16, "lemon_window": 200.0}}, **_job(work_hours=200.0, cap_hours=2000.0)
)
events = 0
for name, x in scenarios.items():
    out = run("kernel", x, seed=1)
    events += int(out["events"].sum())
    assert np.isfinite(out["wall_hours"]).all(), name
print("ok", len(scenarios), events)
"""


@pytest.mark.slow
def test_node_kernel_indexes_inside_its_arrays(tmp_path):
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(tests=str(TESTS))],
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    word, n_scenarios, events = done.stdout.split()[-3:]
    assert word == "ok" and int(n_scenarios) >= 9 and int(events) > 5000, done.stdout
