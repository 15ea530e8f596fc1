"""``simulate_block`` hands the paths the generator's address, not the generator.

numba unboxes a ``numpy.random.Generator`` argument through ctypes (~27 us a call, a fresh
generator's); ``simulate_block`` passes the address of its ``bitgen_t`` instead
(``_bitgen_address``) to a wrapper per path that builds numba's generator from it
(``_generator_at``). Checked here: the draws through the address are the generator's own, in
every distribution the kernels use, and leave the generator where the direct call leaves it
(negative control: another generator's address draws other numbers); ``simulate_block``'s
outputs and the generator's state after it are those of the path called with the generator,
on three paths.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
import textwrap

import numba
import numpy as np
import pytest
from test_block_path import PATHS

from relmc.scenario import Scenario
from relmc.sim import _kernels
from relmc.sim.inputs import KERNEL_PARAMETERS, allocate_outputs, kernel_args
from relmc.sim.simulate import kernel_inputs


@numba.njit
def _draws(rng, out):
    for k in range(out.shape[0] // 6):
        out[6 * k] = rng.random()
        out[6 * k + 1] = rng.standard_exponential()
        out[6 * k + 2] = rng.standard_normal()
        out[6 * k + 3] = rng.integers(0, 1000)
        out[6 * k + 4] = rng.binomial(40, 0.3)
        out[6 * k + 5] = rng.gamma(0.7)


@numba.njit
def _draws_at(addr, out):
    _draws(_kernels._generator_at(addr), out)


def test_draws_through_the_address_are_the_generators_own():
    direct = np.empty(6 * 500)
    via = np.empty(6 * 500)
    rng_a = np.random.default_rng(11)
    rng_b = np.random.default_rng(11)
    _draws(rng_a, direct)
    _draws_at(_kernels._bitgen_address(rng_b), via)
    assert np.array_equal(direct, via)
    assert rng_a.bit_generator.state == rng_b.bit_generator.state
    # the generator goes on from there in Python too
    assert rng_a.random() == rng_b.random()
    # negative control: another generator's address, other draws
    other = np.empty(6 * 500)
    rng_c = np.random.default_rng(12)
    _draws_at(_kernels._bitgen_address(rng_c), other)
    assert not np.array_equal(direct, other)


def _inputs(kind):
    x, _ = kernel_inputs(Scenario.default(), None, 40)
    if kind == "pool":
        x = dataclasses.replace(x, n_spares=3, swap=np.ones_like(x.swap), maint_rate=0.0)
    elif kind == "general":
        x = dataclasses.replace(
            x, n_spares=3, swap=np.ones_like(x.swap), cat_amp=np.full_like(x.cat_amp, 0.2)
        )
    return x


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("renewal", _kernels.PATH_RENEWAL),
        ("pool", _kernels.PATH_POOL_REDUCED),
        ("general", _kernels.PATH_GENERAL),
    ],
)
def test_simulate_block_equals_the_path_called_with_the_generator(kind, path):
    x = _inputs(kind)
    n = x.n_trials
    out_a = allocate_outputs(n, x.n_categories)
    out_b = allocate_outputs(n, x.n_categories)
    rng_a = np.random.default_rng(5)
    rng_b = np.random.default_rng(5)
    args_a = kernel_args(x, out_a, slice(0, n))
    _kernels.simulate_block(rng_a, *args_a)
    named = dict(zip(KERNEL_PARAMETERS[1:], kernel_args(x, out_b, slice(0, n)), strict=True))
    bp_code = _kernels.block_path.py_func.__code__
    bp = [named[p] for p in bp_code.co_varnames[: bp_code.co_argcount]]
    assert _kernels.block_path(*bp) == path
    fn = {
        _kernels.PATH_RENEWAL: _kernels._block_renewal,
        _kernels.PATH_POOL_REDUCED: _kernels._block_pool_reduced,
        _kernels.PATH_GENERAL: _kernels._block_general,
    }[path]
    params = list(fn.py_func.__code__.co_varnames)[: fn.py_func.__code__.co_argcount]
    extra = {"use_blocks": True, "stats": np.zeros(3, dtype=np.int64)}
    if path == _kernels.PATH_POOL_REDUCED:
        extra["stats"] = np.zeros(2, dtype=np.int64)
    call = [rng_b] + [named[p] if p in named else extra[p] for p in params[1:]]
    fn(*call)
    named_a = dict(zip(KERNEL_PARAMETERS[1:], args_a, strict=True))
    assert named_a["n_events"].sum() > 0
    written = ("wall", "finished", "progress", "interruptions", "maint_events", "n_events")
    for key in (*written, "lost", "swings"):
        assert np.array_equal(named_a[key], named[key]), key
    assert rng_a.bit_generator.state == rng_b.bit_generator.state
    # negative control: another seed through simulate_block, other walls
    out_c = allocate_outputs(n, x.n_categories)
    _kernels.simulate_block(np.random.default_rng(6), *kernel_args(x, out_c, slice(0, n)))
    assert not np.array_equal(out_c["wall_hours"], named_a["wall"])


@pytest.mark.parametrize("name", PATHS)
def test_each_wrapper_forwards_its_paths_parameters_in_order(name):
    """``_block_X_at(addr, ...)`` calls ``_block_X(_generator_at(addr), ...)``, nothing else.

    Read from the source (no compile): the wrapper's parameters are the path's with ``addr``
    for ``rng``, and its one call passes them on in the same order; ``simulate_block`` calls
    the wrapper with the same names it passed the path.
    """
    path = getattr(_kernels, name).py_func
    wrapper = getattr(_kernels, f"{name}_at").py_func
    params = list(inspect.signature(path).parameters)
    assert params[0] == "rng"
    assert list(inspect.signature(wrapper).parameters) == ["addr", *params[1:]]
    body = ast.parse(textwrap.dedent(inspect.getsource(wrapper))).body[0].body
    calls = [n for n in body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    assert len(calls) == 1
    call = calls[0].value
    assert call.func.id == name
    first, *rest = call.args
    assert ast.unparse(first) == "_generator_at(addr)"
    assert [ast.unparse(a) for a in rest] == params[1:]


def test_numbas_generator_model_has_the_fields_the_intrinsic_fills():
    """A numba upgrade that changed its generator's data model fails here, not in a kernel."""
    from numba.core.datamodel import default_manager

    gen = default_manager.lookup(_kernels._GENERATOR)
    bit = default_manager.lookup(_kernels._BIT_GENERATOR)
    assert gen._fields == ("bit_generator", "meminfo", "parent")
    assert bit._fields == (
        "parent",
        "state_address",
        "state",
        "fnptr_next_uint64",
        "fnptr_next_uint32",
        "fnptr_next_double",
        "bit_generator",
    )


