"""Pure P/R/F1 arithmetic: counts per provision, micro-averaged within a subpart, macro across.

A provision's counts come from deduplicated keys (see `matching`); precision, recall or F1 with a
zero denominator is 0.0. Macro P, R and F1 are the unweighted means of the subparts' values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from bifrost.core.types import Extraction, make_uid
from bifrost.eval.extraction.gold import GoldProvision
from bifrost.eval.extraction.matching import (
    Lemmatizer,
    entity_key,
    identity_lemma,
    max_matching,
    relaxed_entity_match,
    relaxed_triple,
    relaxed_triple_match,
    strict_triple,
)

MEASURES = ("entities", "triples", "entities_relaxed", "triples_relaxed")


@dataclass(frozen=True)
class Counts:
    """True positives, false positives, false negatives."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)


def from_matches(matched: int, n_gold: int, n_pred: int) -> Counts:
    """Counts from a matching of size ``matched`` between ``n_gold`` and ``n_pred`` items."""
    return Counts(tp=matched, fp=n_pred - matched, fn=n_gold - matched)


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


class Prf(BaseModel):
    """Precision, recall, F1 (and the counts behind them when micro-averaged)."""

    precision: float
    recall: float
    f1: float
    tp: int | None = None
    fp: int | None = None
    fn: int | None = None


def prf(c: Counts) -> Prf:
    """Micro P/R/F1 of summed counts."""
    p, r = _ratio(c.tp, c.tp + c.fp), _ratio(c.tp, c.tp + c.fn)
    return Prf(
        precision=p, recall=r, f1=_ratio(2 * p * r, p + r) if p + r else 0.0, tp=c.tp, fp=c.fp, fn=c.fn
    )


def macro(scores: Iterable[Prf]) -> Prf:
    """Unweighted mean of P, R and F1 (each averaged separately, as in the paper's tables)."""
    s = list(scores)
    n = len(s)
    return Prf(
        precision=sum(x.precision for x in s) / n if n else 0.0,
        recall=sum(x.recall for x in s) / n if n else 0.0,
        f1=sum(x.f1 for x in s) / n if n else 0.0,
    )


def provision_counts(
    gold: GoldProvision, pred: Extraction | None, lemmatize: Lemmatizer = identity_lemma
) -> dict[str, Counts]:
    """Counts of every measure for one provision; a missing extraction predicts nothing."""
    g_ent = list(dict.fromkeys(k for k in map(entity_key, gold.entities) if k))
    p_ent = list(dict.fromkeys(k for k in (entity_key(e.name) for e in (pred.entities if pred else ())) if k))
    p_raw = [(t.head, t.relation, t.tail) for t in (pred.triples if pred else ())]
    g_tri = list(dict.fromkeys(strict_triple(*t, lemmatize) for t in gold.triples))
    p_tri = list(dict.fromkeys(strict_triple(*t, lemmatize) for t in p_raw))
    g_rel = list(dict.fromkeys(relaxed_triple(*t, lemmatize) for t in gold.triples))
    p_rel = list(dict.fromkeys(relaxed_triple(*t, lemmatize) for t in p_raw))
    return {
        "entities": from_matches(len(set(g_ent) & set(p_ent)), len(g_ent), len(p_ent)),
        "triples": from_matches(len(set(g_tri) & set(p_tri)), len(g_tri), len(p_tri)),
        "entities_relaxed": from_matches(
            max_matching(g_ent, p_ent, relaxed_entity_match), len(g_ent), len(p_ent)
        ),
        "triples_relaxed": from_matches(
            max_matching(g_rel, p_rel, relaxed_triple_match), len(g_rel), len(p_rel)
        ),
    }


class ExtractionScores(BaseModel):
    """Per-subpart micro scores, their macro average, and the micro score over all provisions."""

    provisions: int
    extractor: str = ""
    per_subpart: dict[str, dict[str, Prf]] = Field(default_factory=dict)
    macro: dict[str, Prf] = Field(default_factory=dict)
    micro_all: dict[str, Prf] = Field(default_factory=dict)
    missing_predictions: list[str] = Field(default_factory=list)
    per_provision: dict[str, dict[str, Prf]] | None = None


def score_extractions(
    gold: Sequence[GoldProvision],
    predictions: Mapping[str, Extraction],
    lemmatize: Lemmatizer = identity_lemma,
    extractor: str = "",
    details: bool = False,
) -> ExtractionScores:
    """Score extractions (keyed by provision uid, ``corpus:id``) against gold: micro within subpart,
    macro across subparts."""
    by_subpart: dict[str, dict[str, Counts]] = {}
    total = {m: Counts() for m in MEASURES}
    per_provision: dict[str, dict[str, Prf]] = {}
    for g in gold:
        counts = provision_counts(g, predictions.get(make_uid(g.corpus, g.provision_id)), lemmatize)
        acc = by_subpart.setdefault(g.subpart, {m: Counts() for m in MEASURES})
        for m in MEASURES:
            acc[m] = acc[m] + counts[m]
            total[m] = total[m] + counts[m]
        per_provision[g.provision_id] = {m: prf(counts[m]) for m in MEASURES}
    per_subpart = {s: {m: prf(c[m]) for m in MEASURES} for s, c in sorted(by_subpart.items())}
    return ExtractionScores(
        provisions=len(gold),
        extractor=extractor,
        per_subpart=per_subpart,
        macro={m: macro(v[m] for v in per_subpart.values()) for m in MEASURES},
        micro_all={m: prf(total[m]) for m in MEASURES},
        missing_predictions=[
            g.provision_id for g in gold if make_uid(g.corpus, g.provision_id) not in predictions
        ],
        per_provision=per_provision if details else None,
    )
