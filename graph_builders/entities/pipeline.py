"""The entity-network stage for one stored corpus: pick the provisions, extract, refine, store;
and copying a stored network into another graph store (the Neo4j export)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bifrost.core.graph.base import GraphStore
from bifrost.core.provisions import within_subparts
from bifrost.core.relations import is_valid_relation
from bifrost.core.resources import Resources
from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import entity_uid
from bifrost.graph_builders.entities.base import EntityBuildReport
from bifrost.graph_builders.entities.build import build_entity_network, graph_edges
from bifrost.graph_builders.entities.extractors import make_entity_extractor
from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner
from bifrost.graph_builders.entities.sync import prune_graph
from bifrost.graph_builders.entities.vector_cache import CachedEmbedder


def build_corpus_entities(
    resources: Resources,
    corpus: str,
    extractor: str = "auto",
    tau: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    subparts: Sequence[str] | None = None,
    search: str | None = None,
) -> EntityBuildReport:
    """Extract, refine and store the Entity Network Graph of a corpus (replacing the last one, writing
    only what changed: unchanged provisions are read from the extraction journal, known names from
    the vector cache, and the stores end equal to a clean build);
    ``subparts`` (e.g. ["M", "P"]) restricts it to the provisions under those subparts;
    ``search`` (exact, lsh, auto) overrides the refiner's nearest-entity search."""
    resources.require_corpus(corpus)
    provisions = resources.sql.provisions(corpus)
    if subparts:
        provisions = within_subparts(provisions, subparts)
    settings = resources.settings
    # known names: no model call
    embedder = CachedEmbedder(resources.embedder, resources.embedder.key, resources.sql.session)
    refiner = IncrementalEntityRefiner(
        embedder,
        tau=settings.tau if tau is None else tau,
        corpus=corpus,
        search=search or settings.refiner_search,
        switch_at=settings.refiner_switch_at,
    )
    return build_entity_network(
        provisions,
        make_entity_extractor(resources, corpus, extractor),
        refiner,
        resources.graph,
        resources.sql.session,
        corpus,
        progress=progress,
        max_failure_share=settings.max_extraction_failure_share,
    )


def write_entity_network(sql: SqlStore, graph: GraphStore, corpus: str) -> dict[str, int]:
    """Copy the stored entity network (nodes, MENTIONED_IN, RELATES, embeddings) to a graph store,
    removing the store's Entity nodes and edges the stored network no longer has."""
    with sql.session() as s:
        entities = entity_tables.load_entities(s, corpus)
        names, ent_matrix = entity_tables.load_entity_matrix(s, corpus)
        triples, tri_matrix = entity_tables.load_triple_matrix(s, corpus)
    valid = [i for i, t in enumerate(triples) if is_valid_relation(t.relation)]
    edges = graph_edges(corpus, entities, [triples[i] for i in valid])
    with graph.atomic():  # the network switches in one step; vectors follow
        # no stale node or edge of an older network
        prune_graph(graph, corpus, {e.uid for e in entities}, edges)
        graph.upsert_entities(entities)
        graph.upsert_edges(edges)
    graph.set_entity_embeddings([(entity_uid(corpus, n), v) for n, v in zip(names, ent_matrix)])
    relates = {(e.source, e.relation, e.target): e for e in edges if e.relation}
    rows = []
    for i in valid:
        t = triples[i]
        e = relates.get((entity_uid(corpus, t.head), t.relation, entity_uid(corpus, t.tail)))
        if e is not None:
            rows.append((e, tri_matrix[i]))
    graph.set_triple_embeddings(rows)
    return {
        "entities": len(entities),
        "relations": len(valid),
        "skipped_relations": len(triples) - len(valid),
    }
