"""The compiled loops of the draw peel, which gives draws their remoteness after the
win/loss levels (:func:`~tablebase.solve.retrograde.solver.solve_positions`): a pending draw
sees its moves into draws one by one, and once it has seen them all gets 1 + the nearest."""

from numba import njit

from tablebase.solve.retrograde.exit_codes import DRAW_BY, _held, _kind, _reach


@njit(cache=True, nogil=True, inline="always")
def _nearest(value):
    """A pending draw's nearest drawn successor as its remoteness holds it, ``-2 -
    nearest`` (below -1 for every remoteness), and back: its own inverse."""
    return -2 - value


@njit(cache=True, nogil=True, inline="always")
def _see_draw(p, child, counters, remoteness, found, at):
    """Pending draw ``p`` (remoteness below 0, the nearest drawn successor seen so far kept
    as ``-2 - nearest``, -1 for none yet) sees a move into a draw at ``child``; once it has
    seen all its moves into draws it gets 1 + the nearest and is appended to ``found`` at
    ``at``. Returns the new end."""
    r = remoteness[p]
    if r >= 0:
        return at
    if r == -1 or _nearest(r) > child:
        remoteness[p] = _nearest(child)
    counters[p] -= 1
    if counters[p] == 0:
        remoteness[p] = _nearest(remoteness[p]) + 1
        found[at] = p
        at += 1
    return at


@njit(cache=True, nogil=True)
def _to_draws(nodes, counts, parents, counters, remoteness, found, at):
    """The draw peel: each of int[k] ``parents`` sees a move into the draw of ``nodes``
    repeated ``counts`` times (counted down in place) (:func:`_see_draw`)."""
    j = 0
    for i in range(len(parents)):
        while counts[j] == 0:
            j += 1
        counts[j] -= 1
        at = _see_draw(parents[i], remoteness[nodes[j]], counters, remoteness, found, at)
    return at


@njit(cache=True, nogil=True)
def _drawn_exit_count(remoteness, lo, hi):
    """How many unresolved positions of ``lo:hi`` hold a :data:`DRAW_BY` code with a
    remoteness (the most :func:`_begin_peel` can resolve)."""
    count = 0
    for p in range(lo, hi):
        v = remoteness[p]
        if v < -1 and _kind(_held(v)) == DRAW_BY and _reach(_held(v)) >= 0:
            count += 1
    return count


@njit(cache=True, nogil=True)
def _begin_peel(counters, remoteness, found, at, lo, hi):
    """Start the draw peel of positions ``lo:hi``, in place: every unresolved position
    (remoteness below 0, holding ``-1 - code``) is a pending draw whose counter, once the
    win/loss pass is over, counts exactly its moves into draws, one more for a
    :data:`DRAW_BY` code (its other moves all lead to wins, counted down). Its code is
    dropped (remoteness -1), and a drawn exit with a remoteness is seen
    (:func:`_see_draw`), a position it resolves written to ``found`` from ``at``.
    Returns the new end of ``found``."""
    for p in range(lo, hi):
        v = remoteness[p]
        if v < 0:
            remoteness[p] = -1
            if v < -1 and _kind(_held(v)) == DRAW_BY and _reach(_held(v)) >= 0:
                at = _see_draw(p, _reach(_held(v)), counters, remoteness, found, at)
    return at


@njit(cache=True, nogil=True)
def _no_remoteness_left(remoteness, lo, hi):
    """Pending draws of ``lo:hi`` that never completed the peel get
    :data:`~tablebase.solve.retrograde.state.NO_REMOTENESS`; returns how many positions are left without remoteness."""
    count = 0
    for p in range(lo, hi):
        if remoteness[p] < 0:
            if remoteness[p] < -1:
                remoteness[p] = -1
            count += 1
    return count
