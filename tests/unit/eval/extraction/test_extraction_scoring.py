"""Oracle tests of the extraction scorer: hand-computed P/R/F1 on tiny gold/prediction pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ExtractedEntity, ExtractedTriple, Extraction, make_uid
from bifrost.eval.extraction.cli import main
from bifrost.eval.extraction.gold import GoldProvision, load_gold
from bifrost.eval.extraction.matching import (
    entity_key,
    max_matching,
    relaxed_entity_match,
    relaxed_triple,
    strict_triple,
)
from bifrost.eval.extraction.scoring import Counts, prf, provision_counts, score_extractions
from tests.conftest import FIXTURES

CORPUS = "osha-1926"
FIXTURE = FIXTURES / "extraction" / "osha_lmpx_gold.jsonl"
LEMMAS = {"is": "be", "are": "be", "protected": "protect", "used": "use"}


def lemma(word: str) -> str:
    return LEMMAS.get(word, word)


def gold(pid: str, subpart: str, entities: list[str], triples: tuple = ()) -> GoldProvision:
    return GoldProvision(
        corpus=CORPUS, provision_id=pid, subpart=subpart, entities=tuple(entities), triples=triples
    )


def extraction(pid: str, names: list[str], triples: tuple = ()) -> Extraction:
    return Extraction(
        corpus=CORPUS,
        provision_id=pid,
        entities=tuple(ExtractedEntity(name=n) for n in names),
        triples=tuple(ExtractedTriple(head=h, relation=r, tail=t) for h, r, t in triples),
    )


def test_entity_key_lemmatizes_the_head_and_lowercases():
    assert entity_key("Guardrail Systems") == "guardrail system"
    assert entity_key("the Ladders") == "ladder"
    assert entity_key("criteria") == "criterion"


def test_strict_entity_counts_deduplicate_after_normalization():
    c = provision_counts(
        gold("p", "M", ["guardrail system", "employee", "hole"]),
        extraction("p", ["Guardrail Systems", "employees", "Employee", "cover"]),
    )
    assert c["entities"] == Counts(tp=2, fp=1, fn=1)
    assert prf(c["entities"]).f1 == pytest.approx(2 / 3)


def test_strict_relation_compares_snake_case_lemmas():
    assert strict_triple("Employees", "Shall Be Protected By", "guardrail systems") == (
        "employee",
        "shall_be_protected_by",
        "guardrail system",
    )
    assert (
        strict_triple("hole", "are_used_around", "x", lemma)[1]
        == strict_triple("hole", "is used around", "x", lemma)[1]
    )
    assert strict_triple("hole", "are_used_around", "x")[1] != strict_triple("hole", "is_used_around", "x")[1]


def test_relaxed_triple_turns_passive_with_agent_active_and_drops_modals():
    g = relaxed_triple("employee", "shall_be_protected_by", "guardrail system", lemma)
    p = relaxed_triple("guardrail systems", "must_protect", "employees", lemma)
    assert g == p == ("guardrail system", "protect", "employee")


def test_relaxed_entity_match_needs_same_head_and_nested_words():
    assert relaxed_entity_match("fall arrest system", "personal fall arrest system")
    assert relaxed_entity_match("system", "guardrail system")
    assert not relaxed_entity_match("guardrail", "guardrail system")
    assert not relaxed_entity_match("top rail", "rail support")
    assert not relaxed_entity_match("steel ladder", "wood ladder")


def test_max_matching_is_one_to_one_and_augments():
    assert max_matching(["a", "b"], ["x"], lambda g, p: True) == 1
    edges = {("g1", "p1"), ("g1", "p2"), ("g2", "p1")}
    assert max_matching(["g1", "g2"], ["p1", "p2"], lambda g, p: (g, p) in edges) == 2


def test_relaxed_counts_match_each_prediction_once():
    c = provision_counts(
        gold("p", "L", ["personal fall arrest system", "fall arrest system"]),
        extraction("p", ["arrest system"]),
    )
    assert c["entities_relaxed"] == Counts(tp=1, fp=0, fn=1)
    assert c["entities"] == Counts(tp=0, fp=1, fn=2)


def test_triple_counts_strict_and_relaxed():
    g = gold(
        "p",
        "M",
        ["employee", "guardrail system", "hole"],
        (
            ("employee", "shall_be_protected_by", "guardrail system"),
            ("guardrail system", "are_used_around", "hole"),
        ),
    )
    p = extraction(
        "p",
        ["employee", "guardrail system", "hole"],
        (
            ("guardrail system", "shall_protect", "employee"),
            ("guardrail system", "is_used_around", "hole"),
            ("hole", "has", "employee"),
        ),
    )
    c = provision_counts(g, p, lemma)
    assert c["triples"] == Counts(tp=1, fp=2, fn=1)
    assert c["triples_relaxed"] == Counts(tp=2, fp=1, fn=0)


def test_micro_within_subpart_macro_across_subparts():
    golds = [gold("l1", "L", ["ladder", "rail"]), gold("l2", "L", ["scaffold"]), gold("m1", "M", ["hole"])]
    preds = {
        make_uid(CORPUS, "l1"): extraction("l1", ["ladder"]),
        make_uid(CORPUS, "l2"): extraction("l2", ["scaffold", "plank"]),
        make_uid(CORPUS, "m1"): extraction("m1", ["hole", "cover", "edge", "net"]),
    }
    s = score_extractions(golds, preds)
    L, M = s.per_subpart["L"]["entities"], s.per_subpart["M"]["entities"]
    assert (L.tp, L.fp, L.fn) == (2, 1, 1)
    assert (L.precision, L.recall, L.f1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert (M.precision, M.recall, M.f1) == pytest.approx((0.25, 1.0, 0.4))
    mac = s.macro["entities"]
    assert (mac.precision, mac.recall, mac.f1) == pytest.approx((11 / 24, 5 / 6, (2 / 3 + 0.4) / 2))
    assert s.micro_all["entities"].precision == pytest.approx(3 / 7)


def test_missing_prediction_counts_every_gold_item_as_missed():
    s = score_extractions([gold("p", "X", ["ladder"])], {})
    assert s.missing_predictions == ["p"]
    e = s.per_subpart["X"]["entities"]
    assert (e.tp, e.fp, e.fn, e.precision, e.recall, e.f1) == (0, 0, 1, 0.0, 0.0, 0.0)


def test_gold_rejects_triple_argument_missing_from_entities(tmp_path: Path):
    path = tmp_path / "g.jsonl"
    path.write_text(
        json.dumps(
            {
                "corpus": CORPUS,
                "provision_id": "p",
                "subpart": "L",
                "entities": ["ladder"],
                "triples": [["ladder", "rests_on", "rail"]],
            }
        )
        + "\n"
    )
    with pytest.raises(SourceParseError) as e:
        load_gold(path)
    assert "rail" in str(e.value) and "line 1" in str(e.value)


def test_gold_rejects_a_provision_annotated_twice(tmp_path: Path):
    line = json.dumps({"corpus": CORPUS, "provision_id": "p", "subpart": "L", "entities": ["ladder"]})
    path = tmp_path / "g.jsonl"
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(SourceParseError) as e:
        load_gold(path)
    assert "twice" in str(e.value)


def test_shipped_gold_covers_five_provisions_per_subpart():
    rows = load_gold(FIXTURE)
    per = {s: sum(g.subpart == s for g in rows) for s in "LMPX"}
    assert min(per.values()) >= 5 and len(rows) >= 20


def test_spacy_verb_lemmatizer_reads_words_as_verbs():
    from bifrost.eval.extraction.lemmas import SpacyVerbLemmatizer

    lem = SpacyVerbLemmatizer()
    assert [lem(w) for w in ["installed", "is", "pass", "has", "used"]] == [
        "install",
        "be",
        "pass",
        "have",
        "use",
    ]


def test_cli_scores_saved_predictions_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    g = tmp_path / "gold.jsonl"
    g.write_text(
        json.dumps(
            {
                "corpus": CORPUS,
                "provision_id": "p",
                "subpart": "X",
                "entities": ["ladder", "rail"],
                "triples": [["ladder", "has", "rail"]],
            }
        )
        + "\n"
    )
    p = tmp_path / "pred.jsonl"
    p.write_text(extraction("p", ["Ladders"], (("ladders", "has", "rails"),)).model_dump_json() + "\n")
    assert main(["score", "--gold", str(g), "--predictions", str(p), "--lemmatizer", "none", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["per_subpart"]["X"]["entities"]["precision"] == 1.0
    assert out["per_subpart"]["X"]["entities"]["recall"] == 0.5
    assert out["macro"]["triples"]["f1"] == 1.0


def test_cli_reports_a_bad_gold_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "gold.jsonl"
    bad.write_text("{not json\n")
    assert main(["score", "--gold", str(bad), "--predictions", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error:") and "gold.jsonl" in err and len(err.strip().splitlines()) == 1
