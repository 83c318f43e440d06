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

from tablebase.generators.chess.attacks import occupancy_bits
from tablebase.generators.chess.buffers import grown
from tablebase.generators.chess.spec import KING, KNIGHT, PAWN
from tablebase.generators.chess.tables import (
    BETWEEN,
    BIT,
    OFF,
    PAWN_PUSHES,
)
from tablebase.generators.variants.kernels import moved_key, plain_lead
from tablebase.generators.variants.keys import (
    NO_KEY,
    canonical_key,
    decode,
    encode,
    ep_file_of,
    lead_key,
    near_symmetric,
    sort_twins,
)
from tablebase.generators.variants.layout import ATOMIC
from tablebase.generators.variants.rules import MOST_MOVES, attack_bits, can_capture, en_passant_takers

DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
"""A de Bruijn sequence of 64 bits: the top six bits of a power of two times it differ
for every power (Leiserson, Prokop and Randall, *Using de Bruijn Sequences to Index a 1
in a Computer Word*, 1998)."""

LOWEST_SQUARE = np.zeros(64, dtype=np.int64)
"""int64[64]: the square of a one-bit bitboard, by the top six bits of it times :data:`DE_BRUIJN`."""
for _square in range(64):
    LOWEST_SQUARE[((1 << _square) * int(DE_BRUIJN) % (1 << 64)) >> 58] = _square


ANYWHERE = np.uint64(0xFFFFFFFFFFFFFFFF)
"""Every square: the origins of an un-move that no capture rules out."""


@njit(cache=True, inline="always")
def _capture_free(squares, slot, mover, spec, theirs, reach):
    """uint64: antichess, a piece other than a pawn un-moved: the squares it may have
    come from without the mover having had a capture before the move (it would have had
    to capture), en passant aside; ``theirs`` the other side's squares (uint64) and
    uint64[slots] ``reach`` what each piece of the mover attacks where it stands.

    Lifted off its square, the piece from an origin attacks one of the other side's
    pieces exactly where a piece of its kind on that piece's square attacks the origin
    (the rays are the same, and the origin's own occupant stops none of them), so its
    own captures rule out the union of those squares at once. Another piece of the mover
    that attacks one of the other side's pieces rules out every origin, unless it is a
    slider and the origin stands between the two: set down there, the piece blocks the
    ray, and it must block every such ray. Lifting the piece changes another's attacks
    only where it stood on them (the first piece of a ray).
    """
    origin, piece = squares[slot], spec.pieces[slot]
    lifted = BIT[origin]
    squares[slot] = OFF  # lifted: its square empty
    allowed = ANYWHERE
    for other in range(len(squares)):
        if other == slot or spec.colours[other] != mover:
            continue
        kind, at = spec.pieces[other], squares[other]
        attacks = reach[other]
        if (attacks & lifted) != 0:
            attacks = attack_bits(kind, mover, at, squares)
        hits = attacks & theirs
        if hits != 0 and (kind == KING or kind == KNIGHT or kind == PAWN):
            allowed = np.uint64(0)
        while hits != 0:
            lowest = hits & (~hits + np.uint64(1))
            allowed &= BETWEEN[at, LOWEST_SQUARE[(lowest * DE_BRUIJN) >> np.uint64(58)]]
            hits ^= lowest
        if allowed == 0:
            break
    for other in range(len(squares) if allowed != 0 else 0):
        if spec.colours[other] != mover:
            allowed &= ~attack_bits(piece, mover, squares[other], squares)
    squares[slot] = origin
    return allowed


@njit(cache=True, inline="always")
def _origins(squares, slot, mover, ep_file, double_allowed, occupied, allowed, reach, spec, targets):
    """Where the piece of ``slot`` may have come from by a quiet move, into ``targets``,
    a piece other than a pawn only from the squares of ``allowed`` (uint64), within
    ``reach`` (uint64, the squares it attacks); returns how many."""
    origin = squares[slot]
    piece = spec.pieces[slot]
    if piece != PAWN:
        if ep_file >= 0:
            return 0
        empty = reach & ~occupied & allowed
        found = 0
        while empty != 0:
            lowest = empty & (~empty + np.uint64(1))
            targets[found] = LOWEST_SQUARE[(lowest * DE_BRUIJN) >> np.uint64(58)]
            found += 1
            empty ^= lowest
        return found
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


