"""Prompt files: loading by name and version, rendering, and errors that name what is missing."""

from __future__ import annotations

import json

import pytest

from bifrost.core.errors import PromptError
from bifrost.core.prompts import available_versions, default_prompts_dir, load_prompt, resolve_prompts_dir
from bifrost.graph_builders.entities.agent_prompts import AGENTS, ExtractionPrompts

ALL_PROMPTS = [*AGENTS, "answer", "question_decomposition"]


def write(folder, name, version, system="S", user="U ${x}", repair=None):
    d = folder / name
    d.mkdir(parents=True, exist_ok=True)
    if system is not None:
        (d / f"{version}.system.txt").write_text(system)
    if user is not None:
        (d / f"{version}.user.txt").write_text(user)
    if repair is not None:
        (d / f"{version}.repair.txt").write_text(repair)
    return d


@pytest.mark.parametrize("name", ALL_PROMPTS)
def test_every_agent_prompt_loads_from_the_repository(name):
    pair = load_prompt(name)
    latest = available_versions(name)[-1]
    assert pair.version == latest and pair.id == f"{name}@{latest}"
    assert pair.system and pair.user


def test_default_prompts_dir_is_the_repository_folder():
    assert default_prompts_dir().name == "prompts"
    assert (default_prompts_dir() / "content_pruning" / "v1.system.txt").is_file()


def test_json_agents_have_repair_templates_with_error_placeholder():
    for name in [*AGENTS, "question_decomposition"]:
        pair = load_prompt(name)
        assert "error" in pair.render_repair(error="error").lower()


def test_render_fills_placeholders_and_keeps_json_braces():
    pair = load_prompt("entity_extraction")
    rendered = pair.render(provision_id="1926.501(b)(1)", pruned_text="Employees use $5 guardrails.")
    assert "1926.501(b)(1)" in rendered.user and "$5 guardrails" in rendered.user
    assert '{"entities": [{"name": "...", "label": "...", "definition": "..."}]' in rendered.system


def test_answer_prompt_renders_the_exact_refusal_token():
    rendered = load_prompt("answer").render(
        question="q?", provisions="[1] 1926.651(h)(3): text", no_answer_token="<<NO_ANSWER>>"
    )
    assert "exactly <<NO_ANSWER>>" in rendered.system
    assert "[1926.501(b)(10)]" in rendered.system and "VERDICT" in rendered.system


def test_question_decomposition_asks_for_extraction_schema():
    system = load_prompt("question_decomposition").render(question="q").system
    reply_format = system[system.index("{") :]
    assert set(json.loads(reply_format.replace("...", "x"))) == {"entities", "triples", "section_ids"}


def test_missing_placeholder_raises_prompt_error_naming_it():
    pair = load_prompt("entity_validation")
    with pytest.raises(PromptError) as info:
        pair.render(provision_id="p", text="t")
    assert "entities_json" in str(info.value)


def test_unknown_variable_raises_prompt_error():
    with pytest.raises(PromptError) as info:
        load_prompt("content_pruning").render(provision_id="p", text="t", txet="typo")
    assert "txet" in str(info.value)


def test_missing_file_raises_prompt_error_naming_the_path(tmp_path):
    write(tmp_path, "agent", "v1", system=None)
    with pytest.raises(PromptError) as info:
        load_prompt("agent", "v1", prompts_dir=tmp_path)
    assert str(tmp_path / "agent" / "v1.system.txt") in str(info.value)


def test_unknown_prompt_name_raises_prompt_error_naming_the_path(tmp_path):
    with pytest.raises(PromptError) as info:
        load_prompt("nope", prompts_dir=tmp_path)
    assert str(tmp_path / "nope") in str(info.value)


def test_latest_picks_highest_numbered_version(tmp_path):
    for v in ("v1", "v2", "v10"):
        write(tmp_path, "agent", v, system=f"system {v}")
    assert available_versions("agent", tmp_path) == ["v1", "v2", "v10"]
    assert load_prompt("agent", prompts_dir=tmp_path).system == "system v10"
    assert load_prompt("agent", "v2", prompts_dir=tmp_path).system == "system v2"


def test_bad_version_string_is_rejected(tmp_path):
    write(tmp_path, "agent", "v1")
    with pytest.raises(PromptError, match="version"):
        load_prompt("agent", "1", prompts_dir=tmp_path)


def test_missing_repair_template_is_reported(tmp_path):
    d = write(tmp_path, "agent", "v1")
    with pytest.raises(PromptError) as info:
        load_prompt("agent", prompts_dir=tmp_path).render_repair(error="e")
    assert str(d / "v1.repair.txt") in str(info.value)


def test_fingerprint_changes_with_wording(tmp_path):
    write(tmp_path, "agent", "v1", system="one")
    a = load_prompt("agent", prompts_dir=tmp_path).fingerprint
    write(tmp_path, "agent", "v1", system="two")
    assert load_prompt("agent", prompts_dir=tmp_path).fingerprint != a


def test_settings_override_of_prompts_dir(tmp_path):
    class S:
        prompts_dir = tmp_path

    assert resolve_prompts_dir(settings=S()) == tmp_path
    with pytest.raises(PromptError, match="does not exist"):
        resolve_prompts_dir(tmp_path / "absent")


def test_extraction_prompts_load_and_check_variables(tmp_path):
    prompts = ExtractionPrompts.load()
    assert [prompts.get(a).name for a in AGENTS] == list(AGENTS)
    for agent in AGENTS:
        user = "${provision_id}" if agent != "content_pruning" else "${provision_id} ${text}"
        write(tmp_path, agent, "v1", user=user, repair="${error}")
    with pytest.raises(PromptError, match="entity_extraction"):
        ExtractionPrompts.load(prompts_dir=tmp_path)
