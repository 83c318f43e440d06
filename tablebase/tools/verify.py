"""``tablebase verify``: re-derive every stored value from the stored values of its moves.

Moves are generated afresh, batch by batch, with the game's batch API; each position's
stored value must then follow from its successors' stored values by the rules of its
value kind (:meth:`~tablebase.solve.kinds.ValueKind.verify`; docs/design.md for
win/draw/loss and remoteness):

- a terminal position has its terminal value at remoteness 0, a position without moves
  is a loss at 0;
- a win at ``r`` has a move to a loss at ``r - 1`` and none to a shorter loss;
- a loss at ``r`` has only moves to wins, the longest at ``r - 1``;
- a draw has no move to a loss, and a move to a draw; its remoteness is 1 + the
  smallest remoteness among its moves to draws when each of those has one, and none
  when one of them has none (it can cycle);
- a Grundy value is the mex of the values of its moves (a sum's value being the xor of
  its parts');
- a score is the best of a move's reward minus the successor's score (or the terminal
  score);
- DTZ under the 50-move rule (chess): a win (category 2) has a move of at most 100
  plies to a loss, the fewest plies its DTZ; a loss has only moves to such wins; see
  :mod:`tablebase.solve.kinds.dtz` (without DTM, only the outcome is checked, not the remoteness);
- in a Büchi game, A wins at an A position when some move leads to a position A wins,
  and at a B position when every move does.

This checks consistency, not optimality from scratch: a tablebase whose every value
follows from its neighbours' is the solution where every draw is a real draw, which the
draws' check enforces only locally (a cycle of draws is consistent by itself, and so is
a remoteness given to draws on a cycle whose every position also has a shorter way out).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game
from tablebase.read.filled import read_values
from tablebase.read.stored import stored_tables
from tablebase.solve import DEFAULT_BATCH_SIZE, build_graph
from tablebase.solve.budget import check_size
from tablebase.solve.exits import ReadOnce
from tablebase.solve.graph import batch_moves
from tablebase.solve.kinds import Finding, StoredValues, kind_of
from tablebase.solve.kinds.wdl import Wdl
from tablebase.solve.tables import IndexedTable, StoredTable
from tablebase.store import Store, TablebaseRow
from tablebase.store.schema import EXTRA_KINDS
from tablebase.util.progress import Stages, silent


@dataclass(frozen=True)
class Mismatch:
    """A stored value that does not follow from its moves: the position's ``key``,
    what is ``stored`` and what its moves give (``expected``), as text."""

    key: int
    stored: str
    expected: str


def verify_game(
    game: Game, store: Store, batch_size: int = DEFAULT_BATCH_SIZE, stages: Stages = silent
) -> tuple[int, list[Mismatch]]:
    """Check every stored position of the game's tablebase.

    :returns: ``(positions checked, mismatches)``, mismatches in key order.
    :raises NotBuiltError: if the tablebase (or a dependency) is not built.
    :raises GameError: if the game's positions differ from the stored ones.
    :raises StoreError: if the database fails.
    """
    row = store.require(game.name, game.identity(), game.build_command(), game.version)
    kind = kind_of(game)
    read = ReadOnce(game, stored_tables(store))  # the kind's checks share one read of each dependency
    if isinstance(kind, Wdl) and kind.by_ranges(game):
        checked, found = _by_ranges(game, kind, store, row, read, stages)
        return checked, [Mismatch(*m) for m in sorted(found)]
    keys, outcome, remoteness = read_values(store, row)
    extra = store.read_extra(row)[1:] if row.value_kind in EXTRA_KINDS else None
    graph = build_graph(game, kind.shape, batch_size, stages)
    _same_positions(graph.keys, keys)
    found = kind.verify(game, StoredValues(keys, outcome, remoteness, extra), graph, read)
    return len(keys), [Mismatch(*m) for m in sorted(found)]


RANGE_KEYS = 1 << 16
"""The most keys of an index space :func:`_by_ranges` verifies at once."""

SMALLEST_RANGE = 1 << 12
"""The fewest keys :func:`_by_ranges` verifies at once (fewer would add interpreter time)."""


def _range_keys(size: int) -> int:
    """Keys verified at once in an index space of ``size`` keys: a 1024th of it, within
    :data:`SMALLEST_RANGE` and :data:`RANGE_KEYS`. A range's moves take a few KiB a key,
    so a small ending's verify stays within its build's peak (as KQvKR's measures it,
    benchmarks/RESULTS.md)."""
    return max(SMALLEST_RANGE, min(RANGE_KEYS, size >> 10))


def _by_ranges(game: Game, kind: Wdl, store: Store, row: TablebaseRow, read: ReadOnce, stages: Stages) -> tuple[int, list[Finding]]:
    """:func:`verify_game` of a WDL game over an index space solved by un-moves (chess),
    :func:`_range_keys` keys at a time, within the memory its build needs (the same
    estimate and refusal, :func:`~tablebase.solve.budget.check_size`): the tablebase
    itself read over its index space (:class:`~tablebase.solve.tables.IndexedTable`, a
    byte or two a key), its dependencies as its build reads them, no move graph.

    :raises GameError: if the game's positions are not the stored ones.
    """
    check_size(game)
    own = stored_tables(store)(game)
    size = int(game.size or 0)
    checked, found, step = 0, [], _range_keys(size)
    with stages("verify", size) as advance:
        for start in range(0, size, step):
            span = np.arange(start, min(start + step, size), dtype=np.int64)
            keys = span[np.asarray(game.legal(span), dtype=bool)]
            try:
                stored = _stored(own, keys)
            except GameError as error:  # a legal key the tablebase lacks
                raise _other_positions(f"the game has a position the tablebase lacks ({error})") from None
            terminal, src, successors, exits = batch_moves(game, keys)
            moves = kind.neighbourhood(game, stored, terminal, src, _stored(own, successors), np.arange(len(successors)), exits)
            found += kind.findings(game, read, *moves)
            checked += len(keys)
            advance(len(span))
    if checked != row.positions:
        raise _other_positions(f"the game has {checked:,} positions, the tablebase {row.positions:,}")
    return checked, found


def _stored(table: StoredTable | IndexedTable, keys: np.ndarray) -> StoredValues:
    """The stored values of int64[k] keys, DTZ the extra where the table holds it.
    :raises GameError: if one is not a position of the tablebase."""
    at = table.find(keys)
    return StoredValues(keys, table.outcome[at], table.remoteness_of(at, keys), None if table.dtz is None else (table.dtz[at], None))


def _other_positions(found: str) -> GameError:
    """The error of a tablebase whose positions are not the game's, ``found`` saying how."""
    return GameError(f"{found}: the tablebase was built by another version of the game; rebuild it with --force")


def _same_positions(generated: np.ndarray, stored: np.ndarray) -> None:
    if not np.array_equal(generated, stored):
        raise _other_positions(f"the game has {len(generated):,} positions, the tablebase {len(stored):,} (or other keys)")
