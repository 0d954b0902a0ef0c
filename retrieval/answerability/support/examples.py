"""Training examples of the support scorer: (question, provision text, label) from labelled questions.

For an answerable question, each gold provision is a positive, and its best-ranked provisions that
are neither gold nor a text holding or held by a gold text are negatives (they look relevant and do
not answer: what the scorer must tell apart). For an unanswerable question, its best-ranked
provisions are negatives (near-domain: they sound like the answer and are not). Pure: texts in,
examples out, deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bifrost.core.provisions import MIN_TEXT_CHARS as MIN_CHARS


@dataclass(frozen=True)
class LabelledQuestion:
    """A question with its gold provision ids (empty: the corpus does not answer it)."""

    text: str
    gold: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


@dataclass(frozen=True)
class SupportExample:
    question: str
    text: str
    label: float  # 1.0: the provision states the answer; 0.0: it does not


def _related(text: str, gold_texts: Sequence[str]) -> bool:
    return any(text in g or g in text for g in gold_texts)


def support_examples(
    questions: Sequence[LabelledQuestion],
    ranked: Callable[[str], Sequence[str]],
    documents: Mapping[str, str],
    negatives: int = 3,
) -> list[SupportExample]:
    """Positives and hard negatives of every question (``negatives`` per question, from ``ranked``: a
    question -> provision ids, best first); texts shorter than a few characters are skipped."""
    out: list[SupportExample] = []
    seen: set[tuple[str, str]] = set()

    def add(q: str, text: str, label: float) -> None:
        if len(text) >= MIN_CHARS and (q, text) not in seen:
            seen.add((q, text))
            out.append(SupportExample(q, text, label))

    for lq in questions:
        q = lq.text.strip()
        gold_texts = [documents[g].strip() for g in lq.gold if documents.get(g, "").strip()]
        for text in gold_texts:
            add(q, text, 1.0)
        taken = 0
        for pid in ranked(q):
            if taken == negatives:
                break
            text = documents.get(pid, "").strip()
            if pid in lq.gold or len(text) < MIN_CHARS or _related(text, gold_texts):
                continue
            add(q, text, 0.0)
            taken += 1
    return out
