"""Record the version of the game a tablebase was built for, part of its identity: a
game bumps its version when its keys or values change, and older tablebases are then
outdated.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``game_version``; existing tablebases were built for version 1, every game's
    first."""
    op.add_column("tablebases", sa.Column("game_version", sa.Integer(), nullable=False, server_default="1"))


def downgrade() -> None:
    """Drop ``game_version``."""
    op.drop_column("tablebases", "game_version")
