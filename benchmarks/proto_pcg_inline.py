"""Prototype, apart from relmc: NumPy's PCG64 step inlined into numba code, the same stream.

    python benchmarks/proto_pcg_inline.py      # ~1 min (compiles included)

Not used by relmc. Every draw relmc's kernels make goes through numba's generator, which calls
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
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.random._constants import fe_double, ke_double, we_double, ziggurat_exp_r

_BIT_GENERATOR = types.NumPyRandomBitGeneratorType("bit_generator")
_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG's default 128-bit multiplier
_I64 = ir.IntType(64)
_I128 = ir.IntType(128)
_TO_DOUBLE = 1.0 / 9007199254740992.0  # 2^-53, as NumPy's next_double


@intrinsic
def pcg_address(typingctx, rng):
    """Address of the ``{state, inc}`` pair of ``rng``'s PCG64 (``pcg64_state.pcg_state``)."""

    def codegen(context, builder, sig, args):
        gen = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
        bg = cgutils.create_struct_proxy(_BIT_GENERATOR)(context, builder, value=gen.bit_generator)
        return builder.load(builder.inttoptr(bg.state, _I64.as_pointer()))

    return types.uintp(rng), codegen


@intrinsic
def pcg_load(typingctx, addr):
    """The state's and increment's low and high words."""

    def codegen(context, builder, sig, args):
        p = builder.inttoptr(args[0], _I64.as_pointer())
        words = [builder.load(builder.gep(p, [ir.Constant(ir.IntType(32), k)])) for k in range(4)]
        return context.make_tuple(builder, sig.return_type, words)

    return types.UniTuple(types.uint64, 4)(addr), codegen


@intrinsic
def pcg_store(typingctx, addr, lo, hi):
    """Store the state's words back."""

    def codegen(context, builder, sig, args):
        p = builder.inttoptr(args[0], _I64.as_pointer())
        builder.store(args[1], builder.gep(p, [ir.Constant(ir.IntType(32), 0)]))
        builder.store(args[2], builder.gep(p, [ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return types.none(addr, lo, hi), codegen


@intrinsic
def pcg_step(typingctx, lo, hi, ilo, ihi):
    """One step: the new state's words and the 64-bit output (XSL-RR)."""

    def codegen(context, builder, sig, args):
        def wide(low, high):
            high = builder.shl(builder.zext(high, _I128), ir.Constant(_I128, 64))
            return builder.or_(high, builder.zext(low, _I128))

        s = builder.add(builder.mul(wide(*args[:2]), ir.Constant(_I128, _MULT)), wide(*args[2:]))
        nlo = builder.trunc(s, _I64)
        nhi = builder.trunc(builder.lshr(s, ir.Constant(_I128, 64)), _I64)
        x = builder.xor(nhi, nlo)
        fty = ir.FunctionType(_I64, [_I64, _I64, _I64])
        rotr = cgutils.get_or_insert_function(builder.module, fty, "llvm.fshr.i64")
        out = builder.call(rotr, [x, x, builder.lshr(nhi, ir.Constant(_I64, 58))])
        return context.make_tuple(builder, sig.return_type, [nlo, nhi, out])

    return types.UniTuple(types.uint64, 3)(lo, hi, ilo, ihi), codegen


@numba.njit(inline="always")
def _exp_from(lo, hi, ilo, ihi):
    """Numba's ziggurat standard exponential on the inlined steps: (lo, hi, draw)."""
    while True:
        lo, hi, ri = pcg_step(lo, hi, ilo, ihi)
        ri >>= np.uint64(3)
        idx = ri & np.uint64(0xFF)
        ri >>= np.uint64(8)
        x = np.int64(ri) * we_double[idx]  # ri < 2^53: the signed conversion is exact
        if ri < ke_double[idx]:
            return lo, hi, x
        lo, hi, u = pcg_step(lo, hi, ilo, ihi)
        d = np.int64(u >> np.uint64(11)) * _TO_DOUBLE
        if idx == 0:
            return lo, hi, ziggurat_exp_r - np.log1p(-d)
        if (fe_double[idx - 1] - fe_double[idx]) * d + fe_double[idx] < np.exp(-x):
            return lo, hi, x


@numba.njit
def fill_inline(rng, buf):
    a = pcg_address(rng)
    lo, hi, ilo, ihi = pcg_load(a)
    for q in range(buf.shape[0]):
        lo, hi, buf[q] = _exp_from(lo, hi, ilo, ihi)
    pcg_store(a, lo, hi)


@numba.njit
def fill_numba(rng, buf):
    for q in range(buf.shape[0]):
        buf[q] = rng.standard_exponential()


@numba.njit
def uniforms_inline(rng, buf):
    a = pcg_address(rng)
    lo, hi, ilo, ihi = pcg_load(a)
    for q in range(buf.shape[0]):
        lo, hi, u = pcg_step(lo, hi, ilo, ihi)
        buf[q] = np.int64(u >> np.uint64(11)) * _TO_DOUBLE
    pcg_store(a, lo, hi)


@numba.njit
def uniforms_numba(rng, buf):
    for q in range(buf.shape[0]):
        buf[q] = rng.random()


@numba.njit
def one_inline(rng):
    a = pcg_address(rng)
    lo, hi, ilo, ihi = pcg_load(a)
    lo, hi, x = _exp_from(lo, hi, ilo, ihi)
    pcg_store(a, lo, hi)
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
