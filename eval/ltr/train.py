"""`bifrost train ranker`: collect ranking groups from question sets, cross-validate the learned
ranker beside the baselines (and without each feature group), then fit it on every question and
store it in the home with its card. The figures reported are the cross-validated ones."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bifrost.core.extras import require_extra
from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.eval.ltr.adapted import CACHE_KEEP, collect_adapted, encoder_cache, prune_encoders, store_encoder
from bifrost.eval.ltr.cv import ABLATIONS, choose_delta, cross_validate, fit, score_run
from bifrost.eval.ltr.dataset import Group, collect, describe_pool
from bifrost.eval.questions import Question, load_questions
from bifrost.eval.runner import corpus_hierarchy
from bifrost.eval.stats import wilcoxon_p
from bifrost.retrieval.baselines.dense import model_version
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ltr.features import FEATURES, columns_without
from bifrost.retrieval.ltr.model import LGBM_PARAMS, ModelCard, RankerModel, encoder_folder
from bifrost.retrieval.pipeline import AskPipeline

Say = Callable[[str], None]


@dataclass
class TrainReport:
    """Cross-validated figures of every system, the pool's ceiling, and where the model went."""

    corpus: str
    folds: int
    pool: dict[str, Any]
    systems: dict[str, dict[str, Any]]
    ablations: dict[str, dict[str, Any]] = field(default_factory=dict)
    significance: dict[str, float] = field(default_factory=dict)
    model_path: str = ""  # "" when the run stored nothing (--no-store)
    cite_delta: float = 0.0
    seconds: dict[str, float] = field(default_factory=dict)
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        strip = lambda d: {k: {m: v for m, v in s.items() if m != "_per_question"} for k, s in d.items()}  # noqa: E731
        return {"corpus": self.corpus, "folds": self.folds, "pool": self.pool, "systems": strip(self.systems),
                "ablations": strip(self.ablations), "significance": self.significance, "model_path": self.model_path,
                "cite_delta": self.cite_delta, "seconds": self.seconds, "seed": self.seed}


def load_sets(settings: Settings, paths: Sequence[Path]) -> tuple[list[Question], list[dict[str, str]]]:
    """Questions of every file (ids prefixed by file when two files share one) and their hashes."""
    shared = settings.resolve_shared_dir()
    questions: list[Question] = []
    hashes = []
    for path in paths:
        qs = load_questions(path, "auto", documents_dir=(shared / "corpora/adgm/documents") if shared else None)
        hashes.append({"path": str(path), "sha256": qs.sha256})
        questions += qs.questions
    if len({q.id for q in questions}) != len(questions):
        raise ValueError("two question files share question ids; give each set unique ids")
    return questions, hashes


def train_ranker(
    settings: Settings, corpus: str, question_files: Sequence[Path], folds: int = 5, ablations: bool = True,
    hybrid: bool = True, out_dir: Path | None = None, say: Say | None = None, cv: bool = True,
    progress: Callable[[int, int], None] | None = None, encoder_files: Sequence[Path] = (), seed: int = 0,
    store: bool = True,
) -> TrainReport:
    """Cross-validate (unless ``cv`` is False), then fit on all questions and save the ranker of
    ``corpus`` in the home (unless ``store`` is False: a study that leaves the served ranker alone).
    ``encoder_files``: question sets to adapt the dense encoder the ranker reads (cross-fitted within
    the folds, see `bifrost.eval.ltr.adapted`); stored beside the ranker. ``seed``: LightGBM's sampling seed
    (run several to see how much of a difference is the seed's)."""
    require_extra("ltr")
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    if not cv and not store:
        raise ValueError("--no-cv with --no-store leaves nothing to do; drop one of them")
    say = say or (lambda _m: None)
    questions, hashes = load_sets(settings, question_files)
    encoder_questions, encoder_hashes = load_sets(settings, encoder_files) if encoder_files else ([], [])
    res = Resources(settings)
    encoder = ""
    try:
        cfg = RetrievalConfig.from_settings(settings)
        pipeline = AskPipeline(res, cfg)
        t0 = time.perf_counter()
        if encoder_files:
            groups, pairs = collect_adapted(pipeline, corpus, questions, encoder_questions, cfg, folds, hybrid, say, progress)
            target = encoder_folder(settings, corpus)
            if store:
                store_encoder(pipeline, corpus, pairs, target, say)
                encoder = str(target.relative_to(settings.home))
            keep = max(CACHE_KEEP, folds + 1)  # never this run's own encoders
            if pruned := prune_encoders(encoder_cache(settings.home, corpus), keep):
                say(f"deleted {len(pruned)} cached encoder(s) not used recently (kept {keep})")
        else:
            groups = collect(pipeline.parts(corpus), questions, cfg, hybrid=hybrid, progress=progress)
        seconds = {"collect": time.perf_counter() - t0}
    finally:
        res.close()
    related, _section_of, _jur = corpus_hierarchy(settings, corpus)
    if cv:
        report = cross_validated(groups, corpus, folds, cfg.cite_max, related, ablations, say, seed)
    else:
        report = TrainReport(corpus, 0, describe_pool(groups), {}, seed=seed)
    report.seconds = {**seconds, "cv": report.seconds.get("cv", 0.0)}
    if store:
        t1 = time.perf_counter()
        card = ModelCard(corpus=corpus, embedding_model=settings.embedding_model, features=list(FEATURES), questions=hashes,
                         encoder=encoder, encoder_version=model_version(str(settings.home / encoder)) if encoder else "",
                         encoder_questions=encoder_hashes)
        store_ranker(settings, groups, card, report, cfg.cite_max, seed)
        report.seconds["final_fit"] = time.perf_counter() - t1
    if out_dir is not None:
        write_report(report, out_dir)
    return report


