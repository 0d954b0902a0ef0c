"""The LangChain adapter: any `Retriever` plus a provision lookup, ``k`` documents whatever the
retriever's configured ``top_n``, ids the lookup does not know left out."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.base import Retriever
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.langchain_retriever import BifrostRetriever
from bifrost.retrieval.result import RetrievalResult

PROVISIONS = {
    f"1926.{i}": Provision(
        corpus="c",
        id=f"1926.{i}",
        kind=ProvisionKind.SECTION,
        heading=f"Rule {i}.",
        text=f"Text of rule {i}.",
        order=i,
        url=f"https://example.org/{i}",
    )
    for i in range(1, 41)
}


class ListRetriever:
    """A `Retriever` over a fixed ranking of 40 provisions: returns the first ``top_n`` of them, as
    every Bifrost retriever cuts its list at ``RetrievalConfig.top_n``; remembers the configs asked with."""

    def __init__(self, config: RetrievalConfig) -> None:
        self.config = config
        self.asked: list[RetrievalConfig] = []

    def retrieve(self, question: str, config: RetrievalConfig | None = None) -> RetrievalResult:
        cfg = config or self.config
        self.asked.append(cfg)
        items = [
            RetrievedItem(corpus="c", id=pid, score=1.0 / n, via=(Via.LEXICAL,), why="keyword match")
            for n, pid in enumerate(PROVISIONS, start=1)
        ][: cfg.top_n]
        return RetrievalResult(
            items=items, decomposition=Decomposition(), mode="list", evidence=0.0, relevance=1.0, timings={}
        )


def adapter(k: int, top_n: int = 20, lookup=PROVISIONS.get) -> tuple[BifrostRetriever, ListRetriever]:
    retriever = ListRetriever(RetrievalConfig(top_n=top_n))
    return BifrostRetriever(retriever=retriever, lookup=lookup, k=k), retriever


def test_the_fake_meets_the_retriever_protocol():
    assert isinstance(ListRetriever(RetrievalConfig()), Retriever)


def test_k_above_the_retrievers_top_n_returns_k_documents():
    docs, retriever = adapter(k=30, top_n=20)
    found = docs.invoke("rules")
    assert [d.metadata["id"] for d in found] == list(PROVISIONS)[:30]
    assert retriever.asked[-1].top_n == 30
    assert retriever.config.top_n == 20  # the retriever's own config is left as it was


def test_k_within_top_n_asks_with_the_retrievers_own_config():
    docs, retriever = adapter(k=5, top_n=20)
    assert len(docs.invoke("rules")) == 5
    assert retriever.asked == [retriever.config]


def test_documents_carry_the_provision_text_id_url_and_how_it_was_found():
    docs, _ = adapter(k=1)
    [doc] = docs.invoke("rules")
    assert doc.page_content == "Rule 1. Text of rule 1."
    assert doc.metadata == {
        "id": "1926.1",
        "corpus": "c",
        "url": "https://example.org/1",
        "score": 1.0,
        "via": ["lexical"],
        "path": [],
        "why": "keyword match",
    }


def test_ids_the_lookup_does_not_know_are_left_out():
    docs, _ = adapter(k=3, lookup=lambda pid: None if pid == "1926.2" else PROVISIONS.get(pid))
    assert [d.metadata["id"] for d in docs.invoke("rules")] == ["1926.1", "1926.3"]


def test_an_object_without_retrieve_is_refused():
    with pytest.raises(ValidationError) as info:
        BifrostRetriever(retriever=object(), lookup=PROVISIONS.get)
    assert "retriever" in str(info.value)


def test_k_must_be_positive():
    with pytest.raises(ValidationError) as info:
        BifrostRetriever(retriever=ListRetriever(RetrievalConfig()), lookup=PROVISIONS.get, k=0)
    assert "k" in str(info.value)
