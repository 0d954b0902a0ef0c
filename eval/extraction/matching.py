"""Matching rules: when an extracted entity or triple counts as a gold one (strict and relaxed).

Strict: entity names are equal after `normalize_name` and lowercasing; relations are equal after
snake_case and lemmatizing every content word (``are_used_around`` = ``be_use_around``).
Relaxed: entities share the head noun and one's words are a subset of the other's; relations
drop modals and ``be``, and a final ``by`` (agent) is dropped with head and tail swapped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from bifrost.graph_builders.entities.normalize import head_index, normalize_name
from bifrost.graph_builders.entities.refiner import relation_key

Lemmatizer = Callable[[str], str]  # one lowercase word -> its lemma
A = TypeVar("A")
B = TypeVar("B")

MODALS = frozenset({"shall", "must", "may", "should", "can", "could", "will", "would", "might", "need"})
# Closed-class words kept verbatim (a verb lemmatizer would mangle some: "as" -> "a").
FUNCTION_WORDS = MODALS | frozenset(
    {
        "not",
        "to",
        "by",
        "of",
        "for",
        "in",
        "on",
        "at",
        "with",
        "from",
        "into",
        "onto",
        "through",
        "over",
        "under",
        "across",
        "along",
        "around",
        "above",
        "below",
        "beyond",
        "between",
        "about",
        "against",
        "as",
        "such",
        "than",
        "upon",
        "within",
        "without",
        "up",
        "out",
        "off",
        "down",
        "so",
        "and",
        "or",
    }
)
AUXILIARIES = frozenset({"be"})


def identity_lemma(word: str) -> str:
    """The no-op lemmatizer (exact snake_case comparison)."""
    return word


def entity_key(name: str) -> str:
    """An entity name as compared: `normalize_name` (head singular, articles off), lowercased."""
    return normalize_name(name, "").lower()


def relation_lemmas(relation: str, lemmatize: Lemmatizer = identity_lemma) -> tuple[str, ...]:
    """The words of a relation in snake_case, content words lemmatized."""
    words = [w for w in relation_key(relation).split("_") if w]
    return tuple(w if w in FUNCTION_WORDS or not w.isalpha() else lemmatize(w) for w in words)


def strict_triple(
    head: str, relation: str, tail: str, lemmatize: Lemmatizer = identity_lemma
) -> tuple[str, str, str]:
    """A triple as compared strictly: normalized names, lemmatized snake_case relation."""
    return entity_key(head), "_".join(relation_lemmas(relation, lemmatize)), entity_key(tail)


def relaxed_triple(
    head: str, relation: str, tail: str, lemmatize: Lemmatizer = identity_lemma
) -> tuple[str, str, str]:
    """A triple in voice-neutral form: ``(a, shall_be_protected_by, b)`` -> ``(b, protect, a)``."""
    h, t = entity_key(head), entity_key(tail)
    words = relation_lemmas(relation, lemmatize)
    if len(words) > 1 and words[-1] == "by":
        words, h, t = words[:-1], t, h
    core = tuple(w for w in words if w not in MODALS and w not in AUXILIARIES) or words
    return h, "_".join(core), t


def relaxed_entity_match(a: str, b: str) -> bool:
    """Two entity keys match loosely: same head noun, and one's words contain the other's."""
    ta, tb = a.split(" "), b.split(" ")
    if not a or not b or ta[head_index(ta)] != tb[head_index(tb)]:
        return False
    return set(ta) <= set(tb) or set(tb) <= set(ta)


def relaxed_triple_match(g: tuple[str, str, str], p: tuple[str, str, str]) -> bool:
    """Relaxed triples match: equal relation, loosely matching head and tail."""
    return g[1] == p[1] and relaxed_entity_match(g[0], p[0]) and relaxed_entity_match(g[2], p[2])


def max_matching(gold: Sequence[A], pred: Sequence[B], match: Callable[[A, B], bool]) -> int:
    """Size of a maximum one-to-one matching between gold and predicted items (Kuhn's algorithm)."""
    adjacent = [[j for j, p in enumerate(pred) if match(g, p)] for g in gold]
    owner = [-1] * len(pred)

    def augment(i: int, seen: set[int]) -> bool:
        for j in adjacent[i]:
            if j not in seen:
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(gold)))
