"""Answerability features of one question: what the question asks for, whether the top retrieved
provisions state a matching fact about the question's subject, how much of the question the
retrieved text covers, and how confident retrieval was. Pure functions over typed records; the
pipeline (`retrieval/answerability/judge.py`) fills the records from a retrieval result."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bifrost.retrieval.answerability.question_kinds import Ask, Asks, detect, has_fact
from bifrost.core.sentences import sentences

Tokenize = Callable[[str], list[str]]

TOP_FACT = 5
"""Retrieved provisions searched for an answer-bearing sentence."""
TOP_COVER = 3
"""Retrieved provisions whose text (with context) must cover the question's terms."""

QUESTION_WORDS = (
    "how what which who whom whose when where why often frequently regularly many much far high tall wide "
    "deep long "
    "close soon must shall should may can could would will need needs needed require requires required "
    "allowed allow "
    "permitted is are does do did have has get minimum maximum least most lowest highest greatest smallest "
    "largest "
    "any every each kind type"
)
"""Words that say what is asked, not about what (removed from the question's subject terms)."""


@dataclass(frozen=True)
class Passage:
    """A retrieved provision: its own text (facts are read there) and the context that names its subject
    (section heading, parent text)."""

    id: str
    text: str
    context: str = ""


@dataclass(frozen=True)
class Term:
    """A question term as the lexical index sees it, with the number of provisions holding it."""

    token: str
    df: int


@dataclass(frozen=True)
class RetrievalSignals:
    """What retrieval itself says: best dense cosine, ranker scores best first, entity-network matches (best
    cosine of any question entity, and the mean over question entities of their best cosine)."""

    dense_top: float
    ranker_scores: tuple[float, ...] = ()
    entity_cosine: float = 0.0
    entity_mean: float = 0.0
    # the nearest answered questions: the best citing the corpus, the best citing none of it, and the share of
    # the latter among the few nearest of both (a question answered elsewhere sits among them)
    inside_top: float = 0.0
    outside_top: float = 0.0
    outside_share: float = 0.0


FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "dense": ("dense_top",),
    "ranker": ("ranker_top", "ranker_gap"),
    "entities": ("entity_cosine", "entity_mean"),
    "lexical": ("coverage_top1", "coverage_top3", "missing_idf", "unknown_share"),
    "facts": ("fact_top1", "fact_any", "fact_support"),
    "question": ("asks_typed",),
    "support": ("support_top", "support_mean"),
    "neighbourhood": ("prec_inside_top", "prec_outside_top", "prec_outside_share"),
}
"""Features in named groups, so that cross-validation can report the model without each group."""
FEATURES: tuple[str, ...] = tuple(f for group in FEATURE_GROUPS.values() for f in group)
"""Model inputs, in order (a stored model's card lists them; a different list is refused)."""


def idf(df: int, n_docs: int) -> float:
    """BM25's idf of a term held by ``df`` of ``n_docs`` provisions, divided by the idf of an unseen term
    (0..1)."""
    top = math.log(1 + (n_docs + 0.5) / 0.5)
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) / top if n_docs > 0 else 0.0


def subject_terms(terms: Sequence[Term], tokenize: Tokenize) -> list[Term]:
    """The question's terms without the words that only say what is asked."""
    asked = set(tokenize(QUESTION_WORDS))
    seen: set[str] = set()
    out = []
    for t in terms:
        if t.token not in asked and t.token not in seen:
            seen.add(t.token)
            out.append(t)
    return out


def coverage(tokens: set[str], terms: Sequence[Term], weights: Sequence[float]) -> float:
    """Idf-weighted share of ``terms`` present in ``tokens`` (0 without terms)."""
    total = sum(weights)
    return sum(w for t, w in zip(terms, weights) if t.token in tokens) / total if total > 0 else 0.0


def fact_support(
    ask: Ask, passages: Sequence[Passage], terms: Sequence[Term], weights: Sequence[float], tokenize: Tokenize
) -> tuple[float, bool, bool]:
    """(best subject coverage of a sentence stating a matching fact, among ``passages``; whether the first
    passage has such a sentence; whether any has). Context tokens count towards a sentence's coverage."""
    if ask.kind is Asks.OTHER:
        return 0.0, False, False
    best, first, anywhere = 0.0, False, False
    for rank, p in enumerate(passages):
        context = set(tokenize(p.context))
        for sentence in sentences(p.text):
            if not has_fact(sentence, ask):
                continue
            anywhere = True
            first = first or rank == 0
            best = max(best, coverage(set(tokenize(sentence)) | context, terms, weights))
    return best, first, anywhere


def features(
    question: str,
    passages: Sequence[Passage],
    terms: Sequence[Term],
    n_docs: int,
    signals: RetrievalSignals,
    tokenize: Tokenize,
    ask: Ask | None = None,
    support_scores: Sequence[float] = (),
) -> dict[str, float]:
    """Every feature in `FEATURES` for one question and its retrieved ``passages`` (best first);
    ``support_scores``: the support scorer's scores of the top passages (none: no scorer, both support
    features 0)."""
    ask = ask or detect(question)
    subject = subject_terms(terms, tokenize)
    weights = [idf(t.df, n_docs) for t in subject]
    docs = [set(tokenize(f"{p.text} {p.context}")) for p in passages[:TOP_COVER]]
    union = set().union(*docs) if docs else set()
    missing = [w for t, w in zip(subject, weights) if t.token not in union]
    total = sum(weights)
    support, first, anywhere = fact_support(ask, passages[:TOP_FACT], subject, weights, tokenize)
    ranker = signals.ranker_scores
    return {
        "dense_top": signals.dense_top,
        "ranker_top": ranker[0] if ranker else 0.0,
        "ranker_gap": ranker[0] - ranker[1] if len(ranker) > 1 else 0.0,
        "entity_cosine": signals.entity_cosine,
        "entity_mean": signals.entity_mean,
        "coverage_top1": coverage(docs[0], subject, weights) if docs else 0.0,
        "coverage_top3": coverage(union, subject, weights),
        "missing_idf": max(missing, default=0.0),
        "unknown_share": sum(w for t, w in zip(subject, weights) if t.df == 0) / total if total > 0 else 0.0,
        "fact_top1": float(first),
        "fact_any": float(anywhere),
        "fact_support": support,
        "asks_typed": float(ask.kind is not Asks.OTHER),
        "support_top": max(support_scores, default=0.0),
        "support_mean": sum(support_scores) / len(support_scores) if support_scores else 0.0,
        "prec_inside_top": signals.inside_top,
        "prec_outside_top": signals.outside_top,
        "prec_outside_share": signals.outside_share,
    }


def columns_without(groups: set[str]) -> list[int]:
    """Column indexes of every feature outside ``groups`` (for ablations)."""
    unknown = groups - set(FEATURE_GROUPS)
    if unknown:
        raise ValueError(f"unknown feature group(s) {sorted(unknown)}; known: {', '.join(FEATURE_GROUPS)}")
    return [i for i, f in enumerate(FEATURES) if not any(f in FEATURE_GROUPS[g] for g in groups)]


def vector(row: dict[str, float], names: Sequence[str] = FEATURES) -> list[float]:
    """A feature row in the order of ``names``."""
    return [float(row[n]) for n in names]
