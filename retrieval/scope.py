"""What each part of a rulebook says it covers and what it leaves to another part, read from the rulebook's
own scope sentences, so that a question about a subject a specific part covers can prefer that part's rule
over a general one that shares its words.

Three kinds of statement, each read from one sentence of one provision, for any rulebook that states its
scope in these words:

- ``defers``: "Requirements relating to fall protection for employees working on scaffolds are provided in
  subpart L of this part": the subject (before the verb) is left by the part holding the sentence (its
  section, or the section's subpart when the section is the subpart's scope section) to the part cited;
- ``applies``: "This subpart applies to all scaffolds used in workplaces ...";
- ``excludes``: "This section does not apply to aerial lifts ...".

`ScopeIndex` weighs each statement's subject by its terms' rarity and scores a candidate by how much of the
subject of the statements over it a question's terms cover: the ranker's `scope` feature group.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bifrost.core.provisions import CONTAINER_KINDS
from bifrost.core.sentences import sentences
from bifrost.core.types import Provision
from bifrost.retrieval.navigator import NavigatorIndex

Kind = Literal["defers", "applies", "excludes"]
Tokenize = Callable[[str], list[str]]
ScopeColumns = Callable[[str], tuple[float, float, float, float]]

_DEFERS = re.compile(
    r"\b(?:are|is)\s+(?:also\s+)?(?:provided|set\s+(?:forth|out)|found|contained|specified|addressed|covered)"
    r"(?:\s+exclusively)?\s+(?:in|by|under)\b",
    re.I,
)
_APPLIES = re.compile(
    r"\b(?:this|the)\s+(subpart|section|part|chapter|standard|rule|paragraph)\s+(?:also\s+)?applies\s+"
    r"(?:only\s+)?to\s+",
    re.I,
)
_EXCLUDES = re.compile(r"\b(?:does|do|shall)\s+not\s+apply\s+to\s+", re.I)
_SUBJECT_END = re.compile(r"[,;]\s+(?:except|unless|provided|the criteria|which|and also)\b|\.\s", re.I)
_SCOPE_HEADING = re.compile(r"\b(?:scope|application|applicability|purpose|coverage)\b", re.I)
_CONTAINER_WORDS = ("subpart", "part", "chapter")
MOST_TERMS = 24
"""A subject's terms weighed (the first ones): a long list of covered things is still one statement."""


@dataclass(frozen=True)
class ScopeStatement:
    """One sentence of ``source`` saying what ``scope`` covers (``applies``), does not cover
    (``excludes``), or leaves to ``target`` (``defers``); ``subject`` is what it is said of."""

    kind: Kind
    source: str
    scope: str
    subject: str
    target: str | None = None


def read_scopes(provisions: Iterable[Provision], nav: NavigatorIndex) -> list[ScopeStatement]:
    """Every scope statement of the rulebook, in document order."""
    ps = list(provisions)
    headings = {p.id: p.heading or "" for p in ps}
    out: list[ScopeStatement] = []
    for p in ps:
        if p.kind in CONTAINER_KINDS or not p.text:
            continue
        for sentence in sentences(p.text):
            out.extend(_statements(p.id, sentence, nav, headings))
    return out


def _statements(
    pid: str, sentence: str, nav: NavigatorIndex, headings: dict[str, str]
) -> list[ScopeStatement]:
    """The statements of one sentence of ``pid`` (a sentence may both exclude and defer)."""
    out: list[ScopeStatement] = []
    deferral = _DEFERS.search(sentence)
    target = _cited_after(pid, sentence, deferral.end(), nav) if deferral else None
    if deferral and target is not None:
        subject = sentence[: deferral.start()]
        excluded = _EXCLUDES.search(subject)
        subject = subject[excluded.end() :] if excluded else subject
        out.append(ScopeStatement("defers", pid, _home(pid, nav, headings), _subject(subject), target))
    applies = _APPLIES.search(sentence)
    if applies:
        scope = _named_scope(pid, applies.group(1), sentence[: applies.start()], nav)
        out.append(ScopeStatement("applies", pid, scope, _subject(sentence[applies.end() :])))
    excludes = _EXCLUDES.search(sentence)
    if excludes and not applies:
        word = re.search(
            r"\b(subpart|section|part|chapter|standard|rule|paragraph)\b", sentence[: excludes.start()], re.I
        )
        scope = _named_scope(pid, word.group(1) if word else "section", sentence[: excludes.start()], nav)
        out.append(ScopeStatement("excludes", pid, scope, _subject(sentence[excludes.end() :])))
    return [s for s in out if s.subject]


def _subject(text: str) -> str:
    """What a statement is said of: ``text`` up to the clause that qualifies it."""
    end = _SUBJECT_END.search(text)
    return (text[: end.start()] if end else text).strip(" .:;,")


