"""Batched retrograde analysis over a move graph held in numpy arrays.

The pass is the classic one for games on arbitrary graphs (e-maxx, "Games on arbitrary
graphs"; algorithmica, "Игры на графах"): every position keeps a counter of moves not yet
known to lead to a win for the opponent. Terminal positions are resolved at level 0.
Level by level, each predecessor of a loss at level ``d`` becomes a win at ``d + 1`` (if
still unresolved), and each predecessor of a win has its counter decremented; when the
counter reaches zero, it is a loss at ``d + 1``. Processing whole levels at once gives the
remoteness rules of DESIGN.md exactly:

- a win is 1 + the smallest remoteness among its moves to a loss;
- a loss is 1 + the largest remoteness among its moves (all to wins);
- whatever is never resolved is a draw, including every position whose best play cycles.

A draw then gets a remoteness only where no draw-keeping line from it can cycle: it is
1 + the smallest remoteness among its moves to draws, once all of those are known
(a peel from the drawn terminals). In a game without cycles, such as tic-tac-toe, every
draw gets one; a draw that can cycle keeps none (``-1`` in the arrays, null in storage).

Each level costs O(moves into that level's positions): predecessors are found through a
CSR built with one sort of packed ``(dst << 32) | src`` words, faster in numpy than an
``argsort`` of the destinations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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


def predecessor_csr(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group moves by their destination.

    :param n: number of positions, at most ``2**32``.
    :param src: int[m] index of each move's position.
    :param dst: int[m] index of each move's successor.
    :returns: ``(offsets, preds)``: int64[n + 1] and int32 (or int64 past 2**31)[m];
        the predecessors of ``v`` are ``preds[offsets[v]:offsets[v + 1]]``.
    :raises ValueError: past ``2**32`` positions.
    """
    if n > 2**32:
        raise ValueError(f"{n} positions: the predecessor CSR numbers at most 2**32")
    packed = (dst.astype(np.int64) << 32) | src.astype(np.int64)
    packed.sort()
    preds = (packed & 0xFFFFFFFF).astype(index_dtype(n))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=offsets[1:])
    return offsets, preds


def index_dtype(n: int) -> type[np.signedinteger]:
    """The smallest signed integer dtype that can number ``n`` positions."""
    return np.int32 if n < 2**31 else np.int64


def gather(offsets: np.ndarray, preds: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate the predecessor lists of ``nodes``.

    :returns: ``(predecessors, counts)``: the lists, end to end, and int64[len(nodes)]
        how many each node contributed (for ``np.repeat`` of per-node values).
    """
    starts = offsets[nodes]
    counts = offsets[nodes + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return preds[:0], counts
    ends = np.cumsum(counts)
    positions = np.arange(total, dtype=np.int64) + np.repeat(starts - (ends - counts), counts)
    return preds[positions], counts


def _tally(indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``indices`` and how often each occurs (a sort; faster than ``ufunc.at``)."""
    ordered = np.sort(indices)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(first)
    counts = np.empty(len(starts), dtype=np.int64)
    counts[:-1] = starts[1:] - starts[:-1]
    counts[-1:] = len(ordered) - starts[-1:]
    return ordered[starts], counts


def _distinct(indices: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``indices`` without repeats, in O(len) using a scratch int64[n] array."""
    order = np.arange(len(indices), dtype=np.int64)
    scratch[indices] = order
    return indices[scratch[indices] == order]


def solve(
    terminal: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    advance: Advance = lambda _count: None,
) -> Solution:
    """Solve a move graph by retrograde analysis.

    :param terminal: int8[n]: the outcome of each terminal position for its side to move,
        or :data:`~tablebase.game.NOT_TERMINAL`. Moves out of terminal positions are
        ignored; a non-terminal position without moves is a loss at remoteness 0.
    :param src: int[m] position index of each move (any order, repeats allowed).
    :param dst: int[m] successor index of each move.
    :param advance: called with the number of positions resolved at each level.
    :returns: the :class:`Solution`.
    """
    n = len(terminal)
    is_terminal = terminal != NOT_TERMINAL
    live = ~is_terminal[src]
    src, dst = src[live], dst[live]
    offsets, preds = predecessor_csr(n, src, dst)
    unresolved_moves = np.bincount(src, minlength=n).astype(np.int32)

    outcome = np.where(is_terminal, terminal, _DRAW).astype(np.int8)
    remoteness = np.full(n, NO_REMOTENESS, dtype=np.int32)
    stuck = ~is_terminal & (unresolved_moves == 0)
    outcome[stuck] = _LOSS
    resolved = is_terminal | stuck
    remoteness[resolved] = 0
    scratch = np.empty(n, dtype=np.int64)

    frontier = np.flatnonzero(resolved)
    level = 0
    while frontier.size:
        advance(int(frontier.size))
        level += 1
        values = outcome[frontier]
        found = []

        losses = frontier[values == _LOSS]
        if losses.size:
            to_win, _ = gather(offsets, preds, losses)
            to_win = _distinct(to_win[~resolved[to_win]], scratch)
            resolved[to_win] = True
            outcome[to_win] = _WIN
            remoteness[to_win] = level
            found.append(to_win)

        wins = frontier[values == _WIN]
        if wins.size:
            toward_loss, _ = gather(offsets, preds, wins)
            parents, moves_to_wins = _tally(toward_loss[~resolved[toward_loss]])
            unresolved_moves[parents] -= moves_to_wins
            to_loss = parents[unresolved_moves[parents] == 0]
            resolved[to_loss] = True
            outcome[to_loss] = _LOSS
            remoteness[to_loss] = level
            found.append(to_loss)

        frontier = np.concatenate(found) if found else frontier[:0]

    _draw_remoteness(outcome, remoteness, is_terminal, src, dst, offsets, preds)
    advance(int(np.count_nonzero(~resolved)))
    return Solution(outcome, remoteness)


def _draw_remoteness(
    outcome: np.ndarray,
    remoteness: np.ndarray,
    is_terminal: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    offsets: np.ndarray,
    preds: np.ndarray,
) -> None:
    """Give draws their remoteness in place, peeling up from the drawn terminals."""
    draw = outcome == _DRAW
    pending = draw & ~is_terminal
    into_draw = draw[dst] & pending[src]
    draw_moves_left = np.bincount(src[into_draw], minlength=len(outcome)).astype(np.int32)
    nearest = np.full(len(outcome), np.iinfo(np.int32).max, dtype=np.int32)

    frontier = np.flatnonzero(draw & is_terminal)
    while frontier.size:
        parents, counts = gather(offsets, preds, frontier)
        child_remoteness = np.repeat(remoteness[frontier], counts)
        keep = pending[parents]
        parents, child_remoteness = parents[keep], child_remoteness[keep]
        np.minimum.at(nearest, parents, child_remoteness)
        parents, moves_to_draws = _tally(parents)
        draw_moves_left[parents] -= moves_to_draws
        ready = parents[draw_moves_left[parents] == 0]
        remoteness[ready] = nearest[ready] + 1
        pending[ready] = False
        frontier = ready
