"""Quantities in questions and rule sentences ("12ft below", "35′ away", "5 feet (1.52 m) or more", "rated not more
than 5kW"), read with pint, and whether a question's figure meets a rule's threshold. A verdict never rests on a
sentence that sets no threshold for the figure the question gives, nor on one whose threshold the figure fails."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_NUMBER = r"(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
_UNITS = {  # how rules and people write a unit -> pint's name for it
    "feet": "foot", "foot": "foot", "ft": "foot", "'": "foot", "′": "foot", "’": "foot",
    "inches": "inch", "inch": "inch", "in": "inch", '"': "inch", "″": "inch", "”": "inch",
    "meters": "meter", "meter": "meter", "metres": "meter", "metre": "meter", "m": "meter", "cm": "centimeter",
    "mm": "millimeter", "kw": "kilowatt", "kilowatts": "kilowatt", "kilowatt": "kilowatt", "volts": "volt",
    "volt": "volt", "v": "volt", "amperes": "ampere", "amps": "ampere", "amp": "ampere", "pounds": "pound",
    "pound": "pound", "lbs": "pound", "lb": "pound", "kg": "kilogram", "tons": "ton", "ton": "ton",
    "percent": "percent", "%": "percent", "days": "day", "day": "day", "hours": "hour", "hour": "hour",
    "minutes": "minute", "minute": "minute", "years": "year", "year": "year", "mph": "mile_per_hour",
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
QUANTITY = re.compile(rf"{_NUMBER}\s?-?\s?(?P<unit>{_UNIT})(?![A-Za-z])", re.I)
_AT_LEAST = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:or (?:more|greater|longer|higher|over|above))\b", re.I)
_AT_MOST = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:or (?:less|fewer|under|below|shorter))\b", re.I)
_BEFORE = [(re.compile(rf"(?:{words})\s*$", re.I), sign) for words, sign in (  # the negated forms first
    ("not more than|not exceeding|not to exceed|at most|maximum of|up to|within", "<="),
    ("not less than|at least|minimum of", ">="),
    ("more than|greater than|exceeding|exceeds|over|above", ">"),
    ("less than|fewer than|under|below", "<"),
)]


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


@dataclass(frozen=True)
class Quantity:
    """A figure with its unit in base units (``magnitude``, ``dimension``), and the comparator its text gives
    it (">=", "<=", ">", "<" for a threshold; "" for a plain figure)."""

    text: str
    magnitude: float
    dimension: str
    comparator: str = ""

    def meets(self, figure: Quantity) -> bool | None:
        """Whether a question's figure meets this threshold (None: not comparable, or this is no threshold)."""
        if figure.dimension != self.dimension or not self.comparator:
            return None
        a, b = figure.magnitude, self.magnitude
        close = abs(a - b) <= 0.05 * max(abs(a), abs(b), 1e-9)  # "10 feet (3.1 m)": printed conversions round
        return {">=": a >= b or close, "<=": a <= b or close, ">": a > b and not close, "<": a < b and not close}[self.comparator]

    def same(self, figure: Quantity) -> bool:
        return figure.dimension == self.dimension and abs(figure.magnitude - self.magnitude) <= 0.05 * max(
            abs(figure.magnitude), abs(self.magnitude), 1e-9)


def quantities(text: str) -> list[Quantity]:
    """Every figure with a unit pint converts, in order; one it cannot convert is left out (never compared)."""
    ureg = _registry()
    out = []
    for m in QUANTITY.finditer(text or ""):
        unit = _UNITS.get(m.group("unit").lower())
        if unit is None:
            continue
        try:
            q = ureg.Quantity(float(m.group("num").replace(",", "")), unit).to_base_units()
        except Exception:  # noqa: BLE001 - pint raises many kinds; an unconvertible figure stays text
            continue
        out.append(Quantity(m.group(0), float(q.magnitude), str(q.dimensionality), _comparator(text, m)))
    return out


def _comparator(text: str, m: re.Match[str]) -> str:
    """The threshold a figure states: "5 feet or more" >=, "not more than 5kW" <=, "more than 10 feet" >."""
    before, after = text[max(0, m.start() - 40): m.start()], text[m.end(): m.end() + 40]
    if _AT_LEAST.match(after):
        return ">="
    if _AT_MOST.match(after):
        return "<="
    for pattern, sign in _BEFORE:
        if pattern.search(before):
            return sign
    return ""


def figures_fit(question: str, sentence: str) -> bool:
    """True when every figure the question gives is one the sentence speaks to and meets: a threshold of the
    same kind that the figure meets, or the same figure. A question with no figure always fits."""
    asked = quantities(question)
    if not asked:
        return True
    stated = quantities(sentence)
    for figure in asked:
        same_kind = [q for q in stated if q.dimension == figure.dimension]
        if not same_kind:
            return False  # the rule sets nothing for the figure the question turns on
        if not any(q.meets(figure) or q.same(figure) for q in same_kind):
            return False
    return True


def open_thresholds(question: str, sentence: str) -> list[Quantity]:
    """The sentence's thresholds of a kind the question gives no figure for ("on roofs 50 feet or less in width"
    asked of a roof whose width is not said): conditions the question leaves open."""
    asked = {q.dimension for q in quantities(question)}
    return [q for q in quantities(sentence) if q.comparator and q.dimension not in asked]
