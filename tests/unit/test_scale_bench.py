"""benchmarks/scale_bench.py: multiplied corpora keep ids unique and texts distinct; slopes are log-log."""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_json import parse_ecfr_json

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    return importlib.import_module(f"benchmarks.{name}")


scale_corpus = _load("scale_corpus")
scale_bench = _load("scale_bench")

SECTIONS = [
    {
        "source": "29 CFR 1926.1",
        "title": "§ 1926.1 Purpose and scope.",
        "section": "1926.1",
        "content": "(a) This part sets forth the standards.\n(b) Subpart B of this part contains policy; "
        "see § 1926.2(a).",
        "path": "PART 1926—SAFETY AND HEALTH REGULATIONS FOR CONSTRUCTION\n > Subpart A—General",
    },
    {
        "source": "29 CFR 1926.2",
        "title": "§ 1926.2 Variances.",
        "section": "1926.2",
        "content": "(a) Variances from standards in this part may be granted as provided in § 1926.1(b) and "
        "29 CFR 1910.2.\n"
        "(b) The date 41926 and part 19260 are not citations of this part.",
        "path": "PART 1926—SAFETY AND HEALTH REGULATIONS FOR CONSTRUCTION\n > Subpart A—General",
    },
    {
        "source": "29 CFR 1926.3",
        "title": "§ 1926.3 Inspections.",
        "section": "1926.3",
        "content": "(a) Capacity.\n(1) Each scaffold shall be inspected.\n(2) Each ladder shall be "
        "inspected.\n(3) Each rope shall be inspected.",
        "path": "PART 1926—SAFETY AND HEALTH REGULATIONS FOR CONSTRUCTION\n > Subpart A—General",
    },
]


def test_a_size_is_the_part_then_renumbered_copies_the_last_one_cut_to_the_fraction():
    assert scale_corpus.parts_for(1) == [("1926", 1.0)]
    assert scale_corpus.parts_for(2.5) == [("1926", 1.0), ("2926", 1.0), ("3926", 0.5)]
    assert scale_corpus.parts_for(0.25) == [("1926", 0.25)]
    for bad in (0, -1, 10):
        with pytest.raises(ValueError, match="--sizes"):
            scale_corpus.parts_for(bad)


def test_a_copy_cites_its_own_part_and_leaves_other_numbers_alone():
    copied = scale_corpus.copy_section(SECTIONS[1], "2926")
    assert copied["section"] == "2926.2" and copied["title"].startswith("§ 2926.2 ")
    assert copied["path"].startswith("PART 2926—")
    assert "§ 2926.1(b)" in copied["content"] and "29 CFR 1910.2" in copied["content"]
    assert "41926" in copied["content"] and "19260" in copied["content"]
    assert scale_corpus.copy_section(SECTIONS[1], "1926") == SECTIONS[1]


def test_every_provision_of_a_multiplied_corpus_has_its_own_id_and_copies_never_repeat_a_text(tmp_path):
    source = tmp_path / "parts.json"
    source.write_text(json.dumps(scale_corpus.multiply(SECTIONS, 3)), encoding="utf-8")
    provisions = parse_ecfr_json(source, corpus="scale", parts=None).provisions
    ids = [p.id for p in provisions]
    assert len(ids) == len(set(ids))
    assert {p.id for p in provisions if p.kind.value == "part"} == {"1926", "2926", "3926"}
    by_part: dict[str, set[str]] = {}
    for p in provisions:
        if p.text:
            by_part.setdefault(p.id.split(".")[0].split(" ")[0], set()).add(p.text)
    shared = by_part["1926"] & by_part["2926"] | by_part["2926"] & by_part["3926"]
    assert shared <= {"Capacity."}, shared  # a bare paragraph heading keeps its words; nothing else repeats
    assert len(provisions) == 3 * len(parse_ecfr_json(source, corpus="scale", parts=("1926",)).provisions)


def test_sections_of_other_parts_in_the_source_are_left_out_as_bifrost_ingest_does():
    other = {**SECTIONS[0], "section": "1928.1", "title": "§ 1928.1 Purpose.", "source": "29 CFR 1928.1"}
    assert [s["section"] for s in scale_corpus.multiply([*SECTIONS, other], 2)] == [
        "1926.1",
        "1926.2",
        "1926.3",
        "2926.1",
        "2926.2",
        "2926.3",
    ]


def test_a_fraction_takes_the_first_sections_by_their_paragraph_lines():
    assert [s["section"] for s in scale_corpus.multiply(SECTIONS, 0.2)] == ["1926.1"]
    # weights 3, 3, 5
    assert [s["section"] for s in scale_corpus.multiply(SECTIONS, 0.3)] == ["1926.1", "1926.2"]
    assert [s["section"] for s in scale_corpus.multiply(SECTIONS, 1.5)] == [
        "1926.1",
        "1926.2",
        "1926.3",
        "2926.1",
        "2926.2",
    ]


def test_the_structure_holds_the_part_once_per_copy_renumbered():
    tree = {
        "type": "title",
        "identifier": "29",
        "children": [
            {"type": "part", "identifier": "1910", "children": []},
            {
                "type": "part",
                "identifier": "1926",
                "label_description": "Construction",
                "children": [
                    {
                        "type": "subpart",
                        "identifier": "A",
                        "children": [{"type": "section", "identifier": "1926.1"}],
                    }
                ],
            },
        ],
    }
    out = scale_corpus.multiply_structure(tree, 2)
    assert [p["identifier"] for p in out["children"]] == ["1926", "2926"]
    assert out["children"][1]["children"][0]["children"][0]["identifier"] == "2926.1"
    with pytest.raises(ValueError, match="no part 1926"):
        scale_corpus.multiply_structure({"type": "title", "children": []}, 1)


def test_the_slope_is_log_log_so_linear_is_one_and_flat_is_zero():
    assert scale_corpus.slope(1000, 2000, 10, 20) == 1.0
    assert scale_corpus.slope(1000, 4000, 10, 160) == 2.0
    assert scale_corpus.slope(1000, 8000, 5, 5) == 0.0
    assert scale_corpus.slope(1000, 1000, 5, 6) is None and scale_corpus.slope(1000, 2000, 0, 6) is None
    rows = [
        {"size": "2x", "provisions": 200, "t": 40},
        {"size": "1x", "provisions": 100, "t": 10},
        {"size": "4x", "provisions": 400, "t": 80},
    ]
    assert scale_corpus.slopes(rows, ["t"]) == [
        {"from": "1x", "to": "2x", "t": 2.0},
        {"from": "2x", "to": "4x", "t": 1.0},
    ]


def test_the_markdown_has_a_row_per_size_and_a_slope_row_per_step():
    rows = [
        {"size": "1x", "provisions": 100, "ingest_s": 1.0, "load_avg": [2.0, 3.1]},
        {"size": "2x", "provisions": 200, "ingest_s": 2.0, "load_avg": [3.1, 3.0]},
    ]
    text = scale_corpus.markdown(rows)
    assert "| 1x | 100 | 1.0 |" in text and "2.0-3.1" in text
    assert "| 1x | 2x | 1.0 |" in text


def test_sizes_are_a_sorted_comma_list_and_bad_ones_name_the_flag():
    assert scale_bench.sizes_arg("4,1,2,0.5,2") == [0.5, 1.0, 2.0, 4.0]
    for bad in ("", "one", "0,1", "1,10"):
        with pytest.raises(argparse.ArgumentTypeError, match="--sizes"):
            scale_bench.sizes_arg(bad)
