"""The question read once, at the start of `ask`: its yes/no stance, the kind of fact it asks for, its
figures with what they measure ("12ft below" a depth, "4 ft. sides" a height, "35′ away" a distance) and the
scopes it excludes ("not erecting or dismantling"). Carried on the retrieval result, so the answer step, the
plan, the verdict and the condition checks read these facts rather than parsing the question again."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bifrost.core.quantities import Quantity
from bifrost.graph_builders.requirements.question_figures import read_figures
from bifrost.retrieval.answer.deontic import QuestionStance, read_question
from bifrost.retrieval.answerability.question_kinds import Ask, detect

# a scope set aside: "– not erecting", "other than welding"; not the situation asked about
_EXCLUDED = re.compile(
    r"(?:[,;(–—-]\s*not|\bother than|\bexcluding|\bbut not)\s+"  # ("I'm not tying off"), nor the alternative
    # a question weighs ("a CDZ instead of tying off": the tie-off rule is what it asks about)
    r"(?P<what>[a-z]+ing(?:\s*(?:,|or|and|/)\s*[a-z]+ing)*)\b",
    re.I,
)


@dataclass(frozen=True)
class QuestionFacts:
    text: str
    stance: QuestionStance
    ask: Ask
    figures: tuple[tuple[Quantity, str], ...] = ()  # each figure with what it measures
    excluded: tuple[str, ...] = ()  # activities the question rules out ("erecting", "dismantling")


# a statement of what the people asked about are not doing ("They are not erecting or dismantling it."): set
# aside; the same words in a question ("are they not tying off?") are what is asked, not set aside
_NOT_DOING = re.compile(
    r"\b(?:are|is|were|was|'re|'s)\s+not\s+(?:doing\s+(?:any\s+)?)?"
    r"(?P<what>[a-z]+ing(?:\s*(?:,|or|and|/)\s*[a-z]+ing)*)\b|\b(?:aren't|isn't|weren't|wasn't)\s+"
    r"(?P<what2>[a-z]+ing(?:\s*(?:,|or|and|/)\s*[a-z]+ing)*)\b",
    re.I,
)


def excluded_activities(question: str) -> tuple[str, ...]:
    """The activities a question rules out: the -ing words after "not", "other than", "excluding", ..., and
    what a statement says its people are not doing ("They are not erecting or dismantling it.")."""
    out: list[str] = []
    for m in _EXCLUDED.finditer(question or ""):
        out += [w.lower() for w in re.findall(r"[A-Za-z]+ing\b", m.group("what"))]
    for sentence in re.split(r"(?<=[.?!])\s+", question or ""):
        if sentence.rstrip().endswith("?"):
            continue
        for m in _NOT_DOING.finditer(sentence):
            out += [w.lower() for w in re.findall(r"[A-Za-z]+ing\b", m.group("what") or m.group("what2"))]
    return tuple(dict.fromkeys(out))


def read_facts(question: str, figures: tuple[tuple[Quantity, str], ...] | None = None) -> QuestionFacts:
    """Read the question's facts (once per `ask`); ``figures``: its figures when the retriever read them."""
    figures = read_figures(question) if figures is None else figures
    return QuestionFacts(
        text=question,
        stance=read_question(question),
        ask=detect(question),
        figures=figures,
        excluded=excluded_activities(question),
    )


def facts_of(facts: QuestionFacts | None, question: str) -> QuestionFacts:
    """The facts read at the start of `ask`, or read now (a caller that retrieved without the pipeline)."""
    return facts if facts is not None and facts.text == question else read_facts(question)
