"""The Bifrost facade on a tiny corpus: ask, refuse, entity view, subpart filter."""

from __future__ import annotations

import pytest

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.app.facade import Bifrost
from bifrost.core.provisions import within_subparts
from bifrost.core.settings import Settings
from bifrost.core.types import AnswerMode, Provision, ProvisionKind
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
    assert view["name"] == "guardrail system" and view["provisions"]


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
