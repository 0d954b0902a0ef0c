"""Which retrieved provisions an answer cites (`select_cited`: a share of the best score, at most
``most``; `cited_items`: the ranker's own set when it chose one), and `[id]` marks and citation
records (hand-computed cases)."""

from __future__ import annotations

import pytest

from bifrost.core.answer_types import RetrievedItem
from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer.citations import citations_for, cited_items, find_marks, select_cited


def ranked(*scores: float) -> list[RetrievedItem]:
    return [RetrievedItem(corpus="c", id=f"p{i}", score=s) for i, s in enumerate(scores, start=1)]


def ids(items: list[RetrievedItem]) -> list[str]:
    return [it.id for it in items]


def test_select_cited_keeps_items_scoring_at_least_the_ratio_of_the_best():
    items = ranked(1.0, 0.8, 0.5, 0.49, 0.1)
    assert ids(select_cited(items, 0.5, 10)) == ["p1", "p2", "p3"]  # 0.5 is exactly half of the best: kept


def test_a_score_on_the_cut_after_six_decimal_rounding_is_kept_whatever_the_float_noise():
    # a parent scored DECAY x its child (6.4594665...) rounds to 3.229733 or 3.229734 by the last bit
    for parent in (3.229733, 3.229734):
        assert ids(select_cited(ranked(6.459467, parent), 0.5, 10)) == ["p1", "p2"]
    assert ids(select_cited(ranked(6.459467, 3.229731), 0.5, 10)) == ["p1"]  # two units below: not at the cut


def test_select_cited_stops_at_the_cap():
    items = ranked(1.0, 0.99, 0.98, 0.97)
    assert ids(select_cited(items, 0.5, 2)) == ["p1", "p2"]


@pytest.mark.parametrize(("ratio", "expected"), [(0.0, ["p1", "p2", "p3"]), (1.0, ["p1"])])
def test_select_cited_ratio_zero_keeps_all_and_one_keeps_the_best_only(ratio, expected):
    assert ids(select_cited(ranked(2.0, 1.0, 0.5), ratio, 10)) == expected


def test_select_cited_of_nothing_is_nothing():
    assert select_cited([], 0.5, 6) == []


def test_the_best_is_the_first_item_not_the_highest_score():
    # a reading-order ranking may put a lower score first: the cut is relative to the first item
    assert ids(select_cited(ranked(0.4, 1.0, 0.1), 0.5, 10)) == ["p1", "p2"]


def test_cited_items_uses_the_rankers_own_set_when_it_chose_one():
    items = ranked(1.0, 0.9, 0.8, 0.7)
    chosen = items[2:]  # the ranker's answer-sized set, not a prefix the ratio would give
    assert ids(cited_items(items, chosen, 0.5, 6)) == ["p3", "p4"]


def test_cited_items_caps_the_rankers_set_too():
    items = ranked(1.0, 0.9, 0.8, 0.7)
    assert ids(cited_items(items, items, 0.5, 2)) == ["p1", "p2"]


def test_cited_items_falls_back_to_the_ratio_cut_without_a_rankers_set():
    items = ranked(1.0, 0.6, 0.4)
    assert ids(cited_items(items, None, 0.5, 6)) == ["p1", "p2"]


def test_an_empty_rankers_set_cites_nothing():
    assert cited_items(ranked(1.0, 0.9), [], 0.5, 6) == []


def test_find_marks_reads_ids_in_order():
    assert find_marks("Guardrails [1926.502(b)] and nets [ 1926.502(c) ].") == ["1926.502(b)", "1926.502(c)"]


def test_citations_for_resolves_ids_once_each_in_order_and_skips_unknown_ones():
    known = {
        pid: Provision(corpus="c", id=pid, kind=ProvisionKind.SECTION, heading=pid, text="t", order=n)
        for n, pid in enumerate(("b", "a"))
    }
    cites = citations_for(["b", "x", "a", "b"], known.get)
    assert [c.id for c in cites] == ["b", "a"]
