"""The moves of a pass by un-moves (:class:`UnmoveSource`): predecessors generated a batch
at a time by the workers, and applied to the pass's state by the worker threads that find
them where they share it."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from itertools import tee

import numpy as np
from numba import njit

from tablebase.core.errors import GameError
from tablebase.core.game import Game
from tablebase.solve.graph import slices
from tablebase.solve.retrograde.state import PositionState
from tablebase.solve.retrograde.wins_losses import _to_losses, _to_wins
from tablebase.solve.unmoves.index import PositionIndex
from tablebase.solve.unmoves.pairs import distinct_pairs
from tablebase.solve.workers import Workers


def _check_keys(game: Game, keys: np.ndarray, member: str) -> np.ndarray:
    """``keys``. :raises GameError: if one is negative."""
    if keys.size and keys.min() < 0:
        raise GameError(f"{game.name}: {member} gave key {int(keys.min())}; keys must be in [0, 2**63)")
    return keys


def _unmoves(game: Game, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Worker task: the distinct un-moves of int64[k] keys, ``(src_index, pred_key)``.

    :raises GameError: if a predecessor key is negative.
    """
    src, pred = (np.asarray(a, dtype=np.int64) for a in game.predecessors(keys))
    _check_keys(game, pred, "predecessors()")
    return (src, pred) if game.distinct_unmoves else distinct_pairs(src, pred)


def _numbered_unmoves(game: Game, batch: tuple[np.ndarray, PositionIndex]) -> tuple[np.ndarray, np.ndarray]:
    """Worker task, where the workers share this process's memory: the predecessors of a
    batch of keys numbered by the pass's index, those that are no position of it left
    out, and int64[k] their counts per key (what :meth:`UnmoveSource.parents` yields),
    so that the pass's own thread only applies them."""
    keys, index = batch
    src, found = index.found(*_unmoves(game, keys))
    return found, np.bincount(src, minlength=len(keys))


class UnmoveSource:
    """The moves of a game as the retrograde pass reads them
    (:class:`~tablebase.solve.retrograde.solver.MoveSource`), generated batch by batch in
    worker processes: un-moves backwards, moves forwards. Each distinct successor of a
    position counts once.

    :param out_degree: int[n] the distinct successors of each position (the counter of
        the pass's :class:`PositionState`, which the pass then counts down).
    """

    def __init__(self, index: PositionIndex, out_degree: np.ndarray, pool: Workers, batch_size: int) -> None:
        self.index, self.out_degree, self.pool, self.batch_size = index, out_degree, pool, batch_size

    def _pairs(self, task, parts: Iterable[np.ndarray]) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``(part, src, other)`` per batch of position numbers: the task's pairs,
        ``other`` numbered, those that are no position left out. The batches are drawn
        as the workers take them."""
        ahead, parts = tee(parts)
        for part, (src, keys) in zip(parts, self.pool.map(task, (self.index.keys(p) for p in ahead))):
            yield (part, *self.index.found(src, keys))

    def parents(self, nodes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``(part, predecessors, counts)`` per batch of int[k] ``nodes``."""
        if self.pool.in_process:
            ahead, parts = tee(slices(nodes, self.batch_size))
            batches = ((self.index.keys(p), self.index) for p in ahead)
            for part, (found, counts) in zip(parts, self.pool.map(_numbered_unmoves, batches)):
                yield part, found, counts
            return
        for part, src, pred in self._pairs(_unmoves, slices(nodes, self.batch_size)):
            yield part, pred, np.bincount(src, minlength=len(part))

    @property
    def settles(self) -> bool:
        """Whether the workers apply a level's predecessors themselves (:meth:`settle`):
        they run in this process and share the pass's state."""
        return self.pool.in_process

    def settle(self, nodes: np.ndarray, losing: int, state: PositionState, level: int) -> Iterator[np.ndarray]:
        """Resolve the predecessors of a level's int[k] ``nodes`` in the workers that find
        them: those of the first ``losing`` (lost positions) won at ``level``, those of
        the others (won) counted down, lost at ``level`` at zero (as
        :func:`~tablebase.solve.retrograde.solver.solve_positions` applies them in its own
        thread otherwise). Yields int[r] the positions resolved, a batch at a time."""
        settlement = _Settlement(state, level)
        parts = slices(nodes, self.batch_size)
        starts = np.cumsum([0] + [len(p) for p in parts])
        batches = (
            (self.index.keys(part), self.index, min(max(losing - int(start), 0), len(part)), settlement)
            for start, part in zip(starts, parts)
        )
        yield from self.pool.map(_settled_unmoves, batches)


class _Settlement:
    """One level's predecessors applied by the worker threads that find them: the
    positions cut into :attr:`RANGES` ranges of ``2**shift``, one lock each, so that two
    workers apply at once unless they need the same range (a counter counted down by two
    threads at once would lose a count)."""

    RANGES = 16

    def __init__(self, state: PositionState, level: int) -> None:
        n = max(len(state.records), 1)
        self.state, self.level = state, level
        self.shift = max(0, (n - 1).bit_length() - self.RANGES.bit_length() + 1)
        self.locks = [threading.Lock() for _ in range(((n - 1) >> self.shift) + 1)]

    def apply(self, won: np.ndarray, counted: np.ndarray) -> np.ndarray:
        """Win int[a] ``won`` and count down int[b] ``counted`` (predecessors of lost and
        of won positions), range by range, a free range first; returns the positions
        resolved."""
        state, ranges = self.state, len(self.locks)
        won, won_at = _by_range(won, self.shift, ranges)
        counted, counted_at = _by_range(counted, self.shift, ranges)
        resolved = np.empty(len(won) + len(counted), dtype=won.dtype)
        end = 0
        waiting = [r for r in range(ranges) if won_at[r + 1] > won_at[r] or counted_at[r + 1] > counted_at[r]]
        while waiting:
            free = next((r for r in waiting if self.locks[r].acquire(blocking=False)), None)
            if free is None:
                free = waiting[0]
                self.locks[free].acquire()
            try:
                mine = won[won_at[free] : won_at[free + 1]]
                end = _to_wins(mine, state.outcome, state.remoteness, self.level, resolved, end)
                mine = counted[counted_at[free] : counted_at[free + 1]]
                end = _to_losses(mine, state.counter, state.outcome, state.remoteness, self.level, resolved, end)
            finally:
                self.locks[free].release()
            waiting.remove(free)
        return resolved[:end]


@njit(cache=True, nogil=True)
def _by_range(values, shift, ranges):
    """int[k] ``values`` ordered by ``value >> shift`` (a counting sort), and int64[ranges
    + 1] where each range begins."""
    at = np.zeros(ranges + 1, np.int64)
    for v in values:
        at[(v >> shift) + 1] += 1
    for r in range(ranges):
        at[r + 1] += at[r]
    ordered = np.empty_like(values)
    fill = at[:-1].copy()
    for v in values:
        r = v >> shift
        ordered[fill[r]] = v
        fill[r] += 1
    return ordered, at


def _settled_unmoves(game: Game, batch: tuple[np.ndarray, PositionIndex, int, _Settlement]) -> np.ndarray:
    """Worker task of :meth:`UnmoveSource.settle`: the predecessors of a batch of keys,
    numbered, applied to the pass's state (those of its first ``losing`` keys won, the
    others' counted down); the positions resolved."""
    keys, index, losing, settlement = batch
    src, found = index.found(*_unmoves(game, keys))
    cut = int(np.searchsorted(src, losing))  # src ascends
    return settlement.apply(found[:cut], found[cut:])
