"""Questions that name a provision, in every style people write citations ("29 CFR 1926.651(k)(1)",
"§1926.404(b)(1)", "1926.550,a,9", "1926.451 (g)(1)", "paragraph (b)(10) of 1926.501"), generated from a
corpus's own paragraph ids: the check that a named provision is answered from, first."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from bifrost.eval.questions import Question

_CFR = re.compile(r"^(?P<sec>\d{1,4}\.\d{1,4})(?P<labels>(?:\([^()]+\))+)$")
ASKS = (
    "What does {c} require?",
    "whether the requirement in {c} applies on every site",
    "Does {c} apply to scissor lifts?",
    "Please explain {c}.",
    "what is the rule in {c}",
)
STYLES: dict[str, Callable[[str, str], str]] = {
    "plain": lambda sec, labels: f"{sec}{labels}",
    "cfr": lambda sec, labels: f"29 CFR {sec}{labels}",
    "section-sign": lambda sec, labels: f"§{sec}{labels}",
    "section-sign-space": lambda sec, labels: f"§ {sec}{labels}",
    "commas": lambda sec, labels: sec + "".join("," + part for part in re.findall(r"\(([^()]+)\)", labels)),
    "spaced": lambda sec, labels: f"{sec} {labels}",
    "paragraph-of": lambda sec, labels: f"paragraph {labels} of {sec}",
    "section-word": lambda sec, labels: f"Section {sec}{labels}",
}


def cfr_variants(ids: Sequence[str], n: int = 60, seed: int = 0) -> list[Question]:
    """``n`` questions, each naming one paragraph of ``ids`` (CFR style) in one citation style and one way of
    asking, styles taken in turn; gold is the named paragraph."""
    rng = random.Random(seed)
    paragraphs = sorted(pid for pid in ids if _CFR.match(pid) and "<" not in pid)
    out = []
    styles = list(STYLES.items())
    for i in range(n):
        pid = rng.choice(paragraphs)
        m = _CFR.match(pid)
        assert m is not None
        style, write = styles[i % len(styles)]
        cite = write(m["sec"], m["labels"])
        ask = ASKS[(i // len(styles)) % len(ASKS)]
        out.append(
            Question(id=f"named-{i:02d}", question=ask.format(c=cite), gold=(pid,), extra={"style": style})
        )
    return out


_RULE = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,3}){1,3})\.?(?P<labels>(?:\.?\([^()]+\))*)\.?$")
ADGM_STYLES: dict[str, Callable[[str, str, str], str]] = {
    "rule-of": lambda doc, num, labels: f"Rule {num}{labels} of {doc}",
    "doc-rule": lambda doc, num, labels: f"{doc} Rule {num}{labels}",
    "doc-number": lambda doc, num, labels: f"{doc} {num}{labels}",
}


def adgm_variants(passages: Sequence[tuple[str, str, str]], n: int = 30, seed: int = 0) -> list[Question]:
    """``n`` questions naming an ADGM rule of a named rulebook (``passages``: id, printed number, the
    rulebook's citing name), each in one style and one way of asking; gold is the passage."""
    rng = random.Random(seed)
    rules = sorted((pid, m, doc) for pid, heading, doc in passages if (m := _RULE.match(heading)) and doc)
    styles = list(ADGM_STYLES.items())
    out = []
    for i in range(n):
        pid, m, doc = rng.choice(rules)
        style, write = styles[i % len(styles)]
        cite = write(doc, m["num"], m["labels"].replace(".", ""))
        ask = ASKS[(i // len(styles)) % len(ASKS)]
        out.append(
            Question(
                id=f"named-adgm-{i:02d}", question=ask.format(c=cite), gold=(pid,), extra={"style": style}
            )
        )
    return out
