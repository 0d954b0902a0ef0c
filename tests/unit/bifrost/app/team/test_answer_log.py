"""The record of answers: every answer asked by someone is kept whole, each principal sees what their role
allows, a store that cannot be written costs no answer, and retention prunes old records."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from bifrost.app.facade import Bifrost
from bifrost.app.team.answer_log import NOT_RECORDED
from bifrost.core.access import LOCAL, Principal, Role
from bifrost.core.errors import NotFoundError
from bifrost.core.settings import Settings
from bifrost.core.store import team_tables
from bifrost.core.store.sql_models import utcnow

Q = "What must an employee constructing a leading edge be protected by?"
RITA = Principal(user="rita", role=Role.READER, corpora=("mini",))
RAY = Principal(user="ray", role=Role.READER, corpora=("mini",))
REV_MINI = Principal(user="rev", role=Role.REVIEWER, corpora=("mini",))
REV_SECRET = Principal(user="sam", role=Role.REVIEWER, corpora=("secret",))


def test_an_answer_asked_by_someone_is_on_the_record_whole(two_corpora: Bifrost):
    answer = two_corpora.ask(Q, "mini", asked_by=RITA, channel="web")
    rec = two_corpora.answer_log.get(answer.record_id, RITA)
    assert (rec.user, rec.channel, rec.corpus, rec.question) == ("rita", "web", "mini", Q)
    assert rec.editions == {"mini": two_corpora.sql.current_edition("mini").number}
    assert rec.citations == [c.id for c in answer.citations] and rec.citations
    assert rec.outcome == answer.outcome.value
    assert rec.answer["statements"] == answer.model_dump(mode="json")["statements"]
    assert rec.code_version.startswith("bifrost-rag ") and rec.models["embedding"]


def test_an_answer_asked_through_the_python_api_alone_is_not_recorded(two_corpora: Bifrost):
    before = two_corpora.answer_log.count()
    assert two_corpora.ask(Q, "mini").record_id is None
    assert two_corpora.answer_log.count() == before


def test_readers_see_their_own_reviewers_their_corpora_admins_all(two_corpora: Bifrost):
    mine = two_corpora.ask(Q, "mini", asked_by=RITA).record_id
    theirs = two_corpora.ask(Q, "mini", asked_by=RAY).record_id
    hidden = two_corpora.ask("anchorage inspection", "secret", asked_by=LOCAL).record_id
    assert two_corpora.answer_log.get(mine, RITA).id == mine
    with pytest.raises(NotFoundError, match="no answer record"):
        two_corpora.answer_log.get(theirs, RITA)
    assert {r.user for r in two_corpora.answer_log.list(RITA, limit=1000)} == {"rita"}
    assert two_corpora.answer_log.get(theirs, REV_MINI).id == theirs
    with pytest.raises(NotFoundError, match="no answer record"):
        two_corpora.answer_log.get(hidden, REV_MINI)
    assert all(r.corpus == "mini" for r in two_corpora.answer_log.list(REV_MINI, limit=1000))
    assert [r.id for r in two_corpora.answer_log.list(REV_SECRET, limit=1000)] == [hidden]
    assert {mine, theirs, hidden} <= {r.id for r in two_corpora.answer_log.list(LOCAL, limit=1000)}


def test_a_store_that_refuses_the_record_still_answers_warns_and_counts(two_corpora: Bifrost):
    engine = two_corpora.sql.engine
    with engine.begin() as conn:  # the SQL store itself refuses: SQLite aborts every insert into the table
        conn.execute(
            text(
                "CREATE TRIGGER no_records BEFORE INSERT ON answer_records "
                "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
            )
        )
    try:
        failed = two_corpora.answer_log.failures
        answer = two_corpora.ask(Q, "mini", asked_by=RITA)
        assert answer.citations and answer.record_id is None
        assert answer.warnings == [NOT_RECORDED]
        assert two_corpora.answer_log.failures == failed + 1
    finally:
        with engine.begin() as conn:
            conn.execute(text("DROP TRIGGER no_records"))


def test_recording_off_keeps_nothing(tmp_path, two_corpora: Bifrost):
    bf = Bifrost(two_corpora.settings.model_copy(update={"record_answers": False}))
    try:
        before = bf.answer_log.count()
        answer = bf.ask(Q, "mini", asked_by=RITA)
        assert answer.record_id is None and answer.warnings == []
        assert bf.answer_log.count() == before
    finally:
        bf.close()


def test_records_older_than_the_retention_are_pruned(tmp_path):
    bf = Bifrost(Settings(home=tmp_path / "home", answer_retention_days=30))
    try:
        from bifrost.core.access import AnswerRecord

        def rec(rid: str, days_ago: int) -> AnswerRecord:
            return AnswerRecord(
                id=rid,
                asked_at=utcnow() - timedelta(days=days_ago),
                user="u",
                channel="cli",
                corpus="c",
                question="q",
                outcome="answered",
            )

        with bf.sql.session() as s:
            team_tables.add_record(s, rec("old", 31))
            team_tables.add_record(s, rec("new", 29))
        assert bf.answer_log.prune() == 1
        assert [r.id for r in bf.answer_log.list(LOCAL)] == ["new"]
    finally:
        bf.close()
