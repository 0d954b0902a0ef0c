"""Cross-references on the real OSHA Part 1926 text: edges that must hold, and the gold sample's scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from bifrost.core.types import Provision, Reference
from bifrost.eval.extractors.cfr_references import load_gold, score
from bifrost.graph_builders.jurisdictions.us_cfr.index import KnownProvisions
from bifrost.graph_builders.jurisdictions.us_cfr.references import CfrReferenceExtractor
from tests.conftest import skip_or_fail

REPO = Path(__file__).resolve().parents[2]
GOLD = REPO / "eval" / "extractors" / "osha_gold_sample.jsonl"
MIN_PRECISION = 0.95
MIN_RECALL = 0.90


@pytest.fixture(scope="module")
def provisions(shared_dir: Path) -> dict[str, Provision]:
    path = shared_dir / "corpora" / "osha-1926" / "part-1926.json"
    if not path.exists():
        skip_or_fail(f"shared corpus missing: {path} (set BIFROST_SHARED_DIR)")
    from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_json import parse_ecfr_json

    return {p.id: p for p in parse_ecfr_json(path, corpus="osha-1926").provisions}


@pytest.fixture(scope="module")
def known(provisions: dict[str, Provision]) -> KnownProvisions:
    return KnownProvisions.from_provisions(provisions.values())


def _refs(provisions: dict[str, Provision], known: KnownProvisions, source: str) -> list[Reference]:
    assert source in provisions, f"{source} not produced by the scraper"
    return CfrReferenceExtractor().extract(provisions[source], known)


@pytest.mark.parametrize(
    ("source", "targets"),
    [
        ("1926.502(b)(15)", {"1926.502(b)(3)"}),
        ("1926.501(b)(2)(i)", {"1926.502(k)"}),
        ("1926.502(k)", {"1926.501(b)(2)", "1926.501(b)(12)", "1926.501(b)(13)"}),
        ("1926.451(b)(2)", {"1926.451(b)(2)(i)", "1926.451(b)(2)(ii)"}),
    ],
)
def test_must_hold_edges_on_the_osha_text(
    provisions: dict[str, Provision], known: KnownProvisions, source: str, targets: set[str]
) -> None:
    got = {r.target_id for r in _refs(provisions, known, source) if r.target_id}
    assert targets <= got


def test_every_resolved_target_exists_in_the_corpus(
    provisions: dict[str, Provision], known: KnownProvisions
) -> None:
    subpart_m = [p for p in provisions.values() if p.id.startswith(("1926.50", "1926.45")) and p.text]
    refs = [r for p in subpart_m for r in CfrReferenceExtractor().extract(p, known)]
    assert refs
    assert all(r.target_id in provisions for r in refs if r.target_id)
    assert all(r.reason for r in refs if r.dangling)
    assert all(r.target_id != r.source_id for r in refs)


def test_gold_sample_precision_and_recall(provisions: dict[str, Provision], known: KnownProvisions) -> None:
    gold = load_gold(GOLD)
    assert len(gold) >= 60
    sources = {g.source_id for g in gold}
    assert sources <= set(provisions), f"gold sources missing: {sorted(sources - set(provisions))}"
    extractor = CfrReferenceExtractor()
    refs = [r for s in sorted(sources) for r in extractor.extract(provisions[s], known)]
    resolved, dangling, errors = score(gold, refs)
    tp, fp, fn = resolved.tp + dangling.tp, resolved.fp + dangling.fp, resolved.fn + dangling.fn
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision >= MIN_PRECISION, errors
    assert recall >= MIN_RECALL, errors
