"""An entity is grounded when every word of its name is a word of its provision's text, both read by the same
normalizer the refiner stores names with: "criteria" in the text grounds the stored "criterion"."""

from bifrost.graph_builders.entities.grounding import names_text


def test_a_name_the_refiner_singularized_is_still_grounded_in_the_plural_text():
    assert names_text("fall protection systems criterion", "Fall protection systems criteria and practices.")
    assert names_text("guardrail system", "Guardrail systems shall be ...")


def test_a_word_the_text_lacks_is_not_grounded():
    assert not names_text("safety net", "Guardrail systems shall be ...")
    assert not names_text("", "anything")
