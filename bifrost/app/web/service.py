"""What the pages and the JSON API share: the served corpora and `ask` (the input rules live in
`bifrost.app.inputs`, shared with the MCP server)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from bifrost.app.facade import Bifrost
from bifrost.app.inputs import AskOptions, check_as_of, check_corpus, check_question
from bifrost.core.errors import BifrostError
from bifrost.core.types import Answer
from bifrost.app.web.views import EntityMentions

log = logging.getLogger(__name__)


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

    def require_corpus(self, corpus: str, several: bool = False) -> None:
        check_corpus(corpus, self.corpora(), several)

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

    def ask(self, question: str, corpus: str, options: AskOptions | None = None, as_of: str | None = None) -> Answer:
        """Validate, then answer through the facade (the retriever is built once, under a lock);
        ``as_of`` (a date or an edition number) answers from the edition valid then."""
        q = check_question(question)
        when = check_as_of(as_of)
        self.require_corpus(corpus, several=True)
        with self._retriever_lock:
            self.bifrost.warm_up(corpus)
        config = None
        updates = options.model_dump(exclude_none=True) if options else {}
        if updates:
            config = self.bifrost.retrieval_config.model_copy(update=updates)
        return self.bifrost.ask(q, corpus, config, as_of=when)
