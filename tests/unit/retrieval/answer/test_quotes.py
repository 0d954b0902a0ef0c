"""The quote checker: a span cut from a provision verifies (whatever its whitespace), offsets
point into the stored text, and words the provision does not contain are rejected."""

from __future__ import annotations

import re

from hypothesis import assume, given
from hypothesis import strategies as st

from bifrost.core.answer_types import Quote
from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer.base import DraftStatement, QuoteClaim
from bifrost.retrieval.answer.quotes import check_statements, locate, normalize, verifies

TEXT = (
    "Employees shall not work in excavations in which\n  there is accumulated water,\tunless "
    "adequate precautions have been taken."
)
PROV = Provision(corpus="c", id="1926.651(h)(1)", kind=ProvisionKind.PARAGRAPH, text=TEXT)
OTHER = Provision(
    corpus="c", id="1926.651(h)(3)", kind=ProvisionKind.PARAGRAPH, text="Diversion ditches shall be used."
)
LOOKUP = {p.id: p for p in (PROV, OTHER)}.get

WORDS = st.text(alphabet="abcde .,;()\n\t\u00a0", max_size=120)
SPACES = st.text(alphabet=" \t\n\r\u00a0\u2009", min_size=1, max_size=4)


def provision(text: str) -> Provision:
    return Provision(corpus="c", id="p", kind=ProvisionKind.PARAGRAPH, text=text)


def squeeze(text: str) -> str:
    return " ".join(text.split())


# --- properties ---
@given(text=WORDS, data=st.data())
def test_any_span_cut_from_a_text_verifies_and_maps_back_to_the_stored_text(text, data):
    i = data.draw(st.integers(0, len(text)))
    span = text[i : data.draw(st.integers(i, len(text)))]
    assume(span.strip())
    q = locate(span, provision(text))
    assert q is not None
    assert text[q.start : q.end] == q.text and verifies(q, provision(text))
    assert squeeze(q.text) == squeeze(span)


@given(text=WORDS, data=st.data())
def test_a_span_with_its_whitespace_changed_still_verifies_at_the_same_words(text, data):
    i = data.draw(st.integers(0, len(text)))
    span = text[i : data.draw(st.integers(i, len(text)))]
    assume(span.strip())
    variant = data.draw(SPACES).join(span.split()) if data.draw(st.booleans()) else re.sub(r"\s+", "\n", span)
    q = locate(variant, provision(text))
    assert q is not None and squeeze(q.text) == squeeze(span) and verifies(q, provision(text))


@given(text=WORDS, quote=st.text(alphabet="abcdexyz .", min_size=1, max_size=40))
def test_a_string_that_is_not_in_the_text_is_rejected(text, quote):
    assume(squeeze(quote) not in squeeze(text))
    assert locate(quote, provision(text)) is None


@given(text=WORDS, quote=st.text(alphabet="xyz", min_size=1, max_size=10))
def test_words_from_outside_the_text_alphabet_are_always_rejected(text, quote):
    assert locate(quote, provision(text)) is None


@given(text=st.text(max_size=80))
def test_normalize_squeezes_whitespace_and_remembers_where_each_character_was(text):
    norm, where = normalize(text)
    assert len(norm) == len(where) and "  " not in norm
    assert all(text[i] == c or (c == " " and text[i].isspace()) for c, i in zip(norm, where))


# --- examples ---
def test_a_quote_across_a_line_break_and_a_tab_maps_to_the_original_offsets():
    q = locate("in which there is accumulated water, unless", PROV)
    assert q == Quote(
        provision_id=PROV.id,
        start=TEXT.index("in which"),
        end=TEXT.index("unless") + 6,
        text="in which\n  there is accumulated water,\tunless",
    )


def test_empty_and_blank_quotes_are_rejected():
    assert locate("", PROV) is None and locate(" \n\t", PROV) is None


def test_a_quote_is_case_and_punctuation_sensitive():
    assert locate("employees shall not work", PROV) is None
    assert locate("Employees shall not work.", PROV) is None


def test_a_quote_record_must_fit_its_span():
    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError):
        Quote(provision_id="p", start=0, end=3, text="four")


def test_a_statement_keeps_only_citations_it_quotes_with_their_spans():
    draft = DraftStatement(
        "Keep water out.",
        ("1926.651(h)(1)", "1926.651(h)(3)"),
        (QuoteClaim("1926.651(h)(3)", "Diversion ditches shall be used."),),
    )
    [statement] = check_statements([draft], LOOKUP).statements
    assert statement.citations == ("1926.651(h)(3)",)
    assert statement.quotes == (Quote(provision_id="1926.651(h)(3)", start=0, end=32, text=OTHER.text),)


def test_a_statement_whose_quote_is_not_in_the_cited_provision_is_dropped_and_logged(caplog):
    drafts = [
        DraftStatement(
            "Ditches.",
            ("1926.651(h)(1)",),
            (QuoteClaim("1926.651(h)(1)", "Diversion ditches shall be used."),),
        ),
        DraftStatement(
            "Water.", ("1926.651(h)(1)",), (QuoteClaim("1926.651(h)(1)", "there is accumulated water"),)
        ),
    ]
    checked = check_statements(drafts, LOOKUP)
    assert [s.text for s in checked.statements] == ["Water."]
    assert [d.text for d in checked.dropped] == [
        "Ditches."
    ] and "not found verbatim in 1926.651(h)(1)" in caplog.text


def test_one_bad_quote_drops_the_whole_statement():
    draft = DraftStatement(
        "Both.",
        ("1926.651(h)(1)", "1926.651(h)(3)"),
        (QuoteClaim("1926.651(h)(1)", "Employees shall not work"), QuoteClaim("1926.651(h)(3)", "invented")),
    )
    assert check_statements([draft], LOOKUP).statements == []


def test_a_statement_without_any_quote_is_dropped():
    checked = check_statements([DraftStatement("Bare claim.", ("1926.651(h)(1)",), ())], LOOKUP)
    assert checked.statements == [] and checked.dropped[0].reason == "no quote supports it"


def test_an_unlabelled_quote_is_looked_up_in_each_cited_provision():
    draft = DraftStatement(
        "Ditches.", ("1926.651(h)(1)", "1926.651(h)(3)"), (QuoteClaim(None, "Diversion ditches"),)
    )
    [statement] = check_statements([draft], LOOKUP).statements
    assert statement.citations == ("1926.651(h)(3)",) and statement.quotes[0].provision_id == "1926.651(h)(3)"


def test_a_quote_of_an_unknown_provision_drops_the_statement():
    draft = DraftStatement("Ghost.", ("1926.999",), (QuoteClaim("1926.999", "Employees"),))
    assert check_statements([draft], LOOKUP).statements == []
