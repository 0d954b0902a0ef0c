"""Training the answerability model on synthetic data: the numpy/scipy logistic fit against sklearn,
the threshold for a false-refusal target, cross-validation that never scores a question with a model
(or threshold) fit on it, and the figures reported."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.training.answerability.run import (
    Example,
    Logistic,
    cross_validate,
    figures,
    fit_examples,
    fit_logistic,
    threshold_for,
)
from bifrost.eval.questions import Question
from bifrost.retrieval.answerability.features import FEATURES
from tests.conftest import import_or_skip

N = len(FEATURES)


def synthetic(n: int = 120, seed: int = 0) -> list[Example]:
    """Answerable questions have a higher first feature; row[1] is the question's index (a unique tag)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        answerable = i % 3 != 0
        row = rng.normal(size=N)
        row[0] += 2.0 if answerable else -1.0
        row[1] = i
        q = Question(
            id=f"q{i}",
            question=f"question {i}",
            gold=("a",) if answerable else (),
            answerable=answerable,
            extra={} if answerable else {"tags": ["manufacturer" if i % 2 else "other-part:1910"]},
        )
        out.append(Example(q, "near" if i < n // 2 else "far", row, 0.5))
    return out


def test_the_stored_record_gives_sklearns_probabilities_on_the_raw_columns():
    sklearn = import_or_skip("sklearn.linear_model", "eval")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 3)) * [1.0, 5.0, 0.1] + [0.0, 3.0, 1.0]
    y = (x[:, 0] + 0.2 * x[:, 1] + rng.normal(size=200) > 0.8).astype(float)
    ours = fit_logistic(x, y, l2=1.0)
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    ref = sklearn.LogisticRegression(C=1.0, class_weight="balanced", tol=1e-10, max_iter=10_000).fit(z, y)
    assert np.allclose(ours.coef, ref.coef_[0], atol=1e-3) and ours.intercept == pytest.approx(
        ref.intercept_[0], abs=1e-3
    )
    assert np.allclose(ours.probability(x), ref.predict_proba(z)[:, 1], atol=1e-4)


def test_a_constant_column_and_a_single_class_are_handled():
    x = np.column_stack([np.arange(10.0), np.ones(10)])
    y = (np.arange(10) > 4).astype(float)
    model = fit_logistic(x, y)
    assert model.scale[1] == 1.0 and np.all(np.isfinite(model.probability(x)))
    with pytest.raises(ValueError, match="one class is missing"):
        fit_logistic(x, np.ones(10))


def test_the_threshold_refuses_at_most_the_target_share_of_answerable_scores():
    scores = [0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6, 0.35]
    assert threshold_for(scores, 0.05) == 0.1  # floor(0.5) = 0 may be refused: nothing below the lowest
    t = threshold_for(scores, 0.2)
    assert t == 0.3 and sum(s < t for s in scores) == 2
    # ties never overshoot
    assert sum(s < threshold_for([0.2, 0.2, 0.2, 0.9], 0.5) for s in [0.2, 0.2, 0.2, 0.9]) <= 2
    with pytest.raises(ValueError):
        threshold_for([], 0.05)


def test_cross_validation_never_scores_a_question_with_a_model_fit_on_it():
    examples = synthetic()
    seen: list[set[int]] = []

    class Recording(Logistic):
        def probability(self, x):
            tags = {int(v) for v in np.atleast_2d(x)[:, 1]}
            assert not tags & self.trained_on, "a question was scored by a model trained on it"
            return super().probability(x)

    def fitter(train, columns):
        model = fit_examples(train, columns)
        rec = Recording(model.mean, model.scale, model.coef, model.intercept)
        object.__setattr__(rec, "trained_on", {int(e.row[1]) for e in train})
        seen.append(rec.trained_on)
        return rec

    run = cross_validate(examples, 4, 0.05, fitter=fitter)
    assert not np.isnan(run.scores).any() and len(run.thresholds) == 4
    assert len(seen) == 4 * (1 + 4)  # every outer fold: one model, plus one per inner fold for its threshold


def test_cross_validation_separates_synthetic_classes_near_the_false_refusal_target():
    examples = synthetic(300)
    run = cross_validate(examples, 5, 0.05)
    f = figures(examples, run.scores, run.refused)
    assert f["auroc"]["mean"] > 0.9 and f["false_refusal"]["mean"] <= 0.12
    assert f["refusal_unanswerable"]["mean"] > 0.5
    assert set(f["by_source"]) == {"near", "far"} and set(f["by_reason"]) == {"manufacturer", "other-part"}
    assert f["by_reason"]["manufacturer"]["n"] + f["by_reason"]["other-part"]["n"] == 100


def test_an_ablation_drops_its_columns():
    examples = synthetic()
    full = cross_validate(examples, 3, 0.05)
    without = cross_validate(examples, 3, 0.05, drop={"dense"})  # dense_top (the informative column) is gone
    alone = cross_validate(examples, 3, 0.05, only=("dense_top",))
    ans = np.array([e.answerable for e in examples])
    gap = lambda s: s[ans].mean() - s[~ans].mean()  # noqa: E731
    assert gap(full.scores) > gap(without.scores) + 0.2 and gap(alone.scores) > gap(without.scores) + 0.2


def test_questions_by_file_count_a_question_in_two_files_once_and_check_the_gold(settings, tmp_path):
    import json

    from bifrost.eval.question_files import load_questions_by_file
    from bifrost.eval.questions import QuestionFileError

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"id": "1", "question": "x", "gold": ["1926.450(a)"]}) + "\n")
    b.write_text(
        json.dumps({"id": "1", "question": "x", "gold": ["1926.450(a)"]})
        + "\n"
        + json.dumps({"id": "2", "question": "off topic", "answerable": False})
        + "\n"
    )
    pairs, _ = load_questions_by_file(settings, [a, b], "tiny")
    assert [(q.id, stem) for q, stem in pairs] == [("1", "a"), ("2", "b")]
    b.write_text(json.dumps({"id": "3", "question": "y", "gold": ["1926.999"]}) + "\n")
    with pytest.raises(QuestionFileError, match="b.jsonl: line 1: question '3': gold '1926.999'"):
        load_questions_by_file(settings, [b], "tiny")


def test_a_held_out_question_that_is_also_a_training_question_is_refused_before_anything_is_trained(
    settings, tmp_path
):
    import json

    from bifrost.training.answerability.run import train_answerability

    train, held = tmp_path / "train.jsonl", tmp_path / "held.jsonl"
    train.write_text(
        json.dumps({"id": "1", "question": "Who inspects the trench?", "gold": ["1926.450(a)"]})
        + "\n"
        + json.dumps({"id": "2", "question": "off topic", "answerable": False})
        + "\n"
    )
    held.write_text(
        json.dumps({"id": "h7", "question": "who inspects  the TRENCH?", "gold": ["1926.450(a)"]}) + "\n"
    )
    with pytest.raises(ValueError, match="held-out set held: question 'h7' is also a training question"):
        train_answerability(settings, "tiny", [train], held_out_files=[held], store=False)
