"""A store's writes: a build's lifecycle (:meth:`~Writing.begin_build`, then
:meth:`~Writing.write` in batches, then :meth:`~Writing.complete` or
:meth:`~Writing.abandon`), a tablebase stored again in another format
(:meth:`~Writing.repack`), and an SQLite file's space given back: the :class:`Writing`
part of :class:`~tablebase.store.database.Store`."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import NoReturn

import numpy as np
import sqlalchemy as sa
from sqlalchemy.orm import Session

from tablebase.core.errors import BuildInProgressError, StoreError
from tablebase.core.tally import Tally
from tablebase.core.values import StoredKind
from tablebase.store.blocks_layout import BlocksLayout
from tablebase.store.catalog import Catalog
from tablebase.store.codecs import Codec
from tablebase.store.engine import PAGE_SIZE, vacuum
from tablebase.store.formats import KeyShape, format_version
from tablebase.store.layout import Writes
from tablebase.store.layouts import layout_of, tables, values_table
from tablebase.store.locks import LOCK_SPACE
from tablebase.store.packed import encode_chunks, extra_codes
from tablebase.store.packed_layout import extra_table
from tablebase.store.schema import BUILDING, COMPLETE, EXTRA_KINDS, TablebaseRow
from tablebase.util.progress import Advance

WRITE_BATCH = 1 << 20
"""Positions (or keys of an index space) a build writes per call and per transaction: 16
blocks of the blocks layout, which are encoded side by side."""


class Writing(Catalog):
    """Builds and repacks of a store's tablebases."""

    layout: str
    level: int | None
    codec: Codec
    dtm_sides: str
    _writes: Writes
    _last_written: dict[int, int]
    """The largest key written of each tablebase being built in a layout whose keys are
    written in ascending order, by catalog row id."""

    def begin_build(
        self,
        game: str,
        params: str,
        description: str,
        value_kind: str = StoredKind.WDL,
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
        with self._reader.reported(), Session(self.engine) as session, session.begin():
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
                format_version=format_version(self.storing.layout, self.codec, self.storing.dtm_sides, shape, value_kind),
                value_kind=value_kind,
                game_version=version,
                builder=_this_process(),
                created_at=datetime.now(timezone.utc).replace(tzinfo=None),
            )
            session.add(row)
            session.flush()
            for table in tables(row):
                table.create(session.connection())
            session.expunge(row)
            self._locks.hold(row.id)  # before the commit makes the row visible
        return row

    def abandon(self, row: TablebaseRow) -> None:
        """Drop a build that will not be completed (its row and tables), after an error."""
        with self._reader.reported(), Session(self.engine) as session, session.begin():
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
        layout = layout_of(row)
        if len(keys) and layout.in_key_order:
            if keys[0] <= self._last_written.get(row.id, -1):
                raise StoreError(f"{row.description}: packed values are written in ascending key order, in one call")
            self._last_written[row.id] = int(keys[-1])
        statement = sa.insert(layout.values_table(row)).compile(dialect=self.engine.dialect)
        separate_extra = extra is not None and layout.separate_extra
        if separate_extra:
            extra_statement = sa.insert(extra_table(row)).compile(dialect=self.engine.dialect)
        for start in range(0, len(keys), batch_size):
            part = slice(start, start + batch_size)
            codes = None if extra is None else extra_codes(extra[part], None if known is None else known[part])
            records = layout.records(self._writes, row, keys[part], outcome[part], remoteness[part], codes)
            with self._writing(row), self.engine.begin() as connection:
                self._insert(connection, statement, records)
                if separate_extra:
                    self._insert(connection, extra_statement, encode_chunks(keys[part], codes))
            advance(len(keys[part]))

    @contextlib.contextmanager
    def _writing(self, row: TablebaseRow) -> Iterator[None]:
        """:meth:`~tablebase.store.reader.Reader.reported` for a build's writes: a
        failure because another build took the row over (``--force`` drops its tables:
        "no such table") says so."""
        try:
            with self._reader.reported():
                yield
        except StoreError:
            with self._reader.reported(), Session(self.engine) as session:
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
        writer = self._writes.block_writers.pop(row.id, None)
        if writer is not None:
            statement = sa.insert(values_table(row)).compile(dialect=self.engine.dialect)
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
        with self._reader.reported(), Session(self.engine) as session, session.begin():
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
        parts: Iterable[tuple[np.ndarray, ...]],
        advance: Advance = lambda _count: None,
    ) -> TablebaseRow:
        """Store a complete tablebase again, in this store's layout, and drop the old
        copy, as a rebuild replaces a tablebase: the new copy gets a new id and replaces
        the old one in the transaction that completes it, so the old one is served until
        then, and a repack that is killed leaves it as it was (the next build or repack
        drops the unfinished copy).

        :param shape: what of the game's keys chooses the format (see :meth:`begin_build`).
        :param parts: the tablebase's values in key order, as
            :meth:`~tablebase.store.reading.Reading.read_parts` gives them with ``extra``
            where its value kind has extra values and ``known``, every remoteness valued
            (a remoteness the tablebase leaves out too: :func:`tablebase.read.filled.read_parts`
            gives them so); iterated only where the tablebase is written again.
        :param advance: called with the number of positions written, batch by batch.
        :returns: the new catalog row, or ``row`` itself when it is already in the layout
            (and, for a blocks layout, the store was opened with no compression level).
        :raises BuildInProgressError: if another process is building or repacking it.
        :raises StoreError: if the database fails or a stored chunk is damaged.
        """
        in_layout = format_version(self.storing.layout, self.codec, self.storing.dtm_sides, shape, row.value_kind) == row.format_version
        if in_layout and (self.storing.level is None or not isinstance(layout_of(row), BlocksLayout)):
            return row
        extra = row.value_kind in EXTRA_KINDS
        new = self.begin_build(row.game, row.params, row.description, row.value_kind, version=row.game_version, shape=shape)
        try:
            for keys, outcome, remoteness, *beside in _gathered(parts, WRITE_BATCH):
                self.write(new, keys, outcome, remoteness, advance, extra=beside[0] if extra else None, known=beside[1] if extra else None)
            return self.complete_tallied(new, Tally(row.wins, row.draws, row.losses, row.max_remoteness), row.build_seconds)
        except BaseException:
            with contextlib.suppress(Exception):  # the first error is the one to report
                self.abandon(new)
            raise

    def pages_outdated(self) -> bool:
        """Whether this is an SQLite file whose pages are not of :data:`~tablebase.store.engine.PAGE_SIZE` (made
        before it), which :meth:`reclaim_space` would change."""
        if self.engine.dialect.name != "sqlite":
            return False
        with self._reader.reported(), self.engine.connect() as connection:
            return connection.exec_driver_sql("PRAGMA page_size").scalar() != PAGE_SIZE

    def reclaim_space(self) -> None:
        """Give the pages of dropped tables back to the file system: SQLite's ``VACUUM``
        (which needs as much free disk as the database takes, for a while), which also
        gives a file made before :data:`~tablebase.store.engine.PAGE_SIZE` its pages where no other connection
        holds it (leaving WAL mode meanwhile, as SQLite requires to change them); nothing
        for other databases, which reclaim space themselves (PostgreSQL's autovacuum).

        :raises StoreError: if the database fails.
        """
        if self.engine.dialect.name != "sqlite":
            return
        with self._reader.reported():
            connection = self.engine.raw_connection()  # outside any transaction, as VACUUM must be
            try:
                vacuum(connection.driver_connection)
            finally:
                connection.close()


def _write_first(session: Session) -> None:
    """Begin a transaction that reads, then writes, with a write (an empty ``UPDATE``).

    SQLite takes its write lock at a transaction's first write, waiting up to
    :data:`~tablebase.store.engine.BUSY_TIMEOUT` for another writer; but a transaction that has read before is
    refused at once ("database is locked", WAL's busy snapshot) if another process wrote
    since its read began, as two builds completing side by side do."""
    session.execute(sa.update(TablebaseRow).where(sa.false()).values(status=TablebaseRow.status))


def _this_process() -> str:
    """``host:pid`` of this process, as recorded in ``builder``."""
    return f"{socket.gethostname()}:{os.getpid()}"


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


