"""The record of every answer given: written before the answer leaves the server (an acknowledged answer
is on disk), read back by who may see it, pruned after the retention the settings give.

A store that cannot be written never costs the asker the answer: it gets a warning that it was not
recorded, and the failure is counted (shared by every worker of the server) for `/api/health`."""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
import uuid
from collections.abc import Sequence

from bifrost.core.access import Action, AnswerRecord, Principal
from bifrost.core.errors import NotFoundError
from bifrost.core.settings import Settings
from bifrost.core.store import team_tables as tables
from bifrost.core.store.sql_models import utcnow
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.answer_types import Answer

log = logging.getLogger(__name__)
PRUNE_EVERY_SECONDS = 3600.0
NOT_RECORDED = (
    "this answer was not recorded (the answer store could not be written; the server log has the details)"
)


def new_record_id() -> str:
    return uuid.uuid4().hex[:16]


def stored_answer(answer: Answer) -> dict:
    """The answer as kept: everything the asker saw (statements, quotes, citations, verdict, precedents),
    without the ranked candidates and timings."""
    return answer.model_dump(mode="json", exclude={"retrieved", "timings", "record_id", "warnings"})


class AnswerLog:
    """Record answers and read them back within a principal's view."""

    def __init__(self, sql: SqlStore, settings: Settings) -> None:
        self.sql = sql
        self.settings = settings
        # anonymous shared memory: forked workers add to one count
        self._failures = multiprocessing.Value("q", 0)
        self._pruned_at = 0.0
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.settings.record_answers

    @property
    def failures(self) -> int:
        return int(self._failures.value)

    def record(
        self,
        answer: Answer,
        asker: Principal,
        channel: str,
        editions: dict[str, int],
        as_of: str | None,
        code_version: str,
        models: dict[str, str | None],
    ) -> str | None:
        """Write the record and commit it: its id, or None (logged, counted) when the store refused."""
        if not self.enabled:
            return None
        rec = AnswerRecord(
            id=new_record_id(),
            asked_at=utcnow(),
            user=asker.user,
            channel=channel,
            corpus=answer.corpus,
            editions=editions,
            as_of=as_of,
            question=answer.question,
            outcome=answer.outcome.value,
            verdict=answer.verdict.value if answer.verdict is not None else None,
            citations=[c.id if "," not in answer.corpus else f"{c.corpus}:{c.id}" for c in answer.citations],
            code_version=code_version,
            models=models,
            answer=stored_answer(answer),
        )
        try:
            with self.sql.session() as s:
                tables.add_record(s, rec)
        except Exception as e:  # noqa: BLE001 - any failure to record must not cost the answer
            with self._failures.get_lock():
                self._failures.value += 1
            log.error("answer to user %r not recorded: %s", asker.user, e)
            return None
        self._maybe_prune()
        return rec.id

    def _maybe_prune(self) -> None:
        days = self.settings.answer_retention_days
        if days is None:
            return
        now = time.monotonic()
        with self._lock:
            if self._pruned_at and now - self._pruned_at < PRUNE_EVERY_SECONDS:
                return
            self._pruned_at = now
        try:
            self.prune()
        except Exception as e:  # noqa: BLE001 - pruning is housekeeping
            log.warning("pruning answer records failed: %s", e)

    def prune(self) -> int:
        """Delete records older than the retention (none when it is unset): how many."""
        days = self.settings.answer_retention_days
        if days is None:
            return 0
        with self.sql.session() as s:
            return tables.prune_records(s, days)

    @staticmethod
    def _view(principal: Principal) -> tuple[str | None, Sequence[str] | None]:
        """(only this user's records, only these corpora): a reader sees their own answers; a reviewer those
        on the corpora of their scope; an admin every one."""
        if principal.may(Action.ADMIN):
            return None, None
        if principal.may(Action.REVIEW):
            return None, None if "*" in principal.corpora else principal.corpora
        return principal.user, None

    def list(
        self, principal: Principal, *, user: str | None = None, corpus: str | None = None, limit: int = 50
    ) -> list[AnswerRecord]:
        own, corpora = self._view(principal)
        if own is not None and user is not None and user != own:
            return []
        if corpus is not None:
            corpora = [corpus] if corpora is None or corpus in corpora else []
        with self.sql.session() as s:
            return tables.list_records(s, user=own or user, corpora=corpora, limit=limit)

    def get(self, record_id: str, principal: Principal) -> AnswerRecord:
        """One record; `NotFoundError` alike for a missing record and one this principal may not see."""
        with self.sql.session() as s:
            rec = tables.get_record(s, record_id)
        own, corpora = self._view(principal)
        visible = (
            rec is not None
            and (own is None or rec.user == own)
            and (corpora is None or set(rec.corpus.split(",")) <= set(corpora))
        )
        if not visible:
            raise NotFoundError(f"no answer record {record_id[:40]!r}")
        return rec

    def count(self) -> int:
        with self.sql.session() as s:
            return tables.count_records(s)
