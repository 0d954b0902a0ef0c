"""The answer plan: which provisions an answer cites, in which role, and the path that brought each in.

From the ranked list and the navigator graph, for any rulebook:

1. the **core**: the ranker's answer-sized set (the provisions that state the rule);
2. the question's **asks** (its noun phrases, reduced to their specific terms): an ask no core
   provision mentions is answered by the best-ranked provision, within ``reach``, that mentions it;
3. what the navigator graph joins to the chosen provisions, each by a relation that holds in any
   rulebook: an **exception** a chosen provision names ("except as provided in paragraph (b)",
   "Exception: ... paragraph (k)"), or a provision that names it with "does not apply", "in lieu of",
   "unless"; a requirement it incorporates ("in accordance with § 1926.502"), a **procedure**;
   **siblings** that split the same case (children of the same parent citing the same provision:
   roofing, leading edges, precast concrete all sending infeasible cases to one plan), a
   **condition**; and the **definitions** of terms the question uses that the chosen provisions use.

A provision joins the answer when it bears on an ask or is joined by one of those relations; which
relations are followed (`PlanPolicy`) is chosen by validation (`bifrost eval answers`), so the size
follows the question, not a fixed count. Pure: ranked ids, the navigator maps, texts and a tokenizer in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bifrost.core.types import ProvisionKind
from bifrost.retrieval.answer.base import Planned, Role
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.core.sentences import citing_sentence

Tokenize = Callable[[str], list[str]]
Text = Callable[[str], str]


@dataclass(frozen=True)
class PlanPolicy:
    """Which relations an answer follows (validated choices, see `bifrost.eval.answers`)."""

    asks: bool = True
    exceptions: bool = True
    procedures: bool = True
    siblings: bool = True
    definitions: bool = False
    headings: bool = True  # a cited provision with no text of its own (a heading) is stated by its paragraphs
    # follow the asks and the graph only for a question claiming every case ("all types of ...")
    every_only: bool = False
    # a short list whose heading and one of whose paragraphs rank among the top ``list_reach``: stated whole
    lists: bool = False
    list_reach: int = 5
    reach: int = 10  # ranked provisions searched for an ask no core provision mentions
    most: int = 8  # provisions an answer cites at most

    @property
    def name(self) -> str:
        on = [
            n
            for n in ("asks", "exceptions", "procedures", "siblings", "definitions", "lists")
            if getattr(self, n)
        ]
        return "+".join(on) or "core"


def for_question(policy: PlanPolicy, every: bool) -> PlanPolicy:
    """The policy for one question: with ``every_only``, the asks and graph relations only for a claim over
    every case (such a claim is answered by the other cases; other questions by the cited set)."""
    if not policy.every_only or every:
        return policy
    return replace(policy, asks=False, exceptions=False, procedures=False, siblings=False, definitions=False)


CORE_ONLY = PlanPolicy(asks=False, exceptions=False, procedures=False, siblings=False, definitions=False)


def reference_role(sentence: str, words: RulebookWords = GENERIC) -> Role | None:
    """The role of a provision cited by ``sentence``, by the rulebook's ``words``: an exception, a definition
    or an incorporated requirement (procedure); None when the sentence says neither."""
    if words.exception_words.search(sentence):
        return Role.EXCEPTION
    if words.definition_words.search(sentence):
        return Role.DEFINITION
    if words.procedure_words.search(sentence):
        return Role.PROCEDURE
    return None


def question_asks(
    phrases: Sequence[str], tokenize: Tokenize, specific: Callable[[str], bool]
) -> list[frozenset[str]]:
    """The question's asks: each phrase's specific terms (a phrase of only generic words asks nothing)."""
    out: list[frozenset[str]] = []
    for phrase in phrases:
        terms = frozenset(t for t in tokenize(phrase) if specific(t))
        if terms and terms not in out:
            out.append(terms)
    return out


class _Plan:
    """The plan being built: provisions in the order they joined, each once."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.items: dict[str, Planned] = {}

    def add(self, pid: str, role: Role, path: tuple[str, ...], reason: str) -> None:
        if pid not in self.items and len(self.items) < self.most:
            self.items[pid] = Planned(pid, role, path, reason)


