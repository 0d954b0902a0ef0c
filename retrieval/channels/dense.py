"""Dense baseline: sentence-transformers cosine search over provision documents.

The corpus matrix is cached as ``$BIFROST_HOME/index/<corpus>/dense-<model>-<hash>.npy``, keyed by
model and the documents' content hash, so repeated runs do not re-embed; it is written atomically
and memory-mapped when read (pages are shared between processes and loaded on demand). A past
edition's matrix is cached the same way (its own hash); it copies the current matrix's vector of
every document whose text is unchanged and embeds only the others.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import save_npy, write_json
from bifrost.core.embeddings import SentenceTransformerEmbedder, embedder_for
from bifrost.core.settings import Settings
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Provision, content_hash
from bifrost.retrieval.channels.documents import Documents, build_documents, index_folder, load_provisions

log = logging.getLogger(__name__)


def model_version(model: str) -> str:
    """For a local model folder, ``-`` and a hash of its weight files' sizes and times (a retrained
    encoder saved to the same folder gets a new cache); empty for a model name."""
    folder = Path(model).expanduser()
    if not folder.is_dir():
        return ""
    stats = [
        f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}"
        for f in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin"))
    ]
    return f"-{content_hash(*stats)[:8]}" if stats else ""


def model_slug(model: str) -> str:
    """A file-name-safe name of an embedding model, with its `model_version` and, for a key with a runtime
    (``all-MiniLM-L6-v2@onnx``), that runtime (index files are per model and runtime)."""
    base, _, runtime = model.partition("@")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(base).name or base)[:60] + model_version(base)
    return slug + (f"-{runtime}" if runtime else "")


def cache_path(home: Path, corpus: str, model: str, docs: Documents) -> Path:
    """Where the embedding matrix of these documents under this model is kept."""
    return index_folder(home, corpus) / f"dense-{model_slug(model)}-{docs.fingerprint}.npy"


def _read_cache(path: Path, ids: list[str], mmap: bool = True) -> np.ndarray | None:
    """The matrix saved at ``path`` (memory-mapped read-only unless ``mmap`` is False) when it was
    saved for exactly ``ids``, else None."""
    ids_path = path.with_suffix(".ids.json")
    if path.exists() and ids_path.exists():
        try:
            if json.loads(ids_path.read_text()) == ids:
                return np.load(path, mmap_mode="r" if mmap else None)
        except (OSError, ValueError) as e:
            log.warning("ignoring unreadable dense cache %s: %s", path, e)
    return None


def known_vectors(path: Path, candidates: list[Documents]) -> dict[str, np.ndarray]:
    """Text -> vector from every cached matrix next to ``path`` (same model) that holds one of the
    ``candidates`` in any order: a file is used only when the candidate's texts, put in the file's
    id order, give the content hash in its name, so no vector is taken for a text it was not made from."""
    prefix = path.name[: -len(f"{candidates[0].fingerprint}.npy")] if candidates else ""
    known: dict[str, np.ndarray] = {}
    for npy in sorted(path.parent.glob(f"{prefix}*.npy")) if prefix else []:
        try:
            ids = json.loads(npy.with_suffix(".ids.json").read_text())
        except (OSError, ValueError):
            continue
        for docs in candidates:
            text_of = dict(zip(docs.ids, docs.texts))
            if len(ids) != len(text_of) or set(ids) != set(text_of):
                continue
            texts = [text_of[i] for i in ids]
            if npy.stem == f"{prefix}{content_hash(*ids, *texts)}":
                known.update(zip(texts, np.load(npy)))
                break
    return known


def embed_reusing(texts: list[str], embed, known: Mapping[str, np.ndarray]) -> np.ndarray:
    """Embeddings of ``texts``, taken from ``known`` where the text is there, embedded otherwise."""
    missing = list(dict.fromkeys(t for t in texts if t not in known))
    fresh = dict(zip(missing, np.asarray(embed(missing), dtype=np.float32))) if missing else {}
    return np.asarray([known[t] if t in known else fresh[t] for t in texts], dtype=np.float32)


def cached_matrix(
    path: Path,
    docs: Documents,
    embed,
    known: Callable[[], dict[str, np.ndarray]] | None = None,
    mmap: bool = True,
) -> np.ndarray:
    """The matrix at `path` when its ids match, else embed the texts and save it with its ids (each
    file written atomically); ``known`` gives vectors already computed for some texts (only the
    others are embedded)."""
    cached = _read_cache(path, docs.ids, mmap)
    if cached is not None:
        return cached
    log.info("embedding %d documents for the dense index %s (missing or stale)", len(docs.ids), path.name)
    if known is not None:
        matrix = embed_reusing(docs.texts, embed, known())
    else:
        matrix = np.asarray(embed(docs.texts), dtype=np.float32)
    try:
        save_npy(path, matrix)
        write_json(path.with_suffix(".ids.json"), docs.ids)
    except OSError as e:  # a read-only home still answers, only slower next time
        log.warning("cannot write the dense index %s: %s", path, e)
    return matrix


class DenseRanker:
    """Cosine similarity between the question and every provision document (unit-norm embeddings)."""

    def __init__(
        self,
        settings: Settings,
        mode: str = "context",
        model: str | None = None,
        embedder: Any = None,
        edition: int | None = None,
    ) -> None:
        """``edition``: index the provisions of that edition number instead of the current ones."""
        self.settings, self.mode, self.edition = settings, mode, edition
        self.model = model or settings.embedding_model
        # the home's own model runs as the home's embedder does (its ONNX export): both share one index, and
        # an eval baseline does not embed the corpus again on another runtime
        self.embedder = embedder or (
            embedder_for(settings)
            if self.model == settings.embedding_model
            else SentenceTransformerEmbedder(self.model)
        )
        # what its vectors are stored under: the model, and the runtime when it is onnxruntime
        self.key = getattr(self.embedder, "key", self.model)
        self._ids: list[str] = []
        self._matrix: np.ndarray | None = None
        self.corpus = ""
        self.cache_file: str | None = None

    def warm_up(self, corpus: str, provisions: list[Provision] | None = None) -> None:
        """Load (or build) the corpus matrix; ``provisions`` saves reading them again from SQL."""
        self.corpus = corpus
        docs = build_documents(
            load_provisions(self.settings, corpus, self.edition) if provisions is None else provisions,
            self.mode,
        )
        if not docs.ids:
            raise ValueError(
                f"corpus {corpus!r} has no provision text to index; run `bifrost ingest --corpus {corpus}`"
            )
        path = cache_path(self.settings.home, corpus, self.key, docs)
        known = self._current_vectors(corpus, docs) if self.edition is not None else None
        self._matrix = cached_matrix(path, docs, self.embedder.embed, known)
        self._ids, self.cache_file = docs.ids, str(path)

    def _current_vectors(self, corpus: str, docs: Documents) -> Callable[[], dict[str, np.ndarray]]:
        """Vectors already cached for the current edition's documents or for these same documents in
        another order (read only on a cache miss)."""

        def read() -> dict[str, np.ndarray]:
            current = build_documents(load_provisions(self.settings, corpus), self.mode)
            return known_vectors(cache_path(self.settings.home, corpus, self.key, docs), [docs, current])

        return read

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
        return [
            RetrievedItem(corpus=self.corpus, id=self._ids[i], score=float(scores[i]), via=(Via.DENSE,))
            for i in top
        ]

    def prepare(self, questions: list[str]) -> None:
        """Encode every question in batches now (the embedder caches them for `search`)."""
        self.embedder.embed(list(dict.fromkeys(questions)))

    @property
    def ids(self) -> list[str]:
        """Document ids in matrix order (the order of `score_all`)."""
        return self._ids

    @property
    def matrix(self) -> np.ndarray:
        """The unit-norm document vectors, rows in `ids` order."""
        if self._matrix is None:
            raise RuntimeError("DenseRanker.matrix before warm_up")
        return self._matrix

    def score_all(self, query: str) -> np.ndarray:
        """Cosine of ``query`` with every document, in `ids` order."""
        if self._matrix is None:
            raise RuntimeError("DenseRanker.score_all before warm_up")
        return np.asarray(self._matrix @ self.embedder.embed([query])[0])

    def describe(self) -> dict[str, Any]:
        out = {"kind": "dense", "model": self.model, "mode": self.mode, "cache": self.cache_file}
        return out if self.edition is None else {**out, "edition": self.edition}
