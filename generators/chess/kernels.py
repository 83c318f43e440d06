"""Compiled chess move generation, one position at a time (numba ``@njit``).

The kernels loop over the keys of a batch, decode each key into its squares, generate
its moves or un-moves with the tables of :mod:`tablebase.generators.chess.tables`, and
write the canonical key of each result into preallocated arrays. They give exactly what
the tests' vectorized numpy generator gives (``tests/numpy_chess``, which works on whole
batches with large temporaries for every slot, direction and ray step;
tests/test_chess_kernels.py compares them), for every layout, the en
passant bit of a layout with one pawn on each side included (a key's ``ep`` part lies
above its placement, so a canonical key with it is the placement's plus
``2 * placements``; see :mod:`tablebase.generators.chess.layout`).

A layout is handed to the kernels as a :class:`Spec`: its slots' pieces and colours,
the white king's region, the symmetries that bring the white king into it
(``Layout.lifts``), the runs of identical pieces, and the colour flip. Compiled code is
cached on disk (``cache=True``), so only the first run on a machine pays the compile;
the kernels release the GIL (``nogil=True``), so the engine runs batches in threads.

Moves are made and tested (the mover's king not attacked afterwards); un-moves are not
tested (the engine ignores illegal predecessors).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL
from tablebase.generators.chess.layout import NO_KEY, Layout
from tablebase.generators.chess.tables import (
    BETWEEN,
    BISHOP_LINE,
    BIT,
    KING_ATTACKS,
    KING_TARGETS,
    KNIGHT_ATTACKS,
    KNIGHT_TARGETS,
    LAST_RANK,
    OFF,
    PAWN_ATTACKS,
    PAWN_CAPTURES,
    PAWN_DOUBLE_PUSHES,
    PAWN_PUSHES,
    RAYS,
    ROOK_LINE,
    SYMMETRIES,
)

KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = range(6)
"""Piece codes of :attr:`Spec.pieces`, in the order of ``"KQRBNP"``."""


_MOST_TARGETS = {"K": 8, "Q": 27, "R": 14, "B": 13, "N": 8, "P": 4}
"""The most moves one piece can have (a pawn: push, double push, two captures)."""


class Spec(NamedTuple):
    """A :class:`~tablebase.generators.chess.layout.Layout` as the kernels read it.

    :ivar pieces: int64[slots] piece codes (:data:`KING` ...); ``colours``: int64[slots].
    :ivar region: int64[R] the white king's squares; ``region_slot``: int64[64] the
        index of each square in it, or -1.
    :ivar lifts: int64[64, c] the symmetries (rows of
        :data:`~tablebase.generators.chess.tables.SYMMETRIES`) to try per white king square.
    :ivar twins: int64[t, 2] ``(first, end)`` slot ranges of identical pieces.
    :ivar flip: int64[slots] the slots of the colour-flipped position, or int64[0].
    :ivar placements: the number of keys per side to move.
    :ivar most_moves: int64[1] the most moves a position can have.
    :ivar strides: int64[slots] how much a key grows when the piece of a slot stands
        one square higher, for the slots whose moves change no other part of a
        canonical key (see :func:`_only_lift`); 0 for the others (the white king,
        identical pieces, and every slot of a material with the colour flip).
    :ivar pawns: int64[2] the pawn slot of each colour for a layout with the en passant
        bit (one pawn on each side), else -1 and -1.
    """

    pieces: np.ndarray
    colours: np.ndarray
    region: np.ndarray
    region_slot: np.ndarray
    lifts: np.ndarray
    twins: np.ndarray
    flip: np.ndarray
    placements: int
    most_moves: int
    strides: np.ndarray
    pawns: np.ndarray


def spec_of(layout: Layout) -> Spec:
    """The :class:`Spec` of a layout."""
    most = max(sum(_MOST_TARGETS[layout.types[s]] for s in layout.slots(colour)) for colour in (0, 1))
    twin_slots = {slot for first, end in layout.twins for slot in range(first, end)}
    strides = np.array(
        [
            0 if slot == 0 or slot in twin_slots or layout.colour_flip is not None else 2 * len(layout.region) * 64 ** (slot - 1)
            for slot in range(layout.count)
        ],
        dtype=np.int64,
    )
    return Spec(
        np.array(["KQRBNP".index(t) for t in layout.types], dtype=np.int64),
        layout.colours.astype(np.int64),
        layout.region.astype(np.int64),
        layout.region_slot.astype(np.int64),
        np.ascontiguousarray(layout.lifts, dtype=np.int64),
        np.array(layout.twins, dtype=np.int64).reshape(-1, 2),
        np.zeros(0, np.int64) if layout.colour_flip is None else layout.colour_flip.astype(np.int64),
        int(layout.placements),
        int(most),
        strides,
        np.array([next(s for s in layout.slots(c) if layout.types[s] == "P") for c in (0, 1)] if layout.en_passant else [-1, -1], dtype=np.int64),
    )


# ---- keys


@njit(cache=True, inline="always")
def _decode(key, spec, squares):
    """Fill int64[slots] ``squares`` from a key; return the side to move."""
    rest = (key >> 1) % spec.placements
    size = len(spec.region)
    squares[0] = spec.region[rest % size]
    rest //= size
    for slot in range(1, len(squares)):
        squares[slot] = rest & 63
        rest >>= 6
    return key & 1


@njit(cache=True, inline="always")
def _key_of(stm, ordered, spec):
    """The key of a placement, or NO_KEY; orders the twins of int64[slots] ``ordered``
    in place (larger squares first)."""
    count = len(ordered)
    for t in range(len(spec.twins)):
        first, end = spec.twins[t, 0], spec.twins[t, 1]
        for i in range(first + 1, end):  # insertion sort, descending
            value = ordered[i]
            j = i - 1
            while j >= first and ordered[j] < value:
                ordered[j + 1] = ordered[j]
                j -= 1
            ordered[j + 1] = value
    slot = spec.region_slot[ordered[0]]
    if slot < 0:
        return NO_KEY
    rest = 0
    for column in range(count - 1, 0, -1):
        rest = rest * 64 + ordered[column]
    return stm + 2 * (slot + len(spec.region) * rest)


@njit(cache=True, inline="always")
def canonical_placement_key(stm, squares, spec, image):
    """The canonical key of a placement (see :meth:`Layout.canonical_keys`); ``image``
    is int64[slots] scratch."""
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
def _only_lift(spec, white_king):
    """Whether a canonical position with the white king on ``white_king`` has no image
    but itself under the symmetries that keep the king in its region (no diagonal
    square of the a1-d1-d4 triangle). Then a move of a slot with a stride
    (:attr:`Spec.strides`) changes the canonical key by the stride alone, the side to
    move flipped."""
    return spec.lifts[white_king, 0] == spec.lifts[white_king, spec.lifts.shape[1] - 1]


@njit(cache=True, inline="always")
def _en_passant_bit(key, spec, en_passant):
    """The ``ep`` part of a key (0 or 1), for a layout with it (``en_passant``)."""
    if not en_passant:
        return 0
    return (key >> 1) // spec.placements


# ---- attacks


@njit(cache=True, inline="always")
def _attacks(piece, colour, origin, target, occupied):
    """Whether a piece on ``origin`` (:data:`OFF` for none) attacks ``target``."""
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
    """uint64: the bitboard of every piece (an :data:`OFF` square adds nothing)."""
    bits = np.uint64(0)
    for slot in range(len(squares)):
        bits |= BIT[squares[slot]]
    return bits


@njit(cache=True, inline="always")
def king_attacked(pieces, colours, squares, occupied, colour):
    """Whether the king of ``colour`` (slot ``colour``) is attacked by the other side,
    the slots holding int64[slots] ``pieces`` (a promoted pawn its new piece); a slot on
    :data:`OFF` (taken) attacks nothing."""
    target = squares[colour]
    for slot in range(len(squares)):
        if colours[slot] != colour and _attacks(pieces[slot], colours[slot], squares[slot], target, occupied):
            return True
    return False


@njit(cache=True, inline="always")
def _king_attacked(squares, occupied, colour, spec):
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
def _en_passant_target(stm, squares, spec):
    """Where the pawn of the side to move takes en passant the other side's pawn, taken
    to have just made a double push, or :data:`OFF` where it does not stand beside it
    (a layout with the en passant bit)."""
    target = PAWN_PUSHES[stm, squares[spec.pawns[1 - stm]]]
    if target == OFF or (PAWN_ATTACKS[stm, squares[spec.pawns[stm]]] & BIT[target]) == 0:
        return OFF
    return target


@njit(cache=True, inline="always")
def _takes_en_passant(stm, squares, occupied, spec):
    """Whether the side to move has a legal en passant capture, the other side's pawn
    taken to have just made a double push (as ``moves.has_en_passant``; a layout with the
    en passant bit); ``squares`` is changed and restored."""
    target = _en_passant_target(stm, squares, spec)
    if target == OFF:
        return False
    mine, theirs = spec.pawns[stm], spec.pawns[1 - stm]
    origin, taken = squares[mine], squares[theirs]
    squares[mine], squares[theirs] = target, OFF
    exposed = _king_attacked(squares, (occupied & ~BIT[origin] & ~BIT[taken]) | BIT[target], stm, spec)
    squares[mine], squares[theirs] = origin, taken
    return not exposed


@njit(cache=True, inline="always")
def _just_pushed(stm, squares, occupied, spec):
    """Whether the other side's pawn stands where a double push put it: its fourth rank,
    the two squares behind it empty (as ``moves.en_passant_ready``)."""
    square = squares[spec.pawns[1 - stm]]
    back = 8 if stm == 0 else -8
    if (square >> 3) != (4 if stm == 0 else 3):
        return False
    return (occupied & (BIT[square + back] | BIT[square + 2 * back])) == 0


# ---- moves


@njit(cache=True, inline="always")
def _grown(values, used):
    """``values`` (1-d or 2-d) in an array twice as long, its first ``used`` rows kept."""
    grown = np.empty((2 * len(values),) + values.shape[1:], values.dtype)
    grown[:used] = values[:used]
    return grown


@njit(cache=True, inline="always")
def _exit_arrays(rows, count):
    """Room for ``rows`` captures and promotions: their rows, event numbers (int64[rows]
    each) and squares after (int64[rows, count])."""
    return np.empty(rows, np.int64), np.empty(rows, np.int64), np.empty((rows, count), np.int64)


@njit(cache=True, inline="always")
def _room_for_exits(exit_row, exit_event, exit_squares, exits, most):
    """The exit arrays, grown (:func:`_grown`) where ``exits`` used rows leave no room
    for one more position's ``4 * most`` (every move a promotion to four pieces)."""
    if exits + 4 * most > len(exit_row):
        return _grown(exit_row, exits), _grown(exit_event, exits), _grown(exit_squares, exits)
    return exit_row, exit_event, exit_squares


