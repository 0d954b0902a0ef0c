"""Rules that read entities and relations off a spaCy parse; used by the offline extractor.

Relation rules (each documented where it is applied):
- active clause: (subject, verb, object) and (subject, verb_prep, prepositional object);
- passive with an agent is turned active: (agent, verb, subject);
- passive without an agent keeps the subject as head and the passive form in the relation,
  with prepositional objects as tails: (banding, shall_not_be_used_as, top rail);
- modal (shall, must, may...) and negation are kept in front of the verb;
- copula + adjective + preposition: (anchorage, shall_be_independent_of, anchorage).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bifrost.graph_builders.entities.normalize import PROPER_LABELS, is_acronym

Token = Any  # spacy.tokens.Token
Doc = Any  # spacy.tokens.Doc

UNIT_LEMMAS = frozenset(
    {
        "foot",
        "feet",
        "ft",
        "inch",
        "in",
        "yard",
        "mile",
        "meter",
        "metre",
        "m",
        "cm",
        "mm",
        "km",
        "pound",
        "lb",
        "lbs",
        "kn",
        "n",
        "kg",
        "kilogram",
        "gram",
        "mg",
        "milligram",
        "ton",
        "tonne",
        "percent",
        "%",
        "degree",
        "psi",
        "psig",
        "kpa",
        "pa",
        "volt",
        "v",
        "kv",
        "ampere",
        "amp",
        "watt",
        "kw",
        "hour",
        "minute",
        "second",
        "day",
        "week",
        "month",
        "year",
        "gallon",
        "liter",
        "litre",
        "mph",
        "decibel",
        "db",
        "dba",
        "ppm",
        "fahrenheit",
        "celsius",
        "lux",
        "candle",
    }
)
# Chunk heads that name a place in the rulebook, not a thing: left to the citation grammar.
REFERENCE_HEADS = frozenset(
    {"paragraph", "section", "subpart", "appendix", "chapter", "§", "cfr", "part", "exception", "note"}
)
GENERIC_MODIFIERS = frozenset(
    {
        "following",
        "above",
        "below",
        "above-listed",
        "aforementioned",
        "said",
        "same",
        "such",
        "certain",
        "respective",
        "particular",
    }
)
# Stop words that never belong to a name; other stop words stay when they modify the head as a
# content word ("top rail", "side rail", "front end loader").
QUANTIFIERS = frozenset(
    {
        "each",
        "any",
        "all",
        "every",
        "other",
        "another",
        "some",
        "several",
        "more",
        "most",
        "no",
        "both",
        "either",
        "neither",
        "few",
        "many",
        "much",
        "own",
        "such",
        "same",
        "least",
        "less",
        "only",
        "whole",
    }
)
MODALS = frozenset({"shall", "must", "may", "should", "can", "could", "will", "would", "might", "need"})
RELATIVE_PRONOUNS = frozenset({"who", "which", "that", "whom", "whose"})
_SUBJ = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
_OBJ = frozenset({"dobj", "attr", "oprd", "dative"})
_SNAKE = re.compile(r"[^a-z0-9]+")


def snake(*parts: str) -> str:
    """``("shall", "not", "be", "used", "as")`` -> ``shall_not_be_used_as``."""
    return _SNAKE.sub("_", " ".join(p for p in parts if p).lower()).strip("_")


# --- entities ---


def _keep_token(tok: Token, root: Token) -> bool:
    if tok.i == root.i:
        return True
    if tok.text in {"-", "/"}:  # inside a word: walking/working, fall-arrest
        return tok.i > 0 and not tok.nbor(-1).whitespace_ and not tok.whitespace_
    if tok.like_num or tok.is_punct or tok.is_space:
        return False
    if tok.pos_ in {"DET", "PRON", "NUM", "SYM", "CCONJ", "PART", "ADP", "ADV", "AUX"}:
        return False
    if tok.lower_ in GENERIC_MODIFIERS or tok.lower_ in QUANTIFIERS:
        return False
    if tok.is_stop and not (tok.pos_ in {"ADJ", "NOUN", "PROPN"} and tok.dep_ in {"amod", "compound"}):
        return False
    return any(c.isalpha() for c in tok.text)


def _root_ok(root: Token) -> bool:
    alpha = sum(c.isalpha() for c in root.text)
    return (
        root.pos_ in {"NOUN", "PROPN"}
        and alpha >= 2
        and not root.is_stop
        and not root.like_num
        and root.lemma_.lower() not in UNIT_LEMMAS
        and root.lower_ not in UNIT_LEMMAS
        and root.lemma_.lower() not in REFERENCE_HEADS
        and root.lower_ not in REFERENCE_HEADS
    )


def _surface(tok: Token) -> str:
    """Lowercase unless a proper noun or an acronym (so sentence-initial capitals go)."""
    if is_acronym(tok.text) or (tok.pos_ == "PROPN" and tok.ent_type_ in PROPER_LABELS):
        return tok.text
    return tok.text.lower()


def chunk_name(chunk: Any) -> str | None:
    """The cleaned name of a noun chunk, or None when it is no entity (pronoun, number, unit, citation)."""
    root = chunk.root
    if not _root_ok(root):
        return None
    inside_paren = False
    kept: list[Token] = []
    for tok in chunk:
        if tok.text == "(":
            inside_paren = True
        elif tok.text == ")":
            inside_paren = False
        elif not inside_paren and _keep_token(tok, root):
            kept.append(tok)
    if root not in kept:
        return None
    parts: list[str] = []
    for a, b in zip(kept, kept[1:] + [None]):
        parts.append(_surface(a))
        if b is not None and not (b.i == a.i + 1 and not a.whitespace_):
            parts.append(" ")
    name = "".join(parts).strip(" -/")
    return name or None


def entity_label(root: Token) -> str:
    """The NER label of a chunk's head when it has one, else ``concept``."""
    return root.ent_type_ or "concept"


