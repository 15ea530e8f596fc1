"""The seed record written into every output's attrs reads back to the same root seed."""

from __future__ import annotations

import numpy as np
import pytest

from relmc._seed import child_seed, resolve_seed, seed_attrs, seed_from_attrs
from relmc.events import synthetic_events


@pytest.mark.parametrize(
    "root",
    [
        np.random.SeedSequence(11),
        np.random.SeedSequence(2**100 + 7),
        np.random.SeedSequence([1, 2]),  # entropy a list of ints: recorded as a JSON list
        child_seed(np.random.SeedSequence([3, 4, 5]), 2, 9),
    ],
)
def test_seed_record_reads_back(root):
    back = seed_from_attrs(seed_attrs(root))
    assert back.entropy == root.entropy and back.spawn_key == root.spawn_key
    # the same stream, not only the same fields
    a = np.random.default_rng(root).random(4)
    np.testing.assert_array_equal(np.random.default_rng(back).random(4), a)


def test_integer_seed_records_as_before():
    # the record of an integer seed is unchanged (stores written before still read back)
    assert seed_attrs(resolve_seed(11)) == {"seed_entropy": "11", "seed_spawn_key": "[]"}
    assert seed_from_attrs({"seed_entropy": "11", "seed_spawn_key": "[]"}).entropy == 11


def test_a_sequence_seed_given_to_a_public_function_reads_back():
    ds = synthetic_events(
        {"A": 1e-3}, n_gpus=8, duration_hours=10.0, seed=np.random.SeedSequence([1, 2])
    )
    assert seed_from_attrs(ds.attrs).entropy == [1, 2]


def test_a_damaged_record_is_refused():
    for attrs in ({}, {"seed_entropy": "[1, x]"}, {"seed_entropy": "eleven"}):
        with pytest.raises(ValueError, match="seed record"):
            seed_from_attrs(attrs)


def test_reserved_keys_are_one_table_of_distinct_keys_above_every_block_and_cell():
    # every stream that is not a run's trials takes a key from relmc._seed's table; the
    # modules' names are those entries, the keys distinct and above the blocks' (< 2**19 for
    # 1e8 trials) and the cells' (< 100,000) keys
    from relmc import _seed
    from relmc.models.hierarchical import POOL_KEY
    from relmc.optimize import FINAL_KEY, SEARCH_KEY
    from relmc.projection import _CREDIBLE_KEY
    from relmc.sim.simulate import OVERHEAD_KEY
    from relmc.sweep.cells import POSTERIOR_KEY

    named = (_CREDIBLE_KEY, OVERHEAD_KEY, POSTERIOR_KEY, SEARCH_KEY, FINAL_KEY, POOL_KEY)
    table = (_seed.CREDIBLE_KEY, _seed.OVERHEAD_KEY, _seed.POSTERIOR_KEY, _seed.SEARCH_KEY,
             _seed.FINAL_KEY, _seed.POOL_KEY)  # fmt: skip
    assert named == table
    assert len(set(table)) == len(table)
    assert min(table) > 2**19 and max(table) < 2**32
