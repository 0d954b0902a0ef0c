"""The Entity Network Graph's agent pipeline: prune -> extract entities -> validate -> relations -> validate.

Five chat-model agents run in sequence per provision (after the BifrostRAG paper). Replies are
validated JSON; code then enforces what a model cannot be trusted with: triples only between
validated entities, snake_case relations, section ids that the citation grammar and corpus accept.
A provision whose agents keep failing becomes a `FailedItem`; the build goes on.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import Counter, deque
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel

from bifrost.core.relations import is_valid_relation
from bifrost.core.errors import BifrostError, ModelUnavailableError, PromptError
from bifrost.core.llm import cache_of, connection_errors, fatal_model_errors, model_id, transient_errors
from bifrost.core.structured import InvalidOutputError, TripleOut, invoke_structured
from bifrost.core.types import ExtractedEntity, ExtractedTriple, Extraction, Provision

from bifrost.graph_builders.entities.agent_prompts import (
    EntityExtractionReply,
    EntityValidationReply,
    ExtractionPrompts,
    PruningReply,
    TriplesReply,
)
from bifrost.graph_builders.entities.breaker import CircuitBreaker
from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
from bifrost.graph_builders.entities.grounding import entity_key, names_text, unique_entities

from bifrost.graph_builders.entities.llm_records import ExtractionFailedError, ExtractionReport, FailedItem

logger = logging.getLogger(__name__)

SectionRefValidator = Callable[[str, Provision], "str | None"]
"""Raw section id as the model wrote it + the provision it came from -> normalized id, or None to reject."""

# CFR-style section ids (1926.502, 1910.134(c)(1)) that pruning must not lose.
_SECTION_ID_RE = re.compile(r"\b\d{3,4}\.\d{1,4}[a-z]?(?:\([0-9A-Za-z]{1,4}\))*")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD_RE = re.compile(r"[^0-9A-Za-z]+")

M = TypeVar("M", bound=BaseModel)


def to_snake_case(relation: str) -> str:
    """``Shall be provided with`` / ``shallBeProvidedWith`` -> ``shall_be_provided_with``."""
    return _NON_WORD_RE.sub("_", _CAMEL_RE.sub("_", relation.strip())).strip("_").lower()


def provision_text(p: Provision) -> str:
    """What the agents read: the heading (unless the text already starts with it) and the text."""
    heading, text = (p.heading or "").strip(), (p.text or "").strip()
    if heading and not text.startswith(heading):
        return f"{heading}\n{text}" if text else heading
    return text


def grammar_ref_validator(normalize: Callable[[str], str], known_ids: Container[str]) -> SectionRefValidator:
    """A `SectionRefValidator` from a citation grammar's ``normalize`` and the corpus's ids.

    A bare paragraph reference such as ``(b)(2)`` is read relative to the provision's section.
    """

    def validate(raw: str, provision: Provision) -> str | None:
        text = raw.strip()
        if text.startswith("(") and "." in provision.id:
            text = provision.id.split("(", 1)[0] + text
        try:
            normalized = normalize(text)
        except (BifrostError, ValueError):
            return None
        return normalized if normalized in known_ids else None

    return validate


class LlmExtractor:
    """`EntityExtractor` on chat-model agents, with bounded concurrency and a resumable journal.

    ``chat_model`` is any LangChain chat model (``ChatOpenAI`` against OpenAI/vLLM/Ollama/llama.cpp,
    or a fake in tests). Construction makes no call.
    """

    name = "llm"

    def __init__(
        self,
        chat_model: BaseChatModel,
        prompts: ExtractionPrompts,
        section_ref_validator: SectionRefValidator,
        concurrency: int = 4,
        *,
        journal: ExtractionJournal | None = None,
        max_repairs: int = 2,
        max_attempts: int = 2,
        retry_wait: bool = True,
        callbacks: Sequence[BaseCallbackHandler] = (),
        max_connection_failures: int = 5,
        response_format: str = "prompt",
    ) -> None:
        if concurrency <= 0:
            raise ValueError(f"concurrency must be > 0, got {concurrency}")
        if max_repairs < 0:
            raise ValueError(f"max_repairs must be >= 0, got {max_repairs}")
        if max_attempts <= 0:
            raise ValueError(f"max_attempts must be > 0 (1 = no retry), got {max_attempts}")
        self.chat_model = chat_model
        self.prompts = prompts
        self.section_ref_validator = section_ref_validator
        self.concurrency = concurrency
        self.journal = journal
        self.max_repairs = max_repairs
        self.max_attempts = max_attempts
        self.callbacks = list(callbacks)
        self.response_format = response_format
        self._model = chat_model.with_retry(
            retry_if_exception_type=transient_errors(),
            stop_after_attempt=max_attempts,
            wait_exponential_jitter=retry_wait,
        )
        self.report = ExtractionReport()
        self._lock = threading.Lock()
        self.breaker = CircuitBreaker(model_id(chat_model), max_connection_failures)

    @property
    def version(self) -> str:
        """Model and prompt set; part of the journal key so a change re-extracts."""
        return f"llm/{model_id(self.chat_model)}/prompts-{self.prompts.fingerprint}"

    def warm_up(self) -> None:
        """Nothing to load: the chat model connects on first call."""

    def extract(self, provision: Provision) -> Extraction:
        """Run the five agents on one provision; raises `ExtractionFailedError` if one gives up."""
        extraction, failed = self._one(provision)
        if failed is not None:
            raise ExtractionFailedError(failed)
        assert extraction is not None
        return extraction

    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        """Extractions in input order; journaled provisions are read back, failures go to ``report.failed``
        (and `failure_reasons`) and are left out.

        ``report`` is reset at the start of each call. A fatal model error (bad key, unknown model)
        raises `ModelUnavailableError`, and ``max_connection_failures`` connection failures in a row
        raise `ModelUnreachableError`; everything journaled so far is kept for the next run.
        """
        with self._lock:
            self.report = ExtractionReport()
        window = self.concurrency * 2
        pending: deque[Future[tuple[Extraction | None, FailedItem | None]]] = deque()
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="llm-extract")
        try:
            for provision in provisions:
                self._record(Counter(provisions=1))
                pending.append(pool.submit(self._one, provision))
                while len(pending) >= window:
                    yield from self._drain(pending.popleft())
            while pending:
                yield from self._drain(pending.popleft())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def failure_reasons(self) -> dict[str, str]:
        """``provision id -> reason`` of the provisions the last `extract_many` call left out."""
        with self._lock:
            return {f.provision_id: f"agent {f.agent} failed: {f.reason}" for f in self.report.failed}

    def _drain(self, future: Future[tuple[Extraction | None, FailedItem | None]]) -> Iterator[Extraction]:
        extraction, failed = future.result()
        self.breaker.check()
        if failed is not None:
            logger.warning(
                "extraction failed for %s:%s at %s: %s",
                failed.corpus,
                failed.provision_id,
                failed.agent,
                failed.reason,
            )
        elif extraction is not None:
            yield extraction

    # --- one provision ------------------------------------------------------------------------

    def _one(self, provision: Provision) -> tuple[Extraction | None, FailedItem | None]:
        """Journal lookup, agents, journal write; this provision's counts are added to ``self.report``."""
        if self.breaker.is_open:
            return None, self._failed(provision, "none", "not attempted: the chat model is unreachable")
        if self.journal is not None:
            stored = self.journal.get(provision, self.version)
            if stored is not None:
                self._record(Counter(from_journal=1))
                return stored, None
        counts: Counter[str] = Counter()
        try:
            extraction, failed = self._agents(provision, counts)
        finally:
            self._record(counts)
        if failed is not None:
            self._record(Counter(), failed)
            return None, failed
        assert extraction is not None
        if self.journal is not None:
            self.journal.put(provision, self.version, extraction)
        self._record(Counter(extracted=1))
        return extraction, None

    def _record(self, counts: Counter[str], failed: FailedItem | None = None) -> None:
        with self._lock:
            self.report.add(counts)
            if failed is not None:
                self.report.failed.append(failed)

    def _agents(self, p: Provision, counts: Counter[str]) -> tuple[Extraction | None, FailedItem | None]:
        text = provision_text(p)
        if not text:
            counts["empty"] += 1
            return self._extraction(p, [], [], []), None
        at = ["content_pruning"]  # the agent running, named in a failure's record
        try:
            found, entities, checked = self._run_agents(p, text, counts, at)
        except InvalidOutputError as e:
            self.breaker.reached()
            return None, self._failed(p, at[0], f"invalid output after {e.attempts} attempts: {e.reason}")
        except fatal_model_errors() as e:
            raise ModelUnavailableError(
                f"chat model {model_id(self.chat_model)!r} refused the call: {e}"
            ) from e
        except connection_errors() as e:
            self.breaker.connection_failed(e)
            return None, self._failed(p, at[0], f"{type(e).__name__} after {self.max_attempts} attempts: {e}")
        except transient_errors() as e:
            return None, self._failed(p, at[0], f"{type(e).__name__} after {self.max_attempts} attempts: {e}")
        except (PromptError, ModelUnavailableError):
            raise
        except Exception as e:  # any other model/server error fails this provision only
            logger.exception("%s: agent %s raised", p.uid, at[0])
            return None, self._failed(p, at[0], f"{type(e).__name__}: {e}")

        self.breaker.reached()
        triples = self._checked_triples(entities, checked, counts)
        refs = self._checked_refs(p, found.section_ids, counts)
        return self._extraction(p, entities, triples, refs), None

    def _run_agents(
        self, p: Provision, text: str, counts: Counter[str], at: list[str]
    ) -> tuple[EntityExtractionReply, list, list]:
        """The four agents in turn (pruning, entities, their validation, relations and theirs): the first
        reply, the grounded entities and the validated triples; ``at[0]`` names the agent running."""
        pruned = self._pruned(p, text, counts)
        at[0] = agent = "entity_extraction"
        found = self._call(agent, p, EntityExtractionReply, counts, provision_id=p.id, pruned_text=pruned)

        at[0] = agent = "entity_validation"
        entities = unique_entities(
            self._call(
                agent,
                p,
                EntityValidationReply,
                counts,
                provision_id=p.id,
                text=text,
                entities_json=_entities_json(unique_entities(found.entities)),
            ).entities
        )

        grounded = [e for e in entities if names_text(e.name, text)]
        counts["ungrounded_entities"] += len(entities) - len(grounded)
        entities = grounded
        entities_json = _entities_json(entities)
        at[0] = agent = "relation_extraction"
        raw_triples = self._call(
            agent, p, TriplesReply, counts, provision_id=p.id, pruned_text=pruned, entities_json=entities_json
        ).triples

        at[0] = agent = "relation_validation"
        checked = self._call(
            agent,
            p,
            TriplesReply,
            counts,
            provision_id=p.id,
            text=text,
            entities_json=entities_json,
            triples_json=_triples_json(raw_triples),
        ).triples

        return found, entities, checked

    def _pruned(self, p: Provision, text: str, counts: Counter[str]) -> str:
        """The pruning agent's text, or the original when it gave no usable reply or lost a section id
        (pruning only simplifies: the agents after it can read the text as it is)."""
        try:
            pruned = self._call(
                "content_pruning", p, PruningReply, counts, provision_id=p.id, text=text
            ).pruned_text
        except InvalidOutputError as e:
            logger.debug("%s: pruning gave no usable reply (%s); using the original text", p.uid, e.reason)
            counts["pruning_invalid"] += 1
            return text
        missing = [i for i in dict.fromkeys(_SECTION_ID_RE.findall(text)) if i not in pruned.replace(" ", "")]
        if missing:
            logger.debug("%s: pruning dropped %s; using the original text", p.uid, missing)
            counts["pruning_fallbacks"] += 1
            return text
        return pruned

    def _call(self, agent: str, p: Provision, schema: type[M], counts: Counter[str], **variables: str) -> M:
        config: RunnableConfig = {
            "callbacks": self.callbacks,
            "run_name": agent,
            "tags": ["bifrost", agent],
            "metadata": {"provision_uid": p.uid, "agent": agent},
        }
        result = invoke_structured(
            self._model,
            self.prompts.get(agent),
            variables,
            schema,
            max_repairs=self.max_repairs,
            config=config,
            cache=cache_of(self.chat_model),
            mode=self.response_format,
        )
        counts["repairs"] += result.repairs
        return result.value

    def _failed(self, p: Provision, agent: str, reason: str) -> FailedItem:
        return FailedItem(corpus=p.corpus, provision_id=p.id, agent=agent, reason=reason)

    # --- checks code enforces ------------------------------------------------------------------

    def _checked_triples(
        self, entities: list[ExtractedEntity], triples: list[TripleOut], counts: Counter[str]
    ) -> list[ExtractedTriple]:
        names = {entity_key(e.name): e.name for e in entities}
        out: dict[tuple[str, str, str], ExtractedTriple] = {}
        for t in triples:
            head, tail = names.get(entity_key(t.head)), names.get(entity_key(t.tail))
            if head is None or tail is None or head == tail:
                counts["rejected_triples"] += 1
                logger.debug("rejected triple %s: head or tail not a validated entity", t)
                continue
            relation = to_snake_case(t.relation)
            if not is_valid_relation(relation):
                counts["invalid_relations"] += 1
                continue
            out.setdefault((head, relation, tail), ExtractedTriple(head=head, relation=relation, tail=tail))
        return list(out.values())

    def _checked_refs(self, p: Provision, raw_ids: list[str], counts: Counter[str]) -> list[str]:
        refs: dict[str, None] = {}
        for raw in raw_ids:
            try:
                normalized = self.section_ref_validator(raw, p)
            except (BifrostError, ValueError):
                normalized = None
            if normalized is None:
                counts["dropped_section_refs"] += 1
                logger.debug("%s: dropped section id %r", p.uid, raw)
            elif normalized != p.id:
                refs[normalized] = None
        return list(refs)

    def _extraction(
        self, p: Provision, entities: list[ExtractedEntity], triples: list[ExtractedTriple], refs: list[str]
    ) -> Extraction:
        return Extraction(
            corpus=p.corpus,
            provision_id=p.id,
            entities=tuple(entities),
            triples=tuple(triples),
            section_refs=tuple(refs),
            extractor=self.name,
        )


def _entities_json(entities: Sequence[ExtractedEntity]) -> str:
    return json.dumps([e.model_dump() for e in entities], ensure_ascii=False, indent=1)


def _triples_json(triples: Sequence[TripleOut]) -> str:
    return json.dumps([t.model_dump() for t in triples], ensure_ascii=False, indent=1)
