"""Cross-references in statute text: "section 11(c)", "sections 8 and 9", "subsection (c) of section 10",
"paragraph (2) of subsection (b)" and "subsection (a) of this section" (within the section that says it).
References to other acts ("section 2112 of title 28, United States Code") are not the act's own."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bifrost.core.types import Provision, Reference
from bifrost.graph_builders.jurisdictions.us_statute.citation import PREAMBLE

_SUB = r"(?:\([0-9A-Za-z]{1,5}\))+"
CITED = re.compile(
    rf"\b(?:(?:sub)?section|paragraph|subparagraph|clause)\s+(?P<subs>{_SUB})\s+of\s+section\s+(?P<sec>\d+)"
    rf"(?P<more>{_SUB})?"
    rf"|\b(?:(?:sub)?section|paragraph)\s+(?P<subs2>{_SUB})\s+of\s+this\s+section"
    rf"|\bsections?\s+(?P<sec2>\d+)(?P<subs3>{_SUB})?",
    re.I,
)
_OTHER_ACT = re.compile(r"^\s*(?:of|,)\s*(?:title\s+\d+|the\s+(?!Act\b)[A-Z]\w+)", re.I)


class StatuteReferenceExtractor:
    name = "us-statute-sections"

    def index(self, provisions: Iterable[Provision]) -> frozenset[str]:
        return frozenset(p.id for p in provisions)

    def extract(self, provision: Provision, known: frozenset[str]) -> list[Reference]:
        own_section = provision.id.split("(")[0]
        out: dict[str, Reference] = {}
        for m in CITED.finditer(provision.text or ""):
            if _OTHER_ACT.match(provision.text[m.end() : m.end() + 40]):
                continue  # "section 2112 of title 28": another act's section
            target = _target(m, own_section)
            if target is None or target == provision.id or target in out:
                continue
            found = target in known
            out[target] = Reference(
                corpus=provision.corpus,
                source_id=provision.id,
                raw=m.group(0),
                target_id=target if found else None,
                reason=None if found else f"not_in_corpus: {target}",
                extractor=self.name,
            )
        return list(out.values())


def _target(m: re.Match, own_section: str) -> str | None:
    if m.group("sec"):
        return (
            m.group("sec") + (m.group("more") or "") if m.group("more") else m.group("sec") + m.group("subs")
        )
    if m.group("subs2"):
        return None if own_section == PREAMBLE else own_section + m.group("subs2")
    return m.group("sec2") + (m.group("subs3") or "")
