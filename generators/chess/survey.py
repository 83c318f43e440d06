"""What the retrograde survey needs of a batch of keys, in one compiled pass (numba
``@njit``): legality, terminal values, the distinct successors of each position, the
moves to other levels, and the captures and promotions."""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL
from tablebase.generators.chess.buffers import exit_arrays, grown, room_for_exits
from tablebase.generators.chess.legality import legal_keys
from tablebase.generators.chess.moves import position_moves


@njit(cache=True, nogil=True)
def survey_kernel(keys, spec, events, en_passant, levels, block, level, distinct=True):
    """What the retrograde survey needs of int64[n] keys of an index space, in one pass
    over them: which are legal (as :func:`~tablebase.generators.chess.legality.legal_kernel`), the terminal values and moves
    of the legal ones (by :func:`~tablebase.generators.chess.moves.position_moves`), each move within the tablebase
    counted once per distinct successor (a small hash set per position: symmetric
    moves may meet in one canonical key).

    A move within the tablebase to a key whose aligned block of ``block`` keys has
    another level than ``level`` (``levels`` int64[blocks]; a chess pawn move of a DTZ
    pass over one progress level) is listed, not counted; pass ``levels`` int64[1] of
    ``level`` and ``block`` beyond the index space to count every move. With
    ``distinct`` False (and one level), ``moves`` is only nonzero where a position has a
    move within the tablebase (:func:`~tablebase.generators.chess.moves.position_moves`'
    ``exists``), which is cheaper.

    :returns: ``(legal, terminal, moves, cross_row, cross_key, exit_row, exit_event,
        exit_squares)``: bool[n], int8[n] (as :func:`~tablebase.generators.chess.moves.generate_kernel`'s, where legal),
        int64[n] the distinct successors counted (0 where illegal or terminal), the
        distinct moves to other levels (int64[c] rows of ``keys`` ascending and keys),
        and the captures and promotions (as :func:`~tablebase.generators.chess.moves.generate_kernel`'s, rows numbering
        ``keys``).
    """
    n = len(keys)
    count = len(spec.pieces)
    most = spec.most_moves
    legal = legal_keys(keys, spec, en_passant)
    terminal = np.full(n, DRAW, np.int8)
    counted = np.zeros(n, np.int64)
    cross_row = np.empty(n // 4 + most, np.int64)
    cross_key = np.empty(len(cross_row), np.int64)
    exit_row, exit_event, exit_squares = exit_arrays(n + 4 * most, count)
    scratch = np.empty((3, count), np.int64)
    targets = np.empty(32, np.int64)
    dst = np.empty(most, np.int64)
    slots = np.zeros(256, np.int64)
    stamps = np.full(256, -1, np.int64)
    row = crossing = exits = 0
    while row < n:  # each round stops where an output array has no room left
        if crossing + most > len(cross_row):
            cross_row = grown(cross_row, crossing)
            cross_key = grown(cross_key, crossing)
        exit_row, exit_event, exit_squares = room_for_exits(exit_row, exit_event, exit_squares, exits, most)
        row, crossing, exits = _survey_rows(
            keys, legal, row, spec, events, en_passant, levels, block, level,
            terminal, counted, cross_row, cross_key, exit_row, exit_event, exit_squares,
            scratch, targets, dst, slots, stamps, crossing, exits, not distinct,
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
    scratch, targets, dst, slots, stamps, crossing, exits, exists,
):
    """:func:`survey_kernel`'s loop from ``row`` on, into its arrays, until they have no
    room for one more position: returns ``(row reached, crossing, exits)``.

    Compiled without numba's reference counting (``_nrt=False``: it allocates nothing),
    which otherwise counts every array an inlined helper takes at every call, most of
    the time of a position (benchmarks/RESULTS.md).
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
        moving, found, left, check, keyed = position_moves(
            keys[row], spec, events, en_passant, squares, image, targets, dst, exit_event[exits:], exit_squares[exits:], not split, None, None, exists
        )
        exit_row[exits : exits + left] = row
        exits += left
        terminal[row] = NOT_TERMINAL if moving else (LOSS if check else DRAW)
        if not keyed:
            counted[row] = found  # no two moves meet in one successor
            row += 1
            continue
        for j in range(found):
            crossing = count_or_cross(dst[j], row, slots, stamps, split, levels, block, level, counted, cross_row, cross_key, crossing)
        row += 1
    return row, crossing, exits


@njit(cache=True, inline="always")
def count_or_cross(key, row, slots, stamps, split, levels, block, level, counted, cross_row, cross_key, crossing):
    """Take successor ``key`` of position ``row`` once: counted in ``counted[row]`` where
    it stays at ``level`` (or without ``split``), else listed at ``crossing`` in
    ``cross_row`` and ``cross_key``; a key met before for the row is passed over (an open
    table of 256 entries, int64[256] ``slots`` and ``stamps``, an entry stamped with the
    row that set it). Returns ``crossing`` after it (the survey loops of standard chess
    and of the variants)."""
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(56)
    while stamps[h] == row and slots[h] != key:
        h = (h + np.uint64(1)) & np.uint64(255)
    if stamps[h] == row:
        return crossing  # a successor met before
    stamps[h], slots[h] = row, key
    if split and levels[key // block] != level:
        cross_row[crossing] = row
        cross_key[crossing] = key
        return crossing + 1
    counted[row] += 1
    return crossing
