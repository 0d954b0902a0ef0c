"""The entity network build writes entities, MENTIONED_IN and RELATES edges and embeddings, idempotently."""

from collections.abc import Iterable, Iterator
from unittest.mock import MagicMock

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from bifrost.core.errors import ModelUnavailableError, ModelUnreachableError
from bifrost.core.graph.base import GraphStore
from bifrost.core.store import entity_tables as et
from bifrost.core.types import (
    EdgeType,
    ExtractedEntity,
    ExtractedTriple,
    Extraction,
    Provision,
    ProvisionKind,
)
from bifrost.core.errors import EntityBuildAborted
from bifrost.graph_builders.entities.base import EntityExtractor, ReportsFailures
from bifrost.graph_builders.entities.build import build_entity_network, graph_edges
from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner

from tests.unit.graph_builders.entities.test_refiner import FakeEmbedder

C = "osha-1926"


def prov(pid: str, text: str = "x", reserved: bool = False) -> Provision:
    return Provision(corpus=C, id=pid, kind=ProvisionKind.PARAGRAPH, text=text, reserved=reserved)


class ScriptedExtractor:
    """Returns canned extractions; fails for provision ids listed in ``bad``."""

    name = "scripted"

    def __init__(self, bad: set[str] = frozenset()) -> None:
        self.bad = bad

    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        for p in provisions:
            if p.id in self.bad:
                raise RuntimeError(f"cannot read {p.id}")
            yield Extraction(
                corpus=C,
                provision_id=p.id,
                entities=(ExtractedEntity(name="Employees"), ExtractedEntity(name="guardrail systems")),
                triples=(
                    ExtractedTriple(
                        head="Employees", relation="shall_be_protected_by", tail="guardrail systems"
                    ),
                ),
                section_refs=("1926.502(b)",),
            )


@pytest.fixture
def scope(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'b.db'}")
    et.create_entity_tables(engine)
    return sessionmaker(engine).begin


def refiner() -> IncrementalEntityRefiner:
    return IncrementalEntityRefiner(FakeEmbedder(), tau=0.95)


def test_scripted_extractor_satisfies_the_protocol():
    assert isinstance(ScriptedExtractor(), EntityExtractor)


def test_build_writes_graph_and_embeddings(scope):
    store = MagicMock(spec=GraphStore)
    provisions = [prov("1926.501(b)(1)"), prov("1926.501(b)(2)(i)"), prov("1926.509", reserved=True)]
    seen = []
    report = build_entity_network(
        provisions,
        ScriptedExtractor(),
        refiner(),
        store,
        scope,
        C,
        progress=lambda d, t: seen.append((d, t)),
        batch_size=1,
    )
    assert (report.provisions_processed, report.entities, report.relations, report.failed) == (2, 2, 1, [])
    assert report.extractor == "scripted" and report.section_refs == 2 and seen == [(1, 2), (2, 2)]
    [entities] = store.upsert_entities.call_args.args
    assert {e.name: e.section_ids for e in entities} == {
        "employee": ("1926.501(b)(1)", "1926.501(b)(2)(i)"),
        "guardrail system": ("1926.501(b)(1)", "1926.501(b)(2)(i)"),
    }
    [edges] = store.upsert_edges.call_args.args
    mentioned = [e for e in edges if e.type is EdgeType.MENTIONED_IN]
    relates = [e for e in edges if e.type is EdgeType.RELATES]
    assert (
        len(mentioned) == 4
        and mentioned[0].source == f"{C}:entity:employee"
        and mentioned[0].target == f"{C}:1926.501(b)(1)"
    )
    assert [(e.source, e.target, e.relation, e.section_ids) for e in relates] == [
        (
            f"{C}:entity:employee",
            f"{C}:entity:guardrail system",
            "shall_be_protected_by",
            ("1926.501(b)(1)", "1926.501(b)(2)(i)"),
        )
    ]
    with scope() as s:
        names, matrix = et.load_entity_matrix(s, C)
        triples, tmatrix = et.load_triple_matrix(s, C)
    assert names == ["employee", "guardrail system"] and matrix.shape == (2, 64) and tmatrix.shape == (1, 192)


def test_a_failing_provision_is_reported_and_the_rest_is_built(scope):
    provisions = [prov("a"), prov("bad"), prov("c")]
    report = build_entity_network(
        provisions,
        ScriptedExtractor(bad={"bad"}),
        refiner(),
        None,
        scope,
        C,
        batch_size=3,
        max_failure_share=0.5,
    )
    assert (
        report.provisions_processed == 3
        and len(report.failed) == 1
        and report.failed[0].startswith("bad: extraction failed")
    )
    assert report.entities == 2


def test_rebuild_is_idempotent_on_the_embedded_store(tmp_path):
    from bifrost.core.graph.embedded import EmbeddedGraphStore
    from bifrost.core.store.sql_store import SqlStore

    sql = SqlStore(f"sqlite:///{tmp_path / 'g.db'}")
    store = EmbeddedGraphStore(sql)
    provisions = [prov("1926.501(b)(1)"), prov("1926.501(b)(2)(i)")]
    store.upsert_sections(provisions)
    for _ in range(2):
        build_entity_network(provisions, ScriptedExtractor(), refiner(), store, sql.session, C)
    stats = store.stats(C)
    assert (
        stats.entities == 2
        and stats.edges_by_type.get("MENTIONED_IN") == 4
        and stats.edges_by_type.get("RELATES") == 1
    )
    with sql.session() as s:
        assert len(et.load_entity_matrix(s, C)[0]) == 2


