"""Alembic revisions of the catalog, oldest first by their ``down_revision`` chain."""
