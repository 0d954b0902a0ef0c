"""`AskPipeline`: refusal when nothing is retrieved, answers citing what the answer step cited, each
corpus's parts, retriever and judge loaded once (also when threads ask the first question of a corpus
at once), and `forget` dropping what it names.

The pipeline's loaders (indexes, retriever, judge, past editions) and its offline answer step are
replaced by fakes that count their calls; everything between them is the real pipeline."""

from __future__ import annotations

import threading
import time
from collections import Counter
from unittest.mock import MagicMock

import numpy as np
import pytest

from bifrost.core.embeddings import Embedder
from bifrost.core.errors import BifrostError
from bifrost.core.graph.base import GraphStore
from bifrost.core.resources import Resources
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Edition, Provision, ProvisionKind, split_uid
from bifrost.retrieval.channels.base import Channels
from bifrost.retrieval.channels.precedents import PrecedentVotes
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition, ExtractorDecomposer
from bifrost.retrieval.edition_retriever import EditionRetriever
from bifrost.retrieval.channels.entity_index import EngIndex
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.answer.build import REFUSAL_TEXT
from bifrost.retrieval.corpus_parts import CorpusParts
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.result import RetrievalResult

PROVISIONS = {
    "1926.502(b)": Provision(
        corpus="c", id="1926.502(b)", kind=ProvisionKind.PARAGRAPH, text="Guardrail systems.", order=1
    ),
    "1926.502(b)(1)": Provision(
        corpus="c",
        id="1926.502(b)(1)",
        kind=ProvisionKind.PARAGRAPH,
        text="Top edge height shall be 42 inches.",
        order=2,
    ),
}


def item(pid: str, score: float) -> RetrievedItem:
    return RetrievedItem(corpus="c", id=pid, score=score, via=(Via.LEXICAL,), why="keyword match")


def result(items: list[RetrievedItem], relevance: float = 0.9) -> RetrievalResult:
    return RetrievalResult(
        items=items,
        decomposition=Decomposition(),
        mode="fixed",
        evidence=0.0,
        relevance=relevance,
        timings={"match": 0.0},
    )


class FixedRetriever:
    """A `CorpusRetriever` returning one fixed result, remembering the questions it was asked."""

    def __init__(self, config: RetrievalConfig, answer: RetrievalResult) -> None:
        self.config, self.answer, self.questions = config, answer, []

    @property
    def index(self) -> EngIndex:
        return MagicMock(spec=EngIndex)

    def retrieve(self, question: str, config: RetrievalConfig | None = None) -> RetrievalResult:
        self.questions.append(question)
        return self.answer


class WordEmbedder:
    """A deterministic stand-in for the embedding model: a bag of hashed words, normalized."""

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hash(word) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def fake_resources() -> MagicMock:
    """Resources of an offline home whose graph store knows `PROVISIONS`."""
    resources = MagicMock(spec=Resources)
    resources.chat_model = None
    resources.embedder = WordEmbedder()
    resources.graph = MagicMock(spec=GraphStore)
    resources.graph.get_section.side_effect = lambda uid: PROVISIONS.get(split_uid(uid)[1])
    return resources


def corpus_parts(corpus: str) -> CorpusParts:
    channels = MagicMock(spec=Channels)
    channels.names.return_value = []  # the questions name no provision
    channels.loosen.side_effect = lambda text: text  # in no loose form
    channels.votes.return_value = PrecedentVotes()  # and the corpus has no precedents
    channels.outside_near.return_value = []  # nor any answered under other rules
    channels.tokenize.side_effect = str.split
    return CorpusParts(
        corpus=corpus,
        graph=MagicMock(spec=GraphStore),
        embedder=MagicMock(spec=Embedder),
        channels=channels,
        nav=NavigatorIndex.build([], []),
        containers=frozenset(),
        decomposer=MagicMock(spec=ExtractorDecomposer),
    )


class CountingPipeline(AskPipeline):
    """The real pipeline with counting fakes for its loaders and its offline answer step (which cites
    the first retrieved provision). ``delay``: seconds every load takes (a cold start)."""

    def __init__(self, answer: RetrievalResult | None = None, delay: float = 0.0) -> None:
        super().__init__(fake_resources(), RetrievalConfig())
        self.answer_given = (
            answer if answer is not None else result([item("1926.502(b)(1)", 1.0), item("1926.502(b)", 0.4)])
        )
        self.delay = delay
        self.loads: Counter[tuple[str, str]] = Counter()
        self._count_lock = threading.Lock()

    def _count(self, what: str, corpus: str) -> None:
        with self._count_lock:
            self.loads[(what, corpus)] += 1
        time.sleep(self.delay)

    def _load_parts(self, corpus: str) -> CorpusParts:
        self._count("parts", corpus)
        return corpus_parts(corpus)

    def _load(self, corpus: str) -> FixedRetriever:
        self.parts(corpus)  # as the real loader: the retriever is assembled from the corpus's parts
        self._count("retriever", corpus)
        return FixedRetriever(self.config, self.answer_given)

    def _load_judge(self, corpus: str) -> None:
        self.parts(corpus)
        self._count("judge", corpus)
        return None  # no answerability model: the cosine rule decides

    def _load_sentences(self, corpus: str) -> Embedder:
        self._count("sentences", corpus)
        return self.resources.embedder  # no stored sentence vectors: the embedding model encodes them

    def _load_edition(self, edition: Edition) -> EditionRetriever:
        self._count("edition", edition.corpus)
        return MagicMock(spec=EditionRetriever)

    def planner(self, corpus: str) -> None:
        # no navigator maps: the answer cites the cited set (the best item: the other scores under half)
        return None


