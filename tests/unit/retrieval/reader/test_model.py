"""A stored reader is used only when it fits the home: missing, stale or corrupt gives one warning line and
None."""

from __future__ import annotations

import logging

from bifrost.retrieval.reader.model import MODEL, Cuts, ReaderCard, load_reader, reader_folder, stale_reason


def test_a_reader_for_another_corpus_embedding_model_or_ranker_is_stale():
    card = ReaderCard(corpus="osha-1926", base_model="m", embedding_model="e", ranker_sha256="abc")
    assert stale_reason(card, "osha-1926", "e", "abc") is None
    assert "corpus 'osha-1926'" in stale_reason(card, "adgm", "e", "abc")
    assert "embedding model" in stale_reason(card, "osha-1926", "other", "abc")
    assert "ranker was retrained" in stale_reason(card, "osha-1926", "e", "def")


def test_missing_stale_and_corrupt_readers_warn_once_and_are_not_used(tmp_path, caplog):
    folder = reader_folder(tmp_path, "osha 1926")
    assert folder.name == "reader-osha_1926"
    with caplog.at_level(logging.WARNING):
        assert load_reader(folder, "osha-1926", "e", "") is None  # an untrained home: nothing to say
        assert not caplog.records
        assert load_reader(folder, "osha-1926", "e", "abc") is None
    assert len(caplog.records) == 1 and "no reader trained" in caplog.text
    folder.mkdir(parents=True)
    ReaderCard(corpus="osha-1926", base_model="m", embedding_model="e", ranker_sha256="old").save(folder)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert load_reader(folder, "osha-1926", "e", "abc") is None
    assert len(caplog.records) == 1 and "retrained" in caplog.text
    ReaderCard(corpus="osha-1926", base_model="m", embedding_model="e", ranker_sha256="abc").save(folder)
    (folder / MODEL).write_bytes(b"not an onnx file")
    (folder / "tokenizer.json").write_text("{}")
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert load_reader(folder, "osha-1926", "e", "abc") is None
    assert (
        len(caplog.records) == 1 and "corrupt" in caplog.text and "\n" not in caplog.records[0].getMessage()
    )
    (folder / "reader-card.json").write_text("{not json")
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert load_reader(folder, "osha-1926", "e", "abc") is None
    assert "unreadable" in caplog.text


def test_the_card_round_trips_with_its_cuts(tmp_path):
    card = ReaderCard(corpus="c", base_model="m", cuts={"cite": 0.35, "stated": 0.12})
    card.save(tmp_path)
    assert ReaderCard.read(tmp_path).cut == Cuts(cite=0.35, stated=0.12)


def test_without_the_experiments_extra_a_fitting_reader_is_not_used_and_the_line_names_the_extra(
    tmp_path, caplog, monkeypatch
):
    from bifrost.retrieval.reader import model

    folder = reader_folder(tmp_path, "osha-1926")
    folder.mkdir(parents=True)
    ReaderCard(corpus="osha-1926", base_model="m", embedding_model="e", ranker_sha256="abc").save(folder)
    monkeypatch.setattr(model, "has_module", lambda name: name != "onnxruntime")
    with caplog.at_level(logging.WARNING):
        assert load_reader(folder, "osha-1926", "e", "abc") is None
    assert len(caplog.records) == 1 and "'experiments' extra" in caplog.text
