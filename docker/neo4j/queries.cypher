// Bifrost: saved analyst queries for Neo4j Browser.
//
// Each query starts with a header line "// ==== <key>: <title>", then comment lines that
// explain it and give its parameters as ":param" lines with their defaults. In Browser, run
// the ":param" lines first (drop the leading "// "), then the query; or star the query to
// keep it in Favorites. tests/integration/test_neo4j_saved_queries.py runs every query here
// with these defaults. Provisions are addressed by corpus + official citation (see
// CONVENTIONS.md); the graph schema is in bifrost/core/graph/neo4j_queries.py.

// ==== cross_reference_neighbourhood: Cross-reference neighbourhood of a provision
// Every provision that $id refers to, or that refers to it, up to two REFERS_TO hops, with
// the parent of $id for orientation.
// :param corpus => 'osha-1926'
// :param id => '1926.502(k)'
MATCH (p:Section {corpus: $corpus, id: $id})
MATCH path = (p)-[:REFERS_TO*1..2]-(:Section)
OPTIONAL MATCH up = (:Section)-[:HAS]->(p)
RETURN path, up
LIMIT 300;

// ==== provisions_sharing_an_entity: Provisions sharing an entity with a provision
// Provisions that mention the same entities as $id, most shared first. Entities named in more
// than $max_mentions provisions (employee, employer, ...) say little and are left out; this also
// keeps the query small on a whole rulebook.
// :param corpus => 'osha-1926'
// :param id => '1926.502(k)'
// :param max_mentions => 50
MATCH (a:Section {corpus: $corpus, id: $id})<-[:MENTIONED_IN]-(e:Entity)
WHERE COUNT { (e)-[:MENTIONED_IN]->(:Section) } <= $max_mentions
MATCH (e)-[:MENTIONED_IN]->(b:Section)
WHERE b <> a
RETURN b.id AS provision, count(DISTINCT e) AS shared, collect(DISTINCT e.name)[..10] AS entities
ORDER BY shared DESC, provision
LIMIT 50;

// ==== most_referenced_provisions: Most-referenced provisions
// Provisions with the most incoming cross-references, and how many distinct provisions cite them.
// :param corpus => 'osha-1926'
MATCH (s:Section {corpus: $corpus})<-[r:REFERS_TO]-(src:Section)
RETURN s.id AS provision, s.heading AS heading, count(r) AS references, count(DISTINCT src) AS citing_provisions
ORDER BY references DESC, provision
LIMIT 25;

// ==== paths_between_two_provisions: Paths between two provisions
// The shortest connections between $source and $target through the hierarchy (HAS) and
// cross-references (REFERS_TO), in either direction.
// :param corpus => 'osha-1926'
// :param source => '1926.501(b)(2)(i)'
// :param target => '1926.502(k)(1)'
MATCH (a:Section {corpus: $corpus, id: $source}), (b:Section {corpus: $corpus, id: $target})
MATCH path = allShortestPaths((a)-[:HAS|REFERS_TO*..10]-(b))
RETURN path, length(path) AS hops
LIMIT 10;

// ==== precedents_citing_a_provision: Answered questions that cite a provision or its parts
// Precedents (letters of interpretation, FAQs, reviewed answers; `bifrost precedents import`) that cite
// $id or a provision below it, newest first, with what each cites as written.
// :param corpus => 'osha-1926'
// :param id => '1926.502'
MATCH (s:Section {corpus: $corpus, id: $id})
MATCH (s)-[:HAS*0..6]->(t:Section)<-[c:CITES]-(p:Precedent)
RETURN p.id AS precedent, p.date AS date, p.title AS title, collect(DISTINCT t.id) AS cites, p.url AS url
ORDER BY date DESC, precedent
LIMIT 50;

// ==== most_interpreted_provisions: Provisions the regulator was asked about most
// Provisions cited by the most precedents, with the newest question about each.
// :param corpus => 'osha-1926'
MATCH (p:Precedent {corpus: $corpus})-[:CITES]->(s:Section)
WITH s, p ORDER BY p.date DESC
RETURN s.id AS provision, s.heading AS heading, count(p) AS precedents, collect(p.title)[0] AS newest
ORDER BY precedents DESC, provision
LIMIT 25;
