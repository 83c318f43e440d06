"""The one-byte DTZ pass over a whole index space (:func:`solve_dtz_in_bytes`).

Ply ``p`` of the pass, in three steps over the chunks that hold work (:mod:`.kernels`):

1. the positions lost in ``p - 1`` plies make their predecessors won in ``p`` (where
   undecided);
2. the positions won in ``p`` make their undecided predecessors candidates;
3. each candidate's moves are generated again: where every one leads to a win, it is
   lost in ``p + 1`` plies (the newest win is the one at ``p``), else undecided again.

Where the wins of ``p`` are so many that marking their predecessors would cost more than
checking every undecided position (:data:`SWEEP_RATIO`; ply 1 of KRBvKR, whose
captures into lost smaller endings win), step 2 is skipped and step 3 checks every
undecided position (a *sweep*): one all of whose moves lead to wins has its newest win
at ``p``, or an earlier ply would have found it lost. The sweep also makes each position
with a move into a loss in ``p`` a win in ``p + 1``, so ply ``p + 1`` has no step 1:
each position's moves are generated once for both (antichess RBNvKQ, whose survey leaves
75 million positions undecided: 23 s for the sweep of ply 1, where it took 21 s and step 1
of ply 2 un-moved 89 million losses in 19 s more).

A terminal win (antichess's side without a move) is a win in 0 plies: the pass then
starts at ply 0, which checks its predecessors for a loss in 1. A win by a zeroing move
into a blessed loss becomes a win in 101 plies at ply 101 unless it was won sooner, and
a position whose best zeroing move leads to a cursed win is checked at ply 100 for a
loss in 101 (a blessed loss). Each step writes only codes no other thread of that step
reads, or codes that read the same before and after (a sweep's new wins and losses at
``p + 1`` count as neither won nor lost while it runs; see :mod:`.kernels`), so threads
need no lock.
When the next level's code would fall outside the window (:class:`.codes.Window`), the
codes are written to a scratch file and the window moves up. The pass ends when no step
has work left past ply 101. Its state is written to disk after the survey and every
:data:`~.checkpoint.CHECKPOINT_SECONDS` or so between plies (:mod:`.checkpoint`): a pass
killed goes on from there when the build runs again.

The levels follow the Syzygy generator's (R. de Man, syzygy1/tb ``rtbgen.c``): DTZ is the
plies to the next zeroing move on the fastest win under the rule, a capture into a
blessed loss counting 101, and the pass's outcome is the game's without the rule.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from tablebase.core.game import Game
from tablebase.solve.bytepass import checkpoint as checkpoints
from tablebase.solve.bytepass.checkpoint import FLAG_NAMES, Checkpoint, Resumed
from tablebase.solve.bytepass.codes import (
    CAPT_CLOSS,
    CAPT_CWIN,
    CAPT_DRAW,
    CHANGED,
    CURSED_CAPTURE_PLIES,
    LEVELS,
    UNKNOWN,
    Window,
)
from tablebase.solve.bytepass.kernels import (
    collect,
    count_codes,
    flag_codes,
    initial_codes,
    mark_changed,
    code_set,
    mark_wins,
    settle_verdicts,
    slide,
    successor_classes,
)
from tablebase.solve.bytepass.solved import ByteSolved
from tablebase.solve.exits import ReadOnce, ReadTable, exit_categories
from tablebase.solve.graph import ExitMoves
from tablebase.solve.scratch import Scratch, Spilled
from tablebase.util.cores import usable_cores
from tablebase.util.hugepages import huge_zeros
from tablebase.util.progress import Stages

CHUNK_SHIFT = 12
"""Keys a chunk of the pass's flags holds: ``1 << CHUNK_SHIFT``."""

FOUND = 1 << 18
"""The most positions a thread takes from its chunks at once, to follow or to check."""

SWEEP_RATIO = 9
"""Step 3 checks every undecided position instead of the candidates of step 2 where a
ply's new wins times this exceed the undecided positions. Following a win costs about
as much as checking eight or nine undecided positions: on KRBvKR, 600-750 ns of a core
a win (its 17 predecessors un-moved and marked, its 1.6 candidates checked), and 77-84
ns an undecided position swept, most of whose checks end at their first move."""

