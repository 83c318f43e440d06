"""The compiled loops of the retrograde pass's win/loss levels, over the fields of a
:class:`~tablebase.solve.retrograde.state.PositionState` (or a range ``lo:hi`` of them):
level 0, the levels and events of the exits into wins and losses, each level's wins and
count-downs, and the positions left undecided."""

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL, WIN
from tablebase.solve.retrograde.exit_codes import DRAW_BY, LOSS_BY, WIN_BY, _code, _held, _kind, _reach


@njit(cache=True, nogil=True)
def _to_wins(parents, outcome, remoteness, level, found, at):
    """Mark the unresolved (remoteness below 0) of int[k] ``parents`` won at ``level``,
    each once, appending them to ``found`` from ``at``; return the new end."""
    for p in parents:
        if remoteness[p] < 0:
            outcome[p] = WIN
            remoteness[p] = level
            found[at] = p
            at += 1
    return at


@njit(cache=True, nogil=True)
def _to_losses(parents, counters, outcome, remoteness, level, found, at):
    """Count down the unresolved of int[k] ``parents``, one move into a win each
    occurrence; mark those that reach zero lost at ``level``, appending them to
    ``found`` from ``at``; return the new end."""
    for p in parents:
        if remoteness[p] < 0:
            counters[p] -= 1
            if counters[p] == 0:
                outcome[p] = LOSS
                remoteness[p] = level
                found[at] = p
                at += 1
    return at


@njit(cache=True, nogil=True)
def _start(outcome, counters, remoteness, lo, hi):
    """Level 0 of positions ``lo:hi``, in place, ``remoteness`` holding the exit codes:
    a terminal position keeps its value (its exits dropped), a position without moves or
    exits is lost, every other one is unresolved (outcome draw, remoteness ``-1 -
    code``) with a counter of its moves and one more if it has exits. Returns how many
    positions level 0 resolves."""
    resolved = 0
    for p in range(lo, hi):
        code = remoteness[p]
        if outcome[p] == NOT_TERMINAL:
            if code != 0:
                counters[p] += 1
            if counters[p] == 0:
                outcome[p] = LOSS
        if outcome[p] == NOT_TERMINAL:
            outcome[p] = DRAW
            remoteness[p] = _held(code)
        else:
            remoteness[p] = 0
            resolved += 1
    return resolved


@njit(cache=True, nogil=True, inline="always")
def _at_zero(outcome, remoteness, p, draws):
    """Whether position ``p`` was resolved at level 0 as a draw (``draws``), or as a win
    or a loss."""
    return remoteness[p] == 0 and ((outcome[p] == 0) == draws) and -1 <= outcome[p] <= 1


@njit(cache=True, nogil=True)
def _settled_at_zero(outcome, remoteness, draws, found, lo, hi):
    """The positions of ``lo:hi`` resolved at level 0 as draws (``draws``), or as wins
    and losses, written to ``found`` as far as it holds them; returns how many there
    are."""
    at = 0
    for p in range(lo, hi):
        if _at_zero(outcome, remoteness, p, draws):
            if at < len(found):
                found[at] = p
            at += 1
    return at


@njit(cache=True, nogil=True)
def _losses_first(frontier, outcome):
    """Reorder a level's int[k] ``frontier`` (wins and losses) in place, its losses first;
    return how many losses."""
    split = 0
    for i in range(len(frontier)):
        if outcome[frontier[i]] == LOSS:
            frontier[i], frontier[split] = frontier[split], frontier[i]
            split += 1
    return split


@njit(cache=True, nogil=True)
def _exit_levels(remoteness, block, blocks, lo, hi):
    """int64[r + 1]: how many unresolved positions of ``lo:hi`` (whole runs of ``block``)
    hold a decisive exit code (:data:`WIN_BY`, :data:`LOSS_BY`; ``-1 - code`` in
    ``remoteness``) at each remoteness up to their farthest, r; and into uint64[b, 4]
    ``blocks``, for each of their runs of ``block`` positions, a bitset of the
    remotenesses its exit codes hold (255 standing for 255 and beyond), so that
    :func:`_exit_events` sweeps only the runs that hold a level's."""
    farthest = -1
    for p in range(lo, hi):
        v = remoteness[p]
        if v < -1 and _kind(_held(v)) != DRAW_BY:
            reach = _reach(_held(v))
            farthest = max(farthest, reach)
            bit = min(reach, 255)
            blocks[p // block, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    levels = np.zeros(farthest + 1, dtype=np.int64)
    for p in range(lo, hi):
        v = remoteness[p]
        if v < -1 and _kind(_held(v)) != DRAW_BY:
            levels[_reach(_held(v))] += 1
    return levels


@njit(cache=True, nogil=True)
def _exit_events(remoteness_of_exits, outcome, remoteness, level, events, blocks, block, lo, hi):
    """One sweep of positions ``lo:hi`` (whole runs of ``block``) for the decisive exits
    at ``remoteness_of_exits``, over the runs whose bitset in ``blocks``
    (:func:`_exit_levels`) holds it: the unresolved positions with such a
    :data:`WIN_BY` code are won at ``level`` and written to ``events`` from its start,
    those with a :data:`LOSS_BY` code written to it from its end, to be counted down
    after the level's other wins. Returns ``(wins, losses)``, how many of each."""
    win_by = _held(_code(WIN_BY, remoteness_of_exits))
    loss_by = _held(_code(LOSS_BY, remoteness_of_exits))
    bit = min(remoteness_of_exits, 255)
    word, mask = bit >> 6, np.uint64(1) << np.uint64(bit & 63)
    wins = losses = 0
    for b in range(lo // block, (hi + block - 1) // block):
        if blocks[b, word] & mask == 0:
            continue
        for p in range(b * block, min(hi, (b + 1) * block)):
            v = remoteness[p]
            if v == win_by:
                outcome[p] = WIN
                remoteness[p] = level
                events[wins] = p
                wins += 1
            elif v == loss_by:
                losses += 1
                events[len(events) - losses] = p
    return wins, losses


@njit(cache=True, nogil=True)
def _undecided(outcome, remoteness, lo, hi):
    """Every unresolved position of ``lo:hi`` (remoteness below 0) becomes a draw
    without remoteness; returns how many."""
    count = 0
    for p in range(lo, hi):
        if remoteness[p] < 0:
            outcome[p] = DRAW
            remoteness[p] = -1
            count += 1
    return count
