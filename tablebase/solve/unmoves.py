"""Retrograde analysis driven by un-moves: no move graph is stored.

For a game that provides :meth:`~tablebase.core.game.Game.predecessors`, the engine keeps
about four bytes per position instead of the predecessor lists of
:mod:`tablebase.solve.predecessors`: the terminal value (which becomes the outcome), a
counter of the position's distinct successors (the moves still to be refuted), and the
code of its moves into other tablebases (two bytes), which becomes the remoteness, side
by side in a :class:`~tablebase.solve.retrograde.PositionState` filled in place by the
pass of
:mod:`tablebase.solve.retrograde`. Un-moves are generated per batch of each level's newly
resolved positions, and the successors of the drawn positions that the draw peel reaches
are generated once more, to count their moves into draws. Moves into other tablebases are
looked up once, at the start, a batch at a time. The approach is that of the Syzygy
generator (R. de Man, syzygy1/tb, ``tbgen.c``), with a counter where it re-generates the
moves of a candidate loss.

Positions are numbered by key over the index space when the game has one (a key that is
no position is marked :data:`ABSENT`), else by rank among the sorted keys that forward
search finds from the start positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
import threading
from itertools import tee
from typing import Any

import numpy as np
from numba import njit

from tablebase.core.batches import BatchSurvey, LevelSplit
from tablebase.core.game import Game
from tablebase.util.progress import Stages
from tablebase.core.errors import GameError
from tablebase.solve.graph import ExitMoves, batch_moves, slices, start_keys
from tablebase.solve.keyset import KeyFinder, search_forward, sorted_unique
from tablebase.solve.retrograde import (
    STATE_DTYPE,
    Exits,
    PositionState,
    Solution,
    _to_losses,
    _to_wins,
    copy_records,
    fold_codes,
    solve_positions,
)
from tablebase.solve.scratch import Scratch, Spilled
from tablebase.solve.solved import ABSENT, SolvedGame, SolvedIndex
from tablebase.solve.workers import Workers, WorkersChoice


ExitLookup = Callable[[ExitMoves], Sequence[Exits]]
"""Gives the values of moves into other tablebases (read from the store): one
:class:`Exits` for each pass that shares the survey."""


def distinct_pairs(src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``(src, key)`` pairs of int64[m] arrays (``src`` and ``keys`` not
    negative), sorted by ``src``. Where ``src`` is already ascending (as a game's batch
    methods give it), each run of one ``src`` is filtered in a compiled loop, its keys
    left in their order; else one sort of packed words, or by two keys where they do not
    fit in 63 bits, and the keys come sorted too."""
    if not len(src):
        return src, keys
    keep, dropped = _first_in_run(src, keys)
    if dropped == 0:  # the usual case: nothing to copy
        return src, keys
    if dropped > 0:
        return src[keep], keys[keep]
    shift = int(keys.max()).bit_length()
    if shift + int(src.max()).bit_length() <= 63:
        packed = np.sort((src << shift) | keys)
        first = np.ones(len(packed), dtype=bool)
        first[1:] = packed[1:] != packed[:-1]
        packed = packed[first]
        return packed >> shift, packed & ((1 << shift) - 1)
    order = np.lexsort((keys, src))
    src, keys = src[order], keys[order]
    first = np.ones(len(src), dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (keys[1:] != keys[:-1])
    return src[first], keys[first]


@njit(cache=True, nogil=True)
def _first_in_run(src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, int]:
    """``(keep, dropped)``: bool[m] whether each key is the first of its value within its
    run of equal ascending ``src``, and how many are not (-1, and ``keep`` unset, if
    ``src`` is not ascending). Through a small open-addressing hash set in a short run
    (one probe a key; the set is emptied by a new stamp per run, not cleared), a sorted
    copy in a long one."""
    keep = np.ones(len(src), dtype=np.bool_)
    for i in range(1, len(src)):
        if src[i] < src[i - 1]:
            return keep, -1
    slots = np.zeros(256, dtype=np.int64)
    stamps = np.full(256, -1, dtype=np.int64)
    start = 0
    while start < len(src):
        end = start + 1
        while end < len(src) and src[end] == src[start]:
            end += 1
        if end - start <= 128:
            for i in range(start, end):
                h = (np.uint64(keys[i]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(56)
                while stamps[h] == start and slots[h] != keys[i]:
                    h = (h + np.uint64(1)) & np.uint64(255)
                if stamps[h] == start:
                    keep[i] = False
                else:
                    stamps[h], slots[h] = start, keys[i]
        else:
            order = np.argsort(keys[start:end], kind="mergesort")
            for i in range(1, end - start):
                if keys[start + order[i]] == keys[start + order[i - 1]]:
                    keep[start + order[i]] = False
        start = end
    return keep, len(keep) - np.count_nonzero(keep)


def _check_keys(game: Game, keys: np.ndarray, member: str) -> np.ndarray:
    """``keys``. :raises GameError: if one is negative."""
    if keys.size and keys.min() < 0:
        raise GameError(f"{game.name}: {member} gave key {int(keys.min())}; keys must be in [0, 2**63)")
    return keys


def _unmoves(game: Game, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Worker task: the distinct un-moves of int64[k] keys, ``(src_index, pred_key)``.

    :raises GameError: if a predecessor key is negative.
    """
    src, pred = (np.asarray(a, dtype=np.int64) for a in game.predecessors(keys))
    _check_keys(game, pred, "predecessors()")
    return (src, pred) if game.distinct_unmoves else distinct_pairs(src, pred)


def _numbered_unmoves(game: Game, batch: tuple[np.ndarray, PositionIndex]) -> tuple[np.ndarray, np.ndarray]:
    """Worker task, where the workers share this process's memory: the predecessors of a
    batch of keys numbered by the pass's index, those that are no position of it left
    out, and int64[k] their counts per key (what :meth:`UnmoveSource.parents` yields),
    so that the pass's own thread only applies them."""
    keys, index = batch
    src, found = index.found(*_unmoves(game, keys))
    return found, np.bincount(src, minlength=len(keys))


@dataclass(frozen=True)
class Survey:
    """What one batch of keys holds: ``keys`` int64[b] its positions, ``terminal`` int8[b]
    their terminal values, ``moves`` int64[b] their distinct successors within the
    tablebase (0 for a terminal position), ``exits`` the moves out of it (``src`` numbering
    the batch), ``found`` int64[f] the distinct successor keys (forward search only)."""

    keys: np.ndarray
    terminal: np.ndarray
    moves: np.ndarray
    exits: ExitMoves
    found: np.ndarray


SELF = -1
"""The ``table`` of a zeroing move that stays in the tablebase, an exit of a progress
level's survey (:class:`~tablebase.core.game.LevelSplit`)."""


def survey(game: Game, keys: np.ndarray, discover: bool = False, split: LevelSplit | None = None) -> Survey:
    """The :class:`Survey` of int64[b] keys (the legal ones, for an index space); with
    ``split``, the moves to another level are exits into :data:`SELF`."""
    if game.size is not None and not discover:
        batch = game.survey_batch(keys, split)
        if batch is not None:
            return _surveyed(keys, batch)
        keys = keys[np.asarray(game.legal(keys), dtype=bool)]
    terminal, src, dst, exits = batch_moves(game, keys)
    src, dst = distinct_pairs(src, dst)
    parts = []
    if split is not None:
        zeroing = split.elsewhere(dst)
        parts.append(ExitMoves(src[zeroing], np.full(int(zeroing.sum()), SELF, dtype=np.int64), dst[zeroing]))
        src, dst = src[~zeroing], dst[~zeroing]
    moves = np.bincount(src, minlength=len(keys)).astype(np.int64)
    return Survey(keys, terminal, moves, ExitMoves.join([*parts, exits]), sorted_unique(dst) if discover else dst[:0])


def _surveyed(keys: np.ndarray, batch: BatchSurvey) -> Survey:
    """The :class:`Survey` of a game's own :class:`~tablebase.core.game.BatchSurvey` of
    int64[b] keys: its legal keys, their exits and moves to other levels (exits into
    :data:`SELF`) renumbered among them."""
    legal = np.asarray(batch.legal, dtype=bool)
    rank = np.cumsum(legal) - 1
    cross_src, cross_key = (np.asarray(a, dtype=np.int64) for a in batch.crossing)
    exit_src, table, key = (np.asarray(a, dtype=np.int64) for a in batch.exits)
    exits = ExitMoves.join(
        [ExitMoves(rank[cross_src], np.full(len(cross_src), SELF, dtype=np.int64), cross_key), ExitMoves(rank[exit_src], table, key)]
    )
    terminal = np.asarray(batch.terminal, dtype=np.int8)[legal]
    return Survey(keys[legal], terminal, np.asarray(batch.moves, dtype=np.int64)[legal], exits, keys[:0])


def successors_found(game: Game, keys: np.ndarray) -> np.ndarray:
    """Worker task of forward search: the distinct successors of int64[b] keys within
    the tablebase, sorted."""
    return survey(game, keys, discover=True).found


def _survey_level(game: Game, batch: tuple[np.ndarray, LevelSplit]) -> Survey:
    """Worker task: :func:`survey` of ``(keys, split)``."""
    keys, split = batch
    return survey(game, keys, split=split)


class PositionIndex:
    """Numbers positions: by key over an index space of ``size`` (``keys`` None), or
    by rank among sorted int64[n] ``keys``."""

    def __init__(self, size: int, keys: np.ndarray | None = None) -> None:
        self.sorted_keys = keys
        self.n = size if keys is None else len(keys)
        self._finder = None if keys is None else KeyFinder(keys)

    def ranges(self, batch_size: int) -> Iterator[np.ndarray]:
        """The keys of every number, ``batch_size`` numbers at a time, in order."""
        for start in range(0, self.n, batch_size):
            yield self.keys(np.arange(start, min(start + batch_size, self.n), dtype=np.int64))

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        """int64[k]: the keys of int[k] position numbers."""
        return nodes.astype(np.int64) if self.sorted_keys is None else self.sorted_keys[nodes]

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``(nodes, hit)``: the number of each int64[k] key, and bool[k] whether it has
        one (``None`` when all of them have)."""
        if self.sorted_keys is None:
            if not len(keys) or (keys.min() >= 0 and keys.max() < self.n):
                return keys, None
            return keys, (keys >= 0) & (keys < self.n)
        return self._finder.find(keys)

    def found(self, src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(src, nodes)``: the int[k] ``src`` of those of int64[k] ``keys`` that have a
        number (:meth:`find`), and their numbers, in order."""
        nodes, hit = self.find(keys)
        return (src, nodes) if hit is None else (src[hit], nodes[hit])


class LevelIndex(PositionIndex):
    """Numbers the keys of one progress level of an index space of ``size`` keys: its
    blocks (``split.block`` keys each, :class:`~tablebase.core.game.LevelSplit`) one after the other, in key
    order, so a level costs no key array and a key is found by one division."""

    def __init__(self, size: int, split: LevelSplit) -> None:
        self.block, self.size = split.block, size
        self.blocks = np.flatnonzero(split.levels == split.level).astype(np.int64)
        self.local = np.full(len(split.levels), -1, dtype=np.int64)
        self.local[self.blocks] = np.arange(len(self.blocks))
        super().__init__(len(self.blocks) * self.block)

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        keys = np.empty(len(nodes), dtype=np.int64)
        _level_keys(nodes, self.blocks, self.block, keys)
        return keys

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        nodes = np.empty(len(keys), dtype=np.int64)
        hit = np.empty(len(keys), dtype=np.bool_)
        _find_in_level(keys, self.local, self.block, self.size, nodes, hit)
        return nodes, hit

    def found(self, src: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`PositionIndex.found`, in one compiled sweep (no mask, no copies)."""
        return _found_in_level(src, keys, self.local, self.block, self.size)


@njit(cache=True, nogil=True)
def _level_keys(nodes, blocks, block, keys):
    """:meth:`LevelIndex.keys` in one sweep: ``keys[i]`` the key of number ``nodes[i]``."""
    for i in range(len(nodes)):
        keys[i] = blocks[nodes[i] // block] * block + nodes[i] % block


@njit(cache=True, nogil=True, inline="always")
def _level_number(key, local, block, size):
    """The number of ``key`` in its level (:class:`LevelIndex`), or -1 where it lies
    outside the index space or at another level."""
    if not 0 <= key < size:
        return -1
    quotient = key // block
    number = local[quotient]
    return number * block + key - quotient * block if number >= 0 else -1


@njit(cache=True, nogil=True)
def _find_in_level(keys, local, block, size, nodes, hit):
    """:meth:`LevelIndex.find` in one sweep: ``nodes[i]`` the number of ``keys[i]``
    where ``hit[i]``."""
    for i in range(len(keys)):
        number = _level_number(keys[i], local, block, size)
        hit[i] = number >= 0
        nodes[i] = max(number, 0)


@njit(cache=True, nogil=True)
def _found_in_level(src, keys, local, block, size):
    """:meth:`LevelIndex.found` in one sweep: the ``src`` and numbers of the keys of the
    level, in order."""
    kept = np.empty(len(keys), dtype=src.dtype)
    nodes = np.empty(len(keys), dtype=np.int64)
    m = 0
    for i in range(len(keys)):
        number = _level_number(keys[i], local, block, size)
        if number >= 0:
            kept[m], nodes[m] = src[i], number
            m += 1
    return kept[:m], nodes[:m]


class UnmoveSource:
    """The moves of a game as the retrograde pass reads them
    (:class:`~tablebase.solve.retrograde.MoveSource`), generated batch by batch in
    worker processes: un-moves backwards, moves forwards. Each distinct successor of a
    position counts once.

    :param out_degree: int[n] the distinct successors of each position (the counter of
        the pass's :class:`PositionState`, which the pass then counts down).
    """

    def __init__(self, index: PositionIndex, out_degree: np.ndarray, pool: Workers, batch_size: int) -> None:
        self.index, self.out_degree, self.pool, self.batch_size = index, out_degree, pool, batch_size

    def _pairs(self, task, parts: Iterable[np.ndarray]) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``(part, src, other)`` per batch of position numbers: the task's pairs,
        ``other`` numbered, those that are no position left out. The batches are drawn
        as the workers take them."""
        ahead, parts = tee(parts)
        for part, (src, keys) in zip(parts, self.pool.map(task, (self.index.keys(p) for p in ahead))):
            yield (part, *self.index.found(src, keys))

    def parents(self, nodes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``(part, predecessors, counts)`` per batch of int[k] ``nodes``."""
        if self.pool.in_process:
            ahead, parts = tee(slices(nodes, self.batch_size))
            batches = ((self.index.keys(p), self.index) for p in ahead)
            for part, (found, counts) in zip(parts, self.pool.map(_numbered_unmoves, batches)):
                yield part, found, counts
            return
        for part, src, pred in self._pairs(_unmoves, slices(nodes, self.batch_size)):
            yield part, pred, np.bincount(src, minlength=len(part))

    @property
    def settles(self) -> bool:
        """Whether the workers apply a level's predecessors themselves (:meth:`settle`):
        they run in this process and share the pass's state."""
        return self.pool.in_process

    def settle(self, nodes: np.ndarray, losing: int, state: PositionState, level: int) -> Iterator[np.ndarray]:
        """Resolve the predecessors of a level's int[k] ``nodes`` in the workers that find
        them: those of the first ``losing`` (lost positions) won at ``level``, those of
        the others (won) counted down, lost at ``level`` at zero (as
        :func:`~tablebase.solve.retrograde.solve_positions` applies them in its own
        thread otherwise). Yields int[r] the positions resolved, a batch at a time."""
        settlement = _Settlement(state, level)
        parts = slices(nodes, self.batch_size)
        starts = np.cumsum([0] + [len(p) for p in parts])
        batches = (
            (self.index.keys(part), self.index, min(max(losing - int(start), 0), len(part)), settlement)
            for start, part in zip(starts, parts)
        )
        yield from self.pool.map(_settled_unmoves, batches)


class _Settlement:
    """One level's predecessors applied by the worker threads that find them: the
    positions cut into :attr:`RANGES` ranges of ``2**shift``, one lock each, so that two
    workers apply at once unless they need the same range (a counter counted down by two
    threads at once would lose a count)."""

    RANGES = 16

    def __init__(self, state: PositionState, level: int) -> None:
        n = max(len(state.records), 1)
        self.state, self.level = state, level
        self.shift = max(0, (n - 1).bit_length() - self.RANGES.bit_length() + 1)
        self.locks = [threading.Lock() for _ in range(((n - 1) >> self.shift) + 1)]

    def apply(self, won: np.ndarray, counted: np.ndarray) -> np.ndarray:
        """Win int[a] ``won`` and count down int[b] ``counted`` (predecessors of lost and
        of won positions), range by range, a free range first; returns the positions
        resolved."""
        state, ranges = self.state, len(self.locks)
        won, won_at = _by_range(won, self.shift, ranges)
        counted, counted_at = _by_range(counted, self.shift, ranges)
        resolved = np.empty(len(won) + len(counted), dtype=won.dtype)
        end = 0
        waiting = [r for r in range(ranges) if won_at[r + 1] > won_at[r] or counted_at[r + 1] > counted_at[r]]
        while waiting:
            free = next((r for r in waiting if self.locks[r].acquire(blocking=False)), None)
            if free is None:
                free = waiting[0]
                self.locks[free].acquire()
            try:
                mine = won[won_at[free] : won_at[free + 1]]
                end = _to_wins(mine, state.outcome, state.remoteness, self.level, resolved, end)
                mine = counted[counted_at[free] : counted_at[free + 1]]
                end = _to_losses(mine, state.counter, state.outcome, state.remoteness, self.level, resolved, end)
            finally:
                self.locks[free].release()
            waiting.remove(free)
        return resolved[:end]


@njit(cache=True, nogil=True)
def _by_range(values, shift, ranges):
    """int[k] ``values`` ordered by ``value >> shift`` (a counting sort), and int64[ranges
    + 1] where each range begins."""
    at = np.zeros(ranges + 1, np.int64)
    for v in values:
        at[(v >> shift) + 1] += 1
    for r in range(ranges):
        at[r + 1] += at[r]
    ordered = np.empty_like(values)
    fill = at[:-1].copy()
    for v in values:
        r = v >> shift
        ordered[fill[r]] = v
        fill[r] += 1
    return ordered, at


def _settled_unmoves(game: Game, batch: tuple[np.ndarray, PositionIndex, int, _Settlement]) -> np.ndarray:
    """Worker task of :meth:`UnmoveSource.settle`: the predecessors of a batch of keys,
    numbered, applied to the pass's state (those of its first ``losing`` keys won, the
    others' counted down); the positions resolved."""
    keys, index, losing, settlement = batch
    src, found = index.found(*_unmoves(game, keys))
    cut = int(np.searchsorted(src, losing))  # src ascends
    return settlement.apply(found[:cut], found[cut:])


@dataclass(frozen=True)
class Pass:
    """One retrograde pass over a shared survey (:func:`solve_by_unmoves`): whether
    draws get their remoteness (the draw peel), and the last level it resolves (``None``
    for all), as :func:`~tablebase.solve.retrograde.solve_positions` takes them."""

    draws: bool = True
    until: int | None = None

    def truncates(self, later: Pass) -> bool:
        """Whether this pass is ``later`` stopped at :attr:`until`: over the same exit
        codes, it resolves exactly ``later``'s positions at levels up to ``until``, with
        their values (a level depends only on lower ones)."""
        return self.until is not None and later.until is None and not self.draws and not later.draws


Keep = Callable[[int, PositionIndex, Solution], Any]
"""What a pass leaves behind: called with the pass's number, the numbering of the
positions and its :class:`Solution` (views of its state, freed once the last call
about it returns). A pass that stops at a level (:attr:`Pass.until`) may be handed the
solution of the pass it truncates (:meth:`Pass.truncates`), levels past ``until``
included, which it reads as unresolved."""


def answered_passes(passes: Sequence[Pass], same_exits: Callable[[int, int], bool]) -> list[bool]:
    """Which of ``passes`` need not run: a pass that truncates the next one
    (:meth:`Pass.truncates`) where ``same_exits(i, i + 1)`` says their exit codes are
    the same; the next pass's solution answers it (see :data:`Keep`)."""
    return [i + 1 < len(passes) and way.truncates(passes[i + 1]) and same_exits(i, i + 1) for i, way in enumerate(passes)]


def passes_run(passes: Sequence[Pass], answered: Sequence[bool]) -> Iterator[tuple[Pass, list[int]]]:
    """Each of ``passes`` that runs (``answered``: bool a pass, from
    :func:`answered_passes`), in order, with the numbers of the passes its solution
    answers: those just before it that do not run, and its own."""
    waiting: list[int] = []
    for number, way in enumerate(passes):
        waiting.append(number)
        if not answered[number]:
            yield way, waiting
            waiting = []


def solved(_number: int, index: PositionIndex, solution: Solution) -> SolvedGame | SolvedIndex:
    """The default :data:`Keep`: the values as :func:`~tablebase.solve.retrograde.solve`
    gives them over the move graph, over the index space (:class:`SolvedIndex`) for a
    game that has one, else by sorted key."""
    if index.sorted_keys is not None:
        return SolvedGame(index.sorted_keys, Solution(solution.outcome, solution.remoteness.astype(np.int32)))
    return SolvedIndex(solution.outcome, solution.remoteness)


@dataclass(frozen=True)
class UnmovePlan:
    """The passes of a value kind over one survey by un-moves, as
    :func:`solve_by_unmoves` takes them, and as each partition of
    :mod:`tablebase.solve.partitioned` runs them over its own positions.

    :ivar exits: the values of moves into other tablebases, one :class:`Exits` a pass
        (``None`` for a game without any).
    :ivar passes: the passes, in order.
    :ivar keep: what each pass leaves; the last call's result is the solve's.
    :ivar surveyed: drops the tablebases ``exits`` read, once the survey is done.
    :ivar ready: reads every tablebase ``exits`` may read, up front, so that ``exits``
        then reads nothing and may run in several worker threads at once.
    """

    exits: ExitLookup | None
    passes: Sequence[Pass] = (Pass(),)
    keep: Keep = solved
    surveyed: Callable[[], None] = lambda: None
    ready: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class SurveyTap:
    """More that a survey over an index space gathers, batch by batch (what
    :class:`SpilledSurvey` gathers for another pass): ``prepare(keys, at, part)`` where
    the batch is surveyed (a worker thread, where the workers share this process's
    memory), with int64[b] every key of the batch, ascending, int64[k] the place of each
    of its positions among them, and their :class:`Survey`; then
    ``take(keys, prepared)`` in the building thread, batch after batch in order."""

    prepare: Callable[[np.ndarray, np.ndarray, Survey], Any]
    take: Callable[[np.ndarray, Any], None]


def solve_by_unmoves(
    game: Game,
    plan: UnmovePlan,
    batch_size: int,
    stages: Stages,
    workers: WorkersChoice = None,
    split: LevelSplit | None = None,
    tap: SurveyTap | None = None,
    records: np.ndarray | None = None,
) -> list[Any]:
    """Solve a game that provides un-moves, storing no move graph: one survey of the
    positions (terminal values, distinct moves, exits), then one retrograde pass for each
    of the ``plan``'s passes, with the valuation of the exits its ``exits`` gives for it
    (DTZ under the rule, without it, and DTM, for chess with ``metric=both``), one after
    the other. With more than one pass, the survey is set aside on disk
    (:class:`~tablebase.solve.scratch.Scratch`) and each pass reads its own state back,
    so the memory holds one pass's state at a time. A pass that truncates the next one
    (:meth:`Pass.truncates`) over the same exit codes is not run: the plan's ``keep``
    gets the next pass's solution for it too (DTZ's pass A where no exit leads to a
    cursed win or a blessed loss, as in every ending of up to four pieces).

    :param plan: the passes, their exits and what each leaves (:class:`UnmovePlan`);
        its ``surveyed`` is called once the survey is done.
    :param stages: progress: ``enumerate`` (or ``discover``), then ``solve`` for each pass.
    :param split: solve only the positions of ``split.level`` (numbered by a
        :class:`LevelIndex`), a move to another level an exit into :data:`SELF` (an
        index space only).
    :param tap: what else the survey over an index space gathers (:class:`SurveyTap`).
    :param records: a record array of :data:`STATE_DTYPE`, at least as long as the
        positions, that the survey's state is made in (over an index space): memory
        that one call after another reuses, not touched afresh by each.
    :returns: what ``plan.keep`` returned for each pass, in order.
    :raises GameError: if the game produces a negative key, or a successor outside its
        tablebase (forward search).
    """
    passes = plan.passes
    with Workers(game, workers) as pool:
        if game.size is not None:
            index = PositionIndex(int(game.size)) if split is None else LevelIndex(int(game.size), split)
            states = survey_indexed(game, plan, batch_size, stages, pool, index, split, tap, records)
        else:
            index, states = _survey_discovered(game, plan, batch_size, stages, pool)
        plan.surveyed()
        answered = answered_passes(passes, states.same_exits)
        kept = []
        with Scratch() as scratch:
            loading = states.each(scratch, answered)
            for way, numbers in passes_run(passes, answered):
                solution = _run_pass(index, next(loading), pool, batch_size, stages, way)
                kept.extend(plan.keep(number, index, solution) for number in numbers)
                del solution
    return kept


def _run_pass(index: PositionIndex, state: PositionState, pool: Workers, batch_size: int, stages: Stages, way: Pass) -> Solution:
    """One retrograde pass over ``state`` (consumed: the solution is views of it), its
    un-moves generated by ``pool``."""
    source = UnmoveSource(index, state.counter, pool, max(1, batch_size // 4))
    with stages("solve", index.n) as advance:
        return solve_positions(state, source, advance, way.draws, way.until)


class SpilledSurvey:
    """A survey of a whole index space of ``size`` keys (terminal values, distinct moves
    within the tablebase, exit codes: a :class:`PositionState`'s records, four bytes a
    key), gathered batch by batch into a scratch file while other passes run, for one
    more pass over the whole space later (:func:`solve_survey`): chess's DTM pass,
    surveyed by the DTZ passes' surveys one pawn-advancement level at a time. The
    memory holds none of it until then."""

    def __init__(self, size: int) -> None:
        self.scratch = Scratch()
        self.records = self.scratch.reserve(STATE_DTYPE, size)
        self.written = 0

    @staticmethod
    def batch_records(n: int, at: np.ndarray, part: Survey, moves: np.ndarray, exits: Exits) -> np.ndarray:
        """The records of a batch of ``n`` keys (:meth:`write` takes them): int64[k]
        where its positions lie among them, their :class:`Survey`, int[k] their moves
        within the whole space and the values of their exits (``src`` numbering
        ``part.keys``). Needs nothing of the survey: a worker thread may make them.

        :raises GameError: if a position has more moves, or an exit a larger code,
            than the record holds.
        """
        state = batch_states(n, at, part.terminal, moves, [exits]).state
        if state.records.dtype != STATE_DTYPE:
            raise GameError("a position has more moves, or a farther exit, than a spilled survey holds")
        return state.records

    def write(self, keys: np.ndarray, records: np.ndarray) -> None:
        """Write the :meth:`batch_records` of a batch of int64[b] keys, ascending, a run of
        consecutive keys at a time."""
        bounds = [0, *(np.flatnonzero(np.diff(keys) != 1) + 1).tolist(), len(keys)]
        for start, stop in zip(bounds[:-1], bounds[1:]):
            self.records.write(int(keys[start]), records[start:stop])
        self.written += len(keys)

    def load(self) -> PositionState:
        """The whole survey, read back.

        :raises GameError: if some key was never written."""
        if self.written != len(self.records):
            raise GameError(f"a spilled survey holds {self.written:,} of its {len(self.records):,} keys")
        return _loaded(self.records, STATE_DTYPE, None)


def solve_survey(game: Game, survey: SpilledSurvey, batch_size: int, stages: Stages, workers: WorkersChoice = None) -> SolvedIndex:
    """The retrograde pass (with the draw peel) over a :class:`SpilledSurvey` of
    ``game``'s whole index space, its survey closed (its scratch file dropped) once
    read back."""
    state = survey.load()
    survey.scratch.close()
    with Workers(game, workers) as pool:
        solution = _run_pass(PositionIndex(len(state.records)), state, pool, batch_size, stages, Pass())
    return SolvedIndex(solution.outcome, solution.remoteness)


class SurveyedStates:
    """What the survey found, for ``passes`` passes over ``n`` positions: the last pass's
    :class:`PositionState` (terminal values, counts of moves, its exit codes), and the
    exit codes of each other pass (one byte a position while they fit)."""

    def __init__(self, n: int, passes: int, records: np.ndarray | None = None) -> None:
        """:param records: a record array of at least ``n`` to make the state in (its
            values unread: :meth:`take` writes every number)."""
        # its memory first touched batch by batch (take)
        self.state = PositionState(n) if records is None else PositionState(n, records=records[:n])
        self.codes = [np.zeros(n, dtype=np.uint8) for _ in range(passes - 1)]

    def take(self, start: int, batch: BatchStates) -> None:
        """Store one batch's states at the numbers from ``start`` on, the fields and codes
        widened first where the batch's are wider."""
        span = slice(start, start + len(batch.state.records))
        records = batch.state.records
        for name in records.dtype.names:
            if records.dtype[name].itemsize > self.state.records.dtype[name].itemsize:
                self.state.widen(name, records.dtype[name])
        copy_records(self.state.records[span], records)
        for i, codes in enumerate(batch.codes):
            if codes.dtype.itemsize > self.codes[i].dtype.itemsize:
                self.codes[i] = self.codes[i].astype(codes.dtype)
            self.codes[i][span] = codes

    def same_exits(self, first: int, second: int, chunk: int = 1 << 24) -> bool:
        """Whether passes ``first`` and ``second`` have the same exit codes at every
        position (compared ``chunk`` positions at a time)."""
        codes = [*self.codes, self.state.remoteness]
        one, other = codes[first], codes[second]
        return all(np.array_equal(one[start : start + chunk], other[start : start + chunk]) for start in range(0, len(one), chunk))

    def each(self, scratch: Scratch, skipped: Sequence[bool]) -> Iterator[PositionState]:
        """The state of each pass not ``skipped`` (bool per pass; never the last), in
        turn; with more than one to run, the survey is first spilled to ``scratch``, the
        first pass runs on the state itself (its codes put in) and each later one on a
        state read back."""
        own_codes = [c for c, skip in zip(self.codes, skipped) if not skip]
        if not own_codes:
            state, self.state, self.codes = self.state, None, []
            yield state
            return
        records = scratch.put(self.state.records)
        codes = [scratch.put(c) for c in own_codes[1:]]  # the first pass runs on the state itself
        state, first = self.state, own_codes[0]
        self.state, self.codes = None, []
        del own_codes
        _take_codes(state, first)
        del first
        yield state
        for own in [*codes, None]:
            dtype = _loaded_dtype(records.dtype, own)
            # read into the finished pass's record array where it fits: on a virtual
            # machine that hands freed memory back to its host, memory touched afresh
            # costs more than the copy (about 2 s a GB here)
            spent = state.records if state.records.dtype == dtype else None
            state = None
            state = _loaded(records, dtype, own, spent)
            del spent
            yield state


def _take_codes(state: PositionState, codes: np.ndarray) -> None:
    """Put another pass's exit ``codes`` in place of the state's own (widening the field
    to hold them)."""
    if np.iinfo(codes.dtype).max > np.iinfo(state.remoteness.dtype).max:
        state.widen("remoteness", np.int32)
    state.remoteness[:] = codes


def _loaded_dtype(dtype: np.dtype, codes: Spilled | None) -> np.dtype:
    """The record dtype of a state of spilled records of ``dtype`` with the exit codes
    of ``codes`` in place of its own: the field widened to hold them where needed."""
    if codes is not None and np.iinfo(codes.dtype).max > np.iinfo(dtype["remoteness"]).max:
        return np.dtype([(name, np.int32 if name == "remoteness" else dtype[name]) for name in dtype.names])
    return dtype


def _loaded(
    records: Spilled, dtype: np.dtype, codes: Spilled | None, into: np.ndarray | None = None, chunk: int = 1 << 22
) -> PositionState:
    """A :class:`PositionState` of ``dtype`` (:func:`_loaded_dtype`) read back from
    spilled ``records``, with the exit codes of ``codes`` in place of its own, into the
    record array ``into`` (of ``dtype``, as long) where one is given."""
    state = PositionState(len(records), dtype, into)
    for start in range(0, len(records), chunk):
        part = slice(start, start + chunk)
        copy_records(state.records[part], records[part])
        if codes is not None:
            state.remoteness[part] = codes[part]
    return state


@dataclass(frozen=True)
class BatchStates:
    """One batch's part of :class:`SurveyedStates`: ``state`` the last pass's
    :class:`PositionState` of the batch's numbers, ``codes`` the other passes' exit
    codes of them."""

    state: PositionState
    codes: list[np.ndarray]


def batch_states(n: int, at: np.ndarray, terminal: np.ndarray, moves: np.ndarray, valued: Sequence[Exits]) -> BatchStates:
    """The :class:`BatchStates` of ``n`` numbers, int[k] ``at`` those of positions (the
    others :data:`ABSENT`), int8[k] ``terminal`` and int[k] ``moves`` their terminal values
    and moves within the tablebase, and the values of their exits for each pass
    (``src`` numbering ``at``)."""
    located = [Exits(at[exits.src], exits.outcome, exits.remoteness) for exits in valued]
    state = PositionState(n)
    state.outcome[:] = ABSENT
    state.outcome[at] = terminal
    state.count_moves(at, moves)
    state.fold(located[-1])
    return BatchStates(state, [fold_codes(np.zeros(n, dtype=np.uint8), exits) for exits in located[:-1]])


@dataclass(frozen=True)
class _SurveyJob:
    """What each batch of :func:`survey_indexed` needs beside its keys, to be finished
    where it is surveyed (:meth:`finish`)."""

    index: PositionIndex
    split: LevelSplit | None
    exit_lookup: ExitLookup | None
    passes: int
    prepare: Callable[[np.ndarray, np.ndarray, Survey], Any] | None

    def finish(self, start: int, keys: np.ndarray, part: Survey) -> tuple[np.ndarray, BatchStates, Any]:
        """The batch of int64[b] ``keys``, those of the numbers from ``start`` on, with
        its :class:`BatchStates` from its :class:`Survey` (its exits valued) and what
        the tap prepared of it (``None`` without one)."""
        valued = self.exit_lookup(part.exits) if len(part.exits.src) else [Exits.none()] * self.passes
        numbers = self.index.find(part.keys)[0] - start
        states = batch_states(len(keys), numbers, part.terminal, part.moves, valued)
        return keys, states, None if self.prepare is None else self.prepare(keys, numbers, part)


def _finished_survey(game: Game, batch: tuple[int, int, _SurveyJob]) -> tuple[np.ndarray, BatchStates, Any]:
    """Worker task, where the workers share this process's memory: the survey of the
    numbers ``range(start, stop)``, finished (:meth:`_SurveyJob.finish`), so that the
    building thread only stores it."""
    start, stop, job = batch
    keys = job.index.keys(np.arange(start, stop, dtype=np.int64))
    return job.finish(start, keys, survey(game, keys, split=job.split))


def survey_indexed(
    game: Game,
    plan: UnmovePlan,
    batch_size: int,
    stages: Stages,
    pool: Workers,
    index: PositionIndex,
    split: LevelSplit | None = None,
    tap: SurveyTap | None = None,
    records: np.ndarray | None = None,
) -> SurveyedStates:
    """The :class:`SurveyedStates` of the keys ``index`` numbers (an index space, one
    level of it with ``split``, or a range of it), ``batch_size`` at a time in ``pool``:
    terminal values (:data:`ABSENT` for illegal keys), distinct successor counts, and
    exit codes of ``plan``'s passes (:func:`solve_by_unmoves` gives the other
    parameters). Where the workers share this process's memory, each finishes its batch
    (finds its keys, values its exits, folds its codes; the tables the plan reads are
    read first), so that the building thread only stores them."""
    passes = len(plan.passes)
    states = SurveyedStates(index.n, passes, records)
    job = _SurveyJob(index, split, plan.exits, passes, None if tap is None else tap.prepare)
    starts = range(0, index.n, batch_size)
    with stages("enumerate", index.n) as advance:
        if pool.in_process:
            plan.ready()
            finished = pool.map(_finished_survey, ((start, min(start + batch_size, index.n), job) for start in starts))
        else:
            ahead, ranges = tee(index.ranges(batch_size))
            parts = pool.map(_survey_level, ((keys, split) for keys in ahead))
            finished = (job.finish(start, keys, part) for start, keys, part in zip(starts, ranges, parts))
        for start, (keys, batch, prepared) in zip(starts, finished):
            states.take(start, batch)
            if tap is not None:
                tap.take(keys, prepared)
            advance(len(keys))
    return states


def _survey_discovered(
    game: Game, plan: UnmovePlan, batch_size: int, stages: Stages, pool: Workers
) -> tuple[PositionIndex, SurveyedStates]:
    """Forward search from the start positions for the sorted keys alone, then
    :func:`survey_indexed` over them: the moves are generated twice, but no survey is
    held while the search goes on (its keys, terminal values and move counts would
    double the memory the sorted keys take)."""
    with stages("discover", None) as advance:
        seen = search_forward(start_keys(game), lambda frontier: pool.map(successors_found, slices(frontier, batch_size)), advance)
    index = PositionIndex(len(seen), seen)
    return index, survey_indexed(game, plan, batch_size, stages, pool, index)
