"""One vocabulary for randomness: resolve a ``seed``, derive child seeds, record them.

Every public function that draws takes ``seed``: an ``int >= 0``, a ``numpy.random.SeedSequence``,
a ``numpy.random.Generator`` or ``None`` (fresh OS entropy). It is resolved once to a root
``SeedSequence``; every stream (a block of trials, a chain, a cluster size, a sweep cell) is a
child ``SeedSequence(root.entropy, spawn_key=root.spawn_key + keys)``, built from the root's
fields so that the caller's ``SeedSequence`` is never mutated (``spawn`` would). Results record
the root in ``attrs`` in one layout (:func:`seed_attrs`), from which :func:`seed_from_attrs`
rebuilds it exactly.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from typing import Any, TypeAlias

import numpy as np

from relmc.errors import FieldError

__all__ = ["SeedLike", "resolve_seed", "child_seed", "seed_attrs", "seed_from_attrs"]

SeedLike: TypeAlias = int | np.integer | np.random.SeedSequence | np.random.Generator | None

_ALLOWED = "an integer >= 0, a numpy SeedSequence, a numpy Generator or None"

# Reserved spawn-key entries, one table so that no two streams below one root meet. A run's
# trials use its root's children 0 .. n_blocks - 1 (< 2**19 for 1e8 trials), a sweep's cells
# 0 .. n_cells - 1 (< 100,000), and a fit's chain k its seed's child (0, k); each stream that
# is not a run's trials takes a key from the top of the range instead (README
# "Reproducibility"). The modules name them where they use them (``OVERHEAD_KEY`` in
# ``relmc.sim.simulate``, ``POSTERIOR_KEY`` in ``relmc.sweep.cells``, ...).
#: A projection's credible simulation, below each size's seed.
CREDIBLE_KEY = 2**32 - 1
#: The per-draw overhead multipliers, below a run's root (its ``overhead_seed``).
OVERHEAD_KEY = 2**32 - 2
#: A sweep's conjugate posterior, below the sweep's root.
POSTERIOR_KEY = 2**32 - 3
#: ``optimize_checkpoint``'s search and its final comparison, below its root.
SEARCH_KEY = 2**32 - 5
FINAL_KEY = 2**32 - 6
#: A hierarchical fit's pooled rates given (alpha, beta), below the fit's seed.
POOL_KEY = 2**32 - 7


def resolve_seed(seed: Any, field: str = "seed") -> np.random.SeedSequence:
    """Return the root ``SeedSequence`` of ``seed``.

    An ``int`` (Python or NumPy) or ``None`` is passed to ``SeedSequence``; a ``SeedSequence``
    is used as it is (not mutated); a ``Generator`` gives two integers in ``[0, 2^63)`` drawn
    from it (126 random bits, as ``hi << 64 | lo``), so the caller's generator advances (never
    global state).

    Raises
    ------
    FieldError
        Naming ``field`` for anything else (a bool, a negative integer, a float, ...).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        hi, lo = (int(v) for v in seed.integers(0, 2**63, size=2))
        return np.random.SeedSequence(hi << 64 | lo)
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise FieldError(field, f"{field} must be {_ALLOWED}; got {seed!r}")
    return np.random.SeedSequence(int(seed))


def child_seed(root: np.random.SeedSequence, *keys: int) -> np.random.SeedSequence:
    """Child ``SeedSequence(root.entropy, spawn_key=root.spawn_key + keys)``; ``root`` unchanged."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *map(int, keys)))


def seed_attrs(root: np.random.SeedSequence) -> dict[str, str]:
    """NetCDF/zarr-safe record of a root seed: ``seed_entropy`` and ``seed_spawn_key`` (JSON)."""
    entropy = root.entropy
    if isinstance(entropy, (int, np.integer)):
        text = str(int(entropy))
    else:  # a sequence of ints (``SeedSequence([1, 2])``): a JSON list
        text = json.dumps([int(e) for e in np.asarray(entropy).ravel()])
    return {
        "seed_entropy": text,
        "seed_spawn_key": json.dumps([int(k) for k in root.spawn_key]),
    }


def seed_from_attrs(attrs: Mapping[str, Any]) -> np.random.SeedSequence:
    """Rebuild the root ``SeedSequence`` that :func:`seed_attrs` recorded."""
    try:
        text = str(attrs["seed_entropy"]).strip()
        entropy: int | list[int]
        if text.startswith("["):
            entropy = [int(e) for e in json.loads(text)]
        else:
            entropy = int(text)
        key = tuple(int(k) for k in json.loads(attrs.get("seed_spawn_key", "[]")))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(
            f"attrs hold no relmc seed record (seed_entropy, seed_spawn_key): {e}"
        ) from None
    return np.random.SeedSequence(entropy, spawn_key=key)


# NumPy's SeedSequence and PCG64 seeding, for the children of one root at once. A block of
# trials gets the generator ``PCG64(child_seed(root, b))``; building one costs ~16 us (the
# SeedSequence's entropy coerced and mixed in Python-level code, then its state generated),
# about 5 % of a 2k-GPU block. A child's entropy is the root's plus one word, the block's key,
# so everything before that word is mixed once, and the last word's mixing, the state
# generation and PCG64's seeding are done for every block together. NumPy keeps both
# algorithms stable (its policy for reproducible streams); tests/test_seed_states.py checks
# the states against NumPy's for many roots and keys.
_M32 = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875  # SeedSequence's hash of entropy into the pool
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED  # and of the pool into the generated state
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4  # SeedSequence's default pool size (words)
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341  # PCG64's 128-bit multiplier
_M128 = (1 << 128) - 1


def _words(x: Any) -> list[int] | None:
    """NumPy's coercion of SeedSequence entropy to 32-bit words; None where not handled here."""
    if isinstance(x, bool | np.bool_):
        return None
    if isinstance(x, int | np.integer):
        n = int(x)
        if n < 0:
            return None
        out = [] if n else [0]
        while n > 0:
            out.append(n & _M32)
            n >>= 32
        return out
    if isinstance(x, np.ndarray) and x.dtype == np.uint32:
        return [int(v) for v in x.ravel()]
    if isinstance(x, list | tuple | range | np.ndarray):
        out = []
        for v in x:
            w = _words(v)
            if w is None:
                return None
            out += w
        return out
    return None


