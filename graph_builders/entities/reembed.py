"""Re-embed a stored Entity Network with the configured embedder, without extracting again.

After a change of embedding model (e.g. a corpus-adapted encoder, `bifrost train encoder`) the stored
entity, relation and triple vectors no longer live in the question encoder's space. This rewrites them
from the stored names (entity name; relation phrase; triple = [head, relation, tail]), exactly as the
refiner embeds them at build time; names, labels, provisions and counts are unchanged. Entities are
not merged again (tau applies at build time only).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from bifrost.core.embeddings import Embedder, l2_normalize
from bifrost.core.graph.base import GraphStore
from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.graph_builders.entities.refiner import relation_text

log = logging.getLogger(__name__)


def _embed(embedder: Embedder, texts: list[str], batch: int = 512) -> np.ndarray:
    parts = [l2_normalize(embedder.embed(texts[i : i + batch])) for i in range(0, len(texts), batch)]
    return np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)


def _triple_vectors(
    corpus: str, entities, relations, triples, ent: np.ndarray, rel: np.ndarray
) -> np.ndarray:
    """Each stored triple's [h, r, t] vector from the new entity and relation vectors; a triple naming an
    entity or relation that is not stored stops the run (the network needs a rebuild)."""
    row = {e.name: i for i, e in enumerate(entities)}
    rrow = {r: i for i, r in enumerate(relations)}
    missing = [t for t in triples if t.head not in row or t.tail not in row or t.relation not in rrow]
    if missing:
        raise ValueError(
            f"{len(missing)} stored triples of {corpus!r} name an entity or relation that is not stored "
            f"(first: {missing[0].head!r} {missing[0].relation!r} {missing[0].tail!r}); rebuild the entity "
            "network"
        )
    return (
        np.concatenate(
            [
                ent[[row[t.head] for t in triples]],
                rel[[rrow[t.relation] for t in triples]],
                ent[[row[t.tail] for t in triples]],
            ],
            axis=1,
        )
        if triples
        else np.zeros((0, 3 * ent.shape[1]), dtype=np.float32)
    )


def reembed_entity_network(
    sql: SqlStore, corpus: str, embedder: Embedder, graph: GraphStore | None = None, model: str | None = None
) -> dict:
    """Recompute and store the entity, relation and triple embeddings of ``corpus`` (one transaction);
    ``graph`` (e.g. Neo4j, which keeps its own vectors) gets the new vectors too. Returns counts.

    The builds' name-vector cache is emptied (a model folder may hold new weights under the same
    name); with ``model`` (the embedder's name) the new entity and relation vectors refill it."""
    started = time.perf_counter()
    with sql.session() as s:
        entities = entity_tables.load_entities(s, corpus)
        relations, _ = entity_tables.load_relation_matrix(s, corpus)
        triples, _ = entity_tables.load_triple_matrix(s, corpus)
    if not entities:
        raise ValueError(
            f"corpus {corpus!r} has no entity network; run `bifrost build entities --corpus {corpus}`"
        )
    ent = _embed(embedder, [e.name for e in entities])
    rel = _embed(embedder, [relation_text(r) for r in relations])
    tri = _triple_vectors(corpus, entities, relations, triples, ent, rel)
    with sql.session() as s:  # one transaction: all or nothing
        entity_tables.upsert_entities(s, corpus, entities, ent)
        entity_tables.upsert_relations(s, corpus, relations, rel)
        entity_tables.upsert_triples(s, corpus, triples, tri)
        entity_tables.clear_text_vectors(s)
        if model:
            fresh = dict(zip([e.name for e in entities], ent)) | dict(
                zip([relation_text(r) for r in relations], rel)
            )
            entity_tables.add_text_vectors(s, model, fresh)
    if graph is not None:
        from bifrost.graph_builders.entities.pipeline import write_entity_network

        write_entity_network(sql, graph, corpus)
    seconds = round(time.perf_counter() - started, 1)
    log.info(
        "re-embedded the entity network of %s: %d entities, %d relation types, %d triples in %.1fs",
        corpus,
        len(entities),
        len(relations),
        len(triples),
        seconds,
    )
    return {
        "corpus": corpus,
        "entities": len(entities),
        "relation_types": len(relations),
        "triples": len(triples),
        "dim": int(ent.shape[1]),
        "seconds": seconds,
    }
