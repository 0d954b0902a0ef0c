"""Batches of texts of like length: a batch is padded to its longest text, so a long question encoded with
its short phrases in one batch pays its length for every phrase (most of a new question's time went there).
Texts longest first; a new batch starts when a batch is full or when the next text is at most half as long as
the batch's first. Both sentence encoders use it, so the batches (and the vectors) do not depend on the
runtime."""

from __future__ import annotations

from collections.abc import Sequence

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
