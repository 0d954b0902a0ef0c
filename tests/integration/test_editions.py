"""Editions end to end on every store: an amended edition B applied over A equals a clean build of B.

Edition B is made from the mini part by `tests.editions_fixture` (a section reserved, a paragraph
inserted with renumbering, text changed, a cross-reference added and one removed, a definition
changed, a paragraph appended). After applying it, the SQL store and the graph store hold what a
clean build of B holds, `graph check` finds no difference, and edition A can still be read back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.core.types import EdgeType
from tests.editions_fixture import MINI_PLAN, make_edition_b
from tests.unit.mini_corpus import MINI

DATE_A, DATE_B = "2024-01-01", "2025-01-01"


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def settings_for(request, tmp_path):
    """Settings of a fresh home on each graph store (Neo4j: the test server, corpus cleared after)."""
    made: list[Bifrost] = []

    def make(name: str) -> Settings:
        if request.param == "embedded":
            return Settings(home=tmp_path / name)
        from tests.integration.neo4j_env import neo4j_uri

        return Settings(home=tmp_path / name, store="neo4j", neo4j_uri=neo4j_uri())

    yield make
    for bf in made:
        bf.close()


def edition_b(folder: Path) -> Path:
    """Edition B under the same file name as A (the same source, amended)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MINI.name
    path.write_text(json.dumps(make_edition_b(json.loads(MINI.read_text()), MINI_PLAN)))
    return path


def build(bf: Bifrost, corpus: str, path: Path, date: str) -> None:
    report = bf.ingest(corpus, [path], date=date)
    assert report.files_ok, report.errors
    bf.build_navigator(corpus)
    bf.build_entities(corpus, "offline")


def inventory(bf: Bifrost, corpus: str) -> dict:
    """Everything both stores hold for a corpus, as comparable sets."""
    g = bf.graph
    return {
        "provisions": {p.id: p.model_dump(exclude={"document"}) for p in bf.sql.provisions(corpus)},
        "references": sorted(
            (r.source_id, r.raw, r.target_id or "", r.reason or "") for r in bf.sql.references(corpus)
        ),
        "sections": g.node_uids(corpus, "Section"),
        "edges": {t: set(g.edges(corpus, t)) for t in EdgeType},
        "entities": g.node_uids(corpus, "Entity"),
    }


def test_applying_edition_b_over_a_equals_a_clean_build_of_b(settings_for, tmp_path):
    corpus = "mini-editions"
    clean = Bifrost(settings_for("clean"))
    try:
        build(clean, corpus, edition_b(tmp_path / "b"), DATE_B)
        expected = inventory(clean, corpus)
        clean.graph.clear(corpus)
    finally:
        clean.close()

    bf = Bifrost(settings_for("amended"))
    try:
        build(bf, corpus, MINI, DATE_A)
        assert bf.check(corpus).ok
        report = bf.ingest(corpus, [edition_b(tmp_path / "b")], date=DATE_B)
        assert report.edition is not None and report.edition.number == 2
        assert "1926.502(b)(1)" in report.removed and report.updated
        bf.build_navigator(corpus)
        navigator = ("Section", "HAS", "REFERS_TO")
        assert not [d for d in bf.check(corpus).differences if d.item in navigator]
        bf.build_entities(corpus, "offline")
        check = bf.check(corpus)
        assert check.ok, check.differences
        assert inventory(bf, corpus) == expected
    finally:
        bf.graph.clear(corpus)
        bf.close()


class TestEditionsInSql:
    """Editions on the embedded default: history, point in time, diff, refusals."""

    corpus = "mini-editions"

    @pytest.fixture
    def bf(self, tmp_path):
        bf = Bifrost(Settings(home=tmp_path / "home"))
        build(bf, self.corpus, MINI, DATE_A)
        self.a = {p.id: p for p in bf.sql.provisions(self.corpus)}
        self.a_refs = sorted(bf.sql.references(self.corpus), key=lambda r: (r.source_id, r.raw))
        bf.ingest(self.corpus, [edition_b(tmp_path / "b")], date=DATE_B)
        bf.build_navigator(self.corpus)
        yield bf
        bf.close()

    def test_each_changing_ingest_records_one_edition_with_its_date(self, bf):
        eds = bf.editions(self.corpus)
        assert [(e.number, e.date) for e in eds] == [(1, DATE_A), (2, DATE_B)]
        assert eds[1].removed > 0 and eds[1].changed > 0 and eds[1].added > 0

    def test_the_same_edition_again_changes_nothing(self, bf, tmp_path):
        report = bf.ingest(self.corpus, [tmp_path / "b" / MINI.name], date=DATE_B)
        assert report.edition is None and not report.updated and not report.removed and report.added == 0
        assert len(bf.editions(self.corpus)) == 2

    def test_an_older_edition_is_refused_unless_asked_for(self, bf):
        with pytest.raises(ConfigError, match="older than its current edition 2.*--allow-older"):
            bf.ingest(self.corpus, [MINI], date=DATE_A)
        report = bf.ingest(self.corpus, [MINI], date=DATE_A, allow_older=True)
        assert report.edition is not None and report.edition.number == 3

    def test_the_edition_valid_on_a_date_reads_back_exactly_as_it_was(self, bf):
        old = bf.edition(self.corpus, "2024-06-30")
        assert old.number == 1
        then = {
            p.id: p.model_copy(update={"order": 0}) for p in bf.sql.provisions_at(self.corpus, old.number)
        }
        assert then == {i: p.model_copy(update={"order": 0}) for i, p in self.a.items()}  # order: today's
        refs = sorted(bf.sql.references_at(self.corpus, old.number), key=lambda r: (r.source_id, r.raw))
        assert refs == self.a_refs

    def test_a_date_before_the_first_edition_is_a_clear_error(self, bf):
        from bifrost.core.errors import NotFoundError

        with pytest.raises(NotFoundError, match="no edition valid on 2020-01-01"):
            bf.edition(self.corpus, "2020-01-01")

    def test_a_retired_provision_is_no_longer_current_but_kept_in_history(self, bf):
        assert bf.provision(self.corpus, "1926.502(b)(1)") is None
        ((frm, to, change, old),) = bf.history(self.corpus, "1926.502(b)(1)")
        assert (frm, to, change) == (1, 2, "removed") and old == self.a["1926.502(b)(1)"]

    def test_diff_lists_what_changed_and_alerts_on_citations_of_repealed_rules(self, bf):
        d = bf.diff(self.corpus)
        assert (d.from_edition.number, d.to_edition.number) == (1, 2)
        assert "1926.502(b)(1)" in d.removed and "1926.501(c)" in d.added
        changed = {c.id: c for c in d.changed}
        assert changed["1926.501(b)(1)"].fields == ["text"]  # its document order shifted too: not a change
        assert changed["1926.501(b)(1)"].text_diff == (
            "Each employee shall be protected from [-falling.-]{+falling by guardrail systems or safety net "
            "systems.+}"
        )
        assert ("1926.500(b)[Leading edge]", "1926.500(c)[Leading edge]") in {
            (m.old_id, m.new_id) for m in d.moved
        }
        added = {(r.source, r.target) for r in d.refers_to_added}
        assert ("1926.501(b)(2)(ii)", "1926.500(a)") in added
        assert any(
            a.was_target.startswith("1926.502") and a.target_status == "removed" for a in d.newly_dangling
        )
        assert any(r.target.startswith("1926.502") for r in d.refers_to_removed)
