"""The embedding model on onnxruntime: a plain mean-pooled BERT sentence-transformers model (`exportable`)
exported once to ONNX from sentence-transformers' own module (`export_onnx`, with torch, at build time), then
run with onnxruntime's optimised kernels; onnxruntime imports in a fraction of torch's time, so a cold `ask`
and `serve` start sooner.

fp32, same tokenizer, same batches of like length (`encoder_batches`): its vectors agree with
sentence-transformers' to about 1e-7 (tests/unit/bifrost/core/test_onnx_encoder.py). They are not
bit-identical, so the vectors a home stores are keyed by the runtime that made them
(`embeddings.SentenceTransformerEmbedder.key`): the two are never mixed in one index. The export sits in the
home (``models/onnx/``) with a card naming the model folder, its version and the export's sha256; a missing or
corrupt export is one error line naming the command that makes it again (`bifrost build encoder`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import atomic_file
from bifrost.core.encoder_batches import INPUTS, length_batches, padded
from bifrost.core.errors import ModelUnavailableError

_EXPECTED_MODULES = (
    [
        "sentence_transformers.models.Transformer",
        "sentence_transformers.models.Pooling",
        "sentence_transformers.models.Normalize",
    ],
    # the layout sentence-transformers 6 saves (e.g. an encoder fine-tuned by `bifrost train`)
    [
        "sentence_transformers.base.modules.transformer.Transformer",
        "sentence_transformers.sentence_transformer.modules.pooling.Pooling",
        "sentence_transformers.base.modules.normalize.Normalize",
    ],
)


def _read(path: Path) -> dict:
    """A JSON file of the folder, or {} when it is absent."""
    return json.loads(path.read_text()) if path.is_file() else {}


def _mean_pooling(pooling: dict) -> bool:
    """Mean pooling over tokens and nothing else, in either layout's words."""
    flags = {k for k, v in pooling.items() if k.startswith("pooling_mode_") and v is True}
    if "pooling_mode" in pooling:  # sentence-transformers 6: "pooling_mode": "mean"
        return pooling["pooling_mode"] == "mean" and not flags
    return flags == {"pooling_mode_mean_tokens"}


def exportable(folder: Path) -> dict | None:
    """The BERT config (with ``max_seq_length``) of a folder whose export this module runs exactly as
    sentence-transformers does (tokenizer outside the graph, mean pooling and L2 inside), else None."""
    try:
        modules = json.loads((folder / "modules.json").read_text())
        config = json.loads((folder / "config.json").read_text())
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        st_config = json.loads((folder / "sentence_bert_config.json").read_text())
        tokenizer_config = _read(folder / "tokenizer_config.json")
        prompts = _read(folder / "config_sentence_transformers.json").get("prompts") or {}
    except (OSError, ValueError):
        return None
    types = [m.get("type") for m in modules]
    if (
        types not in _EXPECTED_MODULES
        or config.get("model_type") != "bert"
        or not _mean_pooling(pooling)
        or config.get("hidden_act") != "gelu"
        or config.get("position_embedding_type", "absolute") != "absolute"
        or not (folder / "model.safetensors").is_file()
        or not (folder / "tokenizer.json").is_file()
        or st_config.get("do_lower_case")
        or any(prompts.values())
        or st_config.get("module_output_name", "token_embeddings") != "token_embeddings"
    ):
        return None
    # sentence-transformers 6 no longer writes max_seq_length; it then reads the tokenizer's limit
    max_len = st_config.get("max_seq_length") or tokenizer_config.get("model_max_length") or 512
    return {
        **config,
        "max_seq_length": min(int(max_len), int(config.get("max_position_embeddings", max_len))),
    }


REMAKE = "`bifrost build encoder`"
"""The command that makes the export again (named by every error about it)."""


def export_paths(onnx_dir: Path, model_folder: Path) -> tuple[Path, Path]:
    """(the ONNX file, its card) for a model folder, in the home's export folder."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_folder.name)[:60]
    tag = hashlib.sha256(str(model_folder.resolve()).encode()).hexdigest()[:8]
    return onnx_dir / f"{slug}-{tag}.onnx", onnx_dir / f"{slug}-{tag}.json"


def weights_version(model_folder: Path) -> str:
    """The model's weight file as it is now (size and time): an export of other weights is not used."""
    w = model_folder / "model.safetensors"
    return f"{w.stat().st_size}:{w.stat().st_mtime_ns}" if w.is_file() else ""


