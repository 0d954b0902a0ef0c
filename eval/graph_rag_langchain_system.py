"""The LangChain GraphRAG baseline as an evaluation system: scoped to the subparts a run names, built once
per scope, searched by the question."""

from __future__ import annotations
import re
import logging
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any
from langchain_core.language_models import BaseChatModel
from bifrost.core.settings import Settings
from bifrost.core.types import Provision
from bifrost.retrieval.base import SystemResult, SystemUnavailable
from bifrost.retrieval.channels.documents import load_provisions

from bifrost.eval.graph_rag_langchain import (
    NAME,
    BuildReport,
    GraphRagLangchain,
    neo4j_graph,
    provision_documents,
)

log = logging.getLogger(__name__)


def parse_subparts(value: Any) -> list[str]:
    """Subparts from a system parameter: ``L+M+P+X`` (commas separate systems on the command line) or a
    list."""
    if value is None:
        return []
    items = value if isinstance(value, (list, tuple)) else re.split(r"[+;/\s]+", str(value))
    return [str(s).strip() for s in items if str(s).strip()]


class GraphRagLangchainSystem:
    """`graph-rag-langchain` for `bifrost eval`: build (or resume) the graph in warm-up, then ask the chain.

    Scope: ``subparts=L+M+P+X`` (the paper built its graph for these) and/or ``limit=N`` (the first N
    provisions with text), since extraction costs one chat call per provision. Cited ids: those the
    answer names, else the provisions the Cypher query returned.
    """

    name = NAME

    def __init__(
        self,
        settings: Settings,
        chat_model: BaseChatModel | None = None,
        subparts: Any = None,
        limit: int | None = None,
        top_k: int = 10,
    ) -> None:
        if limit is not None and int(limit) <= 0:
            raise ValueError(f"{NAME}: limit must be > 0, got {limit}")
        self.settings, self.chat_model = settings, chat_model
        self.subparts, self.limit, self.top_k = (
            parse_subparts(subparts),
            (int(limit) if limit else None),
            int(top_k),
        )
        self.rag: GraphRagLangchain | None = None
        self.report: BuildReport | None = None

    def scope(self, provisions: Sequence[Provision]) -> list[Provision]:
        """The provisions whose graph is built: those under ``subparts``, or all (``limit`` applies after)."""
        if self.subparts:
            from bifrost.core.provisions import within_subparts

            provisions = within_subparts(provisions, self.subparts)
        return list(provisions)

    def warm_up(self, corpus: str) -> None:
        from bifrost.core.resources import Resources
        from bifrost.graph_builders.jurisdictions.registry import pack_of

        resources = Resources(self.settings)
        try:
            model = self.chat_model or resources.chat_model
            if model is None:
                raise SystemUnavailable(f"{NAME} needs a chat model (set BIFROST_LLM_MODEL); skipped")
            pack = pack_of(corpus, resources.sql.jurisdiction(corpus))
        finally:
            resources.close()
        provisions = load_provisions(self.settings, corpus)
        if not provisions:
            raise ValueError(
                f"{NAME}: corpus {corpus!r} has no provisions; run `bifrost ingest --corpus {corpus}`"
            )
        docs = provision_documents(corpus, self.scope(provisions))
        docs = docs[: self.limit] if self.limit else docs
        if not docs:
            raise ValueError(
                f"{NAME}: no provision with text in scope (subparts={'+'.join(self.subparts) or 'all'}) "
                f"of corpus {corpus!r}"
            )
        self.rag = GraphRagLangchain(
            model,
            neo4j_graph(self.settings),
            lambda: neo4j_graph(self.settings, read_only=True),
            corpus,
            {p.id for p in provisions},
            pack.normalize,
            self.settings.llm_concurrency,
            self.top_k,
        )
        self.report = self.rag.build(docs)
        log.info("%s: graph of %s: %s", NAME, corpus, self.report)
        # e.g. the model is unreachable
        if self.report.failed and not (self.report.written or self.report.existing):
            raise SystemUnavailable(
                f"{NAME}: no provision could be turned into a graph ({self.report.failed} failed; "
                f"first: {self.report.errors[0]}); skipped"
            )

    def search(self, question: str, k: int) -> SystemResult:
        if self.rag is None:
            raise RuntimeError("GraphRagLangchainSystem.search before warm_up")
        got = self.rag.answer(question)
        info: dict[str, Any] = {"cypher": got.cypher}
        if got.error:
            info["error"] = got.error
        return SystemResult(
            ranked=[(pid, 1.0 / (i + 1)) for i, pid in enumerate(got.ids)],
            cited=got.cited,
            seconds=got.seconds,
            refused=not got.ids and got.error is None,
            info=info,
        )

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = self.rag.describe() if self.rag else {"kind": NAME}
        out["scope"] = {"subparts": self.subparts, "limit": self.limit}
        if self.report is not None:
            out["build"] = asdict(self.report)
        return out
