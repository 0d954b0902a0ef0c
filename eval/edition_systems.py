"""`bifrost eval --as-of`: the systems evaluated against a past edition of a corpus.

BM25, dense and RRF index that edition's provisions; the Bifrost systems answer as `ask --as-of`
does (lexical + dense fusion over the edition, widened through its navigator graph: the entity
network and the learned ranker cover the current edition only); any other system reads the
current corpus and is skipped with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.core.types import Edition
from bifrost.eval.bifrost_systems import PRESETS, BadSystemParameters
from bifrost.eval.registry import SystemRegistry, SystemSpec, UnknownSystemError
from bifrost.retrieval.base import System, SystemResult, SystemUnavailable
from bifrost.retrieval.answer.citations import cited_items
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.edition_retriever import EditionRetriever, edition_note
from bifrost.retrieval.answerability.refusal import should_refuse

INDEXED = ("bm25", "dense", "rrf")  # baselines that take the edition's provisions


class EditionBifrostSystem:
    """A Bifrost system on a past edition: `EditionRetriever`, cited and refused as `ask --as-of` does."""

    def __init__(self, name: str, settings: Settings, edition: Edition, config: RetrievalConfig) -> None:
        self.name, self.settings, self.edition, self.config = name, settings, edition, config
        self._retriever: EditionRetriever | None = None

    def warm_up(self, corpus: str) -> None:
        resources = Resources(self.settings)
        self._retriever = EditionRetriever.load(self.settings, self.edition, resources.embedder, self.config)

    def search(self, question: str, k: int) -> SystemResult:
        if self._retriever is None:
            raise RuntimeError("EditionBifrostSystem.search before warm_up")
        start = time.perf_counter()
        cfg = self.config.model_copy(update={"top_n": max(k, self.config.top_n)})
        result = self._retriever.retrieve(question, cfg)
        refused = should_refuse(result, cfg.refuse_below, question)
        cited = (
            []
            if refused
            else [it.id for it in cited_items(result.items, result.cited, cfg.cite_ratio, cfg.cite_max)]
        )
        return SystemResult(
            ranked=[(it.id, it.score) for it in result.items],
            cited=cited,
            seconds=time.perf_counter() - start,
            refused=refused,
            info={"mode": result.mode, "relevance": round(result.relevance, 4)},
        )

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "bifrost-edition",
            "edition": self.edition.number,
            "date": self.edition.date,
            "note": edition_note(self.edition),
            "config": self.config.model_dump(),
        }


def create_for_edition(
    registry: SystemRegistry, spec: SystemSpec, settings: Settings, corpus: str, edition: Edition
) -> System:
    """The system ``spec`` names, answering from ``edition``; `SystemUnavailable` when it cannot."""
    if spec.name in INDEXED:
        system = registry.create(
            SystemSpec(spec.name, {**spec.params, "edition": edition.number}), settings, corpus
        )
        system.name = spec.label
        return system
    if spec.name in PRESETS and spec.name != "bifrost-ltr" and "tau" not in spec.params:
        params = dict(spec.params)
        try:
            config = RetrievalConfig(**{**PRESETS[spec.name], **params})
        except ValueError as e:
            raise UnknownSystemError(
                str(BadSystemParameters(f"system {spec.name!r}: bad parameters {params}: {e}"))
            ) from e
        return EditionBifrostSystem(spec.label, settings, edition, config)
    if spec.name not in registry.known():
        return registry.create(spec, settings, corpus)  # the unknown-system error
    raise SystemUnavailable(
        f"{spec.label} needs the current edition (entity network, ranker or its texts); "
        f"skipped as of edition {edition.number}"
    )


def build_edition_systems(
    registry: SystemRegistry, specs: Sequence[SystemSpec], settings: Settings, corpus: str, edition: Edition
) -> tuple[dict[str, System], dict[str, str]]:
    """Like `bifrost.eval.runner.build_systems`, for a past edition."""
    built: dict[str, System] = {}
    skipped: dict[str, str] = {}
    for spec in specs:
        try:
            built[spec.label] = create_for_edition(registry, spec, settings, corpus, edition)
        except SystemUnavailable as e:
            skipped[spec.label] = str(e)
    return built, skipped
