"""What a jurisdiction pack provides: everything that reads one family of rulebooks (its citation grammar,
reference extractor, source formats, rulebook words, hierarchy and renumbering table), behind one protocol.

A pack is a package under `bifrost.graph_builders.jurisdictions` (or a module named in
BIFROST_JURISDICTION_PACKS) exposing ``PACK``; nothing outside a pack compares a jurisdiction's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from bifrost.core.corpora import CorpusSpec
from bifrost.core.errors import NotFoundError
from bifrost.core.types import Provision
from bifrost.graph_builders.citations.base import CitationGrammar
from bifrost.graph_builders.citations.words import RulebookWords
from bifrost.graph_builders.jurisdictions.hierarchy import ParentMap
from bifrost.graph_builders.navigator.base import ReferenceExtractor
from bifrost.graph_builders.navigator.successors import Successor
from bifrost.graph_builders.scrape.base import SourceFormat

Related = Callable[[str, str], bool]
"""``related(a, b)``: a is a strict ancestor or descendant of b (hierarchy credit in metrics)."""
SectionOf = Callable[[str], str]
"""``section_of(id)``: the section-level id of a provision."""
Normalize = Callable[[str], str]
"""A citation as written (by a person or a model) to the id the corpus uses; raises CitationError."""


@runtime_checkable
class Jurisdiction(Protocol):
    """One family of rulebooks, as the builders, retrieval and evaluation read it."""

    name: str
    """Stored with each corpus (``corpora.jurisdiction``)."""
    corpora: tuple[CorpusSpec, ...]
    """The corpora this pack knows: where their sources live."""
    reads_new_corpora: bool
    """Whether a corpus no pack knows is read with this pack (exactly one pack says so)."""
    formats: tuple[SourceFormat, ...]
    grammar: CitationGrammar
    words: RulebookWords
    normalize: Normalize | None
    """Citations a person or model writes from memory (None: ids nobody can know, such as passage UUIDs)."""

    def reference_extractor(self) -> ReferenceExtractor[Any]:
        """The rule-based extractor of this rulebook's cross-references."""
        ...

    def successors(self) -> Mapping[str, Successor]:
        """Renumbered provisions: old id -> where it went (empty when the pack ships no table)."""
        ...

    def loosen(self, text: str) -> str:
        """``text`` with this rulebook's loose citation forms ("1926.550,a,9") rewritten as printed, before
        the reference extractor reads a question; the text as written for most rulebooks."""
        ...

    def question_stand_ins(self, corpus: str, provisions: Sequence[Provision]) -> list[Provision]:
        """Where a question's citations are read from as if written inside the corpus (ADGM: each of its
        documents, whose rules are cited without the document's name); none for most rulebooks."""
        ...

    def hierarchy(self, provisions: Callable[[], Iterable[Provision]]) -> tuple[Related, SectionOf]:
        """Ancestry of provision ids, from the grammar or from ``provisions()`` (called only if needed)."""
        ...

    def download(self, spec: CorpusSpec, folder: Path, date: str = "current") -> list[Path]:
        """Fetch the corpus's sources from their publisher into ``folder`` (only when a user asks);
        NotFoundError when this pack cannot."""
        ...

    def ingest_options(self, shared_dir: Path | None) -> dict[str, Any]:
        """Options for this pack's parsers from the shared folder (the eCFR structure file, say)."""
        ...

    def place_of(self, written: str, corpus: str) -> Place:
        """Where a citation outside the corpus points, as a reader names it ("29 CFR 1910.147", "Occupational
        Safety and Health Standards (general industry)"), for a refusal that says where the answer lives."""
        ...


@dataclass(frozen=True)
class Place:
    """A citation outside the corpus as a reader names it, and what that part of the rules is about."""

    cited: str
    about: str = ""


class PackDefaults:
    """What most packs share, for a pack to inherit and override: no renumbering table, questions read as text
    of no place, the hierarchy from the corpus's own parent links, no publisher to download from, no parser
    options, citations read as written."""

    def successors(self) -> Mapping[str, Successor]:
        return {}

    def loosen(self, text: str) -> str:
        return text

    def question_stand_ins(self, corpus: str, provisions: Sequence[Provision]) -> list[Provision]:
        return []

    def hierarchy(self, provisions: Callable[[], Iterable[Provision]]) -> tuple[Related, SectionOf]:
        links = ParentMap.from_provisions(provisions())
        return links.related, links.section_of

    def download(self, spec: CorpusSpec, folder: Path, date: str = "current") -> list[Path]:
        raise NotFoundError(f"no sources given for corpus {spec.name!r} and none known; pass file paths")

    def ingest_options(self, shared_dir: Path | None) -> dict[str, Any]:
        return {}

    def place_of(self, written: str, corpus: str) -> Place:
        return Place(written.strip(), "")
