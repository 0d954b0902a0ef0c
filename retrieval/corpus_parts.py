"""What is loaded once per corpus and retrievers are assembled from: the graph, the embedder, the
channels, the navigator index and the question decomposer."""

from __future__ import annotations

from dataclasses import dataclass

from bifrost.core.embeddings import Embedder
from bifrost.core.graph.base import GraphStore
from bifrost.retrieval.channels.base import Channels
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import ExtractorDecomposer
from bifrost.retrieval.ranking.hybrid import HybridRetriever
from bifrost.retrieval.navigator import NavigatorIndex


@dataclass
class CorpusParts:
    """Everything loaded once per corpus that retrievers are assembled from."""

    corpus: str
    graph: GraphStore
    embedder: Embedder
    channels: Channels
    nav: NavigatorIndex
    containers: frozenset[str]
    decomposer: ExtractorDecomposer
    has_entity_network: bool = True

    def prepare(self, questions: list[str], config: RetrievalConfig | None = None) -> None:
        """Parse every question in one extractor pass and encode all their texts in batches, so
        that answering them one by one finds everything cached (eval runs, batch jobs); with a
        ``config``, also match their entities and triples in batches."""
        decomps = self.decomposer.decompose_many(questions, self.corpus)
        texts = list(questions)
        for d in decomps:
            texts += d.entities
            texts += [p for t in (*d.triples, *d.swapped) for p in (t[0], t[1].replace("_", " "), t[2])]
        self.embedder.embed(list(dict.fromkeys(texts)))
        if self.channels.ranking_dense is not None:
            self.channels.ranking_dense.prepare(list(questions))
        if config is not None:
            self.channels.prepare(decomps, config)

    def hybrid(self, config: RetrievalConfig) -> HybridRetriever:
        """The hand-set hybrid retriever over these indexes."""
        ch = self.channels
        return HybridRetriever(
            ch.index,
            self.graph,
            self.embedder,
            ch.decompose,
            config,
            lexical=lambda q, k: [(it.id, it.score) for it in ch.bm25.search(q, k)],
            dense=lambda q, k: [(it.id, it.score) for it in ch.dense.search(q, k)],
            containers=self.containers,
            memo=ch.memo,
        )