def entity_names(doc: Doc) -> dict[int, tuple[str, str]]:
    """Token index of each entity head -> (name, label), from the noun chunks of ``doc``."""
    out: dict[int, tuple[str, str]] = {}
    for chunk in doc.noun_chunks:
        name = chunk_name(chunk)
        if name:
            out[chunk.root.i] = (name, entity_label(chunk.root))
    return out


# --- relations ---


def _conjuncts(tok: Token) -> list[Token]:
    """A noun and the nouns coordinated with it (guardrail systems, safety net systems, ...)."""
    return [tok, *(c for c in tok.conjuncts if c.pos_ in {"NOUN", "PROPN"})]


def _is_predicate(tok: Token) -> bool:
    return tok.pos_ == "VERB" or (tok.pos_ == "AUX" and tok.dep_ not in {"aux", "auxpass"})


def _own_aux(v: Token) -> list[Token]:
    return [c for c in v.children if c.dep_ in {"aux", "auxpass", "neg"}]


def _governing_verb(v: Token) -> Token | None:
    """The verb a conjoined verb shares its auxiliaries and subject with (develop and implement)."""
    return v.head if v.dep_ == "conj" and v.head.i != v.i and _is_predicate(v.head) else None


def _modal_neg(v: Token) -> tuple[str, str]:
    src = v
    while not _own_aux(src) and (g := _governing_verb(src)) is not None:
        src = g
    modal = next(
        (c.lower_ for c in src.children if c.tag_ == "MD" or c.lower_ in MODALS and c.dep_ == "aux"), ""
    )
    neg = "not" if any(c.dep_ == "neg" for c in src.children) else ""
    return modal, neg


def is_passive(v: Token) -> bool:
    """Passive: a passive auxiliary or subject, a participle modifier (rope used for ...), or a
    participle conjoined to a passive verb (designed, installed, and used)."""
    if any(c.dep_ in {"auxpass", "nsubjpass", "csubjpass"} for c in v.children):
        return True
    if v.dep_ == "acl" and v.tag_ == "VBN":
        return True
    g = _governing_verb(v)
    return g is not None and v.tag_ == "VBN" and is_passive(g)


def subjects(v: Token, depth: int = 0) -> list[Token]:
    """Subject tokens of a predicate; relative pronouns resolve to the noun they modify; verbs
    without a subject (conjoined, ``to``-infinitive, participle modifier) inherit their governor's."""
    if depth > 4:
        return []
    own = [c for c in v.children if c.dep_ in _SUBJ]
    out: list[Token] = []
    for s in own:
        if s.lower_ in RELATIVE_PRONOUNS and v.dep_ == "relcl":
            out.extend(_conjuncts(v.head))
        else:
            out.extend(_conjuncts(s))
    if own:
        return out
    if v.dep_ in {"acl", "relcl"}:
        return _conjuncts(v.head)
    if v.dep_ in {"conj", "xcomp", "advcl"} and v.head.i != v.i and _is_predicate(v.head):
        gov = v.head
        if v.dep_ != "conj" and is_passive(gov) and _agents(gov):  # monitored by X to ensure Y: X ensures
            return _agents(gov)
        return subjects(gov, depth + 1)
    return []


