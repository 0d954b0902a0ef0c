"""Citations as people write them loosely in the CFR's style ("1926.550,a,9", "subpart m"), rewritten as
printed, so that the reference extractor reads a question as it reads the rules."""

from __future__ import annotations

import re

_LOOSE_LABELS = re.compile(
    r"(?P<num>\b\d{3,4}\.\d{1,4})(?P<labels>(?:[,.](?:[a-z]{1,4}|[A-Z]|\d{1,2})){1,6})(?![\w(]|[,.][A-Za-z0-9])"
)
_LABEL_FORM = re.compile(r"^(?:[a-z]{1,4}|[A-Z]|\d{1,2})$")
_LOWER_SUBPART = re.compile(r"\b[Ss]ub-?parts?[^\S\n]+(?P<letters>[a-zA-Z]{1,2})\b(?![\w.]\w)")


def loosen(text: str) -> str:
    """The question with loose citation forms rewritten as printed ones ("1926.550,a,9" -> "1926.550(a)(9)",
    "subpart m" -> "Subpart M"); everything else unchanged. Labels joined by dots or commas follow a part-and-
    section number only (three or four digits first), so rule numbers such as "3.2.1" stay as written."""

    def labels(m: re.Match[str]) -> str:
        parts = [p for p in re.split(r"[,.]", m.group("labels")) if p]
        if not all(_LABEL_FORM.match(p) for p in parts):
            return m.group(0)
        return m.group("num") + "".join(f"({p})" for p in parts)

    text = _LOOSE_LABELS.sub(labels, text)
    return _LOWER_SUBPART.sub(lambda m: f"Subpart {m.group('letters').upper()}", text)
