"""What the pages and the JSON API share: the corpora a principal may read here, `ask` on the record, and
the answer records a principal may see (the input rules live in `bifrost.app.inputs`, shared with MCP)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from bifrost.app.facade import Bifrost
from bifrost.app.inputs import AskOptions, check_as_of, check_corpus, check_question
from bifrost.app.team.policy import scoped_corpus
from bifrost.app.team.sessions import Sessions, session_key
from bifrost.core.access import LOCAL, Principal
from bifrost.core.errors import BifrostError
from bifrost.core.answer_types import Answer
from bifrost.app.web.views import EntityMentions

log = logging.getLogger(__name__)


class WebState:
    """The injected facade plus what the web layer keeps: served corpora, sessions, entity mentions, locks."""

    def __init__(
        self, bifrost: Bifrost, corpora: Sequence[str] | None = None, auth_required: bool = False
    ) -> None:
        self.bifrost = bifrost
        self._corpora = list(corpora) if corpora else None
        self.mentions = EntityMentions(bifrost)
        self._retriever_lock = threading.Lock()
        self.auth_required = auth_required
        self.sessions = (
            Sessions(session_key(bifrost.settings), bifrost.settings.session_hours) if auth_required else None
        )
        self.answer_log = bifrost.answer_log  # made now, before any worker forks: its failure count is shared

    def corpora(self, principal: Principal = LOCAL) -> list[str]:
        """Corpora this server offers the principal: the ones given at startup (else every ingested one) in
        its scope."""
        served = list(self._corpora) if self._corpora is not None else self.bifrost.corpora()
        return principal.readable(served)

    def default_corpus(self, principal: Principal = LOCAL) -> str | None:
        """Every rulebook the principal may read when there are several (the router chooses), else the one."""
        names = self.corpora(principal)
        return "all" if len(names) > 1 else (names[0] if names else None)

    def require_corpus(self, corpus: str, principal: Principal = LOCAL, several: bool = False) -> str:
        """The corpus (``all`` expanded to what the principal may read), else 403 outside its scope or 404."""
        readable = self.corpora(principal)
        corpus = scoped_corpus(corpus, readable, principal) if several else corpus
        if not several:
            principal.require_corpus(corpus)
        check_corpus(corpus, readable, several)
        return corpus

    @property
    def mode(self) -> str:
        return "extractive" if self.bifrost.chat_model is None else "llm"

    def warm_up(self, corpora: Sequence[str] | None = None) -> dict[str, float]:
        """Load the retriever of each corpus and answer one question, and the router among them, so the first
        request is fast."""
        seconds = {}
        names = list(corpora or self.corpora())
        for corpus in names:
            t0 = time.perf_counter()
            try:
                self.ask("What does this regulation require?", corpus, record=False)
            except BifrostError as e:
                log.warning("warm-up of corpus %r failed: %s", corpus, e)
                continue
            seconds[corpus] = time.perf_counter() - t0
            log.info("corpus %r ready in %.1f s", corpus, seconds[corpus])
        if len(seconds) > 1:  # the router that chooses among them (every rulebook is the page's default)
            self.bifrost.warm_up(",".join(seconds))
        return seconds

    def ask(
        self,
        question: str,
        corpus: str,
        options: AskOptions | None = None,
        as_of: str | None = None,
        principal: Principal = LOCAL,
        channel: str = "api",
        record: bool = True,
    ) -> Answer:
        """Validate (question, edition, the principal's scope), then answer through the facade, on the record
        under the principal and ``channel``; the retriever is built once, under a lock."""
        q = check_question(question)
        when = check_as_of(as_of)
        corpus = self.require_corpus(corpus, principal, several=True)
        with self._retriever_lock:
            self.bifrost.warm_up(corpus)
        config = None
        updates = options.model_dump(exclude_none=True) if options else {}
        if updates:
            config = self.bifrost.retrieval_config.model_copy(update=updates)
        return self.bifrost.ask(
            q, corpus, config, as_of=when, asked_by=principal if record else None, channel=channel
        )
