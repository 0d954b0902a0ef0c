"""Choosing the rule-based reference extractor by a corpus's jurisdiction."""

from __future__ import annotations

from typing import Any

from bifrost.core.errors import BifrostError
from bifrost.graph_builders.navigator.base import ReferenceExtractor


def reference_extractor_for(jurisdiction: str, corpus: str = "") -> ReferenceExtractor[Any]:
    """The reference extractor of ``jurisdiction`` (us-cfr, adgm); a one-line error for any other."""
    if jurisdiction == "us-cfr":
        from bifrost.graph_builders.navigator.references import CfrReferenceExtractor

        return CfrReferenceExtractor()
    if jurisdiction == "adgm":
        from bifrost.graph_builders.navigator.adgm_references import AdgmReferenceExtractor

        return AdgmReferenceExtractor()
    raise BifrostError(f"no reference extractor for jurisdiction {jurisdiction!r} (corpus {corpus!r})")
