"""Fine-tune the sentence encoder on a corpus's free pairs (MultipleNegativesRankingLoss, CPU).

A plain torch loop over sentence-transformers' loss (the library's trainer needs the `datasets` and
`accelerate` packages, which Bifrost does not ship): shuffled batches of (anchor, positive) pairs, every
other positive in the batch a negative, AdamW with linear warm-up and decay. The model and a JSON card
(base model, pairs per kind, steps, seconds) are saved to ``$BIFROST_HOME/models/encoder-<corpus>/``;
point ``BIFROST_EMBEDDING_MODEL`` at that folder to use it.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bifrost.core.embeddings import resolve_model
from bifrost.core.settings import Settings
from bifrost.training.encoder.pairs import Pair, corpus_pairs
from bifrost.training.loop import optimizer_and_schedule, train_step

log = logging.getLogger(__name__)

CARD = "encoder-card.json"


@dataclass
class EncoderReport:
    """What `train_encoder` did and where the model is."""

    corpus: str
    base_model: str
    path: str
    pairs: dict[str, int] = field(default_factory=dict)
    epochs: int = 1
    batch_size: int = 32
    steps: int = 0
    seconds: float = 0.0
    mean_loss_first: float | None = None
    mean_loss_last: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def encoder_dir(home: Path, corpus: str) -> Path:
    """``$BIFROST_HOME/models/encoder-<corpus>/``."""
    return home / "models" / f"encoder-{re.sub(r'[^A-Za-z0-9._-]+', '_', corpus)}"


def fit_pairs(
    pairs: Sequence[Pair],
    base_model: str,
    out: Path,
    epochs: int = 1,
    batch_size: int = 32,
    lr: float = 2e-5,
    max_seq_length: int = 128,
    threads: int = 2,
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[float]]:
    """Train a copy of ``base_model`` on ``pairs`` and save it to ``out``; returns steps and losses."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.losses import MultipleNegativesRankingLoss

    if batch_size < 2:
        raise ValueError(f"batch_size must be >= 2 (in-batch negatives), got {batch_size}")
    if epochs <= 0:
        raise ValueError(f"epochs must be > 0, got {epochs}")
    if not pairs:
        raise ValueError("no training pairs: is the corpus ingested and its navigator built?")
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    model = SentenceTransformer(resolve_model(base_model), device="cpu")
    served_length = model.max_seq_length  # trained on shorter texts for speed, saved as the base reads
    model.max_seq_length = max_seq_length
    loss_fn = MultipleNegativesRankingLoss(model)
    batches = _batches(pairs, batch_size, epochs, seed)
    optimizer, scheduler = optimizer_and_schedule(model.parameters(), len(batches), lr, weight_decay=0.01)
    model.train()
    losses: list[float] = []
    for step, batch in enumerate(batches, 1):
        features = [_tokens(model, [p.anchor for p in batch]), _tokens(model, [p.positive for p in batch])]
        if all(p.negative for p in batch):  # hard negatives: one more candidate column for every anchor
            features.append(_tokens(model, [p.negative for p in batch]))
        loss = loss_fn(features, torch.empty(0))
        losses.append(train_step(loss, optimizer, scheduler, model.parameters()))
        if progress is not None:
            progress(step, len(batches))
    model.eval()
    model.max_seq_length = served_length
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    return len(batches), losses


def _tokens(model, texts: list[str]) -> dict:
    preprocess = getattr(model, "preprocess", None) or model.tokenize
    return dict(preprocess(texts))


def _batches(pairs: Sequence[Pair], batch_size: int, epochs: int, seed: int) -> list[list[Pair]]:
    """Batches where no text (anchor, positive or hard negative) appears twice: a repeat would be a false
    in-batch negative, e.g. one pair's negative being another's positive."""
    import random

    out: list[list[Pair]] = []
    for epoch in range(epochs):
        order = list(pairs)
        random.Random(f"{seed}:{epoch}").shuffle(order)
        batch: list[Pair] = []
        texts: set[str] = set()
        waiting: list[Pair] = []
        for p in order:
            if any(t in texts for t in p.texts):
                waiting.append(p)
                continue
            batch.append(p)
            texts.update(p.texts)
            if len(batch) == batch_size:
                out.append(batch)
                batch, texts = [], set()
                still = []
                for w in waiting:
                    if len(batch) < batch_size and not any(t in texts for t in w.texts):
                        batch.append(w)
                        texts.update(w.texts)
                    else:
                        still.append(w)
                waiting = still
        if len(batch) >= 2:
            out.append(batch)
    return out


def train_encoder(
    settings: Settings,
    corpus: str,
    max_pairs: int = 8000,
    epochs: int = 1,
    batch_size: int = 32,
    out: Path | None = None,
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
) -> EncoderReport:
    """Pairs from the stored corpus, fine-tuning of ``settings.embedding_model``, model and card saved."""
    from bifrost.core.store.sql_store import SqlStore

    store = SqlStore(settings.sql_url)
    try:
        provisions = store.provisions(corpus)
        references = store.references(corpus, dangling=False)
    finally:
        store.dispose()
    if not provisions:
        raise ValueError(f"corpus {corpus!r} has no provisions; run `bifrost ingest --corpus {corpus}`")
    pairs = corpus_pairs(provisions, references, max_pairs, seed)
    report = fit_and_record(
        pairs,
        settings.embedding_model,
        out or encoder_dir(settings.home, corpus),
        corpus=corpus,
        epochs=epochs,
        batch_size=batch_size,
        seed=seed,
        progress=progress,
        card={"max_pairs": max_pairs},
    )
    log.info(
        "encoder of %s: %d pairs, %d steps in %.0fs -> %s",
        corpus,
        len(pairs),
        report.steps,
        report.seconds,
        report.path,
    )
    return report


def fit_and_record(
    pairs: Sequence[Pair],
    base_model: str,
    out: Path,
    corpus: str = "",
    epochs: int = 1,
    batch_size: int = 32,
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
    card: dict | None = None,
) -> EncoderReport:
    """`fit_pairs`, then the encoder's card (base model, pairs per kind, steps, seconds, loss at the start
    and the end, and ``card``'s extra keys) saved beside it; used by `train encoder` (corpus pairs) and by
    `bifrost train ranker --encoder-questions` (question pairs, per fold)."""
    started = time.perf_counter()
    steps, losses = fit_pairs(
        pairs, base_model, out, epochs, batch_size, threads=2, seed=seed, progress=progress
    )
    tenth = max(1, len(losses) // 10)
    report = EncoderReport(
        corpus=corpus,
        base_model=base_model,
        path=str(out),
        pairs=dict(sorted(Counter(p.kind for p in pairs).items())),
        epochs=epochs,
        batch_size=batch_size,
        steps=steps,
        seconds=round(time.perf_counter() - started, 1),
        mean_loss_first=round(sum(losses[:tenth]) / tenth, 4),
        mean_loss_last=round(sum(losses[-tenth:]) / tenth, 4),
    )
    (out / CARD).write_text(
        json.dumps(
            {
                **report.as_dict(),
                **(card or {}),
                "seed": seed,
                "hard_negatives": sum(bool(p.negative) for p in pairs),
                "loss": "MultipleNegativesRankingLoss",
            },
            indent=2,
        )
    )
    return report
