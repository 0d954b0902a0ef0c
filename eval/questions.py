"""Evaluation question sets: typed `Question` records and loaders for JSONL, ObliQA and ObliQA-MP.

Every loader returns a `QuestionSet` carrying the file's sha256, so a run records exactly which
questions it answered. Bad input raises `QuestionFileError` naming the file and line (or item):
`check_gold` refuses a set a corpus cannot score, `merge_sets` joins sets that share questions.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bifrost.core.errors import SourceParseError

log = logging.getLogger(__name__)
Format = Literal["auto", "jsonl", "obliqa", "obliqa-mp"]
Say = Callable[[str], None]
_JSONL_KEYS = {"id", "question", "gold", "cited", "answerable", "subparts"}


class QuestionFileError(SourceParseError):
    """A question file that cannot be read: the message names the file and line or item."""


class Question(BaseModel):
    """One evaluation question with its gold provisions; `extra` keeps any other keys for breakdowns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    question: str
    gold: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    answerable: bool = True
    subparts: tuple[str, ...] = ()
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def groups(self) -> tuple[str, ...]:
        """Breakdown labels: the subparts, else an ObliQA `group` tag, else none."""
        if self.subparts:
            return self.subparts
        g = self.extra.get("group")
        return (str(g),) if g is not None else ()


def own_answers(q: Question) -> tuple[str, ...]:
    """What a question must never see as a precedent: its own id and the page it came from (a letter is
    never its own precedent; a question quoted from a letter never sees that letter)."""
    keys = [q.id, *(str(q.extra[k]) for k in ("source_url", "url") if q.extra.get(k))]
    return tuple(dict.fromkeys(k for k in keys if k))


class QuestionSet(BaseModel):
    """Questions read from one file, with the file's format and content hash."""

    path: str
    format: str
    sha256: str
    questions: list[Question]
    where: list[str] = Field(
        default_factory=list, description="Each question's place in the file: 'line N' or 'item N'"
    )

    def place(self, n: int) -> str:
        """Where question ``n`` is in the file (``item n`` when the loader did not say)."""
        return self.where[n] if n < len(self.where) else f"item {n}"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise QuestionFileError(path, f"cannot read: {e}") from e


