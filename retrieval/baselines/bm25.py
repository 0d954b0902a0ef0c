"""BM25 baseline over provision documents (bm25s; Snowball English stemmer when PyStemmer is installed)."""

from __future__ import annotations

from typing import Any

from bifrost.core.settings import Settings
from bifrost.core.types import RetrievedItem, Via
from retrieval.baselines.documents import build_documents, load_provisions


def english_stemmer():
    """PyStemmer's English Snowball stemmer, or None when PyStemmer is not installed."""
    try:
        import Stemmer
    except ImportError:
        return None
    return Stemmer.Stemmer("english").stemWords


class Bm25Ranker:
    """Lucene-style BM25 (k1=1.5, b=0.75) over lowercased, stop-word-filtered, stemmed tokens."""

    def __init__(
        self, settings: Settings, mode: str = "context", k1: float = 1.5, b: float = 0.75, stem: bool = True,
        edition: int | None = None,
    ) -> None:
        """``edition``: index the provisions of that edition number instead of the current ones."""
        self.settings, self.mode, self.k1, self.b, self.stem = settings, mode, k1, b, stem
        self.edition = edition
        self._ids: list[str] = []
        self._bm25: Any = None
        self._stemmer = None
        self.corpus = ""

    def warm_up(self, corpus: str) -> None:
        import bm25s

        self.corpus = corpus
        docs = build_documents(load_provisions(self.settings, corpus, self.edition), self.mode)
        if not docs.ids:
            raise ValueError(f"corpus {corpus!r} has no provision text to index; run `bifrost ingest --corpus {corpus}`")
        self._stemmer = english_stemmer() if self.stem else None
        tokens = bm25s.tokenize(docs.texts, stopwords="en", stemmer=self._stemmer, show_progress=False)
        self._bm25 = bm25s.BM25(k1=self.k1, b=self.b)
        self._bm25.index(tokens, show_progress=False)
        self._ids = docs.ids

    def search(self, query: str, top_k: int = 10) -> list[RetrievedItem]:
        import bm25s

        if self._bm25 is None:
            raise RuntimeError("Bm25Ranker.search before warm_up")
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        q = bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False)
        if not q[0]:
            return []
        k = min(top_k, len(self._ids))
        idx, scores = self._bm25.retrieve([q[0]], k=k, show_progress=False)
        return [
            RetrievedItem(corpus=self.corpus, id=self._ids[int(i)], score=float(s), via=(Via.LEXICAL,))
            for i, s in zip(idx[0], scores[0]) if s > 0
        ]

    @property
    def ids(self) -> list[str]:
        """Document ids in index order (the order of `score_all`)."""
        return self._ids

    def score_all(self, query: str):
        """BM25 score of every document for ``query`` (numpy array in `ids` order; zeros when no term is known)."""
        import bm25s
        import numpy as np

        if self._bm25 is None:
            raise RuntimeError("Bm25Ranker.score_all before warm_up")
        q = bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False)
        known = [t for t in q[0] if t in self._bm25.vocab_dict]
        if not known:
            return np.zeros(len(self._ids), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float32)

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` as the index sees them (lowercased, stop words removed, stemmed)."""
        import bm25s

        if not text.strip():
            return []
        return list(bm25s.tokenize([text], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False)[0])

    def document_frequency(self, token: str) -> int:
        """How many documents hold ``token`` (a token from `tokenize`; 0 when the corpus lacks it)."""
        import numpy as np

        if self._bm25 is None:
            raise RuntimeError("Bm25Ranker.document_frequency before warm_up")
        if token not in self._bm25.vocab_dict:
            return 0
        return int(np.count_nonzero(self._bm25.get_scores([token])))

    def describe(self) -> dict[str, Any]:
        return {"kind": "bm25", "library": "bm25s", "mode": self.mode, "k1": self.k1, "b": self.b,
                "stemmer": "snowball-english" if self._stemmer else None, "stopwords": "en",
                **({"edition": self.edition} if self.edition is not None else {})}
