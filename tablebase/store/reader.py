"""What the storage layouts read a store's tablebases through (:mod:`~tablebase.store.layout`):
the store's held reader connection in short read transactions, raw DBAPI cursors for
whole reads, blocks fetched by number as SQL text, the caches of decoded chunks and
blocks, and failures (of the database, or a damaged blob) turned into :class:`StoreError`."""

from __future__ import annotations

import contextlib
import functools
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tablebase.core.errors import StoreError
from tablebase.store.block_reader import BlockReader, Fetch, FetchMany
from tablebase.store.blocks import BLOCK_QUERY, BLOCKS_IN_QUERY, READ_STAND_IN
from tablebase.store.engine import first_line
from tablebase.store.packed import ChunkReader
from tablebase.store.schema import TablebaseRow


class Reader:
    """A store's reads: its held connection, and what it keeps of the tablebases read.

    :param engine: the store's engine.
    :param location: where the database is, as messages show it.
    :param cached: the keys of decoded blocks to keep
        (:func:`~tablebase.store.block_reader.cached_keys`).
    """

    def __init__(self, engine: Engine, location: str, cached: int) -> None:
        self.engine, self.location = engine, location
        self._connection: sa.Connection | None = None
        self.chunks = ChunkReader()
        """Decoded chunks of the packed layout."""
        self.blocks = BlockReader(cached)
        """Decoded blocks of the blocks layouts (keys of decoded blocks kept: ``cached``)."""

    def close(self) -> None:
        """Release the held connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    @contextlib.contextmanager
    def reported(self) -> Iterator[None]:
        """Turn a database failure (e.g. a lock held too long, or a page damaged) into a
        :class:`StoreError`, raised through SQLAlchemy or by a raw DBAPI cursor."""
        try:
            yield
        except (sa.exc.DBAPIError, self.engine.dialect.loaded_dbapi.Error) as error:
            raise StoreError(f"database {self.location}: {first_line(error)}") from None

    @contextlib.contextmanager
    def cursor(self, row: TablebaseRow, query: sa.Select[Any]) -> Iterator[Any]:
        """A raw DBAPI cursor over a query's rows (much faster than SQLAlchemy's result
        rows for millions of them); failures inside become :class:`StoreError`."""
        with self.reported(), self.damage_reported(row):
            connection = self.engine.raw_connection()
            try:
                cursor = connection.cursor()
                cursor.execute(str(query.compile(dialect=self.engine.dialect)))
                yield cursor
            finally:
                connection.close()

    def fetch(self, row: TablebaseRow) -> Fetch:
        """Reads one block of a tablebase (:data:`~tablebase.store.blocks.BLOCK_QUERY`) in a read transaction of
        its own."""

        def fetch(block: int) -> Sequence[Any] | None:
            sql, positional = _compiled(BLOCK_QUERY, self.engine.dialect)
            sql = _on_table(sql, row.table_name, self.engine.dialect)
            with self.reading(row) as reader:  # SQL text: cheaper than a compiled statement
                return reader.exec_driver_sql(sql, (block,) if positional else {"block": block}).fetchone()

        return fetch

    def fetch_many(self, row: TablebaseRow) -> FetchMany:
        """Reads some blocks of a tablebase (:data:`~tablebase.store.blocks.BLOCKS_IN_QUERY`) in a read transaction
        of its own."""

        def fetch_many(blocks: list[int]) -> list[Sequence[Any]]:
            if not blocks:
                return []
            listed = ", ".join(str(int(block)) for block in blocks)  # integers written out: no expanding parameter to render
            sql = _on_table(_in_list_sql(BLOCKS_IN_QUERY, self.engine.dialect), row.table_name, self.engine.dialect)
            with self.reading(row) as reader:  # one statement through the DBAPI cursor: much cheaper than SQLAlchemy's result
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
    def reading(self, row: TablebaseRow) -> Iterator[sa.Connection]:
        """The held reader connection, in a short read transaction that ends afterwards
        (no stale snapshot is held); failures become :class:`StoreError`."""
        if self._connection is None:
            self._connection = self.engine.connect()
        with self.reported(), self.damage_reported(row):
            try:
                yield self._connection
            finally:
                self._connection.rollback()

    @contextlib.contextmanager
    def damage_reported(self, row: TablebaseRow) -> Iterator[None]:
        """Turn a damaged chunk (a bad blob) into a :class:`StoreError`."""
        try:
            yield
        except (ValueError, zlib.error) as error:
            raise StoreError(f"the stored {row.description} tablebase in {self.location} is damaged: {error}") from None


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
    """The SQL text of a read of :data:`~tablebase.store.blocks.READ_STAND_IN` made a read of the table
    ``table_name`` (each name quoted as the dialect quotes it)."""
    quote = dialect.identifier_preparer.quote
    return sql.replace(quote(READ_STAND_IN), quote(table_name))
