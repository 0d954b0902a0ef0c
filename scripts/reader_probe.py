"""Does the reader learn to read? One set left out, a reader trained on the others' pairs, scored after each epoch.

Prints, per epoch: the mean training loss, the AUROC on a sample of its own training pairs, and on the
left-out set's ranked top 20 (gold against the rest) the AUROC of the reader, of the ranker's order, and of
the two ranks averaged (does the reader add what the ranker does not know?). The ranker is fitted on the
other sets, as in `bifrost train reader`. Run on a built home (make demo):

    BIFROST_HOME=.bifrost-demo .venv/bin/python scripts/reader_probe.py --left-out osha-natural-dev --layers 2 --epochs 3 \
        --lr 2e-4 --head-lr 1e-3 -q ../shared/eval/osha-loi-dev.jsonl -q eval/questions/osha-near-domain.jsonl \
        -q eval/questions/osha-natural-train.jsonl -q eval/questions/osha-natural-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.training.reader.cv import Options, Trainer, collect_items, fit_ranker, provision_texts, question_sets, ranking
from bifrost.eval.stats import auroc
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.reader.examples import ReaderExample
from bifrost.retrieval.reader.model import ReaderCard
from bifrost.training.reader.fit import encode_frozen, fit_reader


def adgm_pairs(questions: Path, documents: Path, negatives: int = 5, seed: int = 13) -> list[ReaderExample]:
    """(question, gold passage) positives of an ObliQA file and BM25's best non-gold passages as negatives."""
    import random

    import bm25s

    passages = {p["ID"]: p["Passage"].strip() for f in sorted(documents.glob("*.json"))
                for p in json.loads(f.read_text()) if len(p["Passage"].strip()) >= 20}
    ids = sorted(passages)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([passages[i] for i in ids], stopwords="en", show_progress=False), show_progress=False)
    rows = json.loads(questions.read_text())
    found, _ = retriever.retrieve(bm25s.tokenize([r["Question"] for r in rows], stopwords="en", show_progress=False),
                                  k=negatives + 8, show_progress=False)
    rng, out = random.Random(seed), []
    for row, hits in zip(rows, found):
        gold = {p["PassageID"]: p["Passage"].strip() for p in row["Passages"]}
        texts = [t for t in gold.values() if len(t) >= 20]
        out += [ReaderExample(row["Question"], t, 1.0) for t in texts]
        negs = [passages[ids[h]] for h in hits if not any(passages[ids[h]] in t or t in passages[ids[h]] for t in texts)]
        negs = negs[:negatives - 1] + [passages[rng.choice(ids)]]
        out += [ReaderExample(row["Question"], t, 0.0) for t in negs]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-q", "--questions", action="append", type=Path, required=True)
    ap.add_argument("--left-out", required=True, help="the question set (file stem) scored")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--adgm-questions", type=Path, help="an ObliQA file whose pairs join the training pairs")
    ap.add_argument("--adgm-documents", type=Path, default=Path("../shared/corpora/adgm/documents"))
    ap.add_argument("--curve", default="", help="a learning curve: readers on these numbers of the training pairs "
                    "(comma-separated, a random sample each; 'all' for every pair), each scored after every epoch")
    args = ap.parse_args()
    settings = Settings()
    opts = Options(trainable_layers=args.layers, epochs=args.epochs, max_length=args.max_length)
    questions, _ = question_sets(settings, args.corpus, args.questions, print)
    resources = Resources(settings)
    try:
        cfg = RetrievalConfig.from_settings(settings).model_copy(update={"reader": "off"})
        pipe = AskPipeline(resources, cfg)
        texts, own = provision_texts(resources, args.corpus)
        items = collect_items(pipe, args.corpus, questions, cfg, print)
        train = [it for it in items if it.source != args.left_out]
        test = [it for it in items if it.source == args.left_out and it.question.gold]
        ranked = ranking(fit_ranker(train, cfg, opts.seed), items)
        trainer = Trainer(settings, args.corpus, texts, own, pipe.parts(args.corpus).nav, opts, print)
        trainer.index(items)
        pairs = trainer.pairs(train, ranked)
    finally:
        resources.close()
    if args.adgm_questions:
        extra = adgm_pairs(args.adgm_questions, args.adgm_documents)
        print(f"{len(extra)} ADGM pairs join {len(pairs)} OSHA pairs", flush=True)
        pairs = [*pairs, *extra]
    tests = [(it.question.question, ranked[it.question.id], set(it.question.gold)) for it in test]
    probe = [ReaderExample(q, texts[pid], float(pid in gold)) for q, ids, gold in tests for pid in ids if texts.get(pid)]
    sample = pairs[::7]
    cache = encode_frozen([*pairs, *probe], opts.base_model, opts.trainable_layers, opts.max_length, opts.threads)

    def report(epoch: int, loss: float, logits) -> None:
        own_scores = logits([(e.question, e.text) for e in sample])
        scores = logits([(e.question, e.text) for e in probe])
        labels, order, average, at = [], [], [], 0
        for q, ids, gold in tests:
            kept = [pid for pid in ids if texts.get(pid)]
            s = scores[at:at + len(kept)]
            at += len(kept)
            by_reader = np.argsort(np.argsort(-s))
            labels += [pid in gold for pid in kept]
            order += [-r for r in range(len(kept))]
            average += [-(r + by_reader[r]) for r in range(len(kept))]
        print(json.dumps({"epoch": epoch, "loss": round(loss, 4),
                          "train_auroc": round(auroc([e.label for e in sample], own_scores), 3),
                          "left_out_reader_auroc": round(auroc(labels, scores), 3),
                          "left_out_ranker_order_auroc": round(auroc(labels, order), 3),
                          "left_out_rank_average_auroc": round(auroc(labels, average), 3)}), flush=True)

    import random

    sizes = [len(pairs) if n == "all" else int(n) for n in args.curve.split(",") if n] or [len(pairs)]
    for size in sizes:
        subset = pairs if size >= len(pairs) else random.Random(size).sample(pairs, size)
        print(json.dumps({"pairs": len(subset), "positives": sum(e.label > 0 for e in subset)}), flush=True)
        card = ReaderCard(corpus=args.corpus, base_model=opts.base_model)
        fit_reader(subset, cache, None, card, epochs=args.epochs, lr=args.lr, head_lr=args.head_lr, threads=opts.threads,
                   on_epoch=report)


if __name__ == "__main__":
    main()
