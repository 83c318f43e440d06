"""Precomputed chess board tables for vectorized move generation, as numpy arrays.

Squares are numbered as in python-chess: ``a1 = 0``, ``h1 = 7``, ``a8 = 56``, so a
square's file is ``square & 7`` and its rank ``square >> 3``. The extra square
:data:`OFF` (64) stands for "no square": an off-board target, or a captured piece. Every
per-square table has a 65th row for it that attacks and occupies nothing, so batches can
index with :data:`OFF` without masking first. Colours are indexed ``0`` (white) and ``1``
(black).

The tables are the usual ones of a bitboard move generator (see the chessprogramming wiki,
"Bitboards", "King Pattern", "Knight Pattern", "Pawn Attacks (Bitboards)", "Square
Attacked By", "Squares between two Squares", "Flipping Mirroring and Rotating").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

OFF = 64
"""The "no square" sentinel: row 64 of every per-square table is empty."""

KING_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
"""``(file, rank)`` steps of a king; the first four are the rook directions, the last
four the bishop directions, and the same order serves the slider rays."""

KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))

ROOK_DIRECTIONS = (0, 1, 2, 3)
BISHOP_DIRECTIONS = (4, 5, 6, 7)


def _step(square: int, file_step: int, rank_step: int) -> int:
    """The square ``(file_step, rank_step)`` away, or :data:`OFF` off the board."""
    file, rank = (square & 7) + file_step, (square >> 3) + rank_step
    return rank * 8 + file if 0 <= file < 8 and 0 <= rank < 8 else OFF


def _targets(steps: tuple[tuple[int, int], ...]) -> np.ndarray:
    """int64[65, len(steps)]: the square one step away, or :data:`OFF`."""
    table = np.full((OFF + 1, len(steps)), OFF, dtype=np.int64)
    for square in range(64):
        table[square] = [_step(square, *step) for step in steps]
    return table


BIT = np.zeros(OFF + 1, dtype=np.uint64)
"""uint64[65]: the bitboard of each square; ``BIT[OFF] == 0``."""
BIT[:64] = np.uint64(1) << np.arange(64, dtype=np.uint64)

KING_TARGETS = _targets(KING_STEPS)
"""int64[65, 8]: the squares a king steps to, :data:`OFF` where off the board."""
KNIGHT_TARGETS = _targets(KNIGHT_STEPS)
"""int64[65, 8]: the squares a knight jumps to, :data:`OFF` where off the board."""


def _bitboards(targets: np.ndarray) -> np.ndarray:
    """uint64[65]: the union of each row's target squares."""
    return np.bitwise_or.reduce(BIT[targets], axis=1)


KING_ATTACKS = _bitboards(KING_TARGETS)
"""uint64[65]: squares a king on each square attacks."""
KNIGHT_ATTACKS = _bitboards(KNIGHT_TARGETS)
"""uint64[65]: squares a knight on each square attacks."""

PAWN_CAPTURES = np.stack([_targets(((-1, 1), (1, 1))), _targets(((-1, -1), (1, -1)))])
"""int64[2, 65, 2]: by colour, the two squares a pawn captures on (or :data:`OFF`)."""
PAWN_ATTACKS = np.stack([_bitboards(PAWN_CAPTURES[0]), _bitboards(PAWN_CAPTURES[1])])
"""uint64[2, 65]: by colour, the squares a pawn attacks."""
PAWN_PUSHES = np.stack([_targets(((0, 1),))[:, 0], _targets(((0, -1),))[:, 0]])
"""int64[2, 65]: by colour, the square one step forward (or :data:`OFF`)."""
PAWN_DOUBLE_PUSHES = np.full((2, OFF + 1), OFF, dtype=np.int64)
"""int64[2, 65]: by colour, the double push from the second rank (else :data:`OFF`)."""
PAWN_DOUBLE_PUSHES[0, 8:16] = np.arange(24, 32)
PAWN_DOUBLE_PUSHES[1, 48:56] = np.arange(32, 40)
LAST_RANK = np.zeros((2, OFF + 1), dtype=bool)
"""bool[2, 65]: by colour, the squares on which a pawn promotes."""
LAST_RANK[0, 56:64] = LAST_RANK[1, 0:8] = True


def _rays() -> np.ndarray:
    """int64[65, 8, 7]: by direction (:data:`KING_STEPS` order), the squares at 1..7 steps."""
    rays = np.full((OFF + 1, 8, 7), OFF, dtype=np.int64)
    for square in range(64):
        for direction, (file_step, rank_step) in enumerate(KING_STEPS):
            for distance in range(1, 8):
                rays[square, direction, distance - 1] = _step(square, file_step * distance, rank_step * distance)
    return rays


