"""Keys in compiled code (numba ``@njit``): a key's squares, and the canonical key of a
placement, one at a time or for the positions after a batch's captures and promotions.

Keys follow :mod:`tablebase.generators.chess.layout`; a key's ``ep`` part lies above its
placement, so a canonical key with it is the placement's plus ``2 * placements``. A
layout is read as a :class:`~tablebase.generators.chess.spec.Spec`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.layout import BINOMIAL, NO_KEY
from tablebase.generators.chess.tables import SYMMETRIES


@njit(cache=True, inline="always")
def decode(key, spec, squares):
    """Fill int64[slots] ``squares`` from a key; return the side to move."""
    rest = (key >> 1) % spec.placements
    size = len(spec.king_pairs)
    pair = rest % size
    squares[0] = spec.king_pairs[pair, 0]
    squares[1] = spec.king_pairs[pair, 1]
    rest //= size
    for d in range(len(spec.digits)):
        first, end, radix = spec.digits[d, 0], spec.digits[d, 1], spec.digits[d, 2]
        if radix == 64:
            squares[first] = rest & 63
            rest >>= 6
            continue
        digit = rest % radix
        rest //= radix
        for slot in range(first, end):  # the combination's squares, highest first
            k = end - slot
            low, high = k - 1, 64  # the highest square c with C(c, k) <= digit, in [low, high)
            while high - low > 1:
                middle = (low + high) >> 1
                if BINOMIAL[middle, k] <= digit:
                    low = middle
                else:
                    high = middle
            squares[slot] = low
            digit -= BINOMIAL[low, k]
    return key & 1


@njit(cache=True, inline="always")
def _key_of(stm, ordered, spec):
    """The key of a placement, or NO_KEY; orders the twins of int64[slots] ``ordered``
    in place (larger squares first)."""
    pair = spec.pair_of[ordered[0] * 64 + ordered[1]]
    if pair < 0:
        return NO_KEY
    rest = 0
    for d in range(len(spec.digits) - 1, -1, -1):
        first, end, radix = spec.digits[d, 0], spec.digits[d, 1], spec.digits[d, 2]
        if radix == 64:
            rest = rest * 64 + ordered[first]
            continue
        _sorted_run(ordered, ordered, first, end, -1, 0)
        digit = _rank(ordered, first, end)
        if digit < 0:
            return NO_KEY  # identical pieces on one square
        rest = rest * radix + digit
    return stm + 2 * (pair + len(spec.king_pairs) * rest)


@njit(cache=True, inline="always")
def canonical_placement_key(stm, squares, spec, image):
    """The canonical key of a placement (see :meth:`~tablebase.generators.chess.layout.Layout.canonical_keys`), or
    NO_KEY where no image has a key (kings side by side, identical pieces on one
    square); ``image`` is int64[slots] scratch."""
    count = len(squares)
    best = NO_KEY
    for flipped in range(2 if len(spec.flip) else 1):
        side = stm ^ flipped
        for c in range(spec.lifts.shape[1]):
            symmetry = spec.lifts[squares[spec.flip[0]] ^ 56 if flipped else squares[0], c]
            if c and symmetry == spec.lifts[squares[spec.flip[0]] ^ 56 if flipped else squares[0], c - 1]:
                continue
            for slot in range(count):
                source = squares[spec.flip[slot]] ^ 56 if flipped else squares[slot]
                image[slot] = SYMMETRIES[symmetry, source]
            key = _key_of(side, image, spec)
            if key < best:
                best = key
    return best


@njit(cache=True, inline="always")
def moved_key(placed, slot, origin, target, squares, spec, image):
    """The canonical key after the piece of ``slot`` steps from ``origin`` to the empty
    ``target`` (int64[slots] ``squares`` as they stand, that slot's read as neither),
    the side to move flipped, worked out from ``placed`` (the key without ``ep``) where
    the position is its own canonical image and stays so: the white king off the
    diagonal (:func:`only_lift`, checked by the caller), no colour flip, and not the white
    king moving. A piece of its own moves its digit by its square (``Spec.runs``), the
    black king its king pair, a twin its run's combination (``image`` int64[slots]
    scratch). Returns
    -1 where that does not hold (:func:`canonical_placement_key` gives it), NO_KEY where
    the black king would stand beside the white."""
    if slot == 0 or len(spec.flip):
        return -1
    if slot == 1:
        pair = spec.pair_of[squares[0] * 64 + target]
        if pair < 0:
            return NO_KEY
        return (placed ^ 1) + 2 * (pair - spec.pair_of[squares[0] * 64 + origin])
    first, end, unit = spec.runs[slot, 0], spec.runs[slot, 1], spec.runs[slot, 2]
    if end - first == 1:
        return (placed ^ 1) + unit * (target - origin)
    _sorted_run(squares, image, first, end, slot, origin)
    before = _rank(image, first, end)
    _sorted_run(squares, image, first, end, slot, target)
    return (placed ^ 1) + unit * (_rank(image, first, end) - before)


@njit(cache=True, inline="always")
def _sorted_run(squares, into, first, end, slot, square):
    """The squares of the twins in slots ``[first, end)`` of int64[slots] ``squares``,
    the one of ``slot`` on ``square`` (``slot`` -1: none moved), sorted highest first
    into the same slots of ``into`` (which may be ``squares`` itself)."""
    for i in range(first, end):
        value = square if i == slot else squares[i]
        j = i - 1
        while j >= first and into[j] < value:  # insertion sort, descending
            into[j + 1] = into[j]
            j -= 1
        into[j + 1] = value


@njit(cache=True, inline="always")
def _rank(ordered, first, end):
    """The digit of the twins whose squares stand in slots ``[first, end)`` of
    ``ordered``, highest first: their rank as a combination; -1 where two share a
    square."""
    digit = 0
    for slot in range(first, end):
        if slot > first and ordered[slot] == ordered[slot - 1]:
            return -1
        digit += BINOMIAL[ordered[slot], end - slot]
    return digit


@njit(cache=True, inline="always")
def only_lift(spec, white_king):
    """Whether a canonical position with the white king on ``white_king`` has no image
    but itself under the symmetries that keep the king in its region (no diagonal
    square of the a1-d1-d4 triangle). Then, without the colour flip, a move of any
    piece but the white king changes only its own digit of the canonical key
    (:func:`moved_key`), the side to move flipped."""
    return spec.lifts[white_king, 0] == spec.lifts[white_king, spec.lifts.shape[1] - 1]


@njit(cache=True, inline="always")
def en_passant_bit(key, spec, en_passant):
    """The ``ep`` part of a key (0 or 1), for a layout with it (``en_passant``)."""
    if not en_passant:
        return 0
    return (key >> 1) // spec.placements


@njit(cache=True, nogil=True)
def child_keys_kernel(squares, stm, order, swapped, spec):
    """int64[k]: the canonical keys, in the layout of ``spec``, of the positions after
    k captures or promotions of one kind: int64[k, slots] squares after each, int64[k]
    the side that moved, the child's slot ``j`` being ``order[j]`` (int64[c]), colours
    reversed (ranks mirrored) where ``swapped`` (0 or 1)."""
    found = np.empty(len(stm), np.int64)
    exit_keys_kernel(squares, stm, np.arange(len(stm)), order, swapped, spec, found)
    return found


@njit(cache=True, nogil=True)
def exit_keys_kernel(squares, stm, rows, order, swapped, spec, found):
    """:func:`child_keys_kernel` of the int64[r] ``rows`` of ``squares`` and ``stm``
    alone, each key written to ``found`` at its row."""
    _exit_keys(squares, stm, rows, order, swapped, spec, found, np.empty(len(order), np.int64), np.empty(len(order), np.int64))


@njit(cache=True, nogil=True, _nrt=False)
def _exit_keys(squares, stm, rows, order, swapped, spec, found, child, image):
    """:func:`exit_keys_kernel`'s loop, without reference counting (as
    :func:`~tablebase.generators.chess.survey._survey_rows`)."""
    for row in rows:
        for j in range(len(order)):
            child[j] = squares[row, order[j]] ^ (56 * swapped)
        found[row] = canonical_placement_key((1 - stm[row]) ^ swapped, child, spec, image)
