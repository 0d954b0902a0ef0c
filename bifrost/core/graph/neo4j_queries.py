"""Every Cypher statement the Neo4j GraphStore sends, as named constants.

All values travel as parameters (``$rows``, ``$uid``, ``$corpus`` ...); nothing is pasted into
query text at run time. The only text built here is built once, at import, from the fixed
names below (relationship types and labels of the schema), never from data.

Schema (same as the embedded store, see ``docs/DESIGN.md``)::

    (:Section {uid, corpus, id, parent_id, kind, heading, text, level, ord, url, pages,
               term, source_note, reserved, document})
    (:Section)-[:HAS]->(:Section)                       parent to child
    (:Section)-[:REFERS_TO {text}]->(:Section)          explicit cross-reference
    (:Entity {uid, corpus, name, label, section_ids, embedding})
    (:Entity)-[:MENTIONED_IN]->(:Section)
    (:Entity)-[:RELATES {relation, section_ids, embedding}]->(:Entity)
    (:CorpusMeta {corpus, dangling_references})

Relations between entities use ONE relationship type, ``:RELATES``, with the snake_case
relation name as the ``relation`` property (part of the MERGE key), rather than one dynamic
type per relation: no query text ever depends on document content, and the triple embedding
(``[h, r, t]`` concatenated, 3 x d) lives on the ``:RELATES`` relationship it describes, indexed
by a relationship vector index. ``Provision.order`` is stored as ``ord``.
"""

from __future__ import annotations

SECTION = "Section"
ENTITY = "Entity"
CORPUS_META = "CorpusMeta"

ENTITY_VECTOR_INDEX = "bifrost_entity_embedding"
TRIPLE_VECTOR_INDEX = "bifrost_triple_embedding"
SECTION_FULLTEXT_INDEX = "bifrost_section_text"

# --- schema (idempotent: IF NOT EXISTS) -------------------------------------------------------

SCHEMA_STATEMENTS: tuple[str, ...] = (
    "CREATE CONSTRAINT bifrost_section_uid IF NOT EXISTS FOR (s:Section) REQUIRE s.uid IS UNIQUE",
    "CREATE CONSTRAINT bifrost_entity_uid IF NOT EXISTS FOR (e:Entity) REQUIRE e.uid IS UNIQUE",
    "CREATE CONSTRAINT bifrost_corpus_meta IF NOT EXISTS FOR (m:CorpusMeta) REQUIRE m.corpus IS UNIQUE",
    "CREATE INDEX bifrost_section_corpus_id IF NOT EXISTS FOR (s:Section) ON (s.corpus, s.id)",
    "CREATE INDEX bifrost_section_corpus IF NOT EXISTS FOR (s:Section) ON (s.corpus)",
    "CREATE INDEX bifrost_entity_corpus IF NOT EXISTS FOR (e:Entity) ON (e.corpus)",
    "CREATE INDEX bifrost_relates_relation IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.relation)",
    f"CREATE FULLTEXT INDEX {SECTION_FULLTEXT_INDEX} IF NOT EXISTS FOR (s:Section) ON EACH [s.text, "
    "s.heading]",
    "CREATE CONSTRAINT bifrost_precedent_uid IF NOT EXISTS FOR (p:Precedent) REQUIRE p.uid IS UNIQUE",
    "CREATE INDEX bifrost_precedent_corpus IF NOT EXISTS FOR (p:Precedent) ON (p.corpus)",
)

# Vector indexes take their dimension as a parameter ($dimensions).
CREATE_ENTITY_VECTOR_INDEX = (
    f"CREATE VECTOR INDEX {ENTITY_VECTOR_INDEX} IF NOT EXISTS FOR (e:Entity) ON (e.embedding) "
    "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}"
)
CREATE_TRIPLE_VECTOR_INDEX = (
    f"CREATE VECTOR INDEX {TRIPLE_VECTOR_INDEX} IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.embedding) "
    "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}"
)
SHOW_VECTOR_INDEXES = (
    "SHOW VECTOR INDEXES YIELD name, options WHERE name IN $names "
    "RETURN name, options.indexConfig.`vector.dimensions` AS dimensions"
)
AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"

