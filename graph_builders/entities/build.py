"""Build the Entity Network Graph from provisions: extract, refine, write graph and embeddings.

Independent of where provisions come from and of which extractor runs (offline or agents).
Section nodes must already be in the graph store (the navigator build writes them), since
MENTIONED_IN edges point at them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from itertools import islice

from sqlalchemy.orm import Session

from bifrost.core.errors import EntityBuildAborted, ModelUnavailableError
from bifrost.core.graph.base import GraphStore
from bifrost.core.types import Entity, Extraction, Provision
from bifrost.graph_builders.entities.base import (
    EntityBuildReport,
    EntityExtractor,
    EntitySyncReport,
    ReportsFailures,
)
from bifrost.graph_builders.entities.journaled import JournaledExtractor
from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner
from bifrost.graph_builders.entities.sync import (
    WantedNetwork,
    graph_edges,
    stored_entities,
    sync_graph,
    sync_sql,
)
from bifrost.graph_builders.entities.vector_cache import CachedEmbedder

__all__ = ["build_entity_network", "graph_edges", "refine_extractions", "check_failures", "wanted_network"]

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (provisions done, total)
SessionScope = Callable[[], AbstractContextManager[Session]]  # commits on exit, e.g. SqlStore.session


MAX_REASON = 300


def _one_line(text: str, limit: int = MAX_REASON) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _extract_some(
    extractor: EntityExtractor, provisions: list[Provision], failed: list[str]
) -> list[Extraction]:
    """Extractions of ``provisions``; each provision the extractor left out is added to ``failed``."""
    wanted = {p.id for p in provisions}
    out = [ex for ex in extractor.extract_many(provisions) if ex.provision_id in wanted]
    done = {ex.provision_id for ex in out}
    reasons = extractor.failure_reasons() if isinstance(extractor, ReportsFailures) else {}
    for p in provisions:
        if p.id not in done:
            failed.append(f"{p.id}: {_one_line(reasons.get(p.id, 'the extractor returned no extraction'))}")
    return out


def _extract_batch(extractor: EntityExtractor, batch: list[Provision], failed: list[str]) -> list[Extraction]:
    """Extractions of a batch; when the batch raises, each provision is retried alone.

    A `ModelUnavailableError` (no model, bad key, unreachable server) stops the build."""
    try:
        return _extract_some(extractor, batch, failed)
    except ModelUnavailableError:
        raise
    except Exception as e:  # noqa: BLE001 - one bad provision must not stop the build
        log.warning("extraction of a batch of %d failed (%s); retrying one by one", len(batch), e)
    out: list[Extraction] = []
    for p in batch:
        try:
            out += _extract_some(extractor, [p], failed)
        except ModelUnavailableError:
            raise
        except Exception as e:  # noqa: BLE001
            failed.append(f"{p.id}: extraction failed: {_one_line(f'{e.__class__.__name__}: {e}')}")
    return out


def check_failures(report: EntityBuildReport, attempted: int, max_failure_share: float) -> None:
    """Raise `EntityBuildAborted` when more than ``max_failure_share`` of the attempted provisions failed, or
    some failed and nothing was extracted from the rest (whatever the share allows: a build that extracted
    nothing never replaces a network)."""
    failed = len(report.failed)
    if not attempted or not failed or (failed / attempted <= max_failure_share and report.mentions > 0):
        return
    limit = (
        f"at most {max_failure_share:.0%} may fail, setting BIFROST_MAX_EXTRACTION_FAILURE_SHARE"
        if failed / attempted > max_failure_share
        else "nothing was extracted"
    )
    raise EntityBuildAborted(
        report.corpus,
        f"extraction failed for {failed} of {attempted} provisions ({failed / attempted:.0%}; {limit}); "
        f"first: {_one_line(report.failed[0], 200)}",
        report,
    )


def refine_extractions(refiner: IncrementalEntityRefiner, extractions: Sequence[Extraction]) -> int:
    """Feed extractions to the refiner in one batch: entities first (with labels), then triples.

    Returns the number of entity mentions. Names that normalize to nothing (punctuation only)
    are dropped with their triples. Same result as feeding the extractions one by one."""
    mentions: list[tuple[str, str, str]] = []
    triples: list[tuple[str, str, str, str]] = []
    for ex in extractions:
        labels = {e.name: e.label for e in ex.entities}
        ok = {e.name for e in ex.entities if refiner.normalizer(e.name, e.label)}
        ok |= {
            n for t in ex.triples for n in (t.head, t.tail) if n not in labels and refiner.normalizer(n, "")
        }
        mentions += [(e.name, e.label, ex.provision_id) for e in ex.entities if e.name in ok]
        triples += [
            (t.head, t.relation, t.tail, ex.provision_id) for t in ex.triples if t.head in ok and t.tail in ok
        ]
    refiner.add_many(mentions)
    refiner.add_triples(triples)
    return len(mentions)


def wanted_network(refiner: IncrementalEntityRefiner, corpus: str) -> WantedNetwork:
    """The refined network with its vectors (read from the refiner; triples are [h, r, t] concatenations)."""
    _, ent_matrix = refiner.entity_matrix()
    rels, rel_matrix = refiner.relation_matrix()
    triples, tri_matrix = refiner.triple_matrix(corpus)
    return WantedNetwork(corpus, refiner.entities(corpus), ent_matrix, rels, rel_matrix, triples, tri_matrix)


def store_network(
    want: WantedNetwork,
    graph_store: GraphStore | None,
    session_scope: SessionScope | None,
    embedder: object,
    changes: EntitySyncReport,
) -> None:
    """Write only the differences: the graph store first, then SQL in one transaction (the record).

    A run killed between the two leaves SQL at the previous network; the next run compares the
    graph store with its own inventory and with that previous network, so it repairs both."""
    stored: dict[str, tuple[Entity, bytes]] | None = None
    if session_scope is not None:
        with session_scope() as s:
            stored = stored_entities(s, want.corpus)
    if graph_store is not None:
        sync_graph(graph_store, want, {name: e for name, (e, _) in (stored or {}).items()}, changes)
    if session_scope is not None:
        with session_scope() as s:
            sync_sql(s, want, changes, stored)
            if isinstance(embedder, CachedEmbedder):
                embedder.save(s)


def _journal_counts(extractor: EntityExtractor, report: EntityBuildReport) -> None:
    """Provisions read back from the journal vs sent to the extractor (model or spaCy) in the last batch."""
    if isinstance(extractor, JournaledExtractor):
        report.from_journal, report.extracted = extractor.from_journal, extractor.extracted
        return
    counts = getattr(extractor, "report", None)  # the LLM extractor's per-call report
    if counts is not None and hasattr(counts, "from_journal"):
        report.from_journal += counts.from_journal
        report.extracted += counts.extracted


def build_entity_network(
    provisions: Sequence[Provision],
    extractor: EntityExtractor,
    refiner: IncrementalEntityRefiner,
    graph_store: GraphStore | None,
    session_scope: SessionScope | None,
    corpus: str,
    progress: Progress | None = None,
    batch_size: int = 64,
    max_failure_share: float = 0.2,
) -> EntityBuildReport:
    """Extract, refine and write the Entity Network of ``provisions`` (all of ``corpus``).

    ``session_scope`` opens a committing transaction (``SqlStore.session`` or
    ``sessionmaker.begin``); ``None`` skips the SQL embeddings, a ``None`` graph store skips the graph.
    The stored network is made equal to the refined one, writing only differences (`sync.py`):
    with a journaled extractor and a `CachedEmbedder` in the refiner, provisions unchanged since the
    last build are not extracted again and known names are not embedded again; the refiner is
    replayed over every extraction in provision order, so the result equals a clean build.

    Nothing is written until every provision was tried: when the extractor stops (model
    unavailable or unreachable) or more than ``max_failure_share`` of the provisions failed,
    `EntityBuildAborted` is raised and the stored network (SQL and graph store) is left as it was.
    """
    if batch_size <= 0:
        raise ValueError(f"batch_size must be > 0, got {batch_size}")
    if not 0.0 <= max_failure_share <= 1.0:
        raise ValueError(f"max_failure_share must be within [0, 1], got {max_failure_share}")
    started = time.perf_counter()
    report = EntityBuildReport(corpus=corpus, extractor=getattr(extractor, "name", type(extractor).__name__))
    foreign = [p.id for p in provisions if p.corpus != corpus]
    if foreign:
        raise ValueError(f"provisions of another corpus given for corpus {corpus!r}: {foreign[:5]}")
    todo = [p for p in provisions if not p.reserved]
    it = iter(todo)
    done = 0
    while batch := list(islice(it, batch_size)):
        try:
            extractions = _extract_batch(extractor, batch, report.failed)
        except ModelUnavailableError as e:
            raise EntityBuildAborted(corpus, str(e), report) from e
        _journal_counts(extractor, report)
        report.mentions += refine_extractions(refiner, extractions)
        report.section_refs += sum(len(ex.section_refs) for ex in extractions)
        done += len(batch)
        report.provisions_processed = done
        if progress is not None:
            progress(done, len(todo))
    check_failures(report, len(todo), max_failure_share)
    want = wanted_network(refiner, corpus)
    entities, triples = want.entities, want.triples
    store_network(want, graph_store, session_scope, refiner.embedder, report.changes)
    if isinstance(refiner.embedder, CachedEmbedder):
        report.texts_embedded = refiner.embedder.computed
    report.entities = len(entities)
    report.relations = len(triples)
    report.relation_types = len(refiner.relations())
    report.seconds = round(time.perf_counter() - started, 3)
    log.info(
        "entity network of %s: %d entities, %d triples in %.1fs",
        corpus,
        report.entities,
        report.relations,
        report.seconds,
    )
    return report
