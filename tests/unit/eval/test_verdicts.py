"""The verdict tally: a yes or no whose label differs is wrong, "depends" is never wrong, any verdict on a
question the corpus does not answer is wrong."""

from __future__ import annotations

from bifrost.eval.verdicts import tally


def test_wrong_verdicts_are_counted_and_named():
    pairs = [
        ({"id": "a", "verdict": "yes"}, "yes"),
        ({"id": "b", "verdict": "depends"}, "no"),
        ({"id": "c", "verdict": "no"}, None),
        ({"id": "d", "verdict": "no"}, "depends"),
        ({"id": "e", "answerable": False}, "yes"),
        ({"id": "f"}, "yes"),
    ]
    t = tally(pairs)
    assert (t["labelled"], t["given"], t["right"], t["wrong"], t["depends_given"]) == (4, 4, 1, 2, 1)
    assert t["wrong_ids"] == ["b: said no, label depends", "e: said yes, label unanswerable"]
