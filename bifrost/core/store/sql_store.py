"""The SQL store: provisions, references and review items behind one small repository class.

SQLite by default; any SQLAlchemy URL works. Writes are idempotent: re-ingesting the same input
changes nothing, and a changed provision is updated in place (detected by content hash).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, create_engine, delete, event, insert, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from bifrost.core.errors import StoreError
from bifrost.core.store.sql_models import (
    Base,
    CorpusRow,
    DocumentRow,
    MetaRow,
    ProvisionRow,
    ReferenceRow,
    ReviewItemRow,
    utcnow,
)
from bifrost.core.types import Provision, ProvisionKind, Reference, ReviewItem, SourceDocument


@dataclass
class UpsertResult:
    """What an upsert of provisions changed."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0


def _enable_sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - trivial
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()


def sql_error_line(url: str, e: SQLAlchemyError) -> str:
    """One line for a SQL failure: the database (password hidden), the driver's own message without
    SQLAlchemy's SQL text, parameters and help link, and what to do for a full or read-only disk."""
    from sqlalchemy.engine import make_url

    try:
        where = make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL is still named, without its credentials
        where = url.split("@")[-1]
    reason = " ".join(str(getattr(e, "orig", None) or e).split("[SQL:")[0].split())
    low = reason.lower()
    hint = ""
    if "disk is full" in low or "no space" in low:
        hint = "; free some space there and run the command again (nothing stored before was lost)"
    elif "disk i/o error" in low:
        hint = "; the disk may be full: free some space there and run the command again"
    elif "readonly" in low or "read-only" in low or "unable to open database file" in low:
        hint = "; the folder or file is not writable: make it writable and run the command again"
    return f"SQL store {where}: {reason}{hint}"


def make_engine(url: str) -> Engine:
    """An engine for a SQLAlchemy URL; creates the SQLite folder and the tables."""
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = create_engine(url, future=True)
        if engine.dialect.name == "sqlite":
            _enable_sqlite_pragmas(engine)
        import bifrost.core.store.entity_tables  # noqa: F401  (register the entity tables)

        Base.metadata.create_all(engine)
    except ModuleNotFoundError:
        Base.metadata.create_all(engine)
    except SQLAlchemyError as e:
        raise StoreError(f"cannot open the {sql_error_line(url, e)}") from e
    return engine


def provision_to_row(p: Provision, verified: bool = False) -> dict:
    return {
        "uid": p.uid,
        "corpus": p.corpus,
        "id": p.id,
        "parent_id": p.parent_id,
        "kind": p.kind.value,
        "heading": p.heading,
        "text": p.text,
        "level": p.level,
        "ord": p.order,
        "url": p.url,
        "pages": list(p.pages),
        "term": p.term,
        "source_note": p.source_note,
        "reserved": p.reserved,
        "document": p.document,
        "content_hash": p.hash,
        "verified": verified,
    }


def row_to_provision(r: ProvisionRow) -> Provision:
    return Provision(
        corpus=r.corpus,
        id=r.id,
        parent_id=r.parent_id,
        kind=ProvisionKind(r.kind),
        heading=r.heading or "",
        text=r.text or "",
        level=r.level,
        order=r.ord,
        url=r.url,
        pages=tuple(r.pages or ()),
        term=r.term,
        source_note=r.source_note,
        reserved=r.reserved,
        document=r.document,
    )