def objects(v: Token) -> list[Token]:
    """Direct objects (and attributes) of a verb; a verb with no complement at all shares the
    object of a verb joined to it by "and"/"or" ("develop and implement a plan": both take "plan")."""
    own = [t for c in v.children if c.dep_ in _OBJ for t in _conjuncts(c)]
    if own or any(c.dep_ in {"prep", "ccomp", "xcomp", "acomp"} for c in v.children):
        return own
    if not any(c.dep_ == "cc" and c.lower_ in {"and", "or"} for c in v.children):
        return []
    return [t for c in v.children if c.dep_ == "conj" and c.pos_ == "VERB" for t in objects(c)]


def _pobjs(prep: Token) -> list[Token]:
    return [t for c in prep.children if c.dep_ == "pobj" for t in _conjuncts(c)]


def prep_objects(v: Token) -> list[tuple[str, Token]]:
    """(preposition phrase, object) pairs of a verb: its own preps, preps hanging off its direct
    objects except ``of`` (the parser often attaches the verb's PP to the object: "protect employees
    in excavations from hazards"), and ``prep + gerund + prep`` (protected from falling by X)."""
    preps = [c for c in v.children if c.dep_ == "prep"]
    for obj in (c for c in v.children if c.dep_ == "dobj"):
        frontier = [obj]
        for _ in range(2):
            nxt = []
            for node in frontier:
                for p in (c for c in node.children if c.dep_ == "prep" and c.lower_ != "of"):
                    preps.append(p)
                    nxt.extend(_pobjs(p))
            frontier = nxt
    out: list[tuple[str, Token]] = []
    for p in sorted(preps, key=lambda t: t.i):
        out.extend((p.lower_, o) for o in _pobjs(p))
        for g in (c for c in p.children if c.dep_ == "pcomp" and c.pos_ == "VERB"):
            for q in (c for c in g.children if c.dep_ == "prep"):
                out.extend((f"{p.lower_}_{g.lemma_.lower()}_{q.lower_}", o) for o in _pobjs(q))
    return out


def _agents(v: Token) -> list[Token]:
    return [t for c in v.children if c.dep_ == "agent" for t in _pobjs(c)]


def clause_relations(v: Token) -> Iterator[tuple[int, str, int]]:
    """(head token, relation, tail token) triples stated by one predicate."""
    if any(c.dep_ == "expl" for c in v.children):  # "there is water": no head entity to state it of
        return
    subj = subjects(v)
    modal, neg = _modal_neg(v)
    verb = v.lemma_.lower()
    if v.pos_ == "AUX":  # copula: X is a Y; X shall be independent of Y
        for s in subj:
            for o in (t for c in v.children if c.dep_ == "attr" for t in _conjuncts(c)):
                yield s.i, snake(modal, neg, "be"), o.i
            for a in (c for c in v.children if c.dep_ == "acomp"):
                for prep, o in prep_objects(a):
                    yield s.i, snake(modal, neg, "be", a.lemma_.lower(), prep), o.i
        return
    if is_passive(v):
        agents = _agents(v)
        for a in agents:  # passive with agent -> active: (agent, shall_monitor, equipment)
            for s in subj:
                yield a.i, snake(modal, neg, verb), s.i
        passive = snake(modal, neg, "be", v.lower_ if v.tag_ == "VBN" else verb)
        for prep, o in prep_objects(v):  # no agent needed: the subject stays head
            for s in subj:
                yield s.i, snake(passive, prep), o.i
        return
    for s in subj:
        for o in objects(v):
            yield s.i, snake(modal, neg, verb), o.i
        for prep, o in prep_objects(v):
            yield s.i, snake(modal, neg, verb, prep), o.i


def relations(doc: Doc) -> Iterator[tuple[int, str, int]]:
    """Every (head token, relation, tail token) of a parsed text, in token order."""
    for tok in doc:
        if _is_predicate(tok):
            yield from clause_relations(tok)
