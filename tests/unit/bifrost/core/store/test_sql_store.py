"""The SQL store behaves the same on SQLite and on a real PostgreSQL: round trips, idempotent upserts,
replaced references, deduplicated review items, one-line errors, and one writer per corpus at a time."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import insert

from bifrost.core.errors import StoreError
from bifrost.core.store.sql_models import ProvisionRow
from bifrost.core.store.sql_store import SqlStore, provision_to_row
from bifrost.core.types import Provision, ProvisionKind, Reference, ReviewItem, SourceDocument
from tests.contract.sample_graph import C, TREE
from tests.integration.postgres_env import SQL_KINDS, sql_url

DOC = SourceDocument(corpus=C, name="part.json", format="ecfr-json", checksum="abc123")


@pytest.fixture(params=SQL_KINDS)
def store(request, tmp_path):
    with sql_url(request.param, tmp_path) as url:
        st = SqlStore(url)
        yield st
        st.dispose()


def write(store: SqlStore, provisions, doc: SourceDocument = DOC):
    with store.session() as s:
        store.record_document(s, doc)
        return store.upsert_provisions(s, provisions)


def test_corpora_are_created_once_with_their_jurisdiction(store):
    store.ensure_corpus(C, "us-cfr")
    store.ensure_corpus(C, "adgm")
    store.ensure_corpus("adgm", "adgm")
    assert store.corpora() == ["adgm", C]
    assert store.jurisdiction(C) == "us-cfr" and store.jurisdiction("nothing") is None


def test_provisions_round_trip_with_every_field_in_document_order(store):
    odd = Provision(
        corpus=C,
        id="1926.500(b)[Leading edge]",
        parent_id="1926.501",
        kind=ProvisionKind.DEFINITION,
        heading="Définition — “leading edge”",
        text="x" * 20_000 + " ✓ 中文",
        level=4,
        order=99,
        url=None,
        pages=(3, 4, 5),
        term="Leading edge",
        source_note="[59 FR 40730]",
        reserved=True,
        document="part.json",
    )
    write(store, [*reversed(TREE), odd])
    got = store.provisions(C)
    assert [p.id for p in got] == [p.id for p in TREE] + [odd.id]
    assert got[-1] == odd and got[0] == TREE[0]
    assert store.get_provision(C, odd.id) == odd and store.get_provision(C, "1926.999") is None
    assert [p.id for p in store.provisions(C, [TREE[3].id, TREE[1].id, "missing"])] == [
        TREE[1].id,
        TREE[3].id,
    ]
    assert [p.id for p in store.provision_page(C, 2, 3)] == [p.id for p in TREE[2:5]]
    assert store.count_provisions(C) == len(TREE) + 1


def test_writing_the_same_provisions_again_changes_nothing_and_a_changed_text_is_updated(store):
    first = write(store, TREE)
    again = write(store, TREE)
    changed = write(store, [TREE[9].model_copy(update={"text": "new text"})])
    assert (
        len(first.added) == len(TREE)
        and again.added == []
        and again.updated == []
        and again.unchanged == len(TREE)
    )
    assert changed.updated == [TREE[9].id] and store.get_provision(C, TREE[9].id).text == "new text"
    assert store.count_provisions(C) == len(TREE)


def test_references_are_replaced_per_extractor_and_filtered_by_dangling(store):
    refs = [
        Reference(corpus=C, source_id="a", raw="§ 1926.502", target_id="1926.502"),
        Reference(corpus=C, source_id="a", raw="§ 1910.1", reason="outside: part 1910"),
    ]
    store.replace_references(C, refs)
    store.replace_references(C, refs)
    store.replace_references(
        C, [Reference(corpus=C, source_id="b", raw="x", target_id="y", extractor="llm")], "llm"
    )
    assert store.references(C, dangling=None)[:2] == refs and len(store.references(C)) == 3
    assert store.references(C, dangling=True) == refs[1:]
    store.replace_references(C, [], "rules")
    assert [r.extractor for r in store.references(C)] == ["llm"]


def test_an_open_review_item_is_stored_once(store):
    item = ReviewItem(
        corpus=C,
        provision_id="1926.501",
        source_a="a.json",
        source_b="b.html",
        text_a="one",
        text_b="two",
        diff="-one +two",
        ratio=0.5,
    )
    with store.session() as s:
        assert store.add_review_items(s, [item, item]) == 1
    with store.session() as s:
        assert store.add_review_items(s, [item]) == 0
    assert [it for _, it in store.review_items(C)] == [item]


def test_meta_values_are_json_and_overwritten_per_key(store):
    store.set_meta(C, "dangling_references", {"count": 3, "by": ["a", "b"]})
    store.set_meta(C, "dangling_references", {"count": 4})
    store.set_meta("other", "dangling_references", {"count": 1})
    assert store.get_meta(C, "dangling_references") == {"count": 4}
    assert store.get_meta(C, "nothing") is None


def test_a_failed_transaction_stores_nothing_and_says_so_in_one_line(store):
    write(store, TREE[:2])
    with pytest.raises(StoreError) as caught, store.session() as s:
        store.record_document(s, DOC.model_copy(update={"name": "second.json"}))
        s.execute(insert(ProvisionRow), [provision_to_row(TREE[0])])  # the same primary key again
    message = str(caught.value)
    assert "\n" not in message and "INSERT" not in message
    assert "SQL store at" in message
    with store.session() as s:
        # was rolled back
        assert store.record_document(s, DOC.model_copy(update={"name": "second.json"})) is True


def test_a_second_writer_of_a_corpus_waits_for_the_first(store):
    other = SqlStore(store.url)  # its own engine: another session (PostgreSQL) or file handle (SQLite)
    held, released, seen = threading.Event(), threading.Event(), []

    def first() -> None:
        with store.writer_lock(C):
            held.set()
            time.sleep(0.5)  # the second writer is blocked meanwhile (if the lock works)
            released.set()

    def second() -> None:
        held.wait(10)
        with other.writer_lock(C):
            seen.append(released.is_set())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    other.dispose()
    assert seen == [True]


def test_the_writer_lock_is_reentrant_within_one_store(store):
    with store.writer_lock(C), store.writer_lock(C):
        store.ensure_corpus(C, "us-cfr")
    with store.writer_lock(C):  # released: taken again at once
        assert store.corpora() == [C]
