"""The precedent channel: the most similar answered questions vote for what they cite; a question never sees
its own precedent (same id or same source URL)."""

from __future__ import annotations

import re

import numpy as np

from bifrost.core.precedent_types import Precedent, ResolvedCite
from bifrost.retrieval.channels.precedents import PrecedentIndex


class WordEmbedder:
    """A deterministic stand-in for the embedding model: a bag of hashed words, normalized."""

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in tokenize(text):
                out[row, sum(map(ord, word)) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def tokenize(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in {"a", "the", "of", "on", "is"}]


def letter(pid: str, title: str, *cites: str, url: str | None = None) -> Precedent:
    return Precedent(
        corpus="c",
        id=pid,
        title=title,
        url=url,
        cites=tuple(ResolvedCite(written=c, target_id=None if c.startswith("1910") else c) for c in cites),
    )


BANK = [
    letter("hats", "hard hat protection on construction sites", "1926.100(a)", url="https://o/hats"),
    letter("trench", "trench depth five feet protective system", "1926.652(a)(1)", "1910.134"),
    letter("trench-2", "protective system for a trench", "1926.652"),
    letter("ladder", "ladder side rails extension", "1926.1053(b)(1)"),
]


def index() -> PrecedentIndex:
    return PrecedentIndex(BANK, tokenize, WordEmbedder())


def test_a_bank_tokenized_in_one_pass_votes_as_one_tokenized_text_by_text():
    passes: list[int] = []

    def tokenize_all(texts: list[str]) -> list[list[str]]:
        passes.append(len(texts))
        return [tokenize(t) for t in texts]

    batch = PrecedentIndex(BANK, tokenize, WordEmbedder(), tokenize_all=tokenize_all)
    assert passes == [len(BANK)]  # the whole bank in one call, not text by text
    question = "trench protective system five feet"
    assert [s.precedent.id for s in batch.votes(question).similar] == [
        s.precedent.id for s in index().votes(question).similar
    ]


def test_the_most_similar_precedent_votes_first_for_what_it_cites():
    votes = index().votes("is a hard hat required on construction sites?")
    assert votes.similar[0].precedent.id == "hats"
    assert votes.cited_ids["1926.100(a)"] == 1 and votes.direct["1926.100(a)"] > 0


def test_votes_add_up_over_precedents_and_citations_outside_the_corpus_cast_none():
    votes = index().votes("trench protective system")
    assert {"trench", "trench-2"} <= {s.precedent.id for s in votes.similar[:2]}
    assert "1910.134" not in votes.direct
    assert votes.inherited(["1926.652"]) > 0  # the section's vote, passed to its paragraph


def test_a_question_never_sees_its_own_precedent_by_id_or_source():
    assert "hats" not in {
        s.precedent.id for s in index().votes("hard hat construction", exclude=["hats"]).similar
    }
    by_url = index().votes("hard hat construction", exclude=["https://o/hats"])
    assert "hats" not in {s.precedent.id for s in by_url.similar} and by_url.removed == 1


def test_an_answer_shows_similar_precedents_as_interpretations_above_a_floor():
    votes = index().votes("hard hat protection on construction sites")
    (shown,) = votes.matches(most=1)
    assert shown.id == "hats" and shown.resolved == ("1926.100(a)",) and shown.similarity > 0.9
    assert votes.matches(most=3, least=1.01) == []


def test_an_empty_bank_votes_for_nothing():
    votes = PrecedentIndex([], tokenize, WordEmbedder()).votes("anything")
    assert votes.similar == [] and votes.direct == {} and votes.best == 0.0


def test_stored_vectors_are_reused_for_the_same_texts(tmp_path):
    calls = []

    class Counting(WordEmbedder):
        def embed(self, texts):
            calls.append(len(texts))
            return super().embed(texts)

    PrecedentIndex.load(BANK, tokenize, Counting(), tmp_path, "m")
    PrecedentIndex.load(BANK, tokenize, Counting(), tmp_path, "m")
    assert calls == [len(BANK)]
    PrecedentIndex.load(BANK[:2], tokenize, Counting(), tmp_path, "m")  # other texts: encoded again
    assert calls == [len(BANK), 2]
