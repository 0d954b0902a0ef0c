"""Fine-tune the reader from the shipped MiniLM weights on CPU, then export it to ONNX int8.

Only the top ``trainable_layers`` transformer layers, the pooler and a one-logit head learn; the
embeddings and the layers below are frozen, so their output for every pair is computed once (in
`encode_frozen`) and reused by every epoch, and by every reader of a cross-fit that trains on a subset
of the same pairs: the cost of an epoch is that of the top layers alone. Binary cross-entropy with the
classes weighted to equal total weight, AdamW with warm-up and linear decay (`retrieval.training`).
The whole network is then exported (`export_onnx`) and quantized to int8 weights for question time.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.embeddings import resolve_model
from bifrost.retrieval.reader.examples import ReaderExample
from bifrost.retrieval.reader.model import INPUTS, MODEL, TOKENIZER, ReaderCard
from bifrost.training.loop import optimizer_and_schedule, shuffled_batches, train_step

Progress = Callable[[int, int], None]
Logits = Callable[[Sequence[tuple[str, str]]], np.ndarray]
"""The network being trained, as a function of (question, text) pairs whose frozen outputs are cached."""


@dataclass
class FrozenPairs:
    """The frozen layers' output of every pair (fp16, unpadded), keyed by (question, text)."""

    base_model: str
    frozen_layers: int
    max_length: int
    hidden: dict[tuple[str, str], np.ndarray]


def load_cross_encoder(base_model: str, max_length: int) -> Any:
    """The base model with a fresh one-logit classification head (sentence-transformers CrossEncoder)."""
    from sentence_transformers import CrossEncoder

    return CrossEncoder(resolve_model(base_model), num_labels=1, max_length=max_length, device="cpu")


def encode_frozen(
    examples: Sequence[ReaderExample],
    base_model: str,
    trainable_layers: int,
    max_length: int,
    threads: int = 2,
    progress: Progress | None = None,
    known: FrozenPairs | None = None,
) -> FrozenPairs:
    """The frozen layers' output of every distinct pair (those already in ``known`` are kept)."""
    import torch

    torch.set_num_threads(threads)
    model = load_cross_encoder(base_model, max_length)
    net, tokenizer = model.model, model.tokenizer
    frozen = net.config.num_hidden_layers - trainable_layers
    if not 0 <= frozen < net.config.num_hidden_layers:
        raise ValueError(
            f"trainable layers must be 1..{net.config.num_hidden_layers}, got {trainable_layers}"
        )
    out = (
        known
        if known is not None
        and (known.base_model, known.frozen_layers, known.max_length) == (base_model, frozen, max_length)
        else FrozenPairs(base_model, frozen, max_length, {})
    )
    todo = sorted(
        {(e.question, e.text) for e in examples} - set(out.hidden), key=lambda p: len(p[0]) + len(p[1])
    )
    net.eval()
    with torch.inference_mode():
        for i in range(0, len(todo), 32):
            chunk = todo[i : i + 32]
            enc = tokenizer(
                [q for q, _ in chunk],
                [t for _, t in chunk],
                padding=True,
                truncation="longest_first",
                max_length=max_length,
                return_tensors="pt",
            )
            states = net.bert(**enc, output_hidden_states=True).hidden_states[frozen]
            lengths = enc["attention_mask"].sum(1).tolist()
            for pair, h, n in zip(chunk, states, lengths):
                out.hidden[pair] = h[:n].to(torch.float16).numpy()
            if progress:
                progress(min(i + 32, len(todo)), len(todo))
    return out


