"""With a reader, `ask`'s answer step cites what the reader says states the question, answers "not stated"
when no top provision clears the stated cut, and reads the verdict from the reader's best rule sentence."""

from __future__ import annotations

import numpy as np

from bifrost.core.answer_types import Outcome, RetrievedItem, Via
from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer import build as answer_step
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.reader.model import ReaderCard
from bifrost.retrieval.result import RetrievalResult

TEXTS = {
    "p1": "Safety nets shall be inspected at least once a week.",
    "p2": "Top rails shall be 42 inches above the walking surface. Ladders may not be used as top rails.",
    "p3": "Each ladder shall be inspected by a competent person.",
}


def lookup(pid):
    return (
        Provision(corpus="c", id=pid, kind=ProvisionKind.PARAGRAPH, text=TEXTS[pid], level=3)
        if pid in TEXTS
        else None
    )


class Embedder:
    dim = 4

    def embed(self, texts):
        return np.array([[1.0, len(t) % 3, 0.5, 0.1] for t in texts])


class Reader:
    """A fake reader: high scores for texts holding a liked word (this test checks the step, not the
    network)."""

    def __init__(self, liked: dict[str, float], cite: float = 0.5, stated: float = 0.3) -> None:
        self.liked = liked
        self.card = ReaderCard(corpus="c", base_model="m", cuts={"cite": cite, "stated": stated})

    def score(self, question, texts):
        return np.array([max((v for w, v in self.liked.items() if w in t), default=0.05) for t in texts])


def retrieved() -> RetrievalResult:
    items = [
        RetrievedItem(corpus="c", id=pid, score=s, via=(Via.LEXICAL,))
        for pid, s in (("p1", 0.9), ("p3", 0.8), ("p2", 0.7))
    ]
    return RetrievalResult(
        items=items,
        decomposition=Decomposition(),
        mode="fixed",
        evidence=0.0,
        relevance=0.9,
        timings={},
        cited=items[:1],
    )


def ask(question: str, reader: Reader, verdicts: str = "rules"):
    return answer_step.answer(
        question,
        "c",
        retrieved(),
        RetrievalConfig(verdicts=verdicts),
        lookup=lookup,
        judge=None,
        embedder=Embedder(),
        reader=reader,
    )


def test_the_reader_not_the_ranker_chooses_what_is_cited():
    a = ask("How high must top rails be?", Reader({"Top rails": 0.9}))
    assert a.outcome is Outcome.ANSWERED and [c.id for c in a.citations] == ["p2"]
    # without it: the ranker's cited set
    assert ask("How high must top rails be?", None).citations[0].id == "p1"


def test_no_top_provision_clearing_the_stated_cut_is_not_stated():
    a = ask("What colour must a hard hat be?", Reader({}, stated=0.3))
    assert a.outcome is Outcome.NOT_STATED and a.statements[0].text.startswith(
        "The closest provisions do not state it"
    )


def test_the_verdict_comes_from_the_readers_best_sentence_of_a_cited_rule():
    a = ask("Can we use a ladder as a top rail?", Reader({"Top rails": 0.9, "Ladders may not": 0.95}))
    assert a.verdict is not None and a.verdict.value == "no" and a.verdict.words.startswith("Ladders may not")
    quiet = ask("Can we use a ladder as a top rail?", Reader({"Top rails": 0.95, "Ladders may not": 0.2}))
    assert quiet.verdict is None  # the best sentence states a height: it decides nothing about this question
    withheld = ask(
        "Can we use a ladder as a top rail?", Reader({"Top rails": 0.9, "Ladders may not": 0.95}), "every"
    )
    # the default: no verdict from a rule sentence (measured right on about half)
    assert withheld.verdict is None


def test_when_nothing_the_chat_model_said_survives_verification_the_offline_answer_is_given_and_said_so():
    from bifrost.core.answer_types import AnswerMode
    from bifrost.retrieval.answer.llm import AgentAnswer

    def agent(question, planned, lookup):
        return AgentAnswer(refused=False, statements=[], verdict=None, dropped=["1910.23(a)"])

    a = answer_step.answer(
        "How often are nets inspected?",
        "c",
        retrieved(),
        RetrievalConfig(),
        lookup=lookup,
        judge=None,
        embedder=Embedder(),
        llm=agent,
    )
    assert a.outcome is Outcome.ANSWERED and a.mode is AnswerMode.EXTRACTIVE and a.citations[0].id == "p1"
    assert a.note == answer_step.AGENT_FAILED
