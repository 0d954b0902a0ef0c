"""Training pairs a stored corpus gives for free: (anchor, positive) texts for in-batch-negative training.

Kinds (each from the structure of the rulebook, never from a question set):

- ``heading``: a provision's own heading -> its text (section and paragraph captions);
- ``definition``: a defined term -> its definition;
- ``reference``: the citing sentence -> the cited provision (resolved REFERS_TO references);
- ``context``: a provision's own text -> each child's text (a section heading or lead-in -> the child);
- ``note``: a note (ADGM guidance) -> the provision it explains (its parent).

``question_pairs`` adds labelled pairs when a question set is given: a question -> each gold provision,
each with a hard negative when a first-stage ranking is given (``hard_negative``).

Pure: provisions and references in, pairs out. Deduplicated, capped per kind, sampled deterministically.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bifrost.core.provisions import (
    CONTAINER_KINDS,
    MAX_TEXT_CHARS as MAX_CHARS,
    MIN_TEXT_CHARS as MIN_CHARS,
    own_text,
)
from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.core.sentences import citing_sentence as shared_citing_sentence

KINDS = ("heading", "definition", "reference", "context", "note")


@dataclass(frozen=True)
class Pair:
    """One training pair: an anchor text and the text it should be closest to (and, optionally, a text
    that looks relevant but is not: a hard negative, scored against every anchor of its batch)."""

    kind: str
    anchor: str
    positive: str
    negative: str = ""

    @property
    def texts(self) -> tuple[str, ...]:
        """The pair's texts: anchor, positive and, when it has one, the negative."""
        return (self.anchor, self.positive, self.negative) if self.negative else (self.anchor, self.positive)


def citing_sentence(text: str, raw: str) -> str:
    """The sentence of ``text`` holding the reference ``raw`` (the whole text when not found)."""
    return (shared_citing_sentence(text, raw) or text.strip())[:MAX_CHARS]


def _usable(p: Provision) -> bool:
    return not p.reserved and bool(p.text.strip() or p.heading.strip())


def pairs_by_kind(provisions: Sequence[Provision], references: Sequence[Reference]) -> dict[str, list[Pair]]:
    """Every pair of each kind, deduplicated (first occurrence kept), in corpus order."""
    by_id = {p.id: p for p in provisions}
    out: dict[str, list[Pair]] = {k: [] for k in KINDS}
    seen: set[tuple[str, str]] = set()

    def add(kind: str, anchor: str, positive: str) -> None:
        anchor, positive = anchor.strip(), positive.strip()
        if len(anchor) < MIN_CHARS or len(positive) < MIN_CHARS or anchor == positive:
            return
        if (anchor, positive) in seen:
            return
        seen.add((anchor, positive))
        out[kind].append(Pair(kind, anchor[:MAX_CHARS], positive[:MAX_CHARS]))

    for p in provisions:
        if not _usable(p):
            continue
        if p.kind == ProvisionKind.DEFINITION and p.term and p.text.strip():
            add("definition", p.term, p.text)
        elif p.heading.strip() and p.text.strip() and p.kind not in CONTAINER_KINDS:
            add("heading", p.heading, p.text)
        parent = by_id.get(p.parent_id) if p.parent_id else None
        if parent is None or not _usable(parent):
            continue
        if p.kind == ProvisionKind.NOTE:
            add("note", own_text(p), own_text(parent))
        elif parent.kind not in CONTAINER_KINDS:
            add("context", own_text(parent), own_text(p))
    for r in references:
        source, target = by_id.get(r.source_id), by_id.get(r.target_id or "")
        if source is None or target is None or source.id == target.id or not _usable(target):
            continue
        add("reference", citing_sentence(source.text, r.raw), own_text(target))
    return out


def sample_pairs(by_kind: dict[str, list[Pair]], max_pairs: int, seed: int = 13) -> list[Pair]:
    """At most ``max_pairs`` pairs, shared evenly among the kinds (a kind's unused share goes to the
    others), each kind sampled with a fixed seed; returned shuffled (deterministically)."""
    if max_pairs <= 0:
        raise ValueError(f"max_pairs must be > 0, got {max_pairs}")
    quota: dict[str, int] = defaultdict(int)
    left = max_pairs
    open_kinds = [k for k in KINDS if by_kind.get(k)]
    while left > 0 and open_kinds:
        share = max(1, left // len(open_kinds))
        for k in list(open_kinds):
            take = min(share, len(by_kind[k]) - quota[k], left)
            quota[k] += take
            left -= take
            if quota[k] >= len(by_kind[k]):
                open_kinds.remove(k)
            if left == 0:
                break
    chosen: list[Pair] = []
    for k in KINDS:
        pool = by_kind.get(k, [])
        n = quota.get(k, 0)
        chosen += pool if n >= len(pool) else random.Random(f"{seed}:{k}").sample(pool, n)
    random.Random(seed).shuffle(chosen)
    return chosen


def corpus_pairs(
    provisions: Sequence[Provision], references: Sequence[Reference], max_pairs: int, seed: int = 13
) -> list[Pair]:
    """`pairs_by_kind` then `sample_pairs`."""
    return sample_pairs(pairs_by_kind(provisions, references), max_pairs, seed)


def hard_negative(ranked: Sequence[str], gold: Sequence[str], documents: Mapping[str, str]) -> str:
    """The text of the best-ranked provision that is not gold and does not hold, or sit inside, a gold
    text (a section whose document includes the gold paragraph is not a negative); "" when none is."""
    gold_texts = [documents[g].strip() for g in gold if documents.get(g, "").strip()]
    for pid in ranked:
        text = documents.get(pid, "").strip()
        if pid in gold or len(text) < MIN_CHARS:
            continue
        if any(text in g or g in text for g in gold_texts):
            continue
        return text[:MAX_CHARS]
    return ""


def question_pairs(
    questions: Sequence[tuple[str, Sequence[str]]],
    documents: Mapping[str, str],
    ranked: Callable[[str], Sequence[str]] | None = None,
) -> list[Pair]:
    """(question, document text of each gold provision) for labelled questions, deduplicated, in order;
    gold ids without a document (containers, repealed provisions) are skipped. With ``ranked`` (a question
    -> provision ids, best first, e.g. BM25's top 20), each pair carries the question's `hard_negative`."""
    out: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    for question, gold in questions:
        q = question.strip()
        negative: str | None = None
        for pid in gold:
            text = documents.get(pid, "").strip()
            if len(q) < MIN_CHARS or len(text) < MIN_CHARS or (q, text) in seen:
                continue
            seen.add((q, text))
            if negative is None:
                negative = hard_negative(ranked(q), gold, documents) if ranked is not None else ""
            out.append(Pair("question", q[:MAX_CHARS], text[:MAX_CHARS], negative))
    return out