# --- writes ------------------------------------------------------------------------------------

# Sections: the stored properties are replaced by the row (SET s = row), so a field set back
# to None disappears, exactly as the embedded store replaces its node attributes.
UPSERT_SECTIONS = """
UNWIND $rows AS row
MERGE (s:Section {uid: row.uid})
SET s = row
RETURN count(*) AS written
"""

# Entities keep properties not written here (their embedding): SET += with explicit fields.
UPSERT_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {uid: row.uid})
SET e.corpus = row.corpus, e.name = row.name, e.label = row.label, e.section_ids = row.section_ids
RETURN count(*) AS written
"""

# An edge counts as written when it is new or one of its properties changed (as in the
# embedded store); rows whose end nodes do not exist are dropped by the MATCHes.
_SAME = "coalesce(old.{p} = row.{p}, old.{p} IS NULL AND row.{p} IS NULL)"
_CHANGED = f"old IS NULL OR NOT ({_SAME.format(p='text')} AND {_SAME.format(p='section_ids')})"


def _upsert_edge(rel: str, src: str, dst: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH (a:{src} {{uid: row.source}})
MATCH (b:{dst} {{uid: row.target}})
OPTIONAL MATCH (a)-[old:{rel}]->(b)
WITH a, b, row, {_CHANGED} AS changed
MERGE (a)-[r:{rel}]->(b)
SET r.text = row.text, r.section_ids = row.section_ids
RETURN sum(CASE WHEN changed THEN 1 ELSE 0 END) AS written
"""


UPSERT_HAS = _upsert_edge("HAS", SECTION, SECTION)
UPSERT_REFERS_TO = _upsert_edge("REFERS_TO", SECTION, SECTION)
UPSERT_MENTIONED_IN = _upsert_edge("MENTIONED_IN", ENTITY, SECTION)

UPSERT_RELATES = f"""
UNWIND $rows AS row
MATCH (a:Entity {{uid: row.source}})
MATCH (b:Entity {{uid: row.target}})
OPTIONAL MATCH (a)-[old:RELATES {{relation: row.relation}}]->(b)
WITH a, b, row, {_CHANGED} AS changed
MERGE (a)-[r:RELATES {{relation: row.relation}}]->(b)
SET r.text = row.text, r.section_ids = row.section_ids
RETURN sum(CASE WHEN changed THEN 1 ELSE 0 END) AS written
"""

SET_ENTITY_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (e:Entity {uid: row.uid})
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
RETURN count(*) AS written
"""

SET_TRIPLE_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (:Entity {uid: row.source})-[r:RELATES {relation: row.relation}]->(:Entity {uid: row.target})
CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.embedding)
RETURN count(*) AS written
"""

SET_DANGLING_COUNT = """
MERGE (m:CorpusMeta {corpus: $corpus})
SET m.dangling_references = $count
"""

# Run in auto-commit transactions (CALL ... IN TRANSACTIONS), so that a large corpus is
# deleted in bounded chunks.
CLEAR_SECTIONS = """
MATCH (s:Section {corpus: $corpus})
CALL (s) { DETACH DELETE s } IN TRANSACTIONS OF $chunk ROWS
"""
CLEAR_ENTITIES = """
MATCH (e:Entity {corpus: $corpus})
CALL (e) { DETACH DELETE e } IN TRANSACTIONS OF $chunk ROWS
"""
CLEAR_META = "MATCH (m:CorpusMeta {corpus: $corpus}) DELETE m"
CLEAR_SECTIONS_IN_TX = "MATCH (s:Section {corpus: $corpus}) DETACH DELETE s"
CLEAR_ENTITIES_IN_TX = "MATCH (e:Entity {corpus: $corpus}) DETACH DELETE e"

# Retiring nodes and edges (editions, entity updates): each returns how many existed.
DELETE_NODES = """
UNWIND $rows AS row
MATCH (n {uid: row.uid}) WHERE n:Section OR n:Entity
DETACH DELETE n
RETURN count(*) AS written
"""


