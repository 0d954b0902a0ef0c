"""The numpy evaluation of a LightGBM model text scores every row exactly as `Booster.predict`
(so answering with a trained ranker needs no lightgbm import); what it does not cover is refused."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.retrieval.ranking.ltr.trees import TreeEnsemble
from tests.conftest import import_or_skip

lightgbm = import_or_skip("lightgbm", "ltr")


def booster(rng, n_features: int = 8, leaves: int = 15, trees: int = 60, nan_share: float = 0.0):
    x = rng.random((400, n_features))
    x[rng.random(x.shape) < 0.3] = 0.0  # zeros as the features often are
    if nan_share:
        x[rng.random(x.shape) < nan_share] = np.nan
    y = np.clip(np.nan_to_num(x[:, 0] * 3 + x[:, 1] * 2 + rng.random(400)).astype(int), 0, 4)
    model = lightgbm.LGBMRanker(
        n_estimators=trees,
        num_leaves=leaves,
        min_child_samples=3,
        verbose=-1,
        subsample=0.8,
        subsample_freq=1,
        colsample_bytree=0.8,
        random_state=0,
    )
    return model.fit(x, y, group=[20] * 20).booster_, x


@pytest.mark.parametrize("nan_share", [0.0, 0.1])
def test_scores_are_bit_identical_to_lightgbm(nan_share):
    rng = np.random.default_rng(7)
    b, x = booster(rng, nan_share=nan_share)
    ens = TreeEnsemble.parse(b.model_to_string())
    assert ens is not None and ens.num_feature() == b.num_feature()
    probe = np.vstack([x, rng.random((300, 8)) * 2 - 0.5, np.zeros((3, 8)), np.full((2, 8), np.nan)])
    assert np.array_equal(ens.predict(probe), b.predict(probe, num_threads=1))
    assert np.array_equal(
        ens.predict(probe.astype(np.float32)), b.predict(probe.astype(np.float32), num_threads=1)
    )


def test_a_model_of_one_leaf_trees_scores_a_constant():
    rng = np.random.default_rng(1)
    x = rng.random((40, 3))
    b = (
        lightgbm.LGBMRanker(n_estimators=3, min_child_samples=100, verbose=-1)
        .fit(x, np.zeros(40, int), group=[10] * 4)
        .booster_
    )
    ens = TreeEnsemble.parse(b.model_to_string())
    assert ens is not None and np.array_equal(ens.predict(x), b.predict(x))


def test_text_it_does_not_cover_is_refused():
    assert TreeEnsemble.parse("tree\nthis is not a model\n") is None
    rng = np.random.default_rng(2)
    b, _ = booster(rng, trees=3)
    text = b.model_to_string()
    assert TreeEnsemble.parse(text.replace("num_cat=0", "num_cat=1", 1)) is None
    assert TreeEnsemble.parse(text.replace("num_class=1", "num_class=3", 1)) is None
