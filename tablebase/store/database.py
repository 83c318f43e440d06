"""Opening a tablebase database, writing tablebases in batches, and probing keys.

SQLite is the default; any SQLAlchemy URL may be given instead. Opening a database runs
the Alembic migrations shipped in ``migrations/`` and refuses a database whose schema is
newer than this version knows, or that holds tables of something else. An SQLite file
that this process may not write (the file, or its directory) is opened read-only for
reading. A URL's password never appears in a message.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tablebase.core.errors import StoreError, UnknownLayoutError, UsageError
from tablebase.store.block_reader import cached_keys
from tablebase.store.codecs import ZSTD, Codec, checked_level, codec_named
from tablebase.store.engine import engine_for, first_line, hide_password, is_url, resolve_location, sqlite_file, use_wal, write_refusal
from tablebase.store.formats import DTM_SIDES, Storing
from tablebase.store.layout import Writes
from tablebase.store.locks import BuildLocks, build_locks, discard_lock_file, lock_file
from tablebase.store.migration import migrate, schema_revisions
from tablebase.store.reader import Reader
from tablebase.store.reading import Reading
from tablebase.store.schema import AUTO, LAYOUTS, XZ_FORMATS, TablebaseRow
from tablebase.store.writing import Writing


def open_store(
    location: str | os.PathLike[str] | None = None,
    *,
    create: bool = True,
    storing: Storing = Storing(),
) -> Store:
    """Open (and if needed create or upgrade) a tablebase database.

    :param location: an SQLite path or an SQLAlchemy URL; see :func:`~tablebase.store.engine.resolve_location`.
    :param create: when true, a missing SQLite file is made, and one that this process
        may not write (the file, or its directory: SQLite writes its journal beside it)
        is an error; when false, a missing file is an error, and one it may not write is
        opened read-only (it can be read, not built into, is not upgraded, and nothing
        is written beside it).
    :param storing: how this store writes the tablebases it builds or repacks
        (:class:`~tablebase.store.formats.Storing`): ``layout``, the storage layout, a
        name in :data:`~tablebase.store.schema.LAYOUTS` or ``auto`` (blocks over an index
        space, sided where its keys alternate sides to move, else packed; stored ones are
        read in their own); ``codec``, what compresses the blobs of the blocks layouts, a
        name in :data:`~tablebase.store.codecs.CODECS`: ``zstd`` (fast to write and
        read) or ``xz`` (smaller, slower to write and to decode); ``level``, the codec's
        level for the blocks layouts (default: the codec's
        :attr:`~tablebase.store.codecs.Codec.default_level`; given, :meth:`Store.repack`
        writes again the tablebases already in the layout too); ``dtm_sides``, a name in
        :data:`~tablebase.store.formats.DTM_SIDES`: ``one`` leaves black to move's DTM
        out of the sided tablebases with DTZ this store writes (smaller; that DTM is then
        valued from one ply of moves when read), ``auto`` (the default) of those whose
        game says so, ``both`` of none.
    :raises StoreError: if the file is missing (with ``create=False``) or may not be
        written (with ``create=True``, naming the file or the directory), is not a tablebase
        database, has a schema newer than this version of tablebase, or an older one
        that cannot be upgraded because it is read-only.
    :raises UsageError: if ``$TABLEBASE_CACHE_MIB`` is set to no whole number of MiB,
        ``codec`` is unknown, ``level`` is none of its levels or ``dtm_sides`` is not
        in :data:`~tablebase.store.formats.DTM_SIDES`.
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
    if not is_url(location):
        path = Path(location)
        if path.is_dir():
            raise StoreError(f"{location} is a directory, not a tablebase database")
        if not create and not path.exists():
            raise StoreError(f"no tablebase database at {location} (build one with: tablebase build GAME)")
        if create and not path.parent.is_dir():
            raise StoreError(f"cannot create {location}: no directory {path.parent}")
        if create and not path.exists() and not os.access(path.parent, os.W_OK):
            raise StoreError(f"cannot create {location}: this user may not write in {path.parent}")
        refusal = write_refusal(path)
        if create and refusal:
            raise StoreError(f"cannot write {location}: {refusal}")
        read_only = refusal is not None
    engine = engine_for(location, read_only)
    file = sqlite_file(engine, location)
    lock_made = file is not None and create and not os.path.exists(lock_file(file))
    locks = build_locks(engine, file, writer=create)  # before the file is first opened
    try:
        migrate(engine, shown, read_only)
        if engine.dialect.name == "sqlite" and not read_only:
            use_wal(engine)
    except (sa.exc.DBAPIError, sqlite3.Error, StoreError) as error:  # sqlite3's own from use_wal
        locks.close()
        engine.dispose()
        if lock_made and file is not None:
            discard_lock_file(file)  # beside a file of something else
        if isinstance(error, StoreError):
            raise
        raise StoreError(hide_password(f"{shown} is not a usable tablebase database: {first_line(error)}")) from None
    return Store(engine, location, locks, storing, cached=cached, codec=blob_codec)


def upgrade_schema(location: str | os.PathLike[str] | None = None) -> tuple[str | None, str]:
    """Upgrade an existing database to the newest schema revision, in one transaction.

    :returns: ``(before, after)``, the revisions (``before`` is ``None`` for an empty one).
    :raises StoreError: as :func:`~tablebase.store.migration.schema_revisions` and :func:`open_store` do.
    """
    before, _head = schema_revisions(location)
    with open_store(location, create=False):
        pass
    return before, schema_revisions(location)[0] or ""


class Store(Writing, Reading):
    """An open tablebase database. Use :func:`open_store` to make one: its catalog
    (:class:`~tablebase.store.catalog.Catalog`), builds and repacks
    (:class:`~tablebase.store.writing.Writing`) and reads
    (:class:`~tablebase.store.reading.Reading`).

    A build goes :meth:`begin_build` → :meth:`write` (any number of batches, each in its
    own transaction) → :meth:`complete`. Only complete tablebases are found by
    :meth:`find`, so a killed build is never served; the next build starts it over.
    """

    def __init__(
        self,
        engine: Engine,
        location: str,
        locks: BuildLocks,
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
        self._locks = locks
        self._reader = Reader(engine, self.location, cached)  # keys of decoded blocks kept
        self._last_written: dict[int, int] = {}  # the largest key written per packed row
        self._writes = Writes(storing.level)
        self._catalog_read: dict[tuple[str, int], tuple[float, Mapping[str, TablebaseRow]]] = {}  # complete_rows, when read

    @property
    def concurrent_writes(self) -> bool:
        """Whether several processes can write to the database at once (a server's, not
        an SQLite file, whose writers take turns)."""
        return self.engine.dialect.name != "sqlite"

    def close(self) -> None:
        """Release the connections."""
        self._reader.close()
        self._locks.close()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
