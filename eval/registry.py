"""The system registry: names ("bm25", "dense", "rrf", "bifrost", ...) mapped to factories.

A factory is ``factory(settings, corpus, **params) -> System``; params come from the --systems
string (``bifrost:depth=2,tau=0.9``). `make_default_registry` builds a new registry with the
baselines and Bifrost's systems; nothing is registered at import time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bifrost.core.errors import BifrostError
from bifrost.core.settings import Settings
from bifrost.retrieval.base import System, SystemUnavailable
from bifrost.eval.bifrost_systems import BadSystemParameters, bifrost_factories
from bifrost.eval.systems import CiteRule, RankerSystem

Factory = Callable[..., System]


class UnknownSystemError(BifrostError):
    """A system name that no factory is registered for."""


@dataclass(frozen=True)
class SystemSpec:
    """A system name with its parameters, as written on the command line."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """`name` or `name:key=value,...` (unique within a run)."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_systems(text: str) -> list[SystemSpec]:
    """`bm25,bifrost:depth=2,tau=0.9,dense` -> specs; a `key=value` item belongs to the system before it."""
    specs: list[SystemSpec] = []
    for raw in (t.strip() for t in text.split(",")):
        if not raw:
            continue
        head, sep, first = raw.partition(":")
        if "=" in head and not sep:
            if not specs:
                raise ValueError(f"systems {text!r}: parameter {raw!r} comes before any system name")
            key, _, val = raw.partition("=")
            specs[-1].params[key.strip()] = _value(val.strip())
            continue
        spec = SystemSpec(head.strip(), {})
        if first:
            if "=" not in first:
                raise ValueError(f"systems {text!r}: expected key=value after {head}:, got {first!r}")
            key, _, val = first.partition("=")
            spec.params[key.strip()] = _value(val.strip())
        specs.append(spec)
    if not specs:
        raise ValueError("no systems given; e.g. --systems bm25,dense,rrf")
    return specs


class SystemRegistry:
    """Explicit name -> factory map; `create` builds a system or raises a one-line error."""

    def __init__(self) -> None:
        self._factories: dict[str, Factory] = {}

    def register(self, name: str, factory: Factory, replace: bool = False) -> None:
        if name in self._factories and not replace:
            raise ValueError(f"system {name!r} is already registered; pass replace=True to override")
        self._factories[name] = factory

    def known(self) -> list[str]:
        return sorted(self._factories)

    def create(self, spec: SystemSpec, settings: Settings, corpus: str) -> System:
        factory = self._factories.get(spec.name)
        if factory is None:
            raise UnknownSystemError(
                f"unknown system {spec.name!r}; known systems: {', '.join(self.known())}"
            )
        try:
            system = factory(settings, corpus, **spec.params)
        except BadSystemParameters as e:
            raise UnknownSystemError(str(e)) from e
        except TypeError as e:
            raise UnknownSystemError(f"system {spec.name!r}: bad parameters {spec.params}: {e}") from e
        system.name = spec.label
        return system


def _cite(params: dict[str, Any]) -> CiteRule:
    return CiteRule(
        kind=params.pop("cite", "top"),
        n=int(params.pop("cite_n", 3)),
        ratio=float(params.pop("cite_ratio", 0.9)),
    )


def bm25_factory(settings: Settings, corpus: str, **params: Any) -> System:
    from bifrost.retrieval.channels.bm25 import Bm25Ranker

    cite = _cite(params)
    return RankerSystem("bm25", Bm25Ranker(settings, **params), cite)


def dense_factory(settings: Settings, corpus: str, **params: Any) -> System:
    from bifrost.retrieval.channels.dense import DenseRanker

    cite = _cite(params)
    return RankerSystem("dense", DenseRanker(settings, **params), cite)


def rrf_factory(settings: Settings, corpus: str, **params: Any) -> System:
    from bifrost.retrieval.channels.bm25 import Bm25Ranker
    from bifrost.retrieval.channels.dense import DenseRanker
    from bifrost.eval.baselines.rrf import RrfRanker

    cite = _cite(params)
    mode, edition = params.pop("mode", "context"), params.pop("edition", None)
    ranker = RrfRanker(
        [Bm25Ranker(settings, mode=mode, edition=edition), DenseRanker(settings, mode=mode, edition=edition)],
        **params,
    )
    return RankerSystem("rrf", ranker, cite)


def rerank_factory(settings: Settings, corpus: str, **params: Any) -> System:
    from bifrost.core.errors import ModelUnavailableError
    from bifrost.eval.baselines.rerank import CrossEncoderReranker

    cite = _cite(params)
    first = rrf_factory(settings, corpus).ranker  # type: ignore[attr-defined]
    try:
        ranker = CrossEncoderReranker(settings, first, params.pop("model", None), **params)
    except ModelUnavailableError as e:
        raise SystemUnavailable(str(e)) from e
    return RankerSystem("rerank", ranker, cite)


def graph_rag_langchain_factory(settings: Settings, corpus: str, **params: Any) -> System:
    """LangChain's LLM graph in Neo4j + GraphCypherQAChain; skipped without a chat model or a Neo4j server.

    Params: ``subparts=L+M+P+X``, ``limit=N`` (scope of the graph), ``top_k`` (Cypher rows kept);
    tests pass ``chat_model``.
    """
    if params.get("chat_model") is None and not settings.llm_model:
        raise SystemUnavailable("graph-rag-langchain needs a chat model (set BIFROST_LLM_MODEL); skipped")
    if not settings.neo4j_uri:
        raise SystemUnavailable("graph-rag-langchain needs a Neo4j server (set BIFROST_NEO4J_URI); skipped")
    from bifrost.eval.graph_rag_langchain_system import GraphRagLangchainSystem

    return GraphRagLangchainSystem(settings, **params)


def make_default_registry() -> SystemRegistry:
    """A new registry with the baselines and Bifrost's systems; "llm-only" and
    "graph-rag-langchain" skip without a chat model, the latter also without Neo4j."""
    reg = SystemRegistry()
    reg.register("bm25", bm25_factory)
    reg.register("dense", dense_factory)
    reg.register("rrf", rrf_factory)
    reg.register("rerank", rerank_factory)
    reg.register("graph-rag-langchain", graph_rag_langchain_factory)
    for name, factory in bifrost_factories().items():
        reg.register(name, factory)  # type: ignore[arg-type]
    return reg
