"""The answer step of `ask`: from a retrieval result to an `Answer` with one of four outcomes.

- **answered**: one rule is stated as the one that decides (with a trained decision model: only when its
  calibrated probability clears the bar validation chose); the answer plan (`retrieval.answer_plan`: the cited
  set, the asks, the exceptions, conditions, procedures and definitions the navigator graph joins to it) is
  composed offline into a verdict and statements by role (`retrieval.answer_compose`), or handed to the chat
  model's answer agent with the same plan; either way every statement carries a verified quote;
- **shortlist**: the decision model is not sure enough of any rule: the provisions most likely to decide are
  listed and quoted (each by its sentence that bears most on the question), none stated as the answer;
- **not stated**: the evidence is weak (`retrieval.refusal`): the closest provisions are quoted, after
  a first statement saying what none of them states;
- **refused**: clearly out of scope, or nothing retrieved.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bifrost.core.embeddings import Embedder
from bifrost.core.stopwatch import Stopwatch
from bifrost.core.precedent_types import named_note
from bifrost.core.answer_types import (
    GoverningRule,
    Shortlisted,
    QuestionFigure,
    Answer,
    AnswerMode,
    Outcome,
    PlannedProvision,
    Statement,
    Verdict,
)
from bifrost.core.sentences import sentences
from bifrost.core.types import Provision
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.graph_builders.jurisdictions.registry import words_for
from bifrost.retrieval.answer.compose import compose
from bifrost.retrieval.answer.extractive import extractive_statements, render
from bifrost.retrieval.answer.lead_sentence import open_note
from bifrost.retrieval.answer.base import Planned, Role
from bifrost.retrieval.answer.plan import for_question
from bifrost.retrieval.answer.planner import Planner, policy_of
from bifrost.retrieval.answer.question_facts import facts_of
from bifrost.retrieval.answerability.question_kinds import detect
from bifrost.retrieval.answer.applicability import applicability
from bifrost.retrieval.answer.citations import cited_items, citations_for, related_for
from bifrost.retrieval.answer.decision import Decided, decide, inputs_of
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.answer.base import DraftStatement, QuoteClaim
from bifrost.retrieval.answer.quotes import check_statements
from bifrost.retrieval.answerability.refusal import Judge, outcome_of
from bifrost.retrieval.ranking.named_first import about_named, leading
from bifrost.retrieval.result import RetrievalResult

if TYPE_CHECKING:  # the chat model's agent needs the llm extra; offline answers do not
    from bifrost.retrieval.answer.decision_model import DecisionModel
    from bifrost.retrieval.answer.llm import AgentAnswer

REFUSAL_TEXT = "The indexed regulations do not answer this question."
SHORTLIST_TEXT = (
    "The rules most likely to decide your question (none is sure enough to state as the answer; read each):"
)
AGENT_FAILED = (
    "the chat model's answer was set aside: none of its statements had a quote found in the provision it "
    "cites; this is the offline answer from the same plan"
)
NOT_STATED_SHOWN = 3
"""Closest provisions quoted in a "not stated" answer."""
SIMILAR_SHOWN = 3
"""Similar answered questions an answer shows, at most."""
SIMILAR_LEAST = 0.6
"""The least cosine between the question and a precedent an answer shows (the embedding model's scale)."""
Lookup = Callable[[str], Provision | None]


def not_stated(
    question: str, items: Sequence, lookup: Lookup, embedder: Embedder, ask=None
) -> list[Statement]:
    """What none of the closest provisions states, then each of them quoted (its sentence closest to the
    question)."""
    shown = extractive_statements(question, list(items[:NOT_STATED_SHOWN]), lookup, embedder, "rank")
    if not shown:
        return []
    first = shown[0]
    what = open_note(ask if ask is not None else detect(question)).replace(
        "The cited provisions leave this open: none of them states",
        "The closest provisions do not state it: none of them states",
    )
    note = DraftStatement(
        what, first.citations, (QuoteClaim(first.citations[0], first.quotes[0].text),), role="open"
    )
    return check_statements([note], lookup).statements + [
        s.model_copy(update={"role": "closest"}) for s in shown
    ]


def _offline(
    question: str,
    corpus: str,
    result: RetrievalResult,
    cfg: RetrievalConfig,
    planned: list[Planned],
    lookup: Lookup,
    embedder: Embedder,
    planner: Planner | None,
    facts,
    decided: Decided | None = None,
) -> tuple[list[Statement], Verdict | None]:
    """The offline answer's statements and verdict from the plan (the decision's verdict when it decided);
    when the plan holds only headings, the best retrieved text quoted."""
    composed = compose(
        question,
        planned,
        lookup,
        embedder,
        asks=planner.asks(result) if planner else (),
        tokenize=planner.tokenize if planner else None,
        words=planner.words if planner else words_for(corpus),
        verdicts=cfg.verdicts,
        whole=result.whole,
        facts=facts,
        decided=(decided.verdict,) if decided is not None else None,
    )
    statements, verdict = composed.statements, composed.verdict
    if not statements:  # the plan holds only headings: quote the best retrieved text
        statements = extractive_statements(
            question, result.items[: cfg.cite_max], lookup, embedder, "fact", ask=facts.ask
        )
    return statements, verdict


def _agent(
    llm: Callable[..., AgentAnswer], question: str, planned: list[Planned], lookup: Lookup
) -> tuple[list[Statement], Verdict | None, str | None]:
    """The chat model's statements and verdict from the plan; when nothing it said survived verification (and
    it did not refuse), none, with the note that the offline answer stands in."""
    said = llm(question, planned, lookup)
    if not said.statements and not said.refused:
        return [], None, AGENT_FAILED
    return said.statements, said.verdict, None


def _plan(
    question: str,
    result: RetrievalResult,
    cfg: RetrievalConfig,
    lookup: Lookup,
    planner: Planner | None,
    decided: Decided | None = None,
    decided_plan: str = "core",
) -> list[Planned]:
    """The answer plan (from the decision's cited rules when it decided)."""
    if decided is not None:
        if planner is None:
            return [Planned(pid, Role.RULE, (pid,), "governing") for pid in decided.cited]
        # a claim over every case is answered by the other cases too: the configured relations then
        every = facts_of(result.facts, question).stance.every
        policy = for_question(policy_of(cfg), True) if every else policy_of(cfg, decided_plan)
        return planner.plan(question, result, cfg, lookup, core=decided.cited, policy=policy)
    return planner.plan(question, result, cfg, lookup) if planner is not None else _core(result, cfg)


def answer(
    question: str,
    corpus: str,
    result: RetrievalResult,
    cfg: RetrievalConfig,
    *,
    lookup: Lookup,
    judge: Judge | None,
    embedder: Embedder,
    planner: Planner | None = None,
    llm: Callable[..., AgentAnswer] | None = None,
    t0: float | None = None,
    decision: DecisionModel | None = None,
) -> Answer:
    """The answer of one question from its retrieval result (see the module docstring); ``llm``: the chat
    model's answer agent (None: offline), called with the question, the plan and ``lookup``;
    ``decision``: the trained decision model, which chooses the governing rule, the verdict and what is cited
    before anything is composed (`retrieval.answer.decision`)."""
    t0 = time.perf_counter() if t0 is None else t0
    t1 = time.perf_counter()
    clock = Stopwatch()
    facts = facts_of(result.facts, question)
    outcome = outcome_of(result, cfg.refuse_below, question, judge)
    clock.lap("answer.answerability")
    if outcome is not Outcome.ANSWERED and leading(result, lookup):  # it names a provision: answered from it
        outcome = Outcome.ANSWERED
    statements: list[Statement] = []
    verdict, note, decided, planned = None, None, None, []
    if outcome is Outcome.ANSWERED and decision is not None:
        decided = _decide(question, result, facts, lookup, planner, decision)
        clock.lap("answer.decision")
    if outcome is Outcome.ANSWERED and decided is not None and not decided.stated:
        outcome = Outcome.SHORTLIST
        statements = shortlist_statements(decided, lookup)
        if not statements:
            outcome = Outcome.REFUSED
    elif outcome is Outcome.ANSWERED:
        plan = decision.card.plan if decision is not None else "core"
        planned = _plan(question, result, cfg, lookup, planner, decided, plan)
        clock.lap("answer.plan")
        if llm is not None:
            statements, verdict, note = _agent(llm, question, planned, lookup)
            llm = llm if statements or note is None else None
        if llm is None:
            ctx = (planner, facts, decided)
            statements, verdict = _offline(question, corpus, result, cfg, planned, lookup, embedder, *ctx)
        if not statements:
            outcome = Outcome.REFUSED
    elif outcome is Outcome.NOT_STATED:
        statements = not_stated(question, result.items, lookup, embedder, facts.ask)
        if not statements:
            outcome = Outcome.REFUSED
    clock.lap("answer.compose")
    timings = {**result.timings, **clock.laps, "answer": time.perf_counter() - t1}
    answer = Answer(
        question=question,
        corpus=corpus,
        mode=AnswerMode.EXTRACTIVE if llm is None else AnswerMode.LLM,
        refused=outcome is Outcome.REFUSED,
        outcome=outcome,
        text=REFUSAL_TEXT,
        statements=statements,
        retrieved=result.items,
        timings=timings,
        verdict=verdict,
        note=note,
        named=list(result.named or ()),
        plan=[PlannedProvision(id=p.id, role=p.role.value, path=p.path, reason=p.reason) for p in planned],
        figures=[QuestionFigure.of(q, measure) for q, measure in facts.figures],
        set_aside=list(facts.excluded),
    )
    answer = _decided_parts(answer, decided, question, facts, lookup, planner)
    return finished(answer, result, lookup, planner, t0)


def _decide(
    question: str,
    result: RetrievalResult,
    facts,
    lookup: Lookup,
    planner: Planner | None,
    model: DecisionModel,
) -> Decided | None:
    """The decision over a learned ranker's result (None without its feature rows: another retriever)."""
    if planner is None:
        return None
    inputs = inputs_of(
        question, result, facts, planner.asks(result), planner.nav, planner.tokenize, lookup, planner.words
    )
    return decide(inputs, model) if inputs is not None else None


def shortlist_statements(decided: Decided, lookup: Lookup) -> list[Statement]:
    """Each shortlisted provision quoted by its sentence that bears most on the question (its first sentence
    when that is not found in it), likeliest first; a provision without text is left out."""
    drafts = []
    for pid, _p, sentence in decided.shortlist:
        p = lookup(pid)
        if p is None or not p.text.strip():
            continue
        said = shown_sentence(sentence, p.text) or next(iter(sentences(p.text)), "")
        if said:
            drafts.append(DraftStatement(said, (pid,), (QuoteClaim(pid, said),), role="shortlist"))
    return check_statements(drafts, lookup).statements


SHORTLIST_SENTENCE = 600
"""A deciding sentence longer than this (a whole provision read as one) is shown by its first sentence."""


def shown_sentence(sentence: str, text: str) -> str:
    """The deciding sentence a shortlist shows: "" when the provision's text does not hold it or it is a whole
    provision read as one."""
    return sentence if sentence and sentence in text and len(sentence) <= SHORTLIST_SENTENCE else ""


def shortlisted(
    decided: Decided, corpus: str, lookup: Lookup, nav: NavigatorIndex | None, quoted: dict[str, str]
) -> list[Shortlisted]:
    """The shortlist's records for the provisions its statements quote (``quoted``: id -> the sentence
    quoted), in the shortlist's order."""
    out = []
    for pid, probability, _sentence in decided.shortlist:
        p = lookup(pid)
        if p is None or pid not in quoted:
            continue
        out.append(
            Shortlisted(
                id=pid,
                corpus=corpus,
                section=nav.section.get(pid, pid) if nav is not None else "",
                heading=p.heading,
                sentence=quoted[pid],
                probability=min(1.0, max(0.0, probability)),
                url=p.url,
            )
        )
    return out


def _decided_parts(
    answer: Answer, decided: Decided | None, question: str, facts, lookup: Lookup, planner: Planner | None
) -> Answer:
    """The answer with what the decision found (governing rules, the conditions its facts bear on, the related
    provisions not cited); without a decision, every cited rule's conditions (a current edition's answer)."""
    if answer.outcome is Outcome.SHORTLIST and decided is not None:
        quoted = {
            st.citations[0]: st.quotes[0].text for st in answer.statements if st.citations and st.quotes
        }
        nav = planner.nav if planner else None
        return answer.model_copy(
            update={
                "shortlist": shortlisted(decided, answer.corpus, lookup, nav, quoted),
                "related": related_for([pid for pid in decided.related if pid not in quoted], lookup),
            }
        )
    if answer.outcome is not Outcome.ANSWERED:
        return answer
    said = list(dict.fromkeys(c for st in answer.statements for c in st.citations))
    if decided is not None:
        return answer.model_copy(
            update={
                "governing": [GoverningRule(id=g.id, probability=g.probability) for g in decided.governing],
                "conditions": decided.checks,
                "related": related_for([pid for pid in decided.related if pid not in said], lookup),
            }
        )
    if planner is None:
        return answer
    records = [r for pid in said for r in planner.nav.requirements.get(pid, ())]
    checks = applicability(question, said, records, planner.tokenize, list(facts.figures))
    return answer.model_copy(update={"conditions": checks})


def finished(
    answer: Answer, result: RetrievalResult, lookup: Lookup, planner: Planner | None, t0: float
) -> Answer:
    """The answer with its text, citations, what went unused, and the similar precedents shown (none when
    refused: a refusal keeps only its text, with what the question named that the corpus lacks)."""
    refused = answer.refused
    cited_ids = [c for s in answer.statements for c in s.citations]
    text = REFUSAL_TEXT if refused else render(answer.statements)
    if answer.outcome is Outcome.SHORTLIST and not refused:
        text = f"{SHORTLIST_TEXT}\n{text}"
    if said := named_note(answer.named, answer.corpus):
        text = f"{text}\n\n{said}"
    shown = (
        []
        if refused or result.votes is None
        else result.votes.matches(
            SIMILAR_SHOWN,
            SIMILAR_LEAST,
            about_named(answer.named, planner.nav.parent.get if planner else lambda _pid: None),
        )
    )
    return answer.model_copy(
        update={
            "text": text,
            "statements": [] if refused else answer.statements,
            "citations": [] if refused else citations_for(cited_ids, lookup),
            "unused": [it.id for it in result.items if it.id not in set(cited_ids)],
            "verdict": None if refused else answer.verdict,
            "plan": [] if refused else answer.plan,
            "governing": [] if refused else answer.governing,
            "related": [] if refused else answer.related,
            "conditions": [] if refused else answer.conditions,
            "shortlist": [] if refused else answer.shortlist,
            "precedents": shown,
            "timings": {**answer.timings, "total": time.perf_counter() - t0},
        }
    )


def _core(result: RetrievalResult, cfg: RetrievalConfig) -> list[Planned]:
    """The plan without a navigator (a past edition): the cited set, as rules."""
    return [
        Planned(it.id, Role.RULE, (it.id,), f"ranked {n}")
        for n, it in enumerate(cited_items(result.items, result.cited, cfg.cite_ratio, cfg.cite_max), start=1)
    ]
