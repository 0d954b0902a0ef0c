"""Compare two editions of the same rules (e.g. eCFR JSON and a PDF) provision by provision.

Equal texts are verified; differing texts become review items for a human; provisions only
one side has are listed. Nothing is dropped silently.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from bifrost.core.types import Frozen, ParsedDocument, Provision, ReviewItem

_SENTENCE_END = re.compile(r"(?<=[.;:])\s+")


class ReconcileResult(Frozen):
    """What two sources agree on, where they differ, and what only one of them has."""

    verified: tuple[str, ...] = ()
    review: tuple[ReviewItem, ...] = ()
    only_in_primary: tuple[str, ...] = ()
    only_in_secondary: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()

    @property
    def agreed(self) -> bool:
        """True when every provision is on both sides and verified."""
        return not (self.review or self.only_in_primary or self.only_in_secondary or self.duplicates)


def normalize(text: str) -> str:
    """Collapse runs of whitespace, so line wrapping and indentation do not count as differences."""
    return " ".join(text.split())


def comparable_text(provision: Provision) -> str:
    """The text two sources must agree on: heading and text, whitespace-normalized."""
    return normalize(f"{provision.heading} {provision.text}")


def reconcile(
    primary: ParsedDocument, secondary: ParsedDocument, *, threshold: float = 1.0
) -> ReconcileResult:
    """Match provisions by id; texts equal (or at least `threshold` similar when < 1) are verified."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
    if primary.document.corpus != secondary.document.corpus:
        raise ValueError(
            f"cannot reconcile corpus {primary.document.corpus!r} with {secondary.document.corpus!r}"
        )
    first, dup_first = _by_id(primary)
    second, dup_second = _by_id(secondary)
    verified: list[str] = []
    review: list[ReviewItem] = []
    for pid, a in first.items():
        b = second.get(pid)
        if b is None:
            continue
        item = review_item(a, b, primary.document.name, secondary.document.name)
        if item.ratio >= threshold:
            verified.append(pid)
        else:
            review.append(item)
    return ReconcileResult(
        verified=tuple(verified),
        review=tuple(review),
        only_in_primary=tuple(pid for pid in first if pid not in second),
        only_in_secondary=tuple(pid for pid in second if pid not in first),
        duplicates=tuple(
            f"{name}: {pid} appears {n} times (first compared)"
            for name, dups in ((primary.document.name, dup_first), (secondary.document.name, dup_second))
            for pid, n in dups
        ),
    )


def _by_id(doc: ParsedDocument) -> tuple[dict[str, Provision], list[tuple[str, int]]]:
    """Provisions by id in document order (first occurrence), and the ids seen more than once."""
    by_id: dict[str, Provision] = {}
    for p in doc.provisions:
        by_id.setdefault(p.id, p)
    counts = Counter(p.id for p in doc.provisions)
    return by_id, [(pid, n) for pid, n in counts.items() if n > 1]


def review_item(a: Provision, b: Provision, source_a: str, source_b: str) -> ReviewItem:
    """Both texts of one provision with their unified diff and similarity ratio (1.0 = equal)."""
    text_a, text_b = comparable_text(a), comparable_text(b)
    ratio = 1.0 if text_a == text_b else difflib.SequenceMatcher(None, text_a, text_b, autojunk=False).ratio()
    return ReviewItem(
        corpus=a.corpus,
        provision_id=a.id,
        source_a=source_a,
        source_b=source_b,
        text_a=text_a,
        text_b=text_b,
        diff="" if text_a == text_b else unified_diff(text_a, text_b, source_a, source_b),
        ratio=ratio,
    )


def unified_diff(text_a: str, text_b: str, name_a: str, name_b: str) -> str:
    """A unified diff of two texts cut into sentences, so a change shows on a short line."""
    return "\n".join(
        difflib.unified_diff(
            _sentences(text_a), _sentences(text_b), fromfile=name_a, tofile=name_b, lineterm=""
        )
    )


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s] if text else []
