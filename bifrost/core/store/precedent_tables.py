"""Precedents in the SQL store: an idempotent upsert (the same record twice changes nothing, an edited
one replaces its earlier version), the loaders retrieval and the exporters read, and reviews of answers."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import timezone

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from bifrost.core.precedent_types import AnswerReview, Precedent, ResolvedCite, ReviewedCitation
from bifrost.core.store.sql_models import AnswerReviewRow, PrecedentRow, utcnow
from bifrost.core.store.sql_store import UpsertResult


def precedent_hash(p: Precedent) -> str:
    """The hash an import compares: every field but the corpus."""
    data = p.model_dump(mode="json", exclude={"corpus"})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _row(p: Precedent) -> dict:
    return {
        "corpus": p.corpus,
        "id": p.id,
        "title": p.title,
        "question": p.question,
        "date": p.date,
        "url": p.url,
        "issuer": p.issuer,
        "source": p.source,
        "cites": [c.model_dump(mode="json") for c in p.cites],
        "content_hash": precedent_hash(p),
        "imported_at": utcnow(),
    }


def upsert_precedents(s: Session, precedents: Sequence[Precedent]) -> UpsertResult:
    """Add new precedents, replace edited ones (by corpus and id); unchanged ones are left as they are."""
    out = UpsertResult()
    by_corpus: dict[str, list[Precedent]] = {}
    for p in precedents:
        by_corpus.setdefault(p.corpus, []).append(p)
    for corpus, items in by_corpus.items():
        stored = dict(
            s.execute(
                select(PrecedentRow.id, PrecedentRow.content_hash).where(PrecedentRow.corpus == corpus)
            ).all()
        )
        for p in items:
            row = _row(p)
            old = stored.get(p.id)
            if old == row["content_hash"]:
                out.unchanged += 1
                continue
            if old is not None:
                s.execute(delete(PrecedentRow).where(PrecedentRow.corpus == corpus, PrecedentRow.id == p.id))
                out.updated.append(p.id)
            else:
                out.added.append(p.id)
            s.add(PrecedentRow(**row))
            stored[p.id] = row["content_hash"]
    return out


def _precedent(row: PrecedentRow) -> Precedent:
    return Precedent(
        corpus=row.corpus,
        id=row.id,
        title=row.title,
        question=row.question or "",
        date=row.date,
        url=row.url,
        issuer=row.issuer or "",
        source=row.source or "",
        cites=tuple(ResolvedCite(**c) for c in row.cites or ()),
    )


def load_precedents(s: Session, corpus: str) -> list[Precedent]:
    """Every precedent of a corpus, by id."""
    rows = s.scalars(select(PrecedentRow).where(PrecedentRow.corpus == corpus).order_by(PrecedentRow.id))
    return [_precedent(r) for r in rows]


def count_precedents(s: Session, corpus: str) -> int:
    return int(
        s.scalar(select(func.count()).select_from(PrecedentRow).where(PrecedentRow.corpus == corpus)) or 0
    )


def add_review(
    s: Session,
    corpus: str,
    question: str,
    edition: int,
    reviewer: str,
    team: str,
    cited: Sequence[ReviewedCitation],
    added: Sequence[str],
) -> AnswerReview:
    """Store a review; returns it with its id and time."""
    row = AnswerReviewRow(
        corpus=corpus,
        question=question,
        edition=edition,
        reviewer=reviewer,
        team=team,
        cited=[c.model_dump() for c in cited],
        added=list(added),
        created_at=utcnow(),
    )
    s.add(row)
    s.flush()
    return _review(row)


def _review(row: AnswerReviewRow) -> AnswerReview:
    # SQLite drops it
    made = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=timezone.utc)
    return AnswerReview(
        id=row.id,
        corpus=row.corpus,
        question=row.question,
        edition=row.edition,
        reviewer=row.reviewer,
        team=row.team,
        created_at=made.isoformat(timespec="seconds"),
        cited=tuple(ReviewedCitation(**c) for c in row.cited or ()),
        added=tuple(row.added or ()),
    )


def load_reviews(s: Session, corpus: str) -> list[AnswerReview]:
    """Every review of a corpus's answers, oldest first."""
    rows = s.scalars(
        select(AnswerReviewRow).where(AnswerReviewRow.corpus == corpus).order_by(AnswerReviewRow.id)
    )
    return [_review(r) for r in rows]
