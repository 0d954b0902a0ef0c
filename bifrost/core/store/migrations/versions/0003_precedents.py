"""Precedents (issue 44): answered questions with the provisions they cite, and reviews of answers.

Revision ID: 0003 Revises: 0002 Create Date: 2026-12-04 22:00:00
"""

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "0003"
down_revision: Union[str, Sequence[str], None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "precedents",
        sa.Column("corpus", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=320), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("date", sa.String(length=32), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("issuer", sa.String(length=256), nullable=False),
        sa.Column("source", sa.String(length=512), nullable=False),
        sa.Column("cites", sa.JSON(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("corpus", "id"),
    )
    op.create_table(
        "answer_reviews",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("corpus", sa.String(length=64), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("edition", sa.Integer(), nullable=False),
        sa.Column("reviewer", sa.String(length=256), nullable=False),
        sa.Column("team", sa.String(length=256), nullable=False),
        sa.Column("cited", sa.JSON(), nullable=False),
        sa.Column("added", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("answer_reviews", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_answer_reviews_corpus"), ["corpus"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("answer_reviews", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_answer_reviews_corpus"))
    op.drop_table("answer_reviews")
    op.drop_table("precedents")
