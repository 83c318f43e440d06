"""The moves of atomic and antichess positions in compiled code (numba ``@njit``), one
position at a time, by lichess's rules as python-chess implements them
(``chess.variant.AtomicBoard``, ``chess.variant.AntichessBoard``; tests/test_variants.py
compares every move with them on random positions). No castling and no en passant: the
endings' keys hold neither (:mod:`tablebase.generators.variants.layout`).

- **Atomic**: a capture explodes the capturing piece, the captured one and every piece
  but a pawn on the eight squares around the capture. A king never captures. A move is
  legal unless it explodes the mover's own king or leaves it attacked by a piece of the
  other side other than its king, and kings side by side attack nothing (no check). A
  move that explodes the other side's king is legal whatever it leaves, and wins.
  Checkmate loses, stalemate draws.
- **Antichess**: a capture is compulsory where one exists; the king is an ordinary piece
  (no check); a pawn promotes to a king too. A side without a legal move, or without a
  piece, wins.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.attacks import (
    _attacks,
    occupancy_bits,
    piece_targets,
    slot_on,
)
from tablebase.generators.chess.spec import KING, PAWN
from tablebase.generators.chess.tables import BIT, KING_ATTACKS, LAST_RANK, OFF
from tablebase.generators.variants.layout import ATOMIC

NO_PROMOTION = -1
"""The promotion of a move that promotes nothing."""

MOST_MOVES = 4 * 5 * 4 + 2 * 27 + 8 + 8
"""More legal moves than a position of up to five pieces has (four promotions of five
pieces each from at most four pawns' captures and push stand for the pawns)."""


@njit(cache=True, inline="always")
def _king_of(squares, spec, colour):
    """The square of the king of ``colour`` (atomic), :data:`OFF` when it is gone."""
    for slot in range(len(squares)):
        if spec.pieces[slot] == KING and spec.colours[slot] == colour:
            return squares[slot]
    return OFF


@njit(cache=True, inline="always")
def attacked_king(squares, spec, colour):
    """Atomic: whether the king of ``colour`` is attacked by a piece of the other side
    other than its king, the kings not side by side (an atomic check)."""
    king = _king_of(squares, spec, colour)
    other = _king_of(squares, spec, 1 - colour)
    if king == OFF or other == OFF or (KING_ATTACKS[king] & BIT[other]) != 0:
        return False
    occupied = occupancy_bits(squares)
    for slot in range(len(squares)):
        if spec.colours[slot] != colour and spec.pieces[slot] != KING and _attacks(spec.pieces[slot], spec.colours[slot], squares[slot], king, occupied):
            return True
    return False


@njit(cache=True, inline="always")
def _explode(squares, spec, slot, captured, target):
    """Atomic: take the capturing ``slot``, the ``captured`` slot and every piece but a
    pawn around ``target`` off ``squares``."""
    squares[slot] = OFF
    squares[captured] = OFF
    for other in range(len(squares)):
        if squares[other] != OFF and spec.pieces[other] != PAWN and (KING_ATTACKS[target] & BIT[squares[other]]) != 0:
            squares[other] = OFF


@njit(cache=True, inline="always")
def position_moves(squares, stm, spec, targets, work, moved, after, promoted, capture):
    """Every legal move of the position ``squares`` (int64[slots], not changed), side to
    move ``stm``: for move ``m``, its slot and target in int64[M, 2] ``moved``, the
    squares after it in int64[M, slots] ``after`` (:data:`OFF` for a piece taken or
    exploded), the piece the moved slot promotes to (a piece code, or
    :data:`NO_PROMOTION`) in int64[M] ``promoted``, and whether it captures in bool[M]
    ``capture``. ``targets`` (int64[32]) and ``work`` (int64[slots]) are scratch.
    Returns how many moves."""
    count = len(squares)
    atomic = spec.rules == ATOMIC
    occupied = occupancy_bits(squares)
    own = np.uint64(0)
    for slot in range(count):
        if spec.colours[slot] == stm and squares[slot] != OFF:
            own |= BIT[squares[slot]]
    theirs = occupied & ~own
    found = 0
    captures = 0
    for slot in range(count):
        origin = squares[slot]
        if spec.colours[slot] != stm or origin == OFF:
            continue
        piece = spec.pieces[slot]
        reached = piece_targets(piece, stm, origin, occupied, theirs, targets)
        for j in range(reached):
            target = targets[j]
            if (own & BIT[target]) != 0:
                continue
            takes = (theirs & BIT[target]) != 0
            if atomic and takes and piece == KING:
                continue
            if not atomic and captures and not takes:
                continue  # antichess: a capture exists, so no quiet move is legal
            for s in range(count):
                work[s] = squares[s]
            if takes:
                captured = slot_on(squares, target, slot)
                if atomic:
                    _explode(work, spec, slot, captured, target)
                else:
                    work[captured] = OFF
                    work[slot] = target
            else:
                work[slot] = target
            if atomic:
                if _king_of(work, spec, stm) == OFF:
                    continue
                if _king_of(work, spec, 1 - stm) != OFF and attacked_king(work, spec, stm):
                    continue
            elif takes and not captures:
                found = 0  # antichess: the first capture makes the quiet moves so far illegal
            captures += takes
            promotes = piece == PAWN and LAST_RANK[stm, target]
            first = (1 if atomic else 0) if promotes else NO_PROMOTION
            last = 5 if promotes else NO_PROMOTION + 1
            for promotion in range(first, last):
                for s in range(count):
                    after[found, s] = work[s]
                moved[found, 0] = slot
                moved[found, 1] = target
                promoted[found] = promotion
                capture[found] = takes
                found += 1
    return found
