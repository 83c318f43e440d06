"""Batched retrograde analysis over a move graph held in numpy arrays.

The pass is the classic one for games on arbitrary graphs (e-maxx, "Games on arbitrary
graphs"; algorithmica, "Игры на графах"): every position keeps a counter of moves not yet
known to lead to a win for the opponent. Terminal positions are resolved at level 0.
Level by level, each predecessor of a loss at level ``d`` becomes a win at ``d + 1`` (if
still unresolved), and each predecessor of a win has its counter decremented; when the
counter reaches zero, it is a loss at ``d + 1``. Processing whole levels at once gives the
remoteness rules of docs/design.md exactly:

- a win is 1 + the smallest remoteness among its moves to a loss;
- a loss is 1 + the largest remoteness among its moves (all to wins);
- whatever is never resolved is a draw, including every position whose best play cycles.

A draw then gets a remoteness only where no draw-keeping line from it can cycle: it is
1 + the smallest remoteness among its moves to draws, once all of those are known
(a peel from the drawn terminals). In a game without cycles, such as tic-tac-toe, every
draw gets one; a draw that can cycle keeps none (``-1`` in the arrays, null in storage).

Each level costs O(moves into that level's positions). The pass reads the moves through
a :class:`MoveSource`: the predecessor lists of :mod:`tablebase.solve.predecessors`, or
un-moves generated on the fly (:mod:`tablebase.solve.unmoves`), which store no graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numba import njit

from tablebase.util.cores import usable_cores
from tablebase.core.values import DRAW, LOSS, WIN
from tablebase.util.progress import Advance

NO_REMOTENESS = -1
"""Remoteness of a draw that has no distance (it can cycle)."""


@dataclass(frozen=True)
class Solution:
    """Values of every position of a move graph, indexed like it.

    :ivar outcome: int8[n], :class:`~tablebase.core.game.Outcome` values for the side to move.
    :ivar remoteness: int32[n] (int16 or int32 from :func:`solve_positions`), plies to
        the end; :data:`NO_REMOTENESS` for a draw that can cycle.
    """

    outcome: np.ndarray
    remoteness: np.ndarray


@dataclass(frozen=True)
class Exits:
    """Moves that leave the tablebase, with their successors' values known beforehand.

    :ivar src: int[k] index of each such move's position.
    :ivar outcome: int8[k] the successor's outcome, for its side to move.
    :ivar remoteness: int32[k] the successor's remoteness in plies; negative for none.
    """

    src: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray

    @staticmethod
    def none() -> Exits:
        """No move leaves the tablebase."""
        return Exits(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int32))

    def select(self, mask: np.ndarray) -> Exits:
        """The exits where ``mask`` (bool[k]) is true."""
        return Exits(self.src[mask], self.outcome[mask], self.remoteness[mask])


EXIT_BLOCK = 512
"""Positions per run of :func:`_exit_levels`'s bitsets: a level's sweep for its exits
reads only the runs that hold one (32 bytes of bitset a run, 1/16 byte a position).
KRBvKR's DTM pass sweeps its exits in 1.8 s at 512, 2.8 s at 4,096, 1.6 s at 64."""

STATE_DTYPE = np.dtype([("outcome", np.int8), ("counter", np.uint8), ("remoteness", np.int16)])
"""The narrowest record of a :class:`PositionState`."""


