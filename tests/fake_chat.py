"""A scripted LangChain chat model for tests and offline demos of the agent pipelines.

A function of the messages picks each reply (or raises, e.g. a timeout), so replies stay
deterministic under concurrency, unlike list-based fakes whose order depends on thread timing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

Responder = Callable[[list[BaseMessage]], str]


class ScriptedChatModel(BaseChatModel):
    """Replies with ``respond(messages)``; counts calls; reports token usage like a real server."""

    respond: Responder
    model_name: str = "scripted"
    _calls: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def calls(self) -> int:
        """How many times the model was really called (cache hits are not calls)."""
        return self._calls

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._calls += 1
        text = self.respond(messages)
        n_in = sum(len(str(m.content).split()) for m in messages)
        n_out = len(text.split())
        message = AIMessage(
            content=text,
            response_metadata={"model_name": self.model_name},
            usage_metadata={"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
