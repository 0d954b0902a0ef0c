"""The LLM agent pipeline of the Entity Network Graph, driven by scripted fake chat models."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import httpx
import openai
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from bifrost.core.errors import ModelUnavailableError, ModelUnreachableError
from tests.fake_chat import ScriptedChatModel
from bifrost.core.llm import UsageCounter, make_llm_cache
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.entities.agent_prompts import AGENTS, ExtractionPrompts
from bifrost.graph_builders.entities.llm_agents import (
    ExtractionFailedError,
    LlmExtractor,
    is_valid_relation,
    to_snake_case,
)

CORPUS = "osha-1926"
KNOWN_IDS = {"1926.501(b)(1)", "1926.502(b)", "1926.502(c)", "1926.502(d)"}
P1_TEXT = (
    "Each employee on a walking/working surface with an unprotected side or edge which is 6 feet "
    "or more above a lower level shall be protected from falling by the use of guardrail systems, "
    "as specified in 1926.502(b)."
)


def prov(pid: str, text: str = P1_TEXT, heading: str = "") -> Provision:
    return Provision(corpus=CORPUS, id=pid, kind=ProvisionKind.PARAGRAPH, text=text, heading=heading)


def validator(raw: str, provision: Provision) -> str | None:
    cleaned = raw.replace("§", "").replace(" ", "")
    return cleaned if cleaned in KNOWN_IDS else None


@pytest.fixture(scope="module")
def prompts() -> ExtractionPrompts:
    return ExtractionPrompts.load()


# --- scripted replies -------------------------------------------------------------------------

GOOD = {
    "content_pruning": {
        "pruned_text": "Each employee on a walking/working surface with an unprotected side 6 feet above a "
        "lower "
        "level shall be protected by guardrail systems as specified in 1926.502(b)."
    },
    "entity_extraction": {
        "entities": [
            {"name": "employee", "label": "Person", "definition": "A person who works for an employer."},
            {
                "name": "walking/working surface",
                "label": "Location",
                "definition": "A surface to walk or work on.",
            },
            {"name": "guardrail system", "label": "Safety System", "definition": "A barrier against falls."},
        ],
        "section_ids": ["1926.502(b)"],
    },
    "entity_validation": {
        "entities": [
            {"name": "employee", "label": "Person", "definition": "A person who works for an employer."},
            {
                "name": "walking/working surface",
                "label": "Location",
                "definition": "A surface to walk or work on.",
            },
            {"name": "guardrail system", "label": "Safety System", "definition": "A barrier against falls."},
            {"name": "lower level", "label": "Location", "definition": "An area below a working surface."},
        ]
    },
    "relation_extraction": {
        "triples": [{"head": "employee", "relation": "shall be protected by", "tail": "guardrail system"}]
    },
    "relation_validation": {
        "triples": [{"head": "Employee", "relation": "shall_be_protected_by", "tail": "guardrail system"}]
    },
}


class Script:
    """Routes each call to (agent, provision id, attempt) and lets tests override replies."""

    def __init__(self, prompts: ExtractionPrompts) -> None:
        self.by_system = {prompts.get(a).render(**_dummy(prompts, a)).system: a for a in AGENTS}
        self.overrides: dict[tuple[str, str], Callable[[int, list[BaseMessage]], str]] = {}
        self.seen: list[tuple[str, str, int]] = []

    def agent_of(self, messages: list[BaseMessage]) -> tuple[str, str]:
        agent = self.by_system[str(messages[0].content)]
        pid = re.search(r"Provision: (\S+)", str(messages[1].content)).group(1)  # type: ignore[union-attr]
        return agent, pid

    def __call__(self, messages: list[BaseMessage]) -> str:
        agent, pid = self.agent_of(messages)
        attempt = (len(messages) - 2) // 2  # each repair round adds an AI reply and a human message
        self.seen.append((agent, pid, attempt))
        if (agent, pid) in self.overrides:
            return self.overrides[(agent, pid)](attempt, messages)
        return json.dumps(GOOD[agent])


def _dummy(prompts: ExtractionPrompts, agent: str) -> dict[str, str]:
    return {name: "x" for name in prompts.get(agent).placeholders}


def make(prompts: ExtractionPrompts, script: Script, **kwargs) -> tuple[LlmExtractor, ScriptedChatModel]:
    model = ScriptedChatModel(respond=script)
    kwargs.setdefault("concurrency", 1)
    kwargs.setdefault("retry_wait", False)
    return LlmExtractor(model, prompts, validator, **kwargs), model


# --- behaviour ----------------------------------------------------------------------------------


def test_valid_output_runs_five_agents_and_builds_extraction(prompts):
    script = Script(prompts)
    extractor, model = make(prompts, script)
    ex = extractor.extract(prov("1926.501(b)(1)"))
    assert [a for a, _, _ in script.seen] == list(AGENTS)
    assert model.calls == 5
    assert [e.name for e in ex.entities] == [
        "employee",
        "walking/working surface",
        "guardrail system",
        "lower level",
    ]
    assert ex.entities[2].label == "Safety System"
    assert [(t.head, t.relation, t.tail) for t in ex.triples] == [
        ("employee", "shall_be_protected_by", "guardrail system")
    ]
    assert ex.section_refs == ("1926.502(b)",)
    assert ex.extractor == "llm" and ex.corpus == CORPUS and ex.provision_id == "1926.501(b)(1)"


def test_works_with_langchain_generic_fake_chat_model(prompts):
    replies = iter([AIMessage(content=json.dumps(GOOD[a])) for a in AGENTS])
    extractor = LlmExtractor(GenericFakeChatModel(messages=replies), prompts, validator, concurrency=1)
    ex = extractor.extract(prov("1926.501(b)(1)"))
    assert len(ex.entities) == 4 and len(ex.triples) == 1


def test_fenced_json_with_prose_is_accepted(prompts):
    script = Script(prompts)
    script.overrides[("entity_extraction", "p1")] = lambda i, m: (
        "Here you go:\n```json\n" + json.dumps(GOOD["entity_extraction"]) + "\n```\nDone."
    )
    extractor, _ = make(prompts, script)
    extractor.extract(prov("p1"))
    assert extractor.report.repairs == 0


def test_invalid_json_is_fed_back_and_retried(prompts):
    script = Script(prompts)
    feedback: list[str] = []

    def reply(attempt: int, messages: list[BaseMessage]) -> str:
        if attempt == 0:
            return '{"entities": [{"name": "employee",'  # truncated JSON
        feedback.append(str(messages[-1].content))
        return json.dumps(GOOD["entity_extraction"])

    script.overrides[("entity_extraction", "p1")] = reply
    extractor, model = make(prompts, script)
    ex = extractor.extract(prov("p1"))
    assert len(ex.entities) == 4
    assert model.calls == 6
    assert extractor.report.repairs == 1
    assert "not valid JSON" in feedback[0]
    assert "section_ids" in feedback[0]  # the repair template restates the schema


def test_schema_violation_is_fed_back_with_field_name(prompts):
    script = Script(prompts)
    script.overrides[("relation_extraction", "p1")] = lambda i, m: (
        '{"triples": [{"head": "employee", "tail": "guardrail system"}]}'
        if i == 0
        else json.dumps(GOOD["relation_extraction"])
    )
    extractor, _ = make(prompts, script)
    extractor.extract(prov("p1"))
    repair_msgs = [a for a, pid, attempt in script.seen if attempt == 1]
    assert repair_msgs == ["relation_extraction"]


def test_output_invalid_after_all_repairs_is_a_failed_item_and_build_continues(prompts):
    script = Script(prompts)
    script.overrides[("entity_validation", "p2")] = lambda i, m: "I cannot help with that."
    extractor, _ = make(prompts, script, max_repairs=2)
    out = list(extractor.extract_many([prov("p1"), prov("p2"), prov("p3")]))
    assert [e.provision_id for e in out] == ["p1", "p3"]
    [failed] = extractor.report.failed
    assert (failed.provision_id, failed.agent) == ("p2", "entity_validation")
    assert "3 attempts" in failed.reason and "not valid JSON" in failed.reason
    assert sum(1 for a, pid, _ in script.seen if pid == "p2" and a == "entity_validation") == 3
    with pytest.raises(ExtractionFailedError) as info:
        extractor.extract(prov("p2"))
    assert info.value.item.agent == "entity_validation"


def test_triple_with_hallucinated_entity_is_rejected_and_counted(prompts):
    script = Script(prompts)
    script.overrides[("relation_validation", "p1")] = lambda i, m: json.dumps(
        {
            "triples": [
                {"head": "employee", "relation": "shall_be_protected_by", "tail": "guardrail system"},
                {"head": "employee", "relation": "uses", "tail": "ladder"},
                {"head": "safety harness", "relation": "attaches_to", "tail": "guardrail system"},
            ]
        }
    )
    extractor, _ = make(prompts, script)
    ex = extractor.extract(prov("p1"))
    assert [t.tail for t in ex.triples] == ["guardrail system"]
    assert extractor.report.rejected_triples == 2


def test_hallucinated_section_ids_are_dropped_and_counted(prompts):
    script = Script(prompts)
    reply = dict(
        GOOD["entity_extraction"],
        section_ids=["§ 1926.502(b)", "1926.502(zz)", "not a citation", "1926.502(b)"],
    )
    script.overrides[("entity_extraction", "p1")] = lambda i, m: json.dumps(reply)
    extractor, _ = make(prompts, script)
    ex = extractor.extract(prov("p1"))
    assert ex.section_refs == ("1926.502(b)",)
    assert extractor.report.dropped_section_refs == 2


def test_validator_exception_counts_as_dropped_section_id(prompts):
    def raising(raw: str, p: Provision) -> str | None:
        raise ValueError("bad citation")

    extractor = LlmExtractor(ScriptedChatModel(respond=Script(prompts)), prompts, raising, concurrency=1)
    ex = extractor.extract(prov("p1"))
    assert ex.section_refs == () and extractor.report.dropped_section_refs == 1


def test_relations_are_normalized_to_snake_case_or_rejected(prompts):
    script = Script(prompts)
    script.overrides[("relation_validation", "p1")] = lambda i, m: json.dumps(
        {
            "triples": [
                {"head": "employee", "relation": "Shall Be Protected By", "tail": "guardrail system"},
                {"head": "guardrail system", "relation": "isLocatedOn", "tail": "walking/working surface"},
                {"head": "employee", "relation": "!!!", "tail": "lower level"},
                {"head": "employee", "relation": "9 lives", "tail": "lower level"},
            ]
        }
    )
    extractor, _ = make(prompts, script)
    ex = extractor.extract(prov("p1"))
    assert [t.relation for t in ex.triples] == ["shall_be_protected_by", "is_located_on"]
    assert extractor.report.invalid_relations == 2


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("shall not exceed", "shall_not_exceed"),
        ("isUsedOn", "is_used_on"),
        ("  protects ", "protects"),
        ("a--b", "a_b"),
    ],
)
def test_to_snake_case(raw, expected):
    assert to_snake_case(raw) == expected
    assert is_valid_relation(expected)


def test_is_valid_relation_rejects_non_snake_case():
    assert not is_valid_relation("Shall_Be")
    assert not is_valid_relation("_x")
    assert not is_valid_relation("x" * 81)


def test_timeout_is_retried_then_recorded_as_failed_item_and_build_continues(prompts):
    script = Script(prompts)

    def timeout(attempt: int, messages: list[BaseMessage]) -> str:
        raise openai.APITimeoutError(request=httpx.Request("POST", "http://llm.local/v1/chat/completions"))

    script.overrides[("relation_extraction", "p2")] = timeout
    extractor, _ = make(prompts, script, max_attempts=3, concurrency=2)
    out = list(extractor.extract_many([prov("p1"), prov("p2"), prov("p3")]))
    assert [e.provision_id for e in out] == ["p1", "p3"]
    assert sum(1 for a, pid, _ in script.seen if (a, pid) == ("relation_extraction", "p2")) == 3
    [failed] = extractor.report.failed
    assert failed.agent == "relation_extraction" and "APITimeoutError after 3 attempts" in failed.reason


def test_transient_error_then_success_recovers(prompts):
    script = Script(prompts)
    state = {"n": 0}

    def flaky(attempt: int, messages: list[BaseMessage]) -> str:
        state["n"] += 1
        if state["n"] == 1:
            raise TimeoutError("read timed out")
        return json.dumps(GOOD["content_pruning"])

    script.overrides[("content_pruning", "p1")] = flaky
    extractor, model = make(prompts, script)
    assert len(extractor.extract(prov("p1")).entities) == 4
    assert model.calls == 6


def test_authentication_error_stops_the_build(prompts):
    def refuse(messages: list[BaseMessage]) -> str:
        response = httpx.Response(401, request=httpx.Request("POST", "http://llm.local/v1/chat/completions"))
        raise openai.AuthenticationError("invalid api key", response=response, body=None)

    extractor = LlmExtractor(
        ScriptedChatModel(respond=refuse), prompts, validator, concurrency=1, retry_wait=False
    )
    with pytest.raises(ModelUnavailableError):
        list(extractor.extract_many([prov("p1")]))


def test_pruning_that_loses_a_section_id_falls_back_to_original_text(prompts):
    script = Script(prompts)
    script.overrides[("content_pruning", "p1")] = lambda i, m: json.dumps(
        {"pruned_text": "Employees need guardrails."}
    )
    seen_texts: list[str] = []
    orig = script.__call__

    def spy(messages: list[BaseMessage]) -> str:
        if script.agent_of(messages)[0] == "entity_extraction":
            seen_texts.append(str(messages[1].content))
        return orig(messages)

    extractor = LlmExtractor(ScriptedChatModel(respond=spy), prompts, validator, concurrency=1)
    extractor.extract(prov("p1"))
    assert extractor.report.pruning_fallbacks == 1
    assert "1926.502(b)" in seen_texts[0]


def test_empty_provision_makes_no_call(prompts):
    extractor, model = make(prompts, Script(prompts))
    ex = extractor.extract(prov("1926.409-1926.415", text="", heading=""))
    assert ex.entities == () and model.calls == 0
    assert extractor.report.empty == 1


def test_heading_only_provision_is_sent_with_its_heading(prompts):
    script = Script(prompts)
    texts: list[str] = []
    orig = script.__call__

    def spy(messages: list[BaseMessage]) -> str:
        if script.agent_of(messages)[0] == "content_pruning":
            texts.append(str(messages[1].content))
        return orig(messages)

    LlmExtractor(ScriptedChatModel(respond=spy), prompts, validator).extract(
        prov("1926.501", text="", heading="Duty to have fall protection.")
    )
    assert "Duty to have fall protection." in texts[0]


def test_extract_many_keeps_input_order_under_concurrency(prompts):
    extractor, model = make(prompts, Script(prompts), concurrency=4)
    ids = [f"p{i}" for i in range(12)]
    out = list(extractor.extract_many(prov(i) for i in ids))
    assert [e.provision_id for e in out] == ids
    assert model.calls == 5 * 12
    assert extractor.report.extracted == 12 and extractor.report.provisions == 12


def test_usage_counter_sees_every_agent_call(prompts):
    usage = UsageCounter()
    extractor = LlmExtractor(
        ScriptedChatModel(respond=Script(prompts)), prompts, validator, callbacks=[usage]
    )
    extractor.extract(prov("p1"))
    report = usage.report()
    assert report.calls == 5 and report.models[0].model == "scripted"
    assert report.models[0].input_tokens > 0 and report.cost_usd is None  # no price for "scripted"


def test_persistent_cache_prevents_repeated_calls(prompts, tmp_path):
    def cached(cache) -> tuple[LlmExtractor, ScriptedChatModel]:
        model = ScriptedChatModel(respond=Script(prompts), cache=cache)
        return LlmExtractor(model, prompts, validator, concurrency=1, retry_wait=False), model

    first, model1 = cached(make_llm_cache(tmp_path / "llm-cache.db"))
    a = list(first.extract_many([prov("p1"), prov("p2")]))
    assert model1.calls == 10
    # a new process: new model object, same parameters, same cache file
    second, model2 = cached(make_llm_cache(tmp_path / "llm-cache.db"))
    b = list(second.extract_many([prov("p1"), prov("p2")]))
    assert model2.calls == 0
    assert a == b
    # a changed provision text is a new prompt: only the agents that read it are called again
    # (pruning and the two validators); the rest see the same pruned text and hit the cache
    third, model3 = cached(model2.cache)
    list(third.extract_many([prov("p1"), prov("p2", text=P1_TEXT + " Changed.")]))
    assert model3.calls == 3


def test_prompt_text_is_sent_as_system_and_user_messages(prompts):
    captured: list[list[BaseMessage]] = []
    script = Script(prompts)

    def spy(messages: list[BaseMessage]) -> str:
        captured.append(messages)
        return script(messages)

    LlmExtractor(ScriptedChatModel(respond=spy), prompts, validator).extract(prov("p1"))
    first = captured[0]
    assert first[0].type == "system" and isinstance(first[1], HumanMessage)
    assert P1_TEXT in str(first[1].content)


def test_constructor_rejects_bad_arguments(prompts):
    model = ScriptedChatModel(respond=Script(prompts))
    with pytest.raises(ValueError, match="concurrency"):
        LlmExtractor(model, prompts, validator, concurrency=0)
    with pytest.raises(ValueError, match="max_attempts"):
        LlmExtractor(model, prompts, validator, max_attempts=0)


def test_version_names_model_and_prompt_fingerprint(prompts):
    extractor, _ = make(prompts, Script(prompts))
    assert extractor.version == f"llm/scripted/prompts-{prompts.fingerprint}"


def test_grammar_ref_validator_normalizes_and_checks_the_corpus():
    from bifrost.graph_builders.jurisdictions.us_cfr import citation as cfr
    from bifrost.graph_builders.entities.llm_agents import grammar_ref_validator

    check = grammar_ref_validator(cfr.normalize, KNOWN_IDS)
    p = prov("1926.502(d)")
    assert check("§ 1926.502 (b)", p) == "1926.502(b)"
    assert check("(c)", p) == "1926.502(c)"
    assert check("1926.502(zz)", p) is None  # grammar accepts, corpus lacks
    assert check("the guardrail", p) is None  # grammar rejects


# --- circuit breaker ------------------------------------------------------------------------------


def _refused(messages: list[BaseMessage]) -> str:
    raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))


def test_consecutive_connection_failures_open_the_breaker_and_stop_the_run(prompts):
    model = ScriptedChatModel(respond=_refused)
    extractor = LlmExtractor(
        model, prompts, validator, concurrency=1, retry_wait=False, max_connection_failures=3
    )
    with pytest.raises(ModelUnreachableError) as info:
        list(extractor.extract_many([prov(f"p{i}") for i in range(20)]))
    assert "3 consecutive connection failures" in str(info.value) and "APIConnectionError" in str(info.value)
    assert model.calls <= 3 * 2 + 2  # max_attempts=2 per provision; a window of in-flight provisions at most
    with pytest.raises(ModelUnreachableError):  # stays open: later batches make no call
        list(extractor.extract_many([prov("p99")]))


def test_a_reply_between_connection_failures_closes_the_count(prompts):
    script = Script(prompts)
    for pid in ("p0", "p1", "p3", "p4"):
        script.overrides[("content_pruning", pid)] = lambda attempt, messages: _refused(messages)
    extractor, _ = make(prompts, script, max_connection_failures=3)
    out = list(extractor.extract_many([prov(f"p{i}") for i in range(5)]))
    assert [e.provision_id for e in out] == ["p2"]
    assert set(extractor.failure_reasons()) == {"p0", "p1", "p3", "p4"}
    assert "APIConnectionError" in extractor.failure_reasons()["p0"] and not extractor.breaker.is_open


def test_a_breaker_limit_of_zero_never_opens(prompts):
    extractor = LlmExtractor(
        ScriptedChatModel(respond=_refused),
        prompts,
        validator,
        concurrency=2,
        retry_wait=False,
        max_connection_failures=0,
        max_attempts=1,
    )
    assert list(extractor.extract_many([prov(f"p{i}") for i in range(8)])) == []
    assert len(extractor.report.failed) == 8


def test_an_entity_whose_name_is_not_words_of_the_provision_is_dropped_and_counted(prompts):
    script = Script(prompts)
    invented = {
        "entities": [
            *GOOD["entity_validation"]["entities"],
            {"name": "1926.451(b)(1)", "label": ""},
            {"name": "safety harness", "label": "Equipment"},
        ]
    }
    script.overrides[("entity_validation", "p1")] = lambda i, m: json.dumps(invented)
    extractor, _ = make(prompts, script)
    out = extractor.extract(prov("p1"))
    assert {e.name for e in out.entities} == {
        "employee",
        "walking/working surface",
        "guardrail system",
        "lower level",
    }
    assert extractor.report.ungrounded_entities == 2


def test_pruning_without_a_usable_reply_reads_the_original_text_and_the_provision_is_extracted(prompts):
    script = Script(prompts)
    script.overrides[("content_pruning", "p1")] = lambda i, m: (
        '{"type": "json", "data": {"id": 1926.502(b)(1)}}'
    )
    extractor, _ = make(prompts, script, max_repairs=1)
    out = extractor.extract(prov("p1"))
    assert out.entities and not extractor.report.failed and extractor.report.pruning_invalid == 1
