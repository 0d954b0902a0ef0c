"""The jurisdiction packs this installation has, and the lookups everything else goes through.

Packs are the subpackages of `bifrost.graph_builders.jurisdictions`, plus any module named in
BIFROST_JURISDICTION_PACKS (comma-separated, importable; each exposes ``PACK``), so a new rulebook family
is one folder. A corpus is read with the pack stored with it, else the pack that knows its name, else
the pack that reads new corpora.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import replace
from functools import lru_cache

from bifrost.core.corpora import CorpusSpec
from bifrost.core.errors import BifrostError
from bifrost.core.types import Provision
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.graph_builders.jurisdictions.base import Jurisdiction
from bifrost.graph_builders.navigator.named import NamedFinder

PACKS_ENV = "BIFROST_JURISDICTION_PACKS"
_HERE = "bifrost.graph_builders.jurisdictions"


def packs() -> dict[str, Jurisdiction]:
    """Every pack by its jurisdiction's name."""
    return _discover(os.environ.get(PACKS_ENV, ""))


@lru_cache(maxsize=8)
def _discover(extra: str) -> dict[str, Jurisdiction]:
    here = importlib.import_module(_HERE)
    modules = [f"{_HERE}.{m.name}" for m in pkgutil.iter_modules(here.__path__) if m.ispkg]
    modules += [m.strip() for m in extra.split(",") if m.strip()]
    found: dict[str, Jurisdiction] = {}
    for name in modules:
        try:
            pack = importlib.import_module(name).PACK
        except (ImportError, AttributeError) as e:
            raise BifrostError(f"jurisdiction pack {name!r} cannot be loaded ({PACKS_ENV}?): {e}") from e
        if not isinstance(pack, Jurisdiction):
            raise BifrostError(f"jurisdiction pack {name!r}: PACK does not provide what a Jurisdiction must")
        if pack.name in found:
            raise BifrostError(f"jurisdiction {pack.name!r} is provided twice (by {name!r} too)")
        found[pack.name] = pack
    if sum(p.reads_new_corpora for p in found.values()) != 1:
        raise BifrostError("exactly one jurisdiction pack must read new corpora (reads_new_corpora = True)")
    return found


def jurisdiction(name: str) -> Jurisdiction:
    """The pack of ``name``; one line naming the known ones otherwise."""
    known = packs()
    if name not in known:
        raise BifrostError(f"no jurisdiction pack {name!r} (known: {', '.join(sorted(known))})")
    return known[name]


def _known_spec(corpus: str) -> CorpusSpec | None:
    return next((s for p in packs().values() for s in p.corpora if s.name == corpus), None)


def corpus_spec(corpus: str) -> CorpusSpec:
    """The spec of a corpus a pack knows, or a bare spec for a new name, read with the new-corpora pack."""
    spec = _known_spec(corpus)
    if spec is not None:
        return spec
    return CorpusSpec(name=corpus, jurisdiction=next(p.name for p in packs().values() if p.reads_new_corpora))


def pack_of(corpus: str, stored: str | None = None) -> Jurisdiction:
    """The pack a corpus is read with: the jurisdiction stored with it, else its spec's."""
    return jurisdiction(stored or corpus_spec(corpus).jurisdiction)


def words_for(corpus: str) -> RulebookWords:
    """The words of a known corpus's jurisdiction; any other corpus gets `GENERIC`, with a note saying so
    (`graph stats` prints it)."""
    spec = _known_spec(corpus)
    if spec is not None:
        return jurisdiction(spec.jurisdiction).words
    return replace(
        GENERIC,
        note=f"corpus {corpus!r} has no rulebook words of its own: the answer plan reads "
        "exceptions, incorporations and authorities by generic English words",
    )


def named_finder(pack: Jurisdiction, corpus: str, provisions: list[Provision]) -> NamedFinder:
    """What finds the provisions a question names in ``corpus``: the pack's extractor, its stand-ins, its
    successor table and its loose citation forms."""
    return NamedFinder.over(
        corpus,
        pack.reference_extractor(),
        provisions,
        pack.question_stand_ins(corpus, provisions),
        pack.successors(),
        pack.loosen,
    )
