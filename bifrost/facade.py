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
from bifrost.types import Answer, GraphStats, IngestReport, Provision, ReviewItem, make_uid, split_uid

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


def within_subparts(provisions: Sequence[Provision], subparts: Sequence[str]) -> list[Provision]:
    """The provisions under the given subparts (letters like "M" or ids like "1926 Subpart M")."""
    wanted = {s.split()[-1].upper() for s in subparts}
    parent = {p.id: p.parent_id for p in provisions}
    kind = {p.id: p.kind.value for p in provisions}

    def subpart_of(pid: str | None) -> str | None:
        while pid is not None and kind.get(pid) != "subpart":
            pid = parent.get(pid)
        return pid.split()[-1].upper() if pid else None

    return [p for p in provisions if subpart_of(p.id) in wanted]


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
        if jurisdiction == "adgm":
            from graph_builders.navigator.adgm_references import AdgmReferenceExtractor

            return AdgmReferenceExtractor()
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

    # --- the entity network ---
    @cached_property
    def embedder(self):
        from bifrost.embeddings import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder.from_settings(self.settings, num_threads=self.settings.embedding_threads)

    @cached_property
    def chat_model(self):
        """The configured chat model, or None (offline mode)."""
        from bifrost.llm import configure_llm_cache, make_chat_model

        model = make_chat_model(self.settings)
        if model is not None:
            configure_llm_cache(self.settings.llm_cache_path or self.settings.home / "llm_cache.db")
        return model

    @cached_property
    def usage_counter(self):
        """Token usage and estimated cost of chat calls made through this object."""
        from bifrost.llm import UsageCounter, prices_from_settings

        return UsageCounter(prices_from_settings(self.settings))

    def usage_report(self) -> dict:
        return self.usage_counter.report().model_dump(mode="json")

    def entity_extractor(self, corpus: str, kind: str = "auto"):
        """The offline spaCy extractor, or the LLM agents when a chat model is configured."""
        if kind not in {"auto", "offline", "llm"}:
            raise BifrostError(f"unknown extractor {kind!r}: use offline, llm or auto")
        if kind == "llm" or (kind == "auto" and self.chat_model is not None):
            if self.chat_model is None:
                raise BifrostError("extractor 'llm' needs a chat model: set BIFROST_LLM_MODEL and OPENAI_API_KEY")
            from graph_builders.entities.agent_prompts import ExtractionPrompts
            from graph_builders.entities.checkpoint import ExtractionJournal
            from graph_builders.entities.llm_agents import LlmExtractor, grammar_ref_validator
            from graph_builders.citations.cfr import normalize

            known = {p.id for p in self.sql.provisions(corpus)}
            return LlmExtractor(
                self.chat_model,
                ExtractionPrompts.load(prompts_dir=self.settings.prompts_dir),
                grammar_ref_validator(normalize, known),
                self.settings.llm_concurrency,
                journal=ExtractionJournal.at_path(self.settings.home / "extraction_journal.db"),
                callbacks=(self.usage_counter,),
            )
        from graph_builders.entities.offline_extractor import OfflineExtractor

        return OfflineExtractor(self.settings.spacy_model)

    def build_entities(
        self, corpus: str, extractor: str = "auto", tau: float | None = None,
        progress: Callable[[int, int], None] | None = None, subparts: Sequence[str] | None = None,
        search: str | None = None,
    ):
        """Extract, refine and store the Entity Network Graph of a corpus (replacing the last one);
        ``subparts`` (e.g. ["M", "P"]) restricts it to the provisions under those subparts;
        ``search`` (exact, lsh, auto) overrides the refiner's nearest-entity search."""
        from graph_builders.entities.build import build_entity_network
        from graph_builders.entities.refiner import IncrementalEntityRefiner

        self.require_corpus(corpus)
        provisions = self.sql.provisions(corpus)
        if subparts:
            provisions = within_subparts(provisions, subparts)
        refiner = IncrementalEntityRefiner(
            self.embedder, tau=self.settings.tau if tau is None else tau, corpus=corpus,
            search=search or self.settings.refiner_search, switch_at=self.settings.refiner_switch_at,
        )
        report = build_entity_network(
            provisions, self.entity_extractor(corpus, extractor), refiner, self.graph, self.sql.session,
            corpus, progress=progress, replace=True,
        )
        self.dense_ranker(corpus)  # embed every provision now, so the first question is fast
        self._retrievers.clear()
        return report

    def entity_view(self, corpus: str, name: str) -> dict:
        """An entity (exact normalized name, else the closest by embedding), its provisions and relations."""
        from sqlalchemy import or_, select

        from bifrost.store.entity_tables import EntityEmbeddingRow, TripleEmbeddingRow
        from graph_builders.entities.normalize import normalize_name

        self.require_corpus(corpus)
        wanted = normalize_name(name, "")
        with self.sql.session() as s:
            row = s.scalar(select(EntityEmbeddingRow).where(
                EntityEmbeddingRow.corpus == corpus, EntityEmbeddingRow.name == wanted))
        if row is None:
            from retrieval.eng_index import EngIndex

            index = self.retriever(corpus).index if corpus in self._retrievers else EngIndex.load(self.sql, corpus)
            best = index.match_entities(self.embedder.embed([wanted]), 1, 0.0)[0] if not index.empty else []
            if not best:
                raise NotFoundError(f"no entity {name!r} in corpus {corpus!r}")
            wanted = best[0].key
            with self.sql.session() as s:
                row = s.scalar(select(EntityEmbeddingRow).where(
                    EntityEmbeddingRow.corpus == corpus, EntityEmbeddingRow.name == wanted))
        with self.sql.session() as s:
            t = TripleEmbeddingRow
            rels = s.execute(select(t.head, t.relation, t.tail, t.section_ids).where(
                t.corpus == corpus, or_(t.head == wanted, t.tail == wanted)).order_by(t.head, t.relation, t.tail)).all()
        return {
            "name": row.name,
            "label": row.label,
            "asked": name,
            "provisions": list(row.section_ids or []),
            "relations": [{"head": h, "relation": r, "tail": tl, "provisions": list(ids or [])} for h, r, tl, ids in rels],
        }

    def write_entities_to(self, graph: GraphStore, corpus: str) -> dict:
        """Copy the stored entity network (nodes, MENTIONED_IN, RELATES, embeddings) to a graph store."""
        from bifrost.relations import is_valid_relation
        from bifrost.store import entity_tables
        from bifrost.types import entity_uid
        from graph_builders.entities.build import graph_edges

        with self.sql.session() as s:
            entities = entity_tables.load_entities(s, corpus)
            names, ent_matrix = entity_tables.load_entity_matrix(s, corpus)
            triples, tri_matrix = entity_tables.load_triple_matrix(s, corpus)
        valid = [i for i, t in enumerate(triples) if is_valid_relation(t.relation)]
        edges = graph_edges(corpus, entities, [triples[i] for i in valid])
        graph.upsert_entities(entities)
        graph.upsert_edges(edges)
        written = {"entities": len(entities), "relations": len(valid), "skipped_relations": len(triples) - len(valid)}
        if hasattr(graph, "set_entity_embeddings"):
            graph.set_entity_embeddings([(entity_uid(corpus, n), v) for n, v in zip(names, ent_matrix)])
            relates = {(e.source, e.relation, e.target): e for e in edges if e.relation}
            rows = []
            for i in valid:
                t = triples[i]
                e = relates.get((entity_uid(corpus, t.head), t.relation, entity_uid(corpus, t.tail)))
                if e is not None:
                    rows.append((e, tri_matrix[i]))
            graph.set_triple_embeddings(rows)
        return written

    def export_neo4j(self, corpus: str) -> dict:
        """Write both graphs of a corpus to the configured Neo4j server (for analysts)."""
        from graph_builders.navigator.build import build_navigator

        self.require_corpus(corpus)
        neo = make_graph_store(self.settings.model_copy(update={"store": "neo4j"}), self.sql)
        try:
            nav = build_navigator(self.sql, neo, corpus, self.reference_extractor(corpus))
            ents = self.write_entities_to(neo, corpus)
            stats = neo.stats(corpus)
        finally:
            neo.close()
        return {"navigator": nav.model_dump(), "entities": ents, "stats": stats.model_dump()}

    # --- asking ---
    @cached_property
    def _retrievers(self) -> dict:
        return {}

    def retriever(self, corpus: str):
        """The hybrid retriever of a corpus, its indexes loaded once."""
        if corpus not in self._retrievers:
            from graph_builders.entities.normalize import normalize_name
            from retrieval.decompose import ExtractorDecomposer
            from retrieval.eng_index import EngIndex
            from retrieval.hybrid import HybridRetriever

            self.require_corpus(corpus)
            index = EngIndex.load(self.sql, corpus)
            if index.empty:
                raise NotFoundError(
                    f"corpus {corpus!r} has no entity network yet; run `bifrost build entities --corpus {corpus}`"
                )
            from retrieval.baselines.bm25 import Bm25Ranker

            decomposer = ExtractorDecomposer(self.entity_extractor(corpus, "auto"), normalize_name)
            bm25 = Bm25Ranker(self.settings)
            bm25.warm_up(corpus)
            dense = self.dense_ranker(corpus)
            self._retrievers[corpus] = HybridRetriever(
                index, self.graph, self.embedder, lambda q: decomposer.decompose(q, corpus), self.retrieval_config,
                lexical=lambda q, k: [(it.id, it.score) for it in bm25.search(q, k)],
                dense=lambda q, k: [(it.id, it.score) for it in dense.search(q, k)],
                containers=self.container_ids(corpus),
            )
        return self._retrievers[corpus]

    def container_ids(self, corpus: str) -> set[str]:
        """Ids of parts and subparts: traversed, never cited (they hold no text of their own)."""
        return {p.id for p in self.sql.provisions(corpus) if p.kind.value in ("part", "subpart")}

    def dense_ranker(self, corpus: str):
        """Embeddings of every provision (cached on disk under $BIFROST_HOME/index)."""
        from retrieval.baselines.dense import DenseRanker

        dense = DenseRanker(self.settings, embedder=self.embedder)
        dense.warm_up(corpus)
        return dense

    @cached_property
    def retrieval_config(self):
        from retrieval.config import RetrievalConfig

        return RetrievalConfig()

    def lookup(self, corpus: str) -> Callable[[str], Provision | None]:
        return lambda pid: self.graph.get_section(make_uid(corpus, pid))

    def ask(self, question: str, corpus: str = "osha-1926", config=None) -> Answer:
        """Answer a question with cited provisions, or refuse when nothing supports an answer."""
        import time

        from bifrost.types import AnswerMode
        from retrieval.answer_extractive import extractive_statements, render
        from retrieval.citations import citations_for, select_cited

        question = (question or "").strip()
        if not question:
            raise BifrostError("the question is empty")
        t0 = time.perf_counter()
        retr = self.retriever(corpus)
        cfg = config or retr.config
        result = retr.retrieve(question, cfg)
        lookup = self.lookup(corpus)
        timings = dict(result.timings)
        t1 = time.perf_counter()
        mode = AnswerMode.EXTRACTIVE if self.chat_model is None else AnswerMode.LLM
        refused = not result.items or result.relevance < cfg.refuse_below
        statements = []
        if not refused and mode is AnswerMode.EXTRACTIVE:
            cited = select_cited(result.items, cfg.cite_ratio, cfg.cite_max)
            statements = extractive_statements(question, cited, lookup, self.embedder)
            refused = not statements
        elif not refused:
            from retrieval.answer_llm import LlmAnswerer

            refused, statements, _dropped = LlmAnswerer(self.chat_model, self.settings.prompts_dir).answer(
                question, result.items, lookup
            )
        timings["answer"] = time.perf_counter() - t1
        timings["total"] = time.perf_counter() - t0
        cited_ids = [c for s in statements for c in s.citations]
        return Answer(
            question=question,
            corpus=corpus,
            mode=mode,
            refused=refused,
            text=("The indexed regulations do not answer this question." if refused else render(statements)),
            statements=statements,
            citations=citations_for(cited_ids, lookup),
            retrieved=result.items,
            unused=[it.id for it in result.items if it.id not in set(cited_ids)],
            timings=timings,
        )
