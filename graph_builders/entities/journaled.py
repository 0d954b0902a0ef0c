"""An extractor wrapped with the extraction journal: an unchanged provision is never extracted again.

The journal is keyed by (corpus, provision id, content hash, extractor version), so a provision
whose text (or heading, kind, parent) changed, or a new extractor version, is extracted anew and
every other provision is read back. Used for the offline spaCy extractor; the LLM extractor
journals each provision itself (it must, to resume a build killed halfway).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from bifrost.core.types import Extraction, Provision, make_uid
from bifrost.graph_builders.entities.base import EntityExtractor, ReportsFailures
from bifrost.graph_builders.entities.checkpoint import ExtractionJournal


class JournaledExtractor:
    """`EntityExtractor` that serves journaled extractions and journals the inner extractor's new ones."""

    def __init__(self, inner: EntityExtractor, journal: ExtractionJournal, version: str) -> None:
        if not version:
            raise ValueError("a journaled extractor needs a version (part of the journal key)")
        self.inner = inner
        self.name = inner.name
        self.journal = journal
        self.version = version
        self._known: dict[str, dict[tuple[str, str], Extraction]] = {}
        self.from_journal = 0  # provisions read back from the journal
        self.extracted = 0  # provisions sent to the inner extractor

    def _journaled(self, batch: list[Provision]) -> dict[str, Extraction]:
        """The batch's journaled extractions by uid, read once per key (only the batch's keys are read)."""
        for corpus in {p.corpus for p in batch}:
            known = self._known.setdefault(corpus, {})
            missing = [(p.id, p.hash) for p in batch if p.corpus == corpus and (p.id, p.hash) not in known]
            if missing:
                known.update(self.journal.find(corpus, self.version, missing))
        found = {}
        for p in batch:
            ex = self._known[p.corpus].get((p.id, p.hash))
            if ex is not None:
                found[p.uid] = ex
        return found

    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        """Extractions in input order; only provisions missing from the journal reach the inner extractor."""
        batch = list(provisions)
        found = self._journaled(batch)
        todo = [p for p in batch if p.uid not in found]
        self.from_journal += len(batch) - len(todo)
        if todo:
            self.extracted += len(todo)
            by_uid = {p.uid: p for p in todo}
            fresh = [
                ex for ex in self.inner.extract_many(todo) if make_uid(ex.corpus, ex.provision_id) in by_uid
            ]
            pairs = [(by_uid[make_uid(ex.corpus, ex.provision_id)], ex) for ex in fresh]
            self.journal.put_many(pairs, self.version)
            for p, ex in pairs:
                self._known[p.corpus][(p.id, p.hash)] = ex
                found[p.uid] = ex
        for p in batch:
            if p.uid in found:
                yield found[p.uid]

    def failure_reasons(self) -> dict[str, str]:
        """The inner extractor's reasons for the provisions it left out, if it gives any."""
        return self.inner.failure_reasons() if isinstance(self.inner, ReportsFailures) else {}
