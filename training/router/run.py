"""`bifrost train router`: which corpus of a home answers a question, learned from the regulator's answered
questions. Each answered question's title (its citations cut out: a user rarely names one) is a question; the
corpora that answer it hold a section it cites; one answered by no corpus of the home belongs elsewhere (Part
1910 for a home without it). Validated forward in time (fitted on the questions answered before a year, scored
on those answered since) and on question sets never fitted on; the stored model is fitted on every answered
question, its bar chosen out of fold."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.errors import BifrostError
from bifrost.eval.questions import load_questions, own_answers
from bifrost.retrieval.channels.base import Channels
from bifrost.retrieval.routing.features import COLUMNS, Letters, feature_rows
from bifrost.retrieval.routing.model import RouterModel, save_router
from bifrost.retrieval.routing.router import home_letters
from bifrost.training.router import fit as F

Say = Callable[[str], None]
CITATION = re.compile(
    r"(?:\b\d+\s*CFR\s*)?(?:§+\s*)?(?:\b(?:Parts?|Subparts?|Sections?)\s+)?"
    r"(?:\b\d+(?:\.\d+\w*)+(?:\([^)]*\))*|(?<=Part )\d+\b|(?<=Parts )\d+\b)",
    re.I,
)
"""A citation in a title ("29 CFR 1910.106(d)", "Part 1926", "§1904.7(b)"), cut out of the question."""
MIN_WORDS = 3
PART_TAG = re.compile(r"(?:other-)?part[:-](\d+)$")


def stripped(title: str) -> str:
    return " ".join(CITATION.sub(" ", title).split())


@dataclass
class RouterReport:
    letters: int
    since: int
    forward: dict[str, Any]
    sets: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    path: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def letter_rows(
    letters: Letters, channels: Mapping[str, Channels], embed: Callable[[list[str]], np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rows, labels, years, kept indexes) of the answered questions whose stripped titles keep
    `MIN_WORDS` words; each is never its own neighbour."""
    corpora = list(channels)
    texts = [stripped(p.title) for p in letters.precedents]
    keep = np.array([i for i, t in enumerate(texts) if len(t.split()) >= MIN_WORDS], int)
    if not len(keep):
        raise BifrostError(
            "no answered question to learn from: import precedents first (`bifrost precedents`)"
        )
    kept = [texts[i] for i in keep]
    x = feature_rows(
        np.asarray(embed(kept), np.float32), kept, channels, letters, [np.array([i]) for i in keep]
    )
    y = np.array([[c in letters.answered_by[i] for c in corpora] for i in keep], bool)
    years = np.array([int((letters.precedents[i].date or "0")[:4] or 0) for i in keep])
    return x, y, years, keep


def forward_year(years: np.ndarray, share: float = 2 / 3) -> int:
    """The year before which ``share`` of the dated questions were answered."""
    dated = np.sort(years[years > 0])
    return int(dated[min(int(share * len(dated)), len(dated) - 1)]) if len(dated) else 0


def set_labels(questions, corpora: Sequence[str], holds: Mapping[str, frozenset[str]], default: str):
    """Per question: which corpora answer it (its ``corpus`` field or ``default`` when answerable; the corpus
    holding the part its tag names when not, none when no corpus holds it); None when unknown."""
    out = []
    for q in questions:
        if q.answerable:
            want = q.extra.get("corpus") or default
            out.append([c == want for c in corpora])
            continue
        parts = [m.group(1) for t in q.extra.get("tags") or () if (m := PART_TAG.search(t))]
        if not parts:
            out.append(None)
            continue
        out.append([any(i.startswith(f"{parts[0]}.") for i in holds[c]) for c in corpora])
    return out


def score_sets(
    files: Sequence[Path],
    model: RouterModel,
    channels: Mapping[str, Channels],
    letters: Letters,
    embed: Callable[[list[str]], np.ndarray],
    default: str,
) -> dict[str, Any]:
    """The router's figures on each question set (never fitted on; each question's own answer left out)."""
    corpora = list(channels)
    holds = {c: frozenset(ch.ids) for c, ch in channels.items()}
    out = {}
    for path in files:
        qs = load_questions(path).questions
        labels = set_labels(qs, corpora, holds, default)
        known = [i for i, lab in enumerate(labels) if lab is not None]
        texts = [qs[i].question for i in known]
        own = [letters.own(own_answers(qs[i])) for i in known]
        x = feature_rows(np.asarray(embed(texts), np.float32), texts, channels, letters, own)
        y = np.array([labels[i] for i in known], bool).reshape(len(known), len(corpora))
        out[path.stem] = F.figures(model.probabilities(x), y)
    return out


def train_router(
    pipeline,
    corpora: Sequence[str],
    files: Sequence[Path] = (),
    *,
    default_corpus: str | None = None,
    since: int | None = None,
    store: bool = True,
    say: Say | None = None,
) -> RouterReport:
    """Validate forward in time and on ``files``, then fit on every answered question and store the model
    (``store``) in the home."""
    say = say or (lambda _m: None)
    if len(corpora) < 2:
        raise BifrostError("the router chooses among corpora: this home holds one (nothing to route)")
    settings, embed = pipeline.resources.settings, pipeline.resources.embedder.embed
    channels = {c: pipeline.parts(c).channels for c in corpora}
    letters = home_letters(channels)
    say(f"{len(letters.precedents)} answered questions over {', '.join(corpora)}")
    x, y, years, _ = letter_rows(letters, channels, embed)
    since = since or forward_year(years)
    before, after = years < since, years >= since
    if not before.any() or not after.any():
        raise BifrostError(f"--since {since}: no answered question on one side of that year")
    early = F.fit_weights(x[before], y[before])
    forward = F.figures(F.probabilities(x[after], *early), y[after])
    forward["fitted_on"] = int(before.sum())
    weights, intercept = F.fit_weights(x, y)
    model = RouterModel(
        weights=weights,
        intercept=intercept,
        embedding_model=settings.embedding_model,
        trained={
            "letters": int(len(y)),
            "corpora": list(corpora),
            "since": since,
            "forward": forward,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        },
    )
    sets = score_sets(files, model, channels, letters, embed, default_corpus or corpora[0]) if files else {}
    report = RouterReport(
        len(y), since, forward, sets, dict(zip(COLUMNS, model.weights), intercept=model.intercept)
    )
    if store:
        report.path = str(save_router(settings, model))
        pipeline.forget()
    return report