def plan_answer(
    ranked: Sequence[str],
    core: Sequence[str],
    nav: NavigatorIndex,
    text: Text,
    asks: Sequence[frozenset[str]],
    tokenize: Tokenize,
    policy: PlanPolicy = PlanPolicy(),
    question_terms: frozenset[str] = frozenset(),
    term: Text | None = None,
    words: RulebookWords = GENERIC,
) -> list[Planned]:
    """The provisions an answer cites, each with its role and path (see the module docstring); ``term``: a
    definition's defined term (`Provision.term`); ``words``: how the rulebook words exceptions and
    references."""
    plan = _Plan(policy.most)
    terms_of: dict[str, frozenset[str]] = {}

    def terms(pid: str) -> frozenset[str]:
        if pid not in terms_of:
            terms_of[pid] = frozenset(tokenize(text(pid)))
        return terms_of[pid]

    for rank, pid in enumerate(core, start=1):
        role = Role.DEFINITION if nav.kind.get(pid) is ProvisionKind.DEFINITION else Role.RULE
        if policy.headings and _is_heading(nav, pid):
            _state_list(plan, nav, pid, rank)
            continue
        plan.add(pid, role, (pid,), f"ranked {rank}")
    # the ranker rates a list's topic and one of its cases: the list states the rule, its heading nothing
    if policy.lists:
        top = ranked[: policy.list_reach]
        for rank, pid in enumerate(top, start=1):
            if (
                _is_heading(nav, pid)
                and nav.kind.get(pid)
                is not ProvisionKind.SECTION  # a section is a topic, not a list of cases
                and any(nav.parent.get(other) == pid for other in top)
            ):
                _state_list(plan, nav, pid, rank)
    if policy.asks:
        for ask in asks:
            covering = next((pid for pid in plan.items if ask <= terms(pid)), None)
            found = covering or next(
                (pid for pid in ranked[: policy.reach] if ask <= terms(pid) and not nav.is_container(pid)),
                None,
            )
            if found is None:
                continue
            if covering is None:
                plan.add(found, Role.RULE, (found,), f"states {as_written(ask, text(found), tokenize)}")
            if not policy.siblings:
                continue
            cases = [sibling for sibling in _siblings(nav, found) if ask <= terms(sibling)]
            if len(cases) <= MOST_CASES:  # the other cases the list splits the ask into
                for sibling in cases:
                    plan.add(
                        sibling,
                        Role.CONDITION,
                        (found, sibling),
                        f"another case of {as_written(ask, text(found), tokenize)}",
                    )
    for pid in list(plan.items):
        _graph_additions(pid, plan, nav, text, policy, words)
    if policy.siblings:
        _complete_short_lists(plan, nav)
    if policy.definitions:
        _definitions(plan, nav, term or (lambda _pid: ""), tokenize, question_terms, terms)
    return list(plan.items.values())


SHORT_LIST = 4
"""A list of at most this many paragraphs is stated whole once two of them are in the plan."""
MOST_CASES = 2
"""An ask more than this many other paragraphs of a list state is the list's common topic (every case of
fall protection names fall arrest), not what splits it into cases (leading edges, and the surfaces they are
built from)."""


def _is_heading(nav: NavigatorIndex, pid: str) -> bool:
    """A provision with no text of its own over a short list of paragraphs (it names the topic they state)."""
    return (
        not nav.text_len.get(pid)
        and 0 < len(nav.children.get(pid, [])) <= SHORT_LIST
        and not nav.is_container(pid)
    )


def _state_list(plan: _Plan, nav: NavigatorIndex, heading: str, rank: int) -> None:
    for kid in nav.children[heading]:
        plan.add(kid, Role.RULE, (heading, kid), f"a paragraph of {heading} (ranked {rank})")


def _complete_short_lists(plan: _Plan, nav: NavigatorIndex) -> None:
    """When two paragraphs of a short list are chosen, the list's other paragraphs join: a short list splits
    one duty into its cases (water: do not work in it, monitor the removal equipment, divert surface
    water)."""
    counts: dict[str, list[str]] = {}
    for pid in plan.items:
        if (parent := nav.parent.get(pid)) is not None:
            counts.setdefault(parent, []).append(pid)
    for parent, chosen in counts.items():
        kids = [k for k in nav.children.get(parent, []) if nav.kind.get(k) is ProvisionKind.PARAGRAPH]
        if len(chosen) >= 2 and len(kids) <= SHORT_LIST:
            for kid in kids:
                plan.add(kid, Role.CONDITION, (chosen[0], parent, kid), f"the rest of the list {parent}")


def _siblings(nav: NavigatorIndex, pid: str) -> list[str]:
    parent = nav.parent.get(pid)
    return [s for s in nav.children.get(parent, []) if s != pid] if parent else []


