"""`bifrost train ranker`: collect ranking groups from question sets, validate the learned ranker beside
the baselines (k-fold inside the pooled sets, and leave-one-set-out: fit on the other sets, score the
one left out; optionally without each feature group, and on held-out sets never trained on), then fit
it on every question and store it in the home with its card. Every figure reported is validated; the
headline is the worst left-out set, as a ratio to RRF, averaged over LightGBM seeds."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bifrost.core.extras import require_extra
from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.training.ranker.adapted import (
    CACHE_KEEP,
    collect_adapted,
    encoder_cache,
    prune_encoders,
    store_encoder,
)
from bifrost.training.ranker.cv import (
    ABLATIONS,
    TOP_N,
    choose_delta,
    cross_validate,
    fit,
    fit_sized,
    ranked,
    score_run,
)
from bifrost.training.ranker.dataset import Group, collect, describe_pool
from bifrost.eval.precedent_overlap import bank_overlap
from bifrost.eval.question_files import load_sets, read_sets, set_names
from bifrost.eval.questions import Question, merge_sets, own_answers
from bifrost.eval.runner import corpus_hierarchy
from bifrost.eval.splits import Split, leave_one_set_out, refuse_overlap
from bifrost.eval.stats import wilcoxon_p
from bifrost.retrieval.channels.dense import model_version
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.features import FEATURES, columns_without
from bifrost.retrieval.ranking.ltr.model import LGBM_PARAMS, ModelCard, RankerModel, encoder_folder
from bifrost.retrieval.ranking.ltr.retriever import cut_cited
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
    left_out: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # set -> system -> figures, fit on the other sets
    held_out: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # set -> system -> figures, fit on every set
    seeds: list[int] = field(default_factory=list)
    seed_means: dict[str, dict[str, float]] = field(
        default_factory=dict
    )  # evaluation -> {mean, min, max} of ltr R@10

    def as_dict(self) -> dict[str, Any]:
        strip = lambda d: {k: {m: v for m, v in s.items() if m != "_per_question"} for k, s in d.items()}  # noqa: E731
        return {
            "corpus": self.corpus,
            "folds": self.folds,
            "pool": self.pool,
            "systems": strip(self.systems),
            "ablations": strip(self.ablations),
            "significance": self.significance,
            "model_path": self.model_path,
            "cite_delta": self.cite_delta,
            "seconds": self.seconds,
            "seed": self.seed,
            "left_out": {k: strip(v) for k, v in self.left_out.items()},
            "held_out": {k: strip(v) for k, v in self.held_out.items()},
            "seeds": self.seeds,
            "seed_means": self.seed_means,
            "worst_left_out": self.worst_left_out(),
        }

    def worst_left_out(self) -> dict[str, Any] | None:
        """The left-out (or held-out) set where the ranker gains least over RRF (R@10 ratio, seed mean)."""
        ratios = {}
        for name, systems in {**self.left_out, **self.held_out}.items():
            rrf = systems.get("rrf", {}).get("recall@10", {}).get("mean")
            ltr = self.seed_means.get(name, {}).get(
                "mean", systems.get("bifrost-ltr", {}).get("recall@10", {}).get("mean")
            )
            if rrf and ltr is not None:
                ratios[name] = ltr / rrf
        if not ratios:
            return None
        name = min(ratios, key=ratios.get)
        return {"set": name, "ratio_to_rrf": round(ratios[name], 4), "held_out": name in self.held_out}


@dataclass
class Collected:
    """Ranking groups of the training sets and of the held-out sets, and what the card records."""

    groups: list[Group]
    held: list[Group]
    hashes: list[dict[str, str]]
    encoder_hashes: list[dict[str, str]]
    encoder: str = ""
    without: dict[str, list[Group]] = field(
        default_factory=dict
    )  # set name -> groups with that set's answers out of the bank


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
) -> TrainReport:
    """Validate (unless ``cv`` is False: k-fold, and leave-one-set-out when several question files are
    given), then fit on all questions and save the ranker of ``corpus`` in the home (unless ``store`` is
    False: a study that leaves the served ranker alone). ``held_out_files``: sets never trained on, scored
    by the model fitted on every training set. ``encoder_files``: question sets to adapt the dense encoder
    the ranker reads (cross-fitted by fold, or by set when several sets are given; see
    `bifrost.training.ranker.adapted`); stored beside the ranker. ``seeds``: LightGBM's sampling seeds
    (default
    ``[seed]``); figures are reported for the first and averaged over all."""
    require_extra("ltr")
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    if not cv and not store:
        raise ValueError("--no-cv with --no-store leaves nothing to do; drop one of them")
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
            data.groups, corpus, folds, cfg.cite_max, related, ablations, say, seeds, data.without
        )
    else:
        report = TrainReport(corpus, 0, describe_pool(data.groups), {}, seed=seeds[0], seeds=seeds)
    report.seconds = {**seconds, "cv": report.seconds.get("cv", 0.0)}
    if data.held:
        report.held_out, means = held_out_figures(data.groups, data.held, cfg.cite_max, related, seeds, say)
        report.seed_means.update(means)
    if store:
        t1 = time.perf_counter()
        store_collected(settings, corpus, data, report, seeds[0])
        report.seconds["final_fit"] = time.perf_counter() - t1
    if out_dir is not None:
        write_report(report, out_dir)
    return report


def collect_sets(
    settings: Settings,
    corpus: str,
    question_files: Sequence[Path],
    held_out_files: Sequence[Path],
    encoder_files: Sequence[Path],
    folds: int,
    hybrid: bool,
    store: bool,
    say: Say,
    progress: Callable[[int, int], None] | None,
    nested: bool = False,
) -> Collected:
    """Ranking groups of every training and held-out question, each labelled with its set's name. With
    an encoder, a training question is read by an encoder that never saw its fold (its set, when several
    sets are given); a held-out question by the encoder trained on every encoder question. ``nested``: also
    collect, for each set whose answers are precedents in the bank, every group with them out of it
    (`sets_out_of_bank`), for the figures of that set left out."""
    sets = read_sets(settings, question_files, corpus, say)
    names = set_names(question_files)
    merged = merge_sets(sets, say)
    name_of = {id(qset): name for qset, name in zip(sets, names)}
    source = {q.id: name_of[id(qset)] for q, qset in merged}
    questions = [q for q, _ in merged]
    held_sets = read_sets(settings, held_out_files, corpus, say)
    held = [(q, name) for qset, name in zip(held_sets, set_names(held_out_files)) for q in qset.questions]
    _refuse_overlap(questions, held, encoder_files and load_sets(settings, encoder_files, corpus, say)[0])
    encoder_questions, encoder_hashes = (
        load_sets(settings, encoder_files, corpus, say) if encoder_files else ([], [])
    )
    resources = Resources(settings)
    out = Collected(
        [], [], [{"path": str(p), "sha256": s.sha256} for p, s in zip(question_files, sets)], encoder_hashes
    )
    try:
        cfg = RetrievalConfig.from_settings(settings)
        pipeline = AskPipeline(resources, cfg)
        parts = pipeline.parts(corpus)
        own = bank_overlap(settings, corpus, [*questions, *(q for q, _ in held)])
        if own["own_removed"]:
            say(
                f"{own['own_removed']} question(s) have their own precedent in the bank: it is left out for "
                "each"
            )
        if encoder_files:
            by_set = (lambda q: source[q.id]) if len(set(names)) > 1 else None
            out.groups, pairs = collect_adapted(
                pipeline,
                corpus,
                questions,
                encoder_questions,
                cfg,
                folds,
                hybrid,
                say,
                progress,
                fold_key=by_set,
            )
            target = encoder_folder(settings, corpus)
            if store or held:
                store_encoder(pipeline, corpus, pairs, target, say)
                out.encoder = str(target.relative_to(settings.home)) if store else ""
                parts = replace(
                    parts,
                    channels=parts.channels.with_ranking_dense(pipeline.dense_ranker(corpus, None, target)),
                )
            keep = max(CACHE_KEEP, max(folds, len(names)) + 1)  # never this run's own encoders
            if pruned := prune_encoders(encoder_cache(settings.home, corpus), keep):
                say(f"deleted {len(pruned)} cached encoder(s) not used recently (kept {keep})")
        else:
            out.groups = collect(parts, questions, cfg, hybrid=hybrid, progress=progress)
            if nested:  # figures to come: each set left out with its answers out of the bank
                out.without = sets_out_of_bank(parts, questions, source, cfg, hybrid, say, progress)
        if held:
            out.held = collect(parts, [q for q, _ in held], cfg, hybrid=hybrid, progress=progress)
    finally:
        resources.close()
    for g in out.groups:
        g.source = source[g.question.id]
    held_name = {q.id: name for q, name in held}
    for g in out.held:
        g.source = held_name[g.question.id]
    return out


def sets_out_of_bank(
    parts,
    questions: Sequence[Question],
    source: dict[str, str],
    cfg: RetrievalConfig,
    hybrid: bool,
    say: Say,
    progress: Callable[[int, int], None] | None,
) -> dict[str, list[Group]]:
    """For each set whose questions are precedents in the bank (the dev letters are OSHA's own letters), every
    question's groups collected again with all of that set's precedents out of the bank: the set left out is
    then
    scored, and the model fitted, as if none of its answers had been published (nested: nothing behind its
    figure
    saw its letters). Only when several sets are given (leave-one-set-out)."""
    bank = parts.channels.precedents
    names = sorted(set(source.values()))
    if bank is None or len(names) < 2:
        return {}
    keys = {p.id for p in bank.precedents} | {p.url for p in bank.precedents if p.url}
    out: dict[str, list[Group]] = {}
    for name in names:
        hits = sorted({k for q in questions if source[q.id] == name for k in own_answers(q) if k in keys})
        if hits:
            say(
                f"{name}: its {len(hits)} answers are precedents in the bank; collecting again with them "
                "all out of it"
            )
            out[name] = collect(parts, questions, cfg, hybrid=hybrid, progress=progress, also_exclude=hits)
    return out


def _refuse_overlap(
    questions: Sequence[Question], held: Sequence[tuple[Question, str]], encoder: Sequence[Question] | bool
) -> None:
    """A held-out question must never be trained on: not in the ranker's sets, nor in the encoder's."""
    refuse_overlap(
        [q.question for q in [*questions, *(encoder or [])]], [(name, q.id, q.question) for q, name in held]
    )


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
        glossary=cfg.glossary_for(corpus),
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


def baseline_figures(groups: Sequence[Group], related) -> dict[str, dict[str, Any]]:
    """Scores of the baselines recorded with the groups (bm25, dense, rrf, the hybrid)."""
    return {
        name: score_run(groups, {g.question.id: g.baselines[name] for g in groups}, None, related)
        for name in (groups[0].baselines if groups else ())
    }


def _seed_stats(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": float(sum(values) / len(values)),
        "min": float(min(values)),
        "max": float(max(values)),
        "n": len(values),
    }


def cross_validated(
    groups: Sequence[Group],
    corpus: str,
    folds: int,
    cite_max: int,
    related,
    ablations: bool,
    say: Say,
    seeds: Sequence[int] = (0,),
    without: dict[str, list[Group]] | None = None,
) -> TrainReport:
    """Scores of the baselines and of the ranker (and its ablations) on the same questions, k-fold; and,
    when the groups come from several sets, with each set left out in turn (fit on the others; ``without``:
    per set, the groups to use when it is left out, collected with its answers out of the precedent bank)."""
    t0 = time.perf_counter()
    systems = baseline_figures(groups, related)
    runs = [cross_validate(groups, folds, cite_max, progress=say, seed=s) for s in seeds]
    systems["bifrost-ltr"] = score_run(groups, runs[0].ranked, runs[0].cited, related)
    report = TrainReport(corpus, folds, describe_pool(groups), systems, seed=seeds[0], seeds=list(seeds))
    report.seed_means["k-fold"] = _seed_stats(
        [score_run(groups, r.ranked, r.cited, related)["recall@10"]["mean"] for r in runs]
    )
    ltr = systems["bifrost-ltr"]["_per_question"]["recall@10"]
    for name in systems:
        if name != "bifrost-ltr":
            report.significance[f"bifrost-ltr vs {name} (R@10, Wilcoxon p)"] = wilcoxon_p(
                ltr, systems[name]["_per_question"]["recall@10"]
            )
    splits = leave_one_set_out([g.source for g in groups])
    if splits:
        report.left_out, means = left_out_figures(
            groups, splits, cite_max, related, seeds, say, without or {}
        )
        report.seed_means.update(means)
    if ablations:
        for group in ABLATIONS:
            drop = cross_validate(groups, folds, cite_max, drop={group}, progress=say, seed=seeds[0])
            report.ablations[f"without {group}"] = score_run(groups, drop.ranked, drop.cited, related)
    report.seconds["cv"] = time.perf_counter() - t0
    return report


def left_out_figures(
    groups: Sequence[Group],
    splits: Sequence[Split],
    cite_max: int,
    related,
    seeds: Sequence[int],
    say: Say,
    without: dict[str, list[Group]] | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    """Per set left out: the baselines and the ranker fitted on the other sets (first seed), and the
    ranker's R@10 over every seed; a set in ``without`` is fitted and scored on its own groups (the same
    questions, in the same order, collected with its answers out of the precedent bank)."""
    figures: dict[str, dict[str, Any]] = {}
    means: dict[str, dict[str, float]] = {}
    for split in splits:
        pool = (without or {}).get(split.name, groups)
        runs = [cross_validate(pool, 0, cite_max, progress=say, seed=s, splits=[split]) for s in seeds]
        test = [pool[i] for i in split.test]
        figures[split.name] = {
            **baseline_figures(test, related),
            "bifrost-ltr": score_run(test, runs[0].ranked, runs[0].cited, related),
        }
        means[split.name] = _seed_stats(
            [score_run(test, r.ranked, r.cited, related)["recall@10"]["mean"] for r in runs]
        )
    return figures, means


def held_out_figures(
    groups: Sequence[Group],
    held: Sequence[Group],
    cite_max: int,
    related,
    seeds: Sequence[int],
    say: Say,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    """Per held-out set: the baselines and the ranker fitted on every training question (first seed), and
    the ranker's R@10 over every seed."""
    columns = columns_without(set())
    ranked_by_seed: list[tuple[dict[str, list[str]], dict[str, list[str]]]] = []
    for s in seeds:
        booster = fit(groups, columns, seed=s)
        delta = choose_delta(booster, groups, columns, cite_max)
        by_q = {g.question.id: ranked(booster, g, columns) for g in held}
        ranked_by_seed.append(
            (
                {q: ids[:TOP_N] for q, (ids, _) in by_q.items()},
                {q: ids[: cut_cited(sc, delta, cite_max)] for q, (ids, sc) in by_q.items()},
            )
        )
        say(f"held-out sets scored (seed {s})")
    figures: dict[str, dict[str, Any]] = {}
    means: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(g.source for g in held):
        test = [g for g in held if g.source == name]
        figures[name] = {
            **baseline_figures(test, related),
            "bifrost-ltr": score_run(test, *ranked_by_seed[0], related),
        }
        means[name] = _seed_stats(
            [score_run(test, r, c, related)["recall@10"]["mean"] for r, c in ranked_by_seed]
        )
    return figures, means


