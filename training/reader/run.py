"""The run of `bifrost train reader` (see `bifrost.training.reader.cv` for the design): cross-fit, nested
answers and their figures, the learning curve, then the stored reader with its card."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.extras import require_extra
from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.eval.answers import Case, Scored, scored, system_figures
from bifrost.eval.hierarchy import hierarchy_for
from bifrost.training.reader.cv import (
    CURVE,
    Item,
    Options,
    Trainer,
    choose_cuts,
    collect_items,
    fit_ranker,
    provision_texts,
    question_sets,
    ranking,
    splits_of,
)
from bifrost.eval.stats import auroc
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.features import FEATURES
from bifrost.retrieval.ranking.ltr.model import load_ranker, ranker_sha256
from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.reader import apply
from bifrost.retrieval.reader.model import ReaderCard, reader_folder

Say = Callable[[str], None]
SYSTEMS = ("reader", "default plan", "rrf")


class Memo:
    """A reader whose scores are kept per (question, text): the cut choice and the answer read the same
    pairs once."""

    def __init__(self, reader: Any) -> None:
        self.reader, self.card, self.seen = reader, reader.card, {}
        self._lock = threading.Lock()

    def score(self, question: str, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if (question, t) not in self.seen]
        if todo:
            with self._lock:
                self.seen.update(
                    zip(((question, t) for t in todo), self.reader.score(question, todo).tolist())
                )
        return np.array([self.seen[(question, t)] for t in texts], dtype=np.float64)


def cross_fit(
    trainer: Trainer,
    items: Sequence[Item],
    cfg: RetrievalConfig,
    corpus: str,
    lookup,
    opts: Options,
    say: Say,
) -> tuple[dict[str, tuple[Any, Memo]], dict[str, apply.Reading]]:
    """Per set left out: a ranker and a reader fitted on the other sets; every question's out-of-set
    reading."""
    nested: dict[str, tuple[Any, Memo]] = {}
    readings: dict[str, apply.Reading] = {}
    for split in splits_of(items):
        train = [items[i] for i in split.train]
        model = fit_ranker(train, cfg, opts.seed)
        ranked_ids = ranking(model, items)
        card = ReaderCard(corpus=corpus, base_model=opts.base_model, epochs=opts.epochs)
        reader = Memo(trainer.train(split.name, trainer.pairs(train, ranked_ids), card))
        for i in split.test:
            q = items[i].question
            readings[q.id] = apply.read(reader, q.question, ranked_ids[q.id], lookup)
        nested[split.name] = (model, reader)
    return nested, readings


def answer_nested(
    pipe: AskPipeline,
    corpus: str,
    items: Sequence[Item],
    nested,
    readings,
    cfg: RetrievalConfig,
    opts: Options,
    say: Say,
) -> tuple[list[Case], list[dict[str, Any]], dict[str, dict[str, float]]]:
    """Every question answered as `ask` answers it, by its set's nested ranker with and without its nested
    reader."""
    parts, lookup = pipe.parts(corpus), pipe.lookup(corpus)
    cases, rows, cuts = [], [], {}
    for split in splits_of(items):
        model, reader = nested[split.name]
        reader.card.cuts = cuts[split.name] = choose_cuts(
            [(readings[items[i].question.id], items[i].question) for i in split.train],
            cfg.cite_max,
            opts.stated_share,
        )
        retriever = LtrRetriever(parts.channels, parts.nav, model, cfg)
        for i in split.test:
            it = items[i]
            result = retriever.ranked(*it.candidates, cfg)
            read = pipe.answer(it.question.question, corpus, result, cfg, judge=None, reader=reader)
            plain = pipe.answer(it.question.question, corpus, result, cfg, judge=None, reader=None)
            rows.append(
                {
                    "id": it.question.id,
                    "set": it.source,
                    "answerable": it.question.answerable,
                    "reader": read.outcome.value,
                    "default plan": plain.outcome.value,
                }
            )
            if it.question.answerable and it.question.gold:
                top = tuple(it.rrf[:3])
                cases.append(
                    Case(
                        it.question,
                        it.source,
                        {
                            "reader": scored(read, lookup),
                            "default plan": scored(plain, lookup),
                            "rrf": Scored(top, top[:1]),
                        },
                    )
                )
        say(f"{split.name}: answered with the ranker and reader that never saw it (cuts {cuts[split.name]})")
    return cases, rows, cuts


def outcome_rates(rows: Sequence[dict[str, Any]], system: str) -> dict[str, float]:
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    share = lambda rs, values: float(np.mean([r[system] in values for r in rs])) if rs else float("nan")  # noqa: E731
    return {
        "answerable": len(ans),
        "unanswerable": len(una),
        "answerable_refused": share(ans, ("refused",)),
        "answerable_set_aside": share(ans, ("refused", "not_stated")),
        "unanswerable_refused_or_not_stated": share(una, ("refused", "not_stated")),
    }


def reading_auroc(items: Sequence[Item], readings: dict[str, apply.Reading]) -> float:
    labels, scores = [], []
    for it in items:
        r = readings.get(it.question.id)
        if r is None or not it.question.gold:
            continue
        labels += [pid in it.question.gold for pid in r.ids]
        scores += r.scores
    return float(auroc(labels, scores)) if any(labels) and not all(labels) else float("nan")


def figures(items: Sequence[Item], cases: Sequence[Case], rows, readings, related) -> dict[str, Any]:
    """Per set left out and over all: reader AUROC, citation figures of each system, outcome rates."""
    out: dict[str, Any] = {}
    for name in ["all", *dict.fromkeys(it.source for it in items)]:
        sub = [c for c in cases if name == "all" or c.source == name]
        its = [it for it in items if name == "all" or it.source == name]
        rs = [r for r in rows if name == "all" or r["set"] == name]
        out[name] = {
            "auroc": reading_auroc(its, readings),
            "systems": {s: _strip(system_figures(sub, [s] * len(sub), related)) for s in SYSTEMS}
            if sub
            else {},
            "outcomes": {s: outcome_rates(rs, s) for s in ("reader", "default plan")},
        }
    multi = [c for c in cases if c.multi_hop]
    if multi:
        out["multi-hop"] = {
            "systems": {s: _strip(system_figures(multi, [s] * len(multi), related)) for s in SYSTEMS}
        }
    return out


def _strip(f: dict[str, Any]) -> dict[str, Any]:
    return {k: (v["mean"] if isinstance(v, dict) and "mean" in v else v) for k, v in f.items()}


def learning_curve(
    trainer: Trainer,
    items: Sequence[Item],
    cfg: RetrievalConfig,
    lookup,
    opts: Options,
    say: Say,
    readings: dict[str, apply.Reading],
) -> list[dict[str, Any]]:
    """AUROC on the first set left out against the number of training pairs (readers on random subsets)."""
    split = splits_of(items)[0]
    train, test = [items[i] for i in split.train], [items[i] for i in split.test]
    model = fit_ranker(train, cfg, opts.seed)
    ranked_ids = ranking(model, items)
    pairs = trainer.pairs(train, ranked_ids)
    points = [{"set": split.name, "pairs": len(pairs), "auroc": reading_auroc(test, readings)}]
    for n in (c for c in CURVE if c < len(pairs)):
        subset = random.Random(n).sample(pairs, n)
        if len({e.label for e in subset}) < 2:
            continue
        reader = trainer.train(
            f"{split.name}-curve{n}", subset, ReaderCard(corpus=trainer.corpus, base_model=opts.base_model)
        )
        got = {
            it.question.id: apply.read(reader, it.question.question, ranked_ids[it.question.id], lookup)
            for it in test
        }
        points.append({"set": split.name, "pairs": n, "auroc": reading_auroc(test, got)})
        say(f"learning curve: {n} pairs, AUROC {points[-1]['auroc']:.3f}")
    return sorted(points, key=lambda p: p["pairs"])


def store_final(
    settings: Settings,
    trainer: Trainer,
    pipe: AskPipeline,
    corpus: str,
    items: Sequence[Item],
    cuts: dict,
    report: dict[str, Any],
    hashes,
    opts: Options,
) -> Path:
    """The reader trained on every set, behind the stored ranker, with the cuts of all out-of-set readings."""
    model = load_ranker(settings, corpus, FEATURES)
    if model is None:
        raise ValueError(
            f"no trained ranker for {corpus!r}: run `bifrost train ranker` first (the reader is trained "
            "behind it)"
        )
    ranked_ids = ranking(model, items)
    card = ReaderCard(
        corpus=corpus,
        base_model=opts.base_model,
        embedding_model=settings.embedding_model,
        ranker_sha256=ranker_sha256(settings, corpus),
        questions=hashes,
        epochs=opts.epochs,
        cuts=cuts,
        figures={k: v for k, v in report.items() if k in ("left_out", "worst_left_out", "curve")},
    )
    target = reader_folder(settings.home, corpus)
    trainer.train("all", trainer.pairs(items, ranked_ids), card, out=target)
    return target


def train_reader(
    settings: Settings,
    corpus: str,
    files: Sequence[Path],
    opts: Options = Options(),
    curve: bool = False,
    store: bool = True,
    out_dir: Path | None = None,
    say: Say | None = None,
) -> dict[str, Any]:
    """Cross-fit, score nested, (optionally) the learning curve, then store the final reader; the report."""
    require_extra("experiments")
    say = say or (lambda _m: None)
    questions, hashes = question_sets(settings, corpus, files, say)
    resources = Resources(settings)
    try:
        cfg = RetrievalConfig.from_settings(settings).model_copy(update={"reader": "off"})
        pipe = AskPipeline(resources, cfg)
        parts, lookup = pipe.parts(corpus), pipe.lookup(corpus)
        texts, own = provision_texts(resources, corpus)
        items = collect_items(pipe, corpus, questions, cfg, say)
        trainer = Trainer(settings, corpus, texts, own, parts.nav, opts, say)
        trainer.index(items)
        nested, readings = cross_fit(trainer, items, cfg, corpus, lookup, opts, say)
        cases, rows, cuts = answer_nested(pipe, corpus, items, nested, readings, cfg, opts, say)
        jur = resources.sql.jurisdiction(corpus)
        related, _ = hierarchy_for(corpus, jur, lambda: resources.sql.provisions(corpus))
        per_set = figures(items, cases, rows, readings, related)
        sets = [s for s in per_set if s not in ("all", "multi-hop") and per_set[s]["systems"]]
        worst = min(sets, key=lambda s: per_set[s]["systems"]["reader"]["f1"]) if sets else None
        report: dict[str, Any] = {
            "corpus": corpus,
            "files": hashes,
            "cuts_by_set": cuts,
            "left_out": per_set,
            "worst_left_out": worst,
            "options": {k: str(v) for k, v in vars(opts).items()},
        }
        if curve:
            report["curve"] = learning_curve(trainer, items, cfg, lookup, opts, say, readings)
        report["cuts"] = choose_cuts(
            [(readings[it.question.id], it.question) for it in items if it.question.id in readings],
            cfg.cite_max,
            opts.stated_share,
        )
        if store:
            report["model_path"] = str(
                store_final(settings, trainer, pipe, corpus, items, report["cuts"], report, hashes, opts)
            )
    finally:
        resources.close()
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "summary.json").write_text(json.dumps(report, indent=2, default=str))
        with (out_dir / "outcomes.jsonl").open("w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return report
