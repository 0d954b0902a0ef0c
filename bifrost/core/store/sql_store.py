"""The SQL store: provisions, references and review items behind one small repository class.

SQLite by default, PostgreSQL tested too (any SQLAlchemy URL); the schema comes from migrations
(`bifrost.core.store.schema`). Writes are idempotent: re-ingesting the same input
changes nothing, and a changed provision is updated in place (detected by content hash).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import insert, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from bifrost.core.errors import StoreError
from bifrost.core.store.editions import (
    current,
    editions,
    keep_version,
    provisions_at,
    references_at,
    resolve,
    stored_number,
    sync_references,
    versions_of,
)
from bifrost.core.store.engine import make_engine, sql_error_line
from bifrost.core.store.locks import corpus_lock
from bifrost.core.store.provision_rows import (  # noqa: F401  (row_to_provision re-exported)
    PROVISION_COLUMNS,
    columns_to_provision,
    provision_to_row,
    row_to_provision,
)
from bifrost.core.store.sql_models import (
    CorpusRow,
    DocumentRow,
    MetaRow,
    ProvisionRow,
    ReferenceRow,
    ReviewItemRow,
    utcnow,
)
from bifrost.core.types import Edition, Provision, Reference, ReviewItem, SourceDocument


@dataclass
class UpsertResult:
    """What an upsert of provisions changed."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0


