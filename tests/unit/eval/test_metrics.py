"""Oracle tests of every metric on tiny hand-computed cases."""

from __future__ import annotations

import math

import pytest

from bifrost.graph_builders.jurisdictions.hierarchy import ParentMap
from bifrost.graph_builders.jurisdictions.us_cfr.hierarchy import cfr_related, cfr_section_of
from bifrost.eval.metrics import (
    answerability_auroc,
    hierarchy_prf,
    ranking_metrics,
    refusal_rates,
    section_prf,
    set_prf,
)
from bifrost.core.types import Provision, ProvisionKind

RANKED = ["x", "a", "y", "b", "z"]
GOLD = ["a", "b", "c"]


def test_set_prf_matches_paper_equations():
    r = set_prf(["a", "b", "x", "y"], ["a", "b", "c"])  # 2 of 4 cited right, 2 of 3 gold found
    assert (r.precision, r.recall) == (0.5, pytest.approx(2 / 3))
    assert r.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))


def test_set_prf_empty_cited_scores_zero_and_empty_gold_is_rejected():
    assert set_prf([], ["a"]).f1 == 0.0
    with pytest.raises(ValueError):
        set_prf(["a"], [])


def test_hierarchy_credit_counts_ancestors_and_descendants_separately_from_exact():
    gold = ["1926.451(g)(1)", "1926.552(c)(7)"]
    cited = ["1926.451(g)", "1926.451(g)(1)(i)", "1926.1053(b)"]
    assert set_prf(cited, gold).f1 == 0.0
    h = hierarchy_prf(cited, gold, cfr_related)
    assert h.precision == pytest.approx(2 / 3)  # ancestor and descendant of 451(g)(1) count
    assert h.recall == pytest.approx(1 / 2)  # 552(c)(7) not covered


def test_cfr_related_is_strict_and_tolerates_unparsable_ids():
    assert cfr_related("1926.451", "1926.451(b)(2)")
    assert cfr_related("1926.451(b)(2)", "1926.451")
    assert not cfr_related("1926.451", "1926.451")
    assert not cfr_related("1926.451(b)", "1926.451(c)(1)")
    assert not cfr_related("not a citation", "1926.451")


def test_section_level_maps_paragraphs_to_sections():
    assert cfr_section_of("1926.451(b)(2)") == "1926.451"
    assert cfr_section_of("1926.500(b)[Leading edge]") == "1926.500"
    r = section_prf(["1926.451(c)", "1926.452(a)"], ["1926.451(b)(2)"], cfr_section_of)
    assert (r.precision, r.recall) == (0.5, 1.0)


def test_parent_map_hierarchy_for_non_cfr_corpora():
    ps = [
        Provision(corpus="x", id=i, parent_id=p, kind=k)
        for i, p, k in [
            ("root", None, ProvisionKind.PART),
            ("s1", "root", ProvisionKind.SECTION),
            ("p1", "s1", ProvisionKind.PARAGRAPH),
            ("p2", "p1", ProvisionKind.PARAGRAPH),
        ]
    ]
    pm = ParentMap.from_provisions(ps)
    assert pm.related("s1", "p2") and pm.related("p2", "p1") and not pm.related("p1", "p1")
    assert pm.section_of("p2") == "s1"


def test_ranking_metrics_by_hand():
    # relevant at ranks 2 and 4 of 3 gold
    m = ranking_metrics({"q": RANKED, "none": ["x"]}, {"q": GOLD, "none": GOLD}, [1, 2, 5])
    q = m["q"]
    assert q["recall@1"] == 0.0 and q["recall@5"] == pytest.approx(2 / 3)
    assert q["hit@1"] == 0.0 and q["hit@2"] == 1.0
    assert q["map@10"] == pytest.approx((1 / 2 + 2 / 4) / 3)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert q["ndcg@10"] == pytest.approx(dcg / idcg)
    assert q["mrr"] == 0.5 and m["none"]["mrr"] == 0.0


def test_repeated_ids_are_dropped_before_the_cut():
    m = ranking_metrics({"a": ["a", "a", "b"], "b": ["x", "x", "a"]}, {"a": ["a", "b"], "b": ["a"]}, [2])
    assert m["a"]["recall@2"] == 1.0 and m["b"]["mrr"] == 0.5


def test_a_question_with_no_ranked_ids_scores_zero_and_empty_gold_is_left_out():
    m = ranking_metrics({"q": []}, {"q": ["a"], "u": []}, [10])
    assert m["q"]["recall@10"] == 0.0 and "u" not in m


def test_answerability_auroc_is_the_one_auroc_of_stats_and_needs_no_sklearn(monkeypatch):
    import sys

    from bifrost.eval.stats import auroc

    labels, scores = [True, False, True, False, True], [0.9, 0.5, 0.5, 0.2, 0.4]
    monkeypatch.setitem(sys.modules, "sklearn", None)  # sklearn not installed: import fails
    monkeypatch.setitem(sys.modules, "sklearn.metrics", None)
    assert answerability_auroc(labels, scores) == auroc(labels, scores) == pytest.approx(4.5 / 6)


def test_answerability_auroc_and_refusals():
    assert answerability_auroc([True, True, False, False], [0.9, 0.8, 0.1, 0.85]) == pytest.approx(0.75)
    assert math.isnan(answerability_auroc([True, True], [0.1, 0.2]))
    r = refusal_rates([True, False, False, True], [False, True, False, True])
    assert r == {"refusal_rate_unanswerable": 0.5, "false_refusal_rate": 0.5}


def test_the_lead_counts_when_the_first_listed_lies_in_a_gold_provisions_section():
    from bifrost.eval.metrics import lead_in_gold_section

    section = lambda pid: pid.split("(")[0]  # noqa: E731
    assert lead_in_gold_section(["1926.451(g)(2)", "1926.451(g)(1)"], ["1926.451(g)(1)"], section)
    assert not lead_in_gold_section(["1926.501(b)(1)", "1926.451(g)(1)"], ["1926.451(g)(1)"], section)
    assert not lead_in_gold_section([], ["1926.451(g)(1)"], section)


def test_the_rulebooks_answer_scores_its_lead_by_rulebook_and_section():
    from bifrost.eval.corpora_answers import score

    rows = [
        (["rk:1904.7(b)(5)", "osha-1926:1926.50(c)"], ["rk:1904.7(a)"]),
        (["osha-1926:1904.7(a)"], ["rk:1904.7(a)"]),  # the same id in another rulebook is not its section
    ]
    got = score(rows, lambda corpus, pid: pid.split("(")[0])
    assert got["lead_corpus"] == 0.5 and got["lead_section"] == 0.5
