"""The `Bifrost` facade: one object over the Python API of every stage (`from bifrost import Bifrost`).

The CLI, the web app and the MCP server are thin layers over this class; it only wires
`Resources` (core) to the stages in `graph_builders`, `retrieval`, `eval` and the stores, and
holds no pipeline logic of its own. Use it as a context manager, so that stores are closed.
Building and asking live here; reading the navigator graph, editions, the Entity Network,
precedents, the team server and training and evaluation are mixins in their own modules
(`navigator_api.py`, `editions_api.py`, `entity_network_api.py`, `precedents_api.py`, `team/serving.py`,
`training_and_evaluation.py`), so each file stays about one job.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from bifrost.app.records import EncoderExport
from bifrost.app.team.answer_log import AnswerLog
from bifrost.app.editions_api import EditionsApi
from bifrost.app.navigator_api import NavigatorApi
from bifrost.app.entity_network_api import EntityNetworkApi
from bifrost.app.precedents_api import PrecedentsApi
from bifrost.app.team.serving import TeamServing
from bifrost.app.training_and_evaluation import TrainingAndEvaluation
from bifrost.app.team.users import Users
from bifrost.core.access import Principal
from bifrost.core.errors import BifrostError
from bifrost.core.graph.base import GraphStore
from bifrost.core.precedent_types import AnswerReview
from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.core.store import schema
from bifrost.core.store.schema import SchemaStatus
from bifrost.core.store.engine import raw_engine
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.answer_types import Answer, RetrievedItem
from bifrost.core.types import Edition, GraphStats, IngestReport, Provision
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.multi_corpus import ALL, is_several, merge_answers, parse_corpora
from bifrost.retrieval.pipeline import AskPipeline

from bifrost.graph_builders.entities.base import EntityBuildReport

if TYPE_CHECKING:  # pragma: no cover
    from bifrost.graph_builders.jurisdictions.base import Jurisdiction

log = logging.getLogger(__name__)

NO_ROUTER = (
    "every corpus named was asked: this home stores no corpus router (`bifrost train router` learns which "
    "rulebook answers from its answered questions)"
)


BuildProgress = Callable[[str, int, "int | None"], None]
"""``progress(stage, done, total)`` of `Bifrost.build`: stage ``ingest`` or ``entities``."""


class BuildReport(BaseModel):
    """What `Bifrost.build` did: the ingest (with its navigator build) and the entity network build."""

    ingest: IngestReport
    entities: EntityBuildReport | None = None


def review_question_set(reviews: Sequence[tuple[AnswerReview, list[str]]]) -> list[dict[str, Any]]:
    """Reviews as rows of a question file (the evaluation JSONL format) `train ranker` learns from."""
    from bifrost.graph_builders.precedents.review import review_questions

    return review_questions([r for r, _moved in reviews])


class Bifrost(NavigatorApi, EditionsApi, EntityNetworkApi, PrecedentsApi, TeamServing, TrainingAndEvaluation):
    """Build the dual graph for a corpus and answer questions over it.

    >>> with Bifrost() as bf:  # doctest: +SKIP
    ...     bf.build("osha-1926")
    ...     print(bf.ask("When are guardrails required?").text)
    """

    def __init__(self, settings: Settings | None = None, config: RetrievalConfig | None = None) -> None:
        self.resources = Resources(settings)
        self.settings = self.resources.settings
        self.pipeline = AskPipeline(self.resources, config or RetrievalConfig.from_settings(self.settings))
        self._users: Users | None = None
        self._answer_log: AnswerLog | None = None

    def __enter__(self) -> Bifrost:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def sql(self) -> SqlStore:
        return self.resources.sql

    @property
    def graph(self) -> GraphStore:
        return self.resources.graph

    @property
    def embedder(self):
        return self.resources.embedder

    @property
    def chat_model(self):
        """The configured chat model, or None (offline mode)."""
        return self.resources.chat_model

    @property
    def retrieval_config(self) -> RetrievalConfig:
        return self.pipeline.config

    def close(self) -> None:
        self.resources.close()

    # --- the SQL store's schema (without opening the store, which refuses an outdated server schema) ---
    def db_status(self) -> SchemaStatus:
        """The database's schema revision against this code's newest."""
        engine = raw_engine(self.settings.sql_url)
        try:
            return schema.status(engine)
        finally:
            engine.dispose()

    def db_upgrade(self, revision: str = "head") -> tuple[SchemaStatus, SchemaStatus]:
        """Migrate the database to ``revision`` (default the newest): the status before and after."""
        engine = raw_engine(self.settings.sql_url)
        try:
            return schema.upgrade(engine, revision)
        finally:
            engine.dispose()

    # --- ingestion and the navigator graph ---
    def default_sources(self, corpus: str) -> list[Path]:
        """The corpus's files from the shared folder, else eCFR XML downloaded for an online user."""
        from bifrost.graph_builders.ingest import default_sources

        return default_sources(self.settings, corpus)

    def ingest(
        self,
        corpus: str,
        paths: Sequence[Path] | None = None,
        progress: Callable[[str], None] | None = None,
        date: str | None = None,
        allow_older: bool = False,
        navigator: bool = True,
    ) -> IngestReport:
        """Parse and store sources (default: the corpus's known sources) as a new edition of the corpus,
        then (unless ``navigator`` is False) bring the Document Navigator Graph up to date with it; the
        navigator build's report is ``report.navigator``."""
        from bifrost.graph_builders.ingest import ingest_sources

        pack = self.jurisdiction(corpus)
        paths = list(paths) if paths else self.default_sources(corpus)
        if not self.holds_vectors():  # a new home encodes every vector on onnxruntime from the start
            self.embedder.export_onnx()
        opts = pack.ingest_options(self.settings.resolve_shared_dir())
        with self.sql.writer_lock(corpus):
            report = ingest_sources(
                self.sql,
                corpus,
                paths,
                jurisdiction=pack.name,
                progress=progress,
                date=date,
                allow_older=allow_older,
                **opts,
            )
        if navigator and report.files_ok:
            report.navigator = self.build_navigator(corpus)
            self.pipeline.forget(corpus)
        return report

    def holds_vectors(self) -> bool:
        """Whether the home stores vectors already (an index matrix, or the entity network's text vectors):
        its encoder runtime is then kept as it is, so that no index mixes two runtimes' vectors."""
        from sqlalchemy import select

        from bifrost.core.store.entity_tables import TextVectorRow

        if any(self.settings.home.glob("index/*/*.npy")):
            return True
        with self.sql.session() as s:
            return s.execute(select(TextVectorRow.text).limit(1)).first() is not None

    def build_encoder(self) -> EncoderExport:
        """Make the home's ONNX export of the embedding model now (again after a corrupt or missing file);
        the stored vectors made by another runtime are rebuilt from the next build on (what to run is in the
        report)."""
        before = self.embedder.key
        held = self.holds_vectors()
        path = self.embedder.export_onnx()
        self.pipeline.forget()
        moved = path is not None and held and self.embedder.key != before
        return EncoderExport(
            path=str(path.relative_to(self.settings.home)) if path is not None else "",
            runtime="onnx" if path is not None else "torch",
            rebuild=[f"bifrost build entities --corpus {c} --reembed" for c in self.corpora()]
            if moved
            else [],
        )

    def build(
        self,
        corpus: str = "osha-1926",
        sources: Sequence[Path] | None = None,
        *,
        entities: bool = True,
        extractor: str = "auto",
        progress: BuildProgress | None = None,
        date: str | None = None,
        allow_older: bool = False,
    ) -> BuildReport:
        """The whole build of a corpus: ingest its sources (default: the corpus's known sources), the
        Document Navigator Graph, then (unless ``entities`` is False) the Entity Network Graph and the index
        files. ``progress(stage, done, total)`` is told how far each stage got (total None: unknown).
        `ask` works after the ingest alone (lexical + dense retrieval over the navigator graph)."""
        tell = progress or (lambda _stage, _done, _total: None)
        files = [0]

        def ingested(_path: str) -> None:
            files[0] += 1
            tell("ingest", files[0], len(sources) if sources else None)

        report = self.ingest(corpus, sources, ingested, date=date, allow_older=allow_older)
        built = BuildReport(ingest=report)
        if entities and report.files_ok:
            tell("entities", 0, None)
            built.entities = self.build_entities(
                corpus, extractor, progress=lambda done, total: tell("entities", done, total)
            )
        return built

    def jurisdiction(self, corpus: str) -> Jurisdiction:
        """The pack that reads the corpus: the jurisdiction stored with it, else the one its spec names."""
        from bifrost.graph_builders.jurisdictions.registry import pack_of

        return pack_of(corpus, self.sql.jurisdiction(corpus))

    def reference_extractor(self, corpus: str):
        """The rule-based reference extractor for the corpus's jurisdiction."""
        return self.jurisdiction(corpus).reference_extractor()

    def build_navigator(self, corpus: str, progress: Callable[[int], None] | None = None):
        """(Re)build the Document Navigator Graph of a corpus in the configured graph store."""
        from bifrost.graph_builders.navigator.build import build_navigator

        self.require_corpus(corpus)
        with self.sql.writer_lock(corpus):
            built = build_navigator(self.sql, self.graph, corpus, self.reference_extractor(corpus), progress)
        self.pipeline.forget(corpus)  # the next question reads the new maps and requirement records
        return built

    # --- reading ---
    def require_corpus(self, corpus: str) -> None:
        self.resources.require_corpus(corpus)

    def stats(self, corpus: str) -> GraphStats:
        from bifrost.graph_builders.jurisdictions.registry import words_for

        self.require_corpus(corpus)
        st = self.graph.stats(corpus)
        notes = [*st.notes, self._precedent_note(corpus), self._requirement_note(corpus)]
        if note := words_for(corpus).note:
            notes.append(note)
        return st.model_copy(update={"notes": notes})

    def _requirement_note(self, corpus: str) -> str:
        built = self.sql.get_meta(corpus, "requirements")
        if not built:
            return "no requirement records (a home built before them): `bifrost build navigator` adds them"
        return (
            f"{built['records']} requirement records ({built['with_conditions']} with quantity conditions, "
            f"{built['with_exceptions']} with exceptions); {built['unread']} rule sentences without a "
            "requirement"
        )

    def download(self, part: str = "1926", title: int = 29, date: str = "current") -> Path:
        """eCFR XML of a CFR part (needs internet; cached under ``$BIFROST_HOME/downloads``)."""
        from bifrost.graph_builders.jurisdictions.registry import corpus_spec, jurisdiction

        # a new corpus
        spec = replace(corpus_spec(f"title-{title}-part-{part}"), ecfr_title=title, ecfr_part=part)
        return jurisdiction(spec.jurisdiction).download(spec, self.settings.home / "downloads", date=date)[0]

    # --- asking ---
    def corpora_in(self, corpus: str) -> list[str]:
        """The corpora a corpus option names: one name, ``a,b`` or ``all`` (one-line errors for unknown
        names)."""
        return parse_corpora(corpus, self.corpora()) if is_several(corpus) else [corpus]

    def warm_up(self, corpus: str) -> None:
        """Load the indexes and ranker of a corpus (or of each corpus named, and the router that chooses
        among them) now, not on the first question."""
        names = self.corpora_in(corpus)
        for name in names:
            self.retriever(name)
        if len(names) > 1:
            self.pipeline.router(names)

    def retriever(self, corpus: str):
        """The hybrid retriever of a corpus, its indexes loaded once."""
        return self.pipeline.retriever(corpus)

    def lookup(self, corpus: str) -> Callable[[str], Provision | None]:
        return self.pipeline.lookup(corpus)

    def default_corpus(self, corpus: str | None) -> str:
        """``corpus``, or, when none is named, the home's only corpus or ``all`` when it holds several (a
        one-line error when it holds none)."""
        if corpus:
            return corpus
        known = self.corpora()
        if len(known) == 1:
            return known[0]
        if not known:
            raise BifrostError("no corpus ingested yet; run `bifrost ingest --corpus NAME`")
        return ALL

    def search(self, query: str, corpus: str | None = None, k: int = 10) -> list[RetrievedItem]:
        """The ``k`` best provisions for a query, each with how it was reached (no answer step); ``corpus``:
        default the home's only corpus. ``k`` is 1 to 1000 (one line naming it otherwise)."""
        if not isinstance(k, int) or not 1 <= k <= 1000:
            raise BifrostError(f"k must be a whole number from 1 to 1000, got {k!r}")
        corpus = self.default_corpus(corpus)
        if is_several(corpus):
            raise BifrostError(
                f"search ranks one corpus at a time: name one of {', '.join(self.corpora())} "
                "(`ask` asks several)"
            )
        retriever = self.retriever(corpus)
        config = retriever.config.model_copy(update={"top_n": max(k, retriever.config.top_n)})
        # as `ask` ranks: a named provision first
        return self.pipeline.retrieve(query, corpus, config).items[:k]

    def ask(
        self,
        question: str,
        corpus: str | None = None,
        config: RetrievalConfig | None = None,
        as_of: str | None = None,
        exclude: Sequence[str] = (),
        asked_by: Principal | None = None,
        channel: str = "api",
    ) -> Answer:
        """Answer a question with cited provisions, or refuse when nothing supports an answer.

        ``corpus`` may name several corpora (``osha-1926,adgm``) or ``all``: each answers, and the
        answers are merged with the corpus on every citation (`bifrost.retrieval.multi_corpus`).
        ``as_of`` (an ISO date or an edition number) answers from the edition valid then; a past
        edition is ranked without the entity network (the answer's ``note`` says so). No ``corpus``: the
        home's only corpus. ``exclude``: ids or source URLs of the question's own precedents (a letter asked
        again is never answered from itself). ``asked_by``: the answer is kept on the record under that user
        and ``channel`` (cli, web, api, mcp), and carries the record's id (`answers`).
        """
        corpus = self.default_corpus(corpus)
        corpora = self.corpora_in(corpus)
        if len(corpora) == 1:  # 'all' in a home of one corpus: that corpus, answered as itself
            corpus = corpora[0]
        editions = {c: self._as_of(c, as_of) for c in corpora}
        answer = self._ask_at(question, corpus, corpora, editions, config, exclude)
        if asked_by is not None:
            self._record(answer, asked_by, channel, {c: e.number for c, e in editions.items()}, as_of)
        return answer

    def _ask_at(
        self,
        question: str,
        corpus: str,
        corpora: Sequence[str],
        editions: dict[str, Edition],
        config: RetrievalConfig | None,
        exclude: Sequence[str] = (),
    ) -> Answer:
        if not is_several(corpus):
            return self.pipeline.ask(question, corpus, config, editions[corpus], exclude)
        router = self.pipeline.router(corpora) if len(corpora) > 1 else None
        chances = router.route(question, exclude) if router is not None else []
        asked = [c.corpus for c in chances if c.asked] or list(corpora)
        answers = [self.pipeline.ask(question, c, config, editions[c], exclude) for c in asked]
        for a, c in zip(answers, asked):  # asked beside corpora with their own models: say which lack one
            if not a.refused and (line := self.pipeline.hand_ranked(c)):
                a.warnings.append(line)
        if len(answers) == 1:  # routed to one corpus: its own answer, as asking it alone gives it
            return answers[0].model_copy(update={"routing": chances})
        merged = merge_answers(question, answers, lambda texts: self.embedder.embed(texts), chances)
        if router is None and len(corpora) > 1:
            merged.warnings.append(NO_ROUTER)
        return merged
