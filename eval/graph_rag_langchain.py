"""The `graph-rag-langchain` baseline: the paper's Neo4j GraphRAG comparison, built with LangChain.

A chat model turns each provision into a small knowledge graph (`LLMGraphTransformer`), stored in
Neo4j beside a ``Document`` node per provision (``include_source=True``); questions are answered
by `GraphCypherQAChain`, which writes a Cypher query from the graph schema, runs it and phrases an
answer. The ranked provision ids are recovered from that answer and from the query's results.

It shares the database with Bifrost's own graph but never touches it (`bifrost.eval.graph_rag_isolation`).
Document nodes carry the corpus (``id`` = ``corpus:provision id``) so corpora do not mix; ids are
recovered from answers by `bifrost.eval.graph_rag_ids`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from bifrost.core.errors import BifrostError, ModelUnavailableError, StoreError
from bifrost.core.settings import Settings
from bifrost.core.types import Provision, make_uid
from bifrost.eval.graph_rag_ids import ids_in_text, strings_in
from bifrost.eval.graph_rag_isolation import (
    BIFROST_LABELS,
    BIFROST_REL_TYPES,
    keep_apart,
    read_only_graph_class,
)
from bifrost.retrieval.base import SystemUnavailable
from bifrost.retrieval.channels.documents import build_documents

log = logging.getLogger(__name__)

NAME = "graph-rag-langchain"
BATCH = 32

# Filled into the `{examples}` slot of LangChain's default Cypher prompt: how provisions are stored.
EXAMPLES = """Document nodes are provisions of the rulebook {corpus!r}: d.id is "{corpus}:<provision id>",
d.text is the provision's text; (d:Document)-[:MENTIONS]->(x) links a provision to the entities it mentions.
Return the ids of the Document nodes that support the answer, for example:
# Which provisions are about guardrails?
MATCH (d:Document {{corpus: '{corpus}'}})-[:MENTIONS]->(x) WHERE toLower(x.id) CONTAINS 'guardrail'
RETURN DISTINCT d.id AS provision, x.id AS entity LIMIT 10"""


class BadExtraction(BifrostError):
    """The chat model's reply to the graph-extraction prompt is not a graph."""


@dataclass
class BuildReport:
    """What one build did: provisions in scope, already built, sent to the model, failed, written."""

    in_scope: int = 0
    existing: int = 0
    sent: int = 0
    failed: int = 0
    written: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)  # the first few, "id: message"


@dataclass(frozen=True)
class GraphAnswer:
    """One question's outcome: ids in rank order, the ids the answer cites, and what the chain did."""

    ids: list[str]
    cited: list[str]
    answer: str = ""
    cypher: str = ""
    error: str | None = None
    seconds: float = 0.0


def provision_documents(corpus: str, provisions: Sequence[Provision]) -> list[Document]:
    """One LangChain Document per provision with text (heading and text, as the other baselines
    read them; parts, subparts and reserved provisions are left out), keyed by ``corpus:id``."""
    docs = build_documents(provisions, mode="own")
    return [
        Document(
            page_content=text, metadata={"id": make_uid(corpus, pid), "corpus": corpus, "provision_id": pid}
        )
        for pid, text in zip(docs.ids, docs.texts)
    ]


def can_bind_tools(chat_model: BaseChatModel) -> bool:
    """Whether the model supports structured output through tool calling (else: prompt-based extraction)."""

    class _Probe(BaseModel):
        ok: bool

    try:
        chat_model.with_structured_output(_Probe)
    except NotImplementedError:
        return False
    return True


def neo4j_graph(settings: Settings, *, read_only: bool = False):
    """A LangChain `Neo4jGraph` on the configured server (an empty password means no auth)."""
    if not settings.neo4j_uri:
        raise SystemUnavailable(f"{NAME} needs a Neo4j server (set BIFROST_NEO4J_URI); skipped")
    cls = read_only_graph_class() if read_only else _graph_class()
    user, password = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else ("", "")
    try:
        return cls(
            url=settings.neo4j_uri,
            username=user,
            password=password,
            database=settings.neo4j_database,
            refresh_schema=read_only,
        )
    except ValueError as e:  # Neo4jGraph reports connection problems as ValueError
        raise StoreError(f"{NAME}: Neo4j at {settings.neo4j_uri}: {e}") from e


