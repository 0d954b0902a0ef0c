"""Bifrost's systems for `bifrost eval` (over `bifrost.retrieval.pipeline.AskPipeline`): the paper's
algorithm, its ablations, and our hybrid.

- ``bifrost``: the BifrostRAG algorithm as built here: entity ∩ triple matches (union when they
  do not intersect), then the navigator graph; no keyword or dense channel.
- ``bifrost-eng-only``: the same without the navigator graph (the paper's "ENG only").
- ``bifrost-no-swap``: the same without swapped triples.
- ``bifrost-hybrid``: entity and triple matches boosted together, fused with BM25 and dense seeds,
  then the navigator graph in reading order (what ``bifrost ask`` uses without a trained ranker).
- ``bifrost-ltr``: the learned ranker of the home (``bifrost train ranker``); score it only on
  questions it was not trained on (its card, in metrics.json, lists the training files).
- ``llm-only``: the configured chat model with no retrieval (skipped without one).

Any `RetrievalConfig` field is a parameter (``bifrost:depth=1``), and ``tau`` rebuilds the entity
network with that merge threshold in a cached variant home (``$BIFROST_HOME/variants``).
"""

from __future__ import annotations

from collections.abc import Collection

import sqlite3
import shutil
import time
from typing import Any

from bifrost.core.resources import Resources
from bifrost.core.answer_types import Outcome
from bifrost.core.settings import Settings
from bifrost.retrieval.base import SystemResult, SystemUnavailable
from bifrost.retrieval.answer.citations import cited_items
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.answerability.refusal import outcome_of


class BadSystemParameters(ValueError):
    """Parameters a system factory cannot use (the registry turns it into a one-line error)."""


PAPER = {"ranker": "hybrid", "combine": "intersection", "lexical_weight": 0.0, "dense_weight": 0.0}
PRESETS: dict[str, dict[str, Any]] = {
    "bifrost": PAPER,
    "bifrost-eng-only": {**PAPER, "use_dng": False},
    "bifrost-no-swap": {**PAPER, "swap": False},
    "bifrost-hybrid": {"ranker": "hybrid"},
    # the ranker trained by `bifrost train ranker` (never score it on its training questions)
    "bifrost-ltr": {"ranker": "ltr"},
}


def variant_settings(settings: Settings, corpus: str, tau: float) -> Settings:
    """Settings of a home whose entity network was built with ``tau`` (built once, then reused)."""
    if abs(tau - settings.tau) < 1e-9:
        return settings
    if settings.database_url:
        raise SystemUnavailable("tau variants need the default SQLite store (BIFROST_DATABASE_URL is set)")
    from bifrost.graph_builders.entities.pipeline import build_corpus_entities

    home = settings.home / "variants" / f"{corpus}-tau{tau:.3f}"
    marker = home / "built"
    variant = settings.model_copy(update={"home": home, "tau": tau, "store": "embedded"})
    if not marker.exists():
        home.mkdir(parents=True, exist_ok=True)
        src = sqlite3.connect(settings.home / "bifrost.db")
        dst = sqlite3.connect(home / "bifrost.db")
        with dst:
            src.backup(dst)
        src.close()
        dst.close()
        if (settings.home / "index").exists():
            shutil.copytree(settings.home / "index", home / "index", dirs_exist_ok=True)
        res = Resources(variant)
        try:
            build_corpus_entities(res, corpus, "offline", tau)
        finally:
            res.close()
        marker.write_text(f"tau={tau}\n")
    return variant


