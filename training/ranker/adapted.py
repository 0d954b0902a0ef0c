"""Ranking groups whose dense evidence comes from an encoder adapted to labelled questions, without a
question ever being read by an encoder trained on it (cross-fitting): the questions of fold k are read by
an encoder fine-tuned on the encoder questions outside fold k. One more encoder, on all of them, is the
one stored for new questions. Each pair carries a hard negative: the question's best BM25 hit that is not
gold (DPR's recipe). Encoders are cached by base model and training pairs, so a rerun reuses them."""

from __future__ import annotations

import functools
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from bifrost.eval.questions import Question
from bifrost.eval.splits import fold_of, question_key
from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.channels.documents import build_documents, index_folder
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.training.encoder.pairs import Pair, question_pairs
from bifrost.training.encoder.train import CARD, fit_and_record
from bifrost.training.ranker.dataset import Group, Progress, collect

from bifrost.core.atomic_files import atomic_folder
from bifrost.core.embeddings import SentenceTransformerEmbedder, onnx_folder
from bifrost.core.types import content_hash

log = logging.getLogger(__name__)
Say = Callable[[str], None]
HARD_NEGATIVE_DEPTH = 20  # BM25 hits searched for a question's hard negative
CACHE_KEEP = 12  # cached encoders kept per corpus: two 5-fold runs and their stored encoders (~90 MB each)


def cached_encoder(base_model: str, pairs: Sequence[Pair], cache: Path, say: Say) -> Path:
    """The encoder fine-tuned on ``pairs`` (trained now unless cached under ``cache``)."""
    key = content_hash(base_model, *("\x00".join(p.texts) for p in pairs))[:16]
    folder = cache / key
    if (folder / CARD).exists():
        os.utime(folder)  # used now: `prune_encoders` keeps the most recently used
        return folder
    say(f"fine-tuning the dense encoder on {len(pairs)} question pairs")
    tmp = cache / f"{key}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    fit_and_record(pairs, base_model, tmp)
    tmp.replace(folder)
    return folder


def collect_adapted(
    pipeline: AskPipeline,
    corpus: str,
    questions: Sequence[Question],
    encoder_questions: Sequence[Question],
    cfg: RetrievalConfig,
    folds: int,
    hybrid: bool = True,
    say: Say | None = None,
    progress: Progress | None = None,
    fold_key: Callable[[Question], str] | None = None,
) -> tuple[list[Group], list[Pair]]:
    """Cross-fitted groups of ``questions`` (fold k read by an encoder that never saw fold k's texts),
    and the pairs of every encoder question (what the stored encoder is trained on). ``fold_key`` (a
    question -> its fold's name, e.g. its question set for leave-one-set-out) replaces the k folds."""
    say = say or (lambda _m: None)
    key = fold_key or (lambda q: f"fold {fold_of(q.id, folds) + 1}/{folds}")
    resources = pipeline.resources
    parts = pipeline.parts(corpus)
    provisions = resources.sql.provisions(corpus)
    docs = build_documents(provisions, "context")
    documents = dict(zip(docs.ids, docs.texts))
    cache = encoder_cache(resources.settings.home, corpus)
    cache.mkdir(parents=True, exist_ok=True)
    by_id: dict[str, Group] = {}
    ranked = bm25_ranking(parts.channels.bm25)
    for name, pairs in fold_pairs(questions, encoder_questions, key, documents, ranked).items():
        held = [q for q in questions if key(q) == name]
        say(f"{name}: dense encoder on {len(pairs)} pairs")
        folder = cached_encoder(resources.settings.embedding_model, pairs, cache, say)
        fold_parts = replace(
            parts,
            channels=parts.channels.with_ranking_dense(pipeline.dense_ranker(corpus, provisions, folder)),
        )
        for g in collect(fold_parts, held, cfg, hybrid=hybrid, progress=progress):
            by_id[g.question.id] = g
    groups = [by_id[q.id] for q in questions if q.id in by_id]
    return groups, question_pairs(
        [(q.question, q.gold) for q in encoder_questions if q.answerable], documents, ranked
    )


def encoder_cache(home: Path, corpus: str) -> Path:
    """Where a corpus's fine-tuned encoders are cached (the corpus embeddings made with each lie beside
    it)."""
    return index_folder(home, corpus) / "encoders"


def prune_encoders(cache: Path, keep: int = CACHE_KEEP) -> list[str]:
    """Delete all but the ``keep`` most recently used encoders of ``cache``, with the corpus embeddings
    made with them, so that repeated studies do not fill the disk; returns the keys deleted."""
    if not cache.is_dir():
        return []
    done = [p for p in cache.iterdir() if p.is_dir() and (p / CARD).exists()]
    done.sort(key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
    for folder in done[keep:]:
        for matrix in cache.parent.glob(f"dense-{folder.name}-*"):
            matrix.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
    return [p.name for p in done[keep:]]


def bm25_ranking(bm25: Bm25Ranker, depth: int = HARD_NEGATIVE_DEPTH) -> Callable[[str], list[str]]:
    """A question -> BM25's top ``depth`` ids, each question searched once (the folds share questions)."""
    return functools.cache(lambda question: [it.id for it in bm25.search(question, depth)])


def fold_pairs(
    questions: Sequence[Question],
    encoder_questions: Sequence[Question],
    key: Callable[[Question], str],
    documents: dict[str, str],
    ranked: Callable[[str], Sequence[str]] | None = None,
) -> dict[str, list[Pair]]:
    """For each fold (``key``: a question -> its fold's name) holding ranker questions: the pairs of every
    encoder question whose text is not one of that fold's questions (the encoder that reads a fold never
    saw one of its questions). A fold left without pairs is a `ValueError`."""
    out: dict[str, list[Pair]] = {}
    for name in dict.fromkeys(key(q) for q in questions):
        held = {question_key(q.question) for q in questions if key(q) == name}
        out[name] = question_pairs(
            [
                (q.question, q.gold)
                for q in encoder_questions
                if q.answerable and question_key(q.question) not in held
            ],
            documents,
            ranked,
        )
        if not out[name]:
            raise ValueError(
                f"no --encoder-questions question outside {name} has a gold provision of this "
                "corpus with text; give a question set for this corpus"
            )
    return out


def store_encoder(
    pipeline: AskPipeline, corpus: str, pairs: Sequence[Pair], target: Path, say: Say | None = None
) -> Path:
    """Fine-tune (or reuse) the encoder on all ``pairs``, copy it to ``target`` and embed the corpus with it
    there, so the first question after training finds its index."""
    say = say or (lambda _m: None)
    settings = pipeline.resources.settings
    folder = cached_encoder(settings.embedding_model, pairs, encoder_cache(settings.home, corpus), say)
    with atomic_folder(target) as tmp:
        shutil.copytree(folder, tmp, dirs_exist_ok=True)
    # it runs on onnxruntime at question time, as the home's own model does (none: sentence-transformers)
    SentenceTransformerEmbedder(str(target), onnx_dir=onnx_folder(settings.home)).export_onnx()
    say("embedding the corpus with the stored encoder")
    matrix = Path(pipeline.dense_ranker(corpus, None, target).cache_file)
    for stale in matrix.parent.glob(f"dense-{target.name}-*"):  # earlier encoders' embeddings
        if stale not in (matrix, matrix.with_suffix(".ids.json")):
            stale.unlink(missing_ok=True)
    return target
