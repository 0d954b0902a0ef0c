"""The project's natural question sets: split by section (no section in both train and dev), gold in
the corpus's own citation form, a verdict only on yes/no questions, and no question of the held-out site
set copied in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

QUESTIONS = ROOT / "eval" / "questions"
SPLIT = json.loads((QUESTIONS / "osha-natural-split.json").read_text())


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (QUESTIONS / name).read_text().splitlines() if line.strip()]


def section(pid: str) -> str:
    return re.match(r"\d+\.\d+[a-z]?", pid).group(0)


def sections(q: dict) -> set[str]:
    return {section(p) for p in (q["gold"] if q["answerable"] else q.get("near", []))}


def test_no_section_is_in_both_train_and_dev_and_dev_holds_the_recorded_sections():
    train, dev = rows("osha-natural-train.jsonl"), rows("osha-natural-dev.jsonl")
    train_sections = set().union(*(sections(q) for q in train))
    dev_sections = set().union(*(sections(q) for q in dev))
    assert not train_sections & dev_sections
    assert dev_sections <= set(SPLIT["dev_sections"]) and not train_sections & set(SPLIT["dev_sections"])
    assert not {q["id"] for q in train + dev} & set(SPLIT["left_out"])


@pytest.mark.parametrize("name", ["osha-natural-train.jsonl", "osha-natural-dev.jsonl"])
def test_every_question_has_gold_or_near_provisions_and_yes_no_ones_a_verdict(name):
    for q in rows(name):
        assert q["rationale"] and q["voice"]
        if q["answerable"]:
            assert q["gold"] and all(re.match(r"1926\.\d", g) for g in q["gold"]) and q["decisive"]
        else:
            assert not q["gold"] and q["near"] and any(t.startswith("unanswerable:") for t in q["tags"])
        if q.get("verdict"):
            assert q["verdict"] in ("yes", "no", "depends") and "asks:yes-no" in q["tags"]


def test_no_question_of_the_held_out_site_set_is_copied_in(shared_dir: Path):
    site = {
        json.loads(line)["question"].strip().lower()
        for line in (shared_dir / "eval" / "osha-site-questions.jsonl").read_text().splitlines()
        if line.strip()
    }
    ours = {
        q["question"].strip().lower()
        for name in ("osha-natural-train.jsonl", "osha-natural-dev.jsonl")
        for q in rows(name)
    }
    assert not site & ours
