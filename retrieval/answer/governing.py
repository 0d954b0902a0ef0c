"""What the governing-rule selector reads of each of a question's top candidates: where the ranker put it,
what the ranker saw (named, precedent votes, the question's figures against its thresholds, its kind), its
place among the other candidates (siblings, section, ancestors), what its requirement records state (force,
conditions met / not met / not stated, exceptions taken up or open), whether it is about an activity the
question sets aside, and whether the rule binds whom and speaks of what the question does.

Rules of any English rulebook, no words of one: the rulebook's own records (`graph_builders/requirements/`)
and the navigator graph give every column. The columns are named (`FEATURES`) so that a model card can check
it reads the same ones."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from bifrost.core.condition_check import check_condition
from bifrost.core.requirement_types import Requirement
from bifrost.graph_builders.requirements.read import force_of
from bifrost.retrieval.answer.applicability import check_exception
from bifrost.retrieval.answer.deontic import Asked
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.ranking.ltr.features import FEATURES as RANKER_FEATURES

Tokenize = Callable[[str], list[str]]

TOP = 20
"""Candidates the selector weighs: the ranker's best, those with text of their own."""
RANKER_COLUMNS = (
    "named_exact",
    "named_within",
    "prec_direct",
    "prec_inherited",
    "prec_below",
    "prec_rank_log",
    "app_met",
    "app_not_met",
    "app_same_kind",
    "kind_paragraph",
    "kind_definition",
    "kind_note",
    "kind_section",
    "kind_appendix",
    "level",
    "text_len_log",
    "bm25_norm",
    "term_coverage_idf",
    "dense",
    "dense_gap",
    "entity_score_norm",
    "triple_cosine",
    "section_dense",
    "parent_dense",
)
"""What the ranker saw of a candidate, passed on as it is."""
_RANKER_AT = [RANKER_FEATURES.index(name) for name in RANKER_COLUMNS]
PLACE = (
    "rank_log",
    "is_top",
    "score",
    "score_gap_top",
    "score_gap_next",
    "score_z",
    "children_log",
    "siblings_in_top",
    "section_in_top",
    "section_first",
    "ancestor_above",
    "descendants_in_top",
)
RECORDS = (
    "records",
    "force_must",
    "force_must_not",
    "force_may",
    "force_need_not",
    "conditions",
    "cond_met",
    "cond_not_met",
    "cond_open",
    "exceptions",
    "exc_open",
    "exc_stated",
    "set_aside",
    "who_in_question",
    "action_in_question",
    "sentence_cover",
)
QUESTION = (
    "q_yes_no",
    "q_permission",
    "q_obligation",
    "q_prohibition",
    "q_omission",
    "q_every",
    "q_polar",
    "q_figures",
)
FEATURES: tuple[str, ...] = RANKER_COLUMNS + PLACE + RECORDS + QUESTION
_MUST = {"must", "required"}
_MUST_NOT = {"must_not", "may_not"}
_NEED_NOT = {"need_not", "not_required", "does_not_apply"}


@dataclass(frozen=True)
class QuestionView:
    """What the selector reads of the question: its terms, its specific asks, the figures with what each
    measures, the activities it sets aside, and its yes/no stance."""

    terms: frozenset[str]
    asks: tuple[frozenset[str], ...]
    figures: tuple
    excluded: frozenset[str]
    stance: object  # `deontic.QuestionStance`


def named_row() -> np.ndarray:
    """The ranker row of a provision the question names that the ranker did not score (it leads the answer
    whatever the ranker thought): nothing but that it is named."""
    row = np.zeros(len(RANKER_FEATURES), dtype=np.float32)
    for name in ("named_exact", "named_any"):
        row[RANKER_FEATURES.index(name)] = 1.0
    return row


def candidates_of(ids: Sequence[str], nav: NavigatorIndex, top: int = TOP) -> list[int]:
    """Positions (in ranked order) of the candidates the selector weighs: the first ``top`` with text of their
    own (a heading over its paragraphs states nothing a rule can be quoted from)."""
    out = []
    for i, pid in enumerate(ids):
        if nav.text_len.get(pid, 0) > 0:
            out.append(i)
            if len(out) == top:
                break
    return out


def rows(
    ids: Sequence[str],
    scores: np.ndarray,
    ranker_rows: np.ndarray,
    nav: NavigatorIndex,
    asked: QuestionView,
    tokenize: Tokenize,
    text: Callable[[str], str],
) -> np.ndarray:
    """One row per candidate (``ids`` best first, with the ranker's ``scores`` and feature rows), one column
    per name in `FEATURES`."""
    if not len(ids):
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    scores = np.asarray(scores, dtype=np.float64)
    place = _place(ids, scores, nav)
    question = _question(asked)
    out = [
        [*ranker_rows[i, _RANKER_AT], *place[i], *_records(pid, nav, asked, tokenize, text), *question]
        for i, pid in enumerate(ids)
    ]
    return np.asarray(out, dtype=np.float32).reshape(len(ids), len(FEATURES))


