"""Partitions that find their own state (:class:`SurveyedPartition`), surveyed and un-moved
where they are held, their value kind's passes run over one survey; that of a key range of
an index space (:class:`RangePartition`); which games they solve
(:func:`partitions_unsupported`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from tablebase.core.errors import UsageError
from tablebase.core.game import Game, provides_unmoves
from tablebase.core.tally import Tally
from tablebase.core.values import StoredKind
from tablebase.solve.exits import ReadTable
from tablebase.solve.kinds import kind_of
from tablebase.solve.partitioned.owners import KeyRanges, Owners
from tablebase.solve.partitioned.partition import Partition
from tablebase.solve.retrograde.state import PositionState, Solution
from tablebase.solve.scratch import Scratch
from tablebase.solve.solved import SolvedIndex
from tablebase.solve.unmoves.index import PositionIndex
from tablebase.solve.unmoves.plan import Pass
from tablebase.solve.unmoves.source import UnmoveSource
from tablebase.solve.unmoves.surveying import survey_indexed
from tablebase.solve.workers import Workers
from tablebase.util.progress import silent


def partitions_unsupported(game: Game) -> str | None:
    """Why partitions (:class:`RangePartition`, :class:`~tablebase.solve.partitioned.discovered.DiscoveredPartition`) cannot
    solve ``game``, or ``None`` if they can: they need un-moves, and a value kind whose
    passes share one survey (:meth:`~tablebase.solve.kinds.ValueKind.unmove_plan`:
    win/draw/loss, and chess's DTZ and DTM without pawns)."""
    if not provides_unmoves(game):
        return f"{game.name} has no un-moves"
    kind = kind_of(game)
    if kind.unmove_plan(game, None) is not None:
        return None
    if kind.stored == StoredKind.DTZ:
        return f"{game.describe()}: DTZ with zeroing moves inside the tablebase (pawns) is solved one progress level at a time, which partitions do not split (-p metric=dtm)"
    return f"{game.describe()} stores {game.mode}, which partitions do not solve"


def check_partitions(game: Game) -> None:
    """Check that partitions can solve ``game`` (a collection's last member, the one they
    solve).

    :raises UsageError: if they cannot, saying why (:func:`partitions_unsupported`).
    """
    if problem := partitions_unsupported(game.members()[-1]):
        raise UsageError(f"--partitions: {problem}")


class KeyRange(PositionIndex):
    """Numbers the keys ``lo <= key < hi`` of an index space by their offset from ``lo``."""

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        super().__init__(hi - lo)

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        return nodes.astype(np.int64) + self.lo

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        nodes = keys - self.lo
        hit = (nodes >= 0) & (nodes < self.n)
        return nodes, None if hit.all() else hit


class SurveyedPartition(Partition):
    """A :class:`Partition` that finds its own state, so that nothing about a position
    comes from the process driving the pass: its keys surveyed a batch at a time
    (:func:`~tablebase.solve.unmoves.surveying.survey_indexed`: terminal values, distinct moves,
    moves out of the tablebase valued through ``read`` and folded into exit codes), the
    predecessors of its positions generated from the game's un-moves
    (:class:`~tablebase.solve.unmoves.source.UnmoveSource`, in this process), and its value
    kind's passes run over the one survey (the :class:`~tablebase.solve.unmoves.plan.UnmovePlan`
    of :meth:`~tablebase.solve.kinds.ValueKind.unmove_plan`: one for win/draw/loss with
    remoteness, DTZ's two and DTM's for chess), driven by :func:`~tablebase.solve.partitioned.rounds.solve_passes`. Each
    pass holds one :class:`PositionState`; the survey's other exit codes wait on disk.
    """

    game: Game
    read: ReadTable | None
    batch_size: int

    def _survey(self, owners: Owners, own: PositionIndex, routed: PositionIndex, first: int = 0) -> None:
        """Survey the keys ``own`` numbers (the moves out of the tablebase valued through
        :attr:`read`, dropped after), their predecessors numbered by ``routed`` as
        ``owners`` routes them. No pass's state is held until :meth:`begin_pass`."""
        plan = kind_of(self.game).unmove_plan(self.game, self.read)
        assert plan is not None, partitions_unsupported(self.game)
        self.owners, self.first = owners, first
        self.plan, self.own, self.routed = plan, own, routed
        self.pool = Workers(self.game, 1)
        self.states = survey_indexed(self.game, plan, self.batch_size, silent, self.pool, own)
        plan.surveyed()
        self.loading: Iterator[PositionState] | None = None
        self.scratch: Scratch | None = None  # the survey set aside while the passes run
        self.solved: SolvedIndex | None = None

    def size(self) -> int:
        """How many offsets it holds, known from the survey on (before any pass)."""
        return self.own.n

    def _unmoves(self, state: PositionState) -> UnmoveSource:
        return UnmoveSource(self.routed, state.counter, self.pool, max(1, self.batch_size // 4))

    def passes(self) -> Sequence[Pass]:
        """The passes of its plan, in order."""
        return self.plan.passes

    def exits_agree(self, first: int, second: int, until: int | None) -> bool:
        """Whether passes ``first`` and ``second`` value its exits alike at each level up
        to ``until`` (``None``: all)."""
        assert self.states is not None
        return self.states.exits_agree(first, second, until)

    def begin_pass(self, answered: Sequence[bool]) -> None:
        """Hold the state of the next pass to run (``answered``: bool a pass, those the
        next one's solution answers, run by none)."""
        if self.loading is None:
            self.scratch = Scratch()
            self.loading, self.states = self.states.each(self.scratch, answered), None
        else:
            del self.state, self.graph  # the last pass's, unless its solution is kept
        state = next(self.loading)
        self._hold(state, self._unmoves(state))

    def end_pass(self, numbers: Sequence[int]) -> None:
        """Hand the pass's solution to the plan's ``keep`` as the solution of each of
        ``numbers``; the last call's result is what :meth:`values` gives."""
        solution = Solution(self.state.outcome, self.state.remoteness)
        for number in numbers:
            kept = self.plan.keep(number, self.own, solution)
        if kept is not None:
            self.solved = kept
            self.solved.first = self.first  # its keys, where they are those of a range
        if numbers[-1] == len(self.plan.passes) - 1 and self.scratch is not None:
            self.scratch.close()  # the last pass's state is read back: the survey is not needed
            self.scratch = None

    def values(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, ...]:
        """``(outcome, remoteness)`` of its positions at offsets ``start:stop`` as the
        plan kept them (int8 and int16 or int32), with the extra values (DTZ, int16)
        where it keeps them."""
        assert self.solved is not None
        solved = self.solved
        extra = () if solved.extra is None else (solved.extra[start:stop],)
        return solved.outcome[start:stop], solved.remoteness[start:stop], *extra

    def tally(self) -> Tally:
        assert self.solved is not None
        return self.solved.tally()


class RangePartition(SurveyedPartition):
    """A :class:`SurveyedPartition` of a key range of a game's index space.

    :param game: a game :func:`partitions_unsupported` accepts.
    :param bounds: int64[P + 1] from :func:`~tablebase.solve.partitioned.owners.partition_bounds` over ``game.size``.
    :param me: this partition's number.
    :param read: the stored dependencies (:data:`~tablebase.solve.exits.ReadTable`).
    :param batch_size: keys surveyed, and positions un-moved, at a time.
    :raises NotBuiltError: if a dependency is not stored.
    """

    def __init__(self, game: Game, bounds: np.ndarray, me: int, read: ReadTable | None, batch_size: int = 1 << 16) -> None:
        self.game, self.read, self.batch_size, self.me = game, read, batch_size, me
        index = KeyRange(int(bounds[me]), int(bounds[me + 1]))
        self._survey(KeyRanges(bounds), index, PositionIndex(int(game.size)), index.lo)
