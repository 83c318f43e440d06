"""The compiled loops of the one-byte DTZ pass (:mod:`tablebase.solve.bytepass.solver`):
the first codes from a survey, the search of a level's positions, the marks of their
predecessors, the check of candidate losses, and the slide of the window.

The positions are grouped in *chunks* of ``1 << shift`` keys, and each step keeps one
uint64 of flags a chunk: bit ``level % 64`` where the chunk holds a position of that
level still to be followed (the predecessors of a loss, or of a win), bit 0 of the
candidates' flags where it holds a candidate. A step clears the flags of the chunks it
reads and sets the flags of another step, so a step's threads, which read disjoint
ranges of chunks, never clear what another sets; two threads that set one bit at once
both write the same word with the same bit, or their own chunks' words.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, SUCCESSOR_LOST, SUCCESSOR_OTHER, SUCCESSOR_WON, WIN
from tablebase.solve.bytepass.codes import (
    ABSENT,
    CAPT_CLOSS,
    CAPT_CWIN,
    CAPT_DRAW,
    CHANGED,
    DRAWN,
    LOSS0,
    LOSS_OLD,
    UNKNOWN,
    WIN0,
    WIN_OLD,
)

NO_ZEROING = -3
"""The best zeroing move's value of a position that has none."""


@njit(cache=True, nogil=True)
def initial_codes(legal, terminal, moves, exit_src, exit_category, codes, win0, win1, loss0, loss1):
    """The codes of ``n`` keys before the first ply, into uint8[n] ``codes``, from their
    survey: bool[n] ``legal``, int8[n] ``terminal`` (-1 a loss such as checkmate, 0 a
    draw such as stalemate, 1 a win such as antichess's side without a move, else not
    terminal), int64[n] ``moves`` (nonzero where a move stays in the tablebase), and the
    zeroing moves, int64[e] ``exit_src`` (row of each) and int8[e] ``exit_category``
    (the successor's category for its side to move, -2..2). ``win0``, ``win1``,
    ``loss0``, ``loss1``: the codes of a win in 0 plies (terminal) and in 1, a loss in
    0 (terminal) and in 1."""
    best = np.full(len(codes), NO_ZEROING, np.int8)
    for j in range(len(exit_src)):
        value = -exit_category[j]
        if value > best[exit_src[j]]:
            best[exit_src[j]] = value
    for i in range(len(codes)):
        if not legal[i]:
            codes[i] = ABSENT
        elif terminal[i] == LOSS:
            codes[i] = loss0
        elif terminal[i] == DRAW:
            codes[i] = DRAWN
        elif terminal[i] == WIN:
            codes[i] = win0
        elif best[i] == 2:
            codes[i] = win1
        elif best[i] == 1:
            codes[i] = CAPT_CWIN
        elif best[i] == 0:
            codes[i] = CAPT_DRAW
        elif best[i] == -1:
            codes[i] = CAPT_CLOSS
        elif moves[i] == 0:
            codes[i] = loss1
        else:
            codes[i] = UNKNOWN


@njit(cache=True, nogil=True)
def flag_codes(codes, lo, hi, shift, wins, losses, cursed, blessed):
    """Set the flags of chunks ``lo`` to ``hi`` from their first codes (levels 0 and 1
    only): ``wins`` and ``losses`` (uint64[chunks]) at bit ``level``, ``cursed`` (bit 0)
    for :data:`CAPT_CWIN`, ``blessed`` (bit 0) for :data:`CAPT_CLOSS`."""
    size = len(codes)
    for chunk in range(lo, hi):
        for key in range(chunk << shift, min((chunk + 1) << shift, size)):
            code = codes[key]
            if code >= LOSS0:
                losses[chunk] |= np.uint64(1) << np.uint64(code - LOSS0)
            elif code >= WIN0:
                wins[chunk] |= np.uint64(1) << np.uint64(code - WIN0)
            elif code == CAPT_CWIN:
                cursed[chunk] = 1
            elif code == CAPT_CLOSS:
                blessed[chunk] = 1


@njit(cache=True, nogil=True)
def collect(codes, flags, mask, wanted, chunk, end, shift, found):
    """The keys whose code is ``wanted`` (bool[256]) in the chunks ``chunk`` to ``end``
    whose ``flags`` (uint64[chunks]) have a bit of ``mask``, into int64 ``found``,
    clearing those bits; stops before a chunk that might not fit.

    :returns: ``(count, next)``: keys written, and the chunk to go on from (``end`` when
        done)."""
    size = len(codes)
    width = 1 << shift
    count = 0
    clear = ~mask
    for c in range(chunk, end):
        if flags[c] & mask == 0:
            continue
        if count + width > len(found):
            return count, c
        for key in range(c << shift, min((c + 1) << shift, size)):
            if wanted[codes[key]]:
                found[count] = key
                count += 1
        flags[c] &= clear
    return count, end


