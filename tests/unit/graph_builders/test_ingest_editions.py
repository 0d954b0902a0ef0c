"""Ingest records editions: point-in-time downloads of one part are one document in several editions."""

from __future__ import annotations

import shutil
from pathlib import Path

from bifrost.core.store.sql_store import SqlStore
from bifrost.graph_builders.ingest import ingest_sources
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_xml import document_name
from tests.conftest import FIXTURES

XML = FIXTURES / "ecfr" / "part-9999-mini.xml"


def test_a_dated_download_names_the_document_without_its_date_and_gives_the_edition_date():
    assert document_name(Path("title-29-part-1926-2024-01-01.xml")) == (
        "title-29-part-1926.xml",
        "2024-01-01",
    )
    assert document_name(Path("part-9999-mini.xml")) == ("part-9999-mini.xml", None)


def test_two_dated_downloads_of_one_part_are_two_editions_of_one_document(tmp_path: Path):
    old, new = tmp_path / "title-29-part-9999-2024-01-01.xml", tmp_path / "title-29-part-9999-2025-06-01.xml"
    shutil.copy(XML, old)
    new.write_text(
        XML.read_text().replace("Top rails shall be 42 inches high.", "Top rails shall be 45 inches high.")
    )
    sql = SqlStore(f"sqlite:///{tmp_path / 'b.db'}")
    first = ingest_sources(sql, "p9999", [old])
    second = ingest_sources(sql, "p9999", [new])
    assert (first.edition.number, first.edition.date) == (1, "2024-01-01")
    assert (second.edition.number, second.edition.date) == (2, "2025-06-01")
    assert second.updated == ["9999.502(b)(1)"] and second.review_items == 0 and not second.removed
    assert {p.document for p in sql.provisions("p9999")} == {"title-29-part-9999.xml"}


def test_a_file_that_cannot_be_stored_is_reported_and_the_others_still_form_the_edition(tmp_path: Path):
    sql = SqlStore(f"sqlite:///{tmp_path / 'b.db'}")
    bad = tmp_path / "broken.xml"
    bad.write_text("<DIV1><oops")
    report = ingest_sources(sql, "p9999", [bad, XML], date="2024-01-01")
    assert len(report.errors) == 1 and report.errors[0].startswith(str(bad))
    assert report.files_ok == [XML.name] and report.edition.sources == (XML.name,)
