"""Answerability features on made-up passages: subject coverage, missing and unknown terms, and the
answer-bearing sentence (a matching fact about the question's subject)."""

from __future__ import annotations

import math
import re

import pytest

from bifrost.retrieval.answerability.question_kinds import Ask, Asks
from bifrost.retrieval.answerability.features import (
    FEATURES,
    Passage,
    RetrievalSignals,
    Term,
    columns_without,
    coverage,
    fact_support,
    features,
    idf,
    subject_terms,
    vector,
)

N_DOCS = 1000


def tokenize(text: str) -> list[str]:
    """A stand-in for the lexical index's tokenizer: lowercase words, a few stop words, crude plural
    stemming."""
    stop = {"a", "an", "the", "of", "to", "be", "is", "are", "and", "or", "by", "for", "in", "on"}
    return [w.rstrip("s") if len(w) > 3 else w for w in re.findall(r"\w\w+", text.lower()) if w not in stop]


def terms(question: str, df: dict[str, int]) -> list[Term]:
    return [Term(t, df.get(t, 5)) for t in dict.fromkeys(tokenize(question))]


GUARDRAIL = Passage(
    "p1", "Top rails shall be 42 inches above the walking level. Rails shall be smooth.", "Guardrail systems"
)
NETS = Passage("p2", "Safety nets shall be inspected at least once a week.", "Safety net systems")
SIGNALS = RetrievalSignals(dense_top=0.7, ranker_scores=(2.0, 0.5), entity_cosine=0.9, entity_mean=0.8)


def test_idf_is_one_for_an_unseen_term_and_falls_with_document_frequency():
    assert idf(0, N_DOCS) == pytest.approx(1.0)
    assert 0 < idf(500, N_DOCS) < idf(5, N_DOCS) < 1
    assert idf(0, 0) == 0.0


def test_subject_terms_drop_the_words_that_only_say_what_is_asked():
    got = [t.token for t in subject_terms(terms("How high must the top rail be?", {}), tokenize)]
    assert got == ["top", "rail"]


def test_coverage_is_idf_weighted():
    ts = [Term("rail", 5), Term("top", 500)]
    weights = [idf(t.df, N_DOCS) for t in ts]
    assert coverage({"rail"}, ts, weights) > 0.5 > coverage({"top"}, ts, weights)
    assert coverage(set(), [], []) == 0.0


def test_fact_support_is_the_coverage_of_a_sentence_stating_a_matching_fact():
    ts = subject_terms(terms("How high must the top rail of a guardrail be?", {}), tokenize)
    weights = [1.0] * len(ts)
    ask = Ask(Asks.QUANTITY, frozenset({"length"}))
    support, first, anywhere = fact_support(ask, [NETS, GUARDRAIL], ts, weights, tokenize)
    assert support == pytest.approx(1.0) and anywhere and not first  # "top rail" + context "guardrail"
    assert fact_support(Ask(Asks.QUANTITY, frozenset({"weight"})), [GUARDRAIL], ts, weights, tokenize) == (
        0.0,
        False,
        False,
    )
    assert fact_support(Ask(Asks.OTHER), [GUARDRAIL], ts, weights, tokenize) == (0.0, False, False)


def test_features_fill_every_name_in_order():
    row = features(
        "How high must the top rail of a guardrail be?",
        [GUARDRAIL, NETS],
        terms("top rail guardrail", {}),
        N_DOCS,
        SIGNALS,
        tokenize,
    )
    assert list(row) == list(FEATURES)
    assert row["dense_top"] == 0.7 and row["ranker_top"] == 2.0 and row["ranker_gap"] == 1.5
    assert row["entity_cosine"] == 0.9 and row["entity_mean"] == 0.8
    assert row["fact_top1"] == 1.0 and row["fact_support"] == pytest.approx(1.0) and row["asks_typed"] == 1.0
    assert row["coverage_top1"] == pytest.approx(1.0) and row["missing_idf"] == 0.0
    assert len(vector(row)) == len(FEATURES)


def test_a_rare_question_term_missing_from_the_passages_and_a_term_unknown_to_the_corpus_are_measured():
    question = "How much does a Zorbex guardrail cost?"
    row = features(
        question, [GUARDRAIL], terms(question, {"zorbex": 0, "cost": 40}), N_DOCS, SIGNALS, tokenize
    )
    assert row["missing_idf"] == pytest.approx(1.0)  # "zorbex" (unseen) is not in the passage
    assert 0 < row["unknown_share"] < 1 and row["fact_any"] == 0.0  # no money in the passage


def test_an_untyped_question_has_no_fact_features_and_no_passages_give_zeros():
    row = features(
        "Guardrail systems", [], terms("Guardrail systems", {}), N_DOCS, RetrievalSignals(0.3), tokenize
    )
    assert row["asks_typed"] == 0.0 and row["fact_support"] == 0.0
    assert row["coverage_top1"] == 0.0 and row["ranker_top"] == 0.0 and row["ranker_gap"] == 0.0
    assert all(math.isfinite(v) for v in row.values())


def test_ablation_columns_drop_a_named_group_and_refuse_unknown_ones():
    kept = [FEATURES[i] for i in columns_without({"facts"})]
    assert "fact_support" not in kept and "dense_top" in kept
    with pytest.raises(ValueError, match="unknown feature group"):
        columns_without({"nope"})
