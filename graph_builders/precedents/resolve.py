"""Precedent rows resolved against a corpus: each citation as written, with the provision it names (a section
or subpart citation resolves to that node; one the corpus lacks is kept, marked outside it)."""

from __future__ import annotations

from collections.abc import Sequence

from bifrost.core.precedent_types import Precedent, ResolvedCite
from bifrost.graph_builders.navigator.named import NamedFinder
from bifrost.graph_builders.precedents.read import PrecedentRowIn


def resolve_cite(written: str, finder: NamedFinder) -> ResolvedCite:
    """The provision one written citation names (its first resolved reading), else why it is not in the
    corpus."""
    if written.strip() in finder.known:  # a bare id the extractor reads only in context ("1926": the part)
        return ResolvedCite(written=written, target_id=written.strip())
    found = finder.find(written)
    for cite in found:
        if cite.resolved:
            return cite.model_copy(update={"written": written})
    reason = found[0].reason if found else "not a citation of this corpus"
    return ResolvedCite(written=written, reason=reason or "not in the corpus")


def resolve_precedents(
    rows: Sequence[PrecedentRowIn], corpus: str, finder: NamedFinder, issuer: str = "", source: str = ""
) -> list[Precedent]:
    """Precedent records of ``corpus``; ``issuer`` fills rows that name none."""
    memo: dict[str, ResolvedCite] = {}
    out = []
    for r in rows:
        cites = tuple(memo.setdefault(c, resolve_cite(c, finder)) for c in r.cites)
        out.append(
            Precedent(
                corpus=corpus,
                id=r.id,
                title=r.title,
                question=r.question,
                date=r.date,
                url=r.url,
                issuer=r.issuer or issuer,
                cites=cites,
                source=source,
            )
        )
    return out
