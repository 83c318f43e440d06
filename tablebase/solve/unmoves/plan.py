"""What a value kind asks of a solve by un-moves (:class:`UnmovePlan`): its passes over one
survey (:class:`Pass`), the values of their exits, and what each pass leaves."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tablebase.solve.graph import ExitMoves
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.state import Solution
from tablebase.solve.solved import SolvedGame, SolvedIndex
from tablebase.solve.unmoves.index import PositionIndex

ExitLookup = Callable[[ExitMoves], Sequence[Exits]]
"""Gives the values of moves into other tablebases (read from the store): one
:class:`Exits` for each pass that shares the survey."""


@dataclass(frozen=True)
class Pass:
    """One retrograde pass over a shared survey (:func:`~tablebase.solve.unmoves.solver.solve_by_unmoves`): whether
    draws get their remoteness (the draw peel), and the last level it resolves (``None``
    for all), as :func:`~tablebase.solve.retrograde.solver.solve_positions` takes them."""

    draws: bool = True
    until: int | None = None

    def truncates(self, later: Pass) -> bool:
        """Whether this pass is ``later`` stopped at :attr:`until`: over exit codes that
        agree up to ``until`` (:func:`~tablebase.solve.retrograde.exit_codes.codes_agree`),
        it resolves exactly ``later``'s positions at levels up to ``until``, with their
        values (a level depends only on lower ones)."""
        return self.until is not None and later.until is None and not self.draws and not later.draws


Keep = Callable[[int, PositionIndex, Solution], Any]
"""What a pass leaves behind: called with the pass's number, the numbering of the
positions and its :class:`Solution` (views of its state, freed once the last call
about it returns). A pass that stops at a level (:attr:`Pass.until`) may be handed the
solution of the pass it truncates (:meth:`Pass.truncates`), levels past ``until``
included, which it reads as unresolved."""


def answered_passes(passes: Sequence[Pass], exits_agree: Callable[[int, int, int | None], bool]) -> list[bool]:
    """Which of ``passes`` need not run: a pass that truncates the next one
    (:meth:`Pass.truncates`) where ``exits_agree(i, i + 1, until)`` says their exit codes
    value every position alike up to the first one's :attr:`Pass.until`; the next pass's
    solution answers it (see :data:`Keep`)."""
    return [
        i + 1 < len(passes) and way.truncates(passes[i + 1]) and exits_agree(i, i + 1, way.until) for i, way in enumerate(passes)
    ]


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
    """The default :data:`Keep`: the values as :func:`~tablebase.solve.retrograde.solver.solve`
    gives them over the move graph, over the index space (:class:`SolvedIndex`) for a
    game that has one, else by sorted key."""
    if index.sorted_keys is not None:
        return SolvedGame(index.sorted_keys, Solution(solution.outcome, solution.remoteness.astype(np.int32)))
    return SolvedIndex(solution.outcome, solution.remoteness)


@dataclass(frozen=True)
class UnmovePlan:
    """The passes of a value kind over one survey by un-moves, as
    :func:`~tablebase.solve.unmoves.solver.solve_by_unmoves` takes them, and as each partition of
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
