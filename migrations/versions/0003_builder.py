"""Record which process is building a tablebase, so a second build of it can tell a live
build from one that was killed.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``builder`` (``host:pid``) to the catalog; existing rows have none."""
    op.add_column("tablebases", sa.Column("builder", sa.String(255), nullable=True))


def downgrade() -> None:
    """Drop ``builder``."""
    op.drop_column("tablebases", "builder")