def _graph_class():
    from langchain_neo4j import Neo4jGraph

    return Neo4jGraph


def _check_reply(raw: Any) -> Any:
    """Pass a graph-extraction reply through, or raise `BadExtraction` when it holds no graph."""
    if isinstance(raw, dict):  # tool calling: {"raw": AIMessage, "parsed": ..., "parsing_error": ...}
        if raw.get("parsed") is None and not getattr(raw.get("raw"), "tool_calls", None):
            raise BadExtraction(f"no structured graph in the reply ({raw.get('parsing_error')})")
        return raw
    import json_repair

    text = raw if isinstance(raw, str) else getattr(raw, "text", None) or str(getattr(raw, "content", ""))
    if not isinstance(json_repair.loads(text), (list, dict)):
        raise BadExtraction(f"reply is not a JSON list of relations: {text[:80]!r}")
    return raw


class GraphRagLangchain:
    """Build an LLM knowledge graph of a corpus in Neo4j and answer questions with a Cypher QA chain.

    ``known`` is every provision id of the corpus; ``normalize`` is the corpus's citation grammar
    (None when its ids are not citations, e.g. ADGM passage UUIDs, which are then matched exactly).
    """

    def __init__(
        self,
        chat_model: BaseChatModel,
        graph: Any,
        read_graph_factory: Callable[[], Any],
        corpus: str,
        known: set[str],
        normalize: Callable[[str], str] | None = None,
        concurrency: int = 4,
        top_k: int = 10,
    ) -> None:
        from langchain_core.runnables import RunnableLambda
        from langchain_experimental.graph_transformers import LLMGraphTransformer

        self.chat_model, self.graph, self.read_graph_factory = chat_model, graph, read_graph_factory
        self.corpus, self.known, self.normalize = corpus, known, normalize
        self.concurrency, self.top_k = max(1, concurrency), top_k
        self.tools = can_bind_tools(chat_model)
        self.transformer = LLMGraphTransformer(llm=chat_model, ignore_tool_usage=not self.tools)
        # a reply that holds no graph is a failure (retried next build), not an empty provision
        self.transformer.chain = self.transformer.chain | RunnableLambda(_check_reply)
        self.chain: Any = None
        self.errors: list[str] = []
        self.n_errors = 0

    # --- building ---
    def built_ids(self) -> set[str]:
        """Provision ids whose Document node already exists for this corpus."""
        rows = self.graph.query(
            "MATCH (d:Document {corpus: $corpus}) RETURN d.provision_id AS id", {"corpus": self.corpus}
        )
        return {r["id"] for r in rows}

    def build(
        self, documents: Sequence[Document], progress: Callable[[int, int], None] | None = None
    ) -> BuildReport:
        """Extract and store the graph of every document not built yet; failures are counted, not fatal.

        A provision is written only when its extraction succeeded, so a later build retries the failed ones.
        """
        from bifrost.core.llm import fatal_model_errors

        start = time.perf_counter()
        self.graph.query(
            "CREATE INDEX graph_rag_document_corpus IF NOT EXISTS FOR (d:Document) ON (d.corpus)"
        )
        done = self.built_ids()
        todo = [d for d in documents if d.metadata["provision_id"] not in done]
        report = BuildReport(in_scope=len(documents), existing=len(documents) - len(todo), sent=len(todo))
        fatal = fatal_model_errors()

        def convert(doc: Document) -> tuple[Document, Any, str | None]:
            try:
                return doc, keep_apart(self.transformer.process_response(doc)), None
            except fatal as e:
                raise ModelUnavailableError(f"{NAME}: the chat model refused: {e}") from e
            except Exception as e:  # bad output, timeout after retries: counted, the build goes on
                return doc, None, f"{type(e).__name__}: {e}"

        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            for i in range(0, len(todo), BATCH):
                for doc, graph_doc, error in pool.map(convert, todo[i : i + BATCH]):
                    if error is None:
                        try:
                            self.graph.add_graph_documents(
                                [graph_doc], include_source=True, baseEntityLabel=True
                            )
                            report.written += 1
                            continue
                        except Exception as e:  # e.g. a label Neo4j rejects
                            error = f"{type(e).__name__}: {e}"
                    report.failed += 1
                    if len(report.errors) < 10:
                        report.errors.append(f"{doc.metadata['provision_id']}: {error}"[:300])
                    log.warning("%s: %s failed: %s", NAME, doc.metadata["provision_id"], error)
                if progress:
                    progress(min(i + BATCH, len(todo)), len(todo))
        report.seconds = round(time.perf_counter() - start, 3)
        self.chain = None  # the schema changed
        return report

    def clear(self) -> None:
        """Delete this corpus's Document nodes and the extracted nodes no other Document mentions."""
        self.graph.query(
            "MATCH (d:Document {corpus: $corpus}) OPTIONAL MATCH (d)-[:MENTIONS]->(x) "
            "WITH collect(DISTINCT d) AS docs, collect(DISTINCT x) AS xs "
            "FOREACH (d IN docs | DETACH DELETE d) "
            "WITH xs UNWIND xs AS x WITH x WHERE NOT (x)<-[:MENTIONS]-(:Document) DETACH DELETE x",
            {"corpus": self.corpus},
        )
        self.chain = None

    # --- answering ---
    def qa_chain(self) -> Any:
        """`GraphCypherQAChain` over the current schema minus Bifrost's labels and types."""
        if self.chain is None:
            from langchain_neo4j import GraphCypherQAChain

            self.chain = GraphCypherQAChain.from_llm(
                self.chat_model,
                graph=self.read_graph_factory(),
                exclude_types=list(BIFROST_LABELS + BIFROST_REL_TYPES),
                validate_cypher=True,
                return_intermediate_steps=True,
                top_k=self.top_k,
                # the chain runs model-written Cypher; it is read-only here (read transactions, and
                # Bifrost's labels refused), which is the precaution LangChain asks this flag to confirm
                allow_dangerous_requests=True,
            )
        return self.chain

    def answer(self, question: str) -> GraphAnswer:
        """Ask the chain; a failing question (bad Cypher, refused query) gets no ids and an error."""
        from bifrost.core.llm import fatal_model_errors

        start = time.perf_counter()
        chain = self.qa_chain()
        try:
            out = chain.invoke({"query": question, "examples": EXAMPLES.format(corpus=self.corpus)})
        except fatal_model_errors() as e:
            raise ModelUnavailableError(f"{NAME}: the chat model refused: {e}") from e
        except Exception as e:  # one question's failure is recorded, the run goes on
            self.n_errors += 1
            msg = f"{type(e).__name__}: {e}".strip()[:500]
            if len(self.errors) < 10:
                self.errors.append(msg)
            log.warning("%s: question %r failed: %s", NAME, question[:80], msg)
            return GraphAnswer([], [], error=msg, seconds=time.perf_counter() - start)
        steps = out.get("intermediate_steps") or []
        cypher = next((s["query"] for s in steps if "query" in s), "")
        context = next((s["context"] for s in steps if "context" in s), [])
        answer = str(out.get("result") or "")
        named = self.ids_in_text(answer)
        retrieved = [pid for text in strings_in(context) for pid in self.ids_in_text(text)]
        ids = list(dict.fromkeys(named + retrieved))
        return GraphAnswer(
            ids, named or list(dict.fromkeys(retrieved)), answer, cypher, seconds=time.perf_counter() - start
        )

    def ids_in_text(self, text: str) -> list[str]:
        """Provision ids of this corpus in a text, by position (see
        `bifrost.eval.graph_rag_ids.ids_in_text`)."""
        return ids_in_text(text, self.corpus, self.known, self.normalize)

    def describe(self) -> dict[str, Any]:
        from bifrost.core.llm import model_id

        return {
            "kind": NAME,
            "model": model_id(self.chat_model),
            "extraction": "tools" if self.tools else "prompt",
            "top_k": self.top_k,
            "question_errors": self.n_errors,
            "first_errors": self.errors[:3],
        }
