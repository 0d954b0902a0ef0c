"""`sql_error_line`: a SQL failure as one line, password hidden, no SQL text or help link, a hint for full
and read-only disks."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import OperationalError

from bifrost.core.store.engine import sql_error_line


def error(message: str) -> OperationalError:
    return OperationalError(
        "INSERT INTO provisions VALUES (?)", ("secret text",), sqlite3.OperationalError(message)
    )


def test_a_full_disk_is_one_line_with_the_file_and_what_to_do():
    line = sql_error_line("sqlite:////h/bifrost.db", error("database or disk is full"))
    assert line.startswith(
        "SQL store at SQLite file /h/bifrost.db: database or disk is full; free some space"
    )
    assert (
        "\n" not in line and "INSERT" not in line and "secret text" not in line and "sqlalche.me" not in line
    )


def test_a_read_only_database_says_it_is_not_writable():
    assert "not writable" in sql_error_line(
        "sqlite:////h/bifrost.db", error("attempt to write a readonly database")
    )


def test_the_password_of_a_server_url_is_hidden():
    line = sql_error_line("postgresql://bifrost:hunter2@db:5432/b", error("connection refused"))
    assert "hunter2" not in line and "db:5432/b" in line