def _diurnal_rates_per_draw():
    x, _ = kernel_inputs(Scenario.default(), None, 300)
    # one peak hour per category (shapes that differ) and two rate draws: the summed
    # amplitude is the draw's, read from the reference tables
    amp = np.full_like(x.cat_amp, 0.5)
    peak = np.linspace(0.0, 23.0, x.n_categories)
    two = np.stack([x.cat_rate[0], 1.1 * x.cat_rate[0]])
    return dataclasses.replace(
        x, cat_amp=amp, cat_phase=peak, cat_rate=two, draw_of_trial=np.arange(300) % 2
    )


@pytest.mark.parametrize("kind", ["diurnal", "general"])
def test_paths_with_trial_loops_without_reference_counting_leave_references_as_they_were(kind):
    """Every input and output array's reference count is the same after five blocks.

    The diurnal and general paths run their trial loops compiled without reference counting,
    and numba compiles a plain callee such a loop calls first without it too: a callee
    returning an array there would leave a reference taken or dropped. The diurnal case has
    rates per draw, so its blocks read the reference tables (a view of ``kepler_grid``).
    """
    x = _diurnal_rates_per_draw() if kind == "diurnal" else _inputs("general")
    named_path = {"diurnal": _kernels.PATH_DIURNAL, "general": _kernels.PATH_GENERAL}[kind]
    out = allocate_outputs(x.n_trials, x.n_categories)
    args = kernel_args(x, out, slice(0, x.n_trials))
    named = dict(zip(KERNEL_PARAMETERS[1:], args, strict=True))
    bp_code = _kernels.block_path.py_func.__code__
    assert (
        _kernels.block_path(*(named[p] for p in bp_code.co_varnames[: bp_code.co_argcount]))
        == named_path
    )
    if kind == "diurnal":
        assert named["kepler_grid"].shape[0] > 0
    rng = np.random.default_rng(3)
    _kernels.simulate_block(rng, *args)
    arrays = {k: v for k, v in named.items() if isinstance(v, np.ndarray)}
    before = {k: sys.getrefcount(v) for k, v in arrays.items()}
    for _ in range(5):
        _kernels.simulate_block(rng, *args)
    after = {k: sys.getrefcount(v) for k, v in arrays.items()}
    assert after == before
    assert named["n_events"].sum() > 0
    # negative control: one reference more to one array, and the counts see it
    held = [arrays["lost"]]
    assert {k: sys.getrefcount(v) for k, v in arrays.items()} != before
    assert held
