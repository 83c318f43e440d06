"""Compiled chess move generation, one position at a time (numba ``@njit``): every legal
move of a batch of keys, as the canonical keys of the moves that stay in the tablebase and
the squares after each capture or promotion (which leave it).

The kernels loop over the keys of a batch, decode each key into its squares, generate
its moves with the tables of :mod:`tablebase.generators.chess.tables`, and write the
canonical key of each result into preallocated arrays (:mod:`.buffers`). They give
exactly what the tests' vectorized numpy generator gives (``tests/numpy_chess``, which
works on whole batches with large temporaries for every slot, direction and ray step;
tests/test_chess_kernels.py compares them), for every layout, the en passant bit of a
layout with one pawn on each side included (see :mod:`tablebase.generators.chess.layout`).

A layout is handed to the kernels as a :class:`~tablebase.generators.chess.spec.Spec`.
Compiled code is cached on disk (``cache=True``), so only the first run on a machine
pays the compile; the kernels release the GIL (``nogil=True``), so the engine runs
batches in threads. Moves are made and tested (the mover's king not attacked
afterwards); un-moves (:mod:`.unmoves`) are not tested (the engine ignores illegal
predecessors).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL, SUCCESSOR_LOST, SUCCESSOR_OTHER, SUCCESSOR_WON
from tablebase.generators.chess.attacks import (
    all_but_two_map,
    en_passant_target,
    in_check,
    occupancy_bits,
    piece_targets,
    pinned,
    popcount,
    reach_bits,
    slot_on,
    takes_en_passant,
)
from tablebase.generators.chess.buffers import exit_arrays, grown, room_for_exits
from tablebase.generators.chess.keys import canonical_placement_key, decode, en_passant_bit, moved_key, only_lift
from tablebase.generators.chess.spec import KING, PAWN
from tablebase.generators.chess.tables import BIT, LAST_RANK, OFF, SYMMETRIES


@njit(cache=True, inline="always")
def _near_symmetric(squares, stm, spec, group):
    """Whether a symmetry among the first ``group`` rows of :data:`~tablebase.generators.chess.tables.SYMMETRIES` (but the
    identity) maps all but at most two pieces of the side to move onto pieces of their
    kind, and every other piece (:func:`~tablebase.generators.chess.attacks.all_but_two_map`).
    Unless one does, no two moves lead to positions one symmetry apart, so the distinct
    successors are the moves themselves."""
    resting = squares[1 - stm]  # the king of the side not to move: alone of its kind, it must map onto itself
    for symmetry in range(1, group):
        if SYMMETRIES[symmetry, resting] == resting and all_but_two_map(squares, stm, spec.pieces, spec.colours, SYMMETRIES[symmetry]):
            return True
    return False


@njit(cache=True, inline="always")
def _symmetry_group(spec):
    """How many rows of :data:`~tablebase.generators.chess.tables.SYMMETRIES` a layout's positions are canonical under:
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
def position_moves(key, spec, events, en_passant, squares, image, targets, dst, exit_event, exit_squares, count_only=False, codes=None, classes=None, exists=False, seeking=False):
    """Every legal move of the legal position of ``key``, its squares decoded into
    int64[slots] ``squares`` (restored after each move; ``image`` and ``targets``
    scratch): the canonical keys of the moves within the tablebase into ``dst``
    (int64[most_moves]), with the ``ep`` bit of the position after a double push where
    the capture is legal; the captures and promotions (one per promotion piece, and an
    en passant capture where the key's ``ep`` bit is set) as their ``events`` numbers
    into ``exit_event`` (int64[4 * most_moves]) and the squares after each into
    ``exit_squares`` (a captured piece :data:`~tablebase.generators.chess.tables.OFF`).

    With ``count_only``, where no two moves can meet in one canonical successor
    (:func:`_near_symmetric`), the moves within the tablebase are only counted, not
    written (a piece that can neither expose its king nor promote counted by a popcount
    of the empty squares it reaches): the survey's count of distinct successors.

    With ``codes`` (uint8[size], a code a key) and ``classes`` (int8[256], what each code
    says of a move into it: :data:`~tablebase.core.values.SUCCESSOR_WON` and so on), it
    stops at the first move within the tablebase into a lost code, returning ``moves``
    -2, and (unless ``seeking`` lost codes) at the first into a code not won, returning
    -1; seeking, a move into a code neither won nor lost makes ``moves`` -1 at the end
    (the check of candidate losses and wins, :func:`move_verdicts_kernel`).

    With ``exists``, the moves within the tablebase are counted, never written, only
    until there is one: the pieces are taken from the last slot to the first, so the
    kings come last, and a king, a piece in check or a pinned one looks only at its
    captures and promotions once a move is counted. ``legal`` and ``moves`` are then
    nonzero exactly where the counts would be, the exits all there (the survey of the
    one-byte pass, which asks no more).

    :returns: ``(legal, moves, exits, check, keyed)``: how many legal moves, how many of
        them within the tablebase (written to ``dst`` where ``keyed``) and written to
        the exits, whether the side to move is in check, and whether the moves within
        the tablebase were written (always, without ``count_only``).
    """
    count = len(squares)
    stm = decode(key, spec, squares)
    simple = only_lift(spec, squares[0])
    ep = en_passant_bit(key, spec, en_passant)
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
    other = False  # seeking: a move into a code neither won nor lost
    check = in_check(squares, occupied, stm, spec)
    keyed = not exists and (not count_only or _near_symmetric(squares, stm, spec, _symmetry_group(spec)))
    for index in range(count):
        slot = count - 1 - index if exists else index
        if spec.colours[slot] != stm:
            continue
        piece = spec.pieces[slot]
        exposed = check or piece == KING or pinned(squares, occupied, slot, spec)
        if not keyed and not exposed and piece != PAWN:
            reach = reach_bits(piece, squares[slot], squares)
            quiet = popcount(reach & ~occupied)
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
            if exists and moves and (theirs & BIT[target]) == 0 and not (piece == PAWN and LAST_RANK[stm, target]):
                continue  # a quiet move, and one is counted already
            captured = -1
            if (theirs & BIT[target]) != 0:
                captured = slot_on(squares, target, slot)
                squares[captured] = OFF
            squares[slot] = target  # made here, taken back below
            attacked = exposed and in_check(squares, (occupied & ~BIT[origin]) | BIT[target], stm, spec)
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
                    key = moved_key(placed, slot, origin, target, squares, spec, image) if simple else -1
                    dst[moves] = key if key >= 0 else canonical_placement_key(1 - stm, squares, spec, image)
                    if en_passant and piece == PAWN and abs(target - origin) == 16:
                        after = (occupied & ~BIT[origin]) | BIT[target]
                        if takes_en_passant(1 - stm, squares, after, spec):
                            dst[moves] += 2 * spec.placements
                    if codes is not None:
                        said = classes[codes[dst[moves]]]
                        if said == SUCCESSOR_LOST or (said == SUCCESSOR_OTHER and not seeking):
                            squares[slot] = origin
                            return legal, -2 if said == SUCCESSOR_LOST else -1, exits, check, keyed
                        other = other or said == SUCCESSOR_OTHER
                    moves += 1
            squares[slot] = origin
            if captured >= 0:
                squares[captured] = target
    if other:
        moves = -1
    if ep and takes_en_passant(stm, squares, occupied, spec):
        mine, taken = spec.pawns[stm], spec.pawns[1 - stm]
        origin, gone = squares[mine], squares[taken]
        squares[mine], squares[taken] = en_passant_target(stm, squares, spec), OFF
        legal += 1
        _take(mine, taken, 0, squares, events, exit_event, exit_squares, exits)
        exits += 1
        squares[mine], squares[taken] = origin, gone
    return legal, moves, exits, check, keyed


