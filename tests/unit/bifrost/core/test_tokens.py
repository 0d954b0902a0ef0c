"""Tokens: a fixed shape, a secret checked only against its argon2 hash, anything else refused quietly."""

from __future__ import annotations

import pytest

from bifrost.core.tokens import hash_secret, new_token, parse_token, secret_matches


def test_a_new_token_parses_back_into_its_id_and_secret():
    text, parts = new_token()
    assert text.startswith("bft_") and parse_token(text) == parts
    assert len(parts.id) == 12 and len(parts.secret) >= 40


def test_two_tokens_never_share_an_id_or_a_secret():
    tokens = [new_token()[1] for _ in range(50)]
    assert len({t.id for t in tokens}) == 50 and len({t.secret for t in tokens}) == 50


@pytest.mark.parametrize(
    "text",
    [
        "",
        "bft",
        "bft_",
        "abc_0123456789ab_" + "x" * 40,
        "bft_XYZ456789abc_" + "x" * 40,
        "bft_0123456789ab_short",
        "bft_0123456789a_" + "x" * 40,
    ],
)
def test_malformed_tokens_parse_to_none(text):
    assert parse_token(text) is None


def test_the_hash_is_not_the_secret_and_only_the_secret_matches_it():
    _, parts = new_token()
    stored = hash_secret(parts.secret)
    assert parts.secret not in stored and stored.startswith("$argon2id$")
    assert secret_matches(stored, parts.secret)
    assert not secret_matches(stored, parts.secret[:-1] + ("a" if parts.secret[-1] != "a" else "b"))
    assert not secret_matches("not a hash", parts.secret)
