"""Several corpora in one question: names are checked, answers merged with the corpus on every citation."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.answer_types import (
    Answer,
    AnswerMode,
    Citation,
    Outcome,
    PlannedProvision,
    RetrievedItem,
    Statement,
    Verdict,
)
from bifrost.retrieval.multi_corpus import is_several, merge_answers, parse_corpora

KNOWN = ["adgm", "osha-1926"]


def answer(
    corpus: str,
    cited: str,
    text: str,
    refused: bool = False,
    outcome: Outcome = Outcome.ANSWERED,
    verdict: str | None = None,
) -> Answer:
    return Answer(
        question="q",
        corpus=corpus,
        mode=AnswerMode.EXTRACTIVE,
        refused=refused,
        outcome=Outcome.REFUSED if refused else outcome,
        verdict=Verdict(value=verdict, provision_id=cited, words=text) if verdict else None,
        plan=[] if refused else [PlannedProvision(id=cited, role="rule", path=(cited,))],
        text="refused" if refused else text,
        statements=[] if refused else [Statement(text=text, citations=(cited,))],
        citations=[] if refused else [Citation(corpus=corpus, id=cited, text=text)],
        retrieved=[RetrievedItem(corpus=corpus, id=f"{cited}-{i}", score=1.0 - i / 10) for i in range(3)],
        timings={"total": 1.0},
    )


def embed(texts: list[str]) -> np.ndarray:
    """Question and 'close' texts point the same way; anything else is orthogonal."""
    return np.array([[1.0, 0.0] if ("close" in t or t == "q") else [0.0, 1.0] for t in texts])


def test_a_list_or_all_names_several_corpora_and_each_name_must_exist():
    assert is_several("osha-1926,adgm") and is_several("all") and not is_several("osha-1926")
    assert parse_corpora("osha-1926, adgm,osha-1926", KNOWN) == ["osha-1926", "adgm"]
    assert parse_corpora("all", KNOWN) == KNOWN
    with pytest.raises(NotFoundError, match="unknown corpus 'ecfr'; loaded corpora: adgm, osha-1926"):
        parse_corpora("osha-1926,ecfr", KNOWN)
    with pytest.raises(BifrostError, match="give a corpus name"):
        parse_corpora(" , ", KNOWN)


def test_the_corpus_whose_cited_text_is_closest_answers_and_a_near_tie_joins_it():
    merged = merge_answers(
        "q", [answer("osha-1926", "1926.1", "far text"), answer("adgm", "A.1", "close text")], embed
    )
    assert [s.corpus for s in merged.statements] == ["adgm"]  # the far corpus does not pad the answer
    assert [(c.corpus, c.id) for c in merged.citations] == [("adgm", "A.1")]
    assert merged.corpus == "osha-1926,adgm" and not merged.refused and merged.timings == {"total": 2.0}
    tie = merge_answers(
        "q", [answer("osha-1926", "1926.1", "close one"), answer("adgm", "A.1", "close two")], embed
    )
    assert sorted(s.corpus for s in tie.statements) == ["adgm", "osha-1926"]


def test_retrieved_lists_are_fused_by_rank_and_keep_their_corpus():
    merged = merge_answers("q", [answer("osha-1926", "1926.1", "far"), answer("adgm", "A.1", "close")], embed)
    assert len(merged.retrieved) == 3
    assert {it.corpus for it in merged.retrieved[:2]} == {"adgm", "osha-1926"}


def test_a_corpus_that_refuses_adds_nothing_and_all_refusing_is_a_refusal():
    one = merge_answers(
        "q", [answer("osha-1926", "1926.1", "x", refused=True), answer("adgm", "A.1", "close")], embed
    )
    assert [c.corpus for c in one.citations] == ["adgm"] and not one.refused
    none = merge_answers(
        "q", [answer("osha-1926", "1926.1", "x", True), answer("adgm", "A.1", "y", True)], embed
    )
    assert none.refused and none.statements == [] and none.text == "refused"


def test_the_merged_text_marks_each_citation_with_its_corpus():
    merged = merge_answers(
        "q", [answer("osha-1926", "1926.1", "close one"), answer("adgm", "A.1", "close two")], embed
    )
    assert merged.text == "close one [osha-1926 1926.1]\nclose two [adgm A.1]"


def test_a_past_edition_answered_from_is_kept_and_several_are_named_in_the_note():
    from bifrost.core.types import Edition
    from bifrost.retrieval.edition_retriever import edition_note

    def past(a: Answer, number: int) -> Answer:
        edition = Edition(corpus=a.corpus, number=number, date="2024-01-01")
        return a.model_copy(update={"edition": edition, "note": edition_note(edition)})

    osha, adgm = answer("osha-1926", "1926.1", "far"), answer("adgm", "A.1", "close")
    one = merge_answers("q", [past(osha, 1), adgm], embed)
    assert (one.edition.corpus, one.edition.number) == ("osha-1926", 1)
    both = merge_answers("q", [past(osha, 1), past(adgm, 2)], embed)
    assert both.edition is None
    assert (
        "osha-1926 as of edition 1 (2024-01-01)" in both.note
        and "adgm as of edition 2 (2024-01-01)" in both.note
    )


def test_an_answer_comes_before_another_corpus_not_stating_it_and_keeps_its_outcome_verdict_and_plan():
    merged = merge_answers(
        "q",
        [
            answer("osha-1926", "1926.1", "close but not stated", outcome=Outcome.NOT_STATED),
            answer("adgm", "A.1", "far", verdict="yes"),
        ],
        embed,
    )
    assert merged.outcome is Outcome.ANSWERED and [s.corpus for s in merged.statements] == ["adgm"]
    assert merged.verdict is not None and (merged.verdict.value, merged.verdict.provision_id) == (
        "yes",
        "adgm:A.1",
    )
    assert [(p.id, p.path) for p in merged.plan] == [("adgm:A.1", ("adgm:A.1",))]


def test_not_stated_everywhere_is_not_stated_and_disagreeing_verdicts_give_none():
    both = merge_answers(
        "q",
        [
            answer("osha-1926", "1926.1", "x", outcome=Outcome.NOT_STATED),
            answer("adgm", "A.1", "y", outcome=Outcome.NOT_STATED),
        ],
        embed,
    )
    assert both.outcome is Outcome.NOT_STATED and not both.refused
    split = merge_answers(
        "q",
        [
            answer("osha-1926", "1926.1", "close one", verdict="no"),
            answer("adgm", "A.1", "close two", verdict="yes"),
        ],
        embed,
    )
    assert split.verdict is None and split.outcome is Outcome.ANSWERED


def test_a_citation_is_reported_not_found_only_when_no_corpus_holds_it():
    from bifrost.core.precedent_types import ResolvedCite
    from bifrost.core.answer_types import Answer, AnswerMode
    from bifrost.retrieval.multi_corpus import merged_named

    def answer(corpus, *named):
        return Answer(
            question="q", corpus=corpus, mode=AnswerMode.EXTRACTIVE, refused=False, text="", named=list(named)
        )

    held = ResolvedCite(written="1926.651(k)(1)", target_id="1926.651(k)(1)")
    lacked = ResolvedCite(written="1926.651(k)(1)", reason="no such passage")
    nowhere = ResolvedCite(written="1910.134", reason="not in corpus")
    merged = merged_named([answer("osha-1926", held, nowhere), answer("adgm", lacked, nowhere)])
    assert merged == [held, nowhere]


def test_a_shortlist_ranks_below_a_stated_rule_and_above_not_stated_and_keeps_its_list_and_lead_line():
    from bifrost.core.answer_types import Shortlisted
    from bifrost.retrieval.answer.build import SHORTLIST_TEXT

    short = answer("osha-1926", "1926.1", "close, none sure", outcome=Outcome.SHORTLIST).model_copy(
        update={"shortlist": [Shortlisted(id="1926.1", corpus="osha-1926", probability=0.4)]}
    )
    stated = merge_answers("q", [short, answer("adgm", "A.1", "far")], embed)
    assert stated.outcome is Outcome.ANSWERED and stated.shortlist == []
    merged = merge_answers("q", [short, answer("adgm", "A.1", "close", outcome=Outcome.NOT_STATED)], embed)
    assert merged.outcome is Outcome.SHORTLIST and [s.id for s in merged.shortlist] == ["1926.1"]
    assert merged.text.startswith(SHORTLIST_TEXT)


def test_a_merged_refusal_keeps_the_pointer_a_corpus_gave():
    from bifrost.core.answer_types import Elsewhere

    said = "osha-1926 does not set this. OSHA has answered similar questions under 29 CFR 1910.147."
    pointed = answer("osha-1926", "1926.1", "x", refused=True).model_copy(
        update={"elsewhere": Elsewhere(said=said), "text": f"refused\n\n{said}"}
    )
    merged = merge_answers("q", [pointed, answer("adgm", "A.1", "y", refused=True)], embed)
    assert merged.refused and merged.elsewhere is not None and said in merged.text


def test_a_pointer_to_a_corpus_that_answers_is_dropped_and_every_other_corpus_pointer_is_said():
    from bifrost.core.answer_types import Elsewhere

    to_records = Elsewhere(said="osha-1926 does not set this: ask it there (--corpus rk).", corpus="rk")
    to_1910 = Elsewhere(said="adgm does not set this. OSHA has answered it under 29 CFR 1910.147.")
    construction = answer("osha-1926", "1926.1", "x", outcome=Outcome.NOT_STATED)
    records = answer("rk", "1904.7", "close: recordable")
    other = answer("adgm", "A.1", "y", outcome=Outcome.NOT_STATED)
    merged = merge_answers(
        "q",
        [
            construction.model_copy(update={"elsewhere": to_records}),
            records,
            other.model_copy(update={"elsewhere": to_1910}),
        ],
        embed,
    )
    assert [c.corpus for c in merged.citations] == ["rk"]
    assert to_records.said not in merged.text and merged.elsewhere == to_1910 and to_1910.said in merged.text


def test_with_the_routers_chances_the_likelier_corpus_leads_whatever_its_cosine():
    from bifrost.core.answer_types import CorpusChance

    chances = [CorpusChance(corpus="osha-1926", probability=0.9, asked=True)]
    chances.append(CorpusChance(corpus="adgm", probability=0.6, asked=True))
    merged = merge_answers(
        "q", [answer("adgm", "A.1", "close text"), answer("osha-1926", "1926.1", "far text")], embed, chances
    )
    assert [c.corpus for c in merged.citations] == [
        "osha-1926",
        "adgm",
    ]  # both asked: both more likely than not
    assert merged.routing == chances
