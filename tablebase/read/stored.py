"""The stored tablebases of a game's dependencies as the solve and ``verify`` read them
(:data:`~tablebase.solve.exits.ReadTable`): the one place where the store's rows become
the solve's arrays, so that ``solve/`` knows nothing of SQL and ``store/`` nothing of
games; and what of a game's keys chooses the format the store writes (:func:`key_shape`)."""

from __future__ import annotations

import functools

import numpy as np

from tablebase.core.batches import KeyWindow
from tablebase.core.game import Game
from tablebase.core.values import StoredKind
from tablebase.read.derived import derived_remoteness
from tablebase.read.filled import read_values
from tablebase.solve import index_of
from tablebase.solve.acyclic import NO_GRUNDY
from tablebase.solve.exits import ReadTable
from tablebase.solve.tables import IndexedTable, StoredTable
from tablebase.store import KeyShape, Store

DENSE_UP_TO = 8
"""A dependency over an index space is read as an :class:`IndexedTable` (one or two
bytes a key) when its index space holds at most this many keys a position, where
sorted keys with their values take thirteen bytes a position (chess: about 2.2 keys a
position)."""


def key_shape(game: Game) -> KeyShape:
    """What of ``game``'s keys chooses the format a store writes its tablebase in (a
    build's, a repack's)."""
    return KeyShape(game.size is not None, game.sides_alternate, game.moves_cross_sides, game.dtm_left_out_by_default)


def stored_tables(store: Store) -> ReadTable:
    """A :data:`~tablebase.solve.exits.ReadTable` over a store: a dependency's complete
    tablebase, with its Grundy values or DTZ when it stores them; over its index space
    (:class:`IndexedTable`) where that is the smaller form, without DTZ when ``dtz`` is
    false (a byte a key where DTM and DTZ together take two), over the keys of
    ``window`` alone where one is given (:meth:`~tablebase.core.game.Game.exit_window`).
    Over its index space, a DTM the tablebase leaves out is valued only for the keys a
    pass asks for (:meth:`IndexedTable.remoteness_of`), not for all of them as a whole
    read values it."""

    def read(game: Game, dtz: bool = True, window: KeyWindow | None = None) -> StoredTable | IndexedTable:
        row = store.require(game.name, game.identity(), game.build_command(), game.version)
        dense = game.size is not None and row.value_kind in (StoredKind.WDL, StoredKind.DTZ) and game.size <= DENSE_UP_TO * max(row.positions, 1)
        if dense:
            with_dtz = dtz and row.value_kind == StoredKind.DTZ
            parts = store.read_parts(row, extra=with_dtz)
            indexed = IndexedTable.gather(game.size, parts, with_dtz, window, functools.partial(derived_remoteness, store, row))
            if indexed is not None:
                return indexed
        keys, outcome, remoteness = read_values(store, row)
        grundy = dtz = None
        if row.value_kind == StoredKind.GRUNDY:
            extra_keys, values, known = store.read_extra(row)
            grundy = np.full(len(keys), NO_GRUNDY, dtype=np.int64)
            grundy[index_of(keys, extra_keys[known])] = values[known]
        if row.value_kind == StoredKind.DTZ:
            extra_keys, dtz, _known = store.read_extra(row)
        return StoredTable(keys, outcome, remoteness, grundy, dtz)

    return read
