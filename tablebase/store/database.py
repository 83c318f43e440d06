"""Opening a tablebase database, writing tablebases in batches, and probing keys.

SQLite is the default; any SQLAlchemy URL may be given instead. Opening a database runs
the Alembic migrations shipped in ``migrations/`` and refuses a database whose schema is
newer than this version knows, or that holds tables of something else. An SQLite file
that this process may not write (the file, or its directory) is opened read-only for
reading. A URL's password never appears in a message.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import socket
import sqlite3
import time
import urllib.parse
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType

import numpy as np
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

import tablebase.migrations
from tablebase.core.errors import BuildInProgressError, NotBuiltError, StoreError, UnknownLayoutError, UsageError
from tablebase.util.progress import Advance
from tablebase.core.tally import Tally
from tablebase.core.values import DTZ, TO_DERIVE, WDL
from tablebase.store.packed import (
    ChunkReader,
    chunks_table,
    decode_codes,
    encode_chunks,
    extra_codes,
    extra_value_of,
    extra_values,
    join_chunks,
    join_parts,
    split_codes,
    value_codes,
    value_of,
)
from tablebase.store.locks import LOCK_SPACE, build_locks
from tablebase.store.codecs import XZ, ZSTD, Codec, checked_level, codec_named
from tablebase.store.blocks import (
    BLOCK_QUERY,
    BLOCKS_IN_QUERY,
    BY_KEY,
    BY_SIDE,
    GAP,
    PLAIN,
    READ_STAND_IN,
    BlockFormat,
    Blocking,
    BlockReader,
    BlocksTable,
    BlockWriter,
    Fetch,
    FetchMany,
    block_parts,
    blocks_query,
    blocks_table,
    cached_keys,
)
from tablebase.store.schema import (
    AUTO,
    BLOCKS,
    BUILDING,
    COMPLETE,
    EXTRA_KINDS,
    FORMATS,
    LAYOUTS,
    PACKED,
    ROWS,
    SIDED,
    SIDED_DRAWS_STORED,
    SIDED_XZ,
    BLOCKS_XZ,
    ONE_SIDED,
    ONE_SIDED_FORMATS,
    ONE_SIDED_XZ,
    XZ_FORMATS,
    TablebaseRow,
    positions_table,
)

DEFAULT_PATH = "tablebase.sqlite"
ENVIRONMENT_VARIABLE = "TABLEBASE_DB"
WRITE_BATCH = 1 << 20
"""Positions (or keys of an index space) a build writes per call and per transaction: 16
blocks of the blocks layout, which are encoded side by side."""
BUSY_TIMEOUT = 120
"""Seconds an SQLite connection waits for another process's write to finish."""
PAGE_SIZE = 1024
"""Bytes of an SQLite page in a database this tablebase creates (SQLite's default is
4,096; an existing file keeps its own). A blocks row is a record of about 10 to 20 KiB:
SQLite keeps its first part, 489 bytes up to a page, on a leaf page and the rest on full
overflow pages, and those first parts pack their leaf pages loosely. With 4 KiB pages
the unused space of the leaf pages took 7.6% over the blobs of all4 (a quarter of each
leaf page), with 1 KiB pages 2.4%: 0.311 > 0.296 bytes a position, KRPvKR 0.402 > 0.389
(benchmarks/RESULTS.md); a block read from the page cache takes about 7% longer, a
stream of queries no longer."""
PROBE_BATCH = 500

Value = tuple[int, "int | None"]
"""A stored value: outcome (-1, 0, 1 for the side to move) and remoteness in plies."""


DRAW_DTZ_CODE = int(extra_codes(np.zeros(1, dtype=np.int64))[0])
"""The extra code of a draw's DTZ, 0: what the sided layout's reader gives every draw."""

CATALOG_SECONDS = 1.0
"""How long :meth:`Store.complete_rows` keeps the catalog rows it read."""


def resolve_location(location: str | os.PathLike[str] | None) -> str:
    """The database to use: the argument, else ``$TABLEBASE_DB``, else ``tablebase.sqlite``."""
    return str(location or os.environ.get(ENVIRONMENT_VARIABLE) or DEFAULT_PATH)


def _is_url(location: str) -> bool:
    return "://" in location


_PASSWORD = re.compile(r"(://[^/?#@:\s]*:)[^/?#@\s]*@")


def hide_password(text: str) -> str:
    """``text`` with the password of every database URL in it written ``***``, as
    SQLAlchemy's ``URL.render_as_string(hide_password=True)`` writes it (also in a URL
    that SQLAlchemy cannot parse)."""
    return _PASSWORD.sub(r"\1***@", text)


MIGRATIONS = Path(tablebase.migrations.__file__).resolve().parent
"""The Alembic scripts: the repository's ``migrations/``, installed as the package
``tablebase.migrations``."""


def _alembic_config() -> Config:
    if not (MIGRATIONS / "env.py").is_file():
        raise StoreError(f"this installation of tablebase lacks its migrations at {MIGRATIONS}; reinstall it")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


_READ_ONLY = "attempt to write a readonly database"
"""SQLite's message for a write to a file this process may only read."""


def _first_line(error: Exception) -> str:
    """The first line of a database error's message (the driver's own, where SQLAlchemy
    wrapped it), in words for a user where SQLite's are obscure."""
    line = str(getattr(error, "orig", None) or error).splitlines()[0]
    if line == _READ_ONLY:
        return "this user may read it, not write it (it can be queried, not built into)"
    return line


def _writable(path: Path) -> bool:
    """Whether this process may write an SQLite database there: the file if it exists,
    and its directory (for the journal or the WAL files)."""
    return os.access(path.parent, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def _sqlite_engine(path: str, read_only: bool = False) -> Engine:
    """An SQLite engine whose transactions are real ``BEGIN``s.

    pysqlite's own transaction handling skips DDL; taking ``BEGIN`` over ourselves (the
    SQLAlchemy recipe for SQLite) makes migrations and table creation transactional. WAL
    mode is switched on by :func:`_use_wal`, once the file is known to be ours.

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
    path = None if _is_url(resolved) else Path(resolved)
    fresh = path is not None and not path.exists()
    try:
        yield
    finally:
        if fresh and path is not None and path.exists() and _holds_no_tablebase(path):
            for leftover in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-lock"))):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()


def _vacuum(connection: sqlite3.Connection) -> None:
    """``VACUUM`` an SQLite database in WAL mode, with pages of :data:`PAGE_SIZE` where it
    has others and this is the only connection to it (else with its own: another
    process reading it keeps WAL mode, as it needs; the attempt waits a second at most).
    A kill in between leaves it in SQLite's rollback journal mode, which the next
    :func:`open_store` turns back into WAL."""
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


def _write_first(session: Session) -> None:
    """Begin a transaction that reads, then writes, with a write (an empty ``UPDATE``).

    SQLite takes its write lock at a transaction's first write, waiting up to
    :data:`BUSY_TIMEOUT` for another writer; but a transaction that has read before is
    refused at once ("database is locked", WAL's busy snapshot) if another process wrote
    since its read began, as two builds completing side by side do."""
    session.execute(sa.update(TablebaseRow).where(sa.false()).values(status=TablebaseRow.status))


def _use_wal(engine: Engine) -> None:
    """Put an SQLite database in WAL mode (it stays so): readers probe while a build writes.

    Outside any transaction, as SQLite requires, so on the raw DBAPI connection.
    """
    connection = engine.raw_connection()
    try:
        connection.cursor().execute("PRAGMA journal_mode=WAL")
    finally:
        connection.close()


def _engine(location: str, read_only: bool = False) -> Engine:
    """An engine for a URL, or for an SQLite path (see :func:`_sqlite_engine`).

    :raises StoreError: for a URL SQLAlchemy cannot use.
    """
    if not _is_url(location):
        return _sqlite_engine(location, read_only)
    try:
        return sa.create_engine(location)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError, ValueError) as error:  # ValueError: a bad port
        raise StoreError(hide_password(f"cannot use database URL {location}: {error}")) from None


AUTO_SIDES, BOTH_SIDES, ONE_SIDE = "auto", "both", "one"
DTM_SIDES = (AUTO_SIDES, BOTH_SIDES, ONE_SIDE)
"""Whose DTM the sided layout stores of a tablebase with DTZ whose moves cross sides
(:attr:`~tablebase.core.game.Game.moves_cross_sides`): both sides to move's, or white to
move's alone (``one``: black to move's valued from its moves when read, one blob a
block instead of two), or ``auto``, the default: white to move's alone where the game
says so (:attr:`~tablebase.core.game.Game.dtm_left_out_by_default`: the 5-piece chess
endings where white alone has pawns, KRPvKR 0.389 > 0.269 bytes a position on disk; see
``benchmarks/disk_one_side.py``), both sides' elsewhere (the endings without pawns,
KQvKR and KRBvKR, keep their DTM a probe away)."""


class KeyShape(NamedTuple):
    """What of a game's keys chooses the format a store writes its tablebase in
    (:meth:`Store.begin_build`, :meth:`Store.repack`); the store reads no game, so its
    caller says (:func:`tablebase.read.stored.key_shape`)."""

    index_space: bool = False
    """Whether the keys are an index space (the ``auto`` layout stores those in blocks)."""
    sides_alternate: bool = False
    """Whether the lowest bit of its keys is the side to move (the ``auto`` layout
    stores such an index space sided)."""
    sides_cross: bool = False
    """Whether, besides, every move within it changes that bit
    (:attr:`~tablebase.core.game.Game.moves_cross_sides`): where a store leaves one side's
    DTM out (:data:`DTM_SIDES`), only such a tablebase's."""
    dtm_left_out_by_default: bool = False
    """Whether the ``auto`` DTM sides leave one side's DTM out of it
    (:attr:`~tablebase.core.game.Game.dtm_left_out_by_default`)."""


