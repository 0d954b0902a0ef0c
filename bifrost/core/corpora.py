"""Known corpora: where their sources live and which jurisdiction's grammar reads them.

A corpus not listed here can still be ingested from explicit paths; it is then treated as
US CFR text unless a jurisdiction is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CorpusSpec:
    """How to find a corpus's default sources and how to read its citations."""

    name: str
    jurisdiction: str
    shared_paths: tuple[str, ...] = ()
    ecfr_title: int | None = None
    ecfr_part: str | None = None
    description: str = ""

    def default_sources(self, shared_dir: Path | None) -> list[Path]:
        """The corpus files under the shared folder, when they are all there."""
        if shared_dir is None or not self.shared_paths:
            return []
        paths = [shared_dir / p for p in self.shared_paths]
        return paths if all(p.exists() for p in paths) else []


KNOWN_CORPORA: dict[str, CorpusSpec] = {
    "osha-1926": CorpusSpec(
        name="osha-1926",
        jurisdiction="us-cfr",
        shared_paths=("corpora/osha-1926/part-1926.json",),
        ecfr_title=29,
        ecfr_part="1926",
        description="29 CFR Part 1926, OSHA Safety and Health Regulations for Construction",
    ),
    "adgm": CorpusSpec(
        name="adgm",
        jurisdiction="adgm",
        shared_paths=tuple(f"corpora/adgm/documents/{n}.json" for n in range(1, 41)),
        description="Abu Dhabi Global Market rulebooks and guidance, 40 documents as passages (ObliQA)",
    ),
}


def corpus_spec(name: str) -> CorpusSpec:
    """The spec of a known corpus, or a generic US-CFR spec for a new name."""
    return KNOWN_CORPORA.get(name, CorpusSpec(name=name, jurisdiction="us-cfr"))


def structure_file(shared_dir: Path | None) -> Path | None:
    """eCFR structure of Title 29 (subpart headings), when present."""
    if shared_dir is None:
        return None
    p = shared_dir / "corpora/osha-1926/title-29-structure.json"
    return p if p.exists() else None
