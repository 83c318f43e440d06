"""Batched retrograde analysis over a move graph held in numpy arrays.

The pass is the classic one for games on arbitrary graphs (e-maxx, "Games on arbitrary
graphs"; algorithmica, "Игры на графах"): every position keeps a counter of moves not yet
known to lead to a win for the opponent. Terminal positions are resolved at level 0.
Level by level, each predecessor of a loss at level ``d`` becomes a win at ``d + 1`` (if
still unresolved), and each predecessor of a win has its counter decremented; when the
counter reaches zero, it is a loss at ``d + 1``. Processing whole levels at once gives the
remoteness rules of docs/design.md exactly:

- a win is 1 + the smallest remoteness among its moves to a loss;
- a loss is 1 + the largest remoteness among its moves (all to wins);
- whatever is never resolved is a draw, including every position whose best play cycles.

A draw then gets a remoteness only where no draw-keeping line from it can cycle: it is
1 + the smallest remoteness among its moves to draws, once all of those are known
(a peel from the drawn terminals). In a game without cycles, such as tic-tac-toe, every
draw gets one; a draw that can cycle keeps none (``-1`` in the arrays, null in storage).

Each level costs O(moves into that level's positions). The pass reads the moves through
a :class:`MoveSource`: the predecessor lists of :mod:`tablebase.solve.predecessors`, or
un-moves generated on the fly (:mod:`tablebase.solve.unmoves`), which store no graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from typing import Protocol

import numpy as np
from numba import njit

from tablebase.game import NOT_TERMINAL, Outcome
from tablebase.progress import Advance

NO_REMOTENESS = -1
"""Remoteness of a draw that has no distance (it can cycle)."""

# Plain ints: comparing arrays with enum members costs enum machinery at every level.
_WIN, _DRAW, _LOSS = int(Outcome.WIN), int(Outcome.DRAW), int(Outcome.LOSS)


@dataclass(frozen=True)
class Solution:
    """Values of every position of a move graph, indexed like it.

    :ivar outcome: int8[n], :class:`~tablebase.game.Outcome` values for the side to move.
    :ivar remoteness: int32[n], plies to the end; :data:`NO_REMOTENESS` for a draw that
        can cycle.
    """

    outcome: np.ndarray
    remoteness: np.ndarray


@dataclass(frozen=True)
class Exits:
    """Moves that leave the tablebase, with their successors' values known beforehand.

    :ivar src: int[k] index of each such move's position.
    :ivar outcome: int8[k] the successor's outcome, for its side to move.
    :ivar remoteness: int32[k] the successor's remoteness in plies; negative for none.
    """

    src: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray

    @staticmethod
    def none() -> Exits:
        """No move leaves the tablebase."""
        return Exits(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int32))

    def select(self, mask: np.ndarray) -> Exits:
        """The exits where ``mask`` (bool[k]) is true."""
        return Exits(self.src[mask], self.outcome[mask], self.remoteness[mask])

    def reduced(self) -> Exits:
        """At most two exits per position that :func:`solve` values exactly as all of them.

        A position keeps its nearest exit into a loss, if it has one (it is a win by it at
        the latest); else its farthest exit into a win, if all its exits lead to wins (a
        loss needs them all); and one exit into a draw, if it has any: the nearest, or
        one without remoteness if some drawn successor has none.
        """
        if not len(self.src):
            return self
        sources, at = np.unique(self.src, return_inverse=True)
        never = np.iinfo(np.int32).max
        loss, win, draw = self.outcome == _LOSS, self.outcome == _WIN, self.outcome == _DRAW
        nearest_loss = np.full(len(sources), never, dtype=np.int32)
        np.minimum.at(nearest_loss, at[loss], self.remoteness[loss])
        farthest_win = np.full(len(sources), -1, dtype=np.int32)
        np.maximum.at(farthest_win, at[win], self.remoteness[win])
        all_wins = np.bincount(at[~win], minlength=len(sources)) == 0
        known = draw & (self.remoteness >= 0)
        nearest_draw = np.full(len(sources), never, dtype=np.int32)
        np.minimum.at(nearest_draw, at[known], self.remoteness[known])
        unknown = np.bincount(at[draw & ~known], minlength=len(sources)) > 0
        nearest_draw[unknown] = NO_REMOTENESS
        kept = [
            (nearest_loss < never, _LOSS, nearest_loss),
            (all_wins, _WIN, farthest_win),
            (np.bincount(at[draw], minlength=len(sources)) > 0, _DRAW, nearest_draw),
        ]
        return Exits(
            np.concatenate([sources[mask] for mask, _o, _r in kept]),
            np.concatenate([np.full(np.count_nonzero(mask), value, dtype=np.int8) for mask, value, _r in kept]),
            np.concatenate([remoteness[mask] for mask, _o, remoteness in kept]),
        )


class _DecisiveExits:
    """Exits into wins and losses, sorted by remoteness, handed out one level at a time."""

    def __init__(self, exits: Exits) -> None:
        decisive = exits.select(exits.outcome != _DRAW)
        order = np.argsort(decisive.remoteness, kind="stable")
        self.exits = decisive.select(order)
        self.next = 0

    def remaining(self) -> bool:
        """Whether some exits are still to be handed out."""
        return self.next < len(self.exits.src)

    def next_remoteness(self) -> int:
        """The remoteness of the next exits to be handed out."""
        return int(self.exits.remoteness[self.next])

    def at(self, remoteness: int) -> tuple[np.ndarray, np.ndarray]:
        """``(parents of losses, parents of wins)`` among the exits at this remoteness."""
        end = int(np.searchsorted(self.exits.remoteness, remoteness, side="right"))
        taken = self.exits.select(slice(self.next, end))  # type: ignore[arg-type]
        self.next = end
        return taken.src[taken.outcome == _LOSS], taken.src[taken.outcome == _WIN]


class MoveSource(Protocol):
    """The moves of a game as the retrograde pass reads them: backwards, a part at a time.

    Two sources serve it: predecessor lists held in memory
    (:class:`~tablebase.solve.predecessors.Predecessors`), and un-moves generated on the
    fly (:class:`~tablebase.solve.unmoves.UnmoveSource`). A source may count the moves of
    a position into one successor once or as often as they occur, as long as
    ``out_degree``, ``parents`` and ``moves_into`` count them alike.

    :ivar out_degree: int[n], the number of moves of each position within the tablebase.
    """

    out_degree: np.ndarray

    def parents(self, nodes: np.ndarray) -> Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The predecessors of int[k] ``nodes``, in parts: ``(part, predecessors,
        counts)``, where ``part`` is a slice of ``nodes`` (each node in one part),
        ``predecessors`` int[m] lists the positions moving into them, those of
        ``part[0]`` first, and ``counts`` int[len(part)] how many each contributed."""
        ...

    def moves_into(self, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """int[n]: for each position where bool[n] ``sources`` holds, its moves into
        positions where bool[n] ``targets`` holds (0 elsewhere)."""
        ...


def _resolve_once(found: np.ndarray, resolved: np.ndarray, remoteness: np.ndarray, level: int) -> np.ndarray:
    """The distinct unresolved positions among int[k] ``found``, marked resolved at
    ``level``. Unresolved positions have no remoteness yet, so their ``remoteness``
    entries serve as the scratch that finds repeats, in O(k) without another array."""
    found = found[~resolved[found]]
    order = np.arange(len(found), dtype=remoteness.dtype)
    remoteness[found] = order
    found = found[remoteness[found] == order]
    resolved[found] = True
    remoteness[found] = level
    return found


def _counters(moves: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """int[n] ``moves`` plus one for each entry of int[k] ``extra`` (position numbers,
    such as the sources of exits), in the smallest unsigned dtype that holds the sums;
    no temporary of n int64."""
    most_extra = int(np.unique(extra, return_counts=True)[1].max()) if len(extra) else 0
    largest = int(moves.max(initial=0)) + most_extra
    dtype = np.uint8 if largest < 2**8 else np.uint16 if largest < 2**16 else np.int64
    counters = moves.astype(dtype)
    _add_ones(counters, extra)
    return counters


@njit(cache=True, nogil=True)
def _add_ones(counters, positions):
    """Add one to ``counters`` at each of int[k] ``positions`` (repeats count)."""
    for p in positions:
        counters[p] += 1


@njit(cache=True, nogil=True)
def _to_wins(parents, outcome, remoteness, level, found, at):
    """Mark the unresolved (remoteness -1) of int[k] ``parents`` won at ``level``, each
    once, appending them to ``found`` from ``at``; return the new end."""
    for p in parents:
        if remoteness[p] == -1:
            outcome[p] = 1
            remoteness[p] = level
            found[at] = p
            at += 1
    return at


@njit(cache=True, nogil=True)
def _to_losses(parents, counters, outcome, remoteness, level, found, at):
    """Count down the unresolved of int[k] ``parents``, one move into a win each
    occurrence; mark those that reach zero lost at ``level``, appending them to
    ``found`` from ``at``; return the new end."""
    for p in parents:
        if remoteness[p] == -1:
            counters[p] -= 1
            if counters[p] == 0:
                outcome[p] = -1
                remoteness[p] = level
                found[at] = p
                at += 1
    return at


@njit(cache=True, nogil=True)
def _to_draws(nodes, counts, child_remoteness, parents, counters, remoteness, found, at):
    """The draw peel: each of int[k] ``parents`` still pending (remoteness below 0, the
    nearest drawn successor seen so far kept as ``-2 - nearest``) sees a move into a
    draw at ``child_remoteness`` (int32[k], or that of ``nodes`` repeated ``counts``
    times when ``nodes`` is not empty); one that has seen all its moves into draws gets
    1 + the nearest, and is appended to ``found`` from ``at``; return the new end."""
    j = 0
    for i in range(len(parents)):
        if len(nodes):
            while counts[j] == 0:
                j += 1
            child = remoteness[nodes[j]]
            counts[j] -= 1
        else:
            child = child_remoteness[i]
        p = parents[i]
        r = remoteness[p]
        if r >= 0:
            continue
        if r == -1 or -2 - r > child:
            remoteness[p] = -2 - child
        counters[p] -= 1
        if counters[p] == 0:
            remoteness[p] = -1 - remoteness[p]
            found[at] = p
            at += 1
    return at


class _Found:
    """The positions resolved in one level, appended by the compiled loops into one
    growing int64 buffer."""

    def __init__(self) -> None:
        self.buffer = np.empty(1 << 16, dtype=np.int64)
        self.end = 0

    def room(self, more: int) -> np.ndarray:
        """The buffer, grown to hold ``more`` positions beyond :attr:`end`."""
        if self.end + more > len(self.buffer):
            grown = np.empty(max(2 * len(self.buffer), self.end + more), dtype=np.int64)
            grown[: self.end] = self.buffer[: self.end]
            self.buffer = grown
        return self.buffer

    def take(self) -> np.ndarray:
        """The positions found, and an empty buffer for the next level."""
        found = self.buffer[: self.end].copy()
        self.end = 0
        return found


def solve(
    terminal: np.ndarray,
    graph: MoveSource,
    advance: Advance = lambda _count: None,
    exits: Exits | None = None,
) -> Solution:
    """Solve a game by retrograde analysis.

    The state of a position is its outcome (int8), remoteness (int32, -1 while
    unresolved) and a counter of its moves not yet known to lead to a win (the smallest
    unsigned dtype that holds it): about 6 bytes, updated batch by batch in compiled
    loops.

    :param terminal: int8[n]: the outcome of each terminal position for its side to move,
        or :data:`~tablebase.game.NOT_TERMINAL`. Moves out of terminal positions are
        ignored; a non-terminal position without moves is a loss at remoteness 0. Any
        other value marks a key that is no position (an illegal key of an index space):
        it is resolved from the start, never a win, loss or draw.
    :param graph: the moves: predecessor lists (see
        :func:`~tablebase.solve.predecessors.predecessors_of` for move lists), or un-moves.
    :param advance: called with the number of positions resolved at each level.
    :param exits: moves into other tablebases. Each counts as resolved at its successor's
        own remoteness: a move into a loss at 12 makes a win at 13 unless a shorter one
        exists.
    :returns: the :class:`Solution`.
    """
    n = len(terminal)
    exits = exits or Exits.none()
    is_terminal = terminal != NOT_TERMINAL
    exits = exits.select(~is_terminal[exits.src])
    unresolved_moves = _counters(graph.out_degree, exits.src)

    outcome = np.where(is_terminal, terminal, np.int8(_DRAW)).astype(np.int8, copy=False)
    remoteness = np.full(n, NO_REMOTENESS, dtype=np.int32)
    stuck = ~is_terminal & (unresolved_moves == 0)
    outcome[stuck] = _LOSS
    resolved = is_terminal | stuck
    del stuck, is_terminal
    remoteness[resolved] = 0
    advance(int(np.count_nonzero(resolved)))
    del resolved
    frontier = np.flatnonzero((outcome == _LOSS) | (outcome == _WIN))  # draws and absent keys have no part here
    pending_exits = _DecisiveExits(exits)
    found = _Found()

    level = 0
    while frontier.size or pending_exits.remaining():
        if not frontier.size:
            level = pending_exits.next_remoteness()  # nothing happens in between
        elif level:
            advance(int(frontier.size))
        exit_losses, exit_wins = pending_exits.at(level)
        level += 1
        values = outcome[frontier]
        losses, wins = frontier[values == _LOSS], frontier[values == _WIN]
        del values, frontier
        for parents in chain([exit_losses], (part[1] for part in graph.parents(losses))):
            found.end = _to_wins(parents, outcome, remoteness, level, found.room(len(parents)), found.end)
        for parents in chain([exit_wins], (part[1] for part in graph.parents(wins))):
            found.end = _to_losses(parents, unresolved_moves, outcome, remoteness, level, found.room(len(parents)), found.end)
        frontier = found.take()

    _draw_remoteness(outcome, remoteness, terminal, graph, exits, unresolved_moves, found)
    advance(int(np.count_nonzero(remoteness == NO_REMOTENESS)))
    return Solution(outcome, remoteness)


def _draw_remoteness(
    outcome: np.ndarray,
    remoteness: np.ndarray,
    terminal: np.ndarray,
    graph: MoveSource,
    exits: Exits,
    counters: np.ndarray,
    found: _Found,
) -> None:
    """Give draws their remoteness in place, peeling up from the drawn terminals.

    A move into a drawn position of another tablebase counts as a draw known from the
    start, at its own remoteness (or never, if it has none). ``counters`` (int[n], of a
    dtype that holds any position's number of moves) is reused as the count of each
    pending draw's moves into draws not yet seen, and a pending draw's ``remoteness``
    as the nearest drawn successor seen so far (``-2 - nearest``; -1 for none yet).
    """
    pending = remoteness == NO_REMOTENESS  # every unresolved position is a non-terminal draw
    draw = outcome == _DRAW
    draw_exits = exits.select((exits.outcome == _DRAW) & pending[exits.src])
    counters[:] = graph.moves_into(pending, draw)
    del pending, draw
    _add_ones(counters, draw_exits.src)

    known = draw_exits.select(draw_exits.remoteness >= 0)
    none = np.zeros(0, dtype=np.int64)
    found.end = _to_draws(none, none, known.remoteness, known.src, counters, remoteness, found.room(len(known.src)), 0)
    ready = found.take()
    drawn_terminals = np.flatnonzero((outcome == _DRAW) & (terminal != NOT_TERMINAL))
    frontier = np.concatenate([drawn_terminals, ready])
    del drawn_terminals, ready
    while frontier.size:
        for nodes, parents, counts in graph.parents(frontier):
            counts = np.array(counts, dtype=np.int64)  # counted down in place
            found.end = _to_draws(nodes, counts, none, parents, counters, remoteness, found.room(len(parents)), found.end)
        frontier = found.take()
    remoteness[remoteness < NO_REMOTENESS] = NO_REMOTENESS
