"""The wheel carries what an installed (non-editable) relmc reads at run time.

Built from a copy of the source tree, so the checkout gets no ``build/`` or ``*.egg-info``.
Every non-Python file under ``relmc/`` that relmc reads (bundled data, templates, ``py.typed``)
must be in the wheel, and so must the licence.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# what setuptools reads to build the wheel (the rest of the repository is not packaged)
SOURCES = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "MANIFEST.in",
    "SOURCES.md",
    "relmc",
    "examples",
)


def _package_files() -> set[str]:
    """Non-Python files under relmc/ (bundled data, templates, markers), as wheel paths."""
    return {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "relmc").rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }


@pytest.mark.slow
def test_wheel_ships_data_templates_and_licence(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, src / name)
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = out.glob("relmc-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _package_files()
    # the check below covers the templates that `sweep init` and `simulate --init` write
    assert {"relmc/templates/sweep.toml", "relmc/templates/scenario.toml"} <= expected
    assert expected <= names, sorted(expected - names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    # the example scripts and their data, as relmc/examples/ (`relmc examples` finds them)
    examples = {f"relmc/examples/{p.name}" for p in (ROOT / "examples").iterdir() if p.is_file()}
    assert examples <= names, sorted(examples - names)


def test_every_package_folder_is_listed():
    # pyproject lists the packages (examples/ is mapped to relmc.examples), so a new folder
    # under relmc/ must be added there or the wheel would lack it
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {
        ".".join(p.relative_to(ROOT).parts)
        for p in (ROOT / "relmc").rglob("*")
        if p.is_dir() and p.name != "__pycache__" and any(q.is_file() for q in p.iterdir())
    }
    assert set(config["packages"]) == folders | {"relmc", "relmc.examples"}
    assert config["package-dir"] == {"relmc.examples": "examples"}


def test_citation_file_matches_the_package():
    """CITATION.cff (Citation File Format 1.2.0) names the version and licence that
    pyproject.toml and the installed package give, so a release cannot bump one alone."""
    import tomllib

    import relmc

    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors", "version", "license", "type"} <= set(cff)
    assert all(a.get("name") or a.get("family-names") for a in cff["authors"])
    assert str(cff["version"]) == project["version"] == relmc.__version__
    assert cff["license"] == project["license"]
