"""What the facade adds for a team's server: its users and tokens, the record of answers given, replaying a
recorded answer, and reviewing one. A mixin of `Bifrost`, kept apart so the facade's file stays about
asking."""

from __future__ import annotations

from collections.abc import Sequence

from bifrost.app.team.answer_log import NOT_RECORDED, AnswerLog
from bifrost.app.team.replay import compare_replay
from bifrost.app.team.users import Users
from bifrost.app.team.versions import code_version, model_versions
from bifrost.core.access import LOCAL, Action, Principal, Replay
from bifrost.core.errors import BifrostError
from bifrost.core.precedent_types import AnswerReview
from bifrost.core.answer_types import Answer


class TeamServing:
    """Users, the answer record, replay and reviews of recorded answers (see `bifrost.app.team`); it uses the
    facade's stores, editions and pipeline (``sql``, ``settings``, ``corpora``, ``edition``, ``_ask_at``)."""

    _users: Users | None = None
    _answer_log: AnswerLog | None = None

    @property
    def users(self) -> Users:
        """Users and tokens of this home (`bifrost users`)."""
        if self._users is None:
            self._users = Users(self.sql, self.corpora)
        return self._users

    @property
    def answer_log(self) -> AnswerLog:
        """The record of answers given (`bifrost answers`)."""
        if self._answer_log is None:
            self._answer_log = AnswerLog(self.sql, self.settings)
        return self._answer_log

    def _record(
        self, answer: Answer, asker: Principal, channel: str, editions: dict[str, int], as_of: str | None
    ) -> None:
        if not self.answer_log.enabled:
            return
        record_id = self.answer_log.record(
            answer,
            asker,
            channel,
            editions,
            as_of,
            code_version(),
            model_versions(self.settings, list(editions)),
        )
        if record_id is None:
            answer.warnings.append(NOT_RECORDED)
        answer.record_id = record_id

    def replay(self, record_id: str, principal: Principal = LOCAL) -> Replay:
        """A recorded answer asked again on its own edition and on today's, with what changed against the
        record."""
        rec = self.answer_log.get(record_id, principal)
        corpora = self.corpora_in(rec.corpus)
        then = {
            c: self.edition(c, rec.editions[c]) if c in rec.editions else self._as_of(c, rec.as_of)
            for c in corpora
        }
        now = {c: self._as_of(c, None) for c in corpora}
        same = self._ask_at(rec.question, rec.corpus, corpora, then, None)
        current = self._ask_at(rec.question, rec.corpus, corpora, now, None)
        return compare_replay(rec, same, current, {c: e.number for c, e in now.items()})

    def review_record(
        self,
        record_id: str,
        principal: Principal,
        *,
        right: Sequence[str] = (),
        wrong: Sequence[str] = (),
        added: Sequence[str] = (),
        team: str = "",
    ) -> AnswerReview:
        """Review an answer on the record, as it was given (its citations, its edition), by ``principal``
        (a reviewer who may read its corpus); stored and turned into a precedent as `review_answer` does."""
        from bifrost.graph_builders.precedents.review import record_review

        principal.require(Action.REVIEW)
        rec = self.answer_log.get(record_id, principal)
        if len(rec.editions) != 1:
            raise BifrostError(
                "an answer over several corpora is reviewed per corpus: ask each corpus and review that "
                "answer"
            )
        corpus, edition = next(iter(rec.editions.items()))
        review = record_review(
            self.sql, corpus, rec.question, rec.citations, right, wrong, added, principal.user, team, edition
        )
        self.pipeline.forget(corpus)
        return review
