"""Parsing JSON replies of any chat model: fences, prose, think blocks, schema errors."""

from __future__ import annotations

import pytest

from bifrost.core.structured import (
    EntitiesAndTriples,
    InvalidOutputError,
    extract_json_object,
    parse_json_output,
)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Sure! Here is the JSON: {"a": 1} Hope it helps {not json}',
        '<think>maybe {"a": 2}?</think>\n{"a": 1}',
    ],
)
def test_extract_json_object_tolerates_wrappers(text):
    assert extract_json_object(text) == {"a": 1}


def test_extract_json_object_reports_invalid_json():
    with pytest.raises(InvalidOutputError) as info:
        extract_json_object('{"a": ')
    assert "not valid JSON" in info.value.reason


def test_parse_json_output_names_bad_fields():
    with pytest.raises(InvalidOutputError) as info:
        parse_json_output('{"entities": [{"label": "Person"}]}', EntitiesAndTriples)
    assert "entities.0.name" in info.value.reason


def test_parse_json_output_rejects_non_object():
    with pytest.raises(InvalidOutputError, match="JSON object"):
        parse_json_output("[1, 2]", EntitiesAndTriples)


def test_parse_json_output_ignores_extra_keys_and_strips():
    out = parse_json_output(
        '{"entities": [{"name": " scaffold ", "confidence": 0.9}], "note": "x"}', EntitiesAndTriples
    )
    assert out.entities[0].name == "scaffold" and out.triples == []


def test_the_response_format_asks_each_server_kind_for_the_schema():
    from bifrost.core.structured import EntityOut, response_format

    assert response_format(EntityOut, "prompt") is None
    llama = response_format(EntityOut, "json_object")
    assert llama["type"] == "json_object" and llama["schema"]["required"] == ["name"]
    openai = response_format(EntityOut, "json_schema")
    assert openai["type"] == "json_schema" and openai["json_schema"]["name"] == "EntityOut"
    with pytest.raises(ValueError, match="use prompt, json_object or json_schema"):
        response_format(EntityOut, "grammar")