class PositionState:
    """What the pass keeps of every position, side by side in one record array so that
    resolving a position touches one cache line, not three: about four bytes a position.

    - ``outcome`` (int8): the terminal value (:data:`~tablebase.core.game.NOT_TERMINAL` for
      none, anything else but win, draw and loss for a key that is no position) until
      the pass, then the outcome for the side to move.
    - ``counter`` (uint8, widened to uint16 or int64 when a position has more moves): the
      position's moves within the tablebase until the pass, then those not yet known to
      lead to a win.
    - ``remoteness`` (int16, widened to int32 past 32,000 plies): the code of the
      position's moves into other tablebases until the pass (below), then its remoteness
      in plies, below 0 while unresolved (an unresolved position keeps its code there as
      ``-1 - code``).

    Moves into other tablebases are folded into one code a position (:meth:`fold`): its
    nearest exit into a loss makes it a win one ply later at the latest
    (:data:`WIN_BY`); else an exit into a draw keeps it from being lost, and is a drawn
    successor for the draw peel (:data:`DRAW_BY`), at the nearest such successor's
    remoteness, or at none if one of them has none; else, all its exits leading to
    wins, the farthest is the last of them to count down (:data:`LOSS_BY`). Code 0 is no
    exit; else ``1 + kind + 3 * (remoteness + 1)``, remoteness -1 standing for a draw
    without one. Where an array of :class:`Exits` takes thirteen bytes an exit, the codes
    cost none of their own.

    :ivar records: the record array ``[n]`` of fields ``outcome``, ``counter``,
        ``remoteness``; the properties are views of its fields.
    """

    def __init__(self, n: int, dtype: np.dtype | None = None, records: np.ndarray | None = None) -> None:
        """``n`` zeroed records of ``dtype`` (:data:`STATE_DTYPE`), or the ``records``
        given (of ``n``), used as they are."""
        self.records = np.zeros(n, dtype=dtype or STATE_DTYPE) if records is None else records

    @property
    def outcome(self) -> np.ndarray:
        """int8[n]: the terminal values, then the outcomes."""
        return self.records["outcome"]

    @property
    def counter(self) -> np.ndarray:
        """Unsigned [n]: the moves within the tablebase, then those not yet refuted."""
        return self.records["counter"]

    @property
    def remoteness(self) -> np.ndarray:
        """int16[n] or int32[n]: the exit codes, then the remoteness (see the class)."""
        return self.records["remoteness"]

    def widen(self, field: str, dtype: type) -> None:
        """Give ``field`` the wider ``dtype`` (a new record array, the values kept)."""
        fields = self.records.dtype.names
        widened = np.empty(len(self.records), dtype=[(f, dtype if f == field else self.records.dtype[f]) for f in fields])
        copy_records(widened, self.records)
        self.records = widened

    def count_moves(self, at: np.ndarray | slice, counts: np.ndarray) -> None:
        """Store int[k] ``counts`` of moves at ``at``, the counter widened first where it
        cannot hold one more than the largest (for the exits)."""
        dtype = counter_dtype(int(np.max(counts, initial=0)) + 1)
        if np.dtype(dtype).itemsize > self.records.dtype["counter"].itemsize:
            self.widen("counter", dtype)
        self.counter[at] = counts

    def fold(self, exits: Exits) -> None:
        """Fold exits into the codes (their ``src`` numbering positions), any number a
        position, in any number of calls, widening the codes to int32 when one is
        farther than 10,920 plies.

        :raises ValueError: for an exit into a win or a loss without a remoteness.
        """
        if len(exits.src):
            if _widest_code(exits) > np.iinfo(self.remoteness.dtype).max:
                self.widen("remoteness", np.int32)
            _fold(self.remoteness, exits.src, exits.outcome, exits.remoteness)


def copy_records(into: np.ndarray, records: np.ndarray) -> None:
    """Copy the record array ``records`` into ``into`` (as long, both contiguous): as
    bytes where their dtypes are the same (numpy copies structured records one at a
    time, 36 times slower than their bytes here), else field by field."""
    if into.dtype == records.dtype:
        into.view(np.uint8)[:] = records.view(np.uint8)
    else:
        for name in records.dtype.names:
            into[name] = records[name]


def fold_codes(codes: np.ndarray, exits: Exits) -> np.ndarray:
    """:meth:`PositionState.fold` into a plain array of codes (a pass that shares a
    survey but not its record), returned widened (uint8, int16, int32) where one does
    not fit.

    :raises ValueError: for an exit into a win or a loss without a remoteness.
    """
    if len(exits.src):
        widest = _widest_code(exits)
        if widest > np.iinfo(codes.dtype).max:
            codes = codes.astype(np.int16 if widest < 2**15 else np.int32)
        _fold(codes, exits.src, exits.outcome, exits.remoteness)
    return codes


