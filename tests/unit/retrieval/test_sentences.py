"""One splitter for every module that quotes or cites: sentence ends, semicolon clauses, labels."""

from bifrost.core.sentences import citing_sentence, sentences


def test_sentences_split_on_sentence_ends_and_semicolons_not_on_decimals():
    assert sentences("Keep 0.5 m clear. Inspect daily; record it.") == [
        "Keep 0.5 m clear.",
        "Inspect daily;",
        "record it.",
    ]
    assert sentences("") == []


def test_sentences_end_before_a_quote_a_parenthesis_or_a_section_sign_but_not_inside_a_citation():
    assert sentences('See below. (a) First: "Quoted" rule. § 3 applies.') == [
        "See below.",
        "(a) First:",
        '"Quoted" rule.',
        "§ 3 applies.",
    ]
    assert sentences("Under 1926.502(b) the rails hold.") == ["Under 1926.502(b) the rails hold."]


def test_citing_sentence_keeps_the_label_that_introduces_it_and_is_empty_when_not_found():
    text = "General rule applies. Exception: Paragraph (a) does not apply where § 1.2 is met."
    assert citing_sentence(text, "§ 1.2") == "Exception: Paragraph (a) does not apply where § 1.2 is met."
    assert citing_sentence(text, "§ 9") == ""
