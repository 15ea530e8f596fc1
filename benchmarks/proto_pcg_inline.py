"""Prototype, apart from relmc: NumPy's PCG64 step inlined into numba code, the same stream.

    python benchmarks/proto_pcg_inline.py      # ~1 min (compiles included)

The step, its load and store and the ziggurat on it are now relmc's own
(``relmc.sim._kernels._pcg_step``, ``_pcg_exponential``; the buffer fills use them, see
benchmarks/README.md, "PCG64 stepped inline"); this script times them on a generator numba
unboxes, against numba's calls. Every draw of numba's generator calls
NumPy's ``pcg64_next64`` (or ``pcg64_double``) through a function pointer: the 128-bit state
is loaded from memory, stepped and stored on every call. This measures what keeping the state
in registers over a loop would buy. The step is written in LLVM IR (a 128-bit multiply-add,
the XSL-RR output) on the state NumPy's ``PCG64`` keeps (its ``pcg64_state`` points to the
``{state, inc}`` pair, two little-endian 128-bit words where the compiler has a native
128-bit integer, as on Linux's x86-64 builds), and numba's ziggurat exponential is repeated
on it. The draws are checked equal to NumPy's own, and the generator's state after.

Three loops: 128 exponentials stored in a buffer (as ``_fill``), 57 uniforms stored (the
alias picks of a 2k-GPU Llama 3 trial, as ``_alias_counts``), and one exponential at a time
summed (as the general path draws). Best of 7 interleaved runs, ns a draw.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from relmc.sim._kernels import (
    _BIT_GENERATOR,
    _I64,
    _TO_DOUBLE,
    _pcg_exponential,
    _pcg_load,
    _pcg_step,
    _pcg_store,
)


@intrinsic
def pcg_address(typingctx, rng):
    """Address of the ``{state, inc}`` pair of ``rng``'s PCG64 (``pcg64_state.pcg_state``)."""

    def codegen(context, builder, sig, args):
        gen = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
        bg = cgutils.create_struct_proxy(_BIT_GENERATOR)(context, builder, value=gen.bit_generator)
        return builder.load(builder.inttoptr(bg.state, _I64.as_pointer()))

    return types.uintp(rng), codegen


@numba.njit
def fill_inline(rng, buf):
    a = pcg_address(rng)
    lo, hi, ilo, ihi = _pcg_load(a)
    for q in range(buf.shape[0]):
        lo, hi, buf[q] = _pcg_exponential(lo, hi, ilo, ihi)
    _pcg_store(a, lo, hi)


@numba.njit
def fill_numba(rng, buf):
    for q in range(buf.shape[0]):
        buf[q] = rng.standard_exponential()


@numba.njit
def uniforms_inline(rng, buf):
    a = pcg_address(rng)
    lo, hi, ilo, ihi = _pcg_load(a)
    for q in range(buf.shape[0]):
        lo, hi, u = _pcg_step(lo, hi, ilo, ihi)
        buf[q] = np.int64(u >> np.uint64(11)) * _TO_DOUBLE
    _pcg_store(a, lo, hi)


@numba.njit
def uniforms_numba(rng, buf):
    for q in range(buf.shape[0]):
        buf[q] = rng.random()


@numba.njit
def one_inline(rng):
    a = pcg_address(rng)
    lo, hi, ilo, ihi = _pcg_load(a)
    lo, hi, x = _pcg_exponential(lo, hi, ilo, ihi)
    _pcg_store(a, lo, hi)
    return x


@numba.njit
def repeat_fill(fill, rng, buf, n):
    s = 0.0
    for _ in range(n):
        fill(rng, buf)
        s += buf[0]
    return s


@numba.njit
def summed_inline(rng, n):
    s = 0.0
    for _ in range(n):
        s += one_inline(rng)
    return s


@numba.njit
def summed_numba(rng, n):
    s = 0.0
    for _ in range(n):
        s += rng.standard_exponential()
    return s


def check() -> None:
    """The inlined draws equal NumPy's, and leave the generator where NumPy's do."""
    for seed in range(50):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        buf = np.empty(1000)
        fill_inline(a, buf)
        assert np.array_equal(buf, b.standard_exponential(1000)), seed
        uniforms_inline(a, buf[:57])
        assert np.array_equal(buf[:57], b.random(57)), seed
        assert one_inline(a) == b.standard_exponential(), seed
        assert a.bit_generator.state == b.bit_generator.state, seed


def main() -> None:
    check()
    print("inlined draws equal NumPy's (50 seeds, exponentials, uniforms, one at a time)")
    n_fill, n_one = 150_000, 20_000_000
    e128, u57 = np.empty(128), np.empty(57)
    cases = {
        "128 exponentials stored": (
            lambda: repeat_fill(fill_numba, np.random.default_rng(0), e128, n_fill),
            lambda: repeat_fill(fill_inline, np.random.default_rng(0), e128, n_fill),
            n_fill * 128,
        ),
        "57 uniforms stored": (
            lambda: repeat_fill(uniforms_numba, np.random.default_rng(0), u57, 2 * n_fill),
            lambda: repeat_fill(uniforms_inline, np.random.default_rng(0), u57, 2 * n_fill),
            2 * n_fill * 57,
        ),
        "one exponential at a time, summed": (
            lambda: summed_numba(np.random.default_rng(0), n_one),
            lambda: summed_inline(np.random.default_rng(0), n_one),
            n_one,
        ),
    }
    best = {}
    for numba_run, inline_run, _ in cases.values():  # compile
        numba_run(), inline_run()
    for _ in range(7):
        for name, (numba_run, inline_run, n) in cases.items():
            for label, run in (("numba", numba_run), ("inline", inline_run)):
                t = time.perf_counter()
                run()
                dt = (time.perf_counter() - t) / n * 1e9
                best[name, label] = min(best.get((name, label), np.inf), dt)
    for name in cases:
        a, b = best[name, "numba"], best[name, "inline"]
        print(f"{name:<36} numba {a:5.2f}  inlined {b:5.2f} ns/draw  ({a / b:.2f}x)")


if __name__ == "__main__":
    main()
