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

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.training.answerability import refusal_validation as rv
from bifrost.training.answerability.report import write_report
from bifrost.eval.question_files import load_questions_by_file
from bifrost.eval.splits import refuse_overlap
from bifrost.eval.questions import Question, own_answers
from bifrost.retrieval.answerability.features import FEATURE_GROUPS, FEATURES, columns_without, vector
from bifrost.retrieval.answerability.card import AnswerabilityCard, save_card
from bifrost.retrieval.answerability.judge import FeatureReader, retriever_of
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.model import ranker_sha256
from bifrost.retrieval.pipeline import AskPipeline

from bifrost.training.answerability.logistic_cv import (  # noqa: F401  (re-exported for callers)
    L2,
    CvRun,
    Example,
    Logistic,
    cross_validate,
    figures,
    fit_examples,
    fit_logistic,
    out_of_fold,
    threshold_for,
)

Say = Callable[[str], None]
Progress = Callable[[int, int], None]
RANKED_KEPT = 10
"""Retrieved ids kept per question (the support scorer's negatives and inputs come from them)."""


def collect(
    settings: Settings, corpus: str, pairs: Sequence[tuple[Question, str]], progress: Progress | None = None
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


# --- cross-validation ----------------------------------------------------------------------------


# --- figures and the command ---------------------------------------------------------------------


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
    # set -> outcome figures, fit on the other sets
    left_out: dict[str, dict[str, Any]] = field(default_factory=dict)
    # set -> outcome figures, fit on every set
    held_out: dict[str, dict[str, Any]] = field(default_factory=dict)
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
        cv={
            **summary,
            "left_out": {k: {m: v for m, v in f.items() if m != "curve"} for k, f in report.left_out.items()},
        },
        trained_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    report.card_path = str(save_card(settings, card))
