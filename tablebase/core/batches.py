"""What a game's batch API takes and returns beside plain arrays: the progress levels of
an index space, a window of keys, a survey of a batch and a batch's moves."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LevelSplit:
    """The progress levels of an index space (:meth:`Game.progress`), constant over
    aligned blocks of ``block`` keys: ``levels`` int64[blocks] the level of each block.
    A DTZ pass over ``level`` takes the moves to another level (zeroing moves, chess
    pawn moves) as exits into its own tablebase."""

    block: int
    levels: np.ndarray
    level: int

    def elsewhere(self, keys: np.ndarray) -> np.ndarray:
        """bool[k]: which int64[k] keys lie at another level."""
        return self.levels[keys // self.block] != self.level


@dataclass(frozen=True)
class KeyWindow:
    """The keys of an index space that moves into it from another tablebase can reach
    (:meth:`Game.exit_window`): those whose digit ``(key // unit) % radix`` lies in
    ``[low, low + width)``; ``unit * radix`` divides the size of the index space. A
    chess promotion puts the new piece on the last rank: one eighth of the squares of
    its slot.
    """

    unit: int
    radix: int
    low: int
    width: int

    def size(self, space: int) -> int:
        """How many keys of an index space of ``space`` keys lie in the window."""
        return space // self.radix * self.width

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """bool[k]: which int64[k] keys lie in the window."""
        digit = keys // self.unit % self.radix
        return (digit >= self.low) & (digit < self.low + self.width)

    def compact(self, keys: np.ndarray) -> np.ndarray:
        """int64[k]: the number of each of int64[k] keys among the window's keys, in key
        order (meaningful for the keys it contains)."""
        digit = keys // self.unit % self.radix
        return keys // (self.unit * self.radix) * (self.unit * self.width) + (digit - self.low) * self.unit + keys % self.unit


@dataclass(frozen=True)
class BatchSurvey:
    """What :meth:`Game.survey_batch` tells of int64[n] keys of an index space.

    :ivar legal: bool[n] which keys are positions of the tablebase.
    :ivar terminal: int8[n] their terminal values, :data:`NOT_TERMINAL` for the others
        (read where ``legal`` only).
    :ivar moves: int64[n] the distinct successors of each, within the tablebase and at
        its own progress level (0 where illegal or terminal).
    :ivar crossing: ``(src, key)`` int64[c] each: the moves within the tablebase to
        another progress level (``src`` numbering the keys), each distinct successor once.
    :ivar exits: ``(src, table, key)`` int64[e] each, as :meth:`Game.exits` gives them,
        ``src`` numbering the keys.
    """

    legal: np.ndarray
    terminal: np.ndarray
    moves: np.ndarray
    crossing: tuple[np.ndarray, np.ndarray]
    exits: tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class BatchMoves:
    """What :meth:`Game.expand` tells of int64[n] keys: every move of them, in one answer.

    :ivar terminal: int8[n] terminal values, :data:`NOT_TERMINAL` for the others.
    :ivar src: int64[m] the key (its row) each move within the tablebase leaves, a
        non-terminal one.
    :ivar dst: int64[m] the canonical key it leads to (int64[m, k] for a game that
        splits: the parts of the sum, -1 padding fewer).
    :ivar exits: ``(src, table, key)`` int64[e] each, as :meth:`Game.exits` gives them,
        ``src`` numbering the keys.
    """

    terminal: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    exits: tuple[np.ndarray, np.ndarray, np.ndarray]
