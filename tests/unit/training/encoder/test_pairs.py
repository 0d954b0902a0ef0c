"""Free training pairs from a tiny hand-made corpus: each kind, deduplication, cap, determinism."""

from __future__ import annotations

import pytest

from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.training.encoder.pairs import (
    KINDS,
    citing_sentence,
    corpus_pairs,
    hard_negative,
    pairs_by_kind,
    question_pairs,
    sample_pairs,
)

C = "tiny"


def prov(
    id_: str,
    kind: ProvisionKind,
    parent: str | None = None,
    heading: str = "",
    text: str = "",
    term: str | None = None,
    reserved: bool = False,
) -> Provision:
    return Provision(
        corpus=C,
        id=id_,
        parent_id=parent,
        kind=kind,
        heading=heading,
        text=text,
        term=term,
        reserved=reserved,
    )


PROVISIONS = [
    prov("1", ProvisionKind.PART, heading="Safety"),
    prov("1.1", ProvisionKind.SECTION, "1", heading="Fall protection."),
    prov(
        "1.1(a)",
        ProvisionKind.PARAGRAPH,
        "1.1",
        heading="Guardrails.",
        text="Guardrail systems shall be 42 inches high. See § 1.2(a) for nets.",
    ),
    prov(
        "1.1(a)[Note]",
        ProvisionKind.NOTE,
        "1.1(a)",
        text="Note: the height is measured from the walking surface.",
    ),
    prov("1.1(b)", ProvisionKind.PARAGRAPH, "1.1", text="Definitions for this section."),
    prov(
        "1.1(b)[Leading edge]",
        ProvisionKind.DEFINITION,
        "1.1(b)",
        term="Leading edge",
        text="Leading edge means the unprotected side of a floor.",
    ),
    prov("1.2", ProvisionKind.SECTION, "1", heading="Safety nets."),
    prov(
        "1.2(a)", ProvisionKind.PARAGRAPH, "1.2", text="Safety nets shall be installed close under the work."
    ),
    prov("1.3", ProvisionKind.SECTION, "1", heading="[Reserved]", reserved=True),
]
REFERENCES = [
    Reference(corpus=C, source_id="1.1(a)", raw="§ 1.2(a)", target_id="1.2(a)"),
    Reference(corpus=C, source_id="1.1(a)", raw="§ 1.2(a)", target_id="1.2(a)"),  # repeated: one pair
    Reference(corpus=C, source_id="1.2(a)", raw="§ 9.9", target_id="9.9"),  # target not stored: skipped
]


def test_each_kind_comes_from_the_structure_it_names():
    by = pairs_by_kind(PROVISIONS, REFERENCES)
    got = {k: {(p.anchor, p.positive) for p in v} for k, v in by.items()}
    assert ("Guardrails.", "Guardrail systems shall be 42 inches high. See § 1.2(a) for nets.") in got[
        "heading"
    ]
    assert got["definition"] == {("Leading edge", "Leading edge means the unprotected side of a floor.")}
    assert got["reference"] == {
        ("See § 1.2(a) for nets.", "Safety nets shall be installed close under the work.")
    }
    assert ("Fall protection.", "Definitions for this section.") in got["context"]
    assert got["note"] == {
        (
            "Note: the height is measured from the walking surface.",
            "Guardrails. Guardrail systems shall be 42 inches high. See § 1.2(a) for nets.",
        )
    }
    assert all(p.kind == k for k, v in by.items() for p in v)


def test_containers_and_reserved_provisions_give_no_pairs():
    pairs = [p for v in pairs_by_kind(PROVISIONS, REFERENCES).values() for p in v]
    assert not any("Safety" == p.anchor or "[Reserved]" in p.anchor + p.positive for p in pairs)


def test_pairs_are_deduplicated():
    pairs = [(p.anchor, p.positive) for v in pairs_by_kind(PROVISIONS, REFERENCES * 3).values() for p in v]
    assert len(pairs) == len(set(pairs))


