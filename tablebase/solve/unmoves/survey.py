"""The survey of a batch of keys (:class:`Survey`): their terminal values, their distinct
moves within the tablebase and their moves out of it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.core.batches import BatchSurvey, LevelSplit
from tablebase.core.game import Game
from tablebase.solve.graph import ExitMoves, batch_moves
from tablebase.solve.keyset import sorted_unique
from tablebase.solve.unmoves.pairs import distinct_pairs


@dataclass(frozen=True)
class Survey:
    """What one batch of keys holds: ``keys`` int64[b] its positions, ``terminal`` int8[b]
    their terminal values, ``moves`` int64[b] their distinct successors within the
    tablebase (0 for a terminal position), ``exits`` the moves out of it (``src`` numbering
    the batch), ``found`` int64[f] the distinct successor keys (forward search only)."""

    keys: np.ndarray
    terminal: np.ndarray
    moves: np.ndarray
    exits: ExitMoves
    found: np.ndarray


SELF = -1
"""The ``table`` of a zeroing move that stays in the tablebase, an exit of a progress
level's survey (:class:`~tablebase.core.game.LevelSplit`)."""


def survey(game: Game, keys: np.ndarray, discover: bool = False, split: LevelSplit | None = None) -> Survey:
    """The :class:`Survey` of int64[b] keys (the legal ones, for an index space); with
    ``split``, the moves to another level are exits into :data:`SELF`."""
    if game.size is not None and not discover:
        batch = game.survey_batch(keys, split)
        if batch is not None:
            return _surveyed(keys, batch)
        keys = keys[np.asarray(game.legal(keys), dtype=bool)]
    terminal, src, dst, exits = batch_moves(game, keys)
    src, dst = distinct_pairs(src, dst)
    parts = []
    if split is not None:
        zeroing = split.elsewhere(dst)
        parts.append(ExitMoves(src[zeroing], np.full(int(zeroing.sum()), SELF, dtype=np.int64), dst[zeroing]))
        src, dst = src[~zeroing], dst[~zeroing]
    moves = np.bincount(src, minlength=len(keys)).astype(np.int64)
    return Survey(keys, terminal, moves, ExitMoves.join([*parts, exits]), sorted_unique(dst) if discover else dst[:0])


def _surveyed(keys: np.ndarray, batch: BatchSurvey) -> Survey:
    """The :class:`Survey` of a game's own :class:`~tablebase.core.game.BatchSurvey` of
    int64[b] keys: its legal keys, their exits and moves to other levels (exits into
    :data:`SELF`) renumbered among them."""
    legal = np.asarray(batch.legal, dtype=bool)
    rank = np.cumsum(legal) - 1
    cross_src, cross_key = (np.asarray(a, dtype=np.int64) for a in batch.crossing)
    exit_src, table, key = (np.asarray(a, dtype=np.int64) for a in batch.exits)
    exits = ExitMoves.join(
        [ExitMoves(rank[cross_src], np.full(len(cross_src), SELF, dtype=np.int64), cross_key), ExitMoves(rank[exit_src], table, key)]
    )
    terminal = np.asarray(batch.terminal, dtype=np.int8)[legal]
    return Survey(keys[legal], terminal, np.asarray(batch.moves, dtype=np.int64)[legal], exits, keys[:0])


def successors_found(game: Game, keys: np.ndarray) -> np.ndarray:
    """Worker task of forward search: the distinct successors of int64[b] keys within
    the tablebase, sorted."""
    return survey(game, keys, discover=True).found


def _survey_level(game: Game, batch: tuple[np.ndarray, LevelSplit]) -> Survey:
    """Worker task: :func:`survey` of ``(keys, split)``."""
    keys, split = batch
    return survey(game, keys, split=split)
