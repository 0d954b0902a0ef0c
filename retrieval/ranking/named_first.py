"""A question that names a provision is answered from it: the named provisions (those with text of their own)
lead the ranking and the cited set, whatever the ranker scored; sections and subparts named are left to the
ranker, which learns which of their parts fit the question (`retrieval.ranking.ltr.features`, group
``named``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from bifrost.core.precedent_types import Precedent, ResolvedCite
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Provision
from bifrost.graph_builders.navigator.named import as_written
from bifrost.retrieval.channels.precedents import PrecedentVotes
from bifrost.retrieval.channels.base import Channels
from bifrost.retrieval.result import RetrievalResult

Lookup = Callable[[str], Provision | None]


def read_named(
    result: RetrievalResult,
    question: str,
    channels: Channels,
    exclude: Collection[str] = (),
    use_named: bool = True,
    use_precedents: bool = True,
) -> RetrievalResult:
    """The result with the question's named provisions and precedent votes, read when the retriever did not
    (``use_named``/``use_precedents`` off: neither is read, an ablation)."""
    named = result.named if result.named is not None else (channels.names(question) if use_named else [])
    votes = (
        result.votes
        if result.votes is not None
        else (channels.votes(question, exclude) if use_precedents else PrecedentVotes())
    )
    outside = (
        result.outside
        if result.outside is not None
        else (channels.outside_near(question, exclude) if use_precedents else [])
    )
    return replace(result, named=named, votes=votes, outside=outside)


def leading(
    result: RetrievalResult, lookup: Lookup, has_children: Callable[[str], bool] | None = None
) -> list[str]:
    """The named provisions that lead the answer: resolved, with text of their own, in the order written; a
    citation that resolves in several places ("Rule 3.2.1" of several rulebooks), or in one only because no
    rulebook is named (``via="context"``), leads nowhere: the ranker weighs its places. With ``has_children``,
    a provision with parts of its own ("GEN 3.3", "1926.451(g)") does not lead either: a question about what
    it holds is answered by one of its parts, which the ranking finds."""
    out: list[str] = []
    places: dict[str, set[str]] = {}
    for cite in result.named or ():
        if cite.target_id is not None:
            places.setdefault(cite.written, set()).add(cite.target_id)
    for cite in result.named or ():
        pid = cite.target_id
        if pid is None or pid in out or len(places[cite.written]) > 1 or cite.via == "context":
            continue
        p = lookup(pid)
        if (
            p is not None
            and (p.text or "").strip()
            and not p.reserved
            and not (has_children and has_children(pid))
        ):
            out.append(pid)
    return out


ASKING = (
    "what",
    "does",
    "do",
    "say",
    "says",
    "require",
    "requires",
    "requirement",
    "requirements",
    "mean",
    "means",
    "state",
    "states",
    "explain",
    "cover",
    "covers",
    "apply",
    "applies",
    "text",
    "provision",
    "rule",
    "section",
    "paragraph",
    "subpart",
    "part",
    "standard",
    "regulation",
    "tell",
    "describe",
    "content",
    "contents",
    "about",
    "please",
    "quote",
    "read",
    "current",
)
"""Words that ask what a provision says; a question of nothing else names its provisions only."""


def only_names(
    question: str,
    named: Sequence[ResolvedCite],
    tokenize: Callable[[str], list[str]],
    loosen: Callable[[str], str] = as_written,
) -> bool:
    """True when the question asks nothing beyond what the provisions it names say ("What does 1926.651(k)(1)
    require?"): once its citations are cut out, no word is left but the asking ones."""
    rest = loosen(question)  # the citations as written were read from the loosened text
    for c in named:
        rest = rest.replace(c.written, " ")
    rest = re.sub(r"\b\d[\d.]*(?:\([^()\s]{1,6}\))*|§+", " ", rest)
    asking = set(tokenize(" ".join(ASKING)))
    return not [t for t in tokenize(rest) if t not in asking]


def named_first(
    result: RetrievalResult,
    lookup: Lookup,
    cite_max: int,
    question: str = "",
    tokenize: Callable[[str], list[str]] | None = None,
    has_children: Callable[[str], bool] | None = None,
    loosen: Callable[[str], str] = as_written,
) -> RetrievalResult:
    """``result`` with the leading named provisions first in the cited set and the items; a question that asks
    nothing beyond what they say (`only_names`, given ``tokenize``) cites them alone, each stated whole. A
    named provision with parts of its own (``has_children``) leads the cited set (the answer states what was
    named) but not the ranking, whose first places stay with the passages that match the question best."""
    only = tokenize is not None and only_names(question, result.named or (), tokenize, loosen)
    lead = leading(result, lookup)
    if not lead:
        return result
    ranked_first = set(lead if only else leading(result, lookup, has_children))
    by_id = {it.id: it for it in result.items}
    top = result.items[0].score if result.items else 1.0
    first = []
    for pid in lead:
        it = by_id.get(pid)
        if it is None:  # a leading provision has text, so the lookup holds it
            it = RetrievedItem(
                corpus=lookup(pid).corpus,
                id=pid,
                score=top,
                via=(Via.NAMED,),
                path=(pid,),  # type: ignore[union-attr]
                why="named in the question",
            )
        elif Via.NAMED not in it.via:
            it = it.model_copy(
                update={"via": (Via.NAMED, *it.via), "why": "named in the question; " + it.why}
            )
        first.append(it)
    marked = {it.id: it for it in first}
    items = [it for it in first if it.id in ranked_first]
    items += [marked.get(it.id, it) for it in result.items if it.id not in ranked_first]
    if only:
        return replace(result, items=items, cited=first, whole=tuple(lead))
    if result.cited is None:
        if len(ranked_first) == len(lead):  # the answer cuts the cited set from the ranking, which they lead
            return replace(result, items=items)
        rest = [it for it in items if it.id not in marked][: max(cite_max - len(first), 0)]
        return replace(result, items=items, cited=first + rest)
    cited_rest = [it for it in result.cited if it.id not in marked]
    return replace(result, items=items, cited=(first + cited_rest)[: max(cite_max, len(first))])


def about_named(
    named: Sequence[ResolvedCite], parent: Callable[[str], str | None]
) -> Callable[[Precedent], bool] | None:
    """For a question that names provisions, which precedents are about them: those citing a named provision,
    one above it or one below it (None: the question names none, every similar precedent is shown)."""
    targets = {c.target_id for c in named if c.target_id is not None}
    if not targets:
        return None

    def lineage(pid: str) -> set[str]:
        out = {pid}
        cur = parent(pid)
        while cur is not None and len(out) < 16:
            out.add(cur)
            cur = parent(cur)
        return out

    near = {t for target in targets for t in lineage(target)}
    return lambda p: any(pid in near or lineage(pid) & targets for pid in p.resolved_ids)
