"""What the CPU fine-tuning loops share (the corpus-adapted encoder, the support scorer): AdamW
with a linear warm-up over the first tenth of the steps and a linear decay to zero, and one clipped step."""

from __future__ import annotations

from typing import Any


def optimizer_and_schedule(
    parameters: Any, steps: int, lr: float, weight_decay: float = 0.01
) -> tuple[Any, Any]:
    """AdamW over ``parameters`` (tensors, or groups each with its own lr) and its warm-up-then-decay
    schedule for ``steps`` steps."""
    import torch

    parameters = list(parameters)
    optimizer = torch.optim.AdamW(parameters, lr=lr, weight_decay=weight_decay)
    warmup = max(1, steps // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    return optimizer, scheduler


def train_step(loss: Any, optimizer: Any, scheduler: Any, parameters: Any, max_norm: float = 1.0) -> float:
    """Back-propagate ``loss``, clip the gradient norm, step the optimizer and schedule; the loss's value."""
    import torch

    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    optimizer.step()
    scheduler.step()
    return float(loss.detach())


def shuffled_batches(examples, batch_size: int, epochs: int, seed: int) -> list[list]:
    """Each epoch's examples shuffled by (seed, epoch) and cut into batches: the same order on every run."""
    import random

    out: list[list] = []
    for epoch in range(epochs):
        order = list(examples)
        random.Random(f"{seed}:{epoch}").shuffle(order)
        out += [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    return out
