"""The blocks' generator states computed together (``relmc._seed.pcg64_states``).

A block's generator is ``PCG64(child_seed(root, b))``; ``run_kernel`` computes the states of a
round's blocks at once (NumPy's SeedSequence mixing and PCG64 seeding, written again) and sets
them on a generator per thread. Checked: the states equal NumPy's, for roots of every kind of
entropy and spawn key ``relmc._seed`` can meet; roots it does not handle return None; and
``run_kernel``'s outputs equal those of generators built block by block, on one thread and
two (negative control: states shifted by one block change them).
"""

from __future__ import annotations

import numpy as np
import pytest

from relmc._seed import child_seed, pcg64_states, resolve_seed
from relmc.scenario import Scenario
from relmc.sim import simulate
from relmc.sim.simulate import kernel_inputs, run_kernel

ROOTS = [
    np.random.SeedSequence(0),
    np.random.SeedSequence(20240723),
    np.random.SeedSequence(2**32 - 1),
    np.random.SeedSequence(2**32),
    np.random.SeedSequence(2**64 + 12345),
    np.random.SeedSequence(),  # 128 bits of OS entropy
    np.random.SeedSequence([1, 2, 3]),
    np.random.SeedSequence([7, 0, 2**40, 9, 11, 13]),
    np.random.SeedSequence(np.array([5, 6], dtype=np.uint32)),
    np.random.SeedSequence(np.array([5, 2**33], dtype=np.int64)),
    np.random.SeedSequence(9).spawn(4)[3],
    np.random.SeedSequence(3, spawn_key=(1, 2**35, 0)),
    np.random.SeedSequence(8, pool_size=8),  # children have the default pool: any root's
    resolve_seed(np.random.default_rng(42)),
]


@pytest.mark.parametrize("root", ROOTS, ids=range(len(ROOTS)))
def test_states_equal_numpys(root):
    for keys in (range(0, 130), range(1000, 1040), range(2**32 - 3, 2**32)):
        states = pcg64_states(root, keys)
        assert states is not None and len(states) == len(keys)
        for k, state in zip(keys, states, strict=True):
            assert np.random.PCG64(child_seed(root, k)).state == state, k
    # a generator set to a state draws what the built one draws
    g = np.random.Generator(np.random.PCG64(0))
    g.bit_generator.state = pcg64_states(root, range(7, 8))[0]
    built = np.random.Generator(np.random.PCG64(child_seed(root, 7)))
    assert np.array_equal(g.standard_exponential(50), built.standard_exponential(50))


def test_keys_not_handled_return_none():
    assert pcg64_states(np.random.SeedSequence(1), range(2**32 - 1, 2**32 + 1)) is None
    assert pcg64_states(np.random.SeedSequence(1), range(0)) is None
    assert pcg64_states(np.random.SeedSequence(1), range(0, 10, 2)) is None


def _run(n_threads, monkeypatch, states_min):
    monkeypatch.setattr(simulate, "_STATES_MIN", states_min)
    x, _ = kernel_inputs(Scenario.default(), None, 12 * simulate.BLOCK_SIZE - 5)
    out, _ = run_kernel(x, np.random.SeedSequence(77), n_threads=n_threads)
    return out


@pytest.mark.parametrize("n_threads", [1, 2])
def test_run_kernel_outputs_equal_those_of_generators_built_block_by_block(n_threads, monkeypatch):
    together = _run(n_threads, monkeypatch, 8)
    built = _run(n_threads, monkeypatch, 10**9)
    for key in together:
        assert np.array_equal(together[key], built[key], equal_nan=True), key


@pytest.mark.parametrize("n_threads", [1, 2])
def test_rounds_of_a_precision_target_equal_generators_built_block_by_block(n_threads, monkeypatch):
    # rounds ending at 3, 6, 12, 24, 40 blocks (a target never met): every round's states
    # computed together (_STATES_MIN 2) and set on the generators each thread keeps across
    # rounds, against generators built block by block
    x, _ = kernel_inputs(Scenario.default(), None, 40 * simulate.BLOCK_SIZE)
    precision = simulate.Precision(min_trials=3 * simulate.BLOCK_SIZE, target_se=1e-12)
    runs = []
    for states_min in (2, 10**9):
        monkeypatch.setattr(simulate, "_STATES_MIN", states_min)
        out, why = run_kernel(
            x, np.random.SeedSequence(5), n_threads=n_threads, precision=precision
        )
        assert why == "n_trials"
        runs.append(out)
    for key in runs[0]:
        assert np.array_equal(runs[0][key], runs[1][key], equal_nan=True), key


def test_negative_control_states_one_block_off_change_the_outputs(monkeypatch):
    built = _run(1, monkeypatch, 10**9)

    def shifted(root, keys):
        return pcg64_states(root, range(keys.start + 1, keys.stop + 1))

    monkeypatch.setattr(simulate, "pcg64_states", shifted)
    off = _run(1, monkeypatch, 8)
    assert not np.array_equal(off["wall_hours"], built["wall_hours"])
    # the first block of the shifted run is the second of the built one
    n = simulate.BLOCK_SIZE
    assert np.array_equal(off["wall_hours"][:n], built["wall_hours"][n : 2 * n])


def test_a_run_of_few_blocks_builds_its_generators(monkeypatch):
    # below _STATES_MIN blocks a round builds each generator (pcg64_states not called)
    calls = []
    monkeypatch.setattr(simulate, "pcg64_states", lambda *a: calls.append(a))
    x, _ = kernel_inputs(Scenario.default(), None, 3 * simulate.BLOCK_SIZE)
    run_kernel(x, np.random.SeedSequence(1))
    assert calls == []
