"""Dense baseline: sentence-transformers cosine search over provision documents.

The corpus matrix is cached as ``$BIFROST_HOME/index/<corpus>/dense-<model>-<hash>.npy``, keyed by
model and the documents' content hash, so repeated runs do not re-embed; it is written atomically
and memory-mapped when read (pages are shared between processes and loaded on demand).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import save_npy, write_json
from bifrost.core.embeddings import SentenceTransformerEmbedder
from bifrost.core.settings import Settings
from bifrost.core.types import Provision, RetrievedItem, Via, content_hash
from retrieval.baselines.documents import Documents, build_documents, index_folder, load_provisions

log = logging.getLogger(__name__)


def model_version(model: str) -> str:
    """For a local model folder, ``-`` and a hash of its weight files' sizes and times (a retrained
    encoder saved to the same folder gets a new cache); empty for a model name."""
    folder = Path(model).expanduser()
    if not folder.is_dir():
        return ""
    stats = [f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in sorted(folder.glob("*.safetensors"))
             + sorted(folder.glob("*.bin"))]
    return f"-{content_hash(*stats)[:8]}" if stats else ""


def cache_path(home: Path, corpus: str, model: str, docs: Documents) -> Path:
    """Where the embedding matrix of these documents under this model is kept."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model).name or model)[:60]
    slug += model_version(model)
    return index_folder(home, corpus) / f"dense-{slug}-{docs.fingerprint}.npy"


def cached_matrix(path: Path, docs: Documents, embed, mmap: bool = True) -> np.ndarray:
    """The matrix at `path` (memory-mapped read-only unless ``mmap`` is False) when its ids match,
    else embed the texts and save it with its ids (each file written atomically)."""
    ids_path = path.with_suffix(".ids.json")
    if path.exists() and ids_path.exists():
        try:
            if json.loads(ids_path.read_text()) == docs.ids:
                return np.load(path, mmap_mode="r" if mmap else None)
        except (OSError, ValueError) as e:
            log.warning("ignoring unreadable dense cache %s: %s", path, e)
    log.info("embedding %d documents for the dense index %s (missing or stale)", len(docs.ids), path.name)
    matrix = np.asarray(embed(docs.texts), dtype=np.float32)
    try:
        save_npy(path, matrix)
        write_json(ids_path, docs.ids)
    except OSError as e:  # a read-only home still answers, only slower next time
        log.warning("cannot write the dense index %s: %s", path, e)
    return matrix


class DenseRanker:
    """Cosine similarity between the question and every provision document (unit-norm embeddings)."""

    def __init__(self, settings: Settings, mode: str = "context", model: str | None = None, embedder: Any = None) -> None:
        self.settings, self.mode = settings, mode
        self.model = model or settings.embedding_model
        self.embedder = embedder or SentenceTransformerEmbedder(self.model)
        self._ids: list[str] = []
        self._matrix: np.ndarray | None = None
        self.corpus = ""
        self.cache_file: str | None = None

    def warm_up(self, corpus: str, provisions: list[Provision] | None = None) -> None:
        """Load (or build) the corpus matrix; ``provisions`` saves reading them again from SQL."""
        self.corpus = corpus
        docs = build_documents(load_provisions(self.settings, corpus) if provisions is None else provisions, self.mode)
        if not docs.ids:
            raise ValueError(f"corpus {corpus!r} has no provision text to index; run `bifrost ingest --corpus {corpus}`")
        path = cache_path(self.settings.home, corpus, self.model, docs)
        self._matrix = cached_matrix(path, docs, self.embedder.embed)
        self._ids, self.cache_file = docs.ids, str(path)

    def search(self, query: str, top_k: int = 10) -> list[RetrievedItem]:
        if self._matrix is None:
            raise RuntimeError("DenseRanker.search before warm_up")
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        q = self.embedder.embed([query])[0]
        scores = np.asarray(self._matrix @ q)
        k = min(top_k, len(self._ids))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [RetrievedItem(corpus=self.corpus, id=self._ids[i], score=float(scores[i]), via=(Via.DENSE,)) for i in top]

    def prepare(self, questions: list[str]) -> None:
        """Encode every question in batches now (the embedder caches them for `search`)."""
        self.embedder.embed(list(dict.fromkeys(questions)))

    @property
    def ids(self) -> list[str]:
        """Document ids in matrix order (the order of `score_all`)."""
        return self._ids

    def score_all(self, query: str) -> np.ndarray:
        """Cosine of ``query`` with every document, in `ids` order."""
        if self._matrix is None:
            raise RuntimeError("DenseRanker.score_all before warm_up")
        return np.asarray(self._matrix @ self.embedder.embed([query])[0])

    def describe(self) -> dict[str, Any]:
        return {"kind": "dense", "model": self.model, "mode": self.mode, "cache": self.cache_file}
