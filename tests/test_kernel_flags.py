"""No kernel function's compile flags depend on which path numba compiles first.

numba compiles a jitted callee the first time any caller needs its signature, with the
``nrt`` (reference counting) and ``forceinline`` flags of that caller unless the callee
declares its own (``@jit(_nrt=False, forceinline=True)``), and that one version then serves
every caller. A plain callee
reached both from a function compiled without reference counting (the trial loops) and from
one with it (every entry called from Python, the renewal block) is therefore compiled one way
or the other by the order in which a process first runs the paths. The general path's trial,
``_trial_general``, is called from ``_general_trials`` (no reference counting) and from
``_block_renewal`` (with): compiled after the renewal path it kept reference counts on every
array it indexed in its event loop and ran a profiled job 1.16x slower (89 against 77 ns an
event at 100k GPUs), with the same outputs. These tests read the flags off the source (no
compile) and check, on a toy, that numba behaves as the check assumes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import relmc
from relmc.sim import _kernels

KERNELS = Path(_kernels.__file__)
PACKAGE = Path(relmc.__file__).parent


def _jitted(source: str) -> dict[str, tuple[ast.FunctionDef, dict]]:
    """Every module-level ``@jit`` function of ``source``: its node and decorator options."""
    out = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for d in node.decorator_list:
            if isinstance(d, ast.Name) and d.id == "jit":
                out[node.name] = (node, {})
            elif isinstance(d, ast.Call) and getattr(d.func, "id", None) == "jit":
                out[node.name] = (node, {k.arg: ast.literal_eval(k.value) for k in d.keywords})
    return out


def flag_contexts(source: str, flag: str, default: bool, from_python: set[str]) -> dict:
    """The values of numba's inherited ``flag`` each jitted function of ``source`` may get.

    A function that declares ``flag`` has that one value. Otherwise it inherits its caller's,
    so it may take any value one of its callers has; a function numba inlines itself
    (``inline="always"``) is typed inside each caller and passes the caller's on. A function
    called from Python (no jitted caller, or named in ``from_python``) starts with numba's
    ``default`` (``_nrt``: True; ``forceinline``: False).
    """
    funcs = _jitted(source)
    callers: dict[str, set[str]] = {name: set() for name in funcs}
    for name, (node, _opts) in funcs.items():
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in funcs:
                callers[n.func.id].add(name)
    memo: dict[str, frozenset[bool]] = {}

    def contexts(name: str, path: tuple[str, ...]) -> frozenset[bool]:
        opts = funcs[name][1]
        if flag in opts:
            return frozenset({bool(opts[flag])})
        if name in memo:
            return memo[name]
        found: set[bool] = set()
        if not callers[name] or name in from_python:
            found.add(default)
        for caller in callers[name]:
            if caller not in path:  # (recursion adds nothing)
                found |= contexts(caller, (*path, name))
        memo[name] = frozenset(found)
        return memo[name]

    return {name: contexts(name, ()) for name in funcs}


def _called_from_python(names) -> set[str]:
    """Kernel functions named outside the kernel (and so perhaps called from Python).

    The package's other modules, and the checkout's tests and benchmarks: numba's disk
    cache keys a version by its signature, not its flags, so a helper a test compiles from
    Python (numba's defaults) would serve the kernel in later processes of the checkout.
    A name in a comment counts too (the check errs towards declaring).
    """
    here = Path(__file__).resolve()
    files = [*PACKAGE.rglob("*.py")]
    for extra in ("tests", "benchmarks"):
        folder = PACKAGE.parent / extra
        if folder.is_dir():
            files += folder.rglob("*.py")
    text = "\n".join(p.read_text() for p in files if p.resolve() not in (KERNELS.resolve(), here))
    return {n for n in names if re.search(rf"\b{re.escape(n)}\b", text)}


#: numba's flags a callee inherits from its first caller unless it declares them (numba's
#: ``CPUTargetOptions.finalize``: ``inherit_if_not_set``), with their defaults; ``fastmath``
#: and ``error_model`` are inherited too, but relmc sets neither per function (``relmc._jit``)
INHERITED = [("_nrt", True), ("forceinline", False)]


def _ambiguous(source: str, flag: str = "_nrt", default: bool = True) -> list[str]:
    """Functions compiled with either flag by the order of first calls (inlined ones aside)."""
    funcs = _jitted(source)
    ctx = flag_contexts(source, flag, default, _called_from_python(funcs))
    inlined = {n for n, (_node, opts) in funcs.items() if opts.get("inline") == "always"}
    return sorted(n for n, c in ctx.items() if len(c) > 1 and n not in inlined)


@pytest.mark.parametrize(("flag", "default"), INHERITED)
def test_every_kernel_function_has_one_flag_whatever_compiles_first(flag, default):
    """No jitted function of the kernel can be compiled both with and without the flag."""
    assert _ambiguous(KERNELS.read_text(), flag, default) == []


@pytest.mark.parametrize(
    ("declared", "plain", "flag", "default"),
    [
        ("@jit(_nrt=False)\ndef _trial_general(", "@jit\ndef _trial_general(", "_nrt", True),
        ("@jit(_nrt=False, forceinline=True)\ndef _gap(", "@jit(_nrt=False)\ndef _gap(",
         "forceinline", False),
    ],
)  # fmt: skip
def test_the_check_finds_a_function_without_its_declared_flag(declared, plain, flag, default):
    """Negative control: two functions as they were (without the flag) are flagged.

    The general path's trial was a plain ``@jit`` (reached from the renewal block and from
    the trial loops); ``_gap`` did not declare ``forceinline`` (reached from forceinline
    helpers and from the block loops).
    """
    source = KERNELS.read_text()
    assert declared in source
    name = declared.split("def ")[1].rstrip("(")
    found = _ambiguous(source.replace(declared, plain), flag, default)
    assert name in found, found


def _flags_of(dispatcher) -> list[str]:
    """The compile flags of each compiled version of ``dispatcher``, read off its symbol."""
    from numba.core.compiler import Flags

    out = []
    for cres in dispatcher.overloads.values():
        mangled = cres.fndesc.mangled_name
        tag = re.search(r"B\d+v\d+B(\d+)", mangled)
        assert tag, mangled
        out.append(Flags.demangle(mangled[tag.end() : tag.end() + int(tag.group(1))]))
    return out


@pytest.mark.parametrize("declared", [False, True])
@pytest.mark.parametrize(("first", "second", "mark"), [
    ({}, {"_nrt": False}, "nrt=True"),
    ({"forceinline": True}, {}, "forceinline=True"),
])  # fmt: skip
def test_numba_inherits_the_first_callers_flag_unless_the_callee_declares_one(
    declared, first, second, mark
):
    """The behaviour the static check models, on a callee that indexes an array.

    Called first from a function with the flag (reference counting, numba's default; or
    ``forceinline``), then from one without: undeclared, the callee keeps the first
    caller's flag and serves the second with it (the order dependence); declared the other
    way, it has that either way.
    """
    import numba
    import numpy as np

    own = {key: not value for key, value in first.items()} or {"_nrt": False}
    options = own if declared else {}

    @numba.njit(**options)
    def callee(a, i):
        return a[i]

    @numba.njit(**first)
    def calls_first(a, i):
        return callee(a, i)

    @numba.njit(**second)
    def calls_second(a, i):
        return callee(a, i)

    a = np.arange(3.0)
    assert calls_first(a, 0) == 0.0 and calls_second(a, 1) == 1.0
    flags = _flags_of(callee)
    assert len(flags) == 1  # one version (one signature) serves both callers
    assert (mark in flags[0]) == (not declared), flags
