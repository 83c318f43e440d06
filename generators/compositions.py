"""Ranking the boards of a sowing game: every way to put up to ``total`` seeds into ``pits``
pits, numbered densely so that a board's key orders the game's moves.

A board's *level* is the seeds it holds and its *potential* is ``sum(weight[j] * seeds[j])``.
Keys run through the levels upwards; within a level through the potentials downwards;
within one (level, potential) class in lexicographic order of the pits. In Kalah a turn
never adds seeds to the board, and a turn that keeps them all sows once, towards the
mover's store, which raises the potential (a pit's weight is its distance from its side's
first pit): every move then leads to a lower key, so one sweep in key order solves the
game (:meth:`generators.kalah.Kalah.ordered_levels`).

The ranking is the combinatorial number system of compositions (D. Knuth, *The Art of
Computer Programming* 4A, 7.2.1.3), counted by dynamic programming over the pits with the
potential as a second sum.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _ways(weights: np.ndarray, total: int, most: int) -> np.ndarray:
    """int64[pits + 1, total + 1, most + 1]: ``ways[j, s, p]``, the fillings of pits
    ``j`` and after with ``s`` seeds and potential ``p``."""
    pits = len(weights)
    ways = np.zeros((pits + 1, total + 1, most + 1), dtype=np.int64)
    ways[pits, 0, 0] = 1
    for j in range(pits - 1, -1, -1):
        weight = weights[j]
        for seeds in range(total + 1):
            for potential in range(most + 1):
                count = 0
                for here in range(seeds + 1):
                    rest = potential - weight * here
                    if rest < 0:
                        break
                    count += ways[j + 1, seeds - here, rest]
                ways[j, seeds, potential] = count
    return ways


@njit(cache=True, nogil=True)
def rank(board: np.ndarray, weights: np.ndarray, ways: np.ndarray, first: np.ndarray) -> int:
    """The key of int64[pits] ``board`` (see the module docstring)."""
    seeds, potential = 0, 0
    for j in range(len(board)):
        seeds += board[j]
        potential += weights[j] * board[j]
    key = first[seeds, potential]
    for j in range(len(board)):
        weight = weights[j]
        for here in range(board[j]):
            key += ways[j + 1, seeds - here, potential - weight * here]
        seeds -= board[j]
        potential -= weight * board[j]
    return key


@njit(cache=True, nogil=True)
def unrank(key: int, board: np.ndarray, weights: np.ndarray, ways: np.ndarray, starts: np.ndarray,
           classes: np.ndarray) -> None:
    """Write into int64[pits] ``board`` the board of ``key``, ``starts`` and ``classes``
    as :attr:`Boards.starts` and :attr:`Boards.classes`."""
    at = np.searchsorted(starts, key, side="right") - 1
    seeds, potential = classes[at, 0], classes[at, 1]
    left = key - starts[at]
    for j in range(len(board)):
        weight = weights[j]
        here = 0
        while True:
            rest = potential - weight * here
            count = ways[j + 1, seeds - here, rest] if rest >= 0 and here <= seeds else 0
            if left < count:
                break
            left -= count
            here += 1
        board[j] = here
        seeds -= here
        potential -= weight * here


class Boards:
    """The keys of every board of ``len(weights)`` pits holding up to ``total`` seeds.

    :param weights: the potential each seed of a pit adds (int, >= 0).
    :param total: the most seeds on a board.

    Attributes: :attr:`size` (how many boards: C(total + pits, pits)); :attr:`ways` (see
    :func:`_ways`); :attr:`first` int64[total + 1, most + 1], the first key of each
    (level, potential) class; :attr:`starts` int64[c] the first key of each non-empty
    class in key order, and :attr:`classes` int64[c, 2] its level and potential.
    """

    def __init__(self, weights: tuple[int, ...], total: int) -> None:
        self.weights = np.asarray(weights, dtype=np.int64)
        most = total * int(self.weights.max(initial=0))
        self.ways = _ways(self.weights, total, most)
        self.first = np.zeros((total + 1, most + 1), dtype=np.int64)
        starts, classes, key = [], [], 0
        for seeds in range(total + 1):
            for potential in range(most, -1, -1):
                self.first[seeds, potential] = key
                count = int(self.ways[0, seeds, potential])
                if count:
                    starts.append(key)
                    classes.append((seeds, potential))
                key += count
        self.size = key
        self.starts = np.asarray(starts, dtype=np.int64)
        self.classes = np.asarray(classes, dtype=np.int64).reshape(-1, 2)

    def level_bounds(self) -> np.ndarray:
        """int64[c + 1]: the bounds of the (level, potential) classes in key order, the
        last the :attr:`size`."""
        return np.append(self.starts, self.size)

    def key(self, board: tuple[int, ...]) -> int:
        """The key of one board."""
        return int(rank(np.asarray(board, dtype=np.int64), self.weights, self.ways, self.first))

    def board(self, key: int) -> tuple[int, ...]:
        """The board of one key in ``range(size)``."""
        board = np.zeros(len(self.weights), dtype=np.int64)
        unrank(key, board, self.weights, self.ways, self.starts, self.classes)
        return tuple(board.tolist())
