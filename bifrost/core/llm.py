"""Chat model access through LangChain: model construction, the persistent cache, usage and cost.

Any OpenAI-compatible server works (OpenAI, vLLM, Ollama, llama.cpp) through ``ChatOpenAI``;
the key and base URL come from the standard ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` env vars
that langchain-openai and the openai SDK read themselves.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from pydantic import BaseModel, ConfigDict, Field

from bifrost.core.errors import ModelUnavailableError, RetryableError
from bifrost.core.settings import Settings

logger = logging.getLogger(__name__)


def transient_errors() -> tuple[type[BaseException], ...]:
    """Exception types worth retrying: timeouts, connection drops, rate limits, server errors."""
    import httpx
    import openai

    return (
        TimeoutError,
        RetryableError,
        httpx.TimeoutException,
        openai.APITimeoutError,
        openai.APIConnectionError,
        openai.RateLimitError,
        openai.InternalServerError,
    )


def connection_errors() -> tuple[type[BaseException], ...]:
    """Exception types meaning the server could not be reached (refused, reset, timed out): what the
    entity build's circuit breaker counts."""
    import httpx
    import openai

    return (openai.APIConnectionError, httpx.TransportError, ConnectionError, TimeoutError)


def cut_off_errors() -> tuple[type[BaseException], ...]:
    """A reply cut at the token limit, raised (not returned) when a response format is asked for: an invalid
    reply to repair, like any other."""
    import openai

    return (openai.LengthFinishReasonError,)


def fatal_model_errors() -> tuple[type[BaseException], ...]:
    """Exception types that no retry can fix (bad key, unknown model): the build must stop."""
    import openai

    return (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)


def make_chat_model(
    settings: Settings,
    *,
    timeout: float | None = None,
    max_retries: int | None = None,
    requests_per_second: float | None = None,
    cache: BaseCache | None = None,
) -> BaseChatModel | None:
    """A ``ChatOpenAI`` for ``settings.llm_model``, or None when no model is set (offline mode).

    ``timeout``/``max_retries``/``requests_per_second`` fall back to the settings fields
    ``llm_timeout``, ``llm_max_retries`` and ``llm_requests_per_second`` when present. ``cache``
    (`make_llm_cache`) keeps this model's replies; None leaves it to LangChain's process-wide cache,
    which Bifrost never sets. No network call happens here.
    """
    if not settings.llm_model:
        return None
    timeout = timeout if timeout is not None else settings.llm_timeout
    max_retries = max_retries if max_retries is not None else settings.llm_max_retries
    if requests_per_second is None:
        requests_per_second = settings.llm_requests_per_second
    if timeout is not None and timeout <= 0:
        raise ValueError(f"llm timeout must be > 0 seconds, got {timeout}")
    if max_retries < 0:
        raise ValueError(f"llm max_retries must be >= 0, got {max_retries}")
    kwargs: dict[str, Any] = {
        "model": settings.llm_model,
        "temperature": settings.llm_temperature,
        "max_tokens": settings.llm_max_tokens,
        "timeout": timeout,
        "max_retries": max_retries,
    }
    base_url = settings.llm_base_url
    if base_url:
        kwargs["base_url"] = base_url
    if compatible_server(base_url or os.environ.get("OPENAI_BASE_URL")):
        # langchain-openai sends the limit as `max_completion_tokens` only, which llama.cpp's server (and
        # other compatible servers) ignore: their generations then run to the end of the context
        kwargs["extra_body"] = {"max_tokens": settings.llm_max_tokens}
    if requests_per_second:
        kwargs["rate_limiter"] = make_rate_limiter(requests_per_second)
    if cache is not None:
        kwargs["cache"] = cache
    try:
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(**kwargs)
    except ImportError as e:
        raise ModelUnavailableError("langchain-openai is not installed: pip install langchain-openai") from e
    except Exception as e:  # the openai SDK raises its own error when no key is configured
        raise ModelUnavailableError(
            f"cannot create chat model {settings.llm_model!r}: {str(e).rstrip('.')}. Set OPENAI_API_KEY "
            "(any value for a local "
            "server) and OPENAI_BASE_URL for an OpenAI-compatible server such as vLLM, Ollama or llama.cpp"
        ) from e


