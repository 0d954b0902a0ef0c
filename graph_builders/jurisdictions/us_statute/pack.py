"""The US statute pack: the OSH Act as a corpus of its own (sections and their subdivisions, its citation
form, its cross-references)."""

from __future__ import annotations

from bifrost.core.corpora import CorpusSpec
from bifrost.graph_builders.citations.words import GENERIC
from bifrost.graph_builders.jurisdictions.base import PackDefaults, SourceFormat
from bifrost.graph_builders.jurisdictions.us_statute.citation import StatuteGrammar, normalize
from bifrost.graph_builders.jurisdictions.us_statute.references import StatuteReferenceExtractor

NAME = "us-statute"
_SOURCES = "bifrost.graph_builders.jurisdictions.us_statute.statute_json"


class UsStatute(PackDefaults):
    """A US statute kept as a JSON object of sections (the OSH Act of 1970, as amended)."""

    name = NAME
    corpora = (
        CorpusSpec(
            name="osh-act",
            jurisdiction=NAME,
            shared_paths=("corpora/osh-act/osha-act.json",),
            description="The Occupational Safety and Health Act of 1970 (Public Law 91-596), as amended: "
            "employers' duties (section 5), inspections (8), citations (9), protection from retaliation "
            "(11(c)), penalties (17), state plans (18)",
        ),
    )
    reads_new_corpora = False
    formats = (SourceFormat(".json", f"{_SOURCES}:parse_statute_json", "json"),)
    grammar = StatuteGrammar()
    words = GENERIC.adding(
        NAME, authorities=("Secretary", "Commission", "Director"), actors=("employer", "employee")
    )
    normalize = staticmethod(normalize)

    def reference_extractor(self) -> StatuteReferenceExtractor:
        return StatuteReferenceExtractor()
