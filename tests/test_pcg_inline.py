"""The buffer fills step NumPy's PCG64 inline: the same draws, the generator left the same.

``simulate_block`` marks the address of a ``PCG64`` generator's ``bitgen_t``
(``_bitgen_address``) where the state's words lie as ``_pcg_layout_ok`` found them; the
fills (``_fill``, ``_fill_from``) then load PCG64's state once, step it in registers and
repeat numba's ziggurat on it (``_pcg_exponential``), and store it back; the uniforms the
alias draws and the diurnal path's picks take are filled so too (``_uniforms``). Checked
here: two million draws equal NumPy's ``standard_exponential`` (the ziggurat's wedge and
tail taken hundreds of times), also from a position inside a buffer, and the generator's
state after equals NumPy's; uniforms equal ``random``'s; marked fills make no call of the
generator's functions (a spy ``bitgen_t``; unmarked, the control, they do); each path's
outputs with the layout found and refused are equal; other bit generators (PCG64DXSM,
Philox, SFC64, MT19937) are not marked and draw their own numbers; a generator numba
unboxes itself is not inlined. Negative controls: the words read in the other order draw
other numbers; words in another order or another multiplier make the layout refused.
"""

from __future__ import annotations

import ctypes
import dataclasses
import sys

import numba
import numpy as np
import pytest

from relmc.scenario import Scenario
from relmc.sim import _kernels
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args
from relmc.sim.simulate import kernel_inputs

BUF = _kernels.BUF


