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

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.eval.splits import fold_of
from bifrost.eval.ltr.train import read_sets
from bifrost.eval.questions import Question, merge_sets
from bifrost.eval.stats import bootstrap_auroc, bootstrap_ci
from bifrost.retrieval.answerability_features import FEATURE_GROUPS, FEATURES, columns_without, vector
from bifrost.retrieval.answerability_model import AnswerabilityCard, FeatureReader, retriever_of, save_card
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline

Say = Callable[[str], None]
Progress = Callable[[int, int], None]
L2 = 1.0
"""Penalty on standardized coefficients (fixed, not tuned: a dozen features, a few hundred questions)."""


@dataclass
class Example:
    """One question with its feature row and what the corpus can do with it."""

    question: Question
    source: str
    row: np.ndarray
    relevance: float
    empty: bool = False  # nothing retrieved: refused whatever the model says

    @property
    def answerable(self) -> bool:
        return self.question.answerable

    @property
    def reason(self) -> str:
        """Why an unanswerable question is so (its first tag's category, e.g. "other-part"), else ""."""
        tags = self.question.extra.get("tags") or []
        return "" if self.answerable else (str(tags[0]).split(":")[0] if tags else "untagged")


def load_questions_by_file(
    settings: Settings, paths: Sequence[Path], corpus: str | None = None, say: Say | None = None,
) -> tuple[list[tuple[Question, str]], list[dict[str, str]]]:
    """Every question with the stem of its file (a question in several files once, from the first:
    `merge_sets`), and the files' hashes; with ``corpus``, each file's gold is checked first (`check_gold`)."""
    sets = read_sets(settings, paths, corpus, say)
    hashes = [{"path": str(path), "sha256": qset.sha256} for path, qset in zip(paths, sets)]
    return [(q, Path(qset.path).stem) for q, qset in merge_sets(sets, say)], hashes


