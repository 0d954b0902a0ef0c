"""The reader trains its top layers on CPU from the shipped MiniLM weights, exports to int8 ONNX with its
tokenizer and card, and scores probabilities that follow the trained network."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.retrieval.reader.examples import ReaderExample
from bifrost.retrieval.reader.model import MODEL, Reader, ReaderCard, reader_folder
from bifrost.training.reader.fit import _top_logits, encode_frozen, fit_reader, load_cross_encoder

BASE = "all-MiniLM-L6-v2"
RAIL, NETS = (
    "Top rails shall be 42 inches above the walking surface.",
    "Safety nets shall be inspected at least once a week.",
)
EXAMPLES = [
    ReaderExample("how high must the top rail be", RAIL, 1.0),
    ReaderExample("how high must the top rail be", NETS, 0.0),
    ReaderExample("how often are the nets inspected", NETS, 1.0),
    ReaderExample("how often are the nets inspected", RAIL, 0.0),
] * 2


def test_the_top_layers_from_cached_frozen_outputs_compute_what_the_whole_network_computes():
    import torch

    cache = encode_frozen(EXAMPLES, BASE, trainable_layers=2, max_length=64, threads=1)
    assert cache.frozen_layers == 4 and len(cache.hidden) == 4  # distinct pairs only
    model = load_cross_encoder(BASE, 64)
    net = model.model.eval()
    pairs = [("how high must the top rail be", RAIL), ("how often are the nets inspected", RAIL)]
    enc = model.tokenizer([q for q, _ in pairs], [t for _, t in pairs], padding=True, return_tensors="pt")
    with torch.no_grad():
        whole = net(**enc).logits.view(-1)
        hidden = torch.nn.utils.rnn.pad_sequence(
            [torch.from_numpy(cache.hidden[p].astype(np.float32)) for p in pairs], batch_first=True
        )
        mask = torch.tensor(
            [[1] * len(cache.hidden[p]) + [0] * (hidden.shape[1] - len(cache.hidden[p])) for p in pairs]
        )
        top = _top_logits(net, cache.frozen_layers, hidden, mask)
    assert torch.allclose(whole, top, atol=2e-2)  # fp16 cache


def test_a_trained_reader_is_exported_with_its_card_and_scores_probabilities(tmp_path):
    out = reader_folder(tmp_path, "mini")
    cache = encode_frozen(EXAMPLES, BASE, trainable_layers=1, max_length=64, threads=1)
    card = fit_reader(
        EXAMPLES,
        cache,
        out,
        ReaderCard(corpus="mini", base_model=BASE),
        epochs=3,
        batch_size=4,
        lr=1e-4,
        threads=1,
    )
    assert (
        card.steps == 6
        and card.trainable_layers == 1
        and card.examples["provision_positive"] == 4
        and card.trained_at
    )
    assert (out / MODEL).is_file() and not (out.parent / (out.name + ".tmp")).exists()
    reader = Reader(out)
    scores = reader.score("how high must the top rail be", [RAIL, NETS])
    assert scores.shape == (2,) and ((0 <= scores) & (scores <= 1)).all()
    assert scores[0] > scores[1]  # it learned the pair it was taught


def test_one_class_or_no_pairs_is_refused(tmp_path):
    cache = encode_frozen(EXAMPLES[:1], BASE, trainable_layers=1, max_length=32, threads=1)
    with pytest.raises(ValueError, match="positive and negative"):
        fit_reader(EXAMPLES[:1], cache, tmp_path / "r", ReaderCard(corpus="mini", base_model=BASE))
    with pytest.raises(ValueError, match="trainable layers must be 1..6"):
        encode_frozen(EXAMPLES, BASE, trainable_layers=7, max_length=32)


def test_a_probe_sees_the_network_after_each_epoch_and_nothing_is_exported(tmp_path):
    cache = encode_frozen(EXAMPLES, BASE, trainable_layers=1, max_length=64, threads=1)
    seen = []
    pairs = [("how high must the top rail be", RAIL), ("how high must the top rail be", NETS)]
    fit_reader(
        EXAMPLES,
        cache,
        None,
        ReaderCard(corpus="mini", base_model=BASE),
        epochs=3,
        batch_size=4,
        lr=1e-4,
        head_lr=1e-3,
        threads=1,
        on_epoch=lambda epoch, loss, logits: seen.append((epoch, loss, logits(pairs))),
    )
    assert [e for e, _, _ in seen] == [1, 2, 3] and all(np.isfinite(loss) for _, loss, _ in seen)
    # the taught pair pulls apart by epoch
    assert seen[-1][2][0] - seen[-1][2][1] > seen[0][2][0] - seen[0][2][1]
    assert not any(tmp_path.iterdir())
