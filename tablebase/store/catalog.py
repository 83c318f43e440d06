"""A store's catalog of tablebases: the rows that say which tablebases it holds, found
by game, parameters and version, the complete ones kept a moment for readers that ask
for them again and again, and tablebases dropped: the :class:`Catalog` part of
:class:`~tablebase.store.database.Store`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from types import MappingProxyType

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from tablebase.core.errors import NotBuiltError, StoreError
from tablebase.store.layouts import tables
from tablebase.store.locks import BuildLocks
from tablebase.store.reader import Reader
from tablebase.store.schema import BUILDING, COMPLETE, FORMATS, TablebaseRow

CATALOG_SECONDS = 1.0
"""How long :meth:`Catalog.complete_rows` keeps the catalog rows it read."""


class Catalog:
    """The catalog rows of a store's database."""

    engine: Engine
    location: str
    _reader: Reader
    _locks: BuildLocks
    _catalog_read: dict[tuple[str, int], tuple[float, Mapping[str, TablebaseRow]]]
    """:meth:`complete_rows` of each game and version, and when it was read."""

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
        with self._reader.reported(), Session(self.engine) as session:
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
        with self._reader.reported(), Session(self.engine) as session:
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
        also when the stored tablebase is outdated (built for another version of the game);
        saying so when a live build of it is under way."""
        row = self.find(game, params, version)
        if row is not None:
            return row
        rows = self.catalog(game, params)
        if any(old.game_version == version and old.status == BUILDING and not self.abandoned(old) for old in rows):
            raise NotBuiltError(f"the {game} tablebase with these parameters is being built by another process; ask again when it ends")
        if any(old.status == COMPLETE for old in rows):
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
        with self._reader.reported(), Session(self.engine) as session:
            return list(session.scalars(query))

    @staticmethod
    def _rows_of(game: str, params: str) -> sa.Select[tuple[TablebaseRow]]:
        return sa.select(TablebaseRow).where(TablebaseRow.game == game, TablebaseRow.params == params)

    def _drop(self, session: Session, rows: Iterable[TablebaseRow]) -> None:
        for old in rows:
            for table in tables(old):
                table.drop(session.connection(), checkfirst=True)
            session.delete(old)
        session.flush()
        self.forget_catalog()
