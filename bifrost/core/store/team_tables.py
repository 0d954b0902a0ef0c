"""Users, tokens and answer records in the SQL store: create, list, revoke, look up, record, prune.

Functions take an open `Session`; the caller owns the transaction (a user and its first token are
created in one, so nothing is half-created)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from bifrost.core.access import AnswerRecord, Role, TokenInfo, User
from bifrost.core.store.sql_models import AnswerRecordRow, TokenRow, UserRow, utcnow


def as_utc(dt: datetime | None) -> datetime | None:
    """A stored datetime as an aware UTC one (SQLite hands them back naive)."""
    if dt is None:
        return None
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def _token_info(row: TokenRow) -> TokenInfo:
    return TokenInfo(
        id=row.id,
        user=row.user,
        created_at=as_utc(row.created_at),
        expires_at=as_utc(row.expires_at),
        revoked_at=as_utc(row.revoked_at),
    )


def _user(row: UserRow, tokens: Sequence[TokenRow] = ()) -> User:
    return User(
        name=row.name,
        role=Role(row.role),
        corpora=tuple(row.corpora or ()),
        rate_limit=row.rate_limit,
        created_at=as_utc(row.created_at),
        tokens=tuple(_token_info(t) for t in tokens),
    )


def add_user(
    s: Session, name: str, role: Role, corpora: Sequence[str], rate_limit: str | None = None
) -> None:
    s.add(
        UserRow(name=name, role=role.value, corpora=list(corpora), rate_limit=rate_limit, created_at=utcnow())
    )


def user_exists(s: Session, name: str) -> bool:
    return s.get(UserRow, name) is not None


def get_user(s: Session, name: str) -> User | None:
    row = s.get(UserRow, name)
    if row is None:
        return None
    tokens = s.scalars(select(TokenRow).where(TokenRow.user == name).order_by(TokenRow.created_at)).all()
    return _user(row, tokens)


def list_users(s: Session) -> list[User]:
    tokens: dict[str, list[TokenRow]] = {}
    for t in s.scalars(select(TokenRow).order_by(TokenRow.created_at)):
        tokens.setdefault(t.user, []).append(t)
    return [_user(u, tokens.get(u.name, ())) for u in s.scalars(select(UserRow).order_by(UserRow.name))]


def remove_user(s: Session, name: str) -> bool:
    """Delete a user and every token of theirs; answers they were given stay on the record."""
    s.execute(delete(TokenRow).where(TokenRow.user == name))
    return s.execute(delete(UserRow).where(UserRow.name == name)).rowcount > 0


def add_token(s: Session, token_id: str, user: str, secret_hash: str, expires_at: datetime | None) -> None:
    s.add(
        TokenRow(id=token_id, user=user, secret_hash=secret_hash, created_at=utcnow(), expires_at=expires_at)
    )


def revoke_tokens(s: Session, user: str, token_id: str | None = None) -> int:
    """Revoke one token of ``user`` (or all of them): how many were live and are now revoked."""
    q = update(TokenRow).where(TokenRow.user == user, TokenRow.revoked_at.is_(None))
    if token_id is not None:
        q = q.where(TokenRow.id == token_id)
    return s.execute(q.values(revoked_at=utcnow())).rowcount


def token_row(s: Session, token_id: str) -> tuple[TokenRow, UserRow] | None:
    token = s.get(TokenRow, token_id)
    if token is None:
        return None
    user = s.get(UserRow, token.user)
    return (token, user) if user is not None else None


# --- answer records ---


def add_record(s: Session, record: AnswerRecord) -> None:
    s.add(AnswerRecordRow(**record.model_dump()))


def _record(row: AnswerRecordRow) -> AnswerRecord:
    return AnswerRecord(
        id=row.id,
        asked_at=as_utc(row.asked_at),
        user=row.user,
        channel=row.channel,
        corpus=row.corpus,
        editions=dict(row.editions or {}),
        as_of=row.as_of,
        question=row.question,
        outcome=row.outcome,
        verdict=row.verdict,
        citations=list(row.citations or ()),
        code_version=row.code_version or "",
        models=dict(row.models or {}),
        answer=dict(row.answer or {}),
    )


def get_record(s: Session, record_id: str) -> AnswerRecord | None:
    row = s.get(AnswerRecordRow, record_id)
    return _record(row) if row is not None else None


def list_records(
    s: Session,
    *,
    user: str | None = None,
    corpora: Sequence[str] | None = None,
    limit: int = 50,
    before: datetime | None = None,
) -> list[AnswerRecord]:
    """The newest records first; ``corpora`` keeps records whose every corpus is among them."""
    q = select(AnswerRecordRow).order_by(AnswerRecordRow.asked_at.desc(), AnswerRecordRow.id)
    if user is not None:
        q = q.where(AnswerRecordRow.user == user)
    if before is not None:
        q = q.where(AnswerRecordRow.asked_at < before)
    out: list[AnswerRecord] = []
    allowed = set(corpora) if corpora is not None else None
    rows = s.scalars(q).yield_per(200) if allowed is not None else s.scalars(q.limit(limit))
    for row in rows:
        if allowed is not None and not set(row.corpus.split(",")) <= allowed:
            continue
        out.append(_record(row))
        if len(out) >= limit:
            break
    return out


def count_records(s: Session) -> int:
    return s.scalar(select(func.count()).select_from(AnswerRecordRow)) or 0


def prune_records(s: Session, keep_days: int, now: datetime | None = None) -> int:
    """Delete records older than ``keep_days``: how many."""
    cutoff = (now or utcnow()) - timedelta(days=keep_days)
    return s.execute(delete(AnswerRecordRow).where(AnswerRecordRow.asked_at < cutoff)).rowcount
