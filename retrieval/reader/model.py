"""The reader as it lives in the home: ``models/reader-<corpus>/`` holds the int8 ONNX cross-encoder,
its tokenizer and ``reader-card.json`` (what it was trained on, for which ranker and embedding model,
and the cuts chosen on out-of-set scores). Question time needs onnxruntime and tokenizers only (no
torch); one `InferenceSession` per reader, single-threaded unless told otherwise."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from bifrost.core.extras import has_module
from bifrost.retrieval.cross_encoders import JsonCard, model_folder

log = logging.getLogger(__name__)

CARD = "reader-card.json"
MODEL = "model-int8.onnx"
TOKENIZER = "tokenizer.json"
MAX_LENGTH = 160
"""Word pieces read per pair: the question and a provision's first sentences (subject and duty)."""
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def reader_folder(home: Path, corpus: str) -> Path:
    """``$BIFROST_HOME/models/reader-<corpus>/``."""
    return model_folder(home, "reader", corpus)


@dataclass
class Cuts:
    """Reader probabilities that decide, chosen on out-of-set scores (`bifrost.eval.reader`)."""

    cite: float = 0.5  # a read provision at or above it states what is asked: it is cited
    stated: float = 0.0  # best score over the top provisions below it: "not stated"


@dataclass
class ReaderCard(JsonCard):
    """What a reader was trained on, and how, and the figures it was validated with."""

    FILE: ClassVar[str] = CARD

    corpus: str
    base_model: str
    embedding_model: str = ""
    # the ranker whose candidates gave the hard negatives and whose lists the cuts were read on
    ranker_sha256: str = ""
    max_length: int = MAX_LENGTH
    trainable_layers: int = 2
    epochs: int = 1
    seed: int = 13
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"path", "sha256"}]
    examples: dict[str, int] = field(default_factory=dict)
    cuts: dict[str, float] = field(default_factory=lambda: asdict(Cuts()))
    figures: dict[str, Any] = field(default_factory=dict)
    steps: int = 0
    seconds: float = 0.0
    loss_first: float | None = None
    loss_last: float | None = None
    trained_at: str = ""

    @property
    def cut(self) -> Cuts:
        return Cuts(**self.cuts)


class Reader:
    """The ONNX cross-encoder of one folder (safe to share between threads)."""

    def __init__(self, folder: Path, threads: int = 1) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.folder = Path(folder)
        self.card = ReaderCard.read(self.folder)
        self.tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER))
        self.tokenizer.enable_truncation(self.card.max_length, strategy="longest_first")
        self.tokenizer.enable_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads  # this session's threads only: nothing process-wide
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(self.folder / MODEL), options, providers=["CPUExecutionProvider"]
        )
        self._names = [i.name for i in self.session.get_inputs()]
        self._lock = threading.Lock()

    def score(self, question: str, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        """Probability, per text, that it states what the question asks (0..1)."""
        out: list[np.ndarray] = []
        for i in range(0, len(texts), batch):
            chunk = texts[i : i + batch]
            with self._lock:  # the tokenizer's padding state is shared
                encs = self.tokenizer.encode_batch([(question, t) for t in chunk])
            feed = {
                "input_ids": np.array([e.ids for e in encs], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64),
            }
            logits = self.session.run(None, {n: feed[n] for n in self._names})[0].reshape(-1)
            out.append(1.0 / (1.0 + np.exp(-logits.astype(np.float64))))
        return np.concatenate(out) if out else np.zeros(0)


def stale_reason(card: ReaderCard, corpus: str, embedding_model: str, ranker_sha256: str) -> str | None:
    """Why a stored reader does not fit this home (another corpus, embedding model or ranker), else None."""
    if card.corpus != corpus:
        return f"it was trained for corpus {card.corpus!r}"
    if embedding_model and card.embedding_model and card.embedding_model != embedding_model:
        return f"it was trained with embedding model {card.embedding_model!r}, not {embedding_model!r}"
    if card.ranker_sha256 != ranker_sha256:
        return "the ranker was retrained since (its cuts were read on the old ranker's lists)"
    return None


def load_reader(
    folder: Path, corpus: str, embedding_model: str, ranker_sha256: str, threads: int = 1
) -> Reader | None:
    """The reader of ``folder``, or None with one warning line when it is missing, stale or corrupt (the
    answer then comes from the ranker's cited set, as without a reader)."""
    retrain = f"; answers use the ranker's cited set until `bifrost train reader --corpus {corpus}`"
    if not (folder / CARD).is_file():
        if ranker_sha256:  # a trained home without a reader: say so once
            log.warning("no reader trained for %s%s", corpus, retrain)
        return None
    try:
        card = ReaderCard.read(folder)
    except (OSError, ValueError, TypeError) as e:
        log.warning("reader card %s is unreadable (%s)%s", folder / CARD, type(e).__name__, retrain)
        return None
    if (why := stale_reason(card, corpus, embedding_model, ranker_sha256)) is not None:
        log.warning("the reader of %s is not used: %s%s", corpus, why, retrain)
        return None
    if not has_module("onnxruntime"):
        log.warning(
            "the reader of %s is not used: it needs the 'experiments' extra (pip install "
            "'bifrost-rag[experiments]')",
            corpus,
        )
        return None
    try:
        return Reader(folder, threads)
    except Exception as e:  # noqa: BLE001 - a corrupt model file must not stop answering
        first = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
        log.warning("the reader model in %s is corrupt (%s)%s", folder, first, retrain)
        return None
