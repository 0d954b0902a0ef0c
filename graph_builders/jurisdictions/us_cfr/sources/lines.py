"""What one line of a CFR section holds: labelled paragraphs, their headings, definitions.

A source hands over a section as `Line`s; a line may stack labels (`(c)(1)`), carry an inline
first child (`Heading. (1) Text`), a range of reserved labels, or a definition (`Term means ...`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bifrost.graph_builders.jurisdictions.us_cfr.sources.labels import label_schemes


@dataclass(frozen=True)
class Line:
    """One line (paragraph) of a section as a source gives it.

    ``italic_label`` says the leading label was set in italics (CFR levels 5-6, e.g. eCFR XML
    ``(<I>1</I>)``); ``italic_heading`` is the italic phrase right after the label(s), when the
    source marks it, so the heading need not be guessed.
    """

    text: str
    page: int | None = None
    italic_label: bool = False
    italic_heading: str | None = None


_LABEL = re.compile(r"\((\s?)([A-Za-z]{1,7}|[0-9]{1,3})(\s?)\)\s*")  # ASCII: `(٢)` is no label
_RANGE = re.compile(r"^(?:-|–|—|through)\s*\((\w{1,4})\)\s*")
FIRST_CHILD = r"\(\s?(?:a|1|i|A)\s?\)"  # the label of a first child: (a), (1), (i) or (A)
_INLINE_CHILD = re.compile(
    r"(\.|\s?[—-]+|:|(?<=[a-z]) (?=" + FIRST_CHILD + r" [A-Z]))\s*(?=" + FIRST_CHILD + r"[\s(])"
)
_VERBS = re.compile(
    r"\b(?:shall|must|may|means|mean|is|are|was|were|will|should|does|do|has|have|can|cannot|apply|applies)\b",
    re.I,
)
_PERIOD = re.compile(r"\.\s+(?=[A-Z(“\"])")
_ABBREVIATIONS = frozenset("No Nos Inc etc Co St Mr Dr vs al Jr Sr Corp Ft ft in approx Figs Fig".split())
_STRONG_VERBS = re.compile(r"\b(?:shall|must)\b", re.I)
_NO_VERBS = re.compile(r"(?!)")
_DEF_MEANS = re.compile(
    r"^(?P<term>[“\"]?[A-Z0-9][^.;:]{0,120}?)[”\"]?,?\s+(?:means|mean|is defined as|refers to|shall mean)\b"
)
_DEF_PUNCT = re.compile(
    r"^(?P<term>[A-Z][\w'’/,\- ]{0,70}?(?: \([^)]{1,60}\))?)(?:\.|:)\s+(?P<rest>\S.*)$", re.S
)
_DEF_DASH = re.compile(r"^(?P<term>[A-Z][\w'’/,\- ]{0,60}?)\s?—\s*(?P<rest>" + FIRST_CHILD + r"\s.*)$", re.S)
_QUALIFIER = re.compile(r"^\(((?:As applied|As used|Of|For|In)\b[^)]{0,80})\)")
_DEF_STOP = re.compile(
    r"^(?:The|This|These|That|A|An|It|Its|Such|See|For|In|If|When|Where|Each|All|Any|No|Note|Table|Figure)\b"
)


@dataclass(frozen=True)
class Unit:
    """One labelled paragraph as found in a line (a line may hold several)."""

    label: str
    italic: bool
    heading: str
    text: str
    page: int | None
    heading_if_parent: str | None = None  # whole text looks like a heading: one if children follow
    last_label: str | None = None  # '(17)-(22) [Reserved]': a range of labels in one line


def _sentence_end(s: str) -> tuple[int, int] | None:
    """(index of the period, start of the next sentence) of the first sentence, skipping abbreviations."""
    for m in _PERIOD.finditer(s):
        word = s[: m.start()].rsplit(" ", 1)[-1].lstrip("(")
        if word in _ABBREVIATIONS or (len(word) <= 2 and word[-1:].isupper()) or "." in word:
            continue
        return m.start(), m.end()
    return None


def _word_count(s: str) -> int:
    return len(s.split())


def _heading_like(s: str, max_words: int, verbs: re.Pattern[str] = _VERBS) -> bool:
    s = s.strip()
    return (
        bool(s)
        and (s[0].isupper() or s[0].isdigit() or s[0] in '“"')
        and _word_count(s) <= max_words
        and not verbs.search(s)
        and _sentence_end(s.rstrip(". ")) is None
        and not s.startswith("[")
    )


def _split_heading(rest: str, hint: str | None) -> tuple[str, str, str | None, str | None]:
    """(heading, body, inline child text, heading-if-parent) of the text after a label."""
    if hint and rest.startswith(hint.strip()):
        head, body = hint.strip(), rest[len(hint.strip()) :].strip()
        m = re.match(FIRST_CHILD + r"\s", body)
        return (head.rstrip(" —"), "", body, None) if m else (head.rstrip(" —"), body, None, None)
    m = _INLINE_CHILD.search(rest)
    if m:
        head = rest[: m.start()].strip() + (m.group(1) if m.group(1) == "." else "")
        bare = m.group(1) == " "  # 'Disconnecting means (A) A ...': a heading that lost its period
        if m.group(1) == ":" and head:  # 'as follows: (A) ...' is a lead-in sentence, not a heading
            if _sentence_end(head) is None and _word_count(head) <= 40:
                return "", head + ":", rest[m.end() :], None
            return "", rest, None, None
        if not head or _heading_like(head, 4 if bare else 25, _STRONG_VERBS if bare else _NO_VERBS):
            return head, "", rest[m.end() :], None
    m = _sentence_end(rest)
    if m and _heading_like(rest[: m[0] + 1], 12):
        return rest[: m[0] + 1].strip(), rest[m[1] :].strip(), None, None
    if not m and rest.endswith(".") and _heading_like(rest, 12):
        return "", rest, None, rest
    return "", rest, None, None


def line_units(line: Line) -> list[Unit]:
    """The labelled paragraphs in a line: stacked labels '(c)(1)' and inline children split."""
    units: list[Unit] = []
    text, italic_first, hint = line.text.strip(), line.italic_label, line.italic_heading
    while True:
        labels: list[tuple[str, bool]] = []
        pos = 0
        while m := _LABEL.match(text, pos):
            labels.append(
                (m.group(2), bool(m.group(1) or m.group(3)) or (italic_first and not labels and not units))
            )
            pos = m.end()
        rest = text[pos:].strip()
        span = _RANGE.match(rest)
        if span:
            rest = rest[span.end() :].strip()
        for label, italic in labels[:-1]:
            units.append(Unit(label, italic, "", "", line.page))
        heading, body, inline, maybe = _split_heading(rest, hint)
        last = span.group(1) if span else None
        units.append(Unit(labels[-1][0], labels[-1][1], heading, body, line.page, maybe, last))
        if inline is None:
            return units
        text, hint = inline, None


def is_labelled(text: str) -> bool:
    m = _LABEL.match(text.strip())
    return bool(m) and label_schemes(m.group(2), bool(m.group(1) or m.group(3))) != ()


def definition_term(text: str, in_context: bool) -> str | None:
    """The defined term if an unlabelled line reads as a definition ('Term means ...', 'Term. ...')."""
    if not in_context:
        return None
    m = _DEF_MEANS.match(text)
    if m and _word_count(m.group("term")) <= 10 and not _DEF_STOP.match(m.group("term")):
        return m.group("term").strip('“”" ,')
    m = _DEF_PUNCT.match(text) or _DEF_DASH.match(text)
    if m and _word_count(m.group("term")) <= 6 and not _DEF_STOP.match(m.group("term")):
        q = _QUALIFIER.match(m.group("rest"))
        return m.group("term").strip() + (f" ({q.group(1).rstrip('.')})" if q else "")
    return None
