"""Batches of texts of like length, and each batch's padded model inputs: a batch is padded to its longest
text, so a long question encoded with its short phrases in one batch pays its length for every phrase (most
of a new question's time went there). Texts longest first; a new batch starts when a batch is full or when
the next text is at most half as long as the batch's first. Both sentence encoders use it, so the batches
(and the vectors) do not depend on the runtime."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

SHRINK = 0.5
"""A text at most this share of the batch's longest starts a batch of its own."""


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions of the texts, longest first, cut into batches of like length (see the module docstring)."""
    if batch_size <= 0:
        raise ValueError(f"batch_size must be > 0, got {batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < batch_size and lengths[i] > SHRINK * lengths[batches[-1][0]]:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def padded(encodings: list[Any]) -> dict[str, np.ndarray]:
    """The model's inputs for a batch of tokenized texts, padded with zeros to the longest."""
    width = max(len(e.ids) for e in encodings)
    feed = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in INPUTS}
    for row, e in enumerate(encodings):
        n = len(e.ids)
        feed["input_ids"][row, :n] = e.ids
        feed["token_type_ids"][row, :n] = e.type_ids
        feed["attention_mask"][row, :n] = 1
    return feed


INPUTS = ("input_ids", "token_type_ids", "attention_mask")
