"""The web app shows a question's named provisions and similar answered questions: the JSON API carries them,
the results page lists the precedents as interpretations (escaped) and says which named citation was not
found."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from bifrost.app.facade import Bifrost
from bifrost.app.web import create_app
from bifrost.core.settings import Settings
from tests.unit.mini_corpus import build_corpus, write_script_corpus

pytestmark = pytest.mark.timeout(300)
LETTERS = [
    {
        "id": "loi-plan",
        "title": "Who may prepare a <b>fall protection plan</b>",
        "date": "1999-01-02",
        "url": "https://example.org/loi-plan",
        "cites": ["1926.502(b)(1)"],
    }
]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-precedents")
    bf = Bifrost(Settings(home=root / "home"))
    build_corpus(bf, "mini", write_script_corpus(root))
    letters = root / "letters.jsonl"
    letters.write_text("\n".join(json.dumps(r) for r in LETTERS) + "\n", encoding="utf-8")
    bf.import_precedents(letters, "mini", issuer="OSHA")
    with TestClient(create_app(bf), raise_server_exceptions=False) as c:
        yield c
    bf.close()


def test_the_api_answer_carries_named_provisions_and_precedents(client):
    data = client.post(
        "/api/ask", json={"corpus": "mini", "question": "Who may prepare a fall protection plan?"}
    ).json()
    assert data["precedents"][0]["id"] == "loi-plan" and data["precedents"][0]["resolved"] == [
        "1926.502(b)(1)"
    ]
    named = client.post(
        "/api/ask", json={"corpus": "mini", "question": "What does 1926.502(b)(1) require?"}
    ).json()
    assert (
        named["citations"][0]["id"] == "1926.502(b)(1)" and named["named"][0]["target_id"] == "1926.502(b)(1)"
    )


def test_the_page_lists_precedents_as_interpretations_escaped(client):
    page = client.get("/ask", params={"q": "Who may prepare a fall protection plan?", "corpus": "mini"}).text
    assert "OSHA answered a similar question" in page and "An interpretation, not the rule" in page
    assert "&lt;b&gt;fall protection plan&lt;/b&gt;" in page and "<b>fall" not in page
    assert 'href="https://example.org/loi-plan"' in page


def test_the_page_says_which_named_citation_was_not_found(client):
    page = client.get("/ask", params={"q": "What does 1926.502(z)(9) require?", "corpus": "mini"}).text
    assert "1926.502(z)(9): not found in the current" in page
