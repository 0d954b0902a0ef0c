"""Hybrid retrieval over a tiny dual graph, with a deterministic bag-of-words embedder."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from bifrost.core.graph.embedded import EmbeddedGraphStore
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.answer_types import Via
from bifrost.core.types import Edge, EdgeType, Provision, ProvisionKind, Triple, make_uid
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition, swap
from bifrost.retrieval.channels.entity_index import EngIndex
from bifrost.retrieval.ranking.hybrid import HybridRetriever

C = "t"
DIM = 64


class WordsEmbedder:
    """Unit vectors from hashed words: texts sharing words are similar, others orthogonal-ish."""

    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("_", " ").split():
                out[i, zlib.crc32(w.encode()) % DIM] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


PROVS = [
    Provision(corpus=C, id="1", kind=ProvisionKind.SECTION, order=0, text=""),
    Provision(
        corpus=C, id="1(a)", parent_id="1", kind=ProvisionKind.PARAGRAPH, order=1, text="guardrail rule"
    ),
    Provision(corpus=C, id="1(a)(1)", parent_id="1(a)", kind=ProvisionKind.PARAGRAPH, order=2, text="detail"),
    Provision(
        corpus=C, id="1(b)", parent_id="1", kind=ProvisionKind.PARAGRAPH, order=3, text="plan, see 2(k)"
    ),
    Provision(corpus=C, id="2", kind=ProvisionKind.SECTION, order=4, text=""),
    Provision(
        corpus=C, id="2(k)", parent_id="2", kind=ProvisionKind.PARAGRAPH, order=5, text="fall protection plan"
    ),
    Provision(corpus=C, id="2(m)", parent_id="2", kind=ProvisionKind.PARAGRAPH, order=6, text="water pump"),
]


@pytest.fixture
def graph(tmp_path):
    g = EmbeddedGraphStore(SqlStore(f"sqlite:///{tmp_path / 'g.db'}"))
    g.upsert_sections(PROVS)
    g.upsert_edges(
        [Edge(type=EdgeType.HAS, source=make_uid(C, p.parent_id), target=p.uid) for p in PROVS if p.parent_id]
        + [Edge(type=EdgeType.REFERS_TO, source=make_uid(C, "1(b)"), target=make_uid(C, "2(k)"), text="2(k)")]
    )
    return g


def make_index(emb: WordsEmbedder) -> EngIndex:
    names = ["guardrail system", "fall protection plan", "water pump", "employee"]
    sections = [("1(a)",), ("1(b)", "2(k)"), ("2(m)",), ("1(a)", "1(b)", "2(m)")]
    triples = [
        Triple(corpus=C, head="employee", relation="use", tail="guardrail system", section_ids=("1(a)",)),
        Triple(
            corpus=C, head="employee", relation="prepare", tail="fall protection plan", section_ids=("1(b)",)
        ),
    ]
    tri = np.concatenate(
        [
            emb.embed([t.head for t in triples]),
            emb.embed([t.relation for t in triples]),
            emb.embed([t.tail for t in triples]),
        ],
        axis=1,
    )
    return EngIndex(C, names, emb.embed(names), sections, triples, tri, n_provisions=len(PROVS))


def retriever(graph, decomposition: Decomposition, **cfg) -> HybridRetriever:
    emb = WordsEmbedder()
    return HybridRetriever(make_index(emb), graph, emb, lambda q: decomposition, RetrievalConfig(**cfg))


PLAN = Decomposition(
    entities=("employee", "fall protection plan"),
    triples=(("employee", "prepare", "fall protection plan"),),
    swapped=swap((("employee", "prepare", "fall protection plan"),)),
)


def ids(result) -> list[str]:
    return [it.id for it in result.items]


def test_swapping_adds_the_reversed_triple():
    assert swap([("a", "r", "b"), ("c", "r", "c")]) == (("b", "r", "a"),)


def test_intersection_keeps_provisions_matched_by_entities_and_triples(graph):
    r = retriever(graph, PLAN, combine="intersection", lexical_weight=0, use_dng=False)
    res = r.retrieve("who prepares the plan?")
    assert res.mode == "intersection"
    assert ids(res)[0] == "1(b)"
    assert set(ids(res)) <= {"1(a)", "1(b)"}
    assert {Via.ENTITY, Via.TRIPLE} <= set(res.items[0].via)


def test_empty_intersection_falls_back_to_the_union(graph):
    d = Decomposition(entities=("water pump",), triples=(("employee", "prepare", "fall protection plan"),))
    res = retriever(graph, d, combine="intersection", lexical_weight=0, use_dng=False).retrieve("q")
    assert res.mode == "union" and "2(m)" in ids(res)


def test_fallback_none_returns_nothing_without_an_intersection(graph):
    d = Decomposition(entities=("water pump",), triples=(("employee", "prepare", "fall protection plan"),))
    res = retriever(graph, d, combine="intersection", fallback="none", lexical_weight=0).retrieve("q")
    assert res.items == []


def test_cross_references_follow_their_seed_in_reading_order(graph):
    d = Decomposition(entities=("fall protection plan",))
    res = retriever(graph, d, lexical_weight=0, children=False, parents=False).retrieve("plan")
    order = ids(res)
    assert order.index("2(k)") == order.index("1(b)") + 1 or order.index("2(k)") < order.index("1(b)")
    reached = next(it for it in res.items if it.id == "2(k)")
    assert Via.ENTITY in reached.via


def test_a_provision_reached_only_by_a_cross_reference_records_its_path(graph):
    d = Decomposition(entities=("employee",))
    r = retriever(graph, d, lexical_weight=0, parents=False, children=False, entity_k=1)
    res = r.retrieve("employee")
    item = next(it for it in res.items if it.id == "2(k)")
    assert item.via == (Via.REFERS_TO,)
    assert item.path == ("1(b)", "2(k)") and "cross-reference from 1(b)" in item.why


def test_switching_the_navigator_graph_off_adds_no_neighbours(graph):
    d = Decomposition(entities=("guardrail system",))
    on = ids(retriever(graph, d, lexical_weight=0).retrieve("q"))
    off = ids(retriever(graph, d, lexical_weight=0, use_dng=False).retrieve("q"))
    assert off == ["1(a)"]
    assert "1(a)(1)" in on and "1" in on


def test_lexical_seeds_join_the_graph_seeds(graph):
    emb = WordsEmbedder()
    r = HybridRetriever(
        make_index(emb),
        graph,
        emb,
        lambda q: Decomposition(),
        RetrievalConfig(use_dng=False),
        lexical=lambda q, k: [("2(m)", 3.0)],
    )
    res = r.retrieve("pump")
    assert ids(res) == ["2(m)"] and res.items[0].via == (Via.LEXICAL,)


def test_evidence_is_the_best_entity_cosine(graph):
    res = retriever(graph, Decomposition(entities=("water pump",)), lexical_weight=0).retrieve("q")
    assert res.evidence == pytest.approx(1.0, abs=1e-5)
    none = retriever(graph, Decomposition(entities=("zebra",)), lexical_weight=0).retrieve("q")
    assert none.evidence < 0.5 and none.items == []


def channels(graph, decomposition: Decomposition, dense, lexical, **cfg) -> dict[str, float]:
    """Scores of a retrieval with fake dense and lexical channels (no navigator expansion)."""
    emb = WordsEmbedder()
    r = HybridRetriever(
        make_index(emb),
        graph,
        emb,
        lambda q: decomposition,
        RetrievalConfig(use_dng=False, **cfg),
        lexical=lambda q, k: lexical,
        dense=lambda q, k: dense,
    )
    return {it.id: it.score for it in r.retrieve("q").items}


def test_each_channel_is_scaled_to_the_graph_seeds_alone_so_the_lexical_weight_is_the_configured_one(graph):
    graph_only = channels(graph, PLAN, [], [], lexical_weight=0, dense_weight=0)
    top_id, top = max(graph_only.items(), key=lambda kv: kv[1])
    assert "1(a)(1)" not in graph_only
    fused = channels(graph, PLAN, [(top_id, 2.0)], [("1(a)(1)", 4.0)], dense_weight=0.5, lexical_weight=0.3)
    assert fused[top_id] == pytest.approx(top * 1.5, abs=1e-5)  # its own score + 0.5 x the graph's top
    # 0.3 x the graph's top, not of graph + dense
    assert fused["1(a)(1)"] == pytest.approx(top * 0.3, abs=1e-5)


def test_rrf_fuses_each_channel_against_the_graph_ranking_once(graph):
    fused = channels(
        graph,
        Decomposition(),
        [("2(m)", 2.0), ("1(a)", 1.0)],
        [("1(a)", 5.0)],
        fusion="rrf",
        dense_weight=0.5,
        lexical_weight=1.0,
        rrf_k=60,
    )
    assert fused["2(m)"] == pytest.approx(0.5 / 61, abs=1e-6)
    assert fused["1(a)"] == pytest.approx(0.5 / 62 + 1 / 61, abs=1e-6)
