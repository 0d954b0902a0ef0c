"""How learned components are validated: k folds inside the pooled questions, and leave-one-set-out
(fit on the other question sets, score the one left out), the figure that shows a shift in question
style that k folds hide. Splits are over item indices, so the ranker, the answerability model and
the answer scorer share them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Split:
    """One train/test split: a name (``fold 2/5`` or the set left out) and item indices."""

    name: str
    train: tuple[int, ...]
    test: tuple[int, ...]


def question_key(text: str) -> str:
    """A question's text compared across files (case and spacing ignored)."""
    return re.sub(r"\s+", " ", text).strip().lower()


def refuse_overlap(trained: Iterable[str], held: Iterable[tuple[str, str, str]]) -> None:
    """A held-out question is never trained on: a one-line error naming the first (set, id) that is also
    a training question. ``trained``: question texts; ``held``: (set name, question id, text)."""
    seen = {question_key(t) for t in trained}
    for name, qid, text in held:
        if question_key(text) in seen:
            raise ValueError(
                f"held-out set {name}: question {qid!r} is also a training question; a held-out set "
                "must not be trained on"
            )


def fold_of(item_id: str, folds: int, salt: str = "") -> int:
    """A stable fold for an id (the same split on every machine and run); ``salt`` gives an independent
    split (inner cross-validation)."""
    return int(hashlib.sha256((salt + item_id).encode()).hexdigest(), 16) % folds


def k_fold(ids: Sequence[str], folds: int, salt: str = "") -> list[Split]:
    """``folds`` splits by id hash; empty folds are left out."""
    if folds < 2:
        raise ValueError(f"k-fold needs at least 2 folds, got {folds}")
    of = [fold_of(i, folds, salt) for i in ids]
    out = []
    for k in range(folds):
        test = tuple(i for i, f in enumerate(of) if f == k)
        if test:
            out.append(Split(f"fold {k + 1}/{folds}", tuple(i for i, f in enumerate(of) if f != k), test))
    return out


def leave_one_set_out(sources: Sequence[str]) -> list[Split]:
    """One split per set: train on every other set, test on that one (fewer than two sets: none)."""
    names = list(dict.fromkeys(sources))
    if len(names) < 2:
        return []
    return [
        Split(
            name,
            tuple(i for i, s in enumerate(sources) if s != name),
            tuple(i for i, s in enumerate(sources) if s == name),
        )
        for name in names
    ]