class SqlStore:
    """Repository over the SQL tables; one instance per database URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A transaction: committed on success, rolled back on any error."""
        s = self._sessions()
        try:
            yield s
            s.commit()
        except SQLAlchemyError as e:
            s.rollback()
            raise StoreError(sql_error_line(self.url, e)) from e
        except BaseException:
            s.rollback()
            raise
        finally:
            s.close()

    # --- corpora and documents ---
    def ensure_corpus(self, name: str, jurisdiction: str = "us-cfr") -> None:
        with self.session() as s:
            if s.get(CorpusRow, name) is None:
                s.add(CorpusRow(name=name, jurisdiction=jurisdiction))

    def corpora(self) -> list[str]:
        with self.session() as s:
            return list(s.scalars(select(CorpusRow.name).order_by(CorpusRow.name)))

    def jurisdiction(self, corpus: str) -> str | None:
        with self.session() as s:
            row = s.get(CorpusRow, corpus)
            return row.jurisdiction if row else None

    def record_document(self, s: Session, doc: SourceDocument) -> bool:
        """Insert or update a document row; True when it is new or its checksum changed."""
        row = s.scalar(select(DocumentRow).where(DocumentRow.corpus == doc.corpus, DocumentRow.name == doc.name))
        if row is None:
            s.add(DocumentRow(**doc.model_dump()))
            return True
        if row.checksum == doc.checksum:
            return False
        row.checksum, row.format, row.edition, row.url = doc.checksum, doc.format, doc.edition, doc.url
        row.ingested_at = utcnow()
        return True

    # --- provisions ---
    def upsert_provisions(
        self, s: Session, provisions: Sequence[Provision], verified_ids: set[str] | None = None
    ) -> UpsertResult:
        """Insert new provisions, update changed ones (by content hash), count the rest."""
        result = UpsertResult()
        if not provisions:
            return result
        corpus = provisions[0].corpus
        existing = dict(
            s.execute(select(ProvisionRow.uid, ProvisionRow.content_hash).where(ProvisionRow.corpus == corpus)).all()
        )
        verified_ids = verified_ids or set()
        new_rows, seen = [], set()
        for p in provisions:
            if p.uid in seen:
                continue
            seen.add(p.uid)
            row = provision_to_row(p, verified=p.id in verified_ids)
            old = existing.get(p.uid)
            if old is None:
                new_rows.append(row)
                result.added.append(p.id)
            elif old != row["content_hash"]:
                uid = row.pop("uid")
                s.execute(update(ProvisionRow).where(ProvisionRow.uid == uid).values(**row, updated_at=utcnow()))
                result.updated.append(p.id)
            else:
                if p.id in verified_ids:
                    s.execute(update(ProvisionRow).where(ProvisionRow.uid == p.uid).values(verified=True))
                result.unchanged += 1
        for i in range(0, len(new_rows), 2000):
            s.execute(insert(ProvisionRow), new_rows[i : i + 2000])
        return result

    def provisions(self, corpus: str, ids: Iterable[str] | None = None) -> list[Provision]:
        """Provisions of a corpus in document order (all, or only the given ids)."""
        with self.session() as s:
            q = select(ProvisionRow).where(ProvisionRow.corpus == corpus)
            if ids is None:
                return [row_to_provision(r) for r in s.scalars(q.order_by(ProvisionRow.ord))]
            wanted, rows = list(dict.fromkeys(ids)), []
            for i in range(0, len(wanted), 5000):
                rows += s.scalars(q.where(ProvisionRow.id.in_(wanted[i : i + 5000]))).all()
            return [row_to_provision(r) for r in sorted(rows, key=lambda r: r.ord)]

    def provision_page(self, corpus: str, offset: int, limit: int) -> list[Provision]:
        """``limit`` provisions of a corpus from ``offset``, in document order (for listings)."""
        with self.session() as s:
            q = (select(ProvisionRow).where(ProvisionRow.corpus == corpus)
                 .order_by(ProvisionRow.ord, ProvisionRow.id).offset(offset).limit(limit))
            return [row_to_provision(r) for r in s.scalars(q)]

    def get_provision(self, corpus: str, provision_id: str) -> Provision | None:
        with self.session() as s:
            r = s.scalar(select(ProvisionRow).where(ProvisionRow.corpus == corpus, ProvisionRow.id == provision_id))
            return row_to_provision(r) if r else None

    def count_provisions(self, corpus: str) -> int:
        with self.session() as s:
            return len(s.scalars(select(ProvisionRow.uid).where(ProvisionRow.corpus == corpus)).all())

    # --- references ---
    def replace_references(self, corpus: str, refs: Sequence[Reference], extractor: str = "rules") -> None:
        """Replace every reference of one extractor for a corpus (references are derived data)."""
        with self.session() as s:
            s.execute(delete(ReferenceRow).where(ReferenceRow.corpus == corpus, ReferenceRow.extractor == extractor))
            rows = [r.model_dump() for r in refs]
            for i in range(0, len(rows), 2000):
                s.execute(insert(ReferenceRow), rows[i : i + 2000])

    def references(self, corpus: str, dangling: bool | None = None) -> list[Reference]:
        with self.session() as s:
            q = select(ReferenceRow).where(ReferenceRow.corpus == corpus)
            if dangling is True:
                q = q.where(ReferenceRow.target_id.is_(None))
            elif dangling is False:
                q = q.where(ReferenceRow.target_id.is_not(None))
            return [
                Reference(
                    corpus=r.corpus, source_id=r.source_id, raw=r.raw, target_id=r.target_id,
                    reason=r.reason, extractor=r.extractor,
                )
                for r in s.scalars(q.order_by(ReferenceRow.id))
            ]

    # --- review items ---
    def add_review_items(self, s: Session, items: Sequence[ReviewItem]) -> int:
        """Store review items, skipping ones already open with the same texts."""
        added = 0
        for it in items:
            dup = s.scalar(
                select(ReviewItemRow.id).where(
                    ReviewItemRow.corpus == it.corpus,
                    ReviewItemRow.provision_id == it.provision_id,
                    ReviewItemRow.text_a == it.text_a,
                    ReviewItemRow.text_b == it.text_b,
                )
            )
            if dup is None:
                s.add(ReviewItemRow(**it.model_dump()))
                added += 1
        return added

    def review_items(self, corpus: str | None = None, status: str = "open") -> list[tuple[int, ReviewItem]]:
        with self.session() as s:
            q = select(ReviewItemRow).where(ReviewItemRow.status == status)
            if corpus:
                q = q.where(ReviewItemRow.corpus == corpus)
            return [
                (
                    r.id,
                    ReviewItem(
                        corpus=r.corpus, provision_id=r.provision_id, source_a=r.source_a, source_b=r.source_b,
                        text_a=r.text_a, text_b=r.text_b, diff=r.diff, ratio=r.ratio,
                    ),
                )
                for r in s.scalars(q.order_by(ReviewItemRow.id))
            ]

    # --- meta ---
    def set_meta(self, corpus: str, key: str, value: dict) -> None:
        with self.session() as s:
            s.merge(MetaRow(corpus=corpus, key=key, value=value))

    def get_meta(self, corpus: str, key: str) -> dict | None:
        with self.session() as s:
            r = s.get(MetaRow, (corpus, key))
            return r.value if r else None

    def dispose(self) -> None:
        self.engine.dispose()
