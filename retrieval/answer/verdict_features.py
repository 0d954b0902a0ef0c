"""What the verdict classifiers read of a yes/no question once the governing rule is chosen: how sure the
selector is, what the governing rule (and the runner-up) states, its conditions and exceptions against the
question's facts, what its deciding sentence says to the question's stance (`deontic.decision`), and the
question's stance itself. One row per question, named columns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from bifrost.core.requirement_types import Requirement
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.retrieval.answer.deontic import Decision, QuestionStance, condition_met, decision, read_rule
from bifrost.retrieval.answer.governing import FEATURES as SELECTOR

Tokenize = Callable[[str], list[str]]

_RULE = (
    "must",
    "must_not",
    "may",
    "need_not",
    "cond_met",
    "cond_not_met",
    "cond_open",
    "exc_open",
    "exc_stated",
)
_SAYS = ("yes", "no", "depends", "nothing")
VERDICT_FEATURES: tuple[str, ...] = (
    "gov_prob",
    "gov_rank_log",
    "gov_records",
    *(f"gov_{c}" for c in _RULE),
    *(f"gov_says_{s}" for s in _SAYS),
    "second_prob",
    *(f"second_{c}" for c in _RULE[:4]),
    *(f"second_says_{s}" for s in _SAYS),
    "q_permission",
    "q_obligation",
    "q_prohibition",
    "q_omission",
    "q_every",
    "q_polar",
    "q_figures",
    "q_named",
)
_COLUMN = {
    "must": "force_must",
    "must_not": "force_must_not",
    "may": "force_may",
    "need_not": "force_need_not",
    "cond_met": "cond_met",
    "cond_not_met": "cond_not_met",
    "cond_open": "cond_open",
    "exc_open": "exc_open",
    "exc_stated": "exc_stated",
}
_AT = {name: SELECTOR.index(name) for name in (*_COLUMN.values(), "rank_log", "records", "named_exact")}
_Q = [
    SELECTOR.index(n)
    for n in ("q_permission", "q_obligation", "q_prohibition", "q_omission", "q_every", "q_polar")
]


def deciding_sentence(
    records: Sequence[Requirement], asks: Sequence[frozenset[str]], tokenize: Tokenize, fallback: str = ""
) -> str:
    """The rule sentence that speaks most to the question: the record holding most of its asks (the first of
    equals); the provision's text when it has no record."""
    if not records:
        return fallback
    terms = [set(tokenize(r.text)) for r in records]
    held = [sum(1 for a in asks if a <= t) for t in terms]
    return records[int(np.argmax(held))].text


def says(
    stance: QuestionStance, sentence: str, question: str, tokenize: Tokenize, words: RulebookWords = GENERIC
) -> Decision | None:
    """What one rule sentence decides of the question (`deontic.decision`), its condition taken as met when
    the question states all of it."""
    if not sentence or not stance.is_yes_no:
        return None  # a polar question the deontic patterns do not read
    rule = read_rule(sentence, words)
    value = decision(stance, rule)
    if value is Decision.DEPENDS and condition_met(sentence, question, tokenize, words):
        value = decision(stance, replace(rule, exception=False))
    return value


def _says_columns(value: Decision | None) -> list[float]:
    return [
        float(value is Decision.YES),
        float(value is Decision.NO),
        float(value is Decision.DEPENDS),
        float(value is None),
    ]


def verdict_row(
    rows: np.ndarray,
    probabilities: np.ndarray,
    order: Sequence[int],
    sentences: Sequence[str],
    stance: QuestionStance,
    question: str,
    tokenize: Tokenize,
    words: RulebookWords = GENERIC,
) -> np.ndarray:
    """The verdict row of a question: ``rows`` are its selector rows, ``order`` the candidates by probability
    (best first), ``sentences`` the deciding sentence of each candidate (same order as ``rows``)."""
    gov = order[0]
    second = order[1] if len(order) > 1 else None
    gov_says = says(stance, sentences[gov], question, tokenize, words)
    out = [
        float(probabilities[gov]),
        float(rows[gov, _AT["rank_log"]]),
        float(rows[gov, _AT["records"]]),
        *(float(rows[gov, _AT[_COLUMN[c]]]) for c in _RULE),
        *_says_columns(gov_says),
    ]
    if second is None:
        out += [0.0] * (1 + 4 + len(_SAYS))
    else:
        out += [
            float(probabilities[second]),
            *(float(rows[second, _AT[_COLUMN[c]]]) for c in _RULE[:4]),
            *_says_columns(says(stance, sentences[second], question, tokenize, words)),
        ]
    out += [float(rows[gov, i]) for i in _Q]
    out += [float(rows[gov, SELECTOR.index("q_figures")]), float(rows[:, _AT["named_exact"]].max() > 0)]
    return np.asarray(out, dtype=np.float32)
