"""Training pairs of the reader, from labelled questions: pure, texts in, pairs out, deterministic.

- **provision pairs**: each gold provision is a positive; negatives are the ranker's best non-gold
  candidates (the hardest: they look like the answer), the gold provision's parent and siblings (to
  learn the paragraph that *states* it, not its heading or its neighbour) and a random provision;
  an unanswerable question's best candidates are all negatives. A text holding or held by a gold
  text, or an ancestor's or descendant's, is never a negative.
- **sentence pairs**: where a question names its decisive words, the gold provision's sentence that
  holds them is a positive and its other sentences are negatives (the sentence that decides a verdict).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bifrost.core.sentences import sentences

MIN_CHARS = 20
"""Texts shorter than this (a bare number, "Reserved") teach nothing."""


@dataclass(frozen=True)
class ReadQuestion:
    """A question, its gold provision ids (none: unanswerable) and its decisive words per provision."""

    text: str
    gold: tuple[str, ...] = ()
    decisive: tuple[tuple[str, str], ...] = ()  # (provision id, quote)


@dataclass(frozen=True)
class ReaderExample:
    question: str
    text: str
    label: float  # 1.0: it states what the question asks; 0.0: it does not
    kind: str = "provision"  # or "sentence"


@dataclass(frozen=True)
class Negatives:
    """How many negatives of each kind a question gets."""

    ranked: int = 4
    family: int = 2
    random: int = 1
    sentences: int = 3


def _family(pid: str, parent: Mapping[str, str | None], children: Mapping[str, Sequence[str]]) -> list[str]:
    """The parent, then the siblings, of a provision."""
    up = parent.get(pid)
    return ([up] if up else []) + [s for s in (children.get(up, ()) if up else ()) if s != pid]


def _lineage(pid: str, parent: Mapping[str, str | None], children: Mapping[str, Sequence[str]]) -> set[str]:
    """A provision's ancestors and descendants (hierarchy credit: never a negative of its question)."""
    out, up = set(), parent.get(pid)
    while up:
        out.add(up)
        up = parent.get(up)
    stack = list(children.get(pid, ()))
    while stack:
        c = stack.pop()
        out.add(c)
        stack.extend(children.get(c, ()))
    return out


def decisive_sentence(text: str, quote: str) -> str | None:
    """The sentence of ``text`` that holds most of ``quote``'s words (None when none holds half)."""
    words = set(quote.lower().split())
    best = max(sentences(text), key=lambda s: len(words & set(s.lower().split())), default=None)
    return best if best is not None and len(words & set(best.lower().split())) * 2 >= len(words) else None


def reader_examples(
    questions: Sequence[ReadQuestion],
    ranked: Callable[[str], Sequence[str]],
    documents: Mapping[str, str],
    parent: Mapping[str, str | None],
    children: Mapping[str, Sequence[str]],
    counts: Negatives = Negatives(),
    seed: int = 13,
    own: Mapping[str, str] | None = None,
) -> list[ReaderExample]:
    """Provision and sentence pairs of every question (see the module docstring); ``ranked``: a question ->
    candidate ids best first; ``documents``: id -> the text the reader reads of a provision; ``own``: id ->
    the provision's own text, whose sentences are read (default: ``documents``)."""
    own = documents if own is None else own
    rng = random.Random(seed)
    pool = sorted(pid for pid, t in documents.items() if len(t) >= MIN_CHARS)
    out: list[ReaderExample] = []
    seen: set[tuple[str, str]] = set()

    def add(q: str, text: str, label: float, kind: str = "provision") -> bool:
        if len(text) < MIN_CHARS or (q, text) in seen:
            return False
        seen.add((q, text))
        out.append(ReaderExample(q, text, label, kind))
        return True

    for rq in questions:
        q = rq.text.strip()
        gold_texts = [documents.get(g, "") for g in rq.gold]
        banned = set(rq.gold).union(*(_lineage(g, parent, children) for g in rq.gold))
        usable = lambda pid: (
            pid not in banned
            and not any(  # noqa: E731
                documents.get(pid, "") in g or g in documents.get(pid, "") for g in gold_texts if g
            )
        )
        for text in gold_texts:
            add(q, text, 1.0)
        negatives = [pid for pid in ranked(q) if usable(pid)][: counts.ranked]
        family = [pid for g in rq.gold for pid in _family(g, parent, children) if usable(pid)]
        negatives += [pid for pid in family if pid not in negatives][: counts.family if rq.gold else 0]
        negatives += [pid for pid in rng.sample(pool, min(len(pool), counts.random + 3)) if usable(pid)][
            : counts.random
        ]
        for pid in negatives:
            add(q, documents.get(pid, ""), 0.0)
        for pid, quote in rq.decisive:
            text = own.get(pid, "")
            if pid not in rq.gold or (best := decisive_sentence(text, quote)) is None:
                continue
            add(q, best, 1.0, "sentence")
            others = [s for s in sentences(text) if s != best and len(s) >= MIN_CHARS]
            for s in others[: counts.sentences]:
                add(q, s, 0.0, "sentence")
    return out