@numba.njit
def _fills_at(addr, out):
    """Fill ``out`` (a multiple of BUF) buffer by buffer through the generator at ``addr``."""
    rng = _kernels._generator_at(addr)
    buf = np.empty(BUF)
    for k in range(out.shape[0] // BUF):
        _kernels._fill(rng, buf)
        out[k * BUF : (k + 1) * BUF] = buf
    return _kernels._pcg_address(rng)


@numba.njit
def _fill_from_at(addr, buf, j0):
    _kernels._fill_from(_kernels._generator_at(addr), buf, j0)


@numba.njit
def _uniforms_at(addr, ubuf, m):
    rng = _kernels._generator_at(addr)
    _kernels._uniforms(rng, ubuf, m)
    return _kernels._pcg_address(rng)


@numba.njit
def _unboxed_address(rng):
    return _kernels._pcg_address(rng)


@numba.njit
def _swapped_fill(addr, out):
    """Negative control: the state's words read high first (the layout not checked)."""
    a = _kernels._pcg_address(_kernels._generator_at(addr))
    lo, hi, ilo, ihi = _kernels._pcg_load(a)
    for q in range(out.shape[0]):
        hi, lo, out[q] = _kernels._pcg_exponential(hi, lo, ihi, ilo)


def test_the_layout_is_the_one_the_step_reads_on_this_platform(monkeypatch):
    # GCC and Clang builds (Linux, macOS) hold 128-bit integers natively, low word first
    if sys.platform.startswith("linux") or sys.platform == "darwin":
        assert _kernels._pcg_layout_ok()
    bg = np.random.PCG64(7)
    words = _kernels._pcg_words(bg)
    st = bg.state["state"]
    mask = (1 << 64) - 1
    assert words == [st["state"] & mask, st["state"] >> 64, st["inc"] & mask, st["inc"] >> 64]
    assert words == _kernels._pcg_expected(bg)
    assert _kernels._pcg_steps_as_numpy(bg)
    # negative controls: words in another order, or another multiplier, are refused, and
    # then no generator is marked
    swapped = [words[1], words[0], words[3], words[2]]
    monkeypatch.setattr(_kernels, "_pcg_words", lambda bg: swapped)
    monkeypatch.setattr(_kernels, "_PCG_LAYOUT", [])
    assert not _kernels._pcg_layout_ok()
    assert not _kernels._bitgen_address(np.random.default_rng(1)) & _kernels._PCG_FLAG
    monkeypatch.undo()
    monkeypatch.setattr(_kernels, "_PCG_MULT", _kernels._PCG_MULT + 2)
    assert not _kernels._pcg_steps_as_numpy(np.random.PCG64(7))


@pytest.mark.skipif(not _kernels._pcg_layout_ok(), reason="PCG64's words lie otherwise here")
@pytest.mark.parametrize("seed", [0, 1, 2026])
def test_inlined_fills_draw_numpys_exponentials_and_leave_its_state(seed):
    rng_a = np.random.default_rng(seed)
    rng_b = np.random.default_rng(seed)
    addr = _kernels._bitgen_address(rng_a)
    assert addr & _kernels._PCG_FLAG
    n = 2_000_000 // BUF * BUF
    got = np.empty(n)
    assert _fills_at(addr, got) != 0  # the inlined step ran
    want = rng_b.standard_exponential(n)
    assert np.array_equal(got, want)
    # the ziggurat's tail (the only source of draws past its last layer) and its wedge
    # (draws of a second step: the states would part otherwise) were taken
    assert (got >= _kernels._ZIG_R).sum() > 100
    assert rng_a.bit_generator.state == rng_b.bit_generator.state
    # a fill from a position: the rest of the buffer, the rest kept
    buf = np.full(BUF, -1.0)
    _fill_from_at(_kernels._bitgen_address(rng_a), buf, 37)
    assert np.array_equal(buf[:37], np.full(37, -1.0))
    assert np.array_equal(buf[37:], rng_b.standard_exponential(BUF - 37))
    # NumPy goes on from where the fills left the generator
    assert rng_a.random() == rng_b.random()
    # negative control: the words read in the other order draw other numbers
    rng_c = np.random.default_rng(seed)
    swapped = np.empty(BUF)
    _swapped_fill(_kernels._bitgen_address(rng_c), swapped)
    assert not np.array_equal(swapped, np.random.default_rng(seed).standard_exponential(BUF))


@pytest.mark.skipif(not _kernels._pcg_layout_ok(), reason="PCG64's words lie otherwise here")
def test_inlined_uniforms_are_numpys_and_leave_its_state():
    rng_a = np.random.default_rng(4)
    rng_b = np.random.default_rng(4)
    for m in (1, 57, 32, 100_000):
        ubuf = np.full(m + 3, -1.0)
        assert _uniforms_at(_kernels._bitgen_address(rng_a), ubuf, m) != 0
        assert np.array_equal(ubuf[:m], rng_b.random(m))
        assert np.array_equal(ubuf[m:], np.full(3, -1.0))  # only the first m written
        assert rng_a.bit_generator.state == rng_b.bit_generator.state
    # unmarked, the same generator draws the same numbers through numba's calls
    rng_c = np.random.default_rng(4)
    plain = np.empty(57)
    assert _uniforms_at(_kernels._bitgen_address(rng_c) & ~_kernels._PCG_FLAG, plain, 57) == 0
    assert np.array_equal(plain, np.random.default_rng(4).random(57))


@pytest.mark.parametrize("bit_generator", ["PCG64DXSM", "Philox", "SFC64", "MT19937"])
def test_other_bit_generators_are_not_marked_and_draw_their_own_numbers(bit_generator):
    def make():
        return np.random.Generator(getattr(np.random, bit_generator)(5))

    rng_a, rng_b = make(), make()
    addr = _kernels._bitgen_address(rng_a)
    assert not addr & _kernels._PCG_FLAG
    got = np.empty(8 * BUF)
    assert _fills_at(addr, got) == 0  # numba's calls
    assert np.array_equal(got, rng_b.standard_exponential(8 * BUF))
    ubuf = np.empty(57)
    assert _uniforms_at(_kernels._bitgen_address(rng_a), ubuf, 57) == 0
    assert np.array_equal(ubuf, rng_b.random(57))
    assert np.array_equal(rng_a.random(16), rng_b.random(16))  # left in the same state


def test_a_generator_numba_unboxes_is_not_inlined():
    assert _unboxed_address(np.random.default_rng(3)) == 0


@pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM"])
def test_simulate_block_gives_the_outputs_of_numbas_own_draws(bit_generator):
    """The renewal path through ``simulate_block`` (inlined for PCG64) equals the path called
    with the generator itself (numba's calls): every output, and the generator's state after.
    """
    x, _ = kernel_inputs(Scenario.default(), None, 60)
    n = x.n_trials
    out_a = allocate_outputs(n, x.n_categories)
    out_b = allocate_outputs(n, x.n_categories)
    rng_a, rng_b = (np.random.Generator(getattr(np.random, bit_generator)(9)) for _ in range(2))
    args_a = kernel_args(x, out_a, slice(0, n))
    _kernels.simulate_block(rng_a, *args_a)
    named = dict(zip(KERNEL_PARAMETERS[1:], kernel_args(x, out_b, slice(0, n)), strict=True))
    code = _kernels._block_renewal.py_func.__code__
    extra = {"use_blocks": True, "stats": np.zeros(3, dtype=np.int64)}
    params = code.co_varnames[1 : code.co_argcount]
    _kernels._block_renewal(rng_b, *(named[p] if p in named else extra[p] for p in params))
    named_a = dict(zip(KERNEL_PARAMETERS[1:], args_a, strict=True))
    assert extra["stats"][0] > 0  # failures taken by the block reduction (the buffer's draws)
    for key in ("wall", "finished", "progress", "interruptions", "n_events", "lost", "swings"):
        assert np.array_equal(named_a[key], named[key]), key
    assert rng_a.bit_generator.state == rng_b.bit_generator.state


class _BitGen(ctypes.Structure):
    """NumPy's ``bitgen_t``: the state and the draws' function pointers."""

    _fields_ = [
        ("state", ctypes.c_void_p),
        ("next_uint64", ctypes.c_void_p),
        ("next_uint32", ctypes.c_void_p),
        ("next_double", ctypes.c_void_p),
        ("next_raw", ctypes.c_void_p),
    ]


_NEXT64 = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)
_NEXTD = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p)