def _delete_edge(rel: str, match: str = "") -> str:
    return f"""
UNWIND $rows AS row
MATCH ({{uid: row.source}})-[r:{rel}{match}]->({{uid: row.target}})
DELETE r
RETURN count(*) AS written
"""


DELETE_EDGES = {
    "HAS": _delete_edge("HAS"),
    "REFERS_TO": _delete_edge("REFERS_TO"),
    "MENTIONED_IN": _delete_edge("MENTIONED_IN"),
    "RELATES": _delete_edge("RELATES", " {relation: row.relation}"),
}

# Inventory of a corpus (sync and consistency checks).
NODE_UIDS = "MATCH (n {corpus: $corpus}) WHERE $label IN labels(n) RETURN n.uid AS uid"
EDGES_OF_TYPE = """
MATCH (a {corpus: $corpus})-[r]->(b) WHERE type(r) = $type AND (a:Section OR a:Entity)
RETURN a.uid AS source, b.uid AS target, r.text AS text, r.relation AS relation, r.section_ids AS section_ids
"""

# --- reads -------------------------------------------------------------------------------------

GET_SECTION = "MATCH (s:Section {uid: $uid}) RETURN properties(s) AS props"
GET_ENTITY = (
    "MATCH (e:Entity {uid: $uid}) RETURN e.corpus AS corpus, e.name AS name, e.label AS label, "
    "e.section_ids AS section_ids"
)

PARENT = """
MATCH (p:Section)-[:HAS]->(:Section {uid: $uid})
RETURN p.uid AS uid
ORDER BY p.ord, p.uid
LIMIT 1
"""

FAMILY = """
UNWIND $uids AS uid
MATCH (n:Section {uid: uid})
OPTIONAL MATCH (p:Section)-[:HAS]->(n)
OPTIONAL MATCH (n)-[:HAS]->(c:Section)
WITH uid, p, c ORDER BY c.ord, c.uid
RETURN uid, head(collect(DISTINCT p.uid)) AS parent, [x IN collect(c.uid) WHERE x IS NOT NULL] AS children
"""

CHILDREN = """
MATCH (:Section {uid: $uid})-[:HAS]->(c:Section)
RETURN DISTINCT c.uid AS uid, c.ord AS ord
ORDER BY ord, uid
"""

SIBLINGS = """
MATCH (me:Section {uid: $uid})
CALL (me) {
  MATCH (p:Section)-[:HAS]->(me)
  RETURN p
  ORDER BY p.ord, p.uid
  LIMIT 1
}
MATCH (p)-[:HAS]->(s:Section)
WHERE s <> me
RETURN DISTINCT s.uid AS uid, s.ord AS ord
ORDER BY ord, uid
"""

REFERENCES_OUT = """
MATCH (:Section {uid: $uid})-[r:REFERS_TO]->(t:Section)
RETURN t.uid AS uid, r.text AS text
ORDER BY t.ord, t.uid
"""

REFERENCES_IN = """
MATCH (s:Section)-[r:REFERS_TO]->(:Section {uid: $uid})
RETURN s.uid AS uid, r.text AS text
ORDER BY s.ord, s.uid
"""

# One breadth-first step of the REFERS_TO closure: the out-neighbours of a frontier, in
# frontier order, then document order. The caller keeps the visited set and the paths, so
# every node is reported once at its smallest depth (see Neo4jGraphStore.refers_to_closure).
REFERS_TO_STEP = """
UNWIND range(0, size($frontier) - 1) AS i
MATCH (:Section {uid: $frontier[i]})-[:REFERS_TO]->(t:Section)
RETURN i, t.uid AS uid
ORDER BY i, t.ord, t.uid
"""

STATS_SECTIONS = "MATCH (s:Section {corpus: $corpus}) RETURN s.kind AS kind, count(*) AS n"
STATS_ENTITIES = "MATCH (e:Entity {corpus: $corpus}) RETURN count(e) AS n"
STATS_EDGES = """
CALL () {
  MATCH (:Section {corpus: $corpus})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Entity {corpus: $corpus})-[r]->() RETURN type(r) AS type
}
RETURN type, count(*) AS n
"""
STATS_DANGLING = "MATCH (m:CorpusMeta {corpus: $corpus}) RETURN m.dangling_references AS n"