@njit(cache=True, nogil=True)
def mark_wins(codes, predecessors, win, wins, bit, shift):
    """Make each of int64[m] ``predecessors`` a win of code ``win`` where it is
    undecided (a zeroing move's cursed win included), flagging its chunk in ``wins`` at
    ``bit``; how many it made."""
    made = 0
    for key in predecessors:
        code = codes[key]
        if code == UNKNOWN or code == CHANGED or code == CAPT_DRAW or code == CAPT_CLOSS or code == CAPT_CWIN:
            codes[key] = win
            wins[key >> shift] |= bit
            made += 1
    return made


@njit(cache=True, nogil=True)
def mark_changed(codes, predecessors, candidates, shift):
    """Make each of int64[m] ``predecessors`` still :data:`UNKNOWN` a candidate loss
    (:data:`CHANGED`), flagging its chunk in ``candidates`` (bit 0)."""
    for key in predecessors:
        if codes[key] == UNKNOWN:
            codes[key] = CHANGED
            candidates[key >> shift] |= np.uint64(1)


@njit(cache=True, nogil=True)
def settle_verdicts(codes, keys, verdicts, losable, loss, win, losses, wins, loss_bit, win_bit, shift):
    """Settle the checked int64[n] ``keys`` by their int8[n] ``verdicts``
    (:meth:`~tablebase.core.game.Game.move_verdicts`): a move into a lost code makes a
    key a win of code ``win``, flagging its chunk in ``wins`` at ``win_bit``; every move
    into a won code makes a key whose code is ``losable`` (bool[256]: undecided, its
    zeroing moves known to lose no later) a loss of code ``loss``, flagging its chunk in
    ``losses`` at ``loss_bit``; any other losable key becomes :data:`UNKNOWN`, and the
    rest keep their codes. Returns ``(losses made, wins made)``."""
    lost = won = 0
    for i in range(len(keys)):
        key = keys[i]
        if verdicts[i] == SUCCESSOR_LOST:
            codes[key] = win
            wins[key >> shift] |= win_bit
            won += 1
        elif losable[codes[key]]:
            if verdicts[i] == SUCCESSOR_WON:
                codes[key] = loss
                losses[key >> shift] |= loss_bit
                lost += 1
            else:
                codes[key] = UNKNOWN
    return lost, won


@njit(cache=True, nogil=True)
def count_codes(codes, lo, hi, code_a, code_b):
    """How many of keys ``lo`` to ``hi`` hold code ``code_a``, and how many ``code_b``."""
    count_a = 0
    count_b = 0
    for key in range(lo, hi):
        code = codes[key]
        count_a += code == code_a
        count_b += code == code_b
    return count_a, count_b


@njit(cache=True, nogil=True)
def slide(codes, lo, hi, by):
    """Move the window of keys ``lo`` to ``hi`` up by ``by`` levels: a win or a
    loss below the new base becomes :data:`WIN_OLD` or :data:`LOSS_OLD` (its value kept
    in the snapshot taken before), the others keep their level."""
    for key in range(lo, hi):
        code = codes[key]
        if code >= LOSS0:
            codes[key] = LOSS_OLD if code - LOSS0 < by else code - by
        elif code >= WIN0:
            codes[key] = WIN_OLD if code - WIN0 < by else code - by


def successor_classes(lost: int = -1, later_win: int = -1) -> np.ndarray:
    """int8[256]: what each code says of a move into it
    (:meth:`~tablebase.core.game.Game.move_verdicts`): the wins
    :data:`~tablebase.core.values.SUCCESSOR_WON` (a zeroing move's pending cursed win not
    among them: it becomes a win at ply 101), but code ``later_win``, a level being
    made while the codes are read; code ``lost`` (if any) ``SUCCESSOR_LOST``; the
    others ``SUCCESSOR_OTHER``."""
    classes = np.full(256, SUCCESSOR_OTHER, np.int8)
    classes[WIN0:LOSS0] = SUCCESSOR_WON
    classes[WIN_OLD] = SUCCESSOR_WON
    if later_win >= 0:
        classes[later_win] = SUCCESSOR_OTHER
    if lost >= 0:
        classes[lost] = SUCCESSOR_LOST
    return classes


def code_set(*wanted: int) -> np.ndarray:
    """bool[256]: the codes ``wanted`` (:func:`collect`'s and :func:`settle_verdicts`'
    tables)."""
    table = np.zeros(256, np.bool_)
    table[list(wanted)] = True
    return table
