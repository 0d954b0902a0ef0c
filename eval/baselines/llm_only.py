"""The `llm-only` baseline: a chat model answers from memory; the provision ids it names are
parsed with the citation grammar and kept only when they exist in the corpus."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from bifrost.core.errors import CitationError
from bifrost.core.prompts import load_prompt
from bifrost.core.structured import message_text

NO_ANSWER = "<<NO_ANSWER>>"
CFR_ID = re.compile(r"\b\d{3,4}\.\d{1,4}[a-z]?(?:\s?\([0-9A-Za-z]{1,5}\))*")


def cited_ids(text: str, normalize: Callable[[str], str], known: set[str]) -> list[str]:
    """Provision ids named in a reply, normalized, existing in the corpus, in order of mention."""
    out: list[str] = []
    for m in CFR_ID.finditer(text):
        try:
            pid = normalize(m.group(0))
        except CitationError:
            continue
        if pid in known and pid not in out:
            out.append(pid)
    return out


class LlmOnly:
    """Ask the chat model with no retrieval; rank the ids it names in the order it names them."""

    name = "llm-only"

    def __init__(
        self,
        chat_model: BaseChatModel,
        known: set[str],
        normalize: Callable[[str], str],
        rulebook: str,
        prompts_dir=None,
    ) -> None:
        self.chat_model, self.known, self.normalize, self.rulebook = chat_model, known, normalize, rulebook
        self.prompt = load_prompt("llm_only", prompts_dir=prompts_dir)

    def answer(self, question: str) -> tuple[list[str], bool, float]:
        """(ids named, refused, seconds)."""
        start = time.perf_counter()
        p = self.prompt.render(question=question, rulebook=self.rulebook, no_answer_token=NO_ANSWER)
        text = message_text(self.chat_model.invoke([SystemMessage(p.system), HumanMessage(p.user)])).strip()
        if text == NO_ANSWER:
            return [], True, time.perf_counter() - start
        return cited_ids(text, self.normalize, self.known), False, time.perf_counter() - start

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "llm-only",
            "model": getattr(self.chat_model, "model_name", type(self.chat_model).__name__),
            "prompt": self.prompt.id,
        }
