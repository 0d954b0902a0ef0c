"""Scoring answers: what an answer cites, its first statement, its verdict; the plan policy chosen on
the other question sets only; refused and "not stated" answers cite nothing."""

from __future__ import annotations

import pytest

from bifrost.core.answer_types import Answer, AnswerMode, Outcome, Quote, Statement, Verdict
from bifrost.core.types import Provision, ProvisionKind
from bifrost.eval.answers import (
    POLICIES,
    Case,
    Scored,
    report_md,
    scored,
    summarize,
    system_figures,
    validated,
)
from bifrost.graph_builders.jurisdictions.us_cfr.hierarchy import cfr_related
from bifrost.eval.questions import Question

TEXT = "Top rails shall be 42 inches high. Midrails shall be installed."
P = {"1926.502(b)(1)": Provision(corpus="c", id="1926.502(b)(1)", kind=ProvisionKind.PARAGRAPH, text=TEXT)}


def stated(*pids: str, start: int = 0, end: int = 34) -> Statement:
    return Statement(
        text=TEXT[start:end],
        citations=pids,
        quotes=tuple(Quote(provision_id=p, start=start, end=end, text=TEXT[start:end]) for p in pids),
    )


def ans(
    *statements: Statement,
    refused: bool = False,
    outcome: Outcome = Outcome.ANSWERED,
    verdict: str | None = None,
) -> Answer:
    return Answer(
        question="How high must top rails be?",
        corpus="c",
        mode=AnswerMode.EXTRACTIVE,
        refused=refused,
        outcome=Outcome.REFUSED if refused else outcome,
        text="",
        statements=list(statements),
        verdict=Verdict(value=verdict, provision_id="1926.502(b)(1)", words=TEXT[:34]) if verdict else None,
    )


def test_an_answer_cites_every_provision_its_statements_cite_and_keeps_its_verdict():
    s = scored(ans(stated("1926.502(b)"), stated("1926.502(b)(1)"), verdict="no"), P.get)
    assert s.cited == ("1926.502(b)", "1926.502(b)(1)") and s.first == ("1926.502(b)",) and s.verdict == "no"


def test_a_refused_or_not_stated_answer_cites_nothing():
    assert scored(ans(refused=True), P.get).cited == ()
    assert scored(ans(stated("1926.502(b)(1)"), outcome=Outcome.NOT_STATED), P.get).cited == ()


def test_a_span_that_is_not_the_stored_text_is_reported():
    bad = Statement(
        text="x",
        citations=("1926.502(b)(1)",),
        quotes=(Quote(provision_id="1926.502(b)(1)", start=1, end=35, text=TEXT[0:34]),),
    )
    assert not scored(ans(bad), P.get).spans_ok


def case(
    qid: str,
    source: str,
    gold: tuple[str, ...],
    answers: dict[str, tuple[str, ...]],
    verdict: str | None = None,
) -> Case:
    extra = {"verdict": verdict} if verdict else {}
    q = Question(id=qid, question=f"question {qid}", gold=gold, extra=extra)
    return Case(
        q,
        source,
        {
            name: Scored(answers.get(name, ()), answers.get(name, ())[:1])
            for name in (*POLICIES, "rrf", "bifrost-hybrid", "ask")
        },
    )


def test_the_policy_for_a_set_left_out_is_chosen_on_the_other_sets():
    cases = [
        case("a1", "A", ("x",), {"core": ("x",)}),
        case("a2", "A", ("y",), {"core": ("y",)}),
        case("b1", "B", ("z", "w"), {"asks": ("z", "w"), "core": ("z",)}),
    ]
    chosen, by_split = validated(cases, folds=2)
    assert by_split == {"A": "asks", "B": "core"}  # A is answered by what won on B, and B by what won on A
    assert chosen == ["asks", "asks", "core"]


def test_figures_count_precision_recall_first_statement_and_verdicts():
    cases = [case("q1", "A", ("x", "y"), {"core": ("x", "z")}, verdict="no")]
    f = system_figures(cases, ["core"], cfr_related)
    assert f["precision"]["mean"] == 0.5 and f["recall"]["mean"] == 0.5 and f["cites"] == 2.0
    assert f["first_statement_gold"]["mean"] == 1.0
    assert f["verdicts"] == {
        "labelled": 1,
        "given": 0,
        "coverage": 0.0,
        "accuracy": f["verdicts"]["accuracy"],
    }


def test_the_summary_has_asks_answers_and_the_validated_plan_beside_the_baselines():
    cases = [
        case("a1", "A", ("x",), {"core": ("x",), "rrf": ("x", "q", "r"), "ask": ("x", "q")}),
        case("b1", "B", ("z",), {"core": ("z",), "ask": ("z",)}),
    ]
    s = summarize(cases, folds=2, related=cfr_related)
    assert {"ask", "rrf", "bifrost-hybrid", "core", "plan (validated)"} <= set(s["subsets"]["all"])
    assert s["subsets"]["all"]["plan (validated)"]["f1"]["mean"] == 1.0
    assert s["subsets"]["all"]["ask"]["f1"]["mean"] == pytest.approx((2 / 3 + 1) / 2)
    assert "| **ask** |" in report_md(s, "cmd")


def test_eval_answers_scores_what_ask_answers_through_its_one_refusal_gate(tmp_path, monkeypatch):
    """With a judge that answers everything, the cosine rule (set to refuse everything) is never applied
    too."""
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings
    from bifrost.eval.answers import collect
    from bifrost.eval.questions import load_jsonl
    from bifrost.retrieval.config import RetrievalConfig
    from bifrost.retrieval.pipeline import AskPipeline
    from tests.conftest import FIXTURES
    from tests.unit.mini_corpus import built_mini_home

    class AnswerAll:
        threshold, answer_threshold = 0.1, 0.2

        def score(self, question, result):
            return 0.9

    home = built_mini_home(tmp_path)
    monkeypatch.setattr(AskPipeline, "judge", lambda self, corpus: AnswerAll())
    settings = Settings(home=home, retrieval={"refuse_below": 0.999})
    questions = [
        q for q in load_jsonl(FIXTURES / "mini" / "questions-mini.jsonl") if q.answerable and q.gold
    ][:3]
    cases = collect(settings, "mini", [(q, "mini") for q in questions])
    bf = Bifrost(settings)
    try:
        asked = [bf.ask(q.question, corpus="mini") for q in questions]
    finally:
        bf.close()
    default = next(
        name
        for name, policy in POLICIES.items()
        if policy == RetrievalConfig.from_settings(settings).answer_plan
    )
    assert all(a.outcome is Outcome.ANSWERED for a in asked)
    assert [c.outcomes[default].cited for c in cases] == [
        tuple(dict.fromkeys(x for s in a.statements for x in s.citations)) for a in asked
    ]
