"""What the survey of every position holds for the passes that share it
(:class:`SurveyedStates`), gathered a batch at a time (:class:`BatchStates`), and read
back pass by pass from disk."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tablebase.solve.retrograde.exit_codes import Exits, codes_agree, fold_codes
from tablebase.solve.retrograde.state import PositionState, copy_records
from tablebase.solve.scratch import Scratch, Spilled
from tablebase.solve.solved import ABSENT


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

    def exits_agree(self, first: int, second: int, until: int | None, chunk: int = 1 << 24) -> bool:
        """Whether passes ``first`` and ``second`` value every position's exits alike at
        each level up to ``until`` (:func:`~tablebase.solve.retrograde.exit_codes.codes_agree`),
        compared ``chunk`` positions at a time."""
        codes = [*self.codes, self.state.remoteness]
        one, other = codes[first], codes[second]
        return all(codes_agree(one[start : start + chunk], other[start : start + chunk], until) for start in range(0, len(one), chunk))

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
            # costs more than the copy (benchmarks/RESULTS.md)
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