UNDECIDED_ZEROING = (CAPT_DRAW, CAPT_CLOSS, CAPT_CWIN)
"""The undecided codes whose zeroing moves rule out a loss before ply 101: a sweep
looks at them for a win only (at ply 100, :data:`CAPT_CLOSS` for a loss in 101 too)."""

BLESSED_CHECK_PLY = CURSED_CAPTURE_PLIES - 1
"""The ply whose step 3 checks the positions whose best zeroing move leads to a cursed
win, for a loss in 101 plies."""

T = TypeVar("T")


def solve_dtz_in_bytes(
    game: Game, batch_size: int, stages: Stages, read: ReadTable | None, threads: int | None = None, levels: int = LEVELS
) -> ByteSolved:
    """DTZ under the 50-move rule and the outcome without it of every key of ``game``'s
    index space, one byte a key while solving (see the module docstring).

    ``game`` has an index space (``size``) and the batch API: ``survey_batch``,
    ``predecessors`` and ``move_verdicts``; every move that leaves its tablebase zeroes,
    and no move inside it does (no ``zeroing_inside``).

    :param batch_size: keys surveyed at a time.
    :param threads: threads at once (default one a core); the game's kernels release
        the GIL.
    :param levels: DTZ levels a window of codes holds (at least 3; fewer than
        :data:`~tablebase.solve.bytepass.codes.LEVELS` only to test the window's slide).
    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a dependency stores no DTZ.
    :raises OSError: if the disk is full for a window's snapshot.
    """
    threads = threads or usable_cores()
    pool = ThreadPoolExecutor(threads, thread_name_prefix="bytepass")
    root = checkpoints.checkpoints_folder()
    checkpoint = Checkpoint(game, levels, root) if root is not None else None
    try:
        solving = _BytePass(game, pool, threads, levels, checkpoint)
        resumed = checkpoint.load(solving.size) if checkpoint is not None else None
        if resumed is None:
            solving.survey(batch_size, stages, ReadOnce(game, read))
            ply = solving.first_ply()
            solving.save(ply)
        else:
            solving.resume(resumed)
            ply = resumed.ply
        with stages("dtz", solving.size) as advance:
            while solving.ply(ply):
                advance(solving.decided)
                solving.decided = 0
                ply += 1
                solving.save_if_due(ply)
        return ByteSolved(solving.codes, solving.window.base, solving.snapshots, checkpoint)
    finally:
        pool.shutdown(cancel_futures=True)  # interrupted: the parts not begun are dropped


