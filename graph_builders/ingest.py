"""Ingest regulation sources into the SQL store as a new edition of their corpus.

A bad file is reported in one line and skipped; the others are still stored. One ingest is one
transaction (each file in its own savepoint), so a kill leaves the previous edition whole.
Provisions a re-ingested file no longer has are retired (kept in the history); changed ones
keep their previous version. When a second source carries
a provision already stored from another source, the two are reconciled (difflib): equal texts
are marked verified, different texts become review items; neither is silently dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import date as Date
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from bifrost.core.errors import BifrostError, SourceParseError
from bifrost.core.settings import Settings
from bifrost.core.store.editions import next_edition, parse_date, record_edition, retire
from bifrost.core.store.engine import sql_error_line
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edition, IngestReport, ParsedDocument, Provision, ReviewItem, content_hash
from bifrost.graph_builders.jurisdictions.registry import corpus_spec, pack_of
from bifrost.graph_builders.scrape.base import SourceFormat
from bifrost.graph_builders.scrape.reconcile import review_item
from bifrost.graph_builders.scrape.sniff import read_source

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


def parse_sources(
    paths: Sequence[Path],
    corpus: str,
    formats: Sequence[SourceFormat],
    report: IngestReport,
    progress: Progress | None = None,
    **opts,
) -> list[ParsedDocument]:
    """Parse every path with ``formats`` (the corpus's pack's); failures go to ``report.errors`` as one line
    naming the file."""
    docs = []
    for path in paths:
        try:
            doc = read_source(Path(path), corpus, formats, **opts)
        except SourceParseError as e:
            report.errors.append(str(e))
            log.warning("%s", e)
        except (OSError, BifrostError) as e:
            report.errors.append(f"{path}: {e}")
            log.warning("%s: %s", path, e)
        else:
            docs.append(doc)
            report.oddities.extend(doc.oddities)
        if progress:
            progress(str(path))
    return docs


def split_against_stored(
    stored: dict[str, Provision], doc: ParsedDocument
) -> tuple[list[Provision], set[str], list[ReviewItem]]:
    """Provisions to write, ids verified by a second source, and review items for disagreements.

    A provision stored from the same document (or new) is written (an edition update); one
    stored from another document is compared with it instead and never overwritten.
    """
    name = doc.document.name
    write: list[Provision] = []
    verified: set[str] = set()
    review: list[ReviewItem] = []
    for p in doc.provisions:
        p = p if p.document else p.model_copy(update={"document": name})
        old = stored.get(p.id)
        if old is None or old.document in (None, name):
            write.append(p)
            continue
        item = review_item(old, p, old.document, name)
        if item.ratio >= 1.0:
            verified.add(p.id)
        else:
            review.append(item)
    return write, verified, review


def _store_one(sql: SqlStore, s: Session, doc: ParsedDocument, edition: int, report: IngestReport) -> None:
    """Write one document's provisions into the open transaction, retiring what it no longer has."""
    corpus = doc.document.corpus
    stored = sql.provisions_in(s, corpus, [p.id for p in doc.provisions])
    write, verified, review = split_against_stored(stored, doc)
    sql.record_document(s, doc.document)
    res = sql.upsert_provisions(s, write, edition=edition)
    if verified:
        sql.upsert_provisions(s, [stored[i] for i in verified], verified_ids=verified)
    removed = retire(s, corpus, doc.document.name, {p.id for p in doc.provisions}, edition)
    report.review_items += sql.add_review_items(s, review)
    report.added += len(res.added)
    report.updated.extend(res.updated)
    report.removed.extend(removed)
    report.unchanged += res.unchanged
    report.verified += len(verified)


def store_documents(
    sql: SqlStore,
    docs: Sequence[ParsedDocument],
    report: IngestReport,
    *,
    date: str | None = None,
    allow_older: bool = False,
) -> None:
    """Store parsed documents as one new edition of their corpus, in one transaction.

    Each document is written inside a savepoint: one that fails is reported and left out, the
    others still form the edition. A kill before the commit leaves the previous edition whole.
    Nothing changed means no edition is recorded.
    """
    corpus = docs[0].document.corpus
    when = parse_date(date, "--edition-date") if date else (source_date(docs) or Date.today().isoformat())
    with sql.session() as s:
        number = next_edition(s, corpus, when, allow_older=allow_older)
        sources = []
        for doc in docs:
            before = (report.added, len(report.updated), len(report.removed))
            try:
                with s.begin_nested():
                    _store_one(sql, s, doc, number, report)
            except SQLAlchemyError as e:
                report.errors.append(f"{doc.document.name}: not stored: {sql_error_line(sql.url, e)}")
                continue
            except BifrostError as e:
                report.errors.append(f"{doc.document.name}: not stored: {e}")
                continue
            report.files_ok.append(doc.document.name)
            if (report.added, len(report.updated), len(report.removed)) != before:
                sources.append(doc.document)
        if sources:
            report.edition = Edition(
                corpus=corpus,
                number=number,
                date=when,
                sources=tuple(d.name for d in sources),
                content_hash=content_hash(*sorted(d.checksum for d in sources)),
                added=report.added,
                changed=len(report.updated),
                removed=len(report.removed),
            )
            record_edition(s, report.edition)


def source_date(docs: Sequence[ParsedDocument]) -> str | None:
    """The latest edition date the sources state (eCFR 'amendment date' and the like), if any."""
    dates = []
    for d in docs:
        try:
            dates.append(Date.fromisoformat((d.document.edition or "")[:10]).isoformat())
        except ValueError:
            continue
    return max(dates, default=None)


def ingest_sources(
    sql: SqlStore,
    corpus: str,
    paths: Sequence[Path],
    *,
    jurisdiction: str | None = None,
    progress: Progress | None = None,
    date: str | None = None,
    allow_older: bool = False,
    **opts,
) -> IngestReport:
    """Parse and store sources for one corpus as a new edition; returns what happened, file by file.
    ``jurisdiction`` names the pack that reads them (default: the corpus's stored one, else its spec's).

    ``date`` is the edition's date (default: the date the sources state, else today); an edition
    older than the corpus's current one is refused unless ``allow_older``.
    """
    report = IngestReport(corpus=corpus)
    pack = pack_of(corpus, jurisdiction or sql.jurisdiction(corpus))
    docs = parse_sources(paths, corpus, pack.formats, report, progress, **opts)
    if docs:
        sql.ensure_corpus(corpus, pack.name)
        store_documents(sql, docs, report, date=date, allow_older=allow_older)
    return report


def default_sources(settings: Settings, corpus: str) -> list[Path]:
    """The corpus's files from the shared folder, else those its pack downloads for an online user (eCFR
    XML)."""
    spec = corpus_spec(corpus)
    paths = spec.default_sources(settings.resolve_shared_dir())
    if paths:
        return paths
    log.info("no local copy of %s; asking its publisher", corpus)
    return pack_of(corpus).download(spec, settings.home / "downloads")