def _top_logits(net: Any, frozen: int, hidden: Any, mask: Any) -> Any:
    """Logits from the frozen layers' output: the trainable layers, the pooler and the head."""
    import torch

    extended = (1.0 - mask[:, None, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
    for layer in net.bert.encoder.layer[frozen:]:
        hidden = layer(hidden, extended)
        hidden = hidden[0] if isinstance(hidden, tuple) else hidden
    return net.classifier(net.dropout(net.bert.pooler(hidden))).view(-1)


def _batch(pairs: Sequence[tuple[str, str]], cache: FrozenPairs) -> tuple[Any, Any]:
    import torch

    states = [cache.hidden[p] for p in pairs]
    longest = max(len(s) for s in states)
    hidden = torch.zeros(len(states), longest, states[0].shape[1])
    mask = torch.zeros(len(states), longest, dtype=torch.long)
    for i, s in enumerate(states):
        hidden[i, : len(s)] = torch.from_numpy(s.astype(np.float32))
        mask[i, : len(s)] = 1
    return hidden, mask


def fit_reader(
    examples: Sequence[ReaderExample],
    cache: FrozenPairs,
    out: Path | None,
    card: ReaderCard,
    epochs: int = 2,
    batch_size: int = 16,
    lr: float = 5e-5,
    threads: int = 2,
    progress: Progress | None = None,
    head_lr: float | None = None,
    on_epoch: Callable[[int, float, Logits], None] | None = None,
) -> ReaderCard:
    """Train a reader on ``examples`` (whose frozen outputs ``cache`` holds), export it to ``out`` as int8
    ONNX with its tokenizer (None: no export, a probe), and save ``card`` completed with steps, losses and
    time. ``head_lr``: the fresh head's learning rate (default ``lr``); ``on_epoch(epoch, mean loss, logits)``
    is called after each epoch with the network as it stands (learning curves by epoch)."""
    import torch

    labels = [e.label for e in examples]
    if not examples or len(set(labels)) < 2:
        raise ValueError(
            "the reader needs positive and negative pairs: give question sets with gold provisions"
        )
    if epochs <= 0 or batch_size < 1:
        raise ValueError(f"epochs and batch_size must be > 0 (got {epochs}, {batch_size})")
    torch.set_num_threads(threads)
    torch.manual_seed(card.seed)
    t0 = time.perf_counter()
    model = load_cross_encoder(cache.base_model, cache.max_length)
    net, frozen = model.model, cache.frozen_layers
    body = [p for layer in net.bert.encoder.layer[frozen:] for p in layer.parameters()] + list(
        net.bert.pooler.parameters()
    )
    head = list(net.classifier.parameters())
    trainable = body + head
    positives = sum(labels)
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([(len(labels) - positives) / positives]))
    batches = shuffled_batches(examples, batch_size, epochs, card.seed)
    groups = [{"params": body, "lr": lr}, {"params": head, "lr": head_lr or lr}]
    optimizer, scheduler = optimizer_and_schedule(groups, len(batches), lr)
    per_epoch = max(1, len(batches) // epochs)
    net.train()
    losses: list[float] = []
    for step, batch in enumerate(batches, 1):
        hidden, mask = _batch([(e.question, e.text) for e in batch], cache)
        loss = loss_fn(_top_logits(net, frozen, hidden, mask), torch.tensor([e.label for e in batch]))
        losses.append(train_step(loss, optimizer, scheduler, trainable))
        if progress:
            progress(step, len(batches))
        if on_epoch is not None and step % per_epoch == 0:
            net.eval()
            on_epoch(
                step // per_epoch,
                float(np.mean(losses[-per_epoch:])),
                lambda pairs: _logits(net, frozen, pairs, cache),
            )
            net.train()
    net.eval()
    if out is not None:
        export_onnx(model, out)
    _complete_card(
        card, examples, cache, net.config.num_hidden_layers - frozen, epochs, len(batches), losses, t0
    )
    if out is not None:
        card.save(out)
    return card


def _complete_card(
    card: ReaderCard,
    examples: Sequence[ReaderExample],
    cache: FrozenPairs,
    trainable_layers: int,
    epochs: int,
    steps: int,
    losses: list[float],
    t0: float,
) -> None:
    """The card's record of a run: its shape, examples by kind and label, time, first and last losses."""
    head, tail = losses[: max(1, len(losses) // 10)], losses[-max(1, len(losses) // 10) :]
    card.max_length, card.epochs, card.steps = cache.max_length, epochs, steps
    card.trainable_layers = trainable_layers
    kinds = {e.kind for e in examples}
    card.examples = {
        f"{k}_{s}": sum(1 for e in examples if e.kind == k and (e.label > 0) == (s == "positive"))
        for k in sorted(kinds)
        for s in ("positive", "negative")
    }
    card.seconds = round(time.perf_counter() - t0, 1)
    card.loss_first, card.loss_last = round(sum(head) / len(head), 4), round(sum(tail) / len(tail), 4)
    card.trained_at = datetime.now(timezone.utc).isoformat(timespec="seconds")


def _logits(
    net: Any, frozen: int, pairs: Sequence[tuple[str, str]], cache: FrozenPairs, batch: int = 64
) -> np.ndarray:
    import torch

    out: list[float] = []
    with torch.inference_mode():
        for i in range(0, len(pairs), batch):
            hidden, mask = _batch(pairs[i : i + batch], cache)
            out += _top_logits(net, frozen, hidden, mask).tolist()
    return np.array(out)


def export_onnx(model: Any, out: Path) -> Path:
    """The cross-encoder as int8 ONNX (dynamic quantization of its weights) with its tokenizer file in
    ``out``, written to a sibling folder first and moved into place whole."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    net, tokenizer = model.model, model.tokenizer
    enc = tokenizer(["a question"], ["a provision's text"], return_tensors="pt")
    axes = {n: {0: "batch", 1: "tokens"} for n in INPUTS} | {"logits": {0: "batch"}}
    fp32 = tmp / "model-fp32.onnx"
    with torch.inference_mode():
        torch.onnx.export(
            net,
            tuple(enc[n] for n in INPUTS),
            str(fp32),
            input_names=list(INPUTS),
            output_names=["logits"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    quantize_dynamic(str(fp32), str(tmp / MODEL), weight_type=QuantType.QInt8)
    fp32.unlink()
    tokenizer.backend_tokenizer.save(str(tmp / TOKENIZER))
    if out.exists():
        shutil.rmtree(out)
    tmp.replace(out)
    return out
