"""On all of Part 1926: a question that names a provision, in any citing style, is answered from it first; one
that names a number the current edition lacks says so (or answers from its successor); OSHA's letters are
shown as interpretations beside the answer, never as the rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.eval.named_variants import cfr_variants

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bf(osha_home: Path, shared_dir: Path):
    app = Bifrost(Settings(home=osha_home, shared_dir=shared_dir))
    yield app
    app.close()


def test_sixty_named_provisions_in_every_style_are_cited_first(bf):
    ids = [p.id for p in bf.sql.provisions("osha-1926") if p.text.strip()]
    questions = cfr_variants(ids, 60, seed=0)
    assert len({q.extra["style"] for q in questions}) == 8
    firsts = {
        q.id: (a.citations[0].id if (a := bf.ask(q.question, "osha-1926")).citations else None)
        for q in questions
    }
    assert firsts == {q.id: q.gold[0] for q in questions}


def test_what_does_it_require_is_answered_from_the_named_paragraph_alone(bf):
    answer = bf.ask("What does 1926.651(k)(1) require?", "osha-1926")
    assert answer.outcome.value == "answered" and [c.id for c in answer.citations] == ["1926.651(k)(1)"]
    assert "competent person" in answer.text


def test_a_renumbered_rule_is_answered_from_its_successor_and_says_so(bf):
    answer = bf.ask("does the 1926.550,a,9 rule still apply to boom trucks?", "osha-1926")
    assert answer.named[0].via == "successor" and answer.named[0].target_id == "1926 Subpart CC"
    assert "1926.550 is not in the current edition; its successor is 1926 Subpart CC" in answer.text


def test_a_number_the_corpus_lacks_is_said_not_dropped(bf):
    answer = bf.ask("What does 1926.651(z)(9) require for trenches?", "osha-1926")
    assert "1926.651(z)(9): not found in the current edition of osha-1926" in answer.text


def test_similar_letters_are_shown_as_interpretations_and_never_as_its_own(bf):
    question = "Determining the need for hard hat and eye protection on construction sites"
    shown = bf.similar_precedents(question, "osha-1926", k=3)
    assert shown and all(p.issuer == "OSHA" and p.url for p in shown)
    own = shown[0].id
    assert own not in {p.id for p in bf.similar_precedents(question, "osha-1926", k=3, exclude=[own])}
