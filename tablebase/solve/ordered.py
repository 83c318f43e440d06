"""Negamax scores of an index space in one sweep by key, for a game whose key order is a
topological order of its moves (:meth:`~tablebase.core.game.Game.key_order_levels`).

Every move of a key of level ``[bounds[i], bounds[i + 1])`` leads below ``bounds[i]``,
so when the sweep reaches a level every successor of its keys is valued: each batch of
keys gets ``max(reward - value[successor])`` over its moves, a position without moves its
terminal score. No move graph is held, only the values: two bytes a key, a byte for the
outcome and a byte for the remoteness (0 for a position without moves). This is
retrograde analysis by levels as Irving, Donkers and Uiterwijk ("Solving Kalah", ICGA
Journal 23(3), 2000) and Romein and Bal (awari, 2003) built their databases by stones
on the board, with the order within a level made explicit in the keys.
"""

from __future__ import annotations


import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game
from tablebase.core.values import NOT_TERMINAL
from tablebase.solve.retrograde.state import NO_REMOTENESS
from tablebase.solve.solved import ABSENT, SolvedIndex
from tablebase.util.cores import usable_cores
from tablebase.util.interrupt import thread_pool
from tablebase.util.progress import Stages

SCORE_DTYPE = np.int16
"""The sweep's scores, two bytes a key: a score outside its range is refused."""


def levels_cover(bounds: np.ndarray, size: int) -> bool:
    """Whether int64[L + 1] ``bounds`` rise from 0 to ``size`` (levels may be empty)."""
    return len(bounds) >= 2 and bounds[0] == 0 and bounds[-1] == size and not np.any(np.diff(bounds) < 0)


def scores_in_key_order(game: Game, bounds: np.ndarray, batch_size: int, stages: Stages) -> SolvedIndex:
    """Solve every key of ``game``'s index space in key order: the batches of a level in
    threads (one per core) where the game has the compiled
    :meth:`~tablebase.core.game.Game.best_scores`, else one at a time through its batch API.

    :param bounds: int64[L + 1] the levels' bounds, ``0`` to ``game.size``
        (:meth:`~tablebase.core.game.Game.key_order_levels`).
    :param batch_size: keys per call to the game's batch API.
    :returns: outcome int8[size] (the sign of the score, :data:`ABSENT` for a key
        :meth:`~tablebase.core.game.Game.legal` refuses), remoteness int8[size] (0 for a
        position without moves, else none) and the scores int16[size] as ``extra``.
    :raises GameError: for levels that do not cover the index space, a move that does
        not lead below its key's level, or a score outside int16.
    """
    size = int(game.size or 0)
    bounds = np.asarray(bounds, dtype=np.int64)
    if not levels_cover(bounds, size):
        raise GameError(f"{game.name}: key_order_levels() must rise from 0 to the index space's size {size}")
    score = np.zeros(size, dtype=SCORE_DTYPE)
    outcome = np.zeros(size, dtype=np.int8)
    remoteness = np.full(size, NO_REMOTENESS, dtype=np.int8)
    compiled = game.best_scores(np.zeros(0, dtype=np.int64), score) is not None

    def solve_batch(span: tuple[int, int, int]) -> int:
        start, stop, level = span
        keys = np.arange(start, stop, dtype=np.int64)
        legal = np.asarray(game.legal(keys), dtype=bool)
        if compiled:
            best, ended = game.best_scores(keys, score)
        else:
            best, ended = _batch_scores(game, keys, legal, level, score)
        ended &= legal
        best[~legal] = 0
        info = np.iinfo(SCORE_DTYPE)
        if len(best) and (best.min() < info.min or best.max() > info.max):
            raise GameError(f"{game.name}: a score passes {info.min} to {info.max}, the range the sweep by key order stores")
        score[start:stop] = best
        outcome[start:stop] = np.where(legal, np.sign(best), ABSENT)
        remoteness[start:stop][ended] = 0
        return stop - start

    threads = usable_cores() if compiled else 1
    with stages("solve", size) as advance, thread_pool(threads, "ordered") as pool:
        for low, high in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            spans = [(start, min(start + batch_size, high), low) for start in range(low, high, batch_size)]
            for done in pool.map(solve_batch, spans):
                advance(done)
    return SolvedIndex(outcome, remoteness, score)


def _batch_scores(
    game: Game, keys: np.ndarray, legal: np.ndarray, level: int, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The negamax score of each of int64[n] ``keys`` (int64[n]), all of whose
    successors lie below ``level`` and are valued in ``score``, and bool[n] which have no
    moves, through the game's batch API."""
    best = np.zeros(len(keys), dtype=np.int64)
    live = np.flatnonzero(legal & (np.asarray(game.terminal_batch(keys)) == NOT_TERMINAL))
    src, dst = game.successors(keys[live])
    if len(dst) and int(dst.max()) >= level:
        raise GameError(f"{game.name}: a move of key {int(keys[live[src[np.argmax(dst)]]])} leads to key "
                        f"{int(dst.max())}, not below its level (from key {level})")
    reward = np.asarray(game.move_rewards(keys[live]), dtype=np.int64)
    ended = np.ones(len(keys), dtype=bool)
    if len(src):
        firsts = np.flatnonzero(np.diff(src, prepend=-1))
        owners = live[src[firsts]]
        best[owners] = np.maximum.reduceat(reward - score[dst], firsts)
        ended[owners] = False
    ended &= legal
    best[ended] = game.terminal_scores(keys[ended])
    return best, ended
