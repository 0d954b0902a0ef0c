"""Validating the refusal across question styles: the support scorer cross-fitted by question set,
leave-one-set-out scores, the two thresholds of the three outcomes, and their figures.

- **Support features** (`retrieval/answerability/support/`): every question's support scores come from a
  cross-encoder trained on the *other* question sets (by k folds when there is one set), so the
  answerability model learns from scores that look like a new question's; a held-out set is read by
  the scorer trained on every set, which is the one stored.
- **Thresholds**: refuse below ``t_refuse``, say "not stated" below ``t_answer``. Both are chosen on
  out-of-set scores (each training set scored by a model fit on the others), never on the sets
  fitted: ``t_refuse`` is the lowest of the per-set thresholds that refuse at most ``refuse_target``
  of that set's answerable questions (a hard floor on every style seen), ``t_answer`` the pooled one
  that refuses or sets aside at most ``open_target`` of them.
- **Figures** per set: the three outcomes for answerable and unanswerable questions apart, AUROC,
  and the curve of unanswerable questions caught against answerable questions lost.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import atomic_folder
from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import content_hash
from bifrost.eval.splits import Split, k_fold, leave_one_set_out
from bifrost.eval.stats import bootstrap_auroc, bootstrap_ci
from bifrost.retrieval.answerability.features import FEATURES
from bifrost.retrieval.channels.documents import index_folder
from bifrost.training.encoder.pairs import own_text
from bifrost.retrieval.answerability.support.examples import LabelledQuestion, support_examples
from bifrost.retrieval.answerability.support.model import TOP, SupportCard, SupportScorer, support_folder
from bifrost.training.answerability.support_fit import fit_support

Say = Callable[[str], None]
SUPPORT_COLUMNS = (FEATURES.index("support_top"), FEATURES.index("support_mean"))
CURVE_LOST = (0.0, 0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.30)
"""Shares of answerable questions lost (refused or "not stated") at which the curve is reported."""


def support_splits(sources: Sequence[str], ids: Sequence[str], folds: int) -> list[Split]:
    """How support scorers are cross-fitted: one per set left out, or k folds when there is one set."""
    return leave_one_set_out(sources) or k_fold(list(ids), folds)


def fill_support(
    examples: Sequence[Any],
    splits: Sequence[Split],
    documents: Mapping[str, str],
    base_model: str,
    folder: Callable[[str], Path],
    card: Callable[[], SupportCard],
    say: Say,
) -> None:
    """Write every tested example's support columns from a scorer trained on the rest of its split
    (examples: `bifrost.training.answerability.run.Example`, their ``row`` arrays written in place)."""
    for split in splits:
        trained = fit_scorer(
            [examples[i] for i in split.train], documents, base_model, folder(split.name), card(), say
        )
        score_examples([examples[i] for i in split.test], trained, documents)
        say(f"support scores of {split.name} from a scorer that never saw it")


def fit_scorer(
    examples: Sequence[Any],
    documents: Mapping[str, str],
    base_model: str,
    out: Path,
    card: SupportCard,
    say: Say,
) -> SupportScorer:
    """The support scorer of these examples (trained now unless ``out`` already holds one)."""
    if not (out / "support-card.json").exists():
        questions = [
            LabelledQuestion(e.question.question, tuple(e.question.gold) if e.answerable else ())
            for e in examples
        ]
        ranked = {e.question.question: list(e.ranked) for e in examples}
        pairs = support_examples(questions, lambda q: ranked.get(q, []), documents)
        say(f"training the support scorer on {len(pairs)} (question, provision) pairs")
        tmp = out.with_name(out.name + ".tmp")
        fit_support(pairs, base_model, tmp, card)
        tmp.replace(out)
    return SupportScorer(out)


def score_examples(examples: Sequence[Any], scorer: SupportScorer, documents: Mapping[str, str]) -> None:
    """Fill the support columns of ``examples`` with ``scorer``'s scores of each one's top provisions."""
    for e in examples:
        texts = [documents[pid] for pid in e.ranked[:TOP] if documents.get(pid)]
        scores = scorer.score(e.question.question, texts) if texts else np.zeros(0)
        e.row[SUPPORT_COLUMNS[0]] = float(scores.max()) if len(scores) else 0.0
        e.row[SUPPORT_COLUMNS[1]] = float(scores.mean()) if len(scores) else 0.0


def quantile_threshold(scores: Sequence[float], target: float) -> float:
    """The highest threshold (refuse strictly below it) that sets aside at most ``target`` of ``scores``."""
    s = np.sort(np.asarray([x for x in scores if not np.isnan(x)], dtype=np.float64))
    if s.size == 0:
        raise ValueError("no answerable question to choose a threshold on")
    return float(s[int(np.floor(target * s.size))])


@dataclass(frozen=True)
class Thresholds:
    refuse: float
    answer: float

    def outcomes(self, scores: np.ndarray, empty: np.ndarray) -> np.ndarray:
        """0 refused, 1 not stated, 2 answered, per score (nothing retrieved: refused)."""
        out = np.where(scores < self.refuse, 0, np.where(scores < self.answer, 1, 2))
        return np.where(empty, 0, out)


def choose_thresholds(
    scores: np.ndarray,
    answerable: np.ndarray,
    sources: Sequence[str],
    refuse_target: float,
    open_target: float,
) -> Thresholds:
    """``t_refuse``: the lowest per-set threshold at ``refuse_target``; ``t_answer``: the pooled one at
    ``open_target`` (never below ``t_refuse``). ``scores`` are out-of-set scores."""
    src = np.asarray(sources)
    per_set = [
        quantile_threshold(scores[answerable & (src == s)], refuse_target)
        for s in dict.fromkeys(sources)
        if (answerable & (src == s)).any()
    ]
    refuse = min(per_set)
    return Thresholds(refuse, max(refuse, quantile_threshold(scores[answerable], open_target)))


def outcome_figures(
    scores: np.ndarray, outcomes: np.ndarray, answerable: np.ndarray, seed: int = 0
) -> dict[str, Any]:
    """Shares of the three outcomes for answerable and unanswerable questions apart, and AUROC."""
    out: dict[str, Any] = {"n": int(len(scores)), "answerable": int(answerable.sum())}
    for label, mask in (("answerable", answerable), ("unanswerable", ~answerable)):
        if mask.any():
            got = outcomes[mask]
            out[label] = {
                "refused": bootstrap_ci((got == 0).astype(float), seed=seed).as_dict(),
                "not_stated": bootstrap_ci((got == 1).astype(float), seed=seed).as_dict(),
                "refused_or_not_stated": bootstrap_ci((got < 2).astype(float), seed=seed).as_dict(),
            }
    if answerable.any() and (~answerable).any():
        out["auroc"] = bootstrap_auroc(answerable, scores, seed=seed).as_dict()
        out["curve"] = curve(scores, answerable)
    return out


def curve(scores: np.ndarray, answerable: np.ndarray) -> list[dict[str, float]]:
    """Unanswerable questions caught against answerable questions lost, at the shares of `CURVE_LOST`."""
    points = []
    for lost in CURVE_LOST:
        t = quantile_threshold(scores[answerable], lost) if lost > 0 else float(np.min(scores[answerable]))
        points.append(
            {
                "answerable_lost": float(np.mean(scores[answerable] < t)),
                "unanswerable_caught": float(np.mean(scores[~answerable] < t)),
                "threshold": round(t, 4),
            }
        )
    return points


Fit = Callable[[Sequence[Any], Sequence[int]], Any]  # examples, columns -> a model with .probability(rows)


def _rows(examples: Sequence[Any], columns: Sequence[int]) -> np.ndarray:
    return np.vstack([e.row[list(columns)] for e in examples])


def out_of_set(examples: Sequence[Any], columns: Sequence[int], fit: Fit, folds: int = 5) -> np.ndarray:
    """A score for every example from a model fit on the other sets; where the other sets lack a class
    (or there is one set), from a model fit on the other k folds."""
    sources = [e.source for e in examples]
    scores = np.full(len(examples), np.nan)
    _score_splits(examples, columns, fit, leave_one_set_out(sources), scores)
    if np.isnan(scores).any():
        _score_splits(
            examples, columns, fit, k_fold([e.question.id for e in examples], folds, salt="inner"), scores
        )
    return scores


def _score_splits(
    examples: Sequence[Any], columns: Sequence[int], fit: Fit, splits: Sequence[Split], scores: np.ndarray
) -> None:
    """Fill the still unscored test examples of each split whose training part holds both classes."""
    for split in splits:
        todo = [i for i in split.test if np.isnan(scores[i])]
        train = [examples[i] for i in split.train]
        if todo and len({e.answerable for e in train}) == 2:
            scores[todo] = fit(train, columns).probability(_rows([examples[i] for i in todo], columns))


@dataclass
class SetRun:
    """The examples of one set left out: their scores and outcomes under a model and thresholds fit on the
    others."""

    name: str
    test: tuple[int, ...]
    scores: np.ndarray
    outcomes: np.ndarray
    thresholds: Thresholds


def thresholds_on(
    examples: Sequence[Any], columns: Sequence[int], fit: Fit, refuse_target: float, open_target: float
) -> Thresholds:
    """The two thresholds chosen on out-of-set scores of ``examples`` (see `choose_thresholds`)."""
    scores = out_of_set(examples, columns, fit)
    answerable = np.array([e.answerable for e in examples])
    ok = ~np.isnan(scores)
    return choose_thresholds(
        scores[ok],
        answerable[ok],
        [e.source for e, keep in zip(examples, ok) if keep],
        refuse_target,
        open_target,
    )


def left_out(
    examples: Sequence[Any], columns: Sequence[int], fit: Fit, refuse_target: float, open_target: float
) -> list[SetRun]:
    """Each set scored by a model, and judged by thresholds, fit on the other sets only."""
    runs = []
    for split in leave_one_set_out([e.source for e in examples]):
        train = [examples[i] for i in split.train]
        if len({e.answerable for e in train}) < 2:
            continue
        th = thresholds_on(train, columns, fit, refuse_target, open_target)
        test = [examples[i] for i in split.test]
        scores = fit(train, columns).probability(_rows(test, columns))
        runs.append(
            SetRun(split.name, split.test, scores, th.outcomes(scores, np.array([e.empty for e in test])), th)
        )
    return runs


def set_figures(runs: Sequence[SetRun], examples: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """Outcome figures of every set left out (with the thresholds its models chose)."""
    out = {}
    for run in runs:
        answerable = np.array([examples[i].answerable for i in run.test])
        out[run.name] = {
            **outcome_figures(run.scores, run.outcomes, answerable),
            "thresholds": {
                "refuse": round(run.thresholds.refuse, 4),
                "answer": round(run.thresholds.answer, 4),
            },
        }
    return out


def provision_texts(settings: Settings, corpus: str) -> dict[str, str]:
    """Every provision of a corpus as the support scorer reads it (term, heading, text)."""
    sql = SqlStore(settings.sql_url)
    try:
        return {p.id: own_text(p) for p in sql.provisions(corpus)}
    finally:
        sql.dispose()


def support_cache(home: Path, corpus: str) -> Path:
    """Where cross-fitted support scorers are cached (one per training question set), so a rerun reuses
    them."""
    return index_folder(home, corpus) / "support"


def add_support(
    settings: Settings,
    corpus: str,
    examples: Sequence[Any],
    held: Sequence[Any],
    folds: int,
    store: bool,
    say: Say,
) -> str:
    """Fill the support columns: training questions from scorers cross-fitted by set (or fold), held-out
    questions from the scorer of every training question, which is stored (unless not ``store``)."""
    documents = provision_texts(settings, corpus)
    cache = support_cache(settings.home, corpus)
    base = settings.embedding_model
    card = lambda: SupportCard(corpus=corpus, base_model=base)  # noqa: E731
    key = lambda name, members: cache / content_hash(base, name, *sorted(e.question.id for e in members))  # noqa: E731
    splits = support_splits([e.source for e in examples], [e.question.id for e in examples], folds)
    folders = {s.name: key(s.name, [examples[i] for i in s.train]) for s in splits}
    fill_support(examples, splits, documents, base, lambda name: folders[name], card, say)
    final = fit_scorer(examples, documents, base, key("all", examples), card(), say)
    score_examples(held, final, documents)
    if not store:
        return ""
    target = support_folder(settings.home, corpus)
    with atomic_folder(target) as tmp:
        shutil.copytree(final.folder, tmp, dirs_exist_ok=True)
    return str(target.relative_to(settings.home))
