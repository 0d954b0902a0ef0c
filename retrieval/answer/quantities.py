"""Whether a question's figures fit a rule sentence's thresholds ("12ft below" against "5 feet (1.52 m) or
more in depth"): a verdict never rests on a sentence that sets no threshold for the figure the question gives,
nor on one whose threshold the figure fails. Figures are read by `bifrost.core.quantities` (one reader for
rules and questions)."""

from __future__ import annotations

from bifrost.core.quantities import Quantity, quantities

__all__ = ["Quantity", "figures_fit", "open_thresholds", "quantities"]


def figures_fit(question: str, sentence: str) -> bool:
    """True when every figure the question gives is one the sentence speaks to and meets: a threshold of the
    same kind that the figure meets, or the same figure. A question with no figure always fits."""
    asked = [q for q in quantities(question) if q.comparable]
    if not asked:
        return True
    stated = quantities(sentence)
    for figure in asked:
        same_kind = [q for q in stated if q.dimension == figure.dimension]
        if not same_kind:
            return False  # the rule sets nothing for the figure the question turns on
        if not any(q.meets(figure) or q.same(figure) for q in same_kind):
            return False
    return True


def open_thresholds(question: str, sentence: str) -> list[Quantity]:
    """The sentence's thresholds of a kind the question gives no figure for ("on roofs 50 feet or less in
    width" asked of a roof whose width is not said): conditions the question leaves open."""
    asked = {q.dimension for q in quantities(question)}
    return [q for q in quantities(sentence) if q.comparator and q.comparable and q.dimension not in asked]
