"""Storage of tablebases in SQL databases through SQLAlchemy. It knows nothing of games."""

from tablebase.store.database import Store, open_store, upgrade_schema
from tablebase.store.engine import removed_if_unused, resolve_location
from tablebase.store.formats import KeyShape, Storing
from tablebase.store.migration import schema_revisions
from tablebase.store.schema import COMPLETE, TablebaseRow

__all__ = ["COMPLETE", "KeyShape", "Store", "Storing", "TablebaseRow", "open_store", "removed_if_unused", "resolve_location", "schema_revisions", "upgrade_schema"]
