"""What the facade adds for precedents, answered questions that cite the corpus (OSHA's letters, a team's
reviewed answers): importing them, finding the ones like a question, and reviewing an answer into one. A
mixin of `Bifrost`; it uses the facade's ``sql``, ``pipeline``, ``ask``, ``jurisdiction`` and
``require_corpus``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bifrost.core.errors import BifrostError
from bifrost.core.precedent_types import AnswerReview, Precedent, PrecedentMatch

if TYPE_CHECKING:  # pragma: no cover
    from bifrost.graph_builders.precedents.load import PrecedentImport


class PrecedentsApi:
    """Import, list and match precedents; review an answer into one."""

    def import_precedents(self, path: Path | str, corpus: str, issuer: str = "") -> PrecedentImport:
        """Import a precedent file (JSONL or CSV: id, title or question, date, url, issuer, cites) into a
        corpus's bank; a bad line is reported and skipped; the same file twice changes nothing."""
        from bifrost.graph_builders.precedents.load import import_precedents

        self.require_corpus(corpus)
        report = import_precedents(self.sql, corpus, Path(path), self.jurisdiction(corpus), issuer)
        self.pipeline.forget(corpus)
        return report

    def precedents(self, corpus: str) -> list[Precedent]:
        """Every precedent of a corpus."""
        from bifrost.core.store.precedent_tables import load_precedents

        self.require_corpus(corpus)
        with self.sql.session() as s:
            return load_precedents(s, corpus)

    def precedent_questions(self, corpus: str, out: Path | str) -> int:
        """Write the corpus's precedents that cite it as a question file (JSONL: the precedent's question or
        title, its cited provisions as gold, the most specific of each line of descent): a regulator's
        answered questions to train and validate a ranker on (a question never sees its own precedent: same
        id). The number written."""
        import json

        from bifrost.core.provisions import ancestors

        parent = {p.id: p.parent_id for p in self.sql.provisions(corpus)}
        rows = []
        for p in self.precedents(corpus):
            cited = set(p.resolved_ids)
            gold = sorted(c for c in cited if not any(c in ancestors(o, parent.get) for o in cited if o != c))
            if gold:
                rows.append(
                    {"id": p.id, "question": p.text, "gold": gold, "cited": sorted(cited), "answerable": True}
                )
                if p.url:
                    rows[-1]["url"] = p.url
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return len(rows)

    def similar_precedents(
        self, question: str, corpus: str, k: int = 5, exclude: Sequence[str] = ()
    ) -> list[PrecedentMatch]:
        """The ``k`` answered questions most similar to ``question`` (interpretations, never the rule), best
        first; ``exclude``: ids or source URLs of the question's own precedents."""
        if not 1 <= k <= 50:
            raise BifrostError(f"k must be between 1 and 50, got {k}")
        self.require_corpus(corpus)
        return self.pipeline.parts(corpus).channels.votes(question, exclude).matches(k)

    def review_answer(
        self,
        question: str,
        corpus: str,
        *,
        reviewer: str,
        right: Sequence[str] = (),
        wrong: Sequence[str] = (),
        added: Sequence[str] = (),
        team: str = "",
    ) -> AnswerReview:
        """Review the answer ``ask`` gives now: each cited provision marked right or wrong, missing ones
        added. Stored with who, when and the edition; its right and added provisions become a precedent of
        ``team``."""
        from bifrost.graph_builders.precedents.review import record_review

        answer = self.ask(question, corpus)
        edition = self.sql.edition(corpus).number
        review = record_review(
            self.sql,
            corpus,
            answer.question,
            [c.id for c in answer.citations],
            right,
            wrong,
            added,
            reviewer,
            team,
            edition,
        )
        self.pipeline.forget(corpus)  # the precedent bank changed
        return review

    def reviews(self, corpus: str) -> list[tuple[AnswerReview, list[str]]]:
        """Every answer review of a corpus, each with the provisions it relies on that the current edition
        lacks."""
        from bifrost.graph_builders.precedents.review import reviews_of

        self.require_corpus(corpus)
        return reviews_of(self.sql, corpus)

    def _precedent_note(self, corpus: str) -> str:
        bank = self.precedents(corpus)
        if not bank:
            return "no precedents loaded (`bifrost precedents import FILE` adds answered questions)"
        cites = [c for p in bank for c in p.cites]
        outside = sum(not c.resolved for c in cites)
        return (
            f"{len(bank)} precedents citing {len(cites) - outside} provisions of the corpus "
            f"({outside} citations outside it)"
        )
