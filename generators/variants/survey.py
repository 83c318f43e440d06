"""What the retrograde survey needs of a batch of a chess variant's keys, in one compiled
pass (numba ``@njit``): legality, terminal values, the distinct successors within the
ending counted, and the moves that leave it (:func:`survey_kernel`).

The successors' keys are computed only for a position some symmetry nearly maps onto
itself (:func:`~tablebase.generators.variants.keys.near_symmetric`), where two moves may meet in one canonical key, and
in a pawn ending's DTZ pass over one progress level, where a pawn's push leads to
another; every other position's moves within the ending are distinct and only counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, NOT_TERMINAL
from tablebase.generators.chess.buffers import grown
from tablebase.generators.chess.survey import count_or_cross
from tablebase.generators.variants.kernels import (
    ended_value,
    exit_code,
    legal_kernel,
    pushed_file,
)
from tablebase.generators.variants.keys import (
    canonical_key,
    decode,
    ep_file_of,
    near_symmetric,
)
from tablebase.generators.variants.rules import (
    MOST_MOVES,
    NO_PROMOTION,
    position_moves,
)


@njit(cache=True, nogil=True)
def survey_kernel(keys, spec, levels, block, level):
    """The survey of int64[n] keys of a variant's index space in one pass: which are
    positions (:func:`~tablebase.generators.variants.kernels.legal_kernel`), the
    terminal values of those (as :func:`~tablebase.generators.variants.kernels.expand_kernel`'s),
    their distinct successors within the ending counted, and their moves out of it.

    A move within the ending to a key whose aligned block of ``block`` keys has another
    level than ``level`` (``levels`` int64[blocks]; a pawn's push in a DTZ pass over one
    progress level) is listed, each distinct successor once, not counted; pass
    ``levels`` int64[1] of ``level`` and ``block`` beyond the index space to count every
    move (then only a nearly symmetric position's moves are keyed).

    :returns: ``(legal, terminal, moves, cross_row, cross_key, exit_row, exit_code,
        exit_squares)``: bool[n], int8[n] (read where legal), int64[n] distinct
        successors at ``level`` (0 where illegal or terminal), int64[c] each the rows
        (ascending) and keys of the moves to other levels, and as ``expand_kernel``'s
        exits, rows numbering ``keys``.
    """
    n = len(keys)
    count = len(spec.pieces)
    legal = legal_kernel(keys, spec)
    terminal = np.full(n, DRAW, np.int8)
    counted = np.zeros(n, np.int64)
    exit_row = np.empty(n // 2 + MOST_MOVES, np.int64)
    exit_codes = np.empty(len(exit_row), np.int64)
    exit_squares = np.empty((len(exit_row), count), np.int64)
    cross_row = np.empty(n // 4 + MOST_MOVES, np.int64)
    cross_key = np.empty(len(cross_row), np.int64)
    scratch = np.empty((4, count), np.int64)
    targets = np.empty(32, np.int64)
    moved = np.empty((MOST_MOVES, 2), np.int64)
    after = np.empty((MOST_MOVES, count), np.int64)
    promoted = np.empty(MOST_MOVES, np.int64)
    capture = np.empty(MOST_MOVES, np.bool_)
    slots = np.zeros(256, np.int64)
    stamps = np.full(256, -1, np.int64)
    row = crossing = exits = 0
    while row < n:  # each round stops where the arrays have no room for one more position
        if exits + MOST_MOVES > len(exit_row):
            exit_row = grown(exit_row, exits)
            exit_codes = grown(exit_codes, exits)
            exit_squares = grown(exit_squares, exits)
        if crossing + MOST_MOVES > len(cross_row):
            cross_row = grown(cross_row, crossing)
            cross_key = grown(cross_key, crossing)
        row, crossing, exits = _survey_rows(
            keys, legal, row, spec, levels, block, level, terminal, counted, cross_row, cross_key,
            exit_row, exit_codes, exit_squares, scratch, targets, moved, after, promoted, capture, slots, stamps, crossing, exits,
        )
    return (
        legal, terminal, counted, cross_row[:crossing].copy(), cross_key[:crossing].copy(),
        exit_row[:exits].copy(), exit_codes[:exits].copy(), exit_squares[:exits].copy(),
    )  # fmt: skip


@njit(cache=True, nogil=True, _nrt=False)
def _survey_rows(
    keys, legal, row, spec, levels, block, level, terminal, counted, cross_row, cross_key,
    exit_row, exit_codes, exit_squares, scratch, targets, moved, after, promoted, capture, slots, stamps, crossing, exits,
):
    """:func:`survey_kernel`'s loop from ``row`` on, until the exit or crossing arrays
    have no room for one more position: returns ``(row reached, crossing, exits)``.
    Compiled without numba's reference counting (``_nrt=False``; it allocates nothing),
    as standard chess's survey loop (:mod:`tablebase.generators.chess.survey`)."""
    n = len(keys)
    squares, image, flipped, work = scratch[0], scratch[1], scratch[2], scratch[3]
    split = len(levels) > 1  # every move keyed: its level is its key's
    while row < n and exits + MOST_MOVES <= len(exit_row) and crossing + MOST_MOVES <= len(cross_row):
        if not legal[row]:
            row += 1
            continue
        stm = decode(keys[row], spec, squares)
        keyed = split or near_symmetric(squares, stm, spec)
        found, quiet = position_moves(squares, stm, spec, ep_file_of(keys[row], spec), targets, work, moved, after, promoted, capture, not keyed)
        if found == 0 and quiet == 0:
            terminal[row] = ended_value(squares, stm, spec)
            row += 1
            continue
        terminal[row] = NOT_TERMINAL
        counted[row] = quiet
        for m in range(found):
            if capture[m] or promoted[m] != NO_PROMOTION:
                exit_row[exits] = row
                exit_codes[exits] = exit_code(after[m], moved[m, 0], promoted[m])
                for s in range(len(squares)):
                    exit_squares[exits, s] = after[m, s]
                exits += 1
                continue
            if not keyed:
                counted[row] += 1
                continue
            ep_file = pushed_file(squares, stm, spec, moved[m, 0], moved[m, 1], after[m], work)
            key = canonical_key(1 - stm, after[m], spec, image, flipped, ep_file)
            crossing = count_or_cross(key, row, slots, stamps, split, levels, block, level, counted, cross_row, cross_key, crossing)
        row += 1
    return row, crossing, exits
