"""The figures of a question read as a person reads them: each with what it measures, from the words around it
and, when a parser is given, from the sentence's parse ("a 7 ft trench" a depth, "a 14 ft frame scaffold" a
height, "the cut will be about 6 ft" a depth, "working at 18 ft" a height, "15 ft from the line" a
distance); feet and inches together ("5'10\"", "3 ft 6 in"); a bare number listed with a figure takes its
unit ("6 ft? 10?", "between 5 and 20 feet"); a person's own height is a stature, and gives a depth or
height only where the words say so ("as deep as I am tall"). Percentages and counts are never lengths
(their units say what they are).

Rules written for English, not for one rulebook; the regex reader (`read.measure_of`) is the fallback when no
parse is given."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from bifrost.core.quantities import Quantity, normalize, quantities

LENGTH = "[length]"
Figure = tuple[Quantity, str]
Parse = Callable[[str], Any]
"""A spaCy-like parser: text -> a Doc whose tokens have ``dep_``, ``head``, ``lemma_``, ``pos_``, ``idx``."""

# what a length measures, by the word that says it right after the figure ("5 ft deep", "40 ft up")
_AFTER_WORD = (
    (re.compile(r"^[\s-]*(?:deep|depth|down|below|beneath|underground)\b", re.I), "depth"),
    (
        re.compile(r"^[\s-]*(?:high|height|tall|up|above|off\s+the|in\s+the\s+air|elevation)\b", re.I),
        "height",
    ),
    (re.compile(r"^[\s-]*(?:wide|width|across|between)\b", re.I), "width"),
    (re.compile(r"^[\s-]*(?:long|length)\b", re.I), "length"),
    (
        re.compile(r"^[\s-]*(?:away|apart|from|back|clearance|of\s+clearance|out|beyond|closer)\b", re.I),
        "distance",
    ),
)
# ... or by the words right before it ("within 15 ft", "at 18 ft", "taller than 36 ft")
_BEFORE_WORD = (
    (
        re.compile(r"\b(?:deeper|depth\s+of|dig(?:ging)?\s+(?:down\s+)?)\s*(?:than\s+)?(?:about\s+)?$", re.I),
        "depth",
    ),
    (
        re.compile(r"\b(?:taller|higher|height\s+of|at|up)\s+(?:than\s+)?(?:about\s+|around\s+)?$", re.I),
        "height",
    ),
    (re.compile(r"\b(?:wider|width\s+of)\s+(?:than\s+)?(?:about\s+)?$", re.I), "width"),
    (re.compile(r"\b(?:longer|length\s+of)\s+(?:than\s+)?(?:about\s+)?$", re.I), "length"),
    (
        re.compile(r"\b(?:within|closer\s+than|distance\s+of|clearance\s+of)\s+(?:about\s+)?$", re.I),
        "distance",
    ),
)
# what a thing's size is, when a figure sizes it ("a 7 ft trench", "the parapet is 40 inches")
NOUN_MEASURE: dict[str, str] = {
    **dict.fromkeys(
        "trench excavation ditch hole pit cut footing shaft manhole vault well pier basement sump caisson "
        "cofferdam bore water groundwater".split(),
        "depth",
    ),
    **dict.fromkeys(
        "scaffold tower wall building tank parapet rail guardrail toprail roof stack pile column ceiling "
        "fence silo mast chimney structure formwork form curtain frame deck platform mezzanine level floor "
        "story storey landing stockpile tree pole".split(),
        "height",
    ),
    **dict.fromkeys(
        "ladder cord lanyard line lifeline rope cable joist beam span girder truss pipe board plank hose "
        "chain sling boom jib extension run".split(),
        "length",
    ),
    **dict.fromkeys("aisle walkway gap opening space crack".split(), "width"),
}
_NOT_A_NOUN = frozenset("the a an of to from in on at by with for and or but".split())
_HOW_FAR = re.compile(r"\bhow\s+(?:far|close|near)\b", re.I)
_STATURE = re.compile(
    r"\b(?:i'?m|i\s+am|he'?s|he\s+is|she'?s|she\s+is|they'?re|who\s+is|guy\s+is|man\s+is)\s+(?:about\s+|only\s+)?$",
    re.I,
)
_STATURE_AFTER = re.compile(r"^\s*(?:tall|in\s+height)\b", re.I)
_AS_TALL = re.compile(
    r"\bas\s+(?P<adj>deep|high|tall|wide)\s+as\s+(?:i|he|she|they|a\s+(?:man|person|guy))\b", re.I
)
_ADJ_MEASURE = {"deep": "depth", "high": "height", "tall": "height", "wide": "width"}
# a bare number listed with a figure takes its unit: "between 5 and 20 feet", "6 ft? 10?", "10 or 12 feet"
_NUMBER = r"\d+(?:\.\d+)?"
_LIST_BEFORE = re.compile(rf"(?<![\w.$/-])(?P<num>{_NUMBER})\s+(?:and|or)\s+(?:about\s+)?$", re.I)
_LIST_AFTER = re.compile(rf"^\s*(?:\?|,|or|and|/)\s*(?:maybe\s+|or\s+)?(?P<num>{_NUMBER})(?!\s*[\w%$'\"″’])")


def read_figures(text: str, parse: Parse | None = None) -> tuple[Figure, ...]:
    """Every figure of a question with what it measures (see the module docstring), in text order."""
    found = [q for q in quantities(text) if not _brand(text, q)]
    found += _listed(text, found)
    found.sort(key=lambda q: q.start)
    doc = parse(text) if parse is not None and any(q.dimension == LENGTH for q in found) else None
    out: list[Figure] = [(q, measure_in(text, q, doc)) for q in found]
    out = _listed_alike(out)
    if said := _as_tall(text, out):  # the person's height is then the thing's: one figure, not two
        out = [f for f in out if f[0] is not said[0][0]] + said
    return tuple(out)


def _brand(text: str, q: Quantity) -> bool:
    """A capital M stuck to a number names a brand or a million ("3M"), never metres (SI writes a small m)."""
    written = text[q.start : q.end]
    return bool(re.fullmatch(r"\d+M", written.strip()))


def _listed(text: str, found: list[Quantity]) -> list[Quantity]:
    """Bare numbers listed with a figure, with its unit: "between 5 and 20 feet" (at least 5 feet, at most 20;
    the figure itself becomes the upper bound), "10 or 12 feet", "6 ft? 10?"."""
    out: list[Quantity] = []
    for n, q in enumerate(list(found)):
        if not q.unit or q.unit == "usd":
            continue
        head = text[max(0, q.start - 24) : q.start]
        if m := _LIST_BEFORE.search(head):
            start = q.start - len(head) + m.start("num")
            between = bool(re.search(r"\bbetween\s+$", text[max(0, start - 10) : start], re.I))
            out.append(
                _like(q, float(m.group("num")), start, start + len(m.group("num")), ">=" if between else "")
            )
            if between and not q.comparator:
                found[n] = replace(q, comparator="<=")
        if m := _LIST_AFTER.match(text[q.end : q.end + 16]):
            start = q.end + m.start("num")
            out.append(_like(q, float(m.group("num")), start, start + len(m.group("num")), ""))
    return out


def _listed_alike(figures: list[Figure]) -> list[Figure]:
    """A bare number listed right before a figure measures what that figure measures ("between 5 and 20 feet
    deep": both depths)."""
    out = list(figures)
    for n in range(len(out) - 1):
        (q, measure), (nxt, other) = out[n], out[n + 1]
        if measure == "length" and other != "length" and q.unit == nxt.unit and nxt.start - q.end <= 12:
            out[n] = (q, other)
    return out


def _like(q: Quantity, value: float, start: int, end: int, comparator: str) -> Quantity:
    magnitude, dimension = normalize(value, q.unit)
    return Quantity(
        str(value).removesuffix(".0"), value, q.unit, magnitude, dimension, comparator, start, end
    )


def measure_in(text: str, q: Quantity, doc: Any = None) -> str:
    """What one figure measures: a non-length by its dimension; a length by the word after it, the word before
    it, a person's height, and (with a parse) the thing it sizes; else "length"."""
    if q.dimension != LENGTH:
        return {"[time]": "time", "[mass] * [length] ** 2 / [time] ** 3": "power", "": ""}.get(
            q.dimension, ""
        )
    before, after = text[max(0, q.start - 40) : q.start], text[q.end : q.end + 30]
    if _STATURE.search(before) or _STATURE_AFTER.match(after) and _person_before(before):
        return "stature"
    for pattern, name in _AFTER_WORD:
        if pattern.match(after):
            return name
    for pattern, name in _BEFORE_WORD:
        if pattern.search(before):
            return name
    if doc is not None and (name := _sized_thing(doc, q)):
        return name
    # the thing the figure sizes, right after it ("a 30 ft tank", "a 14 ft frame scaffold")
    for word in re.findall(r"[a-z]+", after.lower())[:2]:
        if word in _NOT_A_NOUN:
            break
        if word in NOUN_MEASURE:
            return NOUN_MEASURE[word]
    if _HOW_FAR.search(_sentence_of(text, q.start)):  # "how far out ...? 6 ft? 10?" asks a distance
        return "distance"
    return "length"


def _sentence_of(text: str, at: int) -> str:
    """The sentence of ``text`` around offset ``at``; a fragment that is little more than the figure ("6 ft?",
    answering "how far ...?" in the same breath) is read with the sentence before it."""
    bounds = [0, *(m.end() for m in re.finditer(r"[.?!]+(?:\s+|$)", text)), len(text)]
    i = max(n for n, b in enumerate(bounds[:-1]) if b <= at)
    start, end = bounds[i], bounds[i + 1]
    while i > 0 and len(re.findall(r"[A-Za-z]+", text[start:end])) <= 3:
        i -= 1
        start = bounds[i]
    return text[start:end]


def _person_before(before: str) -> bool:
    return bool(re.search(r"\b(?:i|he|she|guy|man|worker|he's|she's|i'm)\b[^.?!]*$", before, re.I))


def _sized_thing(doc: Any, q: Quantity) -> str:
    """The measure of the thing a figure sizes, from the parse: the noun it modifies ("a 30 ft tank"), the
    subject of the copula it completes ("the cut will be about 6 ft"), or the place a preposition puts it
    ("25 ft off the slab")."""
    tokens = [t for t in doc if q.start <= t.idx < q.end and not t.is_punct]
    if not tokens:
        return ""
    unit = tokens[-1]
    node, hops = unit, 0
    while node.dep_ in ("compound", "nmod", "amod", "nummod") and node.head is not node and hops < 4:
        node, hops = node.head, hops + 1
    if hops and (name := NOUN_MEASURE.get(node.lemma_.lower(), "")):
        return name
    for t in tokens:  # the parser may hang the copula's complement on the number or on the unit
        if t.dep_ in ("attr", "acomp") and t.head.lemma_ == "be":
            for s in (c for c in t.head.children if c.dep_ in ("nsubj", "nsubjpass")):
                if name := NOUN_MEASURE.get(s.lemma_.lower(), ""):
                    return name
    if unit.dep_ == "npadvmod" and unit.head.lemma_.lower() in ("off", "above", "up"):
        return "height"
    if unit.dep_ == "pobj" and unit.head.lemma_.lower() == "at":
        return "height"
    return ""


def _as_tall(text: str, figures: Sequence[Figure]) -> list[Figure]:
    """A person's height that gives a depth or a height: "as deep as I am tall ... I'm 5'10\"" (the trench
    is 5'10" deep)."""
    m = _AS_TALL.search(text)
    statures = [q for q, measure in figures if measure == "stature"]
    if not m or not statures or m.group("adj").lower() == "tall":
        return []
    q = statures[0]
    return [(q, _ADJ_MEASURE[m.group("adj").lower()])]
