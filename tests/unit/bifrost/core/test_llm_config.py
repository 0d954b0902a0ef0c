"""Chat model construction, the persistent LLM cache and the usage/cost counter (no network)."""

from __future__ import annotations

import pytest
from langchain_core.globals import get_llm_cache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.rate_limiters import InMemoryRateLimiter

from bifrost.core.errors import ModelUnavailableError
from tests.fake_chat import ScriptedChatModel
from bifrost.core.llm import (
    ModelPrice,
    UsageCounter,
    cache_of,
    make_chat_model,
    make_llm_cache,
    model_id,
    prices_from_settings,
)
from bifrost.core.settings import Settings


@pytest.fixture
def openai_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)


def test_make_chat_model_returns_none_without_llm_model():
    assert make_chat_model(Settings(llm_model=None)) is None


def test_make_chat_model_builds_chat_openai_from_settings_and_env(openai_env):
    from langchain_openai import ChatOpenAI

    model = make_chat_model(
        Settings(llm_model="qwen2.5-7b-instruct", llm_temperature=0.0, llm_max_tokens=512)
    )
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "qwen2.5-7b-instruct"
    assert model.temperature == 0.0
    assert model.max_tokens == 512
    assert str(model.root_client.base_url).rstrip("/") == "http://127.0.0.1:8000/v1"
    assert model.request_timeout == 120.0 and model.max_retries == 2
    assert model.rate_limiter is None
    assert model_id(model) == "qwen2.5-7b-instruct"


def test_make_chat_model_options_override_defaults(openai_env):
    model = make_chat_model(Settings(llm_model="m"), timeout=5, max_retries=0, requests_per_second=3)
    assert model.request_timeout == 5 and model.max_retries == 0
    assert isinstance(model.rate_limiter, InMemoryRateLimiter)


def test_make_chat_model_rejects_bad_options(openai_env):
    with pytest.raises(ValueError, match="timeout"):
        make_chat_model(Settings(llm_model="m"), timeout=0)
    with pytest.raises(ValueError, match="requests_per_second"):
        make_chat_model(Settings(llm_model="m"), requests_per_second=-1)


