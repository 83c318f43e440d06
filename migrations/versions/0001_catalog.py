"""Create the catalog of tablebases.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the ``tablebases`` catalog table."""
    op.create_table(
        "tablebases",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("format_version", sa.Integer, nullable=False),
        sa.Column("positions", sa.BigInteger),
        sa.Column("wins", sa.BigInteger),
        sa.Column("draws", sa.BigInteger),
        sa.Column("losses", sa.BigInteger),
        sa.Column("max_remoteness", sa.Integer),
        sa.Column("build_seconds", sa.Float),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("completed_at", sa.DateTime),
        sqlite_autoincrement=True,
    )
    # Not unique: a rebuild writes beside the complete tablebase it replaces.
    op.create_index("ix_tablebases_game_params", "tablebases", ["game", "params"])


def downgrade() -> None:
    """Drop the catalog."""
    op.drop_index("ix_tablebases_game_params", table_name="tablebases")
    op.drop_table("tablebases")
