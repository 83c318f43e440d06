"""The schema of a tablebase database through Alembic: the migrations shipped in
``migrations/``, a database's revision read without upgrading it, and its upgrade to
the newest, refused for a database whose schema is newer than this version knows, that
holds tables of something else, or that this process may only read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Engine

import tablebase.migrations
from tablebase.core.errors import StoreError
from tablebase.store.engine import engine_for, first_line, hide_password, immediate, is_url, resolve_location, write_refusal
from tablebase.store.locks import LOCK_SPACE

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS = Path(tablebase.migrations.__file__).resolve().parent
"""The Alembic scripts: the repository's ``migrations/``, installed as the package
``tablebase.migrations``."""

HEAD = "0004"
"""The newest revision in ``migrations/`` (a test holds it to Alembic's head): a database
at it is opened without loading Alembic, a tenth of a second of imports."""


def _alembic_config() -> Config:
    from alembic.config import Config  # here: Alembic is loaded only to read or upgrade an older schema

    if not (MIGRATIONS / "env.py").is_file():
        raise StoreError(f"this installation of tablebase lacks its migrations at {MIGRATIONS}; reinstall it")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def schema_revisions(location: str | os.PathLike[str] | None = None) -> tuple[str | None, str]:
    """``(current, head)``: the Alembic revision of a database, without upgrading it
    (``None`` for an empty one), and the newest this version of tablebase knows.

    :raises StoreError: if there is no database there, or it cannot be read.
    """
    location = resolve_location(location)
    shown = hide_password(location)
    if not is_url(location) and not Path(location).is_file():
        raise StoreError(f"no tablebase database at {location}")
    engine = engine_for(location, read_only=not is_url(location) and write_refusal(Path(location)) is not None)
    try:
        with engine.connect() as connection:
            current = _revision(connection, shown, _script(_alembic_config()))
    except sa.exc.DBAPIError as error:
        raise StoreError(hide_password(f"{shown} is not a usable tablebase database: {first_line(error)}")) from None
    finally:
        engine.dispose()
    return current, _script(_alembic_config()).get_current_head()


def _script(config: Config) -> ScriptDirectory:
    """The Alembic scripts of ``config``."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config)


def _at_head(connection: sa.Connection) -> bool:
    """Whether a database is a tablebase database at the newest revision (:data:`HEAD`),
    read with SQL alone."""
    if not sa.inspect(connection).has_table("alembic_version"):
        return False
    return connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all() == [HEAD]


def _revision(connection: sa.Connection, shown: str, script: ScriptDirectory) -> str | None:
    """The Alembic revision of a tablebase database (``None`` for an empty database).

    :raises StoreError: if it holds tables of something else, or has a revision this
        version of tablebase does not know (a newer tablebase's, or another application's).
    """
    from alembic.runtime.migration import MigrationContext

    tables = set(sa.inspect(connection).get_table_names())
    if tables and "alembic_version" not in tables:
        raise StoreError(f"{shown} is not a tablebase database (it holds other tables)")
    current = MigrationContext.configure(connection).get_current_revision()
    if current is not None and current not in {revision.revision for revision in script.walk_revisions()}:
        raise StoreError(
            f"{shown} has schema revision {current!r}, unknown to this version of tablebase: "
            "it is from a newer tablebase (upgrade tablebase to use it) or another application"
        )
    return current


def migrate(engine: Engine, shown: str, read_only: bool) -> None:
    """Upgrade a tablebase database to the newest schema revision, in one transaction.

    Processes that open a database side by side (two first builds into a new file) take
    turns: the revision is read, and where it is older than the newest, read again in a
    transaction that holds the database's write lock (SQLite's ``BEGIN IMMEDIATE``, a
    PostgreSQL transaction-level advisory lock), and upgraded there if still needed, so
    that one upgrades it and the others find it done.

    :param shown: where it is, as messages show it.
    :param read_only: whether this process may only read it: an upgrade it needs is refused.
    :raises StoreError: as :func:`_revision` does, or if it needs an upgrade but is read-only.
    """
    with engine.begin() as connection:
        if _at_head(connection):
            return
    config = _alembic_config()
    script = _script(config)
    head = script.get_current_head()
    with engine.begin() as connection:
        current = _revision(connection, shown, script)
    if current == head:
        return
    if read_only:
        raise StoreError(
            f"{shown} has schema revision {current}, older than this tablebase's {head}, "
            "and cannot be upgraded: this process may not write it"
        )
    with engine.connect() as connection, immediate(connection).begin():
        if engine.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:space, 0)"), {"space": LOCK_SPACE})
        if _revision(connection, shown, script) != head:
            from alembic import command

            config.attributes["connection"] = connection
            command.upgrade(config, "head")
