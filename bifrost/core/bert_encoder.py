"""A BERT sentence encoder in plain torch, for fast starts: mean-pooled, L2-normalized sentence
vectors from a sentence-transformers folder (BertModel + mean Pooling + Normalize, such as the
packaged all-MiniLM-L6-v2), without importing ``transformers`` or ``sentence_transformers``.

Importing those two costs several seconds and about 270 MB per process; this module needs only
torch, ``tokenizers`` and ``safetensors``. It repeats their computation step by step (same
tokenizer file, same length-sorted batches, same torch operations in the same order, same sdpa
mask), so the vectors are bit-identical: tests/unit/bifrost/core/test_bert_encoder.py compares
them with sentence-transformers. Any other architecture returns None from `load_bert_encoder`
and the embedder falls back to sentence-transformers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

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


def _plain_bert(folder: Path) -> dict | None:
    """The BERT config of a folder this encoder reproduces exactly, else None."""
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
    return {**config, "max_seq_length": int(max_len)}  # BertEncoder caps it at max_position_embeddings


class BertEncoder:
    """Sentence vectors of a plain BERT sentence-transformers model (see the module docstring)."""

    def __init__(self, folder: Path, config: dict) -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.torch = torch
        self.config = config
        self.dim = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.layers = int(config["num_hidden_layers"])
        weights = load_file(str(folder / "model.safetensors"))
        self.w = {k.removeprefix("bert.").removeprefix("model."): v for k, v in weights.items()}
        max_len = min(config["max_seq_length"], int(config["max_position_embeddings"]))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_len)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id") or 0), pad_token="[PAD]")

    def _linear(self, x: Any, name: str) -> Any:
        return self.torch.nn.functional.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def _norm(self, x: Any, name: str) -> Any:
        return self.torch.nn.functional.layer_norm(
            x, (self.dim,), self.w[name + ".weight"], self.w[name + ".bias"], self.eps
        )

    def _forward(self, ids: Any, types: Any, mask: Any) -> Any:
        """Last hidden states of BertModel (sdpa attention, eval mode) for one batch."""
        torch, F = self.torch, self.torch.nn.functional
        b, s = ids.shape
        pos = torch.arange(s).expand((1, -1))
        h = F.embedding(ids, self.w["embeddings.word_embeddings.weight"], padding_idx=0)
        h = h + F.embedding(types, self.w["embeddings.token_type_embeddings.weight"])
        h = h + F.embedding(pos, self.w["embeddings.position_embeddings.weight"])
        h = self._norm(h, "embeddings.LayerNorm")
        attn_mask = None if bool(mask.all()) else mask.bool()[:, None, None, :].expand(b, 1, s, s)
        head = self.dim // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self._linear(h, p + "attention.self.query").view(b, s, -1, head).transpose(1, 2)
            k = self._linear(h, p + "attention.self.key").view(b, s, -1, head).transpose(1, 2)
            v = self._linear(h, p + "attention.self.value").view(b, s, -1, head).transpose(1, 2)
            a = F.scaled_dot_product_attention(
                q, k, v, attn_mask=attn_mask, dropout_p=0.0, scale=head**-0.5, is_causal=False
            )
            a = a.reshape(a.shape[0], -1, s, head).transpose(1, 2).contiguous()
            a = a.reshape(b, s, -1).contiguous()
            h1 = self._norm(
                self._linear(a, p + "attention.output.dense") + h, p + "attention.output.LayerNorm"
            )
            m = F.gelu(self._linear(h1, p + "intermediate.dense"))
            h = self._norm(self._linear(m, p + "output.dense") + h1, p + "output.LayerNorm")
        return h

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Unit-norm float32 rows, computed in batches of like length (`encoder_batches`), each padded to its
        longest text."""
        from bifrost.core.encoder_batches import length_batches, padded

        torch, F = self.torch, self.torch.nn.functional
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        self.tokenizer.no_padding()
        enc = self.tokenizer.encode_batch(texts)
        out: list[Any] = [None] * len(texts)
        with torch.inference_mode():
            for batch in length_batches([len(e.ids) for e in enc], batch_size):
                feed = {k: torch.from_numpy(v) for k, v in padded([enc[i] for i in batch]).items()}
                mask = feed["attention_mask"]
                h = self._forward(feed["input_ids"], feed["token_type_ids"], mask)
                m = mask.unsqueeze(-1).to(h.dtype)
                pooled = (h * m).sum(dim=1, dtype=h.dtype) / torch.clamp(
                    m.sum(dim=1, dtype=h.dtype), min=1e-9
                )
                pooled = F.normalize(pooled, p=2, dim=1)  # the Normalize module
                for i, row in zip(
                    batch, F.normalize(pooled, p=2, dim=1)
                ):  # encode(normalize_embeddings=True)
                    out[i] = row
        return torch.stack(out).numpy().astype(np.float32, copy=False)


def load_bert_encoder(location: str) -> BertEncoder | None:
    """A `BertEncoder` for a local sentence-transformers folder it reproduces exactly, else None."""
    folder = Path(location)
    config = _plain_bert(folder) if folder.is_dir() else None
    return BertEncoder(folder, config) if config is not None else None