def store_ranker(settings: Settings, groups: Sequence[Group], card: ModelCard, report: TrainReport, cite_max: int,
                 seed: int) -> None:
    """Fit the ranker on every question, choose its cited-set cut, and save it with ``card`` completed
    (parameters, cut, cross-validated figures, time) in the home; ``report`` gets the cut and the path."""
    columns = columns_without(set())
    booster = fit(groups, columns, seed=seed)
    report.cite_delta = choose_delta(booster, groups, columns, cite_max)
    card.params = {**LGBM_PARAMS, **booster.chosen_size, "random_state": seed}
    card.cite_delta = report.cite_delta
    card.cv = report.as_dict()["systems"].get("bifrost-ltr", {})
    card.trained_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    report.model_path = str(RankerModel(booster, card).save(settings))


def cross_validated(
    groups: Sequence[Group], corpus: str, folds: int, cite_max: int, related, ablations: bool, say: Say,
    seed: int = 0,
) -> TrainReport:
    """Scores of the baselines and of the ranker (and its ablations) on the same questions."""
    t0 = time.perf_counter()
    systems: dict[str, dict[str, Any]] = {}
    for name in groups[0].baselines if groups else ():
        systems[name] = score_run(groups, {g.question.id: g.baselines[name] for g in groups}, None, related)
    run = cross_validate(groups, folds, cite_max, progress=say, seed=seed)
    systems["bifrost-ltr"] = score_run(groups, run.ranked, run.cited, related)
    report = TrainReport(corpus, folds, describe_pool(groups), systems, seed=seed)
    ltr = systems["bifrost-ltr"]["_per_question"]["recall@10"]
    for name in systems:
        if name != "bifrost-ltr":
            report.significance[f"bifrost-ltr vs {name} (R@10, Wilcoxon p)"] = wilcoxon_p(
                ltr, systems[name]["_per_question"]["recall@10"])
    if ablations:
        for group in ABLATIONS:
            drop = cross_validate(groups, folds, cite_max, drop={group}, progress=say, seed=seed)
            report.ablations[f"without {group}"] = score_run(groups, drop.ranked, drop.cited, related)
    report.seconds["cv"] = time.perf_counter() - t0
    return report


def markdown(report: TrainReport) -> str:
    """The cross-validated table (systems, then ablations) with 95% bootstrap CIs."""
    names = ["recall@10", "map@10", "ndcg@10", "both@10", "f1", "f1_h"]
    shown = [n for n in names if any(n in s for s in report.systems.values())]
    lines = [f"## {report.corpus}: {report.pool['questions']} questions, {report.folds}-fold cross-validation"
             + (f" (LightGBM seed {report.seed})" if report.seed else ""), "",
             f"Candidate pool: {report.pool['mean_candidates']:.0f} per question, holding "
             f"{report.pool['gold_recall_of_pool']:.3f} of the gold (the ceiling of any ranking over it).", "",
             "| system | " + " | ".join(shown) + " |", "|---|" + "---|" * len(shown)]
    for table in (report.systems, report.ablations):
        for name, s in table.items():
            cells = [f"{s[n]['mean']:.3f} [{s[n]['low']:.3f}, {s[n]['high']:.3f}]" if n in s else "–" for n in shown]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *(f"- {k}: {v:.4g}" for k, v in report.significance.items())]
    return "\n".join(lines) + "\n"


def write_report(report: TrainReport, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cv.json").write_text(json.dumps(report.as_dict(), indent=2))
    (out_dir / "cv.md").write_text(markdown(report))
