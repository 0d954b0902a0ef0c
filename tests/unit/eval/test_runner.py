"""The runner on the tiny corpus with a fake system: outputs, metrics, skipped systems, compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.eval.compare import compare_runs
from bifrost.eval.registry import SystemRegistry, UnknownSystemError, make_default_registry
from bifrost.eval.runner import run_eval
from bifrost.retrieval.base import SystemResult, SystemUnavailable

ANSWERS = {  # question -> ranked ids; the "oracle" system answers q1, q3 exactly
    "scaffold guardrails": ["1926.450(a)", "1926.450(b)"],
    "air sampling trench": ["1926.651", "1926.450(a)"],
    "ladders against columns": ["1926.1053(b)"],
    "planks inspected each shift": ["1926.1053(b)", "1926.450(b)"],
    "crane operator licences in Mars": [],
}


class FakeSystem:
    """Returns canned rankings; `shift` drops the first item to make a worse system."""

    def __init__(self, name: str, shift: int = 0) -> None:
        self.name, self.shift, self.warmed = name, shift, 0

    def warm_up(self, corpus: str) -> None:
        self.warmed += 1

    def search(self, question: str, k: int) -> SystemResult:
        ids = ANSWERS[question][self.shift :]
        ranked = [(i, 1.0 / (n + 1)) for n, i in enumerate(ids)]
        return SystemResult(ranked=ranked, cited=ids[:1], seconds=0.001)

    def describe(self) -> dict:
        return {"kind": "fake", "shift": self.shift}


def registry() -> SystemRegistry:
    reg = make_default_registry()
    reg.register("oracle", lambda s, c, **p: FakeSystem("oracle"))
    reg.register("worse", lambda s, c, shift=1: FakeSystem("worse", shift))
    reg.register("third", lambda s, c: FakeSystem("third", 1))
    return reg


def test_run_writes_every_output_with_metrics_in_range(settings, questions_file: Path, tmp_path: Path):
    out = tmp_path / "run"
    res = run_eval(
        "tiny",
        questions_file,
        "oracle,worse:shift=1,third,llm-only",
        out,
        settings,
        registry=registry(),
        progress=lambda *a: None,
    )
    for f in ("metrics.json", "per_question.jsonl", "report.md", "recall_at_k.png", "by_group.png"):
        assert (out / f).is_file(), f
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["meta"]["questions"]["sha256"] and doc["meta"]["corpus"] == "tiny"
    assert set(doc["systems"]) == {"oracle", "worse:shift=1", "third"} and "llm-only" in res.skipped
    m = doc["systems"]["oracle"]["metrics"]
    # cited = top 1: q1 exact (1/1), q2 cites section 1926.651 (exact 0, hierarchy P=1 R=1), q3 exact, q4
    # wrong
    assert m["precision"]["mean"] == pytest.approx(2 / 4)
    assert m["f1_h"]["mean"] == pytest.approx(3 / 4)
    assert m["recall@1"]["mean"] == pytest.approx((1 + 0 + 1 + 0) / 4)
    assert m["mrr"]["mean"] == pytest.approx((1 + 0 + 1 + 0.5) / 4)
    for sysm in doc["systems"].values():
        for name, ci in sysm["metrics"].items():
            if name != "seconds" and ci["mean"] is not None:
                assert 0.0 <= ci["low"] <= ci["mean"] <= ci["high"] <= 1.0, name
    assert doc["systems"]["oracle"]["answerability"]["refusal_rate_unanswerable"] == 1.0
    assert doc["systems"]["oracle"]["by_group"]["X"]["n"] == 2
    assert "friedman_f1" in doc["significance"] and "worse:shift=1" in doc["significance"]["vs_reference"]
    rows = [json.loads(x) for x in (out / "per_question.jsonl").read_text().splitlines()]
    assert len(rows) == 15 and rows[0]["hits"] == ["1926.450(a)"]
    report = (out / "report.md").read_text()
    assert (
        "## Cited-set precision" in report
        and "Skipped systems" in report
        and "Significance vs oracle" in report
    )


def test_limit_and_unknown_system(settings, questions_file: Path, tmp_path: Path):
    res = run_eval(
        "tiny",
        questions_file,
        ["oracle"],
        tmp_path / "r",
        settings,
        registry=registry(),
        limit=2,
        plots=False,
    )
    assert res.metrics["meta"]["questions"]["n_run"] == 2
    with pytest.raises(UnknownSystemError, match="known systems:"):
        run_eval("tiny", questions_file, "bogus", tmp_path / "r2", settings, registry=registry())


def test_warm_up_failure_marks_the_system_skipped(settings, questions_file: Path, tmp_path: Path):
    class Unready(FakeSystem):
        def warm_up(self, corpus: str) -> None:
            raise SystemUnavailable("no model here")

    reg = registry()
    reg.register("unready", lambda s, c: Unready("unready"))
    res = run_eval(
        "tiny", questions_file, "oracle,unready", tmp_path / "r", settings, registry=reg, plots=False
    )
    assert res.skipped == {"unready": "no model here"} and res.systems == ["oracle"]


def test_compare_runs_pairs_systems_by_name(settings, questions_file: Path, tmp_path: Path):
    run_eval("tiny", questions_file, "oracle", tmp_path / "a", settings, registry=registry(), plots=False)
    reg = registry()
    reg.register("oracle", lambda s, c: FakeSystem("oracle", 1), replace=True)
    run_eval("tiny", questions_file, "oracle", tmp_path / "b", settings, registry=reg, plots=False)
    res = compare_runs(tmp_path / "a", tmp_path / "b")
    assert res["same_questions"] and len(res["comparisons"]) == 1
    c = res["comparisons"][0]
    assert c["n"] == 5 and c["metrics"]["recall@10"]["diff"] < 0
    assert c["broken"] and c["mcnemar"]["only_a"] >= 1


def test_a_failing_system_is_reported_with_the_question_and_the_others_are_still_scored(
    settings, questions_file: Path, tmp_path: Path
):
    class Broken(FakeSystem):
        def search(self, question: str, k: int) -> SystemResult:
            raise KeyError("boom")

    reg = registry()
    reg.register("broken", lambda s, c: Broken("broken"))
    res = run_eval(
        "tiny", questions_file, "broken,oracle", tmp_path / "r", settings, registry=reg, plots=False
    )
    assert (
        list(res.failed) == ["broken"] and "system 'broken' failed on question 'q1'" in res.failed["broken"]
    )
    assert res.systems == ["oracle"]
    doc = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert "broken" in doc["failed"] and "broken" not in doc["systems"]
    assert "## Failed systems" in (tmp_path / "r" / "report.md").read_text()


def test_a_systems_per_question_info_is_kept_in_per_question_rows(
    settings, questions_file: Path, tmp_path: Path
):
    class Explaining(FakeSystem):
        def search(self, question: str, k: int) -> SystemResult:
            res = super().search(question, k)
            return SystemResult(
                res.ranked, res.cited, res.seconds, info={"cypher": f"MATCH /* {question} */"}
            )

    reg = registry()
    reg.register("explaining", lambda s, c: Explaining("explaining"))
    run_eval("tiny", questions_file, "explaining,oracle", tmp_path / "r", settings, registry=reg, plots=False)
    rows = [json.loads(x) for x in (tmp_path / "r" / "per_question.jsonl").read_text().splitlines()]
    explained = [r for r in rows if r["system"] == "explaining"]
    assert explained and all(r["info"]["cypher"].startswith("MATCH") for r in explained)
    assert all("info" not in r for r in rows if r["system"] == "oracle")  # nothing to say, no field


def test_eval_with_no_date_scores_the_edition_valid_today_and_eight_digits_are_a_date(settings):
    from bifrost.core.store.editions import record_edition
    from bifrost.core.store.sql_store import SqlStore
    from bifrost.core.types import Edition
    from bifrost.eval.runner import past_edition

    store = SqlStore(settings.sql_url)
    with store.session() as s:  # edition 3: an older edition recorded last (ingest --allow-older)
        for number, when in ((1, "2024-01-01"), (2, "2025-01-01"), (3, "2024-06-01")):
            record_edition(s, Edition(corpus="tiny", number=number, date=when))
    store.dispose()
    assert past_edition(settings, "tiny", None).number == 2  # the provisions table holds 3
    assert past_edition(settings, "tiny", "20240301").number == 1
    assert past_edition(settings, "tiny", "3") is None


def test_eval_refuses_a_question_file_whose_gold_the_corpus_lacks(settings, tmp_path: Path):
    from bifrost.eval.questions import QuestionFileError

    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"id": "q9", "question": "scaffold guardrails", "gold": ["1926.450(a)(9)"]}) + "\n"
    )
    with pytest.raises(
        QuestionFileError,
        match=r"line 1: question 'q9': gold '1926.450\(a\)\(9\)' is not a provision of tiny",
    ):
        run_eval("tiny", bad, "oracle", tmp_path / "run", settings, registry=registry())
