"""Vectors of every provision sentence of a corpus, written with its index files, so that an answer
quotes without encoding its provisions' sentences at question time (0.25 s of the paper question's answer).

Per embedding model: ``index/<corpus>/sentences-<model>.json`` lists the texts in row order and names
the matrix ``sentences-<model>-<hash>.npy``. Keyed by text: a sentence whose text is stored gets its
stored vector, any other is encoded as before, so a stale file is never wrong, only slower. A rebuild
encodes only the sentences that are new.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from bifrost.core.atomic_files import save_npy, write_json
from bifrost.core.embeddings import Embedder
from bifrost.core.types import Provision, content_hash
from bifrost.retrieval.channels.dense import embed_reusing, model_slug

log = logging.getLogger(__name__)


class StoredRows(Mapping[str, np.ndarray]):
    """Text -> stored vector over a (memory-mapped) matrix whose rows are ``texts`` in order."""

    def __init__(self, texts: Sequence[str], matrix: np.ndarray, name: str = "") -> None:
        self.row = {t: n for n, t in enumerate(texts)}
        self.matrix, self.name = matrix, name

    def __getitem__(self, text: str) -> np.ndarray:
        return self.matrix[self.row[text]]

    def __contains__(self, text: object) -> bool:
        return text in self.row

    def __iter__(self) -> Iterator[str]:
        return iter(self.row)

    def __len__(self) -> int:
        return len(self.row)


class StoredSentences:
    """`Embedder` that reads the stored sentence vectors and encodes only the texts they lack
    (the question, a past edition's changed sentences) with the embedding model."""

    def __init__(self, embedder: Embedder, stored: StoredRows) -> None:
        self.embedder, self.stored = embedder, stored

    @property
    def dim(self) -> int:
        return self.embedder.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-norm float32 rows for ``texts``: stored ones read, the others encoded in one batch."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of strings, got a single str; wrap it in a list")
        if not texts:
            return self.embedder.embed([])
        return embed_reusing(texts, self.embedder.embed, self.stored)


def names(folder: Path, model: str) -> tuple[Path, str]:
    """The listing of ``model``'s sentence vectors in an index folder, and the prefix of its matrices."""
    slug = model_slug(model)
    return folder / f"sentences-{slug}.json", f"sentences-{slug}-"


def corpus_sentences(provisions: Sequence[Provision], split: Callable[[str], list[str]]) -> list[str]:
    """Every distinct sentence of the provisions' texts, in reading order."""
    return list(dict.fromkeys(s for p in provisions for s in split(p.text or "")))


def load(folder: Path, model: str) -> StoredRows | None:
    """The stored vectors of ``model`` in ``folder``; None when there are none, or (with one warning
    line) when they are unreadable."""
    listing, _ = names(folder, model)
    try:
        meta = json.loads(listing.read_text(encoding="utf-8"))
        name, texts = meta["matrix"], meta["texts"]
        matrix = np.load(folder / name, mmap_mode="r")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("ignoring unreadable sentence vectors %s: %s", listing.name, e)
        return None
    if matrix.ndim != 2 or matrix.shape[0] != len(texts):
        log.warning(
            "ignoring sentence vectors %s: %d rows for %d texts", listing.name, matrix.shape[0], len(texts)
        )
        return None
    return StoredRows(texts, matrix, name)


def write(folder: Path, model: str, texts: list[str], embed: Callable[[list[str]], np.ndarray]) -> int:
    """Store the vectors of ``texts`` (stored ones copied, the others encoded); returns how many were
    encoded. The matrix is written first under a new name, then the listing that names it, so a reader
    never sees one without the other; this model's older matrices are removed."""
    listing, prefix = names(folder, model)
    matrix_name = f"{prefix}{content_hash(*texts)}.npy"
    stored = load(folder, model)
    if stored is not None and stored.name == matrix_name:
        return 0
    known: Mapping[str, np.ndarray] = stored if stored is not None else {}
    fresh = sum(t not in known for t in texts)
    log.info("encoding %d provision sentences for %s (%d stored)", fresh, listing.name, len(texts) - fresh)
    matrix = embed_reusing(texts, embed, known) if texts else np.zeros((0, 0), dtype=np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    save_npy(folder / matrix_name, matrix)
    write_json(listing, {"matrix": matrix_name, "texts": texts})
    ours = re.compile(re.escape(prefix) + r"[0-9a-f]{16}\.npy")  # not another model's whose name starts alike
    for old in folder.glob(f"{prefix}*.npy"):
        if old.name != matrix_name and ours.fullmatch(old.name):
            old.unlink(missing_ok=True)
    return fresh
