"""The stored router: probabilities over its columns, the likeliest corpus asked (and another only when more
likely than not), none under the bar; a router for another embedding model or unreadable is not used."""

from __future__ import annotations

import logging

import numpy as np

from bifrost.core.settings import Settings
from bifrost.retrieval.routing.model import RouterModel, load_router, router_path, save_router
from bifrost.retrieval.routing.router import asked


def model(settings: Settings) -> RouterModel:
    return RouterModel(
        weights=[0.0, 0.0, 0.0, 10.0], intercept=-5.0, embedding_model=settings.embedding_model
    )


def test_the_probability_rises_with_the_letters_share(tmp_path):
    m = model(Settings(home=tmp_path))
    p = m.probabilities(np.array([[[0.9, 0.8, 0.5, 0.0], [0.9, 0.8, 0.5, 0.5], [0.1, 0.1, 0.1, 1.0]]]))
    assert p.shape == (1, 3) and np.allclose(p[0, 1], 0.5) and p[0, 0] < 0.01 < 0.99 < p[0, 2]


def test_the_likeliest_is_asked_and_another_only_when_more_likely_than_not():
    chances = asked(["a", "b", "c"], np.array([0.3, 0.7, 0.5]))
    assert [(c.corpus, c.asked) for c in chances] == [("b", True), ("c", True), ("a", False)]
    assert [c.asked for c in asked(["a", "b"], np.array([0.04, 0.02]))] == [True, False]


def test_a_stored_router_reads_back_and_one_for_another_model_or_unreadable_is_not_used(tmp_path, caplog):
    settings = Settings(home=tmp_path)
    assert load_router(settings) is None
    save_router(settings, model(settings))
    assert load_router(settings) == model(settings)
    other = model(settings).model_copy(update={"embedding_model": "another-model"})
    save_router(settings, other)
    with caplog.at_level(logging.WARNING):
        assert load_router(settings) is None
    router_path(settings).write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert load_router(settings) is None
    said = [r.getMessage() for r in caplog.records]
    assert any("another embedding model" in s for s in said) and any("unreadable" in s for s in said)
