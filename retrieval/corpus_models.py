"""The per-corpus models the ask pipeline loads once: the dense ranker, stored sentence vectors, the
answerability judge, the decision model and the answer plan's readers, and the index files written after a
build."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from bifrost.core.embeddings import Embedder
from bifrost.core.types import Provision
from bifrost.retrieval.answerability.judge import AnswerabilityJudge, load_judge


log = logging.getLogger(__name__)

ROUTER_LOCK = "\x00router"
"""The lock the router loads under (no corpus is named so)."""


class CorpusModels:
    """Loaders of a corpus's models, cached under the pipeline's per-corpus locks (`AskPipeline._once`);
    a mixin of `AskPipeline`, whose state (resources, config, caches) they read."""

    def dense_ranker(
        self, corpus: str, provisions: list[Provision] | None = None, encoder: Path | None = None
    ):
        """Embeddings of every provision (cached on disk under $BIFROST_HOME/index), under the embedding
        model or, given ``encoder``, under that adapted encoder folder (loaded with its own embedder)."""
        from bifrost.core.embeddings import SentenceTransformerEmbedder, onnx_folder
        from bifrost.retrieval.channels.dense import DenseRanker

        if encoder is None:
            dense = DenseRanker(self.resources.settings, embedder=self.resources.embedder)
        else:
            s = self.resources.settings
            embedder = SentenceTransformerEmbedder(
                str(encoder),
                runtime=s.embedding_runtime,
                num_threads=s.embedding_threads,
                workers=s.embedding_workers,
                onnx_dir=onnx_folder(s.home),  # its export, made when it was stored
            )
            dense = DenseRanker(s, model=str(encoder), embedder=embedder)
        dense.warm_up(corpus, provisions)
        return dense

    def write_indexes(self, corpus: str) -> None:
        """(Re)write every index file of a corpus now (build commands call this after a build, so
        that the first question of a new process only maps files)."""
        self.forget(corpus)
        self.parts(corpus)
        self.write_sentence_vectors(corpus)

    def write_sentence_vectors(self, corpus: str) -> None:
        """Store the vectors of every provision sentence (`bifrost.retrieval.answer.sentence_vectors`), so
        that answers quote without encoding them; a read-only home still answers, encoding them."""
        from bifrost.retrieval.answer import sentence_vectors
        from bifrost.retrieval.channels.documents import index_folder
        from bifrost.core.sentences import sentences

        res = self.resources
        texts = sentence_vectors.corpus_sentences(res.sql.provisions(corpus), sentences)
        try:
            sentence_vectors.write(
                index_folder(res.settings.home, corpus), res.embedder.key, texts, res.embedder.embed
            )
        except OSError as e:
            log.warning("cannot write the sentence vectors of %s: %s", corpus, e)

    def answer_embedder(self, corpus: str) -> Embedder:
        """What answers quote with: the corpus's stored sentence vectors over the embedding model (which
        encodes what they lack), or the embedding model alone when none are stored; loaded once."""
        return self._once(self._sentences, corpus, corpus, lambda: self._load_sentences(corpus))

    def _load_sentences(self, corpus: str) -> Embedder:
        from bifrost.retrieval.answer.sentence_vectors import StoredSentences, load
        from bifrost.retrieval.channels.documents import index_folder

        res = self.resources
        stored = load(index_folder(res.settings.home, corpus), res.embedder.key)
        return res.embedder if stored is None else StoredSentences(res.embedder, stored)

    def judge(self, corpus: str) -> AnswerabilityJudge | None:
        """The answerability model of a corpus (None: refuse by the cosine rule), loaded once."""
        return self._once(self._judges, corpus, corpus, lambda: self._load_judge(corpus))

    def _load_judge(self, corpus: str) -> AnswerabilityJudge | None:
        parts = self.parts(corpus)
        return load_judge(
            self.resources.settings,
            corpus,
            parts.channels,
            parts.nav,
            self.lookup(corpus),
            ranker=self.ranker_in_use(corpus),
        )

    def ranker_in_use(self, corpus: str) -> str:
        """sha256 of the stored ranker when it is the corpus's retriever ("" for the hybrid): the models
        trained behind a ranker (the answerability model, the decision) are set aside when it differs."""
        from bifrost.retrieval.ranking.ltr.model import ranker_sha256
        from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever

        return (
            ranker_sha256(self.resources.settings, corpus)
            if isinstance(self.retriever(corpus), LtrRetriever)
            else ""
        )

    def decision(self, corpus: str):
        """(the decision model of a corpus, or None; the one warning line an answer carries without it),
        loaded once: a model trained behind the ranker in use; none for the hybrid or with `decision=off`."""
        return self._once(self._decisions, corpus, corpus, lambda: self._load_decision(corpus))

    def _load_decision(self, corpus: str):
        from bifrost.retrieval.answer.decision_model import load_decision
        from bifrost.retrieval.answer.governing import FEATURES
        from bifrost.retrieval.answer.verdict_features import VERDICT_FEATURES

        ranker = self.ranker_in_use(corpus) if self.config.decision != "off" else ""
        if not ranker or not self.parts(corpus).nav.requirements:
            return None, None  # the hybrid, or no records (`AskPipeline.answer` says which command adds them)
        retired = self.resources.settings.home / "models" / f"reader-{corpus}"
        if retired.is_dir():  # a home trained before the reader was removed: its files are left, unread
            log.warning("%s is no longer read (the reader was removed); delete it to drop this line", retired)
        # the reason it is not used is each answer's warning (printed with the answer, not logged again)
        return load_decision(self.resources.settings, corpus, ranker, FEATURES, VERDICT_FEATURES)

    def router(self, corpora: Sequence[str]):
        """The corpus router over ``corpora`` (`bifrost.retrieval.routing.router`), or None when the home
        stores none; loaded once per set of corpora, after their indexes."""
        key = tuple(corpora)
        return self._once(self._routers, key, ROUTER_LOCK, lambda: self._load_router(key))

    def _load_router(self, corpora: tuple[str, ...]):
        from bifrost.retrieval.routing.model import load_router
        from bifrost.retrieval.routing.router import CorpusRouter, home_letters

        model = load_router(self.resources.settings)
        if model is None:
            return None
        channels = {c: self.parts(c).channels for c in corpora}
        return CorpusRouter(model, channels, home_letters(channels), self.resources.embedder.embed)

    def planner(self, corpus: str):
        """What the answer plan of a corpus reads (its navigator maps and lexical index; loaded with the
        corpus)."""
        from bifrost.graph_builders.jurisdictions.registry import words_for
        from bifrost.retrieval.answer.planner import Planner

        parts = self.parts(corpus)
        bm25 = parts.channels.bm25
        return Planner(
            parts.nav, bm25.tokenize, bm25.document_frequency, len(parts.channels.ids), words_for(corpus)
        )
