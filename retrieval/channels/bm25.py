"""BM25 baseline over provision documents (bm25s; Snowball English stemmer when PyStemmer is installed).

The index is saved under ``$BIFROST_HOME/index/<corpus>/bm25-<mode>-<key>/`` (bm25s's own format,
key = content hash of the documents and the BM25 settings), written atomically and memory-mapped
when read, so a new process does not tokenize and index the corpus again.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from bifrost.core.atomic_files import atomic_folder
from bifrost.core.settings import Settings
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Provision, content_hash
from bifrost.retrieval.channels.documents import Documents, build_documents, index_folder, load_provisions

log = logging.getLogger(__name__)


def _bm25s():
    """The bm25s module, imported on first use; bm25s sets its logger to DEBUG when imported, which
    is undone here so that the application's logging configuration decides."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.NOTSET)
    return bm25s


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
        self,
        settings: Settings,
        mode: str = "context",
        k1: float = 1.5,
        b: float = 0.75,
        stem: bool = True,
        edition: int | None = None,
    ) -> None:
        """``edition``: index the provisions of that edition number instead of the current ones."""
        self.settings, self.mode, self.k1, self.b, self.stem = settings, mode, k1, b, stem
        self.edition = edition
        self._ids: list[str] = []
        self._bm25: Any = None
        self._stemmer = None
        self.corpus = ""

    def warm_up(self, corpus: str, provisions: list[Provision] | None = None, persist: bool = True) -> None:
        """Load the saved index of this corpus, or build (and, with ``persist``, save) it when it is
        missing or stale; ``provisions`` saves reading them again from SQL."""
        self.corpus = corpus
        docs = build_documents(
            load_provisions(self.settings, corpus, self.edition) if provisions is None else provisions,
            self.mode,
        )
        if not docs.ids:
            raise ValueError(
                f"corpus {corpus!r} has no provision text to index; run `bifrost ingest --corpus {corpus}`"
            )
        self._stemmer = english_stemmer() if self.stem else None
        folder = self.index_folder(corpus, docs) if persist else None
        self._bm25 = self._load(folder) if folder is not None else None
        if self._bm25 is None:
            self._bm25 = self._build(docs, folder)
        self._ids = docs.ids

    def index_folder(self, corpus: str, docs: Documents) -> Path:
        """Where the index of these documents under these settings is saved; keyed on whether the
        tokens were stemmed (the stemmer `warm_up` loaded), not on the ``stem`` flag asked for."""
        bm25s = _bm25s()

        stemmed = str(self._stemmer is not None)
        key = content_hash(
            docs.fingerprint, self.mode, str(self.k1), str(self.b), stemmed, "en", bm25s.__version__
        )
        return index_folder(self.settings.home, corpus) / f"bm25-{self.mode}-{key[:16]}"

    def _load(self, folder: Path) -> Any:
        bm25s = _bm25s()

        if not (folder / "params.index.json").is_file():
            return None
        try:
            return bm25s.BM25.load(folder, mmap=True, show_progress=False)
        except (OSError, ValueError, KeyError) as e:
            log.warning("ignoring unreadable BM25 index %s: %s", folder, e)
            return None

    def _build(self, docs: Documents, folder: Path | None) -> Any:
        bm25s = _bm25s()

        if folder is not None:
            log.info(
                "building the BM25 index of %d documents (missing or stale): %s", len(docs.ids), folder.name
            )
        tokens = bm25s.tokenize(docs.texts, stopwords="en", stemmer=self._stemmer, show_progress=False)
        bm25 = bm25s.BM25(k1=self.k1, b=self.b)
        bm25.index(tokens, show_progress=False)
        if folder is not None:
            try:
                with atomic_folder(folder) as tmp:
                    bm25.save(tmp, show_progress=False)
                    (tmp / "ids.json").write_text(json.dumps(docs.ids))
            except OSError as e:  # a read-only home still answers, only slower next time
                log.warning("cannot write the BM25 index %s: %s", folder, e)
        return bm25

    def search(self, query: str, top_k: int = 10) -> list[RetrievedItem]:
        if self._bm25 is None:
            raise RuntimeError("Bm25Ranker.search before warm_up")
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        q = self.query_tokens(query)
        if not q:
            return []
        k = min(top_k, len(self._ids))
        idx, scores = self._bm25.retrieve([q], k=k, show_progress=False)
        return [
            RetrievedItem(corpus=self.corpus, id=self._ids[int(i)], score=float(s), via=(Via.LEXICAL,))
            for i, s in zip(idx[0], scores[0])
            if s > 0
        ]

    @property
    def ids(self) -> list[str]:
        """Document ids in index order (the order of `score_all`)."""
        return self._ids

    def score_all(self, query: str):
        """BM25 score of every document for ``query`` (numpy array in `ids` order; zeros when no term is
        known)."""
        import numpy as np

        if self._bm25 is None:
            raise RuntimeError("Bm25Ranker.score_all before warm_up")
        known = [t for t in self.query_tokens(query) if t in self._bm25.vocab_dict]
        if not known:
            return np.zeros(len(self._ids), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float32)

    def coverage(self, query: str):
        """Per document, the share of the query's distinct indexed terms it holds: plain and weighted
        by IDF (a document holding the rare terms of a question covers more of it). Two arrays in
        `ids` order; zeros when no term of the query is indexed."""
        import math

        import numpy as np

        n = len(self._ids)
        plain, weighted = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
        known = list(dict.fromkeys(t for t in self.query_tokens(query) if t in self._bm25.vocab_dict))
        total = 0.0
        for t in known:
            has = np.asarray(self._bm25.get_scores([t])) > 0
            df = int(np.count_nonzero(has))
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            plain += has
            weighted += np.float32(idf) * has
            total += idf
        if known:
            plain /= len(known)
            weighted /= np.float32(total) if total > 0 else 1
        return plain, weighted

    def profile(self, query: str) -> tuple[int, int]:
        """(distinct terms of the query, how many of them the corpus holds): how much of a question's
        wording the rulebook shares (site words such as "spoil" or "tie off" often are not indexed)."""
        terms = set(self.tokenize(query))
        return len(terms), sum(t in self._bm25.vocab_dict for t in terms)

    def query_tokens(self, query: str) -> list[str]:
        """The tokens BM25 searches for (the query's, as the index sees them)."""
        return self.tokenize(query)

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` as the index sees them (lowercased, stop words removed, stemmed)."""
        bm25s = _bm25s()

        if not text.strip():
            return []
        return list(
            bm25s.tokenize(
                [text], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False
            )[0]
        )

    def tokenize_all(self, texts: list[str]) -> list[list[str]]:
        """`tokenize` of each text, in one pass (the same tokens; each distinct word stemmed once)."""
        bm25s = _bm25s()

        if not texts:
            return []
        done = bm25s.tokenize(
            [t if t.strip() else "" for t in texts],
            stopwords="en",
            stemmer=self._stemmer,
            show_progress=False,
            return_ids=False,
        )
        return [list(tokens) if text.strip() else [] for text, tokens in zip(texts, done)]

    def document_frequency(self, token: str) -> int:
        """How many documents hold ``token`` (a token from `tokenize`; 0 when the corpus lacks it)."""
        import numpy as np

        if self._bm25 is None:
            raise RuntimeError("Bm25Ranker.document_frequency before warm_up")
        if token not in self._bm25.vocab_dict:
            return 0
        return int(np.count_nonzero(self._bm25.get_scores([token])))

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "bm25",
            "library": "bm25s",
            "mode": self.mode,
            "k1": self.k1,
            "b": self.b,
            "stemmer": "snowball-english" if self._stemmer else None,
            "stopwords": "en",
            **({"edition": self.edition} if self.edition is not None else {}),
        }
