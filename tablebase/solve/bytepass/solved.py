"""What the one-byte DTZ pass hands to the store: its codes, decoded a range of keys at a
time (:class:`ByteSolved`), never a whole array of values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tablebase.core.tally import Tally
from tablebase.core.values import DRAW, LOSS, WIN
from tablebase.solve.bytepass.checkpoint import Checkpoint
from tablebase.solve.bytepass.codes import ABSENT, decode_codes
from tablebase.solve.retrograde.state import NO_REMOTENESS
from tablebase.solve.scratch import Spilled
from tablebase.solve.solved import ABSENT as ABSENT_OUTCOME
from tablebase.solve.solved import Batch, Known, WrittenInBatches
from tablebase.util.progress import Advance

RANGE = 1 << 22
"""Keys decoded at a time by :meth:`ByteSolved.tally` and :attr:`ByteSolved.positions`."""


class ByteSolved(WrittenInBatches):
    """Every position of an index space as the one-byte pass left it (a
    :class:`~tablebase.solve.solved.Solved`): outcome and signed DTZ (plies), no remoteness.

    :param table: uint8[size] the codes (:mod:`~tablebase.solve.bytepass.codes`) of the
        last window, from level ``base``.
    :param snapshots: ``(codes, base)`` of each earlier window, oldest first: uint8[size]
        codes on disk (:class:`~tablebase.solve.scratch.Spilled`, or a memory map of a
        checkpoint's file) and their base, where the keys the later windows hold as
        settled before their base are decided.
    :param checkpoint: the pass's checkpoint, deleted once the values are written.
    """

    def __init__(
        self, table: np.ndarray, base: int, snapshots: list[tuple[Spilled | np.ndarray, int]], checkpoint: Checkpoint | None = None
    ) -> None:
        self.table, self.base, self.snapshots, self.checkpoint = table, base, snapshots, checkpoint
        self._tally: Tally | None = None  # counted while the values are written

    def write(self, store: Any, row: Any, known: Known, size: int, advance: Advance) -> None:
        """Write every position (:meth:`batches`), then delete the checkpoint."""
        super().write(store, row, known, size, advance)
        if self.checkpoint is not None:
            self.checkpoint.clear()

    def values(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(outcome, dtz)`` of keys ``start`` to ``stop``: int8 (-2 for a key that is
        no position) and int16 (plies, python-chess's sign convention)."""
        codes = self.table[start:stop]
        outcome = np.empty(len(codes), np.int8)
        dtz = np.empty(len(codes), np.int16)
        older = np.empty(len(codes), np.bool_)
        decode_codes(codes, self.base, outcome, dtz, older)
        for snapshot, base in reversed(self.snapshots):
            at = np.flatnonzero(older)
            if len(at) == 0:
                break
            earlier = snapshot[start:stop][at]
            part_outcome, part_dtz, part_older = (np.empty(len(at), t) for t in (np.int8, np.int16, np.bool_))
            decode_codes(earlier, base, part_outcome, part_dtz, part_older)
            outcome[at], dtz[at] = part_outcome, part_dtz
            older[:] = False
            older[at] = part_older
        return outcome, dtz

    @property
    def positions(self) -> int:
        """How many keys are positions."""
        absent = sum(int(np.count_nonzero(self.table[s : s + RANGE] == ABSENT)) for s in range(0, len(self.table), RANGE))
        return len(self.table) - absent

    def tally(self) -> Tally:
        """Wins, draws and losses; no remoteness (counted by the last whole
        :meth:`batches`, else now)."""
        if self._tally is None:
            for _batch in self.batches(RANGE):
                pass
        assert self._tally is not None
        return self._tally

    def batches(self, size: int) -> Iterator[Batch]:
        """The positions of each range of ``size`` keys, in key order."""
        counts = [0, 0, 0]
        for start in range(0, len(self.table), size):
            outcome, dtz = self.values(start, start + size)
            for i, value in enumerate((WIN, DRAW, LOSS)):
                counts[i] += int(np.count_nonzero(outcome == value))
            present = np.flatnonzero(outcome != ABSENT_OUTCOME)
            remoteness = np.full(len(present), NO_REMOTENESS, np.int32)
            yield start + present, outcome[present], remoteness, dtz[present].astype(np.int32)
        self._tally = Tally(*counts, None)