class Storing(NamedTuple):
    """How a store writes the tablebases it builds or repacks, as :func:`open_store`
    takes it (``open_store(location, storing=storing)``): one value from the command line
    to the store, and to the processes of a cluster build."""

    layout: str = AUTO
    """A name in :data:`~tablebase.store.schema.LAYOUTS`, or ``auto``."""
    codec: str = ZSTD.name
    """A name in :data:`~tablebase.store.codecs.CODECS`."""
    level: int | None = None
    """The codec's level; None for its default."""
    dtm_sides: str = AUTO_SIDES
    """A name in :data:`DTM_SIDES`."""


def open_store(
    location: str | os.PathLike[str] | None = None,
    *,
    create: bool = True,
    storing: Storing = Storing(),
) -> Store:
    """Open (and if needed create or upgrade) a tablebase database.

    :param location: an SQLite path or an SQLAlchemy URL; see :func:`resolve_location`.
    :param create: when false, a missing SQLite file is an error instead of a new
        database, and a file this process may not write is opened read-only (it can be
        read, not built into, and is not upgraded).
    :param storing: how this store writes the tablebases it builds or repacks:
        ``layout``, the storage layout, a name in :data:`~tablebase.store.schema.LAYOUTS`
        or ``auto`` (blocks over an index space, sided where its keys alternate sides to
        move, else packed; stored ones are read in their own); ``level``, the codec's
        level for the blocks layouts (default: the codec's
        :attr:`~tablebase.store.codecs.Codec.default_level`; given, :meth:`Store.repack`
        writes again the tablebases already in the layout too); ``codec``, what
        compresses the blobs of the blocks layouts, a name in
        :data:`~tablebase.store.codecs.CODECS`: ``zstd`` (fast to write and read) or
        ``xz`` (smaller, slower to write and to decode); ``dtm_sides``, a name in
        :data:`DTM_SIDES`: ``one`` leaves black to move's DTM out of the sided tablebases
        with DTZ this store writes (smaller; that DTM is then valued from one ply of
        moves, hundreds of microseconds, when read), ``auto`` (the default) of those
        whose game says so, ``both`` of none.
    :raises StoreError: if the file is missing (with ``create=False``), is not a tablebase
        database, has a schema newer than this version of tablebase, or an older one
        that cannot be upgraded because it is read-only.
    :raises UsageError: if ``$TABLEBASE_CACHE_MIB`` is set to no whole number of MiB,
        ``codec`` is unknown, ``level`` is none of its levels or ``dtm_sides`` is not
        in :data:`DTM_SIDES`.
    """
    layout, codec, level, dtm_sides = storing
    if dtm_sides not in DTM_SIDES:
        raise UsageError(f"unknown DTM sides {dtm_sides!r}; choose one of {', '.join(DTM_SIDES)}")
    blob_codec = codec_named(codec)
    checked_level(blob_codec, level)
    if blob_codec is not ZSTD and layout in LAYOUTS and LAYOUTS[layout] not in XZ_FORMATS:
        raise UsageError(f"the {layout} layout has no codec to choose; {codec} compresses the sided and blocks layouts")
    location = resolve_location(location)
    shown = hide_password(location)
    cached = cached_keys()  # a bad $TABLEBASE_CACHE_MIB is refused before anything is opened
    if layout != AUTO and layout not in LAYOUTS:
        raise UnknownLayoutError(f"unknown storage layout {layout!r}; choose one of {', '.join([AUTO, *LAYOUTS])}")
    read_only = False
    if not _is_url(location):
        path = Path(location)
        if path.is_dir():
            raise StoreError(f"{location} is a directory, not a tablebase database")
        if not create and not path.exists():
            raise StoreError(f"no tablebase database at {location} (build one with: tablebase build GAME)")
        if create and not path.parent.is_dir():
            raise StoreError(f"cannot create {location}: no directory {path.parent}")
        if create and not path.exists() and not os.access(path.parent, os.W_OK):
            raise StoreError(f"cannot create {location}: this user may not write in {path.parent}")
        read_only = not create and not _writable(path)
    engine = _engine(location, read_only)
    try:
        _migrate(engine, shown, read_only)
        if engine.dialect.name == "sqlite" and not read_only:
            _use_wal(engine)
    except sa.exc.DBAPIError as error:
        engine.dispose()
        raise StoreError(hide_password(f"{shown} is not a usable tablebase database: {_first_line(error)}")) from None
    except StoreError:
        engine.dispose()
        raise
    return Store(engine, location, storing, cached=cached, codec=blob_codec)


def schema_revisions(location: str | os.PathLike[str] | None = None) -> tuple[str | None, str]:
    """``(current, head)``: the Alembic revision of a database, without upgrading it
    (``None`` for an empty one), and the newest this version of tablebase knows.

    :raises StoreError: if there is no database there, or it cannot be read.
    """
    location = resolve_location(location)
    shown = hide_password(location)
    if not _is_url(location) and not Path(location).is_file():
        raise StoreError(f"no tablebase database at {location}")
    engine = _engine(location, read_only=not _is_url(location))
    try:
        with engine.connect() as connection:
            current = _revision(connection, shown, ScriptDirectory.from_config(_alembic_config()))
    except sa.exc.DBAPIError as error:
        raise StoreError(hide_password(f"{shown} is not a usable tablebase database: {_first_line(error)}")) from None
    finally:
        engine.dispose()
    return current, ScriptDirectory.from_config(_alembic_config()).get_current_head()


def _revision(connection: sa.Connection, shown: str, script: ScriptDirectory) -> str | None:
    """The Alembic revision of a tablebase database (``None`` for an empty database).

    :raises StoreError: if it holds tables of something else, or has a revision this
        version of tablebase does not know (a newer tablebase's, or another application's).
    """
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


def upgrade_schema(location: str | os.PathLike[str] | None = None) -> tuple[str | None, str]:
    """Upgrade an existing database to the newest schema revision, in one transaction.

    :returns: ``(before, after)``, the revisions (``before`` is ``None`` for an empty one).
    :raises StoreError: as :func:`schema_revisions` and :func:`open_store` do.
    """
    before, _head = schema_revisions(location)
    with open_store(location, create=False):
        pass
    return before, schema_revisions(location)[0] or ""


