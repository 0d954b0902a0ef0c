"""A stored ranker is used only where it fits: same corpus, embedding model and known features; a corrupt
file falls back to the hybrid with a warning instead of stopping answers."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.retrieval.ranking.ltr.features import FEATURES
from bifrost.retrieval.ranking.ltr.model import ModelCard, RankerModel, load_ranker, model_paths
from tests.conftest import import_or_skip

lightgbm = import_or_skip("lightgbm", "ltr")


def trained(corpus: str = "mini", model: str = "all-MiniLM-L6-v2") -> RankerModel:
    rng = np.random.default_rng(0)
    x = rng.random((60, len(FEATURES)))
    y = (x[:, 0] > 0.5).astype(int)
    ranker = lightgbm.LGBMRanker(n_estimators=5, min_child_samples=2, verbose=-1).fit(x, y, group=[10] * 6)
    return RankerModel(
        ranker.booster_, ModelCard(corpus=corpus, embedding_model=model, features=list(FEATURES))
    )


def test_a_saved_ranker_loads_and_scores(tmp_path):
    settings = Settings(home=tmp_path)
    trained().save(settings)
    model = load_ranker(settings, "mini", FEATURES)
    assert model is not None and model.score(np.zeros((3, len(FEATURES)))).shape == (3,)


def test_no_ranker_means_none(tmp_path):
    assert load_ranker(Settings(home=tmp_path), "mini", FEATURES) is None


def test_a_ranker_for_another_corpus_or_embedding_model_is_refused_naming_both(tmp_path):
    settings = Settings(home=tmp_path)
    trained().save(settings)
    _, card = model_paths(settings, "mini")
    doc = json.loads(card.read_text())
    card.write_text(json.dumps({**doc, "embedding_model": "other-encoder"}))
    with pytest.raises(ConfigError) as e:
        load_ranker(settings, "mini", FEATURES)
    assert (
        "'other-encoder'" in str(e.value)
        and "'all-MiniLM-L6-v2'" in str(e.value)
        and "\n" not in str(e.value)
    )
    card.write_text(json.dumps({**doc, "corpus": "adgm"}))
    with pytest.raises(ConfigError, match="'adgm', not 'mini'"):
        load_ranker(settings, "mini", FEATURES)


def test_a_corrupt_model_file_is_reported_and_none_is_returned(tmp_path, caplog):
    settings = Settings(home=tmp_path)
    trained().save(settings)
    model_path, _ = model_paths(settings, "mini")
    model_path.write_text("tree\nthis is not a model\n")
    with caplog.at_level(logging.WARNING):
        assert load_ranker(settings, "mini", FEATURES) is None
    assert "corrupt" in caplog.text and "hybrid" in caplog.text


def fitted_on(features: list[str]) -> RankerModel:
    rng = np.random.default_rng(1)
    x = rng.random((60, len(features)))
    ranker = lightgbm.LGBMRanker(n_estimators=5, min_child_samples=2, verbose=-1).fit(
        x, (x[:, 0] > 0.5).astype(int), group=[10] * 6
    )
    return RankerModel(
        ranker.booster_, ModelCard(corpus="mini", embedding_model="all-MiniLM-L6-v2", features=features)
    )


def test_a_ranker_trained_before_features_were_added_scores_the_columns_it_knows(tmp_path):
    settings = Settings(home=tmp_path)
    older = [f for f in FEATURES if not f.startswith("term_coverage")]
    fitted_on(older).save(settings)
    model = load_ranker(settings, "mini", FEATURES)
    rows = np.random.default_rng(2).random((4, len(FEATURES)))
    keep = [FEATURES.index(f) for f in older]
    assert model is not None and model.columns == keep
    assert np.array_equal(model.score(rows), model.booster.predict(rows[:, keep]))


def test_a_ranker_using_a_feature_this_version_lacks_is_refused_naming_it(tmp_path):
    settings = Settings(home=tmp_path)
    fitted_on([*FEATURES[:-1], "from_the_future"]).save(settings)
    with pytest.raises(ConfigError, match="from_the_future") as e:
        load_ranker(settings, "mini", FEATURES)
    assert "\n" not in str(e.value)
