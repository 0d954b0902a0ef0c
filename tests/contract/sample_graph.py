"""A small CFR-like graph (Subpart M, sections 1926.501-502) with a REFERS_TO cycle, for store tests."""

from __future__ import annotations

from bifrost.core.types import Edge, EdgeType, Provision, ProvisionKind, make_uid

C = "contract-test"


def prov(pid: str, parent: str | None, kind: ProvisionKind, order: int, text: str = "") -> Provision:
    return Provision(
        corpus=C,
        id=pid,
        parent_id=parent,
        kind=kind,
        text=text or f"text of {pid}",
        order=order,
        heading=f"heading {pid}",
        level=order,
        url=f"https://example.test/{pid}",
        pages=(1, 2),
    )


def u(pid: str) -> str:
    return make_uid(C, pid)


TREE = [
    prov("1926", None, ProvisionKind.PART, 0),
    prov("1926 Subpart M", "1926", ProvisionKind.SUBPART, 1),
    prov("1926.501", "1926 Subpart M", ProvisionKind.SECTION, 2),
    prov("1926.501(b)", "1926.501", ProvisionKind.PARAGRAPH, 3),
    prov("1926.501(b)(2)", "1926.501(b)", ProvisionKind.PARAGRAPH, 4),
    prov("1926.501(b)(2)(i)", "1926.501(b)(2)", ProvisionKind.PARAGRAPH, 5),
    prov("1926.501(b)(2)(ii)", "1926.501(b)(2)", ProvisionKind.PARAGRAPH, 6),
    prov("1926.501(b)(12)", "1926.501(b)", ProvisionKind.PARAGRAPH, 7),
    prov("1926.502", "1926 Subpart M", ProvisionKind.SECTION, 8),
    prov("1926.502(k)", "1926.502", ProvisionKind.PARAGRAPH, 9),
    prov("1926.502(k)(1)", "1926.502(k)", ProvisionKind.PARAGRAPH, 10),
]
HAS = [Edge(type=EdgeType.HAS, source=u(p.parent_id), target=p.uid) for p in TREE if p.parent_id]
REFS = [
    Edge(
        type=EdgeType.REFERS_TO,
        source=u("1926.501(b)(2)(i)"),
        target=u("1926.502(k)"),
        text="paragraph (k) of § 1926.502",
    ),
    Edge(
        type=EdgeType.REFERS_TO,
        source=u("1926.502(k)"),
        target=u("1926.501(b)(12)"),
        text="§ 1926.501(b)(12)",
    ),
    Edge(type=EdgeType.REFERS_TO, source=u("1926.501(b)(12)"), target=u("1926.502(k)(1)"), text="x"),
    Edge(type=EdgeType.REFERS_TO, source=u("1926.502(k)(1)"), target=u("1926.501(b)(2)(i)"), text="cycle"),
]
