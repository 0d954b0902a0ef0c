"""Ingest reconciles a second source against what is stored instead of overwriting it."""

from pathlib import Path

from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import ParsedDocument, Provision, ProvisionKind, SourceDocument
from bifrost.graph_builders.ingest import split_against_stored, store_documents
from bifrost.core.types import IngestReport


def doc(name: str, texts: dict[str, str]) -> ParsedDocument:
    return ParsedDocument(
        document=SourceDocument(corpus="c", name=name, format="json", checksum=name),
        provisions=tuple(
            Provision(corpus="c", id=pid, kind=ProvisionKind.PARAGRAPH, text=t, order=i, document=name)
            for i, (pid, t) in enumerate(texts.items())
        ),
    )


def test_equal_text_from_a_second_source_is_verified_not_rewritten():
    stored = {p.id: p for p in doc("a.json", {"1": "same"}).provisions}
    write, verified, review = split_against_stored(stored, doc("b.pdf", {"1": "same"}))
    assert write == [] and verified == {"1"} and review == []


def test_different_text_from_a_second_source_becomes_a_review_item():
    stored = {p.id: p for p in doc("a.json", {"1": "shall be 42 inches"}).provisions}
    write, verified, review = split_against_stored(
        stored, doc("b.pdf", {"1": "shall be 24 inches", "2": "new"})
    )
    assert [p.id for p in write] == ["2"] and verified == set()
    assert review[0].provision_id == "1" and review[0].source_a == "a.json" and "24 inches" in review[0].diff


def test_the_same_document_again_updates_its_own_provisions():
    stored = {p.id: p for p in doc("a.json", {"1": "old"}).provisions}
    write, _, review = split_against_stored(stored, doc("a.json", {"1": "new"}))
    assert [p.text for p in write] == ["new"] and review == []


def test_store_documents_keeps_the_first_text_and_records_the_disagreement(tmp_path: Path):
    sql = SqlStore(f"sqlite:///{tmp_path / 'x.db'}")
    report = IngestReport(corpus="c")
    store_documents(
        sql, [doc("a.json", {"1": "one", "2": "two"}), doc("b.html", {"1": "one", "2": "TWO"})], report
    )
    assert sql.get_provision("c", "2").text == "two"
    assert report.verified == 1 and report.review_items == 1
    assert [it.provision_id for _, it in sql.review_items("c")] == ["2"]
