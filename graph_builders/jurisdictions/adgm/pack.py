"""The ADGM pack: 40 documents of passages, rules cited within their document, hierarchy from parent links."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bifrost.core.corpora import CorpusSpec
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.citations.words import GENERIC
from bifrost.graph_builders.jurisdictions.adgm.citation import AdgmGrammar
from bifrost.graph_builders.jurisdictions.base import PackDefaults, SourceFormat
from bifrost.graph_builders.navigator.base import ReferenceExtractor
from bifrost.graph_builders.navigator.named import QUESTION_SOURCE

NAME = "adgm"


class Adgm(PackDefaults):
    name = NAME
    corpora = (
        CorpusSpec(
            name="adgm",
            jurisdiction=NAME,
            shared_paths=tuple(f"corpora/adgm/documents/{n}.json" for n in range(1, 41)),
            description="Abu Dhabi Global Market rulebooks and guidance, 40 documents as passages (ObliQA)",
        ),
    )
    reads_new_corpora = False
    formats = (
        SourceFormat(
            ".json", "bifrost.graph_builders.jurisdictions.adgm.passages_json:parse_adgm_json", "json"
        ),
    )
    grammar = AdgmGrammar()
    words = GENERIC.adding(
        NAME,
        exception=(
            r"subject to\s+(?:the\s+)?"
            r"(?:rules?|sections?|paragraphs?|articles?|regulations?|chapters?|parts?|§|\(|\d)",
        ),
        authorities=("Regulator", "Registrar", "Chief Executive", "FSRA"),
        actors=(
            "Authorised Person",
            "Recognised Body",
            "Relevant Person",
            "Licensed Person",
            "Fund Manager",
            "Issuer",
        ),
    )
    normalize = None  # passage ids are UUIDs: nobody writes them from memory

    def reference_extractor(self) -> ReferenceExtractor[Any]:
        from bifrost.graph_builders.jurisdictions.adgm.references import AdgmReferenceExtractor

        return AdgmReferenceExtractor()

    def question_stand_ins(self, corpus: str, provisions: Sequence[Provision]) -> list[Provision]:
        """One per document: its rules are cited without the document's name, so a question is read in
        each."""
        documents = dict.fromkeys(p.document for p in provisions if p.document)
        return [
            Provision(corpus=corpus, id=f"{QUESTION_SOURCE}:{d}", kind=ProvisionKind.SECTION, document=d)
            for d in documents
        ]
