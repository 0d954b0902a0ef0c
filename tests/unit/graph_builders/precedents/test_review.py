"""Reviewed answers: marks checked with one line naming what is wrong (nothing stored then); a review is kept
with who, when and the edition, becomes a precedent of the reviewer's team, and a question `train ranker`
learns from."""

from __future__ import annotations

import pytest

from bifrost.core.errors import BifrostError
from bifrost.core.store.precedent_tables import load_precedents, load_reviews
from bifrost.core.store.sql_store import SqlStore
from bifrost.graph_builders.precedents.review import (
    checked_marks,
    record_review,
    review_questions,
    reviews_of,
)
from tests.unit.tiny_corpus import CORPUS

CITED = ["1926.450(a)", "1926.450(b)"]
KNOWN = {"1926.450(a)", "1926.450(b)", "1926.651(a)(1)"}


@pytest.mark.parametrize(
    "right, wrong, added, says",
    [
        (["1926.651(a)"], [], [], "1926.651(a) was not cited by the answer"),
        (["1926.450(a)"], ["1926.450(a)"], [], "marked both right and wrong"),
        ([], [], ["1926.999(z)"], "1926.999(z) is not a provision of the current edition"),
        ([], [], ["1926.450(b)"], "already cited by the answer"),
        ([], [], [], "marks at least one citation"),
    ],
)
def test_bad_marks_are_one_line_naming_the_provision(right, wrong, added, says):
    with pytest.raises(BifrostError, match=says.replace("(", r"\(").replace(")", r"\)")):
        checked_marks(CITED, right, wrong, added, KNOWN)


def test_a_review_is_kept_and_becomes_a_precedent_of_the_team(settings):
    sql = SqlStore(settings.sql_url)
    review = record_review(
        sql,
        CORPUS,
        "are planks inspected?",
        CITED,
        ["1926.450(b)"],
        ["1926.450(a)"],
        ["1926.651(a)(1)"],
        "ana",
        "Site safety",
        edition=1,
    )
    assert (
        review.gold == ("1926.450(b)", "1926.651(a)(1)") and review.edition == 1 and review.reviewer == "ana"
    )
    with sql.session() as s:
        (stored,) = load_reviews(s, CORPUS)
        (precedent,) = load_precedents(s, CORPUS)
    assert stored == review
    assert (precedent.id, precedent.issuer, precedent.resolved_ids) == (
        "review-1",
        "Site safety",
        review.gold,
    )
    assert review_questions([review]) == [
        {
            "id": "review-1",
            "question": "are planks inspected?",
            "gold": list(review.gold),
            "answerable": True,
            "source": "review",
            "date": review.created_at[:10],
            "reviewer": "ana",
        }
    ]
    sql.dispose()


def test_bad_marks_store_nothing(settings):
    sql = SqlStore(settings.sql_url)
    with pytest.raises(BifrostError):
        record_review(sql, CORPUS, "q", CITED, ["1926.450(a)"], [], ["1926.999"], "ana", "", edition=1)
    with pytest.raises(BifrostError, match="names its reviewer"):
        record_review(sql, CORPUS, "q", CITED, ["1926.450(a)"], [], [], " ", "", edition=1)
    with sql.session() as s:
        assert load_reviews(s, CORPUS) == [] and load_precedents(s, CORPUS) == []
    sql.dispose()


def test_a_provision_gone_from_the_current_edition_is_flagged(settings):
    sql = SqlStore(settings.sql_url)
    record_review(sql, CORPUS, "q", CITED, ["1926.450(a)"], [], [], "ana", "", edition=1)
    ((review, moved),) = reviews_of(sql, CORPUS)
    assert moved == []
    from bifrost.graph_builders.precedents.review import moved_citations

    assert moved_citations(review, {"1926.450(b)"}) == ["1926.450(a)"]
    sql.dispose()
