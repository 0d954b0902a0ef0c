"""The words a rulebook uses for what the answer plan and the verdict read, per jurisdiction, beside its
citation grammar: how a sentence makes a cited provision an exception, a definition or an incorporated
requirement, how it changes the rule it cites, and who its authorities are ("The Regulator may ..." is a
power of the authority, not a permission to the reader's firm).

`GENERIC` holds English words any rulebook uses; a jurisdiction adds its own (ADGM states exceptions as
"Subject to Rule 6.2.1", 198 times) in its pack. A corpus of no known jurisdiction gets `GENERIC`
(`jurisdictions.registry.words_for`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property


def _words(alternatives: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.I)


@dataclass(frozen=True)
class RulebookWords:
    """Regular-expression alternatives, matched as whole words, case-insensitive (authorities: as written)."""

    jurisdiction: str
    exception: tuple[str, ...]
    definition: tuple[str, ...]
    procedure: tuple[str, ...]
    modifies: tuple[str, ...]
    authorities: tuple[str, ...]
    actors: tuple[str, ...] = ()
    note: str = field(default="", compare=False)

    def adding(self, jurisdiction: str, **more: tuple[str, ...]) -> RulebookWords:
        """These words and ``more`` of each kind, for ``jurisdiction``."""
        return replace(
            self, jurisdiction=jurisdiction, **{k: (*getattr(self, k), *v) for k, v in more.items()}
        )

    @cached_property
    def exception_words(self) -> re.Pattern[str]:
        return _words(self.exception)

    @cached_property
    def definition_words(self) -> re.Pattern[str]:
        return _words(self.definition)

    @cached_property
    def procedure_words(self) -> re.Pattern[str]:
        return _words(self.procedure)

    @cached_property
    def modifying_words(self) -> re.Pattern[str]:
        return _words(self.modifies)

    @cached_property
    def actor_words(self) -> re.Pattern[str]:
        """Who a rule addresses ("an Authorised Person", "the employer"): the asker's "we" in a question."""
        return (
            _words(
                (
                    r"(?:an?|the|each|any|every)\s+(?:\w+\s+)?(?:" + "|".join(self.actors) + r")s?",
                    *self.actors,
                )
            )
            if self.actors
            else re.compile(r"(?!)")
        )

    @cached_property
    def authority_power(self) -> re.Pattern[str]:
        """ "The Regulator may ...": a power of the rulebook's authority."""
        return re.compile(
            r"\b(?:the\s+)?(?:"
            + "|".join(self.authorities)
            + r")\s+(?:may|can|is permitted to|is allowed to)\b"
        )


_CHANGES = (
    "does not apply",
    "do not apply",
    "shall not apply",
    "in lieu of",
    "instead of",
    "notwithstanding",
    "need not",
    "is not required",
)

GENERIC = RulebookWords(
    jurisdiction="generic",
    exception=("except", "exception", "unless", *_CHANGES[:5], "other than", *_CHANGES[5:]),
    definition=("as defined in", "defined in", "definition of"),
    procedure=(
        "in accordance with",
        r"requirements? of",
        r"compl(?:y|ies|ying) with",
        r"meets?",
        "meeting",
        r"conform(?:s|ing)? to",
        "specified in",
        "set forth in",
        "described in",
        "as provided in",
        "pursuant to",
        "under",
    ),
    modifies=(*_CHANGES, "are not required"),
    authorities=("Authority", "Court", "Secretary", "Director", "Commissioner", "Board"),
    actors=(
        "person",
        "persons",
        "firm",
        "company",
        "undertaking",
        "licensee",
        "applicant",
        "operator",
        "owner",
    ),
)