def _graph_additions(
    pid: str, plan: _Plan, nav: NavigatorIndex, text: Text, policy: PlanPolicy, words: RulebookWords
) -> None:
    """What the navigator graph joins to one chosen provision, by the relations the policy follows."""
    path = plan.items[pid].path
    own = set(ancestors_of(nav, pid))
    for target in sorted(nav.refs_out.get(pid, ())):
        # "unless another provision of paragraph (b)": the enclosing list, not a provision to cite
        if target in own:
            continue
        role = reference_role(citing_sentence(text(pid), nav.ref_text.get((pid, target), "")), words)
        joined = (role is Role.EXCEPTION and policy.exceptions) or (
            role is Role.PROCEDURE and policy.procedures and not _whole_section(nav, target)
        )
        if not joined:
            continue
        plan.add(
            target,
            role,
            (*path, target),
            f"the exception {pid} names" if role is Role.EXCEPTION else f"required by {pid}",
        )
        # the other cases of the same section sent to the same provision (roofing, precast, ...)
        if policy.siblings:
            for other in sorted(nav.refs_in.get(target, ())):
                if (
                    other != pid
                    and nav.section.get(other) == nav.section.get(pid)
                    and reference_role(
                        citing_sentence(text(other), nav.ref_text.get((other, target), "")), words
                    )
                    is role
                ):
                    plan.add(other, Role.CONDITION, (*path, target, other), f"another case sent to {target}")
    if policy.exceptions:
        for source in sorted(nav.refs_in.get(pid, ())):
            if words.modifying_words.search(
                citing_sentence(text(source), nav.ref_text.get((source, pid), ""))
            ):
                plan.add(source, Role.EXCEPTION, (*path, source), f"changes {pid}")


def _window(ask: frozenset[str], words: Sequence[str], tokenize: Tokenize) -> tuple[int, int] | None:
    """The shortest run of ``words`` (first and last index) that holds every term of ``ask``."""
    held = [ask.intersection(tokenize(w)) for w in words]
    best: tuple[int, int] | None = None
    for start in (i for i, h in enumerate(held) if h):
        seen: set[str] = set()
        for end in range(start, len(words)):
            seen |= held[end]
            if len(seen) == len(ask):
                if best is None or end - start < best[1] - best[0]:
                    best = (start, end)
                break
    return best


def as_written(ask: frozenset[str], text: str, tokenize: Tokenize, reach: int = 0) -> str:
    """An ask in the words of a text that states it: the shortest run of the text's words that holds every
    term of the ask ("personal fall arrest system", not the index's "arrest fall person system"); ``reach``:
    at most this many more content words on each side (the phrase's head: "leading-edge" -> "leading-edge
    work")."""
    words = re.findall(r"[\w-]+", text)
    found = _window(ask, words, tokenize)
    if found is None:
        return " ".join(sorted(ask))
    start, end = found
    while reach and start > found[0] - reach and start > 0 and tokenize(words[start - 1]):
        start -= 1
    while reach and end < found[1] + reach and end + 1 < len(words) and tokenize(words[end + 1]):
        end += 1
    return " ".join(words[start : end + 1])


def _whole_section(nav: NavigatorIndex, pid: str) -> bool:
    """A section with no text of its own (a heading over its paragraphs): "in accordance with § 1926.502"
    sends to a whole section, too broad to state; a section that is itself a rule (ADGM's "Rule 6.1.1")
    joins."""
    return nav.kind.get(pid) is ProvisionKind.SECTION and not nav.text_len.get(pid)


def ancestors_of(nav: NavigatorIndex, pid: str) -> list[str]:
    out, node = [], nav.parent.get(pid)
    while node is not None:
        out.append(node)
        node = nav.parent.get(node)
    return out


def _definitions(
    plan: _Plan,
    nav: NavigatorIndex,
    term_of: Text,
    tokenize: Tokenize,
    question_terms: frozenset[str],
    terms: Callable[[str], frozenset[str]],
) -> None:
    """Definitions, in the chosen provisions' parts of the rulebook, of terms the question uses and a
    chosen provision uses; the term is the provision's own (`Provision.term`), else the CFR id's
    ``[Term]``."""
    chosen = list(plan.items)
    homes = {_container(nav, pid) for pid in chosen}
    for pid, kind in nav.kind.items():
        if kind is not ProvisionKind.DEFINITION or _container(nav, pid) not in homes:
            continue
        term = term_of(pid) or (pid[pid.find("[") + 1 : -1] if "[" in pid else "")
        words = frozenset(tokenize(term))
        user = next((c for c in chosen if words and words <= terms(c)), None)
        if words and words <= question_terms and user is not None:
            plan.add(pid, Role.DEFINITION, (user, pid), f"defines {term!r}")


def _container(nav: NavigatorIndex, pid: str) -> str:
    """The nearest container (subpart or part) above a provision: the part of the rulebook it belongs to."""
    node = nav.parent.get(pid)
    while node is not None and not nav.is_container(node):
        node = nav.parent.get(node)
    return node or ""