class _BytePass:
    """The state of one pass: the codes, the flags of their chunks, the window."""

    def __init__(self, game: Game, pool: ThreadPoolExecutor, threads: int, levels: int, checkpoint: Checkpoint | None) -> None:
        self.game, self.pool, self.checkpoint = game, pool, checkpoint
        self.size = int(game.size or 0)
        self.codes = huge_zeros(self.size, np.uint8)
        chunks = -(-self.size >> CHUNK_SHIFT)
        self.wins, self.losses, self.candidates, self.cursed, self.blessed = (np.zeros(chunks, np.uint64) for _ in range(5))
        self.window = Window(0, levels)
        self.snapshots: list[tuple[Spilled | np.ndarray, int]] = []
        self.scratch: Scratch | None = None
        self.saved = time.monotonic()
        step = max(1, -(-chunks // (8 * threads)))  # parts enough to keep every thread busy
        self.parts = [(lo, min(lo + step, chunks)) for lo in range(0, chunks, step)]
        self.decided = 0
        self.undecided = self.size
        """The :data:`UNKNOWN` positions as last counted (at most so many since, but
        where ply 100 gives up the blessed losses it checks)."""
        self.fresh = 0
        """The wins at the next ply's level before its step 1 (the survey's wins at the
        first ply's level)."""

    def survey(self, batch_size: int, stages: Stages, read: ReadOnce) -> None:
        """The first codes of every key, from the game's survey, and their chunks' flags;
        the undecided positions and the wins at :meth:`first_ply`'s level counted."""
        read.read_all()
        game, window = self.game, self.window
        with stages("survey", self.size) as advance:

            def batch(lo: int) -> None:
                hi = min(lo + batch_size, self.size)
                found = game.survey_batch(np.arange(lo, hi, dtype=np.int64), distinct=False)
                src, table, key = found.exits
                category = exit_categories(game, ExitMoves(src, table, key), read)
                initial_codes(
                    found.legal, found.terminal, found.moves, src, category, self.codes[lo:hi],
                    window.win(0), window.win(1), window.loss(0), window.loss(1),
                )  # fmt: skip
                advance(hi - lo)

            list(self.pool.map(batch, range(0, self.size, batch_size)))
        read.forget()
        self._each(lambda lo, hi: flag_codes(self.codes, lo, hi, CHUNK_SHIFT, self.wins, self.losses, self.cursed, self.blessed))
        self._count(self.first_ply())

    def first_ply(self) -> int:
        """The ply the pass starts from after the survey: 0 where a terminal position is
        won (antichess's side without a move), so its predecessors are checked for a
        loss in 1; else 1."""
        return 0 if (self.wins & _bit(0)).any() else 1

    def resume(self, resumed: Resumed) -> None:
        """Take the state of a checkpoint."""
        self.codes = resumed.codes
        for name in FLAG_NAMES:
            setattr(self, name, resumed.flags[name])
        self.window = Window(resumed.base, self.window.levels)
        self.snapshots = list(resumed.snapshots)
        self._count(resumed.ply)

    def _count(self, ply: int) -> None:
        """Count the undecided positions and the wins at ``ply``'s level."""
        win = self.window.win(ply)

        def part(lo: int, hi: int) -> tuple[int, int]:
            return count_codes(self.codes, lo << CHUNK_SHIFT, min(hi << CHUNK_SHIFT, self.size), UNKNOWN, win)

        counts = self._each(part)
        self.undecided, self.fresh = sum(c[0] for c in counts), sum(c[1] for c in counts)

    def save(self, ply: int) -> None:
        """Write a checkpoint to go on from at ``ply``; where the disk is full, go on
        without checkpoints."""
        if self.checkpoint is None:
            return
        flags = {name: getattr(self, name) for name in FLAG_NAMES}
        try:
            self.checkpoint.save(ply, self.window.base, self.codes, flags, [base for _codes, base in self.snapshots])
        except OSError:
            self.checkpoint.clear()
            self.checkpoint = None
        self.saved = time.monotonic()

    def save_if_due(self, ply: int) -> None:
        """:meth:`save` where the last was :data:`~.checkpoint.CHECKPOINT_SECONDS` ago."""
        if time.monotonic() - self.saved >= checkpoints.CHECKPOINT_SECONDS:
            self.save(ply)

    def ply(self, ply: int) -> bool:
        """Ply ``ply``'s three steps; whether a later ply has work."""
        if not self.window.holds(ply + 1):
            self._slide(ply - 1)
        window, codes = self.window, self.codes

        def unmoved(keys: np.ndarray) -> np.ndarray:
            return self.game.predecessors(keys)[1]

        def won(found: np.ndarray) -> int:
            return int(mark_wins(codes, found, window.win(ply), self.wins, _bit(ply), CHUNK_SHIFT))

        new_wins = self.fresh
        if ply > 0:  # ply 0 (terminal wins) has no losses before it; after a sweep, none are flagged
            new_wins += self._follow(self.losses, _bit(ply - 1), code_set(window.loss(ply - 1)), unmoved, won)
        if ply == CURSED_CAPTURE_PLIES:
            new_wins += self._follow(self.cursed, np.uint64(1), code_set(CAPT_CWIN), lambda keys: keys, won)
        self.fresh = 0
        sweep = new_wins * SWEEP_RATIO > self.undecided
        blessed = (CAPT_CLOSS,) if ply == BLESSED_CHECK_PLY else ()
        if sweep:  # step 3 checks every undecided position: step 2's marks are not needed
            self.wins &= ~_bit(ply)
            self.candidates[:] = 1
            wanted, losable = code_set(UNKNOWN, *UNDECIDED_ZEROING), code_set(UNKNOWN, *blessed)
        else:
            self._follow(self.wins, _bit(ply), code_set(window.win(ply)), unmoved, lambda found: mark_changed(codes, found, self.candidates, CHUNK_SHIFT))
            wanted = losable = code_set(CHANGED, *blessed)
        # a loss in `ply + 1` has every move into a win by `ply`: the wins at `ply + 1` (made by
        # a sweep as it runs, or the survey's wins in 1 at ply 0) do not count
        classes = successor_classes(window.loss(ply) if sweep else -1, window.win(ply + 1))
        if blessed:
            self.candidates |= self.blessed
        checked, lost, won_next = self._check(wanted, losable, classes, ply)
        if sweep:  # the losses in `ply` have made their predecessors won: the next ply's step 1 has none to follow
            self.losses &= ~_bit(ply)
            self.fresh = won_next
            self.undecided = checked - lost - won_next
        waiting = ply < CURSED_CAPTURE_PLIES and self.cursed.any()
        waiting = waiting or (ply < BLESSED_CHECK_PLY and self.blessed.any())
        return bool(waiting or self.wins.any() or self.losses.any() or self.candidates.any())

    def _follow(
        self, flags: np.ndarray, mask: np.uint64, wanted: np.ndarray, of: Callable[[np.ndarray], np.ndarray], mark: Callable[[np.ndarray], int | None]
    ) -> int:
        """Steps 1 and 2 (and the cursed wins at ply 101): ``mark(of(keys))`` of the
        keys of the ``wanted`` codes (bool[256]) in the chunks ``flags`` has at ``mask``;
        how many it decided."""

        def part(lo: int, hi: int) -> int:
            found = np.empty(FOUND, np.int64)
            made = 0
            while lo < hi:
                count, lo = collect(self.codes, flags, mask, wanted, lo, hi, CHUNK_SHIFT, found)
                if count:
                    made += int(mark(of(found[:count])) or 0)
            return made

        made = sum(self._each(part))
        self.decided += made
        return made

    def _check(self, wanted: np.ndarray, losable: np.ndarray, classes: np.ndarray, ply: int) -> tuple[int, int, int]:
        """Step 3: the positions of the ``wanted`` codes in the chunks flagged as
        candidates, their moves judged by ``classes``
        (:meth:`~tablebase.core.game.Game.move_verdicts`): lost in ``ply + 1`` where every
        move leads to a win and the code is ``losable``, won in ``ply + 1`` where a move
        leads to a lost code; how many it checked, lost and won."""
        window, move_verdicts = self.window, self.game.move_verdicts
        loss, win, bit = window.loss(ply + 1), window.win(ply + 1), _bit(ply + 1)

        def part(lo: int, hi: int) -> tuple[int, int, int]:
            found = np.empty(FOUND, np.int64)
            checked = lost = won = 0
            while lo < hi:
                count, lo = collect(self.codes, self.candidates, np.uint64(1), wanted, lo, hi, CHUNK_SHIFT, found)
                if count:
                    keys = found[:count]
                    verdicts = move_verdicts(keys, self.codes, classes)
                    checked += count
                    made = settle_verdicts(self.codes, keys, verdicts, losable, loss, win, self.losses, self.wins, bit, bit, CHUNK_SHIFT)
                    lost, won = lost + int(made[0]), won + int(made[1])
            return checked, lost, won

        counts = self._each(part)
        checked, lost, won = (sum(c[i] for c in counts) for i in range(3))
        self.decided += lost + won
        return checked, lost, won

    def _slide(self, base: int) -> None:
        """Keep the codes on disk and move the window to start at ``base``."""
        if self.checkpoint is not None:
            self.snapshots.append((self.checkpoint.snapshot(len(self.snapshots), self.codes), self.window.base))
        else:
            if self.scratch is None:
                self.scratch = Scratch()
            self.snapshots.append((self.scratch.put(self.codes), self.window.base))
        by = base - self.window.base
        self._each(lambda lo, hi: slide(self.codes, lo << CHUNK_SHIFT, min(hi << CHUNK_SHIFT, self.size), by))
        self.window = Window(base, self.window.levels)

    def _each(self, part: Callable[[int, int], T]) -> list[T]:
        """``part(lo, hi)`` of every range of chunks, in the threads."""
        return list(self.pool.map(lambda bounds: part(*bounds), self.parts))


def _bit(level: int) -> np.uint64:
    """The flag bit of a level."""
    return np.uint64(1) << np.uint64(level % 64)
