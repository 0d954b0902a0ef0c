"""`bifrost train answerability`: read answerability features for question sets (answerable and
unanswerable), cross-validate a logistic model and its refusal threshold, then fit it on every question
and store it as a card in the home. Every figure reported is cross-validated.

- The logistic regression is fit with numpy/scipy (L-BFGS on the log-loss, L2 penalty, standardized
  features, classes weighted to equal total weight), so that `retrieval/` scores it without sklearn.
- The threshold is chosen inside each training fold: an inner cross-validation gives every training
  question an out-of-fold score, and the threshold is the highest one that falsely refuses at most the
  target share (5%) of the answerable training questions. Test questions are scored by a model and a
  threshold that never saw them (stable folds by question-id hash, `bifrost.eval.splits.fold_of`).
- The stored model is fit on all questions; its threshold comes from the outer out-of-fold scores.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.extras import require_extra
from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.training.answerability import refusal_validation as rv
from bifrost.training.answerability.report import write_report
from bifrost.eval.question_files import load_questions_by_file
from bifrost.eval.splits import fold_of, refuse_overlap
from bifrost.eval.questions import Question, own_answers
from bifrost.eval.stats import bootstrap_auroc, bootstrap_ci
from bifrost.retrieval.answerability.features import FEATURE_GROUPS, FEATURES, columns_without, vector
from bifrost.retrieval.answerability.card import AnswerabilityCard, save_card
from bifrost.retrieval.answerability.judge import FeatureReader, retriever_of
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.model import ranker_sha256
from bifrost.retrieval.pipeline import AskPipeline

Say = Callable[[str], None]
Progress = Callable[[int, int], None]
L2 = 1.0
"""Penalty on standardized coefficients (fixed, not tuned: a dozen features, a few hundred questions)."""
RANKED_KEPT = 10
"""Retrieved ids kept per question (the support scorer's negatives and inputs come from them)."""


@dataclass
class Example:
    """One question with its feature row and what the corpus can do with it."""

    question: Question
    source: str
    row: np.ndarray
    relevance: float
    empty: bool = False  # nothing retrieved: refused whatever the model says
    ranked: tuple[
        str, ...
    ] = ()  # the retrieved provision ids, best first (the support scorer reads the top ones)

    @property
    def answerable(self) -> bool:
        return self.question.answerable

    @property
    def reason(self) -> str:
        """Why an unanswerable question is so (its first tag's category, e.g. "other-part"), else ""."""
        tags = self.question.extra.get("tags") or []
        return "" if self.answerable else (str(tags[0]).split(":")[0] if tags else "untagged")


def collect(
    settings: Settings,
    corpus: str,
    pairs: Sequence[tuple[Question, str]],
    progress: Progress | None = None,
) -> tuple[list[Example], str, float]:
    """Feature rows of every question (retrieved as `bifrost ask` retrieves), the retrieval mode behind
    them and the configured cosine threshold."""
    resources = Resources(settings)
    try:
        cfg = RetrievalConfig.from_settings(settings)
        pipe = AskPipeline(resources, cfg)
        parts = pipe.parts(corpus)
        reader = FeatureReader(parts.channels, parts.nav, pipe.lookup(corpus))
        examples, modes = [], set()
        for n, (q, source) in enumerate(pairs, start=1):
            result = pipe.retrieve(q.question, corpus, cfg, own_answers(q))
            modes.add(retriever_of(result))
            row = np.asarray(vector(reader.row(q.question, result)), dtype=np.float64)
            examples.append(
                Example(
                    q,
                    source,
                    row,
                    float(result.relevance) if result.items else 0.0,
                    not result.items,
                    tuple(it.id for it in result.items[:RANKED_KEPT]),
                )
            )
            if progress:
                progress(n, len(pairs))
    finally:
        resources.close()
    return examples, (modes.pop() if len(modes) == 1 else "hybrid"), cfg.refuse_below


# --- the logistic model --------------------------------------------------------------------------


@dataclass(frozen=True)
class Logistic:
    """Standardization and coefficients of a fitted logistic regression."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = (np.atleast_2d(x) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-np.clip(z @ self.coef + self.intercept, -50, 50)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2) -> Logistic:
    """scikit-learn's L2-penalized logistic regression (C = 1 / ``l2``) on standardized columns, each class
    weighted to half the total ("balanced"); kept as the plain `Logistic` record the card stores."""
    require_extra("eval", "sklearn")
    from sklearn.linear_model import LogisticRegression

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(set(y.tolist())) < 2:
        raise ValueError(
            "answerability needs answerable and unanswerable training questions; one class is missing"
        )
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    fit = LogisticRegression(C=1.0 / l2, class_weight="balanced", tol=1e-8, max_iter=10_000).fit(
        (x - mean) / scale, y
    )
    return Logistic(mean, scale, fit.coef_[0].copy(), float(fit.intercept_[0]))


def threshold_for(answerable_scores: Sequence[float], target: float) -> float:
    """The highest threshold (refuse strictly below it) that refuses at most ``target`` of these scores."""
    s = np.sort(np.asarray(answerable_scores, dtype=np.float64))
    if s.size == 0:
        raise ValueError("no answerable question to choose a threshold on")
    return float(s[int(np.floor(target * s.size))])


# --- cross-validation ----------------------------------------------------------------------------

Fitter = Callable[[Sequence[Example], Sequence[int]], Logistic]


def fit_examples(examples: Sequence[Example], columns: Sequence[int]) -> Logistic:
    """The logistic model of these examples over the given feature columns."""
    return fit_logistic(
        np.vstack([e.row[list(columns)] for e in examples]), np.array([e.answerable for e in examples])
    )


def out_of_fold(
    examples: Sequence[Example],
    folds: int,
    columns: Sequence[int],
    salt: str = "",
    fitter: Fitter = fit_examples,
) -> np.ndarray:
    """A score for every example from a model fit on the other folds (nan where those lack a class)."""
    scores = np.full(len(examples), np.nan)
    for k in range(folds):
        test = [i for i, e in enumerate(examples) if fold_of(e.question.id, folds, salt) == k]
        train = [e for i, e in enumerate(examples) if fold_of(e.question.id, folds, salt) != k]
        if test and len({e.answerable for e in train}) == 2:
            model = fitter(train, columns)
            scores[test] = model.probability(np.vstack([examples[i].row[list(columns)] for i in test]))
    return scores


@dataclass
class CvRun:
    """Cross-validated score, refusal and threshold of every question."""

    scores: np.ndarray
    refused: np.ndarray
    thresholds: list[float] = field(default_factory=list)
    outcomes: np.ndarray | None = None  # 0 refused, 1 not stated, 2 answered (with an open target)


def cross_validate(
    examples: Sequence[Example],
    folds: int,
    target: float,
    drop: set[str] = frozenset(),
    fitter: Fitter = fit_examples,
    only: Sequence[str] = (),
    open_target: float | None = None,
) -> CvRun:
    """Outer k folds; in each, the threshold comes from an inner cross-validation of the training folds
    (and, with ``open_target``, the "not stated" threshold too). ``drop`` leaves feature groups out;
    ``only`` keeps just the named features."""
    columns = [FEATURES.index(f) for f in only] if only else columns_without(set(drop))
    run = CvRun(np.full(len(examples), np.nan), np.zeros(len(examples), dtype=bool))
    if open_target is not None:
        run.outcomes = np.full(len(examples), 2)
    for k in range(folds):
        test = [i for i, e in enumerate(examples) if fold_of(e.question.id, folds) == k]
        train = [e for e in examples if fold_of(e.question.id, folds) != k]
        if not test:
            continue
        model = fitter(train, columns)
        inner = out_of_fold(train, folds, columns, salt="inner", fitter=fitter)
        held = [s for s, e in zip(inner, train) if e.answerable and not np.isnan(s)]
        if not held:  # too few questions for an inner split holding both classes: the training scores
            held = model.probability(np.vstack([e.row[columns] for e in train if e.answerable])).tolist()
        threshold = threshold_for(held, target)
        run.scores[test] = model.probability(np.vstack([examples[i].row[columns] for i in test]))
        empty = np.array([examples[i].empty for i in test])
        run.refused[test] = (run.scores[test] < threshold) | empty
        run.thresholds.append(threshold)
        if run.outcomes is not None:
            th = rv.Thresholds(threshold, max(threshold, threshold_for(held, open_target)))
            run.outcomes[test] = th.outcomes(run.scores[test], empty)
    return run


# --- figures and the command ---------------------------------------------------------------------


def figures(
    examples: Sequence[Example], scores: np.ndarray, refused: np.ndarray, seed: int = 0
) -> dict[str, Any]:
    """AUROC and refusal rates with 95% bootstrap CIs, overall, per question file and per reason."""
    ans = np.array([e.answerable for e in examples])

    def rates(mask: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {"n": int(mask.sum()), "answerable": int((ans & mask).sum())}
        if (mask & ~ans).any():
            out["refusal_unanswerable"] = bootstrap_ci(
                refused[mask & ~ans].astype(float), seed=seed
            ).as_dict()
        if (mask & ans).any():
            out["false_refusal"] = bootstrap_ci(refused[mask & ans].astype(float), seed=seed).as_dict()
        if (mask & ans).any() and (mask & ~ans).any():
            out["auroc"] = bootstrap_auroc(ans[mask], scores[mask], seed=seed).as_dict()
        return out

    everything = np.ones(len(examples), dtype=bool)
    sources = sorted({e.source for e in examples})
    reasons = sorted({e.reason for e in examples if not e.answerable})
    return {
        **rates(everything),
        "by_source": {s: rates(np.array([e.source == s for e in examples])) for s in sources},
        "by_reason": {
            r: rates(np.array([(not e.answerable) and e.reason == r for e in examples])) for r in reasons
        },
    }


@dataclass
class AnswerabilityReport:
    """Validated figures of the model (k-fold, each set left out, held-out sets), its ablations and the
    cosine rule, and the stored card."""

    corpus: str
    folds: int
    target: float
    retriever: str
    model: dict[str, Any]
    cosine: dict[str, Any]
    ablations: dict[str, dict[str, Any]] = field(default_factory=dict)
    fold_thresholds: list[float] = field(default_factory=list)
    threshold: float = 0.0
    answer_threshold: float = 0.0
    open_target: float = 0.10
    coefficients: dict[str, float] = field(default_factory=dict)
    card_path: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    left_out: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # set -> outcome figures, fit on the other sets
    held_out: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # set -> outcome figures, fit on every set
    support: str = ""  # the stored support scorer's folder ("" = none)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Targets:
    """What the thresholds are chosen for: at most ``refuse`` of answerable questions refused, at most
    ``lost`` refused or "not stated" (on out-of-set scores)."""

    refuse: float = 0.02
    lost: float = 0.10

    def check(self) -> None:
        if not 0.0 < self.refuse < 1.0 or not self.refuse <= self.lost < 1.0:
            raise ValueError(
                f"--false-refusal ({self.refuse}) and --not-stated-share ({self.lost}) must be shares with "
                "false refusal <= not-stated share < 1"
            )


def train_answerability(
    settings: Settings,
    corpus: str,
    question_files: Sequence[Path],
    folds: int = 5,
    target: float = 0.02,
    ablations: bool = True,
    out_dir: Path | None = None,
    say: Say | None = None,
    progress: Progress | None = None,
    held_out_files: Sequence[Path] = (),
    open_target: float = 0.10,
    support: bool = False,
    store: bool = True,
) -> AnswerabilityReport:
    """Validate (k-fold, and each question set left out when several are given, with thresholds chosen
    on out-of-set scores for at most ``target`` false refusals and ``open_target`` answerable questions
    refused or "not stated"), then fit on all questions and store the card (and, with ``support``, the
    support scorer) of ``corpus``; ``held_out_files`` are scored by the stored model, never trained on."""
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    targets = Targets(target, open_target)
    targets.check()
    say = say or (lambda _m: None)
    t0 = time.perf_counter()
    pairs, hashes = load_questions_by_file(settings, question_files, corpus, say)
    held_pairs = load_questions_by_file(settings, held_out_files, corpus, say)[0] if held_out_files else []
    refuse_overlap([q.question for q, _ in pairs], [(name, q.id, q.question) for q, name in held_pairs])
    if len({q.answerable for q, _ in pairs}) < 2:
        raise ValueError(
            "the question files need both answerable and unanswerable questions (answerable: false)"
        )
    examples, retriever, refuse_below = collect(settings, corpus, [*pairs, *held_pairs], progress)
    examples, held = examples[: len(pairs)], examples[len(pairs) :]
    t1 = time.perf_counter()
    drop = set() if support else {"support"}
    report = AnswerabilityReport(corpus, folds, target, retriever, {}, {}, open_target=open_target)
    if support:
        report.support = rv.add_support(settings, corpus, examples, held, folds, store, say)
    run = cross_validate(examples, folds, target, drop=drop, open_target=open_target)
    say(f"cross-validated {len(examples)} questions in {folds} folds")
    relevance = np.array([e.relevance for e in examples])
    report.model = figures(examples, run.scores, run.refused)
    report.cosine = figures(examples, relevance, relevance < refuse_below) | {
        "rule": f"best cosine < {refuse_below}"
    }
    report.fold_thresholds = run.thresholds
    columns = columns_without(drop)
    report.left_out = rv.set_figures(
        rv.left_out(examples, columns, fit_examples, targets.refuse, targets.lost), examples
    )
    cosine = cross_validate(examples, folds, target, only=("dense_top",))
    report.ablations["best cosine alone, threshold by CV"] = figures(examples, cosine.scores, cosine.refused)
    if ablations:
        for group in FEATURE_GROUPS:
            if group not in drop:
                dropped = cross_validate(examples, folds, target, drop=drop | {group})
                report.ablations[f"without {group}"] = figures(examples, dropped.scores, dropped.refused)
                say(f"cross-validated without {group}")
    model, thresholds = fit_final(examples, columns, targets)
    report.held_out = held_out_figures(held, model, thresholds, columns)
    report.seconds = {"collect": t1 - t0, "validate": time.perf_counter() - t1}
    if store:
        save(settings, report, model, thresholds, [FEATURES[i] for i in columns], hashes)
    if out_dir is not None:
        write_report(report, examples, run, out_dir)
    return report


def fit_final(
    examples: Sequence[Example], columns: Sequence[int], targets: Targets
) -> tuple[Logistic, rv.Thresholds]:
    """The model of every question, and its thresholds from out-of-set scores."""
    return fit_examples(examples, columns), rv.thresholds_on(
        examples, columns, fit_examples, targets.refuse, targets.lost
    )


def held_out_figures(
    held: Sequence[Example], model: Logistic, thresholds: rv.Thresholds, columns: Sequence[int]
) -> dict[str, Any]:
    """Outcome figures of each held-out set under the stored model and thresholds."""
    out = {}
    for name in dict.fromkeys(e.source for e in held):
        test = [e for e in held if e.source == name]
        scores = model.probability(np.vstack([e.row[list(columns)] for e in test]))
        outcomes = thresholds.outcomes(scores, np.array([e.empty for e in test]))
        out[name] = rv.outcome_figures(scores, outcomes, np.array([e.answerable for e in test]))
    return out


def save(
    settings: Settings,
    report: AnswerabilityReport,
    model: Logistic,
    thresholds: rv.Thresholds,
    names: Sequence[str],
    hashes: list[dict[str, str]],
) -> None:
    """Save the card of the final model with its two thresholds."""
    report.threshold, report.answer_threshold = thresholds.refuse, thresholds.answer
    report.coefficients = {"intercept": model.intercept, **dict(zip(names, model.coef.tolist()))}
    summary = {k: v for k, v in report.model.items() if k not in ("by_source", "by_reason")}
    card = AnswerabilityCard(
        corpus=report.corpus,
        embedding_model=settings.embedding_model,
        retriever=report.retriever,
        features=list(names),
        mean=model.mean.tolist(),
        scale=model.scale.tolist(),
        coef=model.coef.tolist(),
        intercept=model.intercept,
        threshold=thresholds.refuse,
        answer_threshold=thresholds.answer,
        target_false_refusal=report.target,
        questions=hashes,
        ranker_sha256=ranker_sha256(settings, report.corpus) if report.retriever == "ltr" else "",
        glossary=RetrievalConfig.from_settings(settings).glossary_for(report.corpus),
        cv={
            **summary,
            "left_out": {k: {m: v for m, v in f.items() if m != "curve"} for k, f in report.left_out.items()},
        },
        trained_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    report.card_path = str(save_card(settings, card))
