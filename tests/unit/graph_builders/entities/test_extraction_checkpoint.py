"""The extraction journal: resuming an interrupted build, no duplicates, no repeated model calls."""

from __future__ import annotations

import json
import re

import pytest
from langchain_core.messages import BaseMessage

from tests.fake_chat import ScriptedChatModel
from bifrost.core.llm import make_llm_cache
from bifrost.core.types import ExtractedEntity, Extraction, Provision, ProvisionKind
from bifrost.graph_builders.entities.agent_prompts import AGENTS, ExtractionPrompts
from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
from bifrost.graph_builders.entities.llm_agents import LlmExtractor

CORPUS = "osha-1926"


def prov(pid: str, text: str | None = None) -> Provision:
    return Provision(
        corpus=CORPUS,
        id=pid,
        kind=ProvisionKind.PARAGRAPH,
        text=text or f"The employer shall inspect the scaffold ({pid}).",
    )


def replies_for(agent: str) -> dict:
    return {
        "content_pruning": {"pruned_text": "The employer shall inspect the scaffold."},
        "entity_extraction": {"entities": [{"name": "employer"}, {"name": "scaffold"}], "section_ids": []},
        "entity_validation": {
            "entities": [{"name": "employer", "label": "Person"}, {"name": "scaffold", "label": "Equipment"}]
        },
        "relation_extraction": {
            "triples": [{"head": "employer", "relation": "shall_inspect", "tail": "scaffold"}]
        },
        "relation_validation": {
            "triples": [{"head": "employer", "relation": "shall_inspect", "tail": "scaffold"}]
        },
    }[agent]


class Responder:
    """Answers every agent; raises ``interrupt_on`` when that provision is first reached (a kill)."""

    def __init__(self, prompts: ExtractionPrompts, interrupt_on: str | None = None) -> None:
        self.by_system = {
            prompts.get(a).render(**{k: "x" for k in prompts.get(a).placeholders}).system: a for a in AGENTS
        }
        self.interrupt_on = interrupt_on

    def __call__(self, messages: list[BaseMessage]) -> str:
        agent = self.by_system[str(messages[0].content)]
        pid = re.search(r"Provision: (\S+)", str(messages[1].content)).group(1)  # type: ignore[union-attr]
        if pid == self.interrupt_on:
            raise KeyboardInterrupt
        return json.dumps(replies_for(agent))


@pytest.fixture(scope="module")
def prompts() -> ExtractionPrompts:
    return ExtractionPrompts.load()


@pytest.fixture
def journal(tmp_path):
    j = ExtractionJournal.at_path(tmp_path / "state" / "journal.db")
    yield j
    j.close()


def extraction(pid: str, name: str = "scaffold") -> Extraction:
    return Extraction(
        corpus=CORPUS, provision_id=pid, entities=(ExtractedEntity(name=name),), extractor="llm"
    )


def test_journal_round_trip(journal):
    p = prov("1926.451(a)")
    assert journal.get(p, "v1") is None
    journal.put(p, "v1", extraction(p.id))
    assert journal.get(p, "v1") == extraction(p.id)


def test_journal_misses_on_changed_text_or_version(journal):
    p = prov("1926.451(a)")
    journal.put(p, "v1", extraction(p.id))
    assert journal.get(prov("1926.451(a)", text="A changed text."), "v1") is None
    assert journal.get(p, "v2") is None


def test_journal_put_twice_keeps_one_row(journal):
    p = prov("1926.451(a)")
    journal.put(p, "v1", extraction(p.id))
    journal.put(p, "v1", extraction(p.id, name="guardrail"))
    assert journal.count() == 1
    assert journal.get(p, "v1").entities[0].name == "guardrail"  # type: ignore[union-attr]


def test_journal_rejects_extraction_of_another_provision(journal):
    with pytest.raises(ValueError, match="cannot be journaled"):
        journal.put(prov("1926.451(a)"), "v1", extraction("1926.451(b)"))


def test_journal_in_memory_url_works_across_threads():
    from concurrent.futures import ThreadPoolExecutor

    j = ExtractionJournal("sqlite://")
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: j.put(prov(f"p{i}"), "v1", extraction(f"p{i}")), range(20)))
    assert j.count(corpus=CORPUS, version="v1") == 20


@pytest.mark.parametrize("concurrency", [1, 3])
def test_interrupted_build_resumes_without_duplicates_or_repeated_calls(prompts, journal, concurrency):
    provisions = [prov(f"1926.451(a)({i})") for i in range(1, 7)]

    killed = ScriptedChatModel(respond=Responder(prompts, interrupt_on=provisions[3].id))
    first = LlmExtractor(killed, prompts, lambda raw, p: raw, concurrency=concurrency, journal=journal)
    done_before: list[Extraction] = []
    with pytest.raises(KeyboardInterrupt):
        for ex in first.extract_many(provisions):
            done_before.append(ex)
    journaled = journal.count(corpus=CORPUS, version=first.version)
    assert journaled >= 3  # everything before the kill is kept; in-flight work may be too
    assert {e.provision_id for e in done_before} <= {p.id for p in provisions[:3]}

    model = ScriptedChatModel(respond=Responder(prompts))
    second = LlmExtractor(model, prompts, lambda raw, p: raw, concurrency=concurrency, journal=journal)
    out = list(second.extract_many(provisions))
    assert [e.provision_id for e in out] == [p.id for p in provisions]
    assert model.calls == 5 * (len(provisions) - journaled)
    assert second.report.from_journal == journaled
    assert journal.count(corpus=CORPUS) == len(provisions)

    # a third run of the same unchanged provisions makes no call at all
    again = ScriptedChatModel(respond=Responder(prompts))
    third = LlmExtractor(again, prompts, lambda raw, p: raw, concurrency=concurrency, journal=journal)
    assert list(third.extract_many(provisions)) == out
    assert again.calls == 0


def test_changed_prompt_version_re_extracts(prompts, journal):
    p = prov("1926.451(a)(1)")
    model = ScriptedChatModel(respond=Responder(prompts))
    LlmExtractor(model, prompts, lambda raw, q: raw, journal=journal).extract_many([p]).__next__()
    other = ScriptedChatModel(respond=Responder(prompts), model_name="another-model")
    ex = LlmExtractor(other, prompts, lambda raw, q: raw, journal=journal)
    list(ex.extract_many([p]))
    assert other.calls == 5 and journal.count() == 2


def test_rebuild_with_cache_and_without_journal_makes_no_calls(prompts, tmp_path):
    provisions = [prov(f"1926.451(b)({i})") for i in range(1, 4)]
    first = ScriptedChatModel(respond=Responder(prompts), cache=make_llm_cache(tmp_path / "cache.db"))
    list(LlmExtractor(first, prompts, lambda raw, p: raw).extract_many(provisions))
    assert first.calls > 0
    second = ScriptedChatModel(respond=Responder(prompts), cache=make_llm_cache(tmp_path / "cache.db"))
    list(LlmExtractor(second, prompts, lambda raw, p: raw).extract_many(provisions))
    assert second.calls == 0
