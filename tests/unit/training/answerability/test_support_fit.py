"""The support scorer trains on CPU from the shipped MiniLM weights, saves with its card and loads back."""

from __future__ import annotations

import pytest

from bifrost.retrieval.answerability.support.examples import SupportExample
from bifrost.retrieval.answerability.support.model import SupportCard, SupportScorer, support_folder
from bifrost.training.answerability.support_fit import fit_support

EXAMPLES = [
    SupportExample(
        "how high must the top rail be", "Top rails shall be 42 inches above the walking surface.", 1.0
    ),
    SupportExample("how high must the top rail be", "Safety nets shall be inspected weekly.", 0.0),
    SupportExample("who inspects the nets", "Safety nets shall be inspected weekly.", 1.0),
    SupportExample("who inspects the nets", "Top rails shall be 42 inches above the walking surface.", 0.0),
] * 2


def test_a_trained_scorer_is_saved_with_its_card_and_scores_probabilities(tmp_path):
    out = support_folder(tmp_path, "mini")
    card = fit_support(
        EXAMPLES,
        "all-MiniLM-L6-v2",
        out,
        SupportCard(corpus="mini", base_model="all-MiniLM-L6-v2"),
        batch_size=4,
        threads=1,
    )
    assert card.examples == {"positives": 4, "negatives": 4} and card.steps == 2 and card.trained_at
    import torch

    scorer = SupportScorer.load(tmp_path, "mini")
    assert scorer is not None and scorer.card.corpus == "mini"
    torch.set_num_threads(2)
    scores = scorer.score("how high must the top rail be", [EXAMPLES[0].text, EXAMPLES[1].text])
    assert scores.shape == (2,) and ((0 <= scores) & (scores <= 1)).all()
    assert torch.get_num_threads() == 2  # scoring never changes the process's torch threads


def test_no_scorer_is_none_and_one_class_is_refused(tmp_path):
    assert SupportScorer.load(tmp_path, "mini") is None
    with pytest.raises(ValueError, match="positive and negative"):
        fit_support(
            EXAMPLES[:1], "all-MiniLM-L6-v2", tmp_path / "x", SupportCard(corpus="mini", base_model="x")
        )