def test_sample_is_deterministic_and_capped():
    by = {k: pairs_by_kind(PROVISIONS, REFERENCES)[k] * 1 for k in KINDS}
    big = {
        k: [type(v[0])(k, f"{k} anchor {i}", f"{k} positive {i}") for i in range(100)]
        for k, v in by.items()
        if v
    }
    a, b = sample_pairs(big, 50, seed=1), sample_pairs(big, 50, seed=1)
    assert a == b and len(a) == 50
    counts = {k: sum(p.kind == k for p in a) for k in big}
    assert set(counts.values()) == {10}  # five kinds share the cap evenly
    assert sample_pairs(big, 50, seed=2) != a


def test_a_small_kind_leaves_its_share_to_the_others():
    pairs = corpus_pairs(PROVISIONS, REFERENCES, max_pairs=1000)
    assert len(pairs) == sum(len(v) for v in pairs_by_kind(PROVISIONS, REFERENCES).values())


def test_sample_rejects_zero_max_pairs():
    with pytest.raises(ValueError, match="max_pairs"):
        sample_pairs({}, 0)


def test_citing_sentence_is_the_sentence_holding_the_reference():
    assert citing_sentence("First rule. Second per § 1.2. Third.", "§ 1.2") == "Second per § 1.2."
    assert citing_sentence("No citation here.", "§ 9") == "No citation here."


def test_question_pairs_join_each_question_to_the_text_of_each_gold_provision():
    documents = {
        "1.1(a)": "Fall protection. Guardrails. Guardrail systems shall be 42 inches high.",
        "1.2(a)": "Safety nets. Safety nets shall be installed close under the work.",
    }
    pairs = question_pairs(
        [
            ("How high must guardrails be?", ["1.1(a)", "9.9(z)"]),
            ("Where are safety nets installed?", ["1.2(a)"]),
            ("How high must guardrails be?", ["1.1(a)"]),
        ],
        documents,
    )
    # the gold id without a document is skipped; the repeated pair is kept once
    assert [(p.kind, p.anchor, p.positive) for p in pairs] == [
        ("question", "How high must guardrails be?", documents["1.1(a)"]),
        ("question", "Where are safety nets installed?", documents["1.2(a)"]),
    ]


NEGATIVE_DOCS = {
    "1.1": "Fall protection. Guardrails. Guardrail systems shall be 42 inches high. Toeboards are required.",
    "1.1(a)": "Guardrails. Guardrail systems shall be 42 inches high.",
    "1.1(b)": "Toeboards. Toeboards shall be 3.5 inches high.",
    "1.2(a)": "Safety nets. Safety nets shall be installed close under the work.",
    "1.3": "",
}


def test_the_hard_negative_is_the_best_ranked_text_that_is_neither_gold_nor_around_gold():
    ranked = ["1.1(a)", "1.1", "1.3", "1.1(b)", "1.2(a)"]
    # 1.1(a) is gold; 1.1 holds the gold text (its section); 1.3 has no text: the first negative is 1.1(b)
    assert hard_negative(ranked, ["1.1(a)"], NEGATIVE_DOCS) == NEGATIVE_DOCS["1.1(b)"]
    assert hard_negative(["1.1(a)", "1.1"], ["1.1(a)"], NEGATIVE_DOCS) == ""


def test_question_pairs_carry_the_questions_hard_negative_when_a_ranking_is_given():
    asked: list[str] = []

    def ranked(q: str) -> list[str]:
        asked.append(q)
        return ["1.1(a)", "1.2(a)", "1.1(b)"]

    pairs = question_pairs([("How high must guardrails be?", ["1.1(a)", "1.1(b)"])], NEGATIVE_DOCS, ranked)
    assert [(p.positive, p.negative) for p in pairs] == [
        (NEGATIVE_DOCS["1.1(a)"], NEGATIVE_DOCS["1.2(a)"]),
        (NEGATIVE_DOCS["1.1(b)"], NEGATIVE_DOCS["1.2(a)"]),
    ]
    assert asked == ["How high must guardrails be?"]  # one ranking per question, not per gold provision
    assert all(
        p.negative == ""
        for p in question_pairs([("How high must guardrails be?", ["1.1(a)"])], NEGATIVE_DOCS)
    )
