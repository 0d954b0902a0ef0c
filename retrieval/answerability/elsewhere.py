"""Where the answer lives when the corpus does not give it: the question's nearest answered questions are
mostly ones that cite nothing of the corpus (the regulator answered them under other rules), so the refusal
names those rules ("29 CFR 1910.147, Occupational Safety and Health Standards (general industry)"), shows the
answered questions, and names a corpus of this home that holds them. The rules are named by the corpus's pack
(its citation form and what each part is about); a bank without such questions changes no refusal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from bifrost.core.answer_types import Answer, Elsewhere, Outcome, PlaceCited
from bifrost.graph_builders.jurisdictions.base import Place
from bifrost.retrieval.answerability.judge import NEAREST
from bifrost.retrieval.channels.precedents import PrecedentVotes, Similar

SHOWN = 3
"""Answered questions a pointing refusal shows."""
SHORTLIST_ELSEWHERE = "These rules may not be the ones that decide it."
"""What a shortlist says before naming the rules that similar answered questions were listed under."""
PLACES = 2
"""Places it names at most."""


def section_of_cite(written: str) -> str:
    """A citation cut to its section ("1910.147(c)(4)" -> "1910.147"), the unit a reader looks up."""
    return written.split("(")[0].strip()


def nearest_outside(votes: PrecedentVotes | None, outside: Sequence[Similar]) -> list[Similar]:
    """The answered questions outside the corpus among the `NEAREST` to the question, when they are most of
    them (else none): the question points elsewhere."""
    inside = list(votes.similar) if votes is not None else []
    pool = sorted(
        [(s.cosine, False, s) for s in inside] + [(s.cosine, True, s) for s in outside], key=lambda t: -t[0]
    )[:NEAREST]
    near = [s for _, out, s in pool if out]
    return near if near and 2 * len(near) > len(pool) else []


def answered_elsewhere(
    votes: PrecedentVotes | None,
    outside: Sequence[Similar],
    corpus: str,
    place_of: Callable[[str], Place],
    holder: Callable[[str], str | None],
    lead: str | None = None,
) -> Elsewhere | None:
    """Where the nearest answered questions point, when most of the `NEAREST` lie outside the corpus (None
    otherwise, or with no such question); ``holder`` names a corpus of the home that holds a place; ``lead``:
    the sentence before the pointer (default: the corpus does not set it)."""
    near = nearest_outside(votes, outside)
    if not near:
        return None
    weight: Counter[str] = Counter()
    for s in near:
        for c in {section_of_cite(c.written) for c in s.precedent.cites}:
            weight[c] += max(s.cosine, 0.0)
    if not weight:
        return None
    cited = [c for c, _ in weight.most_common(PLACES)]
    found = Elsewhere(
        places=[PlaceCited(cited=p.cited, about=p.about) for p in (place_of(c) for c in cited)],
        precedents=PrecedentVotes(similar=near).matches(SHOWN),
        corpus=next((h for c in cited if (h := holder(c)) is not None), None),
    )
    said = f"{lead or f'{corpus} does not set this.'} {pointer_sentence(found)}"
    return found.model_copy(update={"said": said})


def pointer_sentence(found: Elsewhere) -> str:
    """Where similar questions were answered, and the corpus of this home to ask, in the words a refusal
    says it."""
    named = "; ".join(f"{p.cited} ({p.about})" if p.about else p.cited for p in found.places)
    issuer = next((m.issuer for m in found.precedents if m.issuer), "") or "The regulator"
    said = f"{issuer} has answered similar questions under {named}."
    if found.corpus:
        said += f" This home holds those rules as {found.corpus}: ask it there (--corpus {found.corpus})."
    return said


def pointed(
    answer: Answer, result, corpus: str, place_of: Callable[[str], Place], holder: Callable[[str], str | None]
) -> Answer:
    """An answer that states no rule (a refusal, a "not stated", a shortlist) with where similar questions
    were answered (`answered_elsewhere` over ``result``'s votes and answered questions outside the corpus); a
    shortlist keeps its list, with the warning that its rules may not be the ones that decide (refusing such
    shortlists set aside a fifth of the answerable questions of the natural sets, and a bar on the first
    provision's probability changed about one question a set: docs/results.md). The answer as it was when
    the nearest answered questions do not lie elsewhere."""
    lead = SHORTLIST_ELSEWHERE if answer.outcome is Outcome.SHORTLIST else None
    found = answered_elsewhere(result.votes, result.outside or [], corpus, place_of, holder, lead)
    if found is None:
        return answer
    return answer.model_copy(update={"elsewhere": found, "text": f"{answer.text}\n\n{found.said}"})
