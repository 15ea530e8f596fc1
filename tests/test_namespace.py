"""The package's namespace: every public submodule is an attribute of ``relmc``.

docs/api.md: "Every submodule but the command line (``relmc.cli``, imported by name) is
reachable as an attribute of ``relmc``". Checked in a fresh interpreter, so that no other
test's import has loaded a submodule as a side effect (which makes a missing entry pass).
"""

import pkgutil
import subprocess
import sys

import relmc


def _public_submodules() -> set[str]:
    return {
        m.name
        for m in pkgutil.iter_modules(relmc.__path__)
        if not m.name.startswith("_") and m.name != "cli"
    }


def test_every_public_submodule_is_listed():
    # the files on disk, not a copy of the list: a new module is listed or this fails
    names = _public_submodules()
    assert "errors" in names and "sim" in names  # the walk found modules and packages
    assert names <= set(dir(relmc)), sorted(names - set(dir(relmc)))


def test_every_public_submodule_resolves_lazily():
    # the module's __getattr__ itself, which a submodule loaded as a side effect of another
    # (relmc.errors by almost any) would hide from a plain attribute access
    for name in sorted(_public_submodules()):
        assert relmc.__getattr__(name).__name__ == f"relmc.{name}"


def test_errors_after_a_bare_import():
    # what a user writes first: a warnings filter on relmc's warning classes
    code = (
        "import sys, warnings, relmc\n"
        "assert 'relmc.errors' not in sys.modules\n"
        "warnings.simplefilter('ignore', relmc.errors.UnreadFieldWarning)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
