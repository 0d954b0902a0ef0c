"""`bifrost train ranker`: collect ranking groups from question sets, validate the learned ranker beside
the baselines (k-fold inside the pooled sets, and leave-one-set-out: fit on the other sets, score the
one left out; optionally without each feature group, and on held-out sets never trained on), then fit
it on every question and store it in the home with its card. Every figure reported is validated; the
headline is the worst left-out set, as a ratio to RRF, averaged over LightGBM seeds."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

from bifrost.eval.runner import corpus_hierarchy
from bifrost.retrieval.channels.dense import model_version
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.features import FEATURES, columns_without
from bifrost.retrieval.ranking.ltr.model import LGBM_PARAMS, ModelCard, RankerModel
from bifrost.training.ranker.collect_sets import Collected, collect_sets
from bifrost.training.ranker.cv import choose_delta, fit_sized
from bifrost.training.ranker.dataset import Group, describe_pool
from bifrost.training.ranker.figures import add_held_out, cross_validated
from bifrost.training.ranker.report import TrainReport, write_report

from bifrost.core.extras import require_extra
from bifrost.core.settings import Settings

Say = Callable[[str], None]


def train_ranker(
    settings: Settings,
    corpus: str,
    question_files: Sequence[Path],
    folds: int = 5,
    ablations: bool = True,
    hybrid: bool = True,
    out_dir: Path | None = None,
    say: Say | None = None,
    cv: bool = True,
    progress: Callable[[int, int], None] | None = None,
    encoder_files: Sequence[Path] = (),
    seed: int = 0,
    store: bool = True,
    held_out_files: Sequence[Path] = (),
    seeds: Sequence[int] | None = None,
    loso_without: Sequence[str] = (),
) -> TrainReport:
    """Validate (unless ``cv`` is False: k-fold, and leave-one-set-out when several question files are given),
    then fit on all questions and save the ranker of ``corpus`` in the home (unless ``store`` is False: a
    study that leaves the served ranker alone). ``held_out_files``: sets never trained on, scored by the model
    fitted on every training set. ``encoder_files``: question sets to adapt the dense encoder the ranker reads
    (cross-fitted by fold, or by set when several sets are given; see `bifrost.training.ranker.adapted`);
    stored beside the ranker. ``seeds``: LightGBM's sampling seeds (default ``[seed]``); figures are reported
    for the first and averaged over all. ``loso_without``: feature groups also left out of the ranker, each
    measured with every set left out (their worth on questions of a style never trained on)."""
    require_extra("ltr")
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    if not cv and not store:
        raise ValueError("--no-cv with --no-store leaves nothing to do; drop one of them")
    columns_without(set(loso_without))  # an unknown group fails here, not after the collection
    say = say or (lambda _m: None)
    seeds = list(seeds) if seeds else [seed]
    t0 = time.perf_counter()
    data = collect_sets(
        settings,
        corpus,
        question_files,
        held_out_files,
        encoder_files,
        folds,
        hybrid,
        store,
        say,
        progress,
        nested=cv,
    )
    seconds = {"collect": time.perf_counter() - t0}
    cfg = RetrievalConfig.from_settings(settings)
    related, _section_of, _jur = corpus_hierarchy(settings, corpus)
    if cv:
        report = cross_validated(
            data.groups,
            corpus,
            folds,
            cfg.cite_max,
            related,
            ablations,
            say,
            seeds,
            data.without,
            loso_without,
        )
    else:
        report = TrainReport(corpus, 0, describe_pool(data.groups), {}, seed=seeds[0], seeds=seeds)
    report.seconds = {**seconds, "cv": report.seconds.get("cv", 0.0)}
    if data.held:
        add_held_out(
            report, data.groups, data.held, cfg.cite_max, related, seeds, say, loso_without if cv else ()
        )
    if store:
        t1 = time.perf_counter()
        store_collected(settings, corpus, data, report, seeds[0])
        report.seconds["final_fit"] = time.perf_counter() - t1
    if out_dir is not None:
        write_report(report, out_dir)
    return report


def store_collected(settings: Settings, corpus: str, data: Collected, report: TrainReport, seed: int) -> None:
    """Fit the ranker of ``corpus`` on every collected training group at LightGBM ``seed`` and save it with
    its card."""
    cfg = RetrievalConfig.from_settings(settings)
    card = ModelCard(
        corpus=corpus,
        embedding_model=settings.embedding_model,
        features=list(FEATURES),
        questions=data.hashes,
        encoder=data.encoder,
        encoder_version=model_version(str(settings.home / data.encoder)) if data.encoder else "",
        encoder_questions=data.encoder_hashes,
    )
    store_ranker(settings, data.groups, card, report, cfg.cite_max, seed)


def store_ranker(
    settings: Settings,
    groups: Sequence[Group],
    card: ModelCard,
    report: TrainReport,
    cite_max: int,
    seed: int,
) -> None:
    """Fit the ranker on every question, choose its cited-set cut, and save it with ``card`` completed
    (parameters, cut, validated figures, time) in the home; ``report`` gets the cut and the path."""
    columns = columns_without(set())
    booster, size = fit_sized(groups, columns, seed=seed)
    report.cite_delta = choose_delta(booster, groups, columns, cite_max)
    card.params = {**LGBM_PARAMS, **size, "random_state": seed}
    card.cite_delta = report.cite_delta
    card.cv = report.as_dict()["systems"].get("bifrost-ltr", {})
    card.left_out = {name: s.get("bifrost-ltr", {}) for name, s in report.as_dict()["left_out"].items()}
    card.trained_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    report.model_path = str(RankerModel(booster, card).save(settings))
