"""Question decomposition: a batch of questions decomposes exactly as each question alone."""

from __future__ import annotations

from bifrost.graph_builders.entities.normalize import normalize_name
from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor
from bifrost.retrieval.decompose import ExtractorDecomposer

QUESTIONS = [
    "Who must prepare the fall protection plan for leading edge work?",
    "How often shall scaffolds be inspected by a competent person?",
    "Guardrail height",
    "Who must prepare the fall protection plan for leading edge work?",
]


def test_a_batch_decomposes_as_one_question_at_a_time():
    alone = [ExtractorDecomposer(OfflineExtractor(), normalize_name).decompose(q) for q in QUESTIONS]
    batched = ExtractorDecomposer(OfflineExtractor(), normalize_name).decompose_many(QUESTIONS)
    assert batched == alone and alone[0].entities


def test_swapped_triples_mirror_the_triples():
    d = ExtractorDecomposer(OfflineExtractor(), normalize_name).decompose(QUESTIONS[0])
    assert {(t, r, h) for h, r, t in d.triples if h != t} == set(d.swapped)