# Node and relationship totals of a corpus (idempotency checks, benchmarks).
COUNT_CORPUS = """
CALL () {
  MATCH (n:Section {corpus: $corpus}) RETURN count(n) AS c
  UNION ALL
  MATCH (n:Entity {corpus: $corpus}) RETURN count(n) AS c
}
WITH sum(c) AS nodes
CALL () {
  MATCH (:Section {corpus: $corpus})-[r]->() RETURN count(r) AS c
  UNION ALL
  MATCH (:Entity {corpus: $corpus})-[r]->() RETURN count(r) AS c
}
RETURN nodes, sum(c) AS relationships
"""

# --- search ------------------------------------------------------------------------------------

SEARCH_SECTIONS_FULLTEXT = f"""
CALL db.index.fulltext.queryNodes('{SECTION_FULLTEXT_INDEX}', $query, {{limit: $fetch}})
YIELD node, score
WHERE $corpus IS NULL OR node.corpus = $corpus
RETURN node.uid AS uid, score
LIMIT $top_k
"""

SIMILAR_ENTITIES = f"""
CALL db.index.vector.queryNodes('{ENTITY_VECTOR_INDEX}', $fetch, $vector)
YIELD node, score
WHERE $corpus IS NULL OR node.corpus = $corpus
RETURN node.uid AS uid, score
LIMIT $top_k
"""

SIMILAR_TRIPLES = f"""
CALL db.index.vector.queryRelationships('{TRIPLE_VECTOR_INDEX}', $fetch, $vector)
YIELD relationship, score
WITH relationship AS r, score
MATCH (h:Entity)-[r]->(t:Entity)
WHERE $corpus IS NULL OR h.corpus = $corpus
RETURN h.uid AS head, r.relation AS relation, t.uid AS tail, score
LIMIT $top_k
"""


# Precedents (answered questions) and what they cite: the corpus's precedents are replaced as a whole; a
# citation the corpus lacks stays a property of the precedent (``outside``), never a node.
CLEAR_PRECEDENTS = "MATCH (p:Precedent {corpus: $corpus}) DETACH DELETE p"
UPSERT_PRECEDENTS = """
UNWIND $rows AS row
MERGE (p:Precedent {uid: row.uid})
SET p = row
RETURN count(*) AS written
"""
UPSERT_CITES = """
UNWIND $rows AS row
MATCH (p:Precedent {uid: row.source})
MATCH (s:Section {uid: row.target})
MERGE (p)-[c:CITES]->(s)
SET c.written = row.written, c.via = row.via
RETURN count(*) AS written
"""


# Requirement records: (:Section)-[:STATES]->(:Requirement)-[:WHEN]->(:Condition) and
# -[:EXCEPT]->(:Exception),
# replaced as a whole per corpus (they are rebuilt with the navigator graph).
CLEAR_REQUIREMENTS = """
MATCH (r:Requirement {corpus: $corpus})
OPTIONAL MATCH (r)-[:WHEN|EXCEPT]->(x)
DETACH DELETE r, x
"""
UPSERT_REQUIREMENTS = """
UNWIND $rows AS row
MATCH (s:Section {uid: row.section})
MERGE (r:Requirement {uid: row.uid})
SET r.corpus = row.corpus, r.provision_id = row.provision_id, r.sentence = row.sentence, r.text = row.text,
    r.force = row.force, r.who = row.who
MERGE (s)-[:STATES]->(r)
WITH r, row
UNWIND row.conditions AS c
CREATE (r)-[:WHEN]->(:Condition {corpus: row.corpus, text: c.text, comparator: c.comparator, value: c.value,
                                 unit: c.unit, measure: c.measure})
RETURN count(*) AS written
"""
UPSERT_EXCEPTIONS = """
UNWIND $rows AS row
MATCH (r:Requirement {uid: row.uid})
UNWIND row.exceptions AS e
CREATE (r)-[:EXCEPT]->(:Exception {corpus: row.corpus, cue: e.cue, kind: e.kind, text: e.text})
RETURN count(*) AS written
"""
