"""Reviewed answers become precedents: a reviewer marks each provision an answer cited right or wrong and adds
what it missed; the review is kept (who, when, which edition) and its right and added provisions enter the
precedent bank under the reviewer's team, as a question a later one can be answered from and trained on."""

from __future__ import annotations

from collections.abc import Sequence

from bifrost.core.errors import BifrostError
from bifrost.core.precedent_types import AnswerReview, Precedent, ResolvedCite, ReviewedCitation
from bifrost.core.store.precedent_tables import add_review, load_reviews, upsert_precedents
from bifrost.core.store.sql_store import SqlStore


def checked_marks(
    cited: Sequence[str], right: Sequence[str], wrong: Sequence[str], added: Sequence[str], known: set[str]
) -> tuple[list[ReviewedCitation], list[str]]:
    """The review's marks, or one line naming what is wrong with them: a mark on a provision the answer did
    not cite, one marked both ways, an added provision the corpus lacks or the answer already cites."""
    cited_set = set(cited)
    for pid in [*right, *wrong]:
        if pid not in cited_set:
            raise BifrostError(
                f"{pid} was not cited by the answer (it cites {', '.join(cited) or 'nothing'}); use --add "
                "for a missing provision"
            )
    if both := sorted(set(right) & set(wrong)):
        raise BifrostError(f"{both[0]} is marked both right and wrong")
    for pid in added:
        if pid not in known:
            raise BifrostError(f"{pid} is not a provision of the current edition")
        if pid in cited_set:
            raise BifrostError(f"{pid} is already cited by the answer: mark it --right instead of adding it")
    if not (right or wrong or added):
        raise BifrostError(
            "a review marks at least one citation (--right, --wrong) or adds a missing provision (--add)"
        )
    marks = [ReviewedCitation(id=pid, right=pid in right) for pid in dict.fromkeys([*right, *wrong])]
    return marks, list(dict.fromkeys(added))


def review_precedent(review: AnswerReview) -> Precedent:
    """The precedent a review makes: the question, answered by the provisions the reviewer judged right or
    added."""
    return Precedent(
        corpus=review.corpus,
        id=review.precedent_id,
        title=review.question,
        question=review.question,
        date=review.created_at[:10],
        issuer=review.team or review.reviewer,
        source="review",
        cites=tuple(ResolvedCite(written=pid, target_id=pid) for pid in review.gold),
    )


def record_review(
    sql: SqlStore,
    corpus: str,
    question: str,
    cited: Sequence[str],
    right: Sequence[str],
    wrong: Sequence[str],
    added: Sequence[str],
    reviewer: str,
    team: str,
    edition: int,
) -> AnswerReview:
    """Check the marks, then store the review and its precedent in one transaction (nothing half-written)."""
    if not reviewer.strip():
        raise BifrostError("a review names its reviewer (--reviewer)")
    marks, extra = checked_marks(cited, right, wrong, added, sql.provision_ids(corpus))
    with sql.session() as s:
        review = add_review(s, corpus, question, edition, reviewer.strip(), team.strip(), marks, extra)
        if review.gold:
            upsert_precedents(s, [review_precedent(review)])
    return review


def moved_citations(review: AnswerReview, known: set[str]) -> list[str]:
    """The provisions a review judged right or added that the current edition no longer holds (flagged after
    an edition change: the precedent cites them as written, unresolved)."""
    return [pid for pid in review.gold if pid not in known]


def reviews_of(sql: SqlStore, corpus: str) -> list[tuple[AnswerReview, list[str]]]:
    """Every review of a corpus with the provisions it relies on that have moved since."""
    known = sql.provision_ids(corpus)
    with sql.session() as s:
        reviews = load_reviews(s, corpus)
    return [(r, moved_citations(r, known)) for r in reviews]


def review_questions(reviews: Sequence[AnswerReview]) -> list[dict[str, object]]:
    """The reviews as a question set (the evaluation JSONL format) that `train ranker` learns from."""
    return [
        {
            "id": r.precedent_id,
            "question": r.question,
            "gold": list(r.gold),
            "answerable": True,
            "source": "review",
            "date": r.created_at[:10],
            "reviewer": r.reviewer,
        }
        for r in reviews
        if r.gold
    ]
