"""Question files as the trainers and evaluations read them: each checked against the corpus's ids, merged so
a question in several files counts once, and named by file (`osha-loi-dev`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from bifrost.core.settings import Settings
from bifrost.eval.questions import Question, QuestionSet, check_gold, load_questions, merge_sets
from bifrost.eval.runner import corpus_ids, sources_folder

Say = Callable[[str], None]


def read_sets(
    settings: Settings, paths: Sequence[Path], corpus: str | None = None, say: Say | None = None
) -> list[QuestionSet]:
    """The question files, each checked against the provision ids of ``corpus`` when given (`check_gold`)."""
    documents = sources_folder(settings, corpus)
    sets = [load_questions(path, "auto", documents_dir=documents) for path in paths]
    if corpus is not None and sets:
        known = corpus_ids(settings, corpus)
        for qset in sets:
            check_gold(qset, known, corpus, say)
    return sets


def load_sets(
    settings: Settings, paths: Sequence[Path], corpus: str | None = None, say: Say | None = None
) -> tuple[list[Question], list[dict[str, str]]]:
    """Questions of every file, a question in several files once (`merge_sets`), and the files' hashes."""
    sets = read_sets(settings, paths, corpus, say)
    hashes = [{"path": str(path), "sha256": qset.sha256} for path, qset in zip(paths, sets)]
    return [q for q, _ in merge_sets(sets, say)], hashes


def set_names(paths: Sequence[Path]) -> list[str]:
    """A name per question file: its stem (``osha-loi-dev``), made unique with a number when two files
    share it."""
    names: list[str] = []
    for path in paths:
        stem = Path(path).stem
        names.append(stem if stem not in names else f"{stem}-{sum(n.startswith(stem) for n in names) + 1}")
    return names


def load_questions_by_file(
    settings: Settings, paths: Sequence[Path], corpus: str | None = None, say: Say | None = None
) -> tuple[list[tuple[Question, str]], list[dict[str, str]]]:
    """Every question with the stem of its file (a question in several files once, from the first:
    `merge_sets`), and the files' hashes; with ``corpus``, each file's gold is checked first
    (`check_gold`)."""
    sets = read_sets(settings, paths, corpus, say)
    hashes = [{"path": str(path), "sha256": qset.sha256} for path, qset in zip(paths, sets)]
    return [(q, Path(qset.path).stem) for q, qset in merge_sets(sets, say)], hashes
