"""A refusal that points: when most of a question's nearest answered questions cite nothing of the corpus, it
names the rules they are listed under (as the corpus's pack names them), shows them, and names a corpus of the
home that holds those rules; otherwise, or with no such question, it says nothing more."""

from __future__ import annotations

from bifrost.core.precedent_types import Precedent, ResolvedCite
from bifrost.graph_builders.jurisdictions.base import Place
from bifrost.retrieval.answerability.elsewhere import answered_elsewhere
from bifrost.retrieval.channels.precedents import PrecedentVotes, Similar


def similar(pid: str, cosine: float, cites: list[str], inside: bool) -> Similar:
    resolved = [ResolvedCite(written=c, target_id=c if inside else None) for c in cites]
    p = Precedent(corpus="c", id=pid, title=f"letter {pid}", issuer="OSHA", cites=tuple(resolved))
    return Similar(p, cosine, 0.0, 1)


def place(cited: str) -> Place:
    return Place(f"29 CFR {cited}", "Recording and Reporting Occupational Injuries and Illnesses")


OUT = [similar(f"o{i}", 0.8 - i / 100, ["1904.39(a)(2)"], False) for i in range(4)]
IN = [similar("i1", 0.5, ["1926.500"], True)]


def test_most_nearest_outside_names_their_rules_their_letters_and_the_corpus_holding_them():
    found = answered_elsewhere(
        PrecedentVotes(similar=IN), OUT, "osha-1926", place, lambda c: "osha-1900-1909"
    )
    assert [p.cited for p in found.places] == ["29 CFR 1904.39"]
    assert [m.id for m in found.precedents] == ["o0", "o1", "o2"]
    assert found.corpus == "osha-1900-1909"
    assert found.said.startswith(
        "osha-1926 does not set this. OSHA has answered similar questions under 29 CFR"
    )
    assert "--corpus osha-1900-1909" in found.said


def test_nearest_mostly_inside_or_none_outside_points_nowhere():
    inside = [similar(f"i{i}", 0.9, ["1926.500"], True) for i in range(4)]
    assert answered_elsewhere(PrecedentVotes(similar=inside), OUT[:2], "c", place, lambda c: None) is None
    assert answered_elsewhere(PrecedentVotes(similar=IN), [], "c", place, lambda c: None) is None


def test_a_shortlist_is_pointed_with_its_own_lead_sentence_instead_of_does_not_set_this():
    found = answered_elsewhere(
        PrecedentVotes(similar=IN), OUT, "osha-1926", place, lambda c: None, "These may not decide it."
    )
    assert found.said.startswith("These may not decide it. OSHA has answered similar questions under 29 CFR")