@njit(cache=True, inline="always")
def _image_bases(mover, squares, spec, image, bases, images):
    """The keys, the mover to move, of the images of ``squares`` that
    :func:`~tablebase.generators.variants.keys.canonical_key` takes the least of (each
    piece of the lead's kind as the lead, under each symmetry that brings it into the
    region, twins sorted), into ``bases``, and each one's symmetry (a row of
    ``spec.symmetries``) into ``images`` (int64[2 * slots] each); returns how many, 0 for
    a layout with a colour flip. A lone piece's move, not of the lead's kind, changes
    one digit of each, so the predecessor's canonical key is the least of them so
    changed."""
    if len(spec.flip) != 0:
        return 0
    lead_end = spec.group_end[0]
    found = 0
    for pick in range(lead_end):
        for lift in range(spec.lifts.shape[1]):
            s = spec.lifts[squares[pick], lift]
            if s < 0:
                break
            for slot in range(len(squares)):
                image[slot] = spec.symmetries[s, squares[slot]]
            image[0], image[pick] = image[pick], image[0]
            sort_twins(image, spec)
            bases[found] = encode(mover, image, spec)
            images[found] = s
            found += 1
    return found


@njit(cache=True, inline="always")
def _listed(row, key, keyed, start, src, pred, found):
    """List predecessor ``key`` of ``row`` at ``found``, unless ``keyed`` (the key's
    un-moves may meet, :func:`~tablebase.generators.variants.keys.near_symmetric`) and
    it is among the row's listed from ``start`` on; return ``found`` after it."""
    if keyed:
        for listed in range(start, found):
            if pred[listed] == key:
                return found
    src[found] = row
    pred[found] = key
    return found + 1


@njit(cache=True, nogil=True)
def unmoves_kernel(keys, spec):
    """Every un-move of int64[n] keys (see the module docstring).

    :returns: ``(src, pred)``, int64[m] each, ``src`` ascending: the row of each key and
        the canonical key of a predecessor, each pair once, some of them no position.
    """
    n = len(keys)
    count = len(spec.pieces)
    src = np.empty(n * 32 + 9 * MOST_MOVES, np.int64)
    pred = np.empty(len(src), np.int64)
    scratch = np.empty((5, count), np.int64)
    targets = np.empty(32, np.int64)
    double_allowed = np.empty(8, np.bool_)
    candidates_scratch = np.empty((2, 2 * count), np.int64)  # _image_bases: keys and symmetries
    reach = np.empty(count, np.uint64)  # what each piece of the mover attacks
    lead_bases = np.empty(len(spec.symmetries), np.int64)  # lead_key: each symmetry's key of the other pieces
    row = found = 0
    while row < n:  # each round stops where the output arrays have no room for one more key
        if found + 9 * MOST_MOVES > len(src):
            src = grown(src, found)
            pred = grown(pred, found)
        row, found = _unmove_rows(keys, row, spec, src, pred, found, scratch, targets, double_allowed, candidates_scratch, reach, lead_bases)
    return src[:found], pred[:found]  # views: a copy would cost more than the room left over


