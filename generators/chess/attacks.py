"""Compiled board tests of one position (numba ``@njit``, inlined into the kernels):
attacks and checks, pins, en passant, and the squares a piece moves to or reaches.

Squares are int64[slots] by slot (:data:`~tablebase.generators.chess.tables.OFF` for a
piece taken), bitboards uint64; a layout is read as a
:class:`~tablebase.generators.chess.spec.Spec`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.spec import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from tablebase.generators.chess.tables import (
    BETWEEN,
    BISHOP_LINE,
    BIT,
    KING_ATTACKS,
    KING_TARGETS,
    KNIGHT_ATTACKS,
    KNIGHT_TARGETS,
    OFF,
    PAWN_ATTACKS,
    PAWN_CAPTURES,
    PAWN_DOUBLE_PUSHES,
    PAWN_PUSHES,
    RAYS,
    ROOK_LINE,
    SHADOW,
    SLIDER_LINES,
)


@njit(cache=True, inline="always")
def _attacks(piece, colour, origin, target, occupied):
    """Whether a piece on ``origin`` (:data:`~tablebase.generators.chess.tables.OFF` for none) attacks ``target``."""
    if origin == OFF:
        return False
    if piece == KING:
        return (KING_ATTACKS[origin] & BIT[target]) != 0
    if piece == KNIGHT:
        return (KNIGHT_ATTACKS[origin] & BIT[target]) != 0
    if piece == PAWN:
        return (PAWN_ATTACKS[colour, origin] & BIT[target]) != 0
    if piece == ROOK and not ROOK_LINE[origin, target]:
        return False
    if piece == BISHOP and not BISHOP_LINE[origin, target]:
        return False
    if piece == QUEEN and not (ROOK_LINE[origin, target] or BISHOP_LINE[origin, target]):
        return False
    return (BETWEEN[origin, target] & occupied) == 0


@njit(cache=True, inline="always")
def occupancy_bits(squares):
    """uint64: the bitboard of every piece (an :data:`~tablebase.generators.chess.tables.OFF` square adds nothing)."""
    bits = np.uint64(0)
    for slot in range(len(squares)):
        bits |= BIT[squares[slot]]
    return bits


@njit(cache=True, inline="always")
def king_attacked(pieces, colours, squares, occupied, colour):
    """Whether the king of ``colour`` (slot ``colour``) is attacked by the other side,
    the slots holding int64[slots] ``pieces`` (a promoted pawn its new piece); a slot on
    :data:`~tablebase.generators.chess.tables.OFF` (taken) attacks nothing."""
    target = squares[colour]
    for slot in range(len(squares)):
        if colours[slot] != colour and _attacks(pieces[slot], colours[slot], squares[slot], target, occupied):
            return True
    return False


@njit(cache=True, inline="always")
def in_check(squares, occupied, colour, spec):
    """Whether the king of ``colour`` is attacked by the other side."""
    return king_attacked(spec.pieces, spec.colours, squares, occupied, colour)


@njit(cache=True, inline="always")
def slot_on(squares, square, mover):
    """The slot other than ``mover`` that stands on ``square``, or -1."""
    found = -1
    for slot in range(len(squares)):
        if slot != mover and squares[slot] == square:
            found = slot
    return found


@njit(cache=True, inline="always")
def en_passant_target(stm, squares, spec):
    """Where the pawn of the side to move takes en passant the other side's pawn, taken
    to have just made a double push, or :data:`~tablebase.generators.chess.tables.OFF` where it does not stand beside it
    (a layout with the en passant bit)."""
    target = PAWN_PUSHES[stm, squares[spec.pawns[1 - stm]]]
    if target == OFF or (PAWN_ATTACKS[stm, squares[spec.pawns[stm]]] & BIT[target]) == 0:
        return OFF
    return target


@njit(cache=True, inline="always")
def takes_en_passant(stm, squares, occupied, spec):
    """Whether the side to move has a legal en passant capture, the other side's pawn
    taken to have just made a double push (as ``numpy_chess.moves.has_en_passant``; a
    layout with the en passant bit); ``squares`` is changed and restored."""
    target = en_passant_target(stm, squares, spec)
    if target == OFF:
        return False
    mine, theirs = spec.pawns[stm], spec.pawns[1 - stm]
    origin, taken = squares[mine], squares[theirs]
    squares[mine], squares[theirs] = target, OFF
    exposed = in_check(squares, (occupied & ~BIT[origin] & ~BIT[taken]) | BIT[target], stm, spec)
    squares[mine], squares[theirs] = origin, taken
    return not exposed


@njit(cache=True, inline="always")
def just_pushed(stm, squares, occupied, spec):
    """Whether the other side's pawn stands where a double push put it: its fourth rank,
    the two squares behind it empty (as ``numpy_chess.moves.en_passant_ready``)."""
    square = squares[spec.pawns[1 - stm]]
    back = 8 if stm == 0 else -8
    if (square >> 3) != (4 if stm == 0 else 3):
        return False
    return (occupied & (BIT[square + back] | BIT[square + 2 * back])) == 0


@njit(cache=True, inline="always")
def pinned(squares, occupied, slot, spec):
    """Whether the piece of ``slot`` stands alone between its king and an enemy slider
    that moves along their line (as ``numpy_chess.moves.pinned``)."""
    colour = spec.colours[slot]
    king = squares[colour]
    for enemy in range(2, len(squares)):
        piece = spec.pieces[enemy]
        if spec.colours[enemy] == colour or piece == KNIGHT or piece == PAWN:
            continue
        origin = squares[enemy]
        if (BETWEEN[origin, king] & occupied) != BIT[squares[slot]]:
            continue
        if piece != BISHOP and ROOK_LINE[origin, king]:
            return True
        if piece != ROOK and BISHOP_LINE[origin, king]:
            return True
    return False


@njit(cache=True, inline="always")
def piece_targets(piece, colour, origin, occupied, theirs, out):
    """Write the squares a piece on ``origin`` moves to (own pieces not yet excluded,
    pawn captures only onto ``theirs``) into ``out``; return how many."""
    found = 0
    if piece == KING or piece == KNIGHT:
        table = KING_TARGETS if piece == KING else KNIGHT_TARGETS
        for j in range(8):
            if table[origin, j] != OFF:
                out[found] = table[origin, j]
                found += 1
    elif piece == PAWN:
        push = PAWN_PUSHES[colour, origin]
        if push != OFF and (occupied & BIT[push]) == 0:
            out[found] = push
            found += 1
            double = PAWN_DOUBLE_PUSHES[colour, origin]
            if double != OFF and (occupied & BIT[double]) == 0:
                out[found] = double
                found += 1
        for j in range(2):
            capture = PAWN_CAPTURES[colour, origin, j]
            if (theirs & BIT[capture]) != 0:
                out[found] = capture
                found += 1
    else:
        found = _slide(piece, origin, occupied, out, found)
    return found


@njit(cache=True, inline="always")
def popcount(bits):
    """The number of set bits of a uint64 (SWAR, Hacker's Delight 5-1)."""
    bits = bits - ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555))
    bits = (bits & np.uint64(0x3333333333333333)) + ((bits >> np.uint64(2)) & np.uint64(0x3333333333333333))
    bits = (bits + (bits >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((bits * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def reach_bits(piece, origin, squares):
    """uint64: the squares a knight, bishop, rook or queen on ``origin`` attacks, its
    rays stopped by the first piece, whoever's, of int64[slots] ``squares`` (the lines of
    a slider less the :data:`~tablebase.generators.chess.tables.SHADOW` of each piece)."""
    if piece == KNIGHT:
        return KNIGHT_ATTACKS[origin]
    lines = np.uint64(0)
    if piece != BISHOP:
        lines |= SLIDER_LINES[0, origin]
    if piece != ROOK:
        lines |= SLIDER_LINES[1, origin]
    hidden = np.uint64(0)
    for slot in range(len(squares)):
        hidden |= SHADOW[origin, squares[slot]]
    return lines & ~hidden


@njit(cache=True, inline="always")
def _slide(piece, origin, occupied, out, found):
    """The squares a bishop, rook or queen on ``origin`` moves to along its rays up to
    and including the first piece: written into ``out`` from ``found`` on; returns
    ``found`` after them."""
    first = 4 if piece == BISHOP else 0
    last = 4 if piece == ROOK else 8
    for direction in range(first, last):
        for step in range(7):
            target = RAYS[origin, direction, step]
            if target == OFF:
                break
            out[found] = target
            found += 1
            if (occupied & BIT[target]) != 0:
                break
    return found


@njit(cache=True, inline="always")
def all_but_two_map(squares, stm, pieces, colours, image_of):
    """Whether the square map ``image_of`` (int64[64], a board symmetry) sends every
    piece of the side other than ``stm`` onto a piece of its kind and colour, and all
    but at most two of ``stm``'s: unless it does, no two moves of ``stm`` (forward or
    back, neither capture nor promotion) lead from a position to positions it maps one
    onto the other. If it maps P with a piece moved from a to b onto P with a piece
    moved from c to d, every piece of P has its image on a piece of its kind in P but
    the images of a and of the piece on c, both ``stm``'s. The side other than
    ``stm``'s pieces are tried first: one stray of theirs settles it."""
    count = len(squares)
    strays = 0
    for turn in range(count):
        slot = turn if colours[0] != stm else count - 1 - turn
        image = image_of[squares[slot]]
        matched = False
        for other in range(count):
            if squares[other] == image and pieces[other] == pieces[slot] and colours[other] == colours[slot]:
                matched = True
        if not matched:
            strays += 1 if colours[slot] == stm else 3
            if strays > 2:
                return False
    return True
