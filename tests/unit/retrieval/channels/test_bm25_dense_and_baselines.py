"""Baseline rankers over the tiny corpus: documents, BM25, dense (fake embedder, .npy cache), RRF."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.channels.dense import DenseRanker
from bifrost.retrieval.channels.documents import build_documents
from bifrost.eval.baselines.rrf import RrfRanker, rrf_fuse
from tests.unit.tiny_corpus import tiny_provisions


def test_documents_modes_give_sections_text_and_skip_containers():
    own = build_documents(tiny_provisions(), "own")
    assert "1926" not in own.ids and own.texts[own.ids.index("1926.651")] == "Excavations."
    ctx = build_documents(tiny_provisions(), "context")
    assert ctx.texts[ctx.ids.index("1926.651(a)(1)")].startswith("Excavations. Air sampling")
    agg = build_documents(tiny_provisions(), "aggregate")
    assert "Air sampling" in agg.texts[agg.ids.index("1926.651")]
    with pytest.raises(ValueError):
        build_documents(tiny_provisions(), "everything")


def test_rrf_fuse_by_hand():
    fused = dict(rrf_fuse([["a", "b"], ["b", "c"]], k=60))
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61) and fused["c"] == pytest.approx(1 / 62)
    assert list(dict(rrf_fuse([["a", "b"], ["b", "c"]])))[0] == "b"


def test_bm25_ranks_the_matching_paragraph_first(settings):
    r = Bm25Ranker(settings)
    r.warm_up("tiny")
    assert r.search("planks inspected", 3)[0].id == "1926.450(b)"
    assert r.search("zzz qqq", 3) == []
    with pytest.raises(ValueError):
        r.search("x", 0)


def test_bm25_stems_when_pystemmer_is_installed(settings):
    import Stemmer  # noqa: F401  (a core dependency: missing, the test fails instead of skipping)

    r = Bm25Ranker(settings)
    r.warm_up("tiny")
    assert r.search("inspecting plank", 3)[0].id == "1926.450(b)"
    assert r.describe()["stemmer"] == "snowball-english"


def test_the_bm25_index_is_keyed_on_whether_the_stemmer_was_used_not_on_the_stem_flag(settings, monkeypatch):
    from bifrost.retrieval.channels import bm25

    plain = Bm25Ranker(settings, stem=False)
    plain.warm_up("tiny")
    monkeypatch.setattr(bm25, "english_stemmer", lambda: None)  # stem asked for, but no stemmer loaded
    unstemmed = Bm25Ranker(settings, stem=True)
    unstemmed.warm_up("tiny")
    docs = build_documents(tiny_provisions(), "context")
    assert unstemmed.describe()["stemmer"] is None
    assert unstemmed.index_folder("tiny", docs) == plain.index_folder("tiny", docs)


def test_bm25_tokenizes_as_it_indexes_and_counts_documents_per_token(settings):
    r = Bm25Ranker(settings, stem=False)
    r.warm_up("tiny")
    assert r.tokenize("The ladders are secured") == ["ladders", "secured"]
    assert r.tokenize("  ") == []
    # 1926.450(a) and (b) (their section heading counts: context mode)
    assert r.document_frequency("scaffold") == 2
    # "trenches" is another token unstemmed
    assert r.document_frequency("trench") == 1 and r.document_frequency("zzz") == 0


@pytest.mark.parametrize("stem", [False, True])
def test_bm25_tokenizes_many_texts_in_one_pass_as_it_tokenizes_each(settings, stem):
    r = Bm25Ranker(settings, stem=stem)
    r.warm_up("tiny")
    texts = ["The ladders are secured", "  ", "", "Scaffolds and ladders; the trenches!", "the of and"]
    assert r.tokenize_all(texts) == [r.tokenize(t) for t in texts]
    assert r.tokenize_all([]) == []


def test_bm25_coverage_is_the_share_of_question_terms_a_document_holds_rare_terms_weighing_more(settings):
    r = Bm25Ranker(settings, stem=False)
    r.warm_up("tiny")
    plain, weighted = r.coverage("scaffold trench zzz")  # zzz is not indexed: out of the count
    at = {pid: i for i, pid in enumerate(r.ids)}
    scaffold, trench = at["1926.450(a)"], next(i for pid, i in at.items() if r.score_all("trench")[i] > 0)
    assert plain[scaffold] == plain[trench] == 0.5
    assert weighted[trench] > weighted[scaffold]  # "trench" is in 1 document, "scaffold" in 2
    assert plain.max() <= 1.0 and not r.coverage("zzz qqq")[0].any()


class FakeEmbedder:
    """Bag-of-letters vectors; counts calls so the cache can be checked."""

    calls = 0

    def embed(self, texts):
        FakeEmbedder.calls += len(texts)
        m = np.zeros((len(texts), 26), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    m[i, ord(ch) - 97] += 1
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


def test_dense_caches_the_corpus_matrix_by_model_and_content(settings):
    FakeEmbedder.calls = 0
    d = DenseRanker(settings, model="fake-model", embedder=FakeEmbedder())
    d.warm_up("tiny")
    first = FakeEmbedder.calls
    assert d.cache_file and d.cache_file.endswith(".npy") and "/index/tiny/dense-fake-model-" in d.cache_file
    d2 = DenseRanker(settings, model="fake-model", embedder=FakeEmbedder())
    d2.warm_up("tiny")
    assert FakeEmbedder.calls == first  # no re-embedding
    hits = d2.search("Ladders shall be secured against columns.", 2)
    assert hits[0].id == "1926.1053(b)" and hits[0].score >= hits[1].score


def test_dense_without_an_embedder_encodes_the_homes_model_as_the_home_does(settings):
    """The eval baselines build theirs so: the home's model on the home's runtime and ONNX export (one index
    shared with the retriever's dense channel); another model on its own."""
    from bifrost.core.embeddings import onnx_folder

    home_model = DenseRanker(settings).embedder
    assert home_model.onnx_dir == onnx_folder(settings.home)
    assert home_model.runtime == settings.embedding_runtime
    assert home_model.model_name_or_path == settings.embedding_model
    other = DenseRanker(settings, model="another-model").embedder
    assert other.onnx_dir is None and other.model_name_or_path == "another-model"


def test_rrf_ranker_fuses_children(settings):
    r = RrfRanker([Bm25Ranker(settings), DenseRanker(settings, model="fake", embedder=FakeEmbedder())])
    r.warm_up("tiny")
    top = r.search("scaffold guardrails", 3)
    assert top[0].id == "1926.450(a)" and len(top) == 3


def test_embed_reusing_embeds_only_the_texts_it_has_no_vector_for():
    from bifrost.retrieval.channels.dense import embed_reusing

    FakeEmbedder.calls = 0
    fake = FakeEmbedder()
    known = dict(zip(["abc", "xyz"], fake.embed(["abc", "xyz"])))
    FakeEmbedder.calls = 0
    m = embed_reusing(["xyz", "new text", "abc", "new text"], fake.embed, known)
    assert FakeEmbedder.calls == 1  # "new text" once; the others copied
    assert np.allclose(m[0], known["xyz"]) and np.allclose(m[2], known["abc"]) and np.allclose(m[1], m[3])
    assert np.allclose(m[1], fake.embed(["new text"])[0])


def test_a_past_edition_reuses_the_current_vectors_of_unchanged_documents_and_caches_its_own(
    settings, monkeypatch
):
    from bifrost.retrieval.channels import documents

    current = tiny_provisions()
    changed = [
        p.model_copy(update={"text": "Ladders shall be painted yellow."}) if p.id == "1926.1053(b)" else p
        for p in current
    ]
    monkeypatch.setattr(
        documents, "load_provisions", lambda s, c, edition=None: current if edition is None else changed
    )
    monkeypatch.setattr("bifrost.retrieval.channels.dense.load_provisions", documents.load_provisions)
    # the current matrix, cached
    DenseRanker(settings, model="fake-model", embedder=FakeEmbedder()).warm_up("tiny")
    FakeEmbedder.calls = 0
    past = DenseRanker(settings, model="fake-model", embedder=FakeEmbedder(), edition=1)
    past.warm_up("tiny")
    assert FakeEmbedder.calls == 1  # only the changed document
    assert past.search("painted yellow", 1)[0].id == "1926.1053(b)"
    FakeEmbedder.calls = 0
    again = DenseRanker(settings, model="fake-model", embedder=FakeEmbedder(), edition=1)
    again.warm_up("tiny")
    assert FakeEmbedder.calls == 0 and again.cache_file == past.cache_file  # keyed by the edition's content


def test_known_vectors_takes_a_cache_of_the_same_documents_in_another_order_but_never_other_texts(tmp_path):
    from bifrost.retrieval.channels.dense import cache_path, cached_matrix, known_vectors
    from bifrost.retrieval.channels.documents import Documents

    fake = FakeEmbedder()
    saved = Documents(["a", "b"], ["alpha text", "beta text"])
    cached_matrix(cache_path(tmp_path, "c", "m", saved), saved, fake.embed)
    reordered = Documents(["b", "a"], ["beta text", "alpha text"])
    known = known_vectors(cache_path(tmp_path, "c", "m", reordered), [reordered])
    assert set(known) == {"alpha text", "beta text"}
    changed = Documents(["b", "a"], ["beta text", "alpha text, amended"])
    assert known_vectors(cache_path(tmp_path, "c", "m", changed), [changed]) == {}
