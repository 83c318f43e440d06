"""The stored values of moves that leave a tablebase: each dependency read once
(:class:`ReadOnce`), its successors found, their outcomes, remoteness, Grundy values and
Syzygy categories gathered for the passes (:mod:`tablebase.solve.kinds`) and for verify.

Reading other tablebases is the caller's: it passes a :data:`ReadTable`, so this package
stays free of SQL.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tablebase.core.errors import GameError, NotBuiltError
from tablebase.core.game import Game
from tablebase.solve.acyclic import NO_GRUNDY
from tablebase.solve.dtz import categories
from tablebase.solve.graph import ExitMoves
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.tables import IndexedTable, StoredTable
from tablebase.util.cores import usable_cores
from tablebase.util.interrupt import thread_pool
from tablebase.util.grouping import grouped

ReadTable = Callable[..., StoredTable | IndexedTable]
"""``read(game, dtz=True, window=None)``: reads the stored tablebase of a dependency,
without its DTZ where ``dtz`` is false and leaving it out saves memory (an index space),
only the keys of ``window`` where one is given (:meth:`~tablebase.core.game.Game.exit_window`).
:raises NotBuiltError: if it is not built."""

ExitTable = tuple[np.ndarray, Game, StoredTable | IndexedTable, np.ndarray]
"""What :func:`_exit_tables` gives for one dependency: int64[j] which moves lead into it,
the dependency, its stored tablebase, and its indices of those moves' successors."""


class ReadOnce:
    """``read`` that reads each dependency of ``game`` once, however often it is asked,
    until :meth:`forget`; only the keys ``game``'s moves can reach
    (:meth:`~tablebase.core.game.Game.exit_window`).

    :raises NotBuiltError: when asked for a dependency and ``read`` is ``None``.
    """

    def __init__(self, game: Game, read: ReadTable | None, dtz: bool = True) -> None:
        self.game, self.read, self.dtz = game, read, dtz
        self.tables: dict[tuple[str, str], StoredTable | IndexedTable] = {}

    def __call__(self, dependency: Game) -> StoredTable | IndexedTable:
        identity = (dependency.name, dependency.identity())
        if identity not in self.tables:
            self._read(dependency)
        return self.tables[identity]

    def _read(self, dependency: Game) -> None:
        if self.read is None:
            raise NotBuiltError(f"{self.game.describe()} needs the stored tablebase of {dependency.describe()}")
        table = self.read(dependency, dtz=self.dtz, window=self.game.exit_window(dependency))
        self.tables[(dependency.name, dependency.identity())] = table

    def read_all(self) -> None:
        """Read every dependency of the game not read yet now, one thread a core (the
        reads decode the store's blocks, numpy work that runs in parallel; a store opens
        a connection a thread), so that later calls only look them up and may come from
        any thread (KRPvKR's eight dependencies of 5 and 4 pieces are read much faster
        than one after the other, benchmarks/RESULTS.md).

        :raises NotBuiltError: as :meth:`__call__`.
        """
        unread = [d for d in self.game.dependencies() if (d.name, d.identity()) not in self.tables]
        with thread_pool(usable_cores(), "read") as threads:
            list(threads.map(self._read, unread))

    def forget(self) -> None:
        """Drop the tablebases read so far (their memory), to read them again if asked."""
        self.tables.clear()


def exit_values(
    game: Game, moves: ExitMoves, read: ReadTable | None, grundy: bool = False
) -> tuple[Exits, np.ndarray]:
    """The stored values of the successors of moves that leave the tablebase.

    :param grundy: whether to read their Grundy values too (an impartial game).
    :returns: the :class:`~tablebase.solve.retrograde.exit_codes.Exits`, and int64[k] the
        successors' Grundy values (:data:`~tablebase.solve.acyclic.NO_GRUNDY` where none,
        or where not asked for).
    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a successor is not in its tablebase, or an impartial game's
        dependency stores no Grundy values.
    """
    return _values_of(game, moves, _exit_tables(game, moves, read), grundy)


def exit_categories(game: Game, moves: ExitMoves, read: ReadTable | None) -> np.ndarray:
    """int8[k]: Syzygy's category (-2..2, :mod:`tablebase.solve.dtz`) of the successor of
    each move that leaves the tablebase, for the successor's side to move, from the DTZ
    its tablebase stores.

    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a dependency stores no DTZ, or a successor is not in its tablebase.
    """
    return _categories_of(game, moves, _exit_tables(game, moves, read))


def exit_categories_and_values(game: Game, moves: ExitMoves, read: ReadTable | None) -> tuple[np.ndarray, Exits]:
    """:func:`exit_categories` and :func:`exit_values` of the same moves, each
    dependency's successors found once.

    :raises: as those two.
    """
    tables = _exit_tables(game, moves, read)
    return _categories_of(game, moves, tables), _values_of(game, moves, tables, False)[0]


def _values_of(game: Game, moves: ExitMoves, tables: list[ExitTable], grundy: bool) -> tuple[Exits, np.ndarray]:
    """:func:`exit_values` from the moves' :func:`_exit_tables`."""
    outcome = np.zeros(len(moves.src), dtype=np.int8)
    remoteness = np.zeros(len(moves.src), dtype=np.int32)
    values = np.full(len(moves.src), NO_GRUNDY, dtype=np.int64)
    for these, dependency, stored, found in tables:
        outcome[these], remoteness[these] = stored.outcome[found], stored.remoteness_of(found, moves.key[these])
        if grundy:
            if stored.grundy is None:
                raise GameError(f"{game.describe()} is impartial, but {dependency.describe()} stores no Grundy values")
            values[these] = stored.grundy[found]
    return Exits(moves.src, outcome, remoteness), values


def _categories_of(game: Game, moves: ExitMoves, tables: list[ExitTable]) -> np.ndarray:
    """:func:`exit_categories` from the moves' :func:`_exit_tables`."""
    category = np.zeros(len(moves.src), dtype=np.int8)
    for these, dependency, stored, found in tables:
        if stored.dtz is None:
            raise GameError(f"{game.describe()} needs the DTZ of {dependency.describe()}, which stores none")
        category[these] = categories(stored.outcome[found], stored.dtz[found])
    return category


def _exit_tables(game: Game, moves: ExitMoves, read: ReadTable | None) -> list[ExitTable]:
    """For each dependency that moves lead into: bool[k] which moves, the dependency,
    its stored tablebase, and the indices of those moves' successors in it.

    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a successor is not in its tablebase.
    """
    dependencies = game.dependencies()
    by_table, starts = grouped(moves.table, len(dependencies))
    found = []
    for table in np.flatnonzero(np.diff(starts)).tolist():
        dependency = dependencies[table]
        if read is None:
            raise NotBuiltError(f"{game.describe()} needs the stored tablebase of {dependency.describe()}")
        stored = read(dependency)
        these = by_table[starts[table] : starts[table + 1]]
        found.append((these, dependency, stored, stored.find(moves.key[these])))
    return found
