"""The engines of tablebase databases: where a database is (a path, a URL, or
``$TABLEBASE_DB``), SQLAlchemy engines over SQLite with its pragmas (real transactions,
WAL, small pages, read-only files) or any other database, ``VACUUM``, and database
failures in words, a URL's password never shown."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tablebase.core.errors import StoreError
from tablebase.store.locks import lock_file, unused
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


def write_refusal(path: Path) -> str | None:
    """Why this process may not write an SQLite database at ``path``, in words, or
    ``None`` if it may: it must be able to write the file if it exists, and its
    directory, where SQLite keeps the journal or the WAL files beside it."""
    file_refused = path.exists() and not os.access(path, os.W_OK)
    folder_refused = not os.access(path.parent, os.W_OK)
    folder = path.parent
    if file_refused and folder_refused:
        return f"this user may read it, not write it nor its directory {folder} (it can be queried, not built into)"
    if file_refused:
        return "this user may read it, not write it (it can be queried, not built into)"
    if folder_refused:
        return (
            f"this user may not write in its directory {folder}, where SQLite keeps its journal "
            "beside it (it can be queried, not built into)"
        )
    return None


def _sqlite_engine(path: str, read_only: bool = False) -> Engine:
    """An SQLite engine whose transactions are real ``BEGIN``s.

    pysqlite's own transaction handling skips DDL; taking ``BEGIN`` over ourselves (the
    SQLAlchemy recipe for SQLite) makes migrations and table creation transactional (a
    connection given :func:`immediate` begins with ``BEGIN IMMEDIATE``). WAL mode is
    switched on by :func:`use_wal`, once the file is known to be ours.

    :param read_only: open a file this process may not write as :func:`_read_only_uri`
        says.
    """
    if read_only:
        uri = _read_only_uri(path)
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
        connection.exec_driver_sql(connection.get_execution_options().get(_BEGIN, "BEGIN"))

    return engine


def _read_only_uri(path: str | os.PathLike[str]) -> str:
    """The URI that opens an SQLite file for reading only, writing nothing beside it.

    SQLite's ``mode=ro`` and, unless a writer's WAL or rollback journal lies beside it,
    ``immutable=1``: without it, a read-only connection to a WAL database makes its
    ``-shm`` and ``-wal`` files where the directory can be written, and cannot remove
    them when it closes; with it, SQLite reads the file as it is and writes nothing. A
    process that writes the file meanwhile shows itself by its ``-wal`` file (an SQLite
    connection in WAL mode keeps one while it is open), and one is read through it.
    """
    journals = (Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal"))
    options = "mode=ro" + ("" if any(journals) else "&immutable=1")
    return f"file:{urllib.parse.quote(os.path.abspath(path))}?{options}"


_BEGIN = "tablebase_begin"
"""The execution option that holds the statement beginning an SQLite transaction."""


def immediate(connection: sa.Connection) -> sa.Connection:
    """``connection`` (made by :func:`engine_for`), its SQLite transactions begun with
    ``BEGIN IMMEDIATE``: each takes the write lock at its start, waiting up to
    :data:`BUSY_TIMEOUT` for another writer, where a transaction that reads and then
    writes is refused at once ("database is locked") when another wrote in between. Other
    databases are left as they are."""
    return connection.execution_options(**{_BEGIN: "BEGIN IMMEDIATE"})


@contextlib.contextmanager
def removed_if_unused(location: str | os.PathLike[str] | None) -> Iterator[None]:
    """An SQLite database file that the block creates is removed at its end if it holds
    no tablebase then (a first build that failed, a dry run) and no other store may write
    it (:func:`~tablebase.store.locks.unused`: another build into the new file goes on),
    with its WAL, shared-memory and lock files, so a failure leaves nothing behind. A
    URL, or a file that existed before, is left alone."""
    resolved = resolve_location(location)
    path = None if is_url(resolved) else Path(resolved)
    fresh = path is not None and not path.exists()
    try:
        yield
    finally:
        if fresh and path is not None and path.exists():
            with unused(str(path)) as alone:
                if alone and _holds_no_tablebase(path):
                    for leftover in (str(path), f"{path}-wal", f"{path}-shm", lock_file(str(path))):
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(leftover)


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
        with contextlib.closing(sqlite3.connect(_read_only_uri(path), uri=True)) as connection:
            return connection.execute(f"SELECT count(*) FROM {TablebaseRow.__tablename__}").fetchone()[0] == 0
    except sqlite3.Error:
        return path.stat().st_size == 0


def use_wal(engine: Engine) -> None:
    """Put an SQLite database in WAL mode (it stays so): readers probe while a build writes.

    Outside any transaction, as SQLite requires, so on the raw DBAPI connection. The
    switch of a file in rollback mode reads it and then writes it; where another process
    holds the write lock meanwhile (the first builds of a new file, side by side), SQLite
    refuses it at once ("database is locked") rather than wait for a lock that the other
    may be waiting on in turn, so it is tried again, every 10 ms for up to
    :data:`BUSY_TIMEOUT` seconds.

    :raises sqlite3.OperationalError: if it still cannot, or for another failure.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    connection = engine.raw_connection()
    try:
        while True:
            try:
                connection.cursor().execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
            time.sleep(0.01)
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

