"""A small hand-made Document Navigator Graph shaped like OSHA 1926 Subpart M, and a loader
that writes any graph (this one, or the full OSHA graph once the navigator builder exists)
into a GraphStore through its upsert methods.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bifrost.core.graph.base import GraphStore
from bifrost.core.precedent_types import Precedent, ResolvedCite
from bifrost.core.types import Edge, EdgeType, Entity, Provision, ProvisionKind, make_uid

CORPUS = "osha-1926"
URL = "https://www.ecfr.gov/current/title-29/section-{section}"

# (id, parent, kind, heading, text)
_ROWS: list[tuple[str, str | None, ProvisionKind, str, str]] = [
    ("1926", None, ProvisionKind.PART, "Safety and Health Regulations for Construction", ""),
    ("1926 Subpart M", "1926", ProvisionKind.SUBPART, "Fall Protection", ""),
    (
        "1926.500",
        "1926 Subpart M",
        ProvisionKind.SECTION,
        "Scope, application, and definitions applicable to this subpart.",
        "",
    ),
    ("1926.500(b)", "1926.500", ProvisionKind.PARAGRAPH, "Definitions.", "As used in this subpart:"),
    (
        "1926.500(b)[Leading edge]",
        "1926.500(b)",
        ProvisionKind.DEFINITION,
        "Leading edge",
        "Leading edge means the edge of a floor, roof, or formwork for a floor or other walking/working "
        "surface.",
    ),
    ("1926.501", "1926 Subpart M", ProvisionKind.SECTION, "Duty to have fall protection.", ""),
    ("1926.501(b)", "1926.501", ProvisionKind.PARAGRAPH, "", ""),
    (
        "1926.501(b)(1)",
        "1926.501(b)",
        ProvisionKind.PARAGRAPH,
        "Unprotected sides and edges.",
        "Each employee on a walking/working surface with an unprotected side or edge which is 6 feet or "
        "more above a "
        "lower level shall be protected from falling by the use of guardrail systems, safety net systems, "
        "or personal "
        "fall arrest systems.",
    ),
    ("1926.501(b)(2)", "1926.501(b)", ProvisionKind.PARAGRAPH, "Leading edges.", ""),
    (
        "1926.501(b)(2)(i)",
        "1926.501(b)(2)",
        ProvisionKind.PARAGRAPH,
        "",
        "Each employee who is constructing a leading edge 6 feet or more above lower levels shall be "
        "protected from "
        "falling by guardrail systems, safety net systems, or personal fall arrest systems. Exception: When "
        "the employer "
        "can demonstrate that it is infeasible, the employer shall develop and implement a fall protection "
        "plan which "
        "meets the requirements of paragraph (k) of § 1926.502.",
    ),
    (
        "1926.501(b)(2)(ii)",
        "1926.501(b)(2)",
        ProvisionKind.PARAGRAPH,
        "",
        "Each employee on a walking/working surface from which leading edges are under construction shall "
        "be protected "
        "from falling by a guardrail system, safety net system, or personal fall arrest system.",
    ),
    (
        "1926.501(b)(12)",
        "1926.501(b)",
        ProvisionKind.PARAGRAPH,
        "Precast concrete erection.",
        "Each employee engaged in the erection of precast concrete members shall be protected from falling; "
        "when the "
        "employer can demonstrate infeasibility, a fall protection plan which meets paragraph (k) of § "
        "1926.502 applies.",
    ),
    (
        "1926.501(b)(13)",
        "1926.501(b)",
        ProvisionKind.PARAGRAPH,
        "Residential construction.",
        "Each employee engaged in residential construction activities shall be protected; see paragraph (k) "
        "of § 1926.502.",
    ),
    (
        "1926.502",
        "1926 Subpart M",
        ProvisionKind.SECTION,
        "Fall protection systems criteria and practices.",
        "",
    ),
    (
        "1926.502(b)",
        "1926.502",
        ProvisionKind.PARAGRAPH,
        "Guardrail systems.",
        "Guardrail systems and their use shall comply with the following provisions.",
    ),
    (
        "1926.502(f)",
        "1926.502",
        ProvisionKind.PARAGRAPH,
        "Warning line systems.",
        "Warning line systems and their use shall comply with the following provisions.",
    ),
    (
        "1926.502(k)",
        "1926.502",
        ProvisionKind.PARAGRAPH,
        "Fall protection plan.",
        "This option is available only to employees engaged in leading edge work, precast concrete erection "
        "work, or "
        "residential construction work (See § 1926.501(b)(2), (b)(12), and (b)(13)) who can demonstrate "
        "that it is "
        "infeasible to use conventional fall protection equipment.",
    ),
    (
        "1926.502(k)(1)",
        "1926.502(k)",
        ProvisionKind.PARAGRAPH,
        "",
        "The fall protection plan shall be prepared by a qualified person and developed specifically for "
        "the site.",
    ),
    (
        "1926.502(k)(10)",
        "1926.502(k)",
        ProvisionKind.PARAGRAPH,
        "",
        "The fall protection plan must include a statement which provides the name of each employee "
        "designated to work "
        "in controlled access zones; see paragraph (g) of this section.",
    ),
    (
        "1926.502(g)",
        "1926.502",
        ProvisionKind.PARAGRAPH,
        "Controlled access zones.",
        "Controlled access zones and their use shall conform to the following provisions.",
    ),
    ("1926.503", "1926 Subpart M", ProvisionKind.SECTION, "Training requirements.", ""),
    (
        "1926.503(a)(1)",
        "1926.503",
        ProvisionKind.PARAGRAPH,
        "",
        "The employer shall provide a training program for each employee who might be exposed to fall "
        "hazards.",
    ),
]

# (source id, target id, raw text)
_REFS: list[tuple[str, str, str]] = [
    ("1926.501(b)(2)(i)", "1926.502(k)", "paragraph (k) of § 1926.502"),
    ("1926.501(b)(12)", "1926.502(k)", "paragraph (k) of § 1926.502"),
    ("1926.501(b)(13)", "1926.502(k)", "paragraph (k) of § 1926.502"),
    ("1926.502(k)", "1926.501(b)(2)", "§ 1926.501(b)(2)"),
    ("1926.502(k)", "1926.501(b)(12)", "(b)(12)"),
    ("1926.502(k)", "1926.501(b)(13)", "(b)(13)"),
    ("1926.502(k)(10)", "1926.502(g)", "paragraph (g) of this section"),
    ("1926.501(b)(1)", "1926.502(b)", "guardrail systems"),
]

# (name, label, provision ids)
_ENTITIES: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "fall protection plan",
        "document",
        ("1926.501(b)(2)(i)", "1926.501(b)(12)", "1926.502(k)", "1926.502(k)(1)", "1926.502(k)(10)"),
    ),
    (
        "guardrail system",
        "equipment",
        ("1926.501(b)(1)", "1926.501(b)(2)(i)", "1926.501(b)(2)(ii)", "1926.502(b)"),
    ),
    (
        "leading edge",
        "hazard",
        ("1926.500(b)[Leading edge]", "1926.501(b)(2)(i)", "1926.501(b)(2)(ii)", "1926.502(k)"),
    ),
    ("qualified person", "person", ("1926.502(k)(1)",)),
    ("controlled access zone", "area", ("1926.502(k)(10)", "1926.502(g)")),
]

# (head, relation, tail, provision ids)
_TRIPLES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("fall protection plan", "prepared_by", "qualified person", ("1926.502(k)(1)",)),
    ("fall protection plan", "designates", "controlled access zone", ("1926.502(k)(10)",)),
    ("guardrail system", "protects_from", "leading edge", ("1926.501(b)(2)(i)",)),
]


def osha_like_sample(corpus: str = CORPUS) -> tuple[list[Provision], list[Entity], list[Edge]]:
    """Provisions, entities and edges (HAS, REFERS_TO, MENTIONED_IN, RELATES) of the sample."""
    provisions = []
    for order, (pid, parent, kind, heading, text) in enumerate(_ROWS):
        section = pid.split("(")[0].split("[")[0]
        level = {"part": 0, "subpart": 1, "section": 2}.get(kind.value, 2 + pid.count("("))
        provisions.append(
            Provision(
                corpus=corpus,
                id=pid,
                parent_id=parent,
                kind=kind,
                heading=heading,
                text=text,
                level=level,
                order=order,
                url=URL.format(section=section) if "." in section else None,
                term=pid.split("[")[1][:-1] if kind is ProvisionKind.DEFINITION else None,
            )
        )
    entities = [Entity(corpus=corpus, name=n, label=lab, section_ids=ids) for n, lab, ids in _ENTITIES]
    uid = lambda pid: make_uid(corpus, pid)  # noqa: E731
    edges = [
        Edge(type=EdgeType.HAS, source=uid(p.parent_id), target=p.uid) for p in provisions if p.parent_id
    ]
    edges += [Edge(type=EdgeType.REFERS_TO, source=uid(s), target=uid(t), text=raw) for s, t, raw in _REFS]
    by_name = {e.name: e for e in entities}
    edges += [
        Edge(type=EdgeType.MENTIONED_IN, source=e.uid, target=uid(s)) for e in entities for s in e.section_ids
    ]
    edges += [
        Edge(type=EdgeType.RELATES, source=by_name[h].uid, target=by_name[t].uid, relation=r, section_ids=ids)
        for h, r, t, ids in _TRIPLES
    ]
    return provisions, entities, edges


def load_graph(
    store: GraphStore,
    provisions: Sequence[Provision],
    edges: Sequence[Edge],
    entities: Sequence[Entity] = (),
    clear: bool = True,
) -> None:
    """Write a whole graph into ``store``: sections, then entities, then edges (nodes first, as
    edges only join existing nodes). With ``clear``, the corpora involved are emptied first."""
    if clear:
        for corpus in sorted({p.corpus for p in provisions} | {e.corpus for e in entities}):
            store.clear(corpus)
    store.upsert_sections(provisions)
    store.upsert_entities(entities)
    store.upsert_edges(edges)


def sample_store(corpus: str) -> Iterator[GraphStore]:
    """A Neo4j store on the test server with the sample loaded under ``corpus``; cleared after."""
    from tests.integration.neo4j_env import neo4j_store

    store = neo4j_store()
    provisions, entities, edges = osha_like_sample(corpus)
    load_graph(store, provisions, edges, entities)
    store.write_precedents(corpus, sample_precedents(corpus))
    try:
        yield store
    finally:
        store.clear(corpus)
        store.close()


def sample_precedents(corpus: str) -> list[Precedent]:
    """Two answered questions citing the sample's fall protection plan, one also a standard outside it."""

    def cite(written: str, target: str | None) -> ResolvedCite:
        return ResolvedCite(
            written=written, target_id=target, reason=None if target else f"not in corpus: {written}"
        )

    return [
        Precedent(
            corpus=corpus,
            id="loi-plan",
            title="Who may prepare a fall protection plan",
            date="2004-05-06",
            url="https://example.org/loi-plan",
            issuer="OSHA",
            cites=(cite("1926.502(k)(1)", "1926.502(k)(1)"),),
        ),
        Precedent(
            corpus=corpus,
            id="loi-edge",
            title="Plans for leading edge work",
            date="1999-01-02",
            issuer="OSHA",
            cites=(
                cite("1926.502(k)", "1926.502(k)"),
                cite("1926.501(b)(2)(i)", "1926.501(b)(2)(i)"),
                cite("1910.28", None),
            ),
        ),
    ]
