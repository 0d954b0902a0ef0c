"""A corpus's spec: where its default sources live and which jurisdiction pack reads it.

The jurisdiction packs (`bifrost.graph_builders.jurisdictions`) list the corpora they know; a corpus
they do not know can still be ingested from explicit paths.
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
    parts: tuple[str, ...] = ()  # the parts of its source files the corpus holds (empty: every part there)

    def default_sources(self, shared_dir: Path | None) -> list[Path]:
        """The corpus files under the shared folder, when they are all there."""
        if shared_dir is None or not self.shared_paths:
            return []
        paths = [shared_dir / p for p in self.shared_paths]
        return paths if all(p.exists() for p in paths) else []
