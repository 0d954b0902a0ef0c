"""Rule-based cross-reference extraction for the Document Navigator Graph (REFERS_TO edges).

Schema-locked: a reference becomes an edge only if the CFR grammar parses its target and the
corpus holds it; everything else is kept as a dangling `Reference` with its raw text and reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from bifrost.core.errors import CitationError
from bifrost.core.provisions import ancestors
from bifrost.core.types import Provision, Reference
from graph_builders.citations.cfr import CfrCitation, expand_range, label_positions, validate_labels

EXTRACTOR_NAME = "rules"


def _citation_parent(pid: str) -> str | None:
    try:
        par = CfrCitation.parse(pid).parent()
    except CitationError:
        return None
    return str(par) if par is not None else None


@dataclass(frozen=True)
class KnownProvisions:
    """The CFR corpus index: ids, tree parents, citation siblings and parts.

    A :class:`~graph_builders.navigator.base.ProvisionIndex` that also answers what the CFR
    extractor asks: a provision's parent ("this subpart"), its siblings (ranges), known parts.
    """

    ids: frozenset[str]
    parents: Mapping[str, str | None] = field(default_factory=dict)
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parts: frozenset[str] = frozenset()

    @classmethod
    def from_ids(cls, ids: Iterable[str], parents: Mapping[str, str | None] | None = None) -> KnownProvisions:
        """Index bare ids: parents are citation parents, unless `parents` tells the tree ones (section -> subpart)."""
        id_list = list(dict.fromkeys(ids))
        children: dict[str, list[str]] = {}
        parts: set[str] = set()
        for pid in id_list:
            try:
                cit = CfrCitation.parse(pid)
            except CitationError:
                continue
            parts.add(cit.part)
            par = cit.parent()
            if par is not None:
                children.setdefault(str(par), []).append(pid)
        return cls(
            ids=frozenset(id_list),
            parents=dict(parents or {}),
            children={k: tuple(v) for k, v in children.items()},
            parts=frozenset(parts),
        )

    @classmethod
    def from_provisions(cls, provisions: Iterable[Provision]) -> KnownProvisions:
        """Index provisions with their tree parents, so each section knows its subpart."""
        provs = list(provisions)
        return cls.from_ids((p.id for p in provs), {p.id: p.parent_id for p in provs})

    def __contains__(self, provision_id: object) -> bool:
        return provision_id in self.ids

    def parent_of(self, provision_id: str) -> str | None:
        if provision_id in self.parents:
            return self.parents[provision_id]
        par = _citation_parent(provision_id)
        return par if par is not None and par in self.ids and "." in par else None

    def siblings_of(self, provision_id: str) -> Sequence[str]:
        par = _citation_parent(provision_id)
        return self.children.get(par, ()) if par is not None else ()

    def has_part(self, part: str) -> bool:
        return part in self.parts


# ---------------------------------------------------------------- patterns (immutable)

_SP = r"[^\S\n]"  # a space that does not cross a line (paragraph) break
_DOUBLED = "|".join(c * 2 for c in "abcdefghjkmnpqrstuwyz")
_LABEL = rf"\({_SP}?(?:[ivxl]{{1,6}}|{_DOUBLED}|[a-z]|[A-Z]|\d{{1,2}}){_SP}?\)"
_CHAIN = rf"{_LABEL}(?:{_SP}?{_LABEL})*"
_SEP = rf"(?:{_SP}*,{_SP}*(?:and/or{_SP}+|and{_SP}+|or{_SP}+)?|{_SP}+(?:and/or|and|or|through|to){_SP}+|{_SP}*[-–]{_SP}*)"
_ITEMS = rf"{_CHAIN}(?:{_SEP}{_CHAIN})*"
_SECNUM = r"19\d\d\.\d{1,4}(?![\d.]\d)"
_SECCIT = rf"{_SECNUM}(?:{_SP}?{_CHAIN})?"
_SEC_ITEMS = rf"{_SECCIT}(?:{_SEP}(?:{_SECCIT}|{_CHAIN}))*"
_CHAPTER = rf"(?:{_SP}+of{_SP}+this{_SP}+(?:chapter|title|subpart|part)\b)?"
_OF_TARGET = (
    rf"(?P<of_this>this{_SP}+(?:section|standard|paragraph|subpart|appendix|part))"
    rf"|(?:§{_SP}*|[Ss]ection{_SP}+|29{_SP}+CFR{_SP}+(?:§{_SP}*)?)?(?P<of_sec>{_SECNUM}){_CHAPTER}"
    rf"|(?P<of_ext>\d{{1,2}}){_SP}+CFR{_SP}+(?:[Pp]arts?{_SP}+)?[\d.]+"
)

_PATTERN = re.compile(
    rf"""
    (?P<para>(?:(?:\b[Pp]aragraphs?|\b[Tt]his{_SP}+paragraph){_SP}+(?:§{_SP}*)?
              |(?<![\w)])(?=\()(?={_ITEMS}{_SP}+of{_SP}+this{_SP}+(?:section|paragraph)\b))
        (?P<para_items>{_ITEMS})
        (?:{_SP}*,?{_SP}*(?:of|in|under){_SP}+(?:{_OF_TARGET}))?)
  | (?P<app>\b(?:[Nn]on-mandatory{_SP}+)?[Aa]ppendix(?:{_SP}+(?P<app_letter>[A-Z])\b)?{_SP}+(?:to|of){_SP}+
        (?:(?P<app_this>this{_SP}+(?:subpart|section|part|standard))
          |[Ss]ubpart{_SP}+(?P<app_sub>[A-Z]{{1,2}})\b(?:{_SP}+of{_SP}+(?:this{_SP}+part|part{_SP}+(?P<app_sub_part>\d{{4}})))?
          |§{_SP}*(?P<app_sec>{_SECNUM}){_CHAPTER}
          |[Pp]art{_SP}+(?P<app_part>\d{{4}})))
  | (?P<apps>\b[Aa]ppendices{_SP}+(?P<apps_letters>[A-Z]\b(?:(?:{_SP}*,{_SP}*(?:and{_SP}+)?|{_SP}+and{_SP}+)[A-Z]\b)+)
        (?:{_SP}+(?:to|of){_SP}+(?:(?P<apps_this>this{_SP}+subpart)|[Ss]ubpart{_SP}+(?P<apps_sub>[A-Z]{{1,2}})\b(?:{_SP}+of{_SP}+this{_SP}+part)?))?)
  | (?P<app_bare>\b[Aa]ppendix{_SP}+(?P<app_bare_letter>[A-Z])\b(?!{_SP}+(?:to|of){_SP}))
  | (?P<sec>(?:§§?{_SP}*|\b[Ss]ections?{_SP}+(?=19\d\d\.\d)|\b29{_SP}+CFR{_SP}+(?:§§?{_SP}*)?|(?<![\w.§/-])(?=19\d\d\.\d))
        (?P<sec_items>{_SEC_ITEMS})(?:(?:{_SP}*\([A-Z][^()\n]{{0,60}}\))?{_SP}+of{_SP}+this{_SP}+(?:chapter|title|subpart|part)\b)?)
  | (?P<subpart>\b[Ss]ubparts?{_SP}+(?P<sub_letters>[A-Z]{{1,2}}\b(?:(?:{_SP}*,{_SP}*(?:and{_SP}+|or{_SP}+)?|{_SP}+(?:and|or|through){_SP}+)[A-Z]{{1,2}}\b)*)
        (?:(?:—[^\n.;()]{{1,80}}?|{_SP}*\([^()\n]{{1,60}}\))?{_SP}+of{_SP}+(?:this{_SP}+part|(?:29{_SP}+CFR{_SP}+)?part{_SP}+(?P<sub_part>\d{{4}})))?)
  | (?P<part>\b(?:29{_SP}+CFR{_SP}+)?[Pp]arts?{_SP}+(?P<part_nums>\d{{4}}(?:(?:{_SP}*,{_SP}*|{_SP}+(?:and|or){_SP}+)\d{{4}})*)\b{_CHAPTER})
  | (?P<cfr>\b(?P<cfr_title>\d{{1,2}}){_SP}+CFR{_SP}+(?:[Pp]arts?{_SP}+)?(?:§{_SP}*)?\d[\d.]*(?:-\d[\d.]*)?(?<!\.))
  | (?P<act>\b[Ss]ections?{_SP}+\d+[a-z]?(?:\(\w+\))*{_SP}+of{_SP}+the{_SP}+(?:(?:[A-Z][\w-]*|and|of|for|the){_SP}+){{0,10}}?Act\b)
  | (?P<std>\b(?P<std_org>ANSI|ASME|ASTM|NFPA|ASSE|IEEE|ISO|CGA|SAE|AWS|NEMA)(?:/[A-Z]+)*{_SP}+(?:No\.{_SP}*)?[A-Z]{{0,4}}{_SP}?\d[\w.:/–-]*(?<![.:/–-]))
  | (?P<scope>\b[Tt]his{_SP}+(?P<scope_word>subpart|part|section|standard)\b)
    """,
    re.VERBOSE,
)
_LABEL_IN = re.compile(_LABEL)
_CHAIN_IN = re.compile(_CHAIN)
_SECCIT_IN = re.compile(rf"(?P<num>{_SECNUM})(?:{_SP}?(?P<chain>{_CHAIN}))?")
_RANGE_SEP = re.compile(r"through|to|[-–]")
_HEADING_BEFORE = re.compile(r"(?:Notes?|Exceptions?)(?:\s+\d+)?\s+to\s+$")
_LETTERS_IN = re.compile(r"\b[A-Z]{1,2}\b")
_ID_PREFIX = re.compile(r"^(\d{1,4}\.\d{1,4})((?:\([^()\[\]]+\))*)")
_CONSENSUS_BEFORE = re.compile(r"\b[Ss]ection{_SP}+\d+-\d[\d.-]*[^.;\n]*$".replace("{_SP}", _SP))


def _labels(chain: str) -> tuple[str, ...]:
    return tuple(m.group(0).strip("() \t") for m in _LABEL_IN.finditer(chain))


def _relative(prev: Sequence[str], chain: Sequence[str], prefer_child: bool = False) -> tuple[str, ...] | None:
    """Absolute labels for a partial chain read after `prev` (an enumeration or a nested reference).

    The chain's first label replaces `prev` at the deepest level where it fits ("(b)(2)(i) and (ii)");
    with `prefer_child` it is first tried one level below `prev` ("(i) of this paragraph").
    """
    positions = [p for p in label_positions(chain[0]) if p <= len(prev)]
    if prefer_child:
        positions.sort(key=lambda p: (p != len(prev), -p))
    else:
        positions.sort(key=lambda p: (p == len(prev), -p))
    for p in positions:
        candidate = (*prev[:p], *chain)
        try:
            validate_labels("", candidate)
        except CitationError:
            continue
        return candidate
    return None


@dataclass(frozen=True)
class _Hit:
    """One resolved (or dangling) reference before it becomes a `Reference`."""

    raw: str
    target: str | None
    reason: str | None = None


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
        for m in _PATTERN.finditer(text):
            for hit in self._resolve(m, ctx, known):
                if hit.target is not None and hit.target == provision.id:
                    continue
                if hit.target is not None and _HEADING_BEFORE.search(text[max(0, m.start() - 20) : m.start()]):
                    if hit.target in _tree_ancestors(provision, known):
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
        cit = _parse_prefix(provision.id)
        section = labels = None
        part = self.default_part
        if cit is not None:
            part = cit.part
            if cit.section is not None:
                section = CfrCitation(cit.part, cit.section)
                labels = cit.paragraphs
        return _Context(provision, section, labels or (), _find_subpart(provision, cit, known), part)

    # ------------------------------------------------------------ dispatch

    def _resolve(self, m: re.Match[str], ctx: _Context, known: KnownProvisions) -> Iterator[_Hit]:
        raw = m.group(0)
        kind = m.lastgroup
        if m.group("para") is not None:
            before = m.string[max(0, m.start() - 160) : m.start()]
            if _CONSENSUS_BEFORE.search(before):
                yield _Hit(raw, None, "outside corpus: consensus standard section")
                return
            yield from self._paragraphs(m, raw, ctx, known)
        elif m.group("app") is not None:
            yield self._appendix(m, raw, ctx, known)
        elif m.group("apps") is not None:
            for letter in _LETTERS_IN.findall(m.group("apps_letters")):
                sub = m.group("apps_sub") or (ctx.subpart.split()[-1] if m.group("apps_this") and ctx.subpart else None)
                if sub:
                    yield _lookup(CfrCitation(ctx.part, subpart=sub, appendix=letter), raw, known)
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
                yield _lookup(CfrCitation(num), raw, known)
        elif m.group("cfr") is not None:
            yield _Hit(raw, None, f"outside corpus: {m.group('cfr_title')} CFR")
        elif m.group("act") is not None:
            yield _Hit(raw, None, "outside corpus: Act")
        elif m.group("std") is not None:
            yield _Hit(raw, None, f"outside corpus: {m.group('std_org')}")
        elif m.group("scope") is not None:
            yield self._scope(m.group("scope_word").lower(), raw, ctx, known)
        else:  # pragma: no cover - every alternative is named
            raise AssertionError(f"unhandled reference kind {kind}")

    def _scope(self, word: str, raw: str, ctx: _Context, known: KnownProvisions) -> _Hit:
        if word == "part":
            return _lookup(CfrCitation(ctx.part), raw, known)
        if word == "subpart":
            if ctx.subpart is None:
                return _Hit(raw, None, "subpart unknown for this provision")
            return _lookup(CfrCitation.parse(ctx.subpart), raw, known)
        if ctx.section is None:
            return _Hit(raw, None, f"'this {word}' outside a section")
        return _lookup(ctx.section, raw, known)

    def _appendix(self, m: re.Match[str], raw: str, ctx: _Context, known: KnownProvisions) -> _Hit:
        """'appendix B to subpart M of this part', 'appendix C to this subpart', 'appendix A to § 1926.62'."""
        letter = m.group("app_letter") or ""
        this = (m.group("app_this") or "").split()[-1:] or [""]
        if m.group("app_sub") or this[0] == "subpart":
            if m.group("app_sub"):
                sub = CfrCitation(m.group("app_sub_part") or ctx.part, subpart=m.group("app_sub"))
            elif ctx.subpart is not None:
                sub = CfrCitation.parse(ctx.subpart)
            else:
                return _Hit(raw, None, "subpart unknown for this provision")
            if not letter:
                return _Hit(raw, None, f"appendix without a letter to {sub}")
            return _lookup(CfrCitation(sub.part, subpart=sub.subpart, appendix=letter), raw, known)
        if m.group("app_sec") or this[0] in ("section", "standard"):
            sec = CfrCitation.parse(m.group("app_sec")) if m.group("app_sec") else ctx.section
            if sec is None:
                return _Hit(raw, None, "'this section' outside a section")
            return _lookup(CfrCitation(sec.part, sec.section, appendix=letter), raw, known)
        part = m.group("app_part") or ctx.part
        return _Hit(raw, None, f"{'no such provision' if known.has_part(part) else 'not in corpus'}: "
                    f"{part} Appendix {letter}".rstrip())

    def _bare_appendix(self, letter: str, raw: str, ctx: _Context, known: KnownProvisions) -> _Hit:
        """'appendix D' alone: the subpart's appendix if it exists, else the section's own."""
        if ctx.subpart is not None:
            sub = CfrCitation.parse(ctx.subpart)
            cid = str(CfrCitation(sub.part, subpart=sub.subpart, appendix=letter))
            if cid in known:
                return _Hit(raw, cid)
        if ctx.section is not None:
            cid = str(CfrCitation(ctx.section.part, ctx.section.section, appendix=letter))
            if cid in known:
                return _Hit(raw, cid)
        return _Hit(raw, None, f"ambiguous appendix {letter}: neither the subpart nor the section has it")

    def _subparts(self, m: re.Match[str], raw: str, ctx: _Context, known: KnownProvisions) -> Iterator[_Hit]:
        part = m.group("sub_part") or ctx.part
        letters = _LETTERS_IN.findall(m.group("sub_letters"))
        is_range = " through " in m.group("sub_letters")
        cits = [CfrCitation(part, subpart=x) for x in letters]
        if is_range and len(cits) == 2:
            try:
                cits = list(expand_range(cits[0], cits[1]))
            except CitationError:
                pass
        for cit in cits:
            yield _lookup(cit, raw, known)

    # ------------------------------------------------------------ paragraphs

    def _paragraphs(self, m: re.Match[str], raw: str, ctx: _Context, known: KnownProvisions) -> Iterator[_Hit]:
        items = m.group("para_items")
        this = (m.group("of_this") or "").split()[-1:] or [""]
        scope = this[0]
        if m.group("of_ext"):
            yield _Hit(raw, None, f"outside corpus: {m.group('of_ext')} CFR")
            return
        if m.group("of_sec"):
            try:
                base = CfrCitation.parse(m.group("of_sec"))
            except CitationError as e:
                yield _Hit(raw, None, f"rejected by grammar: {e.reason}")
                return
            prev: tuple[str, ...] = ()
            relative_to_paragraph = False
        elif scope in ("subpart", "appendix", "part"):
            yield _Hit(raw, None, f"paragraph of this {scope} is ambiguous")
            return
        else:
            if ctx.section is None:
                yield _Hit(raw, None, "relative paragraph outside a section")
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
    ) -> Iterator[_Hit]:
        """Resolve 'ITEM (SEP ITEM)*' against a section; ranges expand over existing siblings."""
        prev: tuple[str, ...] | None = None
        pending_range = False
        pos = 0
        for cm in _CHAIN_IN.finditer(items):
            sep = items[pos : cm.start()]
            pos = cm.end()
            chain = _labels(cm.group(0))
            if prev is None:
                if relative_to_paragraph:
                    labels = _relative(context_labels, chain, prefer_child=True)
                else:
                    labels = chain if _valid(chain) else _relative(context_labels, chain)
            else:
                pending_range = bool(_RANGE_SEP.search(sep))
                labels = _relative(prev, chain) if len(chain) <= len(prev) else None
                if labels is None:
                    labels = chain if _valid(chain) else None
            if labels is None:
                yield _Hit(raw, None, f"rejected by grammar: {cm.group(0).strip()}")
                continue
            cit = CfrCitation(base.part, base.section, labels)
            if pending_range and prev is not None:
                yield from _range(CfrCitation(base.part, base.section, prev), cit, raw, known)
                pending_range = False
            else:
                yield _lookup(cit, raw, known)
            prev = labels

    # ------------------------------------------------------------ sections

    def _sections(self, items: str, raw: str, known: KnownProvisions) -> Iterator[_Hit]:
        """'§ 1926.502(a), (c) through (e)', '§§ 1926.500 through 1926.503', '1926.451(g)(1)'."""
        prev: CfrCitation | None = None
        pos = 0
        token = re.compile(rf"{_SECCIT_IN.pattern}|(?P<bare>{_CHAIN})")
        for tm in token.finditer(items):
            sep = items[pos : tm.start()]
            pos = tm.end()
            cit: CfrCitation | None
            if tm.group("num"):
                try:
                    cit = CfrCitation.parse(tm.group("num") + "".join(f"({x})" for x in _labels(tm.group("chain") or "")))
                except CitationError as e:
                    yield _Hit(raw, None, f"rejected by grammar: {e.reason}")
                    prev = None
                    continue
            else:
                if prev is None or prev.section is None:
                    continue
                chain = _labels(tm.group("bare"))
                labels = _relative(prev.paragraphs, chain) if len(chain) <= len(prev.paragraphs) else None
                if labels is None:
                    labels = chain if _valid(chain) else None
                if labels is None:
                    yield _Hit(raw, None, f"rejected by grammar: {tm.group('bare')}")
                    continue
                cit = CfrCitation(prev.part, prev.section, labels)
            if prev is not None and _RANGE_SEP.search(sep):
                yield from _range(prev, cit, raw, known)
            else:
                yield _lookup(cit, raw, known)
            prev = cit


def _parse_prefix(pid: str) -> CfrCitation | None:
    """The id parsed, or its longest parseable `PART.SECTION(a)...` prefix for odd scraper ids."""
    try:
        return CfrCitation.parse(pid)
    except CitationError:
        pass
    m = _ID_PREFIX.match(pid)
    if not m:
        return None
    labels = _labels(m.group(2))
    for n in range(len(labels), -1, -1):
        if _valid(labels[:n]):
            return CfrCitation.parse(m.group(1)).with_paragraphs(labels[:n])
    return None


def _valid(labels: Sequence[str]) -> bool:
    try:
        validate_labels("", labels)
    except CitationError:
        return False
    return True


def _lookup(cit: CfrCitation, raw: str, known: KnownProvisions) -> _Hit:
    """A hit on an existing id, or a dangling one saying why (other part, or no such provision)."""
    cid = str(cit)
    if cid in known:
        return _Hit(raw, cid)
    if not known.has_part(cit.part):
        return _Hit(raw, None, f"not in corpus: {cid}")
    return _Hit(raw, None, f"no such provision: {cid}")


def _range(start: CfrCitation, end: CfrCitation, raw: str, known: KnownProvisions) -> Iterator[_Hit]:
    """Expand 'start through end' over existing siblings; missing ends are reported dangling.

    An end deeper than the start ('§§ 1926.403 through 1926.408(b)') covers the siblings before
    the end's ancestor at the start's level, then the end itself.
    """
    if end.level > start.level and end.suffix is None:
        anchor = next((a for a in end.ancestors() if a.level == start.level), None)
        if anchor is not None and anchor.parent() == start.parent() and start < anchor:
            for hit in _range(start, anchor, raw, known):
                if hit.target != str(anchor) and hit.reason != f"no such provision: {anchor}":
                    yield hit
            yield _lookup(end, raw, known)
            return
    try:
        members = expand_range(start, end, known.siblings_of(str(start)) or known.siblings_of(str(end)))
    except CitationError as e:
        yield _lookup(start, raw, known)
        yield _lookup(end, raw, known)
        yield _Hit(raw, None, f"bad range: {e.reason}")
        return
    for ends in (start, end):
        if str(ends) not in known:
            yield _lookup(ends, raw, known)
    for cit in members:
        yield _Hit(raw, str(cit))


def _find_subpart(provision: Provision, cit: CfrCitation | None, known: KnownProvisions) -> str | None:
    """The subpart id a provision sits in, walking tree parents (provision, then corpus index)."""
    if cit is not None and cit.subpart is not None:
        return str(CfrCitation(cit.part, subpart=cit.subpart))
    cur: str | None = provision.id
    for _ in range(16):
        if cur is None:
            return None
        try:
            c = CfrCitation.parse(cur)
        except CitationError:
            c = None
        if c is not None and c.kind == "subpart":
            return cur
        nxt = provision.parent_id if cur == provision.id else None
        nxt = nxt or known.parent_of(cur)
        if nxt is None and c is not None and c.section is not None and c.kind != "section":
            nxt = str(CfrCitation(c.part, c.section))
        cur = nxt
    return None


def _tree_ancestors(provision: Provision, known: KnownProvisions) -> set[str]:
    def parent_of(pid: str) -> str | None:
        if pid == provision.id and provision.parent_id:
            return provision.parent_id
        return known.parent_of(pid) or _citation_parent(pid)

    return set(ancestors(provision.id, parent_of, limit=16))
