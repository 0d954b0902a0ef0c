"""The answer's records: the line that says which rulebooks the router asked."""

from __future__ import annotations

from bifrost.core.answer_types import CorpusChance, routing_note


def test_the_routing_note_names_the_corpora_asked_and_those_not_asked_with_their_chances():
    chances = [
        CorpusChance(corpus="osha-1926", probability=0.97, asked=True),
        CorpusChance(corpus="osh-act", probability=0.012),
    ]
    assert routing_note(chances) == (
        "Asked osha-1926 (97%), by how likely each is to hold the rule; not asked: osh-act (1%)."
    )
    assert routing_note([]) == ""
