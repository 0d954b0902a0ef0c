"""Choosing the rule-based reference extractor by a corpus's jurisdiction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bifrost.core.errors import BifrostError
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.navigator.base import ReferenceExtractor
from bifrost.graph_builders.navigator.named import QUESTION_SOURCE, NamedFinder


def reference_extractor_for(jurisdiction: str, corpus: str = "") -> ReferenceExtractor[Any]:
    """The reference extractor of ``jurisdiction`` (us-cfr, adgm); a one-line error for any other."""
    if jurisdiction == "us-cfr":
        from bifrost.graph_builders.navigator.references import CfrReferenceExtractor

        return CfrReferenceExtractor()
    if jurisdiction == "adgm":
        from bifrost.graph_builders.navigator.adgm_references import AdgmReferenceExtractor

        return AdgmReferenceExtractor()
    raise BifrostError(f"no reference extractor for jurisdiction {jurisdiction!r} (corpus {corpus!r})")


def named_finder_for(jurisdiction: str, corpus: str, provisions: Sequence[Provision]) -> NamedFinder:
    """What finds the provisions a question names in ``corpus``: its jurisdiction's extractor and successor
    table; a rulebook of many documents (ADGM) reads the question in each document, as its rules are cited
    without the document's name."""
    from bifrost.graph_builders.navigator.successors import successors_for

    extractor = reference_extractor_for(jurisdiction, corpus)
    stand_ins: list[Provision] = []
    if jurisdiction == "adgm":
        documents = dict.fromkeys(p.document for p in provisions if p.document)
        stand_ins = [Provision(corpus=corpus, id=f"{QUESTION_SOURCE}:{d}", kind=ProvisionKind.SECTION, document=d)
                     for d in documents]
    return NamedFinder.over(corpus, extractor, provisions, stand_ins, successors_for(jurisdiction))