# --- answering ----------------------------------------------------------------------------------


def test_nothing_retrieved_is_a_refusal_with_nothing_stated():
    pipeline = CountingPipeline(answer=result([]))
    answer = pipeline.ask("What is the top edge height?", "c")
    assert answer.refused and answer.text == REFUSAL_TEXT
    assert answer.statements == [] and answer.citations == [] and answer.retrieved == []
    assert answer.outcome.value == "refused"


def test_retrieval_below_the_relevance_threshold_is_a_refusal():
    pipeline = CountingPipeline(answer=result([item("1926.502(b)(1)", 1.0)], relevance=0.1))
    answer = pipeline.ask("What is the top edge height?", "c")
    assert answer.refused and answer.statements == [] and answer.outcome.value == "refused"


def test_an_answer_cites_what_the_answer_step_cited_and_lists_the_rest_as_unused():
    pipeline = CountingPipeline()
    answer = pipeline.ask("  What is the top edge height?  ", "c")
    assert not answer.refused and answer.question == "What is the top edge height?"
    assert answer.text == "Top edge height shall be 42 inches. [1926.502(b)(1)]"
    assert [c.id for c in answer.citations] == ["1926.502(b)(1)"]
    assert answer.unused == ["1926.502(b)"]
    assert {"answer", "total", "match"} <= set(answer.timings)


def test_an_empty_question_is_refused_before_anything_loads():
    pipeline = CountingPipeline()
    with pytest.raises(BifrostError) as info:
        pipeline.ask("   ", "c")
    assert "empty" in str(info.value)
    assert pipeline.loads == Counter()


# --- loading once, forgetting -------------------------------------------------------------------


def test_parts_retriever_judge_and_sentence_vectors_are_loaded_once_per_corpus():
    pipeline = CountingPipeline()
    for _ in range(3):
        pipeline.ask("What is the top edge height?", "c")
    assert pipeline.loads == Counter(
        {("parts", "c"): 1, ("retriever", "c"): 1, ("judge", "c"): 1, ("sentences", "c"): 1}
    )
    assert pipeline.loaded("c") is pipeline.retriever("c")
    assert pipeline.loaded("other") is None


def test_forget_a_corpus_reloads_it_and_keeps_the_others():
    pipeline = CountingPipeline()
    for corpus in ("a", "b"):
        pipeline.ask("What is the top edge height?", corpus)
    first = pipeline.retriever("a")
    pipeline.forget("a")
    assert pipeline.loaded("a") is None and pipeline.loaded("b") is not None
    pipeline.ask("What is the top edge height?", "a")
    pipeline.ask("What is the top edge height?", "b")
    assert pipeline.retriever("a") is not first
    assert pipeline.loads[("parts", "a")] == 2 and pipeline.loads[("retriever", "a")] == 2
    assert pipeline.loads[("sentences", "a")] == 2 and pipeline.loads[("sentences", "b")] == 1
    assert pipeline.loads[("parts", "b")] == 1 and pipeline.loads[("retriever", "b")] == 1


def test_forget_everything_drops_every_corpus_and_edition():
    pipeline = CountingPipeline()
    edition = Edition(corpus="a", number=1, content_hash="h1")
    pipeline.ask("What is the top edge height?", "a")
    pipeline.edition_retriever(edition)
    assert pipeline.edition_retriever(edition) is pipeline.edition_retriever(edition)
    pipeline.forget()
    assert pipeline.loaded("a") is None
    pipeline.edition_retriever(edition)
    pipeline.retriever("a")
    assert pipeline.loads[("edition", "a")] == 2 and pipeline.loads[("retriever", "a")] == 2


def test_an_edition_with_other_content_is_another_retriever():
    pipeline = CountingPipeline()
    one = pipeline.edition_retriever(Edition(corpus="a", number=1, content_hash="h1"))
    assert pipeline.edition_retriever(Edition(corpus="a", number=1, content_hash="h2")) is not one
    assert pipeline.loads[("edition", "a")] == 2


# --- threads --------------------------------------------------------------------------------------


