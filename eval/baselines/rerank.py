"""Cross-encoder reranking of a first-stage ranker's candidates (needs a local cross-encoder model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bifrost.core.errors import ModelUnavailableError
from bifrost.core.settings import Settings
from bifrost.core.answer_types import RetrievedItem
from bifrost.retrieval.channels.documents import build_documents, load_provisions


class CrossEncoderReranker:
    """Rerank the top ``depth`` candidates of ``first`` with a sentence-transformers CrossEncoder."""

    def __init__(
        self, settings: Settings, first: Any, model_path: str | None, depth: int = 50, mode: str = "context"
    ) -> None:
        if not model_path or not Path(model_path).expanduser().is_dir():
            raise ModelUnavailableError(
                f"rerank needs a local cross-encoder folder (got {model_path!r}); pass e.g. "
                "rerank:model=/path/to/ms-marco-MiniLM-L-6-v2"
            )
        self.settings, self.first, self.model_path, self.depth, self.mode = (
            settings,
            first,
            str(model_path),
            depth,
            mode,
        )
        self._model: Any = None
        self._text: dict[str, str] = {}
        self.corpus = ""

    def warm_up(self, corpus: str) -> None:
        from sentence_transformers import CrossEncoder

        self.corpus = corpus
        self.first.warm_up(corpus)
        docs = build_documents(load_provisions(self.settings, corpus), self.mode)
        self._text = dict(zip(docs.ids, docs.texts))
        self._model = CrossEncoder(str(Path(self.model_path).expanduser()), device="cpu")

    def search(self, query: str, top_k: int = 10) -> list[RetrievedItem]:
        cands = self.first.search(query, top_k=max(top_k, self.depth))
        if not cands:
            return []
        scores = self._model.predict(
            [(query, self._text.get(c.id, "")) for c in cands], show_progress_bar=False
        )
        order = sorted(zip(cands, scores), key=lambda cs: -float(cs[1]))[:top_k]
        return [RetrievedItem(corpus=self.corpus, id=c.id, score=float(s), via=c.via) for c, s in order]

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "rerank",
            "model": self.model_path,
            "depth": self.depth,
            "first": self.first.describe(),
        }