RAYS = _rays()
"""int64[65, 8, 7]: slider rays from each square, :data:`OFF` past the edge."""


def _lines() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(between, rook_line, bishop_line)``, each indexed ``[from, to]`` of shape [65, 65]."""
    between = np.zeros((OFF + 1, OFF + 1), dtype=np.uint64)
    aligned = np.zeros((2, OFF + 1, OFF + 1), dtype=bool)
    for square in range(64):
        for direction in range(8):
            passed = np.uint64(0)
            for target in RAYS[square, direction]:
                if target == OFF:
                    break
                between[square, target] = passed
                aligned[int(direction >= 4), square, target] = True
                passed |= BIT[target]
    return between, aligned[0], aligned[1]


BETWEEN, ROOK_LINE, BISHOP_LINE = _lines()
"""``BETWEEN``: uint64[65, 65], the squares strictly between two squares on one rank,
file or diagonal (0 otherwise); ``ROOK_LINE`` / ``BISHOP_LINE``: bool[65, 65], whether two
distinct squares share a rank or file / a diagonal. Row and column 64 are empty."""


def _shadows() -> tuple[np.ndarray, np.ndarray]:
    """``(shadow, lines)``: uint64[65, 65] and uint64[2, 65], as their names below say."""
    shadow = np.zeros((OFF + 1, OFF + 1), dtype=np.uint64)
    lines = np.zeros((2, OFF + 1), dtype=np.uint64)
    for square in range(64):
        for direction in range(8):
            ray = [int(target) for target in RAYS[square, direction] if target != OFF]
            for distance, target in enumerate(ray):
                lines[int(direction >= 4), square] |= BIT[target]
                for beyond in ray[distance + 1 :]:
                    shadow[square, target] |= BIT[beyond]
    return shadow, lines


SHADOW, SLIDER_LINES = _shadows()
"""``SHADOW``: uint64[65, 65], the squares beyond a piece on ``[from, to]`` that it hides
from a slider on ``from`` (those past ``to`` on their rank, file or diagonal; 0 where they
share none); ``SLIDER_LINES``: uint64[2, 65], the squares of a square's rank and file
(row 0) and of its diagonals (row 1). A slider reaches the squares of its lines that no
piece's shadow covers: a table read and an AND a piece, where stepping along the rays
tests every square (the "obstruction difference" of the chess programming wiki, here
with a table where it takes a subtraction)."""


def _mapping(transform: Callable[[int, int], tuple[int, int]]) -> list[int]:
    """The square permutation of a ``(file, rank) -> (file, rank)`` map."""
    images = [transform(square & 7, square >> 3) for square in range(64)]
    return [rank * 8 + file for file, rank in images]


SYMMETRIES = np.array(
    [
        _mapping(lambda f, r: (f, r)),
        _mapping(lambda f, r: (7 - f, r)),
        _mapping(lambda f, r: (f, 7 - r)),
        _mapping(lambda f, r: (7 - f, 7 - r)),
        _mapping(lambda f, r: (r, f)),
        _mapping(lambda f, r: (7 - r, f)),
        _mapping(lambda f, r: (r, 7 - f)),
        _mapping(lambda f, r: (7 - r, 7 - f)),
    ],
    dtype=np.int64,
)
"""int64[8, 64]: the 8 symmetries of the board as square permutations: identity, mirror
of files, mirror of ranks, rotation by 180 degrees, then those four after a reflection
in the a1-h8 diagonal. Boards with pawns use only the first two."""

TRIANGLE = np.array([0, 1, 2, 3, 9, 10, 11, 18, 19, 27], dtype=np.int64)
"""int64[10]: the a1-d1-d4 triangle (a1 b1 c1 d1 b2 c2 d2 c3 d3 d4), white king's
squares in a pawnless tablebase."""
QUEENSIDE = np.array([s for s in range(64) if s & 7 < 4], dtype=np.int64)
"""int64[32]: the squares of files a-d, white king's squares when there are pawns."""


def slots_of(squares: np.ndarray) -> np.ndarray:
    """int64[64]: each square's index in ``squares``, or -1 where it is not among them."""
    slots = np.full(64, -1, dtype=np.int64)
    slots[squares] = np.arange(len(squares))
    return slots
