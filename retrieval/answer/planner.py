"""What the answer plan reads of a corpus (`Planner`: its navigator maps, lexical index and rulebook words)
and which relations a configuration or a decision model tells it to follow (`policy_of`); a rule about an
activity the question sets aside is not cited as the rule (`without_excluded`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bifrost.core.types import Provision
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.retrieval.answer.base import Planned, Role
from bifrost.retrieval.answer.citations import cited_items
from bifrost.retrieval.answer.plan import CORE_ONLY, PlanPolicy, for_question, plan_answer, question_asks
from bifrost.retrieval.answer.question_facts import facts_of
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.result import RetrievalResult

SPECIFIC_SHARE = 0.05
"""A question term is specific (it can make an ask) when at most this share of provisions hold it."""
Lookup = Callable[[str], Provision | None]


@dataclass
class Planner:
    """What the answer plan reads of a corpus: its navigator maps and its lexical index."""

    nav: NavigatorIndex
    tokenize: Callable[[str], list[str]]
    document_frequency: Callable[[str], int]
    n_docs: int
    words: RulebookWords = GENERIC  # how the corpus's rulebook words exceptions, references and authorities

    def specific(self, term: str) -> bool:
        return 0 < self.document_frequency(term) <= SPECIFIC_SHARE * self.n_docs

    def asks(self, result: RetrievalResult) -> list[frozenset[str]]:
        """The question's asks (its phrases' specific terms)."""
        return question_asks(result.decomposition.entities, self.tokenize, self.specific)

    def plan(
        self,
        question: str,
        result: RetrievalResult,
        cfg: RetrievalConfig,
        lookup: Lookup,
        core: Sequence[str] | None = None,
        policy: PlanPolicy | None = None,
    ) -> list[Planned]:
        """The answer plan from the ranker's cited set, or from ``core`` (the reader's or the decision's, then
        with its own ``policy``)."""
        facts = facts_of(result.facts, question)
        policy = policy or for_question(policy_of(cfg), facts.stance.every)
        if core is None:
            core = [it.id for it in cited_items(result.items, result.cited, cfg.cite_ratio, cfg.cite_max)]
        asks = self.asks(result)
        text = lambda pid: p.text if (p := lookup(pid)) is not None else ""  # noqa: E731
        term = lambda pid: (p.term or "") if (p := lookup(pid)) is not None else ""  # noqa: E731
        planned = plan_answer(
            [it.id for it in result.items],
            core,
            self.nav,
            text,
            asks,
            self.tokenize,
            policy,
            frozenset(self.tokenize(question)),
            term,
            self.words,
        )
        return without_excluded(planned, facts.excluded, text, self.tokenize)


def policy_of(cfg: RetrievalConfig, plan: str | None = None) -> PlanPolicy:
    """The plan policy a config names (``answer_plan``, or ``plan`` when given: relations joined by ``+``, or
    ``core``)."""
    plan = cfg.answer_plan if plan is None else plan
    if plan == "core":
        return replace(CORE_ONLY, most=cfg.plan_most)
    on = set(plan.split("+"))
    return PlanPolicy(
        asks="asks" in on,
        exceptions="exceptions" in on,
        procedures="procedures" in on,
        siblings="siblings" in on,
        definitions="definitions" in on,
        every_only="every" in on,
        lists="lists" in on,
        most=cfg.plan_most,
    )


def without_excluded(
    planned: list[Planned],
    excluded: Sequence[str],
    text: Callable[[str], str],
    tokenize: Callable[[str], list[str]],
) -> list[Planned]:
    """The plan without the rules whose own text is about an activity the question rules out ("not erecting or
    dismantling": the erectors' rule is not cited as the rule), as long as another rule is left to cite."""
    if not excluded:
        return planned
    out_terms = set(tokenize(" ".join(excluded)))
    about = lambda p: bool(out_terms & set(tokenize(text(p.id))))  # noqa: E731
    kept = [p for p in planned if not (p.role is Role.RULE and about(p))]
    return kept if any(p.role is Role.RULE for p in kept) else planned
