"""``python -m bifrost.eval.extraction score``: an extractor's P/R/F1 on a gold file, as a table or JSON.

python -m bifrost.eval.extraction score --gold tests/fixtures/extraction/osha_lmpx_gold.jsonl --extractor
offline [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bifrost.core.errors import BifrostError, NotFoundError, SourceParseError
from bifrost.core.settings import Settings
from bifrost.core.types import Extraction, Provision, make_uid
from bifrost.eval.extraction.gold import GoldProvision, load_gold
from bifrost.eval.extraction.matching import Lemmatizer, identity_lemma
from bifrost.eval.extraction.scoring import MEASURES, ExtractionScores, score_extractions


def load_provisions(
    corpus: str, settings: Settings, home: Path | None, sources: Sequence[Path]
) -> list[Provision]:
    """The corpus's provisions: from an ingested store (``home``, read only) or parsed from sources."""
    from bifrost.core.store.sql_store import SqlStore

    if home is not None:
        store = SqlStore(Settings(home=home).sql_url)
        try:
            return store.provisions(corpus)
        finally:
            store.dispose()
    from bifrost.graph_builders.ingest import default_sources
    from bifrost.graph_builders.jurisdictions.registry import pack_of
    from bifrost.graph_builders.scrape.sniff import read_source

    paths = list(sources) or default_sources(settings, corpus)
    pack = pack_of(corpus)
    opts = pack.ingest_options(settings.resolve_shared_dir())
    return [p for path in paths for p in read_source(path, corpus, pack.formats, **opts).provisions]


def run_extractor(
    gold: Sequence[GoldProvision], kind: str, settings: Settings, home: Path | None, sources: Sequence[Path]
) -> dict[str, Extraction]:
    """Extractions of the gold provisions by the ``offline`` (or ``llm``) extractor, keyed by uid."""
    from bifrost.core.resources import Resources
    from bifrost.graph_builders.entities.extractors import make_entity_extractor

    out: dict[str, Extraction] = {}
    for corpus in dict.fromkeys(g.corpus for g in gold):
        wanted = {g.provision_id for g in gold if g.corpus == corpus}
        found = [p for p in load_provisions(corpus, settings, home, sources) if p.id in wanted]
        missing = wanted - {p.id for p in found}
        if missing:
            raise NotFoundError(f"gold provisions not in corpus {corpus!r}: {sorted(missing)}")
        extractor = make_entity_extractor(Resources(settings), corpus, kind)
        out.update((make_uid(ex.corpus, ex.provision_id), ex) for ex in extractor.extract_many(found))
    return out


def read_predictions(path: Path) -> dict[str, Extraction]:
    """Extractions saved as JSONL (one `Extraction` per line), keyed by uid."""
    try:
        rows = [
            Extraction.model_validate_json(line)
            for line in Path(path).read_text().splitlines()
            if line.strip()
        ]
    except (OSError, ValueError) as e:
        raise SourceParseError(path, f"cannot read predictions: {str(e).splitlines()[0]}") from e
    return {make_uid(ex.corpus, ex.provision_id): ex for ex in rows}


def render(s: ExtractionScores) -> str:
    """A plain-text table: one row per subpart, then the macro and micro averages."""
    head = f"{'':8}" + "".join(f"{m:>24}" for m in MEASURES)
    sub = f"{'':8}" + "      P     R    F1   " * len(MEASURES)
    rows = [(k, v) for k, v in s.per_subpart.items()] + [("macro", s.macro), ("micro", s.micro_all)]
    lines = [f"extractor {s.extractor or '?'} on {s.provisions} gold provisions", head, sub]
    for name, scores in rows:
        lines.append(
            f"{name:8}"
            + "".join(
                f"{scores[m].precision:7.3f}{scores[m].recall:6.3f}{scores[m].f1:6.3f}   " for m in MEASURES
            )
        )
    if s.missing_predictions:
        lines.append(f"no prediction for: {', '.join(s.missing_predictions)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bifrost.eval.extraction", description=__doc__.splitlines()[0]
    )
    sub = ap.add_subparsers(dest="command", required=True)
    sc = sub.add_parser("score", help="score an extractor (or saved predictions) against a gold file")
    sc.add_argument(
        "--gold", type=Path, required=True, help="gold JSONL (see tests/fixtures/extraction/README.md)"
    )
    src = sc.add_mutually_exclusive_group()
    src.add_argument("--extractor", choices=["offline", "llm"], default="offline", help="extractor to run")
    src.add_argument("--predictions", type=Path, help="score saved Extraction JSONL instead of running one")
    sc.add_argument(
        "--home", type=Path, help="read provisions from this ingested BIFROST_HOME (else parse sources)"
    )
    sc.add_argument(
        "--source", type=Path, nargs="*", default=[], help="source files (default: the corpus's shared files)"
    )
    sc.add_argument("--save-predictions", type=Path, help="write the extractions as JSONL")
    sc.add_argument(
        "--lemmatizer", choices=["spacy", "none"], default="spacy", help="relation word lemmatizer"
    )
    sc.add_argument("--details", action="store_true", help="include per-provision scores in --json")
    sc.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    try:
        settings = Settings()
        gold = load_gold(args.gold)
        t0 = time.perf_counter()
        if args.predictions:
            preds, name = read_predictions(args.predictions), str(args.predictions)
        else:
            preds, name = (
                run_extractor(gold, args.extractor, settings, args.home, args.source),
                args.extractor,
            )
        seconds = time.perf_counter() - t0
        if args.save_predictions:
            args.save_predictions.write_text("".join(ex.model_dump_json() + "\n" for ex in preds.values()))
        lemmatize: Lemmatizer = identity_lemma
        if args.lemmatizer == "spacy":
            from bifrost.eval.extraction.lemmas import SpacyVerbLemmatizer

            lemmatize = SpacyVerbLemmatizer(settings.spacy_model)
        scores = score_extractions(gold, preds, lemmatize, extractor=name, details=args.details)
    except BifrostError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        out = scores.model_dump(mode="json", exclude_none=True)
        out.update(gold=str(args.gold), lemmatizer=args.lemmatizer, extract_seconds=round(seconds, 3))
        print(json.dumps(out, indent=1))
    else:
        print(render(scores))
    return 0
