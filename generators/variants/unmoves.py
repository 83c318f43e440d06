"""Un-moves of a chess variant's ending in compiled code (numba ``@njit``): every
predecessor of a batch of keys within the ending, as canonical keys, some of them no
position (the engine leaves those out).

The side not to move takes back a step, slide, knight jump or pawn push onto empty
squares (a capture or a promotion leaves the ending and is never un-made). A key with an
en passant right has one predecessor, before the double push of the pawn it names; a key
without one has that double push's predecessor only where no en passant capture is
legal (else the push leads to the key with the right). Antichess: a predecessor whose
side to move had a capture is left out (it had to capture). Atomic: each predecessor is
listed too with the en passant right of each pawn that may just have been pushed (the
engine keeps those that are positions).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.attacks import occupancy_bits, piece_targets
from tablebase.generators.chess.buffers import grown
from tablebase.generators.chess.spec import PAWN
from tablebase.generators.chess.tables import BIT, OFF, PAWN_PUSHES
from tablebase.generators.variants.keys import canonical_key, decode, ep_file_of
from tablebase.generators.variants.layout import ATOMIC
from tablebase.generators.variants.rules import MOST_MOVES, en_passant_takers


@njit(cache=True, inline="always")
def _can_capture(squares, side, spec, targets):
    """Whether ``side`` has a capture (en passant aside) on ``squares``."""
    occupied = occupancy_bits(squares)
    theirs = np.uint64(0)
    for slot in range(len(squares)):
        if spec.colours[slot] != side:
            theirs |= BIT[squares[slot]]
    for slot in range(len(squares)):
        if spec.colours[slot] == side:
            found = piece_targets(spec.pieces[slot], side, squares[slot], occupied, theirs, targets)
            for j in range(found):
                if (theirs & BIT[targets[j]]) != 0:
                    return True
    return False


@njit(cache=True, inline="always")
def _origins(squares, slot, mover, ep_file, double_allowed, occupied, spec, targets):
    """Where the piece of ``slot`` may have come from by a quiet move, into ``targets``;
    returns how many."""
    origin = squares[slot]
    if spec.pieces[slot] != PAWN:
        if ep_file >= 0:
            return 0
        found = piece_targets(spec.pieces[slot], mover, origin, occupied, np.uint64(0), targets)
        kept = 0
        for j in range(found):
            if (occupied & BIT[targets[j]]) == 0:
                targets[kept] = targets[j]
                kept += 1
        return kept
    back = PAWN_PUSHES[1 - mover, origin]  # the square behind it
    if back == OFF or (occupied & BIT[back]) != 0:
        return 0
    found = 0
    if ep_file < 0 and back >> 3 != (0 if mover == 0 else 7):
        targets[found] = back
        found += 1
    home = PAWN_PUSHES[1 - mover, back]
    fourth = (origin >> 3) == (3 if mover == 0 else 4)
    named = (ep_file >= 0 and (origin & 7) == ep_file) or (ep_file < 0 and double_allowed[origin & 7])
    if fourth and named and home != OFF and (occupied & BIT[home]) == 0:
        targets[found] = home
        found += 1
    return found


@njit(cache=True, nogil=True)
def unmoves_kernel(keys, spec):
    """Every un-move of int64[n] keys (see the module docstring).

    :returns: ``(src, pred)``, int64[m] each, ``src`` ascending: the row of each key and
        the canonical key of a predecessor, some of them no position.
    """
    n = len(keys)
    count = len(spec.pieces)
    src = np.empty(n * 16 + 9 * MOST_MOVES, np.int64)
    pred = np.empty(len(src), np.int64)
    squares = np.empty(count, np.int64)
    image = np.empty(count, np.int64)
    flipped = np.empty(count, np.int64)
    work = np.empty(count, np.int64)
    targets = np.empty(32, np.int64)
    reached = np.empty(32, np.int64)
    double_allowed = np.empty(8, np.bool_)
    atomic = spec.rules == ATOMIC
    found_all = 0
    for row in range(n):
        if found_all + 9 * MOST_MOVES > len(src):
            src = grown(src, found_all)
            pred = grown(pred, found_all)
        stm = decode(keys[row], spec, squares)
        ep_file = ep_file_of(keys[row], spec)
        mover = 1 - stm
        occupied = occupancy_bits(squares)
        for file in range(8):
            double_allowed[file] = en_passant_takers(squares, stm, spec, file, work) == 0
        for slot in range(count):
            if spec.colours[slot] != mover:
                continue
            origin = squares[slot]
            for j in range(_origins(squares, slot, mover, ep_file, double_allowed, occupied, spec, targets)):
                squares[slot] = targets[j]
                if not atomic and _can_capture(squares, mover, spec, reached):
                    squares[slot] = origin
                    continue
                src[found_all] = row
                pred[found_all] = canonical_key(mover, squares, spec, image, flipped, -1)
                found_all += 1
                if atomic:
                    for file in range(8):  # the predecessor right after a double push of the other side
                        pushed = (3 if stm == 0 else 4) * 8 + file
                        for other in range(count):
                            if squares[other] == pushed and spec.colours[other] == stm and spec.pieces[other] == PAWN:
                                src[found_all] = row
                                pred[found_all] = canonical_key(mover, squares, spec, image, flipped, file)
                                found_all += 1
                squares[slot] = origin
    return src[:found_all].copy(), pred[:found_all].copy()
