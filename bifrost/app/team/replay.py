"""What changed between a recorded answer and the same question answered again: each citation added,
removed, its text changed, or unchanged; the outcome and the verdict then and now."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bifrost.core.access import AnswerRecord, CitationChange, Replay
from bifrost.core.answer_types import Answer


def _cited(citations: Sequence[Mapping]) -> dict[str, str]:
    return {f"{c.get('corpus', '')}:{c['id']}": c.get("text", "") for c in citations}


def citation_changes(before: Sequence[Mapping], after: Sequence[Mapping]) -> list[CitationChange]:
    """The citations of two answers compared, in the order first cited then newly cited."""
    old, new = _cited(before), _cited(after)
    out = []
    for key in [*old, *(k for k in new if k not in old)]:
        pid = key.split(":", 1)[1]
        if key not in new:
            out.append(CitationChange(id=pid, change="removed"))
        elif key not in old:
            out.append(CitationChange(id=pid, change="added"))
        else:
            out.append(CitationChange(id=pid, change="unchanged" if old[key] == new[key] else "text changed"))
    return out


def compare_replay(
    rec: AnswerRecord, same: Answer, current: Answer, current_editions: dict[str, int]
) -> Replay:
    then = rec.answer.get("citations", [])
    same_json = same.model_dump(mode="json", exclude={"retrieved", "timings"})
    now_json = current.model_dump(mode="json", exclude={"retrieved", "timings"})
    return Replay(
        record=rec,
        same_edition=same_json,
        same_edition_note=same.note,
        current=now_json,
        current_editions=current_editions,
        changes_same_edition=citation_changes(then, same_json["citations"]),
        changes_current=citation_changes(then, now_json["citations"]),
        outcome_then=rec.outcome,
        outcome_now=current.outcome.value,
        verdict_then=rec.verdict,
        verdict_now=current.verdict.value if current.verdict is not None else None,
    )
