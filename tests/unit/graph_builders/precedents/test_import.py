"""Importing precedents into the SQL store, SQLite and PostgreSQL alike: citations resolved against the corpus
(outside ones kept, marked), the same file twice changes nothing, an edited precedent replaces its earlier
version."""

from __future__ import annotations

import json

import pytest

from bifrost.core.store.precedent_tables import count_precedents, load_precedents
from bifrost.core.store.sql_store import SqlStore
from bifrost.graph_builders.jurisdictions.registry import jurisdiction
from bifrost.graph_builders.precedents.load import import_precedents
from tests.integration.postgres_env import SQL_KINDS, sql_url
from tests.unit.tiny_corpus import CORPUS, tiny_provisions

US_CFR = jurisdiction("us-cfr")


@pytest.fixture(params=SQL_KINDS)
def store(request, tmp_path):
    """A SQL store of each kind holding the tiny corpus."""
    with sql_url(request.param, tmp_path) as url:
        sql = SqlStore(url)
        sql.ensure_corpus(CORPUS, US_CFR.name)
        with sql.session() as s:
            sql.upsert_provisions(s, tiny_provisions())
        yield sql
        sql.dispose()


LETTERS = [
    {
        "id": "loi-1",
        "title": "Guardrails on scaffold platforms.",
        "date": "2001-02-03",
        "cites": ["1926.450(a)", "1910.134"],
    },
    {"id": "loi-2", "title": "Ladder use.", "cites": ["1926.1053"]},
]


def write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_import_resolves_citations_and_keeps_those_outside_the_corpus(store, tmp_path):
    sql = store
    report = import_precedents(sql, CORPUS, write(tmp_path / "l.jsonl", LETTERS), US_CFR, issuer="OSHA")
    assert (report.added, report.cites_resolved, report.cites_outside) == (2, 2, 1)
    with sql.session() as s:
        first = load_precedents(s, CORPUS)[0]
    assert first.issuer == "OSHA" and first.resolved_ids == ("1926.450(a)",)
    assert (
        first.cites[1].written == "1910.134"
        and first.cites[1].target_id is None
        and "1910.134" in first.cites[1].reason
    )


def test_the_same_file_twice_changes_nothing_and_an_edit_replaces(store, tmp_path):
    sql = store
    path = write(tmp_path / "l.jsonl", LETTERS)
    import_precedents(sql, CORPUS, path, US_CFR)
    again = import_precedents(sql, CORPUS, path, US_CFR)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 2)
    edited = import_precedents(sql, CORPUS, write(path, [{**LETTERS[0], "title": "Edited title."}]), US_CFR)
    assert (edited.added, edited.updated, edited.unchanged) == (0, 1, 0)
    with sql.session() as s:
        assert count_precedents(s, CORPUS) == 2
        assert load_precedents(s, CORPUS)[0].title == "Edited title."


def test_a_bad_line_is_reported_and_the_rest_imported(store, tmp_path):
    sql = store
    path = tmp_path / "l.jsonl"
    path.write_text(json.dumps(LETTERS[0]) + "\n{oops\n" + json.dumps(LETTERS[1]) + "\n", encoding="utf-8")
    report = import_precedents(sql, CORPUS, path, US_CFR)
    assert report.added == 2 and report.errors == [
        "l.jsonl, line 2: not JSON (Expecting property name enclosed in double quotes)"
    ]
