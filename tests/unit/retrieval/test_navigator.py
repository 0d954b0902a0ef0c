"""`traverse`: what the navigator graph joins to a seed, in its documented order, on a hand-made graph."""

from __future__ import annotations

from bifrost.core.answer_types import Via
from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.retrieval.navigator import NavigatorIndex, Step, traverse

K = ProvisionKind


def nav() -> NavigatorIndex:
    """Section 1 with paragraphs (a)..(e), (c) has children (c)(1), (c)(2); section 2 with (a), (b).
    1(c) cites 2(b) and 2(a); 2(a) cites 2(b) and 1(a); 1(e) cites 1(c)."""
    rows = [("P", None, K.PART), ("1", "P", K.SECTION), ("2", "P", K.SECTION)]
    rows += [(f"1({x})", "1", K.PARAGRAPH) for x in "abcde"] + [
        ("1(c)(1)", "1(c)", K.PARAGRAPH),
        ("1(c)(2)", "1(c)", K.PARAGRAPH),
    ]
    rows += [("2(a)", "2", K.PARAGRAPH), ("2(b)", "2", K.PARAGRAPH)]
    ps = [Provision(corpus="c", id=i, parent_id=p, kind=k, order=n) for n, (i, p, k) in enumerate(rows)]
    cites = [("1(c)", "2(b)"), ("1(c)", "2(a)"), ("2(a)", "2(b)"), ("2(a)", "1(a)"), ("1(e)", "1(c)")]
    return NavigatorIndex.build(
        ps, [Reference(corpus="c", source_id=s, target_id=t, raw=t) for s, t in cites]
    )


def reached(steps) -> list[tuple[str, Via, int]]:
    return [(s.id, s.via, s.hops) for s in steps]


def test_default_one_hop_then_parent_then_children():
    assert reached(traverse(nav(), "1(c)")) == [
        ("2(a)", Via.REFERS_TO, 1),
        ("2(b)", Via.REFERS_TO, 1),  # targets in id order
        ("1", Via.PARENT, 1),
        ("1(c)(1)", Via.CHILD, 1),
        ("1(c)(2)", Via.CHILD, 1),  # document order
    ]


def test_cross_references_are_followed_breadth_first_each_once_at_its_first_shortest_path():
    steps = [s for s in traverse(nav(), "1(c)", depth=3, parents=False, children=False)]
    # 2(b) again from 2(a) is not repeated; the seed is never reached
    assert steps == [
        Step("2(a)", Via.REFERS_TO, 1, ("1(c)", "2(a)"), "cross-reference from 1(c)"),
        Step("2(b)", Via.REFERS_TO, 1, ("1(c)", "2(b)"), "cross-reference from 1(c)"),
        Step("1(a)", Via.REFERS_TO, 2, ("1(c)", "2(a)", "1(a)"), "cross-reference from 2(a)"),
    ]


def test_depth_zero_follows_no_cross_reference():
    assert all(s.via is not Via.REFERS_TO for s in traverse(nav(), "1(c)", depth=0))


def test_referrers_come_after_the_references_made():
    steps = reached(traverse(nav(), "1(c)", referrers=True, parents=False, children=False))
    assert steps == [("2(a)", Via.REFERS_TO, 1), ("2(b)", Via.REFERS_TO, 1), ("1(e)", Via.REFERS_TO, 1)]
    assert list(traverse(nav(), "1(c)", referrers=True))[2].why == "cross-reference to 1(c)"


def test_siblings_are_the_nearest_around_the_seed_in_document_order():
    around = [s.id for s in traverse(nav(), "1(c)", depth=0, parents=False, children=False, siblings=2)]
    assert around == ["1(b)", "1(d)"]
    wider = [s.id for s in traverse(nav(), "1(a)", depth=0, parents=False, children=False, siblings=4)]
    assert wider == ["1(b)", "1(c)"]  # nothing before the first child


def test_max_children_keeps_the_first_ones():
    assert [s.id for s in traverse(nav(), "1", depth=0, max_children=2)] == ["P", "1(a)", "1(b)"]
    assert [s.id for s in traverse(nav(), "1", depth=0, max_children=0)] == ["P"]


def test_containers_are_not_skipped_the_caller_decides():
    parent = next(traverse(nav(), "1", depth=0, children=False))
    assert parent == Step("P", Via.PARENT, 1, ("1", "P"), "parent of 1") and nav().is_container("P")


def test_a_seed_with_no_parent_has_no_siblings():
    assert [s.via for s in traverse(nav(), "P", siblings=6)] == [Via.CHILD, Via.CHILD]
