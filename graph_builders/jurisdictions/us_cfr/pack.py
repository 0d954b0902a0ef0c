"""The US CFR pack: which corpora, formats, grammar, words and hierarchy make a CFR part readable."""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from bifrost.core.corpora import CorpusSpec
from bifrost.core.errors import NotFoundError
from bifrost.core.types import Provision
from bifrost.graph_builders.citations.words import GENERIC
from bifrost.graph_builders.jurisdictions.base import PackDefaults, Place, Related, SectionOf, SourceFormat
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrGrammar, normalize
from bifrost.graph_builders.jurisdictions.us_cfr.corpora import CORPORA, NAME, parts_of
from bifrost.graph_builders.jurisdictions.us_cfr.hierarchy import cfr_related, cfr_section_of
from bifrost.graph_builders.jurisdictions.us_cfr.loose_citations import loosen
from bifrost.graph_builders.navigator.base import ReferenceExtractor
from bifrost.graph_builders.navigator.successors import Successor, read_successors

_SOURCES = "bifrost.graph_builders.jurisdictions.us_cfr.sources"
STRUCTURE_FILE = "corpora/osha-1926/title-29-structure.json"
"""eCFR structure of Title 29 (subpart headings) in the shared folder."""


class UsCfr(PackDefaults):
    """29 CFR (and any CFR title read from eCFR files, HTML pages or PDFs)."""

    name = NAME
    corpora = CORPORA
    reads_new_corpora = True  # a corpus ingested from eCFR files under a new name
    formats = (
        SourceFormat(".json", f"{_SOURCES}.ecfr_json:parse_ecfr_json", "json"),
        SourceFormat(".xml", f"{_SOURCES}.ecfr_xml:parse_ecfr_xml", "markup"),
        SourceFormat(".html", f"{_SOURCES}.html_page:parse_html", "markup"),
        SourceFormat(".htm", f"{_SOURCES}.html_page:parse_html", "markup"),
        SourceFormat(".pdf", f"{_SOURCES}.pdf_document:parse_pdf", "pdf"),
    )
    grammar = CfrGrammar()
    words = GENERIC.adding(
        NAME, authorities=("Assistant Secretary", "OSHA"), actors=("employer", "employee", "contractor")
    )
    normalize = staticmethod(normalize)

    def reference_extractor(self) -> ReferenceExtractor[Any]:
        from bifrost.graph_builders.jurisdictions.us_cfr.references import CfrReferenceExtractor

        return CfrReferenceExtractor()

    def loosen(self, text: str) -> str:
        return loosen(text)

    def successors(self) -> Mapping[str, Successor]:
        table = resources.files(__package__).joinpath("successors.csv").read_text(encoding="utf-8")
        return read_successors(table.splitlines())

    def hierarchy(self, provisions: Callable[[], Iterable[Provision]]) -> tuple[Related, SectionOf]:
        return cfr_related, cfr_section_of  # the ids carry it: nothing to read

    def download(self, spec: CorpusSpec, folder: Path, date: str = "current") -> list[Path]:
        """eCFR XML of the spec's title and part (needs internet; cached in ``folder``)."""
        from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_download import download_part

        if not (spec.ecfr_title and spec.ecfr_part):
            raise NotFoundError(
                f"no sources given for corpus {spec.name!r} and no eCFR title and part known; pass file paths"
            )
        return [download_part(spec.ecfr_title, spec.ecfr_part, folder, date=date)]

    def parts_of(self, corpus: str) -> tuple[str, ...] | None:
        """The parts a corpus holds of its source files (`corpora.parts_of`)."""
        return parts_of(corpus)

    def place_of(self, written: str, corpus: str) -> Place:
        """ "1910.147(c)" -> "29 CFR 1910.147(c)", about "Occupational Safety and Health Standards (general
        industry)": the title the corpus's spec names (29 for an unknown corpus) and the part's heading."""
        spec = next((c for c in self.corpora if c.name == corpus), None)
        title = spec.ecfr_title if spec is not None and spec.ecfr_title else 29
        part = re.match(r"\s*(\d+)", written)
        heading, plain = part_headings().get(part.group(1), ("", "")) if part else ("", "")
        about = f"{heading} ({plain})" if heading and plain else heading
        return Place(f"{title} CFR {written.strip()}", about)

    def ingest_options(self, shared_dir: Path | None) -> dict[str, Any]:
        structure = shared_dir / STRUCTURE_FILE if shared_dir is not None else None
        return {"structure_path": structure} if structure is not None and structure.exists() else {}


@lru_cache(maxsize=1)
def part_headings() -> dict[str, tuple[str, str]]:
    """Title 29's OSHA parts: their eCFR heading and, for the ones people name so, a plain name (1910: general
    industry); from the pack's ``title29_parts.csv``."""
    table = resources.files(__package__).joinpath("title29_parts.csv").read_text(encoding="utf-8")
    return {
        row["part"]: (row["heading"], row["in_plain_words"]) for row in csv.DictReader(table.splitlines())
    }
