"""The retrograde pass (:func:`solve`, :func:`solve_positions`): level by level over the
moves a :class:`MoveSource` reads, then the draw peel (:mod:`tablebase.solve.retrograde`
says what they compute)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np

from tablebase.solve.retrograde.draw_peel import _to_draws
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.state import PositionState, Solution
from tablebase.solve.retrograde.sweeps import Sweeps
from tablebase.solve.retrograde.wins_losses import _losses_first, _to_losses, _to_wins
from tablebase.util.progress import Advance


class MoveSource(Protocol):
    """The moves of a game as the retrograde pass reads them: backwards, a part at a time.

    Two sources serve it: predecessor lists held in memory
    (:class:`~tablebase.solve.predecessors.Predecessors`), and un-moves generated on the
    fly (:class:`~tablebase.solve.unmoves.source.UnmoveSource`). A source may count the moves of
    a position into one successor once or as often as they occur, as long as
    ``out_degree`` and ``parents`` count them alike.

    :ivar out_degree: int[n], the number of moves of each position within the tablebase.
    """

    out_degree: np.ndarray

    def parents(self, nodes: np.ndarray) -> Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The predecessors of int[k] ``nodes``, in parts: ``(part, predecessors,
        counts)``, where ``part`` is a slice of ``nodes`` (each node in one part),
        ``predecessors`` int[m] lists the positions moving into them, those of
        ``part[0]`` first, and ``counts`` int[len(part)] how many each contributed."""
        ...


# A source may also apply a level's predecessors itself, where its workers share the
# pass's state: ``settles`` true, and ``settle(nodes, losing, state, level)`` yielding
# the positions resolved (int[r] arrays), as :func:`_apply_parents` does from ``parents``
# (:class:`~tablebase.solve.unmoves.source.UnmoveSource` in threads).


class _Found:
    """The positions resolved in one level, appended by the compiled loops into one
    growing buffer of position numbers (``dtype``: int32 below 2**31 positions)."""

    def __init__(self, dtype: type) -> None:
        self.dtype = dtype
        self.buffer = np.empty(1 << 16, dtype=dtype)
        self.end = 0

    def room(self, more: int) -> np.ndarray:
        """The buffer, grown to hold ``more`` positions beyond :attr:`end`."""
        if self.end + more > len(self.buffer):
            grown = np.empty(max(2 * len(self.buffer), self.end + more), dtype=self.dtype)
            grown[: self.end] = self.buffer[: self.end]
            self.buffer = grown
        return self.buffer

    def put(self, positions: np.ndarray) -> None:
        """Append int[k] ``positions``."""
        self.room(len(positions))[self.end : self.end + len(positions)] = positions
        self.end += len(positions)

    def take(self) -> np.ndarray:
        """The positions found, and an empty buffer for the next level: the buffer
        itself is handed over (no copy), and a new one grows from small."""
        found = self.buffer[: self.end]
        self.buffer = np.empty(1 << 16, dtype=self.dtype)
        self.end = 0
        return found


def solve(
    terminal: np.ndarray,
    graph: MoveSource,
    advance: Advance = lambda _count: None,
    exits: Exits | None = None,
) -> Solution:
    """Solve a game by retrograde analysis (:func:`solve_positions` of a new
    :class:`PositionState`).

    :param terminal: int8[n]: the outcome of each terminal position for its side to move,
        or :data:`~tablebase.core.game.NOT_TERMINAL`. Moves out of terminal positions are
        ignored; a non-terminal position without moves is a loss at remoteness 0. Any
        other value marks a key that is no position (an illegal key of an index space):
        it is resolved from the start, never a win, loss or draw.
    :param graph: the moves: predecessor lists (see
        :func:`~tablebase.solve.predecessors.predecessors_of` for move lists), or un-moves.
    :param advance: called with the number of positions resolved at each level.
    :param exits: moves into other tablebases. Each counts as resolved at its successor's
        own remoteness: a move into a loss at 12 makes a win at 13 unless a shorter one
        exists.
    :returns: the :class:`Solution`, int8[n] outcomes and int32[n] remoteness.
    """
    state = PositionState(len(terminal))
    state.outcome[:] = terminal
    state.count_moves(slice(None), graph.out_degree)
    state.fold(exits if exits is not None else Exits.none())
    solution = solve_positions(state, graph, advance)
    return Solution(np.ascontiguousarray(solution.outcome), solution.remoteness.astype(np.int32))


def solve_positions(
    state: PositionState,
    graph: MoveSource,
    advance: Advance = lambda _count: None,
    draws: bool = True,
    until: int | None = None,
) -> Solution:
    """Solve a game by retrograde analysis, in place: the :class:`PositionState` of its
    positions (terminal values, counts of moves, exit codes) becomes their values,
    updated batch by batch in compiled loops.

    :param graph: the moves, as :func:`solve` reads them; its ``out_degree`` is not read.
    :param draws: whether draws get their remoteness (the draw peel); without it every
        draw has :data:`~tablebase.solve.retrograde.state.NO_REMOTENESS` (the DTZ passes need none).
    :param until: the last level to resolve (plies), or ``None`` for all: a position
        won or lost beyond it is left a draw without remoteness (DTZ's pass under the
        50-move rule needs levels up to 100 only, since a level depends only on lower
        ones). Only with ``draws`` false.
    :returns: the :class:`Solution` as views of ``state``: int8[n] outcomes and int16[n]
        (int32[n] past 32,000 plies) remoteness.
    """
    n = len(state.records)
    with Sweeps(n) as sweeps:
        return _solve_levels(state, graph, advance, draws, until, sweeps)


