"""The precedent channel: a question's most similar answered questions (lexical and dense over their text)
vote for the provisions they cite. The votes are candidates and ranker features; a section's votes pass to its
paragraphs. A question never sees its own precedent: ``exclude`` drops precedents by id or source URL."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bifrost.core.atomic_files import save_npy
from bifrost.core.embeddings import Embedder
from bifrost.core.precedent_types import Precedent, PrecedentMatch
from bifrost.core.types import content_hash
from bifrost.retrieval.fusion import rrf_score

log = logging.getLogger(__name__)

VOTERS = 10
"""Precedents whose citations vote, the most similar first."""


@dataclass(frozen=True)
class Similar:
    """One precedent similar to a question: its cosine, BM25 share of the best, and fused rank (1 = best)."""

    precedent: Precedent
    cosine: float
    lexical: float
    rank: int

    @property
    def weight(self) -> float:
        """What its vote weighs: its cosine, so a weak match weighs little whatever its rank."""
        return max(self.cosine, 0.0)


@dataclass
class PrecedentVotes:
    """What a question's similar precedents say: per provision, the votes of the precedents citing it and of
    those citing an ancestor (section, subpart) of it; the voters, best first."""

    similar: list[Similar] = field(default_factory=list)
    direct: dict[str, float] = field(default_factory=dict)
    # provision -> best (lowest) rank of a voter citing it
    cited_ids: dict[str, int] = field(default_factory=dict)
    removed: int = 0  # precedents left out because they are the question's own

    @property
    def best(self) -> float:
        return self.similar[0].cosine if self.similar else 0.0

    def inherited(self, ancestors: Sequence[str]) -> float:
        """Votes for the provision's ancestors (a section or subpart a precedent cites)."""
        return sum(self.direct.get(a, 0.0) for a in ancestors)

    def matches(
        self, most: int = 3, least: float = 0.0, about: Callable[[Precedent], bool] | None = None
    ) -> list[PrecedentMatch]:
        """The most similar precedents as an answer shows them (at least ``least`` cosine; ``about``: only
        those it accepts)."""
        return [
            PrecedentMatch(
                id=s.precedent.id,
                title=s.precedent.title,
                date=s.precedent.date,
                url=s.precedent.url,
                issuer=s.precedent.issuer,
                cites=tuple(c.written for c in s.precedent.cites),
                resolved=s.precedent.resolved_ids,
                similarity=round(s.cosine, 4),
            )
            for s in [s for s in self.similar if s.cosine >= least and (about is None or about(s.precedent))][
                :most
            ]
        ]


class PrecedentIndex:
    """Lexical (BM25, the corpus index's tokenizer) and dense (the embedding model) search over precedent
    texts."""

    def __init__(
        self,
        precedents: Sequence[Precedent],
        tokenize: Callable[[str], list[str]],
        embedder: Embedder,
        vectors: np.ndarray | None = None,
        tokenize_all: Callable[[list[str]], list[list[str]]] | None = None,
    ) -> None:
        """``tokenize_all``: ``tokenize`` over many texts at once (the bank is tokenized at every start)."""
        import bm25s

        self.precedents = list(precedents)
        self.tokenize, self.embedder = tokenize, embedder
        texts = [p.text for p in self.precedents]
        self.vectors = (
            vectors
            if vectors is not None
            else embedder.embed(texts)
            if texts
            else np.zeros((0, 1), np.float32)
        )
        tokens = [t or ["\x00"] for t in (tokenize_all or (lambda ts: [tokenize(t) for t in ts]))(texts)]
        self._bm25 = bm25s.BM25(k1=1.2, b=0.75)
        if tokens:
            self._bm25.index(tokens, show_progress=False)
        self._ids = {p.id: i for i, p in enumerate(self.precedents)}

    def __len__(self) -> int:
        return len(self.precedents)

    @classmethod
    def load(
        cls,
        precedents: Sequence[Precedent],
        tokenize: Callable[[str], list[str]],
        embedder: Embedder,
        folder: Path,
        model: str,
        tokenize_all: Callable[[list[str]], list[list[str]]] | None = None,
    ) -> PrecedentIndex:
        """The index with its text vectors read from ``folder`` when stored for these texts and model, else
        encoded and stored (a read-only home encodes them each time, with one warning)."""
        texts = [p.text for p in precedents]
        key = content_hash(model, *texts)[:16]
        path = folder / f"precedent-vectors-{key}.npy"
        vectors = None
        if path.is_file():
            try:
                vectors = np.load(path, allow_pickle=False)
                if vectors.shape[0] != len(texts):
                    vectors = None
            except (OSError, ValueError) as e:
                log.warning("ignoring unreadable precedent vectors %s: %s", path.name, e)
        if vectors is None and texts:
            vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                save_npy(path, vectors)
            except OSError as e:
                log.warning("cannot store the precedent vectors %s: %s", path.name, e)
        return cls(precedents, tokenize, embedder, vectors, tokenize_all)

    def own(self, exclude: Collection[str]) -> np.ndarray:
        """Mask of precedents that are the question's own (same id or same source URL)."""
        mask = np.zeros(len(self.precedents), dtype=bool)
        if not exclude:
            return mask
        wanted = set(exclude)
        for i, p in enumerate(self.precedents):
            if p.id in wanted or (p.url and p.url in wanted):
                mask[i] = True
        return mask

    def votes(self, question: str, exclude: Collection[str] = (), voters: int = VOTERS) -> PrecedentVotes:
        """The ``voters`` most similar precedents (fused lexical and dense ranks) and their votes."""
        if not self.precedents:
            return PrecedentVotes()
        cosine = self.vectors @ np.asarray(self.embedder.embed([question]), dtype=np.float32)[0]
        tokens = [t for t in self.tokenize(question) if t in self._bm25.vocab_dict]
        lexical = (
            np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)
            if tokens
            else np.zeros(len(cosine), np.float32)
        )
        own = self.own(exclude)
        cosine = np.where(own, -np.inf, cosine)
        lexical = np.where(own, -np.inf, lexical)
        fused = np.zeros(len(cosine), dtype=np.float64)
        for scores, valid in ((cosine, np.isfinite(cosine)), (lexical, lexical > 0)):
            order = np.argsort(-scores, kind="stable")
            for r, i in enumerate(order[: 5 * voters], start=1):
                if valid[i]:
                    fused[i] += rrf_score(r)
        best_lex = float(lexical[np.isfinite(lexical)].max()) if np.isfinite(lexical).any() else 0.0
        order = [i for i in np.argsort(-fused, kind="stable")[:voters] if fused[i] > 0]
        out = PrecedentVotes(removed=int(own.sum()))
        for r, i in enumerate(order, start=1):
            s = Similar(
                self.precedents[i], float(cosine[i]), float(lexical[i]) / best_lex if best_lex > 0 else 0.0, r
            )
            out.similar.append(s)
            for pid in s.precedent.resolved_ids:
                out.direct[pid] = out.direct.get(pid, 0.0) + s.weight
                out.cited_ids.setdefault(pid, r)
        return out