def test_provisions_of_another_corpus_are_rejected(scope):
    other = Provision(corpus="adgm", id="1.1", kind=ProvisionKind.PARAGRAPH, text="x")
    with pytest.raises(ValueError):
        build_entity_network([other], ScriptedExtractor(), refiner(), None, scope, C)


def test_graph_edges_without_triples():
    from bifrost.core.types import Entity

    edges = graph_edges(C, [Entity(corpus=C, name="lanyard", section_ids=("1926.502(d)",))], [])
    assert [(e.type, e.source, e.target) for e in edges] == [
        (EdgeType.MENTIONED_IN, f"{C}:entity:lanyard", f"{C}:1926.502(d)")
    ]


class SkippingExtractor(ScriptedExtractor):
    """Like the LLM extractor: leaves failed provisions out and says why in `failure_reasons`."""

    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        batch = list(provisions)
        self._reasons = {
            p.id: "agent content_pruning failed: invalid\noutput" for p in batch if p.id in self.bad
        }
        yield from ScriptedExtractor().extract_many([p for p in batch if p.id not in self.bad])

    def failure_reasons(self) -> dict[str, str]:
        return dict(self._reasons)


class DownExtractor(ScriptedExtractor):
    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        raise ModelUnreachableError("stub", 5, "APIConnectionError: Connection error.")
        yield  # pragma: no cover


def stored_names(scope) -> list[str]:
    with scope() as s:
        return et.load_entity_matrix(s, C)[0]


def test_provisions_left_out_by_the_extractor_are_counted_with_their_reasons(scope):
    provisions = [prov(f"p{i}") for i in range(10)]
    report = build_entity_network(
        provisions, SkippingExtractor(bad={"p3"}), refiner(), None, scope, C, batch_size=4
    )
    assert isinstance(SkippingExtractor(), ReportsFailures)
    assert report.failed == ["p3: agent content_pruning failed: invalid output"]
    assert report.provisions_processed == 10 and report.entities == 2


def test_too_many_failures_abort_before_anything_is_written(scope):
    store = MagicMock(spec=GraphStore)
    provisions = [prov(f"p{i}") for i in range(10)]
    build_entity_network(provisions, ScriptedExtractor(), refiner(), store, scope, C)
    store.reset_mock()
    before = stored_names(scope)
    with pytest.raises(EntityBuildAborted) as info:
        build_entity_network(
            provisions,
            SkippingExtractor(bad={"p1", "p2", "p3"}),
            refiner(),
            store,
            scope,
            C,
            max_failure_share=0.2,
        )
    message = str(info.value)
    assert (
        "extraction failed for 3 of 10 provisions (30%; at most 20% may fail" in message
        and "\n" not in message
    )
    assert "the previous entity network is kept" in message and info.value.report.failed[0].startswith("p1: ")
    assert stored_names(scope) == before == ["employee", "guardrail system"]
    assert store.method_calls == []


def test_failures_at_the_threshold_still_build(scope):
    provisions = [prov(f"p{i}") for i in range(10)]
    report = build_entity_network(
        provisions, SkippingExtractor(bad={"p1", "p2"}), refiner(), None, scope, C, max_failure_share=0.2
    )
    assert len(report.failed) == 2 and stored_names(scope) == ["employee", "guardrail system"]


def test_a_build_in_which_every_provision_failed_never_replaces_the_network_whatever_the_share(scope):
    provisions = [prov(f"p{i}") for i in range(3)]
    build_entity_network(provisions, ScriptedExtractor(), refiner(), None, scope, C)
    with pytest.raises(
        EntityBuildAborted, match=r"failed for 3 of 3 provisions \(100%; nothing was extracted\)"
    ):
        build_entity_network(
            provisions,
            SkippingExtractor(bad={"p0", "p1", "p2"}),
            refiner(),
            None,
            scope,
            C,
            max_failure_share=1.0,
        )
    assert stored_names(scope) == ["employee", "guardrail system"]


def test_an_unreachable_model_aborts_the_build_and_keeps_the_network(scope):
    store = MagicMock(spec=GraphStore)
    build_entity_network([prov("p1")], ScriptedExtractor(), refiner(), None, scope, C)
    with pytest.raises(EntityBuildAborted) as info:
        build_entity_network([prov("p1"), prov("p2")], DownExtractor(), refiner(), store, scope, C)
    assert "is unreachable: 5 consecutive connection failures" in str(info.value)
    assert isinstance(info.value.__cause__, ModelUnavailableError)
    assert stored_names(scope) == ["employee", "guardrail system"] and store.method_calls == []


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_the_failure_share_must_be_a_fraction(scope, share):
    with pytest.raises(ValueError):
        build_entity_network(
            [prov("p1")], ScriptedExtractor(), refiner(), None, scope, C, max_failure_share=share
        )
