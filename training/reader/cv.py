"""`bifrost train reader`: the reader cross-fitted by question set, its answers scored nested, then stored.

For each set left out: a ranker is fitted on the other sets (LightGBM, as `train ranker`), its
candidates give the hard negatives of a reader trained on the other sets' pairs, and that reader reads
the left-out set's top candidates. So every figure of a set comes from a ranker and a reader that never
saw it. The reader's two cuts (cite, stated) for a set are chosen on the other sets' out-of-set
readings; its answers are then composed as `ask` composes them (`AskPipeline.answer` with that ranker's
result and that reader), beside today's default answer on the same nested ranking and RRF's top 3.
The final reader is trained on every set behind the stored ranker, with cuts chosen on all out-of-set
readings, and stored in the home with its card. A learning curve (``curve``) retrains the first split's
reader on 1k, 2k, 4k pairs and all.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.training.ranker.cv import choose_delta, fit_sized, ranked
from bifrost.training.ranker.dataset import Group
from bifrost.eval.question_files import read_sets, set_names
from bifrost.eval.questions import Question, own_answers
from bifrost.eval.splits import Split, leave_one_set_out
from bifrost.retrieval.config import RetrievalConfig
from bifrost.training.encoder.pairs import own_text
from bifrost.retrieval.fusion import rrf_fuse
from bifrost.retrieval.ranking.ltr.features import columns_without
from bifrost.retrieval.ranking.ltr.model import ModelCard, RankerModel
from bifrost.retrieval.ranking.ltr.retriever import question_rows
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.reader import apply
from bifrost.retrieval.reader.examples import Negatives, ReaderExample, ReadQuestion, reader_examples
from bifrost.retrieval.reader.model import Reader, ReaderCard
from bifrost.training.reader.fit import FrozenPairs, encode_frozen, fit_reader

Say = Callable[[str], None]
CURVE = (1000, 2000, 4000)
CUT_GRID = tuple(round(0.05 * i, 2) for i in range(1, 20))


@dataclass
class Item:
    """One question of the study: its set, candidates (evidence, pool, feature rows) and ranking group."""

    question: Question
    source: str
    candidates: tuple[Any, Any, np.ndarray]
    group: Group
    rrf: list[str] = field(default_factory=list)


@dataclass
class Options:
    """How readers are trained (recorded on the card)."""

    base_model: str = "all-MiniLM-L6-v2"
    trainable_layers: int = 2
    epochs: int = 1
    max_length: int = 128
    seed: int = 13
    negatives: Negatives = field(default_factory=Negatives)
    stated_share: float = 0.05  # answerable questions the stated cut may set aside on the other sets
    threads: int = 2


def collect_items(
    pipe: AskPipeline, corpus: str, questions: Sequence[tuple[Question, str]], cfg: RetrievalConfig, say: Say
) -> list[Item]:
    """Candidates of every question (answerable or not), collected once for every split."""
    parts = pipe.parts(corpus)
    ids = parts.channels.ids
    parts.prepare([q.question for q, _ in questions], cfg)
    items: list[Item] = []
    for n, (q, source) in enumerate(questions, start=1):
        ev, pool, rows = question_rows(parts.channels, parts.nav, q.question, cfg, exclude=own_answers(q))
        gold = set(q.gold)
        group = Group(
            q,
            pool.ids,
            rows,
            np.array([pid in gold for pid in pool.ids], dtype=np.int32),
            ev.relevance,
            source=source,
        )
        bm25 = [ids[i] for i in np.argsort(-ev.bm25, kind="stable")[:100] if ev.bm25[i] > 0]
        cosine = ev.dense if ev.cosine is None else ev.cosine
        dense = [ids[i] for i in np.argsort(-cosine, kind="stable")[:100]]
        items.append(Item(q, source, (ev, pool, rows), group, [pid for pid, _ in rrf_fuse([bm25, dense])]))
        if n % 100 == 0:
            say(f"candidates of {n}/{len(questions)} questions")
    return items


def read_question(q: Question) -> ReadQuestion:
    decisive = tuple(
        (d["id"], d["quote"]) for d in q.extra.get("decisive") or [] if d.get("id") and d.get("quote")
    )
    return ReadQuestion(q.question, tuple(q.gold) if q.answerable else (), decisive)


def fit_ranker(items: Sequence[Item], cfg: RetrievalConfig, seed: int) -> RankerModel:
    """A ranker fitted on these items' groups, with its cited-set cut, as `train ranker` fits one."""
    columns = columns_without(set())
    groups = [it.group for it in items if it.question.answerable]
    booster, size = fit_sized(groups, columns, seed=seed)
    card = ModelCard(
        corpus="",
        embedding_model="",
        features=[],
        params=size,
        cite_delta=choose_delta(booster, groups, columns, cfg.cite_max),
    )
    return RankerModel(booster, card)


def ranking(model: RankerModel, items: Sequence[Item]) -> dict[str, list[str]]:
    return {
        it.question.id: ranked(model.booster, it.group, columns_without(set()))[0][: apply.READ_TOP]
        for it in items
    }


