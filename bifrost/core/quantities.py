"""Quantities in rule sentences and questions ("6 feet (1.8 m) or more", "rated not more than 5kW", "within 14
days", "12ft below", "ten parts per billion (10 ppb)", "$10,000"), each with the threshold its words give it,
normalized with pint. A figure pint cannot convert is kept as text with no magnitude: it is never compared.

One reader for the requirement records built from the rules and for the facts read from a question, so that a
question's "35′ away" and a rule's "at least 20 feet (6.1 m) from" meet in the same units."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bifrost.core.quantity_words import NUMBER_WORDS, UNITS

_UNIT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_WORD_NUM = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
# 1 1/2, 3/4, 2,000, 0.5, .5, "thirty (30)"
_NUM = (
    rf"(?:\d+\s+\d/\d+|\d/\d+|\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+|"
    rf"(?:{_WORD_NUM})(?:\s*\(\d+\))?)"
)
FIGURE = re.compile(
    rf"(?<![\w.§/-])(?P<money>\$)?(?P<minus>minus\s+|-(?=\d))?(?P<num>{_NUM})"
    rf"(?:\s*(?:-|to|–)\s*(?P<upper>{_NUM}))?"  # a range: 5-10 ppm, 0.5 to 10 percent
    rf"(?P<ormore>\s+or\s+(?:more|less))?"  # 30 or more days
    rf"(?:\s?-?\s?(?P<unit>{_UNIT}))?"
    rf"(?:\s*(?P<num2>\d+(?:\.\d+)?)\s?-?\s?(?P<unit2>inches|inch|in\.|in|\"|″|”))?"  # 6 ft. 6 in., 5'10"
    r"(?![A-Za-z0-9])",
    re.I,
)
_AFTER = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?(?:or\s+(?:more|greater|longer|higher|over|above|larger)|and\s+(?:above|over|up))\b(?!\s+(?:minus\s+)?[\d$])",
    re.I,
)
_AFTER_MOST = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?(?:or\s+(?:less|fewer|under|below|shorter|smaller|lower))\b(?!\s+(?:minus\s+)?[\d$])",
    re.I,
)
_FILLER = r"(?:\s+(?:the|a|an|of|its|their|to))*\s*$"
_BEFORE = [
    (re.compile(rf"\b(?:{words}){_FILLER}", re.I), sign)
    for words, sign in (  # the negated forms first
        (
            r"at least (?:once )?every|not more than|no more than|in no case more than|not exceeding|not to "
            r"exceed|"
            r"(?:shall|must|may|does|do|to) not exceed|not over|at most|at or below|maximum(?: \w+){0,2} "
            r"of|up to|within|"
            r"no later than|not later than|no longer than|no greater than|not greater than|or less than|"
            r"not be (?:more|greater|longer) than",
            "<=",
        ),
        (
            r"not less than|no less than|at least|at or above|minimum(?: \w+){0,2} of|no closer than|not "
            r"closer than|"
            r"no fewer than|not fewer than|or more than|not be (?:less|fewer|shorter) than",
            ">=",
        ),
        (
            r"more than|greater than|exceeding|exceeds|exceed|in excess of|higher than|longer than|larger "
            r"than|taller than|deeper than|wider than",
            ">",
        ),
        (r"less than|fewer than|lower than|shorter than|smaller than", "<"),
    )
] + [  # a bare preposition only right before the figure: "over 600 volts", not "averaged over an 8-hour day"
    (re.compile(r"\b(?:over|above)\s*$", re.I), ">"),
    (re.compile(r"\b(?:under|below)\s*$", re.I), "<"),
]
_PAREN_OPEN = re.compile(r"\(\s*$")
_PER = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:of(?:\s+[a-z]+){1,3}\s+)?per\s+(second|minute|hour|day)\b", re.I)


@lru_cache(maxsize=1)
def registry() -> Any:
    import pint

    ureg = pint.UnitRegistry()
    for line in (
        "ppm = 1e-6 = parts_per_million",
        "ppb = 1e-9 = parts_per_billion",
        "usd = [currency] = dollar",
        # sound levels are compared as written (A-weighted decibels), never with a share or a ratio
        "decibel_a = [sound_level] = dBA",
    ):
        if line.split()[0] in ureg:  # pint defines some of them in some versions
            continue
        try:
            ureg.define(line)
        except Exception:  # noqa: BLE001 - a name this pint version reserves
            pass
    return ureg


@dataclass(frozen=True)
class Quantity:
    """A figure as written (``text``), its value and unit as read, in base units when pint converts it
    (``magnitude``, ``dimension``; None when it does not: kept as text, never compared), and the threshold its
    words give it (">=", "<=", ">", "<"; "" for a plain figure). ``start``/``end``: offsets in the text
    read."""

    text: str
    value: float
    unit: str
    magnitude: float | None
    dimension: str
    comparator: str = ""
    start: int = 0
    end: int = 0

    @property
    def comparable(self) -> bool:
        return self.magnitude is not None

    def meets(self, figure: Quantity) -> bool | None:
        """Whether a question's figure meets this threshold (None: not comparable, or this is no
        threshold)."""
        if (
            not (self.comparable and figure.comparable)
            or figure.dimension != self.dimension
            or not self.comparator
        ):
            return None
        a, b = figure.magnitude, self.magnitude
        assert a is not None and b is not None
        close = abs(a - b) <= 0.05 * max(abs(a), abs(b), 1e-9)  # "10 feet (3.1 m)": printed conversions round
        return {
            ">=": a >= b or close,
            "<=": a <= b or close,
            ">": a > b and not close,
            "<": a < b and not close,
        }[self.comparator]

    def same(self, figure: Quantity) -> bool:
        if not (self.comparable and figure.comparable) or figure.dimension != self.dimension:
            return False
        a, b = figure.magnitude, self.magnitude
        assert a is not None and b is not None
        return abs(a - b) <= 0.05 * max(abs(a), abs(b), 1e-9)


def _number(text: str) -> float:
    text = text.strip().lower()
    frac = re.fullmatch(r"(?:(\d+)\s+)?(\d)/(\d+)", text)
    if frac:
        return float(frac.group(1) or 0) + int(frac.group(2)) / int(frac.group(3))
    digits = re.search(r"\((\d+)\)", text)  # "one (1)"
    if digits:
        return float(digits.group(1))
    if text in NUMBER_WORDS:
        return float(NUMBER_WORDS[text])
    return float(text.replace(",", ""))


def normalize(value: float, unit: str) -> tuple[float | None, str]:
    """``value`` of ``unit`` (pint's name) in base units, and its dimension; (None, unit) when pint cannot."""
    ureg = registry()
    try:
        q = ureg.Quantity(value, unit).to_base_units()
    except Exception:  # noqa: BLE001 - pint raises many kinds; an unconvertible figure stays text
        return None, unit
    return float(q.magnitude), str(q.dimensionality)


def _inside_conversion(text: str, start: int, previous_end: int | None) -> bool:
    """True for the figure of a printed conversion: "6 feet (1.8 m)", "76-mm (3-inch)", "(10 ppb)"."""
    if previous_end is None:
        return False
    between = text[previous_end:start]
    return bool(_PAREN_OPEN.search(between)) and len(between) <= 40 and ")" not in between


def _comparator(text: str, start: int, end: int, ormore: str | None) -> str:
    if ormore:
        return ">=" if "more" in ormore.lower() else "<="
    after = text[end : end + 40]
    if _AFTER.match(after):
        return ">="
    if _AFTER_MOST.match(after):
        return "<="
    before = text[max(0, start - 48) : start]
    for pattern, sign in _BEFORE:
        if pattern.search(before):
            return sign
    return ""


def quantities(text: str) -> list[Quantity]:
    """Every figure with a unit in ``text``, in order, printed conversions left out; a range gives two."""
    out: list[Quantity] = []
    last_end: int | None = None
    for m in FIGURE.finditer(text or ""):
        unit_text = m.group("unit")
        if m.group("money"):
            unit = "usd"
        elif unit_text:
            unit = UNITS[unit_text.lower()]
        else:
            continue
        if (
            unit_text
            and len(unit_text) == 1
            and unit_text.lower() in ("m", "v", "l")
            and not m.group("num")[-1].isdigit()
        ):
            continue  # "one m" is no figure
        if text[max(0, m.start() - 2) : m.start()].strip().endswith(("±", "+/-")):
            continue  # a tolerance ("100 micrometers (±2 micrometers)"), not a figure of its own
        if _inside_conversion(text, m.start(), last_end):
            last_end = m.end()
            continue
        try:
            value = _number(m.group("num"))
            upper = _number(m.group("upper")) if m.group("upper") else None
        except ValueError:
            continue
        if m.group("minus"):
            value = -value
        if m.group("num2") and unit == "foot":
            value += float(m.group("num2")) / 12.0
        per = _PER.match(text[m.end() : m.end() + 40])
        if per and "/" not in unit:  # "600 feet (182.88 m) per minute"
            unit = f"{unit} / {per.group(1).lower()}"
        last_end = m.end()
        if upper is not None:
            for v, sign in ((value, ">="), (upper, "<=")):
                mag, dim = normalize(v, unit)
                out.append(Quantity(m.group(0).strip(), v, unit, mag, dim, sign, m.start(), m.end()))
            continue
        mag, dim = normalize(value, unit)
        sign = _comparator(text, m.start(), m.end(), m.group("ormore"))
        out.append(Quantity(m.group(0).strip(), value, unit, mag, dim, sign, m.start(), m.end()))
    return out
