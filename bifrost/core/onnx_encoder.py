"""The embedding model on onnxruntime: the plain BERT sentence encoder (`bert_encoder`) exported once to ONNX
from the model's own weights (`export_onnx`, with torch, at build time), then run with onnxruntime's optimised
kernels; onnxruntime imports in a fraction of torch's time, so a cold `ask` and `serve` start sooner.

fp32, same tokenizer, same batches of like length (`encoder_batches`): its vectors agree with the torch
encoder's to about 1e-7 (tests/unit/bifrost/core/test_onnx_encoder.py). They are not bit-identical, so the
vectors a home stores are keyed by the runtime that made them (`embeddings.SentenceTransformerEmbedder.key`):
the two are never mixed in one index. The export sits in the home (``models/onnx/``) with a card naming the
model folder, its version and the export's sha256; a missing or corrupt export is one error line naming the
command that makes it again (`bifrost build encoder`)."""

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
    """Export the plain BERT encoder of ``model_folder`` to ONNX (dynamic batch and length; mean pooling and
    L2 inside the graph) and write its card; the ONNX file."""
    import torch

    from bifrost.core.bert_encoder import _plain_bert, BertEncoder

    config = _plain_bert(model_folder)
    if config is None:
        raise ModelUnavailableError(f"{model_folder} is not a plain mean-pooled BERT model: no ONNX export")
    encoder = BertEncoder(model_folder, config)

    class Graph(torch.nn.Module):
        def forward(self, ids: Any, types: Any, mask: Any) -> Any:
            h = encoder._forward(ids, types, mask)
            m = mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(dim=1) / torch.clamp(m.sum(dim=1), min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    onnx_path, card_path = export_paths(onnx_dir, model_folder)
    onnx_dir.mkdir(parents=True, exist_ok=True)
    example = torch.ones((2, 8), dtype=torch.long)
    mask = example.clone()
    mask[1, 5:] = 0  # a padded row: the trace takes the masked attention path, which every batch needs
    with atomic_file(onnx_path) as tmp, torch.inference_mode(), warnings.catch_warnings():
        # the trace takes the masked path on purpose (the padded example row): its branch warning says so
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        torch.onnx.export(
            Graph(),
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
