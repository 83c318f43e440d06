"""The DTM that a one-sided tablebase leaves out, valued from one ply of its moves.

The sided layout's one-sided formats (:attr:`~tablebase.store.blocks.BlockFormat.dtm_left_out`)
store black to move's WDL and DTZ but not its DTM: a reader values it from the position's
moves, as a Syzygy prober values the side to move that a DTZ file leaves out (by a
search of one ply: python-chess's ``chess/syzygy.py``, ``Tablebase.probe_dtz_no_ep``,
after R. de Man's prober). Every successor is of the other side
to move, whose DTM is stored (or of another tablebase, through a capture or a
promotion, which may value it the same way), and the rules of docs/design.md
("Semantics") give the remoteness: a win's is 1 + the least among its moves to a loss, a
loss's 1 + the greatest among its moves, a draw's 1 + the least among its moves to draws
when every one of them has one (else none).

The store reads no game: it gives such a key's remoteness as
:data:`~tablebase.core.values.TO_DERIVE`, and every read above it that wants the DTM
values those keys here, through :func:`with_dtm` (:mod:`tablebase.read.filled`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
from numba import njit

from tablebase.core.errors import StoreError
from tablebase.core.game import Game
from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL, TO_DERIVE, WIN
from tablebase.read.catalog import row_game

BATCH = 1 << 16
"""Keys valued at once: their moves (about 30 a key in chess) and their successors'
values held together, a memory a process can spare, where fewer keys a batch read
KRvKP slower (benchmarks/RESULTS.md)."""

_WIN_BASE = 1 << 40
"""Above every remoteness: a value's merit is ``_WIN_BASE - remoteness`` for a win,
``remoteness - _WIN_BASE`` for a loss, 0 for a draw."""


_ONE_AT_A_TIME = threading.RLock()
"""Held while the store is read: its held reader connection and its cache of decoded
blocks serve one thread at a time, and a build values its exits in threads (re-entered
where a successor's own tablebase leaves its DTM out)."""

Held = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``held(keys)``: the values a reader holds already of int64[m] keys of the tablebase
being valued (a build's :class:`~tablebase.solve.tables.IndexedTable` of it):
``(have, outcome, remoteness)``, bool[m] which it holds, int8[m], int32[m]."""


def with_dtm(store, row, keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The remoteness of stored keys as the store reads it, each that their tablebase
    leaves out (:data:`~tablebase.core.values.TO_DERIVE`) valued from the moves
    (:func:`derived_remoteness`): the one place where a read fills it in.

    :param store: the :class:`~tablebase.store.Store` that holds ``row``'s tablebase
        and its dependencies.
    :param row: the tablebase's catalog row.
    :param keys: int64[n] its keys, as read.
    :param outcome: int8[n] their outcomes, as read.
    :param remoteness: int32[n] their remoteness, as read: valued in place.
    :returns: ``remoteness``, int32[n] plies, -1 for none.
    :raises StoreError: as :func:`derived_remoteness`.
    """
    if not row.dtm_left_out:
        return remoteness
    left_out = np.flatnonzero(remoteness == TO_DERIVE)
    if len(left_out):
        remoteness[left_out] = derived_remoteness(store, row, keys[left_out], outcome[left_out])
    return remoteness


def derived_remoteness(store, row, keys: np.ndarray, outcome: np.ndarray, held: Held | None = None) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The remoteness of positions whose DTM their tablebase leaves out, from their moves.

    :param store: the :class:`~tablebase.store.Store` that holds ``row``'s tablebase
        and its dependencies.
    :param row: the tablebase's catalog row.
    :param keys: int64[n] stored keys of it whose DTM is left out.
    :param outcome: int8[n] their stored outcomes (-1, 0, 1 for the side to move).
    :param held: the values of its keys the caller holds, read from them rather than
        from the store (a build's reach into a dependency: KPvKP's promotions, 2.3
        million keys, which read from the store's blocks would cost several times as
        long, benchmarks/RESULTS.md).
    :returns: int32[n] remoteness in plies, -1 for a draw that has none.
    :raises StoreError: if a successor is not stored (a damaged or incomplete database)
        or a move's value disagrees with the stored outcome.
    """
    parts = [_derived(store, row, keys[start : start + BATCH], outcome[start : start + BATCH], held) for start in range(0, len(keys), BATCH)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)


def _derived(store, row, keys: np.ndarray, outcome: np.ndarray, held: Held | None) -> np.ndarray:  # type: ignore[no-untyped-def]
    """:func:`derived_remoteness` of at most :data:`BATCH` keys."""
    game = row_game(row)
    moves = game.expand(keys)
    successors = _Successors(len(keys))
    successors.add(moves.src, *_held_values(store, row, moves.dst, held))
    src, table, child = moves.exits
    for number, dependency in enumerate(game.dependencies()):
        into = table == number
        if into.any():
            with _ONE_AT_A_TIME:
                values = _values(store, _row_of(store, dependency), child[into])
            successors.add(src[into], *values)
    return successors.remoteness(moves.terminal, np.asarray(outcome), row)


def _held_values(store, row, keys: np.ndarray, held: Held | None) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """:func:`_values` of int64[m] keys of ``row``'s tablebase, those ``held`` read there."""
    if held is None:
        with _ONE_AT_A_TIME:
            return _values(store, row, keys)
    have, outcome, remoteness = held(keys)
    if not have.all():
        with _ONE_AT_A_TIME:
            outcome[~have], remoteness[~have] = _values(store, row, keys[~have])
    return outcome, remoteness


def _row_of(store, game: Game):  # type: ignore[no-untyped-def]
    """The catalog row of a dependency's tablebase, from the catalog the store keeps a
    moment (a probe's search asks for it each time), else looked up.

    :raises NotBuiltError: if it is not built.
    """
    row = store.complete_rows(game.name, game.version).get(game.identity())
    return row if row is not None else store.require(game.name, game.identity(), game.build_command(), game.version)


def _values(store, row, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """``(outcome, remoteness)`` of int64[m] stored keys: int8[m], int32[m] (-1 for none),
    read by one array probe (which keeps the blocks of a few positions' successors
    decoded, :data:`~tablebase.store.block_reader.KEPT_UP_TO`), a remoteness their
    tablebase leaves out valued too (:func:`with_dtm`).

    :raises StoreError: if one is not stored.
    """
    found, outcome, remoteness, _extra = store.probe_array(row, keys)
    if not found.all():
        raise StoreError(f"{row.description}: key {int(keys[~found][0])}, a move's successor, is not stored")
    return outcome, with_dtm(store, row, keys, outcome, remoteness)


class _Successors:
    """The values of a batch's successors, gathered move by move into each position's
    best value and its moves to draws."""

    def __init__(self, count: int) -> None:
        self.best = np.full(count, np.iinfo(np.int64).min, dtype=np.int64)
        self.nearest_draw = np.full(count, np.iinfo(np.int32).max, dtype=np.int64)
        self.endless_draw = np.zeros(count, dtype=bool)

    def add(self, src: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray) -> None:
        """Moves from the positions at ``src`` (int64[m]) to successors of these values
        (int8[m], int32[m], for their side to move)."""
        _fold(src, outcome, remoteness, self.best, self.nearest_draw, self.endless_draw)

    def remoteness(self, terminal: np.ndarray, outcome: np.ndarray, row) -> np.ndarray:  # type: ignore[no-untyped-def]
        """int32[n] each position's remoteness, given its int8[n] terminal value and
        stored outcome.

        :raises StoreError: where the best move's outcome is not the stored one.
        """
        best = self.best
        ended = terminal != NOT_TERMINAL
        found = np.where(best > 0, WIN, np.where(best < 0, LOSS, DRAW))
        found[ended] = terminal[ended]
        if (found != outcome).any():
            raise StoreError(f"{row.description}: a stored outcome disagrees with its moves' values (damaged?)")
        drawn = np.where(self.endless_draw, -1, self.nearest_draw + 1)
        plies = np.where(best > 0, _WIN_BASE - best, np.where(best < 0, best + _WIN_BASE, drawn))
        plies[ended] = 0
        return plies.astype(np.int32)


@njit(cache=True, nogil=True)
def _fold(src, outcome, remoteness, best, nearest_draw, endless_draw):  # type: ignore[no-untyped-def]
    """:meth:`_Successors.add`, move by move: a move's merit for its position (the
    successor's value for its own side to move, turned) raises ``best``; a move to a draw
    lowers ``nearest_draw``, or sets ``endless_draw`` where the draw has no remoteness."""
    for i in range(len(src)):
        at, plies = src[i], np.int64(remoteness[i])
        if outcome[i] == LOSS:
            merit = _WIN_BASE - plies - 1
        elif outcome[i] == WIN:
            merit = plies + 1 - _WIN_BASE
        else:
            merit = 0
            if plies < 0:
                endless_draw[at] = True
            elif plies < nearest_draw[at]:
                nearest_draw[at] = plies
        if merit > best[at]:
            best[at] = merit
