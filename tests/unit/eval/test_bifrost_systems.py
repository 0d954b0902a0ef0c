"""Bifrost's eval systems: presets of the paper's algorithm, ablations, and tau variants."""

from __future__ import annotations

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.eval.registry import UnknownSystemError, make_default_registry, parse_systems
from bifrost.eval.bifrost_systems import PRESETS, factory_for
from tests.unit.mini_corpus import MINI, build_corpus


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Settings:
    home = tmp_path_factory.mktemp("evsys")
    bf = Bifrost(Settings(home=home))
    try:
        build_corpus(bf, "mini", MINI)
    finally:
        bf.close()
    return Settings(home=home)


def test_every_preset_is_in_a_new_default_registry():
    assert {"bifrost", "bifrost-eng-only", "bifrost-no-swap", "bifrost-hybrid", "llm-only"} <= set(
        make_default_registry().known()
    )


def test_the_paper_preset_has_no_keyword_or_dense_channel_and_eng_only_has_no_navigator():
    assert PRESETS["bifrost"]["lexical_weight"] == 0 and PRESETS["bifrost"]["combine"] == "intersection"
    assert PRESETS["bifrost-eng-only"]["use_dng"] is False


def test_a_system_answers_with_a_ranked_list_and_a_cited_subset(settings):
    system = factory_for("bifrost-hybrid")(settings, "mini")
    system.warm_up("mini")
    result = system.search("Who must prepare the fall protection plan?", 10)
    ranked = [pid for pid, _ in result.ranked]
    assert ranked and set(result.cited) <= set(ranked)


def test_tau_builds_a_variant_entity_network_once_and_leaves_the_main_one_alone(settings):
    system = factory_for("bifrost")(settings, "mini", tau=0.8)
    system.warm_up("mini")
    main = factory_for("bifrost")(settings, "mini")
    main.warm_up("mini")
    variant = settings.home / "variants" / "mini-tau0.800"
    assert (variant / "built").exists() and (variant / "bifrost.db").exists()
    assert len(system._retriever.index.entity_names) < len(main._retriever.index.entity_names)
    stamp = (variant / "built").stat().st_mtime
    factory_for("bifrost")(settings, "mini", tau=0.8).warm_up("mini")
    assert (variant / "built").stat().st_mtime == stamp


def test_an_unknown_parameter_is_a_one_line_error(settings):
    spec = parse_systems("bifrost:depht=2")[0]
    with pytest.raises(UnknownSystemError) as e:
        make_default_registry().create(spec, settings, "mini")
    assert "depht" in str(e.value)


def test_llm_only_keeps_the_existing_ids_the_model_names_in_its_order(settings):
    from bifrost.eval.bifrost_systems import LlmOnlySystem
    from tests.fake_chat import ScriptedChatModel

    reply = (
        "§ 1926.502 (b) guardrails.\n1926.501(b)(2)(i) leading edges.\n1910.23(e) stairs.\n1926.502(b) again."
    )
    system = LlmOnlySystem(settings, chat_model=ScriptedChatModel(respond=lambda messages: reply))
    system.warm_up("mini")
    result = system.search("Guardrails at leading edges?", 10)
    assert result.cited == ["1926.502(b)", "1926.501(b)(2)(i)"] and not result.refused


def test_llm_only_refusal_token_and_skip_without_a_model(settings):
    from bifrost.retrieval.base import SystemUnavailable
    from bifrost.eval.baselines.llm_only import NO_ANSWER
    from bifrost.eval.bifrost_systems import LlmOnlySystem
    from tests.fake_chat import ScriptedChatModel

    system = LlmOnlySystem(settings, chat_model=ScriptedChatModel(respond=lambda messages: NO_ANSWER))
    system.warm_up("mini")
    assert system.search("q", 10).refused
    with pytest.raises(SystemUnavailable):
        LlmOnlySystem(settings).warm_up("mini")