def _hashmix(value: Any, hash_const: int) -> tuple[Any, int]:
    """SeedSequence's ``hashmix`` (uint32 arithmetic; ``value`` an int or a uint64 array)."""
    value = value ^ hash_const
    hash_const = (hash_const * _MULT_A) & _M32
    value = (value * hash_const) & _M32
    return value ^ (value >> 16), hash_const


def _mix(x: Any, y: Any) -> Any:
    """SeedSequence's ``mix`` (uint32 arithmetic)."""
    r = (((_MIX_L * x) & _M32) - ((_MIX_R * y) & _M32)) & _M32
    return r ^ (r >> 16)


def pcg64_states(root: np.random.SeedSequence, keys: range) -> list[dict] | None:
    """Return the states of ``PCG64(child_seed(root, k))`` for ``k`` in ``keys``, as NumPy would.

    Each a ``PCG64.state`` dict, to set on a generator in place of building one. The children
    have SeedSequence's default pool of 4 words whatever the root's (:func:`child_seed`).
    None where the root or keys are not ones this handles (entropy that is not integers,
    keys outside 0 .. 2^32 - 1, none): the caller builds the generators then.
    """
    if len(keys) == 0 or keys.start < 0 or keys.stop > _M32 + 1 or keys.step != 1:
        return None
    run = _words(root.entropy)
    spawn = _words(root.spawn_key)
    if run is None or spawn is None:
        return None
    # a child's spawn key is never empty: NumPy pads the run entropy to the pool with zeros
    run = run + [0] * (_POOL - len(run))
    prefix = run + spawn
    # the pool after every word but the child's key (the same for every child)
    hc = _INIT_A
    pool = []
    for i in range(_POOL):
        v, hc = _hashmix(prefix[i], hc)
        pool.append(v)
    for i_src in range(_POOL):
        for i_dst in range(_POOL):
            if i_src != i_dst:
                v, hc = _hashmix(pool[i_src], hc)
                pool[i_dst] = _mix(pool[i_dst], v)
    for word in prefix[_POOL:]:
        for i_dst in range(_POOL):
            v, hc = _hashmix(word, hc)
            pool[i_dst] = _mix(pool[i_dst], v)
    # the child's key, for every child at once (uint64 arrays holding uint32 values)
    key = np.arange(keys.start, keys.stop, keys.step, dtype=np.uint64)
    lanes = [np.full(key.shape, p, dtype=np.uint64) for p in pool]
    for i_dst in range(_POOL):
        v, hc = _hashmix(key, hc)
        lanes[i_dst] = _mix(lanes[i_dst], v)
    # generate_state(4, uint64): eight words from the pool, paired little-endian
    hb = _INIT_B
    words = []
    for i_dst in range(8):
        v = lanes[i_dst % _POOL] ^ hb
        hb = (hb * _MULT_B) & _M32
        v = (v * hb) & _M32
        words.append(v ^ (v >> 16))
    seed_hi, seed_lo = words[0] | (words[1] << 32), words[2] | (words[3] << 32)
    inc_hi, inc_lo = words[4] | (words[5] << 32), words[6] | (words[7] << 32)
    out = []
    for k in range(key.shape[0]):
        # pcg64_set_seed: state 0, inc = 2 initseq + 1, a step, the seed added, a step
        inc = ((((int(inc_hi[k]) << 64) | int(inc_lo[k])) << 1) | 1) & _M128
        state = (inc + ((int(seed_hi[k]) << 64) | int(seed_lo[k]))) & _M128
        state = (state * _PCG_MULT + inc) & _M128
        out.append(
            {
                "bit_generator": "PCG64",
                "state": {"state": state, "inc": inc},
                "has_uint32": 0,
                "uinteger": 0,
            }
        )
    return out
