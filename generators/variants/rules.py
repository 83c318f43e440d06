"""The moves of atomic and antichess positions in compiled code (numba ``@njit``), one
position at a time, by lichess's rules as python-chess implements them
(``chess.variant.AtomicBoard``, ``chess.variant.AntichessBoard``; tests/test_variants.py
compares every move with them on random positions), en passant included; no castling
(the endings' keys hold none, :mod:`tablebase.generators.variants.layout`).

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
    popcount,
    reach_bits,
    slot_on,
)
from tablebase.generators.chess.spec import BISHOP, KING, KNIGHT, PAWN, ROOK
from tablebase.generators.chess.tables import (
    BETWEEN,
    BISHOP_LINE,
    BIT,
    KING_ATTACKS,
    LAST_RANK,
    OFF,
    PAWN_ATTACKS,
    ROOK_LINE,
)
from tablebase.generators.variants.layout import ATOMIC

NO_PROMOTION = -1
"""The promotion of a move that promotes nothing."""

MOST_MOVES = 4 * 5 * 4 + 2 * 27 + 8 + 8
"""More legal moves than a position of up to five pieces has (four promotions of five
pieces each from at most four pawns' captures and push stand for the pawns)."""


@njit(cache=True, inline="always")
def attack_bits(piece, side, origin, squares):
    """uint64: the squares a piece of ``side`` on ``origin`` attacks, a slider's rays
    stopped by the first piece of int64[slots] ``squares`` (:func:`~tablebase.generators.chess.attacks.reach_bits`)."""
    if piece == KING:
        return KING_ATTACKS[origin]
    if piece == PAWN:
        return PAWN_ATTACKS[side, origin]
    return reach_bits(piece, origin, squares)


@njit(cache=True, inline="always")
def can_capture(squares, side, spec):
    """Whether ``side`` has a capture (en passant aside) on ``squares``: some piece of
    the other side on a square one of its pieces attacks."""
    theirs = np.uint64(0)
    for slot in range(len(squares)):
        if spec.colours[slot] != side:
            theirs |= BIT[squares[slot]]
    for slot in range(len(squares)):
        if spec.colours[slot] == side and (attack_bits(spec.pieces[slot], side, squares[slot], squares) & theirs) != 0:
            return True
    return False


@njit(cache=True, inline="always")
def _king_of(squares, spec, colour):
    """The square of the king of ``colour`` (atomic), :data:`OFF` when it is gone."""
    return squares[spec.kings[colour]]


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
def _made(squares, stm, spec, slot, target, captured, work):
    """Make a move on a copy of ``squares`` in ``work`` (``captured`` the slot taken, or
    -1); return whether it is legal (atomic: the mover's king neither exploded nor left
    in check, unless the other king exploded; antichess: always)."""
    for s in range(len(squares)):
        work[s] = squares[s]
    if captured >= 0 and spec.rules == ATOMIC:
        _explode(work, spec, slot, captured, target)
    else:
        if captured >= 0:
            work[captured] = OFF
        work[slot] = target
    if spec.rules != ATOMIC:
        return True
    if _king_of(work, spec, stm) == OFF:
        return False
    return _king_of(work, spec, 1 - stm) == OFF or not attacked_king(work, spec, stm)


@njit(cache=True, inline="always")
def en_passant_takers(squares, stm, spec, file, work):
    """The slots of ``stm``'s pawns that can take en passant the other side's pawn just
    pushed two squares on ``file`` (legally, :func:`_made`), as a bitmask; 0 for
    ``file`` -1 or none."""
    if file < 0:
        return 0
    pushed_square = (4 if stm == 0 else 3) * 8 + file
    pushed = slot_on(squares, pushed_square, -1)
    if pushed < 0 or spec.pieces[pushed] != PAWN or spec.colours[pushed] == stm:
        return 0
    target = pushed_square + (8 if stm == 0 else -8)
    takers = 0
    for slot in range(len(squares)):
        origin = squares[slot]
        if spec.colours[slot] != stm or spec.pieces[slot] != PAWN or origin == OFF:
            continue
        if origin >> 3 == pushed_square >> 3 and abs((origin & 7) - file) == 1 and _made(squares, stm, spec, slot, target, pushed, work):
            takers |= 1 << slot
    return takers


@njit(cache=True, inline="always")
def _add(found, slot, target, takes, promotes, work, moved, after, promoted, capture, atomic):
    """Write a legal move made in ``work`` at row ``found`` (each promotion its own row:
    Q R B N, and K in antichess); return the rows after them."""
    first = (1 if atomic else 0) if promotes else NO_PROMOTION
    last = 5 if promotes else NO_PROMOTION + 1
    for promotion in range(first, last):
        for s in range(len(work)):
            after[found, s] = work[s]
        moved[found, 0] = slot
        moved[found, 1] = target
        promoted[found] = promotion
        capture[found] = takes
        found += 1
    return found


@njit(cache=True, inline="always")
def _king_step_legal(squares, stm, spec, origin, target, occupied):
    """Atomic: whether the king of ``stm`` may step from ``origin`` to the empty square
    ``target``: it lands beside the other king, or no piece of the other side but its
    king attacks ``target`` (``occupied`` the bitboard before the step)."""
    if (KING_ATTACKS[target] & BIT[_king_of(squares, spec, 1 - stm)]) != 0:
        return True
    through = occupied & ~BIT[origin]
    for other in range(len(squares)):
        if spec.colours[other] != stm and spec.pieces[other] != KING and _attacks(spec.pieces[other], spec.colours[other], squares[other], target, through):
            return False
    return True


@njit(cache=True, inline="always")
def _free_to_move(squares, stm, spec, slot, kings_apart, checked):
    """Atomic: whether every quiet move of the piece of ``slot`` (not a king) is legal
    without making it: the kings stand side by side (no check, before or after), or the
    side to move is not in check and no enemy queen, rook or bishop is lined up with its
    king behind the piece (it cannot expose its king). ``kings_apart``: the kings not
    side by side; ``checked``: the side to move in check (:func:`attacked_king`)."""
    if not kings_apart:
        return True
    if checked:
        return False
    king = squares[spec.kings[stm]]
    on = BIT[squares[slot]]
    for other in range(len(squares)):
        piece = spec.pieces[other]
        if spec.colours[other] == stm or squares[other] == OFF or piece == KING or piece >= KNIGHT:
            continue
        lined = (piece != BISHOP and ROOK_LINE[king, squares[other]]) or (piece != ROOK and BISHOP_LINE[king, squares[other]])
        if lined and (BETWEEN[king, squares[other]] & on) != 0:
            return False
    return True


@njit(cache=True, inline="always")
def position_moves(squares, stm, spec, ep_file, targets, work, moved, after, promoted, capture, counting=False):
    """Every legal move of the position ``squares`` (int64[slots], not changed), side to
    move ``stm``, the other side's pawn on ``ep_file`` just pushed two squares (-1 for
    none): for move ``m``, its slot and target in int64[M, 2] ``moved``, the squares
    after it in int64[M, slots] ``after`` (:data:`OFF` for a piece taken or exploded),
    the piece the moved slot promotes to (a piece code, or :data:`NO_PROMOTION`) in
    int64[M] ``promoted``, and whether it captures in bool[M] ``capture``. ``targets``
    (int64[32]) and ``work`` (int64[slots]) are scratch.

    With ``counting``, the quiet moves (neither capture nor promotion) of a piece whose
    quiet moves are all legal (antichess, a king's too; atomic, :func:`_free_to_move`)
    and the legal steps of an atomic king (:func:`_king_step_legal`) are counted, not
    written.

    :returns: ``(written, counted)``: how many moves were written, how many counted.
    """
    count = len(squares)
    atomic = spec.rules == ATOMIC
    occupied = occupancy_bits(squares)
    own = np.uint64(0)
    for slot in range(count):
        if spec.colours[slot] == stm and squares[slot] != OFF:
            own |= BIT[squares[slot]]
    theirs = occupied & ~own
    found = quiet = 0
    takers = en_passant_takers(squares, stm, spec, ep_file, work)
    captures = 0 if atomic else takers  # antichess: an en passant capture is compulsory too
    kings_apart = checked = False
    if atomic and counting:
        kings_apart = (KING_ATTACKS[_king_of(squares, spec, stm)] & BIT[_king_of(squares, spec, 1 - stm)]) == 0
        checked = kings_apart and attacked_king(squares, spec, stm)
    for slot in range(count):
        origin = squares[slot]
        if spec.colours[slot] != stm or origin == OFF:
            continue
        piece = spec.pieces[slot]
        free = counting and (not atomic or (piece != KING and _free_to_move(squares, stm, spec, slot, kings_apart, checked)))
        if free and piece != PAWN:  # its quiet moves counted from its reach, its captures listed from the other side's pieces
            reach = KING_ATTACKS[origin] if piece == KING else reach_bits(piece, origin, squares)
            if atomic or not captures:
                quiet += popcount(reach & ~occupied)
            reached = 0
            for other in range(count):
                if (theirs & reach & BIT[squares[other]]) != 0:
                    targets[reached] = squares[other]
                    reached += 1
        else:
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
            promotes = piece == PAWN and LAST_RANK[stm, target]
            if free and not takes and not promotes:
                quiet += 1
                continue
            if counting and atomic and piece == KING and not takes:
                quiet += _king_step_legal(squares, stm, spec, origin, target, occupied)
                continue
            if not _made(squares, stm, spec, slot, target, slot_on(squares, target, slot) if takes else -1, work):
                continue
            if not atomic and takes and not captures:
                found = quiet = 0  # antichess: the first capture makes the quiet moves so far illegal
            captures += takes
            found = _add(found, slot, target, takes, promotes, work, moved, after, promoted, capture, atomic)
    if takers:
        pushed_square = (4 if stm == 0 else 3) * 8 + ep_file
        target = pushed_square + (8 if stm == 0 else -8)
        for slot in range(count):
            if takers >> slot & 1:
                _made(squares, stm, spec, slot, target, slot_on(squares, pushed_square, -1), work)
                found = _add(found, slot, target, True, False, work, moved, after, promoted, capture, atomic)
    return found, quiet
