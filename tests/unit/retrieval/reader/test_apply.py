"""What the reader decides at question time: what is cited, whether it is stated, which sentence decides."""

from __future__ import annotations

import numpy as np

from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.reader import apply

TEXTS = {
    "a": "Top rails shall be 42 inches high. Midrails shall be installed.",
    "b": "Nets shall be inspected weekly.",
    "c": "Ladders shall extend 3 feet above the landing.",
    "d": "",
}


def lookup(pid):
    if pid not in TEXTS:
        return None
    return Provision(
        corpus="mini", id=pid, kind=ProvisionKind.PARAGRAPH, heading="", text=TEXTS[pid], level=3
    )


class Fixed:
    """Scores by the words it is told to like (a fake of the trained network, for this logic alone)."""

    def __init__(self, liked: dict[str, float]) -> None:
        self.liked, self.calls = liked, 0

    def score(self, question, texts):
        self.calls += 1
        return np.array([max((v for w, v in self.liked.items() if w in t), default=0.1) for t in texts])


def test_the_provisions_at_or_above_the_cut_are_cited_best_score_first_and_at_least_one():
    r = apply.read(Fixed({"Nets": 0.9, "Ladders": 0.6}), "q", ["a", "b", "c", "d", "zz"], lookup)
    assert r.ids == ["a", "b", "c"]  # no text, or unknown: not read
    assert apply.cited(r, 0.5, 6) == ["b", "c"]
    assert apply.cited(r, 0.5, 1) == ["b"]
    assert apply.cited(r, 0.95, 6) == ["b"]  # nothing clears the cut: the best one


def test_not_stated_when_no_top_provision_clears_the_stated_cut():
    r = apply.read(Fixed({"Ladders": 0.9}), "q", ["a", "b", "c"], lookup)
    assert apply.stated(r, 0.5)  # the third counts
    r = apply.read(Fixed({"Ladders": 0.9}), "q", ["a", "b", "x", "y", "c"], lookup)
    assert r.best == 0.9 and apply.stated(r, 0.5)
    assert not apply.stated(apply.read(Fixed({}), "q", ["a", "b"], lookup), 0.5)
    assert not apply.stated(apply.Reading("q", [], []), 0.0)


def test_joined_provisions_are_read_once_and_the_best_sentence_decides():
    reader = Fixed({"Midrails": 0.8, "Nets": 0.3})
    r = apply.read(reader, "q", ["a"], lookup)
    apply.extend(r, reader, ["a", "b"], lookup)
    assert r.ids == ["a", "b"] and r.of("b") == 0.3 and r.of("c") is None
    assert apply.deciding_sentence(r, reader, ["a", "b"], lookup) == ("a", "Midrails shall be installed.")
    assert apply.deciding_sentence(r, reader, ["d"], lookup) is None
