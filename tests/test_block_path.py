"""``simulate_block`` compiles only the path it runs.

The path is chosen in Python (:func:`relmc.sim._kernels.block_path`), then one compiled path is
called, so a run compiles that path alone: ``relmc project`` on a cold numba cache took 588 s
when one compiled function called (and so compiled) every path, 50 s after. A fresh Python
process runs the default scenario (the renewal path) and lists the paths whose wrappers (each
path called with the generator's address) hold a compiled signature; the negative control
runs a finite spare pool in the same process, and the list gains that path (the check sees a
compile when one happens). Which path runs for which inputs is checked in
tests/test_pool_path.py and tests/test_fast_paths.py.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys

import numpy as np
import pytest

from relmc.scenario import Scenario
from relmc.sim import _kernels
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args
from relmc.sim.simulate import kernel_inputs

PATHS = (
    "_block_physics_nodes",
    "_block_nodes",
    "_block_physics",
    "_block_diurnal",
    "_block_renewal",
    "_block_pool_reduced",
    "_block_pool",
    "_block_general",
)

SCRIPT = f"""
import dataclasses, json
import numpy as np
from relmc.scenario import Scenario
from relmc.sim import _kernels
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args
from relmc.sim.simulate import kernel_inputs

PATHS = {PATHS!r}

def run(x):
    out = allocate_outputs(x.n_trials, x.n_categories)
    rng = np.random.default_rng(0)
    _kernels.simulate_block(rng, *kernel_args(x, out, slice(0, x.n_trials)))

def compiled():
    # simulate_block calls each path through its wrapper (the generator by its address):
    # a path loaded from the cache with its wrapper has no signature of its own
    return [p for p in PATHS if getattr(_kernels, p + "_at").signatures]

x, _ = kernel_inputs(Scenario.default(), None, 4)
seen = [compiled()]
run(x)
seen.append(compiled())
pool = dataclasses.replace(x, n_spares=3, swap=np.ones_like(x.swap), maint_rate=0.0)
run(pool)
seen.append(compiled())
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_a_run_compiles_only_the_path_it_takes():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=900
    )
    before, renewal, pool = json.loads(done.stdout.strip().splitlines()[-1])
    assert before == []
    assert renewal == ["_block_renewal"]
    # negative control: a finite pool with swaps takes the pool path, and the list sees it
    assert pool == ["_block_renewal", "_block_pool_reduced"]


def test_block_path_names_the_path_for_the_default_and_a_finite_pool():
    x, _ = kernel_inputs(Scenario.default(), None, 2)
    wanted = inspect.signature(_kernels.block_path).parameters

    def path(inputs):
        args = kernel_args(inputs, allocate_outputs(2, inputs.n_categories), slice(0, 2))
        named = dict(zip(KERNEL_PARAMETERS[1:], args, strict=True))
        return _kernels.block_path(*(named[p] for p in wanted))

    assert x.maint_rate > 0.0 and path(x) == _kernels.PATH_RENEWAL
    no_swaps = dataclasses.replace(x, n_spares=3, swap=np.zeros_like(x.swap))
    assert path(no_swaps) == _kernels.PATH_RENEWAL
    pool = dataclasses.replace(x, n_spares=3, swap=np.ones_like(x.swap))
    assert path(pool) == _kernels.PATH_POOL
    assert path(dataclasses.replace(pool, maint_rate=0.0)) == _kernels.PATH_POOL_REDUCED
    cycled = dataclasses.replace(pool, cat_amp=np.full_like(x.cat_amp, 0.2))
    assert path(cycled) == _kernels.PATH_GENERAL
