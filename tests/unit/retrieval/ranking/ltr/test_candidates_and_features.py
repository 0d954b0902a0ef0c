"""Candidate pools and features of the learned ranker, on a hand-made navigator graph."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.core.answer_types import Via
from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.graph_builders.requirements.question_figures import read_figures
from bifrost.graph_builders.requirements.read import read_sentence
from bifrost.retrieval.channels.base import Evidence
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.ranking.ltr.candidates import PoolSizes, build_pool, ranks
from bifrost.retrieval.channels.entities import EntityEvidence
from bifrost.retrieval.ranking.ltr.features import FEATURE_GROUPS, FEATURES, columns_without, featurize
from bifrost.retrieval.ranking.ltr.retriever import cut_cited
from bifrost.retrieval.navigator import NavigatorIndex

K = ProvisionKind


def corpus() -> NavigatorIndex:
    """part > subpart > section 1 (a, b, c) and section 2 (a); 1(a) cites 2(a)."""
    rows = [
        ("P", None, K.PART),
        ("S", "P", K.SUBPART),
        ("1", "S", K.SECTION),
        ("1(a)", "1", K.PARAGRAPH),
        ("1(b)", "1", K.PARAGRAPH),
        ("1(c)", "1", K.PARAGRAPH),
        ("2", "S", K.SECTION),
        ("2(a)", "2", K.PARAGRAPH),
    ]
    ps = [
        Provision(corpus="c", id=i, parent_id=p, kind=k, text=f"text of {i}" if k is K.PARAGRAPH else "")
        for i, p, k in rows
    ]
    refs = [Reference(corpus="c", source_id="1(a)", raw="section 2(a)", target_id="2(a)", extractor="t")]
    return NavigatorIndex.build(ps, refs)


IDS = ["1", "1(a)", "1(b)", "1(c)", "2", "2(a)"]  # documents, in index order (containers are not documents)


def evidence(bm25: list[float], dense: list[float], entities: dict | None = None) -> Evidence:
    return Evidence(
        "q",
        np.array(bm25, dtype=np.float32),
        np.array(dense, dtype=np.float32),
        entities=entities or {},
        decomposition=Decomposition(),
    )


def test_ranks_are_one_based_best_first():
    assert ranks(np.array([0.1, 0.9, 0.5])).tolist() == [3, 1, 2]


def test_navigator_index_knows_sections_references_and_containers():
    nav = corpus()
    assert nav.section["1(b)"] == "1" and nav.section["2"] == "2"
    assert nav.refs_out["1(a)"] == {"2(a)"} and nav.refs_in["2(a)"] == {"1(a)"}
    assert nav.is_container("S") and nav.is_container("unknown") and not nav.is_container("1(a)")
    assert nav.neighbours("1(a)") == {"1", "2(a)"}


def test_a_pool_keeps_each_channel_and_adds_navigator_neighbours_of_the_seeds():
    nav = corpus()
    ev = evidence(
        [5, 9, 0, 0, 0, 0],
        [0.1, 0.2, 0.1, 0.1, 0.1, 0.1],
        {"1(c)": EntityEvidence(score=1.0, matches=1, max_specificity=0.9, best_cosine=0.95, why="entity")},
    )
    pool = build_pool(
        ev, IDS, nav, PoolSizes(lexical=1, dense=1, entity=1, triple=0, seeds=1, children=0, siblings=0)
    )
    assert pool.seeds == ["1(a)"]  # best in BM25 and dense
    assert Via.LEXICAL in pool.via["1(a)"] and Via.ENTITY in pool.via["1(c)"]
    assert pool.via["2(a)"] == [Via.REFERS_TO] and pool.path["2(a)"] == ("1(a)", "2(a)")
    assert Via.PARENT in pool.via["1"] and "S" not in pool.via  # a container is never a candidate


def test_features_have_one_column_per_name_and_graph_evidence_points_at_the_seeds():
    nav = corpus()
    ev = evidence([5, 9, 0, 0, 0, 0], [0.1, 0.2, 0.1, 0.1, 0.1, 0.3])
    pool = build_pool(ev, IDS, nav, PoolSizes(lexical=2, dense=1, entity=0, triple=0, seeds=1))
    rows = featurize(ev, pool, nav, {pid: i for i, pid in enumerate(IDS)})
    assert rows.shape == (len(pool.ids), len(FEATURES)) and np.isfinite(rows).all()
    col = {f: i for i, f in enumerate(FEATURES)}
    row = {pid: rows[i] for i, pid in enumerate(pool.ids)}
    assert row["2(a)"][col["cited_by_seeds"]] == 1 and row["1(a)"][col["cited_by_seeds"]] == 0
    assert row["1"][col["parent_of_seed"]] == 1 and row["1(a)"][col["bm25_norm"]] == pytest.approx(1.0)
    assert row["1(b)"][col["seeds_in_section"]] == 1  # shares section 1 with the seed 1(a)


def test_ablation_columns_drop_exactly_one_group():
    kept = columns_without({"dng"})
    assert len(kept) == len(FEATURES) - len(FEATURE_GROUPS["dng"])
    assert all(FEATURES[i] not in FEATURE_GROUPS["dng"] for i in kept)
    with pytest.raises(ValueError, match="unknown feature group"):
        columns_without({"graphs"})


@pytest.mark.parametrize(
    ("scores", "delta", "most", "n"),
    [([3.0, 2.9, 1.0], 0.5, 6, 2), ([3.0, 2.9, 1.0], 5.0, 2, 2), ([3.0, 0.0], 0.1, 6, 1), ([], 1.0, 6, 0)],
)
def test_the_cited_set_is_cut_by_distance_from_the_top_score(scores, delta, most, n):
    assert cut_cited(np.array(scores), delta, most) == n


def test_a_named_section_brings_itself_and_its_best_fitting_parts():
    from bifrost.core.precedent_types import ResolvedCite

    nav = corpus()
    ev = evidence([0, 0, 0, 4, 0, 0], [0.1, 0.1, 0.1, 0.3, 0.1, 0.1])
    ev.named = [ResolvedCite(written="section 1", target_id="1")]
    pool = build_pool(ev, IDS, nav, PoolSizes(lexical=0, dense=0, entity=0, triple=0, seeds=0, named_below=1))
    assert pool.ids == ["1", "1(c)"] and pool.via["1(c)"] == [Via.NAMED]
    rows = featurize(ev, pool, nav, {pid: i for i, pid in enumerate(IDS)})
    col = {f: FEATURES.index(f) for f in ("named_exact", "named_within", "named_any")}
    assert (
        rows[0, col["named_exact"]] == 1
        and rows[1, col["named_within"]] == 1
        and rows[1, col["named_any"]] == 1
    )


def test_a_precedent_vote_for_a_section_reaches_its_paragraphs():
    from bifrost.core.precedent_types import Precedent, ResolvedCite
    from bifrost.retrieval.channels.precedents import PrecedentVotes, Similar

    nav = corpus()
    ev = evidence([0, 0, 3, 0, 0, 0], [0.1, 0.1, 0.4, 0.1, 0.1, 0.1])
    prec = Precedent(corpus="c", id="p", title="t", cites=(ResolvedCite(written="1", target_id="1"),))
    ev.votes = PrecedentVotes(similar=[Similar(prec, 0.8, 1.0, 1)], direct={"1": 0.8}, cited_ids={"1": 1})
    pool = build_pool(
        ev, IDS, nav, PoolSizes(lexical=0, dense=0, entity=0, triple=0, seeds=0, precedent_below=1)
    )
    assert pool.ids == ["1", "1(b)"] and Via.PRECEDENT in pool.via["1(b)"]
    rows = featurize(ev, pool, nav, {pid: i for i, pid in enumerate(IDS)})
    direct, inherited, best = (FEATURES.index(f) for f in ("prec_direct", "prec_inherited", "prec_best"))
    assert (
        rows[0, direct] == np.float32(0.8) and rows[1, inherited] == np.float32(0.8) and rows[1, direct] == 0
    )
    assert rows[0, best] == rows[1, best] == np.float32(0.8)


def test_applicability_features_count_the_thresholds_a_question_figure_meets_or_fails():
    rule = "Each employee on a walking/working surface 6 feet or more above a lower level shall be protected."
    other = "Each employee in an excavation 5 feet or more in depth shall be protected from cave-ins."
    records = [read_sentence("c", "1(a)", 0, rule), read_sentence("c", "1(b)", 0, other)]
    plain = corpus()
    nav = NavigatorIndex.build(
        [Provision(corpus="c", id=i, parent_id=plain.parent[i], kind=plain.kind[i]) for i in plain.parent],
        [],
        [r for r in records if r is not None],
    )
    col = {f: i for i, f in enumerate(FEATURES)}

    def app(question: str) -> dict[str, list[float]]:
        ev = evidence([5, 9, 1, 1, 0, 0], [0.1, 0.2, 0.1, 0.1, 0.1, 0.3])
        ev.figures = read_figures(question)
        pool = build_pool(ev, IDS, nav, PoolSizes(lexical=6, dense=1, entity=0, triple=0, seeds=1))
        rows = featurize(ev, pool, nav, {pid: i for i, pid in enumerate(IDS)})
        names = FEATURE_GROUPS["applicability"]
        return {pid: [float(rows[i][col[n]]) for n in names] for i, pid in enumerate(pool.ids)}

    high = app("Is fall protection needed when working 12 ft above the ground?")
    assert high["1(a)"] == [1.0, 0.0, 1.0]  # its threshold is of the kind asked, and met
    assert high["1(b)"] == [0.0, 0.0, 0.0]  # a depth is never checked against a height
    assert app("Is fall protection needed when working 4 feet above the ground?")["1(a)"] == [0.0, 1.0, 1.0]
    assert app("Is fall protection needed on a roof?")["1(a)"] == [0.0, 0.0, 0.0]  # no figure given