def folded_exits(exits: Exits, n: int) -> Exits:
    """``exits`` of positions numbered below ``n`` folded as :func:`fold_codes` folds
    them, back as one exit a position (``src`` ascending): the nearest into a loss, else
    the nearest into a draw (one without a remoteness where any has none), else the
    farthest into a win.

    :raises ValueError: for an exit into a win or a loss without a remoteness.
    """
    codes = fold_codes(np.zeros(n, dtype=np.uint8), exits)
    src = np.flatnonzero(codes)
    code = codes[src].astype(np.int64)
    kind = _kind(code)
    outcome = np.where(kind == WIN_BY, LOSS, np.where(kind == LOSS_BY, WIN, DRAW)).astype(np.int8)
    return Exits(src, outcome, _reach(code).astype(np.int32))


def _widest_code(exits: Exits) -> int:
    """The largest code any of ``exits`` can fold to.

    :raises ValueError: for an exit into a win or a loss without a remoteness.
    """
    if np.any((exits.outcome != DRAW) & (exits.remoteness < 0)):
        raise ValueError("an exit into a win or a loss needs a remoteness")
    return _code(DRAW_BY, int(exits.remoteness.max()))


WIN_BY, LOSS_BY, DRAW_BY = 0, 1, 2
"""The kinds of exit codes (:class:`PositionState`)."""


@njit(cache=True, nogil=True, inline="always")
def _code(kind, remoteness):
    """The exit code (:class:`PositionState`) of an exit of ``kind`` at ``remoteness``."""
    return 1 + kind + 3 * (remoteness + 1)


@njit(cache=True, nogil=True, inline="always")
def _kind(code):
    """The kind of a non-zero code (:data:`WIN_BY`, :data:`LOSS_BY`, :data:`DRAW_BY`)."""
    return (code - 1) % 3


@njit(cache=True, nogil=True, inline="always")
def _reach(code):
    """The remoteness of a non-zero code's exit (-1 for a draw without one)."""
    return (code - 1) // 3 - 1


@njit(cache=True, nogil=True)
def _fold(codes, src, outcome, remoteness):
    """Fold each exit into its position's code: the nearest exit into a loss over
    anything else, then the nearest exit into a draw (none where one has none), then the
    farthest exit into a win."""
    for i in range(len(src)):
        p = src[i]
        kind = WIN_BY if outcome[i] == -1 else LOSS_BY if outcome[i] == 1 else DRAW_BY
        reach = max(remoteness[i], -1)
        held = codes[p]
        if held != 0:
            was, before = _kind(held), _reach(held)
            if was == WIN_BY:
                if kind != WIN_BY or before <= reach:
                    continue
            elif was == DRAW_BY:
                if kind == LOSS_BY:
                    continue
                if kind == DRAW_BY and (before == -1 or (reach != -1 and before <= reach)):
                    continue
            elif kind == LOSS_BY and before >= reach:
                continue
        codes[p] = _code(kind, reach)