class BifrostSystem:
    """A `System` over `HybridRetriever` with a fixed configuration."""

    def __init__(
        self, name: str, settings: Settings, corpus: str, config: RetrievalConfig, tau: float | None
    ) -> None:
        self.name = name
        self.settings = settings
        self.config = config
        self.tau = tau
        self._pipeline: AskPipeline | None = None
        self._retriever = None
        self._judge = None

    def warm_up(self, corpus: str) -> None:
        settings = (
            variant_settings(self.settings, corpus, self.tau) if self.tau is not None else self.settings
        )
        self._pipeline = AskPipeline(Resources(settings), self.config)
        self._retriever = self._pipeline.retriever(corpus)
        self._judge = self._pipeline.judge(corpus)  # refuse as `ask` refuses

    def prepare(self, questions: list[str]) -> None:
        """Parse and encode the whole question set in batches before answering."""
        if self._pipeline is None or self._retriever is None:
            raise RuntimeError("BifrostSystem.prepare before warm_up")
        self._pipeline.prepare(self._retriever.index.corpus, questions, self.config)

    reads_precedents = True  # `search` takes the question's own precedents to leave out

    def search(self, question: str, k: int, exclude: Collection[str] = ()) -> SystemResult:
        if self._retriever is None or self._pipeline is None:
            raise RuntimeError("BifrostSystem.search before warm_up")
        start = time.perf_counter()
        cfg = self.config.model_copy(update={"top_n": max(k, self.config.top_n)})
        res = self._pipeline.retrieve(question, self._retriever.index.corpus, cfg, exclude)
        outcome = outcome_of(res, cfg.refuse_below, question, self._judge)
        answered = outcome is Outcome.ANSWERED
        cited = (
            [it.id for it in cited_items(res.items, res.cited, cfg.cite_ratio, cfg.cite_max)]
            if answered
            else []
        )
        return SystemResult(
            ranked=[(it.id, it.score) for it in res.items],
            cited=cited,
            seconds=time.perf_counter() - start,
            refused=outcome is Outcome.REFUSED,
            info={"mode": res.mode, "relevance": round(res.relevance, 4), "evidence": round(res.evidence, 4)},
            outcome=outcome.value,
        )

    def describe(self) -> dict[str, Any]:
        out = {
            "kind": "bifrost",
            "config": self.config.model_dump(),
            "tau": self.tau or self.settings.tau,
            "embedding_model": self.settings.embedding_model,
            "extractor": "offline",
        }
        if isinstance(self._retriever, LtrRetriever):
            card = self._retriever.model.card
            out["ranker_card"] = {"questions": card.questions, "trained_at": card.trained_at}
        if self._judge is not None:
            a = self._judge.card
            out["answerability_card"] = {
                "questions": a.questions,
                "trained_at": a.trained_at,
                "threshold": a.threshold,
            }
        return out


class LlmOnlySystem:
    """`llm-only`: the configured chat model answers from memory (no retrieval); skipped without one."""

    name = "llm-only"

    def __init__(self, settings: Settings, chat_model: Any = None) -> None:
        self.settings = settings
        self.chat_model = chat_model
        self._llm = None

    def warm_up(self, corpus: str) -> None:
        from bifrost.graph_builders.jurisdictions.registry import pack_of
        from bifrost.eval.baselines.llm_only import LlmOnly

        res = Resources(self.settings)
        model = self.chat_model or res.chat_model
        if model is None:
            raise SystemUnavailable("llm-only needs a chat model (set BIFROST_LLM_MODEL); skipped")
        pack = pack_of(corpus, res.sql.jurisdiction(corpus))
        if pack.normalize is None:
            raise SystemUnavailable(
                f"llm-only names citations from memory; corpus {corpus!r} uses ids a model cannot know"
            )
        known = {p.id for p in res.sql.provisions(corpus)}
        description = next((s.description for s in pack.corpora if s.name == corpus), "")
        self._llm = LlmOnly(model, known, pack.normalize, description or corpus, self.settings.prompts_dir)

    def search(self, question: str, k: int) -> SystemResult:
        if self._llm is None:
            raise RuntimeError("LlmOnlySystem.search before warm_up")
        ids, refused, seconds = self._llm.answer(question)
        return SystemResult(
            ranked=[(pid, 1.0 / (i + 1)) for i, pid in enumerate(ids)],
            cited=ids,
            seconds=seconds,
            refused=refused,
        )

    def describe(self) -> dict[str, Any]:
        return self._llm.describe() if self._llm else {"kind": "llm-only"}


def factory_for(preset: str):
    def factory(settings: Settings, corpus: str, **params: Any) -> BifrostSystem:
        tau = params.pop("tau", None)
        try:
            config = RetrievalConfig(**{**PRESETS[preset], **params})
        except ValueError as e:
            raise BadSystemParameters(f"system {preset!r}: bad parameters {params}: {e}") from e
        return BifrostSystem(preset, settings, corpus, config, float(tau) if tau is not None else None)

    return factory


def llm_only_factory(settings: Settings, corpus: str, **params: Any) -> LlmOnlySystem:
    """`llm-only`, skipped at once when no chat model is configured or given."""
    if params.get("chat_model") is None and not settings.llm_model:
        raise SystemUnavailable("llm-only needs a chat model (set BIFROST_LLM_MODEL); skipped")
    return LlmOnlySystem(settings, **params)


def bifrost_factories() -> dict[str, object]:
    """Name -> factory of every Bifrost system (the registry adds them explicitly)."""
    factories: dict[str, object] = {name: factory_for(name) for name in PRESETS}
    factories["llm-only"] = llm_only_factory
    return factories
