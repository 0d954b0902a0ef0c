"""A site-words glossary: the words users say mapped to the words the rulebook uses ("spoil =
excavated materials"), added to a question's lexical query so BM25 can match a rule that never
says "spoil". A plain text file a company can extend; one built-in (`construction`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from bifrost.core.errors import ConfigError

BUILT_IN = ("construction",)
"""Glossaries shipped in `bifrost.retrieval.channels.glossaries`, by name."""


@dataclass(frozen=True)
class Entry:
    """One line: the site phrasings that mean ``rule_words``."""

    site: tuple[str, ...]
    rule_words: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Glossary:
    """Entries of one glossary file, and where it was read from (for logs and model cards)."""

    entries: tuple[Entry, ...]
    source: str

    def matches(self, question: str) -> list[Entry]:
        """The entries whose site words the question uses (whole words, any case, a plural s/es too); where
        phrases overlap the longest wins ("cherry picker" is an aerial lift, not a "picker" crane)."""
        spans = sorted(
            (
                (m.start(), m.end(), i)
                for i, e in enumerate(self.entries)
                for m in e.pattern.finditer(question)
            ),
            key=lambda s: (s[0] - s[1], s[0]),
        )
        taken: list[tuple[int, int]] = []
        kept: set[int] = set()
        for start, end, i in spans:
            if all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
                kept.add(i)
        return [e for i, e in enumerate(self.entries) if i in kept]

    def expansion(self, question: str) -> str:
        """The rule words of every entry the question uses, once each ("" when none)."""
        return " ".join(dict.fromkeys(e.rule_words for e in self.matches(question)))


def parse_glossary(text: str, source: str) -> Glossary:
    """Entries of ``site words, other site words = rule words`` lines (``#`` starts a comment); a
    malformed line is a `ConfigError` naming the source and line."""
    entries = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        left, eq, right = line.partition("=")
        site = tuple(s.strip().lower() for s in left.split(",") if s.strip())
        if not eq or not site or not right.strip():
            raise ConfigError(
                f"glossary {source}: line {n}: expected 'site words = rule words', got {raw.strip()!r}"
            )
        alternatives = "|".join(re.escape(s) for s in sorted(site, key=len, reverse=True))
        entries.append(
            Entry(site, right.strip(), re.compile(rf"(?<!\w)(?:{alternatives})(?:e?s)?(?!\w)", re.I))
        )
    return Glossary(tuple(entries), source)


def load_glossary(name_or_path: str) -> Glossary | None:
    """The glossary a setting names: "" for none, a built-in name (`BUILT_IN`), or a file path."""
    if not name_or_path:
        return None
    if name_or_path in BUILT_IN:
        text = (
            resources.files("bifrost.retrieval.channels.glossaries")
            .joinpath(f"{name_or_path}.txt")
            .read_text(encoding="utf-8")
        )
        return parse_glossary(text, name_or_path)
    path = Path(name_or_path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(
            f"glossary {path}: cannot read it ({e.strerror or e}); give a file of 'site words = rule words' "
            f"lines or one of: {', '.join(BUILT_IN)}"
        ) from None
    return parse_glossary(text, str(path))