class MoveSource(Protocol):
    """The moves of a game as the retrograde pass reads them: backwards, a part at a time.

    Two sources serve it: predecessor lists held in memory
    (:class:`~tablebase.solve.predecessors.Predecessors`), and un-moves generated on the
    fly (:class:`~tablebase.solve.unmoves.UnmoveSource`). A source may count the moves of
    a position into one successor once or as often as they occur, as long as
    ``out_degree`` and ``parents`` count them alike.

    :ivar out_degree: int[n], the number of moves of each position within the tablebase.
    """

    out_degree: np.ndarray

    def parents(self, nodes: np.ndarray) -> Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The predecessors of int[k] ``nodes``, in parts: ``(part, predecessors,
        counts)``, where ``part`` is a slice of ``nodes`` (each node in one part),
        ``predecessors`` int[m] lists the positions moving into them, those of
        ``part[0]`` first, and ``counts`` int[len(part)] how many each contributed."""
        ...


# A source may also apply a level's predecessors itself, where its workers share the
# pass's state: ``settles`` true, and ``settle(nodes, losing, state, level)`` yielding
# the positions resolved (int[r] arrays), as :func:`_apply_parents` does from ``parents``
# (:class:`~tablebase.solve.unmoves.UnmoveSource` in threads).


@njit(cache=True, nogil=True)
def _to_wins(parents, outcome, remoteness, level, found, at):
    """Mark the unresolved (remoteness below 0) of int[k] ``parents`` won at ``level``,
    each once, appending them to ``found`` from ``at``; return the new end."""
    for p in parents:
        if remoteness[p] < 0:
            outcome[p] = 1
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
                outcome[p] = -1
                remoteness[p] = level
                found[at] = p
                at += 1
    return at


@njit(cache=True, nogil=True, inline="always")
def _see_draw(p, child, counters, remoteness, found, at):
    """Pending draw ``p`` (remoteness below 0, the nearest drawn successor seen so far kept
    as ``-2 - nearest``, -1 for none yet) sees a move into a draw at ``child``; once it has
    seen all its moves into draws it gets 1 + the nearest and is appended to ``found`` at
    ``at``. Returns the new end."""
    r = remoteness[p]
    if r >= 0:
        return at
    if r == -1 or -2 - r > child:
        remoteness[p] = -2 - child
    counters[p] -= 1
    if counters[p] == 0:
        remoteness[p] = -1 - remoteness[p]
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
def _start(outcome, counters, remoteness, lo, hi):
    """Level 0 of positions ``lo:hi``, in place, ``remoteness`` holding the exit codes:
    a terminal position keeps its value (its exits dropped), a position without moves or
    exits is lost, every other one is unresolved (outcome draw, remoteness ``-1 -
    code``) with a counter of its moves and one more if it has exits. Returns how many
    positions level 0 resolves."""
    resolved = 0
    for p in range(lo, hi):
        code = remoteness[p]
        if outcome[p] == 2:  # NOT_TERMINAL
            if code != 0:
                counters[p] += 1
            if counters[p] == 0:
                outcome[p] = -1
        if outcome[p] == 2:
            outcome[p] = 0
            remoteness[p] = -1 - code
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
        if outcome[frontier[i]] == -1:
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
        if v < -1 and _kind(-1 - v) != DRAW_BY:
            reach = _reach(-1 - v)
            farthest = max(farthest, reach)
            bit = min(reach, 255)
            blocks[p // block, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    levels = np.zeros(farthest + 1, dtype=np.int64)
    for p in range(lo, hi):
        v = remoteness[p]
        if v < -1 and _kind(-1 - v) != DRAW_BY:
            levels[_reach(-1 - v)] += 1
    return levels


@njit(cache=True, nogil=True)
def _exit_events(remoteness_of_exits, outcome, remoteness, level, events, blocks, block, lo, hi):
    """One sweep of positions ``lo:hi`` (whole runs of ``block``) for the decisive exits
    at ``remoteness_of_exits``, over the runs whose bitset in ``blocks``
    (:func:`_exit_levels`) holds it: the unresolved positions with such a
    :data:`WIN_BY` code are won at ``level`` and written to ``events`` from its start,
    those with a :data:`LOSS_BY` code written to it from its end, to be counted down
    after the level's other wins. Returns ``(wins, losses)``, how many of each."""
    win_by = -1 - _code(WIN_BY, remoteness_of_exits)
    loss_by = -1 - _code(LOSS_BY, remoteness_of_exits)
    bit = min(remoteness_of_exits, 255)
    word, mask = bit >> 6, np.uint64(1) << np.uint64(bit & 63)
    wins = losses = 0
    for b in range(lo // block, (hi + block - 1) // block):
        if blocks[b, word] & mask == 0:
            continue
        for p in range(b * block, min(hi, (b + 1) * block)):
            v = remoteness[p]
            if v == win_by:
                outcome[p] = 1
                remoteness[p] = level
                events[wins] = p
                wins += 1
            elif v == loss_by:
                losses += 1
                events[len(events) - losses] = p
    return wins, losses


@njit(cache=True, nogil=True)
def _drawn_exit_count(remoteness, lo, hi):
    """How many unresolved positions of ``lo:hi`` hold a :data:`DRAW_BY` code with a
    remoteness (the most :func:`_begin_peel` can resolve)."""
    count = 0
    for p in range(lo, hi):
        v = remoteness[p]
        if v < -1 and _kind(-1 - v) == DRAW_BY and _reach(-1 - v) >= 0:
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
            if v < -1 and _kind(-1 - v) == DRAW_BY and _reach(-1 - v) >= 0:
                at = _see_draw(p, _reach(-1 - v), counters, remoteness, found, at)
    return at


@njit(cache=True, nogil=True)
def _undecided(outcome, remoteness, lo, hi):
    """Every unresolved position of ``lo:hi`` (remoteness below 0) becomes a draw
    without remoteness; returns how many."""
    count = 0
    for p in range(lo, hi):
        if remoteness[p] < 0:
            outcome[p] = 0
            remoteness[p] = -1
            count += 1
    return count


@njit(cache=True, nogil=True)
def _no_remoteness_left(remoteness, lo, hi):
    """Pending draws of ``lo:hi`` that never completed the peel get
    :data:`NO_REMOTENESS`; returns how many positions are left without remoteness."""
    count = 0
    for p in range(lo, hi):
        if remoteness[p] < 0:
            if remoteness[p] < -1:
                remoteness[p] = -1
            count += 1
    return count


class _Found:
    """The positions resolved in one level, appended by the compiled loops into one
    growing buffer of position numbers (``dtype``: int32 below 2**31 positions)."""

    def __init__(self, dtype: type) -> None:
        self.dtype = dtype
        self.buffer = np.empty(1 << 16, dtype=dtype)
        self.end = 0

    def room(self, more: int) -> np.ndarray:
        """The buffer, grown to hold ``more`` positions beyond :attr:`end`."""
        if self.end + more > len(self.buffer):
            grown = np.empty(max(2 * len(self.buffer), self.end + more), dtype=self.dtype)
            grown[: self.end] = self.buffer[: self.end]
            self.buffer = grown
        return self.buffer

    def put(self, positions: np.ndarray) -> None:
        """Append int[k] ``positions``."""
        self.room(len(positions))[self.end : self.end + len(positions)] = positions
        self.end += len(positions)

    def take(self) -> np.ndarray:
        """The positions found, and an empty buffer for the next level: the buffer
        itself is handed over (no copy), and a new one grows from small."""
        found = self.buffer[: self.end]
        self.buffer = np.empty(1 << 16, dtype=self.dtype)
        self.end = 0
        return found


SWEEP_PART = 1 << 22
"""The fewest positions a thread of :class:`Sweeps` takes."""


class Sweeps:
    """The sweeps of a pass over all its ``n`` positions (level 0, the exits' levels and
    events, the undecided ones), cut into ``parts`` ranges of whole runs of
    :data:`EXIT_BLOCK` positions (default: one a core, each of at least
    :data:`SWEEP_PART`), swept at once in threads (compiled loops that release the
    GIL): between two levels the move generators wait for them. A context manager
    that stops its threads.

    :ivar blocks: uint64[b, 4] the exit bitsets of :meth:`exit_levels`.
    :ivar levels_by_part: int64[parts, r + 1] its counts by range.
    """

    def __init__(self, n: int, parts: int | None = None) -> None:
        parts = max(1, min(parts or usable_cores(), n // SWEEP_PART))
        step = -(-max(n, 1) // parts)
        step = -(-step // EXIT_BLOCK) * EXIT_BLOCK
        self.n, self.bounds = n, [(lo, min(lo + step, n)) for lo in range(0, n, step)] or [(0, 0)]
        self._pool = ThreadPoolExecutor(len(self.bounds), thread_name_prefix="sweep") if len(self.bounds) > 1 else None
        self.blocks = np.zeros((0, 4), np.uint64)
        self.levels_by_part = np.zeros((len(self.bounds), 0), np.int64)

    def __enter__(self) -> Sweeps:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown()

    def _each(self, sweep: Callable[[int, int, int], Any]) -> list[Any]:
        """``sweep(part, lo, hi)`` of every range, at once where there are threads."""
        calls = [(part, lo, hi) for part, (lo, hi) in enumerate(self.bounds)]
        if self._pool is None:
            return [sweep(*call) for call in calls]
        return list(self._pool.map(lambda call: sweep(*call), calls))

    def start(self, outcome: np.ndarray, counters: np.ndarray, remoteness: np.ndarray) -> int:
        """Level 0 in place (:func:`_start`); how many positions it resolves."""
        return sum(self._each(lambda _part, lo, hi: int(_start(outcome, counters, remoteness, lo, hi))))

    def _gathered(self, count: Callable[[int, int], int], fill: Callable[[np.ndarray, int, int], int], dtype: type) -> np.ndarray:
        """int[k] of ``dtype``: the positions each range finds, in range order.
        ``count(lo, hi)`` bounds how many a range finds; ``fill(into, lo, hi)`` writes
        them into the range's own part of one buffer and returns how many it wrote."""
        counts = self._each(lambda _part, lo, hi: int(count(lo, hi)))
        at = np.cumsum([0, *counts])
        found = np.empty(int(at[-1]), dtype)
        ends = self._each(lambda part, lo, hi: int(fill(found[at[part] : at[part + 1]], lo, hi)))
        if ends == counts:
            return found
        return np.concatenate([found[at[part] : at[part] + end] for part, end in enumerate(ends)])

    def level_zero(self, outcome: np.ndarray, remoteness: np.ndarray, draws: bool, dtype: type) -> np.ndarray:
        """int[k] of ``dtype``: the positions resolved at level 0 as draws (``draws``),
        or as wins and losses (:func:`_settled_at_zero`), ascending."""
        return self._gathered(
            lambda lo, hi: _settled_at_zero(outcome, remoteness, draws, np.empty(0, dtype), lo, hi),
            lambda into, lo, hi: _settled_at_zero(outcome, remoteness, draws, into, lo, hi),
            dtype,
        )

    def exit_levels(self, remoteness: np.ndarray) -> np.ndarray:
        """int64[r + 1]: how many unresolved positions hold a decisive exit code at each
        remoteness (:func:`_exit_levels`), their bitsets kept in :attr:`blocks` and the
        counts of each range in :attr:`levels_by_part`."""
        self.blocks = np.zeros((-(-self.n // EXIT_BLOCK), 4), dtype=np.uint64)
        parts = self._each(lambda _part, lo, hi: _exit_levels(remoteness, EXIT_BLOCK, self.blocks, lo, hi))
        self.levels_by_part = np.zeros((len(parts), max(len(levels) for levels in parts)), np.int64)
        for part, levels in enumerate(parts):
            self.levels_by_part[part, : len(levels)] = levels
        return self.levels_by_part.sum(axis=0)

    def exit_events(
        self, remoteness_of_exits: int, outcome: np.ndarray, remoteness: np.ndarray, level: int, dtype: type
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(won, counted)``, int[w] and int[c] of ``dtype``: the unresolved positions
        with a :data:`WIN_BY` code at ``remoteness_of_exits``, won at ``level`` in
        place, and those with a :data:`LOSS_BY` code there, to count down
        (:func:`_exit_events`); each range writes into its own part of one buffer, as
        long as its count from :meth:`exit_levels` (a position can only lose its code)."""
        at = np.cumsum([0, *self.levels_by_part[:, remoteness_of_exits]])
        events = np.empty(int(at[-1]), dtype)
        found = self._each(
            lambda part, lo, hi: _exit_events(
                remoteness_of_exits, outcome, remoteness, level, events[at[part] : at[part + 1]], self.blocks, EXIT_BLOCK, lo, hi
            )
        )
        won = [events[at[part] : at[part] + wins] for part, (wins, _losses) in enumerate(found)]
        counted = [events[at[part + 1] - losses : at[part + 1]] for part, (_wins, losses) in enumerate(found)]
        return np.concatenate(won), np.concatenate(counted)

    def begin_peel(self, counters: np.ndarray, remoteness: np.ndarray, dtype: type) -> np.ndarray:
        """Start the draw peel in place (:func:`_begin_peel`); int[k] of ``dtype``: the
        positions a drawn exit resolves at once."""
        return self._gathered(
            lambda lo, hi: _drawn_exit_count(remoteness, lo, hi),
            lambda into, lo, hi: _begin_peel(counters, remoteness, into, 0, lo, hi),
            dtype,
        )

    def no_remoteness_left(self, remoteness: np.ndarray) -> int:
        """Pending draws the peel never reached get :data:`NO_REMOTENESS`
        (:func:`_no_remoteness_left`); returns how many positions have none."""
        return sum(self._each(lambda _part, lo, hi: int(_no_remoteness_left(remoteness, lo, hi))))

    def undecided(self, outcome: np.ndarray, remoteness: np.ndarray) -> int:
        """Every unresolved position becomes a draw without remoteness
        (:func:`_undecided`); returns how many."""
        return sum(self._each(lambda _part, lo, hi: int(_undecided(outcome, remoteness, lo, hi))))


def solve(
    terminal: np.ndarray,
    graph: MoveSource,
    advance: Advance = lambda _count: None,
    exits: Exits | None = None,
) -> Solution:
    """Solve a game by retrograde analysis (:func:`solve_positions` of a new
    :class:`PositionState`).

    :param terminal: int8[n]: the outcome of each terminal position for its side to move,
        or :data:`~tablebase.core.game.NOT_TERMINAL`. Moves out of terminal positions are
        ignored; a non-terminal position without moves is a loss at remoteness 0. Any
        other value marks a key that is no position (an illegal key of an index space):
        it is resolved from the start, never a win, loss or draw.
    :param graph: the moves: predecessor lists (see
        :func:`~tablebase.solve.predecessors.predecessors_of` for move lists), or un-moves.
    :param advance: called with the number of positions resolved at each level.
    :param exits: moves into other tablebases. Each counts as resolved at its successor's
        own remoteness: a move into a loss at 12 makes a win at 13 unless a shorter one
        exists.
    :returns: the :class:`Solution`, int8[n] outcomes and int32[n] remoteness.
    """
    state = PositionState(len(terminal))
    state.outcome[:] = terminal
    state.count_moves(slice(None), graph.out_degree)
    state.fold(exits if exits is not None else Exits.none())
    solution = solve_positions(state, graph, advance)
    return Solution(np.ascontiguousarray(solution.outcome), solution.remoteness.astype(np.int32))


def solve_positions(
    state: PositionState,
    graph: MoveSource,
    advance: Advance = lambda _count: None,
    draws: bool = True,
    until: int | None = None,
) -> Solution:
    """Solve a game by retrograde analysis, in place: the :class:`PositionState` of its
    positions (terminal values, counts of moves, exit codes) becomes their values,
    updated batch by batch in compiled loops.

    :param graph: the moves, as :func:`solve` reads them; its ``out_degree`` is not read.
    :param draws: whether draws get their remoteness (the draw peel); without it every
        draw has :data:`NO_REMOTENESS` (the DTZ passes need none).
    :param until: the last level to resolve (plies), or ``None`` for all: a position
        won or lost beyond it is left a draw without remoteness (DTZ's pass under the
        50-move rule needs levels up to 100 only, since a level depends only on lower
        ones). Only with ``draws`` false.
    :returns: the :class:`Solution` as views of ``state``: int8[n] outcomes and int16[n]
        (int32[n] past 32,000 plies) remoteness.
    """
    n = len(state.records)
    with Sweeps(n) as sweeps:
        return _solve_levels(state, graph, advance, draws, until, sweeps)


def _solve_levels(state: PositionState, graph: MoveSource, advance: Advance, draws: bool, until: int | None, sweeps: Sweeps) -> Solution:
    """:func:`solve_positions` with its whole-state sweeps cut by ``sweeps``."""
    n = len(state.records)
    outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
    advance(sweeps.start(outcome, counters, remoteness))
    found = _Found(np.int32 if n < 2**31 else np.int64)
    frontier = sweeps.level_zero(outcome, remoteness, False, found.dtype)
    levels = sweeps.exit_levels(remoteness)
    next_exit = _next_exits(levels, 0)

    level = 0
    last = np.iinfo(np.int64).max if until is None else until
    while (frontier.size or next_exit < len(levels)) and level < last:
        if not frontier.size:
            level = next_exit  # nothing happens in between
            if level >= last:
                break
        elif level:
            advance(int(frontier.size))
        exits_now = level == next_exit < len(levels)
        if _past_int16(state, level + 1):
            outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
        split = _losses_first(frontier, outcome)
        counted = np.empty(0, dtype=found.dtype)
        if exits_now:
            won, counted = sweeps.exit_events(level, outcome, remoteness, level + 1, found.dtype)
            found.put(won)
            del won
            next_exit = _next_exits(levels, level + 1)
        # Within a level the order does not matter: a position with a lost successor is
        # never counted down to zero (that move is never counted), so it is won whichever
        # of its successors is seen first. The exits into wins are counted down first.
        found.end = _to_losses(counted, counters, outcome, remoteness, level + 1, found.room(len(counted)), found.end)
        del counted
        if getattr(graph, "settles", False):
            for resolved in graph.settle(frontier, split, state, level + 1):
                found.put(resolved)
        else:
            _apply_parents(graph, frontier, split, state, level + 1, found)
        frontier = found.take()
        level += 1

    if level and frontier.size:  # the last level, where the pass stopped (``until``)
        advance(int(frontier.size))
    left = _draw_remoteness(state, graph, found, sweeps) if draws else sweeps.undecided(outcome, remoteness)
    advance(int(left))
    return Solution(state.outcome, state.remoteness)


def _apply_parents(graph: MoveSource, frontier: np.ndarray, losing: int, state: PositionState, level: int, found: _Found) -> None:
    """One level's predecessors applied part by part as ``graph`` yields them: those of
    the first ``losing`` of int[k] ``frontier`` (its lost positions) won at ``level``,
    the others counted down (lost at ``level`` at zero), those resolved appended to
    ``found``."""
    outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
    start = 0
    for part, parents, counts in graph.parents(frontier):
        lost = min(max(losing - start, 0), len(part))
        if lost:
            cut = int(counts[:lost].sum())
            found.end = _to_wins(parents[:cut], outcome, remoteness, level, found.room(cut), found.end)
            parents = parents[cut:]
        start += len(part)
        found.end = _to_losses(parents, counters, outcome, remoteness, level, found.room(len(parents)), found.end)


def counter_dtype(largest: int) -> type:
    """The smallest unsigned dtype that holds counters up to ``largest`` (int64 beyond
    uint16)."""
    return np.uint8 if largest < 2**8 else np.uint16 if largest < 2**16 else np.int64


def _next_exits(levels: np.ndarray, start: int) -> int:
    """The first remoteness from ``start`` with decisive exits (``len(levels)`` if none)."""
    ahead = np.flatnonzero(levels[start:])
    return start + int(ahead[0]) if len(ahead) else len(levels)


def _past_int16(state: PositionState, reach: int) -> bool:
    """Whether the remoteness of ``state`` had to be widened to int32 to hold values up
    to ``reach`` (it is widened then)."""
    if state.remoteness.dtype == np.int16 and reach >= 32_000:
        state.widen("remoteness", np.int32)
        return True
    return False


def _draw_remoteness(state: PositionState, graph: MoveSource, found: _Found, sweeps: Sweeps) -> int:
    """Give draws their remoteness in place, peeling up from the drawn terminals (the
    remoteness widened to int32 if the peel goes past 32,000 plies); returns how many
    positions are left without one.

    The win/loss pass leaves each unresolved position's counter at its moves into draws
    (all its other moves lead to wins and were counted down), plus one for a move into
    a drawn position of another tablebase (a :data:`DRAW_BY` code), which counts as a
    draw known from the start, at its own remoteness (or never, if it has none). The
    counter then counts a pending draw's moves into draws not yet seen, and a pending
    draw's ``remoteness`` keeps the nearest drawn successor seen so far (``-2 -
    nearest``; -1 for none yet), so no move is generated again.
    """
    outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
    found.put(sweeps.begin_peel(counters, remoteness, found.dtype))
    frontier = np.concatenate([sweeps.level_zero(outcome, remoteness, True, found.dtype), found.take()])
    farthest = int(remoteness[frontier].max(initial=0))  # each round reaches at most one ply farther
    while frontier.size:
        farthest += 1
        if _past_int16(state, farthest):
            outcome, counters, remoteness = state.outcome, state.counter, state.remoteness
        for nodes, parents, counts in graph.parents(frontier):
            counts = np.array(counts, dtype=np.int64)  # counted down in place
            found.end = _to_draws(nodes, counts, parents, counters, remoteness, found.room(len(parents)), found.end)
        frontier = found.take()
    return sweeps.no_remoteness_left(remoteness)
