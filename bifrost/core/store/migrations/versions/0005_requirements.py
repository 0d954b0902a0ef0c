"""Requirement records (issue 45): each rule sentence's force, who, conditions and exceptions.

Revision ID: 0005 Revises: 0004 Create Date: 2026-12-05 02:00:00
"""

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "0005"
down_revision: Union[str, Sequence[str], None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "requirements",
        sa.Column("corpus", sa.String(length=64), nullable=False),
        sa.Column("provision_id", sa.String(length=320), nullable=False),
        sa.Column("sentence", sa.Integer(), nullable=False),
        sa.Column("force", sa.String(length=24), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("corpus", "provision_id", "sentence"),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("requirements")