def collect(
    settings: Settings, corpus: str, pairs: Sequence[tuple[Question, str]], progress: Progress | None = None,
) -> tuple[list[Example], str, float]:
    """Feature rows of every question (retrieved as `bifrost ask` retrieves), the retrieval mode behind
    them and the configured cosine threshold."""
    resources = Resources(settings)
    try:
        cfg = RetrievalConfig.from_settings(settings)
        pipe = AskPipeline(resources, cfg)
        retriever, parts = pipe.retriever(corpus), pipe.parts(corpus)
        reader = FeatureReader(parts.channels, parts.nav, pipe.lookup(corpus))
        examples, modes = [], set()
        for n, (q, source) in enumerate(pairs, start=1):
            result = retriever.retrieve(q.question, cfg)
            modes.add(retriever_of(result))
            row = np.asarray(vector(reader.row(q.question, result)), dtype=np.float64)
            examples.append(Example(q, source, row, float(result.relevance) if result.items else 0.0, not result.items))
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
    """Penalized maximum likelihood on standardized columns; each class gets half the total weight."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(set(y.tolist())) < 2:
        raise ValueError("answerability needs answerable and unanswerable training questions; one class is missing")
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    weight = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))

    def loss(b: np.ndarray) -> tuple[float, np.ndarray]:
        logit = z @ b[1:] + b[0]
        p = 1.0 / (1.0 + np.exp(-np.clip(logit, -50, 50)))
        nll = float(np.sum(weight * (np.logaddexp(0.0, logit) - y * logit)))
        grad = np.concatenate([[np.sum(weight * (p - y))], z.T @ (weight * (p - y)) + l2 * b[1:]])
        return nll + 0.5 * l2 * float(b[1:] @ b[1:]), grad

    b = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B").x
    return Logistic(mean, scale, b[1:], float(b[0]))


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
    return fit_logistic(np.vstack([e.row[list(columns)] for e in examples]), np.array([e.answerable for e in examples]))


def out_of_fold(examples: Sequence[Example], folds: int, columns: Sequence[int], salt: str = "",
                fitter: Fitter = fit_examples) -> np.ndarray:
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


def cross_validate(examples: Sequence[Example], folds: int, target: float, drop: set[str] = frozenset(),
                   fitter: Fitter = fit_examples, only: Sequence[str] = ()) -> CvRun:
    """Outer k folds; in each, the threshold comes from an inner cross-validation of the training folds.
    ``drop`` leaves feature groups out; ``only`` keeps just the named features."""
    columns = [FEATURES.index(f) for f in only] if only else columns_without(set(drop))
    run = CvRun(np.full(len(examples), np.nan), np.zeros(len(examples), dtype=bool))
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
        run.refused[test] = (run.scores[test] < threshold) | np.array([examples[i].empty for i in test])
        run.thresholds.append(threshold)
    return run


# --- figures and the command ---------------------------------------------------------------------

def figures(examples: Sequence[Example], scores: np.ndarray, refused: np.ndarray, seed: int = 0) -> dict[str, Any]:
    """AUROC and refusal rates with 95% bootstrap CIs, overall, per question file and per reason."""
    ans = np.array([e.answerable for e in examples])

    def rates(mask: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {"n": int(mask.sum()), "answerable": int((ans & mask).sum())}
        if (mask & ~ans).any():
            out["refusal_unanswerable"] = bootstrap_ci(refused[mask & ~ans].astype(float), seed=seed).as_dict()
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
        "by_reason": {r: rates(np.array([(not e.answerable) and e.reason == r for e in examples])) for r in reasons},
    }


@dataclass
class AnswerabilityReport:
    """Cross-validated figures of the model, its ablations and the cosine rule, and the stored card."""

    corpus: str
    folds: int
    target: float
    retriever: str
    model: dict[str, Any]
    cosine: dict[str, Any]
    ablations: dict[str, dict[str, Any]] = field(default_factory=dict)
    fold_thresholds: list[float] = field(default_factory=list)
    threshold: float = 0.0
    coefficients: dict[str, float] = field(default_factory=dict)
    card_path: str = ""
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def train_answerability(
    settings: Settings, corpus: str, question_files: Sequence[Path], folds: int = 5, target: float = 0.05,
    ablations: bool = True, out_dir: Path | None = None, say: Say | None = None, progress: Progress | None = None,
) -> AnswerabilityReport:
    """Cross-validate, then fit on all questions and store the answerability card of ``corpus``."""
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    if not 0.0 < target < 1.0:
        raise ValueError(f"--false-refusal must be between 0 and 1, got {target}")
    say = say or (lambda _m: None)
    t0 = time.perf_counter()
    pairs, hashes = load_questions_by_file(settings, question_files, corpus, say)
    if len({q.answerable for q, _ in pairs}) < 2:
        raise ValueError("the question files need both answerable and unanswerable questions (answerable: false)")
    examples, retriever, refuse_below = collect(settings, corpus, pairs, progress)
    t1 = time.perf_counter()
    run = cross_validate(examples, folds, target)
    say(f"cross-validated {len(examples)} questions in {folds} folds")
    relevance = np.array([e.relevance for e in examples])
    report = AnswerabilityReport(
        corpus, folds, target, retriever, figures(examples, run.scores, run.refused),
        figures(examples, relevance, relevance < refuse_below) | {"rule": f"best cosine < {refuse_below}"},
        fold_thresholds=run.thresholds,
    )
    cosine = cross_validate(examples, folds, target, only=("dense_top",))
    report.ablations["best cosine alone, threshold by CV"] = figures(examples, cosine.scores, cosine.refused)
    if ablations:
        for group in FEATURE_GROUPS:
            drop = cross_validate(examples, folds, target, drop={group})
            report.ablations[f"without {group}"] = figures(examples, drop.scores, drop.refused)
            say(f"cross-validated without {group}")
    report.seconds = {"collect": t1 - t0, "cv": time.perf_counter() - t1}
    store(settings, report, examples, run, hashes)
    if out_dir is not None:
        write_report(report, examples, run, out_dir)
    return report


def store(settings: Settings, report: AnswerabilityReport, examples: Sequence[Example], run: CvRun,
          hashes: list[dict[str, str]]) -> None:
    """Fit on every question, take the threshold from the out-of-fold scores, save the card."""
    model = fit_examples(examples, list(range(len(FEATURES))))
    report.threshold = threshold_for([s for s, e in zip(run.scores, examples) if e.answerable], report.target)
    report.coefficients = {"intercept": model.intercept, **dict(zip(FEATURES, model.coef.tolist()))}
    summary = {k: v for k, v in report.model.items() if k not in ("by_source", "by_reason")}
    card = AnswerabilityCard(
        corpus=report.corpus, embedding_model=settings.embedding_model, retriever=report.retriever,
        features=list(FEATURES), mean=model.mean.tolist(), scale=model.scale.tolist(), coef=model.coef.tolist(),
        intercept=model.intercept, threshold=report.threshold, target_false_refusal=report.target, questions=hashes,
        cv=summary, trained_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    report.card_path = str(save_card(settings, card))


def _cell(f: dict[str, Any], name: str) -> str:
    c = f.get(name)
    return f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]" if c else "–"


def markdown(report: AnswerabilityReport) -> str:
    """The cross-validated tables: systems, then per question file and per reason of unanswerability."""
    m = report.model
    lines = [f"## {report.corpus}: answerability, {m['n']} questions ({m['answerable']} answerable), {report.folds}-fold CV", "",
             f"Threshold chosen in each training fold for at most {report.target:.0%} false refusals "
             f"(folds: {', '.join(f'{t:.3f}' for t in report.fold_thresholds)}; stored model: {report.threshold:.3f}); "
             f"retriever: {report.retriever}.", "",
             "| system | AUROC | refusal (unanswerable) | false refusal (answerable) |", "|---|---|---|---|"]
    rows = {"answerability model": m, **report.ablations, f"cosine rule ({report.cosine['rule']})": report.cosine}
    lines += [f"| {name} | {_cell(f, 'auroc')} | {_cell(f, 'refusal_unanswerable')} | {_cell(f, 'false_refusal')} |"
              for name, f in rows.items()]
    for title, key in (("question file", "by_source"), ("reason (unanswerable)", "by_reason")):
        lines += ["", f"| {title} | n | model: refusal | model: false refusal | cosine: refusal | cosine: false refusal |",
                  "|---|---|---|---|---|---|"]
        for name, f in m[key].items():
            c = report.cosine[key][name]
            lines.append(f"| {name} | {f['n']} | {_cell(f, 'refusal_unanswerable')} | {_cell(f, 'false_refusal')} | "
                         f"{_cell(c, 'refusal_unanswerable')} | {_cell(c, 'false_refusal')} |")
    lines += ["", "Coefficients of the stored model (standardized features): "
              + ", ".join(f"{k} {v:+.2f}" for k, v in report.coefficients.items())]
    return "\n".join(lines) + "\n"


def write_report(report: AnswerabilityReport, examples: Sequence[Example], run: CvRun, out_dir: Path) -> None:
    """cv.json, cv.md and per_question.jsonl (the out-of-fold score and refusal of every question)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cv.json").write_text(json.dumps(report.as_dict(), indent=2))
    (out_dir / "cv.md").write_text(markdown(report))
    with (out_dir / "per_question.jsonl").open("w") as f:
        for e, s, r in zip(examples, run.scores, run.refused):
            f.write(json.dumps({"id": e.question.id, "source": e.source, "answerable": e.answerable, "reason": e.reason,
                                "score": round(float(s), 4), "refused": bool(r), "relevance": round(e.relevance, 4),
                                "features": dict(zip(FEATURES, np.round(e.row, 4).tolist()))}) + "\n")
