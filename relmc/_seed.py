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


def resolve_seed(seed: Any, field: str = "seed") -> np.random.SeedSequence:
    """Return the root ``SeedSequence`` of ``seed``.

    An ``int`` (Python or NumPy) or ``None`` is passed to ``SeedSequence``; a ``SeedSequence``
    is used as it is (not mutated); a ``Generator`` gives 128 bits drawn from it, so the
    caller's generator advances (never global state).

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