def _place(ids: Sequence[str], scores: np.ndarray, nav: NavigatorIndex) -> list[list[float]]:
    """The `PLACE` columns: rank and score against the others, and the candidate's family among them."""
    mean, std = float(scores.mean()), float(scores.std()) or 1.0
    rank_of = {pid: r for r, pid in enumerate(ids)}
    section_first: dict[str, int] = {}
    for r, pid in enumerate(ids):
        section_first.setdefault(nav.section.get(pid, pid), r)
    out = []
    for r, pid in enumerate(ids):
        parent, section = nav.parent.get(pid), nav.section.get(pid, pid)
        chain = _ancestors(pid, nav)
        out.append(
            [
                math.log2(2 + r),
                float(r == 0),
                float(scores[r]),
                float(scores[0] - scores[r]),
                float(scores[r] - scores[r + 1]) if r + 1 < len(ids) else 0.0,
                (float(scores[r]) - mean) / std,
                math.log2(1 + len(nav.children.get(pid, ()))),
                sum(1 for o in ids if o != pid and parent is not None and nav.parent.get(o) == parent),
                sum(1 for o in ids if o != pid and nav.section.get(o, o) == section),
                float(section_first[section] == r),
                float(any(rank_of.get(a, len(ids)) < r for a in chain)),
                sum(1 for o in ids if pid in _ancestors(o, nav)),
            ]
        )
    return out


def _ancestors(pid: str, nav: NavigatorIndex) -> tuple[str, ...]:
    out, node = [], nav.parent.get(pid)
    while node is not None and len(out) < 12:
        out.append(node)
        node = nav.parent.get(node)
    return tuple(out)


def _records(
    pid: str, nav: NavigatorIndex, asked: QuestionView, tokenize: Tokenize, text: Callable[[str], str]
) -> list[float]:
    """The `RECORDS` columns: what the candidate's requirement records state, checked against the question."""
    records = nav.requirements.get(pid, ())
    forces = {r.force for r in records}
    statuses = [check_condition(c, asked.figures)[0] for r in records for c in r.conditions]
    exceptions = [
        check_exception(e.text, set(asked.terms), tokenize, r.text) for r in records for e in r.exceptions
    ]
    own = set(tokenize(text(pid)))
    binds = [_binds_asked(r, asked.terms, tokenize) for r in records]
    who = any(b[0] for b in binds)
    action = any(b[1] for b in binds)
    return [
        float(len(records)),
        float(bool(forces & _MUST)),
        float(bool(forces & _MUST_NOT)),
        float("may" in forces),
        float(bool(forces & _NEED_NOT)),
        float(len(statuses)),
        float(statuses.count("met")),
        float(statuses.count("not_met")),
        float(statuses.count("not_stated")),
        float(len(exceptions)),
        float(exceptions.count("not_stated")),
        float(exceptions.count("stated")),
        float(bool(asked.excluded & own)),
        float(who),
        float(action),
        _sentence_cover(pid, records, asked, tokenize, text),
    ]


def _binds_asked(r: Requirement, terms: frozenset[str], tokenize: Tokenize) -> tuple[bool, bool]:
    """Whether the question names whom the rule binds (beyond a bare "employer") and what it must do (the
    words after the modal)."""
    who, action = _parts(r.text)
    who_terms = set(tokenize(who)) - {"employ", "employer"}
    action_terms = set(tokenize(action))
    return bool(who_terms and who_terms & terms), bool(action_terms and action_terms & terms)


@lru_cache(maxsize=16384)
def _parts(sentence: str) -> tuple[str, str]:
    """A rule sentence's subject (the words before its modal) and action (the few words after it)."""
    found = force_of(sentence)
    if found is None:
        return "", ""
    _, at = found
    head = sentence[:at]
    after = re.sub(r"^\s*\w+(?:\s+not)?\s+(?:be\s+)?", "", sentence[at:])
    return " ".join(re.findall(r"[A-Za-z][\w-]*", head)[-4:]), " ".join(after.split()[:4])


def _sentence_cover(
    pid: str,
    records: Sequence[Requirement],
    asked: QuestionView,
    tokenize: Tokenize,
    text: Callable[[str], str],
) -> float:
    """The largest share of the question's specific asks that one sentence of the candidate holds."""
    if not asked.asks:
        return 0.0
    sentences = [r.text for r in records] or [text(pid)]
    best = 0.0
    for s in sentences:
        held = set(tokenize(s))
        best = max(best, sum(1 for a in asked.asks if a <= held) / len(asked.asks))
    return best


def _question(asked: QuestionView) -> list[float]:
    stance = asked.stance
    asks = getattr(stance, "asked", Asked.NONE)
    return [
        float(asks is not Asked.NONE),
        float(asks is Asked.PERMISSION),
        float(asks is Asked.OBLIGATION),
        float(asks is Asked.PROHIBITION),
        float(bool(getattr(stance, "omission", False))),
        float(bool(getattr(stance, "every", False))),
        float(bool(getattr(stance, "polar", False))),
        float(len(asked.figures)),
    ]
