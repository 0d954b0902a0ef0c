"""The `Bifrost` facade: one object over the Python API of every stage, for the edge.

The CLI, the web app and the MCP server are thin layers over this class; it only wires
`Resources` (core) to the stages in `graph_builders`, `retrieval` and the stores, and holds
no pipeline logic of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from bifrost.core.corpora import corpus_spec, structure_file
from bifrost.core.errors import NotFoundError
from bifrost.core.graph.base import GraphStore
from bifrost.core.graph.subgraph import navigator_subgraph
from bifrost.core.resources import Resources, make_graph_store
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables, schema
from bifrost.core.store.edition_diff import EditionDiff, diff_editions, snapshot_entities, word_diff
from bifrost.core.store.edition_view import neighbourhood_at
from bifrost.core.store.schema import SchemaStatus
from bifrost.core.store.sql_store import SqlStore, raw_engine
from bifrost.core.types import (
    Answer, Edition, EdgeType, GraphStats, IngestReport, NavigatorSubgraph, Provision, RetrievedItem, ReviewItem, make_uid, split_uid,
)
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.multi_corpus import is_several, merge_answers, parse_corpora
from bifrost.retrieval.pipeline import AskPipeline

if TYPE_CHECKING:  # pragma: no cover
    from bifrost.graph_builders.consistency import CheckReport

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
    edition: Edition | None = Field(default=None, description="The edition shown when it is not the current one")
    history: list[dict] = Field(default_factory=list, description="Earlier versions: edition range, change, text, word diff")


class Bifrost:
    """Build the dual graph for a corpus and answer questions over it."""

    def __init__(self, settings: Settings | None = None, config: RetrievalConfig | None = None) -> None:
        self.res = Resources(settings)
        self.settings = self.res.settings
        self.pipeline = AskPipeline(self.res, config or RetrievalConfig.from_settings(self.settings))

    @property
    def sql(self) -> SqlStore:
        return self.res.sql

    @property
    def graph(self) -> GraphStore:
        return self.res.graph

    @property
    def embedder(self):
        return self.res.embedder

    @property
    def chat_model(self):
        """The configured chat model, or None (offline mode)."""
        return self.res.chat_model

    @property
    def retrieval_config(self) -> RetrievalConfig:
        return self.pipeline.config

    def close(self) -> None:
        self.res.close()

    # --- the SQL store's schema (without opening the store, which refuses an outdated server schema) ---
    def db_status(self) -> SchemaStatus:
        """The database's schema revision against this code's newest."""
        engine = raw_engine(self.settings.sql_url)
        try:
            return schema.status(engine)
        finally:
            engine.dispose()

    def db_upgrade(self, revision: str = "head") -> tuple[SchemaStatus, SchemaStatus]:
        """Migrate the database to ``revision`` (default the newest): the status before and after."""
        engine = raw_engine(self.settings.sql_url)
        try:
            return schema.upgrade(engine, revision)
        finally:
            engine.dispose()

    # --- ingestion and the navigator graph ---
    def default_sources(self, corpus: str) -> list[Path]:
        """The corpus's files from the shared folder, else eCFR XML downloaded for an online user."""
        from bifrost.graph_builders.ingest import default_sources

        return default_sources(self.settings, corpus)

    def ingest(
        self, corpus: str, paths: Sequence[Path] | None = None, progress: Callable[[str], None] | None = None,
        date: str | None = None, allow_older: bool = False,
    ) -> IngestReport:
        """Parse and store sources (default: the corpus's known sources) as a new edition of the corpus."""
        from bifrost.graph_builders.ingest import ingest_sources

        spec = corpus_spec(corpus)
        paths = list(paths) if paths else self.default_sources(corpus)
        opts = {}
        struct = structure_file(self.settings.resolve_shared_dir())
        if struct and spec.jurisdiction == "us-cfr":
            opts["structure_path"] = struct
        with self.sql.writer_lock(corpus):
            return ingest_sources(
                self.sql, corpus, paths, jurisdiction=spec.jurisdiction, progress=progress, date=date,
                allow_older=allow_older, **opts,
            )

    def reference_extractor(self, corpus: str):
        """The rule-based reference extractor for the corpus's jurisdiction."""
        from bifrost.graph_builders.navigator.extractors import reference_extractor_for

        return reference_extractor_for(self.sql.jurisdiction(corpus) or corpus_spec(corpus).jurisdiction, corpus)

    def build_navigator(self, corpus: str, progress: Callable[[int], None] | None = None):
        """(Re)build the Document Navigator Graph of a corpus in the configured graph store."""
        from bifrost.graph_builders.navigator.build import build_navigator

        self.require_corpus(corpus)
        with self.sql.writer_lock(corpus):
            return build_navigator(self.sql, self.graph, corpus, self.reference_extractor(corpus), progress)

    # --- reading ---
    def require_corpus(self, corpus: str) -> None:
        self.res.require_corpus(corpus)

    def stats(self, corpus: str) -> GraphStats:
        self.require_corpus(corpus)
        return self.graph.stats(corpus)

    def provision(self, corpus: str, provision_id: str) -> Provision | None:
        """A stored provision by id, or None."""
        return self.graph.get_section(make_uid(corpus, provision_id))

    def parent_id(self, corpus: str, provision_id: str) -> str | None:
        """The id of a provision's parent in the navigator graph, or None."""
        parent = self.graph.parent(make_uid(corpus, provision_id))
        return split_uid(parent)[1] if parent else None

    def references_out(self, corpus: str, provision_id: str) -> list[str]:
        """Ids a provision cross-references (REFERS_TO targets)."""
        return [split_uid(t)[1] for t, _ in self.graph.references_out(make_uid(corpus, provision_id))]

    def _neighbour(self, uid: str, with_text: bool = False) -> Neighbour:
        p = self.graph.get_section(uid)
        pid = split_uid(uid)[1]
        return Neighbour(id=pid, heading=p.heading if p else "", text=(p.text if p and with_text else None))

    def show(self, corpus: str, provision_id: str, as_of: str | None = None) -> ProvisionView:
        """A provision with parent, children, references out and in, and its earlier versions;
        ``as_of`` (a date or an edition number) shows it as it stood in an earlier edition."""
        self.require_corpus(corpus)
        if as_of is not None:
            edition = self.edition(corpus, as_of)
            if edition.number != self.sql.edition(corpus).number:
                return self._show_at(edition, provision_id)
        uid = make_uid(corpus, provision_id)
        p = self.graph.get_section(uid)
        if p is None:
            retired = [v for v in self.sql.versions_of(corpus, provision_id) if v[2] == "removed"]
            if retired:
                gone = self.sql.edition(corpus, retired[0][1])
                raise NotFoundError(
                    f"provision {provision_id!r} of {corpus!r} was removed in edition {gone.number} "
                    f"({gone.date or 'undated'}); show it with --as-of {retired[0][0]} (an earlier edition)"
                )
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
            history=self._history(corpus, p),
        )

    def _show_at(self, edition: Edition, provision_id: str) -> ProvisionView:
        n = neighbourhood_at(self.sql, edition, provision_id)
        return ProvisionView(
            provision=n.provision,
            parent=Neighbour(id=n.parent.id, heading=n.parent.heading) if n.parent else None,
            children=[Neighbour(id=c.id, heading=c.heading) for c in n.children],
            references_out=[{"id": t, "text": raw} for t, raw in n.references_out],
            references_in=[{"id": s, "text": raw} for s, raw in n.references_in],
            dangling_references=[{"raw": raw, "reason": reason} for raw, reason in n.dangling],
            edition=edition,
        )

    def _history(self, corpus: str, current: Provision) -> list[dict]:
        dates = {e.number: e.date for e in self.sql.editions(corpus)}
        return [
            {"valid_from": frm, "valid_to": to, "until": dates.get(to), "change": change, "text": old.text,
             "heading": old.heading, "diff": word_diff(old.text, current.text)}
            for frm, to, change, old in self.sql.versions_of(corpus, current.id)
        ]

    def provisions_page(self, corpus: str, offset: int = 0, limit: int = 100) -> list[Provision]:
        """A page of a corpus's provisions in document order (for listings such as MCP resources)."""
        self.require_corpus(corpus)
        return self.sql.provision_page(corpus, offset, limit)

    def neighbourhood(
        self, corpus: str, provision_id: str, depth: int = 1,
        kinds: Sequence[EdgeType] = (EdgeType.HAS, EdgeType.REFERS_TO), limit: int = 200,
    ) -> NavigatorSubgraph:
        """The navigator subgraph around a provision: nodes and HAS / REFERS_TO edges up to ``depth``."""
        self.require_corpus(corpus)
        return navigator_subgraph(self.graph, corpus, provision_id, depth, kinds, limit)

    def review_items(self, corpus: str | None = None) -> list[tuple[int, ReviewItem]]:
        return self.sql.review_items(corpus)

    def corpora(self) -> list[str]:
        """Names of the ingested corpora."""
        return self.sql.corpora()

    # --- the entity network ---
    def usage_report(self) -> dict:
        return self.res.usage_counter.report().model_dump(mode="json")

    def build_entities(
        self, corpus: str, extractor: str = "auto", tau: float | None = None,
        progress: Callable[[int, int], None] | None = None, subparts: Sequence[str] | None = None,
        search: str | None = None,
    ):
        """Extract, refine and store the Entity Network Graph of a corpus (replacing the last one; only
        changed or new provisions are extracted again, and only differences are written)."""
        from bifrost.graph_builders.entities.pipeline import build_corpus_entities

        with self.sql.writer_lock(corpus):
            report = build_corpus_entities(self.res, corpus, extractor, tau, progress, subparts, search)
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

    # --- editions ---
    def editions(self, corpus: str) -> list[Edition]:
        """Recorded editions of a corpus, oldest first."""
        self.require_corpus(corpus)
        return self.sql.editions(corpus)

    def edition(self, corpus: str, spec: str | int | None = None) -> Edition:
        """An edition by number or by date (the one valid on it); the current one when spec is None."""
        self.require_corpus(corpus)
        if spec is None or isinstance(spec, int) or str(spec).isdigit():
            return self.sql.edition(corpus, None if spec is None else int(spec))
        return self.sql.edition(corpus, as_of=str(spec))

    def _as_of(self, corpus: str, as_of: str | None) -> Edition | None:
        """The edition ``as_of`` names (None: the current one); NotFoundError before the first edition."""
        return None if as_of is None else self.edition(corpus, as_of)

    def diff(self, corpus: str, old: str | int | None = None, new: str | int | None = None) -> EditionDiff:
        """What changed from one edition to another (default: from the previous edition to the current one)."""
        to = self.edition(corpus, new)
        since = self.edition(corpus, old) if old is not None else self.sql.edition(corpus, max(to.number - 1, 0))
        return diff_editions(self.sql, corpus, since, to)

    def check(self, corpus: str) -> CheckReport:
        """Compare the SQL store and the graph store for a corpus (`bifrost graph check`)."""
        from bifrost.graph_builders.consistency import check_corpus

        self.require_corpus(corpus)
        return check_corpus(self.sql, self.graph, corpus)

    def history(self, corpus: str, provision_id: str) -> list[tuple[int, int, str, Provision]]:
        """Earlier versions of a provision, newest first: (valid_from, valid_to, change, provision)."""
        self.require_corpus(corpus)
        return self.sql.versions_of(corpus, provision_id)

    def reembed_entities(self, corpus: str) -> dict:
        """Recompute the stored entity, relation and triple embeddings with the configured embedding model
        (after `train encoder`), without extracting again; names and counts are unchanged."""
        from bifrost.graph_builders.entities.reembed import reembed_entity_network

        self.require_corpus(corpus)
        graph = None if self.settings.store == "embedded" else self.graph  # the embedded store reads SQL
        with self.sql.writer_lock(corpus):
            report = reembed_entity_network(self.sql, corpus, self.embedder, graph, self.settings.embedding_model)
        self.write_indexes(corpus)
        return {**report, "embedding_model": self.settings.embedding_model}

    def entity_view(self, corpus: str, name: str) -> dict:
        """An entity (exact normalized name, else the closest by embedding), its provisions and relations."""
        from bifrost.graph_builders.entities.normalize import normalize_name
        from bifrost.retrieval.baselines.documents import index_folder
        from bifrost.retrieval.eng_index import EngIndex

        self.require_corpus(corpus)
        wanted = normalize_name(name, "")
        with self.sql.session() as s:
            entity = entity_tables.find_entity(s, corpus, wanted)
        if entity is None:
            loaded = self.pipeline.loaded(corpus)
            index = loaded.index if loaded is not None else EngIndex.load(self.sql, corpus, index_folder(self.settings.home, corpus))
            best = index.match_entities(self.embedder.embed([wanted]), 1, 0.0)[0] if not index.empty else []
            if not best:
                raise NotFoundError(f"no entity {name!r} in corpus {corpus!r}")
            with self.sql.session() as s:
                entity = entity_tables.find_entity(s, corpus, best[0].key)
        if entity is None:
            raise NotFoundError(f"no entity {name!r} in corpus {corpus!r}")
        with self.sql.session() as s:
            rels = entity_tables.relations_of(s, corpus, entity.name)
        return {
            "name": entity.name,
            "label": entity.label,
            "asked": name,
            "provisions": list(entity.section_ids),
            "relations": [{"head": t.head, "relation": t.relation, "tail": t.tail, "provisions": list(t.section_ids)} for t in rels],
        }

    def export_neo4j(self, corpus: str) -> dict:
        """Write both graphs of a corpus to the configured Neo4j server (for analysts)."""
        from bifrost.graph_builders.entities.pipeline import write_entity_network
        from bifrost.graph_builders.navigator.build import build_navigator

        self.require_corpus(corpus)
        neo = make_graph_store(self.settings.model_copy(update={"store": "neo4j"}), self.sql)
        try:
            nav = build_navigator(self.sql, neo, corpus, self.reference_extractor(corpus))
            ents = write_entity_network(self.sql, neo, corpus)
            stats = neo.stats(corpus)
        finally:
            neo.close()
        return {"navigator": nav.model_dump(), "entities": ents, "stats": stats.model_dump()}

    # --- asking ---
    def retriever(self, corpus: str):
        """The hybrid retriever of a corpus, its indexes loaded once."""
        return self.pipeline.retriever(corpus)

    def dense_ranker(self, corpus: str):
        return self.pipeline.dense_ranker(corpus)

    def lookup(self, corpus: str) -> Callable[[str], Provision | None]:
        return self.pipeline.lookup(corpus)

    def search(self, query: str, corpus: str = "osha-1926", k: int = 10) -> list[RetrievedItem]:
        """The ``k`` best provisions for a query, each with how it was reached (no answer step)."""
        config = self.retrieval_config.model_copy(update={"top_n": k})
        return self.retriever(corpus).retrieve(query, config).items[:k]

    def ask(
        self, question: str, corpus: str = "osha-1926", config: RetrievalConfig | None = None, as_of: str | None = None,
    ) -> Answer:
        """Answer a question with cited provisions, or refuse when nothing supports an answer.

        ``corpus`` may name several corpora (``osha-1926,adgm``) or ``all``: each answers, and the
        answers are merged with the corpus on every citation (`bifrost.retrieval.multi_corpus`).
        ``as_of`` (an ISO date or an edition number) answers from the edition valid then; a past
        edition is ranked without the entity network (the answer's ``note`` says so).
        """
        if not is_several(corpus):
            return self.pipeline.ask(question, corpus, config, self._as_of(corpus, as_of))
        corpora = parse_corpora(corpus, self.corpora())
        answers = [self.pipeline.ask(question, c, config, self._as_of(c, as_of)) for c in corpora]
        return merge_answers(question, answers, lambda texts: self.embedder.embed(texts))
