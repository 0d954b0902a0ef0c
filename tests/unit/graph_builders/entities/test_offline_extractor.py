"""The offline extractor reads entities and relations off the spaCy parse of real provision text."""

import pytest

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.entities.base import EntityExtractor
from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor, provision_text


def para(text: str, pid: str = "1926.651(h)(1)", heading: str = "") -> Provision:
    return Provision(corpus="osha-1926", id=pid, kind=ProvisionKind.PARAGRAPH, text=text, heading=heading)


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor()


def triples(extractor: OfflineExtractor, text: str) -> set[tuple[str, str, str]]:
    return {(t.head, t.relation, t.tail) for t in extractor.extract(para(text)).triples}


def test_constructor_loads_nothing_and_satisfies_the_protocol():
    ex = OfflineExtractor(nlp_name="no_such_pipeline")
    assert isinstance(ex, EntityExtractor)


def test_missing_spacy_model_is_a_model_unavailable_error():
    from bifrost.core.errors import ModelUnavailableError

    with pytest.raises(ModelUnavailableError) as info:
        OfflineExtractor(nlp_name="no_such_pipeline_xyz").extract(para("Employees shall wear hard hats."))
    assert "no_such_pipeline_xyz" in str(info.value)


def test_verb_plus_preposition_becomes_the_relation(extractor):
    found = triples(
        extractor, "Employers shall protect employees in excavations from water accumulation hazards."
    )
    assert ("employers", "shall_protect", "employees") in found
    assert ("employers", "shall_protect_from", "water accumulation hazards") in found


def test_negation_and_modal_are_kept(extractor):
    found = triples(extractor, "Steel banding shall not be used as top rails.")
    assert found == {("steel banding", "shall_not_be_used_as", "top rails")}


def test_passive_with_agent_is_turned_active(extractor):
    found = triples(
        extractor,
        "The water removal equipment and operations shall be monitored by a competent person to ensure "
        "proper operation.",
    )
    assert ("competent person", "shall_monitor", "water removal equipment") in found
    assert ("competent person", "shall_monitor", "operations") in found


def test_passive_without_agent_keeps_subject_as_head_and_expands_coordination(extractor):
    found = triples(
        extractor,
        "Each employee on a walking/working surface shall be protected from falling by guardrail systems, "
        "safety net systems, or personal fall arrest systems.",
    )
    for tail in ("guardrail systems", "safety net systems", "personal fall arrest systems"):
        assert ("employee", "shall_be_protected_from_fall_by", tail) in found


def test_entities_drop_determiners_pronouns_numbers_units_and_citations(extractor):
    ex = extractor.extract(
        para(
            "Each employee who is constructing a leading edge 6 feet (1.8 m) or more above lower levels "
            "shall meet "
            "the requirements of paragraph (k) of § 1926.502. It shall be 42 inches high."
        )
    )
    names = [e.name for e in ex.entities]
    assert "employee" in names and "leading edge" in names and "lower levels" in names
    assert not {"6 feet", "feet", "it", "who", "k", "paragraph", "42 inches"} & set(names)
    assert all(t.head in names and t.tail in names for t in ex.triples)


def test_compounds_and_content_stop_words_are_kept(extractor):
    names = {
        e.name
        for e in extractor.extract(
            para("The top rails and the safety net systems shall be inspected.")
        ).entities
    }
    assert {"top rails", "safety net systems"} <= names


def test_relative_clause_subject_resolves_to_the_noun(extractor):
    found = triples(extractor, "Each employee who is constructing a leading edge shall be protected.")
    assert ("employee", "construct", "leading edge") in found


def test_shared_object_of_coordinated_verbs(extractor):
    found = triples(extractor, "The employer shall develop and implement a fall protection plan.")
    assert {
        ("employer", "shall_develop", "fall protection plan"),
        ("employer", "shall_implement", "fall protection plan"),
    } <= found


def test_extract_many_keeps_order_and_equals_extract(extractor):
    texts = [
        "Steel banding shall not be used as top rails.",
        "Employers shall protect employees in excavations from water accumulation hazards.",
        "Safety net systems shall be inspected at least once a week.",
    ]
    provisions = [para(t, pid=f"p{i}") for i, t in enumerate(texts)]
    many = list(extractor.extract_many(provisions, batch_size=2))
    assert [m.provision_id for m in many] == ["p0", "p1", "p2"]
    assert many == [extractor.extract(p) for p in provisions]


def test_extraction_is_deterministic(extractor):
    p = para("Employers shall protect employees in excavations from water accumulation hazards.")
    assert extractor.extract(p) == extractor.extract(p)


def test_section_ref_resolver_is_injected_and_deduplicated():
    calls = []

    def resolver(p: Provision) -> list[str]:
        calls.append(p.id)
        return ["1926.502(k)", "1926.502(k)", "1926.500(b)"]

    ex = OfflineExtractor(section_ref_resolver=resolver).extract(
        para("It complies with § 1926.502(k).", pid="x")
    )
    assert ex.section_refs == ("1926.502(k)", "1926.500(b)")
    assert calls == ["x"]


def test_without_resolver_there_are_no_section_refs(extractor):
    assert extractor.extract(para("It complies with § 1926.502(k).")).section_refs == ()


def test_provision_text_drops_enumerators_and_metric_conversions_and_adds_heading():
    p = para("(1) Edges 6 feet (1.8 m) above.", heading="Leading edges.")
    assert provision_text(p) == "Leading edges. Edges 6 feet   above."


def test_rejects_non_positive_batch_size():
    with pytest.raises(ValueError):
        OfflineExtractor(batch_size=0)
