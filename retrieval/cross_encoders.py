"""What a cross-encoder over (question, provision text) pairs needs (the answerability support scorer,
`answerability/support/model.py`): it lives in ``$BIFROST_HOME/models/<kind>-<corpus>/`` beside a JSON card
saying what it was trained on, and scores the probability that a text states what a question asks."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import ClassVar, Protocol, TypeVar

import numpy as np

from bifrost.core.atomic_files import atomic_file

C = TypeVar("C", bound="JsonCard")


class PairScorer(Protocol):
    """A cross-encoder at question time."""

    def score(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Probability, per text, that it states what the question asks (0..1)."""
        ...


def model_folder(home: Path, kind: str, corpus: str) -> Path:
    """``$BIFROST_HOME/models/<kind>-<corpus>/``, the corpus name made safe for a folder."""
    return Path(home) / "models" / f"{kind}-{re.sub(r'[^A-Za-z0-9._-]+', '_', corpus)}"


class JsonCard:
    """A model card (a dataclass) kept as JSON in its model's folder, in the file ``FILE``."""

    FILE: ClassVar[str]

    def save(self, folder: Path) -> None:
        with atomic_file(Path(folder) / self.FILE) as tmp:
            tmp.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")  # type: ignore[call-overload]

    @classmethod
    def read(cls: type[C], folder: Path) -> C:
        return cls(**json.loads((Path(folder) / cls.FILE).read_text(encoding="utf-8")))