def compatible_server(base_url: str | None) -> bool:
    """Whether a base URL names an OpenAI-compatible server rather than OpenAI itself."""
    return bool(base_url) and "api.openai.com" not in str(base_url)


def make_rate_limiter(requests_per_second: float, max_bucket_size: int = 1) -> Any:
    """LangChain's token-bucket limiter, shared by every call of one chat model."""
    if requests_per_second <= 0:
        raise ValueError(f"requests_per_second must be > 0, got {requests_per_second}")
    from langchain_core.rate_limiters import InMemoryRateLimiter

    return InMemoryRateLimiter(
        requests_per_second=requests_per_second, check_every_n_seconds=0.05, max_bucket_size=max_bucket_size
    )


def model_id(chat_model: BaseChatModel) -> str:
    """A readable name for a chat model: its model name, else its LangChain type."""
    for attr in ("model_name", "model"):
        value = getattr(chat_model, attr, None)
        if isinstance(value, str) and value:
            return value
    return chat_model._llm_type


def make_llm_cache(path: str | Path) -> BaseCache:
    """A persistent SQLite LLM cache at ``path``, for one chat model (``make_chat_model(cache=...)``).

    Entries are keyed by the model's parameters and the exact prompt, so rebuilding unchanged
    provisions makes no model calls. Replies found invalid (`forget_invalid_reply`) are not served
    again, so a build rerun after a server answered garbage asks the model anew.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        from langchain_community.cache import SQLiteCache
    except ImportError as e:
        raise ModelUnavailableError(
            "langchain-community is not installed: pip install langchain-community"
        ) from e
    cache = _validated_cache_class(SQLiteCache)(database_path=str(path))
    logger.info("LLM cache at %s", path)
    return cache


def cache_of(chat_model: BaseChatModel) -> BaseCache | None:
    """The cache LangChain keeps ``chat_model``'s replies in: its own (``cache=``), else the
    process-wide one (None when that is unset or the model's ``cache`` is False)."""
    from langchain_core.globals import get_llm_cache

    if isinstance(chat_model.cache, BaseCache):
        return chat_model.cache
    return None if chat_model.cache is False else get_llm_cache()


def forget_invalid_reply(cache: BaseCache | None, text: str) -> None:
    """Tell ``cache`` (a `make_llm_cache` one) that a reply was invalid: lookups that would return it
    miss. Other caches, and None, are left as they are."""
    reject = getattr(cache, "reject_reply", None)
    if reject is not None:
        reject(text)


def _validated_cache_class(base: type) -> type:
    """``base`` (LangChain's SQLiteCache) plus a table of rejected reply digests that lookups skip."""
    import hashlib

    from sqlalchemy import text as sql

    def digest(reply: str) -> str:
        return hashlib.sha256(reply.encode("utf-8", "surrogatepass")).hexdigest()

    class ValidatedSQLiteCache(base):  # type: ignore[misc, valid-type]
        """SQLite LLM cache that never serves a reply a caller rejected as invalid output."""

        def __init__(self, database_path: str) -> None:
            super().__init__(database_path=database_path)
            with self.engine.begin() as conn:
                conn.execute(
                    sql("CREATE TABLE IF NOT EXISTS bifrost_rejected_replies (digest TEXT PRIMARY KEY)")
                )

        def reject_reply(self, reply: str) -> None:
            with self.engine.begin() as conn:
                conn.execute(
                    sql("INSERT OR IGNORE INTO bifrost_rejected_replies (digest) VALUES (:d)"),
                    {"d": digest(reply)},
                )

        def lookup(self, prompt: str, llm_string: str) -> Any:
            found = super().lookup(prompt, llm_string)
            if not found:
                return found
            query = sql("SELECT 1 FROM bifrost_rejected_replies WHERE digest = :d")
            with self.engine.connect() as conn:
                rejected = any(
                    conn.execute(query, {"d": digest(getattr(g, "text", "") or "")}).first() for g in found
                )
            return None if rejected else found

    return ValidatedSQLiteCache


class ModelPrice(BaseModel):
    """USD per million input and output tokens of one model."""

    model_config = ConfigDict(frozen=True)

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


# Published list prices (USD per 1M tokens, 2024); override them with the settings price table.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gpt-4o": ModelPrice(input_per_mtok=2.50, output_per_mtok=10.00),
    "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.60),
}


