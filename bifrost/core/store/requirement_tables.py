"""Requirement records in the SQL store: replaced whole per corpus at each navigator build, read per
provision."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete, select

from bifrost.core.requirement_types import Requirement
from bifrost.core.store.sql_models import RequirementRow
from bifrost.core.store.sql_store import SqlStore


def replace_requirements(sql: SqlStore, corpus: str, reqs: Sequence[Requirement]) -> None:
    with sql.session() as s:
        s.execute(delete(RequirementRow).where(RequirementRow.corpus == corpus))
        s.add_all(
            RequirementRow(
                corpus=r.corpus,
                provision_id=r.provision_id,
                sentence=r.sentence,
                force=r.force,
                data=r.model_dump(mode="json"),
            )
            for r in reqs
        )


def requirement_provisions(sql: SqlStore, corpus: str) -> list[str]:
    """The provision id of each record of a corpus (one per record), for counting without reading the
    records."""
    with sql.session() as s:
        return list(s.scalars(select(RequirementRow.provision_id).where(RequirementRow.corpus == corpus)))


def requirements(sql: SqlStore, corpus: str, provision_ids: Iterable[str] | None = None) -> list[Requirement]:
    """The records of a corpus (or of some of its provisions), in provision and sentence order."""
    q = select(RequirementRow.data).where(RequirementRow.corpus == corpus)
    ids = list(provision_ids) if provision_ids is not None else None
    if ids is not None:
        q = q.where(RequirementRow.provision_id.in_(ids))
    with sql.session() as s:
        rows = s.scalars(q.order_by(RequirementRow.provision_id, RequirementRow.sentence)).all()
    return [Requirement.model_validate(d) for d in rows]
