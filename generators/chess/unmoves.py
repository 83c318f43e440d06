"""Compiled chess un-move generation (numba ``@njit``): every distinct predecessor of a
batch of keys within the tablebase, as canonical keys, some of them illegal (un-moves
are not tested: the engine ignores illegal predecessors). tests/test_chess_unmoves.py
holds them to the numpy reference ``tests/numpy_chess/unmoves.py``."""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.attacks import occupancy_bits, piece_targets, takes_en_passant
from tablebase.generators.chess.buffers import grown
from tablebase.generators.chess.keys import canonical_placement_key, decode, en_passant_bit, moved_key, only_lift
from tablebase.generators.chess.layout import NO_KEY
from tablebase.generators.chess.spec import PAWN
from tablebase.generators.chess.tables import BIT, LAST_RANK, OFF, PAWN_PUSHES


@njit(cache=True, nogil=True)
def unmoves_kernel(keys, spec, en_passant):
    """Every distinct un-move of int64[n] keys: the side not to move takes back a step,
    slide, knight jump, pawn push or double push onto empty squares. With the en passant
    bit (as ``numpy_chess.unmoves.unmoves``): a key with ``ep`` set has only the double
    un-push of the pawn just pushed, one without it that un-push only where no en passant
    capture is legal, and every predecessor is listed with ``ep`` 0 and 1.

    :param en_passant: as :func:`~tablebase.generators.chess.moves.generate_kernel` takes it.
    :returns: ``(src, pred)``, int64[m] each, ``src`` ascending: the canonical key of
        each predecessor, some of them illegal (none with the kings side by side, which
        have no key).
    """
    n = len(keys)
    count = len(spec.pieces)
    most = spec.most_moves
    both = 2 if en_passant else 1  # ep 0 and 1 of each predecessor
    src = np.empty(n * 16 + both * most, np.int64)
    pred = np.empty(len(src), np.int64)
    squares = np.empty(count, np.int64)
    image = np.empty(count, np.int64)
    targets = np.empty(32, np.int64)
    unusual = np.empty(most, np.int64)
    row = found_all = 0
    while row < n:  # each round stops where the output has no room left
        if found_all + both * most > len(src):
            src = grown(src, found_all)
            pred = grown(pred, found_all)
        row, found_all = _unmove_rows(keys, row, spec, en_passant, src, pred, found_all, squares, image, targets, unusual)
    return src[:found_all].copy(), pred[:found_all].copy()


@njit(cache=True, nogil=True, _nrt=False)
def _unmove_rows(keys, row, spec, en_passant, src, pred, found_all, squares, image, targets, unusual):
    """:func:`unmoves_kernel`'s loop from ``row`` on, into ``src`` and ``pred`` from
    ``found_all``, until they have no room for one more position: returns ``(row
    reached, found_all)``. Compiled without reference counting, as :func:`~tablebase.generators.chess.survey._survey_rows`."""
    n = len(keys)
    count = len(spec.pieces)
    most = spec.most_moves
    both = 2 if en_passant else 1
    while row < n and found_all + both * most <= len(src):
        stm = decode(keys[row], spec, squares)
        simple = only_lift(spec, squares[0])
        mover = 1 - stm
        occupied = occupancy_bits(squares)
        ep = en_passant_bit(keys[row], spec, en_passant)
        placed = keys[row] - ep * 2 * spec.placements  # the key without ep
        double_allowed = not en_passant or ep == 1 or not takes_en_passant(stm, squares, occupied, spec)
        first = found_all
        listed = 0  # the keys found through the symmetries, kept in unusual[:listed]
        for slot in range(count):
            if spec.colours[slot] != mover:
                continue
            piece = spec.pieces[slot]
            origin = squares[slot]
            found = 0
            if piece == PAWN:
                back = PAWN_PUSHES[1 - mover, origin]
                if back != OFF and (occupied & BIT[back]) == 0:
                    if ep == 0 and not LAST_RANK[1 - mover, back]:
                        targets[found] = back
                        found += 1
                    home = PAWN_PUSHES[1 - mover, back]
                    fourth = (origin >> 3) == (3 if mover == 0 else 4)
                    if double_allowed and fourth and home != OFF and (occupied & BIT[home]) == 0:
                        targets[found] = home
                        found += 1
            elif ep == 0:
                found = piece_targets(piece, mover, origin, occupied, np.uint64(0), targets)
            for j in range(found):
                target = targets[j]
                if (occupied & BIT[target]) != 0:
                    continue
                key = moved_key(placed, slot, origin, target, squares, spec, image) if simple else -1
                direct = key >= 0
                if direct:  # distinct from every other key so found
                    earlier = unusual[:listed]
                else:
                    squares[slot] = target
                    key = canonical_placement_key(mover, squares, spec, image)
                    squares[slot] = origin
                    earlier = pred[first:found_all]
                if key == NO_KEY:  # a king taken back beside the other
                    continue
                repeated = False
                for k in range(len(earlier)):
                    if earlier[k] == key:
                        repeated = True
                        break
                if not repeated:
                    src[found_all] = row
                    pred[found_all] = key
                    found_all += 1
                    if en_passant:  # the same predecessor with the en passant bit
                        src[found_all] = row
                        pred[found_all] = key + 2 * spec.placements
                        found_all += 1
                    if not direct:
                        unusual[listed] = key
                        listed += 1
        row += 1
    return row, found_all
