"""Statistics of a stored tablebase: how many positions lie at each remoteness, per
outcome, and the positions farthest from the end of the game.

These are the figures syzygy-tables.info shows per ending (counts per outcome, the
longest win with a position that reaches it; for chess, counts per category under the
50-move rule and the longest DTZ and DTM), computed from the stored values alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.core.game import Game
from tablebase.core.values import CATEGORIES, Outcome
from tablebase.read.filled import read_parts, read_values
from tablebase.solve.dtz import categories
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
    _keys, outcome, remoteness = read_values(store, row)
    known = remoteness >= 0
    size = int(remoteness.max()) + 1 if known.any() else 0
    counts, unknown = {}, {}
    for value in Outcome:
        these = outcome == value
        counts[value.label] = np.bincount(remoteness[these & known], minlength=size).astype(np.int64)
        unknown[value.label] = int(np.count_nonzero(these & ~known))
    return Histogram(counts, unknown)


def dtz_histogram(store: Store, row: TablebaseRow) -> Histogram:
    """Positions per absolute DTZ under the 50-move rule (plies; above 100 for cursed
    wins and blessed losses), for each outcome of the side to move, of a tablebase that
    stores DTZ (value kind ``dtz``). Draws have no DTZ: they are all ``unknown``.

    :raises StoreError: if the database fails, a stored chunk is damaged, or the
        tablebase stores no DTZ.
    """
    _keys, outcome, _remoteness = store.read_values(row)
    _keys, dtz, _known = store.read_extra(row)
    distance = np.abs(dtz.astype(np.int64))
    decisive = outcome != Outcome.DRAW
    size = int(distance[decisive].max()) + 1 if decisive.any() else 0
    counts = {
        value.label: np.bincount(distance[outcome == value], minlength=size).astype(np.int64)
        if value != Outcome.DRAW
        else np.zeros(size, dtype=np.int64)
        for value in Outcome
    }
    unknown = {value.label: int(np.count_nonzero(outcome == value)) if value == Outcome.DRAW else 0 for value in Outcome}
    return Histogram(counts, unknown)


def extremes(game: Game, store: Store, row: TablebaseRow, per_outcome: int = 3) -> list[Extreme]:
    """Up to ``per_outcome`` positions at the largest remoteness of each outcome (the
    longest win, the longest loss, the longest draw that has a remoteness), in key order.

    :param game: the game of the tablebase, to write the positions.
    :raises StoreError: if the database fails or a stored chunk is damaged.
    """
    keys, outcome, remoteness = read_values(store, row)
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


@dataclass(frozen=True)
class RuleStatistics:
    """What syzygy-tables.info shows of an ending under the 50-move rule.

    :ivar categories: positions per category, by lichess's names (``win``,
        ``cursed-win``, ``draw``, ``blessed-loss``, ``loss``), for the side to move.
    :ivar longest_dtz: the largest DTZ of a win (plies, python-chess's convention, so
        above 100 for a cursed win) and one position that has it; ``None`` without wins.
    :ivar longest_dtm: the largest DTM of a win (plies) and one position that has it;
        ``None`` without wins or without stored DTM.
    """

    categories: dict[str, int]
    longest_dtz: tuple[int, str] | None
    longest_dtm: tuple[int, str] | None

    def to_json(self) -> dict[str, object]:
        """``{"categories", "longest_dtz": {"dtz", "fen"}, "longest_dtm": {"dtm", "fen"}}``."""
        return {
            "categories": self.categories,
            "longest_dtz": None if self.longest_dtz is None else dict(zip(("dtz", "fen"), self.longest_dtz)),
            "longest_dtm": None if self.longest_dtm is None else dict(zip(("dtm", "fen"), self.longest_dtm)),
        }


def rule_statistics(game: Game, store: Store, row: TablebaseRow) -> RuleStatistics:
    """The :class:`RuleStatistics` of a complete tablebase that stores DTZ (value kind
    ``dtz``), read a stored part at a time (a 6-piece ending's values would not fit in
    memory at once); the position of a longest one is the first in key order.

    :raises StoreError: if the database fails, a stored chunk is damaged, or the
        tablebase stores no DTZ.
    """
    counts = dict.fromkeys(CATEGORIES.values(), 0)
    longest_dtz: tuple[int, int] | None = None  # (plies, key)
    longest_dtm: tuple[int, int] | None = None
    for keys, outcome, remoteness, dtz in read_parts(store, row, extra=True):
        category = categories(outcome, dtz)
        for value, name in CATEGORIES.items():
            counts[name] += int(np.count_nonzero(category == value))
        longest_dtz = _longer(longest_dtz, keys, outcome, dtz.astype(np.int64))
        longest_dtm = _longer(longest_dtm, keys, outcome, remoteness.astype(np.int64))

    def shown(longest: tuple[int, int] | None) -> tuple[int, str] | None:
        return None if longest is None else (longest[0], game.format(game.decode(longest[1])))

    return RuleStatistics(counts, shown(longest_dtz), shown(longest_dtm))


def _longer(
    longest: tuple[int, int] | None, keys: np.ndarray, outcome: np.ndarray, values: np.ndarray
) -> tuple[int, int] | None:
    """``longest`` (plies and key of a win), or the first win of a later part (int64[n]
    keys, int8[n] outcomes, int64[n] values; negative for none) whose value is larger."""
    wins = np.flatnonzero((outcome == Outcome.WIN) & (values >= 0))
    if len(wins) == 0:
        return longest
    index = int(wins[np.argmax(values[wins])])
    if longest is not None and int(values[index]) <= longest[0]:
        return longest
    return int(values[index]), int(keys[index])
