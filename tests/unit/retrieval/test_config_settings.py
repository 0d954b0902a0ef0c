"""RetrievalConfig is read from settings like every other setting: environment, .env or bifrost.toml."""

from __future__ import annotations

import pytest

from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.retrieval.config import RetrievalConfig


def test_defaults_when_nothing_is_set(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert RetrievalConfig.from_settings(Settings()) == RetrievalConfig()


def test_environment_overrides_fields_with_nested_names(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIFROST_RETRIEVAL__TOP_N", "30")
    monkeypatch.setenv("BIFROST_RETRIEVAL__USE_DNG", "false")
    cfg = RetrievalConfig.from_settings(Settings())
    assert cfg.top_n == 30 and cfg.use_dng is False


def test_a_removed_setting_is_a_one_line_error_naming_it_and_an_unknown_field_is_refused(
    monkeypatch, tmp_path
):
    from bifrost.core.errors import ConfigError

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIFROST_RETRIEVAL__FACT_SEARCH_DEPTH", "0")
    with pytest.raises(
        ConfigError, match="'fact_search_depth' was removed: .*unset BIFROST_RETRIEVAL__FACT_SEARCH_DEPTH"
    ) as e:
        RetrievalConfig.from_settings(Settings())
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError):
        RetrievalConfig(answer_reach=6)  # an unknown field is an error, not silently ignored


def test_a_toml_file_sets_fields_and_the_environment_wins_over_it(monkeypatch, tmp_path):
    path = tmp_path / "site.toml"
    path.write_text('home = "/tmp/bifrost-toml-home"\n[retrieval]\nseeds = 7\ncite_max = 3\n')
    monkeypatch.setenv("BIFROST_CONFIG", str(path))
    monkeypatch.setenv("BIFROST_RETRIEVAL__CITE_MAX", "4")
    settings = Settings()
    cfg = RetrievalConfig.from_settings(settings)
    assert str(settings.home) == "/tmp/bifrost-toml-home"
    assert cfg.seeds == 7 and cfg.cite_max == 4


def test_a_bad_value_is_a_one_line_error_naming_the_setting(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIFROST_RETRIEVAL__SEEDS", "many")
    with pytest.raises(ConfigError) as e:
        RetrievalConfig.from_settings(Settings())
    assert (
        "'seeds'" in str(e.value) and "BIFROST_RETRIEVAL__SEEDS" in str(e.value) and "\n" not in str(e.value)
    )


def test_an_unknown_field_is_refused(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIFROST_RETRIEVAL__DEPHT", "1")
    with pytest.raises(ConfigError, match="depht"):
        RetrievalConfig.from_settings(Settings())


@pytest.mark.parametrize("name", ["glossary", "reader"])
def test_a_retired_part_s_setting_is_a_one_line_error_saying_why_it_went(monkeypatch, tmp_path, name):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(f"BIFROST_RETRIEVAL__{name.upper()}", "construction" if name == "glossary" else "auto")
    with pytest.raises(ConfigError) as e:
        RetrievalConfig.from_settings(Settings())
    message = str(e.value)
    assert f"{name!r} was removed" in message and "Tried and not kept" in message and "\n" not in message