def run_together(n: int, target) -> list:
    """``target(i)`` in threads ``i`` = 0..n-1 released at once; their results (a thread's exception
    re-raised)."""
    start = threading.Barrier(n)
    out: list = [None] * n
    errors: list[BaseException] = []

    def run(i: int) -> None:
        start.wait()
        try:
            out[i] = target(i)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a thread is stuck (deadlock?)"
    if errors:
        raise errors[0]
    return out


def test_threads_asking_the_first_question_of_a_corpus_at_once_load_it_once():
    pipeline = CountingPipeline(delay=0.05)
    answers = run_together(8, lambda i: pipeline.ask("What is the top edge height?", "c"))
    assert all(not a.refused for a in answers)
    assert pipeline.loads == Counter(
        {("parts", "c"): 1, ("retriever", "c"): 1, ("judge", "c"): 1, ("sentences", "c"): 1}
    )


def test_threads_asking_for_a_retriever_its_parts_and_its_judge_at_once_share_one_load():
    pipeline = CountingPipeline(delay=0.05)
    calls = [lambda: pipeline.retriever("c"), lambda: pipeline.parts("c"), lambda: pipeline.judge("c")]
    got = run_together(9, lambda i: calls[i % 3]())
    assert pipeline.loads == Counter({("parts", "c"): 1, ("retriever", "c"): 1, ("judge", "c"): 1})
    assert len({id(got[i]) for i in range(0, 9, 3)}) == 1 and len({id(got[i]) for i in range(1, 9, 3)}) == 1


def test_threads_asking_for_one_edition_at_once_load_it_once():
    pipeline = CountingPipeline(delay=0.05)
    edition = Edition(corpus="c", number=1, content_hash="h1")
    got = run_together(6, lambda i: pipeline.edition_retriever(edition))
    assert pipeline.loads[("edition", "c")] == 1 and len({id(g) for g in got}) == 1


def test_a_corpus_that_loads_slowly_does_not_hold_up_another_corpus():
    release = threading.Event()

    class OneSlowCorpus(CountingPipeline):
        def _load_parts(self, corpus: str) -> CorpusParts:
            if corpus == "slow":
                release.wait(timeout=30)
            return super()._load_parts(corpus)

    pipeline = OneSlowCorpus()
    slow = threading.Thread(target=pipeline.retriever, args=("slow",))
    slow.start()
    try:
        assert not pipeline.ask("What is the top edge height?", "quick").refused  # while "slow" is loading
        assert pipeline.loaded("slow") is None
    finally:
        release.set()
        slow.join(timeout=30)
    assert pipeline.loaded("slow") is not None


# --- pointing elsewhere -------------------------------------------------------------------------


def answered_under(part: str, n: int) -> list:
    """``n`` answered questions (cosines 0.8 down) citing only ``part``, a rule outside the corpus."""
    from bifrost.core.precedent_types import Precedent, ResolvedCite
    from bifrost.retrieval.channels.precedents import Similar

    cite = (ResolvedCite(written=f"{part}(c)(4)", target_id=None),)
    return [
        Similar(
            Precedent(corpus="c", id=f"o{i}", title=f"letter {i}", issuer="OSHA", cites=cite),
            0.8 - i / 100,
            0,
            1,
        )
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("outcome", "lead"),
    [
        ("shortlist", "These rules may not be the ones that decide it."),
        ("not_stated", "c does not set this."),
    ],
)
def test_an_answer_stating_no_rule_whose_nearest_letters_lie_elsewhere_keeps_its_provisions_and_points(
    outcome, lead
):
    from bifrost.core.answer_types import Answer, AnswerMode, Citation, Outcome, Shortlisted

    pipe = CountingPipeline()
    pipe.resources.sql.jurisdiction.return_value = "us-cfr"
    pipe.resources.sql.corpora.return_value = ["c"]
    listed = [Shortlisted(id="1926.502(b)(1)", corpus="c", section="1926.502", probability=0.2)]
    given = Answer(
        question="q",
        corpus="c",
        mode=AnswerMode.EXTRACTIVE,
        refused=False,
        outcome=Outcome(outcome),
        text="the closest rules",
        citations=[Citation(corpus="c", id="1926.502(b)(1)", text="x")],
        shortlist=listed if outcome == "shortlist" else [],
    )
    retrieved = result([item("1926.502(b)(1)", 0.5)])
    retrieved.outside = answered_under("1910.147", 4)
    got = pipe.pointed(given, retrieved, "c")
    assert got.outcome is Outcome(outcome) and not got.refused
    assert got.citations == given.citations and got.shortlist == given.shortlist
    assert got.elsewhere is not None and [p.cited for p in got.elsewhere.places] == ["29 CFR 1910.147"]
    assert got.text.startswith(
        "the closest rules\n\n" + lead + " OSHA has answered similar questions under 29 CFR"
    )
