"""What the retrograde pass keeps of every position (:class:`PositionState`, about four
bytes a position) and what it gives back (:class:`Solution`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.solve.retrograde.exit_codes import Exits, _fold, _widest_code

NO_REMOTENESS = -1
"""Remoteness of a draw that has no distance (it can cycle)."""


@dataclass(frozen=True)
class Solution:
    """Values of every position of a move graph, indexed like it.

    :ivar outcome: int8[n], :class:`~tablebase.core.game.Outcome` values for the side to move.
    :ivar remoteness: int32[n] (int16 or int32 from :func:`~tablebase.solve.retrograde.solver.solve_positions`), plies to
        the end; :data:`NO_REMOTENESS` for a draw that can cycle.
    """

    outcome: np.ndarray
    remoteness: np.ndarray


STATE_DTYPE = np.dtype([("outcome", np.int8), ("counter", np.uint8), ("remoteness", np.int16)])
"""The narrowest record of a :class:`PositionState`."""


class PositionState:
    """What the pass keeps of every position, side by side in one record array so that
    resolving a position touches one cache line, not three: about four bytes a position.

    - ``outcome`` (int8): the terminal value (:data:`~tablebase.core.game.NOT_TERMINAL` for
      none, anything else but win, draw and loss for a key that is no position) until
      the pass, then the outcome for the side to move.
    - ``counter`` (uint8, widened to uint16 or int64 when a position has more moves): the
      position's moves within the tablebase until the pass, then those not yet known to
      lead to a win.
    - ``remoteness`` (int16, widened to int32 past 32,000 plies): the code of the
      position's moves into other tablebases until the pass (below), then its remoteness
      in plies, below 0 while unresolved (an unresolved position keeps its code there as
      ``-1 - code``).

    Moves into other tablebases are folded into one code a position (:meth:`fold`): its
    nearest exit into a loss makes it a win one ply later at the latest
    (:data:`~tablebase.solve.retrograde.exit_codes.WIN_BY`); else an exit into a draw keeps it from being lost, and is a drawn
    successor for the draw peel (:data:`~tablebase.solve.retrograde.exit_codes.DRAW_BY`), at the nearest such successor's
    remoteness, or at none if one of them has none; else, all its exits leading to
    wins, the farthest is the last of them to count down (:data:`~tablebase.solve.retrograde.exit_codes.LOSS_BY`). Code 0 is no
    exit; else ``1 + kind + 3 * (remoteness + 1)``, remoteness -1 standing for a draw
    without one. Where an array of :class:`Exits` takes thirteen bytes an exit, the codes
    cost none of their own.

    :ivar records: the record array ``[n]`` of fields ``outcome``, ``counter``,
        ``remoteness``; the properties are views of its fields.
    """

    def __init__(self, n: int, dtype: np.dtype | None = None, records: np.ndarray | None = None) -> None:
        """``n`` zeroed records of ``dtype`` (:data:`STATE_DTYPE`), or the ``records``
        given (of ``n``), used as they are."""
        self.records = np.zeros(n, dtype=dtype or STATE_DTYPE) if records is None else records

    @property
    def outcome(self) -> np.ndarray:
        """int8[n]: the terminal values, then the outcomes."""
        return self.records["outcome"]

    @property
    def counter(self) -> np.ndarray:
        """Unsigned [n]: the moves within the tablebase, then those not yet refuted."""
        return self.records["counter"]

    @property
    def remoteness(self) -> np.ndarray:
        """int16[n] or int32[n]: the exit codes, then the remoteness (see the class)."""
        return self.records["remoteness"]

    def widen(self, field: str, dtype: type) -> None:
        """Give ``field`` the wider ``dtype`` (a new record array, the values kept)."""
        fields = self.records.dtype.names
        widened = np.empty(len(self.records), dtype=[(f, dtype if f == field else self.records.dtype[f]) for f in fields])
        copy_records(widened, self.records)
        self.records = widened

    def count_moves(self, at: np.ndarray | slice, counts: np.ndarray) -> None:
        """Store int[k] ``counts`` of moves at ``at``, the counter widened first where it
        cannot hold one more than the largest (for the exits)."""
        dtype = counter_dtype(int(np.max(counts, initial=0)) + 1)
        if np.dtype(dtype).itemsize > self.records.dtype["counter"].itemsize:
            self.widen("counter", dtype)
        self.counter[at] = counts

    def fold(self, exits: Exits) -> None:
        """Fold exits into the codes (their ``src`` numbering positions), any number a
        position, in any number of calls, widening the codes to int32 when one is
        farther than 10,920 plies.

        :raises ValueError: for an exit into a win or a loss without a remoteness.
        """
        if len(exits.src):
            if _widest_code(exits) > np.iinfo(self.remoteness.dtype).max:
                self.widen("remoteness", np.int32)
            _fold(self.remoteness, exits.src, exits.outcome, exits.remoteness)


def copy_records(into: np.ndarray, records: np.ndarray) -> None:
    """Copy the record array ``records`` into ``into`` (as long, both contiguous): as
    bytes where their dtypes are the same (numpy copies structured records one at a
    time, far slower than their bytes, benchmarks/RESULTS.md), else field by field."""
    if into.dtype == records.dtype:
        into.view(np.uint8)[:] = records.view(np.uint8)
    else:
        for name in records.dtype.names:
            into[name] = records[name]


def counter_dtype(largest: int) -> type:
    """The smallest unsigned dtype that holds counters up to ``largest`` (int64 beyond
    uint16)."""
    return np.uint8 if largest < 2**8 else np.uint16 if largest < 2**16 else np.int64
