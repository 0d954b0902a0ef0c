"""Rule-based cross-reference extraction for the Document Navigator Graph (REFERS_TO edges).

Schema-locked: a reference becomes an edge only if the CFR grammar parses its target and the
corpus holds it; everything else is kept as a dangling `Reference` with its raw text and reason.
The patterns live in `cfr_reference_text`, the corpus index in `cfr_index`, lookups in `cfr_resolve`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bifrost.core.errors import CitationError
from bifrost.core.types import Provision, Reference
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrCitation, expand_range
from bifrost.graph_builders.jurisdictions.us_cfr.index import KnownProvisions
from bifrost.graph_builders.jurisdictions.us_cfr.reference_text import (
    CONSENSUS_BEFORE,
    HEADING_BEFORE,
    LABEL_CHAIN,
    RANGE_SEP,
    REFERENCE,
    SECTION_TOKEN,
    SUBPART_LETTERS,
    labels_of,
    parse_prefix,
    relative_labels,
    valid_labels,
)
from bifrost.graph_builders.jurisdictions.us_cfr.resolve import (
    Hit,
    find_subpart,
    lookup,
    lookup_range,
    tree_ancestors,
)

EXTRACTOR_NAME = "rules"


@dataclass(frozen=True)
class _Context:
    """Where a provision sits: its section, paragraph labels and subpart."""

    provision: Provision
    section: CfrCitation | None
    labels: tuple[str, ...]
    subpart: str | None
    part: str


class CfrReferenceExtractor:
    """Extracts CFR cross-references (absolute, relative, ranges, enumerations, scopes, external)."""

    name = EXTRACTOR_NAME

    def __init__(self, default_part: str = "1926") -> None:
        self.default_part = default_part

    def index(self, provisions: Iterable[Provision]) -> KnownProvisions:
        """The index `extract` resolves against: the corpus's ids with their tree parents."""
        return KnownProvisions.from_provisions(provisions)

    def extract(self, provision: Provision, known: KnownProvisions) -> list[Reference]:
        """References in `provision.text`, deduplicated per target, without self-references."""
        ctx = self._context(provision, known)
        text = provision.text
        out: list[Reference] = []
        seen: set[str] = set()
        for m in REFERENCE.finditer(text):
            for hit in self._resolve(m, ctx, known):
                if hit.target is not None and hit.target == provision.id:
                    continue
                if hit.target is not None and HEADING_BEFORE.search(text[max(0, m.start() - 20) : m.start()]):
                    if hit.target in tree_ancestors(provision, known):
                        continue  # "Note to paragraph (b)(1):" labels the parent, it does not refer to it
                key = hit.target if hit.target is not None else f"\x00{hit.reason}"
                if key in seen:
                    continue
                seen.add(key)
                out.append(
                    Reference(
                        corpus=provision.corpus,
                        source_id=provision.id,
                        raw=hit.raw,
                        target_id=hit.target,
                        reason=hit.reason,
                        extractor=self.name,
                    )
                )
        return out

    # ------------------------------------------------------------ context

    def _context(self, provision: Provision, known: KnownProvisions) -> _Context:
        cit = parse_prefix(provision.id)
        section = labels = None
        part = self.default_part
        if cit is not None:
            part = cit.part
            if cit.section is not None:
                section = CfrCitation(cit.part, cit.section)
                labels = cit.paragraphs
        return _Context(provision, section, labels or (), find_subpart(provision, cit, known), part)

    # ------------------------------------------------------------ dispatch

    def _resolve(self, m: re.Match[str], ctx: _Context, known: KnownProvisions) -> Iterator[Hit]:
        raw = m.group(0)
        kind = m.lastgroup
        if m.group("para") is not None:
            before = m.string[max(0, m.start() - 160) : m.start()]
            if CONSENSUS_BEFORE.search(before):
                yield Hit(raw, None, "outside corpus: consensus standard section")
                return
            yield from self._paragraphs(m, raw, ctx, known)
        elif m.group("app") is not None:
            yield self._appendix(m, raw, ctx, known)
        elif m.group("apps") is not None:
            for letter in SUBPART_LETTERS.findall(m.group("apps_letters")):
                sub = m.group("apps_sub") or (
                    ctx.subpart.split()[-1] if m.group("apps_this") and ctx.subpart else None
                )
                if sub:
                    yield lookup(CfrCitation(ctx.part, subpart=sub, appendix=letter), raw, known)
                else:
                    yield self._bare_appendix(letter, raw, ctx, known)
        elif m.group("app_bare") is not None:
            yield self._bare_appendix(m.group("app_bare_letter"), raw, ctx, known)
        elif m.group("sec") is not None:
            yield from self._sections(m.group("sec_items"), raw, known)
        elif m.group("subpart") is not None:
            yield from self._subparts(m, raw, ctx, known)
        elif m.group("part") is not None:
            for num in re.findall(r"\d{4}", m.group("part_nums")):
                yield lookup(CfrCitation(num), raw, known)
        elif m.group("cfr") is not None:
            yield Hit(raw, None, f"outside corpus: {m.group('cfr_title')} CFR")
        elif m.group("act") is not None:
            yield Hit(raw, None, "outside corpus: Act")
        elif m.group("std") is not None:
            yield Hit(raw, None, f"outside corpus: {m.group('std_org')}")
        elif m.group("scope") is not None:
            yield self._scope(m.group("scope_word").lower(), raw, ctx, known)
        else:  # pragma: no cover - every alternative is named
            raise AssertionError(f"unhandled reference kind {kind}")

    def _scope(self, word: str, raw: str, ctx: _Context, known: KnownProvisions) -> Hit:
        if word == "part":
            return lookup(CfrCitation(ctx.part), raw, known)
        if word == "subpart":
            if ctx.subpart is None:
                return Hit(raw, None, "subpart unknown for this provision")
            return lookup(CfrCitation.parse(ctx.subpart), raw, known)
        if ctx.section is None:
            return Hit(raw, None, f"'this {word}' outside a section")
        return lookup(ctx.section, raw, known)

    def _appendix(self, m: re.Match[str], raw: str, ctx: _Context, known: KnownProvisions) -> Hit:
        """'appendix B to subpart M of this part', 'appendix C to this subpart', 'appendix A to § 1926.62'."""
        letter = m.group("app_letter") or ""
        this = (m.group("app_this") or "").split()[-1:] or [""]
        if m.group("app_sub") or this[0] == "subpart":
            if m.group("app_sub"):
                sub = CfrCitation(m.group("app_sub_part") or ctx.part, subpart=m.group("app_sub"))
            elif ctx.subpart is not None:
                sub = CfrCitation.parse(ctx.subpart)
            else:
                return Hit(raw, None, "subpart unknown for this provision")
            if not letter:
                return Hit(raw, None, f"appendix without a letter to {sub}")
            return lookup(CfrCitation(sub.part, subpart=sub.subpart, appendix=letter), raw, known)
        if m.group("app_sec") or this[0] in ("section", "standard"):
            sec = CfrCitation.parse(m.group("app_sec")) if m.group("app_sec") else ctx.section
            if sec is None:
                return Hit(raw, None, "'this section' outside a section")
            return lookup(CfrCitation(sec.part, sec.section, appendix=letter), raw, known)
        part = m.group("app_part") or ctx.part
        return Hit(
            raw,
            None,
            f"{'no such provision' if known.has_part(part) else 'not in corpus'}: "
            f"{part} Appendix {letter}".rstrip(),
        )

    def _bare_appendix(self, letter: str, raw: str, ctx: _Context, known: KnownProvisions) -> Hit:
        """'appendix D' alone: the subpart's appendix if it exists, else the section's own."""
        if ctx.subpart is not None:
            sub = CfrCitation.parse(ctx.subpart)
            cid = str(CfrCitation(sub.part, subpart=sub.subpart, appendix=letter))
            if cid in known:
                return Hit(raw, cid)
        if ctx.section is not None:
            cid = str(CfrCitation(ctx.section.part, ctx.section.section, appendix=letter))
            if cid in known:
                return Hit(raw, cid)
        return Hit(raw, None, f"ambiguous appendix {letter}: neither the subpart nor the section has it")

    def _subparts(self, m: re.Match[str], raw: str, ctx: _Context, known: KnownProvisions) -> Iterator[Hit]:
        # "1910 Subpart Z": the part written before the word names whose subpart it is (not this part's)
        before = re.search(r"\b(\d{4})\s*$", m.string[: m.start()])
        part = m.group("sub_part") or (before.group(1) if before else None) or ctx.part
        letters = SUBPART_LETTERS.findall(m.group("sub_letters"))
        is_range = " through " in m.group("sub_letters")
        cits = [CfrCitation(part, subpart=x) for x in letters]
        if is_range and len(cits) == 2:
            try:
                cits = list(expand_range(cits[0], cits[1]))
            except CitationError:
                pass
        for cit in cits:
            yield lookup(cit, raw, known)

    # ------------------------------------------------------------ paragraphs

    def _paragraphs(self, m: re.Match[str], raw: str, ctx: _Context, known: KnownProvisions) -> Iterator[Hit]:
        items = m.group("para_items")
        this = (m.group("of_this") or "").split()[-1:] or [""]
        scope = this[0]
        if m.group("of_ext"):
            yield Hit(raw, None, f"outside corpus: {m.group('of_ext')} CFR")
            return
        if m.group("of_sec"):
            try:
                base = CfrCitation.parse(m.group("of_sec"))
            except CitationError as e:
                yield Hit(raw, None, f"rejected by grammar: {e.reason}")
                return
            prev: tuple[str, ...] = ()
            relative_to_paragraph = False
        elif scope in ("subpart", "appendix", "part"):
            yield Hit(raw, None, f"paragraph of this {scope} is ambiguous")
            return
        else:
            if ctx.section is None:
                yield Hit(raw, None, "relative paragraph outside a section")
                return
            base = ctx.section
            prev = ctx.labels
            relative_to_paragraph = scope == "paragraph"
        yield from self._chains(items, raw, base, prev, relative_to_paragraph, known)

    def _chains(
        self,
        items: str,
        raw: str,
        base: CfrCitation,
        context_labels: tuple[str, ...],
        relative_to_paragraph: bool,
        known: KnownProvisions,
    ) -> Iterator[Hit]:
        """Resolve 'ITEM (SEP ITEM)*' against a section; ranges expand over existing siblings."""
        prev: tuple[str, ...] | None = None
        pending_range = False
        pos = 0
        for cm in LABEL_CHAIN.finditer(items):
            sep = items[pos : cm.start()]
            pos = cm.end()
            chain = labels_of(cm.group(0))
            if prev is None:
                if relative_to_paragraph:
                    labels = relative_labels(context_labels, chain, prefer_child=True)
                else:
                    labels = chain if valid_labels(chain) else relative_labels(context_labels, chain)
            else:
                pending_range = bool(RANGE_SEP.search(sep))
                labels = relative_labels(prev, chain) if len(chain) <= len(prev) else None
                if labels is None:
                    labels = chain if valid_labels(chain) else None
            if labels is None:
                yield Hit(raw, None, f"rejected by grammar: {cm.group(0).strip()}")
                continue
            cit = CfrCitation(base.part, base.section, labels)
            if pending_range and prev is not None:
                yield from lookup_range(CfrCitation(base.part, base.section, prev), cit, raw, known)
                pending_range = False
            else:
                yield lookup(cit, raw, known)
            prev = labels

    # ------------------------------------------------------------ sections

    def _sections(self, items: str, raw: str, known: KnownProvisions) -> Iterator[Hit]:
        """'§ 1926.502(a), (c) through (e)', '§§ 1926.500 through 1926.503', '1926.451(g)(1)'."""
        prev: CfrCitation | None = None
        pos = 0
        for tm in SECTION_TOKEN.finditer(items):
            sep = items[pos : tm.start()]
            pos = tm.end()
            cit: CfrCitation | None
            if tm.group("num"):
                try:
                    cit = CfrCitation.parse(
                        tm.group("num") + "".join(f"({x})" for x in labels_of(tm.group("chain") or ""))
                    )
                except CitationError as e:
                    yield Hit(raw, None, f"rejected by grammar: {e.reason}")
                    prev = None
                    continue
            else:
                if prev is None or prev.section is None:
                    continue
                chain = labels_of(tm.group("bare"))
                labels = (
                    relative_labels(prev.paragraphs, chain) if len(chain) <= len(prev.paragraphs) else None
                )
                if labels is None:
                    labels = chain if valid_labels(chain) else None
                if labels is None:
                    yield Hit(raw, None, f"rejected by grammar: {tm.group('bare')}")
                    continue
                cit = CfrCitation(prev.part, prev.section, labels)
            if prev is not None and RANGE_SEP.search(sep):
                yield from lookup_range(prev, cit, raw, known)
            else:
                yield lookup(cit, raw, known)
            prev = cit