def _cited_after(pid: str, sentence: str, start: int, nav: NavigatorIndex) -> str | None:
    """The provision that ``pid`` cites within ``sentence`` after ``start`` (the first one written)."""
    tail = sentence[start:]
    found = [
        (tail.find(nav.ref_text[(pid, t)]), t)
        for t in nav.refs_out.get(pid, ())
        if (pid, t) in nav.ref_text and nav.ref_text[(pid, t)] in tail
    ]
    return min(found)[1] if found else None


def _home(pid: str, nav: NavigatorIndex, headings: dict[str, str]) -> str:
    """The part a deferral is stated for: the section holding ``pid``, or that section's container when the
    section is its container's scope section (its heading says so, or it comes first)."""
    section = nav.section.get(pid, pid)
    container = nav.parent.get(section)
    if container is None or nav.kind.get(container) not in CONTAINER_KINDS:
        return section
    first = nav.children.get(container, [section])[0] == section
    return container if first or _SCOPE_HEADING.search(headings.get(section, "")) else section


def _named_scope(pid: str, word: str, before: str, nav: NavigatorIndex) -> str:
    """The part a sentence's subject names: a provision cited before the verb ("Paragraph (c)(1) of this
    section does not apply"), the container ("This subpart"), the parent ("This paragraph") or the
    section."""
    cited = [
        t
        for t in nav.refs_out.get(pid, ())
        if (pid, t) in nav.ref_text
        and nav.ref_text[(pid, t)] in before
        and nav.ref_text[(pid, t)].lower() != "this section"
    ]
    if cited:
        return sorted(cited, key=lambda t: before.find(nav.ref_text[(pid, t)]))[0]
    word = word.lower()
    if word in _CONTAINER_WORDS:
        return next(
            (a for a in _chain(pid, nav) if nav.kind.get(a) in CONTAINER_KINDS), nav.section.get(pid, pid)
        )
    if word == "paragraph":
        return nav.parent.get(pid) or pid
    return nav.section.get(pid, pid)


def _chain(pid: str, nav: NavigatorIndex) -> list[str]:
    """``pid`` and its ancestors, nearest first."""
    out, cur = [pid], nav.parent.get(pid)
    while cur is not None and len(out) < 16:
        out.append(cur)
        cur = nav.parent.get(cur)
    return out


@dataclass(frozen=True)
class _Weighed:
    statement: ScopeStatement
    weights: dict[str, float]
    total: float


@dataclass
class ScopeIndex:
    """The scope statements of one corpus, each subject's terms weighed by IDF, looked up by the part they
    are stated of (``scope``) and the part they defer to (``target``)."""

    tokenize: Tokenize
    by_scope: dict[str, list[_Weighed]] = field(default_factory=dict)
    by_target: dict[str, list[_Weighed]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        statements: Sequence[ScopeStatement],
        tokenize: Tokenize,
        idf: Callable[[Sequence[str]], dict[str, float]],
    ) -> ScopeIndex:
        """The index of ``statements``; ``idf`` weighs tokens (those the corpus lacks get none)."""
        subjects = {s.subject: list(dict.fromkeys(tokenize(s.subject)))[:MOST_TERMS] for s in statements}
        weights = idf(sorted({t for ts in subjects.values() for t in ts}))
        by_scope: dict[str, list[_Weighed]] = defaultdict(list)
        by_target: dict[str, list[_Weighed]] = defaultdict(list)
        for s in statements:
            w = {t: weights[t] for t in subjects[s.subject] if weights.get(t, 0.0) > 0}
            if not w:
                continue
            weighed = _Weighed(s, w, sum(w.values()))
            by_scope[s.scope].append(weighed)
            if s.target is not None:
                by_target[s.target].append(weighed)
        return cls(tokenize, dict(by_scope), dict(by_target))

    def scorer(self, question: str, nav: NavigatorIndex) -> ScopeColumns:
        """For one question, the `scope` columns of a candidate: how much of the subject of a deferral away
        from it, of a deferral to it, of what its parts apply to and of what they exclude the question
        covers (each the best statement's share of IDF, 0 to 1)."""
        terms = set(self.tokenize(question))

        def cover(w: _Weighed) -> float:
            return sum(v for t, v in w.weights.items() if t in terms) / w.total

        def columns(pid: str) -> tuple[float, float, float, float]:
            chain = _chain(pid, nav)
            best = {"away": 0.0, "here": 0.0, "applies": 0.0, "excludes": 0.0}
            for a in chain:
                for w in self.by_scope.get(a, ()):
                    kind = w.statement.kind
                    if kind == "defers" and w.statement.target in chain:
                        continue
                    key = "away" if kind == "defers" else kind
                    best[key] = max(best[key], cover(w))
                for w in self.by_target.get(a, ()):
                    best["here"] = max(best["here"], cover(w))
            return best["away"], best["here"], best["applies"], best["excludes"]

        return columns


def no_scope(pid: str) -> tuple[float, float, float, float]:
    """The `scope` columns of a corpus whose scope statements were not read."""
    return 0.0, 0.0, 0.0, 0.0
