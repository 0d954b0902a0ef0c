"""Highlighting quoted spans in a provision's text for the results page."""

from __future__ import annotations

from bifrost.app.web.views import Segment, highlight


def test_a_span_is_marked_and_the_rest_kept_in_order():
    assert highlight("abcdef", [(2, 4)]) == [
        Segment(text="ab"),
        Segment(text="cd", marked=True),
        Segment(text="ef"),
    ]


def test_overlapping_and_touching_spans_merge_into_one_mark():
    assert highlight("abcdef", [(3, 5), (0, 2), (1, 3)]) == [
        Segment(text="abcde", marked=True),
        Segment(text="f"),
    ]


def test_no_spans_leave_the_text_whole_and_spans_out_of_range_are_clipped():
    assert highlight("abc", []) == [Segment(text="abc")]
    assert highlight("abc", [(2, 99), (5, 6)]) == [Segment(text="ab"), Segment(text="c", marked=True)]