def parse_jsonl_record(obj: Any, where: str) -> Question:
    """One JSONL object -> Question; `where` ("file:line N") prefixes any error."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in ("id", "question") if k not in obj]
    if missing:
        raise ValueError(f"{where}: missing key(s) {', '.join(missing)}")
    gold = obj.get("gold", [])
    answerable = obj.get("answerable", bool(gold))
    if answerable and not gold:
        raise ValueError(f"{where}: question {obj['id']!r} is answerable but has an empty 'gold'")
    try:
        return Question(
            id=str(obj["id"]),
            question=obj["question"],
            gold=tuple(gold),
            cited=tuple(obj.get("cited", gold)),
            answerable=answerable,
            subparts=tuple(obj.get("subparts", ())),
            extra={k: v for k, v in obj.items() if k not in _JSONL_KEYS},
        )
    except ValidationError as e:
        first = e.errors()[0]
        raise ValueError(f"{where}: field {'.'.join(map(str, first['loc']))}: {first['msg']}") from e


def load_jsonl(path: Path) -> list[Question]:
    """The shared JSONL question format (any corpus); duplicate ids are an error."""
    questions, seen = [], set()
    for n, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise QuestionFileError(path, f"line {n}: invalid JSON ({e.msg} at column {e.colno})") from e
        try:
            q = parse_jsonl_record(obj, f"line {n}")
        except ValueError as e:
            raise QuestionFileError(path, str(e)) from e
        if q.id in seen:
            raise QuestionFileError(path, f"line {n}: duplicate question id {q.id!r}")
        seen.add(q.id)
        questions.append(q)
    if not questions:
        raise QuestionFileError(path, "no questions in file")
    return questions


def _load_json_list(path: Path) -> list[Any]:
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as e:
        raise QuestionFileError(path, f"line {e.lineno}: invalid JSON ({e.msg})") from e
    if not isinstance(data, list):
        raise QuestionFileError(path, f"expected a JSON list of questions, got {type(data).__name__}")
    return data


class PassageIndex:
    """ADGM passages keyed by (DocumentID, PassageID); duplicate keys are told apart by text."""

    def __init__(self, passages: Iterable[dict[str, Any]]) -> None:
        self._by_key: dict[tuple[int, str], list[tuple[str, str]]] = defaultdict(list)
        for p in passages:
            self._by_key[(int(p["DocumentID"]), str(p["PassageID"]))].append(
                (str(p["ID"]), p.get("Passage", ""))
            )

    @classmethod
    def from_dir(cls, documents_dir: Path) -> PassageIndex:
        """Read every `*.json` passage list in the ADGM documents folder."""
        files = sorted(documents_dir.glob("*.json"))
        if not files:
            raise QuestionFileError(documents_dir, "no ADGM document files (*.json); pass documents_dir")
        rows: list[dict[str, Any]] = []
        for f in files:
            rows.extend(_load_json_list(f))
        return cls(rows)

    def resolve(self, document_id: int, passage_id: str, text: str) -> str | None:
        """The corpus UUID of a passage; on a duplicate key, the one whose text matches best."""
        cands = self._by_key.get((int(document_id), str(passage_id)), [])
        if len(cands) <= 1:
            return cands[0][0] if cands else None
        exact = [uid for uid, t in cands if t.strip() == text.strip()]
        if exact:
            return exact[0]
        import difflib

        return max(cands, key=lambda c: difflib.SequenceMatcher(None, c[1], text).ratio())[0]


def _obliqa_record(obj: Any, gold: tuple[str, ...]) -> Question:
    return Question(
        id=str(obj["QuestionID"]),
        question=obj["Question"],
        gold=gold,
        cited=gold,
        answerable=bool(gold),
        extra={"group": obj["Group"]} if "Group" in obj else {},
    )


def load_obliqa(path: Path, documents_dir: Path) -> list[Question]:
    """ObliQA native JSON; gold passages resolved to corpus UUIDs by (DocumentID, PassageID)."""
    index = PassageIndex.from_dir(documents_dir)
    out = []
    for n, obj in enumerate(_load_json_list(path)):
        try:
            gold = []
            for p in obj["Passages"]:
                uid = p.get("ID") or index.resolve(p["DocumentID"], p["PassageID"], p.get("Passage", ""))
                if uid is None:
                    raise ValueError(
                        f"passage ({p['DocumentID']}, {p['PassageID']!r}) is not in {documents_dir}"
                    )
                gold.append(uid)
            out.append(_obliqa_record(obj, tuple(dict.fromkeys(gold))))
        except (KeyError, TypeError, ValueError, ValidationError) as e:
            raise QuestionFileError(path, f"item {n}: {type(e).__name__}: {e}") from e
    return out


def read_qrels(path: Path) -> dict[str, list[str]]:
    """TREC qrels `qid 0 docid rel` -> qid -> relevant doc ids (rel > 0), in file order."""
    qrels: dict[str, list[str]] = defaultdict(list)
    for n, line in enumerate(_read_text(path).splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4 or not parts[3].lstrip("-").isdigit():
            raise QuestionFileError(path, f"line {n}: expected 'qid 0 docid relevance', got {line.strip()!r}")
        if int(parts[3]) > 0:
            qrels[parts[0]].append(parts[2])
    return dict(qrels)


def load_obliqa_mp(path: Path, qrels_path: Path | None = None) -> list[Question]:
    """ObliQA-MultiPassage questions; gold from the TREC qrels (default: qrels_<split>.txt beside)."""
    qrels_path = qrels_path or default_qrels(path)
    qrels = read_qrels(qrels_path) if qrels_path else {}
    out = []
    for n, obj in enumerate(_load_json_list(path)):
        try:
            qid = str(obj["QuestionID"])
            gold = qrels.get(qid) if qrels_path else [p["ID"] for p in obj["Passages"]]
            if gold is None:
                raise ValueError(f"question {qid} has no qrels in {qrels_path}")
            out.append(_obliqa_record(obj, tuple(dict.fromkeys(gold))))
        except (KeyError, TypeError, ValueError, ValidationError) as e:
            raise QuestionFileError(path, f"item {n}: {type(e).__name__}: {e}") from e
    return out


def default_qrels(path: Path) -> Path | None:
    """`qrels_val.txt` beside `ObliQA_MultiPassage_val.json` (split = last `_` part of the stem)."""
    split = path.stem.rsplit("_", 1)[-1]
    cand = path.with_name(f"qrels_{split}.txt")
    return cand if cand.exists() else None


def detect_format(path: Path) -> str:
    """jsonl by extension; a JSON list with QuestionID is obliqa-mp when its passages carry an ID."""
    if path.suffix == ".jsonl":
        return "jsonl"
    data = _load_json_list(path)
    first = data[0] if data else {}
    if not isinstance(first, dict) or "QuestionID" not in first:
        raise QuestionFileError(path, "item 0: unknown question format (expected JSONL, ObliQA or ObliQA-MP)")
    passages = first.get("Passages") or [{}]
    return "obliqa-mp" if "ID" in passages[0] else "obliqa"


def load_questions(
    path: Path | str,
    format: Format = "auto",
    documents_dir: Path | None = None,
    qrels_path: Path | None = None,
) -> QuestionSet:
    """Load a question file in any supported format, recording its sha256."""
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(path, "no such question file")
    fmt = detect_format(path) if format == "auto" else format
    if fmt == "jsonl":
        qs = load_jsonl(path)
    elif fmt == "obliqa":
        if documents_dir is None:
            raise QuestionFileError(path, "ObliQA questions need the ADGM documents folder (documents_dir)")
        qs = load_obliqa(path, documents_dir)
    elif fmt == "obliqa-mp":
        qs = load_obliqa_mp(path, qrels_path)
    else:
        raise QuestionFileError(path, f"unknown format {fmt!r}; use auto, jsonl, obliqa or obliqa-mp")
    return QuestionSet(
        path=str(path), format=fmt, sha256=file_sha256(path), questions=qs, where=_places(path, fmt, len(qs))
    )


def _places(path: Path, fmt: str, n: int) -> list[str]:
    """Where each of the ``n`` questions is: its line (JSONL: one question per non-blank line), else its
    item."""
    if fmt == "jsonl":
        return [f"line {i}" for i, line in enumerate(_read_text(path).splitlines(), start=1) if line.strip()]
    return [f"item {i}" for i in range(n)]


def check_gold(
    questions: QuestionSet, known_ids: Collection[str], corpus: str = "the corpus", say: Say | None = None
) -> None:
    """Refuse, in one line naming the file, the line (or item) and the ids, a set a corpus cannot score:
    an answerable question without gold, or one none of whose gold ids is a provision of the corpus.
    Exact ids only: an ancestor or a descendant of a stored provision is not it. A question with part
    of its gold absent is kept as it is (that gold cannot be retrieved), with a note (``say``, else a
    warning)."""
    for n, q in enumerate(questions.questions):
        where = f"{questions.place(n)}: question {q.id!r}"
        if q.answerable and not q.gold:
            raise QuestionFileError(questions.path, f"{where} is answerable but has no gold")
        absent = ", ".join(repr(g) for g in q.gold if g not in known_ids)
        if not absent:
            continue
        if all(g not in known_ids for g in q.gold):
            raise QuestionFileError(
                questions.path,
                f"{where}: gold {absent} is not a provision of {corpus}; correct the id or drop the question",
            )
        (say or log.warning)(
            f"{questions.path}: {where}: gold {absent} is not a provision of {corpus}; "
            "kept, as gold no system can retrieve"
        )


def merge_sets(sets: Sequence[QuestionSet], say: Say | None = None) -> list[tuple[Question, QuestionSet]]:
    """The questions of several sets, each with its set. A question in two sets (same id and text) counts
    once, from the first set, and a note (``say``, else the log) names both files and how many; the
    same id with another text is an error naming both files and the id."""
    first: dict[str, tuple[Question, QuestionSet]] = {}
    out: list[tuple[Question, QuestionSet]] = []
    for qset in sets:
        again: Counter[str] = Counter()
        other_gold: Counter[str] = Counter()
        for n, q in enumerate(qset.questions):
            if q.id not in first:
                first[q.id] = (q, qset)
                out.append((q, qset))
                continue
            seen, where = first[q.id]
            if seen.question != q.question:
                raise QuestionFileError(
                    qset.path,
                    f"{qset.place(n)}: question id {q.id!r} is also in {where.path} "
                    "with another text; give one of them a new id",
                )
            again[where.path] += 1
            other_gold[where.path] += seen.gold != q.gold
        for path, count in again.items():
            differ = f" ({other_gold[path]} with other gold there)" if other_gold[path] else ""
            (say or log.info)(
                f"{count} question{'s' if count > 1 else ''} of {qset.path} {'are' if count > 1 else 'is'} "
                f"also in {path} (same id and text): counted once, from {path}{differ}"
            )
    return out