def markdown(report: TrainReport) -> str:
    """The cross-validated table (systems, then ablations) with 95% bootstrap CIs."""
    names = ["recall@10", "map@10", "ndcg@10", "both@10", "f1", "f1_h"]
    shown = [n for n in names if any(n in s for s in report.systems.values())]
    lines = [
        f"## {report.corpus}: {report.pool['questions']} questions, {report.folds}-fold cross-validation"
        + (f" (LightGBM seed {report.seed})" if report.seed else ""),
        "",
        f"Candidate pool: {report.pool['mean_candidates']:.0f} per question, holding "
        f"{report.pool['gold_recall_of_pool']:.3f} of the gold (the ceiling of any ranking over it).",
        "",
        "| system | " + " | ".join(shown) + " |",
        "|---|" + "---|" * len(shown),
    ]
    for table in (report.systems, report.ablations):
        for name, s in table.items():
            cells = [
                f"{s[n]['mean']:.3f} [{s[n]['low']:.3f}, {s[n]['high']:.3f}]" if n in s else "–"
                for n in shown
            ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *(f"- {k}: {v:.4g}" for k, v in report.significance.items())]
    return set_markdown(report) + "\n".join(lines) + "\n"


def set_markdown(report: TrainReport) -> str:
    """R@10 per set left out and per held-out set, worst ratio to RRF first ("" when there are none)."""
    rows = {
        **{(k, "left out"): v for k, v in report.left_out.items()},
        **{(k, "held out"): v for k, v in report.held_out.items()},
    }
    if not rows:
        return ""
    systems = [
        s
        for s in ("bm25", "dense", "rrf", "bifrost-hybrid", "bifrost-ltr")
        if any(s in v for v in rows.values())
    ]

    def ltr(key: tuple[str, str]) -> float:
        seeds = report.seed_means.get(key[0])
        return seeds["mean"] if seeds else rows[key]["bifrost-ltr"]["recall@10"]["mean"]

    def ratio(key: tuple[str, str]) -> float:
        rrf = rows[key].get("rrf", {}).get("recall@10", {}).get("mean")
        return ltr(key) / rrf if rrf else float("nan")

    seeds = (
        f" (bifrost-ltr: mean of LightGBM seeds {', '.join(map(str, report.seeds))})"
        if len(report.seeds) > 1
        else ""
    )
    lines = [
        f"## {report.corpus}: R@10 with each question set left out{seeds}",
        "",
        "| set | | questions | " + " | ".join(systems) + " | ltr / rrf |",
        "|---|---|---|" + "---|" * (len(systems) + 1),
    ]
    for key in sorted(rows, key=ratio):
        cells = [
            f"{rows[key][s]['recall@10']['mean']:.3f}" if s in rows[key] else "–" for s in systems[:-1]
        ] + [f"{ltr(key):.3f}"]
        lines.append(
            f"| {key[0]} | {key[1]} | {rows[key]['bifrost-ltr']['recall@10']['n']} | "
            + " | ".join(cells)
            + f" | {ratio(key):.2f}x |"
        )
    return "\n".join(lines) + "\n\n"


def write_report(report: TrainReport, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cv.json").write_text(json.dumps(report.as_dict(), indent=2))
    (out_dir / "cv.md").write_text(markdown(report))