def export_onnx(model_folder: Path, onnx_dir: Path) -> Path:
    """Export sentence-transformers' module of ``model_folder`` (a folder `exportable` accepts) to ONNX:
    dynamic batch and length, mean pooling and L2 inside the graph; write its card; the ONNX file."""
    import torch
    from sentence_transformers import SentenceTransformer

    config = exportable(model_folder)
    if config is None:
        raise ModelUnavailableError(f"{model_folder} is not a plain mean-pooled BERT model: no ONNX export")
    model = SentenceTransformer(str(model_folder), device="cpu").eval()

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, types: Any, mask: Any) -> Any:
            features = {"input_ids": ids, "token_type_ids": types, "attention_mask": mask}
            return self.model(features)["sentence_embedding"]

    onnx_path, card_path = export_paths(onnx_dir, model_folder)
    onnx_dir.mkdir(parents=True, exist_ok=True)
    example = torch.ones((2, 8), dtype=torch.long)
    mask = example.clone()
    mask[1, 5:] = 0  # a padded row: the trace takes the masked attention path, which every batch needs
    with atomic_file(onnx_path) as tmp, torch.inference_mode(), warnings.catch_warnings():
        # the trace takes the masked path on purpose (the padded example row): its branch warnings say so
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.simplefilter("ignore", UserWarning)
        torch.onnx.export(
            Graph().eval(),
            (example, torch.zeros_like(example), mask),
            str(tmp),
            input_names=["input_ids", "token_type_ids", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "tokens"},
                "token_type_ids": {0: "batch", 1: "tokens"},
                "attention_mask": {0: "batch", 1: "tokens"},
                "embedding": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )
    card = {
        "model_folder": str(model_folder.resolve()),
        "weights": weights_version(model_folder),
        "max_seq_length": int(config["max_seq_length"]),
        "sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
    }
    with atomic_file(card_path) as tmp:  # the card last: a card always describes a whole export
        tmp.write_text(json.dumps(card, indent=2))
    return onnx_path


def has_export(onnx_dir: Path | None, model_folder: Path) -> bool:
    """Whether the home keeps an export of this model (its card is there)."""
    return onnx_dir is not None and export_paths(onnx_dir, model_folder)[1].is_file()


class OnnxEncoder:
    """Unit-norm sentence vectors from the ONNX export of a plain BERT model (see the module docstring)."""

    def __init__(
        self, model_folder: Path, onnx_dir: Path, threads: int | None = 1, workers: int | None = None
    ) -> None:
        """``threads``: onnxruntime's threads within one batch (None: its default, every core);
        ``workers``: how many batches of a long encode run side by side (None: one per core this process
        may use, when ``threads`` is 1; else 1): a corpus build uses every core, a question's batch one."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        onnx_path, card_path = export_paths(onnx_dir, model_folder)
        try:
            card = json.loads(card_path.read_text())
            data = onnx_path.read_bytes()
        except (OSError, ValueError) as e:
            raise ModelUnavailableError(
                f"the ONNX export {onnx_path.name} of the embedding model is missing or unreadable ({e}); "
                f"run {REMAKE} to make it again"
            ) from e
        if hashlib.sha256(data).hexdigest() != card.get("sha256") or card.get("weights") != weights_version(
            model_folder
        ):
            raise ModelUnavailableError(
                f"the ONNX export {onnx_path.name} does not match its card or the model's weights; "
                f"run {REMAKE} to make it again"
            )
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.workers = max(1, workers if workers is not None else (usable_cores() if threads == 1 else 1))
        try:
            self.session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own kinds for a bad model
            raise ModelUnavailableError(
                f"the ONNX export {onnx_path.name} cannot be loaded ({str(e).splitlines()[0][:120]}); "
                f"run {REMAKE} to make it again"
            ) from e
        self.tokenizer = Tokenizer.from_file(str(model_folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=int(card["max_seq_length"]))
        self.tokenizer.no_padding()
        self.dim = int(self.encode(["a"]).shape[1])

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Unit-norm float32 rows, computed in batches of like length (each padded to its longest)."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        enc = self.tokenizer.encode_batch(texts)
        batches = length_batches([len(e.ids) for e in enc], batch_size)

        def run(batch: list[int]) -> np.ndarray:
            return self.session.run(None, padded([enc[i] for i in batch]))[0]

        out: list[np.ndarray | None] = [None] * len(texts)
        if self.workers > 1 and len(batches) > 1:  # onnxruntime releases the GIL: batches on several cores
            with ThreadPoolExecutor(min(self.workers, len(batches))) as pool:
                results = list(pool.map(run, batches))
        else:
            results = [run(batch) for batch in batches]
        for batch, rows in zip(batches, results):
            for i, row in zip(batch, rows):
                out[i] = row
        return np.vstack(out).astype(np.float32, copy=False)


def usable_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
