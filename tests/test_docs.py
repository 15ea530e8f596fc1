"""The docs cover the public API; the docs build itself runs in .ci/run with warnings as errors."""

from __future__ import annotations

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
