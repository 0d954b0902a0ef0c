"""What `bifrost graph entity` and the web entity page show of one entity of the Entity Network:
its label, the provisions that mention it and its relations (found by exact normalized name, else
the closest entity by embedding)."""

from __future__ import annotations

from bifrost.app.records import EntityRelation, EntityView
from bifrost.core.embeddings import Embedder
from bifrost.core.errors import NotFoundError
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.graph_builders.entities.normalize import normalize_name
from bifrost.retrieval.channels.documents import index_folder
from bifrost.retrieval.channels.entity_index import EngIndex


def entity_view(
    sql: SqlStore,
    settings: Settings,
    embedder: Embedder,
    corpus: str,
    name: str,
    index: EngIndex | None = None,
) -> EntityView:
    """The entity ``name`` of ``corpus`` with its provisions and relations; ``index`` is the loaded entity
    index when there is one (else it is mapped from the index files)."""
    wanted = normalize_name(name, "")
    with sql.session() as s:
        entity = entity_tables.find_entity(s, corpus, wanted)
    if entity is None:
        index = (
            index if index is not None else EngIndex.load(sql, corpus, index_folder(settings.home, corpus))
        )
        best = index.match_entities(embedder.embed([wanted]), 1, 0.0)[0] if not index.empty else []
        if not best:
            raise NotFoundError(f"no entity {name!r} in corpus {corpus!r}")
        with sql.session() as s:
            entity = entity_tables.find_entity(s, corpus, best[0].key)
    if entity is None:
        raise NotFoundError(f"no entity {name!r} in corpus {corpus!r}")
    with sql.session() as s:
        rels = entity_tables.relations_of(s, corpus, entity.name)
    return EntityView(
        name=entity.name,
        label=entity.label,
        asked=name,
        provisions=list(entity.section_ids),
        relations=[
            EntityRelation(head=t.head, relation=t.relation, tail=t.tail, provisions=list(t.section_ids))
            for t in rels
        ],
    )
