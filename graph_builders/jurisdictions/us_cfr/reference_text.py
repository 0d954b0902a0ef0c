"""What a CFR cross-reference looks like in text: the patterns, and reading paragraph-label chains.

Patterns never cross a line (paragraph) break. Label chains are read relative to the labels
before them ("(b)(2)(i) and (ii)", "(i) of this paragraph").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bifrost.core.errors import CitationError
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrCitation, label_positions, validate_labels

_SP = r"[^\S\n]"  # a space that does not cross a line (paragraph) break
_DOUBLED = "|".join(c * 2 for c in "abcdefghjkmnpqrstuwyz")
_LABEL = rf"\({_SP}?(?:[ivxl]{{1,6}}|{_DOUBLED}|[a-z]|[A-Z]|\d{{1,2}}){_SP}?\)"
_CHAIN = rf"{_LABEL}(?:{_SP}?{_LABEL})*"
_SEP = (
    rf"(?:{_SP}*,{_SP}*(?:and/or{_SP}+|and{_SP}+|or{_SP}+)?"
    rf"|{_SP}+(?:and/or|and|or|through|to){_SP}+"
    rf"|{_SP}*[-–]{_SP}*)"
)
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

REFERENCE = re.compile(
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
  | (?P<apps>\b[Aa]ppendices{_SP}+(?P<apps_letters>[A-Z]\b(?:(?:{_SP}*,{_SP}*(?:and{_SP}+)?
        |{_SP}+and{_SP}+)[A-Z]\b)+)
        (?:{_SP}+(?:to|of){_SP}+(?:(?P<apps_this>this{_SP}+subpart)|[Ss]ubpart{_SP}+(?P<apps_sub>[A-Z]{{1,2}})\b(?:{_SP}+of{_SP}+this{_SP}+part)?))?)
  | (?P<app_bare>\b[Aa]ppendix{_SP}+(?P<app_bare_letter>[A-Z])\b(?!{_SP}+(?:to|of){_SP}))
  | (?P<sec>(?:§§?{_SP}*|\b[Ss]ections?{_SP}+(?=19\d\d\.\d)|\b29{_SP}+CFR{_SP}+(?:§§?{_SP}*)?|
        (?<![\w.§/-])(?=19\d\d\.\d))
        (?P<sec_items>{_SEC_ITEMS})(?:(?:{_SP}*\([A-Z][^()\n]{{0,60}}\))?{_SP}+of{_SP}+this{_SP}+(?:chapter|title|subpart|part)\b)?)
  | (?P<subpart>\b[Ss]ubparts?{_SP}+(?P<sub_letters>[A-Z]{{1,2}}\b(?:(?:{_SP}*,{_SP}*(?:and{_SP}+
        |or{_SP}+)?|{_SP}+(?:and|or|through){_SP}+)[A-Z]{{1,2}}\b)*)
        (?:(?:—[^\n.;()]{{1,80}}?|{_SP}*\([^()\n]{{1,60}}\))?{_SP}+of{_SP}+(?:this{_SP}+part|(?:29{_SP}+CFR{_SP}+)?part{_SP}+(?P<sub_part>\d{{4}})))?)
  | (?P<part>\b(?:29{_SP}+CFR{_SP}+)?[Pp]arts?{_SP}+(?P<part_nums>\d{{4}}(?:(?:{_SP}*,{_SP}*|{_SP}+
        (?:and|or){_SP}+)\d{{4}})*)\b{_CHAPTER})
  | (?P<cfr>\b(?P<cfr_title>\d{{1,2}}){_SP}+CFR{_SP}+(?:[Pp]arts?{_SP}+)?(?:§{_SP}*)?\d[\d.]*
        (?:-\d[\d.]*)?(?<!\.))
  | (?P<act>\b[Ss]ections?{_SP}+\d+[a-z]?(?:\(\w+\))*{_SP}+of{_SP}+the{_SP}+(?:(?:[A-Z][\w-]*|and|of|for
        |the){_SP}+){{0,10}}?Act\b)
  | (?P<std>\b(?P<std_org>ANSI|ASME|ASTM|NFPA|ASSE|IEEE|ISO|CGA|SAE|AWS|NEMA)(?:/[A-Z]+)*{_SP}+
        (?:No\.{_SP}*)?[A-Z]{{0,4}}{_SP}?\d[\w.:/–-]*(?<![.:/–-]))
  | (?P<scope>\b[Tt]his{_SP}+(?P<scope_word>subpart|part|section|standard)\b)
    """,
    re.VERBOSE,
)
_LABEL_IN = re.compile(_LABEL)
LABEL_CHAIN = re.compile(_CHAIN)
_SECCIT_IN = re.compile(rf"(?P<num>{_SECNUM})(?:{_SP}?(?P<chain>{_CHAIN}))?")
RANGE_SEP = re.compile(r"through|to|[-–]")
HEADING_BEFORE = re.compile(r"(?:Notes?|Exceptions?)(?:\s+\d+)?\s+to\s+$")
SUBPART_LETTERS = re.compile(r"\b[A-Z]{1,2}\b")
_ID_PREFIX = re.compile(r"^(\d{1,4}\.\d{1,4})((?:\([^()\[\]]+\))*)")
CONSENSUS_BEFORE = re.compile(r"\b[Ss]ection{_SP}+\d+-\d[\d.-]*[^.;\n]*$".replace("{_SP}", _SP))
# a section citation, or a bare label chain after one
SECTION_TOKEN = re.compile(rf"{_SECCIT_IN.pattern}|(?P<bare>{_CHAIN})")


def labels_of(chain: str) -> tuple[str, ...]:
    """The labels of a chain: `(b)( 2 )(i)` -> `("b", "2", "i")`."""
    return tuple(m.group(0).strip("() \t") for m in _LABEL_IN.finditer(chain))


def relative_labels(
    prev: Sequence[str], chain: Sequence[str], prefer_child: bool = False
) -> tuple[str, ...] | None:
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


def parse_prefix(pid: str) -> CfrCitation | None:
    """The id parsed, or its longest parseable `PART.SECTION(a)...` prefix for odd scraper ids."""
    try:
        return CfrCitation.parse(pid)
    except CitationError:
        pass
    m = _ID_PREFIX.match(pid)
    if not m:
        return None
    labels = labels_of(m.group(2))
    for n in range(len(labels), -1, -1):
        if valid_labels(labels[:n]):
            return CfrCitation.parse(m.group(1)).with_paragraphs(labels[:n])
    return None


def valid_labels(labels: Sequence[str]) -> bool:
    """True if the labels form a valid paragraph chain."""
    try:
        validate_labels("", labels)
    except CitationError:
        return False
    return True
