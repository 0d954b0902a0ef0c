"""What retrieval components share: the `Retriever` protocol (question in, `RetrievalResult` out),
the `Ranker` protocol, the `System` protocol an evaluated or served system meets, and its
`SystemResult`. Retrieval implements them; the ask pipeline, adapters and eval consume them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from bifrost.core.errors import BifrostError
from bifrost.core.answer_types import RetrievedItem
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.channels.entity_index import EngIndex
from bifrost.retrieval.result import RetrievalResult


class SystemUnavailable(BifrostError):
    """A system that cannot run here (no chat model, no local cross-encoder, ...): it is skipped."""


@dataclass(frozen=True)
class SystemResult:
    """What a system returns for one question: ranked (id, score), the cited ids, and seconds taken."""

    ranked: list[tuple[str, float]]
    cited: list[str]
    seconds: float = 0.0
    refused: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    # answered, not_stated or refused, for systems with the three outcomes (None: refused or not)
    outcome: str | None = None


@runtime_checkable
class System(Protocol):
    """A system answering questions: warm up once per corpus, then rank and cite.

    An optional ``describe() -> dict`` (settings, model names) is recorded in metrics.json.
    """

    name: str

    def warm_up(self, corpus: str) -> None: ...

    def search(self, question: str, k: int) -> SystemResult: ...


@runtime_checkable
class Preparable(Protocol):
    """A system or ranker that can do per-question work for a whole question set at once (encode
    the questions in batches, parse them in one pipe) before answering them one by one."""

    def prepare(self, questions: list[str]) -> None: ...


class Ranker(Protocol):
    """A retrieval component that ranks provisions (see retrieval/channels and eval/baselines)."""

    def warm_up(self, corpus: str) -> None: ...

    def search(self, query: str, top_k: int = 10) -> list[RetrievedItem]: ...

    def describe(self) -> dict[str, Any]: ...


@runtime_checkable
class Retriever(Protocol):
    """Ranks the provisions of one corpus for a question, with the evidence behind the ranking
    (`HybridRetriever`, `LtrRetriever` and `EditionRetriever` meet it).

    ``config`` is what `retrieve` uses when given none."""

    config: RetrievalConfig

    def retrieve(self, question: str, config: RetrievalConfig | None = None) -> RetrievalResult: ...


class CorpusRetriever(Retriever, Protocol):
    """A retriever of a corpus's current edition that reads its entity-network index (`HybridRetriever`
    and `LtrRetriever`; the ask pipeline loads one per corpus)."""

    @property
    def index(self) -> EngIndex: ...
