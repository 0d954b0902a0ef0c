"""Editions of a corpus in the SQL store: record them, keep replaced and retired provisions, read any edition.

The ``provisions`` table holds the last recorded edition (the stored one); a provision an edition
changes or removes is copied to ``provision_versions`` with the range of editions in which it was
valid. References carry the same range (``valid_from``/``valid_to``), so an edition's REFERS_TO set
can be read back for diffs and point-in-time questions. The current edition is the one valid today
(`current`): the stored one, unless an older-dated edition was recorded last (``ingest
--allow-older``); then ask, eval and the web app read the current edition from the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date as Date

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from bifrost.core.errors import ConfigError, NotFoundError
from bifrost.core.store.provision_rows import row_to_provision
from bifrost.core.store.sql_models import EditionRow, ProvisionRow, ProvisionVersionRow, ReferenceRow
from bifrost.core.types import Edition, Provision, Reference

UNRECORDED = 0  # provisions stored before editions were recorded


def parse_date(value: str, what: str = "date") -> str:
    """An ISO date (YYYY-MM-DD), or a one-line ConfigError naming the option."""
    try:
        return Date.fromisoformat(value).isoformat()
    except (TypeError, ValueError):
        raise ConfigError(f"{what}: {value!r} is not a date (YYYY-MM-DD)") from None


def _edition(row: EditionRow) -> Edition:
    return Edition(
        corpus=row.corpus,
        number=row.number,
        date=row.date,
        sources=tuple(row.sources or ()),
        content_hash=row.content_hash,
        added=row.added,
        changed=row.changed,
        removed=row.removed,
    )


def editions(s: Session, corpus: str) -> list[Edition]:
    """Recorded editions of a corpus, oldest first."""
    rows = s.scalars(select(EditionRow).where(EditionRow.corpus == corpus).order_by(EditionRow.number))
    return [_edition(r) for r in rows]


def stored_number(s: Session, corpus: str) -> int:
    """The number of the edition the ``provisions`` table holds: the last recorded (0 when none was).
    Not always the current one (see `current`)."""
    return int(s.scalar(select(func.max(EditionRow.number)).where(EditionRow.corpus == corpus)) or UNRECORDED)


def next_edition(s: Session, corpus: str, when: str, *, allow_older: bool = False) -> int:
    """The number a new edition dated ``when`` gets; an edition older than the current one is refused."""
    now = current(s, corpus)
    if now.date and when < now.date and not allow_older:
        raise ConfigError(
            f"edition date {when} of {corpus} is older than its current edition {now.number} ({now.date}); "
            "pass --allow-older to record it anyway"
        )
    return stored_number(s, corpus) + 1


def record_edition(s: Session, edition: Edition) -> None:
    """Store an edition row (called once its changes are written, in the same transaction)."""
    s.add(EditionRow(**edition.model_dump()))


def keep_version(s: Session, row: ProvisionRow, edition: int, change: str) -> None:
    """Copy a provision row to the history before ``edition`` changes (``changed``) or retires
    (``removed``) it."""
    data = row_to_provision(row).model_dump(mode="json", exclude={"uid"})
    data["verified"] = row.verified
    s.add(
        ProvisionVersionRow(
            corpus=row.corpus,
            provision_id=row.id,
            valid_from=row.valid_from,
            valid_to=edition,
            change=change,
            data=data,
        )
    )


def retire(s: Session, corpus: str, document: str, keep_ids: set[str], edition: int) -> list[str]:
    """Retire the provisions of ``document`` that its new edition no longer has; returns their ids."""
    rows = s.scalars(
        select(ProvisionRow).where(ProvisionRow.corpus == corpus, ProvisionRow.document == document)
    ).all()
    gone = [r for r in rows if r.id not in keep_ids]
    for r in gone:
        keep_version(s, r, edition, "removed")
        s.delete(r)
    return sorted(r.id for r in gone)


def edition_spec(spec: str | int) -> tuple[int | None, str | None]:
    """An edition named on the command line: ``(number, None)`` for an integer (``2``), ``(None, ISO date)``
    for a date, ``2025-01-01`` or the compact ``20250101`` (8 digits are always a date, never a number)."""
    text = str(spec).strip()
    if isinstance(spec, int) or (text.isdigit() and len(text) != 8):
        return int(text), None
    return None, parse_date(text, "--as-of")


def _valid_on(known: Sequence[Edition], when: str) -> Edition | None:
    """The edition valid on ``when``: the latest dated on or before it, ties broken by the higher number;
    an undated edition counts as valid from the start (before every dated one)."""
    valid = [e for e in known if (e.date or "") <= when]
    return max(valid, key=lambda e: (e.date or "", e.number), default=None)


def current(s: Session, corpus: str) -> Edition:
    """The edition valid today (see `_valid_on`), which need not be the stored one; provisions from
    before editions were recorded when no edition is in force yet, else the first to come into force."""
    known = editions(s, corpus)
    found = _valid_on(known, Date.today().isoformat())
    if found is not None:
        return found
    if not known or _has_unrecorded(s, corpus):
        return Edition(corpus=corpus, number=UNRECORDED)
    return min(known, key=lambda e: (e.date or "", e.number))


def resolve(s: Session, corpus: str, number: int | None = None, as_of: str | None = None) -> Edition:
    """The edition with a number, or the one valid on a date (see `_valid_on`), or the current one."""
    if number is None and as_of is None:
        return current(s, corpus)
    known = editions(s, corpus)
    if number is not None:
        if number == UNRECORDED:
            return Edition(corpus=corpus, number=UNRECORDED)
        found = [e for e in known if e.number == number]
        if not found:
            raise NotFoundError(
                f"{corpus} has no edition {number} (editions: "
                f"{', '.join(str(e.number) for e in known) or 'none'})"
            )
        return found[0]
    when = parse_date(as_of, "--as-of")
    valid = _valid_on(known, when)
    if valid is not None:
        return valid
    if _has_unrecorded(s, corpus):
        return Edition(corpus=corpus, number=UNRECORDED)
    first = min((e.date for e in known if e.date), default="none")
    raise NotFoundError(f"{corpus} has no edition valid on {when}: its first edition is dated {first}")


def _has_unrecorded(s: Session, corpus: str) -> bool:
    """Whether some provision dates from before editions were recorded."""
    now = s.scalar(
        select(ProvisionRow.uid)
        .where(ProvisionRow.corpus == corpus, ProvisionRow.valid_from == UNRECORDED)
        .limit(1)
    )
    past = s.scalar(
        select(ProvisionVersionRow.id)
        .where(ProvisionVersionRow.corpus == corpus, ProvisionVersionRow.valid_from == UNRECORDED)
        .limit(1)
    )
    return now is not None or past is not None


def provisions_at(s: Session, corpus: str, number: int) -> list[Provision]:
    """Every provision valid in edition ``number``, in document order."""
    current = [
        row_to_provision(r)
        for r in s.scalars(
            select(ProvisionRow).where(ProvisionRow.corpus == corpus, ProvisionRow.valid_from <= number)
        )
    ]
    older = s.scalars(
        select(ProvisionVersionRow).where(
            ProvisionVersionRow.corpus == corpus,
            ProvisionVersionRow.valid_from <= number,
            ProvisionVersionRow.valid_to > number,
        )
    )
    past = [Provision.model_validate({k: v for k, v in r.data.items() if k != "verified"}) for r in older]
    return sorted(current + past, key=lambda p: (p.order, p.id))


def versions_of(s: Session, corpus: str, provision_id: str) -> list[tuple[int, int, str, Provision]]:
    """Earlier versions of one provision: (valid_from, valid_to, change, provision), newest first."""
    rows = s.scalars(
        select(ProvisionVersionRow)
        .where(ProvisionVersionRow.corpus == corpus, ProvisionVersionRow.provision_id == provision_id)
        .order_by(ProvisionVersionRow.valid_to.desc())
    )
    return [
        (
            r.valid_from,
            r.valid_to,
            r.change,
            Provision.model_validate({k: v for k, v in r.data.items() if k != "verified"}),
        )
        for r in rows
    ]


def _reference(r: ReferenceRow) -> Reference:
    return Reference(
        corpus=r.corpus,
        source_id=r.source_id,
        raw=r.raw,
        target_id=r.target_id,
        reason=r.reason,
        extractor=r.extractor,
    )


def references_at(s: Session, corpus: str, number: int) -> list[Reference]:
    """References valid in edition ``number``."""
    q = select(ReferenceRow).where(
        ReferenceRow.corpus == corpus,
        ReferenceRow.valid_from <= number,
        or_(ReferenceRow.valid_to.is_(None), ReferenceRow.valid_to > number),
    )
    return [_reference(r) for r in s.scalars(q.order_by(ReferenceRow.id))]


def _key(r: Reference) -> tuple:
    return (r.source_id, r.raw, r.target_id, r.reason)


def sync_references(s: Session, corpus: str, refs: Sequence[Reference], extractor: str) -> tuple[int, int]:
    """Make the current references of one extractor equal ``refs``; returns (added, retired).

    A reference no longer found is closed at the stored edition (kept for diffs and as-of
    reads), or deleted when it was written in that same edition.
    """
    edition = stored_number(s, corpus)
    rows = s.scalars(
        select(ReferenceRow)
        .where(
            ReferenceRow.corpus == corpus,
            ReferenceRow.extractor == extractor,
            ReferenceRow.valid_to.is_(None),
        )
        .order_by(ReferenceRow.id)
    ).all()
    wanted: dict[tuple, list[Reference]] = {}
    for r in refs:
        wanted.setdefault(_key(r), []).append(r)
    retired = 0
    for row in rows:
        same = wanted.get(_key(_reference(row)))
        if same:
            same.pop()
            continue
        retired += 1
        if row.valid_from >= edition:
            s.execute(delete(ReferenceRow).where(ReferenceRow.id == row.id))
        else:
            row.valid_to = edition
    new = [
        {**r.model_dump(), "extractor": extractor, "valid_from": edition}
        for group in wanted.values()
        for r in group
    ]
    if new:
        s.execute(ReferenceRow.__table__.insert(), new)
    return len(new), retired
