"""Benchmark of the incremental entity network: full offline build vs update after 1% of provisions changed.

Works on a COPY of a built home (it rewrites provisions and the entity network), e.g.
``cp -a .bifrost-demo /tmp/bench-home``. Steps, all through `build_corpus_entities` (offline
extractor, embedded store; the dense index and the navigator are not part of the figures):

1. full: the corpus's entity network, its extraction journal rows and the name-vector cache are
   removed, then the network is built from scratch (every provision parsed, every name embedded,
   every row, node and edge written): the baseline.
2. edit: ``--share`` of the non-reserved provisions with text, drawn with ``random.Random(--seed)``,
   get a text edit (one sentence appended, the kind of change an amendment makes), written through
   ``SqlStore.upsert_provisions``.
3. incremental: the same build again; only the edited provisions are parsed.
4. unchanged: the same build once more; nothing is parsed, embedded or written.

Prints one JSON object with seconds per step, the ratio incremental / full (target <= 0.10), and
what each step parsed, embedded and changed. The machine is shared: compare ratios of one run.

    HF_HUB_OFFLINE=1 python -m benchmarks.edition_bench --home /tmp/bench-home [--share 0.01] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from sqlalchemy import delete

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables
from bifrost.graph_builders.entities.checkpoint import ExtractionJournal, journal_table
from bifrost.graph_builders.entities.pipeline import build_corpus_entities

EDIT = " The employer shall keep a written record of compliance with this paragraph."


def clear_network(bf: Bifrost, corpus: str) -> None:
    """Remove every trace of an earlier entity build: SQL rows, graph nodes, journal, vector cache."""
    with bf.sql.session() as s:
        entity_tables.clear_entity_tables(s, corpus)
        entity_tables.clear_text_vectors(s)
    bf.graph.delete_nodes(sorted(bf.graph.node_uids(corpus, "Entity")))
    journal = ExtractionJournal.at_path(bf.settings.home / "extraction_journal.db")
    with journal.engine.begin() as conn:
        conn.execute(delete(journal_table).where(journal_table.c.corpus == corpus))
    journal.close()


def edit_provisions(bf: Bifrost, corpus: str, share: float, seed: int) -> list[str]:
    """Append a sentence to ``share`` of the provisions with text (fixed seed); returns their ids."""
    candidates = [p for p in bf.sql.provisions(corpus) if not p.reserved and (p.text or "").strip()]
    chosen = random.Random(seed).sample(candidates, max(1, round(share * len(candidates))))
    with bf.sql.session() as s:
        bf.sql.upsert_provisions(s, [p.model_copy(update={"text": p.text + EDIT}) for p in chosen])
    return sorted(p.id for p in chosen)


def timed_build(bf: Bifrost, corpus: str) -> dict:
    t0 = time.perf_counter()
    report = build_corpus_entities(bf.resources, corpus, "offline")
    seconds = round(time.perf_counter() - t0, 1)
    return {
        "seconds": seconds,
        "entities": report.entities,
        "triples": report.relations,
        "parsed": report.extracted,
        "from_journal": report.from_journal,
        "texts_embedded": report.texts_embedded,
        "changes": report.changes.model_dump(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="a COPY of a built home (it is modified)")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--share", type=float, default=0.01, help="share of provisions edited (default 0.01)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--skip-full", action="store_true", help="reuse the journal of an earlier full step")
    args = ap.parse_args()
    if not (args.home / "bifrost.db").is_file():
        ap.error(f"--home {args.home}: no bifrost.db there; copy a built home first")
    bf = Bifrost(Settings(home=args.home))
    try:
        bf.embedder.embed(["warm up"])  # model loading is not part of any step
        out: dict = {"corpus": args.corpus, "share": args.share, "seed": args.seed}
        if not args.skip_full:
            clear_network(bf, args.corpus)
            out["full"] = timed_build(bf, args.corpus)
        out["edited"] = edit_provisions(bf, args.corpus, args.share, args.seed)
        out["incremental"] = timed_build(bf, args.corpus)
        out["unchanged"] = timed_build(bf, args.corpus)
        if "full" in out:
            out["ratio_incremental_to_full"] = round(
                out["incremental"]["seconds"] / out["full"]["seconds"], 4
            )
            out["ratio_unchanged_to_full"] = round(out["unchanged"]["seconds"] / out["full"]["seconds"], 4)
    finally:
        bf.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
