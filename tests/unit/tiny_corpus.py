"""A tiny CFR-like corpus in a fresh SQL store, a settings object pointing at it, and a question file.

Shared by the eval, retrieval baseline and eval CLI tests; tests/unit/conftest.py registers its fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Provision, ProvisionKind

CORPUS = "tiny"
ROWS = [
    ("1926", None, ProvisionKind.PART, "Construction", ""),
    ("1926.450", "1926", ProvisionKind.SECTION, "Scaffolds.", ""),
    (
        "1926.450(a)",
        "1926.450",
        ProvisionKind.PARAGRAPH,
        "",
        "Guardrails are required on every scaffold platform.",
    ),
    (
        "1926.450(b)",
        "1926.450",
        ProvisionKind.PARAGRAPH,
        "",
        "Scaffold planks shall be inspected before each shift.",
    ),
    ("1926.651", "1926", ProvisionKind.SECTION, "Excavations.", ""),
    (
        "1926.651(a)",
        "1926.651",
        ProvisionKind.PARAGRAPH,
        "",
        "Trench boxes protect employees in a trench excavation.",
    ),
    (
        "1926.651(a)(1)",
        "1926.651(a)",
        ProvisionKind.PARAGRAPH,
        "",
        "Air sampling is required in deep trenches.",
    ),
    ("1926.1053", "1926", ProvisionKind.SECTION, "Ladders.", ""),
    (
        "1926.1053(b)",
        "1926.1053",
        ProvisionKind.PARAGRAPH,
        "Use.",
        "Ladders shall be secured against columns.",
    ),
]
QUESTIONS = [
    {
        "id": "q1",
        "question": "scaffold guardrails",
        "gold": ["1926.450(a)"],
        "answerable": True,
        "subparts": ["L"],
    },
    {
        "id": "q2",
        "question": "air sampling trench",
        "gold": ["1926.651(a)(1)", "1926.651(a)"],
        "answerable": True,
        "subparts": ["P"],
    },
    {
        "id": "q3",
        "question": "ladders against columns",
        "gold": ["1926.1053(b)"],
        "answerable": True,
        "subparts": ["X"],
    },
    {
        "id": "q4",
        "question": "planks inspected each shift",
        "gold": ["1926.450(b)"],
        "answerable": True,
        "subparts": ["L", "X"],
    },
    {
        "id": "q5",
        "question": "crane operator licences in Mars",
        "gold": [],
        "answerable": False,
        "subparts": [],
    },
]


def tiny_provisions() -> list[Provision]:
    return [
        Provision(corpus=CORPUS, id=i, parent_id=p, kind=k, heading=h, text=t, order=n)
        for n, (i, p, k, h, t) in enumerate(ROWS)
    ]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose home holds the tiny corpus, ingested."""
    home = tmp_path / "home"
    home.mkdir()
    s = Settings(home=home, shared_dir=tmp_path)
    store = SqlStore(s.sql_url)
    store.ensure_corpus(CORPUS, "us-cfr")
    with store.session() as sess:
        store.upsert_provisions(sess, tiny_provisions())
    store.dispose()
    return s


@pytest.fixture
def questions_file(tmp_path: Path) -> Path:
    """The tiny corpus's questions as a JSONL file."""
    p = tmp_path / "questions.jsonl"
    p.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return p