def split_key(
    names: Sequence[str], texts: dict[str, str], opts: Options, pairs: Sequence[ReaderExample]
) -> str:
    """A cache key of a reader: what it was trained on and how."""
    h = hashlib.sha256(
        repr(
            (
                sorted(names),
                opts.base_model,
                opts.trainable_layers,
                opts.epochs,
                opts.max_length,
                opts.seed,
                opts.negatives,
                len(pairs),
                len(texts),
            )
        ).encode()
    )
    for e in pairs:
        h.update(f"{e.question}\t{e.text}\t{e.label}\n".encode())
    return h.hexdigest()[:16]


class Trainer:
    """Readers of one corpus, their frozen-layer cache shared, each cached by what it was trained on."""

    def __init__(
        self,
        settings: Settings,
        corpus: str,
        texts: dict[str, str],
        own: dict[str, str],
        nav: Any,
        opts: Options,
        say: Say,
    ) -> None:
        self.settings, self.corpus, self.texts, self.own, self.nav, self.opts, self.say = (
            settings,
            corpus,
            texts,
            own,
            nav,
            opts,
            say,
        )
        self.cache: FrozenPairs | None = None
        self.folder = settings.home / "index" / corpus / "readers"

    def pairs(self, items: Sequence[Item], ranked_ids: dict[str, list[str]]) -> list[ReaderExample]:
        return reader_examples(
            [read_question(it.question) for it in items],
            lambda q: ranked_ids.get(self._qid[q], []),
            self.texts,
            self.nav.parent,
            self.nav.children,
            self.opts.negatives,
            self.opts.seed,
            self.own,
        )

    def index(self, items: Sequence[Item]) -> None:
        self._qid = {it.question.question.strip(): it.question.id for it in items}

    def train(
        self, name: str, pairs: Sequence[ReaderExample], card: ReaderCard, out: Path | None = None
    ) -> Reader:
        key = split_key([name], self.texts, self.opts, pairs)
        target = out or self.folder / f"{name}-{key}"
        if out is None and (target / "reader-card.json").is_file():
            self.say(f"reader without {name}: cached")
            return Reader(target)
        t0 = time.perf_counter()
        self.cache = encode_frozen(
            pairs,
            self.opts.base_model,
            self.opts.trainable_layers,
            self.opts.max_length,
            self.opts.threads,
            known=self.cache,
        )
        card.trainable_layers, card.seed, card.max_length = (
            self.opts.trainable_layers,
            self.opts.seed,
            self.opts.max_length,
        )
        tick = lambda done, total: done % 200 == 0 and self.say(f"reader without {name}: step {done}/{total}")  # noqa: E731
        fit_reader(
            pairs, self.cache, target, card, epochs=self.opts.epochs, threads=self.opts.threads, progress=tick
        )
        self.say(f"reader without {name}: {len(pairs)} pairs, {time.perf_counter() - t0:.0f} s")
        return Reader(target)


def choose_cuts(
    readings: Sequence[tuple[apply.Reading, Question]], cite_max: int, stated_share: float
) -> dict[str, float]:
    """The cite cut with the best mean citation F1 of the reader's cited set, and the highest stated cut that
    sets aside at most ``stated_share`` of the answerable questions, on these (out-of-set) readings."""
    from bifrost.eval.metrics import set_prf

    answerable = [(r, q) for r, q in readings if q.answerable and q.gold]
    if not answerable:
        return {"cite": 0.5, "stated": 0.0}

    def f1(cut: float) -> float:
        return float(np.mean([set_prf(apply.cited(r, cut, cite_max), q.gold).f1 for r, q in answerable]))

    cite = max(CUT_GRID, key=lambda c: (f1(c), -c))
    best = np.sort([r.best for r, _ in answerable])
    stated = float(best[int(np.floor(stated_share * len(best)))]) if len(best) else 0.0
    return {"cite": float(cite), "stated": round(max(0.0, stated - 1e-6), 6)}


def splits_of(items: Sequence[Item]) -> list[Split]:
    splits = leave_one_set_out([it.source for it in items])
    if not splits:
        raise ValueError("train reader needs two question sets or more (each is left out in turn)")
    return splits


def question_sets(
    settings: Settings, corpus: str, files: Sequence[Path], say: Say
) -> tuple[list[tuple[Question, str]], list[dict]]:
    """Every question of the files with its set's name (a question in two files: the first), and the files'
    hashes."""
    sets = read_sets(settings, files, corpus, say)
    seen: set[str] = set()
    out: list[tuple[Question, str]] = []
    for qset, name in zip(sets, set_names(files)):
        for q in qset.questions:
            if q.question.strip() not in seen:
                seen.add(q.question.strip())
                out.append((q, name))
    return out, [{"path": str(p), "sha256": s.sha256} for p, s in zip(files, sets)]


def provision_texts(resources: Resources, corpus: str) -> tuple[dict[str, str], dict[str, str]]:
    """(what the reader reads of each provision, its own text) of every provision."""
    provisions = resources.sql.provisions(corpus)
    return {p.id: own_text(p) for p in provisions}, {p.id: p.text or "" for p in provisions}
