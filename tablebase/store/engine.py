"""The engines of tablebase databases: where a database is (a path, a URL, or
``$TABLEBASE_DB``), SQLAlchemy engines over SQLite with its pragmas (real transactions,
WAL, small pages, read-only files) or any other database, ``VACUUM``, and database
failures in words, a URL's password never shown."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tablebase.core.errors import StoreError
from tablebase.store.schema import TablebaseRow

DEFAULT_PATH = "tablebase.sqlite"
ENVIRONMENT_VARIABLE = "TABLEBASE_DB"
BUSY_TIMEOUT = 120
"""Seconds an SQLite connection waits for another process's write to finish."""
PAGE_SIZE = 1024
"""Bytes of an SQLite page in a database this tablebase creates (SQLite's default is
4,096; an existing file keeps its own). A blocks row is a record of about 10 to 20 KiB:
SQLite keeps its first part, 489 bytes up to a page, on a leaf page and the rest on full
overflow pages, and those first parts pack their leaf pages loosely. Smaller pages leave
less of them unused, so all4 and KRPvKR take fewer bytes a position; a block read from
the page cache takes a little longer, a stream of queries no longer
(benchmarks/RESULTS.md)."""


def resolve_location(location: str | os.PathLike[str] | None) -> str:
    """The database to use: the argument, else ``$TABLEBASE_DB``, else ``tablebase.sqlite``."""
    return str(location or os.environ.get(ENVIRONMENT_VARIABLE) or DEFAULT_PATH)


def is_url(location: str) -> bool:
    return "://" in location


_PASSWORD = re.compile(r"(://[^/?#@:\s]*:)[^/?#@\s]*@")


def hide_password(text: str) -> str:
    """``text`` with the password of every database URL in it written ``***``, as
    SQLAlchemy's ``URL.render_as_string(hide_password=True)`` writes it (also in a URL
    that SQLAlchemy cannot parse)."""
    return _PASSWORD.sub(r"\1***@", text)



_READ_ONLY = "attempt to write a readonly database"
"""SQLite's message for a write to a file this process may only read."""


def first_line(error: Exception) -> str:
    """The first line of a database error's message (the driver's own, where SQLAlchemy
    wrapped it), in words for a user where SQLite's are obscure."""
    line = str(getattr(error, "orig", None) or error).splitlines()[0]
    if line == _READ_ONLY:
        return "this user may read it, not write it (it can be queried, not built into)"
    return line


def writable(path: Path) -> bool:
    """Whether this process may write an SQLite database there: the file if it exists,
    and its directory (for the journal or the WAL files)."""
    return os.access(path.parent, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def _sqlite_engine(path: str, read_only: bool = False) -> Engine:
    """An SQLite engine whose transactions are real ``BEGIN``s.

    pysqlite's own transaction handling skips DDL; taking ``BEGIN`` over ourselves (the
    SQLAlchemy recipe for SQLite) makes migrations and table creation transactional. WAL
    mode is switched on by :func:`use_wal`, once the file is known to be ours.

    :param read_only: open with SQLite's ``mode=ro``, and ``immutable=1`` where the
        directory cannot be written (so no writer can change the file, and SQLite could
        not make the WAL index it otherwise needs even to read).
    """
    if read_only:
        options = "mode=ro" + ("" if os.access(Path(path).parent, os.W_OK) else "&immutable=1")
        uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?{options}"
        engine = sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT))
    else:
        engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": BUSY_TIMEOUT})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")
        dbapi_connection.execute(f"PRAGMA page_size={PAGE_SIZE}")  # takes effect only in a file without tables

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection):  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN")

    return engine


@contextlib.contextmanager
def removed_if_unused(location: str | os.PathLike[str] | None) -> Iterator[None]:
    """An SQLite database file that the block creates is removed at its end if it holds
    no tablebase then (a first build that failed, a dry run), with its WAL, shared-memory
    and lock files, so a failure leaves nothing behind. A URL, or a file that existed
    before, is left alone."""
    resolved = resolve_location(location)
    path = None if is_url(resolved) else Path(resolved)
    fresh = path is not None and not path.exists()
    try:
        yield
    finally:
        if fresh and path is not None and path.exists() and _holds_no_tablebase(path):
            for leftover in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-lock"))):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()


def vacuum(connection: sqlite3.Connection) -> None:
    """``VACUUM`` an SQLite database in WAL mode, with pages of :data:`PAGE_SIZE` where it
    has others and this is the only connection to it (else with its own: another
    process reading it keeps WAL mode, as it needs; the attempt waits a second at most).
    A kill in between leaves it in SQLite's rollback journal mode, which the next
    :func:`~tablebase.store.database.open_store` turns back into WAL."""
    if connection.execute("PRAGMA page_size").fetchone()[0] != PAGE_SIZE:
        waits = connection.execute("PRAGMA busy_timeout").fetchone()[0]
        connection.execute("PRAGMA busy_timeout=1000")
        try:
            alone = connection.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
        except sqlite3.OperationalError:  # locked by another connection
            alone = False
        connection.execute(f"PRAGMA busy_timeout={waits}")
        if alone:
            connection.execute(f"PRAGMA page_size={PAGE_SIZE}")
    connection.execute("VACUUM")
    connection.execute("PRAGMA journal_mode=WAL")


def _holds_no_tablebase(path: Path) -> bool:
    """Whether an SQLite file has no row in its catalog (or no catalog, or cannot be read,
    as a file the block made and left empty)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            return connection.execute(f"SELECT count(*) FROM {TablebaseRow.__tablename__}").fetchone()[0] == 0
    except sqlite3.Error:
        return path.stat().st_size == 0


def use_wal(engine: Engine) -> None:
    """Put an SQLite database in WAL mode (it stays so): readers probe while a build writes.

    Outside any transaction, as SQLite requires, so on the raw DBAPI connection.
    """
    connection = engine.raw_connection()
    try:
        connection.cursor().execute("PRAGMA journal_mode=WAL")
    finally:
        connection.close()


def engine_for(location: str, read_only: bool = False) -> Engine:
    """An engine for a URL, or for an SQLite path (see :func:`_sqlite_engine`).

    :raises StoreError: for a URL SQLAlchemy cannot use.
    """
    if not is_url(location):
        return _sqlite_engine(location, read_only)
    try:
        return sa.create_engine(location)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError, ValueError) as error:  # ValueError: a bad port
        raise StoreError(hide_password(f"cannot use database URL {location}: {error}")) from None


def sqlite_file(engine: Engine, location: str) -> str | None:
    """The file of an SQLite database (given as a path or a URL); ``None`` in memory."""
    if not is_url(location):
        return location
    database = engine.url.database
    return database if database and database != ":memory:" and not database.startswith("file:") else None

