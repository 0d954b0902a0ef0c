"""The mini fixture part built through the facade (both graphs), and a variant whose text carries markup.

Shared by the facade, web, eval-system and browser tests.
"""

from __future__ import annotations

import json
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.conftest import FIXTURES

MINI = FIXTURES / "mini" / "part-mini.json"
SCRIPT = "<script>alert(1)</script>"
SCRIPT_ID = "1926.503(a)(1)"
QUESTIONS = (
    "What must an employee constructing a leading edge be protected by?",
    "What training must the employer provide?",
    "Who must prepare the fall protection plan?",
    "What is a leading edge?",
    "When may an employer use a fall protection plan instead of guardrails?",
    "What does this regulation require?",
    "Is it presumed feasible to use conventional fall protection?",
)


def write_script_corpus(folder: Path) -> Path:
    """The mini part with § 1926.503, whose paragraph (a)(1) contains a script tag as text."""
    sections = json.loads(MINI.read_text())
    sections.append(
        {
            "source": "29 CFR 1926.503",
            "title": "§ 1926.503 Training <b>requirements</b>.",
            "section": "1926.503",
            "content": (
                "(a) Training program. (1) The employer shall provide a training program for each employee "
                f"exposed to fall hazards. {SCRIPT} See § 1926.502(b)."
            ),
            "path": sections[0]["path"],
        }
    )
    path = folder / "part-script.json"
    path.write_text(json.dumps(sections))
    return path


def build_corpus(bf: Bifrost, corpus: str, path: Path) -> None:
    """Ingest, build the navigator and the offline entity network of a small corpus."""
    report = bf.ingest(corpus, [path])
    assert report.files_ok, report.errors
    bf.build_navigator(corpus)
    bf.build_entities(corpus, "offline")


def built_mini_home(folder: Path) -> Path:
    """A home in ``folder`` holding the mini corpus with both graphs (for tests that start servers or
    scripts)."""
    home = folder / "home"
    bf = Bifrost(Settings(home=home))
    try:
        build_corpus(bf, "mini", MINI)
    finally:
        bf.close()
    return home


MARKER = "Zebraquartz"


def write_marked_corpus(folder: Path) -> Path:
    """The mini part plus § 1926.504, whose text carries `MARKER`: a second corpus whose words show up
    in any body that leaks it."""
    sections = json.loads(MINI.read_text())
    sections.append(
        {
            "source": "29 CFR 1926.504",
            "title": f"§ 1926.504 {MARKER} anchorage rules.",
            "section": "1926.504",
            "content": f"(a) {MARKER} anchorages. (1) The employer shall inspect each {MARKER} anchorage "
            "before use.",
            "path": sections[0]["path"],
        }
    )
    path = folder / "part-marked.json"
    path.write_text(json.dumps(sections))
    return path


EDGE_RULE = "1926.505(a)"


def write_edge_corpus(folder: Path) -> Path:
    """The mini part plus § 1926.505, whose rules carry a height threshold, an exception and a "need not": a
    corpus whose requirement records have conditions and exceptions."""
    sections = json.loads(MINI.read_text())
    sections.append(
        {
            "source": "29 CFR 1926.505",
            "title": "§ 1926.505 Unprotected edges.",
            "section": "1926.505",
            "content": "(a) Unprotected edges. Each employee working on an unprotected edge 6 feet (1.8 m) "
            "or more above a "
            "lower level shall be protected by a guardrail, except when the employee is inspecting the "
            "edge.\n"
            "(b) Openings. Covers need not be provided over openings not more than 2 inches wide.",
            "path": sections[0]["path"],
        }
    )
    path = folder / "part-edge.json"
    path.write_text(json.dumps(sections))
    return path
