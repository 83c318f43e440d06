"""Alembic environment: runs on the connection that ``tablebase.store`` passes in.

Online mode only. The store opens SQLite with real ``BEGIN`` statements, so with
``transactional_ddl`` a failed migration rolls back whole, on SQLite as on PostgreSQL.
"""

from alembic import context

from tablebase.store.schema import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through tablebase.store.open_store(), which passes a connection")

context.configure(connection=connection, target_metadata=Base.metadata, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
