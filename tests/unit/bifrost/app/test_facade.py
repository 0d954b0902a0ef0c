"""The Bifrost facade on a tiny corpus: ask, refuse, entity view, subpart filter."""

from __future__ import annotations

import pytest

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.app.facade import Bifrost
from bifrost.core.provisions import within_subparts
from bifrost.core.settings import Settings
from bifrost.core.answer_types import AnswerMode
from bifrost.core.types import Provision, ProvisionKind
from tests.unit.mini_corpus import MINI, build_corpus


@pytest.fixture(scope="module")
def bf(tmp_path_factory):
    b = Bifrost(Settings(home=tmp_path_factory.mktemp("facade")))
    build_corpus(b, "mini", MINI)
    yield b
    b.close()


def test_ask_cites_only_retrieved_provisions_with_their_text(bf):
    answer = bf.ask("Who must prepare the fall protection plan?", "mini")
    assert answer.mode is AnswerMode.EXTRACTIVE and not answer.refused
    retrieved = {it.id for it in answer.retrieved}
    assert answer.citations and {c.id for c in answer.citations} <= retrieved
    assert all(c.text or c.heading for c in answer.citations)
    assert set(answer.unused) == retrieved - {c.id for c in answer.citations}


def test_an_off_topic_question_is_refused_with_nothing_cited(bf):
    answer = bf.ask("Who painted the Mona Lisa?", "mini")
    assert answer.refused and answer.citations == [] and answer.statements == []


def test_an_empty_question_and_an_unknown_corpus_are_errors(bf):
    with pytest.raises(BifrostError):
        bf.ask("   ", "mini")
    with pytest.raises(NotFoundError):
        bf.ask("fall protection", "nope")


def test_entity_view_finds_the_closest_entity_when_the_name_is_not_exact(bf):
    view = bf.entity_view("mini", "guardrail systems")
    assert view.name == "guardrail system" and view.provisions


def test_within_subparts_keeps_only_provisions_under_them():
    ps = [
        Provision(corpus="c", id="1926 Subpart M", kind=ProvisionKind.SUBPART),
        Provision(corpus="c", id="1926.500", parent_id="1926 Subpart M", kind=ProvisionKind.SECTION),
        Provision(corpus="c", id="1926.500(a)", parent_id="1926.500", kind=ProvisionKind.PARAGRAPH),
        Provision(corpus="c", id="1926 Subpart P", kind=ProvisionKind.SUBPART),
        Provision(corpus="c", id="1926.650", parent_id="1926 Subpart P", kind=ProvisionKind.SECTION),
    ]
    assert [p.id for p in within_subparts(ps, ["M"])] == ["1926 Subpart M", "1926.500", "1926.500(a)"]
    assert [p.id for p in within_subparts(ps, ["1926 Subpart P"])] == ["1926 Subpart P", "1926.650"]


def test_provisions_page_walks_the_corpus_in_document_order(bf):
    everything = [p.id for p in bf.sql.provisions("mini")]
    pages = [bf.provisions_page("mini", offset, 4) for offset in range(0, len(everything) + 4, 4)]
    assert [p.id for page in pages for p in page] == everything
    with pytest.raises(NotFoundError):
        bf.provisions_page("nope")


def test_search_returns_k_ranked_items_with_why(bf):
    items = bf.search("Who must prepare the fall protection plan?", "mini", k=3)
    assert len({it.id for it in items}) == 3
    assert all(it.why and it.via for it in items)


@pytest.mark.parametrize("k", [0, -1, 1001, 2.5])
def test_search_refuses_a_k_out_of_bounds_in_one_line(bf, k):
    with pytest.raises(BifrostError, match=f"k must be a whole number from 1 to 1000, got {k!r}"):
        bf.search("fall protection plan", "mini", k=k)


def test_neighbourhood_is_the_navigator_subgraph_of_a_provision(bf):
    g = bf.neighbourhood("mini", "1926.501(b)(2)(i)", depth=1)
    assert g.root == "1926.501(b)(2)(i)" and {"1926.501(b)(2)", "1926.502(b)"} <= {n.id for n in g.nodes}
    with pytest.raises(NotFoundError):
        bf.neighbourhood("mini", "1926.999(z)")


def test_search_ranks_a_provision_the_query_names_first(bf):
    items = bf.search("1926.502(b)(1) qualified person", "mini", k=3)
    assert items[0].id == "1926.502(b)(1)" and "named in the question" in items[0].why


def test_options_are_typed_keywords_and_bounds_are_one_line_errors(bf, tmp_path):
    with pytest.raises(TypeError):
        bf.train_ranker([tmp_path / "q.jsonl"], "mini", foldz=3)  # a misspelt option is refused, not ignored
    with pytest.raises(ValueError, match="k must be a whole number of at least 1, got 0"):
        bf.evaluate(tmp_path / "q.jsonl", "mini", k=0)


def test_the_answer_study_is_a_record_with_its_figures_and_report(bf):
    from bifrost.app.records import AnswerEvaluation
    from tests.conftest import FIXTURES

    study = bf.evaluate_answers(
        [FIXTURES / "mini" / "questions-mini.jsonl"], "mini", folds=2, command="eval answers"
    )
    assert isinstance(study, AnswerEvaluation) and study.corpus == "mini" and study.questions > 0
    assert (
        "all" in study.subsets and study.report.startswith("# Answers") and "`eval answers`" in study.report
    )
