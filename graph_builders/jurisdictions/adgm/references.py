"""Rule-based cross-references in ADGM passages (`Rule 6.1.1(b)`, `GEN 3.3.31 and 3.3.32`,
`section 58(2) of FSMR`, `Chapter 8 of COBS`, `Rules 4.13.5 to 4.13.8`, `subsection 251(4)`, `App5`,
`paragraph 87 of Schedule 1`), resolved to passage UUIDs.

A reference names its document by an abbreviation or title before or after the numbers (a
qualifier after a list with a repeated keyword covers the list), else it points into the source's
own document. Targets are existing passages: a paragraph that is not a passage of its own resolves
to its nearest cited ancestor (`4.3.1(13)` -> `4.3.1`), a rule that is not one to its first
paragraph (`3.3.3` -> `3.3.3(1)`); anything else is kept as a dangling `Reference` with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from bifrost.core.types import Provision, Reference
from bifrost.graph_builders.jurisdictions.adgm.citation import AdgmCitation
from bifrost.graph_builders.jurisdictions.adgm.documents import ADGM_DOCUMENTS
from bifrost.graph_builders.jurisdictions.adgm.index import AdgmIndex, DocumentIndex

EXTRACTOR_NAME = "adgm-rules"
MAX_RANGE = 200

_NAMES = sorted({n for d in ADGM_DOCUMENTS.values() for n in d.names}, key=len, reverse=True)
_DOC = r"(?:[Tt]he\s+)?(?:" + "|".join(re.escape(n) for n in _NAMES) + r")(?![\w-])"
_NUM = r"\d{1,3}[A-Z]?"
_SEG = r"(?:\d{1,3}[A-Z]?|[A-Z](?=\.\d))"  # `15.11.A.2` prints the letter of `15.11A.2` apart
_LBL = r"\((?:[ivx]{1,5}|[a-z]{1,2}|[A-Z]|\d{1,2}[A-Z]?)\)"
_LABELS = rf"(?:[^\S\n]?{_LBL})*"
_ITEM = rf"(?:A\d{{1,2}}(?:\.{_NUM})+|{_NUM}(?:\.{_SEG})*)(?![\d])(?:{_LABELS})"
_BARE = rf"(?<![\w.§])(?:A\d{{1,2}}|\d{{1,3}}[A-Z]?)\.\d{{1,3}}[A-Z]?\.\d{{1,3}}[A-Z]?(?![\d])(?:{_LABELS})"
_CONT = rf"{_LBL}(?:{_LBL})*"
_SEP = (
    r"(?:[^\S\n]*,[^\S\n]*(?:and/or|and|or)?[^\S\n]*"
    r"|[^\S\n]+(?:and/or|and|or|to|through)[^\S\n]+"
    r"|[^\S\n]*[-–][^\S\n]*)"
)
_AGAIN = r"(?:(?:(?P=kw)|(?P=pre_kw))\.?[^\S\n]+)?"  # `chapter 3, chapter 4 of Part 12`: the keyword repeated
_ITEMS = rf"{_ITEM}(?:{_SEP}(?:{_AGAIN}{_ITEM}|{_CONT}))*"
_KW = (
    r"(?:Rules?|rules?|RULES?|[Ss]ub-?sections?|Sections?|sections?|SECTIONS?|Chapters?|chapters?|CHAPTERS?"
    r"|Parts?|PARTS?|[Pp]aragraphs?|Appendix|Appendices|App|APP)"
)
_THIS = r"(?:these\s+Rules|this\s+Rulebook|these\s+Regulations|this\s+Guidance)"
_OTHER = (
    r"(?:(?:[Tt]he\s+)?(?:[A-Z][\w'’&-]*\s+){1,6}|(?:those|that)\s+)"
    r"(?:Regulations|Rules|Rulebook|Law|Act|Code|Resolution|Decree|Guidance)\b"
)

_PATTERN = re.compile(
    rf"""
    (?:
        (?P<pre_doc>{_DOC})(?:[^\S\n]*\({_DOC}\))?[^\S\n]+(?:(?P<pre_kw>{_KW})(?:\.?[^\S\n]+|(?<=App|APP)(?=\d)))?
      | (?P<this>\b[Tt]his[^\S\n]+)?(?<![\w-])
        # `Part 7, Chapter 2`
        (?:(?:Part|PART)[^\S\n]+(?P<pre_part>\d{{1,3}}[A-Z]?)[^\S\n]*,?[^\S\n]*(?=[Cc]hapter|CHAPTER))?
        (?P<kw>{_KW})(?:\.?[^\S\n]+|(?<=App|APP)(?=\d))(?:(?P<kw_doc>{_DOC})[^\S\n]+)?
    )
    (?P<items>{_ITEMS})(?![\w.]*\d)
    (?P<post>[^\S\n]*,?[^\S\n]+(?:of|in|under)(?:[^\S\n]+of)?[^\S\n]+  # `of of`: a doubled word is a typo
        (?:(?P<post_doc>{_DOC})|(?P<post_this>{_THIS})|[Pp]art[^\S\n]+(?P<post_part>\d{{1,3}}[A-Z]?)
          |App(?:endix)?[^\S\n]*(?P<post_app>\d{{1,2}})|[Cc]hapter[^\S\n]+\d{{1,3}}[A-Z]?
          |[Ss]chedule[^\S\n]+(?P<post_sched>\d{{1,2}})
          |(?P<post_other>{_OTHER})))?
    | (?P<bare>{_BARE})(?![\w.]*\d)
    """,
    re.VERBOSE,
)
_ITEM_IN = re.compile(rf"(?P<item>{_ITEM})|(?P<cont>{_CONT})")
_LBL_IN = re.compile(_LBL)
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060\ufeff]")
_TRAILING = re.compile(rf"[^\S\n]*,?[^\S\n]+of[^\S\n]+(?:(?P<doc>{_DOC})|(?P<other>{_OTHER}))")
_SINGLE = re.compile(r"\d{1,3}[A-Z]?(?![.\d])")
_RANGE = re.compile(r"\b(?:to|through)\b|[-–]")


@dataclass(frozen=True)
class _Hit:
    raw: str
    target: str | None
    reason: str | None = None


def _keyword(word: str | None) -> str:
    """rule, section, chapter, part, paragraph, appendix or '' from a printed keyword."""
    if not word:
        return ""
    w = word.lower().rstrip("s.")
    w = {"appendice": "appendix", "app": "appendix", "subsection": "section", "sub-section": "section"}.get(
        w, w
    )
    return w if w in ("rule", "section", "chapter", "part", "paragraph", "appendix") else ""


def _item_segments(item: str) -> tuple[str, ...]:
    head = _LBL_IN.split(item, maxsplit=1)[0].strip()
    labels = tuple(f"({m.group(0).strip('() ')})" for m in _LBL_IN.finditer(item[len(head) :]))
    nums: list[str] = []
    for seg in head.split("."):
        if nums and len(seg) == 1 and seg.isupper():
            nums[-1] += seg
        else:
            nums.append(seg)
    return (*nums, *labels)


class AdgmReferenceExtractor:
    """Finds cross-references in one ADGM passage and resolves them against an :class:`AdgmIndex`."""

    name = EXTRACTOR_NAME

    def __init__(self, expand_ranges: bool = True) -> None:
        """`expand_ranges`: `Rules 4.13.5 to 4.13.8` gives every rule between (else the two ends only)."""
        self.expand_ranges = expand_ranges

    def index(self, provisions: Iterable[Provision]) -> AdgmIndex:
        """The index `extract` resolves against: passages by document and id, and citing names."""
        return AdgmIndex.from_provisions(provisions)

    def extract(self, provision: Provision, known: AdgmIndex) -> list[Reference]:
        """References in the passage text, one per target (dangling ones keep their raw text)."""
        src_doc, src_cit = known.sources.get(provision.id, (None, None))
        refs: list[Reference] = []
        seen: set[tuple[str | None, str]] = set()
        text = _INVISIBLE.sub("", provision.text or "")
        for m in _PATTERN.finditer(text):
            for hit in self._resolve(m, _TRAILING.match(text, m.end()), src_doc, src_cit, known):
                if m.group("bare") and hit.target == provision.id:
                    continue  # a passage printing its own number, not a reference
                key = (hit.target, hit.raw if hit.target is None else "")
                if key in seen:
                    continue
                seen.add(key)
                refs.append(
                    Reference(
                        corpus=provision.corpus,
                        source_id=provision.id,
                        raw=hit.raw,
                        target_id=hit.target,
                        reason=hit.reason,
                        extractor=self.name,
                    )
                )
        return refs

    # ------------------------------------------------------------ one match

    def _resolve(
        self,
        m: re.Match[str],
        trail: re.Match[str] | None,
        src_doc: str | None,
        src_cit: AdgmCitation | None,
        known: AdgmIndex,
    ) -> Iterator[_Hit]:
        """Targets of one match; `trail` is a further `of <document>` after `Chapter 2 of Part 1`."""
        raw = m.group(0).strip()
        src = known.document(src_doc or "")
        if m.group("bare"):  # `4.7.1(2)` with no keyword: only a passage of this document counts
            if src is not None:
                hit = self._lookup(
                    _item_segments(m.group("bare")), raw, "", src, False, m, src_cit, bare=True
                )
                if hit.target is not None:
                    yield hit
            return
        # `Part 3` / `Schedule 5` may be another document's
        within = m.group("post_part") or m.group("post_sched")
        other = m.group("post_other") or (trail.group("other") if trail and within else None)
        if other:
            yield _Hit(raw, None, f"outside corpus: {' '.join(other.split())}")
            return
        kw = _keyword(m.group("pre_kw") or m.group("kw"))
        named = m.group("pre_doc") or m.group("kw_doc") or m.group("post_doc")
        if not named and trail and within:
            named = trail.group("doc")
        explicit = bool(named or m.group("this") or m.group("post_this"))
        if named:
            doc_id = known.document_of_name(named)
            if doc_id is None:
                yield _Hit(raw, None, f"document not in corpus: {named}")
                return
        elif (
            not explicit
            and kw == "section"
            and src is not None
            and not src.has_parts
            and _SINGLE.match(m.group("items"))
        ):
            doc_id = known.statute  # `section 92(2)` in a rulebook or guidance: rulebooks number theirs 1.2.3
        else:
            doc_id = src_doc
        doc = known.document(doc_id or "")
        if doc is None:
            yield _Hit(raw, None, "document unknown")
            return
        yield from self._items(
            m.group("items"), raw, kw, doc, explicit, m, src_cit if doc_id == src_doc else None
        )

    def _items(
        self,
        items: str,
        raw: str,
        kw: str,
        doc: DocumentIndex,
        explicit: bool,
        m: re.Match[str],
        src_cit: AdgmCitation | None,
    ) -> Iterator[_Hit]:
        prev: tuple[str, ...] | None = None
        pos = 0
        for im in _ITEM_IN.finditer(items):
            sep = items[pos : im.start()]
            pos = im.end()
            if im.group("item"):
                segs = _item_segments(im.group("item"))
            elif prev is not None:
                conts = tuple(f"({x.group(0).strip('() ')})" for x in _LBL_IN.finditer(im.group("cont")))
                segs = prev[: max(len(prev) - len(conts), 1)] + conts
            else:
                continue
            if prev is not None and _RANGE.search(sep):
                yield from self._range(prev, segs, raw, kw, doc, explicit, m, src_cit)
            else:
                yield self._lookup(segs, raw, kw, doc, explicit, m, src_cit)
            prev = segs

    def _range(
        self,
        start: tuple[str, ...],
        end: tuple[str, ...],
        raw: str,
        kw: str,
        doc: DocumentIndex,
        explicit: bool,
        m: re.Match[str],
        src_cit: AdgmCitation | None,
    ) -> Iterator[_Hit]:
        """`4.13.5 to 4.13.8`, `47-54`: the numbers between the ends (same prefix), each looked up."""
        a, b = start[-1], end[-1]
        if not self.expand_ranges:
            yield self._lookup(end, raw, kw, doc, explicit, m, src_cit)
            return
        if len(start) != len(end) or start[:-1] != end[:-1] or not (a.isdigit() and b.isdigit()):
            yield self._lookup(end, raw, kw, doc, explicit, m, src_cit)
            return
        lo, hi = int(a), int(b)
        if not lo < hi <= lo + MAX_RANGE:
            yield self._lookup(end, raw, kw, doc, explicit, m, src_cit)
            return
        for n in range(lo + 1, hi + 1):
            hit = self._lookup((*start[:-1], str(n)), raw, kw, doc, explicit, m, src_cit)
            if hit.target is not None or n == hi:
                yield hit

    def _lookup(
        self,
        segs: tuple[str, ...],
        raw: str,
        kw: str,
        doc: DocumentIndex,
        explicit: bool,
        m: re.Match[str],
        src_cit: AdgmCitation | None,
        bare: bool = False,
    ) -> _Hit:
        """`bare`: a number printed without keyword must exist itself (paragraph labels aside)."""
        printed = ".".join(segs)
        this = bool(m.group("this"))
        of_part = m.group("post_part") or m.group("pre_part")
        if m.group("post_sched"):  # `paragraph 2 of Schedule 2`: numbered inside the schedule only
            keys: Iterable[str] = _in_schedule(segs, kw, m.group("post_sched"))
        else:
            keys = _candidates(segs, kw, doc, explicit, of_part, m.group("post_app"), src_cit, bare, this)
        for key in keys:
            target = doc.find(key)
            if target is not None:
                return _Hit(raw, target)
        return _Hit(raw, None, f"no such passage: document {doc.document_id} {kw or 'rule'} {printed}")


def _candidates(
    segs: Sequence[str],
    kw: str,
    doc: DocumentIndex,
    explicit: bool,
    of_part: str | None,
    in_app: str | None,
    src_cit: AdgmCitation | None,
    bare: bool = False,
    this: bool = False,
) -> Iterator[str]:
    """Normalized ids to try, most specific first; trailing paragraph labels are dropped one by one.

    A bare appendix rule (`A6.9.3` with no keyword) does not fall back to its section or appendix:
    appendix passages often print their own rule numbers inline. `this Part 3` names the Part that
    holds the source, so in a document without Part ids it is chapter 3 only when the source is.
    """
    nums = [s for s in segs if not s.startswith("(")]
    labels = [s for s in segs if s.startswith("(")]
    single = len(nums) == 1 and nums[0][:1].isdigit()
    app_rule = bool(nums) and nums[0].startswith("A")
    if app_rule and in_app is None:
        in_app = nums[0][1:]
    for k in range(len(labels), -1, -1):
        tail = labels[:k]
        if single and kw == "part":
            yield ".".join([f"Part {nums[0]}", *tail])
            if explicit and not (this and src_cit is not None and src_cit.segments[0] != nums[0]):
                yield ".".join([nums[0], *tail])
        elif single and kw == "chapter":
            part = of_part or (_part_of(src_cit) if src_cit is not None else None)
            if part is not None:
                yield ".".join([f"Part {part}", f"Chapter {nums[0]}", *tail])
            if of_part is None:
                yield ".".join([nums[0], *tail])
        elif single and kw == "appendix":
            yield f"APP{nums[0]}"
        elif single and kw in ("rule", "section"):
            if doc.has_parts or explicit:  # regulations number sections through the whole text;
                yield ".".join([nums[0], *tail])  # `section 2 of this Guidance` is its top-level 2
        elif single and kw == "paragraph":
            yield ".".join([f"{nums[0]})", *tail])
            yield ".".join([nums[0], *tail])
        else:
            key = ".".join([*nums, *tail])
            if app_rule:
                yield f"APP{in_app}.{key}"
            yield key
    if app_rule and bare:
        return
    if app_rule:
        for n in range(len(nums) - 1, 0, -1):
            yield f"APP{in_app}." + ".".join(nums[:n])
        yield f"APP{in_app}"
    elif len(nums) > 1:
        yield ".".join([*nums, "1"])  # a section printed without its own passage starts at its first rule
        if not labels:  # a rule printed without its own passage starts at its first paragraph
            yield ".".join([*nums, "(1)"])
            yield ".".join([*nums, "(a)"])


def _in_schedule(segs: Sequence[str], kw: str, schedule: str) -> Iterator[str]:
    """`paragraph 2(1) of Schedule 2` -> `Schedule 2.2.(1)`, then `Schedule 2.2`; `Part 3 of Schedule 1`."""
    nums = [s for s in segs if not s.startswith("(")]
    labels = [s for s in segs if s.startswith("(")]
    if kw in ("part", "chapter"):
        if kw == "part" and len(nums) == 1:
            yield f"Schedule {schedule}.Part {nums[0]}"
        return
    for k in range(len(labels), -1, -1):
        yield ".".join([f"Schedule {schedule}", *nums, *labels[:k]])


def _part_of(cit: AdgmCitation) -> str | None:
    first = cit.segments[0]
    return first.split(" ", 1)[1] if first.startswith("Part ") else None
