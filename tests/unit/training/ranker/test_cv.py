"""Cross-validation never scores a question with a model that saw it, and scores the same questions
for every system."""

from __future__ import annotations

import numpy as np

from bifrost.training.ranker.cv import cross_validate, fit_sized, score_run
from bifrost.training.ranker.dataset import Group
from bifrost.eval.splits import fold_of
from bifrost.eval.questions import Question
from bifrost.retrieval.ranking.ltr.features import FEATURES
from bifrost.retrieval.ranking.ltr.model import PARAM_GRID
from tests.conftest import import_or_skip


def group(i: int) -> Group:
    q = Question(
        id=f"q{i}", question=f"question {i}", gold=(f"g{i}",), extra={"src": [f"g{i}"], "tgt": [f"t{i}"]}
    )
    ids = [f"g{i}", f"t{i}", "x", "y"]
    rows = np.zeros((4, len(FEATURES)), dtype=np.float32)
    rows[0, 0] = 1.0  # the gold candidate has the highest first feature
    return Group(q, ids, rows, np.array([1, 0, 0, 0], dtype=np.int32), 0.5, {"bm25": ["x", f"g{i}"]})


class RecordingFit:
    """A stand-in trainer that remembers what it was trained on and ranks by the first feature."""

    def __init__(self) -> None:
        self.seen: list[set[str]] = []
        self.seeds: list[int] = []

    def __call__(self, groups, columns, size=None, seed=0):
        self.seen.append({g.question.id for g in groups})
        self.seeds.append(seed)

        class Booster:
            def predict(self, rows, num_threads=1):
                return rows[:, 0]

        return Booster()


def test_folds_are_stable_and_cover_every_question():
    assert {fold_of(f"q{i}", 5) for i in range(200)} == set(range(5))
    assert fold_of("q7", 5) == fold_of("q7", 5)


def test_a_question_is_never_ranked_by_a_model_trained_on_it():
    groups = [group(i) for i in range(30)]
    fit = RecordingFit()
    run = cross_validate(groups, 3, cite_max=3, fitter=fit)
    assert set(run.ranked) == {g.question.id for g in groups}
    for trained_on in fit.seen:
        held_out = {g.question.id for g in groups} - trained_on
        assert held_out and not (held_out & trained_on)
        assert len({fold_of(q, 3) for q in held_out}) == 1


def test_every_fold_is_fitted_with_the_seed_asked_for():
    fit = RecordingFit()
    cross_validate([group(i) for i in range(30)], 3, cite_max=3, fitter=fit, seed=5)
    assert fit.seeds == [5, 5, 5]


def test_scores_carry_both_at_10_and_cited_f1_with_intervals():
    groups = [group(i) for i in range(10)]
    ranked = {g.question.id: [g.question.gold[0], f"t{g.question.id[1:]}"] for g in groups}
    s = score_run(groups, ranked, {q: r[:1] for q, r in ranked.items()}, related=lambda a, b: False)
    assert s["recall@10"]["mean"] == 1.0 and s["both@10"]["mean"] == 1.0 and s["f1"]["mean"] == 1.0
    assert s["both@10"]["n"] == 10 and s["f1"]["low"] <= s["f1"]["mean"] <= s["f1"]["high"]


def test_fit_sized_returns_the_chosen_size_beside_the_booster_and_leaves_the_booster_as_lightgbm_made_it():
    import_or_skip("lightgbm", "ltr")
    columns = list(range(len(FEATURES)))
    # too few for the inner CV: the first size
    booster, size = fit_sized([group(i) for i in range(4)], columns)
    assert size == PARAM_GRID[0]
    assert not hasattr(booster, "chosen_size")
    asked = PARAM_GRID[-1]
    assert fit_sized([group(i) for i in range(4)], columns, asked).size == asked


def test_a_set_left_out_is_fitted_and_scored_on_its_own_groups_collected_without_its_answers():
    """The letters' groups as collected with every letter out of the precedent bank replace the others for
    the letters' split only: there the gold ranks last (no letter votes for it), elsewhere first."""
    import_or_skip("lightgbm", "ltr")
    from bifrost.training.ranker.figures import left_out_figures
    from bifrost.eval.splits import leave_one_set_out

    groups = [group(i) for i in range(80)]
    for i, g in enumerate(groups):
        g.source = "letters" if i < 40 else "natural"
    without = []
    for g in groups:
        if g.source == "letters":  # without the letters in the bank, their gold candidate loses its lead
            rows = g.rows[::-1].copy()
            rows[:, 0] = [1.0, 1.0, 1.0, 0.0]
            g = Group(
                g.question, g.ids[::-1], rows, g.labels[::-1].copy(), g.relevance, g.baselines, g.source
            )
        without.append(g)
    splits = leave_one_set_out([g.source for g in groups])
    plain, _ = left_out_figures(groups, splits, 3, lambda a, b: a == b, [0], lambda _m: None)
    nested, _ = left_out_figures(
        groups, splits, 3, lambda a, b: a == b, [0], lambda _m: None, {"letters": without}
    )
    assert plain["letters"]["bifrost-ltr"]["recall@10"]["mean"] == 1.0
    assert nested["natural"] == plain["natural"]
    assert (
        nested["letters"]["bifrost-ltr"]["map@10"]["mean"] < plain["letters"]["bifrost-ltr"]["map@10"]["mean"]
    )


def test_a_feature_group_left_out_of_the_ranker_is_measured_with_each_set_left_out(monkeypatch):
    """Without the group holding its one informative feature, the ranker no longer puts the gold first."""
    from functools import partial

    from bifrost.eval.splits import leave_one_set_out
    from bifrost.training.ranker import figures
    from bifrost.training.ranker.figures import left_out_figures

    monkeypatch.setattr(figures, "cross_validate", partial(cross_validate, fitter=RecordingFit()))

    groups = []
    for i in range(80):
        g = group(i)  # the gold listed second: only its first feature (bm25, lexical) puts it first
        groups.append(
            Group(g.question, g.ids[1::-1] + g.ids[2:], g.rows[[1, 0, 2, 3]], g.labels[[1, 0, 2, 3]], 0.5, {})
        )
        groups[-1].source = "letters" if i < 40 else "natural"
    splits = leave_one_set_out([g.source for g in groups])
    same = lambda a, b: a == b  # noqa: E731
    full, _ = left_out_figures(groups, splits, 3, same, [0], lambda _m: None)
    dropped, _ = left_out_figures(groups, splits, 3, same, [0], lambda _m: None, drop=frozenset({"lexical"}))
    for name in ("letters", "natural"):
        assert full[name]["bifrost-ltr"]["map@10"]["mean"] == 1.0
        assert dropped[name]["bifrost-ltr"]["map@10"]["mean"] < 1.0


def test_a_first_choice_in_the_gold_provisions_section_counts_as_a_lead_in_section_though_not_a_hit():
    g = group(1)
    g.sections = {"g1": "S", "t1": "S", "x": "T", "y": "T"}
    sibling_first = score_run([g], {"q1": ["t1", "g1"]}, None, lambda a, b: False)
    other_first = score_run([g], {"q1": ["x", "g1"]}, None, lambda a, b: False)
    assert sibling_first["lead_section"]["mean"] == 1 and sibling_first["hit@1"]["mean"] == 0
    assert other_first["lead_section"]["mean"] == 0 and other_first["hit@5"]["mean"] == 1
