"""The sweeps of a retrograde pass over all its positions (:class:`Sweeps`), cut into
ranges swept at once in threads."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tablebase.solve.retrograde.draw_peel import _begin_peel, _drawn_exit_count, _no_remoteness_left
from tablebase.solve.retrograde.wins_losses import _exit_events, _exit_levels, _settled_at_zero, _start, _undecided
from tablebase.util.cores import usable_cores

EXIT_BLOCK = 512
"""Positions per run of :func:`_exit_levels`'s bitsets: a level's sweep for its exits
reads only the runs that hold one (32 bytes of bitset a run, 1/16 byte a position):
KRBvKR's DTM pass sweeps its exits faster at 512 than at 4,096, nearly as fast as at
64 (benchmarks/RESULTS.md)."""


SWEEP_PART = 1 << 22
"""The fewest positions a thread of :class:`Sweeps` takes."""


class Sweeps:
    """The sweeps of a pass over all its ``n`` positions (level 0, the exits' levels and
    events, the undecided ones), cut into ``parts`` ranges of whole runs of
    :data:`EXIT_BLOCK` positions (default: one a core, each of at least
    :data:`SWEEP_PART`), swept at once in threads (compiled loops that release the
    GIL): between two levels the move generators wait for them. A context manager
    that stops its threads.

    :ivar blocks: uint64[b, 4] the exit bitsets of :meth:`exit_levels`.
    :ivar levels_by_part: int64[parts, r + 1] its counts by range.
    """

    def __init__(self, n: int, parts: int | None = None) -> None:
        parts = max(1, min(parts or usable_cores(), n // SWEEP_PART))
        step = -(-max(n, 1) // parts)
        step = -(-step // EXIT_BLOCK) * EXIT_BLOCK
        self.n, self.bounds = n, [(lo, min(lo + step, n)) for lo in range(0, n, step)] or [(0, 0)]
        self._pool = ThreadPoolExecutor(len(self.bounds), thread_name_prefix="sweep") if len(self.bounds) > 1 else None
        self.blocks = np.zeros((0, 4), np.uint64)
        self.levels_by_part = np.zeros((len(self.bounds), 0), np.int64)

    def __enter__(self) -> Sweeps:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown()

    def _each(self, sweep: Callable[[int, int, int], Any]) -> list[Any]:
        """``sweep(part, lo, hi)`` of every range, at once where there are threads."""
        calls = [(part, lo, hi) for part, (lo, hi) in enumerate(self.bounds)]
        if self._pool is None:
            return [sweep(*call) for call in calls]
        return list(self._pool.map(lambda call: sweep(*call), calls))

    def start(self, outcome: np.ndarray, counters: np.ndarray, remoteness: np.ndarray) -> int:
        """Level 0 in place (:func:`_start`); how many positions it resolves."""
        return sum(self._each(lambda _part, lo, hi: int(_start(outcome, counters, remoteness, lo, hi))))

    def _gathered(self, count: Callable[[int, int], int], fill: Callable[[np.ndarray, int, int], int], dtype: type) -> np.ndarray:
        """int[k] of ``dtype``: the positions each range finds, in range order.
        ``count(lo, hi)`` bounds how many a range finds; ``fill(into, lo, hi)`` writes
        them into the range's own part of one buffer and returns how many it wrote."""
        counts = self._each(lambda _part, lo, hi: int(count(lo, hi)))
        at = np.cumsum([0, *counts])
        found = np.empty(int(at[-1]), dtype)
        ends = self._each(lambda part, lo, hi: int(fill(found[at[part] : at[part + 1]], lo, hi)))
        if ends == counts:
            return found
        return np.concatenate([found[at[part] : at[part] + end] for part, end in enumerate(ends)])

    def level_zero(self, outcome: np.ndarray, remoteness: np.ndarray, draws: bool, dtype: type) -> np.ndarray:
        """int[k] of ``dtype``: the positions resolved at level 0 as draws (``draws``),
        or as wins and losses (:func:`_settled_at_zero`), ascending."""
        return self._gathered(
            lambda lo, hi: _settled_at_zero(outcome, remoteness, draws, np.empty(0, dtype), lo, hi),
            lambda into, lo, hi: _settled_at_zero(outcome, remoteness, draws, into, lo, hi),
            dtype,
        )

    def exit_levels(self, remoteness: np.ndarray) -> np.ndarray:
        """int64[r + 1]: how many unresolved positions hold a decisive exit code at each
        remoteness (:func:`_exit_levels`), their bitsets kept in :attr:`blocks` and the
        counts of each range in :attr:`levels_by_part`."""
        self.blocks = np.zeros((-(-self.n // EXIT_BLOCK), 4), dtype=np.uint64)
        parts = self._each(lambda _part, lo, hi: _exit_levels(remoteness, EXIT_BLOCK, self.blocks, lo, hi))
        self.levels_by_part = np.zeros((len(parts), max(len(levels) for levels in parts)), np.int64)
        for part, levels in enumerate(parts):
            self.levels_by_part[part, : len(levels)] = levels
        return self.levels_by_part.sum(axis=0)

    def exit_events(
        self, remoteness_of_exits: int, outcome: np.ndarray, remoteness: np.ndarray, level: int, dtype: type
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(won, counted)``, int[w] and int[c] of ``dtype``: the unresolved positions
        with a :data:`~tablebase.solve.retrograde.exit_codes.WIN_BY` code at ``remoteness_of_exits``, won at ``level`` in
        place, and those with a :data:`~tablebase.solve.retrograde.exit_codes.LOSS_BY` code there, to count down
        (:func:`_exit_events`); each range writes into its own part of one buffer, as
        long as its count from :meth:`exit_levels` (a position can only lose its code)."""
        at = np.cumsum([0, *self.levels_by_part[:, remoteness_of_exits]])
        events = np.empty(int(at[-1]), dtype)
        found = self._each(
            lambda part, lo, hi: _exit_events(
                remoteness_of_exits, outcome, remoteness, level, events[at[part] : at[part + 1]], self.blocks, EXIT_BLOCK, lo, hi
            )
        )
        won = [events[at[part] : at[part] + wins] for part, (wins, _losses) in enumerate(found)]
        counted = [events[at[part + 1] - losses : at[part + 1]] for part, (_wins, losses) in enumerate(found)]
        return np.concatenate(won), np.concatenate(counted)

    def begin_peel(self, counters: np.ndarray, remoteness: np.ndarray, dtype: type) -> np.ndarray:
        """Start the draw peel in place (:func:`_begin_peel`); int[k] of ``dtype``: the
        positions a drawn exit resolves at once."""
        return self._gathered(
            lambda lo, hi: _drawn_exit_count(remoteness, lo, hi),
            lambda into, lo, hi: _begin_peel(counters, remoteness, into, 0, lo, hi),
            dtype,
        )

    def no_remoteness_left(self, remoteness: np.ndarray) -> int:
        """Pending draws the peel never reached get :data:`~tablebase.solve.retrograde.state.NO_REMOTENESS`
        (:func:`_no_remoteness_left`); returns how many positions have none."""
        return sum(self._each(lambda _part, lo, hi: int(_no_remoteness_left(remoteness, lo, hi))))

    def undecided(self, outcome: np.ndarray, remoteness: np.ndarray) -> int:
        """Every unresolved position becomes a draw without remoteness
        (:func:`_undecided`); returns how many."""
        return sum(self._each(lambda _part, lo, hi: int(_undecided(outcome, remoteness, lo, hi))))
