"""A very long question is read as its asking sentences and its first sentences, within what the channels
read, and says so; a question of ordinary length is read whole."""

from bifrost.retrieval.condense import READ_MOST, condensed


def test_an_ordinary_question_is_read_whole():
    q = "Do we need a ladder in a 5 ft trench?"
    assert condensed(q) == (q, None)


def test_a_long_question_keeps_its_questions_and_first_sentences_in_order_and_says_so():
    backstory = " ".join(f"Day {i} we dug more of the trench along the road." for i in range(200))
    q = f"We are a small crew. {backstory} Do we need a ladder in the trench? Thanks."
    text, note = condensed(q)
    assert len(text) <= READ_MOST and text.startswith("We are a small crew.")
    assert "Do we need a ladder in the trench?" in text and text.endswith("Thanks.")
    assert note is not None and f"{len(q):,} characters" in note
