"""The provisions a question (or a precedent) names, found with the corpus's own reference extractor.

People write citations loosely ("1926.550,a,9", "subpart m", "§1926.404(b)(1)", "29 CFR 1926.651(k)(1)",
"paragraph (b)(10) of 1926.501", "Rule 3.2.1 of GEN"); the pack's `loosen` rewrites the loose forms into the
printed ones, and the corpus's extractor (the one the navigator graph is built with, schema-locked by the
citation grammar) resolves them. A citation the corpus lacks is kept with the reason, or resolved to its
successor when the rulebook's successor table knows where a renumbered rule went (`successors`). Never
dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from bifrost.core.precedent_types import ResolvedCite
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.navigator.base import ReferenceExtractor
from bifrost.graph_builders.navigator.successors import Successor

QUESTION_SOURCE = "\x00question"
"""The id of the stand-in provision a question's text is read as (no section: nothing is relative to it)."""


def as_written(text: str) -> str:
    """A rulebook with no loose citation forms to rewrite: the text as written."""
    return text


class NamedFinder:
    """Finds and resolves the provisions a text names, over one corpus (built once per corpus).

    ``contexts``: ids of provisions to read the text as if it stood in (a rulebook of many documents reads a
    question once per document, so that "Rule 3.2.1" resolves in each); [QUESTION_SOURCE] reads it as text of
    no section. ``reserved``: ids of reserved (empty) provisions, which count as not in the current
    edition."""

    def __init__(
        self,
        corpus: str,
        extractor: ReferenceExtractor[Any],
        known: Any,
        contexts: Sequence[str] = (QUESTION_SOURCE,),
        successors: Mapping[str, Successor] | None = None,
        reserved: Iterable[str] = (),
        loosen: Callable[[str], str] = as_written,
    ) -> None:
        self.corpus, self.extractor, self.known, self.loosen = corpus, extractor, known, loosen
        self.contexts = tuple(contexts) or (QUESTION_SOURCE,)
        self.successors = dict(successors or {})
        self.reserved = frozenset(reserved)

    @classmethod
    def over(
        cls,
        corpus: str,
        extractor: ReferenceExtractor[Any],
        provisions: Sequence[Provision],
        stand_ins: Sequence[Provision] = (),
        successors: Mapping[str, Successor] | None = None,
        loosen: Callable[[str], str] = as_written,
    ) -> NamedFinder:
        """A finder over a corpus's provisions (its extractor's own index); ``stand_ins``: provisions of no
        text indexed beside them, whose places (a document) a question is read in, one reading each."""
        reserved = (p.id for p in provisions if p.reserved)
        known = extractor.index([*provisions, *stand_ins])
        contexts = [p.id for p in stand_ins] or [QUESTION_SOURCE]
        return cls(corpus, extractor, known, contexts, successors, reserved, loosen)

    def find(self, text: str) -> list[ResolvedCite]:
        """Every citation in ``text``, resolved where the corpus holds it (a unique target per citation per
        context; the same target found twice is kept once), in the order written. In a corpus read in several
        contexts, a target found from some of them only ("Rule 17.7.2" of the one rulebook numbering a rule
        so, with no rulebook named) is marked ``via="context"``: where the question stands decided it."""
        loose = self.loosen(text or "")
        found: dict[tuple[str | None, str], ResolvedCite] = {}
        seen_in: dict[tuple[str | None, str], int] = {}
        for source in self.contexts:
            stand_in = Provision(corpus=self.corpus, id=source, kind=ProvisionKind.PARAGRAPH, text=loose)
            keys = set()
            for ref in self.extractor.extract(stand_in, self.known):
                cite = self._checked(
                    ResolvedCite(written=ref.raw, target_id=ref.target_id, reason=ref.reason)
                )
                key = (cite.target_id, cite.written if cite.target_id is None else "")
                found.setdefault(key, cite)
                keys.add(key)
            for key in keys:
                seen_in[key] = seen_in.get(key, 0) + 1
        resolved = {c.written for c in found.values() if c.resolved}
        out = []
        for key, c in found.items():
            if not c.resolved and c.written in resolved:
                continue  # a citation that resolved in one document's context is not also reported unresolved
            if c.resolved and not c.via and seen_in[key] < len(self.contexts):
                c = c.model_copy(update={"via": "context"})
            out.append(c)
        return out

    def _checked(self, cite: ResolvedCite) -> ResolvedCite:
        """A reserved target is not in the current edition; a missing one goes to its successor when known."""
        if cite.target_id is not None and cite.target_id in self.reserved:
            cite = cite.model_copy(
                update={"target_id": None, "reason": f"{cite.target_id} is reserved in the current edition"}
            )
        key = _section_of(cite.written) if cite.target_id is None else None
        if key is None:
            return cite
        succ = self.successors.get(key)
        if succ is None or succ.new not in self.known:
            return cite
        why = f"{key} is not in the current edition; its successor is {succ.new}" + (
            f" ({succ.note})" if succ.note else ""
        )
        return ResolvedCite(written=cite.written, target_id=succ.new, reason=why, via="successor")


_SECTION_NUM = re.compile(r"\d{1,4}\.\d{1,4}")


def _section_of(written: str) -> str | None:
    """The section number a written citation names, if any ("§ 1926.550(a)(9)" -> "1926.550")."""
    m = _SECTION_NUM.search(written)
    return m.group(0) if m else None
