"""Negamax scores of scored games, acyclic or cyclic.

A position's value is the best margin its side to move can secure: the maximum over its
moves of the move's reward minus the successor's value, and a position without moves
scores its terminal score. On an acyclic game one retrograde sweep gives it
(:func:`~tablebase.solve.acyclic.negamax_values`).

A cyclic game (terminal scores only, no rewards) is decomposed by threshold: for each
candidate value ``t``, a win/draw/loss pass decides which positions secure at least ``t``
(the usual reduction of a game with values to games won or lost, as in U. Zwick and
M. Paterson, "The complexity of mean payoff games on graphs", 1996). Negamax
flips the sign at every ply, so the pass runs on two copies of the graph: ``(p, 0)``
asks "is v(p) >= t" and ``(p, 1)`` asks "is v(p) >= 1 - t"; a move from one copy leads into
the other, as ``v(p) >= t`` exactly when some move leads to ``v(c) <= -t``, that is to a
``c`` with not ``v(c) >= 1 - t``. **Endless play scores 0**: a position where neither side
can force the threshold, so that best play cycles, secures ``t`` exactly when ``t <= 0``.
A position's value is the largest candidate it secures; the candidates are 0 and every
terminal score with either sign, the only values a play can have.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.solve.acyclic import negamax_values
from tablebase.solve.predecessors import predecessors_of
from tablebase.solve.retrograde.solver import solve
from tablebase.util.progress import Advance


def scored_values(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    reward: np.ndarray,
    terminal_score: np.ndarray,
    advance: Advance = lambda _count: None,
) -> np.ndarray:
    """int64[n]: the negamax value of every position (see the module docstring).

    :param src: int[m], ``dst``: int[m] each move's position and successor.
    :param reward: int[m] what each move earns the side making it.
    :param terminal_score: int[n] the score, for its side to move, of a position without
        moves (ignored for the others).
    :raises GameError: for a game with both cycles and rewards, which has no value here.
    """
    value, valued = negamax_values(n, src, dst, reward, terminal_score, advance)
    if valued.all():
        return value
    if np.any(np.asarray(reward) != 0):
        raise GameError("a scored game with cycles may have terminal scores only, not rewards on moves")
    return threshold_values(n, np.asarray(src, np.int64), np.asarray(dst, np.int64), terminal_score)


def threshold_values(n: int, src: np.ndarray, dst: np.ndarray, terminal_score: np.ndarray) -> np.ndarray:
    """int64[n]: negamax values of a game whose only scores are terminal, cycles allowed,
    endless play scoring 0, by one win/draw/loss pass per candidate value."""
    ended = np.flatnonzero(np.bincount(src, minlength=n) == 0)
    scores = np.asarray(terminal_score, dtype=np.int64)[ended]
    candidates = np.unique(np.concatenate([scores, -scores, [0]]))
    doubled = predecessors_of(2 * n, np.concatenate([src, src + n]), np.concatenate([dst + n, dst]))
    value = np.full(n, candidates[0], dtype=np.int64)
    for threshold in candidates[1:].tolist():
        terminal = np.full(2 * n, NOT_TERMINAL, dtype=np.int8)
        terminal[ended] = np.where(scores >= threshold, Outcome.WIN, Outcome.LOSS)
        terminal[ended + n] = np.where(scores >= 1 - threshold, Outcome.WIN, Outcome.LOSS)
        outcome = solve(terminal, doubled).outcome[:n]
        secured = (outcome == Outcome.WIN) | ((outcome == Outcome.DRAW) & (threshold <= 0))
        value[secured] = threshold
    return value
