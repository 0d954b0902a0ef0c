"""Where a CFR paragraph label goes: the six designation schemes and the open-paragraph stack.

Schemes: 1 (a), 2 (1), 3 (i), 4 (A), 5 italic (1), 6 italic (a); 0 (`DEFINITION`) marks a
definition, whose list items start a new sequence. A label is placed as the sibling of an open
paragraph or the first child of the innermost one; the next label settles ambiguous letters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
DEFINITION = 0
_MAX_GAP = 3  # a sibling may skip this many removed labels before the placement is refused


@dataclass(frozen=True)
class Frame:
    """An open paragraph: its scheme, its label and the node it created."""

    scheme: int
    label: str
    node: int


@dataclass(frozen=True)
class Placement:
    """Where a label goes: stack position and scheme; `odd` says why it is not a clean fit."""

    pos: int
    scheme: int
    odd: str | None = None
    gap: int = 0


def _to_roman(n: int) -> str:
    out = []
    for value, sym in (
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


def _roman_value(label: str) -> int | None:
    if not label or any(c not in _ROMAN for c in label):
        return None
    total = 0
    for i, c in enumerate(label):
        nxt = _ROMAN[label[i + 1]] if i + 1 < len(label) else 0
        total += -_ROMAN[c] if _ROMAN[c] < nxt else _ROMAN[c]
    return total if total > 0 and _to_roman(total) == label else None


def _letter_value(label: str, lower: bool) -> int | None:
    """a..z, then aa, bb, ... as the CFR continues past z."""
    if (
        not label
        or len(set(label)) != 1
        or not label.isalpha()
        or not label.isascii()
        or label.islower() != lower
    ):
        return None
    return (len(label) - 1) * 26 + ord(label[0].lower()) - ord("a")


def label_ordinal(scheme: int, label: str) -> int | None:
    """0-based position of ``label`` in ``scheme``'s sequence, or None if it does not belong."""
    if scheme in (2, 5):
        return int(label) - 1 if label.isascii() and label.isdigit() and int(label) > 0 else None
    if scheme == 3:
        v = _roman_value(label)
        return v - 1 if v else None
    if scheme in (1, 6):
        return _letter_value(label, lower=True)
    if scheme == 4:
        return _letter_value(label, lower=False)
    return None


def label_schemes(label: str, italic: bool) -> tuple[int, ...]:
    """Schemes a label may belong to; an italic label is level 5 or 6 only."""
    if label.isascii() and label.isdigit():
        return (5,) if italic else (2, 5)
    if italic:
        return (6,) if label_ordinal(6, label) is not None else ()
    return tuple(s for s in (1, 3, 4, 6) if label_ordinal(s, label) is not None)


def _options(stack: Sequence[Frame], label: str, italic: bool) -> list[Placement]:
    """Every placement of ``label``: sibling of an open frame, or child of the top frame."""
    schemes = label_schemes(label, italic)
    found: list[Placement] = []
    for pos, frame in enumerate(stack):
        if frame.scheme in schemes:
            gap = label_ordinal(frame.scheme, label) - label_ordinal(frame.scheme, frame.label)  # type: ignore[operator]
            if gap == 1:
                found.append(Placement(pos, frame.scheme))
            elif 1 < gap <= _MAX_GAP + 1:
                found.append(
                    Placement(
                        pos, frame.scheme, f"({label}) follows ({frame.label}), skipping {gap - 1}", gap
                    )
                )
    top = stack[-1].scheme if stack else None
    for s in schemes:
        first = label_ordinal(s, label) == 0
        want = {None: 1, DEFINITION: s}.get(top, (top or 0) + 1)
        if first and s == want:
            found.append(Placement(len(stack), s))
        elif top not in (None, DEFINITION) and s > top and (italic or s == want):  # type: ignore[operator]
            why = (
                "does not start its level"
                if s == want
                else f"is italic but its parent ({stack[-1].label}) is level {top}"
            )
            found.append(Placement(len(stack), s, f"({label}) {why}", 500 + s))
        elif top in (None, DEFINITION):
            found.append(Placement(len(stack), s, f"({label}) does not start its level", 600 + s))
    return found


def place_label(
    stack: Sequence[Frame], label: str, italic: bool, nxt: tuple[str, bool] | None
) -> Placement | None:
    """Choose where ``label`` goes; the next label settles letter/roman and (1)/italic (1) ties.

    Exact placements win; among several, those after which the next label also fits exactly;
    then a sibling before a new child, and the deepest sibling. None: the label fits nowhere.
    """
    options = _options(stack, label, italic)
    exact = [o for o in options if o.odd is None]
    if not exact:
        return min(options, key=lambda o: (o.gap, -o.pos), default=None)
    if len(exact) > 1 and nxt is not None:
        after = [
            o for o in exact if any(q.odd is None for q in _options(push_frame(stack, o, label, -1), *nxt))
        ]
        exact = after or exact
    if len(exact) > 1 and stack and stack[-1].scheme == DEFINITION:
        return min(exact, key=lambda o: o.scheme)
    siblings = [o for o in exact if o.pos < len(stack)]
    return max(siblings, key=lambda o: o.pos) if siblings else exact[0]


def push_frame(stack: Sequence[Frame], p: Placement, label: str, node: int) -> list[Frame]:
    """The stack after placing `label` (frames deeper than its position are closed)."""
    return [*stack[: p.pos], Frame(p.scheme, label, node)]
