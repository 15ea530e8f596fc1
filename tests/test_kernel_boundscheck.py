"""The kernels under numba's bounds checking: no index outside their arrays.

The kernels index buffers, alias tables, accumulators and (the node path) records, lists and
repair stages grown by doubling, and the node path's trial loop compiles without reference
counting; an index past an array's end reads or writes memory that is not the array's, which
no output comparison is sure to notice (a sampled mutant that dropped the struck node's list
position did exactly that and changed no output). Here the kernels are compiled afresh with
``NUMBA_BOUNDSCHECK=1`` in a subprocess (its own cache directory) and run on the node
scenarios of tests/test_nodes.py (extremes included) and one of 3,000 nodes whose arrays
double many times, on the pool, renewal and block-reduction scenarios of the fast-path
tests and the pool path's reduction (tests/test_pool_reduced.py), each also with diurnal
rates (the diurnal path, with one peak hour and with a peak hour per category), on
straggler and SDC categories (the physics path), and on
straggler and SDC categories with the node model (the combined path,
tests/test_physics_nodes_kernel.py, and 3,000 nodes), and on the physics path with its ring
of retained checkpoints grown many times (a hand mutant that never grows it raises here);
any index out of range raises ``IndexError`` there. Slow: a full compile of the kernels.
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

import dataclasses

from nodeinputs import node_inputs, run
from test_fast_paths import BLOCKS, RENEWAL
from test_nodes import ALL_ON, NODE_SCENARIOS, _job
from test_pool_path import POOL
from test_pool_reduced import MANY

from relmc.scenario import Category, replace_path
from relmc.sim.simulate import kernel_inputs

inputs = [*NODE_SCENARIOS.values(), node_inputs(
    [0.02, 0.01, 0.002], n_trials=8, **{{**ALL_ON, "n_nodes": 3000, "n_spares": 60,
    "n_standbys": 16, "lemon_window": 200.0}}, **_job(work_hours=200.0, cap_hours=2000.0)
)]
physics = (
    Category("strag", rate=0.05, unit="job", kind="straggler"),
    Category("sdc", rate=0.03, unit="job", kind="sdc", sdc_latency_hours=2.0),
)
for sc in [*POOL.values(), *MANY.values(), *RENEWAL.values(), *BLOCKS.values()]:
    diurnal = replace_path(sc, "failures.categories.*.diurnal_amplitude", 0.5)
    diurnal = replace_path(diurnal, "failures.categories.*.diurnal_peak_hour", 15.0)
    # a peak hour per category: blocks draw each failure's category at its phase
    peaks = dataclasses.replace(diurnal, failures=dataclasses.replace(
        diurnal.failures, categories=tuple(
            dataclasses.replace(c, diurnal_peak_hour=float(3 * j % 24))
            for j, c in enumerate(diurnal.failures.categories)
        ),
    ))
    cats = (*sc.failures.categories, *physics)
    stragglers = dataclasses.replace(
        sc, failures=dataclasses.replace(sc.failures, categories=cats)
    )
    inputs += [kernel_inputs(v, None, 64)[0] for v in (sc, diurnal, peaks, stragglers)]
# stragglers and SDC with the node model (the combined path): its oracle comparisons, the
# corrupted node that leaves, and 3,000 nodes with SDC records found by a scan
from physicsinputs import with_sdc_fields
from test_physics_nodes_kernel import WITH_NODES, _sdc_with_domain
from test_physics_sdc import everything

inputs += [everything(31, n_trials=64, **kw) for kw in WITH_NODES.values()]
inputs += [_sdc_with_domain(n_spares, 16) for n_spares in (-1, 0)]
inputs.append(with_sdc_fields(
    inputs[len(NODE_SCENARIOS)], cat_kind=[0, 1, 2], straggler_speed=[1.0, 0.3, 1.0],
    sdc_latency=[0.0, 0.0, 5.0], retention=2,
))
# the physics path's ring of retained checkpoints grown many times over (it starts with room
# for 8 runs): every checkpoint kept, and frequent maintenance and straggler stops, each
# checkpointing off the grid (a new run)
from physicsinputs import sdc_inputs

inputs.append(sdc_inputs(
    [0.02, 0.3, 0.01], n_trials=16, detect=[0.0, 0.1, 0.0], cat_kind=[0, 1, 2],
    straggler_speed=[1.0, 0.5, 1.0], sdc_latency=[0.0, 0.0, 3.0], retention=0,
    maint_rate=0.2, maint_hours=0.05, work_hours=300.0, tau=1.0, delta=0.01, persist=0.02,
    restart_hours=0.1, cap_hours=5000.0,
))
events = 0
for x in inputs:
    out = run("kernel", x, seed=1)
    events += int(out["events"].sum())
    assert np.isfinite(out["wall_hours"]).all()
print("ok", len(inputs), events)
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
    assert word == "ok" and int(n_scenarios) >= 70 and int(events) > 5000, done.stdout
