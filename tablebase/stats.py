"""Statistics of a stored tablebase: how many positions lie at each remoteness, per
outcome, and the positions farthest from the end of the game.

These are the figures syzygy-tables.info shows per ending (counts per outcome, the
longest win with a position that reaches it), computed from the stored values alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.game import Game, Outcome
from tablebase.store import Store, TablebaseRow


@dataclass(frozen=True)
class Histogram:
    """Positions per remoteness, for each outcome of the side to move.

    :ivar counts: ``{"win": int64[r + 1], "draw": ..., "loss": ...}``: ``counts[o][d]``
        is the number of positions of outcome ``o`` at remoteness ``d`` plies, for ``d``
        from 0 to the largest remoteness ``r`` of the tablebase.
    :ivar unknown: positions per outcome that carry no remoteness (draws that can cycle,
        positions of sum, scored or Büchi games).
    """

    counts: dict[str, np.ndarray]
    unknown: dict[str, int]

    @property
    def longest(self) -> int | None:
        """The largest remoteness of any position (plies), or ``None`` if none has one."""
        reached = [len(c) - 1 for c in self.counts.values() if c.any()]
        return max(reached) if reached else None


@dataclass(frozen=True)
class Extreme:
    """A position at the largest remoteness of its outcome: its text, outcome and
    remoteness in plies."""

    position: str
    outcome: Outcome
    remoteness: int


def remoteness_histogram(store: Store, row: TablebaseRow) -> Histogram:
    """The :class:`Histogram` of a complete tablebase.

    :raises StoreError: if the database fails or a stored chunk is damaged.
    """
    _keys, outcome, remoteness = store.read_values(row)
    known = remoteness >= 0
    size = int(remoteness.max()) + 1 if known.any() else 0
    counts, unknown = {}, {}
    for value in Outcome:
        these = outcome == value
        counts[value.label] = np.bincount(remoteness[these & known], minlength=size).astype(np.int64)
        unknown[value.label] = int(np.count_nonzero(these & ~known))
    return Histogram(counts, unknown)


def extremes(game: Game, store: Store, row: TablebaseRow, per_outcome: int = 3) -> list[Extreme]:
    """Up to ``per_outcome`` positions at the largest remoteness of each outcome (the
    longest win, the longest loss, the longest draw that has a remoteness), in key order.

    :param game: the game of the tablebase, to write the positions.
    :raises StoreError: if the database fails or a stored chunk is damaged.
    """
    keys, outcome, remoteness = store.read_values(row)
    found = []
    for value in (Outcome.WIN, Outcome.LOSS, Outcome.DRAW):
        these = np.flatnonzero((outcome == value) & (remoteness >= 0))
        if len(these) == 0:
            continue
        deepest = these[remoteness[these] == remoteness[these].max()][:per_outcome]
        for index in deepest.tolist():
            position = game.format(game.decode(int(keys[index])))
            found.append(Extreme(position, value, int(remoteness[index])))
    return found
