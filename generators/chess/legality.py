"""Which keys are canonical keys of legal positions, in compiled code (numba ``@njit``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.attacks import in_check, just_pushed, takes_en_passant
from tablebase.generators.chess.keys import canonical_placement_key, decode, en_passant_bit, only_lift
from tablebase.generators.chess.spec import PAWN
from tablebase.generators.chess.tables import BIT, KING_ATTACKS


@njit(cache=True, nogil=True)
def legal_kernel(keys, spec, en_passant):
    """bool[n]: which int64[n] keys are canonical keys of legal positions, by the rules
    of chess: no two pieces on a square, no pawn on the first or last rank, the kings
    apart, the side not to move not in check, a key canonical (a key with the ``ep`` bit
    needs a pawn just pushed that can legally be taken en passant); ``en_passant`` as
    :func:`~tablebase.generators.chess.moves.generate_kernel` takes it."""
    return legal_keys(keys, spec, en_passant)


@njit(cache=True, inline="always")
def legal_keys(keys, spec, en_passant):
    """:func:`legal_kernel`'s loop."""
    count = len(spec.pieces)
    ok = np.zeros(len(keys), np.bool_)
    _legal_rows(keys, spec, en_passant, ok, np.empty(count, np.int64), np.empty(count, np.int64))
    return ok


@njit(cache=True, nogil=True, _nrt=False)
def _legal_rows(keys, spec, en_passant, ok, squares, image):
    """:func:`legal_keys`'s loop, into bool[n] ``ok``, without reference counting (as
    :func:`~tablebase.generators.chess.survey._survey_rows`)."""
    count = len(squares)
    for row in range(len(keys)):
        stm = decode(keys[row], spec, squares)
        bits = np.uint64(0)
        clash = False
        for slot in range(count):
            if (bits & BIT[squares[slot]]) != 0:
                clash = True
            bits |= BIT[squares[slot]]
            if spec.pieces[slot] == PAWN and ((squares[slot] >> 3) % 7) == 0:
                clash = True
        if clash or (KING_ATTACKS[squares[0]] & BIT[squares[1]]) != 0:
            continue
        if in_check(squares, bits, 1 - stm, spec):
            continue
        ep = en_passant_bit(keys[row], spec, en_passant)
        if ep and not (just_pushed(stm, squares, bits, spec) and takes_en_passant(stm, squares, bits, spec)):
            continue
        if only_lift(spec, squares[0]) and len(spec.flip) == 0:
            ok[row] = True  # the identity alone keeps the white king in its region: a key is its own canonical key
        else:
            ok[row] = keys[row] == canonical_placement_key(stm, squares, spec, image) + ep * 2 * spec.placements