@njit(cache=True, nogil=True)
def generate_kernel(keys, spec, events, en_passant):
    """Every legal move of int64[n] keys (legal positions), by :func:`position_moves`.

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
    exit_row, exit_event, exit_squares = exit_arrays(n + 4 * most, count)
    terminal = np.empty(n, np.int8)
    squares = np.empty(count, np.int64)
    image = np.empty(count, np.int64)
    targets = np.empty(32, np.int64)
    row = moves = exits = live = 0
    while row < n:  # each round stops where an output array has no room left
        if moves + most > len(src):
            src = grown(src, moves)
            dst = grown(dst, moves)
        exit_row, exit_event, exit_squares = room_for_exits(exit_row, exit_event, exit_squares, exits, most)
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
    without reference counting, as :func:`~tablebase.generators.chess.survey._survey_rows`."""
    most = spec.most_moves
    while row < len(keys) and moves + most <= len(src) and exits + 4 * most <= len(exit_row):
        legal, found, left, check, _keyed = position_moves(
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
def move_verdicts_kernel(keys, spec, events, en_passant, codes, classes):
    """int8[n]: what the moves within the tablebase of each of int64[n] keys (legal
    positions with a move) lead to, by the classes (int8[256]) of their successors'
    codes in uint8[size] ``codes``, as :meth:`~tablebase.core.game.Game.move_verdicts`
    gives it; each position's moves generated until the first that settles it
    (:func:`position_moves`), none kept. Its captures and promotions are not looked at."""
    count = len(spec.pieces)
    most = spec.most_moves
    _row, exit_event, exit_squares = exit_arrays(4 * most, count)
    verdicts = np.empty(len(keys), np.int8)
    _move_verdicts_rows(
        keys, spec, events, en_passant, codes, classes, (classes == SUCCESSOR_LOST).any(), verdicts, np.empty(most, np.int64),
        exit_event, exit_squares, np.empty(count, np.int64), np.empty(count, np.int64), np.empty(32, np.int64),
    )  # fmt: skip
    return verdicts


@njit(cache=True, nogil=True, _nrt=False)
def _move_verdicts_rows(keys, spec, events, en_passant, codes, classes, seeking, verdicts, dst, exit_event, exit_squares, squares, image, targets):
    """:func:`move_verdicts_kernel`'s loop, into int8[n] ``verdicts``, compiled without
    reference counting (as :func:`~tablebase.generators.chess.survey._survey_rows`: with
    it, a check that ends at its first move took 237 ns a key, without it 59)."""
    for row in range(len(keys)):
        _legal, found, _left, _check, _keyed = position_moves(
            keys[row], spec, events, en_passant, squares, image, targets, dst, exit_event, exit_squares, False, codes, classes, False, seeking
        )
        verdicts[row] = SUCCESSOR_LOST if found == -2 else SUCCESSOR_OTHER if found == -1 else SUCCESSOR_WON
