"""Storage of tablebases in SQL databases through SQLAlchemy. It knows nothing of games."""

from tablebase.store.database import KeyShape, Store, Storing, open_store, removed_if_unused, resolve_location, schema_revisions, upgrade_schema
from tablebase.store.schema import COMPLETE, TablebaseRow

__all__ = ["COMPLETE", "KeyShape", "Store", "Storing", "TablebaseRow", "open_store", "removed_if_unused", "resolve_location", "schema_revisions", "upgrade_schema"]