class SqlStore:
    """Repository over the SQL tables; one instance per database URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._held: dict[str, int] = {}

    @contextmanager
    def writer_lock(self, corpus: str) -> Iterator[None]:
        """Writers of one corpus take turns across processes (ingest, graph and entity builds): each
        reads the committed state and derives from it, so concurrent writers end as a serial run.
        PostgreSQL: an advisory lock; SQLite: a lock file beside the database. Reentrant per store."""
        if self._held.get(corpus):
            self._held[corpus] += 1
            try:
                yield
            finally:
                self._held[corpus] -= 1
            return
        with corpus_lock(self.engine, corpus):
            self._held[corpus] = 1
            try:
                yield
            finally:
                self._held.pop(corpus, None)

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
    def ensure_corpus(self, name: str, jurisdiction: str) -> None:
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
        row = s.scalar(
            select(DocumentRow).where(DocumentRow.corpus == doc.corpus, DocumentRow.name == doc.name)
        )
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
        self,
        s: Session,
        provisions: Sequence[Provision],
        verified_ids: set[str] | None = None,
        edition: int | None = None,
    ) -> UpsertResult:
        """Insert new provisions and update changed ones (every field counts); count the rest.

        With an ``edition``, a changed provision's previous version is kept in the history and
        new or changed ones are valid from that edition.
        """
        result = UpsertResult()
        if not provisions:
            return result
        corpus = provisions[0].corpus
        existing = dict(
            s.execute(
                select(ProvisionRow.uid, ProvisionRow.content_hash).where(ProvisionRow.corpus == corpus)
            ).all()
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
                new_rows.append({**row, "valid_from": edition or 0})
                result.added.append(p.id)
            elif old != row["content_hash"] and self._replace(s, p, row, edition):
                result.updated.append(p.id)
            else:
                if p.id in verified_ids:
                    s.execute(update(ProvisionRow).where(ProvisionRow.uid == p.uid).values(verified=True))
                result.unchanged += 1
        for i in range(0, len(new_rows), 2000):
            s.execute(insert(ProvisionRow), new_rows[i : i + 2000])
        return result

    @staticmethod
    def _replace(s: Session, p: Provision, row: dict, edition: int | None) -> bool:
        """Update a stored provision whose hash differs; False when only the hash was stale (same fields)."""
        stored = s.get(ProvisionRow, p.uid)
        before = row_to_provision(stored)
        if before.model_copy(update={"order": p.order}) == p:
            # Same provision: only its place in the document order moved (something was inserted
            # or removed before it), or the hash was written by an older Bifrost. Not a new version.
            stored.ord, stored.content_hash = p.order, row["content_hash"]
            return False
        if edition is not None:
            keep_version(s, stored, edition, "changed")
            row = {**row, "valid_from": edition}
        row.pop("uid")
        s.execute(update(ProvisionRow).where(ProvisionRow.uid == p.uid).values(**row, updated_at=utcnow()))
        return True

    def provisions(self, corpus: str, ids: Iterable[str] | None = None) -> list[Provision]:
        """Provisions of a corpus in document order (all, or only the given ids)."""
        with self.session() as s:
            q = select(*PROVISION_COLUMNS).where(ProvisionRow.corpus == corpus)
            if ids is None:
                return [columns_to_provision(c) for c in s.execute(q.order_by(ProvisionRow.ord))]
            wanted, rows = list(dict.fromkeys(ids)), []
            for i in range(0, len(wanted), 5000):
                rows += s.execute(q.where(ProvisionRow.id.in_(wanted[i : i + 5000]))).all()
            return sorted((columns_to_provision(c) for c in rows), key=lambda p: p.order)

    def provisions_in(self, s: Session, corpus: str, ids: Sequence[str]) -> dict[str, Provision]:
        """Stored provisions by id, read inside an open transaction (sees its uncommitted writes)."""
        wanted, found = list(dict.fromkeys(ids)), {}
        for i in range(0, len(wanted), 5000):
            q = select(ProvisionRow).where(
                ProvisionRow.corpus == corpus, ProvisionRow.id.in_(wanted[i : i + 5000])
            )
            found.update({r.id: row_to_provision(r) for r in s.scalars(q)})
        return found

    def provision_page(
        self, corpus: str, offset: int, limit: int, kinds: Sequence[str] | None = None
    ) -> list[Provision]:
        """``limit`` provisions of a corpus from ``offset``, in document order (for listings); ``kinds``:
        only those."""
        with self.session() as s:
            q = select(ProvisionRow).where(ProvisionRow.corpus == corpus)
            if kinds is not None:
                q = q.where(ProvisionRow.kind.in_(list(kinds)))
            q = q.order_by(ProvisionRow.ord, ProvisionRow.id).offset(offset).limit(limit)
            return [row_to_provision(r) for r in s.scalars(q)]

    def get_provision(self, corpus: str, provision_id: str) -> Provision | None:
        with self.session() as s:
            r = s.scalar(
                select(ProvisionRow).where(ProvisionRow.corpus == corpus, ProvisionRow.id == provision_id)
            )
            return row_to_provision(r) if r else None

    def count_provisions(self, corpus: str) -> int:
        with self.session() as s:
            return len(s.scalars(select(ProvisionRow.uid).where(ProvisionRow.corpus == corpus)).all())

    def provision_ids(self, corpus: str) -> set[str]:
        """The ids of the corpus's stored provisions, without reading the rows (question gold checks)."""
        with self.session() as s:
            return set(s.scalars(select(ProvisionRow.id).where(ProvisionRow.corpus == corpus)))

    # --- references ---
    def replace_references(
        self, corpus: str, refs: Sequence[Reference], extractor: str = "rules"
    ) -> tuple[int, int]:
        """Make the current references of one extractor equal ``refs``; returns (added, retired).

        Only the differences are written; retired references stay readable for earlier editions.
        """
        with self.session() as s:
            return sync_references(s, corpus, refs, extractor)

    def references(self, corpus: str, dangling: bool | None = None) -> list[Reference]:
        """Current references of a corpus (all, only dangling, or only resolved)."""
        with self.session() as s:
            q = select(ReferenceRow).where(ReferenceRow.corpus == corpus, ReferenceRow.valid_to.is_(None))
            if dangling is True:
                q = q.where(ReferenceRow.target_id.is_(None))
            elif dangling is False:
                q = q.where(ReferenceRow.target_id.is_not(None))
            return [
                Reference(
                    corpus=r.corpus,
                    source_id=r.source_id,
                    raw=r.raw,
                    target_id=r.target_id,
                    reason=r.reason,
                    extractor=r.extractor,
                )
                for r in s.scalars(q.order_by(ReferenceRow.id))
            ]

    # --- editions ---
    def editions(self, corpus: str) -> list[Edition]:
        """Recorded editions of a corpus, oldest first."""
        with self.session() as s:
            return editions(s, corpus)

    def edition(self, corpus: str, number: int | None = None, as_of: str | None = None) -> Edition:
        """An edition by number, the one valid on a date, or (neither given) the one the ``provisions``
        table holds: what ask, show and eval compare with to read an edition from the table or the history."""
        with self.session() as s:
            return resolve(
                s, corpus, stored_number(s, corpus) if number is None and as_of is None else number, as_of
            )

    def current_edition(self, corpus: str) -> Edition:
        """The edition valid today (`bifrost.core.store.editions.current`), stored or not."""
        with self.session() as s:
            return current(s, corpus)

    def provisions_at(self, corpus: str, edition: int) -> list[Provision]:
        """Every provision valid in an edition (the current table plus the history)."""
        with self.session() as s:
            return provisions_at(s, corpus, edition)

    def references_at(self, corpus: str, edition: int) -> list[Reference]:
        """References valid in an edition."""
        with self.session() as s:
            return references_at(s, corpus, edition)

    def versions_of(self, corpus: str, provision_id: str) -> list[tuple[int, int, str, Provision]]:
        """Earlier versions of a provision, newest first: (valid_from, valid_to, change, provision)."""
        with self.session() as s:
            return versions_of(s, corpus, provision_id)

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
                        corpus=r.corpus,
                        provision_id=r.provision_id,
                        source_a=r.source_a,
                        source_b=r.source_b,
                        text_a=r.text_a,
                        text_b=r.text_b,
                        diff=r.diff,
                        ratio=r.ratio,
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

    def dispose(self, close: bool = True) -> None:
        """Empty the connection pool (the engine stays usable). ``close=False`` in a forked worker
        drops the parent's pooled connections without closing them (SQLAlchemy's advice for fork)."""
        self.engine.dispose(close=close)
