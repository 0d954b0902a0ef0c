"""Fine-tune the support scorer (a cross-encoder) from the shipped MiniLM weights, on CPU.

A plain torch loop (the library's trainer needs `datasets` and `accelerate`, which Bifrost does not
ship): the embedding model's encoder gets a one-logit head, shuffled batches of (question, text)
pairs, binary cross-entropy with the classes weighted to equal total weight, AdamW with linear
warm-up and decay, one epoch by default. Saved as a sentence-transformers CrossEncoder folder with
its card.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

from bifrost.core.embeddings import resolve_model
from bifrost.retrieval.answerability.support.examples import SupportExample
from bifrost.retrieval.answerability.support.model import MAX_LENGTH, SupportCard
from bifrost.training.loop import optimizer_and_schedule, shuffled_batches, train_step


def fit_support(
    examples: Sequence[SupportExample],
    base_model: str,
    out: Path,
    card: SupportCard,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 3e-5,
    max_length: int = MAX_LENGTH,
    threads: int = 2,
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
) -> SupportCard:
    """Train a cross-encoder on ``examples`` starting from ``base_model`` and save it with ``card``
    (completed with steps, losses, time) to ``out``."""
    import torch
    from sentence_transformers import CrossEncoder

    labels = [e.label for e in examples]
    if not examples or len(set(labels)) < 2:
        raise ValueError(
            "the support scorer needs positive and negative examples; give answerable and unanswerable "
            "questions"
        )
    if epochs <= 0 or batch_size < 1:
        raise ValueError(f"epochs and batch_size must be > 0 (got {epochs}, {batch_size})")
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    model = CrossEncoder(resolve_model(base_model), num_labels=1, max_length=max_length, device="cpu")
    net, tokenizer = model.model, model.tokenizer
    positives = sum(labels)
    pos_weight = torch.tensor([(len(labels) - positives) / positives])
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    batches = shuffled_batches(examples, batch_size, epochs, seed)
    optimizer, scheduler = optimizer_and_schedule(net.parameters(), len(batches), lr)
    net.train()
    losses: list[float] = []
    for step, batch in enumerate(batches, 1):
        enc = tokenizer(
            [e.question for e in batch],
            [e.text for e in batch],
            padding=True,
            truncation="longest_first",
            max_length=max_length,
            return_tensors="pt",
        )
        logits = net(**enc).logits.view(-1)
        loss = loss_fn(logits, torch.tensor([e.label for e in batch], dtype=torch.float32))
        losses.append(train_step(loss, optimizer, scheduler, net.parameters()))
        if progress is not None:
            progress(step, len(batches))
    net.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    head = losses[: max(1, len(losses) // 10)]
    tail = losses[-max(1, len(losses) // 10) :]
    card.max_length, card.epochs, card.steps = max_length, epochs, len(batches)
    card.examples = {"positives": int(positives), "negatives": len(labels) - int(positives)}
    card.seconds = round(time.perf_counter() - t0, 1)
    card.loss_first, card.loss_last = round(sum(head) / len(head), 4), round(sum(tail) / len(tail), 4)
    card.trained_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    card.save(out)
    return card