@njit(cache=True, nogil=True, _nrt=False)
def _unmove_rows(keys, row, spec, src, pred, found, scratch, targets, double_allowed, candidates_scratch, reach, lead_bases):
    """:func:`unmoves_kernel`'s loop from ``row`` on, until ``src`` and ``pred`` have no
    room for one more key's un-moves: returns ``(row reached, found)``. Compiled without
    numba's reference counting (``_nrt=False``; it allocates nothing). Where the lead
    stays and no symmetry but the identity brings it into the region
    (:func:`~tablebase.generators.variants.kernels.plain_lead`), a predecessor's key is its
    own placement's, its twins sorted (:func:`~tablebase.generators.variants.kernels.moved_key`);
    else a lone piece's move changes one digit of each image the canonical key is the
    least of (:func:`_image_bases`). A lead without twins, in a layout without a colour
    flip, takes the other pieces' digits under each symmetry from :func:`lead_key`."""
    n = len(keys)
    count = len(spec.pieces)
    squares, image, flipped, work = scratch[0], scratch[1], scratch[2], scratch[3]
    bases, images = candidates_scratch[0], candidates_scratch[1]
    atomic = spec.rules == ATOMIC
    strides = scratch[4]  # each slot's digit in a key: 2 * regions * 64 ** (slot - 1) from slot 1 on
    strides[0] = 2
    for slot in range(1, count):
        strides[slot] = 2 * len(spec.region) if slot == 1 else strides[slot - 1] * 64
    while row < n and found + 9 * MOST_MOVES <= len(src):
        stm = decode(keys[row], spec, squares)
        ep_file = ep_file_of(keys[row], spec)
        mover = 1 - stm
        start = found
        base = (keys[row] if ep_file < 0 else keys[row] % spec.placements) - stm + mover  # no en passant right, the mover to move
        occupied = occupancy_bits(squares)
        plain = plain_lead(squares, spec)
        candidates = -1  # the images of _image_bases, found when first needed
        for s in range(len(lead_bases)):
            lead_bases[s] = -1
        pushed_files = 0  # atomic: the files of the side to move's pawns that may just have been pushed two squares
        pawn_moved = False  # whether the mover has a pawn to un-push
        for slot in range(count):
            if spec.pieces[slot] == PAWN:
                pawn_moved |= spec.colours[slot] == mover
                if atomic and spec.colours[slot] == stm and squares[slot] >> 3 == (3 if stm == 0 else 4):
                    pushed_files |= 1 << (squares[slot] & 7)
        for file in range(8 if pawn_moved else 0):
            double_allowed[file] = en_passant_takers(squares, stm, spec, file, work) == 0
        keyed = near_symmetric(squares, mover, spec)
        theirs = np.uint64(0)
        for slot in range(count):
            if spec.colours[slot] != mover:
                theirs |= BIT[squares[slot]]
            else:
                reach[slot] = attack_bits(spec.pieces[slot], mover, squares[slot], squares)
        for slot in range(count):
            if spec.colours[slot] != mover:
                continue
            origin = squares[slot]
            fast = plain and slot >= spec.group_end[0]
            lead = slot == 0 and spec.group_end[0] == 1 and len(spec.flip) == 0
            alone = slot >= spec.group_end[0] and spec.group_end[slot] == slot + 1 and spec.group_end[slot - 1] != slot + 1
            if alone and not plain and candidates < 0:
                candidates = _image_bases(mover, squares, spec, image, bases, images)
            alone &= plain or candidates > 0
            allowed, check = ANYWHERE, not atomic  # a pawn's few origins are checked one by one
            if not atomic and spec.pieces[slot] != PAWN:
                allowed, check = _capture_free(squares, slot, mover, spec, theirs, reach), False
            for j in range(_origins(squares, slot, mover, ep_file, double_allowed, occupied, allowed, reach[slot], spec, targets)):
                squares[slot] = targets[j]
                if check and can_capture(squares, mover, spec):
                    squares[slot] = origin
                    continue
                if alone and plain:  # the key's own placement, one square changed: its digit changes alone
                    key = base + (targets[j] - origin) * strides[slot]
                elif alone:  # so in each image's key: the least of them
                    key = NO_KEY
                    for c in range(candidates):
                        image_of = spec.symmetries[images[c]]
                        moved = bases[c] + (image_of[targets[j]] - image_of[origin]) * strides[slot]
                        key = moved if key < 0 else min(key, moved)
                elif fast:
                    key = moved_key(mover, squares, slot, spec, image)
                elif lead:
                    key = lead_key(mover, squares, targets[j], spec, image, lead_bases)
                else:
                    key = canonical_key(mover, squares, spec, image, flipped, -1)
                found = _listed(row, key, keyed, start, src, pred, found)
                for file in range(8 if pushed_files else 0):  # the predecessor right after a double push of the other side
                    if pushed_files >> file & 1:
                        found = _listed(row, canonical_key(mover, squares, spec, image, flipped, file), keyed, start, src, pred, found)
                squares[slot] = origin
        row += 1
    return row, found