def _migrate(engine: Engine, shown: str, read_only: bool) -> None:
    config = _alembic_config()
    script = ScriptDirectory.from_config(config)
    with engine.begin() as connection:
        current = _revision(connection, shown, script)
        if current != script.get_current_head():
            if read_only:
                raise StoreError(
                    f"{shown} has schema revision {current}, older than this tablebase's "
                    f"{script.get_current_head()}, and cannot be upgraded: this process may not write it"
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")


class Store:
    """An open tablebase database. Use :func:`open_store` to make one.

    A build goes :meth:`begin_build` → :meth:`write` (any number of batches, each in its
    own transaction) → :meth:`complete`. Only complete tablebases are found by
    :meth:`find`, so a killed build is never served; the next build starts it over.
    """

    def __init__(
        self,
        engine: Engine,
        location: str,
        storing: Storing = Storing(),
        *,
        cached: int,
        codec: Codec = ZSTD,
    ) -> None:
        self.engine = engine
        self.location = hide_password(location)
        """Where the database is, as messages show it (a URL's password hidden)."""
        self.storing = storing
        """The layout, codec, level and DTM sides of the tablebases this store writes."""
        self.codec = codec
        """What compresses the blobs of the blocks this store writes (``storing.codec``'s)."""
        self._locks = build_locks(engine, _sqlite_file(engine, location))
        self._reader: sa.Connection | None = None
        self._chunks = ChunkReader()
        self._blocks = BlockReader(cached)  # keys of decoded blocks kept
        self._last_written: dict[int, int] = {}  # the largest key written per packed row
        self._block_writers: dict[int, BlockWriter] = {}  # per row of the blocks layout being built
        self._catalog_read: dict[tuple[str, int], tuple[float, Mapping[str, TablebaseRow]]] = {}  # complete_rows, when read

    @property
    def concurrent_writes(self) -> bool:
        """Whether several processes can write to the database at once (a server's, not
        an SQLite file, whose writers take turns)."""
        return self.engine.dialect.name != "sqlite"

    @contextlib.contextmanager
    def _reported(self) -> Iterator[None]:
        """Turn a database failure (e.g. a lock held too long, or a page damaged) into a
        :class:`StoreError`, raised through SQLAlchemy or by a raw DBAPI cursor."""
        try:
            yield
        except (sa.exc.DBAPIError, self.engine.dialect.loaded_dbapi.Error) as error:
            raise StoreError(f"database {self.location}: {_first_line(error)}") from None

    def close(self) -> None:
        """Release the connections."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self._locks.close()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ---- catalog

    def abandoned(self, row: TablebaseRow) -> bool:
        """Whether a row is a build whose builder is gone: status ``building`` and its
        lock held by no live process (:mod:`tablebase.store.locks`)."""
        return row.status == BUILDING and not self._locks.held_elsewhere(row.id)

    def find(self, game: str, params: str, version: int = 1) -> TablebaseRow | None:
        """The complete tablebase of a game with canonical parameters, built for the
        game's ``version``, if there is one (a tablebase is identified by all three).

        :raises StoreError: if it was written in a newer storage format.
        """
        complete = self._rows_of(game, params).where(TablebaseRow.status == COMPLETE)
        with self._reported(), Session(self.engine) as session:
            row = session.scalars(
                complete.where(TablebaseRow.game_version == version).order_by(TablebaseRow.id.desc())
            ).first()
        if row is not None and row.format_version not in FORMATS:
            raise StoreError(
                f"the {game} tablebase in {self.location} has storage format {row.format_version}, "
                f"which this version of tablebase cannot read (it reads {sorted(FORMATS)}); upgrade tablebase"
            )
        return row

    def complete_rows(self, game: str, version: int = 1) -> Mapping[str, TablebaseRow]:
        """The complete tablebases of a game built for its ``version`` that this version
        of tablebase reads, by canonical parameters (the newest of each), in one query,
        kept for :data:`CATALOG_SECONDS` (a server answering thousands of requests a
        second reads the catalog once in that time; a tablebase completed or replaced
        meanwhile by this store is seen at once, by another process within that time).

        :raises StoreError: if the database fails.
        """
        kept = self._catalog_read.get((game, version))
        if kept is not None and time.monotonic() - kept[0] < CATALOG_SECONDS:
            return kept[1]
        complete = sa.select(TablebaseRow).where(
            TablebaseRow.game == game, TablebaseRow.status == COMPLETE, TablebaseRow.game_version == version
        )
        with self._reported(), Session(self.engine) as session:
            rows = session.scalars(complete.order_by(TablebaseRow.id)).all()
        found = MappingProxyType({row.params: row for row in rows if row.format_version in FORMATS})
        self._catalog_read[game, version] = (time.monotonic(), found)
        return found

    def forget_catalog(self) -> None:
        """Read the catalog again at the next :meth:`complete_rows` (after a tablebase of
        this store is completed, replaced or dropped)."""
        self._catalog_read.clear()

    def require(self, game: str, params: str, hint: str, version: int = 1) -> TablebaseRow:
        """Like :meth:`find`, but :raises NotBuiltError: naming ``hint`` (a build command),
        also when the stored tablebase is outdated (built for another version of the game)."""
        row = self.find(game, params, version)
        if row is not None:
            return row
        if any(old.status == COMPLETE for old in self.catalog(game, params)):
            raise NotBuiltError(
                f"the stored {game} tablebase with these parameters is outdated (built for another "
                f"version of the game, now version {version}); rebuild it: {hint}"
            )
        raise NotBuiltError(f"the {game} tablebase with these parameters is not built; run: {hint}")

    def catalog(self, game: str | None = None, params: str | None = None) -> list[TablebaseRow]:
        """Every catalog row, oldest first; only one game's (with given parameters) if asked."""
        query = sa.select(TablebaseRow).order_by(TablebaseRow.id)
        if game is not None:
            query = query.where(TablebaseRow.game == game)
        if params is not None:
            query = query.where(TablebaseRow.params == params)
        with self._reported(), Session(self.engine) as session:
            return list(session.scalars(query))

    @staticmethod
    def _rows_of(game: str, params: str) -> sa.Select[tuple[TablebaseRow]]:
        return sa.select(TablebaseRow).where(TablebaseRow.game == game, TablebaseRow.params == params)

    def _drop(self, session: Session, rows: Iterable[TablebaseRow]) -> None:
        for old in rows:
            for table in _tables(old):
                table.drop(session.connection(), checkfirst=True)
            session.delete(old)
        session.flush()
        self.forget_catalog()

    # ---- building

    def begin_build(
        self,
        game: str,
        params: str,
        description: str,
        value_kind: str = WDL,
        *,
        version: int = 1,
        take_over: bool = False,
        shape: KeyShape = KeyShape(),
    ) -> TablebaseRow:
        """Start a build: a catalog row with status ``building`` and an empty values
        table, in the store's storage layout (and, but in the blocks layout, one for
        Grundy values, scores or DTZ, for a ``value_kind`` in
        :data:`~tablebase.store.schema.EXTRA_KINDS`), locked by this
        process until :meth:`complete` or :meth:`abandon` (see :mod:`~tablebase.store.locks`).

        A complete tablebase of the same game and parameters stays and is served until
        :meth:`complete` replaces it; unfinished builds whose process has ended, on any
        host, are dropped. Everything changes in one transaction, which holds the
        database's write lock from its start, so two processes cannot both start the
        same build.

        :param version: the game's version, recorded with the tablebase.
        :param shape: what of the game's keys chooses the format of its tablebase in
            this store's layout, codec and DTM sides.
        :param take_over: drop the reservation of a build that another process holds
            (the way to break a lock of a process that hangs); that build then fails.
        :raises BuildInProgressError: if another live process is building it.
        """
        with self._reported(), Session(self.engine) as session, session.begin():
            # Take the write lock first, so the check and the insert are one step: SQLite
            # locks the file on a first write, PostgreSQL takes a transaction advisory lock.
            if self.engine.dialect.name == "postgresql":
                session.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_SPACE})
            _write_first(session)
            building = list(session.scalars(self._rows_of(game, params).where(TablebaseRow.status == BUILDING)))
            for other in building:
                if not take_over and self._locks.held_elsewhere(other.id):
                    raise BuildInProgressError(
                        f"{description} is being built by another process ({other.builder}, since "
                        f"{other.created_at:%Y-%m-%d %H:%M:%S} UTC); wait for it, or take it over with --force"
                    )
                self._locks.release(other.id)
            self._drop(session, building)
            row = TablebaseRow(
                game=game,
                params=params,
                description=description,
                status=BUILDING,
                format_version=self._format_version(shape, value_kind),
                value_kind=value_kind,
                game_version=version,
                builder=_this_process(),
                created_at=datetime.now(timezone.utc).replace(tzinfo=None),
            )
            session.add(row)
            session.flush()
            for table in _tables(row):
                table.create(session.connection())
            session.expunge(row)
            self._locks.hold(row.id)  # before the commit makes the row visible
        return row

    def _format_version(self, shape: KeyShape, value_kind: str) -> int:
        """The ``format_version`` of a new tablebase of a value kind in this store's
        layout, codec and DTM sides (see :meth:`begin_build`)."""
        layout, dtm_sides = self.storing.layout, self.storing.dtm_sides
        if layout == AUTO:
            version = (SIDED if shape.sides_alternate else BLOCKS) if shape.index_space else PACKED
        else:
            version = LAYOUTS[layout]
        one_side = dtm_sides == ONE_SIDE or (dtm_sides == AUTO_SIDES and shape.dtm_left_out_by_default)
        if one_side and value_kind == DTZ and shape.sides_cross:
            version = ONE_SIDED_FORMATS.get(version, version)
        return XZ_FORMATS.get(version, version) if self.codec is XZ else version

    def abandon(self, row: TablebaseRow) -> None:
        """Drop a build that will not be completed (its row and tables), after an error."""
        with self._reported(), Session(self.engine) as session, session.begin():
            _write_first(session)
            self._drop(session, session.scalars(sa.select(TablebaseRow).where(TablebaseRow.id == row.id)))
        self._locks.release(row.id)

    def write(
        self,
        row: TablebaseRow,
        keys: np.ndarray,
        outcome: np.ndarray,
        remoteness: np.ndarray,
        advance: Advance = lambda _count: None,
        batch_size: int = WRITE_BATCH,
        extra: np.ndarray | None = None,
        known: np.ndarray | None = None,
    ) -> None:
        """Store values, ``batch_size`` positions per transaction, through the DBAPI's
        ``executemany``, in the row's storage layout.

        :param keys: int64[n] distinct canonical keys, in any order; for the packed and
            blocks layouts, above every key of an earlier call for the same row. The
            blocks layout keeps the last block's values until :meth:`finish_writing`
            (or :meth:`complete_tallied`, which calls it).
        :param outcome: int8[n] outcomes for the side to move.
        :param remoteness: int32[n] plies; negative for none (stored as null).
        :param extra: int64[n] Grundy values or scores, for a row whose value kind has them
            (:data:`~tablebase.store.schema.EXTRA_KINDS`); with ``known`` bool[n] false
            for a position without one. Stored packed in the rows layout.
        :raises StoreError: if the database fails, or keys come out of order.
        """
        if np.any(keys[1:] <= keys[:-1]):
            order = np.argsort(keys, kind="stable")
            keys, outcome, remoteness = keys[order], outcome[order], remoteness[order]
            extra = extra[order] if extra is not None else None
            known = known[order] if known is not None else None
        layout = _layout(row)
        if len(keys) and layout.in_key_order:
            if keys[0] <= self._last_written.get(row.id, -1):
                raise StoreError(f"{row.description}: packed values are written in ascending key order, in one call")
            self._last_written[row.id] = int(keys[-1])
        statement = sa.insert(layout.values_table(row)).compile(dialect=self.engine.dialect)
        separate_extra = extra is not None and layout.separate_extra
        if separate_extra:
            extra_statement = sa.insert(_extra_table(row)).compile(dialect=self.engine.dialect)
        for start in range(0, len(keys), batch_size):
            part = slice(start, start + batch_size)
            codes = None if extra is None else extra_codes(extra[part], None if known is None else known[part])
            records = layout.records(self, row, keys[part], outcome[part], remoteness[part], codes)
            with self._writing(row), self.engine.begin() as connection:
                self._insert(connection, statement, records)
                if separate_extra:
                    self._insert(connection, extra_statement, encode_chunks(keys[part], codes))
            advance(len(keys[part]))

    @contextlib.contextmanager
    def _writing(self, row: TablebaseRow) -> Iterator[None]:
        """:meth:`_reported` for a build's writes: a failure because another build took
        the row over (``--force`` drops its tables: "no such table") says so."""
        try:
            with self._reported():
                yield
        except StoreError:
            with self._reported(), Session(self.engine) as session:
                stored = session.get(TablebaseRow, row.id)
            if stored is None or stored.status != BUILDING:
                self._taken_over(row)
            raise

    def _taken_over(self, row: TablebaseRow) -> NoReturn:
        """Give up a build whose row another build dropped.

        :raises StoreError: always, saying so.
        """
        self._locks.release(row.id)
        raise StoreError(f"the build of {row.description} was taken over by another build")

    @staticmethod
    def _insert(connection: sa.Connection, statement: sa.Compiled, records: Iterable[tuple[object, ...]]) -> None:
        """Insert positional records (none, or any number) with the DBAPI's ``executemany``."""
        if not statement.positional:
            names = list(statement.params)
            records = (dict(zip(names, record)) for record in records)
        listed = list(records)
        if listed:
            connection.exec_driver_sql(str(statement), listed)

    def finish_writing(self, row: TablebaseRow) -> None:
        """Store what :meth:`write` still holds of ``row`` (the blocks layout's last
        block): the end of this store's writes to it, whether this process completes the
        build or another does (a worker that wrote its own range of keys).

        :raises StoreError: if the database fails.
        """
        writer = self._block_writers.pop(row.id, None)
        if writer is not None:
            statement = sa.insert(_values_table(row)).compile(dialect=self.engine.dialect)
            with self._writing(row), self.engine.begin() as connection:
                self._insert(connection, statement, writer.finish())

    def complete(self, row: TablebaseRow, outcome: np.ndarray, remoteness: np.ndarray, seconds: float) -> TablebaseRow:
        """Record the counts and mark the tablebase complete: the last step of a build
        (:meth:`complete_tallied` of their :meth:`Tally.of <tablebase.core.tally.Tally.of>`).

        :param outcome: int8[n] and ``remoteness`` int[n] (plies, negative for none), as
            written; an outcome other than win, draw or loss (a key of an index space that
            is no position) is not counted.
        :raises StoreError: if the build's row is gone (another build dropped it).
        """
        return self.complete_tallied(row, Tally.of(outcome, remoteness), seconds)

    def complete_tallied(self, row: TablebaseRow, tally: Tally, seconds: float) -> TablebaseRow:
        """Record the counts of wins, draws and losses and the largest remoteness, and
        mark the tablebase complete: the last step of a build. In the same transaction,
        the complete tablebase it replaces (if any) is dropped.

        :raises StoreError: if the build's row is gone (another build dropped it).
        """
        self.finish_writing(row)
        with self._reported(), Session(self.engine) as session, session.begin():
            _write_first(session)
            stored = session.get(TablebaseRow, row.id)
            if stored is None or stored.status != BUILDING:
                self._taken_over(row)
            self._drop(session, session.scalars(self._rows_of(row.game, row.params).where(TablebaseRow.status == COMPLETE)))
            stored.positions = tally.positions
            stored.wins, stored.draws, stored.losses = tally.wins, tally.draws, tally.losses
            stored.max_remoteness = tally.farthest
            stored.build_seconds = seconds
            stored.completed_at = datetime.now(timezone.utc).replace(tzinfo=None)
            stored.status = COMPLETE
            session.flush()
            session.expunge(stored)
        self.forget_catalog()
        self._locks.release(row.id)
        return stored

    def repack(
        self,
        row: TablebaseRow,
        shape: KeyShape,
        advance: Advance = lambda _count: None,
    ) -> TablebaseRow:
        """Store a complete tablebase again, in this store's layout, and drop the old
        copy, as a rebuild replaces a tablebase: the new copy gets a new id and replaces
        the old one in the transaction that completes it, so the old one is served until
        then, and a repack that is killed leaves it as it was (the next build or repack
        drops the unfinished copy).

        :param shape: what of the game's keys chooses the format (see :meth:`begin_build`).
        :param advance: called with the number of positions written, batch by batch.
        :returns: the new catalog row, or ``row`` itself when it is already in the layout
            (and, for a blocks layout, the store was opened with no compression level).
        :raises BuildInProgressError: if another process is building or repacking it.
        :raises StoreError: if the database fails or a stored chunk is damaged.
        """
        in_layout = self._format_version(shape, row.value_kind) == row.format_version
        if in_layout and (self.storing.level is None or not isinstance(_layout(row), _BlocksLayout)):
            return row
        extra = row.value_kind in EXTRA_KINDS
        new = self.begin_build(row.game, row.params, row.description, row.value_kind, version=row.game_version, shape=shape)
        try:
            for keys, outcome, remoteness, *beside in _gathered(self.read_parts(row, extra=extra, known=True), WRITE_BATCH):
                self.write(new, keys, outcome, remoteness, advance, extra=beside[0] if extra else None, known=beside[1] if extra else None)
            return self.complete_tallied(new, Tally(row.wins, row.draws, row.losses, row.max_remoteness), row.build_seconds)
        except BaseException:
            with contextlib.suppress(Exception):  # the first error is the one to report
                self.abandon(new)
            raise

    def pages_outdated(self) -> bool:
        """Whether this is an SQLite file whose pages are not of :data:`PAGE_SIZE` (made
        before it), which :meth:`reclaim_space` would change."""
        if self.engine.dialect.name != "sqlite":
            return False
        with self._reported(), self.engine.connect() as connection:
            return connection.exec_driver_sql("PRAGMA page_size").scalar() != PAGE_SIZE

    def reclaim_space(self) -> None:
        """Give the pages of dropped tables back to the file system: SQLite's ``VACUUM``
        (which needs as much free disk as the database takes, for a while), which also
        gives a file made before :data:`PAGE_SIZE` its pages where no other connection
        holds it (leaving WAL mode meanwhile, as SQLite requires to change them); nothing
        for other databases, which reclaim space themselves (PostgreSQL's autovacuum).

        :raises StoreError: if the database fails.
        """
        if self.engine.dialect.name != "sqlite":
            return
        with self._reported():
            connection = self.engine.raw_connection()  # outside any transaction, as VACUUM must be
            try:
                _vacuum(connection.driver_connection)
            finally:
                connection.close()

    # ---- probing

    def read_values(self, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A whole tablebase, sorted by key, as arrays (read straight from the DBAPI cursor).

        :returns: ``(keys, outcome, remoteness)``: int64[n], int8[n] and int32[n] (plies;
            -1 where null).
        :raises StoreError: if the database fails or a stored chunk is damaged.
        """
        return _layout(row).read_values(self, row)

    def read_extra(self, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(keys, values, known)`` of a tablebase's Grundy values or scores: int64[n]
        ascending, int64[n], and bool[n] false where a position has none.

        :raises StoreError: if the tablebase stores none, the database fails or a chunk
            is damaged.
        """
        _require_extra(row)
        keys, codes = _layout(row).read_codes(self, row, extra=True)
        return (keys, *extra_values(codes))

    def read_parts(self, row: TablebaseRow, extra: bool = False, known: bool = False, dtm: bool = True) -> Iterator[tuple[np.ndarray, ...]]:
        """A whole tablebase in key order, a part at a time (a stored chunk or block of
        the packed or blocks layout, the whole of the row layout), so that no array of
        all its keys is made.

        :param extra: whether to read its Grundy values, scores or DTZ too.
        :param known: with ``extra``, whether to give bool[k] which positions have one.
        :param dtm: false for a reader of outcomes (and DTZ) alone: a remoteness that
            the format leaves out (``--dtm-sides``) is then not valued from the
            moves but given as :data:`~tablebase.core.values.TO_DERIVE`.
        :returns: ``(keys, outcome, remoteness)`` per part as :meth:`read_values` gives
            them, and ``extra`` int64[k] values (0 where a position has none) with
            ``extra``, then ``known`` with ``known``.
        :raises StoreError: if the tablebase stores no extra values but they are asked
            for, the database fails, or a stored chunk is damaged.
        """
        if extra:
            _require_extra(row)
        layout = _layout(row)
        for keys, codes, *extras in layout.read_parts(self, row, extra) if dtm else layout.read_stored_parts(self, row, extra):
            beside = extra_values(extras[0])[: 2 if known else 1] if extra else ()
            yield (keys, *split_codes(codes), *beside)

    @contextlib.contextmanager
    def _cursor(self, row: TablebaseRow, query: sa.Select[Any]) -> Iterator[Any]:
        """A raw DBAPI cursor over a query's rows (much faster than SQLAlchemy's result
        rows for millions of them); failures inside become :class:`StoreError`."""
        with self._reported(), self._damage_reported(row):
            connection = self.engine.raw_connection()
            try:
                cursor = connection.cursor()
                cursor.execute(str(query.compile(dialect=self.engine.dialect)))
                yield cursor
            finally:
                connection.close()

    def probe(self, row: TablebaseRow, keys: Iterable[int]) -> dict[int, Value]:
        """Stored values of the keys that are in the tablebase (absent keys are left out).

        Probes share one held connection, each in a short read transaction.

        :raises StoreError: if the database fails or a stored chunk is damaged.
        """
        return _layout(row).probe(self, row, _storable(keys))

    def probe_extra(self, row: TablebaseRow, keys: Iterable[int]) -> dict[int, int | None]:
        """The stored Grundy value or score (``None`` for none) of each key that is in
        the tablebase.

        :raises StoreError: if the tablebase stores none, the database fails or a chunk
            is damaged.
        """
        _require_extra(row)
        return _layout(row).probe_extra(self, row, _storable(keys))

    def probe_both(self, row: TablebaseRow, keys: Iterable[int], dtm: bool = True) -> dict[int, tuple[Value, int | None]]:
        """:meth:`probe` and :meth:`probe_extra` at once (in the blocks layout, one
        block lookup a key): each stored key's value and its Grundy value, score or DTZ.

        :param dtm: false for a reader of outcomes and DTZ alone (``probe_wdl``): a
            remoteness the format leaves out (``--dtm-sides``) is then None, not
            valued from the moves.
        :raises StoreError: as :meth:`probe_extra`.
        """
        _require_extra(row)
        layout = _layout(row)
        return (layout.probe_both if dtm else layout.probe_both_as_stored)(self, row, _storable(keys))

    def probe_array(
        self, row: TablebaseRow, keys: np.ndarray, dtm: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """The stored values of many keys at once, for scripts that value millions of
        positions: vectorized block by block in the blocks layout, key by key in the others.

        :param keys: int64[n] canonical keys, in any order, repeats allowed.
        :param dtm: as :meth:`probe_both`'s (a remoteness left out is then
            :data:`~tablebase.core.values.TO_DERIVE`).
        :returns: ``(found, outcome, remoteness, extra)``: bool[n]; int8[n] and int32[n]
            (plies, -1 for none), 0 and -1 where not found; int64[n] Grundy values, scores
            or DTZ (0 where there is none), or None for a tablebase that stores none.
        :raises StoreError: if the database fails or a stored block is damaged.
        """
        layout = _layout(row)
        return (layout.probe_array if dtm else layout.probe_array_as_stored)(self, row, np.asarray(keys, dtype=np.int64))

    def _fetch(self, row: TablebaseRow) -> Fetch:
        """Reads one block of a tablebase (:data:`BLOCK_QUERY`) in a read transaction of
        its own."""

        def fetch(block: int) -> Sequence[Any] | None:
            sql, positional = _compiled(BLOCK_QUERY, self.engine.dialect)
            sql = _on_table(sql, row.table_name, self.engine.dialect)
            with self._reading(row) as reader:  # SQL text: a third of a compiled statement's cost
                return reader.exec_driver_sql(sql, (block,) if positional else {"block": block}).fetchone()

        return fetch

    def _fetch_many(self, row: TablebaseRow) -> FetchMany:
        """Reads some blocks of a tablebase (:data:`BLOCKS_IN_QUERY`) in a read transaction
        of its own."""

        def fetch_many(blocks: list[int]) -> list[Sequence[Any]]:
            if not blocks:
                return []
            listed = ", ".join(str(int(block)) for block in blocks)  # integers written out: no expanding parameter to render
            sql = _on_table(_in_list_sql(BLOCKS_IN_QUERY, self.engine.dialect), row.table_name, self.engine.dialect)
            with self._reading(row) as reader:  # one statement through the DBAPI cursor: a fifth of SQLAlchemy's result's cost
                dbapi = reader.connection.dbapi_connection
                cursor = dbapi.cursor()  # type: ignore[union-attr]
                try:
                    cursor.execute(sql + f"({listed})")
                    return list(cursor.fetchall())
                finally:
                    cursor.close()
                    dbapi.rollback()  # type: ignore[union-attr]  # the DBAPI's own transaction (PostgreSQL's) ends too

        return fetch_many

    @contextlib.contextmanager
    def _reading(self, row: TablebaseRow) -> Iterator[sa.Connection]:
        """The held reader connection, in a short read transaction that ends afterwards
        (no stale snapshot is held); failures become :class:`StoreError`."""
        if self._reader is None:
            self._reader = self.engine.connect()
        with self._reported(), self._damage_reported(row):
            try:
                yield self._reader
            finally:
                self._reader.rollback()

    @contextlib.contextmanager
    def _damage_reported(self, row: TablebaseRow) -> Iterator[None]:
        """Turn a damaged chunk (a bad blob) into a :class:`StoreError`."""
        try:
            yield
        except (ValueError, zlib.error) as error:
            raise StoreError(f"the stored {row.description} tablebase in {self.location} is damaged: {error}") from None


def _sqlite_file(engine: Engine, location: str) -> str | None:
    """The file of an SQLite database (given as a path or a URL); ``None`` in memory."""
    if not _is_url(location):
        return location
    database = engine.url.database
    return database if database and database != ":memory:" and not database.startswith("file:") else None


def _storable(keys: Iterable[int]) -> list[int]:
    """The distinct keys that can be stored (in ``[0, 2**63)``), ascending."""
    distinct = sorted(set(keys))
    if distinct and (distinct[0] < 0 or distinct[-1] >= 2**63):
        return [k for k in distinct if 0 <= k < 2**63]
    return distinct


def _this_process() -> str:
    """``host:pid`` of this process, as recorded in ``builder``."""
    return f"{socket.gethostname()}:{os.getpid()}"


@functools.lru_cache(maxsize=16)
def _in_list_sql(query: sa.Select[Any], dialect: sa.Dialect) -> str:
    """A query ending in ``IN`` of one expanding parameter as its dialect's SQL text
    without that parameter's list, for a caller to append ``(1, 2, ...)``."""
    text = str(query.compile(dialect=dialect))
    marker = text.rindex("(__[POSTCOMPILE_")
    return text[:marker]


@functools.lru_cache(maxsize=16)
def _compiled(query: sa.Select[Any], dialect: sa.Dialect) -> tuple[str, bool]:
    """A query of one bound parameter as its dialect's SQL text, and whether the DBAPI
    takes its parameters by position."""
    compiled = query.compile(dialect=dialect)
    return str(compiled), bool(compiled.positional)


@functools.lru_cache(maxsize=1024)
def _on_table(sql: str, table_name: str, dialect: sa.Dialect) -> str:
    """The SQL text of a read of :data:`READ_STAND_IN` made a read of the table
    ``table_name`` (each name quoted as the dialect quotes it)."""
    quote = dialect.identifier_preparer.quote
    return sql.replace(quote(READ_STAND_IN), quote(table_name))


def _chunks_query(table: sa.Table) -> sa.Select[Any]:
    """Every chunk of a packed table, in key order."""
    return sa.select(table.c.first_key, table.c.key_deltas, table.c.codes).order_by(table.c.first_key)


def _extra_table(row: TablebaseRow) -> sa.Table:
    """The packed table ``extra_<id>`` of a tablebase's Grundy values or scores (see
    :func:`~tablebase.store.packed.extra_codes`).

    :raises StoreError: for a tablebase that stores none.
    """
    _require_extra(row)
    return chunks_table(f"extra_{row.id}")


@functools.lru_cache(maxsize=1 << 16)
def _value_and_extra(code: int, extra: int) -> tuple[Value, int | None]:
    """``(value_of(code), extra_value_of(extra))``, kept: a tablebase has few distinct
    pairs, and a probe of a position's moves asks for tens of them."""
    return value_of(code), extra_value_of(extra)


def _require_extra(row: TablebaseRow) -> None:
    """:raises StoreError: for a tablebase that stores no Grundy values, scores or DTZ."""
    if row.value_kind not in EXTRA_KINDS:
        raise StoreError(f"the {row.description} tablebase stores no Grundy values, scores or DTZ")


def _tables(row: TablebaseRow) -> list[sa.Table]:
    """Every table of a tablebase."""
    separate_extra = row.value_kind in EXTRA_KINDS and _layout(row).separate_extra
    return [_values_table(row)] + ([_extra_table(row)] if separate_extra else [])


def _values_table(row: TablebaseRow) -> sa.Table:
    """The table that holds a tablebase's values, in its storage layout."""
    return _layout(row).values_table(row)


Part = tuple[np.ndarray, ...]
"""``(keys, codes)`` or ``(keys, codes, extra codes)``, int64[k] each, in key order."""


_VALUES_TABLES: weakref.WeakKeyDictionary[TablebaseRow, sa.Table] = weakref.WeakKeyDictionary()
""":meth:`_Layout.values_table` of each catalog row object still in use (kept beside the
rows, not on them: a row travels pickled to a cluster's workers)."""

_READ_TABLES: weakref.WeakKeyDictionary[TablebaseRow, BlocksTable] = weakref.WeakKeyDictionary()
""":meth:`_BlocksLayout.read_table` of each catalog row object still in use."""


def _once_per_row(made: weakref.WeakKeyDictionary[TablebaseRow, Any], row: TablebaseRow, make: Callable[[TablebaseRow], Any]) -> Any:
    """What ``make`` makes of a catalog row object, made once and kept in ``made``."""
    found = made.get(row)
    if found is None:
        found = made[row] = make(row)
    return found


class _Layout:
    """How a tablebase's values lie in its tables, one subclass a ``format_version``
    (:func:`_layout`), so the store branches on it nowhere: what one batch of a build
    writes, and how the values are read whole and probed. This base is the packed
    layout's (:mod:`~tablebase.store.packed`), whose Grundy values, scores or DTZ the
    rows layout shares: chunks of keys and codes, the extra codes in a table of their
    own (``extra_<id>``)."""

    table = staticmethod(chunks_table)
    """The values table of a tablebase by its name."""
    in_key_order = True
    """Whether a build writes its keys in ascending order, one call after another."""
    separate_extra = True
    """Whether extra values have a table of their own (else they lie beside the values)."""

    def values_table(self, row: TablebaseRow) -> sa.Table:
        """The table of a tablebase's values, made once for each catalog row object (a
        warm probe asks for it each time, and reading the row's mapped columns takes 0.15
        us each; its format, name and value kind never change)."""
        return _once_per_row(_VALUES_TABLES, row, self.make_table)

    def make_table(self, row: TablebaseRow) -> sa.Table:
        """:meth:`values_table`, made."""
        return self.table(row.table_name)

    def records(
        self, store: Store, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        """The rows of :meth:`values_table` for one batch of a build's values (int64[k]
        ascending keys, int8[k] outcomes, int32[k] remoteness), with int64[k] extra
        codes where they lie beside the values."""
        return encode_chunks(keys, value_codes(outcome, remoteness))

    def read_values(self, store: Store, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`Store.read_values`."""
        keys, codes = self.read_codes(store, row, extra=False)
        return (keys, *split_codes(codes))

    def read_codes(self, store: Store, row: TablebaseRow, extra: bool) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(key, code)`` of a tablebase, in key order: of its values, or with
        ``extra`` of its Grundy values, scores or DTZ."""
        with store._cursor(row, _chunks_query(_extra_table(row) if extra else self.values_table(row))) as cursor:
            return join_chunks(cursor)

    def read_parts(self, store: Store, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        """A tablebase's codes a stored chunk at a time, with its extra codes where
        ``extra``."""
        with store._cursor(row, _chunks_query(self.values_table(row))) as cursor, contextlib.ExitStack() as stack:
            extras = stack.enter_context(store._cursor(row, _chunks_query(_extra_table(row)))) if extra else None
            for chunk in cursor:
                keys, codes = decode_codes(*chunk)
                if extras is None:
                    yield keys, codes
                    continue
                beside = extras.fetchone()
                extra_keys, stored = decode_codes(*beside) if beside else (keys[:0], codes[:0])
                if not np.array_equal(keys, extra_keys):
                    raise ValueError("values and extra values are chunked apart")
                yield keys, codes, stored

    def read_stored_parts(self, store: Store, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        """:meth:`read_parts` as stored: a remoteness the format leaves out not valued
        (:class:`_OneSidedLayout`; every other layout stores them all)."""
        return self.read_parts(store, row, extra)

    def probe_both_as_stored(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[Value, int | None]]:
        """:meth:`probe_both` as stored (see :meth:`read_stored_parts`)."""
        return self.probe_both(store, row, wanted)

    def probe_array_as_stored(self, store: Store, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """:meth:`probe_array` as stored (see :meth:`read_stored_parts`)."""
        return self.probe_array(store, row, keys)

    def probe(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, Value]:
        """:meth:`Store.probe` of distinct storable keys."""
        return {key: value_of(code) for key, code in self.codes(store, row, wanted, extra=False).items()}

    def probe_extra(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, int | None]:
        """:meth:`Store.probe_extra` of distinct storable keys."""
        return {key: extra_value_of(code) for key, code in self.codes(store, row, wanted, extra=True).items()}

    def codes(self, store: Store, row: TablebaseRow, wanted: list[int], extra: bool) -> dict[int, int]:
        """The stored value code, or with ``extra`` extra code, of each wanted key there."""
        with store._reading(row) as reader:
            return store._chunks.probe(reader, _extra_table(row) if extra else self.values_table(row), wanted)

    def probe_both(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[Value, int | None]]:
        """:meth:`Store.probe_both` of distinct storable keys."""
        extra = self.probe_extra(store, row, wanted)
        return {key: (value, extra.get(key)) for key, value in self.probe(store, row, wanted).items()}

    def probe_array(self, store: Store, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """:meth:`Store.probe_array`, key by key."""
        with_extra = row.value_kind in EXTRA_KINDS
        listed = keys.tolist()
        wanted = _storable(listed)
        stored = self.probe(store, row, wanted)
        beside = self.probe_extra(store, row, wanted) if with_extra else {}
        values = [stored.get(key, (0, None)) for key in listed]
        return (
            np.array([key in stored for key in listed], dtype=bool),
            np.array([outcome for outcome, _remoteness in values], dtype=np.int8),
            np.array([-1 if plies is None else plies for _outcome, plies in values], dtype=np.int32),
            np.array([beside.get(key) or 0 for key in listed], dtype=np.int64) if with_extra else None,
        )


class _RowsLayout(_Layout):
    """One table row a position (:func:`~tablebase.store.schema.positions_table`): key,
    outcome and remoteness, in any order; the extra values packed as in the base."""

    table = staticmethod(positions_table)
    in_key_order = False

    def records(
        self, store: Store, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        return zip(keys.tolist(), outcome.tolist(), [None if r < 0 else r for r in remoteness.tolist()])

    def read_values(self, store: Store, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        table = self.values_table(row)
        no_remoteness = sa.func.coalesce(table.c.remoteness, sa.literal_column("-1"))
        query = sa.select(table.c.key, table.c.outcome, no_remoteness).order_by(table.c.key)
        layout = np.dtype([("key", np.int64), ("outcome", np.int8), ("remoteness", np.int32)])
        with store._cursor(row, query) as cursor:
            values = np.fromiter(map(tuple, cursor), dtype=layout)
        return values["key"].copy(), values["outcome"].copy(), values["remoteness"].copy()

    def read_parts(self, store: Store, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        """The whole tablebase as one part."""
        keys, outcome, remoteness = self.read_values(store, row)
        codes = value_codes(outcome, remoteness)
        yield (keys, codes, self._extra_codes(store, row, keys)) if extra else (keys, codes)

    def _extra_codes(self, store: Store, row: TablebaseRow, keys: np.ndarray) -> np.ndarray:
        """int64[n] the extra codes of ascending ``keys`` (0 where none is stored)."""
        extra_keys, codes = self.read_codes(store, row, extra=True)
        found = np.zeros(len(keys), dtype=np.int64)
        found[np.searchsorted(keys, extra_keys)] = codes
        return found

    def probe(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, Value]:
        table = self.values_table(row)
        query = sa.select(table.c.key, table.c.outcome, table.c.remoteness).where(table.c.key.in_(sa.bindparam("keys", expanding=True)))
        found: dict[int, Value] = {}
        with store._reading(row) as reader:
            for start in range(0, len(wanted), PROBE_BATCH):
                for key, outcome, remoteness in reader.execute(query, {"keys": wanted[start : start + PROBE_BATCH]}):
                    found[key] = (outcome, remoteness)
        return found


class _BlocksLayout(_Layout):
    """Fixed blocks of keys, no keys stored, values and extra values side by side in a
    row a block (:mod:`~tablebase.store.blocks`), read through the store's cache of
    decoded blocks; a build's last span of keys is kept until it completes.

    :param blocking: where keys are stored (:data:`~tablebase.store.blocks.BY_KEY` in the
        blocks layout, :data:`~tablebase.store.blocks.BY_SIDE` in the sided one).
    :param compact: whether unstored keys are a value code of their own, not a bitmap,
        and a draw's DTZ is left out, the reader knowing it is 0 (the sided layout since
        format 5: :class:`~tablebase.store.blocks.BlockFormat`).
    :param codec: what compresses the blobs.
    """

    separate_extra = False

    def __init__(self, blocking: Blocking, compact: bool = False, codec: Codec = ZSTD) -> None:
        self.blocking, self.compact, self.codec = blocking, compact, codec

    def make_table(self, row: TablebaseRow) -> sa.Table:
        return blocks_table(row.table_name)

    def form(self, row: TablebaseRow) -> BlockFormat:
        """What the blobs of a tablebase of this layout hold."""
        if self.compact:
            return BlockFormat(DRAW_DTZ_CODE if row.value_kind == DTZ else None, gaps=True, codec=self.codec)
        return PLAIN._replace(codec=self.codec)

    def read_table(self, row: TablebaseRow) -> BlocksTable:
        """What a probe needs of a tablebase's table, made once for each catalog row object
        (making its :class:`sa.Table` costs a quarter of a millisecond of an ending's
        first probe)."""
        return _once_per_row(_READ_TABLES, row, self._made_read_table)

    def _made_read_table(self, row: TablebaseRow) -> BlocksTable:
        """:meth:`read_table`, made."""
        return BlocksTable(row.table_name, self.blocking, self.form(row))

    def records(
        self, store: Store, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, extra: np.ndarray | None
    ) -> Iterable[tuple[object, ...]]:
        writer = store._block_writers.get(row.id)
        if writer is None:
            writer = store._block_writers[row.id] = BlockWriter(self.blocking, store.storing.level, self.form(row))
        return writer.add(keys, value_codes(outcome, remoteness), extra)

    def read_codes(self, store: Store, row: TablebaseRow, extra: bool) -> tuple[np.ndarray, np.ndarray]:
        return join_parts((part[0], part[-1]) for part in self.read_parts(store, row, extra))

    def read_parts(self, store: Store, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        table = self.values_table(row)
        with store._cursor(row, blocks_query(table, extra)) as cursor:
            yield from block_parts(cursor, self.blocking, self.form(row))

    def codes(self, store: Store, row: TablebaseRow, wanted: list[int], extra: bool) -> dict[int, int]:
        with store._reported(), store._damage_reported(row):
            return store._blocks.probe(store._fetch(row), self.read_table(row), "extra" if extra else "codes", wanted)

    def probe_both(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[Value, int | None]]:
        """Both codes from one block lookup a key, a warm probe's from the cache alone."""
        return {key: _value_and_extra(*codes) for key, codes in self.both_codes(store, row, wanted).items()}

    def both_codes(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[int, int]]:
        """The value and extra codes of each wanted key that is stored (see :meth:`probe_both`)."""
        blocks = store._blocks
        table = self.read_table(row)
        both = blocks.cached_both(table, wanted)
        if both is None:
            with store._reported(), store._damage_reported(row):
                blocks.load(store._fetch_many(row), table, wanted)
                both = blocks.cached_both(table, wanted)  # None where they outnumber the cache
                if both is None:
                    both = blocks.probe_both(store._fetch(row), table, wanted)
        return both

    def probe_array(self, store: Store, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Vectorized block by block."""
        with store._reported(), store._damage_reported(row):
            found, codes, extra = store._blocks.probe_array(store._fetch_many(row), self.read_table(row), keys, row.value_kind in EXTRA_KINDS)
        outcome, remoteness = split_codes(codes)
        outcome[~found], remoteness[~found] = 0, -1
        return found, outcome, remoteness, None if extra is None else extra_values(extra)[0]


class _OneSidedLayout(_BlocksLayout):
    """The sided layout with black to move's DTM left out (:data:`ONE_SIDED`,
    :data:`ONE_SIDED_XZ`; :attr:`~tablebase.store.blocks.BlockFormat.dtm_left_out`): every
    read gives those keys' remoteness from their moves
    (:func:`tablebase.read.derived.derived_remoteness`), so that no reader sees the difference."""

    def __init__(self, codec: Codec = ZSTD) -> None:
        super().__init__(BY_SIDE, compact=True, codec=codec)

    def form(self, row: TablebaseRow) -> BlockFormat:
        return super().form(row)._replace(dtm_left_out=True)

    def codes(self, store: Store, row: TablebaseRow, wanted: list[int], extra: bool) -> dict[int, int]:
        found = super().codes(store, row, wanted, extra)
        return found if extra else _with_dtm(store, row, found)

    def both_codes(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[int, int]]:
        both = super().both_codes(store, row, wanted)
        values = _with_dtm(store, row, {key: codes[0] for key, codes in both.items()})
        return {key: (values[key], extra) for key, (_code, extra) in both.items()}

    def probe_array(self, store: Store, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        found, outcome, remoteness, extra = super().probe_array(store, row, keys)
        left_out = np.flatnonzero(remoteness == TO_DERIVE)
        if len(left_out):
            remoteness[left_out] = derived_remoteness(store, row, keys[left_out], outcome[left_out])
        return found, outcome, remoteness, extra

    def read_parts(self, store: Store, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        for keys, codes, *beside in super().read_parts(store, row, extra):
            yield (keys, _with_dtm_array(store, row, keys, codes), *beside)

    def read_stored_parts(self, store: Store, row: TablebaseRow, extra: bool) -> Iterator[Part]:
        return super().read_parts(store, row, extra)

    def probe_both_as_stored(self, store: Store, row: TablebaseRow, wanted: list[int]) -> dict[int, tuple[Value, int | None]]:
        return {key: _value_and_extra(*codes) for key, codes in super().both_codes(store, row, wanted).items()}

    def probe_array_as_stored(self, store: Store, row: TablebaseRow, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        return super().probe_array(store, row, keys)


def _with_dtm(store: Store, row: TablebaseRow, codes: dict[int, int]) -> dict[int, int]:
    """The value code of each key, those whose DTM is left out valued from their moves."""
    if min(codes.values(), default=0) >= GAP:
        return codes
    keys = np.fromiter(codes, dtype=np.int64, count=len(codes))
    valued = _with_dtm_array(store, row, keys, np.fromiter(codes.values(), dtype=np.int64, count=len(codes)))
    return dict(zip(codes, valued.tolist()))


def _with_dtm_array(store: Store, row: TablebaseRow, keys: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """int64[n] value codes of int64[n] stored keys, those whose DTM is left out (below
    :data:`~tablebase.store.blocks.GAP`) valued from their moves."""
    left_out = np.flatnonzero(codes < GAP)
    if not len(left_out):
        return codes
    outcome, _remoteness = split_codes(codes[left_out])
    valued = codes.copy()
    valued[left_out] = value_codes(outcome, derived_remoteness(store, row, keys[left_out], outcome))
    return valued


def derived_remoteness(store: Store, row: TablebaseRow, keys: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """:func:`tablebase.read.derived.derived_remoteness`, imported at its first use: the store
    reads a game only there."""
    from tablebase.read.derived import derived_remoteness as from_moves

    return from_moves(store, row, keys, outcome)


_LAYOUTS: dict[int, _Layout] = {
    ROWS: _RowsLayout(),
    PACKED: _Layout(),
    BLOCKS: _BlocksLayout(BY_KEY),
    SIDED_DRAWS_STORED: _BlocksLayout(BY_SIDE),
    SIDED: _BlocksLayout(BY_SIDE, compact=True),
    SIDED_XZ: _BlocksLayout(BY_SIDE, compact=True, codec=XZ),
    BLOCKS_XZ: _BlocksLayout(BY_KEY, codec=XZ),
    ONE_SIDED: _OneSidedLayout(),
    ONE_SIDED_XZ: _OneSidedLayout(codec=XZ),
}


def _gathered(parts: Iterable[tuple[np.ndarray, ...]], size: int) -> Iterator[tuple[np.ndarray, ...]]:
    """Consecutive parts (tuples of arrays, of one length within a part) joined into parts
    of at least ``size`` positions, the last one of what is left: a repack reads a
    blocks table a span at a time, and a write of one span encodes it in one thread."""
    held: list[tuple[np.ndarray, ...]] = []
    count = 0
    for part in parts:
        held.append(part)
        count += len(part[0])
        if count >= size:
            yield tuple(np.concatenate(column) for column in zip(*held))
            held, count = [], 0
    if held:
        yield tuple(np.concatenate(column) for column in zip(*held))


def _layout(row: TablebaseRow) -> _Layout:
    """The storage layout of a tablebase, by its ``format_version``."""
    return _LAYOUTS[row.format_version]


def blocks_of(row: TablebaseRow) -> tuple[Blocking, BlockFormat]:
    """Where a tablebase in a blocks layout (blocks or sided) stores its keys, and what
    its blobs hold: what :func:`~tablebase.store.blocks.block_parts` of its rows needs.

    :raises ValueError: for a tablebase in another layout.
    """
    layout = _layout(row)
    if not isinstance(layout, _BlocksLayout):
        raise ValueError(f"{row.description} is not stored in blocks")
    return layout.blocking, layout.form(row)
