"""Answers written by a chat model from the retrieved provisions, every statement cited.

Citations are checked against the retrieved set: an id the model cites that was not
retrieved is removed and logged. Refusal is a token the model emits, compared exactly.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from bifrost.core.prompts import load_prompt
from bifrost.core.structured import message_text
from bifrost.core.types import Provision, RetrievedItem, Statement
from retrieval.citations import CITE_MARK, find_marks

log = logging.getLogger(__name__)

NO_ANSWER = "<<NO_ANSWER>>"
SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")
STATEMENT_SPLIT = re.compile(r"(?<=[.!?\]])\s+(?=[A-Z])")


def format_provisions(items: Sequence[RetrievedItem], lookup: Callable[[str], Provision | None]) -> str:
    """The retrieved provisions as the numbered block the answer prompt expects."""
    lines = []
    for it in items:
        p = lookup(it.id)
        if p is None:
            continue
        lines.append(f"[{p.id}] {p.heading} {p.text}".strip())
    return "\n".join(lines)


def parse_statements(text: str, allowed: set[str]) -> tuple[list[Statement], list[str]]:
    """Split an answer into statements with their citations; drop ids outside ``allowed``."""
    dropped: list[str] = []
    out: list[Statement] = []
    for raw in STATEMENT_SPLIT.split(text.strip()):
        ids = find_marks(raw)
        keep = tuple(dict.fromkeys(i for i in ids if i in allowed))
        dropped += [i for i in ids if i not in allowed]
        body = SPACE_BEFORE_PUNCT.sub(r"\1", CITE_MARK.sub("", raw)).strip()
        if body and keep:
            out.append(Statement(text=body, citations=keep))
        elif body:
            log.info("statement without a valid citation dropped: %s", body[:80])
    return out, dropped


class LlmAnswerer:
    """The answer agent: reviews provisions, writes a cited answer, or emits the refusal token."""

    def __init__(self, chat_model: BaseChatModel, prompts_dir=None, version: str = "latest") -> None:
        self.chat_model = chat_model
        self.prompt = load_prompt("answer", version, prompts_dir)

    def answer(
        self, question: str, items: Sequence[RetrievedItem], lookup: Callable[[str], Provision | None]
    ) -> tuple[bool, list[Statement], list[str]]:
        """(refused, statements, dropped ids)."""
        rendered = self.prompt.render(
            question=question, provisions=format_provisions(items, lookup), no_answer_token=NO_ANSWER
        )
        reply = self.chat_model.invoke([SystemMessage(rendered.system), HumanMessage(rendered.user)])
        text = message_text(reply).strip()
        if text == NO_ANSWER:
            return True, [], []
        statements, dropped = parse_statements(text, {it.id for it in items})
        if dropped:
            log.warning("answer cited provisions that were not retrieved (removed): %s", ", ".join(dropped))
        return (not statements), statements, dropped
