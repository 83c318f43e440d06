"""What a solve hands to the store: every position of a game with its value, as sorted
key arrays (:class:`SolvedGame`), or over a whole index space without a key array
(:class:`SolvedIndex`), which the store takes a range of keys at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

import numpy as np
from numba import njit

from tablebase.core.tally import Tally
from tablebase.solve.retrograde.state import NO_REMOTENESS, Solution
from tablebase.solve.scratch import Spilled
from tablebase.util.progress import Advance

ABSENT = -2
"""Outcome (and terminal value) of a key of an index space that is no position (illegal)."""

Batch = tuple[np.ndarray, np.ndarray, np.ndarray, "np.ndarray | None"]
"""``(keys, outcome, remoteness, extra)`` of consecutive positions: int64[b] ascending,
int8[b], int32[b] (plies; -1 for none), and the extra values or ``None``."""


Known = Callable[[np.ndarray], "np.ndarray | None"]
"""Which extra values are values (:meth:`~tablebase.solve.kinds.ValueKind.known`)."""


class Solved(Protocol):
    """What the store writes of a solve: :class:`SolvedGame`, :class:`SolvedIndex`, or
    values still held elsewhere (:class:`tablebase.build.cluster.SolvedPartitions`)."""

    @property
    def positions(self) -> int:
        """How many positions there are."""
        ...

    def batches(self, size: int) -> Iterator[Batch]:
        """The positions ``size`` keys at a time, in key order."""
        ...

    def tally(self) -> Tally:
        """The counts the catalog records."""
        ...

    def write(self, store: Any, row: Any, known: Known, size: int, advance: Advance) -> None:
        """Write every position to ``row`` of ``store`` (a
        :class:`~tablebase.store.Store`; the build completes it after), ``size``
        keys a call, ``known`` telling which extra values are values; ``advance``
        gets the positions written."""
        ...


def write_batches(store: Any, row: Any, known: Known, batches: Iterable[Batch], advance: Advance) -> None:
    """:meth:`Solved.write` of ``batches``, one :meth:`~tablebase.store.Store.write`
    each, then the store's last block."""
    for keys, outcome, remoteness, extra in batches:
        store.write(row, keys, outcome, remoteness, advance, extra=extra, known=None if extra is None else known(extra))
    store.finish_writing(row)


class WrittenInBatches:
    """:meth:`Solved.write` through :meth:`Solved.batches`, from this process."""

    def write(self, store: Any, row: Any, known: Known, size: int, advance: Advance) -> None:
        """:meth:`Solved.write`."""
        write_batches(store, row, known, self.batches(size), advance)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class SolvedGame(WrittenInBatches):
    """Every position of a game with its value.

    :ivar keys: int64[n] canonical keys, ascending.
    :ivar solution: outcome int8[n] and remoteness int32[n] (plies), indexed like ``keys``.
    :ivar extra: int32[n] Grundy values of an impartial game (-1 where a cycle is
        reachable), int64[n] negamax scores of a scored game, int32[n] signed DTZ of a
        game with ``dtz`` (:mod:`tablebase.solve.dtz`), else ``None``.
    """

    keys: np.ndarray
    solution: Solution
    extra: np.ndarray | None = None

    @property
    def positions(self) -> int:
        """How many positions there are."""
        return len(self.keys)

    def tally(self) -> Tally:
        """The counts the catalog records."""
        return Tally.of(self.solution.outcome, self.solution.remoteness)

    def batches(self, size: int) -> Iterator[Batch]:
        """The positions ``size`` at a time, in key order."""
        for start in range(0, len(self.keys), size):
            part = slice(start, start + size)
            extra = None if self.extra is None else self.extra[part]
            yield self.keys[part], self.solution.outcome[part], self.solution.remoteness[part], extra


class SolvedIndex(WrittenInBatches):
    """Every position of a game over its index space, held as the retrograde pass left it:
    no key array, a few bytes a key. :attr:`keys` and :attr:`solution` give the
    :class:`SolvedGame` form when asked (a copy); :meth:`batches` reads a range of keys at a
    time.

    :param outcome: int8[size], :data:`ABSENT` for a key that is no position.
    :param remoteness: int16[size] or int32[size], plies (-1 for none); set to -1 here
        for the keys that are no position. ``None`` for none at all (DTZ without DTM).
    :param extra: int[size] signed DTZ of a game with ``dtz``, in memory or spilled to
        disk (:class:`~tablebase.solve.scratch.Spilled`), else ``None``.
    :param first: the key of ``outcome[0]``, for a range of the index space.
    """

    def __init__(
        self, outcome: np.ndarray, remoteness: np.ndarray | None, extra: np.ndarray | Spilled | None = None, first: int = 0
    ) -> None:
        if remoteness is None:
            remoteness = np.broadcast_to(np.int16(NO_REMOTENESS), outcome.shape)
        else:
            _no_remoteness_where_absent(outcome, remoteness, ABSENT, NO_REMOTENESS)
        self.outcome, self.remoteness, self.extra, self.first = outcome, remoteness, extra, first

    @property
    def positions(self) -> int:
        """How many keys are positions."""
        return len(self.outcome) - int(np.count_nonzero(self.outcome == ABSENT))

    @cached_property
    def keys(self) -> np.ndarray:
        """int64[n]: the keys that are positions, ascending."""
        return self.first + np.flatnonzero(self.outcome != ABSENT)

    @cached_property
    def solution(self) -> Solution:
        """The values of :attr:`keys` (remoteness int32)."""
        present = self.keys - self.first
        return Solution(self.outcome[present], self.remoteness[present].astype(np.int32))

    def tally(self) -> Tally:
        """The counts the catalog records: a key that is no position has neither a win,
        draw or loss nor a remoteness, so they skip it."""
        return Tally.of(self.outcome, self.remoteness)

    def batches(self, size: int) -> Iterator[Batch]:
        """The positions of each range of ``size`` keys, in key order."""
        for start in range(0, len(self.outcome), size):
            outcome = self.outcome[start : start + size]
            present = np.flatnonzero(outcome != ABSENT)
            remoteness = self.remoteness[start : start + size][present].astype(np.int32)
            extra = None if self.extra is None else self.extra[start : start + size][present].astype(np.int32)
            yield self.first + start + present, outcome[present], remoteness, extra


@njit(cache=True, nogil=True)
def _no_remoteness_where_absent(outcome, remoteness, absent, none):
    """``none`` in ``remoteness`` where ``outcome`` is ``absent`` (both [n], views of a
    pass's records included), in one sweep (no boolean temporary of the index space)."""
    for i in range(len(outcome)):
        if outcome[i] == absent:
            remoteness[i] = none