@numba.njit
def _all_fills_at(addr, buf, ubuf):
    rng = _kernels._generator_at(addr)
    _kernels._fill(rng, buf)
    _kernels._fill_from(rng, buf, 100)
    _kernels._uniforms(rng, ubuf, ubuf.shape[0])


def test_marked_fills_make_no_call_of_the_generators_functions():
    """A ``bitgen_t`` over a real PCG64's state whose draw functions count their calls: marked,
    the fills step the state themselves (no call) and draw NumPy's numbers; unmarked, they
    call (the control) and draw the same numbers. A fill that fell back to the calls while
    marked would pass every equality test above, not this one."""
    for marked in (True, False):
        src = np.random.PCG64(3)
        ref = np.random.Generator(np.random.PCG64(3))
        real = _BitGen.from_address(_kernels._capsule_pointer(src.capsule, b"BitGenerator"))
        calls = [0]
        next64, nextd = _NEXT64(real.next_uint64), _NEXTD(real.next_double)

        def counted64(st, f=next64, calls=calls):
            calls[0] += 1
            return f(st)

        def countedd(st, f=nextd, calls=calls):
            calls[0] += 1
            return f(st)

        cb64, cbd = _NEXT64(counted64), _NEXTD(countedd)
        spy = _BitGen(
            real.state,
            ctypes.cast(cb64, ctypes.c_void_p),
            real.next_uint32,
            ctypes.cast(cbd, ctypes.c_void_p),
            real.next_raw,
        )
        buf, ubuf = np.empty(BUF), np.empty(57)
        flag = _kernels._PCG_FLAG if marked else 0
        _all_fills_at(ctypes.addressof(spy) | flag, buf, ubuf)
        want = ref.standard_exponential(2 * BUF - 100)
        assert np.array_equal(buf[:100], want[:100])
        assert np.array_equal(buf[100:], want[BUF:])
        assert np.array_equal(ubuf, ref.random(57))
        assert src.state == ref.bit_generator.state
        if marked:
            assert calls[0] == 0
        else:
            assert calls[0] >= 2 * BUF - 100 + 57


def _path_inputs(kind):
    x, _ = kernel_inputs(Scenario.default(), None, 80)
    n_cat = x.n_categories
    if kind == "pool":
        return dataclasses.replace(x, n_spares=3, swap=np.ones_like(x.swap), maint_rate=0.0)
    if kind == "diurnal":
        return dataclasses.replace(x, cat_amp=np.full(n_cat, 0.5))
    if kind == "diurnal18":  # a peak hour per category: picks at a phase, uniforms refilled
        return dataclasses.replace(
            x, cat_amp=np.full(n_cat, 0.5), cat_phase=np.linspace(0.0, 23.0, n_cat)
        )
    if kind == "general":
        return dataclasses.replace(
            x, n_spares=3, swap=np.ones_like(x.swap), cat_amp=np.full(n_cat, 0.2)
        )
    return x


@pytest.mark.parametrize("kind", ["renewal", "pool", "diurnal", "diurnal18", "general"])
def test_each_path_gives_the_same_outputs_with_the_step_inlined_or_not(kind, monkeypatch):
    """``simulate_block`` with the layout found (inlined fills) and with it refused (numba's
    calls, ``_PCG_LAYOUT`` set false): every output, and the generator's state after."""
    x = _path_inputs(kind)
    n = x.n_trials
    outs, states = [], []
    for layout in (None, False):
        if layout is not None:
            monkeypatch.setattr(_kernels, "_PCG_LAYOUT", [layout])
        out = allocate_outputs(n, x.n_categories)
        rng = np.random.default_rng(21)
        marked = bool(_kernels._bitgen_address(rng) & _kernels._PCG_FLAG)
        assert marked == (layout is None and _kernels._pcg_layout_ok())
        _kernels.simulate_block(rng, *kernel_args(x, out, slice(0, n)))
        outs.append(out)
        states.append(rng.bit_generator.state)
    assert outs[0]["events"].sum() > 0
    for key in outs[0]:
        assert np.array_equal(outs[0][key], outs[1][key], equal_nan=True), key
    assert states[0] == states[1]
