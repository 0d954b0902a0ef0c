"""Ingest regulation sources into the SQL store, one file at a time.

A bad file is reported in one line and skipped; the others are still stored. Each file is
stored in its own transaction, so nothing stored before is lost. When a second source carries
a provision already stored from another source, the two are reconciled (difflib): equal texts
are marked verified, different texts become review items; neither is silently dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from bifrost.core.corpora import corpus_spec
from bifrost.core.errors import BifrostError, NotFoundError, SourceParseError
from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import IngestReport, ParsedDocument, Provision, ReviewItem
from graph_builders.scrape.reconcile import review_item
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


def store_documents(sql: SqlStore, docs: Sequence[ParsedDocument], report: IngestReport) -> None:
    """Store parsed documents one by one, each in its own transaction."""
    for doc in docs:
        stored = {p.id: p for p in sql.provisions(doc.document.corpus, [p.id for p in doc.provisions])}
        write, verified, review = split_against_stored(stored, doc)
        try:
            with sql.session() as s:
                sql.record_document(s, doc.document)
                res = sql.upsert_provisions(s, write)
                if verified:
                    sql.upsert_provisions(s, [stored[i] for i in verified], verified_ids=verified)
                report.review_items += sql.add_review_items(s, review)
        except BifrostError as e:
            report.errors.append(f"{doc.document.name}: not stored: {e}")
            continue
        report.files_ok.append(doc.document.name)
        report.added += len(res.added)
        report.updated.extend(res.updated)
        report.unchanged += res.unchanged
        report.verified += len(verified)


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


def default_sources(settings: Settings, corpus: str) -> list[Path]:
    """The corpus's files from the shared folder, else eCFR XML downloaded for an online user."""
    spec = corpus_spec(corpus)
    paths = spec.default_sources(settings.resolve_shared_dir())
    if paths:
        return paths
    if spec.ecfr_title and spec.ecfr_part:
        from graph_builders.scrape.ecfr_download import download_part

        log.info("no local copy of %s; downloading eCFR title %s part %s", corpus, spec.ecfr_title, spec.ecfr_part)
        return [download_part(spec.ecfr_title, spec.ecfr_part, settings.home / "downloads")]
    raise NotFoundError(f"no sources given for corpus {corpus!r} and none known; pass file paths")
