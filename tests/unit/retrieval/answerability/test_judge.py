"""A stored answerability card is used only where it fits (same corpus, embedding model and features);
an unreadable card falls back to the cosine rule with a warning, as the ranker falls back to the hybrid."""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, replace
from types import SimpleNamespace

import pytest

from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.retrieval.answerability.features import FEATURES
from bifrost.retrieval.answerability.card import AnswerabilityCard, card_path, load_card, save_card
from bifrost.retrieval.answerability.judge import AnswerabilityJudge


def card(corpus: str = "mini", **over) -> AnswerabilityCard:
    n = len(FEATURES)
    fields = dict(
        corpus=corpus,
        embedding_model="all-MiniLM-L6-v2",
        retriever="hybrid",
        features=list(FEATURES),
        mean=[0.0] * n,
        scale=[1.0] * n,
        coef=[1.0] + [0.0] * (n - 1),
        intercept=-0.5,
        threshold=0.4,
    )
    return AnswerabilityCard(**{**fields, **over})


def test_probability_is_the_logistic_of_the_standardized_row():
    c = card(mean=[0.5] + [0.0] * (len(FEATURES) - 1), scale=[2.0] + [1.0] * (len(FEATURES) - 1))
    row = [2.5] + [7.0] * (len(FEATURES) - 1)  # only the first coefficient is non-zero
    assert c.probability(row) == pytest.approx(1 / (1 + math.exp(-((2.5 - 0.5) / 2.0 - 0.5))))


@pytest.mark.parametrize(
    "over, message",
    [
        ({"coef": [1.0]}, "coefficients"),
        ({"intercept": float("nan")}, "finite"),
        ({"threshold": 1.5}, "threshold"),
        ({"retriever": "bm25"}, "retriever"),
    ],
)
def test_a_malformed_card_is_rejected(over, message):
    with pytest.raises(ValueError, match=message):
        card(**over)


def test_a_saved_card_loads_and_none_without_one(tmp_path):
    settings = Settings(home=tmp_path)
    assert load_card(settings, "mini") is None
    path = save_card(settings, card())
    assert path == card_path(settings, "mini") and path.name == "answerability-mini.json"
    assert load_card(settings, "mini") == card()


def test_a_card_for_another_corpus_embedding_model_or_feature_list_is_a_one_line_error(tmp_path):
    settings = Settings(home=tmp_path)
    path = save_card(settings, card())
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "corpus": "adgm"}))
    with pytest.raises(ConfigError, match="'adgm', not 'mini'") as e:
        load_card(settings, "mini")
    assert "\n" not in str(e.value) and "bifrost train answerability" in str(e.value)
    path.write_text(json.dumps({**doc, "embedding_model": "other-encoder"}))
    with pytest.raises(ConfigError, match="'other-encoder'"):
        load_card(settings, "mini")
    path.write_text(json.dumps({**doc, "features": ["dense_top"], "mean": [0], "scale": [1], "coef": [1]}))
    assert load_card(settings, "mini").features == ["dense_top"]  # a subset of today's features still reads
    path.write_text(
        json.dumps({**doc, "features": ["no_such_feature"], "mean": [0], "scale": [1], "coef": [1]})
    )
    with pytest.raises(ConfigError, match="'no_such_feature', which this version lacks"):
        load_card(settings, "mini")


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({"corpus": "mini"}),
        json.dumps({**asdict(card()), "scale": [0.0] * len(FEATURES)}),
    ],
)
def test_an_unreadable_card_is_reported_and_the_cosine_rule_is_used(tmp_path, caplog, content):
    settings = Settings(home=tmp_path)
    card_path(settings, "mini").parent.mkdir(parents=True)
    card_path(settings, "mini").write_text(content)
    with caplog.at_level(logging.WARNING):
        assert load_card(settings, "mini") is None
    assert "unreadable" in caplog.text and "cosine rule" in caplog.text


class FixedReader:
    def __init__(self, value: float) -> None:
        self.value = value

    def row(self, question, result):
        return {f: (self.value if f == FEATURES[0] else 0.0) for f in FEATURES}


def test_the_judge_scores_with_the_card_and_declines_results_from_another_retriever(caplog):
    judge = AnswerabilityJudge(card(retriever="ltr"), FixedReader(3.0))  # type: ignore[arg-type]
    ltr = SimpleNamespace(mode="ltr", items=[1], relevance=0.9)
    assert judge.score("q", ltr) == pytest.approx(1 / (1 + math.exp(-2.5))) and judge.threshold == 0.4
    with caplog.at_level(logging.WARNING):
        assert judge.score("q", SimpleNamespace(mode="boost", items=[1], relevance=0.9)) is None
    assert "cosine rule" in caplog.text


def test_a_card_trained_behind_another_ranker_or_the_removed_glossary_is_set_aside_with_one_warning(
    tmp_path, caplog
):
    from bifrost.retrieval.answerability.judge import SUPPORT_FEATURES, load_judge

    settings = Settings(home=tmp_path)
    names = [f for f in FEATURES if f not in SUPPORT_FEATURES]
    n = len(names)
    save_card(
        settings,
        card(
            retriever="ltr",
            ranker_sha256="a" * 64,
            glossary="",
            features=names,
            mean=[0.0] * n,
            scale=[1.0] * n,
            coef=[1.0] * n,
        ),
    )
    with caplog.at_level(logging.WARNING):
        assert load_judge(settings, "mini", None, None, lambda pid: None, ranker="b" * 64) is None
    assert [r.getMessage() for r in caplog.records if "answerability" in r.getMessage()] == [
        "the answerability model of mini is not used: the ranker was retrained since (its thresholds were "
        "chosen on "
        "the old ranker's score scale); refusing by the cosine rule until `bifrost train answerability "
        "--corpus mini`"
    ]
    assert load_judge(settings, "mini", None, None, lambda pid: None, ranker="a" * 64) is not None
    save_card(settings, replace(load_card(settings, "mini"), glossary="construction"))  # a card of before
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert load_judge(settings, "mini", None, None, lambda pid: None, ranker="a" * 64) is None
    assert "site-words glossary 'construction', which was removed" in caplog.text
