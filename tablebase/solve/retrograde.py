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

Each level costs O(moves into that level's positions): predecessors are found through
the predecessor lists of :mod:`tablebase.solve.predecessors`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.game import NOT_TERMINAL, Outcome
from tablebase.progress import Advance
from tablebase.solve.predecessors import Predecessors, tally

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


def _distinct(indices: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``indices`` without repeats, in O(len) using a scratch int64[n] array."""
    order = np.arange(len(indices), dtype=np.int64)
    scratch[indices] = order
    return indices[scratch[indices] == order]


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


def solve(
    terminal: np.ndarray,
    graph: Predecessors,
    advance: Advance = lambda _count: None,
    exits: Exits | None = None,
) -> Solution:
    """Solve a move graph by retrograde analysis.

    :param terminal: int8[n]: the outcome of each terminal position for its side to move,
        or :data:`~tablebase.game.NOT_TERMINAL`. Moves out of terminal positions are
        ignored; a non-terminal position without moves is a loss at remoteness 0.
    :param graph: the moves, as predecessor lists (see
        :func:`~tablebase.solve.predecessors.predecessors_of` for move lists).
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
    unresolved_moves = graph.out_degree + np.bincount(exits.src, minlength=n).astype(np.int32)

    outcome = np.where(is_terminal, terminal, _DRAW).astype(np.int8)
    remoteness = np.full(n, NO_REMOTENESS, dtype=np.int32)
    stuck = ~is_terminal & (unresolved_moves == 0)
    outcome[stuck] = _LOSS
    resolved = is_terminal | stuck
    remoteness[resolved] = 0
    scratch = np.empty(n, dtype=np.int64)
    pending_exits = _DecisiveExits(exits)

    frontier = np.flatnonzero(resolved)
    level = 0
    while frontier.size or pending_exits.remaining():
        if not frontier.size:
            level = pending_exits.next_remoteness()  # nothing happens in between
        advance(int(frontier.size))
        exit_losses, exit_wins = pending_exits.at(level)
        level += 1
        values = outcome[frontier]
        found = []

        losses = frontier[values == _LOSS]
        if losses.size or exit_losses.size:
            to_win = np.concatenate([graph.of(losses)[0], exit_losses])
            to_win = _distinct(to_win[~resolved[to_win]], scratch)
            resolved[to_win] = True
            outcome[to_win] = _WIN
            remoteness[to_win] = level
            found.append(to_win)

        wins = frontier[values == _WIN]
        if wins.size or exit_wins.size:
            toward_loss = np.concatenate([graph.of(wins)[0], exit_wins])
            parents, moves_to_wins = tally(toward_loss[~resolved[toward_loss]])
            unresolved_moves[parents] -= moves_to_wins
            to_loss = parents[unresolved_moves[parents] == 0]
            resolved[to_loss] = True
            outcome[to_loss] = _LOSS
            remoteness[to_loss] = level
            found.append(to_loss)

        frontier = np.concatenate(found) if found else frontier[:0]

    _draw_remoteness(outcome, remoteness, is_terminal, graph, exits)
    advance(int(np.count_nonzero(~resolved)))
    return Solution(outcome, remoteness)


def _draw_remoteness(
    outcome: np.ndarray, remoteness: np.ndarray, is_terminal: np.ndarray, graph: Predecessors, exits: Exits
) -> None:
    """Give draws their remoteness in place, peeling up from the drawn terminals.

    A move into a drawn position of another tablebase counts as a draw known from the
    start, at its own remoteness (or never, if it has none).
    """
    n = len(outcome)
    draw = outcome == _DRAW
    pending = draw & ~is_terminal
    into_draw = graph.preds[np.repeat(draw, np.diff(graph.offsets))]  # a byte a move, not a gather
    draw_exits = exits.select((exits.outcome == _DRAW) & pending[exits.src])
    draw_moves_left = (
        np.bincount(into_draw[pending[into_draw]], minlength=n) + np.bincount(draw_exits.src, minlength=n)
    ).astype(np.int32)
    del into_draw
    nearest = np.full(n, np.iinfo(np.int32).max, dtype=np.int32)

    known = draw_exits.select(draw_exits.remoteness >= 0)
    np.minimum.at(nearest, known.src, known.remoteness)
    parents, moves_to_draws = tally(known.src)
    draw_moves_left[parents] -= moves_to_draws
    ready = parents[draw_moves_left[parents] == 0]
    remoteness[ready] = nearest[ready] + 1
    pending[ready] = False

    frontier = np.concatenate([np.flatnonzero(draw & is_terminal), ready])
    while frontier.size:
        parents, counts = graph.of(frontier)
        child_remoteness = np.repeat(remoteness[frontier], counts)
        keep = pending[parents]
        parents, child_remoteness = parents[keep], child_remoteness[keep]
        np.minimum.at(nearest, parents, child_remoteness)
        parents, moves_to_draws = tally(parents)
        draw_moves_left[parents] -= moves_to_draws
        ready = parents[draw_moves_left[parents] == 0]
        remoteness[ready] = nearest[ready] + 1
        pending[ready] = False
        frontier = ready
