"""Question decomposition: a question becomes entities and triples, plus swapped triples.

Any entity extractor (the offline spaCy extractor or the LLM agents) can decompose a
question: the question is treated as a one-sentence provision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import BaseModel, ConfigDict

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.entities.base import EntityExtractor
from bifrost.graph_builders.entities.checkpoint import ExtractionJournal


class Decomposition(BaseModel):
    """The entities and ``(head, relation, tail)`` triples of a question."""

    model_config = ConfigDict(frozen=True)

    entities: tuple[str, ...] = ()
    triples: tuple[tuple[str, str, str], ...] = ()
    swapped: tuple[tuple[str, str, str], ...] = ()


def swap(triples: Iterable[tuple[str, str, str]]) -> tuple[tuple[str, str, str], ...]:
    """The symmetric triples (tail, relation, head), so active and passive phrasings match."""
    return tuple((t, r, h) for h, r, t in triples if h != t)


def question_probe(question: str, corpus: str = "question") -> Provision:
    """The one-sentence provision a question is decomposed as (and journaled under)."""
    return Provision(corpus=corpus, id="question", kind=ProvisionKind.PARAGRAPH, text=question)


def parsed_before(journal: ExtractionJournal, version: str, question: str, corpora: Iterable[str]) -> bool:
    """Whether the extraction journal already holds this question's decomposition for every corpus
    (so answering it needs no parser)."""
    return all(journal.get(question_probe(question, c), version) is not None for c in corpora)


class ExtractorDecomposer:
    """Decompose questions with an entity extractor and the refiner's name normalizer."""

    def __init__(
        self,
        extractor: EntityExtractor,
        normalize: Callable[[str, str], str] | None = None,
        cache_size: int = 10_000,
    ) -> None:
        self.extractor = extractor
        self.normalize = normalize or (lambda name, _label: name.lower().strip())
        self.cache_size = cache_size
        self._cache: dict[str, Decomposition] = {}

    def decompose_many(self, questions: list[str], corpus: str = "question") -> list[Decomposition]:
        """Decompose many questions in one extractor pass (e.g. one spaCy pipe); results are cached."""
        todo = [q for q in dict.fromkeys(questions) if q not in self._cache]
        probes = [
            Provision(corpus=corpus, id=f"q{i}", kind=ProvisionKind.PARAGRAPH, text=q)
            for i, q in enumerate(todo)
        ]
        for q, ex in zip(todo, self.extractor.extract_many(probes)):
            if len(self._cache) < self.cache_size:
                self._cache[q] = self._from_extraction(ex)
        return [self._cache.get(q) or self.decompose(q, corpus) for q in questions]

    def decompose(self, question: str, corpus: str = "question") -> Decomposition:
        if question in self._cache:
            return self._cache[question]
        return self._from_extraction(
            next(iter(self.extractor.extract_many([question_probe(question, corpus)])), None)
        )

    def _from_extraction(self, ex) -> Decomposition:
        if ex is None:
            return Decomposition()
        names = {e.name: self.normalize(e.name, e.label) for e in ex.entities}
        entities = tuple(dict.fromkeys(n for n in names.values() if n))
        triples = []
        for t in ex.triples:
            h = names.get(t.head) or self.normalize(t.head, "")
            tl = names.get(t.tail) or self.normalize(t.tail, "")
            if h and tl:
                triples.append((h, t.relation, tl))
        triples_t = tuple(dict.fromkeys(triples))
        return Decomposition(entities=entities, triples=triples_t, swapped=swap(triples_t))
