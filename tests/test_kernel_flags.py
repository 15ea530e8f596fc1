"""No kernel function's compile flags depend on which path numba compiles first.

numba compiles a jitted callee the first time any caller needs its signature, with the
``nrt`` (reference counting) flag of that caller unless the callee declares its own
(``@jit(_nrt=False)``), and that one version then serves every caller. A plain callee
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


def nrt_contexts(source: str, from_python: set[str]) -> dict[str, frozenset[bool]]:
    """The ``nrt`` values each jitted function of ``source`` may be compiled with.

    A function that declares ``_nrt`` has that one. Otherwise it inherits its caller's, so it
    may take any value one of its callers has; a function numba inlines itself
    (``inline="always"``) is typed inside each caller and passes the caller's on. A function
    called from Python (no jitted caller, or named in ``from_python``) starts with numba's
    default, True.
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
        if "_nrt" in opts:
            return frozenset({bool(opts["_nrt"])})
        if name in memo:
            return memo[name]
        found: set[bool] = set()
        if not callers[name] or name in from_python:
            found.add(True)
        for caller in callers[name]:
            if caller not in path:  # (recursion adds nothing)
                found |= contexts(caller, (*path, name))
        memo[name] = frozenset(found)
        return memo[name]

    return {name: contexts(name, ()) for name in funcs}


def _called_from_python(names) -> set[str]:
    """Kernel functions other modules of the package name (and may call from Python)."""
    text = "\n".join(
        p.read_text() for p in PACKAGE.rglob("*.py") if p.resolve() != KERNELS.resolve()
    )
    return {n for n in names if re.search(rf"\b{re.escape(n)}\b", text)}


def _ambiguous(source: str) -> list[str]:
    """Functions compiled with either flag by the order of first calls (inlined ones aside)."""
    funcs = _jitted(source)
    ctx = nrt_contexts(source, _called_from_python(funcs))
    inlined = {n for n, (_node, opts) in funcs.items() if opts.get("inline") == "always"}
    return sorted(n for n, c in ctx.items() if len(c) > 1 and n not in inlined)


def test_every_kernel_function_has_one_nrt_flag_whatever_compiles_first():
    """No jitted function of the kernel can be compiled both with and without ref counts."""
    assert _ambiguous(KERNELS.read_text()) == []


def test_the_check_finds_the_general_trial_without_its_declared_flag():
    """Negative control: the general path's trial as it was (a plain ``@jit``) is flagged."""
    source = KERNELS.read_text()
    declared = "@jit(_nrt=False)\ndef _trial_general("
    assert declared in source
    found = _ambiguous(source.replace(declared, "@jit\ndef _trial_general("))
    assert "_trial_general" in found, found


def _nrt_of(dispatcher) -> list[bool]:
    """``nrt`` of each compiled version of ``dispatcher``, from the flags in its symbol."""
    from numba.core.compiler import Flags

    out = []
    for cres in dispatcher.overloads.values():
        mangled = cres.fndesc.mangled_name
        tag = re.search(r"B\d+v\d+B(\d+)", mangled)
        assert tag, mangled
        flags = Flags.demangle(mangled[tag.end() : tag.end() + int(tag.group(1))])
        out.append("nrt=True" in flags)
    return out


@pytest.mark.parametrize("declared", [False, True])
def test_numba_inherits_the_first_callers_flag_unless_the_callee_declares_one(declared):
    """The behaviour the static check models, on a callee that indexes an array.

    Called first from a function with reference counting (numba's default), then from one
    without: undeclared, the callee keeps the first caller's ``nrt`` and serves the second
    with it (the order dependence); declared ``_nrt=False``, it has that flag either way.
    """
    import numba
    import numpy as np

    options = {"_nrt": False} if declared else {}

    @numba.njit(**options)
    def callee(a, i):
        return a[i]

    @numba.njit
    def counted(a, i):
        return callee(a, i)

    @numba.njit(_nrt=False)
    def uncounted(a, i):
        return callee(a, i)

    a = np.arange(3.0)
    assert counted(a, 0) == 0.0 and uncounted(a, 1) == 1.0
    assert _nrt_of(callee) == [not declared]  # one version (the same signature), its flag
