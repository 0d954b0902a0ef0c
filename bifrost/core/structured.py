"""Structured (JSON) output from any chat model: parse, validate with pydantic, repair by feedback.

We parse the reply text ourselves instead of relying on tool calling or ``response_format`` so
it works with every OpenAI-compatible server (vLLM, Ollama, llama.cpp) and small local models.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, Generic, NamedTuple, TypeVar

from langchain_core.caches import BaseCache
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bifrost.core.errors import BifrostError
from bifrost.core.llm import cut_off_errors, forget_invalid_reply
from bifrost.core.prompts import PromptTemplatePair

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class InvalidOutputError(BifrostError):
    """A model reply that is not the JSON object the prompt asked for (after every repair)."""

    def __init__(self, reason: str, raw: str = "", attempts: int = 1) -> None:
        self.reason = reason
        self.raw = raw
        self.attempts = attempts
        super().__init__(f"invalid model output after {attempts} attempt(s): {reason}")


# --- schemas shared by extraction agents and question decomposition --------------------------


class _Lenient(BaseModel):
    """Ignore extra keys small models like to add; strip whitespace around strings."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class EntityOut(_Lenient):
    name: str = Field(min_length=1)
    label: str = ""
    definition: str = ""


class TripleOut(_Lenient):
    head: str = Field(min_length=1)
    relation: str = Field(min_length=1)
    tail: str = Field(min_length=1)


class EntitiesAndTriples(_Lenient):
    """The question-decomposition reply: same shape as an extraction."""

    entities: list[EntityOut] = Field(default_factory=list)
    triples: list[TripleOut] = Field(default_factory=list)
    section_ids: list[str] = Field(default_factory=list)


# --- parsing ------------------------------------------------------------------------------------


def message_text(message: BaseMessage) -> str:
    """The text of a chat reply, whether its content is a string or a list of blocks."""
    text = getattr(message, "text", None)
    if isinstance(text, str):
        return text
    return message.content if isinstance(message.content, str) else str(message.content)


def extract_json_object(text: str) -> Any:
    """The first JSON object in a reply, tolerating ```json fences, <think> blocks and prose around it."""
    cleaned = _THINK_RE.sub("", text).strip()
    candidates = [m.group(1).strip() for m in _FENCE_RE.finditer(cleaned)] + [cleaned]
    decoder = json.JSONDecoder()
    first_error: str | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as e:
            first_error = first_error or f"{e.msg} at line {e.lineno} column {e.colno}"
        start = candidate.find("{")
        while start != -1:
            try:
                value, _ = decoder.raw_decode(candidate, start)
                return value
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
    raise InvalidOutputError(
        f"the reply is not valid JSON ({first_error or 'no JSON object found'})", raw=text
    )


def parse_json_output(text: str, schema: type[M]) -> M:
    """Parse and validate a reply against ``schema``; the error message is written to be fed back."""
    value = extract_json_object(text)
    if not isinstance(value, dict):
        raise InvalidOutputError(f"expected a JSON object, got {type(value).__name__}", raw=text)
    try:
        return schema.model_validate(value)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in e.errors()[:5]
        )
        raise InvalidOutputError(f"the JSON does not match the expected fields ({problems})", raw=text) from e


# --- calling ----------------------------------------------------------------------------------------


class Structured(NamedTuple, Generic[M]):
    """A validated reply and how many repair rounds it took (0 = first reply was valid)."""

    value: M
    repairs: int


def response_format(schema: type[BaseModel], mode: str) -> dict[str, Any] | None:
    """The ``response_format`` a server is asked for (`Settings.llm_response_format`), None for "prompt"."""
    if mode == "prompt":
        return None
    if mode == "json_object":  # llama.cpp: the schema becomes a grammar the sampler follows
        return {"type": "json_object", "schema": schema.model_json_schema()}
    if mode == "json_schema":  # OpenAI, vLLM
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
        }
    raise ValueError(f"response format {mode!r}: use prompt, json_object or json_schema")


def invoke_structured(
    model: Runnable[Any, BaseMessage],
    prompt: PromptTemplatePair,
    variables: Mapping[str, object],
    schema: type[M],
    *,
    max_repairs: int = 2,
    check: Callable[[M], None] | None = None,
    config: RunnableConfig | None = None,
    cache: BaseCache | None = None,
    mode: str = "prompt",
) -> Structured[M]:
    """Render ``prompt``, call ``model`` and validate the reply; on invalid output feed the error back.

    ``check`` may raise `InvalidOutputError` for semantic problems (also fed back). ``cache``: where
    the model keeps its replies (`bifrost.core.llm.cache_of`); an invalid reply is rejected there, so
    that a rerun asks the model again. Model errors (timeouts, ...) propagate unchanged; retrying
    them is the caller's ``with_retry`` job. ``mode``: how the server is asked for JSON (`response_format`);
    the reply is parsed and validated the same way whatever the mode.
    """
    if max_repairs < 0:
        raise ValueError(f"max_repairs must be >= 0, got {max_repairs}")
    if (fmt := response_format(schema, mode)) is not None:
        model = model.bind(response_format=fmt)
    rendered = prompt.render(**variables)
    messages: list[BaseMessage] = [SystemMessage(rendered.system), HumanMessage(rendered.user)]
    last: InvalidOutputError | None = None
    for attempt in range(max_repairs + 1):
        try:
            reply = model.invoke(messages, config=config)
        except cut_off_errors() as e:
            used = getattr(getattr(e.completion, "usage", None), "completion_tokens", "?")
            last = InvalidOutputError(
                f"the reply was cut at the token limit ({used} tokens); reply with a shorter JSON object"
            )
            messages = [*messages, HumanMessage(prompt.render_repair(error=last.reason))]
            continue
        text = message_text(reply)
        try:
            value = parse_json_output(text, schema)
            if check is not None:
                check(value)
            return Structured(value, attempt)
        except InvalidOutputError as e:
            last = e
            # a rerun must ask the model again, not replay this reply from the cache
            forget_invalid_reply(cache, text)
            logger.debug("%s: invalid output (attempt %d): %s", prompt.id, attempt + 1, e.reason)
            messages = [*messages, AIMessage(text), HumanMessage(prompt.render_repair(error=e.reason))]
    assert last is not None
    raise InvalidOutputError(last.reason, raw=last.raw, attempts=max_repairs + 1)
