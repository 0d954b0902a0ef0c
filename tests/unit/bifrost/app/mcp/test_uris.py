"""Provision URIs and the resource-listing cursor of the MCP server."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.uri_template import UriTemplate

from bifrost.app.mcp.uris import TEMPLATE, Cursor, provision_uri
from bifrost.app.inputs import InvalidRequest

IDS = [
    "1926.501(b)(2)(i)",
    "1926.500(b)[Leading edge]",
    "1926 Subpart M",
    "1926.502(b)(1)[Note 2]",
    "1926.409-1926.415",
    "0f8c2a5e-6b1d-4c1e-9a57-3a2f1c0d9e11",
]


@pytest.mark.parametrize("pid", IDS)
def test_a_provision_uri_matches_the_template_and_gives_back_the_id(pid):
    uri = provision_uri("osha-1926", pid)
    assert UriTemplate.parse(TEMPLATE).match(uri) == {"corpus": "osha-1926", "provision_id": pid}
    assert not set("()[] ") & set(uri.removeprefix("bifrost://"))


def test_brackets_parentheses_and_spaces_are_percent_encoded():
    assert (
        provision_uri("osha-1926", "1926.500(b)[Leading edge]")
        == "bifrost://osha-1926/1926.500%28b%29%5BLeading%20edge%5D"
    )


@given(corpus=st.text(min_size=1, max_size=20), offset=st.integers(0, 10**9))
def test_a_cursor_survives_the_round_trip(corpus, offset):
    assert Cursor.decode(Cursor(corpus=corpus, offset=offset).encode()) == Cursor(
        corpus=corpus, offset=offset
    )


@pytest.mark.parametrize(
    "token", ["", "not-a-cursor", "e30", Cursor(corpus="c", offset=1).encode()[:-3] + "!!!"]
)
def test_anything_but_a_returned_cursor_is_an_invalid_request(token):
    with pytest.raises(InvalidRequest, match="list again without a cursor"):
        Cursor.decode(token)
