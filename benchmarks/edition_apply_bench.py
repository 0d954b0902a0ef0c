"""Benchmark: applying an edition that changes 1% of provisions vs a full build (issue 13).

End to end through the facade, offline extractor, embedded store, in a fresh home:

1. full build of edition A: ingest, navigator, offline entity network (empty journal and vector
   cache, so every provision is parsed and every name embedded): the baseline;
2. edition B is made from A by appending one sentence to ``--share`` of the provision lines of the
   source (``random.Random(--seed)``; lines of the section texts, i.e. paragraphs and definitions);
3. applying B: ingest (a new edition: changed provisions versioned), navigator sync, incremental
   entity update, each timed; then `graph check` must find no difference.

Prints one JSON object: seconds per step, totals, the ratio apply / full (target <= 0.10) and
what B changed. The machine is shared: compare the ratio of one run, not absolute seconds.

    HF_HUB_OFFLINE=1 python -m benchmarks.edition_apply_bench --shared ../shared --work /tmp/edition-bench
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings

EDIT = " The employer shall keep a written record of compliance with this paragraph."


def edition_b(source: Path, target: Path, share: float, seed: int) -> int:
    """Write edition B of a section-list JSON source; returns how many lines were edited."""
    sections = json.loads(source.read_text(encoding="utf-8"))
    lines = [
        (i, j)
        for i, s in enumerate(sections)
        for j, line in enumerate(s["content"].split("\n"))
        if line.strip() and not line.startswith("[")
    ]
    chosen = random.Random(seed).sample(lines, max(1, round(share * len(lines))))
    for i, j in chosen:
        parts = sections[i]["content"].split("\n")
        parts[j] += EDIT
        sections[i]["content"] = "\n".join(parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(sections), encoding="utf-8")
    return len(chosen)


def timed(step: str, times: dict, fn):
    t0 = time.perf_counter()
    result = fn()
    times[step] = round(time.perf_counter() - t0, 1)
    return result


def build(bf: Bifrost, corpus: str, source: Path, date: str, prefix: str, times: dict) -> dict:
    report = timed(f"{prefix}_ingest", times, lambda: bf.ingest(corpus, [source], date=date))
    timed(f"{prefix}_navigator", times, lambda: bf.build_navigator(corpus))
    entities = timed(f"{prefix}_entities", times, lambda: bf.build_entities(corpus, "offline"))
    return {
        "added": report.added,
        "updated": len(report.updated),
        "removed": len(report.removed),
        "parsed": getattr(entities, "extracted", None),
        "from_journal": getattr(entities, "from_journal", None),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=Path("../shared"))
    ap.add_argument("--work", type=Path, required=True, help="a scratch folder (emptied first)")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--share", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    source = args.shared / "corpora" / args.corpus / f"part-{args.corpus.split('-')[-1]}.json"
    shutil.rmtree(args.work, ignore_errors=True)
    b_source = args.work / "b" / source.name
    edited = edition_b(source, b_source, args.share, args.seed)
    bf = Bifrost(Settings(home=args.work / "home", shared_dir=args.shared))
    times: dict[str, float] = {}
    try:
        full = build(bf, args.corpus, source, "2025-01-01", "full", times)
        apply = build(bf, args.corpus, b_source, "2026-01-01", "apply", times)
        check = bf.check(args.corpus)
    finally:
        bf.close()
    full_s = sum(v for k, v in times.items() if k.startswith("full_"))
    apply_s = sum(v for k, v in times.items() if k.startswith("apply_"))
    print(
        json.dumps(
            {
                "corpus": args.corpus,
                "lines_edited": edited,
                "share": args.share,
                "seconds": times,
                "full_seconds": round(full_s, 1),
                "apply_seconds": round(apply_s, 1),
                "ratio_apply_to_full": round(apply_s / full_s, 3),
                "full": full,
                "apply": apply,
                "graph_check_ok": check.ok,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
