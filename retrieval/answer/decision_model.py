"""The trained decision as it lives in the home (`models/decision-<corpus>/`): the governing-rule selector (a
LightGBM classifier of "this candidate is a provision the answer needs", its raw margin mapped to a
probability by an isotonic calibration fitted out of fold), one classifier per verdict kind with the margin
each must pass (chosen in cross-validation for precision), and a JSON card naming the ranker it was trained
behind, its features and its validated figures. Scored with numpy (`TreeEnsemble`): answering does not import
LightGBM."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import atomic_file
from bifrost.core.settings import Settings
from bifrost.retrieval.ranking.ltr.trees import TreeEnsemble

log = logging.getLogger(__name__)

VERDICT_KINDS = ("yes", "no", "depends")


@dataclass
class DecisionCard:
    """What a stored decision model was trained for, on, and how it decides."""

    corpus: str
    ranker_sha256: str  # the ranker whose scores and features it reads (another ranker sets it aside)
    features: list[str]
    verdict_features: list[str]
    calibration: dict[str, list[float]]  # {"x": raw margins, "y": probabilities}, increasing
    # the governing rule's own: its margin -> how often the rule chosen first is a needed one (out of fold)
    governing_calibration: dict[str, list[float]] = field(default_factory=dict)
    cite_also: float = 1.1  # a second rule is cited when its probability is at least this (> 1: never)
    # the governing probability from which a rule is stated as the one that decides (chosen out of fold for
    # `fit.STATE_RIGHT` right; > 1: never); below it the answer is a shortlist. None: a card trained before
    # the bar, which states every governing rule (with one warning line)
    state_bar: float | None = None
    verdict_margins: dict[str, float] = field(default_factory=dict)  # kind -> least margin (absent: never)
    plan: str = "core"  # the relations the answer plan follows from the cited rules
    # which candidate governs: the selector's surest ("selector"), or the ranker's first with text ("ranker",
    # when validation found the selector no better at it); either way the selector's probability is reported
    order: str = "selector"
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"path", "sha256"}]
    figures: dict[str, Any] = field(default_factory=dict)  # validated figures, each set left out
    params: dict[str, Any] = field(default_factory=dict)
    trained_at: str = ""


def _booster(text: str) -> Any:
    """Numpy trees for a model text (raw margins), else LightGBM's booster."""
    trees = TreeEnsemble.parse(text)
    if trees is not None:
        return trees
    import lightgbm

    return lightgbm.Booster(model_str=text)


def _margin(booster: Any, x: np.ndarray) -> np.ndarray:
    if isinstance(booster, TreeEnsemble):
        return np.asarray(booster.predict(x), dtype=np.float64)
    return np.asarray(booster.predict(x, raw_score=True, num_threads=1), dtype=np.float64)


class DecisionModel:
    """The selector and the verdict classifiers with their card."""

    def __init__(self, selector: Any, verdicts: dict[str, Any], card: DecisionCard) -> None:
        self.selector, self.verdicts, self.card = selector, verdicts, card

    def margins(self, rows: np.ndarray) -> np.ndarray:
        """Per candidate row, the selector's raw margin."""
        return _margin(self.selector, rows) if len(rows) else np.zeros(0)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """Per candidate row, the calibrated probability that it is a provision the answer needs."""
        return calibrated(self.margins(rows), self.card.calibration)

    def governing_probability(self, margin: float) -> float:
        """The probability that the rule chosen first is one the answer needs, from its margin (the governing
        rule's own calibration: a first choice is right more often than a candidate of the same margin)."""
        return float(
            calibrated(np.array([margin]), self.card.governing_calibration or self.card.calibration)[0]
        )

    def states(self, probability: float) -> bool:
        """Whether a governing rule this sure is stated as the one that decides (else: a shortlist)."""
        return self.card.state_bar is None or probability >= self.card.state_bar

    def verdict(self, row: np.ndarray) -> tuple[str, float] | None:
        """The verdict kind whose classifier clears its margin by the most, with that margin; None when none
        does (no verdict is better than a wrong one)."""
        best: tuple[str, float] | None = None
        for kind, booster in self.verdicts.items():
            least = self.card.verdict_margins.get(kind)
            if least is None:
                continue
            m = float(_margin(booster, row.reshape(1, -1))[0])
            if m >= least and (best is None or m - least > best[1]):
                best = (kind, m - least)
        return best

    def save(self, settings: Settings, texts: dict[str, str]) -> Path:
        """Write the model texts (``selector`` and ``verdict-<kind>``) and then the card, each atomically."""
        folder = decision_folder(settings, self.card.corpus)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            with atomic_file(folder / f"{name}.lgb.txt") as tmp:
                tmp.write_text(text)
        with atomic_file(folder / "card.json") as tmp:  # the card last: it always describes whole models
            tmp.write_text(json.dumps(asdict(self.card), indent=2))
        return folder


def calibrated(margins: np.ndarray, calibration: dict[str, list[float]]) -> np.ndarray:
    """Raw margins mapped through the isotonic calibration (piecewise linear between its knots)."""
    x, y = calibration.get("x") or [0.0], calibration.get("y") or [0.0]
    return np.interp(np.asarray(margins, dtype=np.float64), np.asarray(x), np.asarray(y))


def decision_folder(settings: Settings, corpus: str) -> Path:
    return settings.home / "models" / f"decision-{re.sub(r'[^A-Za-z0-9._-]+', '_', corpus)}"


def load_decision(
    settings: Settings,
    corpus: str,
    ranker_sha: str,
    features: tuple[str, ...],
    verdict_features: tuple[str, ...],
) -> tuple[DecisionModel | None, str | None]:
    """The corpus's decision model, or (None, why) when there is none or it does not fit: trained behind
    another ranker, or on other features (then answers are composed as before and the warning names the
    command)."""
    folder = decision_folder(settings, corpus)
    card_path = folder / "card.json"
    retrain = f"`bifrost train decision --corpus {corpus}`"
    if not card_path.exists():
        return None, f"no governing-rule selector is trained for {corpus}: {retrain} adds it"
    try:
        card = DecisionCard(**json.loads(card_path.read_text()))
        if card.ranker_sha256 != ranker_sha:
            return (
                None,
                f"the decision model of {corpus} was trained behind another ranker: "
                f"retrain it with {retrain}",
            )
        if tuple(card.features) != features or tuple(card.verdict_features) != verdict_features:
            return None, f"the decision model of {corpus} reads other features: retrain it with {retrain}"
        if card.state_bar is None:
            stale = (
                f"the decision model of {corpus} was trained before answers said only what they are sure "
                f"of: it states every governing rule however unsure; retrain it with {retrain}"
            )
        selector = _booster((folder / "selector.lgb.txt").read_text())
        verdicts = {
            kind: _booster((folder / f"verdict-{kind}.lgb.txt").read_text())
            for kind in card.verdict_margins
            if (folder / f"verdict-{kind}.lgb.txt").exists()
        }
    except Exception as e:  # noqa: BLE001 - a corrupt model must not stop answering
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        return None, f"the decision model in {folder.name} is unreadable ({first}): retrain it with {retrain}"
    return DecisionModel(selector, verdicts, card), (stale if card.state_bar is None else None)
