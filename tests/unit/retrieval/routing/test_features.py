"""What the corpus router reads: the corpora answering each answered question, the share of a question's
nearest answered questions each corpus answers (never the question's own), and how close each corpus is."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from bifrost.core.precedent_types import Precedent, ResolvedCite
from bifrost.retrieval.routing.features import COLUMNS, Letters, answering, closeness, feature_rows

HOLDS = {"construction": frozenset({"1926.501", "1926.501(b)"}), "records": frozenset({"1904.7"})}


def letter(pid: str, *cites: str, url: str | None = None) -> Precedent:
    return Precedent(
        corpus="construction", id=pid, title=pid, url=url, cites=tuple(ResolvedCite(written=c) for c in cites)
    )


def test_a_corpus_answers_an_answered_question_when_it_holds_a_section_it_cites():
    assert answering(letter("a", "1904.7(b)(1)"), HOLDS) == {"records"}
    assert answering(letter("b", "1926.501(b)", "1904.7"), HOLDS) == {"construction", "records"}
    assert answering(letter("c", "1910.147(c)(4)"), HOLDS) == frozenset()


def test_the_letters_share_counts_the_nearest_answered_questions_and_never_the_questions_own():
    letters = Letters.of(
        [letter(f"l{i}", "1926.501" if i < 6 else "1904.7", url=f"u{i}") for i in range(12)],
        np.array([[1.0, 0.0]] * 6 + [[0.0, 1.0]] * 6, np.float32),
        HOLDS,
    )
    near_construction = np.array([[1.0, 0.0]], np.float32)
    share = letters.share(near_construction, ["construction", "records"])
    assert np.allclose(share, [[0.6, 0.4]])  # ten nearest: the six construction letters, then four others
    own = letters.own(["l0", "u1"])
    assert own.tolist() == [0, 1]
    assert np.allclose(letters.share(near_construction, ["construction", "records"], [own]), [[0.4, 0.6]])


def test_closeness_reads_the_best_and_fifth_cosine_and_the_best_term_coverage():
    matrix = np.array([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8], [0.0, 1.0], [0.5, 0.5], [0.1, 0.9]], np.float32)
    channels = SimpleNamespace(
        dense=SimpleNamespace(matrix=matrix),
        bm25=SimpleNamespace(coverage=lambda text: (None, np.array([0.2, 0.7, 0.1], np.float32))),
    )
    cols = closeness(np.array([[1.0, 0.0]], np.float32), ["q"], channels)
    assert np.allclose(cols, [[1.0, 0.1, 0.7]])  # cosines 1, .8, .6, .5, .1, 0
    letters = Letters.of([], np.zeros((0, 2), np.float32), HOLDS)
    rows = feature_rows(np.array([[1.0, 0.0]], np.float32), ["q"], {"a": channels, "b": channels}, letters)
    assert rows.shape == (1, 2, len(COLUMNS)) and np.allclose(rows[0, 1], [1.0, 0.1, 0.7, 0.0])