def test_make_chat_model_without_api_key_names_the_fix(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    with pytest.raises(ModelUnavailableError) as info:
        make_chat_model(Settings(llm_model="gpt-4o-mini"))
    assert "OPENAI_API_KEY" in str(info.value)


def test_make_llm_cache_opens_a_sqlite_cache_and_installs_nothing_process_wide(tmp_path):
    from langchain_community.cache import SQLiteCache

    cache = make_llm_cache(tmp_path / "sub" / "cache.db")
    assert isinstance(cache, SQLiteCache)
    assert (tmp_path / "sub" / "cache.db").exists()
    assert get_llm_cache() is None


def test_make_chat_model_keeps_the_cache_it_is_given_on_the_model(openai_env, tmp_path):
    cache = make_llm_cache(tmp_path / "cache.db")
    model = make_chat_model(Settings(llm_model="m"), cache=cache)
    assert model.cache is cache and cache_of(model) is cache
    assert make_chat_model(Settings(llm_model="m")).cache is None


def test_a_model_caches_in_its_own_cache_and_not_in_another_models(tmp_path):
    a = ScriptedChatModel(respond=lambda m: "one", model_name="same", cache=make_llm_cache(tmp_path / "a.db"))
    b = ScriptedChatModel(respond=lambda m: "two", model_name="same", cache=make_llm_cache(tmp_path / "b.db"))
    assert a.invoke("hello").content == "one" and a.invoke("hello").content == "one" and a.calls == 1
    assert b.invoke("hello").content == "two" and b.calls == 1  # same model and prompt, another cache


def test_cache_is_keyed_by_model_and_prompt(tmp_path):
    cache = make_llm_cache(tmp_path / "cache.db")
    a = ScriptedChatModel(respond=lambda m: "one", model_name="model-a", cache=cache)
    assert a.invoke("hello").content == "one"
    assert a.invoke("hello").content == "one" and a.calls == 1
    assert a.invoke("other prompt").content == "one" and a.calls == 2
    b = ScriptedChatModel(respond=lambda m: "two", model_name="model-b", cache=cache)
    assert b.invoke("hello").content == "two" and b.calls == 1


def _result(model: str, n_in: int, n_out: int, cached: bool = False) -> LLMResult:
    usage = {"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out}
    if cached:
        usage["total_cost"] = 0
    message = AIMessage(content="x", usage_metadata=usage, response_metadata={"model_name": model})
    return LLMResult(generations=[[ChatGeneration(message=message)]])


def test_usage_counter_tokens_and_cost():
    counter = UsageCounter({"gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.60)})
    counter.on_llm_end(_result("gpt-4o-mini-2024-07-18", 1_000_000, 100_000))
    counter.on_llm_end(_result("gpt-4o-mini-2024-07-18", 500, 50, cached=True))
    [usage] = counter.report().models
    assert (usage.calls, usage.cached_calls, usage.input_tokens, usage.output_tokens) == (
        2,
        1,
        1_000_000,
        100_000,
    )
    assert usage.cost_usd == pytest.approx(0.15 + 0.06)
    assert counter.report().cost_usd == pytest.approx(0.21)


def test_usage_counter_unknown_model_has_unknown_cost():
    counter = UsageCounter()
    counter.on_llm_end(_result("gpt-4o", 1000, 1000))
    counter.on_llm_end(_result("llama3.1:8b", 1000, 1000))
    report = counter.report()
    assert [m.model for m in report.models] == ["gpt-4o", "llama3.1:8b"]
    assert report.models[0].cost_usd == pytest.approx(0.0125)
    assert report.models[1].cost_usd is None
    assert report.cost_usd is None


def test_usage_counter_counts_cache_hits_as_free(tmp_path):
    counter = UsageCounter({"scripted": ModelPrice(input_per_mtok=1, output_per_mtok=1)})
    model = ScriptedChatModel(respond=lambda m: "a b c", cache=make_llm_cache(tmp_path / "cache.db"))
    model.invoke("hello there", config={"callbacks": [counter]})
    model.invoke("hello there", config={"callbacks": [counter]})
    [usage] = counter.report().models
    assert (usage.calls, usage.cached_calls, usage.output_tokens) == (2, 1, 3)


def test_prices_from_settings_defaults_when_field_absent():
    assert "gpt-4o-mini" in prices_from_settings(Settings())


def test_a_reply_rejected_as_invalid_is_not_served_from_the_cache_again(tmp_path):
    from langchain_core.messages import HumanMessage

    from bifrost.core.llm import forget_invalid_reply

    replies = iter(["garbage", '{"ok": true}'])
    model = ScriptedChatModel(
        respond=lambda messages: next(replies), cache=make_llm_cache(tmp_path / "cache.db")
    )
    assert model.invoke([HumanMessage("q")]).content == "garbage"
    assert model.invoke([HumanMessage("q")]).content == "garbage" and model.calls == 1  # a cache hit
    forget_invalid_reply(cache_of(model), "garbage")
    assert model.invoke([HumanMessage("q")]).content == '{"ok": true}' and model.calls == 2
    # the new reply is cached
    assert model.invoke([HumanMessage("q")]).content == '{"ok": true}' and model.calls == 2
    again = ScriptedChatModel(
        respond=lambda messages: "never asked", cache=make_llm_cache(tmp_path / "cache.db")
    )
    # the rejection is persisted
    assert again.invoke([HumanMessage("q")]).content == '{"ok": true}' and again.calls == 0


def test_a_compatible_server_also_gets_max_tokens_which_it_reads_and_openai_does_not(openai_env, monkeypatch):
    """langchain-openai sends only `max_completion_tokens`, which llama.cpp's server ignores."""
    local = make_chat_model(Settings(llm_model="m", llm_max_tokens=77))
    assert local.extra_body == {"max_tokens": 77}
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    assert not make_chat_model(Settings(llm_model="m", llm_max_tokens=77)).extra_body