@njit(cache=True, inline="always")
def _pinned(squares, occupied, slot, spec):
    """Whether the piece of ``slot`` stands alone between its king and an enemy slider
    that moves along their line (as ``moves.pinned``)."""
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
        found = _slide(piece, origin, occupied, out, found)[0]
    return found


@njit(cache=True, inline="always")
def _popcount(bits):
    """The number of set bits of a uint64 (SWAR, Hacker's Delight 5-1)."""
    bits = bits - ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555))
    bits = (bits & np.uint64(0x3333333333333333)) + ((bits >> np.uint64(2)) & np.uint64(0x3333333333333333))
    bits = (bits + (bits >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((bits * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _reach(piece, origin, occupied, scratch):
    """uint64: the squares a knight, bishop, rook or queen on ``origin`` attacks, its
    rays stopped by the first piece, whoever's (``scratch``: :func:`_slide`'s)."""
    if piece == KNIGHT:
        return KNIGHT_ATTACKS[origin]
    return _slide(piece, origin, occupied, scratch, 0)[1]


@njit(cache=True, inline="always")
def _slide(piece, origin, occupied, out, found):
    """The squares a bishop, rook or queen on ``origin`` moves to along its rays up to
    and including the first piece: written into ``out`` from ``found`` on; returns
    ``(found after, their bitboard)``."""
    bits = np.uint64(0)
    first = 4 if piece == BISHOP else 0
    last = 4 if piece == ROOK else 8
    for direction in range(first, last):
        for step in range(7):
            target = RAYS[origin, direction, step]
            if target == OFF:
                break
            out[found] = target
            found += 1
            bits |= BIT[target]
            if (occupied & BIT[target]) != 0:
                break
    return found, bits


@njit(cache=True, inline="always")
def _near_symmetric(squares, stm, spec, group):
    """Whether a symmetry among the first ``group`` rows of :data:`SYMMETRIES` (but the
    identity) maps every piece of the side not to move onto a piece of its kind and
    colour, and all but at most two of the side to move's. Unless one does, no two moves
    lead to positions one symmetry apart, so the distinct successors are the moves
    themselves: the moves that stay in the tablebase neither capture nor promote, so if
    symmetry s maps P with a piece moved from a to b onto P with a piece moved from c to
    d, every piece of P but the one on a has its image on a piece of its kind in P,
    except at most the one whose image is d, of the side to move as the piece moved to d."""
    count = len(squares)
    for symmetry in range(1, group):
        strays = 0
        for slot in range(count):
            image = SYMMETRIES[symmetry, squares[slot]]
            matched = False
            for other in range(count):
                if squares[other] == image and spec.pieces[other] == spec.pieces[slot] and spec.colours[other] == spec.colours[slot]:
                    matched = True
            if not matched:
                strays += 1 if spec.colours[slot] == stm else 3
                if strays > 2:
                    break
        if strays <= 2:
            return True
    return False


@njit(cache=True, inline="always")
def _symmetry_group(spec):
    """How many rows of :data:`SYMMETRIES` a layout's positions are canonical under:
    all eight without pawns, the identity and the mirror of files with them."""
    for slot in range(len(spec.pieces)):
        if spec.pieces[slot] == PAWN:
            return 2
    return 8


@njit(cache=True, inline="always")
def _take(slot, captured, promotion, squares, events, exit_event, exit_squares, exits):
    """Record the exit of the move just made on ``squares`` (slot ``slot`` moved,
    ``captured`` taken or -1, promoted to ``promotion`` or 0) at row ``exits``."""
    exit_event[exits] = events[slot, captured + 1, promotion]
    for s in range(len(squares)):
        exit_squares[exits, s] = squares[s]


@njit(cache=True, inline="always")
def _position_moves(key, spec, events, en_passant, squares, image, targets, dst, exit_event, exit_squares, count_only=False):
    """Every legal move of the legal position of ``key``, its squares decoded into
    int64[slots] ``squares`` (restored after each move; ``image`` and ``targets``
    scratch): the canonical keys of the moves within the tablebase into ``dst``
    (int64[most_moves]), with the ``ep`` bit of the position after a double push where
    the capture is legal; the captures and promotions (one per promotion piece, and an
    en passant capture where the key's ``ep`` bit is set) as their ``events`` numbers
    into ``exit_event`` (int64[4 * most_moves]) and the squares after each into
    ``exit_squares`` (a captured piece :data:`OFF`).

    With ``count_only``, where no two moves can meet in one canonical successor
    (:func:`_near_symmetric`), the moves within the tablebase are only counted, not
    written (a piece that can neither expose its king nor promote counted by a popcount
    of the empty squares it reaches): the survey's count of distinct successors.

    :returns: ``(legal, moves, exits, check, keyed)``: how many legal moves, how many of
        them within the tablebase (written to ``dst`` where ``keyed``) and written to
        the exits, whether the side to move is in check, and whether the moves within
        the tablebase were written (always, without ``count_only``).
    """
    count = len(squares)
    stm = _decode(key, spec, squares)
    simple = _only_lift(spec, squares[0])
    ep = _en_passant_bit(key, spec, en_passant)
    placed = key - ep * 2 * spec.placements  # the key without ep
    occupied = occupancy_bits(squares)
    own = np.uint64(0)
    theirs = np.uint64(0)
    for slot in range(count):
        if spec.colours[slot] == stm:
            own |= BIT[squares[slot]]
        else:
            theirs |= BIT[squares[slot]]
    legal = 0
    moves = 0
    exits = 0
    check = _king_attacked(squares, occupied, stm, spec)
    keyed = not count_only or _near_symmetric(squares, stm, spec, _symmetry_group(spec))
    for slot in range(count):
        if spec.colours[slot] != stm:
            continue
        piece = spec.pieces[slot]
        exposed = check or piece == KING or _pinned(squares, occupied, slot, spec)
        if not keyed and not exposed and piece != PAWN:
            reach = _reach(piece, squares[slot], occupied, targets)
            quiet = _popcount(reach & ~occupied)
            legal += quiet
            moves += quiet
            origin = squares[slot]
            for captured in range(count):
                if spec.colours[captured] != stm and (reach & BIT[squares[captured]]) != 0:
                    target = squares[captured]
                    squares[slot], squares[captured] = target, OFF
                    _take(slot, captured, 0, squares, events, exit_event, exit_squares, exits)
                    squares[slot], squares[captured] = origin, target
                    exits += 1
                    legal += 1
            continue
        found = piece_targets(piece, stm, squares[slot], occupied, theirs, targets)
        origin = squares[slot]
        for j in range(found):
            target = targets[j]
            if (own & BIT[target]) != 0:
                continue
            captured = -1
            if (theirs & BIT[target]) != 0:
                captured = slot_on(squares, target, slot)
                squares[captured] = OFF
            squares[slot] = target  # made here, taken back below
            attacked = exposed and _king_attacked(squares, (occupied & ~BIT[origin]) | BIT[target], stm, spec)
            if not attacked:
                legal += 1
                promotes = piece == PAWN and LAST_RANK[stm, target]
                if captured >= 0 or promotes:
                    for promotion in range(1 if promotes else 0, 5 if promotes else 1):
                        _take(slot, captured, promotion, squares, events, exit_event, exit_squares, exits)
                        exits += 1
                elif not keyed:
                    moves += 1
                else:
                    if simple and spec.strides[slot] != 0:
                        dst[moves] = (placed ^ 1) + spec.strides[slot] * (target - origin)
                    else:
                        dst[moves] = canonical_placement_key(1 - stm, squares, spec, image)
                    if en_passant and piece == PAWN and abs(target - origin) == 16:
                        after = (occupied & ~BIT[origin]) | BIT[target]
                        if _takes_en_passant(1 - stm, squares, after, spec):
                            dst[moves] += 2 * spec.placements
                    moves += 1
            squares[slot] = origin
            if captured >= 0:
                squares[captured] = target
    if ep and _takes_en_passant(stm, squares, occupied, spec):
        mine, taken = spec.pawns[stm], spec.pawns[1 - stm]
        origin, gone = squares[mine], squares[taken]
        squares[mine], squares[taken] = _en_passant_target(stm, squares, spec), OFF
        legal += 1
        _take(mine, taken, 0, squares, events, exit_event, exit_squares, exits)
        exits += 1
        squares[mine], squares[taken] = origin, gone
    return legal, moves, exits, check, keyed


@njit(cache=True, nogil=True)
def generate_kernel(keys, spec, events, en_passant):
    """Every legal move of int64[n] keys (legal positions), by :func:`_position_moves`.

    :param events: int64[slots, slots + 1, 5] the number of each way to leave the
        tablebase, by moving slot, captured slot + 1 (0 for none) and promotion (0 for
        none, 1 to 4 for Q R B N).
    :param en_passant: whether the layout has the en passant bit (without it, none of
        the en passant tests run).
    :returns: ``(terminal, src, dst, exit_row, exit_event, exit_squares)``: int8[n]
        terminal values (LOSS when mated, DRAW for stalemate, else NOT_TERMINAL);
        int64[m] the moves within the tablebase (``src`` ascending, ``dst`` their
        canonical keys, one per move); and the
        captures and promotions, int64[e] rows ascending, their ``events`` numbers,
        int64[e, slots] the squares after the move. Rows (``src`` and the exits' rows)
        number the *live* keys, those with a legal move, in their order: the rows of
        ``keys`` where none is terminal.
    """
    n = len(keys)
    count = len(spec.pieces)
    most = spec.most_moves
    src = np.empty(n * 8 + most, np.int64)
    dst = np.empty(len(src), np.int64)
    exit_row, exit_event, exit_squares = _exit_arrays(n + 4 * most, count)
    terminal = np.empty(n, np.int8)
    squares = np.empty(count, np.int64)
    image = np.empty(count, np.int64)
    targets = np.empty(32, np.int64)
    row = moves = exits = live = 0
    while row < n:  # each round stops where an output array has no room left
        if moves + most > len(src):
            src = _grown(src, moves)
            dst = _grown(dst, moves)
        exit_row, exit_event, exit_squares = _room_for_exits(exit_row, exit_event, exit_squares, exits, most)
        row, moves, exits, live = _generate_rows(
            keys, row, spec, events, en_passant, terminal, src, dst, exit_row, exit_event, exit_squares, squares, image, targets, moves, exits, live
        )
    return (
        terminal,
        src[:moves].copy(),
        dst[:moves].copy(),
        exit_row[:exits].copy(),
        exit_event[:exits].copy(),
        exit_squares[:exits].copy(),
    )


@njit(cache=True, nogil=True, _nrt=False)
def _generate_rows(keys, row, spec, events, en_passant, terminal, src, dst, exit_row, exit_event, exit_squares, squares, image, targets, moves, exits, live):
    """:func:`generate_kernel`'s loop from ``row`` on, into its arrays, until they have no
    room for one more position: returns ``(row reached, moves, exits, live)``. Compiled
    without reference counting, as :func:`_survey_rows`."""
    most = spec.most_moves
    while row < len(keys) and moves + most <= len(src) and exits + 4 * most <= len(exit_row):
        legal, found, left, check, _keyed = _position_moves(
            keys[row], spec, events, en_passant, squares, image, targets, dst[moves:], exit_event[exits:], exit_squares[exits:]
        )
        src[moves : moves + found] = live
        exit_row[exits : exits + left] = live
        moves += found
        exits += left
        if legal:
            terminal[row] = NOT_TERMINAL
            live += 1
        else:
            terminal[row] = LOSS if check else DRAW
        row += 1
    return row, moves, exits, live


@njit(cache=True, nogil=True)
def survey_kernel(keys, spec, events, en_passant, levels, block, level):
    """What the retrograde survey needs of int64[n] keys of an index space, in one pass
    over them: which are legal (as :func:`legal_kernel`), the terminal values and moves
    of the legal ones (by :func:`_position_moves`), each move within the tablebase
    counted once per distinct successor (a small hash set per position: symmetric
    moves may meet in one canonical key).

    A move within the tablebase to a key whose aligned block of ``block`` keys has
    another level than ``level`` (``levels`` int64[blocks]; a chess pawn move of a DTZ
    pass over one progress level) is listed, not counted; pass ``levels`` int64[1] of
    ``level`` and ``block`` beyond the index space to count every move.

    :returns: ``(legal, terminal, moves, cross_row, cross_key, exit_row, exit_event,
        exit_squares)``: bool[n], int8[n] (as :func:`generate_kernel`'s, where legal),
        int64[n] the distinct successors counted (0 where illegal or terminal), the
        distinct moves to other levels (int64[c] rows of ``keys`` ascending and keys),
        and the captures and promotions (as :func:`generate_kernel`'s, rows numbering
        ``keys``).
    """
    n = len(keys)
    count = len(spec.pieces)
    most = spec.most_moves
    legal = _legal_keys(keys, spec, en_passant)
    terminal = np.full(n, DRAW, np.int8)
    counted = np.zeros(n, np.int64)
    cross_row = np.empty(n // 4 + most, np.int64)
    cross_key = np.empty(len(cross_row), np.int64)
    exit_row, exit_event, exit_squares = _exit_arrays(n + 4 * most, count)
    scratch = np.empty((3, count), np.int64)
    targets = np.empty(32, np.int64)
    dst = np.empty(most, np.int64)
    slots = np.zeros(256, np.int64)
    stamps = np.full(256, -1, np.int64)
    row = crossing = exits = 0
    while row < n:  # each round stops where an output array has no room left
        if crossing + most > len(cross_row):
            cross_row = _grown(cross_row, crossing)
            cross_key = _grown(cross_key, crossing)
        exit_row, exit_event, exit_squares = _room_for_exits(exit_row, exit_event, exit_squares, exits, most)
        row, crossing, exits = _survey_rows(
            keys, legal, row, spec, events, en_passant, levels, block, level,
            terminal, counted, cross_row, cross_key, exit_row, exit_event, exit_squares,
            scratch, targets, dst, slots, stamps, crossing, exits,
        )
    return (
        legal,
        terminal,
        counted,
        cross_row[:crossing].copy(),
        cross_key[:crossing].copy(),
        exit_row[:exits].copy(),
        exit_event[:exits].copy(),
        exit_squares[:exits].copy(),
    )


@njit(cache=True, nogil=True, _nrt=False)
def _survey_rows(
    keys, legal, row, spec, events, en_passant, levels, block, level,
    terminal, counted, cross_row, cross_key, exit_row, exit_event, exit_squares,
    scratch, targets, dst, slots, stamps, crossing, exits,
):
    """:func:`survey_kernel`'s loop from ``row`` on, into its arrays, until they have no
    room for one more position: returns ``(row reached, crossing, exits)``.

    Compiled without numba's reference counting (``_nrt=False``: it allocates nothing),
    which otherwise counts every array an inlined helper takes at every call, more than
    half the time of a position.
    """
    n = len(keys)
    most = spec.most_moves
    squares, image = scratch[0], scratch[1]
    split = len(levels) > 1  # else every move is counted, without a division each
    while row < n:
        if crossing + most > len(cross_row) or exits + 4 * most > len(exit_row):
            break
        if not legal[row]:
            row += 1
            continue
        moving, found, left, check, keyed = _position_moves(
            keys[row], spec, events, en_passant, squares, image, targets, dst, exit_event[exits:], exit_squares[exits:], not split
        )
        exit_row[exits : exits + left] = row
        exits += left
        terminal[row] = NOT_TERMINAL if moving else (LOSS if check else DRAW)
        if not keyed:
            counted[row] = found  # no two moves meet in one successor
            row += 1
            continue
        for j in range(found):
            key = dst[j]
            h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(56)
            while stamps[h] == row and slots[h] != key:
                h = (h + np.uint64(1)) & np.uint64(255)
            if stamps[h] == row:
                continue  # a successor met before
            stamps[h], slots[h] = row, key
            if split and levels[key // block] != level:
                cross_row[crossing] = row
                cross_key[crossing] = key
                crossing += 1
            else:
                counted[row] += 1
        row += 1
    return row, crossing, exits


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
    :func:`_survey_rows`)."""
    for row in rows:
        for j in range(len(order)):
            child[j] = squares[row, order[j]] ^ (56 * swapped)
        found[row] = canonical_placement_key((1 - stm[row]) ^ swapped, child, spec, image)


@njit(cache=True, nogil=True)
def unmoves_kernel(keys, spec, en_passant):
    """Every distinct un-move of int64[n] keys: the side not to move takes back a step,
    slide, knight jump, pawn push or double push onto empty squares. With the en passant
    bit (as ``unmoves.unmoves``): a key with ``ep`` set has only the double un-push of
    the pawn just pushed, one without it that un-push only where no en passant capture
    is legal, and every predecessor is listed with ``ep`` 0 and 1.

    :param en_passant: as :func:`generate_kernel` takes it.
    :returns: ``(src, pred)``, int64[m] each, ``src`` ascending: the canonical key of
        each predecessor, some of them illegal.
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
            src = _grown(src, found_all)
            pred = _grown(pred, found_all)
        row, found_all = _unmove_rows(keys, row, spec, en_passant, src, pred, found_all, squares, image, targets, unusual)
    return src[:found_all].copy(), pred[:found_all].copy()


@njit(cache=True, nogil=True, _nrt=False)
def _unmove_rows(keys, row, spec, en_passant, src, pred, found_all, squares, image, targets, unusual):
    """:func:`unmoves_kernel`'s loop from ``row`` on, into ``src`` and ``pred`` from
    ``found_all``, until they have no room for one more position: returns ``(row
    reached, found_all)``. Compiled without reference counting, as :func:`_survey_rows`."""
    n = len(keys)
    count = len(spec.pieces)
    most = spec.most_moves
    both = 2 if en_passant else 1
    while row < n and found_all + both * most <= len(src):
        stm = _decode(keys[row], spec, squares)
        simple = _only_lift(spec, squares[0])
        mover = 1 - stm
        occupied = occupancy_bits(squares)
        ep = _en_passant_bit(keys[row], spec, en_passant)
        placed = keys[row] - ep * 2 * spec.placements  # the key without ep
        double_allowed = not en_passant or ep == 1 or not _takes_en_passant(stm, squares, occupied, spec)
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
            stride = spec.strides[slot] if simple else 0
            for j in range(found):
                target = targets[j]
                if (occupied & BIT[target]) != 0:
                    continue
                if stride != 0:  # distinct from every other key by its stride alone
                    key = (placed ^ 1) + stride * (target - origin)
                    earlier = unusual[:listed]
                else:
                    squares[slot] = target
                    key = canonical_placement_key(mover, squares, spec, image)
                    squares[slot] = origin
                    earlier = pred[first:found_all]
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
                    if stride == 0:
                        unusual[listed] = key
                        listed += 1
        row += 1
    return row, found_all


@njit(cache=True, nogil=True)
def legal_kernel(keys, spec, en_passant):
    """bool[n]: which int64[n] keys are canonical keys of legal positions, by the rules
    of chess: no two pieces on a square, no pawn on the first or last rank, the kings
    apart, the side not to move not in check, a key canonical (a key with the ``ep`` bit
    needs a pawn just pushed that can legally be taken en passant); ``en_passant`` as
    :func:`generate_kernel` takes it."""
    return _legal_keys(keys, spec, en_passant)


@njit(cache=True, inline="always")
def _legal_keys(keys, spec, en_passant):
    """:func:`legal_kernel`'s loop."""
    count = len(spec.pieces)
    ok = np.zeros(len(keys), np.bool_)
    _legal_rows(keys, spec, en_passant, ok, np.empty(count, np.int64), np.empty(count, np.int64))
    return ok


@njit(cache=True, nogil=True, _nrt=False)
def _legal_rows(keys, spec, en_passant, ok, squares, image):
    """:func:`_legal_keys`'s loop, into bool[n] ``ok``, without reference counting (as
    :func:`_survey_rows`)."""
    count = len(squares)
    for row in range(len(keys)):
        stm = _decode(keys[row], spec, squares)
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
        if _king_attacked(squares, bits, 1 - stm, spec):
            continue
        ep = _en_passant_bit(keys[row], spec, en_passant)
        if ep and not (_just_pushed(stm, squares, bits, spec) and _takes_en_passant(stm, squares, bits, spec)):
            continue
        ok[row] = keys[row] == canonical_placement_key(stm, squares, spec, image) + ep * 2 * spec.placements
