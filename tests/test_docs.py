"""The docs cover the public API; the docs build itself runs in .ci/run with warnings as errors
(nitpicky: every cross-reference resolves, but for the listed exceptions)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import relmc

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_api_reference_lists_every_public_name():
    text = (DOCS / "api.md").read_text()
    listed = set(re.findall(r"^   (\w+)$", text, re.M))  # autosummary entries
    missing = sorted(set(relmc.__all__) - {"__version__"} - listed)
    assert not missing, f"add to docs/api.md: {missing}"


def test_glossary_defines_the_terms_the_docs_use():
    text = (DOCS / "glossary.md").read_text()
    block = text.split("```{glossary}", 1)[1].split("```", 1)[0]
    terms = {line.strip() for line in block.splitlines() if line and not line.startswith(" ")}
    for term in (
        "ETTR",
        "goodput",
        "interruption",
        "exposure",
        "checkpoint interval",
        "snapshot",
        "persist",
        "rework",
        "detection",
        "node swap",
        "spare wait",
        "maintenance",
        "credible interval",
        "posterior predictive interval",
        "Young/Daly",
        "MTTF",
        "lemon node",
        "blast radius",
    ):
        assert term in terms, term


def _conf():
    spec = importlib.util.spec_from_file_location("relmc_docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


def _stale(conf, read) -> list[str]:
    """The ignored docstring references no longer written as listed in their files."""
    return [
        f"{path}: {ref}"
        for path, refs in conf.DOCSTRING_REFS_TO_FIX.items()
        for ref in (f":{role.removeprefix('py:')}:`{name}`" for role, name in refs)
        if ref not in read(path)
    ]


def test_nitpick_exceptions_are_not_stale():
    """Each docstring reference the nitpicky build ignores is still in its file, as written."""
    conf = _conf()
    root = DOCS.parent

    def read(path):
        return (root / path).read_text()

    assert _stale(conf, read) == [], "fixed in the docstring: drop it from docs/conf.py"
    # negative control: a listed reference no longer in its file is reported
    conf.DOCSTRING_REFS_TO_FIX = {"relmc/sim/simulate.py": [("py:data", "BLOCK_SIZE")]}
    assert _stale(conf, read) == ["relmc/sim/simulate.py: :data:`BLOCK_SIZE`"]
    conf = _conf()
    # only what is listed, with its reason, is ignored
    assert set(conf.nitpick_ignore) == set(conf.EXTERNAL_REFS) | {
        r for refs in conf.DOCSTRING_REFS_TO_FIX.values() for r in refs
    }
