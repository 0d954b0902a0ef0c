"""What a question asks for, and whether a passage states a fact of that kind.

Rules for any rulebook, not for one corpus: a question asks for a quantity (with a unit family
when the question names a dimension: a height wants a length, a load a weight or a multiple of a
load, a price money), a frequency, a duration, a property (colour, material, marking, type), a
yes/no ruling, a person or body (who), or a moment (when); anything else is `Asks.OTHER`. A
passage holds a matching fact when one of its sentences states a fact of that kind: a number with a
compatible unit, a frequency phrase, a number of time units, a deontic modal ("shall", "must",
"prohibited") for yes/no, a role ("by a qualified person") for who, a temporal clause for when.
Pure functions over strings; `retrieval/answerability/features.py` turns them into model inputs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Asks(str, Enum):
    """The kind of fact a question asks for."""

    QUANTITY = "quantity"
    FREQUENCY = "frequency"
    DURATION = "duration"
    PROPERTY = "property"
    YES_NO = "yes_no"
    WHO = "who"
    WHEN = "when"
    OTHER = "other"


@dataclass(frozen=True)
class Ask:
    """What a question asks for: its kind, the unit families a quantity may have (empty: any number),
    and the property named (colour, material, marking, type)."""

    kind: Asks
    units: frozenset[str] = frozenset()
    prop: str = ""


# --- numbers and units -------------------------------------------------------------------------

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    "eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|half|one-half|one-quarter|"
    "quarter|thirds?|fourths?|fifths?|sixths?|eighths?|tenths?|twelfths?|sixteenths?|thirty-seconds?|single|double"
)
NUMBER = (
    r"(?:\d[\d,]*(?:\.\d+)?(?:\s*(?:/|⁄)\s*\d+)?|\d*\.\d+"
    rf"|(?:{_NUMBER_WORDS})(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORDS}))*)"
)
"""A number as rules print it: 5,000 / 0.1 / 1/2 / 3 1/2 / thirty / one and one-half."""

# one list for every rulebook: a unit or currency name means the same in each
UNIT_FAMILIES: dict[str, str] = {
    # (a question about an ADGM fine in dollars still asks for money), so a per-jurisdiction list would only
    # lose recall
    "length": r"feet|foot|ft\b|inch(?:es)?|in\.|meters?|metres?|m\b|cm\b|mm\b|yards?|miles?\b|km\b"
    r"|stories|storeys|floors",
    "weight": r"pounds?|lbs?\b|kilograms?|kg\b|tons?\b|kn\b|n\b|newtons?|kips?",
    "multiple": r"times\b|percent\b|%|x\b",
    "pressure": r"psi\b|p\.s\.i\.?|pounds per square inch|kpa\b|bars?\b",
    "electric": r"volts?\b|v\b|kv\b|amperes?|amps?\b|a\b|milliamperes?|ma\b|ohms?|watts?|kw\b",
    "temperature": r"°\s*[fc]\b|degrees? (?:f|c|fahrenheit|celsius)\b",
    "angle": r"degrees?\b|°|(?:horizontal|vertical)\b",
    "time": r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|shifts?|working days",
    "percent": r"percent\b|%",
    "concentration": r"ppm\b|parts per million|mg/m|µg/m|μg/m|micrograms? per|milligrams? "
    r"per|µg/dl|μg/dl|f/cc|fibers? per",
    "sound": r"db\b|dba\b|decibels?",
    "light": r"foot-?candles?|lux\b",
    "speed": r"mph\b|miles per hour|(?:feet|foot|meters?) per (?:second|minute)|fpm\b|mps\b",
    "area": r"square (?:feet|foot|inch(?:es)?|meters?|yards?)|sq\.? ?ft",
    "volume": r"gallons?|liters?|litres?|cubic (?:feet|foot|yards?|meters?|inch(?:es)?|centimeters?)",
    "money": r"dollars?|cents?|dirhams?|aed\b|usd\b|us\$|euros?|eur\b|pounds sterling|gbp\b",
}
_RATIO = re.compile(
    r"\b\d+(?:\s*\d/\d)?\s*(?::|to)\s*\d+\b|\b(?:one|two|three|four|five|six)\s+to\s+(?:one|two)\b", re.I
)
_MONEY_SIGN = re.compile(r"[$€£]\s*\d|\b(?:aed|usd|eur|gbp)\s*\d", re.I)
_CITATION = re.compile(
    r"§+\s*[\d.]+[\w()]*|\b\d{4}\.\d{1,4}\b(?:\([\w]+\))*|\((?:[a-z]{1,4}|\d{1,2}|[ivxl]{1,6})\)"
    r"|\b(?:part|subpart|table|appendix|figure|section|paragraph|form|no\.?|rules?|chapter|article|regulation)"
    r"\s+[\w.-]+(?:\([\w]+\))*|\b(?:19|20)\d\d\b"
    r"|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}\b",
    re.I,
)
_STANDARD_NAME = re.compile(r"\b[A-Z]{2,}[\s-]?[A-Z]?\d[\w.-]*")
"""Names of other standards (ANSI Z89.1-2009, SAE J386, NFPA 10A): their numbers are not facts either."""


def _unit_pattern(families: frozenset[str]) -> re.Pattern[str]:
    units = (
        "|".join(UNIT_FAMILIES[f] for f in sorted(families)) if families else "|".join(UNIT_FAMILIES.values())
    )
    return re.compile(rf"(?<![\w.]){NUMBER}\s*(?:\(\s*{NUMBER}\s*\)\s*)?-?\s*(?:{units})", re.I)


def _unit_first(families: frozenset[str]) -> re.Pattern[str]:
    """A unit heading a table column followed by its numbers ("Sound level dBA slow response 8 90")."""
    units = (
        "|".join(UNIT_FAMILIES[f] for f in sorted(families) if f != "multiple")
        if families
        else "|".join(UNIT_FAMILIES.values())
    )
    return re.compile(rf"(?<![\w.])(?:{units or '(?!)'})[^.;\d]{{0,40}}\d", re.I)


def strip_citations(text: str) -> str:
    """Text without citations, paragraph labels, dates and standard names (their numbers are not facts)."""
    return _STANDARD_NAME.sub(" ", _CITATION.sub(" ", text))


def has_quantity(text: str, families: frozenset[str] = frozenset()) -> bool:
    """A number with a unit of one of ``families`` (any unit when empty; a bare number counts then too)."""
    clean = strip_citations(text)
    # "AED 10,000" is no standard's name
    if "money" in families and _MONEY_SIGN.search(_CITATION.sub(" ", text)):
        return True
    if "angle" in families and _RATIO.search(clean):
        return True
    if _unit_pattern(families).search(clean) or _unit_first(families).search(clean):
        return True
    if not families:
        return bool(re.search(rf"(?<![\w.]){NUMBER}\b", clean, re.I) or _RATIO.search(clean))
    return False


# --- other fact kinds --------------------------------------------------------------------------

_FREQUENCY = re.compile(
    r"\b(?:daily|weekly|monthly|quarterly|annually|yearly|semi-?annually|biannually|hourly|periodic(?:ally)?)\b"
    r"|\b(?:every|each)\s+(?:\w+\s+)?(?:shift|day|workday|week|month|year|hour|use|job|time|occasion)s?\b"
    r"|\bevery\s+" + NUMBER + r"\b"
    r"|\b(?:at least|no less than)\s+(?:once|twice|every|annually|yearly|monthly|weekly|daily|quarterly)\b"
    r"|\bonce\s+(?:a|per|each|every)\b|\bper\s+(?:day|shift|week|month|year)\b|\bintervals?\b"
    r"|\b(?:prior to|before|after|at the (?:start|beginning|end) "
    r"of)\s+each\b|\bthereafter\b|\bfrequen(?:t|tly|cy)\b",
    re.I,
)
_TIME_SPAN = re.compile(
    rf"(?<![\w.]){NUMBER}\s*(?:\(\s*\d+\s*\)\s*)?-?\s*(?:{UNIT_FAMILIES['time']})\b", re.I
)
_DURATION_WORDS = re.compile(
    r"\b(?:duration of|for the life of|permanently|until|no later than|within|as long as)\b", re.I
)
_MODAL = re.compile(
    r"\b(?:shall|must|may not|may|is prohibited|are prohibited|prohibited|is required|are required|not "
    r"required|"
    r"is not acceptable|are not acceptable|acceptable|is permitted|are permitted|not permitted|not "
    r"allowed|no employee shall|"
    r"need not)\b",
    re.I,
)
_ROLE_NOUN = (
    r"person|persons|engineer|employer|employers|physician|manufacturer|supervisor|owner|operator|operators|contractor|"
    r"inspector|individual|professional|organization|agency|authority|employee|employees|worker|workers|director|"
    r"plhcp|auditor|designer|surveyor|trainer|representative|department|signal person"
)
_WHO = re.compile(
    rf"\bby\s+(?:a|an|the)?\s*(?:[\w/-]+\s+){{0,3}}(?:{_ROLE_NOUN})\b"
    r"|\b(?:competent|qualified|designated|authorized|certified|trained|licensed|registered|accredited)\s+"
    rf"(?:[\w/-]+\s+){{0,2}}(?:{_ROLE_NOUN}|welder|rigger)\b"
    r"|\bonly\s+(?:employees|persons|workers|operators|those)\b"
    rf"|\b(?:{_ROLE_NOUN})\s+(?:must|shall|is required to|is not required to|determines|may)\b",
    re.I,
)
_WHEN = re.compile(
    r"\b(?:before|prior to|after|following|until|whenever|upon|during|within|as soon as|immediately|no "
    r"later than|"
    r"in the absence of|at the (?:start|beginning|end|time|completion) of|when|once|each time|thereafter|"
    r"at least (?:once|every|annually)|on a (?:\w+ )?basis)\b",
    re.I,
)
PROPERTY_WORDS: dict[str, str] = {
    "color": r"\b(?:red|orange|yellow|green|blue|purple|violet|black|white|gray|grey|brown|magenta|"
    r"fluorescent|"
    r"high-visibility|reflective|reflectorized|colou?r(?:ed)?(?: coded)?)\b",
    "material": r"\b(?:made (?:of|from)|constructed (?:of|from)|consist(?:s|ing)? "
    r"of|steel|wood(?:en)?|timber|lumber|"
    r"aluminum|aluminium|metal(?:lic)?|plastic|fiberglass|synthetic|nylon|polyester|rubber|concrete|masonry|plywood|"
    r"wire rope|fibers?|nonconductive|non-conductive|noncombustible|fire-resistant|glass)\b",
    "marking": r"\b(?:mark(?:ed|ing|ings)?|label(?:ed|led|s)?|letter(?:s|ing)|legend|signs?|tags?|placards?|"
    r"inscri(?:bed|ption)|stamped|posted|the words?|colou?r coded)\b|[“\"][^”\"]{2,60}[”\"]",
    "type": r"\b(?:type|class|category|grade|shade|rated|rating|model|kind)\s+(?:number\s+)?[\w\d-]+"
    r"|\b(?:shade|class)\s+\d",
}


_CONDITION = re.compile(
    r"\b(?:only|shall not|must not|may not|may|need not|no "
    r"(?:employee|person|one)|except|exception|unless|provided that|"
    r"in lieu of|instead of|prohibited|not permitted|not allowed|not required|not acceptable|is "
    r"permitted|are permitted|"
    r"permitted only|never)\b",
    re.I,
)


def states_condition(text: str) -> bool:
    """Whether ``text`` states the condition a yes/no question turns on (a limit, a permission, an
    exception: "only", "shall not", "except", "unless", "may"), beyond a bare "shall"."""
    return bool(_CONDITION.search(text))


def has_fact(text: str, ask: Ask) -> bool:
    """Whether ``text`` (a sentence or a passage) states a fact of the kind ``ask`` wants."""
    kind = ask.kind
    if kind is Asks.QUANTITY:
        return has_quantity(text, ask.units)
    if kind is Asks.FREQUENCY:
        return bool(_FREQUENCY.search(text)) or bool(
            _TIME_SPAN.search(strip_citations(text))
            and re.search(r"\bevery|\bat least|\bintervals?|\bexceed", text, re.I)
        )
    if kind is Asks.DURATION:
        clean = strip_citations(text)
        return bool(_TIME_SPAN.search(clean)) or bool(
            _DURATION_WORDS.search(clean) and re.search(NUMBER, clean, re.I)
        )
    if kind is Asks.PROPERTY:
        pattern = PROPERTY_WORDS.get(ask.prop)
        patterns = [pattern] if pattern else list(PROPERTY_WORDS.values())
        return any(re.search(p, text, re.I) for p in patterns)
    if kind is Asks.YES_NO:
        return bool(_MODAL.search(text))
    if kind is Asks.WHO:
        return bool(_WHO.search(text))
    if kind is Asks.WHEN:
        return bool(_WHEN.search(text)) or bool(_FREQUENCY.search(text))
    return False


# --- what a question asks for --------------------------------------------------------------------

DIMENSIONS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        r"\b(?:cost|costs|price|prices|fee|fees|fine|fines|penalty|penalties|wage|wages|salary|paid|pay|dollars?)\b",
        frozenset({"money"}),
    ),
    (r"\b(?:noise|sound|decibels?|dba|loud)\b", frozenset({"sound"})),
    (r"\b(?:light|lighting|illumination|foot-?candles?|bright)\b", frozenset({"light"})),
    (r"\b(?:pressure|psi)\b", frozenset({"pressure"})),
    (r"\b(?:volts?|voltage|current|amps?|amperes?|kv)\b", frozenset({"electric"})),
    (
        r"\b(?:temperature|hot|cold|degrees? (?:f|c|fahrenheit|celsius)|heat index)\b",
        frozenset({"temperature"}),
    ),
    (r"\b(?:speed|fast|mph)\b", frozenset({"speed"})),
    (r"\b(?:angles?|slope|steep|steepest|incline|pitch)\b", frozenset({"angle"})),
    (
        r"\b(?:concentration|exposure limit|pel|action level|blood lead|ppm|percentage|percent|oxygen)\b",
        frozenset({"percent", "concentration"}),
    ),
    (r"\b(?:area|square)\b", frozenset({"area"})),
    (r"\b(?:gallons?|volume|liquids?|liters?|water|oil|fuel)\b", frozenset({"volume"})),
    (
        r"\b(?:weight|weigh|heavy|load|loads|force|strength|strong|capacity|hold|support|withstand|breaking|tensile|overload)\b",
        frozenset({"weight", "multiple"}),
    ),
    (
        r"\b(?:height|high|tall|far|distance|width|wide|depth|deep|long|length|clearance|close|thick|thickness|spacing|spaced|"
        r"size|diameter|gap|opening|openings|extend|apart|above|below|radius|feet|inches)\b",
        frozenset({"length"}),
    ),
)
_TIME_NOUN = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|shifts?|working days|calendar days)"
_PROPERTY_ASKED = re.compile(
    r"\b(?:what|which)\s+(?:[\w-]+\s+){0,2}?(colou?r|material|materials|marking|markings|label|labels|sign|signs|wording|words|"
    r"letters|lettering|type|kind|class|shade|grade|brand|model|tag)\b"
    r"|\bhow\s+(?:must|should|shall|is|are)\b.*\b(marked|labell?ed|made|constructed|painted|colou?red|identified|flagged|visible)\b",
    re.I,
)
_PROP_OF = {
    "colour": "color",
    "color": "color",
    "painted": "color",
    "coloured": "color",
    "colored": "color",
    "material": "material",
    "materials": "material",
    "made": "material",
    "constructed": "material",
    "type": "type",
    "kind": "type",
    "class": "type",
    "shade": "type",
    "grade": "type",
    "brand": "type",
    "model": "type",
}
_QUANTITY_ASKED = re.compile(
    r"\bhow (?:many|much|far|high|tall|wide|deep|thick|heavy|close|big|large|strong|fast|low|steep|hot|cold"
    r"|loud|long)\b"
    r"|\b(?:what|which)\s+(?:is|are)?\s*(?:the\s+)?(?:minimum|maximum|min|max|least|most|lowest|highest|greatest|smallest|largest|"
    r"steepest|permissible|allowable|required)\b"
    r"|\b(?:what|which)\s+(?:is\s+|are\s+)?(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:height|distance|width|depth|length|clearance|load|weight|"
    r"force|pressure|voltage|temperature|angles?|slope|percentage|percent|concentration|level|size|spacing|capacity|strength|"
    r"rating|ratio|speed|number|amount|limit|overload|multiple|score|radius|span|current|gauge|torque|cost|price|fee|penalty|"
    r"wage|age|spf|life)\b"
    r"|\b(?:what|how much) (?:does|do|did|will|would) .*\b(?:cost|charge|pay)\b"
    r"|\b(?:at|above|below|beyond|to|under|over|between) what\b",
    re.I,
)


def _units_of(question: str, after: int = 0) -> frozenset[str]:
    """Unit families of the dimension the question names first (after the position ``after``)."""
    hits = []
    for pattern, families in DIMENSIONS:
        m = re.search(pattern, question[after:], re.I)
        if m:
            hits.append((m.start(), families))
    return min(hits, key=lambda h: h[0])[1] if hits else frozenset()


def _how_many_units(low: str) -> frozenset[str] | None:
    """Unit families of "how many <unit>" (None when no unit follows: a count, any number)."""
    m = re.search(r"\bhow many ([\w-]+(?: [\w-]+)?)", low)
    if not m:
        return None
    head = m.group(1)
    if re.match(r"times\b", head):
        return frozenset({"multiple"})
    for family, units in UNIT_FAMILIES.items():
        if family != "multiple" and re.match(rf"(?:{units})(?![\w-])", head, re.I):
            return frozenset({family})
    return frozenset()


def detect(question: str) -> Ask:
    """The kind of fact ``question`` asks for (rules in the order a reader would apply them)."""
    q = " ".join((question or "").split())
    low = q.lower()
    if re.search(
        r"\bhow (?:often|frequently|regularly)\b|\bat what (?:intervals?|frequency)\b|\bhow many times "
        r"(?:a|per|each|every)\b"
        r"|\bwith what frequency\b|\bhow many \w+ (?:per|a|each) (?:day|week|month|year|shift)\b",
        low,
    ):
        return Ask(Asks.FREQUENCY)
    if re.search(
        rf"\bhow soon\b|\bwithin how many\b|\bfor how (?:many|long)\b|\bhow many {_TIME_NOUN}\b|\bafter how "
        rf"many {_TIME_NOUN}\b"
        r"|\b(?:shelf|service) life\b",
        low,
    ) or (re.search(r"\bhow long\b", low) and not re.search(r"\bhow long (?:\w+ ){0,5}be\??$", low)):
        return Ask(Asks.DURATION, frozenset({"time"}))
    if re.match(r"(?:who|whom|whose)\b", low) or re.search(
        r"\bby whom\b|\bwhich (?:person|people|party|body|agency|union|employer|trade)\b", low
    ):
        return Ask(Asks.WHO)
    if re.match(r"when\b", low) or re.search(
        r"\b(?:at )?what (?:point|time|stage|date)\b|\bby what date\b|\bduring which (?:months?|period)\b",
        low,
    ):
        return Ask(Asks.WHEN)
    quantity = _QUANTITY_ASKED.search(low)
    prop = _PROPERTY_ASKED.search(low)
    if prop and not (quantity and quantity.start() < prop.start()):
        word = next(g for g in prop.groups() if g)
        return Ask(Asks.PROPERTY, prop=_PROP_OF.get(word, "marking"))
    if quantity:
        counted = _how_many_units(low)
        return Ask(Asks.QUANTITY, counted if counted is not None else _units_of(q, quantity.start()))
    if re.match(
        r"(?:is|are|was|were|do|does|did|can|could|may|might|must|shall|should|will|would|has|have)\b", low
    ):
        return Ask(Asks.YES_NO)
    return Ask(Asks.OTHER)
