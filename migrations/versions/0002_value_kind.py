"""Record what each tablebase stores beside win/draw/loss: nothing, or Grundy values.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``value_kind`` to the catalog; every existing tablebase is plain ``wdl``."""
    op.add_column("tablebases", sa.Column("value_kind", sa.String(16), nullable=False, server_default="wdl"))


def downgrade() -> None:
    """Drop ``value_kind``."""
    op.drop_column("tablebases", "value_kind")
