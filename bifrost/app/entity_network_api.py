"""What the facade adds for the Entity Network: building it, re-embedding it after `train encoder`, the index
files a new process maps, and an entity as shown. A mixin of `Bifrost`; it uses the facade's ``sql``,
``resources``, ``pipeline``, ``settings``, ``graph``, ``embedder`` and ``require_corpus``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bifrost.app.records import EntityView, ReembedReport
from bifrost.core.errors import NotFoundError
from bifrost.core.store.edition_diff import snapshot_entities

if TYPE_CHECKING:  # pragma: no cover
    from bifrost.core.llm import UsageReport
    from bifrost.graph_builders.entities.base import EntityBuildReport

log = logging.getLogger(__name__)


class EntityNetworkApi:
    """Build, re-embed, index and show the Entity Network of a corpus."""

    def usage_report(self) -> UsageReport:
        """Tokens and cost of the chat model's calls so far, per model."""
        return self.resources.usage_counter.report()

    def build_entities(
        self,
        corpus: str,
        extractor: str = "auto",
        tau: float | None = None,
        progress: Callable[[int, int], None] | None = None,
        subparts: Sequence[str] | None = None,
        search: str | None = None,
    ) -> EntityBuildReport:
        """Extract, refine and store the Entity Network Graph of a corpus (replacing the last one; only
        changed or new provisions are extracted again, and only differences are written)."""
        from bifrost.graph_builders.entities.pipeline import build_corpus_entities

        with self.sql.writer_lock(corpus):
            report = build_corpus_entities(self.resources, corpus, extractor, tau, progress, subparts, search)
            snapshot_entities(self.sql, corpus)
        self.write_indexes(corpus)
        return report

    def write_indexes(self, corpus: str) -> None:
        """(Re)write the index files of a corpus (BM25, dense and entity matrices under
        ``$BIFROST_HOME/index``) after a build, so that a new process answers by mapping them."""
        try:
            self.pipeline.write_indexes(corpus)
        except NotFoundError as e:  # nothing to index yet (no entity network): the next ask says so
            log.info("index files of %s not written: %s", corpus, e)
        self.pipeline.forget(corpus)

    def reembed_entities(self, corpus: str) -> ReembedReport:
        """Recompute the stored entity, relation and triple embeddings with the configured embedding model
        (after `train encoder`), without extracting again; names and counts are unchanged."""
        from bifrost.graph_builders.entities.reembed import reembed_entity_network

        self.require_corpus(corpus)
        graph = None if self.settings.store == "embedded" else self.graph  # the embedded store reads SQL
        with self.sql.writer_lock(corpus):
            report = reembed_entity_network(self.sql, corpus, self.embedder, graph, self.embedder.key)
        self.write_indexes(corpus)
        return ReembedReport(**report, embedding_model=self.settings.embedding_model)

    def entity_view(self, corpus: str, name: str) -> EntityView:
        """An entity (exact normalized name, else the closest by embedding), its provisions and relations."""
        from bifrost.app.entity_view import entity_view

        self.require_corpus(corpus)
        loaded = self.pipeline.loaded(corpus)
        return entity_view(
            self.sql, self.settings, self.embedder, corpus, name, loaded.index if loaded is not None else None
        )
