"""reconcile: equal texts verified, differing texts reviewed with a diff, nothing dropped."""

from __future__ import annotations

import difflib

import pytest

from bifrost.core.types import ParsedDocument, Provision, ProvisionKind, SourceDocument
from bifrost.graph_builders.scrape.reconcile import reconcile


def _doc(name: str, texts: dict[str, str], corpus: str = "osha-1926") -> ParsedDocument:
    provisions = tuple(
        Provision(corpus=corpus, id=pid, kind=ProvisionKind.PARAGRAPH, text=text, order=i)
        for i, (pid, text) in enumerate(texts.items())
    )
    return ParsedDocument(
        document=SourceDocument(corpus=corpus, name=name, format="test", checksum="0"), provisions=provisions
    )


PRIMARY = _doc(
    "part-1926.json",
    {
        "1926.451(a)": "Each scaffold shall be capable of supporting its own weight.",
        "1926.451(b)": "Each platform shall be fully planked. Gaps shall not exceed 1 inch.",
        "1926.451(c)": "Only in the primary.",
    },
)
SECONDARY = _doc(
    "subpart-l.pdf",
    {
        "1926.451(a)": "Each scaffold  shall be capable\nof supporting its own weight. ",
        "1926.451(b)": "Each platform shall be fully planked. Gaps shall not exceed 2 inches.",
        "1926.451(d)": "Only in the secondary.",
    },
)


def test_reconcile_verifies_texts_equal_after_whitespace_normalization() -> None:
    assert reconcile(PRIMARY, SECONDARY).verified == ("1926.451(a)",)


def test_reconcile_turns_differing_texts_into_review_items() -> None:
    (item,) = reconcile(PRIMARY, SECONDARY).review
    assert item.provision_id == "1926.451(b)"
    assert (item.source_a, item.source_b) == ("part-1926.json", "subpart-l.pdf")
    assert item.text_a.endswith("exceed 1 inch.") and item.text_b.endswith("exceed 2 inches.")
    assert item.ratio == pytest.approx(difflib.SequenceMatcher(None, item.text_a, item.text_b).ratio())
    assert 0 < item.ratio < 1
    assert "-Gaps shall not exceed 1 inch." in item.diff
    assert "+Gaps shall not exceed 2 inches." in item.diff
    assert item.diff.startswith("--- part-1926.json\n+++ subpart-l.pdf")


def test_reconcile_lists_provisions_only_one_side_has() -> None:
    result = reconcile(PRIMARY, SECONDARY)
    assert result.only_in_primary == ("1926.451(c)",)
    assert result.only_in_secondary == ("1926.451(d)",)
    assert not result.agreed


def test_reconcile_accounts_for_every_provision() -> None:
    result = reconcile(PRIMARY, SECONDARY)
    reviewed = [r.provision_id for r in result.review]
    seen = [*result.verified, *reviewed, *result.only_in_primary, *result.only_in_secondary]
    everything = {p.id for p in PRIMARY.provisions} | {p.id for p in SECONDARY.provisions}
    assert sorted(seen) == sorted(everything)


def test_reconcile_threshold_below_one_accepts_near_matches() -> None:
    result = reconcile(PRIMARY, SECONDARY, threshold=0.9)
    assert result.verified == ("1926.451(a)", "1926.451(b)")
    assert result.review == ()


def test_reconcile_compares_headings_too() -> None:
    a = PRIMARY.model_copy(
        update={"provisions": (PRIMARY.provisions[0].model_copy(update={"heading": "Capacity."}),)}
    )
    b = SECONDARY.model_copy(update={"provisions": (SECONDARY.provisions[0],)})
    (item,) = reconcile(a, b).review
    assert item.text_a.startswith("Capacity. Each scaffold")


def test_reconcile_reports_duplicate_ids() -> None:
    twice = PRIMARY.model_copy(update={"provisions": PRIMARY.provisions + PRIMARY.provisions[:1]})
    result = reconcile(twice, SECONDARY)
    assert result.duplicates == ("part-1926.json: 1926.451(a) appears 2 times (first compared)",)


def test_reconcile_of_identical_documents_agrees() -> None:
    result = reconcile(PRIMARY, PRIMARY)
    assert result.agreed and len(result.verified) == 3


@pytest.mark.parametrize("threshold", [-0.1, 1.5])
def test_reconcile_rejects_a_threshold_outside_zero_to_one(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        reconcile(PRIMARY, SECONDARY, threshold=threshold)


def test_reconcile_rejects_documents_of_different_corpora() -> None:
    with pytest.raises(ValueError, match="corpus"):
        reconcile(PRIMARY, _doc("x.pdf", {}, corpus="adgm"))
