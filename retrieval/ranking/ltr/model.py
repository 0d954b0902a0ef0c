"""A trained ranker as it lives in the home: the LightGBM model text beside a JSON card (corpus,
embedding model, feature list, question files and their hashes, parameters, cited-set cut and the
cross-validated figures). Loading checks the card, so a model is never used where it does not fit."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import atomic_file
from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.retrieval.channels.dense import model_version
from bifrost.retrieval.ranking.ltr.trees import TreeEnsemble

log = logging.getLogger(__name__)

LGBM_PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "learning_rate": 0.05,
    "min_child_samples": 50,
    "reg_lambda": 1.0,
    "subsample": 0.8,
    "subsample_freq": 1,
    "colsample_bytree": 0.8,
    "lambdarank_truncation_level": 30,
    "verbose": -1,
    "n_jobs": 1,
}
"""Fixed settings of every ranker (LightGBM's documented ranking setup with leaves kept large
enough in data for a few hundred questions); the sampling seed is `bifrost.training.ranker.cv.fit`'s
``seed``."""

PARAM_GRID: tuple[dict[str, Any], ...] = tuple(
    {"num_leaves": leaves, "n_estimators": trees} for leaves in (4, 15) for trees in (100, 300)
)
"""Model sizes chosen between by an inner cross-validation on the training questions only."""

MORE_IS_BETTER = (
    "bm25",
    "bm25_norm",
    "term_coverage",
    "term_coverage_idf",
    "dense",
    "entity_score",
    "entity_score_norm",
    "entity_cosine",
    "triple_cosine",
)
MORE_IS_WORSE = ("bm25_rank_log", "dense_rank_log", "dense_gap")
"""A prior for any rulebook, not fit to data: more lexical, dense or entity evidence for a provision
never lowers its score (LightGBM monotone constraints)."""


def monotone_constraints(features: tuple[str, ...] | list[str]) -> list[int]:
    """+1, -1 or 0 per feature, from `MORE_IS_BETTER` and `MORE_IS_WORSE`."""
    return [1 if f in MORE_IS_BETTER else -1 if f in MORE_IS_WORSE else 0 for f in features]


@dataclass
class ModelCard:
    """What a stored ranker was trained for and on."""

    corpus: str
    embedding_model: str
    features: list[str]
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"path", "sha256"}]
    params: dict[str, Any] = field(default_factory=dict)
    cite_delta: float = 1.0
    cv: dict[str, Any] = field(default_factory=dict)
    # set -> the ranker's figures fitted on the other sets
    left_out: dict[str, Any] = field(default_factory=dict)
    trained_at: str = ""
    encoder: str = ""  # the adapted dense encoder the ranker reads, relative to the home ("" = none)
    encoder_version: str = ""  # `model_version` of that folder when the ranker was trained
    # the question sets it was adapted on
    encoder_questions: list[dict[str, str]] = field(default_factory=list)
    # the site-words glossary its lexical features were computed with ("" = none; the glossary was removed, so
    # a card naming one was trained on other lexical features: `glossary_mismatch`)
    glossary: str = ""


def glossary_mismatch(card: ModelCard) -> str | None:
    """A one-line warning when the ranker was trained with the removed site-words glossary."""
    if not card.glossary:
        return None
    return (
        f"the ranker of {card.corpus!r} was trained with the site-words glossary {card.glossary!r}, which "
        f"was "
        f"removed: its lexical features differ from training; retrain it (bifrost train ranker)"
    )


def model_paths(settings: Settings, corpus: str) -> tuple[Path, Path]:
    """(model text, card JSON) of a corpus's ranker in the home."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", corpus)
    folder = settings.home / "models"
    return folder / f"ranker-{safe}.lgb.txt", folder / f"ranker-{safe}.json"


def ranker_sha256(settings: Settings, corpus: str) -> str:
    """sha256 of the corpus's stored ranker ("" without one): what the cards of the models trained behind it
    (the reader, the answerability model) record, so that a retrained ranker sets them aside."""
    path = model_paths(settings, corpus)[0]
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


class RankerModel:
    """A LightGBM booster (or the same trees as a `TreeEnsemble`) with its card; scores feature rows
    (higher is better)."""

    def __init__(self, booster: Any, card: ModelCard, columns: list[int] | None = None) -> None:
        """``columns``: which columns of today's feature rows the model was trained on (None: all)."""
        self.booster, self.card, self.columns = booster, card, columns

    def score(self, rows: np.ndarray) -> np.ndarray:
        if len(rows) == 0:
            return np.zeros(0, dtype=np.float64)
        x = rows if self.columns is None else rows[:, self.columns]
        return np.asarray(self.booster.predict(x, num_threads=1), dtype=np.float64)

    def save(self, settings: Settings) -> Path:
        model_path, card_path = model_paths(settings, self.card.corpus)
        model_path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(model_path) as tmp:
            tmp.write_text(self.booster.model_to_string())
        with atomic_file(card_path) as tmp:  # the card last: a card always describes a whole model
            tmp.write_text(json.dumps(asdict(self.card), indent=2))
        return model_path


