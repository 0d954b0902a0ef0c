"""What the pages and the JSON API share: the served corpora, question checks and `ask`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.app.facade import Bifrost
from bifrost.core.types import Answer
from bifrost.app.web.views import EntityMentions

log = logging.getLogger(__name__)

MAX_QUESTION = 2000


class InvalidQuestion(BifrostError, ValueError):
    """A question that is empty or too long (HTTP 400 on pages, 422 in the API)."""


class AskOptions(BaseModel):
    """Per-request retrieval knobs; unset ones keep the facade's configuration."""

    model_config = ConfigDict(extra="forbid")

    top_n: int | None = Field(default=None, ge=1, le=100, description="Length of the ranked retrieved list")
    cite_max: int | None = Field(default=None, ge=1, le=20, description="Most provisions the answer cites")
    depth: int | None = Field(default=None, ge=0, le=5, description="REFERS_TO hops followed from candidates")


def check_question(question: str | None) -> str:
    """The stripped question, or `InvalidQuestion` saying what is wrong."""
    q = (question or "").strip()
    if not q:
        raise InvalidQuestion("the question is empty: type a question about the regulations")
    if len(q) > MAX_QUESTION:
        raise InvalidQuestion(f"the question has {len(q)} characters; the limit is {MAX_QUESTION}")
    return q


class WebState:
    """The injected facade plus what the web layer caches: served corpora, entity mentions, locks."""

    def __init__(self, bifrost: Bifrost, corpora: Sequence[str] | None = None) -> None:
        self.bifrost = bifrost
        self._corpora = list(corpora) if corpora else None
        self.mentions = EntityMentions(bifrost)
        self._retriever_lock = threading.Lock()

    def corpora(self) -> list[str]:
        """Corpora offered by this server: the ones given at startup, else every ingested one."""
        return list(self._corpora) if self._corpora is not None else self.bifrost.corpora()

    def default_corpus(self) -> str | None:
        names = self.corpora()
        return "osha-1926" if "osha-1926" in names else (names[0] if names else None)

    def require_corpus(self, corpus: str) -> None:
        names = self.corpora()
        if corpus not in names:
            raise NotFoundError(f"unknown corpus {corpus!r}; loaded corpora: {', '.join(names) or 'none'}")

    @property
    def mode(self) -> str:
        return "extractive" if self.bifrost.chat_model is None else "llm"

    def warm_up(self, corpora: Sequence[str] | None = None) -> dict[str, float]:
        """Load the retriever of each corpus and answer one question, so the first request is fast."""
        seconds = {}
        for corpus in corpora or self.corpora():
            t0 = time.perf_counter()
            try:
                self.ask("What does this regulation require?", corpus)
            except BifrostError as e:
                log.warning("warm-up of corpus %r failed: %s", corpus, e)
                continue
            seconds[corpus] = time.perf_counter() - t0
            log.info("corpus %r ready in %.1f s", corpus, seconds[corpus])
        return seconds

    def ask(self, question: str, corpus: str, options: AskOptions | None = None) -> Answer:
        """Validate, then answer through the facade (the retriever is built once, under a lock)."""
        q = check_question(question)
        self.require_corpus(corpus)
        with self._retriever_lock:
            self.bifrost.retriever(corpus)
        config = None
        updates = options.model_dump(exclude_none=True) if options else {}
        if updates:
            config = self.bifrost.retrieval_config.model_copy(update=updates)
        return self.bifrost.ask(q, corpus, config)