def _solve_levels(state: PositionState, graph: MoveSource, advance: Advance, draws: bool, until: int | None, sweeps: Sweeps) -> Solution:
    """:func:`solve_positions` with its whole-state sweeps cut by ``sweeps``."""
    n = len(state.records)
    outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
    advance(sweeps.start(outcome, counters, remoteness))
    found = _Found(np.int32 if n < 2**31 else np.int64)
    frontier = sweeps.level_zero(outcome, remoteness, False, found.dtype)
    levels = sweeps.exit_levels(remoteness)
    next_exit = _next_exits(levels, 0)

    level = 0
    last = np.iinfo(np.int64).max if until is None else until
    while (frontier.size or next_exit < len(levels)) and level < last:
        if not frontier.size:
            level = next_exit  # nothing happens in between
            if level >= last:
                break
        elif level:
            advance(int(frontier.size))
        exits_now = level == next_exit < len(levels)
        if _past_int16(state, level + 1):
            outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
        split = _losses_first(frontier, outcome)
        counted = np.empty(0, dtype=found.dtype)
        if exits_now:
            won, counted = sweeps.exit_events(level, outcome, remoteness, level + 1, found.dtype)
            found.put(won)
            del won
            next_exit = _next_exits(levels, level + 1)
        # Within a level the order does not matter: a position with a lost successor is
        # never counted down to zero (that move is never counted), so it is won whichever
        # of its successors is seen first. The exits into wins are counted down first.
        found.end = _to_losses(counted, counters, outcome, remoteness, level + 1, found.room(len(counted)), found.end)
        del counted
        if getattr(graph, "settles", False):
            for resolved in graph.settle(frontier, split, state, level + 1):
                found.put(resolved)
        else:
            _apply_parents(graph, frontier, split, state, level + 1, found)
        frontier = found.take()
        level += 1

    if level and frontier.size:  # the last level, where the pass stopped (``until``)
        advance(int(frontier.size))
    left = _draw_remoteness(state, graph, found, sweeps) if draws else sweeps.undecided(outcome, remoteness)
    advance(int(left))
    return Solution(state.outcome, state.remoteness)


def _apply_parents(graph: MoveSource, frontier: np.ndarray, losing: int, state: PositionState, level: int, found: _Found) -> None:
    """One level's predecessors applied part by part as ``graph`` yields them: those of
    the first ``losing`` of int[k] ``frontier`` (its lost positions) won at ``level``,
    the others counted down (lost at ``level`` at zero), those resolved appended to
    ``found``."""
    outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
    start = 0
    for part, parents, counts in graph.parents(frontier):
        lost = min(max(losing - start, 0), len(part))
        if lost:
            cut = int(counts[:lost].sum())
            found.end = _to_wins(parents[:cut], outcome, remoteness, level, found.room(cut), found.end)
            parents = parents[cut:]
        start += len(part)
        found.end = _to_losses(parents, counters, outcome, remoteness, level, found.room(len(parents)), found.end)


def _next_exits(levels: np.ndarray, start: int) -> int:
    """The first remoteness from ``start`` with decisive exits (``len(levels)`` if none)."""
    ahead = np.flatnonzero(levels[start:])
    return start + int(ahead[0]) if len(ahead) else len(levels)


def _past_int16(state: PositionState, reach: int) -> bool:
    """Whether the remoteness of ``state`` had to be widened to int32 to hold values up
    to ``reach`` (it is widened then)."""
    if state.remoteness.dtype == np.int16 and reach >= 32_000:
        state.widen("remoteness", np.int32)
        return True
    return False


def _draw_remoteness(state: PositionState, graph: MoveSource, found: _Found, sweeps: Sweeps) -> int:
    """Give draws their remoteness in place, peeling up from the drawn terminals (the
    remoteness widened to int32 if the peel goes past 32,000 plies); returns how many
    positions are left without one.

    The win/loss pass leaves each unresolved position's counter at its moves into draws
    (all its other moves lead to wins and were counted down), plus one for a move into
    a drawn position of another tablebase (a :data:`~tablebase.solve.retrograde.exit_codes.DRAW_BY` code), which counts as a
    draw known from the start, at its own remoteness (or never, if it has none). The
    counter then counts a pending draw's moves into draws not yet seen, and a pending
    draw's ``remoteness`` keeps the nearest drawn successor seen so far (``-2 -
    nearest``; -1 for none yet), so no move is generated again.
    """
    outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
    found.put(sweeps.begin_peel(counters, remoteness, found.dtype))
    frontier = np.concatenate([sweeps.level_zero(outcome, remoteness, True, found.dtype), found.take()])
    farthest = int(remoteness[frontier].max(initial=0))  # each round reaches at most one ply farther
    while frontier.size:
        farthest += 1
        if _past_int16(state, farthest):
            outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
        for nodes, parents, counts in graph.parents(frontier):
            counts = np.array(counts, dtype=np.int64)  # counted down in place
            found.end = _to_draws(nodes, counts, parents, counters, remoteness, found.room(len(parents)), found.end)
        frontier = found.take()
    return sweeps.no_remoteness_left(remoteness)