class ModelUsage(BaseModel):
    """Calls and tokens of one model; cost is None when the model has no known price."""

    model: str
    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None


class UsageReport(BaseModel):
    """Usage per model plus totals; ``cost_usd`` is None if any used model has no price."""

    models: list[ModelUsage] = Field(default_factory=list)

    @property
    def calls(self) -> int:
        return sum(m.calls for m in self.models)

    @property
    def cached_calls(self) -> int:
        return sum(m.cached_calls for m in self.models)

    @property
    def cost_usd(self) -> float | None:
        costs = [m.cost_usd for m in self.models if m.calls > m.cached_calls]
        return None if any(c is None for c in costs) else float(sum(c or 0.0 for c in costs))


class UsageCounter(BaseCallbackHandler):
    """A LangChain callback counting calls, tokens (``usage_metadata``) and estimated cost per model.

    Cache hits are counted apart and cost nothing. Pass it in ``config={"callbacks": [...]}``.
    """

    def __init__(self, prices: Mapping[str, ModelPrice] | None = None) -> None:
        super().__init__()
        self._prices = dict(DEFAULT_PRICES if prices is None else prices)
        self._lock = threading.Lock()
        self._usage: dict[str, ModelUsage] = {}

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Add one call's usage (LangChain calls this for cache hits too)."""
        message = _first_message(response)
        usage = (message.usage_metadata if message else None) or {}
        meta = (message.response_metadata if message else None) or {}
        model = str(meta.get("model_name") or meta.get("model") or "unknown")
        cached = usage.get("total_cost") == 0  # LangChain marks cache hits with a zero cost
        with self._lock:
            entry = self._usage.setdefault(model, ModelUsage(model=model))
            entry.calls += 1
            if cached:
                entry.cached_calls += 1
                return
            entry.input_tokens += int(usage.get("input_tokens", 0) or 0)
            entry.output_tokens += int(usage.get("output_tokens", 0) or 0)

    def report(self) -> UsageReport:
        """A snapshot with costs from the price table (None for models without a price)."""
        with self._lock:
            models = [m.model_copy() for m in self._usage.values()]
        for m in models:
            price = self._price(m.model)
            if price is not None:
                m.cost_usd = (
                    m.input_tokens * price.input_per_mtok + m.output_tokens * price.output_per_mtok
                ) / 1e6
        return UsageReport(models=sorted(models, key=lambda m: m.model))

    def _price(self, model: str) -> ModelPrice | None:
        if model in self._prices:
            return self._prices[model]
        # dated snapshots such as gpt-4o-mini-2024-07-18 share the base model's price
        matches = [name for name in self._prices if model.startswith(name + "-")]
        return self._prices[max(matches, key=len)] if matches else None


def _first_message(response: LLMResult) -> AIMessage | None:
    try:
        generation = response.generations[0][0]
    except IndexError:
        return None
    if isinstance(generation, ChatGeneration) and isinstance(generation.message, AIMessage):
        return generation.message
    return None


def prices_from_settings(settings: Settings) -> dict[str, ModelPrice]:
    """The default price table updated with ``settings.llm_prices`` when that field exists."""
    prices = dict(DEFAULT_PRICES)
    for name, value in settings.llm_prices.items():
        prices[name] = value if isinstance(value, ModelPrice) else ModelPrice.model_validate(value)
    return prices
