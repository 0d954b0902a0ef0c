"""Parse ADGM passage files (ObliQA `documents/N.json`) into provisions, one per passage.

Each file is a JSON list of `{ID, DocumentID, PassageID, Passage}`. A provision's id is the
passage UUID (`ID`), so ADGM question sets' gold ids match; its parent is the passage of the
nearest ancestor PassageID in the same document (see CONVENTIONS.md, "ADGM").
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bifrost.core.errors import CitationError, SourceParseError
from bifrost.core.types import ParsedDocument, Provision, ProvisionKind, SourceDocument
from bifrost.graph_builders.jurisdictions.adgm.citation import AdgmCitation, segment_kind
from bifrost.graph_builders.jurisdictions.adgm.documents import document_title

FORMAT = "adgm-json"
KEYS = ("ID", "DocumentID", "PassageID", "Passage")
ORDER_STRIDE = 100_000  # order = DocumentID * stride + position, so documents never interleave

_KINDS = {
    "part": ProvisionKind.PART,
    "chapter": ProvisionKind.SUBPART,
    "appendix": ProvisionKind.APPENDIX,
    "guidance": ProvisionKind.NOTE,
    "paragraph": ProvisionKind.PARAGRAPH,
    "section": ProvisionKind.SECTION,
}


@dataclass(frozen=True)
class Passage:
    """One validated record of a passage file."""

    uuid: str
    document_id: str
    passage_id: str
    text: str


def document_label(document_id: str, title: str) -> str:
    """`Provision.document` for ADGM: `"<DocumentID>: <title>"`, e.g. `"7: General Rulebook (GEN)"`."""
    return f"{document_id}: {title}"


def document_id_of(provision: Provision) -> str | None:
    """The DocumentID of an ADGM provision (inverse of :func:`document_label`)."""
    if not provision.document or ":" not in provision.document:
        return None
    return provision.document.partition(":")[0].strip() or None


def read_passages(path: Path) -> list[Passage]:
    """Load and validate a passage file; an unreadable file or a bad record raises SourceParseError naming
    it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SourceParseError(path, f"cannot read file: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise SourceParseError(path, f"not UTF-8 text (byte {e.start}); save the file as UTF-8") from e
    except json.JSONDecodeError as e:
        raise SourceParseError(path, f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from e
    except RecursionError as e:
        raise SourceParseError(path, "JSON nested too deeply to read") from e
    if not isinstance(data, list):
        raise SourceParseError(
            path, f"expected a JSON list of passages {{{', '.join(KEYS)}}}, got {type(data).__name__}"
        )
    out = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict) or any(k not in rec for k in KEYS):
            missing = [k for k in KEYS if not isinstance(rec, dict) or k not in rec]
            raise SourceParseError(
                path, f"record {i}: missing {', '.join(missing)}; every passage needs {', '.join(KEYS)}"
            )
        uuid, pid, text = rec["ID"], rec["PassageID"], rec["Passage"]
        if not isinstance(uuid, str) or not uuid.strip():
            raise SourceParseError(
                path, f"record {i}: field ID is {uuid!r}; expected a non-empty UUID string"
            )
        if (
            not isinstance(pid, str)
            or not isinstance(text, str)
            or not isinstance(rec["DocumentID"], (int, str))
        ):
            raise SourceParseError(
                path, f"record {i} ({uuid}): PassageID and Passage must be strings, DocumentID a number"
            )
        out.append(Passage(uuid.strip(), str(rec["DocumentID"]).strip(), pid, text))
    return out


def _citation(pid: str) -> AdgmCitation | None:
    try:
        return AdgmCitation.parse(pid)
    except CitationError:
        return None


def _parents(passages: Sequence[Passage], cits: Sequence[AdgmCitation | None]) -> list[str | None]:
    """Parent UUID per passage: the nearest ancestor id present in the document.

    Where an id occurs twice (list items `1.`..`8.` inside chapter 2 beside chapter `1.`), the
    candidate followed directly by its own descendant (a heading) wins, then the latest before the child.
    """
    where: dict[str, list[int]] = {}
    for i, c in enumerate(cits):
        if c is not None:
            where.setdefault(str(c), []).append(i)
    opens = [
        i + 1 < len(cits) and c is not None and cits[i + 1] is not None and c.is_ancestor_of(cits[i + 1])  # type: ignore[arg-type]
        for i, c in enumerate(cits)
    ]
    parents: list[str | None] = []
    for j, c in enumerate(cits):
        parent = None
        for anc in c.ancestors() if c is not None else ():
            cands = where.get(str(anc))
            if cands:
                best = max(cands, key=lambda i: (i < j, opens[i], i if i < j else -i))
                parent = passages[best].uuid
                break
        parents.append(parent)
    return parents


def _order_base(document_id: str) -> int:
    return int(document_id) * ORDER_STRIDE if document_id.isascii() and document_id.isdigit() else 0


def passages_to_provisions(passages: Sequence[Passage], corpus: str) -> tuple[list[Provision], list[str]]:
    """Provisions for the passages of one file (any number of documents), and the oddities found."""
    oddities: list[str] = []
    by_doc: dict[str, list[Passage]] = {}
    for p in passages:
        by_doc.setdefault(p.document_id, []).append(p)
    provisions: list[Provision] = []
    seen: set[str] = set()
    for doc_id, doc_passages in by_doc.items():
        label = document_label(doc_id, document_title(doc_id, doc_passages[0].passage_id))
        cits = [_citation(p.passage_id) for p in doc_passages]
        parents = _parents(doc_passages, cits)
        dup = Counter(str(c) for c in cits if c is not None)
        for key, n in sorted(dup.items()):
            if n > 1:
                oddities.append(
                    f"document {doc_id}: PassageID {key!r} occurs {n} times (kept as distinct passages)"
                )
        base = _order_base(doc_id)
        for pos, (p, cit, parent) in enumerate(zip(doc_passages, cits, parents, strict=True)):
            if p.uuid in seen:
                oddities.append(
                    f"document {doc_id}: passage ID {p.uuid} repeated at PassageID {p.passage_id!r}; kept "
                    "the first"
                )
                continue
            seen.add(p.uuid)
            if cit is None:
                oddities.append(
                    f"document {doc_id}: PassageID {p.passage_id!r} rejected by the ADGM grammar; kept "
                    "without parent"
                )
            elif any(segment_kind(s) == "other" for s in cit.segments):
                oddities.append(f"document {doc_id}: PassageID {p.passage_id!r} has text glued into it")
            provisions.append(
                Provision(
                    corpus=corpus,
                    id=p.uuid,
                    parent_id=parent,
                    kind=_KINDS[cit.kind] if cit is not None else ProvisionKind.SECTION,
                    heading=" ".join(p.passage_id.split()),
                    text=p.text.strip(),
                    level=cit.level if cit is not None else 0,
                    order=base + pos,
                    document=label,
                )
            )
    return provisions, oddities


def parse_adgm_json(path: Path, corpus: str = "adgm", **_other_formats: object) -> ParsedDocument:
    """Parse one ADGM passage file into a ParsedDocument (the parser `sniff.read_source` picks)."""
    path = Path(path)
    provisions, oddities = passages_to_provisions(read_passages(path), corpus)
    checksum = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    document = SourceDocument(corpus=corpus, name=path.name, format=FORMAT, checksum=checksum)
    return ParsedDocument(document=document, provisions=tuple(provisions), oddities=tuple(oddities))


def adgm_files(paths: Path | Iterable[Path]) -> list[Path]:
    """The passage files named, or every `*.json` of a folder, in DocumentID order."""
    if isinstance(paths, (str, Path)) and Path(paths).is_dir():
        files = list(Path(paths).glob("*.json"))
        numbered = lambda f: f.stem.isascii() and f.stem.isdigit()  # noqa: E731 - `².json` is not file 2
        return sorted(files, key=lambda f: (not numbered(f), int(f.stem) if numbered(f) else 0, f.name))
    return [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]


def parse_adgm_documents(paths: Path | Iterable[Path], corpus: str = "adgm") -> list[ParsedDocument]:
    """Parse several passage files (or a folder of them): one ParsedDocument per file."""
    return [parse_adgm_json(f, corpus) for f in adgm_files(paths)]
