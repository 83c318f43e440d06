"""A survey of a whole index space set aside on disk a batch at a time while other passes
run (:class:`SpilledSurvey`), and its own pass later (:func:`solve_survey`)."""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.state import STATE_DTYPE, PositionState
from tablebase.solve.scratch import Scratch
from tablebase.solve.solved import SolvedIndex
from tablebase.solve.unmoves.index import PositionIndex
from tablebase.solve.unmoves.plan import Pass
from tablebase.solve.unmoves.solver import _run_pass
from tablebase.solve.unmoves.states import _loaded, batch_states
from tablebase.solve.unmoves.survey import Survey
from tablebase.solve.workers import Workers, WorkersChoice
from tablebase.util.progress import Stages


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
