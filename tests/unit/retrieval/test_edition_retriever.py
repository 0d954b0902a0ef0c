"""`EditionRetriever` over a tiny corpus with two editions held in memory: each edition's retrieval
ranks only that edition's provisions, follows only that edition's cross-references and quotes that
edition's text (real BM25 and dense indexes; a bag-of-words embedder stands in for the model)."""

from __future__ import annotations

import pytest

from bifrost.core.settings import Settings
from bifrost.core.answer_types import Via
from bifrost.core.types import Edition, Provision, ProvisionKind, Reference
from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.channels.dense import DenseRanker
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.edition_retriever import EditionRetriever
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.result import DECAY
from tests.unit.retrieval.ranking.test_hybrid import WordsEmbedder

C = "c"
K = ProvisionKind
QUESTION = "are guardrails required on scaffold platforms"


def prov(
    pid: str, parent: str | None, kind: ProvisionKind, order: int, text: str = "", heading: str = ""
) -> Provision:
    return Provision(corpus=C, id=pid, parent_id=parent, kind=kind, order=order, text=text, heading=heading)


COMMON = [
    prov("1926", None, K.PART, 0, heading="Construction"),
    prov("1926.1", "1926", K.SECTION, 1, heading="Scaffolds."),
    prov("1926.2", "1926", K.SECTION, 3, heading="Planks."),
    prov("1926.2(a)", "1926.2", K.PARAGRAPH, 4, "Planks shall be inspected before each shift."),
]
EDITION_1 = [
    *COMMON,
    prov(
        "1926.1(a)", "1926.1", K.PARAGRAPH, 2, "Guardrails are required on scaffold platforms. See 1926.2(a)."
    ),
    prov("1926.3(a)", "1926.2", K.PARAGRAPH, 5, "Ladders shall be secured against columns."),
]
EDITION_2 = [
    *COMMON,
    prov(
        "1926.1(a)",
        "1926.1",
        K.PARAGRAPH,
        2,
        "Guardrails or safety nets are required on scaffold platforms. See 1926.4(a).",
    ),
    prov("1926.4(a)", "1926.2", K.PARAGRAPH, 6, "Safety nets shall be drop-tested."),
]
REFERENCES = {
    1: [Reference(corpus=C, source_id="1926.1(a)", target_id="1926.2(a)", raw="1926.2(a)")],
    2: [Reference(corpus=C, source_id="1926.1(a)", target_id="1926.4(a)", raw="1926.4(a)")],
}
PROVISIONS = {1: EDITION_1, 2: EDITION_2}


def retriever_of(number: int, settings: Settings, **config) -> EditionRetriever:
    provisions, references = PROVISIONS[number], REFERENCES[number]
    bm25 = Bm25Ranker(settings, edition=number)
    bm25.warm_up(C, provisions, persist=False)
    dense = DenseRanker(settings, embedder=WordsEmbedder())
    dense.warm_up(C, provisions)
    edition = Edition(corpus=C, number=number, date=f"202{number}-01-01", content_hash=f"h{number}")
    return EditionRetriever(
        edition,
        provisions,
        NavigatorIndex.build(provisions, references),
        bm25,
        dense,
        RetrievalConfig(**config),
    )


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.mark.parametrize("number", [1, 2])
def test_retrieval_ranks_only_the_editions_own_provisions_and_never_a_container(settings, number):
    result = retriever_of(number, settings).retrieve(QUESTION)
    ids = [it.id for it in result.items]
    assert ids[0] == "1926.1(a)"
    assert set(ids) <= {p.id for p in PROVISIONS[number]} - {"1926"}
    assert result.mode == "edition" and result.relevance > 0


def test_a_provision_of_the_other_edition_is_never_retrieved(settings):
    assert "1926.4(a)" not in [
        it.id for it in retriever_of(1, settings).retrieve("safety nets drop-tested").items
    ]
    assert "1926.3(a)" not in [
        it.id for it in retriever_of(2, settings).retrieve("ladders secured columns").items
    ]


def test_cross_references_are_the_editions_own(settings):
    one = {it.id: it for it in retriever_of(1, settings).retrieve(QUESTION).items}
    two = {it.id: it for it in retriever_of(2, settings).retrieve(QUESTION).items}
    assert Via.REFERS_TO in one["1926.2(a)"].via and "cross-reference from 1926.1(a)" in one["1926.2(a)"].why
    assert Via.REFERS_TO in two["1926.4(a)"].via and two["1926.4(a)"].path == ("1926.1(a)", "1926.4(a)")
    assert Via.REFERS_TO not in two["1926.2(a)"].via  # edition 2 no longer refers to it


def test_a_cross_reference_keeps_the_decayed_score_of_its_seed_when_that_beats_its_own(settings):
    items = {it.id: it for it in retriever_of(2, settings).retrieve(QUESTION).items}
    assert items["1926.4(a)"].score >= round(items["1926.1(a)"].score * DECAY[Via.REFERS_TO], 6) - 1e-6


def test_the_lookup_quotes_the_editions_text(settings):
    assert "See 1926.2(a)" in retriever_of(1, settings).lookup()("1926.1(a)").text
    assert "safety nets" in retriever_of(2, settings).lookup()("1926.1(a)").text
    assert retriever_of(2, settings).lookup()("1926.3(a)") is None


def test_without_the_navigator_graph_nothing_is_reached_by_reference_or_family(settings):
    items = retriever_of(2, settings, use_dng=False).retrieve(QUESTION).items
    assert all(set(it.via) <= {Via.LEXICAL, Via.DENSE} for it in items)


def test_top_n_cuts_the_list(settings):
    assert len(retriever_of(1, settings, top_n=2).retrieve(QUESTION).items) == 2


def test_the_note_names_the_edition_and_how_it_was_ranked(settings):
    note = retriever_of(2, settings).note()
    assert "edition 2 (2022-01-01)" in note and "lexical + dense" in note
