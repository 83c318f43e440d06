"""Ranking the boards of a sowing game: every way to put up to ``total`` seeds into ``pits``
pits, numbered densely so that a board's key orders the game's moves.

A board's *level* is the seeds it holds and its *potential* is ``sum(weight[j] * seeds[j])``.
Keys run through the levels upwards; within a level through the potentials downwards;
within one (level, potential) class in lexicographic order of the pits. In Kalah a turn
never adds seeds to the board, and a turn that keeps them all sows once, towards the
mover's store, which raises the potential (a pit's weight is its distance from its side's
first pit): every move then leads to a lower key, so one sweep in key order solves the
game (:meth:`tablebase.generators.kalah.Kalah.key_order_levels`).

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


@njit(cache=True)
def _below(weights: np.ndarray, ways: np.ndarray) -> np.ndarray:
    """int64[pits, total + 1, most + 1, total + 1]: ``below[j, s, p, a]``, the fillings of
    pits ``j`` and after with ``s`` seeds and potential ``p`` that put fewer than ``a``
    seeds into pit ``j`` (what a board with ``a`` there ranks after)."""
    pits, total, most = len(weights), ways.shape[1] - 1, ways.shape[2] - 1
    below = np.zeros((pits, total + 1, most + 1, total + 1), dtype=np.int64)
    for j in range(pits):
        for seeds in range(total + 1):
            for potential in range(most + 1):
                for here in range(total):
                    rest = potential - weights[j] * here
                    count = ways[j + 1, seeds - here, rest] if here <= seeds and rest >= 0 else 0
                    below[j, seeds, potential, here + 1] = below[j, seeds, potential, here] + count
    return below


@njit(cache=True, nogil=True)
def rank(board: np.ndarray, weights: np.ndarray, below: np.ndarray, first: np.ndarray) -> int:
    """The key of int64[pits] ``board`` (see the module docstring), ``below`` as
    :attr:`Boards.below`: one lookup a pit."""
    seeds, potential = 0, 0
    for j in range(len(board)):
        seeds += board[j]
        potential += weights[j] * board[j]
    key = first[seeds, potential]
    for j in range(len(board)):
        key += below[j, seeds, potential, board[j]]
        seeds -= board[j]
        potential -= weights[j] * board[j]
    return key


@njit(cache=True, nogil=True)
def unrank(key: int, board: np.ndarray, weights: np.ndarray, below: np.ndarray, starts: np.ndarray,
           classes: np.ndarray) -> None:
    """Write into int64[pits] ``board`` the board of ``key``, ``below``, ``starts`` and
    ``classes`` as :attr:`Boards.below`, :attr:`Boards.starts` and :attr:`Boards.classes`."""
    at = np.searchsorted(starts, key, side="right") - 1
    seeds, potential = classes[at, 0], classes[at, 1]
    left = key - starts[at]
    for j in range(len(board)):
        here = 0
        while here < seeds and below[j, seeds, potential, here + 1] <= left:
            here += 1
        left -= below[j, seeds, potential, here]
        board[j] = here
        seeds -= here
        potential -= weights[j] * here


def fewer_boards_than(limit: int, pits: int, total: int) -> bool:
    """Whether C(total + pits, pits), the boards of ``pits`` pits and up to ``total``
    seeds, is below ``limit``: the product stops as soon as it passes (``math.comb`` of
    a huge ``pits`` would take minutes)."""
    count = 1
    for k in range(1, pits + 1):
        count = count * (total + k) // k
        if count >= limit:
            return False
    return True


def table_bytes(weights: tuple[int, ...], total: int) -> int:
    """The bytes of :attr:`Boards.below` for these pits and seeds (its largest table)."""
    return 8 * len(weights) * (total + 1) ** 2 * (total * max(weights, default=0) + 1)


class Boards:
    """The keys of every board of ``len(weights)`` pits holding up to ``total`` seeds.

    :param weights: the potential each seed of a pit adds (int, >= 0).
    :param total: the most seeds on a board.

    Attributes: :attr:`size` (how many boards: C(total + pits, pits)); :attr:`below` (see
    :func:`_below`; it holds :func:`table_bytes`, 7 MiB for Kalah(6,2)); :attr:`first` int64[total + 1, most + 1],
    the first key of each (level, potential) class; :attr:`starts` int64[c] the first key of each non-empty
    class in key order, and :attr:`classes` int64[c, 2] its level and potential.
    """

    def __init__(self, weights: tuple[int, ...], total: int) -> None:
        self.weights = np.asarray(weights, dtype=np.int64)
        most = total * int(self.weights.max(initial=0))
        ways = _ways(self.weights, total, most)
        self.below = _below(self.weights, ways)
        self.first = np.zeros((total + 1, most + 1), dtype=np.int64)
        starts, classes, key = [], [], 0
        for seeds in range(total + 1):
            for potential in range(most, -1, -1):
                self.first[seeds, potential] = key
                count = int(ways[0, seeds, potential])
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
        return int(rank(np.asarray(board, dtype=np.int64), self.weights, self.below, self.first))

    def board(self, key: int) -> tuple[int, ...]:
        """The board of one key in ``range(size)``."""
        board = np.zeros(len(self.weights), dtype=np.int64)
        unrank(key, board, self.weights, self.below, self.starts, self.classes)
        return tuple(board.tolist())
