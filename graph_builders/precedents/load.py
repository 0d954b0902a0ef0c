"""`bifrost precedents import`: read a precedent file, resolve its citations against the corpus, and store
the records (idempotent: the same file twice changes nothing; an edited precedent replaces its version)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from bifrost.core.store.precedent_tables import upsert_precedents
from bifrost.core.store.sql_store import SqlStore
from bifrost.graph_builders.jurisdictions.base import Jurisdiction
from bifrost.graph_builders.jurisdictions.registry import named_finder
from bifrost.graph_builders.precedents.read import read_precedent_file
from bifrost.graph_builders.precedents.resolve import resolve_precedents


class PrecedentImport(BaseModel):
    """What an import did: rows added, updated and unchanged, citations resolved and kept outside the corpus,
    and one line per line of the file that could not be read."""

    corpus: str
    file: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    cites_resolved: int = 0
    cites_outside: int = 0
    errors: list[str] = Field(default_factory=list)


def import_precedents(
    sql: SqlStore, corpus: str, path: Path, pack: Jurisdiction, issuer: str = ""
) -> PrecedentImport:
    """Import ``path`` (JSONL or CSV) into ``corpus``'s precedent bank, its citations read with ``pack``."""
    read = read_precedent_file(path)
    finder = named_finder(pack, corpus, sql.provisions(corpus))
    records = resolve_precedents(read.rows, corpus, finder, issuer=issuer, source=path.name)
    with sql.session() as s:
        done = upsert_precedents(s, records)
    cites = [c for p in records for c in p.cites]
    return PrecedentImport(
        corpus=corpus,
        file=str(path),
        added=len(done.added),
        updated=len(done.updated),
        unchanged=done.unchanged,
        cites_resolved=sum(c.resolved for c in cites),
        cites_outside=sum(not c.resolved for c in cites),
        errors=read.errors,
    )
