"""What the catalog records of a solved tablebase's values: :class:`Tally`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.core.values import DRAW, LOSS, WIN


@dataclass(frozen=True)
class Tally:
    """Counts of a tablebase's wins, draws and losses (for the side to move), and its
    largest remoteness in plies (``None`` for none)."""

    wins: int
    draws: int
    losses: int
    farthest: int | None

    @staticmethod
    def of(outcome: np.ndarray, remoteness: np.ndarray) -> Tally:
        """The tally of int8[n] outcomes and int[n] remoteness (negative for none); an
        outcome other than win, draw or loss (a key of an index space that is no
        position) is not counted."""
        counts = [0, 0, 0]
        for start in range(0, len(outcome), 1 << 22):  # small masks, reused, not three of n bytes
            part = outcome[start : start + (1 << 22)]
            for i, value in enumerate((WIN, DRAW, LOSS)):
                counts[i] += int(np.count_nonzero(part == value))
        farthest = int(remoteness.max(initial=-1))  # no copy of the known ones
        return Tally(*counts, farthest if farthest >= 0 else None)

    def __add__(self, other: Tally) -> Tally:
        """The tally of both parts of a tablebase."""
        farthest = max((f for f in (self.farthest, other.farthest) if f is not None), default=None)
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses, farthest)

    @property
    def positions(self) -> int:
        """Wins, draws and losses together."""
        return self.wins + self.draws + self.losses
