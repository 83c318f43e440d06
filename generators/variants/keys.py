"""Keys of a chess variant's ending in compiled code (numba ``@njit``): a key's squares, and
the canonical key of a placement (:mod:`tablebase.generators.variants.layout`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.attacks import all_but_two_map

NO_KEY = -1
"""What :func:`canonical_key` gives for a placement no symmetry brings into the index
(a lead outside every image of the region: only where the region is the files a-d and a
piece of the lead's kind stands nowhere, which a placement of the layout never has)."""


@njit(cache=True, inline="always")
def decode(key, spec, squares):
    """Fill int64[slots] ``squares`` from a key; return the side to move (0 white)."""
    rest = (key if key < spec.placements else key % spec.placements) >> 1
    regions = len(spec.region)
    if regions == 10:  # the triangle's and the queenside's sizes as constants: no division
        lead = rest // 10
    elif regions == 32:
        lead = rest >> 5
    else:
        lead = rest // regions
    squares[0] = spec.region[rest - lead * regions]
    rest = lead
    for slot in range(1, len(squares)):
        squares[slot] = rest & 63
        rest >>= 6
    return key & 1


@njit(cache=True, inline="always")
def ep_file_of(key, spec):
    """The file of the pawn a key's position can take en passant, or -1."""
    return -1 if key < spec.placements else key // spec.placements - 1


@njit(cache=True, inline="always")
def encode(stm, squares, spec):
    """The key of a placement whose slot 0 stands in the region (no check of order)."""
    rest = 0
    for slot in range(len(squares) - 1, 0, -1):
        rest = rest * 64 + squares[slot]
    return stm + 2 * (spec.region_of[squares[0]] + len(spec.region) * rest)


@njit(cache=True, inline="always")
def sort_run(values, first, end):
    """Sort ``values[first:end]`` in place (insertion sort: a run holds a few pieces)."""
    for i in range(first + 1, end):
        value = values[i]
        j = i - 1
        while j >= first and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


@njit(cache=True, inline="always")
def sort_twins(image, spec):
    """Sort each run of twins of int64[slots] ``image`` from slot 1 on (the lead's twins
    after it, then every later run), in place: a canonical form's order."""
    slot = 1
    while slot < len(image):
        end = spec.group_end[slot]
        sort_run(image, slot, end)
        slot = end


@njit(cache=True, inline="always")
def _least_image(stm, squares, spec, image, best, ep_file, first=False):
    """The least key of ``squares`` (int64[slots]) under the symmetries that bring a
    piece of the lead's kind into the region (:attr:`~tablebase.generators.variants.layout.VariantSpec.lifts`),
    below ``best``, with the en passant right on ``ep_file`` (-1 for none); ``image``
    scratch. With ``first``, the first key below ``best`` found, not the least."""
    count = len(squares)
    lead_end = spec.group_end[0]
    for pick in range(lead_end):  # each piece of the lead's kind in turn as the lead
        for lift in range(spec.lifts.shape[1]):
            s = spec.lifts[squares[pick], lift]
            if s < 0:
                break
            for slot in range(count):
                image[slot] = spec.symmetries[s, squares[slot]]
            image[0], image[pick] = image[pick], image[0]
            sort_twins(image, spec)
            key = encode(stm, image, spec)
            if ep_file >= 0:
                key += spec.placements * (1 + (spec.symmetries[s, ep_file] & 7))
            if best < 0 or key < best:
                best = key
                if first:
                    return best
    return best


@njit(cache=True, inline="always")
def canonical_key(stm, squares, spec, image, flipped, ep_file=-1):
    """The canonical key of a placement (int64[slots] ``squares``, side to move ``stm``,
    an en passant capture of the pawn on ``ep_file`` or -1) in this layout's colouring,
    or :data:`NO_KEY`; ``image`` and ``flipped`` scratch int64[slots]. An ending of like
    sides takes the colour flip as a symmetry too."""
    best = _least_image(stm, squares, spec, image, NO_KEY, ep_file)
    if len(spec.flip):
        for slot in range(len(squares)):
            flipped[spec.flip[slot]] = squares[slot] ^ 56
        best = _least_image(1 - stm, flipped, spec, image, best, ep_file)
    return best


@njit(cache=True, inline="always")
def lead_key(mover, squares, target, spec, image, lead_bases):
    """The canonical key, the mover to move, of ``squares`` with the lead (no twin, no
    colour flip in the layout) moved to ``target``: the least over the symmetries that
    bring ``target`` into the region. Each symmetry's image of the other pieces, keyed
    with the lead on the region's first square, is found once a key and kept in
    ``lead_bases`` (int64[symmetries], -1 where not yet found); the lead's square then
    adds its digit, so a lead's every origin costs one lookup a symmetry, not a
    :func:`canonical_key` (the un-moves of the lead, and its moves in the check of the
    one-byte pass)."""
    best = NO_KEY
    for lift in range(spec.lifts.shape[1]):
        s = spec.lifts[target, lift]
        if s < 0:
            break
        if lead_bases[s] < 0:
            image[0] = spec.region[0]
            for slot in range(1, len(squares)):
                image[slot] = spec.symmetries[s, squares[slot]]
            sort_twins(image, spec)
            lead_bases[s] = encode(mover, image, spec)
        key = lead_bases[s] + 2 * spec.region_of[spec.symmetries[s, target]]
        best = key if best < 0 else min(best, key)
    return best


@njit(cache=True, inline="always")
def is_canonical(key, stm, squares, spec, image, flipped, ep_file):
    """Whether ``key``, the key of ``squares`` (its lead in the region, its twins in
    order), is their :func:`canonical_key`: no image has a lower key (the search
    stops at the first lower one)."""
    if _least_image(stm, squares, spec, image, key, ep_file, True) < key:
        return False
    if len(spec.flip):
        for slot in range(len(squares)):
            flipped[spec.flip[slot]] = squares[slot] ^ 56
        return _least_image(1 - stm, flipped, spec, image, key, ep_file, True) >= key
    return True


@njit(cache=True, inline="always")
def near_symmetric(squares, stm, spec):
    """Whether a board symmetry of the layout (but the identity) maps all but at most
    two pieces of ``stm`` onto pieces of their kind, and every other piece
    (:func:`~tablebase.generators.chess.attacks.all_but_two_map`). Unless one does, no
    two moves of ``stm``, forward or back, within the ending lead to keys one symmetry
    apart. (The colour flip of an ending of like sides changes the side to move, which
    such placements share, so it joins none.) A symmetry that sends the first piece of
    the other side onto none of its kind is never tried (:attr:`~tablebase.generators.variants.layout.VariantSpec.sends`)."""
    first = 0
    while spec.colours[first] == stm:
        first += 1
    candidates = 0  # the symmetries that send it onto itself or a twin
    for slot in range(first, spec.group_end[first]):
        candidates |= spec.sends[squares[first], squares[slot]]
    symmetry = 0
    while candidates != 0:
        if candidates & 1 and all_but_two_map(squares, stm, spec.pieces, spec.colours, spec.symmetries[symmetry]):
            return True
        candidates >>= 1
        symmetry += 1
    return False


@njit(cache=True, nogil=True)
def canonical_keys_kernel(squares, stm, spec, ep_files):
    """int64[n]: :func:`canonical_key` of int64[n, slots] placements, int64[n] sides to
    move and int64[n] en passant files (-1 for none)."""
    count = squares.shape[1]
    image = np.empty(count, np.int64)
    flipped = np.empty(count, np.int64)
    keys = np.empty(len(squares), np.int64)
    for row in range(len(squares)):
        keys[row] = canonical_key(stm[row], squares[row], spec, image, flipped, ep_files[row])
    return keys


@njit(cache=True, nogil=True)
def exit_keys_kernel(squares, stm, rows, order, swapped, spec, found):
    """The canonical keys, in the ending of ``spec``, of the positions after the moves
    of int64[r] ``rows`` that leave an ending into it, each written to int64 ``found``
    at its row: int64[e, slots] the squares after each move, int64[e] the side that
    made it, the child's slot ``j`` being ``order[j]`` (int64[c]), colours reversed
    (ranks mirrored) where ``swapped`` (0 or 1)."""
    _exit_keys(squares, stm, rows, order, swapped, spec, found, np.empty((3, len(order)), np.int64))


@njit(cache=True, nogil=True, _nrt=False)
def _exit_keys(squares, stm, rows, order, swapped, spec, found, scratch):
    """:func:`exit_keys_kernel`'s loop, compiled without numba's reference counting
    (``_nrt=False``; it allocates nothing), which otherwise counts every array an
    inlined helper takes at every call."""
    child, image, flipped = scratch[0], scratch[1], scratch[2]
    for row in rows:
        for j in range(len(order)):
            child[j] = squares[row, order[j]] ^ (56 * swapped)
        found[row] = canonical_key((1 - stm[row]) ^ swapped, child, spec, image, flipped, -1)


@njit(cache=True, nogil=True)
def decode_kernel(keys, spec, count):
    """``(squares, stm)``: int64[n, count] and int64[n], the placements of int64[n] keys."""
    squares = np.empty((len(keys), count), np.int64)
    stm = np.empty(len(keys), np.int64)
    for row in range(len(keys)):
        stm[row] = decode(keys[row], spec, squares[row])
    return squares, stm
