"""System specs parsed from --systems, the registry and skipped systems."""

from __future__ import annotations

import pytest

from bifrost.eval.registry import SystemRegistry, UnknownSystemError, make_default_registry, parse_systems
from bifrost.retrieval.base import SystemUnavailable
from bifrost.eval.systems import CiteRule


def test_parse_systems_with_parameters():
    specs = parse_systems("bm25, bifrost:depth=2,tau=0.9,mode=eng,dense:cite_n=5")
    assert [(s.name, s.params) for s in specs] == [
        ("bm25", {}),
        ("bifrost", {"depth": 2, "tau": 0.9, "mode": "eng"}),
        ("dense", {"cite_n": 5}),
    ]
    assert specs[1].label == "bifrost:depth=2,tau=0.9,mode=eng"


@pytest.mark.parametrize("text", ["", "depth=2,bm25", "bifrost:depth"])
def test_parse_systems_rejects_bad_strings(text: str):
    with pytest.raises(ValueError):
        parse_systems(text)


def test_unknown_system_lists_known_ones(settings):
    reg = make_default_registry()
    with pytest.raises(UnknownSystemError) as ei:
        reg.create(parse_systems("nope")[0], settings, "tiny")
    assert (
        "known systems: bifrost, bifrost-eng-only, bifrost-hybrid, bifrost-ltr, bifrost-no-swap, bm25, "
        "dense, "
        "graph-rag-langchain, llm-only, rerank, rrf"
    ) in str(ei.value)


def test_chat_model_systems_and_rerank_without_model_are_skipped(settings):
    reg = make_default_registry()
    for name in ("llm-only", "graph-rag-langchain", "rerank"):
        with pytest.raises(SystemUnavailable):
            reg.create(parse_systems(name)[0], settings, "tiny")


def test_graph_rag_langchain_is_skipped_without_a_chat_model_then_without_neo4j(settings):
    reg = make_default_registry()
    spec = parse_systems("bm25,graph-rag-langchain:subparts=L+M+P+X,limit=200")[1]
    assert spec.params == {"subparts": "L+M+P+X", "limit": 200}
    with pytest.raises(SystemUnavailable) as ei:
        reg.create(spec, settings.model_copy(update={"llm_model": None}), "tiny")
    assert str(ei.value) == "graph-rag-langchain needs a chat model (set BIFROST_LLM_MODEL); skipped"
    with pytest.raises(SystemUnavailable) as ei:
        reg.create(spec, settings.model_copy(update={"llm_model": "gpt-4o-mini", "neo4j_uri": None}), "tiny")
    assert "BIFROST_NEO4J_URI" in str(ei.value)


def test_register_refuses_silent_override():
    reg = SystemRegistry()
    reg.register("x", lambda s, c: None)
    with pytest.raises(ValueError):
        reg.register("x", lambda s, c: None)
    reg.register("x", lambda s, c: None, replace=True)


def test_cite_rules():
    ranked = [("a", 10.0), ("b", 9.5), ("c", 5.0), ("d", 4.0)]
    assert CiteRule("top", 2).select(ranked) == ["a", "b"]
    assert CiteRule("relative", 3, 0.9).select(ranked) == ["a", "b"]
    assert CiteRule().select([]) == []
    with pytest.raises(ValueError):
        CiteRule("best")
