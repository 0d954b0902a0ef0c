"""The web app over a small fixture corpus: JSON API validation and errors, pages, escaping."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from bifrost.core.errors import StoreError
from bifrost.app.web import create_app
from bifrost.app.web.views import provision_url
from tests.unit.mini_corpus import SCRIPT, SCRIPT_ID

pytestmark = pytest.mark.timeout(300)

QUESTION = "What training must the employer provide?"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture(scope="module")
def client(bf) -> TestClient:
    with TestClient(create_app(bf), raise_server_exceptions=False) as c:
        yield c


def ask(client: TestClient, **body):
    return client.post("/api/ask", json={"corpus": "mini", **body})


# --- JSON API ---
def test_api_ask_returns_a_typed_answer_with_citations(client):
    r = ask(client, question=QUESTION)
    assert r.status_code == 200
    data = r.json()
    assert data["corpus"] == "mini" and data["mode"] == "extractive"
    assert not data["refused"] and data["citations"]
    assert {"question", "statements", "retrieved", "unused", "timings"} <= set(data)


def test_api_ask_returns_the_quoted_span_of_every_statement(client, bf):
    data = ask(client, question=QUESTION).json()
    for st in data["statements"]:
        assert st["quotes"] and {q["provision_id"] for q in st["quotes"]} == set(st["citations"])
        for q in st["quotes"]:
            assert bf.provision("mini", q["provision_id"]).text[q["start"] : q["end"]] == q["text"]


def test_api_ask_options_limit_the_retrieved_list(client):
    r = ask(client, question=QUESTION, options={"top_n": 2})
    assert r.status_code == 200
    assert len(r.json()["retrieved"]) <= 2


@pytest.mark.parametrize("question", ["", "   "])
def test_api_ask_rejects_an_empty_question(client, question):
    r = ask(client, question=question)
    assert r.status_code == 422
    assert r.json()["error"] == "invalid_request"
    assert "question is empty" in r.json()["message"]


def test_api_ask_rejects_a_question_over_2000_characters(client):
    r = ask(client, question="x" * 2001)
    assert r.status_code == 422
    assert "2001 characters; the limit is 2000" in r.json()["message"]


def test_api_ask_accepts_a_question_of_exactly_2000_characters(client):
    assert ask(client, question=("fall protection " * 200)[:2000]).status_code == 200


def test_api_ask_rejects_an_unknown_corpus(client):
    r = client.post("/api/ask", json={"question": QUESTION, "corpus": "nope"})
    assert r.status_code == 404
    assert r.json() == {"error": "not_found", "message": "unknown corpus 'nope'; loaded corpora: mini"}


@pytest.mark.parametrize(
    "body", [{}, {"question": QUESTION, "extra": 1}, {"question": QUESTION, "options": {"top_n": 0}}]
)
def test_api_ask_rejects_malformed_bodies(client, body):
    r = client.post("/api/ask", json=body)
    assert r.status_code == 422
    assert r.json()["error"] == "invalid_request" and r.json()["message"]


def test_api_ask_rejects_a_body_that_is_not_json(client):
    r = client.post(
        "/api/ask", content=b"question=hi", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert r.status_code == 422


def test_api_provision_returns_the_view_with_entities(client):
    r = client.get("/api" + provision_url("mini", "1926.501(b)(2)(i)"))
    assert r.status_code == 200
    data = r.json()
    assert data["provision"]["id"] == "1926.501(b)(2)(i)"
    assert "1926.502(b)" in {x["id"] for x in data["references_out"]}
    assert data["parent"]["id"] == "1926.501(b)(2)" and data["entities"]


def test_api_provision_ids_with_brackets_and_spaces_round_trip(client):
    r = client.get("/api" + provision_url("mini", "1926.500(b)[Leading edge]"))
    assert r.status_code == 200 and r.json()["provision"]["kind"] == "definition"


def test_api_provision_unknown_id_is_404(client):
    r = client.get("/api/provision/mini/1926.999(z)")
    assert r.status_code == 404
    assert r.json() == {"error": "not_found", "message": "provision '1926.999(z)' is not in corpus 'mini'"}


def test_api_provision_unknown_corpus_is_404(client):
    assert client.get("/api/provision/nope/1926.500").status_code == 404


def test_api_health_reports_store_corpora_and_mode(client):
    r = client.get("/api/health")
    assert r.status_code == 200
    assert r.json() | {"detail": ""} == {
        "status": "ok",
        "store": "embedded",
        "store_reachable": True,
        "corpora": ["mini"],
        "mode": "extractive",
        "detail": "",
        "recording": True,
        "records_failed": 0,
    }


def test_openapi_describes_the_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/ask", "/api/health", "/api/provision/{corpus}/{provision_id}"} <= set(paths)
    assert "/ask" not in paths


def test_unknown_api_route_is_a_json_404(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json()["error"] == "not_found"


# --- error mapping ---
def test_a_bifrost_error_maps_to_an_http_error_body(bf, monkeypatch):
    app = create_app(bf)
    monkeypatch.setattr(bf, "show", lambda *a: (_ for _ in ()).throw(StoreError("graph store down")))
    r = TestClient(app, raise_server_exceptions=False).get("/api/provision/mini/1926.500")
    assert r.status_code == 503
    ref = r.json()["reference"]
    assert r.json() == {
        "error": "unavailable",
        "reference": ref,
        "message": f"a data store is unavailable (reference {ref}); the server log has the details",
    }


def test_an_unexpected_error_is_a_clean_500_and_the_server_keeps_serving(bf, monkeypatch, caplog):
    app = create_app(bf)
    monkeypatch.setattr(bf, "show", lambda *a: 1 / 0)
    c = TestClient(app, raise_server_exceptions=False)
    r = c.get("/api/provision/mini/1926.500")
    assert r.status_code == 500
    assert r.json()["error"] == "internal_error" and "ZeroDivision" not in r.text
    page = c.get("/provision/mini/1926.500")
    assert page.status_code == 500 and "internal error" in page.text and "Traceback" not in page.text
    assert "unhandled error" in caplog.text
    assert c.get("/api/health").status_code == 200


def test_health_is_503_when_the_store_is_unreachable(bf, monkeypatch, caplog):
    app = create_app(bf)
    monkeypatch.setattr(bf.sql, "corpora", lambda: (_ for _ in ()).throw(RuntimeError("db gone")))
    r = TestClient(app, raise_server_exceptions=False).get("/api/health")
    assert r.status_code == 503
    assert r.json()["store_reachable"] is False and "db gone" not in r.text
    ref = r.json()["detail"].split("reference ")[1].split(")")[0]
    assert f"health check {ref}" in caplog.text and "db gone" in caplog.text


# --- pages ---
def test_search_page_has_the_form_and_example_links(client):
    html = client.get("/").text
    assert '<label for="q"' in html and 'name="q"' in html and ">Search</button>" in html
    assert 'name="viewport"' in html and 'class="skip-link" href="#main"' in html
    assert "/ask?q=What+must+an+employee" in html


def test_results_page_links_citations_to_sources_and_provision_pages(client):
    html = client.get("/ask", params={"q": QUESTION, "corpus": "mini"}).text
    assert 'href="#src-1"' in html and 'id="src-1"' in html
    assert provision_url("mini", SCRIPT_ID) in html
    assert "Extractive answer" in html and "Why retrieved" in html
    assert "https://www.ecfr.gov/current/title-29/section-1926.503" in html
    assert "<svg" in html and "REFERS_TO" in html


def test_results_page_marks_the_quoted_span_in_the_cited_provision(client, bf):
    answer = bf.ask(QUESTION, "mini")
    html = client.get("/ask", params={"q": QUESTION, "corpus": "mini"}).text
    for st in answer.statements:
        for q in st.quotes:
            marked = q.text.replace("<", "&lt;").replace(">", "&gt;")
            assert f"<mark>{marked}</mark>" in html


def test_results_page_escapes_the_question_and_document_text(client):
    q = f"{SCRIPT} What training must the employer provide?"
    html = client.get("/ask", params={"q": q, "corpus": "mini"}).text
    assert SCRIPT not in html
    assert html.count(ESCAPED) >= 2  # the question in the box and the provision text


def test_provision_page_escapes_text_and_heading(client):
    html = client.get(provision_url("mini", SCRIPT_ID)).text
    assert SCRIPT not in html and ESCAPED in html
    assert "<b>requirements</b>" not in client.get(provision_url("mini", "1926.503")).text


def test_provision_page_links_parent_children_references_and_entities(client):
    html = client.get(provision_url("mini", "1926.501(b)(2)(i)")).text
    assert provision_url("mini", "1926.501(b)(2)") in html
    assert provision_url("mini", "1926.502(b)") in html
    assert provision_url("mini", "1926.501(b)(2)(i)[Note]") in html
    assert "/entity/mini/" in html
    assert quote("[Note]", safe="") in html


def test_entity_page_lists_its_provisions(client):
    r = client.get("/entity/mini/employer")
    assert r.status_code == 200 and "/provision/mini/" in r.text


@pytest.mark.parametrize(
    "q,status,text", [("", 400, "question is empty"), ("x" * 2001, 400, "limit is 2000")]
)
def test_results_page_shows_validation_errors_on_the_search_form(client, q, status, text):
    r = client.get("/ask", params={"q": q, "corpus": "mini"})
    assert r.status_code == status and text in r.text and 'role="alert"' in r.text


def test_results_page_unknown_corpus_is_a_404_page(client):
    r = client.get("/ask", params={"q": QUESTION, "corpus": "nope"})
    assert r.status_code == 404 and "unknown corpus" in r.text and "<html" in r.text


def test_provision_page_unknown_id_is_a_404_page(client):
    r = client.get("/provision/mini/1926.999(z)")
    assert r.status_code == 404 and "is not in corpus" in r.text


def test_refusal_page_shows_no_sources(client, bf, monkeypatch):
    refused = bf.ask(QUESTION, "mini").model_copy(
        update={
            "refused": True,
            "statements": [],
            "citations": [],
            "text": "The indexed regulations do not answer this question.",
        }
    )
    monkeypatch.setattr(bf, "ask", lambda *a, **k: refused)
    html = client.get("/ask", params={"q": "anything", "corpus": "mini"}).text
    assert "No answer in the indexed regulations" in html and "Retrieved but not used" in html
    assert 'id="src-1"' not in html and "<svg" not in html
    assert provision_url("mini", refused.unused[0]) in html


def test_static_css_is_served(client):
    r = client.get("/static/style.css")
    assert r.status_code == 200 and "@media" in r.text


def test_a_shortlist_page_says_where_similar_questions_were_answered(client, bf, monkeypatch):
    from bifrost.core.answer_types import Elsewhere, Outcome, Shortlisted

    said = "These rules may not decide it. OSHA has answered similar questions under 29 CFR 1910.147."
    given = bf.ask(QUESTION, "mini")
    first = given.citations[0]
    pointed = given.model_copy(
        update={
            "outcome": Outcome.SHORTLIST,
            "governing": [],
            "verdict": None,
            "shortlist": [Shortlisted(id=first.id, corpus="mini", probability=0.2)],
            "elsewhere": Elsewhere(said=said),
        }
    )
    monkeypatch.setattr(bf, "ask", lambda *a, **k: pointed)
    html = client.get("/ask", params={"q": "anything", "corpus": "mini"}).text
    assert "The rules most likely to decide your question" in html and said in html
