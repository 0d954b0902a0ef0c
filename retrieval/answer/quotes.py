"""The quote checker both answer modes share: a statement reaches the user only with the exact
span of each provision it cites.

A claimed quote is looked up verbatim in the stored provision text, comparing every run of
whitespace as one space (line breaks and double spaces in the stored text do not matter); the
offsets returned point into the original stored text. A statement with a quote that is not
there, or with no quote at all, is dropped and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from bifrost.core.answer_types import Quote, Statement
from bifrost.core.types import Provision
from bifrost.retrieval.answer.base import CheckedStatements, DraftStatement, DroppedStatement, QuoteClaim

log = logging.getLogger(__name__)

Lookup = Callable[[str], Provision | None]


def normalize(text: str) -> tuple[str, list[int]]:
    """``text`` with each whitespace run squeezed to one space, and for each character kept
    its index in ``text`` (so that a match maps back to the original)."""
    chars: list[str] = []
    where: list[int] = []
    in_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if in_space:
                continue
            ch, in_space = " ", True
        else:
            in_space = False
        chars.append(ch)
        where.append(i)
    return "".join(chars), where


def locate(quote: str, provision: Provision) -> Quote | None:
    """The span of ``provision.text`` that ``quote`` copies (whitespace-insensitively), else None."""
    needle = normalize(quote)[0].strip()
    if not needle:
        return None
    hay, where = normalize(provision.text)
    at = hay.find(needle)
    if at < 0:
        return None
    start, end = where[at], where[at + len(needle) - 1] + 1
    return Quote(provision_id=provision.id, start=start, end=end, text=provision.text[start:end])


def verifies(quote: Quote, provision: Provision) -> bool:
    """True when the quote is exactly the provision text between its offsets."""
    return quote.provision_id == provision.id and provision.text[quote.start : quote.end] == quote.text


def _resolve(claim: QuoteClaim, draft: DraftStatement, lookup: Lookup) -> Quote | None:
    for pid in (claim.provision_id,) if claim.provision_id else draft.citations:
        p = lookup(pid)
        if p is not None and (q := locate(claim.text, p)) is not None:
            return q
    return None


def check_statement(draft: DraftStatement, lookup: Lookup) -> Statement | DroppedStatement:
    """The statement with verified quotes, cited by the provisions they come from; or why not."""
    if not draft.claims:
        return DroppedStatement(draft.text, "no quote supports it")
    quotes: list[Quote] = []
    for claim in draft.claims:
        q = _resolve(claim, draft, lookup)
        if q is None:
            where = claim.provision_id or " or ".join(draft.citations) or "any cited provision"
            return DroppedStatement(draft.text, f"quote not found verbatim in {where}: {claim.text[:80]!r}")
        if q not in quotes:
            quotes.append(q)
    quoted = list(dict.fromkeys(q.provision_id for q in quotes))
    unquoted = [c for c in draft.citations if c not in quoted]
    if unquoted:
        log.info("citation(s) without a quote removed from a statement: %s", ", ".join(unquoted))
    citations = tuple(c for c in draft.citations if c in quoted) + tuple(
        c for c in quoted if c not in draft.citations
    )
    return Statement(text=draft.text, citations=citations, quotes=tuple(quotes), role=draft.role)


def check_statements(drafts: Sequence[DraftStatement], lookup: Lookup) -> CheckedStatements:
    """Keep the statements whose every quote is found in its provision; log the others."""
    out = CheckedStatements()
    for draft in drafts:
        result = check_statement(draft, lookup)
        if isinstance(result, DroppedStatement):
            log.warning("statement dropped (%s): %s", result.reason, result.text[:80])
            out.dropped.append(result)
        else:
            out.statements.append(result)
    return out
