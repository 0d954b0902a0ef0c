"""Ingest regulation sources into the SQL store, one file at a time.

A bad file is reported in one line and skipped; the others are still stored. Each file is
stored in its own transaction, so nothing stored before is lost. When two sources carry the
same provision, they are reconciled: equal texts are marked verified, different texts become
review items (never silently dropped).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from bifrost.errors import BifrostError, SourceParseError
from bifrost.store.sql_store import SqlStore
from bifrost.types import IngestReport, ParsedDocument
from graph_builders.scrape.reconcile import reconcile
from graph_builders.scrape.sniff import read_source

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


def parse_sources(
    paths: Sequence[Path], corpus: str, report: IngestReport, progress: Progress | None = None, **opts
) -> list[ParsedDocument]:
    """Parse every path; failures go to ``report.errors`` as one line naming the file."""
    docs = []
    for path in paths:
        try:
            doc = read_source(Path(path), corpus, **opts)
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


def store_documents(sql: SqlStore, docs: Sequence[ParsedDocument], report: IngestReport) -> None:
    """Store parsed documents; the first document carrying a provision is its primary source."""
    primary: ParsedDocument | None = None
    for doc in docs:
        verified: set[str] = set()
        review = []
        provisions = list(doc.provisions)
        if primary is not None:
            result = reconcile(primary, doc)
            verified = set(result.verified)
            review = list(result.review_items)
            only_here = set(result.only_in_secondary)
            provisions = [p for p in provisions if p.id in only_here]
            report.verified += len(verified)
        try:
            with sql.session() as s:
                sql.record_document(s, doc.document)
                res = sql.upsert_provisions(s, provisions)
                if verified:
                    sql.upsert_provisions(s, [p for p in primary.provisions if p.id in verified], verified_ids=verified)
                report.review_items += sql.add_review_items(s, review)
        except BifrostError as e:
            report.errors.append(f"{doc.document.name}: not stored: {e}")
            continue
        report.files_ok.append(doc.document.name)
        report.added += len(res.added)
        report.updated.extend(res.updated)
        report.unchanged += res.unchanged
        if primary is None:
            primary = doc


def ingest_sources(
    sql: SqlStore,
    corpus: str,
    paths: Sequence[Path],
    *,
    jurisdiction: str = "us-cfr",
    progress: Progress | None = None,
    **opts,
) -> IngestReport:
    """Parse and store sources for one corpus; returns what happened, file by file."""
    report = IngestReport(corpus=corpus)
    docs = parse_sources(paths, corpus, report, progress, **opts)
    if docs:
        sql.ensure_corpus(corpus, jurisdiction)
        store_documents(sql, docs, report)
    return report
