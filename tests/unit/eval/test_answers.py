"""first_statement_gold: an answer counts when its first statement cites a gold provision; the new
answer's one knob is chosen on the other folds only; spans are re-checked against the stored text."""

from __future__ import annotations

from bifrost.core.types import Answer, AnswerMode, Provision, ProvisionKind, Quote, Statement
from bifrost.eval.answers import Case, Outcome, cross_validated, outcome, summarize
from bifrost.eval.hierarchy import cfr_related
from bifrost.eval.splits import fold_of
from bifrost.eval.questions import Question

TEXT = "Top rails shall be 42 inches high. Midrails shall be installed."
P = {"1926.502(b)(1)": Provision(corpus="c", id="1926.502(b)(1)", kind=ProvisionKind.PARAGRAPH, text=TEXT)}


def stated(*pids: str, start: int = 0, end: int = 34) -> Statement:
    return Statement(text=TEXT[start:end], citations=pids,
                     quotes=tuple(Quote(provision_id=p, start=start, end=end, text=TEXT[start:end]) for p in pids))


def ans(*statements: Statement, refused: bool = False) -> Answer:
    return Answer(question="How high must top rails be?", corpus="c", mode=AnswerMode.EXTRACTIVE, refused=refused,
                  text="", statements=list(statements))


def test_the_first_statement_must_cite_a_gold_provision():
    o = outcome(ans(stated("1926.502(b)(1)")), ["1926.502(b)(1)"], cfr_related, P.get)
    assert o.hit and o.hit_h and o.spans_ok and o.first == ("1926.502(b)(1)",)
    later = outcome(ans(stated("1926.502(b)"), stated("1926.502(b)(1)")), ["1926.502(b)(1)"], cfr_related, P.get)
    assert not later.hit and later.hit_h  # a gold provision cited second does not count; its parent earns hierarchy credit
    assert later.cited == ("1926.502(b)", "1926.502(b)(1)")


def test_a_refusal_is_a_miss():
    assert not outcome(ans(refused=True), ["1926.502(b)(1)"], cfr_related, P.get).hit


def test_a_span_that_is_not_the_stored_text_is_reported():
    bad = Statement(text="x", citations=("1926.502(b)(1)",),
                    quotes=(Quote(provision_id="1926.502(b)(1)", start=1, end=35, text=TEXT[0:34]),))
    assert not outcome(ans(bad), ["1926.502(b)(1)"], cfr_related, P.get).spans_ok


def case(qid: str, **hits: bool) -> Case:
    oc = {name: Outcome((), hit, hit, False, 1, (), True) for name, hit in hits.items()}
    return Case(Question(id=qid, question="q", gold=("g",)), "set", "quantity", oc)


def test_the_knob_is_chosen_on_the_other_folds_only():
    # "fact-reach" wins every question but one; that one is answered by the choice made without it
    cases = [case(f"q{i}", rank=False, fact=False, **{"fact-reach": True}) for i in range(20)]
    odd = case("odd", rank=True, fact=True, **{"fact-reach": False})
    hits, chosen = cross_validated([*cases, odd], folds=5)
    assert chosen == ["fact-reach"] * 5 and hits[-1] is False and all(hits[:-1])


def test_ties_go_to_the_simpler_variant():
    cases = [case(f"q{i}", rank=True, fact=True, **{"fact-reach": True}) for i in range(10)]
    assert set(cross_validated(cases, folds=2)[1]) == {"fact"}


def test_summary_reports_before_and_cross_validated_after():
    cases = [case(f"q{i}", rank=i % 2 == 0, fact=True, **{"fact-reach": True}) for i in range(10)]
    s = summarize(cases, folds=2)
    assert s["strategies"]["rank"]["first_statement_gold"]["mean"] == 0.5
    assert s["cv"]["first_statement_gold"]["mean"] == 1.0 and s["cv"]["vs_rank"]["only_new"] == 5
    assert {fold_of(c.question.id, 2) for c in cases} == {0, 1}
