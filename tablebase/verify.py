"""``tablebase verify``: re-derive every stored value from the stored values of its moves.

Moves are generated afresh, batch by batch, with the game's batch API; each position's
stored value must then follow from its successors' stored values by the rules of its
mode (docs/design.md for win/draw/loss and remoteness):

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
  :func:`_dtz` (without DTM, only the outcome is checked, not the remoteness);
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

from tablebase.stored import stored_tables
from tablebase.errors import GameError
from tablebase.game import DRAW, LOSS, NOT_TERMINAL, WIN, Game, Mode, Outcome
from tablebase.progress import Stages, silent
from tablebase.solve import DEFAULT_BATCH_SIZE, MoveGraph, build_graph
from tablebase.solve.budget import check_size
from tablebase.solve.graph import ExitMoves, batch_moves
from tablebase.solve.acyclic import mex
from tablebase.solve.dtz import CATEGORIES, RULE_PLIES, categories
from tablebase.solve.modes import ReadOnce, exit_categories, exit_values, uses_unmoves
from tablebase.solve.tables import IndexedTable, StoredTable
from tablebase.store import Store, TablebaseRow
from tablebase.store.schema import EXTRA_KINDS

_NONE = np.iinfo(np.int64).max


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
    if game.size is not None and game.mode is Mode.WDL and uses_unmoves(game):
        checked, found = _by_ranges(game, store, row, stages)
        return checked, [Mismatch(*m) for m in sorted(found)]
    keys, outcome, remoteness = store.read_values(row)
    extra = store.read_extra(row)[1:] if row.value_kind in EXTRA_KINDS else None
    graph = build_graph(game, batch_size, stages)
    _same_positions(graph.keys, keys)
    src, parts = graph.forward()
    if game.splits:
        found = _grundy(keys, src, parts, *extra)
    elif game.mode is Mode.SCORED:
        found = _scores(game, graph, outcome, *extra)
    elif game.mode is Mode.BUCHI:
        found = _buchi(game, keys, src, parts[:, 0], outcome)
    else:
        read = ReadOnce(game, stored_tables(store))  # exit_values and exit_categories share one read
        dst = parts[:, 0]
        dtz = extra[0] if game.dtz else None
        zeroing = _zeroing(game, keys, src, dst) if game.dtz else None
        moves = _Moves(src, outcome[dst], remoteness[dst], None if dtz is None else dtz[dst], graph.exits, zeroing)
        found = _wdl_findings(game, read, _Values(keys, graph.terminal, outcome, remoteness, dtz), moves)
        if game.mode is Mode.IMPARTIAL and extra is not None:
            exits, exit_grundy = exit_values(game, graph.exits, read, grundy=True)
            found += _grundy(keys, src, parts, *extra, outside=(exits.src, exit_grundy))
    return len(keys), [Mismatch(*m) for m in sorted(found)]


RANGE_KEYS = 1 << 16
"""The most keys of an index space :func:`_by_ranges` verifies at once."""

SMALLEST_RANGE = 1 << 12
"""The fewest keys :func:`_by_ranges` verifies at once (fewer would add interpreter time)."""


def _range_keys(size: int) -> int:
    """Keys verified at once in an index space of ``size`` keys: a 1024th of it, within
    :data:`SMALLEST_RANGE` and :data:`RANGE_KEYS`. A range's moves take about 2 KiB a key,
    so a small ending's verify stays within its build's peak (65,536 keys added 60 MiB to
    KQvKR's, whose build peaks at 282 MiB)."""
    return max(SMALLEST_RANGE, min(RANGE_KEYS, size >> 10))


@dataclass(frozen=True)
class _Values:
    """Some positions' keys int64[n], terminal values int8[n], and stored outcome
    int8[n], remoteness int[n] (plies, -1 for none) and signed DTZ int[n] (or ``None``)."""

    keys: np.ndarray
    terminal: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray
    dtz: np.ndarray | None


@dataclass(frozen=True)
class _Moves:
    """The moves of those positions within the tablebase: ``src`` int64[m] the position
    each is made from, its successor's stored ``outcome``, ``remoteness`` and ``dtz``
    (int[m] each, ``dtz`` ``None`` without DTZ), whether it is ``zeroing`` (bool[m], a
    DTZ game's progress raised); and the ``exits`` out of the tablebase."""

    src: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray
    dtz: np.ndarray | None
    exits: ExitMoves
    zeroing: np.ndarray | None


def _zeroing(game: Game, keys: np.ndarray, src: np.ndarray, successors: np.ndarray) -> np.ndarray:
    """bool[m]: whether each move, from ``keys[src]`` to ``keys[successors]`` (int64[m]
    indices into int64[n] ``keys``), raises a DTZ game's ``progress``."""
    progress = np.asarray(game.progress(keys), dtype=np.int64)
    return progress[successors] > progress[src]


def _wdl_findings(game: Game, read: ReadOnce, values: _Values, moves: _Moves) -> list[tuple[int, str, str]]:
    """The positions whose stored outcome and remoteness (and category and DTZ, for a
    game with DTZ) do not follow from their moves'."""
    exits, _grundy_values = exit_values(game, moves.exits, read)
    expected = _wdl(values.terminal, moves.src, moves.outcome, moves.remoteness, exits)
    remoteness = values.remoteness
    if not game.dtm:
        remoteness = np.full(len(values.keys), -1)
        expected = (expected[0], remoteness)
    found = [(k, _say(o, r), _say(*e)) for k, o, r, e in _differences(values.keys, values.outcome, remoteness, expected)]
    if game.dtz:
        exit_category = exit_categories(game, moves.exits, read)
        found += _dtz(
            values.keys, values.outcome, values.dtz, values.terminal,
            moves.src, moves.outcome, moves.dtz, moves.zeroing, moves.exits.src, exit_category,
        )
    return found


def _by_ranges(game: Game, store: Store, row: TablebaseRow, stages: Stages) -> tuple[int, list[tuple[int, str, str]]]:
    """:func:`verify_game` of a WDL game over an index space solved by un-moves (chess),
    :func:`_range_keys` keys at a time, within the memory its build needs (the same
    estimate and refusal, :func:`~tablebase.solve.budget.check_size`): the tablebase
    itself read over its index space (:class:`~tablebase.solve.tables.IndexedTable`, a
    byte or two a key), its dependencies as its build reads them, no move graph.

    :raises GameError: if the game's positions are not the stored ones.
    """
    check_size(game)
    read = ReadOnce(game, stored_tables(store))
    own = stored_tables(store)(game, dtz=game.dtz)
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
            zeroing = None
            if game.dtz:
                zeroing = _zeroing(game, np.concatenate([keys, successors]), src, len(keys) + np.arange(len(successors)))
            moves = _Moves(src, *_stored(own, successors), exits, zeroing)
            found += _wdl_findings(game, read, _Values(keys, terminal, *stored), moves)
            checked += len(keys)
            advance(len(span))
    if checked != row.positions:
        raise _other_positions(f"the game has {checked:,} positions, the tablebase {row.positions:,}")
    return checked, found


def _stored(table: StoredTable | IndexedTable, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The stored outcome, remoteness and DTZ (``None`` where the table holds none) of
    int64[k] keys. :raises GameError: if one is not a position of the tablebase."""
    at = table.find(keys)
    return table.outcome[at], table.remoteness[at], None if table.dtz is None else table.dtz[at]


def _other_positions(found: str) -> GameError:
    """The error of a tablebase whose positions are not the game's, ``found`` saying how."""
    return GameError(f"{found}: the tablebase was built by another version of the game; rebuild it with --force")


def _same_positions(generated: np.ndarray, stored: np.ndarray) -> None:
    if not np.array_equal(generated, stored):
        raise _other_positions(f"the game has {len(generated):,} positions, the tablebase {len(stored):,} (or other keys)")


def _say(outcome: int, remoteness: int) -> str:
    label = Outcome(outcome).label
    return label if remoteness < 0 else f"{label} in {remoteness}"


def _wdl(terminal, src, successor_outcome, successor_remoteness, exits) -> tuple[np.ndarray, np.ndarray]:
    """The ``(outcome, remoteness)`` each of n positions' moves give, remoteness -1 for
    none: the rules of :func:`tablebase.solve.solve` (a draw's remoteness as its
    ``_draw_remoteness`` gives it), applied to the stored values of the successors.

    :param terminal: int8[n]; ``src`` int64[m] the position of each move within the
        tablebase, ``successor_outcome`` and ``successor_remoteness`` its successor's
        stored values; ``exits`` the moves out of it, valued."""
    n = len(terminal)
    parent = np.concatenate([src, exits.src.astype(np.int64)])
    child_outcome = np.concatenate([successor_outcome, exits.outcome])
    child_remoteness = np.concatenate([successor_remoteness, exits.remoteness]).astype(np.int64)
    moves = np.bincount(parent, minlength=n)
    losses = np.bincount(parent[child_outcome == LOSS], minlength=n)
    to_draw = child_outcome == DRAW
    draws = np.bincount(parent[to_draw], minlength=n)
    endless_draws = np.bincount(parent[to_draw & (child_remoteness < 0)], minlength=n)
    shortest_loss = _extreme(np.minimum, n, parent, child_remoteness, child_outcome == LOSS, _NONE)
    shortest_draw = _extreme(np.minimum, n, parent, child_remoteness, to_draw, _NONE)
    longest_win = _extreme(np.maximum, n, parent, child_remoteness, child_outcome == WIN, -1)
    draw_remoteness = np.where(endless_draws > 0, -1, shortest_draw + 1)
    expected_outcome = np.select([losses > 0, draws > 0], [WIN, DRAW], LOSS).astype(np.int8)
    expected_remoteness = np.select([losses > 0, draws > 0], [shortest_loss + 1, draw_remoteness], longest_win + 1)
    ended = (terminal != NOT_TERMINAL) | (moves == 0)
    expected_outcome[ended] = np.where(terminal[ended] != NOT_TERMINAL, terminal[ended], LOSS)
    expected_remoteness[ended] = 0
    return expected_outcome, expected_remoteness


def _extreme(ufunc, n: int, parent: np.ndarray, values: np.ndarray, chosen: np.ndarray, start: int) -> np.ndarray:
    """int64[n]: ``ufunc`` (np.minimum or np.maximum) of the chosen moves' int64 values
    per parent position, ``start`` where it has none."""
    found = np.full(n, start, dtype=np.int64)
    ufunc.at(found, parent[chosen], values[chosen])
    return found


def _differences(keys, outcome, remoteness, expected):
    """``(key, stored outcome, stored remoteness, (expected outcome, remoteness))`` where they differ."""
    expected_outcome, expected_remoteness = expected
    stored_remoteness = np.maximum(remoteness.astype(np.int64), -1)
    wrong = (outcome != expected_outcome) | (stored_remoteness != expected_remoteness)
    for i in np.flatnonzero(wrong).tolist():
        yield int(keys[i]), int(outcome[i]), int(remoteness[i]), (int(expected_outcome[i]), int(expected_remoteness[i]))


def _dtz(
    keys, outcome, dtz, terminal, src, successor_outcome, successor_dtz, zeroing, exit_src, exit_category
) -> list[tuple[int, str, str]]:
    """Positions whose stored category and DTZ (:mod:`tablebase.solve.dtz`) do not follow
    from their moves'.

    A move zeroes when it leaves the tablebase or raises the game's ``progress``; it then
    counts 1 ply, a quiet move 1 + the successor's ``|dtz|``. A position is a win
    (category 2) when a move of at most 100 plies leads to a loss (category -2), with DTZ
    the fewest such plies; a loss (-2) when it has moves and every one leads to a win (2)
    in at most 100 plies, with DTZ minus the most; a draw (0, DTZ 0) when its outcome
    without the rule is; else a cursed win or blessed loss (±1) by that outcome, with
    ``|dtz|`` above 100 (its exact value needs the pass without the rule's levels, which
    are not stored). A checkmated side to move is a loss with DTZ 0, a stalemate a draw.

    :param keys: int64[n] the positions, ``outcome`` int8[n], ``dtz`` int[n] and
        ``terminal`` int8[n] theirs; ``src`` int64[m] the position of each move within
        the tablebase, ``successor_outcome`` and ``successor_dtz`` its successor's, and
        ``zeroing`` bool[m] whether it raises the game's ``progress``; ``exit_src`` and
        ``exit_category`` the moves out of the tablebase and their successors' categories.
    """
    n, outside = len(keys), len(exit_src)
    category = categories(outcome, dtz)
    parent = np.concatenate([src, exit_src.astype(np.int64)])
    child = np.concatenate([categories(successor_outcome, successor_dtz), exit_category])
    zeroing = np.concatenate([zeroing, np.ones(outside, dtype=bool)])
    quiet_plies = np.abs(np.concatenate([successor_dtz, np.zeros(outside, dtype=successor_dtz.dtype)])).astype(np.int64) + 1
    plies = np.where(zeroing, 1, quiet_plies)
    within = plies <= RULE_PLIES
    fastest_win = _extreme(np.minimum, n, parent, plies, (child == -2) & within, _NONE)
    slowest_loss = _extreme(np.maximum, n, parent, plies, child == 2, -1)
    moves = np.bincount(parent, minlength=n)
    held = np.bincount(parent[(child == 2) & within], minlength=n)
    sign = outcome.astype(np.int64)
    cursed = (np.abs(dtz) > RULE_PLIES) & (np.sign(dtz) == sign)
    expected_category = np.select(
        [fastest_win < _NONE, (moves > 0) & (held == moves), sign == 0], [2, -2, 0], sign
    ).astype(np.int8)
    expected_dtz = np.select(
        [expected_category == 2, expected_category == -2, sign == 0, cursed], [fastest_win, -slowest_loss, 0, dtz], _NONE
    )
    ended = (terminal != NOT_TERMINAL) | (moves == 0)
    expected_category[ended] = np.where(terminal[ended] == DRAW, 0, -2)
    expected_dtz[ended] = 0
    wrong = (category != expected_category) | (dtz != expected_dtz)

    def say(category: int, plies: int) -> str:
        return f"{CATEGORIES[category]}, dtz {plies if plies != _NONE else 'beyond ±100'}"

    return [
        (int(keys[i]), say(category[i], dtz[i]), say(expected_category[i], expected_dtz[i]))
        for i in np.flatnonzero(wrong).tolist()
    ]


def _grundy(keys, src, parts, values, known, outside=None) -> list[tuple[int, str, str]]:
    """Positions whose stored Grundy value is not the mex of their moves' values
    (``outside``: ``(src, value)`` of moves into other tablebases, -1 for no value)."""
    reached = np.where(parts >= 0, values[np.maximum(parts, 0)], 0)
    move_values = np.bitwise_xor.reduce(reached, axis=1) if len(parts) else np.zeros(0, np.int64)
    if outside is not None:
        known = known.copy()
        known[outside[0][outside[1] < 0]] = False
        src = np.concatenate([src, outside[0].astype(np.int64)])
        move_values = np.concatenate([move_values, np.maximum(outside[1], 0)])
    expected = mex(src, move_values, len(keys)).astype(np.int64)
    wrong = known & (values != expected)
    return [(int(keys[i]), f"grundy {values[i]}", f"grundy {expected[i]}") for i in np.flatnonzero(wrong).tolist()]


def _scores(game: Game, graph: MoveGraph, outcome: np.ndarray, values: np.ndarray, _known) -> list[tuple[int, str, str]]:
    """Positions of a scored game whose stored score is not the best of their moves."""
    keys, moves = graph.keys, graph.moves
    best = np.full(len(keys), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, moves.src, moves.reward - values[moves.parts[:, 0]])
    ended = moves.out_degree == 0
    best[ended] = np.asarray(game.terminal_scores(keys[ended]), dtype=np.int64)
    wrong = (values != best) | (outcome != np.sign(values))
    return [(int(keys[i]), f"score {values[i]}", f"score {best[i]}") for i in np.flatnonzero(wrong).tolist()]


def _buchi(game: Game, keys: np.ndarray, src: np.ndarray, dst: np.ndarray, outcome: np.ndarray) -> list[tuple[int, str, str]]:
    """Positions of a Büchi game whose stored winner does not follow from their moves'."""
    owner_is_a = np.asarray(game.owners(keys), dtype=bool)
    a_wins = (outcome == WIN) == owner_is_a
    child_a = a_wins[dst]
    some = np.bincount(src[child_a], minlength=len(keys)) > 0
    every = np.bincount(src[~child_a], minlength=len(keys)) == 0
    expected = np.where(owner_is_a, some, every)
    wrong = expected != a_wins
    say = {True: "A wins", False: "B wins"}
    return [(int(keys[i]), say[bool(a_wins[i])], say[bool(expected[i])]) for i in np.flatnonzero(wrong).tolist()]
