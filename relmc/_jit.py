"""The package-wide numba decorator: compile options live here and nowhere else."""

from __future__ import annotations

import numba

__all__ = ["jit"]


def jit(*args, **kwargs):
    """Compile with relmc's fixed options (``cache=True``, ``nogil=True``, NumPy error model).

    Usable bare (``@jit``) or with extra numba options (``@jit(parallel=True)``).
    """
    options = {"cache": True, "nogil": True, "error_model": "numpy"}
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return numba.njit(**options)(args[0])
    options.update(kwargs)
    return numba.njit(*args, **options)
