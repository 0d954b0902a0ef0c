"""Which scored questions have their own answer in the corpus's precedent bank (same id or same source):
each is answered with it left out; a run says how many, and names them in one warning line."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bifrost.core.settings import Settings
from bifrost.core.store.precedent_tables import load_precedents
from bifrost.core.store.sql_store import SqlStore
from bifrost.eval.questions import Question, own_answers

log = logging.getLogger(__name__)
NAMED = 10
"""Question ids the warning names, at most."""


def bank_overlap(settings: Settings, corpus: str, questions: Sequence[Question]) -> dict[str, object]:
    """The bank's size, and the questions whose own precedent it holds (left out when each is answered)."""
    sql = SqlStore(settings.sql_url)
    try:
        with sql.session() as s:
            bank = load_precedents(s, corpus)
    finally:
        sql.dispose()
    keys = {p.id for p in bank} | {p.url for p in bank if p.url}
    own = [q.id for q in questions if keys.intersection(own_answers(q))]
    if own:
        more = f" and {len(own) - NAMED} more" if len(own) > NAMED else ""
        log.warning(
            "%d scored question(s) have their own precedent in the bank of %s, left out when each is "
            "answered: %s%s",
            len(own),
            corpus,
            ", ".join(own[:NAMED]),
            more,
        )
    return {"bank": len(bank), "own_removed": len(own), "questions": own}
