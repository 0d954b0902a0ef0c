"""A team's server (issue 46): users, their tokens (hashed), and every answer given.

Revision ID: 0004 Revises: 0003 Create Date: 2026-12-05 01:00:00
"""

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "0004"
down_revision: Union[str, Sequence[str], None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "users",
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("corpora", sa.JSON(), nullable=False),
        sa.Column("rate_limit", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("user", sa.String(length=128), nullable=False),
        sa.Column("secret_hash", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tokens_user"), ["user"], unique=False)
    op.create_table(
        "answer_records",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user", sa.String(length=128), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("corpus", sa.String(length=256), nullable=False),
        sa.Column("editions", sa.JSON(), nullable=False),
        sa.Column("as_of", sa.String(length=32), nullable=True),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("verdict", sa.String(length=32), nullable=True),
        sa.Column("citations", sa.JSON(), nullable=False),
        sa.Column("code_version", sa.String(length=128), nullable=False),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("answer_records", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_answer_records_asked_at"), ["asked_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_answer_records_user"), ["user"], unique=False)
        batch_op.create_index(batch_op.f("ix_answer_records_corpus"), ["corpus"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("answer_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_answer_records_corpus"))
        batch_op.drop_index(batch_op.f("ix_answer_records_user"))
        batch_op.drop_index(batch_op.f("ix_answer_records_asked_at"))
    op.drop_table("answer_records")
    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tokens_user"))
    op.drop_table("tokens")
    op.drop_table("users")
