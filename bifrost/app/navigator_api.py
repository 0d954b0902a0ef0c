"""What the facade offers for reading the Document Navigator Graph: provisions, their parents, references
and neighbourhood, a listing by page, the stores' consistency check and the export to Neo4j. A mixin of
`Bifrost`; it uses the facade's ``sql``, ``graph``, ``settings``, ``edition``, ``precedents``,
``reference_extractor`` and ``require_corpus``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING


from bifrost.app.records import ExportReport
from bifrost.app.provision_view import ProvisionView, provision_at, provision_view
from bifrost.core.graph.subgraph import navigator_subgraph
from bifrost.core.resources import make_graph_store
from bifrost.core.requirement_types import STATES
from bifrost.core.types import EdgeType, NavigatorSubgraph, Provision, ReviewItem, make_uid, split_uid


if TYPE_CHECKING:  # pragma: no cover
    from bifrost.graph_builders.consistency import CheckReport


class NavigatorApi:
    """Read provisions and their neighbourhood; check the stores; export both graphs to Neo4j."""

    def provision(self, corpus: str, provision_id: str) -> Provision | None:
        """A stored provision by id, or None."""
        return self.graph.get_section(make_uid(corpus, provision_id))

    def parent_id(self, corpus: str, provision_id: str) -> str | None:
        """The id of a provision's parent in the navigator graph, or None."""
        parent = self.graph.parent(make_uid(corpus, provision_id))
        return split_uid(parent)[1] if parent else None

    def references_out(self, corpus: str, provision_id: str) -> list[str]:
        """Ids a provision cross-references (REFERS_TO targets)."""
        return [split_uid(t)[1] for t, _ in self.graph.references_out(make_uid(corpus, provision_id))]

    def show(self, corpus: str, provision_id: str, as_of: str | None = None) -> ProvisionView:
        """A provision with parent, children, references out and in, and its earlier versions;
        ``as_of`` (a date or an edition number) shows it as it stood in an earlier edition."""
        self.require_corpus(corpus)
        if as_of is not None:
            edition = self.edition(corpus, as_of)
            if edition.number != self.sql.edition(corpus).number:
                return provision_at(self.sql, edition, provision_id)
        return provision_view(self.sql, self.graph, corpus, provision_id)

    def provisions_page(
        self, corpus: str, offset: int = 0, limit: int = 100, kinds: Sequence[str] | None = None
    ) -> list[Provision]:
        """A page of a corpus's provisions in document order (for listings such as MCP resources); ``kinds``
        keeps only provisions of those kinds ("part", "subpart", "section", ...)."""
        self.require_corpus(corpus)
        return self.sql.provision_page(corpus, offset, limit, kinds)

    def neighbourhood(
        self,
        corpus: str,
        provision_id: str,
        depth: int = 1,
        kinds: Sequence[EdgeType] = (EdgeType.HAS, EdgeType.REFERS_TO),
        limit: int = 200,
    ) -> NavigatorSubgraph:
        """The navigator subgraph around a provision: nodes and HAS / REFERS_TO edges up to ``depth``."""
        self.require_corpus(corpus)
        return navigator_subgraph(self.graph, corpus, provision_id, depth, kinds, limit)

    def review_items(self, corpus: str | None = None) -> list[tuple[int, ReviewItem]]:
        return self.sql.review_items(corpus)

    def corpora(self) -> list[str]:
        """Names of the ingested corpora."""
        return self.sql.corpora()

    def check(self, corpus: str) -> CheckReport:
        """Compare the SQL store and the graph store for a corpus (`bifrost graph check`)."""
        from bifrost.graph_builders.consistency import check_corpus

        self.require_corpus(corpus)
        return check_corpus(self.sql, self.graph, corpus)

    def export_neo4j(self, corpus: str) -> ExportReport:
        """Write both graphs of a corpus to the configured Neo4j server (for analysts)."""
        from bifrost.graph_builders.entities.pipeline import write_entity_network
        from bifrost.graph_builders.navigator.build import build_navigator

        self.require_corpus(corpus)
        neo = make_graph_store(self.settings.model_copy(update={"store": "neo4j"}), self.sql)
        try:
            nav = build_navigator(self.sql, neo, corpus, self.reference_extractor(corpus))
            ents = write_entity_network(self.sql, neo, corpus)
            precedents = neo.write_precedents(corpus, self.precedents(corpus))
            stats = neo.stats(corpus)  # build_navigator wrote the requirement records too
        finally:
            neo.close()
        return ExportReport(
            navigator=nav,
            entities=ents,
            precedents=precedents,
            requirements=stats.edges_by_type.get(STATES, 0),
            stats=stats,
        )
