"""The batch kernels of a chess variant's ending (numba ``@njit``, releasing the GIL):
which keys are positions, every move of a batch of keys, and the keys' progress.

A move that captures or promotes leaves the ending; it is given as an *exit*: the squares
after it and a code of what changed (:func:`exit_code`), which
:mod:`tablebase.generators.variants.exits` turns into the ending and key it leads to.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL, SUCCESSOR_LOST, SUCCESSOR_OTHER, SUCCESSOR_WON, WIN
from tablebase.generators.chess.attacks import occupancy_bits, piece_targets
from tablebase.generators.chess.buffers import grown
from tablebase.generators.chess.spec import PAWN
from tablebase.generators.chess.tables import BIT, OFF
from tablebase.generators.variants.keys import (
    canonical_key,
    decode,
    encode,
    ep_file_of,
    is_canonical,
    lead_key,
    sort_run,
)
from tablebase.generators.variants.layout import ATOMIC
from tablebase.generators.variants.rules import (
    MOST_MOVES,
    NO_PROMOTION,
    attacked_king,
    can_capture,
    en_passant_takers,
    position_moves,
)


@njit(cache=True, inline="always")
def exit_code(after, slot, promotion):
    """The code of a move that leaves the ending: the slots gone (a bit each), and where
    it promotes, the slot and its new piece: ``(gone * 8 + slot) * 8 + promotion + 1``
    (slot 0 for no promotion). Moves with one code lead into one ending, the same slots
    mapped onto its slots."""
    gone = 0
    for s in range(len(after)):
        if after[s] == OFF:
            gone |= 1 << s
    if promotion == NO_PROMOTION:
        slot = 0
    return (gone * 8 + slot) * 8 + promotion + 1


@njit(cache=True, inline="always")
def _twins_ascending(squares, spec):
    """Whether each run of twins stands in rising order of square, as in every canonical
    key (the lead, slot 0, aside: the rest of its run follows it in order)."""
    for slot in range(2, len(squares)):
        if spec.group_end[slot - 1] == spec.group_end[slot] and squares[slot - 1] >= squares[slot]:
            return False
    return True


@njit(cache=True, nogil=True)
def legal_kernel(keys, spec):
    """bool[n]: which int64[n] keys are canonical keys of legal positions: no two pieces
    on a square, no pawn on the first or last rank, in atomic the side not to move not in
    check, a key with an en passant right a pawn just pushed two squares there (the two
    squares behind it empty) that can be taken so, and the key canonical
    (:func:`~tablebase.generators.variants.keys.is_canonical`)."""
    count = len(spec.pieces)
    ok = np.zeros(len(keys), np.bool_)
    _legal_rows(keys, spec, ok, np.empty((4, count), np.int64))
    return ok


@njit(cache=True, nogil=True, _nrt=False)
def _legal_rows(keys, spec, ok, scratch):
    """:func:`legal_kernel`'s loop into bool[n] ``ok``, compiled without numba's
    reference counting (``_nrt=False``; it allocates nothing, as the survey's loop)."""
    count = len(spec.pieces)
    squares, work, image, flipped = scratch[0], scratch[1], scratch[2], scratch[3]
    for row in range(len(keys)):
        stm = decode(keys[row], spec, squares)
        if not _twins_ascending(squares, spec):
            continue  # not canonical, whatever else: the quick test first
        bits = np.uint64(0)
        clash = False
        for slot in range(count):
            if (bits & BIT[squares[slot]]) != 0 or (spec.pieces[slot] == PAWN and (squares[slot] >> 3) % 7 == 0):
                clash = True
            bits |= BIT[squares[slot]]
        if clash or (spec.rules == ATOMIC and attacked_king(squares, spec, 1 - stm)):
            continue
        ep_file = ep_file_of(keys[row], spec)
        if ep_file >= 0:
            behind = (2 if stm == 1 else 5) * 8 + ep_file  # the square the pawn passed
            start = behind + (-8 if stm == 1 else 8)
            if (bits & (BIT[behind] | BIT[start])) != 0 or en_passant_takers(squares, stm, spec, ep_file, work) == 0:
                continue
        ok[row] = plain_lead(squares, spec) or is_canonical(keys[row], stm, squares, spec, image, flipped, ep_file)


@njit(cache=True, inline="always")
def plain_lead(squares, spec):
    """Whether the identity alone brings the lead into its region, the lead has no twin
    and the layout no colour flip: then a move of another piece keeps the canonical form
    but for the order of its twins (:func:`moved_key`)."""
    return spec.group_end[0] == 1 and spec.lifts[squares[0], 1] < 0 and len(spec.flip) == 0


@njit(cache=True, inline="always")
def moved_key(stm, after, slot, spec, image):
    """The canonical key of ``after`` (int64[slots]) where :func:`plain_lead` held before
    ``slot``, not the lead, moved: its run of twins sorted again; ``image`` scratch."""
    for s in range(len(after)):
        image[s] = after[s]
    first = slot
    while first > 0 and spec.group_end[first - 1] == spec.group_end[slot]:
        first -= 1
    sort_run(image, first, spec.group_end[slot])
    return encode(stm, image, spec)


@njit(cache=True, inline="always")
def ended_value(squares, stm, spec):
    """The value of a position without a legal move for its side to move: atomic, a loss
    in check and a draw else; antichess, a win."""
    if spec.rules != ATOMIC:
        return WIN
    return LOSS if attacked_king(squares, spec, stm) else DRAW


@njit(cache=True, inline="always")
def pushed_file(squares, stm, spec, slot, target, after, work):
    """The en passant file the move of ``slot`` to ``target`` gives the other side (a
    pawn's double push it can take so, ``after`` the squares after it), or -1."""
    if spec.pieces[slot] == PAWN and abs(target - squares[slot]) == 16 and en_passant_takers(after, 1 - stm, spec, target & 7, work):
        return target & 7
    return -1


@njit(cache=True, nogil=True)
def expand_kernel(keys, spec):
    """Every legal move of int64[n] keys (legal positions).

    :returns: ``(terminal, src, dst, exit_row, exit_code, exit_squares)``: int8[n]
        terminal values (for the side to move: atomic, a loss when checkmated and a draw
        when stalemated; antichess, a win without a legal move), NOT_TERMINAL for the
        others; int64[m] the rows of the moves within the ending and their canonical
        keys; the moves that leave it, int64[e] rows, int64[e] :func:`exit_code` and
        int64[e, slots] the squares after each. Rows number ``keys``.
    """
    n = len(keys)
    count = len(spec.pieces)
    src = np.empty(n * 16 + MOST_MOVES, np.int64)
    dst = np.empty(len(src), np.int64)
    exit_row = np.empty(n * 2 + MOST_MOVES, np.int64)
    exit_codes = np.empty(len(exit_row), np.int64)
    exit_squares = np.empty((len(exit_row), count), np.int64)
    terminal = np.empty(n, np.int8)
    squares = np.empty(count, np.int64)
    image = np.empty(count, np.int64)
    flipped = np.empty(count, np.int64)
    targets = np.empty(32, np.int64)
    work = np.empty(count, np.int64)
    moved = np.empty((MOST_MOVES, 2), np.int64)
    after = np.empty((MOST_MOVES, count), np.int64)
    promoted = np.empty(MOST_MOVES, np.int64)
    capture = np.empty(MOST_MOVES, np.bool_)
    moves = exits = 0
    for row in range(n):
        stm = decode(keys[row], spec, squares)
        found, _ = position_moves(squares, stm, spec, ep_file_of(keys[row], spec), targets, work, moved, after, promoted, capture)
        if found == 0:
            terminal[row] = ended_value(squares, stm, spec)
            continue
        terminal[row] = NOT_TERMINAL
        plain = plain_lead(squares, spec)
        if moves + found > len(src):
            src = grown(src, moves)
            dst = grown(dst, moves)
        if exits + found > len(exit_row):
            exit_row = grown(exit_row, exits)
            exit_codes = grown(exit_codes, exits)
            wider = np.empty((2 * len(exit_row), count), np.int64)
            wider[:exits] = exit_squares[:exits]
            exit_squares = wider
        for m in range(found):
            if capture[m] or promoted[m] != NO_PROMOTION:
                exit_row[exits] = row
                exit_codes[exits] = exit_code(after[m], moved[m, 0], promoted[m])
                exit_squares[exits] = after[m]
                exits += 1
            else:
                slot, target = moved[m, 0], moved[m, 1]
                ep_file = pushed_file(squares, stm, spec, slot, target, after[m], work)
                src[moves] = row
                if plain and slot >= spec.group_end[0] and ep_file < 0:
                    dst[moves] = moved_key(1 - stm, after[m], slot, spec, image)
                else:
                    dst[moves] = canonical_key(1 - stm, after[m], spec, image, flipped, ep_file)
                moves += 1
    return terminal, src[:moves].copy(), dst[:moves].copy(), exit_row[:exits].copy(), exit_codes[:exits].copy(), exit_squares[:exits].copy()


@njit(cache=True, nogil=True)
def move_verdicts_kernel(keys, spec, codes, classes):
    """int8[n]: what the moves within the ending of each of int64[n] keys (legal
    positions with a move) lead to, by the classes (int8[256]) of their successors'
    codes in uint8[size] ``codes``, as :meth:`~tablebase.core.game.Game.move_verdicts`
    gives it: the one-byte DTZ pass's check (:mod:`tablebase.solve.bytepass`). A
    position's moves are keyed until the first that settles it; its captures and
    promotions are not looked at."""
    count = len(spec.pieces)
    verdicts = np.empty(len(keys), np.int8)
    _move_verdicts_rows(
        keys, spec, codes, classes, (classes == SUCCESSOR_LOST).any(), verdicts, np.empty((4, count), np.int64),
        np.empty(32, np.int64), np.empty((MOST_MOVES, 2), np.int64), np.empty((MOST_MOVES, count), np.int64),
        np.empty(MOST_MOVES, np.int64), np.empty(MOST_MOVES, np.bool_), np.empty(len(spec.symmetries), np.int64),
    )  # fmt: skip
    return verdicts


@njit(cache=True, nogil=True, _nrt=False)
def _move_verdicts_rows(keys, spec, codes, classes, seeking, verdicts, scratch, targets, moved, after, promoted, capture, lead_bases):
    """:func:`move_verdicts_kernel`'s loop into int8[n] ``verdicts``, compiled without
    numba's reference counting (``_nrt=False``; it allocates nothing). The moves are
    looked at from the last slot's to the lead's, whose keys cost the most: a lead
    without twins, in a layout without a colour flip, is keyed by
    :func:`~tablebase.generators.variants.keys.lead_key`, the rest by
    :func:`moved_key` where :func:`plain_lead` holds, else by a canonical key."""
    squares, image, flipped, work = scratch[0], scratch[1], scratch[2], scratch[3]
    lone_lead = spec.group_end[0] == 1 and len(spec.flip) == 0
    for row in range(len(keys)):
        stm = decode(keys[row], spec, squares)
        plain = plain_lead(squares, spec)
        for s in range(len(lead_bases)):
            lead_bases[s] = -1
        if spec.rules != ATOMIC and not _has_pawn(squares, stm, spec):
            verdicts[row] = _antichess_verdict(squares, stm, spec, codes, classes, seeking, targets, image, flipped, lead_bases, plain, lone_lead)
            continue
        found, _ = position_moves(squares, stm, spec, ep_file_of(keys[row], spec), targets, work, moved, after, promoted, capture)
        verdicts[row] = SUCCESSOR_WON
        for m in range(found - 1, -1, -1):
            if capture[m] or promoted[m] != NO_PROMOTION:
                continue
            slot, target = moved[m, 0], moved[m, 1]
            ep_file = pushed_file(squares, stm, spec, slot, target, after[m], work)
            said = classes[codes[_successor_key(1 - stm, after[m], slot, target, ep_file, spec, image, flipped, lead_bases, plain, lone_lead)]]
            if said == SUCCESSOR_LOST:
                verdicts[row] = SUCCESSOR_LOST
                break
            if said == SUCCESSOR_OTHER:
                verdicts[row] = SUCCESSOR_OTHER
                if not seeking:
                    break


@njit(cache=True, inline="always")
def _successor_key(stm, after, slot, target, ep_file, spec, image, flipped, lead_bases, plain, lone_lead):
    """The canonical key, ``stm`` to move, of int64[slots] ``after``: ``slot`` moved to
    ``target`` without a capture, giving en passant on ``ep_file`` (or -1), by
    :func:`moved_key` where :func:`plain_lead` held before and the lead stays, by
    :func:`~tablebase.generators.variants.keys.lead_key` for a lead without twins in a
    layout without a colour flip (``lone_lead``; ``lead_bases`` its cache for the
    position), else by a canonical key."""
    if plain and slot >= spec.group_end[0] and ep_file < 0:
        return moved_key(stm, after, slot, spec, image)
    if slot == 0 and lone_lead and ep_file < 0:
        return lead_key(stm, after, target, spec, image, lead_bases)
    return canonical_key(stm, after, spec, image, flipped, ep_file)


@njit(cache=True, inline="always")
def _has_pawn(squares, side, spec):
    """Whether ``side`` has a pawn on int64[slots] ``squares``."""
    for slot in range(len(squares)):
        if spec.colours[slot] == side and spec.pieces[slot] == PAWN and squares[slot] != OFF:
            return True
    return False


@njit(cache=True, inline="always")
def _antichess_verdict(squares, stm, spec, codes, classes, seeking, targets, image, flipped, lead_bases, plain, lone_lead):
    """:func:`move_verdicts_kernel`'s verdict of an antichess position whose side to
    move has no pawn, its moves made one at a time on ``squares`` (put back after):
    where a piece can capture, no quiet move is legal and every move leaves the ending
    (won, as nothing within it is left); else its quiet moves, from the last slot's to
    the lead's, keyed as :func:`_move_verdicts_rows` keys them, until one settles it."""
    if can_capture(squares, stm, spec):
        return SUCCESSOR_WON
    occupied = occupancy_bits(squares)
    verdict = SUCCESSOR_WON
    for slot in range(len(squares) - 1, -1, -1):
        origin = squares[slot]
        if spec.colours[slot] != stm or origin == OFF:
            continue
        for j in range(piece_targets(spec.pieces[slot], stm, origin, occupied, np.uint64(0), targets)):
            target = targets[j]
            if (occupied & BIT[target]) != 0:
                continue
            squares[slot] = target
            key = _successor_key(1 - stm, squares, slot, target, -1, spec, image, flipped, lead_bases, plain, lone_lead)
            squares[slot] = origin
            said = classes[codes[key]]
            if said == SUCCESSOR_LOST:
                return SUCCESSOR_LOST
            if said == SUCCESSOR_OTHER:
                verdict = SUCCESSOR_OTHER
                if not seeking:
                    return verdict
    return verdict


@njit(cache=True, nogil=True)
def progress_kernel(keys, spec):
    """int64[n]: how far the pawns of int64[n] keys have advanced, in ranks from their
    first, both sides together: a pawn's push raises it, every other move within an
    ending keeps it."""
    count = len(spec.pieces)
    squares = np.empty(count, np.int64)
    progress = np.zeros(len(keys), np.int64)
    for row in range(len(keys)):
        decode(keys[row], spec, squares)
        for slot in range(count):
            if spec.pieces[slot] == PAWN:
                rank = squares[slot] >> 3
                progress[row] += rank if spec.colours[slot] == 0 else 7 - rank
    return progress
