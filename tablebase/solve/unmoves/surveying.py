"""The survey of every position of a solve by un-moves (:func:`survey_indexed`), a batch at
a time in the workers, into :class:`~tablebase.solve.unmoves.states.SurveyedStates`: over an
index space, one level or a range of it, or the keys a forward search finds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import tee
from typing import Any

import numpy as np

from tablebase.core.batches import LevelSplit
from tablebase.core.game import Game
from tablebase.solve.graph import slices, start_keys
from tablebase.solve.keyset import search_forward
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.unmoves.index import PositionIndex
from tablebase.solve.unmoves.plan import ExitLookup, UnmovePlan
from tablebase.solve.unmoves.states import BatchStates, SurveyedStates, batch_states
from tablebase.solve.unmoves.survey import Survey, _survey_level, successors_found, survey
from tablebase.solve.workers import Workers
from tablebase.util.progress import Stages


@dataclass(frozen=True)
class SurveyTap:
    """More that a survey over an index space gathers, batch by batch (what
    :class:`~tablebase.solve.unmoves.spilled.SpilledSurvey` gathers for another pass): ``prepare(keys, at, part)`` where
    the batch is surveyed (a worker thread, where the workers share this process's
    memory), with int64[b] every key of the batch, ascending, int64[k] the place of each
    of its positions among them, and their :class:`Survey`; then
    ``take(keys, prepared)`` in the building thread, batch after batch in order."""

    prepare: Callable[[np.ndarray, np.ndarray, Survey], Any]
    take: Callable[[np.ndarray, Any], None]


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
    terminal values (:data:`~tablebase.solve.solved.ABSENT` for illegal keys), distinct successor counts, and
    exit codes of ``plan``'s passes (:func:`~tablebase.solve.unmoves.solver.solve_by_unmoves` gives the other
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
