"""The `Bifrost` facade: one object that wires stores, builders and retrieval.

The CLI and the web app are thin layers over this class. Like them it lives at the edge of
the package graph: it may import `graph_builders` and `retrieval`; core modules never do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, Field

from bifrost.corpora import corpus_spec, structure_file
from bifrost.errors import BifrostError, NotFoundError, StoreError
from bifrost.graph.base import GraphStore
from bifrost.settings import Settings
from bifrost.store.sql_store import SqlStore
from bifrost.types import GraphStats, IngestReport, Provision, ReviewItem, make_uid, split_uid

log = logging.getLogger(__name__)


class Neighbour(BaseModel):
    """A provision next to another one in the navigator graph."""

    id: str
    heading: str = ""
    text: str | None = None


class ProvisionView(BaseModel):
    """A provision with its neighbourhood in both graphs, for `graph show` and the web page."""

    provision: Provision
    parent: Neighbour | None = None
    children: list[Neighbour] = Field(default_factory=list)
    references_out: list[dict] = Field(default_factory=list)
    references_in: list[dict] = Field(default_factory=list)
    dangling_references: list[dict] = Field(default_factory=list)


def make_graph_store(settings: Settings, sql: SqlStore) -> GraphStore:
    """The configured graph store: embedded (default) or Neo4j."""
    if settings.store == "embedded":
        from bifrost.graph.embedded import EmbeddedGraphStore

        return EmbeddedGraphStore(sql)
    if settings.store == "neo4j":
        if not settings.neo4j_uri:
            raise StoreError("store 'neo4j' needs BIFROST_NEO4J_URI (e.g. bolt://127.0.0.1:7687); run `make neo4j`")
        from bifrost.graph.neo4j_store import Neo4jGraphStore

        return Neo4jGraphStore(
            settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database,
            embedding_dim=settings.embedding_dim,
        )
    raise StoreError(f"unknown store {settings.store!r}: use 'embedded' or 'neo4j'")


class Bifrost:
    """Build the dual graph for a corpus and answer questions over it."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()

    @cached_property
    def sql(self) -> SqlStore:
        return SqlStore(self.settings.sql_url)

    @cached_property
    def graph(self) -> GraphStore:
        return make_graph_store(self.settings, self.sql)

    def close(self) -> None:
        if "graph" in self.__dict__:
            self.graph.close()
        if "sql" in self.__dict__:
            self.sql.dispose()

    # --- ingestion and the navigator graph ---
    def default_sources(self, corpus: str) -> list[Path]:
        """The corpus's files from the shared folder, else eCFR XML downloaded for an online user."""
        spec = corpus_spec(corpus)
        paths = spec.default_sources(self.settings.resolve_shared_dir())
        if paths:
            return paths
        if spec.ecfr_title and spec.ecfr_part:
            from graph_builders.scrape.ecfr_download import download_part

            log.info("no local copy of %s; downloading eCFR title %s part %s", corpus, spec.ecfr_title, spec.ecfr_part)
            return [download_part(spec.ecfr_title, spec.ecfr_part, self.settings.home / "downloads")]
        raise NotFoundError(f"no sources given for corpus {corpus!r} and none known; pass file paths")

    def ingest(
        self, corpus: str, paths: Sequence[Path] | None = None, progress: Callable[[str], None] | None = None
    ) -> IngestReport:
        """Parse and store sources (default: the corpus's known sources)."""
        from graph_builders.ingest import ingest_sources

        spec = corpus_spec(corpus)
        paths = list(paths) if paths else self.default_sources(corpus)
        opts = {}
        struct = structure_file(self.settings.resolve_shared_dir())
        if struct and spec.jurisdiction == "us-cfr":
            opts["structure_path"] = struct
        return ingest_sources(self.sql, corpus, paths, jurisdiction=spec.jurisdiction, progress=progress, **opts)

    def reference_extractor(self, corpus: str):
        """The rule-based reference extractor for the corpus's jurisdiction."""
        jurisdiction = self.sql.jurisdiction(corpus) or corpus_spec(corpus).jurisdiction
        if jurisdiction == "us-cfr":
            from graph_builders.navigator.references import CfrReferenceExtractor

            return CfrReferenceExtractor()
        raise BifrostError(f"no reference extractor for jurisdiction {jurisdiction!r} (corpus {corpus!r})")

    def build_navigator(self, corpus: str, progress: Callable[[int], None] | None = None):
        """(Re)build the Document Navigator Graph of a corpus in the configured graph store."""
        from graph_builders.navigator.build import build_navigator

        self.require_corpus(corpus)
        return build_navigator(self.sql, self.graph, corpus, self.reference_extractor(corpus), progress)

    # --- reading ---
    def require_corpus(self, corpus: str) -> None:
        if corpus not in self.sql.corpora():
            known = ", ".join(self.sql.corpora()) or "none"
            raise NotFoundError(f"corpus {corpus!r} is not ingested (ingested: {known}); run `bifrost ingest --corpus {corpus}`")

    def stats(self, corpus: str) -> GraphStats:
        self.require_corpus(corpus)
        return self.graph.stats(corpus)

    def _neighbour(self, uid: str, with_text: bool = False) -> Neighbour:
        p = self.graph.get_section(uid)
        pid = split_uid(uid)[1]
        return Neighbour(id=pid, heading=p.heading if p else "", text=(p.text if p and with_text else None))

    def show(self, corpus: str, provision_id: str) -> ProvisionView:
        """A provision with parent, children and references out and in."""
        self.require_corpus(corpus)
        uid = make_uid(corpus, provision_id)
        p = self.graph.get_section(uid)
        if p is None:
            raise NotFoundError(f"provision {provision_id!r} is not in corpus {corpus!r}")
        parent = self.graph.parent(uid)
        dangling = [
            {"raw": r.raw, "reason": r.reason} for r in self.sql.references(corpus, dangling=True) if r.source_id == provision_id
        ]
        return ProvisionView(
            provision=p,
            parent=self._neighbour(parent) if parent else None,
            children=[self._neighbour(c) for c in self.graph.children(uid)],
            references_out=[{"id": split_uid(t)[1], "text": raw} for t, raw in self.graph.references_out(uid)],
            references_in=[{"id": split_uid(s)[1], "text": raw} for s, raw in self.graph.references_in(uid)],
            dangling_references=dangling,
        )

    def review_items(self, corpus: str | None = None) -> list[tuple[int, ReviewItem]]:
        return self.sql.review_items(corpus)
