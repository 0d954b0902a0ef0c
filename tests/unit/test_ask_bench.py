"""benchmarks/ask_bench.py: percentiles, the ratio to the first tree, and the question file read."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import ask_bench

ROOT = Path(__file__).resolve().parents[2]


def test_p50_and_p95_are_medians_over_rounds_and_the_first_tree_is_the_baseline():
    got = ask_bench.summarize(
        {"old": [[0.1, 0.2, 0.3], [0.1, 0.2, 0.5]], "new": [[0.2, 0.3, 0.4], [0.2, 0.3, 0.4]]}
    )
    assert got["old"] == {"p50_ms": 200.0, "p95_ms": 400.0, "ratio_to_first": 1.0}
    assert got["new"]["p50_ms"] == 300.0 and got["new"]["ratio_to_first"] == 1.5


def test_the_question_file_gives_its_question_texts_up_to_the_limit(tmp_path):
    f = tmp_path / "q.jsonl"
    f.write_text(
        "\n".join(json.dumps({"id": str(n), "question": f"q{n}"}) for n in range(5)) + "\n\n",
        encoding="utf-8",
    )
    assert ask_bench.read_questions(f, 3) == ["q0", "q1", "q2"]
