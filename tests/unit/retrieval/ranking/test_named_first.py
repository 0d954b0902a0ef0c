"""A question that names a provision is answered from it: the named provision leads the ranking and the cited
set; one the corpus lacks is said, never dropped."""

from __future__ import annotations

from bifrost.core.precedent_types import ResolvedCite, named_note
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.registry import jurisdiction
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.ranking.named_first import named_first
from bifrost.retrieval.result import RetrievalResult

PROVISIONS = {
    "1926.651": Provision(corpus="c", id="1926.651", kind=ProvisionKind.SECTION, heading="Excavations."),
    "1926.651(k)(1)": Provision(
        corpus="c", id="1926.651(k)(1)", kind=ProvisionKind.PARAGRAPH, text="Daily inspections."
    ),
}


def item(pid: str, score: float) -> RetrievedItem:
    return RetrievedItem(corpus="c", id=pid, score=score, via=(Via.LEXICAL,))


def result(named: list[ResolvedCite], cited: bool = True) -> RetrievalResult:
    items = [item("1926.652(a)", 0.9), item("1926.651(k)(1)", 0.5), item("1926.100(a)", 0.4)]
    return RetrievalResult(
        items=items,
        decomposition=Decomposition(),
        mode="ltr",
        evidence=0.0,
        relevance=0.5,
        timings={},
        cited=items[:1] if cited else None,
        named=named,
    )


def test_the_named_paragraph_leads_the_ranking_and_the_cited_set():
    out = named_first(
        result([ResolvedCite(written="1926.651(k)(1)", target_id="1926.651(k)(1)")]), PROVISIONS.get, 3
    )
    assert [it.id for it in out.items] == ["1926.651(k)(1)", "1926.652(a)", "1926.100(a)"]
    assert [it.id for it in out.cited] == ["1926.651(k)(1)", "1926.652(a)"] and Via.NAMED in out.items[0].via


def test_a_named_section_without_text_is_left_to_the_ranker():
    before = result([ResolvedCite(written="1926.651", target_id="1926.651")])
    assert named_first(before, PROVISIONS.get, 3) is before


def test_with_no_cited_set_the_answer_cuts_from_the_ranking_the_named_provision_leads():
    out = named_first(
        result([ResolvedCite(written="1926.651(k)(1)", target_id="1926.651(k)(1)")], cited=False),
        PROVISIONS.get,
        3,
    )
    assert out.cited is None and out.items[0].id == "1926.651(k)(1)"


def test_what_the_corpus_lacks_is_said_and_a_successor_is_named():
    note = named_note(
        [
            ResolvedCite(written="1910.134", reason="not in corpus: 1910.134"),
            ResolvedCite(
                written="1926.550(a)(9)",
                target_id="1926 Subpart CC",
                via="successor",
                reason="1926.550 is not in the current edition; its successor is 1926 Subpart CC",
            ),
            ResolvedCite(written="1926.651(k)(1)", target_id="1926.651(k)(1)"),
        ],
        "osha-1926",
    )
    assert note.splitlines() == [
        "1910.134: not found in the current edition of osha-1926 (not in corpus: 1910.134).",
        "1926.550(a)(9): 1926.550 is not in the current edition; its successor is 1926 Subpart CC; answered "
        "from 1926 Subpart CC.",
    ]


def words(text: str) -> list[str]:
    return [w for w in text.lower().replace("?", " ").split() if w not in {"the", "a", "to", "of"}]


def test_a_question_of_nothing_but_the_named_provision_cites_it_alone():
    named = [ResolvedCite(written="1926.651(k)(1)", target_id="1926.651(k)(1)")]
    out = named_first(result(named), PROVISIONS.get, 3, "What does 1926.651(k)(1) require?", words)
    # stated whole
    assert [it.id for it in out.cited] == ["1926.651(k)(1)"] and out.whole == ("1926.651(k)(1)",)
    more = named_first(result(named), PROVISIONS.get, 3, "Does 1926.651(k)(1) apply to scissor lifts?", words)
    assert [it.id for it in more.cited] == ["1926.651(k)(1)", "1926.652(a)"]


def test_a_citation_found_in_several_rulebooks_leads_nowhere():
    both = [
        ResolvedCite(written="Rule 3.2.1", target_id="1926.651(k)(1)"),
        ResolvedCite(written="Rule 3.2.1", target_id="1926.651"),
    ]
    before = result(both)
    assert named_first(before, PROVISIONS.get, 3) is before


def test_a_loosely_written_citation_alone_still_cites_only_itself():
    named = [ResolvedCite(written="1926.651(k)(1)", target_id="1926.651(k)(1)")]
    cfr = jurisdiction("us-cfr")
    out = named_first(
        result(named), PROVISIONS.get, 3, "what does 1926.651,k,1 say", words, loosen=cfr.loosen
    )
    assert [it.id for it in out.cited] == ["1926.651(k)(1)"]


def test_a_rule_resolved_only_by_where_the_question_stands_leads_nowhere():
    before = result([ResolvedCite(written="Rule 3.2.1", target_id="1926.651(k)(1)", via="context")])
    assert named_first(before, PROVISIONS.get, 3) is before