def encoder_folder(settings: Settings, corpus: str) -> Path:
    """Where `bifrost train ranker --encoder-questions` keeps the corpus's adapted dense encoder."""
    return settings.home / "models" / f"dense-{re.sub(r'[^A-Za-z0-9._-]+', '_', corpus)}"


def ranker_encoder(settings: Settings, corpus: str) -> Path | None:
    """The adapted dense encoder the corpus's ranker was trained with, when its card names one that
    is present and unchanged (else None: the ranker is not used, see `load_ranker`)."""
    _model, card_path = model_paths(settings, corpus)
    try:
        card = json.loads(card_path.read_text()) if card_path.exists() else {}
        name, version = card.get("encoder", ""), card.get("encoder_version", "")
    except (OSError, ValueError, AttributeError):
        return None
    folder = settings.home / name if name else None
    if folder is None or not folder.is_dir() or model_version(str(folder)) != version:
        return None
    return folder


def check_card(card: ModelCard, corpus: str, embedding_model: str, features: tuple[str, ...]) -> None:
    """Refuse a ranker trained for another corpus, embedding model or feature list (one line naming both)."""
    if card.corpus != corpus:
        raise ConfigError(
            f"the ranker was trained for corpus {card.corpus!r}, not {corpus!r}; run `bifrost train ranker "
            f"--corpus {corpus}`"
        )
    if card.embedding_model != embedding_model:
        raise ConfigError(
            f"the ranker of {corpus!r} was trained with embedding model {card.embedding_model!r}, not "
            f"{embedding_model!r}; "
            f"retrain it with `bifrost train ranker --corpus {corpus}`"
        )
    unknown = [f for f in card.features if f not in features]
    if unknown:
        raise ConfigError(
            f"the ranker of {corpus!r} uses features this version does not compute "
            f"({', '.join(unknown[:3])}); "
            f"retrain it with `bifrost train ranker --corpus {corpus}`"
        )


def load_ranker(settings: Settings, corpus: str, features: tuple[str, ...]) -> RankerModel | None:
    """The corpus's ranker, or None when there is none or it cannot be read (then the hybrid is used).

    A ranker made for another corpus or embedding model raises `ConfigError`."""
    model_path, card_path = model_paths(settings, corpus)
    if not card_path.exists():
        return None
    try:
        card = ModelCard(**json.loads(card_path.read_text()))
    except (OSError, ValueError, TypeError) as e:
        log.warning("ranker card %s is unreadable (%s); using the hybrid retriever", card_path, e)
        return None
    check_card(card, corpus, settings.embedding_model, features)
    if card.encoder and ranker_encoder(settings, corpus) is None:
        log.warning(
            "the ranker of %s reads the adapted encoder %s, which is missing or was retrained since; "
            "using the hybrid retriever (retrain with `bifrost train ranker --encoder-questions`)",
            corpus,
            card.encoder,
        )
        return None
    try:
        text = model_path.read_text()
        booster = TreeEnsemble.parse(text)  # numpy, same scores; LightGBM only for what it does not cover
        if booster is None:
            import lightgbm

            booster = lightgbm.Booster(model_str=text)
        if booster.num_feature() != len(card.features):
            raise ValueError(f"{booster.num_feature()} features, its card lists {len(card.features)}")
    except ImportError:
        log.warning(
            "a ranker exists for %s but lightgbm is not installed (pip install 'bifrost-rag[ltr]'); using "
            "the hybrid",
            corpus,
        )
        return None
    except Exception as e:  # noqa: BLE001 - a corrupt model file must not stop answering
        log.warning(
            "ranker model %s is corrupt (%s); using the hybrid retriever",
            model_path,
            str(e).splitlines()[0] if str(e) else type(e).__name__,
        )
        return None
    columns = None if tuple(card.features) == features else [features.index(f) for f in card.features]
    if columns is not None:  # trained before features were added: scored on the columns it knows
        log.info(
            "the ranker of %s uses %d of today's %d features; retrain to use them all",
            corpus,
            len(columns),
            len(features),
        )
    return RankerModel(booster, card, columns)
