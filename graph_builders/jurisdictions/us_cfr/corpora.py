"""The corpora the US CFR pack knows (29 CFR Part 1926 and Parts 1900-1909) and which CFR parts of a source
file a corpus holds; the pack and the eCFR parsers both read them."""

from __future__ import annotations

import re

from bifrost.core.corpora import CorpusSpec

NAME = "us-cfr"

CORPORA = (
    CorpusSpec(
        name="osha-1926",
        jurisdiction=NAME,
        shared_paths=("corpora/osha-1926/part-1926.json",),
        ecfr_title=29,
        ecfr_part="1926",
        description="29 CFR Part 1926, OSHA Safety and Health Regulations for Construction",
        parts=("1926",),  # the shared file also holds Parts 1928 and 1949-1992
    ),
    CorpusSpec(
        name="osha-1900-1909",
        jurisdiction=NAME,
        shared_paths=("corpora/osha-1900-1909/part-1900-1909.json",),
        ecfr_title=29,
        description="29 CFR Parts 1902-1908: state plans, inspections, citations and the posting rule "
        "(1903), recordkeeping and reporting of injuries (1904), variances (1905), consultation (1908)",
    ),
)


def parts_of(corpus: str) -> tuple[str, ...] | None:
    """The parts a corpus holds of its source files: its spec's, the part an eCFR download name says
    ("title-29-part-1904"), else every part in the file (None)."""
    spec = next((c for c in CORPORA if c.name == corpus), None)
    if spec is not None and spec.parts:
        return spec.parts
    named = re.fullmatch(r"title-\d+-part-(\d+)", corpus)
    return (named.group(1),) if named else None
