"""DTZ under the 50-move rule, and Syzygy's five categories, by two retrograde passes.

A *zeroing move* resets the 50-move counter (in chess a capture or a pawn move). DTZ is
counted in plies from a position whose counter is zero to the next zeroing move (or to
mate) on the fastest winning path that respects the rule: Syzygy's "DTZ50''".

Within the positions that quiet (non-zeroing) moves connect, every zeroing move leads to a
position whose category is already known: it is in another tablebase, or further along an
irreversible order (:attr:`~tablebase.core.game.Game.progress`), so it is a fixed exit of the
passes below, taken at remoteness 0 (it resets the count).

- Pass A, the rule: a zeroing move into a child of category ``-2`` (lost for the child's
  side to move) is a move into a loss, one into ``+2`` a move into a win, every other a
  move into a draw. :func:`~tablebase.solve.retrograde.solver.solve` then gives each position
  won or lost within 100 plies its category ``±2`` and its DTZ, the level.
  Levels only ever depend on lower ones, so running the pass past 100 changes nothing
  below it.
- Pass B, without the rule's limit: a zeroing move into any lost child (``-2`` or ``-1``)
  is a move into a loss, into any won child a move into a win, one into a blessed loss or
  a cursed win (``±1``) counting 101 plies, as the Syzygy generator counts it (R. de Man,
  syzygy1/tb ``rtbgen.c``: ``CAPT_CWIN``, ``CAPT_CLOSS``). Its outcome is the value
  without the 50-move rule (the DTM outcome), and its level the DTZ: a position it wins
  or loses within 100 plies, pass A does at the same level; one past 100 is a cursed win
  (``+1``) or a blessed loss (``-1``). So a blessed loss whose quiet moves lose within
  the rule but whose zeroing move leads to a cursed win has DTZ 101 (atomic KRvKP).

A whole tablebase is solved by :func:`dtz_by_progress`: a game's ``progress`` (in chess,
how far the pawns have advanced) tells the moves apart without generating them again: a
move inside the tablebase that raises it is a zeroing move (a pawn move), one that keeps
it is quiet, and every move that leaves the tablebase (a capture or a promotion) zeroes.
The positions are solved one progress level at a time, the most advanced first, so the
child of every zeroing move already has its category. Quiet moves never leave their
level.

Stored DTZ follows python-chess's ``probe_dtz`` convention: ``0`` for a draw and for a
checkmated side to move; ``1..100`` for a win (category 2); above 100 for a cursed win;
the negatives for losses and blessed losses. With the outcome of the position it gives
the category (:func:`categories`). The semantics are checked against Syzygy's own files
(tests/test_chess_oracle.py, tests/test_syzygy_stats.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tablebase.core.errors import GameError
from tablebase.core.values import DRAW, LOSS, RULE_PLIES, WIN
from tablebase.solve.predecessors import Predecessors, predecessors_of
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.solver import solve
from tablebase.solve.retrograde.state import Solution
from tablebase.util.progress import Advance


@dataclass(frozen=True)
class Zeroing:
    """The zeroing moves of a set of positions, into children of known category.

    :ivar src: int64[k] index of each move's position.
    :ivar category: int8[k] the child's category (-2..2) for the child's side to move.
    """

    src: np.ndarray
    category: np.ndarray


def categories(outcome: np.ndarray, dtz: np.ndarray) -> np.ndarray:
    """int8[n]: Syzygy's category (-2..2) from the outcome without the rule (int8[n],
    :class:`~tablebase.core.game.Outcome`) and the signed DTZ (int[n], plies, python-chess's
    convention; see the module docstring), in one compiled sweep (no temporaries)."""
    category = np.empty(len(outcome), dtype=np.int8)
    _categories(np.asarray(outcome, dtype=np.int8), np.asarray(dtz), category)
    return category


@njit(cache=True, nogil=True)
def _categories(outcome, dtz, category):
    """:func:`categories` into int8[n] ``category``."""
    for i in range(len(outcome)):
        category[i] = _category(outcome[i], dtz[i])


@njit(cache=True, nogil=True, inline="always")
def _category(outcome, dtz):
    """The category of one position: a decisive outcome doubled unless its DTZ is past
    the rule."""
    return outcome if abs(dtz) > RULE_PLIES else 2 * outcome


def zeroing_exits(zeroing: Zeroing) -> tuple[Exits, Exits]:
    """The zeroing moves as exits (they reset the count): for pass A, at remoteness 0, a
    child of category ``-2`` is a loss, ``+2`` a win, any other a draw; for pass B, the
    sign of the child's category, at remoteness 0 for ``±2`` and 100 for a blessed loss
    or a cursed win (``±1``): a move into one counts 101 plies (see the module docstring).

    :returns: ``(rule, free)``, the exits of pass A and of pass B.
    """
    child = np.asarray(zeroing.category, dtype=np.int8)
    at_zero = np.zeros(len(child), dtype=np.int32)
    strict = np.select([child == -2, child == 2], [LOSS, WIN], DRAW).astype(np.int8)
    past_rule = np.where(np.abs(child) == 1, RULE_PLIES, 0).astype(np.int32)
    return Exits(zeroing.src, strict, at_zero), Exits(zeroing.src, np.sign(child).astype(np.int8), past_rule)


def combine_passes(rule: Solution, free: Solution) -> tuple[np.ndarray, np.ndarray]:
    """Signed DTZ and the outcome without the rule from the solutions of pass A
    (``rule``) and pass B (``free``) over the same positions (module docstring).

    :returns: ``(dtz, outcome)``: int32[n] plies in python-chess's convention, and
        int8[n] the outcome without the 50-move rule.
    """
    within = (rule.outcome != DRAW) & (rule.remoteness <= RULE_PLIES)
    plies = np.where(within, rule.remoteness, np.where(free.outcome != DRAW, free.remoteness, 0))
    return (free.outcome * plies).astype(np.int32), free.outcome


UNKNOWN = -128
"""The category of a key whose value is not (yet) known: no position, or at a progress
level not solved so far (:func:`scatter_dtz_and_category`)."""


def rule_levels(rule: Solution) -> np.ndarray:
    """int8[n]: what pass A (``rule``, over n positions, solved up to level
    :data:`RULE_PLIES`) leaves for :func:`dtz_in_place`: its level where it wins or loses
    (within the rule), else -1."""
    levels = np.empty(len(rule.outcome), dtype=np.int8)
    _rule_levels(rule.outcome, rule.remoteness, levels)
    return levels


@njit(cache=True, nogil=True)
def _rule_levels(outcome, remoteness, levels):
    for p in range(len(outcome)):
        decisive = (outcome[p] == WIN or outcome[p] == LOSS) and 0 <= remoteness[p] <= RULE_PLIES
        levels[p] = remoteness[p] if decisive else -1


def dtz_in_place(levels: np.ndarray, free: Solution) -> None:
    """:func:`combine_passes` without a temporary: ``free.remoteness`` (pass B's levels)
    becomes the signed DTZ (plies, python-chess's convention), from ``levels``, int8[n]
    of :func:`rule_levels`; ``free.outcome`` is the outcome without the rule."""
    _dtz_in_place(levels, free.outcome, free.remoteness)


@njit(cache=True, nogil=True)
def _dtz_in_place(levels, outcome, remoteness):
    for p in range(len(outcome)):
        remoteness[p] = _dtz_of(levels[p], outcome[p], remoteness[p])


@njit(cache=True, nogil=True, inline="always")
def _dtz_of(level, sign, remoteness):
    """The signed DTZ of one position from its :func:`rule_levels` level, and its
    outcome and remoteness in pass B (0 for a draw, or where it is no position)."""
    if sign != 1 and sign != -1:
        return 0
    return sign * (level if level >= 0 else remoteness)


def scatter_dtz_and_category(
    levels: np.ndarray, free: Solution, blocks: np.ndarray, block: int, dtz: np.ndarray, category: np.ndarray
) -> None:
    """What :func:`dtz_in_place` and :func:`categories` give of the positions of one
    progress level, written into arrays over the whole index space in one sweep (no
    temporaries): the level's numbers ``block`` keys at a time, in int64[b] ``blocks``'
    order (:class:`~tablebase.solve.unmoves.index.LevelIndex`).

    :param levels: int8[n] of :func:`rule_levels`, ``free`` pass B's solution over the
        level's n numbers.
    :param dtz: int16[size] signed DTZ (plies), ``category`` int8[size]; :data:`UNKNOWN`
        the category of a key that is no position.
    """
    _scatter_dtz_and_category(levels, free.outcome, free.remoteness, blocks, block, dtz, category, UNKNOWN)


@njit(cache=True, nogil=True)
def _scatter_dtz_and_category(levels, outcome, remoteness, blocks, block, dtz, category, unknown):
    for j in range(len(blocks)):
        for offset in range(block):
            p, key = j * block + offset, blocks[j] * block + offset
            plies = _dtz_of(levels[p], outcome[p], remoteness[p])
            dtz[key] = plies
            category[key] = _category(outcome[p], plies) if -1 <= outcome[p] <= 1 else unknown


def dtz_values(
    terminal: np.ndarray, quiet: Predecessors, zeroing: Zeroing, advance: Advance = lambda _count: None
) -> tuple[np.ndarray, np.ndarray]:
    """Signed DTZ and the outcome without the rule, by the two passes of the module
    docstring.

    :param terminal: int8[n] the outcome of each terminal position (checkmate a loss,
        stalemate a draw), or :data:`~tablebase.core.game.NOT_TERMINAL`.
    :param quiet: the non-zeroing moves, which stay among these ``n`` positions.
    :param zeroing: every zeroing move of these positions, with its child's category.
    :returns: ``(dtz, outcome)`` as :func:`combine_passes` gives them.
    """
    rule_exits, free_exits = zeroing_exits(zeroing)
    rule = solve(terminal, quiet, exits=rule_exits)
    free = solve(terminal, quiet, advance, free_exits)
    return combine_passes(rule, free)


def dtz_by_progress(
    terminal: np.ndarray,
    moves: Predecessors,
    progress: np.ndarray,
    exits: Zeroing,
    advance: Advance = lambda _count: None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`dtz_values` of a whole tablebase, one progress level at a time (see the
    module docstring).

    :param terminal: int8[n] as for :func:`dtz_values`.
    :param moves: every move inside the tablebase.
    :param progress: int64[n] per position, raised by every zeroing move inside the
        tablebase and kept by every other.
    :param exits: the moves that leave the tablebase (all zeroing), with their
        children's categories.
    :returns: ``(dtz, outcome)``, int32[n] and int8[n].
    :raises GameError: if a move lowers the progress.
    """
    n = len(terminal)
    if n and progress.min() == progress.max():  # no zeroing move inside (chess without pawns)
        solved = dtz_values(terminal, moves, exits)
        advance(n)
        return solved
    src = moves.preds
    dst = np.repeat(np.arange(n, dtype=src.dtype), np.diff(moves.offsets))
    if np.any(progress[dst] < progress[src]):
        raise GameError("a move lowers the progress of its position")
    quiet = progress[src] == progress[dst]
    dtz = np.zeros(n, dtype=np.int32)
    outcome = np.zeros(n, dtype=np.int8)
    category = np.zeros(n, dtype=np.int8)
    local = np.full(n, -1, dtype=src.dtype)
    for level in np.unique(progress)[::-1].tolist():
        members = np.flatnonzero(progress == level)
        local[members] = np.arange(len(members))
        here = progress[src] == level
        inside, pawn = quiet & here, ~quiet & here
        leaving = progress[exits.src] == level
        zeroing = Zeroing(
            local[np.concatenate([src[pawn], exits.src[leaving]])],
            np.concatenate([category[dst[pawn]], exits.category[leaving]]),
        )
        level_moves = predecessors_of(len(members), local[src[inside]], local[dst[inside]])
        dtz[members], outcome[members] = dtz_values(terminal[members], level_moves, zeroing)
        category[members] = categories(outcome[members], dtz[members])
        advance(len(members))
    return dtz, outcome
