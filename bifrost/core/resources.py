"""Shared resources of one Bifrost home: the SQL store, the graph store, the embedder and the chat
model, each opened on first use and closed together. Every layer above takes one of these
instead of reaching for a facade."""

from __future__ import annotations

import logging
from functools import cached_property
from typing import TYPE_CHECKING, Any

from bifrost.core.errors import NotFoundError, StoreError
from bifrost.core.graph.base import GraphStore
from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore

if TYPE_CHECKING:
    from bifrost.core.embeddings import SentenceTransformerEmbedder
    from bifrost.core.model_process import ModelProcess, ModelProcesses

log = logging.getLogger(__name__)


def make_graph_store(settings: Settings, sql: SqlStore) -> GraphStore:
    """The configured graph store: embedded (default) or Neo4j."""
    if settings.store == "embedded":
        from bifrost.core.graph.embedded import EmbeddedGraphStore

        return EmbeddedGraphStore(sql)
    if settings.store == "neo4j":
        if not settings.neo4j_uri:
            raise StoreError(
                "store 'neo4j' needs BIFROST_NEO4J_URI (e.g. bolt://127.0.0.1:7687); run `make neo4j`"
            )
        from bifrost.core.extras import require_extra

        require_extra("neo4j", "neo4j")
        from bifrost.core.graph.neo4j_store import Neo4jGraphStore

        return Neo4jGraphStore(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password,
            settings.neo4j_database,
            embedding_dim=settings.embedding_dim,
        )
    raise StoreError(f"unknown store {settings.store!r}: use 'embedded' or 'neo4j'")


class Resources:
    """Lazily opened stores and models of one home (one per process or request scope)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.model_process: ModelProcess | ModelProcesses | None = None  # see `use_model_process`

    def use_model_process(self, process: ModelProcess | ModelProcesses | None) -> None:
        """Let the embedder and the offline extractor ask ``process`` (a child that loads their
        models while this one loads indexes) instead of loading their models here."""
        self.model_process = process
        if "embedder" in self.__dict__:
            self.embedder.use_process(process)

    @cached_property
    def sql(self) -> SqlStore:
        return SqlStore(self.settings.sql_url)

    @cached_property
    def graph(self) -> GraphStore:
        return make_graph_store(self.settings, self.sql)

    @cached_property
    def embedder(self) -> SentenceTransformerEmbedder:
        from bifrost.core.embeddings import embedder_for

        embedder = embedder_for(self.settings)
        embedder.use_process(self.model_process)
        return embedder

    @cached_property
    def chat_model(self) -> Any:
        """The configured chat model, or None (offline mode)."""
        if not self.settings.llm_model:
            return None
        from bifrost.core.extras import require_extra

        require_extra("llm")
        from bifrost.core.llm import make_chat_model, make_llm_cache

        cache = make_llm_cache(self.settings.llm_cache_path or self.settings.home / "llm_cache.db")
        return make_chat_model(self.settings, cache=cache)  # this home's cache, not a process-wide one

    @cached_property
    def usage_counter(self) -> Any:
        """Token usage and estimated cost of chat calls made through these resources."""
        from bifrost.core.llm import UsageCounter, prices_from_settings

        return UsageCounter(prices_from_settings(self.settings))

    def require_corpus(self, corpus: str) -> None:
        """Raise a one-line error naming the ingest command when ``corpus`` is not stored."""
        known = self.sql.corpora()
        if corpus not in known:
            names = ", ".join(known) or "none"
            raise NotFoundError(
                f"corpus {corpus!r} is not ingested (ingested: {names}); run `bifrost ingest --corpus "
                f"{corpus}`"
            )

    def release_connections(self, close: bool = True) -> None:
        """Drop the SQL pool and the graph driver but keep models and loaded indexes: a server calls
        it before forking workers, and each worker with ``close=False`` right after the fork, so no
        connection is ever shared between processes."""
        if "sql" in self.__dict__:
            self.sql.dispose(close=close)
        if "graph" in self.__dict__:
            self.graph.release_connections(close=close)

    def close(self) -> None:
        if "graph" in self.__dict__:
            self.graph.close()
        if "sql" in self.__dict__:
            self.sql.dispose()
