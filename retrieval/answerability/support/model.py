"""A fine-tuned cross-encoder over (question, provision text) pairs, as it lives in the home.

Evidence that does not depend on how a question is worded: it reads the question and the provision
together and scores whether the provision states the answer (trained on positives and near-domain
negatives, `training/answerability/support_fit.py`). The answerability judge reads its best score over the top
provisions. The model folder, ``models/support-<corpus>/``, holds the sentence-transformers
CrossEncoder and ``support-card.json`` (base model, question files, examples, settings); no folder:
no scorer, and the judge does without it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from bifrost.retrieval.cross_encoders import JsonCard, model_folder

log = logging.getLogger(__name__)

CARD = "support-card.json"
MAX_LENGTH = 128
"""Word pieces read per (question, provision) pair: a provision's first sentences hold its subject and
duty; longer inputs cost more than they tell (a pair's cost grows with its length)."""
TOP = 3
"""Top retrieved provisions the judge asks the scorer about."""


def support_folder(home: Path, corpus: str) -> Path:
    """``$BIFROST_HOME/models/support-<corpus>/``."""
    return model_folder(home, "support", corpus)


@dataclass
class SupportCard(JsonCard):
    """What a support scorer was trained on, and how."""

    FILE: ClassVar[str] = CARD

    corpus: str
    base_model: str
    max_length: int = MAX_LENGTH
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"path", "sha256"}]
    examples: dict[str, int] = field(default_factory=dict)  # positives, negatives
    epochs: int = 1
    steps: int = 0
    seconds: float = 0.0
    loss_first: float | None = None
    loss_last: float | None = None
    trained_at: str = ""


class SupportScorer:
    """The cross-encoder of one folder, loaded on first use (safe to share between threads). It runs on the
    process's torch threads: loading it never changes them (torch's thread count is process-wide; the
    application edge, e.g. the web workers, sets it once)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.card = SupportCard.read(self.folder)
        self._model: Any = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, home: Path, corpus: str) -> SupportScorer | None:
        """The corpus's stored scorer, or None when none is trained (or its card cannot be read)."""
        folder = support_folder(home, corpus)
        if not (folder / CARD).is_file():
            return None
        try:
            return cls(folder)
        except (OSError, ValueError, TypeError) as e:
            log.warning("support scorer in %s not used: %s", folder, e)
            return None

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import CrossEncoder

                self._model = CrossEncoder(str(self.folder), max_length=self.card.max_length, device="cpu")
            return self._model

    def score(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Probability, per text, that it states what the question asks (0..1)."""
        if not texts:
            return np.zeros(0)
        model = self._loaded()
        # sigmoid: one label
        scores = model.predict([(question, t) for t in texts], batch_size=16, show_progress_bar=False)
        return np.asarray(scores, dtype=np.float64).reshape(-1)
