"""Answers carry each cited rule's conditions against the question's facts, checked in the answer step (the
web page shows them as a table); a home built before requirement records answers as before, with one warning
naming the command."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete

from bifrost.app.facade import Bifrost
from bifrost.app.web.app import create_app
from bifrost.core.settings import Settings
from bifrost.core.store.sql_models import RequirementRow
from bifrost.retrieval.answer.applicability import applicability
from tests.unit.mini_corpus import EDGE_RULE, build_corpus, write_edge_corpus

EDGE = EDGE_RULE
Q = "Must an employee working 8 feet above a lower level on an unprotected edge be protected?"


@pytest.fixture(scope="module")
def bf(tmp_path_factory):
    root = tmp_path_factory.mktemp("conditions")
    bf = Bifrost(Settings(home=root / "home"))
    build_corpus(bf, "mini", write_edge_corpus(root))
    yield bf
    bf.close()


def test_the_answer_checks_the_cited_rules_threshold_against_the_questions_figure(bf):
    answer = bf.ask(Q, "mini")
    assert EDGE in [c.id for c in answer.citations]
    checks = [c for c in answer.conditions if c.provision_id == EDGE]
    assert ("quantity", ">=", "met", "8 feet") in {(c.kind, c.comparator, c.status, c.fact) for c in checks}
    assert any(c.kind == "exception" and c.status == "not_stated" for c in checks)


def test_the_answer_carries_the_figures_it_read_from_the_question_and_checks_them_as_read(bf, monkeypatch):
    from bifrost.retrieval.answer import build

    seen = []

    def checked(question, cited, reqs, tokenize=None, figures=None):
        seen.append(figures)
        return applicability(question, cited, reqs, tokenize, figures)

    monkeypatch.setattr(build, "applicability", checked)
    answer = bf.ask(Q, "mini")
    assert [(f.text, f.measure) for f in answer.figures] == [("8 feet", "height")]
    # the conditions are checked against the figures read once at the start of `ask`, not read again
    assert seen and all(f is not None and [(q.text, m) for q, m in f] == [("8 feet", "height")] for f in seen)
    assert any(c.status == "met" and c.fact == "8 feet" for c in answer.conditions)


def test_the_results_page_lists_what_the_cited_rules_turn_on(bf):
    page = TestClient(create_app(bf)).get("/ask", params={"q": Q, "corpus": "mini"})
    assert (
        page.status_code == 200
        and "What the cited rules turn on" in page.text
        and "meets it (8 feet)" in page.text
        and "Read from your question: 8 feet (height)." in page.text
    )


def test_a_home_without_requirement_records_answers_with_one_warning(bf):
    with bf.sql.session() as s:
        s.execute(delete(RequirementRow).where(RequirementRow.corpus == "mini"))
    bf.pipeline.forget("mini")
    try:
        answer = bf.ask(Q, "mini")
        assert answer.citations and answer.conditions == []
        assert [w for w in answer.warnings if "requirement records" in w] == [answer.warnings[0]]
        assert "bifrost build navigator --corpus mini" in answer.warnings[0]
    finally:
        bf.build_navigator("mini")
    assert bf.ask(Q, "mini").warnings == []
