"""Answers written by a chat model from the answer plan, every statement cited and quoted.

The answer prompt (``prompts/answer``, v3) shows the plan (each provision with its role and the
path that brought it in) and asks for an optional ``VERDICT: yes|no|depends [id]`` line, then
``STATEMENT: ... [id]`` lines, each followed by ``QUOTE [id]: "exact words"`` lines. Citations are
checked against the plan (an id outside it is removed and reported) and quotes against the provision
text by `bifrost.retrieval.answer.quotes` (a statement whose quote is not there is dropped); a verdict
stands only when a surviving statement quotes the provision it names. Refusal is a token the model
emits, compared exactly. (`answer`, over a ranked list with the v2 prompt, is kept for the prompt
versions that take no plan.)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from bifrost.core.prompts import load_prompt
from bifrost.core.structured import message_text
from bifrost.core.answer_types import RetrievedItem, Statement, Verdict
from bifrost.core.types import Provision
from bifrost.retrieval.answer.base import Planned
from bifrost.retrieval.answer.citations import CITE_MARK
from bifrost.retrieval.answer.base import DraftStatement, QuoteClaim
from bifrost.retrieval.answer.quotes import check_statements

log = logging.getLogger(__name__)

NO_ANSWER = "<<NO_ANSWER>>"
SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")
BULLET = r"(?:[-*•>]+\s*|\d+[.)]\s+)*"
STATEMENT_LINE = re.compile(
    rf"^\s*{BULLET}\**\s*statement\s*\**\s*\d*\s*\**\s*:\s*\**\s*(?P<rest>.*)$", re.IGNORECASE
)
QUOTE_LINE = re.compile(rf"^\s*{BULLET}\**\s*quote\s*\**\s*(?P<rest>[\[(:\d].*)$", re.IGNORECASE)
ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…)\s*")
OPENING = {'"': '"', "“": "”", "«": "»", "'": "'", "‘": "’", "„": "“"}


def format_provisions(items: Sequence[RetrievedItem], lookup: Callable[[str], Provision | None]) -> str:
    """The retrieved provisions as the prompt shows them: ``[id] heading`` and the text below."""
    blocks = []
    for it in items:
        p = lookup(it.id)
        if p is None:
            continue
        head = f"[{p.id}] {p.heading}".strip()
        blocks.append(f"{head}\n{p.text.strip()}" if p.text.strip() else head)
    return "\n\n".join(blocks)


VERDICT_LINE = re.compile(
    rf"^\s*{BULLET}\**\s*verdict\s*\**\s*:\s*\**\s*(?P<value>yes|no|depends)\b\**\s*(?P<rest>.*)$", re.I
)


def format_plan(planned: Sequence[Planned], lookup: Callable[[str], Provision | None]) -> str:
    """The plan as the prompt shows it: ``[id] (role; path a > b) heading`` and the text below."""
    blocks = []
    for item in planned:
        p = lookup(item.id)
        if p is None:
            continue
        path = f"; path {' > '.join(item.path)}" if len(item.path) > 1 else ""
        head = f"[{p.id}] ({item.role.value}{path}) {p.heading}".strip()
        blocks.append(f"{head}\n{p.text.strip()}" if p.text.strip() else head)
    return "\n\n".join(blocks)


@dataclass(frozen=True)
class AgentAnswer:
    """What the answer agent said, after checking: refused (it answered the refusal token), the statements
    whose quotes were found, the ids it cited outside what it was given (removed), and the verdict when a
    quoted statement backs it."""

    refused: bool
    statements: list[Statement]
    dropped: list[str]
    verdict: Verdict | None = None


def find_citations(text: str, allowed: set[str]) -> tuple[list[str], list[str], str]:
    """(allowed ids cited as ``[id]``, other ``[...]`` marks, the text with every mark removed).

    Ids are matched whole against the allowed set, so ids with brackets of their own
    (``1926.500(b)[Leading edge]``) are found too.
    """
    spans: list[tuple[int, int, str]] = []
    for pid in sorted(allowed, key=len, reverse=True):
        mark, at = f"[{pid}]", 0
        while (at := text.find(mark, at)) >= 0:
            if not any(s <= at < e for s, e, _ in spans):
                spans.append((at, at + len(mark), pid))
            at += len(mark)
    unknown = []
    for m in CITE_MARK.finditer(text):
        if not any(s <= m.start() < e for s, e, _ in spans):
            spans.append((m.start(), m.end(), ""))
            unknown.append(m.group(1).strip())
    spans.sort()
    cited = list(dict.fromkeys(pid for _, _, pid in spans if pid))
    body, last = [], 0
    for s, e, _ in spans:
        body.append(text[last:s])
        last = e
    body.append(text[last:])
    return cited, unknown, SPACE_BEFORE_PUNCT.sub(r"\1", " ".join("".join(body).split())).strip()


def unquote(text: str) -> str:
    """The words between the outer quotation marks (straight or curly; a mark left open is
    dropped too), else the text stripped."""
    s = text.strip().strip("*_").strip()
    close = OPENING.get(s[:1])
    if close is None:
        return s
    end = s.rfind(close, 1)
    return s[1:end] if end > 0 else s[1:]


def _quote_target(rest: str, allowed: set[str]) -> tuple[str | None, str | None, str]:
    """(allowed id, unknown id, quoted words) of what follows ``QUOTE`` on a line."""
    rest = rest.strip().lstrip("*").strip()
    for pid in sorted(allowed, key=len, reverse=True):
        for form in (f"[{pid}]", f"({pid})", pid):
            if rest.startswith(form):
                return pid, None, rest[len(form) :].lstrip("*").strip().removeprefix(":").strip()
    if rest.startswith("[") and (end := rest.find("]:")) > 0:
        return None, rest[1:end].strip(), rest[end + 2 :].strip()
    return None, None, rest.removeprefix(":").strip()


class _Draft:
    """A statement being parsed: its lines and its quote claims."""

    def __init__(self, line: str) -> None:
        self.lines = [line]
        self.claims: list[QuoteClaim] = []


def parse_answer(text: str, allowed: set[str]) -> tuple[list[DraftStatement], list[str]]:
    """Statements with their cited ids and claimed quotes; and the ids cited but not allowed.

    Tolerates bullets, numbering, bold labels, curly quotes, a quote running over several
    lines and ``...`` inside a quote (each part is then checked on its own). A text line that
    follows a quote, or that starts with ``STATEMENT:``, starts a new statement.
    """
    drafts: list[_Draft] = []
    dropped: list[str] = []
    open_quote: tuple[_Draft, str | None, list[str]] | None = None

    def close_quote() -> None:
        nonlocal open_quote
        if open_quote is not None:
            draft, pid, parts = open_quote
            words = unquote(" ".join(parts))
            draft.claims += [QuoteClaim(pid, w) for w in ELLIPSIS.split(words) if w.strip()]
            open_quote = None

    for line in text.splitlines():
        if (
            open_quote is not None
            and not QUOTE_LINE.match(line)
            and not STATEMENT_LINE.match(line)
            and line.strip()
        ):
            open_quote[2].append(line)
            if _closes(open_quote[2]):
                close_quote()
            continue
        close_quote()
        if not line.strip():
            continue
        if m := QUOTE_LINE.match(line):
            if not drafts:
                log.info("quote before any statement ignored: %s", line[:80])
                continue
            pid, unknown, words = _quote_target(m.group("rest"), allowed)
            if unknown is not None:
                dropped.append(unknown)
                continue
            open_quote = (drafts[-1], pid, [words])
            if _closes(open_quote[2]):
                close_quote()
            continue
        m = STATEMENT_LINE.match(line)
        body = m.group("rest") if m else line.strip()
        if m or not drafts or drafts[-1].claims:
            drafts.append(_Draft(body))
        else:
            drafts[-1].lines.append(body)
    close_quote()
    out = []
    for d in drafts:
        cited, unknown, body = find_citations(" ".join(d.lines), allowed)
        dropped += unknown
        if body:
            out.append(DraftStatement(text=body, citations=tuple(cited), claims=tuple(d.claims)))
    return out, list(dict.fromkeys(dropped))


def _closes(parts: list[str]) -> bool:
    """True when the quote in ``parts`` has its closing mark (or never opened one)."""
    s = " ".join(parts).strip().strip("*_").strip()
    close = OPENING.get(s[:1])
    return close is None or s.rfind(close, 1) > 0


class LlmAnswerer:
    """The answer agent: reviews provisions, writes a cited and quoted answer, or emits the refusal token."""

    def __init__(self, chat_model: BaseChatModel, prompts_dir=None, version: str = "latest") -> None:
        self.chat_model = chat_model
        self.prompt = load_prompt("answer", version, prompts_dir)

    def answer(
        self, question: str, items: Sequence[RetrievedItem], lookup: Callable[[str], Provision | None]
    ) -> tuple[bool, list[Statement], list[str]]:
        """(refused, statements whose quotes were found in their provisions, dropped ids)."""
        rendered = self.prompt.render(
            question=question, provisions=format_provisions(items, lookup), no_answer_token=NO_ANSWER
        )
        reply = self.chat_model.invoke([SystemMessage(rendered.system), HumanMessage(rendered.user)])
        text = message_text(reply).strip()
        if text == NO_ANSWER:
            return True, [], []
        allowed = {it.id for it in items}
        drafts, dropped = parse_answer(text, allowed)
        if dropped:
            log.warning("answer cited provisions that were not retrieved (removed): %s", ", ".join(dropped))
        checked = check_statements(drafts, lambda pid: lookup(pid) if pid in allowed else None)
        return (not checked.statements), checked.statements, dropped

    def answer_plan(
        self, question: str, planned: Sequence[Planned], lookup: Callable[[str], Provision | None]
    ) -> AgentAnswer:
        """The agent's answer over an answer plan (prompt v3 or later): cited ids outside the plan are
        removed and reported, statements without a verbatim quote dropped, the verdict kept only when a
        surviving statement quotes its provision."""
        allowed = {item.id for item in planned}
        rendered = self.prompt.render(
            question=question, provisions=format_plan(planned, lookup), no_answer_token=NO_ANSWER
        )
        reply = self.chat_model.invoke([SystemMessage(rendered.system), HumanMessage(rendered.user)])
        text = message_text(reply).strip()
        if text == NO_ANSWER:
            return AgentAnswer(True, [], [])
        said, body = _verdict_line(text, allowed)
        drafts, dropped = parse_answer(body, allowed)
        if dropped:
            log.warning("answer cited provisions outside the answer plan (removed): %s", ", ".join(dropped))
        checked = check_statements(drafts, lambda pid: lookup(pid) if pid in allowed else None)
        verdict = None
        if said is not None:
            value, pid = said
            quote = next((q for st in checked.statements for q in st.quotes if q.provision_id == pid), None)
            verdict = Verdict(value=value, provision_id=pid, words=quote.text) if quote is not None else None
        # refused: only the agent's own refusal token
        return AgentAnswer(False, checked.statements, dropped, verdict)


def _verdict_line(text: str, allowed: set[str]) -> tuple[tuple[str, str] | None, str]:
    """(verdict value and the allowed id it names, or None; the text without the verdict line)."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if m := VERDICT_LINE.match(line):
            cited, _unknown, _ = find_citations(m.group("rest"), allowed)
            rest = "\n".join(lines[:n] + lines[n + 1 :])
            return ((m.group("value").lower(), cited[0]) if cited else None), rest
    return None, text
